/*
** test_workload.c: the training and inference workload models
** (models/workload.h) against published limits and latencies.
**
** The device profiles are built by hand from the datasheets (the INI
** profiles of models/devices/ are another module):
**   A100-40GB SXM4: NVIDIA A100 Tensor Core GPU datasheet (2021): 40 GB
**     HBM2, 1,555 GB/s, FP32 19.5 TFLOP/s, FP16/BF16 tensor 312 TFLOP/s
**     dense, 108 SMs;  A100-80GB SXM4: 80 GB, 2,039 GB/s, same peaks.
**   V100-16GB SXM2: NVIDIA Tesla V100 datasheet: 16 GB HBM2, 900 GB/s,
**     FP32 15.7 TFLOP/s, tensor 125 TFLOP/s, 80 SMs.
**   T4: NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s, FP32 8.1 TFLOP/s,
**     FP16 tensor 65 TFLOP/s, 40 SMs.
**   ctx_bytes 500 MiB on all: an assumption (a PyTorch CUDA context with
**     cuDNN/cuBLAS loaded takes 300-800 MB depending on driver and
**     libraries; the measured value comes with the device profiles).
*/
#include <math.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "models/workload.h"
#include "tests/util.h"

#define GIB (1024.0 * 1024 * 1024)
#define GB 1e9

static struct dev_profile dev(const char *name, double hbm_bytes,
			      double bw, double fp32, double fp16, int sms)
{
	struct dev_profile d;

	memset(&d, 0, sizeof d);
	strncpy(d.name, name, sizeof d.name - 1);
	d.hbm_bytes = (uint64_t)hbm_bytes;
	d.hbm_bw_bytes_per_s = bw;
	d.fp32_flops = fp32;
	d.fp16_flops = fp16;
	d.bf16_flops = fp16;
	d.sms = sms;
	d.ctx_bytes = 500 * 1024 * 1024;
	return d;
}

static struct dev_profile a100(void)
{
	return dev("a100-40gb", 40 * GIB, 1555 * GB, 19.5e12, 312e12, 108);
}
static struct dev_profile a100_80(void)
{
	return dev("a100-80gb", 80 * GIB, 2039 * GB, 19.5e12, 312e12, 108);
}
static struct dev_profile v100(void)
{
	return dev("v100-16gb", 16 * GIB, 900 * GB, 15.7e12, 125e12, 80);
}
static struct dev_profile t4(void)
{
	return dev("t4", 16 * GIB, 320 * GB, 8.1e12, 65e12, 40);
}

static void test_state_bytes(void)
{
	/* ZeRO (Rajbhandari et al. SC'20, sec. 3.1): mixed-precision Adam
	** keeps 2 + 2 + 12 = 16 bytes per parameter */
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_ADAM, WL_PREC_MIXED), 16);
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_ADAM, WL_PREC_FP32), 16);
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_MOMENTUM, WL_PREC_FP32), 12);
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_SGD, WL_PREC_FP32), 8);
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_SGD, WL_PREC_MIXED), 8);
	CU_ASSERT_EQUAL(wl_state_bytes_per_param(WL_OPT_MOMENTUM, WL_PREC_MIXED), 12);
}

/* NVIDIA DeepLearningExamples ResNet-50 v1.5 trains with batch 112 in
** FP32 and 256 in mixed precision on a V100-16GB (its largest batches);
** FP32 at 256 does not fit. */
static void test_memory_limits(void)
{
	struct dev_profile v = v100(), a = a100_80();
	const struct zoo_model *r50 = zoo_find("resnet50");
	const struct zoo_model *llama = zoo_find("llama-7b");
	struct wl_train_mem mem;

	wl_train_memory(r50, &v, 112, WL_OPT_MOMENTUM, WL_PREC_FP32, &mem);
	CU_ASSERT(mem.peak_bytes < v.hbm_bytes);
	CU_ASSERT(mem.peak_bytes > v.hbm_bytes / 2);   /* and uses most of it */
	CU_ASSERT(mem.trough_bytes == mem.static_bytes);
	CU_ASSERT(mem.trough_bytes < mem.peak_bytes);
	TEST_ASSERT_CLOSE(mem.peak_frac, 0.10, 1e-12);
	CU_ASSERT_EQUAL(mem.static_bytes, v.ctx_bytes + 12ULL * 25557032);
	wl_train_memory(r50, &v, 256, WL_OPT_MOMENTUM, WL_PREC_MIXED, &mem);
	CU_ASSERT(mem.peak_bytes < v.hbm_bytes);
	wl_train_memory(r50, &v, 256, WL_OPT_MOMENTUM, WL_PREC_FP32, &mem);
	CU_ASSERT(mem.peak_bytes > v.hbm_bytes);
	/* 7B parameters with mixed-precision Adam: 16 B/param = 108 GB of
	** state alone, over an 80 GB A100 even at batch 1 */
	wl_train_memory(llama, &a, 1, WL_OPT_ADAM, WL_PREC_MIXED, &mem);
	CU_ASSERT(mem.static_bytes > a.hbm_bytes);
	CU_ASSERT(mem.static_bytes > (uint64_t)(16.0 * 6.7e9));
}

/* Published ResNet-50 TensorRT FP16 latencies (ms), batch 1/8/32. */
static const double lat_b[3] = { 1, 8, 32 };
static const double lat_ms[3][3] = {
	{ 2.13, 3.90, 11.2 },    /* A100 */
	{ 2.84, 5.98, 15.7 },    /* V100 */
	{ 3.00, 9.00, 28.4 },    /* T4 */
};

static void test_latency_curve(void)
{
	struct dev_profile d[3] = { a100(), v100(), t4() };
	const struct zoo_model *r50 = zoo_find("resnet50");
	int i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++) {
			double ms = sim_time_to_ms(
				wl_infer_batch_ns(r50, &d[i], (int)lat_b[j]));
			/* stated tolerance: 5% (the fit's worst residual
			** is 4.5%, A100 at batch 8) */
			TEST_ASSERT_CLOSE(ms, lat_ms[i][j], 0.05);
		}
}

/* Redo the fit with GSL and compare with the constants in workload.c. */
static void test_latency_fit(void)
{
	struct dev_profile d[3] = { a100(), v100(), t4() };
	const struct zoo_model *r50 = zoo_find("resnet50");
	int i, j;

	for (i = 0; i < 3; i++) {
		double w[3], c0, c1, cov00, cov01, cov11, chisq;
		struct wl_infer_curve c;
		for (j = 0; j < 3; j++)
			w[j] = 1.0 / (lat_ms[i][j] * lat_ms[i][j]);
		CU_ASSERT_EQUAL(gsl_fit_wlinear(lat_b, 1, w, 1, lat_ms[i], 1, 3,
						&c0, &c1, &cov00, &cov01,
						&cov11, &chisq), 0);
		wl_infer_curve_of(&d[i], &c);
		CU_ASSERT(c.calibrated);
		TEST_ASSERT_CLOSE(c.t0_ns / 1e6, c0, 1e-3);
		TEST_ASSERT_CLOSE(c.eta, r50->fwd_flops /
				  (d[i].fp16_flops * c1 * 1e-3), 2e-3);
	}
	/* a device without a fit gets the mean, flagged */
	{
		struct dev_profile h = dev("h200", 141 * GB, 4.8e12, 67e12,
					   989e12, 132);
		struct dev_profile rtx = dev("rtx4090", 24 * GIB, 1e12, 82e12,
					     165e12, 128);
		struct wl_infer_curve c;
		wl_infer_curve_of(&h, &c);
		CU_ASSERT_FALSE(c.calibrated);
		CU_ASSERT_STRING_EQUAL(c.fit, "mean");
		wl_infer_curve_of(&rtx, &c);     /* not "t4" */
		CU_ASSERT_FALSE(c.calibrated);
		strcpy(h.name, "Tesla-T4");
		wl_infer_curve_of(&h, &c);
		CU_ASSERT_STRING_EQUAL(c.fit, "t4");
	}
}

static void test_latency_shape(void)
{
	struct dev_profile d = v100();
	const struct zoo_model *m;
	size_t i;
	int b;

	for (i = 0; i < zoo_count(); i++) {
		sim_time prev = 0;
		double prev_tput = 0, prev_sat = 0;
		m = zoo_at(i);
		for (b = 1; b <= 64; b *= 2) {
			sim_time l = wl_infer_batch_ns(m, &d, b);
			struct gpu_work_profile p;
			double tput = b / (double)l;
			wl_infer_profile(m, &d, b, &p);
			CU_ASSERT(l > prev);
			CU_ASSERT(tput >= prev_tput);    /* batching pays */
			CU_ASSERT(p.sat >= prev_sat);
			CU_ASSERT(p.alpha > 0 && p.alpha <= 1);
			CU_ASSERT(p.sat > 0 && p.sat <= 1);
			CU_ASSERT(p.bw_frac >= 0 && p.bw_frac <= 1);
			prev = l;
			prev_tput = tput;
			prev_sat = p.sat;
		}
	}
	/* a bigger model is slower at the same batch */
	CU_ASSERT(wl_infer_batch_ns(zoo_find("resnet152"), &d, 8) >
		  wl_infer_batch_ns(zoo_find("resnet50"), &d, 8));
	CU_ASSERT(wl_infer_batch_ns(zoo_find("mobilenetv2"), &d, 8) <
		  wl_infer_batch_ns(zoo_find("resnet50"), &d, 8));
}

/* Training throughput against NVIDIA DeepLearningExamples ResNet-50 v1.5
** (PyTorch, 1 GPU, DALI input): V100-16GB FP32 367 img/s (batch 112), AMP
** 1200 img/s (batch 256); A100-80GB AMP 2470 img/s (batch 256).  These
** calibrate the roofline's efficiencies, so they are checked on the
** roofline part alone: DLE's pipeline has no host gap to fit, while the
** iteration time of a replay adds the fitted host cost of the model
** (Gavel's ImageNet job on V100: about 42 ms; test_train_fit). */
static void test_train_iter(void)
{
	struct dev_profile v = v100(), a = a100_80();
	const struct zoo_model *r50 = zoo_find("resnet50");
	struct gpu_work_profile p;
	double ips;

	ips = 112 / (wl_train_roofline_ns(r50, &v, 112, WL_PREC_FP32) / 1e9);
	TEST_ASSERT_CLOSE(ips, 367, 0.02);
	ips = 256 / (wl_train_roofline_ns(r50, &v, 256, WL_PREC_MIXED) / 1e9);
	TEST_ASSERT_CLOSE(ips, 1200, 0.11);
	ips = 256 / (wl_train_roofline_ns(r50, &a, 256, WL_PREC_MIXED) / 1e9);
	TEST_ASSERT_CLOSE(ips, 2470, 0.11);
	/* compute-bound: twice the batch, twice the roofline time */
	TEST_ASSERT_CLOSE(wl_train_roofline_ns(r50, &v, 64, WL_PREC_FP32),
			  2.0 * wl_train_roofline_ns(r50, &v, 32, WL_PREC_FP32),
			  1e-6);
	wl_train_profile(r50, &v, 112, WL_PREC_FP32, &p);
	CU_ASSERT(p.alpha > 0.8);         /* convolutions: compute-bound */
	CU_ASSERT(p.sat > 0.9);           /* a large batch fills the GPU */
	wl_train_profile(r50, &v, 1, WL_PREC_FP32, &p);
	CU_ASSERT(p.sat < 0.5);           /* batch 1 leaves SMs idle */
}

/* The fitted iteration (MODEL.md, "Iteration time"): t = host + eta x
** roofline with the table's row, and duty = busy / t.  A model without a
** row on a family takes the median host cost of the family's rows and
** eta 1; a family without rows the median of all rows. */
static void test_train_fit(void)
{
	struct dev_profile v = v100(), t = t4();
	const struct zoo_model *r50 = zoo_find("resnet50");
	const struct zoo_model *bert = zoo_find("bert-base");
	const struct wl_fit_entry *tab;
	struct wl_train_fit f;
	struct gpu_work_profile p;
	double roof, host = -1, hv[64], all[256];
	size_t i, n, nv = 0, na = 0;

	tab = wl_fit_table(&n);
	CU_ASSERT_FATAL(n > 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT(tab[i].host_ns >= 0 && tab[i].eta_scale > 0);
		CU_ASSERT(strncmp(tab[i].source, "fitted ", 7) == 0);
		if (strcmp(tab[i].model, "resnet50") == 0 &&
		    strcmp(tab[i].family, "v100") == 0 &&
		    tab[i].prec == WL_PREC_FP32)
			host = tab[i].host_ns;
		if (strcmp(tab[i].family, "v100") == 0 &&
		    tab[i].prec == WL_PREC_FP32)
			hv[nv++] = tab[i].host_ns;
		all[na++] = tab[i].host_ns;
	}
	CU_ASSERT_FATAL(host >= 0);
	wl_train_fit_of(r50, &v, WL_PREC_FP32, &f);
	CU_ASSERT_EQUAL(f.measured, 1);
	CU_ASSERT_DOUBLE_EQUAL(f.host_ns, host, 0);
	roof = wl_train_roofline_ns(r50, &v, 32, WL_PREC_FP32);
	TEST_ASSERT_CLOSE((double)wl_train_iter_ns(r50, &v, 32, WL_PREC_FP32),
			  f.host_ns + f.eta_scale * roof, 1e-8);
	wl_train_profile(r50, &v, 32, WL_PREC_FP32, &p);
	TEST_ASSERT_CLOSE(p.duty, f.eta_scale * roof /
			  (f.host_ns + f.eta_scale * roof), 1e-12);
	CU_ASSERT(p.duty > 0.3 && p.duty < 1);
	/* the rule: median of the V100 FP32 rows (sorted by hand here) */
	wl_train_fit_of(bert, &v, WL_PREC_FP32, &f);
	CU_ASSERT_EQUAL(f.measured, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.eta_scale, 1.0, 0);
	{
		size_t a, b;

		for (a = 0; a < nv; a++)
			for (b = a + 1; b < nv; b++)
				if (hv[b] < hv[a]) {
					double x = hv[a];

					hv[a] = hv[b];
					hv[b] = x;
				}
		TEST_ASSERT_CLOSE(f.host_ns, nv % 2 ? hv[nv / 2] :
				  0.5 * (hv[nv / 2 - 1] + hv[nv / 2]), 1e-12);
	}
	/* T4 has no rows: the median of all of them */
	wl_train_fit_of(r50, &t, WL_PREC_FP32, &f);
	CU_ASSERT_EQUAL(f.measured, 0);
	{
		size_t a, lo = 0, hi = 0;

		/* the median: as many rows below it as above */
		for (a = 0; a < na; a++) {
			lo += all[a] < f.host_ns;
			hi += all[a] > f.host_ns;
		}
		CU_ASSERT(lo <= na / 2 && hi <= na / 2);
	}
	/* inference batches are always-busy units */
	wl_infer_profile(r50, &v, 8, &p);
	CU_ASSERT_DOUBLE_EQUAL(p.duty, 1.0, 0);
}

/* The fit memo gives wl_train_fit_of's answer for every (model, device,
** precision), through its growth (the zoo x 4 devices x 2 precisions
** passes its first 32 keys) and on a second look-up; and the _fit
** profile equals the one that looks the fit up itself. */
static void test_fit_memo(void)
{
	struct dev_profile d[4];
	struct wl_fit_memo c;
	size_t i, k, pass;
	int e;

	d[0] = a100();
	d[1] = a100_80();
	d[2] = v100();
	d[3] = t4();
	wl_fit_memo_init(&c);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < zoo_count(); i++)
			for (k = 0; k < 4; k++)
				for (e = 0; e < 2; e++) {
					const struct zoo_model *m = zoo_at(i);
					enum wl_precision pr = e ?
						WL_PREC_MIXED : WL_PREC_FP32;
					struct wl_train_fit want, tmp;
					const struct wl_train_fit *got;
					struct gpu_work_profile a, b;

					wl_train_fit_of(m, &d[k], pr, &want);
					got = wl_fit_memo_get(&c, m, &d[k], pr,
							      &tmp);
					CU_ASSERT(got->host_ns == want.host_ns &&
						  got->eta_scale ==
						  want.eta_scale &&
						  got->measured ==
						  want.measured &&
						  got->npts == want.npts &&
						  got->source == want.source);
					wl_train_profile_measured(m, &d[k], 16,
						pr, 5e7 * (double)e, 0, &a);
					wl_train_profile_measured_fit(m, &d[k],
						16, pr, got, 5e7 * (double)e, 0,
						&b);
					CU_ASSERT(a.alpha == b.alpha &&
						  a.sat == b.sat &&
						  a.bw_frac == b.bw_frac &&
						  a.duty == b.duty);
				}
	CU_ASSERT_EQUAL(c.n, zoo_count() * 8);
	CU_ASSERT(2 * c.n <= c.cap);
	wl_fit_memo_fini(&c);
	CU_ASSERT_PTR_NULL(c.v);
	wl_fit_memo_fini(NULL);
}

/* Measured utilisation to duty: min(1, a u^e), at least 0.001; without
** the fitted keys the identity. */
static void test_duty_from_util(void)
{
	struct dev_profile d = v100();

	CU_ASSERT_DOUBLE_EQUAL(wl_duty_from_util(&d, 0.8), 0.8, 1e-15);
	d.util_duty_scale = 0.7;
	d.util_duty_exp = 1.25;
	CU_ASSERT_DOUBLE_EQUAL(wl_duty_from_util(&d, 0.8),
			       0.7 * pow(0.8, 1.25), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(wl_duty_from_util(&d, 0.0), 1e-3, 0);
	d.util_duty_scale = 2;
	CU_ASSERT_DOUBLE_EQUAL(wl_duty_from_util(&d, 0.9), 1.0, 0);
}

static void test_infer_memory_allreduce(void)
{
	struct dev_profile d = t4();
	const struct zoo_model *r50 = zoo_find("resnet50");
	uint64_t mem = wl_infer_memory(r50, &d, 32);

	CU_ASSERT_EQUAL(mem, d.ctx_bytes + 2ULL * 25557032 +
			32 * (r50->act_infer_bytes / 2));
	CU_ASSERT(mem < d.hbm_bytes);
	/* LLaMA-7B at FP16: 13.5 GB of weights alone */
	CU_ASSERT(wl_infer_memory(zoo_find("llama-7b"), &d, 1) >
		  2ULL * 6738415616ULL);
	/* ring all-reduce: 2 (n-1)/n of the FP32 gradients */
	CU_ASSERT_EQUAL(wl_allreduce_bytes(r50, WL_PREC_FP32, 4),
			153342192ULL);
	CU_ASSERT_EQUAL(wl_allreduce_bytes(r50, WL_PREC_MIXED, 2),
			2ULL * 25557032);
	CU_ASSERT_EQUAL(wl_allreduce_bytes(r50, WL_PREC_FP32, 1), 0);
}

static void test_parse_names(void)
{
	enum wl_optimizer o;
	enum wl_precision p;

	CU_ASSERT_EQUAL(wl_optimizer_parse("Adam", &o), 0);
	CU_ASSERT_EQUAL(o, WL_OPT_ADAM);
	CU_ASSERT_EQUAL(wl_optimizer_parse("lamb", &o), SIM_EINVAL);
	CU_ASSERT_EQUAL(wl_precision_parse("MIXED", &p), 0);
	CU_ASSERT_EQUAL(p, WL_PREC_MIXED);
	CU_ASSERT_EQUAL(wl_precision_parse("fp16", &p), SIM_EINVAL);
	CU_ASSERT_STRING_EQUAL(wl_optimizer_name(WL_OPT_MOMENTUM), "momentum");
	CU_ASSERT_STRING_EQUAL(wl_precision_name(WL_PREC_FP32), "fp32");
}

TEST_REGISTER(workload)
{
	static const struct test_case cases[] = {
		{ "state bytes per parameter (ZeRO)", test_state_bytes },
		{ "memory against published limits", test_memory_limits },
		{ "latency curve vs published TensorRT", test_latency_curve },
		{ "latency fit reproduced with GSL", test_latency_fit },
		{ "latency and profile shapes", test_latency_shape },
		{ "training throughput vs DLE", test_train_iter },
		{ "fitted host cost, eta and the rule", test_train_fit },
		{ "fit memo = wl_train_fit_of", test_fit_memo },
		{ "utilisation to duty", test_duty_from_util },
		{ "inference memory, all-reduce", test_infer_memory_allreduce },
		{ "optimizer/precision names", test_parse_names },
		{ NULL, NULL }
	};
	return test_add_suite("workload", cases);
}
