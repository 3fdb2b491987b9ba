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

/* One flow on the loading net, inside a struct mempool_load. */
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

/*
** A load of model m onto GPU g: its layer groups pass the network stage
** (one flow per shard, each carrying an equal part of the group) and then
** the PCIe stage, one group per stage at a time (the first two stages of
** DistMind's pipe; docs/MODEL.md, "Links").  The client owns the struct
** and the group sizes, keeps both alive while flows are active, and reads
** pcie_done: groups that reached the GPU.  Flow ids: id0 + shard for the
** network, id0 + MEMPOOL_SHARDS_MAX for PCIe.
*/
struct mempool_load {
	int g, id0;
	const struct zoo_model *m;
	const double *gbytes;         /* per group; <= 0: nothing to move */
	int ngroups;
	int net_started, net_done, net_left;
	int pcie_started, pcie_done;
	struct mempool_flow flow[MEMPOOL_SHARDS_MAX + 1];
};

/* Sets ld up for ngroups groups of gbytes (borrowed); without `load`
** every group counts as arrived already. */
void mempool_load_init(struct mempool_load *ld, int g, int id0,
		       const struct zoo_model *m, const double *gbytes,
		       int ngroups, int load);
/* Starts the stages that can start now (and reschedules the net when a
** flow started); 0 or an error (run failed). */
int mempool_load_step(struct world *w, struct world_mempool *mp,
		      struct mempool_load *ld);
/* The client's mempool_done_fn saw flow id of ld end: count it.  The
** client then calls mempool_load_step. */
void mempool_load_flow_done(struct mempool_load *ld, int id);
/* Takes ld's active flows off the net without events (the client's
** fini, for a stop with loads in flight). */
void mempool_load_drop(struct world *w, struct world_mempool *mp,
		       struct mempool_load *ld);

#endif
