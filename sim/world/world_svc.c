/*
** world_svc.c: run-time control and measurement of inference services
** (max batch, measurement windows), per-job memory resizing and
** policy-defined run metrics (see world.h, "service control and
** measurement").  Like every action, each call checks its request fully
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
	if (w->jobs[j].tj.kind != TRACE_INFER || w->jobs[j].svc == NULL)
		return sim_err_set(err, SIM_EINVAL, "%s: job %s is not a "
				   "service", what, w->jobs[j].tj.id);
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

	if (rc != 0)
		return rc;
	top = w->jobs[j].tj.batch > 0 ? w->jobs[j].tj.batch : 1;
	if (max_batch < 1 || max_batch > top)
		return sim_err_set(err, SIM_EINVAL, "set_batch: batch %d of "
				   "service %s not in 1..%d (its trace batch)",
				   max_batch, w->jobs[j].tj.id, top);
	if (w->jobs[j].state == JOB_DONE)
		return sim_err_set(err, SIM_ESTATE, "set_batch: service %s is "
				   "done", w->jobs[j].tj.id);
	return svc_set_batch(w, j, max_batch);
}

int world_set_mem(struct world *w, int j, uint64_t mem_bytes,
		  int allow_oversub, struct sim_err *err)
{
	struct world_job *job;
	uint64_t *old;
	int k, i, rc = 0;

	if (j < 0 || j >= w->njobs)
		return sim_err_set(err, SIM_EINVAL, "set_mem: no job %d", j);
	job = &w->jobs[j];
	if (job->state != JOB_RUNNING || job->nplaced == 0)
		return sim_err_set(err, SIM_ESTATE, "set_mem: job %s is %s",
				   job->tj.id, job_state_name(job->state));
	if (mem_bytes == 0)
		return sim_err_set(err, SIM_EINVAL, "set_mem: zero bytes for "
				   "job %s", job->tj.id);
	old = malloc((size_t)job->nplaced * sizeof *old);
	if (old == NULL)
		return sim_err_set(err, SIM_ENOMEM, "set_mem: out of memory");
	for (k = 0; k < job->nplaced; k++) {
		old[k] = job->tenants[k].mem_bytes;
		rc = gpu_resize(&w->gpus[job->gpu_ids[k]], &job->tenants[k],
				mem_bytes, w->sim.now, allow_oversub, err);
		if (rc != 0) {
			for (i = 0; i < k; i++)
				gpu_resize(&w->gpus[job->gpu_ids[i]],
					   &job->tenants[i], old[i],
					   w->sim.now, 1, NULL);
			break;
		}
	}
	free(old);
	/* Under oversubscription a resize changes speeds (paging). */
	for (i = 0; i < job->nplaced; i++) {
		int r2 = world__gpu_changed(w, job->gpu_ids[i]);
		if (rc == 0 && r2 != 0)
			rc = r2;
	}
	return rc;
}

int world_add_metric(struct world *w, const char *name, double value)
{
	int k;

	if (name == NULL || name[0] == '\0' ||
	    strlen(name) >= sizeof w->xmetrics[0].name)
		return SIM_EINVAL;
	for (k = 0; k < w->nxmetrics; k++)
		if (strcmp(w->xmetrics[k].name, name) == 0) {
			w->xmetrics[k].value += value;
			return 0;
		}
	if (w->nxmetrics == w->capxmetrics) {
		int cap = w->capxmetrics ? 2 * w->capxmetrics : 8;
		struct world_metric *p = realloc(w->xmetrics,
						 (size_t)cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		w->xmetrics = p;
		w->capxmetrics = cap;
	}
	snprintf(w->xmetrics[w->nxmetrics].name,
		 sizeof w->xmetrics[0].name, "%s", name);
	w->xmetrics[w->nxmetrics].value = value;
	w->nxmetrics++;
	return 0;
}
