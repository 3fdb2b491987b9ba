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

static void help(FILE *f)
{
	fputs("usage: colosim report DB [--experiment NAME] [--baseline POLICY]\n"
	      "                      [--format table|csv|json] [--conf LEVEL]\n"
	      "                      [--metric NAME[,NAME...]]\n\n"
	      "Prints, for each policy (and swept policy parameter) and each "
	      "metric,\nthe mean over replications with its confidence "
	      "interval (Student t,\nLEVEL 0.95 by default) and the paired "
	      "difference against the baseline\npolicy, paired by "
	      "replication (the same arrivals under both policies).\n\n"
	      "  --experiment NAME  which experiment (needed when DB holds "
	      "several)\n"
	      "  --baseline POLICY  a policy or variant label (default: "
	      "exclusive if it ran,\n"
	      "                     else the first policy)\n"
	      "  --format FMT       table (default), csv or json\n"
	      "  --conf LEVEL       confidence level in (0, 1), default 0.95\n"
	      "  --metric LIST      only these metrics, in this order\n\n"
	      "Warnings about the experiment (identical replications, a "
	      "policy that had\nnothing to act on, a swept key that changes "
	      "nothing) go to stderr.\n", f);
}

static const char *const value_opts[] = {
	"--experiment", "-e", "--baseline", "-b", "--format", "-f", "--conf",
	"--metric", "-m", NULL
};

static int cmd_report(int argc, char **argv)
{
	const char *db = NULL, *exp = NULL, *base = NULL, *metrics = NULL;
	struct exp_warnings warn = { NULL, 0 };
	enum rep_format fmt = REP_TABLE;
	double conf = 0.95;
	struct store *st = NULL;
	struct rep_table t;
	struct sim_err err;
	char *out = NULL;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			help(stdout);
			return 0;
		}
		if (a[0] == '-' && (rc = cli_check_value("report", a,
				value_opts, i + 1 < argc)) != 0)
			return rc;
		if (strcmp(a, "--experiment") == 0 || strcmp(a, "-e") == 0) {
			exp = argv[++i];
		} else if (strcmp(a, "--baseline") == 0 ||
			   strcmp(a, "-b") == 0) {
			base = argv[++i];
		} else if (strcmp(a, "--format") == 0 ||
			   strcmp(a, "-f") == 0) {
			const char *v = argv[++i];
			if (strcmp(v, "table") == 0)
				fmt = REP_TABLE;
			else if (strcmp(v, "csv") == 0)
				fmt = REP_CSV;
			else if (strcmp(v, "json") == 0)
				fmt = REP_JSON;
			else
				return cli_usage_error("report: --format: "
					"expected table, csv or json, got '%s'",
					v);
		} else if (strcmp(a, "--metric") == 0 || strcmp(a, "-m") == 0) {
			metrics = argv[++i];
		} else if (strcmp(a, "--conf") == 0) {
			if (cli_parse_double(argv[++i], &conf) != 0 ||
			    !(conf > 0 && conf < 1))
				return cli_usage_error("report: --conf: expected "
					"a level in (0, 1), got '%s'", argv[i]);
		} else if (a[0] == '-') {
			return cli_usage_error("report: unknown option '%s' "
					       "(try --help)", a);
		} else if (db == NULL) {
			db = a;
		} else {
			return cli_usage_error("report: one DB only (got '%s' "
					       "and '%s')", db, a);
		}
	}
	if (db == NULL)
		return cli_missing("report", "DB", "colosim report DB "
				   "[--experiment NAME] [--baseline POLICY] "
				   "[--format table|csv|json]");
	sim_err_clear(&err);
	if ((rc = store_open(&st, db, STORE_READ, &err)) != 0)
		return cli_report(&err);
	rc = rep_build(st, exp, base, conf, &t, &err);
	if (rc == 0 && metrics != NULL &&
	    (rc = rep_keep_metrics(&t, metrics, &err)) != 0)
		rep_table_fini(&t);
	if (rc == 0 && (rc = exp_warnings_build(st, t.experiment, base, &warn,
						&err)) != 0)
		rep_table_fini(&t);
	store_close(st);
	if (rc != 0)
		return cli_report(&err);
	rc = rep_render(&t, fmt, &out, &err);
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
