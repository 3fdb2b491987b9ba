/*
** test_fit.c: the co-location fits (models/colofit.h, experiments/
** validate.h) and the readers of the measurement sets (models/meas.h).
**
**  - The committed constants regenerate from the data: when
**    ../shared/measurements is present, every row of models/train_fits.c
**    and the fitted keys of the rtx3090 and a100-40gb profiles equal what
**    the fits compute now (to the digits they are written with).  Skipped,
**    with a message, when the data is absent: the repository builds and
**    passes without it.
**  - The readers name file, line and field on malformed data (files made
**    here, in the test directory).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "experiments/validate.h"
#include "models/colofit.h"
#include "models/meas.h"
#include "models/workload.h"
#include "tests/util.h"

#define DATA "../shared/measurements"

static int have_data(void)
{
	struct stat st;

	return stat(DATA "/README.md", &st) == 0;
}

static void test_regenerate(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	struct exp_valsum sum;
	struct exp_valout out;
	struct meas_set ms;
	struct colo_solo s;
	const struct wl_fit_entry *tab;
	const struct dev_profile *d3090, *a100;
	size_t i, j, n, skipped;

	if (!have_data()) {
		fprintf(stderr, "\n  fit: skipped: %s absent (the fitted "
			"constants are checked against it when present)\n",
			DATA);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d3090 = dev_catalog_find(&cat, "rtx3090");
	a100 = dev_catalog_find(&cat, "a100-40gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d3090);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a100);
	/* the solo table */
	meas_init(&ms);
	CU_ASSERT_EQUAL_FATAL(meas_load_gavel(&ms, DATA, &err), 0);
	CU_ASSERT_EQUAL_FATAL(meas_load_lucid(&ms, DATA, &err), 0);
	CU_ASSERT_EQUAL(ms.ngavel, 78);
	CU_ASSERT_EQUAL(ms.nljobs, 66);
	CU_ASSERT_EQUAL(ms.nlpairs, 1388);
	CU_ASSERT_EQUAL_FATAL(colo_fit_solo(&ms, &cat, "test", &s, &skipped,
					    &err), 0);
	tab = wl_fit_table(&n);
	CU_ASSERT_EQUAL(n, s.nfits);
	for (i = 0; i < s.nfits; i++) {
		const struct colo_solo_fit *f = &s.fits[i];
		int found = 0;

		for (j = 0; j < n; j++)
			if (strcmp(tab[j].model, f->m->name) == 0 &&
			    strcmp(tab[j].family, f->family) == 0 &&
			    tab[j].prec == f->prec) {
				found = 1;
				TEST_ASSERT_CLOSE(tab[j].host_ns + 1,
						  f->host_ns + 1, 1e-5);
				TEST_ASSERT_CLOSE(tab[j].eta_scale, f->eta,
						  1e-5);
				CU_ASSERT_EQUAL(tab[j].npts, f->npts);
			}
		CU_ASSERT(found);
		if (!found)
			fprintf(stderr, "\n  fit: no table row for %s on %s\n",
				f->m->name, f->family);
	}
	colo_solo_fini(&s);
	meas_fini(&ms);
	/* the device keys, and the whole validation run */
	CU_ASSERT_EQUAL_FATAL(exp_validate(DATA, &cat, "test", &sum, &out,
					   &err), 0);
	CU_ASSERT(sum.have_gavel && sum.have_lucid && sum.have_miso);
	CU_ASSERT_DOUBLE_EQUAL(d3090->util_duty_scale, sum.ts.scale, 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(d3090->util_duty_exp, sum.ts.expo, 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(d3090->ts_mem_contention_k, sum.ts.kappa, 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(a100->mig_bw_weight, sum.mig_w, 1e-4);
	/* the fitted source lines name what they were fitted on */
	CU_ASSERT_PTR_NOT_NULL(strstr(dev_source(d3090, "util_duty_scale"),
				      "fitted Lucid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(dev_source(a100, "mig_bw_weight"),
				      "fitted MISO"));
	CU_ASSERT_EQUAL(sum.nfolds, 5);
	CU_ASSERT_PTR_NOT_NULL(out.markdown);
	CU_ASSERT_PTR_NOT_NULL(strstr(out.markdown, "leave one model out"));
	exp_valout_fini(&out);
	dev_catalog_fini(&cat);
}

/* A measurements folder with one malformed file at a time. */
static const char *mdir(const char *sub)
{
	static char buf[512];
	char d[600];

	snprintf(buf, sizeof buf, "%s/meas", test_tmpdir());
	mkdir(buf, 0777);
	snprintf(d, sizeof d, "%s/%s", buf, sub);
	mkdir(d, 0777);
	return buf;
}

static void put(const char *dir, const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_readers(void)
{
	struct meas_set ms;
	struct sim_err err = { 0, "" };
	const char *dir;

	meas_init(&ms);
	/* absent: SIM_ENOENT, so callers can skip */
	CU_ASSERT_EQUAL(meas_load_gavel(&ms, "/nonexistent", &err),
			SIM_ENOENT);
	dir = mdir("gavel-solo");
	put(dir, "gavel-solo/solo_throughputs.csv",
	    "gpu,job_type,model,batch_size,steps_per_s\n"
	    "v100,\"ResNet-50 (batch size 16)\",ResNet-50,16,11.4\n"
	    "v100,\"ResNet-50 (batch size 32)\",ResNet-50,32,fast\n");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(meas_load_gavel(&ms, dir, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "solo_throughputs.csv:3:5: "
				      "steps_per_s"));
	meas_fini(&ms);
	put(dir, "gavel-solo/solo_throughputs.csv",
	    "gpu,job_type,model,batch,steps_per_s\n");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(meas_load_gavel(&ms, dir, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no column 'batch_size'"));
	meas_fini(&ms);
	/* a pair naming a job the solo file does not have */
	dir = mdir("lucid");
	put(dir, "lucid/single_data.csv",
	    "model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label\n"
	    "VGG,CIFAR-10,32,0,2998.7,44.0,23.0,3386.0,0\n");
	put(dir, "lucid/colocate_info.csv",
	    ",model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,"
	    "dataset2,gpu_num2,batchsize2,amp2,speed2,gpu_util,gmem_util,"
	    "gmem\n"
	    "0,VGG,CIFAR-10,1,32,0,0.9,VGG,CIFAR-10,1,64,0,0.9,50,20,3000\n");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(meas_load_lucid(&ms, dir, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "colocate_info.csv:2: VGG "
				      "CIFAR-10 batch 64 amp 0: not in"));
	meas_fini(&ms);
	/* MISO: a log that is not an array of times */
	dir = mdir("miso-mig");
	put(dir, "miso-mig/1g.5gb_resnet_train64.json", "{\"0\": [1.0]}");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(meas_load_miso(&ms, dir, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1g.5gb_resnet_train64.json"));
	meas_fini(&ms);
	put(dir, "miso-mig/1g.5gb_resnet_train64.json",
	    "{\"0\": [7.0, 0.05, 0.04, 0.06]}");
	CU_ASSERT_EQUAL(meas_load_miso(&ms, dir, &err), 0);
	CU_ASSERT_EQUAL(ms.nmiso, 1);
	CU_ASSERT_STRING_EQUAL(ms.miso[0].slice, "1g.5gb");
	CU_ASSERT_STRING_EQUAL(ms.miso[0].model, "resnet");
	CU_ASSERT_EQUAL(ms.miso[0].batch, 64);
	/* the median after the warm-up entry */
	CU_ASSERT_DOUBLE_EQUAL(ms.miso[0].iter_s, 0.05, 1e-15);
	meas_fini(&ms);
}

/* The Lucid pair prediction is the GPU model's: two always-busy jobs
** (gpu_util 1 with scale 1, exponent 1) under time slicing run at T(2) /
** (1 + k bw); a job with no utilisation is never in the way. */
static void test_lucid_pair(void)
{
	struct dev_profile d;
	struct meas_lucid_job a, b;
	double v[2], q, c;

	memset(&d, 0, sizeof d);
	strcpy(d.name, "test");
	d.hbm_bytes = 1ULL << 34;
	d.hbm_bw_bytes_per_s = 1e12;
	d.uvm_bytes_per_s = 1e10;
	d.ts_quantum_ns = 1000;
	d.ts_switch_ns = 250;
	d.ts_mem_contention_k = 0.5;
	memset(&a, 0, sizeof a);
	a.gpu_util = 1.0;
	a.mem_util = 0.4;
	b = a;
	colo_lucid_pair(&d, &a, &b, v);
	q = 1000;
	c = 250;
	CU_ASSERT_DOUBLE_EQUAL(v[0], q / (2 * (q + c)) / (1 + 0.5 * 0.4),
			       1e-12);
	b.gpu_util = 0;
	b.mem_util = 0;
	colo_lucid_pair(&d, &a, &b, v);
	/* b's duty is the floor 0.001 and a is always busy: b's busy part
	** runs at 0.4 / (1 + 0.5 x 0.4) = 1/3, so tau_b = 0.999 + 0.003 and
	** p_b = 0.003 / 1.002; a runs at (1 - p_b) + p_b 0.4 */
	CU_ASSERT_DOUBLE_EQUAL(v[1], 1.0 / 1.002, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(v[0], 1.0 - 0.6 * 0.003 / 1.002, 1e-9);
}

TEST_REGISTER(fit)
{
	static const struct test_case cases[] = {
		{ "fitted constants regenerate from the data", test_regenerate },
		{ "measurement readers name file:line", test_readers },
		{ "lucid pair through the GPU model", test_lucid_pair },
		{ NULL, NULL }
	};
	return test_add_suite("fit", cases);
}
