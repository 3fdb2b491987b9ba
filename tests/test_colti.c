/*
** test_colti.c: COLTI's admission rules on hand-built cases (issue 6):
** a training job holding 12 of 16 GB lets a 3 GB inference service in
** under colti and not under exclusive; a second training job that would
** need the SMs the first one saturates is kept waiting; a service that does
** not fit the remaining memory is kept waiting unless rule (2) admits it.
*/
#include <stdio.h>
#include <string.h>

#include "tests/util.h"
#include "tests/world_util.h"

#define V100 "1x1:v100-16gb"

static double start_of(const char *trace, const char *policy,
		       const char *params, const char *id)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *j;
	double s = -1;

	run_result_init(&r);
	if (tw_run(trace, policy, V100, 1, params, &r, &err) != 0)
		fprintf(stderr, "\n  %s: %s\n", policy, err.msg);
	else if ((j = tw_job(&r, id)) != NULL)
		s = j->start_s;
	run_result_fini(&r);
	return s;
}

static void test_service_joins_training(void)
{
	const char *t = tw_write("colti1.csv",
		"T,train,0,resnet50,32,,100,,,,1,,12288,,,,,,\n"
		"S,infer,10,resnet50,8,,20,,,,1,,3072,,100,poisson,5,,0\n");

	/* colti: placed at its arrival next to the training job */
	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", NULL, "S"), 10, 1e-9);
	/* exclusive: waits for the training job to end at 100 s */
	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "exclusive", NULL, "S"), 100, 1e-9);
	/* colti with both memory rules off cannot co-locate */
	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", "fit=0,share=0", "S"),
			       100, 1e-9);
}

static void test_training_needs_idle_compute(void)
{
	/* Two small training jobs fit in memory, but the first saturates
	** the SMs (sat ~0.94): the second waits under the default test and
	** runs at once with the test off (sm_threshold = 2). */
	const char *t = tw_write("colti2.csv",
		"A,train,0,resnet50,32,,100,,,,1,,4096,,,,,,\n"
		"B,train,1,resnet50,32,,100,,,,1,,4096,,,,,,\n");

	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", NULL, "B"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", "sm_threshold=2", "B"), 1,
			       1e-9);
}

static void test_bad_params(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	const char *t = tw_write("colti3.csv",
		"A,train,0,resnet50,32,,10,,,,1,,4096,,,,,,\n");

	run_result_init(&r);
	CU_ASSERT_EQUAL(tw_run(t, "colti", V100, 1, "mode=exclusive", &r,
			       &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mode"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(t, "colti", V100, 1, "headroom=0.9", &r, &err),
			SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(t, "colti", V100, 1, "memory=1", &r, &err),
			SIM_EINVAL);
	run_result_fini(&r);
}

TEST_REGISTER(colti)
{
	static const struct test_case cases[] = {
		{ "3 GB service joins a 12 GB training job",
		  test_service_joins_training },
		{ "training needs idle compute", test_training_needs_idle_compute },
		{ "bad parameters", test_bad_params },
		{ NULL, NULL }
	};
	return test_add_suite("colti", cases);
}
