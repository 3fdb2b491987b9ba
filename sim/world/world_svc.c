/*
** world_svc.c: the public run-time control and measurement of inference
** services (max batch, measurement windows, queue lengths; see world.h,
** "service control and measurement"), over the service kind's API
** (service.h).  Like every action, each call checks its request fully
** before changing anything.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world/service.h"
#include "sim/world/world_int.h"

static int svc_check(const struct world *w, int j, const char *what,
		     struct sim_err *err)
{
	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "%s: no job %d", what, j);
	if (world__job(w, j)->tj.kind != TRACE_INFER ||
	    world__job(w, j)->svc == NULL)
		return sim_err_set(err, SIM_EINVAL, "%s: job %s is not a "
				   "service", what, world__job(w, j)->tj.id);
	return 0;
}

int world_svc_window(struct world *w, int j, struct world_svc_window *out,
		     struct sim_err *err)
{
	int rc = svc_check(w, j, "svc_window", err);

	if (rc != 0)
		return rc;
	return svc_window(w, j, out);
}

int world_svc_window_reset(struct world *w, int j, struct sim_err *err)
{
	int rc = svc_check(w, j, "svc_window_reset", err);

	if (rc != 0)
		return rc;
	svc_window_reset(w, j);
	return 0;
}

int world_set_batch(struct world *w, int j, int max_batch,
		    struct sim_err *err)
{
	int rc = svc_check(w, j, "set_batch", err), top;
	const struct world_job *job;

	if (rc != 0)
		return rc;
	job = world__job(w, j);
	top = job->tj.batch > 0 ? job->tj.batch : 1;
	if (max_batch < 1 || max_batch > top)
		return sim_err_set(err, SIM_EINVAL, "set_batch: batch %d of "
				   "service %s not in 1..%d (its trace batch)",
				   max_batch, job->tj.id, top);
	if (job->state == JOB_DONE)
		return sim_err_set(err, SIM_ESTATE, "set_batch: service %s is "
				   "done", job->tj.id);
	return svc_set_batch(w, j, max_batch);
}

int world_queue_len(const struct world *w, int j, int r)
{
	return svc_queue_len(w, j, r);
}
