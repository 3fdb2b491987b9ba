/*
** suggest.c: edit distance and "did you mean" (see suggest.h).
*/
#include "sim/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define WORD_MAX 63

static int low(char c)
{
	return tolower((unsigned char)c);
}

/* Optimal string alignment: insertions, deletions, substitutions and
** swaps of two neighbours ("nwe" -> "new") cost 1 each.  Three rows:
** d[i - 2], d[i - 1], d[i]. */
int sim_edit_distance(const char *a, size_t na, const char *b, size_t nb,
		      int cap)
{
	int r[3][WORD_MAX + 1];
	size_t i, j;

	if (na > WORD_MAX || nb > WORD_MAX)
		return cap;
	for (j = 0; j <= nb; j++)
		r[0][j] = (int)j;
	for (i = 1; i <= na; i++) {
		int *d = r[i % 3], *p = r[(i - 1) % 3], *pp = r[(i + 1) % 3];
		d[0] = (int)i;
		for (j = 1; j <= nb; j++) {
			int v = p[j - 1] + (low(a[i - 1]) != low(b[j - 1]));
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (d[j - 1] + 1 < v)
				v = d[j - 1] + 1;
			if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) &&
			    low(a[i - 2]) == low(b[j - 1]) && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			d[j] = v;
		}
	}
	return r[na % 3][nb] < cap ? r[na % 3][nb] : cap;
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
