/*
** import_requests.c: the shared body of the request-trace importers
** (alibaba-genai-v2026, azure-llm-2023): one input file -> one inference
** service row and its arrival file (see imp_request_file in
** import_csv.h).
**
** The arrivals are staged in the import's SQLite sink and written sorted,
** so an unsorted input still gives a sorted arrival file and memory stays
** bounded.  Times are datetimes, so the import is rebased: the earliest
** kept arrival over all inputs becomes time 0.
*/
#include <stdio.h>
#include <string.h>

#include "traces/import_csv.h"
#include "traces/trace.h"

#define REQ_COLS_MAX 8

struct req_file {
	struct imp_ctx *c;
	const struct imp_req_spec *spec;
	int c_time, c_status, c_prompt, c_output;
	int c_num[REQ_COLS_MAX];
	int nnum;
	int svc;
	const char *arr_base;
	long kept;
	sim_time first_ns;
};

static int req_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct req_file *q = ctx;
	struct imp_ctx *c = q->c;
	const char *status;
	char note[IMP_REASON_LEN];
	sim_time t;
	int64_t v;
	int have, have_t, rc, i;

	if (r->index == 0) {
		if ((rc = imp_col_req(r, q->spec->time_col, &q->c_time, err)))
			return rc;
		q->c_status = q->spec->status_col ?
			      imp_col(r, q->spec->status_col) : -1;
		for (i = 0; q->spec->num_cols && q->spec->num_cols[i] &&
			    i < REQ_COLS_MAX; i++)
			if ((rc = imp_col_req(r, q->spec->num_cols[i],
					      &q->c_num[i], err)))
				return rc;
		q->nnum = i;
		q->c_prompt = q->c_output = -1;
		if (q->spec->prompt_col != NULL &&
		    ((rc = imp_col_req(r, q->spec->prompt_col, &q->c_prompt,
				       err)) ||
		     (rc = imp_col_req(r, q->spec->output_col, &q->c_output,
				       err))))
			return rc;
		return 0;
	}
	c->stats->rows_read++;
	if ((rc = imp_get_datetime(r, q->c_time, q->spec->time_col, &t,
				   &have_t, err)))
		return rc;
	for (i = 0; i < q->nnum; i++)
		if ((rc = imp_get_i64(r, q->c_num[i], q->spec->num_cols[i], &v,
				      &have, err)))
			return rc;
	if ((rc = imp_field(r, q->c_status, "status", &status, err)))
		return rc;
	if (!have_t) {
		imp_skip(c, "missing request time");
		return 0;
	}
	if (status != NULL && strcmp(status, "SUCCEED") != 0) {
		snprintf(note, sizeof note, "request with status %.40s kept "
			 "as an arrival", status);
		imp_note(c, note);
	}
	if (q->c_prompt >= 0) {
		int64_t p, o;
		int hp, ho;
		if ((rc = imp_get_i64(r, q->c_prompt, q->spec->prompt_col, &p,
				      &hp, err)) ||
		    (rc = imp_get_i64(r, q->c_output, q->spec->output_col, &o,
				      &ho, err)))
			return rc;
		if (!hp || !ho) {
			imp_skip(c, "missing token count");
			return 0;
		}
		if (p < 1 || o < 1 || p > TRACE_TOKENS_MAX ||
		    o > TRACE_TOKENS_MAX) {
			imp_skip(c, "token count outside 1..16777216");
			return 0;
		}
		if (!imp_sample(c))
			return 0;
		if (q->kept == 0 || t < q->first_ns)
			q->first_ns = t;
		q->kept++;
		return imp_arrival_tokens(c, q->svc, t, (int)p, (int)o, err);
	}
	if (!imp_sample(c))
		return 0;
	if (q->kept == 0 || t < q->first_ns)
		q->first_ns = t;
	q->kept++;
	return imp_arrival(c, q->svc, t, err);
}

int imp_request_file(struct imp_ctx *c, const char *path,
		     const struct imp_req_spec *spec, struct sim_err *err)
{
	struct req_file q;
	struct imp_job j;
	char name[200];
	size_t n;
	int rc;

	memset(&q, 0, sizeof q);
	q.c = c;
	q.spec = spec;
	c->rebase = 1;
	snprintf(name, sizeof name, "%s", imp_basename(path));
	n = strlen(name);
	if (n > 4 && strcmp(name + n - 4, ".csv") == 0)
		name[n - 4] = '\0';
	if ((rc = imp_arrivals_open(c, name, &q.svc, &q.arr_base, err)))
		return rc;
	if ((rc = imp_csv_each(path, req_row, &q, err)))
		return rc;
	if (q.kept == 0) {
		imp_skip(c, "service with no kept request: no row written");
		return 0;
	}
	memset(&j, 0, sizeof j);
	j.id = name;
	j.infer = c->opts->llm && spec->llm_model != NULL ? 2 : 1;
	j.submit_ns = q.first_ns;
	j.model = c->opts->model ? c->opts->model : j.infer == 2 ?
		  spec->llm_model : spec->model;
	if (c->opts->model == NULL)
		imp_note(c, j.infer == 2 ? spec->llm_note : spec->model_note);
	j.batch = c->opts->batch ? c->opts->batch : j.infer == 2 ?
		  spec->llm_batch : spec->batch;
	j.slo_ms = c->opts->slo_ms > 0 ? c->opts->slo_ms : spec->slo_ms;
	if (c->opts->slo_ms <= 0)
		imp_note(c, spec->slo_note);
	j.gpus = imp_scale_gpus(c, c->opts->replicas ? c->opts->replicas : 1);
	j.arrival = "file";
	j.arrival_arg = q.arr_base;
	return imp_emit_job(c, &j, path, 1, err);
}
