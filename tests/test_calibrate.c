/*
** test_calibrate.c: the raw-CSV reader and the calibration fits
** (models/calibration/).  Synthetic raw CSVs are generated here from known
** device parameters with seeded Gaussian noise; the fits must recover the
** parameters within tolerances that the noise level justifies.  Malformed
** files must fail with "file:line:column: column-name: ..." errors.
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>
#include <ini.h>

#include "models/calibration/cal_fit.h"
#include "models/device.h"
#include "sim/rng.h"
#include "tests/util.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* The parameters the synthetic device is made from. */
static const struct {
	const char *kind;
	double bw, lat_ns;
} copies[] = {
	{ "h2d_pinned", 25e9, 8000 }, { "d2h_pinned", 26e9, 9000 },
	{ "h2d_pageable", 12e9, 15000 }, { "d2h_pageable", 10e9, 16000 },
	{ "d2d", 2.0e12, 5000 },
};
#define HBM_BW 4.0e12
#define HBM_SAT_SMS 60.0
#define MPS_SAT_COMPUTE 0.5
#define MPS_SAT_MEMORY 0.3
#define K_MPS 0.15
#define K_STREAMS 0.05
#define TS_Q_NS 2.0e6
#define TS_C_NS 25.0e3
#define UVM_FREE (4 * GIB)
#define UVM_SEQ 12e9
#define UVM_RANDOM 3e9
#define UVM_TOUCH 3e12           /* resident touch rate, bytes/s */
#define CTX_BYTES 536870912.0
/* The direct measurements (medians, written `@ measured`). */
#define CTX_CREATE_NS 180.0e6
#define MAX_ALLOC_BYTES 148000000000.0
#define LAUNCH_NS 2200.0
#define ROUNDTRIP_NS 7800.0
#define FP32_FMA 6.1e13
#define FP16_FMA 1.2e14
#define GEMM_FP16 7.6e14         /* the best of two sizes */
#define GEMM_FP32 5.0e13

struct gen {
	FILE *f;
	struct sim_rng rng;
	double noise;                /* relative standard deviation */
};

static void row(struct gen *g, const char *mode, const char *bench,
		const char *variant, const char *param, double pv,
		const char *metric, const char *unit, double value, double noise)
{
	double m = value * (1.0 + noise * gsl_ran_gaussian(g->rng.r, 1.0));

	fprintf(g->f, "colosim-raw-1,TestGPU,%s,%s,%s,%s,%.17g,%s,%s,10,"
		"%.17g,%.17g,%.17g,%.17g,%.17g\n", mode, bench, variant, param,
		pv, metric, unit, m, m * 0.97, m * 1.03, m * 0.95, m * 1.05);
}

static const char *write_synthetic(const char *name, double noise,
				   uint64_t seed)
{
	static char path[512];
	static const struct { const char *k; double sm, bw; } kern[] = {
		{ "compute", 1.0, 0.05 }, { "memory", 1.0, 1.0 },
		{ "l2", 1.0, 0.02 }, { "small", 0.06, 0.01 },
	};
	struct gen g;
	size_t i, j;
	double b, p, r;
	int n, sms;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
	g.f = fopen(path, "w");
	g.noise = noise;
	CU_ASSERT_FATAL(g.f != NULL);
	CU_ASSERT_FATAL(sim_rng_init(&g.rng, seed, "calib-synth", 0, NULL) == 0);
	fprintf(g.f, "%s\n", CAL_RAW_HEADER);
	for (i = 0; i < sizeof copies / sizeof copies[0]; i++)
		for (b = 4096; b <= GIB; b *= 2)
			row(&g, "exclusive", "memcpy_sweep", copies[i].kind,
			    "bytes", b, "time", "ns",
			    copies[i].lat_ns + b / copies[i].bw * 1e9, noise);
	for (sms = 4; sms <= 132; sms += 8)
		row(&g, "exclusive", "hbm_stream", "copy", "sms", sms,
		    "bandwidth", "bytes_per_s",
		    HBM_BW * fmin(1.0, sms / HBM_SAT_SMS), noise);
	for (p = 10; p <= 100; p += 10) {
		row(&g, "mps", "mps_sweep", "compute", "percent", p, "time",
		    "ns", 1e6 * fmax(1.0, MPS_SAT_COMPUTE / (p / 100)), noise);
		row(&g, "mps", "mps_sweep", "memory", "percent", p, "time",
		    "ns", 2e6 * fmax(1.0, MPS_SAT_MEMORY / (p / 100)), noise);
	}
	for (i = 0; i < 4; i++) {
		row(&g, "exclusive", "corun_matrix", kern[i].k, "none", 0,
		    "sm_frac", "ratio", kern[i].sm, 0);
		row(&g, "exclusive", "corun_matrix", kern[i].k, "none", 0,
		    "bw_frac", "ratio", kern[i].bw, 0);
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			char v[64];
			double base = fmax(1.0, fmax(kern[i].sm + kern[j].sm,
						     kern[i].bw + kern[j].bw));

			snprintf(v, sizeof v, "%s+%s", kern[i].k, kern[j].k);
			row(&g, "mps", "corun_matrix", v, "none", 0, "slowdown",
			    "ratio", (1 + K_MPS) * base, noise);
			row(&g, "streams", "corun_matrix", v, "none", 0,
			    "slowdown", "ratio", (1 + K_STREAMS) * base, noise);
		}
	/* Time slicing is measured to far better than 1% (globaltimer). */
	for (n = 2; n <= 4; n++) {
		row(&g, "timeslice", "timeslice", "spin", "nproc", n, "run",
		    "ns", TS_Q_NS, noise / 20);
		row(&g, "timeslice", "timeslice", "spin", "nproc", n, "gap",
		    "ns", TS_C_NS, noise / 20);
		row(&g, "timeslice", "timeslice", "spin", "nproc", n, "period",
		    "ns", n * (TS_Q_NS + TS_C_NS), noise / 20);
	}
	for (r = 0.5; r <= 2.0; r += 0.25) {
		double s = r * UVM_FREE, ex = s - UVM_FREE;

		row(&g, "exclusive", "uvm_oversub", "seq", "excess_bytes", ex,
		    "time", "ns", (s / UVM_TOUCH + fmax(0, ex) / UVM_SEQ) * 1e9,
		    noise);
		row(&g, "exclusive", "uvm_oversub", "random", "excess_bytes", ex,
		    "time", "ns",
		    (s / UVM_TOUCH + fmax(0, ex) / UVM_RANDOM) * 1e9, noise);
	}
	row(&g, "exclusive", "capacity", "context", "none", 0, "ctx_bytes",
	    "bytes", CTX_BYTES, 0);
	row(&g, "exclusive", "capacity", "context", "none", 0, "ctx_create",
	    "ns", CTX_CREATE_NS, 0);
	row(&g, "exclusive", "capacity", "malloc", "none", 0, "largest",
	    "bytes", MAX_ALLOC_BYTES, 0);
	row(&g, "exclusive", "launch", "empty", "none", 0, "launch", "ns",
	    LAUNCH_NS, 0);
	row(&g, "exclusive", "launch", "empty", "none", 0, "roundtrip", "ns",
	    ROUNDTRIP_NS, 0);
	row(&g, "exclusive", "compute_peak", "fp32_fma", "none", 0, "rate",
	    "flops_per_s", FP32_FMA, 0);
	row(&g, "exclusive", "compute_peak", "fp16_fma", "none", 0, "rate",
	    "flops_per_s", FP16_FMA, 0);
	row(&g, "exclusive", "compute_peak", "gemm_fp16", "n", 4096, "rate",
	    "flops_per_s", 0.9 * GEMM_FP16, 0);
	row(&g, "exclusive", "compute_peak", "gemm_fp16", "n", 8192, "rate",
	    "flops_per_s", GEMM_FP16, 0);
	row(&g, "exclusive", "compute_peak", "gemm_fp32", "n", 8192, "rate",
	    "flops_per_s", GEMM_FP32, 0);
	sim_rng_fini(&g.rng);
	CU_ASSERT_FATAL(fclose(g.f) == 0);
	return path;
}

static const struct cal_fit *need(const struct cal_result *res,
				  const char *name)
{
	const struct cal_fit *f = cal_result_find(res, name);

	CU_ASSERT_PTR_NOT_NULL(f);
	if (f == NULL)
		fprintf(stderr, "\nmissing fit %s\n", name);
	return f;
}

static void check_rel(const struct cal_result *res, const char *name,
		      double want, double tol)
{
	const struct cal_fit *f = need(res, name);
	int ok;

	if (f == NULL)
		return;
	ok = fabs(f->value - want) <= tol * fabs(want);
	CU_ASSERT(ok);
	if (!ok)
		fprintf(stderr, "\n%s = %g, want %g +- %g%%\n", name, f->value,
			want, 100 * tol);
}
#define CHECK_REL(res, name, want, tol) check_rel(res, name, want, tol)

static void fit_file(const char *path, struct cal_result *res)
{
	struct cal_raw raw;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(cal_raw_read(&raw, path, &err), 0);
	CU_ASSERT_STRING_EQUAL(raw.device, "TestGPU");
	CU_ASSERT_EQUAL_FATAL(cal_fit_all(&raw, res, &err), 0);
	cal_raw_fini(&raw);
}

/* Without noise every regression is exact. */
static void test_exact(void)
{
	static struct cal_result res;
	size_t i;

	fit_file(write_synthetic("exact.csv", 0, 1), &res);
	CU_ASSERT_EQUAL(res.nskipped, 0);
	for (i = 0; i < sizeof copies / sizeof copies[0]; i++) {
		char name[64];

		snprintf(name, sizeof name, "%s_bytes_per_s", copies[i].kind);
		CHECK_REL(&res, name, copies[i].bw, 1e-6);
		snprintf(name, sizeof name, "%s_latency_ns", copies[i].kind);
		CHECK_REL(&res, name, copies[i].lat_ns, 1e-4);
		CU_ASSERT(need(&res, name) && need(&res, name)->r2 > 0.999999);
	}
	CHECK_REL(&res, "pcie_latency_ns", 8500, 1e-4);
	CHECK_REL(&res, "hbm_bw_bytes_per_s", HBM_BW, 1e-6);
	CHECK_REL(&res, "hbm_sat_sms", HBM_SAT_SMS, 1e-4);
	CHECK_REL(&res, "mps_sat_compute", MPS_SAT_COMPUTE, 1e-4);
	CHECK_REL(&res, "mps_sat_memory", MPS_SAT_MEMORY, 1e-4);
	CHECK_REL(&res, "mps_contention_k", K_MPS, 1e-9);
	CHECK_REL(&res, "streams_contention_k", K_STREAMS, 1e-9);
	CHECK_REL(&res, "ts_quantum_ns", TS_Q_NS, 1e-9);
	CHECK_REL(&res, "ts_switch_ns", TS_C_NS, 1e-6);
	/* t = S / touch + excess / rate, S = free + excess: the fitted
	** marginal rate is 1 / (1/touch + 1/rate). */
	CHECK_REL(&res, "uvm_bytes_per_s", 1 / (1 / UVM_TOUCH + 1 / UVM_SEQ),
		  1e-6);
	CHECK_REL(&res, "uvm_random_bytes_per_s",
		  1 / (1 / UVM_TOUCH + 1 / UVM_RANDOM), 1e-6);
	CHECK_REL(&res, "ctx_bytes", CTX_BYTES, 0);
	CU_ASSERT(need(&res, "ctx_bytes") && isnan(need(&res, "ctx_bytes")->r2));
	CHECK_REL(&res, "ctx_create_ns", CTX_CREATE_NS, 0);
	CHECK_REL(&res, "max_alloc_bytes", MAX_ALLOC_BYTES, 0);
	CHECK_REL(&res, "launch_overhead_ns", LAUNCH_NS, 0);
	CHECK_REL(&res, "kernel_roundtrip_ns", ROUNDTRIP_NS, 0);
	CHECK_REL(&res, "fp32_fma_flops", FP32_FMA, 0);
	CHECK_REL(&res, "fp16_fma_flops", FP16_FMA, 0);
	CHECK_REL(&res, "gemm_fp16_flops", GEMM_FP16, 0);
	CHECK_REL(&res, "gemm_fp32_flops", GEMM_FP32, 0);
	/* 5 x 2 copy fits, pcie_latency_ns, 2 HBM, 2 MPS knees, 2 k, 2 time
	** slice, 2 UVM, 9 direct measurements: every fit there is. */
	CU_ASSERT_EQUAL(res.n, 30);
	/* Every fit is a key the device loader knows. */
	for (i = 0; i < res.n; i++) {
		CU_ASSERT(res.fits[i].in_profile);
		if (!res.fits[i].in_profile)
			fprintf(stderr, "\n%s: not a profile key\n",
				res.fits[i].name);
	}
}

/* 1% noise (seeded): the parameters within a few percent, r^2 high.
** Several seeds so that one lucky draw cannot pass the test. */
static void test_noisy(void)
{
	static struct cal_result res;
	uint64_t seed;
	size_t i;

	for (seed = 1; seed <= 5; seed++) {
		fit_file(write_synthetic("noisy.csv", 0.01, seed), &res);
		for (i = 0; i < sizeof copies / sizeof copies[0]; i++) {
			char name[64];

			snprintf(name, sizeof name, "%s_bytes_per_s",
				 copies[i].kind);
			CHECK_REL(&res, name, copies[i].bw, 0.03);
			CU_ASSERT(need(&res, name) && need(&res, name)->r2 > 0.99);
			snprintf(name, sizeof name, "%s_latency_ns",
				 copies[i].kind);
			CHECK_REL(&res, name, copies[i].lat_ns, 0.05);
		}
		CHECK_REL(&res, "hbm_bw_bytes_per_s", HBM_BW, 0.02);
		CHECK_REL(&res, "hbm_sat_sms", HBM_SAT_SMS, 0.05);
		CHECK_REL(&res, "mps_sat_compute", MPS_SAT_COMPUTE, 0.05);
		CHECK_REL(&res, "mps_sat_memory", MPS_SAT_MEMORY, 0.05);
		CHECK_REL(&res, "mps_contention_k", K_MPS, 0.1);
		CHECK_REL(&res, "streams_contention_k", K_STREAMS, 0.3);
		CHECK_REL(&res, "ts_quantum_ns", TS_Q_NS, 0.005);
		CHECK_REL(&res, "ts_switch_ns", TS_C_NS, 0.25);
		CHECK_REL(&res, "uvm_bytes_per_s",
			  1 / (1 / UVM_TOUCH + 1 / UVM_SEQ), 0.05);
		CHECK_REL(&res, "uvm_random_bytes_per_s",
			  1 / (1 / UVM_TOUCH + 1 / UVM_RANDOM), 0.05);
		CU_ASSERT(need(&res, "hbm_bw_bytes_per_s") &&
			  need(&res, "hbm_bw_bytes_per_s")->r2 > 0.98);
	}
}

/* A file with one malformed spot: the error names file:line:column. */
static void expect_error(const char *name, const char *text, int code,
			 const char *where, const char *what)
{
	char path[512];
	struct cal_raw raw;
	struct sim_err err;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cal_raw_read(&raw, path, &err), code);
	CU_ASSERT_EQUAL(err.code, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, where));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	if (strstr(err.msg, where) == NULL || strstr(err.msg, what) == NULL)
		fprintf(stderr, "\n%s: got '%s', want '%s' and '%s'\n", name,
			err.msg, where, what);
	cal_raw_fini(&raw);
}

#define H CAL_RAW_HEADER "\n"
#define OK "colosim-raw-1,G,exclusive,launch,empty,none,0,launch,ns,10," \
	   "5,4,6,3,7\n"

static void test_malformed(void)
{
	struct cal_raw raw;
	struct sim_err err;

	expect_error("hdr.csv", "schema,device,mode,bench,variant,param,"
		     "param_val,metric,unit,n,median,p05,p95,min,max\n" OK,
		     SIM_EPARSE, "hdr.csv:1:7:", "expected 'param_value'");
	expect_error("num.csv", H OK "colosim-raw-1,G,exclusive,launch,empty,"
		     "none,0,launch,ns,10,fast,4,6,3,7\n", SIM_EPARSE,
		     "num.csv:3:11:", "median: expected a finite number");
	expect_error("short.csv", H "colosim-raw-1,G,exclusive,launch,empty,"
		     "none,0,launch,ns,10,5,4,6,3\n", SIM_EPARSE,
		     "short.csv:2:15:", "max: missing");
	expect_error("long.csv", H "colosim-raw-1,G,exclusive,launch,empty,"
		     "none,0,launch,ns,10,5,4,6,3,7,9\n", SIM_EPARSE,
		     "long.csv:2:16:", "found 16 columns");
	expect_error("schema.csv", H "colosim-raw-9,G,exclusive,launch,empty,"
		     "none,0,launch,ns,10,5,4,6,3,7\n", SIM_EPARSE,
		     "schema.csv:2:1:", "expected 'colosim-raw-1'");
	expect_error("order.csv", H OK OK "colosim-raw-1,G,exclusive,launch,"
		     "empty,none,0,launch,ns,10,5,4,4.5,3,7\n", SIM_EPARSE,
		     "order.csv:4:13:", "p95");
	expect_error("dev.csv", H OK "colosim-raw-1,H,exclusive,launch,empty,"
		     "none,0,launch,ns,10,5,4,6,3,7\n", SIM_EPARSE,
		     "dev.csv:3:2:", "device: 'H' differs");
	expect_error("n.csv", H "colosim-raw-1,G,exclusive,launch,empty,none,"
		     "0,launch,ns,0,5,4,6,3,7\n", SIM_EPARSE, "n.csv:2:10:",
		     "n: expected a whole number");
	expect_error("space.csv", H "colosim-raw-1,G,exclusive,launch,em pty,"
		     "none,0,launch,ns,10,5,4,6,3,7\n", SIM_EPARSE,
		     "space.csv:2:5:", "variant");
	expect_error("quote.csv", H "colosim-raw-1,G,\"exclusive,launch\n",
		     SIM_EPARSE, "quote.csv:2:17:", "unterminated quoted field");
	expect_error("empty.csv", "", SIM_EPARSE, "empty.csv:1:", "header");
	expect_error("nodata.csv", H, SIM_EPARSE, "nodata.csv:2:", "no data");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cal_raw_read(&raw, "/nonexistent/raw.csv", &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/raw.csv"));
	cal_raw_fini(&raw);
}

/* Collects [device] key = value pairs through libinih. */
struct ini_seen {
	char keys[64][64];
	char vals[64][256];
	int n, other_sections;
};

static int ini_cb(void *user, const char *sec, const char *key,
		  const char *val)
{
	struct ini_seen *s = user;

	if (strcmp(sec, "device") != 0) {
		s->other_sections++;
		return 1;
	}
	if (s->n < 64) {
		snprintf(s->keys[s->n], 64, "%s", key);
		snprintf(s->vals[s->n], 256, "%s", val);
		s->n++;
	}
	return 1;
}

static const char *seen(const struct ini_seen *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return s->vals[i];
	return NULL;
}

static char *read_all(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_profile_write(void)
{
	static struct cal_result res;
	static const char before[] =
		"; H200 test profile\n"
		"[device]\n"
		"name = testgpu @ spec test\n"
		"h2d_pinned_bytes_per_s = 1 @ spec old value\n"
		"# a comment that must survive\n"
		"hbm_bytes = 150323855360 @ spec datasheet\n"
		"\n"
		"[mig.1g]\n"
		"sms = 16 @ spec datasheet\n";
	char path[512], frag[512];
	struct ini_seen s;
	struct sim_err err;
	const char *v, *text;
	int fragment = -1;
	FILE *f;

	fit_file(write_synthetic("prof.csv", 0, 3), &res);
	snprintf(path, sizeof path, "%s/testgpu.ini", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(before, f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cal_profile_write(path, &res, "2026-01-02", "Test@GPU",
					  0, &fragment, &err), 0);
	CU_ASSERT_EQUAL(fragment, 0);
	memset(&s, 0, sizeof s);
	CU_ASSERT_EQUAL(ini_parse(path, ini_cb, &s), 0);
	v = seen(&s, "h2d_pinned_bytes_per_s");
	CU_ASSERT(v != NULL && strncmp(v, "2.5e+10 @ fitted 2026-01-02 Test GPU "
				       "r2=1.0000", 36) == 0);
	v = seen(&s, "ts_switch_ns");
	CU_ASSERT(v != NULL && strncmp(v, "25000 @ fitted", 14) == 0);
	v = seen(&s, "ctx_bytes");
	CU_ASSERT(v != NULL && strcmp(v, "536870912 @ measured 2026-01-02 "
				      "Test GPU") == 0);
	CU_ASSERT_STRING_EQUAL(seen(&s, "hbm_bytes") ? seen(&s, "hbm_bytes") :
			       "", "150323855360 @ spec datasheet");
	v = seen(&s, "hbm_sat_sms");          /* a calibration-only key */
	CU_ASSERT(v != NULL && strncmp(v, "60 @ fitted 2026-01-02", 22) == 0);
	CU_ASSERT_EQUAL(s.other_sections, 1);
	text = read_all(path);
	CU_ASSERT_FATAL(text != NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "; H200 test profile\n[device]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "# a comment that must survive\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "old value"));
	/* Appended keys land inside [device], before the blank line. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Test GPU\n\n[mig.1g]\nsms = 16"));
	/* A second run replaces, it does not duplicate. */
	CU_ASSERT_EQUAL(cal_profile_write(path, &res, "2026-01-03", "G", 1,
					  &fragment, &err), 0);
	memset(&s, 0, sizeof s);
	CU_ASSERT_EQUAL(ini_parse(path, ini_cb, &s), 0);
	CU_ASSERT_EQUAL(s.n, 2 + (int)res.n);
	CU_ASSERT_PTR_NOT_NULL(seen(&s, "hbm_sat_sms"));
	v = seen(&s, "ts_quantum_ns");
	CU_ASSERT(v != NULL && strstr(v, "fitted 2026-01-03 G r2=") != NULL);

	snprintf(frag, sizeof frag, "%s/new-fragment.ini", test_tmpdir());
	remove(frag);
	CU_ASSERT_EQUAL(cal_profile_write(frag, &res, "2026-01-02", "G", 0,
					  &fragment, &err), 0);
	CU_ASSERT_EQUAL(fragment, 1);
	memset(&s, 0, sizeof s);
	CU_ASSERT_EQUAL(ini_parse(frag, ini_cb, &s), 0);
	CU_ASSERT_EQUAL(s.n, (int)res.n);        /* every fit, by default */
	CU_ASSERT_EQUAL(s.other_sections, 0);
	/* An unwritable place fails cleanly. */
	CU_ASSERT_EQUAL(cal_profile_write("/nonexistent/dir/x.ini", &res, "d",
					  "G", 0, &fragment, &err), SIM_EIO);
}

/* Where each fitted key lands in struct dev_profile. */
enum pkind { P_DBL, P_TIME, P_U64 };
static const struct {
	const char *key;
	size_t off;
	enum pkind kind;
} pfields[] = {
#define PF(k, kind) { #k, offsetof(struct dev_profile, k), kind }
	PF(h2d_pinned_bytes_per_s, P_DBL), PF(d2h_pinned_bytes_per_s, P_DBL),
	PF(h2d_pageable_bytes_per_s, P_DBL), PF(d2h_pageable_bytes_per_s, P_DBL),
	PF(d2d_bytes_per_s, P_DBL), PF(h2d_pinned_latency_ns, P_TIME),
	PF(d2h_pinned_latency_ns, P_TIME), PF(h2d_pageable_latency_ns, P_TIME),
	PF(d2h_pageable_latency_ns, P_TIME), PF(d2d_latency_ns, P_TIME),
	PF(pcie_latency_ns, P_TIME), PF(hbm_bw_bytes_per_s, P_DBL),
	PF(hbm_sat_sms, P_DBL), PF(mps_sat_compute, P_DBL),
	PF(mps_sat_memory, P_DBL), PF(mps_contention_k, P_DBL),
	PF(streams_contention_k, P_DBL), PF(ts_quantum_ns, P_TIME),
	PF(ts_switch_ns, P_TIME), PF(uvm_bytes_per_s, P_DBL),
	PF(uvm_random_bytes_per_s, P_DBL), PF(ctx_bytes, P_U64),
	PF(ctx_create_ns, P_TIME), PF(max_alloc_bytes, P_U64),
	PF(launch_overhead_ns, P_TIME), PF(kernel_roundtrip_ns, P_TIME),
	PF(fp32_fma_flops, P_DBL), PF(fp16_fma_flops, P_DBL),
	PF(gemm_fp16_flops, P_DBL), PF(gemm_fp32_flops, P_DBL),
#undef PF
};

static double pvalue(const struct dev_profile *d, size_t i)
{
	const char *p = (const char *)d + pfields[i].off;
	double v;
	sim_time t;
	uint64_t u;

	switch (pfields[i].kind) {
	case P_TIME:
		memcpy(&t, p, sizeof t);
		return (double)t;
	case P_U64:
		memcpy(&u, p, sizeof u);
		return (double)u;
	case P_DBL:
		break;
	}
	memcpy(&v, p, sizeof v);
	return v;
}

/* Copies src to dst byte for byte; 0 on success. */
static int copy_file(const char *src, const char *dst)
{
	char buf[4096];
	FILE *in = fopen(src, "rb"), *out;
	size_t n;
	int bad = 0;

	if (in == NULL)
		return -1;
	out = fopen(dst, "wb");
	if (out == NULL) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		bad |= fwrite(buf, 1, n, out) != n;
	bad |= ferror(in);
	fclose(in);
	bad |= fclose(out) != 0;
	return bad ? -1 : 0;
}

/* The committed profiles have none of the calibration-only keys: each is 0
** ("not measured") after loading, so no model sees a change. */
static void test_optional_keys_absent(void)
{
	struct dev_profile *d = malloc(sizeof *d);
	struct sim_err err;
	size_t i;

	CU_ASSERT_FATAL(d != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(dev_load_file("models/devices/h200.ini", d,
					    &err), 0);
	for (i = 0; i < sizeof pfields / sizeof pfields[0]; i++) {
		CU_ASSERT(dev_key_known(pfields[i].key));
		if (dev_source(d, pfields[i].key) == NULL)
			CU_ASSERT_EQUAL(pvalue(d, i), 0);
	}
	CU_ASSERT_PTR_NULL(dev_source(d, "hbm_sat_sms"));
	CU_ASSERT_FALSE(dev_key_known("hbm_sat_smz"));
	free(d);
}

/* A bad value of an optional key is refused like any other. */
static void test_optional_key_errors(void)
{
	static const struct { const char *line, *what; } bad[] = {
		{ "mps_sat_memory = 1.5 @ fitted x", "fraction in [0, 1]" },
		{ "hbm_sat_sms = -3 @ fitted x", "number >= 0" },
		{ "d2d_latency_ns = 12.5 @ measured x", "whole number" },
		{ "gemm_fp16_flops = 7e14", "missing source" },
	};
	struct dev_profile *d = malloc(sizeof *d);
	char src[512], path[512], want[64];
	struct sim_err err;
	size_t i;
	FILE *f;

	CU_ASSERT_FATAL(d != NULL);
	snprintf(src, sizeof src, "%s/h200-base.ini", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(copy_file("models/devices/h200.ini", src), 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(path, sizeof path, "%s/h200-bad%zu.ini", test_tmpdir(),
			 i);
		CU_ASSERT_EQUAL_FATAL(copy_file(src, path), 0);
		f = fopen(path, "a");
		CU_ASSERT_FATAL(f != NULL);
		fprintf(f, "[device]\n%s\n", bad[i].line);
		fclose(f);
		/* A second [device] header continues the same section. */
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(dev_load_file(path, d, &err), SIM_EPARSE);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].what));
		snprintf(want, sizeof want, "h200-bad%zu.ini:", i);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
		if (strstr(err.msg, bad[i].what) == NULL)
			fprintf(stderr, "\n%s\n", err.msg);
	}
	free(d);
}

static const char *colosim_bin(void)
{
	const char *b = getenv("COLOSIM_BIN");
	return b && *b ? b : "build/colosim";
}

/*
** The loop: a raw CSV -> `colosim calibrate -o` into a copy of the
** H200 profile -> the profile loads, holds the fitted values with `fitted`
** or `measured` sources, and `colosim list devices NAME` shows them.
*/
static void test_calibrated_profile_loads(void)
{
	static struct cal_result res;
	struct dev_profile *d = malloc(sizeof *d);
	char dir[512], prof[600], cmd[2048], line[512];
	const char *raw = write_synthetic("e2e.csv", 0, 7);
	struct sim_err err;
	int listed[sizeof pfields / sizeof pfields[0]] = { 0 };
	size_t i, nmatched = 0;
	FILE *p;

	CU_ASSERT_FATAL(d != NULL);
	fit_file(raw, &res);
	snprintf(dir, sizeof dir, "%s/calib-devs", test_tmpdir());
	CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
	snprintf(prof, sizeof prof, "%s/h200.ini", dir);
	CU_ASSERT_EQUAL_FATAL(copy_file("models/devices/h200.ini", prof), 0);
	snprintf(cmd, sizeof cmd, "%s calibrate %s -o %s --date 2026-01-02 "
		 ">/dev/null 2>&1", colosim_bin(), raw, prof);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(dev_load_file(prof, d, &err), 0);
	CU_ASSERT_STRING_EQUAL(d->name, "h200");
	CU_ASSERT_EQUAL(d->nmig, 5);                  /* the rest is kept */
	CU_ASSERT_EQUAL(d->sms, 132);
	for (i = 0; i < sizeof pfields / sizeof pfields[0]; i++) {
		const struct cal_fit *f = need(&res, pfields[i].key);
		const char *src = dev_source(d, pfields[i].key);
		double got = pvalue(d, i);

		if (f == NULL)
			continue;
		nmatched++;
		/* Integers are written rounded, others to 6 digits. */
		CU_ASSERT(fabs(got - f->value) <= (pfields[i].kind == P_DBL ?
						   1e-5 * fabs(f->value) : 0.5));
		CU_ASSERT_PTR_NOT_NULL_FATAL(src);
		CU_ASSERT(strncmp(src, isnan(f->r2) ?
				  "measured 2026-01-02 TestGPU" :
				  "fitted 2026-01-02 TestGPU r2=", 27) == 0);
	}
	CU_ASSERT_EQUAL(nmatched, res.n);           /* every fit checked */
	/* Spot checks against the generator's parameters. */
	CU_ASSERT_DOUBLE_EQUAL(d->hbm_sat_sms, HBM_SAT_SMS, 1e-3);
	CU_ASSERT_EQUAL(d->d2d_latency_ns, 5000);
	CU_ASSERT_DOUBLE_EQUAL(d->d2d_bytes_per_s, 2.0e12, 2e7);
	CU_ASSERT_EQUAL(d->launch_overhead_ns, 2200);
	CU_ASSERT_EQUAL(d->max_alloc_bytes, 148000000000ull);
	CU_ASSERT_DOUBLE_EQUAL(d->gemm_fp16_flops, GEMM_FP16, 1e9);

	/* `colosim list devices --dir DIR h200` shows each with its source. */
	snprintf(cmd, sizeof cmd, "%s list devices --dir %s h200 2>&1",
		 colosim_bin(), dir);
	p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	while (fgets(line, sizeof line, p) != NULL) {
		char key[64];

		if (sscanf(line, " %63s", key) != 1)
			continue;
		for (i = 0; i < sizeof pfields / sizeof pfields[0]; i++)
			if (strcmp(key, pfields[i].key) == 0 &&
			    (strstr(line, "fitted 2026-01-02 TestGPU") ||
			     strstr(line, "measured 2026-01-02 TestGPU")))
				listed[i] = 1;
	}
	CU_ASSERT_EQUAL(pclose(p), 0);
	for (i = 0; i < sizeof pfields / sizeof pfields[0]; i++) {
		CU_ASSERT(listed[i]);
		if (!listed[i])
			fprintf(stderr, "\nlist devices: no %s line\n",
				pfields[i].key);
	}
	free(d);
}

/* A co-run faster than the first-order model (k < 0) is clamped to 0, so
** the written profile still loads (the key must be >= 0). */
static void test_negative_k_clamped(void)
{
	static struct cal_result res;
	struct cal_raw raw;
	struct sim_err err;
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/negk.csv", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "%s\n", CAL_RAW_HEADER);
	fputs("colosim-raw-1,G,exclusive,corun_matrix,a,none,0,sm_frac,ratio,"
	      "1,1,1,1,1,1\n"
	      "colosim-raw-1,G,exclusive,corun_matrix,a,none,0,bw_frac,ratio,"
	      "1,0.1,0.1,0.1,0.1,0.1\n"
	      "colosim-raw-1,G,exclusive,corun_matrix,b,none,0,sm_frac,ratio,"
	      "1,0.2,0.2,0.2,0.2,0.2\n"
	      "colosim-raw-1,G,exclusive,corun_matrix,b,none,0,bw_frac,ratio,"
	      "1,0.1,0.1,0.1,0.1,0.1\n"
	      "colosim-raw-1,G,streams,corun_matrix,a+b,none,0,slowdown,ratio,"
	      "10,1.1,1.1,1.1,1.1,1.1\n"
	      "colosim-raw-1,G,streams,corun_matrix,b+b,none,0,slowdown,ratio,"
	      "10,0.9,0.9,0.9,0.9,0.9\n", f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(cal_raw_read(&raw, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(cal_fit_all(&raw, &res, &err), 0);
	/* slope through the origin of (1.2, 1.1), (1, 0.9) is below 1. */
	CHECK_REL(&res, "streams_contention_k", 0, 0);
	cal_raw_fini(&raw);
}

static void test_nothing_to_fit(void)
{
	static struct cal_result res;
	struct cal_raw raw;
	struct sim_err err;
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/alloc-only.csv", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(H "colosim-raw-1,G,exclusive,alloc,cudaMalloc,bytes,4096,time,"
	      "ns,10,5,4,6,3,7\n", f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(cal_raw_read(&raw, path, &err), 0);
	CU_ASSERT_EQUAL(cal_fit_all(&raw, &res, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "alloc-only.csv"));
	cal_raw_fini(&raw);
}

TEST_REGISTER(calibrate)
{
	static const struct test_case cases[] = {
		{ "exact recovery without noise", test_exact },
		{ "recovery with 1% noise, 5 seeds", test_noisy },
		{ "malformed raw CSVs name line and column", test_malformed },
		{ "profile update keeps other lines", test_profile_write },
		{ "no usable rows is an error", test_nothing_to_fit },
		{ "committed profiles have no calibration keys",
		  test_optional_keys_absent },
		{ "bad calibration-key values name file and line",
		  test_optional_key_errors },
		{ "calibrate -o writes a loadable profile, list shows it",
		  test_calibrated_profile_loads },
		{ "negative contention k is clamped to 0",
		  test_negative_k_clamped },
		{ NULL, NULL }
	};
	return test_add_suite("calibrate", cases);
}
