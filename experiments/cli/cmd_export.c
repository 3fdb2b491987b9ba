/*
** cmd_export.c: `colosim export runs|jobs|series|latency|placements DB
** [--experiment NAME] [--format csv|json] [-o FILE] [--metric LIST]
** [--upgrade]`: wide tables for analysis (experiments/export.h).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/export.h"
#include "experiments/store.h"
#include "experiments/cli/cli.h"

enum { O_EXPERIMENT, O_FORMAT, O_OUTPUT, O_METRIC, O_UPGRADE };

static const struct cli_opt opts[] = {
	[O_EXPERIMENT] = { "experiment", 'e', "NAME", "one experiment "
			   "(default: all of them)" },
	[O_FORMAT] = { "format", 'f', "FMT", "csv (default) or json (an array "
		       "of objects)" },
	[O_OUTPUT] = { "output", 'o', "FILE", "write to FILE (default: "
		       "standard output)" },
	[O_METRIC] = { "metric", 'm', "LIST", "runs: only these metric "
		       "columns, in this order" },
	[O_UPGRADE] = { "upgrade", 0, NULL, "migrate a database of an older "
			"schema first (adds\ntables and views, changes no "
			"stored row)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"export", "colosim export TABLE DB [--experiment NAME] "
	"[--format csv|json]\n"
	"                      [-o FILE] [--metric NAME[,NAME...]] "
	"[--upgrade]",
	"Writes one table of the results database in wide form: one row per "
	"run\n(runs), job (jobs), series sample (series), latency bin "
	"(latency) or\nplacement interval (placements), with one column per "
	"swept parameter\nand, for runs, one per metric.  Empty (CSV) or null "
	"(JSON) means the\nvalue does not apply; units are in the column names "
	"(docs/RESULTS.md,\n\"Exporting\").  TABLE: runs, jobs, series, "
	"latency or placements.", opts, NULL
};

struct export_args {
	const char *table, *db, *out;
	int upgrade;
	struct exp_export_opts o;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct export_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->table == NULL)
			a->table = v;
		else if (a->db == NULL)
			a->db = v;
		else
			return cli_usage_error("export: one TABLE and one DB "
					       "only (got '%s' too)", v);
		return 0;
	case O_EXPERIMENT: a->o.experiment = v; return 0;
	case O_OUTPUT: a->out = v; return 0;
	case O_METRIC: a->o.metrics = v; return 0;
	case O_UPGRADE: a->upgrade = 1; return 0;
	case O_FORMAT:
		if (strcmp(v, "csv") == 0)
			a->o.format = EXPORT_CSV;
		else if (strcmp(v, "json") == 0)
			a->o.format = EXPORT_JSON;
		else
			return cli_usage_error("export: --format: expected csv "
					       "or json, got '%s'", v);
		return 0;
	}
	return 2;
}

/* Opens db for reading, migrating it first when upgrade is set. */
static int open_store(const char *db, int upgrade, struct store **st,
		      struct sim_err *err)
{
	int rc;

	if (upgrade) {
		if ((rc = store_open(st, db, STORE_WRITE, err)) != 0)
			return rc;
		store_close(*st);
	}
	return store_open(st, db, STORE_READ, err);
}

static int cmd_export(int argc, char **argv)
{
	struct export_args a;
	struct store *st = NULL;
	struct sim_err err = { 0, "" };
	int rc;
	FILE *f = stdout;

	memset(&a, 0, sizeof a);
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.table == NULL || a.db == NULL)
		return cli_missing("export", a.table ? "DB" : "TABLE", "colosim "
				   "export runs|jobs|series|latency|placements "
				   "DB [--format csv|json]");
	if ((rc = exp_export_find(a.table, &a.o.table, &err)) != 0)
		return cli_usage_error("export: %s", err.msg);
	if ((rc = open_store(a.db, a.upgrade, &st, &err)) != 0)
		return cli_report(&err);
	if (a.out != NULL && (f = fopen(a.out, "w")) == NULL) {
		store_close(st);
		fprintf(stderr, "colosim: %s: cannot write: %s\n", a.out,
			strerror(errno));
		return 1;
	}
	rc = exp_export(st, &a.o, f, &err);
	store_close(st);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = sim_err_set(&err, SIM_EIO, "%s: write failed", a.out);
	if (rc != 0) {
		if (a.out != NULL)
			unlink(a.out);
		return cli_report(&err);
	}
	if (f == stdout && fflush(stdout) != 0) {
		perror("colosim: export: stdout");
		return 1;
	}
	return 0;
}

const struct cli_cmd cli_cmd_export = {
	"export", "wide CSV/JSON tables of a results database", cmd_export
};
