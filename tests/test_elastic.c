/*
** test_elastic.c: elastic jobs (docs/MODEL.md, "Elastic jobs" and "Goodput
** of elastic jobs"): the goodput model, world_resize's refusals and its
** conservation of work, pollux on a case computed by hand (the arithmetic
** is in its comment), its invariants, and the command line end to end.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/goodput.h"
#include "models/zoo.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/cli_util.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define EL_HEADER "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms,min_gpus,max_gpus," \
	"noise_scale\n"

static const char *el_write(const char *name, const char *body)
{
	return test_write(name, EL_HEADER, body);
}

/* ---- the goodput model ---------------------------------------------------- */

/* E(m) = (phi + m0) / (phi + m): phi 32, m0 32, m 64: 64 / 96.  The time
** ratio at 2 GPUs of 32 from 1, iterations equal: 1 / (2 x 2/3) = 0.75;
** a slower iteration scales it. */
static void test_goodput(void)
{
	CU_ASSERT_DOUBLE_EQUAL(gp_efficiency(32, 32, 64), 2.0 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(gp_efficiency(32, 32, 32), 1, 1e-12);
	CU_ASSERT(gp_efficiency(1e9, 32, 640) > 0.99999);
	CU_ASSERT_DOUBLE_EQUAL(gp_efficiency(1e-9, 32, 64), 0.5, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(gp_time_ratio(1, 2, 32, 32, 100, 100), 0.75,
			       1e-12);
	CU_ASSERT_DOUBLE_EQUAL(gp_time_ratio(1, 2, 32, 32, 100, 110), 0.825,
			       1e-12);
	CU_ASSERT_DOUBLE_EQUAL(gp_time_ratio(2, 2, 32, 32, 100, 100), 1,
			       1e-12);
	CU_ASSERT_DOUBLE_EQUAL(gp_noise_scale("resnet50"), 11397, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(gp_noise_scale("no-such-model"),
			       GP_NOISE_DEFAULT, 1e-9);
}

/* ---- world_resize ---------------------------------------------------------- */

/* GPUs 0-1 V100-16GB (node 0), 2-3 A100-80GB (node 1).  E (20 GiB,
** elastic 1-2) takes GPU 2 under exclusive FIFO first fit, N (1 GiB) GPU
** 0; P (2 GPUs, 20 GiB) waits. */
static const char resize_body[] =
	"E,train,0,resnet50,32,1000,,100,,,1,,20480,,,,,,,1,2,64\n"
	"N,train,0,resnet50,32,1000,,100,,,1,,1024,,,,,,,,,\n"
	"P,train,0.5,resnet50,32,1000,,100,,,2,,20480,,,,,,,2,2,\n";

static void expect_unchanged(const struct world_job *e)
{
	CU_ASSERT_EQUAL(e->state, JOB_RUNNING);
	CU_ASSERT_EQUAL(e->nplaced, 1);
	CU_ASSERT_EQUAL(e->tj.gpus, 1);
	CU_ASSERT_EQUAL(e->gpu_ids[0], 2);
	CU_ASSERT_EQUAL(e->resizes, 0);
}

/* world_resize with a fresh err (the first error of an err is kept) */
#define RS(w, j, g, n, rs, e) \
	(memset((e), 0, sizeof *(e)), world_resize(w, j, g, n, rs, e))

static void test_resize_refusals(void)
{
	struct tw_world r;
	struct world_config cfg = tw_config(pol_find("exclusive"));
	const struct world_job *e;
	int je, jn, jp;
	int g21[2] = { 2, 1 }, g20[2] = { 2, 0 }, g22[2] = { 2, 2 };
	int g299[2] = { 2, 99 }, g123[3] = { 1, 2, 3 }, g23[2] = { 2, 3 };
	struct sim_err err;

	CU_ASSERT_EQUAL_FATAL(tw_open(&r, el_write("rs.csv", resize_body),
				      "1x2:v100-16gb,1x2:a100-80gb", &cfg,
				      NULL), 0);
	tw_until(&r, 1000000000);       /* t = 1 s */
	je = tw_find(&r, "E");
	jn = tw_find(&r, "N");
	jp = tw_find(&r, "P");
	e = tw_wjob(&r, "E");
	CU_ASSERT_FATAL(e != NULL && e->state == JOB_RUNNING);
	expect_unchanged(e);
	CU_ASSERT_EQUAL(world_job(r.w, jn)->gpu_ids[0], 0);
	CU_ASSERT_EQUAL(world_job(r.w, jp)->state, JOB_PENDING);

	CU_ASSERT_EQUAL(RS(r.w, 99, g23, 2, 0, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(RS(r.w, jn, g23, 2, 0, &err), SIM_EINVAL);
	CU_ASSERT(strstr(err.msg, "not elastic") != NULL);
	CU_ASSERT_EQUAL(RS(r.w, jp, g23, 2, 0, &err), SIM_ESTATE);
	CU_ASSERT_EQUAL(RS(r.w, je, g123, 3, 0, &err), SIM_EINVAL);
	CU_ASSERT(strstr(err.msg, "1 to 2 GPUs") != NULL);
	CU_ASSERT_EQUAL(RS(r.w, je, g22, 2, 0, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(RS(r.w, je, g299, 2, 0, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(RS(r.w, je, g23, 2, -1, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(RS(r.w, je, g20, 2, 0, &err), SIM_ESTATE);
	CU_ASSERT_EQUAL(RS(r.w, je, g21, 2, 0, &err), SIM_ENOSPC);
	CU_ASSERT(strstr(err.msg, "GPU 1") != NULL);
	expect_unchanged(e);
	tw_close(&r);
}

/*
** The same world; at t = 1 s E (1 GPU, T1 = 1000 x 0.1 = 100 s) has 99/100
** left; resized to GPUs 2-3 with a 10 s restart: it keeps 0.99, makes no
** progress until 11 s, then runs 0.99 x T2, T2 its goodput-model time at 2
** GPUs (world_job_total_at): ends at 11 + 0.99 T2.  Remaining solo time
** before and after, over T at each count, is the same fraction.
*/
static void test_resize_conserves(void)
{
	struct tw_world r;
	struct world_config cfg = tw_config(pol_find("exclusive"));
	const struct world_job *e;
	int je, g23[2] = { 2, 3 };
	double t1, t2, f0, f1;
	struct sim_err err;

	CU_ASSERT_EQUAL_FATAL(tw_open(&r, el_write("rs2.csv", resize_body),
				      "1x2:v100-16gb,1x2:a100-80gb", &cfg,
				      NULL), 0);
	tw_until(&r, 1000000000);
	je = tw_find(&r, "E");
	e = tw_wjob(&r, "E");
	t1 = world_job_total_at(r.w, je, 2, 1);
	t2 = world_job_total_at(r.w, je, 2, 2);
	CU_ASSERT_DOUBLE_EQUAL(t1, 100e9, 1);
	CU_ASSERT(t2 > 0.5 * t1 && t2 < t1);
	f0 = world_job_remaining_ns(r.w, je, 2) / t1;
	CU_ASSERT_DOUBLE_EQUAL(f0, 0.99, 1e-9);
	CU_ASSERT_EQUAL_FATAL(world_resize(r.w, je, g23, 2, 10000000000LL,
					   &err), 0);
	CU_ASSERT_EQUAL(e->tj.gpus, 2);
	CU_ASSERT_EQUAL(e->nplaced, 2);
	CU_ASSERT_EQUAL(e->resizes, 1);
	CU_ASSERT_EQUAL(e->restart_end_, 11000000000LL);
	CU_ASSERT_DOUBLE_EQUAL(e->frac_left, f0, 1e-12);
	f1 = world_job_remaining_ns(r.w, je, 2) / t2;
	CU_ASSERT_DOUBLE_EQUAL(f1, f0, 1e-9);
	/* no progress while restarting */
	tw_until(&r, 6000000000LL);
	CU_ASSERT_DOUBLE_EQUAL(world_job_remaining_ns(r.w, je, 2) / t2, f0,
			       1e-9);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&r), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "E"), 11 + f0 * t2 / 1e9, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "resizes"), 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "restart_gpu_s"), 20,
			       1e-9);
	tw_close(&r);
}

/* ---- pollux ------------------------------------------------------------------ */

/*
** One node of 2 A100-80GB.  A and B: ResNet-50, batch 32, 3000 iterations
** of 100 ms at 1 GPU (T1 = 300 s), elastic 1-2, noise scale 32.  At 2
** GPUs: E(64) = (32 + 32) / (32 + 64) = 2/3 and the iteration pays the
** ring all-reduce over NVLink, a = 2 (2 - 1) / 2 x 4 P / 600e9 s (P the
** parameters): T2 = T1 (0.1 + a) / 0.1 / (2 x 2/3) = 225 (1 + 10 a) s.
** A arrives at 0, B at 50; ticks every 60 s, restart 30 s.
**   t = 0: A alone, fair = 2: s(1) = T2/T1 < s(2) = 1: A takes 2 GPUs.
**   t = 60: fair = 1, scale 1/2; A's change factor (60 - 0)/(60 + 30) =
**   2/3.  Steps from nothing (u = -1/(x + 0.001)): B to 1 (x 0.5, +998.0),
**   A to 1 (x 1/3: +997.0) beat A to 2 ((u(0.5 T1/T2) + 1000) / 2 < 500):
**   A shrinks to 1 GPU (restart until 90), B starts on the other.
**   Later ticks keep (1, 1): a change costs A its factor and B its GPU.
**   A ends at 90 + (1 - 60/T2) T1 (about 310 s), B at 60 + T1 = 360 s.
** One resize; 30 GPU-seconds lost to it.
*/
static void test_pollux_hand(void)
{
	const char *body =
		"A,train,0,resnet50,32,3000,,100,,,1,,1024,,,,,,,1,2,32\n"
		"B,train,50,resnet50,32,3000,,100,,,1,,1024,,,,,,,1,2,32\n";
	const struct zoo_model *m = zoo_find("resnet50");
	struct world_config cfg = tw_config(pol_find("pollux"));
	struct tw_world r;
	double a, t2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.policy);
	a = 4.0 * (double)m->params / 600e9;
	t2 = 225 * (1 + 10 * a);
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, el_write("px.csv", body),
					  "1x2:a100-80gb", &cfg, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "A"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"),
			       90 + (1 - 60 / t2) * 300, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 360, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "resizes"), 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "restart_gpu_s"), 30,
			       1e-9);
	tw_close(&r);

	/* a free restart: the same allocations to 300 s, A 30 s sooner */
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, el_write("px2.csv", body),
					  "1x2:a100-80gb", &cfg,
					  "restart_s=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"),
			       60 + (1 - 60 / t2) * 300, 1e-6);
	/* at the tick of 300 B, alone with 240 of its 300 s done, grows to
	** 2 GPUs (factor 1 with restart_s 0; s(2) = 1 > T2/T1) */
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 300 + 0.2 * t2, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "resizes"), 2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "restart_gpu_s"), 0,
			       1e-12);
	tw_close(&r);
	/* the sum of speedups (p = 1) splits too: 0.5 + 0.5 beats A's
	** 0.5 T1/T2 (about 0.67) at 2 GPUs */
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, el_write("px3.csv", body),
					  "1x2:a100-80gb", &cfg, "p=1"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 60, 1e-9);
	tw_close(&r);
	/* one GPU at 60 s: B waits for A's end at T2, then a tick */
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, el_write("px4.csv", body),
					  "1x1:a100-80gb", &cfg, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 300, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 300, 1e-6);
	tw_close(&r);
}

/* Invariants on a mixed trace: elastic and rigid jobs, arrivals spread,
** every job ends once, memory never over, and resizes happen. */
static void test_pollux_invariants(void)
{
	char body[4096];
	size_t n = 0;
	struct world_config cfg = tw_config(pol_find("pollux"));
	struct tw_world r;
	int k, moves = 0;

	for (k = 0; k < 12; k++)
		n += (size_t)snprintf(body + n, sizeof body - n,
			"J%d,train,%d,resnet50,32,%d,,100,,,%d,,1024,,,,,,,"
			"%s,%s,\n", k, 37 * k, 500 + 300 * (k % 5),
			1 + k % 3, k % 4 == 3 ? "" : "1",
			k % 4 == 3 ? "" : "6");
	CU_ASSERT_EQUAL_FATAL(tw_open(&r, el_write("pxi.csv", body),
				      "2x4:a100-80gb", &cfg, NULL), 0);
	CU_ASSERT_EQUAL(tw_step_checked(&r, &moves), 0);
	CU_ASSERT_EQUAL(tw_finish(&r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "jobs_done"), 12, 0);
	CU_ASSERT(run_result_get(&r.res, "resizes") > 0);
	tw_close(&r);
}

/* ---- the command line -------------------------------------------------------- */

static void test_pollux_cli(void)
{
	const char *err = "";
	const char *body = EL_HEADER
		"A,train,0,resnet50,32,3000,,100,,,1,,1024,,,,,,,1,2,32\n"
		"B,train,50,resnet50,32,3000,,100,,,1,,1024,,,,,,,1,2,\n";

	tc_put("pxcli.csv", body);
	CU_ASSERT_EQUAL(tc_sh("%B replay %T/pxcli.csv --policy pollux "
			      "--cluster 1x2:a100-80gb --json", &err), 0);
	CU_ASSERT(strstr(err, "\"resizes\"") != NULL);
	CU_ASSERT(strstr(err, "\"restart_gpu_s\"") != NULL);
	CU_ASSERT(strstr(err, "\"jobs_done\": 2") != NULL ||
		  strstr(err, "\"jobs_done\":2") != NULL);
	/* a bad noise scale names file, line and column */
	tc_put("pxbad.csv", EL_HEADER
	       "A,train,0,resnet50,32,3000,,100,,,1,,1024,,,,,,,1,2,-4\n");
	tc_expect("replay %T/pxbad.csv --policy pollux --cluster "
		  "1x2:a100-80gb", 2, "pxbad.csv:3:", "noise_scale");
	tc_expect("replay %T/pxcli.csv --policy pollux --cluster "
		  "1x2:a100-80gb --param restart_s=-1", 2, "restart_s", NULL);
}

TEST_REGISTER(elastic)
{
	static const struct test_case cases[] = {
		{ "the goodput model by hand", test_goodput },
		{ "world_resize refuses and leaves the job as it was",
		  test_resize_refusals },
		{ "world_resize keeps the work and pays the restart",
		  test_resize_conserves },
		{ "pollux: allocations and ends by hand", test_pollux_hand },
		{ "pollux: invariants on a mixed trace",
		  test_pollux_invariants },
		{ "pollux from the command line", test_pollux_cli },
		{ NULL, NULL }
	};
	return test_add_suite("elastic", cases);
}
