/*
** world.h: the simulated cluster in motion: jobs and services arriving from
** a trace, placed by a policy on the GPUs of a cluster, progressing as fluid
** work under each GPU's sharing mode, and the metrics of the run.
**
** Ownership: world_create copies what it needs from its config except the
** device catalog and cluster spec, which are borrowed and must outlive the
** world.  Policies see the world only through policies/policy.h (the pol_*
** view and actions, sim/world/view.c, built on the calls below); the
** accessors here are the world's own API, for the engine, the experiments
** and tests.  Every world_* action validates its request and returns 0 or
** a SIM_E* code with a message, leaving the world unchanged on failure.
**
** Lifecycle of a job: PENDING (arrived, waiting) -> RUNNING (tenants on its
** GPUs) -> DONE; RUNNING -> PREEMPTED (back in the queue, progress kept) ->
** RUNNING ...; PENDING -> FAILED when a policy declares it can never run.
** Swapping (sim/world/world_swap.c): RUNNING -> SWAPPING_OUT (D2H copy in flight,
** memory held, no progress) -> PREEMPTED with `swapped` set (back in the
** queue, progress kept, state in host memory) -> SWAPPING_IN (placed,
** memory held, H2D copy in flight, no progress) -> RUNNING.
** A service (kind infer) is RUNNING while its replicas serve requests and
** DONE when its arrivals are over and its queues drained.
*/
#ifndef COLOSIM_SIM_WORLD_H
#define COLOSIM_SIM_WORLD_H

#include <stdint.h>

#include "sim/world/result.h"
#include "models/gpu.h"
#include "models/zoo.h"
#include "policies/policy.h"
#include "models/cluster.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "traces/trace.h"

enum job_state {
	JOB_PENDING = 0,
	JOB_RUNNING,
	JOB_PREEMPTED,
	JOB_DONE,
	JOB_FAILED,
	JOB_SWAPPING_OUT,                 /* D2H copy in flight (world_swap.c) */
	JOB_SWAPPING_IN                   /* H2D copy in flight (world_swap.c) */
};

const char *job_state_name(enum job_state s);

struct world_service;
struct world_reg;

/*
** A job's record.  Lifetime: a live job's record does not move and stays
** valid while the job is live and through the hooks of its end and the
** scheduling pass that follows (a pointer from world_job() is for the
** hook that obtained it; keep the job index across hooks).  After that a
** finished training job's record is released (its kind's bRetire,
** world_int.h): memory follows the jobs active at once, not the trace.
** world_job(j) then returns a read-only copy rebuilt from what the world
** keeps of it (idx; tj.id, model, kind, submit_ns, batch, opt, prec,
** gpus, gpu_share, mem_bytes, priority; model, state, frac_left,
** submit/start/end_ns, preemptions, swaps, fail_reason; every other field
** zero: placed nowhere, no work left), valid until WORLD_JOB_COPIES (8)
** more copies of retired jobs.  A finished service is released at the same
** point (the policy view then knows it by index, kind and state alone:
** policy.h, version 9) but keeps its record for its result row, except in
** a metrics-only world (world_config.metrics_only), which keeps no result
** rows: there every released job's record goes, and its copy has idx,
** tj.kind and state alone, tj.id "#<idx>", start_ns and end_ns -1,
** model NULL.  A job's index and state never go away, nor, in a world
** with result rows, its row.
*/
struct world_job {
	int idx;
	struct trace_job tj;              /* the trace row */
	const struct zoo_model *model;
	enum job_state state;
	sim_time submit_ns, start_ns, end_ns;   /* start/end -1 until known */
	/* training progress: fraction of the job still to run, 1 -> 0,
	** settled at the last placement change */
	double frac_left;
	int preemptions;
	/* placement: one tenant per GPU (training workers or replicas) */
	int nplaced;
	int *gpu_ids;                     /* nplaced entries */
	struct gpu_tenant *tenants;       /* nplaced entries */
	struct world_service *svc;        /* kind infer only */
	char fail_reason[96];
	/* private to the world */
	struct world_reg *kind_;          /* the tenant kind that runs it */
	int open_;                        /* open-ended (world__job_open) */
	double *work0_;                   /* work given to each tenant */
	double frac0_;                    /* frac_left when placed */
	double solo_ns_;                  /* solo run time at first placement */
	int first_gpu_;                   /* lowest GPU of the first placement */
	/* world_job_mem's cache: footprint per device, filled on first use
	** (a footprint walks the model's layers; policies ask per GPU) */
	const struct dev_profile *mem_dev_[4];
	uint64_t mem_bytes_[4];
	int fits_empty_;                  /* world_job_fits_empty: 0 unknown,
					     1 yes, 2 no (the cluster is fixed) */
	/* swapping (sim/world/world_swap.c) */
	int swapped;                      /* PREEMPTED with its state in host
					     memory: placing it pays the H2D
					     copy (world_swap_in) */
	int swaps;                        /* swap-outs so far */
	/* fractional GPUs (sim/world/world_frac.c): its speed alone at its
	** share when it holds a share placement, else 0; a trace-given time
	** is scaled by it (world__train_total_ns) */
	double share_speed_;
	/* the share placement it holds (world_frac.c): its node + 1 (0:
	** none), thousandths per GPU, host CPU (millicores) and memory (MiB)
	** held */
	int frac_node1_, frac_milli_;
	int64_t frac_cpu_, frac_mem_;
	void *pol_priv_;                  /* the policy's (pol_job_priv) */
	/* elastic resizing (sim/world/world_resize.c) */
	int gpus0_;                       /* the trace's gpus: tj.gpus is its
					     count now (world_resize, or an
					     elastic placement) */
	int resizes;                      /* world_resize calls done */
	sim_time restart_end_;            /* RUNNING and restarting (no
					     progress) until then; 0: not */
	uint64_t restart_gen_;            /* its restart's event, valid
					     while equal */
};

struct world_config {
	const struct cluster_spec *cluster;   /* borrowed */
	const char *trace_path;
	const char *arrivals_dir;             /* NULL: arrival files only from
						 the trace's folder (trace.h) */
	const struct pol_ops *policy;
	const struct pol_params *params;      /* borrowed during create */
	uint64_t seed;
	sim_time horizon_ns;                  /* SIM_TIME_MAX: none */
	uint64_t max_events;                  /* 0: none */
	int series_points;                    /* per-GPU samples kept; 0: 512 */
	double nic_bytes_per_s;               /* between nodes; 0: 100 Gb/s */
	/* Requests held in queues at once, over all services; an arrival
	** that finds this many queued is rejected (counted, never served).
	** 0: WORLD_MAX_QUEUED_DEFAULT.  Bounds memory whatever the load. */
	uint64_t max_queued_requests;
	/* the memory pool (sim/world/world_mempool.c): 0 servers means one
	** per node, 0 bandwidth means nic_bytes_per_s */
	int memory_servers;
	double memory_server_nic_bytes_per_s;
	/* What world_preempt costs: WORLD_PREEMPT_FREE (0, the default:
	** the job leaves its GPUs at once) or WORLD_PREEMPT_SWAP (it is
	** swapped out and pays the copy back in; docs/MODEL.md, "Swapping"). */
	int preempt_cost;
	/* The LLM services' settings (sim/world/world_llm.h: `KEY = VALUE`
	** for all, `ID.KEY = VALUE` for service ID); NULL: the defaults.
	** Borrowed during create (copied). */
	const struct pol_params *llm;
	/* Arrival jitter: each trace row arrives up to this much later, a
	** uniform draw per row from the replication's stream, order kept
	** (sim/world/world_jitter.c; docs/RESULTS.md).  0: the trace's times. */
	sim_time arrival_jitter_ns;
	/* Record the run's timeline (world_timeline below; off: 0). */
	int timeline;
	/* What a data-parallel job spread over nodes pays: WORLD_SPREAD_
	** ALLREDUCE (0, the default: its ring all-reduce over the NIC, also
	** on a trace-given iteration time, which is taken as measured on the
	** consolidated placement) or WORLD_SPREAD_NONE (every placement
	** costs what the consolidated one does: the peers' simulators;
	** docs/MODEL.md, "Data-parallel training"). */
	int spread_cost;
	/* Fractional GPUs (docs/MODEL.md, "Fractional GPUs"): each node's
	** tie-break rank, nnodes entries, borrowed during create (NULL: the
	** node index), which share policies read (pol_node). */
	const int64_t *node_rank;
	/* Called after every scheduling pass with pass_ctx (experiments'
	** probes: colosim openb's allocation curve); non-zero fails the run. */
	int (*on_pass)(void *ctx, struct world *w);
	void *pass_ctx;
	/* 1: world_results gives the metrics, histograms and series alone:
	** no per-job rows and no placements, and no placement log is kept
	** during the run, and a released job keeps nothing but a byte
	** (struct world_job) (what `colosim replay`, which prints the
	** metrics, needs; docs/PERFORMANCE.md, "Memory bounded by the active
	** set"). */
	int metrics_only;
};

enum { WORLD_PREEMPT_FREE = 0, WORLD_PREEMPT_SWAP = 1 };
enum { WORLD_SPREAD_ALLREDUCE = 0, WORLD_SPREAD_NONE = 1 };

/* ---- the timeline (sim/world/world_timeline.c) ---------------------------
** What each GPU did, for `colosim replay --timeline`: spans and counter
** samples in simulated nanoseconds. */
enum world_tl_kind {
	WORLD_TL_UNIT = 0,            /* a tenant's work unit: a training
					 worker's run, a service batch, a pool
					 executor's execution */
	WORLD_TL_SWAP_OUT,            /* a placed job's D2H swap copy */
	WORLD_TL_SWAP_IN,             /* its H2D copy back */
	WORLD_TL_LOAD                 /* a model load into a pool GPU */
};

struct world_tl_span {
	int gpu;
	int job;                      /* job index; < 0: no job (a pool
					 executor, a prefetch) */
	int kind;                     /* enum world_tl_kind */
	const char *zWhat;            /* loads: the model's name; else NULL */
	sim_time t0_ns, t1_ns;        /* t0 < t1 */
};

struct world_tl_counter {
	int gpu;
	sim_time t_ns;                /* from here on, until its next sample */
	double hbm_frac;              /* allocated / capacity, capped at 1 */
	double sm_frac;               /* busy SM fraction */
};

struct world_timeline {
	const struct world_tl_span *spans;      /* in closing order */
	size_t nspans;
	const struct world_tl_counter *counters;    /* in time order */
	size_t ncounters;
	int truncated;                /* limits reached: recording stopped */
};

/* The timeline of a world created with cfg.timeline, after world_run:
** closes the spans still open at the current time and fills *out, which
** borrows the world's arrays until world_destroy.  0, or SIM_ESTATE when
** the world records none. */
int world_timeline(struct world *w, struct world_timeline *out,
		   struct sim_err *err);

/* 4 Mi requests: 32 MiB of queued arrival times (docs/MODEL.md,
** "Bounded request queues"). */
#define WORLD_MAX_QUEUED_DEFAULT ((uint64_t)1 << 22)

struct world;

/* Builds the world and runs the policy's xInit.  *out owns it. */
int world_create(struct world **out, const struct world_config *cfg,
		 struct sim_err *err);

/* Runs to the end of the trace (or horizon / event budget). */
int world_run(struct world *w, struct sim_err *err);

/* Fills res with the run's metrics, jobs, series and latency histogram. */
int world_results(struct world *w, struct run_result *res,
		  struct sim_err *err);

void world_destroy(struct world *w);

/* ---- the read-only view ---------------------------------------------- */

sim_time world_now(const struct world *w);
int world_njobs(const struct world *w);
/* Job j's record, or NULL for no such job; see struct world_job for how
** long the pointer lives. */
const struct world_job *world_job(const struct world *w, int j);
/* Job records held now and at most so far (live jobs and finished ones
** not yet released), and the bytes of the retired jobs' interned ids and
** model names: what bounds the world's memory (docs/PERFORMANCE.md,
** "Memory bounded by the active set"). */
int world_live_records(const struct world *w);
/* Jobs arrived and neither done nor failed now. */
int world_live_jobs(const struct world *w);
int world_peak_records(const struct world *w);
/* The policy's per-job states (pol_job_priv) held now: made on first
** use, freed with their records.  O(jobs / WORLD_JOB_CHUNK). */
int world_live_privs(const struct world *w);
size_t world_interned_bytes(const struct world *w);
/* Bytes of the job table: the chunks of records' pointers, released
** jobs' bytes and (a world with result rows) retired jobs' rows, shared
** chunks once each; the records themselves not counted. */
size_t world_job_table_bytes(const struct world *w);
/* Pending (and preempted) jobs in arrival order. */
int world_npending(const struct world *w);
int world_pending_at(const struct world *w, int k);
int world_ngpus(const struct world *w);
const struct gpu *world_gpu(const struct world *w, int g);
const struct cluster_spec *world_cluster(const struct world *w);
/* The job's per-GPU memory footprint on GPU g's device (the trace's figure
** when it gives one, else the workload model's peak). */
uint64_t world_job_mem(const struct world *w, int j, int g);
/* The job's memory over an iteration on GPU g's device: peak (what
** world_job_mem returns), trough (between iterations) and the fraction of
** time spent near the peak.  Services and trace-given memory: flat. */
void world_job_footprint(const struct world *w, int j, int g,
			 uint64_t *peak, uint64_t *trough, double *peak_frac);
/* The job's remaining solo time on GPU g's device, in ns (training; for a
** running job, as of now at its workers' current speeds, the slowest
** worker's); for a service, the solo time of one full batch. */
double world_job_remaining_ns(const struct world *w, int j, int g);
/* Requests queued at replica r of service j (-1: not yet placed). */
int world_queue_len(const struct world *w, int j, int r);
/* Free memory of GPU g (slice -1) or of one MIG slice. */
uint64_t world_gpu_free(const struct world *w, int g, int slice);
/* 1 if the job could run on an empty cluster under exclusive use:
** enough GPUs whose memory holds its footprint. */
int world_job_fits_empty(const struct world *w, int j);
/* Training job j's whole solo run time, in ns, on n GPUs of GPU g's
** device placed consolidated (from the first GPU of g's node on): for an
** elastic job at any count, the goodput model's (docs/MODEL.md, "Goodput
** of elastic jobs").  -1: not a training job, or too few GPUs. */
double world_job_total_at(const struct world *w, int j, int g, int n);

/* ---- indexes (sim/world/world_index.c) ------------------------------------
** Kept up to date on every GPU change, so that each question below costs
** O(1) or O(log G) instead of a scan of the GPUs.  Device kinds: the GPU
** profiles of the cluster, 0..world_ndevs()-1 in order of their first GPU. */

int world_ndevs(const struct world *w);
/* Kind d's profile (NULL: no such kind), its lowest GPU (-1), its GPUs. */
const struct dev_profile *world_dev(const struct world *w, int d);
int world_dev_gpu(const struct world *w, int d);
int world_dev_ngpus(const struct world *w, int d);
/* GPU g's kind, -1 for no such GPU. */
int world_gpu_dev(const struct world *w, int g);
/* GPUs with no tenant; empty MIG slices (no memory used) of MIG GPUs. */
int world_gpus_idle(const struct world *w);
int world_slices_free(const struct world *w);

enum world_fit {
	WORLD_FIT_FREE = 0,           /* any GPU, its free memory */
	WORLD_FIT_IDLE,               /* GPUs with no tenant, their free memory */
	WORLD_FIT_SLICE               /* MIG GPUs, their largest empty slice */
};
/* The lowest GPU index >= from with at least `bytes` under `how`, or -1;
** O(log G). */
int world_gpu_next_fit(const struct world *w, int from, uint64_t bytes,
		       enum world_fit how);
/* The most bytes any GPU has under `how` (0: none). O(1). */
uint64_t world_gpu_max_fit(const struct world *w, enum world_fit how);
/* The n-th most bytes a GPU has under `how` into *bytes: 1, or 0 when
** fewer than n GPUs are in it.  O(n log G). */
int world_gpu_nth_fit(const struct world *w, int n, enum world_fit how,
		      uint64_t *bytes);

enum world_order {
	WORLD_ORDER_BEST_FIT = 0,     /* least free memory first */
	WORLD_ORDER_LEAST_LOADED      /* fewest tenants, then most free */
};
/* The GPUs of kind d with at least `bytes` free, in order `ord` (ties by
** lowest index): the first, and the one after g (which must be of kind d);
** -1 at the end.  O(log G) a step (least-loaded: plus one O(log G) jump per
** tenant count passed).  The order's index is built on the first call
** (O(G log G)) and kept from then on. */
int world_gpu_order_first(const struct world *w, int d, enum world_order ord,
			  uint64_t bytes);
int world_gpu_order_next(const struct world *w, int d, enum world_order ord,
			 uint64_t bytes, int g);
/* The first GPU after g, in that order, whose key differs from g's (its
** free memory, and for least-loaded its tenants): past a run of equals. */
int world_gpu_order_skip(const struct world *w, int d, enum world_order ord,
			 uint64_t bytes, int g);
/* The GPUs of kind d by free memory, most first: the first (before -1)
** and the one after `before`; -1 at the end.  O(log G). */
int world_gpu_most_free(const struct world *w, int d, int before);
/* Nodes (the cluster's, 0..nnodes-1): node n's GPUs with no tenant (0 for
** no such node); the lowest node >= from with at least k of them; the
** lowest node >= from all of whose GPUs have no tenant and that has at
** most max_gpus GPUs; -1: none.  O(1), O(log N), O(log N). */
int world_node_idle(const struct world *w, int n);
int world_node_next_idle(const struct world *w, int from, int k);
int world_node_next_whole(const struct world *w, int from, int max_gpus);
/* The GPUs whose tenants, memory or speeds changed since the last
** scheduling pass ended (each once, in order of their first change). */
int world_nchanged(const struct world *w);
int world_changed_at(const struct world *w, int k);

/* ---- actions ----------------------------------------------------------- */

struct world_place_opts {
	double sm_cap;                    /* MPS share (0, 1]; 0 means 1 */
	const int *slices;                /* per GPU MIG slice, or NULL */
	int allow_oversub;
	uint64_t mem_bytes;               /* allocation per GPU; 0: the
					     job's footprint (world_job_mem) */
};

/* Places a pending/preempted job on n distinct GPUs (n == tj.gpus).
** SIM_ENOSPC (not fatal) when memory does not fit; SIM_ESTATE when the job
** is not pending or a GPU is exclusive and busy; SIM_EINVAL otherwise. */
int world_place(struct world *w, int j, const int *gpus, int n,
		const struct world_place_opts *o, struct sim_err *err);

/* Takes a running training job off its GPUs; its progress is kept and it
** joins the pending queue again. */
int world_preempt(struct world *w, int j, struct sim_err *err);

/*
** Resizes running elastic training job j (docs/MODEL.md, "Elastic jobs")
** to the n distinct GPUs gpus (read, not kept; they may include its own):
** its progress is settled and kept, it holds the new GPUs' memory and
** makes no progress for restart_ns (a checkpoint-restart), then runs at
** the new count's speed (the goodput model) on the work it had left.
** Counted in the run metrics resizes and restart_gpu_s (n x restart_s).
** SIM_EINVAL: no such job or GPU, a GPU twice, n outside [min_gpus,
** max_gpus], a job that is not elastic, restart_ns < 0; SIM_ESTATE: not a
** running training job, a share placement, an exclusive GPU another
** tenant holds; SIM_ENOSPC: a GPU's free memory (with what the job holds
** there) is short of its footprint.  A refusal changes nothing.
*/
int world_resize(struct world *w, int j, const int *gpus, int n,
		 sim_time restart_ns, struct sim_err *err);

/* Sets the MPS share of every tenant of job j. */
int world_set_share(struct world *w, int j, double sm_cap,
		    struct sim_err *err);

/* Sets the sharing mode / MIG layout of an empty GPU. */
int world_set_gpu_mode(struct world *w, int g, enum gpu_mode mode,
		       struct sim_err *err);
int world_set_mig_layout(struct world *w, int g, const char *const *profiles,
			 int n, struct sim_err *err);

/* Fires xOnTimer(tag) after dt (>= 0). */
int world_set_timer(struct world *w, sim_time dt, uint64_t tag,
		    struct sim_err *err);

/* Declares a pending job impossible: FAILED, with a reason for reports. */
int world_fail_job(struct world *w, int j, const char *reason);

/* ---- service control and measurement (sim/world/world_svc.c) ---------------- */

/* What service j did since its window was last reset (or it arrived). */
struct world_svc_window {
	sim_time t0_ns, len_ns;           /* window start and length */
	uint64_t arrivals;                /* requests that arrived */
	uint64_t served;                  /* requests completed */
	uint64_t slo_miss;                /* completed later than the SLO */
	double lat_p99_ms, lat_max_ms, lat_mean_ms;   /* of those served */
	/* batches completed, and the sums a least-squares fit of execution
	** time on batch size needs: sum b, sum b^2, sum t, sum b t (a pooled
	** service's batch time is its pool pipe's, model load included) */
	uint64_t batches;
	double batch_sum, batch_sum2, exec_sum_ms, bexec_sum_ms;
	int max_batch;                    /* the current max batch */
	int replicas;                     /* placed replicas (0: pending) */
	uint64_t queued;                  /* requests waiting now, all queues */
};

/* Fills *out for service j (kind infer, arrived).  The latency quantile
** sorts the window's sample, hence the non-const world. */
int world_svc_window(struct world *w, int j, struct world_svc_window *out,
		     struct sim_err *err);
/* Starts a new window for service j now. */
int world_svc_window_reset(struct world *w, int j, struct sim_err *err);

/* Sets service j's max batch at run time, 1..tj.batch (the trace's batch
** is the largest one its replicas' memory was sized for).  The batch in
** flight is not cut; the next batch obeys the new limit. */
int world_set_batch(struct world *w, int j, int max_batch,
		    struct sim_err *err);

/* ---- job memory and run metrics (sim/world/world_act.c) ------------------ */

/* Changes the allocation of every tenant of running job j to mem_bytes
** (per GPU).  SIM_ENOSPC, leaving every tenant as it was, when it does
** not fit and !allow_oversub. */
int world_set_mem(struct world *w, int j, uint64_t mem_bytes,
		  int allow_oversub, struct sim_err *err);

/* Adds value to the run metric `name` (created at 0 on first use; names
** up to 47 bytes), which world_results copies into the run's metrics.  For
** policy-specific counters (reallocations, switch costs).  0 or
** SIM_EINVAL / SIM_ENOMEM. */
int world_add_metric(struct world *w, const char *name, double value);
/* ---- the GPU pool and the memory pool -------------------------------------
** (sim/world/world_pool.c and sim/world/world_mempool.c.)
** DistMind-style disaggregation (docs/MODEL.md, "DistMind").  Models live
** on memory servers, each sharded over min(servers, 4) of them; a GPU that
** joins the pool runs one inference executor that holds a cache of
** resident models (its memory is the executor's allocation) and executes
** batches of pooled services one at a time, loading a missing model from
** the memory servers through the link model (NIC, then PCIe, then execute,
** per layer group when pipelined).  A pooled service has no replicas: each
** of its requests is routed by xOnRequest to a pool GPU (the `replica` is
** a GPU index; -1 holds it in the pool's FIFO queue, offered again
** whenever a pool GPU finishes a batch or joins). */

enum world_load_mode {
	WORLD_LOAD_PIPELINED = 0,     /* per layer group: NIC, PCIe, execute */
	WORLD_LOAD_WHOLE              /* the whole model, then execute */
};

/* View. */
int world_pool_servers(const struct world *w);
/* The memory servers holding model m's shards into servers[4]; returns
** their number, min(servers, 4); 0 for a model not in the zoo. */
int world_pool_shards(const struct world *w, const struct zoo_model *m,
		      int *servers);
int world_pool_in(const struct world *w, int g);
/* Requests dispatched to GPU g and not finished (queued + in flight). */
int world_pool_load(const struct world *w, int g);
/* 0: m not on GPU g; 1: loading; 2: resident. */
/* DistMind's route for a request of model m (distmind_route over the
** pool's GPUs, from indexes: O(log G)): the lowest pool GPU with load 0
** holding m (when cache); the lowest with load 0; the lowest with load <
** busy_load holding m (when cache); the least loaded, lowest index, with
** load < max_load; -1 when none. */
/* Busy (loading or executing) time summed over every GPU since the run
** began, in ns, modulo 2^64: the difference of two calls is exact.
** O(GPUs busy now). */
uint64_t world_pool_busy_total_ns(const struct world *w);
/* GPUs in the pool.  O(1). */
int world_pool_size(const struct world *w);
int world_pool_route(const struct world *w, const struct zoo_model *m,
		     int busy_load, int max_load, int cache);
int world_pool_has_model(const struct world *w, int g,
			 const struct zoo_model *m);
/* Requests held in the pool's queue (routed nowhere yet). */
int world_pool_queued(const struct world *w);
/* Time GPU g spent loading or executing since the run began, in ns. */
sim_time world_pool_busy_ns(const struct world *w, int g);
/* 1 if service j is served by the pool. */
int world_pool_serving(const struct world *w, int j);
/* Loads finished so far and, of those, the ones a request waited for. */
uint64_t world_pool_loads(const struct world *w);

/* Actions.  world_pool_join: an empty GPU joins the pool (SIM_ESTATE if it
** has tenants).  world_pool_leave: an idle pool GPU (no load, no transfer)
** leaves it, dropping its cache (SIM_ESTATE otherwise).  world_pool_serve:
** a pending service is served by the pool from now on.
** world_pool_set_mode: how missing models are loaded (before any join). */
int world_pool_join(struct world *w, int g, struct sim_err *err);
int world_pool_leave(struct world *w, int g, struct sim_err *err);
int world_pool_serve(struct world *w, int j, struct sim_err *err);
int world_pool_set_mode(struct world *w, enum world_load_mode mode,
			struct sim_err *err);
/* Starts loading m into pool GPU g's cache without a request (prefetch);
** SIM_ESTATE when g is not in the pool or busy, SIM_ENOSPC when it cannot
** fit even after evicting every idle model. */
int world_load_model(struct world *w, int g, const struct zoo_model *m,
		     struct sim_err *err);
/* Drops resident model m from GPU g's cache; SIM_ESTATE if it is loading
** or in use, SIM_ENOENT if absent. */
int world_evict_model(struct world *w, int g, const struct zoo_model *m,
		      struct sim_err *err);

/* ---- fractional GPUs and host resources (sim/world/world_frac.c) ----------
** (docs/MODEL.md, "Fractional GPUs".)  A node has host CPU (millicores)
** and memory (MiB) from the cluster spec (cpus=N:mem_gb=X; 0 when not
** given: not modelled, never a constraint).  A share placement
** (world_place_share) holds a training job's gpu_share, in thousandths,
** of each of its GPUs, all on one node, plus its cpu_milli and
** host_mem_mib of that node, until it leaves; a CPU-only job (0 GPUs)
** holds the node's CPU and memory alone. */

struct world_node {
	int node;
	int gpu, ngpus;                   /* its GPUs: gpu .. gpu + ngpus - 1 */
	int64_t cpu_milli, cpu_free_milli;  /* 0, 0: not modelled */
	int64_t mem_mib, mem_free_mib;    /* 0, 0: not modelled */
	int64_t rank;                     /* tie-break rank (node_rank) */
	uint64_t version;                 /* bumped at every share placement
					     or release on the node */
};

int world_nnodes(const struct world *w);
/* Node n into *out; 0, or SIM_EINVAL for no such node. */
int world_node(const struct world *w, int n, struct world_node *out);
/* Thousandths of GPU g that no share placement holds (1000 when none;
** -1 for no such GPU). */
int world_gpu_share_free(const struct world *w, int g);
/* Share placements on GPU g. */
int world_gpu_nshare(const struct world *w, int g);
/* Thousandths of GPUs held by share placements, cluster-wide. */
int64_t world_share_alloc_milli(const struct world *w);
/* The node of job j's share placement while it holds one, else -1. */
int world_job_node(const struct world *w, int j);
/* A job's gpu_share in thousandths (rounded; 0 for a CPU-only job). */
int world_job_share_milli(const struct world *w, int j);

/*
** Places pending training job j on node `node` as a share placement: the
** n GPUs (n == its gpus, all on that node; 0 for a CPU-only job) each give
** it gpu_share of their compute (MPS SM cap = share) and the same share of
** their memory (its allocation, whatever the model's footprint), and the
** node its cpu_milli and host_mem_mib.  A GPU must be in MPS mode (or
** exclusive, empty, for a whole-GPU share) and hold no tenant placed
** otherwise.  SIM_ENOSPC (not fatal, nothing changed) when a GPU's free
** share or the node's free CPU or memory does not cover the request;
** SIM_ESTATE when the job is not pending (or swapped) or a GPU is in
** another mode or holds other tenants; SIM_EINVAL otherwise.
*/
int world_place_share(struct world *w, int j, int node, const int *gpus,
		      int n, struct sim_err *err);

/* ---- swapping (sim/world/world_swap.c; docs/MODEL.md, "Swapping") ---------- */

/* Starts swapping running training job j out: it stops computing at once
** (progress kept), and each of its GPUs copies the job's state (its
** allocation, at most its footprint's trough) to host memory over that
** GPU's D2H link (the link model, models/link.h: pinned rate and PCIe
** latency of the device profile, shared max-min with other swap copies).
** Memory stays held until the last copy ends; then the job is PREEMPTED
** with `swapped` set, back in the pending queue at its arrival place, and
** a scheduling pass follows.  SIM_ESTATE for a job not running, a service
** or a copy already in flight; SIM_EINVAL for no such job. */
int world_swap_out(struct world *w, int j, struct sim_err *err);

/* Places swapped job j (as world_place, same arguments and refusals) and
** copies its state back over each GPU's H2D link; the job holds its memory
** but computes nothing until the last copy ends (SWAPPING_IN, then
** RUNNING).  world_place of a swapped job calls this.  SIM_ESTATE when j
** is not swapped out. */
int world_swap_in(struct world *w, int j, const int *gpus, int n,
		  const struct world_place_opts *o, struct sim_err *err);

/* The bytes a swap of job j copies over GPU g's host link for an
** allocation of alloc_bytes: min(alloc_bytes, the footprint's trough). */
uint64_t world_swap_bytes(const struct world *w, int j, int g,
			  uint64_t alloc_bytes);

#endif
