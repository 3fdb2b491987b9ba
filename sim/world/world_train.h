/*
** world_train.h: the training worker tenant kind (world_train.c).  Private
** to sim/world/: world_builtin.c registers it.
*/
#ifndef COLOSIM_SIM_WORLD_TRAIN_H
#define COLOSIM_SIM_WORLD_TRAIN_H

#include "sim/world/world.h"

/* Registers the kind "train" (runs the trace's training jobs; its metrics:
** jct_*, queue_delay_mean_s, slowdown_mean).  A world_init_fn. */
int world_train_init(struct world *w, const struct world_config *cfg,
		     struct sim_err *err);

#endif
