/*
** colti.c: COLTI (HPDC'23) as a policy: co-locate pending jobs on GPUs whose
** compute the resident jobs leave idle.
**
** Each pass walks the pending jobs in FIFO order.  A job first takes GPUs
** that are empty.  Failing that, it is co-located on GPUs (a multi-GPU job
** on empty ones first, then on shared ones) that (a) hold
** fewer than `max_tenants` jobs, (b) have idle compute for it: its SM
** demand plus the residents' is at most `sm_threshold` (default 1: the
** whole GPU; a training job's demand is the `sat` of its work profile
** times its duty cycle, the GPU-busy fraction of its iterations (with
** `duty = 0`, its `sat` alone, as before duty cycles); a service's is its
** `sat` times its expected busy fraction), and (c) have memory for it, by one of two rules:
**   fit   (1): its peak footprint fits in the free HBM, `headroom` kept;
**   share (2): it fits against the residents' troughs: its peak plus their
**         troughs fit.  Their peaks may then overlap; the overlap is paid
**         through the memory model: the co-located job is given its
**         time-averaged footprint (trough + peak_frac (peak - trough)) as
**         its allocation, with oversubscription allowed, so any excess over
**         capacity is paged at the device's unified-memory rate.
** The resident keeps priority: under `mode = mps` a co-located job gets the
** SM share the residents leave, 1 - (their demand), at least `min_share`; when it
** is left alone on its GPUs it gets the whole GPU back.  Under `mode =
** timeslice` the driver shares time equally (no priority: a known limit).
** Equations and limits: docs/MODEL.md, "COLTI".
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

/* A job's pol_job_priv: its profile's SM saturation on device kind
** dev1 - 1 (a profile walks the model's layers; residents asks per pass),
** freed with the job's record; dev1 0: none yet. */
struct colti_job {
	double sat;
	int dev1;
};

struct colti {
	enum pol_gpu_mode mode;
	/* parameters (filled by the engine from colti_params) */
	int mode_idx;             /* mode_names */
	double headroom, sm_threshold, min_share;
	int max_tenants;
	int use_fit, use_share;
	int use_duty;
	int *cand;
	/* The GPUs that could take one more job besides empty ones: fewer
	** than max_tenants tenants, not empty, residents' SM demand at most
	** sm_threshold ("open"), in two ordered sets: by that demand (a
	** necessary condition for placing job j on n GPUs is nempty +
	** #{open demand <= threshold - demand(j)} >= n) and by index (aux:
	** minus free memory), kept from the world's changed GPUs
	** (pol_changed_at) rather than rebuilt per pass. */
	struct sim_oset by_sat, by_gpu;
	int *h_sat, *h_gpu;           /* per GPU: its handles, -1 not open */
	double *gsat;                 /* per GPU: residents' demand */
	int all_stale;                /* take every GPU in (first pass) */
};

static const char *const mode_names[] = { "timeslice", "mps", NULL };

static const struct pol_param_def colti_params[] = {
	POL_PARAM_CHOICE("mode", struct colti, mode_idx, mode_names, "mps",
			 "sharing mode of every GPU"),
	POL_PARAM_DOUBLE("headroom", struct colti, headroom, 0, 0.5, "0.05",
			 "fraction of each GPU's memory kept free"),
	POL_PARAM_DOUBLE("sm_threshold", struct colti, sm_threshold, 0, 2,
			 "1", "most SM demand (sum of demands) on a shared GPU"),
	POL_PARAM_BOOL("duty", struct colti, use_duty, "1",
		       "a training job's SM demand is sat x duty cycle (0: sat)"),
	POL_PARAM_DOUBLE("min_share", struct colti, min_share, 0.01, 1, "0.1",
			 "least MPS share of a co-located job"),
	POL_PARAM_INT("max_tenants", struct colti, max_tenants, 1, 16, "2",
		      "most jobs on one GPU"),
	POL_PARAM_BOOL("fit", struct colti, use_fit, "1",
		       "rule 1: co-locate when the peak fits in free memory"),
	POL_PARAM_BOOL("share", struct colti, use_share, "1",
		       "rule 2: co-locate against the residents' troughs"),
	POL_PARAM_END
};

static int colti_init(struct world *w, void *state,
		      const struct pol_params *p, struct sim_err *err)
{
	struct colti *c = state;
	int g, rc;

	(void)p;
	c->mode = c->mode_idx == 0 ? POL_GPU_TIMESLICE : POL_GPU_MPS;
	c->cand = malloc((size_t)pol_ngpus(w) * sizeof *c->cand);
	c->h_sat = malloc((size_t)pol_ngpus(w) * sizeof *c->h_sat);
	c->h_gpu = malloc((size_t)pol_ngpus(w) * sizeof *c->h_gpu);
	c->gsat = calloc((size_t)pol_ngpus(w), sizeof *c->gsat);
	sim_oset_init(&c->by_sat);
	sim_oset_init(&c->by_gpu);
	if (c->cand == NULL || c->h_sat == NULL || c->h_gpu == NULL ||
	    c->gsat == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < pol_ngpus(w); g++)
		c->h_sat[g] = c->h_gpu[g] = -1;
	c->all_stale = 1;
	for (g = 0; g < pol_ngpus(w); g++)
		if ((rc = pol_set_gpu_mode(w, g, c->mode, err)) != 0)
			return rc;
	return 0;
}

static void colti_fini(struct world *w, void *state)
{
	struct colti *c = state;
	(void)w;
	free(c->cand);
	free(c->h_sat);
	free(c->h_gpu);
	free(c->gsat);
	sim_oset_fini(&c->by_sat);
	sim_oset_fini(&c->by_gpu);
}

/*
** The SM demand of job j on device kind d, cached per job: a training
** job's work-profile saturation times its duty cycle (the GPU is busy with
** it that fraction of the time; with c->use_duty 0, the saturation alone,
** as if it computed all the time); a service's
** saturation at its max batch times its expected busy fraction,
** min(1, rate L(b) / b) for Poisson arrivals at `rate` (unknown rates count
** as fully busy).  docs/MODEL.md, "COLTI".
*/
static double sm_demand(const struct world *w, const struct colti *c, int j,
			int d)
{
	struct pol_job_info job = pol_job(w, j);
	int g = pol_dev(w, d).gpu;
	struct pol_work_profile prof = pol_job_profile(w, j, g);
	double sat = prof.sat, busy = 1.0;

	if (job.kind == POL_TRAIN)
		return c->use_duty ? sat * prof.duty : sat;
	if (job.poisson && job.rate_per_s > 0) {
		double l_s = sim_time_to_s(pol_job_unit_ns(w, j, g));
		busy = job.rate_per_s * l_s / job.batch;
		if (busy > 1.0)
			busy = 1.0;
	}
	return sat * busy;
}

static double job_sat(struct world *w, struct colti *c, int j, int d)
{
	struct colti_job *x = pol_job_priv(w, j);
	double v;

	if (x != NULL && x->dev1 == d + 1)
		return x->sat;
	v = sm_demand(w, c, j, d);
	if (x != NULL) {                /* NULL: out of memory, uncached */
		x->dev1 = d + 1;
		x->sat = v;
	}
	return v;
}

/* Sum of the residents' SM demand and memory troughs on GPU g. */
static void residents(struct world *w, struct colti *c, int g, double *sat,
		      uint64_t *trough)
{
	struct pol_tenant_walk it = pol_tenants(w, g);
	struct pol_tenant_info t;
	int d = pol_gpu_dev(w, g);

	*sat = 0;
	*trough = 0;
	while (pol_tenant_next(w, &it, &t)) {
		uint64_t tr = pol_job_footprint(w, t.job, g).trough_bytes;
		*sat += job_sat(w, c, t.job, d);
		*trough += t.mem_bytes < tr ? t.mem_bytes : tr;
	}
}

/* How job j may go on GPU g: 0 no, 1 alone (empty GPU), 2 fit, 3 share. */
static int gpu_rule(struct world *w, struct colti *c, int j, int g)
{
	struct pol_gpu_info gp = pol_gpu(w, g);
	struct pol_footprint fp = pol_job_footprint(w, j, g);
	double cap = (double)gp.hbm_bytes, sat;
	uint64_t rtrough;

	if (gp.ntenants == 0)
		return (double)fp.peak_bytes <= cap ? 1 : 0;
	if (gp.ntenants >= c->max_tenants)
		return 0;
	residents(w, c, g, &sat, &rtrough);
	if (sat + job_sat(w, c, j, gp.dev) > c->sm_threshold)
		return 0;
	if (c->use_fit && (double)fp.peak_bytes <=
	    (double)pol_gpu_free(w, g, -1) - c->headroom * cap &&
	    gp.mem_used <= gp.hbm_bytes)
		return 2;
	if (c->use_share &&
	    (double)(fp.peak_bytes + rtrough) <= (1.0 - c->headroom) * cap)
		return 3;
	return 0;
}

/* The next GPU after g (from -1) that sweep `sweep` of try_place may
** take for job j needing at least `least` bytes: sweep 0 the empty GPUs
** (the world's idle index), sweep 1 the open ones (every GPU another
** rule admits is open); in index order.  gpu_rule decides. */
static int next_cand(struct world *w, struct colti *c, int sweep, int g,
		     uint64_t least)
{
	int h;

	if (sweep == 0)
		return pol_gpu_next_fit(w, g + 1, least, POL_FIT_IDLE);
	h = sim_oset_lower_bound(&c->by_gpu, g + 1, 0, INT_MIN);
	return h >= 0 ? sim_oset_id(&c->by_gpu, h) : -1;
}

/*
** Places j on n GPUs: pass 1 takes only empty GPUs; pass 2 empty GPUs
** first, then GPUs that admit it by rule (1); pass 3 also rule (2).  An
** empty GPU admits any job (MODEL.md, "COLTI"), so a multi-GPU job may mix
** empty and shared GPUs.  The MPS share is what the residents of its
** shared GPUs leave; under rule (2) the job's allocation is its
** time-averaged footprint on its first shared GPU's device.  The GPUs are
** the lowest-index ones of each sweep, found through the indexes (see
** next_cand), the same GPUs as a scan of all of them in index order.
*/
static int try_place(struct world *w, struct colti *c, int j)
{
	int n = pol_job(w, j).gpus, pass, sweep, g, got, d;
	int rule;
	uint64_t least = UINT64_MAX;
	struct sim_err e = { 0, "" };

	for (d = 0; d < pol_ndevs(w); d++) {  /* least peak over the kinds */
		uint64_t pk = pol_job_footprint(w, j, pol_dev(w, d).gpu)
			.peak_bytes;
		if (pk < least)
			least = pk;
	}
	for (pass = 1; pass <= 3; pass++) {
		struct pol_place_opts o = { .sm_cap = 1.0 };
		double share = 1.0;
		int shared = -1;
		got = 0;
		for (sweep = 0; sweep < 2 && got < n; sweep++) {
			if (sweep == 1 && pass == 1)
				break;        /* rule < 2 || rule > 1: none */
			for (g = next_cand(w, c, sweep, -1, least);
			     g >= 0 && got < n;
			     g = next_cand(w, c, sweep, g, least)) {
				rule = gpu_rule(w, c, j, g);
				if (sweep == 0 ? rule != 1 :
				    rule < 2 || rule > pass)
					continue;
				c->cand[got++] = g;
				if (rule > 1) {
					double sat;
					uint64_t tr;
					residents(w, c, g, &sat, &tr);
					if (1.0 - sat < share)
						share = 1.0 - sat;
					if (shared < 0)
						shared = g;
				}
			}
		}
		if (got < n)
			continue;
		if (shared >= 0 && c->mode == POL_GPU_MPS)
			o.sm_cap = share > c->min_share ? share : c->min_share;
		if (pass == 3 && shared >= 0) {
			struct pol_footprint fp =
				pol_job_footprint(w, j, shared);
			o.allow_oversub = 1;
			o.mem_bytes = fp.trough_bytes +
				(uint64_t)(fp.peak_frac *
					   (double)(fp.peak_bytes -
						    fp.trough_bytes));
		}
		if (pol_place(w, j, c->cand, n, &o, &e) == 0)
			return 1;
	}
	return 0;
}

static int take_in(struct world *w, struct colti *c, int g);

/* Re-reads GPU g into the open sets. */
static int take_in(struct world *w, struct colti *c, int g)
{
	int nt = pol_gpu_ntenants(w, g), open = 0;
	double sat = 0;
	uint64_t tr;

	if (nt > 0 && nt < c->max_tenants) {
		residents(w, c, g, &sat, &tr);
		open = sat <= c->sm_threshold;
	}
	if (c->h_sat[g] >= 0) {
		sim_oset_remove(&c->by_sat, c->h_sat[g]);
		sim_oset_remove(&c->by_gpu, c->h_gpu[g]);
		c->h_sat[g] = c->h_gpu[g] = -1;
	}
	if (!open)
		return 0;
	c->gsat[g] = sat;
	c->h_sat[g] = sim_oset_insert(&c->by_sat, sim_oset_dkey(sat), 0, g, 0);
	c->h_gpu[g] = sim_oset_insert(&c->by_gpu, g, 0, g, 0);
	return c->h_sat[g] < 0 || c->h_gpu[g] < 0 ? SIM_ENOMEM : 0;
}

/* At the start of a pass: brings the open sets up to date with the GPUs
** changed since the last one (every GPU the first time).  Within a pass
** only this policy's placements change GPUs, and it takes those in. */
static int open_gpus(struct world *w, struct colti *c)
{
	int g, k, rc;

	if (c->all_stale) {
		for (g = 0; g < pol_ngpus(w); g++)
			if ((rc = take_in(w, c, g)) != 0)
				return rc;
		c->all_stale = 0;
		return 0;
	}
	for (k = 0; k < pol_nchanged(w); k++)
		if ((rc = take_in(w, c, pol_changed_at(w, k))) != 0)
			return rc;
	return 0;
}

/* The least SM demand of job j on any device of the cluster. */
static double least_demand(struct world *w, struct colti *c, int j)
{
	double lo = 0;
	int d;

	for (d = 0; d < pol_ndevs(w); d++) {
		double v = job_sat(w, c, j, d);
		if (d == 0 || v < lo)
			lo = v;
	}
	return lo;
}

/* 1 if job j might find enough GPUs this pass (a necessary condition on
** the SM demand alone; memory is checked by try_place).  O(n): the
** (n - empty)-th least demand of the open GPUs against the room. */
static int might_fit(struct world *w, struct colti *c, int j)
{
	int n = pol_job(w, j).gpus, nempty = pol_gpus_idle(w), k, h;
	double room;

	if (nempty >= n)
		return 1;
	room = c->sm_threshold - least_demand(w, c, j);
	for (k = nempty + 1, h = sim_oset_first(&c->by_sat); h >= 0 && k < n;
	     k++)
		h = sim_oset_next(&c->by_sat, h);
	return h >= 0 && c->gsat[sim_oset_id(&c->by_sat, h)] <= room;
}

static int colti_schedule(struct world *w, void *state)
{
	struct colti *c = state;
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j, k, rc;

	if ((rc = open_gpus(w, c)) != 0)
		return rc;
	while ((j = pol_pending_next(w, &it)) >= 0) {
		if (pol_job(w, j).gpus == 0) {
			/* as the world fails it for a policy of an interface
			** before version 3 */
			pol_fail_job(w, j, "CPU-only job (0 GPUs): the policy "
				     "places GPU jobs only");
			continue;
		}
		if (!pol_job_fits_empty(w, j)) {
			pol_fail_job(w, j, "needs more GPUs or memory than "
				     "the cluster has");
			continue;
		}
		if (!might_fit(w, c, j) || !try_place(w, c, j))
			continue;
		for (k = 0; k < pol_job(w, j).nplaced; k++)
			if ((rc = take_in(w, c,
					  pol_job_tenant(w, j, k).gpu)) != 0)
				return rc;
	}
	return 0;
}

static int by_first_gpu(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* A co-located job left alone gets the whole GPU back (MPS).  Only a GPU
** that changed since the last pass can hold such a job (one whose last
** co-tenant just left); the jobs found are handled in order of their
** lowest GPU, as a scan of every GPU (which meets each at its lowest)
** would.  O(changed GPUs x the jobs found). */
static int colti_finish(struct world *w, void *state, int j)
{
	struct colti *c = state;
	int k, m = 0, *pairs;

	(void)j;
	if (c->mode != POL_GPU_MPS || pol_nchanged(w) == 0)
		return 0;
	pairs = malloc(2 * (size_t)pol_nchanged(w) * sizeof *pairs);
	if (pairs == NULL)
		return SIM_ENOMEM;
	for (k = 0; k < pol_nchanged(w); k++) {
		int g = pol_changed_at(w, k), i, n, alone = 1, low;
		struct pol_tenant_walk it = pol_tenants(w, g);
		struct pol_tenant_info t;

		if (pol_gpu_ntenants(w, g) != 1 ||
		    !pol_tenant_next(w, &it, &t) || !(t.sm_cap < 1.0) ||
		    t.job < 0)
			continue;
		n = pol_job(w, t.job).nplaced;
		low = g;
		for (i = 0; i < n; i++) {
			int gi = pol_job_tenant(w, t.job, i).gpu;
			if (pol_gpu_ntenants(w, gi) > 1)
				alone = 0;
			if (gi < low)
				low = gi;
		}
		if (!alone)
			continue;
		for (i = 0; i < m && pairs[2 * i + 1] != t.job; i++)
			;
		if (i < m)
			continue;         /* met on another of its GPUs */
		pairs[2 * m] = low;
		pairs[2 * m + 1] = t.job;
		m++;
	}
	qsort(pairs, (size_t)m, 2 * sizeof *pairs, by_first_gpu);
	for (k = 0; k < m; k++)
		pol_set_share(w, pairs[2 * k + 1], 1.0, NULL);
	free(pairs);
	return 0;
}

const struct pol_ops pol_colti = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "colti",
	.zDesc = "COLTI: co-locate jobs on idle SMs when memory fits or can "
		 "be shared",
	.szState = sizeof(struct colti),
	.szJob = sizeof(struct colti_job),
	.aParam = colti_params,
	.xInit = colti_init,
	.xFini = colti_fini,
	.xOnFinish = colti_finish,
	.xSchedule = colti_schedule
};
