/*
** bestfit.c: BestFit placement of fractional-GPU jobs, the FGD paper's
** baseline (policies/frac.h; docs/POLICIES.md, "bestfit and fgd").
**
** Two passes over the nodes, no allocation: the first finds the feasible
** nodes' lowest and highest raw scores, the second normalises and keeps the
** best (highest score, then lowest tie-break rank).  The floating-point
** operations follow the simulator's order (cpu term, then GPU term, then
** (1 - s) * 100) so that truncation lands on the same integers.
**
** Cost per event (N nodes, P pending, k GPUs a node): a pass refreshes the
** changed nodes' snapshots (O(N) version checks per pending job) and
** scores every feasible node for each pending job (O(N k) a job).  Not
** indexed yet (issue 20 item 1).  Worst case: a long queue on a large
** cluster (O(P N k) a pass).
*/
#include "policies/frac.h"

#define POLICY_NAME bestfit

int64_t frac_bestfit_raw(const struct frac_node *n, const struct frac_pod *p)
{
	double s = 0.0;
	double gpu_req = (double)p->gpu_milli * (p->num_gpu > 0 ? p->num_gpu : 0);

	if (!n->cpu_any)
		s += ((double)n->cpu_free_milli - (double)p->cpu_milli) /
		     FRAC_BESTFIT_MAX_CPU_MILLI * 0.5;
	s += ((double)frac_node_gpu_free(n) - gpu_req) /
	     FRAC_BESTFIT_MAX_GPU_MILLI * 0.5;
	return (int64_t)((1.0 - s) * 100.0);
}

int64_t frac_normalize(int64_t s, int64_t lo, int64_t hi)
{
	if (hi == lo)
		return 0;
	return (s - lo) * 100 / (hi - lo);
}

int frac_bestfit_place(void *state, const struct frac_node *nodes,
		       size_t nnodes, const struct frac_pod *p,
		       struct frac_place *out)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, s, best_s = 0;
	size_t i, nfeas = 0;
	int best = -1, only = -1;

	(void)state;
	for (i = 0; i < nnodes; i++) {
		if (!frac_node_fits(&nodes[i], p))
			continue;
		nfeas++;
		only = (int)i;
		s = frac_bestfit_raw(&nodes[i], p);
		if (s < lo)
			lo = s;
		if (s > hi)
			hi = s;
	}
	if (nfeas == 0)
		return SIM_ENOSPC;
	if (nfeas == 1) {
		best = only;
	} else {
		for (i = 0; i < nnodes; i++) {
			if (!frac_node_fits(&nodes[i], p))
				continue;
			s = frac_normalize(frac_bestfit_raw(&nodes[i], p),
					   lo, hi);
			if (best < 0 || s > best_s ||
			    (s == best_s && nodes[i].tiebreak_rank <
			     nodes[best].tiebreak_rank)) {
				best = (int)i;
				best_s = s;
			}
		}
	}
	out->node = best;
	return frac_pick_gpus_default(&nodes[best], p, out);
}

/* ---- the policy ---- */

struct bestfit_state {
	struct frac_view v;
	int nofit;                 /* 0 wait, 1 fail */
};

static const char *const nofit_choices[] = { "wait", "fail", NULL };

static const struct pol_param_def bestfit_params[] = {
	POL_PARAM_CHOICE("nofit", struct bestfit_state, nofit, nofit_choices,
			 "wait", "a job that fits no node now: wait for one "
			 "to free, or fail (the openb experiment)"),
	POL_PARAM_END
};

static int bestfit_init(struct world *w, void *state,
			const struct pol_params *p, struct sim_err *err)
{
	struct bestfit_state *st = state;

	(void)p;
	st->v.fail_nofit = st->nofit == 1;
	return frac_view_init(w, &st->v, err);
}

static void bestfit_fini(struct world *w, void *state)
{
	struct bestfit_state *st = state;

	(void)w;
	frac_view_fini(&st->v);
}

static int bestfit_schedule(struct world *w, void *state)
{
	struct bestfit_state *st = state;

	return frac_schedule(w, &st->v, frac_bestfit_place, NULL);
}

const struct pol_ops POL_OPS_SYMBOL(POLICY_NAME) = {
	.iVersion = 3,
	.zName = POL_NAME_STRING(POLICY_NAME),
	.zDesc = "FGD paper's BestFit: fractional GPU shares, CPU and memory "
		 "per node, the best-packed node first",
	.szState = sizeof(struct bestfit_state),
	.xInit = bestfit_init,
	.xFini = bestfit_fini,
	.xSchedule = bestfit_schedule,
	.aParam = bestfit_params,
};
