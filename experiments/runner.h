/*
** runner.h: runs an experiment's matrix in worker processes and stores
** every run in the results store.
**
** Each run is simulated in a child process (fork); the child sends its
** run_result back over a pipe and exits, and the parent, which alone
** writes the database, stores it in one transaction.  A crashing simulator
** therefore costs one run (stored with status 'failed' and the signal or
** exit status), never the sweep.  Runs already stored with status 'done'
** are skipped, which is what --resume means.  The caller's SIGINT handler
** sets *stop; the runner then starts nothing new, waits for the runs in
** flight, stores them and returns SIM_ESTOP.
**
** Under MPI (runner_mpi.c, built when the build finds OpenMPI) the same
** sweep runs across machines: rank 0 does everything the parent does here
** (reads the config, skips stored runs, writes the one database) and hands
** runs out one at a time; every other rank simulates each run it is given
** in a forked child, as a worker process here would, and sends back the
** same message.  The database is the same as with -j 1 (docs/SCALE.md).
**
** The simulator is a function pointer so that tests drive the runner with
** a fake, deterministic one; `colosim run` passes exp_simulate, which the
** simulator proper defines (sim/).  Wall-clock time is read here (rates,
** ETA, per-run wall time), never in model code.
*/
#ifndef COLOSIM_EXPERIMENTS_RUNNER_H
#define COLOSIM_EXPERIMENTS_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "experiments/config.h"
#include "sim/world/result.h"
#include "experiments/store.h"
#include "sim/err.h"

/*
** Simulates one run: fills out (initialised by the caller, who frees it)
** and returns 0, or a negative SIM_E* code with a message in err.  Called in
** a worker process; it may not touch the results store.
*/
typedef int (*exp_simulate_fn)(const struct exp_run_spec *spec,
			       struct run_result *out, struct sim_err *err);

/* The real simulator, defined by the simulator layer (not in this
** module): what `colosim run` passes as the simulate function. */
int exp_simulate(const struct exp_run_spec *spec, struct run_result *out,
		 struct sim_err *err);

struct exp_progress {
	size_t total;              /* runs in the matrix */
	size_t skipped;            /* already stored (resume) */
	size_t done;               /* finished in this call, stored done */
	size_t failed;             /* finished in this call, stored failed */
	size_t running;            /* in flight now */
	double elapsed_s;          /* since the runner started */
	double rate_per_s;         /* finished runs per second, this call */
	double eta_s;              /* remaining / rate; NaN before the first */
	int stopping;              /* a stop was requested */
	const struct exp_run_spec *last;   /* the run just finished, or NULL */
	const char *last_error;    /* its error message when it failed */
};

typedef void (*exp_progress_fn)(void *ctx, const struct exp_progress *p);

/*
** Formats the one-line progress display of `colosim run` into buf:
**   "[ 37/120] 30.8%  2.41 runs/s  ETA 0:34  (4 running, 2 failed)"
** (skipped runs count as done; the ETA is "--:--" before the first run).
*/
void exp_progress_line(const struct exp_progress *p, char *buf, size_t size);

struct exp_runner_opts {
	int jobs;                  /* worker processes (>= 1) */
	int no_fork;               /* simulate in this process (debugging) */
	exp_simulate_fn simulate;
	exp_progress_fn progress;  /* NULL: silent; called after each run and
				      about once a second */
	void *progress_ctx;
	volatile sig_atomic_t *stop;   /* NULL: never stopped */
	int mpi;                   /* run under MPI (exp_run_experiment_mpi) */
};

struct exp_run_stats {
	size_t total, skipped, done, failed;
	int stopped;
	char first_error[320];        /* "KEY: message" of the first failure */
	int rank, ranks;              /* MPI rank and world size; 0, 1 without
					 MPI.  Only rank 0 has the counts */
};

/*
** Runs the runs of m not yet stored as done under experiment id of st,
** building each spec when its turn comes and freeing it once stored (the
** matrix is never materialized: memory is that of the runs in flight).
** Returns 0 when every run is stored (stats->failed may be > 0: those runs
** are stored with status 'failed' and their message); SIM_ESTOP when *stop
** was set (the runs in flight were stored); or an error (the store could
** not be written: everything stored before is kept).
*/
int exp_runner_run(struct store *st, int64_t id, struct exp_runs *m,
		   const struct exp_runner_opts *o, struct exp_run_stats *stats,
		   struct sim_err *err);

/*
** The whole of `colosim run` short of argument parsing and printing:
** loads the config, builds the matrix, opens the store (db_path, or the
** config's db when NULL), registers the experiment and runs it.
**   resume:    an experiment of the same name must exist with the same
**              config hash; its done runs are skipped.
**   overwrite: an existing experiment of the same name is deleted first.
**   neither:   an existing experiment of the same name is SIM_EEXIST.
** A stored experiment whose config hash differs is refused under resume.
** db_used (may be NULL) receives the database path (size PATH_MAX-ish).
*/
struct exp_run_request {
	const char *config_path;
	const char *db_path;       /* NULL: the config's db */
	int resume;
	int overwrite;
	const char *devices_dir;   /* --devices; NULL: the config's devices,
				      else dev_find_dir's search */
};

int exp_run_experiment(const struct exp_run_request *req,
		       const struct exp_runner_opts *o,
		       struct exp_run_stats *stats, char *db_used,
		       size_t db_used_size, struct sim_err *err);

/*
** MPI (runner_mpi.c).  exp_run_experiment with o->mpi set calls
** exp_run_experiment_mpi, which must run in every rank of the MPI job:
** it calls MPI_Init and MPI_Finalize itself.  Rank 0 loads the config and
** broadcasts its text, so the other ranks need only the traces it names
** (on a shared file system, under the same paths).  A world of one rank
** runs the sweep as without MPI (with -j workers); in a larger world
** o->jobs must be 1 (start one rank per core instead) and rank 0 only
** coordinates.  Ranks other than 0 return 0 with stats->rank set and no
** counts; rank 0 returns what exp_run_experiment would.  A failed MPI call
** is SIM_ELIB naming the call; MPI_Finalize is then skipped, so that the
** launcher tears the job down rather than waiting for a lost rank.
*/
int exp_run_experiment_mpi(const struct exp_run_request *req,
			   const struct exp_runner_opts *o,
			   struct exp_run_stats *stats, char *db_used,
			   size_t db_used_size, struct sim_err *err);

/* 1 when this colosim was built with MPI (make MPI=1, or MPI=auto finding
** it), else 0; exp_run_experiment_mpi then fails with SIM_ESTATE. */
int exp_mpi_built(void);

/* The MPI library this colosim was built with ("Open MPI v4.1.4, ..."),
** or "none".  A static string. */
const char *exp_mpi_library(void);

/*
** The world size an MPI launcher announced in the environment
** (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun, PMI_SIZE from MPICH's
** hydra and Slurm's PMI2), -1 when a launcher shows but not the size
** (PMIX_RANK alone: srun --mpi=pmix), or 0 when none is set: how
** `colosim run` knows, without --mpi, that it runs under mpirun or srun.
*/
int exp_mpi_launched(void);

#endif
