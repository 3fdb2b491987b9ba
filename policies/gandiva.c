/*
** gandiva.c: Gandiva (Xiao et al., OSDI 2018), introspective
** time-slicing and packing, as Gavel's simulator reproduces it
** (stanford-futuredata/gavel scheduler/policies/gandiva.py,
** GandivaPolicy: "Gandiva_Packing"; docs/POLICIES.md, "gandiva").
**
** Rounds of round_s.  While the active jobs' GPUs fit the cluster, every
** job runs alone (no packing).  When they do not, jobs not yet paired are
** paired, in arrival order, with the next unpaired job of the same GPU
** count whose memory fits beside theirs on one GPU and that is not a pair
** they were split from; the two share the same GPUs (time-sliced by the
** GPU, the world's TIMESLICE mode and its interference model).
** Introspection: at the first pass after a pair has run together, the
** two jobs' speeds (1 = alone) are read; a pair whose sum is below 1 is
** split for good (Gavel's rule: a combination whose normalised packed
** throughput is below 1 is dropped).  Time-slicing: units (pairs and
** single jobs) take the cluster round-robin, the one that ran longest
** ago first (ties: arrival), fit-first on an empty cluster under the
** placement; between rounds an arrival or a completion only fills free
** GPUs.  Migration: at a round's start, a unit that fits the empty
** cluster but not around the running ones re-packs the cluster once
** (every running job moved, paying the world's preempt cost; never while
** a swap copy is in flight), counted in gandiva_migrations.
**
** Cost per event: the qsched core's (policies/qsched.h, "Cost per event":
** O(A) a pass plus the sort, O(A log N) the desired set under node
** placement, O(n log G) a placement; nothing O(G) or O(N) an event); a pass
** also walks the time-slice groups (O(A)), sorts the units (a stable
** merge sort, O(A log A): they come in arrival order, far from their
** round order) and, at each slice timer, the what-if fit of every active
** job (qs_whatif / qs_fits: O(A log N)); pairing is O(A) for each job
** left unpaired (O(A^2) a pass at worst).  Worst case: many small jobs
** time-sharing a full cluster (every slice re-packs).
*/
#include <stdlib.h>
#include <string.h>

#include "policies/qsched.h"

struct gd_job {
	int partner;                  /* paired with; -1 */
	int bad;                      /* split from this one; -1 */
	long ran;                     /* the round it last ran in; -1 */
	int co;                       /* the pair has run together since
					 co_ns */
	sim_time co_ns;
	int want;
};

/* A job's pol_job_priv: qsched's state, then gandiva's. */
struct gd_priv {
	struct qs_job q;
	struct gd_job g;
};

/* A unit (a single job or a pair's lead) in a pass's order. */
struct gd_unit {
	int j;                        /* its lead */
	int klass;                    /* order: (klass, key), smaller first */
	double key;
	struct gd_priv *x;            /* j's record */
};

struct gandiva {
	struct qsched q;
	double round_s;               /* parameters */
	int placement, pack;
	long round;
	uint64_t gen;
	int armed;                    /* a round timer is pending */
	struct gd_unit *ord, *tmp;    /* scratch: the units, by lead; the
					 sort's buffer */
	int cap;
};

static const struct pol_param_def gd_params[] = {
	POL_PARAM_DOUBLE("round_s", struct gandiva, round_s, 1, 1e9, "360",
			 "round (time slice) length, s (Gavel's simulator "
			 "round)"),
	POL_PARAM_BOOL("pack", struct gandiva, pack, "1",
		       "pair jobs on shared GPUs when the cluster is "
		       "over-subscribed; 0: time-slicing only"),
	POL_PARAM_CHOICE("placement", struct gandiva, placement,
			 qs_place_names, "node", "node: a job within one "
			 "node, larger ones on whole nodes (Gandiva's "
			 "affinity); any: any free GPUs"),
	POL_PARAM_END
};

static int gd_init(struct world *w, void *s, const struct pol_params *p,
		   struct sim_err *err)
{
	struct gandiva *g = s;
	int k, rc;

	(void)p;
	if ((rc = qs_init(&g->q, w, g->placement, err)) != 0)
		return rc;
	for (k = 0; k < pol_ngpus(w); k++)       /* after qs_init's */
		if ((rc = pol_set_gpu_mode(w, k, POL_GPU_TIMESLICE, err)) != 0)
			return rc;
	return 0;
}

static void gd_fini(struct world *w, void *s)
{
	struct gandiva *g = s;

	(void)w;
	qs_fini(&g->q);
	free(g->ord);
	free(g->tmp);
}

/* Job j's gd_job (its pol_job_priv's), for a job whose record lives
** and that arrived active (qs_arrive made the record: never NULL then). */
static struct gd_job *gd_of(const struct world *w, int j)
{
	struct gd_priv *p = pol_job_priv(w, j);

	return &p->g;
}

/* The record of the k-th active job: actx[k] (qsched.h), the first
** member of its gd_priv; no lookup. */
static struct gd_priv *gd_at(const struct gandiva *g, int k)
{
	return (struct gd_priv *)g->q.actx[k];
}

static int gd_arrival(struct world *w, void *s, int j)
{
	struct gandiva *g = s;
	int rc = qs_arrive(&g->q, w, j, "gandiva");

	if (rc <= 0)
		return rc;
	*gd_of(w, j) = (struct gd_job){ .partner = -1, .bad = -1, .ran = -1 };
	return 0;
}

/* An active job (its gd_job x) and its partner (active too: a job is
** split from its partner when it finishes) unpaired. */
static void split_x(struct world *w, struct gd_job *x)
{
	int p = x->partner;

	if (p >= 0) {
		gd_of(w, p)->partner = -1;
		gd_of(w, p)->co = 0;
	}
	x->partner = -1;
	x->co = 0;
}

static void split(struct world *w, int j)
{
	split_x(w, gd_of(w, j));
}

static int gd_finish(struct world *w, void *s, int j)
{
	struct gandiva *g = s;

	if (qs_active(w, j))
		split(w, j);
	qs_finish(&g->q, w, j);
	return 0;
}

static int running(struct world *w, int j)
{
	return pol_job_state(w, j) == POL_JOB_RUNNING;
}

/* The slowest worker's speed of running job j. */
static double speed(struct world *w, int j)
{
	int k, n = pol_job_nplaced(w, j);
	double s = n > 0 ? 1e9 : 0;

	for (k = 0; k < n; k++) {
		double v = pol_job_tenant(w, j, k).speed;
		if (v < s)
			s = v;
	}
	return s;
}

/* Pairs (and splits) for this pass. */
static void pair_jobs(struct gandiva *g, struct world *w)
{
	int k, i, demand = 0;
	uint64_t hbm = pol_gpu(w, 0).hbm_bytes;

	for (k = 0; k < g->q.nact; k++) {
		int j = g->q.act[k];
		struct gd_job *x = &gd_at(g, k)->g;
		int p = x->partner;
		demand += gd_at(g, k)->q.gpus;
		if (p < 0 || p < j || !x->co || pol_now(w) <= x->co_ns)
			continue;
		/* introspection: the pair has run together */
		if (running(w, j) && running(w, p)) {
			if (speed(w, j) + speed(w, p) < 1) {
				x->bad = p;
				gd_of(w, p)->bad = j;
				split_x(w, x);
				pol_add_metric(w, "gandiva_unpacks", 1);
			}
		}
	}
	if (demand <= pol_ngpus(w) || !g->pack) {
		for (k = 0; k < g->q.nact; k++)
			split_x(w, &gd_at(g, k)->g);
		return;
	}
	for (k = 0; k < g->q.nact; k++) {
		int j = g->q.act[k], gj = gd_at(g, k)->q.gpus;
		struct gd_job *x = &gd_at(g, k)->g;
		if (x->partner >= 0)
			continue;
		for (i = k + 1; i < g->q.nact; i++) {
			int p = g->q.act[i];
			struct gd_job *y = &gd_at(g, i)->g;
			if (y->partner >= 0 || x->bad == p || y->bad == j ||
			    gd_at(g, i)->q.gpus != gj ||
			    pol_job_mem(w, j, 0) + pol_job_mem(w, p, 0) > hbm)
				continue;
			x->partner = p;
			y->partner = j;
			x->co = y->co = 0;
			break;
		}
	}
}

static int room(struct gandiva *g, int n)
{
	if (n <= g->cap)
		return 0;
	free(g->ord);
	free(g->tmp);
	g->cap = 2 * n;
	g->ord = malloc((size_t)g->cap * sizeof *g->ord);
	g->tmp = malloc((size_t)g->cap * sizeof *g->tmp);
	if (g->ord == NULL || g->tmp == NULL) {
		g->cap = 0;
		return SIM_ENOMEM;
	}
	return 0;
}

/* Places pending job j on the GPUs of running job lead. */
static int join(struct world *w, int j, int lead)
{
	struct sim_err e = { 0, "" };
	int gpus[64], k, n = pol_job_nplaced(w, lead), rc;

	if (n > 64 || n != qs_job(w, j)->gpus)
		return 0;
	for (k = 0; k < n; k++)
		gpus[k] = pol_job_tenant(w, lead, k).gpu;
	rc = pol_place(w, j, gpus, n, NULL, &e);
	return rc == SIM_ENOSPC || rc == SIM_ESTATE ? 0 : rc;
}

/* 1 if unit a goes after unit b: (klass, key), smaller first. */
static int unit_after(const struct gd_unit *a, const struct gd_unit *b)
{
	return a->klass != b->klass ? a->klass > b->klass : a->key > b->key;
}

/* Sorts u[0..n) by unit_after, stable (ties keep their order: the
** insertion sort this replaced gave the same), with tmp[0..n) as
** buffer: a bottom-up merge sort, O(n log n) where the insertion sort
** was O(n^2) on a queue in arrival order. */
static void sort_units(struct gd_unit *u, struct gd_unit *tmp, int n)
{
	struct gd_unit *src = u, *dst = tmp, *t;
	int width, lo;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			int mid = lo + width < n ? lo + width : n;
			int hi = lo + 2 * width < n ? lo + 2 * width : n;
			int a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				dst[k++] = unit_after(&src[a], &src[b]) ?
					src[b++] : src[a++];
			while (a < mid)
				dst[k++] = src[a++];
			while (b < hi)
				dst[k++] = src[b++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != u)
		memcpy(u, src, (size_t)n * sizeof *u);
}

static int gd_pass(struct gandiva *g, struct world *w, int full)
{
	struct sim_err e = { 0, "" };
	int k, i, n = 0, rc, repacked = 0, moved = 0, swapping = 0;

	if (full)
		g->round++;
	for (k = 0; k < g->q.nact && !swapping; k++) {
		enum pol_job_state st = pol_job_state(w, g->q.act[k]);
		swapping = st == POL_JOB_SWAPPING_OUT ||
			st == POL_JOB_SWAPPING_IN;
	}
	pair_jobs(g, w);
	if ((rc = room(g, g->q.nact + 1)) != 0)
		return rc;
	/* the units, by their lead (the earlier job of a pair) */
	for (k = 0; k < g->q.nact; k++) {
		int j = g->q.act[k], p = gd_at(g, k)->g.partner;
		gd_at(g, k)->g.want = 0;
		if (p < 0 || !qs_active(w, p) || j < p) {
			g->ord[n].j = j;
			g->ord[n].x = gd_at(g, k);
			n++;
		}
	}
	/* order: (between rounds, running units first), then the round
	** each last ran in, oldest first; ties in arrival order */
	for (k = 0; k < n; k++) {
		struct gd_unit *u = &g->ord[k];
		int j = u->j, p = u->x->g.partner;
		long r = u->x->g.ran;
		int run = running(w, j) || (p >= 0 && running(w, p));
		if (p >= 0 && gd_of(w, p)->ran > r)
			r = gd_of(w, p)->ran;
		u->klass = full ? 0 : !run;
		u->key = (double)r;
	}
	sort_units(g->ord, g->tmp, n);
	qs_whatif(&g->q, w);
	for (k = 0; k < n; k++) {
		int j = g->ord[k].j, p = g->ord[k].x->g.partner;
		if (pol_job_state(w, j) == POL_JOB_SWAPPING_OUT ||
		    (p >= 0 && pol_job_state(w, p) == POL_JOB_SWAPPING_OUT))
			continue;
		if (qs_fits(&g->q, g->ord[k].x->q.gpus)) {
			g->ord[k].x->g.want = 1;
			if (p >= 0)
				gd_of(w, p)->want = 1;
		}
	}
	/* preempt what is not wanted, and a partner not on its lead's GPUs */
	for (k = 0; k < g->q.nact; k++) {
		struct gd_job *x = &gd_at(g, k)->g;
		int j = g->q.act[k], p = x->partner, off = 0;
		if (!running(w, j))
			continue;
		if (x->want && p >= 0 && p < j && running(w, p))
			off = pol_job_tenant(w, j, 0).gpu !=
				pol_job_tenant(w, p, 0).gpu;
		if ((!x->want || off) &&
		    (rc = pol_preempt(w, j, &e)) != 0)
			return rc;
	}
again:
	for (k = 0; k < n; k++) {
		int j = g->ord[k].j, p = g->ord[k].x->g.partner;
		int lead = j, other = p;
		int st = pol_job_state(w, j), gj = g->ord[k].x->q.gpus;
		if (!g->ord[k].x->g.want)
			continue;
		if (!running(w, j) && p >= 0 && running(w, p)) {
			lead = p;
			other = j;
		}
		if (!running(w, lead)) {
			if (st != POL_JOB_PENDING &&
			    st != POL_JOB_PREEMPTED)
				continue;
			if (!qs_choose(&g->q, w, gj)) {
				if (repacked || !full || swapping ||
				    g->placement != QS_PLACE_NODE)
					continue;
				repacked = 1;
				for (i = 0; i < g->q.nact; i++)
					if (running(w, g->q.act[i])) {
						rc = pol_preempt(w, g->q.act[i],
								 &e);
						if (rc != 0)
							return rc;
						moved++;
					}
				goto again;
			}
			rc = pol_place(w, lead, g->q.gpus, gj, NULL, &e);
			if (rc < 0 && rc != SIM_ENOSPC && rc != SIM_ESTATE)
				return rc;
			if (!running(w, lead))
				continue;
		}
		if (other >= 0 && !running(w, other) &&
		    (pol_job_state(w, other) == POL_JOB_PENDING ||
		     pol_job_state(w, other) == POL_JOB_PREEMPTED) &&
		    (rc = join(w, other, lead)) < 0)
			return rc;
	}
	if (repacked)
		pol_add_metric(w, "gandiva_migrations", moved);
	for (k = 0; k < g->q.nact; k++) {
		int j = g->q.act[k];
		struct gd_job *x = &gd_at(g, k)->g;
		int p = x->partner;
		if (running(w, j))
			x->ran = g->round;
		if (p >= 0 && running(w, j) && running(w, p) && !x->co) {
			x->co = 1;
			x->co_ns = pol_now(w);
		}
	}
	if ((full || !g->armed) && g->q.nact > 0) {
		g->armed = 1;
		return pol_set_timer(w, (sim_time)(g->round_s * 1e9), ++g->gen,
				     &e);
	}
	return 0;
}

static int gd_timer(struct world *w, void *s, uint64_t tag)
{
	struct gandiva *g = s;

	if (tag != g->gen)
		return 0;
	g->armed = 0;
	return gd_pass(g, w, 1);
}

static int gd_schedule(struct world *w, void *s)
{
	return gd_pass(s, w, 0);
}

const struct pol_ops pol_gandiva = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "gandiva",
	.zDesc = "Gandiva: introspective packing and time-slicing rounds, "
		 "migration to defragment (OSDI'18, as Gavel's simulator)",
	.szState = sizeof(struct gandiva),
	.szJob = sizeof(struct gd_priv),
	.xInit = gd_init,
	.xFini = gd_fini,
	.xOnArrival = gd_arrival,
	.xOnFinish = gd_finish,
	.xOnTimer = gd_timer,
	.xSchedule = gd_schedule,
	.aParam = gd_params,
};
