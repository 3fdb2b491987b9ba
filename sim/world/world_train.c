/*
** world_train.c: the training worker, the tenant kind that runs the trace's
** training jobs (see world_train.h; docs/MODEL.md, "Training jobs").
**
** When a training job is placed on n GPUs, each of its workers is a tenant
** whose one work unit is the job's remaining solo time on that worker's
** device, f * T(d_k), with the training work profile; the core times the
** units (xUnitDone).  A worker that finishes idles until the slowest one
** does; then the job is done and its JCT, queueing delay and slowdown are
** recorded here (the kind's run metrics).  Preemption and swapping settle
** the workers' progress through the job's work0_ / frac0_ (world.h).
*/
#include "sim/world/world_train.h"

#include <math.h>
#include <stdlib.h>

#include "models/workload.h"
#include "sim/world/world_int.h"

struct train_state {
	struct sim_sample jct_s, queue_s, slowdown;
};

/* Begins one unit per worker: the job's remaining fraction of its total
** solo time on the worker's device with this placement. */
static int train_placed(struct world *w, void *state, struct world_job *job)
{
	int k, n = job->nplaced;

	(void)state;
	job->frac0_ = job->frac_left;
	for (k = 0; k < n; k++) {
		const struct dev_profile *d = w->gpus[job->gpu_ids[k]].dev;
		struct gpu_work_profile prof;
		double total = world__train_total_ns(w, job, d, job->gpu_ids,
						     n);
		/* a share placement's solo time is the time at its share */
		if (job->solo_ns_ == 0 && k == 0)
			job->solo_ns_ = job->share_speed_ > 0 ?
				total / job->share_speed_ : total;
		job->work0_[k] = job->frac_left * total;
		world__train_profile(w, job, d, job->tj.batch, &prof);
		world__train_res(job, &prof);
		gpu_begin(&w->gpus[job->gpu_ids[k]], &job->tenants[k],
			  job->work0_[k], &prof, w->sim.now);
	}
	return 0;
}

void world__train_profile(const struct world *w, const struct world_job *job,
			  const struct dev_profile *d, int batch,
			  struct gpu_work_profile *prof)
{
	struct wl_train_fit tmp;
	const struct wl_train_fit *fit = &tmp;

	if (w->fits_ != NULL)
		fit = wl_fit_memo_get(w->fits_, job->model, d, job->tj.prec,
				      &tmp);
	else
		wl_train_fit_of(job->model, d, job->tj.prec, &tmp);
	wl_train_profile_measured_fit(job->model, d, batch, job->tj.prec, fit,
				      (double)job->tj.iter_ns,
				      job->tj.gpu_util, prof);
}

void world__train_res(const struct world_job *job,
		      struct gpu_work_profile *prof)
{
	/* the trace's per-resource times, for the interleave mode
	** (docs/MODEL.md, "Multi-resource interleaving") */
	prof->has_res = job->tj.has_res && job->tj.iter_ns > 0;
	prof->res_ms[0] = job->tj.res_ms[0];
	prof->res_ms[1] = job->tj.res_ms[1];
	prof->res_ms[2] = job->tj.res_ms[2];
	prof->iter_ms = (double)job->tj.iter_ns / 1e6;
	/* and, without a measured utilisation, the GPU stage's share of the
	** measured iteration is the job's duty cycle (docs/MODEL.md, "Work
	** profiles") */
	if (prof->has_res && !(job->tj.gpu_util > 0) && prof->iter_ms > 0 &&
	    job->tj.res_ms[1] > 0)
		prof->duty = fmin(1.0, job->tj.res_ms[1] / prof->iter_ms);
}

/* A worker finished: when it was the last busy one, the job is done. */
static int train_unit_done(struct world *w, void *state, struct gpu_tenant *t)
{
	struct train_state *ts = state;
	struct world_job *job = world__job(w, t->id);
	int g = job->gpu_ids[t - job->tenants], i;
	double jct;

	gpu_finish(&w->gpus[g], t, w->sim.now);
	world__gpu_changed(w, g);
	for (i = 0; i < job->nplaced; i++)
		if (job->tenants[i].busy)
			return 0;        /* wait for the slowest worker */
	jct = (double)(w->sim.now - job->submit_ns);
	sim_sample_add(&ts->jct_s, jct / 1e9);
	sim_sample_add(&ts->queue_s,
		       (double)(job->start_ns - job->submit_ns) / 1e9);
	if (job->solo_ns_ > 0)
		sim_sample_add(&ts->slowdown, jct / job->solo_ns_);
	return world__job_done(w, job->idx);
}

static int train_results(struct world *w, void *state, struct run_result *res)
{
	struct train_state *ts = state;
	int rc = 0;

	(void)w;
	/* A sample whose storage could not grow keeps its moments but not its
	** quantiles: NaN where there are data.  The adds' codes are not
	** checked where they are made (in event handlers), so here. */
	if (ts->jct_s.failed || ts->queue_s.failed || ts->slowdown.failed)
		return SIM_ENOMEM;
#define SET(name, v) if (rc == 0) rc = run_result_set(res, name, (v))
	SET("jct_mean_s", world__res_mean(&ts->jct_s));
	SET("jct_p50_s", world__res_quant(&ts->jct_s, 0.50));
	SET("jct_p95_s", world__res_quant(&ts->jct_s, 0.95));
	SET("jct_p99_s", world__res_quant(&ts->jct_s, 0.99));
	SET("queue_delay_mean_s", world__res_mean(&ts->queue_s));
	SET("slowdown_mean", world__res_mean(&ts->slowdown));
#undef SET
	return rc;
}

static void train_fini(struct world *w, void *state)
{
	struct train_state *ts = state;

	(void)w;
	sim_sample_fini(&ts->jct_s);
	sim_sample_fini(&ts->queue_s);
	sim_sample_fini(&ts->slowdown);
	free(ts);
}

static const struct world_kind train_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "train",
	.eJob = TRACE_TRAIN,
	.xFini = train_fini,
	.xResults = train_results,
	.xUnitDone = train_unit_done,
	.xPlaced = train_placed,
	.bRetire = 1,
};

int world_train_init(struct world *w, const struct world_config *cfg,
		     struct sim_err *err)
{
	struct train_state *ts = calloc(1, sizeof *ts);
	int rc;

	(void)cfg;
	if (ts == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	sim_sample_init(&ts->jct_s, 0);
	sim_sample_init(&ts->queue_s, 0);
	sim_sample_init(&ts->slowdown, 0);
	if ((rc = world__kind_add(w, &train_kind, ts, err)) != 0)
		train_fini(w, ts);
	return rc;
}
