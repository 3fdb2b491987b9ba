/*
** import_alibaba_v2023.c: Alibaba cluster-trace-gpu-v2023 ("openb", the
** FGD paper's trace) -> trace v1 training jobs with fractional GPU shares,
** plus a cluster spec built from the node list.
**
** Inputs are told apart by their header: a pod list has name, num_gpu,
** gpu_milli, qos and the three times; a node list has sn, gpu, model.
** Mapping (docs/TRACE_FORMAT.md, "alibaba-v2023"):
**   name -> id; creation_time -> submit_s; deletion_time - scheduled_time
**   -> duration_s; num_gpu -> gpus; gpu_milli / 1000 -> gpu_share;
**   qos -> priority (BE 0, Burstable 1, LS 2, Guaranteed 3).
**   Pods name no DNN model: model = --model (default resnet50) and batch =
**   --batch (default 32), both assumptions, noted on every row.
** Nodes: grouped by (device, GPUs per node) in order of first appearance,
** written as OUT.cluster = "549x8:g2,387x2:t4,...".
*/
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include "traces/import_csv.h"

#define V23_GROUPS_MAX 64

struct v23_group {
	char device[48];
	int gpus;
	long nodes;
	int64_t cpu_milli, mem_mib;    /* --host only; else 0 */
};

struct v23_state {
	/* pod list columns */
	int c_name, c_num_gpu, c_gpu_milli, c_gpu_spec, c_qos, c_cpu, c_mem;
	int c_creation, c_deletion, c_scheduled;
	/* node list columns */
	int c_sn, c_gpu, c_model;
	int is_nodes;
	int ngroups;
	struct v23_group groups[V23_GROUPS_MAX];
	int saw_nodes;
};

/* openb GPU model names -> colosim device profile names
** (models/devices/NAME.ini).  G2 and G3 are anonymous in the trace; the
** device profiles hold the assumption made for them. */
static const char *const v23_devices[][2] = {
	{ "P100", "p100" }, { "T4", "t4" }, { "V100M16", "v100-16gb" },
	{ "V100M32", "v100-32gb" }, { "A10", "a10" }, { "G2", "g2" },
	{ "G3", "g3" }, { NULL, NULL }
};

static int qos_priority(const char *q)
{
	if (strcasecmp(q, "BE") == 0)
		return 0;
	if (strcasecmp(q, "Burstable") == 0)
		return 1;
	if (strcasecmp(q, "LS") == 0)
		return 2;
	if (strcasecmp(q, "Guaranteed") == 0)
		return 3;
	return -1;
}

static int v23_header(struct imp_ctx *c, struct v23_state *s,
		      const struct imp_row *h, struct sim_err *err)
{
	int rc = 0;

	if (imp_col(h, "sn") >= 0 && imp_col(h, "gpu") >= 0) {
		s->is_nodes = 1;
		s->saw_nodes = 1;
		s->c_sn = imp_col(h, "sn");
		if ((rc = imp_col_req(h, "gpu", &s->c_gpu, err)) ||
		    (rc = imp_col_req(h, "model", &s->c_model, err)))
			return rc;
		if (c->opts->host &&
		    ((rc = imp_col_req(h, "cpu_milli", &s->c_cpu, err)) ||
		     (rc = imp_col_req(h, "memory_mib", &s->c_mem, err))))
			return rc;
		return 0;
	}
	if (imp_col(h, "name") < 0 || imp_col(h, "num_gpu") < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: %s: neither an "
				   "openb pod list (name,...,num_gpu,gpu_milli,"
				   "...) nor a node list (sn,...,gpu,model)",
				   h->path, c->format);
	s->is_nodes = 0;
	s->c_gpu_spec = imp_col(h, "gpu_spec");
	if (imp_col(h, "creation_time") < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:%d: header lacks "
				   "column 'creation_time': this pod list "
				   "carries no times (an arrival-order variant "
				   "such as openb_pod_list_multigpu50.csv), so "
				   "its pods have no submit time or duration",
				   h->path, h->nf + 1);
	if ((rc = imp_col_req(h, "name", &s->c_name, err)) ||
	    (rc = imp_col_req(h, "num_gpu", &s->c_num_gpu, err)) ||
	    (rc = imp_col_req(h, "gpu_milli", &s->c_gpu_milli, err)) ||
	    (rc = imp_col_req(h, "qos", &s->c_qos, err)) ||
	    (rc = imp_col_req(h, "creation_time", &s->c_creation, err)) ||
	    (rc = imp_col_req(h, "deletion_time", &s->c_deletion, err)) ||
	    (rc = imp_col_req(h, "scheduled_time", &s->c_scheduled, err)))
		return rc;
	if (c->opts->host &&
	    ((rc = imp_col_req(h, "cpu_milli", &s->c_cpu, err)) ||
	     (rc = imp_col_req(h, "memory_mib", &s->c_mem, err))))
		return rc;
	c->host_cols = c->opts->host;
	return 0;
}

static int v23_node(struct imp_ctx *c, struct v23_state *s,
		    const struct imp_row *r, struct sim_err *err)
{
	const char *model, *sn;
	char dev[48];
	int64_t gpus, cpu = 0, mem = 0;
	int have, hc = 1, hm = 1, rc, i;

	if ((rc = imp_field(r, s->c_sn, "sn", &sn, err)) ||
	    (rc = imp_get_i64(r, s->c_gpu, "gpu", &gpus, &have, err)) ||
	    (rc = imp_field(r, s->c_model, "model", &model, err)))
		return rc;
	if (c->opts->host &&
	    ((rc = imp_get_i64(r, s->c_cpu, "cpu_milli", &cpu, &hc, err)) ||
	     (rc = imp_get_i64(r, s->c_mem, "memory_mib", &mem, &hm, err))))
		return rc;
	if (c->opts->host && (!hc || !hm || cpu < 1000 || cpu % 1000 != 0 ||
			      mem < 1024 || mem % 1024 != 0))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld: --host: node "
				   "cpu_milli %lld / memory_mib %lld: the "
				   "cluster spec takes whole CPUs and GiB",
				   r->path, r->line, (long long)cpu,
				   (long long)mem);
	if (!have) {
		imp_skip(c, "node: missing gpu");
		return 0;
	}
	if (gpus <= 0) {
		imp_skip(c, "node without GPUs (gpu 0)");
		return 0;
	}
	if (gpus > 1024)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: gpu: expected "
				   "0..1024 GPUs per node, got %lld", r->path,
				   r->line, s->c_gpu + 1, (long long)gpus);
	if (model == NULL) {
		imp_skip(c, "node: GPUs but no model");
		return 0;
	}
	if (!imp_kv_lookup(c->opts->device_map, model, dev, sizeof dev)) {
		for (i = 0; v23_devices[i][0] != NULL; i++)
			if (strcasecmp(v23_devices[i][0], model) == 0)
				break;
		if (v23_devices[i][0] != NULL) {
			snprintf(dev, sizeof dev, "%s", v23_devices[i][1]);
		} else {
			snprintf(dev, sizeof dev, "%s", model);
			for (i = 0; dev[i]; i++)
				dev[i] = (char)tolower((unsigned char)dev[i]);
			imp_note(c, "node GPU model with no built-in device "
				 "name: lower-cased (see --device-map)");
		}
	}
	for (i = 0; i < s->ngroups; i++)
		if (s->groups[i].gpus == (int)gpus &&
		    strcmp(s->groups[i].device, dev) == 0 &&
		    s->groups[i].cpu_milli == cpu && s->groups[i].mem_mib == mem)
			break;
	if (i == s->ngroups) {
		if (s->ngroups == V23_GROUPS_MAX)
			return sim_err_set(err, SIM_ERANGE, "%s:%ld: more than "
					   "%d kinds of node", r->path,
					   r->line, V23_GROUPS_MAX);
		snprintf(s->groups[i].device, sizeof s->groups[i].device,
			 "%s", dev);
		s->groups[i].gpus = (int)gpus;
		s->groups[i].cpu_milli = cpu;
		s->groups[i].mem_mib = mem;
		s->ngroups++;
	}
	s->groups[i].nodes++;
	imp_note(c, "node written to the cluster spec");
	(void)sn;
	return 0;
}

static int v23_pod(struct imp_ctx *c, struct v23_state *s,
		   const struct imp_row *r, struct sim_err *err)
{
	const char *name, *qos, *spec;
	int64_t ngpu, milli, cpu = 0, mem = 0;
	int h_cpu = 0, h_mem = 0;
	sim_time t_create, t_delete, t_sched, start;
	int h_ngpu, h_milli, h_create, h_delete, h_sched, rc, prio;
	struct imp_job j;

	if ((rc = imp_field(r, s->c_name, "name", &name, err)) ||
	    (rc = imp_get_i64(r, s->c_num_gpu, "num_gpu", &ngpu, &h_ngpu,
			      err)) ||
	    (rc = imp_get_i64(r, s->c_gpu_milli, "gpu_milli", &milli,
			      &h_milli, err)) ||
	    (rc = imp_field(r, s->c_gpu_spec, "gpu_spec", &spec, err)) ||
	    (rc = imp_field(r, s->c_qos, "qos", &qos, err)) ||
	    (rc = imp_get_secs(r, s->c_creation, "creation_time", &t_create,
			       &h_create, err)) ||
	    (rc = imp_get_secs(r, s->c_deletion, "deletion_time", &t_delete,
			       &h_delete, err)) ||
	    (rc = imp_get_secs(r, s->c_scheduled, "scheduled_time", &t_sched,
			       &h_sched, err)))
		return rc;
	if (c->opts->host &&
	    ((rc = imp_get_i64(r, s->c_cpu, "cpu_milli", &cpu, &h_cpu, err)) ||
	     (rc = imp_get_i64(r, s->c_mem, "memory_mib", &mem, &h_mem, err))))
		return rc;
	if (name == NULL) {
		imp_skip(c, "missing name");
		return 0;
	}
	if (!h_ngpu || !h_milli) {
		imp_skip(c, "missing num_gpu or gpu_milli");
		return 0;
	}
	if (ngpu <= 0 && !c->opts->host) {
		imp_skip(c, "CPU-only pod (num_gpu 0)");
		return 0;
	}
	if (c->opts->host && (!h_cpu || !h_mem || cpu < 0 || mem < 0)) {
		imp_skip(c, "--host: missing cpu_milli or memory_mib");
		return 0;
	}
	if (ngpu <= 0) {
		ngpu = 0;
		imp_note(c, "CPU-only pod kept (--host)");
	} else if (milli <= 0 || milli > 1000) {
		imp_skip(c, "gpu_milli outside 1..1000");
		return 0;
	}
	if (qos == NULL || (prio = qos_priority(qos)) < 0) {
		imp_skip(c, "missing or unknown qos");
		return 0;
	}
	if (!h_create || !h_delete) {
		imp_skip(c, "missing creation_time or deletion_time");
		return 0;
	}
	if (h_sched) {
		start = t_sched;
	} else if (c->opts->keep_pending) {
		start = t_create;
		imp_note(c, "never-scheduled pod kept (--keep-pending): "
			 "duration = deletion - creation");
	} else {
		imp_skip(c, "never scheduled (no scheduled_time; see "
			 "--keep-pending)");
		return 0;
	}
	if (t_delete <= start) {
		imp_skip(c, "deletion_time not after start");
		return 0;
	}
	if (spec != NULL)
		imp_note(c, "gpu_spec constraint dropped (no v1 column)");
	if (!imp_sample(c))
		return 0;
	memset(&j, 0, sizeof j);
	j.id = name;
	j.submit_ns = t_create;
	j.model = c->opts->model ? c->opts->model : "resnet50";
	j.batch = c->opts->batch ? c->opts->batch : 32;
	imp_note(c, c->opts->model ? "model and batch from --model/--batch "
		 "(pods name none)" : "model resnet50 and batch 32 assumed "
		 "(pods name none; see --model, --batch)");
	j.duration_ns = t_delete - start;
	j.gpus = ngpu == 0 ? 0 :
		imp_scale_gpus(c, (int)(ngpu > 1000000 ? 1000000 : ngpu));
	j.gpu_share = ngpu == 0 ? 0 : milli == 1000 ? 1.0 :
		(double)milli / 1000.0;
	j.cpu_milli = cpu;
	j.host_mem_mib = mem;
	j.has_priority = 1;
	j.priority = prio;
	return imp_emit_job(c, &j, r->path, r->line, err);
}

static int v23_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct imp_ctx *c = ctx;
	struct v23_state *s = c->state;

	if (r->index == 0)
		return v23_header(c, s, r, err);
	c->stats->rows_read++;
	return s->is_nodes ? v23_node(c, s, r, err) : v23_pod(c, s, r, err);
}

static int v23_file(struct imp_ctx *c, const char *path, struct sim_err *err)
{
	return imp_csv_each(path, v23_row, c, err);
}

static int v23_finish(struct imp_ctx *c, struct sim_err *err)
{
	struct v23_state *s = c->state;
	char spec[64 * 80];
	size_t k = 0;
	int i;

	if (!s->saw_nodes)
		return 0;
	spec[0] = '\0';
	for (i = 0; i < s->ngroups; i++) {
		int w = snprintf(spec + k, sizeof spec - k, "%s%ldx%d:%s",
				 i ? "," : "", s->groups[i].nodes,
				 s->groups[i].gpus, s->groups[i].device);
		if (w >= 0 && (size_t)w < sizeof spec - k &&
		    s->groups[i].cpu_milli > 0) {
			k += (size_t)w;
			w = snprintf(spec + k, sizeof spec - k,
				     ":cpus=%lld:mem_gb=%lld",
				     (long long)(s->groups[i].cpu_milli / 1000),
				     (long long)(s->groups[i].mem_mib / 1024));
		}
		if (w < 0 || (size_t)w >= sizeof spec - k)
			return sim_err_set(err, SIM_ERANGE, "cluster spec too "
					   "long");
		k += (size_t)w;
	}
	if (k + 2 > sizeof spec)
		return sim_err_set(err, SIM_ERANGE, "cluster spec too long");
	spec[k++] = '\n';
	spec[k] = '\0';
	return imp_side_file(c, "cluster", spec, err);
}

const struct imp_format imp_fmt_alibaba_v2023 = {
	"alibaba-v2023",
	"Alibaba GPU cluster trace v2023 (openb): pods -> training jobs "
	"with GPU shares; node list -> cluster spec",
	"openb_pod_list_*.csv (with times) and/or openb_node_list_*.csv",
	v23_file,
	v23_finish,
	sizeof(struct v23_state)
};
