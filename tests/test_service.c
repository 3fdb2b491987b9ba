/*
** test_service.c: inference services in the world (sim/world/service.c,
** world_svc.c): an open service ends with the workload, a failed service
** draws no more requests, latency metrics are absent when nothing was
** served, a backlog stops holding the world's bound on queued requests
** once its service is pooled or failed, and a pooled service's window and
** batches.  Each case failed before the fix its comment tells.  (Batching
** and its timeout are in test_world.c, the queue bound itself in
** test_traces_replay.c.)
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"
#define BUDGET 2000000        /* tw_config's event budget */

/* ---- a service's lifetime -------------------------------------------- */

/* An open service (no duration_s) beside a 100 s training job ends when
** the rest of the workload has ended: the run stops by itself.  (Review 1:
** an open service, Poisson or endless rates, never ended, so a replay
** without --horizon never returned; it now ends when only open services
** are left.  The event budget makes such a run fail, not hang.) */
static void test_open_service_ends(void)
{
	static const char *const pols[] = { "exclusive", "timeslice", "mps",
					    "colti" };
	struct tw_world t;
	size_t k;

	for (k = 0; k < sizeof pols / sizeof pols[0]; k++) {
		CU_ASSERT_EQUAL_FATAL(tw_go(&t, "open.csv",
			"T,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
			"S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,,2\n",
			pol_find(pols[k]), "1x2:" DEV, NULL), 0);
		CU_ASSERT(run_result_get(&t.res, "events") < BUDGET);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 2,
				       0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res,
						      "jobs_unfinished"), 0, 0);
		/* about 5 req/s for the training job's 100 s */
		CU_ASSERT(run_result_get(&t.res, "requests_total") > 350);
		CU_ASSERT(run_result_get(&t.res, "requests_total") < 650);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res,
						      "requests_served"),
				       run_result_get(&t.res,
						      "requests_total"), 0);
		tw_close(&t);
	}
	/* Alone, an open service has nothing to outlive: it ends at once. */
	CU_ASSERT_EQUAL_FATAL(tw_go(&t, "open1.csv",
		"S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,,2\n",
		pol_find("exclusive"), "1x1:" DEV, NULL), 0);
	CU_ASSERT(run_result_get(&t.res, "events") < BUDGET);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 1, 0);
	tw_close(&t);
}

/* A service that cannot fit (needs 2 GPUs on a 1-GPU cluster) fails at
** once; it must not go on drawing requests for its 1000 s lifetime while a
** training job keeps the run alive.  (Review 1: it did, for its whole
** lifetime; its arrivals now end when it fails.) */
static void test_failed_service_stops(void)
{
	struct tw_world t;
	const struct res_job *j;

	CU_ASSERT_EQUAL_FATAL(tw_go(&t, "failsvc.csv",
		"T,train,0,resnet50,32,,2000,,,,1,,1000,,,,,,\n"
		"S,infer,0,resnet50,8,,1000,,,,2,,2000,,100,poisson,50,,2\n",
		pol_find("exclusive"), "1x1:" DEV, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_failed"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 1, 0);
	j = tw_job(&t.res, "S");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(j->status, 1);
	/* at most the requests of the instant it arrived, not 50 000 */
	CU_ASSERT(run_result_get(&t.res, "requests_total") <= 1);
	CU_ASSERT(run_result_get(&t.res, "events") < 2000);
	tw_close(&t);
}

/* A service that is never served must not report 0 ms latencies (which
** would rank a policy that starves inference first): the latency metrics
** are absent (NaN) when no request was served.  (Review 1: they read
** 0 ms, the best possible; metrics that do not apply are now NaN, null in
** --json and not stored.) */
static void test_no_latency_when_unserved(void)
{
	struct tw_world t;

	CU_ASSERT_EQUAL_FATAL(tw_go(&t, "unserved.csv",
		"T,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"S,infer,0,resnet50,8,,50,,,,2,,2000,,100,poisson,5,,2\n",
		pol_find("exclusive"), "1x1:" DEV, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "requests_served"), 0, 0);
	CU_ASSERT(isnan(run_result_get(&t.res, "latency_p50_ms")));
	CU_ASSERT(isnan(run_result_get(&t.res, "latency_p99_ms")));
	tw_close(&t);
}

/* ---- backlogs, the queue bound and the pool -------------------------- */

/* A probe policy for a service's backlog: service S is left unplaced
** (its requests queue) until the policy pools it (world_pool_serve on GPU
** 0's pool) or fails it; every other job goes on GPU 1 (services) or GPU
** 0 (training).  `scn` picks when and how S leaves. */
struct backlog {
	long scn;
};

enum {
	SCN_POOL_BACKLOG = 1,  /* S pooled at 1 s with a backlog */
	SCN_POOL_BATCH = 2,    /* S pooled at once, max batch 1 */
	SCN_FAIL_BACKLOG = 3   /* S failed at 1 s with a backlog */
};

static int bl_init(struct world *w, void *state, const struct pol_params *p,
		   struct sim_err *err)
{
	static const char *const keys[] = { "scn", NULL };
	struct backlog *st = state;
	int rc;

	if ((rc = pol_params_check(p, "backlog", keys, err)) != 0 ||
	    (rc = pol_param_int(p, "scn", 1, 3, &st->scn, err)) != 0)
		return rc;
	switch (st->scn) {
	case SCN_POOL_BACKLOG:
		if ((rc = world_pool_join(w, 0, err)) != 0)
			return rc;
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	case SCN_POOL_BATCH:
		return world_pool_join(w, 0, err);
	case SCN_FAIL_BACKLOG:
		return world_set_timer(w, sim_time_from_s(1), 1, err);
	}
	return 0;
}

static int is_s(const struct world *w, int j)
{
	return strcmp(world_job(w, j)->tj.id, "S") == 0;
}

static int bl_schedule(struct world *w, void *state)
{
	const struct backlog *st = state;
	int k = 0, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k), g;
		const struct world_job *job = world_job(w, j);
		if (job->tj.kind == TRACE_INFER && is_s(w, j)) {
			if (st->scn == SCN_POOL_BATCH) {
				if ((rc = world_pool_serve(w, j, NULL)) != 0 ||
				    (rc = world_set_batch(w, j, 1, NULL)) != 0)
					return rc;
				continue;
			}
			k++;               /* pooled or failed by the timer */
			continue;
		}
		g = job->tj.kind == TRACE_INFER ? 1 : 0;
		if (world_place(w, j, &g, 1, NULL, NULL) != 0)
			k++;
	}
	return 0;
}

static int bl_timer(struct world *w, void *state, uint64_t tag)
{
	const struct backlog *st = state;
	int j;

	(void)tag;
	for (j = 0; j < world_njobs(w); j++) {
		const struct world_job *job = world_job(w, j);
		if (st->scn == SCN_POOL_BACKLOG && is_s(w, j) &&
		    job->state == JOB_PENDING)
			return world_pool_serve(w, j, NULL);
		if (st->scn == SCN_FAIL_BACKLOG && is_s(w, j) &&
		    job->state == JOB_PENDING)
			return world_fail_job(w, j, "test");
	}
	return 0;
}

static const struct pol_ops backlog_ops = {
	.iVersion = 1,                /* hand-read parameters, world.h */
	.zName = "backlog",
	.zDesc = "service backlog probe",
	.szState = sizeof(struct backlog),
	.xInit = bl_init,
	.xOnTimer = bl_timer,
	.xSchedule = bl_schedule
};

/* Runs body under the backlog probe's scenario scn, with at most
** max_queued requests queued in the world (0: the default). */
static int bl_run(struct tw_world *t, const char *name, const char *body,
		  const char *cluster, int scn, uint64_t max_queued)
{
	struct world_config cfg = tw_config(&backlog_ops);
	char params[16];

	cfg.max_queued_requests = max_queued;
	snprintf(params, sizeof params, "scn=%d", scn);
	return tw_simulate(t, tw_write(name, body), cluster, &cfg, params);
}

/* S (400 req/s) waits unplaced for 1 s with at most 50 requests queued in
** the world, so its backlog fills the bound; then it leaves, and T, a
** service on GPU 1 from 2 s at 20 req/s, finds the queues empty: every one
** of its requests is served.
**  - pooled (its backlog goes to the pool): review 3 found that
**    world_pool_serve moved the backlog with fifo_pop, not queue_pop, so
**    the world's count kept it and every later request of every other
**    service was rejected;
**  - failed: world_fail_job ended S's arrivals but left its backlog
**    counted until world_destroy, with the same effect; svc_fail now
**    uncounts it (kept, and reported unserved). */
static void test_backlog_frees_bound(void)
{
	static const struct {
		const char *name;
		int scn;
		enum job_state s_state;
	} rows[] = {
		{ "backlog-pool.csv", SCN_POOL_BACKLOG, JOB_DONE },
		{ "backlog-fail.csv", SCN_FAIL_BACKLOG, JOB_FAILED },
	};
	size_t k;

	for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
		struct world_svc_window win;
		struct sim_err err = { 0, "" };
		struct tw_world r;
		int t;

		CU_ASSERT_EQUAL_FATAL(bl_run(&r, rows[k].name,
			"S,infer,0,resnet50,8,,3,,,,1,,,,1000,poisson,400,,\n"
			"T,infer,2,resnet50,8,,4,,,,1,,,,1000,poisson,20,,\n",
			"1x2:a100-80gb", rows[k].scn, 50), 0);
		t = tw_find(&r, "T");
		CU_ASSERT_EQUAL_FATAL(world_svc_window(r.w, t, &win, &err), 0);
		CU_ASSERT(win.arrivals > 40);
		CU_ASSERT_EQUAL(win.served, win.arrivals);
		CU_ASSERT_EQUAL(tw_wjob(&r, "S")->state, rows[k].s_state);
		if (rows[k].scn == SCN_POOL_BACKLOG) {
			CU_ASSERT(run_result_get(&r.res,
						 "requests_rejected") > 0);
		} else {
			/* S's 50 queued requests stay unserved */
			CU_ASSERT_DOUBLE_EQUAL(
				run_result_get(&r.res, "requests_unserved"),
				run_result_get(&r.res, "requests_total") -
				run_result_get(&r.res, "requests_served"), 0);
			CU_ASSERT(run_result_get(&r.res,
						 "requests_unserved") >= 50);
		}
		tw_close(&r);
	}
}

/* A pooled service S (trace batch 8, set to 1 at once) at 400 req/s for
** 2 s: its window counts every request served, and the pool's batches are
** of one request each (batches == served, batch_sum == served).  (Review
** 3: a pooled service's window never counted a request served, nor
** latency, SLO misses or batches, and the pool batched at the trace's
** batch, ignoring world_set_batch; svc_pool_done now fills the window and
** the pool uses svc_max_batch.) */
static void test_pool_window_and_batch(void)
{
	struct world_svc_window win;
	struct sim_err err = { 0, "" };
	struct tw_world r;
	int s;

	CU_ASSERT_EQUAL_FATAL(bl_run(&r, "pool-window.csv",
		"S,infer,0,resnet50,8,,2,,,,1,,,,1000,poisson,400,,\n",
		"1x1:a100-80gb", SCN_POOL_BATCH, 0), 0);
	s = tw_find(&r, "S");
	CU_ASSERT_EQUAL_FATAL(world_svc_window(r.w, s, &win, &err), 0);
	CU_ASSERT(win.arrivals > 600);
	CU_ASSERT_EQUAL(win.served, win.arrivals);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "requests_served"),
			       (double)win.served, 0);
	CU_ASSERT_EQUAL(win.max_batch, 1);
	CU_ASSERT_EQUAL(win.batches, win.served);
	CU_ASSERT_DOUBLE_EQUAL(win.batch_sum, (double)win.served, 0);
	CU_ASSERT(win.lat_mean_ms > 0);
	tw_close(&r);
}

TEST_REGISTER(service)
{
	static const struct test_case cases[] = {
		{ "an open service ends with the workload",
		  test_open_service_ends },
		{ "a failed service draws no more requests",
		  test_failed_service_stops },
		{ "no latency figures when nothing was served",
		  test_no_latency_when_unserved },
		{ "pooling or failing a backlog frees the queue bound",
		  test_backlog_frees_bound },
		{ "pooled service window and max batch",
		  test_pool_window_and_batch },
		{ NULL, NULL }
	};
	return test_add_suite("service", cases);
}
