/*
** world_swap.h: swapping training jobs between GPU and host memory
** (world_swap.c): the kind "swap" (no tenants, no jobs of its own) behind
** world_swap_out / world_swap_in of world.h.  Private to sim/world/:
** world_builtin.c registers it.
*/
#ifndef COLOSIM_SIM_WORLD_SWAP_H
#define COLOSIM_SIM_WORLD_SWAP_H

#include "sim/world/world.h"

/* Registers the kind "swap"; reads cfg->preempt_cost (SIM_EINVAL unless
** WORLD_PREEMPT_FREE or _SWAP).  A world_init_fn. */
int world_swap_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err);
/* Swap copies in flight now (a finished run has none). */
int world_swap_inflight(const struct world *w);

#endif
