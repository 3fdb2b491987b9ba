/*
** test_gpu.c: the fluid GPU model (models/gpu.c) against analytic answers
** (docs/MODEL.md, "GPU sharing modes", "Memory and oversubscription").
**
** Most cases use a small hand-made profile with round numbers, so every
** expected value below is computed by hand in its comment.
*/
#include <math.h>
#include <string.h>

#include "models/gpu.h"
#include "sim/rng.h"
#include "tests/util.h"

/* q = 1000 ns, c = 250 ns: q/(q+c) = 0.8.  B/U = 1e12/1e10 = 100. */
static void test_profile(struct dev_profile *d, double k)
{
	memset(d, 0, sizeof *d);
	strcpy(d->name, "testgpu");
	d->hbm_bytes = 1000;
	d->hbm_bw_bytes_per_s = 1e12;
	d->sms = 100;
	d->ts_quantum_ns = 1000;
	d->ts_switch_ns = 250;
	d->mps_contention_k = k;
	d->uvm_bytes_per_s = 1e10;
	d->nmig = 3;
	/* 1g: 1 of 7 compute slices, 14 SMs, 1/8 of memory and bandwidth */
	strcpy(d->mig[0].name, "1g.1gb");
	d->mig[0].max_count = 7; d->mig[0].sms = 14; d->mig[0].hbm_bytes = 125;
	d->mig[0].bw_frac = 0.125; d->mig[0].compute_slices = 1;
	strcpy(d->mig[1].name, "3g.4gb");
	d->mig[1].max_count = 2; d->mig[1].sms = 42; d->mig[1].hbm_bytes = 500;
	d->mig[1].bw_frac = 0.5; d->mig[1].compute_slices = 3;
	strcpy(d->mig[2].name, "4g.4gb");
	d->mig[2].max_count = 1; d->mig[2].sms = 56; d->mig[2].hbm_bytes = 500;
	d->mig[2].bw_frac = 0.5; d->mig[2].compute_slices = 4;
}

static const struct gpu_work_profile compute_bound = {
	.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 1.0
};

static void tenant(struct gpu_tenant *t, int id, uint64_t mem, double cap,
		   int slice)
{
	memset(t, 0, sizeof *t);
	t->id = id;
	t->mem_bytes = mem;
	t->sm_cap = cap;
	t->slice = slice;
}

/* Two identical compute-bound tenants under timeslice: each (1/2) q/(q+c). */
static void test_timeslice(void)
{
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a, b, t[3];
	int i;

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	tenant(&a, 1, 100, 1, -1);
	tenant(&b, 2, 100, 1, -1);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 0, 0, NULL), 0);
	gpu_begin(&g, &a, 1000, &compute_bound, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-15);        /* alone */
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 0), 1000);
	gpu_begin(&g, &b, 1000, &compute_bound, 100);
	/* (1/2) * 1000 / 1250 = 0.4 each */
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 0.4, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 0.4, 1e-15);
	/* a: 900 left at t=100, at 0.4: 2250 more -> 2350 */
	CU_ASSERT_DOUBLE_EQUAL(a.work_left_ns, 900, 1e-9);
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 100), 2350);
	CU_ASSERT_EQUAL(gpu_finish_time(&b, 100), 100 + 2500);
	/* a finishes at 2350: b did 2250*0.4 = 900, 100 left, alone -> 2450 */
	gpu_settle(&g, 2350);
	CU_ASSERT_EQUAL(a.work_left_ns, 0);
	gpu_finish(&g, &a, 2350);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 1.0, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(b.work_left_ns, 100, 1e-9);
	CU_ASSERT_EQUAL(gpu_finish_time(&b, 2350), 2450);
	/* busy SM fraction: 0.8 over [100, 2350) */
	CU_ASSERT_EQUAL(g.nbusy, 1);
	gpu_fini(&g);

	/* Three tenants on the shipped quantum: q = 1024 us, c from profile */
	test_profile(&d, 0);
	d.ts_quantum_ns = 1024000;
	d.ts_switch_ns = 25000;
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	for (i = 0; i < 3; i++) {
		tenant(&t[i], i, 10, 1, -1);
		CU_ASSERT_EQUAL(gpu_attach(&g, &t[i], 0, 0, NULL), 0);
		gpu_begin(&g, &t[i], 1e9, &compute_bound, 0);
	}
	for (i = 0; i < 3; i++)
		CU_ASSERT_DOUBLE_EQUAL(t[i].speed, 1024000.0 / (3 * 1049000.0),
				       1e-15);
	gpu_fini(&g);
}

/* MPS: caps 30/70 on saturating kernels; contention k; water-filling. */
static void test_mps(void)
{
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a, b, c;

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	tenant(&a, 1, 100, 0.3, -1);
	tenant(&b, 2, 100, 0.7, -1);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 0, 0, NULL), 0);
	gpu_begin(&g, &a, 3000, &compute_bound, 0);
	/* alone, still capped at 30% of the SMs: speed 0.3 */
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 0.3, 1e-12);
	gpu_begin(&g, &b, 7000, &compute_bound, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 0.3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 0.7, 1e-12);
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 0), 10000);
	CU_ASSERT_EQUAL(gpu_finish_time(&b, 0), 10000);
	CU_ASSERT_DOUBLE_EQUAL(sim_twacc_mean(&g.sm, 0), 1.0, 1e-12);
	/* a third tenant wanting 50%: wants 0.3+0.7+0.5 > 1: level 1/3:
	** a keeps 0.3, b and c get 0.35 each */
	tenant(&c, 3, 100, 0.5, -1);
	CU_ASSERT_EQUAL(gpu_attach(&g, &c, 0, 0, NULL), 0);
	gpu_begin(&g, &c, 1000, &compute_bound, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 0.3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 0.35, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.speed, 0.35, 1e-12);
	/* a work unit that uses only 20% of the SMs is not slowed by a 30% cap */
	{
		struct gpu_work_profile small = {
			.alpha = 1.0, .sat = 0.2, .bw_frac = 0.0, .duty = 1.0
		};

		gpu_begin(&g, &a, 1000, &small, 0);
		/* wants 0.2, 0.7, 0.5: level (1-0.2)/2 = 0.4: b 0.4, c 0.4 */
		CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(b.speed, 0.4, 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(c.speed, 0.4, 1e-12);
	}
	CU_ASSERT_EQUAL(gpu_set_share(&g, &a, 1.5, 0), SIM_EINVAL);
	gpu_fini(&g);

	/* contention k = 0.1: both divided by 1 + 0.1 (2 - 1) */
	test_profile(&d, 0.1);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	tenant(&a, 1, 100, 0.3, -1);
	tenant(&b, 2, 100, 0.7, -1);
	gpu_attach(&g, &a, 0, 0, NULL);
	gpu_attach(&g, &b, 0, 0, NULL);
	gpu_begin(&g, &a, 3000, &compute_bound, 0);
	gpu_begin(&g, &b, 7000, &compute_bound, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 0.3 / 1.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 0.7 / 1.1, 1e-12);
	gpu_fini(&g);
}

/* Two memory-bound tenants needing 0.8 of peak each: 1.6 > 1, so each
** memory-bound part stretches by 1.6; mixed alpha by hand.  (Before the
** duty-cycle model the mixed case was the blend 0.5 + 0.5 x 1.6 = 1.3, a
** spurious gain over the roofline max(tc, tm) that solo time uses.) */
static void test_bandwidth(void)
{
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a, b;
	struct gpu_work_profile mem = {
		.alpha = 0.0, .sat = 0.5, .bw_frac = 0.8, .duty = 1.0
	};
	struct gpu_work_profile mixed = {
		.alpha = 0.5, .sat = 0.5, .bw_frac = 0.8, .duty = 1.0
	};

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	tenant(&a, 1, 100, 1, -1);
	tenant(&b, 2, 100, 1, -1);
	gpu_attach(&g, &a, 0, 0, NULL);
	gpu_attach(&g, &b, 0, 0, NULL);
	gpu_begin(&g, &a, 1000, &mem, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-15);   /* 0.8 <= peak */
	gpu_begin(&g, &b, 1000, &mem, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1 / 1.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 1 / 1.6, 1e-12);
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 0), 1600);
	/* tc = tm (alpha 0.5): compute does not stretch (sat 0.5 each fits
	** the SMs), memory stretches 1.6: max(1 x 1, 1 x 1.6) = 1.6 */
	gpu_begin(&g, &a, 1000, &mixed, 0);
	gpu_begin(&g, &b, 1000, &mixed, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1 / 1.6, 1e-12);
	/* compute-bound alpha 0.8 (tm = tc / 4): max(1, 0.25 x 1.6) = 1 */
	mixed.alpha = 0.8;
	gpu_begin(&g, &a, 1000, &mixed, 0);
	gpu_begin(&g, &b, 1000, &mixed, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-12);
	gpu_fini(&g);
}

/* MIG: a slice's speed does not change when its neighbour gets busy; the
** slice's own SM and bandwidth shares set its speed. */
static void test_mig(void)
{
	static const char *const layout[] = { "3g.4gb", "4g.4gb" };
	static const char *const too_big[] = { "4g.4gb", "3g.4gb", "1g.1gb" };
	static const char *const unknown[] = { "2g.2gb" };
	static const char *const seven[] = { "1g.1gb", "1g.1gb", "1g.1gb",
		"1g.1gb", "1g.1gb", "1g.1gb", "1g.1gb" };
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a, b, c;
	struct gpu_work_profile prof = {
		.alpha = 0.5, .sat = 0.6, .bw_frac = 0.8, .duty = 1.0
	};
	struct gpu_work_profile hog = {
		.alpha = 0.0, .sat = 1.0, .bw_frac = 1.0, .duty = 1.0
	};
	struct sim_err err;
	double s0;

	test_profile(&d, 0);
	d.mig_bw_weight = 0.5;
	gpu_init(&g, &d, 0, 0, GPU_MODE_MIG, 0);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, too_big, 3, 0, &err),
			SIM_ENOSPC);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, unknown, 1, 0, NULL),
			SIM_ENOENT);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, seven, 7, 0, NULL), 0);
	CU_ASSERT_EQUAL(g.nslices, 7);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, layout, 2, 0, NULL), 0);
	CU_ASSERT_EQUAL(g.nslices, 2);
	CU_ASSERT_EQUAL(gpu_mem_free(&g, 0), 500);

	tenant(&a, 1, 400, 1, 0);
	tenant(&b, 2, 400, 1, 1);
	tenant(&c, 3, 200, 1, 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 0, 0, NULL), 0);
	/* slice 0 has 100 left: c (200) is refused although the GPU has 200 */
	CU_ASSERT_EQUAL(gpu_attach(&g, &c, 0, 0, NULL), SIM_ENOSPC);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, layout, 2, 0, NULL), SIM_ESTATE);
	gpu_begin(&g, &a, 1000, &prof, 0);
	/* slice 0: 42/100 SMs, 0.5 bandwidth, bandwidth weight w = 0.5:
	** stretch (1 - w) max(1, 0.6/0.42) + w max(1, 0.8/0.5) =
	** 0.5 x 1.428571 + 0.5 x 1.6 = 1.514286 (the weight is the data's,
	** not the profile's alpha; the old equation used alpha here) */
	s0 = 1.0 / (0.5 * 0.6 / 0.42 + 0.5 * 1.6);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, s0, 1e-12);
	gpu_begin(&g, &b, 1000, &hog, 10);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, s0, 1e-15);     /* isolation */
	/* slice 1 (4g: 0.56 SMs, 0.5 bw): 0.5 / 0.56 + 0.5 / 0.5 */
	CU_ASSERT_DOUBLE_EQUAL(b.speed, 1.0 / (0.5 / 0.56 + 0.5 / 0.5),
			       1e-12);
	gpu_finish(&g, &b, 20);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, s0, 1e-15);
	/* inside a slice: timeslice between its tenants */
	c.mem_bytes = 100;
	CU_ASSERT_EQUAL(gpu_attach(&g, &c, 20, 0, NULL), 0);
	gpu_begin(&g, &c, 1000, &prof, 20);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, s0 * 0.4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(c.speed, s0 * 0.4, 1e-12);
	gpu_fini(&g);

	/* layouts only in MIG mode */
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	CU_ASSERT_EQUAL(gpu_set_mig_layout(&g, layout, 2, 0, NULL), SIM_EINVAL);
	tenant(&a, 1, 10, 1, 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), SIM_EINVAL);
	gpu_fini(&g);
}

/* Allocation: refusal, exclusivity, oversubscription cost. */
static void test_memory(void)
{
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a, b;
	struct gpu_work_profile prof = {
		.alpha = 0.0, .sat = 1.0, .bw_frac = 0.5, .duty = 1.0
	};
	struct sim_err err;
	double p;

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	tenant(&a, 1, 600, 1, -1);
	tenant(&b, 2, 500, 1, -1);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), 0);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 0, 0, &err), SIM_ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "400 free"));
	CU_ASSERT_EQUAL(g.mem_used, 600);
	CU_ASSERT_EQUAL(g.ntenants, 1);
	CU_ASSERT_EQUAL(gpu_mem_free(&g, -1), 400);
	CU_ASSERT_EQUAL(gpu_resize(&g, &a, 1001, 0, 0, NULL), SIM_ENOSPC);
	CU_ASSERT_EQUAL(gpu_resize(&g, &a, 1000, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_mem_free(&g, -1), 0);
	CU_ASSERT_EQUAL(gpu_resize(&g, &a, 600, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), SIM_ESTATE);

	/* Oversubscribed by 100 of 1100: P = 0.5 * (1e12/1e10) * 100/1100 */
	gpu_begin(&g, &a, 1000, &prof, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-15);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 100, 1, NULL), 0);
	CU_ASSERT_EQUAL(gpu_mem_excess(&g, -1), 100);
	CU_ASSERT_EQUAL(gpu_mem_free(&g, -1), 0);
	p = 0.5 * 100.0 * 100.0 / 1100.0;
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0 / (1.0 + p), 1e-12);
	CU_ASSERT_EQUAL(g.mem_peak_bytes, 1100);
	CU_ASSERT_DOUBLE_EQUAL(g.hbm.peak, 1000, 0);     /* capped at capacity */
	/* b leaves: a is back to full speed */
	gpu_detach(&g, &b, 200);
	CU_ASSERT_DOUBLE_EQUAL(a.speed, 1.0, 1e-15);
	CU_ASSERT_EQUAL(gpu_mem_excess(&g, -1), 0);
	/* a detached mid-unit keeps its remaining work */
	gpu_detach(&g, &a, 300);
	CU_ASSERT_DOUBLE_EQUAL(a.work_left_ns,
			       1000 - 100 / (1.0 + p) - 100 - 100, 1e-9);
	CU_ASSERT_EQUAL(a.busy, 0);
	CU_ASSERT_EQUAL(g.mem_used, 0);
	CU_ASSERT_EQUAL(g.nbusy, 0);
	gpu_fini(&g);

	/* exclusive: a second tenant is refused */
	gpu_init(&g, &d, 0, 0, GPU_MODE_EXCLUSIVE, 0);
	tenant(&a, 1, 10, 1, -1);
	tenant(&b, 2, 10, 1, -1);
	CU_ASSERT_EQUAL(gpu_attach(&g, &a, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &b, 0, 0, NULL), SIM_ESTATE);
	gpu_fini(&g);
}

/* Random attach/resize/detach never exceeds capacity without
** oversubscription, and mem_used is always the sum of the tenants. */
static void test_capacity_invariant(void)
{
	enum { NT = 16, STEPS = 20000 };
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[NT];
	int attached[NT] = { 0 };
	struct sim_rng rng;
	int i, step, bad = 0;

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, 42, "gpu-capacity", 0, NULL),
			      0);
	for (i = 0; i < NT; i++)
		tenant(&t[i], i, 0, 0.5, -1);
	for (step = 0; step < STEPS; step++) {
		int k = (int)sim_rng_int(&rng, NT);
		uint64_t bytes = sim_rng_int(&rng, 400);
		uint64_t sum = 0, free0 = gpu_mem_free(&g, -1);
		sim_time now = step;
		int rc;

		if (!attached[k]) {
			t[k].mem_bytes = bytes;
			rc = gpu_attach(&g, &t[k], now, 0, NULL);
			attached[k] = rc == 0;
			if ((rc == 0) != (bytes <= free0))
				bad++;
		} else if (sim_rng_int(&rng, 2) == 0) {
			uint64_t old = t[k].mem_bytes;

			rc = gpu_resize(&g, &t[k], bytes, now, 0, NULL);
			if ((rc == 0) != (bytes <= old + free0))
				bad++;
		} else {
			gpu_detach(&g, &t[k], now);
			attached[k] = 0;
		}
		for (i = 0; i < NT; i++)
			if (attached[i])
				sum += t[i].mem_bytes;
		if (sum != g.mem_used || g.mem_used > d.hbm_bytes)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(g.mem_peak_bytes <= d.hbm_bytes);
	CU_ASSERT(g.mem_peak_bytes > d.hbm_bytes / 2);   /* it was exercised */
	gpu_fini(&g);
	sim_rng_fini(&rng);
}

/* Progress settled across 1e6 speed changes equals the closed form, and
** the completion time never comes before the work is done. */
static void test_settle_exact(void)
{
	enum { N = 1000000 };
	/* ~1 ms intervals whose increments do not round evenly: a naive
	** sum drifts by ~3 ns here, the compensated one by < 1e-4 ns */
	const sim_time dt = 1000013;
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant a;
	double work = 1e12, done, left;
	sim_time now = 0, fin;
	int i;

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	tenant(&a, 1, 10, 0.3, -1);
	gpu_attach(&g, &a, 0, 0, NULL);
	gpu_begin(&g, &a, work, &compute_bound, 0);
	for (i = 0; i < N; i++) {
		now += dt;
		gpu_set_share(&g, &a, i % 2 == 0 ? 0.35 : 0.3, now);
	}
	/* N/2 intervals at 0.3 and N/2 at 0.35, dt each */
	done = (double)(N / 2) * (double)dt * (0.3 + 0.35);
	left = work - done;
	CU_ASSERT_DOUBLE_EQUAL(a.work_left_ns, left, 1e-3);
	CU_ASSERT_EQUAL(g.changes, (uint64_t)N + 2);
	/* speed is 0.3 now: finish = now + ceil(left / 0.3) */
	fin = gpu_finish_time(&a, now);
	CU_ASSERT(fin >= now + (sim_time)ceil(left / 0.3) - 1 &&
		  fin <= now + (sim_time)ceil(left / 0.3) + 1);
	gpu_settle(&g, fin - 1);
	CU_ASSERT(a.work_left_ns > 0);
	gpu_settle(&g, fin);
	CU_ASSERT_EQUAL(a.work_left_ns, 0);
	gpu_fini(&g);

	/* Rounding up: 1000 ns at 0.3 is 3333.3 ns: the event is at 3334. */
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	tenant(&a, 1, 10, 0.3, -1);
	gpu_attach(&g, &a, 0, 0, NULL);
	gpu_begin(&g, &a, 1000, &compute_bound, 0);
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 0), 3334);
	gpu_settle(&g, 3333);
	CU_ASSERT(a.work_left_ns > 0);
	gpu_settle(&g, 3334);
	CU_ASSERT_EQUAL(a.work_left_ns, 0);
	gpu_finish(&g, &a, 3334);
	CU_ASSERT_EQUAL(gpu_finish_time(&a, 3334), SIM_TIME_NEVER);
	gpu_fini(&g);
}

/* Attaches n tenants of profile p (MPS cap 1) and starts them at 0. */
static void start_all(struct gpu *g, struct gpu_tenant *t, int n,
		      const struct gpu_work_profile *p)
{
	int i;

	for (i = 0; i < n; i++) {
		tenant(&t[i], i, 1, 1, -1);
		CU_ASSERT_EQUAL(gpu_attach(g, &t[i], 0, 0, NULL), 0);
		gpu_begin(g, &t[i], 1e9, p, 0);
	}
}

/* Duty cycles under time slicing (MODEL.md, "Duty cycles"), by hand with
** q = 1000, c = 250: T(2) = 0.4.
**  - alone, a tenant that is GPU-busy half its time runs at 1;
**  - two tenants d = 0.5: by symmetry p = d / (r tau), r = (1 - p) +
**    0.4 p, tau = 0.5 + 0.5 / r, whose solution is r = sqrt(0.4), so
**    speed = 1 / (0.5 + 0.5 / sqrt(0.4)) = 0.774852 each: 1.55 combined,
**    against 0.8 when both were treated as always busy;
**  - one always busy (d = 1) and one d = 0.5: the second's busy part
**    always meets the first: r = 0.4, tau = 0.5 + 0.5 / 0.4 = 1.75,
**    speed 1 / 1.75, busy fraction (0.5 / 0.4) / 1.75 = 5/7; the first
**    runs at (1 - 5/7) + (5/7) 0.4 = 4/7. */
static void test_duty_timeslice(void)
{
	struct gpu_work_profile half = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 0.5
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[2];

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 1, &half);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(gpu_busy_frac(&t[0]), 0.5, 1e-12);
	gpu_fini(&g);

	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 2, &half);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 1.0 / (0.5 + 0.5 / sqrt(0.4)),
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t[1].speed, t[0].speed, 1e-12);
	/* busy SMs: d x speed x sat each */
	CU_ASSERT_DOUBLE_EQUAL(g.sm.value, 2 * 0.5 * t[0].speed, 1e-9);
	gpu_fini(&g);

	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	tenant(&t[0], 0, 1, 1, -1);
	tenant(&t[1], 1, 1, 1, -1);
	gpu_attach(&g, &t[0], 0, 0, NULL);
	gpu_attach(&g, &t[1], 0, 0, NULL);
	gpu_begin(&g, &t[0], 1e9, &compute_bound, 0);
	gpu_begin(&g, &t[1], 1e9, &half, 0);
	CU_ASSERT_DOUBLE_EQUAL(t[1].speed, 1.0 / 1.75, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(gpu_busy_frac(&t[1]), 5.0 / 7.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 4.0 / 7.0, 1e-9);
	gpu_fini(&g);
}

/* Duty cycles under MPS: two tenants of sat 0.6, compute-bound, d = 0.5,
** k = 0.  Alone each wants 0.6 and runs at 1; together the wants (1.2)
** water-fill to 0.5 each, compute stretches 0.6 / 0.5 = 1.2, R = 1/1.2.
** With d = 0.5 the symmetric fixed point is r = sqrt(R), so speed = 1 /
** (0.5 + 0.5 sqrt(1.2)) = 0.954451: idle SMs of one go to the other. */
static void test_duty_mps(void)
{
	struct gpu_work_profile p = {
		.alpha = 1.0, .sat = 0.6, .bw_frac = 0.0, .duty = 0.5
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[2];

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	start_all(&g, t, 2, &p);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 1.0 / (0.5 + 0.5 * sqrt(1.2)),
			       1e-9);
	CU_ASSERT_DOUBLE_EQUAL(t[1].speed, t[0].speed, 1e-12);
	gpu_fini(&g);
	/* always busy: the plain MPS answer, 1 / 1.2 */
	p.duty = 1.0;
	gpu_init(&g, &d, 0, 0, GPU_MODE_MPS, 0);
	start_all(&g, t, 2, &p);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 1.0 / 1.2, 1e-12);
	gpu_fini(&g);
}

/* Host CPU contention stretches the host-side part only: d = 0.5 alone
** with h = 2: speed = 1 / (0.5 x 2 + 0.5) = 2/3; an always-busy unit is
** not slowed (nothing of it runs on the host). */
static void test_host_stretch(void)
{
	struct gpu_work_profile half = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 0.5
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[1];

	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 1, &half);
	CU_ASSERT_EQUAL(gpu_set_host_stretch(&g, &t[0], 2.0, 0), 0);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 2.0 / 3.0, 1e-12);
	CU_ASSERT_EQUAL(gpu_set_host_stretch(&g, &t[0], 0.5, 0), SIM_EINVAL);
	gpu_begin(&g, &t[0], 1e9, &compute_bound, 0);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 1.0, 1e-12);
	gpu_fini(&g);
}

/* The node's host stretch by hand.  Two tenants d = 0.5, r = 1, 3 cores
** each, 2 CPUs: f(h) = 0.5 h / (0.5 h + 0.5) = h / (h + 1), so h = 6 f(h)
** / 2 = 3 h / (h + 1), h = 2 (check: f(2) = 2/3, 6 x 2/3 / 2 = 2).  With
** 1 core each the demand (2 x 1/2) fits 2 CPUs: h = 1.  The load of a
** tenant read back from its state: rate 1 when alone. */
static void test_host_cpu(void)
{
	struct gpu_host_load l[2] = { { 0.5, 1.0, 3.0 }, { 0.5, 1.0, 3.0 } };
	struct gpu_work_profile half = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 0.5
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[2];
	struct gpu_host_load got;

	CU_ASSERT_DOUBLE_EQUAL(gpu_host_stretch(l, 2, 2.0), 2.0, 1e-9);
	l[0].cores = l[1].cores = 1.0;
	CU_ASSERT_DOUBLE_EQUAL(gpu_host_stretch(l, 2, 2.0), 1.0, 0);
	CU_ASSERT_DOUBLE_EQUAL(gpu_host_stretch(l, 2, 0), 1.0, 0);
	test_profile(&d, 0);
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 1, &half);
	gpu_host_load_of(&t[0], 3.0, &got);
	CU_ASSERT_DOUBLE_EQUAL(got.duty, 0.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(got.busy_rate, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(got.cores, 3.0, 0);
	/* with a second tenant the busy part slows to sqrt(0.4) (the
	** symmetric fixed point of test_duty_timeslice) */
	tenant(&t[1], 1, 1, 1, -1);
	gpu_attach(&g, &t[1], 0, 0, NULL);
	gpu_begin(&g, &t[1], 1e9, &half, 0);
	gpu_host_load_of(&t[0], 3.0, &got);
	CU_ASSERT_DOUBLE_EQUAL(got.busy_rate, sqrt(0.4), 1e-9);
	gpu_fini(&g);
}

/* MIG with a duty cycle: 1g (14 of 100 SMs, 1/8 bandwidth), w = 0.5, sat
** = bw = 1, d = 0.4: the busy part stretches 0.5 / 0.14 + 0.5 x 8 =
** 7.571429, the rest not: speed = 1 / (0.6 + 0.4 x 7.571429) = 0.275591
** (Amdahl with the host part as the serial fraction). */
static void test_duty_mig(void)
{
	static const char *const one[] = { "1g.1gb" };
	struct gpu_work_profile p = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 1.0, .duty = 0.4
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t;

	test_profile(&d, 0);
	d.mig_bw_weight = 0.5;
	gpu_init(&g, &d, 0, 0, GPU_MODE_MIG, 0);
	CU_ASSERT_EQUAL_FATAL(gpu_set_mig_layout(&g, one, 1, 0, NULL), 0);
	tenant(&t, 1, 10, 1, 0);
	CU_ASSERT_EQUAL(gpu_attach(&g, &t, 0, 0, NULL), 0);
	gpu_begin(&g, &t, 1e9, &p, 0);
	CU_ASSERT_DOUBLE_EQUAL(t.speed, 1.0 / (0.6 + 0.4 * (0.5 / 0.14 +
							    0.5 * 8)), 1e-12);
	gpu_fini(&g);
}

/* The bandwidth term of time slicing: two always-busy tenants that need
** 0.5 of the bandwidth each, k = 0.2: T(2) / (1 + 0.2 x 0.5) = 0.4 / 1.1.
** And the documented limit: 9 busy tenants (more than the 8 enumerated
** exactly) are all treated as always busy: T(9) = 1000 / (9 x 1250). */
static void test_ts_contention_and_limit(void)
{
	struct gpu_work_profile p = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.5, .duty = 1.0
	};
	struct gpu_work_profile half = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 0.5
	};
	struct dev_profile d;
	struct gpu g;
	struct gpu_tenant t[9];

	test_profile(&d, 0);
	d.ts_mem_contention_k = 0.2;
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 2, &p);
	CU_ASSERT_DOUBLE_EQUAL(t[0].speed, 0.4 / 1.1, 1e-12);
	gpu_fini(&g);
	d.ts_mem_contention_k = 0;
	gpu_init(&g, &d, 0, 0, GPU_MODE_TIMESLICE, 0);
	start_all(&g, t, 9, &half);
	CU_ASSERT_DOUBLE_EQUAL(t[8].speed, 1000.0 / (9 * 1250.0), 1e-12);
	gpu_fini(&g);
}

static void test_mode_names(void)
{
	enum gpu_mode m;

	CU_ASSERT_EQUAL(gpu_mode_parse("mps", &m), 0);
	CU_ASSERT_EQUAL(m, GPU_MODE_MPS);
	CU_ASSERT_EQUAL(gpu_mode_parse("spatial", &m), SIM_EINVAL);
	CU_ASSERT_STRING_EQUAL(gpu_mode_name(GPU_MODE_TIMESLICE), "timeslice");
	CU_ASSERT_PTR_NULL(gpu_mode_name((enum gpu_mode)9));
}

TEST_REGISTER(gpu)
{
	static const struct test_case cases[] = {
		{ "timeslice (1/n) q/(q+c)", test_timeslice },
		{ "mps caps 30/70, k, water-filling", test_mps },
		{ "bandwidth over-subscription", test_bandwidth },
		{ "mig isolation and layouts", test_mig },
		{ "memory refusal and oversubscription", test_memory },
		{ "capacity never exceeded", test_capacity_invariant },
		{ "1e6 speed changes settle exactly", test_settle_exact },
		{ "mode names", test_mode_names },
		{ "duty cycles under timeslice", test_duty_timeslice },
		{ "duty cycles under mps", test_duty_mps },
		{ "host CPU stretch", test_host_stretch },
		{ "node host CPU contention", test_host_cpu },
		{ "duty cycles on a mig slice", test_duty_mig },
		{ "timeslice bandwidth term, 9-tenant limit",
		  test_ts_contention_and_limit },
		{ NULL, NULL }
	};
	return test_add_suite("gpu", cases);
}
