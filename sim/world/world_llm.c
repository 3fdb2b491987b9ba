/*
** world_llm.c: LLM services in the world, the tenant kind "llm" (see
** world_llm.h; docs/MODEL.md, "LLM replicas in the world").
**
** Events.  A service's requests come one at a time from its arrival
** process (trace_arrivals_next_req; the stream ("requests", j) of
** service.c, so an `infer` and an `llm` row see the same times), each with
** its prompt and output tokens (a request file gives them; otherwise they
** are drawn from the service's length distributions on the stream
** ("llm.lengths", j)).  Before placement requests wait in the service's
** backlog; after it each goes to a replica (the policy's xOnRequest, else
** the setting `route`) and is submitted to that replica's engine.  A
** replica with nothing in flight forms an iteration (llm_engine_form),
** whose solo time is llm_step_ns on its device, and begins it as one work
** unit on each of its tp GPUs (gpu_begin, with the iteration's work
** profile: llm_step_profile).  The core keeps each unit's completion in
** its GPU's one event (xUnitDone); a GPU that finishes first idles until
** the slowest one is done (the iteration's all-reduces synchronise the
** ranks); when the last one is done the engine completes the iteration,
** each produced token is timed (TTFT, inter-token gaps, TPOT, end to end)
** and the next iteration begins at once, or the replica idles.
**
** Memory.  Each GPU of a replica holds base = weights / tp + workspace +
** CUDA context (llm_memory) plus its share of the KV blocks.  The pool is
** bounded by gpu_memory_utilization of the GPU's (or MIG slice's) HBM and,
** at placement, by the memory free there.  kv = reserve allocates the
** whole pool at placement, as vLLM; dynamic allocates the blocks in use,
** resized after every iteration, and caps the pool before each iteration
** at what is free (a co-located tenant that took the memory makes the
** replica preempt); oversub grows past capacity (the GPU model pages every
** tenant of the GPU).  What policies see as the footprint (xJobMem) is the
** least a replica can run with: base + the blocks of one request of the
** context window's length.
**
** On unshared GPUs (exclusive, or alone) every unit runs at speed 1, so a
** service replays exactly as experiments/llm_serve.c's dedicated replicas
** (tests/test_world_llm.c checks the same counts, means and quantiles of
** every latency sample).
**
** State (world_llm_int.h): struct llm_world (the registration's: settings,
** run metrics, the request slabs) and one struct llm_svc per LLM service,
** indexed by job.  Files: this one (the kind, requests, iterations,
** arrival, teardown), world_llm_set.c (settings), world_llm_place.c
** (placement, KV pools), world_llm_res.c (window, results).
*/
#include "sim/world/world_llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_llm_int.h"

static const struct world_kind llm_kind;

static struct llm_world *lw_of(const struct world *w)
{
	return world__kind_own(w, &llm_kind);
}

struct llm_svc *llm__svc(const struct world *w, int j)
{
	const struct llm_world *lw = lw_of(w);

	return j >= 0 && j < lw->capsvc ? lw->svc[j] : NULL;
}

static struct lreq *lreq_new(struct llm_world *lw)
{
	struct lreq *q = lw->free;

	if (q == NULL) {
		struct lslab *s = malloc(sizeof *s);
		int k;
		if (s == NULL)
			return NULL;
		s->next = lw->slabs;
		lw->slabs = s;
		for (k = LREQ_SLAB - 1; k >= 0; k--) {
			s->req[k].next = lw->free;
			lw->free = &s->req[k];
		}
		q = lw->free;
	}
	lw->free = q->next;
	memset(q, 0, sizeof *q);
	lw->held++;
	return q;
}

static void lreq_free(struct llm_world *lw, struct lreq *q)
{
	q->next = lw->free;
	lw->free = q;
	lw->held--;
}

/* The replica's model on device d (made on first use), or NULL when
** more than LLM_DEVS device kinds were asked (the run fails) or the model
** cannot run there at all (*fits 0, with the reason in e). */
struct llm_model *llm__model_on(struct llm_svc *sv, const struct world_job *job,
				  const struct dev_profile *d, int *k_out,
				  struct sim_err *e)
{
	const struct llm_arch *a = llm_arch_find(job->tj.model);
	int k;

	for (k = 0; k < sv->nmodels; k++)
		if (sv->mdev[k] == d) {
			*k_out = k;
			return &sv->model[k];
		}
	if (k == LLM_DEVS || a == NULL) {
		sim_err_set(e, SIM_ENOSPC, "more than %d device kinds", LLM_DEVS);
		return NULL;
	}
	sv->mdev[k] = d;
	sv->mok[k] = 0;
	sim_err_clear(e);
	if (llm_model_init(&sv->model[k], a, d, (enum llm_prec)sv->set.prec,
			   sv->set.tp, NULL, e) == 0 &&
	    llm_memory(&sv->model[k], sv->set.util, sv->set.block,
		       sv->sched.max_num_batched_tokens,
		       sv->sched.max_num_seqs, &sv->mem[k], e) == 0)
		sv->mok[k] = 1;
	sv->nmodels++;
	*k_out = k;
	return &sv->model[k];
}

/* xJobMem: the least a replica's GPU must hold: weights, workspace,
** context and the blocks of one request of the context window's length
** (at most the whole pool); twice the device's HBM where it cannot run. */
static uint64_t llm_job_mem(const struct world *w, void *state,
			    const struct world_job *job,
			    const struct dev_profile *d)
{
	struct llm_svc *sv = job->idx < ((struct llm_world *)state)->capsvc ?
		((struct llm_world *)state)->svc[job->idx] : NULL;
	struct sim_err e;
	struct llm_mem *m;
	int64_t blocks;
	int k;

	(void)w;
	if (sv == NULL || llm__model_on(sv, job, d, &k, &e) == NULL || !sv->mok[k])
		return 2 * d->hbm_bytes;
	m = &sv->mem[k];
	blocks = (sv->sched.max_model_len + sv->set.block - 1) / sv->set.block;
	if (blocks > m->blocks)
		blocks = m->blocks;
	return m->total_bytes - m->kv_bytes + (uint64_t)blocks * m->block_bytes;
}

/* ---- requests in ----------------------------------------------------------- */

static int on_request(struct sim *s, void *ctx, uint64_t arg);
int llm__check_later(struct world *w, int j);

/* Reads the service's next request into sv->next and schedules it, or
** marks its arrivals over.  Sizes come from the file or are drawn; one
** over the context window is an error, skipped or truncated (setting
** long; drawn ones are always truncated). */
static int read_next(struct world *w, struct llm_svc *sv)
{
	struct world_job *job = world__job(w, sv->j);
	struct trace_req *q = &sv->next;
	struct sim_err e = { 0, "" };
	int rc, maxlen = sv->sched.max_model_len;

	for (;;) {
		int drawn;
		if ((rc = trace_arrivals_next_req(sv->arr, q, &e)) < 0)
			return sim_fail(&w->sim, rc, "%s", e.msg);
		if (rc == 0 || q->t_ns > sv->end_ns) {
			if (sv->req_ev != 0)
				sim_cancel(&w->sim, sv->req_ev);
			sv->req_ev = 0;
			sv->arrivals_done = 1;
			world__job_open(w, job, 0);
			return llm__check_later(w, sv->j);
		}
		drawn = q->prompt_tokens == 0;
		if (drawn) {
			q->prompt_tokens = trace_len_draw(&sv->dprompt,
							  &sv->lrng);
			q->output_tokens = trace_len_draw(&sv->doutput,
							  &sv->lrng);
		}
		if ((int64_t)q->prompt_tokens + q->output_tokens <= maxlen)
			break;
		if (!drawn && sv->set.lmode == LONG_ERROR)
			return sim_fail(&w->sim, SIM_EINVAL, "%s:%ld:%d: "
					"prompt_tokens: %d prompt + %d output "
					"tokens exceed the %d-token context "
					"window of %s (LLM setting long = skip "
					"or truncate to replay it)",
					trace_arrivals_path(sv->arr), q->line,
					q->col_prompt, q->prompt_tokens,
					q->output_tokens, maxlen,
					job->tj.model);
		if (!drawn && sv->set.lmode == LONG_SKIP) {
			sv->lw->skipped++;
			continue;
		}
		/* keep the output, cut the prompt's head (at least 1) */
		sv->lw->truncated++;
		if (q->output_tokens >= maxlen)
			q->output_tokens = maxlen - 1;
		q->prompt_tokens = maxlen - q->output_tokens;
		break;
	}
	if (q->t_ns < w->sim.now)
		q->t_ns = w->sim.now;
	return sim_schedule_at(&w->sim, q->t_ns, SIM_PRIO_ARRIVAL, on_request,
			       w, (uint64_t)sv->j, &sv->req_ev);
}

static int start(struct world *w, struct llm_svc *sv, int r);

/* The replica of the default route. */
static int pick(struct llm_svc *sv)
{
	int r, best = 0, bestn = -1;

	if (sv->set.route == ROUTE_RR) {
		r = sv->rr;
		sv->rr = (sv->rr + 1) % sv->nrep;
		return r;
	}
	for (r = 0; r < sv->nrep; r++) {
		int n = llm_engine_queued(&sv->rep[r].e) +
			llm_engine_running(&sv->rep[r].e);
		if (bestn < 0 || n < bestn) {
			best = r;
			bestn = n;
		}
	}
	return best;
}

/* Submits q to a replica (policy route or default) and starts it if idle;
** a request its engine refuses (more blocks than the pool) is counted. */
int llm__route(struct world *w, struct llm_svc *sv, struct lreq *q)
{
	struct llm_world *lw = sv->lw;
	struct llm_rep *rp;
	struct sim_err e;
	int r, rc;

	if (sv->nrep == 0) {
		q->next = NULL;
		if (sv->bl_tail != NULL)
			sv->bl_tail->next = q;
		else
			sv->bl_head = q;
		sv->bl_tail = q;
		sv->nbacklog++;
		return 0;
	}
	if ((rc = world__ask_route(w, sv->j, &r)) < 0)
		return rc;
	if (r >= sv->nrep)
		return sim_fail(&w->sim, SIM_EINVAL, "policy %s routed a "
				"request of job %d to replica %d of %d",
				w->pol->zName, sv->j, r, sv->nrep);
	if (r < 0)
		r = pick(sv);
	rp = &sv->rep[r];
	if (sv->set.kv == KV_DYNAMIC)      /* admission against the bound */
		(void)kv_pool_set_blocks(&rp->e.kv, rp->max_blocks);
	sim_err_clear(&e);
	if (llm_engine_submit(&rp->e, &q->r, &e) != 0) {
		lw->rejected++;
		lreq_free(lw, q);
		return llm__check_later(w, sv->j);
	}
	sv->inflight++;
	return rp->busy ? 0 : start(w, sv, r);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	struct llm_svc *sv = llm__svc(w, (int)arg);
	struct llm_world *lw = sv->lw;
	struct lreq *q;
	int rc;

	(void)s;
	sv->req_ev = 0;
	if (lw->held >= lw->max_held) {  /* the world's bound: refused */
		lw->total++;
		sv->n_req++;
		sv->win.arrivals++;
		lw->rejected++;
		return read_next(w, sv);
	}
	if ((q = lreq_new(lw)) == NULL)
		return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
	q->r.id = lw->total;
	q->r.owner = sv;
	q->r.prompt_tokens = sv->next.prompt_tokens;
	q->r.output_tokens = sv->next.output_tokens;
	q->arrival = w->sim.now;
	lw->total++;
	sv->n_req++;
	sv->win.arrivals++;
	if (!lw->have_first) {
		lw->t_first = w->sim.now;
		lw->have_first = 1;
	}
	if ((rc = llm__route(w, sv, q)) != 0)
		return rc;
	return read_next(w, sv);
}

/* ---- iterations ------------------------------------------------------------ */

struct tok_ctx {
	struct world *w;
	struct llm_svc *sv;
};

/* Each token of a completed iteration (llm_token_fn): its times. */
static void on_token(void *ctx, struct llm_req *r, int first, int done)
{
	struct tok_ctx *c = ctx;
	struct llm_svc *sv = c->sv;
	struct llm_world *lw = sv->lw;
	struct lreq *q = (struct lreq *)r;
	sim_time now = c->w->sim.now;
	double ms;

	if (first) {
		q->first = now;
		ms = sim_time_to_ms(now - q->arrival);
		(void)sim_sample_add(&lw->ttft, ms);
		(void)sim_sample_add(&sv->win.ttft, ms);
	} else {
		ms = sim_time_to_ms(now - q->last);
		(void)sim_sample_add(&lw->itl, ms);
		(void)sim_sample_add(&sv->win.itl, ms);
	}
	q->last = now;
	q->ntok++;
	lw->tokens++;
	sv->win.tokens++;
	lw->t_last = now;
	if (!done)
		return;
	{
		int ok_ttft = sim_time_to_ms(q->first - q->arrival) <=
			      sv->slo_ttft_ms, ok_tpot = 1;
		if (q->ntok >= 2) {
			double tpot = sim_time_to_ms(now - q->first) /
				      (q->ntok - 1);
			(void)sim_sample_add(&lw->tpot, tpot);
			(void)sim_sample_add(&sv->win.tpot, tpot);
			ok_tpot = tpot <= sv->slo_tpot_ms;
		}
		lw->ok_ttft += ok_ttft;
		lw->ok_tpot += ok_tpot;
		lw->ok_both += ok_ttft && ok_tpot;
		sv->n_ok += ok_ttft && ok_tpot;
		sv->win.ttft_miss += !ok_ttft;
		sv->win.tpot_miss += !ok_tpot;
	}
	(void)sim_sample_add(&lw->e2e, sim_time_to_ms(now - q->arrival));
	(void)sim_sample_add(&sv->e2e, sim_time_to_ms(now - q->arrival));
	sv->n_done++;
	lw->completed++;
	sv->win.completed++;
	sv->inflight--;
	lreq_free(lw, q);
}

/* The KV-cache series: the mean use over placed replicas. */
static void series_note(struct llm_world *lw, sim_time now)
{
	int k;

	if (lw->nlive == 0 || now < lw->s_next)
		return;
	if (lw->s_n == SERIES_CAP) {
		for (k = 0; k < SERIES_CAP / 2; k++) {
			lw->s_t[k] = lw->s_t[2 * k];
			lw->s_v[k] = lw->s_v[2 * k];
		}
		lw->s_n = SERIES_CAP / 2;
		lw->s_dt *= 2;
	}
	lw->s_t[lw->s_n] = sim_time_to_s(now);
	lw->s_v[lw->s_n++] = lw->util_sum / lw->nlive;
	lw->s_next = sim_time_add_sat(now, lw->s_dt);
}

static void set_util(struct world *w, struct llm_svc *sv, struct llm_rep *rp)
{
	struct llm_world *lw = sv->lw;
	double u = rp->max_blocks > 0 ?
		(double)kv_pool_used(&rp->e.kv) / (double)rp->max_blocks : 0;

	sim_twacc_set(&rp->kv, w->sim.now, u);
	lw->util_sum += u - rp->util;
	rp->util = u;
	if (rp->max_blocks > 0) {
		double pk = (double)rp->e.kv.peak_used / (double)rp->max_blocks;
		if (pk > lw->kv_peak)
			lw->kv_peak = pk;
	}
	series_note(lw, w->sim.now);
}

/* The domain of tenant t on GPU g: its MIG slice, or the whole GPU. */
void llm__domain(const struct gpu *g, const struct gpu_tenant *t,
		   uint64_t *cap, uint64_t *free_b)
{
	*cap = t->slice >= 0 ? g->slices[t->slice].hbm_bytes :
		g->dev->hbm_bytes;
	*free_b = gpu_mem_free(g, t->slice);
}

/* kv = dynamic: the pool before an iteration is what the tenants hold
** plus what every GPU of the replica has free, within the bound. */
static void cap_pool(struct world *w, struct world_job *job,
		     struct llm_svc *sv, struct llm_rep *rp)
{
	int64_t cap = rp->max_blocks, used = kv_pool_used(&rp->e.kv);
	int k;

	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k];
		uint64_t c, f;
		int64_t b;
		llm__domain(&w->gpus[job->gpu_ids[i]], &job->tenants[i], &c, &f);
		b = rp->held + (int64_t)(f / rp->block_bytes);
		if (b < cap)
			cap = b;
	}
	if (cap < used)
		cap = used;
	(void)kv_pool_set_blocks(&rp->e.kv, cap);
}

/* kv = dynamic / oversub: the tenants hold the blocks in use. */
static int hold_used(struct world *w, struct world_job *job,
		     struct llm_svc *sv, struct llm_rep *rp)
{
	int64_t used = kv_pool_used(&rp->e.kv);
	struct sim_err e;
	int k, rc;

	if (used == rp->held)
		return 0;
	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k];
		sim_err_clear(&e);
		rc = gpu_resize(&w->gpus[job->gpu_ids[i]], &job->tenants[i],
				rp->base_bytes + (uint64_t)used *
				rp->block_bytes, w->sim.now,
				sv->set.kv == KV_OVERSUB, &e);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "llm service %s: %s",
					job->tj.id, e.msg);
	}
	rp->held = used;
	return 0;
}

/* Forms and begins replica r's next iteration now, or lets it idle. */
static int start(struct world *w, struct llm_svc *sv, int r)
{
	struct world_job *job = world__job(w, sv->j);
	struct llm_rep *rp = &sv->rep[r];
	struct llm_world *lw = sv->lw;
	struct gpu_work_profile prof;
	struct llm_step_prof sp;
	struct llm_iter it;
	double work;
	int k, n, rc;

	if (sv->set.kv == KV_DYNAMIC)
		cap_pool(w, job, sv, rp);
	n = llm_engine_form(&rp->e, &it);
	if (n < 0)
		return sim_fail(&w->sim, n, "llm service %s: %s", job->tj.id,
				sim_strerror(n));
	if ((sv->set.kv == KV_DYNAMIC || sv->set.kv == KV_OVERSUB) &&
	    (rc = hold_used(w, job, sv, rp)) != 0)
		return rc;
	set_util(w, sv, rp);
	if (n == 0) {
		rp->busy = 0;
		for (k = 0; k < sv->set.tp; k++) {
			int i = rp->tix[k], g = job->gpu_ids[i];
			if (job->tenants[i].busy)
				gpu_finish(&w->gpus[g], &job->tenants[i],
					   w->sim.now);
			if ((rc = world__gpu_changed(w, g)) != 0)
				return rc;
		}
		return 0;
	}
	work = (double)llm_step_ns(rp->m, &it);
	llm_step_profile(rp->m, &it, &sp);
	/* The GPU-idle part of an iteration (t_iter0, t_seq, KV swaps) is
	** not expressible in this GPU model's profile: the bandwidth demand
	** is spread over the whole iteration (docs/MODEL.md, "LLM replicas
	** in the world"). */
	memset(&prof, 0, sizeof prof);  /* fields this file does not set: 0 */
	prof.alpha = sp.alpha;
	prof.sat = sp.sat;
	prof.bw_frac = sp.bw_busy * sp.duty;
	rp->busy = 1;
	rp->pending = sv->set.tp;
	rp->t_iter = w->sim.now;
	lw->swapped_bytes += (double)(it.swap_out_blocks + it.swap_in_blocks) *
			     (double)rp->block_bytes * sv->set.tp;
	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k], g = job->gpu_ids[i];
		gpu_begin(&w->gpus[g], &job->tenants[i], work, &prof,
			  w->sim.now);
		if ((rc = world__gpu_changed(w, g)) != 0)
			return rc;
	}
	return 0;
}

/* 1 when the service has nothing left to do. */
static int drained(const struct llm_svc *sv)
{
	int r;

	if (!sv->arrivals_done || sv->nbacklog > 0 || sv->inflight > 0)
		return 0;
	for (r = 0; r < sv->nrep; r++)
		if (sv->rep[r].busy)
			return 0;
	return 1;
}

static int on_check(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	struct llm_svc *sv = llm__svc(w, (int)arg);

	(void)s;
	if (world__job(w, (int)arg)->state == JOB_RUNNING && drained(sv))
		return world__job_done(w, (int)arg);
	return 0;
}

/* Ends the service at this instant if it has nothing left to do; through
** an event, so that no hook runs inside another. */
int llm__check_later(struct world *w, int j)
{
	const struct llm_svc *sv = llm__svc(w, j);

	if (sv->nrep == 0 || !drained(sv))
		return 0;
	return sim_schedule_at(&w->sim, w->sim.now, SIM_PRIO_COMPLETE,
			       on_check, w, (uint64_t)j, NULL);
}

/* xUnitDone: one GPU of a replica finished the iteration's unit.  The
** others' units may still run: it idles until the last one is done. */
static int llm_unit_done(struct world *w, void *state, struct gpu_tenant *t)
{
	struct world_job *job = world__job(w, t->id);
	struct llm_svc *sv = llm__svc(w, t->id);
	int i = (int)(t - job->tenants), r = sv->rep_ix[i], rc;
	struct llm_rep *rp = &sv->rep[r];
	struct tok_ctx c;

	(void)state;
	if (--rp->pending > 0) {
		gpu_finish(&w->gpus[job->gpu_ids[i]], t, w->sim.now);
		return world__gpu_changed(w, job->gpu_ids[i]);
	}
	c.w = w;
	c.sv = sv;
	rp->busy_ns += (double)(w->sim.now - rp->t_iter);
	sv->win.iterations++;
	{
		uint64_t p0 = rp->e.preemptions;
		if ((rc = llm_engine_complete(&rp->e, on_token, &c)) != 0)
			return sim_fail(&w->sim, rc, "llm service %s: %s",
					job->tj.id, sim_strerror(rc));
		sv->win.preemptions += rp->e.preemptions - p0;
	}
	if ((rc = start(w, sv, r)) != 0)
		return rc;
	return drained(sv) ? world__job_done(w, sv->j) : 0;
}

/* ---- arrival, failure, close ----------------------------------------------- */

/* Checks that the service can run on some node of the cluster: a node of
** tp GPUs whose device holds the model with its KV cache. */
static int check_fits(struct world *w, struct llm_svc *sv,
		      const struct world_job *job)
{
	const struct cluster_spec *cl = w->cl;
	char why[SIM_ERR_MSG_MAX] = "";
	int gi, maxg = 0, k;

	for (gi = 0; gi < cl->ngroups; gi++) {
		const struct cluster_group *cg = &cl->groups[gi];
		struct sim_err e;
		if (cg->gpus_per_node > maxg)
			maxg = cg->gpus_per_node;
		if (cg->gpus_per_node < sv->set.tp)
			continue;
		if (llm__model_on(sv, job, cg->dev, &k, &e) == NULL)
			continue;
		if (sv->mok[k])
			return 0;
		if (why[0] == '\0')
			snprintf(why, sizeof why, "%s", e.msg);
	}
	if (maxg < sv->set.tp)
		return sim_fail(&w->sim, SIM_EINVAL, "%s:%ld: gpus: llm service "
				"%s: tensor parallelism %d (LLM setting tp) "
				"needs %d GPUs in one node; the cluster's "
				"largest node has %d", w->trace_path,
				job->tj.line, job->tj.id, sv->set.tp,
				sv->set.tp, maxg);
	return sim_fail(&w->sim, SIM_EINVAL, "%s:%ld: model: llm service %s: "
			"%s", w->trace_path, job->tj.line, job->tj.id,
			why[0] ? why : "no device of the cluster holds it");
}

/* xArrive: settings, checks, the request stream. */
static int llm_arrive(struct world *w, void *state, struct world_job *job)
{
	struct llm_world *lw = state;
	struct llm_svc *sv;
	struct sim_err e = { 0, "" };
	const struct llm_arch *a = llm_arch_find(job->tj.model);
	int rc, j = job->idx;
	int64_t gpus;

	if (j >= lw->capsvc) {
		int cap = lw->capsvc ? 2 * lw->capsvc : 64;
		struct llm_svc **p;
		while (cap <= j)
			cap *= 2;
		if ((p = realloc(lw->svc, (size_t)cap * sizeof *p)) == NULL)
			return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
		memset(p + lw->capsvc, 0, (size_t)(cap - lw->capsvc) *
		       sizeof *p);
		lw->svc = p;
		lw->capsvc = cap;
	}
	if (a == NULL)
		return sim_fail(&w->sim, SIM_EINVAL, "%s:%ld: model: '%s' is "
				"not an LLM architecture", w->trace_path,
				job->tj.line, job->tj.model);
	if ((sv = calloc(1, sizeof *sv)) == NULL)
		return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
	lw->svc[j] = sv;
	sv->j = j;
	sv->lw = lw;
	sim_sample_init(&sv->win.ttft, 0);
	sim_sample_init(&sv->win.tpot, 0);
	sim_sample_init(&sv->win.itl, 0);
	sim_sample_init(&sv->e2e, SVC_E2E_EXACT);
	sv->win.t0 = w->sim.now;
	if ((rc = llm__settings(w, sv, job)) != 0)
		return rc;
	llm_sched_cfg_default(&sv->sched, (enum llm_sched_kind)sv->set.sched,
			      a->max_ctx);
	sv->sched.max_num_seqs = job->tj.batch;
	sv->sched.preempt = (enum llm_preempt)sv->set.preempt;
	if (sv->set.mbt > 0)
		sv->sched.max_num_batched_tokens = sv->set.mbt;
	sv->slo_ttft_ms = sv->set.slo_ttft_ms > 0 ? sv->set.slo_ttft_ms :
		sim_time_to_ms(job->tj.slo_ns);
	sv->slo_tpot_ms = sv->set.slo_tpot_ms;
	if ((rc = check_fits(w, sv, job)) != 0)
		return rc;
	/* the policies see every GPU of the service */
	gpus = (int64_t)job->tj.gpus * sv->set.tp;
	if (gpus > w->ngpus)
		return sim_fail(&w->sim, SIM_EINVAL, "%s:%ld: gpus: llm service "
				"%s: %d replicas of tensor parallelism %d need "
				"%lld GPUs; the cluster has %d", w->trace_path,
				job->tj.line, job->tj.id, job->tj.gpus,
				sv->set.tp, (long long)gpus, w->ngpus);
	job->tj.gpus = (int)gpus;
	if ((rc = sim_rng_init(&sv->rng, w->seed, "requests", (uint64_t)j,
			       &e)) != 0 ||
	    (rc = sim_rng_init(&sv->lrng, w->seed, "llm.lengths", (uint64_t)j,
			       &e)) != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	if ((rc = trace_arrivals_open_in(&sv->arr, &job->tj, trace_dir(w->tr),
					 trace_arrivals_dir(w->tr), &sv->rng,
					 &e)) != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	sv->end_ns = job->tj.duration_ns > 0 ?
		sim_time_add_sat(job->submit_ns, job->tj.duration_ns) :
		SIM_TIME_MAX;
	world__job_open(w, job, trace_arrivals_open_ended(&job->tj));
	return read_next(w, sv);
}

/* Drops the requests a failed or unplaced service still holds. */
static void arrivals_end(struct world *w, struct world_job *job)
{
	struct llm_svc *sv = llm__svc(w, job->idx);

	if (sv == NULL || sv->arrivals_done)
		return;
	if (sv->req_ev != 0) {
		sim_cancel(&w->sim, sv->req_ev);
		sv->req_ev = 0;
	}
	sv->arrivals_done = 1;
	world__job_open(w, job, 0);
}

static int llm_fail(struct world *w, void *state, struct world_job *job)
{
	(void)state;
	arrivals_end(w, job);
	return 0;
}

static int llm_close(struct world *w, void *state, struct world_job *job)
{
	(void)state;
	arrivals_end(w, job);
	if (job->state == JOB_RUNNING)
		return llm__check_later(w, job->idx);
	return 0;
}

/* ---- teardown, the kind ------------------------------------------------------ */

static void svc_free(struct llm_svc *sv)
{
	int r;

	if (sv == NULL)
		return;
	if (sv->arr != NULL)
		trace_arrivals_close(sv->arr);
	sim_rng_fini(&sv->rng);
	sim_rng_fini(&sv->lrng);
	sim_sample_fini(&sv->win.ttft);
	sim_sample_fini(&sv->win.tpot);
	sim_sample_fini(&sv->win.itl);
	sim_sample_fini(&sv->e2e);
	for (r = 0; r < sv->nrep; r++)
		if (sv->rep[r].inited)
			llm_engine_fini(&sv->rep[r].e);
	free(sv->tix);
	free(sv->rep_ix);
	free(sv->rep);
	free(sv);
}

static void llm_fini(struct world *w, void *state)
{
	struct llm_world *lw = state;
	size_t i;
	int j;

	(void)w;
	for (j = 0; j < lw->capsvc; j++)
		svc_free(lw->svc[j]);
	free(lw->svc);
	while (lw->slabs != NULL) {
		struct lslab *s = lw->slabs;
		lw->slabs = s->next;
		free(s);
	}
	sim_sample_fini(&lw->ttft);
	sim_sample_fini(&lw->tpot);
	sim_sample_fini(&lw->itl);
	sim_sample_fini(&lw->e2e);
	for (i = 0; i < lw->npv; i++) {
		free(lw->pv[i].key);
		free(lw->pv[i].value);
		free(lw->pv[i].origin);
	}
	free(lw->pv);
	free(lw);
}

static const struct world_kind llm_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "llm",
	.eJob = TRACE_LLM,
	.xFini = llm_fini,
	.xResults = llm__results,
	.xUnitDone = llm_unit_done,
	.xArrive = llm_arrive,
	.xPlaced = llm__placed,
	.xFail = llm_fail,
	.xClose = llm_close,
	.xPlace = llm__place,
	.xJobResult = llm__job_result,
	.xJobMem = llm_job_mem,
};

static char *dup_or_null(const char *s)
{
	size_t n = strlen(s != NULL ? s : "") + 1;
	char *p = malloc(n);

	if (p != NULL)
		memcpy(p, s != NULL ? s : "", n);
	return p;
}

int world_llm_init(struct world *w, const struct world_config *cfg,
		   struct sim_err *err)
{
	struct llm_world *lw;
	const struct pol_params *p = cfg->llm;
	size_t i;
	int rc;

	if ((rc = world_llm_check(p, err)) != 0)
		return rc;
	if ((lw = calloc(1, sizeof *lw)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	sim_sample_init(&lw->ttft, 0);
	sim_sample_init(&lw->tpot, 0);
	sim_sample_init(&lw->itl, 0);
	sim_sample_init(&lw->e2e, 0);
	lw->s_dt = SIM_NS_PER_S;
	lw->max_held = cfg->max_queued_requests > 0 ?
		cfg->max_queued_requests : WORLD_MAX_QUEUED_DEFAULT;
	if (p != NULL && p->n > 0) {
		lw->pv = calloc(p->n, sizeof *lw->pv);
		rc = lw->pv == NULL;
		for (i = 0; rc == 0 && i < p->n; i++) {
			lw->npv++;
			lw->pv[i].key = dup_or_null(p->v[i].key);
			lw->pv[i].value = dup_or_null(p->v[i].value);
			lw->pv[i].origin = dup_or_null(p->v[i].origin ?
						       p->v[i].origin :
						       "--llm");
			rc = lw->pv[i].key == NULL || lw->pv[i].value == NULL ||
			     lw->pv[i].origin == NULL;
		}
		if (rc != 0) {
			llm_fini(w, lw);
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		}
	}
	if ((rc = world__kind_add(w, &llm_kind, lw, err)) != 0)
		llm_fini(w, lw);
	return rc;
}

