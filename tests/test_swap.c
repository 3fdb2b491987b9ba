/*
** test_swap.c: swapping (sim/world/world_swap.c) on hand-computed cases: the
** cost of a swap out and in on a V100-16GB (bytes / the profile's pinned
** PCIe rates + latency), memory held while a copy is in flight and freed
** after, refusals that leave the world unchanged, two copies sharing one
** host link max-min, world_preempt at a cost (preempt_cost = swap) under
** SRTF, the baselines' on_full = swap, and every registered policy under
** preempt_cost = swap on the reference traces with the conformance
** invariants; where swapping meets placement and the pool (a swapped job
** offered no GPUs, a horizon with a swap copy and a pool load in flight).
*/
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/link.h"
#include "models/cluster.h"
#include "models/zoo.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Opens a world on body under ops with this suite's settings: tw_config's,
** an event budget of 5,000,000 and preempt_cost. */
static int sw_open(struct tw_world *s, const char *name, const char *body,
		   const struct pol_ops *ops, const char *cluster,
		   const char *params, int preempt_cost)
{
	struct world_config cfg = tw_config(ops);

	cfg.max_events = 5000000;
	cfg.preempt_cost = preempt_cost;
	return tw_open(s, tw_write(name, body), cluster, &cfg, params);
}

static const struct dev_profile *v100(const struct tw_world *s)
{
	return dev_catalog_find(&s->cat, "v100-16gb");
}

/* The cost of copying bytes over the V100's host link alone. */
static sim_time v100_d2h_ns(const struct tw_world *s, double bytes)
{
	return link_transfer_ns(bytes, v100(s)->d2h_pinned_bytes_per_s,
				v100(s)->pcie_latency_ns);
}

static sim_time v100_h2d_ns(const struct tw_world *s, double bytes)
{
	return link_transfer_ns(bytes, v100(s)->h2d_pinned_bytes_per_s,
				v100(s)->pcie_latency_ns);
}

#define ASSERT_NS(a, b) CU_ASSERT(llabs((long long)(a) - (long long)(b)) <= 2)

/* ---- a probe policy ------------------------------------------------------ */

/* Time-slices every GPU; places pending jobs first-fit by memory, except
** swapped ones: those wait until `hold_s` (a timer) and then go to GPU
** `back_gpu`, through world_swap_in (or world_place when `via_place`). */
struct probe {
	double hold_s;
	long back_gpu, via_place;
};

static int probe_place(struct world *w, const struct probe *pr)
{
	int k = 0;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k), g, rc = -1;
		const struct world_job *job = world_job(w, j);

		if (job->swapped) {
			int bg = (int)pr->back_gpu;
			if (sim_time_to_s(world_now(w)) < pr->hold_s) {
				k++;
				continue;
			}
			rc = pr->via_place ? world_place(w, j, &bg, 1, NULL,
							 NULL) :
				world_swap_in(w, j, &bg, 1, NULL, NULL);
		} else {
			for (g = 0; g < world_ngpus(w) && rc != 0; g++)
				rc = world_place(w, j, &g, 1, NULL, NULL);
		}
		if (rc != 0)
			k++;
	}
	return 0;
}

static int probe_init(struct world *w, void *state,
		      const struct pol_params *p, struct sim_err *err)
{
	static const char *const keys[] = { "hold_s", "back_gpu",
					    "via_place", NULL };
	struct probe *pr = state;
	int g, rc;

	if ((rc = pol_params_check(p, "swapprobe", keys, err)) != 0 ||
	    (rc = pol_param_double(p, "hold_s", 0, 1e6, &pr->hold_s,
				   err)) != 0 ||
	    (rc = pol_param_int(p, "back_gpu", 0, 7, &pr->back_gpu,
				err)) != 0 ||
	    (rc = pol_param_int(p, "via_place", 0, 1, &pr->via_place,
				err)) != 0)
		return rc;
	for (g = 0; g < world_ngpus(w); g++)
		if ((rc = world_set_gpu_mode(w, g, GPU_MODE_TIMESLICE,
					     err)) != 0)
			return rc;
	if (pr->hold_s > 0)
		return world_set_timer(w, sim_time_from_s(pr->hold_s), 1, err);
	return 0;
}

static int probe_schedule(struct world *w, void *state)
{
	return probe_place(w, state);
}

static int probe_timer(struct world *w, void *state, uint64_t tag)
{
	(void)tag;
	return probe_place(w, state);
}

static const struct pol_ops probe_ops = {
	.iVersion = 1,                /* hand-read parameters, world.h */
	.zName = "swapprobe",
	.zDesc = "test probe",
	.szState = sizeof(struct probe),
	.xInit = probe_init,
	.xOnTimer = probe_timer,
	.xSchedule = probe_schedule
};

/* ---- hand-computed cases ------------------------------------------------- */

/* A (10 GiB, 100 s) alone on a V100-16GB, swapped out at 10 s: the copy
** takes T_out = latency + 10 GiB / d2h_pinned (0.894794853 s at 12 GB/s
** and 10 us) with the memory held and no progress; then A waits in the
** queue until 30 s, is swapped back in (T_in = latency + 10 GiB / h2d)
** and runs its last 90 s.  Its JCT: 100 + T_out + wait + T_in, wait =
** 30 - (10 + T_out). */
static void test_swap_cost(void)
{
	struct tw_world s;
	sim_time t_out, t_in, t0 = sim_time_from_s(10);
	const struct world_job *a;
	int j;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapcost.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10240,,,,,,\n",
		&probe_ops, "1x1:v100-16gb", "hold_s=30", 0), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	/* the figures of the profile, as docs/MODEL.md quotes them */
	CU_ASSERT_EQUAL(t_out, 10000 + (sim_time)ceil(10 * GIB / 12e9 * 1e9));
	tw_until(&s, t0);
	j = tw_find(&s, "A");
	a = world_job(s.w, j);
	CU_ASSERT_EQUAL_FATAL(a->state, JOB_RUNNING);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_swap_out(s.w, j, NULL), 0);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(a->swaps, 1);
	CU_ASSERT_DOUBLE_EQUAL(a->frac_left, 0.9, 1e-12);
	/* mid-copy: memory held, no progress, nothing busy */
	tw_until(&s, t0 + t_out / 2);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 0);
	CU_ASSERT_DOUBLE_EQUAL(world_job_remaining_ns(s.w, j, 0), 90e9, 1);
	CU_ASSERT_EQUAL(world_npending(s.w), 0);
	/* just before the end of the copy, and at it */
	tw_until(&s, t0 + t_out - 1);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	tw_until(&s, t0 + t_out);
	CU_ASSERT_EQUAL(a->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(a->swapped, 1);
	CU_ASSERT_EQUAL(a->nplaced, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->ntenants, 0);
	CU_ASSERT_EQUAL(world_npending(s.w), 1);
	CU_ASSERT_EQUAL(world_pending_at(s.w, 0), j);
	/* swapped in at 30 s: memory held again, still no progress */
	tw_until(&s, sim_time_from_s(30) + t_in / 2);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(a->swapped, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 0);
	CU_ASSERT_EQUAL(world_npending(s.w), 0);
	tw_until(&s, sim_time_from_s(30) + t_in);
	CU_ASSERT_EQUAL(a->state, JOB_RUNNING);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 1);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	a = world_job(s.w, j);
	CU_ASSERT_EQUAL(a->state, JOB_DONE);
	ASSERT_NS(a->end_ns, sim_time_from_s(30) + t_in + sim_time_from_s(90));
	ASSERT_NS(a->end_ns - a->submit_ns,
		  sim_time_from_s(100) + t_out + t_in +
		  (sim_time_from_s(30) - (t0 + t_out)));
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_out"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_in"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swap_gib"), 20, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swap_out_s"),
			       (double)t_out / 1e9, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swap_in_s"),
			       (double)t_in / 1e9, 1e-12);
	tw_close(&s);
}

/* Swapped out of GPU 0, swapped back in on GPU 1 through world_place
** (which swaps a swapped job in): GPU 0 ends empty, GPU 1 holds A. */
static void test_swap_in_elsewhere(void)
{
	struct tw_world s;
	sim_time t_out, t_in;
	int j;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapother.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10240,,,,,,\n",
		&probe_ops, "1x2:v100-16gb", "hold_s=20,back_gpu=1,via_place=1",
		0), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	tw_until(&s, sim_time_from_s(10));
	j = tw_find(&s, "A");
	CU_ASSERT_EQUAL_FATAL(world_job(s.w, j)->gpu_ids[0], 0);
	CU_ASSERT_EQUAL(world_swap_out(s.w, j, NULL), 0);
	tw_until(&s, sim_time_from_s(20));
	CU_ASSERT_EQUAL(world_job(s.w, j)->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(world_job(s.w, j)->gpu_ids[0], 1);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 1)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	ASSERT_NS(world_job(s.w, j)->end_ns,
		  sim_time_from_s(20) + t_in + sim_time_from_s(90));
	CU_ASSERT(t_out < sim_time_from_s(10));
	tw_close(&s);
}

/* Two jobs (6 GiB each) time-sliced on one V100 swapped out at the same
** instant share its D2H link max-min: each copy drains at half the rate,
** so both end at latency + 12 GiB / d2h_pinned. */
static void test_two_copies_share_link(void)
{
	struct tw_world s;
	sim_time t0 = sim_time_from_s(5), both;
	int a, b;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapshare.csv",
		"A,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n",
		&probe_ops, "1x1:v100-16gb", "hold_s=50", 0), 0);
	both = v100_d2h_ns(&s, 12 * GIB);
	tw_until(&s, t0);
	a = tw_find(&s, "A");
	b = tw_find(&s, "B");
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, NULL), 0);
	CU_ASSERT_EQUAL(world_swap_out(s.w, b, NULL), 0);
	tw_until(&s, t0 + both - 3);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 12ULL << 30);
	tw_until(&s, t0 + both + 2);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	/* both back in arrival order */
	CU_ASSERT_EQUAL(world_pending_at(s.w, 0), a);
	CU_ASSERT_EQUAL(world_pending_at(s.w, 1), b);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_DONE);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_DONE);
	tw_close(&s);
}

/* A run stopped with copies in flight (the horizon): the results count
** the jobs as unfinished, and the world frees its copies and links (the
** sanitizers check). */
static void test_stop_mid_copy(void)
{
	struct tw_world s;
	struct sim_err e = { 0, "" };
	int a, b;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapstop.csv",
		"A,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n",
		&probe_ops, "1x2:v100-16gb", "hold_s=1", 0), 0);
	tw_until(&s, sim_time_from_s(5));
	a = tw_find(&s, "A");
	b = tw_find(&s, "B");
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, NULL), 0);
	tw_until(&s, sim_time_from_s(6));
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(world_swap_out(s.w, b, NULL), 0);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_results(s.w, &s.res, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "jobs_unfinished"), 2,
			       0);
	tw_close(&s);
}

/* Refusals: each leaves the world as it was. */
static void test_refusals(void)
{
	struct tw_world s;
	struct sim_err e = { 0, "" };
	int a, big, svc, g0 = 0, two[2] = { 0, 0 };

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swaprefuse.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10240,,,,,,\n"
		"S,infer,0,resnet50,8,,20,,,,1,,1024,,100,poisson,10,,2\n"
		"BIG,train,1,resnet50,32,,100,,,,1,,15000,,,,,,\n",
		&probe_ops, "1x1:v100-16gb", "hold_s=1000", 0), 0);
	tw_until(&s, sim_time_from_s(2));
	a = tw_find(&s, "A");
	svc = tw_find(&s, "S");
	big = tw_find(&s, "BIG");
	CU_ASSERT_EQUAL_FATAL(world_job(s.w, a)->state, JOB_RUNNING);
	CU_ASSERT_EQUAL_FATAL(world_job(s.w, big)->state, JOB_PENDING);
	CU_ASSERT_EQUAL(world_swap_out(s.w, 99, &e), SIM_EINVAL);
	CU_ASSERT_EQUAL(world_swap_out(s.w, -1, &e), SIM_EINVAL);
	e.code = 0;
	CU_ASSERT_EQUAL(world_swap_out(s.w, svc, &e), SIM_ESTATE);
	CU_ASSERT(strstr(e.msg, "service") != NULL);
	e.code = 0;
	CU_ASSERT_EQUAL(world_swap_out(s.w, big, &e), SIM_ESTATE);
	CU_ASSERT(strstr(e.msg, "not running") != NULL);
	CU_ASSERT_EQUAL(world_swap_in(s.w, a, &g0, 1, NULL, &e), SIM_ESTATE);
	CU_ASSERT_EQUAL(world_swap_in(s.w, big, &g0, 1, NULL, &e), SIM_ESTATE);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_RUNNING);
	/* a copy in flight */
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, &e), 0);
	e.code = 0;
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, &e), SIM_ESTATE);
	CU_ASSERT(strstr(e.msg, "in flight") != NULL);
	CU_ASSERT_EQUAL(world_preempt(s.w, a, &e), SIM_ESTATE);
	CU_ASSERT_EQUAL(world_set_share(s.w, a, 0.5, &e), SIM_ESTATE);
	CU_ASSERT_EQUAL(world_swap_in(s.w, a, &g0, 1, NULL, &e), SIM_ESTATE);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_SWAPPING_OUT);
	/* swapped (the probe holds it until 1000 s); BIG takes the GPU */
	tw_until(&s, sim_time_from_s(4));
	CU_ASSERT_EQUAL_FATAL(world_job(s.w, a)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_job(s.w, big)->state, JOB_RUNNING);
	/* no room, wrong GPU count, bad GPU: refused, still swapped */
	CU_ASSERT_EQUAL(world_swap_in(s.w, a, &g0, 1, NULL, &e), SIM_ENOSPC);
	CU_ASSERT_EQUAL(world_swap_in(s.w, a, two, 2, NULL, &e), SIM_EINVAL);
	two[0] = 7;
	CU_ASSERT_EQUAL(world_swap_in(s.w, a, two, 1, NULL, &e), SIM_EINVAL);
	CU_ASSERT_EQUAL(world_place(s.w, a, &g0, 1, NULL, &e), SIM_ENOSPC);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_job(s.w, a)->swapped, 1);
	CU_ASSERT_EQUAL(world_job(s.w, a)->nplaced, 0);
	CU_ASSERT_EQUAL(world_npending(s.w), 1);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used,
			15000ULL * 1048576 + (1024ULL << 20));
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_DONE);
	tw_close(&s);
}

/* preempt_cost = swap under exclusive SRTF: A (1000 s, 10 GiB) alone; B
** (100 s, 10 GiB) arrives at 10 s.  Free: B 10-110, A ends at 1100.  At a
** cost: A swaps out (T_out), B runs 10 + T_out .. 110 + T_out, A swaps
** back in (T_in) and ends at 1100 + T_out + T_in. */
static void test_preempt_cost(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,1000,,,,1,,10240,,,,,,\n"
		"B,train,10,resnet50,32,,100,,,,1,,10240,,,,,,\n";
	struct tw_world s;
	sim_time t_out, t_in;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "pcfree.csv", body,
		pol_find("exclusive"), "1x1:v100-16gb", "order=srtf", 0), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	ASSERT_NS(tw_wjob(&s, "B")->end_ns, sim_time_from_s(110));
	ASSERT_NS(tw_wjob(&s, "A")->end_ns, sim_time_from_s(1100));
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->preemptions, 1);
	/* the swap metrics exist only when something swapped */
	CU_ASSERT(isnan(run_result_get(&s.res, "swaps_out")));
	tw_close(&s);

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "pcswap.csv", body,
		pol_find("exclusive"), "1x1:v100-16gb", "order=srtf",
		WORLD_PREEMPT_SWAP), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	ASSERT_NS(tw_wjob(&s, "B")->start_ns, sim_time_from_s(10) + t_out);
	ASSERT_NS(tw_wjob(&s, "B")->end_ns, sim_time_from_s(110) + t_out);
	ASSERT_NS(tw_wjob(&s, "A")->end_ns,
		  sim_time_from_s(1100) + t_out + t_in);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->preemptions, 1);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->swaps, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_out"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_in"), 1, 0);
	tw_close(&s);
}

/* on_full = swap under timeslice: low-priority A (1000 s, 10 GiB) runs;
** high-priority H (100 s, 10 GiB) arrives at 10 s and does not fit: A is
** swapped out, H runs alone 10 + T_out .. 110 + T_out, A comes back (T_in)
** and ends at 1100 + T_out + T_in.  With on_full = wait (the default) H
** waits for A: 1000 .. 1100. */
static void test_on_full_swap(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,1000,,,,1,,10240,0,,,,,\n"
		"H,train,10,resnet50,32,,100,,,,1,,10240,1,,,,,\n";
	struct tw_world s;
	sim_time t_out, t_in;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullwait.csv", body,
		pol_find("timeslice"), "1x1:v100-16gb", NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	ASSERT_NS(tw_wjob(&s, "H")->start_ns, sim_time_from_s(1000));
	ASSERT_NS(tw_wjob(&s, "H")->end_ns, sim_time_from_s(1100));
	tw_close(&s);

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullswap.csv", body,
		pol_find("timeslice"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	ASSERT_NS(tw_wjob(&s, "H")->start_ns, sim_time_from_s(10) + t_out);
	ASSERT_NS(tw_wjob(&s, "H")->end_ns, sim_time_from_s(110) + t_out);
	ASSERT_NS(tw_wjob(&s, "A")->end_ns,
		  sim_time_from_s(1100) + t_out + t_in);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->swaps, 1);
	CU_ASSERT_EQUAL(tw_wjob(&s, "H")->swaps, 0);
	tw_close(&s);

	/* the victim is the lower-priority job with the most time left, and
	** only as many as make room: C (500 s) stays */
	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullpick.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,6144,0,,,,,\n"
		"C,train,0,resnet50,32,,500,,,,1,,6144,0,,,,,\n"
		"H,train,10,resnet50,32,,100,,,,1,,8192,1,,,,,\n",
		pol_find("mps"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->swaps, 1);
	CU_ASSERT_EQUAL(tw_wjob(&s, "C")->swaps, 0);
	CU_ASSERT_EQUAL(tw_wjob(&s, "H")->state, JOB_DONE);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->state, JOB_DONE);
	CU_ASSERT(tw_wjob(&s, "H")->start_ns > sim_time_from_s(10));
	CU_ASSERT(tw_wjob(&s, "H")->start_ns < sim_time_from_s(12));
	tw_close(&s);

	/* equal priorities: nothing is swapped */
	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullsame.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,10240,1,,,,,\n"
		"H,train,10,resnet50,32,,100,,,,1,,10240,1,,,,,\n",
		pol_find("timeslice"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&s), 0);
	CU_ASSERT_EQUAL(tw_wjob(&s, "A")->swaps, 0);
	ASSERT_NS(tw_wjob(&s, "H")->start_ns, sim_time_from_s(1000));
	tw_close(&s);
}

/* A bad on_full value is an error naming the key. */
static void test_on_full_param(void)
{
	struct run_result r;
	struct sim_err e = { 0, "" };
	const char *p = tw_write("fullbad.csv",
		"A,train,0,resnet50,32,,10,,,,1,,1024,,,,,,\n");

	run_result_init(&r);
	CU_ASSERT_NOT_EQUAL(tw_run(p, "timeslice", "1x1:v100-16gb", 1,
				   "on_full=maybe", &r, &e), 0);
	CU_ASSERT(strstr(e.msg, "on_full") != NULL);
	run_result_fini(&r);
}

/* ---- swapping where other features meet ------------------------------ */

/* A probe policy, first-fit on GPU 0 (services on GPU 1), that at 1 s
** either preempts the running job and then offers it back with no GPUs
** (`scn` = 1), or swaps the running training job out and starts loading
** BERT-Large into GPU 1's pool (`scn` = 2, GPU 1 in the pool), so that a
** horizon just after cuts both copies. */
struct swapadv {
	long scn;
};

enum {
	SCN_SWAP_PLACE0 = 1,   /* swapped job: place with 0 GPUs first */
	SCN_HORIZON = 2        /* swap copy + pool load in flight at stop */
};

static int adv_init(struct world *w, void *state, const struct pol_params *p,
		    struct sim_err *err)
{
	static const char *const keys[] = { "scn", NULL };
	struct swapadv *st = state;
	int rc;

	if ((rc = pol_params_check(p, "swapadv", keys, err)) != 0 ||
	    (rc = pol_param_int(p, "scn", 1, 2, &st->scn, err)) != 0)
		return rc;
	if (st->scn == SCN_HORIZON && (rc = world_pool_join(w, 1, err)) != 0)
		return rc;
	return world_set_timer(w, sim_time_from_s(1), 1, err);
}

static int adv_schedule(struct world *w, void *state)
{
	const struct swapadv *st = state;
	int k = 0, rc;

	while (k < world_npending(w)) {
		int j = world_pending_at(w, k), g;
		const struct world_job *job = world_job(w, j);
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

static int adv_timer(struct world *w, void *state, uint64_t tag)
{
	const struct swapadv *st = state;
	int j;

	(void)tag;
	for (j = 0; j < world_njobs(w); j++) {
		const struct world_job *job = world_job(w, j);
		if (st->scn == SCN_SWAP_PLACE0 && job->state == JOB_RUNNING)
			return world_preempt(w, j, NULL);
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

static const struct pol_ops swapadv_ops = {
	.iVersion = 1,                /* hand-read parameters, world.h */
	.zName = "swapadv",
	.zDesc = "swap meets place and pool",
	.szState = sizeof(struct swapadv),
	.xInit = adv_init,
	.xOnTimer = adv_timer,
	.xSchedule = adv_schedule
};

/* Runs body under the probe's scenario scn at preempt_cost = swap, up to
** horizon_s (0: none). */
static int adv_run(struct tw_world *t, const char *name, const char *body,
		   const char *cluster, int scn, double horizon_s)
{
	struct world_config cfg = tw_config(&swapadv_ops);
	char params[16];

	cfg.preempt_cost = WORLD_PREEMPT_SWAP;
	cfg.horizon_ns = horizon_s > 0 ? sim_time_from_s(horizon_s) : 0;
	snprintf(params, sizeof params, "scn=%d", scn);
	return tw_simulate(t, tw_write(name, body), cluster, &cfg, params);
}

/* A (100 s) is swapped out at 1 s (preempt_cost swap); the policy first
** offers it back with no GPUs: refused with SIM_EINVAL, then it is
** swapped in on GPU 0 and finishes.  (Review 3: world_place and
** world_swap_in of a swapped-out job with n < 1 GPUs recursed into each
** other until the stack overflowed; world_swap_in now refuses a wrong GPU
** count itself.) */
static void test_swap_place_no_gpus(void)
{
	struct tw_world r;
	int a;

	CU_ASSERT_EQUAL_FATAL(adv_run(&r, "swap-place0.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10000,,,,,,\n",
		"1x1:a100-80gb", SCN_SWAP_PLACE0, 0), 0);
	a = tw_find(&r, "A");
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r.res, "place0_rc"),
			       SIM_EINVAL, 0);
	CU_ASSERT_EQUAL(world_job(r.w, a)->state, JOB_DONE);
	CU_ASSERT_EQUAL(world_job(r.w, a)->preemptions, 1);
	CU_ASSERT(sim_time_to_s(world_job(r.w, a)->end_ns) > 100);
	tw_close(&r);
}

/* The horizon stops a run with a swap-out copy and a pool prefetch in
** flight: the results say so and nothing leaks (SANITIZE=1).  (Review 3:
** world__pool_fini freed the pool GPUs, which hold the link flows, before
** link_net_fini walked the flows: a heap use after free whenever a run
** stopped with a pool transfer in flight.) */
static void test_horizon_in_flight(void)
{
	struct tw_world r;
	int a;

	CU_ASSERT_EQUAL_FATAL(adv_run(&r, "swap-horizon.csv",
		"A,train,0,gpt2,8,,100,,,,1,,60000,,,,,,\n",
		"1x2:a100-80gb", SCN_HORIZON, 1.001), 0);
	a = tw_find(&r, "A");
	CU_ASSERT_EQUAL(world_job(r.w, a)->state, JOB_SWAPPING_OUT);
	/* 1: still loading when the run stopped */
	CU_ASSERT_EQUAL(world_pool_has_model(r.w, 1, zoo_find("bert-large")),
			1);
	tw_close(&r);
}

/* ---- every policy at a cost ----------------------------------------- */

/* Steps one world under pol at a cost (preempt_cost = swap, seed 7, no
** event budget) with the conformance invariants (tw_step_checked); returns
** the violations and adds the jobs' swaps + preemptions to *nswaps. */
static int run_checked(const char *trace, const struct pol_ops *pol,
		       const char *params, const char *cluster, int *nswaps)
{
	struct world_config cfg = tw_config(pol);
	struct tw_world s;
	int bad = 1;

	cfg.seed = 7;
	cfg.max_events = 0;
	cfg.preempt_cost = WORLD_PREEMPT_SWAP;
	if (tw_open(&s, trace, cluster, &cfg, params) == 0)
		bad = tw_step_checked(&s, nswaps);
	tw_close(&s);
	return bad;
}

static void test_every_policy_at_a_cost(void)
{
	glob_t gl;
	size_t t, i;
	int n = 0;

	CU_ASSERT_EQUAL_FATAL(glob("traces/ref/*.csv", 0, NULL, &gl), 0);
	for (t = 0; t < gl.gl_pathc; t++)
		for (i = 0; pol_registry[i] != NULL; i++)
			CU_ASSERT_EQUAL(run_checked(gl.gl_pathv[t],
						    pol_registry[i], NULL,
						    "2x4:a100-80gb", &n), 0);
	globfree(&gl);
}

/* The baselines with srtf and on_full = swap, at a cost, on a trace of
** mixed priorities on small GPUs (swaps happen). */
static void test_baselines_swapping(void)
{
	static const char *const pols[] = { "exclusive", "timeslice", "mps",
					    NULL };
	static const char *const params[] = { "order=srtf", "on_full=swap",
					      NULL };
	char body[4096];
	size_t n = 0;
	int i, k, nsw;
	const char *path;

	for (i = 0; i < 24; i++)
		n += (size_t)snprintf(body + n, sizeof body - n,
			"J%d,train,%d,resnet50,32,,%d,,,,%d,,%d,%d,,,,,\n",
			i, 5 * i, 50 + (i * 37) % 300, 1 + (i % 5 == 0),
			3000 + (i * 1237) % 9000, i % 3);
	path = tw_write("mixprio.csv", body);
	for (i = 0; pols[i] != NULL; i++)
		for (k = 0; params[k] != NULL; k++) {
			nsw = 0;
			CU_ASSERT_EQUAL(run_checked(path, pol_find(pols[i]),
						    params[k], "1x2:v100-16gb",
						    &nsw), 0);
			CU_ASSERT(nsw > 0);   /* the trace makes them swap */
		}
}

/* Muri at a swap cost re-packed every pass while a copy held GPUs: each
** re-pack swapped every running job out, each copy's end re-packed again
** (3.5 M swaps and 14 M events for the 120 jobs of bursty-rates, 64 s).
** A pack now waits for the copy (as qs_apply does): the swaps stay of the
** order of the policy's own preemptions. */
static void test_muri_swap_no_thrash(void)
{
	static const char *const pols[] = { "muri-s", "muri-l", NULL };
	struct world_config cfg;
	struct tw_world s;
	int i;

	for (i = 0; pols[i] != NULL; i++) {
		double out, jobs;
		cfg = tw_config(pol_find(pols[i]));
		cfg.preempt_cost = WORLD_PREEMPT_SWAP;
		CU_ASSERT_EQUAL_FATAL(tw_simulate(&s, "traces/ref/bursty-rates.csv",
						  "2x4:a100-80gb", &cfg, NULL), 0);
		out = run_result_get(&s.res, "swaps_out");
		jobs = run_result_get(&s.res, "jobs_total");
		CU_ASSERT(jobs == 120);
		CU_ASSERT(run_result_get(&s.res, "jobs_unfinished") == 0);
		/* muri-l's order (attained service) turns over and swaps
		** its jobs often (1,519 here); thrashing made it 29,000 per
		** job */
		CU_ASSERT(isnan(out) || out <= 20 * jobs);
		CU_ASSERT(run_result_get(&s.res, "events") < 100000);
		tw_close(&s);
	}
}

TEST_REGISTER(swap)
{
	static const struct test_case cases[] = {
		{ "swap out and in: hand-computed cost and JCT",
		  test_swap_cost },
		{ "muri at a swap cost: no re-pack while a copy holds GPUs",
		  test_muri_swap_no_thrash },
		{ "swap in on another GPU through world_place",
		  test_swap_in_elsewhere },
		{ "two copies share one host link", test_two_copies_share_link },
		{ "refusals leave the world unchanged", test_refusals },
		{ "a stop with copies in flight", test_stop_mid_copy },
		{ "preempt_cost = swap under SRTF", test_preempt_cost },
		{ "baselines' on_full = swap", test_on_full_swap },
		{ "on_full: bad value", test_on_full_param },
		{ "swapped job placed on no GPUs is refused",
		  test_swap_place_no_gpus },
		{ "horizon with copies and loads in flight",
		  test_horizon_in_flight },
		{ "every policy at a cost on the reference traces",
		  test_every_policy_at_a_cost },
		{ "baselines swapping on a mixed-priority trace",
		  test_baselines_swapping },
		{ NULL, NULL }
	};
	return test_add_suite("swap", cases);
}
