/*
** wrap.c: the allocation counter of the allocation-failure walk (see
** wrap.h and walk.c).  The state is per process and the walk runs each
** failure in its own child, so the globals here are the test harness's,
** not the library's.
*/
#include "tests/alloc/wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define WRAP_STACK() __sanitizer_print_stack_trace()
#endif
#endif
#ifndef WRAP_STACK
#define WRAP_STACK() ((void)0)
#endif

#define WRAP_SITES_MAX 4096

static long armed = -1, count, fail_at;
static int injected;
static void *sites[WRAP_SITES_MAX];
static long nsites;

void wrap_arm(long n)
{
	armed = n;
	fail_at = n;
	count = 0;
	injected = 0;
	nsites = 0;
}

long wrap_count(void)
{
	return count;
}

const void *wrap_site(long i)
{
	return i >= 0 && i < nsites ? sites[i] : NULL;
}

long wrap_sites(void)
{
	return nsites;
}

int wrap_injected(void)
{
	return injected;
}

/* Counts one allocation from site; 1 when it must fail. */
static int hit(void *site)
{
	long i;

	if (armed < 0)
		return 0;
	count++;
	if (fail_at == 0) {
		for (i = 0; i < nsites && sites[i] != site; i++)
			;
		if (i == nsites && nsites < WRAP_SITES_MAX)
			sites[nsites++] = site;
	}
	if (fail_at > 0 && count == fail_at) {
		injected = 1;
		if (getenv("WALK_VERBOSE") != NULL) {
			fprintf(stderr, "  injected failure of allocation "
				"%ld at:\n", count);
			WRAP_STACK();
		}
		return 1;
	}
	return 0;
}

void *__wrap_malloc(size_t n)
{
	return hit(__builtin_return_address(0)) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return hit(__builtin_return_address(0)) ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	return hit(__builtin_return_address(0)) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return hit(__builtin_return_address(0)) ? NULL : __real_strdup(s);
}
