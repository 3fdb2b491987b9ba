/*
** world_mempool.h: the memory pool (world_mempool.c; DistMind, ToN'24;
** docs/MODEL.md, "DistMind"): memory servers holding every zoo model in
** shards, and the loading net that carries a model's layer groups from
** its shards to a GPU (memory-server NIC -> node NIC, then the GPU's host
** link).  Its client is the GPU pool (world_pool.c), which starts flows on
** this net and is told when each ends.  Private to sim/world/.
*/
#ifndef COLOSIM_SIM_WORLD_MEMPOOL_H
#define COLOSIM_SIM_WORLD_MEMPOOL_H

#include "models/link.h"
#include "sim/world/world.h"

#define MEMPOOL_SHARDS_MAX 4          /* DistMind's distribution threshold */

/* One flow on the loading net, owned by the client (alive while active). */
struct mempool_flow {
	struct link_flow f;           /* first: the net's list points here */
	double rate_sched;            /* rate when its completion was set */
};

/* Flow `id` (the client's number, unique among its active flows) ended
** now and left the net, whose other flows were rescheduled already.  0 or
** a SIM_E* code that fails the run. */
typedef int mempool_done_fn(struct world *w, void *ctx, int id);

struct world_mempool;

/* Registers the kind "mempool" (no tenants, no jobs); reads
** cfg->memory_servers and memory_server_nic_bytes_per_s (SIM_EINVAL when
** negative).  A world_init_fn. */
int world_mempool_init(struct world *w, const struct world_config *cfg,
		       struct sim_err *err);
/* World w's memory pool (registered at world_create). */
struct world_mempool *mempool_of(const struct world *w);
/* Builds the loading net and the shards on first use; 0 or an error.
** Sets the client's completion callback (ctx borrowed for the run). */
int mempool_open(struct world *w, struct world_mempool *mp,
		 mempool_done_fn *done, void *ctx, struct sim_err *err);
/* Model m's index in the zoo, -1 for none. */
int mempool_zoo_index(const struct zoo_model *m);
/* Starts one layer group of model m towards GPU g: `bytes` striped in
** equal parts over m's shards, one flow per shard into flows[0..), with
** ids id0, id0 + 1, ...  Returns the number of flows, 0 when m is not a
** zoo model (nothing to fetch), or an error (run failed).  The caller
** reschedules (mempool_resched) once it has started what it starts. */
int mempool_fetch(struct world *w, struct world_mempool *mp, int g,
		  const struct zoo_model *m, double bytes,
		  struct mempool_flow *flows, int id0);
/* Starts a flow of `bytes` over GPU g's host link (H2D) as id. */
int mempool_to_gpu(struct world *w, struct world_mempool *mp, int g,
		   double bytes, struct mempool_flow *f, int id);
/* Reschedules the completion of every active flow whose rate changed. */
int mempool_resched(struct world *w, struct world_mempool *mp);
/* Takes f off the net if active, without an event (the client's fini). */
void mempool_drop(struct world *w, struct world_mempool *mp,
		  struct mempool_flow *f);

#endif
