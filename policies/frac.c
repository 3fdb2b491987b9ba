/*
** frac.c: the share policies' common part (see frac.h): node feasibility,
** the default GPU choice and the scheduling pass of bestfit and fgd (the
** snapshots of the world's nodes: policies/frac_view.c).
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

/* ---- the scheduling pass ------------------------------------------------- */

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

/* The pass over the pending jobs (frac_schedule's body). */
static int schedule_pending(struct world *w, struct frac_view *v,
			    frac_place_fn rule, void *state)
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
		if ((rc = frac_view_refresh(w, v)) != 0)
			return rc;
		if (rule(state, v->nodes, v->rep, (size_t)v->nlive, &p,
			 &pl) == 0) {
			const struct frac_node *fn = &v->nodes[pl.node];
			for (k = 0; k < pl.ngpu; k++)
				gpus[k] = fn->gpu0 + pl.gpu[k];
			sim_err_clear(&err);
			rc = pol_place_share(w, j, pl.node, gpus, pl.ngpu, &err);
			if (rc == 0) {
				if ((rc = frac_view_placed(v, j, pl.node,
							   pl.ngpu)) != 0)
					return rc;
				continue;
			}
			if (rc != SIM_ENOSPC)
				return rc;     /* the snapshot lied: a bug */
		}
		if (v->fail_nofit || !frac_view_fits_empty(v, &p))
			if ((rc = pol_fail_job(w, j, v->fail_nofit ?
					       "fits no node now (nofit = "
					       "fail)" : "fits no node of the "
					       "cluster")) != 0)
				return rc;
	}
	return 0;
}

int frac_schedule(struct world *w, struct frac_view *v, frac_place_fn rule,
		  void *state)
{
	int rc;

	/* the world's changed GPUs are those since the last pass ended */
	v->chg_seen = 0;
	rc = schedule_pending(w, v, rule, state);
	frac_view_pass_end(w, v);
	return rc;
}
