/*
** fuzz_replay.c: a short replay (experiments/simulate.c over sim/world/,
** the policies and the models): the whole path from a trace to metrics.
**
** Input: one byte choosing the policy, then a trace file.  The run is on
** a small cluster (2x2 A100-80GB from models/devices, so run from the
** project root) with an event budget, so every input ends.  Checks: clean
** errors; a run that returns 0 has a finite, non-negative makespan.
*/
#include "tests/fuzz/fuzz.h"

#include <math.h>
#include <string.h>

#include "experiments/simulate.h"
#include "policies/policy.h"
#include "sim/world/result.h"

#define EVENTS_MAX 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exp_sim_args a;
	struct pol_params params = { 0, NULL };
	struct run_result res;
	struct sim_err err;
	const char *path;
	size_t npol = 0, k;
	double mk = 0;
	int rc;

	if (size < 1)
		return 0;
	while (pol_registry[npol] != NULL)
		npol++;
	path = fuzz_file("r.csv", data + 1, size - 1);
	memset(&a, 0, sizeof a);
	a.trace = path;
	a.cluster = "2x2:a100-80gb";
	a.policy = pol_registry[data[0] % npol]->zName;
	a.params = &params;
	a.seed = 1;
	a.max_events = EVENTS_MAX;
	a.devices_dir = "models/devices";
	run_result_init(&res);
	sim_err_clear(&err);
	rc = exp_simulate_args(&a, &res, &err);
	fuzz_clean_error(rc, &err, "exp_simulate_args");
	if (rc == 0)
		for (k = 0; k < res.nmetrics; k++)
			if (strcmp(res.metrics[k].name, "makespan_s") == 0)
				mk = res.metrics[k].value;
	FUZZ_CHECK(!(mk < 0) && !isinf(mk));
	run_result_fini(&res);
	return 0;
}
