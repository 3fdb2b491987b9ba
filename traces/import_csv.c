/*
** import_csv.c: the record loop and field parsers shared by the importers
** (see import_csv.h), over the one CSV reader (sim/csv.h) and the one
** number parser (sim/num.h).  Memory is bounded by the reader's limits,
** not by the file.
*/
#include "traces/import_csv.h"

#include "models/zoo.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/csv.h"
#include "sim/num.h"

struct each {
	imp_row_fn fn;
	void *ctx;
	int header_nf;
	const struct sim_csv *csv;
};

/* Every record must have the header's field count; then fn sees it. */
static int on_rec(struct each *e, const struct sim_csv_rec *rec,
		  struct sim_err *err)
{
	const struct sim_csv_rec *h = sim_csv_header(e->csv);
	struct imp_row row;

	if (rec->index == 0)
		e->header_nf = rec->nf;
	else if (rec->nf < e->header_nf)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: missing: "
				   "the record has %d fields, the header %d",
				   rec->path, rec->line, rec->nf + 1,
				   h->f[rec->nf], rec->nf, e->header_nf);
	else if (rec->nf > e->header_nf)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: extra field: "
				   "the record has %d fields, the header %d",
				   rec->path, rec->line, e->header_nf + 1,
				   rec->nf, e->header_nf);
	row.path = rec->path;
	row.line = rec->line;
	row.index = rec->index;
	row.nf = rec->nf;
	row.f = rec->f;
	return e->fn(e->ctx, &row, err);
}

int imp_csv_each(const char *path, imp_row_fn fn, void *ctx,
		 struct sim_err *err)
{
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct each e = { fn, ctx, 0, NULL };
	int rc;

	if ((rc = sim_csv_open(&r, path, "", SIM_CSV_HEADER, NULL, err)) != 0)
		return rc;
	e.csv = r;
	while ((rc = sim_csv_next(r, &rec, err)) == 1)
		if ((rc = on_rec(&e, &rec, err)) != 0)
			break;
	sim_csv_close(r);
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
	double d;
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	if (sim_num_i64(s, NULL, INT64_MIN, INT64_MAX, v, NULL) == 0) {
		*present = 1;
		return 0;
	}
	/* Pandas writes integer columns holding NaNs as "12.0": accept a
	** float with no fractional part. */
	if (sim_num_double(s, NULL, -9e15, 9e15, &d, NULL) == 0 &&
	    d == floor(d)) {
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
	int rc = imp_field(r, col, name, &s, err);

	*present = 0;
	if (rc != 0 || s == NULL)
		return rc;
	if (sim_num_double(s, NULL, -DBL_MAX, DBL_MAX, v, NULL) != 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected a "
				   "number, got '%s'", r->path, r->line,
				   col + 1, name, s);
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
				   "seconds in [0, %.10g], got '%s'", r->path,
				   r->line, col + 1, name, SIM_NUM_TIME_MAX_S,
				   s);
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
	return sim_num_secs(s, NULL, 0, SIM_NUM_TIME_MAX_S, t_ns, NULL) ? -1 :
	       0;
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

/* The names above, or any other model of the zoo (the LLMs of
** models/zoo/llm.c: an llm service names its architecture). */
int imp_is_zoo_model(const char *name)
{
	int i;

	for (i = 0; imp_zoo_names[i] != NULL; i++)
		if (strcasecmp(name, imp_zoo_names[i]) == 0)
			return 1;
	return zoo_find(name) != NULL;
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

const char *imp_take_model(struct imp_ctx *c, const char *name,
			   const char *const (*builtin)[2], char *buf,
			   size_t n)
{
	const char *model = imp_map_model(c, name, builtin, buf, n);
	char note[IMP_REASON_LEN];

	if (model == NULL) {
		snprintf(note, sizeof note, "model '%.40s' not in the zoo "
			 "and not mapped (see --model-map)", name);
		imp_skip(c, note);
		return NULL;
	}
	if (!imp_sample(c))
		return NULL;
	if (strcasecmp(model, name) != 0) {
		snprintf(note, sizeof note, "model %.40s mapped to %.40s", name,
			 model);
		imp_note(c, note);
	}
	return model;
}

int imp_batch(struct imp_ctx *c, int h_batch, long long batch)
{
	if (h_batch)
		return (int)(batch > 1000000 ? 1000000 : batch);
	imp_note(c, c->opts->batch ? "batch from --batch (no batch_size)" :
		 "batch 32 assumed (no batch_size; see --batch)");
	return c->opts->batch ? c->opts->batch : 32;
}
