/*
** simulate.c: one run from names and files (see simulate.h).
*/
#include "experiments/simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "models/device.h"
#include "policies/catalog.h"
#include "sim/file.h"
#include "models/cluster.h"
#include "experiments/runner.h"
#include "experiments/timeline.h"
#include "sim/world/world.h"
#include "traces/gen.h"

int exp_simulate_args(const struct exp_sim_args *a, struct run_result *res,
		      struct sim_err *err)
{
	struct dev_catalog cat = { NULL, 0 };
	struct cluster_spec cl;
	struct world_config cfg = { 0 };
	struct world *w = NULL;
	const struct pol_ops *pol;
	char devdir[4096];
	int rc;

	if ((pol = pol_catalog_need(a->catalog, a->policy, NULL,
				    err)) == NULL)
		return err->code;
	rc = dev_find_dir(a->devices_dir, devdir, sizeof devdir, err);
	if (rc == 0)
		rc = dev_catalog_load(&cat, devdir, err);
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
		cfg.nic_bytes_per_s = a->nic_bytes_per_s;
		cfg.max_queued_requests = a->max_queued_requests;
		cfg.memory_servers = a->memory_servers;
		cfg.memory_server_nic_bytes_per_s =
			a->memory_server_nic_bytes_per_s;
		cfg.preempt_cost = a->preempt_cost;
		cfg.timeline = a->timeline_path != NULL;
		cfg.spread_cost = a->spread_cost;
		cfg.llm = a->llm;
		cfg.arrivals_dir = a->arrivals_dir;
		cfg.arrival_jitter_ns = a->arrival_jitter_ns;
		cfg.node_rank = a->node_rank;
		cfg.on_pass = a->on_pass;
		cfg.pass_ctx = a->pass_ctx;
		cfg.metrics_only = a->metrics_only;
		rc = world_create(&w, &cfg, err);
	}
	if (rc == 0)
		rc = world_run(w, err);
	if (rc == 0)
		rc = world_results(w, res, err);
	if (rc == 0 && a->timeline_path != NULL)
		rc = exp_timeline_write(a->timeline_path, w, err);
	world_destroy(w);
	dev_catalog_fini(&cat);
	return rc;
}

/*
** Writes the generated trace of a run to a fresh temporary file; its path
** goes to path (size n).  The generator's seed is the replication's, so
** every policy sees the same generated workload in replication r.
**
** The file is unlinked as soon as it is written and read through
** /dev/fd/FD (*fd_out stays open until the run ends), so it disappears
** even when the worker is killed (SIGKILL leaves no colosim-gen-* file
** behind).  Where /dev/fd is missing the named file is kept and the
** caller removes it after the run (*fd_out = -1).
*/
/* Removes the files of folder dir (the generated trace and its request
** files: no subfolders), then dir. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[700];
	int n;

	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (n > 0 && (size_t)n < sizeof p)
			unlink(p);
	}
	if (d != NULL)
		closedir(d);
	rmdir(dir);
}

/* With LLM services the generator writes request files next to the
** trace (the arrival files of a trace are read only from its folder): a
** fresh folder holds them all, path its trace, removed by the caller
** after the run (remove_dir of tmpdir). */
static int generate_dir(struct gen_opts *o, char *path, size_t n,
			char *tmpdir, size_t ntmp, struct sim_err *err)
{
	const char *dir = getenv("TMPDIR");
	char tmp[700];
	FILE *f;
	int rc, len;

	len = snprintf(tmpdir, ntmp, "%s/colosim-gen-XXXXXX",
		       dir != NULL && *dir ? dir : "/tmp");
	if (len < 0 || (size_t)len >= ntmp) {
		tmpdir[0] = '\0';
		return sim_err_set(err, SIM_EINVAL, "TMPDIR: too long for the "
				   "folder of the generated trace");
	}
	if (mkdtemp(tmpdir) == NULL) {
		rc = sim_err_set(err, SIM_EIO, "%s: cannot create the folder "
				 "of the generated trace", tmpdir);
		tmpdir[0] = '\0';
		return rc;
	}
	len = snprintf(path, n, "%s/gen.csv", tmpdir);
	if (len < 0 || (size_t)len >= n)
		return sim_err_set(err, SIM_EINVAL, "%s: too long a folder for "
				   "the generated trace", tmpdir);
	o->out_path = path;
	if ((f = sim_out_open(path, tmp, sizeof tmp, err)) == NULL)
		return err->code;
	rc = gen_write(f, o, err);
	return sim_out_close(f, tmp, path, rc, err);
}

static int generate(const struct exp_run_spec *spec, char *path, size_t n,
		    int *fd_out, char *tmpdir, size_t ntmp,
		    struct sim_err *err)
{
	struct gen_opts o;
	const char *dir = getenv("TMPDIR");
	char byfd[64];
	FILE *f;
	size_t k;
	int fd, keep, rc;

	*fd_out = -1;
	gen_defaults(&o);
	for (k = 0; k < spec->ngen; k++)
		if ((rc = gen_set(&o, spec->gen[k].key, spec->gen[k].value,
				  err)) != 0)
			return rc;
	o.seed = spec->seed;
	if (o.llm_frac > 0)
		return generate_dir(&o, path, n, tmpdir, ntmp, err);
	snprintf(path, n, "%s/colosim-gen-XXXXXX",
		 dir != NULL && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || (keep = dup(fd)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return sim_err_set(err, SIM_EIO, "%s: cannot create the "
				   "generated trace", path);
	}
	rc = gen_write(f, &o, err);
	if (fclose(f) != 0 && rc == 0)
		rc = sim_err_set(err, SIM_EIO, "%s: write failed", path);
	if (rc != 0) {
		close(keep);
		unlink(path);
		return rc;
	}
	snprintf(byfd, sizeof byfd, "/dev/fd/%d", keep);
	if (access(byfd, R_OK) == 0 && unlink(path) == 0) {
		snprintf(path, n, "%s", byfd);
		*fd_out = keep;
	} else {
		close(keep);
	}
	return 0;
}

int exp_simulate(const struct exp_run_spec *spec, struct run_result *out,
		 struct sim_err *err)
{
	struct exp_sim_args a;
	struct pol_param *pv, *lv;
	struct pol_params pp, lp;
	char (*origin)[300], (*lorigin)[32];
	char gen_path[512] = "", gen_dir[512] = "";
	size_t k;
	int rc, gen_fd = -1;

	memset(&a, 0, sizeof a);
	pv = calloc(spec->nparams + 1, sizeof *pv);
	origin = calloc(spec->nparams + 1, sizeof *origin);
	lv = calloc(spec->nllm + 1, sizeof *lv);
	lorigin = calloc(spec->nllm + 1, sizeof *lorigin);
	if (pv == NULL || origin == NULL || lv == NULL || lorigin == NULL) {
		free(pv);
		free(origin);
		free(lv);
		free(lorigin);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (k = 0; k < spec->nllm; k++) {
		snprintf(lorigin[k], sizeof lorigin[k], "config line %d",
			 spec->llm[k].line);
		lv[k].key = spec->llm[k].key;
		lv[k].value = spec->llm[k].value;
		lv[k].origin = lorigin[k];
	}
	lp.n = spec->nllm;
	lp.v = lv;
	for (k = 0; k < spec->nparams; k++) {
		if (spec->config_path != NULL)
			snprintf(origin[k], sizeof origin[k], "%.*s:%d",
				 (int)sizeof origin[k] - 16, spec->config_path,
				 spec->params[k].line);
		else
			snprintf(origin[k], sizeof origin[k], "config line %d",
				 spec->params[k].line);
		pv[k].key = spec->params[k].key;
		pv[k].value = spec->params[k].value;
		pv[k].origin = origin[k];
	}
	pp.n = spec->nparams;
	pp.v = pv;
	rc = 0;
	if (spec->trace == NULL)
		rc = generate(spec, gen_path, sizeof gen_path, &gen_fd,
			      gen_dir, sizeof gen_dir, err);
	if (rc == 0) {
		a.trace = spec->trace != NULL ? spec->trace : gen_path;
		a.cluster = spec->cluster;
		a.policy = spec->policy;
		a.catalog = spec->catalog;
		a.devices_dir = spec->devices_dir;
		a.arrivals_dir = spec->arrivals_dir;
		a.params = &pp;
		a.llm = &lp;
		a.seed = spec->seed;
		a.horizon_ns = spec->horizon_s > 0 ?
			sim_time_from_s(spec->horizon_s) : 0;
		a.arrival_jitter_ns = spec->arrival_jitter_s > 0 ?
			sim_time_from_s(spec->arrival_jitter_s) : 0;
		if (spec->copts != NULL && spec->copts->nic_gbps > 0)
			a.nic_bytes_per_s = spec->copts->nic_gbps * 1e9 / 8.0;
		if (spec->copts != NULL) {
			a.memory_servers = spec->copts->memory_servers;
			a.memory_server_nic_bytes_per_s =
				spec->copts->memory_server_nic_gbps * 1e9 / 8.0;
			a.preempt_cost = spec->copts->preempt_cost;
			a.spread_cost = spec->copts->spread_cost;
		}
		rc = exp_simulate_args(&a, out, err);
	}
	if (gen_fd >= 0)
		close(gen_fd);         /* the file was unlinked already */
	else if (gen_dir[0] != '\0')
		remove_dir(gen_dir);
	else if (gen_path[0] != '\0')
		unlink(gen_path);
	free(pv);
	free(origin);
	free(lv);
	free(lorigin);
	return rc;
}
