/*
** gslice.c: GSLICE (Dhakal, Kulkarni, Ramakrishnan, SoCC'20) as a policy:
** inference services share GPUs spatially under MPS, each with a
** controlled SM share (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).
**
**   Knee.  A service's share starts at its knee: the smallest whole
**   percentage p whose batch latency L(p) is within `knee_tol` of the
**   latency on the whole GPU, L(p) <= (1 + knee_tol) L(100).  L is probed
**   on the GPU model itself (a scratch MPS gpu with the service alone, its
**   work profile at the current max batch), so the knee follows whatever
**   the MPS model says, never a separate formula.
**   Placement.  A pending service goes to the GPUs (no training job on
**   them) with the most uncommitted share, the sum of committed shares on
**   a GPU never passing 100%; it needs `min_pct` free and takes
**   min(knee, free).  Training jobs take only GPUs no tenant uses (whole
**   GPU) and otherwise wait: inference keeps priority, as in GSLICE,
**   which does not co-locate training.
**   Tuner.  Every `period_ms` each service's measurement window is read
**   (pol_svc_window) and reset:
**   - adaptive batching: p99 > SLO cuts the max batch to
**     floor(batch_dec * b) (>= 1); p99 < batch_slack * SLO with full
**     batches raises it by one; a least-squares line exec(b) = a + c b
**     learned from the window's batches caps b where a + c b <=
**     batch_slo_frac * SLO (a request may wait one batch, then run one);
**   - share: each service wants share * util / util_target, scaled by
**     arrivals / served when it falls behind (util: the fraction of the
**     window its replicas were executing; execution time ~ 1 / share
**     below the knee), at least one `step_pct` more when p99 > lat_hi *
**     SLO or it starves, between `min_pct` and its knee at its current
**     batch.  Wants on a GPU summing past 100% are water-filled (max-min
**     fair) down to 100%.  A move smaller than `step_pct` is skipped
**     unless it lands on the knee or on min_pct (each move costs a
**     standby).  Decreases start first; increases, most urgent (highest
**     p99 / SLO) first, get at most the share left free.
**   Re-allocation.  A share change goes through a standby instance: the
**   service's allocation grows by a second copy of its weights plus a CUDA
**   context for `switch` = standby_start_ms + weights / PCIe h2d; the old
**   instance keeps serving at the old share; at the end the share changes
**   and the extra memory goes (no request is dropped or delayed by the
**   switch).  A change whose standby does not fit in memory is refused
**   and counted.  Metrics: gslice_reallocs, gslice_realloc_refused,
**   gslice_standby_gb_s (standby bytes x seconds / 1e9), gslice_switch_s,
**   gslice_batch_changes.
** Equations, defaults and their sources: docs/MODEL.md, "GSLICE".
**
** Cost per event (P pending jobs, G GPUs, S active services, n GPUs a job,
** D device kinds; log: the free-share index's O(log G) steps):
**   pass                O(changed GPUs x (tenants + log G)) to refresh the
**                       free-share index (the GPUs the world changed since
**                       the last pass), then per pending job: O(D) for its
**                       footprints; a service O(n log G) over the index
**                       (most free share first, searched by free memory);
**                       a training job first fit over the idle GPUs,
**                       O(n log G); O(P) for the walk itself
**   tuner tick          O(S log S) (the active services, sorted; the
**                       water-filling groups services by first GPU with a
**                       sort, O(S log S), and is quadratic only in the
**                       services of one GPU)
**   switch start / end, finish   O(n (tenants + log G))
** Memory: a service's gsvc (~130 B) in a table of GS_CHUNK-job chunks,
** a chunk freed when its services are all done; its knee table freed at
** its finish; the scratch arrays sized to the active services: per job
** it follows the services not done, not the trace.
** Worst cases: many GPUs with the most free share but too little memory
** for the service (the aux search skips subtrees whose least-free-memory
** bound fails, but with several device kinds it bounds by the smallest
** footprint and checks each GPU exactly, so GPUs of a kind that cannot
** hold it are passed one by one); a long queue of services that do not
** fit is tried every pass (O(P n log G) a pass).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/gslice.h"
#include "policies/policy.h"

#define TAG_TUNE   0ULL
#define TAG_SWITCH (1ULL << 63)

struct gsvc {
	int active;               /* placed, not done */
	int switching;            /* a standby switch is in progress */
	uint32_t gen;             /* bumps when a switch is abandoned */
	double share, target;     /* committed share; share after the switch */
	uint64_t mem_base;        /* per-replica allocation without standby */
	uint64_t standby_bytes;   /* extra per replica while switching */
	sim_time switch_ns, switch_t0;
	double *knee;             /* knee share per max batch, lazily; 0 unknown */
	int top;                  /* the trace batch: largest max batch */
	int nrep;                 /* replicas (GPUs) of the service */
	double urgency;           /* this tick: p99 / SLO */
	double want;              /* this tick: wanted share */
	int fixed;                /* this tick: water-filling bookkeeping */
	double knee_now;          /* this tick: knee at the current batch */
	int gpu0;                 /* this tick: its first GPU */
	int pos;                  /* this tick: its position in the tick */
};

/* The gsvc of jobs [k GS_CHUNK, (k + 1) GS_CHUNK), NULL where none. */
#define GS_CHUNK 128
struct gs_chunk {
	int n;                    /* non-NULL entries */
	struct gsvc *v[GS_CHUNK];
};

/* tick order's entry: a service by first GPU, then position */
struct gs_grp {
	int gpu0, pos, j;
};

struct gslice {
	/* parameters (filled by the engine from gs_params) */
	double period_ms, step_pct, min_pct, knee_tol, init_pct;
	double lat_hi, util_target;
	double batch_slo_frac, batch_dec, batch_slack, standby_start_ms;
	int adapt_batch, tune;
	/* derived: the percentages as fractions */
	double step, min_share, init_share;
	struct gs_chunk **ch;     /* the services' gsvc, GS_CHUNK jobs a
				     chunk (freed when none left) */
	int nch;
	int nsv;                  /* the old per-job table's size: jobs
				     below it are known (gs_finish) */
	int cap;                  /* order, grp, act: capacity */
	int timer_armed;
	int *cand;
	double *free_share;       /* per GPU, scratch */
	int *order;               /* scratch */
	struct gs_grp *grp;       /* scratch: order grouped by first GPU */
	int *act;                 /* the active services (act_dirty: unsorted) */
	int nact, act_dirty;
	/* the GPUs a service may use (no training job): by free share, most
	** first, then index; aux -(free bytes).  gh[g]: g's handle or -1;
	** free_share[g] its free share as of its last refresh */
	struct sim_oset fs;
	int *gh;
};

/* Service j's gsvc: NULL when it has none (never placed, or done: as the
** zeroed entry of the per-job table this replaced); an active service's
** is never NULL.  O(1). */
static struct gsvc *sv_of(const struct gslice *s, int j)
{
	const struct gs_chunk *c;

	if (j < 0 || j / GS_CHUNK >= s->nch ||
	    (c = s->ch[j / GS_CHUNK]) == NULL)
		return NULL;
	return c->v[j % GS_CHUNK];
}

/* An active service's gsvc (sv_of without the checks: never NULL). */
static struct gsvc *sv_at(const struct gslice *s, int j)
{
	return s->ch[j / GS_CHUNK]->v[j % GS_CHUNK];
}

/* Service j's gsvc, made zeroed when it has none; NULL: out of memory. */
static struct gsvc *sv_make(struct gslice *s, int j)
{
	struct gs_chunk *c;
	struct gsvc *v;
	int k = j / GS_CHUNK;

	if ((v = sv_of(s, j)) != NULL)
		return v;
	if (k >= s->nch) {
		int n = s->nch ? 2 * s->nch : 16;
		struct gs_chunk **p;
		while (n <= k)
			n *= 2;
		if ((p = realloc(s->ch, (size_t)n * sizeof *p)) == NULL)
			return NULL;
		memset(p + s->nch, 0, (size_t)(n - s->nch) * sizeof *p);
		s->ch = p;
		s->nch = n;
	}
	if (s->ch[k] == NULL && (s->ch[k] = calloc(1, sizeof *c)) == NULL)
		return NULL;
	c = s->ch[k];
	if ((v = calloc(1, sizeof *v)) == NULL)
		return NULL;
	c->v[j % GS_CHUNK] = v;
	c->n++;
	return v;
}

/* Service j done: its gsvc and knee table freed, and its chunk when it
** held no other. */
static void sv_drop(struct gslice *s, int j)
{
	struct gs_chunk *c;
	struct gsvc *v = sv_of(s, j);

	if (v == NULL)
		return;
	c = s->ch[j / GS_CHUNK];
	free(v->knee);
	free(v);
	c->v[j % GS_CHUNK] = NULL;
	if (--c->n == 0) {
		free(c);
		s->ch[j / GS_CHUNK] = NULL;
	}
}

#define GS_PARAM(key, field, lo, hi, def, help) \
	POL_PARAM_DOUBLE(key, struct gslice, field, lo, hi, def, help)

static const struct pol_param_def gs_params[] = {
	GS_PARAM("period_ms", period_ms, 1, 3.6e6, "1000",
		 "tuner period, ms"),
	GS_PARAM("step_pct", step_pct, 1, 100, "10",
		 "least share move, percent"),
	GS_PARAM("min_pct", min_pct, 1, 100, "10",
		 "least share of a service, percent"),
	GS_PARAM("knee_tol", knee_tol, 0, 10, "0.05",
		 "knee: batch latency within this fraction of the whole GPU's"),
	GS_PARAM("init_pct", init_pct, 0, 100, "0",
		 "first share, percent (0: the knee; else >= min_pct)"),
	GS_PARAM("lat_hi", lat_hi, 0.01, 100, "1",
		 "p99 over lat_hi x SLO asks for one step more"),
	GS_PARAM("util_target", util_target, 0.05, 1, "0.8",
		 "busy fraction the share controller aims at"),
	GS_PARAM("batch_slo_frac", batch_slo_frac, 0.01, 1, "0.5",
		 "learned cap: batch time at most this fraction of the SLO"),
	GS_PARAM("batch_dec", batch_dec, 0.01, 0.99, "0.5",
		 "over the SLO without a backlog: batch x this"),
	GS_PARAM("batch_slack", batch_slack, 0, 1, "0.8",
		 "under batch_slack x SLO with full batches: batch + 1"),
	GS_PARAM("standby_start_ms", standby_start_ms, 0, 3.6e6, "1000",
		 "standby instance start-up, ms (plus weights over PCIe)"),
	POL_PARAM_BOOL("adapt_batch", struct gslice, adapt_batch, "1",
		       "adaptive batching on"),
	POL_PARAM_BOOL("tune", struct gslice, tune, "1",
		       "share controller on"),
	POL_PARAM_END
};

/* Share committed on GPU g: services at max(share, target), training and
** anything else at 1.  Returns -1 when a training job holds the GPU. */
static double committed(const struct gslice *s, struct world *w, int g)
{
	struct pol_tenant_walk it = pol_tenants(w, g);
	struct pol_tenant_info t;
	double sum = 0;

	while (pol_tenant_next(w, &it, &t)) {
		const struct gsvc *v;
		if (pol_job(w, t.job).kind != POL_INFER || t.job >= s->nsv)
			return -1;
		if ((v = sv_of(s, t.job)) != NULL)  /* NULL: done, share 0 */
			sum += fmax(v->share, v->target);
	}
	return sum;
}

/*
** Refreshes GPU g's entry in the free-share index from its tenants and
** memory now: in it when no training job holds it, keyed so that the
** index's order is the scan's (most free share first, lowest index on
** ties: the same doubles, computed the same way).
*/
static int refresh(struct gslice *s, struct world *w, int g)
{
	double c = committed(s, w, g);
	uint64_t fr = pol_gpu_free(w, g, -1);
	int64_t aux = fr > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)fr;
	int64_t k1;
	int h;

	if (c < 0) {
		if (s->gh[g] >= 0)
			sim_oset_remove(&s->fs, s->gh[g]);
		s->gh[g] = -1;
		return 0;
	}
	s->free_share[g] = 1.0 - c;
	k1 = -sim_oset_dkey(s->free_share[g]);
	if (s->gh[g] >= 0) {
		sim_oset_update(&s->fs, s->gh[g], k1, 0, aux);
		return 0;
	}
	if ((h = sim_oset_insert(&s->fs, k1, 0, g, aux)) < 0)
		return h;
	s->gh[g] = h;
	return 0;
}

/* Refreshes the GPUs of job j, and those the world changed. */
static int refresh_job(struct gslice *s, struct world *w, int j)
{
	int k, n = pol_job(w, j).nplaced, rc;

	for (k = 0; k < n; k++)
		if ((rc = refresh(s, w, pol_job_tenant(w, j, k).gpu)) != 0)
			return rc;
	return 0;
}

static int refresh_changed(struct gslice *s, struct world *w)
{
	int k, n = pol_nchanged(w), rc;

	for (k = 0; k < n; k++)
		if ((rc = refresh(s, w, pol_changed_at(w, k))) != 0)
			return rc;
	return 0;
}

static int gs_init(struct world *w, void *state, const struct pol_params *p,
		   struct sim_err *err)
{
	struct gslice *s = state;
	int g, n = pol_ngpus(w), rc;

	if (s->init_pct > 0 && s->init_pct < s->min_pct)
		return sim_err_set(err, SIM_EINVAL, "%s: policy gslice: "
				   "init_pct %g is below min_pct %g",
				   pol_param_origin(p, "init_pct"),
				   s->init_pct, s->min_pct);
	s->step = s->step_pct / 100;
	s->min_share = s->min_pct / 100;
	s->init_share = s->init_pct / 100;
	s->cand = malloc((size_t)n * sizeof *s->cand);
	s->free_share = malloc((size_t)n * sizeof *s->free_share);
	s->gh = malloc((size_t)n * sizeof *s->gh);
	sim_oset_init(&s->fs);
	if (s->cand == NULL || s->free_share == NULL || s->gh == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < n; g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS, err)) != 0)
			return rc;
	for (g = 0; g < n; g++)
		s->gh[g] = -1;
	for (g = 0; g < n; g++)
		if ((rc = refresh(s, w, g)) != 0)
			return sim_err_set(err, rc, "out of memory");
	return 0;
}

static void gs_fini(struct world *w, void *state)
{
	struct gslice *s = state;
	int k;

	(void)w;
	for (k = 0; k < s->nch; k++) {  /* the services not done */
		int i;
		for (i = 0; s->ch[k] != NULL && i < GS_CHUNK; i++)
			if (s->ch[k]->v[i] != NULL) {
				free(s->ch[k]->v[i]->knee);
				free(s->ch[k]->v[i]);
			}
		free(s->ch[k]);
	}
	free(s->ch);
	free(s->cand);
	free(s->free_share);
	free(s->order);
	free(s->grp);
	free(s->act);
	free(s->gh);
	sim_oset_fini(&s->fs);
}

/* Service j is about to be placed: nsv covers it (doubling from 16, the
** size the per-job table had, which decides what gs_finish refreshes),
** and the active services' arrays have room for one more. */
static int ensure(struct gslice *s, int j)
{
	struct gs_grp *gp;
	int *o;
	int n;

	if (j >= s->nsv) {
		n = s->nsv ? 2 * s->nsv : 16;
		while (n <= j)
			n *= 2;
		s->nsv = n;
	}
	if (s->nact < s->cap)
		return 0;
	n = s->cap ? 2 * s->cap : 16;
	if ((o = realloc(s->order, (size_t)n * sizeof *o)) == NULL)
		return SIM_ENOMEM;
	s->order = o;
	if ((gp = realloc(s->grp, (size_t)n * sizeof *gp)) == NULL)
		return SIM_ENOMEM;
	s->grp = gp;
	if ((o = realloc(s->act, (size_t)n * sizeof *o)) == NULL)
		return SIM_ENOMEM;
	s->act = o;
	s->cap = n;
	return 0;
}

double gslice_knee_of(const double *speed, double knee_tol)
{
	int pct;

	for (pct = 1; pct <= 100; pct++)
		if (speed[pct] * (1.0 + knee_tol) >= speed[0])
			return pct / 100.0;
	return 1.0;
}

/*
** The knee of service j at max batch b on GPU g's device (MODEL.md
** "GSLICE"): the MPS model probed with the service alone at every whole
** percentage (pol_probe_mps); 1 when it does not fit alone.
*/
static double knee_on(const struct world *w, int j, int g, int b,
		      double knee_tol)
{
	double speed[101];

	if (pol_probe_mps(w, j, g, b, 100, speed) != 0)
		return 1.0;
	return gslice_knee_of(speed, knee_tol);
}

static double knee_at(struct gslice *s, struct world *w, int j, int b)
{
	struct gsvc *v = sv_at(s, j);

	if (b < 1)
		b = 1;
	if (b > v->top)
		b = v->top;
	if (v->knee == NULL || v->knee[b] == 0) {
		int g = pol_job(w, j).nplaced > 0 ?
			pol_job_tenant(w, j, 0).gpu : 0;
		double k = knee_on(w, j, g, b, s->knee_tol);
		if (v->knee == NULL)
			return k;
		v->knee[b] = k;
	}
	return v->knee[b];
}

static int arm(struct gslice *s, struct world *w)
{
	struct sim_err e = { 0, "" };

	if (s->timer_armed || !(s->tune || s->adapt_batch))
		return 0;
	s->timer_armed = 1;
	return pol_set_timer(w, (sim_time)(s->period_ms * 1e6), TAG_TUNE, &e);
}

/* Takes service j off the active list (O(active services)). */
static void act_remove(struct gslice *s, int j)
{
	int i;

	for (i = 0; i < s->nact && s->act[i] != j; i++)
		;
	if (i == s->nact)
		return;
	s->act[i] = s->act[--s->nact];
	if (i < s->nact)
		s->act_dirty = 1;
}

/* Job j's smallest footprint over the device kinds. */
static uint64_t min_mem(const struct world *w, int j)
{
	uint64_t lo = UINT64_MAX;
	int d;

	for (d = 0; d < pol_ndevs(w); d++) {
		uint64_t m = pol_job_mem(w, j, pol_dev(w, d).gpu);
		if (m < lo)
			lo = m;
	}
	return lo;
}

static int place_service(struct gslice *s, struct world *w, int j)
{
	struct pol_job_info job = pol_job(w, j);
	struct gsvc *v;
	struct pol_place_opts o = { .sm_cap = 1.0 };
	struct sim_err e = { 0, "" };
	int n = job.gpus, g, k, m = 0, rc, h;
	int top = job.batch > 0 ? job.batch : 1;
	double knee, share = 1.0;
	uint64_t lo;
	int64_t bound;

	if ((rc = ensure(s, j)) != 0)
		return rc;
	/* the first n GPUs of the free-share index (most free share first,
	** lowest index on ties) that hold its footprint: aux bounds the
	** search by the smallest footprint over the device kinds */
	lo = min_mem(w, j);
	bound = lo > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)lo;
	h = sim_oset_first_aux_le(&s->fs, INT64_MIN, INT64_MIN, INT32_MIN,
				  bound);
	while (h >= 0 && m < n) {
		g = sim_oset_id(&s->fs, h);
		if (pol_job_mem(w, j, g) <= pol_gpu_free(w, g, -1))
			s->cand[m++] = g;
		h = sim_oset_first_aux_le(&s->fs, sim_oset_k1(&s->fs, h),
					  sim_oset_k2(&s->fs, h), g + 1, bound);
	}
	if (m < n)
		return 0;
	for (k = 0; k < n; k++)
		share = fmin(share, s->free_share[s->cand[k]]);
	knee = knee_on(w, j, s->cand[0], top, s->knee_tol);
	share = fmin(share, s->init_share > 0 ? s->init_share : knee);
	/* A GPU without min_pct free still takes the service at min_pct: the
	** caps then sum past 100% and MPS shares the SMs (the gpu model's
	** water-filling) until the tuner moves share back. */
	share = fmax(share, fmin(s->min_share, knee));
	share = floor(share * 100 + 1e-6) / 100;   /* whole percent */
	o.sm_cap = share;
	rc = pol_place(w, j, s->cand, n, &o, &e);
	if (rc == SIM_ENOSPC)
		return 0;
	if (rc != 0)
		return rc;
	if ((v = sv_make(s, j)) == NULL)
		return SIM_ENOMEM;
	if (v->active)
		act_remove(s, j);
	free(v->knee);
	memset(v, 0, sizeof *v);
	v->top = top;
	v->knee = calloc((size_t)v->top + 1, sizeof *v->knee);
	if (v->knee == NULL)
		return SIM_ENOMEM;
	v->active = 1;
	s->act[s->nact++] = j;
	if (s->nact > 1 && s->act[s->nact - 2] > j)
		s->act_dirty = 1;
	v->nrep = n;
	v->share = v->target = share;
	v->mem_base = pol_job(w, j).alloc_bytes;
	{
		struct pol_dev_info d = pol_dev(w, pol_gpu(w, s->cand[0]).dev);
		double wbytes = 2.0 * (double)job.model_params;
		v->standby_bytes = d.ctx_bytes + (uint64_t)wbytes;
		v->switch_ns = (sim_time)(s->standby_start_ms * 1e6 +
					  wbytes / d.h2d_bytes_per_s * 1e9);
	}
	if ((rc = refresh_job(s, w, j)) != 0)
		return rc;
	return arm(s, w);
}

static int place_train(struct world *w, struct gslice *s, int j)
{
	int need = pol_job(w, j).gpus, g = -1, m = 0, rc;
	uint64_t lo = min_mem(w, j);
	struct sim_err e = { 0, "" };

	/* the lowest-index idle GPUs that hold it (first fit over the idle
	** GPUs' free memory, from the smallest footprint over the kinds) */
	while (m < need && (g = pol_gpu_next_fit(w, g + 1, lo,
						  POL_FIT_IDLE)) >= 0)
		if (pol_gpu_ntenants(w, g) == 0 &&
		    pol_job_mem(w, j, g) <= pol_gpu_free(w, g, -1))
			s->cand[m++] = g;
	if (m < need)
		return 0;
	rc = pol_place(w, j, s->cand, m, NULL, &e);
	if (rc == SIM_ENOSPC)
		return 0;
	return rc != 0 ? rc : refresh_job(s, w, j);
}

static int gs_schedule(struct world *w, void *state)
{
	struct gslice *s = state;
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j, rc;

	if ((rc = refresh_changed(s, w)) != 0)
		return rc;
	while ((j = pol_pending_next(w, &it)) >= 0) {
		if (!pol_job_fits_empty(w, j)) {
			pol_fail_job(w, j, "does not fit on any GPU");
			continue;
		}
		rc = pol_job(w, j).kind == POL_INFER ?
			place_service(s, w, j) : place_train(w, s, j);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Starts a standby switch of service j to share `to`.  A standby that does
** not fit is refused (counted); the service keeps its share. */
static int start_switch(struct gslice *s, struct world *w, int j, double to)
{
	struct gsvc *v = sv_at(s, j);
	struct sim_err e = { 0, "" };
	int rc;

	rc = pol_set_mem(w, j, v->mem_base + v->standby_bytes, 0, &e);
	if (rc == SIM_ENOSPC)
		return pol_add_metric(w, "gslice_realloc_refused", 1);
	if (rc != 0)
		return rc;
	v->switching = 1;
	v->target = to;
	v->switch_t0 = pol_now(w);
	if ((rc = refresh_job(s, w, j)) != 0)
		return rc;
	return pol_set_timer(w, v->switch_ns, TAG_SWITCH |
			       ((uint64_t)v->gen << 32) | (uint64_t)j, &e);
}

static int account_standby(struct world *w, const struct gsvc *v)
{
	double dt = (double)(pol_now(w) - v->switch_t0) / 1e9;
	int n = v->nrep, rc;

	if ((rc = pol_add_metric(w, "gslice_standby_gb_s",
				   (double)v->standby_bytes * n * dt /
				   1e9)) != 0)
		return rc;
	return pol_add_metric(w, "gslice_switch_s", dt);
}

static int end_switch(struct gslice *s, struct world *w, int j, uint32_t gen)
{
	struct gsvc *v;
	struct sim_err e = { 0, "" };
	int rc;

	if (j >= s->nsv || (v = sv_of(s, j)) == NULL)
		return 0;             /* done (or never placed) */
	if (!v->active || !v->switching || v->gen != gen)
		return 0;
	if ((rc = pol_set_share(w, j, v->target, &e)) != 0 ||
	    (rc = pol_set_mem(w, j, v->mem_base, 1, &e)) != 0 ||
	    (rc = account_standby(w, v)) != 0 ||
	    (rc = pol_add_metric(w, "gslice_reallocs", 1)) != 0)
		return rc;
	v->share = v->target;
	v->switching = 0;
	if ((rc = refresh_job(s, w, j)) != 0)
		return rc;
	/* freed share may let a pending service in */
	return pol_npending(w) > 0 ? gs_schedule(w, s) : 0;
}

int gslice_adapt_batch(const struct pol_svc_window *wn, double slo_ms,
		       int top, double batch_dec, double batch_slack,
		       double batch_slo_frac)
{
	int b = wn->max_batch;
	double n = (double)wn->batches;
	int backlog = wn->queued > (uint64_t)(b * (wn->replicas ? wn->replicas :
						   1)) ||
		(double)wn->arrivals > 1.05 * (double)wn->served;

	if (wn->served > 0 && wn->lat_p99_ms > slo_ms) {
		/* over the SLO: a backlog needs throughput (a larger
		** batch); otherwise the batch itself is too slow */
		b = backlog ? b + 1 : (int)floor(batch_dec * b);
	} else if (wn->served > 0 && wn->lat_p99_ms < batch_slack * slo_ms &&
		   n > 0 && wn->batch_sum / n >= 0.9 * wn->max_batch) {
		b++;
	}
	/* self-learned cap: exec(b) = a + c b from this window's batches */
	if (n >= 2) {
		double den = n * wn->batch_sum2 - wn->batch_sum * wn->batch_sum;
		if (den > 1e-9 * n * wn->batch_sum2) {
			double c = (n * wn->bexec_sum_ms -
				    wn->batch_sum * wn->exec_sum_ms) / den;
			double a = (wn->exec_sum_ms - c * wn->batch_sum) / n;
			if (c > 0) {
				double cap = floor((batch_slo_frac * slo_ms -
						    a) / c);
				if (cap < b)
					b = (int)fmax(1.0, cap);
			}
		}
	}
	return b < 1 ? 1 : b > top ? top : b;
}

/* Max-min fair water-filling of the wants of the services grp[0..n) (one
** GPU's, in tick order) down to capacity 1 (their wants are scaled, never
** raised). */
static void fit_gpu(struct gslice *s, const struct gs_grp *grp, int n)
{
	double left = 1.0, sum = 0;
	int k, unfixed = 0, progress;

	for (k = 0; k < n; k++) {
		sum += sv_at(s, grp[k].j)->want;
		sv_at(s, grp[k].j)->fixed = 0;
		unfixed++;
	}
	if (sum <= 1.0 + 1e-9)
		return;
	while (unfixed > 0) {
		double level = left / unfixed;
		progress = 0;
		for (k = 0; k < n; k++) {
			struct gsvc *v = sv_at(s, grp[k].j);
			if (v->fixed || v->want > level)
				continue;
			v->fixed = 1;
			left -= v->want;
			unfixed--;
			progress = 1;
		}
		if (!progress) {
			for (k = 0; k < n; k++) {
				struct gsvc *v = sv_at(s, grp[k].j);
				if (!v->fixed) {
					v->want = fmax(s->min_share, level);
					v->fixed = 1;
				}
			}
			unfixed = 0;
		}
	}
}

/* tick order: by first GPU, then by position in the tick (stable) */
static int by_gpu0(const void *a, const void *b)
{
	const struct gs_grp *x = a, *y = b;

	if (x->gpu0 != y->gpu0)
		return x->gpu0 < y->gpu0 ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static int tick(struct gslice *s, struct world *w)
{
	struct sim_err e = { 0, "" };
	int i, j, k, g, m = 0, rc;

	/* the active services in id order (the order of a walk over every
	** job): only they are visited */
	if (s->act_dirty) {
		qsort(s->act, (size_t)s->nact, sizeof *s->act, by_id);
		s->act_dirty = 0;
	}
	/* measure, adapt batches, decide wants */
	for (i = 0; i < s->nact; i++) {
		struct gsvc *v;
		struct pol_job_info job;
		struct pol_svc_window wn;
		double slo_ms, util, len_ms, knee, need;
		int starving, b;

		j = s->act[i];
		v = sv_at(s, j);
		job = pol_job(w, j);
		if (job.state != POL_JOB_RUNNING)
			continue;
		if ((rc = pol_svc_window(w, j, &wn, &e)) != 0)
			return rc;
		if ((rc = pol_svc_window_reset(w, j, &e)) != 0)
			return rc;
		len_ms = (double)wn.len_ns / 1e6;
		if (!(len_ms > 0))
			continue;
		slo_ms = job.slo_ns > 0 ? (double)job.slo_ns / 1e6 :
			HUGE_VAL;
		util = wn.exec_sum_ms / (len_ms * (wn.replicas ? wn.replicas : 1));
		starving = wn.served == 0 && wn.queued > 0;
		b = wn.max_batch;
		if (s->adapt_batch) {
			b = gslice_adapt_batch(&wn, slo_ms, v->top,
					       s->batch_dec, s->batch_slack,
					       s->batch_slo_frac);
			if (b != wn.max_batch) {
				if ((rc = pol_set_batch(w, j, b, &e)) != 0 ||
				    (rc = pol_add_metric(w,
					"gslice_batch_changes", 1)) != 0)
					return rc;
			}
		}
		v->urgency = starving ? HUGE_VAL : wn.lat_p99_ms / slo_ms;
		v->want = v->share;
		if (!s->tune || v->switching)
			continue;
		/* the share that would keep it busy util_target of the time
		** (execution time ~ 1 / share below the knee), one step more
		** when it misses its SLO or starves */
		knee = knee_at(s, w, j, b);
		v->knee_now = knee;
		need = v->share * util / s->util_target;
		if (wn.served > 0 && wn.arrivals > wn.served)
			need *= (double)wn.arrivals / (double)wn.served;
		if (starving || wn.lat_p99_ms > s->lat_hi * slo_ms)
			need = fmax(need, v->share + s->step);
		v->want = fmin(fmax(need, s->min_share), knee);
		v->want = ceil(v->want * 100 - 1e-6) / 100;
		v->gpu0 = pol_job_tenant(w, j, 0).gpu;
		v->pos = m;
		s->order[m++] = j;
	}
	/* services on several GPUs are fitted on their first GPU only; the
	** grant below still respects every GPU's free share.  Each GPU's
	** services, in tick order: grouped by a sort, not a walk over every
	** GPU. */
	for (k = 0; k < m; k++) {
		const struct gsvc *v = sv_at(s, s->order[k]);
		s->grp[k] = (struct gs_grp){ .gpu0 = v->gpu0, .pos = v->pos,
					     .j = s->order[k] };
	}
	qsort(s->grp, (size_t)m, sizeof *s->grp, by_gpu0);
	for (i = 0; i < m; i = k) {
		g = s->grp[i].gpu0;
		for (k = i + 1; k < m && s->grp[k].gpu0 == g; k++)
			;
		fit_gpu(s, s->grp + i, k - i);
	}
	/* dead band: move only by a step or more, or onto a bound */
	for (k = 0; k < m; k++) {
		struct gsvc *v = sv_at(s, s->order[k]);
		double kn = v->knee_now;
		double d = fabs(v->want - v->share);
		v->want = floor(v->want * 100 + 1e-6) / 100;
		if (d < 1e-9 || (d + 1e-9 < s->step &&
				 fabs(v->want - kn) > 1e-9 &&
				 fabs(v->want - s->min_share) > 1e-9))
			v->want = v->share;
	}
	/* decreases first: their share frees when their switch ends */
	for (k = 0; k < m; k++) {
		const struct gsvc *v;
		j = s->order[k];
		v = sv_at(s, j);
		if (v->want < v->share - 1e-9 &&
		    (rc = start_switch(s, w, j, v->want)) != 0)
			return rc;
	}
	/* increases, most urgent first, within the free share */
	for (k = 1; k < m; k++) {
		int x = s->order[k], at = k;
		while (at > 0 && sv_at(s, s->order[at - 1])->urgency <
		       sv_at(s, x)->urgency) {
			s->order[at] = s->order[at - 1];
			at--;
		}
		s->order[at] = x;
	}
	for (k = 0; k < m; k++) {
		struct gsvc *v;
		double grant;
		int n;

		j = s->order[k];
		v = sv_at(s, j);
		if (!(v->want > v->share + 1e-9) || v->switching)
			continue;
		n = pol_job(w, j).nplaced;
		grant = v->want;
		for (g = 0; g < n; g++) {
			double c = committed(s, w, pol_job_tenant(w, j, g).gpu);
			grant = fmin(grant, v->share + (1.0 - c));
		}
		grant = floor(grant * 100 + 1e-6) / 100;
		if (grant > v->share + 1e-9 &&
		    (rc = start_switch(s, w, j, grant)) != 0)
			return rc;
	}
	return 0;
}

static int gs_timer(struct world *w, void *state, uint64_t tag)
{
	struct gslice *s = state;
	int rc;

	if (tag & TAG_SWITCH)
		return end_switch(s, w, (int)(tag & 0xffffffffu),
				  (uint32_t)((tag >> 32) & 0x7fffffffu));
	s->timer_armed = 0;
	if ((rc = tick(s, w)) != 0)
		return rc;
	return s->nact > 0 ? arm(s, w) : 0;
}

static int gs_finish(struct world *w, void *state, int j)
{
	struct gslice *s = state;
	struct gsvc *v;
	int rc = 0;

	if (j >= s->nsv)
		return 0;
	/* none: never placed (the old table's zeroed entry) */
	if ((v = sv_of(s, j)) != NULL) {
		if (v->switching)
			rc = account_standby(w, v);
		if (v->active)
			act_remove(s, j);
		sv_drop(s, j);        /* what is left reads as share 0 */
	}
	return rc != 0 ? rc : refresh_job(s, w, j);
}

int gslice_index_check(struct world *w, const void *state)
{
	const struct gslice *s = state;
	int g;

	for (g = 0; g < pol_ngpus(w); g++) {
		double c = committed(s, w, g);
		uint64_t fr = pol_gpu_free(w, g, -1);
		int h = s->gh[g];
		if ((c < 0) != (h < 0))
			return g;
		if (h >= 0 && (s->free_share[g] != 1.0 - c ||
			       sim_oset_id(&s->fs, h) != g ||
			       sim_oset_k1(&s->fs, h) !=
			       -sim_oset_dkey(1.0 - c) ||
			       sim_oset_aux(&s->fs, h) != -(int64_t)fr))
			return g;
	}
	return -1;
}

const struct pol_ops pol_gslice = {
	.iVersion = 2,                 /* written for version 2 */
	.zName = "gslice",
	.zDesc = "GSLICE (SoCC'20): MPS shares at the knee, adaptive "
		 "batching, self-tuning with standby re-allocation",
	.szState = sizeof(struct gslice),
	.aParam = gs_params,
	.xInit = gs_init,
	.xFini = gs_fini,
	.xOnFinish = gs_finish,
	.xOnTimer = gs_timer,
	.xSchedule = gs_schedule
};
