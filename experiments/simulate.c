/*
** simulate.c: one run from names and files (see simulate.h).
*/
#include "experiments/simulate.h"

#include <stdio.h>

#include "models/device.h"
#include "sim/cluster.h"
#include "sim/world.h"

int exp_simulate_args(const struct exp_sim_args *a, struct run_result *res,
		      struct sim_err *err)
{
	struct dev_catalog cat = { NULL, 0 };
	struct cluster_spec cl;
	struct world_config cfg = { 0 };
	struct world *w = NULL;
	const struct pol_ops *pol;
	int rc;

	pol = pol_find(a->policy);
	if (pol == NULL) {
		char known[512];
		pol_names(known, sizeof known);
		return sim_err_set(err, SIM_ENOENT, "unknown policy '%s' "
				   "(known: %s)", a->policy, known);
	}
	rc = dev_catalog_load(&cat, a->devices_dir ? a->devices_dir :
			      dev_default_dir(), err);
	if (rc == 0)
		rc = cluster_parse(&cl, a->cluster, &cat, "cluster", err);
	if (rc == 0) {
		cfg.cluster = &cl;
		cfg.trace_path = a->trace;
		cfg.policy = pol;
		cfg.params = a->params;
		cfg.seed = a->seed;
		cfg.horizon_ns = a->horizon_ns;
		cfg.max_events = a->max_events;
		rc = world_create(&w, &cfg, err);
	}
	if (rc == 0)
		rc = world_run(w, err);
	if (rc == 0)
		rc = world_results(w, res, err);
	world_destroy(w);
	dev_catalog_fini(&cat);
	return rc;
}
