/*
** check.c: an experiment config checked whole, before any run (see
** exp_config_check in config.h): what parsing alone cannot judge because
** it needs the policy catalog (plugins included), the device profiles or
** the trace files.  Every message starts "CONFIG:LINE: [SECTION] KEY".
** Cross-parameter rules a policy checks in its xInit are not seen here
** (docs/POLICIES.md); everything a parameter table declares is.
*/
#include "experiments/config_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/cluster.h"
#include "models/device.h"
#include "policies/catalog.h"
#include "traces/trace.h"

/* The line a written key (section-qualified) came from, or 0. */
static int line_of(const struct exp_config *cfg, const char *key)
{
	size_t i;

	for (i = 0; i < cfg->nwritten; i++)
		if (strcmp(cfg->written[i].key, key) == 0)
			return cfg->written[i].line;
	return 0;
}

/*
** Checks policy name's parameters: its [policy.NAME] section, and with
** dim (a policy.NAME.KEY sweep) the section with KEY set to each swept
** value in turn.
*/
static int check_params(const struct exp_config *cfg,
			const struct pol_ops *ops, const char *name,
			const struct exp_sweep_dim *dim, struct sim_err *err)
{
	const struct exp_policy_cfg *pc = exp__find_policy(cfg, name);
	size_t n = pc ? pc->nparams : 0, i, k;
	struct pol_param *pv = calloc(n + 1, sizeof *pv);
	char (*origin)[600] = calloc(n + 1, sizeof *origin);
	struct pol_params pp;
	int rc = 0;

	if (pv == NULL || origin == NULL) {
		free(pv);
		free(origin);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		snprintf(origin[i], sizeof origin[i], "%s:%d: [policy.%s] %s",
			 cfg->path, pc->params[i].line, name,
			 pc->params[i].key);
		pv[i].key = pc->params[i].key;
		pv[i].value = pc->params[i].value;
		pv[i].origin = origin[i];
	}
	pp.v = pv;
	pp.n = n;
	if (dim == NULL)
		rc = pol_params_validate(ops, &pp, err);
	for (k = 0; dim != NULL && rc == 0 && k < dim->nvalues; k++) {
		snprintf(origin[n], sizeof origin[n], "%s:%d: [sweep] %s",
			 cfg->path, dim->line, dim->key);
		pv[n].key = strchr(dim->key + 7, '.') + 1;
		pv[n].value = dim->values[k];
		pv[n].origin = origin[n];
		pp.n = n + 1;
		rc = pol_params_validate(ops, &pp, err);
	}
	free(pv);
	free(origin);
	return rc;
}

/* Every policy the matrix runs, and its parameters. */
static int check_policies(const struct exp_config *cfg,
			  const struct pol_catalog *pols, struct sim_err *err)
{
	const struct exp_sweep_dim *pd = exp__find_dim(cfg, "policy");
	size_t np = pd ? pd->nvalues : 1, i, k;
	char where[600];
	int rc;

	for (i = 0; i < np; i++) {
		const char *name = pd ? pd->values[i] : cfg->policy;
		const struct pol_ops *ops;
		snprintf(where, sizeof where, "%s:%d: %s policy", cfg->path,
			 pd ? pd->line : cfg->policy_line,
			 pd ? "[sweep]" : "[experiment]");
		if ((ops = pol_catalog_need(pols, name, where, err)) == NULL)
			return err->code;
		if ((rc = check_params(cfg, ops, name, NULL, err)) != 0)
			return rc;
		for (k = 0; k < cfg->ndims; k++) {
			const char *key = cfg->dims[k].key;
			size_t nl = strlen(name);
			if (strncmp(key, "policy.", 7) == 0 &&
			    strncmp(key + 7, name, nl) == 0 &&
			    key[7 + nl] == '.' &&
			    (rc = check_params(cfg, ops, name, &cfg->dims[k],
					       err)) != 0)
				return rc;
		}
	}
	return 0;
}

static int check_cluster(const char *spec, const char *where,
			 const struct dev_catalog *devs, struct sim_err *err)
{
	struct cluster_spec cl;

	return cluster_parse(&cl, spec, devs, where, err);
}

static int check_trace(const char *path, const char *where,
		       struct sim_err *err)
{
	struct trace_reader *tr = NULL;
	struct sim_err e;
	int rc;

	sim_err_clear(&e);
	if ((rc = trace_open(&tr, path, &e)) != 0)
		return sim_err_set(err, rc, "%s: %s", where, e.msg);
	trace_close(tr);
	return 0;
}

/* arrivals_dir: an existing folder whose path the trace reader can hold
** (trace_set_arrivals_dir), else every run would fail or look in vain. */
static int check_arrivals_dir(const struct exp_config *cfg,
			      struct sim_err *err)
{
	struct stat sb;
	int line = line_of(cfg, "experiment.arrivals_dir");

	if (strlen(cfg->arrivals_dir) >= TRACE_MAX_ARRIVALS_DIR)
		return sim_err_set(err, SIM_ERANGE, "%s:%d: [experiment] "
				   "arrivals_dir: longer than %d characters",
				   cfg->path, line, TRACE_MAX_ARRIVALS_DIR - 1);
	if (stat(cfg->arrivals_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return sim_err_set(err, SIM_ENOENT, "%s:%d: [experiment] "
				   "arrivals_dir: %s: not a folder", cfg->path,
				   line, cfg->arrivals_dir);
	return 0;
}

/* The fixed and the swept clusters and traces, and the arrival folder. */
static int check_inputs(const struct exp_config *cfg,
			const struct dev_catalog *devs, struct sim_err *err)
{
	char where[600];
	size_t i, k;
	int rc;

	if (devs != NULL && cfg->cluster != NULL) {
		int line = line_of(cfg, "experiment.cluster");
		snprintf(where, sizeof where, "%s:%d: [%s] %s", cfg->path,
			 line ? line : line_of(cfg, "cluster.nodes"),
			 line ? "experiment" : "cluster",
			 line ? "cluster" : "nodes");
		if ((rc = check_cluster(cfg->cluster, where, devs, err)) != 0)
			return rc;
	}
	if (cfg->arrivals_dir != NULL &&
	    (rc = check_arrivals_dir(cfg, err)) != 0)
		return rc;
	if (cfg->trace != NULL) {
		snprintf(where, sizeof where, "%s:%d: [experiment] trace",
			 cfg->path, cfg->trace_line);
		if ((rc = check_trace(cfg->trace, where, err)) != 0)
			return rc;
	}
	for (i = 0; i < cfg->ndims; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[i];
		int is_cl = strcmp(d->key, "cluster") == 0;
		if (!is_cl && strcmp(d->key, "trace") != 0)
			continue;
		if (is_cl && devs == NULL)
			continue;
		snprintf(where, sizeof where, "%s:%d: [sweep] %s", cfg->path,
			 d->line, d->key);
		for (k = 0; k < d->nvalues; k++) {
			char *path;
			if (is_cl) {
				rc = check_cluster(d->values[k], where, devs,
						   err);
			} else {
				path = exp__resolve_path(cfg->path,
							 d->values[k]);
				if (path == NULL)
					return sim_err_set(err, SIM_ENOMEM,
							   "out of memory");
				rc = check_trace(path, where, err);
				free(path);
			}
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

int exp_config_check(const struct exp_config *cfg,
		     const struct pol_catalog *pols,
		     const struct dev_catalog *devs, struct sim_err *err)
{
	int rc = check_policies(cfg, pols, err);

	return rc != 0 ? rc : check_inputs(cfg, devs, err);
}
