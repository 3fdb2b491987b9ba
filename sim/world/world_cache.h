/*
** world_cache.h: a GPU's cache of models (world_cache.c): which models'
** weights an inference executor of the GPU pool (world_pool.c) holds,
** loading or resident, and when each was last used, for LRU eviction.
** The cache counts bytes; the executor's allocation is the pool's.
** Private to sim/world/.
*/
#ifndef COLOSIM_SIM_WORLD_CACHE_H
#define COLOSIM_SIM_WORLD_CACHE_H

#include <stdint.h>

#include "models/zoo.h"
#include "sim/time.h"

/* An entry's state; world_pool_has_model reports it (0: absent). */
enum { MCACHE_LOADING = 1, MCACHE_RESIDENT = 2 };

struct mcache_entry {
	const struct zoo_model *m;
	uint64_t bytes;
	int state;                    /* MCACHE_* */
	sim_time last_use;
};

/* Zeroed: empty.  Entries are unordered (a drop moves the last one). */
struct mcache {
	struct mcache_entry *v;
	int n, cap;
};

/* Model m's entry index, or -1. */
int mcache_find(const struct mcache *c, const struct zoo_model *m);
/* The bytes of every entry, loading or resident. */
uint64_t mcache_bytes(const struct mcache *c);
/* Adds an entry for m; returns its index or SIM_ENOMEM. */
int mcache_add(struct mcache *c, const struct zoo_model *m, uint64_t bytes,
	       int state, sim_time now);
/* Removes entry k (the last entry takes its index). */
void mcache_drop(struct mcache *c, int k);
/* The resident entry other than `keep` used least recently (the first
** on ties), or -1: the next to evict. */
int mcache_lru(const struct mcache *c, const struct zoo_model *keep);
/* Empties the cache, keeping its buffer; mcache_fini frees it. */
void mcache_clear(struct mcache *c);
void mcache_fini(struct mcache *c);

#endif
