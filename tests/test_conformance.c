/*
** test_conformance.c: every registered policy (and the template) on every
** reference trace in traces/ref/, stepped one event at a time, checking
** after each event that time never goes backwards and no GPU or MIG slice
** holds more memory than it has; at the end, that every job ended exactly
** once (done or failed), and that the same seed gives the same metrics.
** The stepping and its invariants are tw_step_checked (tests/world_util.c),
** which test_swap.c runs at a cost.
** Leaks are checked by running this suite under `make SANITIZE=1 check`.
*/
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/catalog.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define CLUSTER "2x4:a100-80gb"

/* Runs trace under pol (seed 7, no event budget) stepping event by event
** with the invariants of tw_step_checked; returns the number of violations
** found (and prints the first few). */
static int run_checked(const char *trace, const struct pol_ops *pol)
{
	struct world_config cfg = tw_config(pol);
	struct tw_world t;
	int bad = 1;

	cfg.seed = 7;
	cfg.max_events = 0;
	if (tw_open(&t, trace, CLUSTER, &cfg, NULL) == 0)
		bad = tw_step_checked(&t, NULL);
	tw_close(&t);
	return bad;
}

static int same_metrics(const struct run_result *a,
			const struct run_result *b)
{
	size_t k;

	if (a->nmetrics != b->nmetrics || a->njobs != b->njobs)
		return 0;
	for (k = 0; k < a->nmetrics; k++)
		if (strcmp(a->metrics[k].name, "wall_s") != 0 &&
		    memcmp(&a->metrics[k].value, &b->metrics[k].value,
			   sizeof(double)) != 0)
			return 0;
	return 1;
}

/* One run of trace under pol (found in cat) through exp_simulate_args. */
static int run_in(const struct pol_catalog *cat, const char *trace,
		  const struct pol_ops *pol, struct run_result *res,
		  struct sim_err *err)
{
	struct exp_sim_args a = tw_sim_args(trace, pol->zName, CLUSTER, 11);

	a.catalog = cat;
	return exp_simulate_args(&a, res, err);
}

/* The conformance checks of pol, found in cat (NULL: the built-ins); a
** policy not in cat (the template) gets the stepped invariants only. */
static void check_policy_in(const struct pol_catalog *cat,
			    const struct pol_ops *pol)
{
	struct sim_err err = { 0, "" };
	glob_t gl;
	size_t t;

	CU_ASSERT_EQUAL_FATAL(glob("traces/ref/*.csv", 0, NULL, &gl), 0);
	CU_ASSERT(gl.gl_pathc >= 1);
	for (t = 0; t < gl.gl_pathc; t++) {
		struct run_result a, b;
		int rc1, rc2;

		CU_ASSERT_EQUAL(run_checked(gl.gl_pathv[t], pol), 0);
		if (pol_catalog_find(cat, pol->zName) != pol)
			continue;        /* the template is not registered */
		run_result_init(&a);
		run_result_init(&b);
		rc1 = run_in(cat, gl.gl_pathv[t], pol, &a, &err);
		rc2 = run_in(cat, gl.gl_pathv[t], pol, &b, &err);
		CU_ASSERT_EQUAL(rc1, 0);
		CU_ASSERT_EQUAL(rc2, 0);
		CU_ASSERT(same_metrics(&a, &b));
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&a, "jobs_done") +
				       run_result_get(&a, "jobs_failed"),
				       run_result_get(&a, "jobs_total"), 0);
		run_result_fini(&a);
		run_result_fini(&b);
	}
	globfree(&gl);
}

static void check_policy(const struct pol_ops *pol)
{
	check_policy_in(NULL, pol);
}

/* A plugin, built from `colosim policy new` as a user builds one, is held
** to the same suite as the built-ins. */
static void test_plugin(void)
{
	const char *so = test_build_plugin("conffifo");
	struct pol_catalog cat;
	struct sim_err err = { 0, "" };
	const struct pol_ops *pol;

	if (so == NULL)
		return;
	pol_catalog_init(&cat);
	CU_ASSERT_EQUAL_FATAL(pol_catalog_load(&cat, so, &err), 0);
	pol = pol_catalog_find(&cat, "conffifo");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pol);
	CU_ASSERT_PTR_NOT_EQUAL(pol, &pol_template);
	CU_ASSERT_EQUAL(pol_registry_check(cat.v, &pol_template, &err), 0);
	check_policy_in(&cat, pol);
	pol_catalog_fini(&cat);
}

static void test_registered(void)
{
	size_t i;

	CU_ASSERT_PTR_NOT_NULL(pol_registry[0]);
	for (i = 0; pol_registry[i] != NULL; i++) {
		check_policy(pol_registry[i]);
	}
}

static void test_template(void)
{
	check_policy(&pol_template);
}

/* Every policy survives other seeds too: a policy bug that only shows
** with some request streams (one stopped DistMind's run, seed 1) fails
** here rather than in a user's sweep. */
static void test_seeds(void)
{
	size_t i;
	uint64_t seed;

	for (i = 0; pol_registry[i] != NULL; i++)
		for (seed = 1; seed <= 4; seed++) {
			struct run_result r;
			struct sim_err err = { 0, "" };
			int rc;

			run_result_init(&r);
			rc = tw_run("traces/ref/mixed-small.csv",
				    pol_registry[i]->zName, CLUSTER, seed, NULL,
				    &r, &err);
			if (rc != 0)
				fprintf(stderr, "\n  %s seed %llu: %s\n",
					pol_registry[i]->zName,
					(unsigned long long)seed, err.msg);
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done") +
					       run_result_get(&r, "jobs_failed"),
					       run_result_get(&r, "jobs_total"), 0);
			run_result_fini(&r);
		}
}

/* Every policy meets the optional columns: a CPU-only job (gpus 0) and
** host CPU and memory.  Policies that cannot place a CPU-only job fail it
** (the share policies run it); none may stop the run.  Found when the
** queue-order schedulers met one: "schedule failed: invalid argument". */
static void test_cpu_only_job(void)
{
	static const char text[] = "# colosim-trace v1\n"
		"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms,"
		"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,"
		"arrival,rate,arrival_arg,batch_timeout_ms,cpu_milli,"
		"host_mem_mib\n"
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,,1000,100\n"
		"B,train,1,resnet50,32,,10,,,,0,,,,,,,,,2000,100\n"
		"C,train,2,resnet50,32,,5,,,,1,0.5,1000,,,,,,,500,100\n";
	char path[512];
	FILE *f;
	size_t i;

	snprintf(path, sizeof path, "%s/cpu-only.csv", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	for (i = 0; pol_registry[i] != NULL; i++) {
		struct run_result r;
		struct sim_err err = { 0, "" };
		int rc;

		run_result_init(&r);
		rc = tw_run(path, pol_registry[i]->zName,
			    "1x2:a100-80gb:cpus=8:mem_gb=64", 1, NULL, &r, &err);
		if (rc != 0)
			fprintf(stderr, "\n  %s: %s\n", pol_registry[i]->zName,
				err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_total"), 3, 0);
		CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done") +
				       run_result_get(&r, "jobs_failed"), 3, 0);
		run_result_fini(&r);
	}
}

/* Names are unique and every table is complete. */
static void test_registry_table(void)
{
	struct sim_err e = { 0, "" };
	const struct pol_ops *with_tmpl[2] = { &pol_template, NULL };
	size_t i;

	CU_ASSERT_EQUAL(pol_registry_check(pol_registry, &pol_template, &e), 0);
	if (e.code != 0)
		fprintf(stderr, "\n  %s\n", e.msg);
	CU_ASSERT_EQUAL(pol_registry_check(with_tmpl, &pol_template, &e), 0);
	for (i = 0; pol_registry[i] != NULL; i++)
		CU_ASSERT_PTR_EQUAL(pol_find(pol_registry[i]->zName),
				    pol_registry[i]);
	CU_ASSERT_PTR_NULL(pol_find("no-such-policy"));
	CU_ASSERT_PTR_NULL(pol_find(pol_template.zName));  /* unregistered */
}

/* The registry check catches what a careless copy of the template does:
** keep its name (any case), keep its description, reuse a name, or carry
** a broken parameter table. */
static int reg_fault(const struct pol_ops *a, const struct pol_ops *b,
		     const char *what)
{
	const struct pol_ops *reg[4] = { pol_registry[0], a, b, NULL };
	struct sim_err e = { 0, "" };
	int rc = pol_registry_check(reg, &pol_template, &e);

	if (rc == 0 || strstr(e.msg, what) == NULL)
		fprintf(stderr, "\n  registry: rc %d '%s', want '%s'\n", rc,
			e.msg, what);
	return rc != 0 && strstr(e.msg, what) != NULL;
}

static void test_registry_catches_copies(void)
{
	static const struct pol_param_def bad_table[] = {
		{ .zKey = "headroom", .eType = POL_PDOUBLE, .lo = 0, .hi = 0.5,
		  .zDefault = "0.7", .zHelp = "h" },
		POL_PARAM_END };
	struct pol_ops copy = pol_template, upper = pol_template;
	struct pol_ops desc = pol_template, twin = pol_template;
	struct pol_ops tab = pol_template, shout = pol_template;

	/* step 1 of the old template, followed literally */
	CU_ASSERT(reg_fault(&copy, NULL, "kept its name"));
	upper.zName = "Template";
	CU_ASSERT(reg_fault(&upper, NULL, "a name is lower-case"));
	desc.zName = "mine";
	CU_ASSERT(reg_fault(&desc, NULL, "the template's description"));
	twin.zName = "mine";
	twin.zDesc = "my policy";
	CU_ASSERT(reg_fault(&twin, &twin, "registered twice"));
	CU_ASSERT(reg_fault(&twin, pol_find("exclusive"), "registered twice"));
	shout.zName = pol_registry[0]->zName;
	shout.zDesc = "my policy";
	CU_ASSERT(reg_fault(&shout, NULL, "registered twice"));
	tab.zName = "mine";
	tab.zDesc = "my policy";
	tab.aParam = bad_table;
	CU_ASSERT(reg_fault(&tab, NULL, "'headroom': a default out of"));
	tab.aParam = NULL;
	tab.xSchedule = NULL;
	CU_ASSERT(reg_fault(&tab, NULL, "no xSchedule"));
}

/*
** docs/POLICIES.md documents every policy's parameter table as it is:
** under the heading "#### Parameters of `NAME`", one row
** "| `key` | type | range | default | help |" per parameter, with the
** first four cells as the table says (pol_ptype_name, pol_param_range,
** zDefault or "(none)") and no row for a key the table lacks.
*/
/* Checks NAME's section of doc; returns the faults found (and prints). */
static int doc_faults(const char *doc, const struct pol_ops *o)
{
	char head[128], row[512], range[256];
	const struct pol_param_def *d;
	const char *sec, *end, *line;
	int bad = 0, rows = 0, defs = 0;

	snprintf(head, sizeof head, "\n#### Parameters of `%s`\n", o->zName);
	if ((sec = strstr(doc, head)) == NULL) {
		fprintf(stderr, "\n  docs/POLICIES.md: no '%s'\n", head + 1);
		return 1;
	}
	sec += strlen(head);
	end = strstr(sec, "\n#");
	if (end == NULL)
		end = sec + strlen(sec);
	for (d = o->aParam; d != NULL && d->zKey != NULL; d++, defs++) {
		const char *hit;
		pol_param_range(d, range, sizeof range);
		snprintf(row, sizeof row, "\n| `%s` | %s | %s | %s |", d->zKey,
			 pol_ptype_name(d->eType), range,
			 d->zDefault ? d->zDefault : "(none)");
		hit = strstr(sec - 1, row);
		if (hit == NULL || hit >= end) {
			fprintf(stderr, "\n  docs/POLICIES.md, %s: no row "
				"'%s'\n", o->zName, row + 1);
			bad++;
		}
	}
	for (line = sec; line < end; line = strchr(line, '\n') + 1) {
		if (strncmp(line, "| `", 3) == 0)
			rows++;
		if (strchr(line, '\n') == NULL)
			break;
	}
	if (rows != defs) {
		fprintf(stderr, "\n  docs/POLICIES.md, %s: %d rows for %d "
			"parameters\n", o->zName, rows, defs);
		bad++;
	}
	return bad;
}

static void test_docs_match_tables(void)
{
	char *doc = test_slurp("docs/POLICIES.md");
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	for (i = 0; pol_registry[i] != NULL; i++)
		CU_ASSERT_EQUAL(doc_faults(doc, pol_registry[i]), 0);
	CU_ASSERT_EQUAL(doc_faults(doc, &pol_template), 0);
	free(doc);
}

TEST_REGISTER(conformance)
{
	static const struct test_case cases[] = {
		{ "registry table", test_registry_table },
		{ "the registry check catches careless copies",
		  test_registry_catches_copies },
		{ "docs/POLICIES.md matches every parameter table",
		  test_docs_match_tables },
		{ "every policy on every reference trace", test_registered },
		{ "the template on every reference trace", test_template },
		{ "a plugin from policy new on every reference trace",
		  test_plugin },
		{ "every policy meets a CPU-only job", test_cpu_only_job },
		{ "every policy under four seeds", test_seeds },
		{ NULL, NULL }
	};
	return test_add_suite("conformance", cases);
}
