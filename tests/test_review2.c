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
#include "sim/cluster.h"
#include "sim/world.h"
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
static int r2_run(struct r2 *r, const char *name, const char *body,
		  const char *policy, const char *cluster, const char *params)
{
	struct world_config cfg;
	struct sim_err err = { 0, "" };
	struct pol_param pv[8];
	struct pol_params pp = { 0, pv };
	char buf[256], *tok, *save = NULL;
	const char *path = tw_write(name, body);
	int rc;

	memset(r, 0, sizeof *r);
	memset(&cfg, 0, sizeof cfg);
	run_result_init(&r->res);
	if (params != NULL) {
		snprintf(buf, sizeof buf, "%s", params);
		for (tok = strtok_r(buf, ",", &save); tok != NULL && pp.n < 8;
		     tok = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(tok, '=');
			if (eq == NULL)
				continue;
			*eq = '\0';
			pv[pp.n].key = tok;
			pv[pp.n].value = eq + 1;
			pv[pp.n].origin = "test";
			pp.n++;
		}
	}
	rc = dev_catalog_load(&r->cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&r->cl, cluster, &r->cat, "cluster", &err);
	if (rc == 0) {
		cfg.cluster = &r->cl;
		cfg.trace_path = path;
		cfg.policy = pol_find(policy);
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
		fprintf(stderr, "\n  run %s/%s: %s\n", name, policy, err.msg);
	return rc;
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

	CU_ASSERT_EQUAL_FATAL(r2_run(&r, "srtf_het.csv",
		"S,infer,0,resnet50,8,,1000,,,,1,,2000,,100,poisson,1,,2\n"
		"A,train,0,resnet50,32,2000,,,,,1,,,,,,,,\n"
		"J,train,1,resnet50,32,1800,,,,,1,,,,,,,,\n",
		"exclusive", "1x1:v100-16gb,1x1:a100-80gb", "order=srtf"), 0);
	CU_ASSERT_EQUAL(r2_job(&r, "S")->first_gpu_, 0);
	CU_ASSERT_EQUAL(r2_job(&r, "A")->first_gpu_, 1);
	CU_ASSERT_EQUAL(r2_preemptions(&r, "A"), 1);
	CU_ASSERT_DOUBLE_EQUAL(r2_start(&r, "J"), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "J"), 1 + 1800 * 0.070205296, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(r2_end(&r, "A"), 2000 * 0.070205296 +
			       1800 * 0.070205296, 1e-6);
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
		{ NULL, NULL }
	};
	return test_add_suite("review2", cases);
}
