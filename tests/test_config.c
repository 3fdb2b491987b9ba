/*
** test_config.c: experiment configs (experiments/config.h): errors by
** line, sweep lists and ranges, matrix expansion, common random numbers.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/config.h"
#include "tests/util.h"

static int parse(struct exp_config **cfg, const char *text,
		 struct sim_err *err)
{
	sim_err_clear(err);
	return exp_config_parse(cfg, "t.ini", text, strlen(text), err);
}

#define HEAD "[experiment]\nname = t\ntrace = a.csv\ncluster = 2x4:a100-80gb\n"

/* Each bad config must fail with SIM_EPARSE and a message starting with
** the file and line we expect, and mentioning the given word. */
static void expect_error(const char *text, const char *prefix,
			 const char *word)
{
	struct exp_config *cfg = NULL;
	struct sim_err err;
	int rc = parse(&cfg, text, &err);

	CU_ASSERT(rc != 0);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT(strncmp(err.msg, prefix, strlen(prefix)) == 0);
	CU_ASSERT(strstr(err.msg, word) != NULL);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
	    strstr(err.msg, word) == NULL)
		fprintf(stderr, "\n  got: %s\n  want: %s ... %s\n", err.msg,
			prefix, word);
	exp_config_free(cfg);
}

static void test_errors_by_line(void)
{
	expect_error(HEAD "policy = mps\n[bogus]\nx = 1\n", "t.ini:6:",
		     "unknown section");
	expect_error(HEAD "policy = mps\n[empty]\n", "t.ini:6:",
		     "unknown section");
	expect_error(HEAD "policy = mps\nhorizon = 5\n", "t.ini:6:",
		     "unknown key 'horizon'");
	expect_error(HEAD "policy = mps\nreplications = 0\n", "t.ini:6:",
		     "replications");
	expect_error(HEAD "policy = mps\nreplications = two\n", "t.ini:6:",
		     "replications");
	expect_error(HEAD "policy = mps\nhorizon_s = -3\n", "t.ini:6:",
		     "horizon_s");
	expect_error(HEAD "policy = mps\nseed = -1\n", "t.ini:6:", "seed");
	expect_error(HEAD "policy = mps\narrival_jitter_s = -1\n", "t.ini:6:",
		     "arrival_jitter_s");
	expect_error(HEAD "policy = mps\narrival_jitter_s = nan\n",
		     "t.ini:6:", "arrival_jitter_s");
	expect_error(HEAD "policy = mps\narrival_jitter_s = 1e300\n",
		     "t.ini:6:", "arrival_jitter_s");
	expect_error("[experiment]\nname = t\ntrace = a.csv\n"
		     "cluster = 4:a100\npolicy = mps\n", "t.ini:4:", "cluster");
	expect_error(HEAD "policy = mps\nname = u\n", "t.ini:6:",
		     "repeated (first at line 2)");
	expect_error(HEAD "[sweep]\npolicy = mps, colti\nwidth = 1, 2\n",
		     "t.ini:7:", "unknown sweep key 'width'");
	expect_error(HEAD "[sweep]\npolicy = mps, colti\n"
		     "policy.colti.x = 3..1 step 1\n", "t.ini:7:", "a <= b");
	expect_error(HEAD "[sweep]\npolicy = mps, colti\n"
		     "policy.colti.x = 1..3 step 0\n", "t.ini:7:", "step > 0");
	expect_error(HEAD "[sweep]\npolicy = mps, , colti\n", "t.ini:6:",
		     "empty value");
	expect_error(HEAD "[sweep]\npolicy = mps, mps\n", "t.ini:6:",
		     "listed twice");
	expect_error(HEAD "[sweep]\npolicy = mps\n[policy.colty]\nk = 1\n",
		     "t.ini:7:", "policy 'colty' is not run");
	expect_error(HEAD "[sweep]\npolicy = mps\npolicy.colti.k = 1, 2\n",
		     "t.ini:7:", "policy 'colti' is not run");
	expect_error(HEAD "[sweep]\npolicy = mps\ngen.load = 1, 2\n",
		     "t.ini:7:", "reads a trace");
	expect_error(HEAD "\n", "t.ini:1:", "no policy");
	expect_error("[experiment]\ntrace = a.csv\ncluster = 1x1:a\n"
		     "policy = x\n", "t.ini:1:", "name: missing");
	expect_error("[experiment]\nname = t\ncluster = 1x1:a\npolicy = x\n",
		     "t.ini:1:", "no workload");
	expect_error("[experiment]\nname = t\ntrace = a.csv\ngen.jobs = 5\n"
		     "cluster = 1x1:a\npolicy = x\n", "t.ini:3:", "exclusive");
	expect_error(HEAD "policy = mps\nthis line is not ini\n", "t.ini:6:",
		     "syntax error");
	expect_error("name = t\n", "t.ini:1:", "outside a section");
	expect_error(HEAD "policy = mps\n[cluster]\nnodes = 1x1:a\n",
		     "t.ini:7:", "already set");
	expect_error(HEAD "policy = mps\n[cluster]\nnic_gbps = fast\n",
		     "t.ini:7:", "nic_gbps");
	expect_error(HEAD "policy = mps\n[policy.mps]\na = 1\n[policy.mps]\n"
		     "b = 2\n", "t.ini:8:", "repeated (first at line 6)");
}

static void test_missing_file(void)
{
	struct exp_config *cfg = NULL;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_config_load(&cfg, "/nonexistent/x.ini", &err),
			SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "/nonexistent/x.ini") != NULL);
	CU_ASSERT_PTR_NULL(cfg);
}

static void test_values_and_ranges(void)
{
	struct sim_err err;
	char **v = NULL;
	size_t n = 0;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_sweep_values("0..1 step 0.25", "w", &v, &n,
					       &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT_STRING_EQUAL(v[0], "0");
	CU_ASSERT_STRING_EQUAL(v[1], "0.25");
	CU_ASSERT_STRING_EQUAL(v[4], "1");
	exp_strv_free(v, n);
	/* 0.1 steps accumulate no error: 0..1 step 0.1 has 11 values. */
	CU_ASSERT_EQUAL_FATAL(exp_sweep_values("0..1 step 0.1", "w", &v, &n,
					       &err), 0);
	CU_ASSERT_EQUAL(n, 11);
	CU_ASSERT_STRING_EQUAL(v[3], "0.3");
	CU_ASSERT_STRING_EQUAL(v[10], "1");
	exp_strv_free(v, n);
	CU_ASSERT_EQUAL_FATAL(exp_sweep_values(" a , 2, 5..15 step 5 ,x",
					       "w", &v, &n, &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	CU_ASSERT_STRING_EQUAL(v[0], "a");
	CU_ASSERT_STRING_EQUAL(v[1], "2");
	CU_ASSERT_STRING_EQUAL(v[2], "5");
	CU_ASSERT_STRING_EQUAL(v[4], "15");
	CU_ASSERT_STRING_EQUAL(v[5], "x");
	exp_strv_free(v, n);
	CU_ASSERT_EQUAL(exp_sweep_values("1..2 stp 1", "w", &v, &n, &err),
			SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_sweep_values("0..1e9 step 1", "w", &v, &n, &err),
			SIM_ERANGE);
}

/* Configs check cluster specs with the one cluster parser
** (models/cluster.h, cluster_parse_parts). */
static void test_cluster_spec(void)
{
	struct cluster_part g[CLUSTER_GROUPS_MAX];
	struct sim_err err;
	int n;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(cluster_parse_parts("4x8:a100-80gb, 2x4:v100-16gb",
						  "w", g, &n, &err), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(g[0].nodes, 4);
	CU_ASSERT_EQUAL(g[0].gpus_per_node, 8);
	CU_ASSERT_STRING_EQUAL(g[0].device, "a100-80gb");
	CU_ASSERT_EQUAL(g[1].nodes, 2);
	CU_ASSERT_EQUAL(g[1].gpus_per_node, 4);
	CU_ASSERT_STRING_EQUAL(g[1].device, "v100-16gb");
	CU_ASSERT_EQUAL(cluster_parse_parts("4x8", "w", g, &n, &err),
			SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cluster_parse_parts("0x8:a", "w", g, &n, &err),
			SIM_ERANGE);
	CU_ASSERT(strstr(err.msg, "w: cluster part '0x8:a': node count") !=
		  NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cluster_parse_parts("1x8:a b", "w", g, &n, &err),
			SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(cluster_parse_parts("1x8:a,", "w", g, &n, &err),
			SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "trailing comma") != NULL);
	/* a config names file, line and key */
	{
		struct exp_config *cfg = NULL;
		const char *t = "[experiment]\nname = t\ntrace = a.csv\n"
				"cluster = 2x0:a100-80gb\npolicy = mps\n";
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(exp_config_parse(&cfg, "t.ini", t, strlen(t),
						 &err), SIM_ERANGE);
		CU_ASSERT(strstr(err.msg, "t.ini:4: [experiment] cluster: "
				 "cluster part '2x0:a100-80gb': GPUs per node")
			  != NULL);
	}
}

static const char *const SWEEP_CFG =
	"; a sweep\n"
	"[experiment]\n"
	"name = sweep1\n"
	"gen.jobs = 50\n"
	"gen.rate = 0.7\n"
	"cluster = 2x4:a100-80gb\n"
	"horizon_s = 3600\n"
	"replications = 3\n"
	"seed = 42\n"
	"arrival_jitter_s = 30\n"
	"[cluster]\n"
	"memory_servers = 2\n"
	"[sweep]\n"
	"policy = exclusive, timeslice, colti\n"
	"gen.rate = 0.5, 0.9\n"
	"policy.colti.headroom = 0..0.2 step 0.1\n"
	"[policy.colti]\n"
	"headroom = 0.05\n"
	"share = yes\n";

static void test_sweep_expansion(void)
{
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct sim_err err;
	size_t i, j, ncolti = 0;

	CU_ASSERT_EQUAL_FATAL(parse(&cfg, SWEEP_CFG, &err), 0);
	CU_ASSERT_STRING_EQUAL(cfg->name, "sweep1");
	CU_ASSERT_STRING_EQUAL(cfg->db, "sweep1.db");
	CU_ASSERT_EQUAL(cfg->copts.memory_servers, 2);
	CU_ASSERT_EQUAL(cfg->ndims, 3);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	/* 3 replications x 2 loads x (exclusive + timeslice + 3 colti). */
	CU_ASSERT_EQUAL_FATAL(m.nruns, 3 * 2 * 5);
	for (i = 0; i < m.nruns; i++) {
		const struct exp_run_spec *s = &m.runs[i];
		CU_ASSERT_EQUAL(s->index, (int)i);
		CU_ASSERT_EQUAL(s->ngroups, 1);
		CU_ASSERT_DOUBLE_EQUAL(s->horizon_s, 3600, 0);
		CU_ASSERT_DOUBLE_EQUAL(s->arrival_jitter_s, 30, 0);
		CU_ASSERT_PTR_NULL(s->trace);
		CU_ASSERT_STRING_EQUAL(exp_kv_get(s->gen, s->ngen, "jobs"), "50");
		/* the swept load overrides the [experiment] one */
		CU_ASSERT(strcmp(exp_kv_get(s->gen, s->ngen, "rate"), "0.5") == 0 ||
			  strcmp(exp_kv_get(s->gen, s->ngen, "rate"), "0.9") == 0);
		if (strcmp(s->policy, "colti") == 0) {
			const char *h = exp_kv_get(s->params, s->nparams,
						   "headroom");
			ncolti++;
			CU_ASSERT_EQUAL(s->nparams, 2);
			CU_ASSERT_STRING_EQUAL(exp_kv_get(s->params, s->nparams,
							  "share"), "yes");
			CU_ASSERT(strcmp(h, "0") == 0 || strcmp(h, "0.1") == 0 ||
				  strcmp(h, "0.2") == 0);
			CU_ASSERT(strncmp(s->variant, "colti headroom=", 15) == 0);
			CU_ASSERT_EQUAL(s->nsweep, 3);
		} else {
			CU_ASSERT_EQUAL(s->nparams, 0);
			CU_ASSERT_STRING_EQUAL(s->variant, s->policy);
			CU_ASSERT_EQUAL(s->nsweep, 2);
		}
		CU_ASSERT(strncmp(s->setting, "gen.rate=", 9) == 0);
		/* keys are unique */
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(m.runs[j].key, s->key) != 0);
	}
	CU_ASSERT_EQUAL(ncolti, 3 * 2 * 3);
	/* The first run, spelled out: replication is the outer loop. */
	CU_ASSERT_STRING_EQUAL(m.runs[0].key,
			       "gen.rate=0.5 policy=exclusive rep=0");
	CU_ASSERT_STRING_EQUAL(m.runs[4].key,
			       "gen.rate=0.5 policy=colti headroom=0.2 rep=0");
	CU_ASSERT_STRING_EQUAL(m.runs[4].variant, "colti headroom=0.2");
	CU_ASSERT_STRING_EQUAL(m.runs[5].setting, "gen.rate=0.9");
	CU_ASSERT_EQUAL(m.runs[9].replication, 0);
	CU_ASSERT_EQUAL(m.runs[10].replication, 1);
	exp_matrix_fini(&m);
	exp_config_free(cfg);
}

/* Common random numbers: the seed depends on the replication only. */
static void test_common_random_numbers(void)
{
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct sim_err err;
	size_t i, j;

	CU_ASSERT_EQUAL_FATAL(parse(&cfg, SWEEP_CFG, &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	for (i = 0; i < m.nruns; i++)
		for (j = 0; j < m.nruns; j++) {
			int same_rep = m.runs[i].replication ==
				       m.runs[j].replication;
			CU_ASSERT_EQUAL(m.runs[i].seed == m.runs[j].seed,
					same_rep);
		}
	CU_ASSERT_EQUAL(m.runs[0].seed, exp_replication_seed(42, 0));
	CU_ASSERT(exp_replication_seed(42, 0) != exp_replication_seed(43, 0));
	exp_matrix_fini(&m);
	exp_config_free(cfg);
}

static void test_single_policy_and_paths(void)
{
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct sim_err err;
	const char *text = "[experiment]\nname = one\ntrace = t.csv\n"
			   "db = out/r.db\npolicy = mps\n[cluster]\n"
			   "nodes = 1x2:h100\nnic_gbps = 100\n"
			   "[policy.mps]\nsm_pct = 50 ; inline comment\n";

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, "cfg/x.ini", text,
					       strlen(text), &err), 0);
	CU_ASSERT_STRING_EQUAL(cfg->trace, "cfg/t.csv");
	CU_ASSERT_STRING_EQUAL(cfg->db, "cfg/out/r.db");
	CU_ASSERT_STRING_EQUAL(cfg->cluster, "1x2:h100");
	CU_ASSERT_DOUBLE_EQUAL(cfg->copts.nic_gbps, 100, 0);
	CU_ASSERT_EQUAL(strlen(cfg->hash), 16);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(m.nruns, 1);
	CU_ASSERT_STRING_EQUAL(m.runs[0].key, "policy=mps rep=0");
	CU_ASSERT_STRING_EQUAL(m.runs[0].setting, "");
	CU_ASSERT_STRING_EQUAL(exp_kv_get(m.runs[0].params, m.runs[0].nparams,
					  "sm_pct"), "50");
	CU_ASSERT_EQUAL(m.runs[0].params[0].line, 10);
	CU_ASSERT_STRING_EQUAL(m.runs[0].trace, "cfg/t.csv");
	exp_matrix_fini(&m);
	exp_config_free(cfg);
}

/* Generator options are named with '-' (gen --infer-frac): they can be set
** and swept alike (sweeping them was refused once). */
static void test_sweep_dashed_gen_option(void)
{
	static const char text[] =
		"[experiment]\nname = d\ncluster = 1x1:a100-80gb\n"
		"gen.infer-rate-median = 2\n"
		"[sweep]\npolicy = exclusive\ngen.infer-frac = 0.1, 0.2\n";
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct sim_err err;

	CU_ASSERT_EQUAL_FATAL(parse(&cfg, text, &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL(m.nruns, 2);
	CU_ASSERT_STRING_EQUAL(exp_kv_get(m.runs[1].gen, m.runs[1].ngen,
					  "infer-frac"), "0.2");
	CU_ASSERT_STRING_EQUAL(exp_kv_get(m.runs[0].gen, m.runs[0].ngen,
					  "infer-rate-median"), "2");
	exp_matrix_fini(&m);
	exp_config_free(cfg);
}

TEST_REGISTER(config)
{
	static const struct test_case cases[] = {
		{"errors name file and line", test_errors_by_line},
		{"missing file", test_missing_file},
		{"sweep values and ranges", test_values_and_ranges},
		{"cluster spec", test_cluster_spec},
		{"sweep expansion", test_sweep_expansion},
		{"common random numbers", test_common_random_numbers},
		{"single policy, relative paths", test_single_policy_and_paths},
		{"dashed generator options sweep", test_sweep_dashed_gen_option},
		{NULL, NULL}
	};
	return test_add_suite("config", cases);
}
