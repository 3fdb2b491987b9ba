/*
** srsf.c: shortest remaining service first: remaining solo time x GPUs,
** smallest first, preemptive, re-decided at every arrival and completion
** (Muri's simulator "shortest-gpu", run_sim.py shortest_first_sim_jobs
** with gputime; Tiresias's simulator has the same).  The pass is
** policies/qsched.c's: the desired set in this order on an empty cluster,
** fit-first; `placement` = node (default: the peers' yarn scheme) | any.
** Remaining times are on GPU 0's device, as the baselines' srtf.
**
** Cost per event: the qsched core's (policies/qsched.h, "Cost per event":
** O(A) a pass plus the sort, O(A log N) the desired set under node
** placement, O(n log G) a placement; nothing O(G) or O(N) an event) with
** one pass per arrival and finish; the keys (remaining service, remaining
** time) are recomputed for the A active jobs each pass.  Worst case: srsf's
** keys crossing as running jobs progress, re-ordering the sort each pass.
*/
#include "policies/qsched.h"

struct srsf {
	struct qsched q;
	int gpu_weighted;             /* srsf: x GPUs; srtf: not */
	const char *name;
	int placement;                /* parameter: QS_PLACE_* */
};

static const struct pol_param_def srsf_params[] = {
	POL_PARAM_CHOICE("placement", struct srsf, placement, qs_place_names,
			 "node", "node: a job within one node, larger ones on "
			 "whole nodes (the peers' yarn); any: any free GPUs"),
	POL_PARAM_END
};

static int srsf_init(struct world *w, void *s, const struct pol_params *p,
		     struct sim_err *err)
{
	struct srsf *st = s;

	(void)p;
	st->gpu_weighted = 1;
	st->name = "srsf";
	return qs_init(&st->q, w, st->placement, err);
}

static int srtf_init(struct world *w, void *s, const struct pol_params *p,
		     struct sim_err *err)
{
	struct srsf *st = s;

	(void)p;
	st->name = "srtf";
	return qs_init(&st->q, w, st->placement, err);
}

static void srsf_fini(struct world *w, void *s)
{
	struct srsf *st = s;
	(void)w;
	qs_fini(&st->q);
}

static int srsf_arrival(struct world *w, void *s, int j)
{
	struct srsf *st = s;
	int rc = qs_arrive(&st->q, w, j, st->name);
	return rc < 0 ? rc : 0;
}

static int srsf_finish(struct world *w, void *s, int j)
{
	struct srsf *st = s;
	qs_finish(&st->q, w, j);
	return 0;
}

static int srsf_schedule(struct world *w, void *s)
{
	struct srsf *st = s;
	int k;

	for (k = 0; k < st->q.nact; k++) {
		int j = st->q.act[k];
		double rem = pol_job_remaining_ns(w, j, 0);
		st->q.actx[k]->key = st->gpu_weighted ?
			rem * (double)st->q.actx[k]->gpus : rem;
	}
	qs_sort(&st->q, w);
	return qs_apply(&st->q, w);
}

const struct pol_ops pol_srsf = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "srsf",
	.zDesc = "shortest remaining service (time x GPUs) first, preemptive "
		 "(Muri's and Tiresias's simulators)",
	.szState = sizeof(struct srsf),
	.szJob = QS_SZJOB,
	.xInit = srsf_init,
	.xFini = srsf_fini,
	.xOnArrival = srsf_arrival,
	.xOnFinish = srsf_finish,
	.xSchedule = srsf_schedule,
	.aParam = srsf_params,
};

const struct pol_ops pol_srtf = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "srtf",
	.zDesc = "shortest remaining time first, preemptive, every job "
		 "re-decided at every event (Muri's and Tiresias's simulators)",
	.szState = sizeof(struct srsf),
	.szJob = QS_SZJOB,
	.xInit = srtf_init,
	.xFini = srsf_fini,
	.xOnArrival = srsf_arrival,
	.xOnFinish = srsf_finish,
	.xSchedule = srsf_schedule,
	.aParam = srsf_params,
};
