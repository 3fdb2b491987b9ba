/*
** import_muri.c: the job traces of Muri (SIGCOMM'22, Rivendile/Muri,
** simulator/trace-data/) and its cluster spec -> trace v1 training jobs
** with the optional per-resource columns (docs/TRACE_FORMAT.md, "muri").
**
** Inputs told apart by header: a job list (job_id, num_gpu, submit_time,
** model_name, and iterations x iteration_time and/or duration; optional
** batch_size, resource_time_0..2, priority; interval dropped) or a
** cluster spec (num_switch, num_node_p_switch, num_gpu_p_node,
** num_cpu_p_node, mem_p_node), which becomes STEM.cluster.
**
** Every time in Muri's files is in milliseconds.  A job's length is
** iterations x iteration_time, as Muri's simulator computes it
** (remaining_iteration x iteration_time, jobs.py / run_sim.py); the
** `duration` column differs from that product by up to 1.99x on trace2,
** so which one a row gets is an option (--length; the default is
** Muri's).  --iter-scale multiplies every iteration time (Muri's
** simulator multiplies by 1.015, jobs.py itertime_overhead_list[0]).
**
** resource_time_0..2 split one iteration over three resources; Muri's
** interleaving model (matching.py _Packing.calc_iteration_time, and
** run_sim.py antman_calc_iter_time, which names them data, GPU and
** network) reads 0 as the CPU / data-loading stage, 1 as GPU compute,
** 2 as network communication: they become res_cpu_ms, res_gpu_ms,
** res_net_ms.
**
** priority: Muri's 0 is AntMan's resource-guaranteed job and 1 its
** opportunistic job (jobs.py, "0 - resource-guarantee job; 1 -
** opportunistic job"); v1's priority is higher-is-more-important, so 0
** -> 1 and 1 -> 0.
*/
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "traces/import_csv.h"

/* Muri's model names -> zoo models (docs/TRACE_FORMAT.md gives the
** reasons); the rest are zoo names already (gpt2). */
static const char *const muri_models[][2] = {
	{ "vgg19", "vgg16" }, { "resnet18", "resnet50" },
	{ "shufflenet_v2_x1_0", "mobilenetv2" }, { "bert", "bert-base" },
	{ "a2c", "mobilenetv2" }, { "dqn", "mobilenetv2" },
	{ NULL, NULL }
};

struct muri_state {
	int cluster;                  /* this file is a cluster spec */
	int c_id, c_gpus, c_submit, c_model, c_iters, c_dur, c_iter;
	int c_batch, c_prio, c_res[3];
	int c_spec[5];
};

static const char *const muri_known[] = {
	"job_id", "num_gpu", "submit_time", "iterations", "model_name",
	"batch_size", "duration", "interval", "iteration_time",
	"resource_time_0", "resource_time_1", "resource_time_2", "priority",
	NULL
};

static const char *const spec_cols[5] = {
	"num_switch", "num_node_p_switch", "num_gpu_p_node", "num_cpu_p_node",
	"mem_p_node"
};

static int muri_header(struct imp_ctx *c, struct muri_state *s,
		       const struct imp_row *h, struct sim_err *err)
{
	char note[IMP_REASON_LEN];
	int rc, i, k;

	if (imp_col(h, "num_switch") >= 0) {
		s->cluster = 1;
		for (k = 0; k < 5; k++)
			if ((rc = imp_col_req(h, spec_cols[k], &s->c_spec[k],
					      err)) != 0)
				return rc;
		return 0;
	}
	s->cluster = 0;
	c->res_cols = 1;
	if ((rc = imp_col_req(h, "job_id", &s->c_id, err)) ||
	    (rc = imp_col_req(h, "num_gpu", &s->c_gpus, err)) ||
	    (rc = imp_col_req(h, "submit_time", &s->c_submit, err)) ||
	    (rc = imp_col_req(h, "model_name", &s->c_model, err)))
		return rc;
	s->c_iters = imp_col(h, "iterations");
	s->c_iter = imp_col(h, "iteration_time");
	s->c_dur = imp_col(h, "duration");
	if ((s->c_iters < 0 || s->c_iter < 0) && s->c_dur < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:%d: header lacks "
				   "'duration' and 'iterations' with "
				   "'iteration_time' (one length is needed)",
				   h->path, h->nf + 1);
	s->c_batch = imp_col(h, "batch_size");
	s->c_prio = imp_col(h, "priority");
	for (k = 0; k < 3; k++) {
		static const char *const res_col[3] = {
			"resource_time_0", "resource_time_1", "resource_time_2"
		};
		s->c_res[k] = imp_col(h, res_col[k]);
	}
	for (i = 0; i < h->nf; i++) {
		for (k = 0; muri_known[k] != NULL; k++)
			if (strcasecmp(h->f[i], muri_known[k]) == 0)
				break;
		if (muri_known[k] == NULL) {
			snprintf(note, sizeof note, "unknown column '%.60s' "
				 "ignored (per file)", h->f[i]);
			imp_note(c, note);
		}
	}
	return 0;
}

/* The cluster spec's one data row -> STEM.cluster ("NxG:DEVICE").  Muri's
** spec names no GPU type: the device is --device-map gpu=NAME, else
** v100-32gb, an assumption (noted).  Node CPUs and memory (GB) go into
** the spec (models/cluster.h). */
static int muri_cluster_row(struct imp_ctx *c, struct muri_state *s,
			    const struct imp_row *r, struct sim_err *err)
{
	int64_t v[5];
	char dev[64], text[200];
	int k, have, rc;

	for (k = 0; k < 5; k++) {
		if ((rc = imp_get_i64(r, s->c_spec[k], spec_cols[k], &v[k],
				      &have, err)) != 0)
			return rc;
		if (!have || v[k] < 1 || v[k] > 100000)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld: %s: "
					   "expected a count 1..100000",
					   r->path, r->line, spec_cols[k]);
	}
	if (v[2] > 64)
		return sim_err_set(err, SIM_ERANGE, "%s:%ld: num_gpu_p_node: "
				   "%lld GPUs per node (at most 64)", r->path,
				   r->line, (long long)v[2]);
	if (!imp_kv_lookup(c->opts->device_map, "gpu", dev, sizeof dev)) {
		snprintf(dev, sizeof dev, "v100-32gb");
		imp_note(c, "cluster GPU v100-32gb assumed (Muri's spec names "
			 "none; see --device-map gpu=NAME)");
	}
	snprintf(text, sizeof text, "%lldx%lld:%s:cpus=%lld:mem_gb=%lld\n",
		 (long long)(v[0] * v[1]), (long long)v[2], dev,
		 (long long)v[3], (long long)v[4]);
	return imp_side_file(c, "cluster", text, err);
}

/* A Muri time in milliseconds (integer or decimal) to nanoseconds. */
static int get_ms(const struct imp_row *r, int col, const char *name,
		  sim_time *t_ns, int *have, struct sim_err *err)
{
	double ms;
	int rc = imp_get_double(r, col, name, &ms, have, err);

	if (rc != 0 || !*have)
		return rc;
	if (!(ms >= 0) || ms > 4.0e15)      /* 4.6e18 ns, sim_time's range */
		return sim_err_set(err, SIM_EPARSE, "%s:%ld: %s: expected "
				   "milliseconds in 0..4e15, got %g", r->path,
				   r->line, name, ms);
	*t_ns = (sim_time)(ms * 1e6 + 0.5);
	return 0;
}

/* The row's length: iterations x iteration_time or duration, per
** --length, falling back to the other (noted) when one is missing. */
static int muri_length(struct imp_ctx *c, struct imp_job *j, int64_t iters,
		       int h_it, double it_ms, int h_itms, sim_time dur,
		       int h_dur)
{
	int have_it = h_it && iters > 0 && h_itms && it_ms > 0;
	int have_dur = h_dur && dur > 0;
	double scale = c->opts->iter_scale > 0 ? c->opts->iter_scale : 1.0;

	if (!have_it && !have_dur)
		return 0;
	if (have_it && (c->opts->length == IMP_LEN_ITERATIONS || !have_dur)) {
		if (c->opts->length == IMP_LEN_DURATION)
			imp_note(c, "no duration: iterations x iteration_time "
				 "used");
		j->iterations = iters;
		j->iter_ms = it_ms * scale;
		return 1;
	}
	if (c->opts->length == IMP_LEN_ITERATIONS)
		imp_note(c, "no iterations x iteration_time: duration used");
	j->duration_ns = dur;
	return 1;
}

static int muri_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct imp_ctx *c = ctx;
	struct muri_state *s = c->state;
	const char *id, *name, *model;
	char mbuf[64];
	int64_t gpus, iters, batch, prio;
	sim_time submit, dur;
	double it_ms, res[3];
	int h_g, h_sub, h_it, h_itms, h_dur, h_b, h_p, h_r[3], k, rc;
	struct imp_job j;

	if (r->index == 0)
		return muri_header(c, s, r, err);
	if (s->cluster)
		return r->index == 1 ? muri_cluster_row(c, s, r, err) :
			sim_err_set(err, SIM_EPARSE, "%s:%ld: a Muri cluster "
				    "spec has one data row", r->path, r->line);
	c->stats->rows_read++;
	if ((rc = imp_field(r, s->c_id, "job_id", &id, err)) ||
	    (rc = imp_get_i64(r, s->c_gpus, "num_gpu", &gpus, &h_g, err)) ||
	    (rc = get_ms(r, s->c_submit, "submit_time", &submit, &h_sub,
			 err)) ||
	    (rc = imp_field(r, s->c_model, "model_name", &name, err)) ||
	    (rc = imp_get_i64(r, s->c_iters, "iterations", &iters, &h_it,
			      err)) ||
	    (rc = imp_get_double(r, s->c_iter, "iteration_time", &it_ms,
				 &h_itms, err)) ||
	    (rc = get_ms(r, s->c_dur, "duration", &dur, &h_dur, err)) ||
	    (rc = imp_get_i64(r, s->c_batch, "batch_size", &batch, &h_b,
			      err)) ||
	    (rc = imp_get_i64(r, s->c_prio, "priority", &prio, &h_p, err)))
		return rc;
	for (k = 0; k < 3; k++)
		if ((rc = imp_get_double(r, s->c_res[k], k == 0 ?
					 "resource_time_0" : k == 1 ?
					 "resource_time_1" : "resource_time_2",
					 &res[k], &h_r[k], err)) != 0)
			return rc;
	if (id == NULL || name == NULL || !h_g || !h_sub) {
		imp_skip(c, "missing job_id, num_gpu, submit_time or "
			 "model_name");
		return 0;
	}
	if (gpus < 1) {
		imp_skip(c, "num_gpu < 1");
		return 0;
	}
	if (h_b && batch < 1) {
		imp_skip(c, "batch_size < 1");
		return 0;
	}
	if (h_itms && !(it_ms >= 0 && it_ms < 1e12))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld: iteration_time: "
				   "expected milliseconds in 0..1e12, got %g",
				   r->path, r->line, it_ms);
	memset(&j, 0, sizeof j);
	if (!muri_length(c, &j, iters, h_it, it_ms, h_itms, dur, h_dur)) {
		imp_skip(c, "neither iterations x iteration_time nor duration "
			 "> 0");
		return 0;
	}
	model = imp_take_model(c, name, muri_models, mbuf, sizeof mbuf);
	if (model == NULL)
		return 0;
	j.id = id;
	j.submit_ns = submit;
	j.model = model;
	j.batch = imp_batch(c, h_b, batch);
	j.gpus = imp_scale_gpus(c, (int)(gpus > 1000000 ? 1000000 : gpus));
	if (h_p) {
		if (prio != 0 && prio != 1)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld: priority: "
					   "expected 0 (guaranteed) or 1 "
					   "(opportunistic), got %lld", r->path,
					   r->line, (long long)prio);
		j.has_priority = 1;
		j.priority = prio == 0 ? 1 : 0;
	}
	if (h_r[0] && h_r[1] && h_r[2]) {
		for (k = 0; k < 3; k++)
			if (!(res[k] >= 0 && res[k] < 1e12))
				return sim_err_set(err, SIM_EPARSE, "%s:%ld: "
						   "resource_time_%d: expected "
						   "milliseconds >= 0, got %g",
						   r->path, r->line, k, res[k]);
		if (res[0] + res[1] + res[2] > 0) {
			j.has_res = 1;
			memcpy(j.res_ms, res, sizeof res);
		}
	}
	return imp_emit_job(c, &j, r->path, r->line, err);
}

static int muri_file(struct imp_ctx *c, const char *path,
		     struct sim_err *err)
{
	return imp_csv_each(path, muri_row, c, err);
}

const struct imp_format imp_fmt_muri = {
	"muri",
	"Muri (SIGCOMM'22) simulator job trace (times in ms) -> training jobs "
	"with per-resource times",
	"job CSV: job_id,num_gpu,submit_time,iterations,model_name,batch_size,"
	"duration,interval,iteration_time,resource_time_0..2,priority; "
	"and/or the cluster spec (num_switch,...,mem_p_node)",
	muri_file,
	NULL,
	sizeof(struct muri_state)
};
