/*
** world_swap.c: swapping training jobs between GPU and host memory (see
** world.h, "swapping", and docs/MODEL.md, "Swapping").
**
** A swap copies a job's state over each of its GPUs' host links, as flows
** of the link model (models/link.h) on a net of this file's own: one H2D
** and one D2H link per GPU, built on first use from the device profile's
** pinned copy rates and PCIe latency.  Concurrent swap copies on one link
** share it max-min fairly; a copy alone costs latency + bytes / rate.
**
**   swap out: RUNNING -> SWAPPING_OUT (tenants attached and idle: memory
**             held, no progress) -> PREEMPTED + swapped (tenants detached,
**             back in the pending queue at its arrival place).
**   swap in:  PREEMPTED + swapped -> world_place (memory allocated), its
**             work units stopped at once -> SWAPPING_IN -> RUNNING (work
**             units begun again with the progress kept).
**
** The feature is a kind with no tenants ("swap"): it keeps its net and
** the copies in flight in its own state, takes over world_preempt when
** preemption costs a swap (xPreempt) and world_place of a swapped job
** (xPlace: a swap in).  The job's workers stay training workers: attached
** and idle while a copy runs.
**
** Invariants: a job has a copy in flight (copy_of) exactly when it is
** SWAPPING_OUT or SWAPPING_IN; its nleft counts its flows still active in
** the net; a
** flow's completion event is rescheduled only when its rate changed and it
** has bytes left, so an undisturbed copy ends at its exact drain time plus
** latency (link_transfer_ns).
*/
#include "sim/world/world_swap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "sim/world/world_int.h"

struct swap_flow {
	struct link_flow f;           /* first: the net's list points here */
	double rate_sched;            /* rate when its completion was set */
	uint64_t key;                 /* job << 16 | GPU index in the job */
};

struct world_swap_copy {
	int job;
	int dir;                      /* 0: out (D2H); 1: in (H2D) */
	int as_preempt;               /* world_preempt at a cost */
	int n, nleft;                 /* flows, and those not finished */
	sim_time t0_ns;
	double bytes;                 /* over all its GPUs */
	struct swap_flow flows[];     /* one per placed GPU */
};

struct world_swapper {
	int preempt_cost;             /* WORLD_PREEMPT_* */
	struct link_net net;
	int *h2d, *d2h;               /* per GPU link index; -1 until used;
					 NULL until the first swap */
	struct world_swap_copy **live; /* the copies in flight */
	int nlive, caplive;
};

static const struct world_kind swap_kind;

uint64_t world_swap_bytes(const struct world *w, int j, int g,
			  uint64_t alloc_bytes)
{
	uint64_t peak, trough;
	double pf;

	world_job_footprint(w, j, g, &peak, &trough, &pf);
	return alloc_bytes < trough ? alloc_bytes : trough;
}

/* The swapper with its per-GPU links table, made on first use; NULL when
** out of memory. */
static struct world_swapper *swapper(struct world *w)
{
	struct world_swapper *sw = world__kind_own(w, &swap_kind);
	int g;

	if (sw->h2d != NULL)
		return sw;
	sw->h2d = malloc((size_t)w->ngpus * sizeof *sw->h2d);
	sw->d2h = malloc((size_t)w->ngpus * sizeof *sw->d2h);
	if (sw->h2d == NULL || sw->d2h == NULL) {
		free(sw->h2d);
		free(sw->d2h);
		sw->h2d = sw->d2h = NULL;
		return NULL;
	}
	for (g = 0; g < w->ngpus; g++)
		sw->h2d[g] = sw->d2h[g] = -1;
	return sw;
}

/* Job j's copy in flight, or NULL. */
static struct world_swap_copy *copy_of(const struct world_swapper *sw, int j)
{
	int k;

	for (k = 0; k < sw->nlive; k++)
		if (sw->live[k]->job == j)
			return sw->live[k];
	return NULL;
}

/* Forgets and frees copy c. */
static void copy_free(struct world_swapper *sw, struct world_swap_copy *c)
{
	int k;

	for (k = 0; k < sw->nlive; k++)
		if (sw->live[k] == c) {
			sw->live[k] = sw->live[--sw->nlive];
			break;
		}
	free(c);
}

/* Makes sure GPU g's host links exist (pinned rates of its profile). */
static int host_links(struct world *w, int g, struct sim_err *err)
{
	struct world_swapper *sw = swapper(w);
	char prefix[24];

	if (sw == NULL)
		return sim_err_set(err, SIM_ENOMEM, "swap: out of memory");
	if (sw->h2d[g] >= 0)
		return 0;
	snprintf(prefix, sizeof prefix, "gpu%d", g);
	return link_add_host(&sw->net, w->gpus[g].dev, prefix, 1, &sw->h2d[g],
			     &sw->d2h[g], err);
}

static int on_copy_done(struct sim *s, void *ctx, uint64_t arg);

/* Reschedules the completion of every active flow whose rate changed. */
static int reschedule(struct world *w)
{
	struct link_flow *f;

	struct world_swapper *sw = world__kind_own(w, &swap_kind);

	for (f = sw->net.flows; f != NULL; f = f->next_) {
		struct swap_flow *sf = (struct swap_flow *)f;
		sim_time fin;
		int rc;

		/* a drained flow waits out its latency: its event stands */
		if (f->ev != 0 && (f->bytes_left <= 0 ||
				   sf->rate_sched == f->rate_bytes_per_s))
			continue;
		if (f->ev != 0) {
			sim_cancel(&w->sim, f->ev);
			f->ev = 0;
		}
		fin = link_flow_finish_time(f, w->sim.now);
		sf->rate_sched = f->rate_bytes_per_s;
		if (fin == SIM_TIME_NEVER)
			continue;
		rc = sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE,
				     on_copy_done, w, sf->key, &f->ev);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "cannot schedule a swap "
					"copy: %s", sim_strerror(rc));
	}
	return 0;
}

/* Starts job j's copy c, one flow per placed GPU, over its H2D (dir 1) or
** D2H (dir 0) links (made already by host_links). */
static int start_copy(struct world *w, int j, struct world_swap_copy *c)
{
	struct world_job *job = world__job(w, j);
	struct world_swapper *sw = world__kind_own(w, &swap_kind);
	int k, rc;

	if (sw->nlive == sw->caplive) {
		int cap = sw->caplive ? 2 * sw->caplive : 8;
		struct world_swap_copy **p = realloc(sw->live, (size_t)cap *
						     sizeof *p);
		if (p == NULL) {
			free(c);
			return sim_fail(&w->sim, SIM_ENOMEM, "swap: out of "
					"memory");
		}
		sw->live = p;
		sw->caplive = cap;
	}
	sw->live[sw->nlive++] = c;
	c->job = j;
	c->n = c->nleft = job->nplaced;
	c->t0_ns = w->sim.now;
	for (k = 0; k < c->n; k++) {
		int g = job->gpu_ids[k];
		int li = c->dir ? sw->h2d[g] : sw->d2h[g];
		uint64_t b = world_swap_bytes(w, j, g,
					      job->tenants[k].mem_bytes);
		struct sim_err e = { 0, "" };

		c->flows[k].f.id = j;
		c->flows[k].key = ((uint64_t)j << 16) | (uint64_t)k;
		c->bytes += (double)b;
		rc = link_flow_start(&sw->net, &c->flows[k].f, &li, 1,
				     (double)b, 0, w->sim.now, &e);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "swap: %s", e.msg);
	}
	return reschedule(w);
}

/* Puts j back in the pending queue at its arrival place: before the first
** job that arrived after it. */
static int pending_insert(struct world *w, int j)
{
	int k, rc = world__pending_add(w, j);

	if (rc != 0)
		return rc;
	for (k = w->npending - 1; k > 0 && w->pending[k - 1] > j; k--)
		w->pending[k] = w->pending[k - 1];
	w->pending[k] = j;
	return 0;
}

/* The last flow of job j's copy ended: finish the swap. */
static int copy_done(struct world *w, struct world_swapper *sw,
		     struct world_swap_copy *c)
{
	int j = c->job;
	struct world_job *job = world__job(w, j);
	double dt_s = (double)(w->sim.now - c->t0_ns) / 1e9;
	int dir = c->dir, as_preempt = c->as_preempt, k, rc = 0;

	for (k = 0; rc == 0 && k < job->nplaced; k++)
		rc = world__tl_add(w, job->gpu_ids[k], j, dir ?
				   WORLD_TL_SWAP_IN : WORLD_TL_SWAP_OUT,
				   c->t0_ns);
	if (rc == 0)
		rc = world_add_metric(w, dir ? "swaps_in" : "swaps_out", 1);
	if (rc == 0)
		rc = world_add_metric(w, dir ? "swap_in_s" : "swap_out_s",
				      dt_s);
	if (rc == 0)
		rc = world_add_metric(w, "swap_gib", c->bytes / 1073741824.0);
	copy_free(sw, c);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "swap: out of memory");
	if (dir) {                    /* in: compute again */
		for (k = 0; k < job->nplaced; k++) {
			int g = job->gpu_ids[k];
			struct gpu_work_profile prof;
			world__train_profile(w, job, w->gpus[g].dev,
					     job->tj.batch, &prof);
			world__train_res(job, &prof);
			gpu_begin(&w->gpus[g], &job->tenants[k],
				  job->work0_[k], &prof, w->sim.now);
		}
		job->state = JOB_RUNNING;
		for (k = 0; k < job->nplaced; k++)
			if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
				return rc;
		return 0;
	}
	for (k = 0; k < job->nplaced; k++)
		gpu_detach(&w->gpus[job->gpu_ids[k]], &job->tenants[k],
			   w->sim.now);
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0)
			return rc;
	world__free_placement(w, job);
	job->state = JOB_PREEMPTED;
	job->swapped = 1;
	rc = as_preempt ? world__pending_add(w, j) : pending_insert(w, j);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "swap: out of memory");
	if ((rc = world__job_queued(w, j)) != 0)
		return rc;
	return world__request_schedule(w);
}

static int on_copy_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	struct world_swapper *sw = world__kind_own(w, &swap_kind);
	int j = (int)(arg >> 16), k = (int)(arg & 0xffff);
	struct world_swap_copy *c = copy_of(sw, j);
	struct link_flow *f;
	int rc;

	(void)s;
	if (c == NULL)
		return sim_fail(&w->sim, SIM_ESTATE, "swap: no copy of job %d "
				"in flight", j);
	f = &c->flows[k].f;
	f->ev = 0;
	link_flow_end(&sw->net, f, w->sim.now);
	c->nleft--;
	if ((rc = reschedule(w)) != 0)
		return rc;
	return c->nleft > 0 ? 0 : copy_done(w, sw, c);
}

/* Stops every work unit of job j now and returns the fraction of the job
** left (the slowest worker's), as world_preempt settles it. */
static double stop_work(struct world *w, struct world_job *job)
{
	double left = 0;
	int k;

	for (k = 0; k < job->nplaced; k++) {
		struct gpu_tenant *t = &job->tenants[k];
		struct gpu *g = &w->gpus[job->gpu_ids[k]];
		double f;
		gpu_settle(g, w->sim.now);
		f = job->work0_[k] > 0 ? t->work_left_ns / job->work0_[k] : 0;
		if (f > left)
			left = f;
		if (t->ev != 0) {
			sim_cancel(&w->sim, t->ev);
			t->ev = 0;
		}
		if (t->busy)
			gpu_finish(g, t, w->sim.now);
	}
	return left;
}

static struct world_swap_copy *copy_new(int n, int dir)
{
	struct world_swap_copy *c;

	c = calloc(1, sizeof *c + (size_t)n * sizeof c->flows[0]);
	if (c != NULL)
		c->dir = dir;
	return c;
}

/* Swaps running job j out (as_preempt: world_preempt at the cost of a
** swap, counted as a preemption; the job then joins the queue's end). */
static int swap_out(struct world *w, int j, int as_preempt,
		    struct sim_err *err)
{
	struct world_job *job = world__job(w, j);
	struct world_swap_copy *c;
	double left;
	int k, rc;

	for (k = 0; k < job->nplaced; k++)
		if ((rc = host_links(w, job->gpu_ids[k], err)) != 0)
			return rc;
	if ((c = copy_new(job->nplaced, 0)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "swap_out: out of memory");
	c->as_preempt = as_preempt;
	left = stop_work(w, job);
	job->frac_left = job->frac0_ * (left < 0 ? 0 : left);
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0) {
			free(c);
			return rc;
		}
	job->state = JOB_SWAPPING_OUT;
	if (as_preempt)
		job->preemptions++;
	else
		job->swaps++;
	return start_copy(w, j, c);
}

int world_swap_out(struct world *w, int j, struct sim_err *err)
{
	struct world_job *job;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "swap_out: no job %d", j);
	job = world__job(w, j);
	if (job->tj.kind != TRACE_TRAIN)
		return sim_err_set(err, SIM_ESTATE, "swap_out: job %s is a "
				   "service (services are not swapped)",
				   job->tj.id);
	if (job->state == JOB_SWAPPING_OUT || job->state == JOB_SWAPPING_IN)
		return sim_err_set(err, SIM_ESTATE, "swap_out: job %s is %s "
				   "(a copy is in flight)", job->tj.id,
				   job_state_name(job->state));
	if (job->state != JOB_RUNNING)
		return sim_err_set(err, SIM_ESTATE, "swap_out: job %s is %s, "
				   "not running", job->tj.id,
				   job_state_name(job->state));
	return swap_out(w, j, 0, err);
}

int world_swap_in(struct world *w, int j, const int *gpus, int n,
		  const struct world_place_opts *o, struct sim_err *err)
{
	struct world_job *job;
	struct world_swap_copy *c;
	int k, rc;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "swap_in: no job %d", j);
	job = world__job(w, j);
	if (job->state != JOB_PREEMPTED || !job->swapped)
		return sim_err_set(err, SIM_ESTATE, "swap_in: job %s is %s, "
				   "not swapped out", job->tj.id,
				   job_state_name(job->state));
	/* What can fail for want of memory, before anything changes;
	** world_place judges n and the GPU numbers. */
	if (gpus == NULL)
		return sim_err_set(err, SIM_EINVAL, "swap_in: no GPUs");
	/* (not world_place: while the job is swapped it sends us back) */
	if (n != job->tj.gpus || n < 1 || n > 0xffff)
		return sim_err_set(err, SIM_EINVAL, "swap_in: job %s needs %d "
				   "GPUs, got %d", job->tj.id, job->tj.gpus, n);
	for (k = 0; k < n; k++)
		if (gpus[k] >= 0 && gpus[k] < w->ngpus &&
		    (rc = host_links(w, gpus[k], err)) != 0)
			return rc;
	if ((c = copy_new(n, 1)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "swap_in: out of memory");
	job->swapped = 0;
	rc = world_place(w, j, gpus, n, o, err);
	if (rc != 0) {
		if (job->state == JOB_PREEMPTED)
			job->swapped = 1;   /* refused: as it was */
		free(c);
		return rc;
	}
	/* Placed and computing: stop its units at once (no progress is
	** made at this instant); they begin again when the copy ends. */
	(void)stop_work(w, job);
	for (k = 0; k < job->nplaced; k++)
		if ((rc = world__gpu_changed(w, job->gpu_ids[k])) != 0) {
			free(c);
			return rc;
		}
	job->state = JOB_SWAPPING_IN;
	return start_copy(w, j, c);
}

/* ---- the kind ------------------------------------------------------------ */

/* xPreempt: with preempt_cost swap, world_preempt is a swap out. */
static int swap_preempt(struct world *w, void *state, struct world_job *job,
			struct sim_err *err)
{
	const struct world_swapper *sw = state;

	if (sw->preempt_cost != WORLD_PREEMPT_SWAP)
		return WORLD_PASS;
	return swap_out(w, job->idx, 1, err);
}

/* xPlace: placing a swapped job is a swap in. */
static int swap_place(struct world *w, void *state, struct world_job *job,
		      const int *gpus, int n, const struct world_place_opts *o,
		      struct sim_err *err)
{
	(void)state;
	if (job->state != JOB_PREEMPTED || !job->swapped)
		return WORLD_PASS;
	return world_swap_in(w, job->idx, gpus, n, o, err);
}

/* The net first: link_net_fini walks the flows, which live in the
** copies. */
static void swap_fini(struct world *w, void *state)
{
	struct world_swapper *sw = state;
	int k;

	(void)w;
	link_net_fini(&sw->net);
	for (k = 0; k < sw->nlive; k++)
		free(sw->live[k]);
	free(sw->live);
	free(sw->h2d);
	free(sw->d2h);
	free(sw);
}

static const struct world_kind swap_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "swap",
	.eJob = WORLD_NO_JOBS,
	.xFini = swap_fini,
	.xPlace = swap_place,
	.xPreempt = swap_preempt,
};

int world_swap_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err)
{
	struct world_swapper *sw;
	int rc;

	if (cfg->preempt_cost != WORLD_PREEMPT_FREE &&
	    cfg->preempt_cost != WORLD_PREEMPT_SWAP)
		return sim_err_set(err, SIM_EINVAL, "preempt_cost %d: expected "
				   "free (0) or swap (1)", cfg->preempt_cost);
	if ((sw = calloc(1, sizeof *sw)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	sw->preempt_cost = cfg->preempt_cost;
	link_net_init(&sw->net);
	if ((rc = world__kind_add(w, &swap_kind, sw, err)) != 0)
		swap_fini(w, sw);
	return rc;
}

int world_swap_inflight(const struct world *w)
{
	const struct world_swapper *sw = world__kind_state(w, &swap_kind);

	return sw != NULL ? sw->nlive : 0;
}
