/*
** world_load.c: the GPU pool and the memory pool (DistMind, ToN'24; see
** world.h and docs/MODEL.md, "DistMind").
**
** The memory pool: `mem_servers` memory servers, each with one NIC link;
** every zoo model is sharded over min(servers, 4) of them, chosen by the
** named stream ("mempool", zoo index), and every layer group is striped in
** equal parts over its model's shards (DistMind's deploy_file.py).
**
** The GPU pool: a GPU that joins runs one executor, a gpu_tenant with id
** -1 - g whose allocation is the CUDA context + the weights of the models
** in its cache + the activations of the running batch.  It runs one pipe
** at a time: a load (prefetch), or a batch of one pooled service, whose
** model is loaded first if absent.  A pipe moves layer groups through three
** stages, one group per stage at a time (a flow shop): network (one flow
** per shard, memory-server NIC -> node NIC), PCIe (a flow on the GPU's
** host link) and execute (a work unit on the executor).  Flows share links
** max-min fairly with every other load in the cluster (models/link.c), so
** without contention a pipe ends exactly at the recurrence of
** link_pipeline; with contention, later.  WORLD_LOAD_WHOLE is the same
** pipe with one group: the whole model over the network, then over PCIe,
** then the whole batch.
**
** Invariants: a pool GPU's load counts the requests dispatched to it and
** not finished; the executor's mem_bytes = base + cached weights +
** running activations, never over capacity (evictions make room, LRU among
** idle resident models); a flow's completion event is rescheduled only
** when its rate changed, so an undisturbed flow ends at its exact drain
** time.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/link.h"
#include "models/workload.h"
#include "sim/rng.h"
#include "sim/world/service.h"
#include "sim/world/world_int.h"

#define POOL_SHARDS_MAX 4             /* DistMind's distribution threshold */
#define POOL_SLOT_PCIE POOL_SHARDS_MAX
#define POOL_BYTES_PER_PARAM 4.0      /* FP32 weights, as PyTorch keeps them */

enum { ENT_LOADING = 1, ENT_RESIDENT = 2 };

struct pool_req {
	int job;
	sim_time t_arr;
};

struct pool_fifo {
	struct pool_req *v;
	size_t head, n, cap;
};

struct pool_entry {
	const struct zoo_model *m;
	uint64_t bytes;
	int state;
	sim_time last_use;
};

struct pool_gpu {
	int in;
	int h2d;                      /* link index */
	struct gpu_tenant exec;       /* the executor, id -1 - g */
	uint64_t base_bytes, act_bytes;
	struct pool_entry *cache;
	int ncache, capcache;
	struct pool_fifo q;           /* requests dispatched here */
	int load;
	/* the pipe */
	int active, task_job, ent;
	const struct zoo_model *m;
	struct pool_req *batch;
	int nbatch, capbatch;
	int ngroups, capg;
	double *gbytes;
	sim_time *gexec;
	int net_started, net_done, net_left;
	int pcie_started, pcie_done, exec_started, exec_done;
	struct link_flow flow[POOL_SHARDS_MAX + 1];
	double flow_rate[POOL_SHARDS_MAX + 1];
	sim_time busy_since, busy_ns;
};

struct world_pool {
	struct link_net net;
	int *ms_link, *node_link;
	int (*shards)[POOL_SHARDS_MAX];
	int nshards;
	enum world_load_mode mode;
	int joined;                   /* any GPU ever joined */
	struct pool_fifo q;
	struct pool_gpu *g;
	uint64_t loads;
	int dispatching;
};

static int fifo_push(struct pool_fifo *f, struct pool_req r)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16, k;
		struct pool_req *p = malloc(cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		for (k = 0; k < f->n; k++)
			p[k] = f->v[(f->head + k) % f->cap];
		free(f->v);
		f->v = p;
		f->head = 0;
		f->cap = cap;
	}
	f->v[(f->head + f->n) % f->cap] = r;
	f->n++;
	return 0;
}

static struct pool_req *fifo_at(struct pool_fifo *f, size_t k)
{
	return &f->v[(f->head + k) % f->cap];
}

static struct pool_req fifo_pop(struct pool_fifo *f)
{
	struct pool_req r = f->v[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return r;
}

/* ---- creation ---------------------------------------------------------- */

static int zoo_index(const struct zoo_model *m)
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
	int k = S < POOL_SHARDS_MAX ? S : POOL_SHARDS_MAX, i, rc;
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

static int pool_create(struct world *w, struct sim_err *err)
{
	struct world_pool *p = calloc(1, sizeof *p);
	int S = w->mem_servers, k, g, i, rc = 0;
	char name[LINK_NAME_MAX];

	if (p == NULL)
		return sim_err_set(err, SIM_ENOMEM, "pool: out of memory");
	w->pool = p;
	link_net_init(&p->net);
	p->nshards = S < POOL_SHARDS_MAX ? S : POOL_SHARDS_MAX;
	p->ms_link = malloc((size_t)S * sizeof *p->ms_link);
	p->node_link = malloc((size_t)w->cl->nnodes * sizeof *p->node_link);
	p->g = calloc((size_t)w->ngpus, sizeof *p->g);
	p->shards = calloc(zoo_count(), sizeof *p->shards);
	if (p->ms_link == NULL || p->node_link == NULL || p->g == NULL ||
	    p->shards == NULL)
		return sim_err_set(err, SIM_ENOMEM, "pool: out of memory");
	/* RDMA NICs: no latency figure in the config; 0 (docs/MODEL.md) */
	for (k = 0; k < S && rc >= 0; k++) {
		snprintf(name, sizeof name, "mem%d.nic", k);
		rc = p->ms_link[k] = link_add(&p->net, name,
					      w->mem_server_bytes_per_s, 0, err);
	}
	for (k = 0; k < w->cl->nnodes && rc >= 0; k++) {
		snprintf(name, sizeof name, "node%d.nic", k);
		rc = p->node_link[k] = link_add(&p->net, name,
						w->nic_bytes_per_s, 0, err);
	}
	for (g = 0; g < w->ngpus && rc >= 0; g++) {
		int d2h;
		snprintf(name, sizeof name, "gpu%d", g);
		rc = link_add_host(&p->net, w->gpus[g].dev, name, 1,
				   &p->g[g].h2d, &d2h, err);
		p->g[g].ent = -1;
	}
	/* seeded placement: a named stream per model, so a model's shards
	** do not depend on which other models exist or load first */
	for (i = 0; i < (int)zoo_count() && rc >= 0; i++)
		rc = shards_of(w->seed, S, i, p->shards[i], err);
	return rc < 0 ? rc : 0;
}

static struct world_pool *pool_get(struct world *w, struct sim_err *err)
{
	if (w->pool == NULL && pool_create(w, err) != 0)
		return NULL;
	return w->pool;
}

void world__pool_fini(struct world *w)
{
	struct world_pool *p = w->pool;
	int g;

	if (p == NULL)
		return;
	/* The net first: link_net_fini walks the flows in flight (a
	** horizon stop), which live in p->g. */
	link_net_fini(&p->net);
	for (g = 0; g < w->ngpus && p->g != NULL; g++) {   /* NULL: a failed
							       pool_create */
		struct pool_gpu *pg = &p->g[g];
		free(pg->cache);
		free(pg->q.v);
		free(pg->batch);
		free(pg->gbytes);
		free(pg->gexec);
	}
	free(p->q.v);
	free(p->g);
	free(p->ms_link);
	free(p->node_link);
	free(p->shards);
	free(p);
	w->pool = NULL;
}

/* ---- events -------------------------------------------------------------- */

static int on_flow_done(struct sim *s, void *ctx, uint64_t arg);
static int on_exec_done(struct sim *s, void *ctx, uint64_t arg);
static int pipe_advance(struct world *w, int g);

/* Reschedules the completion of every active flow whose rate changed. */
static int net_resched(struct world *w)
{
	struct world_pool *p = w->pool;
	struct link_flow *f;
	int rc;

	for (f = p->net.flows; f != NULL; f = f->next_) {
		int g = f->id >> 3, slot = f->id & 7;
		double *r = &p->g[g].flow_rate[slot];
		sim_time fin;

		/* unchanged rate: the event stands.  Drained: its end (drain +
		** latency) cannot move, and link_flow_finish_time would count
		** the latency again from the last settle */
		if (f->ev != 0 && (*r == f->rate_bytes_per_s ||
				   f->bytes_left <= 0))
			continue;
		if (f->ev != 0) {
			sim_cancel(&w->sim, f->ev);
			f->ev = 0;
		}
		*r = f->rate_bytes_per_s;
		fin = link_flow_finish_time(f, w->sim.now);
		if (fin == SIM_TIME_NEVER)
			continue;
		rc = sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE,
				     on_flow_done, w, (uint64_t)f->id, &f->ev);
		if (rc != 0)
			return sim_fail(&w->sim, rc, "pool: cannot schedule a "
					"transfer: %s", sim_strerror(rc));
	}
	return 0;
}

int world__pool_tenant_changed(struct world *w, struct gpu_tenant *t)
{
	sim_time fin;
	int g = -1 - t->id, rc;

	if (t->ev != 0) {
		sim_cancel(&w->sim, t->ev);
		t->ev = 0;
	}
	if (!t->busy)
		return 0;
	fin = gpu_finish_time(t, w->sim.now);
	if (fin == SIM_TIME_NEVER)
		return 0;
	rc = sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE, on_exec_done, w,
			     (uint64_t)g, &t->ev);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "pool: cannot schedule a batch: %s",
				sim_strerror(rc));
	return 0;
}

static int start_flow(struct world *w, int g, int slot, const int *path,
		      int npath, double bytes)
{
	struct world_pool *p = w->pool;
	struct link_flow *f = &p->g[g].flow[slot];
	struct sim_err e = { 0, "" };
	int rc;

	memset(f, 0, sizeof *f);
	f->id = g * 8 + slot;
	p->g[g].flow_rate[slot] = -1;
	rc = link_flow_start(&p->net, f, path, npath, bytes, 0, w->sim.now,
			     &e);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "pool: %s", e.msg);
	return 0;
}

static int on_flow_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	struct world_pool *p = w->pool;
	int g = (int)(arg >> 3), slot = (int)(arg & 7), rc;
	struct pool_gpu *pg = &p->g[g];

	(void)s;
	pg->flow[slot].ev = 0;
	link_flow_end(&p->net, &pg->flow[slot], w->sim.now);
	if (slot == POOL_SLOT_PCIE)
		pg->pcie_done++;
	else if (--pg->net_left == 0)
		pg->net_done++;
	if ((rc = net_resched(w)) != 0)
		return rc;
	return pipe_advance(w, g);
}

static int on_exec_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;
	int g = (int)arg, rc;
	struct pool_gpu *pg = &w->pool->g[g];

	(void)s;
	pg->exec.ev = 0;
	gpu_finish(&w->gpus[g], &pg->exec, w->sim.now);
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	pg->exec_done++;
	return pipe_advance(w, g);
}

/* ---- memory -------------------------------------------------------------- */

static uint64_t model_bytes(const struct zoo_model *m)
{
	return (uint64_t)((double)m->params * POOL_BYTES_PER_PARAM);
}

static int find_entry(const struct pool_gpu *pg, const struct zoo_model *m)
{
	int k;

	for (k = 0; k < pg->ncache; k++)
		if (pg->cache[k].m == m)
			return k;
	return -1;
}

static uint64_t cached_bytes(const struct pool_gpu *pg)
{
	uint64_t b = 0;
	int k;

	for (k = 0; k < pg->ncache; k++)
		b += pg->cache[k].bytes;
	return b;
}

/* Sets the executor's allocation from its parts. */
static int exec_resize(struct world *w, int g, struct sim_err *err)
{
	struct pool_gpu *pg = &w->pool->g[g];

	return gpu_resize(&w->gpus[g], &pg->exec, pg->base_bytes +
			  cached_bytes(pg) + pg->act_bytes, w->sim.now, 0, err);
}

static void drop_entry(struct pool_gpu *pg, int k)
{
	pg->cache[k] = pg->cache[--pg->ncache];
}

/* Evicts idle resident models (least recently used first, never `keep`)
** until `extra` more bytes fit; SIM_ENOSPC when they cannot. */
static int make_room(struct world *w, int g, uint64_t extra,
		     const struct zoo_model *keep)
{
	struct pool_gpu *pg = &w->pool->g[g];
	const struct gpu *gp = &w->gpus[g];

	while (gpu_mem_free(gp, -1) < extra) {
		int k, lru = -1;
		for (k = 0; k < pg->ncache; k++)
			if (pg->cache[k].state == ENT_RESIDENT &&
			    pg->cache[k].m != keep &&
			    (lru < 0 || pg->cache[k].last_use <
			     pg->cache[lru].last_use))
				lru = k;
		if (lru < 0)
			return SIM_ENOSPC;
		drop_entry(pg, lru);
		if (exec_resize(w, g, NULL) != 0)
			return SIM_ENOSPC;
	}
	return 0;
}

static int add_entry(struct pool_gpu *pg, const struct zoo_model *m,
		     int state, sim_time now)
{
	if (pg->ncache == pg->capcache) {
		int cap = pg->capcache ? 2 * pg->capcache : 8;
		struct pool_entry *c = realloc(pg->cache,
					       (size_t)cap * sizeof *c);
		if (c == NULL)
			return SIM_ENOMEM;
		pg->cache = c;
		pg->capcache = cap;
	}
	pg->cache[pg->ncache].m = m;
	pg->cache[pg->ncache].bytes = model_bytes(m);
	pg->cache[pg->ncache].state = state;
	pg->cache[pg->ncache].last_use = now;
	return pg->ncache++;
}

/* ---- the pipe ------------------------------------------------------------ */

static int pipe_groups(struct pool_gpu *pg, int n)
{
	if (n > pg->capg) {
		double *b = realloc(pg->gbytes, (size_t)n * sizeof *b);
		sim_time *e;
		if (b == NULL)
			return SIM_ENOMEM;
		pg->gbytes = b;
		e = realloc(pg->gexec, (size_t)n * sizeof *e);
		if (e == NULL)
			return SIM_ENOMEM;
		pg->gexec = e;
		pg->capg = n;
	}
	pg->ngroups = n;
	return 0;
}

/*
** Sets up the pipe of GPU g for model m: a load (load != 0) in the pool's
** mode, and/or the execution of a batch of batch_ns.  Pipelined: one group
** per zoo layer group, bytes = 4 x its parameters, execution time split by
** forward FLOPs with cumulative rounding (the parts sum to batch_ns).
** Whole: one group.  Without a load: one group of execution only.
*/
static int pipe_setup(struct world *w, int g, const struct zoo_model *m,
		      int load, int exec, sim_time batch_ns)
{
	struct pool_gpu *pg = &w->pool->g[g];
	int n = load && w->pool->mode == WORLD_LOAD_PIPELINED ?
		(int)m->ngroups : 1, k, rc;

	if (n < 1)
		n = 1;
	if ((rc = pipe_groups(pg, n)) != 0)
		return rc;
	if (n == 1) {
		pg->gbytes[0] = load ? (double)model_bytes(m) : 0;
		pg->gexec[0] = exec ? batch_ns : 0;
	} else {
		double cum = 0, F = m->fwd_flops;
		sim_time prev = 0;
		for (k = 0; k < n; k++) {
			sim_time upto;
			pg->gbytes[k] = (double)m->groups[k].params *
				POOL_BYTES_PER_PARAM;
			cum += F > 0 ? m->groups[k].fwd_flops : 1.0;
			upto = k == n - 1 ? batch_ns :
				(sim_time)llround((double)batch_ns * cum /
						  (F > 0 ? F : (double)n));
			pg->gexec[k] = exec ? upto - prev : 0;
			prev = upto;
		}
	}
	pg->active = 1;
	pg->m = m;
	pg->net_started = pg->net_done = pg->pcie_started = pg->pcie_done = 0;
	pg->exec_started = pg->exec_done = 0;
	pg->net_left = 0;
	if (!load)
		pg->net_started = pg->net_done = pg->pcie_started =
			pg->pcie_done = n;
	if (!exec)
		pg->exec_started = pg->exec_done = n;
	pg->busy_since = w->sim.now;
	return 0;
}

static int pool_dispatch(struct world *w);
static int try_run(struct world *w, int g);

static int pipe_finish(struct world *w, int g)
{
	struct pool_gpu *pg = &w->pool->g[g];
	int k, rc;

	pg->active = 0;
	pg->busy_ns += w->sim.now - pg->busy_since;
	if ((k = find_entry(pg, pg->m)) >= 0)
		pg->cache[k].last_use = w->sim.now;
	pg->ent = -1;
	if (pg->task_job >= 0) {
		pg->act_bytes = 0;
		if ((rc = exec_resize(w, g, NULL)) != 0)
			return sim_fail(&w->sim, rc, "pool: GPU %d: cannot "
					"release activations", g);
		svc_pool_batch(w, pg->task_job, pg->nbatch, pg->busy_since);
		for (k = 0; k < pg->nbatch; k++) {
			pg->load--;
			if ((rc = svc_pool_done(w, pg->batch[k].job,
						pg->batch[k].t_arr)) != 0)
				return rc;
		}
		pg->nbatch = 0;
	}
	if ((rc = try_run(w, g)) != 0)
		return rc;
	return pool_dispatch(w);
}

static int pipe_advance(struct world *w, int g)
{
	struct world_pool *p = w->pool;
	struct pool_gpu *pg = &p->g[g];
	int rc, changed = 0;

	/* network: one group at a time, one flow per shard */
	while (pg->net_left == 0 && pg->net_started == pg->net_done &&
	       pg->net_started < pg->ngroups) {
		double b = pg->gbytes[pg->net_started];
		int zi = zoo_index(pg->m), s;
		pg->net_started++;
		if (b <= 0 || zi < 0) {
			pg->net_done++;
			continue;
		}
		for (s = 0; s < p->nshards; s++) {
			int path[2];
			path[0] = p->ms_link[p->shards[zi][s]];
			path[1] = p->node_link[w->gpus[g].node];
			if ((rc = start_flow(w, g, s, path, 2,
					     b / p->nshards)) != 0)
				return rc;
		}
		pg->net_left = p->nshards;
		changed = 1;
	}
	/* PCIe: a group that crossed the network */
	while (pg->pcie_started == pg->pcie_done &&
	       pg->pcie_started < pg->net_done) {
		double b = pg->gbytes[pg->pcie_started];
		pg->pcie_started++;
		if (b <= 0) {
			pg->pcie_done++;
			continue;
		}
		if ((rc = start_flow(w, g, POOL_SLOT_PCIE, &pg->h2d, 1,
				     b)) != 0)
			return rc;
		changed = 1;
	}
	if (changed && (rc = net_resched(w)) != 0)
		return rc;
	if (pg->pcie_done == pg->ngroups && pg->ent >= 0 &&
	    pg->cache[pg->ent].state == ENT_LOADING) {
		pg->cache[pg->ent].state = ENT_RESIDENT;
		p->loads++;
	}
	/* execute: a group that crossed PCIe */
	while (pg->exec_started == pg->exec_done &&
	       pg->exec_started < pg->pcie_done) {
		sim_time t = pg->gexec[pg->exec_started];
		struct gpu_work_profile prof;
		pg->exec_started++;
		if (t <= 0) {
			pg->exec_done++;
			continue;
		}
		wl_infer_profile(pg->m, w->gpus[g].dev,
				 pg->nbatch > 0 ? pg->nbatch : 1, &prof);
		gpu_begin(&w->gpus[g], &pg->exec, (double)t, &prof,
			  w->sim.now);
		return world__gpu_changed(w, g);
	}
	if (pg->exec_done == pg->ngroups && pg->pcie_done == pg->ngroups)
		return pipe_finish(w, g);
	return 0;
}

/* Starts the next batch on GPU g if it is idle: the service at the head of
** its queue, with up to its max batch of that service's queued requests. */
static int try_run(struct world *w, int g)
{
	struct pool_gpu *pg = &w->pool->g[g];
	const struct world_job *job;
	const struct zoo_model *m;
	uint64_t act;
	size_t k, keep;
	int maxb, e, rc, load;

	if (!pg->in || pg->active || pg->q.n == 0)
		return 0;
	job = &w->jobs[fifo_at(&pg->q, 0)->job];
	m = job->model;
	maxb = svc_max_batch(w, job->idx);   /* world_set_batch's */
	if (pg->capbatch < maxb) {
		struct pool_req *b = realloc(pg->batch, (size_t)maxb *
					     sizeof *b);
		if (b == NULL)
			return SIM_ENOMEM;
		pg->batch = b;
		pg->capbatch = maxb;
	}
	pg->nbatch = 0;
	for (k = keep = 0; k < pg->q.n; k++) {
		struct pool_req r = *fifo_at(&pg->q, k);
		if (r.job == job->idx && pg->nbatch < maxb)
			pg->batch[pg->nbatch++] = r;
		else
			*fifo_at(&pg->q, keep++) = r;
	}
	pg->q.n = keep;
	/* memory: the activations of the batch (FP32), and the weights if
	** the model is missing */
	act = (uint64_t)pg->nbatch * m->act_infer_bytes;
	e = find_entry(pg, m);
	load = e < 0;
	if (make_room(w, g, act + (load ? model_bytes(m) : 0), m) != 0)
		return sim_fail(&w->sim, SIM_ENOSPC, "pool: model %s with a "
				"batch of %d does not fit on GPU %d (%s)",
				m->name, pg->nbatch, g, w->gpus[g].dev->name);
	if (load && (e = add_entry(pg, m, ENT_LOADING, w->sim.now)) < 0)
		return e;
	pg->act_bytes = act;
	if ((rc = exec_resize(w, g, NULL)) != 0)
		return sim_fail(&w->sim, rc, "pool: GPU %d: resize failed", g);
	pg->task_job = job->idx;
	pg->ent = load ? e : -1;
	if ((rc = pipe_setup(w, g, m, load, 1,
			     wl_infer_batch_ns(m, w->gpus[g].dev,
					       pg->nbatch))) != 0)
		return rc;
	return pipe_advance(w, g);
}

/* ---- routing ------------------------------------------------------------- */

static int least_load(const struct world *w)
{
	int g, best = -1;

	for (g = 0; g < w->ngpus; g++)
		if (w->pool->g[g].in && (best < 0 || w->pool->g[g].load <
					 w->pool->g[best].load))
			best = g;
	return best;
}

/* Offers the pool's queue, in order, to the policy until it holds one. */
static int pool_dispatch(struct world *w)
{
	struct world_pool *p = w->pool;
	int rc = 0;

	if (p->dispatching)
		return 0;
	p->dispatching = 1;
	while (p->q.n > 0) {
		struct pool_req r = *fifo_at(&p->q, 0);
		int g = -1;
		if (w->pol->xOnRequest != NULL) {
			rc = w->pol->xOnRequest(w, w->pol_state, r.job, &g);
			if (rc < 0) {
				rc = world__hook_rc(w, rc, "on_request");
				break;
			}
		} else {
			g = least_load(w);
		}
		if (g < 0)
			break;
		if (g >= w->ngpus || !p->g[g].in) {
			rc = sim_fail(&w->sim, SIM_EINVAL, "policy %s routed a "
				      "request of service %s to GPU %d, which "
				      "is not in the pool", w->pol->zName,
				      w->jobs[r.job].tj.id, g);
			break;
		}
		fifo_pop(&p->q);
		if ((rc = fifo_push(&p->g[g].q, r)) != 0)
			break;
		p->g[g].load++;
		if ((rc = try_run(w, g)) != 0)
			break;
	}
	p->dispatching = 0;
	return rc;
}

int world__pool_request(struct world *w, int j, sim_time t_arr)
{
	struct pool_req r;
	int rc;

	r.job = j;
	r.t_arr = t_arr;
	if ((rc = fifo_push(&w->pool->q, r)) != 0)
		return rc;
	return pool_dispatch(w);
}

/* ---- the view ------------------------------------------------------------ */

int world_pool_servers(const struct world *w)
{
	return w->mem_servers;
}

int world_pool_shards(const struct world *w, const struct zoo_model *m,
		      int *servers)
{
	int zi = zoo_index(m), k;

	if (zi < 0)
		return 0;
	k = shards_of(w->seed, w->mem_servers, zi, servers, NULL);
	return k < 0 ? 0 : k;
}

int world_pool_in(const struct world *w, int g)
{
	return w->pool != NULL && g >= 0 && g < w->ngpus && w->pool->g[g].in;
}

int world_pool_load(const struct world *w, int g)
{
	return world_pool_in(w, g) ? w->pool->g[g].load : 0;
}

int world_pool_has_model(const struct world *w, int g,
			 const struct zoo_model *m)
{
	int k;

	if (!world_pool_in(w, g) || (k = find_entry(&w->pool->g[g], m)) < 0)
		return 0;
	return w->pool->g[g].cache[k].state;
}

int world_pool_queued(const struct world *w)
{
	return w->pool != NULL ? (int)w->pool->q.n : 0;
}

sim_time world_pool_busy_ns(const struct world *w, int g)
{
	const struct pool_gpu *pg;

	if (w->pool == NULL || g < 0 || g >= w->ngpus)
		return 0;
	pg = &w->pool->g[g];
	return pg->busy_ns + (pg->active ? w->sim.now - pg->busy_since : 0);
}

int world_pool_serving(const struct world *w, int j)
{
	return j >= 0 && j < w->njobs && svc_is_pooled(w, j);
}

uint64_t world_pool_loads(const struct world *w)
{
	return w->pool != NULL ? w->pool->loads : 0;
}

/* ---- actions ------------------------------------------------------------- */

static int check_gpu(const struct world *w, int g, const char *what,
		     struct sim_err *err)
{
	if (g < 0 || g >= w->ngpus)
		return sim_err_set(err, SIM_EINVAL, "%s: no GPU %d", what, g);
	return 0;
}

int world_pool_join(struct world *w, int g, struct sim_err *err)
{
	struct world_pool *p;
	struct pool_gpu *pg;
	int rc;

	if ((rc = check_gpu(w, g, "pool_join", err)) != 0)
		return rc;
	if ((p = pool_get(w, err)) == NULL)
		return err != NULL && err->code ? err->code : SIM_ENOMEM;
	pg = &p->g[g];
	if (pg->in)
		return sim_err_set(err, SIM_ESTATE, "pool_join: GPU %d is "
				   "already in the pool", g);
	if (w->gpus[g].ntenants > 0)
		return sim_err_set(err, SIM_ESTATE, "pool_join: GPU %d has %d "
				   "tenants", g, w->gpus[g].ntenants);
	if ((rc = world_set_gpu_mode(w, g, GPU_MODE_EXCLUSIVE, err)) != 0)
		return rc;
	memset(&pg->exec, 0, sizeof pg->exec);
	pg->exec.id = -1 - g;
	pg->exec.sm_cap = 1.0;
	pg->exec.slice = -1;
	pg->base_bytes = pg->exec.mem_bytes = w->gpus[g].dev->ctx_bytes;
	pg->act_bytes = 0;
	pg->ncache = 0;
	if ((rc = gpu_attach(&w->gpus[g], &pg->exec, w->sim.now, 0, err)) != 0)
		return rc;
	pg->in = 1;
	p->joined = 1;
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	return pool_dispatch(w);
}

int world_pool_leave(struct world *w, int g, struct sim_err *err)
{
	struct pool_gpu *pg;
	int rc;

	if ((rc = check_gpu(w, g, "pool_leave", err)) != 0)
		return rc;
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "pool_leave: GPU %d is not "
				   "in the pool", g);
	pg = &w->pool->g[g];
	if (pg->load > 0 || pg->active)
		return sim_err_set(err, SIM_ESTATE, "pool_leave: GPU %d is busy "
				   "(%d requests%s)", g, pg->load,
				   pg->active ? ", a transfer" : "");
	pg->ncache = 0;
	gpu_detach(&w->gpus[g], &pg->exec, w->sim.now);
	pg->in = 0;
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	return world__request_schedule(w);
}

int world_pool_serve(struct world *w, int j, struct sim_err *err)
{
	struct world_job *job;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "pool_serve: no job %d", j);
	job = &w->jobs[j];
	if (job->tj.kind != TRACE_INFER)
		return sim_err_set(err, SIM_EINVAL, "pool_serve: job %s is not "
				   "a service", job->tj.id);
	if (job->state != JOB_PENDING)
		return sim_err_set(err, SIM_ESTATE, "pool_serve: service %s is "
				   "%s", job->tj.id, job_state_name(job->state));
	if (pool_get(w, err) == NULL)
		return err != NULL && err->code ? err->code : SIM_ENOMEM;
	pending_remove_job(w, j);
	job->state = JOB_RUNNING;
	job->start_ns = w->sim.now;
	return svc_set_pooled(w, j);
}

int world_pool_set_mode(struct world *w, enum world_load_mode mode,
			struct sim_err *err)
{
	struct world_pool *p;

	if (mode != WORLD_LOAD_PIPELINED && mode != WORLD_LOAD_WHOLE)
		return sim_err_set(err, SIM_EINVAL, "pool_set_mode: mode %d",
				   (int)mode);
	if ((p = pool_get(w, err)) == NULL)
		return err != NULL && err->code ? err->code : SIM_ENOMEM;
	if (p->joined)
		return sim_err_set(err, SIM_ESTATE, "pool_set_mode: GPUs have "
				   "already joined the pool");
	p->mode = mode;
	return 0;
}

int world_load_model(struct world *w, int g, const struct zoo_model *m,
		     struct sim_err *err)
{
	struct pool_gpu *pg;
	int e, rc;

	if ((rc = check_gpu(w, g, "load_model", err)) != 0)
		return rc;
	if (m == NULL || zoo_index(m) < 0)
		return sim_err_set(err, SIM_EINVAL, "load_model: not a zoo "
				   "model");
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "load_model: GPU %d is not "
				   "in the pool", g);
	pg = &w->pool->g[g];
	if (find_entry(pg, m) >= 0)
		return 0;
	if (pg->active)
		return sim_err_set(err, SIM_ESTATE, "load_model: GPU %d is "
				   "busy", g);
	if (make_room(w, g, model_bytes(m), NULL) != 0)
		return sim_err_set(err, SIM_ENOSPC, "load_model: %s does not "
				   "fit on GPU %d", m->name, g);
	if ((e = add_entry(pg, m, ENT_LOADING, w->sim.now)) < 0)
		return sim_err_set(err, e, "load_model: out of memory");
	if ((rc = exec_resize(w, g, err)) != 0) {
		drop_entry(pg, e);
		return rc;
	}
	pg->task_job = -1;
	pg->nbatch = 0;
	pg->ent = e;
	if ((rc = pipe_setup(w, g, m, 1, 0, 0)) != 0)
		return sim_err_set(err, rc, "load_model: out of memory");
	return pipe_advance(w, g);
}

int world_evict_model(struct world *w, int g, const struct zoo_model *m,
		      struct sim_err *err)
{
	struct pool_gpu *pg;
	int k, rc;

	if ((rc = check_gpu(w, g, "evict_model", err)) != 0)
		return rc;
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "evict_model: GPU %d is not "
				   "in the pool", g);
	pg = &w->pool->g[g];
	if ((k = find_entry(pg, m)) < 0)
		return sim_err_set(err, SIM_ENOENT, "evict_model: %s is not on "
				   "GPU %d", m != NULL ? m->name : "?", g);
	if (pg->cache[k].state != ENT_RESIDENT || (pg->active && pg->m == m))
		return sim_err_set(err, SIM_ESTATE, "evict_model: %s is in use "
				   "on GPU %d", m->name, g);
	drop_entry(pg, k);
	if (pg->active && pg->ent >= 0)   /* the swap may have moved it */
		pg->ent = find_entry(pg, pg->m);
	return exec_resize(w, g, err);
}
