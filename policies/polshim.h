/*
** polshim.h: TEMPORARY.  The subset of the version-2 policy view and
** actions (pol_job, pol_gpu, pol_place, ...) that the queue schedulers use,
** over the version-1 world.h, until the new policies/policy.h lands; then
** this file goes and the schedulers include policies/policy.h alone.
*/
#ifndef COLOSIM_POLICIES_POLSHIM_H
#define COLOSIM_POLICIES_POLSHIM_H

#include "policies/policy.h"
#include "sim/world/world.h"

enum pol_job_kind { POL_TRAIN = 0, POL_INFER = 1 };
enum pol_job_state {
	POL_JOB_PENDING = 0, POL_JOB_RUNNING, POL_JOB_PREEMPTED, POL_JOB_DONE,
	POL_JOB_FAILED, POL_JOB_SWAPPING_OUT, POL_JOB_SWAPPING_IN
};

struct pol_job_info {
	int job;
	enum pol_job_kind kind;
	enum pol_job_state state;
	int gpus;
	int priority;
	sim_time submit_ns;
	double frac_left;
	int nplaced;
	/* not in the version-2 view yet: the trace's per-resource times */
	int has_res;
	double res_ms[3];
	sim_time iter_ns;
};

struct pol_gpu_info {
	int gpu, node, ntenants;
	uint64_t hbm_bytes;
};

struct pol_tenant_info {
	int job, gpu;
};

static inline sim_time pol_now(const struct world *w)
{
	return world_now(w);
}
static inline int pol_njobs(const struct world *w)
{
	return world_njobs(w);
}
static inline int pol_ngpus(const struct world *w)
{
	return world_ngpus(w);
}
static inline int pol_nnodes(const struct world *w)
{
	return world_cluster(w)->nnodes;
}

static inline struct pol_job_info pol_job(const struct world *w, int j)
{
	const struct world_job *x = world_job(w, j);
	struct pol_job_info o;

	o.job = j;
	o.kind = x->tj.kind == TRACE_TRAIN ? POL_TRAIN : POL_INFER;
	o.state = (enum pol_job_state)x->state;
	o.gpus = x->tj.gpus;
	o.priority = x->tj.priority;
	o.submit_ns = x->submit_ns;
	o.frac_left = x->frac_left;
	o.nplaced = x->nplaced;
	o.has_res = x->tj.has_res;
	o.res_ms[0] = x->tj.res_ms[0];
	o.res_ms[1] = x->tj.res_ms[1];
	o.res_ms[2] = x->tj.res_ms[2];
	o.iter_ns = x->tj.iter_ns;
	return o;
}

static inline struct pol_tenant_info pol_job_tenant(const struct world *w,
						    int j, int k)
{
	struct pol_tenant_info t;

	t.job = j;
	t.gpu = world_job(w, j)->gpu_ids[k];
	return t;
}

static inline struct pol_gpu_info pol_gpu(const struct world *w, int g)
{
	const struct gpu *x = world_gpu(w, g);
	struct pol_gpu_info o;

	o.gpu = g;
	o.node = x->node;
	o.ntenants = x->ntenants;
	o.hbm_bytes = x->dev->hbm_bytes;
	return o;
}

static inline double pol_job_remaining_ns(const struct world *w, int j,
					  int g)
{
	return world_job_remaining_ns(w, j, g);
}
static inline uint64_t pol_job_mem(const struct world *w, int j, int g)
{
	return world_job_mem(w, j, g);
}
static inline int pol_job_fits_empty(const struct world *w, int j)
{
	return world_job_fits_empty(w, j);
}
static inline int pol_place(struct world *w, int j, const int *gpus, int n,
			    const void *opts, struct sim_err *err)
{
	(void)opts;
	return world_place(w, j, gpus, n, NULL, err);
}
static inline int pol_preempt(struct world *w, int j, struct sim_err *err)
{
	return world_preempt(w, j, err);
}
static inline int pol_set_timer(struct world *w, sim_time dt, uint64_t tag,
				struct sim_err *err)
{
	return world_set_timer(w, dt, tag, err);
}
static inline int pol_fail_job(struct world *w, int j, const char *reason)
{
	return world_fail_job(w, j, reason);
}
static inline int pol_add_metric(struct world *w, const char *name, double v)
{
	return world_add_metric(w, name, v);
}

#endif
