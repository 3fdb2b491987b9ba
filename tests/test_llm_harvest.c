/*
** test_llm_harvest.c: the policy llm-harvest (policies/llm_harvest.c):
** a training job goes beside an LLM replica at share_init; under a TPOT
** target it cannot meet the loop cuts the share to share_min and then
** pauses the job (and brings it back after its cooldown); under a loose
** target it grows the share to share_max and never cuts; against a fixed
** full share (mps) it trades training time for lower TPOT; bad parameter
** combinations are refused naming the key.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"

static const char body[] =
	"chat,llm,0,llama-3-8b,256,,120,,,,1,,,,1000,poisson,3,,\n"
	"T,train,0,resnet50,64,,150,,,mixed,1,,,,,,,,\n";

/* Opens (not runs) trace text under policy with LLM settings, with an
** event budget (0: none). */
static int open_body(struct tw_world *t, const char *name, const char *text,
		     const char *policy, const char *llm, const char *params,
		     uint64_t max_events)
{
	static struct pol_param pv[16];
	static struct pol_params pp;
	static char buf[512];
	struct world_config cfg = tw_config(pol_find(policy));
	char file[64];

	pp.n = tw_params(llm, buf, sizeof buf, pv, 16);
	pp.v = pv;
	cfg.llm = &pp;
	cfg.max_events = max_events;
	snprintf(file, sizeof file, "%s.csv", name);
	return tw_open(t, tw_write(file, text), "1x1:" DEV, &cfg, params);
}

/* Opens (not runs) the two-job trace under policy with LLM settings. */
static int open_run(struct tw_world *t, const char *name, const char *policy,
		    const char *llm, const char *params)
{
	return open_body(t, name, body, policy, llm, params, 0);
}

static double share_of(struct tw_world *t, const char *id)
{
	int j = tw_find(t, id);

	if (j < 0 || pol_job(t->w, j).nplaced == 0)
		return -1;
	return pol_job_tenant(t->w, j, 0).sm_cap;
}

static void test_beside_at_share_init(void)
{
	struct tw_world t;

	CU_ASSERT_EQUAL_FATAL(open_run(&t, "hv_init", "llm-harvest",
				       "kv=dynamic", "share_init=0.4"), 0);
	tw_until(&t, 0);
	/* both on GPU 0, the service whole, the training job capped */
	CU_ASSERT_EQUAL(pol_job(t.w, tw_find(&t, "chat")).state,
			POL_JOB_RUNNING);
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "chat"), 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 0.4, 1e-12);
	CU_ASSERT_EQUAL(pol_gpu(t.w, 0).mode, POL_GPU_MPS);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 2, 0);
	tw_close(&t);
}

static void test_tight_target_pauses(void)
{
	struct tw_world t;

	/* 5 ms per token is below what the replica reaches even alone */
	CU_ASSERT_EQUAL_FATAL(open_run(&t, "hv_tight", "llm-harvest",
				       "kv=dynamic,slo_tpot_ms=5",
				       "cooldown_s=20"), 0);
	tw_until(&t, sim_time_from_s(3));
	/* cut every period: 0.5, 0.25, 0.125, 0.1, then paused */
	CU_ASSERT_EQUAL(tw_preemptions(&t, "T"), 1);
	CU_ASSERT_EQUAL(pol_job(t.w, tw_find(&t, "T")).state,
			POL_JOB_PREEMPTED);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT(run_result_get(&t.res, "harvest_cuts") >= 3);
	CU_ASSERT(run_result_get(&t.res, "harvest_pauses") >= 1);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 2, 0);
	/* it comes back after each cooldown, and ends */
	CU_ASSERT(tw_preemptions(&t, "T") >= 2);
	tw_close(&t);
}

/* (A target of 1 s still binds now and then: a vllm prefill of a full
** 8192-token budget under MPS contention stalls every decode for about a
** second.) */
static void test_loose_target_grows(void)
{
	struct tw_world t;

	CU_ASSERT_EQUAL_FATAL(open_run(&t, "hv_loose", "llm-harvest",
				       "kv=dynamic,slo_tpot_ms=100000", NULL), 0);
	tw_until(&t, sim_time_from_s(10));
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 0.9, 1e-9);
	/* the service gone (120 s and its drain), the GPU is whole again */
	tw_until(&t, sim_time_from_s(140));
	CU_ASSERT_EQUAL(pol_job(t.w, tw_find(&t, "chat")).state, POL_JOB_DONE);
	CU_ASSERT_EQUAL(pol_job(t.w, tw_find(&t, "T")).state, POL_JOB_RUNNING);
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 1.0, 1e-12);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "harvest_cuts"), 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "harvest_pauses"), 0, 0);
	CU_ASSERT_EQUAL(tw_preemptions(&t, "T"), 0);
	tw_close(&t);
}

static void test_trade_off(void)
{
	struct tw_world t;
	double tpot_mps, tpot_hv, end_mps, end_hv;

	CU_ASSERT_EQUAL_FATAL(open_run(&t, "hv_mps", "mps",
				       "kv=dynamic,slo_tpot_ms=22", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&t), 0);
	tpot_mps = run_result_get(&t.res, "llm_tpot_p99_ms");
	end_mps = tw_end_s(&t, "T");
	tw_close(&t);
	CU_ASSERT_EQUAL_FATAL(open_run(&t, "hv_hv", "llm-harvest",
				       "kv=dynamic,slo_tpot_ms=22", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&t), 0);
	tpot_hv = run_result_get(&t.res, "llm_tpot_p99_ms");
	end_hv = tw_end_s(&t, "T");
	tw_close(&t);
	if (getenv("TEST_VERBOSE") && *getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  tpot p99 mps %g harvest %g; train end mps "
			"%g harvest %g\n", tpot_mps, tpot_hv, end_mps, end_hv);
	CU_ASSERT(tpot_hv < tpot_mps);
	CU_ASSERT(end_hv > end_mps);
}

/* A training job of 1e9 s alone: once it runs uncapped with nothing
** waiting, the timer sleeps (it used to tick every period for the whole
** run: 2e9 events, past the suites' budget of 2,000,000); a service
** arriving at 1e8 s + 0.2 wakes it on its grid (ticks at multiples of
** 0.5 s): the first cut comes at 1e8 s + 0.5, not 0.2 + a period. */
static void test_idle_timer_sleeps(void)
{
	static const char text[] =
		"T,train,0,resnet50,64,,1000000000,,,mixed,1,,,,,,,,\n"
		"chat,llm,100000000.2,llama-3-8b,256,,120,,,,1,,,,1000,"
		"poisson,3,,\n";
	struct tw_world t;
	sim_time at = sim_time_from_s(100000000) + 200 * SIM_NS_PER_MS;

	CU_ASSERT_EQUAL_FATAL(open_body(&t, "hv_idle", text, "llm-harvest",
					"kv=dynamic,slo_tpot_ms=5", NULL,
					2000000), 0);
	tw_until(&t, at + 100 * SIM_NS_PER_MS);
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 0.5, 1e-12);
	tw_until(&t, at + 250 * SIM_NS_PER_MS);         /* 1e8 + 0.45 s */
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 0.5, 1e-12);
	tw_until(&t, at + 350 * SIM_NS_PER_MS);         /* 1e8 + 0.55 s */
	CU_ASSERT_DOUBLE_EQUAL(share_of(&t, "T"), 0.25, 1e-12);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "jobs_done"), 2, 0);
	CU_ASSERT(run_result_get(&t.res, "harvest_pauses") >= 1);
	CU_ASSERT(t.res.events < 100000);
	if (t.res.events >= 100000)
		fprintf(stderr, "\n  %llu events\n",
			(unsigned long long)t.res.events);
	tw_close(&t);
}

static void test_bad_params(void)
{
	struct tw_world t;

	CU_ASSERT(open_run(&t, "hv_bad", "llm-harvest", NULL,
			   "share_min=0.6,share_max=0.5") != 0);
	tw_close(&t);
	CU_ASSERT(open_run(&t, "hv_bad2", "llm-harvest", NULL,
			   "share_init=0.95") != 0);
	tw_close(&t);
}

TEST_REGISTER(llm_harvest)
{
	static const struct test_case cases[] = {
		{ "training beside a replica at share_init",
		  test_beside_at_share_init },
		{ "a target it cannot meet: cut, then pause",
		  test_tight_target_pauses },
		{ "a loose target: grow to share_max", test_loose_target_grows },
		{ "lower TPOT than mps, longer training", test_trade_off },
		{ "alone, the timer sleeps; a service wakes it on its grid",
		  test_idle_timer_sleeps },
		{ "bad parameter combinations", test_bad_params },
		{ NULL, NULL }
	};

	return test_add_suite("llm_harvest", cases);
}
