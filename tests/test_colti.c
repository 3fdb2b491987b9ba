/*
** test_colti.c: COLTI's admission rules on hand-built cases (issue 6):
** a training job holding 12 of 16 GB lets a 3 GB inference service in
** under colti and not under exclusive; a second training job that would
** need the SMs the first one saturates is kept waiting, unless their
** duty cycles leave room (sat x duty); a service that does
** not fit the remaining memory is kept waiting unless rule (2) admits it;
** a multi-GPU job on a mix of empty and shared GPUs; a service's SM demand
** from its arrival rate.
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

static void test_training_demand_is_busy_fraction(void)
{
	/* A measured iteration of 400 ms, of which the model's GPU-busy
	** part is about 90 ms (ResNet-50, batch 32, V100): duty about 0.22,
	** SM demand sat x duty about 0.21 each, so two fit on one GPU and B
	** joins A at once; with duty=0 the demand is sat (~0.94) and B waits
	** for A (the test of the first version, before duty cycles). */
	const char *t = tw_write("colti-duty.csv",
		"A,train,0,resnet50,32,,100,400,,,1,,4096,,,,,,\n"
		"B,train,1,resnet50,32,,100,400,,,1,,4096,,,,,,\n");

	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", NULL, "B"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(start_of(t, "colti", "duty=0", "B"), 100, 1e-9);
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

/* R (MobileNetV2, SM demand 0.12) holds GPU 0; J (2 GPUs, same model)
** arrives at 1 s with GPU 1 empty.  An empty GPU admits any job (MODEL.md,
** "COLTI"), and GPU 0 admits J by rule (1): J starts at once on GPU 1 and
** beside R on GPU 0, with the MPS share R leaves.  Before the fix a job
** had to find all its GPUs in one class (all empty, or all shared), so J
** waited for R to end with GPU 1 idle; now empty and shared GPUs may be
** taken together. */
static void test_colti_mixed_gpus(void)
{
	struct tw_world r;
	const struct world_job *j;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "colti_mix.csv",
		"R,train,0,mobilenetv2,4,,1000,,,,1,,,,,,,,\n"
		"J,train,1,mobilenetv2,4,,100,,,,2,,,,,,,,\n",
		pol_find("colti"), "1x2:a100-80gb", NULL), 0);
	j = tw_wjob(&r, "J");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J"), 1, 1e-9);
	CU_ASSERT_EQUAL(j->first_gpu_, 0);
	CU_ASSERT(tw_end_s(&r, "J") < 1000);
	CU_ASSERT_EQUAL(run_result_get(&r.res, "jobs_done"), 2);
	tw_close(&r);
}

/* COLTI's SM demand of a service (MODEL.md, "COLTI"): sat(B) x its busy
** fraction rate L(B) / B under Poisson arrivals at a known rate (10/s x
** 4 ms / 8: almost nothing), so a ResNet-50 training job (sat 0.65) joins
** it at once; with `rates` arrivals the rate column is empty, the service
** counts as always busy (0.56 + 0.65 > 1) and the job waits for it.
** (duty=0: the training job's demand is its sat; with its duty cycle at
** batch 4, mostly host time, it would fit beside either.) */
static void test_colti_service_rate(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "colti_rate.csv",
		"S,infer,0,resnet50,8,,100,,,,1,,,,100,poisson,10,,2\n"
		"T,train,0,resnet50,4,,50,,,,1,,,,,,,,\n",
		pol_find("colti"), "1x1:a100-80gb", "duty=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "T"), 0, 0);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "colti_norate.csv",
		"S,infer,0,resnet50,8,,100,,,,1,,,,100,rates,,10@0,2\n"
		"T,train,0,resnet50,4,,50,,,,1,,,,,,,,\n",
		pol_find("colti"), "1x1:a100-80gb", "duty=0"), 0);
	/* it starts when S has drained, just before its 100 s lifetime */
	CU_ASSERT(tw_start_s(&r, "T") >= 99);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "T"), tw_end_s(&r, "S"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "T")->state, JOB_DONE);
	tw_close(&r);
}

TEST_REGISTER(colti)
{
	static const struct test_case cases[] = {
		{ "3 GB service joins a 12 GB training job",
		  test_service_joins_training },
		{ "training needs idle compute", test_training_needs_idle_compute },
		{ "a training job's SM demand is its busy fraction",
		  test_training_demand_is_busy_fraction },
		{ "bad parameters", test_bad_params },
		{ "colti mixes empty and shared GPUs",
		  test_colti_mixed_gpus },
		{ "colti: a service's SM demand from its rate",
		  test_colti_service_rate },
		{ NULL, NULL }
	};
	return test_add_suite("colti", cases);
}
