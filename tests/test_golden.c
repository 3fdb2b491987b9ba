/*
** test_golden.c: golden regression.  tests/golden/expected.csv holds the
** metrics of every reference trace under every baseline policy (written by
** tests/golden/regen.sh, `make golden`); this suite reruns each and fails
** when any metric drifts by more than a relative 1e-6 (absolute 1e-9 near
** zero).  A drift is either a bug or a deliberate model change; for the
** latter, regenerate on purpose and say why in the commit.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/util.h"
#include "tests/world_util.h"

#define GOLDEN "tests/golden/expected.csv"

struct golden_row {
	char trace[256], cluster[128], policy[32], metric[48];
	double value;
};

/* Reads one data row; 1 on success, 0 at the end, -1 malformed. */
static int read_row(FILE *f, struct golden_row *r)
{
	char line[1024];
	char *p[5], *s;
	int k;

	if (fgets(line, sizeof line, f) == NULL)
		return 0;
	line[strcspn(line, "\n")] = '\0';
	for (k = 0, s = line; k < 5; k++) {
		p[k] = s;
		s = strchr(s, ',');
		if (s == NULL && k < 4)
			return -1;
		if (s != NULL)
			*s++ = '\0';
	}
	snprintf(r->trace, sizeof r->trace, "%s", p[0]);
	snprintf(r->cluster, sizeof r->cluster, "%s", p[1]);
	snprintf(r->policy, sizeof r->policy, "%s", p[2]);
	snprintf(r->metric, sizeof r->metric, "%s", p[3]);
	return sscanf(p[4], "%lf", &r->value) == 1 ? 1 : -1;
}

static void test_golden(void)
{
	FILE *f = fopen(GOLDEN, "r");
	struct golden_row row;
	struct run_result res;
	char cur[512] = "", header[256];
	int rc, have = 0, compared = 0, drifted = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(header, sizeof header, f));
	run_result_init(&res);
	while ((rc = read_row(f, &row)) == 1) {
		char key[512];
		double got, tol;
		snprintf(key, sizeof key, "%s|%s|%s", row.trace, row.cluster,
			 row.policy);
		if (strcmp(key, cur) != 0) {
			struct sim_err err = { 0, "" };
			run_result_fini(&res);
			run_result_init(&res);
			snprintf(cur, sizeof cur, "%s", key);
			have = tw_run(row.trace, row.policy, row.cluster, 1,
				      NULL, &res, &err) == 0;
			if (!have)
				fprintf(stderr, "\n  golden %s: %s\n", key,
					err.msg);
			CU_ASSERT(have);
		}
		if (!have)
			continue;
		got = run_result_get(&res, row.metric);
		tol = fmax(1e-9, 1e-6 * fabs(row.value));
		compared++;
		if (!(fabs(got - row.value) <= tol)) {
			if (drifted++ < 10)
				fprintf(stderr, "\n  golden drift %s %s: "
					"expected %.9g, got %.9g", key,
					row.metric, row.value, got);
		}
	}
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(compared > 0);
	CU_ASSERT_EQUAL(drifted, 0);
	run_result_fini(&res);
	fclose(f);
}

TEST_REGISTER(golden)
{
	static const struct test_case cases[] = {
		{ "reference traces x baselines", test_golden },
		{ NULL, NULL }
	};
	return test_add_suite("golden", cases);
}
