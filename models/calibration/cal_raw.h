/*
** cal_raw.h: the raw calibration CSV written by the CUDA microbenchmark
** suite (models/calibration/microbench/run_all.sh), read with libcsv.
**
** The file is long format, one measured distribution per row, with exactly
** this header (docs/CALIBRATION.md documents every column and vocabulary):
**
**   schema,device,mode,bench,variant,param,param_value,metric,unit,n,
**   median,p05,p95,min,max
**
** Invariants of a loaded table: every row has schema CAL_RAW_SCHEMA, the
** same device, n >= 1, finite numbers with min <= p05 <= median <= p95 <=
** max, and remembers the line it came from.  Rows keep file order.
*/
#ifndef COLOSIM_MODELS_CALIBRATION_CAL_RAW_H
#define COLOSIM_MODELS_CALIBRATION_CAL_RAW_H

#include <stddef.h>

#include "sim/err.h"

/* The value of the schema column this reader accepts. */
#define CAL_RAW_SCHEMA "colosim-raw-1"
/* The header line, without its newline. */
#define CAL_RAW_HEADER "schema,device,mode,bench,variant,param,param_value," \
	"metric,unit,n,median,p05,p95,min,max"
#define CAL_RAW_NCOLS 15
#define CAL_NAME_MAX 64
/* Data rows of one raw CSV: the suite writes a few thousand; the table is
** held whole for the fits (512 bytes a row, 51 MB at the limit). */
#define CAL_ROWS_MAX 100000

struct cal_row {
	char mode[CAL_NAME_MAX];     /* exclusive, streams, timeslice, mps */
	char bench[CAL_NAME_MAX];    /* memcpy_sweep, hbm_stream, ... */
	char variant[CAL_NAME_MAX];  /* h2d_pinned, copy, compute+memory ... */
	char param[CAL_NAME_MAX];    /* bytes, sms, percent, nproc, none ... */
	double param_value;
	char metric[CAL_NAME_MAX];   /* time, bandwidth, slowdown, ... */
	char unit[CAL_NAME_MAX];     /* ns, bytes_per_s, ratio, ... */
	long n;                      /* trials behind the statistics */
	double median, p05, p95, min, max;
	int line;                    /* 1-based line in the file */
};

struct cal_raw {
	char path[256];              /* the file it came from */
	char device[CAL_NAME_MAX];   /* the device column (same on every row) */
	struct cal_row *rows;        /* owned */
	size_t n, cap;
};

/*
** Reads a raw CSV into *raw (initialised here; release with cal_raw_fini,
** also after a failure).  Returns 0, SIM_ENOENT/SIM_EIO if the file cannot
** be read, SIM_ENOMEM, or SIM_EPARSE with "file:line:column: name: what was
** expected" in err.  An empty table (header only) is an error.
*/
int cal_raw_read(struct cal_raw *raw, const char *path, struct sim_err *err);

/* Frees the rows; accepts a zeroed or already finalised table. */
void cal_raw_fini(struct cal_raw *raw);

#endif
