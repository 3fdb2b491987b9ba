/*
** template.c: copy me to write a policy.
**
** This file is a complete, working policy (FIFO, each job on the GPUs with
** the most free memory, co-located under time-slicing) that the
** conformance suite runs like any registered one.  To write yours:
**
**   1. Copy this file to policies/NAME.c and change POLICY_NAME below to
**      NAME (a C identifier: the ops table becomes pol_NAME), and zDesc.
**      That is the only place the name is written.  (Or, outside the
**      tree: `colosim policy new NAME` writes NAME/NAME.c, this file
**      renamed, and a Makefile that builds NAME.so, a plugin for
**      --plugin: docs/POLICIES.md, "Plugins".)
**   2. Add `extern const struct pol_ops pol_NAME;` and `&pol_NAME,` to
**      policies/registry.c.  `colosim list policies` shows it, and `make
**      check` runs the conformance suite over it (and fails while it is
**      still named or described as the template).
**   3. Put everything your policy remembers in `struct tmpl_state`.  The
**      engine allocates szState bytes, zeroed, per run; free what you
**      allocate yourself in xFini.
**   4. Declare each parameter once, in `tmpl_params` (key, type, range,
**      default, help, the state field it fills).  The engine rejects
**      unknown keys and bad values, naming the config line, and writes
**      every value (given or default) into your state before xInit.
**   5. In xInit, derive what you need from the parameters, and set GPU
**      sharing modes and MIG layouts while the GPUs are empty.
**   6. Write xSchedule: walk the pending queue (pol_pending_next) and for
**      each job pick GPUs (pol_job_mem, pol_gpu, pol_gpu_free ...) and call
**      pol_place.  SIM_ENOSPC from pol_place is an ordinary "does not
**      fit": go on.  Return a negative code only for broken invariants; it
**      stops the run.
**   7. Optional hooks: xOnArrival / xOnFinish (bookkeeping), xOnRequest
**      (route an inference request to a replica), xOnTimer (periodic
**      control: arm with pol_set_timer in xInit and again in the hook).
**      Randomness comes from pol_rng(w), your own stream.
**   8. Document it in docs/POLICIES.md (its parameter table must match
**      tmpl_params: a test checks) and every model assumption in
**      docs/MODEL.md.
**
** Include only policies/policy.h (and the C library): the layering check
** refuses anything else.
*/
#include <stdlib.h>

#include "policies/policy.h"

#define POLICY_NAME template

struct tmpl_state {
	double headroom;        /* fraction of each GPU kept free */
	int *chosen;            /* scratch: the GPUs picked for one job */
};

static const struct pol_param_def tmpl_params[] = {
	POL_PARAM_DOUBLE("headroom", struct tmpl_state, headroom, 0, 0.9, "0",
			 "fraction of each GPU's memory kept free"),
	POL_PARAM_END
};

static int tmpl_init(struct world *w, void *state,
		     const struct pol_params *p, struct sim_err *err)
{
	struct tmpl_state *st = state;
	int g, rc;

	(void)p;                /* st->headroom is filled already */
	st->chosen = malloc((size_t)pol_ngpus(w) * sizeof *st->chosen);
	if (st->chosen == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < pol_ngpus(w); g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_TIMESLICE,
					   err)) != 0)
			return rc;
	return 0;
}

static void tmpl_fini(struct world *w, void *state)
{
	struct tmpl_state *st = state;
	(void)w;
	free(st->chosen);
}

/* Picks the n GPUs with the most free memory that hold job j with the
** headroom kept; 1 if found. */
static int tmpl_pick(struct world *w, struct tmpl_state *st, int j, int n)
{
	int g, k, got = 0;

	for (g = 0; g < pol_ngpus(w); g++) {
		double cap = (double)pol_gpu(w, g).hbm_bytes;
		double free_b = (double)pol_gpu_free(w, g, -1);
		if ((double)pol_job_mem(w, j, g) > free_b - st->headroom * cap)
			continue;
		/* insert g, keeping chosen[] sorted by free memory, desc */
		for (k = got; k > 0; k--) {
			int h = st->chosen[k - 1];
			if ((double)pol_gpu_free(w, h, -1) >= free_b)
				break;
			if (k < n)
				st->chosen[k] = h;
		}
		if (k < n) {
			st->chosen[k] = g;
			if (got < n)
				got++;
		}
	}
	return got == n;
}

static int tmpl_schedule(struct world *w, void *state)
{
	struct tmpl_state *st = state;
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j;

	/* pol_place removes a placed job from the queue; the walk visits
	** every job once all the same. */
	while ((j = pol_pending_next(w, &it)) >= 0) {
		int n = pol_job(w, j).gpus, rc;

		if (n == 0 || !pol_job_fits_empty(w, j)) {
			/* (a CPU-only job, gpus 0, needs pol_place_share) */
			pol_fail_job(w, j, n == 0 ? "CPU-only job" :
				     "larger than any GPU set");
			continue;
		}
		if (!tmpl_pick(w, st, j, n))
			continue;                      /* it waits */
		rc = pol_place(w, j, st->chosen, n, NULL, NULL);
		if (rc != 0 && rc != SIM_ENOSPC)
			return rc;                     /* broken */
	}
	return 0;
}

const struct pol_ops POL_OPS_SYMBOL(POLICY_NAME) = {
	.iVersion = POL_IFACE_VERSION,
	.zName = POL_NAME_STRING(POLICY_NAME),
	.zDesc = "copy-me example: FIFO, most-free-memory GPUs, time-sliced",
	.szState = sizeof(struct tmpl_state),
	.aParam = tmpl_params,
	.xInit = tmpl_init,
	.xFini = tmpl_fini,
	.xSchedule = tmpl_schedule,
	/* xOnArrival, xOnFinish, xOnRequest (default: shortest queue),
	** xOnTimer: not used */
};

/* Built as a plugin (cc -shared -fPIC -DCOLOSIM_PLUGIN: `colosim policy
** new` writes the Makefile), the file exports its ops table to colosim's
** --plugin loader; compiled into colosim, it does not. */
#ifdef COLOSIM_PLUGIN
POL_PLUGIN(&POL_OPS_SYMBOL(POLICY_NAME))
#endif
