/*
** meas.h: readers of the public measurement sets the co-location models are
** fitted on (../shared/measurements/, its README; docs/VALIDATION.md).
**
**   gavel-solo/solo_throughputs.csv   solo steps/s of Gavel's job types on
**                                     K80, P100, V100 (Gavel, OSDI'20)
**   lucid/single_data.csv             Lucid's jobs alone (ASPLOS'23)
**   lucid/colocate_info.csv           Lucid's pairs on one GPU, each job's
**                                     speed normalized to its solo speed
**   miso-mig/<slice>_<model>_train<batch>.json
**                                     MISO's per-iteration times on A100-40GB
**                                     MIG slices (SoCC'22)
**
** The repository never copies these files (licences); callers pass the
** folder.  Every reader returns 0, SIM_ENOENT when the file or folder is
** absent (so that callers can skip with a message), or SIM_EPARSE / SIM_EIO
** with "file:line: field: what was expected".  The arrays are owned by the
** struct and freed by meas_fini().
*/
#ifndef COLOSIM_MODELS_MEAS_H
#define COLOSIM_MODELS_MEAS_H

#include <stddef.h>

#include "sim/err.h"

#define MEAS_NAME_MAX 48

/* One Gavel solo throughput (one CSV row). */
struct meas_gavel {
	char gpu[16];                 /* "k80", "p100", "v100" */
	char model[MEAS_NAME_MAX];    /* Gavel's model column: "ResNet-50" */
	int batch;                    /* 0 when the job type has none */
	double steps_per_s;
	int line;
};

/* One of Lucid's jobs measured alone. */
struct meas_lucid_job {
	char model[MEAS_NAME_MAX], dataset[MEAS_NAME_MAX];
	int batch, amp;
	double speed;                 /* samples per second */
	double gpu_util;              /* nvidia-smi utilisation, 0..1 */
	double mem_util;              /* nvidia-smi memory utilisation, 0..1 */
	double gmem_mib;
	int line;
};

/* One of Lucid's co-located pairs: jobs j1, j2 (indices into the jobs),
** each one's speed over its solo speed. */
struct meas_lucid_pair {
	int j1, j2;
	double norm1, norm2;
	int line;
};

/* One MISO log: a job on one MIG slice. */
struct meas_miso {
	char slice[16];               /* "1g.5gb" */
	char model[MEAS_NAME_MAX];    /* "resnet" */
	int batch;
	double iter_s;                /* median iteration time, the first
					 (warm-up) entry left out */
	int n;                        /* iterations in the log */
};

struct meas_set {
	struct meas_gavel *gavel;
	size_t ngavel;
	struct meas_lucid_job *ljobs;
	size_t nljobs;
	struct meas_lucid_pair *lpairs;
	size_t nlpairs;
	struct meas_miso *miso;
	size_t nmiso;
};

void meas_init(struct meas_set *m);
void meas_fini(struct meas_set *m);

/* Each reads its part of the folder `dir` (the measurements root). */
int meas_load_gavel(struct meas_set *m, const char *dir, struct sim_err *err);
int meas_load_lucid(struct meas_set *m, const char *dir, struct sim_err *err);
int meas_load_miso(struct meas_set *m, const char *dir, struct sim_err *err);

#endif
