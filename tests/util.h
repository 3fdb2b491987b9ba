/*
** util.h: helpers shared by the CUnit suites.
**
** Each suite lives in tests/test_NAME.c and defines `int test_NAME_add(void)`,
** which adds its CUnit suite(s) and returns 0 or a CUnit error.  The runner
** (tests/main.c) finds the suites from the file names (the Makefile writes
** the list), so a new suite is just a new file.
*/
#ifndef COLOSIM_TESTS_UTIL_H
#define COLOSIM_TESTS_UTIL_H

#include <CUnit/CUnit.h>

/* Defines a suite's registration function with its prototype (for
** -Wmissing-prototypes): TEST_REGISTER(engine) { ... return 0; } */
#define TEST_REGISTER(name) \
	int test_##name##_add(void); \
	int test_##name##_add(void)

/* Adds a suite with the given NULL-terminated {name, fn} table. */
struct test_case {
	const char *name;
	CU_TestFunc fn;
};
int test_add_suite(const char *suite, const struct test_case *cases);

/* Asserts |a - b| <= tol * max(1, |b|) (a relative check past 1). */
/* The speed of two identical tenants with duty d whose busy part runs at
** r0 alone and r1 while the other is busy (docs/MODEL.md, "Duty cycles"),
** in closed form: the busy fraction p solves
**     (r0 - r1)(1 - d) p^2 - (r0 (1 - d) + d) p + d = 0,
** r = r0 - p (r0 - r1), speed = 1 / ((1 - d) + d / r). */
double test_duty_pair_speed(double d, double r0, double r1);

#define TEST_ASSERT_CLOSE(a, b, tol) \
	CU_ASSERT_DOUBLE_EQUAL((a), (b), (tol) * ((b) > 1 || (b) < -1 ? \
		((b) < 0 ? -(b) : (b)) : 1.0))

/* The folder holding the public traces, or NULL: $COLOSIM_SHARED_TRACES,
** else ../shared/traces, else data/traces (where `colosim traces fetch`
** puts them). */
const char *test_shared_traces(void);

/* Prints the one skip line for a missing public trace file (rel: its path
** under the traces folder, as in traces/manifest.csv), naming the
** `colosim traces fetch NAME` that gets it. */
void test_skip_trace(const char *rel);

/* The whole of file path, NUL-terminated, malloc'd (the caller frees);
** NULL when it cannot be opened or read. */
char *test_slurp(const char *path);

/* Writes head (NULL: none) then body into the test directory as `name`;
** returns its path, one of four buffers used in turn (so up to four paths
** may be held at once), or NULL when the file cannot be written. */
const char *test_write(const char *name, const char *head, const char *body);

/* A fresh temporary directory for this process, created on first use. */
const char *test_tmpdir(void);

/* The colosim binary under test: $COLOSIM_BIN (make check sets it), else
** build/colosim. */
const char *test_bin(void);

/*
** Runs cmd with sh -c (no single quotes in it; 120 s at most) from the
** current folder: its stdout into out (size n) and its stderr into errbuf
** (size nerr), either may be NULL.  Returns its exit status, or -1.
*/
int test_sh(const char *cmd, char *out, size_t n, char *errbuf,
	    size_t nerr);

/*
** Builds a policy plugin the way a user does: `colosim policy new NAME
** --dir TMP/NAME`, then its Makefile against this source tree.  The path
** of TMP/NAME/NAME.so (static), or NULL after printing why (no cc or
** make: a skip line; a failed build: its stderr).  Built once per
** process and name.
*/
const char *test_build_plugin(const char *name);

/*
** A results store built by hand: the experiment of config text cfg (an
** INI; its trace need not exist) in a fresh database `file` of the test
** directory, with each run of its matrix stored done with the result
** fill(ctx, spec, res) makes (res initialised and freed here); a fill
** that returns nonzero stores the run failed.  Returns the path (static
** buffer, valid until the next call); fails the test on error.
*/
struct exp_run_spec;
struct run_result;
typedef int (*test_fill_fn)(void *ctx, const struct exp_run_spec *spec,
			    struct run_result *res);
const char *test_store_build(const char *file, const char *cfg,
			     test_fill_fn fill, void *ctx);

#endif
