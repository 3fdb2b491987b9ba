/*
** world_act.c: the world core's read-only view and the validated actions
** that policies call (see world.h): placement, preemption, shares, GPU
** modes, timers, failure, job memory and run metrics.  Every action checks
** its request completely before changing anything, so a refused action
** leaves the world as it was.  A feature may take over world_place and
** world_preempt through its kind (xPlace, xPreempt: world_int.h); what a
** placed job's tenants then do is their kind's (xPlaced).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"
#include "sim/world/world_int.h"

sim_time world_now(const struct world *w) { return w->sim.now; }
int world_njobs(const struct world *w) { return w->njobs; }
int world_npending(const struct world *w) { return w->npending; }
int world_ngpus(const struct world *w) { return w->ngpus; }
const struct cluster_spec *world_cluster(const struct world *w)
{
	return w->cl;
}

const struct world_job *world_job(const struct world *w, int j)
{
	return j >= 0 && j < w->njobs ? world__job(w, j) : NULL;
}

int world_pending_at(const struct world *w, int k)
{
	return k >= 0 && k < w->npending ? w->pending[k] : -1;
}

const struct gpu *world_gpu(const struct world *w, int g)
{
	return g >= 0 && g < w->ngpus ? &w->gpus[g] : NULL;
}

uint64_t world_gpu_free(const struct world *w, int g, int slice)
{
	return gpu_mem_free(&w->gpus[g], slice);
}

static uint64_t job_mem_uncached(const struct world *w,
				 const struct world_job *job,
				 const struct dev_profile *d)
{
	const struct world_reg *r = job->kind_;
	struct wl_train_mem m;

	if (job->tj.mem_bytes > 0)
		return job->tj.mem_bytes;
	if (r != NULL && r->kind->iVersion >= 3 && r->kind->xJobMem != NULL)
		return r->kind->xJobMem(w, r->state, job, d);
	if (job->tj.kind != TRACE_TRAIN)
		return wl_infer_memory(job->model, d, job->tj.batch);
	wl_train_memory(job->model, d, job->tj.batch, job->tj.opt,
			job->tj.prec, &m);
	return m.peak_bytes;
}

/* The footprint is a pure function of (job, device): cached per job for
** up to four devices (a cluster of more types recomputes the others). */
uint64_t world_job_mem(const struct world *w, int j, int g)
{
	struct world_job *job = world__job(w, j);
	const struct dev_profile *d = w->gpus[g].dev;
	int k;

	for (k = 0; k < 4 && job->mem_dev_[k] != NULL; k++)
		if (job->mem_dev_[k] == d)
			return job->mem_bytes_[k];
	if (k == 4)
		return job_mem_uncached(w, job, d);
	job->mem_dev_[k] = d;
	job->mem_bytes_[k] = job_mem_uncached(w, job, d);
	return job->mem_bytes_[k];
}

void world_job_footprint(const struct world *w, int j, int g,
			 uint64_t *peak, uint64_t *trough, double *peak_frac)
{
	const struct world_job *job = world__job(w, j);
	struct wl_train_mem m;

	*peak = *trough = world_job_mem(w, j, g);
	*peak_frac = 1.0;
	if (job->tj.mem_bytes > 0 || job->tj.kind != TRACE_TRAIN)
		return;
	wl_train_memory(job->model, w->gpus[g].dev, job->tj.batch,
			job->tj.opt, job->tj.prec, &m);
	*trough = m.trough_bytes;
	*peak_frac = m.peak_frac;
}

double world_job_remaining_ns(const struct world *w, int j, int g)
{
	const struct world_job *job = world__job(w, j);
	const struct dev_profile *d = w->gpus[g].dev;
	int k;

	if (job->tj.kind != TRACE_TRAIN)
		return (double)wl_infer_batch_ns(job->model, d, job->tj.batch);
	if (job->state == JOB_RUNNING && job->nplaced > 0) {
		/* Progress of the slowest worker as of now (each GPU is
		** settled only at its last change: extrapolate at the
		** current speeds), in solo time on its own device,
		** rescaled to device d's total. */
		double left = 0;
		for (k = 0; k < job->nplaced; k++) {
			const struct gpu_tenant *t = &job->tenants[k];
			double f = job->work0_[k] > 0 ?
				gpu_work_left(t, w->sim.now) / job->work0_[k] :
				0;
			if (f > left)
				left = f;
		}
		return job->frac0_ * left *
			world__train_total_ns(w, job, d, job->gpu_ids,
					      job->nplaced);
	}
	return job->frac_left * world__train_total_ns(w, job, d, &g, 1);
}

int world_job_fits_empty(const struct world *w, int j)
{
	struct world_job *job = world__job(w, j);
	int d, n = 0;

	if (job->fits_empty_ != 0)
		return job->fits_empty_ == 1;
	/* per device kind: its GPUs hold the job alike */
	for (d = 0; d < world_ndevs(w); d++)
		if (world_job_mem(w, j, world_dev_gpu(w, d)) <=
		    world_dev(w, d)->hbm_bytes)
			n += world_dev_ngpus(w, d);
	job->fits_empty_ = n >= job->tj.gpus ? 1 : 2;
	return job->fits_empty_ == 1;
}

int world__check_gpu(const struct world *w, const int *gpus, int k,
		     const char *what, struct sim_err *err)
{
	int i;

	if (gpus[k] < 0 || gpus[k] >= w->ngpus)
		return sim_err_set(err, SIM_EINVAL, "%s: no GPU %d", what,
				   gpus[k]);
	for (i = 0; i < k; i++)
		if (gpus[i] == gpus[k])
			return sim_err_set(err, SIM_EINVAL, "%s: GPU %d twice",
					   what, gpus[k]);
	return 0;
}

static int check_place(const struct world *w, const struct world_job *job,
		       const int *gpus, int n, const struct world_place_opts *o,
		       struct sim_err *err)
{
	int k, rc;

	if (job->state != JOB_PENDING && job->state != JOB_PREEMPTED)
		return sim_err_set(err, SIM_ESTATE, "place: job %s is %s",
				   job->tj.id, job_state_name(job->state));
	/* an elastic job (not swapped: its state was saved at its count)
	** may start at any count of its range */
	if (job->tj.min_gpus > 0 && !job->swapped && n >= job->tj.min_gpus &&
	    n <= job->tj.max_gpus)
		;
	else if (n != job->tj.gpus || n < 1 || n > 0xffff)
		return sim_err_set(err, SIM_EINVAL, "place: job %s needs %d "
				   "GPUs, got %d", job->tj.id, job->tj.gpus, n);
	if (o->sm_cap < 0 || o->sm_cap > 1)
		return sim_err_set(err, SIM_EINVAL, "place: SM share %g not "
				   "in (0, 1]", o->sm_cap);
	for (k = 0; k < n; k++)
		if ((rc = world__check_gpu(w, gpus, k, "place", err)) != 0)
			return rc;
	return 0;
}

/* Attaches one tenant of job j per GPU; on a refusal detaches those
** attached and frees the arrays. */
static int attach_all(struct world *w, struct world_job *job, const int *gpus,
		      int n, const struct world_place_opts *o,
		      struct sim_err *err)
{
	int k, i, rc;

	job->tenants = calloc((size_t)n, sizeof *job->tenants);
	job->gpu_ids = malloc((size_t)n * sizeof *job->gpu_ids);
	job->work0_ = calloc((size_t)n, sizeof *job->work0_);
	if (job->tenants == NULL || job->gpu_ids == NULL ||
	    job->work0_ == NULL) {
		world__free_placement(w, job);
		return sim_err_set(err, SIM_ENOMEM, "place: out of memory");
	}
	for (k = 0; k < n; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		t->id = job->idx;
		t->mem_bytes = o->mem_bytes > 0 ? o->mem_bytes :
			world_job_mem(w, job->idx, gpus[k]);
		t->sm_cap = o->sm_cap > 0 ? o->sm_cap : 1.0;
		t->slice = o->slices != NULL ? o->slices[k] : -1;
		job->gpu_ids[k] = gpus[k];
		rc = world__reg_attach(w, job->kind_, gpus[k], t,
				       o->allow_oversub, err);
		if (rc != 0) {
			for (i = 0; i < k; i++)
				gpu_detach(&w->gpus[gpus[i]], &job->tenants[i],
					   w->sim.now);
			world__free_placement(w, job);
			return rc;
		}
	}
	job->nplaced = n;
	return 0;
}

static int place(struct world *w, int j, const int *gpus, int n,
		 const struct world_place_opts *o, struct sim_err *err)
{
	struct world_job *job;
	struct world_place_opts dflt = { 1.0, NULL, 0, 0 };
	int rc;

	if (o == NULL)
		o = &dflt;
	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "place: no job %d", j);
	if (world__retired(w, j))
		return sim_err_set(err, SIM_ESTATE, "place: job %s is %s",
				   world__job(w, j)->tj.id, job_state_name(
				   world__job_state(w, j)));
	job = world__job(w, j);
	if ((rc = world__offer_place(w, job, gpus, n, o, err)) != WORLD_PASS)
		return rc;
	return world__place_tenants(w, job, gpus, n, o, err);
}

int world__place_tenants(struct world *w, struct world_job *job,
			 const int *gpus, int n,
			 const struct world_place_opts *o, struct sim_err *err)
{
	const struct world_reg *r;
	int j = job->idx, k, rc;

	if ((rc = check_place(w, job, gpus, n, o, err)) != 0 ||
	    (rc = attach_all(w, job, gpus, n, o, err)) != 0)
		return rc;
	job->tj.gpus = n;             /* an elastic job's count now */
	world__pending_remove(w, j);
	job->state = JOB_RUNNING;
	if (job->start_ns < 0) {
		job->start_ns = w->sim.now;
		job->first_gpu_ = gpus[0];
		for (k = 1; k < n; k++)
			if (gpus[k] < job->first_gpu_)
				job->first_gpu_ = gpus[k];
	}
	r = job->kind_;
	if (r->kind->xPlaced != NULL &&
	    (rc = r->kind->xPlaced(w, r->state, job)) != 0)
		return rc;
	for (k = 0; k < n; k++)
		if ((rc = world__gpu_changed(w, gpus[k])) != 0)
			return rc;
	return 0;
}

/*
** An action that ran out of memory fails the run, whatever the policy
** does with the code: a policy that reads the failure as "does not fit"
** and goes on would give the results of another schedule.  The error is
** recorded in the engine (sim_fail), which world_run reports.
*/
int world_place(struct world *w, int j, const int *gpus, int n,
		const struct world_place_opts *o, struct sim_err *err)
{
	int rc = place(w, j, gpus, n, o, err);

	if (rc == SIM_ENOMEM)
		sim_fail(&w->sim, rc, "%s", err != NULL && err->msg[0] ?
			 err->msg : "out of memory");
	return rc;
}

int world_preempt(struct world *w, int j, struct sim_err *err)
{
	struct world_job *job;
	double left = 0;
	int k, rc;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "preempt: no job %d", j);
	job = world__job(w, j);
	if (job->state != JOB_RUNNING || job->tj.kind != TRACE_TRAIN)
		return sim_err_set(err, SIM_ESTATE, "preempt: job %s is %s%s",
				   job->tj.id, job_state_name(job->state),
				   job->tj.kind != TRACE_TRAIN ?
				   " (services are not preempted)" : "");
	if ((rc = world__offer_preempt(w, job, err)) != WORLD_PASS)
		return rc;
	for (k = 0; k < job->nplaced; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		double f;
		gpu_settle(&w->gpus[job->gpu_ids[k]], w->sim.now);
		f = job->work0_[k] > 0 ? t->work_left_ns / job->work0_[k] : 0;
		if (f > left)
			left = f;
		t->due = 0;
		gpu_detach(&w->gpus[job->gpu_ids[k]], t, w->sim.now);
	}
	job->frac_left = job->frac0_ * (left < 0 ? 0 : left);
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	world__free_placement(w, job);
	job->state = JOB_PREEMPTED;
	job->preemptions++;
	if ((rc = world__pending_add(w, j)) != 0)
		return sim_err_set(err, rc, "preempt: out of memory");
	if ((rc = world__job_queued(w, j)) != 0)
		return rc;
	return world__request_schedule(w);
}

int world_set_share(struct world *w, int j, double sm_cap,
		    struct sim_err *err)
{
	struct world_job *job;
	int k, rc;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "set_share: no job %d", j);
	job = world__job(w, j);
	if (!(sm_cap > 0 && sm_cap <= 1))
		return sim_err_set(err, SIM_EINVAL, "set_share: share %g not "
				   "in (0, 1]", sm_cap);
	if (job->state != JOB_RUNNING)
		return sim_err_set(err, SIM_ESTATE, "set_share: job %s is %s",
				   job->tj.id, job_state_name(job->state));
	for (k = 0; k < job->nplaced; k++) {
		gpu_set_share(&w->gpus[job->gpu_ids[k]], &job->tenants[k],
			      sm_cap, w->sim.now);
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	}
	return 0;
}

int world_set_gpu_mode(struct world *w, int g, enum gpu_mode mode,
		       struct sim_err *err)
{
	struct gpu *gp;

	if (g < 0 || g >= w->ngpus)
		return sim_err_set(err, SIM_EINVAL, "set_gpu_mode: no GPU %d",
				   g);
	gp = &w->gpus[g];
	if (gp->ntenants > 0)
		return sim_err_set(err, SIM_ESTATE, "set_gpu_mode: GPU %d has "
				   "%d tenants", g, gp->ntenants);
	if (gp->mode == mode)
		return 0;
	{
		/* The utilisation history since t = 0 survives the switch. */
		struct sim_twacc hbm = gp->hbm, sm = gp->sm;
		uint64_t peak = gp->mem_peak_bytes;
		gpu_fini(gp);
		gpu_init(gp, gp->dev, g, gp->node, mode, w->sim.now);
		gp->hbm = hbm;
		gp->sm = sm;
		gp->mem_peak_bytes = peak;
		sim_twacc_set(&gp->hbm, w->sim.now, 0);
		sim_twacc_set(&gp->sm, w->sim.now, 0);
	}
	world__index_gpu(w, g);
	return 0;
}

int world_set_mig_layout(struct world *w, int g, const char *const *profiles,
			 int n, struct sim_err *err)
{
	int rc;

	if (g < 0 || g >= w->ngpus)
		return sim_err_set(err, SIM_EINVAL, "set_mig_layout: no GPU %d",
				   g);
	rc = gpu_set_mig_layout(&w->gpus[g], profiles, n, w->sim.now, err);
	if (rc == 0)
		world__index_gpu(w, g);
	return rc;
}

static int on_timer(struct sim *s, void *ctx, uint64_t tag)
{
	struct world *w = ctx;
	int rc;

	(void)s;
	if (w->pol->xOnTimer == NULL)
		return 0;
	rc = w->pol->xOnTimer(w, w->pol_state, tag);
	if (rc < 0)
		return world__hook_rc(w, rc, "on_timer");
	/* a periodic timer must not keep a finished run alive (nor one
	** whose stop was requested before sim_run began) */
	world__maybe_stop(w);
	return 0;
}

int world_set_timer(struct world *w, sim_time dt, uint64_t tag,
		    struct sim_err *err)
{
	int rc;

	if (dt < 0)
		return sim_err_set(err, SIM_EPAST, "set_timer: negative delay");
	rc = sim_schedule_in(&w->sim, dt, SIM_PRIO_TIMER, on_timer, w, tag,
			     NULL);
	if (rc != 0)
		return sim_err_set(err, rc, "set_timer: %s", sim_strerror(rc));
	return 0;
}

int world_fail_job(struct world *w, int j, const char *reason)
{
	struct world_job *job;
	const struct world_reg *r;
	int rc = 0;

	if (j < 0 || j >= w->njobs)
		return SIM_EINVAL;
	job = world__job(w, j);
	if (job->state != JOB_PENDING && job->state != JOB_PREEMPTED)
		return SIM_ESTATE;
	world__pending_remove(w, j);
	job->state = JOB_FAILED;
	job->end_ns = w->sim.now;
	r = job->kind_;
	if (r->kind->xFail != NULL)
		rc = r->kind->xFail(w, r->state, job);
	world__job_open(w, job, 0);
	snprintf(job->fail_reason, sizeof job->fail_reason, "%s",
		 reason ? reason : "");
	w->live_jobs--;
	world__job_finished(w, j);
	world__maybe_stop(w);
	return rc;
}

/* ---- job memory and run metrics ---------------------------------------- */

int world_set_mem(struct world *w, int j, uint64_t mem_bytes,
		  int allow_oversub, struct sim_err *err)
{
	struct world_job *job;
	uint64_t *old;
	int k, i, rc = 0;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "set_mem: no job %d", j);
	job = world__job(w, j);
	if (job->state != JOB_RUNNING || job->nplaced == 0)
		return sim_err_set(err, SIM_ESTATE, "set_mem: job %s is %s",
				   job->tj.id, job_state_name(job->state));
	if (mem_bytes == 0)
		return sim_err_set(err, SIM_EINVAL, "set_mem: zero bytes for "
				   "job %s", job->tj.id);
	old = malloc((size_t)job->nplaced * sizeof *old);
	if (old == NULL)
		return sim_err_set(err, SIM_ENOMEM, "set_mem: out of memory");
	for (k = 0; k < job->nplaced; k++) {
		old[k] = job->tenants[k].mem_bytes;
		rc = gpu_resize(&w->gpus[job->gpu_ids[k]], &job->tenants[k],
				mem_bytes, w->sim.now, allow_oversub, err);
		if (rc != 0) {
			for (i = 0; i < k; i++)
				gpu_resize(&w->gpus[job->gpu_ids[i]],
					   &job->tenants[i], old[i],
					   w->sim.now, 1, NULL);
			break;
		}
	}
	free(old);
	/* Under oversubscription a resize changes speeds (paging). */
	for (i = 0; i < job->nplaced; i++) {
		int r2 = world__gpu_changed(w, job->gpu_ids[i]);
		if (rc == 0 && r2 != 0)
			rc = r2;
	}
	return rc;
}

int world_add_metric(struct world *w, const char *name, double value)
{
	int k;

	if (name == NULL || name[0] == '\0' ||
	    strlen(name) >= sizeof w->xmetrics[0].name)
		return SIM_EINVAL;
	for (k = 0; k < w->nxmetrics; k++)
		if (strcmp(w->xmetrics[k].name, name) == 0) {
			w->xmetrics[k].value += value;
			return 0;
		}
	if (w->nxmetrics == w->capxmetrics) {
		int cap = w->capxmetrics ? 2 * w->capxmetrics : 8;
		struct world_metric *p = realloc(w->xmetrics,
						 (size_t)cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		w->xmetrics = p;
		w->capxmetrics = cap;
	}
	snprintf(w->xmetrics[w->nxmetrics].name,
		 sizeof w->xmetrics[0].name, "%s", name);
	w->xmetrics[w->nxmetrics].value = value;
	w->nxmetrics++;
	return 0;
}
