/*
** test_mpi.c: `colosim run` under MPI (experiments/runner_mpi.c), end to
** end: `mpirun --oversubscribe -np 3 colosim run` (rank 0 coordinating, two
** worker ranks) stores the same runs, run parameters, metrics, jobs,
** series, latency, services and placements rows as `-j 1`, byte for byte (doubles compared as
** their exact hex form), failed runs and their messages included; a
** --resume under MPI (workers simulating in-process, --no-fork) re-runs
** exactly the runs deleted from the store and ends with the same tables
** again; -j N under MPI is refused; a build without MPI refuses --mpi and
** a launch by mpirun.  The MPI cases skip with a message when mpirun is
** not on PATH or the binary was built without MPI.
**
** Row ids of runs follow the order runs finish in (as with -j N), so rows
** are keyed by run_key, and ordered within a run by their insertion order.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim/strbuf.h"
#include "tests/util.h"

/* A small sweep: 3 policies x 3 model mixes x 2 replications, mixed
** training and inference; the mix naming an unknown model fails in the
** generator (after the preflight), so 6 of the 18 runs fail. */
static const char *CFG =
	"[experiment]\n"
	"name = mpi\n"
	"cluster = 1x4:a100-80gb\n"
	"replications = 2\n"
	"seed = 11\n"
	"gen.jobs = 12\n"
	"gen.infer-frac = 0.3\n"
	"gen.infer-duration-s = 600\n"
	"gen.dur-median-s = 600\n"
	"[sweep]\n"
	"policy = exclusive, mps, colti\n"
	"gen.models = resnet50:2, bert-base:1, nosuch:1\n";

static const char *bin(void)
{
	const char *b = getenv("COLOSIM_BIN");
	return b && *b ? b : "build/colosim";
}

/* Open MPI refuses root (CI runs as root) unless told; the shared-memory
** transport's single-copy mode needs ptrace rights containers often lack;
** under ASan, what MPI_Init keeps until exit is not ours to report
** (tests/lsan-mpi.supp; the variables are ignored by other builds). */
#define MPI_ENV "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " \
	"OMPI_MCA_btl_vader_single_copy_mechanism=none " \
	"ASAN_OPTIONS=fast_unwind_on_malloc=0 " \
	"LSAN_OPTIONS=suppressions=$PWD/tests/lsan-mpi.supp:" \
	"print_suppressions=0 "
#define MPIRUN MPI_ENV "timeout 120 mpirun --oversubscribe -np 3 "

static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ & 3];
	snprintf(p, sizeof buf[0], "%s/%s", test_tmpdir(), name);
	return p;
}

/* Runs a shell command; its stdout+stderr go to out (static); returns the
** exit status, or -1. */
static int sh(const char *cmd, const char **out)
{
	static char buf[8192];
	char full[2048];
	FILE *p;
	size_t n;
	int st;

	snprintf(full, sizeof full, "%s 2>&1 </dev/null", cmd);
	buf[0] = '\0';
	p = popen(full, "r");
	if (p == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	if (out != NULL)
		*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* 1 when the MPI cases can run; else prints why not and returns 0. */
static int mpi_usable(void)
{
	char cmd[1024];
	const char *out = "";

	if (sh("command -v mpirun", NULL) != 0) {
		fprintf(stderr, "\n  test_mpi: no mpirun on PATH (install "
			"openmpi-bin): skipped ");
		return 0;
	}
	snprintf(cmd, sizeof cmd, "%s run --help", bin());
	if (sh(cmd, &out) != 0 || strstr(out, "MPI: not built in") != NULL) {
		fprintf(stderr, "\n  test_mpi: %s built without MPI: "
			"skipped ", bin());
		return 0;
	}
	return 1;
}

/* Appends every row of sql on db to b, columns separated by '|', doubles
** in exact hex. */
static int dump_query(sqlite3 *db, const char *sql, struct sim_strbuf *b)
{
	sqlite3_stmt *st;
	int rows = 0, rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int i, n = sqlite3_column_count(st);
		for (i = 0; i < n; i++) {
			char v[64];
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_NULL:
				sim_strbuf_add(b, "NULL");
				break;
			case SQLITE_INTEGER:
				snprintf(v, sizeof v, "%lld", (long long)
					 sqlite3_column_int64(st, i));
				sim_strbuf_add(b, v);
				break;
			case SQLITE_FLOAT:
				snprintf(v, sizeof v, "%a",
					 sqlite3_column_double(st, i));
				sim_strbuf_add(b, v);
				break;
			default:
				sim_strbuf_add(b, (const char *)
					       sqlite3_column_text(st, i));
			}
			sim_strbuf_add(b, i + 1 < n ? "|" : "\n");
		}
		rows++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? rows : -1;
}

enum { T_RUNS, T_PARAMS, T_METRICS, T_JOBS, T_SERIES, T_LAT, T_SVC, T_PLACE,
       T__N };

static const char *const dump_sql[T__N] = {
	"SELECT run_key, run_index, policy, variant, setting, replication,"
	" seed, trace, cluster, horizon_s, status, error, events FROM runs"
	" ORDER BY run_key",
	"SELECT r.run_key, p.kind, p.key, p.value FROM run_params p"
	" JOIN runs r ON r.id = p.run_id ORDER BY 1, 2, 3",
	"SELECT r.run_key, m.name, m.value FROM metrics m"
	" JOIN runs r ON r.id = m.run_id ORDER BY 1, 2",
	"SELECT r.run_key, j.job_id, j.kind, j.model, j.gpus, j.first_gpu,"
	" j.status, j.submit_s, j.start_s, j.end_s, j.jct_s, j.queue_s,"
	" j.slowdown FROM jobs j JOIN runs r ON r.id = j.run_id"
	" ORDER BY r.run_key, j.rowid",
	"SELECT r.run_key, s.gpu, s.t_s, s.hbm_frac, s.sm_frac FROM series s"
	" JOIN runs r ON r.id = s.run_id ORDER BY r.run_key, s.rowid",
	"SELECT r.run_key, l.lo_ms, l.hi_ms, l.count FROM latency l"
	" JOIN runs r ON r.id = l.run_id ORDER BY r.run_key, l.rowid",
	"SELECT r.run_key, v.job_id, v.slo_ms, v.requests_total,"
	" v.requests_served, v.requests_slo_ok, v.slo_attainment,"
	" v.latency_mean_ms, v.latency_p50_ms, v.latency_p95_ms,"
	" v.latency_p99_ms FROM services v JOIN runs r ON r.id = v.run_id"
	" ORDER BY r.run_key, v.job_id",
	"SELECT r.run_key, p.job_id, p.gpu, p.slice, p.start_s, p.end_s,"
	" p.mem_bytes, p.sm_cap FROM placements p JOIN runs r ON r.id = p.run_id"
	" ORDER BY r.run_key, p.rowid",
};

/* Dumps the tables of db (rows[t] receives each table's row count). */
static int dump_db(const char *path, struct sim_strbuf *b, int *rows)
{
	sqlite3 *db;
	int t;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	for (t = 0; t < T__N; t++) {
		char head[32];
		snprintf(head, sizeof head, "-- table %d\n", t);
		sim_strbuf_add(b, head);
		if ((rows[t] = dump_query(db, dump_sql[t], b)) < 0)
			break;
	}
	sqlite3_close(db);
	return t == T__N ? 0 : -1;
}

/* Asserts that the two databases hold the same rows; prints the first
** differing line when not.  rows receives a's row counts. */
static void assert_same_tables(const char *a, const char *b, int *rows)
{
	struct sim_strbuf da = { NULL, 0, 0, 0 }, db = { NULL, 0, 0, 0 };
	int rb[T__N];

	CU_ASSERT_EQUAL(dump_db(a, &da, rows), 0);
	CU_ASSERT_EQUAL(dump_db(b, &db, rb), 0);
	CU_ASSERT_FATAL(da.s != NULL && db.s != NULL && !da.oom && !db.oom);
	if (da.n != db.n || memcmp(da.s, db.s, da.n) != 0) {
		size_t i = 0, line = 0;
		while (i < da.n && i < db.n && da.s[i] == db.s[i])
			i++;
		while (line < i && da.s[i - line - 1] != '\n')
			line++;
		fprintf(stderr, "\n  %s and %s differ at: %.300s\n  vs: "
			"%.300s\n", a, b, da.s + i - line, db.s + i - line);
		CU_FAIL("the MPI store differs from -j 1");
	}
	free(da.s);
	free(db.s);
}

static const char *write_cfg(void)
{
	const char *p = tmp("mpi.ini");
	FILE *f = fopen(p, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(CFG, f);
	fclose(f);
	return p;
}

static void rm_db(const char *db)
{
	char cmd[1200];

	snprintf(cmd, sizeof cmd, "rm -f '%s' '%s-wal' '%s-shm'", db, db, db);
	CU_ASSERT_EQUAL(sh(cmd, NULL), 0);
}

static void test_mpi_equals_j1(void)
{
	const char *cfg, *db1, *dbm, *out = "";
	char cmd[2048];
	int rows[T__N];
	sqlite3 *h;

	if (!mpi_usable())
		return;
	cfg = write_cfg();
	db1 = tmp("j1.db");
	dbm = tmp("mpi.db");
	rm_db(db1);
	rm_db(dbm);
	/* Exit 1 in both: the runs of the unknown model fail. */
	snprintf(cmd, sizeof cmd, "%s run %s -j 1 -o %s", bin(), cfg, db1);
	CU_ASSERT_EQUAL(sh(cmd, &out), 1);
	CU_ASSERT(strstr(out, "18 runs (12 done now, 0 already stored, 6 "
			 "failed)") != NULL);
	snprintf(cmd, sizeof cmd, MPIRUN "%s run %s -o %s", bin(), cfg, dbm);
	CU_ASSERT_EQUAL(sh(cmd, &out), 1);
	if (strstr(out, "18 runs (12 done now, 0 already stored, 6 failed)")
	    == NULL)
		fprintf(stderr, "\n  mpirun said: %.2000s\n", out);
	CU_ASSERT(strstr(out, "18 runs (12 done now, 0 already stored, 6 "
			 "failed)") != NULL);
	CU_ASSERT(strstr(out, "unknown model 'nosuch'") != NULL);
	assert_same_tables(db1, dbm, rows);
	/* Not vacuous: every table has rows, the failed runs are stored. */
	CU_ASSERT_EQUAL(rows[T_RUNS], 18);
	CU_ASSERT(rows[T_METRICS] > 12 && rows[T_JOBS] >= 12 * 12);
	CU_ASSERT(rows[T_SERIES] > 0 && rows[T_LAT] > 0);
	CU_ASSERT(rows[T_SVC] > 0 && rows[T_PLACE] >= rows[T_JOBS] / 2);

	/* Lose three runs (two done, one failed), as a killed sweep would,
	** and resume under MPI with the workers simulating in-process. */
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(dbm, &h), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_exec(h, "PRAGMA foreign_keys = ON;"
		"DELETE FROM runs WHERE run_index IN (0, 4, 17)", NULL, NULL,
		NULL), SQLITE_OK);
	sqlite3_close(h);
	snprintf(cmd, sizeof cmd, MPIRUN "%s run %s -o %s --resume --no-fork",
		 bin(), cfg, dbm);
	CU_ASSERT_EQUAL(sh(cmd, &out), 1);
	/* 13 stored runs are skipped: 12 done and 5 failed, less the two
	** done ones deleted; the failed ones are retried with the rest. */
	if (strstr(out, "18 runs (2 done now, 10 already stored, 6 failed)")
	    == NULL)
		fprintf(stderr, "\n  mpirun --resume said: %.2000s\n", out);
	CU_ASSERT(strstr(out, "18 runs (2 done now, 10 already stored, 6 "
			 "failed)") != NULL);
	assert_same_tables(db1, dbm, rows);
	CU_ASSERT_EQUAL(rows[T_RUNS], 18);
}

static void test_mpi_refuses_jobs(void)
{
	const char *cfg, *db, *out = "";
	char cmd[2048];

	if (!mpi_usable())
		return;
	cfg = write_cfg();
	db = tmp("mpij.db");
	rm_db(db);
	snprintf(cmd, sizeof cmd, MPIRUN "%s run %s -o %s -j 2", bin(), cfg,
		 db);
	CU_ASSERT_NOT_EQUAL(sh(cmd, &out), 0);
	CU_ASSERT(strstr(out, "-j 2 under MPI") != NULL);
	CU_ASSERT_EQUAL(access(db, F_OK), -1);     /* nothing was written */
}

/* Whatever the build: --mpi outside mpirun is a world of one and runs
** as usual with MPI; without MPI it is refused in one line, and so is a
** launch that announces several ranks. */
static void test_mpi_flag_either_build(void)
{
	const char *cfg = write_cfg(), *db = tmp("flag.db"), *out = "";
	char cmd[2048], help[1024];
	int built;

	snprintf(help, sizeof help, "%s run --help", bin());
	CU_ASSERT_EQUAL_FATAL(sh(help, &out), 0);
	built = strstr(out, "MPI: not built in") == NULL;
	rm_db(db);
	snprintf(cmd, sizeof cmd, "env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE "
		 "-u PMIX_RANK " MPI_ENV "%s run %s -o %s --mpi", bin(), cfg,
		 db);
	if (built) {
		CU_ASSERT_EQUAL(sh(cmd, &out), 1);
		CU_ASSERT(strstr(out, "18 runs (12 done now") != NULL);
	} else {
		CU_ASSERT_EQUAL(sh(cmd, &out), 1);
		CU_ASSERT(strstr(out, "built without MPI") != NULL);
		snprintf(cmd, sizeof cmd, "OMPI_COMM_WORLD_SIZE=3 %s run %s "
			 "-o %s", bin(), cfg, db);
		CU_ASSERT_EQUAL(sh(cmd, &out), 1);
		CU_ASSERT(strstr(out, "one of 3 MPI ranks") != NULL);
		CU_ASSERT_EQUAL(access(db, F_OK), -1);
	}
}

TEST_REGISTER(mpi)
{
	static const struct test_case cases[] = {
		{ "mpirun -np 3 equals -j 1, and resumes", test_mpi_equals_j1 },
		{ "-j N under MPI is refused", test_mpi_refuses_jobs },
		{ "--mpi with or without MPI built in",
		  test_mpi_flag_either_build },
		{ NULL, NULL }
	};
	return test_add_suite("mpi", cases);
}
