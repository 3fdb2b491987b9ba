/*
** test_report.c: means, Student-t intervals and paired differences
** (experiments/report.h) against hand-computed figures.
**
** The case: makespan_s over 4 replications
**   exclusive 12 13 15 18     mean 14.5
**   colti     10 12 14 16     mean 13, sd sqrt(20/3), t(0.975,3) = 3.182446
**             half-width 3.182446 * 2.581989 / 2 = 4.108521
**   mps       20 22 24 (rep 3 failed)   mean 22, sd 2, t(0.975,2) = 4.302653
** colti - exclusive = -2 -1 -1 -2: mean -1.5, sd sqrt(1/3)
** mps - exclusive  =  8  9  9    : mean 26/3, sd sqrt(1/3)
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/report.h"
#include "experiments/store.h"
#include "tests/util.h"

#define T3 3.18244630528371    /* t quantile 0.975, 3 d.o.f. (tables) */
#define T2 4.30265272974946    /* t quantile 0.975, 2 d.o.f. */

static const char *CFG =
	"[experiment]\nname = hand\ntrace = x.csv\ncluster = 1x1:a100\n"
	"replications = 4\n[sweep]\npolicy = exclusive, colti, mps\n";

static const double VALUES[3][4] = {
	{ 12, 13, 15, 18 }, { 10, 12, 14, 16 }, { 20, 22, 24, -1 }
};

static int pol_index(const char *p)
{
	return strcmp(p, "exclusive") == 0 ? 0 : strcmp(p, "colti") == 0 ? 1
									 : 2;
}

/* Builds the hand case in a fresh database; a second experiment when
** two is set.  Returns the path. */
static const char *build_db(int two)
{
	static char path[512];
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct store *s = NULL;
	struct sim_err err;
	size_t i;
	int64_t id;

	snprintf(path, sizeof path, "%s/report%d.db", test_tmpdir(), two);
	unlink(path);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, "hand.ini", CFG,
					       strlen(CFG), &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, path, STORE_WRITE, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_add_experiment(s, cfg, (long)m.nruns, &id,
						   &err), 0);
	for (i = 0; i < m.nruns; i++) {
		const struct exp_run_spec *sp = &m.runs[i];
		double v = VALUES[pol_index(sp->policy)][sp->replication];
		struct run_result r;
		run_result_init(&r);
		if (v < 0) {
			CU_ASSERT_EQUAL(store_put_run(s, id, sp,
				STORE_RUN_FAILED, "crashed", NULL, &err), 0);
			continue;
		}
		run_result_set(&r, "makespan_s", v);
		run_result_set(&r, "zz_custom", 1.0);
		run_result_set(&r, "hbm_util_mean", 0.5);
		CU_ASSERT_EQUAL(store_put_run(s, id, sp, STORE_RUN_DONE, NULL,
					      &r, &err), 0);
		run_result_fini(&r);
	}
	if (two) {
		free(cfg->name);
		cfg->name = malloc(8);
		strcpy(cfg->name, "second");
		CU_ASSERT_EQUAL(store_add_experiment(s, cfg, 0, &id, &err), 0);
	}
	store_close(s);
	exp_matrix_fini(&m);
	exp_config_free(cfg);
	return path;
}

static const struct rep_row *find_row(const struct rep_table *t,
				      const char *variant, const char *metric)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].variant, variant) == 0 &&
		    strcmp(t->rows[i].metric, metric) == 0)
			return &t->rows[i];
	return NULL;
}

static void test_stat_by_hand(void)
{
	const double x[4] = { 10, 12, 14, 16 };
	struct rep_stat st;

	rep_stat_compute(x, 4, 0.95, &st);
	CU_ASSERT_EQUAL(st.n, 4);
	TEST_ASSERT_CLOSE(st.mean, 13.0, 1e-12);
	TEST_ASSERT_CLOSE(st.sd, sqrt(20.0 / 3), 1e-12);
	TEST_ASSERT_CLOSE(st.half, T3 * sqrt(20.0 / 3) / 2, 1e-9);
	TEST_ASSERT_CLOSE(st.half, 4.1085205, 1e-7);
	rep_stat_compute(x, 1, 0.95, &st);
	CU_ASSERT(isnan(st.half));
	TEST_ASSERT_CLOSE(st.mean, 10.0, 1e-12);
	/* 90%: t(0.95, 3) = 2.353363 */
	rep_stat_compute(x, 4, 0.90, &st);
	TEST_ASSERT_CLOSE(st.half, 2.353363435 * sqrt(20.0 / 3) / 2, 1e-8);
}

static void test_report_by_hand(void)
{
	const char *db = build_db(0);
	struct store *s = NULL;
	struct rep_table t;
	struct sim_err err;
	const struct rep_row *r;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL_FATAL(rep_build(s, NULL, NULL, 0.95, &t, &err), 0);
	CU_ASSERT_STRING_EQUAL(t.experiment, "hand");
	CU_ASSERT_STRING_EQUAL(t.baseline, "exclusive");
	CU_ASSERT_EQUAL(t.total_runs, 12);
	CU_ASSERT_EQUAL(t.done_runs, 11);
	CU_ASSERT_EQUAL(t.failed_runs, 1);
	CU_ASSERT_EQUAL(t.nrows, 9);
	/* Documented metrics first, in their order; others after. */
	CU_ASSERT_STRING_EQUAL(t.rows[0].metric, "makespan_s");
	CU_ASSERT_STRING_EQUAL(t.rows[3].metric, "hbm_util_mean");
	CU_ASSERT_STRING_EQUAL(t.rows[8].metric, "zz_custom");
	r = find_row(&t, "exclusive", "makespan_s");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT(r->is_baseline);
	CU_ASSERT_EQUAL(r->diff.n, 0);
	TEST_ASSERT_CLOSE(r->stat.mean, 14.5, 1e-12);
	TEST_ASSERT_CLOSE(r->stat.half, T3 * sqrt(7.0) / 2, 1e-9);
	r = find_row(&t, "colti", "makespan_s");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	TEST_ASSERT_CLOSE(r->stat.mean, 13.0, 1e-12);
	TEST_ASSERT_CLOSE(r->stat.half, 4.1085205, 1e-7);
	CU_ASSERT_EQUAL(r->diff.n, 4);
	TEST_ASSERT_CLOSE(r->diff.mean, -1.5, 1e-12);
	TEST_ASSERT_CLOSE(r->diff.half, T3 * sqrt(1.0 / 3) / 2, 1e-9);
	TEST_ASSERT_CLOSE(r->diff.half, 0.918693, 1e-6);
	TEST_ASSERT_CLOSE(r->rel, -1.5 / 14.5, 1e-12);
	r = find_row(&t, "mps", "makespan_s");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->stat.n, 3);
	TEST_ASSERT_CLOSE(r->stat.mean, 22.0, 1e-12);
	TEST_ASSERT_CLOSE(r->stat.half, T2 * 2 / sqrt(3.0), 1e-9);
	CU_ASSERT_EQUAL(r->diff.n, 3);         /* rep 3 has no mps value */
	TEST_ASSERT_CLOSE(r->diff.mean, 26.0 / 3, 1e-12);
	TEST_ASSERT_CLOSE(r->diff.half, T2 * sqrt(1.0 / 3) / sqrt(3.0), 1e-9);
	/* hbm_util_mean is 0.5 everywhere: zero width. */
	r = find_row(&t, "colti", "hbm_util_mean");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	TEST_ASSERT_CLOSE(r->stat.half, 0, 1e-12);
	rep_table_fini(&t);
	/* Another baseline, named by policy. */
	CU_ASSERT_EQUAL_FATAL(rep_build(s, "hand", "colti", 0.95, &t, &err), 0);
	r = find_row(&t, "exclusive", "makespan_s");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	TEST_ASSERT_CLOSE(r->diff.mean, 1.5, 1e-12);
	rep_table_fini(&t);
	/* Unknown baseline and experiment: clear errors. */
	CU_ASSERT_EQUAL(rep_build(s, "hand", "gslice", 0.95, &t, &err),
			SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "exclusive, colti, mps") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(rep_build(s, "nope", NULL, 0.95, &t, &err),
			SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "stored: hand") != NULL);
	store_close(s);
}

static void test_render(void)
{
	const char *db = build_db(0);
	struct store *s = NULL;
	struct rep_table t;
	struct sim_err err;
	char *out = NULL, line[256];

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL_FATAL(rep_build(s, NULL, NULL, 0.95, &t, &err), 0);
	CU_ASSERT_EQUAL_FATAL(rep_render(&t, REP_TABLE, &out, &err), 0);
	CU_ASSERT(strstr(out, "11 of 12 runs done, 1 failed") != NULL);
	CU_ASSERT(strstr(out, "(baseline)") != NULL);
	CU_ASSERT(strstr(out, "-10.3%") != NULL);
	free(out);
	CU_ASSERT_EQUAL_FATAL(rep_render(&t, REP_CSV, &out, &err), 0);
	CU_ASSERT(strncmp(out, "experiment,setting,variant,", 27) == 0);
	snprintf(line, sizeof line, "\"hand\",\"\",\"colti\",\"colti\","
		 "\"makespan_s\",4,13,");
	CU_ASSERT(strstr(out, line) != NULL);
	free(out);
	CU_ASSERT_EQUAL_FATAL(rep_render(&t, REP_JSON, &out, &err), 0);
	CU_ASSERT(strstr(out, "\"variant\": \"mps\", \"policy\": \"mps\", "
			 "\"metric\": \"makespan_s\", \"n\": 3, \"mean\": 22")
		  != NULL);
	CU_ASSERT(strstr(out, "\"baseline\": \"exclusive\"") != NULL);
	free(out);
	rep_table_fini(&t);
	store_close(s);
}

static void test_several_experiments(void)
{
	const char *db = build_db(1);
	struct store *s = NULL;
	struct rep_table t;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL(rep_build(s, NULL, NULL, 0.95, &t, &err), SIM_EINVAL);
	CU_ASSERT(strstr(err.msg, "hand, second") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(rep_build(s, "second", NULL, 0.95, &t, &err), 0);
	CU_ASSERT_EQUAL(t.nrows, 0);
	CU_ASSERT_PTR_NULL(t.baseline);
	rep_table_fini(&t);
	store_close(s);
}

TEST_REGISTER(report)
{
	static const struct test_case cases[] = {
		{"mean and t interval by hand", test_stat_by_hand},
		{"report and paired differences by hand", test_report_by_hand},
		{"table, csv, json", test_render},
		{"several experiments", test_several_experiments},
		{NULL, NULL}
	};
	return test_add_suite("report", cases);
}
