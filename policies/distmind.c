/*
** distmind.c: DistMind (Jin et al., "DistMind: Efficient Resource
** Disaggregation for Deep Learning Workloads", IEEE/ACM ToN 2024) and the
** two baselines of its comparison.  docs/POLICIES.md and docs/MODEL.md,
** "DistMind", describe them; sim/world/world_load.c holds the pools.
**
**   distmind       every service is served by the GPU pool; models stream
**                  in by the three-stage pipeline; requests are routed
**                  cache-aware in DistMind's order (its load balancer,
**                  source/lb_lfu/strategy/basic_strategy.cpp): a GPU with
**                  the model and load 0; any GPU with load 0; a GPU with
**                  the model and load < busy_load (2); the least-loaded GPU
**                  with load < max_load (4); else the pool's queue.  GPUs
**                  the pool does not need run training jobs; every
**                  `period_ms` (1000) a re-assignment sizes the pool to the
**                  measured inference busy time over `util_target`,
**                  preempting training for GPUs it takes back.
**   distmind-ray   Ray-like: the pool with whole-model loads (no
**                  pipelining) and no cache awareness (any idle GPU, else
**                  the least-loaded under max_load, else queue); the last
**                  `train_gpus` GPUs (0) run training, statically.
**   distmind-mps   NVIDIA MPS with static placement: every service is one
**                  replica resident on the GPU with the fewest tenants (then
**                  the most free memory) with SM share `sm_pct` (100);
**                  training jobs are packed the same way while memory fits.
**
** Invariants: a GPU is either in the pool or not; training runs only on
** GPUs outside it; training jobs are FIFO, exclusive, lowest GPUs first.
**
** Cost per event (G GPUs, P pending jobs, n GPUs a job, D device kinds,
** A pool GPUs busy now; log: O(log G) index steps):
**   request             O(log G) (pol_pool_route: the pool's GPUs and, per
**                       model, those holding it, by index with their load)
**   re-assignment tick  O(A) for the busy time (pol_pool_busy_total_ns)
**                       plus O(1) pool size, and O(first pending training
**                       job's position) for "training waits"; the joins,
**                       preemptions and releases, when the pool's size
**                       must change, walk the GPUs from the highest index
**                       until enough are found: O(G) in the worst case
**   pass                per pending training job O(D + n log G) (first fit
**                       over the idle GPUs); distmind-mps per job O(n D
**                       (n + log G)) (each kind's least-loaded order)
** The timer ticks on the grid k * period_ms from 0 (each tick O(A) when
** nothing changes, plus O(G) for the idle test when its cheap parts
** pass); it sleeps after a tick that leaves nothing to do (no service
** live, the pool idle and settled at min_inference_gpus, or above it with
** no training job waiting: dm_idle) and a service's arrival (or a
** training job's, when the pool is above its floor) re-arms it on the
** same grid, so a run with no service costs a handful of ticks, not
** 1e9 / period for a 1e9 s run, and the ticks that run are those of a
** timer that never sleeps (the skipped ones changed nothing but the event
** count).  Worst cases: a pool that must grow or shrink every tick on a
** large cluster (the O(G) walks above); a pool above its floor with
** training jobs waiting that it cannot give GPUs to keeps the timer
** ticking; under distmind-ray with no cache awareness, nothing worse than
** O(log G) a request.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/distmind.h"
#include "policies/policy.h"

enum dm_kind { DM_DISTMIND, DM_RAY, DM_MPS };

struct dm {
	enum dm_kind kind;
	/* parameters (filled by the engine from the tables below; each
	** policy fills its own, the others stay 0 and are not used) */
	int busy_load, max_load, min_inf, train_gpus;
	double period_ms, util_target, sm_pct;
	sim_time period_ns;
	double sm_cap;
	uint64_t busy_prev;           /* pol_pool_busy_total_ns at the last
					 tick */
	int live_svc;                 /* services arrived, not yet ended */
	int dormant;                  /* 1: the timer is not armed */
	sim_time last_tick_ns;        /* the last tick's time (0: none) */
	int *cand, *in, *load, *has;  /* scratch, one per GPU */
};

/* The GPU counts are checked against the cluster in xInit. */
#define DM_MAX_GPUS 1000000

static const struct pol_param_def dm_params[] = {
	POL_PARAM_DOUBLE("period_ms", struct dm, period_ms, 1, 3.6e6, "1000",
			 "re-assignment period, ms"),
	POL_PARAM_DOUBLE("util_target", struct dm, util_target, 0.05, 1,
			 "0.8", "pool GPUs = busy GPU-time / period / this"),
	POL_PARAM_INT("busy_load", struct dm, busy_load, 1, DM_MAX_GPUS, "2",
		      "a GPU with the model takes a request below this load "
		      "(at most max_load)"),
	POL_PARAM_INT("max_load", struct dm, max_load, 1, DM_MAX_GPUS, "4",
		      "no GPU takes a request at this load: it queues"),
	POL_PARAM_INT("min_inference_gpus", struct dm, min_inf, 0,
		      DM_MAX_GPUS, "0", "least pool size (at most the "
		      "cluster's GPUs)"),
	POL_PARAM_END
};

static const struct pol_param_def ray_params[] = {
	POL_PARAM_INT("max_load", struct dm, max_load, 1, DM_MAX_GPUS, "4",
		      "no GPU takes a request at this load: it queues"),
	POL_PARAM_INT("train_gpus", struct dm, train_gpus, 0, DM_MAX_GPUS,
		      "0", "GPUs (the last ones) that run training, "
		      "statically (at most the cluster's GPUs)"),
	POL_PARAM_END
};

static const struct pol_param_def mps_params[] = {
	POL_PARAM_DOUBLE("sm_pct", struct dm, sm_pct, 1, 100, "100",
			 "every replica's MPS SM share, percent (a trace "
			 "gpu_share < 1 overrides it)"),
	POL_PARAM_END
};

/* An integer parameter that must not pass hi (known only at run time),
** checked when the user gave it, as the table checks its static range. */
static int at_most(const struct pol_params *p, const char *key, int v,
		   long lo, long hi, struct sim_err *err)
{
	const char *origin = pol_param_origin(p, key);

	if (origin == NULL || v <= hi)
		return 0;
	return sim_err_set(err, SIM_EINVAL, "%s: parameter %s = '%d': "
			   "expected an integer in [%ld, %ld]", origin, key, v,
			   lo, hi);
}

static int dm_init_common(struct world *w, struct dm *d, enum dm_kind kind,
			  const struct pol_params *p, struct sim_err *err)
{
	const char *name = kind == DM_DISTMIND ? "distmind" :
		kind == DM_RAY ? "distmind-ray" : "distmind-mps";
	int g, n = pol_ngpus(w), rc;

	d->kind = kind;
	if ((rc = at_most(p, "busy_load", d->busy_load, 1, d->max_load,
			  err)) != 0 ||
	    (rc = at_most(p, "min_inference_gpus", d->min_inf, 0, n,
			  err)) != 0 ||
	    (rc = at_most(p, "train_gpus", d->train_gpus, 0, n, err)) != 0)
		return rc;
	d->period_ns = sim_time_from_s(d->period_ms / 1e3);
	d->sm_cap = d->sm_pct / 100.0;
	d->cand = calloc((size_t)n, sizeof *d->cand);
	d->in = calloc((size_t)n, sizeof *d->in);
	d->load = calloc((size_t)n, sizeof *d->load);
	d->has = calloc((size_t)n, sizeof *d->has);
	if (d->cand == NULL || d->in == NULL ||
	    d->load == NULL || d->has == NULL)
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", name);
	if (kind == DM_MPS) {
		for (g = 0; g < n; g++)
			if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS,
						   err)) != 0)
				return rc;
		return 0;
	}
	if ((rc = pol_pool_set_mode(w, kind == DM_RAY ? POL_LOAD_WHOLE :
				    POL_LOAD_PIPELINED, err)) != 0)
		return rc;
	/* the pool starts with every GPU (Ray: all but the training ones);
	** DistMind's first re-assignment hands the idle ones to training */
	for (g = 0; g < n - (kind == DM_RAY ? d->train_gpus : 0); g++)
		if ((rc = pol_pool_join(w, g, err)) != 0)
			return rc;
	if (kind == DM_DISTMIND)
		return pol_set_timer(w, d->period_ns, 0, err);
	return 0;
}

static int dm_init(struct world *w, void *st, const struct pol_params *p,
		   struct sim_err *err)
{
	return dm_init_common(w, st, DM_DISTMIND, p, err);
}

static int ray_init(struct world *w, void *st, const struct pol_params *p,
		    struct sim_err *err)
{
	return dm_init_common(w, st, DM_RAY, p, err);
}

static int mps_init(struct world *w, void *st, const struct pol_params *p,
		    struct sim_err *err)
{
	return dm_init_common(w, st, DM_MPS, p, err);
}

static void dm_fini(struct world *w, void *st)
{
	struct dm *d = st;

	(void)w;
	free(d->cand);
	free(d->in);
	free(d->load);
	free(d->has);
}

/* ---- routing -------------------------------------------------------------- */

int distmind_route(int n, const int *in, const int *load, const int *has,
		   int busy_load, int max_load, int cache)
{
	int g, best = -1;

	if (cache)
		for (g = 0; g < n; g++)
			if (in[g] && load[g] == 0 && has[g])
				return g;
	for (g = 0; g < n; g++)
		if (in[g] && load[g] == 0)
			return g;
	if (cache)
		for (g = 0; g < n; g++)
			if (in[g] && load[g] < busy_load && has[g])
				return g;
	for (g = 0; g < n; g++)
		if (in[g] && load[g] < max_load &&
		    (best < 0 || load[g] < load[best]))
			best = g;
	return best;
}

static int dm_on_request(struct world *w, void *st, int j, int *replica)
{
	struct dm *d = st;

	if (!pol_pool_serving(w, j))
		return 0;               /* a replica service: the default */
	/* distmind_route over every GPU, from the pool's indexes */
	*replica = pol_pool_route(w, j, d->busy_load, d->max_load,
				  d->kind == DM_DISTMIND);
	return 0;
}

/* ---- re-assignment ---------------------------------------------------------- */

/* The job running on GPU g (its first tenant), or -1. */
static int train_on(const struct world *w, int g)
{
	struct pol_tenant_walk it = pol_tenants(w, g);
	struct pol_tenant_info t;

	if (!pol_tenant_next(w, &it, &t) || t.job < 0)
		return -1;
	return t.job;
}

static int train_pending(const struct world *w)
{
	int k;

	for (k = 0; k < pol_npending(w); k++)
		if (pol_job(w, pol_pending_at(w, k)).kind == POL_TRAIN)
			return 1;
	return 0;
}

/* The pool's floor: min_inference_gpus, at most the GPUs. */
static int dm_floor(const struct world *w, const struct dm *d)
{
	return d->min_inf < pol_ngpus(w) ? d->min_inf : pol_ngpus(w);
}

/*
** 1 when, after a tick, every later tick would change nothing until a
** job arrives: no service live, the pool busy for none of the last
** period (busy, GPU-ns) nor now (every pool GPU at load 0), its queue
** empty, and its size the need a tick computes from zero busy time (the
** floor), or above it with no training job waiting (a tick shrinks the
** pool only for one), so it neither grows nor shrinks.  busy_prev stays
** right: the busy total cannot move meanwhile.  O(G) (the load walk) and
** O(P) (training waiting, above the floor) only when the cheap tests
** pass.
*/
static int dm_idle(const struct world *w, const struct dm *d, double busy)
{
	int n = pol_ngpus(w), g, size = pol_pool_size(w);

	if (d->live_svc > 0 || busy != 0 || pol_pool_queued(w) > 0 ||
	    size < dm_floor(w, d) ||
	    (size > dm_floor(w, d) && train_pending(w)))
		return 0;
	for (g = 0; g < n; g++)
		if (pol_pool_in(w, g) && pol_pool_load(w, g) != 0)
			return 0;
	return 1;
}

/*
** Every period: U = the pool's busy GPU-time over the period / period (in
** GPUs); the pool needs ceil(U / util_target) GPUs, at least
** min_inference_gpus, and one more than it has while requests wait in the
** pool's queue.  It shrinks only while training jobs wait.  It grows by
** taking idle training GPUs first, then GPUs whose training job it
** preempts (highest index first); it shrinks by releasing idle pool GPUs
** (highest index first).
*/
static int dm_on_timer(struct world *w, void *st, uint64_t tag)
{
	struct dm *d = st;
	int n = pol_ngpus(w), g, cur = pol_pool_size(w), need, rc;
	uint64_t tot = pol_pool_busy_total_ns(w);
	/* the sum of every GPU's busy time over the period: integers, so
	** the difference of the totals is the per-GPU sum exactly */
	double busy = (double)(tot - d->busy_prev);
	struct sim_err e = { 0, "" };

	(void)tag;
	d->busy_prev = tot;
	need = (int)ceil(busy / (double)d->period_ns / d->util_target - 1e-9);
	if (need < d->min_inf)
		need = d->min_inf;
	if (pol_pool_queued(w) > 0 && need <= cur)
		need = cur + 1;
	if (need > n)
		need = n;
	for (g = n - 1; g >= 0 && cur < need; g--)   /* idle GPUs first */
		if (!pol_pool_in(w, g) && pol_gpu_ntenants(w, g) == 0) {
			if ((rc = pol_pool_join(w, g, &e)) != 0)
				return rc;
			cur++;
		}
	for (g = n - 1; g >= 0 && cur < need; g--) {
		int j = train_on(w, g);
		struct pol_job_info job;
		if (pol_pool_in(w, g) || j < 0)
			continue;
		job = pol_job(w, j);
		/* only a running training job can make room (a service
		** replica or a job already being swapped out cannot) */
		if (job.kind != POL_TRAIN || job.state != POL_JOB_RUNNING)
			continue;
		if ((rc = pol_preempt(w, j, &e)) != 0)
			return rc;
		/* Under preempt_cost = swap the job's memory stays until its
		** copy ends: the GPU joins at a later period, if still needed. */
		if (pol_gpu_ntenants(w, g) > 0)
			continue;
		if ((rc = pol_pool_join(w, g, &e)) != 0)
			return rc;
		cur++;
	}
	if (!train_pending(w))        /* nothing to fill: keep the GPUs */
		need = cur;
	for (g = n - 1; g >= 0 && cur > need; g--)
		if (pol_pool_in(w, g) && pol_pool_load(w, g) == 0 &&
		    pol_pool_leave(w, g, NULL) == 0)
			cur--;
	d->last_tick_ns = pol_now(w);
	if (dm_idle(w, d, busy)) {
		d->dormant = 1;       /* dm_on_arrival re-arms it */
		return 0;
	}
	return pol_set_timer(w, d->period_ns, 0, &e);
}

/*
** A service arrived (version 1 hook): count it and, when the timer sleeps,
** re-arm it on its grid, at the first tick time >= now (last_tick_ns + k
** periods).  An arrival at a tick time runs before that tick (class
** SIM_PRIO_ARRIVAL before SIM_PRIO_TIMER), as under a timer that never
** slept, so the re-armed tick at now sees the same state.
*/
static int dm_on_arrival(struct world *w, void *st, int j)
{
	struct dm *d = st;
	struct sim_err e = { 0, "" };
	sim_time now = pol_now(w), k;

	/* a training job matters to a sleeping timer only above the floor,
	** where a tick would shrink the pool for it */
	if (pol_job(w, j).kind == POL_TRAIN) {
		if (!d->dormant || pol_pool_size(w) <= dm_floor(w, d))
			return 0;
	} else {
		d->live_svc++;
	}
	if (!d->dormant)
		return 0;
	d->dormant = 0;
	k = (now - d->last_tick_ns + d->period_ns - 1) / d->period_ns;
	return pol_set_timer(w, d->last_tick_ns + k * d->period_ns - now, 0,
			     &e);
}

/* A service ended: one fewer live (dm_idle reads the count). */
static int dm_on_finish(struct world *w, void *st, int j)
{
	struct dm *d = st;

	if (pol_job(w, j).kind != POL_TRAIN && d->live_svc > 0)
		d->live_svc--;
	return 0;
}

/* ---- placement ---------------------------------------------------------------- */

/* Job j's smallest footprint over the device kinds. */
static uint64_t min_mem(const struct world *w, int j)
{
	uint64_t lo = UINT64_MAX;
	int k;

	for (k = 0; k < pol_ndevs(w); k++) {
		uint64_t m = pol_job_mem(w, j, pol_dev(w, k).gpu);
		if (m < lo)
			lo = m;
	}
	return lo;
}

/* Training: FIFO, exclusive, on the lowest empty GPUs outside the pool
** (Ray: only its training GPUs, which are outside the pool as well). */
static int place_train(struct world *w, struct dm *d, int j, int need)
{
	int g = -1, got = 0, rc;
	uint64_t lo = min_mem(w, j);

	/* first fit over the idle GPUs (a pool GPU holds its executor, so
	** it is never idle), from the smallest footprint over the kinds;
	** each candidate then checked exactly */
	if (pol_gpus_idle(w) < need)
		return 0;
	while (got < need &&
	       (g = pol_gpu_next_fit(w, g + 1, lo, POL_FIT_IDLE)) >= 0)
		if (!pol_pool_in(w, g) && pol_gpu_ntenants(w, g) == 0 &&
		    pol_job_mem(w, j, g) <= pol_gpu_free(w, g, -1))
			d->cand[got++] = g;
	if (got < need)
		return 0;
	rc = pol_place(w, j, d->cand, got, NULL, NULL);
	return rc == SIM_ENOSPC ? 0 : rc;
}

/* MPS: the GPUs with the fewest tenants, then the most free memory. */
static int place_mps(struct world *w, struct dm *d,
		     const struct pol_job_info *job)
{
	struct pol_place_opts o = { .sm_cap = 0 };
	int got = 0, k, g, rc, j = job->job;

	/* each round: the best GPU not taken yet by (tenants, most free
	** memory, index), the first of each device kind's least-loaded
	** order (fewest tenants, then most free, ties by index) that holds
	** the job, past the ones taken; O(D (got + log G)) */
	while (got < job->gpus) {
		int best = -1, best_nt = 0, dv;
		for (dv = 0; dv < pol_ndevs(w); dv++) {
			uint64_t memd = pol_job_mem(w, j, pol_dev(w, dv).gpu);
			int nt;
			g = pol_gpu_order_first(w, dv, POL_ORDER_LEAST_LOADED,
						memd);
			for (;;) {
				for (k = 0; g >= 0 && k < got &&
				     d->cand[k] != g; k++)
					;
				if (g < 0 || k == got)
					break;
				g = pol_gpu_order_next(w, dv,
						       POL_ORDER_LEAST_LOADED,
						       memd, g);
			}
			if (g < 0)
				continue;
			nt = pol_gpu_ntenants(w, g);
			if (best < 0 || nt < best_nt ||
			    (nt == best_nt &&
			     (pol_gpu_free(w, g, -1) >
			      pol_gpu_free(w, best, -1) ||
			      (pol_gpu_free(w, g, -1) ==
			       pol_gpu_free(w, best, -1) && g < best)))) {
				best = g;
				best_nt = nt;
			}
		}
		if (best < 0)
			return 0;
		d->cand[got++] = best;
	}
	o.sm_cap = job->gpu_share > 0 && job->gpu_share < 1 ?
		job->gpu_share : d->sm_cap;
	rc = pol_place(w, j, d->cand, got, &o, NULL);
	return rc == SIM_ENOSPC ? 0 : rc;
}

static int dm_schedule(struct world *w, void *st)
{
	struct dm *d = st;
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j, rc;

	while ((j = pol_pending_next(w, &it)) >= 0) {
		struct pol_job_info job;

		if (pol_job(w, j).gpus < 1) {
			/* as the world fails one for a policy before
			** version 3 (distmind and distmind-ray are 8) */
			pol_fail_job(w, j, "CPU-only job (0 GPUs): the "
				     "policy places GPU jobs only");
			continue;
		}
		if (!pol_job_fits_empty(w, j)) {
			pol_fail_job(w, j, "larger than any GPU set");
			continue;
		}
		job = pol_job(w, j);
		if (d->kind == DM_MPS)
			rc = place_mps(w, d, &job);
		else if (job.kind == POL_INFER)
			rc = pol_pool_serve(w, j, NULL);
		else if (d->kind == DM_RAY && d->train_gpus == 0) {
			pol_fail_job(w, j, "distmind-ray: no training GPUs "
				     "(train_gpus = 0)");
			continue;
		} else
			rc = place_train(w, d, j, job.gpus);
		if (rc < 0)
			return rc;
	}
	return 0;
}

const struct pol_ops pol_distmind = {
	.iVersion = 8,                 /* pol_pool_route (version 8) */
	.zName = "distmind",
	.zDesc = "DistMind: GPU pool + memory pool, pipelined loads, "
		 "cache-aware balancing, training fills idle GPUs",
	.szState = sizeof(struct dm),
	.aParam = dm_params,
	.xInit = dm_init,
	.xFini = dm_fini,
	.xOnArrival = dm_on_arrival,
	.xOnFinish = dm_on_finish,
	.xOnRequest = dm_on_request,
	.xOnTimer = dm_on_timer,
	.xSchedule = dm_schedule
};

const struct pol_ops pol_distmind_ray = {
	.iVersion = 8,                 /* pol_pool_route (version 8) */
	.zName = "distmind-ray",
	.zDesc = "DistMind's Ray baseline: whole-model loads, no cache "
		 "awareness",
	.szState = sizeof(struct dm),
	.aParam = ray_params,
	.xInit = ray_init,
	.xFini = dm_fini,
	.xOnRequest = dm_on_request,
	.xSchedule = dm_schedule
};

const struct pol_ops pol_distmind_mps = {
	.iVersion = 2,                 /* written for version 2 */
	.zName = "distmind-mps",
	.zDesc = "DistMind's MPS baseline: every model resident, static "
		 "placement",
	.szState = sizeof(struct dm),
	.aParam = mps_params,
	.xInit = mps_init,
	.xFini = dm_fini,
	.xSchedule = dm_schedule
};
