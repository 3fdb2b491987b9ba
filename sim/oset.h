/*
** oset.h: an ordered set of integer items, the index behind every "the
** GPUs in best-fit order" or "the pending jobs in pass order" question
** (sim/world/world_index.c, the policies' pending indexes).
**
** An entry is (k1, k2, id, aux): it is ordered by (k1, k2, id), so keys
** are unique as long as ids are; aux is a value carried along, and every
** subtree knows its least aux, so that "the first entry from key K on
** whose aux is at most B" costs O(log n) (a pending job whose memory fits
** the largest free GPU, say).
**
** A treap with parent links over a pool of nodes: insert, remove, update,
** lower bound and the aux search are O(log n) expected, next and prev O(1)
** amortised.  The treap's priorities come from a counter mixed by
** splitmix64, so the same operations build the same tree: the shape never
** depends on anything but the calls (there is no hidden randomness, and
** the order of the entries never depends on the shape anyway).
**
** Handles are node indices (>= 0), stable from insert to remove; -1 means
** none.  A removed node's handle is reused by a later insert.
*/
#ifndef COLOSIM_SIM_OSET_H
#define COLOSIM_SIM_OSET_H

#include <stdint.h>

struct sim_oset_node {
	int l, r, p;                  /* children and parent, -1 none;
					 l is the free-list link when free */
	uint32_t pri;
	int id;
	int64_t k1, k2;
	int64_t aux, amin;            /* amin: least aux of the subtree */
};

struct sim_oset {
	struct sim_oset_node *n;
	int cap, root, count, free_;
	uint64_t seq;                 /* priority counter */
};

void sim_oset_init(struct sim_oset *s);
void sim_oset_fini(struct sim_oset *s);
/* Removes every entry (keeps the storage). */
void sim_oset_clear(struct sim_oset *s);

/* Inserts (k1, k2, id) with aux; its handle, or SIM_ENOMEM.  The caller
** keeps (k1, k2, id) unique. */
int sim_oset_insert(struct sim_oset *s, int64_t k1, int64_t k2, int id,
		    int64_t aux);
void sim_oset_remove(struct sim_oset *s, int h);
/* Gives entry h a new key and aux; the handle stays. */
void sim_oset_update(struct sim_oset *s, int h, int64_t k1, int64_t k2,
		     int64_t aux);

/* The first / last entry, the one after / before h; -1 none. */
int sim_oset_first(const struct sim_oset *s);
int sim_oset_last(const struct sim_oset *s);
int sim_oset_next(const struct sim_oset *s, int h);
int sim_oset_prev(const struct sim_oset *s, int h);
/* The first entry whose key is >= (k1, k2, id); -1 none. */
int sim_oset_lower_bound(const struct sim_oset *s, int64_t k1, int64_t k2,
			 int id);
/* The first entry whose key is >= (k1, k2, id) and whose aux <= bound;
** -1 none. */
int sim_oset_first_aux_le(const struct sim_oset *s, int64_t k1, int64_t k2,
			  int id, int64_t bound);

static inline int sim_oset_id(const struct sim_oset *s, int h)
{
	return s->n[h].id;
}
static inline int64_t sim_oset_k1(const struct sim_oset *s, int h)
{
	return s->n[h].k1;
}
static inline int64_t sim_oset_k2(const struct sim_oset *s, int h)
{
	return s->n[h].k2;
}
static inline int64_t sim_oset_aux(const struct sim_oset *s, int h)
{
	return s->n[h].aux;
}

/* A double as an int64 of the same order (every finite double and the
** infinities; -0.0 and 0.0 map to 0): for keys that are times. */
int64_t sim_oset_dkey(double x);

#endif
