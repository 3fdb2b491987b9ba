/*
** pollux.c: an elastic scheduler in the style of Pollux (Qiao et al., OSDI
** 2021), as its artifact's simulator runs it (petuum/adaptdl simulator/
** simulator.py and simulator/pollux.py, commit de25dcc; docs/POLICIES.md,
** "pollux").
**
** Every interval_s seconds (ticks at multiples of it from t = 0, while
** jobs are live) the GPUs are re-allocated among the active training jobs
** to maximise the power mean (exponent p) of their scaled speedups, as
** Pollux's Problem._evaluate:
**
**   speedup_j(n) = T_j(fair) / T_j(n)    (elastic: the goodput model's run
**                                         times, pol_job_total_at)
**                = n / fair              (a job with no elastic range)
**   fair = ceil(G / J), scaled = speedup x nodes / G,
**   a running job whose count changes: scaled x max(age - restarts x
**   restart_s, 0) / (age + restart_s)  (Pollux's restart penalty),
**   objective: ((1/J) sum (scaled + 1e-3)^p)^(1/p).
**
** Pollux searches allocations with a genetic algorithm (NSGA-II, 100 x
** 100); here a deterministic greedy takes its place: from no allocation,
** repeatedly give the job whose next allowed count (0 or its elastic
** range; 0 or its trace's gpus when not elastic) raises the objective
** most per GPU added, until no step helps or no GPU is left.  The counts
** are then applied: jobs losing all GPUs are preempted, shrinking and
** growing jobs are resized (pol_resize, restart_s of no progress),
** pending jobs placed at their count (no restart cost: pol_place), each
** on as few nodes as fit (its own nodes first, then the best-fitting
** node, then the nodes with the most free GPUs).
**
** Services, CPU-only jobs and jobs that fit no empty cluster are failed
** at arrival.
**
** Cost.  A node index (free GPUs per node in an ordered set, kept from
** the GPUs the world reports changed since the last pass) answers each
** placement's best-fit and most-free node in O(log N) and walks only the
** chosen node's GPUs; a round of J active jobs costs O(J log J) for the
** growth order, the greedy's steps (each a scan of the J jobs, at most
** one step per GPU given out: O(G x J) worst case) and O((changed GPUs +
** nodes touched) x log N) for the index, not a walk of every GPU.  Worst
** case: many elastic jobs with wide ranges on a large cluster, where the
** greedy gives out one GPU per step.  State: a job's struct px_job is
** its record (pol_job_priv, from its arrival to its release: it follows
** the active jobs), with an elastic job's run-time cache (hi - lo + 1
** doubles, freed at its finish); the index is O(G + N).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/pollux.h"

#define PX_TAG_TICK 1
#define PX_EPS 1e-3                   /* Pollux's power-mean offset */

struct px_job {
	int active;                   /* arrived, not ended, ours */
	int lo, hi;                   /* allowed counts: 0 and [lo, hi] */
	double *t_ns;                 /* T(n), n in [lo, hi] (elastic); 0
					 not yet computed */
	/* one round */
	int cur;                      /* GPUs held at the round's start */
	int rlo, rhi;                 /* this round's range (a swapped job
					 resumes at its count) */
	int want;                     /* the greedy's count */
	double fair_ns;               /* T(fair) */
	double factor;                /* restart penalty of a change */
	double best_gain;             /* best step from want, per GPU */
	int best_n;                   /* its count; 0: none */
};

struct pollux {
	double interval_s, restart_s, p;
	int penalty;
	int armed;                    /* a tick is pending */
	int ngpus, nnodes;
	/* the node index: between rounds, free_on[n] is node n's idle GPUs
	** (pol_node_idle) for every node but those of the GPUs changed since
	** the last pass (pol_changed_at), which the next pass or round
	** reads again; in a round, what the round has left free */
	int *free_on;                 /* per node: free GPUs */
	int *nh;                      /* per node: its handle in nodes */
	struct sim_oset nodes;        /* (free_on, node) */
	int *n_gpu, *n_size;          /* per node: first GPU, GPUs */
	int *g_node;                  /* per GPU: its node */
	int round;                    /* rounds begun (stamps) */
	int *taken;                   /* per GPU: round that took it */
	int *touch_at, *touched, ntouched;   /* nodes this round changed */
	int *order, *buf, *have;      /* scratch: jobs, GPUs, nodes */
	struct px_job **ordx;         /* order[k]'s record (scratch) */
	int *act;                     /* the active jobs, arrival order */
	int nact, capact;
};

static const struct pol_param_def px_params[] = {
	POL_PARAM_DOUBLE("interval_s", struct pollux, interval_s, 1, 86400,
			 "60", "seconds between re-allocations (Pollux's "
			 "simulator: 60)"),
	POL_PARAM_DOUBLE("restart_s", struct pollux, restart_s, 0, 86400,
			 "30", "a resize's checkpoint-restart: seconds of no "
			 "progress, and the penalty's delay (Pollux: 30)"),
	POL_PARAM_DOUBLE("p", struct pollux, p, -10, 1, "-1",
			 "power-mean exponent of the objective (Pollux: -1; "
			 "1: sum of speedups, 0: geometric mean)"),
	POL_PARAM_BOOL("penalty", struct pollux, penalty, "1",
		       "scale a changed job's speedup by Pollux's restart "
		       "factor"),
	POL_PARAM_END
};

/* Job j's record (its pol_job_priv, freed with the job); NULL for a job
** released (one in the active list that ended since the last round) or
** out of memory (only at arrival: every other reader reads a job whose
** record its arrival made). */
static struct px_job *pj(const struct world *w, int j)
{
	return pol_job_priv(w, j);
}

/* Whether job j is active: arrived, ours, not ended. */
static int px_active(const struct world *w, int j)
{
	const struct px_job *x = pj(w, j);

	return x != NULL && x->active;
}

static int px_init(struct world *w, void *state, const struct pol_params *pp,
		   struct sim_err *err)
{
	struct pollux *s = state;
	int g, nd, n = pol_ngpus(w);
	size_t ng, nn;

	(void)pp;
	s->ngpus = n;
	s->nnodes = pol_nnodes(w);
	ng = (size_t)(n > 0 ? n : 1);
	nn = (size_t)(s->nnodes > 0 ? s->nnodes : 1);
	sim_oset_init(&s->nodes);
	s->free_on = calloc(nn, sizeof *s->free_on);
	s->nh = calloc(nn, sizeof *s->nh);
	s->n_gpu = calloc(nn, sizeof *s->n_gpu);
	s->n_size = calloc(nn, sizeof *s->n_size);
	s->touch_at = calloc(nn, sizeof *s->touch_at);
	s->touched = calloc(nn, sizeof *s->touched);
	s->have = calloc(nn, sizeof *s->have);
	s->g_node = calloc(ng, sizeof *s->g_node);
	s->taken = calloc(ng, sizeof *s->taken);
	s->buf = calloc(ng, sizeof *s->buf);
	if (s->free_on == NULL || s->nh == NULL || s->n_gpu == NULL ||
	    s->n_size == NULL || s->touch_at == NULL || s->touched == NULL ||
	    s->have == NULL || s->g_node == NULL || s->taken == NULL ||
	    s->buf == NULL)
		return sim_err_set(err, SIM_ENOMEM, "pollux: out of memory");
	for (nd = 0; nd < s->nnodes; nd++) {
		struct pol_node_info ni = pol_node(w, nd);
		s->n_gpu[nd] = ni.gpu;
		s->n_size[nd] = ni.ngpus;
		for (g = ni.gpu; g < ni.gpu + ni.ngpus; g++)
			s->g_node[g] = nd;
		s->free_on[nd] = pol_node_idle(w, nd);
		s->nh[nd] = sim_oset_insert(&s->nodes, s->free_on[nd], nd, nd,
					    0);
		if (s->nh[nd] < 0)
			return sim_err_set(err, SIM_ENOMEM,
					   "pollux: out of memory");
	}
	/* the counters every run reports, 0 when nothing resized */
	if (pol_add_metric(w, "resizes", 0) != 0 ||
	    pol_add_metric(w, "restart_gpu_s", 0) != 0)
		return sim_err_set(err, SIM_ENOMEM, "pollux: out of memory");
	return 0;
}

static void px_fini(struct world *w, void *state)
{
	struct pollux *s = state;
	int k;

	for (k = 0; k < s->nact; k++) {      /* jobs not ended */
		struct px_job *x = pj(w, s->act[k]);
		if (x != NULL) {
			free(x->t_ns);
			x->t_ns = NULL;
		}
	}
	sim_oset_fini(&s->nodes);
	free(s->free_on);
	free(s->nh);
	free(s->n_gpu);
	free(s->n_size);
	free(s->touch_at);
	free(s->touched);
	free(s->have);
	free(s->g_node);
	free(s->taken);
	free(s->order);
	free(s->ordx);
	free(s->buf);
	free(s->act);
}

/* Arms the next tick: the next multiple of interval_s from t = 0, now
** included. */
static int arm(struct world *w, struct pollux *s)
{
	sim_time iv = (sim_time)(s->interval_s * 1e9), now = pol_now(w), at;

	if (s->armed)
		return 0;
	if (iv < 1)
		iv = 1;
	at = (now + iv - 1) / iv * iv;
	s->armed = 1;
	return pol_set_timer(w, at - now, PX_TAG_TICK, NULL);
}

/* Arms the tick after this one. */
static int arm_next(struct world *w, struct pollux *s)
{
	sim_time iv = (sim_time)(s->interval_s * 1e9);

	s->armed = 1;
	return pol_set_timer(w, iv > 0 ? iv : 1, PX_TAG_TICK, NULL);
}

static int px_arrival(struct world *w, void *state, int j)
{
	struct pollux *s = state;
	struct pol_job_info ji = pol_job(w, j);
	struct px_job *x;

	if (ji.kind != POL_TRAIN || ji.gpus == 0) {
		pol_fail_job(w, j, "pollux schedules training jobs on GPUs "
			     "only");
		return 0;
	}
	if (!pol_job_fits_empty(w, j)) {
		pol_fail_job(w, j, "pollux: the cluster has too few GPUs or "
			     "too little memory for it");
		return 0;
	}
	if (s->nact == s->capact) {
		int cap = s->capact ? 2 * s->capact : 64;
		int *a = realloc(s->act, (size_t)cap * sizeof *a);
		if (a == NULL)
			return SIM_ENOMEM;
		s->act = a;
		s->capact = cap;
	}
	if ((x = pj(w, j)) == NULL)
		return SIM_ENOMEM;
	s->act[s->nact++] = j;
	x->active = 1;
	x->lo = ji.min_gpus > 0 ? ji.min_gpus : ji.gpus;
	x->hi = ji.min_gpus > 0 ? ji.max_gpus : ji.gpus;
	if (x->hi > s->ngpus)
		x->hi = s->ngpus;
	if (ji.min_gpus > 0) {
		x->t_ns = calloc((size_t)(x->hi - x->lo + 1), sizeof *x->t_ns);
		if (x->t_ns == NULL)
			return SIM_ENOMEM;
	}
	return arm(w, s);
}

static int px_finish(struct world *w, void *state, int j)
{
	struct px_job *x = pj(w, j);

	(void)state;
	if (x != NULL) {
		x->active = 0;
		free(x->t_ns);
		x->t_ns = NULL;
	}
	return 0;
}

/* ---- the objective ------------------------------------------------------- */

/* T_j(n), cached per count of its range. */
static double t_at(struct world *w, struct px_job *x, int j, int n)
{
	double *c = &x->t_ns[n - x->lo];

	if (*c == 0)
		*c = pol_job_total_at(w, j, 0, n);
	return *c;
}

/* Job j's scaled speedup at n GPUs this round. */
static double scaled(struct world *w, const struct pollux *s,
		     struct px_job *x, int j, int n, int fair)
{
	double sp, t;

	if (n <= 0)
		return 0;
	if (x->t_ns == NULL)
		sp = (double)n / fair;
	else
		sp = (t = t_at(w, x, j, n)) > 0 ? x->fair_ns / t : 0;
	sp *= (double)s->nnodes / (double)s->ngpus;
	if (x->cur > 0 && n != x->cur)
		sp *= x->factor;
	return sp;
}

static double util(const struct pollux *s, double v)
{
	if (s->p == 0)
		return log(v + PX_EPS);
	return s->p < 0 ? -pow(v + PX_EPS, s->p) : pow(v + PX_EPS, s->p);
}

/* The best step of job j from its count: the allowed count above it,
** within `left` more GPUs, with the largest gain of the objective per GPU
** added. */
static void best_step(struct world *w, const struct pollux *s,
		      struct px_job *x, int j, int left, int fair)
{
	double u0 = util(s, scaled(w, s, x, j, x->want, fair));
	int n = x->want > 0 ? x->want + 1 : x->rlo;

	x->best_gain = 0;
	x->best_n = 0;
	for (; n <= x->rhi && n - x->want <= left; n++) {
		double g = (util(s, scaled(w, s, x, j, n, fair)) - u0) /
			(double)(n - x->want);
		if (g > x->best_gain + 1e-12) {
			x->best_gain = g;
			x->best_n = n;
		}
	}
}

/* ---- placement ------------------------------------------------------------ */

/* Sets node n's free GPUs to f, in free_on and the node index. */
static void set_free(struct pollux *s, int n, int f)
{
	if (s->free_on[n] == f)
		return;
	s->free_on[n] = f;
	sim_oset_update(&s->nodes, s->nh[n], f, n, 0);
}

/* Node n's free GPUs back to its idle GPUs in the world (pol_node_idle):
** after a change of its GPUs, or of free_on in a round.  O(log N). */
static void sync_node(struct world *w, struct pollux *s, int n)
{
	set_free(s, n, pol_node_idle(w, n));
}

/* The nodes of the GPUs changed since the last pass back to the world's
** counts.  O(changed x log N). */
static void sync_changed(struct world *w, struct pollux *s)
{
	int k, n = pol_nchanged(w);

	for (k = 0; k < n; k++) {
		int g = pol_changed_at(w, k);
		if (g >= 0 && g < s->ngpus)
			sync_node(w, s, s->g_node[g]);
	}
}

/* Node n's free_on changes in this round: listed, to sync at its end. */
static void touch(struct pollux *s, int n)
{
	if (s->touch_at[n] == s->round)
		return;
	s->touch_at[n] = s->round;
	s->touched[s->ntouched++] = n;
}

/* Appends up to k free GPUs of node nd that hold job j to out[*m], in
** index order: GPUs with no tenant, not taken this round, with memory
** for j.  O(GPUs of the node). */
static void take_node(struct world *w, struct pollux *s, int j, int nd,
		      int k, int *out, int *m)
{
	int g, end = s->n_gpu[nd] + s->n_size[nd];

	for (g = s->n_gpu[nd]; g < end && k > 0; g++) {
		if (s->taken[g] == s->round || pol_gpu_ntenants(w, g) > 0 ||
		    pol_job_mem(w, j, g) > pol_gpu(w, g).hbm_bytes)
			continue;
		s->taken[g] = s->round;
		touch(s, nd);
		set_free(s, nd, s->free_on[nd] - 1);
		out[(*m)++] = g;
		k--;
	}
}

/* Picks k more GPUs for job j into out[*m]: its own nodes (have[], the
** nodes it holds, nh of them) first, then the node whose free GPUs fit
** the rest best (fewest free GPUs at least the rest, lowest index), then
** the node with the most free GPUs (lowest index), each found in the node
** index in O(log N).  1 when it found them all. */
static int pick(struct world *w, struct pollux *s, int j, int k, int *out,
		int *m, const int *have, int nh)
{
	int i, want = *m + k;

	for (i = 0; i < nh && *m < want; i++)
		take_node(w, s, j, have[i], want - *m, out, m);
	while (*m < want) {
		int nd, need = want - *m;
		int h = sim_oset_lower_bound(&s->nodes, need, 0, 0);
		if (h < 0) {
			h = sim_oset_last(&s->nodes);
			if (h < 0 || sim_oset_k1(&s->nodes, h) <= 0)
				return 0;
			h = sim_oset_lower_bound(&s->nodes,
						 sim_oset_k1(&s->nodes, h),
						 0, 0);
		}
		nd = sim_oset_id(&s->nodes, h);
		i = *m;
		take_node(w, s, j, nd, need, out, m);
		if (*m == i) {
			touch(s, nd);
			set_free(s, nd, 0);   /* none there holds it */
		}
	}
	return 1;
}

/* Job j keeps `want` of its GPUs, those on the nodes where it has the
** most: into out (returns want). */
static int keep(struct world *w, int j, const struct pol_job_info *ji,
		int want, int *out)
{
	int k, m = 0, i;
	int *gpus = malloc((size_t)ji->nplaced * 2 * sizeof *gpus);
	int *cnt;

	if (gpus == NULL)
		return -1;
	cnt = gpus + ji->nplaced;
	for (k = 0; k < ji->nplaced; k++)
		gpus[k] = pol_job_tenant(w, j, k).gpu;
	for (k = 0; k < ji->nplaced; k++) {
		cnt[k] = 0;
		for (i = 0; i < ji->nplaced; i++)
			cnt[k] += pol_gpu(w, gpus[i]).node ==
				pol_gpu(w, gpus[k]).node;
	}
	while (m < want) {
		int b = -1;
		for (k = 0; k < ji->nplaced; k++)
			if (gpus[k] >= 0 && (b < 0 || cnt[k] > cnt[b]))
				b = k;
		out[m++] = gpus[b];
		gpus[b] = -1;
	}
	free(gpus);
	return m;
}

/* The nodes job j holds now, most GPUs first, into have (returns how
** many). */
static int nodes_of(struct world *w, int j, const struct pol_job_info *ji,
		    int *have)
{
	int k, i, nh = 0;

	for (k = 0; k < ji->nplaced; k++) {
		int nd = pol_gpu(w, pol_job_tenant(w, j, k).gpu).node;
		for (i = 0; i < nh && have[i] != nd; i++)
			;
		if (i == nh)
			have[nh++] = nd;
	}
	return nh;
}

/* A job that grows or is placed this round, and its rank. */
struct px_grow {
	int j, running, add, pos;
};

/* Running before pending, then more GPUs added first, then the round's
** order: a total order (pos is unique). */
static int grow_cmp(const void *a, const void *b)
{
	const struct px_grow *x = a, *y = b;

	if (x->running != y->running)
		return x->running > y->running ? -1 : 1;
	if (x->add != y->add)
		return x->add > y->add ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* ---- the round --------------------------------------------------------------- */

static int px_round(struct world *w, struct pollux *s)
{
	int J = 0, G = s->ngpus, fair, left, j, k, g, np, rc = 0;
	sim_time now = pol_now(w), rs = (sim_time)(s->restart_s * 1e9);
	int *gp = s->buf, *have = s->have;
	struct px_grow *gw;

	/* the active jobs, in arrival order (the list compacted); their
	** state now */
	for (k = g = 0; k < s->nact; k++)
		if (px_active(w, s->act[k]))
			s->act[g++] = s->act[k];
	s->nact = g;
	free(s->order);
	free(s->ordx);
	s->order = malloc((size_t)(s->nact > 0 ? s->nact : 1) *
			  sizeof *s->order);
	s->ordx = malloc((size_t)(s->nact > 0 ? s->nact : 1) *
			 sizeof *s->ordx);
	if (s->order == NULL || s->ordx == NULL)
		return SIM_ENOMEM;
	for (k = 0; k < s->nact; k++) {
		struct px_job *x = pj(w, j = s->act[k]);
		struct pol_job_info ji = pol_job(w, j);
		if (ji.state == POL_JOB_DONE || ji.state == POL_JOB_FAILED) {
			x->active = 0;
			continue;
		}
		if (ji.state == POL_JOB_SWAPPING_OUT ||
		    ji.state == POL_JOB_SWAPPING_IN) {
			G -= ji.nplaced;      /* its copy holds them */
			continue;
		}
		x->cur = ji.state == POL_JOB_RUNNING ? ji.nplaced : 0;
		x->want = 0;
		x->rlo = ji.swapped ? ji.gpus : x->lo;
		x->rhi = ji.swapped ? ji.gpus : x->hi;
		if (s->penalty) {
			double age = (double)(now - ji.submit_ns) / 1e9;
			double r = ji.resizes + ji.preemptions;
			x->factor = fmax(age - r * s->restart_s, 0) /
				(age + s->restart_s);
			if (!(age + s->restart_s > 0))
				x->factor = 1;
		} else {
			x->factor = 1;
		}
		s->ordx[J] = x;
		s->order[J++] = j;
	}
	if (J == 0 || G <= 0)
		return 0;
	fair = (G + J - 1) / J;
	for (k = 0; k < J; k++) {
		struct px_job *x = s->ordx[k];
		x->fair_ns = x->t_ns != NULL ?
			pol_job_total_at(w, s->order[k], 0, fair) : 0;
	}
	/* the greedy */
	left = G;
	for (k = 0; k < J; k++)
		best_step(w, s, s->ordx[k], s->order[k], left, fair);
	while (left > 0) {
		int b = -1;
		for (k = 0; k < J; k++) {
			struct px_job *x = s->ordx[k];
			if (x->best_n > 0 && x->best_n - x->want > left)
				best_step(w, s, x, s->order[k], left, fair);
			if (x->best_n > 0 &&
			    (b < 0 || x->best_gain >
			     s->ordx[b]->best_gain + 1e-12))
				b = k;
		}
		if (b < 0)
			break;
		j = s->order[b];
		left -= s->ordx[b]->best_n - s->ordx[b]->want;
		s->ordx[b]->want = s->ordx[b]->best_n;
		best_step(w, s, s->ordx[b], j, left, fair);
	}
	/* 1. preempt and shrink */
	for (k = 0; k < J && rc == 0; k++) {
		struct px_job *x = s->ordx[k];
		struct pol_job_info ji;
		j = s->order[k];
		if (x->cur == 0 || x->want >= x->cur)
			continue;
		ji = pol_job(w, j);
		if (x->want == 0) {
			if (pol_preempt(w, j, NULL) != 0)
				x->want = x->cur;
			continue;
		}
		if (keep(w, j, &ji, x->want, gp) < 0)
			rc = SIM_ENOMEM;
		else if (pol_resize(w, j, gp, x->want, rs, NULL) != 0)
			x->want = x->cur;
	}
	/* the free GPUs now: the nodes changed since the last pass (this
	** round's preemptions and shrinks among them) read again */
	if (rc != 0)
		return rc;
	sync_changed(w, s);
	/* 2. grow the running, then place the pending: largest first
	** (running before pending, then most GPUs added, then order) */
	gw = malloc((size_t)(J > 0 ? J : 1) * sizeof *gw);
	if (gw == NULL)
		return SIM_ENOMEM;
	for (k = np = 0; k < J; k++) {
		struct px_job *x = s->ordx[k];
		if (x->want > x->cur)
			gw[np++] = (struct px_grow){ .j = s->order[k],
				.running = x->cur > 0,
				.add = x->want - x->cur, .pos = k };
	}
	qsort(gw, (size_t)np, sizeof *gw, grow_cmp);
	s->round++;
	s->ntouched = 0;
	for (k = 0; k < np && rc == 0; k++) {
		int m = 0, nh = 0;
		struct px_job *x = s->ordx[gw[k].pos];
		struct pol_job_info ji;
		ji = pol_job(w, j = gw[k].j);
		if (x->cur > 0) {
			m = keep(w, j, &ji, x->cur, gp);
			nh = nodes_of(w, j, &ji, have);
		}
		if (m < 0) {
			rc = SIM_ENOMEM;
			break;
		}
		if (pick(w, s, j, x->want - x->cur, gp, &m, have, nh)) {
			if (x->cur > 0)
				(void)pol_resize(w, j, gp, m, rs, NULL);
			else
				(void)pol_place(w, j, gp, m, NULL, NULL);
		}
		x->cur = x->want;           /* done, or given up this round */
	}
	free(gw);
	/* the nodes the picks changed back to the world's counts */
	for (k = 0; k < s->ntouched; k++)
		sync_node(w, s, s->touched[k]);
	s->ntouched = 0;
	return rc;
}

static int px_timer(struct world *w, void *state, uint64_t tag)
{
	struct pollux *s = state;
	int j, any = 0, rc;

	if (tag != PX_TAG_TICK)
		return 0;
	s->armed = 0;
	if ((rc = px_round(w, s)) != 0)
		return rc;
	for (j = 0; j < s->nact && !any; j++)
		any = px_active(w, s->act[j]);
	return any ? arm_next(w, s) : 0;
}

/* The allocation is all in the ticks; a pass reads the GPUs changed
** since the last one into the node index.  O(changed x log N). */
static int px_schedule(struct world *w, void *state)
{
	sync_changed(w, state);
	return 0;
}

int pollux_index_check(struct world *w, const void *state)
{
	const struct pollux *s = state;
	int n;

	if (s->nodes.count != s->nnodes)
		return 0;
	for (n = 0; n < s->nnodes; n++) {
		int h = s->nh[n];
		if (s->free_on[n] != pol_node_idle(w, n) ||
		    sim_oset_id(&s->nodes, h) != n ||
		    sim_oset_k1(&s->nodes, h) != s->free_on[n] ||
		    sim_oset_k2(&s->nodes, h) != n)
			return n;
	}
	return -1;
}

const struct pol_ops pol_pollux = {
	.iVersion = POL_IFACE_VERSION,
	.szJob = sizeof(struct px_job),
	.zName = "pollux",
	.zDesc = "elastic: GPUs re-allocated every interval by the goodput "
		 "model's speedups, with Pollux's restart penalty",
	.szState = sizeof(struct pollux),
	.xInit = px_init,
	.xFini = px_fini,
	.xOnArrival = px_arrival,
	.xOnFinish = px_finish,
	.xOnTimer = px_timer,
	.xSchedule = px_schedule,
	.aParam = px_params,
};
