/*
** world_pool.c: the GPU pool (DistMind, ToN'24; see world.h and
** docs/MODEL.md, "DistMind"): the tenant kind "pool-executor" and the
** services it serves.
**
** A GPU that joins runs one executor, a gpu_tenant with id -1 - g whose
** allocation is the CUDA context + the weights of the models in its cache
** + the activations of the running batch.  It runs one pipe at a time: a
** load (prefetch), or a batch of one pooled service, whose model is loaded
** first if absent.  A pipe moves layer groups through three stages, one
** group per stage at a time (a flow shop): network (one flow per shard,
** memory-server NIC -> node NIC) and PCIe (a flow on the GPU's host
** link), the memory pool's load (struct mempool_load, world_mempool.h),
** then execute (a work unit on the executor).  Flows share links max-min
** fairly with every other load in the cluster (models/link.c), so without
** contention a pipe ends exactly at the recurrence of link_pipeline; with
** contention, later.  WORLD_LOAD_WHOLE is the same pipe with one group:
** the whole model over the network, then over PCIe, then the whole batch.
**
** The executor times its own work units: its kind has no xUnitDone, and
** its xChanged reschedules the unit's completion whenever the GPU's speeds
** change.  A pooled service (svc_set_external, service.h) has no replicas:
** its requests come to pool_route.
**
** Invariants: a pool GPU's load counts the requests dispatched to it and
** not finished; the executor's mem_bytes = base + cached weights +
** running activations, never over capacity (evictions make room, LRU
** among idle resident models).
*/
#include "sim/world/world_pool.h"

#include <stdint.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"
#include "sim/oset.h"
#include "sim/world/service.h"
#include "sim/world/world_cache.h"
#include "sim/world/world_int.h"
#include "sim/world/world_mempool.h"

#define POOL_FLOW_IDS 8               /* GPU g's loads: flow ids 8 g + k */
#define POOL_BYTES_PER_PARAM 4.0      /* FP32 weights, as PyTorch keeps them */

struct pool_req {
	int job;
	sim_time t_arr;
};

struct pool_fifo {
	struct pool_req *v;
	size_t head, n, cap;
};

struct pool_gpu {
	int in;
	struct gpu_tenant exec;       /* the executor, id -1 - g */
	uint64_t base_bytes, act_bytes;
	struct mcache cache;          /* the models it holds */
	struct pool_fifo q;           /* requests dispatched here */
	int load;
	/* the pipe */
	int active, task_job, ent;
	const struct zoo_model *m;
	struct pool_req *batch;
	int nbatch, capbatch;
	struct mempool_load ld;       /* the network and PCIe stages */
	int ngroups, capg;
	double *gbytes;
	sim_time *gexec;
	int exec_started, exec_done;
	sim_time busy_since, busy_ns;
};

struct world_pool {
	struct world *w;              /* for its events */
	struct world_mempool *mp;
	int created;                  /* 1 once g and the net exist */
	enum world_load_mode mode;
	int joined;                   /* any GPU ever joined */
	struct pool_fifo q;
	struct pool_gpu *g;
	uint64_t loads;
	int dispatching;
	/* the routing index (world_pool_route): the pool's GPUs by index
	** with their load as aux; per model, the pool's GPUs holding it
	** (loading or resident), the same way.  all_h / ms[].h: the GPU's
	** handle or -1. */
	struct sim_oset all;
	int *all_h;
	struct pool_mset {
		const struct zoo_model *m;
		struct sim_oset s;
		int *h;
	} *ms;
	int nms, capms;
	/* busy time over every GPU (world_pool_busy_total_ns): the closed
	** intervals' sum (wrapping), and the GPUs busy now (act_at[g]: g's
	** index in actv, or -1) */
	uint64_t busy_closed;
	int *actv, *act_at, nactv;
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

static const struct world_kind pool_kind;
static mempool_done_fn on_flow_done;

static struct world_pool *pool_of(const struct world *w)
{
	return world__kind_own(w, &pool_kind);
}

/* The pool's GPUs and the loading net, made on first use; NULL (err
** filled) when that fails. */
static struct world_pool *pool_get(struct world *w, struct sim_err *err)
{
	struct world_pool *p = pool_of(w);
	int g;

	if (p->created)
		return p;
	if (p->g == NULL) {
		p->g = calloc((size_t)w->ngpus, sizeof *p->g);
		if (p->g == NULL) {
			sim_err_set(err, SIM_ENOMEM, "pool: out of memory");
			return NULL;
		}
		for (g = 0; g < w->ngpus; g++)
			p->g[g].ent = -1;
	}
	if (mempool_open(w, p->mp, on_flow_done, p, err) != 0)
		return NULL;
	p->created = 1;
	return p;
}

/* ---- events -------------------------------------------------------------- */

static int on_exec_done(struct sim *s, void *ctx, uint64_t arg);
static int pipe_advance(struct world *w, struct world_pool *p, int g);

/* xChanged: the executor times its own unit; reschedule its completion. */
static int exec_changed(struct world *w, void *state, struct gpu_tenant *t)
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
	rc = sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE, on_exec_done,
			     state, (uint64_t)g, &t->ev);
	if (rc != 0)
		return sim_fail(&w->sim, rc, "pool: cannot schedule a batch: %s",
				sim_strerror(rc));
	return 0;
}

/* A flow of GPU g's load ended (mempool_done_fn). */
static int on_flow_done(struct world *w, void *ctx, int id)
{
	struct world_pool *p = ctx;
	int g = id / POOL_FLOW_IDS;

	mempool_load_flow_done(&p->g[g].ld, id);
	return pipe_advance(w, p, g);
}

static int on_exec_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct world_pool *p = ctx;
	struct world *w = p->w;
	int g = (int)arg, rc;
	struct pool_gpu *pg = &p->g[g];

	(void)s;
	pg->exec.ev = 0;
	gpu_finish(&w->gpus[g], &pg->exec, w->sim.now);
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	pg->exec_done++;
	return pipe_advance(w, p, g);
}

/* ---- memory -------------------------------------------------------------- */

static uint64_t model_bytes(const struct zoo_model *m)
{
	return (uint64_t)((double)m->params * POOL_BYTES_PER_PARAM);
}

/* Sets the executor's allocation from its parts.  The GPU indexes learn
** the new free memory at once: a resize alone (a model cached or evicted
** between loads) is not followed by world__gpu_changed. */
static int exec_resize(struct world *w, struct world_pool *p, int g,
		       struct sim_err *err)
{
	struct pool_gpu *pg = &p->g[g];
	int rc = gpu_resize(&w->gpus[g], &pg->exec, pg->base_bytes +
			    mcache_bytes(&pg->cache) + pg->act_bytes,
			    w->sim.now, 0, err);

	if (rc == 0)
		world__index_gpu(w, g);
	return rc;
}

/* GPU g is busy from now (its busy_since); it may be already. */
static int busy_start(struct world *w, struct world_pool *p, int g)
{
	int k;

	if (p->act_at == NULL) {
		p->act_at = malloc((size_t)w->ngpus * sizeof *p->act_at);
		p->actv = malloc((size_t)w->ngpus * sizeof *p->actv);
		if (p->act_at == NULL || p->actv == NULL)
			return SIM_ENOMEM;
		for (k = 0; k < w->ngpus; k++)
			p->act_at[k] = -1;
	}
	if (p->act_at[g] < 0) {
		p->act_at[g] = p->nactv;
		p->actv[p->nactv++] = g;
	}
	return 0;
}

/* GPU g's busy interval of length dt ended. */
static void busy_end(struct world_pool *p, int g, sim_time dt)
{
	int k;

	p->busy_closed += (uint64_t)dt;
	if (p->act_at == NULL || (k = p->act_at[g]) < 0)
		return;
	p->actv[k] = p->actv[--p->nactv];
	p->act_at[p->actv[k]] = k;
	p->act_at[g] = -1;
}

/* ---- the routing index ------------------------------------------------------ */

/* Model m's set (made when first needed when `make`), or NULL. */
static struct pool_mset *mset_of(struct world_pool *p, int ngpus,
				 const struct zoo_model *m, int make)
{
	struct pool_mset *v;
	int k;

	for (k = 0; k < p->nms; k++)
		if (p->ms[k].m == m)
			return &p->ms[k];
	if (!make)
		return NULL;
	if (p->nms == p->capms) {
		int cap = p->capms ? 2 * p->capms : 8;
		v = realloc(p->ms, (size_t)cap * sizeof *v);
		if (v == NULL)
			return NULL;
		p->ms = v;
		p->capms = cap;
	}
	v = &p->ms[p->nms];
	v->m = m;
	sim_oset_init(&v->s);
	v->h = malloc((size_t)(ngpus > 0 ? ngpus : 1) * sizeof *v->h);
	if (v->h == NULL)
		return NULL;
	for (k = 0; k < ngpus; k++)
		v->h[k] = -1;
	p->nms++;
	return v;
}

/* GPU g's load changed (or it joined): its aux everywhere. */
static void ix_load(struct world_pool *p, int g)
{
	struct pool_gpu *pg = &p->g[g];
	int k;

	if (p->all_h != NULL && p->all_h[g] >= 0)
		sim_oset_update(&p->all, p->all_h[g], 0, 0, pg->load);
	for (k = 0; k < pg->cache.n; k++) {
		struct pool_mset *v = mset_of(p, 0, pg->cache.v[k].m, 0);
		if (v != NULL && v->h[g] >= 0)
			sim_oset_update(&v->s, v->h[g], 0, 0, pg->load);
	}
}

/* Model m entered GPU g's cache. */
static int ix_add(struct world *w, struct world_pool *p, int g,
		  const struct zoo_model *m)
{
	struct pool_mset *v = mset_of(p, w->ngpus, m, 1);
	int h;

	if (v == NULL)
		return SIM_ENOMEM;
	if (v->h[g] >= 0)
		return 0;
	if ((h = sim_oset_insert(&v->s, 0, 0, g, p->g[g].load)) < 0)
		return h;
	v->h[g] = h;
	return 0;
}

/* Entry k of GPU g's cache is about to go. */
static void ix_drop(struct world_pool *p, int g, int k)
{
	struct pool_mset *v = mset_of(p, 0, p->g[g].cache.v[k].m, 0);

	if (v != NULL && v->h[g] >= 0) {
		sim_oset_remove(&v->s, v->h[g]);
		v->h[g] = -1;
	}
}

static void ix_clear(struct world_pool *p, int g)
{
	while (p->g[g].cache.n > 0) {
		ix_drop(p, g, 0);
		mcache_drop(&p->g[g].cache, 0);
	}
}

/* GPU g joined (in) or left the pool. */
static int ix_member(struct world *w, struct world_pool *p, int g, int in)
{
	int h, k;

	if (p->all_h == NULL) {
		p->all_h = malloc((size_t)w->ngpus * sizeof *p->all_h);
		if (p->all_h == NULL)
			return SIM_ENOMEM;
		for (k = 0; k < w->ngpus; k++)
			p->all_h[k] = -1;
	}
	if (in && p->all_h[g] < 0) {
		if ((h = sim_oset_insert(&p->all, 0, 0, g, p->g[g].load)) < 0)
			return h;
		p->all_h[g] = h;
	} else if (!in && p->all_h[g] >= 0) {
		sim_oset_remove(&p->all, p->all_h[g]);
		p->all_h[g] = -1;
	}
	return 0;
}


/* Evicts idle resident models (least recently used first, never `keep`)
** until `extra` more bytes fit; SIM_ENOSPC when they cannot. */
static int make_room(struct world *w, struct world_pool *p, int g,
		     uint64_t extra, const struct zoo_model *keep)
{
	struct pool_gpu *pg = &p->g[g];
	const struct gpu *gp = &w->gpus[g];

	while (gpu_mem_free(gp, -1) < extra) {
		int lru = mcache_lru(&pg->cache, keep);
		if (lru < 0)
			return SIM_ENOSPC;
		ix_drop(p, g, lru);
		mcache_drop(&pg->cache, lru);
		if (exec_resize(w, p, g, NULL) != 0)
			return SIM_ENOSPC;
	}
	return 0;
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
static int pipe_setup(struct world *w, struct world_pool *p, int g,
		      const struct zoo_model *m, int load, int exec,
		      sim_time batch_ns)
{
	struct pool_gpu *pg = &p->g[g];
	int n = load && p->mode == WORLD_LOAD_PIPELINED ?
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
	mempool_load_init(&pg->ld, g, POOL_FLOW_IDS * g, m, pg->gbytes, n,
			  load);
	pg->exec_started = pg->exec_done = 0;
	if (!exec)
		pg->exec_started = pg->exec_done = n;
	pg->busy_since = w->sim.now;
	return busy_start(w, p, g);
}

static int pool_dispatch(struct world *w, struct world_pool *p);
static int try_run(struct world *w, struct world_pool *p, int g);

static int pipe_finish(struct world *w, struct world_pool *p, int g)
{
	struct pool_gpu *pg = &p->g[g];
	int k, rc;

	pg->active = 0;
	pg->busy_ns += w->sim.now - pg->busy_since;
	busy_end(p, g, w->sim.now - pg->busy_since);
	if ((k = mcache_find(&pg->cache, pg->m)) >= 0)
		pg->cache.v[k].last_use = w->sim.now;
	pg->ent = -1;
	if (pg->task_job >= 0) {
		pg->act_bytes = 0;
		if ((rc = exec_resize(w, p, g, NULL)) != 0)
			return sim_fail(&w->sim, rc, "pool: GPU %d: cannot "
					"release activations", g);
		svc_external_batch(w, pg->task_job, pg->nbatch,
				   pg->busy_since);
		for (k = 0; k < pg->nbatch; k++) {
			pg->load--;
			ix_load(p, g);
			if ((rc = svc_external_done(w, pg->batch[k].job,
						pg->batch[k].t_arr)) != 0)
				return rc;
		}
		pg->nbatch = 0;
	}
	if ((rc = try_run(w, p, g)) != 0)
		return rc;
	return pool_dispatch(w, p);
}

static int pipe_advance(struct world *w, struct world_pool *p, int g)
{
	struct pool_gpu *pg = &p->g[g];
	int rc;

	if ((rc = mempool_load_step(w, p->mp, &pg->ld)) != 0)
		return rc;
	if (pg->ld.pcie_done == pg->ngroups && pg->ent >= 0 &&
	    pg->cache.v[pg->ent].state == MCACHE_LOADING) {
		pg->cache.v[pg->ent].state = MCACHE_RESIDENT;
		p->loads++;
		if ((rc = world__tl_load(w, g, -1, NULL, 0)) != 0)
			return rc;
	}
	/* execute: a group that crossed PCIe */
	while (pg->exec_started == pg->exec_done &&
	       pg->exec_started < pg->ld.pcie_done) {
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
	if (pg->exec_done == pg->ngroups && pg->ld.pcie_done == pg->ngroups)
		return pipe_finish(w, p, g);
	return 0;
}

/* Starts the next batch on GPU g if it is idle: the service at the head of
** its queue, with up to its max batch of that service's queued requests. */
static int try_run(struct world *w, struct world_pool *p, int g)
{
	struct pool_gpu *pg = &p->g[g];
	const struct world_job *job;
	const struct zoo_model *m;
	uint64_t act;
	size_t k, keep;
	int maxb, e, rc, load;

	if (!pg->in || pg->active || pg->q.n == 0)
		return 0;
	job = world__job(w, fifo_at(&pg->q, 0)->job);
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
	e = mcache_find(&pg->cache, m);
	load = e < 0;
	if (make_room(w, p, g, act + (load ? model_bytes(m) : 0), m) != 0)
		return sim_fail(&w->sim, SIM_ENOSPC, "pool: model %s with a "
				"batch of %d does not fit on GPU %d (%s)",
				m->name, pg->nbatch, g, w->gpus[g].dev->name);
	if (load && (e = mcache_add(&pg->cache, m, model_bytes(m),
				    MCACHE_LOADING, w->sim.now)) < 0)
		return e;
	if (load && (rc = ix_add(w, p, g, m)) != 0)
		return rc;
	pg->act_bytes = act;
	if ((rc = exec_resize(w, p, g, NULL)) != 0)
		return sim_fail(&w->sim, rc, "pool: GPU %d: resize failed", g);
	pg->task_job = job->idx;
	pg->ent = load ? e : -1;
	if ((rc = pipe_setup(w, p, g, m, load, 1,
			     wl_infer_batch_ns(m, w->gpus[g].dev,
					       pg->nbatch))) != 0)
		return rc;
	if (load && (rc = world__tl_load(w, g, job->idx, m->name, 1)) != 0)
		return rc;
	return pipe_advance(w, p, g);
}

/* ---- routing ------------------------------------------------------------- */

static int least_load(const struct world *w, const struct world_pool *p)
{
	int g, best = -1;

	for (g = 0; g < w->ngpus; g++)
		if (p->g[g].in && (best < 0 || p->g[g].load <
				   p->g[best].load))
			best = g;
	return best;
}

/* Offers the pool's queue, in order, to the policy until it holds one. */
static int pool_dispatch(struct world *w, struct world_pool *p)
{
	int rc = 0;

	if (p->dispatching)
		return 0;
	p->dispatching = 1;
	while (p->q.n > 0) {
		struct pool_req r = *fifo_at(&p->q, 0);
		int g;
		if ((rc = world__ask_route(w, r.job, &g)) < 0)
			break;
		if (rc == 1)
			g = least_load(w, p);
		rc = 0;
		if (g < 0)
			break;
		if (g >= w->ngpus || !p->g[g].in) {
			rc = sim_fail(&w->sim, SIM_EINVAL, "policy %s routed a "
				      "request of service %s to GPU %d, which "
				      "is not in the pool", w->pol->zName,
				      world__job(w, r.job)->tj.id, g);
			break;
		}
		fifo_pop(&p->q);
		if ((rc = fifo_push(&p->g[g].q, r)) != 0)
			break;
		p->g[g].load++;
		ix_load(p, g);
		if ((rc = try_run(w, p, g)) != 0)
			break;
	}
	p->dispatching = 0;
	return rc;
}

/* A request of pooled service j (svc_route_fn): into the pool's queue. */
static int pool_route(struct world *w, void *ctx, int j, sim_time t_arr)
{
	struct world_pool *p = ctx;
	struct pool_req r;
	int rc;

	r.job = j;
	r.t_arr = t_arr;
	if ((rc = fifo_push(&p->q, r)) != 0)
		return rc;
	return pool_dispatch(w, p);
}

/* ---- the view ------------------------------------------------------------ */

/* GPU g's pool slot when it is in the pool, else NULL.  O(1) and without
** a lookup (policies ask per GPU per request): a pool GPU is exclusive
** and holds exactly its executor, embedded in its slot, whose owner is
** this kind's registration. */
static inline const struct pool_gpu *pool_at(const struct world *w, int g)
{
	const struct gpu_tenant *t;
	const struct world_reg *r;

	if (g < 0 || g >= w->ngpus || (t = w->gpus[g].tenants) == NULL)
		return NULL;
	r = t->owner;
	if (r->kind != &pool_kind)
		return NULL;
	return (const struct pool_gpu *)((const char *)t -
					 offsetof(struct pool_gpu, exec));
}

int world_pool_in(const struct world *w, int g)
{
	return pool_at(w, g) != NULL;
}

int world_pool_load(const struct world *w, int g)
{
	const struct pool_gpu *pg = pool_at(w, g);

	return pg != NULL ? pg->load : 0;
}

int world_pool_has_model(const struct world *w, int g,
			 const struct zoo_model *m)
{
	const struct pool_gpu *pg = pool_at(w, g);
	int k;

	if (pg == NULL || (k = mcache_find(&pg->cache, m)) < 0)
		return 0;
	return pg->cache.v[k].state;
}

int world_pool_route(const struct world *w, const struct zoo_model *m,
		     int busy_load, int max_load, int cache)
{
	struct world_pool *p = pool_of(w);
	struct pool_mset *v;
	int h;

	if (p == NULL || p->all.count == 0)
		return -1;
	v = cache && m != NULL ? mset_of(p, 0, m, 0) : NULL;
	if (v != NULL && (h = sim_oset_first_aux_le(&v->s, INT64_MIN,
		INT64_MIN, INT32_MIN, 0)) >= 0)
		return sim_oset_id(&v->s, h);
	if ((h = sim_oset_first_aux_le(&p->all, INT64_MIN, INT64_MIN,
				       INT32_MIN, 0)) >= 0)
		return sim_oset_id(&p->all, h);
	if (v != NULL && (h = sim_oset_first_aux_le(&v->s, INT64_MIN,
		INT64_MIN, INT32_MIN, (int64_t)busy_load - 1)) >= 0)
		return sim_oset_id(&v->s, h);
	/* the least load, lowest index among the GPUs that have it */
	{
		int64_t least = p->all.n[p->all.root].amin;
		if (least >= max_load)
			return -1;
		h = sim_oset_first_aux_le(&p->all, INT64_MIN, INT64_MIN,
					  INT32_MIN, least);
		return h >= 0 ? sim_oset_id(&p->all, h) : -1;
	}
}

int world_pool_queued(const struct world *w)
{
	return (int)pool_of(w)->q.n;
}

sim_time world_pool_busy_ns(const struct world *w, int g)
{
	const struct world_pool *p = pool_of(w);
	const struct pool_gpu *pg;

	if (p->g == NULL || g < 0 || g >= w->ngpus)
		return 0;
	pg = &p->g[g];
	return pg->busy_ns + (pg->active ? w->sim.now - pg->busy_since : 0);
}

uint64_t world_pool_busy_total_ns(const struct world *w)
{
	const struct world_pool *p = pool_of(w);
	uint64_t t;
	int k;

	if (p == NULL)
		return 0;
	t = p->busy_closed;
	for (k = 0; k < p->nactv; k++)
		t += (uint64_t)(w->sim.now - p->g[p->actv[k]].busy_since);
	return t;
}

int world_pool_size(const struct world *w)
{
	const struct world_pool *p = pool_of(w);

	return p != NULL ? p->all.count : 0;
}

int world_pool_serving(const struct world *w, int j)
{
	return j >= 0 && j < w->njobs && svc_is_external(w, j);
}

uint64_t world_pool_loads(const struct world *w)
{
	return pool_of(w)->loads;
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
	ix_clear(p, g);
	if ((rc = world__tenant_attach(w, &pool_kind, g, &pg->exec, 0,
					err)) != 0)
		return rc;
	pg->in = 1;
	if ((rc = ix_member(w, p, g, 1)) != 0)
		return sim_err_set(err, rc, "pool_join: out of memory");
	p->joined = 1;
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	return pool_dispatch(w, p);
}

int world_pool_leave(struct world *w, int g, struct sim_err *err)
{
	struct world_pool *p = pool_of(w);
	struct pool_gpu *pg;
	int rc;

	if ((rc = check_gpu(w, g, "pool_leave", err)) != 0)
		return rc;
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "pool_leave: GPU %d is not "
				   "in the pool", g);
	pg = &p->g[g];
	if (pg->load > 0 || pg->active)
		return sim_err_set(err, SIM_ESTATE, "pool_leave: GPU %d is busy "
				   "(%d requests%s)", g, pg->load,
				   pg->active ? ", a transfer" : "");
	ix_clear(p, g);
	gpu_detach(&w->gpus[g], &pg->exec, w->sim.now);
	pg->in = 0;
	if ((rc = ix_member(w, p, g, 0)) != 0)
		return rc;
	if ((rc = world__gpu_changed(w, g)) != 0)
		return rc;
	return world__request_schedule(w);
}

int world_pool_serve(struct world *w, int j, struct sim_err *err)
{
	struct world_pool *p;
	struct world_job *job;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "pool_serve: no job %d", j);
	job = world__job(w, j);
	if (job->tj.kind != TRACE_INFER)
		return sim_err_set(err, SIM_EINVAL, "pool_serve: job %s is not "
				   "a service", job->tj.id);
	if (job->state != JOB_PENDING)
		return sim_err_set(err, SIM_ESTATE, "pool_serve: service %s is "
				   "%s", job->tj.id, job_state_name(job->state));
	if ((p = pool_get(w, err)) == NULL)
		return err != NULL && err->code ? err->code : SIM_ENOMEM;
	world__pending_remove(w, j);
	job->state = JOB_RUNNING;
	job->start_ns = w->sim.now;
	return svc_set_external(w, j, pool_route, p);
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
	struct world_pool *p = pool_of(w);
	struct pool_gpu *pg;
	int e, rc;

	if ((rc = check_gpu(w, g, "load_model", err)) != 0)
		return rc;
	if (m == NULL || mempool_zoo_index(m) < 0)
		return sim_err_set(err, SIM_EINVAL, "load_model: not a zoo "
				   "model");
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "load_model: GPU %d is not "
				   "in the pool", g);
	pg = &p->g[g];
	if (mcache_find(&pg->cache, m) >= 0)
		return 0;
	if (pg->active)
		return sim_err_set(err, SIM_ESTATE, "load_model: GPU %d is "
				   "busy", g);
	if (make_room(w, p, g, model_bytes(m), NULL) != 0)
		return sim_err_set(err, SIM_ENOSPC, "load_model: %s does not "
				   "fit on GPU %d", m->name, g);
	if ((e = mcache_add(&pg->cache, m, model_bytes(m), MCACHE_LOADING,
			    w->sim.now)) < 0)
		return sim_err_set(err, e, "load_model: out of memory");
	if ((rc = ix_add(w, p, g, m)) != 0)
		return sim_err_set(err, rc, "load_model: out of memory");
	if ((rc = exec_resize(w, p, g, err)) != 0) {
		ix_drop(p, g, e);
		mcache_drop(&pg->cache, e);
		return rc;
	}
	pg->task_job = -1;
	pg->nbatch = 0;
	pg->ent = e;
	if ((rc = pipe_setup(w, p, g, m, 1, 0, 0)) != 0 ||
	    (rc = world__tl_load(w, g, -1, m->name, 1)) != 0)
		return sim_err_set(err, rc, "load_model: out of memory");
	return pipe_advance(w, p, g);
}

int world_evict_model(struct world *w, int g, const struct zoo_model *m,
		      struct sim_err *err)
{
	struct world_pool *p = pool_of(w);
	struct pool_gpu *pg;
	int k, rc;

	if ((rc = check_gpu(w, g, "evict_model", err)) != 0)
		return rc;
	if (!world_pool_in(w, g))
		return sim_err_set(err, SIM_ESTATE, "evict_model: GPU %d is not "
				   "in the pool", g);
	pg = &p->g[g];
	if ((k = mcache_find(&pg->cache, m)) < 0)
		return sim_err_set(err, SIM_ENOENT, "evict_model: %s is not on "
				   "GPU %d", m != NULL ? m->name : "?", g);
	if (pg->cache.v[k].state != MCACHE_RESIDENT ||
	    (pg->active && pg->m == m))
		return sim_err_set(err, SIM_ESTATE, "evict_model: %s is in use "
				   "on GPU %d", m->name, g);
	ix_drop(p, g, k);
	mcache_drop(&pg->cache, k);
	if (pg->active && pg->ent >= 0)   /* the swap may have moved it */
		pg->ent = mcache_find(&pg->cache, pg->m);
	return exec_resize(w, p, g, err);
}

/* ---- the kind ------------------------------------------------------------ */

/* After gpu_fini (the executors are unlinked): drops the flows still on
** the loading net (a horizon stop), then frees everything. */
static void pool_fini(struct world *w, void *state)
{
	struct world_pool *p = state;
	int g;

	for (g = 0; p->g != NULL && g < w->ngpus; g++) {
		struct pool_gpu *pg = &p->g[g];
		mempool_load_drop(w, p->mp, &pg->ld);
		mcache_fini(&pg->cache);
		free(pg->q.v);
		free(pg->batch);
		free(pg->gbytes);
		free(pg->gexec);
	}
	for (g = 0; g < p->nms; g++) {
		sim_oset_fini(&p->ms[g].s);
		free(p->ms[g].h);
	}
	free(p->ms);
	sim_oset_fini(&p->all);
	free(p->all_h);
	free(p->act_at);
	free(p->actv);
	free(p->q.v);
	free(p->g);
	free(p);
}

static const struct world_kind pool_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "pool-executor",
	.eJob = WORLD_NO_JOBS,
	.xFini = pool_fini,
	.xChanged = exec_changed,
};

int world_pool_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err)
{
	struct world_pool *p = calloc(1, sizeof *p);
	int rc;

	(void)cfg;
	if (p == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	p->w = w;
	sim_oset_init(&p->all);
	p->mp = mempool_of(w);
	if (p->mp == NULL) {
		free(p);
		return sim_err_set(err, SIM_EINVAL, "the GPU pool needs the "
				   "memory pool, registered first");
	}
	if ((rc = world__kind_add(w, &pool_kind, p, err)) != 0)
		free(p);
	return rc;
}
