/*
** cmd_fit.c: `colosim fit`: fits the co-location models on the public
** measurements and writes their validation (experiments/validate.h).
** `make validate` runs it.  Exit status: 0 done (or every data set absent:
** skipped with a message), 1 failure, 2 bad usage or malformed data.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiments/cli/cli.h"
#include "experiments/validate.h"
#include "models/device.h"

enum { O_DATA, O_DEVICES, O_VALIDATION, O_FITS_C, O_KEYS, O_DATE };

static const struct cli_opt opts[] = {
	[O_DATA] = { "data", 0, "DIR", "the measurements folder (default "
		     "../shared/measurements)" },
	[O_DEVICES] = { "devices", 0, "DIR", "device profiles (default: as "
			"colosim list devices)" },
	[O_VALIDATION] = { "validation", 0, "FILE", "write the validation "
			   "section into FILE (between its\nmarkers, "
			   "appended when it has none; docs/VALIDATION.md)" },
	[O_FITS_C] = { "fits-c", 0, "FILE", "write the fitted solo table "
		       "(models/train_fits.c)" },
	[O_KEYS] = { "keys", 0, "FILE", "write the fitted device-profile "
		     "lines" },
	[O_DATE] = { "date", 0, "YYYY-MM-DD", "the date in the fitted sources "
		     "(default: today)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"fit", "colosim fit [--data DIR] [--validation FILE] [--fits-c FILE] "
	"[--keys FILE]",
	"Fits the co-location models (docs/MODEL.md) on the public "
	"measurements\nunder DIR and prints a summary.  Data sets that are "
	"absent are skipped.", opts,
	"Exit status: 0 done or skipped, 1 failure, 2 bad usage or data."
};

struct fit_args {
	const char *data, *devdir, *vpath, *cpath, *kpath;
	char date[16];
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct fit_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		return cli_usage_error("fit: unexpected argument '%s' (try "
				       "--help)", v);
	case O_DATA: a->data = v; return 0;
	case O_DEVICES: a->devdir = v; return 0;
	case O_VALIDATION: a->vpath = v; return 0;
	case O_FITS_C: a->cpath = v; return 0;
	case O_KEYS: a->kpath = v; return 0;
	case O_DATE:
		if (strlen(v) != 10 || v[4] != '-' || v[7] != '-')
			return cli_usage_error("fit: --date: expected "
					       "YYYY-MM-DD, got '%s'", v);
		snprintf(a->date, sizeof a->date, "%s", v);
		return 0;
	}
	return 2;
}

/* The whole of path, or NULL when it cannot be read (a new file). */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (nb == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	return buf;
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
	struct fit_args a;
	const char *data, *devdir, *vpath, *cpath, *kpath;
	struct dev_catalog cat;
	char dirbuf[4096];
	struct exp_valsum sum;
	struct exp_valout out;
	struct sim_err err;
	int rc = 0, g;

	memset(&a, 0, sizeof a);
	a.data = "../shared/measurements";
	{
		time_t now = time(NULL);
		struct tm tmv;

		if (gmtime_r(&now, &tmv) == NULL ||
		    strftime(a.date, sizeof a.date, "%Y-%m-%d", &tmv) == 0)
			snprintf(a.date, sizeof a.date, "unknown");
	}
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	data = a.data;
	devdir = a.devdir;
	vpath = a.vpath;
	cpath = a.cpath;
	kpath = a.kpath;
	sim_err_clear(&err);
	if (dev_find_dir(devdir, dirbuf, sizeof dirbuf, &err) != 0 ||
	    dev_catalog_load(&cat, dirbuf, &err) != 0)
		return cli_report(&err);
	rc = exp_validate(data, &cat, a.date, &sum, &out, &err);
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
	if (vpath != NULL) {
		char *old = read_file(vpath), *all;

		all = exp_splice(old, out.markdown ? out.markdown : "");
		free(old);
		if (all == NULL) {
			fprintf(stderr, "colosim: fit: out of memory\n");
			rc = 1;
		} else {
			rc |= write_file(vpath, all);
			free(all);
		}
	}
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
