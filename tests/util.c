/*
** util.c: helpers shared by the CUnit suites (see util.h).
*/
#include <math.h>
#include "tests/util.h"
#include "experiments/store.h"
#include "traces/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int test_add_suite(const char *suite, const struct test_case *cases)
{
	CU_pSuite s = CU_add_suite(suite, NULL, NULL);

	if (s == NULL)
		return CU_get_error();
	for (; cases->name != NULL; cases++)
		if (CU_add_test(s, cases->name, cases->fn) == NULL)
			return CU_get_error();
	return 0;
}

const char *test_shared_traces(void)
{
	static const char *const dirs[] = { "../shared/traces", "data/traces" };
	struct stat st;
	const char *env = getenv("COLOSIM_SHARED_TRACES");
	size_t i;

	if (env != NULL && *env != '\0')
		return stat(env, &st) == 0 && S_ISDIR(st.st_mode) ? env : NULL;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
			return dirs[i];
	return NULL;
}

void test_skip_trace(const char *rel)
{
	struct trace_manifest m;
	const char *dir = test_shared_traces();
	const char *name = NULL;
	size_t i;
	int loaded = trace_manifest_load(&m, "traces/manifest.csv", NULL) == 0;

	for (i = 0; loaded && i < m.nfiles && name == NULL; i++)
		if (strcmp(m.files[i].file, rel) == 0)
			name = m.files[i].trace;
	fprintf(stderr, "\n  skipped: %s/%s is absent; `build/colosim traces "
		"fetch %s%s` gets it into data/traces, where the tests look "
		"(docs/TRACES.md)\n", dir ? dir : "../shared/traces", rel,
		name ? name : "NAME",
		name && strstr(name, "fgd") ? " --mirror DIR" : "");
	if (loaded)
		trace_manifest_fini(&m);
}

const char *test_tmpdir(void)
{
	static char path[256];

	if (path[0] == '\0') {
		const char *base = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/colosim-tests-XXXXXX",
			 base && *base ? base : "/tmp");
		if (mkdtemp(path) == NULL)
			path[0] = '\0';
	}
	return path[0] ? path : "/tmp";
}

double test_duty_pair_speed(double d, double r0, double r1)
{
	double a = (r0 - r1) * (1 - d), b = r0 * (1 - d) + d, p, r;

	p = a > 0 ? (b - sqrt(b * b - 4 * a * d)) / (2 * a) : d / b;
	r = r0 - p * (r0 - r1);
	return 1.0 / ((1 - d) + d / r);
}

const char *test_store_build(const char *file, const char *cfg_text,
			     test_fill_fn fill, void *ctx)
{
	static char path[512];
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct store *s = NULL;
	struct sim_err err = { 0, "" };
	size_t i;
	int64_t id;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), file);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, file, cfg_text,
					       strlen(cfg_text), &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, path, STORE_WRITE, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_add_experiment(s, cfg, (long)m.nruns, &id,
						   &err), 0);
	for (i = 0; i < m.nruns; i++) {
		struct run_result res;
		run_result_init(&res);
		int failed = fill(ctx, &m.runs[i], &res) != 0;
		CU_ASSERT_EQUAL(store_put_run(s, id, &m.runs[i], failed ?
					      STORE_RUN_FAILED : STORE_RUN_DONE,
					      failed ? "failed" : NULL,
					      failed ? NULL : &res, &err), 0);
		run_result_fini(&res);
	}
	store_close(s);
	exp_matrix_fini(&m);
	exp_config_free(cfg);
	return path;
}
