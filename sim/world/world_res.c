/*
** world_res.c: the metrics of a run (see world.h, world_results; metric
** names and units: docs/RESULTS.md).
**
** Time-averaged utilisation is taken over [0, makespan], where makespan is
** the time the last job ended (or the clock at the end of the run when some
** never ended).  HBM utilisation is allocated / capacity summed over GPUs
** (allocations past capacity, under oversubscription, count as full).
**
** A metric that does not apply is NaN: JCT, queueing delay and slowdown
** without a finished training job, latencies without a served request,
** SLO attainment without a request.  `replay --json` prints it as null and
** the results store leaves it out.
**
** Order of the metrics: the core's (makespan, utilisation), each tenant
** kind's in registration order (xResults: the training jobs' JCTs, the
** services' latencies and requests), the job counts, then the policy's
** (world_add_metric).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/world/world_int.h"

/* NaN (the metric does not apply) when there is no sample: 0 would read as
** the best possible latency or JCT for a run that served nothing. */
double world__res_quant(struct sim_sample *s, double q)
{
	return s->n ? sim_sample_quantile(s, q) : (double)NAN;
}

double world__res_mean(const struct sim_sample *s)
{
	return s->n ? s->mean : (double)NAN;
}

int world__res_bins(struct sim_sample *s, int nb, uint64_t *counts,
		    double *lo_out, double *ratio_out)
{
	double lo, hi, r;
	size_t k;

	memset(counts, 0, (size_t)nb * sizeof *counts);
	if (s->n == 0)
		return 0;
	lo = s->min > 1e-6 ? s->min : 1e-6;
	hi = s->max > lo ? s->max : lo * 1.0001;
	r = log(hi / lo) / nb;
#define BIN(x) ((x) <= lo ? 0 : (int)fmin(nb - 1, floor(log((x) / lo) / r)))
	if (!sim_sample_is_hist(s)) {
		for (k = 0; k < s->nvals; k++)
			counts[BIN(s->vals[k])]++;
	} else {
		double g = (1.0 + SIM_HIST_REL_ERR) / (1.0 - SIM_HIST_REL_ERR);
		counts[0] += s->nzero;
		for (k = 0; k < s->nhist; k++) {
			double v = 2.0 * pow(g, (double)(s->hmin + (int64_t)k)) /
				(g + 1.0);
			counts[BIN(v)] += s->hist[k];
		}
	}
#undef BIN
	*lo_out = lo;
	*ratio_out = r;
	return 1;
}

/* A latency histogram of about 40 log-spaced bins between min and max. */
int world__res_lat_hist(struct sim_sample *s, struct run_result *res)
{
	enum { NB = 40 };
	uint64_t counts[NB];
	double lo, r;
	int b, rc;

	if (!world__res_bins(s, NB, counts, &lo, &r))
		return 0;
	for (b = 0; b < NB; b++) {
		struct res_lat_bin bin;
		bin.lo_ms = lo * exp(r * b);
		bin.hi_ms = lo * exp(r * (b + 1));
		bin.count = counts[b];
		if ((rc = run_result_add_lat(res, &bin)) != 0)
			return rc;
	}
	return 0;
}

static const char *kind_name(int kind)
{
	return kind == TRACE_TRAIN ? "train" : kind == TRACE_LLM ? "llm" :
		"infer";
}

/* The result row of a retired job, from its row: what add_jobs gives a
** live one, whose kind has no xJobResult (bRetire). */
static void retired_row(const struct world_jrow *jr, struct res_job *r)
{
	int done = jr->state == JOB_DONE;

	memset(r, 0, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", jr->id);
	snprintf(r->kind, sizeof r->kind, "%s", kind_name(jr->kind));
	snprintf(r->model, sizeof r->model, "%s", jr->model);
	r->gpus = jr->gpus;
	r->first_gpu = jr->first_gpu;
	r->status = done ? 0 : 1;
	r->submit_s = sim_time_to_s(jr->submit_ns);
	r->start_s = jr->start_ns >= 0 ? sim_time_to_s(jr->start_ns) : -1;
	r->end_s = jr->end_ns >= 0 ? sim_time_to_s(jr->end_ns) : -1;
	r->jct_s = done ? sim_time_to_s(jr->end_ns - jr->submit_ns) : -1;
	r->queue_s = jr->start_ns >= 0 ?
		sim_time_to_s(jr->start_ns - jr->submit_ns) : -1;
	r->slowdown = done && jr->solo_ns > 0 ?
		(double)(jr->end_ns - jr->submit_ns) / jr->solo_ns : -1;
	r->slo_ms = r->lat_mean_ms = r->lat_p50_ms = r->lat_p95_ms =
		r->lat_p99_ms = NAN;
}

static int add_jobs(struct world *w, struct run_result *res)
{
	int j, rc;

	/* one allocation for every row (no doubling slack) */
	if ((rc = run_result_reserve_jobs(res, (size_t)w->njobs)) != 0)
		return rc;
	for (j = 0; j < w->njobs; j++) {
		const struct world_jrow *jr = world__retired(w, j) ?
			world__row(w, j) : NULL;
		const struct world_job *job;
		struct res_job r;

		/* (a world with result rows keeps every retired job's row) */
		if (jr != NULL) {
			retired_row(jr, &r);
			if ((rc = run_result_add_job(res, &r)) != 0)
				return rc;
			continue;
		}
		job = world__job(w, j);
		memset(&r, 0, sizeof r);
		snprintf(r.id, sizeof r.id, "%s", job->tj.id);
		snprintf(r.kind, sizeof r.kind, "%s", kind_name(job->tj.kind));
		snprintf(r.model, sizeof r.model, "%s", job->tj.model);
		r.gpus = job->tj.gpus;
		r.first_gpu = job->first_gpu_;
		r.status = job->state == JOB_DONE ? 0 :
			job->state == JOB_FAILED ? 1 : 2;
		r.submit_s = sim_time_to_s(job->submit_ns);
		r.start_s = job->start_ns >= 0 ? sim_time_to_s(job->start_ns) : -1;
		r.end_s = job->end_ns >= 0 ? sim_time_to_s(job->end_ns) : -1;
		r.jct_s = job->state == JOB_DONE ?
			sim_time_to_s(job->end_ns - job->submit_ns) : -1;
		r.queue_s = job->start_ns >= 0 ?
			sim_time_to_s(job->start_ns - job->submit_ns) : -1;
		r.slowdown = job->state == JOB_DONE && job->solo_ns_ > 0 ?
			(double)(job->end_ns - job->submit_ns) / job->solo_ns_ :
			-1;
		r.slo_ms = r.lat_mean_ms = r.lat_p50_ms = r.lat_p95_ms =
			r.lat_p99_ms = NAN;
		world__kind_job_result(w, job, &r);
		if ((rc = run_result_add_job(res, &r)) != 0)
			return rc;
	}
	return 0;
}

static int add_series(struct world *w, struct run_result *res)
{
	const struct world_series *se = &w->series;
	int k, g, rc;

	for (k = 0; k < se->n; k++) {
		struct res_series s;
		const double *row = &se->v[(size_t)k * se->width];
		s.t_s = sim_time_to_s(se->t[k]);
		s.gpu = -1;
		s.hbm_frac = row[0];
		s.sm_frac = row[1];
		if ((rc = run_result_add_series(res, &s)) != 0)
			return rc;
		for (g = 0; se->per_gpu && g < w->ngpus; g++) {
			s.gpu = g;
			s.hbm_frac = row[2 + 2 * g];
			s.sm_frac = row[3 + 2 * g];
			if ((rc = run_result_add_series(res, &s)) != 0)
				return rc;
		}
	}
	return 0;
}

int world_results(struct world *w, struct run_result *res,
		  struct sim_err *err)
{
	sim_time t_end = 0;
	double hbm = 0, cap = 0, sm = 0;
	int j, g, done = 0, failed = 0, rc = 0, unfinished = 0;

	for (j = 0; j < w->njobs; j++) {
		enum job_state st = world__job_state(w, j);
		if (st == JOB_DONE) {
			const struct world_jrow *jr = world__retired(w, j) ?
				world__row(w, j) : NULL;
			/* a lean world's released jobs: rel_end_max below */
			sim_time end = jr != NULL ? jr->end_ns :
				world__retired(w, j) ? 0 :
				world__job(w, j)->end_ns;
			done++;
			if (end > t_end)
				t_end = end;
		} else if (st == JOB_FAILED) {
			failed++;
		} else {
			unfinished++;
		}
	}
	if (w->rel_end_max > t_end)
		t_end = w->rel_end_max;
	if (unfinished > 0 || t_end == 0)
		t_end = w->sim.now;
	for (g = 0; g < w->ngpus; g++) {
		double c = (double)w->gpus[g].dev->hbm_bytes;
		double m = sim_twacc_mean(&w->gpus[g].hbm, t_end);
		hbm += m > c ? c : m;
		cap += c;
		sm += sim_twacc_mean(&w->gpus[g].sm, t_end);
	}
#define SET(name, v) if (rc == 0) rc = run_result_set(res, name, (v))
	SET("makespan_s", sim_time_to_s(t_end));
	SET("hbm_util_mean", cap > 0 ? hbm / cap : 0);
	SET("sm_util_mean", w->ngpus ? sm / w->ngpus : 0);
	if (rc == 0)
		rc = world__kinds_results(w, res);
	SET("jobs_total", (double)w->njobs);
	SET("jobs_done", (double)done);
	SET("jobs_failed", (double)failed);
	SET("jobs_unfinished", (double)unfinished);
	SET("gpu_hours", (double)w->ngpus * sim_time_to_s(t_end) / 3600.0);
	SET("events", (double)w->sim.events);
	for (j = 0; j < w->nxmetrics; j++)
		SET(w->xmetrics[j].name, w->xmetrics[j].value);
#undef SET
	res->events = w->sim.events;
	if (rc == 0 && !w->metrics_only)
		rc = add_jobs(w, res);
	if (rc == 0)
		rc = add_series(w, res);
	if (rc == 0 && !w->metrics_only)
		rc = world__plog_results(w, res);
	if (rc != 0)
		return sim_err_set(err, rc, "results: %s", sim_strerror(rc));
	return 0;
}
