/*
** test_review3.c: regression tests for bugs found in the third review,
** where features written in parallel meet (one completion event per GPU,
** the DistMind GPU pool, swapping, service control, bounded queues).
** Each case failed (or crashed) before its fix.
**
**  - world_place / world_swap_in of a swapped-out job with n < 1 GPUs
**    recursed between the two until the stack overflowed;
**  - world_pool_serve moved a service's backlog into the pool without
**    taking it off the world's count of queued requests, so the bound of
**    max_queued_requests stayed "reached" and every later request of every
**    other service was rejected;
**  - a pooled service's measurement window never counted a request served
**    (svc_pool_done skipped the window);
**  - the pool ran a pooled service's batches at the trace's batch, not at
**    the max batch world_set_batch set.
** Plus runs that stop at the horizon with swap copies and pool loads in
** flight (leaks and use-after-free show under make SANITIZE=1).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "policies/policy.h"
#include "models/cluster.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* The adversarial policy: `scn` picks the scenario. */
struct r3pol {
	long scn;
	int pooled;
};

enum {
	SCN_SWAP_PLACE0 = 1,   /* swapped job: place with 0 GPUs first */
	SCN_POOL_BACKLOG = 2,  /* service S pooled at 1 s with a backlog */
	SCN_POOL_BATCH = 3,    /* service S pooled at once, max batch 1 */
	SCN_HORIZON = 4,       /* swap copy + pool load in flight at stop */
	SCN_FAIL_BACKLOG = 5   /* service S failed at 1 s with a backlog */
};

static int r3_init(struct world *w, void *state, const struct pol_params *p,
		   struct sim_err *err)
{
	static const char *const keys[] = { "scn", NULL };
	struct r3pol *st = state;
	int rc;

	if ((rc = pol_params_check(p, "r3", keys, err)) != 0 ||
	    (rc = pol_param_int(p, "scn", 1, 9, &st->scn, err)) != 0)
		return rc;
	switch (st->scn) {
	case SCN_SWAP_PLACE0:
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	case SCN_POOL_BACKLOG:
		if ((rc = world_pool_join(w, 0, err)) != 0)
			return rc;
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	case SCN_POOL_BATCH:
		return world_pool_join(w, 0, err);
	case SCN_FAIL_BACKLOG:
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	case SCN_HORIZON:
		if ((rc = world_pool_join(w, 1, err)) != 0)
			return rc;
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	}
	return 0;
}

static int job_is(const struct world *w, int j, const char *id)
{
	return strcmp(world_job(w, j)->tj.id, id) == 0;
}

static int r3_schedule(struct world *w, void *state)
{
	struct r3pol *st = state;
	int k = 0, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k), g;
		const struct world_job *job = world_job(w, j);
		if (job->tj.kind == TRACE_INFER && job_is(w, j, "S")) {
			if (st->scn == SCN_POOL_BATCH) {
				if ((rc = world_pool_serve(w, j, NULL)) != 0 ||
				    (rc = world_set_batch(w, j, 1, NULL)) != 0)
					return rc;
				continue;
			}
			k++;               /* pooled by the timer */
			continue;
		}
		if (job->state == JOB_PREEMPTED && job->swapped &&
		    st->scn == SCN_SWAP_PLACE0) {
			static const int none[] = { 0 };
			rc = world_place(w, j, none, 0, NULL, NULL);
			if ((rc = world_add_metric(w, "place0_rc", rc)) != 0)
				return rc;
		}
		g = job->tj.kind == TRACE_INFER ? 1 : 0;
		if (world_place(w, j, &g, 1, NULL, NULL) != 0)
			k++;
	}
	return 0;
}

static int r3_timer(struct world *w, void *state, uint64_t tag)
{
	struct r3pol *st = state;
	int j;

	(void)tag;
	for (j = 0; j < world_njobs(w); j++) {
		const struct world_job *job = world_job(w, j);
		if (st->scn == SCN_SWAP_PLACE0 && job->state == JOB_RUNNING)
			return world_preempt(w, j, NULL);
		if (st->scn == SCN_POOL_BACKLOG && job_is(w, j, "S") &&
		    job->state == JOB_PENDING)
			return world_pool_serve(w, j, NULL);
		if (st->scn == SCN_FAIL_BACKLOG && job_is(w, j, "S") &&
		    job->state == JOB_PENDING)
			return world_fail_job(w, j, "test");
		if (st->scn == SCN_HORIZON && job->state == JOB_RUNNING &&
		    job->tj.kind == TRACE_TRAIN) {
			int rc = world_swap_out(w, j, NULL);
			if (rc != 0)
				return rc;
			/* a prefetch that the horizon cuts */
			return world_load_model(w, 1, zoo_find("bert-large"),
						NULL);
		}
	}
	return 0;
}

static const struct pol_ops r3_ops = {
	.iVersion = 1,                /* hand-read parameters, world.h */
	.zName = "r3",
	.zDesc = "review-3 probe",
	.szState = sizeof(struct r3pol),
	.xInit = r3_init,
	.xOnTimer = r3_timer,
	.xSchedule = r3_schedule
};

struct r3 {
	struct dev_catalog cat;
	struct cluster_spec cl;
	struct world *w;
	struct run_result res;
};

static int r3_run(struct r3 *r, const char *name, const char *body,
		  const char *cluster, long scn, int preempt_cost,
		  uint64_t max_queued, double horizon_s)
{
	struct world_config cfg;
	struct sim_err err = { 0, "" };
	char sv[8];
	struct pol_param pv[1];
	struct pol_params pp = { 1, pv };
	const char *path = tw_write(name, body);
	int rc;

	snprintf(sv, sizeof sv, "%ld", scn);
	pv[0].key = "scn";
	pv[0].value = sv;
	pv[0].origin = "test";
	memset(r, 0, sizeof *r);
	memset(&cfg, 0, sizeof cfg);
	run_result_init(&r->res);
	rc = dev_catalog_load(&r->cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&r->cl, cluster, &r->cat, "cluster", &err);
	if (rc == 0) {
		cfg.cluster = &r->cl;
		cfg.trace_path = path;
		cfg.policy = &r3_ops;
		cfg.params = &pp;
		cfg.seed = 1;
		cfg.max_events = 2000000;
		cfg.preempt_cost = preempt_cost;
		cfg.max_queued_requests = max_queued;
		cfg.horizon_ns = horizon_s > 0 ? sim_time_from_s(horizon_s) :
			0;
		rc = world_create(&r->w, &cfg, &err);
	}
	if (rc == 0)
		rc = world_run(r->w, &err);
	if (rc == 0)
		rc = world_results(r->w, &r->res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s: %s\n", name, err.msg);
	return rc;
}

static void r3_fini(struct r3 *r)
{
	world_destroy(r->w);
	run_result_fini(&r->res);
	dev_catalog_fini(&r->cat);
}

static int r3_find(const struct r3 *r, const char *id)
{
	int j;

	for (j = 0; j < world_njobs(r->w); j++)
		if (job_is(r->w, j, id))
			return j;
	return -1;
}

/* A (100 s) is swapped out at 1 s (preempt_cost swap); the policy first
** offers it back with no GPUs: refused with SIM_EINVAL (it used to
** recurse world_place -> world_swap_in -> world_place forever), then it
** is swapped in on GPU 0 and finishes. */
static void test_swap_place_no_gpus(void)
{
	struct r3 r;
	int a;

	CU_ASSERT_EQUAL_FATAL(r3_run(&r, "r3swap0.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10000,,,,,,\n",
		"1x1:a100-80gb", SCN_SWAP_PLACE0, WORLD_PREEMPT_SWAP, 0, 0),
		0);
	a = r3_find(&r, "A");
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "place0_rc"),
			       SIM_EINVAL, 0);
	CU_ASSERT_EQUAL(world_job(r.w, a)->state, JOB_DONE);
	CU_ASSERT_EQUAL(world_job(r.w, a)->preemptions, 1);
	CU_ASSERT(sim_time_to_s(world_job(r.w, a)->end_ns) > 100);
	r3_fini(&r);
}

/* S (400 req/s) waits unplaced for 1 s with at most 50 requests queued in
** the world, so its backlog fills the bound; then it is pooled (its
** backlog goes to the pool).  T, a service on GPU 1 from 2 s at 20 req/s,
** then finds the queues empty: every one of its requests is served.
** (Before the fix the backlog stayed counted and T's requests were all
** rejected.) */
static void test_pool_backlog_unqueued(void)
{
	struct world_svc_window win;
	struct sim_err err = { 0, "" };
	struct r3 r;
	int t;

	CU_ASSERT_EQUAL_FATAL(r3_run(&r, "r3poolq.csv",
		"S,infer,0,resnet50,8,,3,,,,1,,,,1000,poisson,400,,\n"
		"T,infer,2,resnet50,8,,4,,,,1,,,,1000,poisson,20,,\n",
		"1x2:a100-80gb", SCN_POOL_BACKLOG, 0, 50, 0), 0);
	t = r3_find(&r, "T");
	CU_ASSERT_EQUAL_FATAL(world_svc_window(r.w, t, &win, &err), 0);
	CU_ASSERT(win.arrivals > 40);
	CU_ASSERT_EQUAL(win.served, win.arrivals);
	CU_ASSERT(run_result_get(&r.res, "requests_rejected") > 0);
	CU_ASSERT_EQUAL(world_job(r.w, r3_find(&r, "S"))->state, JOB_DONE);
	r3_fini(&r);
}

/* The same with S failed at 1 s instead of pooled: its backlog is
** unserved, and no longer holds the bound (it used to until the run
** ended, so T's requests were all rejected). */
static void test_failed_backlog_unqueued(void)
{
	struct world_svc_window win;
	struct sim_err err = { 0, "" };
	struct r3 r;
	int t;

	CU_ASSERT_EQUAL_FATAL(r3_run(&r, "r3failq.csv",
		"S,infer,0,resnet50,8,,3,,,,1,,,,1000,poisson,400,,\n"
		"T,infer,2,resnet50,8,,4,,,,1,,,,1000,poisson,20,,\n",
		"1x2:a100-80gb", SCN_FAIL_BACKLOG, 0, 50, 0), 0);
	t = r3_find(&r, "T");
	CU_ASSERT_EQUAL_FATAL(world_svc_window(r.w, t, &win, &err), 0);
	CU_ASSERT(win.arrivals > 40);
	CU_ASSERT_EQUAL(win.served, win.arrivals);
	CU_ASSERT_EQUAL(world_job(r.w, r3_find(&r, "S"))->state, JOB_FAILED);
	/* S's 50 queued requests stay unserved */
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "requests_unserved"),
			       run_result_get(&r.res, "requests_total") -
			       run_result_get(&r.res, "requests_served"), 0);
	CU_ASSERT(run_result_get(&r.res, "requests_unserved") >= 50);
	r3_fini(&r);
}

/* A pooled service S (trace batch 8, set to 1 at once) at 400 req/s for
** 2 s: its window counts every request served, and the pool's batches are
** of one request each (batches == served, batch_sum == served). */
static void test_pool_window_and_batch(void)
{
	struct world_svc_window win;
	struct sim_err err = { 0, "" };
	struct r3 r;
	int s;

	CU_ASSERT_EQUAL_FATAL(r3_run(&r, "r3poolw.csv",
		"S,infer,0,resnet50,8,,2,,,,1,,,,1000,poisson,400,,\n",
		"1x1:a100-80gb", SCN_POOL_BATCH, 0, 0, 0), 0);
	s = r3_find(&r, "S");
	CU_ASSERT_EQUAL_FATAL(world_svc_window(r.w, s, &win, &err), 0);
	CU_ASSERT(win.arrivals > 600);
	CU_ASSERT_EQUAL(win.served, win.arrivals);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "requests_served"),
			       (double)win.served, 0);
	CU_ASSERT_EQUAL(win.max_batch, 1);
	CU_ASSERT_EQUAL(win.batches, win.served);
	CU_ASSERT_DOUBLE_EQUAL(win.batch_sum, (double)win.served, 0);
	CU_ASSERT(win.lat_mean_ms > 0);
	r3_fini(&r);
}

/* The horizon stops a run with a swap-out copy and a pool prefetch in
** flight: the results say so and nothing leaks (SANITIZE=1). */
static void test_horizon_in_flight(void)
{
	struct r3 r;
	int a;

	CU_ASSERT_EQUAL_FATAL(r3_run(&r, "r3hor.csv",
		"A,train,0,gpt2,8,,100,,,,1,,60000,,,,,,\n",
		"1x2:a100-80gb", SCN_HORIZON, WORLD_PREEMPT_SWAP, 0, 1.001),
		0);
	a = r3_find(&r, "A");
	CU_ASSERT_EQUAL(world_job(r.w, a)->state, JOB_SWAPPING_OUT);
	/* 1: still loading when the run stopped */
	CU_ASSERT_EQUAL(world_pool_has_model(r.w, 1, zoo_find("bert-large")),
			1);
	r3_fini(&r);
}

TEST_REGISTER(review3)
{
	static const struct test_case cases[] = {
		{ "swapped job placed on no GPUs is refused",
		  test_swap_place_no_gpus },
		{ "pooling a backlog frees the queue bound",
		  test_pool_backlog_unqueued },
		{ "failing a service frees the queue bound",
		  test_failed_backlog_unqueued },
		{ "pooled service window and max batch",
		  test_pool_window_and_batch },
		{ "horizon with copies and loads in flight",
		  test_horizon_in_flight },
		{ NULL, NULL }
	};
	return test_add_suite("review3", cases);
}
