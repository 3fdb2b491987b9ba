/*
** import_csv.h: the pieces every importer shares (internal to traces/):
** a streaming CSV reader over libcsv that knows the line of each record,
** header lookup, field parsers whose errors name file:line:column, and the
** import context through which an importer emits jobs and arrivals.
**
** Records come from the one CSV reader (sim/csv.h): a record's line is
** exact and memory is bounded by its limits (SIM_CSV_LINE_MAX, ...).
*/
#ifndef COLOSIM_TRACES_IMPORT_CSV_H
#define COLOSIM_TRACES_IMPORT_CSV_H

#include <stdint.h>

#include "sim/err.h"
#include "sim/rng.h"
#include "sim/time.h"
#include "traces/import.h"

/* One CSV record.  Fields are NUL-terminated and live until the callback
** returns.  index 0 is the first record of the file (the header). */
struct imp_row {
	const char *path;
	long line;                /* physical line where the record starts */
	long index;               /* 0 = header */
	int nf;
	char *const *f;
};

typedef int (*imp_row_fn)(void *ctx, const struct imp_row *row,
			  struct sim_err *err);

/* Reads path record by record, calling fn on each; stops at the first
** non-zero return and returns it.  SIM_ENOENT when path cannot be opened,
** SIM_EPARSE for malformed CSV (an unterminated quote, a line past
** SIM_CSV_LINE_MAX), for an empty file ("path:1:1: empty file: expected a
** header line") and for a record with more or fewer fields than the
** header. */
int imp_csv_each(const char *path, imp_row_fn fn, void *ctx,
		 struct sim_err *err);

/* The header's column index of name (exact, case-insensitive), or -1. */
int imp_col(const struct imp_row *hdr, const char *name);
/* Same, and a "path:1:1: header lacks column 'name' (has: ...)" error
** when absent. */
int imp_col_req(const struct imp_row *hdr, const char *name, int *col,
		struct sim_err *err);

/*
** Field access.  col < 0 or an empty field (or "nan", "NaN", "None",
** "NULL") reads as missing: *present = 0 and 0 is returned.  A field beyond
** the record's end is an error ("path:line:col: name: missing: the record
** has N fields, the header M").  A malformed value is an error naming
** path:line:column, the column name and what was expected.
*/
int imp_field(const struct imp_row *r, int col, const char *name,
	      const char **s, struct sim_err *err);
int imp_get_i64(const struct imp_row *r, int col, const char *name,
		int64_t *v, int *present, struct sim_err *err);
int imp_get_double(const struct imp_row *r, int col, const char *name,
		   double *v, int *present, struct sim_err *err);
/* Decimal seconds in [0, SIM_NUM_TIME_MAX_S], to nanoseconds. */
int imp_get_secs(const struct imp_row *r, int col, const char *name,
		 sim_time *t_ns, int *present, struct sim_err *err);
/* "YYYY-MM-DD HH:MM:SS[.f]" to nanoseconds (see imp_parse_datetime). */
int imp_get_datetime(const struct imp_row *r, int col, const char *name,
		     sim_time *t_ns, int *present, struct sim_err *err);

/* A job to emit: the v1 columns as values.  Unset optional fields are
** written empty: 0 for counts, durations and rates, NULL for strings,
** has_priority = 0. */
struct imp_job {
	const char *id;
	int infer;                /* 0 train, 1 infer, 2 llm */
	sim_time submit_ns;       /* in the input's time base */
	const char *model;
	int batch;
	int64_t iterations;
	sim_time duration_ns;
	double iter_ms;
	double gpu_util;          /* measured GPU utilisation (0, 1]; 0 none
				     (the optional trace column gpu_util) */
	int gpus;
	double gpu_share;         /* 0: empty (= 1) */
	int has_priority;
	int priority;
	double slo_ms;
	const char *arrival;      /* "poisson", "file"; NULL for train */
	double rate_per_s;
	const char *arrival_arg;
	int64_t cpu_milli;        /* written when the context's host_cols */
	int64_t host_mem_mib;
	/* the optional per-resource columns res_cpu_ms, res_gpu_ms,
	** res_net_ms (written when the context's res_cols is set; 0 and
	** has_res 0: empty) */
	int has_res;
	double res_ms[3];
};

/* The import context handed to importers. */
struct imp_ctx {
	const struct imp_opts *opts;
	struct imp_stats *stats;
	void *state;              /* the importer's zeroed szState bytes */
	const char *out_stem;     /* out_path less ".csv"; NULL for stdout */
	const char *format;
	int host_cols;            /* set by the importer: write the optional
				     columns cpu_milli, host_mem_mib */
	int rebase;               /* set by the importer: times are absolute
				     (datetimes); shift the earliest job or
				     arrival to 0 */
	int res_cols;             /* set by the importer before its first
				     row: the trace carries the optional
				     res_*_ms columns */
	struct imp_sink *sink;    /* internal */
	struct sim_rng rng;       /* ("import.sample", 0) */
};

/* 1 to keep the current record, 0 when --sample drops it (counted).
** Call exactly once per data record, in file order. */
int imp_sample(struct imp_ctx *c);

/* Counts a skipped record under reason, or a note (an assumption or a
** mapping applied). */
void imp_skip(struct imp_ctx *c, const char *reason);
void imp_note(struct imp_ctx *c, const char *reason);

/* Applies --gpu-scale and --max-gpus to a GPU count (notes what changed). */
int imp_scale_gpus(struct imp_ctx *c, int gpus);

/* Stages a job (sorted at the end).  SIM_EEXIST for a duplicate id, with
** path:line in err. */
int imp_emit_job(struct imp_ctx *c, const struct imp_job *j,
		 const char *path, long line, struct sim_err *err);

/* Opens a request arrival stream (one per inference service): its file is
** OUT_STEM.NAME.arrivals; *svc receives its handle and *basename the file
** name to put in arrival_arg (lives as long as the import).  SIM_EINVAL
** when the output is stdout. */
int imp_arrivals_open(struct imp_ctx *c, const char *name, int *svc,
		      const char **basename, struct sim_err *err);
int imp_arrival(struct imp_ctx *c, int svc, sim_time t_ns,
		struct sim_err *err);
/* An arrival with its prompt and output token counts (1..2^24): a
** service with any such arrival gets a request file (header
** t_s,prompt_tokens,output_tokens; docs/TRACE_FORMAT.md). */
int imp_arrival_tokens(struct imp_ctx *c, int svc, sim_time t_ns,
		       int prompt_tokens, int output_tokens,
		       struct sim_err *err);

/* Writes a side file OUT_STEM.SUFFIX holding text; records it in stats. */
int imp_side_file(struct imp_ctx *c, const char *suffix, const char *text,
		  struct sim_err *err);

/* The final path part of path ("a/b.csv" -> "b.csv"). */
const char *imp_basename(const char *path);

/* Resolves a model name through opts.model_map, then the given built-in
** table ({from, to} pairs, NULL-terminated); returns a zoo name or NULL. */
const char *imp_map_model(struct imp_ctx *c, const char *name,
			  const char *const (*builtin)[2], char *buf,
			  size_t n);

/* A training job's model through imp_map_model: skips the row (with a
** note naming the model) when it maps to nothing, then samples
** (imp_sample), then notes a mapping.  Returns the zoo name in buf, or
** NULL: the row is not taken. */
const char *imp_take_model(struct imp_ctx *c, const char *name,
			   const char *const (*builtin)[2], char *buf,
			   size_t n);

/* A job's batch: the row's (h_batch: it has one; capped at 10^6), else
** --batch, else 32, each fallback noted. */
int imp_batch(struct imp_ctx *c, int h_batch, long long batch);

/* Looks key up in a "k=v,k=v" list; copies v into buf; 1 found, 0 not. */
int imp_kv_lookup(const char *list, const char *key, char *buf, size_t n);


/*
** Request traces (alibaba-genai-v2026, azure-llm-2023): each input file is
** one inference service.  Every record is one request arrival at the time
** in time_col (a datetime); int_cols are checked to be integers (and then
** dropped, unless they are prompt_col / output_col, whose values go into
** the request file); the status column, if any, is counted by value.  At the end of
** the file the service row is emitted: id = the file's name less ".csv",
** submit_s = its first kept arrival, arrival = file.
*/
struct imp_req_spec {
	const char *time_col;
	const char *status_col;          /* NULL: none */
	const char *const *num_cols;     /* NULL-terminated; checked, dropped */
	const char *model;               /* default zoo model */
	const char *model_note;          /* the note recording that choice */
	int batch;                       /* default max batch */
	double slo_ms;                   /* default SLO */
	const char *slo_note;
	/* the requests' token counts (NULL: none), kept in the request file;
	** with --llm the service is an llm row of llm_model */
	const char *prompt_col, *output_col;
	const char *llm_model, *llm_note;
	int llm_batch;                   /* max_num_seqs */
};
int imp_request_file(struct imp_ctx *c, const char *path,
		     const struct imp_req_spec *spec, struct sim_err *err);

#endif
