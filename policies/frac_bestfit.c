/*
** frac_bestfit.c: BestFit placement of fractional-GPU pods (policies/frac.h).
**
** Two passes over the nodes, no allocation: the first finds the feasible
** nodes' lowest and highest raw scores, the second normalises and keeps the
** best (highest score, then lowest tie-break rank).  The floating-point
** operations follow the simulator's order (cpu term, then GPU term, then
** (1 - s) * 100) so that truncation lands on the same integers.
*/
#include "policies/frac.h"

int64_t frac_bestfit_raw(const struct frac_node *n, const struct frac_pod *p)
{
	double s = 0.0;
	double gpu_req = (double)p->gpu_milli * (p->num_gpu > 0 ? p->num_gpu : 0);

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

int frac_bestfit_place(const struct frac_cluster *c, const struct frac_pod *p,
		       struct frac_place *out)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, s, best_s = 0;
	size_t i, nfeas = 0;
	int best = -1, only = -1;

	for (i = 0; i < c->nnodes; i++) {
		if (!frac_node_fits(&c->nodes[i], p))
			continue;
		nfeas++;
		only = (int)i;
		s = frac_bestfit_raw(&c->nodes[i], p);
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
		for (i = 0; i < c->nnodes; i++) {
			if (!frac_node_fits(&c->nodes[i], p))
				continue;
			s = frac_normalize(frac_bestfit_raw(&c->nodes[i], p),
					   lo, hi);
			if (best < 0 || s > best_s ||
			    (s == best_s && c->nodes[i].tiebreak_rank <
			     c->nodes[best].tiebreak_rank)) {
				best = (int)i;
				best_s = s;
			}
		}
	}
	out->node = best;
	return frac_pick_gpus_default(&c->nodes[best], p, out);
}

int frac_bestfit_fn(void *state, const struct frac_cluster *c,
		    const struct frac_pod *p, struct frac_place *out)
{
	(void)state;
	return frac_bestfit_place(c, p, out);
}
