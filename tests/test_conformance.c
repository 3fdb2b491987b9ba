/*
** test_conformance.c: every registered policy (and the template) on every
** reference trace in traces/ref/, stepped one event at a time, checking
** after each event that time never goes backwards and no GPU or MIG slice
** holds more memory than it has; at the end, that every job ended exactly
** once (done or failed), and that the same seed gives the same metrics.
** The stepping and its invariants are tw_step_checked (tests/world_util.c),
** which test_swap.c runs at a cost.
** Leaks are checked by running this suite under `make SANITIZE=1 check`.
*/
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define CLUSTER "2x4:a100-80gb"

extern const struct pol_ops pol_template;

/* Runs trace under pol (seed 7, no event budget) stepping event by event
** with the invariants of tw_step_checked; returns the number of violations
** found (and prints the first few). */
static int run_checked(const char *trace, const struct pol_ops *pol)
{
	struct world_config cfg = tw_config(pol);
	struct tw_world t;
	int bad = 1;

	cfg.seed = 7;
	cfg.max_events = 0;
	if (tw_open(&t, trace, CLUSTER, &cfg, NULL) == 0)
		bad = tw_step_checked(&t, NULL);
	tw_close(&t);
	return bad;
}

static int same_metrics(const struct run_result *a,
			const struct run_result *b)
{
	size_t k;

	if (a->nmetrics != b->nmetrics || a->njobs != b->njobs)
		return 0;
	for (k = 0; k < a->nmetrics; k++)
		if (strcmp(a->metrics[k].name, "wall_s") != 0 &&
		    memcmp(&a->metrics[k].value, &b->metrics[k].value,
			   sizeof(double)) != 0)
			return 0;
	return 1;
}

static void check_policy(const struct pol_ops *pol)
{
	struct sim_err err = { 0, "" };
	glob_t gl;
	size_t t;

	CU_ASSERT_EQUAL_FATAL(glob("traces/ref/*.csv", 0, NULL, &gl), 0);
	CU_ASSERT(gl.gl_pathc >= 1);
	for (t = 0; t < gl.gl_pathc; t++) {
		struct run_result a, b;
		int rc1, rc2;

		CU_ASSERT_EQUAL(run_checked(gl.gl_pathv[t], pol), 0);
		if (pol_find(pol->zName) != pol)
			continue;        /* the template is not registered */
		run_result_init(&a);
		run_result_init(&b);
		rc1 = tw_run(gl.gl_pathv[t], pol->zName, CLUSTER, 11, NULL, &a,
			     &err);
		rc2 = tw_run(gl.gl_pathv[t], pol->zName, CLUSTER, 11, NULL, &b,
			     &err);
		CU_ASSERT_EQUAL(rc1, 0);
		CU_ASSERT_EQUAL(rc2, 0);
		CU_ASSERT(same_metrics(&a, &b));
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&a, "jobs_done") +
				       run_result_get(&a, "jobs_failed"),
				       run_result_get(&a, "jobs_total"), 0);
		run_result_fini(&a);
		run_result_fini(&b);
	}
	globfree(&gl);
}

static void test_registered(void)
{
	size_t i;

	CU_ASSERT_PTR_NOT_NULL(pol_registry[0]);
	for (i = 0; pol_registry[i] != NULL; i++) {
		CU_ASSERT_PTR_NOT_NULL(pol_registry[i]->xSchedule);
		CU_ASSERT(pol_registry[i]->iVersion <= POL_IFACE_VERSION);
		check_policy(pol_registry[i]);
	}
}

static void test_template(void)
{
	check_policy(&pol_template);
}

/* Every policy survives other seeds too: a policy bug that only shows
** with some request streams (one stopped DistMind's run, seed 1) fails
** here rather than in a user's sweep. */
static void test_seeds(void)
{
	size_t i;
	uint64_t seed;

	for (i = 0; pol_registry[i] != NULL; i++)
		for (seed = 1; seed <= 4; seed++) {
			struct run_result r;
			struct sim_err err = { 0, "" };
			int rc;

			run_result_init(&r);
			rc = tw_run("traces/ref/mixed-small.csv",
				    pol_registry[i]->zName, CLUSTER, seed, NULL,
				    &r, &err);
			if (rc != 0)
				fprintf(stderr, "\n  %s seed %llu: %s\n",
					pol_registry[i]->zName,
					(unsigned long long)seed, err.msg);
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done") +
					       run_result_get(&r, "jobs_failed"),
					       run_result_get(&r, "jobs_total"), 0);
			run_result_fini(&r);
		}
}

/* Names are unique and every table is complete. */
static void test_registry_table(void)
{
	size_t i, k;

	for (i = 0; pol_registry[i] != NULL; i++) {
		CU_ASSERT_PTR_NOT_NULL(pol_registry[i]->zName);
		CU_ASSERT_PTR_NOT_NULL(pol_registry[i]->zDesc);
		for (k = 0; k < i; k++)
			CU_ASSERT_STRING_NOT_EQUAL(pol_registry[i]->zName,
						   pol_registry[k]->zName);
		CU_ASSERT_PTR_EQUAL(pol_find(pol_registry[i]->zName),
				    pol_registry[i]);
	}
	CU_ASSERT_PTR_NULL(pol_find("no-such-policy"));
}

TEST_REGISTER(conformance)
{
	static const struct test_case cases[] = {
		{ "registry table", test_registry_table },
		{ "every policy on every reference trace", test_registered },
		{ "the template on every reference trace", test_template },
		{ "every policy under four seeds", test_seeds },
		{ NULL, NULL }
	};
	return test_add_suite("conformance", cases);
}
