/*
** trace.c: the streaming reader and validator of trace format v1
** (trace.h, docs/TRACE_FORMAT.md).
**
** The file is read one line at a time (getline) and each line is pushed
** into libcsv's push parser; the parser's callbacks collect the fields of
** the current row, and a completed row is validated and handed out by
** trace_next.  Memory is constant in the number of rows except for the set
** of job ids (8-byte hashes with the line each was first seen on, to
** report duplicates), which grows by 16 bytes per job.
** Lines starting with '#' outside a quoted field are comments; blank lines
** are skipped.  A quoted field may span lines; its row is reported at the
** line where it starts.  Columns in messages are 1-based character
** columns of the field's first character on that line.
*/
#include "sim/file.h"
#include "traces/trace.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/zoo.h"

const char *const trace_columns[TRACE_NCOLS] = {
	"id", "kind", "submit_s", "model", "batch", "iterations",
	"duration_s", "iter_ms", "optimizer", "precision", "gpus",
	"gpu_share", "mem_mib", "priority", "slo_ms", "arrival", "rate",
	"arrival_arg", "batch_timeout_ms",
};

const char *const trace_opt_columns[TRACE_NOPT + 1] = {
	"res_cpu_ms", "res_gpu_ms", "res_net_ms", "min_gpus", "max_gpus", NULL
};

enum { O_RES0, O_RES1, O_RES2, O_MIN_GPUS, O_MAX_GPUS };

enum {
	C_ID, C_KIND, C_SUBMIT, C_MODEL, C_BATCH, C_ITER, C_DUR, C_ITERMS,
	C_OPT, C_PREC, C_GPUS, C_SHARE, C_MEM, C_PRIO, C_SLO, C_ARR, C_RATE,
	C_ARG, C_TIMEOUT
};

#define FIELD_MAX 512         /* longest field kept (longer: an error) */
#define MAXF (TRACE_NCOLS + TRACE_NOPT + 1)  /* one more: extra fields */
#define ROWTEXT_MAX 2048
#define K_END 1000            /* row_error: at the end of the row */

struct id_slot {
	uint64_t h;               /* 0 = empty */
	long line;
};

struct trace_reader {
	FILE *f;
	char path[512];
	char dir[512];
	struct csv_parser csv;
	char *line;
	size_t line_cap;
	long lineno;
	/* the row being collected */
	char field[MAXF][FIELD_MAX];
	int field_long[MAXF];     /* longer than FIELD_MAX - 1 */
	int nfields;
	int row_done;
	int in_row;
	long row_line;
	char row_text[ROWTEXT_MAX];
	/* the header: its column count and where each optional column is
	** (-1: absent) */
	int ncols;
	int opt_at[TRACE_NOPT];
	/* cross-row checks */
	sim_time prev_submit;
	long prev_submit_line;
	struct id_slot *ids;
	size_t nids, ids_cap;     /* open addressing, capacity a power of 2 */
	/* error reporting */
	trace_error_fn sink;
	void *sink_ctx;
	int row_errors;
};

static void on_field(void *s, size_t len, void *data)
{
	struct trace_reader *r = data;
	int i = r->nfields;

	if (i >= MAXF) {
		r->nfields++;
		return;
	}
	r->field_long[i] = len >= FIELD_MAX;
	if (len >= FIELD_MAX)
		len = FIELD_MAX - 1;
	if (len)
		memcpy(r->field[i], s, len);
	r->field[i][len] = '\0';
	r->nfields++;
}

static void on_row(int c, void *data)
{
	struct trace_reader *r = data;

	(void)c;
	r->row_done = 1;
}

/* The 1-based character column where field k starts in the row's first
** line (quote-aware); the end of the line if it has fewer fields. */
static int column_of(const struct trace_reader *r, int k)
{
	const char *p = r->row_text;
	int i = 0, inq = 0;

	while (k > 0 && p[i]) {
		if (p[i] == '"')
			inq = !inq;
		else if (p[i] == ',' && !inq)
			k--;
		i++;
	}
	return i + 1;
}

/* The name of column k of the header. */
static const char *col_name(const struct trace_reader *r, int k)
{
	int o;

	if (k < TRACE_NCOLS)
		return trace_columns[k];
	for (o = 0; o < TRACE_NOPT; o++)
		if (r->opt_at[o] == k)
			return trace_opt_columns[o];
	return "?";
}

/* Reports one error of the current row at field k (-1: no field). */
static int row_error(struct trace_reader *r, struct sim_err *err, int k,
		     const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static int row_error(struct trace_reader *r, struct sim_err *err, int k,
		     const char *fmt, ...)
{
	struct sim_err e;
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	sim_err_clear(&e);
	if (k >= 0 && k < r->ncols)
		sim_err_set(&e, SIM_EPARSE, "%s:%ld:%d: %s: %s", r->path,
			    r->row_line, column_of(r, k), col_name(r, k),
			    what);
	else
		sim_err_set(&e, SIM_EPARSE, "%s:%ld:%d: %s", r->path,
			    r->row_line, k == K_END ?
			    (int)strlen(r->row_text) + 1 :
			    k < 0 ? 1 : column_of(r, k), what);
	if (r->sink != NULL)
		r->sink(r->sink_ctx, &e);
	if (err != NULL && err->code == 0)
		*err = e;
	r->row_errors++;
	return SIM_EPARSE;
}

/* ---- field parsers: 0 ok, 1 empty, -1 malformed ---- */

static int is_empty(const char *s)
{
	return s[0] == '\0';
}

static int parse_num(const char *s, double *out)
{
	const char *p;
	char *end;
	double v;

	if (is_empty(s))
		return 1;
	for (p = s; *p; p++)    /* plain decimals: no hex, inf or nan */
		if (!strchr("0123456789.eE+-", *p))
			return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (is_empty(s))
		return 1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

static const char *shown(const struct trace_reader *r, int k)
{
	return r->field_long[k] ? "(a field too long)" : r->field[k];
}

/* Optional number with a lower bound (strict or not); *out untouched if
** empty. */
static void num_field(struct trace_reader *r, struct sim_err *err, int k,
		      double lo, int strict, double *out, int *given)
{
	double v;
	int rc = parse_num(r->field[k], &v);

	*given = 0;
	if (rc == 1)
		return;
	if (rc < 0 || (strict ? !(v > lo) : !(v >= lo))) {
		row_error(r, err, k, "expected a decimal number %s %g, got '%s'",
			  strict ? ">" : ">=", lo, shown(r, k));
		return;
	}
	*out = v;
	*given = 1;
}

static void int_field(struct trace_reader *r, struct sim_err *err, int k,
		      int64_t lo, int64_t hi, int64_t *out, int *given)
{
	int64_t v;
	int rc = parse_int(r->field[k], &v);

	*given = 0;
	if (rc == 1)
		return;
	if (rc < 0 || v < lo || v > hi) {
		row_error(r, err, k, "expected an integer in [%lld, %lld], "
			  "got '%s'", (long long)lo, (long long)hi,
			  shown(r, k));
		return;
	}
	*out = v;
	*given = 1;
}

static void must_be_empty(struct trace_reader *r, struct sim_err *err, int k,
			  const char *kind)
{
	if (!is_empty(r->field[k]))
		row_error(r, err, k, "must be empty for %s row, got '%s'",
			  kind, shown(r, k));
}

/* ---- the id set ---- */

static int ids_grow(struct trace_reader *r)
{
	size_t cap = r->ids_cap ? 2 * r->ids_cap : 256, i;
	struct id_slot *n = calloc(cap, sizeof *n);

	if (n == NULL)
		return SIM_ENOMEM;
	for (i = 0; i < r->ids_cap; i++)
		if (r->ids[i].h != 0) {
			size_t j = r->ids[i].h & (cap - 1);
			while (n[j].h != 0)
				j = (j + 1) & (cap - 1);
			n[j] = r->ids[i];
		}
	free(r->ids);
	r->ids = n;
	r->ids_cap = cap;
	return 0;
}

/* Adds id; returns 0, the line of an earlier equal id, or SIM_ENOMEM. */
static long ids_add(struct trace_reader *r, const char *id)
{
	uint64_t h = sim_hash_str(id);
	size_t j;

	if (h == 0)
		h = 1;
	if (2 * (r->nids + 1) > r->ids_cap && ids_grow(r) != 0)
		return SIM_ENOMEM;
	j = h & (r->ids_cap - 1);
	while (r->ids[j].h != 0) {
		if (r->ids[j].h == h)
			return r->ids[j].line;
		j = (j + 1) & (r->ids_cap - 1);
	}
	r->ids[j].h = h;
	r->ids[j].line = r->row_line;
	r->nids++;
	return 0;
}

/* ---- rows ---- */

int trace_parse_rates(const char *arg, struct trace_rate *out, int max,
		      struct sim_err *err)
{
	const char *p = arg;
	int n = 0;

	if (*p == '\0')
		return sim_err_set(err, SIM_EPARSE, "expected a rate list "
				   "'r0@t0;r1@t1;...', got an empty field");
	while (*p) {
		char item[64], *at;
		size_t len = strcspn(p, ";");
		double rate, from;

		if (n == max)
			return sim_err_set(err, SIM_EPARSE, "more than %d "
					   "rate segments", max);
		if (len == 0 || len >= sizeof item)
			return sim_err_set(err, SIM_EPARSE, "expected "
					   "'rate@seconds' in segment %d", n + 1);
		memcpy(item, p, len);
		item[len] = '\0';
		at = strchr(item, '@');
		if (at == NULL)
			return sim_err_set(err, SIM_EPARSE, "expected "
					   "'rate@seconds' in segment %d, got "
					   "'%s'", n + 1, item);
		*at = '\0';
		if (parse_num(item, &rate) != 0 || rate < 0)
			return sim_err_set(err, SIM_EPARSE, "segment %d: "
					   "expected a rate >= 0 req/s, got "
					   "'%s'", n + 1, item);
		if (parse_num(at + 1, &from) != 0 || from < 0)
			return sim_err_set(err, SIM_EPARSE, "segment %d: "
					   "expected a start >= 0 s, got '%s'",
					   n + 1, at + 1);
		if (n > 0 && from < out[n - 1].from_s)
			return sim_err_set(err, SIM_EPARSE, "segment %d: start "
					   "%g s before the previous one (%g s)",
					   n + 1, from, out[n - 1].from_s);
		out[n].rate_per_s = rate;
		out[n].from_s = from;
		n++;
		p += len;
		if (*p == ';') {
			p++;
			if (*p == '\0')
				return sim_err_set(err, SIM_EPARSE, "trailing "
						   "';' in the rate list");
		}
	}
	return n;
}

static void check_train(struct trace_reader *r, struct trace_job *j,
			struct sim_err *err)
{
	double v;
	int64_t n;
	int given, given_iter = 0, given_dur = 0;

	int_field(r, err, C_ITER, 1, INT64_MAX / 2, &n, &given_iter);
	if (given_iter)
		j->iterations = n;
	num_field(r, err, C_DUR, 0, 1, &v, &given_dur);
	if (given_dur)
		j->duration_ns = sim_time_from_s(v);
	if (!given_iter && !given_dur && is_empty(r->field[C_ITER]) &&
	    is_empty(r->field[C_DUR]))
		row_error(r, err, C_ITER, "a train row needs iterations or "
			  "duration_s (both are empty)");
	num_field(r, err, C_ITERMS, 0, 1, &v, &given);
	if (given)
		j->iter_ns = sim_time_from_ms(v);
	if (!is_empty(r->field[C_OPT]) &&
	    wl_optimizer_parse(r->field[C_OPT], &j->opt) != 0)
		row_error(r, err, C_OPT, "expected sgd, momentum or adam, "
			  "got '%s'", shown(r, C_OPT));
	if (!is_empty(r->field[C_PREC]) &&
	    wl_precision_parse(r->field[C_PREC], &j->prec) != 0)
		row_error(r, err, C_PREC, "expected fp32 or mixed, got '%s'",
			  shown(r, C_PREC));
	must_be_empty(r, err, C_SLO, "a train");
	must_be_empty(r, err, C_ARR, "a train");
	must_be_empty(r, err, C_RATE, "a train");
	must_be_empty(r, err, C_ARG, "a train");
	must_be_empty(r, err, C_TIMEOUT, "a train");
}

static void check_infer(struct trace_reader *r, struct trace_job *j,
			struct sim_err *err)
{
	const char *arr = r->field[C_ARR];
	double v;
	int given;

	must_be_empty(r, err, C_ITER, "an infer");
	must_be_empty(r, err, C_ITERMS, "an infer");
	must_be_empty(r, err, C_OPT, "an infer");
	must_be_empty(r, err, C_PREC, "an infer");
	num_field(r, err, C_DUR, 0, 1, &v, &given);
	if (given)
		j->duration_ns = sim_time_from_s(v);
	num_field(r, err, C_SLO, 0, 1, &v, &given);
	if (given)
		j->slo_ns = sim_time_from_ms(v);
	else if (is_empty(r->field[C_SLO]))
		row_error(r, err, C_SLO, "an infer row needs slo_ms "
			  "(milliseconds > 0)");
	num_field(r, err, C_TIMEOUT, 0, 0, &v, &given);
	if (given)
		j->batch_timeout_ns = sim_time_from_ms(v);
	if (strcasecmp(arr, "poisson") == 0) {
		j->arrival = TRACE_ARR_POISSON;
		num_field(r, err, C_RATE, 0, 1, &j->rate_per_s, &given);
		if (!given && is_empty(r->field[C_RATE]))
			row_error(r, err, C_RATE, "poisson arrivals need a "
				  "rate (requests/s > 0)");
		must_be_empty(r, err, C_ARG, "a poisson");
	} else if (strcasecmp(arr, "rates") == 0 ||
		   strcasecmp(arr, "file") == 0) {
		int rates = strcasecmp(arr, "rates") == 0;
		j->arrival = rates ? TRACE_ARR_RATES : TRACE_ARR_FILE;
		must_be_empty(r, err, C_RATE, rates ? "a rates" : "a file");
		if (r->field_long[C_ARG] ||
		    strlen(r->field[C_ARG]) >= sizeof j->arrival_arg)
			row_error(r, err, C_ARG, "longer than %zu characters",
				  sizeof j->arrival_arg - 1);
		else if (rates) {
			struct trace_rate seg[TRACE_RATES_MAX];
			struct sim_err e;
			sim_err_clear(&e);
			if (trace_parse_rates(r->field[C_ARG], seg,
					      TRACE_RATES_MAX, &e) < 0)
				row_error(r, err, C_ARG, "%s", e.msg);
		} else if (is_empty(r->field[C_ARG]))
			row_error(r, err, C_ARG, "file arrivals need the path "
				  "of an arrival file");
		strcpy(j->arrival_arg, r->field_long[C_ARG] ? "" :
		       r->field[C_ARG]);
	} else {
		row_error(r, err, C_ARR, "expected poisson, rates or file, "
			  "got '%s'", shown(r, C_ARR));
	}
}

/* The optional columns: per-resource times (all three or none, train
** rows only) and the elastic range (min_gpus <= gpus <= max_gpus). */
static void check_optional(struct trace_reader *r, struct trace_job *j,
			   struct sim_err *err)
{
	int o, given, nres = 0, ngiv = 0;
	int64_t n[2];
	double v;

	for (o = O_RES0; o <= O_RES2 && r->opt_at[o] >= 0; o++) {
		int k = r->opt_at[o];
		if (is_empty(r->field[k]))
			continue;
		nres++;
		if (j->kind != TRACE_TRAIN) {
			must_be_empty(r, err, k, "an infer");
			continue;
		}
		num_field(r, err, k, 0, 0, &v, &given);
		if (given && v > 1e12)
			row_error(r, err, k, "expected milliseconds <= 1e12, "
				  "got '%s'", shown(r, k));
		else if (given)
			j->res_ms[o - O_RES0] = v;
	}
	if (nres != 0 && nres != 3)
		row_error(r, err, r->opt_at[O_RES0], "give all three of "
			  "res_cpu_ms, res_gpu_ms, res_net_ms or none");
	else if (nres == 3 && j->kind == TRACE_TRAIN)
		j->has_res = 1;
	for (o = O_MIN_GPUS; o <= O_MAX_GPUS && r->opt_at[o] >= 0; o++) {
		int k = r->opt_at[o];
		int_field(r, err, k, 1, 1000000, &n[o - O_MIN_GPUS], &given);
		ngiv += given;
		if (given && j->kind != TRACE_TRAIN)
			row_error(r, err, k, "an infer row is not elastic");
	}
	if (ngiv == 1)
		row_error(r, err, r->opt_at[O_MIN_GPUS], "give both min_gpus "
			  "and max_gpus or neither");
	else if (ngiv == 2 && (n[0] > j->gpus || n[1] < j->gpus))
		row_error(r, err, r->opt_at[O_MIN_GPUS], "expected min_gpus "
			  "<= gpus <= max_gpus, got %lld <= %d <= %lld",
			  (long long)n[0], j->gpus, (long long)n[1]);
	else if (ngiv == 2) {
		j->min_gpus = (int)n[0];
		j->max_gpus = (int)n[1];
	}
}

static void check_row(struct trace_reader *r, struct trace_job *j,
		      struct sim_err *err)
{
	const struct zoo_model *m;
	double v;
	int64_t n;
	int given;
	long first;

	memset(j, 0, sizeof *j);
	j->line = r->row_line;
	j->opt = WL_OPT_MOMENTUM;
	j->prec = WL_PREC_FP32;
	j->gpus = 1;
	j->gpu_share = 1;
	if (r->nfields != r->ncols) {
		row_error(r, err, r->nfields < r->ncols ? K_END : r->ncols,
			  "expected %d fields (the header's columns), got %d",
			  r->ncols, r->nfields);
		return;
	}
	/* id */
	if (is_empty(r->field[C_ID]))
		row_error(r, err, C_ID, "expected a job id, got an empty "
			  "field");
	else if (r->field_long[C_ID] || strlen(r->field[C_ID]) >= sizeof j->id)
		row_error(r, err, C_ID, "longer than %zu characters",
			  sizeof j->id - 1);
	else {
		strcpy(j->id, r->field[C_ID]);
		first = ids_add(r, j->id);
		if (first == SIM_ENOMEM)
			row_error(r, err, C_ID, "out of memory");
		else if (first > 0)
			row_error(r, err, C_ID, "duplicate id '%s' (first on "
				  "line %ld)", j->id, first);
	}
	/* submit time */
	num_field(r, err, C_SUBMIT, 0, 0, &v, &given);
	if (given) {
		j->submit_ns = sim_time_from_s(v);
		if (j->submit_ns < r->prev_submit)
			row_error(r, err, C_SUBMIT, "expected a time >= %.9g "
				  "(rows are sorted by submit_s; line %ld), "
				  "got '%s'", sim_time_to_s(r->prev_submit),
				  r->prev_submit_line, r->field[C_SUBMIT]);
		else {
			r->prev_submit = j->submit_ns;
			r->prev_submit_line = r->row_line;
		}
	} else if (is_empty(r->field[C_SUBMIT]))
		row_error(r, err, C_SUBMIT, "expected seconds >= 0, got an "
			  "empty field");
	/* model */
	m = zoo_find(r->field[C_MODEL]);
	if (m == NULL) {
		char names[512];
		zoo_names(names, sizeof names);
		row_error(r, err, C_MODEL, "unknown model '%s' (known: %s)",
			  shown(r, C_MODEL), names);
	} else
		strcpy(j->model, m->name);
	/* batch */
	int_field(r, err, C_BATCH, 1, 1 << 20, &n, &given);
	if (given)
		j->batch = (int)n;
	else if (is_empty(r->field[C_BATCH]))
		row_error(r, err, C_BATCH, "expected a batch size >= 1, got an "
			  "empty field");
	/* shared optional columns */
	int_field(r, err, C_GPUS, 1, 1 << 20, &n, &given);
	if (given)
		j->gpus = (int)n;
	num_field(r, err, C_SHARE, 0, 1, &v, &given);
	if (given && v > 1)
		row_error(r, err, C_SHARE, "expected a fraction in (0, 1], got "
			  "'%s'", r->field[C_SHARE]);
	else if (given)
		j->gpu_share = v;
	num_field(r, err, C_MEM, 0, 1, &v, &given);
	if (given)
		j->mem_bytes = (uint64_t)llround(v * 1048576.0);
	int_field(r, err, C_PRIO, -1000000, 1000000, &n, &given);
	if (given)
		j->priority = (int)n;
	/* kind */
	if (strcasecmp(r->field[C_KIND], "train") == 0) {
		j->kind = TRACE_TRAIN;
		check_train(r, j, err);
	} else if (strcasecmp(r->field[C_KIND], "infer") == 0) {
		j->kind = TRACE_INFER;
		check_infer(r, j, err);
	} else
		row_error(r, err, C_KIND, "expected train or infer, got '%s'",
			  shown(r, C_KIND));
	check_optional(r, j, err);
}

/* ---- lines ---- */

/* Reads the next line into r->line without its end of line; 1, 0 at end,
** or SIM_EIO. */
static int read_line(struct trace_reader *r, struct sim_err *err)
{
	ssize_t n;

	errno = 0;
	n = getline(&r->line, &r->line_cap, r->f);
	if (n < 0) {
		if (ferror(r->f))
			return sim_err_set(err, SIM_EIO, "%s:%ld: read error: "
					   "%s", r->path, r->lineno + 1,
					   strerror(errno));
		return 0;
	}
	r->lineno++;
	while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
		r->line[--n] = '\0';
	return 1;
}

/* Pushes one line (and its newline) into libcsv. */
static int push_line(struct trace_reader *r, struct sim_err *err)
{
	size_t len = strlen(r->line);

	if (!r->in_row) {
		r->nfields = 0;
		r->row_done = 0;
		r->row_line = r->lineno;
		snprintf(r->row_text, sizeof r->row_text, "%s", r->line);
		r->in_row = 1;
	}
	if (csv_parse(&r->csv, r->line, len, on_field, on_row, r) != len ||
	    csv_parse(&r->csv, "\n", 1, on_field, on_row, r) != 1) {
		int e = csv_error(&r->csv);
		/* restart the parser so the next row can be read */
		csv_free(&r->csv);
		csv_init(&r->csv, CSV_STRICT | CSV_APPEND_NULL);
		r->in_row = 0;
		return sim_err_set(err, e == CSV_ENOMEM ? SIM_ENOMEM :
				   SIM_EPARSE, "%s:%ld: malformed CSV: %s",
				   r->path, r->lineno, csv_strerror(e));
	}
	if (r->row_done)
		r->in_row = 0;
	return 0;
}

static void dir_of(const char *path, char *dir, size_t n)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

static int check_header(struct trace_reader *r, struct sim_err *err)
{
	int rc, k, nres;

	rc = read_line(r, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: expected the line "
				   "'%s', got an empty file", r->path,
				   TRACE_MAGIC);
	if (strcmp(r->line, TRACE_MAGIC) != 0) {
		if (strncmp(r->line, "# colosim-trace v", 17) == 0)
			return sim_err_set(err, SIM_EVERSION, "%s:1:17: "
					   "unsupported trace version '%s' "
					   "(this colosim reads v1)", r->path,
					   r->line + 16);
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: expected the line "
				   "'%s' (a colosim trace), got '%.60s'",
				   r->path, TRACE_MAGIC, r->line);
	}
	rc = read_line(r, err);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sim_err_set(err, SIM_EPARSE, "%s:2:1: expected the "
				   "header line, got the end of the file",
				   r->path);
	rc = push_line(r, err);
	if (rc < 0)
		return rc;
	if (!r->row_done)
		return sim_err_set(err, SIM_EPARSE, "%s:2:1: unterminated "
				   "quote in the header", r->path);
	for (k = 0; k < TRACE_NCOLS; k++) {
		if (k >= r->nfields)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "expected column '%s' after '%s'",
					   r->path, column_of(r, r->nfields - 1) +
					   (int)strlen(r->field[r->nfields - 1]),
					   trace_columns[k], trace_columns[k - 1]);
		if (strcmp(r->field[k], trace_columns[k]) != 0)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "expected column %d to be '%s', got "
					   "'%s'", r->path, column_of(r, k),
					   k + 1, trace_columns[k],
					   r->field[k]);
	}
	for (k = 0; k < TRACE_NOPT; k++)
		r->opt_at[k] = -1;
	for (k = TRACE_NCOLS; k < r->nfields; k++) {
		int o;
		for (o = 0; o < TRACE_NOPT; o++)
			if (strcmp(r->field[k], trace_opt_columns[o]) == 0)
				break;
		if (o == TRACE_NOPT || k >= TRACE_NCOLS + TRACE_NOPT)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "unknown column '%s' after the %d "
					   "of v1 (optional columns: "
					   "res_cpu_ms, res_gpu_ms, res_net_ms, "
					   "min_gpus, max_gpus)", r->path,
					   column_of(r, k), r->field[k],
					   TRACE_NCOLS);
		if (r->opt_at[o] >= 0)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "column '%s' twice", r->path,
					   column_of(r, k), r->field[k]);
		r->opt_at[o] = k;
	}
	nres = (r->opt_at[O_RES0] >= 0) + (r->opt_at[O_RES1] >= 0) +
		(r->opt_at[O_RES2] >= 0);
	if (nres != 0 && nres != 3)
		return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: the "
				   "res_cpu_ms, res_gpu_ms and res_net_ms "
				   "columns go together", r->path,
				   column_of(r, TRACE_NCOLS));
	if ((r->opt_at[O_MIN_GPUS] >= 0) != (r->opt_at[O_MAX_GPUS] >= 0))
		return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: the "
				   "min_gpus and max_gpus columns go together",
				   r->path, column_of(r, TRACE_NCOLS));
	r->ncols = r->nfields;
	return 0;
}

int trace_open(struct trace_reader **out, const char *path,
	       struct sim_err *err)
{
	struct trace_reader *r;
	int rc;

	*out = NULL;
	r = calloc(1, sizeof *r);
	if (r == NULL)
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	snprintf(r->path, sizeof r->path, "%s", path);
	dir_of(path, r->dir, sizeof r->dir);
	if ((rc = sim_fopen_in(&r->f, path, "r", "trace", err)) != 0) {
		free(r);
		return rc;
	}
	if (csv_init(&r->csv, CSV_STRICT | CSV_APPEND_NULL) != 0) {
		fclose(r->f);
		free(r);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	r->prev_submit = 0;
	rc = check_header(r, err);
	if (rc < 0) {
		trace_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int trace_next(struct trace_reader *r, struct trace_job *job,
	       struct sim_err *err)
{
	int rc;

	for (;;) {
		rc = read_line(r, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (r->in_row) {
				r->in_row = 0;
				return row_error(r, err, -1, "unterminated "
						 "quoted field at the end of "
						 "the file");
			}
			return 0;
		}
		if (!r->in_row) {
			const char *p = r->line;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '#' || *p == '\0')
				continue;
		}
		{
			struct sim_err e;
			sim_err_clear(&e);
			rc = push_line(r, &e);
			if (rc < 0) {
				if (r->sink != NULL)
					r->sink(r->sink_ctx, &e);
				if (err != NULL && err->code == 0)
					*err = e;
				return rc;
			}
		}
		if (r->row_done)
			break;
	}
	r->row_errors = 0;
	check_row(r, job, err);
	return r->row_errors ? SIM_EPARSE : 1;
}

const char *trace_dir(const struct trace_reader *r)
{
	return r->dir;
}

const char *trace_path(const struct trace_reader *r)
{
	return r->path;
}

void trace_set_error_sink(struct trace_reader *r, trace_error_fn fn,
			  void *ctx)
{
	r->sink = fn;
	r->sink_ctx = ctx;
}

void trace_close(struct trace_reader *r)
{
	if (r == NULL)
		return;
	if (r->f != NULL)
		fclose(r->f);
	csv_free(&r->csv);
	free(r->line);
	free(r->ids);
	free(r);
}
