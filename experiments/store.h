/*
** store.h: the SQLite results store (schema: docs/RESULTS.md).
**
** One database holds any number of experiments; each run is written in one
** transaction, so a sweep killed at any moment leaves every finished run
** intact and nothing half-written.  The schema version is PRAGMA
** user_version (STORE_SCHEMA_VERSION); opening an older database for
** writing migrates it step by step, each step in its own transaction;
** opening it for reading leaves it as it is (every table of an older
** schema is still there; readers of later tables check
** store_schema_version); a newer one is refused (SIM_EVERSION) before
** anything is written.
** PRAGMA application_id marks colosim databases, so a foreign SQLite file
** is refused too.  The journal is WAL (readers never block the writer).
**
** Only the parent process of a sweep writes (see runner.h).  Every
** statement binds its parameters; every sqlite3_* result is checked and
** reported with sqlite3_errmsg.  A path may be a SQLite URI
** ("file:x.db?mode=ro").
*/
#ifndef COLOSIM_EXPERIMENTS_STORE_H
#define COLOSIM_EXPERIMENTS_STORE_H

#include <stdint.h>

#include <sqlite3.h>

#include "experiments/config.h"
#include "sim/world/result.h"
#include "sim/err.h"

#define STORE_SCHEMA_VERSION 3
/* Schema 2 added the services and placements tables and the export_*
** views (docs/RESULTS.md). */
#define STORE_SCHEMA_EXPORT 2
/* Schema 3 added the named histograms and time series a tenant kind
** reports (the LLM services' TTFT / TPOT distributions and KV-cache use). */
#define STORE_SCHEMA_HIST 3
#define STORE_APP_ID 0x636f6c6f        /* "colo" */

enum store_mode { STORE_READ = 0, STORE_WRITE = 1 };

enum store_status { STORE_RUN_DONE = 0, STORE_RUN_FAILED = 1 };

struct store;

/*
** Opens (STORE_WRITE: creates and migrates) the database at path.  On
** success *out owns the handle (store_close).  Errors, with the path and
** sqlite3_errmsg in err: SIM_EIO (cannot open, read-only file or folder,
** not a colosim database), SIM_EVERSION (schema newer than this colosim),
** SIM_ENOSPC (disk full), SIM_ENOENT (STORE_READ and no such file).
*/
int store_open(struct store **out, const char *path, enum store_mode mode,
	       struct sim_err *err);

/* Closes the database; accepts NULL. */
void store_close(struct store *s);

/* The underlying handle, for read queries (report, plot, tests).  Owned by
** the store; valid until store_close. */
sqlite3 *store_db(struct store *s);

/* The schema version of the open database. */
int store_schema_version(struct store *s);

/*
** Looks up experiment name: 0 and *id (and hash, 17 bytes, when not NULL),
** or SIM_ENOENT.
*/
int store_find_experiment(struct store *s, const char *name, int64_t *id,
			  char *hash, struct sim_err *err);

/* Records a new experiment from its config; *id receives its row id.
** SIM_EEXIST when the name is taken. */
int store_add_experiment(struct store *s, const struct exp_config *cfg,
			 long total_runs, int64_t *id, struct sim_err *err);

/* Deletes an experiment and everything stored under it (one transaction). */
int store_delete_experiment(struct store *s, int64_t id, struct sim_err *err);

/* *done = 1 when run key of experiment id is stored with status done. */
int store_run_done(struct store *s, int64_t id, const char *key, int *done,
		   struct sim_err *err);

/* The number of runs of experiment id with status done. */
int store_count_done(struct store *s, int64_t id, long *n,
		     struct sim_err *err);

/*
** Stores one run in one transaction, replacing an earlier row of the same
** key (a failed run being retried).  status STORE_RUN_DONE needs res;
** STORE_RUN_FAILED takes a message (res may be NULL).  On failure nothing
** of this run is kept and earlier runs are untouched; a full disk is
** SIM_ENOSPC.
*/
int store_put_run(struct store *s, int64_t id, const struct exp_run_spec *spec,
		  enum store_status status, const char *errmsg,
		  const struct run_result *res, struct sim_err *err);

#endif
