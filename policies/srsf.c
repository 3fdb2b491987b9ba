/*
** srsf.c: shortest remaining service first: remaining solo time x GPUs,
** smallest first, preemptive, re-decided at every arrival and completion
** (Muri's simulator "shortest-gpu", run_sim.py shortest_first_sim_jobs
** with gputime; Tiresias's simulator has the same).  The pass is
** policies/qsched.c's: the desired set in this order on an empty cluster,
** fit-first; `placement` = node (default: the peers' yarn scheme) | any.
** Remaining times are on GPU 0's device, as the baselines' srtf.
*/
#include "policies/qsched.h"

static const char *const srsf_keys[] = { "placement", NULL };

struct srsf {
	struct qsched q;
	int gpu_weighted;             /* srsf: x GPUs; srtf: not */
	const char *name;
};

static int srsf_init(struct world *w, void *s, const struct pol_params *p,
		     struct sim_err *err)
{
	struct srsf *st = s;

	st->gpu_weighted = 1;
	st->name = "srsf";
	return qs_params(w, &st->q, "srsf", p, srsf_keys, QS_PLACE_NODE, err);
}

static int srtf_init(struct world *w, void *s, const struct pol_params *p,
		     struct sim_err *err)
{
	struct srsf *st = s;

	st->name = "srtf";
	return qs_params(w, &st->q, "srtf", p, srsf_keys, QS_PLACE_NODE, err);
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
	(void)w;
	qs_finish(&st->q, j);
	return 0;
}

static int srsf_schedule(struct world *w, void *s)
{
	struct srsf *st = s;
	int k;

	for (k = 0; k < st->q.nact; k++) {
		int j = st->q.act[k];
		double rem = pol_job_remaining_ns(w, j, 0);
		st->q.job[j].key = st->gpu_weighted ?
			rem * (double)pol_job(w, j).gpus : rem;
	}
	qs_sort(&st->q);
	return qs_apply(&st->q, w);
}

const struct pol_ops pol_srsf = {
	POL_IFACE_VERSION, "srsf",
	"shortest remaining service (time x GPUs) first, preemptive "
	"(Muri's and Tiresias's simulators)",
	sizeof(struct srsf), srsf_init, srsf_fini, srsf_arrival, srsf_finish,
	NULL, NULL, srsf_schedule
};

const struct pol_ops pol_srtf = {
	POL_IFACE_VERSION, "srtf",
	"shortest remaining time first, preemptive, every job re-decided at "
	"every event (Muri's and Tiresias's simulators)",
	sizeof(struct srsf), srtf_init, srsf_fini, srsf_arrival, srsf_finish,
	NULL, NULL, srsf_schedule
};
