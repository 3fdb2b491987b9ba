/*
** cmd_calibrate.c: `colosim calibrate RAW.csv [-o PROFILE.ini]`: fits the
** device-model parameters from the raw CSV of the microbenchmark suite
** (models/calibration/) and optionally writes them into a device profile.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/calibration/cal_fit.h"
#include "experiments/cli/cli.h"

static void usage(FILE *f)
{
	fputs("usage: colosim calibrate RAW.csv [-o models/devices/NAME.ini] "
	      "[--all-keys] [--date YYYY-MM-DD]\n\n"
	      "Fits device-model parameters (copy latency and bandwidth, HBM "
	      "bandwidth\nagainst SMs, MPS curves, co-run contention, time-slice "
	      "quantum and switch\ncost, unified-memory rate) from the raw CSV "
	      "of models/calibration/microbench/\nrun_all.sh and prints one line "
	      "per parameter:\n\n"
	      "    fit NAME value=V unit=U r2=R     (r2=nan: a direct "
	      "measurement)\n\n"
	      "  -o FILE      write the parameters into FILE's [device] section "
	      "(replacing\n"
	      "               those keys, keeping every other line); a new FILE "
	      "gets only\n"
	      "               the fitted keys: a fragment to merge into a full "
	      "profile\n"
	      "               (every fitted key is a device-profile key, so "
	      "the result loads)\n"
	      "  --all-keys   accepted for compatibility; no effect (every "
	      "fitted key is\n"
	      "               written by default)\n"
	      "  --date D     the date in each value's source (default: today, "
	      "UTC)\n\n"
	      "See docs/CALIBRATION.md.\n", f);
}

static int run(int argc, char **argv)
{
	const char *raw_path = NULL, *out = NULL, *date = NULL;
	struct cal_raw raw;
	struct cal_result *res;
	struct sim_err err;
	char today[32];
	int i, all_keys = 0, fragment = 0, rc;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "-o") == 0) {
			if (++i == argc)
				return cli_usage_error("calibrate: -o needs a file");
			out = argv[i];
		} else if (strcmp(argv[i], "--date") == 0) {
			if (++i == argc)
				return cli_usage_error("calibrate: --date needs a date");
			date = argv[i];
			{
				int y, m, d;
				char tail;
				if (strlen(date) != 10 ||
				    sscanf(date, "%4d-%2d-%2d%c", &y, &m, &d,
					   &tail) != 3 || m < 1 || m > 12 ||
				    d < 1 || d > 31)
					return cli_usage_error("calibrate: --date "
						"'%s': expected YYYY-MM-DD", date);
			}
		} else if (strcmp(argv[i], "--all-keys") == 0) {
			all_keys = 1;
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return cli_usage_error("calibrate: unknown option '%s' "
					       "(try --help)", argv[i]);
		} else if (raw_path == NULL) {
			raw_path = argv[i];
		} else {
			return cli_usage_error("calibrate: one raw CSV only "
					       "('%s' is extra)", argv[i]);
		}
	}
	if (raw_path == NULL)
		return cli_missing("calibrate", "RAW.csv", "colosim calibrate "
				   "RAW.csv [-o FILE.ini] [--all-keys] "
				   "[--date YYYY-MM-DD]");
	if (date == NULL) {
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm) == NULL ||
		    strftime(today, sizeof today, "%Y-%m-%d", &tm) == 0)
			snprintf(today, sizeof today, "unknown-date");
		date = today;
	}
	sim_err_clear(&err);
	if ((rc = cal_raw_read(&raw, raw_path, &err)) != 0) {
		cal_raw_fini(&raw);
		return cli_report(&err);
	}
	res = malloc(sizeof *res);
	if (res == NULL) {
		cal_raw_fini(&raw);
		fprintf(stderr, "colosim: out of memory\n");
		return 1;
	}
	rc = cal_fit_all(&raw, res, &err);
	if (rc != 0) {
		free(res);
		cal_raw_fini(&raw);
		return cli_report(&err);
	}
	printf("# device %s, %zu rows of %s\n", raw.device, raw.n, raw_path);
	for (k = 0; k < res->n; k++) {
		const struct cal_fit *f = &res->fits[k];

		printf("fit %s value=%.6g unit=%s r2=%.4f%s\n", f->name, f->value,
		       f->unit, f->r2, f->in_profile ? "" :
		       "   (not a profile key: not written without --all-keys)");
	}
	for (k = 0; k < res->nskipped; k++)
		fprintf(stderr, "colosim: calibrate: skipped %s\n",
			res->skipped[k]);
	if (out != NULL) {
		rc = cal_profile_write(out, res, date, raw.device, all_keys,
				       &fragment, &err);
		if (rc != 0) {
			free(res);
			cal_raw_fini(&raw);
			return cli_report(&err);
		}
		if (fragment)
			printf("wrote %s: a fragment holding only the fitted keys; "
			       "merge it into a full device profile\n", out);
		else
			printf("wrote %s: updated the fitted keys of its [device] "
			       "section\n", out);
	}
	rc = res->n > 0 ? 0 : 1;
	if (rc)
		fprintf(stderr, "colosim: calibrate: %s: nothing could be "
			"fitted\n", raw_path);
	free(res);
	cal_raw_fini(&raw);
	return rc;
}

const struct cli_cmd cli_cmd_calibrate = {
	"calibrate", "fit a device profile from a microbenchmark raw CSV", run
};
