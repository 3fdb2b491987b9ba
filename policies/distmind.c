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
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/distmind.h"
#include "policies/policy.h"
#include "sim/world/world.h"

enum dm_kind { DM_DISTMIND, DM_RAY, DM_MPS };

struct dm {
	enum dm_kind kind;
	long busy_load, max_load, min_inf, train_gpus;
	sim_time period_ns;
	double util_target, sm_cap;
	sim_time *busy_prev;          /* world_pool_busy_ns at the last tick */
	int *cand, *in, *load, *has;  /* scratch, one per GPU */
};

static const char *const keys_dm[] = { "period_ms", "util_target",
	"busy_load", "max_load", "min_inference_gpus", NULL };
static const char *const keys_ray[] = { "max_load", "train_gpus", NULL };
static const char *const keys_mps[] = { "sm_pct", NULL };

static int dm_init_common(struct world *w, struct dm *d, enum dm_kind kind,
			  const struct pol_params *p, struct sim_err *err)
{
	const char *name = kind == DM_DISTMIND ? "distmind" :
		kind == DM_RAY ? "distmind-ray" : "distmind-mps";
	double period_ms = 1000, pct = 100;
	int g, n = world_ngpus(w), rc;

	d->kind = kind;
	d->busy_load = 2;
	d->max_load = 4;
	d->util_target = 0.8;
	d->min_inf = 0;
	d->train_gpus = 0;
	rc = pol_params_check(p, name, kind == DM_DISTMIND ? keys_dm :
			      kind == DM_RAY ? keys_ray : keys_mps, err);
	if (rc == 0)
		rc = pol_param_double(p, "period_ms", 1, 3.6e6, &period_ms,
				      err);
	if (rc == 0)
		rc = pol_param_double(p, "util_target", 0.05, 1,
				      &d->util_target, err);
	if (rc == 0)
		rc = pol_param_int(p, "max_load", 1, 1000000, &d->max_load,
				   err);
	if (rc == 0)
		rc = pol_param_int(p, "busy_load", 1, d->max_load,
				   &d->busy_load, err);
	if (rc == 0)
		rc = pol_param_int(p, "min_inference_gpus", 0, n, &d->min_inf,
				   err);
	if (rc == 0)
		rc = pol_param_int(p, "train_gpus", 0, n, &d->train_gpus, err);
	if (rc == 0)
		rc = pol_param_double(p, "sm_pct", 1, 100, &pct, err);
	if (rc != 0)
		return rc;
	d->period_ns = sim_time_from_s(period_ms / 1e3);
	d->sm_cap = pct / 100.0;
	d->busy_prev = calloc((size_t)n, sizeof *d->busy_prev);
	d->cand = calloc((size_t)n, sizeof *d->cand);
	d->in = calloc((size_t)n, sizeof *d->in);
	d->load = calloc((size_t)n, sizeof *d->load);
	d->has = calloc((size_t)n, sizeof *d->has);
	if (d->busy_prev == NULL || d->cand == NULL || d->in == NULL ||
	    d->load == NULL || d->has == NULL)
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", name);
	if (kind == DM_MPS) {
		for (g = 0; g < n; g++)
			if ((rc = world_set_gpu_mode(w, g, GPU_MODE_MPS,
						     err)) != 0)
				return rc;
		return 0;
	}
	if ((rc = world_pool_set_mode(w, kind == DM_RAY ? WORLD_LOAD_WHOLE :
				      WORLD_LOAD_PIPELINED, err)) != 0)
		return rc;
	/* the pool starts with every GPU (Ray: all but the training ones);
	** DistMind's first re-assignment hands the idle ones to training */
	for (g = 0; g < n - (kind == DM_RAY ? (int)d->train_gpus : 0); g++)
		if ((rc = world_pool_join(w, g, err)) != 0)
			return rc;
	if (kind == DM_DISTMIND)
		return world_set_timer(w, d->period_ns, 0, err);
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
	free(d->busy_prev);
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
	const struct zoo_model *m = world_job(w, j)->model;
	int g, n = world_ngpus(w);

	if (!world_pool_serving(w, j))
		return 0;               /* a replica service: the default */
	for (g = 0; g < n; g++) {
		d->in[g] = world_pool_in(w, g);
		d->load[g] = world_pool_load(w, g);
		d->has[g] = world_pool_has_model(w, g, m);
	}
	*replica = distmind_route(n, d->in, d->load, d->has,
				  (int)d->busy_load, (int)d->max_load,
				  d->kind == DM_DISTMIND);
	return 0;
}

/* ---- re-assignment ---------------------------------------------------------- */

static int pool_size(const struct world *w)
{
	int g, n = 0;

	for (g = 0; g < world_ngpus(w); g++)
		n += world_pool_in(w, g);
	return n;
}

/* The training job running on GPU g, or -1. */
static int train_on(const struct world *w, int g)
{
	const struct gpu *gp = world_gpu(w, g);

	if (gp->tenants == NULL || gp->tenants->id < 0)
		return -1;
	return gp->tenants->id;
}

static int train_pending(const struct world *w)
{
	int k;

	for (k = 0; k < world_npending(w); k++)
		if (world_job(w, world_pending_at(w, k))->tj.kind ==
		    TRACE_TRAIN)
			return 1;
	return 0;
}

/*
** Every period: U = the pool's busy GPU-time over the period / period (in
** GPUs); the pool needs ceil(U / util_target) GPUs, at least
** min_inference_gpus, and one more than it has while requests wait in the
** pool's queue.  It shrinks only while training jobs wait.  It grows by taking idle training GPUs first, then GPUs
** whose training job it preempts (highest index first); it shrinks by
** releasing idle pool GPUs (highest index first).
*/
static int dm_on_timer(struct world *w, void *st, uint64_t tag)
{
	struct dm *d = st;
	int n = world_ngpus(w), g, cur = pool_size(w), need, rc;
	double busy = 0;
	struct sim_err e = { 0, "" };

	(void)tag;
	for (g = 0; g < n; g++) {
		sim_time b = world_pool_busy_ns(w, g);
		busy += (double)(b - d->busy_prev[g]);
		d->busy_prev[g] = b;
	}
	need = (int)ceil(busy / (double)d->period_ns / d->util_target - 1e-9);
	if (need < d->min_inf)
		need = (int)d->min_inf;
	if (world_pool_queued(w) > 0 && need <= cur)
		need = cur + 1;
	if (need > n)
		need = n;
	for (g = n - 1; g >= 0 && cur < need; g--)   /* idle GPUs first */
		if (!world_pool_in(w, g) && world_gpu(w, g)->ntenants == 0) {
			if ((rc = world_pool_join(w, g, &e)) != 0)
				return rc;
			cur++;
		}
	for (g = n - 1; g >= 0 && cur < need; g--) {
		int j = train_on(w, g);
		const struct world_job *job;
		if (world_pool_in(w, g) || j < 0)
			continue;
		job = world_job(w, j);
		/* only a running training job can make room (a service
		** replica or a job already being swapped out cannot) */
		if (job->tj.kind != TRACE_TRAIN || job->state != JOB_RUNNING)
			continue;
		if ((rc = world_preempt(w, j, &e)) != 0)
			return rc;
		/* Under preempt_cost = swap the job's memory stays until its
		** copy ends: the GPU joins at a later period, if still needed. */
		if (world_gpu(w, g)->ntenants > 0)
			continue;
		if ((rc = world_pool_join(w, g, &e)) != 0)
			return rc;
		cur++;
	}
	if (!train_pending(w))        /* nothing to fill: keep the GPUs */
		need = cur;
	for (g = n - 1; g >= 0 && cur > need; g--)
		if (world_pool_in(w, g) && world_pool_load(w, g) == 0 &&
		    world_pool_leave(w, g, NULL) == 0)
			cur--;
	return world_set_timer(w, d->period_ns, 0, &e);
}

/* ---- placement ---------------------------------------------------------------- */

/* Training: FIFO, exclusive, on the lowest empty GPUs outside the pool
** (Ray: only its training GPUs, which are outside the pool as well). */
static int place_train(struct world *w, struct dm *d, int j)
{
	const struct world_job *job = world_job(w, j);
	int g, got = 0, rc;

	for (g = 0; g < world_ngpus(w) && got < job->tj.gpus; g++)
		if (!world_pool_in(w, g) && world_gpu(w, g)->ntenants == 0 &&
		    world_job_mem(w, j, g) <= world_gpu_free(w, g, -1))
			d->cand[got++] = g;
	if (got < job->tj.gpus)
		return 0;
	rc = world_place(w, j, d->cand, got, NULL, NULL);
	return rc == SIM_ENOSPC ? 0 : rc;
}

/* MPS: the GPUs with the fewest tenants, then the most free memory. */
static int place_mps(struct world *w, struct dm *d, int j)
{
	const struct world_job *job = world_job(w, j);
	struct world_place_opts o = { 0 };
	int n = world_ngpus(w), got = 0, k, g, rc;

	while (got < job->tj.gpus) {
		int best = -1;
		for (g = 0; g < n; g++) {
			const struct gpu *gp = world_gpu(w, g), *bp;
			for (k = 0; k < got && d->cand[k] != g; k++)
				;
			if (k < got || world_job_mem(w, j, g) >
			    world_gpu_free(w, g, -1))
				continue;
			bp = best >= 0 ? world_gpu(w, best) : NULL;
			if (bp == NULL || gp->ntenants < bp->ntenants ||
			    (gp->ntenants == bp->ntenants &&
			     world_gpu_free(w, g, -1) >
			     world_gpu_free(w, best, -1)))
				best = g;
		}
		if (best < 0)
			return 0;
		d->cand[got++] = best;
	}
	o.sm_cap = job->tj.gpu_share > 0 && job->tj.gpu_share < 1 ?
		job->tj.gpu_share : d->sm_cap;
	rc = world_place(w, j, d->cand, got, &o, NULL);
	return rc == SIM_ENOSPC ? 0 : rc;
}

static int dm_schedule(struct world *w, void *st)
{
	struct dm *d = st;
	int k = 0, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k), before = world_npending(w);
		const struct world_job *job = world_job(w, j);

		if (!world_job_fits_empty(w, j)) {
			world_fail_job(w, j, "larger than any GPU set");
			continue;
		}
		if (d->kind == DM_MPS)
			rc = place_mps(w, d, j);
		else if (job->tj.kind == TRACE_INFER)
			rc = world_pool_serve(w, j, NULL);
		else if (d->kind == DM_RAY && d->train_gpus == 0) {
			world_fail_job(w, j, "distmind-ray: no training GPUs "
				       "(train_gpus = 0)");
			continue;
		} else
			rc = place_train(w, d, j);
		if (rc < 0)
			return rc;
		if (world_npending(w) == before)
			k++;
	}
	return 0;
}

const struct pol_ops pol_distmind = {
	POL_IFACE_VERSION, "distmind",
	"DistMind: GPU pool + memory pool, pipelined loads, cache-aware "
	"balancing, training fills idle GPUs",
	sizeof(struct dm), dm_init, dm_fini, NULL, NULL, dm_on_request,
	dm_on_timer, dm_schedule
};

const struct pol_ops pol_distmind_ray = {
	POL_IFACE_VERSION, "distmind-ray",
	"DistMind's Ray baseline: whole-model loads, no cache awareness",
	sizeof(struct dm), ray_init, dm_fini, NULL, NULL, dm_on_request,
	NULL, dm_schedule
};

const struct pol_ops pol_distmind_mps = {
	POL_IFACE_VERSION, "distmind-mps",
	"DistMind's MPS baseline: every model resident, static placement",
	sizeof(struct dm), mps_init, dm_fini, NULL, NULL, NULL, NULL,
	dm_schedule
};
