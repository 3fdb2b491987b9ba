/*
** dlas.c: the discretized 2D-LAS queues shared by tiresias and gittins
** (dlas.h).  Constants and their sources: docs/POLICIES.md, "tiresias".
*/
#include "policies/dlas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const dlas_service_names[] = { "time", "gpu", NULL };
const char *const dlas_jump_names[] = { "muri", "tiresias", NULL };

/* jump = tiresias: the slack of its floor, s (docs/POLICIES.md,
** "tiresias"): far below the peer's 1 s grain, far above the ns residue
** of a preempted job's float progress. */
#define DLAS_JUMP_EPS_S 1e-6

/* "3250,7200" -> thresholds in seconds, increasing, > 0. */
static int parse_queues(struct dlas *d, const char *s, struct sim_err *err)
{
	char buf[256], *tok, *save = NULL, *end;
	int n = 0;

	snprintf(buf, sizeof buf, "%s", s);
	for (tok = strtok_r(buf, ", ", &save); tok != NULL;
	     tok = strtok_r(NULL, ", ", &save)) {
		double v = strtod(tok, &end);
		if (*end != '\0' || !(v > 0) || !isfinite(v) || v > 1e12 ||
		    (n > 0 && !(v > d->limit_s[n - 1])))
			return sim_err_set(err, SIM_EINVAL, "policy %s: queues: "
					   "expected increasing thresholds in "
					   "seconds > 0, got '%s'", d->name, s);
		if (n == DLAS_MAXQ - 1)
			return sim_err_set(err, SIM_EINVAL, "policy %s: queues: "
					   "at most %d thresholds", d->name,
					   DLAS_MAXQ - 1);
		d->limit_s[n++] = v;
	}
	d->nq = n + 1;
	return 0;
}

int dlas_init(struct dlas *d, struct world *w, const char *name,
	      struct sim_err *err)
{
	int rc;

	d->name = name;
	if ((rc = parse_queues(d, d->queues ? d->queues : "", err)) != 0)
		return rc;
	return qs_init(&d->q, w, d->placement, err);
}

void dlas_fini(struct dlas *d)
{
	qs_fini(&d->q);
	free(d->ev);
}

int dlas_arrival(struct dlas *d, struct world *w, int j)
{
	int rc = qs_arrive(&d->q, w, j, d->name);

	if (rc <= 0)
		return rc;
	qs_job(w, j)->klass = 0;
	qs_job(w, j)->seq = ++d->counter;
	return 0;
}

void dlas_finish(struct dlas *d, struct world *w, int j)
{
	qs_finish(&d->q, w, j);
}

double dlas_attained_s(const struct dlas *d, struct world *w, int j)
{
	double s = qs_job(w, j)->exec_ns / 1e9;

	return d->gpu_service ? s * (double)qs_job(w, j)->gpus : s;
}

static int ev_push(struct dlas *d, int j)
{
	if (d->nev == d->ev_cap) {
		int n = d->ev_cap ? 2 * d->ev_cap : 64;
		int *p = realloc(d->ev, (size_t)n * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		d->ev = p;
		d->ev_cap = n;
	}
	d->ev[d->nev++] = j;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Demotions and starvation promotions of this pass, applied in arrival
** (job index) order as the simulators' loop over runnable_jobs does. */
static int requeue(struct dlas *d, struct world *w)
{
	int k, rc;

	d->nev = 0;
	for (k = 0; k < d->q.nact; k++) {
		int j = d->q.act[k];
		struct qs_job *x = d->q.actx[k];
		int run = pol_job_state(w, j) == POL_JOB_RUNNING;
		if (run && x->klass < d->nq - 1 &&
		    dlas_attained_s(d, w, j) >= d->limit_s[x->klass])
			rc = ev_push(d, j);
		else if (!run && d->starvation > 0 && x->klass > 0 &&
			 x->total_exec_ns > 0 && x->exec_ns > 0 &&
			 x->pend_ns >= x->exec_ns * d->starvation)
			rc = ev_push(d, j);
		else
			continue;
		if (rc != 0)
			return rc;
	}
	if (d->nev > 1)
		qsort(d->ev, (size_t)d->nev, sizeof *d->ev, cmp_int);
	for (k = 0; k < d->nev; k++) {
		struct qs_job *x = qs_job(w, d->ev[k]);
		if (pol_job_state(w, d->ev[k]) == POL_JOB_RUNNING) {
			x->klass++;
		} else {
			x->klass = 0;
			x->exec_ns = 0;
			x->pend_ns = 0;
			pol_add_metric(w, "dlas_promotions", 1);
		}
		x->seq = ++d->counter;
	}
	return 0;
}

/* The time to the next demotion or promotion, ns; -1 if none. */
static double next_jump_ns(struct dlas *d, struct world *w)
{
	double best = -1;
	int k;

	for (k = 0; k < d->q.nact; k++) {
		int j = d->q.act[k];
		const struct qs_job *x = d->q.actx[k];
		double t = -1;
		if (pol_job_state(w, j) == POL_JOB_RUNNING) {
			double g = d->gpu_service ? x->gpus : 1;
			double at;
			if (x->klass >= d->nq - 1)
				continue;
			at = d->limit_s[x->klass] / g;
			if (d->jump_round)
				at = ceil(at);
			t = at * 1e9 - x->exec_ns;
			if (d->jump == DLAS_JUMP_TIRESIAS) {
				/* run_sim.py: ceil((limit - executed) /
				** num_gpu) on Python 2 ints, which floor
				** first; a jump of 0 s before the crossing
				** (the peer would spin) keeps the crossing.
				** The peer's times are whole seconds: a
				** residue under DLAS_JUMP_EPS_S (a finish
				** 1 ns late) must not move the floor. */
				double e_s = x->exec_ns / 1e9;
				double r = floor((d->limit_s[x->klass] - e_s) /
						 g + DLAS_JUMP_EPS_S);
				if (r >= 1)
					t = r * 1e9;
			}
		} else if (d->starvation > 0 && x->klass > 0 &&
			   x->total_exec_ns > 0 && x->exec_ns > 0) {
			t = x->exec_ns * d->starvation - x->pend_ns;
			if (!(t > 0))
				continue;
		} else {
			continue;
		}
		if (t < 0)
			t = 0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

int dlas_pass(struct dlas *d, struct world *w)
{
	struct sim_err e = { 0, "" };
	double dt;
	int k, rc;

	qs_settle(&d->q, w);
	if ((rc = requeue(d, w)) != 0)
		return rc;
	for (k = 0; k < d->q.nact; k++) {
		struct qs_job *x = d->q.actx[k];
		x->key = x->key2 = 0;
		if (d->order != NULL)
			d->order(d, w, d->q.act[k]);
	}
	qs_sort(&d->q, w);
	if ((rc = qs_apply(&d->q, w)) != 0)
		return rc;
	/* each queue's pending jobs go behind its running ones (the order
	** is the pass's: qs_apply does not reorder it) */
	for (k = 0; k < d->q.nact; k++)
		if (pol_job_state(w, d->q.act[k]) != POL_JOB_RUNNING)
			d->q.actx[k]->seq = ++d->counter;
	/* every pass supersedes the previous pass's timer: a jump it set
	** for a job that has since finished or stopped must not fire (the
	** simulators recompute next_job_jump at every event; a stale pass
	** re-sorts by indexes that moved: gittins) */
	d->timer_gen++;
	if ((dt = next_jump_ns(d, w)) >= 0) {
		sim_time t = dt > 4e18 ? (sim_time)4e18 : (sim_time)ceil(dt);
		if ((rc = pol_set_timer(w, t, d->timer_gen, &e)) != 0)
			return rc;
	}
	return 0;
}

int dlas_timer(struct dlas *d, struct world *w, uint64_t tag)
{
	if (tag != d->timer_gen)
		return 0;                 /* superseded by a later pass */
	return dlas_pass(d, w);
}
