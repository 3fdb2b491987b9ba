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
#include <sys/wait.h>
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

const char *test_bin(void)
{
	const char *b = getenv("COLOSIM_BIN");

	return b && *b ? b : "build/colosim";
}

int test_sh(const char *cmd, char *out, size_t n, char *errbuf, size_t nerr)
{
	char full[8192], errpath[400];
	FILE *p, *f;
	size_t got = 0;
	int st;

	snprintf(errpath, sizeof errpath, "%s/sh-stderr.txt", test_tmpdir());
	snprintf(full, sizeof full, "timeout 120 sh -c '%s' 2>%s </dev/null",
		 cmd, errpath);
	if ((p = popen(full, "r")) == NULL)
		return -1;
	if (out != NULL && n > 0) {
		got = fread(out, 1, n - 1, p);
		out[got] = '\0';
	}
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	if (errbuf != NULL && nerr > 0) {
		errbuf[0] = '\0';
		if ((f = fopen(errpath, "r")) != NULL) {
			got = fread(errbuf, 1, nerr - 1, f);
			errbuf[got] = '\0';
			fclose(f);
		}
	}
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *test_build_plugin(const char *name)
{
	static char so[8][600], names[8][64];
	static int k;
	char cmd[2048], err[2048], cwd[1024];
	char *p;
	int i;

	for (i = 0; i < 8; i++)         /* built already by this process */
		if (strcmp(names[i], name) == 0)
			return so[i];
	p = so[k & 7];
	snprintf(names[k++ & 7], sizeof names[0], "%s", name);
	if (test_sh("command -v cc && command -v make", NULL, 0, NULL, 0) !=
	    0) {
		fprintf(stderr, "\n  skipped: no cc or make to build a policy "
			"plugin with\n");
		names[(k - 1) & 7][0] = '\0';
		return NULL;
	}
	if (getcwd(cwd, sizeof cwd) == NULL)
		return NULL;
	snprintf(cmd, sizeof cmd, "rm -rf %s/%s && %s policy new %s --dir "
		 "%s/%s >/dev/null && make -s -C %s/%s COLOSIM=%s >/dev/null",
		 test_tmpdir(), name, test_bin(), name, test_tmpdir(), name,
		 test_tmpdir(), name, cwd);
	if (test_sh(cmd, NULL, 0, err, sizeof err) != 0) {
		fprintf(stderr, "\n  building plugin %s failed: %s\n", name,
			err);
		names[(k - 1) & 7][0] = '\0';
		return NULL;
	}
	snprintf(p, sizeof so[0], "%s/%s/%s.so", test_tmpdir(), name, name);
	return p;
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

const char *test_write(const char *name, const char *head, const char *body)
{
	static char path[4][512];
	static int next;
	char *p = path[next++ % 4];
	FILE *f;
	int ok;

	snprintf(p, sizeof path[0], "%s/%s", test_tmpdir(), name);
	if ((f = fopen(p, "w")) == NULL)
		return NULL;
	ok = (head == NULL || fputs(head, f) >= 0) && fputs(body, f) >= 0;
	if (fclose(f) != 0 || !ok)
		return NULL;
	return p;
}

char *test_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	fclose(f);
	return buf;
}
