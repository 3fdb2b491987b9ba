/*
** test_mig.c: MIG (the mig baseline of policies/baseline.c on the world's
** slices, docs/MODEL.md "MIG"): the default and an explicit layout, jobs
** refused by every slice, one job per slice, and a lone tenant's speed,
** SM and HBM utilisation in a slice by hand.  (SRTF under mig is in
** test_baseline.c.)
*/
#include <math.h>
#include <string.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* The busy-part stretch of profile p in a slice of SM fraction f and
** bandwidth fraction bw with the device's bandwidth weight w, and the
** speed of a lone tenant there: the host part (1 - duty) does not
** stretch (MODEL.md, "MIG"; the alpha blend of the old model replaced by
** the fitted weight, and the duty cycle added). */
static double slice_stretch(const struct gpu_work_profile *p, double f,
			    double bw, double w)
{
	return (1.0 - w) * fmax(1.0, p->sat / f) +
	       w * fmax(1.0, p->bw_frac / bw);
}

static double slice_speed(const struct gpu_work_profile *p, double f,
			  double bw, double w)
{
	return 1.0 / ((1.0 - p->duty) + p->duty * slice_stretch(p, f, bw, w));
}

/* Its busy-SM fraction: duty x speed x stretch x min(sat, f). */
static double slice_sm(const struct gpu_work_profile *p, double f,
		       double bw, double w)
{
	return p->duty * slice_speed(p, f, bw, w) *
	       slice_stretch(p, f, bw, w) * fmin(p->sat, f);
}

/* mig: the default layout (7 x 1g.10gb on an A100-80GB) and an explicit
** one (2 x 3g.40gb).  A job larger than every slice fails with a reason;
** the others run at the slice's speed: JCT = 100 s / speed, busy SMs
** duty x speed x stretch x min(sat, f) (min(sat, f) before the duty-cycle
** model) and HBM its allocation over the GPU's. */
static void test_mig_slices(void)
{
	struct dev_catalog cat = { NULL, 0 };
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct tw_world r;
	double f, v, t;

	d = tw_train_profile(&cat, "a100-80gb", "resnet50", 32, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);

	/* default: 1g.10gb = 14 of 108 SMs, 1/8 of the bandwidth */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "mig1.csv",
		"A,train,0,resnet50,32,,100,,,,1,,5000,,,,,,\n"
		"BIG,train,0,resnet50,32,,100,,,,1,,20000,,,,,,\n",
		pol_find("mig"), "1x1:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->nslices, 7);
	CU_ASSERT_EQUAL(tw_wjob(&r, "BIG")->state, JOB_FAILED);
	CU_ASSERT(strstr(tw_wjob(&r, "BIG")->fail_reason, "MIG") != NULL);
	f = 14.0 / 108.0;
	v = slice_speed(&p, f, 0.125, d->mig_bw_weight);
	t = ceil(100e9 / v) / 1e9;
	TEST_ASSERT_CLOSE(tw_end_s(&r, "A"), t, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  slice_sm(&p, f, 0.125, d->mig_bw_weight), 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  5000.0 / 81920.0, 1e-9);
	tw_close(&r);

	/* explicit: 3g.40gb = 42 SMs, half the bandwidth, 40 GiB each; two
	** jobs of 30000 MiB take one slice each (never both in one) and a
	** 50000 MiB job fails */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "mig2.csv",
		"A,train,0,resnet50,32,,100,,,,1,,30000,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,30000,,,,,,\n"
		"C,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"D,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n",
		pol_find("mig"), "1x1:a100-80gb", "layout=3g.40gb 3g.40gb"), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->nslices, 2);
	CU_ASSERT_EQUAL(tw_wjob(&r, "C")->state, JOB_FAILED);
	f = 42.0 / 108.0;
	v = slice_speed(&p, f, 0.5, d->mig_bw_weight);
	t = ceil(100e9 / v) / 1e9;
	TEST_ASSERT_CLOSE(tw_end_s(&r, "A"), t, 1e-9);
	TEST_ASSERT_CLOSE(tw_end_s(&r, "B"), t, 1e-9);
	/* D waits for a free slice: one job per slice */
	TEST_ASSERT_CLOSE(tw_start_s(&r, "D"), t, 1e-9);
	TEST_ASSERT_CLOSE(tw_end_s(&r, "D"), 2 * t, 1e-9);
	/* SMs: two slices busy for t, one for t; HBM likewise */
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  3 * slice_sm(&p, f, 0.5, d->mig_bw_weight) / 2, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (60000.0 + 1000.0) / 2 / 81920.0, 1e-9);
	tw_close(&r);
	dev_catalog_fini(&cat);
}

TEST_REGISTER(mig)
{
	static const struct test_case cases[] = {
		{ "mig slices: layouts, refusals, speed",
		  test_mig_slices },
		{ NULL, NULL }
	};
	return test_add_suite("mig", cases);
}
