/*
** test_world.c: the world's semantics on hand-computed cases: exclusive
** FIFO, time-slicing, SRTF preemption, memory refusal, impossible jobs,
** inference batching with and without a timeout, determinism.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"
#define ONE_GPU "1x1:" DEV

/* Runs body under policy on one GPU; asserts success. */
static int run1(const char *name, const char *body, const char *policy,
		const char *params, struct run_result *res)
{
	struct sim_err err = { 0, "" };
	const char *path = tw_write(name, body);
	int rc;

	run_result_init(res);
	rc = tw_run(path, policy, ONE_GPU, 1, params, res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s/%s: %s\n", name, policy, err.msg);
	return rc;
}

static double jct(const struct run_result *r, const char *id)
{
	const struct res_job *j = tw_job(r, id);
	return j ? j->jct_s : -999;
}

/* Three jobs on one GPU, exclusive FIFO: A 0-10, B 10-30, C 30-60. */
static void test_exclusive_fifo(void)
{
	struct run_result r;

	CU_ASSERT_EQUAL_FATAL(run1("fifo.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,1,resnet50,32,,20,,,,1,,1000,,,,,,\n"
		"C,train,2,resnet50,32,,30,,,,1,,1000,,,,,,\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 29, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "C"), 58, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "queue_delay_mean_s"),
			       (0 + 9 + 28) / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jct_mean_s"),
			       (10 + 29 + 58) / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 3, 0);
	/* slowdown = JCT / solo: 1, 29/20, 58/30 */
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slowdown_mean"),
			       (1 + 29.0 / 20 + 58.0 / 30) / 3, 1e-9);
	/* the GPU held 1000 MiB over the whole makespan */
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "hbm_util_mean"),
			       1000.0 * 1048576 / 85899345920.0, 1e-9);
	/* SJF: same here, since they arrive in the order of their sizes */
	run_result_fini(&r);
}

/* Two jobs time-sliced: each runs at s until the short one ends at 10/s;
** the long one has 10 s left, alone at speed 1.  With the duty-cycle
** model s is the closed form of two identical tenants (tests/util.h)
** whose busy parts run at 1 alone and T(2) / (1 + k bw) together, T(2) =
** (1/2) q / (q + c); before it, every job was always busy and s = T(2). */
static void test_timeslice(void)
{
	struct dev_profile d;
	struct sim_err err = { 0, "" };
	struct run_result r;
	struct gpu_work_profile p;
	double q, c, s;

	CU_ASSERT_EQUAL_FATAL(dev_load_file("models/devices/" DEV ".ini", &d,
					    &err), 0);
	q = (double)d.ts_quantum_ns;
	c = (double)d.ts_switch_ns;
	wl_train_profile(zoo_find("resnet50"), &d, 32, WL_PREC_FP32, &p);
	CU_ASSERT_FATAL(p.duty > 0 && p.duty < 1);
	s = test_duty_pair_speed(p.duty, 1.0, 0.5 * q / (q + c) /
				 (1 + d.ts_mem_contention_k * p.bw_frac));
	CU_ASSERT_EQUAL_FATAL(run1("ts.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,20,,,,1,,1000,,,,,,\n",
		"timeslice", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10 / s, 2e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 10 / s + 10, 2e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 10 / s + 10,
			       2e-9);
	run_result_fini(&r);
	/* Too large to share 80 GB: they run one after the other. */
	CU_ASSERT_EQUAL_FATAL(run1("ts-big.csv",
		"A,train,0,resnet50,32,,10,,,,1,,51200,,,,,,\n"
		"B,train,0,resnet50,32,,20,,,,1,,51200,,,,,,\n",
		"timeslice", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 30, 1e-9);
	run_result_fini(&r);
}

/* SRTF: S (10 s) arrives at 5 while L (100 s) runs: L is preempted, S runs
** 5-15, L resumes with 95 s left and ends at 110.  FIFO: S waits to 100. */
static void test_srtf_preempts(void)
{
	static const char body[] =
		"L,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"S,train,5,resnet50,32,,10,,,,1,,1000,,,,,,\n";
	struct run_result r;

	CU_ASSERT_EQUAL_FATAL(run1("srtf.csv", body, "exclusive",
				   "order=srtf", &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "S"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "L"), 110, 1e-9);
	run_result_fini(&r);
	CU_ASSERT_EQUAL_FATAL(run1("srtf.csv", body, "exclusive",
				   "order=fifo", &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "S"), 105, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "L"), 100, 1e-9);
	run_result_fini(&r);
}

/* A job wanting 2 GPUs on a 1-GPU cluster fails; the others run. */
static void test_impossible_fails(void)
{
	struct run_result r;
	const struct res_job *j;

	CU_ASSERT_EQUAL_FATAL(run1("fail.csv",
		"A,train,0,resnet50,32,,10,,,,2,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"C,train,0,resnet50,32,,10,,,,1,,99999999,,,,,,\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_failed"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	j = tw_job(&r, "A");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(j->status, 1);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 10, 1e-9);
	run_result_fini(&r);
}

/* Writes an arrival file with three requests at t = 0. */
static void three_requests(void)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/req3.txt", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("0\n0\n0\n", f);
	fclose(f);
}

/* Batch latency L(b) of resnet50 on the device, in ms. */
static double lat_ms(int b)
{
	static struct dev_profile d;
	struct sim_err err = { 0, "" };

	if (d.name[0] == '\0' &&
	    dev_load_file("models/devices/" DEV ".ini", &d, &err) != 0)
		return NAN;
	return sim_time_to_ms(wl_infer_batch_ns(zoo_find("resnet50"), &d, b));
}

/* No timeout: request 1 starts a batch alone; 2 and 3 follow as a batch. */
static void test_batching(void)
{
	struct run_result r;
	double l1 = lat_ms(1), l2 = lat_ms(2), l3 = lat_ms(3);

	three_requests();
	CU_ASSERT_EQUAL_FATAL(run1("svc.csv",
		"S,infer,0,resnet50,4,,,,,,1,,2000,,1000,file,,req3.txt,0\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_total"), 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_served"), 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p50_ms"), l1 + l2,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p99_ms"), l1 + l2,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slo_attainment"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	run_result_fini(&r);
	/* A 5 ms timeout: one batch of three at 5 ms. */
	CU_ASSERT_EQUAL_FATAL(run1("svc-to.csv",
		"S,infer,0,resnet50,4,,,,,,1,,2000,,1000,file,,req3.txt,5\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p50_ms"), 5 + l3,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p99_ms"), 5 + l3,
			       1e-6);
	run_result_fini(&r);
	/* An SLO between the two latencies of the first case: 1 of 3 met. */
	{
		char body[256];
		snprintf(body, sizeof body, "S,infer,0,resnet50,4,,,,,,1,,2000,"
			 ",%.6f,file,,req3.txt,0\n", (l1 + (l1 + l2)) / 2);
		CU_ASSERT_EQUAL_FATAL(run1("svc-slo.csv", body, "exclusive",
					   NULL, &r), 0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slo_attainment"),
				       1.0 / 3, 1e-12);
		run_result_fini(&r);
	}
}

static void test_bad_inputs(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	const char *path = tw_write("ok.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n");

	run_result_init(&r);
	CU_ASSERT_EQUAL(tw_run(path, "nosuch", ONE_GPU, 1, NULL, &r, &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exclusive"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", "1x1:nosuchgpu", 1, NULL,
			       &r, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nosuchgpu"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", "1x0:" DEV, 1, NULL, &r,
			       &err), SIM_ERANGE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", ONE_GPU, 1, "colour=red",
			       &r, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "colour"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", ONE_GPU, 1, "order=lifo",
			       &r, &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_NOT_EQUAL(tw_run("/nonexistent/t.csv", "exclusive", ONE_GPU,
				   1, NULL, &r, &err), 0);
	run_result_fini(&r);
}

/* least-loaded (timeslice's default) for a job wider than 64 GPUs: the
** 70 empty GPUs, not the 10 busy ones first (it used to fall back to
** first-fit past 64 GPUs). */
static void test_wide_job_spreads(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	char body[2048];
	size_t n = 0;
	int k;

	for (k = 0; k < 10; k++)
		n += (size_t)snprintf(body + n, sizeof body - n,
			"J%d,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n", k);
	snprintf(body + n, sizeof body - n,
		 "W,train,1,resnet50,32,,10,,,,70,,1000,,,,,,\n");
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(tw_write("wide.csv", body), "timeslice",
				     "10x8:" DEV, 1, NULL, &r, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw_job(&r, "W"));
	CU_ASSERT_EQUAL(tw_job(&r, "W")->first_gpu, 10);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "W"), 10, 1e-9);
	run_result_fini(&r);
}

TEST_REGISTER(world)
{
	static const struct test_case cases[] = {
		{ "exclusive FIFO by hand", test_exclusive_fifo },
		{ "timeslice by hand", test_timeslice },
		{ "SRTF preempts the long job", test_srtf_preempts },
		{ "impossible jobs fail", test_impossible_fails },
		{ "dynamic batching and timeout", test_batching },
		{ "bad policy, cluster, params, trace", test_bad_inputs },
		{ "a job wider than 64 GPUs spreads", test_wide_job_spreads },
		{ NULL, NULL }
	};
	return test_add_suite("world", cases);
}
