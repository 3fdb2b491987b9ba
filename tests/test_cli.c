/*
** test_cli.c: the colosim command line on bad input, end to end: each case
** runs the built binary (COLOSIM_BIN, set by `make check` to the binary of
** the same build; default build/colosim) from the project root and checks
** its exit status (2 for usage and input errors, 1 for a failed output) and
** that stderr holds exactly one line naming the input (and its line and
** field where there is one).  Also: a failed import keeps a file the user
** already had at -o, and a replay of an open service ends by itself.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/util.h"

#define H "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"
#define ROW "A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"

static const char *bin(void)
{
	const char *b = getenv("COLOSIM_BIN");
	return b && *b ? b : "build/colosim";
}

/* tmp/NAME (static buffer per slot: up to 4 live at once). */
static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ & 3];
	snprintf(p, sizeof buf[0], "%s/%s", test_tmpdir(), name);
	return p;
}

static const char *put(const char *name, const char *text)
{
	const char *p = tmp(name);
	FILE *f = fopen(p, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/*
** Runs `colosim ARGS` (args: a shell fragment; %T expands to the test
** directory) and returns its exit status; stderr goes to *err (static).
*/
static int run(const char *args, const char **err)
{
	static char out[4096];
	char cmd[2048], a[1536], *d = a;
	const char *s;
	FILE *p;
	size_t n;
	int st;

	for (s = args; *s && d < a + sizeof a - 300; s++) {
		if (s[0] == '%' && s[1] == 'T') {
			d += snprintf(d, 300, "%s", test_tmpdir());
			s++;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	snprintf(cmd, sizeof cmd, "timeout 60 %s %s 2>&1 >/dev/null "
		 "</dev/null", bin(), a);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	st = pclose(p);
	*err = out;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Asserts exit status `code`, one stderr line, holding each of up to two
** substrings. */
static void expect(const char *args, int code, const char *has1,
		   const char *has2)
{
	const char *err = "";
	int rc = run(args, &err);
	int ok = rc == code && lines(err) == 1 &&
		(has1 == NULL || strstr(err, has1) != NULL) &&
		(has2 == NULL || strstr(err, has2) != NULL);

	if (!ok)
		fprintf(stderr, "\n  colosim %s\n    exit %d (want %d), "
			"stderr: %s", args, rc, code, err);
	CU_ASSERT(ok);
}

static void setup_files(void)
{
	char dir[600];
	FILE *f;
	int k;

	put("ok.csv", H ROW);
	put("empty.csv", "");
	put("badnum.csv", H "A,train,abc,resnet50,32,,10,,,,1,,1000,,,,,,\n");
	put("badhdr.csv", "# colosim-trace v1\nid,kind,submit,model\n");
	put("short.csv", H "A,train,0,resnet50,32\n");
	f = fopen(tmp("garbage.csv"), "wb");
	if (f != NULL) {
		for (k = 0; k < 512; k++)
			fputc((k * 7919 + 13) & 0xff, f);
		fclose(f);
	}
	snprintf(dir, sizeof dir, "%s", tmp("adir"));
	mkdir(dir, 0755);
	put("notdb.db", "hello, not a database\n");
	put("badpol.ini", "[experiment]\nname = x\ncluster = 1x1:a100-40gb\n"
	    "replications = 1\ntrace = traces/ref/colti.csv\n[sweep]\n"
	    "policy = nosuch\n");
	put("baddev.ini", "[experiment]\nname = x\ncluster = 1x1:nosuch\n"
	    "replications = 1\ntrace = traces/ref/colti.csv\n[sweep]\n"
	    "policy = exclusive\n");
	put("badsec.ini", "[experiment\nname = x\n");
	put("ok.ini", "[experiment]\nname = ok\ncluster = 1x1:a100-40gb\n"
	    "replications = 1\ntrace = ok.csv\n[sweep]\n"
	    "policy = exclusive\n");
	put("tir_bad.csv", "job_id,num_gpu,submit_time,iterations,model_name,"
	    "duration,interval\n1,1,0,100,resnet50,100,10\n"
	    "2,two,5,100,vgg16,200,10\n");
	put("open.csv", H "S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,"
	    ",2\n" "T,train,0,resnet50,32,,60,,,,1,,1000,,,,,,\n");
}

#define CL " --policy exclusive --cluster 1x4:a100-80gb"

static void test_replay(void)
{
	setup_files();
	expect("replay %T/missing.csv" CL, 2, "missing.csv", "cannot open");
	expect("replay %T/adir" CL, 2, "adir", "is a directory");
	expect("replay %T/empty.csv" CL, 2, "empty.csv:1:1", NULL);
	expect("replay %T/garbage.csv" CL, 2, "garbage.csv:1:1", NULL);
	expect("replay %T/badhdr.csv" CL, 2, "badhdr.csv:2:", "header");
	expect("replay %T/badnum.csv" CL, 2, "badnum.csv:3:", "submit_s");
	expect("replay %T/short.csv" CL, 2, "short.csv:3:", "fields");
	expect("replay %T/ok.csv --policy nosuch --cluster 1x1:a100-80gb", 2,
	       "unknown policy 'nosuch'", "exclusive");
	expect("replay %T/ok.csv --policy exclusive --cluster 0x4:a100-80gb",
	       2, "0x4:a100-80gb", "node count");
	expect("replay %T/ok.csv --policy exclusive --cluster 1x0:a100-80gb",
	       2, "1x0:a100-80gb", "GPUs per node");
	expect("replay %T/ok.csv --policy exclusive --cluster 1x4:nosuch", 2,
	       "unknown device 'nosuch'", "a100-80gb");
	expect("replay %T/ok.csv --policy exclusive --cluster "
	       "100000000x8:a100-80gb", 2, "node count", NULL);
	expect("replay %T/ok.csv" CL " --bogus", 2, "unknown option '--bogus'",
	       NULL);
	expect("replay %T/ok.csv" CL " --seed", 2, "--seed needs a value",
	       NULL);
	expect("replay %T/ok.csv" CL " --seed abc", 2, "--seed 'abc'", NULL);
	expect("replay %T/ok.csv" CL " --horizon -1", 2, "--horizon", NULL);
	expect("replay %T/ok.csv" CL " --param colour=red", 2, "colour",
	       NULL);
	expect("replay %T/ok.csv --policy exclusive", 2, "missing --cluster",
	       NULL);
	expect("replay" CL, 2, "missing TRACE", NULL);
	/* the option tables: a typo names the option meant */
	expect("replay %T/ok.csv" CL " --polcy x", 2, "unknown option "
	       "'--polcy'", "did you mean --policy?");
	expect("replay %T/ok.csv" CL " --json=yes", 2, "--json takes no value",
	       NULL);
	expect("run %T/ok.ini -j", 2, "-j needs a value", NULL);
	expect("gen --jbos 3", 2, "did you mean --jobs?", NULL);
	expect("replay %T/ok.csv" CL " --horizon 1e300", 2, "--horizon", NULL);
	expect("replay %T/ok.csv" CL " --devices %T/adir", 2, "adir",
	       "no device profiles");
}

static void test_open_service_ends(void)
{
	const char *err = "";

	setup_files();
	/* `timeout 60` turns a hang into exit 124 */
	CU_ASSERT_EQUAL(run("replay %T/open.csv" CL " --json", &err), 0);
}

static void test_run_report_plot(void)
{
	setup_files();
	expect("run %T/missing.ini", 2, "missing.ini", "cannot open config");
	expect("run %T/adir", 2, "adir", "is a directory");
	expect("run %T/garbage.csv", 2, "garbage.csv", NULL);
	expect("run %T/badsec.ini", 2, "badsec.ini:1:", "lacks its ']'");
	expect("run %T/badpol.ini -o %T/r1.db", 2, "badpol.ini",
	       "unknown policy 'nosuch'");
	expect("run %T/baddev.ini -o %T/r1.db", 2, "baddev.ini",
	       "unknown device 'nosuch'");
	expect("run %T/badpol.ini -o %T/notdb.db", 2, "badpol.ini", NULL);
	expect("run %T/ok.csv -j 0", 2, "-j '0'", NULL);
	expect("run %T/ok.csv --bogus", 2, "unknown option '--bogus'", NULL);
	expect("run", 2, "missing CONFIG", NULL);
	expect("report %T/missing.db", 2, "missing.db", NULL);
	expect("report %T/adir", 2, "adir", "is a directory");
	expect("report %T/notdb.db", 2, "notdb.db", "not a results database");
	expect("report %T/empty.csv", 2, "empty.csv", NULL);
	expect("report %T/notdb.db --bogus", 2, "unknown option '--bogus'",
	       NULL);
	expect("report %T/notdb.db --format xml", 2, "--format", NULL);
	expect("report", 2, "missing DB", NULL);
	expect("plot %T/notdb.db", 2, "notdb.db", NULL);
	expect("plot %T/x.db --format gif", 2, "--format", NULL);
	expect("plot", 2, "missing DB", NULL);
	expect("plot %T/x.db --gpu -1", 2, "--gpu", NULL);
	expect("export", 2, "missing TABLE", NULL);
	expect("export runs", 2, "missing DB", NULL);
	expect("export tables %T/x.db", 2, "no export table 'tables'", NULL);
	expect("export runs %T/notdb.db", 2, "notdb.db",
	       "not a results database");
	expect("export runs %T/x.db --format xml", 2, "--format", NULL);
	expect("export runs %T/x.db --bogus", 2, "unknown option '--bogus'",
	       NULL);
	expect("export runs %T/x.db -o", 2, "needs a value", NULL);
	expect("report %T/notdb.db --metric", 2, "needs a value", NULL);
	/* a fixed trace twice: the run warns; export and report work */
	put("fixed.ini", "[experiment]\nname = fx\ncluster = 1x1:a100-40gb\n"
	    "replications = 2\ntrace = ok.csv\n[sweep]\n"
	    "policy = exclusive\n");
	{
		const char *err = "";
		CU_ASSERT_EQUAL(run("run %T/fixed.ini -o %T/fx.db", &err), 0);
		CU_ASSERT(strstr(err, "warning: zero-variance") != NULL);
		CU_ASSERT_EQUAL(run("report %T/fx.db --metric makespan_s",
				    &err), 0);
		CU_ASSERT(strstr(err, "warning: zero-variance") != NULL);
		CU_ASSERT_EQUAL(run("export runs %T/fx.db -o %T/fx.csv", &err),
				0);
		CU_ASSERT_STRING_EQUAL(err, "");
		CU_ASSERT_EQUAL(run("export jobs %T/fx.db --format json",
				    &err), 0);
		expect("report %T/fx.db --metric nope_s", 2, "'nope_s'", NULL);
		expect("export runs %T/fx.db --metric nope_s", 2, "'nope_s'",
		       NULL);
	}
	/* the results folder is created (configs say db = ../results/X.db) */
	{
		const char *err = "";
		char path[600];
		snprintf(path, sizeof path, "%s/new/deeper/r.db", test_tmpdir());
		CU_ASSERT_EQUAL(run("run %T/ok.ini -o %T/new/deeper/r.db", &err),
				0);
		CU_ASSERT_EQUAL(access(path, F_OK), 0);
	}
}

static void test_other_commands(void)
{
	const char *err = "";
	char buf[64] = "";
	FILE *f;

	setup_files();
	expect("list nosuch", 2, "unknown topic 'nosuch'", "devices");
	expect("list policies nosuch", 2, "unknown policy 'nosuch'",
	       "template");
	expect("list policies colti extra", 2, "unexpected 'extra'", NULL);
	expect("list", 2, "missing TOPIC", NULL);
	expect("gen --jobs abc", 2, "jobs", "'abc'");
	expect("gen --jobs", 2, "--jobs needs a value", NULL);
	expect("gen --models nosuch:1", 2, "unknown model 'nosuch'", NULL);
	expect("gen -o %T/no/such/dir/x.csv", 1, "x.csv", "cannot create");
	expect("validate %T/adir", 2, "adir", "is a directory");
	expect("validate %T/missing.csv", 2, "missing.csv", NULL);
	expect("validate %T/ok.csv --bogus", 2, "unknown option '--bogus'",
	       NULL);
	expect("validate", 2, "missing TRACE", NULL);
	expect("import nosuch %T/ok.csv", 2, "unknown format 'nosuch'", NULL);
	expect("import tiresias", 2, "missing INPUT", NULL);
	expect("import tiresias %T/adir", 2, "adir", "is a directory");
	expect("import tiresias %T/empty.csv", 2, "empty.csv:1:1", NULL);
	expect("openb --nodes %T/adir --out %T/ob --no-plot", 2, "adir",
	       "is a directory");
	expect("openb --policy nosuch", 2, "nosuch", NULL);
	expect("calibrate %T/adir", 2, "adir", "is a directory");
	expect("calibrate %T/empty.csv", 2, "empty.csv:1", NULL);
	expect("calibrate %T/ok.csv --date abc", 2, "--date 'abc'", NULL);
	expect("calibrate", 2, "missing RAW.csv", NULL);
	expect("nosuch", 2, "unknown command 'nosuch'", NULL);
	/* A failed import leaves the file already at -o alone. */
	put("keep.csv", "precious\n");
	expect("import tiresias %T/tir_bad.csv -o %T/keep.csv", 2,
	       "tir_bad.csv:3:", "num_gpu");
	f = fopen(tmp("keep.csv"), "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "precious\n");
	/* ... and a folder named by mistake. */
	CU_ASSERT_EQUAL(run("import tiresias %T/tir_bad.csv -o %T/adir", &err),
			2);
	{
		struct stat st;
		CU_ASSERT(stat(tmp("adir"), &st) == 0 && S_ISDIR(st.st_mode));
	}
}

/* `list policies NAME` prints the policy's parameter table: each key with
** its type, range and default, as the table declares them. */
static void test_list_policy(void)
{
	char cmd[600], out[8192];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd, "timeout 60 %s list policies colti "
		 "2>/dev/null", bin());
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	CU_ASSERT_EQUAL(pclose(p), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "colti: COLTI"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "max_tenants          integer  "
				      "[1, 16]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "mode                 choice   "
				      "timeslice, mps"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "fit                  bool     "
				      "0, 1"));
}

TEST_REGISTER(cli)
{
	static const struct test_case cases[] = {
		{ "replay on bad input", test_replay },
		{ "list policies NAME prints its parameters",
		  test_list_policy },
		{ "replay of an open service ends", test_open_service_ends },
		{ "run, report, plot on bad input", test_run_report_plot },
		{ "list, gen, validate, import, openb, calibrate",
		  test_other_commands },
		{ NULL, NULL }
	};
	return test_add_suite("cli", cases);
}
