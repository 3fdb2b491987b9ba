/*
** fuzz_device.c: the device-profile loader (models/device.c) and what the
** models derive from an accepted profile (models/workload.c).
**
** Input: a profile INI.  An accepted profile must give, for every zoo
** model at a few batch sizes, finite iteration and batch times and work
** profiles that gpu_begin accepts (alpha and sat in range, bw_frac >= 0):
** a profile that loads may never reach an assert later.
*/
#include "tests/fuzz/fuzz.h"

#include <math.h>
#include <stdlib.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/workload.h"
#include "models/zoo.h"

static void check_prof(const struct gpu_work_profile *p)
{
	FUZZ_CHECK(p->alpha >= 0 && p->alpha <= 1);
	FUZZ_CHECK(p->sat > 0 && p->sat <= 1);
	FUZZ_CHECK(p->bw_frac >= 0 && isfinite(p->bw_frac));
}

static void check_models(const struct dev_profile *d)
{
	static const int batches[] = { 1, 32, 1 << 20 };
	struct gpu_work_profile p;
	size_t i, b;

	for (i = 0; i < zoo_count(); i++) {
		const struct zoo_model *m = zoo_at(i);
		for (b = 0; b < sizeof batches / sizeof batches[0]; b++) {
			FUZZ_CHECK(wl_train_iter_ns(m, d, batches[b],
						    WL_PREC_FP32) > 0);
			FUZZ_CHECK(wl_train_iter_ns(m, d, batches[b],
						    WL_PREC_MIXED) > 0);
			FUZZ_CHECK(wl_infer_batch_ns(m, d, batches[b]) > 0);
			wl_train_profile(m, d, batches[b], WL_PREC_FP32, &p);
			check_prof(&p);
			wl_train_profile(m, d, batches[b], WL_PREC_MIXED, &p);
			check_prof(&p);
			wl_infer_profile(m, d, batches[b], &p);
			check_prof(&p);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("d.ini", data, size);
	struct dev_profile *d = malloc(sizeof *d);
	struct sim_err err;
	int rc;

	if (d == NULL)
		return 0;
	sim_err_clear(&err);
	rc = dev_load_file(path, d, &err);
	fuzz_clean_error(rc, &err, "dev_load_file");
	if (rc == 0)
		check_models(d);
	free(d);
	return 0;
}
