/*
** cal_fit.h: fits device-profile parameters from a raw calibration table
** (cal_raw.h) with GSL, and writes them into a device profile INI.
**
** Each fit is a named parameter with its value, unit and coefficient of
** determination r^2 (NAN for a direct measurement, which is a median, not a
** regression).  The names are keys of models/devices/NAME.ini, every one
** a field of struct dev_profile (models/device.h; the calibration-only ones
** are optional there).  The equations are in docs/CALIBRATION.md, "Fits".
**
** Invariants of a result: names are unique; values are finite; a parameter
** whose data is absent or unusable is not in fits[] but in skipped[] with
** the reason.
*/
#ifndef COLOSIM_MODELS_CALIBRATION_CAL_FIT_H
#define COLOSIM_MODELS_CALIBRATION_CAL_FIT_H

#include <stddef.h>

#include "models/calibration/cal_raw.h"
#include "sim/err.h"

#define CAL_FIT_MAX 64

struct cal_fit {
	char name[CAL_NAME_MAX];  /* profile key: "h2d_pinned_bytes_per_s" */
	double value;             /* in unit */
	char unit[24];            /* "bytes_per_s", "ns", "fraction", ... */
	double r2;                /* coefficient of determination; NAN: measured */
	int npoints;              /* data points (rows) behind the value */
	int in_profile;           /* 1 if the device loader knows this key */
};

struct cal_result {
	struct cal_fit fits[CAL_FIT_MAX];
	size_t n;
	char skipped[CAL_FIT_MAX][160];   /* "name: reason" */
	size_t nskipped;
};

/*
** Fits every parameter the table has data for into *res (overwritten).
** Returns 0, or SIM_ENOENT when the table holds no row any fit uses (the
** message names the file).  A fit whose data is present but unusable (too
** few points, a non-positive bandwidth) is skipped with a reason, not an
** error, so one broken benchmark does not hide the others.
*/
int cal_fit_all(const struct cal_raw *raw, struct cal_result *res,
		struct sim_err *err);

/* The fit named name, or NULL. */
const struct cal_fit *cal_result_find(const struct cal_result *res,
				      const char *name);

/* 1 if name is a key the device loader knows (dev_key_known), else 0. */
int cal_key_in_profile(const char *name);

/*
** Writes the fits into the [device] section of the INI at path, each as
** `name = value @ fitted DATE DEVICE r2=R` (or `@ measured DATE DEVICE`
** when r2 is NAN).  When the file exists, the lines of those keys in its
** [device] section are replaced and missing keys appended to the section
** (a [device] section is appended if there is none); every other line,
** comments included, is kept byte for byte.  When it does not exist, a
** file with a [device] section holding only the fits is written and
** *fragment is set to 1.  all_keys 0 writes only the keys the device
** loader knows (it rejects unknown keys), which today is every fit; 1
** writes every fit even so (a guard for a future fit without a key).  The file is written to a temporary file beside it and renamed, so
** it is never left half-written.  date and device are copied into each
** source text ('@' and line breaks in them are replaced by spaces).
** Returns 0, SIM_EIO (with the path and errno text) or SIM_ENOMEM.
*/
int cal_profile_write(const char *path, const struct cal_result *res,
		      const char *date, const char *device, int all_keys,
		      int *fragment, struct sim_err *err);

#endif
