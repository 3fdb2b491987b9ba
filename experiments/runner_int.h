/*
** runner_int.h: what the fork runner (runner.c) shares with the MPI runner
** (runner_mpi.c).  Not a public interface: only those two include it.
**
** A run's outcome travels as one message, the same from a forked child
** over its pipe and from an MPI rank to rank 0: a header, the error text,
** then the run_result's metrics, jobs, series, latency and placement
** arrays as raw structs.  Raw structs need the same binary on both ends;
** the header carries the struct sizes, so a message from a different
** build is refused as garbled rather than misread.  How the child ended (its wait status)
** travels beside the message as a struct exp_exit, so that a crashed
** worker is reported the same way whichever runner started it.
*/
#ifndef COLOSIM_EXPERIMENTS_RUNNER_INT_H
#define COLOSIM_EXPERIMENTS_RUNNER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "experiments/runner.h"

/* A growable byte buffer holding one message. */
struct exp_wire {
	unsigned char *buf;
	size_t len, cap;
};

void exp_wire_fini(struct exp_wire *w);

/* How the process that produced a message ended. */
enum exp_exit_how {
	EXP_EXIT_OK = 0,           /* exited with status 0 (or ran inline) */
	EXP_EXIT_STATUS = 1,       /* exited with status code */
	EXP_EXIT_SIGNAL = 2,       /* killed by signal code */
	EXP_EXIT_LOST = 3          /* waitpid failed: unknown */
};

struct exp_exit {
	int32_t how;               /* enum exp_exit_how */
	int32_t code;
};

/*
** Simulates spec in one forked child (SIGINT ignored there) and collects
** its whole message into w (initialised here; the caller frees it with
** exp_wire_fini) and how it ended into ex.  0, or SIM_EIO when the pipe or
** fork could not be made, SIM_ENOMEM.  A child that crashed is not an
** error here: ex says so and exp_wire_outcome turns it into a failed run.
*/
int exp_run_forked(const struct exp_runner_opts *o,
		   const struct exp_run_spec *spec, struct exp_wire *w,
		   struct exp_exit *ex, struct sim_err *err);

/* The same in this process (--no-fork): ex is EXP_EXIT_OK. */
int exp_run_here(const struct exp_runner_opts *o,
		 const struct exp_run_spec *spec, struct exp_wire *w,
		 struct exp_exit *ex, struct sim_err *err);

/* A message for a run that failed before it could be simulated (msg). */
int exp_wire_error(struct exp_wire *w, const char *msg, struct sim_err *err);

/*
** Turns a message and how its process ended into a stored outcome: 0 and
** res filled (initialised here; the caller finalises it) for a simulated
** run; 1 and msg filled for a failed one (a simulator error, a crashed or
** exited worker, a truncated message); SIM_ENOMEM.
*/
int exp_wire_outcome(const struct exp_run_spec *spec, const unsigned char *buf,
		     size_t len, const struct exp_exit *ex,
		     struct run_result *res, char *msg, size_t msgsize);

/*
** The bookkeeping of one sweep: counts, progress, storing runs.  The
** matrix is streamed (exp_runs_get): whoever holds a run in flight (a
** fork runner's slot, rank 0's per-rank table) owns its spec and frees it
** once the run is stored.
*/
struct exp_sweep {
	struct store *st;
	int64_t id;
	struct exp_runs *m;
	const struct exp_runner_opts *o;
	struct exp_run_stats *stats;  /* zeroed by exp_sweep_begin */
	double t0;
	size_t running;               /* runs in flight; the runner counts */
};

/* Starts the sweep's clock and counts, and reports progress once. */
void exp_sweep_begin(struct exp_sweep *sw, struct store *st, int64_t id,
		     struct exp_runs *m,
		     const struct exp_runner_opts *o,
		     struct exp_run_stats *stats);

/* Calls the progress function (if any) with the current counts. */
void exp_sweep_report(struct exp_sweep *sw, const struct exp_run_spec *last,
		      const char *last_error);

/* Stores one finished run (done, or failed with msg) and counts it. */
int exp_sweep_store(struct exp_sweep *sw, const struct exp_run_spec *spec,
		    int failed, const char *msg, const struct run_result *res,
		    struct sim_err *err);

/* The end of a sweep whose loop returned rc: rc, or SIM_ESTOP when a stop
** left runs undone, or 0 after a last progress report. */
int exp_sweep_end(struct exp_sweep *sw, int rc, struct sim_err *err);

/* Monotonic seconds (rates, per-run wall time, polling). */
double exp_now_s(void);

/*
** Finds the device folder (--devices, else the config's devices, else the
** search of dev_find_dir) into devdir and points every run of m at it
** (and at the config's arrivals folder): the runs borrow devdir, which
** must outlive them.
*/
int exp_sweep_devices(const struct exp_run_request *req,
		      const struct exp_config *cfg, struct exp_runs *m,
		      char *devdir, size_t devdir_size, struct sim_err *err);

/*
** Everything exp_run_experiment does between building the matrix and
** running it: checks what would fail every run (devices from devdir),
** creates the database's folders, opens the store and registers (or
** finds, under resume, or deletes, under overwrite) the experiment.  On
** success *st (closed by the caller) and *id are set; db_used as in
** exp_run_experiment.
*/
int exp_sweep_open(const struct exp_run_request *req,
		   const struct exp_config *cfg, struct exp_runs *m,
		   const char *devdir, struct store **st, int64_t *id,
		   char *db_used, size_t db_used_size, struct sim_err *err);

/* exp_run_experiment without the MPI dispatch (a world of one rank). */
int exp_run_experiment_local(const struct exp_run_request *req,
			     const struct exp_runner_opts *o,
			     struct exp_run_stats *stats, char *db_used,
			     size_t db_used_size, struct sim_err *err);

#endif
