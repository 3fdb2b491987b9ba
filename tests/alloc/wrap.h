/*
** wrap.h: the allocation counter of the allocation-failure walk
** (tests/alloc/wrap.c, linked with -Wl,--wrap=malloc,calloc,realloc,
** strdup; see walk.c).
*/
#ifndef COLOSIM_TESTS_ALLOC_WRAP_H
#define COLOSIM_TESTS_ALLOC_WRAP_H

#include <stddef.h>

/* n > 0: fail the n-th allocation from now (only that one); 0: count
** without failing; -1: stop counting. */
void wrap_arm(long n);

/* Allocations counted since the last wrap_arm, distinct call sites among
** them (up to WRAP_SITES_MAX), and whether the failure was injected. */
long wrap_count(void);
/* The i-th distinct call site of the counting pass (i < wrap_sites()). */
const void *wrap_site(long i);
long wrap_sites(void);
int wrap_injected(void);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

#endif
