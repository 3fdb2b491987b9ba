/*
** test_help.c: help and typos.  `colosim help CMD [SUB]` prints exactly
** what `colosim CMD [SUB] --help` prints, for every command; unknown
** commands, topics, subcommands, options, policies, parameters, models
** and devices get one line with the likely name (sim/suggest.h), and
** only when one is close.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/suggest.h"
#include "tests/util.h"

static void test_distance(void)
{
	char out[64];

	CU_ASSERT_EQUAL(sim_edit_distance("colti", 5, "colti", 5, 9), 0);
	CU_ASSERT_EQUAL(sim_edit_distance("colit", 5, "colti", 5, 9), 1);
	CU_ASSERT_EQUAL(sim_edit_distance("nwe", 3, "new", 3, 9), 1);
	CU_ASSERT_EQUAL(sim_edit_distance("headrom", 7, "headroom", 8, 9), 1);
	CU_ASSERT_EQUAL(sim_edit_distance("MPS", 3, "mps", 3, 9), 0);
	CU_ASSERT_EQUAL(sim_edit_distance("abc", 3, "xyz", 3, 9), 3);
	CU_ASSERT_EQUAL(sim_edit_distance("", 0, "abcd", 4, 9), 4);
	CU_ASSERT_EQUAL(sim_edit_distance("abcdefghijkl", 12, "", 0, 5), 5);
	/* Suggestions: the nearest likely typo, never an exact name, never
	** a far one, the first of equals. */
	CU_ASSERT_EQUAL(sim_suggest("colit", "exclusive, mps, colti", out,
				    sizeof out), 1);
	CU_ASSERT_STRING_EQUAL(out, "colti");
	CU_ASSERT_EQUAL(sim_suggest("colti", "exclusive, colti", out,
				    sizeof out), 0);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_EQUAL(sim_suggest("gslice", "exclusive, mps", out,
				    sizeof out), 0);
	CU_ASSERT_EQUAL(sim_suggest("x", "y, z", out, sizeof out), 0);
	CU_ASSERT_EQUAL(sim_suggest("mp", "mps, mig", out, sizeof out), 1);
	CU_ASSERT_STRING_EQUAL(out, "mps");
	CU_ASSERT_EQUAL(sim_suggest("v100-16g", " a100-80gb ,v100-16gb,",
				    out, sizeof out), 1);
	CU_ASSERT_STRING_EQUAL(out, "v100-16gb");
	{
		const char *v[] = { "list", "fetch", NULL };
		CU_ASSERT_EQUAL(sim_suggest_v("fecth", v, out, sizeof out), 1);
		CU_ASSERT_STRING_EQUAL(out, "fetch");
	}
	sim_did_you_mean("timeslise", "exclusive, timeslice", out, sizeof out);
	CU_ASSERT_STRING_EQUAL(out, "did you mean timeslice? ");
	sim_did_you_mean("zzz", "exclusive, timeslice", out, sizeof out);
	CU_ASSERT_STRING_EQUAL(out, "");
}

/* The command names `colosim help` lists. */
static int commands(char names[][32], int max)
{
	char cmd[600], out[8192], *p;
	int n = 0;

	snprintf(cmd, sizeof cmd, "%s help", test_bin());
	if (test_sh(cmd, out, sizeof out, NULL, 0) != 0)
		return 0;
	p = strstr(out, "commands:\n");
	if (p == NULL)
		return 0;
	for (p = strchr(p, '\n') + 1; *p == ' ' && n < max;) {
		if (sscanf(p, " %31s", names[n]) == 1 &&
		    strcmp(names[n], "help") != 0 &&
		    strcmp(names[n], "version") != 0)
			n++;
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	return n;
}

/* `help WORDS` and `WORDS --help` print the same, exit 0. */
static void same_help(const char *words)
{
	static char a[32768], b[32768];
	char cmd[600];
	int ra, rb;

	snprintf(cmd, sizeof cmd, "%s help %s", test_bin(), words);
	ra = test_sh(cmd, a, sizeof a, NULL, 0);
	snprintf(cmd, sizeof cmd, "%s %s --help", test_bin(), words);
	rb = test_sh(cmd, b, sizeof b, NULL, 0);
	if (ra != 0 || rb != 0 || strcmp(a, b) != 0 || a[0] == '\0')
		fprintf(stderr, "\n  help %s: exit %d/%d, %zu/%zu bytes\n",
			words, ra, rb, strlen(a), strlen(b));
	CU_ASSERT_EQUAL(ra, 0);
	CU_ASSERT_EQUAL(rb, 0);
	CU_ASSERT(a[0] != '\0');
	CU_ASSERT_STRING_EQUAL(a, b);
}

static void test_help_cmd(void)
{
	char names[64][32];
	int n = commands(names, 64), i;

	CU_ASSERT(n >= 12);
	for (i = 0; i < n; i++)
		same_help(names[i]);
	same_help("list policies");
	same_help("list devices");
	same_help("traces fetch");
	same_help("policy new");
	same_help("llm serve");
}

/* One line on stderr, exit 2, holding has. */
static void typo(const char *args, const char *has)
{
	char cmd[1200], err[2048];
	int rc, nl = 0;
	const char *p;

	snprintf(cmd, sizeof cmd, "%s %s", test_bin(), args);
	rc = test_sh(cmd, NULL, 0, err, sizeof err);
	for (p = err; *p; p++)
		nl += *p == '\n';
	if (rc != 2 || nl != 1 || strstr(err, has) == NULL)
		fprintf(stderr, "\n  colosim %s: exit %d: %s", args, rc, err);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT_EQUAL(nl, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, has));
}

static void test_did_you_mean(void)
{
	typo("rnu x.ini", "unknown command 'rnu' (did you mean run?");
	typo("help replya", "unknown command 'replya' (did you mean replay?");
	typo("list polices", "unknown topic 'polices' (did you mean "
	     "policies?");
	typo("traces fecth x", "unknown subcommand 'fecth' (did you mean "
	     "fetch?");
	typo("llm stpe", "unknown topic 'stpe' (did you mean step?");
	typo("replay traces/ref/colti.csv --polcy mps --cluster 1x1:a100-80gb",
	     "did you mean --policy?");
	typo("replay traces/ref/colti.csv --policy colit --cluster "
	     "1x1:a100-80gb", "unknown policy 'colit' (did you mean colti?");
	typo("replay traces/ref/colti.csv --policy colti --cluster "
	     "1x1:a100-80gb --param headrom=0", "unknown parameter 'headrom' "
	     "for policy colti (did you mean headroom?");
	typo("replay traces/ref/colti.csv --policy colti --cluster "
	     "1x1:a100-80g", "unknown device 'a100-80g' (did you mean "
	     "a100-80gb?");
	typo("list devices v100-16g", "unknown device 'v100-16g' (did you "
	     "mean v100-16gb?");
	typo("list policies colit", "unknown policy 'colit' (did you mean "
	     "colti?");
	typo("gen --models resnet5:1 --jobs 2", "unknown model 'resnet5' (did "
	     "you mean resnet50?");
	/* Nothing close: no guess. */
	typo("frobnicate", "unknown command 'frobnicate' (try 'colosim "
	     "help')");
}

/* User docs speak for themselves: no reference to the project's issue
** tracker ("issue 3", "Issue 9, item 6", "the target").  A cited
** upstream report (another project's "issue #149") is a source, allowed. */
static void test_no_tracker_refs(void)
{
	char out[4096];
	int rc = test_sh("grep -nIiE \"(\\bissue [0-9]|\\bissue.s |the issue "
			 "(says|target))\" README.md docs/*.md", out,
			 sizeof out, NULL, 0);

	if (rc != 1)
		fprintf(stderr, "\n  tracker references in user docs:\n%s",
			out);
	CU_ASSERT_EQUAL(rc, 1);          /* grep: no line matched */
}

TEST_REGISTER(help)
{
	static const struct test_case cases[] = {
		{ "edit distance and suggestions", test_distance },
		{ "help CMD is CMD --help, every command", test_help_cmd },
		{ "did you mean, everywhere a name is typed",
		  test_did_you_mean },
		{ "no tracker references in user docs", test_no_tracker_refs },
		{ NULL, NULL }
	};
	return test_add_suite("help", cases);
}
