/*
** test_review2.c: regression tests for bugs found in the second review
** (the baseline policies, COLTI, GSLICE, and the world's use of the GPU
** model).  Each case failed before its fix; the cases that check
** hand-computed utilisation and slice speeds pin behaviour that was right.
**
**  - SRTF read a running job's remaining time as of the last change on its
**    GPUs, not as of now, so it preempted jobs that were nearly done;
**  - SRTF compared the newcomer's time on GPU 0's device with the victim's
**    on its own device;
**  - SRTF preempted jobs even when that could not make the newcomer fit;
**  - COLTI never placed a multi-GPU job on a mix of empty GPUs and GPUs it
**    could share, leaving the empty ones idle while it waited.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "policies/policy.h"
#include "models/cluster.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* One run whose world stays alive for inspection. */
struct r2 {
	struct dev_catalog cat;
	struct cluster_spec cl;
	struct world *w;
	struct run_result res;
};

/* Runs body (rows after TW_HEADER) under policy on cluster with params
** "k=v,k=v" (NULL: none); 0 or the error code (message on stderr). */
static int r2_run_ops(struct r2 *r, const char *name, const char *body,
		      const struct pol_ops *ops, const char *cluster,
		      const char *params)
{
	struct world_config cfg;
	struct sim_err err = { 0, "" };
	struct pol_param pv[8];
	struct pol_params pp = { 0, pv };
	char buf[256];
	const char *path = tw_write(name, body);
	int rc;

	memset(r, 0, sizeof *r);
	memset(&cfg, 0, sizeof cfg);
	run_result_init(&r->res);
	pp.n = tw_params(params, buf, sizeof buf, pv, 8);
	rc = dev_catalog_load(&r->cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&r->cl, cluster, &r->cat, "cluster", &err);
	if (rc == 0) {
		cfg.cluster = &r->cl;
		cfg.trace_path = path;
		cfg.policy = ops;
		cfg.params = &pp;
		cfg.seed = 1;
		cfg.max_events = 2000000;
		rc = world_create(&r->w, &cfg, &err);
	}
	if (rc == 0)
		rc = world_run(r->w, &err);
	if (rc == 0)
		rc = world_results(r->w, &r->res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s/%s: %s\n", name, ops->zName,
			err.msg);
	return rc;
}

static int r2_run(struct r2 *r, const char *name, const char *body,
		  const char *policy, const char *cluster, const char *params)
{
	return r2_run_ops(r, name, body, pol_find(policy), cluster, params);
}

static void r2_fini(struct r2 *r)
{
	world_destroy(r->w);
	run_result_fini(&r->res);
	dev_catalog_fini(&r->cat);
}

/* The world job with trace id `id`, or NULL. */
static const struct world_job *r2_job(const struct r2 *r, const char *id)
{
	int j;

	for (j = 0; j < world_njobs(r->w); j++)
		if (strcmp(world_job(r->w, j)->tj.id, id) == 0)
			return world_job(r->w, j);
	return NULL;
}

static double r2_start(const struct r2 *r, const char *id)
{
	const struct world_job *j = r2_job(r, id);
	return j != NULL ? sim_time_to_s(j->start_ns) : -999;
}

static double r2_end(const struct r2 *r, const char *id)
{
	const struct world_job *j = r2_job(r, id);
	return j != NULL ? sim_time_to_s(j->end_ns) : -999;
}

static int r2_preemptions(const struct r2 *r, const char *id)
{
	const struct world_job *j = r2_job(r, id);
	return j != NULL ? j->preemptions : -1;
}

/* ---- SRTF ----------------------------------------------------------- */

/* A (1000 s) runs alone from 0; B (200 s) arrives at 900, when A has
** 100 s left: SRTF keeps A, B starts at 1000 and ends at 1200.  (Before
** the fix A's remaining time read 1000 s, the value settled at its
** placement: A was preempted at 900 and B then at once preempted back.) */
static void test_srtf_remaining_is_current(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_now.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,900,resnet50,32,,200,,,,1,,1000,,,,,,\n",
		"exclusive", "1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 1000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 1000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "B"), 1200, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "queue_delay_mean_s"),
			       (0 + 100) / 2.0, 1e-6);
	r2_fini(&r);

	/* The same with A at 300 s left when B (200 s) comes: B preempts A. */
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_now2.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,700,resnet50,32,,200,,,,1,,1000,,,,,,\n",
		"exclusive", "1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "B"), 900, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 1200, 1e-6);
	r2_fini(&r);
}

/* Heterogeneous SRTF: GPU 0 is a V100 held by a service, GPU 1 an A100
** running A (2000 iterations of ResNet-50).  J (1800 iterations) arrives
** at 1 s.  On either device J is the shorter (A100: 126 s against A's
** 139 s left; V100: 157 s against 173 s), so SRTF preempts A.  Before the
** fix the victim's time on its own A100 (139 s) was compared with J's on
** GPU 0's V100 (157 s), and A kept running. */
static void test_srtf_same_yardstick(void)
{
	struct r2 r;
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
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_het.csv",
		"S,infer,0,resnet50,8,,1000,,,,1,,2000,,100,poisson,1,,2\n"
		"A,train,0,resnet50,32,2000,,,,,1,,,,,,,,\n"
		"J,train,1,resnet50,32,1800,,,,,1,,,,,,,,\n",
		"exclusive", "1x1:v100-16gb,1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_job(&r, "S")->first_gpu_, 0);
	CU_ASSERT_EQUAL(r2_job(&r, "A")->first_gpu_, 1);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "J"), 1 + 1800 * it, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 2000 * it + 1800 * it, 1e-6);
	r2_fini(&r);
}

/* Futile preemption: A (1000 s) on GPU 0, B (50 s) on GPU 1, then J
** (2 GPUs, 100 s) at 1 s.  Preempting A alone cannot make room (B is
** shorter than J and stays), so SRTF waits: at 50 s B ends and J preempts
** A once; J runs 50-150 and A ends at 1100.  Before the fix A was also
** preempted at 1 s for nothing (and put back at once). */
static void test_srtf_no_futile_preemption(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_futile.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,50,,,,1,,1000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,2,,1000,,,,,,\n",
		"exclusive", "1x2:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "J"), 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 1100, 1e-9);
	r2_fini(&r);

	/* Under mig the what-if frees slices: two 3g.40gb slices, A (1000 s)
	** and B (50 s) in them; J (100 s) preempts A, the longest, only. */
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_mig.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,20000,,,,,,\n"
		"B,train,0,resnet50,32,,50,,,,1,,20000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,1,,20000,,,,,,\n",
		"mig", "1x1:a100-80gb",
		"order=srtf,layout=3g.40gb 3g.40gb"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "B"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 1, 1e-9);
	r2_fini(&r);
}

/* ---- COLTI ---------------------------------------------------------- */

/* R (MobileNetV2, SM demand 0.12) holds GPU 0; J (2 GPUs, same model)
** arrives at 1 s with GPU 1 empty.  An empty GPU admits any job (MODEL.md,
** "COLTI"), and GPU 0 admits J by rule (1): J starts at once on GPU 1 and
** beside R on GPU 0, with the MPS share R leaves.  Before the fix a job
** had to find all its GPUs in one class (all empty, or all shared), so J
** waited for R to end with GPU 1 idle. */
static void test_colti_mixed_gpus(void)
{
	struct r2 r;
	const struct world_job *j;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "colti_mix.csv",
		"R,train,0,mobilenetv2,4,,1000,,,,1,,,,,,,,\n"
		"J,train,1,mobilenetv2,4,,100,,,,2,,,,,,,,\n",
		"colti", "1x2:a100-80gb", NULL), 0);
	j = r2_job(&r, "J");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 1, 1e-9);
	CU_ASSERT_EQUAL(j->first_gpu_, 0);
	CU_ASSERT(r2_end(&r, "J") < 1000);
	CU_ASSERT_EQUAL(run_result_get(&r.res, "jobs_done"), 2);
	r2_fini(&r);
}

/* COLTI's SM demand of a service (MODEL.md, "COLTI"): sat(B) x its busy
** fraction rate L(B) / B under Poisson arrivals at a known rate (10/s x
** 4 ms / 8: almost nothing), so a ResNet-50 training job (sat 0.65) joins
** it at once; with `rates` arrivals the rate column is empty, the service
** counts as always busy (0.56 + 0.65 > 1) and the job waits for it. */
static void test_colti_service_rate(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "colti_rate.csv",
		"S,infer,0,resnet50,8,,100,,,,1,,,,100,poisson,10,,2\n"
		"T,train,0,resnet50,4,,50,,,,1,,,,,,,,\n",
		"colti", "1x1:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "T"), 0, 0);
	r2_fini(&r);
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "colti_norate.csv",
		"S,infer,0,resnet50,8,,100,,,,1,,,,100,rates,,10@0,2\n"
		"T,train,0,resnet50,4,,50,,,,1,,,,,,,,\n",
		"colti", "1x1:a100-80gb", NULL), 0);
	/* it starts when S has drained, just before its 100 s lifetime */
	CU_ASSERT(r2_start(&r, "T") >= 99);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "T"), r2_end(&r, "S"), 0);
	CU_ASSERT_EQUAL(r2_job(&r, "T")->state, JOB_DONE);
	r2_fini(&r);
}

/* ---- GSLICE --------------------------------------------------------- */

/* gslice with training in the trace, on MIG-capable A100s (run in MPS
** mode): T takes the empty GPU 0 whole and runs at speed 1; the services
** go to GPU 1 only (never beside training); T2 waits for an empty GPU and
** starts when T ends. */
static void test_gslice_with_training(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "gs_train.csv",
		"T,train,0,resnet50,32,,30,,,,1,,,,,,,,\n"
		"S1,infer,0,resnet50,8,,60,,,,1,,,,100,poisson,50,,2\n"
		"S2,infer,0,resnet50,8,,60,,,,1,,,,100,poisson,50,,2\n"
		"T2,train,1,resnet50,32,,10,,,,1,,,,,,,,\n",
		"gslice", "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->mode, GPU_MODE_MPS);
	CU_ASSERT_EQUAL(r2_job(&r, "T")->first_gpu_, 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "T"), 30, 1e-9);
	CU_ASSERT_EQUAL(r2_job(&r, "S1")->first_gpu_, 1);
	CU_ASSERT_EQUAL(r2_job(&r, "S2")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "T2"), 30, 1e-9);
	CU_ASSERT_EQUAL(r2_job(&r, "T2")->first_gpu_, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "jobs_done"), 4, 0);
	r2_fini(&r);
}

/* ---- baselines on hand-computed cases -------------------------------- */

/* sjf: A (100 s) runs from 0; B (50), C (10), D (30) arrive at 1 s and run
** shortest first: C 100-110, D 110-140, B 140-190. */
static void test_sjf_order(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "sjf.csv",
		"A,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"B,train,1,resnet50,32,,50,,,,1,,1000,,,,,,\n"
		"C,train,1,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"D,train,1,resnet50,32,,30,,,,1,,1000,,,,,,\n",
		"exclusive", "1x1:a100-80gb", "order=sjf"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "C"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "D"), 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "B"), 190, 1e-9);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 0);
	r2_fini(&r);
}

/* srtf with a multi-GPU victim: A (2 GPUs, 1000 s) runs from 0; J (1 GPU,
** 100 s) at 1 s preempts it (both GPUs go), runs 1-101; A (999 s left)
** needs both GPUs again and ends at 1100. */
static void test_srtf_multi_gpu_victim(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_multi.csv",
		"A,train,0,resnet50,32,,1000,,,,2,,1000,,,,,,\n"
		"J,train,1,resnet50,32,,100,,,,1,,1000,,,,,,\n",
		"exclusive", "1x2:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "J"), 101, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 1100, 1e-6);
	r2_fini(&r);
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
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "bf1.csv", body, "exclusive",
				     "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "C"), 2, 1e-9);
	CU_ASSERT_EQUAL(r2_job(&r, "C")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 100, 1e-9);
	r2_fini(&r);
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "bf0.csv", body, "exclusive",
				     "1x2:a100-80gb", "backfill=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "C"), 150, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "C"), 160, 1e-9);
	r2_fini(&r);
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
	struct r2 r;
	int k;

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "bestfit.csv", body, "timeslice",
				     "1x2:v100-16gb,1x2:a100-80gb",
				     "placement=best-fit,order=fifo"), 0);
	for (k = 0; k < 5; k++)
		CU_ASSERT_EQUAL(r2_job(&r, id[k])->first_gpu_, want[k]);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J5"), 0, 0);
	r2_fini(&r);
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "spread.csv", body, "timeslice",
				     "1x2:v100-16gb,1x2:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(r2_job(&r, "J1")->first_gpu_, 2);
	r2_fini(&r);
}

/* ---- MIG ------------------------------------------------------------ */

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
** min(sat, f) and HBM its allocation over the GPU's. */
static void test_mig_slices(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct r2 r;
	double f, v, t;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "a100-80gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	wl_train_profile(zoo_find("resnet50"), d, 32, WL_PREC_FP32, &p);

	/* default: 1g.10gb = 14 of 108 SMs, 1/8 of the bandwidth */
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "mig1.csv",
		"A,train,0,resnet50,32,,100,,,,1,,5000,,,,,,\n"
		"BIG,train,0,resnet50,32,,100,,,,1,,20000,,,,,,\n",
		"mig", "1x1:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->nslices, 7);
	CU_ASSERT_EQUAL(r2_job(&r, "BIG")->state, JOB_FAILED);
	CU_ASSERT(strstr(r2_job(&r, "BIG")->fail_reason, "MIG") != NULL);
	f = 14.0 / 108.0;
	v = slice_speed(&p, f, 0.125, d->mig_bw_weight);
	t = ceil(100e9 / v) / 1e9;
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), t, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  slice_sm(&p, f, 0.125, d->mig_bw_weight), 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  5000.0 / 81920.0, 1e-9);
	r2_fini(&r);

	/* explicit: 3g.40gb = 42 SMs, half the bandwidth, 40 GiB each; two
	** jobs of 30000 MiB take one slice each (never both in one) and a
	** 50000 MiB job fails */
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "mig2.csv",
		"A,train,0,resnet50,32,,100,,,,1,,30000,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,30000,,,,,,\n"
		"C,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"D,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n",
		"mig", "1x1:a100-80gb", "layout=3g.40gb 3g.40gb"), 0);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->nslices, 2);
	CU_ASSERT_EQUAL(r2_job(&r, "C")->state, JOB_FAILED);
	f = 42.0 / 108.0;
	v = slice_speed(&p, f, 0.5, d->mig_bw_weight);
	t = ceil(100e9 / v) / 1e9;
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), t, 1e-9);
	TEST_ASSERT_CLOSE(r2_end(&r, "B"), t, 1e-9);
	/* D waits for a free slice: one job per slice */
	TEST_ASSERT_CLOSE(r2_start(&r, "D"), t, 1e-9);
	TEST_ASSERT_CLOSE(r2_end(&r, "D"), 2 * t, 1e-9);
	/* SMs: two slices busy for t, one for t; HBM likewise */
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  3 * slice_sm(&p, f, 0.5, d->mig_bw_weight) / 2, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (60000.0 + 1000.0) / 2 / 81920.0, 1e-9);
	r2_fini(&r);
	dev_catalog_fini(&cat);
}

/* ---- utilisation metrics by hand ------------------------------------- */

/* Two ResNet-50 jobs on one A100-80GB from 0: A (100 s, 10000 MiB) and B
** (200 s, 20000 MiB), each GPU-busy a fraction d of its solo time (the
** duty-cycle model; before it d was 1 and the speeds below were r1).
** timeslice: both at v = the two-tenant closed form (tests/util.h) with
** busy rates 1 alone and r1 = T(2) / (1 + k bw) together, T(2) = q / (2
** (q + c)), until A ends at t1 = 100 / v; B, with 100 s left, alone at
** speed 1 until t1 + 100.  Busy SMs 2 d v sat, then d sat; HBM 30000 then
** 20000 MiB of 81920.
** mps (100% caps): together the wants sat > 0.5 water-fill to 0.5, so the
** busy part runs at r1 = 1 / (max(sat / 0.5, (1 - alpha) / alpha x
** max(1, 2 bw)) (1 + k)); busy SMs 2 d v sat, then d sat. */
static void test_util_by_hand(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,100,,,,1,,10000,,,,,,\n"
		"B,train,0,resnet50,32,,200,,,,1,,20000,,,,,,\n";
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct r2 r;
	double q, c, v, t1, t2, sm_a, sm_b;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "a100-80gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	wl_train_profile(zoo_find("resnet50"), d, 32, WL_PREC_FP32, &p);
	CU_ASSERT_FATAL(p.sat > 0.5 && 2 * p.bw_frac <= 1);

	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	v = test_duty_pair_speed(p.duty, 1.0, q / (2 * (q + c)) /
				 (1 + d->ts_mem_contention_k * p.bw_frac));
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "util_ts.csv", body, "timeslice",
				     "1x1:a100-80gb", NULL), 0);
	t1 = ceil(100e9 / v) / 1e9;
	t2 = t1 + 100;
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), t1, 1e-9);
	TEST_ASSERT_CLOSE(r2_end(&r, "B"), t2, 1e-6);
	sm_a = 2 * p.duty * v * p.sat;
	sm_b = p.duty * p.sat;
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  (sm_a * t1 + sm_b * (t2 - t1)) / t2, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (30000.0 * t1 + 20000.0 * (t2 - t1)) / t2 / 81920.0,
			  1e-6);
	r2_fini(&r);

	v = test_duty_pair_speed(p.duty, 1.0, 1.0 /
		(fmax(p.sat / 0.5, (1 - p.alpha) / p.alpha *
		      fmax(1.0, 2 * p.bw_frac)) * (1 + d->mps_contention_k)));
	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "util_mps.csv", body, "mps",
				     "1x1:a100-80gb", NULL), 0);
	t1 = ceil(100e9 / v) / 1e9;
	t2 = t1 + 100;
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), t1, 1e-9);
	TEST_ASSERT_CLOSE(r2_end(&r, "B"), t2, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  (2 * p.duty * v * p.sat * t1 +
			   p.duty * p.sat * (t2 - t1)) / t2, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (30000.0 * t1 + 20000.0 * (t2 - t1)) / t2 / 81920.0,
			  1e-6);
	r2_fini(&r);
	dev_catalog_fini(&cat);
}

/* ---- the world's use of the GPU model, through a probe policy -------- */

/* A test policy: puts every pending job on GPUs 0..n-1 in `mode`, with
** oversubscription when `oversub` = 1; at `at_s` sets every running job's
** MPS share to `share` (when > 0) and tries to preempt every running
** service, adding each preempt's return code to the run metric
** `probe_preempt_rc`. */
struct probe {
	int oversub;
	double at_s, share;
};

static int probe_init(struct world *w, void *state,
		      const struct pol_params *p, struct sim_err *err)
{
	static const char *const keys[] = { "mode", "oversub", "at_s",
					    "share", NULL };
	static const char *const modes[] = { "exclusive", "timeslice", "mps",
					     NULL };
	struct probe *pr = state;
	long ov = 0;
	int mode = 1, g, rc;

	if ((rc = pol_params_check(p, "probe", keys, err)) != 0 ||
	    (rc = pol_param_choice(p, "mode", modes, &mode, err)) != 0 ||
	    (rc = pol_param_int(p, "oversub", 0, 1, &ov, err)) != 0 ||
	    (rc = pol_param_double(p, "at_s", 0, 1e6, &pr->at_s, err)) != 0 ||
	    (rc = pol_param_double(p, "share", 0, 1, &pr->share, err)) != 0)
		return rc;
	pr->oversub = (int)ov;
	for (g = 0; g < world_ngpus(w); g++)
		if ((rc = world_set_gpu_mode(w, g, (enum gpu_mode)mode,
					     err)) != 0)
			return rc;
	if (pr->at_s > 0)
		return world_set_timer(w, sim_time_from_s(pr->at_s), 1, err);
	return 0;
}

static int probe_schedule(struct world *w, void *state)
{
	const struct probe *pr = state;
	static const int gpus[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	int k = 0;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k);
		struct world_place_opts o = { 1.0, NULL, 0, 0 };
		o.allow_oversub = pr->oversub;
		if (world_place(w, j, gpus, world_job(w, j)->tj.gpus, &o,
				NULL) != 0)
			k++;
	}
	return 0;
}

static int probe_timer(struct world *w, void *state, uint64_t tag)
{
	const struct probe *pr = state;
	int j, rc;

	(void)tag;
	for (j = 0; j < world_njobs(w); j++) {
		const struct world_job *job = world_job(w, j);
		if (job->state != JOB_RUNNING)
			continue;
		if (pr->share > 0 &&
		    (rc = world_set_share(w, j, pr->share, NULL)) != 0)
			return rc;
		if (job->tj.kind == TRACE_INFER &&
		    (rc = world_add_metric(w, "probe_preempt_rc",
					   world_preempt(w, j, NULL))) != 0)
			return rc;
	}
	return 0;
}

static const struct pol_ops probe_ops = {
	POL_IFACE_VERSION, "probe", "test probe", sizeof(struct probe),
	probe_init, NULL, NULL, NULL, NULL, probe_timer, probe_schedule
};

/* Oversubscription: A and B (50000 MiB each) on one A100-80GB (81920
** MiB) under timeslice.  The excess E = 18080 MiB pages at U: each busy
** part runs at 1 / (1 + P) alone and T(2) / (1 + k bw + P) together, P =
** bw_frac (B / U) (E / M), M = 100000 MiB, which gives the two-tenant
** speed v (tests/util.h; d = 1 before the duty-cycle model: v was T(2) /
** (1 + P)) until A (100 s) ends at t1; B (200 s), with 200 - 100 s left,
** then runs alone at speed 1.  HBM counts as full while oversubscribed. */
static void test_oversub_paging(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct r2 r;
	double q, c, P, v, t1, t2;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "a100-80gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	wl_train_profile(zoo_find("resnet50"), d, 32, WL_PREC_FP32, &p);
	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	P = p.bw_frac * (d->hbm_bw_bytes_per_s / d->uvm_bytes_per_s) *
		(18080.0 / 100000.0);
	v = test_duty_pair_speed(p.duty, 1.0 / (1 + P), q / (2 * (q + c)) /
				 (1 + d->ts_mem_contention_k * p.bw_frac + P));
	CU_ASSERT_EQUAL_FATAL(r2_run_ops(&r, "oversub.csv",
		"A,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"B,train,0,resnet50,32,,200,,,,1,,50000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice,oversub=1"), 0);
	t1 = ceil(100e9 / v) / 1e9;
	t2 = t1 + 100;
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 0, 0);
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), t1, 1e-9);
	TEST_ASSERT_CLOSE(r2_end(&r, "B"), t2, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (1.0 * t1 + 50000.0 / 81920.0 * (t2 - t1)) / t2,
			  1e-6);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->mem_peak_bytes,
			100000ULL << 20);
	r2_fini(&r);

	/* without oversubscription B waits for A */
	CU_ASSERT_EQUAL_FATAL(r2_run_ops(&r, "nooversub.csv",
		"A,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"B,train,0,resnet50,32,,200,,,,1,,50000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice"), 0);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "B"), 100, 1e-9);
	r2_fini(&r);
	dev_catalog_fini(&cat);
}

/* An MPS share change mid-run reschedules the completion: A (100 s) alone
** at share 1 runs at speed 1 (its want is sat < 1); at 10 s its share
** drops to 0.3 and its busy part (a fraction d) stretches by max(sat /
** 0.3, (1 - alpha) / alpha) (the roofline max; the old model blended
** alpha sat / 0.3 + 1 - alpha and had d = 1), for the 90 s left. */
static void test_share_change_reschedules(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct r2 r;
	double v;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "a100-80gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	wl_train_profile(zoo_find("resnet50"), d, 32, WL_PREC_FP32, &p);
	v = 1.0 / ((1 - p.duty) + p.duty *
		   fmax(p.sat / 0.3, (1 - p.alpha) / p.alpha));
	CU_ASSERT_EQUAL_FATAL(r2_run_ops(&r, "share.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=mps,at_s=10,share=0.3"), 0);
	TEST_ASSERT_CLOSE(r2_end(&r, "A"), 10 + ceil(90e9 / v) / 1e9, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  (p.duty * p.sat * 10 + p.duty * v * p.sat *
			   (r2_end(&r, "A") - 10)) / r2_end(&r, "A"), 1e-9);
	r2_fini(&r);
	dev_catalog_fini(&cat);
}

/* A service cannot be preempted, even mid-batch: world_preempt refuses
** with SIM_ESTATE and every request is still served. */
static void test_service_not_preempted(void)
{
	struct r2 r;

	CU_ASSERT_EQUAL_FATAL(r2_run_ops(&r, "svcpre.csv",
		"S,infer,0,resnet50,8,,20,,,,1,,2000,,100,poisson,200,,2\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice,at_s=10"), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "probe_preempt_rc"),
			       SIM_ESTATE, 0);
	CU_ASSERT_EQUAL(r2_job(&r, "S")->state, JOB_DONE);
	CU_ASSERT_EQUAL(r2_job(&r, "S")->preemptions, 0);
	CU_ASSERT(run_result_get(&r.res, "requests_total") > 3000);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "requests_served"),
			       run_result_get(&r.res, "requests_total"), 0);
	r2_fini(&r);
}

TEST_REGISTER(review2)
{
	static const struct test_case cases[] = {
		{ "srtf reads remaining time as of now",
		  test_srtf_remaining_is_current },
		{ "srtf compares times on one device",
		  test_srtf_same_yardstick },
		{ "srtf preempts only when it makes room",
		  test_srtf_no_futile_preemption },
		{ "colti mixes empty and shared GPUs",
		  test_colti_mixed_gpus },
		{ "colti: a service's SM demand from its rate",
		  test_colti_service_rate },
		{ "gslice beside training jobs",
		  test_gslice_with_training },
		{ "sjf runs the shortest first", test_sjf_order },
		{ "srtf preempts a multi-GPU job",
		  test_srtf_multi_gpu_victim },
		{ "backfill=0 keeps strict order", test_backfill },
		{ "best-fit on a mixed cluster", test_best_fit_mixed },
		{ "mig slices: layouts, refusals, speed",
		  test_mig_slices },
		{ "sm and hbm utilisation by hand", test_util_by_hand },
		{ "oversubscription pages and counts HBM full",
		  test_oversub_paging },
		{ "a share change reschedules the completion",
		  test_share_change_reschedules },
		{ "a service is never preempted",
		  test_service_not_preempted },
		{ NULL, NULL }
	};
	return test_add_suite("review2", cases);
}
