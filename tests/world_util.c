/*
** world_util.c: see world_util.h.  tw_until and tw_step_checked reach into
** the world's internals (sim/world/world_int.h) to step its engine and
** read its GPUs.
*/
#include "tests/world_util.h"

#include <stdio.h>
#include <string.h>

#include "experiments/simulate.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "sim/world/world_int.h"
#include "sim/world/world_swap.h"
#include "tests/util.h"

const char *tw_write(const char *name, const char *body)
{
	return test_write(name, TW_HEADER, body);
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

struct exp_sim_args tw_sim_args(const char *trace, const char *policy,
				const char *cluster, uint64_t seed)
{
	struct exp_sim_args a;

	memset(&a, 0, sizeof a);
	a.trace = trace;
	a.cluster = cluster;
	a.policy = policy;
	a.seed = seed;
	a.devices_dir = "models/devices";
	return a;
}

int tw_run(const char *trace, const char *policy, const char *cluster,
	   uint64_t seed, const char *params, struct run_result *res,
	   struct sim_err *err)
{
	struct exp_sim_args a = tw_sim_args(trace, policy, cluster, seed);
	struct pol_param pv[16];
	struct pol_params pp = { 0, pv };
	char buf[512];

	pp.n = tw_params(params, buf, sizeof buf, pv, 16);
	a.params = &pp;
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

const struct dev_profile *tw_train_profile(struct dev_catalog *cat,
					   const char *dev, const char *model,
					   int batch,
					   struct gpu_work_profile *p)
{
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	const struct zoo_model *m = zoo_find(model);

	memset(cat, 0, sizeof *cat);
	if (dev_catalog_load(cat, "models/devices", &err) != 0)
		return NULL;
	d = dev_catalog_find(cat, dev);
	if (d == NULL || m == NULL)
		return NULL;
	wl_train_profile(m, d, batch, WL_PREC_FP32, p);
	return d;
}

/* ---- a world kept alive for inspection ------------------------------- */

struct world_config tw_config(const struct pol_ops *policy)
{
	struct world_config cfg;

	memset(&cfg, 0, sizeof cfg);
	cfg.policy = policy;
	cfg.seed = 1;
	cfg.max_events = 2000000;
	return cfg;
}

static const char *pol_name(const struct world_config *cfg)
{
	return cfg->policy != NULL ? cfg->policy->zName : "(no policy)";
}

int tw_open(struct tw_world *t, const char *trace, const char *cluster,
	    const struct world_config *cfg, const char *params)
{
	struct world_config c = *cfg;
	struct sim_err err = { 0, "" };
	struct pol_param pv[16];
	struct pol_params pp = { 0, pv };
	char buf[512];
	int rc;

	memset(t, 0, sizeof *t);
	run_result_init(&t->res);
	snprintf(t->trace, sizeof t->trace, "%s", trace);
	if (params != NULL || c.params == NULL) {
		pp.n = tw_params(params, buf, sizeof buf, pv, 16);
		c.params = &pp;
	}
	rc = dev_catalog_load(&t->cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&t->cl, cluster, &t->cat, "cluster", &err);
	if (rc == 0) {
		c.cluster = &t->cl;
		c.trace_path = t->trace;
		rc = world_create(&t->w, &c, &err);
	}
	if (rc != 0)
		fprintf(stderr, "\n  open %s/%s: %s\n", t->trace, pol_name(cfg),
			err.msg);
	return rc;
}

int tw_finish(struct tw_world *t)
{
	struct sim_err err = { 0, "" };
	int rc = world_run(t->w, &err);

	if (rc == 0)
		rc = world_results(t->w, &t->res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run %s: %s\n", t->trace, err.msg);
	/* a run cut short by the suites' event budget is not a finished
	** run: asserts on its results would pass on a partial run */
	if (rc == 0 && t->w->stop_reason == SIM_STOP_BUDGET) {
		fprintf(stderr, "\n  run %s: stopped by the event budget "
			"(%llu events) before its end\n", t->trace,
			(unsigned long long)t->w->max_events);
		rc = SIM_ERANGE;
	}
	return rc;
}

int tw_simulate(struct tw_world *t, const char *trace, const char *cluster,
		const struct world_config *cfg, const char *params)
{
	int rc = tw_open(t, trace, cluster, cfg, params);

	return rc != 0 ? rc : tw_finish(t);
}

int tw_go(struct tw_world *t, const char *name, const char *body,
	  const struct pol_ops *policy, const char *cluster,
	  const char *params)
{
	struct world_config cfg = tw_config(policy);

	return tw_simulate(t, tw_write(name, body), cluster, &cfg, params);
}

void tw_until(struct tw_world *t, sim_time t_ns)
{
	sim_run(&t->w->sim, t_ns, 0);
}

void tw_close(struct tw_world *t)
{
	world_destroy(t->w);
	t->w = NULL;
	run_result_fini(&t->res);
	dev_catalog_fini(&t->cat);
}

int tw_find(const struct tw_world *t, const char *id)
{
	int j;

	for (j = 0; j < world_njobs(t->w); j++)
		if (strcmp(world_job(t->w, j)->tj.id, id) == 0)
			return j;
	return -1;
}

const struct world_job *tw_wjob(const struct tw_world *t, const char *id)
{
	int j = tw_find(t, id);

	return j >= 0 ? world_job(t->w, j) : NULL;
}

double tw_start_s(const struct tw_world *t, const char *id)
{
	const struct world_job *j = tw_wjob(t, id);

	return j != NULL ? sim_time_to_s(j->start_ns) : -999;
}

double tw_end_s(const struct tw_world *t, const char *id)
{
	const struct world_job *j = tw_wjob(t, id);

	return j != NULL ? sim_time_to_s(j->end_ns) : -999;
}

int tw_preemptions(const struct tw_world *t, const char *id)
{
	const struct world_job *j = tw_wjob(t, id);

	return j != NULL ? j->preemptions : -1;
}

/* ---- stepping under the conformance invariants ------------------------ */

/* Counts one violation, printing the first few. */
static void violation(int *bad, const struct tw_world *t, const char *what,
		      const char *detail)
{
	if ((*bad)++ < 3)
		fprintf(stderr, "\n  %s/%s: %s%s\n", t->trace,
			t->w->pol->zName, what, detail);
}

int tw_step_checked(struct tw_world *t, int *moves)
{
	struct world *w = t->w;
	sim_time last = 0;
	int bad = 0, g, j, s;

	for (;;) {
		enum sim_stop_reason why =
			sim_run(&w->sim, SIM_TIME_MAX, w->sim.events + 1);
		if (w->sim.now < last)
			violation(&bad, t, "time went back", "");
		last = w->sim.now;
		for (g = 0; g < w->ngpus; g++) {
			const struct gpu *gp = &w->gpus[g];
			if (gp->mem_used > gp->dev->hbm_bytes)
				violation(&bad, t, "GPU over capacity", "");
			for (s = 0; s < gp->nslices; s++)
				if (gp->slices[s].mem_used >
				    gp->slices[s].hbm_bytes)
					violation(&bad, t,
						  "slice over capacity", "");
		}
		if (why == SIM_STOP_ERROR) {
			violation(&bad, t, "", w->sim.err.msg);
			break;
		}
		if (why != SIM_STOP_BUDGET)
			break;
	}
	for (j = 0; j < w->njobs; j++) {
		const struct world_job *job = world_job(w, j);
		if (moves != NULL)
			*moves += job->swaps + job->preemptions;
		if ((job->state != JOB_DONE && job->state != JOB_FAILED) ||
		    job->end_ns < job->submit_ns || job->nplaced != 0) {
			char d[160];
			snprintf(d, sizeof d, "%s ended %s", job->tj.id,
				 job_state_name(job->state));
			violation(&bad, t, "job ", d);
		}
	}
	if (w->live_jobs != 0 || !w->trace_done)
		violation(&bad, t, "jobs still live or trace unread", "");
	if (world_swap_inflight(w) != 0)
		violation(&bad, t, "swap copies still in flight", "");
	return bad;
}
