/*
** import_csv.c: the streaming CSV reader and field parsers shared by the
** importers (see import_csv.h).
**
** libcsv is push-based; this file feeds it one physical line at a time
** (getline), so the line of each record is known exactly, and collects the
** fields of the current record into a growable buffer that is reused for
** every record: memory is bounded by the longest record, not the file.
*/
#include "sim/file.h"
#include "traces/import_csv.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The record being assembled. */
struct rec {
	char *buf;                /* the fields' bytes, each NUL-terminated */
	size_t len, cap;
	size_t *off;              /* offset of each field in buf */
	char **f;                 /* pointers, rebuilt when the record ends */
	int nf, fcap;
	int oom;
};

struct feed {
	const char *path;
	long line;
	long index;
	struct rec rec;
	imp_row_fn fn;
	void *ctx;
	struct sim_err *err;
	int rc;                   /* first non-zero return of fn */
	int header_nf;            /* fields of record 0 */
	char *header;             /* its fields, NUL-separated */
};

static void on_field(void *s, size_t len, void *data)
{
	struct feed *fd = data;
	struct rec *r = &fd->rec;

	if (fd->rc != 0 || r->oom)
		return;
	if (r->nf == r->fcap) {
		int ncap = r->fcap ? 2 * r->fcap : 32;
		size_t *no = realloc(r->off, (size_t)ncap * sizeof *no);
		if (no == NULL) {
			r->oom = 1;
			return;
		}
		r->off = no;
		r->fcap = ncap;
	}
	if (r->len + len + 1 > r->cap) {
		size_t ncap = r->cap ? r->cap : 256;
		char *nb;
		while (ncap < r->len + len + 1)
			ncap *= 2;
		nb = realloc(r->buf, ncap);
		if (nb == NULL) {
			r->oom = 1;
			return;
		}
		r->buf = nb;
		r->cap = ncap;
	}
	r->off[r->nf++] = r->len;
	if (len > 0)
		memcpy(r->buf + r->len, s, len);
	r->buf[r->len + len] = '\0';
	r->len += len + 1;
}

static void on_record(int c, void *data)
{
	struct feed *fd = data;
	struct rec *r = &fd->rec;
	struct imp_row row;
	char **nf;
	int i;

	(void)c;
	if (fd->rc != 0)
		return;
	if (r->oom) {
		fd->rc = sim_err_set(fd->err, SIM_ENOMEM, "%s:%ld: out of memory "
				     "reading a record", fd->path, fd->line);
		return;
	}
	nf = realloc(r->f, (size_t)(r->nf + 1) * sizeof *nf);
	if (nf == NULL) {
		fd->rc = sim_err_set(fd->err, SIM_ENOMEM, "out of memory");
		return;
	}
	r->f = nf;
	for (i = 0; i < r->nf; i++)
		r->f[i] = r->buf + r->off[i];
	r->f[r->nf] = NULL;
	if (fd->index == 0) {
		fd->header_nf = r->nf;
		fd->header = malloc(r->len ? r->len : 1);
		if (fd->header == NULL) {
			fd->rc = sim_err_set(fd->err, SIM_ENOMEM, "out of memory");
			return;
		}
		memcpy(fd->header, r->buf, r->len);
	} else if (r->nf != fd->header_nf) {
		const char *name = fd->header;
		for (i = 0; i < r->nf && i < fd->header_nf; i++)
			name += strlen(name) + 1;
		if (r->nf < fd->header_nf)
			fd->rc = sim_err_set(fd->err, SIM_EPARSE, "%s:%ld:%d: "
					     "%s: missing: the record has %d "
					     "fields, the header %d", fd->path,
					     fd->line, r->nf + 1, name, r->nf,
					     fd->header_nf);
		else
			fd->rc = sim_err_set(fd->err, SIM_EPARSE, "%s:%ld:%d: "
					     "extra field: the record has %d "
					     "fields, the header %d", fd->path,
					     fd->line, fd->header_nf + 1,
					     r->nf, fd->header_nf);
		return;
	}
	row.path = fd->path;
	row.line = fd->line;
	row.index = fd->index++;
	row.nf = r->nf;
	row.f = r->f;
	fd->rc = fd->fn(fd->ctx, &row, fd->err);
	r->nf = 0;
	r->len = 0;
}

int imp_csv_each(const char *path, imp_row_fn fn, void *ctx,
		 struct sim_err *err)
{
	struct csv_parser p;
	struct feed fd;
	FILE *f;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t n;
	int rc = 0;

	if ((rc = sim_fopen_in(&f, path, "r", "", err)) != 0)
		return rc;
	if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL) != 0) {
		fclose(f);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	memset(&fd, 0, sizeof fd);
	fd.path = path;
	fd.fn = fn;
	fd.ctx = ctx;
	fd.err = err;
	while ((n = getline(&line, &lcap, f)) > 0) {
		fd.line++;
		if (csv_parse(&p, line, (size_t)n, on_field, on_record, &fd) !=
		    (size_t)n) {
			rc = sim_err_set(err, SIM_EPARSE, "%s:%ld: malformed "
					 "CSV: %s", path, fd.line,
					 csv_strerror(csv_error(&p)));
			break;
		}
		if (fd.rc != 0)
			break;
	}
	if (rc == 0 && fd.rc == 0 && ferror(f))
		rc = sim_err_set(err, SIM_EIO, "%s:%ld: read error: %s", path,
				 fd.line, strerror(errno));
	if (rc == 0 && fd.rc == 0) {
		csv_set_opts(&p, CSV_STRICT | CSV_APPEND_NULL |
			     CSV_STRICT_FINI);
		if (csv_fini(&p, on_field, on_record, &fd) != 0)
			rc = sim_err_set(err, SIM_EPARSE, "%s:%ld: malformed "
					 "CSV: unterminated quoted field", path,
					 fd.line);
	}
	if (rc == 0 && fd.rc == 0 && fd.index == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:1:1: empty file: "
				 "expected a header line", path);
	if (rc == 0)
		rc = fd.rc;
	csv_free(&p);
	free(line);
	free(fd.rec.buf);
	free(fd.rec.off);
	free(fd.rec.f);
	free(fd.header);
	fclose(f);
	return rc;
}

int imp_col(const struct imp_row *hdr, const char *name)
{
	int i;

	for (i = 0; i < hdr->nf; i++)
		if (strcasecmp(hdr->f[i], name) == 0)
			return i;
	return -1;
}

int imp_col_req(const struct imp_row *hdr, const char *name, int *col,
		struct sim_err *err)
{
	char have[256];
	size_t k = 0;
	int i;

	*col = imp_col(hdr, name);
	if (*col >= 0)
		return 0;
	have[0] = '\0';
	for (i = 0; i < hdr->nf && k + 2 < sizeof have; i++) {
		int w = snprintf(have + k, sizeof have - k, "%s%s",
				 i ? "," : "", hdr->f[i]);
		if (w < 0)
			break;
		k += (size_t)w;
	}
	return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: header lacks column "
			   "'%s' (has: %s)", hdr->path, hdr->line,
			   hdr->nf + 1, name, have);
}

static int is_missing(const char *s)
{
	return *s == '\0' || strcasecmp(s, "nan") == 0 ||
	       strcmp(s, "None") == 0 || strcmp(s, "NULL") == 0;
}

int imp_field(const struct imp_row *r, int col, const char *name,
	      const char **s, struct sim_err *err)
{
	*s = NULL;
	if (col < 0)
		return 0;
	if (col >= r->nf)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: missing: "
				   "the record has %d field%s", r->path,
				   r->line, col + 1, name, r->nf,
				   r->nf == 1 ? "" : "s");
	if (!is_missing(r->f[col]))
		*s = r->f[col];
	return 0;
}

int imp_get_i64(const struct imp_row *r, int col, const char *name,
		int64_t *v, int *present, struct sim_err *err)
{
	const char *s;
	char *end;
	double d;
	long long x;
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (end != s && *end == '\0' && errno == 0) {
		*v = x;
		*present = 1;
		return 0;
	}
	/* Pandas writes integer columns holding NaNs as "12.0": accept a
	** float with no fractional part. */
	errno = 0;
	d = strtod(s, &end);
	if (end != s && *end == '\0' && errno == 0 && isfinite(d) &&
	    d == floor(d) && fabs(d) < 9e15) {
		*v = (int64_t)d;
		*present = 1;
		return 0;
	}
	return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected an "
			   "integer, got '%s'", r->path, r->line, col + 1,
			   name, s);
}

int imp_get_double(const struct imp_row *r, int col, const char *name,
		   double *v, int *present, struct sim_err *err)
{
	const char *s;
	char *end;
	double d;
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(d))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected a "
				   "number, got '%s'", r->path, r->line,
				   col + 1, name, s);
	*v = d;
	*present = 1;
	return 0;
}

int imp_get_secs(const struct imp_row *r, int col, const char *name,
		 sim_time *t_ns, int *present, struct sim_err *err)
{
	const char *s;
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	if (imp_parse_seconds(s, t_ns) != 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected "
				   "seconds >= 0, got '%s'", r->path, r->line,
				   col + 1, name, s);
	*present = 1;
	return 0;
}

int imp_get_datetime(const struct imp_row *r, int col, const char *name,
		     sim_time *t_ns, int *present, struct sim_err *err)
{
	const char *s;
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	if (imp_parse_datetime(s, t_ns) != 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected "
				   "'YYYY-MM-DD HH:MM:SS[.fraction]' in years "
				   "%d..%d, got '%s'", r->path, r->line,
				   col + 1, name, IMP_YEAR_MIN, IMP_YEAR_MAX,
				   s);
	*present = 1;
	return 0;
}

int imp_parse_seconds(const char *s, sim_time *t_ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(d) || d < 0 ||
	    d > 9.2e9)
		return -1;
	*t_ns = sim_time_from_s(d);
	return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
** (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char **p, int n, int *v)
{
	int i, x = 0;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		x = 10 * x + ((*p)[i] - '0');
	}
	*p += n;
	*v = x;
	return 0;
}

int imp_parse_datetime(const char *s, sim_time *t_ns)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				     30, 31 };
	int y, mo, d, h, mi, se;
	int64_t frac = 0, scale = SIM_NS_PER_S;
	const char *p = s;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d) || (*p != ' ' && *p != 'T'))
		return -1;
	p++;
	if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) ||
	    *p++ != ':' || digits(&p, 2, &se))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
	    mi > 59 || se > 60)
		return -1;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (*p - '0') * scale;
			}
		}
	}
	/* Years 1900..2099 only: seconds * 1e9 then stays far inside int64
	** (|t| < 2^62 ns from 1970), where a year past 2262 overflowed into
	** negative times (docs/LIMITS.md). */
	if (*p != '\0' || y < IMP_YEAR_MIN || y > IMP_YEAR_MAX)
		return -1;
	*t_ns = ((days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
		  se) * SIM_NS_PER_S) + frac;
	return 0;
}

void imp_fmt_seconds(sim_time t_ns, char *buf, size_t n)
{
	int64_t s, f;
	int neg = t_ns < 0;
	char frac[16];
	int k;

	if (neg)
		t_ns = -t_ns;
	s = t_ns / SIM_NS_PER_S;
	f = t_ns % SIM_NS_PER_S;
	if (f == 0) {
		snprintf(buf, n, "%s%lld", neg ? "-" : "", (long long)s);
		return;
	}
	snprintf(frac, sizeof frac, "%09lld", (long long)f);
	for (k = 8; k > 0 && frac[k] == '0'; k--)
		frac[k] = '\0';
	snprintf(buf, n, "%s%lld.%s", neg ? "-" : "", (long long)s, frac);
}

const char *imp_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int imp_kv_lookup(const char *list, const char *key, char *buf, size_t n)
{
	size_t klen = strlen(key);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		const char *eq = strchr(p, '=');
		const char *comma = strchr(p, ',');
		size_t vlen;

		if (eq == NULL || (comma != NULL && comma < eq))
			return 0;
		if ((size_t)(eq - p) == klen && strncasecmp(p, key, klen) == 0) {
			vlen = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
			if (vlen >= n)
				vlen = n - 1;
			memcpy(buf, eq + 1, vlen);
			buf[vlen] = '\0';
			return 1;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

const char *const imp_zoo_names[] = {
	"resnet50", "resnet152", "vgg16", "inception3", "densenet201",
	"mobilenetv2", "bert-base", "bert-large", "gpt2", "llama-7b", NULL
};

int imp_is_zoo_model(const char *name)
{
	int i;

	for (i = 0; imp_zoo_names[i] != NULL; i++)
		if (strcasecmp(name, imp_zoo_names[i]) == 0)
			return 1;
	return 0;
}

void imp_zoo_list(char *buf, size_t n)
{
	size_t k = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; imp_zoo_names[i] != NULL && k < n; i++) {
		int w = snprintf(buf + k, n - k, "%s%s", i ? ", " : "",
				 imp_zoo_names[i]);
		if (w < 0)
			break;
		k += (size_t)w;
	}
}

const char *imp_map_model(struct imp_ctx *c, const char *name,
			  const char *const (*builtin)[2], char *buf,
			  size_t n)
{
	int i;

	if (c->opts->model_map != NULL &&
	    imp_kv_lookup(c->opts->model_map, name, buf, n))
		return imp_is_zoo_model(buf) ? buf : NULL;
	if (imp_is_zoo_model(name)) {
		snprintf(buf, n, "%s", name);
		for (i = 0; buf[i]; i++)
			buf[i] = (char)tolower((unsigned char)buf[i]);
		return buf;
	}
	for (i = 0; builtin != NULL && builtin[i][0] != NULL; i++)
		if (strcasecmp(builtin[i][0], name) == 0) {
			snprintf(buf, n, "%s", builtin[i][1]);
			return buf;
		}
	return NULL;
}
