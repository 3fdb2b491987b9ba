/*
** world_util.c: see world_util.h.
*/
#include "tests/world_util.h"

#include <stdio.h>
#include <string.h>

#include "experiments/simulate.h"
#include "tests/util.h"

const char *tw_write(const char *name, const char *body)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
	f = fopen(path, "w");
	if (f == NULL)
		return NULL;
	fputs(TW_HEADER, f);
	fputs(body, f);
	fclose(f);
	return path;
}

int tw_run(const char *trace, const char *policy, const char *cluster,
	   uint64_t seed, const char *params, struct run_result *res,
	   struct sim_err *err)
{
	struct exp_sim_args a;
	struct pol_param pv[16];
	struct pol_params pp = { 0, pv };
	char buf[512], *tok, *save = NULL;

	memset(&a, 0, sizeof a);
	if (params != NULL) {
		snprintf(buf, sizeof buf, "%s", params);
		for (tok = strtok_r(buf, ",", &save); tok && pp.n < 16;
		     tok = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(tok, '=');
			if (eq == NULL)
				continue;
			*eq = '\0';
			pv[pp.n].key = tok;
			pv[pp.n].value = eq + 1;
			pv[pp.n].origin = "test";
			pp.n++;
		}
	}
	a.trace = trace;
	a.cluster = cluster;
	a.policy = policy;
	a.params = &pp;
	a.seed = seed;
	a.devices_dir = "models/devices";
	return exp_simulate_args(&a, res, err);
}

const struct res_job *tw_job(const struct run_result *res, const char *id)
{
	size_t k;

	for (k = 0; k < res->njobs; k++)
		if (strcmp(res->jobs[k].id, id) == 0)
			return &res->jobs[k];
	return NULL;
}
