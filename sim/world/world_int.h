/*
** world_int.h: the world core's private API (docs/ARCHITECTURE.md, "The
** world core and its tenant kinds").
**
** The core (world.c: events and life cycle; world_kind.c: the registry of
** tenant kinds; world_act.c: the view and the policy actions; world_res.c:
** the metrics) owns the GPUs, the job records, the pending queue, the
** trace, the policy and the scheduling pass.  Everything else is a feature
** with its own .c/.h pair and its own state: the training worker
** (world_train.c), the inference replica (service.c, world_svc.c), the GPU
** pool's executor (world_pool.c, its model cache world_cache.c), the
** memory pool (world_mempool.c) and
** swapping (world_swap.c).  Each registers a `struct world_kind`, a const
** table of handlers, with an opaque state pointer; the core calls features
** only through those tables and never names one.  Features call what this
** header declares (and read the core's state below), never each other's
** internals; a feature's documented header (service.h, world_mempool.h)
** is its API for the others.
**
** Nothing outside sim/world/ includes this header except tests.
*/
#ifndef COLOSIM_SIM_WORLD_INT_H
#define COLOSIM_SIM_WORLD_INT_H

#include <assert.h>

#include "sim/maxtree.h"
#include "sim/oset.h"
#include "models/workload.h"
#include "sim/world/world.h"

/* ---- tenant kinds ---------------------------------------------------------
**
** A kind (as ROSS's tw_lptype) tells the core how to drive one kind of GPU
** tenant and, for a kind that runs trace jobs, those jobs.  A feature with
** no tenants of its own (the memory pool, swapping) registers a kind too,
** for its state's lifetime and the actions it takes over.  Every handler
** is optional (NULL), gets the state given to world__kind_add, and returns
** 0 or a negative SIM_E* code that fails the run (after sim_fail, or with
** the code alone); xPlace and xPreempt may also return WORLD_PASS.  A
** handler runs inside an event: it may change the world through the calls
** of this header and the world_* actions, but must not free what the core
** passed it.  Fields are only ever appended
** (iVersion says which the table has).
*/

#define WORLD_KIND_VERSION 5
#define WORLD_KINDS_MAX 16            /* registrations per world */
#define WORLD_KIND_SLOTS 32           /* their index: > WORLD_KINDS_MAX */
#define WORLD_NO_JOBS (-1)            /* eJob of a kind that runs none */
#define WORLD_PASS 1                  /* xPlace / xPreempt: not mine */

struct world_kind {
	int iVersion;                 /* WORLD_KIND_VERSION it targets */
	const char *zName;            /* unique: "train", "replica", ... */
	/* The trace kind (enum trace_kind) of the jobs it runs, at most one
	** kind per trace kind, or WORLD_NO_JOBS. */
	int eJob;

	/* ---- the registration ---- */
	/* At world_destroy, in reverse order of registration, after the
	** GPUs' tenant lists are gone and before the job records are
	** freed: frees the state and everything the kind owns.  The last
	** call the kind gets; cannot fail. */
	void (*xFini)(struct world *w, void *state);
	/* world_results: adds the kind's run metrics (run_result_set, in
	** registration order, after makespan and utilisation, before the
	** job counts) and anything else it reports.  0 or SIM_ENOMEM. */
	int (*xResults)(struct world *w, void *state, struct run_result *res);

	/* ---- its tenants (attached by world__tenant_attach) ---- */
	/* Tenant t's work unit finished now.  Non-NULL: the core keeps the
	** unit's completion, at gpu_finish_time, in its GPU's one completion
	** event and calls this when it is due (t->due is 0 again; the unit
	** is still begun in the GPU model).  The kind ends or replaces the
	** unit (gpu_finish / gpu_begin) and calls world__gpu_changed.
	** NULL: the kind times its tenants' units itself (xChanged). */
	int (*xUnitDone)(struct world *w, void *state, struct gpu_tenant *t);
	/* The speeds of t's GPU changed now (a tenant attached, detached,
	** began or finished a unit, changed share or memory): called for
	** every attached tenant of the kind, in the GPU's list order, before
	** the core re-arms the GPU's completion event.  A kind that times
	** its own units reschedules them here (gpu_finish_time); it must not
	** change the GPU (no attach, detach, begin, finish or resize). */
	int (*xChanged)(struct world *w, void *state, struct gpu_tenant *t);

	/* ---- its jobs (eJob != WORLD_NO_JOBS) ---- */
	/* The job arrived (pending; the policy's xOnArrival follows). */
	int (*xArrive)(struct world *w, void *state, struct world_job *job);
	/* world_place attached the job's tenants (RUNNING, start_ns set):
	** begin their work.  The core calls world__gpu_changed on every GPU
	** of the placement afterwards. */
	int (*xPlaced)(struct world *w, void *state, struct world_job *job);
	/* world_fail_job failed the pending job (FAILED, end_ns set). */
	int (*xFail)(struct world *w, void *state, struct world_job *job);
	/* The trace is over and every live job is open-ended (see
	** world__job_open): end this one's open-ended activity now.  Called
	** for each open job in index order until none is left open. */
	int (*xClose)(struct world *w, void *state, struct world_job *job);

	/* ---- actions a feature takes over, for any job ---- */
	/* world_place(job, ...): offered to every kind with the handler, in
	** registration order, after the core checked the job index and
	** before anything else; o is never NULL.  WORLD_PASS leaves the
	** placement to the next kind and then to the core; anything else is
	** world_place's result. */
	int (*xPlace)(struct world *w, void *state, struct world_job *job,
		      const int *gpus, int n, const struct world_place_opts *o,
		      struct sim_err *err);
	/* world_preempt(job): as xPlace, offered once the core has checked
	** that the job is a running training job. */
	int (*xPreempt)(struct world *w, void *state, struct world_job *job,
			struct sim_err *err);

	/* ---- results, per job (eJob != WORLD_NO_JOBS) ---- */
	/* world_results: fills the kind's own fields of job's result row r
	** (the core has filled the common ones and set the others to their
	** "does not apply" values); cannot fail. */
	void (*xJobResult)(struct world *w, void *state,
			   const struct world_job *job, struct res_job *r);

	/* ---- version 2 ---- */
	/* Job job's placement ends now: its tenants have left their GPUs
	** (done, preempted, swapped out, or a placement undone before it
	** began), just before its placement arrays are freed.  Called for
	** every kind with the handler, in registration order; cannot fail. */
	void (*xLeave)(struct world *w, void *state, struct world_job *job);

	/* ---- version 3 ---- */
	/* The per-GPU footprint of one of its jobs on device d, for
	** world_job_mem (which caches it per device) when the trace gives
	** no mem_mib: what a policy's fit checks read.  NULL: the workload
	** model's (a service's weights and batch, a training job's peak). */
	uint64_t (*xJobMem)(const struct world *w, void *state,
			    const struct world_job *job,
			    const struct dev_profile *d);

	/* ---- version 4 ---- */
	/* 1: a finished (done or failed) job of this kind needs nothing of
	** its record once its end's hooks and the scheduling pass that
	** follows have run, so the core releases it then (world.h,
	** world_job); such a kind has no xJobResult (its rows are the
	** core's fields alone). */
	int bRetire;

	/* ---- version 5 ---- */
	/* Job job's record is about to be freed (bRetire or bRetireMetrics):
	** fold into the kind's state what xResults still needs of it and
	** free what the kind hangs on it (job->svc).  WORLD_PASS keeps the
	** record (it is freed at world_destroy); cannot fail. */
	int (*xRetire)(struct world *w, void *state, struct world_job *job);
	/* 1: a finished job of this kind is released as one of a bRetire
	** kind (world.h, world_job; policy.h, version 9), but its record is
	** freed only when the world keeps no result rows (metrics_only), so
	** that the kind may keep an xJobResult: a store world keeps the
	** record for the row, a policy sees the same in both. */
	int bRetireMetrics;
};

/* A registration: a kind and its state.  Lives in struct world (stable
** until world_destroy); every tenant's `owner` points to its kind's. */
struct world_reg {
	const struct world_kind *kind;
	void *state;
};

/* Registers kind k with state (borrowed until k->xFini, which frees it).
** SIM_EINVAL (no name, a version this world does not know, a name or a
** trace kind already taken) or SIM_ENOSPC (WORLD_KINDS_MAX reached), with
** a message; then nothing is registered and the caller keeps state. */
int world__kind_add(struct world *w, const struct world_kind *k, void *state,
		    struct sim_err *err);
/* The state registered with k, or NULL when k is not registered (O(1):
** a feature's views may call it per GPU per request; below). */
static inline void *world__kind_state(const struct world *w,
				      const struct world_kind *k);
/* Attaches t (id, mem_bytes, sm_cap and slice set by the caller; a tenant
** of no job has a negative id: policies read id >= 0 as a job index) to
** GPU g as a tenant of registered kind k: gpu_attach's refusals, or
** SIM_ENOENT for a kind not registered.  The core owns t->owner from now
** on.  The caller begins its unit (gpu_begin), if any, then calls
** world__gpu_changed(w, g); it detaches it with gpu_detach (then
** world__gpu_changed) and keeps t alive while attached. */
int world__tenant_attach(struct world *w, const struct world_kind *k, int g,
			 struct gpu_tenant *t, int allow_oversub,
			 struct sim_err *err);

/* The core's own uses of the registry (world_kind.c): attach a job's
** tenant to its kind's registration r; the kind of jobs of a trace kind
** (NULL: none); every xFini in reverse order; every xResults in order;
** offer world_place / world_preempt (WORLD_PASS: no kind took it). */
int world__reg_attach(struct world *w, struct world_reg *r, int g,
		      struct gpu_tenant *t, int allow_oversub,
		      struct sim_err *err);
struct world_reg *world__kind_of_job(struct world *w, int trace_kind);
void world__kinds_fini(struct world *w);
int world__kinds_results(struct world *w, struct run_result *res);
/* The xJobResult of job's kind, if it has one, on r. */
struct res_job;
void world__kind_job_result(struct world *w, const struct world_job *job,
			    struct res_job *r);
int world__offer_place(struct world *w, struct world_job *job,
		       const int *gpus, int n, const struct world_place_opts *o,
		       struct sim_err *err);
int world__offer_preempt(struct world *w, struct world_job *job,
			 struct sim_err *err);
/* Checks entry k of a GPU list for a `what` action ("place", "resize"):
** a GPU of this world, not already in gpus[0..k-1]; 0, or SIM_EINVAL
** with "WHAT: no GPU g" / "WHAT: GPU g twice" (world_act.c). */
int world__check_gpu(const struct world *w, const int *gpus, int k,
		     const char *what, struct sim_err *err);
/* Every kind's xLeave for job (world__free_placement calls it). */
void world__kinds_leave(struct world *w, struct world_job *job);

/* The built-in features, registered in this order by world_create
** (world_builtin.c, a static table as Lua's linit.c).  A feature's init
** reads its part of cfg, registers its kind(s) and returns 0 or an error
** with a message. */
typedef int world_init_fn(struct world *w, const struct world_config *cfg,
			  struct sim_err *err);
int world__builtin_init(struct world *w, const struct world_config *cfg,
			struct sim_err *err);

/* ---- the core's state ---------------------------------------------------- */

/* Downsampled utilisation series: row k holds the cluster HBM and SM
** fractions, then (per_gpu) each GPU's pair. */
struct world_series {
	int cap, n, width, per_gpu;
	sim_time dt;
	sim_time *t;
	double *v;
};

struct world_metric {
	char name[48];
	double value;
};

/* Jobs live in chunks of WORLD_JOB_CHUNK indices that never move.  A
** chunk holds its jobs' records while they are held (rec); a finished job
** of a kind with bRetire (or bRetireMetrics) is released after the
** scheduling pass that follows its end (world__retire_flush): its byte in
** ks says so, with its kind and state, and its record is freed.  A world
** that keeps result rows (not metrics_only) keeps a retired job's row
** (struct world_jrow: what the results need) in the chunk's row array; a
** metrics-only world keeps its ks byte alone, so that memory follows the
** jobs held, not the trace: a chunk whose jobs are all released gives
** back its record array, and one whose ks bytes are all equal is replaced
** by the world's shared chunk of that byte (docs/PERFORMANCE.md, "Memory
** bounded by the active set"). */
#define WORLD_JOB_CHUNK_LOG2 10
#define WORLD_JOB_CHUNK (1 << WORLD_JOB_CHUNK_LOG2)
#define WORLD_KS_RELEASED 0x80        /* ks: released (kind << 3 | state) */
#define WORLD_KS_VALUES 32            /* kind << 3 | state values */

/* A retired job's row, in a world that keeps result rows. */
struct world_jrow {
	const char *id;               /* interned (struct world_strs) */
	const char *model;            /* the trace's model name: the zoo's
					 own string or interned */
	const struct zoo_model *zm;
	const char *fail_reason;      /* failed: interned; else NULL */
	sim_time submit_ns, start_ns, end_ns;
	double solo_ns;
	uint64_t mem_bytes;           /* the trace's: world_job_mem */
	double gpu_share;
	double frac_left;             /* 0 done; a failed job's progress */
	int first_gpu, gpus, priority, batch, preemptions, swaps;
	unsigned char kind, state;    /* enum trace_kind, enum job_state */
	unsigned char opt, prec;      /* enum wl_optimizer, wl_precision */
};

struct world_jchunk {
	struct world_job **rec;       /* WORLD_JOB_CHUNK records, NULL once
					 freed; NULL: none held any more */
	struct world_jrow *row;       /* retired jobs' rows; NULL in a
					 metrics-only world */
	int nheld;                    /* records in rec */
	int nprivs;                   /* of them, with a pol_job_priv */
	int shared;                   /* 1: one of world.uni (never freed
					 alone, never written) */
	unsigned char ks[WORLD_JOB_CHUNK];  /* 0 held, else released */
};

/* Interned strings: blocks that never move, freed at world_destroy. */
struct world_strs {
	struct world_strblk *head;    /* the block being filled */
	size_t used;                  /* bytes used in head */
	size_t bytes;                 /* in all blocks, for the counters */
};

/* What world__job gives for a retired job: a copy of its record rebuilt
** from its row (finished, placed nowhere), in a ring (world.c); allocated
** apart, as a const world's scratch. */
#define WORLD_JOB_COPIES 8
struct world_jcopies {
	struct world_reg *reg[3];     /* the kinds, by enum trace_kind */
	struct world_job copy[WORLD_JOB_COPIES];
	unsigned n;                   /* copies made */
};

struct world {
	struct sim sim;
	const struct cluster_spec *cl;
	struct gpu *gpus;
	int ngpus;
	struct world_jchunk **chunks; /* njobs jobs in all */
	int njobs, nchunks;
	struct world_jchunk *uni[WORLD_KS_VALUES];  /* shared full chunks */
	int lean;                     /* metrics_only: no rows kept */
	sim_time rel_end_max;         /* lean: latest end of a released done
					 job */
	int nrecs, peak_recs;         /* job records held now, at most */
	int *retire;                  /* finished jobs whose records go after
					 the next pass (world__retire_flush) */
	int nretire, capretire;
	struct world_strs strs;       /* retired jobs' ids and models */
	struct world_jcopies *jc_;    /* retired jobs' copies (world__job) */
	struct wl_fit_memo *fits_;    /* the training model fits met so far
					 (world__train_profile): a memo a
					 const world may fill */
	int *pending;                 /* pending job indices, arrival order */
	int npending, cappending;
	struct trace_reader *tr;
	struct trace_job next_tj;     /* the row read ahead */
	int trace_done;
	char trace_path[512];
	const struct pol_ops *pol;
	void *pol_state;
	int pol_inited;
	uint64_t seed;
	sim_time horizon;
	int horizon_is_limit;         /* horizon = the 2^62 ns time limit */
	uint64_t max_events;
	enum sim_stop_reason stop_reason;
	int sched_pending;
	int live_jobs;                /* arrived, not done or failed */
	int open_jobs;                /* live jobs marked open-ended */
	double nic_bytes_per_s;       /* inter-node bandwidth per GPU */
	int spread_cost;              /* WORLD_SPREAD_* (world_config) */
	struct world_series series;
	struct world_metric *xmetrics; /* world_add_metric, in first-use order */
	int nxmetrics, capxmetrics;
	struct world_reg kinds[WORLD_KINDS_MAX];
	int nkinds;
	/* kinds by table address: open addressing, never full */
	const struct world_reg *kind_ix[WORLD_KIND_SLOTS];
	struct world_plog *plog;      /* placement log (world_plog.c); NULL
					 until the first GPU change */
	struct world_jitter *jitter;  /* arrival jitter (world_jitter.c);
					 NULL when off */
	struct world_view *view;      /* the policy view's state (view.c) */
	struct world_tl *tl;          /* the timeline (world_timeline.c);
					 NULL when not recorded */
	struct world_gix *gix;        /* the GPU indexes (world_index.c) */
	/* experiments' probe after every scheduling pass (world_config) */
	int (*on_pass)(void *ctx, struct world *w);
	void *pass_ctx;
	int cpu_guard_;               /* in node_host_cpu(): no re-entry */
	int metrics_only;             /* world_config's */
};

/* Cores a busy tenant's host-side part keeps busy (the training loop's
** process; its input workers are not modelled separately): an assumption
** of docs/MODEL.md, "Host CPU contention". */
#define WORLD_HOST_CORES 1.0

/* A kind table's slot in kind_ix, before probing. */
static inline unsigned world__kind_hash(const struct world_kind *k)
{
	uintptr_t h = (uintptr_t)k;

	h ^= h >> 5 ^ h >> 11;
	return (unsigned)h & (WORLD_KIND_SLOTS - 1);
}

static inline void *world__kind_state(const struct world *w,
				      const struct world_kind *k)
{
	unsigned i = world__kind_hash(k);
	const struct world_reg *r;

	for (; (r = w->kind_ix[i]) != NULL;
	     i = (i + 1) & (WORLD_KIND_SLOTS - 1))
		if (r->kind == k)
			return r->state;
	return NULL;
}

/* The state of a kind registered at world_create (a built-in feature's
** own): never NULL. */
static inline void *world__kind_own(const struct world *w,
				    const struct world_kind *k)
{
	void *state = world__kind_state(w, k);

	assert(state != NULL);
	return state;
}

/* Job j's chunk (0 <= j < njobs). */
static inline struct world_jchunk *world__chunk(const struct world *w, int j)
{
	return w->chunks[j >> WORLD_JOB_CHUNK_LOG2];
}

/* Job j's record, NULL once freed (0 <= j < njobs). */
static inline struct world_job *world__rec(const struct world *w, int j)
{
	const struct world_jchunk *c = world__chunk(w, j);

	return c->rec != NULL ? c->rec[j & (WORLD_JOB_CHUNK - 1)] : NULL;
}

/* Retired job j's row, NULL in a metrics-only world (0 <= j < njobs). */
static inline struct world_jrow *world__row(const struct world *w, int j)
{
	const struct world_jchunk *c = world__chunk(w, j);

	return c->row != NULL ? &c->row[j & (WORLD_JOB_CHUNK - 1)] : NULL;
}

/* A retired job's copy (struct world_jcopies): what world_job gives. */
struct world_job *world__job_copy(const struct world *w, int j);

/* Job j's record (0 <= j < njobs); for a retired job a copy rebuilt from
** its row (world.h, world_job): finished, placed nowhere, no service or
** policy state; every action refuses it and what is written to it is
** lost. */
static inline struct world_job *world__job(const struct world *w, int j)
{
	struct world_job *rec = world__rec(w, j);

	return rec != NULL ? rec : world__job_copy(w, j);
}

/* 1 when job j's record was given back (0 <= j < njobs). */
static inline int world__retired(const struct world *w, int j)
{
	return world__rec(w, j) == NULL;
}

/* 1 when job j is released: past the pass after its end, for a kind
** that retires its jobs, whether its record was freed or kept for its
** result row (bRetireMetrics in a store world); the policy view answers
** for it what policy.h, version 9, says (0 <= j < njobs). */
static inline int world__released(const struct world *w, int j)
{
	return (world__chunk(w, j)->ks[j & (WORLD_JOB_CHUNK - 1)] &
		WORLD_KS_RELEASED) != 0;
}

/* Job j's state, live or retired (0 <= j < njobs). */
static inline enum job_state world__job_state(const struct world *w, int j)
{
	const struct world_job *rec = world__rec(w, j);

	return rec != NULL ? rec->state : (enum job_state)
		(world__chunk(w, j)->ks[j & (WORLD_JOB_CHUNK - 1)] & 7);
}

/* Job j just finished (done or failed): its record goes after the next
** pass when its kind lets it (bRetire; world__job_done calls it). */
void world__job_finished(struct world *w, int j);
/* Releases the records of the finished jobs listed since the last call
** (the end of every scheduling pass calls it). */
void world__retire_flush(struct world *w);

/* ---- the core's calls ---------------------------------------------------- */

/* Job j entered the pending queue (after world__pending_add): the
** policy's xOnQueue, if it has one (version 4). */
int world__job_queued(struct world *w, int j);
/* Requests one scheduling pass at this instant (idempotent). */
int world__request_schedule(struct world *w);
/* Stops the run when the trace is over and no job is live; first asks
** open-ended jobs to close (xClose) when they are all that is left. */
void world__maybe_stop(struct world *w);
/* Pending queue: remove j (if there), append j. */
void world__pending_remove(struct world *w, int j);
int world__pending_add(struct world *w, int j);
/* Reschedules GPU g after any change (xChanged, then its one completion
** event at the earliest due tenant of a kind with xUnitDone). */
int world__gpu_changed(struct world *w, int g);
/* Job j is done now: its tenants leave, then xOnFinish and a pass. */
int world__job_done(struct world *w, int j);
/* Marks a live job open-ended (its activity would never end by itself)
** or no longer; the core counts them for world__maybe_stop. */
void world__job_open(struct world *w, struct world_job *job, int open);
/* Frees a job's placement arrays (its tenants are detached already),
** after telling the kinds (xLeave). */
void world__free_placement(struct world *w, struct world_job *job);
/* world_place past the kinds' offers: checks the request, attaches one
** tenant of job per GPU, marks it RUNNING and calls its kind's xPlaced
** (a feature's xPlace that places the job itself calls this). */
int world__place_tenants(struct world *w, struct world_job *job,
			 const int *gpus, int n,
			 const struct world_place_opts *o, struct sim_err *err);
/* A policy hook's result: rc < 0 fails the run naming the hook. */
int world__hook_rc(struct world *w, int rc, const char *hook);
/* Asks the policy's xOnRequest where a request of service j goes into
** *to (-1 first): 1 when the policy has no xOnRequest (the caller's
** default applies), 0 when it answered, or its error (run failed).
** Inline: it runs once per request. */
static inline int world__ask_route(struct world *w, int j, int *to)
{
	int rc;

	*to = -1;
	if (w->pol->xOnRequest == NULL)
		return 1;
	rc = w->pol->xOnRequest(w, w->pol_state, j, to);
	return rc < 0 ? world__hook_rc(w, rc, "on_request") : 0;
}
/* wl_train_profile_measured of a training job at max batch on device d,
** with the model's fit from the world's memo (world_train.c): the same
** profile without the fitted table's scan. */
void world__train_profile(const struct world *w, const struct world_job *job,
			  const struct dev_profile *d, int batch,
			  struct gpu_work_profile *prof);
/* Copies the trace's per-resource times of a training job into the
** profile its tenants run (the interleave mode reads them;
** sim/world/world_train.c). */
void world__train_res(const struct world_job *job,
		      struct gpu_work_profile *prof);
/* An elastic job's gradient noise scale, in samples (world.c). */
double world__job_noise(const struct world_job *job);
/* A training job's total solo time on device d with this placement
** (docs/MODEL.md, "Training jobs"). */
double world__train_total_ns(const struct world *w,
			     const struct world_job *job,
			     const struct dev_profile *d, const int *gpus,
			     int n);
/* Metrics helpers (world_res.c): NaN without a sample; the ~40-bin
** log-spaced latency histogram of s into res. */
double world__res_quant(struct sim_sample *s, double q);
double world__res_mean(const struct sim_sample *s);
int world__res_lat_hist(struct sim_sample *s, struct run_result *res);
/* s binned into nb log-spaced bins between its min (at least 1e-6) and
** max: counts[0..nb), bin b = [lo e^(r b), lo e^(r (b + 1))).  0 (counts
** zeroed) when s is empty, else 1 with *lo and *r. */
int world__res_bins(struct sim_sample *s, int nb, uint64_t *counts,
		    double *lo, double *r);

/* sim/world/world_plog.c: the placement log.  sync(g) records the tenants
** of GPU g that came and went (called by world__gpu_changed); results adds
** every interval to res (open ones end -1); fini frees it. */
int world__plog_sync(struct world *w, int g);
/* sim/world/world_timeline.c: init (from world_create when
** cfg->timeline), sync(g) after every change of GPU g, a model load's
** begin / end on pool GPU g (begin 0: ends the open one), fini. */
int world__tl_init(struct world *w);
int world__tl_sync(struct world *w, int g);
int world__tl_load(struct world *w, int g, int job, const char *model,
		   int begin);
/* A finished span [t0, now) of kind (WORLD_TL_*) on GPU g; 0 when no
** timeline is recorded. */
int world__tl_add(struct world *w, int g, int job, int kind, sim_time t0);
void world__tl_fini(struct world *w);
int world__plog_results(struct world *w, struct run_result *res);
void world__plog_fini(struct world *w);
/* sim/world/world_jitter.c: arrival jitter of j_ns (0: off); row shifts
** the row just read (0, or a sim_fail code for a row out of order). */
int world__jitter_init(struct world *w, sim_time j_ns, struct sim_err *err);
int world__jitter_row(struct world *w, struct trace_job *tj);
void world__jitter_fini(struct world *w);
/* sim/world/world_index.c: the GPU indexes (world.h, "indexes").  init
** after the GPUs exist; gpu(g) re-reads GPU g (world__gpu_changed and the
** mode / layout actions call it); pass_done empties the changed set (after
** each scheduling pass); totals gives a sample's cluster sums (-1: too
** large to be exact, sum the GPUs instead); check returns -1 when every
** entry matches the GPUs, else the first GPU that does not (ngpus: a
** count); failed: an ordered set could not be built (out of memory). */
int world__index_init(struct world *w, struct sim_err *err);
void world__index_fini(struct world *w);
void world__index_gpu(struct world *w, int g);
void world__index_pass_done(struct world *w);
int world__index_totals(const struct world *w, double *hbm, double *cap,
			double *sm);
int world__index_check(const struct world *w);
int world__index_failed(const struct world *w);
/* sim/world/view.c: the policy view's state (device kinds, the policy's
** random stream): made before xInit, freed by world_destroy. */
int world__view_init(struct world *w, struct sim_err *err);
void world__view_fini(struct world *w);

#endif
