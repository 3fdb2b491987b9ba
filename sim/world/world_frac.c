/*
** world_frac.c: fractional GPUs and host resources (see world.h,
** "fractional GPUs", and docs/MODEL.md, "Fractional GPUs").
**
** The feature is a kind with no tenants ("frac").  It keeps, per node, the
** host CPU and memory of the cluster spec and what share placements hold
** of them; per GPU, the thousandths its share placements hold; per job,
** its reservation while it holds one.  A share placement is an ordinary
** placement underneath (world__place_tenants): one training worker per
** GPU, in MPS with SM cap = share and an allocation of the share's part of
** the GPU's memory.  A trace-given time is a time at the share: the job's
** share_speed_ (its speed alone on a GPU of that device at that cap, the
** GPU model's own answer on a scratch GPU) scales it, so that alone at its
** share the job runs in exactly that time, and co-tenants slow it only as
** the MPS model says.  A CPU-only job (0 GPUs) holds CPU and memory alone
** and ends after its duration (its own event).  Reservations end when the
** job's placement ends (xLeave: done, preempted, swapped out).
**
** Ordinary placements (world_place) onto a GPU that holds share
** placements are refused (xPlace), and a CPU-only job is not preempted
** (xPreempt), so the accounting never disagrees with the tenants.
**
** Invariants: 0 <= used[g] <= 1000 and nshare[g] <= the GPU's tenants;
** a node's used CPU / memory never pass its capacity when modelled;
** alloc_milli = sum of used[g].
*/
#include "sim/world/world_frac.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/workload.h"
#include "sim/world/world_int.h"

#define MILLI 1000

struct frac_node {
	int gpu, ngpus;
	int64_t cpu, cpu_used;            /* millicores; cpu 0: not modelled */
	int64_t mem, mem_used;            /* MiB; mem 0: not modelled */
	int64_t rank;
	uint64_t version;
};

struct world_frac {
	int nnodes;
	struct frac_node *nodes;
	int *used;                        /* per GPU, thousandths held */
	int *nshare;                      /* per GPU, share placements */
	int64_t alloc_milli;
	/* what a job holds is in its record (world_job's frac_*_ fields),
	** so it follows the live jobs */
};

static const struct world_kind frac_kind;

static struct world_frac *frac_of(const struct world *w)
{
	return world__kind_own(w, &frac_kind);
}

static int share_milli(const struct world_job *job)
{
	long m;

	if (job->tj.gpus == 0)
		return 0;
	m = lround(job->tj.gpu_share * MILLI);
	return m < 1 ? 1 : m > MILLI ? MILLI : (int)m;
}

/* ---- the view --------------------------------------------------------- */

int world_nnodes(const struct world *w)
{
	return frac_of(w)->nnodes;
}

int world_node(const struct world *w, int n, struct world_node *out)
{
	const struct world_frac *f = frac_of(w);
	const struct frac_node *fn;

	if (n < 0 || n >= f->nnodes)
		return SIM_EINVAL;
	fn = &f->nodes[n];
	out->node = n;
	out->gpu = fn->gpu;
	out->ngpus = fn->ngpus;
	out->cpu_milli = fn->cpu;
	out->cpu_free_milli = fn->cpu ? fn->cpu - fn->cpu_used : 0;
	out->mem_mib = fn->mem;
	out->mem_free_mib = fn->mem ? fn->mem - fn->mem_used : 0;
	out->rank = fn->rank;
	out->version = fn->version;
	return 0;
}

int world_gpu_share_free(const struct world *w, int g)
{
	return g >= 0 && g < w->ngpus ? MILLI - frac_of(w)->used[g] : -1;
}

int world_gpu_nshare(const struct world *w, int g)
{
	return g >= 0 && g < w->ngpus ? frac_of(w)->nshare[g] : 0;
}

int64_t world_share_alloc_milli(const struct world *w)
{
	return frac_of(w)->alloc_milli;
}

int world_job_node(const struct world *w, int j)
{
	const struct world_job *rec;

	if (j < 0 || j >= w->njobs || (rec = world__rec(w, j)) == NULL)
		return -1;                /* a retired job holds nothing */
	return rec->frac_node1_ - 1;
}

int world_job_share_milli(const struct world *w, int j)
{
	return j >= 0 && j < w->njobs ? share_milli(world__job(w, j)) : 0;
}

/* ---- reservations ------------------------------------------------------ */

static void reserve(struct world_frac *f, struct world_job *job, int node,
		    const int *gpus, int n)
{
	struct frac_node *fn = &f->nodes[node];
	int k;

	job->frac_node1_ = node + 1;
	job->frac_milli_ = share_milli(job);
	job->frac_cpu_ = job->tj.cpu_milli;
	job->frac_mem_ = job->tj.host_mem_mib;
	fn->cpu_used += job->frac_cpu_;
	fn->mem_used += job->frac_mem_;
	for (k = 0; k < n; k++) {
		f->used[gpus[k]] += job->frac_milli_;
		f->nshare[gpus[k]]++;
	}
	f->alloc_milli += (int64_t)n * job->frac_milli_;
	fn->version++;
}

/* xLeave: the job's placement ended; give back what it held. */
static void frac_leave(struct world *w, void *state, struct world_job *job)
{
	struct world_frac *f = state;
	struct frac_node *fn;
	int k;

	(void)w;
	if (job->frac_node1_ <= 0)
		return;
	fn = &f->nodes[job->frac_node1_ - 1];
	fn->cpu_used -= job->frac_cpu_;
	fn->mem_used -= job->frac_mem_;
	for (k = 0; k < job->nplaced; k++) {
		f->used[job->gpu_ids[k]] -= job->frac_milli_;
		f->nshare[job->gpu_ids[k]]--;
	}
	f->alloc_milli -= (int64_t)job->nplaced * job->frac_milli_;
	fn->version++;
	job->frac_node1_ = 0;
}

/* ---- placement ------------------------------------------------------------ */

/* The job's speed alone on a GPU of device d in MPS with SM cap `cap`:
** the GPU model's own answer on a scratch GPU (as world_mps_speeds). */
static double speed_at(const struct world_job *job,
		       const struct dev_profile *d, double cap)
{
	struct gpu gp;
	struct gpu_tenant t;
	struct gpu_work_profile prof;
	double v;

	wl_train_profile(job->model, d, job->tj.batch, job->tj.prec, &prof);
	memset(&t, 0, sizeof t);
	t.sm_cap = cap;
	t.slice = -1;
	gpu_init(&gp, d, -1, 0, GPU_MODE_MPS, 0);
	if (gpu_attach(&gp, &t, 0, 1, NULL) != 0) {
		gpu_fini(&gp);
		return 1.0;
	}
	gpu_begin(&gp, &t, 1e6, &prof, 0);
	v = t.speed;
	gpu_fini(&gp);
	return v > 0 ? v : 1.0;
}

static int check_share(struct world *w, const struct world_frac *f,
		       const struct world_job *job, int node,
		       const int *gpus, int n, struct sim_err *err)
{
	const struct frac_node *fn;
	int milli = share_milli(job), k, i;

	if (job->state != JOB_PENDING && job->state != JOB_PREEMPTED)
		return sim_err_set(err, SIM_ESTATE, "place_share: job %s is %s",
				   job->tj.id, job_state_name(job->state));
	if (job->swapped)
		return sim_err_set(err, SIM_ESTATE, "place_share: job %s is "
				   "swapped out", job->tj.id);
	if (job->tj.kind != TRACE_TRAIN)
		return sim_err_set(err, SIM_EINVAL, "place_share: job %s is a "
				   "service (share placements are for training "
				   "jobs)", job->tj.id);
	if (node < 0 || node >= f->nnodes)
		return sim_err_set(err, SIM_EINVAL, "place_share: no node %d",
				   node);
	if (n != job->tj.gpus || n < 0)
		return sim_err_set(err, SIM_EINVAL, "place_share: job %s needs "
				   "%d GPUs, got %d", job->tj.id, job->tj.gpus,
				   n);
	fn = &f->nodes[node];
	for (k = 0; k < n; k++) {
		const struct gpu *gp;
		if (gpus[k] < fn->gpu || gpus[k] >= fn->gpu + fn->ngpus)
			return sim_err_set(err, SIM_EINVAL, "place_share: GPU %d "
					   "is not on node %d", gpus[k], node);
		for (i = 0; i < k; i++)
			if (gpus[i] == gpus[k])
				return sim_err_set(err, SIM_EINVAL, "place_share:"
						   " GPU %d twice", gpus[k]);
		gp = &w->gpus[gpus[k]];
		if (gp->ntenants != f->nshare[gpus[k]])
			return sim_err_set(err, SIM_ESTATE, "place_share: GPU %d "
					   "holds tenants placed otherwise",
					   gpus[k]);
		if (gp->mode != GPU_MODE_MPS &&
		    !(gp->mode == GPU_MODE_EXCLUSIVE && milli == MILLI))
			return sim_err_set(err, SIM_ESTATE, "place_share: GPU %d "
					   "is in mode %s (share placements need "
					   "mps)", gpus[k],
					   gpu_mode_name(gp->mode));
		if (f->used[gpus[k]] + milli > MILLI)
			return sim_err_set(err, SIM_ENOSPC, "place_share: GPU %d "
					   "has %d/1000 free, job %s needs %d",
					   gpus[k], MILLI - f->used[gpus[k]],
					   job->tj.id, milli);
	}
	if ((fn->cpu > 0 && fn->cpu_used + job->tj.cpu_milli > fn->cpu) ||
	    (fn->mem > 0 && fn->mem_used + job->tj.host_mem_mib > fn->mem))
		return sim_err_set(err, SIM_ENOSPC, "place_share: node %d lacks "
				   "the CPU or memory of job %s", node,
				   job->tj.id);
	return 0;
}

static int on_cpu_done(struct sim *s, void *ctx, uint64_t arg)
{
	(void)s;
	return world__job_done(ctx, (int)arg);
}

/* A CPU-only job runs on its node for the rest of its duration. */
static int start_cpu_only(struct world *w, struct world_job *job)
{
	double left = job->frac_left * (double)job->tj.duration_ns;
	sim_time dt = left >= (double)SIM_TIME_MAX ? SIM_TIME_MAX :
		(sim_time)ceil(left);

	world__pending_remove(w, job->idx);
	job->state = JOB_RUNNING;
	if (job->start_ns < 0)
		job->start_ns = w->sim.now;
	job->frac0_ = job->frac_left;
	if (job->solo_ns_ == 0)
		job->solo_ns_ = (double)job->tj.duration_ns;
	return sim_schedule_in(&w->sim, dt, SIM_PRIO_COMPLETE, on_cpu_done, w,
			       (uint64_t)job->idx, NULL);
}

int world_place_share(struct world *w, int j, int node, const int *gpus,
		      int n, struct sim_err *err)
{
	struct world_frac *f = frac_of(w);
	struct world_job *job;
	struct world_place_opts o;
	int k, rc, milli;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "place_share: no job %d",
				   j);
	job = world__job(w, j);
	if ((rc = check_share(w, f, job, node, gpus, n, err)) != 0)
		return rc;
	if (n == 0) {
		reserve(f, job, node, gpus, 0);
		if ((rc = start_cpu_only(w, job)) != 0)
			return sim_err_set(err, rc, "place_share: %s",
					   sim_strerror(rc));
		return 0;
	}
	milli = share_milli(job);
	memset(&o, 0, sizeof o);
	o.sm_cap = milli / (double)MILLI;
	o.mem_bytes = w->gpus[gpus[0]].dev->hbm_bytes / MILLI * (uint64_t)milli;
	if (o.mem_bytes == 0)
		o.mem_bytes = 1;
	job->share_speed_ = speed_at(job, w->gpus[gpus[0]].dev, o.sm_cap);
	for (k = 0; k < n; k++)     /* the partitions of one node: one kind */
		if (w->gpus[gpus[k]].dev != w->gpus[gpus[0]].dev)
			job->share_speed_ = fmin(job->share_speed_, speed_at(
				job, w->gpus[gpus[k]].dev, o.sm_cap));
	/* reserved once placed: a refusal on the way leaves nothing */
	rc = world__place_tenants(w, job, gpus, n, &o, err);
	if (rc != 0) {
		job->share_speed_ = 0;
		return rc;
	}
	reserve(f, job, node, gpus, n);
	return 0;
}

/* ---- the kind --------------------------------------------------------------- */

/* xPlace: an ordinary placement never lands on a GPU that share placements
** hold, and leaves the job's times unscaled. */
static int frac_place(struct world *w, void *state, struct world_job *job,
		      const int *gpus, int n, const struct world_place_opts *o,
		      struct sim_err *err)
{
	struct world_frac *f = state;
	int k;

	(void)o;
	for (k = 0; k < n; k++)
		if (gpus[k] >= 0 && gpus[k] < w->ngpus && f->nshare[gpus[k]] > 0)
			return sim_err_set(err, SIM_ESTATE, "place: GPU %d holds "
					   "share placements (pol_place_share)",
					   gpus[k]);
	if (job->state == JOB_PENDING || job->state == JOB_PREEMPTED)
		job->share_speed_ = 0;
	return WORLD_PASS;
}

/* xPreempt: a CPU-only job has no GPU to leave. */
static int frac_preempt(struct world *w, void *state, struct world_job *job,
			struct sim_err *err)
{
	(void)w; (void)state;
	if (job->tj.gpus == 0)
		return sim_err_set(err, SIM_ESTATE, "preempt: job %s is "
				   "CPU-only", job->tj.id);
	return WORLD_PASS;
}

static void frac_fini(struct world *w, void *state)
{
	struct world_frac *f = state;

	(void)w;
	free(f->nodes);
	free(f->used);
	free(f->nshare);
	free(f);
}

static const struct world_kind frac_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "frac",
	.eJob = WORLD_NO_JOBS,
	.xFini = frac_fini,
	.xPlace = frac_place,
	.xPreempt = frac_preempt,
	.xLeave = frac_leave,
};

/* The nodes from the cluster spec: GPUs numbered node by node; host
** resources from the part's cpus / mem_gb (GiB: 1024 MiB), 0 when absent. */
static int frac_nodes(struct world_frac *f, const struct world_config *cfg,
		      struct sim_err *err)
{
	const struct cluster_spec *c = cfg->cluster;
	int i, k, n = 0, g = 0;

	f->nnodes = c->nnodes;
	f->nodes = calloc((size_t)(c->nnodes > 0 ? c->nnodes : 1),
			  sizeof *f->nodes);
	f->used = calloc((size_t)(c->ngpus > 0 ? c->ngpus : 1),
			 sizeof *f->used);
	f->nshare = calloc((size_t)(c->ngpus > 0 ? c->ngpus : 1),
			   sizeof *f->nshare);
	if (f->nodes == NULL || f->used == NULL || f->nshare == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory for %d nodes",
				   c->nnodes);
	for (i = 0; i < c->ngroups; i++)
		for (k = 0; k < c->groups[i].nodes; k++, n++) {
			struct frac_node *fn = &f->nodes[n];
			fn->gpu = g;
			fn->ngpus = c->groups[i].gpus_per_node;
			fn->cpu = (int64_t)c->groups[i].cpus_per_node * 1000;
			fn->mem = llround(c->groups[i].mem_gb_per_node * 1024.0);
			fn->rank = cfg->node_rank != NULL ? cfg->node_rank[n] : n;
			g += fn->ngpus;
		}
	return 0;
}

int world_frac_init(struct world *w, const struct world_config *cfg,
		    struct sim_err *err)
{
	struct world_frac *f = calloc(1, sizeof *f);
	int rc;

	if (f == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if ((rc = frac_nodes(f, cfg, err)) != 0 ||
	    (rc = world__kind_add(w, &frac_kind, f, err)) != 0)
		frac_fini(w, f);
	return rc;
}
