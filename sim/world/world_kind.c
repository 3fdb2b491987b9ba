/*
** world_kind.c: the world core's registry of tenant kinds (see world_int.h,
** "tenant kinds", and docs/ARCHITECTURE.md).
**
** A world holds up to WORLD_KINDS_MAX registrations in an array inside
** struct world, so a registration's address (what every tenant's `owner`
** points to) is stable until world_destroy.  The hot paths (a GPU's
** completion, a speed change) reach a kind through the tenant's owner; a
** feature finds its state with world__kind_state, an open-addressed index
** by table address (world_int.h), in O(1): the GPU pool's views run per
** GPU per request.
*/
#include <stdio.h>
#include <string.h>

#include "sim/world/world_int.h"


int world__kind_add(struct world *w, const struct world_kind *k, void *state,
		    struct sim_err *err)
{
	int i;

	if (k == NULL || k->zName == NULL || k->zName[0] == '\0')
		return sim_err_set(err, SIM_EINVAL, "tenant kind without a "
				   "name");
	if (k->iVersion < 1 || k->iVersion > WORLD_KIND_VERSION)
		return sim_err_set(err, SIM_EINVAL, "tenant kind %s targets "
				   "version %d; this world has 1..%d", k->zName,
				   k->iVersion, WORLD_KIND_VERSION);
	if (k->eJob < WORLD_NO_JOBS)
		return sim_err_set(err, SIM_EINVAL, "tenant kind %s: no trace "
				   "kind %d", k->zName, k->eJob);
	for (i = 0; i < w->nkinds; i++) {
		const struct world_kind *o = w->kinds[i].kind;
		if (o == k || strcmp(o->zName, k->zName) == 0)
			return sim_err_set(err, SIM_EINVAL, "tenant kind %s is "
					   "registered already", k->zName);
		if (k->eJob != WORLD_NO_JOBS && o->eJob == k->eJob)
			return sim_err_set(err, SIM_EINVAL, "tenant kind %s: "
					   "kind %s runs those jobs already",
					   k->zName, o->zName);
	}
	if (w->nkinds == WORLD_KINDS_MAX)
		return sim_err_set(err, SIM_ENOSPC, "tenant kind %s: a world "
				   "has at most %d", k->zName, WORLD_KINDS_MAX);
	w->kinds[w->nkinds].kind = k;
	w->kinds[w->nkinds].state = state;
	for (i = (int)world__kind_hash(k); w->kind_ix[i] != NULL;
	     i = (i + 1) & (WORLD_KIND_SLOTS - 1))
		;
	w->kind_ix[i] = &w->kinds[w->nkinds];
	w->nkinds++;
	return 0;
}

static struct world_reg *reg_of(struct world *w, const struct world_kind *k)
{
	int i;

	for (i = 0; i < w->nkinds; i++)
		if (w->kinds[i].kind == k)
			return &w->kinds[i];
	return NULL;
}


int world__tenant_attach(struct world *w, const struct world_kind *k, int g,
			 struct gpu_tenant *t, int allow_oversub,
			 struct sim_err *err)
{
	struct world_reg *r = reg_of(w, k);

	if (r == NULL)
		return sim_err_set(err, SIM_ENOENT, "tenant kind %s is not "
				   "registered", k != NULL && k->zName != NULL ?
				   k->zName : "?");
	return world__reg_attach(w, r, g, t, allow_oversub, err);
}

int world__reg_attach(struct world *w, struct world_reg *r, int g,
		      struct gpu_tenant *t, int allow_oversub,
		      struct sim_err *err)
{
	if (g < 0 || g >= w->ngpus)
		return sim_err_set(err, SIM_EINVAL, "attach: no GPU %d", g);
	t->owner = r;
	t->due = 0;
	return gpu_attach(&w->gpus[g], t, w->sim.now, allow_oversub, err);
}

struct world_reg *world__kind_of_job(struct world *w, int trace_kind)
{
	int i;

	for (i = 0; i < w->nkinds; i++)
		if (w->kinds[i].kind->eJob == trace_kind)
			return &w->kinds[i];
	return NULL;
}

void world__kinds_fini(struct world *w)
{
	while (w->nkinds > 0) {
		struct world_reg *r = &w->kinds[--w->nkinds];
		if (r->kind->xFini != NULL)
			r->kind->xFini(w, r->state);
	}
}

int world__kinds_results(struct world *w, struct run_result *res)
{
	int i, rc;

	for (i = 0; i < w->nkinds; i++) {
		const struct world_reg *r = &w->kinds[i];
		if (r->kind->xResults != NULL &&
		    (rc = r->kind->xResults(w, r->state, res)) != 0)
			return rc;
	}
	return 0;
}

int world__offer_place(struct world *w, struct world_job *job,
		       const int *gpus, int n, const struct world_place_opts *o,
		       struct sim_err *err)
{
	int i, rc;

	for (i = 0; i < w->nkinds; i++) {
		const struct world_reg *r = &w->kinds[i];
		if (r->kind->xPlace != NULL &&
		    (rc = r->kind->xPlace(w, r->state, job, gpus, n, o,
					  err)) != WORLD_PASS)
			return rc;
	}
	return WORLD_PASS;
}

int world__offer_preempt(struct world *w, struct world_job *job,
			 struct sim_err *err)
{
	int i, rc;

	for (i = 0; i < w->nkinds; i++) {
		const struct world_reg *r = &w->kinds[i];
		if (r->kind->xPreempt != NULL &&
		    (rc = r->kind->xPreempt(w, r->state, job, err)) !=
		    WORLD_PASS)
			return rc;
	}
	return WORLD_PASS;
}

void world__kind_job_result(struct world *w, const struct world_job *job,
			    struct res_job *r)
{
	const struct world_reg *reg = job->kind_;

	if (reg != NULL && reg->kind->xJobResult != NULL)
		reg->kind->xJobResult(w, reg->state, job, r);
}

void world__kinds_leave(struct world *w, struct world_job *job)
{
	int i;

	for (i = 0; i < w->nkinds; i++) {
		const struct world_reg *r = &w->kinds[i];
		if (r->kind->iVersion >= 2 && r->kind->xLeave != NULL)
			r->kind->xLeave(w, r->state, job);
	}
}
