/*
** test_plot.c: figures (plots/plot.h): every figure written and non-empty
** in every format, data files holding the hand-computed numbers, labels
** with quotes and backquotes passed safely, figures without data skipped.
**
** The case: variants exclusive, "colti tag=x'`id`" and "colti tag=z"
** (v = 0, 1, 2), replications r = 0, 1, 2:
**   makespan_s = 100 + 10 v + r: mean 101 + 10 v, sd 1,
**                half-width t(0.975, 2) / sqrt(3) = 2.484138
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
		run_result_set(&res, "makespan_s", 100 + 10 * v + r);
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

static void test_all_figures(void)
{
	const char *db = build_db("figs.db", 1);
	static const char *const names[] = {
		"jct_cdf", "hbm_util", "makespan", "mem_util", "latency_cdf",
		"slo", NULL
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
	CU_ASSERT_EQUAL(out.npaths, 6 * 3);
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

	/* makespan bars: mean 101 + 10 v, +- t(0.975,2)/sqrt(3). */
	snprintf(path, sizeof path, "%s/makespan.dat", dir);
	n = read_block(path, 0, rows, 16, 5);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_DOUBLE_EQUAL(rows[i][0], i + 1, 0);
		TEST_ASSERT_CLOSE(rows[i][1], 101 + 10 * i, 1e-12);
		TEST_ASSERT_CLOSE(rows[i][2], 101 + 10 * i - 2.4841377, 1e-7);
		TEST_ASSERT_CLOSE(rows[i][3], 101 + 10 * i + 2.4841377, 1e-7);
		CU_ASSERT_DOUBLE_EQUAL(rows[i][4], 3, 0);
	}
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
	CU_ASSERT_EQUAL(out.npaths, 6 + 4);
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

TEST_REGISTER(plot)
{
	static const struct test_case cases[] = {
		{"gnuplot quoting", test_quote},
		{"every figure with the right numbers", test_all_figures},
		{"figures without data are skipped", test_skip_without_data},
		{NULL, NULL}
	};
	return test_add_suite("plot", cases);
}
