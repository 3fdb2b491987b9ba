/*
** test_hostile.c: hostile input, end to end (issue 18; docs/LIMITS.md):
** each case feeds one class of attack or extreme value to the command line
** or the library and asserts the clean result: exit status 2 and one
** stderr line naming the input (or no effect at all, for a command
** injection), never a crash, a hang, a write outside the output or a
** partial file.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiments/config.h"
#include "experiments/openb.h"
#include "sim/err.h"
#include "sim/file.h"
#include "tests/cli_util.h"
#include "plots/plot.h"
#include "tests/util.h"

#define H "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"
#define CL " --policy exclusive --cluster 1x4:a100-80gb"

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Files of dir whose name holds ".tmp." (left-over temporary outputs). */
static int leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/* validate lists every error, then a count: exit 2, the first line holds
** has1 and has2, the last says how many. */
static void expect_validate(const char *args, const char *has1,
			    const char *has2)
{
	const char *err = "";
	int rc = tc_run(args, &err);
	const char *nl = strchr(err, '\n');
	int ok = rc == 2 && nl != NULL && strstr(err, has1) != NULL &&
		strstr(err, has1) < nl && strstr(err, has2) != NULL &&
		strstr(err, has2) < nl && strstr(err, "error") != NULL;

	if (!ok)
		fprintf(stderr, "\n  colosim %.300s\n    exit %d, stderr: %s",
			args, rc, err);
	CU_ASSERT(ok);
}

/* An arrival_arg of 256..511 characters was copied into the 256-byte
** field after its length error was reported: a stack overflow from any
** trace (rates and file arrivals alike). */
static void test_arrival_arg_long(void)
{
	static const int lens[] = { 255, 256, 300, 511, 600 };
	char *text = malloc(8192), arg[700], name[64], cmd[256];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		int k, rates;
		for (rates = 0; rates < 2; rates++) {
			for (k = 0; k < lens[i]; k++)
				arg[k] = rates ? "1@0;"[k % 4] : 'x';
			arg[lens[i]] = '\0';
			if (rates && arg[lens[i] - 1] == ';')
				arg[lens[i] - 1] = '0';
			snprintf(text, 8192, H "S,infer,0,resnet50,8,,10,,,,1,,,,"
				 "100,%s,,%s,\n", rates ? "rates" : "file", arg);
			snprintf(name, sizeof name, "argl%d%d.csv", lens[i],
				 rates);
			tc_put(name, text);
			if (lens[i] < 256)
				continue;   /* legal length: other errors */
			snprintf(cmd, sizeof cmd, "validate %%T/%s", name);
			expect_validate(cmd, "arrival_arg", "longer than 255");
			snprintf(cmd, sizeof cmd, "replay %%T/%s" CL, name);
			tc_expect(cmd, 2, "arrival_arg", "longer than 255");
		}
	}
	free(text);
}

/* A field with a line break (quoted) or a terminal escape, quoted in an
** error message, made the message several lines or let the file write to
** the terminal: every control character is escaped. */
static void test_message_one_line(void)
{
	const char *err = "";

	tc_put("nl.csv", H "A,train,\"1\n2\",resnet50,32,,10,,,,1,,1000,,,,,,\n");
	expect_validate("validate %T/nl.csv", "nl.csv:3:", "\\n");
	tc_expect("replay %T/nl.csv" CL, 2, "nl.csv:3:", "\\n");
	tc_put("esc.csv", H "A,train,\x1b[2J,resnet50,32,,10,,,,1,,1000,,,,,,\n");
	expect_validate("validate %T/esc.csv", "esc.csv:3:", "\\x1b");
	CU_ASSERT_EQUAL(tc_run("validate %T/esc.csv", &err), 2);
	CU_ASSERT_PTR_NULL(strchr(err, '\x1b'));
}

/* A device profile number that loads must keep every derived time finite:
** fp32_flops = 1e-300 reached gpu_begin's assert (abort, exit 134). */
static void test_device_extremes(void)
{
	static const struct { const char *key, *val; } bad[] = {
		{ "fp32_flops", "1e-300" }, { "fp16_flops", "0" },
		{ "fp32_flops", "1e300" }, { "hbm_bw_bytes_per_s", "1e-5" },
		{ "ts_quantum_ns", "1" }, { "mps_contention_k", "1e300" },
		{ "h2d_pinned_bytes_per_s", "1e300" },
	};
	char dir[600], cmd[900], src[600], dst[700], line[512];
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		FILE *in, *out;
		snprintf(dir, sizeof dir, "%s/dev%zu", test_tmpdir(), i);
		mkdir(dir, 0755);
		snprintf(src, sizeof src, "models/devices/a100-80gb.ini");
		snprintf(dst, sizeof dst, "%s/a100-80gb.ini", dir);
		in = fopen(src, "r");
		out = fopen(dst, "w");
		CU_ASSERT_FATAL(in != NULL && out != NULL);
		while (fgets(line, sizeof line, in) != NULL) {
			size_t n = strlen(bad[i].key);
			if (strncmp(line, bad[i].key, n) == 0 &&
			    line[n] == ' ')
				fprintf(out, "%s = %s @ spec hostile\n",
					bad[i].key, bad[i].val);
			else
				fputs(line, out);
		}
		fclose(in);
		fclose(out);
		tc_put("dev_ok.csv", H "A,train,0,resnet50,32,,10,,,,1,,,,,,,,\n"
		       "S,infer,0,bert-base,8,,10,,,,1,,,,100,poisson,5,,\n");
		snprintf(cmd, sizeof cmd, "replay %%T/dev_ok.csv --policy mps "
			 "--cluster 1x1:a100-80gb --devices %s", dir);
		tc_expect(cmd, 2, "a100-80gb.ini:", bad[i].key);
	}
}

/* gnuplot opens a file name beginning with '<' (or '|') as a pipe to a
** shell command: `plot DB --out '<touch X;echo '` ran the command. */
static void test_plot_out_pipe(void)
{
	const char *err = "";
	char x[600], y[600];

	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		fprintf(stderr, "\n  skipped: gnuplot is absent\n");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(tc_sh("cd %T && printf '[experiment]\\nname = "
				    "pp\\ncluster = 1x1:v100-16gb\\n"
				    "replications = 1\\ntrace = %R/traces/"
				    "ref/colti.csv\\n[sweep]\\npolicy = "
				    "exclusive, mps\\n' > pp.ini && "
				    "COLOSIM_DEVICES=%R/models/devices "
				    "timeout 60 %B run pp.ini -o pp.db "
				    "--overwrite 2>&1 >/dev/null", &err), 0);
	snprintf(x, sizeof x, "%s/X", test_tmpdir());
	snprintf(y, sizeof y, "%s/Y", test_tmpdir());
	tc_sh("cd %T && COLOSIM_PLOTS=%R/plots timeout 60 %B plot pp.db "
	      "--out '<touch X;echo ' >/dev/null 2>&1; COLOSIM_PLOTS=%R/plots "
	      "timeout 60 %B plot pp.db --out '|touch Y;echo ' >/dev/null "
	      "2>&1", &err);
	CU_ASSERT(!exists(x));
	CU_ASSERT(!exists(y));
	/* the figures went into a folder of that literal name instead */
	snprintf(x, sizeof x, "%s/<touch X;echo /makespan.dat", test_tmpdir());
	CU_ASSERT(exists(x));
	snprintf(x, sizeof x, "%s/<touch X;echo ", test_tmpdir());
	CU_ASSERT_EQUAL(leftovers(x), 0);
	/* a line break cannot reach gnuplot's command line; a folder too
	** long for the file names is refused, not cut */
	tc_expect("plot %T/pp.db --out 'a\nb'", 2, "--out", "control");
	{
		char cmd[1400];
		snprintf(cmd, sizeof cmd, "plot %%T/pp.db --out %%T/%01100d", 7);
		tc_expect(cmd, 2, "--out", "longer than");
	}
}

/* openb's figure (plots/openb.gp through plot_gnuplot): the same pipe. */
static void test_openb_out_pipe(void)
{
	static const double k0[] = { 10, 20, 30 };
	const double *curves[1] = { k0 };
	const char *names[1] = { "fgd" };
	struct sim_err err;
	char cwd[4096], x[600];

	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return;
	CU_ASSERT_FATAL(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(x, sizeof x, "%.500s/plots", cwd);
	CU_ASSERT_FATAL(chdir(test_tmpdir()) == 0);
	mkdir("<touch OB;echo ", 0755);
	mkdir("|touch OC;echo ", 0755);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(plot_openb("<touch OB;echo ", x, NULL, names, curves,
				   1, 2, &err), 0);
	sim_err_clear(&err);
	plot_openb("|touch OC;echo ", x, NULL, names, curves, 1, 2, &err);
	CU_ASSERT(!exists("OB"));
	CU_ASSERT(!exists("OC"));
	CU_ASSERT(exists("<touch OB;echo /openb-alloc.png"));
	CU_ASSERT_EQUAL(leftovers("<touch OB;echo "), 0);
	CU_ASSERT_FATAL(chdir(cwd) == 0);
}

/* A 2263 date overflowed seconds * 1e9 in the GenAI and Azure importers
** and wrote negative arrivals. */
static void test_import_dates(void)
{
	tc_put("az2263.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	       "2023-11-16 18:00:10.5,10,1\n2263-01-01 00:00:00,10,1\n");
	tc_expect("import azure-llm-2023 %T/az2263.csv -o %T/az.csv", 2,
		  "az2263.csv:3:", "1900..2099");
	CU_ASSERT(!exists(tc_tmp("az.csv")));
	CU_ASSERT_EQUAL(leftovers(test_tmpdir()), 0);
	tc_put("sd2263.csv", "gmt_create,predict_status\n"
	       "9999-12-31 23:59:59,SUCCEED\n");
	tc_expect("import alibaba-genai-v2026 %T/sd2263.csv -o %T/sd.csv", 2,
		  "sd2263.csv:2:", "gmt_create");
	/* an id past the reader's 63 characters was written as is: the
	** output did not read back (found by fuzz_import) */
	{
		char text[512], id[80];
		const char *err = "";
		memset(id, 'x', 70);
		id[70] = '\0';
		snprintf(text, sizeof text, "job_id,num_gpu,submit_time,"
			 "iterations,model_name,duration\n%s,1,0,10,resnet50,"
			 "10\nok,1,1,10,resnet50,10\n", id);
		tc_put("tir_longid.csv", text);
		CU_ASSERT_EQUAL(tc_run("import tiresias %T/tir_longid.csv -o "
				       "%T/tl.csv", &err), 0);
		CU_ASSERT_EQUAL(tc_run("validate %T/tl.csv", &err), 0);
	}
	/* --compress far below 1 stretches times past the limit */
	tc_put("tir_far.csv", "job_id,num_gpu,submit_time,iterations,"
	       "model_name,duration\na,1,0,10,resnet50,10\n"
	       "b,1,4000000000,10,resnet50,10\n");
	tc_expect("import tiresias %T/tir_far.csv -o %T/tf.csv --compress "
		  "0.5", 2, "out of range", "LIMITS");
	CU_ASSERT(!exists(tc_tmp("tf.csv")));
}

/* Outputs are whole or absent: a write that fails part-way (a full disk;
** here a file-size limit, EFBIG) leaves neither a truncated file nor a
** temporary, and a file the user had at the path survives. */
static void test_partial_outputs(void)
{
	const char *err = "";
	char big[200], path[600];
	FILE *f;
	int i, rc;

	snprintf(path, sizeof path, "%s/big.csv", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("job_id,num_gpu,submit_time,iterations,model_name,duration\n", f);
	for (i = 0; i < 4000; i++) {
		snprintf(big, sizeof big, "job%d,1,%d,10,resnet50,10\n", i, i);
		fputs(big, f);
	}
	fclose(f);
	tc_put("keep.csv", "precious\n");
	rc = tc_sh("cd %T && (trap '' XFSZ; ulimit -f 64; exec timeout 60 %B "
		   "import tiresias big.csv -o keep.csv) 2>&1 >/dev/null", &err);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_EQUAL(tc_lines(err), 1);
	{
		char buf[64] = "";
		f = fopen(tc_tmp("keep.csv"), "r");
		CU_ASSERT_FATAL(f != NULL);
		CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof buf, f));
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, "precious\n");
	}
	CU_ASSERT_EQUAL(leftovers(test_tmpdir()), 0);
	/* gen -o on a full disk left a truncated trace */
	rc = tc_sh("cd %T && (trap '' XFSZ; ulimit -f 8; exec timeout 60 %B "
		   "gen --jobs 20000 -o gen.csv) 2>&1 >/dev/null", &err);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT(strstr(err, "gen.csv: write error") != NULL);
	CU_ASSERT(!exists(tc_tmp("gen.csv")));
	CU_ASSERT_EQUAL(leftovers(test_tmpdir()), 0);
}

/* A generated trace lives in TMPDIR while its run simulates; a worker
** killed then (SIGKILL of the whole group) left colosim-gen-* behind. */
static void test_killed_worker_temp(void)
{
	const char *err = "";
	char dir[600];

	snprintf(dir, sizeof dir, "%s/gtmp", test_tmpdir());
	mkdir(dir, 0755);
	tc_put("gk.ini", "[experiment]\nname = gk\ncluster = 1x4:a100-80gb\n"
	       "replications = 2\ngen.jobs = 300\ngen.rate = 1\n[sweep]\n"
	       "policy = exclusive, mps\n");
	tc_sh("cd %T && (TMPDIR=%T/gtmp COLOSIM_DEVICES=%R/models/devices "
	      "setsid %B run gk.ini -o gk.db -j 2 --overwrite >/dev/null 2>&1 "
	      "& pid=$!; sleep 1; kill -9 -$pid 2>/dev/null || kill -9 $pid; "
	      "wait) 2>/dev/null", &err);
	CU_ASSERT_EQUAL(tc_sh("ls %T/gtmp | grep -c colosim-gen", &err), 1);
	CU_ASSERT_STRING_EQUAL(err, "0\n");
}

/* Values that validate but cannot finish: a training job of 10^18
** iterations replayed to makespan_s 0, jobs_unfinished 1, exit 0; two
** 4.6e9-second jobs one after the other end past int64 time; request
** rates of 1e300 hung every policy. */
static void test_finite_runs(void)
{
	const char *err = "";

	tc_put("it18.csv", H "A,train,0,resnet50,32,1000000000000000000,,,,,"
	       "1,,,,,,,,\n");
	tc_expect("replay %T/it18.csv" CL, 2, "cannot finish", "'A', line 3");
	tc_put("two46.csv", H "A,train,0,resnet50,32,,4.6e9,,,,1,,,,,,,,\n"
	       "B,train,0,resnet50,32,,4.6e9,,,,1,,,,,,,,\n");
	tc_expect("replay %T/two46.csv --policy exclusive --cluster "
		  "1x1:a100-80gb", 2, "cannot finish", "'B'");
	tc_put("one46.csv", H "A,train,0,resnet50,32,,4.6e9,,,,1,,,,,,,,\n");
	CU_ASSERT_EQUAL(tc_run("replay %T/one46.csv" CL, &err), 0);
	tc_put("r300.csv", H "S,infer,0,resnet50,8,,10,,,,1,,,,100,poisson,"
	       "1e300,,\n");
	expect_validate("validate %T/r300.csv", "rate", "1e+06");
	tc_expect("replay %T/r300.csv" CL, 2, "r300.csv:3:", "rate");
	tc_put("rs300.csv", H "S,infer,0,resnet50,8,,10,,,,1,,,,100,rates,,"
	       "1e300@0,\n");
	tc_expect("replay %T/rs300.csv" CL, 2, "arrival_arg", "1e+06");
	tc_put("d300.csv", H "A,train,0,resnet50,32,,1e300,,,,1,,,,,,,,\n");
	tc_expect("replay %T/d300.csv" CL, 2, "duration_s", "2^62");
	tc_put("sh.csv", H "A,train,0,resnet50,32,,10,,,,1,1e-300,,,,,,,\n");
	tc_expect("replay %T/sh.csv" CL, 2, "gpu_share", "0.001");
}

/* A file without line ends (/dev/zero) named as a trace, an importer's
** input, a calibration CSV or a device profile was read forever: the CSV
** reader skipped the rest of a too-long line without bound, and a NUL
** byte hid the profile reader's progress. */
static void test_endless_input(void)
{
	char dir[600], path[700];

	tc_expect("validate /dev/zero", 2, "/dev/zero:1:", "not a text file");
	tc_expect("replay /dev/zero" CL, 2, "/dev/zero:1:", NULL);
	tc_expect("import tiresias /dev/zero -o %T/zz.csv", 2, "/dev/zero:1:",
		  NULL);
	tc_expect("calibrate /dev/zero", 2, "/dev/zero:1:", NULL);
	snprintf(dir, sizeof dir, "%s/zdev", test_tmpdir());
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/zero.ini", dir);
	unlink(path);
	CU_ASSERT_EQUAL(symlink("/dev/zero", path), 0);
	tc_expect("list devices --dir %T/zdev", 2, "zero.ini",
		  "device profile");
}

/* Every generated trace reads back: a lognormal tail or a slow arrival
** rate gave durations, rates or submit times the reader refuses (or
** rates printed as 0.000). */
static void test_gen_limits(void)
{
	tc_expect("gen --rate 1e-9 --jobs 100", 2, "submit times pass",
		  "--rate");
	tc_expect("gen --dur-median-s 1e9 --dur-sigma 10 --jobs 50", 2,
		  "drawn duration", "--dur-sigma");
	tc_expect("gen --infer-frac 1 --infer-rate-median 1e-6 --jobs 5", 2,
		  "drawn request rate", NULL);
	tc_expect("gen --infer-frac 1 --infer-rate-sigma 10 --jobs 200", 2,
		  "drawn request rate", NULL);
}

/* A 1,000,000-run matrix was materialized before the first run (1.5 GB):
** streamed, any run is built from its index alone. */
static void test_matrix_streamed(void)
{
	static const char cfgtext[] =
		"[experiment]\nname = big\ncluster = 1x1:a100-80gb\n"
		"replications = 100\ngen.jobs = 5\n[sweep]\n"
		"policy = exclusive, colti\nhorizon_s = 1..100 step 1\n"
		"gen.rate = 0.04..1 step 0.04\n"
		"policy.colti.headroom = 0..0.2 step 0.1\n";
	struct exp_config *cfg = NULL;
	struct exp_runs *rs = NULL;
	struct exp_run_spec sp;
	struct sim_err err;
	char prev[256] = "";
	size_t k;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_config_parse(&cfg, "big.ini", cfgtext,
					       sizeof cfgtext - 1, &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_runs_open(&rs, cfg, &err), 0);
	CU_ASSERT_EQUAL(exp_runs_count(rs), 1000000);
	CU_ASSERT_EQUAL_FATAL(exp_runs_get(rs, 999999, &sp, &err), 0);
	CU_ASSERT_EQUAL(sp.index, 999999);
	CU_ASSERT_EQUAL(sp.replication, 99);
	CU_ASSERT_STRING_EQUAL(sp.key, "horizon_s=100 gen.rate=1 "
			       "policy=colti headroom=0.2 rep=99");
	exp_run_spec_fini(&sp);
	CU_ASSERT_EQUAL_FATAL(exp_runs_get(rs, 4, &sp, &err), 0);
	CU_ASSERT_STRING_EQUAL(sp.key, "horizon_s=1 gen.rate=0.08 "
			       "policy=exclusive rep=0");
	exp_run_spec_fini(&sp);
	/* consecutive runs differ; the order is the materialized one's */
	for (k = 0; k < 2000; k++) {
		CU_ASSERT_EQUAL_FATAL(exp_runs_get(rs, k, &sp, &err), 0);
		CU_ASSERT(strcmp(sp.key, prev) != 0);
		snprintf(prev, sizeof prev, "%s", sp.key);
		exp_run_spec_fini(&sp);
	}
	CU_ASSERT_EQUAL(exp_runs_get(rs, 1000000, &sp, &err), SIM_EINVAL);
	exp_runs_close(rs);
	exp_config_free(cfg);
}

/* Makes %T/NAME.db: a finished two-run experiment (exclusive, mps). */
static int make_db(const char *name)
{
	const char *err = "";
	char script[1024];

	snprintf(script, sizeof script, "cd %%T && printf '[experiment]\\n"
		 "name = %s\\ncluster = 1x1:v100-16gb\\nreplications = 1\\n"
		 "trace = %%R/traces/ref/colti.csv\\n[sweep]\\npolicy = "
		 "exclusive, mps\\n' > %s.ini && COLOSIM_DEVICES=%%R/models/"
		 "devices timeout 60 %%B run %s.ini -o %s.db --overwrite "
		 "2>&1 >/dev/null", name, name, name, name);
	return tc_sh(script, &err);
}

/* A results database on read-only media (a read-only folder: no -shm
** file can be created) could not be read at all: report failed with
** "attempt to write a readonly database".  Both a database left in
** rollback mode (as run now leaves it) and a WAL one must read. */
static void test_store_readonly(void)
{
	const char *err = "";
	char dir[256], cmd[2048];
	int rc;

	CU_ASSERT_EQUAL_FATAL(make_db("ro"), 0);
	snprintf(dir, sizeof dir, "/tmp/colosim-ro-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	chmod(dir, 0755);
	snprintf(cmd, sizeof cmd, "cp %%T/ro.db %s/a.db && cp %%T/ro.db "
		 "%s/w.db && sqlite3 %s/w.db 'PRAGMA journal_mode=WAL' "
		 ">/dev/null && chmod 444 %s/a.db %s/w.db && chmod 555 %s",
		 dir, dir, dir, dir, dir, dir);
	if (tc_sh(cmd, &err) != 0) {
		fprintf(stderr, "\n  skipped: no sqlite3 program\n");
		return;
	}
	/* root writes anywhere: read as nobody, or skip */
	if (geteuid() == 0 &&
	    system("su nobody -s /bin/sh -c true >/dev/null 2>&1") != 0) {
		fprintf(stderr, "\n  skipped: root without su nobody\n");
	} else if (geteuid() == 0 &&
		   tc_sh("su nobody -s /bin/sh -c 'test -x %B'", &err) != 0) {
		/* a checkout in a private folder (mktemp -d is 0700) */
		fprintf(stderr, "\n  skipped: nobody cannot run the binary "
			"from this folder\n");
	} else {
		const char *wrap = geteuid() == 0 ?
			"su nobody -s /bin/sh -c" : "sh -c";
		snprintf(cmd, sizeof cmd, "%s '%%B report %s/a.db && %%B "
			 "report %s/w.db' 2>&1 >/dev/null", wrap, dir, dir);
		rc = tc_sh(cmd, &err);
		CU_ASSERT_EQUAL(rc, 0);
		if (rc != 0)
			fprintf(stderr, "\n  report on read-only media: %s",
				err);
	}
	snprintf(cmd, sizeof cmd, "chmod 755 %s && rm -rf %s", dir, dir);
	tc_sh(cmd, &err);
}

/* A database with our application_id and version but another schema
** was read as ours (a NULL where a reader assumed NOT NULL text crashed
** it: strlen(NULL)); now any difference from the migrations is refused. */
static void test_store_schema(void)
{
	sqlite3 *db;
	char path[600];

	CU_ASSERT_EQUAL_FATAL(make_db("sc"), 0);
	snprintf(path, sizeof path, "%s/sc.db", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
	/* a column the readers do not expect (a file made to look like
	** ours, or damaged): the definition differs from the migration's */
	CU_ASSERT_EQUAL(sqlite3_exec(db, "ALTER TABLE experiments ADD COLUMN "
				     "evil TEXT", NULL, NULL, NULL),
			SQLITE_OK);
	sqlite3_close(db);
	tc_expect("report %T/sc.db", 2, "not a colosim results database",
		  "experiments");
	tc_expect("plot %T/sc.db --out %T/scfig", 2, "not a colosim results "
		  "database", NULL);
	tc_expect("run %T/sc.ini -o %T/sc.db --resume", 2, "not a colosim "
		  "results database", NULL);
}

/* sim_path_literal: the one guard of every path handed to gnuplot. */
static void test_path_literal(void)
{
	struct sim_err err;
	char out[64];

	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_path_literal("<touch X", out, sizeof out, "p",
					 &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "./<touch X");
	CU_ASSERT_EQUAL(sim_path_literal("|cmd", out, sizeof out, "p", &err),
			0);
	CU_ASSERT_STRING_EQUAL(out, "./|cmd");
	CU_ASSERT_EQUAL(sim_path_literal("/abs/f", out, sizeof out, "p",
					 &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "/abs/f");
	CU_ASSERT_EQUAL(sim_path_literal("../up", out, sizeof out, "p",
					 &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "../up");
	CU_ASSERT_EQUAL(sim_path_literal("-o", out, sizeof out, "p", &err), 0);
	CU_ASSERT_STRING_EQUAL(out, "./-o");
	CU_ASSERT_EQUAL(sim_path_literal("a\nb", out, sizeof out, "p", &err),
			SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "control character"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_path_literal("", out, sizeof out, "p", &err),
			SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_path_literal("0123456789", out, 8, "p", &err),
			SIM_EINVAL);
}

/* sim_err_set keeps a message on one printable line. */
static void test_err_one_line(void)
{
	struct sim_err err;

	sim_err_clear(&err);
	sim_err_set(&err, SIM_EPARSE, "a%sb", "\n\r\t\x1b\x7f");
	CU_ASSERT_STRING_EQUAL(err.msg, "a\\n\\r\\t\\x1b\\x7fb");
	sim_err_clear(&err);
	{
		char big[2 * SIM_ERR_MSG_MAX];
		memset(big, '\n', sizeof big - 1);
		big[sizeof big - 1] = '\0';
		sim_err_set(&err, SIM_EPARSE, "%s", big);
		CU_ASSERT(strlen(err.msg) < SIM_ERR_MSG_MAX);
		CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	}
}

/* `file` arrivals read any path and echoed its first line: arrival_arg =
** /etc/passwd (or ../../../etc/passwd, or a symbolic link to it) printed
** its content in the error, and `run` stored it in the results. */
static void test_arrival_confinement(void)
{
	static const char *const bad[] = {
		"/etc/passwd", "../../../../../../etc/passwd", "link.arr",
		"/dev/zero", "sub/../../outside.arr",
	};
	const char *err = "";
	char text[1024], cmd[1024], dir[600], path[700];
	size_t i;

	snprintf(dir, sizeof dir, "%s/conf", test_tmpdir());
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/sub", dir);
	mkdir(path, 0755);
	tc_put("outside.arr", "secret-outside\n");
	tc_put("conf/sub/ok.arr", "1\n2\n");
	tc_put("conf/junk.arr", "secret-token\n");
	snprintf(path, sizeof path, "%s/link.arr", dir);
	unlink(path);
	CU_ASSERT_EQUAL(symlink("/etc/passwd", path), 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text, sizeof text, H "S,infer,0,resnet50,8,,10,,,,1,"
			 ",,,100,file,,%s,\n", bad[i]);
		tc_put("conf/t.csv", text);
		tc_expect("replay %T/conf/t.csv" CL, 2, "arrival file", NULL);
		CU_ASSERT_EQUAL(tc_run("replay %T/conf/t.csv" CL, &err), 2);
		CU_ASSERT_PTR_NULL(strstr(err, "root:"));
		CU_ASSERT_PTR_NULL(strstr(err, "secret"));
		CU_ASSERT_EQUAL(tc_run("validate %T/conf/t.csv", &err), 2);
		CU_ASSERT_PTR_NULL(strstr(err, "root:"));
		CU_ASSERT_PTR_NULL(strstr(err, "secret"));
	}
	/* inside the trace's folder: read; its content is still not shown */
	tc_put("conf/t.csv", H "S,infer,0,resnet50,8,,10,,,,1,,,,100,file,,"
	       "sub/ok.arr,\n");
	CU_ASSERT_EQUAL(tc_run("replay %T/conf/t.csv" CL, &err), 0);
	tc_put("conf/t.csv", H "S,infer,0,resnet50,8,,10,,,,1,,,,100,file,,"
	       "junk.arr,\n");
	tc_expect("replay %T/conf/t.csv" CL, 2, "junk.arr:1:1", "seconds");
	CU_ASSERT_EQUAL(tc_run("replay %T/conf/t.csv" CL, &err), 2);
	CU_ASSERT_PTR_NULL(strstr(err, "secret"));
	/* a folder the user names */
	snprintf(text, sizeof text, H "S,infer,0,resnet50,8,,10,,,,1,,,,100,"
		 "file,,%s/outside.arr,\n", test_tmpdir());
	tc_put("conf/t.csv", text);
	tc_expect("replay %T/conf/t.csv" CL, 2, "outside the trace's folder",
		  NULL);
	tc_expect("replay %T/conf/t.csv" CL " --arrivals-dir %T", 2,
		  "outside.arr:1:1", NULL);
	tc_put("ok.arr", "1\n");
	snprintf(text, sizeof text, H "S,infer,0,resnet50,8,,10,,,,1,,,,100,"
		 "file,,%s/ok.arr,\n", test_tmpdir());
	tc_put("conf/t.csv", text);
	CU_ASSERT_EQUAL(tc_run("replay %T/conf/t.csv" CL " --arrivals-dir %T",
			       &err), 0);
	CU_ASSERT_EQUAL(tc_run("validate %T/conf/t.csv --arrivals-dir %T",
			       &err), 0);
	/* run stores a failed run's error: no content there either */
	tc_put("conf/t.csv", H "S,infer,0,resnet50,8,,10,,,,1,,,,100,file,,"
	       "/etc/passwd,\n");
	snprintf(cmd, sizeof cmd, "[experiment]\nname = cf\ncluster = "
		 "1x1:a100-80gb\nreplications = 1\ntrace = t.csv\n"
		 "devices = %s/models/devices\npolicy = exclusive\n",
		 getcwd(path, sizeof path) ? path : ".");
	tc_put("conf/cf.ini", cmd);
	tc_run("run %T/conf/cf.ini -o %T/conf/cf.db", &err);
	snprintf(path, sizeof path, "%s/cf.db", dir);
	{
		sqlite3 *db;
		sqlite3_stmt *q;
		int n = 0;
		CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
		CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db, "SELECT error FROM "
			"runs WHERE status = 'failed'", -1, &q, NULL),
			SQLITE_OK);
		while (sqlite3_step(q) == SQLITE_ROW) {
			const char *e = (const char *)sqlite3_column_text(q, 0);
			n++;
			CU_ASSERT(e != NULL && strstr(e, "outside") != NULL &&
				  strstr(e, "root:") == NULL);
		}
		CU_ASSERT_EQUAL(n, 1);
		sqlite3_finalize(q);
		sqlite3_close(db);
	}
}

TEST_REGISTER(hostile)
{
	static const struct test_case cases[] = {
		{ "arrival_arg of 256..600 characters", test_arrival_arg_long },
		{ "messages stay one line", test_message_one_line },
		{ "device profile extremes", test_device_extremes },
		{ "plot --out cannot open a pipe", test_plot_out_pipe },
		{ "openb figure cannot open a pipe", test_openb_out_pipe },
		{ "importer dates and time range", test_import_dates },
		{ "no partial output after a failed write",
		  test_partial_outputs },
		{ "results database on read-only media", test_store_readonly },
		{ "results database with another schema", test_store_schema },
		{ "sim_path_literal", test_path_literal },
		{ "run matrix streamed", test_matrix_streamed },
		{ "endless inputs end", test_endless_input },
		{ "runs finish or fail", test_finite_runs },
		{ "generated traces stay inside the limits", test_gen_limits },
		{ "no temporary file after a killed worker",
		  test_killed_worker_temp },
		{ "arrival files confined, never echoed",
		  test_arrival_confinement },
		{ "sim_err_set: one line", test_err_one_line },
		{ NULL, NULL }
	};
	return test_add_suite("hostile", cases);
}
