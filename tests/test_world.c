/*
** test_world.c: the world's semantics on hand-computed cases: exclusive
** FIFO, time-slicing, SRTF preemption, memory refusal, impossible jobs,
** inference batching with and without a timeout, determinism; a GPU mode
** switch at run time, a stop at the horizon, sm and hbm utilisation by
** hand, and the world's use of the GPU model through a probe policy
** (oversubscription, an MPS share change, world_preempt of a service).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"
#define ONE_GPU "1x1:" DEV

/* Runs body under policy on one GPU; asserts success. */
static int run1(const char *name, const char *body, const char *policy,
		const char *params, struct run_result *res)
{
	struct sim_err err = { 0, "" };
	const char *path = tw_write(name, body);
	int rc;

	run_result_init(res);
	rc = tw_run(path, policy, ONE_GPU, 1, params, res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s/%s: %s\n", name, policy, err.msg);
	return rc;
}

static double jct(const struct run_result *r, const char *id)
{
	const struct res_job *j = tw_job(r, id);
	return j ? j->jct_s : -999;
}

/* Three jobs on one GPU, exclusive FIFO: A 0-10, B 10-30, C 30-60. */
static void test_exclusive_fifo(void)
{
	struct run_result r;

	CU_ASSERT_EQUAL_FATAL(run1("fifo.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,1,resnet50,32,,20,,,,1,,1000,,,,,,\n"
		"C,train,2,resnet50,32,,30,,,,1,,1000,,,,,,\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 29, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "C"), 58, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "queue_delay_mean_s"),
			       (0 + 9 + 28) / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jct_mean_s"),
			       (10 + 29 + 58) / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 3, 0);
	/* slowdown = JCT / solo: 1, 29/20, 58/30 */
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slowdown_mean"),
			       (1 + 29.0 / 20 + 58.0 / 30) / 3, 1e-9);
	/* the GPU held 1000 MiB over the whole makespan */
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "hbm_util_mean"),
			       1000.0 * 1048576 / 85899345920.0, 1e-9);
	/* SJF: same here, since they arrive in the order of their sizes */
	run_result_fini(&r);
}

/* Two jobs time-sliced: each runs at s until the short one ends at 10/s;
** the long one has 10 s left, alone at speed 1.  With the duty-cycle
** model s is the closed form of two identical tenants (tests/util.h)
** whose busy parts run at 1 alone and T(2) / (1 + k bw) together, T(2) =
** (1/2) q / (q + c); before it, every job was always busy and s = T(2). */
static void test_timeslice(void)
{
	struct dev_profile d;
	struct sim_err err = { 0, "" };
	struct run_result r;
	struct gpu_work_profile p;
	double q, c, s;

	CU_ASSERT_EQUAL_FATAL(dev_load_file("models/devices/" DEV ".ini", &d,
					    &err), 0);
	q = (double)d.ts_quantum_ns;
	c = (double)d.ts_switch_ns;
	wl_train_profile(zoo_find("resnet50"), &d, 32, WL_PREC_FP32, &p);
	CU_ASSERT_FATAL(p.duty > 0 && p.duty < 1);
	s = test_duty_pair_speed(p.duty, 1.0, 0.5 * q / (q + c) /
				 (1 + d.ts_mem_contention_k * p.bw_frac));
	CU_ASSERT_EQUAL_FATAL(run1("ts.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,20,,,,1,,1000,,,,,,\n",
		"timeslice", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10 / s, 2e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 10 / s + 10, 2e-9);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "makespan_s"), 10 / s + 10,
			       2e-9);
	run_result_fini(&r);
	/* Too large to share 80 GB: they run one after the other. */
	CU_ASSERT_EQUAL_FATAL(run1("ts-big.csv",
		"A,train,0,resnet50,32,,10,,,,1,,51200,,,,,,\n"
		"B,train,0,resnet50,32,,20,,,,1,,51200,,,,,,\n",
		"timeslice", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "A"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 30, 1e-9);
	run_result_fini(&r);
}

/* SRTF: S (10 s) arrives at 5 while L (100 s) runs: L is preempted, S runs
** 5-15, L resumes with 95 s left and ends at 110.  FIFO: S waits to 100. */
static void test_srtf_preempts(void)
{
	static const char body[] =
		"L,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"S,train,5,resnet50,32,,10,,,,1,,1000,,,,,,\n";
	struct run_result r;

	CU_ASSERT_EQUAL_FATAL(run1("srtf.csv", body, "exclusive",
				   "order=srtf", &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "S"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "L"), 110, 1e-9);
	run_result_fini(&r);
	CU_ASSERT_EQUAL_FATAL(run1("srtf.csv", body, "exclusive",
				   "order=fifo", &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "S"), 105, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "L"), 100, 1e-9);
	run_result_fini(&r);
}

/* A job wanting 2 GPUs on a 1-GPU cluster fails; the others run. */
static void test_impossible_fails(void)
{
	struct run_result r;
	const struct res_job *j;

	CU_ASSERT_EQUAL_FATAL(run1("fail.csv",
		"A,train,0,resnet50,32,,10,,,,2,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"C,train,0,resnet50,32,,10,,,,1,,99999999,,,,,,\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_failed"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	j = tw_job(&r, "A");
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(j->status, 1);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "B"), 10, 1e-9);
	run_result_fini(&r);
}

/* Writes an arrival file with three requests at t = 0. */
static void three_requests(void)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/req3.txt", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("0\n0\n0\n", f);
	fclose(f);
}

/* Batch latency L(b) of resnet50 on the device, in ms. */
static double lat_ms(int b)
{
	static struct dev_profile d;
	struct sim_err err = { 0, "" };

	if (d.name[0] == '\0' &&
	    dev_load_file("models/devices/" DEV ".ini", &d, &err) != 0)
		return NAN;
	return sim_time_to_ms(wl_infer_batch_ns(zoo_find("resnet50"), &d, b));
}

/* No timeout: request 1 starts a batch alone; 2 and 3 follow as a batch. */
static void test_batching(void)
{
	struct run_result r;
	double l1 = lat_ms(1), l2 = lat_ms(2), l3 = lat_ms(3);

	three_requests();
	CU_ASSERT_EQUAL_FATAL(run1("svc.csv",
		"S,infer,0,resnet50,4,,,,,,1,,2000,,1000,file,,req3.txt,0\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_total"), 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "requests_served"), 3, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p50_ms"), l1 + l2,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p99_ms"), l1 + l2,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slo_attainment"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done"), 1, 0);
	run_result_fini(&r);
	/* A 5 ms timeout: one batch of three at 5 ms. */
	CU_ASSERT_EQUAL_FATAL(run1("svc-to.csv",
		"S,infer,0,resnet50,4,,,,,,1,,2000,,1000,file,,req3.txt,5\n",
		"exclusive", NULL, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p50_ms"), 5 + l3,
			       1e-6);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "latency_p99_ms"), 5 + l3,
			       1e-6);
	run_result_fini(&r);
	/* An SLO between the two latencies of the first case: 1 of 3 met. */
	{
		char body[256];
		snprintf(body, sizeof body, "S,infer,0,resnet50,4,,,,,,1,,2000,"
			 ",%.6f,file,,req3.txt,0\n", (l1 + (l1 + l2)) / 2);
		CU_ASSERT_EQUAL_FATAL(run1("svc-slo.csv", body, "exclusive",
					   NULL, &r), 0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "slo_attainment"),
				       1.0 / 3, 1e-12);
		run_result_fini(&r);
	}
}

static void test_bad_inputs(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	const char *path = tw_write("ok.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n");

	run_result_init(&r);
	CU_ASSERT_EQUAL(tw_run(path, "nosuch", ONE_GPU, 1, NULL, &r, &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exclusive"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", "1x1:nosuchgpu", 1, NULL,
			       &r, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nosuchgpu"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", "1x0:" DEV, 1, NULL, &r,
			       &err), SIM_ERANGE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", ONE_GPU, 1, "colour=red",
			       &r, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "colour"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(path, "exclusive", ONE_GPU, 1, "order=lifo",
			       &r, &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_NOT_EQUAL(tw_run("/nonexistent/t.csv", "exclusive", ONE_GPU,
				   1, NULL, &r, &err), 0);
	run_result_fini(&r);
}

/* least-loaded (timeslice's default) for a job wider than 64 GPUs: the
** 70 empty GPUs, not the 10 busy ones first (it used to fall back to
** first-fit past 64 GPUs). */
static void test_wide_job_spreads(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	char body[2048];
	size_t n = 0;
	int k;

	for (k = 0; k < 10; k++)
		n += (size_t)snprintf(body + n, sizeof body - n,
			"J%d,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n", k);
	snprintf(body + n, sizeof body - n,
		 "W,train,1,resnet50,32,,10,,,,70,,1000,,,,,,\n");
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(tw_write("wide.csv", body), "timeslice",
				     "10x8:" DEV, 1, NULL, &r, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw_job(&r, "W"));
	CU_ASSERT_EQUAL(tw_job(&r, "W")->first_gpu, 10);
	CU_ASSERT_DOUBLE_EQUAL(jct(&r, "W"), 10, 1e-9);
	run_result_fini(&r);
}

/* ---- run-time mode switches and the horizon --------------------------- */

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
	.iVersion = 1,                /* reads sim/world/world.h directly */
	.zName = "test-switcher",
	.zDesc = "switches mode at run time",
	.szState = sizeof(struct switcher),
	.xSchedule = sw_schedule
};

/* world_set_gpu_mode after t = 0 used to forget the GPU's utilisation
** history (review 1): the switch must keep it.  Under the switcher, A
** (1000 MiB, 10 s) runs exclusively, then B (3000 MiB, 10 s) time-sliced. */
static void test_mode_switch_keeps_history(void)
{
	struct tw_world t;
	struct world_config cfg = tw_config(&switcher_ops);
	struct sim_err err = { 0, "" };
	const char *path = tw_write("switch.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,10,,,,1,,3000,,,,,,\n");
	double cap;

	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, path, "1x1:" DEV, &cfg, NULL),
			      0);
	CU_ASSERT_EQUAL(world_gpu(t.w, 0)->mode, GPU_MODE_TIMESLICE);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "makespan_s"), 20, 1e-9);
	/* 1000 MiB for 10 s, then 3000 MiB for 10 s, over 20 s */
	cap = (double)t.cl.groups[0].dev->hbm_bytes;
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "hbm_util_mean"),
			       2000.0 * 1048576 / cap, 1e-9);
	/* the SM history matches exclusive FIFO, which runs the same two
	** jobs back to back without a switch */
	{
		struct run_result ex;
		run_result_init(&ex);
		CU_ASSERT_EQUAL_FATAL(tw_run(path, "exclusive", "1x1:" DEV, 1,
					     NULL, &ex, &err), 0);
		CU_ASSERT(run_result_get(&ex, "sm_util_mean") > 0.1);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "sm_util_mean"),
				       run_result_get(&ex, "sm_util_mean"),
				       1e-9);
		run_result_fini(&ex);
	}
	tw_close(&t);
}

/* --horizon stops a run with work in flight: the unfinished jobs are
** reported, and destroying the world touches no freed memory.  (Review 1:
** world_destroy freed the placed jobs' tenants before gpu_fini walked the
** GPUs' lists, a use after free on every horizon or budget stop with work
** in flight, shown by make SANITIZE=1 check; fixed in that order.) */
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

	a = tw_sim_args(path, "timeslice", "1x4:" DEV, 1);
	a.horizon_ns = sim_time_from_s(50);
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
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct tw_world r;
	struct {
		const char *name, *policy;
		double v, sm_a;         /* A's speed; busy SMs while both run */
	} row[2];
	double q, c, t1, t2;
	int k;

	d = tw_train_profile(&cat, "a100-80gb", "resnet50", 32, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_FATAL(p.sat > 0.5 && 2 * p.bw_frac <= 1);

	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	row[0].name = "util_ts.csv";
	row[0].policy = "timeslice";
	row[0].v = test_duty_pair_speed(p.duty, 1.0, q / (2 * (q + c)) /
					(1 + d->ts_mem_contention_k *
					 p.bw_frac));
	row[0].sm_a = 2 * p.duty * row[0].v * p.sat;
	row[1].name = "util_mps.csv";
	row[1].policy = "mps";
	row[1].v = test_duty_pair_speed(p.duty, 1.0, 1.0 /
		(fmax(p.sat / 0.5, (1 - p.alpha) / p.alpha *
		      fmax(1.0, 2 * p.bw_frac)) * (1 + d->mps_contention_k)));
	row[1].sm_a = 2 * p.duty * row[1].v * p.sat;
	for (k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL_FATAL(tw_go(&r, row[k].name, body,
					    pol_find(row[k].policy),
					    "1x1:a100-80gb", NULL), 0);
		t1 = ceil(100e9 / row[k].v) / 1e9;
		t2 = t1 + 100;
		TEST_ASSERT_CLOSE(tw_end_s(&r, "A"), t1, 1e-9);
		TEST_ASSERT_CLOSE(tw_end_s(&r, "B"), t2, 1e-6);
		TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
				  (row[k].sm_a * t1 + p.duty * p.sat *
				   (t2 - t1)) / t2, 1e-6);
		TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
				  (30000.0 * t1 + 20000.0 * (t2 - t1)) / t2 /
				  81920.0, 1e-6);
		tw_close(&r);
	}
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
	.iVersion = 1,                /* hand-read parameters, world.h */
	.zName = "probe",
	.zDesc = "test probe",
	.szState = sizeof(struct probe),
	.xInit = probe_init,
	.xOnTimer = probe_timer,
	.xSchedule = probe_schedule
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
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct tw_world r;
	double q, c, P, v, t1, t2;

	d = tw_train_profile(&cat, "a100-80gb", "resnet50", 32, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	P = p.bw_frac * (d->hbm_bw_bytes_per_s / d->uvm_bytes_per_s) *
		(18080.0 / 100000.0);
	v = test_duty_pair_speed(p.duty, 1.0 / (1 + P), q / (2 * (q + c)) /
				 (1 + d->ts_mem_contention_k * p.bw_frac + P));
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "oversub.csv",
		"A,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"B,train,0,resnet50,32,,200,,,,1,,50000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice,oversub=1"), 0);
	t1 = ceil(100e9 / v) / 1e9;
	t2 = t1 + 100;
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 0, 0);
	TEST_ASSERT_CLOSE(tw_end_s(&r, "A"), t1, 1e-9);
	TEST_ASSERT_CLOSE(tw_end_s(&r, "B"), t2, 1e-6);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "hbm_util_mean"),
			  (1.0 * t1 + 50000.0 / 81920.0 * (t2 - t1)) / t2,
			  1e-6);
	CU_ASSERT_EQUAL(world_gpu(r.w, 0)->mem_peak_bytes,
			100000ULL << 20);
	tw_close(&r);

	/* without oversubscription B waits for A */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "nooversub.csv",
		"A,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"B,train,0,resnet50,32,,200,,,,1,,50000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-9);
	tw_close(&r);
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
	const struct dev_profile *d;
	struct gpu_work_profile p;
	struct tw_world r;
	double v;

	d = tw_train_profile(&cat, "a100-80gb", "resnet50", 32, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	v = 1.0 / ((1 - p.duty) + p.duty *
		   fmax(p.sat / 0.3, (1 - p.alpha) / p.alpha));
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "share.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10000,,,,,,\n",
		&probe_ops, "1x1:a100-80gb", "mode=mps,at_s=10,share=0.3"), 0);
	TEST_ASSERT_CLOSE(tw_end_s(&r, "A"), 10 + ceil(90e9 / v) / 1e9, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&r.res, "sm_util_mean"),
			  (p.duty * p.sat * 10 + p.duty * v * p.sat *
			   (tw_end_s(&r, "A") - 10)) / tw_end_s(&r, "A"),
			  1e-9);
	tw_close(&r);
	dev_catalog_fini(&cat);
}

/* A service cannot be preempted, even mid-batch: world_preempt refuses
** with SIM_ESTATE and every request is still served. */
static void test_service_not_preempted(void)
{
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "svcpre.csv",
		"S,infer,0,resnet50,8,,20,,,,1,,2000,,100,poisson,200,,2\n",
		&probe_ops, "1x1:a100-80gb", "mode=timeslice,at_s=10"), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "probe_preempt_rc"),
			       SIM_ESTATE, 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "S")->state, JOB_DONE);
	CU_ASSERT_EQUAL(tw_wjob(&r, "S")->preemptions, 0);
	CU_ASSERT(run_result_get(&r.res, "requests_total") > 3000);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "requests_served"),
			       run_result_get(&r.res, "requests_total"), 0);
	tw_close(&r);
}


TEST_REGISTER(world)
{
	static const struct test_case cases[] = {
		{ "exclusive FIFO by hand", test_exclusive_fifo },
		{ "timeslice by hand", test_timeslice },
		{ "SRTF preempts the long job", test_srtf_preempts },
		{ "impossible jobs fail", test_impossible_fails },
		{ "dynamic batching and timeout", test_batching },
		{ "bad policy, cluster, params, trace", test_bad_inputs },
		{ "a job wider than 64 GPUs spreads", test_wide_job_spreads },
		{ "a GPU mode switch keeps utilisation history",
		  test_mode_switch_keeps_history },
		{ "a horizon stop reports unfinished work",
		  test_horizon_stop },
		{ "sm and hbm utilisation by hand", test_util_by_hand },
		{ "oversubscription pages and counts HBM full",
		  test_oversub_paging },
		{ "a share change reschedules the completion",
		  test_share_change_reschedules },
		{ "a service is never preempted",
		  test_service_not_preempted },
		{ NULL, NULL }
	};
	return test_add_suite("world", cases);
}
