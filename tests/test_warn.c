/*
** test_warn.c: the warnings about degenerate experiments
** (experiments/warn.h), each triggered by the case it names and silent
** otherwise; and the report's --metric filter and its relative
** difference near a zero baseline (experiments/report.h).
**
** The degenerate case: policies exclusive (p = 0), gslice (p = 1) and
** colti (p = 2) x horizon_s = 0, 1000 x replications 0..2, training jobs
** only; makespan_s = 100 + 10 [p = 2], the same in every replication and
** at both horizons, events differing by run: every replication alike
** (zero-variance), gslice equal to exclusive (noop-policy), the horizon
** changing nothing (noop-sweep).  The healthy case adds r + p + h / 1000.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/report.h"
#include "experiments/store.h"
#include "experiments/warn.h"
#include "tests/util.h"

static const char *CFG =
	"[experiment]\nname = w\ntrace = x.csv\ncluster = 1x1:a100\n"
	"replications = 3\n[sweep]\npolicy = exclusive, gslice, colti\n"
	"horizon_s = 0, 1000\n";

static const char *CFG_TAG =
	"[experiment]\nname = w\ntrace = x.csv\ncluster = 1x1:a100\n"
	"replications = 2\n[sweep]\npolicy = exclusive, colti\n"
	"policy.colti.tag = 1, 2\n";

enum { DEGENERATE, HEALTHY, ONE_FIXED };

static int pol(const struct exp_run_spec *sp)
{
	return strcmp(sp->policy, "exclusive") == 0 ? 0 :
		strcmp(sp->policy, "gslice") == 0 ? 1 : 2;
}

static int fill(void *ctx, const struct exp_run_spec *sp,
		struct run_result *res)
{
	int mode = *(const int *)ctx, p = pol(sp);
	double v = 100 + 10 * (p == 2);
	struct res_job j;

	if (mode == HEALTHY || (mode == ONE_FIXED && p != 2))
		v += sp->replication + p + sp->horizon_s / 1000;
	run_result_set(res, "makespan_s", v);
	run_result_set(res, "jobs_total", 1);
	/* engine work, not an outcome: never compared */
	run_result_set(res, "events", 1000 + sp->index);
	memset(&j, 0, sizeof j);
	strcpy(j.id, "t0");
	strcpy(j.kind, "train");
	strcpy(j.model, "resnet50");
	j.gpus = 1;
	run_result_add_job(res, &j);
	return 0;
}

static int build(const char *cfg, int mode, struct exp_warnings *w)
{
	const char *db = test_store_build("warn.db", cfg, fill, &mode);
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	int rc;

	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	rc = exp_warnings_build(s, NULL, NULL, w, &err);
	store_close(s);
	return rc;
}

static const struct exp_warning *find(const struct exp_warnings *w,
				      enum exp_warn_kind k)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->v[i].kind == k)
			return &w->v[i];
	return NULL;
}

static size_t count(const struct exp_warnings *w, enum exp_warn_kind k)
{
	size_t i, n = 0;

	for (i = 0; i < w->n; i++)
		n += w->v[i].kind == k;
	return n;
}

static void test_degenerate(void)
{
	struct exp_warnings w;
	const struct exp_warning *x;

	CU_ASSERT_EQUAL_FATAL(build(CFG, DEGENERATE, &w), 0);
	CU_ASSERT_EQUAL(w.n, 3);
	x = find(&w, EXP_WARN_ZERO_VARIANCE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(strstr(x->msg, "every variant") != NULL);
	CU_ASSERT(strstr(x->msg, "arrival_jitter_s") != NULL);
	x = find(&w, EXP_WARN_NOOP_POLICY);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_EQUAL(count(&w, EXP_WARN_NOOP_POLICY), 1);
	CU_ASSERT(strncmp(x->msg, "policy gslice ", 14) == 0);
	CU_ASSERT(strstr(x->msg, "baseline exclusive") != NULL);
	CU_ASSERT(strstr(x->msg, "6 paired") != NULL);
	CU_ASSERT(strstr(x->msg, "no inference services") != NULL);
	x = find(&w, EXP_WARN_NOOP_SWEEP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(strstr(x->msg, "horizon_s") != NULL);
	CU_ASSERT(strstr(x->msg, "(0; 1000)") != NULL);
	/* 3 policies x 3 replications: groups that differ only in it */
	CU_ASSERT(strstr(x->msg, "9 groups") != NULL);
	exp_warnings_fini(&w);
}

static void test_healthy(void)
{
	struct exp_warnings w;

	CU_ASSERT_EQUAL_FATAL(build(CFG, HEALTHY, &w), 0);
	CU_ASSERT_EQUAL(w.n, 0);
	exp_warnings_fini(&w);
}

static void test_partial(void)
{
	struct exp_warnings w;
	const struct exp_warning *x;

	/* only colti's replications are alike; gslice now differs from
	** exclusive and the horizon matters for them */
	CU_ASSERT_EQUAL_FATAL(build(CFG, ONE_FIXED, &w), 0);
	CU_ASSERT_EQUAL(w.n, 1);
	x = find(&w, EXP_WARN_ZERO_VARIANCE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(strstr(x->msg, "2 of 6") != NULL);
	CU_ASSERT(strstr(x->msg, "colti (horizon_s=0)") != NULL);
	exp_warnings_fini(&w);
}

static void test_policy_key(void)
{
	struct exp_warnings w;
	const struct exp_warning *x;

	/* tag does nothing for colti; the replications do vary */
	CU_ASSERT_EQUAL_FATAL(build(CFG_TAG, ONE_FIXED, &w), 0);
	x = find(&w, EXP_WARN_NOOP_SWEEP);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(strstr(x->msg, "policy.colti.tag") != NULL);
	CU_ASSERT(strstr(x->msg, "docs/POLICIES.md") != NULL);
	exp_warnings_fini(&w);
}

static void test_rel_diff(void)
{
	CU_ASSERT(isnan(rep_rel_diff(1, 0, 1)));
	CU_ASSERT(isnan(rep_rel_diff(1, 0.001, 1.001)));
	CU_ASSERT(isnan(rep_rel_diff(199, 1, 200)));
	TEST_ASSERT_CLOSE(rep_rel_diff(99, 1, 100), 99, 1e-15);
	TEST_ASSERT_CLOSE(rep_rel_diff(0.5, 1, 1.5), 0.5, 1e-15);
	TEST_ASSERT_CLOSE(rep_rel_diff(-0.9, 1, 0.1), -0.9, 1e-15);
	TEST_ASSERT_CLOSE(rep_rel_diff(-1, -2, -3), 0.5, 1e-15);
}

/* jobs_total is 1 in every run; a metric "zero" is 0 for exclusive. */
static int fill_zero(void *ctx, const struct exp_run_spec *sp,
		     struct run_result *res)
{
	(void)ctx;
	run_result_set(res, "makespan_s", 100 + sp->replication + pol(sp));
	run_result_set(res, "hbm_util_mean", 0.5);
	run_result_set(res, "zero", pol(sp) == 0 ? 0 : 1);
	return 0;
}

static void test_report_metric(void)
{
	const char *db = test_store_build("rep.db", CFG, fill_zero, NULL);
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	struct rep_table t;
	size_t i, n;
	char *out = NULL;

	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL_FATAL(rep_build(s, NULL, NULL, 0.95, &t, &err), 0);
	store_close(s);
	n = t.nrows;
	CU_ASSERT_EQUAL(rep_keep_metrics(&t, "zero,nope", &err), SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "'nope'") != NULL);
	CU_ASSERT_EQUAL(t.nrows, n);
	CU_ASSERT_EQUAL_FATAL(rep_keep_metrics(&t, "zero,makespan_s", &err),
			      0);
	/* 2 settings x 2 metrics x 3 variants, in the list's order */
	CU_ASSERT_EQUAL_FATAL(t.nrows, 12);
	for (i = 0; i < t.nrows; i++) {
		const struct rep_row *r = &t.rows[i];
		CU_ASSERT_STRING_EQUAL(r->metric, i % 6 < 3 ? "zero" :
				       "makespan_s");
		/* a zero baseline: no relative difference */
		if (strcmp(r->metric, "zero") == 0 && !r->is_baseline) {
			CU_ASSERT(isnan(r->rel));
			TEST_ASSERT_CLOSE(r->diff.mean, 1, 1e-15);
		}
	}
	CU_ASSERT_EQUAL_FATAL(rep_render(&t, REP_TABLE, &out, &err), 0);
	CU_ASSERT(strstr(out, "hbm_util_mean") == NULL);
	CU_ASSERT(strstr(out, "      n/a\n") != NULL);
	CU_ASSERT(strstr(out, "%\n") != NULL);      /* makespan's rel */
	free(out);
	rep_table_fini(&t);
}

TEST_REGISTER(warn)
{
	static const struct test_case cases[] = {
		{"a degenerate experiment: all three warnings",
		 test_degenerate},
		{"a healthy experiment: none", test_healthy},
		{"identical replications of one variant", test_partial},
		{"a policy key that changes nothing", test_policy_key},
		{"relative difference n/a near a zero baseline",
		 test_rel_diff},
		{"report --metric keeps those metrics, in order",
		 test_report_metric},
		{NULL, NULL}
	};
	return test_add_suite("warn", cases);
}
