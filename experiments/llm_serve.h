/*
** llm_serve.h: replay of an LLM request stream on replicas that own their
** GPUs (no co-location): the models of models/llm.h and
** models/llm_sched.h driven by arrival times, with the serving metrics of
** docs/RESULTS.md, "LLM serving" (time to first token, time per output
** token, inter-token gaps, end-to-end latency, SLO attainment, output
** tokens per second, KV-cache utilization, preemptions, swapped bytes).
**
** This is the reference the world's LLM replica tenant reproduces when its
** GPUs are not shared (docs/MODEL.md, "LLM serving"), and the driver of
** `colosim llm serve` and of its benchmark.  It keeps no global state; time
** is integer nanoseconds; the only events are arrivals and iteration ends,
** taken in order (ties: iteration ends first, replicas by index, then the
** arrival, as the world orders completions before arrivals).
*/
#ifndef COLOSIM_EXPERIMENTS_LLM_SERVE_H
#define COLOSIM_EXPERIMENTS_LLM_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "models/llm.h"
#include "models/llm_sched.h"
#include "sim/err.h"
#include "sim/stats.h"
#include "sim/time.h"

struct llm_serve_req {
	sim_time arrival_ns;      /* non-decreasing over the array */
	int prompt_tokens, output_tokens;
};

enum llm_route { LLM_ROUTE_RR = 0, LLM_ROUTE_LEAST };
/* "rr", "least"; 0 or SIM_EINVAL. */
int llm_route_parse(const char *s, enum llm_route *out);

struct llm_serve_cfg {
	const struct llm_model *model;   /* borrowed: every replica's model */
	struct llm_sched_cfg sched;
	int replicas;             /* >= 1, each model->tp GPUs */
	int block_tokens;         /* 16 */
	double gpu_mem_util;      /* 0.9 */
	double swap_bytes;        /* host swap space per replica (vLLM's
				     swap_space, 4 GiB by default) */
	int paging;               /* 0: an unbounded KV cache (no admission
				     limit, no preemption): the comparison
				     without paging */
	enum llm_route route;
	double slo_ttft_ms, slo_tpot_ms;
};
/* vLLM's defaults for the rest: 16-token blocks, 0.9 of HBM, 4 GiB of
** swap, paging on, round robin; SLOs 1000 ms / 100 ms (assumptions). */
void llm_serve_cfg_default(struct llm_serve_cfg *c,
			   const struct llm_model *m, enum llm_sched_kind k);

struct llm_serve_result {
	uint64_t submitted, completed, rejected;
	struct sim_sample ttft_ms;        /* per request */
	struct sim_sample tpot_ms;        /* per request of >= 2 tokens:
					     (last - first) / (n - 1) */
	struct sim_sample itl_ms;         /* every gap between two tokens */
	struct sim_sample e2e_ms;         /* arrival to last token */
	double slo_ttft, slo_tpot, slo_both;  /* fraction of completed */
	uint64_t tokens_out;
	double out_tok_per_s;             /* tokens / (last end - first arrival) */
	double kv_util_mean;              /* time-weighted, mean of replicas */
	double kv_util_peak;              /* largest over replicas */
	int64_t kv_blocks;                /* per replica */
	uint64_t preemptions, recomputes, swap_outs;
	double swapped_bytes;             /* out + in, all replicas */
	uint64_t iterations;
	sim_time end_ns;                  /* last iteration end */
	struct sim_err first_reject;      /* why the first refused request was */
};
/* Frees the samples. */
void llm_serve_result_fini(struct llm_serve_result *r);

/*
** Runs the stream to completion.  Requests the engine refuses (longer than
** the context window, more blocks than a replica has) are counted in
** `rejected` with the first reason kept.  0, or SIM_EINVAL (bad
** configuration, arrivals out of order), SIM_ENOSPC (the model does not
** fit with a KV cache), SIM_ENOMEM.  *out is initialised here; call
** llm_serve_result_fini afterwards, also on failure.
*/
int llm_serve_run(const struct llm_serve_cfg *c,
		  const struct llm_serve_req *reqs, size_t n,
		  struct llm_serve_result *out, struct sim_err *err);

/*
** Reads a request file (docs/TRACE_FORMAT.md, "LLM request files"): a CSV
** with a header naming either TIMESTAMP, ContextTokens, GeneratedTokens
** (the Azure LLM 2023 trace; datetimes) or t_s, prompt_tokens,
** output_tokens (seconds), other columns ignored.  Times are made relative
** to the earliest request and the requests sorted by arrival (stable).
** A request whose prompt + output exceeds max_len is an error naming
** file:line:column (long = LLM_LONG_ERROR), dropped and counted in
** *skipped (LLM_LONG_SKIP), or its prompt cut to fit, counted in
** *truncated (LLM_LONG_TRUNCATE).  On success *out (heap; free()) holds *n
** >= 1 requests.  Errors: SIM_ENOENT, SIM_EIO, SIM_EPARSE (malformed,
** empty), SIM_EINVAL (too long), SIM_ENOMEM, with the place in err.
*/
enum llm_long { LLM_LONG_ERROR = 0, LLM_LONG_SKIP, LLM_LONG_TRUNCATE };
int llm_serve_load(const char *path, int max_len, const char *model,
		   enum llm_long mode, struct llm_serve_req **out, size_t *n,
		   unsigned long *skipped, unsigned long *truncated,
		   struct sim_err *err);

#endif
