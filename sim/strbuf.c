/*
** strbuf.c: growable strings (see strbuf.h).
*/
#include "sim/strbuf.h"

#include <stdlib.h>
#include <string.h>

void sim_strbuf_add(struct sim_strbuf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->oom)
		return;
	if (b->n + l + 1 > b->cap) {
		size_t c = (b->n + l + 1) * 2 + 64;
		char *p = realloc(b->s, c);
		if (p == NULL) {
			b->oom = 1;
			return;
		}
		b->s = p;
		b->cap = c;
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}
