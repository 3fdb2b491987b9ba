/*
** cmd_run.c: `colosim run CONFIG [-j N] [--resume] [--overwrite] [-o DB]`:
** runs an experiment's matrix in worker processes into its SQLite store.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/runner.h"
#include "experiments/cli/cli.h"

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
	(void)sig;
	stop_flag = 1;
	signal(SIGINT, SIG_DFL);      /* a second Ctrl-C kills */
}

static void help(FILE *f)
{
	fprintf(f,
"usage: colosim run CONFIG [-j N] [--resume] [--overwrite] [-o DB] [--no-fork]\n"
"                  [--mpi]\n"
"\n"
"Runs every run of the experiment CONFIG (an INI file, docs/RESULTS.md):\n"
"the cross product of its [sweep] and its replications, in N worker\n"
"processes, one transaction per run into the SQLite database.\n"
"\n"
"  -j N          worker processes (default 1)\n"
"  --resume      run only what is missing from an earlier, stopped run\n"
"  --overwrite   replace a stored experiment of the same name\n"
"  -o DB         the database (default: the config's db, or NAME.db)\n"
"  --no-fork     simulate in this process (debugging)\n"
"  --mpi         run under MPI (automatic under mpirun or srun): rank 0\n"
"                hands out runs and writes DB, the other ranks simulate\n"
"                (docs/SCALE.md)\n"
"\n"
"Ctrl-C stops after the runs in flight; --resume continues.\n"
"MPI: %s\n", exp_mpi_built() ? exp_mpi_library() : "not built in (make MPI=1)");
}

static void progress(void *ctx, const struct exp_progress *p)
{
	char line[160];

	(void)ctx;
	exp_progress_line(p, line, sizeof line);
	fprintf(stderr, "\r%-78s", line);
	fflush(stderr);
}

static int run(int argc, char **argv)
{
	struct exp_run_request req;
	struct exp_runner_opts o;
	struct exp_run_stats stats;
	struct sim_err err = { 0, "" };
	struct sigaction sa;
	char db[4096] = "";
	unsigned long long u;
	int i, rc;

	memset(&req, 0, sizeof req);
	memset(&o, 0, sizeof o);
	memset(&stats, 0, sizeof stats);
	o.jobs = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			help(stdout);
			return 0;
		} else if (strcmp(a, "--resume") == 0) {
			req.resume = 1;
		} else if (strcmp(a, "--overwrite") == 0) {
			req.overwrite = 1;
		} else if (strcmp(a, "--no-fork") == 0) {
			o.no_fork = 1;
		} else if (strcmp(a, "--mpi") == 0) {
			o.mpi = 1;
		} else if (strcmp(a, "-j") == 0 || strcmp(a, "-o") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("run: %s needs a value",
						       a);
			if (a[1] == 'o') {
				req.db_path = argv[++i];
			} else if (cli_parse_u64(argv[++i], &u) || u < 1 ||
				   u > 256) {
				return cli_usage_error("run: -j '%s': expected "
						       "1..256", argv[i]);
			} else {
				o.jobs = (int)u;
			}
		} else if (a[0] == '-') {
			return cli_usage_error("run: unknown option '%s' (try "
					       "--help)", a);
		} else if (req.config_path != NULL) {
			return cli_usage_error("run: one config only");
		} else {
			req.config_path = a;
		}
	}
	if (req.config_path == NULL)
		return cli_missing("run", "CONFIG", "colosim run CONFIG [-j N] "
				   "[--resume] [--overwrite] [-o DB]");
	if (req.resume && req.overwrite)
		return cli_usage_error("run: --resume and --overwrite exclude "
				       "each other");
	o.simulate = exp_simulate;
	o.stop = &stop_flag;
	if (exp_mpi_launched() != 0)
		o.mpi = 1;
	if (isatty(2))
		o.progress = progress;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	rc = exp_run_experiment(&req, &o, &stats, db, sizeof db, &err);
	if (stats.rank > 0)            /* rank 0 reports for the sweep */
		return rc == 0 || err.code != SIM_ELIB ? (rc != 0)
						       : cli_report(&err);
	if (o.progress != NULL)
		fputc('\n', stderr);
	if (rc == SIM_ESTOP) {
		fprintf(stderr, "colosim: stopped; %zu runs stored in %s; "
			"continue with --resume\n", stats.done, db);
		return 130;
	}
	if (rc != 0)
		return cli_report(&err);
	if (stats.failed > 0)
		fprintf(stderr, "colosim: run %s%s\n", stats.first_error,
			stats.failed > 1 ? " (and others: see the runs table's "
			"error column)" : "");
	fprintf(stderr, "run: %zu runs (%zu done now, %zu already stored, "
		"%zu failed) in %s\n", stats.total, stats.done, stats.skipped,
		stats.failed, db);
	return stats.failed > 0 ? 1 : 0;
}

const struct cli_cmd cli_cmd_run = {
	"run", "run an experiment's sweep into its SQLite results store", run
};
