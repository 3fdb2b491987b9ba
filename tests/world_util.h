/*
** world_util.h: the one run harness of the suites that run whole
** simulations: write a trace into the test directory, run it through the
** experiments layer (tw_run) or build a world on it and keep it alive for
** inspection (struct tw_world), step it event by event under the
** conformance invariants (tw_step_checked), read jobs and metrics.
*/
#ifndef COLOSIM_TESTS_WORLD_UTIL_H
#define COLOSIM_TESTS_WORLD_UTIL_H

#include "experiments/simulate.h"
#include "models/cluster.h"
#include "models/device.h"
#include "models/gpu.h"
#include "sim/world/result.h"
#include "policies/policy.h"
#include "sim/world/world.h"

#define TW_HEADER "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"

/* Writes TW_HEADER + body into the test directory as `name`; returns the
** path (static buffer, valid until the next call). */
const char *tw_write(const char *name, const char *body);

/* Splits "k=v,k=v" (NULL: none) in place in buf (size n, copied from s)
** into up to max entries of pv with origin "test"; returns how many. */
size_t tw_params(const char *s, char *buf, size_t n, struct pol_param *pv,
		 size_t max);

/* The suites' arguments for a run through the experiments layer: trace,
** policy, cluster and seed, the devices of models/devices, every other
** field 0 (no params, the defaults). */
struct exp_sim_args tw_sim_args(const char *trace, const char *policy,
				const char *cluster, uint64_t seed);

/* Runs trace under policy on cluster with seed and params ("k=v,k=v" or
** NULL) into res, through the experiments layer (exp_simulate_args with
** tw_sim_args).
** Returns 0 or the error code (message in err). */
int tw_run(const char *trace, const char *policy, const char *cluster,
	   uint64_t seed, const char *params, struct run_result *res,
	   struct sim_err *err);

/* The job row with this id, or NULL. */
const struct res_job *tw_job(const struct run_result *res, const char *id);

/* Loads the device catalog of models/devices into cat (the caller
** finalises it, whatever the result) and fills p with the FP32 training
** profile of `model` at `batch` on device `dev`; returns that device, or
** NULL when the catalog, the device or the model is missing. */
const struct dev_profile *tw_train_profile(struct dev_catalog *cat,
					   const char *dev, const char *model,
					   int batch,
					   struct gpu_work_profile *p);

/* ---- a world kept alive for inspection ------------------------------- */

/* One world built on a trace, run or stepped by the test and inspected
** after; it owns the device catalog and cluster the world borrows. */
struct tw_world {
	char trace[512];              /* its path, for messages */
	struct dev_catalog cat;
	struct cluster_spec cl;
	struct world *w;
	struct run_result res;
};

/* The suites' defaults for a world under `policy`: seed 1 and an event
** budget of 2,000,000, so that a run that would never end fails the test
** instead of hanging it; every other field 0 (the world's defaults). */
struct world_config tw_config(const struct pol_ops *policy);

/* Builds t->w on the trace file under cfg, whose cluster, trace_path and
** params fields are filled here: the cluster from the spec string with
** the devices of models/devices, the params from "k=v,k=v" (when params
** is NULL, cfg->params is kept, or none given).  t is cleared first.
** Returns 0 or the error code, with the message on stderr; call tw_close
** whatever the result. */
int tw_open(struct tw_world *t, const char *trace, const char *cluster,
	    const struct world_config *cfg, const char *params);

/* Runs t's world to its end and fills t->res.  0 or the error code
** (message on stderr); SIM_ERANGE when the event budget (the config's
** max_events) stopped it first. */
int tw_finish(struct tw_world *t);

/* tw_open, then tw_finish when it succeeded. */
int tw_simulate(struct tw_world *t, const char *trace, const char *cluster,
		const struct world_config *cfg, const char *params);

/* The common case: writes body as `name` (tw_write) and simulates it under
** policy with tw_config's defaults. */
int tw_go(struct tw_world *t, const char *name, const char *body,
	  const struct pol_ops *policy, const char *cluster,
	  const char *params);

/* Runs every event of t's world up to and including time t_ns. */
void tw_until(struct tw_world *t, sim_time t_ns);

/* Frees the world, its results and its catalog; safe after a failed
** tw_open. */
void tw_close(struct tw_world *t);

/* The index of the job with trace id `id`, or -1. */
int tw_find(const struct tw_world *t, const char *id);

/* The world job with trace id `id`, or NULL. */
const struct world_job *tw_wjob(const struct tw_world *t, const char *id);

/* Its start and end in seconds (-999 when there is no such job), and its
** preemptions (-1). */
double tw_start_s(const struct tw_world *t, const char *id);
double tw_end_s(const struct tw_world *t, const char *id);
int tw_preemptions(const struct tw_world *t, const char *id);

/* Steps t's world (opened, not yet run) one event at a time to its end,
** checking after each event that time never goes backwards, that no GPU
** or MIG slice holds more memory than it has and that the run stopped for
** no error; at the end, that every job ended once (done or failed, after
** its submission, on no GPU, with no copy in flight) and that the trace
** was read through.  Returns the number of violations (the first few on
** stderr).  When moves is not NULL, the jobs' swaps + preemptions are
** added to it. */
int tw_step_checked(struct tw_world *t, int *moves);

#endif
