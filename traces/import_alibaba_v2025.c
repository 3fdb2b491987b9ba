/*
** import_alibaba_v2025.c: Alibaba cluster-trace-gpu-v2025 (GPU-
** disaggregated DLRM serving, disaggregated_DLRM_trace.csv) -> one
** inference service row per GPU instance.
**
** Mapping (docs/TRACE_FORMAT.md, "alibaba-v2025"):
**   app_name "." instance_sn -> id (the app groups the instances);
**   creation_time -> submit_s (empty: existed before the window -> 0);
**   deletion_time - scheduled_time -> duration_s (the service lifetime;
**   empty deletion: alive past the window -> lifetime to the window's end,
**   the largest time in the file, found by a first pass);
**   gpu_request -> gpus (one replica per GPU).
** CN instances request no GPU (they run on CPU nodes and call HN
** instances over RDMA) and are skipped, counted.  CPU, RDMA, memory, disk
** and max_instance_per_node have no v1 column and are dropped.  The trace
** has no request rates and the zoo no DLRM: model (--model, default
** bert-base), batch (--batch, 64), SLO (--slo-ms, 100 ms) and Poisson
** rate (--rate, 100 req/s per instance) are assumptions, noted on every row.
*/
#include <stdio.h>
#include <string.h>

#include "traces/import_csv.h"

struct v25_state {
	int c_sn, c_role, c_app, c_gpu, c_create, c_sched, c_delete;
	int pass;                 /* 0: find the window's end; 1: import */
	sim_time end_ns;
};

static int v25_header(struct v25_state *s, const struct imp_row *h,
		      struct sim_err *err)
{
	int rc;

	if ((rc = imp_col_req(h, "instance_sn", &s->c_sn, err)) ||
	    (rc = imp_col_req(h, "role", &s->c_role, err)) ||
	    (rc = imp_col_req(h, "app_name", &s->c_app, err)) ||
	    (rc = imp_col_req(h, "gpu_request", &s->c_gpu, err)) ||
	    (rc = imp_col_req(h, "creation_time", &s->c_create, err)) ||
	    (rc = imp_col_req(h, "scheduled_time", &s->c_sched, err)) ||
	    (rc = imp_col_req(h, "deletion_time", &s->c_delete, err)))
		return rc;
	return 0;
}

static int v25_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct imp_ctx *c = ctx;
	struct v25_state *s = c->state;
	const char *sn, *role, *app;
	char id[200];
	sim_time t_c, t_s, t_d, submit, start;
	int64_t gpus;
	int h_c, h_s, h_d, h_g, rc;
	struct imp_job j;

	if (r->index == 0)
		return v25_header(s, r, err);
	if ((rc = imp_get_secs(r, s->c_create, "creation_time", &t_c, &h_c,
			       err)) ||
	    (rc = imp_get_secs(r, s->c_sched, "scheduled_time", &t_s, &h_s,
			       err)) ||
	    (rc = imp_get_secs(r, s->c_delete, "deletion_time", &t_d, &h_d,
			       err)))
		return rc;
	if (s->pass == 0) {
		if (h_c && t_c > s->end_ns)
			s->end_ns = t_c;
		if (h_s && t_s > s->end_ns)
			s->end_ns = t_s;
		if (h_d && t_d > s->end_ns)
			s->end_ns = t_d;
		return 0;
	}
	c->stats->rows_read++;
	if ((rc = imp_field(r, s->c_sn, "instance_sn", &sn, err)) ||
	    (rc = imp_field(r, s->c_role, "role", &role, err)) ||
	    (rc = imp_field(r, s->c_app, "app_name", &app, err)) ||
	    (rc = imp_get_i64(r, s->c_gpu, "gpu_request", &gpus, &h_g, err)))
		return rc;
	if (sn == NULL) {
		imp_skip(c, "missing instance_sn");
		return 0;
	}
	if (!h_g) {
		imp_skip(c, "missing gpu_request");
		return 0;
	}
	if (gpus <= 0) {
		imp_skip(c, role != NULL && strcmp(role, "CN") == 0 ?
			 "CN instance (no GPU: runs on a CPU node)" :
			 "no GPU requested (gpu_request 0)");
		return 0;
	}
	submit = h_c ? t_c : h_s ? t_s : 0;
	start = h_s ? t_s : submit;
	if ((h_d ? t_d : s->end_ns) <= start) {
		imp_skip(c, "deletion_time not after start");
		return 0;
	}
	if (!imp_sample(c))
		return 0;
	if (!h_c && !h_s)
		imp_note(c, "existed before the trace window: submit 0");
	if (!h_d)
		imp_note(c, "alive past the trace window: lifetime to the "
			 "window's end");
	snprintf(id, sizeof id, "%s.%s", app ? app : "noapp", sn);
	memset(&j, 0, sizeof j);
	j.id = id;
	j.infer = 1;
	j.submit_ns = submit;
	j.duration_ns = (h_d ? t_d : s->end_ns) - start;
	j.model = c->opts->model ? c->opts->model : "bert-base";
	j.batch = c->opts->batch ? c->opts->batch : 64;
	j.slo_ms = c->opts->slo_ms > 0 ? c->opts->slo_ms : 100.0;
	j.arrival = "poisson";
	j.rate_per_s = c->opts->rate_per_s > 0 ? c->opts->rate_per_s : 100.0;
	j.gpus = imp_scale_gpus(c, (int)(gpus > 1000000 ? 1000000 : gpus));
	if (c->opts->model == NULL)
		imp_note(c, "model bert-base, batch 64 assumed for DLRM (not "
			 "in the zoo; see --model, --batch)");
	if (c->opts->slo_ms <= 0 || c->opts->rate_per_s <= 0)
		imp_note(c, "SLO 100 ms and/or Poisson 100 req/s assumed (none "
			 "in the trace; see --slo-ms, --rate)");
	return imp_emit_job(c, &j, r->path, r->line, err);
}

static int v25_file(struct imp_ctx *c, const char *path, struct sim_err *err)
{
	struct v25_state *s = c->state;
	int rc;

	s->pass = 0;
	s->end_ns = 0;
	if ((rc = imp_csv_each(path, v25_row, c, err)))
		return rc;
	s->pass = 1;
	return imp_csv_each(path, v25_row, c, err);
}

const struct imp_format imp_fmt_alibaba_v2025 = {
	"alibaba-v2025",
	"Alibaba GPU-disaggregated DLRM serving trace v2025 -> one inference "
	"service per GPU instance",
	"disaggregated_DLRM_trace.csv",
	v25_file,
	NULL,
	sizeof(struct v25_state)
};
