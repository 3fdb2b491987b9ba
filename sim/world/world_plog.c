/*
** world_plog.c: the placement log of a run: every interval a job's tenant
** spent on a GPU, from its attach to its detach, for the results store's
** placements table and the timeline figures (docs/RESULTS.md).
**
** One hook, world__plog_sync(w, g), runs wherever the world re-arms a GPU
** after its tenants changed (world__gpu_changed): it compares the GPU's
** tenant list with the intervals it holds open on that GPU, closes those
** whose tenant left and opens one per new tenant.  Every attach and detach
** of the world is followed by world__gpu_changed on that GPU before the
** simulated clock moves, so each interval starts and ends at the time of
** its attach and detach.  The common call (same tenants as last time: a
** batch boundary, a speed change) is a walk of the list, O(tenants).
**
** A tenant is known by its address and its job index together: a job's
** tenant array is freed only after its GPUs were re-armed, so an address
** reused by a later placement is always seen detached first.  Pool
** executors (tenant id < 0, world_load.c) are not jobs and are not logged.
*/
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_int.h"

struct plog_entry {
	int job, gpu, slice;
	sim_time t0, t1;              /* t1 < 0: still open */
	uint64_t mem_bytes;
	double sm_cap;
};

struct plog_open {
	const struct gpu_tenant *t;
	int job;
	size_t entry;
};

struct plog_gpu {
	struct plog_open *o;
	int n, cap;
};

struct world_plog {
	struct plog_entry *v;
	size_t n, cap;
	struct plog_gpu *g;           /* ngpus of them */
	int ngpus;
};

static struct world_plog *plog_get(struct world *w)
{
	if (w->plog == NULL) {
		w->plog = calloc(1, sizeof *w->plog);
		if (w->plog == NULL)
			return NULL;
		w->plog->g = calloc((size_t)(w->ngpus > 0 ? w->ngpus : 1),
				    sizeof *w->plog->g);
		if (w->plog->g == NULL) {
			free(w->plog);
			w->plog = NULL;
			return NULL;
		}
		w->plog->ngpus = w->ngpus;
	}
	return w->plog;
}

/* 1 when the open list of pg is the tenant list of g, in order. */
static int unchanged(const struct plog_gpu *pg, const struct gpu *g)
{
	const struct gpu_tenant *t;
	int k = 0;

	for (t = g->tenants; t != NULL; t = t->next_) {
		if (t->id < 0)
			continue;
		if (k >= pg->n || pg->o[k].t != t || pg->o[k].job != t->id)
			return 0;
		k++;
	}
	return k == pg->n;
}

static int open_entry(struct world_plog *pl, const struct gpu_tenant *t,
		      int g, sim_time now, size_t *entry)
{
	struct plog_entry *e;

	if (pl->n == pl->cap) {
		size_t c = pl->cap ? pl->cap * 2 : 64;
		struct plog_entry *p = realloc(pl->v, c * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		pl->v = p;
		pl->cap = c;
	}
	e = &pl->v[pl->n];
	e->job = t->id;
	e->gpu = g;
	e->slice = t->slice;
	e->t0 = now;
	e->t1 = -1;
	e->mem_bytes = t->mem_bytes;
	e->sm_cap = t->sm_cap;
	*entry = pl->n++;
	return 0;
}

int world__plog_sync(struct world *w, int g)
{
	struct world_plog *pl = plog_get(w);
	const struct gpu_tenant *t;
	struct plog_gpu *pg;
	struct plog_open *next;
	int k, nn = 0, cap = 0, rc;

	if (pl == NULL)
		return SIM_ENOMEM;
	pg = &pl->g[g];
	if (unchanged(pg, &w->gpus[g]))
		return 0;
	for (t = w->gpus[g].tenants; t != NULL; t = t->next_)
		cap++;
	next = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *next);
	if (next == NULL)
		return SIM_ENOMEM;
	/* Keep the intervals whose tenant is still there; open the rest. */
	for (t = w->gpus[g].tenants; t != NULL; t = t->next_) {
		if (t->id < 0)
			continue;
		for (k = 0; k < pg->n; k++)
			if (pg->o[k].t == t && pg->o[k].job == t->id)
				break;
		if (k < pg->n) {
			next[nn] = pg->o[k];
			pg->o[k].t = NULL;        /* taken */
		} else {
			next[nn].t = t;
			next[nn].job = t->id;
			if ((rc = open_entry(pl, t, g, w->sim.now,
					     &next[nn].entry)) != 0) {
				free(next);
				return rc;
			}
		}
		nn++;
	}
	/* Close the intervals whose tenant left. */
	for (k = 0; k < pg->n; k++)
		if (pg->o[k].t != NULL)
			pl->v[pg->o[k].entry].t1 = w->sim.now;
	free(pg->o);
	pg->o = next;
	pg->n = nn;
	pg->cap = cap;
	return 0;
}

int world__plog_results(struct world *w, struct run_result *res)
{
	struct world_plog *pl;
	size_t i;
	int g, rc;

	for (g = 0; g < w->ngpus; g++)
		if ((rc = world__plog_sync(w, g)) != 0)
			return rc;
	pl = w->plog;
	if (pl != NULL && (rc = run_result_reserve_place(res, pl->n)) != 0)
		return rc;
	for (i = 0; pl != NULL && i < pl->n; i++) {
		const struct plog_entry *e = &pl->v[i];
		struct res_place p;
		p.job = e->job;
		p.gpu = e->gpu;
		p.slice = e->slice;
		p.start_s = sim_time_to_s(e->t0);
		p.end_s = e->t1 >= 0 ? sim_time_to_s(e->t1) : -1;
		p.mem_bytes = e->mem_bytes;
		p.sm_cap = e->sm_cap;
		if ((rc = run_result_add_place(res, &p)) != 0)
			return rc;
	}
	return 0;
}

void world__plog_fini(struct world *w)
{
	int g;

	if (w->plog == NULL)
		return;
	for (g = 0; g < w->plog->ngpus; g++)
		free(w->plog->g[g].o);
	free(w->plog->g);
	free(w->plog->v);
	free(w->plog);
	w->plog = NULL;
}
