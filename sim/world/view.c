/*
** view.c: the policy contract's view, actions and random stream
** (policies/policy.h) over the world (sim/world/world.h).
**
** Everything here is a thin translation: the view copies the fields a
** policy may read out of the world's and the GPU model's structs into the
** pol_* value structs, the actions convert their arguments and call the
** world_* action, which validates the request.  No policy-visible value
** is computed here that the world_* calls do not compute themselves, so a
** policy ported from world.h to this header sees the same numbers
** (the golden metrics check it).
**
** The one piece of state is struct world_view (hanging off the world):
** the policy's random stream, made on first use.  The device kinds and
** the GPU indexes are the core's (sim/world/world_index.c).
*/
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/interleave.h"
#include "models/workload.h"
#include "sim/world/view.h"
#include "sim/world/world_int.h"
#include "sim/world/world_llm.h"

/* The pol_* enums mirror the world's and the GPU model's: a cast maps
** them. */
_Static_assert((int)POL_TRAIN == (int)TRACE_TRAIN &&
	       (int)POL_INFER == (int)TRACE_INFER &&
	       (int)POL_LLM == (int)TRACE_LLM, "job kinds");
_Static_assert((int)POL_JOB_PENDING == (int)JOB_PENDING &&
	       (int)POL_JOB_RUNNING == (int)JOB_RUNNING &&
	       (int)POL_JOB_PREEMPTED == (int)JOB_PREEMPTED &&
	       (int)POL_JOB_DONE == (int)JOB_DONE &&
	       (int)POL_JOB_FAILED == (int)JOB_FAILED &&
	       (int)POL_JOB_SWAPPING_OUT == (int)JOB_SWAPPING_OUT &&
	       (int)POL_JOB_SWAPPING_IN == (int)JOB_SWAPPING_IN, "job states");
_Static_assert((int)POL_GPU_EXCLUSIVE == (int)GPU_MODE_EXCLUSIVE &&
	       (int)POL_GPU_TIMESLICE == (int)GPU_MODE_TIMESLICE &&
	       (int)POL_GPU_MPS == (int)GPU_MODE_MPS &&
	       (int)POL_GPU_MIG == (int)GPU_MODE_MIG &&
	       (int)POL_GPU_INTERLEAVE == (int)GPU_MODE_INTERLEAVE, "GPU modes");
_Static_assert((int)POL_LOAD_PIPELINED == (int)WORLD_LOAD_PIPELINED &&
	       (int)POL_LOAD_WHOLE == (int)WORLD_LOAD_WHOLE, "load modes");

struct world_view {
	int have_rng;
	struct sim_rng rng;
};

int world__view_init(struct world *w, struct sim_err *err)
{
	struct world_view *v = calloc(1, sizeof *v);

	if (v == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	w->view = v;
	return 0;
}

void world__view_fini(struct world *w)
{
	if (w->view == NULL)
		return;
	if (w->view->have_rng)
		sim_rng_fini(&w->view->rng);
	free(w->view);
	w->view = NULL;
}

struct sim_rng *pol_rng(struct world *w)
{
	struct world_view *v = w->view;
	char name[96];

	if (!v->have_rng) {
		snprintf(name, sizeof name, "policy:%s", w->pol->zName);
		if (sim_rng_init(&v->rng, w->seed, name, 0, NULL) != 0)
			return NULL;
		v->have_rng = 1;
	}
	return &v->rng;
}

/* ---- the view ------------------------------------------------------------ */

sim_time pol_now(const struct world *w) { return world_now(w); }
int pol_njobs(const struct world *w) { return world_njobs(w); }
int pol_ngpus(const struct world *w) { return world_ngpus(w); }
int pol_nnodes(const struct world *w) { return world_cluster(w)->nnodes; }
int pol_ndevs(const struct world *w) { return world_ndevs(w); }
int pol_npending(const struct world *w) { return world_npending(w); }

int pol_pending_at(const struct world *w, int k)
{
	return world_pending_at(w, k);
}

int pol_pending_next(const struct world *w, struct pol_pending_walk *it)
{
	/* The last job still in its place was left waiting: pass it.  One
	** the body removed left the next job in its place: visit that. */
	if (it->job >= 0 && world_pending_at(w, it->k) == it->job)
		it->k++;
	it->job = world_pending_at(w, it->k);
	return it->job;
}

/* A job the view answers for in full: not released (policy.h, version
** 9: a released job is known by its index, kind and state alone, in a
** world with result rows as in a metrics-only one). */
static int valid_job(const struct world *w, int j)
{
	return j >= 0 && j < world_njobs(w) && !world__released(w, j);
}

/* Job j's record for the view: NULL for no such job and for a released
** one (above). */
static const struct world_job *view_job(const struct world *w, int j)
{
	return valid_job(w, j) ? world_job(w, j) : NULL;
}

static int valid_gpu(const struct world *w, int g)
{
	return g >= 0 && g < world_ngpus(w);
}

struct pol_job_info pol_job(const struct world *w, int j)
{
	const struct world_job *job = view_job(w, j);
	struct pol_job_info o;

	if (job == NULL) {
		memset(&o, 0, sizeof o);
		o.job = -1;
		if (j >= 0 && j < world_njobs(w)) {
			/* released (version 9) */
			const struct world_jchunk *c = world__chunk(w, j);
			unsigned char ks = c->ks[j & (WORLD_JOB_CHUNK - 1)];
			o.job = j;
			o.kind = (enum pol_job_kind)(ks >> 3 & 3);
			o.state = (enum pol_job_state)(ks & 7);
			o.zModel = "";
			o.start_ns = o.end_ns = -1;
			o.node = -1;
		}
		return o;
	}
	/* every field, no memset: policies call this in their inner loops */
	o.job = j;
	o.kind = (enum pol_job_kind)job->tj.kind;
	o.state = (enum pol_job_state)job->state;
	o.zModel = job->model->name;
	o.model_params = job->model->params;
	o.batch = job->tj.batch;
	o.gpus = job->tj.gpus;
	o.gpu_share = job->tj.gpu_share;
	o.priority = job->tj.priority;
	o.submit_ns = job->submit_ns;
	o.start_ns = job->start_ns;
	o.end_ns = job->end_ns;
	o.slo_ns = job->tj.slo_ns;
	o.poisson = job->tj.arrival == TRACE_ARR_POISSON;
	o.rate_per_s = job->tj.rate_per_s;
	o.frac_left = job->frac_left;
	o.preemptions = job->preemptions;
	o.swapped = job->swapped;
	o.swaps = job->swaps;
	o.nplaced = job->nplaced;
	o.alloc_bytes = job->nplaced > 0 ? job->tenants[0].mem_bytes : 0;
	o.share_milli = world_job_share_milli(w, j);
	o.cpu_milli = job->tj.cpu_milli;
	o.host_mem_mib = job->tj.host_mem_mib;
	o.node = world_job_node(w, j);
	o.has_res = job->tj.has_res;
	o.res_ms[0] = job->tj.res_ms[0];
	o.res_ms[1] = job->tj.res_ms[1];
	o.res_ms[2] = job->tj.res_ms[2];
	o.iter_ns = job->tj.iter_ns;
	o.iterations = job->tj.iterations;
	o.min_gpus = job->tj.min_gpus;
	o.max_gpus = job->tj.max_gpus;
	o.gpus0 = job->gpus0_;
	o.resizes = job->resizes;
	o.restart_end_ns = job->restart_end_;
	o.noise_scale = job->tj.kind == TRACE_TRAIN ?
		world__job_noise(job) : 0;
	return o;
}

double pol_interleave_round_ms(const struct world *w, const int *jobs,
			       int n)
{
	struct il_job il[IL_MAX_JOBS];
	int i;

	if (n < 1 || n > IL_MAX_JOBS)
		return -1;
	for (i = 0; i < n; i++) {
		const struct world_job *job = view_job(w, jobs[i]);
		if (job == NULL || !job->tj.has_res || job->tj.iter_ns <= 0)
			return -1;
		il[i].res[0] = job->tj.res_ms[0];
		il[i].res[1] = job->tj.res_ms[1];
		il[i].res[2] = job->tj.res_ms[2];
		il[i].iter = (double)job->tj.iter_ns / 1e6;
	}
	return il_round(il, n, IL_BEST, NULL);
}

/* The two scalar reads policies make over every job or GPU in a pass:
** straight from the world's arrays. */
int pol_job_state(const struct world *w, int j)
{
	return j >= 0 && j < w->njobs ? (int)world__job_state(w, j) : -1;
}

int pol_job_nplaced(const struct world *w, int j)
{
	const struct world_job *job = view_job(w, j);

	return job != NULL ? job->nplaced : 0;
}

int pol_gpu_ntenants(const struct world *w, int g)
{
	return g >= 0 && g < w->ngpus ? w->gpus[g].ntenants : 0;
}

static void tenant_info(const struct gpu_tenant *t, int g,
			struct pol_tenant_info *o)
{
	o->job = t->id;
	o->gpu = g;
	o->slice = t->slice;
	o->mem_bytes = t->mem_bytes;
	o->sm_cap = t->sm_cap;
	o->busy = t->busy;
	o->speed = t->speed;
}

struct pol_tenant_info pol_job_tenant(const struct world *w, int j, int k)
{
	const struct world_job *job = view_job(w, j);
	struct pol_tenant_info o;

	memset(&o, 0, sizeof o);
	o.job = o.gpu = o.slice = -1;
	if (job == NULL || k < 0 || k >= job->nplaced)
		return o;
	tenant_info(&job->tenants[k], job->gpu_ids[k], &o);
	return o;
}

struct pol_gpu_info pol_gpu(const struct world *w, int g)
{
	const struct gpu *gp = world_gpu(w, g);
	struct pol_gpu_info o;

	if (gp == NULL) {
		memset(&o, 0, sizeof o);
		o.gpu = o.dev = -1;
		return o;
	}
	/* every field, no memset: policies call this in their inner loops */
	o.gpu = g;
	o.node = gp->node;
	o.dev = world_gpu_dev(w, g);
	o.zDevice = gp->dev->name;
	o.mode = (enum pol_gpu_mode)gp->mode;
	o.hbm_bytes = gp->dev->hbm_bytes;
	o.mem_used = gp->mem_used;
	/* gpu_mem_free(gp, -1), without the call */
	o.mem_free = o.mem_used < o.hbm_bytes ? o.hbm_bytes - o.mem_used : 0;
	o.ntenants = gp->ntenants;
	o.nbusy = gp->nbusy;
	o.nslices = gp->nslices;
	o.sms = gp->dev->sms;
	o.share_free_milli = world_gpu_share_free(w, g);
	o.nshare = world_gpu_nshare(w, g);
	return o;
}

struct pol_node_info pol_node(const struct world *w, int n)
{
	struct world_node wn;
	struct pol_node_info o;

	memset(&o, 0, sizeof o);
	if (world_node(w, n, &wn) != 0) {
		o.node = o.gpu = o.dev = -1;
		return o;
	}
	o.node = n;
	o.gpu = wn.gpu;
	o.ngpus = wn.ngpus;
	o.dev = wn.ngpus > 0 ? world_gpu_dev(w, wn.gpu) : -1;
	o.cpu_milli = wn.cpu_milli;
	o.cpu_free_milli = wn.cpu_free_milli;
	o.mem_mib = wn.mem_mib;
	o.mem_free_mib = wn.mem_free_mib;
	o.rank = wn.rank;
	o.version = wn.version;
	return o;
}

struct pol_slice_info pol_gpu_slice(const struct world *w, int g, int s)
{
	const struct gpu *gp = world_gpu(w, g);
	struct pol_slice_info o;

	memset(&o, 0, sizeof o);
	o.slice = -1;
	if (gp == NULL || s < 0 || s >= gp->nslices)
		return o;
	o.slice = s;
	o.zProfile = gp->dev->mig[gp->slices[s].profile].name;
	o.hbm_bytes = gp->slices[s].hbm_bytes;
	o.mem_used = gp->slices[s].mem_used;
	o.mem_free = gpu_mem_free(gp, s);
	o.sm_frac = gp->slices[s].sm_frac;
	return o;
}

uint64_t pol_gpu_free(const struct world *w, int g, int slice)
{
	return valid_gpu(w, g) ? world_gpu_free(w, g, slice) : 0;
}

struct pol_dev_info pol_dev(const struct world *w, int d)
{
	const struct dev_profile *dp = world_dev(w, d);
	struct pol_dev_info o;

	memset(&o, 0, sizeof o);
	o.dev = o.gpu = -1;
	if (dp == NULL)
		return o;
	o.dev = d;
	o.zName = dp->name;
	o.gpu = world_dev_gpu(w, d);
	o.ngpus = world_dev_ngpus(w, d);
	o.hbm_bytes = dp->hbm_bytes;
	o.sms = dp->sms;
	o.ctx_bytes = dp->ctx_bytes;
	o.h2d_bytes_per_s = dp->h2d_pinned_bytes_per_s;
	o.d2h_bytes_per_s = dp->d2h_pinned_bytes_per_s;
	o.nvlink_bytes_per_s = dp->nvlink_bytes_per_s;
	o.nmig = dp->nmig;
	return o;
}

struct pol_mig_info pol_dev_mig(const struct world *w, int d, int k)
{
	const struct dev_profile *dp = world_dev(w, d);
	struct pol_mig_info o;

	memset(&o, 0, sizeof o);
	o.profile = -1;
	if (dp == NULL || k < 0 || k >= dp->nmig)
		return o;
	o.profile = k;
	o.zName = dp->mig[k].name;
	o.max_count = dp->mig[k].max_count;
	o.sms = dp->mig[k].sms;
	o.hbm_bytes = dp->mig[k].hbm_bytes;
	return o;
}

struct pol_tenant_walk pol_tenants(const struct world *w, int g)
{
	struct pol_tenant_walk it;

	it.gpu = valid_gpu(w, g) ? g : -1;
	it.started = 0;
	it.at = NULL;
	return it;
}

int pol_tenant_next(const struct world *w, struct pol_tenant_walk *it,
		    struct pol_tenant_info *out)
{
	const struct gpu_tenant *t;

	if (it->gpu < 0)
		return 0;
	t = it->started ? it->at : world_gpu(w, it->gpu)->tenants;
	if (it->started && t != NULL)
		t = t->next_;
	it->started = 1;
	it->at = t;
	if (t == NULL) {
		it->gpu = -1;
		return 0;
	}
	tenant_info(t, it->gpu, out);
	return 1;
}

uint64_t pol_job_mem(const struct world *w, int j, int g)
{
	return valid_job(w, j) && valid_gpu(w, g) ? world_job_mem(w, j, g) : 0;
}

struct pol_footprint pol_job_footprint(const struct world *w, int j, int g)
{
	struct pol_footprint o = { 0, 0, 0 };

	if (valid_job(w, j) && valid_gpu(w, g))
		world_job_footprint(w, j, g, &o.peak_bytes, &o.trough_bytes,
				    &o.peak_frac);
	return o;
}

double pol_job_remaining_ns(const struct world *w, int j, int g)
{
	return valid_job(w, j) && valid_gpu(w, g) ?
		world_job_remaining_ns(w, j, g) : 0;
}

int pol_job_fits_empty(const struct world *w, int j)
{
	return valid_job(w, j) && world_job_fits_empty(w, j);
}

/* Job j's work profile at max batch b on device d. */
static void job_profile(const struct world *w, const struct world_job *job,
			const struct dev_profile *d, int b,
			struct gpu_work_profile *prof)
{
	if (job->tj.kind == TRACE_TRAIN)
		world__train_profile(w, job, d, b, prof);
	else
		wl_infer_profile(job->model, d, b, prof);
}

struct pol_work_profile pol_job_profile(const struct world *w, int j, int g)
{
	struct pol_work_profile o = { 0, 0, 0, 0 };
	struct gpu_work_profile prof;
	const struct world_job *job = view_job(w, j);

	if (job == NULL || !valid_gpu(w, g))
		return o;
	job_profile(w, job, world_gpu(w, g)->dev, job->tj.batch, &prof);
	o.alpha = prof.alpha;
	o.sat = prof.sat;
	o.bw_frac = prof.bw_frac;
	o.duty = prof.duty > 0 && prof.duty < 1 ? prof.duty : 1.0;
	return o;
}

sim_time pol_job_unit_ns(const struct world *w, int j, int g)
{
	const struct world_job *job = view_job(w, j);
	const struct dev_profile *d;

	if (job == NULL || !valid_gpu(w, g))
		return 0;
	d = world_gpu(w, g)->dev;
	if (job->tj.kind == TRACE_TRAIN)
		return wl_train_iter_ns(job->model, d, job->tj.batch,
					job->tj.prec);
	return wl_infer_batch_ns(job->model, d, job->tj.batch);
}

int world_mps_speeds(const struct dev_profile *d,
		     const struct gpu_work_profile *prof, int n,
		     double *speed)
{
	struct gpu gp;
	struct gpu_tenant t;
	int p;

	if (n < 1)
		return SIM_EINVAL;
	/* A scratch MPS GPU with the unit alone on it: the GPU model's own
	** answer, never a separate formula (docs/MODEL.md, "GSLICE"). */
	memset(&t, 0, sizeof t);
	t.sm_cap = 1.0;
	t.slice = -1;
	gpu_init(&gp, d, -1, 0, GPU_MODE_MPS, 0);
	if (gpu_attach(&gp, &t, 0, 1, NULL) != 0) {
		gpu_fini(&gp);
		return SIM_ENOSPC;
	}
	gpu_begin(&gp, &t, 1e6, prof, 0);
	speed[0] = t.speed;
	for (p = 1; p <= n; p++) {
		gpu_set_share(&gp, &t, p / (double)n, 0);
		speed[p] = t.speed;
	}
	gpu_fini(&gp);
	return 0;
}

int pol_probe_mps(const struct world *w, int j, int g, int batch, int n,
		  double *speed)
{
	const struct world_job *job = view_job(w, j);
	const struct dev_profile *d;
	struct gpu_work_profile prof;

	if (job == NULL || !valid_gpu(w, g) || n < 1)
		return SIM_EINVAL;
	d = world_gpu(w, g)->dev;
	job_profile(w, job, d, batch, &prof);
	return world_mps_speeds(d, &prof, n, speed);
}

int pol_queue_len(const struct world *w, int j, int r)
{
	return valid_job(w, j) ? world_queue_len(w, j, r) : -1;
}

uint64_t pol_swap_bytes(const struct world *w, int j, int g,
			uint64_t alloc_bytes)
{
	return valid_job(w, j) && valid_gpu(w, g) ?
		world_swap_bytes(w, j, g, alloc_bytes) : 0;
}

/* SIM_ESTATE for a released job (a done service's window goes with its
** record in a metrics-only world, so no world shows it), else 0. */
static int released_err(const struct world *w, int j, const char *what,
			struct sim_err *err)
{
	if (j < 0 || j >= world_njobs(w) || !world__released(w, j))
		return 0;
	return sim_err_set(err, SIM_ESTATE, "%s: job %d is %s and released",
			   what, j, job_state_name(world__job_state(w, j)));
}

int pol_svc_window(struct world *w, int j, struct pol_svc_window *out,
		   struct sim_err *err)
{
	struct world_svc_window win;
	int rc = released_err(w, j, "svc_window", err);

	if (rc == 0)
		rc = world_svc_window(w, j, &win, err);
	if (rc != 0)
		return rc;
	out->t0_ns = win.t0_ns;
	out->len_ns = win.len_ns;
	out->arrivals = win.arrivals;
	out->served = win.served;
	out->slo_miss = win.slo_miss;
	out->lat_p99_ms = win.lat_p99_ms;
	out->lat_max_ms = win.lat_max_ms;
	out->lat_mean_ms = win.lat_mean_ms;
	out->batches = win.batches;
	out->batch_sum = win.batch_sum;
	out->batch_sum2 = win.batch_sum2;
	out->exec_sum_ms = win.exec_sum_ms;
	out->bexec_sum_ms = win.bexec_sum_ms;
	out->max_batch = win.max_batch;
	out->replicas = win.replicas;
	out->queued = win.queued;
	return 0;
}

int pol_svc_window_reset(struct world *w, int j, struct sim_err *err)
{
	int rc = released_err(w, j, "svc_window_reset", err);

	return rc != 0 ? rc : world_svc_window_reset(w, j, err);
}

int pol_llm_window(struct world *w, int j, struct pol_llm_window *out,
		   struct sim_err *err)
{
	return world_llm_window(w, j, out, err);
}

int pol_llm_window_reset(struct world *w, int j, struct sim_err *err)
{
	return world_llm_window_reset(w, j, err);
}

/* ---- the pools ------------------------------------------------------------- */

static const struct zoo_model *job_model(const struct world *w, int j)
{
	const struct world_job *job = view_job(w, j);

	return job != NULL ? job->model : NULL;
}

int pol_pool_servers(const struct world *w)
{
	return world_pool_servers(w);
}

int pol_pool_shards(const struct world *w, int j, int *servers)
{
	const struct zoo_model *m = job_model(w, j);

	return m != NULL ? world_pool_shards(w, m, servers) : 0;
}

int pol_pool_in(const struct world *w, int g) { return world_pool_in(w, g); }

int pol_pool_load(const struct world *w, int g)
{
	return world_pool_load(w, g);
}

int pol_pool_has_model(const struct world *w, int g, int j)
{
	const struct zoo_model *m = job_model(w, j);

	return m != NULL ? world_pool_has_model(w, g, m) : 0;
}

int pol_pool_route(const struct world *w, int j, int busy_load,
		   int max_load, int cache)
{
	return world_pool_route(w, job_model(w, j), busy_load, max_load,
				cache);
}

int pol_pool_queued(const struct world *w) { return world_pool_queued(w); }

uint64_t pol_pool_busy_total_ns(const struct world *w)
{
	return world_pool_busy_total_ns(w);
}

int pol_pool_size(const struct world *w) { return world_pool_size(w); }

sim_time pol_pool_busy_ns(const struct world *w, int g)
{
	return world_pool_busy_ns(w, g);
}

int pol_pool_serving(const struct world *w, int j)
{
	return world_pool_serving(w, j);
}

uint64_t pol_pool_loads(const struct world *w)
{
	return world_pool_loads(w);
}

/* ---- the actions ----------------------------------------------------------- */

/* opts as the world's; NULL stays NULL (the world's defaults). */
static const struct world_place_opts *place_opts(
	const struct pol_place_opts *o, struct world_place_opts *buf)
{
	if (o == NULL)
		return NULL;
	buf->sm_cap = o->sm_cap;
	buf->slices = o->slices;
	buf->allow_oversub = o->allow_oversub;
	buf->mem_bytes = o->mem_bytes;
	return buf;
}

int pol_place(struct world *w, int j, const int *gpus, int n,
	      const struct pol_place_opts *opts, struct sim_err *err)
{
	struct world_place_opts o;

	return world_place(w, j, gpus, n, place_opts(opts, &o), err);
}

int pol_place_share(struct world *w, int j, int node, const int *gpus, int n,
		    struct sim_err *err)
{
	return world_place_share(w, j, node, gpus, n, err);
}

int pol_trace_rows(struct world *w, const char *path,
		   int (*fn)(void *ctx, const struct pol_trace_row *row),
		   void *ctx, struct sim_err *err)
{
	struct trace_reader *tr;
	struct trace_job tj;
	struct pol_trace_row row;
	int rc;

	if ((rc = trace_open(&tr, path != NULL ? path : w->trace_path,
			     err)) != 0)
		return rc;
	while ((rc = trace_next(tr, &tj, err)) == 1) {
		long m = lround(tj.gpu_share * 1000);
		row.zId = tj.id;
		row.kind = (enum pol_job_kind)tj.kind;
		row.gpus = tj.gpus;
		row.share_milli = tj.gpus == 0 ? 0 : m < 1 ? 1 :
			m > 1000 ? 1000 : (int)m;
		row.cpu_milli = tj.cpu_milli;
		row.host_mem_mib = tj.host_mem_mib;
		if ((rc = fn(ctx, &row)) != 0)
			break;
	}
	trace_close(tr);
	return rc;
}

int pol_resize(struct world *w, int j, const int *gpus, int n,
	       sim_time restart_ns, struct sim_err *err)
{
	return world_resize(w, j, gpus, n, restart_ns, err);
}

double pol_job_total_at(const struct world *w, int j, int g, int n)
{
	return world_job_total_at(w, j, g, n);
}

int pol_preempt(struct world *w, int j, struct sim_err *err)
{
	return world_preempt(w, j, err);
}

int pol_swap_out(struct world *w, int j, struct sim_err *err)
{
	return world_swap_out(w, j, err);
}

int pol_swap_in(struct world *w, int j, const int *gpus, int n,
		const struct pol_place_opts *opts, struct sim_err *err)
{
	struct world_place_opts o, dflt = { 1.0, NULL, 0, 0 };
	const struct world_place_opts *po = place_opts(opts, &o);

	return world_swap_in(w, j, gpus, n, po != NULL ? po : &dflt, err);
}

int pol_set_share(struct world *w, int j, double sm_cap,
		  struct sim_err *err)
{
	return world_set_share(w, j, sm_cap, err);
}

int pol_set_mem(struct world *w, int j, uint64_t mem_bytes,
		int allow_oversub, struct sim_err *err)
{
	return world_set_mem(w, j, mem_bytes, allow_oversub, err);
}

int pol_set_batch(struct world *w, int j, int max_batch,
		  struct sim_err *err)
{
	return world_set_batch(w, j, max_batch, err);
}

int pol_set_gpu_mode(struct world *w, int g, enum pol_gpu_mode mode,
		     struct sim_err *err)
{
	if ((int)mode < (int)POL_GPU_EXCLUSIVE ||
	    (int)mode > (int)POL_GPU_INTERLEAVE)
		return sim_err_set(err, SIM_EINVAL, "set_gpu_mode: no mode %d",
				   (int)mode);
	return world_set_gpu_mode(w, g, (enum gpu_mode)mode, err);
}

int pol_set_mig_layout(struct world *w, int g, const char *const *profiles,
		       int n, struct sim_err *err)
{
	return world_set_mig_layout(w, g, profiles, n, err);
}

int pol_set_timer(struct world *w, sim_time dt, uint64_t tag,
		  struct sim_err *err)
{
	return world_set_timer(w, dt, tag, err);
}

int pol_fail_job(struct world *w, int j, const char *reason)
{
	return world_fail_job(w, j, reason);
}

int pol_add_metric(struct world *w, const char *name, double value)
{
	return world_add_metric(w, name, value);
}

int pol_pool_join(struct world *w, int g, struct sim_err *err)
{
	return world_pool_join(w, g, err);
}

int pol_pool_leave(struct world *w, int g, struct sim_err *err)
{
	return world_pool_leave(w, g, err);
}

int pol_pool_serve(struct world *w, int j, struct sim_err *err)
{
	return world_pool_serve(w, j, err);
}

int pol_pool_set_mode(struct world *w, enum pol_load_mode mode,
		      struct sim_err *err)
{
	return world_pool_set_mode(w, (enum world_load_mode)mode, err);
}

int pol_load_model(struct world *w, int g, int j, struct sim_err *err)
{
	const struct zoo_model *m = job_model(w, j);

	if (m == NULL)
		return sim_err_set(err, SIM_EINVAL, "load_model: no job %d", j);
	return world_load_model(w, g, m, err);
}

int pol_evict_model(struct world *w, int g, int j, struct sim_err *err)
{
	const struct zoo_model *m = job_model(w, j);

	if (m == NULL)
		return sim_err_set(err, SIM_EINVAL, "evict_model: no job %d",
				   j);
	return world_evict_model(w, g, m, err);
}

/* ---- indexes (version 3) ----------------------------------------------------- */

_Static_assert((int)POL_FIT_FREE == (int)WORLD_FIT_FREE &&
	       (int)POL_FIT_IDLE == (int)WORLD_FIT_IDLE &&
	       (int)POL_FIT_SLICE == (int)WORLD_FIT_SLICE, "fits");
_Static_assert((int)POL_ORDER_BEST_FIT == (int)WORLD_ORDER_BEST_FIT &&
	       (int)POL_ORDER_LEAST_LOADED == (int)WORLD_ORDER_LEAST_LOADED,
	       "orders");

int pol_gpus_idle(const struct world *w) { return world_gpus_idle(w); }
int pol_slices_free(const struct world *w) { return world_slices_free(w); }
int pol_gpu_dev(const struct world *w, int g) { return world_gpu_dev(w, g); }

int pol_node_idle(const struct world *w, int n)
{
	return world_node_idle(w, n);
}

int pol_node_next_idle(const struct world *w, int from, int k)
{
	return world_node_next_idle(w, from, k);
}

int pol_node_next_whole(const struct world *w, int from, int max_gpus)
{
	return world_node_next_whole(w, from, max_gpus);
}

int pol_gpu_next_fit(const struct world *w, int from, uint64_t bytes,
		     enum pol_fit how)
{
	return world_gpu_next_fit(w, from, bytes, (enum world_fit)how);
}

uint64_t pol_gpu_max_fit(const struct world *w, enum pol_fit how)
{
	return world_gpu_max_fit(w, (enum world_fit)how);
}

int pol_gpu_order_first(const struct world *w, int dev,
			enum pol_gpu_order ord, uint64_t bytes)
{
	return world_gpu_order_first(w, dev, (enum world_order)ord, bytes);
}

int pol_gpu_order_next(const struct world *w, int dev,
		       enum pol_gpu_order ord, uint64_t bytes, int g)
{
	return world_gpu_order_next(w, dev, (enum world_order)ord, bytes, g);
}

int pol_gpu_most_free(const struct world *w, int dev, int before)
{
	return world_gpu_most_free(w, dev, before);
}

int pol_gpu_nth_fit(const struct world *w, int n, enum pol_fit how,
		    uint64_t *bytes)
{
	return world_gpu_nth_fit(w, n, (enum world_fit)how, bytes);
}

int pol_gpu_order_skip(const struct world *w, int dev,
		       enum pol_gpu_order ord, uint64_t bytes, int g)
{
	return world_gpu_order_skip(w, dev, (enum world_order)ord, bytes, g);
}

void *pol_job_priv(const struct world *w, int j)
{
	struct world_job *job;

	if (w->pol->iVersion < 4 || w->pol->szJob == 0 || j < 0 ||
	    j >= w->njobs || world__retired(w, j) || world__released(w, j))
		return NULL;
	job = world__job(w, j);
	if (job->pol_priv_ == NULL &&
	    (job->pol_priv_ = calloc(1, w->pol->szJob)) != NULL)
		world__chunk(w, j)->nprivs++;   /* world_live_privs */
	return job->pol_priv_;
}

int pol_nchanged(const struct world *w) { return world_nchanged(w); }
int pol_changed_at(const struct world *w, int k)
{
	return world_changed_at(w, k);
}
