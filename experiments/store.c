/*
** store.c: the SQLite results store (see store.h and docs/RESULTS.md).
**
** Invariants: user_version is the schema version; every write runs inside
** BEGIN IMMEDIATE ... COMMIT and is rolled back on any error; statements
** are prepared once per store and reset after each use.
*/
#include "experiments/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/version.h"

/*
** The migrations: migrations[v] takes a database from version v to v + 1,
** as a NULL-terminated list of SQL texts run in one transaction (a list
** because C11 compilers need only take string literals of 4095 bytes).
** Append only; never edit a migration that has shipped.
*/
static const char *const migration_1[] = {
	/* 0 -> 1: the first schema. */
	"CREATE TABLE experiments("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  config_path TEXT NOT NULL,"
	"  config_text TEXT NOT NULL,"
	"  config_hash TEXT NOT NULL,"
	"  colosim_version TEXT NOT NULL,"
	"  total_runs INTEGER NOT NULL,"
	"  created_at TEXT NOT NULL"
	"    DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE TABLE runs("
	"  id INTEGER PRIMARY KEY,"
	"  experiment_id INTEGER NOT NULL"
	"    REFERENCES experiments(id) ON DELETE CASCADE,"
	"  run_index INTEGER NOT NULL,"
	"  run_key TEXT NOT NULL,"
	"  policy TEXT NOT NULL,"
	"  variant TEXT NOT NULL,"
	"  setting TEXT NOT NULL,"
	"  replication INTEGER NOT NULL,"
	"  seed TEXT NOT NULL,"
	"  trace TEXT,"
	"  cluster TEXT,"
	"  horizon_s REAL NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('done','failed')),"
	"  error TEXT,"
	"  wall_s REAL,"
	"  events INTEGER,"
	"  finished_at TEXT NOT NULL"
	"    DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	"  UNIQUE (experiment_id, run_key));"
	"CREATE TABLE run_params("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL CHECK (kind IN ('param','gen','sweep')),"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, kind, key)) WITHOUT ROWID;"
	"CREATE TABLE metrics("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  value REAL,"
	"  PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
	"CREATE TABLE jobs("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  job_id TEXT NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  model TEXT NOT NULL,"
	"  gpus INTEGER NOT NULL,"
	"  first_gpu INTEGER NOT NULL,"
	"  status TEXT NOT NULL,"
	"  submit_s REAL, start_s REAL, end_s REAL,"
	"  jct_s REAL, queue_s REAL, slowdown REAL);"
	"CREATE INDEX jobs_run ON jobs(run_id);"
	"CREATE TABLE series("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  gpu INTEGER NOT NULL,"
	"  t_s REAL NOT NULL,"
	"  hbm_frac REAL,"
	"  sm_frac REAL);"
	"CREATE INDEX series_run ON series(run_id, gpu, t_s);"
	"CREATE TABLE latency("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  lo_ms REAL NOT NULL,"
	"  hi_ms REAL NOT NULL,"
	"  count INTEGER NOT NULL);"
	"CREATE INDEX latency_run ON latency(run_id);"
	"CREATE INDEX runs_variant ON runs(experiment_id, setting, variant);",
	NULL
};

/* 1 -> 2: per-service results, placements, the export views. */
static const char *const migration_2[] = {
	"CREATE TABLE services("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  job_id TEXT NOT NULL,"
	"  slo_ms REAL,"
	"  requests_total INTEGER NOT NULL,"
	"  requests_served INTEGER NOT NULL,"
	"  requests_slo_ok INTEGER NOT NULL,"
	"  slo_attainment REAL,"
	"  latency_mean_ms REAL, latency_p50_ms REAL, latency_p95_ms REAL,"
	"  latency_p99_ms REAL,"
	"  PRIMARY KEY (run_id, job_id)) WITHOUT ROWID;",
	"CREATE TABLE placements("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  job_id TEXT NOT NULL,"
	"  gpu INTEGER NOT NULL,"
	"  slice INTEGER,"
	"  start_s REAL NOT NULL,"
	"  end_s REAL,"
	"  mem_bytes INTEGER NOT NULL,"
	"  sm_cap REAL NOT NULL);",
	"CREATE INDEX placements_job ON placements(run_id, job_id);"
	"CREATE INDEX placements_gpu ON placements(run_id, gpu, start_s);"
	"CREATE INDEX jobs_job ON jobs(run_id, job_id);",
	"CREATE VIEW export_runs AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_index, r.run_key,"
	"  r.policy, r.variant, r.setting, r.replication, r.seed, r.trace,"
	"  r.cluster, r.horizon_s, r.status, r.error, r.wall_s,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'makespan_s') AS makespan_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'hbm_util_mean') AS hbm_util_mean,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'sm_util_mean') AS sm_util_mean,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jct_mean_s') AS jct_mean_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jct_p50_s') AS jct_p50_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jct_p95_s') AS jct_p95_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jct_p99_s') AS jct_p99_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'queue_delay_mean_s') AS queue_delay_mean_s,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'slowdown_mean') AS slowdown_mean,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'latency_p50_ms') AS latency_p50_ms,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'latency_p95_ms') AS latency_p95_ms,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'latency_p99_ms') AS latency_p99_ms,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'slo_attainment') AS slo_attainment,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'requests_total') AS requests_total,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'requests_served') AS requests_served,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'requests_unserved') AS requests_unserved,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'requests_rejected') AS requests_rejected,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jobs_total') AS jobs_total,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jobs_done') AS jobs_done,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jobs_failed') AS jobs_failed,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'jobs_unfinished') AS jobs_unfinished,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'gpu_hours') AS gpu_hours,"
	"  (SELECT value FROM metrics m WHERE m.run_id = r.id"
	"    AND m.name = 'events') AS events,"
	"  (SELECT json_group_object(m.name, m.value) FROM metrics m"
	"    WHERE m.run_id = r.id) AS metrics"
	"  FROM runs r JOIN experiments e ON e.id = r.experiment_id;",
	"CREATE VIEW export_jobs AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  j.job_id, j.kind, j.model, j.gpus, j.status, j.submit_s,"
	"  NULLIF(j.start_s, -1) AS start_s, NULLIF(j.end_s, -1) AS end_s,"
	"  NULLIF(j.jct_s, -1) AS jct_s, NULLIF(j.queue_s, -1) AS queue_s,"
	"  NULLIF(j.slowdown, -1) AS slowdown,"
	"  NULLIF(j.first_gpu, -1) AS first_gpu,"
	"  (SELECT group_concat(g, ';') FROM (SELECT DISTINCT p.gpu AS g"
	"    FROM placements p WHERE p.run_id = j.run_id"
	"    AND p.job_id = j.job_id ORDER BY p.gpu)) AS gpus_used,"
	"  (SELECT count(*) FROM placements p WHERE p.run_id = j.run_id"
	"    AND p.job_id = j.job_id) AS placements,"
	"  s.slo_ms, s.requests_total, s.requests_served, s.requests_slo_ok,"
	"  s.slo_attainment, s.latency_mean_ms, s.latency_p50_ms,"
	"  s.latency_p95_ms, s.latency_p99_ms"
	"  FROM jobs j JOIN runs r ON r.id = j.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id"
	"  LEFT JOIN services s ON s.run_id = j.run_id AND s.job_id = j.job_id;",
	"CREATE VIEW export_series AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  s.gpu, s.t_s, s.hbm_frac, s.sm_frac"
	"  FROM series s JOIN runs r ON r.id = s.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id;",
	"CREATE VIEW export_latency AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  l.lo_ms, l.hi_ms, l.count"
	"  FROM latency l JOIN runs r ON r.id = l.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id;",
	"CREATE VIEW export_placements AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  p.job_id, j.kind, j.model, p.gpu, p.slice, p.start_s, p.end_s,"
	"  p.mem_bytes, p.sm_cap"
	"  FROM placements p JOIN runs r ON r.id = p.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id"
	"  LEFT JOIN jobs j ON j.run_id = p.run_id AND j.job_id = p.job_id;",
	NULL
};

/* 2 -> 3: named histograms and time series (LLM services: TTFT, TPOT,
** KV-cache use) and their export views. */
static const char *const migration_3[] = {
	"CREATE TABLE histograms("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  lo REAL NOT NULL,"
	"  hi REAL NOT NULL,"
	"  count INTEGER NOT NULL);"
	"CREATE INDEX histograms_run ON histograms(run_id, name);"
	"CREATE TABLE timeseries("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  t_s REAL NOT NULL,"
	"  value REAL);"
	"CREATE INDEX timeseries_run ON timeseries(run_id, name, t_s);",
	"CREATE VIEW export_histograms AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  h.name, h.lo, h.hi, h.count"
	"  FROM histograms h JOIN runs r ON r.id = h.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id;",
	"CREATE VIEW export_timeseries AS SELECT"
	"  e.name AS experiment, r.id AS run_id, r.run_key, r.policy, r.variant,"
	"  r.setting, r.replication,"
	"  (SELECT json_group_object(p.key, p.value) FROM run_params p"
	"    WHERE p.run_id = r.id AND p.kind = 'sweep') AS sweep,"
	"  t.name, t.t_s, t.value"
	"  FROM timeseries t JOIN runs r ON r.id = t.run_id"
	"  JOIN experiments e ON e.id = r.experiment_id;",
	NULL
};

static const char *const *const migrations[STORE_SCHEMA_VERSION] = {
	migration_1, migration_2, migration_3
};

enum {
	ST_DEL_RUN, ST_INS_RUN, ST_INS_PARAM, ST_INS_METRIC, ST_INS_JOB,
	ST_INS_SERIES, ST_INS_LAT, ST_RUN_DONE, ST_INS_SVC, ST_INS_PLACE,
	ST_INS_HIST, ST_INS_POINT, ST__COUNT
};

static const char *const stmt_sql[ST__COUNT] = {
	"DELETE FROM runs WHERE experiment_id = ?1 AND run_key = ?2",
	"INSERT INTO runs(experiment_id, run_index, run_key, policy, variant,"
	" setting, replication, seed, trace, cluster, horizon_s, status, error,"
	" wall_s, events) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,"
	"?14,?15)",
	"INSERT INTO run_params(run_id, kind, key, value) VALUES (?1,?2,?3,?4)",
	"INSERT INTO metrics(run_id, name, value) VALUES (?1,?2,?3)",
	"INSERT INTO jobs(run_id, job_id, kind, model, gpus, first_gpu, status,"
	" submit_s, start_s, end_s, jct_s, queue_s, slowdown)"
	" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
	"INSERT INTO series(run_id, gpu, t_s, hbm_frac, sm_frac)"
	" VALUES (?1,?2,?3,?4,?5)",
	"INSERT INTO latency(run_id, lo_ms, hi_ms, count) VALUES (?1,?2,?3,?4)",
	"SELECT status FROM runs WHERE experiment_id = ?1 AND run_key = ?2",
	"INSERT INTO services(run_id, job_id, slo_ms, requests_total,"
	" requests_served, requests_slo_ok, slo_attainment, latency_mean_ms,"
	" latency_p50_ms, latency_p95_ms, latency_p99_ms)"
	" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
	"INSERT INTO placements(run_id, job_id, gpu, slice, start_s, end_s,"
	" mem_bytes, sm_cap) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
	"INSERT INTO histograms(run_id, name, lo, hi, count)"
	" VALUES (?1,?2,?3,?4,?5)",
	"INSERT INTO timeseries(run_id, name, t_s, value) VALUES (?1,?2,?3,?4)",
};

struct store {
	sqlite3 *db;
	char *path;
	int version;
	int writer;                /* opened for writing (WAL) */
	sqlite3_stmt *st[ST__COUNT];
};

/* Turns a SQLite failure into a sim_err naming the database and the step. */
static int db_fail(struct store *s, int rc, const char *what,
		   struct sim_err *err)
{
	const char *hint = "";
	int code = SIM_ELIB;

	switch (rc & 0xff) {
	case SQLITE_FULL:
		code = SIM_ENOSPC;
		hint = " (disk or quota full: runs stored before are kept; "
		       "free space and rerun with --resume)";
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		code = SIM_EIO;
		hint = " (the database or its folder is read-only)";
		break;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		code = SIM_EIO;
		break;
	case SQLITE_NOTADB:
		return sim_err_set(err, SIM_EINVAL, "%s: not a results "
				   "database (not an SQLite file)", s->path);
	case SQLITE_NOMEM:
		code = SIM_ENOMEM;
		break;
	default:
		break;
	}
	return sim_err_set(err, code, "%s: %s: %s%s", s->path, what,
			   s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
			   hint);
}

static int exec(struct store *s, const char *sql, const char *what,
		struct sim_err *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_fail(s, rc, what, err);
}

/* Runs a one-row, one-integer query (a PRAGMA) into *v. */
static int query_int(struct store *s, const char *sql, int64_t *v,
		     struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, rc, sql, err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		*v = 0;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(s, rc, sql, err);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Checks the database is ours and not newer than us; sets s->version. */
static int check_version(struct store *s, struct sim_err *err)
{
	int64_t ver, app, ntables;
	int rc;

	if ((rc = query_int(s, "SELECT count(*) FROM sqlite_schema", &ntables,
			    err)) != 0)
		return rc;
	if ((rc = query_int(s, "PRAGMA user_version", &ver, err)) != 0 ||
	    (rc = query_int(s, "PRAGMA application_id", &app, err)) != 0)
		return rc;
	if (ntables > 0 && app != STORE_APP_ID)
		return sim_err_set(err, SIM_EIO, "%s: not a colosim results "
				   "database (application_id %lld); refusing "
				   "to touch it", s->path, (long long)app);
	if (ver > STORE_SCHEMA_VERSION)
		return sim_err_set(err, SIM_EVERSION, "%s: results schema "
				   "version %lld is newer than this colosim "
				   "(%s) supports (%d); upgrade colosim (the "
				   "database was left untouched)", s->path,
				   (long long)ver, COLOSIM_VERSION,
				   STORE_SCHEMA_VERSION);
	s->version = (int)ver;
	return 0;
}

/*
** Checks that the database holds exactly the tables and indexes (with the
** same definitions, NOT NULL and CHECK constraints included) that the
** migrations create, by comparing its sqlite_schema with that of a fresh
** in-memory database migrated to s->version.  Every reader relies on that
** schema; a file that carries our application_id and version but other
** tables or columns (damaged, or made to look like ours) is refused with
** the first object that differs, instead of being read with NULLs where a
** column is NOT NULL.  Objects SQLite adds (sqlite_stat1, autoindexes)
** are not compared.
*/
static int check_schema(struct store *s, struct sim_err *err)
{
	static const char *const q =
		"SELECT type, name, sql FROM sqlite_schema WHERE name NOT "
		"LIKE 'sqlite_%' ORDER BY name";
	sqlite3 *ref = NULL;
	sqlite3_stmt *a = NULL, *b = NULL;
	int rc, v, ra = SQLITE_ROW, rb = SQLITE_ROW;

	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(ref);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (v = 0; v < s->version; v++) {
		const char *const *step;
		for (step = migrations[v]; *step != NULL; step++)
			if (sqlite3_exec(ref, *step, NULL, NULL, NULL) !=
			    SQLITE_OK) {
				rc = sim_err_set(err, SIM_ELIB, "schema check: "
						 "%s", sqlite3_errmsg(ref));
				goto out;
			}
	}
	if (sqlite3_prepare_v2(ref, q, -1, &a, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, q, -1, &b, NULL) != SQLITE_OK) {
		rc = db_fail(s, SQLITE_ERROR, "schema check", err);
		goto out;
	}
	for (rc = 0; rc == 0;) {
		const char *na, *nb, *sa, *sb;

		ra = sqlite3_step(a);
		rb = sqlite3_step(b);
		if (ra != SQLITE_ROW || rb != SQLITE_ROW)
			break;
		na = (const char *)sqlite3_column_text(a, 1);
		nb = (const char *)sqlite3_column_text(b, 1);
		sa = (const char *)sqlite3_column_text(a, 2);
		sb = (const char *)sqlite3_column_text(b, 2);
		if (na == NULL || nb == NULL || strcmp(na, nb) != 0 ||
		    (sa == NULL) != (sb == NULL) ||
		    (sa != NULL && strcmp(sa, sb) != 0))
			rc = sim_err_set(err, SIM_EINVAL, "%s: not a colosim "
					 "results database of schema %d: "
					 "'%.40s' differs from what this "
					 "colosim creates ('%.40s')", s->path,
					 s->version, nb ? nb : "(null)",
					 na ? na : "(null)");
	}
	if (rc == 0 && (ra == SQLITE_ROW || rb == SQLITE_ROW))
		rc = sim_err_set(err, SIM_EINVAL, "%s: not a colosim results "
				 "database of schema %d: '%s' %s", s->path,
				 s->version, ra == SQLITE_ROW ?
				 (const char *)sqlite3_column_text(a, 1) :
				 (const char *)sqlite3_column_text(b, 1),
				 ra == SQLITE_ROW ? "is missing" :
				 "is not ours");
	else if (rc == 0 && (ra != SQLITE_DONE || rb != SQLITE_DONE))
		rc = db_fail(s, rb != SQLITE_DONE ? rb : ra, "schema check",
			     err);
out:
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	sqlite3_close(ref);
	return rc;
}

/* Applies the missing migrations, one transaction each. */
static int migrate(struct store *s, struct sim_err *err)
{
	char sql[128];
	int rc;

	while (s->version < STORE_SCHEMA_VERSION) {
		int v = s->version;
		const char *const *step;
		snprintf(sql, sizeof sql, "PRAGMA application_id = %d;"
			 "PRAGMA user_version = %d", STORE_APP_ID, v + 1);
		if ((rc = exec(s, "BEGIN IMMEDIATE", "begin migration", err)))
			return rc;
		for (step = migrations[v]; rc == 0 && *step != NULL; step++)
			rc = exec(s, *step, "migrate schema", err);
		if (rc != 0 ||
		    (rc = exec(s, sql, "set schema version", err)) != 0 ||
		    (rc = exec(s, "COMMIT", "commit migration", err)) != 0) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			return rc;
		}
		s->version = v + 1;
	}
	return 0;
}

/*
** Read-only media: a WAL database whose -shm file is absent and cannot be
** created (a read-only folder, a CD, a read-only bind mount) fails its
** first read with SQLITE_READONLY or SQLITE_CANTOPEN.  Then nobody can be
** writing it either, so it is reopened with immutable=1, which reads the
** file without the shared-memory index.  Any other failure is left to
** check_version to report.
*/
static int probe_readonly(struct store *s, struct sim_err *err)
{
	char uri[8192], *d = uri;
	const char *p;
	int rc = sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_schema",
			      NULL, NULL, NULL);

	rc &= 0xff;             /* the primary code of an extended one */
	if ((rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN) ||
	    strncmp(s->path, "file:", 5) == 0)
		return 0;
	d += snprintf(uri, sizeof uri, "file:");
	for (p = s->path; *p && d < uri + sizeof uri - 20; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			d += snprintf(d, 4, "%%%02X", (unsigned char)*p);
		else
			*d++ = *p;
	}
	snprintf(d, 20, "?immutable=1");
	sqlite3_close(s->db);
	s->db = NULL;
	rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY |
			     SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, "cannot open (read-only media)", err);
	sqlite3_extended_result_codes(s->db, 1);
	return 0;
}

int store_open(struct store **out, const char *path, enum store_mode mode,
	       struct sim_err *err)
{
	struct store *s;
	int flags, rc;

	*out = NULL;
	s = calloc(1, sizeof *s);
	if (s == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	s->path = malloc(strlen(path) + 1);
	if (s->path == NULL) {
		free(s);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	strcpy(s->path, path);
	if (strncmp(path, "file:", 5) != 0) {
		struct stat stb;
		if (mode == STORE_READ && stat(path, &stb) != 0) {
			rc = sim_err_set(err, SIM_ENOENT, "%s: no such results "
					 "database", path);
			goto fail;
		}
		if (stat(path, &stb) == 0 && S_ISDIR(stb.st_mode)) {
			rc = sim_err_set(err, SIM_EINVAL, "%s: is a directory, "
					 "expected a results database file",
					 path);
			goto fail;
		}
	}
	flags = (mode == STORE_WRITE ? SQLITE_OPEN_READWRITE |
		 SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI;
	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		rc = db_fail(s, rc, "cannot open", err);
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	if ((rc = sqlite3_busy_timeout(s->db, 5000)) != SQLITE_OK) {
		rc = db_fail(s, rc, "busy timeout", err);
		goto fail;
	}
	if (mode == STORE_READ && (rc = probe_readonly(s, err)) != 0)
		goto fail;
	if (mode == STORE_WRITE && sqlite3_db_readonly(s->db, "main") != 0) {
		rc = sim_err_set(err, SIM_EIO, "%s: the database is read-only; "
				 "cannot store results (check the permissions "
				 "of the file and its folder, or use -o)",
				 path);
		goto fail;
	}
	if ((rc = check_version(s, err)) != 0)
		goto fail;
	if (mode == STORE_READ) {
		/* An older schema stays readable: every table of schema 1 is
		** still there; what came later is checked by its readers
		** (store_schema_version). */
		if (s->version == 0) {
			rc = sim_err_set(err, SIM_EINVAL, "%s: not a colosim "
					 "results database (empty)", path);
			goto fail;
		}
		if ((rc = exec(s, "PRAGMA query_only = ON", "query_only",
			       err)) != 0 || (rc = check_schema(s, err)) != 0)
			goto fail;
	} else {
		sqlite3_stmt *st;
		const char *jm = NULL;
		rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1,
					&st, NULL);
		if (rc != SQLITE_OK) {
			rc = db_fail(s, rc, "journal_mode", err);
			goto fail;
		}
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			jm = (const char *)sqlite3_column_text(st, 0);
		if (jm == NULL || strcmp(jm, "wal") != 0) {
			if (rc == SQLITE_ROW || rc == SQLITE_DONE)
				rc = sim_err_set(err, SIM_EIO, "%s: cannot switch "
						 "to WAL journal mode (got %s); "
						 "is the folder writable and "
						 "local?", path,
						 jm ? jm : "nothing");
			else
				rc = db_fail(s, rc, "journal_mode", err);
			sqlite3_finalize(st);
			goto fail;
		}
		sqlite3_finalize(st);
		if ((rc = exec(s, "PRAGMA foreign_keys = ON;"
			       "PRAGMA synchronous = NORMAL", "pragmas",
			       err)) != 0 ||
		    (rc = migrate(s, err)) != 0 ||
		    (rc = check_schema(s, err)) != 0)
			goto fail;
		s->writer = 1;
	}
	*out = s;
	return 0;
fail:
	store_close(s);
	return rc;
}

void store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < ST__COUNT; i++)
		sqlite3_finalize(s->st[i]);
	/* The last writer out leaves a rollback-journal database: one file,
	** readable from read-only media (a WAL database needs its -shm file
	** there).  Best effort: with another connection open the switch
	** fails and the file stays in WAL mode, which the next writer keeps
	** and readers of read-only copies open as immutable. */
	if (s->writer) {
		sqlite3_busy_timeout(s->db, 0);
		sqlite3_exec(s->db, "PRAGMA journal_mode = DELETE", NULL, NULL,
			     NULL);
	}
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

int store_schema_version(struct store *s)
{
	return s->version;
}

/* The prepared statement i, reset and unbound, or NULL with err set. */
static sqlite3_stmt *stmt(struct store *s, int i, struct sim_err *err)
{
	int rc;

	if (s->st[i] == NULL) {
		rc = sqlite3_prepare_v2(s->db, stmt_sql[i], -1, &s->st[i], NULL);
		if (rc != SQLITE_OK) {
			db_fail(s, rc, "prepare", err);
			return NULL;
		}
	}
	sqlite3_reset(s->st[i]);
	sqlite3_clear_bindings(s->st[i]);
	return s->st[i];
}

/* Steps a statement that returns no row. */
static int step_done(struct store *s, sqlite3_stmt *st, const char *what,
		     struct sim_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, rc, what, err);
}

static int bind_text(struct store *s, sqlite3_stmt *st, int i, const char *v,
		     struct sim_err *err)
{
	int rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT)
		   : sqlite3_bind_null(st, i);

	return rc == SQLITE_OK ? 0 : db_fail(s, rc, "bind", err);
}

static int bind_double(struct store *s, sqlite3_stmt *st, int i, double v,
		       struct sim_err *err)
{
	int rc = sqlite3_bind_double(st, i, v);   /* NaN is stored as NULL */

	return rc == SQLITE_OK ? 0 : db_fail(s, rc, "bind", err);
}

static int bind_int(struct store *s, sqlite3_stmt *st, int i, int64_t v,
		    struct sim_err *err)
{
	int rc = sqlite3_bind_int64(st, i, v);

	return rc == SQLITE_OK ? 0 : db_fail(s, rc, "bind", err);
}

int store_find_experiment(struct store *s, const char *name, int64_t *id,
			  char *hash, struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT id, config_hash FROM "
				    "experiments WHERE name = ?1", -1, &st,
				    NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, rc, "find experiment", err);
	if ((rc = sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT)) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(s, rc, "bind", err);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *h = sqlite3_column_text(st, 1);
		*id = sqlite3_column_int64(st, 0);
		if (hash != NULL)
			snprintf(hash, 17, "%s", h ? (const char *)h : "");
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return sim_err_set(err, SIM_ENOENT, "%s: no experiment named "
				   "'%s'", s->path, name);
	return db_fail(s, rc, "find experiment", err);
}

int store_add_experiment(struct store *s, const struct exp_config *cfg,
			 long total_runs, int64_t *id, struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "INSERT INTO experiments(name, "
				"config_path, config_text, config_hash, "
				"colosim_version, total_runs) VALUES "
				"(?1,?2,?3,?4,?5,?6)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, "add experiment", err);
	if ((rc = bind_text(s, st, 1, cfg->name, err)) ||
	    (rc = bind_text(s, st, 2, cfg->path, err)) ||
	    (rc = bind_text(s, st, 3, cfg->text, err)) ||
	    (rc = bind_text(s, st, 4, cfg->hash, err)) ||
	    (rc = bind_text(s, st, 5, COLOSIM_VERSION, err)) ||
	    (rc = bind_int(s, st, 6, total_runs, err))) {
		sqlite3_finalize(st);
		return rc;
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return sim_err_set(err, SIM_EEXIST, "%s: experiment '%s' "
				   "already exists", s->path, cfg->name);
	if (rc != SQLITE_DONE)
		return db_fail(s, rc, "add experiment", err);
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_delete_experiment(struct store *s, int64_t id, struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = exec(s, "BEGIN IMMEDIATE", "begin", err)) != 0)
		return rc;
	rc = sqlite3_prepare_v2(s->db, "DELETE FROM experiments WHERE id = ?1",
				-1, &st, NULL);
	if (rc != SQLITE_OK) {
		rc = db_fail(s, rc, "delete experiment", err);
	} else {
		if ((rc = bind_int(s, st, 1, id, err)) == 0)
			rc = step_done(s, st, "delete experiment", err);
		sqlite3_finalize(st);
	}
	if (rc == 0)
		rc = exec(s, "COMMIT", "commit", err);
	if (rc != 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int store_run_done(struct store *s, int64_t id, const char *key, int *done,
		   struct sim_err *err)
{
	sqlite3_stmt *st = stmt(s, ST_RUN_DONE, err);
	int rc;

	*done = 0;
	if (st == NULL)
		return err->code;
	if ((rc = bind_int(s, st, 1, id, err)) ||
	    (rc = bind_text(s, st, 2, key, err)))
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		*done = v != NULL && strcmp((const char *)v, "done") == 0;
		rc = SQLITE_DONE;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, rc, "run lookup", err);
}

int store_count_done(struct store *s, int64_t id, long *n,
		     struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM runs WHERE "
				    "experiment_id = ?1 AND status = 'done'",
				    -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, rc, "count runs", err);
	if ((rc = bind_int(s, st, 1, id, err)) != 0) {
		sqlite3_finalize(st);
		return rc;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(s, rc, "count runs", err);
}

static int put_params(struct store *s, int64_t run, const char *kind,
		      const struct exp_kv *kv, size_t n, struct sim_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		sqlite3_stmt *st = stmt(s, ST_INS_PARAM, err);
		if (st == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, kind, err)) ||
		    (rc = bind_text(s, st, 3, kv[i].key, err)) ||
		    (rc = bind_text(s, st, 4, kv[i].value, err)) ||
		    (rc = step_done(s, st, "store parameter", err)))
			return rc;
	}
	return 0;
}

static const char *job_status(int st)
{
	return st == 0 ? "done" : st == 1 ? "failed" : "unfinished";
}

/* The named histograms and time series of res (schema 3). */
static int put_named(struct store *s, int64_t run,
		     const struct run_result *res, struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < res->nhists; i++) {
		const struct res_hist_bin *b = &res->hists[i];
		if ((st = stmt(s, ST_INS_HIST, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, b->name, err)) ||
		    (rc = bind_double(s, st, 3, b->lo, err)) ||
		    (rc = bind_double(s, st, 4, b->hi, err)) ||
		    (rc = bind_int(s, st, 5, (int64_t)b->count, err)) ||
		    (rc = step_done(s, st, "store histogram", err)))
			return rc;
	}
	for (i = 0; i < res->npoints; i++) {
		const struct res_point *p = &res->points[i];
		if ((st = stmt(s, ST_INS_POINT, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, p->name, err)) ||
		    (rc = bind_double(s, st, 3, p->t_s, err)) ||
		    (rc = bind_double(s, st, 4, p->value, err)) ||
		    (rc = step_done(s, st, "store time series", err)))
			return rc;
	}
	return 0;
}

/* One services row per inference job of res (schema 2). */
static int put_services(struct store *s, int64_t run,
			const struct run_result *res, struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < res->njobs; i++) {
		const struct res_job *j = &res->jobs[i];
		if (strcmp(j->kind, "infer") != 0 &&
		    strcmp(j->kind, "llm") != 0)
			continue;
		if ((st = stmt(s, ST_INS_SVC, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, j->id, err)) ||
		    (rc = bind_double(s, st, 3, j->slo_ms, err)) ||
		    (rc = bind_int(s, st, 4, (int64_t)j->req_total, err)) ||
		    (rc = bind_int(s, st, 5, (int64_t)j->req_served, err)) ||
		    (rc = bind_int(s, st, 6, (int64_t)j->req_slo_ok, err)) ||
		    (rc = bind_double(s, st, 7, j->req_total > 0 ?
				      (double)j->req_slo_ok /
				      (double)j->req_total : (double)NAN,
				      err)) ||
		    (rc = bind_double(s, st, 8, j->lat_mean_ms, err)) ||
		    (rc = bind_double(s, st, 9, j->lat_p50_ms, err)) ||
		    (rc = bind_double(s, st, 10, j->lat_p95_ms, err)) ||
		    (rc = bind_double(s, st, 11, j->lat_p99_ms, err)) ||
		    (rc = step_done(s, st, "store service", err)))
			return rc;
	}
	return 0;
}

/* One placements row per interval of res (schema 2); NULL slice: the
** whole GPU; NULL end_s: still placed at the end of the run. */
static int put_placements(struct store *s, int64_t run,
			  const struct run_result *res, struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	for (i = 0; i < res->nplace; i++) {
		const struct res_place *p = &res->place[i];
		if (p->job < 0 || (size_t)p->job >= res->njobs)
			return sim_err_set(err, SIM_EINVAL, "%s: placement %zu "
					   "names job %d of %zu", s->path, i,
					   p->job, res->njobs);
		if ((st = stmt(s, ST_INS_PLACE, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, res->jobs[p->job].id, err)) ||
		    (rc = bind_int(s, st, 3, p->gpu, err)) ||
		    (rc = p->slice >= 0 ? bind_int(s, st, 4, p->slice, err) :
		     bind_text(s, st, 4, NULL, err)) ||
		    (rc = bind_double(s, st, 5, p->start_s, err)) ||
		    (rc = bind_double(s, st, 6, p->end_s >= 0 ? p->end_s :
				      (double)NAN, err)) ||
		    (rc = bind_int(s, st, 7, (int64_t)p->mem_bytes, err)) ||
		    (rc = bind_double(s, st, 8, p->sm_cap, err)) ||
		    (rc = step_done(s, st, "store placement", err)))
			return rc;
	}
	return 0;
}

/* The body of store_put_run, inside its transaction. */
static int put_run_rows(struct store *s, int64_t id,
			const struct exp_run_spec *spec,
			enum store_status status, const char *errmsg,
			const struct run_result *res, struct sim_err *err)
{
	sqlite3_stmt *st;
	char seed[24];
	int64_t run;
	size_t i;
	int rc;

	if ((st = stmt(s, ST_DEL_RUN, err)) == NULL)
		return err->code;
	if ((rc = bind_int(s, st, 1, id, err)) ||
	    (rc = bind_text(s, st, 2, spec->key, err)) ||
	    (rc = step_done(s, st, "replace run", err)))
		return rc;
	if ((st = stmt(s, ST_INS_RUN, err)) == NULL)
		return err->code;
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)spec->seed);
	if ((rc = bind_int(s, st, 1, id, err)) ||
	    (rc = bind_int(s, st, 2, spec->index, err)) ||
	    (rc = bind_text(s, st, 3, spec->key, err)) ||
	    (rc = bind_text(s, st, 4, spec->policy, err)) ||
	    (rc = bind_text(s, st, 5, spec->variant, err)) ||
	    (rc = bind_text(s, st, 6, spec->setting, err)) ||
	    (rc = bind_int(s, st, 7, spec->replication, err)) ||
	    (rc = bind_text(s, st, 8, seed, err)) ||
	    (rc = bind_text(s, st, 9, spec->trace, err)) ||
	    (rc = bind_text(s, st, 10, spec->cluster, err)) ||
	    (rc = bind_double(s, st, 11, spec->horizon_s, err)) ||
	    (rc = bind_text(s, st, 12, status == STORE_RUN_DONE ? "done" :
			    "failed", err)) ||
	    (rc = bind_text(s, st, 13, errmsg, err)))
		return rc;
	if (res != NULL) {
		if ((rc = bind_double(s, st, 14, res->wall_s, err)) ||
		    (rc = bind_int(s, st, 15, (int64_t)res->events, err)))
			return rc;
	}
	if ((rc = step_done(s, st, "store run", err)) != 0)
		return rc;
	run = sqlite3_last_insert_rowid(s->db);
	if ((rc = put_params(s, run, "param", spec->params, spec->nparams,
			     err)) ||
	    (rc = put_params(s, run, "gen", spec->gen, spec->ngen, err)) ||
	    (rc = put_params(s, run, "sweep", spec->sweep, spec->nsweep, err)))
		return rc;
	if (res == NULL)
		return 0;
	for (i = 0; i < res->nmetrics; i++) {
		/* NaN: the metric does not apply to this run (no request
		** served, no training job done): not stored (RESULTS.md). */
		if (isnan(res->metrics[i].value))
			continue;
		if ((st = stmt(s, ST_INS_METRIC, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, res->metrics[i].name, err)) ||
		    (rc = bind_double(s, st, 3, res->metrics[i].value, err)) ||
		    (rc = step_done(s, st, "store metric", err)))
			return rc;
	}
	for (i = 0; i < res->njobs; i++) {
		const struct res_job *j = &res->jobs[i];
		if ((st = stmt(s, ST_INS_JOB, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_text(s, st, 2, j->id, err)) ||
		    (rc = bind_text(s, st, 3, j->kind, err)) ||
		    (rc = bind_text(s, st, 4, j->model, err)) ||
		    (rc = bind_int(s, st, 5, j->gpus, err)) ||
		    (rc = bind_int(s, st, 6, j->first_gpu, err)) ||
		    (rc = bind_text(s, st, 7, job_status(j->status), err)) ||
		    (rc = bind_double(s, st, 8, j->submit_s, err)) ||
		    (rc = bind_double(s, st, 9, j->start_s, err)) ||
		    (rc = bind_double(s, st, 10, j->end_s, err)) ||
		    (rc = bind_double(s, st, 11, j->jct_s, err)) ||
		    (rc = bind_double(s, st, 12, j->queue_s, err)) ||
		    (rc = bind_double(s, st, 13, j->slowdown, err)) ||
		    (rc = step_done(s, st, "store job", err)))
			return rc;
	}
	if ((rc = put_services(s, run, res, err)) != 0 ||
	    (rc = put_placements(s, run, res, err)) != 0 ||
	    (rc = put_named(s, run, res, err)) != 0)
		return rc;
	for (i = 0; i < res->nseries; i++) {
		const struct res_series *p = &res->series[i];
		if ((st = stmt(s, ST_INS_SERIES, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_int(s, st, 2, p->gpu, err)) ||
		    (rc = bind_double(s, st, 3, p->t_s, err)) ||
		    (rc = bind_double(s, st, 4, p->hbm_frac, err)) ||
		    (rc = bind_double(s, st, 5, p->sm_frac, err)) ||
		    (rc = step_done(s, st, "store series", err)))
			return rc;
	}
	for (i = 0; i < res->nlat; i++) {
		const struct res_lat_bin *b = &res->lat[i];
		if ((st = stmt(s, ST_INS_LAT, err)) == NULL)
			return err->code;
		if ((rc = bind_int(s, st, 1, run, err)) ||
		    (rc = bind_double(s, st, 2, b->lo_ms, err)) ||
		    (rc = bind_double(s, st, 3, b->hi_ms, err)) ||
		    (rc = bind_int(s, st, 4, (int64_t)b->count, err)) ||
		    (rc = step_done(s, st, "store latency", err)))
			return rc;
	}
	return 0;
}

int store_put_run(struct store *s, int64_t id, const struct exp_run_spec *spec,
		  enum store_status status, const char *errmsg,
		  const struct run_result *res, struct sim_err *err)
{
	int rc;

	if (status == STORE_RUN_DONE && res == NULL)
		return sim_err_set(err, SIM_EINVAL, "store_put_run: a done run "
				   "needs its result");
	if ((rc = exec(s, "BEGIN IMMEDIATE", "begin run", err)) != 0)
		return rc;
	rc = put_run_rows(s, id, spec, status, errmsg, res, err);
	if (rc == 0)
		rc = exec(s, "COMMIT", "commit run", err);
	if (rc != 0 && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}
