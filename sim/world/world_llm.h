/*
** world_llm.h: LLM services inside the world (world_llm.c): the tenant
** kind "llm" that runs the trace's `llm` rows (docs/MODEL.md, "LLM
** replicas in the world"; docs/TRACE_FORMAT.md, "LLM services").
**
** A service is `replicas` replicas of tp GPUs each, tp GPUs of one node
** (tensor parallelism); each replica owns a struct llm_engine (the pure
** scheduler and paged KV cache of models/llm_sched.h) and runs its engine
** iterations as work units of the fluid GPU model, one unit per GPU of
** the replica, so that co-located tenants slow it down and it slows them.
** Its HBM allocation is its weights, workspace and CUDA context plus its
** KV blocks: the whole pool from placement on (kv = reserve, vLLM's
** gpu_memory_utilization), or the blocks in use, grown and shrunk every
** iteration through the GPU model's memory (kv = dynamic: only into free
** memory; kv = oversub: past capacity, paged).
**
** Settings (engine, tensor parallelism, precision, KV mode, SLOs, request
** sizes) come from world_config.llm: `KEY = VALUE` for every LLM service,
** `ID.KEY = VALUE` for service ID (the last dot splits); the keys and
** their defaults are world_llm_keys (docs/RESULTS.md, "[llm]").
**
** Private to sim/world/ except world_llm_keys and world_llm_check (the
** configs and the command line check settings with them) and
** world_llm_window, the policies' view of a service (policies/policy.h,
** pol_llm_window).
*/
#ifndef COLOSIM_SIM_WORLD_LLM_H
#define COLOSIM_SIM_WORLD_LLM_H

#include "sim/world/world.h"

/* Registers the kind "llm" (runs trace kind TRACE_LLM); checks
** cfg->llm against the settings table (unknown keys and bad values are
** errors naming their origin).  A world_init_fn. */
int world_llm_init(struct world *w, const struct world_config *cfg,
		   struct sim_err *err);

/* The settings table, for `colosim list` and the docs test: key, type,
** range, default, help (policies/policy.h's row type). */
extern const struct pol_param_def world_llm_keys[];

/* Checks settings p as world_create would (unknown keys, bad values,
** per-service ID.KEY forms) without a world.  0 or SIM_EINVAL. */
int world_llm_check(const struct pol_params *p, struct sim_err *err);

/* Fills *out with what LLM service j did since its window was last reset
** (or it arrived).  SIM_EINVAL for a job that is not an LLM service that
** arrived. */
int world_llm_window(struct world *w, int j, struct pol_llm_window *out,
		     struct sim_err *err);
int world_llm_window_reset(struct world *w, int j, struct sim_err *err);

#endif
