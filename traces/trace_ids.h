/*
** trace_ids.h: the set of job ids a trace reader has seen, to report a
** duplicate id with the line of its first occurrence (traces/trace.c,
** docs/TRACE_FORMAT.md: ids are unique).
**
** Memory does not grow with the usual trace.  An id of the form PREFIX +
** decimal integer (no leading zero: "j7", "job-12", "0"; "j007" is not of
** this form, since "j007" and "j7" are different ids) goes into an
** interval set per prefix: an interval holds consecutive integers seen on
** lines the same distance apart (id lo + k on line line_lo + k), so
** `colosim gen`'s ids j1..jn, one a line, take one interval, and a trace
** takes one interval per gap.  Every other id, and numeric ids past a cap
** on the intervals (ids in no order), go into an open table of 64-bit
** hashes (12 B a slot, at most 3/4 full): there, two different ids whose
** hashes collide read as a duplicate, a false duplicate with probability
** about n^2 / 2^65 for n such ids (3e-8 at 10^6).  The interval set is
** exact.
*/
#ifndef COLOSIM_TRACES_TRACE_IDS_H
#define COLOSIM_TRACES_TRACE_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/oset.h"

/* Distinct prefixes kept in the interval set; ids of further prefixes go
** to the hash table. */
#define TRACE_IDS_PREFIXES 64
#define TRACE_IDS_PREFIX_MAX 48      /* bytes of a prefix, NUL included */

struct trace_ids {
	/* the interval set: (prefix, lo) -> [lo, hi], line of lo (id) */
	struct sim_oset iv;
	char prefix[TRACE_IDS_PREFIXES][TRACE_IDS_PREFIX_MAX];
	int nprefix;
	uint64_t nnum;                /* ids held by the intervals */
	/* the hash table */
	uint64_t *h;                  /* hashes, 0 = empty */
	uint32_t *line;               /* line of each (saturated at 2^32-1) */
	size_t n, cap;                /* cap a power of 2, at most 3/4 full */
};

/* An empty set (no allocation until the first add). */
void trace_ids_init(struct trace_ids *s);
/* Frees the set's memory; the set is empty (and usable) again. */
void trace_ids_fini(struct trace_ids *s);
/* Adds id, first seen on line (>= 1).  Returns 0 when it is new, the
** line of the earlier equal id (> 0), or SIM_ENOMEM (then the set is
** unchanged). */
long trace_ids_add(struct trace_ids *s, const char *id, long line);
/* Bytes the set holds (its tables), for tests. */
size_t trace_ids_bytes(const struct trace_ids *s);

#endif
