/*
** test_cfgcheck.c: an experiment config checked whole before any run
** (exp_config_check, `colosim run --dry-run`) and the canonical form
** --resume compares (exp_config_canon_cmp, the store's config_canon):
** each fault is one "FILE:LINE: ..." message naming the key and, for a
** likely typo, the name meant; comments, key order, number spelling,
** ranges written out and added replications resume; a changed value,
** fewer replications or a dropped key are refused naming the key; an
** experiment stored before schema 2 resumes by its stored text.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiments/config.h"
#include "experiments/runner.h"
#include "experiments/store.h"
#include "models/device.h"
#include "tests/util.h"

#define HEAD "[experiment]\nname = t\ncluster = 1x4:v100-16gb\n" \
	"replications = 2\nseed = 3\ngen.jobs = 10\n"

/* Parses and checks text as t.ini; returns the code, message in err. */
static int check(const char *text, struct sim_err *err)
{
	struct dev_catalog devs = { NULL, 0 };
	struct exp_config *cfg = NULL;
	int rc;

	sim_err_clear(err);
	rc = exp_config_parse(&cfg, "t.ini", text, strlen(text), err);
	if (rc == 0 && (rc = dev_catalog_load(&devs, "models/devices",
					     err)) == 0)
		rc = exp_config_check(cfg, NULL, &devs, err);
	dev_catalog_fini(&devs);
	exp_config_free(cfg);
	return rc;
}

/* text fails with a message that starts with want. */
static void expect(const char *text, const char *want)
{
	struct sim_err err;
	int rc = check(text, &err);

	if (rc == 0 || strncmp(err.msg, want, strlen(want)) != 0)
		fprintf(stderr, "\n  rc %d, got: %s\n  want: %s\n", rc,
			err.msg, want);
	CU_ASSERT(rc != 0);
	CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
}

static void test_whole_check(void)
{
	struct sim_err err;

	CU_ASSERT_EQUAL(check(HEAD "[sweep]\npolicy = exclusive, colti\n"
			      "[policy.colti]\nheadroom = 0.1\n", &err), 0);
	/* Policy parameters, through the policy's own table. */
	expect(HEAD "[sweep]\npolicy = exclusive, colti\n[policy.colti]\n"
	       "headrom = 0\n", "t.ini:10: [policy.colti] headrom: unknown "
	       "parameter 'headrom' for policy colti (did you mean "
	       "headroom? known: ");
	expect(HEAD "[sweep]\npolicy = exclusive, colti\n[policy.colti]\n"
	       "mode = mps\nheadroom = 2\n", "t.ini:11: [policy.colti] "
	       "headroom: parameter headroom = '2': expected a number in "
	       "[0, 0.5]");
	expect(HEAD "[sweep]\npolicy = exclusive, colti\n[policy.colti]\n"
	       "mode = fast\n", "t.ini:10: [policy.colti] mode: parameter "
	       "mode = 'fast': expected one of: timeslice, mps");
	expect(HEAD "policy = colti\n[policy.colti]\nfit = 2\n",
	       "t.ini:9: [policy.colti] fit: parameter fit = '2': expected "
	       "0 or 1");
	/* Every swept value, the last one too. */
	expect(HEAD "[sweep]\npolicy = exclusive, colti\n"
	       "policy.colti.headroom = 0, 0.2, 0.7\n", "t.ini:9: [sweep] "
	       "policy.colti.headroom: parameter headroom = '0.7': expected");
	expect(HEAD "[sweep]\npolicy = colti\npolicy.colti.max_tenants = "
	       "1..20 step 1\n", "t.ini:9: [sweep] policy.colti.max_tenants: "
	       "parameter max_tenants = '17': expected an integer in "
	       "[1, 16]");
	/* Policies, with the name meant. */
	expect(HEAD "[sweep]\npolicy = exclusive, colit\n", "t.ini:8: "
	       "[sweep] policy: unknown policy 'colit' (did you mean colti? "
	       "known: exclusive, ");
	expect(HEAD "policy = timeslise\n", "t.ini:7: [experiment] policy: "
	       "unknown policy 'timeslise' (did you mean timeslice?");
	/* Generator keys and values, fixed and swept. */
	expect(HEAD "gen.modles = resnet50\npolicy = mps\n", "t.ini:7: "
	       "[experiment] gen.modles: unknown generator option (did you "
	       "mean models?");
	expect(HEAD "gen.models = resnet5:1\npolicy = mps\n", "t.ini:7: "
	       "[experiment] gen.models: unknown model 'resnet5' (did you "
	       "mean resnet50?");
	expect(HEAD "gen.rate = 0\npolicy = mps\n", "t.ini:7: [experiment] "
	       "gen.rate: expected a number in [1e-09, 1e+09], got '0'");
	expect(HEAD "[sweep]\npolicy = mps\ngen.infer-frac = 0.1, 1.5\n",
	       "t.ini:9: [sweep] gen.infer-frac: expected a number in [0, 1], "
	       "got '1.5' (value 2 of 2)");
	expect(HEAD "gen.seed = 4\npolicy = mps\n", "t.ini:7: [experiment] "
	       "gen.seed: the generator's seed is each replication's");
	/* Devices, fixed and swept. */
	expect("[experiment]\nname = t\ncluster = 1x4:v100-16g\ngen.jobs = 3\n"
	       "policy = mps\n", "t.ini:3: [experiment] cluster: unknown "
	       "device 'v100-16g' (did you mean v100-16gb?");
	expect(HEAD "[sweep]\npolicy = mps\ncluster = 1x1:a100-80gb, "
	       "1x2:a100-8gb\n", "t.ini:9: [sweep] cluster: unknown device "
	       "'a100-8gb' (did you mean a100-80gb?");
	/* Traces. */
	expect("[experiment]\nname = t\ncluster = 1x1:a100-80gb\n"
	       "trace = no/such.csv\npolicy = mps\n",
	       "t.ini:4: [experiment] trace: ");
	/* The arrival folder (docs/LIMITS.md): it must be a folder. */
	CU_ASSERT_EQUAL(check(HEAD "policy = mps\narrivals_dir = /tmp\n",
			      &err), 0);
	expect(HEAD "policy = mps\narrivals_dir = /no/such/dir\n",
	       "t.ini:8: [experiment] arrivals_dir: /no/such/dir: not a "
	       "folder");
	expect(HEAD "policy = mps\narrivals_dir = /dev/null\n",
	       "t.ini:8: [experiment] arrivals_dir: /dev/null: not a folder");
}

/* The streamed matrix's shape (what --dry-run prints without holding the
** matrix) is the distinct settings and variants of the materialized one. */
static void test_matrix_shape(void)
{
	static const char text[] = HEAD "[sweep]\n"
		"policy = exclusive, colti, mps\n"
		"policy.colti.headroom = 0, 0.1, 0.2\n"
		"policy.colti.max_tenants = 2, 3\ngen.rate = 0.1, 0.2\n"
		"horizon_s = 10..30 step 10\n";
	struct exp_config *cfg = NULL;
	struct exp_runs *rs = NULL;
	struct exp_matrix m;
	struct sim_err err = { 0, "" };
	size_t i, k, nv = 0, ns = 0, sv, ss;

	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, "t.ini", text,
					       strlen(text), &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_runs_open(&rs, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL(exp_runs_count(rs), m.nruns);
	for (i = 0; i < m.nruns; i++) {
		for (k = 0; k < i; k++)
			if (strcmp(m.runs[i].variant, m.runs[k].variant) == 0)
				break;
		nv += k == i;
		for (k = 0; k < i; k++)
			if (strcmp(m.runs[i].setting, m.runs[k].setting) == 0)
				break;
		ns += k == i;
	}
	exp_runs_shape(rs, &ss, &sv);
	CU_ASSERT_EQUAL(sv, nv);
	CU_ASSERT_EQUAL(ss, ns);
	CU_ASSERT_EQUAL(sv, 1 + 3 * 2 + 1);
	CU_ASSERT_EQUAL(ss, 2 * 3);
	CU_ASSERT_EQUAL(m.nruns, sv * ss * 2);
	exp_matrix_fini(&m);
	exp_runs_close(rs);
	exp_config_free(cfg);
}

/* The canonical form of text as t.ini (heap), or NULL. */
static char *canon(const char *text)
{
	struct exp_config *cfg = NULL;
	struct sim_err err = { 0, "" };
	char *s = NULL;

	if (exp_config_parse(&cfg, "t.ini", text, strlen(text), &err) == 0) {
		s = malloc(strlen(cfg->canon_text) + 1);
		if (s != NULL)
			strcpy(s, cfg->canon_text);
	} else {
		fprintf(stderr, "\n  %s\n", err.msg);
	}
	exp_config_free(cfg);
	return s;
}

/* cmp of text against stored; the message in msg. */
static int cmp(const char *text, const char *stored, char *msg, size_t n)
{
	struct exp_config *cfg = NULL;
	struct sim_err err = { 0, "" };
	int rc = exp_config_parse(&cfg, "t.ini", text, strlen(text), &err);

	if (rc == 0)
		rc = exp_config_canon_cmp(cfg, stored, &err);
	snprintf(msg, n, "%s", err.msg);
	exp_config_free(cfg);
	return rc;
}

#define CANON_A \
	"[experiment]\nname = t\ncluster = 1x4:v100-16gb\nreplications = 2\n" \
	"gen.jobs = 10\ngen.rate = 0.10\n[sweep]\npolicy = exclusive, colti\n" \
	"policy.colti.headroom = 0..0.2 step 0.1\n[policy.colti]\nmode = mps\n"
/* The same experiment: comments, blank lines, key order, spelling of
** numbers and of the range, another name and db, more replications, the
** default seed and preempt_cost written out. */
#define CANON_B \
	"; the same, written otherwise\n\n[experiment]\ngen.rate = 1e-1\n" \
	"name = other\ndb = x.db\ngen.jobs = 010\nreplications = 7\n" \
	"seed = 1\ncluster = 1x4:V100-16GB\n[cluster]\npreempt_cost = free\n" \
	"[policy.colti]\nmode = mps   ; inline\n[sweep]\n" \
	"policy = exclusive,colti\npolicy.colti.headroom = 0, 0.1, 0.2\n"

static void test_canonical_form(void)
{
	char *a = canon(CANON_A), *b = canon(CANON_B), msg[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	if (strcmp(a, b) != 0)
		fprintf(stderr, "\n--- a\n%s--- b\n%s", a, b);
	CU_ASSERT_STRING_EQUAL(a, b);
	CU_ASSERT_PTR_NULL(strstr(a, "replications"));
	CU_ASSERT_PTR_NULL(strstr(a, "name="));
	CU_ASSERT_PTR_NOT_NULL(strstr(a, "sweep.policy.colti.headroom=0, "
				      "0.1, 0.2\n"));
	CU_ASSERT_EQUAL(cmp(CANON_B, a, msg, sizeof msg), 0);
	/* A changed value names its line, key and both values. */
	CU_ASSERT_EQUAL(cmp(CANON_A "headroom = 0.05\n", a, msg, sizeof msg),
			SIM_ESTATE);
	CU_ASSERT_STRING_EQUAL(msg, "t.ini:12: policy.colti.headroom = "
			       "'0.05': not set when the experiment was "
			       "stored");
	{
		char text[1024];
		snprintf(text, sizeof text, "%s", CANON_A);
		memcpy(strstr(text, "0.10"), "0.20", 4);
		CU_ASSERT_EQUAL(cmp(text, a, msg, sizeof msg), SIM_ESTATE);
		CU_ASSERT_STRING_EQUAL(msg, "t.ini:6: gen.rate = '0.2': was "
				       "'0.1' when the experiment was stored");
		snprintf(text, sizeof text, "%s", CANON_A);
		memcpy(strstr(text, "0..0.2"), "0..0.3", 6);
		CU_ASSERT_EQUAL(cmp(text, a, msg, sizeof msg), SIM_ESTATE);
		CU_ASSERT(strncmp(msg, "t.ini:9: sweep.policy.colti.headroom "
				  "= '0, 0.1, 0.2, 0.3': was '0, 0.1, 0.2'",
				  60) == 0);
		snprintf(text, sizeof text, "%s", CANON_A);
		memcpy(strstr(text, "mode = mps"), ";ode = mps", 10);
		CU_ASSERT_EQUAL(cmp(text, a, msg, sizeof msg), SIM_ESTATE);
		CU_ASSERT_STRING_EQUAL(msg, "t.ini: policy.colti.mode: set to "
				       "'mps' when the experiment was stored, "
				       "no longer set");
	}
	/* A 64-bit seed keeps every digit. */
	free(a);
	free(b);
	a = canon("[experiment]\nname = t\ncluster = 1x1:a100-80gb\n"
		  "gen.jobs = 3\nseed = 18446744073709551615\npolicy = mps\n");
	CU_ASSERT(a != NULL && strstr(a, "seed=18446744073709551615\n"));
	free(a);
}

static int fake_sim(const struct exp_run_spec *s, struct run_result *out,
		    struct sim_err *err)
{
	(void)err;
	return run_result_set(out, "makespan_s", (double)(s->seed % 1000));
}

static const char *put(const char *name, const char *text)
{
	static char p[4][600];
	static int k;
	char *path = p[k++ & 3];
	FILE *f;

	snprintf(path, sizeof p[0], "%s/%s", test_tmpdir(), name);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

static int run(const char *cfg, const char *db, int resume,
	       struct exp_run_stats *st, struct sim_err *err)
{
	struct exp_run_request req = { cfg, db, resume, 0, NULL, NULL, 0 };
	struct exp_runner_opts o;

	memset(&o, 0, sizeof o);
	o.jobs = 1;
	o.no_fork = 1;
	o.simulate = fake_sim;
	sim_err_clear(err);
	return exp_run_experiment(&req, &o, st, NULL, 0, err);
}

static int q_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_open(db, &h) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

static int exec_sql(const char *db, const char *sql)
{
	sqlite3 *h;
	int rc;

	if (sqlite3_open(db, &h) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc;
}

#define RES "[experiment]\nname = r\ncluster = 1x4:v100-16gb\nseed = 3\n" \
	"gen.jobs = 10\n"

static void test_resume(void)
{
	char db[600];
	struct exp_run_stats st;
	struct sim_err err;
	const char *cfg;

	snprintf(db, sizeof db, "%s/resume.db", test_tmpdir());
	remove(db);
	cfg = put("r.ini", RES "replications = 2\n[sweep]\n"
		  "policy = exclusive, colti\n");
	CU_ASSERT_EQUAL_FATAL(run(cfg, db, 0, &st, &err), 0);
	CU_ASSERT_EQUAL(st.done, 4);
	/* A comment, a reordered key and two more replications resume: only
	** the new replications run, and the stored config follows. */
	cfg = put("r.ini", "; now with four\n" RES "[sweep]\n"
		  "policy = exclusive,colti\n[experiment]\nreplications = 4\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), 0);
	if (err.code)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL(st.skipped, 4);
	CU_ASSERT_EQUAL(st.done, 4);
	CU_ASSERT_EQUAL(q_int(db, "SELECT total_runs FROM experiments"), 8);
	CU_ASSERT_EQUAL(q_int(db, "SELECT replications FROM experiments"), 4);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs"), 8);
	/* A changed value is refused, naming it; nothing runs. */
	cfg = put("r.ini", RES "replications = 4\n[sweep]\n"
		  "policy = exclusive, mps\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), SIM_ESTATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "r.ini:8: sweep.policy = "
				      "'exclusive, mps': was 'exclusive, "
				      "colti'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "different config"));
	/* Fewer replications too. */
	cfg = put("r.ini", RES "replications = 3\n[sweep]\n"
		  "policy = exclusive, colti\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), SIM_ESTATE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "r.ini:6: replications = 3: "
				      "the stored experiment has 4"));
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs"), 8);
	/* An experiment stored before schema 2 (no canonical form kept)
	** resumes by its stored text, parsed again. */
	CU_ASSERT_EQUAL(exec_sql(db, "UPDATE experiments SET config_canon = "
				 "NULL, replications = NULL"), SQLITE_OK);
	cfg = put("r.ini", RES "replications = 5\n\n[sweep]\n"
		  "policy = exclusive, colti\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), 0);
	CU_ASSERT_EQUAL(st.skipped, 8);
	CU_ASSERT_EQUAL(st.done, 2);
	CU_ASSERT_EQUAL(exec_sql(db, "UPDATE experiments SET config_canon = "
				 "NULL"), SQLITE_OK);
	cfg = put("r.ini", RES "replications = 5\n[sweep]\n"
		  "policy = exclusive, colti\nhorizon_s = 100\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), SIM_ESTATE);
	if (strstr(err.msg, "r.ini:9: sweep.horizon_s = '100': not set") ==
	    NULL)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "r.ini:9: sweep.horizon_s = "
				      "'100': not set"));
}

/* A database of schema 3 (before config_canon) migrates when opened for
** writing and its experiment resumes. */
static void test_schema2_migrates(void)
{
	char db[600];
	struct exp_run_stats st;
	struct sim_err err;
	const char *cfg;

	snprintf(db, sizeof db, "%s/v1.db", test_tmpdir());
	remove(db);
	cfg = put("v1.ini", RES "replications = 1\npolicy = mps\n");
	CU_ASSERT_EQUAL_FATAL(run(cfg, db, 0, &st, &err), 0);
	CU_ASSERT_EQUAL(exec_sql(db, "ALTER TABLE experiments DROP COLUMN "
				 "config_canon; ALTER TABLE experiments DROP "
				 "COLUMN replications; PRAGMA user_version = "
				 "3"), SQLITE_OK);
	CU_ASSERT_EQUAL(q_int(db, "PRAGMA user_version"), 3);
	cfg = put("v1.ini", "; resumed\n" RES "replications = 2\n"
		  "policy = mps\n");
	CU_ASSERT_EQUAL(run(cfg, db, 1, &st, &err), 0);
	CU_ASSERT_EQUAL(st.skipped, 1);
	CU_ASSERT_EQUAL(st.done, 1);
	CU_ASSERT_EQUAL(q_int(db, "PRAGMA user_version"),
			STORE_SCHEMA_VERSION);
	CU_ASSERT_EQUAL(q_int(db, "SELECT replications FROM experiments"), 2);
}

/* colosim run --dry-run: the matrix, one line per run, and its size;
** nothing runs and no database appears; a bad config is one line. */
static void test_dry_run(void)
{
	char cmd[1200], out[16384], err[1024], db[600];
	const char *cfg;
	struct stat sb;
	int n = 0;
	char *p;

	snprintf(db, sizeof db, "%s/dry.db", test_tmpdir());
	cfg = put("dry.ini", RES "replications = 3\n[sweep]\n"
		  "policy = exclusive, colti\npolicy.colti.headroom = 0, 0.1\n"
		  "[policy.colti]\nmode = mps\n");
	snprintf(cmd, sizeof cmd, "%s run %s --dry-run -o %s", test_bin(), cfg,
		 db);
	CU_ASSERT_EQUAL_FATAL(test_sh(cmd, out, sizeof out, err, sizeof err),
			      0);
	for (p = out; *p; p++)
		n += *p == '\n';
	CU_ASSERT_EQUAL(n, 1 + 9 + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "9 runs = 3 variants x 1 setting x "
				      "3 replications"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "colti headroom=0.1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "mode=mps,headroom=0.1"));
	CU_ASSERT_NOT_EQUAL(stat(db, &sb), 0);
	cfg = put("dry.ini", RES "[sweep]\npolicy = exclusive, colti\n"
		  "[policy.colti]\nheadrom = 0\n");
	snprintf(cmd, sizeof cmd, "%s run %s --dry-run", test_bin(), cfg);
	CU_ASSERT_EQUAL(test_sh(cmd, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "dry.ini:9: [policy.colti] "
				      "headrom: unknown parameter"));
	CU_ASSERT_EQUAL(out[0], '\0');
}

TEST_REGISTER(cfgcheck)
{
	static const struct test_case cases[] = {
		{ "a config is checked whole, each fault FILE:LINE",
		  test_whole_check },
		{ "the canonical form resume compares", test_canonical_form },
		{ "resume by the parsed config", test_resume },
		{ "a schema 3 database migrates and resumes",
		  test_schema2_migrates },
		{ "run --dry-run prints the matrix", test_dry_run },
		{ "the streamed matrix's shape", test_matrix_shape },
		{ NULL, NULL }
	};
	return test_add_suite("cfgcheck", cases);
}
