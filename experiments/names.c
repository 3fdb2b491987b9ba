/*
** names.c: a set of strings in insertion order (see names.h).
*/
#include "experiments/names.h"

#include <stdlib.h>
#include <string.h>

int exp_names_find(const struct exp_names *n, const char *s)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->v[i], s) == 0)
			return (int)i;
	return -1;
}

int exp_names_add(struct exp_names *n, const char *s)
{
	int k = exp_names_find(n, s);

	if (k >= 0)
		return k;
	if (n->n == n->cap) {
		size_t c = n->cap ? n->cap * 2 : 16;
		char **p = realloc(n->v, c * sizeof *p);
		if (p == NULL)
			return -1;
		n->v = p;
		n->cap = c;
	}
	if ((n->v[n->n] = strdup(s)) == NULL)
		return -1;
	return (int)n->n++;
}

void exp_names_fini(struct exp_names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof *n);
}
