/*
** test_swap.c: swapping (sim/world/world_swap.c) on hand-computed cases: the
** cost of a swap out and in on a V100-16GB (bytes / the profile's pinned
** PCIe rates + latency), memory held while a copy is in flight and freed
** after, refusals that leave the world unchanged, two copies sharing one
** host link max-min, world_preempt at a cost (preempt_cost = swap) under
** SRTF, the baselines' on_full = swap, and every registered policy under
** preempt_cost = swap on the reference traces with the conformance
** invariants.
*/
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/link.h"
#include "models/cluster.h"
#include "sim/world/world_int.h"
#include "sim/world/world_swap.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* One world kept alive and stepped by the test. */
struct sw {
	struct dev_catalog cat;
	struct cluster_spec cl;
	struct world *w;
	struct run_result res;
	const struct dev_profile *v100;
};

static int sw_open(struct sw *s, const char *name, const char *body,
		   const struct pol_ops *ops, const char *cluster,
		   const char *params, int preempt_cost)
{
	struct world_config cfg;
	struct sim_err err = { 0, "" };
	struct pol_param pv[8];
	struct pol_params pp = { 0, pv };
	char buf[256];
	const char *path = tw_write(name, body);
	int rc;

	memset(s, 0, sizeof *s);
	memset(&cfg, 0, sizeof cfg);
	run_result_init(&s->res);
	pp.n = tw_params(params, buf, sizeof buf, pv, 8);
	rc = dev_catalog_load(&s->cat, "models/devices", &err);
	if (rc == 0) {
		s->v100 = dev_catalog_find(&s->cat, "v100-16gb");
		rc = cluster_parse(&s->cl, cluster, &s->cat, "cluster", &err);
	}
	if (rc == 0) {
		cfg.cluster = &s->cl;
		cfg.trace_path = path;
		cfg.policy = ops;
		cfg.params = &pp;
		cfg.seed = 1;
		cfg.max_events = 5000000;
		cfg.preempt_cost = preempt_cost;
		rc = world_create(&s->w, &cfg, &err);
	}
	if (rc != 0)
		fprintf(stderr, "\n  open %s: %s\n", name, err.msg);
	return rc;
}

/* Runs to the end and collects the results. */
static int sw_finish(struct sw *s)
{
	struct sim_err err = { 0, "" };
	int rc = world_run(s->w, &err);

	if (rc == 0)
		rc = world_results(s->w, &s->res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run: %s\n", err.msg);
	return rc;
}

static void sw_fini(struct sw *s)
{
	world_destroy(s->w);
	run_result_fini(&s->res);
	dev_catalog_fini(&s->cat);
}

/* Runs every event up to and including time t_ns. */
static void sw_until(struct sw *s, sim_time t_ns)
{
	sim_run(&s->w->sim, t_ns, 0);
}

static int sw_find(const struct sw *s, const char *id)
{
	int j;

	for (j = 0; j < world_njobs(s->w); j++)
		if (strcmp(world_job(s->w, j)->tj.id, id) == 0)
			return j;
	return -1;
}

static const struct world_job *sw_job(const struct sw *s, const char *id)
{
	return world_job(s->w, sw_find(s, id));
}

/* The cost of copying bytes over the V100's host link alone. */
static sim_time v100_d2h_ns(const struct sw *s, double bytes)
{
	return link_transfer_ns(bytes, s->v100->d2h_pinned_bytes_per_s,
				s->v100->pcie_latency_ns);
}

static sim_time v100_h2d_ns(const struct sw *s, double bytes)
{
	return link_transfer_ns(bytes, s->v100->h2d_pinned_bytes_per_s,
				s->v100->pcie_latency_ns);
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
	POL_IFACE_VERSION, "swapprobe", "test probe", sizeof(struct probe),
	probe_init, NULL, NULL, NULL, NULL, probe_timer, probe_schedule
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
	struct sw s;
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
	sw_until(&s, t0);
	j = sw_find(&s, "A");
	a = world_job(s.w, j);
	CU_ASSERT_EQUAL_FATAL(a->state, JOB_RUNNING);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_swap_out(s.w, j, NULL), 0);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(a->swaps, 1);
	CU_ASSERT_DOUBLE_EQUAL(a->frac_left, 0.9, 1e-12);
	/* mid-copy: memory held, no progress, nothing busy */
	sw_until(&s, t0 + t_out / 2);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 0);
	CU_ASSERT_DOUBLE_EQUAL(world_job_remaining_ns(s.w, j, 0), 90e9, 1);
	CU_ASSERT_EQUAL(world_npending(s.w), 0);
	/* just before the end of the copy, and at it */
	sw_until(&s, t0 + t_out - 1);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_OUT);
	sw_until(&s, t0 + t_out);
	CU_ASSERT_EQUAL(a->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(a->swapped, 1);
	CU_ASSERT_EQUAL(a->nplaced, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->ntenants, 0);
	CU_ASSERT_EQUAL(world_npending(s.w), 1);
	CU_ASSERT_EQUAL(world_pending_at(s.w, 0), j);
	/* swapped in at 30 s: memory held again, still no progress */
	sw_until(&s, sim_time_from_s(30) + t_in / 2);
	CU_ASSERT_EQUAL(a->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(a->swapped, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 0);
	CU_ASSERT_EQUAL(world_npending(s.w), 0);
	sw_until(&s, sim_time_from_s(30) + t_in);
	CU_ASSERT_EQUAL(a->state, JOB_RUNNING);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->nbusy, 1);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
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
	sw_fini(&s);
}

/* Swapped out of GPU 0, swapped back in on GPU 1 through world_place
** (which swaps a swapped job in): GPU 0 ends empty, GPU 1 holds A. */
static void test_swap_in_elsewhere(void)
{
	struct sw s;
	sim_time t_out, t_in;
	int j;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapother.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10240,,,,,,\n",
		&probe_ops, "1x2:v100-16gb", "hold_s=20,back_gpu=1,via_place=1",
		0), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	sw_until(&s, sim_time_from_s(10));
	j = sw_find(&s, "A");
	CU_ASSERT_EQUAL_FATAL(world_job(s.w, j)->gpu_ids[0], 0);
	CU_ASSERT_EQUAL(world_swap_out(s.w, j, NULL), 0);
	sw_until(&s, sim_time_from_s(20));
	CU_ASSERT_EQUAL(world_job(s.w, j)->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(world_job(s.w, j)->gpu_ids[0], 1);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	CU_ASSERT_EQUAL(world_gpu(s.w, 1)->mem_used, 10ULL << 30);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	ASSERT_NS(world_job(s.w, j)->end_ns,
		  sim_time_from_s(20) + t_in + sim_time_from_s(90));
	CU_ASSERT(t_out < sim_time_from_s(10));
	sw_fini(&s);
}

/* Two jobs (6 GiB each) time-sliced on one V100 swapped out at the same
** instant share its D2H link max-min: each copy drains at half the rate,
** so both end at latency + 12 GiB / d2h_pinned. */
static void test_two_copies_share_link(void)
{
	struct sw s;
	sim_time t0 = sim_time_from_s(5), both;
	int a, b;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapshare.csv",
		"A,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n",
		&probe_ops, "1x1:v100-16gb", "hold_s=50", 0), 0);
	both = v100_d2h_ns(&s, 12 * GIB);
	sw_until(&s, t0);
	a = sw_find(&s, "A");
	b = sw_find(&s, "B");
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, NULL), 0);
	CU_ASSERT_EQUAL(world_swap_out(s.w, b, NULL), 0);
	sw_until(&s, t0 + both - 3);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 12ULL << 30);
	sw_until(&s, t0 + both + 2);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_PREEMPTED);
	CU_ASSERT_EQUAL(world_gpu(s.w, 0)->mem_used, 0);
	/* both back in arrival order */
	CU_ASSERT_EQUAL(world_pending_at(s.w, 0), a);
	CU_ASSERT_EQUAL(world_pending_at(s.w, 1), b);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_DONE);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_DONE);
	sw_fini(&s);
}

/* A run stopped with copies in flight (the horizon): the results count
** the jobs as unfinished, and the world frees its copies and links (the
** sanitizers check). */
static void test_stop_mid_copy(void)
{
	struct sw s;
	struct sim_err e = { 0, "" };
	int a, b;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swapstop.csv",
		"A,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n"
		"B,train,0,resnet50,32,,100,,,,1,,6144,,,,,,\n",
		&probe_ops, "1x2:v100-16gb", "hold_s=1", 0), 0);
	sw_until(&s, sim_time_from_s(5));
	a = sw_find(&s, "A");
	b = sw_find(&s, "B");
	CU_ASSERT_EQUAL(world_swap_out(s.w, a, NULL), 0);
	sw_until(&s, sim_time_from_s(6));
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_SWAPPING_IN);
	CU_ASSERT_EQUAL(world_swap_out(s.w, b, NULL), 0);
	CU_ASSERT_EQUAL(world_job(s.w, b)->state, JOB_SWAPPING_OUT);
	CU_ASSERT_EQUAL(world_results(s.w, &s.res, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "jobs_unfinished"), 2,
			       0);
	sw_fini(&s);
}

/* Refusals: each leaves the world as it was. */
static void test_refusals(void)
{
	struct sw s;
	struct sim_err e = { 0, "" };
	int a, big, svc, g0 = 0, two[2] = { 0, 0 };

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "swaprefuse.csv",
		"A,train,0,resnet50,32,,100,,,,1,,10240,,,,,,\n"
		"S,infer,0,resnet50,8,,20,,,,1,,1024,,100,poisson,10,,2\n"
		"BIG,train,1,resnet50,32,,100,,,,1,,15000,,,,,,\n",
		&probe_ops, "1x1:v100-16gb", "hold_s=1000", 0), 0);
	sw_until(&s, sim_time_from_s(2));
	a = sw_find(&s, "A");
	svc = sw_find(&s, "S");
	big = sw_find(&s, "BIG");
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
	sw_until(&s, sim_time_from_s(4));
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
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	CU_ASSERT_EQUAL(world_job(s.w, a)->state, JOB_DONE);
	sw_fini(&s);
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
	struct sw s;
	sim_time t_out, t_in;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "pcfree.csv", body,
		pol_find("exclusive"), "1x1:v100-16gb", "order=srtf", 0), 0);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	ASSERT_NS(sw_job(&s, "B")->end_ns, sim_time_from_s(110));
	ASSERT_NS(sw_job(&s, "A")->end_ns, sim_time_from_s(1100));
	CU_ASSERT_EQUAL(sw_job(&s, "A")->preemptions, 1);
	/* the swap metrics exist only when something swapped */
	CU_ASSERT(isnan(run_result_get(&s.res, "swaps_out")));
	sw_fini(&s);

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "pcswap.csv", body,
		pol_find("exclusive"), "1x1:v100-16gb", "order=srtf",
		WORLD_PREEMPT_SWAP), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	ASSERT_NS(sw_job(&s, "B")->start_ns, sim_time_from_s(10) + t_out);
	ASSERT_NS(sw_job(&s, "B")->end_ns, sim_time_from_s(110) + t_out);
	ASSERT_NS(sw_job(&s, "A")->end_ns,
		  sim_time_from_s(1100) + t_out + t_in);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->preemptions, 1);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->swaps, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_out"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&s.res, "swaps_in"), 1, 0);
	sw_fini(&s);
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
	struct sw s;
	sim_time t_out, t_in;

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullwait.csv", body,
		pol_find("timeslice"), "1x1:v100-16gb", NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	ASSERT_NS(sw_job(&s, "H")->start_ns, sim_time_from_s(1000));
	ASSERT_NS(sw_job(&s, "H")->end_ns, sim_time_from_s(1100));
	sw_fini(&s);

	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullswap.csv", body,
		pol_find("timeslice"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	t_out = v100_d2h_ns(&s, 10 * GIB);
	t_in = v100_h2d_ns(&s, 10 * GIB);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	ASSERT_NS(sw_job(&s, "H")->start_ns, sim_time_from_s(10) + t_out);
	ASSERT_NS(sw_job(&s, "H")->end_ns, sim_time_from_s(110) + t_out);
	ASSERT_NS(sw_job(&s, "A")->end_ns,
		  sim_time_from_s(1100) + t_out + t_in);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->swaps, 1);
	CU_ASSERT_EQUAL(sw_job(&s, "H")->swaps, 0);
	sw_fini(&s);

	/* the victim is the lower-priority job with the most time left, and
	** only as many as make room: C (500 s) stays */
	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullpick.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,6144,0,,,,,\n"
		"C,train,0,resnet50,32,,500,,,,1,,6144,0,,,,,\n"
		"H,train,10,resnet50,32,,100,,,,1,,8192,1,,,,,\n",
		pol_find("mps"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->swaps, 1);
	CU_ASSERT_EQUAL(sw_job(&s, "C")->swaps, 0);
	CU_ASSERT_EQUAL(sw_job(&s, "H")->state, JOB_DONE);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->state, JOB_DONE);
	CU_ASSERT(sw_job(&s, "H")->start_ns > sim_time_from_s(10));
	CU_ASSERT(sw_job(&s, "H")->start_ns < sim_time_from_s(12));
	sw_fini(&s);

	/* equal priorities: nothing is swapped */
	CU_ASSERT_EQUAL_FATAL(sw_open(&s, "fullsame.csv",
		"A,train,0,resnet50,32,,1000,,,,1,,10240,1,,,,,\n"
		"H,train,10,resnet50,32,,100,,,,1,,10240,1,,,,,\n",
		pol_find("timeslice"), "1x1:v100-16gb", "on_full=swap", 0), 0);
	CU_ASSERT_EQUAL_FATAL(sw_finish(&s), 0);
	CU_ASSERT_EQUAL(sw_job(&s, "A")->swaps, 0);
	ASSERT_NS(sw_job(&s, "H")->start_ns, sim_time_from_s(1000));
	sw_fini(&s);
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

/* ---- every policy at a cost ----------------------------------------- */

/* Steps one world event by event with the conformance invariants (time
** monotone, no GPU or slice over capacity, every job ends once); returns
** the violations. */
static int run_checked(const char *trace, const struct pol_ops *pol,
		       const char *params, const char *cluster, int *nswaps)
{
	struct sw s;
	sim_time last = 0;
	int bad = 0, g, j, sl;

	{
		struct world_config cfg;
		struct sim_err err = { 0, "" };
		struct pol_param pv[1];
		struct pol_params pp = { 0, pv };
		char buf[64];

		memset(&s, 0, sizeof s);
		if (params != NULL) {
			snprintf(buf, sizeof buf, "%s", params);
			pv[0].key = buf;
			pv[0].value = strchr(buf, '=') + 1;
			*strchr(buf, '=') = '\0';
			pv[0].origin = "test";
			pp.n = 1;
		}
		if (dev_catalog_load(&s.cat, "models/devices", &err) != 0 ||
		    cluster_parse(&s.cl, cluster, &s.cat, "c", &err) != 0)
			return 1;
		memset(&cfg, 0, sizeof cfg);
		cfg.cluster = &s.cl;
		cfg.trace_path = trace;
		cfg.policy = pol;
		cfg.params = &pp;
		cfg.seed = 7;
		cfg.preempt_cost = WORLD_PREEMPT_SWAP;
		if (world_create(&s.w, &cfg, &err) != 0) {
			fprintf(stderr, "\n  %s/%s: %s\n", trace, pol->zName,
				err.msg);
			dev_catalog_fini(&s.cat);
			return 1;
		}
	}
	run_result_init(&s.res);
	for (;;) {
		enum sim_stop_reason why =
			sim_run(&s.w->sim, SIM_TIME_MAX, s.w->sim.events + 1);
		if (s.w->sim.now < last)
			bad++;
		last = s.w->sim.now;
		for (g = 0; g < s.w->ngpus; g++) {
			const struct gpu *gp = &s.w->gpus[g];
			if (gp->mem_used > gp->dev->hbm_bytes)
				bad++;
			for (sl = 0; sl < gp->nslices; sl++)
				if (gp->slices[sl].mem_used >
				    gp->slices[sl].hbm_bytes)
					bad++;
		}
		if (why == SIM_STOP_ERROR) {
			fprintf(stderr, "\n  %s/%s: %s\n", trace, pol->zName,
				s.w->sim.err.msg);
			bad++;
			break;
		}
		if (why != SIM_STOP_BUDGET)
			break;
	}
	for (j = 0; j < s.w->njobs; j++) {
		const struct world_job *job = world_job(s.w, j);
		*nswaps += job->swaps + job->preemptions;
		if ((job->state != JOB_DONE && job->state != JOB_FAILED) ||
		    job->nplaced != 0) {
			if (bad++ < 3)
				fprintf(stderr, "\n  %s/%s: job %s ended %s\n",
					trace, pol->zName, job->tj.id,
					job_state_name(job->state));
		}
	}
	if (s.w->live_jobs != 0 || !s.w->trace_done ||
	    world_swap_inflight(s.w) != 0)
		bad++;
	sw_fini(&s);
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

TEST_REGISTER(swap)
{
	static const struct test_case cases[] = {
		{ "swap out and in: hand-computed cost and JCT",
		  test_swap_cost },
		{ "swap in on another GPU through world_place",
		  test_swap_in_elsewhere },
		{ "two copies share one host link", test_two_copies_share_link },
		{ "refusals leave the world unchanged", test_refusals },
		{ "a stop with copies in flight", test_stop_mid_copy },
		{ "preempt_cost = swap under SRTF", test_preempt_cost },
		{ "baselines' on_full = swap", test_on_full_swap },
		{ "on_full: bad value", test_on_full_param },
		{ "every policy at a cost on the reference traces",
		  test_every_policy_at_a_cost },
		{ "baselines swapping on a mixed-priority trace",
		  test_baselines_swapping },
		{ NULL, NULL }
	};
	return test_add_suite("swap", cases);
}
