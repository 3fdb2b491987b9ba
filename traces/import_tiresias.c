/*
** import_tiresias.c: the Philly-derived job trace of Tiresias (NSDI'19)
** and its successors -> trace v1 training jobs.
**
** Columns are found by header name, so the variants that add columns are
** read by the same code: job_id, num_gpu, submit_time and model_name are
** required, and iterations or duration (at least one per row); optional:
** batch_size (or batch), iteration time (iteration_time / iter_time in
** seconds, iteration_time_ms / iter_time_ms / iter_ms in milliseconds),
** priority, gpu_util (a measured GPU utilisation in percent, written as
** the trace's optional gpu_util fraction).  interval (the gap to the
** previous submission) is redundant
** with submit_time and dropped; other columns are ignored, noted.
**
** Model names the zoo lacks map to a zoo model of the same family (the
** table below; --model-map adds or overrides); a name in neither is
** skipped, counted.  Without a batch column the per-GPU batch is --batch
** (default 32), an assumption, noted.
*/
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "traces/import_csv.h"

/* Tiresias/Philly model names -> zoo models: the nearest in family and
** size (docs/TRACE_FORMAT.md gives the reasons). */
static const char *const tir_models[][2] = {
	{ "vgg11", "vgg16" }, { "vgg13", "vgg16" }, { "vgg19", "vgg16" },
	{ "alexnet", "vgg16" },
	{ "inception4", "inception3" }, { "googlenet", "inception3" },
	{ "resnet18", "resnet50" }, { "resnet34", "resnet50" },
	{ "resnet101", "resnet152" },
	{ "densenet121", "densenet201" }, { "densenet169", "densenet201" },
	{ "bert", "bert-base" }, { "gpt-2", "gpt2" },
	{ NULL, NULL }
};

struct tir_state {
	int c_id, c_gpus, c_submit, c_model, c_iters, c_dur;
	int c_batch, c_iter_s, c_iter_ms, c_prio, c_util;
};

static const char *const tir_known[] = {
	"job_id", "num_gpu", "submit_time", "model_name", "iterations",
	"duration", "interval", "batch_size", "batch", "iteration_time",
	"iter_time", "iteration_time_ms", "iter_time_ms", "iter_ms",
	"priority", "gpu_util", NULL
};

static int first_col(const struct imp_row *h, const char *a, const char *b,
		     const char *c)
{
	int i = imp_col(h, a);

	if (i < 0 && b != NULL)
		i = imp_col(h, b);
	if (i < 0 && c != NULL)
		i = imp_col(h, c);
	return i;
}

static int tir_header(struct imp_ctx *c, struct tir_state *s,
		      const struct imp_row *h, struct sim_err *err)
{
	char note[IMP_REASON_LEN];
	int rc, i, k;

	if (imp_col(h, "num_switch") >= 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:1: this is a Tiresias "
				   "cluster spec (num_switch,num_node_p_switch,"
				   "num_gpu_p_node,...), not a job list: give "
				   "the cluster to replay as --cluster "
				   "NODESxGPUS:DEVICE", h->path);
	if ((rc = imp_col_req(h, "job_id", &s->c_id, err)) ||
	    (rc = imp_col_req(h, "num_gpu", &s->c_gpus, err)) ||
	    (rc = imp_col_req(h, "submit_time", &s->c_submit, err)) ||
	    (rc = imp_col_req(h, "model_name", &s->c_model, err)))
		return rc;
	s->c_iters = imp_col(h, "iterations");
	s->c_dur = imp_col(h, "duration");
	if (s->c_iters < 0 && s->c_dur < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:1:%d: header lacks "
				   "both 'iterations' and 'duration' (one is "
				   "needed)", h->path, h->nf + 1);
	s->c_batch = first_col(h, "batch_size", "batch", NULL);
	s->c_iter_s = first_col(h, "iteration_time", "iter_time", NULL);
	s->c_iter_ms = first_col(h, "iteration_time_ms", "iter_time_ms",
				 "iter_ms");
	s->c_prio = imp_col(h, "priority");
	s->c_util = imp_col(h, "gpu_util");
	for (i = 0; i < h->nf; i++) {
		for (k = 0; tir_known[k] != NULL; k++)
			if (strcasecmp(h->f[i], tir_known[k]) == 0)
				break;
		if (tir_known[k] == NULL) {
			snprintf(note, sizeof note, "unknown column '%.60s' "
				 "ignored (per file)", h->f[i]);
			imp_note(c, note);
		}
	}
	return 0;
}

static int tir_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct imp_ctx *c = ctx;
	struct tir_state *s = c->state;
	const char *id, *name, *model;
	char mbuf[64];
	int64_t gpus, iters, batch, prio;
	sim_time submit, dur;
	double it_s, it_ms, util;
	int h_g, h_sub, h_it, h_dur, h_b, h_its, h_itms, h_p, h_u, rc;
	struct imp_job j;

	if (r->index == 0)
		return tir_header(c, s, r, err);
	c->stats->rows_read++;
	if ((rc = imp_field(r, s->c_id, "job_id", &id, err)) ||
	    (rc = imp_get_i64(r, s->c_gpus, "num_gpu", &gpus, &h_g, err)) ||
	    (rc = imp_get_secs(r, s->c_submit, "submit_time", &submit, &h_sub,
			       err)) ||
	    (rc = imp_field(r, s->c_model, "model_name", &name, err)) ||
	    (rc = imp_get_i64(r, s->c_iters, "iterations", &iters, &h_it,
			      err)) ||
	    (rc = imp_get_secs(r, s->c_dur, "duration", &dur, &h_dur, err)) ||
	    (rc = imp_get_i64(r, s->c_batch, "batch_size", &batch, &h_b,
			      err)) ||
	    (rc = imp_get_double(r, s->c_iter_s, "iteration_time", &it_s,
				 &h_its, err)) ||
	    (rc = imp_get_double(r, s->c_iter_ms, "iteration_time_ms", &it_ms,
				 &h_itms, err)) ||
	    (rc = imp_get_i64(r, s->c_prio, "priority", &prio, &h_p, err)) ||
	    (rc = imp_get_double(r, s->c_util, "gpu_util", &util, &h_u,
				 err)))
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
	if (h_it && iters <= 0)
		h_it = 0;
	if (h_dur && dur <= 0)
		h_dur = 0;
	if (!h_it && !h_dur) {
		imp_skip(c, "neither iterations nor duration > 0");
		return 0;
	}
	if (h_b && batch < 1) {
		imp_skip(c, "batch_size < 1");
		return 0;
	}
	model = imp_take_model(c, name, tir_models, mbuf, sizeof mbuf);
	if (model == NULL)
		return 0;
	memset(&j, 0, sizeof j);
	j.id = id;
	j.submit_ns = submit;
	j.model = model;
	j.batch = imp_batch(c, h_b, batch);
	j.iterations = h_it ? iters : 0;
	j.duration_ns = h_dur ? dur : 0;
	if (h_itms && it_ms > 0)
		j.iter_ms = it_ms;
	else if (h_its && it_s > 0)
		j.iter_ms = it_s * 1000.0;
	/* a measured utilisation in percent, nvidia-smi's unit (Lucid's
	** profiles carry it so); the trace column is the fraction */
	if (h_u && util > 0 && util <= 100)
		j.gpu_util = util / 100.0;
	else if (h_u)
		imp_note(c, "gpu_util outside (0, 100] ignored");
	j.gpus = imp_scale_gpus(c, (int)(gpus > 1000000 ? 1000000 : gpus));
	if (h_p) {
		j.has_priority = 1;
		j.priority = (int)prio;
	}
	return imp_emit_job(c, &j, r->path, r->line, err);
}

static int tir_file(struct imp_ctx *c, const char *path, struct sim_err *err)
{
	return imp_csv_each(path, tir_row, c, err);
}

const struct imp_format imp_fmt_tiresias = {
	"tiresias",
	"Tiresias / Philly-derived job trace -> training jobs",
	"job CSV: job_id,num_gpu,submit_time,iterations,model_name,duration,"
	"interval (+ batch_size, iteration_time, priority)",
	tir_file,
	NULL,
	sizeof(struct tir_state)
};
