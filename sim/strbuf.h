/*
** strbuf.h: a growable NUL-terminated string for building labels, SQL-free
** key lists and gnuplot variable assignments.  Allocation failure is
** sticky: after it every append is a no-op and `oom` stays set, so callers
** check once at the end.  The caller owns `s` (free it; NULL when empty).
*/
#ifndef COLOSIM_SIM_STRBUF_H
#define COLOSIM_SIM_STRBUF_H

#include <stddef.h>

struct sim_strbuf {
	char *s;
	size_t n, cap;
	int oom;
};

/* Appends s (NUL-terminated). */
void sim_strbuf_add(struct sim_strbuf *b, const char *s);

#endif
