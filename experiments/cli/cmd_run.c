/*
** cmd_run.c: `colosim run CONFIG [-j N] [--resume] [--overwrite] [-o DB]
** [--devices DIR]`:
** runs an experiment's matrix in worker processes into its SQLite store.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/config.h"
#include "experiments/runner.h"
#include "experiments/warn.h"
#include "experiments/cli/cli.h"

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
	(void)sig;
	stop_flag = 1;
	signal(SIGINT, SIG_DFL);      /* a second Ctrl-C kills */
}

enum { O_JOBS, O_RESUME, O_OVERWRITE, O_DB, O_DEVICES, O_NO_FORK, O_MPI };

static const struct cli_opt opts[] = {
	[O_JOBS] = { NULL, 'j', "N", "worker processes (default 1)" },
	[O_RESUME] = { "resume", 0, NULL, "run only what is missing from an "
		       "earlier, stopped run" },
	[O_OVERWRITE] = { "overwrite", 0, NULL, "replace a stored experiment "
			  "of the same name" },
	[O_DB] = { NULL, 'o', "DB", "the database (default: the config's db, "
		   "or NAME.db)" },
	[O_DEVICES] = { "devices", 0, "DIR", "device profiles (default: the "
			"config's devices, else\n$COLOSIM_DEVICES, ./models/devices, "
			"the binary's checkout\nor prefix; see colosim list "
			"devices --help)" },
	[O_NO_FORK] = { "no-fork", 0, NULL, "simulate in this process "
			"(debugging)" },
	[O_MPI] = { "mpi", 0, NULL, "run under MPI (automatic under mpirun or "
		    "srun): rank 0\nhands out runs and writes DB, the other "
		    "ranks\nsimulate (docs/SCALE.md)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"run", "colosim run CONFIG [-j N] [--resume] [--overwrite] [-o DB]\n"
	"                   [--devices DIR] [--no-fork] [--mpi]",
	"Runs every run of the experiment CONFIG (an INI file, docs/RESULTS.md):"
	"\nthe cross product of its [sweep] and its replications, in N worker\n"
	"processes, one transaction per run into the SQLite database.",
	opts, "Ctrl-C stops after the runs in flight; --resume continues."
};

struct run_args {
	struct exp_run_request req;
	struct exp_runner_opts o;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct run_args *r = ctx;
	unsigned long long u;

	switch (opt) {
	case CLI_OPERAND:
		if (r->req.config_path != NULL)
			return cli_usage_error("run: one config only");
		r->req.config_path = v;
		return 0;
	case O_JOBS:
		if (cli_parse_u64(v, 1, 256, &u))
			return cli_usage_error("run: -j '%s': expected 1..256",
					       v);
		r->o.jobs = (int)u;
		return 0;
	case O_RESUME: r->req.resume = 1; return 0;
	case O_OVERWRITE: r->req.overwrite = 1; return 0;
	case O_DB: r->req.db_path = v; return 0;
	case O_DEVICES: r->req.devices_dir = v; return 0;
	case O_NO_FORK: r->o.no_fork = 1; return 0;
	case O_MPI: r->o.mpi = 1; return 0;
	}
	return 2;
}

static void progress(void *ctx, const struct exp_progress *p)
{
	char line[160];

	(void)ctx;
	exp_progress_line(p, line, sizeof line);
	fprintf(stderr, "\r%-78s", line);
	fflush(stderr);
}

/* The end-of-run warnings of the config's experiment (warn.h); a failure
** to compute them is itself one warning, never the run's failure. */
static void run_warnings(const char *config_path, const char *db)
{
	struct exp_config *cfg = NULL;
	struct exp_warnings w = { NULL, 0 };
	struct store *st = NULL;
	struct sim_err err = { 0, "" };

	if (exp_config_load(&cfg, config_path, &err) == 0 &&
	    store_open(&st, db, STORE_READ, &err) == 0 &&
	    exp_warnings_build(st, cfg->name, NULL, &w, &err) == 0)
		cli_print_warnings(&w);
	else
		fprintf(stderr, "colosim: warning: no experiment warnings: "
			"%s\n", err.msg);
	exp_warnings_fini(&w);
	store_close(st);
	exp_config_free(cfg);
}

static int run(int argc, char **argv)
{
	struct run_args ra;
	struct exp_run_request *req = &ra.req;
	struct exp_runner_opts *o = &ra.o;
	struct exp_run_stats stats;
	struct sim_err err = { 0, "" };
	struct sigaction sa;
	char db[4096] = "";
	int rc;

	memset(&ra, 0, sizeof ra);
	memset(&stats, 0, sizeof stats);
	o->jobs = 1;
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &ra)) == CLI_HELP)
		printf("MPI: %s\n", exp_mpi_built() ? exp_mpi_library() :
		       "not built in (make MPI=1)");
	if (rc != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (req->config_path == NULL)
		return cli_missing("run", "CONFIG", "colosim run CONFIG [-j N] "
				   "[--resume] [--overwrite] [-o DB]");
	if (req->resume && req->overwrite)
		return cli_usage_error("run: --resume and --overwrite exclude "
				       "each other");
	o->simulate = exp_simulate;
	o->stop = &stop_flag;
	if (exp_mpi_launched() != 0)
		o->mpi = 1;
	if (isatty(2))
		o->progress = progress;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	rc = exp_run_experiment(req, o, &stats, db, sizeof db, &err);
	if (stats.rank > 0)            /* rank 0 reports for the sweep */
		return rc == 0 || err.code != SIM_ELIB ? (rc != 0)
						       : cli_report(&err);
	if (o->progress != NULL)
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
	run_warnings(req->config_path, db);
	return stats.failed > 0 ? 1 : 0;
}

const struct cli_cmd cli_cmd_run = {
	"run", "run an experiment's sweep into its SQLite results store", run
};
