/*
** gen.h: the synthetic trace generator (`colosim gen`).
**
** Writes a trace in format v1 from GSL distributions: job arrivals
** Poisson or bursty (gamma gaps with a given coefficient of variation),
** lognormal training durations, and discrete mixes for the model, the
** train/infer split, batch sizes, GPU counts, GPU shares, precision,
** optimizer and SLOs; services get lognormal request rates and Poisson or
** piecewise-rate arrivals.  Randomness comes only from named streams
** (sim/rng.h) under the seed, so the same options and seed give the same
** bytes.  Distributions and defaults: docs/TRACE_FORMAT.md, "Generator".
*/
#ifndef COLOSIM_TRACES_GEN_H
#define COLOSIM_TRACES_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"
#include "traces/lengths.h"

#define GEN_MIX_MAX 16
#define GEN_TEXT_MAX 256

/* A discrete mix "a:w,b:w,..." (weights > 0; "a,b" = equal weights). */
struct gen_mix {
	int n;
	char item[GEN_MIX_MAX][48];
	double weight[GEN_MIX_MAX];
	char text[GEN_TEXT_MAX];      /* as given, for the trace's comment */
};

struct gen_opts {
	uint64_t seed;
	int jobs;
	double rate_per_s;            /* mean job arrival rate */
	int bursty;                   /* 0 Poisson, 1 gamma gaps */
	double burst_cv;              /* gap coefficient of variation (> 1) */
	double infer_frac;            /* share of rows that are services */
	struct gen_mix models, train_batch, infer_batch, gpus, share, opt,
		slo_ms;
	double mixed_frac;            /* share of training in mixed precision */
	double dur_median_s, dur_sigma;   /* lognormal training duration */
	double infer_rate_median, infer_rate_sigma;  /* lognormal req/s */
	int infer_rates;              /* 0 Poisson, 1 piecewise rates */
	double infer_duration_s;      /* service lifetime; 0 = open */
	double batch_timeout_ms;
	/* LLM services (kind llm; 0 by default: none): each row is one with
	** probability llm_frac; its requests (Poisson at a lognormal rate,
	** sizes from the named length distributions) go to a request file
	** next to the trace, so out_path must be set */
	double llm_frac;
	struct gen_mix llm_models, llm_slo_ms, llm_replicas;
	double llm_rate_median, llm_rate_sigma, llm_duration_s;
	struct trace_len_dist llm_prompt, llm_output;
	const char *out_path;         /* the trace's path (side files); NULL:
					 no file (no LLM services) */
};

/* Fills the defaults (documented in docs/TRACE_FORMAT.md). */
void gen_defaults(struct gen_opts *o);

/* Sets one option by name ("jobs", "rate", "models", ...; the long option
** names of `colosim gen` without the dashes).  0, or SIM_EINVAL /
** SIM_ENOENT (unknown key) with what was expected in err. */
int gen_set(struct gen_opts *o, const char *key, const char *value,
	    struct sim_err *err);

/* The option names gen_set knows, NULL-terminated, with one-line help. */
extern const char *const gen_keys[][2];

/* Writes the trace to out (and, with LLM services, their request files
** next to o->out_path: STEM.llm-NNNN.requests).  0, or SIM_EINVAL (bad
** options: unknown model, empty mix, LLM services without out_path) or
** SIM_EIO (write failed) with a message in err. */
int gen_write(FILE *out, const struct gen_opts *o, struct sim_err *err);

#endif
