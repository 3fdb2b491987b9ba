/*
** world_builtin.c: the built-in features of every world, as Lua's linit.c:
** one static NULL-terminated table of their init functions, which
** world_create calls in order (each registers its kind: world_int.h).  The
** order is the order of the kinds' run metrics (xResults) and the reverse
** of their xFini; a feature comes after those it uses (the GPU pool after
** the memory pool).  Adding a built-in feature is one line here; a kind
** registered at run time (world__kind_add) needs none.
*/
#include "sim/world/service.h"
#include "sim/world/world_frac.h"
#include "sim/world/world_int.h"
#include "sim/world/world_llm.h"
#include "sim/world/world_mempool.h"
#include "sim/world/world_pool.h"
#include "sim/world/world_swap.h"
#include "sim/world/world_train.h"

static world_init_fn *const builtin[] = {
	world_train_init,             /* "train": training jobs */
	svc_init,                     /* "replica": inference services */
	world_mempool_init,           /* "mempool": the memory pool */
	world_pool_init,              /* "pool-executor": the GPU pool */
	world_frac_init,              /* "frac": share placements, host
					 CPU and memory (before "swap":
					 it refuses swaps onto shared GPUs) */
	world_swap_init,              /* "swap": swapping */
	world_llm_init,               /* "llm": LLM services */
	NULL
};

int world__builtin_init(struct world *w, const struct world_config *cfg,
			struct sim_err *err)
{
	int k, rc;

	for (k = 0; builtin[k] != NULL; k++)
		if ((rc = builtin[k](w, cfg, err)) != 0)
			return rc;
	return 0;
}
