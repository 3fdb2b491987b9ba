/*
** trace.c: the streaming reader and validator of trace format v1
** (trace.h, docs/TRACE_FORMAT.md).
**
** Rows come from the shared CSV reader (sim/csv.h: bounded lines and
** fields, positions, comments), numbers from sim/num.h; a completed row is
** validated and handed out by trace_next.  Memory is constant in the
** number of rows except for the set of job ids, to report duplicates
** (trace_ids.h: constant for ids PREFIX + integer in order, as gen's, else
** 16 to 32 bytes per job).  Lines starting with '#' outside a quoted field are
** comments; blank lines are skipped.  A quoted field may span lines; its
** row is reported at the line where it starts.  Columns in messages are
** 1-based character columns of the field's first character.  Times are at
** most SIM_NUM_TIME_MAX_S seconds (2^62 ns): larger ones are errors, not
** saturated values.
*/
#include "traces/trace.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/llm.h"
#include "models/zoo.h"
#include "sim/csv.h"
#include "sim/suggest.h"
#include "sim/num.h"
#include "traces/trace_ids.h"

const char *const trace_columns[TRACE_NCOLS] = {
	"id", "kind", "submit_s", "model", "batch", "iterations",
	"duration_s", "iter_ms", "optimizer", "precision", "gpus",
	"gpu_share", "mem_mib", "priority", "slo_ms", "arrival", "rate",
	"arrival_arg", "batch_timeout_ms",
};

const char *const trace_opt_columns[TRACE_NOPT + 1] = {
	"res_cpu_ms", "res_gpu_ms", "res_net_ms", "min_gpus", "max_gpus",
	"cpu_milli", "host_mem_mib", "gpu_util", "noise_scale", NULL
};

enum { O_RES0, O_RES1, O_RES2, O_MIN_GPUS, O_MAX_GPUS, O_CPU, O_HOST_MEM,
       O_UTIL, O_NOISE };

enum {
	C_ID, C_KIND, C_SUBMIT, C_MODEL, C_BATCH, C_ITER, C_DUR, C_ITERMS,
	C_OPT, C_PREC, C_GPUS, C_SHARE, C_MEM, C_PRIO, C_SLO, C_ARR, C_RATE,
	C_ARG, C_TIMEOUT
};

#define K_END 1000            /* row_error: at the end of the row */
/* mem_mib above this would overflow bytes (2^40 MiB = 1 EiB). */
#define MEM_MIB_MAX 1099511627776.0


struct trace_reader {
	struct sim_csv *csv;
	char path[512];
	char dir[512];
	char arr_dir[TRACE_MAX_ARRIVALS_DIR];  /* "" none */
	/* the row being checked */
	struct sim_csv_rec rec;
	long row_line;
	/* the header: its column count and where each optional column is
	** (-1: absent) */
	int ncols;
	int opt_at[TRACE_NOPT];
	/* cross-row checks */
	sim_time prev_submit;
	long prev_submit_line;
	struct trace_ids ids;     /* the ids seen, and their lines */
	/* error reporting */
	trace_error_fn sink;
	void *sink_ctx;
	int row_errors;
};

/* Field k of the current row ("" past its end). */
static const char *fld(const struct trace_reader *r, int k)
{
	return k < r->rec.nf ? r->rec.f[k] : "";
}

/* The 1-based character column where field k starts; the end of the
** row's first line if it has fewer fields. */
static int column_of(const struct trace_reader *r, int k)
{
	return sim_csv_col(&r->rec, k);
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
			    (int)r->rec.first_len + 1 :
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

/* A plain decimal (sim/num.h: no hex, inf or nan). */
static int parse_num(const char *s, double *out)
{
	if (is_empty(s))
		return 1;
	return sim_num_double(s, NULL, -DBL_MAX, DBL_MAX, out, NULL) ? -1 : 0;
}

static const char *shown(const struct trace_reader *r, int k)
{
	return fld(r, k);
}

/* Optional number with a lower bound (strict or not); *out untouched if
** empty. */
static void num_field(struct trace_reader *r, struct sim_err *err, int k,
		      double lo, int strict, double *out, int *given)
{
	double v;
	int rc = parse_num(fld(r, k), &v);

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

/* An optional time in seconds (scale 1) or milliseconds (1e-3) with a
** lower bound, to ns: at most SIM_NUM_TIME_MAX_NS. */
static void time_field(struct trace_reader *r, struct sim_err *err, int k,
		       int strict, int ms, sim_time *out, int *given)
{
	double v;
	int rc;

	num_field(r, err, k, 0, strict, &v, given);
	if (!*given)
		return;
	rc = ms ? sim_num_ms_to_ns(v, out) : sim_num_s_to_ns(v, out);
	if (rc != 0) {
		*given = 0;
		row_error(r, err, k, "expected at most %.10g %s (2^62 ns, 146 "
			  "years), got '%s'", ms ? SIM_NUM_TIME_MAX_S * 1e3 :
			  SIM_NUM_TIME_MAX_S, ms ? "ms" : "s", shown(r, k));
	}
}

static void int_field(struct trace_reader *r, struct sim_err *err, int k,
		      int64_t lo, int64_t hi, int64_t *out, int *given)
{
	const char *s = fld(r, k);

	*given = 0;
	if (is_empty(s))
		return;
	if (sim_num_i64(s, NULL, lo, hi, out, NULL) != 0) {
		row_error(r, err, k, "expected an integer in [%lld, %lld], "
			  "got '%s'", (long long)lo, (long long)hi,
			  shown(r, k));
		return;
	}
	*given = 1;
}

static void must_be_empty(struct trace_reader *r, struct sim_err *err, int k,
			  const char *kind)
{
	if (!is_empty(fld(r, k)))
		row_error(r, err, k, "must be empty for %s row, got '%s'",
			  kind, shown(r, k));
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
		if (parse_num(item, &rate) != 0 || rate < 0 ||
		    rate > TRACE_RATE_MAX)
			return sim_err_set(err, SIM_EPARSE, "segment %d: "
					   "expected a rate in [0, %g] req/s, "
					   "got '%s'", n + 1, TRACE_RATE_MAX,
					   item);
		if (parse_num(at + 1, &from) != 0 || from < 0 ||
		    from > SIM_NUM_TIME_MAX_S)
			return sim_err_set(err, SIM_EPARSE, "segment %d: "
					   "expected a start in [0, %.10g] s, "
					   "got '%s'", n + 1,
					   SIM_NUM_TIME_MAX_S, at + 1);
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
	int64_t n;
	int given, given_iter = 0, given_dur = 0;

	int_field(r, err, C_ITER, 1, INT64_MAX / 2, &n, &given_iter);
	if (given_iter)
		j->iterations = n;
	time_field(r, err, C_DUR, 1, 0, &j->duration_ns, &given_dur);
	if (!given_iter && !given_dur && is_empty(fld(r, C_ITER)) &&
	    is_empty(fld(r, C_DUR)))
		row_error(r, err, C_ITER, "a train row needs iterations or "
			  "duration_s (both are empty)");
	time_field(r, err, C_ITERMS, 1, 1, &j->iter_ns, &given);
	if (!is_empty(fld(r, C_OPT)) &&
	    wl_optimizer_parse(fld(r, C_OPT), &j->opt) != 0)
		row_error(r, err, C_OPT, "expected sgd, momentum or adam, "
			  "got '%s'", shown(r, C_OPT));
	if (!is_empty(fld(r, C_PREC)) &&
	    wl_precision_parse(fld(r, C_PREC), &j->prec) != 0)
		row_error(r, err, C_PREC, "expected fp32 or mixed, got '%s'",
			  shown(r, C_PREC));
	must_be_empty(r, err, C_SLO, "a train");
	must_be_empty(r, err, C_ARR, "a train");
	must_be_empty(r, err, C_RATE, "a train");
	must_be_empty(r, err, C_ARG, "a train");
	must_be_empty(r, err, C_TIMEOUT, "a train");
}

/* An infer row, or an llm row (what: "an infer", "an llm"). */
static void check_infer(struct trace_reader *r, struct trace_job *j,
			const char *what, struct sim_err *err)
{
	const char *arr = fld(r, C_ARR);
	int given;

	must_be_empty(r, err, C_ITER, what);
	must_be_empty(r, err, C_ITERMS, what);
	must_be_empty(r, err, C_OPT, what);
	must_be_empty(r, err, C_PREC, what);
	time_field(r, err, C_DUR, 1, 0, &j->duration_ns, &given);
	time_field(r, err, C_SLO, 1, 1, &j->slo_ns, &given);
	if (!given && is_empty(fld(r, C_SLO)))
		row_error(r, err, C_SLO, "%s row needs slo_ms (milliseconds "
			  "> 0)", what);
	if (j->kind == TRACE_LLM)   /* continuous batching: no timeout */
		must_be_empty(r, err, C_TIMEOUT, what);
	else
		time_field(r, err, C_TIMEOUT, 0, 1, &j->batch_timeout_ns,
			   &given);
	if (strcasecmp(arr, "poisson") == 0) {
		j->arrival = TRACE_ARR_POISSON;
		num_field(r, err, C_RATE, 0, 1, &j->rate_per_s, &given);
		if (given && j->rate_per_s > TRACE_RATE_MAX)
			row_error(r, err, C_RATE, "expected at most %g "
				  "requests/s (docs/LIMITS.md), got '%s'",
				  TRACE_RATE_MAX, shown(r, C_RATE));
		if (!given && is_empty(fld(r, C_RATE)))
			row_error(r, err, C_RATE, "poisson arrivals need a "
				  "rate (requests/s > 0)");
		must_be_empty(r, err, C_ARG, "a poisson");
	} else if (strcasecmp(arr, "rates") == 0 ||
		   strcasecmp(arr, "file") == 0) {
		int rates = strcasecmp(arr, "rates") == 0;
		j->arrival = rates ? TRACE_ARR_RATES : TRACE_ARR_FILE;
		must_be_empty(r, err, C_RATE, rates ? "a rates" : "a file");
		if (strlen(fld(r, C_ARG)) >= sizeof j->arrival_arg)
			row_error(r, err, C_ARG, "longer than %zu characters",
				  sizeof j->arrival_arg - 1);
		else if (rates) {
			struct trace_rate seg[TRACE_RATES_MAX];
			struct sim_err e;
			sim_err_clear(&e);
			if (trace_parse_rates(fld(r, C_ARG), seg,
					      TRACE_RATES_MAX, &e) < 0)
				row_error(r, err, C_ARG, "%s", e.msg);
		} else if (is_empty(fld(r, C_ARG)))
			row_error(r, err, C_ARG, "file arrivals need the path "
				  "of an arrival file");
		if (strlen(fld(r, C_ARG)) < sizeof j->arrival_arg)
			strcpy(j->arrival_arg, fld(r, C_ARG));
	} else {
		row_error(r, err, C_ARR, "expected poisson, rates or file, "
			  "got '%s'", shown(r, C_ARR));
	}
}

/* The id: present, short enough, not seen before. */
static void check_id(struct trace_reader *r, struct trace_job *j,
		     struct sim_err *err)
{
	long first;

	if (is_empty(fld(r, C_ID)))
		row_error(r, err, C_ID, "expected a job id, got an empty "
			  "field");
	else if (strlen(fld(r, C_ID)) >= sizeof j->id)
		row_error(r, err, C_ID, "longer than %zu characters",
			  sizeof j->id - 1);
	else {
		strcpy(j->id, fld(r, C_ID));
		first = trace_ids_add(&r->ids, j->id, r->row_line);
		if (first == SIM_ENOMEM)
			row_error(r, err, C_ID, "out of memory");
		else if (first > 0)
			row_error(r, err, C_ID, "duplicate id '%s' (first on "
				  "line %ld)", j->id, first);
	}
}

/* The submit time: present and not before the previous row's. */
static void check_submit(struct trace_reader *r, struct trace_job *j,
			 struct sim_err *err)
{
	int given;

	time_field(r, err, C_SUBMIT, 0, 0, &j->submit_ns, &given);
	if (given) {
		if (j->submit_ns < r->prev_submit)
			row_error(r, err, C_SUBMIT, "expected a time >= %.9g "
				  "(rows are sorted by submit_s; line %ld), "
				  "got '%s'", sim_time_to_s(r->prev_submit),
				  r->prev_submit_line, fld(r, C_SUBMIT));
		else {
			r->prev_submit = j->submit_ns;
			r->prev_submit_line = r->row_line;
		}
	} else if (is_empty(fld(r, C_SUBMIT)))
		row_error(r, err, C_SUBMIT, "expected seconds >= 0, got an "
			  "empty field");
}

/* The optional columns of both kinds: gpus, gpu_share, mem_mib, priority. */
static void check_shared(struct trace_reader *r, struct trace_job *j,
			 struct sim_err *err)
{
	double v;
	int64_t n;
	int given;

	int_field(r, err, C_GPUS, 0, 1 << 20, &n, &given);
	if (given)
		j->gpus = (int)n;
	num_field(r, err, C_SHARE, 0, 1, &v, &given);
	if (given && (v > 1 || v < TRACE_SHARE_MIN))
		row_error(r, err, C_SHARE, "expected a fraction in [%g, 1], "
			  "got '%s'", TRACE_SHARE_MIN, shown(r, C_SHARE));
	else if (given)
		j->gpu_share = v;
	num_field(r, err, C_MEM, 0, 1, &v, &given);
	if (given && v > MEM_MIB_MAX)
		row_error(r, err, C_MEM, "expected at most %.0f MiB (1 EiB), "
			  "got '%s'", MEM_MIB_MAX, shown(r, C_MEM));
	else if (given)
		j->mem_bytes = (uint64_t)llround(v * 1048576.0);
	int_field(r, err, C_PRIO, -1000000, 1000000, &n, &given);
	if (given)
		j->priority = (int)n;
}

/* The per-resource times: all three or none, train rows only. */
static void check_res(struct trace_reader *r, struct trace_job *j,
		      struct sim_err *err)
{
	int o, given, nres = 0;
	double v;

	for (o = O_RES0; o <= O_RES2 && r->opt_at[o] >= 0; o++) {
		int k = r->opt_at[o];
		if (is_empty(fld(r, k)))
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
}

/* The elastic range, min_gpus <= gpus <= max_gpus. */
static void check_elastic(struct trace_reader *r, struct trace_job *j,
			  struct sim_err *err)
{
	int o, given, ngiv = 0;
	int64_t n[2] = { 0, 0 };

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

/* The optional columns (docs/TRACE_FORMAT.md, "Optional columns"): the
** per-resource times, the elastic range, the host CPU and memory a job
** holds on its node; and the CPU-only job (gpus 0), which must be a train
** row with duration_s. */
static void check_optional(struct trace_reader *r, struct trace_job *j,
			   struct sim_err *err)
{
	int64_t n;
	int given;

	check_res(r, j, err);
	check_elastic(r, j, err);
	if (r->opt_at[O_CPU] >= 0) {
		int_field(r, err, r->opt_at[O_CPU], 0, INT64_C(1) << 40, &n,
			  &given);
		if (given)
			j->cpu_milli = n;
	}
	if (r->opt_at[O_HOST_MEM] >= 0) {
		int_field(r, err, r->opt_at[O_HOST_MEM], 0, INT64_C(1) << 40,
			  &n, &given);
		if (given)
			j->host_mem_mib = n;
	}
	if (r->opt_at[O_UTIL] >= 0 && j->kind == TRACE_INFER) {
		must_be_empty(r, err, r->opt_at[O_UTIL], "an infer");
	} else if (r->opt_at[O_UTIL] >= 0) {
		double u;

		num_field(r, err, r->opt_at[O_UTIL], 0, 1, &u, &given);
		if (given && u > 1)
			row_error(r, err, r->opt_at[O_UTIL], "expected a "
				  "fraction in (0, 1] (utilisation / 100), got "
				  "'%s'", shown(r, r->opt_at[O_UTIL]));
		else if (given)
			j->gpu_util = u;
	}
	if (r->opt_at[O_NOISE] >= 0 && j->kind != TRACE_TRAIN) {
		must_be_empty(r, err, r->opt_at[O_NOISE], "an infer");
	} else if (r->opt_at[O_NOISE] >= 0) {
		double b;

		/* the gradient noise scale, in samples (docs/MODEL.md,
		** "Goodput of elastic jobs") */
		num_field(r, err, r->opt_at[O_NOISE], 0, 1, &b, &given);
		if (given && !(b <= 1e12))
			row_error(r, err, r->opt_at[O_NOISE], "expected a "
				  "noise scale in (0, 1e12] (samples), got "
				  "'%s'",
				  shown(r, r->opt_at[O_NOISE]));
		else if (given)
			j->noise_scale = b;
	}
	if (j->gpus == 0 && (j->kind != TRACE_TRAIN || j->duration_ns <= 0))
		row_error(r, err, C_GPUS, "expected an integer in [1, %d] (0, "
			  "a CPU-only job, needs kind train and duration_s), "
			  "got '%s'", 1 << 20, shown(r, C_GPUS));
}

static void check_row(struct trace_reader *r, struct trace_job *j,
		      struct sim_err *err)
{
	const struct zoo_model *m;
	int64_t n;
	int given;

	memset(j, 0, sizeof *j);
	j->line = r->row_line;
	j->opt = WL_OPT_MOMENTUM;
	j->prec = WL_PREC_FP32;
	j->gpus = 1;
	j->gpu_share = 1;
	if (r->rec.nf != r->ncols) {
		row_error(r, err, r->rec.nf < r->ncols ? K_END : r->ncols,
			  "expected %d fields (the header's columns), got %d",
			  r->ncols, r->rec.nf);
		return;
	}
	check_id(r, j, err);
	check_submit(r, j, err);
	m = zoo_find(fld(r, C_MODEL));
	if (m == NULL) {
		char names[512], hint[96];
		zoo_names(names, sizeof names);
		sim_did_you_mean(fld(r, C_MODEL), names, hint, sizeof hint);
		row_error(r, err, C_MODEL, "unknown model '%s' (%sknown: %s)",
			  shown(r, C_MODEL), hint, names);
	} else
		strcpy(j->model, m->name);
	int_field(r, err, C_BATCH, 1, 1 << 20, &n, &given);
	if (given)
		j->batch = (int)n;
	else if (is_empty(fld(r, C_BATCH)))
		row_error(r, err, C_BATCH, "expected a batch size >= 1, got an "
			  "empty field");
	check_shared(r, j, err);
	if (strcasecmp(fld(r, C_KIND), "train") == 0) {
		j->kind = TRACE_TRAIN;
		check_train(r, j, err);
	} else if (strcasecmp(fld(r, C_KIND), "infer") == 0) {
		j->kind = TRACE_INFER;
		check_infer(r, j, "an infer", err);
	} else if (strcasecmp(fld(r, C_KIND), "llm") == 0) {
		j->kind = TRACE_LLM;
		check_infer(r, j, "an llm", err);
		if (m != NULL && llm_arch_find(m->name) == NULL) {
			char names[512];
			llm_arch_names(names, sizeof names);
			row_error(r, err, C_MODEL, "an llm row needs an LLM "
				  "architecture (%s), got '%s'", names,
				  shown(r, C_MODEL));
		}
	} else
		row_error(r, err, C_KIND, "expected train, infer or llm, got "
			  "'%s'", shown(r, C_KIND));
	check_optional(r, j, err);
}

/* ---- lines ---- */

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

static int check_magic(struct trace_reader *r, struct sim_err *err)
{
	const char *line;
	size_t len;
	int rc = sim_csv_raw_line(r->csv, &line, &len, err);

	if (rc < 0)
		return rc;
	if (rc == 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: expected the line "
				   "'%s', got an empty file", r->path,
				   TRACE_MAGIC);
	if (strcmp(line, TRACE_MAGIC) == 0)
		return 0;
	if (strncmp(line, "# colosim-trace v", 17) == 0)
		return sim_err_set(err, SIM_EVERSION, "%s:1:17: unsupported "
				   "trace version '%.20s' (this colosim reads "
				   "v1)", r->path, line + 16);
	/* not a trace: its content is not shown (a config may name any
	** file as its trace; docs/LIMITS.md, "What messages show") */
	return sim_err_set(err, SIM_EPARSE, "%s:1:1: expected the line '%s' "
			   "(a colosim trace); this file does not start with "
			   "it", r->path, TRACE_MAGIC);
}

/* The optional columns after the 19: known names, each once; the
** res_* three and the min/max pair go together. */
static int check_opt_header(struct trace_reader *r, struct sim_err *err)
{
	const struct sim_csv_rec *h = &r->rec;
	int k, nres;

	for (k = 0; k < TRACE_NOPT; k++)
		r->opt_at[k] = -1;
	for (k = TRACE_NCOLS; k < h->nf; k++) {
		int o;
		for (o = 0; o < TRACE_NOPT; o++)
			if (strcmp(h->f[k], trace_opt_columns[o]) == 0)
				break;
		if (o == TRACE_NOPT)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "unknown column '%s' after the %d "
					   "of v1 (optional columns: "
					   "res_cpu_ms, res_gpu_ms, res_net_ms, "
					   "min_gpus, max_gpus, cpu_milli, "
					   "host_mem_mib, gpu_util, noise_scale)",
					   r->path,
					   h->col[k], h->f[k], TRACE_NCOLS);
		if (r->opt_at[o] >= 0)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "column '%s' twice", r->path,
					   h->col[k], h->f[k]);
		r->opt_at[o] = k;
	}
	nres = (r->opt_at[O_RES0] >= 0) + (r->opt_at[O_RES1] >= 0) +
		(r->opt_at[O_RES2] >= 0);
	if (nres != 0 && nres != 3)
		return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: the "
				   "res_cpu_ms, res_gpu_ms and res_net_ms "
				   "columns go together", r->path,
				   h->col[TRACE_NCOLS]);
	if ((r->opt_at[O_MIN_GPUS] >= 0) != (r->opt_at[O_MAX_GPUS] >= 0))
		return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: the "
				   "min_gpus and max_gpus columns go together",
				   r->path, h->col[TRACE_NCOLS]);
	r->ncols = h->nf;
	return 0;
}

static int check_header(struct trace_reader *r, struct sim_err *err)
{
	const struct sim_csv_rec *h = &r->rec;
	int rc, k;

	if ((rc = check_magic(r, err)) != 0)
		return rc;
	rc = sim_csv_next(r->csv, &r->rec, err);
	if (rc < 0)
		return rc;
	if (rc == 0 || h->line != 2)
		return sim_err_set(err, SIM_EPARSE, "%s:2:1: expected the "
				   "header line, got %s", r->path, rc == 0 ?
				   "the end of the file" :
				   "a blank or comment line");
	for (k = 0; k < TRACE_NCOLS; k++) {
		if (k >= h->nf)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "expected column '%s' after '%s'",
					   r->path, h->col[h->nf - 1] +
					   (int)h->len[h->nf - 1],
					   trace_columns[k], trace_columns[k - 1]);
		if (strcmp(h->f[k], trace_columns[k]) != 0)
			return sim_err_set(err, SIM_EPARSE, "%s:2:%d: header: "
					   "expected column %d to be '%s', got "
					   "'%s'", r->path, h->col[k], k + 1,
					   trace_columns[k], h->f[k]);
	}
	return check_opt_header(r, err);
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
	trace_ids_init(&r->ids);
	snprintf(r->path, sizeof r->path, "%s", path);
	dir_of(path, r->dir, sizeof r->dir);
	rc = sim_csv_open(&r->csv, path, "trace", SIM_CSV_COMMENTS, NULL, err);
	if (rc == 0)
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
	struct sim_err e;
	int rc;

	sim_err_clear(&e);
	rc = sim_csv_next(r->csv, &r->rec, &e);
	if (rc == 0)
		return 0;
	if (rc < 0) {
		/* A malformed record goes to the sink like a row's errors;
		** a read error or lack of memory ends the read. */
		if (rc == SIM_EPARSE && r->sink != NULL)
			r->sink(r->sink_ctx, &e);
		if (err != NULL && err->code == 0)
			*err = e;
		return rc;
	}
	r->row_line = r->rec.line;
	r->row_errors = 0;
	check_row(r, job, err);
	return r->row_errors ? SIM_EPARSE : 1;
}

const char *trace_dir(const struct trace_reader *r)
{
	return r->dir;
}

int trace_set_arrivals_dir(struct trace_reader *r, const char *dir)
{
	if (dir == NULL) {
		r->arr_dir[0] = '\0';
		return 0;
	}
	if (strlen(dir) >= sizeof r->arr_dir)
		return SIM_ERANGE;
	memcpy(r->arr_dir, dir, strlen(dir) + 1);
	return 0;
}

const char *trace_arrivals_dir(const struct trace_reader *r)
{
	return r->arr_dir[0] ? r->arr_dir : NULL;
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
	sim_csv_close(r->csv);
	trace_ids_fini(&r->ids);
	free(r);
}
