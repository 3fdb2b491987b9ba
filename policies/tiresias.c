/*
** tiresias.c: Tiresias (NSDI'19), discretized 2D-LAS on attained GPU
** service (dlas.h), as its simulator's "dlas-gpu" (SymbioticLab/Tiresias
** simulator/run_sim.py dlas_sim_jobs(gputime=True); Muri's simulator has
** the same, Rivendile/Muri simulator/run_sim.py).  Parameters (defaults
** from the simulators' jobs.py, docs/POLICIES.md): queues "3250,7200"
** (GPU-seconds), starvation 0 (off), service gpu | time, jump_round 1,
** placement any (their "count") | node.
**
** Cost per event: the qsched core's (policies/qsched.h, "Cost per event":
** O(A) a pass plus the sort, O(A log N) the desired set under node
** placement, O(n log G) a placement; nothing O(G) or O(N) an event), with a
** pass at every arrival, finish and queue-demotion timer (dlas.c: the
** timers of the jobs about to cross a threshold, O(log A) each).  Worst
** case: many jobs crossing thresholds at distinct times (one pass each).
*/
#include "policies/dlas.h"

struct tiresias {
	struct dlas d;
};

static const struct pol_param_def tir_params[] = {
	DLAS_PARAMS(struct tiresias, d),
	POL_PARAM_END
};

static int tir_init(struct world *w, void *s, const struct pol_params *p,
		    struct sim_err *err)
{
	(void)p;
	return dlas_init(s, w, "tiresias", err);
}

static void tir_fini(struct world *w, void *s)
{
	(void)w;
	dlas_fini(s);
}

static int tir_arrival(struct world *w, void *s, int j)
{
	return dlas_arrival(s, w, j);
}

static int tir_finish(struct world *w, void *s, int j)
{
	dlas_finish(s, w, j);
	return 0;
}

static int tir_timer(struct world *w, void *s, uint64_t tag)
{
	return dlas_timer(s, w, tag);
}

static int tir_schedule(struct world *w, void *s)
{
	return dlas_pass(s, w);
}

const struct pol_ops pol_tiresias = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "tiresias",
	.zDesc = "Tiresias: discretized 2D-LAS queues on attained GPU-time, "
		 "preemptive (NSDI'19 simulator)",
	.szState = sizeof(struct tiresias),
	.szJob = QS_SZJOB,
	.xInit = tir_init,
	.xFini = tir_fini,
	.xOnArrival = tir_arrival,
	.xOnFinish = tir_finish,
	.xOnTimer = tir_timer,
	.xSchedule = tir_schedule,
	.aParam = tir_params,
};
