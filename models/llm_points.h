/*
** llm_points.h: the published measurements the LLM iteration model is
** fitted on and checked against, the fit, and the static-batch predictor
** that turns the model into the figures those measurements report
** (docs/VALIDATION.md, "LLM serving").
**
** Two kinds of points, split into a calibration set and a check-only set
** before any fit (the split is the `cal` field and never changes with the
** results):
**   - operator times: Vidur's profiles of Llama-2-7B's operators on an
**     A100-80GB (per-kernel medians) and of a decode-attention kernel; they
**     fix the efficiencies and floors of struct llm_consts;
**   - end-to-end points: time to first token or output tokens per second of
**     a static batch (B sequences of I prompt tokens generating O tokens
**     each), as TensorRT-LLM's performance tables report them.  One of them
**     fits the per-iteration overhead; the others are checks only.
** Every point names its source (repository, path, commit or release, and
** the table) in `source`.  Pure data and pure functions.
*/
#ifndef COLOSIM_MODELS_LLM_POINTS_H
#define COLOSIM_MODELS_LLM_POINTS_H

#include <stddef.h>

#include "models/device.h"
#include "models/llm.h"
#include "sim/err.h"

/* One operator time of Llama-2-7B on the A100-80GB (TP 1). */
enum llm_op_kind {
	LLM_OP_LINEAR = 0,        /* a GEMM of the block */
	LLM_OP_SMALL,             /* the block's norms, rotary, act, add */
};
struct llm_op_point {
	const char *op;           /* Vidur's column: "attn_pre_proj", ... */
	enum llm_op_kind kind;
	int tokens;               /* num_tokens of the profile row */
	double in, out;           /* GEMM shape (elements); 0 for SMALL */
	double ms;                /* median time, milliseconds */
};
size_t llm_op_point_count(void);
const struct llm_op_point *llm_op_point_at(size_t i);

/* The medians (ms) of Vidur's decode-attention rows at 32 cached tokens,
** batch 1..n; *n gets the count. */
const double *llm_attn_floor_points(size_t *n);

enum llm_metric {
	LLM_M_TTFT_MS = 0,        /* first-token latency of batch 1, ms */
	LLM_M_TPUT,               /* output tokens per second, replica */
	LLM_M_TPUT_GPU            /* the same per GPU of the replica */
};
const char *llm_metric_name(enum llm_metric m);

struct llm_point {
	const char *id;           /* short name for tables */
	const char *model;        /* llm_arch name */
	const char *device;       /* device profile name */
	enum llm_prec prec;
	int tp, batch, input, output;
	enum llm_metric metric;
	double value;             /* the published figure */
	int cal;                  /* 1: calibration set; 0: check only */
	const char *engine;       /* "TensorRT-LLM v0.5.0" */
	const char *source;
};
size_t llm_point_count(void);
const struct llm_point *llm_point_at(size_t i);

/*
** The static-batch run of a point's configuration on model m: one context
** iteration of batch x input tokens (every sequence samples its first
** token), then output - 1 decode iterations over growing contexts.
** *ttft_ns gets the context iteration, *total_ns the whole run.
*/
void llm_static_run(const struct llm_model *m, int batch, int input,
		    int output, double *ttft_ns, double *total_ns);

/* The model's value of a point's metric with constants c (NULL: the
** defaults), the device found by find(ctx, name).  0 or an error
** (unknown model or device, a bad combination) with a message. */
typedef const struct dev_profile *(*llm_dev_find_fn)(void *ctx,
						     const char *name);
int llm_point_predict(const struct llm_point *p, const struct llm_consts *c,
		      llm_dev_find_fn find, void *ctx, double *pred,
		      struct sim_err *err);

/*
** The fit: the constants from the calibration set alone.
**   eta_flops  median of 2 T W / (t P) over the GEMMs at 384-4096 tokens;
**   eta_bw     median of (2 W + 2 T io) / (t B) over the GEMMs at 1-32
**              tokens (memory-bound);
**   eta_elem   elementwise bytes / (t B) of the small kernels at 4096;
**   t_small    mean of the small kernels' sums at 1 and 8 tokens;
**   t_attn     median of the decode-attention rows at 32 cached tokens;
**   eta_kv     median KV bytes / (t B) of the decode-attention rows at
**              2688 cached tokens;
**   eta_link   the NCCL bus bandwidth point over NVLink per direction;
**   t_iter0    what the calibration end-to-end point leaves after the
**              roofline (0 if negative).
** eta_attn, t_hop and t_seq are kept from *c (assumptions, MODEL.md).
** a100 is the A100-80GB profile the operator points were measured on.
** *c is read (the kept constants) and overwritten with the fit.
*/
int llm_fit(struct llm_consts *c, const struct dev_profile *a100,
	    llm_dev_find_fn find, void *ctx, struct sim_err *err);

/* Relative error (pred - value) / value of every point, and the medians
** of |error| over the calibration and the check-only sets. */
struct llm_valid {
	double pred, err;         /* per point, in llm_point_at order */
};
int llm_validate(const struct llm_consts *c, llm_dev_find_fn find, void *ctx,
		 struct llm_valid *rows, size_t nrows, double *median_cal,
		 double *median_check, struct sim_err *err);

#endif
