/*
** maxtree.c: the max segment tree (see maxtree.h).
*/
#include "sim/maxtree.h"

#include <stdlib.h>

#include "sim/err.h"

int sim_maxtree_init(struct sim_maxtree *t, int n, int64_t fill)
{
	int size = 1, i;

	while (size < n)
		size *= 2;
	t->n = n;
	t->size = size;
	t->v = malloc(2 * (size_t)size * sizeof *t->v);
	if (t->v == NULL)
		return SIM_ENOMEM;
	for (i = 0; i < size; i++)
		t->v[size + i] = i < n ? fill : INT64_MIN;
	for (i = size - 1; i >= 1; i--)
		t->v[i] = t->v[2 * i] > t->v[2 * i + 1] ? t->v[2 * i] :
			t->v[2 * i + 1];
	return 0;
}

void sim_maxtree_fini(struct sim_maxtree *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->size = 0;
}

void sim_maxtree_set(struct sim_maxtree *t, int i, int64_t value)
{
	int64_t *v = t->v;
	int k = t->size + i;

	if (v[k] == value)
		return;
	v[k] = value;
	for (k /= 2; k >= 1; k /= 2) {
		int64_t m = v[2 * k] > v[2 * k + 1] ? v[2 * k] : v[2 * k + 1];
		if (v[k] == m)
			break;
		v[k] = m;
	}
}

int sim_maxtree_first_ge(const struct sim_maxtree *t, int from,
			 int64_t bound)
{
	const int64_t *v = t->v;
	int k;

	if (from < 0)
		from = 0;
	if (from >= t->n || v[1] < bound)
		return -1;
	/* climb from the leaf until a right sibling subtree can hold it */
	k = t->size + from;
	if (v[k] >= bound)
		return from;
	for (;;) {
		while (k & 1) {           /* a right child: go up */
			k /= 2;
			if (k == 0)
				return -1;
		}
		k++;                      /* the right sibling */
		if (v[k] >= bound)
			break;
	}
	while (k < t->size)           /* down, leftmost first */
		k = v[2 * k] >= bound ? 2 * k : 2 * k + 1;
	k -= t->size;
	return k < t->n ? k : -1;
}

/* Keeps best[0..*nb) the largest leaf values seen, descending, at most k;
** visits node i's subtree unless it cannot improve them. */
static void kth_walk(const struct sim_maxtree *t, int i, int k,
		     int64_t *best, int *nb)
{
	const int64_t *v = t->v;
	int j;

	if (*nb == k && v[i] <= best[k - 1])
		return;
	if (i >= t->size) {
		for (j = *nb < k ? (*nb)++ : k - 1; j > 0 && best[j - 1] < v[i];
		     j--)
			best[j] = best[j - 1];
		best[j] = v[i];
		return;
	}
	/* the larger child first, so the smaller one is pruned more */
	if (v[2 * i] >= v[2 * i + 1]) {
		kth_walk(t, 2 * i, k, best, nb);
		kth_walk(t, 2 * i + 1, k, best, nb);
	} else {
		kth_walk(t, 2 * i + 1, k, best, nb);
		kth_walk(t, 2 * i, k, best, nb);
	}
}

int64_t sim_maxtree_kth(const struct sim_maxtree *t, int k)
{
	int64_t small[16], *best = small, r;
	int nb = 0;

	if (k < 1 || k > t->n)
		return INT64_MIN;
	/* out of memory (k > 16): the largest value, an upper bound */
	if (k > 16 && (best = malloc((size_t)k * sizeof *best)) == NULL)
		return t->v[1];
	kth_walk(t, 1, k, best, &nb);
	r = nb == k ? best[k - 1] : INT64_MIN;
	if (best != small)
		free(best);
	return r;
}
