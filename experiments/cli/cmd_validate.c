/*
** cmd_validate.c: `colosim validate TRACE`: checks a trace against format
** v1 (docs/TRACE_FORMAT.md) and prints every error, up to a limit.
** Exit status: 0 clean, 2 when there is any error (or bad usage), 1 on a
** system failure (out of memory, read error).
*/
#include <stdint.h>
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
			       const char *dir, const char *allow,
			       unsigned long *narr)
{
	struct trace_arrivals *a;
	struct sim_err err;
	sim_time t;
	int rc;

	sim_err_clear(&err);
	if (trace_arrivals_open_in(&a, job, dir, allow, NULL, &err) < 0) {
		report(v, &err);
		return;
	}
	while ((rc = trace_arrivals_next(a, &t, &err)) == 1)
		(*narr)++;
	if (rc < 0)
		report(v, &err);
	trace_arrivals_close(a);
}

enum { O_MAX_ERRORS, O_NO_ARRIVALS, O_ARRIVALS_DIR };

static const struct cli_opt opts[] = {
	[O_MAX_ERRORS] = { "max-errors", 0, "N", "print at most N errors "
			   "(default 100; all are counted)" },
	[O_NO_ARRIVALS] = { "no-arrivals", 0, NULL, "do not read the arrival "
			    "files of 'file' services" },
	[O_ARRIVALS_DIR] = { "arrivals-dir", 0, "DIR", "a folder besides the "
			     "trace's from which 'file'\nservices may read "
			     "their arrival files\n(docs/LIMITS.md)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"validate", "colosim validate [--max-errors N] [--no-arrivals] "
	"[--arrivals-dir DIR] TRACE",
	"Checks TRACE against trace format v1 (docs/TRACE_FORMAT.md) and prints "
	"every\nerror as file:line:column: field: what was expected.", opts,
	"Exit status: 0 clean, 2 errors found or bad usage, 1 system failure."
};

struct validate_args {
	struct vstate v;
	const char *path;
	int arrivals;
	const char *arrivals_dir;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct validate_args *a = ctx;
	unsigned long long n;

	switch (opt) {
	case CLI_OPERAND:
		if (a->path != NULL)
			return cli_usage_error("validate: one trace at a time "
					       "('%s' is extra)", v);
		a->path = v;
		return 0;
	case O_MAX_ERRORS:
		if (cli_parse_u64(v, 0, UINT64_MAX, &n) != 0)
			return cli_usage_error("validate: --max-errors: "
					       "expected a count, got '%s'", v);
		a->v.max_errors = (unsigned long)n;
		return 0;
	case O_NO_ARRIVALS:
		a->arrivals = 0;
		return 0;
	case O_ARRIVALS_DIR:
		a->arrivals_dir = v;
		return 0;
	}
	return 2;
}

/* Prints the totals; the exit status. */
static int summary(const struct vstate *v, const char *path,
		   unsigned long ntrain, unsigned long ninfer,
		   unsigned long nllm, unsigned long narr)
{
	if (v->errors > v->max_errors)
		fprintf(stderr, "... %lu more errors not shown\n",
			v->errors - v->max_errors);
	if (v->errors > 0) {
		fprintf(stderr, "%s: %lu error%s\n", path, v->errors,
			v->errors == 1 ? "" : "s");
		return 2;
	}
	printf("%s: clean: %lu jobs (%lu train, %lu infer", path,
	       ntrain + ninfer + nllm, ntrain, ninfer);
	if (nllm > 0)
		printf(", %lu llm", nllm);
	printf(")");
	if (narr > 0)
		printf(", %lu arrivals in files", narr);
	printf("\n");
	return 0;
}

static int run(int argc, char **argv)
{
	struct validate_args a = { { 0, 100 }, NULL, 1, NULL };
	struct trace_reader *r;
	struct trace_job job;
	struct sim_err err;
	unsigned long ntrain = 0, ninfer = 0, nllm = 0, narr = 0;
	int rc, fatal = 0;

	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.path == NULL)
		return cli_missing("validate", "TRACE", spec.zUsage);
	sim_err_clear(&err);
	if (trace_open(&r, a.path, &err) < 0)
		return cli_report(&err);
	trace_set_error_sink(r, sink, &a.v);
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
		else if (job.kind == TRACE_LLM)
			nllm++;
		else
			ninfer++;
		if (a.arrivals && job.kind != TRACE_TRAIN &&
		    job.arrival == TRACE_ARR_FILE)
			check_arrival_file(&a.v, &job, trace_dir(r),
					   a.arrivals_dir, &narr);
	}
	trace_close(r);
	if (fatal)
		return cli_report(&err);
	return summary(&a.v, a.path, ntrain, ninfer, nllm, narr);
}

const struct cli_cmd cli_cmd_validate = {
	"validate", "check a trace and list every error", run
};
