/*
** view.h: the world-side parts of the policy view (sim/world/view.c) that
** are not in the policy contract (policies/policy.h): pure model probes the
** view's calls are built on, for tests and tools.
*/
#ifndef COLOSIM_SIM_WORLD_VIEW_H
#define COLOSIM_SIM_WORLD_VIEW_H

#include "models/gpu.h"

/*
** The speeds of one work unit of profile prof alone on a scratch MPS GPU
** of device d: speed[0] on the whole GPU (share 1, as started), speed[p]
** for 1 <= p <= n after its share is set to p / n, in that order.  What
** pol_probe_mps returns for a job.  0, SIM_EINVAL (n < 1) or SIM_ENOSPC.
*/
int world_mps_speeds(const struct dev_profile *d,
		     const struct gpu_work_profile *prof, int n,
		     double *speed);

#endif
