/*
** policy.h: the whole contract between colosim and a policy.
**
** A policy file includes this header and nothing else of colosim (the C
** library aside; tests/layering/edges.txt enforces it).  What it sees:
**
**   - the ops table (struct pol_ops) it fills, listed once in
**     policies/registry.c (a static NULL-terminated table, as Lua's
**     luaL_Reg or ROSS's tw_lptype);
**   - the parameter table (struct pol_param_def) it declares: the engine
**     checks the user's parameters against it and writes their values into
**     the policy's state before xInit;
**   - the read-only view of the world: small structs returned BY VALUE
**     (struct pol_job_info, pol_gpu_info, pol_tenant_info, ...), never a
**     pointer into the world's own arrays;
**   - the actions (pol_place, pol_preempt, ...), which validate every
**     request and return a SIM_E* code instead of corrupting state;
**   - its own random stream (pol_rng).
**
** The view and the actions are implemented in sim/world/view.c, the
** parameter engine in sim/world/polparam.c, the registry in
** policies/registry.c.  Start from policies/template.c; docs/POLICIES.md
** explains every hook, call and action.
**
** Lifetimes.  A struct returned by value is the caller's copy.  A string
** in one (`zModel`, `zDevice`, `zName`) points to the model zoo or the
** device catalog and lives as long as the world.  A tenant walk
** (pol_tenants) is valid until the policy's next action; the pending walk
** holds no pointer.  Nothing a policy receives points into memory the
** world moves.
**
** Versioning (as sqlite3_module): fields are only ever appended.  A policy
** states the interface version it was written for in iVersion; the engine
** refuses a table whose version is newer than POL_IFACE_VERSION and never
** reads fields past the ones that version had.
**   1  the hooks; parameters read by hand in xInit (pol_param_* below).
**   2  aParam: the declarative parameter table, checked and filled by the
**      engine; the pol_* view, actions and random stream of this header
**      (version 1 policies read sim/world/world.h directly).
**   3  fractional GPUs and host resources: the jobs' share, CPU and host
**      memory (pol_job_info's version 3 fields), the nodes (pol_node),
**      the GPUs' free share (pol_gpu_info's), share placements
**      (pol_place_share), a trace's rows (pol_trace_rows); CPU-only jobs
**      (0 GPUs), which the world fails at arrival under an older policy.
**   4  xOnQueue (a job entered the pending queue) and szJob
**      (pol_job_priv, a policy's state per job); the world's GPU
**      indexes (pol_gpus_idle, pol_gpu_next_fit, pol_gpu_order_first,
**      ..., "indexes" below) and the GPUs changed since the last pass;
**      ordered sets for a policy's own indexes (sim/oset.h).
**   5  pol_job_info's iterations and elastic range (min_gpus, max_gpus).
**   6  elastic jobs: pol_resize (a running job's GPUs through a
**      checkpoint-restart), pol_place of an elastic job at any count of
**      its range, pol_job_total_at (the goodput model's run time at n
**      GPUs), pol_job_info's gpus0, resizes, restart_end_ns, noise_scale.
**   7  a finished training job's record is released after the
**      scheduling pass that follows its end (xOnFinish and that pass
**      still see all of it): memory follows the active jobs, not the
**      trace.  From then on pol_job(j) gives its index, kind, state,
**      model, batch, GPUs, gpu_share, priority, submit/start/end,
**      fraction left, preemptions and swaps, every other field 0 (placed
**      nowhere; trace-only fields such as iter_ns, res_ms, iterations,
**      the elastic range and the host resources 0), pol_job_priv NULL,
**      and every action refuses it (SIM_ESTATE) as for any finished job.
**      pol_njobs still counts every job that arrived; indices never go
**      away, and pol_job_state answers for every one.
**   8  pol_pool_route: DistMind's request routing from the pool's
**      indexes (O(log G) a request, not a scan of the GPUs);
**      pol_pool_size and pol_pool_busy_total_ns (no scan of the GPUs
**      for a re-assignment).
**   9  released jobs are known by their index, kind and state alone,
**      whatever the policy's version: a finished training job or
**      service is released after the scheduling pass that follows its
**      end (xOnFinish and that pass still see all of it, as in version
**      7).  From then on pol_job(j) gives job j, its kind and state,
**      start_ns, end_ns and node -1, zModel "", every other field 0;
**      every per-job query answers as for no such job (pol_job_mem 0,
**      pol_job_profile zeros, pol_probe_mps SIM_EINVAL, ...),
**      pol_job_priv NULL, pol_svc_window and every action refuse it
**      (SIM_ESTATE).  pol_job_state answers for every job.  So a
**      metrics-only world (colosim replay) keeps nothing of a released
**      job but a byte, and a policy sees the same in every world.  No
**      built-in policy read more of a released job (docs/POLICIES.md).
**  10  the node indexes pol_node_idle, pol_node_next_idle and
**      pol_node_next_whole (a node-consolidated placement finds its node
**      in O(log N), not a count of every GPU).
**
** A hook returns 0, or a negative SIM_E* code that stops the run (after
** filling err), for broken invariants only: a placement that does not fit
** is an ordinary, non-fatal answer (SIM_ENOSPC from pol_place).
** Every hook except xSchedule is optional (NULL).
*/
#ifndef COLOSIM_POLICIES_POLICY_H
#define COLOSIM_POLICIES_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"
#include "sim/oset.h"
#include "sim/rng.h"
#include "sim/time.h"

#define POL_IFACE_VERSION 10

struct world;

/* ---- parameters as the user gave them --------------------------------- */

/* One `key = value` parameter from [policy.NAME] or --param key=value. */
struct pol_param {
	const char *key;
	const char *value;
	const char *origin;           /* "demo.ini:14" or "--param" */
};

/* The parameters of one run; borrowed by world_create, so every pointer
** in them lives until xInit returns.  A key given twice: the last wins
** (--param overrides the config file). */
struct pol_params {
	size_t n;
	const struct pol_param *v;
};

/* ---- the parameter table a policy declares ------------------------------ */

enum pol_ptype {
	POL_PDOUBLE = 0,              /* a finite number in [lo, hi]: double */
	POL_PINT,                     /* an integer in [lo, hi]: int */
	POL_PBOOL,                    /* 0 or 1: int */
	POL_PCHOICE,                  /* one of azChoice (case-insensitive):
					 int, the index of the choice */
	POL_PSTRING                   /* any text: const char *, valid until
					 xInit returns (copy what you keep) */
};

/*
** One parameter: its key, type, range, default, help, and where its value
** goes in the policy's state block (iOffset, from offsetof).  zDefault is
** written as a user would write the value ("0.05", "fifo"); it is parsed
** and range-checked like one.  A NULL zDefault is allowed for strings only
** (the field is then NULL).  A table ends with POL_PARAM_END.
** Build rows with the POL_PARAM_* macros below: they check at compile time
** that the state field has the type the parameter writes.
*/
struct pol_param_def {
	const char *zKey;
	enum pol_ptype eType;
	double lo, hi;                /* POL_PDOUBLE / POL_PINT: inclusive */
	const char *const *azChoice;  /* POL_PCHOICE: NULL-ended names */
	const char *zDefault;
	const char *zHelp;            /* one line for `colosim list policies
					 NAME` and docs/POLICIES.md */
	size_t iOffset;               /* offsetof(state, field) */
};

/* 0, plus a compile-time check that field of state type T has type C
** (comparing distinct pointer types is a constraint violation). */
#define POL__FIELD(T, field, C) \
	(offsetof(T, field) + 0 * sizeof(&((T *)0)->field == (C *)0))

#define POL_PARAM_DOUBLE(key, T, field, lo_, hi_, def, help)             \
	{ .zKey = (key), .eType = POL_PDOUBLE, .lo = (lo_), .hi = (hi_),  \
	  .zDefault = (def), .zHelp = (help),                             \
	  .iOffset = POL__FIELD(T, field, double) }
#define POL_PARAM_INT(key, T, field, lo_, hi_, def, help)                \
	{ .zKey = (key), .eType = POL_PINT, .lo = (lo_), .hi = (hi_),     \
	  .zDefault = (def), .zHelp = (help),                             \
	  .iOffset = POL__FIELD(T, field, int) }
#define POL_PARAM_BOOL(key, T, field, def, help)                         \
	{ .zKey = (key), .eType = POL_PBOOL, .lo = 0, .hi = 1,            \
	  .zDefault = (def), .zHelp = (help),                             \
	  .iOffset = POL__FIELD(T, field, int) }
#define POL_PARAM_CHOICE(key, T, field, choices, def, help)              \
	{ .zKey = (key), .eType = POL_PCHOICE, .azChoice = (choices),     \
	  .zDefault = (def), .zHelp = (help),                             \
	  .iOffset = POL__FIELD(T, field, int) }
#define POL_PARAM_STRING(key, T, field, def, help)                       \
	{ .zKey = (key), .eType = POL_PSTRING, .zDefault = (def),         \
	  .zHelp = (help), .iOffset = POL__FIELD(T, field, const char *) }
#define POL_PARAM_END { .zKey = NULL }

/* ---- the ops table ------------------------------------------------------- */

struct pol_ops {
	int iVersion;                 /* POL_IFACE_VERSION the policy targets */
	const char *zName;            /* unique, lower-case: "timeslice" */
	const char *zDesc;            /* one line for `colosim list policies` */
	size_t szState;               /* private state, allocated and zeroed */

	/* Runs once, after the engine has written every parameter of aParam
	** (given or default) into state.  Derives what it needs from them
	** (cross-parameter checks: pol_param_origin names the line), sets
	** GPU modes and MIG layouts while GPUs are empty, arms timers.  p is
	** what the user gave (version 1: read and check it by hand). */
	int (*xInit)(struct world *w, void *state, const struct pol_params *p,
		     struct sim_err *err);
	/* Frees what xInit allocated (not the state block itself).  Called
	** after a failed xInit too: it must accept a partly initialised
	** state (the block starts zeroed, so free() of every pointer is). */
	void (*xFini)(struct world *w, void *state);
	/* A job or service arrived and is pending (a scheduling pass follows). */
	int (*xOnArrival)(struct world *w, void *state, int job);
	/* A job finished or a service ended (a scheduling pass follows). */
	int (*xOnFinish)(struct world *w, void *state, int job);
	/* Routes one request of service `job` to a replica index in
	** [0, replicas) (a pooled service: a GPU index); leave *replica at -1
	** for the default (the replica with the shortest queue; pooled: the
	** pool's queue). */
	int (*xOnRequest)(struct world *w, void *state, int job, int *replica);
	/* A timer armed with pol_set_timer fired. */
	int (*xOnTimer)(struct world *w, void *state, uint64_t tag);
	/* Required: place pending work.  Runs once per instant at which
	** anything arrived, finished or was preempted, after those events. */
	int (*xSchedule)(struct world *w, void *state);

	/* ---- version 2 ---- */
	/* The parameters, ending with POL_PARAM_END; NULL: none.  Any key not
	** in it is an error naming its origin. */
	const struct pol_param_def *aParam;

	/* ---- version 4 ---- */
	/* Job j entered the pending queue: it arrived (after xOnArrival),
	** was preempted, or its swap-out ended (a scheduling pass follows).
	** Runs inside the action that put it there when that is the
	** policy's own (pol_preempt).  For a policy that keeps its own index
	** of the pending jobs; a job leaves the queue only by the policy's
	** actions (placed, failed, served by the pool) or by finishing. */
	int (*xOnQueue)(struct world *w, void *state, int job);
	/* Bytes of private state per job (pol_job_priv), allocated zeroed
	** on first use and freed with the job's record; 0: none. */
	size_t szJob;
};

/* For a policy whose name is a C identifier (the template's recipe): the
** ops table's symbol pol_NAME and the name as a string, from the one
** token the copier renames. */
#define POL_OPS_SYMBOL(name) POL__CAT(pol_, name)
#define POL_NAME_STRING(name) POL__STR(name)
#define POL__CAT(a, b) a##b
#define POL__STR(x) #x

/* ---- plugins: policies built outside colosim ------------------------------
** A plugin is a shared object built against this header alone (cc -shared
** -fPIC; `pkg-config --cflags colosim-policy` after `make install`) that
** exports one function, named POL_PLUGIN_SYMBOL:
**
**     const struct pol_ops *const *colosim_policy_plugin(int iHostVersion);
**
** It returns the plugin's ops tables, NULL-terminated; they must live as
** long as the plugin is loaded (static tables do).  iHostVersion is the
** loading colosim's POL_IFACE_VERSION, for a plugin that wants to refuse
** or adapt.  Write it with POL_PLUGIN(&pol_NAME, ...) after the tables,
** and build with -fvisibility=hidden: the colosim binary exports its own
** symbols (pol_template, pol_find, ...), and a plugin's global of the
** same name would otherwise bind to colosim's instead of its own.
** `colosim replay|run|list --plugin FILE.so` (or a config's `plugins`
** key) loads it with dlopen and checks it before use (a stamp other
** than this colosim's, below; a table's interface version newer than
** this colosim's, a name a built-in or another plugin has, the
** template's name or description, a broken parameter table: each is
** refused with one line naming the file).
** Loading a plugin runs its code with colosim's rights.  The view and the
** actions a plugin calls resolve against the colosim binary that loads it
** (it is linked with -rdynamic).  docs/POLICIES.md, "Plugins".
**
** POL_PLUGIN also exports POL_PLUGIN_IFACE_SYMBOL, the POL_IFACE_VERSION
** of the policy.h the plugin was compiled against.  The view returns
** structures by value (pol_job, pol_gpu) that grow with the interface
** (version 3 appended fields), so a plugin compiled against another
** policy.h would exchange structures of another size: colosim refuses
** one whose stamp is missing or differs from its own.
*/
#define POL_PLUGIN_SYMBOL "colosim_policy_plugin"
#define POL_PLUGIN_IFACE_SYMBOL "colosim_policy_plugin_iface"

typedef const struct pol_ops *const *(*pol_plugin_fn)(int iHostVersion);

#if defined(__GNUC__)
#define POL__EXPORT __attribute__((visibility("default")))
#else
#define POL__EXPORT
#endif
#define POL_PLUGIN(...)                                                  \
	POL__EXPORT extern const int colosim_policy_plugin_iface;        \
	POL__EXPORT const int colosim_policy_plugin_iface =              \
		POL_IFACE_VERSION;                                       \
	POL__EXPORT const struct pol_ops *const *                        \
	colosim_policy_plugin(int iHostVersion);                         \
	POL__EXPORT const struct pol_ops *const *                        \
	colosim_policy_plugin(int iHostVersion)                          \
	{                                                                \
		static const struct pol_ops *const aList[] = {           \
			__VA_ARGS__, NULL };                             \
		(void)iHostVersion;                                      \
		return aList;                                            \
	}

/* ---- the registry (policies/registry.c) ---------------------------------- */

/* Every registered policy, NULL-terminated. */
extern const struct pol_ops *const pol_registry[];

/* The copy-me policy (policies/template.c): run by the conformance suite,
** not registered. */
extern const struct pol_ops pol_template;

/* Looks a registered policy up by name (case-insensitive); NULL if unknown.
** The table is static: it lives as long as the program. */
const struct pol_ops *pol_find(const char *name);

/* "exclusive, timeslice, ..." into buf, for "unknown policy" errors. */
void pol_names(char *buf, size_t n);

/*
** Checks a registry (NULL-terminated) as the conformance suite does: every
** entry complete (name, description, xSchedule, a version this colosim
** knows, a well-formed parameter table: pol_param_table_check), names
** lower-case and unique (case-insensitively, as pol_find compares them),
** and no entry but tmpl itself named as tmpl or described as it (a copy
** of the template that kept its name or its description).  0, or
** SIM_EEXIST / SIM_EINVAL with the first fault in err.
*/
int pol_registry_check(const struct pol_ops *const *reg,
		       const struct pol_ops *tmpl, struct sim_err *err);

/* ---- the parameter engine (sim/world/polparam.c) ------------------------- */

/*
** Checks parameters p against ops's table without running anything: every
** key known, every value well-formed and in range.  Errors (SIM_EINVAL)
** name the origin ("demo.ini:14"), the key, the value and what was
** expected ("a number in [0, 0.5]"), or list the known keys.  A version 1
** policy checks its own parameters in xInit: this returns 0 for it.
** Cross-parameter rules a policy checks in xInit are not seen here.
*/
int pol_params_validate(const struct pol_ops *ops, const struct pol_params *p,
			struct sim_err *err);

/* pol_params_validate, then writes every parameter of the table (given, or
** its default) into the state block (of ops->szState bytes).  The engine
** calls it before xInit; 0 or SIM_EINVAL. */
int pol_params_fill(const struct pol_ops *ops, const struct pol_params *p,
		    void *state, struct sim_err *err);

/* Checks a table's own form: keys unique and non-empty, a known type,
** lo <= hi, choices present, help present, and every default parses and
** lies in range.  0 or SIM_EINVAL naming policy and key. */
int pol_param_table_check(const char *policy, const struct pol_param_def *t,
			  struct sim_err *err);

/* Where the user set `key` ("demo.ini:14", "--param"), or NULL when it was
** not given (the default applies).  Points into p: lives as long as p. */
const char *pol_param_origin(const struct pol_params *p, const char *key);

/* "number", "integer", "bool", "choice", "string". Static. */
const char *pol_ptype_name(enum pol_ptype t);

/* The range of a parameter as docs/POLICIES.md and `colosim list policies
** NAME` print it: "[0, 0.5]", "[1, 16]", "0, 1", "fifo, sjf, srtf",
** "any"; into buf (truncated at n). */
void pol_param_range(const struct pol_param_def *d, char *buf, size_t n);

/*
** Version 1 helpers (hand-read parameters; a version 2 policy uses its
** table instead).  pol_params_check fails with SIM_EINVAL naming the
** origin and the allowed keys when a key is not in `allowed` (NULL-ended).
** The getters return 0 and leave *out untouched when the key is absent, or
** SIM_EINVAL naming origin, key and the expected form when malformed.
*/
int pol_params_check(const struct pol_params *p, const char *policy,
		     const char *const *allowed, struct sim_err *err);
int pol_param_str(const struct pol_params *p, const char *key,
		  const char **out);
int pol_param_double(const struct pol_params *p, const char *key,
		     double lo, double hi, double *out, struct sim_err *err);
int pol_param_int(const struct pol_params *p, const char *key, long lo,
		  long hi, long *out, struct sim_err *err);
/* One of the NULL-ended choices; *out is its index. */
int pol_param_choice(const struct pol_params *p, const char *key,
		     const char *const *choices, int *out,
		     struct sim_err *err);

/* ---- the view: what a policy may read (sim/world/view.c) ------------------
** Every call takes the world the hook was given and returns a value (or
** fills a caller's struct): nothing returned points into the world's
** arrays.  Indices: jobs 0..pol_njobs()-1 in arrival order, GPUs
** 0..pol_ngpus()-1 node by node, device kinds 0..pol_ndevs()-1.  An index
** out of range gives a zeroed struct with its index field -1. */

/* POL_LLM: an LLM service (its replicas' engines run in iterations; its
** `gpus` are replicas x tensor-parallel degree: pol_llm_window). */
enum pol_job_kind { POL_TRAIN = 0, POL_INFER = 1, POL_LLM = 2 };

/* Lifecycle (sim/world/world.h): PENDING -> RUNNING -> DONE; RUNNING ->
** PREEMPTED -> RUNNING ...; PENDING -> FAILED; with swapping, RUNNING ->
** SWAPPING_OUT -> PREEMPTED (swapped) -> SWAPPING_IN -> RUNNING. */
enum pol_job_state {
	POL_JOB_PENDING = 0,
	POL_JOB_RUNNING,
	POL_JOB_PREEMPTED,
	POL_JOB_DONE,
	POL_JOB_FAILED,
	POL_JOB_SWAPPING_OUT,
	POL_JOB_SWAPPING_IN
};

enum pol_gpu_mode {
	POL_GPU_EXCLUSIVE = 0,        /* one tenant */
	POL_GPU_TIMESLICE,            /* tenants take turns */
	POL_GPU_MPS,                  /* SM shares, water-filled */
	POL_GPU_MIG,                  /* fixed slices */
	POL_GPU_INTERLEAVE            /* up to 4 tenants take turns on CPU, GPU
					 and network (docs/MODEL.md,
					 "Multi-resource interleaving") */
};

/* A job or service as the policy sees it. */
struct pol_job_info {
	int job;                      /* its index; -1: no such job */
	enum pol_job_kind kind;
	enum pol_job_state state;
	const char *zModel;           /* zoo name ("resnet50"); world lifetime */
	uint64_t model_params;        /* the model's parameter count */
	int batch;                    /* train: per-GPU batch; infer: max batch
					 of the trace */
	int gpus;                     /* GPUs it asks for (replicas) */
	double gpu_share;             /* the trace's share of each GPU, (0, 1] */
	int priority;                 /* higher is more important */
	sim_time submit_ns;           /* when it arrived */
	sim_time start_ns, end_ns;    /* -1 until known */
	sim_time slo_ns;              /* services: latency SLO; 0: none */
	int poisson;                  /* services: 1 if requests arrive as a
					 Poisson process at rate_per_s */
	double rate_per_s;            /* services: the trace's rate */
	double frac_left;             /* training: fraction left, settled at
					 its last placement change (1 -> 0) */
	int preemptions;              /* times taken off its GPUs */
	int swapped;                  /* PREEMPTED with its state in host
					 memory: placing it pays the copy in */
	int swaps;                    /* swap-outs so far */
	int nplaced;                  /* GPUs it holds now (pol_job_tenant) */
	uint64_t alloc_bytes;         /* its allocation per GPU now (the
					 first GPU's); 0 when not placed */
	/* ---- version 3 ---- */
	int share_milli;              /* gpu_share in thousandths, 1..1000;
					 0 for a CPU-only job (gpus 0) */
	int64_t cpu_milli;            /* host CPU it asks for, millicores */
	int64_t host_mem_mib;         /* host memory it asks for, MiB */
	int node;                     /* the node of its share placement
					 while it holds one; -1 */
	/* training: the trace's per-resource times of one iteration (CPU /
	** data, GPU, network; has_res 0: not given) and its iteration time
	** (0: not given, the workload model's) */
	int has_res;
	double res_ms[3];
	sim_time iter_ns;
	/* ---- version 4 ---- */
	int64_t iterations;           /* training: the trace's iterations (0:
					 it gives a duration instead) */
	int min_gpus, max_gpus;       /* the trace's elastic range; 0, 0: not
					 elastic (docs/TRACE_FORMAT.md) */
	/* ---- version 6 ---- */
	int gpus0;                    /* the trace's gpus (gpus above is an
					 elastic job's count now) */
	int resizes;                  /* pol_resize calls done on it */
	sim_time restart_end_ns;      /* RUNNING but restarting (no
					 progress) until then; 0: not */
	double noise_scale;           /* training: its gradient noise scale
					 in samples (the trace's, else its
					 model's; docs/MODEL.md) */
};

/* One GPU. */
struct pol_gpu_info {
	int gpu;                      /* its index; -1: no such GPU */
	int node;
	int dev;                      /* device kind (pol_dev) */
	const char *zDevice;          /* "a100-80gb"; world lifetime */
	enum pol_gpu_mode mode;
	uint64_t hbm_bytes;           /* capacity */
	uint64_t mem_used;            /* allocated by its tenants (may pass
					 capacity when oversubscribed) */
	uint64_t mem_free;            /* capacity - used, 0 when over */
	int ntenants, nbusy;          /* attached, and computing now */
	int nslices;                  /* MIG slices (pol_gpu_slice) */
	int sms;
	/* ---- version 3 ---- */
	int share_free_milli;         /* thousandths no share placement
					 holds (1000 when none) */
	int nshare;                   /* share placements on it */
};

/* One node (version 3): its GPUs are gpu .. gpu + ngpus - 1. */
struct pol_node_info {
	int node;                     /* its index; -1: no such node */
	int gpu, ngpus;
	int dev;                      /* its GPUs' device kind */
	int64_t cpu_milli, cpu_free_milli;   /* host CPU; 0, 0: not
					 modelled (the cluster gives none):
					 never a constraint */
	int64_t mem_mib, mem_free_mib;       /* host memory, likewise */
	int64_t rank;                 /* tie-break rank (the experiment's
					 node order; default the index):
					 lower first among equals */
	uint64_t version;             /* grows at every share placement or
					 release on the node: a policy may
					 cache what it derived from it */
};

/* One MIG slice of a GPU. */
struct pol_slice_info {
	int slice;                    /* its index; -1: no such slice */
	const char *zProfile;         /* "1g.10gb"; world lifetime */
	uint64_t hbm_bytes, mem_used, mem_free;
	double sm_frac;               /* its share of the GPU's SMs */
};

/* One tenant: a job's presence on one GPU (or MIG slice). */
struct pol_tenant_info {
	int job;                      /* job index; -1: a pool executor */
	int gpu;
	int slice;                    /* MIG slice, -1 for the whole GPU */
	uint64_t mem_bytes;           /* its allocation */
	double sm_cap;                /* MPS share (0, 1] */
	int busy;                     /* computing a work unit now */
	double speed;                 /* current speed, 1 = solo; 0 idle */
};

/* A device kind of the cluster (GPUs of one profile). */
struct pol_dev_info {
	int dev;                      /* its index; -1: no such kind */
	const char *zName;            /* "a100-80gb"; world lifetime */
	int gpu;                      /* its lowest GPU index: ask job-on-
					 device questions (pol_job_mem, ...)
					 of it */
	int ngpus;                    /* GPUs of this kind */
	uint64_t hbm_bytes;
	int sms;
	uint64_t ctx_bytes;           /* a CUDA context's memory */
	double h2d_bytes_per_s;       /* pinned host-to-device copy rate */
	double d2h_bytes_per_s;
	double nvlink_bytes_per_s;    /* 0: none */
	int nmig;                     /* MIG profiles (pol_dev_mig) */
};

/* One MIG profile of a device kind. */
struct pol_mig_info {
	int profile;                  /* its index; -1: none */
	const char *zName;            /* "1g.10gb"; world lifetime */
	int max_count;                /* how many fit on one GPU */
	int sms;
	uint64_t hbm_bytes;
};

/* A job's memory over one iteration on one device. */
struct pol_footprint {
	uint64_t peak_bytes;          /* what pol_job_mem returns */
	uint64_t trough_bytes;        /* between iterations */
	double peak_frac;             /* fraction of time near the peak */
};

/* A job's work profile on one device (DESIGN.md, the fluid model). */
struct pol_work_profile {
	double alpha;                 /* compute-bound fraction of solo time */
	double sat;                   /* SM fraction it can use, (0, 1] */
	double bw_frac;               /* HBM bandwidth demand / peak */
	double duty;                  /* GPU-busy fraction of its solo time,
					 (0, 1]; the rest is host-side time
					 (input pipeline, launches) that
					 co-runners can fill; 1: always busy
					 (docs/MODEL.md, "Duty cycles") */
};

sim_time pol_now(const struct world *w);
int pol_njobs(const struct world *w);
int pol_ngpus(const struct world *w);
int pol_nnodes(const struct world *w);
int pol_ndevs(const struct world *w);

/* Job j's private state of szJob bytes (version 4), zeroed on first use;
** NULL when szJob is 0, for no such job, or when out of memory.  Lives as
** long as the job's record: while the job is live, through its xOnFinish
** and the pass that follows; a finished job's is freed after (version 7:
** then NULL; world.h, world_job). */
void *pol_job_priv(const struct world *w, int j);
/* Job j (any state), by value; a finished job's record released, the
** fields version 7 lists (the rest 0). */
struct pol_job_info pol_job(const struct world *w, int j);
/* Its state alone: pol_job(w, j).state without the copy, for loops over
** every job (-1: no such job). */
int pol_job_state(const struct world *w, int j);
/* Its GPUs placed on alone: pol_job(w, j).nplaced without the copy, for
** loops over jobs (0: no such job, or a released one). */
int pol_job_nplaced(const struct world *w, int j);
/* Where job j runs: its k-th tenant, 0 <= k < nplaced, by value. */
struct pol_tenant_info pol_job_tenant(const struct world *w, int j, int k);

/* GPU g, by value; its slice s; its free memory (slice -1: the GPU). */
struct pol_gpu_info pol_gpu(const struct world *w, int g);
/* Its tenants alone: pol_gpu(w, g).ntenants without the copy, for loops
** over every GPU (0: no such GPU). */
int pol_gpu_ntenants(const struct world *w, int g);
struct pol_slice_info pol_gpu_slice(const struct world *w, int g, int s);
uint64_t pol_gpu_free(const struct world *w, int g, int slice);

/* Node n, by value (version 3). */
struct pol_node_info pol_node(const struct world *w, int n);

/* Device kind d and its MIG profile k, by value. */
struct pol_dev_info pol_dev(const struct world *w, int d);
struct pol_mig_info pol_dev_mig(const struct world *w, int d, int k);

/*
** A walk over GPU g's tenants in attach order:
**     struct pol_tenant_walk it = pol_tenants(w, g);
**     struct pol_tenant_info t;
**     while (pol_tenant_next(w, &it, &t)) ...
** O(1) a step.  Valid until the policy's next action: finish the walk (or
** drop it) before changing the world.  `at` is opaque.
*/
struct pol_tenant_walk {
	int gpu;
	int started;
	const void *at;
};
struct pol_tenant_walk pol_tenants(const struct world *w, int g);
/* Fills *out with the next tenant and returns 1, or returns 0 at the end. */
int pol_tenant_next(const struct world *w, struct pol_tenant_walk *it,
		    struct pol_tenant_info *out);

/* Pending (and preempted) jobs in arrival order (a preempted job rejoins
** at the end, a swapped one at its arrival place; a job whose swap copy is
** in flight is in neither).  pol_pending_at: -1 out of range. */
int pol_npending(const struct world *w);
int pol_pending_at(const struct world *w, int k);

/*
** The walk of the pending queue that placements shrink:
**     struct pol_pending_walk it = POL_PENDING_WALK;
**     int j;
**     while ((j = pol_pending_next(w, &it)) >= 0)
**             ... place j, fail it, or leave it waiting ...
** Each job is visited once, in queue order: a job the loop body removed
** from the queue (placed, failed, served by the pool) is not skipped over,
** one it left waiting is passed.  Holds no pointer: valid across actions.
*/
struct pol_pending_walk {
	int k;                        /* position of the last job returned */
	int job;                      /* the last job returned; -1 at first */
};
#define POL_PENDING_WALK { .k = 0, .job = -1 }
/* The next pending job, or -1 at the end. */
int pol_pending_next(const struct world *w, struct pol_pending_walk *it);

/* Job j's per-GPU memory footprint on GPU g's device (the trace's figure
** when it gives one, else the workload model's peak). */
uint64_t pol_job_mem(const struct world *w, int j, int g);
/* Job j's memory over an iteration on GPU g's device, by value (services
** and trace-given memory: flat, peak_frac 1). */
struct pol_footprint pol_job_footprint(const struct world *w, int j, int g);
/* Job j's remaining solo time on GPU g's device, in ns (training; for a
** running job, as of now at its workers' current speeds, the slowest
** worker's); for a service, the solo time of one full batch. */
double pol_job_remaining_ns(const struct world *w, int j, int g);
/* 1 if job j could run on an empty cluster under exclusive use: enough
** GPUs whose memory holds its footprint. */
int pol_job_fits_empty(const struct world *w, int j);
/* Version 6.  Training job j's whole solo run time in ns on n GPUs of GPU
** g's device, placed consolidated (from the first GPU of g's node on):
** for an elastic job at a count other than its trace's, the goodput
** model's (docs/MODEL.md, "Goodput of elastic jobs"); -1 for a service
** or n beyond the cluster.  Its remaining time is frac_left times it. */
double pol_job_total_at(const struct world *w, int j, int g, int n);
/* Job j's work profile on GPU g's device (training: one iteration at its
** batch; service: one batch of its trace's max batch), by value. */
struct pol_work_profile pol_job_profile(const struct world *w, int j, int g);
/* The solo time of job j's work unit on GPU g's device, in ns: one
** iteration (workload model, no all-reduce) or one full batch. */
sim_time pol_job_unit_ns(const struct world *w, int j, int g);
/*
** Probes the MPS model with job j alone on a scratch GPU of GPU g's
** device, running one unit at max batch `batch` (services; training: its
** batch): speed[0] is its speed on the whole GPU, speed[p] (1 <= p <= n)
** after its share is set to p / n.  The world is untouched.  0, or
** SIM_EINVAL (no such job or GPU, n < 1) / SIM_ENOSPC (it does not fit).
*/
int pol_probe_mps(const struct world *w, int j, int g, int batch, int n,
		  double *speed);
/* Requests queued at replica r of service j (-1: not yet placed). */
int pol_queue_len(const struct world *w, int j, int r);
/* The bytes a swap of job j copies over GPU g's host link for an
** allocation of alloc_bytes: min(alloc_bytes, the footprint's trough). */
uint64_t pol_swap_bytes(const struct world *w, int j, int g,
			uint64_t alloc_bytes);

/* What service j did since its window was last reset (or it arrived). */
struct pol_svc_window {
	sim_time t0_ns, len_ns;       /* window start and length */
	uint64_t arrivals;            /* requests that arrived */
	uint64_t served;              /* requests completed */
	uint64_t slo_miss;            /* completed later than the SLO */
	double lat_p99_ms, lat_max_ms, lat_mean_ms;   /* of those served */
	/* batches completed, and the sums a least-squares fit of execution
	** time on batch size needs: sum b, sum b^2, sum t, sum b t */
	uint64_t batches;
	double batch_sum, batch_sum2, exec_sum_ms, bexec_sum_ms;
	int max_batch;                /* the current max batch */
	int replicas;                 /* placed replicas (0: pending) */
	uint64_t queued;              /* requests waiting now, all queues */
};
/* Fills *out (the caller's) for service j.  Sorts the window's sample for
** its quantile, hence the non-const world.  0 or SIM_EINVAL. */
int pol_svc_window(struct world *w, int j, struct pol_svc_window *out,
		   struct sim_err *err);
/* Starts a new window for service j now. */
int pol_svc_window_reset(struct world *w, int j, struct sim_err *err);

/* What LLM service j (kind POL_LLM) did since its window was last reset
** (or it arrived): docs/POLICIES.md, "LLM services". */
struct pol_llm_window {
	sim_time t0_ns, len_ns;       /* window start and length */
	uint64_t arrivals;            /* requests that arrived */
	uint64_t completed;           /* requests whose last token came */
	uint64_t tokens;              /* output tokens produced */
	uint64_t ttft_miss, tpot_miss;   /* completed over each SLO */
	double ttft_p99_ms;           /* of the first tokens produced */
	double tpot_mean_ms, tpot_p99_ms;   /* of the completed requests */
	double itl_mean_ms, itl_p99_ms;     /* every gap between two tokens */
	uint64_t iterations;          /* engine iterations ended */
	double busy_frac;             /* time its replicas spent in
					 iterations / (window x replicas) */
	uint64_t preemptions;         /* sequences preempted */
	double kv_util;               /* KV blocks in use / pool, now, mean
					 over replicas */
	uint64_t queued;              /* requests not yet running, now */
	int replicas;                 /* placed replicas (0: pending) */
	int tp;                       /* GPUs per replica */
	double slo_ttft_ms, slo_tpot_ms;    /* the service's targets */
};
/* Fills *out (the caller's) for LLM service j; sorts the window's samples
** for their quantiles, hence the non-const world.  0 or SIM_EINVAL. */
int pol_llm_window(struct world *w, int j, struct pol_llm_window *out,
		   struct sim_err *err);
/* Starts a new window for LLM service j now. */
int pol_llm_window_reset(struct world *w, int j, struct sim_err *err);

/* The GPU pool and the memory pool (docs/POLICIES.md, "DistMind"):
** memory servers; the servers holding job j's model shards (into
** servers[4], returns how many); whether GPU g is in the pool; its load
** (requests dispatched, not finished); whether it holds job j's model (0
** no, 1 loading, 2 resident); requests in the pool's queue; GPU g's
** loading or executing time so far; whether service j is pooled; loads
** finished so far. */
int pol_pool_servers(const struct world *w);
int pol_pool_shards(const struct world *w, int j, int *servers);
int pol_pool_in(const struct world *w, int g);
int pol_pool_load(const struct world *w, int g);
int pol_pool_has_model(const struct world *w, int g, int j);
int pol_pool_queued(const struct world *w);
/* Version 8.  The GPU a request of service j goes to under DistMind's
** balancer, as distmind_route (policies/distmind.h) over pol_pool_in /
** pol_pool_load / pol_pool_has_model of every GPU would answer, from the
** pool's indexes in O(log G): with `cache`, the lowest pool GPU with load
** 0 holding j's model; the lowest with load 0; with `cache`, the lowest
** with load < busy_load holding it; the least loaded (lowest index on
** ties) with load < max_load; -1: none (the request queues). */
int pol_pool_route(const struct world *w, int j, int busy_load,
		   int max_load, int cache);
/* Version 8.  The GPUs in the pool (O(1)); pol_pool_busy_ns summed over
** every GPU, modulo 2^64 (the difference of two calls is exact; O(GPUs
** busy now)). */
int pol_pool_size(const struct world *w);
uint64_t pol_pool_busy_total_ns(const struct world *w);
sim_time pol_pool_busy_ns(const struct world *w, int g);
int pol_pool_serving(const struct world *w, int j);
uint64_t pol_pool_loads(const struct world *w);

/* ---- indexes (version 4; sim/world/world_index.c) ------------------------
** The world keeps these up to date on every GPU change, so that a pass
** finds the GPUs a job can use without a scan of the cluster: each call
** is O(1) or O(log G).  "Free" is a GPU's memory not allocated
** (pol_gpu_free(w, g, -1)); "idle" a GPU with no tenant; an "empty slice"
** a MIG slice with no memory allocated.  A walk (order_first / _next,
** most_free) is valid until the policy's next action. */

/* Idle GPUs; empty MIG slices over every MIG GPU. O(1). */
int pol_gpus_idle(const struct world *w);
int pol_slices_free(const struct world *w);
/* GPU g's device kind (pol_gpu(w, g).dev without the copy); -1. */
int pol_gpu_dev(const struct world *w, int g);

enum pol_fit {
	POL_FIT_FREE = 0,             /* any GPU, by its free memory */
	POL_FIT_IDLE,                 /* idle GPUs, by their free memory */
	POL_FIT_SLICE                 /* MIG GPUs, by their largest empty
					 slice's memory */
};
/* The lowest GPU index >= from with at least `bytes` under `how`, or -1
** (first fit: g = -1; while ((g = pol_gpu_next_fit(w, g + 1, B, how))
** >= 0) ...). */
int pol_gpu_next_fit(const struct world *w, int from, uint64_t bytes,
		     enum pol_fit how);
/* The most bytes any GPU offers under `how` (0: none). */
uint64_t pol_gpu_max_fit(const struct world *w, enum pol_fit how);
/* The n-th most bytes a GPU offers under `how`, into *bytes: 1, or 0 when
** fewer than n GPUs offer any (a job of n GPUs needing more than this
** fits nowhere now).  O(n log G). */
int pol_gpu_nth_fit(const struct world *w, int n, enum pol_fit how,
		    uint64_t *bytes);

enum pol_gpu_order {
	POL_ORDER_BEST_FIT = 0,       /* least free memory first */
	POL_ORDER_LEAST_LOADED        /* fewest tenants, then most free */
};
/* The GPUs of device kind dev with at least `bytes` free in order `ord`,
** ties by lowest index: the first, and the one after g; -1 at the end.
** The order's index is built on the first call (O(G log G)). */
int pol_gpu_order_first(const struct world *w, int dev,
			enum pol_gpu_order ord, uint64_t bytes);
int pol_gpu_order_next(const struct world *w, int dev,
		       enum pol_gpu_order ord, uint64_t bytes, int g);
/* The first GPU after g in that order whose key (free memory; least
** loaded: and tenants) differs from g's: past a run of equal GPUs. */
int pol_gpu_order_skip(const struct world *w, int dev,
		       enum pol_gpu_order ord, uint64_t bytes, int g);
/* The GPUs of kind dev by free memory, most first (ties: highest index
** first): the first (before = -1), then the one after `before`. */
int pol_gpu_most_free(const struct world *w, int dev, int before);
/* Version 9.  Node n's GPUs with no tenant (0: no such node); the lowest
** node >= from with at least k such GPUs; the lowest node >= from all of
** whose GPUs have none and that has at most max_gpus GPUs; -1: none.
** O(1), O(log N), O(log N). */
int pol_node_idle(const struct world *w, int n);
int pol_node_next_idle(const struct world *w, int from, int k);
int pol_node_next_whole(const struct world *w, int from, int max_gpus);
/* The GPUs whose tenants, memory or speeds changed since the last
** scheduling pass ended, each once: what a policy's own per-GPU index
** needs to look at again.  Emptied when a pass returns. */
int pol_nchanged(const struct world *w);
int pol_changed_at(const struct world *w, int k);

/* ---- the actions (sim/world/view.c over sim/world/world_act.c and friends)
** Each checks its whole request first; refused, it returns a SIM_E* code
** (message in err, which may be NULL) and leaves the world as it was. */

struct pol_place_opts {
	double sm_cap;                /* MPS share (0, 1]; 0 means 1 */
	const int *slices;            /* per GPU MIG slice, or NULL */
	int allow_oversub;            /* let memory pass capacity (paged) */
	uint64_t mem_bytes;           /* allocation per GPU; 0: the job's
					 footprint (pol_job_mem) */
};

/* Places pending/preempted job j on n distinct GPUs (n == its gpus); opts
** NULL: whole share, no slices, footprint allocation.  A swapped job is
** swapped in (pol_swap_in).  SIM_ENOSPC (not fatal) when memory does not
** fit; SIM_ESTATE when the job is not pending or an exclusive GPU is busy;
** SIM_EINVAL otherwise.  gpus and slices are read, not kept. */
int pol_place(struct world *w, int j, const int *gpus, int n,
	      const struct pol_place_opts *opts, struct sim_err *err);
/*
** Version 3.  Places pending training job j on node `node` as a share
** placement (docs/MODEL.md, "Fractional GPUs"): each of the n GPUs (n ==
** its gpus, all on that node; 0 for a CPU-only job) gives it share_milli
** thousandths of its compute (MPS SM cap) and of its memory, the node its
** cpu_milli and host_mem_mib, until the job leaves; a time the trace gives
** is its time alone at that share.  GPUs must be in MPS mode (or
** exclusive and empty for a whole-GPU share) and hold no tenant placed by
** pol_place.  SIM_ENOSPC (not fatal, nothing changed) when a GPU's free
** share or the node's free CPU or memory falls short; SIM_ESTATE / SIM_EINVAL
** as pol_place.
*/
int pol_place_share(struct world *w, int j, int node, const int *gpus, int n,
		    struct sim_err *err);
/*
** Version 6.  Resizes running elastic training job j to the n distinct
** GPUs gpus (they may include its own; read, not kept): its progress is
** kept, it holds the new GPUs and makes no progress for restart_ns (a
** checkpoint-restart), then runs at the new count's speed (the goodput
** model).  Run metrics resizes and restart_gpu_s count it.  SIM_EINVAL:
** no such job or GPU, a GPU twice, n outside [min_gpus, max_gpus], not
** elastic, restart_ns < 0; SIM_ESTATE: not running, a service, a share
** placement, an exclusive GPU another tenant holds; SIM_ENOSPC: memory.
** (pol_place places an elastic job at any count of its range.)
*/
int pol_resize(struct world *w, int j, const int *gpus, int n,
	       sim_time restart_ns, struct sim_err *err);
/* Takes running training job j off its GPUs; its progress is kept and it
** is pending again (under preempt_cost = swap: a swap-out). */
int pol_preempt(struct world *w, int j, struct sim_err *err);
/* Swaps running training job j out to host memory (docs/MODEL.md,
** "Swapping"); pending again, swapped, when its copies end. */
int pol_swap_out(struct world *w, int j, struct sim_err *err);
/* Places swapped job j (as pol_place) and copies its state back. */
int pol_swap_in(struct world *w, int j, const int *gpus, int n,
		const struct pol_place_opts *opts, struct sim_err *err);
/* Sets the MPS share (0, 1] of every tenant of running job j. */
int pol_set_share(struct world *w, int j, double sm_cap,
		  struct sim_err *err);
/* Sets the allocation of every tenant of running job j (per GPU);
** SIM_ENOSPC, nothing changed, when it does not fit and !allow_oversub. */
int pol_set_mem(struct world *w, int j, uint64_t mem_bytes,
		int allow_oversub, struct sim_err *err);
/* Sets running service j's max batch, 1..its trace batch. */
int pol_set_batch(struct world *w, int j, int max_batch,
		  struct sim_err *err);
/* Sets the sharing mode / MIG layout (profile names, read not kept) of an
** empty GPU. */
int pol_set_gpu_mode(struct world *w, int g, enum pol_gpu_mode mode,
		     struct sim_err *err);
int pol_set_mig_layout(struct world *w, int g, const char *const *profiles,
		       int n, struct sim_err *err);
/* The round time, in ms, of the n (1..4) training jobs jobs[] interleaved
** on the same GPUs (models/interleave.c: the best order, Muri's
** overheads; one job: its iteration time): each does one iteration a
** round.  -1 when n is out of range or a job lacks per-resource times
** or an iteration time. */
double pol_interleave_round_ms(const struct world *w, const int *jobs,
			       int n);

/* Fires xOnTimer(tag) after dt >= 0 ns. */
int pol_set_timer(struct world *w, sim_time dt, uint64_t tag,
		  struct sim_err *err);
/* Declares pending job j impossible: FAILED, with a reason (copied) for
** reports. */
int pol_fail_job(struct world *w, int j, const char *reason);
/* Adds value to the run metric `name` (copied; up to 47 bytes), created
** at 0 on first use, which the run's results carry. */
int pol_add_metric(struct world *w, const char *name, double value);

enum pol_load_mode {
	POL_LOAD_PIPELINED = 0,       /* per layer group: NIC, PCIe, execute */
	POL_LOAD_WHOLE                /* the whole model, then execute */
};
/* The pool: an empty GPU joins; an idle one leaves (dropping its cache);
** a pending service is served by the pool from now on; how missing models
** load (before any join); prefetch / drop job j's model on pool GPU g. */
int pol_pool_join(struct world *w, int g, struct sim_err *err);
int pol_pool_leave(struct world *w, int g, struct sim_err *err);
int pol_pool_serve(struct world *w, int j, struct sim_err *err);
int pol_pool_set_mode(struct world *w, enum pol_load_mode mode,
		      struct sim_err *err);
int pol_load_model(struct world *w, int g, int j, struct sim_err *err);
int pol_evict_model(struct world *w, int g, int j, struct sim_err *err);

/* One row of a trace as pol_trace_rows gives it (version 3). */
struct pol_trace_row {
	const char *zId;              /* valid during the call */
	enum pol_job_kind kind;
	int gpus;
	int share_milli;              /* as pol_job_info's */
	int64_t cpu_milli, host_mem_mib;
};
/*
** Version 3.  Reads the trace at path (NULL: the run's own) from its start
** and calls fn on each row in file order until fn returns non-zero, which
** is returned: for a policy that learns the workload's shape before the
** run (FGD's typical pods).  0, or the reader's error (SIM_ENOENT,
** SIM_EPARSE... with file:line:column in err).
*/
int pol_trace_rows(struct world *w, const char *path,
		   int (*fn)(void *ctx, const struct pol_trace_row *row),
		   void *ctx, struct sim_err *err);

/*
** The policy's own random stream: stream ("policy:" zName, 0) of sim/rng.h
** under the run's master seed, so it depends on the seed and the policy's
** name only (adding a policy, or another consumer drawing, shifts no
** other stream), and the same seed gives the same draws.  Created on the
** first call (xInit may draw); owned by the world, valid until the world
** is destroyed.  NULL only when out of memory.  Use it with sim_rng_* or
** any gsl_ran_* on ->r.
*/
struct sim_rng *pol_rng(struct world *w);

#endif
