/*
** cal_raw.c: reader of the raw calibration CSV (see cal_raw.h).
**
** Records come from the one CSV reader (sim/csv.h), numbers from
** sim/num.h.  The first error wins and stops the read.  Fields longer than
** CAL_FIELD_MAX or holding a newline are refused: the format has no use
** for either.  Columns in messages are 1-based field numbers.
*/
#include "models/calibration/cal_raw.h"

#include <float.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/csv.h"
#include "sim/num.h"

#define CAL_FIELD_MAX 256

static const char *const col_names[CAL_RAW_NCOLS] = {
	"schema", "device", "mode", "bench", "variant", "param", "param_value",
	"metric", "unit", "n", "median", "p05", "p95", "min", "max"
};

struct parse_ctx {
	struct cal_raw *raw;
	struct sim_err *err;
	int failed;
	int code;                    /* the first error's code */
	int line;                    /* line of the current record */
	int nrec;                    /* records seen, header included */
	char f[CAL_RAW_NCOLS][CAL_FIELD_MAX];
};

static int fail(struct parse_ctx *c, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int fail(struct parse_ctx *c, int col, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	c->failed = 1;
	c->code = SIM_EPARSE;
	if (col > 0)
		return sim_err_set(c->err, SIM_EPARSE, "%s:%d:%d: %s",
				   c->raw->path, c->line, col, what);
	return sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s", c->raw->path,
			   c->line, what);
}

/* Copies the fields of a record into c->f (their count already checked). */
static int copy_fields(struct parse_ctx *c, const struct sim_csv_rec *rec)
{
	int col;

	for (col = 0; col < CAL_RAW_NCOLS; col++) {
		size_t len = rec->len[col];

		if (len >= CAL_FIELD_MAX)
			return fail(c, col + 1, "%s: field longer than %d "
				    "characters", col_names[col],
				    CAL_FIELD_MAX - 1);
		if (strpbrk(rec->f[col], "\r\n") != NULL)
			return fail(c, col + 1, "%s: %s", col_names[col],
				    "field holds a line break");
		memcpy(c->f[col], rec->f[col], len + 1);
	}
	return 0;
}

static int parse_num(struct parse_ctx *c, int col, double *out)
{
	const char *s = c->f[col];

	if (sim_num_double(s, NULL, -DBL_MAX, DBL_MAX, out, NULL) != 0)
		return fail(c, col + 1, "%s: expected a finite number, found '%s'",
			    col_names[col], s);
	return 0;
}

/* A name column: non-empty, no spaces or commas (they would be quoted). */
static int check_name(struct parse_ctx *c, int col, char *dst)
{
	const char *s = c->f[col];

	if (*s == '\0')
		return fail(c, col + 1, "%s: %s", col_names[col],
			    "expected a name, found an empty field");
	if (strlen(s) >= CAL_NAME_MAX)
		return fail(c, col + 1, "%s: name longer than %d characters",
			    col_names[col], CAL_NAME_MAX - 1);
	if (strpbrk(s, " \t,\"") != NULL)
		return fail(c, col + 1, "%s: '%s' holds a space, comma or quote",
			    col_names[col], s);
	strcpy(dst, s);
	return 0;
}

static int check_header(struct parse_ctx *c)
{
	int i;

	for (i = 0; i < CAL_RAW_NCOLS; i++)
		if (strcmp(c->f[i], col_names[i]) != 0)
			return fail(c, i + 1, "header: expected '%s', found '%s'",
				    col_names[i], c->f[i]);
	return 0;
}

static int row_from_fields(struct parse_ctx *c, struct cal_row *r)
{
	struct cal_raw *raw = c->raw;
	char nbuf[32];
	int64_t n;

	if (strcmp(c->f[0], CAL_RAW_SCHEMA) != 0)
		return fail(c, 1, "schema: expected '%s', found '%s'",
			    CAL_RAW_SCHEMA, c->f[0]);
	if (c->f[1][0] == '\0' || strlen(c->f[1]) >= CAL_NAME_MAX ||
	    strpbrk(c->f[1], "@\"") != NULL)
		return fail(c, 2, "device: expected a name of 1 to 63 characters "
			    "without '@' or quotes, found '%s'", c->f[1]);
	if (raw->n == 0)
		strcpy(raw->device, c->f[1]);
	else if (strcmp(raw->device, c->f[1]) != 0)
		return fail(c, 2, "device: '%s' differs from '%s' on the first "
			    "row (one device per file)", c->f[1], raw->device);
	if (check_name(c, 2, r->mode) || check_name(c, 3, r->bench) ||
	    check_name(c, 4, r->variant) || check_name(c, 5, r->param) ||
	    check_name(c, 7, r->metric) || check_name(c, 8, r->unit))
		return SIM_EPARSE;
	if (parse_num(c, 6, &r->param_value))
		return SIM_EPARSE;
	if (sim_num_i64(c->f[9], NULL, 1, INT32_MAX, &n, NULL) != 0)
		return fail(c, 10, "n: expected a whole number >= 1, found '%s'",
			    c->f[9]);
	r->n = (long)n;
	if (parse_num(c, 10, &r->median) || parse_num(c, 11, &r->p05) ||
	    parse_num(c, 12, &r->p95) || parse_num(c, 13, &r->min) ||
	    parse_num(c, 14, &r->max))
		return SIM_EPARSE;
	snprintf(nbuf, sizeof nbuf, "%g", r->median);
	if (!(r->min <= r->p05))
		return fail(c, 12, "p05: %s is below min %s", c->f[11], c->f[13]);
	if (!(r->p05 <= r->median))
		return fail(c, 11, "median: %s is below p05 %s", nbuf, c->f[11]);
	if (!(r->median <= r->p95))
		return fail(c, 13, "p95: %s is below the median %s", c->f[12],
			    nbuf);
	if (!(r->p95 <= r->max))
		return fail(c, 15, "max: %s is below p95 %s", c->f[14], c->f[12]);
	r->line = c->line;
	return 0;
}

static int on_record(struct parse_ctx *c, const struct sim_csv_rec *rec)
{
	struct cal_raw *raw = c->raw;
	struct cal_row row;
	int ncol = rec->nf;

	c->line = (int)rec->line;
	c->nrec++;
	if (ncol > CAL_RAW_NCOLS)
		return fail(c, CAL_RAW_NCOLS + 1, "found %d columns, expected %d",
			    ncol, CAL_RAW_NCOLS);
	if (ncol < CAL_RAW_NCOLS)
		return fail(c, ncol + 1, "%s: missing (found %d columns, "
			    "expected %d)", col_names[ncol], ncol,
			    CAL_RAW_NCOLS);
	if (copy_fields(c, rec))
		return SIM_EPARSE;
	if (c->nrec == 1)
		return check_header(c);
	memset(&row, 0, sizeof row);
	if (row_from_fields(c, &row))
		return SIM_EPARSE;
	if (raw->n == CAL_ROWS_MAX) {
		c->failed = 1;
		c->code = SIM_ERANGE;
		return sim_err_set(c->err, SIM_ERANGE, "%s:%ld: more than %d "
				   "data rows (docs/LIMITS.md)", raw->path,
				   rec->line, CAL_ROWS_MAX);
	}
	if (raw->n == raw->cap) {
		size_t cap = raw->cap ? 2 * raw->cap : 64;
		struct cal_row *p = realloc(raw->rows, cap * sizeof *p);

		if (p == NULL) {
			c->failed = 1;
			c->code = SIM_ENOMEM;
			return sim_err_set(c->err, SIM_ENOMEM, "%s: out of "
					   "memory", raw->path);
		}
		raw->rows = p;
		raw->cap = cap;
	}
	raw->rows[raw->n++] = row;
	return 0;
}

int cal_raw_read(struct cal_raw *raw, const char *path, struct sim_err *err)
{
	struct parse_ctx *c;
	struct sim_csv *r;
	struct sim_csv_rec rec;
	int rc;

	memset(raw, 0, sizeof *raw);
	snprintf(raw->path, sizeof raw->path, "%s", path);
	if ((rc = sim_csv_open(&r, path, "", SIM_CSV_HEADER, NULL, err)) != 0)
		return rc;
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		sim_csv_close(r);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	c->raw = raw;
	c->err = err;
	while ((rc = sim_csv_next(r, &rec, err)) == 1)
		if ((rc = on_record(c, &rec)) != 0)
			break;
	if (rc == 0 && raw->n == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:2: no data rows after "
				 "the header", path);
	if (c->failed)
		rc = c->code;
	free(c);
	sim_csv_close(r);
	return rc;
}

void cal_raw_fini(struct cal_raw *raw)
{
	free(raw->rows);
	raw->rows = NULL;
	raw->n = raw->cap = 0;
}
