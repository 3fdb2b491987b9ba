/*
** test_review.c: regression tests for bugs found in the review of the world
** (the files of sim/world/, sim/world/service.c): each case failed before its fix.
**
**  - an open service (no duration_s, Poisson arrivals) never ended, so a
**    replay without --horizon never returned;
**  - a failed service kept drawing requests until its lifetime ended;
**  - world_set_gpu_mode after t = 0 forgot the GPU's utilisation history;
**  - a run stopped at its horizon with jobs still placed freed their
**    tenants before the GPUs' lists (use after free: make SANITIZE=1 check);
**  - latency metrics read 0 ms (the best possible) when no request was
**    served.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "experiments/simulate.h"
#include "policies/policy.h"
#include "models/cluster.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"
#define BUDGET 2000000

/* Runs a trace under a registered policy with an event budget, so that a
** run that would never end fails the test instead of hanging it. */
static int run_budget(const char *name, const char *body, const char *policy,
		      const char *cluster, struct run_result *res)
{
	struct dev_catalog cat = { NULL, 0 };
	struct cluster_spec cl;
	struct world_config cfg;
	struct world *w = NULL;
	struct sim_err err = { 0, "" };
	const char *path = tw_write(name, body);
	int rc;

	memset(&cfg, 0, sizeof cfg);
	run_result_init(res);
	rc = dev_catalog_load(&cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&cl, cluster, &cat, "cluster", &err);
	if (rc == 0) {
		cfg.cluster = &cl;
		cfg.trace_path = path;
		cfg.policy = pol_find(policy);
		cfg.seed = 1;
		cfg.max_events = BUDGET;
		rc = world_create(&w, &cfg, &err);
	}
	if (rc == 0)
		rc = world_run(w, &err);
	if (rc == 0)
		rc = world_results(w, res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s/%s: %s\n", name, policy, err.msg);
	world_destroy(w);
	dev_catalog_fini(&cat);
	return rc;
}

/* An open service (no duration_s) beside a 100 s training job ends when
** the rest of the workload has ended: the run stops by itself. */
static void test_open_service_ends(void)
{
	static const char *const pols[] = { "exclusive", "timeslice", "mps",
					    "colti" };
	struct run_result r;
	size_t k;

	for (k = 0; k < sizeof pols / sizeof pols[0]; k++) {
		CU_ASSERT_EQUAL_FATAL(run_budget("open.csv",
			"T,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
			"S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,,2\n",
			pols[k], "1x2:" DEV, &r), 0);
		CU_ASSERT(run_result_get(&r, "events") < BUDGET);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 2, 0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_unfinished"),
				       0, 0);
		/* about 5 req/s for the training job's 100 s */
		CU_ASSERT(run_result_get(&r, "requests_total") > 350);
		CU_ASSERT(run_result_get(&r, "requests_total") < 650);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_served"),
				       run_result_get(&r, "requests_total"), 0);
		run_result_fini(&r);
	}
	/* Alone, an open service has nothing to outlive: it ends at once. */
	CU_ASSERT_EQUAL_FATAL(run_budget("open1.csv",
		"S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,,2\n",
		"exclusive", "1x1:" DEV, &r), 0);
	CU_ASSERT(run_result_get(&r, "events") < BUDGET);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	run_result_fini(&r);
}

/* A service that cannot fit (needs 2 GPUs on a 1-GPU cluster) fails at
** once; it must not go on drawing requests for its 1000 s lifetime while a
** training job keeps the run alive. */
static void test_failed_service_stops(void)
{
	struct run_result r;
	const struct res_job *j;

	CU_ASSERT_EQUAL_FATAL(run_budget("failsvc.csv",
		"T,train,0,resnet50,32,,2000,,,,1,,1000,,,,,,\n"
		"S,infer,0,resnet50,8,,1000,,,,2,,2000,,100,poisson,50,,2\n",
		"exclusive", "1x1:" DEV, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_failed"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	j = tw_job(&r, "S");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(j->status, 1);
	/* at most the requests of the instant it arrived, not 50 000 */
	CU_ASSERT(run_result_get(&r, "requests_total") <= 1);
	CU_ASSERT(run_result_get(&r, "events") < 2000);
	run_result_fini(&r);
}

/* A policy that runs A exclusively, then switches the GPU to time-slicing
** (at t = 10 s, after A ended) and runs B. */
struct switcher {
	int switched;
};

static int sw_schedule(struct world *w, void *state)
{
	struct switcher *s = state;
	struct sim_err err = { 0, "" };
	int k, g = 0, rc;

	for (k = 0; k < world_npending(w); k++) {
		int j = world_pending_at(w, k);
		if (world_gpu(w, g)->ntenants > 0)
			return 0;
		if (world_now(w) > 0 && !s->switched) {
			if ((rc = world_set_gpu_mode(w, g, GPU_MODE_TIMESLICE,
						     &err)) != 0)
				return rc;
			s->switched = 1;
		}
		if ((rc = world_place(w, j, &g, 1, NULL, &err)) != 0)
			return rc;
		return 0;
	}
	return 0;
}

static const struct pol_ops switcher_ops = {
	POL_IFACE_VERSION, "test-switcher", "switches mode at run time",
	sizeof(struct switcher), NULL, NULL, NULL, NULL, NULL, NULL,
	sw_schedule
};

static void test_mode_switch_keeps_history(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct cluster_spec cl;
	struct world_config cfg;
	struct world *w = NULL;
	struct run_result r;
	struct sim_err err = { 0, "" };
	const char *path = tw_write("switch.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,10,,,,1,,3000,,,,,,\n");
	double cap;

	memset(&cfg, 0, sizeof cfg);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	CU_ASSERT_EQUAL_FATAL(cluster_parse(&cl, "1x1:" DEV, &cat, "cluster",
					    &err), 0);
	cfg.cluster = &cl;
	cfg.trace_path = path;
	cfg.policy = &switcher_ops;
	cfg.seed = 1;
	CU_ASSERT_EQUAL_FATAL(world_create(&w, &cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(world_run(w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(world_results(w, &r, &err), 0);
	CU_ASSERT_EQUAL(world_gpu(w, 0)->mode, GPU_MODE_TIMESLICE);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 20, 1e-9);
	/* 1000 MiB for 10 s, then 3000 MiB for 10 s, over 20 s */
	cap = (double)cl.groups[0].dev->hbm_bytes;
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "hbm_util_mean"),
			       2000.0 * 1048576 / cap, 1e-9);
	/* the SM history matches exclusive FIFO, which runs the same two
	** jobs back to back without a switch */
	{
		struct run_result ex;
		run_result_init(&ex);
		CU_ASSERT_EQUAL_FATAL(tw_run(path, "exclusive", "1x1:" DEV, 1,
					     NULL, &ex, &err), 0);
		CU_ASSERT(run_result_get(&ex, "sm_util_mean") > 0.1);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "sm_util_mean"),
				       run_result_get(&ex, "sm_util_mean"),
				       1e-9);
		run_result_fini(&ex);
	}
	run_result_fini(&r);
	world_destroy(w);
	dev_catalog_fini(&cat);
}

/* A service that is never served must not report 0 ms latencies (which
** would rank a policy that starves inference first): the latency metrics
** are absent (NaN) when no request was served. */
static void test_no_latency_when_unserved(void)
{
	struct run_result r;

	CU_ASSERT_EQUAL_FATAL(run_budget("unserved.csv",
		"T,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"S,infer,0,resnet50,8,,50,,,,2,,2000,,100,poisson,5,,2\n",
		"exclusive", "1x1:" DEV, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_served"), 0, 0);
	CU_ASSERT(isnan(run_result_get(&r, "latency_p50_ms")));
	CU_ASSERT(isnan(run_result_get(&r, "latency_p99_ms")));
	run_result_fini(&r);
}

/* --horizon stops a run with work in flight: the unfinished jobs are
** reported, and destroying the world touches no freed memory. */
static void test_horizon_stop(void)
{
	struct exp_sim_args a;
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *j;
	const char *path = tw_write("horizon.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,2,,1000,,,,,,\n"
		"S,infer,0,resnet50,8,,1000,,,,1,,2000,,100,poisson,50,,2\n");

	memset(&a, 0, sizeof a);
	a.trace = path;
	a.cluster = "1x4:" DEV;
	a.policy = "timeslice";
	a.seed = 1;
	a.horizon_ns = sim_time_from_s(50);
	a.devices_dir = "models/devices";
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(exp_simulate_args(&a, &r, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_unfinished"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jct_mean_s"), 10, 1e-9);
	j = tw_job(&r, "B");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(j->status, 2);
	CU_ASSERT_DOUBLE_EQUAL(j->jct_s, -1, 0);
	CU_ASSERT(run_result_get(&r, "requests_served") > 1000);
	run_result_fini(&r);
}

TEST_REGISTER(review)
{
	static const struct test_case cases[] = {
		{ "an open service ends with the workload",
		  test_open_service_ends },
		{ "a failed service draws no more requests",
		  test_failed_service_stops },
		{ "a GPU mode switch keeps utilisation history",
		  test_mode_switch_keeps_history },
		{ "a horizon stop reports unfinished work",
		  test_horizon_stop },
		{ "no latency figures when nothing was served",
		  test_no_latency_when_unserved },
		{ NULL, NULL }
	};
	return test_add_suite("review", cases);
}
