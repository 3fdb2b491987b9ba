/*
** names.h: a small set of strings in insertion order, each known by its
** index (metric names, swept keys, labels): what the report, the export
** and the warnings intern their strings in.  Lookups are linear: the sets
** hold tens of names, not thousands.
**
** Ownership: the set owns copies of the strings (exp_names_fini frees them
** and the array); a zeroed struct is an empty set.
*/
#ifndef COLOSIM_EXPERIMENTS_NAMES_H
#define COLOSIM_EXPERIMENTS_NAMES_H

#include <stddef.h>

struct exp_names {
	char **v;
	size_t n, cap;
};

/* The index of s, or -1. */
int exp_names_find(const struct exp_names *n, const char *s);

/* The index of s, appending a copy when new; -1 out of memory. */
int exp_names_add(struct exp_names *n, const char *s);

/* Frees the strings and the array; the set is empty again. */
void exp_names_fini(struct exp_names *n);

#endif
