/*
** template.c: copy me to write a policy.
**
** This file is a complete, working policy ("template": FIFO, each job on
** the GPUs with the most free memory, co-located under time-slicing) that
** the conformance suite runs like any registered one.  To write yours:
**
**   1. Copy this file to policies/NAME.c and rename every `tmpl_` prefix
**      and the `pol_template` table to `pol_NAME`.
**   2. Put everything your policy remembers in `struct tmpl_state`.  The
**      engine allocates szState bytes, zeroed, per run; free what you
**      allocate yourself in xFini.
**   3. In xInit, declare your parameters in `keys` (unknown keys are then
**      errors naming the config line) and read each with pol_param_*.
**      Set GPU sharing modes and MIG layouts here, while GPUs are empty.
**   4. Write xSchedule: walk world_pending_at(w, k) in the order you want,
**      and for each job pick GPUs (world_job_mem, world_gpu_free,
**      world_gpu(w, g)->ntenants ...) and call world_place.  SIM_ENOSPC
**      from world_place is an ordinary "does not fit": go on.  Return a
**      negative code only for broken invariants; it stops the run.
**   5. Optional hooks: xOnArrival / xOnFinish (bookkeeping), xOnRequest
**      (route an inference request to a replica), xOnTimer (periodic
**      control: arm with world_set_timer in xInit and again in the hook).
**   6. Add `extern const struct pol_ops pol_NAME;` and `&pol_NAME,` to
**      policies/registry.c.  `colosim list policies` shows it, and
**      `make check` runs the conformance suite over it.
**   7. Document it in docs/POLICIES.md and every model assumption in
**      docs/MODEL.md.
*/
#include <stdlib.h>

#include "policies/policy.h"
#include "sim/world/world.h"

struct tmpl_state {
	double headroom;        /* fraction of each GPU kept free */
	int *chosen;            /* scratch: the GPUs picked for one job */
};

static int tmpl_init(struct world *w, void *state,
		     const struct pol_params *p, struct sim_err *err)
{
	static const char *const keys[] = { "headroom", NULL };
	struct tmpl_state *st = state;
	int g, rc;

	st->headroom = 0.0;
	if ((rc = pol_params_check(p, "template", keys, err)) != 0 ||
	    (rc = pol_param_double(p, "headroom", 0, 0.9, &st->headroom,
				   err)) != 0)
		return rc;
	st->chosen = malloc((size_t)world_ngpus(w) * sizeof *st->chosen);
	if (st->chosen == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < world_ngpus(w); g++)
		if ((rc = world_set_gpu_mode(w, g, GPU_MODE_TIMESLICE,
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

	for (g = 0; g < world_ngpus(w); g++) {
		double cap = (double)world_gpu(w, g)->dev->hbm_bytes;
		double free_b = (double)world_gpu_free(w, g, -1);
		if ((double)world_job_mem(w, j, g) > free_b - st->headroom * cap)
			continue;
		/* insert g, keeping chosen[] sorted by free memory, desc */
		for (k = got; k > 0; k--) {
			int h = st->chosen[k - 1];
			if ((double)world_gpu_free(w, h, -1) >= free_b)
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
	int k = 0;

	/* world_place removes a placed job from the pending list, so the
	** index only advances past jobs left waiting. */
	while (k < world_npending(w)) {
		int j = world_pending_at(w, k);
		int n = world_job(w, j)->tj.gpus;
		int rc;

		if (!world_job_fits_empty(w, j)) {
			world_fail_job(w, j, "larger than any GPU set");
			continue;
		}
		if (!tmpl_pick(w, st, j, n)) {
			k++;
			continue;
		}
		rc = world_place(w, j, st->chosen, n, NULL, NULL);
		if (rc == SIM_ENOSPC)
			k++;
		else if (rc != 0)
			return rc;
	}
	return 0;
}

const struct pol_ops pol_template = {
	POL_IFACE_VERSION,
	"template",
	"copy-me example: FIFO, most-free-memory GPUs, time-sliced",
	sizeof(struct tmpl_state),
	tmpl_init,
	tmpl_fini,
	NULL,                   /* xOnArrival */
	NULL,                   /* xOnFinish */
	NULL,                   /* xOnRequest: shortest queue */
	NULL,                   /* xOnTimer */
	tmpl_schedule
};
