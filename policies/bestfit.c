/*
** bestfit.c: BestFit placement of fractional-GPU jobs, the FGD paper's
** baseline (policies/frac.h; docs/POLICIES.md, "bestfit and fgd").
**
** Two passes over the candidates (one node per class of equal nodes,
** policies/frac_view.c), no allocation: the first finds the feasible
** candidates' lowest and highest raw scores, the second normalises and
** keeps the best (highest score, then lowest tie-break rank, then lowest
** index).  Every node of a class has its class's raw score, so lo, hi and
** the winner are those over every node.  The floating-point operations
** follow the simulator's order (cpu term, then GPU term, then (1 - s) *
** 100) so that truncation lands on the same integers.
**
** Cost per event (N nodes, P pending, k GPUs a node, L classes of equal
** nodes): a pass re-snapshots the nodes that changed (O(k log k + log m)
** each) and scores one node per class for each pending job (O(L k) a
** job).  L is at most N but counts distinct node states (the empty nodes
** are one class), so on a large, lightly loaded cluster it follows the
** load, not N.  Worst case: a long queue on a cluster of all-different
** nodes (O(P N k) a pass).
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

int frac_bestfit_among(void *state, const struct frac_node *nodes,
		       const int *cand, size_t ncand, const struct frac_pod *p,
		       struct frac_place *out)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, s, best_s = 0;
	size_t k, nfeas = 0;
	int i, best = -1, only = -1;

	(void)state;
	for (k = 0; k < ncand; k++) {
		i = cand != NULL ? cand[k] : (int)k;
		if (!frac_node_fits(&nodes[i], p))
			continue;
		nfeas++;
		only = i;
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
		for (k = 0; k < ncand; k++) {
			i = cand != NULL ? cand[k] : (int)k;
			if (!frac_node_fits(&nodes[i], p))
				continue;
			s = frac_normalize(frac_bestfit_raw(&nodes[i], p),
					   lo, hi);
			if (best < 0 || s > best_s ||
			    (s == best_s && frac_before(nodes, i, best))) {
				best = i;
				best_s = s;
			}
		}
	}
	out->node = best;
	return frac_pick_gpus_default(&nodes[best], p, out);
}

int frac_bestfit_place(void *state, const struct frac_node *nodes,
		       size_t nnodes, const struct frac_pod *p,
		       struct frac_place *out)
{
	return frac_bestfit_among(state, nodes, NULL, nnodes, p, out);
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

	return frac_schedule(w, &st->v, frac_bestfit_among, NULL);
}

static int bestfit_on_finish(struct world *w, void *state, int j)
{
	struct bestfit_state *st = state;

	(void)w;
	return frac_view_on_finish(&st->v, j);
}

const struct pol_ops POL_OPS_SYMBOL(POLICY_NAME) = {
	.iVersion = 3,
	.zName = POL_NAME_STRING(POLICY_NAME),
	.zDesc = "FGD paper's BestFit: fractional GPU shares, CPU and memory "
		 "per node, the best-packed node first",
	.szState = sizeof(struct bestfit_state),
	.xInit = bestfit_init,
	.xFini = bestfit_fini,
	.xOnFinish = bestfit_on_finish,
	.xSchedule = bestfit_schedule,
	.aParam = bestfit_params,
};
