/*
** import.h: importers that turn public GPU-cluster and inference traces
** into colosim's trace format v1 (docs/TRACE_FORMAT.md, "Importers").
**
** One importer per upstream format (traces/import_FORMAT.c), listed in a
** static table (traces/import.c).  An import
**   - streams each input with libcsv, one record at a time;
**   - turns each record into at most one job (or, for request traces, one
**     request arrival), or counts it as skipped under a named reason;
**   - stages jobs and arrivals in a private temporary SQLite database (on
**     disk, with a bounded page cache), which sorts them by submit time and
**     checks that ids are unique;
**   - writes the v1 trace, and the side files: request arrival files for
**     inference services, a cluster spec for node lists.
** So memory stays bounded whatever the input's length; only the disk use
** grows with it.
**
** Randomness (sampling) comes from the named stream ("import.sample", 0)
** under opts.seed: the same inputs, options and seed give the same bytes.
**
** Invariants of the output: rows are ordered by non-decreasing submit_s
** (ties keep input order); every row satisfies the v1 field rules; every
** skipped record is counted under one reason in struct imp_stats.
*/
#ifndef COLOSIM_TRACES_IMPORT_H
#define COLOSIM_TRACES_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"
#include "sim/time.h"

/* Options shared by all importers; imp_opts_init fills the defaults.
** Fields left at their "unset" value (NULL, 0, < 0) take the importer's
** documented default. */
struct imp_opts {
	double compress;          /* submit and arrival times are divided by
				     this (>= 1 compresses); default 1 */
	double sample;            /* keep each job / request with this
				     probability, (0, 1]; default 1 */
	double gpu_scale;         /* multiply each job's GPU count by this,
				     rounded to nearest, at least 1 */
	int max_gpus;             /* clamp GPU counts to this; 0 = no clamp */
	uint64_t seed;            /* master seed of the sampling stream */
	const char *model;        /* zoo model for traces without model names */
	const char *model_map;    /* "from=to,..." extra model name mappings */
	const char *device_map;   /* "G2=a100-40gb,..." GPU type -> device */
	int batch;                /* per-GPU / max batch; 0 = default */
	double slo_ms;            /* inference SLO; 0 = default */
	double rate_per_s;        /* Poisson rate per instance; 0 = default */
	int replicas;             /* replicas per inference service; 0 = 1 */
	int keep_pending;         /* alibaba-v2023: keep never-scheduled pods */
	int host;                 /* alibaba-v2023: the pods' CPU and memory
				     (cpu_milli, host_mem_mib columns) and
				     the nodes' in the cluster spec */
	/* muri: which length a row gets when it has both a duration and
	** iterations x iteration time (IMP_LEN_*); and a factor on every
	** iteration time (0 = 1; Muri's simulator uses 1.015) */
	int length;
	double iter_scale;
	int llm;                  /* azure-llm-2023: write llm services (their
				     requests' token counts in the request
				     files) instead of infer services */
};

enum { IMP_LEN_ITERATIONS = 0, IMP_LEN_DURATION = 1 };

void imp_opts_init(struct imp_opts *o);

/* Counts of one import.  Reasons are short English phrases; the table
** keeps the first IMP_REASONS_MAX distinct ones (more is a bug: each
** importer has a fixed set). */
#define IMP_REASONS_MAX 32
#define IMP_REASON_LEN 128

struct imp_count {
	char reason[IMP_REASON_LEN];
	long n;
};

struct imp_stats {
	long rows_read;           /* data records read, over all inputs */
	long jobs_written;        /* rows of the output trace */
	long arrivals_written;    /* lines of the arrival files */
	long sampled_out;         /* records dropped by --sample */
	long skipped;             /* records skipped, sum of skip[].n */
	int nskip;
	struct imp_count skip[IMP_REASONS_MAX];    /* why records were skipped */
	int nnote;
	struct imp_count note[IMP_REASONS_MAX];    /* mappings and assumptions
						      applied, with counts */
	char side_files[4][640];  /* side files written (arrivals, cluster) */
	int nside;
	long side_more;           /* side files beyond those listed */
};

/* An importer.  Its functions are internal (traces/import_csv.h). */
struct imp_ctx;
struct imp_format {
	const char *zName;        /* "alibaba-v2023" */
	const char *zSummary;     /* one line */
	const char *zInputs;      /* what the INPUT files are */
	/* Called once per input file, with the path; reads it whole. */
	int (*xFile)(struct imp_ctx *c, const char *path, struct sim_err *err);
	/* Called after the last input; may add the last rows.  Optional. */
	int (*xFinish)(struct imp_ctx *c, struct sim_err *err);
	size_t szState;           /* private state, zeroed, freed by imp_run */
};

/* The NULL-terminated table of importers, and lookup by name. */
extern const struct imp_format *const imp_formats[];
const struct imp_format *imp_find(const char *name);
/* "alibaba-v2023, alibaba-v2025, ..." into buf. */
void imp_format_names(char *buf, size_t n);

/*
** Imports ninputs files of the given format into out_path (NULL: write the
** trace to `out`, which then must be non-NULL; formats with side files
** need out_path).  Side files go next to out_path: OUT_STEM.NAME.arrivals
** and OUT_STEM.cluster, where OUT_STEM is out_path less a ".csv" suffix.
** Returns 0, or a negative SIM_E* code with "file:line:column: ..." in err
** for input errors.  On error a partly written out_path is removed.
** stats is always filled with the counts so far.
*/
int imp_run(const struct imp_format *fmt, const char *const *inputs,
	    int ninputs, const char *out_path, FILE *out,
	    const struct imp_opts *opts, struct imp_stats *stats,
	    struct sim_err *err);

/* Formats t_ns as decimal seconds, exact, without trailing zeros
** ("12.5", "0", "427061"); buf holds at least 32 bytes. */
void imp_fmt_seconds(sim_time t_ns, char *buf, size_t n);

/* Parses "YYYY-MM-DD HH:MM:SS[.fffffffff]" into nanoseconds since
** 1970-01-01 00:00:00 of the same (unnamed) time zone.  0 or -1
** (malformed, or a year outside IMP_YEAR_MIN..IMP_YEAR_MAX, the span
** whose nanoseconds fit int64 with room to spare). */
#define IMP_YEAR_MIN 1900
#define IMP_YEAR_MAX 2099
int imp_parse_datetime(const char *s, sim_time *t_ns);

/* Parses a decimal number of seconds ("12", "475.00000000000006") into
** nanoseconds, rounded to the nearest.  0 or -1 (malformed, negative or
** past SIM_NUM_TIME_MAX_S, sim/num.h). */
int imp_parse_seconds(const char *s, sim_time *t_ns);

/* The zoo names of trace format v1, NULL-terminated, and a case-
** insensitive check; "resnet50, ..." into buf. */
extern const char *const imp_zoo_names[];
int imp_is_zoo_model(const char *name);
void imp_zoo_list(char *buf, size_t n);

#endif
