/*
** test_store.c: the results store (experiments/store.h) and the sweep
** runner (experiments/runner.h) driven by a fake, deterministic simulator:
** round trips, resume after a crashed worker and after a killed parent,
** a clean stop, refusal of newer schemas, read-only and foreign databases,
** and a full disk that keeps what was stored.
*/
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiments/runner.h"
#include "experiments/store.h"
#include "sim/rng.h"
#include "tests/util.h"

/* What the fake simulator does at run index `at`. */
enum fake_mode { FAKE_OK, FAKE_EXIT, FAKE_KILL_PARENT, FAKE_FAIL };
static enum fake_mode g_mode;     /* test-only knob, read in the workers */
static int g_at;

static double policy_factor(const char *p)
{
	return strcmp(p, "exclusive") == 0 ? 1.0 :
	       strcmp(p, "colti") == 0 ? 0.8 : 0.9;
}

/*
** A simulator whose numbers are closed-form in (seed, policy): the
** "arrival" draw depends on the replication's seed only, as real arrivals
** must under common random numbers.
*/
static int fake_sim(const struct exp_run_spec *s, struct run_result *out,
		    struct sim_err *err)
{
	struct sim_rng rng;
	double base, f = policy_factor(s->policy);
	int k, rc;

	if (s->index == g_at && g_mode == FAKE_EXIT)
		_exit(7);
	if (s->index == g_at && g_mode == FAKE_KILL_PARENT) {
		kill(getppid(), SIGKILL);
		_exit(0);
	}
	if (s->index == g_at && g_mode == FAKE_FAIL)
		return sim_err_set(err, SIM_EPARSE, "fake: bad trace row");
	if ((rc = sim_rng_init(&rng, s->seed, "arrivals", 0, err)) != 0)
		return rc;
	base = 100 + 50 * sim_rng_uniform(&rng);
	sim_rng_fini(&rng);
	rc = run_result_set(out, "arrival_draw", base);
	rc |= run_result_set(out, "makespan_s", base * f);
	rc |= run_result_set(out, "hbm_util_mean", 0.5 / f);
	for (k = 0; k < 3; k++) {
		struct res_job j;
		memset(&j, 0, sizeof j);
		snprintf(j.id, sizeof j.id, "job%d", k);
		strcpy(j.kind, "train");
		strcpy(j.model, "resnet50");
		j.gpus = 1;
		j.first_gpu = k;
		j.submit_s = k;
		j.start_s = k + 1;
		j.end_s = k + 1 + base * f / 3;
		j.jct_s = j.end_s - j.submit_s;
		j.queue_s = 1;
		j.slowdown = f;
		rc |= run_result_add_job(out, &j);
	}
	for (k = 0; k < 5; k++) {
		struct res_series p = { -1, k * 10.0, 0.1 * k / f, 0.2 };
		rc |= run_result_add_series(out, &p);
	}
	{
		struct res_lat_bin b = { 0, 10, 5 }, c = { 10, 20, 3 };
		rc |= run_result_add_lat(out, &b);
		rc |= run_result_add_lat(out, &c);
	}
	out->events = 1000 + (uint64_t)s->index;
	return rc ? sim_err_set(err, SIM_ENOMEM, "out of memory") : 0;
}

static const char *CFG =
	"[experiment]\n"
	"name = fake\n"
	"gen.jobs = 3\n"
	"cluster = 1x4:a100-80gb\n"
	"replications = 4\n"
	"seed = 7\n"
	"[sweep]\n"
	"policy = exclusive, mps, colti\n";

/* Writes text to DIR/name; returns the path (static buffer per call). */
static const char *write_file(const char *name, const char *text)
{
	const char *p = test_write(name, NULL, text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

static const char *db_path(const char *name)
{
	static char path[4][512];
	static int k;
	char *p = path[k++ % 4];
	char side[540];

	snprintf(p, 512, "%s/%s", test_tmpdir(), name);
	unlink(p);
	snprintf(side, sizeof side, "%s-wal", p);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", p);
	unlink(side);
	return p;
}

/* One integer from a query on a fresh read connection. */
static long long q_int(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

static double q_double(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	double v = NAN;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return NAN;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

static int run_cfg(const char *cfg, const char *db, int resume, int jobs,
		   struct exp_run_stats *stats, struct sim_err *err)
{
	struct exp_run_request req = { cfg, db, resume, 0, NULL, NULL, 0 };
	struct exp_runner_opts o;

	memset(&o, 0, sizeof o);
	o.jobs = jobs;
	o.simulate = fake_sim;
	sim_err_clear(err);
	return exp_run_experiment(&req, &o, stats, NULL, 0, err);
}

static void test_sweep_round_trip(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db = db_path("rt.db");
	struct exp_run_stats stats;
	struct sim_err err;

	g_mode = FAKE_OK;
	CU_ASSERT_EQUAL_FATAL(run_cfg(cfg, db, 0, 3, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.total, 12);
	CU_ASSERT_EQUAL(stats.done, 12);
	CU_ASSERT_EQUAL(stats.failed, 0);
	CU_ASSERT_EQUAL(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE status="
			      "'done'"), 12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM metrics"), 36);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM jobs"), 36);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM series"), 60);
	CU_ASSERT_EQUAL(q_int(db, "SELECT sum(count) FROM latency"), 96);
	CU_ASSERT_EQUAL(q_int(db, "SELECT events FROM runs WHERE run_index=5"),
			1005);
	CU_ASSERT_EQUAL(q_int(db, "SELECT total_runs FROM experiments"), 12);
	/* Common random numbers: one arrival draw per replication. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(DISTINCT value) FROM metrics "
			      "WHERE name='arrival_draw'"), 4);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM (SELECT replication "
			      "FROM runs r JOIN metrics m ON m.run_id=r.id AND "
			      "m.name='arrival_draw' GROUP BY replication "
			      "HAVING count(DISTINCT m.value) = 1 AND "
			      "count(DISTINCT r.seed) = 1)"), 4);
	/* colti's makespan is 0.8 x exclusive's in every replication. */
	TEST_ASSERT_CLOSE(q_double(db, "SELECT max(abs(c.value - 0.8*e.value))"
		" FROM runs rc JOIN metrics c ON c.run_id=rc.id "
		" JOIN runs re ON re.replication=rc.replication "
		" JOIN metrics e ON e.run_id=re.id AND e.name=c.name "
		" WHERE c.name='makespan_s' AND rc.policy='colti' "
		" AND re.policy='exclusive'"), 0, 1e-9);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM run_params WHERE "
			      "kind='gen' AND key='jobs' AND value='3'"), 12);
	/* A second run without --resume is refused; with it, nothing runs. */
	CU_ASSERT_EQUAL(run_cfg(cfg, db, 0, 2, &stats, &err), SIM_EEXIST);
	CU_ASSERT(strstr(err.msg, "--resume") != NULL);
	CU_ASSERT_EQUAL(run_cfg(cfg, db, 1, 2, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.skipped, 12);
	CU_ASSERT_EQUAL(stats.done, 0);
	/* A changed config under the same name is not resumed. */
	cfg = write_file("fake.ini", CFG);
	{
		char text[1024];
		snprintf(text, sizeof text, "%sseed = 8\n", CFG);
		/* seed after [sweep] would be a sweep key: put it first */
		snprintf(text, sizeof text, "%s", CFG);
		memcpy(strstr(text, "seed = 7"), "seed = 9", 8);
		cfg = write_file("fake.ini", text);
	}
	CU_ASSERT_EQUAL(run_cfg(cfg, db, 1, 2, &stats, &err), SIM_ESTATE);
	CU_ASSERT(strstr(err.msg, "different config") != NULL);
}

static void test_resume_after_crashed_worker(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db = db_path("crash.db");
	struct exp_run_stats stats;
	struct sim_err err;

	g_mode = FAKE_EXIT;
	g_at = 4;
	CU_ASSERT_EQUAL_FATAL(run_cfg(cfg, db, 0, 2, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.done, 11);
	CU_ASSERT_EQUAL(stats.failed, 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT run_index FROM runs WHERE "
			      "status='failed'"), 4);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE status="
			      "'failed' AND error LIKE '%exited with status 7%'"),
			1);
	/* A simulator error is stored with its message, too. */
	g_mode = FAKE_OK;
	CU_ASSERT_EQUAL(run_cfg(cfg, db, 1, 2, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.skipped, 11);
	CU_ASSERT_EQUAL(stats.done, 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE status="
			      "'done'"), 12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs"), 12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM metrics"), 36);
}

static void test_failed_run_message(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db = db_path("fail.db");
	struct exp_run_stats stats;
	struct sim_err err;

	g_mode = FAKE_FAIL;
	g_at = 0;
	CU_ASSERT_EQUAL_FATAL(run_cfg(cfg, db, 0, 1, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.failed, 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE error = "
			      "'fake: bad trace row' AND run_index = 0"), 1);
	g_mode = FAKE_OK;
}

static void test_resume_after_killed_parent(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db = db_path("kill.db");
	struct exp_run_stats stats;
	struct sim_err err;
	long long before;
	pid_t pid;
	int status;

	/* The "parent" of the sweep is a child of the test, killed by the
	** worker of run 6 while runs may be in flight or being stored. */
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		g_mode = FAKE_KILL_PARENT;
		g_at = 6;
		run_cfg(cfg, db, 0, 2, &stats, &err);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	before = q_int(db, "SELECT count(*) FROM runs WHERE status='done'");
	/* Five of runs 0..5 were stored before run 6 could start (2
	** workers); run 6 never is; runs after it may race ahead of the
	** kill. */
	CU_ASSERT(before >= 5 && before <= 11);
	/* Every stored run is whole: 3 metrics and 3 jobs each. */
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM metrics"), 3 * before);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM jobs"), 3 * before);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE "
			      "run_index = 6"), 0);
	CU_ASSERT(q_int(db, "SELECT count(*) FROM runs WHERE run_index < 6")
		  >= 5);
	g_mode = FAKE_OK;
	CU_ASSERT_EQUAL_FATAL(run_cfg(cfg, db, 1, 2, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.skipped, (size_t)before);
	CU_ASSERT_EQUAL(stats.done, 12 - (size_t)before);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs WHERE status="
			      "'done'"), 12);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(DISTINCT run_key) FROM runs"),
			12);
}

static volatile sig_atomic_t g_stop;

static void stop_after_three(void *ctx, const struct exp_progress *p)
{
	(void)ctx;
	if (p->done >= 3)
		g_stop = 1;
	CU_ASSERT(p->done + p->failed + p->skipped + p->running <= p->total);
}

static void test_stop_on_request(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db = db_path("stop.db");
	struct exp_run_request req = { cfg, db, 0, 0, NULL, NULL, 0 };
	struct exp_runner_opts o;
	struct exp_run_stats stats;
	struct sim_err err;

	memset(&o, 0, sizeof o);
	o.jobs = 2;
	o.simulate = fake_sim;
	o.progress = stop_after_three;
	o.stop = &g_stop;
	g_stop = 0;
	g_mode = FAKE_OK;
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_run_experiment(&req, &o, &stats, NULL, 0, &err),
			SIM_ESTOP);
	CU_ASSERT(stats.stopped);
	CU_ASSERT(stats.done >= 3 && stats.done <= 4);
	CU_ASSERT(strstr(err.msg, "--resume") != NULL);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs"),
			(long long)stats.done);
	g_stop = 0;
	CU_ASSERT_EQUAL(run_cfg(cfg, db, 1, 2, &stats, &err), 0);
	CU_ASSERT_EQUAL(stats.done + stats.skipped, 12);
}

static void test_no_fork_matches_fork(void)
{
	const char *cfg = write_file("fake.ini", CFG);
	const char *db1 = db_path("nf1.db"), *db2 = db_path("nf2.db");
	struct exp_run_request r1 = { cfg, db1, 0, 0, NULL, NULL, 0 },
			      r2 = { cfg, db2, 0, 0, NULL, NULL, 0 };
	struct exp_runner_opts o;
	struct exp_run_stats stats;
	struct sim_err err;
	char sql[600];

	memset(&o, 0, sizeof o);
	o.jobs = 1;
	o.simulate = fake_sim;
	g_mode = FAKE_OK;
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_run_experiment(&r1, &o, &stats, NULL, 0,
						 &err), 0);
	o.no_fork = 1;
	CU_ASSERT_EQUAL_FATAL(exp_run_experiment(&r2, &o, &stats, NULL, 0,
						 &err), 0);
	snprintf(sql, sizeof sql, "SELECT sum(value) FROM metrics");
	TEST_ASSERT_CLOSE(q_double(db1, sql), q_double(db2, sql), 1e-12);
}

static void test_newer_schema_refused(void)
{
	const char *db = db_path("newer.db");
	struct store *s = NULL;
	struct sim_err err;
	sqlite3 *h;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_WRITE, &err), 0);
	store_close(s);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &h), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_exec(h, "INSERT INTO experiments(name, "
		"config_path, config_text, config_hash, colosim_version, "
		"total_runs) VALUES ('keep','p','t','h','9.9',1);"
		"PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	s = NULL;
	CU_ASSERT_EQUAL(store_open(&s, db, STORE_WRITE, &err), SIM_EVERSION);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT(strstr(err.msg, "newer") != NULL);
	CU_ASSERT(strstr(err.msg, "99") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(store_open(&s, db, STORE_READ, &err), SIM_EVERSION);
	/* Nothing was touched. */
	CU_ASSERT_EQUAL(q_int(db, "PRAGMA user_version"), 99);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM experiments WHERE "
			      "name='keep'"), 1);
}

static void test_read_only_refused(void)
{
	const char *db = db_path("ro.db");
	char uri[600];
	struct store *s = NULL;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_WRITE, &err), 0);
	store_close(s);
	s = NULL;
	snprintf(uri, sizeof uri, "file:%s?mode=ro", db);
	CU_ASSERT_EQUAL(store_open(&s, uri, STORE_WRITE, &err), SIM_EIO);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT(strstr(err.msg, "read-only") != NULL);
	/* Without root, a read-only file is refused the same way. */
	if (geteuid() != 0) {
		chmod(db, 0444);
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(store_open(&s, db, STORE_WRITE, &err), SIM_EIO);
		chmod(db, 0644);
	}
	/* A missing file in read mode, and a path in no folder. */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(store_open(&s, "/nonexistent/x.db", STORE_READ, &err),
			SIM_ENOENT);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(store_open(&s, "/nonexistent/x.db", STORE_WRITE, &err),
			SIM_EIO);
	CU_ASSERT(strstr(err.msg, "/nonexistent/x.db") != NULL);
}

static void test_foreign_db_refused(void)
{
	const char *db = db_path("foreign.db");
	struct store *s = NULL;
	struct sim_err err;
	sqlite3 *h;

	CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &h), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL),
			SQLITE_OK);
	sqlite3_close(h);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(store_open(&s, db, STORE_WRITE, &err), SIM_EIO);
	CU_ASSERT(strstr(err.msg, "not a colosim") != NULL);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM sqlite_schema"), 1);
	/* Not SQLite at all. */
	db = write_file("junk.db", "this is not a database, not even close to "
			"one, but long enough to have a header...........\n");
	sim_err_clear(&err);
	CU_ASSERT(store_open(&s, db, STORE_WRITE, &err) != 0);
	CU_ASSERT(strstr(err.msg, "junk.db") != NULL);
}

static void test_full_disk_keeps_runs(void)
{
	const char *cfgp = write_file("fake.ini", CFG);
	const char *db = db_path("full.db");
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct store *s = NULL;
	struct run_result res;
	struct sim_err err;
	int64_t id;
	char sql[100];
	int k;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_config_load(&cfg, cfgp, &err), 0);
	CU_ASSERT_EQUAL_FATAL(exp_matrix_build(&m, cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_open(&s, db, STORE_WRITE, &err), 0);
	CU_ASSERT_EQUAL_FATAL(store_add_experiment(s, cfg, (long)m.nruns, &id,
						   &err), 0);
	run_result_init(&res);
	g_mode = FAKE_OK;
	CU_ASSERT_EQUAL_FATAL(fake_sim(&m.runs[0], &res, &err), 0);
	CU_ASSERT_EQUAL(store_put_run(s, id, &m.runs[0], STORE_RUN_DONE, NULL,
				      &res, &err), 0);
	/* Cap the file at its current size: the next big run cannot fit. */
	snprintf(sql, sizeof sql, "PRAGMA max_page_count = %lld",
		 (long long)q_int(db, "PRAGMA page_count") + 2);
	CU_ASSERT_EQUAL(sqlite3_exec(store_db(s), sql, NULL, NULL, NULL),
			SQLITE_OK);
	for (k = 0; k < 20000; k++) {
		struct res_series p = { k % 8, k, 0.5, 0.5 };
		run_result_add_series(&res, &p);
	}
	CU_ASSERT_EQUAL(store_put_run(s, id, &m.runs[1], STORE_RUN_DONE, NULL,
				      &res, &err), SIM_ENOSPC);
	CU_ASSERT(strstr(err.msg, "--resume") != NULL);
	store_close(s);
	run_result_fini(&res);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM runs"), 1);
	CU_ASSERT_EQUAL(q_int(db, "SELECT count(*) FROM series"), 5);
	exp_matrix_fini(&m);
	exp_config_free(cfg);
}

static void test_progress_line(void)
{
	struct exp_progress p;
	char buf[160];

	memset(&p, 0, sizeof p);
	p.total = 120;
	p.skipped = 7;
	p.done = 28;
	p.failed = 2;
	p.running = 4;
	p.rate_per_s = 2.5;
	p.eta_s = 83 / 2.5;
	exp_progress_line(&p, buf, sizeof buf);
	CU_ASSERT_STRING_EQUAL(buf, "[ 37/120]  30.8%  2.5 runs/s  ETA 0:33  "
			       "(4 running, 2 failed)");
	p.eta_s = NAN;
	p.failed = 0;
	p.stopping = 1;
	p.eta_s = 7300;
	exp_progress_line(&p, buf, sizeof buf);
	CU_ASSERT(strstr(buf, "ETA 2:01:40  (4 running)  stopping") != NULL);
}

TEST_REGISTER(store)
{
	static const struct test_case cases[] = {
		{"sweep round trip, CRN in the store", test_sweep_round_trip},
		{"resume after a crashed worker",
		 test_resume_after_crashed_worker},
		{"failed run keeps its message", test_failed_run_message},
		{"resume after a killed parent",
		 test_resume_after_killed_parent},
		{"stop on request", test_stop_on_request},
		{"no-fork gives the same results", test_no_fork_matches_fork},
		{"newer schema refused", test_newer_schema_refused},
		{"read-only database refused", test_read_only_refused},
		{"foreign database refused", test_foreign_db_refused},
		{"full disk keeps stored runs", test_full_disk_keeps_runs},
		{"progress line", test_progress_line},
		{NULL, NULL}
	};
	return test_add_suite("store", cases);
}
