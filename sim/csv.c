/*
** csv.c: the streaming CSV reader over libcsv (see csv.h).
**
** libcsv is push-based and says nothing about positions.  This file reads
** one physical line at a time with a bounded reader, scans it for the
** positions where fields start (a quote toggles "inside a quoted field";
** a comma outside starts the next field: the same rule libcsv applies to
** well-formed input), then pushes the line and its newline into libcsv,
** whose callbacks collect the fields of the current record into buffers
** reused for every record.  A line ends at '\n' (a '\r' before it is
** dropped), so at most one record completes per line and the reader can
** hand records out one at a time.
**
** Invariants: between records in_rec is 0 and libcsv is at a row start;
** every buffer is bounded by the limits; after an error the record state
** and libcsv are reset, so the next call starts at the next line.
*/
#include "sim/csv.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/file.h"

/* A record's fields: bytes (each NUL-terminated) and per-field arrays. */
struct fields {
	char *buf;
	size_t len, cap;
	size_t *off, *flen;
	long *fline;
	int *col;
	char **f;
	int nf, cap_f;
};

struct sim_csv {
	FILE *f;
	char *path;
	unsigned flags;
	struct sim_csv_limits lim;
	struct csv_parser p;
	int p_ok;                 /* p initialised */
	char *line;               /* the current physical line, NUL-ended */
	size_t line_len;
	int line_nul;             /* 1-based column of a NUL byte, or 0 */
	long lineno;
	int eof;
	/* the record being read */
	int in_rec, done;
	long rec_line, index;
	size_t rec_bytes, first_len;
	int too_many;             /* more than fields_max fields */
	int too_long;             /* 1-based field longer than field_max */
	int oom;
	struct fields cur;
	/* the position scanner */
	int sc_inq, sc_nf;
	char sc_prev;
	long q_line;
	int q_col;                /* where the open quote is */
	/* the header, with SIM_CSV_HEADER */
	struct fields hdr;
	struct sim_csv_rec hdr_rec;
	int has_hdr, empty_told;
};

/* ---- buffers ---- */

static int fields_reserve(struct fields *s, int n)
{
	int cap;

	if (n <= s->cap_f)
		return 0;
	cap = s->cap_f ? 2 * s->cap_f : 32;
	while (cap < n)
		cap *= 2;
	/* Each array is replaced as soon as it has grown, so a failure
	** part-way leaves every pointer valid (some merely larger). */
#define GROW(p)                                                         \
	do {                                                            \
		void *q_ = realloc(p, (size_t)cap * sizeof *(p));       \
		if (q_ == NULL)                                         \
			return SIM_ENOMEM;                              \
		(p) = q_;                                               \
	} while (0)
	GROW(s->off);
	GROW(s->flen);
	GROW(s->fline);
	GROW(s->col);
	GROW(s->f);
#undef GROW
	s->cap_f = cap;
	return 0;
}

static int bytes_reserve(struct fields *s, size_t n)
{
	size_t cap;
	char *nb;

	if (n <= s->cap)
		return 0;
	cap = s->cap ? s->cap : 256;
	while (cap < n)
		cap *= 2;
	nb = realloc(s->buf, cap);
	if (nb == NULL)
		return SIM_ENOMEM;
	s->buf = nb;
	s->cap = cap;
	return 0;
}

static void fields_free(struct fields *s)
{
	free(s->buf);
	free(s->off);
	free(s->flen);
	free(s->fline);
	free(s->col);
	free(s->f);
	memset(s, 0, sizeof *s);
}

/* ---- libcsv callbacks ---- */

static void on_field(void *data, size_t len, void *ctx)
{
	struct sim_csv *r = ctx;
	struct fields *s = &r->cur;

	if (r->oom)
		return;
	if (s->nf >= r->lim.fields_max) {
		r->too_many = 1;
		return;
	}
	if (len > r->lim.field_max) {
		if (r->too_long == 0)
			r->too_long = s->nf + 1;
		len = 0;
	}
	if (fields_reserve(s, s->nf + 2) != 0 ||
	    bytes_reserve(s, s->len + len + 1) != 0) {
		r->oom = 1;
		return;
	}
	s->off[s->nf] = s->len;
	s->flen[s->nf] = len;
	if (len > 0)
		memcpy(s->buf + s->len, data, len);
	s->buf[s->len + len] = '\0';
	s->len += len + 1;
	s->nf++;
}

static void on_record(int c, void *ctx)
{
	struct sim_csv *r = ctx;

	(void)c;
	r->done = 1;
}

/* ---- lines ---- */

/* Reads the next physical line into r->line; 1, 0 at the end, or an
** error (a line past line_max: its rest is skipped, so reading goes on). */
static int read_line(struct sim_csv *r, struct sim_err *err)
{
	size_t n = 0, max = r->lim.line_max, skipped = 0;
	int c, too_long = 0;

	if (r->eof)
		return 0;
	r->line_nul = 0;
	while ((c = getc_unlocked(r->f)) != EOF && c != '\n') {
		if (n == max) {
			/* the rest of the line is skipped, so that reading
			** can go on with the next one; but not forever: a
			** stream without line ends (/dev/zero) stops here */
			too_long = 1;
			if (++skipped > SIM_CSV_SKIP_MAX) {
				r->eof = 1;
				r->lineno++;
				return sim_err_set(err, SIM_EPARSE, "%s:%ld:%zu: "
						   "no end of line in %d bytes: "
						   "not a text file; reading "
						   "stopped", r->path,
						   r->lineno, max + 1,
						   SIM_CSV_SKIP_MAX);
			}
			continue;
		}
		if (c == '\0' && r->line_nul == 0)
			r->line_nul = (int)n + 1;
		r->line[n++] = (char)c;
	}
	if (c == EOF) {
		r->eof = 1;
		if (ferror(r->f))
			return sim_err_set(err, SIM_EIO, "%s:%ld: read error: %s",
					   r->path, r->lineno + 1,
					   strerror(errno));
		if (n == 0 && !too_long)
			return 0;
	}
	r->lineno++;
	if (too_long)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%zu: line longer "
				   "than %zu bytes", r->path, r->lineno,
				   max + 1, max);
	if (n > 0 && r->line[n - 1] == '\r')
		n--;
	r->line[n] = '\0';
	r->line_len = n;
	return 1;
}

static int reset_parser(struct sim_csv *r)
{
	if (r->p_ok)
		csv_free(&r->p);
	r->p_ok = csv_init(&r->p, CSV_STRICT | CSV_APPEND_NULL) == 0;
	return r->p_ok ? 0 : SIM_ENOMEM;
}

/* Drops the record being read after an error. */
static void abandon(struct sim_csv *r)
{
	r->in_rec = 0;
	r->done = 0;
	reset_parser(r);
}

static void start_record(struct sim_csv *r)
{
	r->in_rec = 1;
	r->done = 0;
	r->rec_line = r->lineno;
	r->rec_bytes = 0;
	r->first_len = r->line_len;
	r->too_many = r->too_long = r->oom = 0;
	r->cur.nf = 0;
	r->cur.len = 0;
	r->sc_inq = 0;
	r->sc_nf = 0;
	r->sc_prev = 0;
}

/* Notes that field sc_nf starts at (line, col). */
static int mark_field(struct sim_csv *r, int col)
{
	struct fields *s = &r->cur;

	if (r->sc_nf > r->lim.fields_max)
		return 0;
	if (fields_reserve(s, r->sc_nf + 2) != 0)
		return SIM_ENOMEM;
	s->fline[r->sc_nf] = r->lineno;
	s->col[r->sc_nf] = col;
	r->sc_nf++;
	return 0;
}

/* Scans the line for field starts; 0, or the 1-based column of a carriage
** return outside quotes (negated), or SIM_ENOMEM. */
static int scan_line(struct sim_csv *r)
{
	const char *s = r->line;
	size_t i;

	if (r->sc_nf == 0 && mark_field(r, 1) != 0)
		return SIM_ENOMEM;
	for (i = 0; i < r->line_len; i++) {
		char c = s[i];

		if (r->sc_inq) {
			if (c == '"')
				r->sc_inq = 0;
		} else if (c == '"') {
			r->sc_inq = 1;
			if (r->sc_prev != '"') {     /* not a doubled quote */
				r->q_line = r->lineno;
				r->q_col = (int)i + 1;
			}
		} else if (c == ',') {
			if (mark_field(r, (int)i + 2) != 0)
				return SIM_ENOMEM;
		} else if (c == '\r') {
			return -(int)(i + 1);
		}
		r->sc_prev = c;
	}
	r->sc_prev = '\n';
	return 0;
}

static int is_skippable(const struct sim_csv *r)
{
	const char *p = r->line;

	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\0' || (*p == '#' && (r->flags & SIM_CSV_COMMENTS));
}

/* ---- records ---- */

static void fill_rec(struct sim_csv_rec *rec, struct fields *s,
		     const char *path, long line, long index,
		     size_t first_len)
{
	int i;

	for (i = 0; i < s->nf; i++)
		s->f[i] = s->buf + s->off[i];
	s->f[s->nf] = NULL;
	rec->path = path;
	rec->line = line;
	rec->index = index;
	rec->nf = s->nf;
	rec->f = s->f;
	rec->len = s->flen;
	rec->fline = s->fline;
	rec->col = s->col;
	rec->first_len = first_len;
}

/* Keeps a copy of the header record. */
static int keep_header(struct sim_csv *r, const struct sim_csv_rec *rec)
{
	struct fields *h = &r->hdr;
	int i;

	if (fields_reserve(h, rec->nf + 1) != 0 ||
	    bytes_reserve(h, r->cur.len + 1) != 0)
		return SIM_ENOMEM;
	memcpy(h->buf, r->cur.buf, r->cur.len);
	h->len = r->cur.len;
	h->nf = rec->nf;
	for (i = 0; i < rec->nf; i++) {
		h->off[i] = r->cur.off[i];
		h->flen[i] = rec->len[i];
		h->fline[i] = rec->fline[i];
		h->col[i] = rec->col[i];
	}
	fill_rec(&r->hdr_rec, h, r->path, rec->line, 0, rec->first_len);
	r->has_hdr = 1;
	return 0;
}

/* The name of field k in messages: the header's column, or "field K". */
static void field_name(const struct sim_csv *r, int k, char *buf, size_t n)
{
	if (r->has_hdr && k < r->hdr.nf && r->hdr_rec.f[k][0] != '\0')
		snprintf(buf, n, "%.60s", r->hdr_rec.f[k]);
	else
		snprintf(buf, n, "field %d", k + 1);
}

/* The record just completed: checks the limits and hands it out. */
static int finish_record(struct sim_csv *r, struct sim_csv_rec *rec,
			 struct sim_err *err)
{
	struct fields *s = &r->cur;
	char name[80];

	r->in_rec = 0;
	/* The scanner sees every field libcsv delivers; should they ever
	** disagree, a field without a start gets the end of the line. */
	while (r->sc_nf < s->nf && r->sc_nf <= r->lim.fields_max)
		if (mark_field(r, (int)r->first_len + 1) != 0)
			r->oom = 1;
	if (fields_reserve(s, s->nf + 1) != 0)
		r->oom = 1;
	if (r->oom)
		return sim_err_set(err, SIM_ENOMEM, "%s:%ld: out of memory "
				   "reading a record", r->path, r->rec_line);
	if (r->too_many)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: more than %d "
				   "fields", r->path,
				   s->fline[r->lim.fields_max],
				   s->col[r->lim.fields_max],
				   r->lim.fields_max);
	if (r->too_long) {
		int k = r->too_long - 1;
		field_name(r, k, name, sizeof name);
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: field "
				   "longer than %zu bytes", r->path,
				   s->fline[k], s->col[k], name,
				   r->lim.field_max);
	}
	fill_rec(rec, s, r->path, r->rec_line, r->index++, r->first_len);
	if (rec->index == 0 && (r->flags & SIM_CSV_HEADER) &&
	    keep_header(r, rec) != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	return 1;
}

/* Pushes the current line into libcsv; 0, or an error. */
static int push_line(struct sim_csv *r, struct sim_err *err)
{
	size_t n = r->line_len, done;
	int rc;

	if (r->line_nul)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: NUL byte (not "
				   "a text file?)", r->path, r->lineno,
				   r->line_nul);
	r->rec_bytes += n + 1;
	if (r->rec_bytes > r->lim.record_max)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: record longer "
				   "than %zu bytes (a quote left open at line "
				   "%ld?)", r->path, r->rec_line, 1,
				   r->lim.record_max, r->q_line);
	rc = scan_line(r);
	if (rc == SIM_ENOMEM)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (rc < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: carriage return "
				   "inside a line (outside quotes)", r->path,
				   r->lineno, -rc);
	done = csv_parse(&r->p, r->line, n, on_field, on_record, r);
	if (done == n && csv_parse(&r->p, "\n", 1, on_field, on_record, r) == 1)
		return 0;
	rc = csv_error(&r->p);
	return sim_err_set(err, rc == CSV_ENOMEM ? SIM_ENOMEM : SIM_EPARSE,
			   "%s:%ld:%zu: malformed CSV: %s", r->path, r->lineno,
			   done + 1, csv_strerror(rc));
}

int sim_csv_next(struct sim_csv *r, struct sim_csv_rec *rec,
		 struct sim_err *err)
{
	int rc;

	for (;;) {
		rc = read_line(r, err);
		if (rc < 0) {
			abandon(r);
			return rc;
		}
		if (rc == 0)
			break;
		if (!r->in_rec) {
			if (is_skippable(r))
				continue;
			start_record(r);
		}
		if ((rc = push_line(r, err)) != 0) {
			abandon(r);
			return rc;
		}
		if (r->done)
			return finish_record(r, rec, err);
	}
	if (r->in_rec) {
		abandon(r);
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: unterminated "
				   "quoted field at the end of the file",
				   r->path, r->q_line, r->q_col);
	}
	if ((r->flags & SIM_CSV_HEADER) && r->index == 0 && !r->empty_told) {
		r->empty_told = 1;
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: empty file: "
				   "expected a header line", r->path);
	}
	return 0;
}

int sim_csv_raw_line(struct sim_csv *r, const char **line, size_t *len,
		     struct sim_err *err)
{
	int rc;

	if (r->in_rec)
		return sim_err_set(err, SIM_ESTATE, "%s:%ld: raw line inside a "
				   "record", r->path, r->lineno);
	rc = read_line(r, err);
	if (rc == 1) {
		*line = r->line;
		*len = r->line_len;
	}
	return rc;
}

int sim_csv_col(const struct sim_csv_rec *rec, int k)
{
	if (k >= 0 && k < rec->nf)
		return rec->col[k];
	return (int)rec->first_len + 1;
}

const struct sim_csv_rec *sim_csv_header(const struct sim_csv *r)
{
	return r->has_hdr ? &r->hdr_rec : NULL;
}

const char *sim_csv_path(const struct sim_csv *r)
{
	return r->path;
}

long sim_csv_lineno(const struct sim_csv *r)
{
	return r->lineno;
}

/* ---- open, close ---- */

int sim_csv_open(struct sim_csv **out, const char *path, const char *what,
		 unsigned flags, const struct sim_csv_limits *lim,
		 struct sim_err *err)
{
	struct sim_csv *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof *r);
	if (r == NULL)
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	r->flags = flags;
	r->lim.line_max = lim && lim->line_max ? lim->line_max :
			  SIM_CSV_LINE_MAX;
	r->lim.field_max = lim && lim->field_max ? lim->field_max :
			   SIM_CSV_FIELD_MAX;
	r->lim.record_max = lim && lim->record_max ? lim->record_max :
			    SIM_CSV_RECORD_MAX;
	r->lim.fields_max = lim && lim->fields_max ? lim->fields_max :
			    SIM_CSV_FIELDS_MAX;
	r->path = malloc(strlen(path) + 1);
	r->line = malloc(r->lim.line_max + 1);
	if (r->path == NULL || r->line == NULL || reset_parser(r) != 0) {
		sim_csv_close(r);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	strcpy(r->path, path);
	r->line[0] = '\0';
	if ((rc = sim_fopen_in(&r->f, path, "r", what, err)) != 0) {
		sim_csv_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void sim_csv_close(struct sim_csv *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	if (r->p_ok)
		csv_free(&r->p);
	fields_free(&r->cur);
	fields_free(&r->hdr);
	free(r->line);
	free(r->path);
	free(r);
}

int sim_csv_each(const char *path, const char *what, unsigned flags,
		 sim_csv_fn fn, void *ctx, struct sim_err *err)
{
	struct sim_csv *r;
	struct sim_csv_rec rec;
	int rc;

	if ((rc = sim_csv_open(&r, path, what, flags, NULL, err)) != 0)
		return rc;
	while ((rc = sim_csv_next(r, &rec, err)) == 1)
		if ((rc = fn(ctx, &rec, err)) != 0)
			break;
	sim_csv_close(r);
	return rc;
}
