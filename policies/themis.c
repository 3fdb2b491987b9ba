/*
** themis.c: Themis (Mahajan et al., NSDI 2020), finish-time fairness with
** leases, its auction simplified to the worst-off-first greedy that the
** Themis-style simulators run (docs/POLICIES.md, "themis").
**
** Finish-time fairness of job i now: rho_i = T_sh / T_id with
**     T_sh = (now - submit_i) + remaining solo time of i,
**     T_id = solo total of i x max(1, g_i / (G / c_i)),
** G the cluster's GPUs, g_i the job's, c_i the contention it has seen (the
** time average of the number of active jobs since it arrived): the time
** it would take on its 1/c_i share of the cluster.  A pass (at every
** arrival, completion and lease expiry) orders the active jobs: running
** jobs whose lease has not expired first (they keep their GPUs), then the
** others by rho, largest first (ties: the previous pass's order); the set
** is taken fit-first on an empty cluster (policies/qsched.c) and applied.
** A job placed or re-chosen when its lease expired holds a new lease of
** lease_s.  Remaining times are on GPU 0's device, as srtf's.
**
** Cost per event: the qsched core's (policies/qsched.h, "Cost per event":
** O(A) a pass plus the sort, O(A log N) the desired set under node
** placement, O(n log G) a placement; nothing O(G) or O(N) an event); each
** pass also computes every active job's finish-time fairness, O(A), in
** the same walk that settles its times and reads its state (once): the
** remaining time (the spread-cost model) of a running job each pass, of
** a waiting one once until it is placed again (kept in th_job; a
** waiting job's does not move).  Worst case: a long queue (the
** auction's order over every active job each pass, O(A log A) the sort
** when that order turns over).
*/
#include <stdlib.h>
#include <string.h>

#include "policies/qsched.h"

struct th_job {
	double solo_s;                /* solo total, s (at arrival) */
	double seen;                  /* integral of active jobs, job-s */
	sim_time since;               /* arrival */
	sim_time lease_end;           /* running: lease until; 0: none */
	double submit_s;              /* arrival, s (rho's term) */
	double rem_s;                 /* remaining solo time, s, as of
					 rem_place (valid: rem_ok) */
	unsigned rem_place;           /* the job's qs_job nplace then */
	int rem_ok;
};

/* A job's pol_job_priv: qsched's state, then themis's. */
struct th_priv {
	struct qs_job q;
	struct th_job t;
};

struct themis {
	struct qsched q;
	int placement;                /* parameter: QS_PLACE_* */
	double lease_s;               /* parameter */
	sim_time last_ns;             /* the last pass */
	int last_n;                   /* active jobs since then */
	uint64_t timer_gen;
};

static const struct pol_param_def th_params[] = {
	POL_PARAM_DOUBLE("lease_s", struct themis, lease_s, 1, 1e9, "600",
			 "lease length, s: a running job keeps its GPUs this "
			 "long before it competes again"),
	POL_PARAM_CHOICE("placement", struct themis, placement,
			 qs_place_names, "node", "node: a job within one "
			 "node, larger ones on whole nodes; any: any free "
			 "GPUs"),
	POL_PARAM_END
};

static int th_init(struct world *w, void *s, const struct pol_params *p,
		   struct sim_err *err)
{
	struct themis *t = s;

	(void)p;
	return qs_init(&t->q, w, t->placement, err);
}

static void th_fini(struct world *w, void *s)
{
	struct themis *t = s;

	(void)w;
	qs_fini(&t->q);
}

/* Job j's th_job (its pol_job_priv's), for a job whose record lives
** and that arrived active (qs_arrive made the record: never NULL then). */
static struct th_job *th_of(const struct world *w, int j)
{
	struct th_priv *p = pol_job_priv(w, j);

	return &p->t;
}

/* The th_job of the k-th active job: its record is actx[k] (qsched.h),
** the first member of its th_priv; no lookup. */
static struct th_job *th_at(const struct themis *t, int k)
{
	return &((struct th_priv *)t->q.actx[k])->t;
}

static int th_arrival(struct world *w, void *s, int j)
{
	struct themis *t = s;
	int rc = qs_arrive(&t->q, w, j, "themis");

	struct th_job *x;

	if (rc <= 0)
		return rc;
	x = th_of(w, j);                /* there: qs_arrive made it */
	memset(x, 0, sizeof *x);
	x->solo_s = pol_job_remaining_ns(w, j, 0) / 1e9;
	x->since = pol_now(w);
	x->submit_s = (double)qs_job(w, j)->submit_ns / 1e9;
	return 0;
}

/* Adds the active-job count since the last pass to job x's contention
** integral (settle_seen's step; the caller then sets last_ns to now).
** inc: the term of a job that arrived by the last pass (the same for
** all of them), from the_inc. */
static void settle_one(const struct themis *t, struct th_job *x,
		       sim_time now, double inc)
{
	sim_time from = x->since > t->last_ns ? x->since : t->last_ns;

	if (now > from)
		x->seen += x->since > t->last_ns ?
			(double)t->last_n * (double)(now - from) / 1e9 : inc;
}

/* settle_one's term from the last pass to now. */
static double the_inc(const struct themis *t, sim_time now)
{
	return (double)t->last_n * (double)(now - t->last_ns) / 1e9;
}

/* Adds the active-job count since the last pass to every active job's
** contention integral. */
static void settle_seen(struct themis *t, struct world *w)
{
	sim_time now = pol_now(w);
	double inc = the_inc(t, now);
	int k;

	for (k = 0; k < t->q.nact; k++)
		settle_one(t, th_at(t, k), now, inc);
	t->last_ns = now;
}

static int th_finish(struct world *w, void *s, int j)
{
	struct themis *t = s;

	settle_seen(t, w);
	t->last_n = t->q.nact - qs_active(w, j);
	qs_finish(&t->q, w, j);
	return 0;
}

/* Job j's remaining solo time on GPU 0's device, s, in state st.  A
** waiting job's (pending or preempted) moves only when it runs, and it
** runs only after qs_apply places it (its nplace moves): kept from the
** pass that first saw it waiting until then.  (The world changes a
** job's fraction left only when it stops running, and its solo total
** only at a placement or a resize, which these policies never make.) */
static double rem_s(struct world *w, int j, const struct qs_job *q,
		    struct th_job *x, int st)
{
	int waits = st == POL_JOB_PENDING || st == POL_JOB_PREEMPTED;

	if (waits && x->rem_ok && x->rem_place == q->nplace)
		return x->rem_s;
	x->rem_s = pol_job_remaining_ns(w, j, 0) / 1e9;
	x->rem_ok = waits;
	x->rem_place = q->nplace;
	return x->rem_s;
}

/* Job j's finish-time fairness now (now_s: now in s), the k-th active
** job, in state st. */
static double rho(const struct themis *t, struct world *w, int k, int st,
		  sim_time now, double now_s, int G)
{
	const struct qs_job *q = t->q.actx[k];
	struct th_job *x = th_at(t, k);
	double life = (double)(now - x->since) / 1e9;
	double c = life > 0 ? x->seen / life : (double)t->q.nact;
	double g = (double)q->gpus, share, tid;

	if (c < 1)
		c = 1;
	share = (double)G / c;
	tid = x->solo_s * (g > share ? g / share : 1);
	if (!(tid > 0))
		return 0;
	return (now_s - x->submit_s + rem_s(w, t->q.act[k], q, x, st)) / tid;
}

/* A pass.  One walk settles each active job (qsched's times, the
** contention integral) and sets its key, reading its state once. */
static int th_pass(struct themis *t, struct world *w)
{
	struct sim_err e = { 0, "" };
	sim_time now = pol_now(w), next = 0;
	double now_s = (double)now / 1e9;
	int k, rc, G = pol_ngpus(w);
	double inc = the_inc(t, now);

	for (k = 0; k < t->q.nact; k++) {
		int st = pol_job_state(w, t->q.act[k]);
		struct qs_job *q = t->q.actx[k];
		struct th_job *x = th_at(t, k);
		int held;
		settle_one(t, x, now, inc);
		qs_settle_job(q, st, now);
		held = st == POL_JOB_RUNNING && x->lease_end > now;
		q->klass = held ? 0 : 1;
		q->key = held ? 0 : -rho(t, w, k, st, now, now_s, G);
		q->key2 = 0;
	}
	t->last_ns = now;
	qs_sort(&t->q, w);
	t->q.st_fresh = 1;              /* the walk above read every state */
	if ((rc = qs_apply(&t->q, w)) != 0)
		return rc;
	t->last_n = t->q.nact;
	for (k = 0; k < t->q.nact; k++) {
		struct th_job *x = th_at(t, k);
		if (pol_job_state(w, t->q.act[k]) != POL_JOB_RUNNING) {
			x->lease_end = 0;
			continue;
		}
		if (x->lease_end <= now)
			x->lease_end = now + (sim_time)(t->lease_s * 1e9);
		if (next == 0 || x->lease_end < next)
			next = x->lease_end;
	}
	if (next > now)
		return pol_set_timer(w, next - now, ++t->timer_gen, &e);
	return 0;
}

static int th_timer(struct world *w, void *s, uint64_t tag)
{
	struct themis *t = s;

	if (tag != t->timer_gen)
		return 0;                 /* superseded by a later pass */
	return th_pass(t, w);
}

static int th_schedule(struct world *w, void *s)
{
	return th_pass(s, w);
}

const struct pol_ops pol_themis = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "themis",
	.zDesc = "Themis: finish-time fairness with leases, the worst-off "
		 "jobs first (NSDI'20, its auction simplified)",
	.szState = sizeof(struct themis),
	.szJob = sizeof(struct th_priv),
	.xInit = th_init,
	.xFini = th_fini,
	.xOnArrival = th_arrival,
	.xOnFinish = th_finish,
	.xOnTimer = th_timer,
	.xSchedule = th_schedule,
	.aParam = th_params,
};
