/*
** trace_ids.c: the trace reader's set of job ids (trace_ids.h): intervals
** of PREFIX + integer ids in an ordered set, every other id in an open
** table of hashes.
**
** Invariants: an interval (k1 prefix index, k2 lo, aux hi, id line of lo)
** holds the integers lo..hi of one prefix, integer lo + k seen on line
** line_lo + k; intervals of a prefix do not overlap.  An id is in exactly
** one of the two structures.
*/
#include "traces/trace_ids.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/err.h"
#include "sim/rng.h"

/* Intervals allowed before new singletons go to the hash table: a few
** per id at most (ids in no order would cost an interval's 56 B each). */
#define IDS_FREE_INTERVALS 1024
#define IDS_PER_INTERVAL 8

void trace_ids_init(struct trace_ids *s)
{
	memset(s, 0, sizeof *s);
	sim_oset_init(&s->iv);
}

void trace_ids_fini(struct trace_ids *s)
{
	sim_oset_fini(&s->iv);
	free(s->h);
	free(s->line);
	trace_ids_init(s);
}

size_t trace_ids_bytes(const struct trace_ids *s)
{
	return (size_t)s->iv.cap * sizeof *s->iv.n +
		s->cap * (sizeof *s->h + sizeof *s->line);
}

/* ---- the hash table ---- */

static int hash_grow(struct trace_ids *s)
{
	size_t cap = s->cap ? 2 * s->cap : 256, i;
	uint64_t *n = calloc(cap, sizeof *n);
	uint32_t *nl = malloc(cap * sizeof *nl);

	if (n == NULL || nl == NULL) {
		free(n);
		free(nl);
		return SIM_ENOMEM;
	}
	for (i = 0; i < s->cap; i++)
		if (s->h[i] != 0) {
			size_t j = sim_mix64(s->h[i]) & (cap - 1);
			while (n[j] != 0)
				j = (j + 1) & (cap - 1);
			n[j] = s->h[i];
			nl[j] = s->line[i];
		}
	free(s->h);
	free(s->line);
	s->h = n;
	s->line = nl;
	s->cap = cap;
	return 0;
}

/* The slot of hash h: where it is, or the empty slot where it goes (the
** table is not full).  cap > 0. */
static size_t hash_slot(const struct trace_ids *s, uint64_t h)
{
	size_t j = sim_mix64(h) & (s->cap - 1);

	while (s->h[j] != 0 && s->h[j] != h)
		j = (j + 1) & (s->cap - 1);
	return j;
}

static uint64_t hash_of(const char *id)
{
	uint64_t h = sim_hash_str(id);

	return h == 0 ? 1 : h;
}

/* The line of id in the table, or 0. */
static long hash_find(const struct trace_ids *s, const char *id)
{
	size_t j;

	if (s->cap == 0)
		return 0;
	j = hash_slot(s, hash_of(id));
	return s->h[j] != 0 ? (long)s->line[j] : 0;
}

static int hash_add(struct trace_ids *s, const char *id, long line)
{
	uint64_t h = hash_of(id);
	size_t j;

	if (4 * (s->n + 1) > 3 * s->cap && hash_grow(s) != 0)
		return SIM_ENOMEM;
	j = hash_slot(s, h);
	s->h[j] = h;
	s->line[j] = line < (long)UINT32_MAX ? (uint32_t)line : UINT32_MAX;
	s->n++;
	return 0;
}

/* ---- the interval set ---- */

/* Splits id into a prefix and a decimal integer without a leading zero
** (at most 18 digits): the prefix's length and *v, or -1 when id is not
** of that form. */
static int split_id(const char *id, int64_t *v)
{
	size_t len = strlen(id), d = len;
	int64_t x = 0;
	size_t k;

	while (d > 0 && id[d - 1] >= '0' && id[d - 1] <= '9')
		d--;
	if (d == len || len - d > 18 || (id[d] == '0' && len - d > 1) ||
	    d >= TRACE_IDS_PREFIX_MAX)
		return -1;
	for (k = d; k < len; k++)
		x = 10 * x + (id[k] - '0');
	*v = x;
	return (int)d;
}

/* The index of the prefix id[0..plen), made when there is room; -1 when
** there is none. */
static int prefix_index(struct trace_ids *s, const char *id, int plen,
			int make)
{
	int i;

	for (i = 0; i < s->nprefix; i++)
		if (strncmp(s->prefix[i], id, (size_t)plen) == 0 &&
		    s->prefix[i][plen] == '\0')
			return i;
	if (!make || s->nprefix == TRACE_IDS_PREFIXES)
		return -1;
	memcpy(s->prefix[s->nprefix], id, (size_t)plen);
	s->prefix[s->nprefix][plen] = '\0';
	return s->nprefix++;
}

/* The interval of prefix p holding v, or the last one that starts below
** v (to extend), or -1. */
static int interval_at(const struct trace_ids *s, int p, int64_t v)
{
	int h = sim_oset_lower_bound(&s->iv, p, v, INT_MIN);

	if (h >= 0 && sim_oset_k1(&s->iv, h) == p &&
	    sim_oset_k2(&s->iv, h) == v)
		return h;
	h = h >= 0 ? sim_oset_prev(&s->iv, h) : sim_oset_last(&s->iv);
	return h >= 0 && sim_oset_k1(&s->iv, h) == p ? h : -1;
}

long trace_ids_add(struct trace_ids *s, const char *id, long line)
{
	int64_t v = 0, lo = 0, hi = 0;
	int plen = split_id(id, &v), p, h;
	long first;

	p = plen >= 0 ? prefix_index(s, id, plen, 1) : -1;
	if (p < 0) {
		first = hash_find(s, id);
		if (first > 0)
			return first;
		return hash_add(s, id, line);
	}
	h = interval_at(s, p, v);
	if (h >= 0) {
		lo = sim_oset_k2(&s->iv, h);
		hi = sim_oset_aux(&s->iv, h);
		if (v <= hi)
			return (long)sim_oset_id(&s->iv, h) + (long)(v - lo);
	}
	/* past the cap, a numeric id may be in the table */
	if ((first = hash_find(s, id)) > 0)
		return first;
	if (h >= 0 && v == hi + 1 &&
	    line == (long)sim_oset_id(&s->iv, h) + (long)(v - lo)) {
		sim_oset_update(&s->iv, h, p, lo, v);
		s->nnum++;
		return 0;
	}
	if (line <= INT_MAX && (s->iv.count < IDS_FREE_INTERVALS ||
				(uint64_t)s->iv.count * IDS_PER_INTERVAL <
				s->nnum)) {
		if (sim_oset_insert(&s->iv, p, v, (int)line, v) < 0)
			return SIM_ENOMEM;
		s->nnum++;
		return 0;
	}
	return hash_add(s, id, line);
}
