/*
** fuzz_config.c: the experiment config parser (experiments/config.c) and
** the run matrix of what it accepts.
**
** Input: a config INI (parsed from memory: exp_config_parse).  The matrix
** is built only when its size, the product of the sweep dimensions and
** replications, is small: the matrix of a 10^6-run config is a resource
** question (docs/LIMITS.md), not a parser one.  Checks: clean errors;
** every run of an accepted matrix has a policy, a cluster and a key.
*/
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "experiments/config.h"

#define RUNS_MAX 4096.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exp_config *cfg = NULL;
	struct exp_matrix m;
	struct sim_err err;
	double runs;
	size_t i;
	int rc;

	fuzz_dir();
	sim_err_clear(&err);
	rc = exp_config_parse(&cfg, "fuzz.ini", (const char *)data, size,
			      &err);
	fuzz_clean_error(rc, &err, "exp_config_parse");
	if (rc != 0) {
		FUZZ_CHECK(cfg == NULL);
		return 0;
	}
	runs = cfg->replications;
	for (i = 0; i < cfg->ndims; i++)
		runs *= (double)(cfg->dims[i].nvalues ? cfg->dims[i].nvalues
					: 1);
	runs *= (double)(cfg->npolicies + 1);
	if (runs <= RUNS_MAX) {
		memset(&m, 0, sizeof m);
		sim_err_clear(&err);
		rc = exp_matrix_build(&m, cfg, &err);
		fuzz_clean_error(rc, &err, "exp_matrix_build");
		for (i = 0; rc == 0 && i < m.nruns; i++)
			FUZZ_CHECK(m.runs[i].policy != NULL &&
				   m.runs[i].cluster != NULL &&
				   m.runs[i].key != NULL);
		if (rc == 0)
			exp_matrix_fini(&m);
	}
	exp_config_free(cfg);
	return 0;
}
