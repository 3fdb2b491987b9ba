/*
** test_baseline.c: the baseline policies (policies/baseline.c: exclusive,
** timeslice, mps, mig) on hand-computed cases: the orders (sjf, srtf and
** its preemptions), backfill, best-fit and least-loaded placement.  The
** three SRTF bugs found in review 2 keep their story above their case
** (what broke, what the fix was); the other cases pin hand-computed
** behaviour that was right.  (FIFO and the basic SRTF preemption are in
** test_world.c, on_full = swap in test_swap.c.)
*/
#include <string.h>

#include "models/device.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* ---- SRTF ----------------------------------------------------------- */

/* A (1000 s) runs alone from 0; B (200 s) arrives at 900, when A has
** 100 s left: SRTF keeps A, B starts at 1000 and ends at 1200.  (Before
** the fix A's remaining time read 1000 s, the value settled at its
** placement: A was preempted at 900 and B then at once preempted back.
** The fix: world_job_remaining_ns extrapolates each worker at its current
** speed, gpu_work_left.) */
static void test_srtf_remaining_is_current(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_now.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,900,resnet50,32,,200,,,,1,,1000,,,,,,\n",
		pol_find("exclusive"), "1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 1000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 1000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 1200, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "queue_delay_mean_s"),
			       (0 + 100) / 2.0, 1e-6);
	tw_close(&r);

	/* The same with A at 300 s left when B (200 s) comes: B preempts A. */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_now2.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,700,resnet50,32,,200,,,,1,,1000,,,,,,\n",
		pol_find("exclusive"), "1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 900, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 1200, 1e-6);
	tw_close(&r);
}

/* Heterogeneous SRTF: GPU 0 is a V100 held by a service, GPU 1 an A100
** running A (2000 iterations of ResNet-50).  J (1800 iterations) arrives
** at 1 s.  On either device J is the shorter (A100: 126 s against A's
** 139 s left; V100: 157 s against 173 s), so SRTF preempts A.  Before the
** fix the victim's time on its own A100 (139 s) was compared with J's on
** GPU 0's V100 (157 s), and A kept running; now both are timed on GPU
** 0's device. */
static void test_srtf_same_yardstick(void)
{
	struct tw_world r;
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	double it;

	/* the A100's ResNet-50 iteration (0.0702 s before the fitted host
	** costs of the duty-cycle model; recomputed, not hard-coded) */
	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	it = sim_time_to_s(wl_train_iter_ns(zoo_find("resnet50"),
			   dev_catalog_find(&cat, "a100-80gb"), 32,
			   WL_PREC_FP32));
	dev_catalog_fini(&cat);

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_het.csv",
		"S,infer,0,resnet50,8,,1000,,,,1,,2000,,100,poisson,1,,2\n"
		"A,train,0,resnet50,32,2000,,,,,1,,,,,,,,\n"
		"J,train,1,resnet50,32,1800,,,,,1,,,,,,,,\n",
		pol_find("exclusive"), "1x1:v100-16gb,1x1:a100-80gb",
		"order=srtf"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "S")->first_gpu_, 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "A")->first_gpu_, 1);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "J"), 1 + 1800 * it, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 2000 * it + 1800 * it, 1e-6);
	tw_close(&r);
}

/* Futile preemption: A (1000 s) on GPU 0, B (50 s) on GPU 1, then J
** (2 GPUs, 100 s) at 1 s.  Preempting A alone cannot make room (B is
** shorter than J and stays), so SRTF waits: at 50 s B ends and J preempts
** A once; J runs 50-150 and A ends at 1100.  Before the fix A was also
** preempted at 1 s for nothing (and put back at once); now SRTF preempts
** only when a what-if on the victims, longest first, makes J fit. */
static void test_srtf_no_futile_preemption(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_futile.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,50,,,,1,,1000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,2,,1000,,,,,,\n",
		pol_find("exclusive"), "1x2:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J"), 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "J"), 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 1100, 1e-9);
	tw_close(&r);

	/* Under mig the what-if frees slices: two 3g.40gb slices, A (1000 s)
	** and B (50 s) in them; J (100 s) preempts A, the longest, only. */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_mig.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,20000,,,,,,\n"
		"B,train,0,resnet50,32,,50,,,,1,,20000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,1,,20000,,,,,,\n",
		pol_find("mig"), "1x1:a100-80gb",
		"order=srtf,layout=3g.40gb 3g.40gb"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J"), 1, 1e-9);
	tw_close(&r);
}

/* srtf with a multi-GPU victim: A (2 GPUs, 1000 s) runs from 0; J (1 GPU,
** 100 s) at 1 s preempts it (both GPUs go), runs 1-101; A (999 s left)
** needs both GPUs again and ends at 1100. */
static void test_srtf_multi_gpu_victim(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_multi.csv",
		"A,train,0,resnet50,32,,1000,,,,2,,1000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,1,,1000,,,,,,\n",
		pol_find("exclusive"), "1x2:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "J"), 101, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 1100, 1e-6);
	tw_close(&r);
}

/* ---- sjf, backfill, placement ------------------------------------ */

/* sjf: A (100 s) runs from 0; B (50), C (10), D (30) arrive at 1 s and run
** shortest first: C 100-110, D 110-140, B 140-190. */
static void test_sjf_order(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "sjf.csv",
		"A,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"B,train,1,resnet50,32,,50,,,,1,,1000,,,,,,\n"
		"C,train,1,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"D,train,1,resnet50,32,,30,,,,1,,1000,,,,,,\n",
		pol_find("exclusive"), "1x1:a100-80gb", "order=sjf"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "C"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "D"), 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 190, 1e-9);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 0);
	tw_close(&r);
}

/* backfill: A (1 GPU) holds GPU 0 from 0 to 100; B (2 GPUs, 50 s) waits
** from 1 s; C (1 GPU, 10 s) at 2 s starts at once on GPU 1 with backfill,
** and with backfill=0 waits behind B: B 100-150, C 150-160. */
static void test_backfill(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"B,train,1,resnet50,32,,50,,,,2,,1000,,,,,,\n"
		"C,train,2,resnet50,32,,10,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "bf1.csv", body, pol_find("exclusive"),
				    "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "C"), 2, 1e-9);
	CU_ASSERT_EQUAL(tw_wjob(&r, "C")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-9);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "bf0.csv", body, pol_find("exclusive"),
				    "1x2:a100-80gb", "backfill=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "C"), 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "C"), 160, 1e-9);
	tw_close(&r);
}

/* best-fit on a mixed cluster (GPUs 0-1 V100-16GB = 16384 MiB, 2-3
** A100-80GB = 81920 MiB), timeslice, all long jobs at 0 in this order:
** J1 10000 MiB -> GPU 0 (6384 left, the least); J2 5000 -> GPU 0 (1384);
** J3 8000 -> GPU 1 (8384); J4 2 x 40000 -> GPUs 2, 3; J5 7000 -> GPU 1
** (1384, against 41920 on the A100s).  least-loaded instead spreads: J1
** on an A100 (most free among the empty GPUs). */
static void test_best_fit_mixed(void)
{
	static const char body[] =
		"J1,train,0,resnet50,32,,1000,,,,1,,10000,,,,,,\n"
		"J2,train,0,resnet50,32,,1000,,,,1,,5000,,,,,,\n"
		"J3,train,0,resnet50,32,,1000,,,,1,,8000,,,,,,\n"
		"J4,train,0,resnet50,32,,1000,,,,2,,40000,,,,,,\n"
		"J5,train,0,resnet50,32,,1000,,,,1,,7000,,,,,,\n";
	static const char *const id[] = { "J1", "J2", "J3", "J4", "J5" };
	static const int want[] = { 0, 0, 1, 2, 1 };
	struct tw_world r;
	int k;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "bestfit.csv", body,
				    pol_find("timeslice"),
				    "1x2:v100-16gb,1x2:a100-80gb",
				    "placement=best-fit,order=fifo"), 0);
	for (k = 0; k < 5; k++)
		CU_ASSERT_EQUAL(tw_wjob(&r, id[k])->first_gpu_, want[k]);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "J5"), 0, 0);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "spread.csv", body,
				    pol_find("timeslice"),
				    "1x2:v100-16gb,1x2:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "J1")->first_gpu_, 2);
	tw_close(&r);
}

TEST_REGISTER(baseline)
{
	static const struct test_case cases[] = {
		{ "srtf reads remaining time as of now",
		  test_srtf_remaining_is_current },
		{ "srtf compares times on one device",
		  test_srtf_same_yardstick },
		{ "srtf preempts only when it makes room",
		  test_srtf_no_futile_preemption },
		{ "srtf preempts a multi-GPU job",
		  test_srtf_multi_gpu_victim },
		{ "sjf runs the shortest first", test_sjf_order },
		{ "backfill=0 keeps strict order", test_backfill },
		{ "best-fit on a mixed cluster", test_best_fit_mixed },
		{ NULL, NULL }
	};
	return test_add_suite("baseline", cases);
}
