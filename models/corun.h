/*
** corun.h: what happens when these training jobs share this GPU
** (`colosim corun`; docs/MODEL.md, "Duty cycles").
**
** Each job is a zoo model at a batch and precision.  Its solo rate is the
** workload model's iteration time alone on the whole device; its co-located
** rate comes from the GPU model (models/gpu.c) with every job attached and
** busy at once: the code, profiles and allocations a replay uses for the
** same jobs arriving together (tests/test_corun.c replays them and compares).
** Pure: no printing.
*/
#ifndef COLOSIM_MODELS_CORUN_H
#define COLOSIM_MODELS_CORUN_H

#include <stdint.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "sim/err.h"

#define CORUN_MAX_JOBS 8

struct corun_job {
	const struct zoo_model *m;
	int batch;
	enum wl_precision prec;
	/* results */
	uint64_t mem_bytes;           /* the allocation (peak footprint) */
	double solo_steps_per_s;
	double steps_per_s;           /* co-located */
	double normalized;            /* steps_per_s / solo_steps_per_s */
	struct gpu_work_profile prof;
};

/* Parses "MODEL[:BATCH[:amp]]" (batch defaults to the zoo's); SIM_EINVAL
** with a message naming the part that is wrong. */
int corun_parse_job(const char *s, struct corun_job *out, struct sim_err *err);

/* Runs n jobs (2..CORUN_MAX_JOBS) together on device d in mode (not
** exclusive).  MIG: mig_profile names the slice each job gets (one slice
** per job); the others share the whole GPU (MPS caps 1).  SIM_ENOSPC when
** they do not fit in memory together ("... need N bytes, M free"),
** SIM_ENOENT for an unknown MIG profile, SIM_EINVAL for a bad mode. */
int corun_run(const struct dev_profile *d, enum gpu_mode mode,
	      const char *mig_profile, struct corun_job *jobs, int n,
	      double *combined_normalized, struct sim_err *err);

#endif
