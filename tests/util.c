/*
** util.c: helpers shared by the CUnit suites (see util.h).
*/
#include <math.h>
#include "tests/util.h"

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
	static const char *dir = "../shared/traces";
	struct stat st;
	const char *env = getenv("COLOSIM_SHARED_TRACES");

	if (env != NULL && *env != '\0')
		dir = env;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return dir;
	return NULL;
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
