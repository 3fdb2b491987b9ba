/*
** colti.c: COLTI (HPDC'23) as a policy: co-locate pending jobs on GPUs whose
** compute the resident jobs leave idle.
**
** Each pass walks the pending jobs in FIFO order.  A job first takes GPUs
** that are empty.  Failing that, it is co-located on GPUs (a multi-GPU job
** on empty ones first, then on shared ones) that (a) hold
** fewer than `max_tenants` jobs, (b) have idle compute for it: its SM
** demand plus the residents' is at most `sm_threshold` (default 1: the
** whole GPU; a training job's demand is the
** `sat` of its work profile, DESIGN.md; a service's is its `sat` times its
** expected busy fraction), and (c) have memory for it, by one of two rules:
**   fit   (1): its peak footprint fits in the free HBM, `headroom` kept;
**   share (2): it fits against the residents' troughs: its peak plus their
**         troughs fit.  Their peaks may then overlap; the overlap is paid
**         through the memory model: the co-located job is given its
**         time-averaged footprint (trough + peak_frac (peak - trough)) as
**         its allocation, with oversubscription allowed, so any excess over
**         capacity is paged at the device's unified-memory rate.
** The resident keeps priority: under `mode = mps` a co-located job gets the
** SM share the residents leave, 1 - sum(sat), at least `min_share`; when it
** is left alone on its GPUs it gets the whole GPU back.  Under `mode =
** timeslice` the driver shares time equally (no priority: a known limit).
** Equations and limits: docs/MODEL.md, "COLTI".
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"
#include "policies/policy.h"
#include "sim/world/world.h"

struct colti {
	enum gpu_mode mode;
	double headroom, sm_threshold, min_share;
	long max_tenants;
	int use_fit, use_share;
	int *cand;
	/* per job: its profile's SM saturation on device satdev[j] (a
	** profile walks the model's layers; residents asks per pass) */
	double *sat;
	const struct dev_profile **satdev;
	int nsat;
	/* per pass: the residents' SM demand of each GPU that could take one
	** more job (fewer than max_tenants, not empty), sorted; and the count
	** of empty GPUs.  A necessary condition for placing job j on n GPUs
	** is nempty + #{open_sat <= threshold - demand(j)} >= n. */
	double *open_sat;
	int nopen, nempty;
};

static const char *const mode_names[] = { "timeslice", "mps", NULL };

static int colti_init(struct world *w, void *state,
		      const struct pol_params *p, struct sim_err *err)
{
	static const char *const keys[] = { "mode", "headroom", "sm_threshold",
		"min_share", "max_tenants", "fit", "share", NULL };
	struct colti *c = state;
	long fit = 1, share = 1;
	int mode = 1, g, rc;

	c->headroom = 0.05;
	c->sm_threshold = 1.0;
	c->min_share = 0.1;
	c->max_tenants = 2;
	if ((rc = pol_params_check(p, "colti", keys, err)) != 0 ||
	    (rc = pol_param_choice(p, "mode", mode_names, &mode, err)) != 0 ||
	    (rc = pol_param_double(p, "headroom", 0, 0.5, &c->headroom,
				   err)) != 0 ||
	    (rc = pol_param_double(p, "sm_threshold", 0, 2,
				   &c->sm_threshold, err)) != 0 ||
	    (rc = pol_param_double(p, "min_share", 0.01, 1, &c->min_share,
				   err)) != 0 ||
	    (rc = pol_param_int(p, "max_tenants", 1, 16, &c->max_tenants,
				err)) != 0 ||
	    (rc = pol_param_int(p, "fit", 0, 1, &fit, err)) != 0 ||
	    (rc = pol_param_int(p, "share", 0, 1, &share, err)) != 0)
		return rc;
	c->use_fit = (int)fit;
	c->use_share = (int)share;
	c->mode = mode == 0 ? GPU_MODE_TIMESLICE : GPU_MODE_MPS;
	c->cand = malloc((size_t)world_ngpus(w) * sizeof *c->cand);
	if (c->cand == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < world_ngpus(w); g++)
		if ((rc = world_set_gpu_mode(w, g, c->mode, err)) != 0)
			return rc;
	return 0;
}

static void colti_fini(struct world *w, void *state)
{
	struct colti *c = state;
	(void)w;
	free(c->cand);
	free(c->sat);
	free(c->satdev);
	free(c->open_sat);
}

/*
** The SM demand of job j on device d, cached per job: a training job's
** work-profile saturation (it computes all the time); a service's
** saturation at its max batch times its expected busy fraction,
** min(1, rate L(b) / b) for Poisson arrivals at `rate` (unknown rates count
** as fully busy).  docs/MODEL.md, "COLTI".
*/
static double sm_demand(const struct world_job *job,
			const struct dev_profile *d)
{
	struct gpu_work_profile prof;
	double busy = 1.0;

	if (job->tj.kind == TRACE_TRAIN) {
		wl_train_profile(job->model, d, job->tj.batch, job->tj.prec,
				 &prof);
		return prof.sat;
	}
	wl_infer_profile(job->model, d, job->tj.batch, &prof);
	if (job->tj.arrival == TRACE_ARR_POISSON && job->tj.rate_per_s > 0) {
		double l_s = sim_time_to_s(wl_infer_batch_ns(job->model, d,
							    job->tj.batch));
		busy = job->tj.rate_per_s * l_s / job->tj.batch;
		if (busy > 1.0)
			busy = 1.0;
	}
	return prof.sat * busy;
}

static double job_sat(struct world *w, struct colti *c, int j,
		      const struct dev_profile *d)
{
	const struct world_job *job = world_job(w, j);
	double v;

	if (j >= c->nsat) {
		int n = world_njobs(w) > j ? world_njobs(w) : j + 1;
		double *s = realloc(c->sat, (size_t)n * sizeof *s);
		const struct dev_profile **sd;
		if (s != NULL)
			c->sat = s;
		sd = s ? realloc(c->satdev, (size_t)n * sizeof *sd) : NULL;
		if (sd != NULL) {
			c->satdev = sd;
			memset(sd + c->nsat, 0,
			       (size_t)(n - c->nsat) * sizeof *sd);
			c->nsat = n;
		}
	}
	if (j < c->nsat && c->satdev[j] == d)
		return c->sat[j];
	v = sm_demand(job, d);
	if (j < c->nsat) {
		c->satdev[j] = d;
		c->sat[j] = v;
	}
	return v;
}

/* Sum of the residents' SM demand and memory troughs on GPU g. */
static void residents(struct world *w, struct colti *c, int g, double *sat,
		      uint64_t *trough)
{
	const struct gpu_tenant *t;

	*sat = 0;
	*trough = 0;
	for (t = world_gpu(w, g)->tenants; t != NULL; t = t->next_) {
		uint64_t pk, tr;
		double pf;
		*sat += job_sat(w, c, t->id, world_gpu(w, g)->dev);
		world_job_footprint(w, t->id, g, &pk, &tr, &pf);
		*trough += t->mem_bytes < tr ? t->mem_bytes : tr;
	}
}

/* How job j may go on GPU g: 0 no, 1 alone (empty GPU), 2 fit, 3 share. */
static int gpu_rule(struct world *w, struct colti *c, int j, int g)
{
	const struct gpu *gp = world_gpu(w, g);
	double cap = (double)gp->dev->hbm_bytes, sat;
	uint64_t peak, trough, rtrough;
	double pf;

	world_job_footprint(w, j, g, &peak, &trough, &pf);
	if (gp->ntenants == 0)
		return (double)peak <= cap ? 1 : 0;
	if (gp->ntenants >= c->max_tenants)
		return 0;
	residents(w, c, g, &sat, &rtrough);
	if (sat + job_sat(w, c, j, gp->dev) > c->sm_threshold)
		return 0;
	if (c->use_fit && (double)peak <= (double)world_gpu_free(w, g, -1) -
	    c->headroom * cap && gp->mem_used <= gp->dev->hbm_bytes)
		return 2;
	if (c->use_share &&
	    (double)(peak + rtrough) <= (1.0 - c->headroom) * cap)
		return 3;
	return 0;
}

/*
** Places j on n GPUs: pass 1 takes only empty GPUs; pass 2 empty GPUs
** first, then GPUs that admit it by rule (1); pass 3 also rule (2).  An
** empty GPU admits any job (MODEL.md, "COLTI"), so a multi-GPU job may mix
** empty and shared GPUs.  The MPS share is what the residents of its
** shared GPUs leave; under rule (2) the job's allocation is its
** time-averaged footprint on its first shared GPU's device.
*/
static int try_place(struct world *w, struct colti *c, int j)
{
	const struct world_job *job = world_job(w, j);
	int n = job->tj.gpus, ngpu = world_ngpus(w), pass, sweep, g, got, rule;
	struct sim_err e = { 0, "" };

	for (pass = 1; pass <= 3; pass++) {
		struct world_place_opts o = { 1.0, NULL, 0, 0 };
		double share = 1.0;
		int shared = -1;
		got = 0;
		for (sweep = 0; sweep < 2 && got < n; sweep++)
			for (g = 0; g < ngpu && got < n; g++) {
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
		if (got < n)
			continue;
		if (shared >= 0 && c->mode == GPU_MODE_MPS)
			o.sm_cap = share > c->min_share ? share : c->min_share;
		if (pass == 3 && shared >= 0) {
			uint64_t pk, tr;
			double pf;
			world_job_footprint(w, j, shared, &pk, &tr, &pf);
			o.allow_oversub = 1;
			o.mem_bytes = tr + (uint64_t)(pf * (double)(pk - tr));
		}
		if (world_place(w, j, c->cand, n, &o, &e) == 0)
			return 1;
	}
	return 0;
}

/* GPUs that may take one more job under some rule: empty ones, and those
** under max_tenants whose residents leave SMs idle.  A job asking for
** more GPUs than this cannot be placed in this pass until a placement
** (which only closes GPUs) changes it. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Rebuilds the pass's view of the GPUs that may take one more job. */
static int open_gpus(struct world *w, struct colti *c)
{
	int g;

	if (c->open_sat == NULL) {
		c->open_sat = malloc((size_t)world_ngpus(w) *
				     sizeof *c->open_sat);
		if (c->open_sat == NULL)
			return SIM_ENOMEM;
	}
	c->nopen = c->nempty = 0;
	for (g = 0; g < world_ngpus(w); g++) {
		const struct gpu *gp = world_gpu(w, g);
		double sat;
		uint64_t tr;
		if (gp->ntenants == 0) {
			c->nempty++;
			continue;
		}
		if (gp->ntenants >= c->max_tenants)
			continue;
		residents(w, c, g, &sat, &tr);
		if (sat <= c->sm_threshold)
			c->open_sat[c->nopen++] = sat;
	}
	qsort(c->open_sat, (size_t)c->nopen, sizeof *c->open_sat, cmp_double);
	return 0;
}

/* The least SM demand of job j on any device of the cluster. */
static double least_demand(struct world *w, struct colti *c, int j)
{
	const struct cluster_spec *cl = world_cluster(w);
	double lo = 0;
	int i;

	for (i = 0; i < cl->ngroups; i++) {
		double d = job_sat(w, c, j, cl->groups[i].dev);
		if (i == 0 || d < lo)
			lo = d;
	}
	return lo;
}

/* 1 if job j might find enough GPUs this pass (a necessary condition on
** the SM demand alone; memory is checked by try_place).  O(log GPUs). */
static int might_fit(struct world *w, struct colti *c, int j)
{
	int n = world_job(w, j)->tj.gpus, lo = 0, hi = c->nopen;
	double room;

	if (c->nempty >= n)
		return 1;
	room = c->sm_threshold - least_demand(w, c, j);
	while (lo < hi) {             /* count of open_sat <= room */
		int mid = (lo + hi) / 2;
		if (c->open_sat[mid] <= room)
			lo = mid + 1;
		else
			hi = mid;
	}
	return c->nempty + lo >= n;
}

static int colti_schedule(struct world *w, void *state)
{
	struct colti *c = state;
	int k = 0, stale = 1, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k);
		if (!world_job_fits_empty(w, j)) {
			world_fail_job(w, j, "needs more GPUs or memory than "
				       "the cluster has");
			continue;
		}
		if (stale && (rc = open_gpus(w, c)) != 0)
			return rc;
		stale = 0;
		if (!might_fit(w, c, j) || !try_place(w, c, j))
			k++;
		else
			stale = 1;
	}
	return 0;
}

/* A co-located job left alone gets the whole GPU back (MPS). */
static int colti_finish(struct world *w, void *state, int j)
{
	struct colti *c = state;
	int g;

	(void)j;
	if (c->mode != GPU_MODE_MPS)
		return 0;
	for (g = 0; g < world_ngpus(w); g++) {
		const struct gpu *gp = world_gpu(w, g);
		if (gp->ntenants == 1 && gp->tenants->sm_cap < 1.0) {
			const struct world_job *job = world_job(w,
							gp->tenants->id);
			int k, alone = 1;
			for (k = 0; k < job->nplaced; k++)
				if (world_gpu(w, job->gpu_ids[k])->ntenants > 1)
					alone = 0;
			if (alone)
				world_set_share(w, job->idx, 1.0, NULL);
		}
	}
	return 0;
}

const struct pol_ops pol_colti = {
	POL_IFACE_VERSION,
	"colti",
	"COLTI: co-locate jobs on idle SMs when memory fits or can be shared",
	sizeof(struct colti),
	colti_init,
	colti_fini,
	NULL,
	colti_finish,
	NULL,
	NULL,
	colti_schedule
};
