/*
** test_export.c: schema 2 of the results store (services, placements, the
** export_* views, the migration from schema 1) and `colosim export`'s wide
** tables (experiments/export.h), value by value against what was stored.
**
** The case: horizon_s = 100, 200 (swept, already a column) x policies
** exclusive and colti, colti sweeping tag = 1, 2.5 (a swept column) x
** replications r = 0, 1: 12 runs.  Each run stores
**   makespan_s = horizon + 10 tag + r (tag 0 for exclusive),
**   slo_attainment = 0.5 and zz_custom = 7 for colti only,
**   j0: a finished training job on GPUs 0 and 1 (two placements [1, 11)),
**   j1: an unfinished service (every time -1 in the jobs table) with 10
**       requests, 8 served, 6 within its 100 ms SLO.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "experiments/export.h"
#include "experiments/report.h"
#include "experiments/store.h"
#include "tests/util.h"

static const char *CFG =
	"[experiment]\nname = ex\ntrace = x.csv\ncluster = 1x2:a100\n"
	"replications = 2\n[sweep]\nhorizon_s = 100, 200\n"
	"policy = exclusive, colti\npolicy.colti.tag = 1, 2.5\n";

static double tag_of(const struct exp_run_spec *sp)
{
	const char *t = exp_kv_get(sp->params, sp->nparams, "tag");

	return t ? strtod(t, NULL) : 0;
}

static int fill(void *ctx, const struct exp_run_spec *sp,
		struct run_result *res)
{
	int colti = strcmp(sp->policy, "colti") == 0, g;
	struct res_job j;
	struct res_series se = { -1, 0, 0.25, 0.5 };
	struct res_lat_bin b = { 1, 2, 8 };

	(void)ctx;
	run_result_set(res, "makespan_s", sp->horizon_s + 10 * tag_of(sp) +
		       sp->replication);
	if (colti) {
		run_result_set(res, "slo_attainment", 0.5);
		run_result_set(res, "zz_custom", 7);
	}
	memset(&j, 0, sizeof j);
	strcpy(j.id, "j0");
	strcpy(j.kind, "train");
	strcpy(j.model, "resnet50");
	j.gpus = 2;
	j.start_s = 1;
	j.end_s = j.jct_s = 11;
	j.queue_s = 1;
	j.slowdown = 1.1;
	run_result_add_job(res, &j);
	memset(&j, 0, sizeof j);
	strcpy(j.id, "j1");
	strcpy(j.kind, "infer");
	strcpy(j.model, "bert-base");
	j.gpus = 1;
	j.first_gpu = -1;
	j.status = 2;
	j.submit_s = 3;
	j.start_s = j.end_s = j.jct_s = j.queue_s = j.slowdown = -1;
	j.req_total = 10;
	j.req_served = 8;
	j.req_slo_ok = 6;
	j.slo_ms = 100;
	j.lat_mean_ms = 5;
	j.lat_p50_ms = 4;
	j.lat_p95_ms = 9;
	j.lat_p99_ms = 12;
	run_result_add_job(res, &j);
	for (g = 0; g < 2; g++) {
		struct res_place p = { 0, g, -1, 1, 11, 1u << 30, 1 };
		run_result_add_place(res, &p);
	}
	run_result_add_series(res, &se);
	run_result_add_lat(res, &b);
	return 0;
}

/* Runs an export into a malloc'd string; its return code in *rc. */
static char *export_str(const char *db, enum exp_export_table t,
			enum exp_export_format fmt, const char *metrics,
			int *rc)
{
	struct exp_export_opts o;
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&o, 0, sizeof o);
	o.table = t;
	o.format = fmt;
	o.metrics = metrics;
	*rc = store_open(&s, db, STORE_READ, &err);
	if (*rc == 0)
		*rc = exp_export(s, &o, f, &err);
	store_close(s);
	fclose(f);
	return buf;
}

/* Splits CSV line into fields (no quoting in this case's values). */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *c = strpbrk(p, ",\n");
		if (n < max)
			f[n++] = p;
		if (c == NULL || *c == '\n') {
			if (c)
				*c = '\0';
			break;
		}
		*c = '\0';
		p = c + 1;
	}
	return n;
}

static int col(char **h, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(h[i], name) == 0)
			return i;
	return -1;
}

static void test_runs_wide(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	char *csv, *line, *save = NULL, *h[64], *f[64];
	int rc, nh, rows = 0, c_tag, c_h, c_ms, c_slo, c_zz, c_rep, c_pol, i;

	csv = export_str(db, EXPORT_RUNS, EXPORT_CSV, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	line = strtok_r(csv, "\n", &save);
	nh = split(line, h, 64);
	c_tag = col(h, nh, "policy.colti.tag");
	c_h = col(h, nh, "horizon_s");
	c_ms = col(h, nh, "makespan_s");
	c_slo = col(h, nh, "slo_attainment");
	c_zz = col(h, nh, "zz_custom");
	c_rep = col(h, nh, "replication");
	c_pol = col(h, nh, "policy");
	/* the swept key right after replication; horizon_s once; metrics
	** in the report's order, the unlisted one last */
	CU_ASSERT_EQUAL(c_tag, c_rep + 1);
	CU_ASSERT(c_h >= 0);
	for (i = 0; i < nh; i++)
		CU_ASSERT(i == c_h || strcmp(h[i], "horizon_s") != 0);
	CU_ASSERT(c_ms > c_tag && c_slo > c_ms && c_zz == nh - 1);
	CU_ASSERT_EQUAL(col(h, nh, "sweep"), -1);
	CU_ASSERT_EQUAL(col(h, nh, "metrics"), -1);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		int n = split(line, f, 64), colti;
		double tag;
		CU_ASSERT_EQUAL_FATAL(n, nh);
		colti = strcmp(f[c_pol], "colti") == 0;
		tag = colti ? strtod(f[c_tag], NULL) : 0;
		CU_ASSERT(colti ? (tag == 1 || tag == 2.5) : f[c_tag][0] == 0);
		TEST_ASSERT_CLOSE(strtod(f[c_ms], NULL), strtod(f[c_h], NULL) +
				  10 * tag + atoi(f[c_rep]), 1e-15);
		CU_ASSERT_STRING_EQUAL(f[c_slo], colti ? "0.5" : "");
		CU_ASSERT_STRING_EQUAL(f[c_zz], colti ? "7" : "");
		rows++;
	}
	CU_ASSERT_EQUAL(rows, 12);
	free(csv);
	/* --metric: only these, in this order; an unknown one is an error */
	csv = export_str(db, EXPORT_RUNS, EXPORT_CSV, "zz_custom,makespan_s",
			 &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	line = strtok_r(csv, "\n", &save);
	nh = split(line, h, 64);
	CU_ASSERT_STRING_EQUAL(h[nh - 2], "zz_custom");
	CU_ASSERT_STRING_EQUAL(h[nh - 1], "makespan_s");
	CU_ASSERT_EQUAL(col(h, nh, "slo_attainment"), -1);
	free(csv);
	free(export_str(db, EXPORT_RUNS, EXPORT_CSV, "nope", &rc));
	CU_ASSERT_EQUAL(rc, SIM_ENOENT);
	free(export_str(db, EXPORT_JOBS, EXPORT_CSV, "makespan_s", &rc));
	CU_ASSERT_EQUAL(rc, SIM_EINVAL);
}

static void test_runs_json(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	json_error_t je;
	json_t *a, *o;
	char *js;
	size_t i;
	int rc, seen = 0;

	js = export_str(db, EXPORT_RUNS, EXPORT_JSON, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	a = json_loads(js, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(json_array_size(a), 12);
	json_array_foreach(a, i, o) {
		json_t *tag = json_object_get(o, "policy.colti.tag");
		const char *pol = json_string_value(json_object_get(o,
								    "policy"));
		double h = json_number_value(json_object_get(o, "horizon_s"));
		double r = json_number_value(json_object_get(o, "replication"));
		double t = json_is_number(tag) ? json_number_value(tag) : 0;
		CU_ASSERT_PTR_NOT_NULL_FATAL(pol);
		CU_ASSERT(strcmp(pol, "colti") == 0 ? json_is_number(tag) :
			  json_is_null(tag));
		TEST_ASSERT_CLOSE(json_number_value(json_object_get(o,
			"makespan_s")), h + 10 * t + r, 1e-15);
		CU_ASSERT(strcmp(pol, "colti") == 0 ||
			  json_is_null(json_object_get(o, "slo_attainment")));
		seen += t == 2.5;
	}
	CU_ASSERT_EQUAL(seen, 4);
	json_decref(a);
	free(js);
}

static void test_jobs_sentinels(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	char *csv, *line, *save = NULL, *h[64], *f[64];
	int rc, nh, n0 = 0, n1 = 0;

	csv = export_str(db, EXPORT_JOBS, EXPORT_CSV, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	line = strtok_r(csv, "\n", &save);
	nh = split(line, h, 64);
	CU_ASSERT(col(h, nh, "policy.colti.tag") >= 0);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		int n = split(line, f, 64);
		const char *id;
		CU_ASSERT_EQUAL_FATAL(n, nh);
		id = f[col(h, nh, "job_id")];
		if (strcmp(id, "j0") == 0) {
			CU_ASSERT_STRING_EQUAL(f[col(h, nh, "gpus_used")], "0;1");
			CU_ASSERT_STRING_EQUAL(f[col(h, nh, "placements")], "2");
			CU_ASSERT_STRING_EQUAL(f[col(h, nh, "slowdown")], "1.1");
			CU_ASSERT_STRING_EQUAL(f[col(h, nh, "requests_total")],
					       "");
			n0++;
			continue;
		}
		/* the -1 sentinels of the jobs table are empty here */
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "start_s")], "");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "jct_s")], "");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "slowdown")], "");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "first_gpu")], "");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "gpus_used")], "");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "status")], "unfinished");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "requests_total")], "10");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "requests_slo_ok")], "6");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "slo_attainment")], "0.6");
		CU_ASSERT_STRING_EQUAL(f[col(h, nh, "latency_p99_ms")], "12");
		n1++;
	}
	CU_ASSERT_EQUAL(n0, 12);
	CU_ASSERT_EQUAL(n1, 12);
	free(csv);
	/* placements: open end and whole GPU are empty */
	csv = export_str(db, EXPORT_PLACEMENTS, EXPORT_CSV, NULL, &rc);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	line = strtok_r(csv, "\n", &save);
	nh = split(line, h, 64);
	line = strtok_r(NULL, "\n", &save);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_EQUAL(split(line, f, 64), nh);
	CU_ASSERT_STRING_EQUAL(f[col(h, nh, "kind")], "train");
	CU_ASSERT_STRING_EQUAL(f[col(h, nh, "slice")], "");
	CU_ASSERT_STRING_EQUAL(f[col(h, nh, "end_s")], "11");
	CU_ASSERT_STRING_EQUAL(f[col(h, nh, "mem_bytes")], "1073741824");
	free(csv);
}

static long q_long(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Lines of a CSV export minus its header. */
static long export_rows(const char *db, enum exp_export_table t)
{
	int rc;
	char *s = export_str(db, t, EXPORT_CSV, NULL, &rc), *p;
	long n = -1;

	for (p = s; rc == 0 && p && *p; p++)
		n += *p == '\n';
	free(s);
	return n;
}

static void test_views_agree(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	static const char *const views[EXPORT__COUNT] = {
		"export_runs", "export_jobs", "export_series",
		"export_latency", "export_placements"
	};
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	sqlite3 *h;
	char sql[256];
	int t;

	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	h = store_db(s);
	for (t = 0; t < EXPORT__COUNT; t++) {
		snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", views[t]);
		CU_ASSERT_EQUAL(q_long(h, sql), export_rows(db, t));
	}
	/* the view's metric columns and JSON hold the stored values */
	CU_ASSERT_EQUAL(q_long(h, "SELECT count(*) FROM export_runs WHERE "
			       "makespan_s = horizon_s + 10 * coalesce("
			       "json_extract(sweep, '$.\"policy.colti.tag\"'),"
			       " 0) + replication"), 12);
	CU_ASSERT_EQUAL(q_long(h, "SELECT count(*) FROM export_runs WHERE "
			       "json_extract(metrics, '$.zz_custom') = 7"), 8);
	CU_ASSERT_EQUAL(q_long(h, "SELECT count(*) FROM export_jobs WHERE "
			       "job_id = 'j1' AND start_s IS NULL AND slowdown"
			       " IS NULL AND first_gpu IS NULL AND "
			       "slo_attainment = 0.6"), 12);
	CU_ASSERT_EQUAL(q_long(h, "SELECT count(*) FROM export_placements "
			       "WHERE slice IS NULL AND kind = 'train'"), 24);
	store_close(s);
}

static void test_migration(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	static const char *const downgrade =
		"DROP VIEW export_runs; DROP VIEW export_jobs;"
		"DROP VIEW export_series; DROP VIEW export_latency;"
		"DROP VIEW export_placements; DROP TABLE services;"
		"DROP TABLE placements; DROP INDEX jobs_job;"
		"DROP VIEW export_histograms; DROP VIEW export_timeseries;"
		"DROP TABLE histograms; DROP TABLE timeseries;"
		"PRAGMA user_version = 1";
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	struct rep_table t;
	sqlite3 *raw;
	int rc;

	/* The current schema less what schemas 2 and 3 added is schema 1. */
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &raw), SQLITE_OK);
	CU_ASSERT_EQUAL_FATAL(sqlite3_exec(raw, downgrade, NULL, NULL, NULL),
			      SQLITE_OK);
	sqlite3_close(raw);
	/* readable as it is: the report works, the export says what to do */
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL(store_schema_version(s), 1);
	CU_ASSERT_EQUAL(rep_build(s, NULL, NULL, 0.95, &t, &err), 0);
	CU_ASSERT(t.nrows > 0);
	rep_table_fini(&t);
	store_close(s);
	free(export_str(db, EXPORT_RUNS, EXPORT_CSV, NULL, &rc));
	CU_ASSERT_EQUAL(rc, SIM_EVERSION);
	/* opening for writing migrates, keeping every row */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_WRITE, &err), 0);
	CU_ASSERT_EQUAL(store_schema_version(s), STORE_SCHEMA_VERSION);
	CU_ASSERT_EQUAL(q_long(store_db(s), "SELECT count(*) FROM jobs"), 24);
	CU_ASSERT_EQUAL(q_long(store_db(s), "SELECT count(*) FROM "
			       "placements"), 0);
	store_close(s);
	CU_ASSERT_EQUAL(export_rows(db, EXPORT_RUNS), 12);
	CU_ASSERT_EQUAL(export_rows(db, EXPORT_JOBS), 24);
}

static void test_unknown_experiment(void)
{
	const char *db = test_store_build("export.db", CFG, fill, NULL);
	struct exp_export_opts o;
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	FILE *f = fopen("/dev/null", "w");

	memset(&o, 0, sizeof o);
	o.experiment = "nope";
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL(exp_export(s, &o, f, &err), SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "stored: ex") != NULL);
	store_close(s);
	fclose(f);
}

TEST_REGISTER(export)
{
	static const struct test_case cases[] = {
		{"runs: one column per swept key and metric", test_runs_wide},
		{"runs as JSON: numbers and nulls", test_runs_json},
		{"jobs: sentinels empty, services, placements",
		 test_jobs_sentinels},
		{"views agree with the export", test_views_agree},
		{"schema 1 readable, migrated on write", test_migration},
		{"unknown experiment", test_unknown_experiment},
		{NULL, NULL}
	};
	return test_add_suite("export", cases);
}
