/*
** world_jitter.c: arrival jitter, the per-replication variation of a fixed
** trace ([experiment] arrival_jitter_s; docs/RESULTS.md, "Replications of a
** fixed trace").
**
** Row i's submit time t_i becomes t'_i = max(t_i + u_i, t'_{i-1}) with u_i
** uniform in [0, J) from the run's stream "arrival-jitter": each job
** arrives up to J later than the trace says, in the trace's order (the
** max keeps the order, so rows read one at a time stay sorted; a burst of
** rows at one instant is spread over [t, t + J)).  The stream depends on
** the replication's seed only, so every policy and sweep point of
** replication r sees the same jittered arrivals (common random numbers).
** The trace's own order is still checked, on the unjittered times.
*/
#include <stdlib.h>

#include "sim/world/world_int.h"

struct world_jitter {
	struct sim_rng rng;
	sim_time j_ns;
	sim_time prev_raw;            /* the previous row's trace time */
	sim_time prev_out;            /* and its jittered time */
};

int world__jitter_init(struct world *w, sim_time j_ns, struct sim_err *err)
{
	struct world_jitter *jt;
	int rc;

	if (j_ns <= 0)
		return 0;
	jt = calloc(1, sizeof *jt);
	if (jt == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if ((rc = sim_rng_init(&jt->rng, w->seed, "arrival-jitter", 0,
			       err)) != 0) {
		free(jt);
		return rc;
	}
	jt->j_ns = j_ns;
	w->jitter = jt;
	return 0;
}

int world__jitter_row(struct world *w, struct trace_job *tj)
{
	struct world_jitter *jt = w->jitter;
	sim_time raw = tj->submit_ns, t;

	if (raw < jt->prev_raw)
		return sim_fail(&w->sim, SIM_EPARSE, "%s:%ld: submit_s: %.9g "
				"is earlier than the previous row's (rows must "
				"be in submit order)", w->trace_path, tj->line,
				sim_time_to_s(raw));
	t = sim_time_add_sat(raw, (sim_time)(sim_rng_uniform(&jt->rng) *
					     (double)jt->j_ns));
	if (t < jt->prev_out)
		t = jt->prev_out;
	jt->prev_raw = raw;
	jt->prev_out = t;
	tj->submit_ns = t;
	return 0;
}

void world__jitter_fini(struct world *w)
{
	if (w->jitter == NULL)
		return;
	sim_rng_fini(&w->jitter->rng);
	free(w->jitter);
	w->jitter = NULL;
}
