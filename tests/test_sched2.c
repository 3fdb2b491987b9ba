/*
** test_sched2.c: the second part of issue 19 on cases computed by hand
** (each case's arithmetic is in its comment): the all-reduce of a spread
** job on a trace-given iteration time.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/zoo.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* ---- the all-reduce of a spread job ---------------------------------- */

/* Two nodes of 2 A100-80GB.  X (1 GPU) and Y (2 GPUs), 10 iterations of
** 1 s each (iter_ms), both at 0.  srtf with placement=any: X (10 s) first
** takes GPU 0, Y takes GPUs 1 and 2, one on each node: each iteration
** pays the ring all-reduce over the NIC less the consolidated one over
** NVLink, 2 (2 - 1) / 2 x G x (1 / 12.5e9 - 1 / 600e9) s, G = 4 bytes x
** ResNet-50's parameters.  placement=node puts Y on node 1 (GPUs 2-3):
** 10 s; so does spread_cost none. */
static void test_spread_iter(void)
{
	const char *body =
		"X,train,0,resnet50,32,10,,1000,,,1,,1000,,,,,,\n"
		"Y,train,0,resnet50,32,10,,1000,,,2,,1000,,,,,,\n";
	const struct zoo_model *m = zoo_find("resnet50");
	double g, extra;
	struct world_config cfg;
	struct tw_world r;
	const char *t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	g = 4.0 * (double)m->params;
	extra = g * (1 / 12.5e9 - 1 / 600e9);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "spread.csv", body, pol_find("srtf"),
				    "2x2:a100-80gb", "placement=any"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10 * (1 + extra), 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "X"), 10, 1e-6);
	CU_ASSERT(extra > 0.005);       /* it matters: 8 ms an iteration */
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "spread2.csv", body, pol_find("srtf"),
				    "2x2:a100-80gb", "placement=node"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 2);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10, 1e-6);
	tw_close(&r);
	t = tw_write("spread3.csv", body);
	cfg = tw_config(pol_find("srtf"));
	cfg.spread_cost = WORLD_SPREAD_NONE;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, t, "2x2:a100-80gb", &cfg,
					  "placement=any"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10, 1e-6);
	tw_close(&r);
	/* a bad value is refused */
	cfg.spread_cost = 7;
	CU_ASSERT_NOT_EQUAL(tw_simulate(&r, t, "2x2:a100-80gb", &cfg,
					"placement=any"), 0);
	tw_close(&r);
}

TEST_REGISTER(sched2)
{
	static const struct test_case cases[] = {
		{ "a spread job pays its all-reduce on iter_ms",
		  test_spread_iter },
		{ NULL, NULL }
	};
	return test_add_suite("sched2", cases);
}
