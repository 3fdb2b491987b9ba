/*
** cmd_report.c: `colosim report DB [--experiment NAME] [--baseline POLICY]
** [--format table|csv|json] [--conf LEVEL] [--metric NAME[,NAME]]`:
** policies x metrics with confidence intervals and paired differences
** (experiments/report.h), then the experiment's warnings on stderr
** (experiments/warn.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/report.h"
#include "experiments/store.h"
#include "experiments/warn.h"
#include "experiments/cli/cli.h"

enum { O_EXPERIMENT, O_BASELINE, O_FORMAT, O_CONF, O_METRIC };

static const struct cli_opt opts[] = {
	[O_EXPERIMENT] = { "experiment", 'e', "NAME", "which experiment "
			   "(needed when DB holds several)" },
	[O_BASELINE] = { "baseline", 'b', "POLICY", "a policy or variant label "
			 "(default: exclusive if it ran,\nelse the first "
			 "policy)" },
	[O_FORMAT] = { "format", 'f', "FMT", "table (default), csv or json" },
	[O_CONF] = { "conf", 0, "LEVEL", "confidence level in (0, 1), default "
		     "0.95" },
	[O_METRIC] = { "metric", 'm', "LIST", "only these metrics "
		       "(comma-separated), in this order" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"report", "colosim report DB [--experiment NAME] [--baseline POLICY]\n"
	"                      [--format table|csv|json] [--conf LEVEL]\n"
	"                      [--metric NAME[,NAME...]]",
	"Prints, for each policy (and swept policy parameter) and each metric,\n"
	"the mean over replications with its confidence interval (Student t,\n"
	"LEVEL 0.95 by default) and the paired difference against the "
	"baseline\npolicy, paired by replication (the same arrivals under both "
	"policies).", opts,
	"Warnings about the experiment (identical replications, a policy that "
	"had\nnothing to act on, a swept key that changes nothing) go to "
	"stderr\n(docs/RESULTS.md, \"Warnings\")."
};

struct report_args {
	const char *db, *exp, *base, *metrics;
	enum rep_format fmt;
	double conf;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct report_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->db != NULL)
			return cli_usage_error("report: one DB only (got '%s' "
					       "and '%s')", a->db, v);
		a->db = v;
		return 0;
	case O_EXPERIMENT: a->exp = v; return 0;
	case O_BASELINE: a->base = v; return 0;
	case O_METRIC: a->metrics = v; return 0;
	case O_FORMAT:
		if (strcmp(v, "table") == 0)
			a->fmt = REP_TABLE;
		else if (strcmp(v, "csv") == 0)
			a->fmt = REP_CSV;
		else if (strcmp(v, "json") == 0)
			a->fmt = REP_JSON;
		else
			return cli_usage_error("report: --format: expected "
					       "table, csv or json, got '%s'",
					       v);
		return 0;
	case O_CONF:
		if (cli_parse_double(v, 0, 1, &a->conf) != 0 ||
		    !(a->conf > 0 && a->conf < 1))
			return cli_usage_error("report: --conf: expected a "
					       "level in (0, 1), got '%s'", v);
		return 0;
	}
	return 2;
}

static int cmd_report(int argc, char **argv)
{
	struct report_args a = { NULL, NULL, NULL, NULL, REP_TABLE, 0.95 };
	struct exp_warnings warn = { NULL, 0 };
	struct store *st = NULL;
	struct rep_table t;
	struct sim_err err;
	char *out = NULL;
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.db == NULL)
		return cli_missing("report", "DB", "colosim report DB "
				   "[--experiment NAME] [--baseline POLICY] "
				   "[--format table|csv|json]");
	sim_err_clear(&err);
	if ((rc = store_open(&st, a.db, STORE_READ, &err)) != 0)
		return cli_report(&err);
	rc = rep_build(st, a.exp, a.base, a.conf, &t, &err);
	if (rc == 0 && a.metrics != NULL &&
	    (rc = rep_keep_metrics(&t, a.metrics, &err)) != 0)
		rep_table_fini(&t);
	if (rc == 0 && (rc = exp_warnings_build(st, t.experiment, a.base,
						&warn, &err)) != 0)
		rep_table_fini(&t);
	store_close(st);
	if (rc != 0)
		return cli_report(&err);
	rc = rep_render(&t, a.fmt, &out, &err);
	rep_table_fini(&t);
	if (rc != 0)
		return cli_report(&err);
	fputs(out, stdout);
	free(out);
	if (fflush(stdout) != 0) {
		exp_warnings_fini(&warn);
		perror("colosim: report: stdout");
		return 1;
	}
	cli_print_warnings(&warn);
	exp_warnings_fini(&warn);
	return 0;
}

const struct cli_cmd cli_cmd_report = {
	"report", "tables of results with confidence intervals", cmd_report
};
