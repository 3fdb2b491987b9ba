/*
** antman.c: AntMan (Xiao et al., OSDI 2020), guaranteed and opportunistic
** training jobs sharing GPUs (docs/POLICIES.md, "antman").
**
** A job whose trace priority is at least `guarantee` is guaranteed, the
** others opportunistic.  Every GPU is in MPS mode and holds at most one
** guaranteed and one opportunistic job.  Each pass (every arrival and
** completion):
**
**   1. guaranteed jobs, in arrival order with backfill, take GPUs that hold
**      no guaranteed job (a job within one node when it fits one, lowest
**      GPUs first; GPUs without any tenant first); an opportunistic job
**      on a chosen GPU whose memory does not fit beside the guaranteed one
**      is evicted (preempted: AntMan's opportunistic jobs yield memory);
**   2. opportunistic jobs, in arrival order with backfill, take GPUs with
**      no opportunistic job whose free memory holds their footprint,
**      GPUs that already run a guaranteed job first (the leftovers), then
**      idle ones (which a guaranteed job may reclaim);
**   3. an opportunistic job sharing a GPU with a guaranteed job runs under
**      the SM cap `opp_sm`, alone under none (AntMan's GPU operator gives
**      it the cycles the guaranteed job leaves).
**
** A guaranteed job that would need an evicted job's GPUs evicts it only
** when it then fits; opportunistic jobs never evict.
**
** Cost per event (A active jobs, G GPUs, N nodes, n GPUs a job): a pass
** walks the active jobs twice (guaranteed, then opportunistic) and for
** each waiting one chooses GPUs by walking every node's GPUs, then every
** GPU: O(A + waiting x G).  The preferred class is skipped, O(1), when the
** cluster has fewer than n preferred GPUs (idle ones for a guaranteed job,
** ones holding a guaranteed job for an opportunistic one: none at all on a
** trace without priorities), and the whole choice, O(1), when fewer than
** n GPUs hold no job of its class (counted: ngt, not); a finish is
** O(n + A) (the GPUs of its last placement, not every GPU).  Partly indexed (issue 20 item 1): the walks
** of the nodes remain.  Worst case: a long queue of jobs that fit nowhere
** (each tried every pass: O(waiting x G) a pass).
*/
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

struct am_job {
	int active, guaranteed;
	int gpus;                     /* its GPU count (at arrival: antman
					 never resizes a job) */
	int *held, nheld;             /* the GPUs of its last placement */
};

struct antman {
	double guarantee, opp_sm;     /* parameters */
	int *act, nact, act_cap;      /* active jobs, arrival order */
	struct am_job **actx;         /* act[k]'s record (its pol_job_priv) */
	int ngpus;
	int *gt, *ot;                 /* per GPU: its guaranteed and
					 opportunistic job; -1 */
	int ngt;                      /* GPUs with a guaranteed job */
	int not;                      /* GPUs with an opportunistic job */
	int nnodes;
	int *node_first, *node_size;  /* per node: its first GPU, its GPUs
					 (the cluster's: fixed) */
	int *pick;
};

/* GPU g's guaranteed job is j (-1: none), counted in ngt. */
static void set_gt(struct antman *a, int g, int j)
{
	a->ngt += (j >= 0) - (a->gt[g] >= 0);
	a->gt[g] = j;
}

/* GPU g's opportunistic job is j (-1: none), counted in not. */
static void set_ot(struct antman *a, int g, int j)
{
	a->not += (j >= 0) - (a->ot[g] >= 0);
	a->ot[g] = j;
}

static const struct pol_param_def am_params[] = {
	POL_PARAM_DOUBLE("guarantee", struct antman, guarantee, -1e9, 1e9,
			 "1", "a job of at least this trace priority is "
			 "guaranteed, the others opportunistic"),
	POL_PARAM_DOUBLE("opp_sm", struct antman, opp_sm, 0.01, 1, "0.2",
			 "SM cap of an opportunistic job on a GPU a "
			 "guaranteed job holds"),
	POL_PARAM_END
};

static int am_init(struct world *w, void *s, const struct pol_params *p,
		   struct sim_err *err)
{
	struct antman *a = s;
	int g, rc, n = pol_ngpus(w);

	(void)p;
	a->ngpus = n;
	a->gt = malloc((size_t)(n + 1) * sizeof *a->gt);
	a->ot = malloc((size_t)(n + 1) * sizeof *a->ot);
	a->pick = malloc((size_t)(n + 1) * sizeof *a->pick);
	a->nnodes = pol_nnodes(w);
	a->node_first = malloc((size_t)(a->nnodes + 1) *
			       sizeof *a->node_first);
	a->node_size = malloc((size_t)(a->nnodes + 1) * sizeof *a->node_size);
	if (a->gt == NULL || a->ot == NULL || a->pick == NULL ||
	    a->node_first == NULL || a->node_size == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < a->nnodes; g++) {
		struct pol_node_info ni = pol_node(w, g);
		a->node_first[g] = ni.gpu;
		a->node_size[g] = ni.ngpus;
	}
	a->ngt = a->not = 0;
	for (g = 0; g < n; g++) {
		a->gt[g] = a->ot[g] = -1;
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS, err)) != 0)
			return rc;
	}
	return 0;
}

static void am_fini(struct world *w, void *s)
{
	struct antman *a = s;
	int k;

	(void)w;
	for (k = 0; k < a->nact; k++) {      /* jobs not ended */
		free(a->actx[k]->held);
		a->actx[k]->held = NULL;
	}
	free(a->act);
	free(a->actx);
	free(a->gt);
	free(a->ot);
	free(a->pick);
	free(a->node_first);
	free(a->node_size);
}

static int am_arrival(struct world *w, void *s, int j)
{
	struct antman *a = s;
	struct pol_job_info ji = pol_job(w, j);
	struct am_job *x;

	if (ji.kind != POL_TRAIN || ji.gpus == 0) {
		pol_fail_job(w, j, "antman schedules training jobs on GPUs "
			     "only");
		return 0;
	}
	if (ji.gpus > a->ngpus || !pol_job_fits_empty(w, j)) {
		pol_fail_job(w, j, "needs more GPUs or memory than the "
			     "cluster has");
		return 0;
	}
	if (a->nact == a->act_cap) {
		int n = a->act_cap ? 2 * a->act_cap : 256;
		int *p = realloc(a->act, (size_t)n * sizeof *p);
		struct am_job **px;
		if (p == NULL)
			return SIM_ENOMEM;
		a->act = p;
		px = realloc(a->actx, (size_t)n * sizeof *px);
		if (px == NULL)
			return SIM_ENOMEM;
		a->actx = px;
		a->act_cap = n;
	}
	if ((x = pol_job_priv(w, j)) == NULL)
		return SIM_ENOMEM;
	x->active = 1;
	x->guaranteed = (double)ji.priority >= a->guarantee;
	x->gpus = ji.gpus;
	a->actx[a->nact] = x;
	a->act[a->nact++] = j;
	return 0;
}

/* Forgets job j's GPUs in gt / ot (it left them). */
static void unseat(struct antman *a, struct world *w, int j)
{
	int k, n = pol_job_nplaced(w, j);

	for (k = 0; k < n; k++) {
		int g = pol_job_tenant(w, j, k).gpu;
		if (g < 0 || g >= a->ngpus)
			continue;
		if (a->gt[g] == j)
			set_gt(a, g, -1);
		if (a->ot[g] == j)
			set_ot(a, g, -1);
	}
}

static int am_finish(struct world *w, void *s, int j)
{
	struct antman *a = s;
	struct am_job *x = pol_job_priv(w, j);
	int k, g;

	if (x == NULL || !x->active)
		return 0;
	x->active = 0;
	/* it holds no GPU now: every entry of j is on the GPUs of its last
	** placement (an eviction clears them, a placement records them) */
	for (k = 0; k < x->nheld; k++) {
		g = x->held[k];
		if (a->gt[g] == j)
			set_gt(a, g, -1);
		if (a->ot[g] == j)
			set_ot(a, g, -1);
	}
	free(x->held);
	x->held = NULL;
	x->nheld = 0;
	for (k = 0; k < a->nact && a->act[k] != j; k++)
		;
	if (k < a->nact) {
		memmove(a->act + k, a->act + k + 1,
			(size_t)(a->nact - k - 1) * sizeof *a->act);
		memmove(a->actx + k, a->actx + k + 1,
			(size_t)(a->nact - k - 1) * sizeof *a->actx);
		a->nact--;
	}
	return 0;
}

static int waiting(struct world *w, int j)
{
	enum pol_job_state st = pol_job_state(w, j);
	return st == POL_JOB_PENDING || st == POL_JOB_PREEMPTED;
}

/* Whether GPU g can take job j: guaranteed, no guaranteed job there;
** opportunistic, no opportunistic job and room for its footprint. */
static int usable(struct antman *a, struct world *w, int j, int g, int guar)
{
	if (guar)
		return a->gt[g] < 0;
	return a->ot[g] < 0 &&
		pol_gpu_free(w, g, -1) >= pol_job_mem(w, j, g);
}

/* Chooses n GPUs for job j into a->pick, taking GPUs of preference
** class `cls` (0 first) on one node when one has enough, else any; 1 if
** found. */
static int choose(struct antman *a, struct world *w, int j, int n, int guar)
{
	int cls, got, g, node, nn = a->nnodes;

	/* fewer than n GPUs without a job of its class: none usable */
	if (a->ngpus - (guar ? a->ngt : a->not) < n)
		return 0;
	/* class 0 needs n preferred GPUs on one node: idle ones
	** (guaranteed), ones with a guaranteed job (opportunistic); with
	** fewer than n in the whole cluster it finds none */
	for (cls = (guar ? pol_gpus_idle(w) : a->ngt) < n; cls < 2; cls++) {
		/* on one node */
		for (node = 0; node < nn; node++) {
			int end = a->node_first[node] + a->node_size[node];
			got = 0;
			for (g = a->node_first[node]; g < end && got < n; g++) {
				int pref = guar ? pol_gpu_ntenants(w, g) == 0 :
					a->gt[g] >= 0;
				if (usable(a, w, j, g, guar) &&
				    (cls == 1 || pref))
					a->pick[got++] = g;
			}
			if (got == n)
				return 1;
		}
	}
	got = 0;
	for (g = 0; g < a->ngpus && got < n; g++)
		if (usable(a, w, j, g, guar))
			a->pick[got++] = g;
	return got == n;
}

static int am_schedule(struct world *w, void *s)
{
	struct antman *a = s;
	struct sim_err e = { 0, "" };
	int k, q, rc, pass;

	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < a->nact; k++) {
			int j = a->act[k], guar = pass == 0, n;
			struct am_job *x = a->actx[k];
			struct pol_place_opts o = { .sm_cap = 0 };
			if (x->guaranteed != guar || !waiting(w, j))
				continue;
			n = x->gpus;
			if (!choose(a, w, j, n, guar))
				continue;
			if (guar) {
				/* evict opportunistic jobs that leave too
				** little memory */
				for (q = 0; q < n; q++) {
					int g = a->pick[q], o2 = a->ot[g];
					if (o2 < 0 || pol_gpu_free(w, g, -1) >=
					    pol_job_mem(w, j, g))
						continue;
					unseat(a, w, o2);
					if ((rc = pol_preempt(w, o2, &e)) != 0)
						return rc;
					pol_add_metric(w, "antman_evictions", 1);
				}
			}
			rc = pol_place(w, j, a->pick, n, &o, &e);
			if (rc == SIM_ENOSPC || rc == SIM_ESTATE)
				continue;
			if (rc != 0)
				return rc;
			if (x->nheld < n) {
				int *h = realloc(x->held,
						 (size_t)n * sizeof *h);
				if (h == NULL)
					return SIM_ENOMEM;
				x->held = h;
			}
			memcpy(x->held, a->pick, (size_t)n * sizeof *a->pick);
			x->nheld = n;
			for (q = 0; q < n; q++) {
				if (guar)
					set_gt(a, a->pick[q], j);
				else
					set_ot(a, a->pick[q], j);
			}
		}
	/* the opportunistic jobs' SM caps */
	for (k = 0; k < a->nact; k++) {
		int j = a->act[k], shared = 0, nplaced;
		double cap;
		if (a->actx[k]->guaranteed ||
		    pol_job_state(w, j) != POL_JOB_RUNNING)
			continue;
		nplaced = pol_job_nplaced(w, j);
		for (q = 0; q < nplaced; q++)
			shared |= a->gt[pol_job_tenant(w, j, q).gpu] >= 0;
		cap = shared ? a->opp_sm : 1;
		if (pol_job_tenant(w, j, 0).sm_cap != cap &&
		    (rc = pol_set_share(w, j, cap, &e)) != 0)
			return rc;
	}
	return 0;
}

const struct pol_ops pol_antman = {
	.iVersion = POL_IFACE_VERSION,
	.szJob = sizeof(struct am_job),
	.zName = "antman",
	.zDesc = "AntMan: guaranteed jobs and opportunistic jobs on their GPUs' "
		 "leftover memory and SMs (OSDI'20)",
	.szState = sizeof(struct antman),
	.xInit = am_init,
	.xFini = am_fini,
	.xOnArrival = am_arrival,
	.xOnFinish = am_finish,
	.xSchedule = am_schedule,
	.aParam = am_params,
};
