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

size_t tw_params(const char *s, char *buf, size_t n, struct pol_param *pv,
		 size_t max)
{
	char *tok, *save = NULL;
	size_t k = 0;

	if (s == NULL || n == 0)
		return 0;
	snprintf(buf, n, "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok != NULL && k < max;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		pv[k].key = tok;
		pv[k].value = eq + 1;
		pv[k].origin = "test";
		k++;
	}
	return k;
}

int tw_run(const char *trace, const char *policy, const char *cluster,
	   uint64_t seed, const char *params, struct run_result *res,
	   struct sim_err *err)
{
	struct exp_sim_args a;
	struct pol_param pv[16];
	struct pol_params pp = { 0, pv };
	char buf[512];

	memset(&a, 0, sizeof a);
	pp.n = tw_params(params, buf, sizeof buf, pv, 16);
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
