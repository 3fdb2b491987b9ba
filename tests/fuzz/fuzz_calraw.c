/*
** fuzz_calraw.c: the calibration raw CSV reader (models/calibration/
** cal_raw.c) and the fits over what it accepts (cal_fit.c).
**
** Input: a raw CSV.  Checks: clean errors; every fit of an accepted table
** is finite (cal_fit.h's invariant).
*/
#include "tests/fuzz/fuzz.h"

#include <math.h>
#include <stdlib.h>

#include "models/calibration/cal_fit.h"
#include "models/calibration/cal_raw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("raw.csv", data, size);
	struct cal_raw raw = { 0 };
	struct cal_result *res;
	struct sim_err err;
	size_t i;
	int rc;

	sim_err_clear(&err);
	rc = cal_raw_read(&raw, path, &err);
	fuzz_clean_error(rc, &err, "cal_raw_read");
	if (rc == 0 && (res = malloc(sizeof *res)) != NULL) {
		sim_err_clear(&err);
		rc = cal_fit_all(&raw, res, &err);
		fuzz_clean_error(rc, &err, "cal_fit_all");
		for (i = 0; rc == 0 && i < res->n; i++)
			FUZZ_CHECK(isfinite(res->fits[i].value));
		free(res);
	}
	cal_raw_fini(&raw);
	return 0;
}
