/*
** world_cache.c: a GPU's cache of models (see world_cache.h).  Linear
** scans: an executor holds a handful of models.
*/
#include "sim/world/world_cache.h"

#include <stdlib.h>

#include "sim/err.h"

int mcache_find(const struct mcache *c, const struct zoo_model *m)
{
	int k;

	for (k = 0; k < c->n; k++)
		if (c->v[k].m == m)
			return k;
	return -1;
}

uint64_t mcache_bytes(const struct mcache *c)
{
	uint64_t b = 0;
	int k;

	for (k = 0; k < c->n; k++)
		b += c->v[k].bytes;
	return b;
}

int mcache_add(struct mcache *c, const struct zoo_model *m, uint64_t bytes,
	       int state, sim_time now)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		struct mcache_entry *v = realloc(c->v, (size_t)cap * sizeof *v);
		if (v == NULL)
			return SIM_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].m = m;
	c->v[c->n].bytes = bytes;
	c->v[c->n].state = state;
	c->v[c->n].last_use = now;
	return c->n++;
}

void mcache_drop(struct mcache *c, int k)
{
	c->v[k] = c->v[--c->n];
}

int mcache_lru(const struct mcache *c, const struct zoo_model *keep)
{
	int k, lru = -1;

	for (k = 0; k < c->n; k++)
		if (c->v[k].state == MCACHE_RESIDENT && c->v[k].m != keep &&
		    (lru < 0 || c->v[k].last_use < c->v[lru].last_use))
			lru = k;
	return lru;
}

void mcache_clear(struct mcache *c)
{
	c->n = 0;
}

void mcache_fini(struct mcache *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}
