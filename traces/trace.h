/*
** trace.h: colosim's trace format v1 (docs/TRACE_FORMAT.md) and its
** streaming reader and validator.
**
** A trace is a CSV file (read with libcsv) whose header names the schema
** version; one row per training job or inference service.  The reader is
** streaming: trace_next() returns one job at a time and memory stays
** constant in the trace's length.  Every error names file:line:column, the
** field, and what was expected; an unknown model lists the known ones.
**
** STATUS: interface contract; implemented in traces/trace.c.
*/
#ifndef COLOSIM_TRACES_TRACE_H
#define COLOSIM_TRACES_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "models/workload.h"
#include "sim/err.h"
#include "sim/rng.h"
#include "sim/time.h"

/* TRACE_LLM: an LLM service (docs/TRACE_FORMAT.md, "LLM services"): the
** columns of an infer row, its model an LLM architecture (models/llm.h),
** its requests carrying prompt and output token counts. */
enum trace_kind { TRACE_TRAIN = 0, TRACE_INFER, TRACE_LLM };

enum trace_arrival {
	TRACE_ARR_NONE = 0,
	TRACE_ARR_POISSON,        /* rate_per_s */
	TRACE_ARR_RATES,          /* piecewise-constant Poisson rates */
	TRACE_ARR_FILE            /* timestamps, one per line, seconds */
};

struct trace_job {
	char id[64];
	enum trace_kind kind;
	sim_time submit_ns;           /* non-decreasing along the file */
	char model[48];               /* a zoo name */
	int batch;                    /* train: per-GPU batch; infer: max batch */
	/* training */
	int64_t iterations;           /* 0 when duration_ns is given instead */
	sim_time duration_ns;         /* train: solo run time if known;
					 infer: service lifetime (0: to the end) */
	sim_time iter_ns;             /* measured iteration time; 0 unknown */
	enum wl_optimizer opt;
	enum wl_precision prec;
	int gpus;                     /* GPUs (replicas for a service); 0: a
					 CPU-only training job */
	double gpu_share;             /* (0, 1]: fraction of each GPU; 1 whole */
	uint64_t mem_bytes;           /* measured per-GPU memory; 0 unknown */
	int priority;                 /* higher is more important; default 0 */
	/* inference */
	sim_time slo_ns;
	enum trace_arrival arrival;
	double rate_per_s;
	char arrival_arg[256];        /* RATES: "r0@t0;r1@t1;..." (req/s @ s);
					 FILE: path, relative to the trace */
	sim_time batch_timeout_ns;
	long line;                    /* line in the trace file */
	/* optional columns (docs/TRACE_FORMAT.md, "Optional columns") */
	int has_res;                  /* res_*_ms given */
	double res_ms[3];             /* one iteration's time on the CPU /
					 data stage, the GPU, the network */
	int min_gpus, max_gpus;       /* elastic range; 0: not elastic */
	int64_t cpu_milli;            /* host CPU it holds, millicores; 0 */
	int64_t host_mem_mib;         /* host memory it holds, MiB; 0 */
	double gpu_util;              /* train: measured GPU utilisation in
					 (0, 1] (optional column gpu_util);
					 0 unknown */
	double noise_scale;           /* train: gradient noise scale in
					 samples (optional column); 0: the
					 model's default (models/goodput.h) */
};

struct trace_reader;

/* Opens a trace and checks its header.  On success *out owns the reader
** (free with trace_close).  Errors: SIM_ENOENT, SIM_EIO, SIM_EPARSE,
** SIM_EVERSION, with file:line:column in err. */
int trace_open(struct trace_reader **out, const char *path,
	       struct sim_err *err);

/* Reads the next job: 1 and *job filled, 0 at the end, or a negative code
** with the error in err (the reader can go on with the next row). */
int trace_next(struct trace_reader *r, struct trace_job *job,
	       struct sim_err *err);

/* The directory of the trace (for relative arrival files). */
const char *trace_dir(const struct trace_reader *r);

/* A folder besides the trace's from which arrival files may be read
** (trace_arrivals_open_in; NULL: none).  dir is copied; SIM_ERANGE when
** it has TRACE_MAX_ARRIVALS_DIR characters or more. */
#define TRACE_MAX_ARRIVALS_DIR 512
int trace_set_arrivals_dir(struct trace_reader *r, const char *dir);
const char *trace_arrivals_dir(const struct trace_reader *r);

void trace_close(struct trace_reader *r);

/*
** An inference service's request arrival process: yields increasing times
** from the job's arrival fields.  Poisson draws come from the given stream
** (owned by the caller), so arrivals are identical under every policy.
*/
struct trace_arrivals;
int trace_arrivals_open(struct trace_arrivals **out,
			const struct trace_job *job, const char *trace_dir,
			struct sim_rng *rng, struct sim_err *err);
/*
** trace_arrivals_open_in: the same, with allow_dir (NULL: none) a folder
** besides the trace's own from which `file` arrivals may be read.  An
** arrival file must resolve (symbolic links and ".." followed) inside
** trace_dir or allow_dir and be a regular file, else SIM_EINVAL; its
** content never appears in a message (docs/LIMITS.md, "Arrival files").
*/
int trace_arrivals_open_in(struct trace_arrivals **out,
			   const struct trace_job *job, const char *trace_dir,
			   const char *allow_dir, struct sim_rng *rng,
			   struct sim_err *err);
/* 1 and *t (absolute ns) on success, 0 when done, negative on error. */
int trace_arrivals_next(struct trace_arrivals *a, sim_time *t,
			struct sim_err *err);
void trace_arrivals_close(struct trace_arrivals *a);

/*
** One request with its sizes.  A request file (an arrival file whose first
** record is the header `t_s,prompt_tokens,output_tokens`) gives both
** counts; every other arrival process leaves them 0 (the caller draws
** them).  line and col_tokens place the request for error messages (0
** when it came from no file).
*/
struct trace_req {
	sim_time t_ns;                /* absolute arrival time */
	int prompt_tokens;            /* 1..TRACE_TOKENS_MAX, or 0 */
	int output_tokens;
	long line;                    /* of the request file */
	int col_prompt, col_output;   /* 1-based columns of the counts */
};
#define TRACE_TOKENS_MAX (1 << 24)
#define TRACE_REQ_HEADER "t_s,prompt_tokens,output_tokens"
/* As trace_arrivals_next, with the request's sizes. */
int trace_arrivals_next_req(struct trace_arrivals *a, struct trace_req *out,
			    struct sim_err *err);
/* 1 if a service's arrivals never end by themselves: no duration_s, and
** Poisson or a rate series whose last rate is not 0 (docs/TRACE_FORMAT.md,
** "Arrival processes": such a service is open). */
int trace_arrivals_open_ended(const struct trace_job *job);
/* The arrival file's path ("" for a process without one). */
const char *trace_arrivals_path(const struct trace_arrivals *a);

/* ---- additions by the workloads helper (not in the first contract) ---- */

/* The columns of format v1, in order (TRACE_NCOLS of them). */
#define TRACE_NCOLS 19
extern const char *const trace_columns[TRACE_NCOLS];
#define TRACE_MAGIC "# colosim-trace v1"

/* Optional columns a header may add after the 19, each at most once, in
** any order (NULL-terminated; docs/TRACE_FORMAT.md). */
#define TRACE_NOPT 9
extern const char *const trace_opt_columns[TRACE_NOPT + 1];

/*
** Every error of a row, not only the first: when a sink is set, trace_next
** hands it each error it finds (one call per error, with the message in
** e->msg), and still returns the first one in err.  Header errors of
** trace_open go to err only.  validate uses this to list them all.
*/
typedef void (*trace_error_fn)(void *ctx, const struct sim_err *e);
void trace_set_error_sink(struct trace_reader *r, trace_error_fn fn,
			  void *ctx);

/* The path the reader was opened on. */
const char *trace_path(const struct trace_reader *r);

/* A piecewise-constant rate series "r0@t0;r1@t1;...": rate r_i requests
** per second from t_i seconds after submit; t_i non-decreasing, r_i >= 0.
** Returns the number of segments (>= 1), or SIM_EPARSE with what was
** expected in err (no file position: the caller adds it). */
#define TRACE_RATES_MAX 64
/* The largest request rate of a service (poisson rate, each rate
** segment), requests per second (docs/LIMITS.md): a design limit, so that
** arrival gaps, rounded to whole nanoseconds, stay mostly non-zero and
** simulated time advances (at 1e9/s nearly every gap rounds to 0 and a
** run never ends). */
#define TRACE_RATE_MAX 1e6
/* The smallest gpu_share: 1/1000 of a GPU, the resolution of the public
** traces (openb's gpu_milli); smaller shares only make times overflow. */
#define TRACE_SHARE_MIN 0.001
struct trace_rate {
	double rate_per_s;
	double from_s;
};
int trace_parse_rates(const char *arg, struct trace_rate *out, int max,
		      struct sim_err *err);

#endif
