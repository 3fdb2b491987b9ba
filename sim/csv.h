/*
** csv.h: the one CSV reader of colosim (traces, importers, calibration raw
** CSVs, openb inputs, arrival files), over libcsv.
**
** Streaming: sim_csv_next hands out one record at a time and memory is
** bounded by the limits below, never by the file.  Lines are read with a
** bounded reader (no getline), so a file with no newline, or a 2 GB line,
** is a clear error at its line instead of a huge allocation.
**
** Positions: every record knows the physical line it starts on, and each
** field the line and 1-based character column where it starts (quote
** aware: a quoted field may span lines).  The reader's own errors are
** "PATH:LINE:COLUMN: what" (SIM_EPARSE); readers built on it name their
** fields the same way.
**
** Limits (defaults; sim_csv_open may lower them, tests do):
**   SIM_CSV_LINE_MAX    bytes of one physical line, end of line excluded
**   SIM_CSV_FIELD_MAX   bytes of one field
**   SIM_CSV_RECORD_MAX  bytes of one record (a quoted field spans lines)
**   SIM_CSV_FIELDS_MAX  fields of one record
** Past one: "PATH:LINE:COL: line longer than 65536 bytes" and so on.
**
** Syntax: RFC 4180 through libcsv in strict mode (a quote inside an
** unquoted field is an error), unquoted fields trimmed of blanks, "\r\n"
** or "\n" ends a line, a carriage return elsewhere outside quotes and a NUL
** byte are errors.  Blank lines between records are skipped; with
** SIM_CSV_COMMENTS so are lines whose first non-blank character is '#'
** (outside a quoted field).
**
** Errors are recoverable: after sim_csv_next fails, the next call goes on
** with the next line, so a validator can list every bad record.
*/
#ifndef COLOSIM_SIM_CSV_H
#define COLOSIM_SIM_CSV_H

#include <stddef.h>

#include "sim/err.h"

#define SIM_CSV_LINE_MAX   65536
#define SIM_CSV_FIELD_MAX  4096
#define SIM_CSV_RECORD_MAX 262144
#define SIM_CSV_FIELDS_MAX 1024
/* Past a too-long line, the bytes skipped looking for its end; more, and
** the reader stops (a stream without line ends). */
#define SIM_CSV_SKIP_MAX   (4 << 20)

/* Flags of sim_csv_open. */
#define SIM_CSV_COMMENTS 0x1  /* skip '#' lines between records */
#define SIM_CSV_HEADER   0x2  /* the first record is a header: an empty
				 file is an error, and errors in a field
				 name its column */

struct sim_csv_limits {
	size_t line_max, field_max, record_max;   /* 0: the default */
	int fields_max;
};

/*
** One record.  Everything it points to lives until the next call on the
** reader (or its close).
*/
struct sim_csv_rec {
	const char *path;
	long line;                 /* physical line where the record starts */
	long index;                /* records before it (0: the first) */
	int nf;                    /* fields */
	char *const *f;            /* nf NUL-terminated fields, then NULL */
	const size_t *len;         /* their lengths */
	const long *fline;         /* line where field k starts */
	const int *col;            /* 1-based column where field k starts */
	size_t first_len;          /* characters on the record's first line */
};

struct sim_csv;

/*
** Opens path ("what" names the input in the cannot-open message: "trace",
** "" for none) with SIM_CSV_* flags and lim (NULL: the defaults).  On
** success *out owns the reader (sim_csv_close).  Errors as sim_fopen_in:
** SIM_ENOENT, SIM_EINVAL, SIM_EIO; SIM_ENOMEM.
*/
int sim_csv_open(struct sim_csv **out, const char *path, const char *what,
		 unsigned flags, const struct sim_csv_limits *lim,
		 struct sim_err *err);

/*
** The next record into *rec: 1, 0 at the end of the file, or a negative
** code with err set (SIM_EPARSE for malformed CSV or a limit, SIM_EIO,
** SIM_ENOMEM); reading can go on after SIM_EPARSE.  With SIM_CSV_HEADER an
** empty file is SIM_EPARSE "PATH:1:1: empty file: expected a header line".
*/
int sim_csv_next(struct sim_csv *r, struct sim_csv_rec *rec,
		 struct sim_err *err);

/*
** The next physical line, unparsed (no end of line), for a format whose
** first line is not CSV (a trace's magic line): 1 and *line (lives until
** the next call), 0 at the end, or a negative code.  Only between records.
*/
int sim_csv_raw_line(struct sim_csv *r, const char **line, size_t *len,
		     struct sim_err *err);

/* The column where field k starts; past the last field, the column after
** the end of the record's first line (where a missing field would go). */
int sim_csv_col(const struct sim_csv_rec *rec, int k);

/* The header record (SIM_CSV_HEADER, once read), or NULL. */
const struct sim_csv_rec *sim_csv_header(const struct sim_csv *r);

/* The path, and the last physical line read (0 before the first). */
const char *sim_csv_path(const struct sim_csv *r);
long sim_csv_lineno(const struct sim_csv *r);

/* Closes and frees; accepts NULL. */
void sim_csv_close(struct sim_csv *r);

/*
** Reads path record by record, calling fn on each (the header too, as
** index 0); stops at the first error or non-zero return of fn and returns
** it.  0 when every record was handled.
*/
typedef int (*sim_csv_fn)(void *ctx, const struct sim_csv_rec *rec,
			  struct sim_err *err);
int sim_csv_each(const char *path, const char *what, unsigned flags,
		 sim_csv_fn fn, void *ctx, struct sim_err *err);

#endif
