/*
** trace_ids.c: the trace reader's set of job ids (trace_ids.h): intervals
** of PREFIX + integer ids in an ordered set, every other id in an open
** table of hashes.
**
** Invariants: an interval (k1 digit count, k2 lo, aux hi, id its record)
** holds the numbers lo..hi written with that many digits, number lo + k
** seen on line line0 + k with prefix pfx[k] (pfx0 for all while pfx is
** NULL); intervals of a digit count do not overlap.  An id is in exactly
** one of the two structures: the intervals, or the table (among them the
** ids whose number an interval holds for another prefix).
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
	int k;

	for (k = 0; k < s->nrec; k++)
		free(s->rec[k].pfx);
	free(s->rec);
	sim_oset_fini(&s->iv);
	free(s->h);
	free(s->line);
	trace_ids_init(s);
}

size_t trace_ids_bytes(const struct trace_ids *s)
{
	return (size_t)s->iv.cap * sizeof *s->iv.n +
		(size_t)s->caprec * sizeof *s->rec + s->pfx_bytes +
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

/* Splits id into a prefix and a string of at most 18 decimal digits: the
** prefix's length, the digits' count in *len and their value in *v, or -1
** when id does not end in digits (or its prefix is too long). */
static int split_id(const char *id, int *len, int64_t *v)
{
	size_t n = strlen(id), d = n;
	int64_t x = 0;
	size_t k;

	while (d > 0 && id[d - 1] >= '0' && id[d - 1] <= '9')
		d--;
	if (d == n || n - d > 18 || d >= TRACE_IDS_PREFIX_MAX)
		return -1;
	for (k = d; k < n; k++)
		x = 10 * x + (id[k] - '0');
	*v = x;
	*len = (int)(n - d);
	return (int)d;
}

/* The index of the prefix id[0..plen), made when there is room; -1 when
** there is none. */
static int prefix_index(struct trace_ids *s, const char *id, int plen)
{
	int i;

	for (i = 0; i < s->nprefix; i++)
		if (strncmp(s->prefix[i], id, (size_t)plen) == 0 &&
		    s->prefix[i][plen] == '\0')
			return i;
	if (s->nprefix == TRACE_IDS_PREFIXES)
		return -1;
	memcpy(s->prefix[s->nprefix], id, (size_t)plen);
	s->prefix[s->nprefix][plen] = '\0';
	return s->nprefix++;
}

/* The interval of digit count len holding v, or the last one that starts
** below v (to extend), or -1. */
static int interval_at(const struct trace_ids *s, int len, int64_t v)
{
	int h = sim_oset_lower_bound(&s->iv, len, v, INT_MIN);

	if (h >= 0 && sim_oset_k1(&s->iv, h) == len &&
	    sim_oset_k2(&s->iv, h) == v)
		return h;
	h = h >= 0 ? sim_oset_prev(&s->iv, h) : sim_oset_last(&s->iv);
	return h >= 0 && sim_oset_k1(&s->iv, h) == len ? h : -1;
}

/* The prefix of member lo + k of interval r. */
static int member_prefix(const struct trace_ids_iv *r, int64_t k)
{
	return r->pfx != NULL ? r->pfx[k] : r->pfx0;
}

/* Interval r (lo..hi) takes hi + 1 with prefix p: 0 or SIM_ENOMEM. */
static int interval_push(struct trace_ids *s, struct trace_ids_iv *r,
			 int64_t lo, int64_t hi, int p)
{
	size_t n = (size_t)(hi - lo + 1), k;

	if (r->pfx == NULL && p == r->pfx0)
		return 0;
	if (n + 1 > r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		unsigned char *q;
		while (cap < n + 1)
			cap *= 2;
		if ((q = realloc(r->pfx, cap)) == NULL)
			return SIM_ENOMEM;
		if (r->pfx == NULL)
			for (k = 0; k < n; k++)
				q[k] = (unsigned char)r->pfx0;
		s->pfx_bytes += cap - r->cap;
		r->pfx = q;
		r->cap = cap;
	}
	r->pfx[n] = (unsigned char)p;
	return 0;
}

/* A new interval v..v of digit count len, prefix p, on line: its
** handle, or SIM_ENOMEM. */
static int interval_new(struct trace_ids *s, int len, int64_t v, int p,
			long line)
{
	int h;

	if (s->nrec == s->caprec) {
		int cap = s->caprec ? 2 * s->caprec : 64;
		struct trace_ids_iv *q = realloc(s->rec, (size_t)cap *
						 sizeof *q);
		if (q == NULL)
			return SIM_ENOMEM;
		s->rec = q;
		s->caprec = cap;
	}
	h = sim_oset_insert(&s->iv, len, v, s->nrec, v);
	if (h < 0)
		return SIM_ENOMEM;
	s->rec[s->nrec].line0 = line;
	s->rec[s->nrec].pfx0 = p;
	s->rec[s->nrec].pfx = NULL;
	s->rec[s->nrec].cap = 0;
	s->nrec++;
	return h;
}

long trace_ids_add(struct trace_ids *s, const char *id, long line)
{
	int64_t v = 0, lo = 0, hi = 0;
	int len = 0, plen = split_id(id, &len, &v), p, h = -1, rc;
	struct trace_ids_iv *r = NULL;
	long first;

	p = plen >= 0 ? prefix_index(s, id, plen) : -1;
	if (p >= 0 && (h = interval_at(s, len, v)) >= 0) {
		r = &s->rec[sim_oset_id(&s->iv, h)];
		lo = sim_oset_k2(&s->iv, h);
		hi = sim_oset_aux(&s->iv, h);
		if (v <= hi && member_prefix(r, v - lo) == p)
			return r->line0 + (long)(v - lo);
		if (v <= hi)
			p = -1;          /* the number is another prefix's */
	}
	/* every id the intervals do not hold is in the table */
	if ((first = hash_find(s, id)) > 0)
		return first;
	if (p < 0)
		return hash_add(s, id, line);
	if (r != NULL && v == hi + 1 && line == r->line0 + (long)(v - lo)) {
		if ((rc = interval_push(s, r, lo, hi, p)) != 0)
			return rc;
		sim_oset_update(&s->iv, h, len, lo, v);
		s->nnum++;
		return 0;
	}
	if (line <= LONG_MAX / 2 && (s->iv.count < IDS_FREE_INTERVALS ||
				     (uint64_t)s->iv.count * IDS_PER_INTERVAL <
				     s->nnum)) {
		if ((rc = interval_new(s, len, v, p, line)) < 0)
			return rc;
		s->nnum++;
		return 0;
	}
	return hash_add(s, id, line);
}
