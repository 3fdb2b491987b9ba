/*
** qsched.h: the core shared by the preemptive queue-order schedulers
** (srtf, srsf, tiresias, gittins; docs/POLICIES.md, "Cluster
** schedulers").  Each pass, as the schedulers of Tiresias and Muri do it:
**
**   1. the policy orders its active jobs (pending and running training
**      jobs; finished ones leave) by (klass, key), a stable sort, so ties
**      keep the order of the previous pass and new jobs come last;
**   2. the desired set is taken in that order on an EMPTY cluster, each
**      job that fits taken, the others skipped (fit-first: a job that does
**      not fit does not stop the pass);
**   3. running jobs outside the desired set are preempted, and the desired
**      pending jobs placed.
**
** Placement (QS_PLACE_*): `any` counts GPUs (the "count" scheme of both
** peer simulators: any free GPUs, lowest index first); `node`
** consolidates as the peers' "yarn" scheme (switch.py try_single_node_alloc
** / try_cross_node_alloc): a job of at most one node's GPUs on one node
** (the first, in index order, with enough free GPUs), a larger one on
** idle whole nodes plus one node for the rest.  When the desired set fits
** an empty cluster but not around the running jobs' current GPUs, the
** pass re-packs: it preempts the running jobs and places the whole set
** afresh (the peers re-place every job at every event, for free), counted
** in the run metric qsched_repacks.
**
** Memory: a job's struct qs_job is its pol_job_priv (the policy's szJob
** is QS_SZJOB, or the size of its own per-job struct whose first member
** is a struct qs_job), made when it arrives and freed with the job's
** record: qsched's bytes follow the active jobs (~100 B each with the
** allocator's header, and 4 + 8 B in the active order and its scratch,
** 4 + 8 B more for qs_sort's merge once an order turned over), whatever
** the trace length.  Cost: no structure holds a finished job.
**
** Cost per event (A active jobs: pending and running, finished ones gone;
** G GPUs, N nodes, n GPUs a job; indexed, issue 20 item 1):
**   pass                O(A) to settle, the stable sort O(A +
**                       inversions) (insertion) up to 16 A + 4096 moves,
**                       then O(A log A) (a merge: an order that turns
**                       over, e.g. themis's rho or srsf's keys crossing;
**                       a NaN key keeps the insertion sort), the desired
**                       set O(A) (any) or O(A log N) (node: the what-if
**                       cluster's ordered sets; its reset O(nodes the
**                       last one changed x log N)), and per job placed
**                       O(n log G) (any: the world's idle-GPU tree) or
**                       O((n + nodes taken) log G) (node: the world's node
**                       indexes, pol_node_next_idle / _next_whole)
**   arrival             O(1) amortised (whether its GPU count fits the
**                       empty cluster's nodes: O(N) once per count)
**   finish              O(A) (the active list, kept in pass order)
** Nothing is O(G) or O(N) per event: the cluster's size enters through
** log factors only.  Worst case: a long queue on a full cluster whose order
** changes every pass (O(A log A + A log N) a pass; O(A^2) with NaN keys).
*/
#ifndef COLOSIM_POLICIES_QSCHED_H
#define COLOSIM_POLICIES_QSCHED_H

#include <stddef.h>

#include "policies/policy.h"

enum { QS_PLACE_ANY = 0, QS_PLACE_NODE = 1 };

/* Per job: the job's pol_job_priv (qs_job), made at its arrival. */
struct qs_job {
	double exec_ns;               /* wall time spent running since the
					 last reset (Tiresias's executed) */
	double total_exec_ns;         /* wall time spent running, in all */
	double pend_ns;               /* time pending since it last ran
					 (Tiresias's last_pending_time) */
	sim_time last_ns;             /* settled up to here */
	int active;                   /* in the active order */
	int want;                     /* in this pass's desired set */
	int klass;                    /* primary key: smaller first */
	double key, key2;             /* then these: smaller first */
	long seq;                     /* then this: smaller first (0 for
					 all: the previous pass's order) */
	double aux;                   /* the policy's own */
	int gpus;                     /* its GPU count (the trace's: these
					 policies never resize a job) */
	sim_time submit_ns;           /* its arrival */
	unsigned nplace;              /* placements qs_apply tried of it: a
					 job waiting (pending or preempted)
					 whose count has not moved has not
					 run since (themis keeps its
					 remaining time by it) */
	int st;                       /* its pol_job_state as of the
					 policy's walk (qs_settle_job; read
					 by qs_apply when st_fresh) */
};

struct qsched {
	int placement;                /* QS_PLACE_* */
	int *act;                     /* active jobs, in priority order */
	struct qs_job **actx;         /* act's records: actx[k] is act[k]'s
					 (kept with act: the passes' walks
					 read them without a lookup) */
	int nact, act_cap;
	int *sact;                    /* qs_sort's merge scratch, made on */
	struct qs_job **sactx;        /* first use (sort_cap slots) */
	int sort_cap;
	/* the cluster's nodes: first GPU and size of each */
	int nnodes, max_node;
	int *node_first, *node_size;
	/* the what-if cluster (qs_apply's desired set, qs_whatif): free
	** GPUs per node, and two ordered sets over the nodes, keyed by node
	** index, for "the lowest node with k free" (aux: -free) and "the
	** lowest wholly free node of at most k GPUs" (aux: its size when
	** wholly free, else INT64_MAX); a reset restores only the nodes
	** changed since the last (wi_dirty) */
	int *node_free;
	struct sim_oset wi_free, wi_whole;
	int *wi_hfree, *wi_hwhole;    /* per node: its handles */
	int *wi_dirty, nwi_dirty;
	unsigned char *wi_in_dirty;
	unsigned char *fit_empty;     /* per GPU count: 0 unknown, 1 fits
					 the empty cluster's nodes, 2 not */
	/* scratch */
	int *node_taken, *taken, *gpus;
	int whatif_free;              /* qs_whatif: free GPUs (any) */
	int st_fresh;                 /* every active record's st is its
					 state now: the policy sets it just
					 before qs_apply, which clears it */
};

/* The szJob of a policy built on qsched with no per-job state of its
** own. */
#define QS_SZJOB sizeof(struct qs_job)

/* Job j's state (its pol_job_priv): zeroed until it arrives; NULL for no
** such job, once the job's record is released (after its xOnFinish and
** the pass that follows), when out of memory, or when the policy's szJob
** is 0.  O(1). */
struct qs_job *qs_job(const struct world *w, int j);
/* 1 if job j is in the active order (its state says so; a released job
** is not). */
int qs_active(const struct world *w, int j);

/* Bytes qsched holds for its jobs beside their records: the active order
** and its scratch (qs_sort's too, once made), by capacity (O(peak active
** jobs)); each active job's
** struct qs_job is its pol_job_priv, the world's (world_live_privs).
** O(1). */
size_t qs_job_bytes(const struct qsched *q);

/* The what-if index against node_free: -1, or the first node whose
** entries differ (tests/test_index.c). */
int qs_index_check(const struct qsched *q);

/* Sets up for world w with the given placement; 0 or SIM_ENOMEM. */
int qs_init(struct qsched *q, struct world *w, int placement,
	    struct sim_err *err);
void qs_fini(struct qsched *q);
/* The choices of every scheduler's `placement` parameter, in QS_PLACE_*
** order. */
extern const char *const qs_place_names[];

/* A job arrived: a training job that could ever run joins the active
** order at its end (1); anything else is failed with a reason naming
** `policy` (0).  Negative on error (SIM_ENOMEM also when the policy's
** szJob is under QS_SZJOB). */
int qs_arrive(struct qsched *q, struct world *w, int j, const char *policy);
/* A job finished: it leaves the active order (call it from xOnFinish,
** while its record lives). */
void qs_finish(struct qsched *q, struct world *w, int j);

/* Settles every active job's times (exec, total, pending) up to now. */
void qs_settle(struct qsched *q, struct world *w);
/* Settles one job's times up to now, st its pol_job_state (qs_settle's
** step, for a policy that walks its jobs once for this and its keys). */
static inline void qs_settle_job(struct qs_job *x, int st, sim_time now)
{
	double dt = (double)(now - x->last_ns);

	x->st = st;
	if (st == POL_JOB_RUNNING) {
		x->exec_ns += dt;
		x->total_exec_ns += dt;
	} else if (x->exec_ns > 0) {
		x->pend_ns += dt;
	}
	x->last_ns = now;
}

/* Sorts the active order by (klass, key, key2, seq), stable: the
** insertion sort's order (a merge sort finishes one that moves too
** much, to the same order).  O(A + inversions), at most O(A log A) past
** the budget. */
void qs_sort(struct qsched *q, struct world *w);

/* A what-if cluster for policies that choose their own sets: qs_whatif
** empties it; qs_fits takes g GPUs from it under the placement (1) or
** leaves it (0). */
void qs_whatif(struct qsched *q, struct world *w);
int qs_fits(struct qsched *q, int g);
/* Chooses g GPUs on the actual cluster (exclusive use: GPUs without
** tenants) into q->gpus under the placement; 1 if found. */
int qs_choose(struct qsched *q, struct world *w, int g);

/* Steps 2 and 3 of the pass over the active order.  0 or a negative
** SIM_E* code for a broken invariant.  With q->st_fresh set (each
** record's st its job's state now: qs_settle_job in a walk just before,
** nothing acted since), the desired set reads the states from the
** records and the preemptions look up only the jobs they say run (no
** action of the pass starts a job that was not running: a job runs only
** when placed). */
int qs_apply(struct qsched *q, struct world *w);

#endif
