/*
** validate.h: `make validate` / `colosim fit`: runs the co-location fits of
** models/colofit.h on the public measurements and writes docs/VALIDATION.md
** (Markdown), the generated table models/train_fits.c and the device-profile
** lines of the fitted keys.
**
** Library code: builds text in memory, never prints.  The caller owns the
** strings (free them).  The date (YYYY-MM-DD) goes into every fitted
** source line; the caller passes it (no clock in library code).
*/
#ifndef COLOSIM_EXPERIMENTS_VALIDATE_H
#define COLOSIM_EXPERIMENTS_VALIDATE_H

#include "models/colofit.h"
#include "models/device.h"
#include "sim/err.h"

/* The summary of one run, for the command's one-screen report and tests. */
struct exp_valsum {
	int have_gavel, have_lucid, have_miso;   /* which sets were found */
	char missing[1600];            /* what was absent, for the message */
	/* solo residuals per GPU: k80, p100, v100, rtx3090 */
	char gpu[4][DEV_NAME_MAX];
	int ngpu;
	size_t nres[4];
	double med_res[4], max_res[4];          /* |relative|, fractions */
	/* Lucid */
	struct colo_ts_params ts;               /* on all pairs */
	struct colo_fold folds[5];
	int nfolds;
	/* MISO */
	double mig_w, mig_w_lo, mig_w_hi, mig_lomo;
};

struct exp_valout {
	char *markdown;               /* docs/VALIDATION.md */
	char *fits_c;                 /* models/train_fits.c */
	char *keys;                   /* device-profile lines */
};

/* Runs every fit whose data is under meas_dir (skipping absent sets, named
** in sum->missing) against the profiles of cat.  0, or an error. */
int exp_validate(const char *meas_dir, const struct dev_catalog *cat,
		 const char *date, struct exp_valsum *sum,
		 struct exp_valout *out, struct sim_err *err);
void exp_valout_fini(struct exp_valout *o);

#endif
