/*
** gavel.c: Gavel (Narayanan et al., OSDI 2020), heterogeneity-aware
** allocation through a linear program and its round-based mechanism, as
** its simulator runs them (stanford-futuredata/gavel scheduler/
** scheduler.py Scheduler.simulate, _update_priorities,
** _reset_time_run_so_far, _schedule_jobs_on_workers(_helper),
** _assign_workers_to_job; scheduler/policies/ max_min_fairness.py,
** finish_time_fairness.py, min_total_duration.py; commit c4fa400;
** docs/POLICIES.md, "gavel").
**
** Worker types are the cluster's device kinds; a job's throughput on a
** type is the inverse of its solo run time there (the workload model, or
** the trace's times).  Every round_s seconds (a round ends earlier when
** every job scheduled in it ends earlier):
**
**   1. the round's run times are added to each job's and each type's
**      time so far; jobs that arrived during the round join;
**   2. when the set of jobs changed and reset_s has passed since the
**      last reset (or none happened yet), the deficits are updated, the
**      times so far reset to round_s / 2 and the allocation X (jobs x
**      types, fractions of time) recomputed by the LP (gavel_lp.c);
**   3. priority of job m on type j = X[m][j] / (its share of the type's
**      time so far) (X x 1e9 when it has had none, 0 without an
**      allocation); per type in Gavel's order (fastest first), the jobs
**      by (priority, deficit, allocation) descending, taken greedily
**      while GPUs of that type remain;
**   4. a job scheduled on the same GPUs as in the last round keeps them
**      (Gavel's lease extension); the others, largest first, take the
**      lowest free GPUs of the type (placement = gavel) or a node
**      consolidated set (placement = node);
**   5. each runs min(its remainder, a round) (whole_steps: whole
**      iterations, int(throughput x round_s), as Gavel's simulator), then
**      is preempted unless the next round keeps it.
**
** Arrivals wait for the next round (or start one when the cluster is
** idle).  A job that can run on no type, a service and a CPU-only job
** are failed at arrival.
**
** Cost per event (A active jobs, G GPUs, T device kinds): each round
** solves the allocation LP over A x T variables with GLPK (simplex:
** polynomial in practice, not bounded by O(A T)) only when the active
** set changed, then orders the A jobs by priority (O(A log A)) and places
** them with a scan of the GPUs per job (O(G)); an arrival is O(T), a
** finish O(A) (its removal from the active list), besides the LP they
** trigger at the next round.  The GPU scan is not indexed.  Worst case:
** many active jobs whose set changes every round (one LP per round).
** Memory: a job's record (struct gv_job, its pol_job_priv: 856 B) lives
** from its arrival to its release, so it follows the active jobs.
*/
#include "policies/gavel_lp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

#define GV_MAXT 16                    /* device kinds we rank */
#define GV_TAG_ROUND ((uint64_t)1 << 56)
#define GV_TAG_SLICE ((uint64_t)2 << 56)
/* A round's (and a slice's) end fires this much after the planned
** instant, so that a job planned to finish then (the world rounds its
** completion up to the nanosecond) has finished: 2 ns a round. */
#define GV_SLACK_NS 2

struct gv_job {
	int active;
	int sf;                       /* GPUs it asks */
	double w;                     /* priority weight */
	double tput[GV_MAXT];         /* job fractions per s alone, by type */
	double total_s[GV_MAXT];      /* solo run time there (0: cannot) */
	int64_t iters;                /* iterations (0: not given) */
	double tsf[GV_MAXT];          /* time so far since the last reset */
	double deficit[GV_MAXT];
	double prio[GV_MAXT];
	double alloc[GV_MAXT];
	int has_alloc;
	/* the round */
	int type;                     /* scheduled on this round; -1 */
	int prev_type;                /* of its last assignment; -1 */
	int *gpus, *prev;             /* sf entries each */
	int nprev;
	sim_time run0, slice_end;     /* placed at, runs until */
	int running;                  /* placed this round, run not counted */
};

struct gavel {
	/* parameters */
	int objective, solver, placement, weights, whole_steps;
	double round_s, reset_s;
	/* the cluster */
	int ntypes, ngpus;
	int order[GV_MAXT];           /* types, fastest first */
	int type_n[GV_MAXT];
	int *gpu_type, *gpu_node;
	int *taken;                   /* per GPU: assigned this round */
	/* jobs */
	int *act;                     /* active jobs, arrival order */
	int nact, act_cap;
	double wtsf[GV_MAXT];         /* per type: time so far */
	double last_reset;            /* s; 0: never (Gavel's test) */
	int need_update;
	int in_round;
	uint64_t round_no;
	int ran_last;                 /* the last round ran a job */
	/* scratch */
	struct gv_ent { int j; double p, d, a; } *ent;
	int *sched;                   /* scheduled jobs, by scale factor */
	double *lp_x, *lp_t, *lp_rem, *lp_tss, *lp_w;
	int *lp_sf, lp_cap;
};

/* Job j's record (its pol_job_priv, freed with the job); NULL for a job
** released or out of memory (only arrival can meet the latter: every
** other reader reads an active job's record, made at its arrival). */
static struct gv_job *gj(const struct world *w, int j)
{
	return pol_job_priv(w, j);
}

static const char *const gv_objectives[] = {
	"max_min_fairness_perf", "max_min_fairness",
	"finish_time_fairness_perf", "min_total_duration_perf", NULL
};
static const char *const gv_solvers[] = { "interior", "simplex", NULL };
static const char *const gv_places[] = { "gavel", "node", NULL };
static const char *const gv_weights[] = { "one", "priority", NULL };

static const struct pol_param_def gv_params[] = {
	POL_PARAM_CHOICE("objective", struct gavel, objective, gv_objectives,
			 "max_min_fairness_perf", "the allocation LP: Gavel's "
			 "heterogeneity-aware max-min fairness, its agnostic "
			 "form, finish-time fairness, or makespan"),
	POL_PARAM_DOUBLE("round_s", struct gavel, round_s, 1, 1e7, "360",
			 "round length, s (scheduler.py time_per_iteration)"),
	POL_PARAM_DOUBLE("reset_s", struct gavel, reset_s, 0, 1e9, "1920",
			 "least time between allocation resets, s "
			 "(minimum_time_between_allocation_resets)"),
	POL_PARAM_BOOL("whole_steps", struct gavel, whole_steps, "1",
		       "a job runs whole iterations in a round "
		       "(int(throughput x round)), as Gavel's simulator"),
	POL_PARAM_CHOICE("solver", struct gavel, solver, gv_solvers,
			 "interior", "GLPK's interior point (a central "
			 "optimum, as Gavel's ECOS) or simplex (a vertex)"),
	POL_PARAM_CHOICE("placement", struct gavel, placement, gv_places,
			 "gavel", "gavel: the lowest free GPUs of the type; "
			 "node: a job within one node, larger on whole nodes"),
	POL_PARAM_CHOICE("weights", struct gavel, weights, gv_weights, "one",
			 "priority weights: one (Gavel's default) or the "
			 "trace's priority (at least 1)"),
	POL_PARAM_END
};

/* ---- set-up ------------------------------------------------------------ */

static int gv_init(struct world *w, void *s, const struct pol_params *p,
		   struct sim_err *err)
{
	struct gavel *g = s;
	int k, i, rc, ng = pol_ngpus(w);

	(void)p;
	g->ngpus = ng;
	g->ntypes = pol_ndevs(w);
	if (g->ntypes > GV_MAXT)
		return sim_err_set(err, SIM_EINVAL, "gavel: %d device kinds "
				   "(at most %d)", g->ntypes, GV_MAXT);
	g->gpu_type = calloc((size_t)ng + 1, sizeof *g->gpu_type);
	g->gpu_node = calloc((size_t)ng + 1, sizeof *g->gpu_node);
	g->taken = calloc((size_t)ng + 1, sizeof *g->taken);
	if (g->gpu_type == NULL || g->gpu_node == NULL || g->taken == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (k = 0; k < ng; k++) {
		struct pol_gpu_info gi = pol_gpu(w, k);
		g->gpu_type[k] = gi.dev;
		g->gpu_node[k] = gi.node;
		g->type_n[gi.dev]++;
		if ((rc = pol_set_gpu_mode(w, k, POL_GPU_EXCLUSIVE, err)) != 0)
			return rc;
	}
	/* Gavel's fixed order ["v100", "p100", "k80"] is fastest first: the
	** kinds by SM count, descending (V100 80, P100 56, K80 13), then
	** index */
	for (k = 0; k < g->ntypes; k++)
		g->order[k] = k;
	for (k = 1; k < g->ntypes; k++)
		for (i = k; i > 0 && pol_dev(w, g->order[i - 1]).sms <
		     pol_dev(w, g->order[i]).sms; i--) {
			int t = g->order[i];
			g->order[i] = g->order[i - 1];
			g->order[i - 1] = t;
		}
	return 0;
}

static void gv_fini(struct world *w, void *s)
{
	struct gavel *g = s;
	int k;

	for (k = 0; k < g->nact; k++) {      /* jobs still active */
		struct gv_job *x = gj(w, g->act[k]);
		if (x != NULL) {
			free(x->gpus);
			free(x->prev);
			x->gpus = x->prev = NULL;
		}
	}
	free(g->act);
	free(g->gpu_type);
	free(g->gpu_node);
	free(g->taken);
	free(g->ent);
	free(g->sched);
	free(g->lp_x);
	free(g->lp_t);
	free(g->lp_rem);
	free(g->lp_tss);
	free(g->lp_w);
	free(g->lp_sf);
}

static int gv_arrival(struct world *w, void *s, int j)
{
	struct gavel *g = s;
	struct pol_job_info ji = pol_job(w, j);
	struct gv_job *x;
	int t, any = 0;

	if (ji.kind != POL_TRAIN || ji.gpus == 0) {
		pol_fail_job(w, j, "gavel schedules training jobs on GPUs only");
		return 0;
	}
	if ((x = gj(w, j)) == NULL)
		return SIM_ENOMEM;
	memset(x, 0, sizeof *x);
	x->sf = ji.gpus;
	x->w = g->weights == 1 && ji.priority > 1 ? ji.priority : 1.0;
	x->iters = 0;
	for (t = 0; t < g->ntypes; t++) {
		struct pol_dev_info d = pol_dev(w, t);
		double rem;
		if (g->type_n[t] < ji.gpus ||
		    pol_job_mem(w, j, d.gpu) > d.hbm_bytes)
			continue;               /* cannot run on this type */
		rem = pol_job_remaining_ns(w, j, d.gpu) / 1e9;
		if (!(rem > 0))
			continue;
		x->total_s[t] = rem / (ji.frac_left > 0 ? ji.frac_left : 1);
		x->tput[t] = 1.0 / x->total_s[t];
		any = 1;
	}
	if (!any) {
		pol_fail_job(w, j, "gavel: no GPU type has enough GPUs or "
			     "memory for it");
		return 0;
	}
	x->iters = ji.iterations;
	x->gpus = malloc((size_t)x->sf * sizeof *x->gpus);
	x->prev = malloc((size_t)x->sf * sizeof *x->prev);
	if (x->gpus == NULL || x->prev == NULL)
		return SIM_ENOMEM;
	x->active = 1;
	x->type = x->prev_type = -1;
	for (t = 0; t < g->ntypes; t++)
		x->tsf[t] = g->round_s / 2.0;
	if (g->nact == g->act_cap) {
		int n = g->act_cap ? 2 * g->act_cap : 256;
		int *p = realloc(g->act, (size_t)n * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		g->act = p;
		g->act_cap = n;
	}
	g->act[g->nact++] = j;
	g->need_update = 1;
	return 0;
}

/* Adds job j's run this round (from run0 to now) to the times so far. */
static void count_run(struct gavel *g, struct world *w, int j)
{
	struct gv_job *x = gj(w, j);
	double dt;

	if (!x->running || x->type < 0)
		return;
	dt = (double)(pol_now(w) - x->run0) / 1e9;
	if (dt > 0) {
		x->tsf[x->type] += dt;
		g->wtsf[x->type] += dt;
	}
	x->running = 0;
}

static int gv_finish(struct world *w, void *s, int j)
{
	struct gavel *g = s;
	struct gv_job *x = gj(w, j);
	int k;


	if (x == NULL || !x->active)
		return 0;
	count_run(g, w, j);
	x->active = 0;
	free(x->gpus);
	free(x->prev);
	x->gpus = x->prev = NULL;
	for (k = 0; k < g->nact && g->act[k] != j; k++)
		;
	if (k < g->nact) {
		memmove(g->act + k, g->act + k + 1,
			(size_t)(g->nact - k - 1) * sizeof *g->act);
		g->nact--;
	}
	g->need_update = 1;
	return 0;
}

/* ---- the allocation ------------------------------------------------------ */

static int lp_room(struct gavel *g, int n)
{
	int m = g->ntypes;

	if (n <= g->lp_cap)
		return 0;
	free(g->lp_x);
	free(g->lp_t);
	free(g->lp_rem);
	free(g->lp_tss);
	free(g->lp_w);
	free(g->lp_sf);
	g->lp_cap = 2 * n;
	g->lp_x = malloc((size_t)(g->lp_cap * m) * sizeof *g->lp_x);
	g->lp_t = malloc((size_t)(g->lp_cap * m) * sizeof *g->lp_t);
	g->lp_rem = malloc((size_t)g->lp_cap * sizeof *g->lp_rem);
	g->lp_tss = malloc((size_t)g->lp_cap * sizeof *g->lp_tss);
	g->lp_w = malloc((size_t)g->lp_cap * sizeof *g->lp_w);
	g->lp_sf = malloc((size_t)g->lp_cap * sizeof *g->lp_sf);
	if (g->lp_x == NULL || g->lp_t == NULL || g->lp_rem == NULL ||
	    g->lp_tss == NULL || g->lp_w == NULL || g->lp_sf == NULL) {
		g->lp_cap = 0;
		return SIM_ENOMEM;
	}
	return 0;
}

/* The work left of job j, as a fraction (types' times agree on it). */
static double frac_left(struct gavel *g, struct world *w, int j)
{
	int t;

	for (t = 0; t < g->ntypes; t++)
		if (gj(w, j)->total_s[t] > 0)
			return pol_job_remaining_ns(w, j, pol_dev(w, t).gpu) /
				1e9 / gj(w, j)->total_s[t];
	return 0;
}

static int compute_allocation(struct gavel *g, struct world *w)
{
	struct gv_lp_in in;
	int n = g->nact, m = g->ntypes, i, t, rc;
	double now_s = (double)pol_now(w) / 1e9;

	if (n == 0)
		return 0;
	if ((rc = lp_room(g, n)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		const struct gv_job *x = gj(w, g->act[i]);
		for (t = 0; t < m; t++)
			g->lp_t[i * m + t] = x->tput[t];
		g->lp_sf[i] = x->sf;
		g->lp_w[i] = x->w;
		g->lp_rem[i] = frac_left(g, w, g->act[i]);
		g->lp_tss[i] = now_s -
			(double)pol_job(w, g->act[i]).submit_ns / 1e9;
	}
	memset(&in, 0, sizeof in);
	in.n = n;
	in.m = m;
	in.objective = g->objective;
	in.solver = g->solver;
	in.sf = g->lp_sf;
	in.w = g->lp_w;
	in.tput = g->lp_t;
	in.ngpus = g->type_n;
	in.rem = g->lp_rem;
	in.tss = g->lp_tss;
	rc = gv_lp_solve(&in, g->lp_x);
	if (rc < 0)
		return rc;
	if (rc == 1)
		pol_add_metric(w, "gavel_lp_fallbacks", 1);
	pol_add_metric(w, "gavel_lp_solves", 1);
	for (i = 0; i < n; i++) {
		struct gv_job *x = gj(w, g->act[i]);
		/* to 6 decimals: the solver's last digits (1e-8) would
		** otherwise break ties that Gavel's order leaves to the
		** arrival order */
		for (t = 0; t < m; t++)
			x->alloc[t] = round(g->lp_x[i * m + t] * 1e6) / 1e6;
		x->has_alloc = 1;
	}
	return 0;
}

/* _reset_time_run_so_far: deficits, then the times so far restart at
** round / 2 each. */
static void reset_times(struct gavel *g, const struct world *w,
			double now_s)
{
	double elapsed = now_s - g->last_reset;
	int t, k;

	for (t = 0; t < g->ntypes; t++) {
		g->wtsf[t] = 0;
		for (k = 0; k < g->nact; k++) {
			struct gv_job *x = gj(w, g->act[k]);
			double got = x->tsf[t] - g->round_s / 2.0;
			double should = x->has_alloc ? x->alloc[t] * elapsed : 0;
			x->deficit[t] += should - got;
			x->tsf[t] = g->round_s / 2.0;
			g->wtsf[t] += x->tsf[t];
		}
	}
	g->last_reset = now_s;
}

/* _update_priorities (simulation mode). */
static int update_priorities(struct gavel *g, struct world *w, int force)
{
	double now_s = (double)pol_now(w) / 1e9;
	int t, k, rc;

	if (g->need_update && (force || g->last_reset == 0 ||
			       now_s - g->last_reset >= g->reset_s)) {
		reset_times(g, w, now_s);
		if ((rc = compute_allocation(g, w)) != 0)
			return rc;
		g->need_update = 0;
	}
	for (t = 0; t < g->ntypes; t++)
		for (k = 0; k < g->nact; k++) {
			struct gv_job *x = gj(w, g->act[k]);
			double frac = g->wtsf[t] == 0 ? 0 :
				x->tsf[t] / g->wtsf[t];
			if (!x->has_alloc || x->alloc[t] == 0 ||
			    x->tput[t] <= 0)
				x->prio[t] = 0;
			else if (frac > 0)
				x->prio[t] = x->alloc[t] / frac;
			else
				x->prio[t] = x->alloc[t] * 1e9;
		}
	return 0;
}

/* ---- the round ----------------------------------------------------------- */

static int ent_cmp(const void *a, const void *b)
{
	const struct gv_ent *x = a, *y = b;

	/* descending (priority, deficit, allocation); equal keys keep the
	** arrival order (Python's stable sorted(reverse=True)) */
	if (x->p != y->p)
		return x->p < y->p ? 1 : -1;
	if (x->d != y->d)
		return x->d < y->d ? 1 : -1;
	if (x->a != y->a)
		return x->a < y->a ? 1 : -1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Picks sf free GPUs of type t into x->gpus; 1 if found. */
static int pick(struct gavel *g, struct gv_job *x, int t)
{
	int k, got = 0;

	if (g->placement == 1) {
		/* node-consolidated within the type: the first node with
		** enough free GPUs; a larger job on whole free nodes */
		int a, b, free_n;
		for (a = 0; a < g->ngpus; a = b) {
			for (b = a; b < g->ngpus &&
			     g->gpu_node[b] == g->gpu_node[a]; b++)
				;
			if (g->gpu_type[a] != t)
				continue;
			for (free_n = 0, k = a; k < b; k++)
				free_n += !g->taken[k];
			if (x->sf <= b - a) {
				if (free_n < x->sf)
					continue;
			} else if (free_n != b - a) {
				continue;
			}
			for (k = a; k < b && got < x->sf; k++)
				if (!g->taken[k])
					x->gpus[got++] = k;
			if (got == x->sf)
				break;
		}
		if (got < x->sf)
			got = 0;             /* fragmented: lowest free below */
		else
			goto done;
	}
	for (k = 0; k < g->ngpus && got < x->sf; k++)
		if (g->gpu_type[k] == t && !g->taken[k])
			x->gpus[got++] = k;
	if (got < x->sf)
		return 0;
done:
	for (k = 0; k < x->sf; k++)
		g->taken[x->gpus[k]] = 1;
	return 1;
}

static int same_set(const int *a, int na, const struct pol_job_info *ji,
		    struct world *w, int j)
{
	int k;

	if (ji->state != POL_JOB_RUNNING || ji->nplaced != na)
		return 0;
	for (k = 0; k < na; k++)
		if (pol_job_tenant(w, j, k).gpu != a[k])
			return 0;
	return 1;
}

static int gv_round(struct gavel *g, struct world *w)
{
	struct sim_err e = { 0, "" };
	sim_time now = pol_now(w), end = now;
	int n = g->nact, t, k, i, rc, nsched = 0, force;

	g->in_round = 0;
	for (k = 0; k < n; k++)
		count_run(g, w, g->act[k]);
	force = !g->ran_last && g->nact > 0;
	if ((rc = update_priorities(g, w, force)) != 0)
		return rc;
	if (n == 0)
		return 0;
	{
		struct gv_ent *pe = realloc(g->ent, (size_t)(n + 1) *
					    sizeof *pe);
		int *ps;
		if (pe == NULL)
			return SIM_ENOMEM;
		g->ent = pe;
		ps = realloc(g->sched, (size_t)(n + 1) * sizeof *ps);
		if (ps == NULL)
			return SIM_ENOMEM;
		g->sched = ps;
	}
	/* the greedy: per type in order, its sorted list */
	{
		int left[GV_MAXT];
		for (t = 0; t < g->ntypes; t++)
			left[t] = g->type_n[t];
		for (k = 0; k < n; k++)
			gj(w, g->act[k])->type = -1;
		for (i = 0; i < g->ntypes; i++) {
			t = g->order[i];
			for (k = 0; k < n; k++) {
				const struct gv_job *x = gj(w, g->act[k]);
				g->ent[k].j = g->act[k];
				g->ent[k].p = x->prio[t];
				g->ent[k].d = x->deficit[t];
				g->ent[k].a = x->has_alloc ? x->alloc[t] : 0;
			}
			/* ties in arrival order: act is in arrival order,
			** and job indices grow with arrival */
			qsort(g->ent, (size_t)n, sizeof *g->ent, ent_cmp);
			for (k = 0; k < n && left[t] > 0; k++) {
				struct gv_job *x = gj(w, g->ent[k].j);
				if (x->type >= 0 || x->tput[t] <= 0 ||
				    x->sf > left[t])
					continue;
				left[t] -= x->sf;
				x->type = t;
				g->sched[nsched++] = g->ent[k].j;
			}
		}
	}
	/* assignment: per type, by scale factor descending: keep, then
	** the lowest free GPUs (jobs without an allocation get none) */
	memset(g->taken, 0, (size_t)g->ngpus * sizeof *g->taken);
	for (i = 0; i < g->ntypes; i++) {
		int sfmax = 0, sf;
		t = g->order[i];
		for (k = 0; k < nsched; k++)
			if (gj(w, g->sched[k])->type == t &&
			    gj(w, g->sched[k])->sf > sfmax)
				sfmax = gj(w, g->sched[k])->sf;
		for (sf = sfmax; sf >= 1; sf--) {
			for (k = 0; k < nsched; k++) {
				struct gv_job *x = gj(w, g->sched[k]);
				int ok = 1, q;
				if (x->type != t || x->sf != sf ||
				    x->prev_type != t || x->nprev != sf)
					continue;
				for (q = 0; q < sf && ok; q++)
					ok = !g->taken[x->prev[q]];
				if (!ok)
					continue;
				memcpy(x->gpus, x->prev,
				       (size_t)sf * sizeof *x->gpus);
				for (q = 0; q < sf; q++)
					g->taken[x->gpus[q]] = 1;
				x->running = -1;        /* kept */
			}
			for (k = 0; k < nsched; k++) {
				struct gv_job *x = gj(w, g->sched[k]);
				if (x->type != t || x->sf != sf ||
				    x->running == -1)
					continue;
				if (!x->has_alloc || !pick(g, x, t))
					x->type = -2;   /* held GPUs, no run */
			}
		}
	}
	/* apply: preempt what moves or stops, then place */
	for (k = 0; k < n; k++) {
		int j = g->act[k];
		struct gv_job *x = gj(w, j);
		struct pol_job_info ji = pol_job(w, j);
		if (ji.state != POL_JOB_RUNNING)
			continue;
		if (x->type >= 0 && same_set(x->gpus, x->sf, &ji, w, j))
			continue;
		if ((rc = pol_preempt(w, j, &e)) != 0)
			return rc;
	}
	g->ran_last = 0;
	g->round_no++;
	for (k = 0; k < nsched; k++) {
		int j = g->sched[k];
		struct gv_job *x = gj(w, j);
		struct pol_job_info ji = pol_job(w, j);
		double run_s, rem_s;
		sim_time dt;
		x->running = 0;
		if (x->type < 0) {
			x->type = -1;
			continue;
		}
		if (ji.state != POL_JOB_RUNNING) {
			rc = pol_place(w, j, x->gpus, x->sf, NULL, &e);
			if (rc == SIM_ENOSPC || rc == SIM_ESTATE) {
				x->type = -1;
				continue;
			}
			if (rc != 0)
				return rc;
		}
		memcpy(x->prev, x->gpus, (size_t)x->sf * sizeof *x->prev);
		x->nprev = x->sf;
		x->prev_type = x->type;
		x->running = 1;
		x->run0 = now;
		g->ran_last = 1;
		/* this round's slice: whole iterations when known */
		run_s = g->round_s;
		if (g->whole_steps && x->iters > 0) {
			double it = x->total_s[x->type] / (double)x->iters;
			double steps = floor(g->round_s / it + 1e-9);
			run_s = (steps < 1 ? 1 : steps) * it;
		}
		rem_s = frac_left(g, w, j) * x->total_s[x->type];
		if (rem_s < run_s)
			run_s = rem_s;
		dt = (sim_time)ceil(run_s * 1e9);
		x->slice_end = now + dt;
		if (x->slice_end > end)
			end = x->slice_end;
	}
	/* a job whose slice ends before the round's end stops there */
	for (k = 0; k < nsched; k++) {
		struct gv_job *x = gj(w, g->sched[k]);
		if (x->running == 1 && x->slice_end < end &&
		    (rc = pol_set_timer(w, x->slice_end - now + GV_SLACK_NS,
					GV_TAG_SLICE | (uint64_t)g->sched[k],
					&e)) != 0)
			return rc;
	}
	if (!g->ran_last && g->nact > 0 && !force) {
		/* Nothing could run (the jobs lack an allocation until the
		** next reset): reset now, as Gavel's simulator does when no
		** job runs (after its last arrival; before, at the next
		** arrival past reset_s: docs/POLICIES.md) */
		return gv_round(g, w);
	}
	if (end > now) {
		g->in_round = 1;
		if ((rc = pol_set_timer(w, end - now + GV_SLACK_NS,
					GV_TAG_ROUND |
					(g->round_no & 0xffffffffu),
					&e)) != 0)
			return rc;
	}
	return 0;
}

static int gv_timer(struct world *w, void *s, uint64_t tag)
{
	struct gavel *g = s;
	struct sim_err e = { 0, "" };

	if ((tag & ~(((uint64_t)1 << 56) - 1)) == GV_TAG_SLICE) {
		int j = (int)(tag & 0xffffffffu);
		struct gv_job *x;
		if ((x = gj(w, j)) == NULL)    /* ended and released */
			return 0;
		if (!x->active || x->running != 1 ||
		    x->slice_end + GV_SLACK_NS != pol_now(w))
			return 0;
		count_run(g, w, j);
		if (pol_job(w, j).state == POL_JOB_RUNNING)
			return pol_preempt(w, j, &e);
		return 0;
	}
	if ((tag & 0xffffffffu) != (g->round_no & 0xffffffffu))
		return 0;
	return gv_round(g, w);
}

static int gv_schedule(struct world *w, void *s)
{
	struct gavel *g = s;

	if (g->in_round)
		return 0;               /* arrivals wait for the round's end */
	return gv_round(g, w);
}

const struct pol_ops pol_gavel = {
	.iVersion = POL_IFACE_VERSION,
	.szJob = sizeof(struct gv_job),
	.zName = "gavel",
	.zDesc = "Gavel: heterogeneity-aware allocation LP (GLPK) and its "
		 "round-based mechanism (OSDI'20 simulator)",
	.szState = sizeof(struct gavel),
	.xInit = gv_init,
	.xFini = gv_fini,
	.xOnArrival = gv_arrival,
	.xOnFinish = gv_finish,
	.xOnTimer = gv_timer,
	.xSchedule = gv_schedule,
	.aParam = gv_params,
};
