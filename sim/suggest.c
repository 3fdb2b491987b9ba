/*
** suggest.c: edit distance and "did you mean" (see suggest.h).
*/
#include "sim/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define WORD_MAX 63

int sim_edit_distance(const char *a, size_t na, const char *b, size_t nb,
		      int cap)
{
	int row[WORD_MAX + 1], prev, cur;
	size_t i, j;

	if (na > WORD_MAX || nb > WORD_MAX)
		return cap;
	for (j = 0; j <= nb; j++)
		row[j] = (int)j;
	for (i = 1; i <= na; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= nb; j++) {
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			cur = row[j];
			row[j] = prev + !same;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[nb] < cap ? row[nb] : cap;
}

int sim_typo_close(size_t len, int d)
{
	return d > 0 && d <= (len >= 4 ? 2 : 1) && (size_t)d < len;
}

/* Keeps the candidate c[0..nc) in *best when nearer than *bd; sets *exact
** when it is the word itself. */
static void consider(const char *word, size_t nw, const char *c, size_t nc,
		     const char **best, size_t *nbest, int *bd, int *exact)
{
	int d = sim_edit_distance(word, nw, c, nc, 9);

	if (d == 0 && nw == nc)
		*exact = 1;
	if (d < *bd) {
		*bd = d;
		*best = c;
		*nbest = nc;
	}
}

static int answer(size_t nw, const char *best, size_t nbest, int bd,
		  int exact, char *out, size_t n)
{
	if (n > 0)
		out[0] = '\0';
	if (exact || best == NULL || !sim_typo_close(nw, bd))
		return 0;
	if (n > 0)
		snprintf(out, n, "%.*s", (int)nbest, best);
	return 1;
}

int sim_suggest(const char *word, const char *list, char *out, size_t n)
{
	const char *p = list, *best = NULL;
	size_t nw = strlen(word), nbest = 0;
	int bd = 9, exact = 0;

	while (p != NULL && *p != '\0') {
		size_t len;
		while (*p == ' ' || *p == ',')
			p++;
		len = strcspn(p, ",");
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len > 0)
			consider(word, nw, p, len, &best, &nbest, &bd, &exact);
		p += strcspn(p, ",");
	}
	return answer(nw, best, nbest, bd, exact, out, n);
}

int sim_suggest_v(const char *word, const char *const *v, char *out,
		  size_t n)
{
	const char *best = NULL;
	size_t nw = strlen(word), nbest = 0, i;
	int bd = 9, exact = 0;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		consider(word, nw, v[i], strlen(v[i]), &best, &nbest, &bd,
			 &exact);
	return answer(nw, best, nbest, bd, exact, out, n);
}

void sim_did_you_mean(const char *word, const char *list, char *out,
		      size_t n)
{
	char name[WORD_MAX + 1];

	if (n == 0)
		return;
	out[0] = '\0';
	if (sim_suggest(word, list, name, sizeof name))
		snprintf(out, n, "did you mean %s? ", name);
}
