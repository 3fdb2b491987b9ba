/*
** maxtree.h: the largest of n int64 values and "the lowest index from i
** on whose value is at least B", in O(log n), for first-fit questions over
** GPUs ("the lowest idle GPU with 40 GB free"; sim/world/world_index.c).
**
** A segment tree over the next power of two: a leaf per index, each inner
** node the max of its two children.  set is O(log n) (it stops climbing
** as soon as a node does not change), max O(1), first_ge O(log n).
** Indices past n hold INT64_MIN.
*/
#ifndef COLOSIM_SIM_MAXTREE_H
#define COLOSIM_SIM_MAXTREE_H

#include <stdint.h>

struct sim_maxtree {
	int n, size;                  /* values, leaves (a power of two) */
	int64_t *v;                   /* 2 * size: v[1] the root, leaves
					 from v[size] */
};

/* Every value starts at `fill`.  0 or SIM_ENOMEM (n >= 0). */
int sim_maxtree_init(struct sim_maxtree *t, int n, int64_t fill);
void sim_maxtree_fini(struct sim_maxtree *t);

void sim_maxtree_set(struct sim_maxtree *t, int i, int64_t value);
static inline int64_t sim_maxtree_get(const struct sim_maxtree *t, int i)
{
	return t->v[t->size + i];
}
/* The largest value; INT64_MIN when n is 0. */
static inline int64_t sim_maxtree_max(const struct sim_maxtree *t)
{
	return t->v[1];
}
/* The lowest index >= from whose value is >= bound, or -1. */
int sim_maxtree_first_ge(const struct sim_maxtree *t, int from,
			 int64_t bound);

/* The k-th largest value (1 <= k <= n; else INT64_MIN), by a pruned walk
** that visits O(k log n) nodes.  For k > 16 it needs k int64s of scratch;
** when that allocation fails it returns the largest value, an upper
** bound. */
int64_t sim_maxtree_kth(const struct sim_maxtree *t, int k);

#endif
