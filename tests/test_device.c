/*
** test_device.c: device profiles (models/device.c): the shipped catalog's
** values against the datasheets and the H200 measurements, and one
** malformed file per error class, each naming file and line.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/device.h"
#include "tests/util.h"

/* A minimal valid profile; line numbers below refer to this text. */
static const char *const base_ini =
	"; test profile\n"                                          /* 1 */
	"[device]\n"                                                /* 2 */
	"name = testgpu\n"                                          /* 3 */
	"display = Test GPU\n"                                      /* 4 */
	"hbm_bytes = 1000 @ spec test\n"                            /* 5 */
	"hbm_bw_bytes_per_s = 1e12 @ spec test\n"                   /* 6 */
	"l2_bytes = 100 @ spec test\n"                              /* 7 */
	"ctx_bytes = 10 @ spec assumption: test\n"                  /* 8 */
	"sms = 100 @ measured 2026-01-01 test\n"                    /* 9 */
	"fp32_flops = 1e13 @ spec test\n"                           /* 10 */
	"fp16_flops = 1e14 @ spec test\n"                           /* 11 */
	"bf16_flops = 0 @ spec test\n"                              /* 12 */
	"pcie_gen = 4 @ spec test\n"                                /* 13 */
	"h2d_pinned_bytes_per_s = 2e10 @ spec test\n"               /* 14 */
	"d2h_pinned_bytes_per_s = 2e10 @ spec test\n"               /* 15 */
	"h2d_pageable_bytes_per_s = 1e10 @ spec test\n"             /* 16 */
	"d2h_pageable_bytes_per_s = 1e10 @ spec test\n"             /* 17 */
	"pcie_latency_ns = 10000 @ spec test\n"                     /* 18 */
	"nvlink_bytes_per_s = 0 @ spec test\n"                      /* 19 */
	"ts_quantum_ns = 1024000 @ spec test\n"                     /* 20 */
	"ts_switch_ns = 25000 @ fitted 2026-11-30 test r2=0.99\n"   /* 21 */
	"mps_contention_k = 0.05 @ spec test\n"                     /* 22 */
	"uvm_bytes_per_s = 1e10 @ spec test\n"                      /* 23 */
	"\n"                                                        /* 24 */
	"[mig 1g.1gb]\n"                                            /* 25 */
	"max_count = 7 @ spec test\n"                               /* 26 */
	"sms = 14 @ spec test\n"                                    /* 27 */
	"hbm_bytes = 125 @ spec test\n"                             /* 28 */
	"bw_frac = 0.125 @ spec test\n";                            /* 29 */

static const char *write_ini(const char *name, const char *text)
{
	const char *p = test_write(name, NULL, text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/* base_ini with line `line` (1-based) replaced by repl (NULL: deleted). */
static const char *variant(int line, const char *repl)
{
	static char buf[8192];
	const char *p = base_ini;
	size_t len = 0;
	int ln = 1;

	while (*p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t n = (size_t)(eol - p) + 1;

		if (ln == line) {
			if (repl != NULL)
				len += (size_t)snprintf(buf + len, sizeof buf -
							len, "%s\n", repl);
		} else {
			memcpy(buf + len, p, n);
			len += n;
		}
		p += n;
		ln++;
	}
	buf[len] = '\0';
	return buf;
}

/* Loads text and expects code and "path:line:" plus a fragment. */
static void expect_error(const char *text, int code, int line,
			 const char *fragment)
{
	struct dev_profile *d = malloc(sizeof *d);
	struct sim_err err;
	char want[600];
	const char *path = write_ini("bad.ini", text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(dev_load_file(path, d, &err), code);
	snprintf(want, sizeof want, "%s:%d:", path, line);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, fragment));
	if (strstr(err.msg, want) == NULL || strstr(err.msg, fragment) == NULL)
		fprintf(stderr, "\n  got: %s\n  want: %s ... %s\n", err.msg,
			want, fragment);
	free(d);
}

static void test_valid_base(void)
{
	struct dev_profile *d = malloc(sizeof *d);
	struct sim_err err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(dev_load_file(write_ini("ok.ini", base_ini), d, &err),
			0);
	CU_ASSERT_STRING_EQUAL(d->name, "testgpu");
	CU_ASSERT_EQUAL(d->hbm_bytes, 1000);
	CU_ASSERT_EQUAL(d->sms, 100);
	CU_ASSERT_EQUAL(d->ts_quantum_ns, 1024000);
	CU_ASSERT_DOUBLE_EQUAL(d->mps_contention_k, 0.05, 1e-15);
	CU_ASSERT_EQUAL(d->nmig, 1);
	CU_ASSERT_EQUAL(d->mig[0].compute_slices, 1);
	CU_ASSERT_EQUAL(d->mig[0].hbm_bytes, 125);
	CU_ASSERT_STRING_EQUAL(dev_source(d, "ts_switch_ns"),
			       "fitted 2026-11-30 test r2=0.99");
	CU_ASSERT_STRING_EQUAL(dev_source(d, "mig 1g.1gb.bw_frac"), "spec test");
	CU_ASSERT_PTR_NULL(dev_source(d, "nonexistent"));
	free(d);
}

static void test_errors(void)
{
	struct dev_profile *d = malloc(sizeof *d);
	struct sim_err err;
	char longline[400];

	expect_error(variant(9, "smz = 100 @ spec x"), SIM_EPARSE, 9,
		     "smz: unknown key");
	expect_error(variant(9, NULL), SIM_EPARSE, 2,
		     "missing required key sms");
	expect_error(variant(9, "sms = 100"), SIM_EPARSE, 9, "missing source");
	expect_error(variant(9, "sms = 100 @ guess"), SIM_EPARSE, 9,
		     "must start with spec, measured or fitted");
	expect_error(variant(9, "sms = 1x0 @ spec x"), SIM_EPARSE, 9,
		     "expected a number");
	expect_error(variant(9, "sms = -4 @ spec x"), SIM_EPARSE, 9,
		     "positive");
	expect_error(variant(9, "sms = 2.5 @ spec x"), SIM_EPARSE, 9,
		     "whole number");
	expect_error(variant(10, "sms = 100 @ spec x"), SIM_EPARSE, 10,
		     "given twice");
	expect_error(variant(25, "[gadget]"), SIM_EPARSE, 25,
		     "unknown section");
	expect_error(variant(25, "[mig big]"), SIM_EPARSE, 25, "<N>g.");
	expect_error(variant(27, NULL), SIM_EPARSE, 25,
		     "[mig 1g.1gb]: missing required key sms");
	expect_error(variant(29, "bw_frac = 1.5 @ spec x"), SIM_EPARSE, 29,
		     "fraction");
	expect_error(variant(28, "hbm_bytes = 5000 @ spec x"), SIM_EPARSE, 25,
		     "more SMs or memory than the device");
	expect_error(variant(3, "name = Bad Name"), SIM_EPARSE, 2,
		     "expected lower-case");
	expect_error(variant(2, "[devise]"), SIM_EPARSE, 2, "unknown section");
	expect_error(variant(12, "bf16_flops 0"), SIM_EPARSE, 12,
		     "expected '[section]'");
	memset(longline, 'x', sizeof longline);
	memcpy(longline, "display = ", 10);
	longline[sizeof longline - 1] = '\0';
	expect_error(variant(4, longline), SIM_EPARSE, 4, "line too long");

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(dev_load_file("/nonexistent/x.ini", d, &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.ini"));
	free(d);
}

/* The shipped catalog: every profile loads, every required numeric key
** names a source, and the headline figures match the datasheets. */
static void test_catalog(void)
{
	static const char *const keys[] = {
		"hbm_bytes", "hbm_bw_bytes_per_s", "l2_bytes", "ctx_bytes",
		"sms", "fp32_flops", "fp16_flops", "bf16_flops", "pcie_gen",
		"h2d_pinned_bytes_per_s", "d2h_pinned_bytes_per_s",
		"h2d_pageable_bytes_per_s", "d2h_pageable_bytes_per_s",
		"pcie_latency_ns", "nvlink_bytes_per_s", "ts_quantum_ns",
		"ts_switch_ns", "mps_contention_k", "uvm_bytes_per_s", NULL
	};
	static const char *const need[] = {
		"v100-16gb", "v100-32gb", "a100-40gb", "a100-80gb", "h100-sxm",
		"h100-pcie", "h200", "a10", "l4", "t4", "p100",
		"G2", "G3", "V100M16", "V100M32", NULL
	};
	struct dev_catalog cat;
	struct sim_err err;
	const struct dev_profile *d;
	char names[512];
	size_t i;
	int k, m;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	CU_ASSERT(cat.n >= 11);
	for (i = 0; need[i] != NULL; i++)
		CU_ASSERT_PTR_NOT_NULL(dev_catalog_find(&cat, need[i]));
	for (i = 0; i < cat.n; i++) {
		d = &cat.devs[i];
		if (i > 0)
			CU_ASSERT(strcmp(cat.devs[i - 1].name, d->name) < 0);
		for (k = 0; keys[k] != NULL; k++)
			CU_ASSERT_PTR_NOT_NULL(dev_source(d, keys[k]));
		CU_ASSERT_EQUAL(d->ts_quantum_ns, 1024000);
		for (m = 0; m < d->nmig; m++)
			CU_ASSERT(d->mig[m].sms <= d->sms);
	}
	CU_ASSERT_PTR_EQUAL(dev_catalog_find(&cat, "v100m16"),
			    dev_catalog_find(&cat, "v100-16gb"));
	CU_ASSERT_PTR_NULL(dev_catalog_find(&cat, "nosuchgpu"));

	/* H200: the measurements. */
	d = dev_catalog_find(&cat, "h200");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->sms, 132);
	CU_ASSERT_EQUAL(d->hbm_bytes, UINT64_C(143771) << 20);
	CU_ASSERT_EQUAL(d->l2_bytes, UINT64_C(60) << 20);
	CU_ASSERT_DOUBLE_EQUAL(d->hbm_bw_bytes_per_s, 4.3e12, 1);
	CU_ASSERT_DOUBLE_EQUAL(d->sm_clock_hz, 1.98e9, 1);
	CU_ASSERT(d->bf16_achieved_flops >= 7.69e14 &&
		  d->bf16_achieved_flops <= 7.98e14);
	CU_ASSERT_EQUAL(strncmp(dev_source(d, "sms"), "measured", 8), 0);
	CU_ASSERT_EQUAL(d->nmig, 5);
	m = dev_mig_find(d, "1g.18gb");
	CU_ASSERT(m >= 0);
	if (m >= 0) {
		CU_ASSERT_EQUAL(d->mig[m].max_count, 7);
		CU_ASSERT_EQUAL(d->mig[m].sms, 16);
	}
	CU_ASSERT(dev_mig_find(d, "7g.141gb") >= 0);

	/* H100-SXM MIG SMs 16/32/60/64/132 (issue 3). */
	d = dev_catalog_find(&cat, "h100-sxm");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->nmig, 5);
	if (d->nmig == 5) {
		CU_ASSERT_EQUAL(d->mig[0].sms, 16);
		CU_ASSERT_EQUAL(d->mig[1].sms, 32);
		CU_ASSERT_EQUAL(d->mig[2].sms, 60);
		CU_ASSERT_EQUAL(d->mig[3].sms, 64);
		CU_ASSERT_EQUAL(d->mig[4].sms, 132);
	}
	/* A100-40GB: 1g.5gb x7 ... 7g.40gb; 1555 GB/s; 108 SMs. */
	d = dev_catalog_find(&cat, "a100-40gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(d->sms, 108);
	CU_ASSERT_DOUBLE_EQUAL(d->hbm_bw_bytes_per_s, 1.555e12, 1);
	m = dev_mig_find(d, "1g.5gb");
	CU_ASSERT(m >= 0 && d->mig[m].max_count == 7);
	CU_ASSERT(dev_mig_find(d, "7g.40gb") >= 0);
	/* no BF16 before Ampere */
	CU_ASSERT_EQUAL(dev_catalog_find(&cat, "t4")->bf16_flops, 0);
	CU_ASSERT_EQUAL(dev_catalog_find(&cat, "v100m32")->hbm_bytes,
			UINT64_C(32) << 30);

	dev_catalog_names(&cat, names, sizeof names);
	CU_ASSERT_PTR_NOT_NULL(strstr(names, "a100-40gb, a100-80gb"));
	dev_catalog_fini(&cat);
	CU_ASSERT_EQUAL(cat.n, 0);
}

/* Two files claiming one name are refused. */
static void test_catalog_clash(void)
{
	struct dev_catalog cat;
	struct sim_err err;
	char dir[512], path[600];
	FILE *f;

	snprintf(dir, sizeof dir, "%s/clash", test_tmpdir());
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/a.ini", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(base_ini, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/b.ini", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(variant(3, "name = other\naliases = x1, testgpu"), f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(dev_catalog_load(&cat, dir, &err), SIM_EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "already used"));
	CU_ASSERT_EQUAL(cat.n, 0);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(dev_catalog_load(&cat, "/nonexistent", &err),
			SIM_ENOENT);
}

TEST_REGISTER(device)
{
	static const struct test_case cases[] = {
		{ "valid profile", test_valid_base },
		{ "errors name file and line", test_errors },
		{ "shipped catalog", test_catalog },
		{ "name clash", test_catalog_clash },
		{ NULL, NULL }
	};
	return test_add_suite("device", cases);
}
