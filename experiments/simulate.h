/*
** simulate.h: one simulation run from names and files: loads the device
** catalog, parses the cluster, finds the policy, builds the world, runs it
** and collects its results.  Shared by `colosim replay` and the sweep
** runner (`colosim run`).
*/
#ifndef COLOSIM_EXPERIMENTS_SIMULATE_H
#define COLOSIM_EXPERIMENTS_SIMULATE_H

#include <stdint.h>

#include "sim/world/result.h"
#include "policies/policy.h"
#include "sim/err.h"
#include "sim/time.h"

struct world;

struct exp_sim_args {
	const char *trace;            /* trace v1 path */
	const char *cluster;          /* "4x8:a100-80gb,..." */
	const char *policy;           /* a name of catalog */
	const struct pol_catalog *catalog;   /* NULL: the built-ins */
	const struct pol_params *params;
	uint64_t seed;
	sim_time horizon_ns;          /* 0: none */
	uint64_t max_events;          /* 0: none */
	const char *devices_dir;      /* NULL: dev_find_dir's search */
	double nic_bytes_per_s;       /* between nodes; 0: the default */
	uint64_t max_queued_requests; /* 0: WORLD_MAX_QUEUED_DEFAULT */
	int memory_servers;           /* DistMind memory pool; 0: one per node */
	double memory_server_nic_bytes_per_s;   /* 0: nic_bytes_per_s */
	int preempt_cost;             /* WORLD_PREEMPT_*; 0: free */
	const char *timeline_path;    /* write the run's timeline there
					 (experiments/timeline.h); NULL: no */
	int spread_cost;              /* WORLD_SPREAD_*; 0: allreduce */
	const struct pol_params *llm; /* LLM service settings; NULL: none */
	const char *arrivals_dir;     /* arrival files may also come from
					 here (trace.h); NULL: the trace's
					 folder only */
	sim_time arrival_jitter_ns;   /* world_config's; 0: none */
	/* world_config's fractional-GPU inputs and probe (world.h): node
	** tie-break ranks (NULL: node order); a call after every scheduling
	** pass (NULL: none) */
	const int64_t *node_rank;
	int (*on_pass)(void *ctx, struct world *w);
	void *pass_ctx;
	int metrics_only;             /* world_config's: no job rows or
					 placements in res (replay) */
};

/* Runs one simulation into res (which the caller initialised).  Returns 0,
** or a SIM_E* code with a one-line message naming the input at fault. */
int exp_simulate_args(const struct exp_sim_args *a, struct run_result *res,
		      struct sim_err *err);

#endif
