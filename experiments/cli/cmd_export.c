/*
** cmd_export.c: `colosim export runs|jobs|series|latency|placements DB
** [--experiment NAME] [--format csv|json] [-o FILE] [--metric LIST]
** [--upgrade]`: wide tables for analysis (experiments/export.h).
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/export.h"
#include "experiments/store.h"
#include "experiments/cli/cli.h"

static void help(FILE *f)
{
	fputs("usage: colosim export TABLE DB [--experiment NAME] "
	      "[--format csv|json]\n"
	      "                      [-o FILE] [--metric NAME[,NAME...]] "
	      "[--upgrade]\n\n"
	      "Writes one table of the results database in wide form: one row "
	      "per run\n(runs), job (jobs), series sample (series), latency "
	      "bin (latency) or\nplacement interval (placements), with one "
	      "column per swept parameter\nand, for runs, one per metric.  "
	      "Empty (CSV) or null (JSON) means the\nvalue does not apply; "
	      "units are in the column names (docs/RESULTS.md,\n"
	      "\"Exporting\").\n\n"
	      "  TABLE              runs, jobs, series, latency or placements\n"
	      "  --experiment NAME  one experiment (default: all of them)\n"
	      "  --format FMT       csv (default) or json (an array of "
	      "objects)\n"
	      "  -o FILE            write to FILE (default: standard output)\n"
	      "  --metric LIST      runs: only these metric columns, in this "
	      "order\n"
	      "  --upgrade          migrate a database of an older schema "
	      "first (adds\n"
	      "                     tables and views, changes no stored row)\n",
	      f);
}

static const struct option opts[] = {
	{ "experiment", required_argument, NULL, 'e' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "metric", required_argument, NULL, 'm' },
	{ "upgrade", no_argument, NULL, 'u' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

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
	struct exp_export_opts o;
	const char *table = NULL, *db = NULL, *out_path = NULL;
	struct store *st = NULL;
	struct sim_err err = { 0, "" };
	int c, rc, upgrade = 0;
	FILE *f = stdout;

	memset(&o, 0, sizeof o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:f:o:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			o.experiment = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "csv") == 0)
				o.format = EXPORT_CSV;
			else if (strcmp(optarg, "json") == 0)
				o.format = EXPORT_JSON;
			else
				return cli_usage_error("export: --format: "
					"expected csv or json, got '%s'",
					optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'm':
			o.metrics = optarg;
			break;
		case 'u':
			upgrade = 1;
			break;
		case 'h':
			help(stdout);
			return 0;
		case ':':
			return cli_usage_error("export: %s needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("export: unknown option '%s' "
					       "(try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		table = argv[optind++];
	if (optind < argc)
		db = argv[optind++];
	if (optind < argc)
		return cli_usage_error("export: one TABLE and one DB only (got "
				       "'%s' too)", argv[optind]);
	if (table == NULL || db == NULL)
		return cli_missing("export", table ? "DB" : "TABLE", "colosim "
				   "export runs|jobs|series|latency|placements "
				   "DB [--format csv|json]");
	if ((rc = exp_export_find(table, &o.table, &err)) != 0)
		return cli_usage_error("export: %s", err.msg);
	if ((rc = open_store(db, upgrade, &st, &err)) != 0)
		return cli_report(&err);
	if (out_path != NULL && (f = fopen(out_path, "w")) == NULL) {
		store_close(st);
		perror(out_path);
		return 1;
	}
	rc = exp_export(st, &o, f, &err);
	store_close(st);
	if (f != stdout && fclose(f) != 0 && rc == 0)
		rc = sim_err_set(&err, SIM_EIO, "%s: write failed", out_path);
	if (rc != 0) {
		if (out_path != NULL)
			unlink(out_path);
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
