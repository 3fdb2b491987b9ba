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
#include "sim/num.h"
#include "experiments/cli/cli.h"

enum { O_OUT, O_ALL_KEYS, O_DATE };

static const struct cli_opt opts[] = {
	[O_OUT] = { NULL, 'o', "FILE", "write the parameters into FILE's "
		    "[device] section (replacing\nthose keys, keeping every "
		    "other line); a new FILE gets only\nthe fitted keys: a "
		    "fragment to merge into a full profile\n(every fitted key "
		    "is a device-profile key, so the result loads)" },
	[O_ALL_KEYS] = { "all-keys", 0, NULL, "accepted for compatibility; no "
			 "effect (every fitted key is\nwritten by default)" },
	[O_DATE] = { "date", 0, "D", "the date in each value's source "
		     "(default: today, UTC)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"calibrate", "colosim calibrate RAW.csv [-o models/devices/NAME.ini] "
	"[--all-keys] [--date YYYY-MM-DD]",
	"Fits device-model parameters (copy latency and bandwidth, HBM "
	"bandwidth\nagainst SMs, MPS curves, co-run contention, time-slice "
	"quantum and switch\ncost, unified-memory rate) from the raw CSV of "
	"models/calibration/microbench/\nrun_all.sh and prints one line per "
	"parameter:\n\n    fit NAME value=V unit=U r2=R     (r2=nan: a direct "
	"measurement)", opts, "See docs/CALIBRATION.md."
};

struct cal_args {
	const char *raw_path, *out, *date;
	int all_keys;
};

/* The n-digit number at s in [lo, hi]; -1 when it is not. */
static int digits_at(const char *s, size_t n, int lo, int hi)
{
	char buf[8];
	int v;

	if (n >= sizeof buf || strspn(s, "0123456789") < n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return sim_num_int(buf, NULL, lo, hi, &v, NULL) == 0 ? v : -1;
}

/* 1 when s is YYYY-MM-DD with a month 1..12 and a day 1..31. */
static int is_date(const char *s)
{
	return strlen(s) == 10 && s[4] == '-' && s[7] == '-' &&
	       digits_at(s, 4, 0, 9999) >= 0 && digits_at(s + 5, 2, 1, 12) > 0 &&
	       digits_at(s + 8, 2, 1, 31) > 0;
}

static int on_opt(void *ctx, int opt, char *v)
{
	struct cal_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->raw_path != NULL)
			return cli_usage_error("calibrate: one raw CSV only "
					       "('%s' is extra)", v);
		a->raw_path = v;
		return 0;
	case O_OUT: a->out = v; return 0;
	case O_ALL_KEYS: a->all_keys = 1; return 0;
	case O_DATE:
		if (!is_date(v))
			return cli_usage_error("calibrate: --date '%s': "
					       "expected YYYY-MM-DD", v);
		a->date = v;
		return 0;
	}
	return 2;
}

static void print_fits(const struct cal_raw *raw, const struct cal_result *res,
		       const char *raw_path)
{
	size_t k;

	printf("# device %s, %zu rows of %s\n", raw->device, raw->n, raw_path);
	for (k = 0; k < res->n; k++) {
		const struct cal_fit *f = &res->fits[k];

		printf("fit %s value=%.6g unit=%s r2=%.4f%s\n", f->name, f->value,
		       f->unit, f->r2, f->in_profile ? "" :
		       "   (not a profile key: not written without --all-keys)");
	}
	for (k = 0; k < res->nskipped; k++)
		fprintf(stderr, "colosim: calibrate: skipped %s\n",
			res->skipped[k]);
}

/* Writes the fits into a->out; 0 or an exit status. */
static int write_profile(const struct cal_args *a, const struct cal_raw *raw,
			 const struct cal_result *res, const char *date)
{
	struct sim_err err;
	int fragment = 0;

	sim_err_clear(&err);
	if (cal_profile_write(a->out, res, date, raw->device, a->all_keys,
			      &fragment, &err) != 0)
		return cli_report(&err);
	if (fragment)
		printf("wrote %s: a fragment holding only the fitted keys; "
		       "merge it into a full device profile\n", a->out);
	else
		printf("wrote %s: updated the fitted keys of its [device] "
		       "section\n", a->out);
	return 0;
}

static int run(int argc, char **argv)
{
	struct cal_args a = { NULL, NULL, NULL, 0 };
	struct cal_raw raw;
	struct cal_result *res;
	struct sim_err err;
	char today[32];
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.raw_path == NULL)
		return cli_missing("calibrate", "RAW.csv", "colosim calibrate "
				   "RAW.csv [-o FILE.ini] [--all-keys] "
				   "[--date YYYY-MM-DD]");
	if (a.date == NULL) {
		time_t now = time(NULL);
		struct tm tm;

		if (gmtime_r(&now, &tm) == NULL ||
		    strftime(today, sizeof today, "%Y-%m-%d", &tm) == 0)
			snprintf(today, sizeof today, "unknown-date");
		a.date = today;
	}
	sim_err_clear(&err);
	res = malloc(sizeof *res);
	if ((rc = cal_raw_read(&raw, a.raw_path, &err)) == 0 && res == NULL)
		rc = sim_err_set(&err, SIM_ENOMEM, "out of memory");
	if (rc == 0)
		rc = cal_fit_all(&raw, res, &err);
	if (rc != 0) {
		free(res);
		cal_raw_fini(&raw);
		return cli_report(&err);
	}
	print_fits(&raw, res, a.raw_path);
	rc = a.out != NULL ? write_profile(&a, &raw, res, a.date) : 0;
	if (rc == 0 && res->n == 0) {
		fprintf(stderr, "colosim: calibrate: %s: nothing could be "
			"fitted\n", a.raw_path);
		rc = 1;
	}
	free(res);
	cal_raw_fini(&raw);
	return rc;
}

const struct cli_cmd cli_cmd_calibrate = {
	"calibrate", "fit a device profile from a microbenchmark raw CSV", run
};
