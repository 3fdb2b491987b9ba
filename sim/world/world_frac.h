/*
** world_frac.h: fractional GPUs and host resources, the feature behind
** world_place_share (world.h, "fractional GPUs"; docs/MODEL.md,
** "Fractional GPUs").  Registers the kind "frac" (no tenants of its own).
*/
#ifndef COLOSIM_SIM_WORLD_FRAC_H
#define COLOSIM_SIM_WORLD_FRAC_H

#include "sim/world/world.h"

/* world_builtin.c's init: the nodes' host resources from the cluster spec
** and their ranks from cfg->node_rank. */
int world_frac_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err);

#endif
