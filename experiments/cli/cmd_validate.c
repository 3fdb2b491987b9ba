/*
** cmd_validate.c: `colosim validate TRACE`: checks a trace against format
** v1 (docs/TRACE_FORMAT.md) and prints every error, up to a limit.
** Exit status: 0 clean, 2 when there is any error (or bad usage), 1 on a
** system failure (out of memory, read error).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "traces/trace.h"

struct vstate {
	unsigned long errors, max_errors;
};

static void report(struct vstate *v, const struct sim_err *e)
{
	v->errors++;
	if (v->errors <= v->max_errors)
		fprintf(stderr, "%s\n", e->msg);
}

static void sink(void *ctx, const struct sim_err *e)
{
	report(ctx, e);
}

/* Walks a service's arrival file to its end, reporting the first error. */
static void check_arrival_file(struct vstate *v, const struct trace_job *job,
			       const char *dir, unsigned long *narr)
{
	struct trace_arrivals *a;
	struct sim_err err;
	sim_time t;
	int rc;

	sim_err_clear(&err);
	if (trace_arrivals_open(&a, job, dir, NULL, &err) < 0) {
		report(v, &err);
		return;
	}
	while ((rc = trace_arrivals_next(a, &t, &err)) == 1)
		(*narr)++;
	if (rc < 0)
		report(v, &err);
	trace_arrivals_close(a);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: colosim validate [--max-errors N] [--no-arrivals] "
		   "TRACE\n\n"
		   "Checks TRACE against trace format v1 (docs/TRACE_FORMAT.md)"
		   " and prints every\nerror as file:line:column: field: what "
		   "was expected.\n\n"
		   "  --max-errors N  print at most N errors (default 100; all "
		   "are counted)\n"
		   "  --no-arrivals   do not read the arrival files of 'file' "
		   "services\n\n"
		   "Exit status: 0 clean, 2 errors found or bad usage, 1 "
		   "system failure.\n");
}

static int run(int argc, char **argv)
{
	struct vstate v = { 0, 100 };
	struct trace_reader *r;
	struct trace_job job;
	struct sim_err err;
	const char *path = NULL;
	unsigned long ntrain = 0, ninfer = 0, narr = 0;
	int i, rc, arrivals = 1, fatal = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--max-errors") == 0 && i + 1 < argc) {
			unsigned long long n;
			if (cli_parse_u64(argv[++i], &n) != 0)
				return cli_usage_error("--max-errors: expected "
						       "a count, got '%s'",
						       argv[i]);
			v.max_errors = (unsigned long)n;
		} else if (strcmp(argv[i], "--no-arrivals") == 0) {
			arrivals = 0;
		} else if (strcmp(argv[i], "--max-errors") == 0) {
			return cli_usage_error("validate: --max-errors needs "
					       "a value");
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return cli_usage_error("validate: unknown option '%s' "
					       "(try --help)", argv[i]);
		} else if (path == NULL) {
			path = argv[i];
		} else {
			return cli_usage_error("validate: one trace at a time "
					       "('%s' is extra)", argv[i]);
		}
	}
	if (path == NULL)
		return cli_missing("validate", "TRACE", "colosim validate "
				   "[--max-errors N] [--no-arrivals] TRACE");
	sim_err_clear(&err);
	if (trace_open(&r, path, &err) < 0)
		return cli_report(&err);
	trace_set_error_sink(r, sink, &v);
	for (;;) {
		sim_err_clear(&err);
		rc = trace_next(r, &job, &err);
		if (rc == 0)
			break;
		if (rc == SIM_ENOMEM || rc == SIM_EIO) {
			fatal = 1;
			break;
		}
		if (rc < 0)
			continue;      /* the sink printed the row's errors */
		if (job.kind == TRACE_TRAIN)
			ntrain++;
		else
			ninfer++;
		if (arrivals && job.kind == TRACE_INFER &&
		    job.arrival == TRACE_ARR_FILE)
			check_arrival_file(&v, &job, trace_dir(r), &narr);
	}
	trace_close(r);
	if (fatal)
		return cli_report(&err);
	if (v.errors > v.max_errors)
		fprintf(stderr, "... %lu more errors not shown\n",
			v.errors - v.max_errors);
	if (v.errors > 0) {
		fprintf(stderr, "%s: %lu error%s\n", path, v.errors,
			v.errors == 1 ? "" : "s");
		return 2;
	}
	printf("%s: clean: %lu jobs (%lu train, %lu infer)", path,
	       ntrain + ninfer, ntrain, ninfer);
	if (narr > 0)
		printf(", %lu arrivals in files", narr);
	printf("\n");
	return 0;
}

const struct cli_cmd cli_cmd_validate = {
	"validate", "check a trace and list every error", run
};
