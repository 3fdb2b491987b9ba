/*
** walk.c: the allocation-failure walk (make allocfail; docs/FUZZING.md).
**
** Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup
** (tests/alloc/wrap.c), so that every allocation of OUR code (the static
** library and this file; shared libraries such as SQLite or GSL keep
** their own allocator) goes through a counter that can fail the N-th one.
** For each scenario (a small replay per policy, one writing its timeline,
** a small `run` into a results store, one with a policy plugin loaded
** into its catalog, the trace reader with arrival files, two imports), a
** counting pass finds the number of allocations A and
** the distinct call sites; then, for N = 1..A, a forked child fails the
** N-th allocation and must end cleanly:
**   - no crash, no sanitizer report (the walk is built with ASan + UBSan),
**     no leak (LeakSanitizer checks at the child's exit);
**   - the run reports an error: a negative SIM_E* code with a non-empty
**     one-line message (for `run`, a failed run stored with its error);
**     a swallowed failure (success although an allocation failed) counts
**     as a bug too, since its results may be wrong.
** Usage: walk [SCENARIO...] (default: all); WALK_STEP=K walks every K-th
** N only; WALK_ONLY=N runs that one N (with WALK_VERBOSE=1, its error).
** Exit status 0 when every N passed.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiments/runner.h"
#include "experiments/simulate.h"
#include "policies/catalog.h"
#include "policies/policy.h"
#include "sim/rng.h"
#include "sim/world/result.h"
#include "tests/alloc/wrap.h"
#include "traces/import.h"
#include "traces/trace.h"

static char dir[256];
static unsigned long long digest;    /* of the last scenario's results */
static int have_plugin;              /* walkpol.so was built (setup) */

/* FNV-1a over bytes, continuing h. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 1099511628211ull;
	return h;
}

/* A metric into the results' digest (wall-clock ones left out). */
static unsigned long long digest_metric(unsigned long long h,
					const char *name, double v)
{
	if (strcmp(name, "wall_s") == 0)
		return h;
	h = fnv(h, name, strlen(name) + 1);
	return fnv(h, &v, sizeof v);
}

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

#define H "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"

/* Two training jobs (one on two GPUs), a Poisson and a rates service,
** a file-arrival service: every tenant kind and arrival process. */
static void setup(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, sizeof dir, "%s/colosim-walk-XXXXXX",
		 base && *base ? base : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		exit(2);
	}
	put("t.csv", H
	    "a,train,0,resnet50,32,,20,,adam,mixed,2,,,,,,,,\n"
	    "b,train,1,vgg16,16,30,,,sgd,fp32,1,,,1,,,,,\n"
	    "p,infer,2,bert-base,8,,5,,,,1,,,,100,poisson,20,,2\n"
	    "r,infer,3,resnet50,8,,5,,,,1,,,,100,rates,,10@0;0@2;5@3,\n"
	    "f,infer,4,mobilenetv2,4,,5,,,,1,,,,50,file,,f.arr,\n");
	put("f.arr", "4\n4.5\n# a comment\n5\n6.25\n");
	put("tir.csv", "job_id,num_gpu,submit_time,iterations,model_name,"
	    "duration,batch_size\na,4,10,100,resnet50,50,64\nb,1,5,,vgg19,30,"
	    "16\nc,2,7,,resnet50,,32\nd,1,3,10,googlenet,,8\n");
	put("az.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	    "2023-11-16 18:00:10.5,10,1\n2023-11-16 18:00:00.25,10,1\n"
	    "2023-11-16 18:01:00,10,1\n");
	{
		char ini[1024];
		snprintf(ini, sizeof ini, "[experiment]\nname = walk\n"
			 "cluster = 1x2:a100-80gb\nreplications = 1\n"
			 "trace = t.csv\nseed = 7\n[sweep]\n"
			 "policy = exclusive, colti\n");
		put("w.ini", ini);
		/* the run with a policy plugin: the template renamed, built
		** against this tree (the walk exports its symbols) */
		snprintf(ini, sizeof ini, "[experiment]\nname = walkp\n"
			 "cluster = 1x2:a100-80gb\nreplications = 1\n"
			 "trace = t.csv\nseed = 7\nplugins = walkpol.so\n"
			 "[sweep]\npolicy = exclusive, walkpol\n"
			 "[policy.walkpol]\nheadroom = 0.05\n");
		put("wp.ini", ini);
	}
	{
		char cmd[2048];
		snprintf(cmd, sizeof cmd, "sed -e 's/^#define POLICY_NAME "
			 "template$/#define POLICY_NAME walkpol/' -e "
			 "'s/\\.zDesc = \"copy-me example: /.zDesc = \"walk "
			 "plugin: /' -e 's/tmpl_/walkpol_/g' "
			 "policies/template.c > '%s/walkpol.c' && "
			 "${CC:-cc} -std=c11 -O1 -fPIC -shared "
			 "-fvisibility=hidden -DCOLOSIM_PLUGIN -I. "
			 "$(pkg-config --cflags gsl) -o '%s/walkpol.so' "
			 "'%s/walkpol.c'", dir, dir, dir);
		have_plugin = system(cmd) == 0;
		if (!have_plugin)
			fprintf(stderr, "walk: cannot build the test plugin; "
				"scenario run:plugin skipped\n");
	}
}

static int clean(int rc, const struct sim_err *e)
{
	return rc < 0 && e->code == rc && e->msg[0] != '\0' &&
	       strchr(e->msg, '\n') == NULL;
}

/* One scenario run; 0 = success, 1 = clean failure, 2 = unclean. */
static int scenario_replay(const char *policy, int timeline)
{
	struct exp_sim_args a;
	struct pol_params params = { 0, NULL };
	struct run_result res;
	struct sim_err err;
	char trace[512], tl[512];
	int rc;

	snprintf(trace, sizeof trace, "%s/t.csv", dir);
	memset(&a, 0, sizeof a);
	a.trace = trace;
	a.cluster = "1x2:a100-80gb";
	a.policy = policy;
	a.params = &params;
	a.seed = 3;
	a.devices_dir = "models/devices";
	if (timeline) {      /* the spans recorded and written as JSON */
		snprintf(tl, sizeof tl, "%s/tl-%ld.json", dir,
			 (long)getpid());
		a.timeline_path = tl;
	}
	run_result_init(&res);
	sim_err_clear(&err);
	rc = exp_simulate_args(&a, &res, &err);
	digest = 14695981039346656037ull;
	if (rc == 0) {
		/* every metric, job row, placement, series point and latency
		** bin: a fallback must not change any of them */
		size_t k;
		for (k = 0; k < res.nmetrics; k++)
			digest = digest_metric(digest, res.metrics[k].name,
					       res.metrics[k].value);
		for (k = 0; k < res.njobs; k++)
			digest = fnv(digest, &res.jobs[k], sizeof res.jobs[k]);
		for (k = 0; k < res.nplace; k++)
			digest = fnv(digest, &res.place[k],
				     sizeof res.place[k]);
		for (k = 0; k < res.nseries; k++)
			digest = fnv(digest, &res.series[k],
				     sizeof res.series[k]);
		for (k = 0; k < res.nlat; k++)
			digest = fnv(digest, &res.lat[k], sizeof res.lat[k]);
	}
	run_result_fini(&res);
	if (timeline) {
		/* the file's bytes into the digest; after a failure neither
		** the file nor its temporary may be left (written, then
		** renamed) */
		char tmp[600];
		FILE *f = fopen(tl, "rb");
		int left;
		if (f != NULL) {
			char buf[4096];
			size_t n;
			while ((n = fread(buf, 1, sizeof buf, f)) > 0)
				digest = rc == 0 ? fnv(digest, buf, n) : digest;
			fclose(f);
		}
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", tl, (long)getpid());
		left = access(tmp, F_OK) == 0 || (rc != 0 && f != NULL);
		unlink(tl);
		unlink(tmp);
		if (left) {
			fprintf(stderr, "  %s: left behind after a failure\n",
				tl);
			return 2;
		}
	}
	if (rc == 0)
		return 0;
	if (getenv("WALK_VERBOSE"))
		fprintf(stderr, "  error: %s\n", err.msg);
	return clean(rc, &err) ? 1 : 2;
}

static int scenario_run(const char *ini)
{
	struct exp_run_request req;
	struct exp_runner_opts o;
	struct exp_run_stats st;
	struct sim_err err;
	char cfg[512], db[512], used[512];
	int rc;

	snprintf(cfg, sizeof cfg, "%s/%s", dir, ini);
	snprintf(db, sizeof db, "%s/w-%ld.db", dir, (long)getpid());
	memset(&req, 0, sizeof req);
	memset(&o, 0, sizeof o);
	memset(&st, 0, sizeof st);
	req.config_path = cfg;
	req.db_path = db;
	req.overwrite = 1;
	req.devices_dir = "models/devices";
	o.jobs = 1;
	o.no_fork = 1;
	o.simulate = exp_simulate;
	sim_err_clear(&err);
	rc = exp_run_experiment(&req, &o, &st, used, sizeof used, &err);
	digest = 14695981039346656037ull;
	if (rc == 0 && st.failed == 0) {
		sqlite3 *sdb;
		sqlite3_stmt *q;
		if (sqlite3_open_v2(used, &sdb, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK && sqlite3_prepare_v2(sdb, "SELECT r.run_key || "
		    "'/' || m.name, m.value FROM metrics m JOIN runs r ON "
		    "r.id = m.run_id ORDER BY 1", -1, &q, NULL) == SQLITE_OK) {
			while (sqlite3_step(q) == SQLITE_ROW)
				digest = digest_metric(digest,
					(const char *)sqlite3_column_text(q, 0),
					sqlite3_column_double(q, 1));
			sqlite3_finalize(q);
		}
		sqlite3_close(sdb);
	}
	unlink(db);
	if (getenv("WALK_VERBOSE") && (rc != 0 || st.failed))
		fprintf(stderr, "  error: %s%s\n", err.msg, st.first_error);
	if (rc == 0 && st.failed == 0)
		return 0;
	if (rc == 0)     /* a run failed and was stored with its error */
		return st.first_error[0] != '\0' ? 1 : 2;
	return clean(rc, &err) ? 1 : 2;
}

/* An import (tiresias, then azure with its arrival file), the output
** read back; digest of the output's bytes. */
static int scenario_import(const char *fmt)
{
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char in[512], out[512];
	const char *inputs[1];
	int rc;

	snprintf(in, sizeof in, "%s/%s", dir, strcmp(fmt, "tiresias") == 0 ?
		 "tir.csv" : "az.csv");
	snprintf(out, sizeof out, "%s/imp-%ld.csv", dir, (long)getpid());
	inputs[0] = in;
	imp_opts_init(&o);
	sim_err_clear(&err);
	rc = imp_run(imp_find(fmt), inputs, 1, out, NULL, &o, &st, &err);
	digest = 14695981039346656037ull;
	if (rc == 0) {
		FILE *f = fopen(out, "rb");
		int c;
		while (f != NULL && (c = fgetc(f)) != EOF) {
			unsigned char b = (unsigned char)c;
			digest = fnv(digest, &b, 1);
		}
		if (f != NULL)
			fclose(f);
	}
	unlink(out);
	if (rc == 0)
		return 0;
	if (getenv("WALK_VERBOSE"))
		fprintf(stderr, "  error: %s\n", err.msg);
	return clean(rc, &err) ? 1 : 2;
}

/* The trace reader and every service's arrivals, as validate does. */
static int scenario_trace(void)
{
	struct trace_reader *r = NULL;
	struct trace_job j;
	struct sim_err err;
	char path[512];
	int rc;

	snprintf(path, sizeof path, "%s/t.csv", dir);
	sim_err_clear(&err);
	digest = 14695981039346656037ull;
	if ((rc = trace_open(&r, path, &err)) != 0)
		return clean(rc, &err) ? 1 : 2;
	while ((rc = trace_next(r, &j, &err)) == 1) {
		digest = fnv(digest, j.id, strlen(j.id));
		if (j.kind == TRACE_INFER && j.arrival == TRACE_ARR_FILE) {
			struct trace_arrivals *a = NULL;
			sim_time t;
			if ((rc = trace_arrivals_open(&a, &j, trace_dir(r),
						      NULL, &err)) != 0)
				break;
			while ((rc = trace_arrivals_next(a, &t, &err)) == 1)
				digest = fnv(digest, &t, sizeof t);
			trace_arrivals_close(a);
			if (rc < 0)
				break;
		}
	}
	trace_close(r);
	if (rc == 0)
		return 0;
	digest = 14695981039346656037ull;
	return clean(rc, &err) ? 1 : 2;
}

static int scenario(const char *name)
{
	if (strcmp(name, "timeline") == 0)
		return scenario_replay("colti", 1);
	if (strncmp(name, "replay:", 7) == 0)
		return scenario_replay(name + 7, 0);
	if (strcmp(name, "run") == 0)
		return scenario_run("w.ini");
	if (strcmp(name, "run:plugin") == 0)
		return scenario_run("wp.ini");
	if (strncmp(name, "import:", 7) == 0)
		return scenario_import(name + 7);
	if (strcmp(name, "trace") == 0)
		return scenario_trace();
	fprintf(stderr, "walk: unknown scenario '%s'\n", name);
	exit(2);
}

/* Seconds a child may run: WALK_TIMEOUT, default 120 (the slowest
** scenario runs in under 2 s under ASan here). */
static unsigned child_timeout(void)
{
	const char *e = getenv("WALK_TIMEOUT");
	long v = e != NULL ? atol(e) : 120;

	return v > 0 && v < 86400 ? (unsigned)v : 120;
}

/* Runs scenario with the n-th allocation failing, in a child; 0 when it
** ended cleanly.  n = 0: the counting pass (nothing fails). */
static int child(const char *name, long n, long *count, long *sites,
		 unsigned long long *dig)
{
	int fds[2], st;
	pid_t pid;
	long v[3] = { 0, 0, 0 };

	if (pipe(fds) != 0) {
		perror("pipe");
		exit(2);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int r;
		close(fds[0]);
		/* a hang (a run that cannot end after a failure) becomes
		** SIGALRM, reported as such, instead of stalling the walk */
		alarm(child_timeout());
		wrap_arm(n);
		r = scenario(name);
		v[0] = wrap_count();
		v[1] = wrap_sites();
		if (n == 0) {        /* the sites, for the union over scenarios */
			char sp[512];
			FILE *f;
			long i;
			snprintf(sp, sizeof sp, "%s/sites.txt", dir);
			if ((f = fopen(sp, "a")) != NULL) {
				for (i = 0; i < v[1]; i++)
					fprintf(f, "%p\n", wrap_site(i));
				fclose(f);
			}
		}
		memcpy(&v[2], &digest, sizeof digest);
		if (write(fds[1], v, sizeof v) != (ssize_t)sizeof v)
			_exit(2);
		close(fds[1]);
		/* success after a failed allocation is right only when the
		** results are those of the run without failures (a fallback,
		** such as a cache that is not grown); the parent compares */
		(void)0;
		if (n == 0 && r != 0)   /* the reference run must succeed */
			exit(4);
		exit(r == 2 ? 2 : 0);   /* exit(): LeakSanitizer runs */
	}
	close(fds[1]);
	if (read(fds[0], v, sizeof v) != (ssize_t)sizeof v)
		v[0] = v[1] = -1;
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0)
		;
	if (count)
		*count = v[0];
	if (sites)
		*sites = v[1];
	if (dig)
		memcpy(dig, &v[2], sizeof *dig);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static int walk(const char *name, long step)
{
	long total = 0, sites = 0, n, bad = 0, walked = 0, same = 0;
	unsigned long long ref = 0, got = 0;
	int rc = child(name, 0, &total, &sites, &ref);

	if (getenv("WALK_ONLY") != NULL) {   /* one N, for debugging */
		n = atol(getenv("WALK_ONLY"));
		rc = child(name, n, NULL, NULL, &got);
		printf("walk: %s: allocation %ld of %ld: status %d%s\n", name,
		       n, total, rc, got == ref ? " (results as without "
		       "failures)" : "");
		return rc != 0;
	}
	if (rc != 0 || total <= 0) {
		fprintf(stderr, "walk: %s: the run without failures failed "
			"(status %d)\n", name, rc);
		return 1;
	}
	for (n = 1; n <= total; n += step) {
		got = 0;
		rc = child(name, n, NULL, NULL, &got);
		walked++;
		if (rc == 0 && got != 14695981039346656037ull) {
			/* it succeeded: a fallback must give the same results */
			if (got != ref)
				rc = 3;
			else if (++same && getenv("WALK_VERBOSE") != NULL)
				fprintf(stderr, "walk: %s: allocation %ld: "
					"same results\n", name, n);
		}
		if (rc != 0) {
			bad++;
			fprintf(stderr, "walk: %s: allocation %ld of %ld: %s "
				"(status %d)\n", name, n, total, rc == 3 ?
				"failure swallowed (success reported)" :
				rc == 2 ? "unclean error" : rc == 23 ? "leak" :
				rc == 128 + SIGALRM ? "hang (WALK_TIMEOUT "
				"passed)" : "crash or sanitizer report", rc);
		}
	}
	printf("walk: %-18s %5ld allocations from %3ld call sites, %5ld "
	       "failures injected: %ld clean errors, %ld same results, %ld "
	       "bad\n", name, total, sites, walked, walked - same - bad, same,
	       bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	static const char *const all[] = {
		"replay:exclusive", "replay:timeslice", "replay:mps",
		"replay:mig", "replay:colti", "replay:gslice",
		"replay:distmind", "timeline", "run", "run:plugin", "trace",
		"import:tiresias",
		"import:azure-llm-2023", NULL
	};
	const char *s = getenv("WALK_STEP");
	long step = s && atol(s) > 0 ? atol(s) : 1;
	int i, bad = 0;

	sim_gsl_quiet();
	setup();
	if (argc > 1)
		for (i = 1; i < argc; i++)
			bad |= walk(argv[i], step);
	else
		for (i = 0; all[i] != NULL; i++)
			if (have_plugin || strcmp(all[i], "run:plugin") != 0)
				bad |= walk(all[i], step);
	{
		char cmd[600];
		fflush(stdout);
		snprintf(cmd, sizeof cmd, "printf 'walk: %%s distinct call sites "
			 "over the scenarios walked\\n' $(sort -u '%s/sites.txt' "
			 "| wc -l)", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "walk: cannot count the sites\n");
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "walk: cannot remove %s\n", dir);
	}
	return bad;
}
