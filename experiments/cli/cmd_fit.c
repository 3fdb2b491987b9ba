/*
** cmd_fit.c: `colosim fit`: fits the co-location models on the public
** measurements and writes their validation (experiments/validate.h).
** `make validate` runs it.  Exit status: 0 done (or every data set absent:
** skipped with a message), 1 failure, 2 bad usage or malformed data.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiments/cli/cli.h"
#include "experiments/validate.h"
#include "models/device.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: colosim fit [--data DIR] [--devices DIR] "
		   "[--validation FILE]\n"
		   "                  [--fits-c FILE] [--keys FILE] "
		   "[--date YYYY-MM-DD]\n\n"
		   "Fits the co-location models (docs/MODEL.md) on the public "
		   "measurements\nunder DIR and prints a summary.  Data sets "
		   "that are absent are skipped.\n\n"
		   "  --data DIR         the measurements folder (default "
		   "../shared/measurements)\n"
		   "  --devices DIR      device profiles (default: as colosim "
		   "list devices)\n"
		   "  --validation FILE  write the validation report "
		   "(docs/VALIDATION.md)\n"
		   "  --fits-c FILE      write the fitted solo table "
		   "(models/train_fits.c)\n"
		   "  --keys FILE        write the fitted device-profile "
		   "lines\n"
		   "  --date DATE        the date in the fitted sources "
		   "(default: today)\n\n"
		   "Exit status: 0 done or skipped, 1 failure, 2 bad usage "
		   "or data.\n");
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "colosim: fit: cannot write %s\n", path);
		return 1;
	}
	fputs(text != NULL ? text : "", f);
	if (fclose(f) != 0) {
		fprintf(stderr, "colosim: fit: cannot write %s\n", path);
		return 1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "devices", required_argument, NULL, 'D' },
		{ "validation", required_argument, NULL, 'v' },
		{ "fits-c", required_argument, NULL, 'c' },
		{ "keys", required_argument, NULL, 'k' },
		{ "date", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *data = "../shared/measurements", *devdir = NULL;
	const char *vpath = NULL, *cpath = NULL, *kpath = NULL;
	char date[16];
	struct dev_catalog cat;
	struct exp_valsum sum;
	struct exp_valout out;
	struct sim_err err;
	int c, rc = 0, g;

	{
		time_t now = time(NULL);
		struct tm tmv;

		if (gmtime_r(&now, &tmv) == NULL ||
		    strftime(date, sizeof date, "%Y-%m-%d", &tmv) == 0)
			snprintf(date, sizeof date, "unknown");
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': data = optarg; break;
		case 'D': devdir = optarg; break;
		case 'v': vpath = optarg; break;
		case 'c': cpath = optarg; break;
		case 'k': kpath = optarg; break;
		case 't':
			if (strlen(optarg) != 10 || optarg[4] != '-' ||
			    optarg[7] != '-')
				return cli_usage_error("fit: --date: expected "
						       "YYYY-MM-DD, got '%s'",
						       optarg);
			snprintf(date, sizeof date, "%s", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default:
			return cli_usage_error("fit: unknown option or missing "
					       "value '%s' (try --help)",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("fit: unexpected argument '%s' (try "
				       "--help)", argv[optind]);
	sim_err_clear(&err);
	if (dev_catalog_load(&cat, devdir ? devdir : dev_default_dir(),
			     &err) != 0)
		return cli_report(&err);
	rc = exp_validate(data, &cat, date, &sum, &out, &err);
	dev_catalog_fini(&cat);
	if (rc != 0)
		return cli_report(&err);
	if (!sum.have_gavel && !sum.have_lucid && !sum.have_miso) {
		printf("fit: skipped: no measurements under %s (%s)\n", data,
		       sum.missing);
		exp_valout_fini(&out);
		return 0;
	}
	if (sum.missing[0] != '\0')
		printf("fit: skipped part of the data: %s\n", sum.missing);
	for (g = 0; g < sum.ngpu; g++)
		printf("solo %-10s %3zu rows  median |residual| %5.1f%%  "
		       "worst %5.1f%%\n", sum.gpu[g], sum.nres[g],
		       100 * sum.med_res[g], 100 * sum.max_res[g]);
	if (sum.have_lucid) {
		printf("lucid timeslice: util_duty_scale %.4f  util_duty_exp "
		       "%.4f  ts_mem_contention_k %.4f\n", sum.ts.scale,
		       sum.ts.expo, sum.ts.kappa);
		for (g = 0; g < sum.nfolds; g++)
			printf("  fold %d: %4zu pairs  median |err| %.4f  "
			       "spearman %.3f\n", g, sum.folds[g].npairs,
			       sum.folds[g].med_abs_err,
			       sum.folds[g].spearman);
	}
	if (sum.have_miso)
		printf("miso mig: mig_bw_weight %.4f [%.4f, %.4f]  "
		       "leave-one-model-out median |err| %.1f%%\n", sum.mig_w,
		       sum.mig_w_lo, sum.mig_w_hi, 100 * sum.mig_lomo);
	if (vpath != NULL)
		rc |= write_file(vpath, out.markdown);
	if (cpath != NULL && out.fits_c != NULL)
		rc |= write_file(cpath, out.fits_c);
	if (kpath != NULL)
		rc |= write_file(kpath, out.keys);
	exp_valout_fini(&out);
	return rc;
}

const struct cli_cmd cli_cmd_fit = {
	"fit", "fit the co-location models on public measurements", run
};
