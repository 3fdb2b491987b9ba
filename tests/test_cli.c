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

#include "tests/cli_util.h"
#include "tests/util.h"

#define H "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"
#define ROW "A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,\n"

static void setup_files(void)
{
	char dir[600];
	FILE *f;
	int k;

	tc_put("ok.csv", H ROW);
	tc_put("empty.csv", "");
	tc_put("badnum.csv", H "A,train,abc,resnet50,32,,10,,,,1,,1000,,,,,,\n");
	tc_put("badhdr.csv", "# colosim-trace v1\nid,kind,submit,model\n");
	tc_put("short.csv", H "A,train,0,resnet50,32\n");
	f = fopen(tc_tmp("garbage.csv"), "wb");
	if (f != NULL) {
		for (k = 0; k < 512; k++)
			fputc((k * 7919 + 13) & 0xff, f);
		fclose(f);
	}
	snprintf(dir, sizeof dir, "%s", tc_tmp("adir"));
	mkdir(dir, 0755);
	tc_put("notdb.db", "hello, not a database\n");
	tc_put("badpol.ini", "[experiment]\nname = x\ncluster = 1x1:a100-40gb\n"
	    "replications = 1\ntrace = traces/ref/colti.csv\n[sweep]\n"
	    "policy = nosuch\n");
	tc_put("baddev.ini", "[experiment]\nname = x\ncluster = 1x1:nosuch\n"
	    "replications = 1\ntrace = traces/ref/colti.csv\n[sweep]\n"
	    "policy = exclusive\n");
	tc_put("badsec.ini", "[experiment\nname = x\n");
	tc_put("ok.ini", "[experiment]\nname = ok\ncluster = 1x1:a100-40gb\n"
	    "replications = 1\ntrace = ok.csv\n[sweep]\n"
	    "policy = exclusive\n");
	tc_put("tir_bad.csv", "job_id,num_gpu,submit_time,iterations,model_name,"
	    "duration,interval\n1,1,0,100,resnet50,100,10\n"
	    "2,two,5,100,vgg16,200,10\n");
	tc_put("open.csv", H "S,infer,0,resnet50,8,,,,,,1,,2000,,100,poisson,5,"
	    ",2\n" "T,train,0,resnet50,32,,60,,,,1,,1000,,,,,,\n");
}

#define CL " --policy exclusive --cluster 1x4:a100-80gb"

static void test_replay(void)
{
	setup_files();
	tc_expect("replay %T/missing.csv" CL, 2, "missing.csv", "cannot open");
	tc_expect("replay %T/adir" CL, 2, "adir", "is a directory");
	tc_expect("replay %T/empty.csv" CL, 2, "empty.csv:1:1", NULL);
	tc_expect("replay %T/garbage.csv" CL, 2, "garbage.csv:1:1", NULL);
	tc_expect("replay %T/badhdr.csv" CL, 2, "badhdr.csv:2:", "header");
	tc_expect("replay %T/badnum.csv" CL, 2, "badnum.csv:3:", "submit_s");
	tc_expect("replay %T/short.csv" CL, 2, "short.csv:3:", "fields");
	tc_expect("replay %T/ok.csv --policy nosuch --cluster 1x1:a100-80gb", 2,
	       "unknown policy 'nosuch'", "exclusive");
	tc_expect("replay %T/ok.csv --policy exclusive --cluster 0x4:a100-80gb",
	       2, "0x4:a100-80gb", "node count");
	tc_expect("replay %T/ok.csv --policy exclusive --cluster 1x0:a100-80gb",
	       2, "1x0:a100-80gb", "GPUs per node");
	tc_expect("replay %T/ok.csv --policy exclusive --cluster 1x4:nosuch", 2,
	       "unknown device 'nosuch'", "a100-80gb");
	tc_expect("replay %T/ok.csv --policy exclusive --cluster "
	       "100000000x8:a100-80gb", 2, "node count", NULL);
	tc_expect("replay %T/ok.csv" CL " --bogus", 2, "unknown option '--bogus'",
	       NULL);
	tc_expect("replay %T/ok.csv" CL " --seed", 2, "--seed needs a value",
	       NULL);
	tc_expect("replay %T/ok.csv" CL " --seed abc", 2, "--seed 'abc'", NULL);
	tc_expect("replay %T/ok.csv" CL " --horizon -1", 2, "--horizon", NULL);
	tc_expect("replay %T/ok.csv" CL " --param colour=red", 2, "colour",
	       NULL);
	tc_expect("replay %T/ok.csv --policy exclusive", 2, "missing --cluster",
	       NULL);
	tc_expect("replay" CL, 2, "missing TRACE", NULL);
	/* the option tables: a typo names the option meant */
	tc_expect("replay %T/ok.csv" CL " --polcy x", 2, "unknown option "
	       "'--polcy'", "did you mean --policy?");
	tc_expect("replay %T/ok.csv" CL " --json=yes", 2, "--json takes no value",
	       NULL);
	tc_expect("run %T/ok.ini -j", 2, "-j needs a value", NULL);
	tc_expect("gen --jbos 3", 2, "did you mean --jobs?", NULL);
	tc_expect("replay %T/ok.csv" CL " --horizon 1e300", 2, "--horizon", NULL);
	tc_expect("replay %T/ok.csv" CL " --devices %T/adir", 2, "adir",
	       "no device profiles");
}

static void test_open_service_ends(void)
{
	const char *err = "";

	setup_files();
	/* `timeout 60` turns a hang into exit 124 */
	CU_ASSERT_EQUAL(tc_run("replay %T/open.csv" CL " --json", &err), 0);
}

static void test_run_report_plot(void)
{
	setup_files();
	tc_expect("run %T/missing.ini", 2, "missing.ini", "cannot open config");
	tc_expect("run %T/adir", 2, "adir", "is a directory");
	tc_expect("run %T/garbage.csv", 2, "garbage.csv", NULL);
	tc_expect("run %T/badsec.ini", 2, "badsec.ini:1:", "lacks its ']'");
	tc_expect("run %T/badpol.ini -o %T/r1.db", 2, "badpol.ini",
	       "unknown policy 'nosuch'");
	tc_expect("run %T/baddev.ini -o %T/r1.db", 2, "baddev.ini",
	       "unknown device 'nosuch'");
	tc_expect("run %T/badpol.ini -o %T/notdb.db", 2, "badpol.ini", NULL);
	tc_expect("run %T/ok.csv -j 0", 2, "-j '0'", NULL);
	tc_expect("run %T/ok.csv --bogus", 2, "unknown option '--bogus'", NULL);
	tc_expect("run", 2, "missing CONFIG", NULL);
	tc_expect("report %T/missing.db", 2, "missing.db", NULL);
	tc_expect("report %T/adir", 2, "adir", "is a directory");
	tc_expect("report %T/notdb.db", 2, "notdb.db", "not a results database");
	tc_expect("report %T/empty.csv", 2, "empty.csv", NULL);
	tc_expect("report %T/notdb.db --bogus", 2, "unknown option '--bogus'",
	       NULL);
	tc_expect("report %T/notdb.db --format xml", 2, "--format", NULL);
	tc_expect("report", 2, "missing DB", NULL);
	tc_expect("plot %T/notdb.db", 2, "notdb.db", NULL);
	tc_expect("plot %T/x.db --format gif", 2, "--format", NULL);
	tc_expect("plot", 2, "missing DB", NULL);
	tc_expect("plot %T/x.db --gpu -1", 2, "--gpu", NULL);
	tc_expect("export", 2, "missing TABLE", NULL);
	tc_expect("export runs", 2, "missing DB", NULL);
	tc_expect("export tables %T/x.db", 2, "no export table 'tables'", NULL);
	tc_expect("export runs %T/notdb.db", 2, "notdb.db",
	       "not a results database");
	tc_expect("export runs %T/x.db --format xml", 2, "--format", NULL);
	tc_expect("export runs %T/x.db --bogus", 2, "unknown option '--bogus'",
	       NULL);
	tc_expect("export runs %T/x.db -o", 2, "needs a value", NULL);
	tc_expect("report %T/notdb.db --metric", 2, "needs a value", NULL);
	/* a fixed trace twice: the run warns; export and report work */
	tc_put("fixed.ini", "[experiment]\nname = fx\ncluster = 1x1:a100-40gb\n"
	    "replications = 2\ntrace = ok.csv\n[sweep]\n"
	    "policy = exclusive\n");
	{
		const char *err = "";
		CU_ASSERT_EQUAL(tc_run("run %T/fixed.ini -o %T/fx.db", &err), 0);
		CU_ASSERT(strstr(err, "warning: zero-variance") != NULL);
		CU_ASSERT_EQUAL(tc_run("report %T/fx.db --metric makespan_s",
				    &err), 0);
		CU_ASSERT(strstr(err, "warning: zero-variance") != NULL);
		CU_ASSERT_EQUAL(tc_run("export runs %T/fx.db -o %T/fx.csv", &err),
				0);
		CU_ASSERT_STRING_EQUAL(err, "");
		CU_ASSERT_EQUAL(tc_run("export jobs %T/fx.db --format json",
				    &err), 0);
		tc_expect("report %T/fx.db --metric nope_s", 2, "'nope_s'", NULL);
		tc_expect("export runs %T/fx.db --metric nope_s", 2, "'nope_s'",
		       NULL);
	}
	/* the results folder is created (configs say db = ../results/X.db) */
	{
		const char *err = "";
		char path[600];
		snprintf(path, sizeof path, "%s/new/deeper/r.db", test_tmpdir());
		CU_ASSERT_EQUAL(tc_run("run %T/ok.ini -o %T/new/deeper/r.db", &err),
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
	tc_expect("list nosuch", 2, "unknown topic 'nosuch'", "devices");
	tc_expect("list policies nosuch", 2, "unknown policy 'nosuch'",
	       "template");
	tc_expect("list policies colti extra", 2, "unexpected 'extra'", NULL);
	tc_expect("list", 2, "missing TOPIC", NULL);
	tc_expect("gen --jobs abc", 2, "jobs", "'abc'");
	tc_expect("gen --jobs", 2, "--jobs needs a value", NULL);
	tc_expect("gen --models nosuch:1", 2, "unknown model 'nosuch'", NULL);
	tc_expect("gen -o %T/no/such/dir/x.csv", 1, "x.csv", "cannot create");
	tc_expect("validate %T/adir", 2, "adir", "is a directory");
	tc_expect("validate %T/missing.csv", 2, "missing.csv", NULL);
	tc_expect("validate %T/ok.csv --bogus", 2, "unknown option '--bogus'",
	       NULL);
	tc_expect("validate", 2, "missing TRACE", NULL);
	tc_expect("import nosuch %T/ok.csv", 2, "unknown format 'nosuch'", NULL);
	tc_expect("import tiresias", 2, "missing INPUT", NULL);
	tc_expect("import tiresias %T/adir", 2, "adir", "is a directory");
	tc_expect("import tiresias %T/empty.csv", 2, "empty.csv:1:1", NULL);
	tc_expect("openb --nodes %T/adir --out %T/ob --no-plot", 2, "adir",
	       "is a directory");
	tc_expect("openb --policy nosuch", 2, "nosuch", NULL);
	tc_expect("calibrate %T/adir", 2, "adir", "is a directory");
	tc_expect("calibrate %T/empty.csv", 2, "empty.csv:1", NULL);
	tc_expect("calibrate %T/ok.csv --date abc", 2, "--date 'abc'", NULL);
	tc_expect("calibrate", 2, "missing RAW.csv", NULL);
	tc_expect("nosuch", 2, "unknown command 'nosuch'", NULL);
	/* A failed import leaves the file already at -o alone. */
	tc_put("keep.csv", "precious\n");
	tc_expect("import tiresias %T/tir_bad.csv -o %T/keep.csv", 2,
	       "tir_bad.csv:3:", "num_gpu");
	f = fopen(tc_tmp("keep.csv"), "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "precious\n");
	/* ... and a folder named by mistake. */
	CU_ASSERT_EQUAL(tc_run("import tiresias %T/tir_bad.csv -o %T/adir", &err),
			2);
	{
		struct stat st;
		CU_ASSERT(stat(tc_tmp("adir"), &st) == 0 && S_ISDIR(st.st_mode));
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
		 "2>/dev/null", tc_bin());
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
