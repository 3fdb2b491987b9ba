/*
** frac.c: the share policies' common part (see frac.h): node feasibility,
** the default GPU choice, the snapshots of the world's nodes and the
** scheduling pass of bestfit and fgd.
**
** All quantities are integers (milli-CPU, MiB, milli-GPU), so feasibility
** is exact; only the policies' scores use floating point.
*/
#include <stdlib.h>
#include <string.h>

#include "policies/frac.h"

int64_t frac_node_gpu_free(const struct frac_node *n)
{
	int64_t s = 0;
	int i;

	for (i = 0; i < n->ngpus; i++)
		s += n->gpu_free_milli[i];
	return s;
}

int frac_node_fits(const struct frac_node *n, const struct frac_pod *p)
{
	int i, have = 0;

	if ((!n->cpu_any && n->cpu_free_milli < p->cpu_milli) ||
	    (!n->mem_any && n->mem_free_mib < p->mem_mib))
		return 0;
	if (p->num_gpu <= 0)
		return 1;
	for (i = 0; i < n->ngpus; i++)
		if (n->gpu_free_milli[i] >= p->gpu_milli && ++have >= p->num_gpu)
			return 1;
	return 0;
}

int frac_pick_gpus_default(const struct frac_node *n, const struct frac_pod *p,
			   struct frac_place *out)
{
	int i, best = -1;

	out->ngpu = 0;
	if (p->num_gpu <= 0)
		return 0;
	if (p->num_gpu == 1 && p->gpu_milli < FRAC_MILLI_PER_GPU) {
		for (i = 0; i < n->ngpus; i++)
			if (n->gpu_free_milli[i] >= p->gpu_milli &&
			    (best < 0 || n->gpu_free_milli[i] <
			     n->gpu_free_milli[best]))
				best = i;
		if (best < 0)
			return SIM_ENOSPC;
		out->gpu[out->ngpu++] = best;
		return 0;
	}
	for (i = 0; i < n->ngpus && out->ngpu < p->num_gpu; i++)
		if (n->gpu_free_milli[i] >= p->gpu_milli)
			out->gpu[out->ngpu++] = i;
	return out->ngpu == p->num_gpu ? 0 : SIM_ENOSPC;
}

/* ---- snapshots of the world ---------------------------------------------- */

static void snap(struct world *w, struct frac_node *fn, int n)
{
	struct pol_node_info ni = pol_node(w, n);
	int k;

	fn->cpu_any = ni.cpu_milli == 0;
	fn->mem_any = ni.mem_mib == 0;
	fn->cpu_free_milli = ni.cpu_free_milli;
	fn->mem_free_mib = ni.mem_free_mib;
	fn->ngpus = ni.ngpus;
	fn->gpu0 = ni.gpu;
	fn->tiebreak_rank = ni.rank;
	fn->version = ni.version;
	for (k = 0; k < ni.ngpus && k < FRAC_MAX_GPUS; k++)
		fn->gpu_free_milli[k] = pol_gpu(w, ni.gpu + k).share_free_milli;
}

int frac_view_init(struct world *w, struct frac_view *v, struct sim_err *err)
{
	int n, g, rc;

	v->nnodes = pol_nnodes(w);
	v->nodes = calloc((size_t)(v->nnodes > 0 ? v->nnodes : 1),
			  sizeof *v->nodes);
	if (v->nodes == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (n = 0; n < v->nnodes; n++) {
		if (pol_node(w, n).ngpus > FRAC_MAX_GPUS)
			return sim_err_set(err, SIM_EINVAL, "node %d has %d "
					   "GPUs; the share policies handle at "
					   "most %d per node", n,
					   pol_node(w, n).ngpus, FRAC_MAX_GPUS);
		snap(w, &v->nodes[n], n);
	}
	for (g = 0; g < pol_ngpus(w); g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS, err)) != 0)
			return rc;
	return 0;
}

void frac_view_fini(struct frac_view *v)
{
	free(v->nodes);
	v->nodes = NULL;
}

void frac_view_refresh(struct world *w, struct frac_view *v)
{
	int n;

	for (n = 0; n < v->nnodes; n++)
		if (pol_node(w, n).version != v->nodes[n].version)
			snap(w, &v->nodes[n], n);
}

struct frac_pod frac_job_pod(const struct world *w, int j)
{
	struct pol_job_info ji = pol_job(w, j);
	struct frac_pod p;

	p.cpu_milli = ji.cpu_milli;
	p.mem_mib = ji.host_mem_mib;
	p.num_gpu = ji.gpus;
	p.gpu_milli = ji.share_milli;
	return p;
}

/* 1 when pod p would fit some node of the cluster with nothing placed. */
static int fits_empty(struct world *w, const struct frac_view *v,
		      const struct frac_pod *p)
{
	struct frac_node e;
	int n, k;

	for (n = 0; n < v->nnodes; n++) {
		struct pol_node_info ni = pol_node(w, n);
		memset(&e, 0, sizeof e);
		e.cpu_any = ni.cpu_milli == 0;
		e.mem_any = ni.mem_mib == 0;
		e.cpu_free_milli = ni.cpu_milli;
		e.mem_free_mib = ni.mem_mib;
		e.ngpus = ni.ngpus;
		for (k = 0; k < ni.ngpus && k < FRAC_MAX_GPUS; k++)
			e.gpu_free_milli[k] = FRAC_MILLI_PER_GPU;
		if (frac_node_fits(&e, p))
			return 1;
	}
	return 0;
}

int frac_schedule(struct world *w, struct frac_view *v, frac_place_fn rule,
		  void *state)
{
	struct pol_pending_walk it = POL_PENDING_WALK;
	struct frac_place pl;
	struct frac_pod p;
	struct sim_err err;
	int gpus[FRAC_MAX_GPUS];
	int j, k, rc;

	while ((j = pol_pending_next(w, &it)) >= 0) {
		if (pol_job(w, j).kind != POL_TRAIN) {
			if ((rc = pol_fail_job(w, j, "a service: the share "
					       "policies place training jobs "
					       "only")) != 0)
				return rc;
			continue;
		}
		p = frac_job_pod(w, j);
		frac_view_refresh(w, v);
		if (rule(state, v->nodes, (size_t)v->nnodes, &p, &pl) == 0) {
			const struct frac_node *fn = &v->nodes[pl.node];
			for (k = 0; k < pl.ngpu; k++)
				gpus[k] = fn->gpu0 + pl.gpu[k];
			sim_err_clear(&err);
			rc = pol_place_share(w, j, pl.node, gpus, pl.ngpu, &err);
			if (rc == 0)
				continue;
			if (rc != SIM_ENOSPC)
				return rc;     /* the snapshot lied: a bug */
		}
		if (v->fail_nofit || !fits_empty(w, v, &p))
			if ((rc = pol_fail_job(w, j, v->fail_nofit ?
					       "fits no node now (nofit = "
					       "fail)" : "fits no node of the "
					       "cluster")) != 0)
				return rc;
	}
	return 0;
}
