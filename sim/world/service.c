/*
** service.c: inference services, the tenant kind "replica" that runs the
** trace's services (see service.h; docs/MODEL.md, "Inference services").
**
** Each request is simulated.  Arrivals come one at a time from the trace's
** arrival process (a named random stream per service, so every policy sees
** the same requests).  A request goes to a replica chosen by the policy's
** xOnRequest (default: the shortest queue, lowest index on ties).  A replica
** runs one batch at a time: when idle with requests queued it starts a batch
** of min(queued, max batch) unless the batch is not full and the oldest
** request has waited less than the batching timeout, in which case it waits
** until that deadline or a full batch.  Batch latency is the device's
** L(model, batch) stretched by the tenant's speed in the GPU model.  A
** request's latency is completion time minus arrival time.
**
** Arrivals end at the service's lifetime (submit + duration_s), when its
** arrival process runs out, when the service fails (a failed service draws
** no more requests), or, for an open service (no duration_s and an arrival
** process that never ends by itself: Poisson, or rates whose last rate is
** not 0), when nothing but open services is left in the world (see
** world__job_open and xClose): an open service lives as long as the rest
** of the workload.
** Memory is bounded: the world holds at most max_queued requests in all
** backlogs and replica queues together (the batch in flight included); an
** arrival that finds the bound reached is rejected: counted in
** requests_total, requests_unserved and requests_rejected, never served.
** A queue that empties gives its large buffer back.
**
** A service whose requests are served elsewhere (the GPU pool, through
** svc_set_external) has no replicas: route() hands each request to that
** server, which reports back with svc_external_done / _batch.
**
** State: the kind's registration state (struct svc_world: the request
** counters and latencies of the run, the queue bound) and one struct
** world_service per service (job->svc), freed at world_destroy.
*/
#include "sim/world/service.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "models/workload.h"
#include "sim/world/world_int.h"

struct req_fifo {
	sim_time *t;
	size_t head, n, cap;
};

struct replica {
	struct req_fifo q;
	int inflight;            /* requests in the running batch */
	uint64_t timeout_ev;     /* pending batching deadline, 0 none */
	sim_time t_batch;        /* when the running batch started */
	/* The last batch size's work, a pure function of (model, device,
	** size): most batches repeat the size, and deriving it looks the
	** device's fit up by name (docs/PERFORMANCE.md). */
	int memo_n;              /* 0: none yet */
	const struct dev_profile *memo_dev;
	double memo_ns;
	struct gpu_work_profile memo_prof;
};

/* The measurement window a policy reads (world_svc_window): counts since
** the last reset.  Batch sums are the sufficient statistics of a linear
** least-squares fit of batch execution time on batch size. */
struct svc_win {
	sim_time t0;
	uint64_t arrivals, served, slo_miss, batches;
	double bsum, b2sum, exec_ms, bexec_ms;
	struct sim_sample lat_ms;
};

/* The kind's state: what every service of the world shares. */
struct svc_world {
	struct sim_sample lat_ms;     /* every served request's latency */
	uint64_t req_total, req_served, req_slo_ok;
	uint64_t req_queued;          /* in backlogs and replica queues now */
	uint64_t req_rejected;        /* arrivals refused: queues full */
	uint64_t max_queued;          /* the bound on req_queued */
	/* what released services' records took with them (svc_retire) */
	unsigned long long rel_unserved;
	int rel_failed;               /* one's latency sample failed */
};

struct world_service {
	struct svc_world *ws;
	struct trace_arrivals *arr;
	struct sim_rng rng;
	int arrivals_done;
	uint64_t req_ev;         /* the pending next request, 0 none */
	sim_time end_ns;         /* no requests after this */
	struct req_fifo backlog; /* before placement */
	struct replica *rep;
	int nrep;
	int max_batch;           /* current max batch, 1..tj.batch */
	struct svc_win win;
	svc_route_fn *ext;       /* served elsewhere (svc_set_external) */
	void *ext_ctx;
	long ext_out;            /* requests handed there, unfinished */
	int backlog_uncounted;   /* failed: its backlog (kept, unserved) no
				    longer counts in ws->req_queued */
	/* the whole run, for the service's result row (svc_job_result) */
	uint64_t n_req, n_served, n_slo_ok;
	struct sim_sample lat_all_ms;
	/* Done (svc_shrink): the row's latencies and the window's p99 kept,
	** the samples' values, the arrival stream and the queues' buffers
	** freed, so that finished services cost a few hundred bytes each. */
	int final_, win_frozen_, lat_failed_;
	double fin_mean_, fin_p50_, fin_p95_, fin_p99_, win_p99_;
};

/* Exact latencies kept per service before its histogram takes over
** (sim/stats.h: quantiles then within 1%): 8 KiB per service. */
#define SVC_LAT_EXACT 1024

/* Counts one served request of service sv in its whole-run tally. */
static void tally(struct world_service *sv, sim_time lat, sim_time slo_ns)
{
	sv->n_served++;
	if (lat <= slo_ns)
		sv->n_slo_ok++;
	/* out of memory: the moments still count, the quantiles go NaN */
	(void)sim_sample_add(&sv->lat_all_ms, sim_time_to_ms(lat));
}

static int fifo_push(struct req_fifo *f, sim_time t)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16, k;
		sim_time *p = malloc(cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		for (k = 0; k < f->n; k++)
			p[k] = f->t[(f->head + k) % f->cap];
		free(f->t);
		f->t = p;
		f->head = 0;
		f->cap = cap;
	}
	f->t[(f->head + f->n) % f->cap] = t;
	f->n++;
	return 0;
}

/* Frees the buffer of an empty queue once it has grown past this many
** entries, so that the memory of a drained burst is given back. */
#define FIFO_KEEP_CAP 4096

/* Queues arrival t on f, or rejects it when the world's bound is reached. */
static int queue_push(struct svc_world *ws, struct req_fifo *f, sim_time t)
{
	int rc;

	if (ws->req_queued >= ws->max_queued) {
		ws->req_rejected++;
		return 0;
	}
	if ((rc = fifo_push(f, t)) != 0)
		return rc;
	ws->req_queued++;
	return 0;
}

static sim_time fifo_front(const struct req_fifo *f)
{
	return f->t[f->head];
}

static sim_time fifo_pop(struct req_fifo *f)
{
	sim_time t = f->t[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	if (f->n == 0 && f->cap > FIFO_KEEP_CAP) {
		free(f->t);
		f->t = NULL;
		f->head = 0;
		f->cap = 0;
	}
	return t;
}

static sim_time queue_pop(struct svc_world *ws, struct req_fifo *f)
{
	ws->req_queued--;
	return fifo_pop(f);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg);
static int drained(const struct world_service *sv);

static double quant_or_nan(struct sim_sample *s, double q)
{
	return s->n ? sim_sample_quantile(s, q) : (double)NAN;
}

/* Service sv is done (drained, its arrivals over): what its result row
** and its window still report is computed now, and the memory that only
** a live service needs (latency values, arrival stream, queue buffers)
** given back.  The numbers are those the samples would give later:
** nothing is added to a done service. */
static void svc_shrink(struct world_service *sv)
{
	struct sim_sample *s = &sv->lat_all_ms;
	int r;

	if (sv->final_)
		return;
	sv->final_ = 1;
	sv->lat_failed_ = s->failed;
	sv->fin_mean_ = s->n ? s->mean : (double)NAN;
	sv->fin_p50_ = quant_or_nan(s, 0.50);
	sv->fin_p95_ = quant_or_nan(s, 0.95);
	sv->fin_p99_ = quant_or_nan(s, 0.99);
	sim_sample_fini(s);           /* keeps n and the moments */
	if (sv->win.lat_ms.n > 0) {
		sv->win_p99_ = sim_sample_quantile(&sv->win.lat_ms, 0.99);
		sv->win_frozen_ = 1;
	}
	sim_sample_fini(&sv->win.lat_ms);
	if (sv->arr != NULL) {
		trace_arrivals_close(sv->arr);
		sv->arr = NULL;
	}
	if (sv->backlog.n == 0) {
		free(sv->backlog.t);
		memset(&sv->backlog, 0, sizeof sv->backlog);
	}
	for (r = 0; r < sv->nrep; r++)
		if (sv->rep[r].q.n == 0) {
			free(sv->rep[r].q.t);
			memset(&sv->rep[r].q, 0, sizeof sv->rep[r].q);
		}
}

/* Service j is done now: the core's end, then svc_shrink. */
static int svc_done(struct world *w, int j)
{
	int rc = world__job_done(w, j);

	svc_shrink(world__job(w, j)->svc);
	return rc;
}

static int on_check(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)arg;

	(void)s;
	if (world__job(w, j)->state == JOB_RUNNING &&
	    drained(world__job(w, j)->svc))
		return svc_done(w, j);
	return 0;
}

/* Ends the service at this instant if it has nothing left to do; through
** an event, so that no hook runs inside another. */
static int check_later(struct world *w, int j)
{
	const struct world_service *sv = world__job(w, j)->svc;

	if ((sv->nrep == 0 && sv->ext == NULL) || !drained(sv))
		return 0;
	return sim_schedule_at(&w->sim, w->sim.now, SIM_PRIO_COMPLETE,
			       on_check, w, (uint64_t)j, NULL);
}

/* Marks the arrivals of a service over (cancelling the next request). */
static void arrivals_end(struct world *w, struct world_job *job)
{
	struct world_service *sv = job->svc;

	if (sv->arrivals_done)
		return;
	if (sv->req_ev != 0) {
		sim_cancel(&w->sim, sv->req_ev);
		sv->req_ev = 0;
	}
	sv->arrivals_done = 1;
	world__job_open(w, job, 0);
}

/* Schedules the next request of service j, or marks arrivals done. */
static int next_request(struct world *w, int j)
{
	struct world_service *sv = world__job(w, j)->svc;
	struct sim_err e = { 0, "" };
	sim_time t;
	int rc = trace_arrivals_next(sv->arr, &t, &e);

	if (rc < 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	if (rc == 0 || t > sv->end_ns) {
		arrivals_end(w, world__job(w, j));
		return check_later(w, j);
	}
	if (t < w->sim.now)
		t = w->sim.now;          /* arrival files may repeat times */
	return sim_schedule_at(&w->sim, t, SIM_PRIO_ARRIVAL, on_request, w,
			       (uint64_t)j, &sv->req_ev);
}

/* xFail: a failed service draws no more requests. */
static int svc_fail(struct world *w, void *state, struct world_job *job)
{
	struct world_service *sv = job->svc;

	(void)state;
	arrivals_end(w, job);
	/* a failed service is never served: its backlog must not hold the
	** world's bound for the rest of the run */
	if (!sv->backlog_uncounted) {
		sv->ws->req_queued -= sv->backlog.n;
		sv->backlog_uncounted = 1;
	}
	return 0;
}

/* xClose: only open services are left; this one's arrivals end now. */
static int svc_close(struct world *w, void *state, struct world_job *job)
{
	(void)state;
	arrivals_end(w, job);
	if (job->state == JOB_RUNNING)
		return check_later(w, job->idx);
	return 0;
}

/* xArrive: opens the request stream and schedules the first request. */
static int svc_arrive(struct world *w, void *state, struct world_job *job)
{
	struct world_service *sv = calloc(1, sizeof *sv);
	struct sim_err e = { 0, "" };
	int rc, j = job->idx;

	if (sv == NULL)
		return SIM_ENOMEM;
	job->svc = sv;
	sv->ws = state;
	/* The request stream is named by the job's position in the trace,
	** so it is the same under every policy (common random numbers). */
	if ((rc = sim_rng_init(&sv->rng, w->seed, "requests", (uint64_t)j,
			       &e)) != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	if ((rc = trace_arrivals_open_in(&sv->arr, &job->tj,
					  trace_dir(w->tr),
					  trace_arrivals_dir(w->tr), &sv->rng,
					  &e)) != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	sv->max_batch = job->tj.batch > 0 ? job->tj.batch : 1;
	sv->win.t0 = w->sim.now;
	sim_sample_init(&sv->win.lat_ms, 0);
	sim_sample_init(&sv->lat_all_ms, SVC_LAT_EXACT);
	sv->end_ns = job->tj.duration_ns > 0 ?
		sim_time_add_sat(job->submit_ns, job->tj.duration_ns) :
		SIM_TIME_MAX;
	world__job_open(w, job, trace_arrivals_open_ended(&job->tj));
	return next_request(w, j);
}

/* Frees a service's state (no-op for a job without one). */
static void svc_destroy(struct world_job *job)
{
	struct world_service *sv = job->svc;
	int r;

	if (sv == NULL)
		return;
	if (sv->arr != NULL)
		trace_arrivals_close(sv->arr);
	sim_rng_fini(&sv->rng);
	sim_sample_fini(&sv->win.lat_ms);
	sim_sample_fini(&sv->lat_all_ms);
	if (!sv->backlog_uncounted)
		sv->ws->req_queued -= sv->backlog.n;
	free(sv->backlog.t);
	for (r = 0; r < sv->nrep; r++) {
		sv->ws->req_queued -= sv->rep[r].q.n;
		free(sv->rep[r].q.t);
	}
	free(sv->rep);
	free(sv);
	job->svc = NULL;
}

static int on_timeout(struct sim *s, void *ctx, uint64_t arg);

/* Starts a batch on replica r if it is idle and the batching rule allows. */
static int try_start(struct world *w, int j, int r)
{
	struct world_job *job = world__job(w, j);
	struct world_service *sv = job->svc;
	struct replica *rp = &sv->rep[r];
	struct gpu *g = &w->gpus[job->gpu_ids[r]];
	struct gpu_work_profile prof;
	int n = (int)rp->q.n, maxb = sv->max_batch;

	if (rp->inflight > 0 || n == 0)
		return 0;
	if (n < maxb && job->tj.batch_timeout_ns > 0) {
		sim_time deadline = sim_time_add_sat(fifo_front(&rp->q),
						     job->tj.batch_timeout_ns);
		if (w->sim.now < deadline) {
			if (rp->timeout_ev == 0)
				return sim_schedule_at(&w->sim, deadline,
					SIM_PRIO_TIMER, on_timeout, w,
					((uint64_t)j << 16) | (uint64_t)r,
					&rp->timeout_ev);
			return 0;
		}
	}
	if (rp->timeout_ev != 0) {
		sim_cancel(&w->sim, rp->timeout_ev);
		rp->timeout_ev = 0;
	}
	if (n > maxb)
		n = maxb;
	rp->inflight = n;
	rp->t_batch = w->sim.now;
	if (rp->memo_n != n || rp->memo_dev != g->dev) {
		wl_infer_profile(job->model, g->dev, n, &rp->memo_prof);
		rp->memo_ns = (double)wl_infer_batch_ns(job->model, g->dev, n);
		rp->memo_n = n;
		rp->memo_dev = g->dev;
	}
	prof = rp->memo_prof;
	gpu_begin(g, &job->tenants[r], rp->memo_ns, &prof, w->sim.now);
	return world__gpu_changed(w, job->gpu_ids[r]);
}

static int on_timeout(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)(arg >> 16), r = (int)(arg & 0xffff);

	(void)s;
	world__job(w, j)->svc->rep[r].timeout_ev = 0;
	return try_start(w, j, r);
}

/* The default route: the shortest queue (counting the batch in flight). */
static int shortest_queue(const struct world_service *sv)
{
	int r, best = 0;
	size_t best_n = (size_t)-1;

	for (r = 0; r < sv->nrep; r++) {
		size_t n = sv->rep[r].q.n;   /* includes the batch in flight */
		if (n < best_n) {
			best_n = n;
			best = r;
		}
	}
	return best;
}

static int route(struct world *w, int j, sim_time t_arr)
{
	struct world_service *sv = world__job(w, j)->svc;
	int r, rc;

	if (sv->ext != NULL) {
		sv->ext_out++;
		return sv->ext(w, sv->ext_ctx, j, t_arr);
	}
	if (sv->nrep == 0)
		return queue_push(sv->ws, &sv->backlog, t_arr);
	if ((rc = world__ask_route(w, j, &r)) < 0)
		return rc;
	if (r >= sv->nrep)
		return sim_fail(&w->sim, SIM_EINVAL, "policy %s routed a "
				"request of job %d to replica %d of %d",
				w->pol->zName, j, r, sv->nrep);
	if (r < 0)
		r = shortest_queue(sv);
	if ((rc = queue_push(sv->ws, &sv->rep[r].q, t_arr)) != 0)
		return rc;
	return try_start(w, j, r);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)arg, rc;

	(void)s;
	world__job(w, j)->svc->req_ev = 0;
	world__job(w, j)->svc->ws->req_total++;
	world__job(w, j)->svc->n_req++;
	world__job(w, j)->svc->win.arrivals++;
	if ((rc = route(w, j, w->sim.now)) != 0)
		return rc;
	return next_request(w, j);
}

/* xPlaced: one queue per replica; the requests that waited while the
** service was pending are routed now. */
static int svc_placed(struct world *w, void *state, struct world_job *job)
{
	struct world_service *sv = job->svc;
	int r, rc, j = job->idx;

	(void)state;
	sv->rep = calloc((size_t)job->nplaced, sizeof *sv->rep);
	if (sv->rep == NULL)
		return SIM_ENOMEM;
	sv->nrep = job->nplaced;
	while (sv->backlog.n > 0)
		if ((rc = route(w, j, queue_pop(sv->ws, &sv->backlog))) != 0)
			return rc;
	for (r = 0; r < sv->nrep; r++)
		if ((rc = try_start(w, j, r)) != 0)
			return rc;
	return check_later(w, j);
}

static int drained(const struct world_service *sv)
{
	int r;

	if (!sv->arrivals_done || sv->backlog.n > 0 || sv->ext_out > 0)
		return 0;
	for (r = 0; r < sv->nrep; r++)
		if (sv->rep[r].q.n > 0 || sv->rep[r].inflight > 0)
			return 0;
	return 1;
}

/*
** xUnitDone: the batch of replica k finished now.  Its tenant is still busy
** in the GPU model (its unit done, nothing left): the next batch, if one
** starts, replaces the unit (gpu_begin), so the GPU's speeds are recomputed
** once, not twice, per batch boundary (one reschedule of the GPU, where
** finishing first took two, for an instant of no length); otherwise the
** unit ends here (gpu_finish) and the GPU is rescheduled.
*/
static int svc_unit_done(struct world *w, void *state, struct gpu_tenant *t)
{
	struct world_job *job = world__job(w, t->id);
	struct world_service *sv = job->svc;
	struct svc_world *ws = state;
	int k = (int)(t - job->tenants), j = job->idx;
	struct replica *rp = &sv->rep[k];
	struct svc_win *wn = &sv->win;
	double b = rp->inflight, ex = sim_time_to_ms(w->sim.now - rp->t_batch);
	int rc;

	wn->batches++;
	wn->bsum += b;
	wn->b2sum += b * b;
	wn->exec_ms += ex;
	wn->bexec_ms += b * ex;
	while (rp->inflight > 0) {
		sim_time lat = w->sim.now - queue_pop(ws, &rp->q);
		sim_sample_add(&ws->lat_ms, sim_time_to_ms(lat));
		if ((rc = sim_sample_add(&wn->lat_ms, sim_time_to_ms(lat))) != 0)
			return sim_fail(&w->sim, rc, "out of memory");
		ws->req_served++;
		wn->served++;
		tally(sv, lat, job->tj.slo_ns);
		if (lat <= job->tj.slo_ns)
			ws->req_slo_ok++;
		else
			wn->slo_miss++;
		rp->inflight--;
	}
	if ((rc = try_start(w, j, k)) != 0)
		return rc;
	if (rp->inflight == 0) {
		/* No batch started: the replica's unit ends now.  Nothing
		** else was pushed at PRIO_COMPLETE since the batch ended, so
		** the order of events is what it was when the unit ended
		** before try_start (docs/PERFORMANCE.md). */
		int g = job->gpu_ids[k];
		gpu_finish(&w->gpus[g], &job->tenants[k], w->sim.now);
		if ((rc = world__gpu_changed(w, g)) != 0)
			return rc;
	}
	if (drained(sv)) {
		for (k = 0; k < sv->nrep; k++)
			if (sv->rep[k].timeout_ev != 0) {
				sim_cancel(&w->sim, sv->rep[k].timeout_ev);
				sv->rep[k].timeout_ev = 0;
			}
		return svc_done(w, j);
	}
	return 0;
}

int svc_queue_len(const struct world *w, int j, int r)
{
	const struct world_service *sv = world__job(w, j)->svc;

	if (sv == NULL)
		return 0;
	if (r < 0)
		return (int)sv->backlog.n;
	if (r >= sv->nrep)
		return 0;
	return (int)sv->rep[r].q.n;
}

/* Requests never served (still queued or in flight) at the end. */
static unsigned long long svc_unserved(const struct world *w, int j)
{
	const struct world_service *sv = world__job(w, j)->svc;
	unsigned long long n;
	int r;

	if (sv == NULL)
		return 0;
	n = sv->backlog.n + (unsigned long long)sv->ext_out;
	for (r = 0; r < sv->nrep; r++)
		n += sv->rep[r].q.n;
	return n;
}

int svc_set_batch(struct world *w, int j, int max_batch)
{
	struct world_service *sv = world__job(w, j)->svc;
	int r, rc;

	sv->max_batch = max_batch;
	/* A larger batch may be startable now; a smaller one takes effect
	** with the next batch (the running one is not cut). */
	for (r = 0; r < sv->nrep; r++)
		if ((rc = try_start(w, j, r)) != 0)
			return rc;
	return 0;
}

int svc_max_batch(const struct world *w, int j)
{
	const struct world_service *sv = world__job(w, j)->svc;

	return sv != NULL ? sv->max_batch : 0;
}

int svc_window(struct world *w, int j, struct world_svc_window *out)
{
	struct world_service *sv = world__job(w, j)->svc;
	struct svc_win *wn = &sv->win;
	int r;

	memset(out, 0, sizeof *out);
	out->t0_ns = wn->t0;
	out->len_ns = w->sim.now - wn->t0;
	out->arrivals = wn->arrivals;
	out->served = wn->served;
	out->slo_miss = wn->slo_miss;
	out->batches = wn->batches;
	out->batch_sum = wn->bsum;
	out->batch_sum2 = wn->b2sum;
	out->exec_sum_ms = wn->exec_ms;
	out->bexec_sum_ms = wn->bexec_ms;
	if (wn->lat_ms.n > 0) {
		out->lat_p99_ms = sv->win_frozen_ ? sv->win_p99_ :
			sim_sample_quantile(&wn->lat_ms, 0.99);
		out->lat_max_ms = wn->lat_ms.max;
		out->lat_mean_ms = wn->lat_ms.mean;
	}
	out->max_batch = sv->max_batch;
	out->replicas = sv->nrep;
	out->queued = (uint64_t)sv->backlog.n;
	for (r = 0; r < sv->nrep; r++)
		out->queued += sv->rep[r].q.n;
	return 0;
}

void svc_window_reset(struct world *w, int j)
{
	struct svc_win *wn = &world__job(w, j)->svc->win;

	world__job(w, j)->svc->win_frozen_ = 0;

	sim_sample_fini(&wn->lat_ms);
	memset(wn, 0, sizeof *wn);
	sim_sample_init(&wn->lat_ms, 0);
	wn->t0 = w->sim.now;
}

int svc_set_external(struct world *w, int j, svc_route_fn *fn, void *ctx)
{
	struct world_service *sv = world__job(w, j)->svc;
	int rc;

	sv->ext = fn;
	sv->ext_ctx = ctx;
	/* queue_pop: the backlog leaves the world's bounded queues */
	while (sv->backlog.n > 0)
		if ((rc = route(w, j, queue_pop(sv->ws, &sv->backlog))) != 0)
			return rc;
	return check_later(w, j);
}

int svc_is_external(const struct world *w, int j)
{
	const struct world_service *sv = world__job(w, j)->svc;

	return sv != NULL && sv->ext != NULL;
}

void svc_external_batch(struct world *w, int j, int n, sim_time t0)
{
	struct svc_win *wn = &world__job(w, j)->svc->win;
	double b = n, ex = sim_time_to_ms(w->sim.now - t0);

	wn->batches++;
	wn->bsum += b;
	wn->b2sum += b * b;
	wn->exec_ms += ex;
	wn->bexec_ms += b * ex;
}

int svc_external_done(struct world *w, int j, sim_time t_arr)
{
	struct world_job *job = world__job(w, j);
	struct world_service *sv = job->svc;
	struct svc_world *ws = sv->ws;
	sim_time lat = w->sim.now - t_arr;
	int rc;

	sim_sample_add(&ws->lat_ms, sim_time_to_ms(lat));
	if ((rc = sim_sample_add(&sv->win.lat_ms, sim_time_to_ms(lat))) != 0)
		return sim_fail(&w->sim, rc, "out of memory");
	ws->req_served++;
	sv->win.served++;
	tally(sv, lat, job->tj.slo_ns);
	if (lat <= job->tj.slo_ns)
		ws->req_slo_ok++;
	else
		sv->win.slo_miss++;
	sv->ext_out--;
	return check_later(w, j);
}

/* The kind's xJobResult: service j's whole-run request counts and
** latencies into its result row. */
static void svc_job_result(struct world *w, void *state,
			   const struct world_job *job, struct res_job *r)
{
	struct world_service *sv = job->svc;
	struct sim_sample *s;

	(void)w; (void)state;
	if (sv == NULL)
		return;
	s = &sv->lat_all_ms;
	r->req_total = sv->n_req;
	r->req_served = sv->n_served;
	r->req_slo_ok = sv->n_slo_ok;
	r->slo_ms = sim_time_to_ms(job->tj.slo_ns);
	if (sv->final_) {
		r->lat_mean_ms = sv->fin_mean_;
		r->lat_p50_ms = sv->fin_p50_;
		r->lat_p95_ms = sv->fin_p95_;
		r->lat_p99_ms = sv->fin_p99_;
		return;
	}
	r->lat_mean_ms = s->n ? s->mean : (double)NAN;
	r->lat_p50_ms = s->n ? sim_sample_quantile(s, 0.50) : (double)NAN;
	r->lat_p95_ms = s->n ? sim_sample_quantile(s, 0.95) : (double)NAN;
	r->lat_p99_ms = s->n ? sim_sample_quantile(s, 0.99) : (double)NAN;
}

/* ---- the kind ------------------------------------------------------------ */

/* The kind's xRetire: service job's record goes (a metrics-only world):
** what svc_results reads of it is folded into the kind's state, its
** state freed.  One still waiting for requests the GPU pool serves keeps
** its record (WORLD_PASS). */
static int svc_retire(struct world *w, void *state, struct world_job *job)
{
	struct svc_world *ws = state;
	struct world_service *sv = job->svc;

	if (sv == NULL)
		return 0;
	if (sv->ext_out > 0)
		return WORLD_PASS;
	ws->rel_unserved += svc_unserved(w, job->idx);
	ws->rel_failed |= sv->lat_all_ms.failed || sv->lat_failed_;
	svc_destroy(job);
	return 0;
}

static int svc_results(struct world *w, void *state, struct run_result *res)
{
	struct svc_world *ws = state;
	unsigned long long unserved = 0;
	int j, rc = 0;

	/* a latency sample that could not grow: NaN quantiles (as in
	** train_results) */
	if (ws->lat_ms.failed || ws->rel_failed)
		return SIM_ENOMEM;
	unserved = ws->rel_unserved;
	for (j = 0; j < w->njobs; j++) {
		const struct world_job *job;
		if (world__retired(w, j))
			continue;     /* a retired job has no service */
		job = world_job(w, j);
		if (job->svc != NULL && (job->svc->lat_all_ms.failed ||
					 job->svc->lat_failed_))
			return SIM_ENOMEM;
		unserved += svc_unserved(w, j);
	}
#define SET(name, v) if (rc == 0) rc = run_result_set(res, name, (v))
	SET("latency_p50_ms", world__res_quant(&ws->lat_ms, 0.50));
	SET("latency_p95_ms", world__res_quant(&ws->lat_ms, 0.95));
	SET("latency_p99_ms", world__res_quant(&ws->lat_ms, 0.99));
	SET("slo_attainment", ws->req_total ?
	    (double)ws->req_slo_ok / (double)ws->req_total : (double)NAN);
	SET("requests_total", (double)ws->req_total);
	SET("requests_served", (double)ws->req_served);
	SET("requests_unserved", (double)(unserved + ws->req_rejected));
	SET("requests_rejected", (double)ws->req_rejected);
#undef SET
	if (rc == 0)
		rc = world__res_lat_hist(&ws->lat_ms, res);
	return rc;
}

static void svc_fini(struct world *w, void *state)
{
	struct svc_world *ws = state;
	int j;

	for (j = 0; j < w->njobs; j++)
		svc_destroy(world__job(w, j));
	sim_sample_fini(&ws->lat_ms);
	free(ws);
}

static const struct world_kind svc_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "replica",
	.eJob = TRACE_INFER,
	.xFini = svc_fini,
	.xResults = svc_results,
	.xUnitDone = svc_unit_done,
	.xArrive = svc_arrive,
	.xPlaced = svc_placed,
	.xFail = svc_fail,
	.xClose = svc_close,
	.xJobResult = svc_job_result,
	.xRetire = svc_retire,
	.bRetireMetrics = 1,
};

int svc_init(struct world *w, const struct world_config *cfg,
	     struct sim_err *err)
{
	struct svc_world *ws = calloc(1, sizeof *ws);
	int rc;

	if (ws == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	sim_sample_init(&ws->lat_ms, 0);
	ws->max_queued = cfg->max_queued_requests > 0 ?
		cfg->max_queued_requests : WORLD_MAX_QUEUED_DEFAULT;
	if ((rc = world__kind_add(w, &svc_kind, ws, err)) != 0) {
		sim_sample_fini(&ws->lat_ms);
		free(ws);
	}
	return rc;
}
