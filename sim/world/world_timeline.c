/*
** world_timeline.c: the timeline of one run, for `colosim replay
** --timeline` (experiments/timeline.c writes it as a Chrome trace): spans
** of what each GPU did (a tenant's work unit, a job's swap out or in, a
** model load of the GPU pool) and counters of its HBM and SM use.
**
** Off unless world_config.timeline is set.  One hook, world__tl_sync(w,
** g), runs where the placement log's does (world__gpu_changed: after every
** change of GPU g, before the clock moves): it compares each tenant with
** what it held open for it.  A unit span opens when a tenant is busy with
** a unit it had not seen (gpu_tenant.units counts gpu_begin calls) and
** closes when the tenant idles, begins another unit or leaves; a swap span
** is added by the swap kind when a copy ends (world__tl_add, from the
** copy's start: a copy still in flight at the end is not shown); a
** counter sample is kept when the GPU's allocated fraction or busy SM
** fraction changed.  Model loads come from the pool itself
** (world__tl_load, at the load's start and end).  Spans of zero length are
** dropped.  At most WORLD_TL_MAX spans and as many samples are kept; past
** that the timeline is marked truncated and records nothing more.
*/
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_int.h"

#define WORLD_TL_MAX 2000000

struct tl_open {
	const struct gpu_tenant *t;
	int job;
	int seen;                     /* met by this sync's walk */
	int kind;                     /* the open span's kind, -1: none */
	uint64_t units;               /* the unit it covers */
	sim_time t0;
};

struct tl_gpu {
	struct tl_open *o;
	int n, cap;
	double hbm, sm;               /* the last sample's values */
	int sampled;
	int load_job;                 /* the open model load, if any */
	const char *load_model;
	sim_time load_t0;
};

struct world_tl {
	struct world_tl_span *s;
	size_t ns, caps;
	struct world_tl_counter *c;
	size_t nc, capc;
	struct tl_gpu *g;
	int ngpus;
	int truncated;
};

int world__tl_init(struct world *w)
{
	int g;

	w->tl = calloc(1, sizeof *w->tl);
	if (w->tl == NULL)
		return SIM_ENOMEM;
	w->tl->g = calloc((size_t)(w->ngpus > 0 ? w->ngpus : 1),
			  sizeof *w->tl->g);
	if (w->tl->g == NULL) {
		free(w->tl);
		w->tl = NULL;
		return SIM_ENOMEM;
	}
	w->tl->ngpus = w->ngpus;
	for (g = 0; g < w->ngpus; g++)
		w->tl->g[g].load_job = -2;
	return 0;
}

void world__tl_fini(struct world *w)
{
	int g;

	if (w->tl == NULL)
		return;
	for (g = 0; g < w->tl->ngpus; g++)
		free(w->tl->g[g].o);
	free(w->tl->g);
	free(w->tl->s);
	free(w->tl->c);
	free(w->tl);
	w->tl = NULL;
}

static int add_span(struct world_tl *tl, int gpu, int job, int kind,
		    const char *what, sim_time t0, sim_time t1)
{
	struct world_tl_span *s;

	if (t1 <= t0 || tl->truncated)
		return 0;
	if (tl->ns == tl->caps) {
		size_t c = tl->caps ? tl->caps * 2 : 256;
		if (tl->ns >= WORLD_TL_MAX) {
			tl->truncated = 1;
			return 0;
		}
		s = realloc(tl->s, c * sizeof *s);
		if (s == NULL)
			return SIM_ENOMEM;
		tl->s = s;
		tl->caps = c;
	}
	s = &tl->s[tl->ns++];
	s->gpu = gpu;
	s->job = job;
	s->kind = kind;
	s->zWhat = what;
	s->t0_ns = t0;
	s->t1_ns = t1;
	return 0;
}

static int sample(struct world *w, int g)
{
	struct world_tl *tl = w->tl;
	struct tl_gpu *tg = &tl->g[g];
	const struct gpu *gp = &w->gpus[g];
	double hbm = gp->dev->hbm_bytes > 0 ? (double)gp->mem_used /
		(double)gp->dev->hbm_bytes : 0;
	double sm = gp->sm.value;
	struct world_tl_counter *c;

	if (hbm > 1)
		hbm = 1;
	if (tg->sampled && hbm == tg->hbm && sm == tg->sm)
		return 0;
	if (tl->truncated)
		return 0;
	if (tl->nc == tl->capc) {
		size_t n = tl->capc ? tl->capc * 2 : 256;
		if (tl->nc >= WORLD_TL_MAX) {
			tl->truncated = 1;
			return 0;
		}
		c = realloc(tl->c, n * sizeof *c);
		if (c == NULL)
			return SIM_ENOMEM;
		tl->c = c;
		tl->capc = n;
	}
	c = &tl->c[tl->nc++];
	c->gpu = g;
	c->t_ns = w->sim.now;
	c->hbm_frac = hbm;
	c->sm_frac = sm;
	tg->hbm = hbm;
	tg->sm = sm;
	tg->sampled = 1;
	return 0;
}

/* The span kind tenant t should have open now, or -1. */
static int want(struct world *w, const struct gpu_tenant *t)
{
	(void)w;
	return t->busy ? WORLD_TL_UNIT : -1;
}

int world__tl_add(struct world *w, int g, int job, int kind, sim_time t0)
{
	if (w->tl == NULL || g < 0 || g >= w->tl->ngpus)
		return 0;
	return add_span(w->tl, g, job, kind, NULL, t0, w->sim.now);
}

int world__tl_sync(struct world *w, int g)
{
	struct world_tl *tl = w->tl;
	struct tl_gpu *tg = &tl->g[g];
	const struct gpu_tenant *t;
	sim_time now = w->sim.now;
	int k, keep, rc;

	for (k = 0; k < tg->n; k++)
		tg->o[k].seen = 0;
	for (t = w->gpus[g].tenants; t != NULL; t = t->next_) {
		struct tl_open *o = NULL;
		int kind = want(w, t);
		for (k = 0; k < tg->n && o == NULL; k++)
			if (tg->o[k].t == t && tg->o[k].job == t->id &&
			    !tg->o[k].seen)
				o = &tg->o[k];
		if (o == NULL) {
			if (tg->n == tg->cap) {
				int c = tg->cap ? tg->cap * 2 : 4;
				struct tl_open *p = realloc(tg->o, (size_t)c *
							    sizeof *p);
				if (p == NULL)
					return SIM_ENOMEM;
				tg->o = p;
				tg->cap = c;
			}
			o = &tg->o[tg->n++];
			o->t = t;
			o->job = t->id;
			o->kind = -1;
			o->units = 0;
			o->t0 = now;
		}
		o->seen = 1;
		if (kind == o->kind &&
		    (kind != WORLD_TL_UNIT || o->units == t->units))
			continue;
		if (o->kind >= 0 &&
		    (rc = add_span(tl, g, o->job, o->kind, NULL, o->t0,
				   now)) != 0)
			return rc;
		o->kind = kind;
		o->units = t->units;
		o->t0 = now;
	}
	/* entries not seen: their tenant left (its address may come back
	** with a later placement, which is then a new entry) */
	for (k = keep = 0; k < tg->n; k++) {
		struct tl_open *o = &tg->o[k];
		if (!o->seen) {
			if (o->kind >= 0 &&
			    (rc = add_span(tl, g, o->job, o->kind, NULL, o->t0,
					   now)) != 0)
				return rc;
			continue;
		}
		tg->o[keep++] = *o;
	}
	tg->n = keep;
	return sample(w, g);
}

int world__tl_load(struct world *w, int g, int job, const char *model,
		   int begin)
{
	struct tl_gpu *tg;
	int rc = 0;

	if (w->tl == NULL || g < 0 || g >= w->tl->ngpus)
		return 0;
	tg = &w->tl->g[g];
	if (tg->load_job != -2 && (rc = add_span(w->tl, g, tg->load_job,
						 WORLD_TL_LOAD, tg->load_model,
						 tg->load_t0,
						 w->sim.now)) != 0)
		return rc;
	tg->load_job = begin ? job : -2;
	tg->load_model = model;
	tg->load_t0 = w->sim.now;
	return 0;
}

/* Closes every open span at the current time (the run's end). */
static int close_all(struct world *w)
{
	struct world_tl *tl = w->tl;
	int g, k, rc;

	for (g = 0; g < tl->ngpus; g++) {
		struct tl_gpu *tg = &tl->g[g];
		for (k = 0; k < tg->n; k++)
			if (tg->o[k].kind >= 0) {
				if ((rc = add_span(tl, g, tg->o[k].job,
						   tg->o[k].kind, NULL,
						   tg->o[k].t0,
						   w->sim.now)) != 0)
					return rc;
				tg->o[k].kind = -1;
			}
		if ((rc = world__tl_load(w, g, -1, NULL, 0)) != 0)
			return rc;
	}
	return 0;
}

int world_timeline(struct world *w, struct world_timeline *out,
		   struct sim_err *err)
{
	int rc;

	memset(out, 0, sizeof *out);
	if (w->tl == NULL)
		return sim_err_set(err, SIM_ESTATE, "no timeline: the world "
				   "was created without world_config.timeline");
	if ((rc = close_all(w)) != 0)
		return sim_err_set(err, rc, "timeline: out of memory");
	out->spans = w->tl->s;
	out->nspans = w->tl->ns;
	out->counters = w->tl->c;
	out->ncounters = w->tl->nc;
	out->truncated = w->tl->truncated;
	return 0;
}
