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
** (tests/test_world_llm.c checks it request by request).
**
** State: struct llm_world (the registration's: settings, run metrics, the
** request slabs) and one struct llm_svc per LLM service, indexed by job.
*/
#include "sim/world/world_llm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/llm.h"
#include "models/llm_sched.h"
#include "sim/world/world_int.h"
#include "traces/lengths.h"

/* ---- settings ------------------------------------------------------------ */

enum { KV_RESERVE = 0, KV_DYNAMIC, KV_OVERSUB, KV_UNBOUNDED };
enum { LONG_ERROR = 0, LONG_SKIP, LONG_TRUNCATE };
enum { ROUTE_LEAST = 0, ROUTE_RR };

struct llm_set {
	int sched, tp, prec, block, kv, preempt, lmode, route, mbt;
	double util, swap_gib, slo_ttft_ms, slo_tpot_ms;
	const char *prompt, *output;  /* valid during the fill only */
};

static const char *const sched_names[] = { "vllm", "sarathi", "orca", NULL };
static const char *const prec_names[] = { "fp16", "bf16", "fp8", NULL };
static const char *const kv_names[] = { "reserve", "dynamic", "oversub",
					 "unbounded", NULL };
static const char *const preempt_names[] = { "recompute", "swap", NULL };
static const char *const long_names[] = { "error", "skip", "truncate",
					   NULL };
static const char *const route_names[] = { "least", "rr", NULL };

/* The defaults: vLLM's (16-token blocks, 0.9 of HBM, 4 GiB of swap,
** recomputation); the TPOT target and the request lengths are
** assumptions (docs/RESULTS.md, "[llm]"): lognormal fits (MLE of the log)
** of the Azure LLM 2023 conversation trace, 19,366 requests. */
const struct pol_param_def world_llm_keys[] = {
	POL_PARAM_CHOICE("sched", struct llm_set, sched, sched_names, "vllm",
			 "replica scheduler: vLLM, Sarathi-Serve's chunked "
			 "prefill, Orca"),
	POL_PARAM_INT("tp", struct llm_set, tp, 1, 64, "1",
		      "tensor-parallel degree: GPUs of one node per replica"),
	POL_PARAM_CHOICE("prec", struct llm_set, prec, prec_names, "fp16",
			 "weights and KV-cache precision"),
	POL_PARAM_INT("block", struct llm_set, block, 1, 1024, "16",
		      "tokens per KV block"),
	POL_PARAM_DOUBLE("gpu_memory_utilization", struct llm_set, util,
			 0.01, 1, "0.9", "fraction of each GPU's (or MIG "
			 "slice's) HBM a replica may hold"),
	POL_PARAM_CHOICE("kv", struct llm_set, kv, kv_names, "reserve",
			 "reserve: the whole KV pool from placement on; "
			 "dynamic: the blocks in use, in free memory only; "
			 "oversub: the blocks in use, past capacity (paged); "
			 "unbounded: no KV limit, no KV memory (no paging)"),
	POL_PARAM_CHOICE("preempt", struct llm_set, preempt, preempt_names,
			 "recompute", "when blocks run out: recompute or "
			 "swap blocks to host memory"),
	POL_PARAM_DOUBLE("swap_gib", struct llm_set, swap_gib, 0, 1e6, "4",
			 "host swap space per replica, GiB"),
	POL_PARAM_INT("max_num_batched_tokens", struct llm_set, mbt, 0,
		      1 << 24, "0", "token budget of an iteration; 0: the "
		      "scheduler's default"),
	POL_PARAM_DOUBLE("slo_ttft_ms", struct llm_set, slo_ttft_ms, 0, 1e9,
			 "0", "time-to-first-token target, ms; 0: the "
			 "trace's slo_ms"),
	POL_PARAM_DOUBLE("slo_tpot_ms", struct llm_set, slo_tpot_ms, 0.001,
			 1e9, "100", "time-per-output-token target, ms"),
	POL_PARAM_CHOICE("long", struct llm_set, lmode, long_names, "error",
			 "a request over the context window: an error, "
			 "skipped, or its prompt truncated"),
	POL_PARAM_STRING("prompt_tokens", struct llm_set, prompt,
			 "lognormal:761:0.985", "prompt lengths when the "
			 "arrivals carry none (traces/lengths.h)"),
	POL_PARAM_STRING("output_tokens", struct llm_set, output,
			 "lognormal:151:0.859", "output lengths when the "
			 "arrivals carry none"),
	POL_PARAM_CHOICE("route", struct llm_set, route, route_names, "least",
			 "routing without a policy on_request: fewest "
			 "requests queued and running, or round robin"),
	POL_PARAM_END
};

static const struct pol_ops set_ops = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "llm",
	.aParam = world_llm_keys,
};

static int known_key(const char *k)
{
	const struct pol_param_def *d;

	for (d = world_llm_keys; d->zKey != NULL; d++)
		if (strcmp(d->zKey, k) == 0)
			return 1;
	return 0;
}

/* The setting name of key "KEY" or "ID.KEY" (after the last dot). */
static const char *key_of(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot != NULL ? dot + 1 : key;
}

int world_llm_check(const struct pol_params *p, struct sim_err *err)
{
	size_t i;

	for (i = 0; p != NULL && i < p->n; i++) {
		const struct pol_param *q = &p->v[i];
		const char *k = key_of(q->key);
		struct pol_param one = { k, q->value, q->origin };
		struct pol_params pp = { 1, &one };
		struct llm_set s;
		struct trace_len_dist d;
		struct sim_err e;
		int rc;

		if (!known_key(k)) {
			char list[512] = "";
			const struct pol_param_def *x;
			size_t len = 0;
			for (x = world_llm_keys; x->zKey != NULL; x++)
				len += (size_t)snprintf(list + len, len <
					sizeof list ? sizeof list - len : 0,
					"%s%s", len ? ", " : "", x->zKey);
			return sim_err_set(err, SIM_EINVAL, "%s: unknown LLM "
					   "setting '%s' (known: %s)",
					   q->origin ? q->origin : "--llm",
					   q->key, list);
		}
		if (k == q->key + 1 || (k != q->key && k[0] == '\0'))
			return sim_err_set(err, SIM_EINVAL, "%s: LLM setting "
					   "'%s': expected KEY or ID.KEY",
					   q->origin ? q->origin : "--llm",
					   q->key);
		if ((rc = pol_params_fill(&set_ops, &pp, &s, err)) != 0)
			return rc;
		sim_err_clear(&e);
		if ((strcmp(k, "prompt_tokens") == 0 ||
		     strcmp(k, "output_tokens") == 0) &&
		    trace_len_parse(q->value, &d, &e) != 0)
			return sim_err_set(err, SIM_EINVAL, "%s: LLM setting %s: "
					   "%s", q->origin ? q->origin : "--llm",
					   q->key, e.msg);
	}
	return 0;
}

/* ---- state ----------------------------------------------------------------- */

/* One request, from its arrival until its last token (or refusal). */
struct lreq {
	struct llm_req r;             /* r.owner: its service */
	sim_time arrival, first, last;
	int ntok;
	struct lreq *next;            /* backlog, free list */
};

#define LREQ_SLAB 1024

struct lslab {
	struct lslab *next;
	struct lreq req[LREQ_SLAB];
};

struct llm_rep {
	struct llm_engine e;
	int inited;
	int *tix;                     /* its tenants' indices in job->tenants */
	const struct llm_model *m;
	uint64_t base_bytes, block_bytes;   /* per GPU */
	int64_t max_blocks;           /* the pool's bound */
	int64_t held;                 /* blocks the tenants hold now */
	int busy, pending;            /* an iteration in flight; its units
					 not yet done */
	sim_time t_iter;              /* when it began */
	double util;                  /* KV blocks in use / max_blocks */
	struct sim_twacc kv;
	double busy_ns;               /* in iterations, this window */
};

/* The measurement window a policy reads (pol_llm_window). */
struct llm_win {
	sim_time t0;
	uint64_t arrivals, completed, tokens, ttft_miss, tpot_miss,
		 iterations, preemptions;
	struct sim_sample ttft, tpot, itl;
};

#define LLM_DEVS 4
/* Exact end-to-end latencies kept per service for its result row before
** the histogram takes over (as service.c's SVC_LAT_EXACT). */
#define SVC_E2E_EXACT 1024

struct llm_svc {
	int j;
	struct llm_world *lw;
	struct llm_set set;
	struct trace_len_dist dprompt, doutput;
	struct llm_sched_cfg sched;
	double slo_ttft_ms, slo_tpot_ms;
	struct trace_arrivals *arr;
	struct sim_rng rng, lrng;
	struct trace_req next;        /* the request read ahead */
	uint64_t req_ev;
	int arrivals_done;
	sim_time end_ns;
	/* per device of the cluster: the replica's model */
	const struct dev_profile *mdev[LLM_DEVS];
	struct llm_model model[LLM_DEVS];
	int mok[LLM_DEVS];            /* 1 fits with its KV cache, 0 not */
	struct llm_mem mem[LLM_DEVS];
	int nmodels;
	struct lreq *bl_head, *bl_tail;
	long nbacklog;
	struct llm_rep *rep;
	int *tix;                     /* the replicas' tenant indices */
	int *rep_ix;                  /* per tenant index: its replica */
	int nrep, rr;
	long inflight;                /* submitted, not done */
	struct llm_win win;
	/* the whole run, for the service's result row (llm_job_result) */
	uint64_t n_req, n_done, n_ok;
	struct sim_sample e2e;
};

/* A downsampled series of the KV-cache use over time (mean over placed
** replicas): at most SERIES_CAP points, every other dropped and the step
** doubled when full, as the world's utilisation series. */
#define SERIES_CAP 512

struct llm_kv {
	char *key, *value, *origin;
};

struct llm_world {
	struct llm_kv *pv;            /* the settings, copied */
	size_t npv;
	struct llm_svc **svc;         /* by job index; NULL: not an LLM job */
	int capsvc;
	struct lslab *slabs;
	struct lreq *free;
	/* run metrics */
	struct sim_sample ttft, tpot, itl, e2e;
	uint64_t total, completed, rejected, skipped, truncated, tokens;
	uint64_t ok_ttft, ok_tpot, ok_both;
	double swapped_bytes;
	sim_time t_first, t_last;
	int have_first;
	double kv_mean_sum;           /* per-replica time-weighted means */
	int kv_nrep;
	double kv_peak;
	double util_sum;              /* current, over placed replicas */
	int nlive;
	sim_time s_dt, s_next;
	int s_n;
	double s_t[SERIES_CAP], s_v[SERIES_CAP];
};

static const struct world_kind llm_kind;

static struct llm_world *lw_of(const struct world *w)
{
	return world__kind_own(w, &llm_kind);
}

static struct llm_svc *svc_of(const struct world *w, int j)
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
	return q;
}

static void lreq_free(struct llm_world *lw, struct lreq *q)
{
	q->next = lw->free;
	lw->free = q;
}

/* The service's settings: every KEY, then its own ID.KEY (the last
** given wins), into sv->set; the length distributions parsed.  0, or the
** run fails naming the setting's origin. */
static int svc_settings(struct world *w, struct llm_svc *sv,
			const struct world_job *job)
{
	struct llm_world *lw = sv->lw;
	struct pol_param *pv = NULL;
	struct pol_params pp = { 0, NULL };
	struct sim_err e;
	size_t i, n = 0, idlen = strlen(job->tj.id);
	int rc;

	if (lw->npv > 0 && (pv = calloc(lw->npv, sizeof *pv)) == NULL)
		return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
	for (i = 0; i < lw->npv; i++)
		if (strchr(lw->pv[i].key, '.') == NULL) {
			pv[n].key = lw->pv[i].key;
			pv[n].value = lw->pv[i].value;
			pv[n++].origin = lw->pv[i].origin;
		}
	for (i = 0; i < lw->npv; i++) {
		const char *k = lw->pv[i].key, *dot = strrchr(k, '.');
		if (dot != NULL && (size_t)(dot - k) == idlen &&
		    strncmp(k, job->tj.id, idlen) == 0) {
			pv[n].key = dot + 1;
			pv[n].value = lw->pv[i].value;
			pv[n++].origin = lw->pv[i].origin;
		}
	}
	pp.n = n;
	pp.v = pv;
	sim_err_clear(&e);
	rc = pol_params_fill(&set_ops, &pp, &sv->set, &e);
	if (rc == 0 && (rc = trace_len_parse(sv->set.prompt, &sv->dprompt,
					     &e)) != 0)
		sim_err_set(&e, rc, "%s: LLM setting prompt_tokens: %.200s",
			    pol_param_origin(&pp, "prompt_tokens") ?
			    pol_param_origin(&pp, "prompt_tokens") : "default",
			    e.msg);
	if (rc == 0 && (rc = trace_len_parse(sv->set.output, &sv->doutput,
					     &e)) != 0)
		sim_err_set(&e, rc, "%s: LLM setting output_tokens: %.200s",
			    pol_param_origin(&pp, "output_tokens") ?
			    pol_param_origin(&pp, "output_tokens") : "default",
			    e.msg);
	free(pv);
	sv->set.prompt = sv->set.output = NULL;
	if (rc != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	return 0;
}

/* The replica's model on device d (made on first use), or NULL when
** more than LLM_DEVS device kinds were asked (the run fails) or the model
** cannot run there at all (*fits 0, with the reason in e). */
static struct llm_model *model_on(struct llm_svc *sv, const struct world_job *job,
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
	if (sv == NULL || model_on(sv, job, d, &k, &e) == NULL || !sv->mok[k])
		return 2 * d->hbm_bytes;
	m = &sv->mem[k];
	blocks = (sv->sched.max_model_len + sv->set.block - 1) / sv->set.block;
	if (blocks > m->blocks)
		blocks = m->blocks;
	return m->total_bytes - m->kv_bytes + (uint64_t)blocks * m->block_bytes;
}

/* ---- requests in ----------------------------------------------------------- */

static int on_request(struct sim *s, void *ctx, uint64_t arg);
static int check_later(struct world *w, int j);

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
			return check_later(w, sv->j);
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
static int route(struct world *w, struct llm_svc *sv, struct lreq *q)
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
		return check_later(w, sv->j);
	}
	sv->inflight++;
	return rp->busy ? 0 : start(w, sv, r);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	struct llm_svc *sv = svc_of(w, (int)arg);
	struct llm_world *lw = sv->lw;
	struct lreq *q;
	int rc;

	(void)s;
	sv->req_ev = 0;
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
	if ((rc = route(w, sv, q)) != 0)
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
static void domain(const struct gpu *g, const struct gpu_tenant *t,
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
		domain(&w->gpus[job->gpu_ids[i]], &job->tenants[i], &c, &f);
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
	struct llm_svc *sv = svc_of(w, (int)arg);

	(void)s;
	if (world__job(w, (int)arg)->state == JOB_RUNNING && drained(sv))
		return world__job_done(w, (int)arg);
	return 0;
}

/* Ends the service at this instant if it has nothing left to do; through
** an event, so that no hook runs inside another. */
static int check_later(struct world *w, int j)
{
	const struct llm_svc *sv = svc_of(w, j);

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
	struct llm_svc *sv = svc_of(w, t->id);
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

/* ---- placement --------------------------------------------------------------- */

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
static int llm_place(struct world *w, void *state, struct world_job *job,
		     const int *gpus, int n, const struct world_place_opts *o,
		     struct sim_err *err)
{
	struct llm_svc *sv;
	int *tix, rc, g;

	(void)state;
	(void)o;
	if (job->tj.kind != TRACE_LLM || n != job->tj.gpus || n < 1)
		return WORLD_PASS;
	sv = svc_of(w, job->idx);
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
static int size_replica(struct world *w, struct world_job *job,
			struct llm_svc *sv, struct llm_rep *rp)
{
	const struct dev_profile *d = w->gpus[job->gpu_ids[rp->tix[0]]].dev;
	struct llm_model *m;
	struct llm_mem *mem;
	struct sim_err e;
	int64_t blocks, host;
	int k, dk, rc;

	m = model_on(sv, job, d, &dk, &e);
	if (m == NULL || !sv->mok[dk])
		return sim_fail(&w->sim, SIM_ENOSPC, "%s:%ld: model: llm service "
				"%s placed on %s: %s", w->trace_path,
				job->tj.line, job->tj.id, d->name, e.msg);
	mem = &sv->mem[dk];
	rp->m = m;
	rp->base_bytes = mem->total_bytes - mem->kv_bytes;
	rp->block_bytes = mem->block_bytes;
	/* vLLM's pool (llm_memory) on a whole GPU with util x HBM free;
	** less on a MIG slice or where co-tenants hold the memory */
	blocks = mem->blocks;
	for (k = 0; k < sv->set.tp; k++) {
		int i = rp->tix[k];
		const struct gpu *g = &w->gpus[job->gpu_ids[i]];
		const struct gpu_tenant *t = &job->tenants[i];
		uint64_t cap, f;
		double full, lim, b;
		int64_t had;
		domain(g, t, &cap, &f);
		full = lim = sv->set.util * (double)cap;
		if (sv->set.kv != KV_OVERSUB && (double)(f + t->mem_bytes) < lim)
			lim = (double)(f + t->mem_bytes);
		if (t->slice >= 0 || lim < full) {
			b = floor((lim - (double)rp->base_bytes) /
				  (double)rp->block_bytes);
			if (b < (double)blocks)
				blocks = b < 0 ? 0 : (int64_t)b;
		}
		/* never less than the attach holds already */
		had = t->mem_bytes > rp->base_bytes ?
			(int64_t)((t->mem_bytes - rp->base_bytes) /
				  rp->block_bytes) : 0;
		if (blocks < had)
			blocks = had;
	}
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
static int llm_placed(struct world *w, void *state, struct world_job *job)
{
	struct llm_svc *sv = svc_of(w, job->idx);
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
		if ((rc = route(w, sv, q)) != 0)
			return rc;
	}
	return check_later(w, job->idx);
}

/* ---- arrival, failure, close ----------------------------------------------- */

/* 1 if the service's arrivals never end by themselves (service.c). */
static int open_ended(const struct trace_job *tj)
{
	const char *last;

	if (tj->duration_ns > 0)
		return 0;
	if (tj->arrival == TRACE_ARR_POISSON)
		return 1;
	if (tj->arrival != TRACE_ARR_RATES)
		return 0;
	last = strrchr(tj->arrival_arg, ';');
	last = last != NULL ? last + 1 : tj->arrival_arg;
	return atof(last) > 0;
}

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
		if (model_on(sv, job, cg->dev, &k, &e) == NULL)
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
	if ((rc = svc_settings(w, sv, job)) != 0)
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
	world__job_open(w, job, open_ended(&job->tj));
	return read_next(w, sv);
}

/* Drops the requests a failed or unplaced service still holds. */
static void arrivals_end(struct world *w, struct world_job *job)
{
	struct llm_svc *sv = svc_of(w, job->idx);

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
		return check_later(w, job->idx);
	return 0;
}

/* ---- the window, results, teardown ------------------------------------------ */

static double q_or_nan(struct sim_sample *s, double q)
{
	return s->n ? sim_sample_quantile(s, q) : (double)NAN;
}

int world_llm_window(struct world *w, int j, struct pol_llm_window *out,
		     struct sim_err *err)
{
	struct llm_svc *sv;
	struct llm_win *wn;
	int r;

	if (j < 0 || j >= w->njobs || (sv = svc_of(w, j)) == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm_window: job %d is not "
				   "an LLM service", j);
	wn = &sv->win;
	memset(out, 0, sizeof *out);
	out->t0_ns = wn->t0;
	out->len_ns = w->sim.now - wn->t0;
	out->arrivals = wn->arrivals;
	out->completed = wn->completed;
	out->tokens = wn->tokens;
	out->ttft_miss = wn->ttft_miss;
	out->tpot_miss = wn->tpot_miss;
	out->ttft_p99_ms = q_or_nan(&wn->ttft, 0.99);
	out->tpot_mean_ms = wn->tpot.n ? wn->tpot.mean : (double)NAN;
	out->tpot_p99_ms = q_or_nan(&wn->tpot, 0.99);
	out->itl_mean_ms = wn->itl.n ? wn->itl.mean : (double)NAN;
	out->itl_p99_ms = q_or_nan(&wn->itl, 0.99);
	out->iterations = wn->iterations;
	out->preemptions = wn->preemptions;
	out->replicas = sv->nrep;
	out->tp = sv->set.tp;
	out->slo_ttft_ms = sv->slo_ttft_ms;
	out->slo_tpot_ms = sv->slo_tpot_ms;
	out->queued = (uint64_t)sv->nbacklog;
	for (r = 0; r < sv->nrep; r++) {
		const struct llm_rep *rp = &sv->rep[r];
		double b = rp->busy_ns;
		if (rp->busy)     /* busy_ns is offset at a reset */
			b += (double)(w->sim.now - rp->t_iter);
		out->busy_frac += b;
		out->kv_util += rp->util / sv->nrep;
		out->queued += (uint64_t)llm_engine_queued(&rp->e);
	}
	if (sv->nrep > 0 && out->len_ns > 0)
		out->busy_frac /= (double)out->len_ns * sv->nrep;
	return 0;
}

int world_llm_window_reset(struct world *w, int j, struct sim_err *err)
{
	struct llm_svc *sv;
	struct llm_win *wn;
	int r;

	if (j < 0 || j >= w->njobs || (sv = svc_of(w, j)) == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm_window_reset: job %d "
				   "is not an LLM service", j);
	wn = &sv->win;
	sim_sample_fini(&wn->ttft);
	sim_sample_fini(&wn->tpot);
	sim_sample_fini(&wn->itl);
	memset(wn, 0, sizeof *wn);
	sim_sample_init(&wn->ttft, 0);
	sim_sample_init(&wn->tpot, 0);
	sim_sample_init(&wn->itl, 0);
	wn->t0 = w->sim.now;
	for (r = 0; r < sv->nrep; r++) {
		sv->rep[r].busy_ns = 0;
		if (sv->rep[r].busy)      /* count from now on */
			sv->rep[r].busy_ns = -(double)(w->sim.now -
						       sv->rep[r].t_iter);
	}
	return 0;
}

/* A histogram of s: 80 log-spaced bins between its min and max. */
static int add_hist(struct sim_sample *s, const char *name,
		    struct run_result *res)
{
	enum { NB = 80 };
	double lo, hi, r;
	uint64_t counts[NB];
	size_t k;
	int b, rc;

	if (s->n == 0)
		return 0;
	lo = s->min > 1e-6 ? s->min : 1e-6;
	hi = s->max > lo ? s->max : lo * 1.0001;
	r = log(hi / lo) / NB;
	memset(counts, 0, sizeof counts);
#define BIN(x) ((x) <= lo ? 0 : (int)fmin(NB - 1, floor(log((x) / lo) / r)))
	if (!sim_sample_is_hist(s)) {
		for (k = 0; k < s->nvals; k++)
			counts[BIN(s->vals[k])]++;
	} else {
		double g = (1.0 + SIM_HIST_REL_ERR) / (1.0 - SIM_HIST_REL_ERR);
		counts[0] += s->nzero;
		for (k = 0; k < s->nhist; k++) {
			double x = 2.0 * pow(g, (double)(s->hmin + (int64_t)k)) /
				(g + 1.0);
			counts[BIN(x)] += s->hist[k];
		}
	}
#undef BIN
	for (b = 0; b < NB; b++) {
		struct res_hist_bin bin;
		memset(&bin, 0, sizeof bin);
		snprintf(bin.name, sizeof bin.name, "%s", name);
		bin.lo = lo * exp(r * b);
		bin.hi = lo * exp(r * (b + 1));
		bin.count = counts[b];
		if ((rc = run_result_add_hist(res, &bin)) != 0)
			return rc;
	}
	return 0;
}

static int llm_results(struct world *w, void *state, struct run_result *res)
{
	struct llm_world *lw = state;
	unsigned long long unserved = 0;
	double kv_mean = 0;
	uint64_t iters = 0, pre = 0, rec = 0, swo = 0;
	int j, r, rc = 0, nrep = 0, k;

	for (j = 0; j < lw->capsvc && j < w->njobs; j++) {
		struct llm_svc *sv = lw->svc[j];
		if (sv == NULL)
			continue;
		unserved += (unsigned long long)(sv->nbacklog + sv->inflight);
		for (r = 0; r < sv->nrep; r++) {
			const struct llm_engine *e = &sv->rep[r].e;
			sim_time end = lw->t_last > sv->rep[r].kv.t0 ?
				lw->t_last : w->sim.now;
			if (!sv->rep[r].inited)
				continue;
			kv_mean += sim_twacc_mean(&sv->rep[r].kv, end);
			nrep++;
			iters += e->iterations;
			pre += e->preemptions;
			rec += e->recomputes;
			swo += e->swap_outs;
		}
	}
	if (lw->total == 0)
		return 0;     /* no LLM service: no LLM metrics */
#define SET(name, v) if (rc == 0) rc = run_result_set(res, name, (v))
#define QS(pre, s) \
	SET(pre "_mean_ms", lw->s.n ? lw->s.mean : (double)NAN); \
	SET(pre "_p50_ms", world__res_quant(&lw->s, 0.50)); \
	SET(pre "_p95_ms", world__res_quant(&lw->s, 0.95)); \
	SET(pre "_p99_ms", world__res_quant(&lw->s, 0.99))
	SET("llm_requests_total", (double)lw->total);
	SET("llm_requests_completed", (double)lw->completed);
	SET("llm_requests_rejected", (double)lw->rejected);
	SET("llm_requests_unserved", (double)unserved);
	SET("llm_requests_skipped", (double)lw->skipped);
	SET("llm_requests_truncated", (double)lw->truncated);
	QS("llm_ttft", ttft);
	QS("llm_tpot", tpot);
	QS("llm_itl", itl);
	QS("llm_e2e", e2e);
	SET("llm_slo_ttft", (double)lw->ok_ttft / (double)lw->total);
	SET("llm_slo_tpot", (double)lw->ok_tpot / (double)lw->total);
	SET("llm_slo_both", (double)lw->ok_both / (double)lw->total);
	SET("llm_tokens_out", (double)lw->tokens);
	SET("llm_out_tok_per_s", lw->t_last > lw->t_first ?
	    (double)lw->tokens / sim_time_to_s(lw->t_last - lw->t_first) :
	    (double)NAN);
	SET("llm_kv_util_mean", nrep ? kv_mean / nrep : (double)NAN);
	SET("llm_kv_util_peak", lw->kv_peak);
	SET("llm_iterations", (double)iters);
	SET("llm_preemptions", (double)pre);
	SET("llm_recomputes", (double)rec);
	SET("llm_swap_outs", (double)swo);
	SET("llm_swapped_bytes", lw->swapped_bytes);
#undef QS
#undef SET
	if (rc == 0)
		rc = add_hist(&lw->ttft, "llm_ttft_ms", res);
	if (rc == 0)
		rc = add_hist(&lw->tpot, "llm_tpot_ms", res);
	for (k = 0; rc == 0 && k < lw->s_n; k++) {
		struct res_point p;
		memset(&p, 0, sizeof p);
		snprintf(p.name, sizeof p.name, "llm_kv_util");
		p.t_s = lw->s_t[k];
		p.value = lw->s_v[k];
		rc = run_result_add_point(res, &p);
	}
	return rc;
}

/* xJobResult: the service's row (docs/RESULTS.md, "services"): requests
** that arrived, completed, met both SLOs; the TTFT SLO; the end-to-end
** latency of the completed ones. */
static void llm_job_result(struct world *w, void *state,
			   const struct world_job *job, struct res_job *r)
{
	struct llm_svc *sv = svc_of(w, job->idx);
	struct sim_sample *s;

	(void)state;
	if (sv == NULL)
		return;
	s = &sv->e2e;
	r->req_total = sv->n_req;
	r->req_served = sv->n_done;
	r->req_slo_ok = sv->n_ok;
	r->slo_ms = sv->slo_ttft_ms;
	r->lat_mean_ms = s->n ? s->mean : (double)NAN;
	r->lat_p50_ms = s->n ? sim_sample_quantile(s, 0.50) : (double)NAN;
	r->lat_p95_ms = s->n ? sim_sample_quantile(s, 0.95) : (double)NAN;
	r->lat_p99_ms = s->n ? sim_sample_quantile(s, 0.99) : (double)NAN;
}

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
	.xResults = llm_results,
	.xUnitDone = llm_unit_done,
	.xArrive = llm_arrive,
	.xPlaced = llm_placed,
	.xFail = llm_fail,
	.xClose = llm_close,
	.xPlace = llm_place,
	.xJobResult = llm_job_result,
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
