/*
** world_pool.h: the GPU pool (world_pool.c): the tenant kind
** "pool-executor" and the world_pool_* actions and view of world.h.
** Private to sim/world/: world_builtin.c registers it.
*/
#ifndef COLOSIM_SIM_WORLD_POOL_H
#define COLOSIM_SIM_WORLD_POOL_H

#include "sim/world/world.h"

/* Registers the kind "pool-executor" (its tenants: one executor per pool
** GPU; no trace jobs).  Needs the memory pool registered first.  A
** world_init_fn. */
int world_pool_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err);

#endif
