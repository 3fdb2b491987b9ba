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
**   (world_svc_window) and reset:
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
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/gslice.h"

#include "models/workload.h"
#include "policies/policy.h"
#include "sim/world/world.h"

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
};

struct gslice {
	double period_ms, step, min_share, knee_tol, init_share;
	double lat_hi, util_target;
	double batch_slo_frac, batch_dec, batch_slack, standby_start_ms;
	int adapt_batch, tune;
	struct gsvc *sv;
	int nsv;
	int timer_armed;
	int *cand;
	double *free_share;       /* per GPU, scratch */
	int *order;               /* scratch */
};

static int gs_init(struct world *w, void *state, const struct pol_params *p,
		   struct sim_err *err)
{
	static const char *const keys[] = { "period_ms", "step_pct",
		"min_pct", "knee_tol", "init_pct", "lat_hi", "util_target",
		"batch_slo_frac", "batch_dec",
		"batch_slack", "standby_start_ms", "adapt_batch", "tune", NULL };
	struct gslice *s = state;
	double step = 10, minp = 10, initp = 0;
	long ab = 1, tune = 1;
	int g, n = world_ngpus(w), rc;

	s->period_ms = 1000;
	s->knee_tol = 0.05;
	s->lat_hi = 1.0;
	s->util_target = 0.8;
	s->batch_slo_frac = 0.5;
	s->batch_dec = 0.5;
	s->batch_slack = 0.8;
	s->standby_start_ms = 1000;
	if ((rc = pol_params_check(p, "gslice", keys, err)) != 0 ||
	    (rc = pol_param_double(p, "period_ms", 1, 3.6e6, &s->period_ms,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "step_pct", 1, 100, &step, err)) != 0 ||
	    (rc = pol_param_double(p, "min_pct", 1, 100, &minp, err)) != 0 ||
	    (rc = pol_param_double(p, "knee_tol", 0, 10, &s->knee_tol,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "init_pct", 0, 100, &initp, err)) != 0 ||
	    (rc = pol_param_double(p, "lat_hi", 0.01, 100, &s->lat_hi,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "util_target", 0.05, 1,
				   &s->util_target, err)) != 0 ||
	    (rc = pol_param_double(p, "batch_slo_frac", 0.01, 1,
				   &s->batch_slo_frac, err)) != 0 ||
	    (rc = pol_param_double(p, "batch_dec", 0.01, 0.99, &s->batch_dec,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "batch_slack", 0, 1, &s->batch_slack,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "standby_start_ms", 0, 3.6e6,
				   &s->standby_start_ms, err)) != 0 ||
	    (rc = pol_param_int(p, "adapt_batch", 0, 1, &ab, err)) != 0 ||
	    (rc = pol_param_int(p, "tune", 0, 1, &tune, err)) != 0)
		return rc;
	if (initp > 0 && initp < minp)
		return sim_err_set(err, SIM_EINVAL, "policy gslice: init_pct "
				   "%g is below min_pct %g", initp, minp);
	s->step = step / 100;
	s->min_share = minp / 100;
	s->init_share = initp / 100;
	s->adapt_batch = (int)ab;
	s->tune = (int)tune;
	s->cand = malloc((size_t)n * sizeof *s->cand);
	s->free_share = malloc((size_t)n * sizeof *s->free_share);
	if (s->cand == NULL || s->free_share == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < n; g++)
		if ((rc = world_set_gpu_mode(w, g, GPU_MODE_MPS, err)) != 0)
			return rc;
	return 0;
}

static void gs_fini(struct world *w, void *state)
{
	struct gslice *s = state;
	int j;

	(void)w;
	for (j = 0; j < s->nsv; j++)
		free(s->sv[j].knee);
	free(s->sv);
	free(s->cand);
	free(s->free_share);
	free(s->order);
}

/* Grows the per-job table to cover job j. */
static int ensure(struct gslice *s, int j)
{
	struct gsvc *p;
	int *o;
	int n;

	if (j < s->nsv)
		return 0;
	n = s->nsv ? 2 * s->nsv : 16;
	while (n <= j)
		n *= 2;
	p = realloc(s->sv, (size_t)n * sizeof *p);
	if (p == NULL)
		return SIM_ENOMEM;
	memset(p + s->nsv, 0, (size_t)(n - s->nsv) * sizeof *p);
	s->sv = p;
	o = realloc(s->order, (size_t)n * sizeof *o);
	if (o == NULL)
		return SIM_ENOMEM;
	s->order = o;
	s->nsv = n;
	return 0;
}

/*
** The knee of `model` at max batch b on device d (MODEL.md "GSLICE"):
** probes the MPS model with the service alone at every whole percentage
** and returns the smallest share whose speed is within knee_tol of the
** speed on the whole GPU.  Pure: a scratch gpu, no world state.
*/
double gslice_knee(const struct zoo_model *model, const struct dev_profile *d,
		   int b, double knee_tol)
{
	struct gpu g;
	struct gpu_tenant t;
	struct gpu_work_profile prof;
	double full, knee = 1.0;
	int pct;

	memset(&t, 0, sizeof t);
	t.sm_cap = 1.0;
	t.slice = -1;
	gpu_init(&g, d, -1, 0, GPU_MODE_MPS, 0);
	if (gpu_attach(&g, &t, 0, 1, NULL) != 0) {
		gpu_fini(&g);
		return 1.0;
	}
	wl_infer_profile(model, d, b, &prof);
	gpu_begin(&g, &t, 1e6, &prof, 0);
	full = t.speed;
	for (pct = 1; pct <= 100; pct++) {
		gpu_set_share(&g, &t, pct / 100.0, 0);
		if (t.speed * (1.0 + knee_tol) >= full) {
			knee = pct / 100.0;
			break;
		}
	}
	gpu_fini(&g);
	return knee;
}

static double knee_at(struct gslice *s, struct world *w, int j, int b)
{
	const struct world_job *job = world_job(w, j);
	struct gsvc *v = &s->sv[j];

	if (b < 1)
		b = 1;
	if (b > v->top)
		b = v->top;
	if (v->knee == NULL || v->knee[b] == 0) {
		const struct gpu *g = world_gpu(w, job->nplaced > 0 ?
						job->gpu_ids[0] : 0);
		double k = gslice_knee(job->model, g->dev, b, s->knee_tol);
		if (v->knee == NULL)
			return k;
		v->knee[b] = k;
	}
	return v->knee[b];
}

/* Share committed on GPU g: services at max(share, target), training and
** anything else at 1.  Returns -1 when a training job holds the GPU. */
static double committed(const struct gslice *s, struct world *w, int g)
{
	const struct gpu *gp = world_gpu(w, g);
	const struct gpu_tenant *t;
	double sum = 0;

	for (t = gp->tenants; t != NULL; t = t->next_) {
		const struct world_job *job = world_job(w, t->id);
		const struct gsvc *v;
		if (job->tj.kind != TRACE_INFER || t->id >= s->nsv)
			return -1;
		v = &s->sv[t->id];
		sum += fmax(v->share, v->target);
	}
	return sum;
}

static int arm(struct gslice *s, struct world *w)
{
	struct sim_err e = { 0, "" };

	if (s->timer_armed || !(s->tune || s->adapt_batch))
		return 0;
	s->timer_armed = 1;
	return world_set_timer(w, (sim_time)(s->period_ms * 1e6), TAG_TUNE,
			       &e);
}

static int place_service(struct gslice *s, struct world *w, int j)
{
	const struct world_job *job = world_job(w, j);
	struct gsvc *v;
	struct world_place_opts o = { 1.0, NULL, 0, 0 };
	struct sim_err e = { 0, "" };
	int n = job->tj.gpus, ng = world_ngpus(w), g, k, m = 0, rc;
	double knee, share = 1.0;

	if ((rc = ensure(s, j)) != 0)
		return rc;
	v = &s->sv[j];
	for (g = 0; g < ng; g++) {
		double c = committed(s, w, g);
		s->free_share[g] = c < 0 ? -1 : 1.0 - c;
		if (c >= 0 &&
		    world_job_mem(w, j, g) <= world_gpu_free(w, g, -1))
			s->cand[m++] = g;
	}
	if (m < n)
		return 0;
	/* most free share first, lowest index on ties (insertion sort) */
	for (k = 1; k < m; k++) {
		int x = s->cand[k], i = k;
		while (i > 0 && s->free_share[s->cand[i - 1]] <
		       s->free_share[x]) {
			s->cand[i] = s->cand[i - 1];
			i--;
		}
		s->cand[i] = x;
	}
	for (k = 0; k < n; k++)
		share = fmin(share, s->free_share[s->cand[k]]);
	v->top = job->tj.batch > 0 ? job->tj.batch : 1;
	knee = gslice_knee(job->model, world_gpu(w, s->cand[0])->dev, v->top,
			   s->knee_tol);
	share = fmin(share, s->init_share > 0 ? s->init_share : knee);
	/* A GPU without min_pct free still takes the service at min_pct: the
	** caps then sum past 100% and MPS shares the SMs (the gpu model's
	** water-filling) until the tuner moves share back. */
	share = fmax(share, fmin(s->min_share, knee));
	share = floor(share * 100 + 1e-6) / 100;   /* whole percent */
	o.sm_cap = share;
	rc = world_place(w, j, s->cand, n, &o, &e);
	if (rc == SIM_ENOSPC)
		return 0;
	if (rc != 0)
		return rc;
	free(v->knee);
	memset(v, 0, sizeof *v);
	v->top = job->tj.batch > 0 ? job->tj.batch : 1;
	v->knee = calloc((size_t)v->top + 1, sizeof *v->knee);
	if (v->knee == NULL)
		return SIM_ENOMEM;
	v->active = 1;
	v->nrep = n;
	v->share = v->target = share;
	v->mem_base = job->tenants[0].mem_bytes;
	{
		const struct dev_profile *d = world_gpu(w, s->cand[0])->dev;
		double wbytes = 2.0 * (double)job->model->params;
		v->standby_bytes = d->ctx_bytes + (uint64_t)wbytes;
		v->switch_ns = (sim_time)(s->standby_start_ms * 1e6 +
					  wbytes / d->h2d_pinned_bytes_per_s *
					  1e9);
	}
	return arm(s, w);
}

static int place_train(struct world *w, struct gslice *s, int j)
{
	const struct world_job *job = world_job(w, j);
	struct sim_err e = { 0, "" };
	int ng = world_ngpus(w), g, m = 0, rc;

	for (g = 0; g < ng && m < job->tj.gpus; g++)
		if (world_gpu(w, g)->ntenants == 0 &&
		    world_job_mem(w, j, g) <= world_gpu_free(w, g, -1))
			s->cand[m++] = g;
	if (m < job->tj.gpus)
		return 0;
	rc = world_place(w, j, s->cand, m, NULL, &e);
	return rc == SIM_ENOSPC ? 0 : rc;
}

static int gs_schedule(struct world *w, void *state)
{
	struct gslice *s = state;
	int k = 0, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k);
		const struct world_job *job = world_job(w, j);

		if (!world_job_fits_empty(w, j)) {
			world_fail_job(w, j, "does not fit on any GPU");
			continue;
		}
		rc = job->tj.kind == TRACE_INFER ? place_service(s, w, j) :
			place_train(w, s, j);
		if (rc != 0)
			return rc;
		if (world_job(w, j)->state == JOB_PENDING ||
		    world_job(w, j)->state == JOB_PREEMPTED)
			k++;
	}
	return 0;
}

static int gs_schedule(struct world *w, void *state);

/* Starts a standby switch of service j to share `to`.  A standby that does
** not fit is refused (counted); the service keeps its share. */
static int start_switch(struct gslice *s, struct world *w, int j, double to)
{
	struct gsvc *v = &s->sv[j];
	struct sim_err e = { 0, "" };
	int rc;

	rc = world_set_mem(w, j, v->mem_base + v->standby_bytes, 0, &e);
	if (rc == SIM_ENOSPC)
		return world_add_metric(w, "gslice_realloc_refused", 1);
	if (rc != 0)
		return rc;
	v->switching = 1;
	v->target = to;
	v->switch_t0 = world_now(w);
	return world_set_timer(w, v->switch_ns, TAG_SWITCH |
			       ((uint64_t)v->gen << 32) | (uint64_t)j, &e);
}

static int account_standby(struct world *w, const struct gsvc *v)
{
	double dt = (double)(world_now(w) - v->switch_t0) / 1e9;
	int n = v->nrep, rc;

	if ((rc = world_add_metric(w, "gslice_standby_gb_s",
				   (double)v->standby_bytes * n * dt /
				   1e9)) != 0)
		return rc;
	return world_add_metric(w, "gslice_switch_s", dt);
}

static int end_switch(struct gslice *s, struct world *w, int j, uint32_t gen)
{
	struct gsvc *v;
	struct sim_err e = { 0, "" };
	int rc;

	if (j >= s->nsv)
		return 0;
	v = &s->sv[j];
	if (!v->active || !v->switching || v->gen != gen)
		return 0;
	if ((rc = world_set_share(w, j, v->target, &e)) != 0 ||
	    (rc = world_set_mem(w, j, v->mem_base, 1, &e)) != 0 ||
	    (rc = account_standby(w, v)) != 0 ||
	    (rc = world_add_metric(w, "gslice_reallocs", 1)) != 0)
		return rc;
	v->share = v->target;
	v->switching = 0;
	/* freed share may let a pending service in */
	return world_npending(w) > 0 ? gs_schedule(w, s) : 0;
}

int gslice_adapt_batch(const struct world_svc_window *wn, double slo_ms,
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

/* Max-min fair water-filling of the wants of the services on GPU g down
** to capacity 1 (their wants are scaled, never raised). */
static void fit_gpu(struct gslice *s, struct world *w, int g, int m)
{
	double left = 1.0, sum = 0;
	int k, unfixed = 0, progress;

	for (k = 0; k < m; k++) {
		const struct world_job *job = world_job(w, s->order[k]);
		if (job->gpu_ids[0] == g) {
			sum += s->sv[s->order[k]].want;
			s->sv[s->order[k]].fixed = 0;
			unfixed++;
		}
	}
	if (sum <= 1.0 + 1e-9)
		return;
	while (unfixed > 0) {
		double level = left / unfixed;
		progress = 0;
		for (k = 0; k < m; k++) {
			struct gsvc *v = &s->sv[s->order[k]];
			if (world_job(w, s->order[k])->gpu_ids[0] != g ||
			    v->fixed || v->want > level)
				continue;
			v->fixed = 1;
			left -= v->want;
			unfixed--;
			progress = 1;
		}
		if (!progress) {
			for (k = 0; k < m; k++) {
				struct gsvc *v = &s->sv[s->order[k]];
				if (world_job(w, s->order[k])->gpu_ids[0] == g &&
				    !v->fixed) {
					v->want = fmax(s->min_share, level);
					v->fixed = 1;
				}
			}
			unfixed = 0;
		}
	}
}

static int tick(struct gslice *s, struct world *w)
{
	struct sim_err e = { 0, "" };
	int nj = world_njobs(w) < s->nsv ? world_njobs(w) : s->nsv;
	int j, k, g, m = 0, rc;

	/* measure, adapt batches, decide wants */
	for (j = 0; j < nj; j++) {
		struct gsvc *v = &s->sv[j];
		const struct world_job *job = world_job(w, j);
		struct world_svc_window wn;
		double slo_ms, util, len_ms, knee, need;
		int starving, b;

		if (!v->active || job->state != JOB_RUNNING)
			continue;
		if ((rc = world_svc_window(w, j, &wn, &e)) != 0)
			return rc;
		if ((rc = world_svc_window_reset(w, j, &e)) != 0)
			return rc;
		len_ms = (double)wn.len_ns / 1e6;
		if (!(len_ms > 0))
			continue;
		slo_ms = job->tj.slo_ns > 0 ? (double)job->tj.slo_ns / 1e6 :
			HUGE_VAL;
		util = wn.exec_sum_ms / (len_ms * (wn.replicas ? wn.replicas : 1));
		starving = wn.served == 0 && wn.queued > 0;
		b = wn.max_batch;
		if (s->adapt_batch) {
			b = gslice_adapt_batch(&wn, slo_ms, v->top,
					       s->batch_dec, s->batch_slack,
					       s->batch_slo_frac);
			if (b != wn.max_batch) {
				if ((rc = world_set_batch(w, j, b, &e)) != 0 ||
				    (rc = world_add_metric(w,
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
		s->order[m++] = j;
	}
	/* services on several GPUs are fitted on their first GPU only; the
	** grant below still respects every GPU's free share */
	for (g = 0; g < world_ngpus(w); g++)
		fit_gpu(s, w, g, m);
	/* dead band: move only by a step or more, or onto a bound */
	for (k = 0; k < m; k++) {
		struct gsvc *v = &s->sv[s->order[k]];
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
		j = s->order[k];
		if (s->sv[j].want < s->sv[j].share - 1e-9 &&
		    (rc = start_switch(s, w, j, s->sv[j].want)) != 0)
			return rc;
	}
	/* increases, most urgent first, within the free share */
	for (k = 1; k < m; k++) {
		int x = s->order[k], i = k;
		while (i > 0 && s->sv[s->order[i - 1]].urgency <
		       s->sv[x].urgency) {
			s->order[i] = s->order[i - 1];
			i--;
		}
		s->order[i] = x;
	}
	for (k = 0; k < m; k++) {
		const struct world_job *job;
		struct gsvc *v;
		double grant;

		j = s->order[k];
		v = &s->sv[j];
		if (!(v->want > v->share + 1e-9) || v->switching)
			continue;
		job = world_job(w, j);
		grant = v->want;
		for (g = 0; g < job->nplaced; g++) {
			double c = committed(s, w, job->gpu_ids[g]);
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
	int j, rc;

	if (tag & TAG_SWITCH)
		return end_switch(s, w, (int)(tag & 0xffffffffu),
				  (uint32_t)((tag >> 32) & 0x7fffffffu));
	s->timer_armed = 0;
	if ((rc = tick(s, w)) != 0)
		return rc;
	for (j = 0; j < s->nsv && j < world_njobs(w); j++)
		if (s->sv[j].active)
			return arm(s, w);
	return 0;
}

static int gs_finish(struct world *w, void *state, int j)
{
	struct gslice *s = state;
	struct gsvc *v;
	int rc = 0;

	if (j >= s->nsv)
		return 0;
	v = &s->sv[j];
	if (v->switching)
		rc = account_standby(w, v);
	v->active = 0;
	v->switching = 0;
	v->gen = (v->gen + 1) & 0x7fffffffu;
	v->share = v->target = 0;
	return rc;
}

const struct pol_ops pol_gslice = {
	POL_IFACE_VERSION,
	"gslice",
	"GSLICE (SoCC'20): MPS shares at the knee, adaptive batching, "
	"self-tuning with standby re-allocation",
	sizeof(struct gslice),
	gs_init,
	gs_fini,
	NULL,
	gs_finish,
	NULL,
	gs_timer,
	gs_schedule
};
