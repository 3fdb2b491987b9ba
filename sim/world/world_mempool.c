/*
** world_mempool.c: the memory pool (DistMind, ToN'24; see
** world_mempool.h, world.h and docs/MODEL.md, "DistMind").
**
** `servers` memory servers, each with one NIC link; every zoo model is
** sharded over min(servers, 4) of them, chosen by the named stream
** ("mempool", zoo index), and every layer group is striped in equal parts
** over its model's shards (DistMind's deploy_file.py).  The loading net
** (models/link.h) holds the servers' NICs, one NIC per node and each
** GPU's host link, built on first use (mempool_open).  A load (struct
** mempool_load) carries a model's layer groups through two stages, the
** network (one flow per shard) and PCIe, one group per stage at a time;
** its flows live in the client's struct (the GPU pool's) and share links
** max-min fairly with every other load.  The flows' completion events
** are this file's; each completion is passed on to the client
** (mempool_done_fn).
**
** Invariant: a flow's completion event is rescheduled only when its rate
** changed, so an undisturbed flow ends at its exact drain time.
*/
#include "sim/world/world_mempool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim/rng.h"
#include "sim/world/world_int.h"

struct world_mempool {
	int servers;
	double server_bytes_per_s;
	int built;                    /* 0 not yet, 1 built, < 0 its error */
	struct link_net net;
	int *ms_link, *node_link, *h2d;
	int (*shards)[MEMPOOL_SHARDS_MAX];
	int nshards;
	mempool_done_fn *done;
	void *done_ctx;
	struct world *w;              /* for the flows' events */
};

static const struct world_kind mempool_kind;

struct world_mempool *mempool_of(const struct world *w)
{
	return world__kind_state(w, &mempool_kind);
}

int mempool_zoo_index(const struct zoo_model *m)
{
	size_t i;

	for (i = 0; i < zoo_count(); i++)
		if (zoo_at(i) == m)
			return (int)i;
	return -1;
}

/* The shards of zoo model zi among S servers: min(S, 4) distinct servers
** drawn by the stream ("mempool", zi); returns their number or < 0. */
static int shards_of(uint64_t seed, int S, int zi, int *out,
		     struct sim_err *err)
{
	struct sim_rng r = { NULL, 0 };
	int k = S < MEMPOOL_SHARDS_MAX ? S : MEMPOOL_SHARDS_MAX, i, rc;
	int *src = malloc((size_t)(S > 0 ? S : 1) * sizeof *src);

	if (src == NULL)
		return sim_err_set(err, SIM_ENOMEM, "pool: out of memory");
	for (i = 0; i < S; i++)
		src[i] = i;
	rc = sim_rng_init(&r, seed, "mempool", (uint64_t)zi, err);
	if (rc == 0 && k > 0)
		gsl_ran_choose(r.r, out, (size_t)k, src, (size_t)S,
			       sizeof *src);
	sim_rng_fini(&r);
	free(src);
	return rc < 0 ? rc : k;
}

/* The links (servers' NICs, nodes' NICs, GPUs' host links, in this order)
** and every zoo model's shards. */
static int build(struct world *w, struct world_mempool *mp,
		 struct sim_err *err)
{
	int S = mp->servers, k, g, i, rc = 0;
	char name[LINK_NAME_MAX];

	mp->nshards = S < MEMPOOL_SHARDS_MAX ? S : MEMPOOL_SHARDS_MAX;
	mp->ms_link = malloc((size_t)S * sizeof *mp->ms_link);
	mp->node_link = malloc((size_t)w->cl->nnodes * sizeof *mp->node_link);
	mp->h2d = malloc((size_t)w->ngpus * sizeof *mp->h2d);
	mp->shards = calloc(zoo_count(), sizeof *mp->shards);
	if (mp->ms_link == NULL || mp->node_link == NULL || mp->h2d == NULL ||
	    mp->shards == NULL)
		return sim_err_set(err, SIM_ENOMEM, "pool: out of memory");
	/* RDMA NICs: no latency figure in the config; 0 (docs/MODEL.md) */
	for (k = 0; k < S && rc >= 0; k++) {
		snprintf(name, sizeof name, "mem%d.nic", k);
		rc = mp->ms_link[k] = link_add(&mp->net, name,
					       mp->server_bytes_per_s, 0, err);
	}
	for (k = 0; k < w->cl->nnodes && rc >= 0; k++) {
		snprintf(name, sizeof name, "node%d.nic", k);
		rc = mp->node_link[k] = link_add(&mp->net, name,
						 w->nic_bytes_per_s, 0, err);
	}
	for (g = 0; g < w->ngpus && rc >= 0; g++) {
		int d2h;
		snprintf(name, sizeof name, "gpu%d", g);
		rc = link_add_host(&mp->net, w->gpus[g].dev, name, 1,
				   &mp->h2d[g], &d2h, err);
	}
	/* seeded placement: a named stream per model, so a model's shards
	** do not depend on which other models exist or load first */
	for (i = 0; i < (int)zoo_count() && rc >= 0; i++)
		rc = shards_of(w->seed, S, i, mp->shards[i], err);
	return rc < 0 ? rc : 0;
}

int mempool_open(struct world *w, struct world_mempool *mp,
		 mempool_done_fn *done, void *ctx, struct sim_err *err)
{
	if (mp->built == 0)
		mp->built = build(w, mp, err) == 0 ? 1 : SIM_ENOMEM;
	if (mp->built < 0)
		return err != NULL && err->code ? err->code : mp->built;
	mp->done = done;
	mp->done_ctx = ctx;
	return 0;
}

/* ---- flows --------------------------------------------------------------- */

static int resched(struct world *w, struct world_mempool *mp);

static int on_flow_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world_mempool *mp = ctx;
	struct link_flow *f;
	int id = (int)arg, rc;

	(void)s;
	for (f = mp->net.flows; f != NULL && f->id != id; f = f->next_)
		;
	if (f == NULL)
		return sim_fail(&mp->w->sim, SIM_ESTATE, "pool: no transfer "
				"%d in flight", id);
	f->ev = 0;
	link_flow_end(&mp->net, f, mp->w->sim.now);
	if ((rc = resched(mp->w, mp)) != 0)
		return rc;
	return mp->done(mp->w, mp->done_ctx, id);
}

/* Reschedules the completion of every active flow whose rate changed. */
static int resched(struct world *w, struct world_mempool *mp)
{
	struct link_flow *f;
	int rc;

	for (f = mp->net.flows; f != NULL; f = f->next_) {
		struct mempool_flow *mf = (struct mempool_flow *)f;
		sim_time fin;

		/* unchanged rate: the event stands.  Drained: its end (drain +
		** latency) cannot move, and link_flow_finish_time would count
		** the latency again from the last settle */
		if (f->ev != 0 && (mf->rate_sched == f->rate_bytes_per_s ||
				   f->bytes_left <= 0))
			continue;
		if (f->ev != 0) {
			sim_cancel(&w->sim, f->ev);
			f->ev = 0;
		}
		mf->rate_sched = f->rate_bytes_per_s;
		fin = link_flow_finish_time(f, w->sim.now);
		if (fin == SIM_TIME_NEVER)
			continue;
		rc = sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE,
				     on_flow_done, mp, (uint64_t)f->id, &f->ev);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "pool: cannot schedule a "
					"transfer: %s", sim_strerror(rc));
	}
	return 0;
}

static int start_flow(struct world *w, struct world_mempool *mp,
		      struct mempool_flow *mf, int id, const int *path,
		      int npath, double bytes)
{
	struct sim_err e = { 0, "" };
	int rc;

	memset(mf, 0, sizeof *mf);
	mf->f.id = id;
	mf->rate_sched = -1;
	rc = link_flow_start(&mp->net, &mf->f, path, npath, bytes, 0,
			     w->sim.now, &e);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "pool: %s", e.msg);
	return 0;
}

/* Starts one group of ld over the network: its bytes striped in equal
** parts over the model's shards; returns the number of flows, 0 for a
** model not in the zoo (nothing to fetch), or an error. */
static int fetch(struct world *w, struct world_mempool *mp,
		 struct mempool_load *ld, double bytes)
{
	int zi = mempool_zoo_index(ld->m), s, rc;

	if (zi < 0)
		return 0;
	for (s = 0; s < mp->nshards; s++) {
		int path[2];
		path[0] = mp->ms_link[mp->shards[zi][s]];
		path[1] = mp->node_link[w->gpus[ld->g].node];
		if ((rc = start_flow(w, mp, &ld->flow[s], ld->id0 + s, path, 2,
				     bytes / mp->nshards)) != 0)
			return rc;
	}
	return mp->nshards;
}

void mempool_load_init(struct mempool_load *ld, int g, int id0,
		       const struct zoo_model *m, const double *gbytes,
		       int ngroups, int load)
{
	ld->g = g;
	ld->id0 = id0;
	ld->m = m;
	ld->gbytes = gbytes;
	ld->ngroups = ngroups;
	ld->net_left = 0;
	ld->net_started = ld->net_done = ld->pcie_started = ld->pcie_done =
		load ? 0 : ngroups;
}

/* Starts the network and PCIe stages that can start; 1 if any did. */
static int start_stages(struct world *w, struct world_mempool *mp,
			struct mempool_load *ld)
{
	int n, changed = 0;

	/* network: one group at a time, one flow per shard */
	while (ld->net_left == 0 && ld->net_started == ld->net_done &&
	       ld->net_started < ld->ngroups) {
		double b = ld->gbytes[ld->net_started];
		ld->net_started++;
		if (b <= 0 || (n = fetch(w, mp, ld, b)) == 0) {
			ld->net_done++;
			continue;
		}
		if (n < 0)
			return n;
		ld->net_left = n;
		changed = 1;
	}
	/* PCIe: a group that crossed the network */
	while (ld->pcie_started == ld->pcie_done &&
	       ld->pcie_started < ld->net_done) {
		double b = ld->gbytes[ld->pcie_started];
		ld->pcie_started++;
		if (b <= 0) {
			ld->pcie_done++;
			continue;
		}
		if ((n = start_flow(w, mp, &ld->flow[MEMPOOL_SHARDS_MAX],
				    ld->id0 + MEMPOOL_SHARDS_MAX,
				    &mp->h2d[ld->g], 1, b)) != 0)
			return n;
		changed = 1;
	}
	return changed;
}

int mempool_load_step(struct world *w, struct world_mempool *mp,
		      struct mempool_load *ld)
{
	int rc = start_stages(w, mp, ld);

	return rc == 1 ? resched(w, mp) : rc;
}

void mempool_load_flow_done(struct mempool_load *ld, int id)
{
	if (id - ld->id0 == MEMPOOL_SHARDS_MAX)
		ld->pcie_done++;
	else if (--ld->net_left == 0)
		ld->net_done++;
}

void mempool_load_drop(struct world *w, struct world_mempool *mp,
		       struct mempool_load *ld)
{
	int k;

	for (k = 0; k <= MEMPOOL_SHARDS_MAX; k++)
		if (ld->flow[k].f.active)
			link_flow_end(&mp->net, &ld->flow[k].f, w->sim.now);
}

/* ---- the view ------------------------------------------------------------ */

int world_pool_servers(const struct world *w)
{
	const struct world_mempool *mp = world__kind_own(w, &mempool_kind);

	return mp->servers;
}

int world_pool_shards(const struct world *w, const struct zoo_model *m,
		      int *servers)
{
	int zi = mempool_zoo_index(m), k;

	if (zi < 0)
		return 0;
	k = shards_of(w->seed, world_pool_servers(w), zi, servers, NULL);
	return k < 0 ? 0 : k;
}

/* ---- the kind ------------------------------------------------------------ */

/* The net first: link_net_fini walks the flows still active, which live
** in the client (the GPU pool drops its own at its fini). */
static void mempool_fini(struct world *w, void *state)
{
	struct world_mempool *mp = state;

	(void)w;
	link_net_fini(&mp->net);
	free(mp->ms_link);
	free(mp->node_link);
	free(mp->h2d);
	free(mp->shards);
	free(mp);
}

static const struct world_kind mempool_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "mempool",
	.eJob = WORLD_NO_JOBS,
	.xFini = mempool_fini,
};

int world_mempool_init(struct world *w, const struct world_config *cfg,
		       struct sim_err *err)
{
	struct world_mempool *mp;
	int rc;

	if (cfg->memory_servers < 0 || cfg->memory_server_nic_bytes_per_s < 0)
		return sim_err_set(err, SIM_EINVAL, "memory pool: %d servers "
				   "at %g B/s (expected >= 0)",
				   cfg->memory_servers,
				   cfg->memory_server_nic_bytes_per_s);
	if ((mp = calloc(1, sizeof *mp)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	mp->w = w;
	link_net_init(&mp->net);
	mp->servers = cfg->memory_servers > 0 ? cfg->memory_servers :
		cfg->cluster->nnodes;
	mp->server_bytes_per_s = cfg->memory_server_nic_bytes_per_s > 0 ?
		cfg->memory_server_nic_bytes_per_s : w->nic_bytes_per_s;
	if ((rc = world__kind_add(w, &mempool_kind, mp, err)) != 0)
		mempool_fini(w, mp);
	return rc;
}
