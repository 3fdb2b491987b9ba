/*
** export.c: wide tables out of the store's export_* views (see export.h).
**
** The swept values and (for runs) the metrics of every selected run are
** read once into flat arrays indexed by the run's position in the sorted
** list of run ids; the view is then streamed row by row, each row looking
** its run up by binary search.  Memory: O(runs x (swept keys + metrics)),
** whatever the size of the jobs or series tables.
*/
#include "experiments/export.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "experiments/json.h"
#include "experiments/names.h"
#include "experiments/report.h"

static const char *const table_names[EXPORT__COUNT] = {
	"runs", "jobs", "series", "latency", "placements"
};

/* Row order of each view: deterministic and natural for its table. */
static const char *const table_order[EXPORT__COUNT] = {
	"experiment, run_index",
	"run_id, submit_s, job_id",
	"run_id, gpu, t_s",
	"run_id, lo_ms",
	"run_id, start_s, job_id, gpu",
};

const char *exp_export_name(enum exp_export_table t)
{
	return t < EXPORT__COUNT ? table_names[t] : "?";
}

int exp_export_find(const char *name, enum exp_export_table *t,
		    struct sim_err *err)
{
	int i;

	for (i = 0; i < EXPORT__COUNT; i++)
		if (strcmp(name, table_names[i]) == 0) {
			*t = (enum exp_export_table)i;
			return 0;
		}
	return sim_err_set(err, SIM_ENOENT, "no export table '%s' (known: "
			   "runs, jobs, series, latency, placements)", name);
}

/* ------------------------------------------------------------ the state */

struct exporter {
	sqlite3 *db;
	const struct exp_export_opts *o;
	int64_t *ids;                 /* selected runs, ascending */
	size_t nruns;
	struct exp_names keys;        /* swept keys, first-seen order */
	char **sweep;                 /* nruns x keys.n, owned, NULL none */
	struct exp_names mets;        /* runs: metric columns, in order */
	double *metv;                 /* nruns x mets.n, NaN none */
};

static void exporter_free(struct exporter *x)
{
	size_t i;

	for (i = 0; x->sweep != NULL && i < x->nruns * x->keys.n; i++)
		free(x->sweep[i]);
	free(x->sweep);
	free(x->ids);
	free(x->metv);
	exp_names_fini(&x->keys);
	exp_names_fini(&x->mets);
}

static int db_fail(struct exporter *x, const char *what, struct sim_err *err)
{
	return sim_err_set(err, SIM_EIO, "results database: %s: %s", what,
			   sqlite3_errmsg(x->db));
}

static int oom(struct sim_err *err)
{
	return sim_err_set(err, SIM_ENOMEM, "out of memory");
}

/* Prepares sql and binds ?1 to the experiment (NULL: all of them). */
static int prepare(struct exporter *x, const char *sql, sqlite3_stmt **st,
		   struct sim_err *err)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(x, "prepare", err);
	if ((x->o->experiment != NULL ?
	     sqlite3_bind_text(*st, 1, x->o->experiment, -1, SQLITE_TRANSIENT) :
	     sqlite3_bind_null(*st, 1)) != SQLITE_OK) {
		sqlite3_finalize(*st);
		return db_fail(x, "bind", err);
	}
	return 0;
}

/* The position of run id in x->ids, or -1. */
static long run_pos(const struct exporter *x, int64_t id)
{
	size_t lo = 0, hi = x->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->ids[mid] < id)
			lo = mid + 1;
		else if (x->ids[mid] > id)
			hi = mid;
		else
			return (long)mid;
	}
	return -1;
}

/* The selected runs' ids, ascending. */
static int load_runs(struct exporter *x, struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if ((rc = prepare(x, "SELECT r.id FROM runs r JOIN experiments e ON "
			  "e.id = r.experiment_id WHERE ?1 IS NULL OR e.name ="
			  " ?1 ORDER BY r.id", &st, err)) != 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (x->nruns == cap) {
			size_t c = cap ? cap * 2 : 64;
			int64_t *p = realloc(x->ids, c * sizeof *p);
			if (p == NULL) {
				sqlite3_finalize(st);
				return oom(err);
			}
			x->ids = p;
			cap = c;
		}
		x->ids[x->nruns++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(x, "read runs", err);
}

/* Two passes over the swept values: the keys, then the values. */
static int load_sweep(struct exporter *x, struct sim_err *err)
{
	static const char *const sql =
		"SELECT p.run_id, p.key, p.value FROM run_params p"
		" JOIN runs r ON r.id = p.run_id"
		" JOIN experiments e ON e.id = r.experiment_id"
		" WHERE p.kind = 'sweep' AND (?1 IS NULL OR e.name = ?1)"
		" ORDER BY r.id, p.key";
	sqlite3_stmt *st;
	int rc, pass;

	if ((rc = prepare(x, sql, &st, err)) != 0)
		return rc;
	for (pass = 0; pass < 2; pass++) {
		sqlite3_reset(st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(st, 1);
			const char *v = (const char *)sqlite3_column_text(st, 2);
			long pos = run_pos(x, sqlite3_column_int64(st, 0));
			int ki;
			if (k == NULL || pos < 0)
				continue;
			if (pass == 0) {
				if (exp_names_add(&x->keys, k) < 0)
					goto nomem;
				continue;
			}
			ki = exp_names_find(&x->keys, k);
			free(x->sweep[(size_t)pos * x->keys.n + (size_t)ki]);
			if ((x->sweep[(size_t)pos * x->keys.n + (size_t)ki] =
			     strdup(v ? v : "")) == NULL)
				goto nomem;
		}
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_fail(x, "read swept values", err);
		}
		if (pass == 0 && x->keys.n > 0 &&
		    (x->sweep = calloc(x->nruns * x->keys.n + 1,
				       sizeof *x->sweep)) == NULL)
			goto nomem;
	}
	sqlite3_finalize(st);
	return 0;
nomem:
	sqlite3_finalize(st);
	return oom(err);
}

static int cmp_metric(const void *a, const void *b)
{
	const char *p = *(const char *const *)a, *q = *(const char *const *)b;
	int rp = rep_metric_rank(p), rq = rep_metric_rank(q);

	return rp != rq ? (rp > rq) - (rp < rq) : strcmp(p, q);
}

/* The metric columns: --metric's list (each must be stored), or every
** metric stored, in the report's order. */
static int metric_columns(struct exporter *x, const struct exp_names *stored,
			  struct sim_err *err)
{
	const char *p = x->o->metrics;

	if (p == NULL) {
		size_t i;
		for (i = 0; i < stored->n; i++)
			if (exp_names_add(&x->mets, stored->v[i]) < 0)
				return oom(err);
		qsort(x->mets.v, x->mets.n, sizeof *x->mets.v, cmp_metric);
		return 0;
	}
	while (*p) {
		char name[64];
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof name)
			return sim_err_set(err, SIM_EINVAL, "--metric: bad "
					   "list '%s'", x->o->metrics);
		memcpy(name, p, n);
		name[n] = '\0';
		if (exp_names_find(stored, name) < 0)
			return sim_err_set(err, SIM_ENOENT, "--metric: no metric "
					   "'%s' stored%s%s", name,
					   x->o->experiment ? " in experiment "
					   : "", x->o->experiment ?
					   x->o->experiment : "");
		if (exp_names_add(&x->mets, name) < 0)
			return oom(err);
		p += n + (p[n] == ',');
	}
	return 0;
}

/* The runs table's metrics: the column list, then the values. */
static int load_metrics(struct exporter *x, struct sim_err *err)
{
	static const char *const sql =
		"SELECT m.run_id, m.name, m.value FROM metrics m"
		" JOIN runs r ON r.id = m.run_id"
		" JOIN experiments e ON e.id = r.experiment_id"
		" WHERE (?1 IS NULL OR e.name = ?1) AND m.value IS NOT NULL";
	struct exp_names stored = { NULL, 0, 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc, pass;

	if ((rc = prepare(x, sql, &st, err)) != 0)
		return rc;
	for (pass = 0; pass < 2; pass++) {
		sqlite3_reset(st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *k = (const char *)sqlite3_column_text(st, 1);
			long pos = run_pos(x, sqlite3_column_int64(st, 0));
			int mi;
			if (k == NULL || pos < 0)
				continue;
			if (pass == 0) {
				if (exp_names_add(&stored, k) < 0) {
					rc = SQLITE_NOMEM;
					break;
				}
				continue;
			}
			if ((mi = exp_names_find(&x->mets, k)) >= 0)
				x->metv[(size_t)pos * x->mets.n + (size_t)mi] =
					sqlite3_column_double(st, 2);
		}
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			exp_names_fini(&stored);
			return rc == SQLITE_NOMEM ? oom(err) :
				db_fail(x, "read metrics", err);
		}
		if (pass == 1)
			break;
		if ((rc = metric_columns(x, &stored, err)) != 0) {
			sqlite3_finalize(st);
			exp_names_fini(&stored);
			return rc;
		}
		x->metv = malloc((x->nruns * x->mets.n + 1) * sizeof *x->metv);
		if (x->metv == NULL) {
			sqlite3_finalize(st);
			exp_names_fini(&stored);
			return oom(err);
		}
		for (i = 0; i < x->nruns * x->mets.n; i++)
			x->metv[i] = NAN;
	}
	sqlite3_finalize(st);
	exp_names_fini(&stored);
	return 0;
}

/* ------------------------------------------------------------- writing */

/* A column of the output: view column `col`, swept key `key` or metric
** `met` (exactly one of them >= 0). */
struct outcol {
	const char *name;
	int col, key, met;
};

/* The shortest %.Ng (N = 15..17) that reads back as v. */
static void fmt_num(char *buf, size_t n, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void csv_field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A swept value: a number when the whole text reads as a finite one. */
static json_t *jsweep(const char *s)
{
	char *end;
	double d;
	long long ll;

	errno = 0;
	ll = strtoll(s, &end, 10);
	if (*s && *end == '\0' && errno == 0)
		return json_integer((json_int_t)ll);
	d = strtod(s, &end);
	if (*s && *end == '\0' && isfinite(d))
		return json_real(d);
	return exp_json_text(s);
}

/* Writes one cell of the current row: CSV to f, or into the JSON row. */
static int put_cell(struct exporter *x, FILE *f, json_t *row,
		    const struct outcol *c, sqlite3_stmt *st, long pos)
{
	char num[40];
	json_t *j = NULL;

	if (c->col >= 0) {
		int t = sqlite3_column_type(st, c->col);
		if (t == SQLITE_INTEGER) {
			long long v = sqlite3_column_int64(st, c->col);
			snprintf(num, sizeof num, "%lld", v);
			j = row ? json_integer((json_int_t)v) : NULL;
			if (!row)
				fputs(num, f);
		} else if (t == SQLITE_FLOAT) {
			double v = sqlite3_column_double(st, c->col);
			j = row ? json_real(v) : NULL;
			if (!row) {
				fmt_num(num, sizeof num, v);
				fputs(num, f);
			}
		} else if (t == SQLITE_NULL) {
			j = row ? json_null() : NULL;
		} else {
			const char *s = (const char *)sqlite3_column_text(st,
									 c->col);
			j = row ? exp_json_text(s ? s : "") : NULL;
			if (!row)
				csv_field(f, s ? s : "");
		}
	} else if (c->key >= 0) {
		const char *s = pos < 0 ? NULL :
			x->sweep[(size_t)pos * x->keys.n + (size_t)c->key];
		j = row ? (s ? jsweep(s) : json_null()) : NULL;
		if (!row && s)
			csv_field(f, s);
	} else {
		double v = pos < 0 ? (double)NAN :
			x->metv[(size_t)pos * x->mets.n + (size_t)c->met];
		j = row ? (isfinite(v) ? json_real(v) : json_null()) : NULL;
		if (!row && isfinite(v)) {
			fmt_num(num, sizeof num, v);
			fputs(num, f);
		}
	}
	if (row != NULL && (j == NULL || json_object_set_new(row, c->name, j)))
		return SIM_ENOMEM;
	return 0;
}

/* The output columns of the view behind st. */
static int plan(struct exporter *x, sqlite3_stmt *st, struct outcol **out,
		size_t *nout, int *run_col, struct sim_err *err)
{
	int ncol = sqlite3_column_count(st), i, in_metrics = 0;
	size_t n = 0, k;
	struct outcol *c = calloc((size_t)ncol + x->keys.n + x->mets.n + 1,
				  sizeof *c);

	if (c == NULL)
		return oom(err);
	*run_col = -1;
	for (i = 0; i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (strcmp(name, "run_id") == 0)
			*run_col = i;
		/* runs: `sweep`, the view's metric columns and `metrics` give
		** way to the metric columns of this export */
		if (strcmp(name, "sweep") == 0) {
			in_metrics = x->o->table == EXPORT_RUNS;
			continue;
		}
		if (in_metrics) {
			if (strcmp(name, "metrics") == 0)
				in_metrics = 0;
			continue;
		}
		c[n].name = name;
		c[n].col = i;
		c[n].key = c[n].met = -1;
		n++;
		if (strcmp(name, "replication") != 0)
			continue;
		for (k = 0; k < x->keys.n; k++) {
			int j, dup = 0;
			for (j = 0; j < ncol; j++)
				dup |= strcmp(sqlite3_column_name(st, j),
					      x->keys.v[k]) == 0;
			if (dup)
				continue;       /* policy, cluster, ...: there */
			c[n].name = x->keys.v[k];
			c[n].key = (int)k;
			c[n].col = c[n].met = -1;
			n++;
		}
	}
	for (k = 0; k < x->mets.n; k++) {
		c[n].name = x->mets.v[k];
		c[n].met = (int)k;
		c[n].col = c[n].key = -1;
		n++;
	}
	*out = c;
	*nout = n;
	return 0;
}

static int write_rows(struct exporter *x, FILE *f, struct sim_err *err)
{
	char sql[256];
	sqlite3_stmt *st;
	struct outcol *cols = NULL;
	size_t ncols = 0, i, nrow = 0;
	int rc, run_col = -1;

	snprintf(sql, sizeof sql, "SELECT * FROM export_%s WHERE ?1 IS NULL "
		 "OR experiment = ?1 ORDER BY %s", table_names[x->o->table],
		 table_order[x->o->table]);
	if ((rc = prepare(x, sql, &st, err)) != 0)
		return rc;
	if ((rc = plan(x, st, &cols, &ncols, &run_col, err)) != 0) {
		sqlite3_finalize(st);
		return rc;
	}
	if (x->o->format == EXPORT_CSV) {
		for (i = 0; i < ncols; i++) {
			if (i)
				fputc(',', f);
			csv_field(f, cols[i].name);
		}
		fputc('\n', f);
	} else {
		fputc('[', f);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long pos = run_col >= 0 ?
			run_pos(x, sqlite3_column_int64(st, run_col)) : -1;
		json_t *row = x->o->format == EXPORT_JSON ? json_object() : NULL;
		int r2 = 0;
		if (x->o->format == EXPORT_JSON && row == NULL) {
			rc = SQLITE_NOMEM;
			break;
		}
		for (i = 0; i < ncols && r2 == 0; i++) {
			if (i && row == NULL)
				fputc(',', f);
			r2 = put_cell(x, f, row, &cols[i], st, pos);
		}
		if (row != NULL) {
			fputs(nrow ? ",\n" : "\n", f);
			if (r2 == 0 && json_dumpf(row, f, JSON_REAL_PRECISION(17))
			    != 0)
				r2 = SIM_EIO;
			json_decref(row);
		} else {
			fputc('\n', f);
		}
		nrow++;
		if (r2 != 0) {
			rc = r2 == SIM_ENOMEM ? SQLITE_NOMEM : SQLITE_IOERR;
			break;
		}
	}
	sqlite3_finalize(st);
	free(cols);
	if (rc == SQLITE_NOMEM)
		return oom(err);
	if (rc != SQLITE_DONE && rc != SQLITE_IOERR)
		return db_fail(x, sql, err);
	if (x->o->format == EXPORT_JSON)
		fputs(nrow ? "\n]\n" : "]\n", f);
	if (rc == SQLITE_IOERR || ferror(f))
		return sim_err_set(err, SIM_EIO, "export: write failed: %s",
				   strerror(errno));
	return 0;
}

int exp_export(struct store *s, const struct exp_export_opts *o, FILE *out,
	       struct sim_err *err)
{
	struct exporter x;
	int64_t id;
	int rc;

	if (o->table >= EXPORT__COUNT)
		return sim_err_set(err, SIM_EINVAL, "export: bad table");
	if (store_schema_version(s) < STORE_SCHEMA_EXPORT)
		return sim_err_set(err, SIM_EVERSION, "results schema %d has no "
				   "export views (they came with schema %d); "
				   "`colosim export --upgrade` migrates the "
				   "database (it adds tables and views and "
				   "changes no stored row)",
				   store_schema_version(s), STORE_SCHEMA_EXPORT);
	if (o->metrics != NULL && o->table != EXPORT_RUNS)
		return sim_err_set(err, SIM_EINVAL, "--metric: only the runs "
				   "table has metric columns");
	if (o->experiment != NULL &&
	    store_find_experiment(s, o->experiment, &id, NULL, err) != 0) {
		char *list = NULL;
		if (err->code != SIM_ENOENT)
			return err->code;
		sim_err_clear(err);
		if (rep_list_experiments(s, &list, err) == 0) {
			sim_err_set(err, SIM_ENOENT, "no experiment '%s' in the "
				    "database (stored: %s)", o->experiment,
				    *list ? list : "none");
			free(list);
			return SIM_ENOENT;
		}
		free(list);
		return err->code;
	}
	memset(&x, 0, sizeof x);
	x.db = store_db(s);
	x.o = o;
	if ((rc = load_runs(&x, err)) == 0 &&
	    (rc = load_sweep(&x, err)) == 0 &&
	    (o->table != EXPORT_RUNS || (rc = load_metrics(&x, err)) == 0))
		rc = write_rows(&x, out, err);
	exporter_free(&x);
	return rc;
}
