/*
** trace_ids.h: the set of job ids a trace reader has seen, to report a
** duplicate id with the line of its first occurrence (traces/trace.c,
** docs/TRACE_FORMAT.md: ids are unique).
**
** Memory does not grow with the usual trace.  An id of the form PREFIX +
** a string of decimal digits ("j7", "train-0001", "j007") is a number
** written with a digit count: "j007" and "j7" are different ids, (3, 7)
** and (1, 7).  Numbers of a digit count seen on lines the same distance
** apart (number lo + k on line line0 + k) form an interval, whatever
** their prefixes, which the interval keeps a byte each for only when
** they differ: `colosim gen`'s ids, numbered in file order, take one
** interval per digit count (nothing per id for one prefix, a byte per id
** for its mixed train-/infer- ids), and a trace takes one interval per
** gap.  Every other id (no trailing digits, a prefix past the 64th, a
** number an interval holds for another prefix, and numbers past a cap on
** the intervals: ids in no order) goes into an open table of 64-bit
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

/* An interval's record (trace_ids.c). */
struct trace_ids_iv {
	long line0;                   /* the line of its first number */
	int pfx0;                     /* the prefix of its first number */
	unsigned char *pfx;           /* each number's prefix; NULL: pfx0 */
	size_t cap;                   /* bytes in pfx */
};

struct trace_ids {
	/* the interval set: (digits, lo) -> [lo, hi], record (id) */
	struct sim_oset iv;
	struct trace_ids_iv *rec;
	int nrec, caprec;
	size_t pfx_bytes;             /* in the records' pfx arrays */
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
