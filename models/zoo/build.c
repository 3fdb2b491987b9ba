/*
** build.c: the zoo builder (see build.h for the counting conventions).
*/
#include "models/zoo/build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static struct zoo_group *cur(struct zoo__b *b)
{
	struct zoo__slot *s = b->s;

	if (s->m.ngroups == 0)
		zoo__group(b, "%s", "all");
	return &s->g[s->m.ngroups - 1];
}

static void live(struct zoo__b *b, uint64_t elems)
{
	elems += b->hold_elems;
	if (elems > b->act_live_max)
		b->act_live_max = elems;
}

void zoo__begin(struct zoo__b *b, struct zoo__slot *s, const char *name,
		const char *display, const char *task, int input_len,
		const char *source)
{
	memset(s, 0, sizeof *s);
	memset(b, 0, sizeof *b);
	b->s = s;
	s->m.name = name;
	s->m.display = display;
	s->m.task = task;
	s->m.input_len = input_len;
	s->m.source = source;
	s->m.groups = s->g;
	s->m.default_batch = 32;
	s->m.origin = "";
}

void zoo__end(struct zoo__b *b)
{
	struct zoo_model *m = &b->s->m;
	size_t i;

	m->params = 0;
	m->fwd_flops = 0;
	for (i = 0; i < m->ngroups; i++) {
		m->params += b->s->g[i].params;
		m->fwd_flops += b->s->g[i].fwd_flops;
	}
	m->act_train_bytes = 4 * b->act_train_elems;
	m->act_infer_bytes = 4 * b->act_live_max;
}

void zoo__group(struct zoo__b *b, const char *fmt, ...)
{
	struct zoo__slot *s = b->s;
	va_list ap;
	size_t i;

	if (s->m.ngroups == ZOO__MAX_GROUPS) {
		b->overflow = 1;
		return;     /* later layers count into the last group */
	}
	i = s->m.ngroups++;
	va_start(ap, fmt);
	vsnprintf(s->names[i], ZOO__NAME_MAX, fmt, ap);
	va_end(ap);
	s->g[i].name = s->names[i];
	s->g[i].params = 0;
	s->g[i].fwd_flops = 0;
}

void zoo__conv(struct zoo__b *b, int cin, int cout, int kh, int kw,
	       int hin, int win, int hout, int wout, int groups, int post)
{
	struct zoo_group *g = cur(b);
	uint64_t w = (uint64_t)kh * kw * (uint64_t)(cin / groups) * cout;
	uint64_t out = (uint64_t)cout * hout * wout;

	g->params += w + (post == ZOO__BN ? 2 * (uint64_t)cout :
			  post == ZOO__BIAS ? (uint64_t)cout : 0);
	g->fwd_flops += 2.0 * (double)w * hout * wout;
	b->act_train_elems += (post == ZOO__BN ? 2 : 1) * out;
	live(b, (uint64_t)cin * hin * win + out);
}

void zoo__bn(struct zoo__b *b, int c, int h, int w)
{
	uint64_t n = (uint64_t)c * h * w;

	cur(b)->params += 2 * (uint64_t)c;
	b->act_train_elems += n;
	live(b, 2 * n);
}

void zoo__pool(struct zoo__b *b, int c, int hin, int win, int hout, int wout)
{
	uint64_t out = (uint64_t)c * hout * wout;

	(void)cur(b);
	b->act_train_elems += out;
	live(b, (uint64_t)c * hin * win + out);
}

void zoo__linear(struct zoo__b *b, int in, int out, int tokens, int bias)
{
	struct zoo_group *g = cur(b);
	uint64_t w = (uint64_t)in * out;

	g->params += w + (bias ? (uint64_t)out : 0);
	g->fwd_flops += 2.0 * (double)w * tokens;
	if (!b->manual_act) {
		b->act_train_elems += (uint64_t)out * tokens;
		live(b, ((uint64_t)in + out) * tokens);
	}
}

void zoo__params(struct zoo__b *b, uint64_t n)
{
	cur(b)->params += n;
}

void zoo__flops(struct zoo__b *b, double flops)
{
	cur(b)->fwd_flops += flops;
}

void zoo__act_train(struct zoo__b *b, uint64_t elems)
{
	b->act_train_elems += elems;
}

void zoo__act_live(struct zoo__b *b, uint64_t elems)
{
	live(b, elems);
}

void zoo__hold(struct zoo__b *b, uint64_t elems)
{
	b->hold_elems = elems;
}

void zoo__lstm(struct zoo__b *b, int in, int hidden, int tokens)
{
	struct zoo_group *g = cur(b);
	uint64_t w = 4 * (uint64_t)hidden * ((uint64_t)in + hidden);

	g->params += w + 8 * (uint64_t)hidden;
	g->fwd_flops += 2.0 * (double)w * tokens;
	b->act_train_elems += 6 * (uint64_t)hidden * tokens;
	live(b, ((uint64_t)in + 6 * (uint64_t)hidden) * tokens);
}

void zoo__meta(struct zoo__b *b, int default_batch, const char *origin)
{
	b->s->m.default_batch = default_batch;
	b->s->m.origin = origin;
}

void zoo__convt(struct zoo__b *b, int cin, int cout, int k, int hin,
		int hout, int post)
{
	struct zoo_group *g = cur(b);
	uint64_t w = (uint64_t)k * k * (uint64_t)cin * cout;
	uint64_t out = (uint64_t)cout * hout * hout;

	g->params += w + (post == ZOO__BN ? 2 * (uint64_t)cout :
			  post == ZOO__BIAS ? (uint64_t)cout : 0);
	g->fwd_flops += 2.0 * (double)w * hin * hin;
	b->act_train_elems += (post == ZOO__BN ? 2 : 1) * out;
	live(b, (uint64_t)cin * hin * hin + out);
}
