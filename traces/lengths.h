/*
** lengths.h: named distributions of request sizes in tokens (the prompt
** and output lengths of LLM requests; docs/TRACE_FORMAT.md, "Request
** lengths"), parsed from text and drawn from a caller's stream.
**
**   const:N              always N
**   uniform:LO:HI        an integer uniform in [LO, HI]
**   lognormal:MEDIAN:S   round(exp(ln MEDIAN + S Z)), Z standard normal
**   exp:MEAN             round of an exponential of mean MEAN
**
** Every draw is clamped to [1, TRACE_TOKENS_MAX].  Used by the generator
** (traces/gen.c, request files) and by the world's LLM services whose
** arrivals carry no sizes (sim/world/world_llm.c).  Pure: no state.
*/
#ifndef COLOSIM_TRACES_LENGTHS_H
#define COLOSIM_TRACES_LENGTHS_H

#include "sim/err.h"
#include "sim/rng.h"

enum trace_len_kind {
	TRACE_LEN_CONST = 0, TRACE_LEN_UNIFORM, TRACE_LEN_LOGNORMAL,
	TRACE_LEN_EXP
};

struct trace_len_dist {
	enum trace_len_kind kind;
	double a, b;                  /* N; LO, HI; MEDIAN, S; MEAN */
	char text[64];                /* as given */
};

/* Parses s ("lognormal:1020:0.99").  0, or SIM_EINVAL with "expected
** const:N, uniform:LO:HI, lognormal:MEDIAN:SIGMA or exp:MEAN (N, LO, HI,
** MEDIAN, MEAN in [1, 16777216], LO <= HI, SIGMA in [0, 10]), got '...'"
** in err (no position: the caller prefixes where s came from). */
int trace_len_parse(const char *s, struct trace_len_dist *out,
		    struct sim_err *err);

/* One draw, in [1, TRACE_TOKENS_MAX]. */
int trace_len_draw(const struct trace_len_dist *d, struct sim_rng *rng);

#endif
