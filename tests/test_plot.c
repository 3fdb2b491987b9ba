/*
** test_plot.c: figures (plots/plot.h): every figure written and non-empty
** in every format, data files holding the hand-computed numbers, labels
** with quotes and backquotes passed safely, figures without data skipped.
**
** The case: variants exclusive, "colti tag=x'`id`" and "colti tag=z"
** (v = 0, 1, 2), replications r = 0, 1, 2:
**   makespan_s = 100 + 10 v + (1 + v) r: mean 101 + 11 v, sd 1 + v,
**                half-width t(0.975, 2) / sqrt(3) (1 + v) = 2.484138 (1 + v);
**                paired against exclusive: 10 v + v r, mean 11 v, sd v,
**                half-width 2.484138 v, relative 11 v / 101
**   hbm_util_mean = 0.5 + 0.1 v, slo_attainment = 0.9
**   jobs: JCT 10 (v+1) and 20 (v+1) in each replication
**   series: cluster-wide hbm_frac 0.1 (v+1) at t = 0..9 s
**   latency bins [0,5) x2, [5,10) x6, [10,20) x2 per run
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiments/report.h"
#include "experiments/store.h"
#include "plots/plot.h"
#include "tests/util.h"

static const char *CFG =
	"[experiment]\nname = figs\ntrace = x.csv\ncluster = 1x2:a100\n"
	"replications = 3\n[sweep]\npolicy = exclusive, colti\n"
	"policy.colti.tag = x'`id`, z\n";

static const char *build_db(const char *file, int with_infer)
{
	static char path[512];
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct store *s = NULL;
	struct sim_err err;
	size_t i;
	int64_t id;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), file);
	unlink(path);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, "figs.ini", CFG,
					       strlen(CFG), &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(m.nruns, 9);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, path, STORE_WRITE, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_add_experiment(s, cfg, (long)m.nruns, &id,
						   &err), 0);
	for (i = 0; i < m.nruns; i++) {
		const struct exp_run_spec *sp = &m.runs[i];
		int v = strcmp(sp->policy, "exclusive") == 0 ? 0 :
			strstr(sp->variant, "tag=z") ? 2 : 1;
		int r = sp->replication, k;
		struct run_result res;
		run_result_init(&res);
		run_result_set(&res, "makespan_s", 100 + 10 * v + (1 + v) * r);
		run_result_set(&res, "hbm_util_mean", 0.5 + 0.1 * v);
		for (k = 0; k < 2; k++) {
			struct res_job j;
			memset(&j, 0, sizeof j);
			snprintf(j.id, sizeof j.id, "j%d", k);
			strcpy(j.kind, "train");
			strcpy(j.model, "bert-base");
			j.gpus = 1;
			j.jct_s = 10.0 * (k + 1) * (v + 1);
			j.end_s = j.jct_s;
			run_result_add_job(&res, &j);
		}
		for (k = 0; k < 10; k++) {
			struct res_series p = { -1, k, 0.1 * (v + 1), 0.3 };
			run_result_add_series(&res, &p);
		}
		if (with_infer) {
			struct res_lat_bin b[3] = {
				{ 0, 5, 2 }, { 5, 10, 6 }, { 10, 20, 2 }
			};
			run_result_set(&res, "slo_attainment", 0.9);
			for (k = 0; k < 3; k++)
				run_result_add_lat(&res, &b[k]);
		}
		CU_ASSERT_EQUAL(store_put_run(s, id, sp, STORE_RUN_DONE, NULL,
					      &res, &err), 0);
		run_result_fini(&res);
	}
	store_close(s);
	exp_matrix_fini(&m);
	exp_config_free(cfg);
	return path;
}

/* Reads the numeric rows of block `block` (0-based) of a data file into
** rows[][ncol]; returns the row count. */
static int read_block(const char *path, int block, double rows[][5],
		      int maxrows, int ncol)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int b = 0, blank = 0, n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '\n') {
			if (++blank == 2)
				b++;
			continue;
		}
		blank = 0;
		if (line[0] == '#' || b != block || n >= maxrows)
			continue;
		if (ncol == 2 && sscanf(line, "%lf %lf", &rows[n][0],
					&rows[n][1]) == 2)
			n++;
		else if (ncol == 4 && sscanf(line, "%lf %lf %lf %lf",
					     &rows[n][0], &rows[n][1],
					     &rows[n][2], &rows[n][3]) == 4)
			n++;
		else if (ncol == 5 && sscanf(line, "%lf %lf %lf %lf %lf",
					     &rows[n][0], &rows[n][1],
					     &rows[n][2], &rows[n][3],
					     &rows[n][4]) == 5)
			n++;
	}
	fclose(f);
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int has_magic(const char *path, const char *magic, size_t n)
{
	char buf[8] = {0};
	FILE *f = fopen(path, "rb");
	size_t got;

	if (f == NULL)
		return 0;
	got = fread(buf, 1, n, f);
	fclose(f);
	return got == n && memcmp(buf, magic, n) == 0;
}

static void test_quote(void)
{
	char out[64];

	CU_ASSERT_EQUAL(plot_gp_quote("it's", out, sizeof out), 0);
	CU_ASSERT_STRING_EQUAL(out, "'it''s'");
	CU_ASSERT_EQUAL(plot_gp_quote("a`b`\"c\\", out, sizeof out), 0);
	CU_ASSERT_STRING_EQUAL(out, "'a`b`\"c\\'");
	CU_ASSERT_EQUAL(plot_gp_quote("two\nlines", out, sizeof out),
			SIM_EINVAL);
	CU_ASSERT_EQUAL(plot_gp_quote("abcdef", out, 6), SIM_ENOSPC);
}

/* Every row of a NAME_diff.dat equals the report's paired difference of
** the same variant (mean, interval ends, pairs, relative difference). */
static void check_diff_matches_report(const char *db, const char *path)
{
	struct store *s = NULL;
	struct rep_table t;
	struct sim_err err = { 0, "" };
	char line[512], label[256] = "", rel[32];
	FILE *f;
	int checked = 0;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL_FATAL(rep_build(s, NULL, NULL, 0.95, &t, &err), 0);
	store_close(s);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof line, f)) {
		double k, d, lo, hi, np, lt;
		if (sscanf(line, "# %lf: %255[^\n]", &k, label) == 2)
			continue;
		if (sscanf(line, "%lf %lf %lf %lf %lf %lf %31s", &k, &d, &lo,
			   &hi, &np, &lt, rel) != 7)
			continue;
		for (i = 0; i < t.nrows; i++) {
			const struct rep_row *r = &t.rows[i];
			char want[32];
			if (strcmp(r->metric, "makespan_s") != 0 ||
			    strcmp(r->variant, label) != 0)
				continue;
			TEST_ASSERT_CLOSE(d, r->diff.mean, 1e-12);
			TEST_ASSERT_CLOSE(lo, r->diff.mean - r->diff.half, 1e-12);
			TEST_ASSERT_CLOSE(hi, r->diff.mean + r->diff.half, 1e-12);
			CU_ASSERT_DOUBLE_EQUAL(np, (double)r->diff.n, 0);
			snprintf(want, sizeof want, "%+.1f%%", r->rel * 100);
			CU_ASSERT_STRING_EQUAL(rel, want);
			checked++;
		}
	}
	fclose(f);
	CU_ASSERT_EQUAL(checked, 2);
	rep_table_fini(&t);
}

static void test_all_figures(void)
{
	const char *db = build_db("figs.db", 1);
	static const char *const names[] = {
		"jct_cdf", "hbm_util", "makespan", "mem_util", "latency_cdf",
		"slo", "makespan_diff", "mem_util_diff", "slo_diff", NULL
	};
	struct plot_opts o;
	struct plot_output out;
	struct store *s = NULL;
	struct sim_err err;
	char dir[600], path[700];
	double rows[16][5];
	char terms[4096];
	int i, n;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(plot_terminals(NULL, terms, sizeof terms, &err),
			      0);
	snprintf(dir, sizeof dir, "%s/figs/out", test_tmpdir());
	memset(&o, 0, sizeof o);
	o.out_dir = dir;
	o.formats = PLOT_PDF | PLOT_PNG;
	o.scripts_dir = "plots";
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	if (plot_experiment(s, "figs", &o, &out, &err) != 0)
		fprintf(stderr, "\n  plot: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(err.code, 0);
	store_close(s);
	CU_ASSERT_STRING_EQUAL(out.notes, "");
	CU_ASSERT_EQUAL(out.npaths, 9 * 3);
	for (i = 0; names[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/%s.pdf", dir, names[i]);
		CU_ASSERT(file_size(path) > 1000);
		CU_ASSERT(has_magic(path, "%PDF", 4));
		snprintf(path, sizeof path, "%s/%s.png", dir, names[i]);
		CU_ASSERT(file_size(path) > 1000);
		CU_ASSERT(has_magic(path, "\x89PNG", 4));
		snprintf(path, sizeof path, "%s/%s.dat", dir, names[i]);
		CU_ASSERT(file_size(path) > 0);
	}
	plot_output_fini(&out);

	/* makespan bars: mean 101 + 11 v, +- t(0.975,2)/sqrt(3) (1 + v). */
	snprintf(path, sizeof path, "%s/makespan.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_DOUBLE_EQUAL(rows[i][0], i + 1, 0);
		TEST_ASSERT_CLOSE(rows[i][1], 101 + 11 * i, 1e-12);
		TEST_ASSERT_CLOSE(rows[i][2], 101 + 11 * i - 2.4841377 * (1 + i),
				  1e-7);
		TEST_ASSERT_CLOSE(rows[i][3], 101 + 11 * i + 2.4841377 * (1 + i),
				  1e-7);
		CU_ASSERT_DOUBLE_EQUAL(rows[i][4], 3, 0);
	}
	/* The paired differences: 11 v +- 2.484138 v, far narrower than
	** the bars' intervals, and exactly what the report states. */
	snprintf(path, sizeof path, "%s/makespan_diff.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		TEST_ASSERT_CLOSE(rows[i][1], 11 * (i + 1), 1e-12);
		TEST_ASSERT_CLOSE(rows[i][2], 11 * (i + 1) - 2.4841377 * (i + 1),
				  1e-7);
		TEST_ASSERT_CLOSE(rows[i][3], 11 * (i + 1) + 2.4841377 * (i + 1),
				  1e-7);
		CU_ASSERT_DOUBLE_EQUAL(rows[i][4], 3, 0);
	}
	check_diff_matches_report(db, path);
	/* mem_util bars in percent, zero width. */
	snprintf(path, sizeof path, "%s/mem_util.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	TEST_ASSERT_CLOSE(rows[2][1], 70, 1e-12);
	TEST_ASSERT_CLOSE(rows[2][2], 70, 1e-12);
	/* JCT CDF of the second variant: 20 20 20 40 40 40. */
	snprintf(path, sizeof path, "%s/jct_cdf.dat", dir);
	n = read_block(path, 1, rows, 16, 2);
	CU_ASSERT_EQUAL_FATAL(n, 7);
	TEST_ASSERT_CLOSE(rows[0][0], 20, 1e-12);     /* the step's start */
	TEST_ASSERT_CLOSE(rows[0][1], 0, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][0], 20, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][1], 1.0 / 6, 1e-12);
	TEST_ASSERT_CLOSE(rows[4][0], 40, 1e-12);
	TEST_ASSERT_CLOSE(rows[4][1], 4.0 / 6, 1e-12);
	TEST_ASSERT_CLOSE(rows[6][1], 1.0, 1e-12);
	/* HBM over time: flat at 10 (v+1) percent. */
	snprintf(path, sizeof path, "%s/hbm_util.dat", dir);
	n = read_block(path, 2, rows, 16, 2);
	CU_ASSERT(n >= 5);
	for (i = 0; i < n && i < 16; i++)
		TEST_ASSERT_CLOSE(rows[i][1], 30, 1e-9);
	/* Latency CDF from the histograms: 0 at 0, .2 at 5, .8 at 10. */
	snprintf(path, sizeof path, "%s/latency_cdf.dat", dir);
	n = read_block(path, 0, rows, 16, 2);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	TEST_ASSERT_CLOSE(rows[0][1], 0, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][0], 5, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][1], 0.2, 1e-12);
	TEST_ASSERT_CLOSE(rows[2][1], 0.8, 1e-12);
	TEST_ASSERT_CLOSE(rows[3][0], 20, 1e-12);
	TEST_ASSERT_CLOSE(rows[3][1], 1, 1e-12);
	/* SLO bars: 90 %. */
	snprintf(path, sizeof path, "%s/slo.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	TEST_ASSERT_CLOSE(rows[1][1], 90, 1e-12);
}

static void test_skip_without_data(void)
{
	const char *db = build_db("figs2.db", 0);
	struct plot_opts o;
	struct plot_output out;
	struct store *s = NULL;
	struct sim_err err;
	char dir[600], path[700];

	snprintf(dir, sizeof dir, "%s/figs2", test_tmpdir());
	memset(&o, 0, sizeof o);
	o.out_dir = dir;
	o.formats = PLOT_PNG;
	o.scripts_dir = "plots";
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL_FATAL(plot_experiment(s, NULL, &o, &out, &err), 0);
	store_close(s);
	CU_ASSERT(strstr(out.notes, "latency_cdf: no data") != NULL);
	CU_ASSERT(strstr(out.notes, "slo: no data") != NULL);
	CU_ASSERT(strstr(out.notes, "slo_diff: no paired data") != NULL);
	/* 6 figures with their data, 3 data files of skipped figures */
	CU_ASSERT_EQUAL(out.npaths, 6 * 2 + 3);
	plot_output_fini(&out);
	snprintf(path, sizeof path, "%s/makespan.png", dir);
	CU_ASSERT(file_size(path) > 1000);
	snprintf(path, sizeof path, "%s/slo.png", dir);
	CU_ASSERT_EQUAL(file_size(path), -1);
	/* A missing gnuplot is a clear error. */
	o.gnuplot = "/nonexistent/gnuplot";
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_READ, &err), 0);
	CU_ASSERT_EQUAL(plot_experiment(s, NULL, &o, &out, &err), SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "gnuplot") != NULL);
	store_close(s);
}

/*
** The sweep case: horizon_s = 10, 20, 40 (a numeric global key) x policies
** exclusive (p = 0) and colti (p = 1) x replications r = 0, 1, 2:
**   makespan_s = h + 100 p + r: mean h + 1 + 100 p, half-width 2.484138
**   slo_attainment = 0.9 in r = 0, else 1: 96.667 +- 14.34 %, so its
**                    interval's top (111 %) is clipped to 100
**   placements: j0 (train) GPU 0 [0, 10); j1 (infer) GPUs 0 and 1 [5, 15);
**               j2 (train) GPU 1 from 1 to the end (stored open)
**   series: GPU 0 at 50 % HBM, 25 % SM for t = 0..4
*/
static const char *SWEEP_CFG =
	"[experiment]\nname = sw\ntrace = x.csv\ncluster = 1x2:a100\n"
	"replications = 3\n[sweep]\nhorizon_s = 10, 20, 40\n"
	"policy = exclusive, colti\n";

static void add_place(struct run_result *res, int job, int gpu, double t0,
		      double t1)
{
	struct res_place pl;

	memset(&pl, 0, sizeof pl);
	pl.job = job;
	pl.gpu = gpu;
	pl.slice = -1;
	pl.start_s = t0;
	pl.end_s = t1;
	pl.mem_bytes = 1u << 30;
	pl.sm_cap = 1;
	run_result_add_place(res, &pl);
}

static int fill_sweep(void *ctx, const struct exp_run_spec *sp,
		      struct run_result *res)
{
	int pol = strcmp(sp->policy, "colti") == 0, r = sp->replication, k;

	(void)ctx;
	run_result_set(res, "makespan_s", sp->horizon_s + 100 * pol + r);
	run_result_set(res, "slo_attainment", r == 0 ? 0.9 : 1.0);
	for (k = 0; k < 3; k++) {
		struct res_job j;
		memset(&j, 0, sizeof j);
		snprintf(j.id, sizeof j.id, "j%d", k);
		strcpy(j.kind, k == 1 ? "infer" : "train");
		strcpy(j.model, "resnet50");
		j.gpus = k == 1 ? 2 : 1;
		run_result_add_job(res, &j);
	}
	add_place(res, 0, 0, 0, 10);
	add_place(res, 1, 0, 5, 15);
	add_place(res, 1, 1, 5, 15);
	add_place(res, 2, 1, 1, -1);
	for (k = 0; k < 5; k++) {
		struct res_series pt = { 0, k, 0.5, 0.25 };
		run_result_add_series(res, &pt);
	}
	return 0;
}

static const char *build_sweep_db(void)
{
	return test_store_build("sweep.db", SWEEP_CFG, fill_sweep, NULL);
}

static int plot_db(const char *db, struct plot_opts *o, const char *dir,
		   struct plot_output *out)
{
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	int rc;

	o->out_dir = dir;
	o->formats = PLOT_PNG;
	o->scripts_dir = "plots";
	if (store_open(&s, db, STORE_READ, &err) != 0)
		return err.code;
	rc = plot_experiment(s, NULL, o, out, &err);
	if (rc != 0)
		fprintf(stderr, "\n  plot: %s\n", err.msg);
	store_close(s);
	return rc;
}

static void test_sweep_figures(void)
{
	const char *db = build_sweep_db();
	struct plot_opts o;
	struct plot_output out;
	char dir[600], path[700];
	double rows[16][5];
	int i, n;

	memset(&o, 0, sizeof o);
	snprintf(dir, sizeof dir, "%s/sweepfigs", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(plot_db(db, &o, dir, &out), 0);
	plot_output_fini(&out);
	/* makespan against horizon_s: per policy a line of 3 points */
	snprintf(path, sizeof path, "%s/sweep-horizon_s-makespan.dat", dir);
	for (i = 0; i < 2; i++) {
		static const double hs[3] = { 10, 20, 40 };
		int k;
		n = read_block(path, i, rows, 16, 5);
		CU_ASSERT_EQUAL_FATAL(n, 3);
		for (k = 0; k < 3; k++) {
			double mean = hs[k] + 1 + 100 * i;
			CU_ASSERT_DOUBLE_EQUAL(rows[k][0], hs[k], 0);
			TEST_ASSERT_CLOSE(rows[k][1], mean, 1e-12);
			TEST_ASSERT_CLOSE(rows[k][2], mean - 2.4841377, 1e-7);
			TEST_ASSERT_CLOSE(rows[k][3], mean + 2.4841377, 1e-7);
			CU_ASSERT_DOUBLE_EQUAL(rows[k][4], 3, 0);
		}
	}
	snprintf(path, sizeof path, "%s/sweep-horizon_s-makespan.png", dir);
	CU_ASSERT(has_magic(path, "\x89PNG", 4));
	/* SLO attainment: its interval clipped to 100 % in the bars */
	snprintf(path, sizeof path, "%s/slo-s2.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	TEST_ASSERT_CLOSE(rows[0][1], 100 * (0.9 + 2) / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(rows[0][3], 100, 0);
	CU_ASSERT(rows[0][2] > 80 && rows[0][2] < 83);
}

static void test_metric_only(void)
{
	const char *db = build_sweep_db();
	struct plot_opts o;
	struct plot_output out;
	char dir[600], path[700];
	size_t k;

	memset(&o, 0, sizeof o);
	o.metrics = "slo_attainment";
	snprintf(dir, sizeof dir, "%s/metricfigs", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(plot_db(db, &o, dir, &out), 0);
	for (k = 0; k < out.npaths; k++)
		CU_ASSERT(strstr(out.paths[k], "slo") != NULL ||
			  strstr(out.paths[k], "settings.txt") != NULL);
	/* 3 settings x (bars, diff) + one sweep figure, each png + dat,
	** and settings.txt */
	CU_ASSERT_EQUAL(out.npaths, (3 * 2 + 1) * 2 + 1);
	plot_output_fini(&out);
	snprintf(path, sizeof path, "%s/makespan-s1.dat", dir);
	CU_ASSERT_EQUAL(file_size(path), -1);
	snprintf(path, sizeof path, "%s/sweep-horizon_s-slo.dat", dir);
	CU_ASSERT(file_size(path) > 0);
	/* an unknown metric is one error naming it */
	o.metrics = "slo_attainment,nope_s";
	CU_ASSERT_EQUAL(plot_db(db, &o, dir, &out), SIM_ENOENT);
}

static void test_gpu_and_timeline(void)
{
	const char *db = build_sweep_db();
	struct plot_opts o;
	struct plot_output out;
	char dir[600], path[700], line[256];
	double rows[16][5];
	FILE *f;
	int n, nrow = 0;

	memset(&o, 0, sizeof o);
	o.want_gpu = 1;
	o.gpu = 0;
	o.timeline = 1;
	snprintf(dir, sizeof dir, "%s/gpufigs", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(plot_db(db, &o, dir, &out), 0);
	/* per setting and variant: gpu0 and timeline, png + dat */
	CU_ASSERT_EQUAL(out.npaths, 3 * 2 * 2 * 2 + 1);
	plot_output_fini(&out);
	/* GPU 0: j0 [0,10) in row 0, j1 [5,15) overlaps it: row 1 */
	snprintf(path, sizeof path, "%s/gpu0-v1-s1.dat", dir);
	n = read_block(path, 0, rows, 16, 4);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_DOUBLE_EQUAL(rows[0][0], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0][1], 10, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0][2], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0][3], 0, 0);     /* training */
	CU_ASSERT_DOUBLE_EQUAL(rows[1][0], 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[1][2], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[1][3], 1, 0);     /* a service */
	/* its series in percent */
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof line, f))
		if (strcmp(line, "4 50 25\n") == 0)
			nrow++;
	fclose(f);
	CU_ASSERT_EQUAL(nrow, 1);
	/* timeline: j2 still open at the end: drawn to the makespan, 10 in
	** replication 0 of horizon_s=10 under exclusive */
	snprintf(path, sizeof path, "%s/timeline-v1-s1.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_DOUBLE_EQUAL(rows[2][0], 1, 0);     /* by GPU, then start */
	CU_ASSERT_DOUBLE_EQUAL(rows[2][1], 10, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[2][3], 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[3][3], 1, 0);     /* j1 on GPU 1 */
	snprintf(path, sizeof path, "%s/timeline-v2-s1.png", dir);
	CU_ASSERT(has_magic(path, "\x89PNG", 4));
}

/* LLM runs: the TTFT histogram of variant v puts 1 + v observations in
** [10, 20) and 3 in [20, 40); TPOT 4 in [5, 6). */
static int fill_llm(void *ctx, const struct exp_run_spec *sp,
		    struct run_result *res)
{
	int v = strcmp(sp->policy, "colti") == 0;
	struct res_hist_bin b;

	(void)ctx;
	run_result_set(res, "makespan_s", 10);
	memset(&b, 0, sizeof b);
	strcpy(b.name, "llm_ttft_ms");
	b.lo = 10;
	b.hi = 20;
	b.count = (uint64_t)(1 + v);
	run_result_add_hist(res, &b);
	b.lo = 20;
	b.hi = 40;
	b.count = 3;
	run_result_add_hist(res, &b);
	strcpy(b.name, "llm_tpot_ms");
	b.lo = 5;
	b.hi = 6;
	b.count = 4;
	run_result_add_hist(res, &b);
	return 0;
}

static void test_llm_cdf(void)
{
	const char *db = test_store_build("llm.db", "[experiment]\nname = lm\n"
					  "trace = x.csv\ncluster = 1x1:a100\n"
					  "replications = 2\n[sweep]\npolicy = "
					  "exclusive, colti\n", fill_llm, NULL);
	struct plot_opts o;
	struct plot_output out;
	char dir[600], path[700];
	double rows[16][5];
	int n;

	memset(&o, 0, sizeof o);
	snprintf(dir, sizeof dir, "%s/figs_llm", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(plot_db(db, &o, dir, &out), 0);
	plot_output_fini(&out);
	snprintf(path, sizeof path, "%s/llm_cdf.png", dir);
	CU_ASSERT(file_size(path) > 1000);
	CU_ASSERT(has_magic(path, "\x89PNG", 4));
	snprintf(path, sizeof path, "%s/llm_cdf.dat", dir);
	/* block 1: colti's TTFT, pooled over 2 runs: 4 of 10 below 20 ms */
	n = read_block(path, 1, rows, 16, 2);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	TEST_ASSERT_CLOSE(rows[0][0], 10, 1e-12);
	TEST_ASSERT_CLOSE(rows[0][1], 0, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][0], 20, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][1], 0.4, 1e-12);
	TEST_ASSERT_CLOSE(rows[2][0], 40, 1e-12);
	TEST_ASSERT_CLOSE(rows[2][1], 1, 1e-12);
	/* block 2: exclusive's TPOT, all below 6 ms */
	n = read_block(path, 2, rows, 16, 2);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	TEST_ASSERT_CLOSE(rows[1][0], 6, 1e-12);
	TEST_ASSERT_CLOSE(rows[1][1], 1, 1e-12);
	CU_ASSERT_EQUAL(read_block(path, 4, rows, 16, 2), 0);
}

TEST_REGISTER(plot)
{
	static const struct test_case cases[] = {
		{"gnuplot quoting", test_quote},
		{"every figure with the right numbers", test_all_figures},
		{"figures without data are skipped", test_skip_without_data},
		{"metric against a swept key; percentages capped",
		 test_sweep_figures},
		{"--metric draws only that metric", test_metric_only},
		{"a GPU's tenants and series; the timeline",
		 test_gpu_and_timeline},
		{"LLM services: TTFT and TPOT CDFs", test_llm_cdf},
		{NULL, NULL}
	};
	return test_add_suite("plot", cases);
}
