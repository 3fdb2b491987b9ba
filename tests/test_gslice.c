/*
** test_gslice.c: the GSLICE policy (policies/gslice.c): the knee probe
** against the hand-derived knee of the MPS model, the tuner's convergence
** to that knee, adaptive batching on constructed windows, the standby
** re-allocation's memory cost and lossless switch, bad parameters, and
** training jobs in the trace (kept off the services' GPUs).
*/
#include <math.h>
#include <string.h>

#include <CUnit/CUnit.h>

#include "models/device.h"
#include "models/workload.h"
#include "policies/gslice.h"
#include "sim/world/view.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

static const struct dev_profile *v100(struct dev_catalog *cat)
{
	struct sim_err e = { 0, "" };

	if (dev_catalog_load(cat, "models/devices", &e) != 0)
		return NULL;
	return dev_catalog_find(cat, "v100-16gb");
}

/* GSLICE's knee of `model` at max batch b on device d: its rule over the
** MPS model's speeds (the probe pol_probe_mps makes for a placed job). */
static double knee(const struct zoo_model *m, const struct dev_profile *d,
		   int b, double tol)
{
	struct gpu_work_profile p;
	double speed[101];

	wl_infer_profile(m, d, b, &p);
	if (world_mps_speeds(d, &p, 100, speed) != 0)
		return -1;
	return gslice_knee_of(speed, tol);
}

/*
** With the service alone under MPS at share s < sat, the model's batch time
** is L_solo (alpha sat / s + (1 - alpha)) (MODEL.md, "GPU sharing modes";
** bandwidth under peak, no co-runner); on the whole GPU it is L_solo.
** Within knee_tol: s >= alpha sat / (alpha + knee_tol).  ResNet-50 at batch
** 16 on V100-16GB: alpha = 0.971, sat = 0.734 -> 0.698 -> 70%.
*/
static void test_knee(void)
{
	struct dev_catalog cat;
	const struct dev_profile *d = v100(&cat);
	const struct zoo_model *m = zoo_find("resnet50");
	struct gpu_work_profile p;
	double want;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	if (d == NULL || m == NULL)
		return;
	wl_infer_profile(m, d, 16, &p);
	want = ceil(100 * p.alpha * p.sat / (p.alpha + 0.05) - 1e-9) / 100;
	TEST_ASSERT_CLOSE(knee(m, d, 16, 0.05), want, 1e-12);
	TEST_ASSERT_CLOSE(want, 0.70, 1e-12);
	/* knee_tol 0: the knee is sat itself, rounded up to a percent */
	TEST_ASSERT_CLOSE(knee(m, d, 16, 0.0),
			  ceil(100 * p.sat - 1e-9) / 100, 1e-12);
	/* the knee grows with the batch (more work fills more SMs) */
	CU_ASSERT(knee(m, d, 1, 0.05) < knee(m, d, 32, 0.05));
	/* no share reaches the whole GPU's speed within the tolerance: 1 */
	{
		double flat[101];
		int k;
		flat[0] = 1.0;
		for (k = 1; k <= 100; k++)
			flat[k] = 0.5;
		TEST_ASSERT_CLOSE(gslice_knee_of(flat, 0.05), 1.0, 0);
	}
	dev_catalog_fini(&cat);
}

/* One ResNet-50 service, batch 16, 3000 req/s: more than the whole GPU
** serves (16 / 9.2 ms = 1739/s), so it misses its SLO throughout and the
** tuner raises its share from 10% by steps until the knee, 70%, and
** never past it.  Busy all the time, its GPU's SM use is its share. */
static const char *const sat_trace =
	"s1,infer,0,resnet50,16,,20,,,,1,,,,50,poisson,3000,,2\n";

static void test_converges_to_knee(void)
{
	struct run_result res;
	struct sim_err e = { 0, "" };
	const char *tr = tw_write("gslice-sat.csv", sat_trace);
	double first = -1, last = -1, maxv = 0;
	size_t k;
	int rc;

	run_result_init(&res);
	rc = tw_run(tr, "gslice", "1x1:v100-16gb", 1,
		    "init_pct=10,adapt_batch=0", &res, &e);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	for (k = 0; k < res.nseries; k++) {
		const struct res_series *s = &res.series[k];
		if (s->gpu != 0 || s->t_s < 0.5)
			continue;
		if (first < 0)
			first = s->sm_frac;
		last = s->sm_frac;
		if (s->sm_frac > maxv)
			maxv = s->sm_frac;
	}
	TEST_ASSERT_CLOSE(first, 0.10, 1e-9);
	TEST_ASSERT_CLOSE(last, 0.70, 1e-9);
	CU_ASSERT(maxv <= 0.70 + 1e-9);
	/* 10% to 70%, each move at least one 10% step: 1 to 6 switches */
	CU_ASSERT(run_result_get(&res, "gslice_reallocs") >= 1);
	CU_ASSERT(run_result_get(&res, "gslice_reallocs") <= 6);
	run_result_fini(&res);
}

static void test_adaptive_batching(void)
{
	struct pol_svc_window wn;

	memset(&wn, 0, sizeof wn);
	wn.max_batch = 16;
	wn.replicas = 1;
	wn.arrivals = wn.served = 1000;
	/* p99 over the SLO, no backlog: the batch is too slow -> halve */
	wn.lat_p99_ms = 60;
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 50, 32, 0.5, 0.8, 0.5), 8);
	/* over the SLO with a backlog: more throughput -> one more */
	wn.queued = 100;
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 50, 32, 0.5, 0.8, 0.5), 17);
	/* slack and full batches -> one more; not past the trace batch */
	wn.queued = 0;
	wn.lat_p99_ms = 20;
	wn.batches = 1;
	wn.batch_sum = 16;
	wn.batch_sum2 = 256;
	wn.exec_sum_ms = 9;
	wn.bexec_sum_ms = 144;
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 50, 32, 0.5, 0.8, 0.5), 17);
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 50, 16, 0.5, 0.8, 0.5), 16);
	/* slack but half-empty batches: unchanged */
	wn.batch_sum = 8;
	wn.batch_sum2 = 64;
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 50, 32, 0.5, 0.8, 0.5), 16);
	/* the learned line caps it: batches of 8 and 16 took 6 and 10 ms,
	** exec = 2 + 0.5 b; SLO 20 ms, half of it -> b <= 16; SLO 14 -> 10 */
	wn.batches = 2;
	wn.batch_sum = 24;
	wn.batch_sum2 = 64 + 256;
	wn.exec_sum_ms = 16;
	wn.bexec_sum_ms = 8 * 6 + 16 * 10;
	wn.lat_p99_ms = 5;
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 20, 32, 0.5, 0.8, 0.5), 16);
	CU_ASSERT_EQUAL(gslice_adapt_batch(&wn, 14, 32, 0.5, 0.8, 0.5), 10);
}

/* Each switch holds a CUDA context plus a second FP16 copy of the weights
** for standby_start + weights / PCIe h2d; the metric is exactly that
** times the number of switches, and every request is served. */
static void test_standby_cost(void)
{
	struct dev_catalog cat;
	const struct dev_profile *d = v100(&cat);
	const struct zoo_model *m = zoo_find("resnet50");
	struct run_result res;
	struct sim_err e = { 0, "" };
	const char *tr = tw_write("gslice-sat2.csv", sat_trace);
	double bytes, sw_s, n;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	if (d == NULL || m == NULL)
		return;
	bytes = (double)d->ctx_bytes + 2.0 * (double)m->params;
	sw_s = 0.25 + 2.0 * (double)m->params / d->h2d_pinned_bytes_per_s;
	run_result_init(&res);
	rc = tw_run(tr, "gslice", "1x1:v100-16gb", 3,
		    "init_pct=10,adapt_batch=0,standby_start_ms=250", &res, &e);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	n = run_result_get(&res, "gslice_reallocs");
	CU_ASSERT(n >= 1);
	TEST_ASSERT_CLOSE(run_result_get(&res, "gslice_switch_s"), n * sw_s,
			  n * 1e-9 + 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&res, "gslice_standby_gb_s"),
			  n * sw_s * bytes / 1e9, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&res, "requests_served"),
			  run_result_get(&res, "requests_total"), 0);
	TEST_ASSERT_CLOSE(run_result_get(&res, "requests_unserved"), 0, 0);
	run_result_fini(&res);
	dev_catalog_fini(&cat);
}

static void test_bad_params(void)
{
	static const char *const bad[] = {
		"knee=0.5",               /* unknown key */
		"step_pct=0",             /* out of range */
		"util_target=2",
		"init_pct=5,min_pct=10",  /* start below the floor */
		"adapt_batch=yes",        /* malformed */
		NULL
	};
	struct run_result res;
	const char *tr = tw_write("gslice-bad.csv", sat_trace);
	int k;

	for (k = 0; bad[k] != NULL; k++) {
		struct sim_err e = { 0, "" };
		run_result_init(&res);
		CU_ASSERT_EQUAL(tw_run(tr, "gslice", "1x1:v100-16gb", 1,
				       bad[k], &res, &e), SIM_EINVAL);
		CU_ASSERT(strstr(e.msg, "gslice") != NULL ||
			  strstr(e.msg, "test") != NULL);
		run_result_fini(&res);
	}
}

/* gslice with training in the trace, on MIG-capable A100s (run in MPS
** mode): T takes the empty GPU 0 whole and runs at speed 1; the services
** go to GPU 1 only (never beside training); T2 waits for an empty GPU and
** starts when T ends. */
static void test_gslice_with_training(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "gs_train.csv",
		"T,train,0,resnet50,32,,30,,,,1,,,,,,,,\n"
		"S1,infer,0,resnet50,8,,60,,,,1,,,,100,poisson,50,,2\n"
		"S2,infer,0,resnet50,8,,60,,,,1,,,,100,poisson,50,,2\n"
		"T2,train,1,resnet50,32,,10,,,,1,,,,,,,,\n",
		pol_find("gslice"), "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->mode, GPU_MODE_MPS);
	CU_ASSERT_EQUAL(tw_wjob(&r, "T")->first_gpu_, 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "T"), 30, 1e-9);
	CU_ASSERT_EQUAL(tw_wjob(&r, "S1")->first_gpu_, 1);
	CU_ASSERT_EQUAL(tw_wjob(&r, "S2")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "T2"), 30, 1e-9);
	CU_ASSERT_EQUAL(tw_wjob(&r, "T2")->first_gpu_, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "jobs_done"), 4, 0);
	tw_close(&r);
}

TEST_REGISTER(gslice)
{
	static const struct test_case cases[] = {
		{ "knee of the MPS latency curve by hand", test_knee },
		{ "tuner converges to the knee", test_converges_to_knee },
		{ "adaptive batching on constructed windows",
		  test_adaptive_batching },
		{ "standby re-allocation cost, nothing dropped",
		  test_standby_cost },
		{ "bad parameters are errors", test_bad_params },
		{ "gslice beside training jobs",
		  test_gslice_with_training },
		{ NULL, NULL }
	};
	return test_add_suite("gslice", cases);
}
