/*
** config.h: experiment configs (INI, read with libinih) and their expansion
** into a run matrix.
**
** A config has four kinds of sections (docs/RESULTS.md, "Configs"):
**
**   [experiment]   name, trace = PATH or gen.KEY = VALUE (generator options),
**                  cluster = 4x8:a100-80gb,2x4:v100-16gb, horizon_s,
**                  replications, seed, db, policy (when not swept),
**                  devices = DIR (device profiles, relative to the config),
**                  arrival_jitter_s (per-replication arrival jitter),
**                  arrivals_dir = DIR (arrival files may also come from
**                  there, relative to the config; docs/LIMITS.md)
**   [cluster]      nodes (the same spec as experiment.cluster), nic_gbps,
**                  memory_servers, memory_server_nic_gbps, preempt_cost,
**                  spread_cost
**   [sweep]        KEY = v1, v2, ... or a..b step s (items may be mixed);
**                  KEY is policy, horizon_s, cluster, trace, gen.KEY or
**                  policy.NAME.KEY (a parameter of policy NAME only)
**   [policy.NAME]  KEY = VALUE, handed to policy NAME untouched (the policy
**                  validates its own keys when it starts)
**
** Unknown sections and keys, duplicate keys and bad values are SIM_EPARSE
** errors whose message starts "FILE:LINE: ".
**
** The run matrix is the cross product of the global sweep dimensions, the
** policies and, for each policy, its own policy.NAME.KEY dimensions (so a
** parameter of colti does not multiply the runs of exclusive), times the
** replications.  The seed of replication r is sim_rng_seed(seed,
** "replication", r): it depends on nothing else, so every policy and every
** sweep point sees the same arrivals and sizes in replication r (common
** random numbers).
**
** Files: config.c reads and checks the INI file (libinih), matrix.c
** expands it into runs; cluster specs are parsed by models/cluster.h and
** numbers by sim/num.h.
**
** Ownership: exp_config_* returns a heap config freed by exp_config_free;
** a matrix owns every string of its specs and is released by
** exp_matrix_fini; the specs may borrow from the config, which must outlive
** the matrix.
*/
#ifndef COLOSIM_EXPERIMENTS_CONFIG_H
#define COLOSIM_EXPERIMENTS_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "models/cluster.h"
#include "sim/err.h"

#define EXP_NAME_MAX 64
#define EXP_MAX_VALUES 10000      /* values of one sweep dimension */
#define EXP_MAX_RUNS 1000000      /* runs of one matrix */

/* One key = value pair, with the config line it came from (0: derived). */
struct exp_kv {
	char *key;
	char *value;
	int line;
};

/* The [cluster] section's link and memory-pool options; 0 means "not set"
** (the simulator then uses the device profile or models no such thing). */
struct exp_cluster_opts {
	double nic_gbps;                 /* per-node RDMA NIC, Gb/s */
	int memory_servers;              /* DistMind-style memory pool size */
	double memory_server_nic_gbps;   /* NIC of each memory server, Gb/s */
	int preempt_cost;                /* WORLD_PREEMPT_*: free (0) or swap */
	int spread_cost;                 /* WORLD_SPREAD_*: allreduce (0) or
					    none */
};

struct exp_policy_cfg {
	char *name;                      /* from [policy.NAME] */
	struct exp_kv *params;
	size_t nparams;
	int line;                        /* line of the section header */
};

struct exp_sweep_dim {
	char *key;                       /* as written: policy, gen.load, ... */
	char **values;                   /* expanded, in order */
	size_t nvalues;
	int line;
};

struct exp_config {
	char *path;                      /* as given to exp_config_load */
	char *text;                      /* the whole file, NUL-terminated */
	size_t text_len;
	char hash[17];                   /* FNV-1a 64 of text, hex */

	char *name;
	char *trace;                     /* resolved against the config's
					    folder; NULL when generated */
	int trace_line;
	struct exp_kv *gen;              /* gen.KEY options (KEY without gen.) */
	size_t ngen;
	struct exp_kv *llm;              /* [llm]: LLM service settings */
	size_t nllm;
	char *cluster;                   /* the spec text */
	int cluster_line;
	struct exp_cluster_opts copts;
	double horizon_s;                /* 0: until all work is done */
	double arrival_jitter_s;         /* 0: the trace's arrival times */
	int replications;                /* >= 1, default 1 */
	uint64_t seed;                   /* master seed, default 1 */
	char *db;                        /* default NAME.db */
	char *devices;                   /* device profile folder, resolved
					    against the config's folder; NULL:
					    dev_find_dir's search */
	char *policy;                    /* [experiment] policy, if any */
	int policy_line;
	char **plugins;                  /* [experiment] plugins, resolved
					    against the config's folder */
	size_t nplugins;
	int plugins_line;
	char *arrivals_dir;              /* a folder besides the trace's for
					    arrival files (trace.h), resolved
					    against the config's; NULL none */

	struct exp_policy_cfg *policies; /* [policy.NAME] sections */
	size_t npolicies;
	struct exp_sweep_dim *dims;      /* [sweep], in file order */
	size_t ndims;

	/* Every key = value of [experiment], [cluster] and [policy.NAME] as
	** written, keys qualified ("experiment.trace", "policy.colti.fit"),
	** in file order. */
	struct exp_kv *written;
	size_t nwritten;
	/* The canonical form (what --resume compares; docs/RESULTS.md,
	** "Resuming"): every setting that changes what a run computes,
	** defaults filled in, numbers normalized, sweep lists expanded, keys
	** sorted; without name, db and replications.  canon_text is
	** "key=value
" per entry; canon_hash its FNV-1a 64, hex. */
	struct exp_kv *canon;
	size_t ncanon;
	char *canon_text;
	char canon_hash[17];
};

struct pol_catalog;

/*
** One run of the matrix.  Strings and arrays are owned by the matrix.
** key is unique within the experiment and stable across runs of the same
** config (the results store and --resume use it); variant is the policy
** with its own swept parameters ("colti headroom=0.2"); setting is the
** global swept values other than the policy ("gen.load=0.5"; "" if none).
** Runs with the same setting and replication form a paired comparison.
*/
struct exp_run_spec {
	const char *experiment;
	int index;                       /* position in the matrix, from 0 */
	char *key;
	char *variant;
	char *setting;
	char *policy;
	struct exp_kv *params;           /* [policy.NAME] merged with sweep */
	size_t nparams;
	struct exp_kv *gen;              /* generator options (trace == NULL) */
	size_t ngen;
	struct exp_kv *llm;              /* [llm] merged with llm.KEY sweeps */
	size_t nllm;
	struct exp_kv *sweep;            /* this run's swept values */
	size_t nsweep;
	int replication;                 /* 0 .. replications-1 */
	uint64_t seed;                   /* sim_rng_seed(master, "replication", r) */
	char *trace;                     /* NULL: generated from gen */
	char *cluster;
	struct cluster_part *groups;     /* the cluster's parts (heap) */
	size_t ngroups;
	const struct exp_cluster_opts *copts;
	double horizon_s;
	double arrival_jitter_s;         /* [experiment] arrival_jitter_s */
	const char *devices_dir;         /* borrowed, set by the runner; NULL:
					    dev_find_dir's search */
	const struct pol_catalog *catalog;   /* the policies (plugins too),
					    borrowed, set by the runner;
					    NULL: the built-ins */
	const char *config_path;         /* borrowed from the config: names
					    parameter origins ("PATH:LINE") */
	const char *arrivals_dir;        /* borrowed: the config's */
};

struct exp_matrix {
	struct exp_run_spec *runs;
	size_t nruns;
};

/*
** Reads and checks the config at path.  On success *out owns the config.
** Errors: SIM_ENOENT/SIM_EIO (file), SIM_EPARSE ("path:line: ..."),
** SIM_ENOMEM.
*/
int exp_config_load(struct exp_config **out, const char *path,
		    struct sim_err *err);

/* The same from text in memory; path names it in messages and anchors a
** relative trace path. */
int exp_config_parse(struct exp_config **out, const char *path,
		     const char *text, size_t len, struct sim_err *err);

void exp_config_free(struct exp_config *cfg);

struct pol_catalog;
struct dev_catalog;

/*
** Checks cfg whole, before anything runs, for what parsing cannot judge
** alone: every policy the matrix runs is in pols (NULL: the built-ins),
** every parameter of its [policy.NAME] section and every value of its
** policy.NAME.KEY sweeps passes its parameter table (key, type, range:
** pol_params_validate), the fixed cluster and every swept one name
** devices of devs (NULL: not checked), the fixed trace and every swept
** one opens with a good header.  0, or the first fault: "PATH:LINE:
** [SECTION] KEY ..." (SIM_ENOENT, SIM_EINVAL, SIM_EPARSE, ...).
*/
int exp_config_check(const struct exp_config *cfg,
		     const struct pol_catalog *pols,
		     const struct dev_catalog *devs, struct sim_err *err);

/*
** Compares cfg's canonical form with stored, the canon_text of an earlier
** parse (the results store keeps it per experiment).  0 when they match;
** else SIM_ESTATE and the first difference, in key order, naming the
** key and both values: "PATH:LINE: KEY = 'NOW': was 'THEN' when the
** experiment was stored" (or a key only one side sets).
*/
int exp_config_canon_cmp(const struct exp_config *cfg, const char *stored,
			 struct sim_err *err);

/* The seed of replication r under master: common to every run of r. */
uint64_t exp_replication_seed(uint64_t master, int replication);

/*
** Expands a sweep value list ("1, 2, 5..20 step 5") into a heap array of
** heap strings (free with exp_strv_free).  where prefixes messages.
*/
int exp_sweep_values(const char *text, const char *where, char ***out,
		     size_t *nout, struct sim_err *err);
void exp_strv_free(char **v, size_t n);

/*
** The run matrix streamed: exp_runs_open counts the runs of cfg (SIM_ERANGE
** past EXP_MAX_RUNS) without building any; exp_runs_get builds run k
** (0 <= k < exp_runs_count) into s, owned by the caller until
** exp_run_spec_fini, in O(dimensions) time and memory, in the order of
** exp_matrix_build.  The runs borrow cfg (which must outlive them) and
** the folders given to exp_runs_set_dirs.  A sweep's memory is thus that
** of its runs in flight, whatever the matrix's size (docs/LIMITS.md).
*/
struct exp_runs;
int exp_runs_open(struct exp_runs **out, const struct exp_config *cfg,
		  struct sim_err *err);
size_t exp_runs_count(const struct exp_runs *rs);
void exp_runs_set_dirs(struct exp_runs *rs, const char *devices_dir,
		       const char *arrivals_dir);
/* The policy catalog every run borrows (NULL: the built-ins). */
void exp_runs_set_catalog(struct exp_runs *rs,
			  const struct pol_catalog *catalog);
/* The distinct settings (points of the global dimensions) and variants
** (policy points: each policy times its own dimensions' points) of the
** matrix; runs = settings x variants x replications. */
void exp_runs_shape(const struct exp_runs *rs, size_t *settings,
		    size_t *variants);
int exp_runs_get(struct exp_runs *rs, size_t k, struct exp_run_spec *s,
		 struct sim_err *err);
void exp_run_spec_fini(struct exp_run_spec *s);
void exp_runs_close(struct exp_runs *rs);

/* Expands cfg into m (zeroed by the caller or not; it is overwritten):
** every run at once, for tests and small sweeps; the runner streams. */
int exp_matrix_build(struct exp_matrix *m, const struct exp_config *cfg,
		     struct sim_err *err);
void exp_matrix_fini(struct exp_matrix *m);

/* The value of key in a spec's kv array, or NULL. */
const char *exp_kv_get(const struct exp_kv *kv, size_t n, const char *key);

#endif
