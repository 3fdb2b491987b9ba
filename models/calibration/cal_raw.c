/*
** cal_raw.c: reader of the raw calibration CSV (see cal_raw.h).
**
** The file is fed to libcsv one physical line at a time, so that the field
** and record callbacks know the line they are on (a record is reported when
** its terminating newline is parsed).  The first error wins and stops the
** parse; later callbacks are ignored.  Fields longer than CAL_FIELD_MAX or
** holding a newline are refused: the format has no use for either.
*/
#include "sim/file.h"
#include "models/calibration/cal_raw.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

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
	int line;                    /* physical line being parsed */
	int nrec;                    /* records seen, header included */
	int ncol;                    /* fields of the current record */
	int overflow;                /* too many fields in this record */
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

static void on_field(void *s, size_t len, void *data)
{
	struct parse_ctx *c = data;
	int col = c->ncol++;

	if (c->failed)
		return;
	if (col >= CAL_RAW_NCOLS) {
		c->overflow = 1;
		return;
	}
	if (len >= CAL_FIELD_MAX) {
		fail(c, col + 1, "%s: field longer than %d characters",
		     col_names[col], CAL_FIELD_MAX - 1);
		return;
	}
	if (memchr(s, '\n', len) != NULL || memchr(s, '\r', len) != NULL) {
		fail(c, col + 1, "%s: %s", col_names[col],
		     "field holds a line break");
		return;
	}
	memcpy(c->f[col], s, len);
	c->f[col][len] = '\0';
}

static int parse_num(struct parse_ctx *c, int col, double *out)
{
	const char *s = c->f[col];
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || end == s || *end != '\0' || errno == ERANGE ||
	    !isfinite(v))
		return fail(c, col + 1, "%s: expected a finite number, found '%s'",
			    col_names[col], s);
	*out = v;
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
	char *end;
	long n;

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
	errno = 0;
	n = strtol(c->f[9], &end, 10);
	if (c->f[9][0] == '\0' || *end != '\0' || errno != 0 || n < 1)
		return fail(c, 10, "n: expected a whole number >= 1, found '%s'",
			    c->f[9]);
	r->n = n;
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

static void on_record(int term, void *data)
{
	struct parse_ctx *c = data;
	struct cal_raw *raw = c->raw;
	struct cal_row row;
	int ncol = c->ncol;

	(void)term;
	c->ncol = 0;
	if (c->failed)
		return;
	c->nrec++;
	if (c->overflow) {
		c->overflow = 0;
		fail(c, CAL_RAW_NCOLS + 1, "found %d columns, expected %d",
		     ncol, CAL_RAW_NCOLS);
		return;
	}
	if (ncol < CAL_RAW_NCOLS) {
		fail(c, ncol + 1, "%s: missing (found %d columns, expected %d)",
		     col_names[ncol], ncol, CAL_RAW_NCOLS);
		return;
	}
	if (c->nrec == 1) {
		check_header(c);
		return;
	}
	memset(&row, 0, sizeof row);
	if (row_from_fields(c, &row))
		return;
	if (raw->n == raw->cap) {
		size_t cap = raw->cap ? 2 * raw->cap : 64;
		struct cal_row *p = realloc(raw->rows, cap * sizeof *p);

		if (p == NULL) {
			c->failed = 1;
			c->code = SIM_ENOMEM;
			sim_err_set(c->err, SIM_ENOMEM, "%s: out of memory",
				    raw->path);
			return;
		}
		raw->rows = p;
		raw->cap = cap;
	}
	raw->rows[raw->n++] = row;
}

int cal_raw_read(struct cal_raw *raw, const char *path, struct sim_err *err)
{
	struct parse_ctx *c;
	struct csv_parser p;
	FILE *f;
	char *buf = NULL;
	size_t bufcap = 0;
	ssize_t len;
	int rc = 0;

	memset(raw, 0, sizeof *raw);
	snprintf(raw->path, sizeof raw->path, "%s", path);
	if ((rc = sim_fopen_in(&f, path, "r", "", err)) != 0)
		return rc;
	c = calloc(1, sizeof *c);
	if (c == NULL || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI |
				  CSV_APPEND_NULL) != 0) {
		free(c);
		fclose(f);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	c->raw = raw;
	c->err = err;
	while (!c->failed && (len = getline(&buf, &bufcap, f)) > 0) {
		c->line++;
		if (csv_parse(&p, buf, (size_t)len, on_field, on_record, c) !=
		    (size_t)len && !c->failed)
			fail(c, 0, "CSV syntax: %s",
			     csv_strerror(csv_error(&p)));
	}
	if (!c->failed && ferror(f))
		rc = sim_err_set(err, SIM_EIO, "%s: read error", path);
	if (!c->failed && rc == 0 &&
	    csv_fini(&p, on_field, on_record, c) != 0 && !c->failed)
		fail(c, 0, "CSV syntax: %s (unterminated quote?)",
		     csv_strerror(csv_error(&p)));
	if (!c->failed && rc == 0 && c->nrec == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:1: empty file, expected "
				 "the header '%s'", path, CAL_RAW_HEADER);
	else if (!c->failed && rc == 0 && raw->n == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:2: no data rows after "
				 "the header", path);
	if (c->failed)
		rc = c->code;
	csv_free(&p);
	free(buf);
	free(c);
	fclose(f);
	return rc;
}

void cal_raw_fini(struct cal_raw *raw)
{
	free(raw->rows);
	raw->rows = NULL;
	raw->n = raw->cap = 0;
}
