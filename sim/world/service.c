/*
** service.c: inference services (see service.h; docs/MODEL.md, "Inference
** services").
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
** svc_close_open): an open service lives as long as the rest of the
** workload.
** Memory is bounded: the world holds at most w->max_queued requests in all
** backlogs and replica queues together (the batch in flight included); an
** arrival that finds the bound reached is rejected: counted in
** requests_total, requests_unserved and requests_rejected, never served.
** A queue that empties gives its large buffer back.
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

struct world_service {
	struct trace_arrivals *arr;
	struct sim_rng rng;
	int arrivals_done;
	int open;                /* arrivals never end by themselves */
	uint64_t req_ev;         /* the pending next request, 0 none */
	sim_time end_ns;         /* no requests after this */
	struct req_fifo backlog; /* before placement */
	struct replica *rep;
	int nrep;
	int max_batch;           /* current max batch, 1..tj.batch */
	struct svc_win win;
	int pooled;              /* served by the GPU pool (world_load.c) */
	long pool_out;           /* requests handed to the pool, unfinished */
	int backlog_uncounted;   /* failed: its backlog (kept, unserved) no
				    longer counts in w->req_queued */
};

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
static int queue_push(struct world *w, struct req_fifo *f, sim_time t)
{
	int rc;

	if (w->req_queued >= w->max_queued) {
		w->req_rejected++;
		return 0;
	}
	if ((rc = fifo_push(f, t)) != 0)
		return rc;
	w->req_queued++;
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

static sim_time queue_pop(struct world *w, struct req_fifo *f)
{
	w->req_queued--;
	return fifo_pop(f);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg);
static int drained(const struct world_service *sv);

static int on_check(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)arg;

	(void)s;
	if (w->jobs[j].state == JOB_RUNNING && drained(w->jobs[j].svc))
		return world__job_done(w, j);
	return 0;
}

/* Ends the service at this instant if it has nothing left to do; through
** an event, so that no hook runs inside another. */
static int check_later(struct world *w, int j)
{
	const struct world_service *sv = w->jobs[j].svc;

	if ((sv->nrep == 0 && !sv->pooled) || !drained(sv))
		return 0;
	return sim_schedule_at(&w->sim, w->sim.now, SIM_PRIO_COMPLETE,
			       on_check, w, (uint64_t)j, NULL);
}

/* Marks the arrivals of service j over (cancelling the next request). */
static void arrivals_end(struct world *w, struct world_service *sv)
{
	if (sv->arrivals_done)
		return;
	if (sv->req_ev != 0) {
		sim_cancel(&w->sim, sv->req_ev);
		sv->req_ev = 0;
	}
	sv->arrivals_done = 1;
	if (sv->open)
		w->open_svcs--;
}

/* Schedules the next request of service j, or marks arrivals done. */
static int next_request(struct world *w, int j)
{
	struct world_service *sv = w->jobs[j].svc;
	struct sim_err e = { 0, "" };
	sim_time t;
	int rc = trace_arrivals_next(sv->arr, &t, &e);

	if (rc < 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	if (rc == 0 || t > sv->end_ns) {
		arrivals_end(w, sv);
		return check_later(w, j);
	}
	if (t < w->sim.now)
		t = w->sim.now;          /* arrival files may repeat times */
	return sim_schedule_at(&w->sim, t, SIM_PRIO_ARRIVAL, on_request, w,
			       (uint64_t)j, &sv->req_ev);
}

/* 1 if a service's arrivals never end by themselves (see the top). */
static int open_ended(const struct trace_job *tj)
{
	const char *last;

	if (tj->duration_ns > 0)
		return 0;
	if (tj->arrival == TRACE_ARR_POISSON)
		return 1;
	if (tj->arrival != TRACE_ARR_RATES)
		return 0;
	last = strrchr(tj->arrival_arg, ';');
	last = last != NULL ? last + 1 : tj->arrival_arg;
	return strtod(last, NULL) > 0;
}

int svc_fail(struct world *w, int j)
{
	struct world_service *sv = w->jobs[j].svc;

	if (sv != NULL) {
		arrivals_end(w, sv);
		/* a failed service is never served: its backlog must not
		** hold the world's bound for the rest of the run */
		if (!sv->backlog_uncounted) {
			w->req_queued -= sv->backlog.n;
			sv->backlog_uncounted = 1;
		}
	}
	return 0;
}

int svc_close_open(struct world *w)
{
	int j, rc;

	for (j = 0; j < w->njobs && w->open_svcs > 0; j++) {
		struct world_service *sv = w->jobs[j].svc;
		if (sv == NULL || !sv->open || sv->arrivals_done)
			continue;
		arrivals_end(w, sv);
		if (w->jobs[j].state == JOB_RUNNING &&
		    (rc = check_later(w, j)) != 0)
			return rc;
	}
	return 0;
}

int svc_create(struct world *w, int j)
{
	struct world_job *job = &w->jobs[j];
	struct world_service *sv = calloc(1, sizeof *sv);
	struct sim_err e = { 0, "" };
	int rc;

	if (sv == NULL)
		return SIM_ENOMEM;
	job->svc = sv;
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
	sv->end_ns = job->tj.duration_ns > 0 ?
		sim_time_add_sat(job->submit_ns, job->tj.duration_ns) :
		SIM_TIME_MAX;
	sv->open = open_ended(&job->tj);
	if (sv->open)
		w->open_svcs++;
	return next_request(w, j);
}

void svc_destroy(struct world *w, int j)
{
	struct world_service *sv = w->jobs[j].svc;
	int r;

	if (sv == NULL)
		return;
	if (sv->arr != NULL)
		trace_arrivals_close(sv->arr);
	sim_rng_fini(&sv->rng);
	sim_sample_fini(&sv->win.lat_ms);
	if (!sv->backlog_uncounted)
		w->req_queued -= sv->backlog.n;
	free(sv->backlog.t);
	for (r = 0; r < sv->nrep; r++) {
		w->req_queued -= sv->rep[r].q.n;
		free(sv->rep[r].q.t);
	}
	free(sv->rep);
	free(sv);
	w->jobs[j].svc = NULL;
}

static int on_timeout(struct sim *s, void *ctx, uint64_t arg);

/* Starts a batch on replica r if it is idle and the batching rule allows. */
static int try_start(struct world *w, int j, int r)
{
	struct world_job *job = &w->jobs[j];
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
	w->jobs[j].svc->rep[r].timeout_ev = 0;
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
	struct world_service *sv = w->jobs[j].svc;
	int r = -1, rc;

	if (sv->pooled) {
		sv->pool_out++;
		return world__pool_request(w, j, t_arr);
	}
	if (sv->nrep == 0)
		return queue_push(w, &sv->backlog, t_arr);
	if (w->pol->xOnRequest != NULL) {
		rc = w->pol->xOnRequest(w, w->pol_state, j, &r);
		if (rc < 0)
			return world__hook_rc(w, rc, "on_request");
		if (r >= sv->nrep)
			return sim_fail(&w->sim, SIM_EINVAL, "policy %s routed "
					"a request of job %d to replica %d of "
					"%d", w->pol->zName, j, r, sv->nrep);
	}
	if (r < 0)
		r = shortest_queue(sv);
	if ((rc = queue_push(w, &sv->rep[r].q, t_arr)) != 0)
		return rc;
	return try_start(w, j, r);
}

static int on_request(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int j = (int)arg, rc;

	(void)s;
	w->jobs[j].svc->req_ev = 0;
	w->req_total++;
	w->jobs[j].svc->win.arrivals++;
	if ((rc = route(w, j, w->sim.now)) != 0)
		return rc;
	return next_request(w, j);
}

int svc_placed(struct world *w, int j)
{
	struct world_job *job = &w->jobs[j];
	struct world_service *sv = job->svc;
	int r, rc;

	sv->rep = calloc((size_t)job->nplaced, sizeof *sv->rep);
	if (sv->rep == NULL)
		return SIM_ENOMEM;
	sv->nrep = job->nplaced;
	while (sv->backlog.n > 0)
		if ((rc = route(w, j, queue_pop(w, &sv->backlog))) != 0)
			return rc;
	for (r = 0; r < sv->nrep; r++)
		if ((rc = try_start(w, j, r)) != 0)
			return rc;
	return check_later(w, j);
}

static int drained(const struct world_service *sv)
{
	int r;

	if (!sv->arrivals_done || sv->backlog.n > 0 || sv->pool_out > 0)
		return 0;
	for (r = 0; r < sv->nrep; r++)
		if (sv->rep[r].q.n > 0 || sv->rep[r].inflight > 0)
			return 0;
	return 1;
}

int svc_batch_done(struct world *w, int j, int k)
{
	struct world_job *job = &w->jobs[j];
	struct world_service *sv = job->svc;
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
		sim_time lat = w->sim.now - queue_pop(w, &rp->q);
		sim_sample_add(&w->lat_ms, sim_time_to_ms(lat));
		if ((rc = sim_sample_add(&wn->lat_ms, sim_time_to_ms(lat))) != 0)
			return sim_fail(&w->sim, rc, "out of memory");
		w->req_served++;
		wn->served++;
		if (lat <= job->tj.slo_ns)
			w->req_slo_ok++;
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
		return world__job_done(w, j);
	}
	return 0;
}

int svc_queue_len(const struct world *w, int j, int r)
{
	const struct world_service *sv = w->jobs[j].svc;

	if (sv == NULL)
		return 0;
	if (r < 0)
		return (int)sv->backlog.n;
	if (r >= sv->nrep)
		return 0;
	return (int)sv->rep[r].q.n;
}

unsigned long long svc_unserved(const struct world *w, int j)
{
	const struct world_service *sv = w->jobs[j].svc;
	unsigned long long n;
	int r;

	if (sv == NULL)
		return 0;
	n = sv->backlog.n + (unsigned long long)sv->pool_out;
	for (r = 0; r < sv->nrep; r++)
		n += sv->rep[r].q.n;
	return n;
}

int svc_set_batch(struct world *w, int j, int max_batch)
{
	struct world_service *sv = w->jobs[j].svc;
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
	const struct world_service *sv = w->jobs[j].svc;

	return sv != NULL ? sv->max_batch : 0;
}

int svc_window(struct world *w, int j, struct world_svc_window *out)
{
	struct world_service *sv = w->jobs[j].svc;
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
		out->lat_p99_ms = sim_sample_quantile(&wn->lat_ms, 0.99);
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
	struct svc_win *wn = &w->jobs[j].svc->win;

	sim_sample_fini(&wn->lat_ms);
	memset(wn, 0, sizeof *wn);
	sim_sample_init(&wn->lat_ms, 0);
	wn->t0 = w->sim.now;
}

int svc_set_pooled(struct world *w, int j)
{
	struct world_service *sv = w->jobs[j].svc;
	int rc;

	sv->pooled = 1;
	/* queue_pop: the backlog leaves the world's bounded queues */
	while (sv->backlog.n > 0)
		if ((rc = route(w, j, queue_pop(w, &sv->backlog))) != 0)
			return rc;
	return check_later(w, j);
}

int svc_is_pooled(const struct world *w, int j)
{
	const struct world_service *sv = w->jobs[j].svc;

	return sv != NULL && sv->pooled;
}

/* A pool batch of n requests of service j, begun at t0, ended now: its
** time is the pipe's, a model load included. */
void svc_pool_batch(struct world *w, int j, int n, sim_time t0)
{
	struct svc_win *wn = &w->jobs[j].svc->win;
	double b = n, ex = sim_time_to_ms(w->sim.now - t0);

	wn->batches++;
	wn->bsum += b;
	wn->b2sum += b * b;
	wn->exec_ms += ex;
	wn->bexec_ms += b * ex;
}

/* One pooled request (arrived at t_arr) finished now. */
int svc_pool_done(struct world *w, int j, sim_time t_arr)
{
	struct world_job *job = &w->jobs[j];
	struct world_service *sv = job->svc;
	sim_time lat = w->sim.now - t_arr;
	int rc;

	sim_sample_add(&w->lat_ms, sim_time_to_ms(lat));
	if ((rc = sim_sample_add(&sv->win.lat_ms, sim_time_to_ms(lat))) != 0)
		return sim_fail(&w->sim, rc, "out of memory");
	w->req_served++;
	sv->win.served++;
	if (lat <= job->tj.slo_ns)
		w->req_slo_ok++;
	else
		sv->win.slo_miss++;
	sv->pool_out--;
	return check_later(w, j);
}
