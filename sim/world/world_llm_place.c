/*
** world_llm_place.c: where an LLM service's replicas run and how much
** memory they hold (docs/MODEL.md, "LLM replicas in the world"): the
** tensor-parallel groups of a placement (xPlace refuses GPUs that do not
** group into tp GPUs of one node), and at placement each replica's KV
** pool, bounded by gpu_memory_utilization of its GPUs' (or MIG slices')
** HBM and, unless kv = oversub, by the memory free there.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_llm_int.h"

/* Groups a placement's n GPUs into replicas of tp GPUs of one node, in
** the order of their first GPU: tix[r * tp + k] is the k-th GPU index (in
** gpus) of replica r.  0, or SIM_ENOSPC naming what did not group. */
static int group(const struct world *w, const int *gpus, int n, int tp,
		 int *tix, const char *id, struct sim_err *err)
{
	unsigned char *used = calloc((size_t)n, 1);
	int i, k, m = 0, cnt;

	if (used == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		used[i] = 1;
		tix[m++] = i;
		for (cnt = 1, k = i + 1; k < n && cnt < tp; k++)
			if (!used[k] && w->gpus[gpus[k]].node ==
			    w->gpus[gpus[i]].node) {
				used[k] = 1;
				tix[m++] = k;
				cnt++;
			}
		if (cnt < tp) {
			free(used);
			return sim_err_set(err, SIM_ENOSPC, "place: llm service "
					   "%s needs its GPUs in groups of %d "
					   "on one node (tensor parallelism); "
					   "GPU %d's node %d has only %d of "
					   "them", id, tp, gpus[i],
					   w->gpus[gpus[i]].node, cnt);
		}
	}
	free(used);
	return 0;
}

/* xPlace: an LLM service's GPUs must form tensor-parallel groups. */
int llm__place(struct world *w, void *state, struct world_job *job,
		     const int *gpus, int n, const struct world_place_opts *o,
		     struct sim_err *err)
{
	struct llm_svc *sv;
	int *tix, rc, g;

	(void)state;
	(void)o;
	if (job->tj.kind != TRACE_LLM || n != job->tj.gpus || n < 1)
		return WORLD_PASS;
	sv = llm__svc(w, job->idx);
	for (g = 0; g < n; g++)
		if (gpus[g] < 0 || gpus[g] >= w->ngpus)
			return WORLD_PASS;    /* the core names it */
	if (sv == NULL || sv->set.tp == 1)
		return WORLD_PASS;
	if ((tix = malloc((size_t)n * sizeof *tix)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	rc = group(w, gpus, n, sv->set.tp, tix, job->tj.id, err);
	free(tix);
	return rc != 0 ? rc : WORLD_PASS;
}

/* Sizes replica rp's pool on its GPUs and sets its tenants' memory. */
/* The pool bound of replica rp: vLLM's (llm_memory: `whole` blocks) on
** whole GPUs with util x HBM free; less on a MIG slice or where
** co-tenants hold the memory; never less than the attach holds. */
static int64_t pool_blocks(const struct world *w,
			   const struct world_job *job,
			   const struct llm_svc *sv, const struct llm_rep *rp,
			   int64_t whole)
{
	int64_t blocks = whole;
	int k;

	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k];
		const struct gpu *g = &w->gpus[job->gpu_ids[i]];
		const struct gpu_tenant *t = &job->tenants[i];
		uint64_t cap, f;
		double full, lim, b;
		int64_t had;
		llm__domain(g, t, &cap, &f);
		full = lim = sv->set.util * (double)cap;
		if (sv->set.kv != KV_OVERSUB && (double)(f + t->mem_bytes) < lim)
			lim = (double)(f + t->mem_bytes);
		if (t->slice >= 0 || lim < full) {
			b = floor((lim - (double)rp->base_bytes) /
				  (double)rp->block_bytes);
			if (b < (double)blocks)
				blocks = b < 0 ? 0 : (int64_t)b;
		}
		had = t->mem_bytes > rp->base_bytes ?
			(int64_t)((t->mem_bytes - rp->base_bytes) /
				  rp->block_bytes) : 0;
		if (blocks < had)
			blocks = had;
	}
	return blocks;
}

static int size_replica(struct world *w, struct world_job *job,
			struct llm_svc *sv, struct llm_rep *rp)
{
	const struct dev_profile *d = w->gpus[job->gpu_ids[rp->tix[0]]].dev;
	struct llm_model *m;
	struct llm_mem *mem;
	struct sim_err e;
	int64_t blocks, host;
	int k, dk, rc;

	m = llm__model_on(sv, job, d, &dk, &e);
	if (m == NULL || !sv->mok[dk])
		return sim_fail(&w->sim, SIM_ENOSPC, "%s:%ld: model: llm service "
				"%s placed on %s: %s", w->trace_path,
				job->tj.line, job->tj.id, d->name, e.msg);
	mem = &sv->mem[dk];
	rp->m = m;
	rp->base_bytes = mem->total_bytes - mem->kv_bytes;
	rp->block_bytes = mem->block_bytes;
	blocks = pool_blocks(w, job, sv, rp, mem->blocks);
	if (blocks < 1)
		return sim_fail(&w->sim, SIM_ENOSPC, "%s:%ld: model: llm service "
				"%s: no KV block fits on GPU %d", w->trace_path,
				job->tj.line, job->tj.id,
				job->gpu_ids[rp->tix[0]]);
	if (sv->set.kv == KV_UNBOUNDED)  /* llm serve --no-paging */
		blocks = INT64_C(1) << 40;
	rp->max_blocks = blocks;
	host = sv->set.preempt == LLM_PREEMPT_SWAP &&
	       sv->set.kv != KV_UNBOUNDED ?
		(int64_t)floor(sv->set.swap_gib * 1073741824.0 /
			       (double)mem->block_bytes) : 0;
	sim_err_clear(&e);
	if ((rc = llm_engine_init(&rp->e, &sv->sched, blocks, sv->set.block,
				  host, &e)) != 0)
		return sim_fail(&w->sim, rc, "llm service %s: %s", job->tj.id,
				e.msg);
	rp->inited = 1;
	rp->held = sv->set.kv == KV_RESERVE ? blocks : 0;
	if (sv->set.kv == KV_UNBOUNDED)
		rp->held = 0;
	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k];
		sim_err_clear(&e);
		rc = gpu_resize(&w->gpus[job->gpu_ids[i]], &job->tenants[i],
				rp->base_bytes + (uint64_t)rp->held *
				rp->block_bytes, w->sim.now,
				sv->set.kv == KV_OVERSUB, &e);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "llm service %s: %s",
					job->tj.id, e.msg);
	}
	sim_twacc_init(&rp->kv, w->sim.now, 0);
	sv->lw->nlive++;
	return 0;
}

/* xPlaced: the replicas, their pools, the backlog routed. */
int llm__placed(struct world *w, void *state, struct world_job *job)
{
	struct llm_svc *sv = llm__svc(w, job->idx);
	int *tix, r, rc, tp = sv->set.tp, n = job->nplaced;
	struct sim_err e;

	(void)state;
	sv->rep = calloc((size_t)(n / tp), sizeof *sv->rep);
	sv->tix = tix = malloc((size_t)n * sizeof *tix);
	sv->rep_ix = malloc((size_t)n * sizeof *sv->rep_ix);
	if (sv->rep == NULL || tix == NULL || sv->rep_ix == NULL)
		return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
	sim_err_clear(&e);
	if ((rc = group(w, job->gpu_ids, n, tp, tix, job->tj.id, &e)) != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	sv->nrep = n / tp;
	for (r = 0; r < n; r++)
		sv->rep_ix[tix[r]] = r / tp;
	for (r = 0; r < sv->nrep; r++) {
		sv->rep[r].tix = &tix[r * tp];
		if ((rc = size_replica(w, job, sv, &sv->rep[r])) != 0)
			return rc;
	}
	while (sv->bl_head != NULL) {
		struct lreq *q = sv->bl_head;
		sv->bl_head = q->next;
		if (sv->bl_head == NULL)
			sv->bl_tail = NULL;
		sv->nbacklog--;
		if ((rc = llm__route(w, sv, q)) != 0)
			return rc;
	}
	return llm__check_later(w, job->idx);
}

