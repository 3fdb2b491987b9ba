/*
** world.c: the world core's events and life cycle (see world.h and
** world_int.h; docs/ARCHITECTURE.md, "The world core and its tenant kinds").
**
** Event flow.  One arrival event is pending at a time: it admits the trace
** row read ahead and reads the next one (streaming: memory holds the jobs
** seen so far, never the whole trace ahead).  Every change to a GPU (a
** placement, a completion, a preemption, a share change) goes through the
** fluid GPU model, which settles progress and recomputes speeds; then
** world__gpu_changed() tells each tenant's kind (xChanged) and reschedules
** the completions of the tenants whose kind leaves their timing to the core
** (xUnitDone).  A GPU has one completion event, at the earliest due time of
** its tenants (tenant.due_ns, ties in list order), not one per tenant: with
** ten tenants on a GPU, every change used to cancel and push ten events.
** The order of events is the same as with one event per tenant (each change
** re-pushed all of a GPU's completions at once, in list order, so the
** earliest stood for the whole block); docs/PERFORMANCE.md.  Arrivals,
** completions and preemptions request one scheduling pass per instant
** (priority class SIM_PRIO_SCHEDULE, after them).
**
** The core names no feature: a job's kind (the registration whose eJob is
** the job's trace kind) is found at arrival and called at arrival,
** placement, failure and close; a tenant's kind is its `owner`.
**
** The run stops when the trace is exhausted and every job has ended, at the
** horizon, or at the event budget.
*/
#include "sim/world/world.h"
#include "sim/num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/goodput.h"
#include "models/workload.h"
#include "sim/world/world_int.h"

const char *job_state_name(enum job_state s)
{
	switch (s) {
	case JOB_PENDING: return "pending";
	case JOB_RUNNING: return "running";
	case JOB_PREEMPTED: return "preempted";
	case JOB_DONE: return "done";
	case JOB_FAILED: return "failed";
	case JOB_SWAPPING_OUT: return "swapping-out";
	case JOB_SWAPPING_IN: return "swapping-in";
	}
	return "?";
}

/* ---- helpers ----------------------------------------------------------- */

int world__hook_rc(struct world *w, int rc, const char *hook)
{
	if (rc < 0 && w->sim.err.code == 0)
		sim_fail(&w->sim, rc, "policy %s: %s failed: %s",
			 w->pol->zName, hook, sim_strerror(rc));
	return rc;
}

static int on_schedule(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int rc;

	(void)s; (void)arg;
	w->sched_pending = 0;
	rc = world__hook_rc(w, w->pol->xSchedule(w, w->pol_state),
			    "schedule");
	world__index_pass_done(w);
	if (rc == 0 && w->on_pass != NULL && (rc = w->on_pass(w->pass_ctx,
							     w)) != 0)
		return sim_fail(&w->sim, rc, "after a scheduling pass: %s",
				sim_strerror(rc));
	world__retire_flush(w);
	return rc;
}

int world__job_queued(struct world *w, int j)
{
	int rc;

	if (w->pol->iVersion < 4 || w->pol->xOnQueue == NULL)
		return 0;
	rc = w->pol->xOnQueue(w, w->pol_state, j);
	return rc < 0 ? world__hook_rc(w, rc, "on_queue") : 0;
}

int world__request_schedule(struct world *w)
{
	if (w->sched_pending)
		return 0;
	w->sched_pending = 1;
	return sim_schedule_at(&w->sim, w->sim.now, SIM_PRIO_SCHEDULE,
			       on_schedule, w, 0, NULL);
}

static int on_gpu_done(struct sim *s, void *ctx, uint64_t arg);

/* (Re)pushes GPU g's completion event at the earliest due tenant. */
static int gpu_arm(struct world *w, int g)
{
	struct gpu *gp = &w->gpus[g];
	struct gpu_tenant *t;
	sim_time first = SIM_TIME_NEVER;
	int due = 0, rc;

	if (gp->ev != 0) {
		sim_cancel(&w->sim, gp->ev);
		gp->ev = 0;
	}
	for (t = gp->tenants; t != NULL; t = t->next_)
		if (t->due && (!due || t->due_ns < first)) {
			first = t->due_ns;
			due = 1;
		}
	if (!due)
		return 0;
	rc = sim_schedule_at(&w->sim, first, SIM_PRIO_COMPLETE, on_gpu_done,
			     w, (uint64_t)g, &gp->ev);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "cannot schedule a completion: "
				"%s", sim_strerror(rc));
	return 0;
}

/* The host parts of the busy tenants on GPU g's node share its cores
** (docs/MODEL.md, "Host CPU contention"): finds the node's stretch with
** gpu_host_stretch() and hands it to every busy tenant there; the GPUs
** whose speeds moved are rescheduled (without coming back here). */
static int node_host_cpu(struct world *w, int g)
{
	enum { MAX_LOADS = 512 };
	struct gpu_host_load l[MAX_LOADS];
	int node = w->gpus[g].node, first = g, last = g, i, n = 0, rc = 0;
	double cpus = cluster_node_cpus(w->cl, node), cores = 0, h = 1.0;
	struct gpu_tenant *t;

	int stretched = 0;

	while (first > 0 && w->gpus[first - 1].node == node)
		first--;
	while (last + 1 < w->ngpus && w->gpus[last + 1].node == node)
		last++;
	for (i = first; i <= last; i++)
		for (t = w->gpus[i].tenants; t != NULL; t = t->next_) {
			if (t->busy && t->prof.duty > 0 && t->prof.duty < 1)
				cores += WORLD_HOST_CORES;
			stretched |= t->host_stretch > 1;
		}
	/* the demand cannot pass the cores: nothing stretches (the usual
	** case: return before any work when nothing is stretched either) */
	if (cores <= cpus && !stretched)
		return 0;
	if (cores > cpus) {
		for (i = first; i <= last; i++)
			for (t = w->gpus[i].tenants; t != NULL; t = t->next_)
				if (t->busy && t->prof.duty > 0 &&
				    t->prof.duty < 1 && n < MAX_LOADS)
					gpu_host_load_of(t, WORLD_HOST_CORES,
							 &l[n++]);
		if (n < MAX_LOADS)
			h = gpu_host_stretch(l, n, cpus);
	}
	w->cpu_guard_ = 1;
	for (i = first; i <= last && rc == 0; i++) {
		int moved = 0;

		for (t = w->gpus[i].tenants; t != NULL; t = t->next_) {
			double want = t->busy && t->prof.duty > 0 &&
				      t->prof.duty < 1 ? h : 1.0;
			double have = t->host_stretch > 1 ? t->host_stretch :
				      1.0;

			if (fabs(want - have) > 1e-12 * want) {
				(void)gpu_set_host_stretch(&w->gpus[i], t,
							   want, w->sim.now);
				moved = 1;
			}
		}
		if (moved)
			rc = world__gpu_changed(w, i);
	}
	w->cpu_guard_ = 0;
	return rc;
}

int world__gpu_changed(struct world *w, int g)
{
	struct gpu_tenant *t;
	sim_time now = w->sim.now;
	int rc, rc0 = w->metrics_only ? 0 : world__plog_sync(w, g);

	/* recorded in the engine: some callers (a job leaving its GPUs) have
	** no way to report it, and a placement log missing an interval is a
	** wrong result (the allocation-failure walk found it) */
	if (rc0 != 0)
		return sim_fail(&w->sim, rc0, "placement log: %s",
				sim_strerror(rc0));
	world__index_gpu(w, g);
	if (w->tl != NULL && (rc0 = world__tl_sync(w, g)) != 0)
		return sim_fail(&w->sim, rc0, "timeline: %s",
				sim_strerror(rc0));
	for (t = w->gpus[g].tenants; t != NULL; t = t->next_) {
		const struct world_reg *r = t->owner;
		if (r->kind->xChanged != NULL &&
		    (rc = r->kind->xChanged(w, r->state, t)) != 0) {
			t->due = 0;
			return rc;
		}
		if (r->kind->xUnitDone == NULL) {
			t->due = 0;        /* it times its own units */
			continue;
		}
		t->due_ns = t->busy ? gpu_finish_time(t, now) : SIM_TIME_NEVER;
		t->due = t->due_ns != SIM_TIME_NEVER;
	}
	if ((rc = gpu_arm(w, g)) != 0 || w->cpu_guard_)
		return rc;
	return node_host_cpu(w, g);
}

void world__pending_remove(struct world *w, int j)
{
	int k;

	for (k = 0; k < w->npending; k++)
		if (w->pending[k] == j) {
			memmove(&w->pending[k], &w->pending[k + 1],
				(size_t)(w->npending - k - 1) *
				sizeof *w->pending);
			w->npending--;
			return;
		}
}

int world__pending_add(struct world *w, int j)
{
	if (w->npending == w->cappending) {
		int cap = w->cappending ? 2 * w->cappending : 64;
		int *p = realloc(w->pending, (size_t)cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		w->pending = p;
		w->cappending = cap;
	}
	w->pending[w->npending++] = j;
	return 0;
}

static int gpu_dev_same_node(const struct world *w, const int *gpus, int n)
{
	int k;

	for (k = 1; k < n; k++)
		if (w->gpus[gpus[k]].node != w->gpus[gpus[0]].node)
			return 0;
	return 1;
}

/*
** Gradient all-reduce time per iteration of a data-parallel job on n GPUs:
** a ring all-reduce moves 2 (n - 1) / n of the gradient bytes through each
** GPU's slowest link (docs/MODEL.md, "Data-parallel training").  `same`:
** whether all n GPUs share a node (NVLink, else PCIe) or not (the NIC).
*/
static double ring_ns(const struct world *w, const struct world_job *job,
		      const struct dev_profile *d, int n, int same)
{
	double bytes, bw;

	if (n < 2)
		return 0.0;
	bytes = (double)job->model->params *
		(job->tj.prec == WL_PREC_MIXED ? 2.0 : 4.0);
	if (same)
		bw = d->nvlink_bytes_per_s > 0 ? d->nvlink_bytes_per_s :
			d->h2d_pinned_bytes_per_s;
	else
		bw = w->nic_bytes_per_s;
	if (!(bw > 0))
		return 0.0;
	return 2.0 * (double)(n - 1) / (double)n * bytes / bw * 1e9;
}

/* GPUs of GPU g's node (a node's GPUs are consecutive). */
static int node_size(const struct world *w, int g)
{
	int a = g, b = g;

	while (a > 0 && w->gpus[a - 1].node == w->gpus[g].node)
		a--;
	while (b + 1 < w->ngpus && w->gpus[b + 1].node == w->gpus[g].node)
		b++;
	return b - a + 1;
}

/* The all-reduce on this placement, and on the consolidated one (the
** same n GPUs on gpus[0]'s node when they fit it, else across nodes
** anyway). */
static double allreduce_ns(const struct world *w, const struct world_job *job,
			   const struct dev_profile *d, const int *gpus, int n)
{
	return ring_ns(w, job, d, n, gpu_dev_same_node(w, gpus, n));
}

static double allreduce_cons_ns(const struct world *w,
				const struct world_job *job,
				const struct dev_profile *d, const int *gpus,
				int n)
{
	return ring_ns(w, job, d, n, n <= node_size(w, gpus[0]));
}

/*
** Total solo time of a training job on device d with this placement.  A
** trace's iteration time is taken as measured on the consolidated
** placement: a spread placement adds what its all-reduce costs over the
** consolidated one (docs/MODEL.md, "Data-parallel training"); under
** spread_cost = none every placement costs what the consolidated one does.
** A trace's duration is a whole run: no all-reduce is added to it.
*/
/* One iteration's time in ns at n GPUs with all-reduces ar (this
** placement) and cons (the consolidated one). */
static double iter_time_ns(const struct world_job *job,
			   const struct dev_profile *d, double scale,
			   double ar, double cons)
{
	if (job->tj.iter_ns > 0)
		return (double)job->tj.iter_ns * scale +
			(ar > cons ? ar - cons : 0.0);
	return (double)wl_train_iter_ns(job->model, d, job->tj.batch,
					job->tj.prec) + ar;
}

/* The noise scale of an elastic job (docs/MODEL.md, "Goodput of elastic
** jobs"): the trace's column, else its model's published value. */
double world__job_noise(const struct world_job *job)
{
	return job->tj.noise_scale > 0 ? job->tj.noise_scale :
		gp_noise_scale(job->model->name);
}

/*
** An elastic job at n GPUs other than its trace's n0 (docs/MODEL.md,
** "Goodput of elastic jobs"): its time at n0 on the consolidated
** placement times gp_time_ratio, whose iteration times are the compute
** (the trace's iteration time less the all-reduce it measured at n0, or
** the workload model's) plus the all-reduce at n on this placement.
*/
static double elastic_total_ns(const struct world *w,
			       const struct world_job *job,
			       const struct dev_profile *d, double scale,
			       const int *gpus, int n)
{
	int n0 = job->gpus0_;
	double c0 = ring_ns(w, job, d, n0, n0 <= node_size(w, gpus[0]));
	double ar = n >= 2 ? (w->spread_cost == WORLD_SPREAD_NONE ?
			      allreduce_cons_ns(w, job, d, gpus, n) :
			      allreduce_ns(w, job, d, gpus, n)) : 0.0;
	double comp, it0, itn, t0;

	if (job->tj.iter_ns > 0) {
		it0 = (double)job->tj.iter_ns * scale;
		comp = it0 - c0 > 0.5 * it0 ? it0 - c0 : 0.5 * it0;
	} else {
		comp = (double)wl_train_iter_ns(job->model, d, job->tj.batch,
						job->tj.prec);
		it0 = comp + c0;
	}
	itn = comp + ar;
	t0 = job->tj.duration_ns > 0 ? (double)job->tj.duration_ns * scale :
		it0 * (double)job->tj.iterations;
	return t0 * gp_time_ratio(n0, n, job->tj.batch,
				  world__job_noise(job), it0, itn);
}

double world__train_total_ns(const struct world *w, const struct world_job *job,
			     const struct dev_profile *d, const int *gpus,
			     int n)
{
	/* A time the trace gives was measured at the job's share: a share
	** placement (world_frac.c) sets share_speed_, its speed alone at
	** that share, so that it runs in that time (docs/MODEL.md,
	** "Fractional GPUs"); a time of the workload model is the whole
	** GPU's. */
	double scale = job->share_speed_ > 0 ? job->share_speed_ : 1.0;
	double ar = 0, cons = 0;

	if (job->tj.min_gpus > 0 && job->gpus0_ > 0 && n >= 1 &&
	    n != job->gpus0_)
		return elastic_total_ns(w, job, d, scale, gpus, n);
	if (job->tj.duration_ns > 0)
		return (double)job->tj.duration_ns * scale;
	if (n >= 2) {
		cons = allreduce_cons_ns(w, job, d, gpus, n);
		ar = w->spread_cost == WORLD_SPREAD_NONE ? cons :
			allreduce_ns(w, job, d, gpus, n);
	}
	return iter_time_ns(job, d, scale, ar, cons) *
		(double)job->tj.iterations;
}

/* Job j's whole solo time on n GPUs of GPU g's device, consolidated from
** the first GPU of g's node on (n consecutive GPUs); -1 when the cluster
** has fewer than n GPUs after that one.  world.h. */
double world_job_total_at(const struct world *w, int j, int g, int n)
{
	const struct world_job *job;
	int a, k, *gpus;
	double t;

	if (j < 0 || j >= w->njobs || g < 0 || g >= w->ngpus || n < 1)
		return -1;
	job = world__job(w, j);
	if (job->tj.kind != TRACE_TRAIN)
		return -1;
	for (a = g; a > 0 && w->gpus[a - 1].node == w->gpus[g].node; a--)
		;
	if (a + n > w->ngpus)
		a = w->ngpus - n;
	if (a < 0 || (gpus = malloc((size_t)n * sizeof *gpus)) == NULL)
		return -1;
	for (k = 0; k < n; k++)
		gpus[k] = a + k;
	t = world__train_total_ns(w, job, w->gpus[g].dev, gpus, n);
	free(gpus);
	return t;
}

/* ---- job completion ----------------------------------------------------- */

/* Frees a job's placement arrays (its tenants are detached already). */
void world__free_placement(struct world *w, struct world_job *job)
{
	world__kinds_leave(w, job);
	free(job->tenants);
	free(job->gpu_ids);
	free(job->work0_);
	job->tenants = NULL;
	job->gpu_ids = NULL;
	job->work0_ = NULL;
	job->nplaced = 0;
	job->restart_end_ = 0;       /* a restart in flight is void */
	job->restart_gen_++;
}

static void release_placement(struct world *w, struct world_job *job)
{
	int k, rc;

	for (k = 0; k < job->nplaced; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		t->due = 0;
		gpu_detach(&w->gpus[job->gpu_ids[k]], t, w->sim.now);
	}
	/* a failure here is recorded by sim_fail (world_run reports it) */
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			sim_fail(&w->sim, rc, "job %s: GPU %d: %s", job->tj.id,
				 job->gpu_ids[k], sim_strerror(rc));
	world__free_placement(w, job);
}

void world__job_open(struct world *w, struct world_job *job, int open)
{
	open = open != 0;
	if (job->open_ == open)
		return;
	job->open_ = open;
	w->open_jobs += open ? 1 : -1;
}

/* Only open-ended jobs are left: each one's kind ends it (xClose). */
static int close_open(struct world *w)
{
	int j, rc;

	for (j = 0; j < w->njobs && w->open_jobs > 0; j++) {
		struct world_job *job = world__job(w, j);
		const struct world_reg *r = job->kind_;
		if (world__retired(w, j) || !job->open_)
			continue;
		if (r->kind->xClose == NULL) {
			world__job_open(w, job, 0);
			continue;
		}
		if ((rc = r->kind->xClose(w, r->state, job)) != 0)
			return rc;
	}
	return 0;
}

void world__maybe_stop(struct world *w)
{
	int rc;

	if (!w->trace_done)
		return;
	if (w->live_jobs > 0 && w->live_jobs == w->open_jobs &&
	    (rc = close_open(w)) != 0)
		sim_fail(&w->sim, rc, "cannot end the open-ended jobs: %s",
			 sim_strerror(rc));
	if (w->live_jobs == 0)
		sim_stop(&w->sim);
}

int world__job_done(struct world *w, int j)
{
	struct world_job *job = world__job(w, j);
	int rc;

	release_placement(w, job);
	job->state = JOB_DONE;
	job->frac_left = 0.0;
	job->end_ns = w->sim.now;
	world__job_open(w, job, 0);
	w->live_jobs--;
	world__job_finished(w, j);
	if (w->pol->xOnFinish != NULL) {
		rc = w->pol->xOnFinish(w, w->pol_state, j);
		if (rc < 0)
			return world__hook_rc(w, rc, "on_finish");
	}
	world__maybe_stop(w);
	return world__request_schedule(w);
}

/* GPU arg's completion event: the first tenant due now, in list order,
** goes to its kind. */
static int on_gpu_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int g = (int)arg;
	struct gpu_tenant *t;

	(void)s;
	w->gpus[g].ev = 0;
	for (t = w->gpus[g].tenants; t != NULL; t = t->next_)
		if (t->due && t->due_ns == w->sim.now) {
			const struct world_reg *r = t->owner;
			t->due = 0;
			return r->kind->xUnitDone(w, r->state, t);
		}
	return gpu_arm(w, g);    /* (none: only if a due tenant was dropped) */
}

/* ---- arrivals ------------------------------------------------------------ */

static int on_arrival(struct sim *s, void *ctx, uint64_t arg);

/* Reads the next trace row and schedules its arrival. */
static int read_ahead(struct world *w)
{
	struct sim_err e = { 0, "" };
	int rc = trace_next(w->tr, &w->next_tj, &e);

	if (rc < 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	if (rc == 0) {
		w->trace_done = 1;
		world__maybe_stop(w);
		return 0;
	}
	if (w->jitter != NULL && (rc = world__jitter_row(w, &w->next_tj)) != 0)
		return rc;
	if (w->next_tj.submit_ns < w->sim.now)
		return sim_fail(&w->sim, SIM_EPARSE, "%s:%ld: submit_s: "
				"%.9g is earlier than the previous row's "
				"(rows must be in submit order)",
				w->trace_path, w->next_tj.line,
				sim_time_to_s(w->next_tj.submit_ns));
	return sim_schedule_at(&w->sim, w->next_tj.submit_ns,
			       SIM_PRIO_ARRIVAL, on_arrival, w, 0, NULL);
}

/* A chunk's arrays (none for a shared one). */
static void chunk_free(struct world_jchunk *c)
{
	if (c == NULL || c->shared)
		return;
	free(c->rec);
	free(c->row);
	free(c);
}

/* A new chunk: records, and rows unless the world is lean; NULL out of
** memory. */
static struct world_jchunk *chunk_new(const struct world *w)
{
	struct world_jchunk *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	c->rec = calloc(WORLD_JOB_CHUNK, sizeof *c->rec);
	if (!w->lean)
		c->row = calloc(WORLD_JOB_CHUNK, sizeof *c->row);
	if (c->rec == NULL || (!w->lean && c->row == NULL)) {
		chunk_free(c);
		return NULL;
	}
	return c;
}

/* A new, zeroed job record at index njobs (its chunk made when
** needed). */
static struct world_job *job_new(struct world *w)
{
	int c = w->njobs >> WORLD_JOB_CHUNK_LOG2;
	struct world_jchunk *ch;
	struct world_job *job;

	if (c == w->nchunks) {
		struct world_jchunk **p = realloc(w->chunks, (size_t)(c + 1) *
						  sizeof *p);
		if (p == NULL)
			return NULL;
		w->chunks = p;
		if ((p[c] = chunk_new(w)) == NULL)
			return NULL;
		w->nchunks++;
	}
	ch = w->chunks[c];
	if ((job = calloc(1, sizeof *job)) == NULL)
		return NULL;
	ch->rec[w->njobs & (WORLD_JOB_CHUNK - 1)] = job;
	ch->nheld++;
	if (++w->nrecs > w->peak_recs)
		w->peak_recs = w->nrecs;
	return job;
}

/* ---- retiring finished jobs' records ------------------------------------- */

/* A block of interned strings: its bytes follow. */
struct world_strblk {
	struct world_strblk *next;
	size_t cap;
	char s[];
};

#define WORLD_STRBLK (64 * 1024)

/* A copy of z that lives until world_destroy, or NULL (out of memory). */
static const char *intern(struct world *w, const char *z)
{
	struct world_strs *st = &w->strs;
	size_t n = strlen(z) + 1;
	char *p;

	if (st->head == NULL || st->head->cap - st->used < n) {
		size_t cap = n > WORLD_STRBLK ? n : WORLD_STRBLK;
		struct world_strblk *b = malloc(sizeof *b + cap);
		if (b == NULL)
			return NULL;
		b->next = st->head;
		b->cap = cap;
		st->head = b;
		st->used = 0;
		st->bytes += sizeof *b + cap;
	}
	p = st->head->s + st->used;
	memcpy(p, z, n);
	st->used += n;
	return p;
}

static void strs_fini(struct world_strs *st)
{
	while (st->head != NULL) {
		struct world_strblk *b = st->head;
		st->head = b->next;
		free(b);
	}
}

/* 1 when a finished job of kind r is released (bRetire, bRetireMetrics). */
static int kind_retires(const struct world_reg *r)
{
	return r != NULL && r->kind->iVersion >= 4 && (r->kind->bRetire ||
		(r->kind->iVersion >= 5 && r->kind->bRetireMetrics));
}

/* Lists finished job j for retiring after the next pass, when its kind
** lets it go.  Out of memory: it keeps its record. */
static void retire_later(struct world *w, int j)
{
	const struct world_reg *r = world__job(w, j)->kind_;

	if (!kind_retires(r))
		return;
	if (w->nretire == w->capretire) {
		int cap = w->capretire ? 2 * w->capretire : 64;
		int *p = realloc(w->retire, (size_t)cap * sizeof *p);
		if (p == NULL)
			return;
		w->retire = p;
		w->capretire = cap;
	}
	w->retire[w->nretire++] = j;
}

void world__job_finished(struct world *w, int j)
{
	retire_later(w, j);
}

/* Fills retired job j's row from its record: 0, or -1 out of memory for
** its strings (then it keeps its record). */
static int fill_row(struct world *w, struct world_jrow *row,
		    const struct world_job *job)
{
	const char *id, *model;

	id = intern(w, job->tj.id);
	model = job->model != NULL &&
		strcmp(job->model->name, job->tj.model) == 0 ?
		job->model->name : intern(w, job->tj.model);
	if (id == NULL || model == NULL)
		return -1;
	if (job->state == JOB_FAILED &&
	    (row->fail_reason = intern(w, job->fail_reason)) == NULL)
		return -1;
	row->id = id;
	row->model = model;
	row->zm = job->model;
	row->submit_ns = job->submit_ns;
	row->start_ns = job->start_ns;
	row->end_ns = job->end_ns;
	row->solo_ns = job->solo_ns_;
	row->first_gpu = job->first_gpu_;
	row->mem_bytes = job->tj.mem_bytes;
	row->gpu_share = job->tj.gpu_share;
	row->frac_left = job->frac_left;
	row->opt = (unsigned char)job->tj.opt;
	row->prec = (unsigned char)job->tj.prec;
	row->gpus = job->tj.gpus;
	row->priority = job->tj.priority;
	row->batch = job->tj.batch;
	row->preemptions = job->preemptions;
	row->swaps = job->swaps;
	row->kind = (unsigned char)job->tj.kind;
	row->state = (unsigned char)job->state;
	return 0;
}

/* The shared chunk of ks byte v: every index released with v (made on
** first use; NULL out of memory). */
static struct world_jchunk *uni_chunk(struct world *w, unsigned char v)
{
	struct world_jchunk **u = &w->uni[v & (WORLD_KS_VALUES - 1)];

	if (*u == NULL && (*u = calloc(1, sizeof **u)) != NULL) {
		(*u)->shared = 1;
		memset((*u)->ks, v, sizeof (*u)->ks);
	}
	return *u;
}

/* Chunk c holds no record: give its record array back, and in a lean
** world put the shared chunk in its place when its bytes are all equal.
** Only once every index of the chunk has arrived. */
static void chunk_settle(struct world *w, int c)
{
	struct world_jchunk *ch = w->chunks[c], *u;
	int k;

	if (ch->nheld > 0 || ch->shared ||
	    (size_t)w->njobs < ((size_t)c + 1) * WORLD_JOB_CHUNK)
		return;
	free(ch->rec);
	ch->rec = NULL;
	if (!w->lean)
		return;
	for (k = 1; k < WORLD_JOB_CHUNK; k++)
		if (ch->ks[k] != ch->ks[0])
			return;
	if ((u = uni_chunk(w, ch->ks[0])) == NULL)
		return;
	chunk_free(ch);
	w->chunks[c] = u;
}

/* Releases finished job j: its ks byte says so; its record is freed, its
** row keeping what the results need (not in a lean world), unless its
** kind keeps it (bRetireMetrics in a world with result rows, xRetire's
** WORLD_PASS, or out of memory for its row's strings). */
static void retire(struct world *w, int j)
{
	struct world_jchunk *ch = world__chunk(w, j);
	int i = j & (WORLD_JOB_CHUNK - 1);
	struct world_job *job = world__rec(w, j);
	const struct world_reg *r;

	if (job == NULL || (ch->ks[i] & WORLD_KS_RELEASED))
		return;
	assert(job->state == JOB_DONE || job->state == JOB_FAILED);
	assert(job->nplaced == 0 && !job->open_);
	r = job->kind_;
	ch->ks[i] = (unsigned char)(WORLD_KS_RELEASED | job->tj.kind << 3 |
				    job->state);
	if (!r->kind->bRetire && !w->lean)
		return;               /* kept for its result row */
	if (!w->lean && fill_row(w, &ch->row[i], job) != 0)
		return;
	if (r->kind->iVersion >= 5 && r->kind->xRetire != NULL &&
	    r->kind->xRetire(w, r->state, job) == WORLD_PASS)
		return;
	assert(job->svc == NULL);
	if (w->lean && job->state == JOB_DONE && job->end_ns > w->rel_end_max)
		w->rel_end_max = job->end_ns;
	free(job->gpu_ids);
	free(job->tenants);
	free(job->work0_);
	ch->nprivs -= job->pol_priv_ != NULL;
	free(job->pol_priv_);
	free(job);
	ch->rec[i] = NULL;
	ch->nheld--;
	w->nrecs--;
	chunk_settle(w, j >> WORLD_JOB_CHUNK_LOG2);
}

void world__retire_flush(struct world *w)
{
	int k;

	for (k = 0; k < w->nretire; k++)
		retire(w, w->retire[k]);
	w->nretire = 0;
}

struct world_job *world__job_copy(const struct world *w, int j)
{
	const struct world_jrow *r = world__row(w, j);
	struct world_job *c = &w->jc_->copy[w->jc_->n++ % WORLD_JOB_COPIES];
	unsigned char ks = world__chunk(w, j)->ks[j & (WORLD_JOB_CHUNK - 1)];

	memset(c, 0, sizeof *c);
	c->idx = j;
	if (r == NULL) {
		/* lean: the index, kind and state alone (world.h) */
		snprintf(c->tj.id, sizeof c->tj.id, "#%d", j);
		c->tj.kind = (enum trace_kind)(ks >> 3 & 3);
		c->state = (enum job_state)(ks & 7);
		c->start_ns = c->end_ns = -1;
		c->first_gpu_ = -1;
		c->kind_ = w->jc_->reg[c->tj.kind];
		return c;
	}
	snprintf(c->tj.id, sizeof c->tj.id, "%s", r->id);
	snprintf(c->tj.model, sizeof c->tj.model, "%s", r->model);
	c->tj.kind = (enum trace_kind)r->kind;
	c->tj.submit_ns = r->submit_ns;
	c->tj.batch = r->batch;
	c->tj.opt = (enum wl_optimizer)r->opt;
	c->tj.prec = (enum wl_precision)r->prec;
	c->tj.gpus = r->gpus;
	c->tj.gpu_share = r->gpu_share;
	c->tj.mem_bytes = r->mem_bytes;
	c->tj.priority = r->priority;
	c->model = r->zm;
	c->state = (enum job_state)r->state;
	c->frac_left = r->frac_left;
	c->submit_ns = r->submit_ns;
	c->start_ns = r->start_ns;
	c->end_ns = r->end_ns;
	c->preemptions = r->preemptions;
	c->swaps = r->swaps;
	c->solo_ns_ = r->solo_ns;
	c->first_gpu_ = r->first_gpu;
	c->kind_ = w->jc_->reg[c->tj.kind];
	if (r->fail_reason != NULL)
		snprintf(c->fail_reason, sizeof c->fail_reason, "%s",
			 r->fail_reason);
	return c;
}

int world_live_records(const struct world *w) { return w->nrecs; }
int world_live_jobs(const struct world *w) { return w->live_jobs; }
int world_peak_records(const struct world *w) { return w->peak_recs; }

int world_live_privs(const struct world *w)
{
	int c, n = 0;

	for (c = 0; c < w->nchunks; c++)
		if (!w->chunks[c]->shared)
			n += w->chunks[c]->nprivs;
	return n;
}
size_t world_interned_bytes(const struct world *w) { return w->strs.bytes; }

size_t world_job_table_bytes(const struct world *w)
{
	size_t n = (size_t)w->nchunks * sizeof *w->chunks;
	int c;

	for (c = 0; c < WORLD_KS_VALUES; c++)
		n += w->uni[c] != NULL ? sizeof *w->uni[c] : 0;
	for (c = 0; c < w->nchunks; c++) {
		const struct world_jchunk *ch = w->chunks[c];
		if (ch->shared)
			continue;
		n += sizeof *ch;
		n += ch->rec != NULL ? WORLD_JOB_CHUNK * sizeof *ch->rec : 0;
		n += ch->row != NULL ? WORLD_JOB_CHUNK * sizeof *ch->row : 0;
	}
	return n;
}

static int add_job(struct world *w, const struct trace_job *tj)
{
	struct world_job *job = job_new(w);

	if (job == NULL)
		return SIM_ENOMEM;
	job->idx = w->njobs;
	job->tj = *tj;
	job->model = zoo_find(tj->model);
	if (job->model == NULL)
		return sim_fail(&w->sim, SIM_ENOENT, "%s:%ld: model: unknown "
				"model '%s'", w->trace_path, tj->line,
				tj->model);
	/* an elastic job's noise scale resolved once: pol_job reports it for
	** every training job, and policies call pol_job in their passes */
	if (tj->kind == TRACE_TRAIN && !(job->tj.noise_scale > 0))
		job->tj.noise_scale = gp_noise_scale(job->model->name);
	job->kind_ = world__kind_of_job(w, (int)tj->kind);
	if (job->kind_ == NULL)
		return sim_fail(&w->sim, SIM_ENOENT, "%s:%ld: kind: no tenant "
				"kind runs this kind of job", w->trace_path,
				tj->line);
	job->state = JOB_PENDING;
	job->submit_ns = w->sim.now;
	job->start_ns = job->end_ns = -1;
	job->first_gpu_ = -1;
	job->frac_left = 1.0;
	job->gpus0_ = tj->gpus;
	w->njobs++;
	w->live_jobs++;
	return 0;
}

static int on_arrival(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	const struct world_reg *r;
	int j, rc;

	(void)s; (void)arg;
	if ((rc = add_job(w, &w->next_tj)) != 0)
		return rc;
	j = w->njobs - 1;
	if ((rc = world__pending_add(w, j)) != 0)
		return rc;
	if (w->njobs > 0 && world__job(w, j)->tj.gpus == 0 &&
	    w->pol->iVersion < 3) {
		/* A CPU-only job runs on a node, not a GPU: only a policy of
		** interface version 3 places one (pol_place_share). */
		if ((rc = world_fail_job(w, j, "CPU-only job (0 GPUs): the "
					 "policy places GPU jobs only")) != 0)
			return rc;
		return read_ahead(w);
	}
	r = world__job(w, j)->kind_;
	if (r->kind->xArrive != NULL &&
	    (rc = r->kind->xArrive(w, r->state, world__job(w, j))) != 0)
		return rc;
	if (w->pol->xOnArrival != NULL &&
	    (rc = w->pol->xOnArrival(w, w->pol_state, j)) < 0)
		return world__hook_rc(w, rc, "on_arrival");
	if ((rc = world__job_queued(w, j)) != 0)
		return rc;
	if ((rc = world__request_schedule(w)) != 0)
		return rc;
	return read_ahead(w);
}

/* ---- statistics sampling -------------------------------------------------- */

static int on_sample(struct sim *s, void *ctx, uint64_t arg);

static void series_record(struct world *w)
{
	struct world_series *se = &w->series;
	int g, k, full;
	double hbm = 0, cap = 0, sm = 0;

	if (se->n == se->cap) {       /* full: keep every other, halve rate */
		for (k = 0; k < se->cap / 2; k++) {
			se->t[k] = se->t[2 * k];
			memcpy(&se->v[(size_t)k * se->width],
			       &se->v[(size_t)2 * k * se->width],
			       (size_t)se->width * sizeof *se->v);
		}
		se->n = se->cap / 2;
		se->dt *= 2;
	}
	/* The cluster's sums from the indexes (the busy GPUs alone: the
	** same sums, bit for bit); every GPU only for the per-GPU rows or
	** past 2^53 bytes. */
	full = world__index_totals(w, &hbm, &cap, &sm) != 0;
	if (full)
		hbm = cap = sm = 0;
	for (g = 0; (full || se->per_gpu) && g < w->ngpus; g++) {
		const struct gpu *gp = &w->gpus[g];
		double used = (double)gp->mem_used;
		double c = (double)gp->dev->hbm_bytes;
		double f = used > c ? 1.0 : used / c;
		if (full) {
			hbm += used > c ? c : used;
			cap += c;
			sm += gp->sm.value;
		}
		if (se->per_gpu) {
			se->v[(size_t)se->n * se->width + 2 + 2 * g] = f;
			se->v[(size_t)se->n * se->width + 3 + 2 * g] =
				gp->sm.value;
		}
	}
	se->t[se->n] = w->sim.now;
	se->v[(size_t)se->n * se->width] = cap > 0 ? hbm / cap : 0;
	se->v[(size_t)se->n * se->width + 1] = w->ngpus ? sm / w->ngpus : 0;
	se->n++;
}

static int on_sample(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;

	(void)arg;
	series_record(w);
	/* Nothing else pending: the run is over; do not keep it alive. */
	if (sim_equeue_size(&s->q) == 0)
		return 0;
	return sim_schedule_in(s, w->series.dt, SIM_PRIO_SAMPLE, on_sample,
			       w, 0, NULL);
}

/* ---- creation ---------------------------------------------------------------- */

static int check_policy(const struct pol_ops *pol, struct sim_err *err)
{
	if (pol == NULL || pol->xSchedule == NULL)
		return sim_err_set(err, SIM_EINVAL, "policy without a "
				   "schedule hook");
	if (pol->iVersion > POL_IFACE_VERSION)
		return sim_err_set(err, SIM_EVERSION, "policy %s targets "
				   "interface version %d; this colosim has %d",
				   pol->zName, pol->iVersion,
				   POL_IFACE_VERSION);
	return 0;
}

/* The GPUs, the series and the policy's state; 0 or SIM_ENOMEM. */
static int alloc_core(struct world *w, const struct world_config *cfg,
		      struct sim_err *err)
{
	int g, rc;

	w->ngpus = cfg->cluster->ngpus;
	w->gpus = calloc((size_t)w->ngpus, sizeof *w->gpus);
	if (w->gpus == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory for %d GPUs",
				   cfg->cluster->ngpus);
	for (g = 0; g < w->ngpus; g++) {
		int node;
		const struct dev_profile *d = cluster_gpu_dev(w->cl, g, &node);
		gpu_init(&w->gpus[g], d, g, node, GPU_MODE_EXCLUSIVE, 0);
	}
	if ((rc = world__index_init(w, err)) != 0)
		return rc;
	w->series.cap = cfg->series_points > 1 ? cfg->series_points : 512;
	w->series.cap &= ~1;
	w->series.per_gpu = w->ngpus <= 64;
	w->series.width = 2 + (w->series.per_gpu ? 2 * w->ngpus : 0);
	w->series.dt = SIM_NS_PER_S;
	w->series.t = calloc((size_t)w->series.cap, sizeof *w->series.t);
	w->series.v = calloc((size_t)w->series.cap * (size_t)w->series.width,
			     sizeof *w->series.v);
	w->pol_state = calloc(1, w->pol->szState ? w->pol->szState : 1);
	if (w->series.t == NULL || w->series.v == NULL ||
	    w->pol_state == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	return 0;
}

/* Opens the trace, runs the policy's xInit, reads the first row ahead
** and starts the sampling. */
static int start(struct world *w, const struct world_config *cfg,
		 struct sim_err *err)
{
	int rc;

	if ((rc = trace_open(&w->tr, cfg->trace_path, err)) != 0 ||
	    (rc = world__jitter_init(w, cfg->arrival_jitter_ns, err)) != 0)
		return rc;
	if (trace_set_arrivals_dir(w->tr, cfg->arrivals_dir) != 0)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long",
				   cfg->arrivals_dir);
	if ((rc = world__view_init(w, err)) != 0 ||
	    (rc = pol_params_fill(w->pol, cfg->params, w->pol_state,
				  err)) != 0)
		return rc;
	/* xFini runs after a failed xInit too (policy.h), so what the init
	** allocated before it failed is freed. */
	w->pol_inited = 1;
	if (w->pol->xInit != NULL &&
	    (rc = w->pol->xInit(w, w->pol_state, cfg->params, err)) != 0) {
		if (err != NULL && err->code == 0)
			sim_err_set(err, rc, "policy %s: init failed: %s",
				    w->pol->zName, sim_strerror(rc));
		return rc;
	}
	if ((rc = read_ahead(w)) != 0 ||
	    (rc = sim_schedule_at(&w->sim, 0, SIM_PRIO_SAMPLE, on_sample, w,
				  0, NULL)) != 0)
		return sim_err_set(err, rc, "%s", w->sim.err.msg[0] ?
				   w->sim.err.msg : sim_strerror(rc));
	return 0;
}

int world_create(struct world **out, const struct world_config *cfg,
		 struct sim_err *err)
{
	struct world *w;
	int rc;

	*out = NULL;
	if ((rc = check_policy(cfg->policy, err)) != 0)
		return rc;
	if (cfg->spread_cost != WORLD_SPREAD_ALLREDUCE &&
	    cfg->spread_cost != WORLD_SPREAD_NONE)
		return sim_err_set(err, SIM_EINVAL, "spread_cost %d: expected "
				   "allreduce (0) or none (1)",
				   cfg->spread_cost);
	w = calloc(1, sizeof *w);
	if (w == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	sim_init(&w->sim);
	w->cl = cfg->cluster;
	w->pol = cfg->policy;
	w->seed = cfg->seed;
	/* Simulated time stops at 2^62 ns (SIM_NUM_TIME_MAX_NS, 146 years:
	** docs/LIMITS.md) even without a horizon, so that every time the
	** world computes (a time plus a duration) fits int64. */
	w->horizon = cfg->horizon_ns > 0 && cfg->horizon_ns <
		SIM_NUM_TIME_MAX_NS ? cfg->horizon_ns : SIM_NUM_TIME_MAX_NS;
	w->horizon_is_limit = w->horizon == SIM_NUM_TIME_MAX_NS;
	w->max_events = cfg->max_events;
	/* Default 100 Gb/s between nodes: DistMind's RDMA fabric
	** (docs/MODEL.md, "Data-parallel training"). */
	w->nic_bytes_per_s = cfg->nic_bytes_per_s > 0 ? cfg->nic_bytes_per_s :
		100e9 / 8.0;
	w->spread_cost = cfg->spread_cost;
	w->on_pass = cfg->on_pass;
	w->metrics_only = cfg->metrics_only != 0;
	w->lean = w->metrics_only;
	w->pass_ctx = cfg->pass_ctx;
	snprintf(w->trace_path, sizeof w->trace_path, "%s", cfg->trace_path);
	w->jc_ = calloc(1, sizeof *w->jc_);
	if (w->jc_ != NULL && (w->fits_ = malloc(sizeof *w->fits_)) != NULL)
		wl_fit_memo_init(w->fits_);
	if (w->jc_ == NULL || w->fits_ == NULL) {
		world_destroy(w);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	if ((rc = world__builtin_init(w, cfg, err)) != 0 ||
	    (w->jc_->reg[TRACE_TRAIN] = world__kind_of_job(w, TRACE_TRAIN),
	     w->jc_->reg[TRACE_INFER] = world__kind_of_job(w, TRACE_INFER),
	     w->jc_->reg[TRACE_LLM] = world__kind_of_job(w, TRACE_LLM), 0) ||
	    (rc = alloc_core(w, cfg, err)) != 0 ||
	    (cfg->timeline && (rc = world__tl_init(w)) != 0 &&
	     sim_err_set(err, rc, "out of memory")) ||
	    (rc = start(w, cfg, err)) != 0) {
		world_destroy(w);
		return rc;
	}
	*out = w;
	return 0;
}

void world_destroy(struct world *w)
{
	int j, g;

	if (w == NULL)
		return;
	if (w->pol_inited && w->pol->xFini != NULL)
		w->pol->xFini(w, w->pol_state);
	/* The GPUs first: gpu_fini walks their tenant lists, which point
	** into the tenants of jobs still placed (a horizon or budget stop)
	** and into the kinds' own tenants (pool executors). */
	for (g = 0; g < w->ngpus && w->gpus != NULL; g++)
		gpu_fini(&w->gpus[g]);
	world__kinds_fini(w);
	for (j = 0; j < w->nchunks; j++) {
		struct world_jchunk *c = w->chunks[j];
		int k;
		for (k = 0; c->rec != NULL && k < WORLD_JOB_CHUNK; k++) {
			struct world_job *job = c->rec[k];
			if (job == NULL)
				continue;
			free(job->gpu_ids);
			free(job->tenants);
			free(job->work0_);
			free(job->pol_priv_);
			free(job);
		}
		chunk_free(c);
	}
	free(w->chunks);
	for (j = 0; j < WORLD_KS_VALUES; j++)
		free(w->uni[j]);
	free(w->retire);
	free(w->jc_);
	wl_fit_memo_fini(w->fits_);
	free(w->fits_);
	strs_fini(&w->strs);
	free(w->pending);
	free(w->gpus);
	free(w->series.t);
	free(w->series.v);
	free(w->xmetrics);
	free(w->pol_state);
	world__view_fini(w);
	world__index_fini(w);
	if (w->tr != NULL)
		trace_close(w->tr);
	world__plog_fini(w);
	world__tl_fini(w);
	world__jitter_fini(w);
	sim_fini(&w->sim);
	free(w);
}

/*
** The event queue ran empty, or simulated time reached its limit of 2^62
** ns (no horizon, no budget): every job must have finished or failed.
** One still running is one whose end lies past the limit (10^18
** iterations, say, or two 4e9-second jobs one after the other); one still
** pending was left by the policy with nothing more to happen.  Either way
** its results would be wrong (a makespan of 0, a job silently missing),
** so the run fails, naming the first such job.
*/
static int unfinished_error(struct world *w, int at_limit,
			    struct sim_err *err)
{
	const struct world_job *first = NULL;
	int j, n = 0;

	for (j = 0; j < w->njobs; j++) {
		enum job_state st = world__job_state(w, j);
		if (st != JOB_DONE && st != JOB_FAILED && n++ == 0)
			first = world__job(w, j);
	}
	if (n == 0)
		return 0;
	if (first->state == JOB_PENDING && !at_limit)
		return sim_err_set(err, SIM_ESTATE, "%d job(s) never placed "
				   "and nothing left to happen (first: '%s', "
				   "line %ld): policy %s left them pending",
				   n, first->tj.id, first->tj.line,
				   w->pol->zName);
	return sim_err_set(err, SIM_ERANGE, "%d job(s) cannot finish within "
			   "the simulated-time limit of 2^62 ns (146 years; "
			   "docs/LIMITS.md) (first: '%s', line %ld, %s)", n,
			   first->tj.id, first->tj.line,
			   job_state_name(first->state));
}

int world_run(struct world *w, struct sim_err *err)
{
	enum sim_stop_reason why = sim_run(&w->sim, w->horizon, w->max_events);

	w->stop_reason = why;
	/* an error recorded by a handler or an action fails the run even when
	** the handler went on (a policy that ignored an action's code) */
	if (why == SIM_STOP_ERROR || w->sim.err.code != 0)
		return sim_err_set(err, w->sim.err.code, "%s", w->sim.err.msg);
	if (why == SIM_STOP_EMPTY ||
	    (why == SIM_STOP_HORIZON && w->horizon_is_limit))
		return unfinished_error(w, why == SIM_STOP_HORIZON, err);
	return 0;
}
