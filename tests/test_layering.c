/*
** test_layering.c: the include-layering check (tests/layering/check.sh,
** DESIGN.md "Layout").  The real tree passes it; a scratch tree with one
** forbidden edge (the engine base including a model header) fails it and
** names the file, line and edge; an allowed edge in the scratch tree passes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tests/util.h"

/* Runs the check on root; its output goes to out (static, first 4 KiB). */
static int check(const char *root, const char **out)
{
	static char buf[4096];
	char cmd[1024];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof cmd, "sh tests/layering/check.sh '%s' 2>&1",
		 root);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void test_tree_passes(void)
{
	const char *out = "";
	int rc = check(".", &out);
	if (rc != 0)
		fprintf(stderr, "\n%s", out);
	CU_ASSERT_EQUAL(rc, 0);
}

static void test_forbidden_edge_fails(void)
{
	char root[256], p[320], cmd[1600];
	const char *out = "";

	snprintf(root, sizeof root, "%s/layering", test_tmpdir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/sim' "
		 "'%s/models' '%s/tests/layering' && cp tests/layering/edges.txt "
		 "'%s/tests/layering/'", root, root, root, root, root);
	CU_ASSERT_FATAL(system(cmd) == 0);
	snprintf(p, sizeof p, "%s/models/gpu.c", root);
	put(p, "#include \"sim/err.h\"\n#include \"models/gpu.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 0);     /* models -> sim: allowed */

	snprintf(p, sizeof p, "%s/sim/err.c", root);
	put(p, "/* base */\n#include \"sim/err.h\"\n#include \"models/gpu.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "sim/err.c:3:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "sim -> models/gpu.h"));
}

/* Policies see only the policy contract: a policy file that includes the
** world or a model header fails; policy.h itself may include its base
** headers; no policy header has an exception (frac.h once had one). */
static void test_policy_edges(void)
{
	char root[256], p[320], cmd[1600];
	const char *out = "";

	snprintf(root, sizeof root, "%s/layering-pol", test_tmpdir());
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/policies' "
		 "'%s/tests/layering' && cp tests/layering/edges.txt "
		 "'%s/tests/layering/'", root, root, root, root);
	CU_ASSERT_FATAL(system(cmd) == 0);
	snprintf(p, sizeof p, "%s/policies/policy.h", root);
	put(p, "#include \"sim/err.h\"\n#include \"sim/rng.h\"\n");
	snprintf(p, sizeof p, "%s/policies/frac.h", root);
	put(p, "#include \"policies/policy.h\"\n");
	snprintf(p, sizeof p, "%s/policies/mine.c", root);
	put(p, "#include \"policies/policy.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 0);

	put(p, "#include \"policies/policy.h\"\n#include \"sim/err.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 1);     /* base headers: via policy.h */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "policies/mine.c:2:"));

	put(p, "#include \"sim/world/world.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "policies -> sim/world/world.h"));

	put(p, "#include \"models/gpu.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "policies/mine.c:1:"));
	/* a policy's own header is held to the same rule */
	snprintf(p, sizeof p, "%s/policies/mine.c", root);
	put(p, "#include \"policies/policy.h\"\n");
	snprintf(p, sizeof p, "%s/policies/frac.h", root);
	put(p, "#include \"models/gpu.h\"\n");
	CU_ASSERT_EQUAL(check(root, &out), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "policies/frac.h:1:"));
}

TEST_REGISTER(layering)
{
	static const struct test_case cases[] = {
		{"the tree passes the layering check", test_tree_passes},
		{"a forbidden edge fails, naming file:line", test_forbidden_edge_fails},
		{"policies include only the policy contract", test_policy_edges},
		{NULL, NULL}
	};
	return test_add_suite("layering", cases);
}
