/*
** world_util.h: helpers for the suites that run whole simulations: write a
** trace into the test directory, run it, read metrics.
*/
#ifndef COLOSIM_TESTS_WORLD_UTIL_H
#define COLOSIM_TESTS_WORLD_UTIL_H

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

/* Runs trace under policy on cluster with seed and params ("k=v,k=v" or
** NULL) into res.  Returns 0 or the error code (message in err). */
int tw_run(const char *trace, const char *policy, const char *cluster,
	   uint64_t seed, const char *params, struct run_result *res,
	   struct sim_err *err);

/* The job row with this id, or NULL. */
const struct res_job *tw_job(const struct run_result *res, const char *id);

#endif
