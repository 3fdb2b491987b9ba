/*
** world_resize.c: resizing a running elastic training job through a
** checkpoint-restart (world.h, world_resize; docs/MODEL.md, "Elastic
** jobs").
**
**   RUNNING on G (n0 GPUs) -> settle: frac_left = frac0_ x the slowest
**   worker's fraction left -> tenants leave G -> count n (tj.gpus) ->
**   attached to G' (memory held), units stopped at once -> restart_ns
**   later: units begin, frac_left x total(n) each (the goodput model,
**   world__train_total_ns) -> RUNNING as before.
**
** The job stays RUNNING while it restarts: its workers are attached and
** idle, each holding work0_ = its whole unit, so a preemption or a second
** resize in that time settles no progress.  The restart's end is an
** event that carries the job's restart_gen_; world__free_placement (any
** placement's end) bumps it, so a stale event does nothing.
*/
#include <stdlib.h>

#include "sim/world/world_int.h"

static int restart_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)(arg & 0xffffffffu), k, rc;
	uint64_t gen = arg >> 32;
	struct world_job *job;

	(void)s;
	if (j < 0 || j >= w->njobs)
		return 0;
	job = world__job(w, j);
	if (job->state != JOB_RUNNING || job->restart_end_ == 0 ||
	    (job->restart_gen_ & 0xffffffffu) != gen)
		return 0;
	job->restart_end_ = 0;
	for (k = 0; k < job->nplaced; k++) {
		int g = job->gpu_ids[k];
		struct gpu_work_profile prof;
		world__train_profile(w, job, w->gpus[g].dev, job->tj.batch,
				     &prof);
		world__train_res(job, &prof);
		gpu_begin(&w->gpus[g], &job->tenants[k], job->work0_[k], &prof,
			  w->sim.now);
	}
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	return 0;
}

/* Everything that can refuse, before anything changes. */
static int check_resize(const struct world *w, const struct world_job *job,
			const int *gpus, int n, sim_time restart_ns,
			struct sim_err *err)
{
	int k, i, rc;

	if (job->state != JOB_RUNNING || job->tj.kind != TRACE_TRAIN ||
	    job->nplaced == 0)
		return sim_err_set(err, SIM_ESTATE, "resize: job %s is %s%s",
				   job->tj.id, job_state_name(job->state),
				   job->tj.kind != TRACE_TRAIN ?
				   " (only training jobs resize)" : "");
	if (job->tj.min_gpus <= 0)
		return sim_err_set(err, SIM_EINVAL, "resize: job %s is not "
				   "elastic (no min_gpus/max_gpus)",
				   job->tj.id);
	if (n < job->tj.min_gpus || n > job->tj.max_gpus)
		return sim_err_set(err, SIM_EINVAL, "resize: job %s takes %d "
				   "to %d GPUs, got %d", job->tj.id,
				   job->tj.min_gpus, job->tj.max_gpus, n);
	if (restart_ns < 0)
		return sim_err_set(err, SIM_EINVAL, "resize: negative restart "
				   "cost");
	if (job->share_speed_ > 0)
		return sim_err_set(err, SIM_ESTATE, "resize: job %s holds a "
				   "share placement", job->tj.id);
	if (gpus == NULL)
		return sim_err_set(err, SIM_EINVAL, "resize: no GPUs");
	for (k = 0; k < n; k++) {
		const struct gpu *g;
		uint64_t own = 0, need;
		int others;

		if ((rc = world__check_gpu(w, gpus, k, "resize", err)) != 0)
			return rc;
		for (i = 0; i < job->nplaced; i++)
			if (job->gpu_ids[i] == gpus[k])
				own = job->tenants[i].mem_bytes;
		g = &w->gpus[gpus[k]];
		others = g->ntenants - (own > 0 ? 1 : 0);
		if (g->mode == GPU_MODE_EXCLUSIVE && others > 0)
			return sim_err_set(err, SIM_ESTATE, "resize: GPU %d is "
					   "exclusive and busy", gpus[k]);
		need = world_job_mem(w, job->idx, gpus[k]);
		if (world_gpu_free(w, gpus[k], -1) + own < need)
			return sim_err_set(err, SIM_ENOSPC, "resize: job %s "
					   "needs %.3g GiB on GPU %d, %.3g "
					   "free", job->tj.id,
					   (double)need / 1073741824.0,
					   gpus[k],
					   (double)(world_gpu_free(w, gpus[k],
						-1) + own) / 1073741824.0);
	}
	return 0;
}

int world_resize(struct world *w, int j, const int *gpus, int n,
		 sim_time restart_ns, struct sim_err *err)
{
	struct world_place_opts o = { .sm_cap = 1.0 };
	struct world_job *job;
	double left = 0;
	int k, rc, n_old;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "resize: no job %d", j);
	job = world__job(w, j);
	if ((rc = check_resize(w, job, gpus, n, restart_ns, err)) != 0)
		return rc;
	/* settle and leave, as world_preempt; a restarting job's idle
	** workers hold their whole unit (no progress) */
	n_old = job->nplaced;
	for (k = 0; k < n_old; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		double f;
		gpu_settle(&w->gpus[job->gpu_ids[k]], w->sim.now);
		f = job->work0_[k] > 0 ? t->work_left_ns / job->work0_[k] : 0;
		if (f > left)
			left = f;
		if (t->ev != 0) {
			sim_cancel(&w->sim, t->ev);
			t->ev = 0;
		}
		t->due = 0;
		gpu_detach(&w->gpus[job->gpu_ids[k]], t, w->sim.now);
	}
	job->frac_left = job->frac0_ * (left < 0 ? 0 : left > 1 ? 1 : left);
	for (k = 0; k < n_old; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	world__free_placement(w, job);
	/* the new count, placed at once (the checks above hold: the old
	** tenants are gone, so each GPU has what they held back) */
	job->tj.gpus = n;
	job->state = JOB_PENDING;
	rc = world__place_tenants(w, job, gpus, n, &o, err);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "resize: job %s: %s", job->tj.id,
				err != NULL ? err->msg : "placement failed");
	job->resizes++;
	if ((rc = world_add_metric(w, "resizes", 1)) != 0 ||
	    (rc = world_add_metric(w, "restart_gpu_s",
				   (double)n * (double)restart_ns / 1e9)) != 0)
		return sim_fail(&w->sim, rc, "resize: out of memory");
	if (restart_ns == 0)
		return 0;
	/* the checkpoint-restart: no progress until restart_ns from now */
	for (k = 0; k < job->nplaced; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		struct gpu *g = &w->gpus[job->gpu_ids[k]];
		if (t->ev != 0) {
			sim_cancel(&w->sim, t->ev);
			t->ev = 0;
		}
		if (t->busy)
			gpu_finish(g, t, w->sim.now);
		t->work_left_ns = job->work0_[k];
	}
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	job->restart_end_ = w->sim.now + restart_ns;
	rc = sim_schedule_in(&w->sim, restart_ns, SIM_PRIO_COMPLETE,
			     restart_done, w,
			     (job->restart_gen_ & 0xffffffffu) << 32 |
			     (uint64_t)(uint32_t)j, NULL);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "resize: %s", sim_strerror(rc));
	return 0;
}
