/*
** timeline.c: a run's timeline as a Chrome trace (see timeline.h).  Each
** event is built as a small jansson object and written at once, so the
** file streams whatever the number of spans; lanes are assigned per GPU
** over the spans sorted by start (the first lane free at a span's start).
*/
#include "experiments/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "experiments/json.h"
#include "sim/file.h"
#include "sim/world/world.h"

struct lanes {
	sim_time *end;                /* per lane: when its last span ends */
	int n, cap;
};

static const struct world_timeline *g_tl;     /* for the qsort order */

static int by_gpu_start(const void *a, const void *b)
{
	const struct world_tl_span *x = &g_tl->spans[*(const size_t *)a];
	const struct world_tl_span *y = &g_tl->spans[*(const size_t *)b];

	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->t0_ns != y->t0_ns)
		return x->t0_ns < y->t0_ns ? -1 : 1;
	return x->t1_ns < y->t1_ns ? -1 : x->t1_ns > y->t1_ns;
}

/* The lane of a span [t0, t1) on lanes l; -1 when out of memory. */
static int lane_of(struct lanes *l, sim_time t0, sim_time t1)
{
	int k;

	for (k = 0; k < l->n; k++)
		if (l->end[k] <= t0)
			break;
	if (k == l->n) {
		if (l->n == l->cap) {
			int c = l->cap ? l->cap * 2 : 8;
			sim_time *p = realloc(l->end, (size_t)c * sizeof *p);
			if (p == NULL)
				return -1;
			l->end = p;
			l->cap = c;
		}
		l->n++;
	}
	l->end[k] = t1;
	return k;
}

/* Writes one event (consumed) and the separator before it. */
static int emit(FILE *f, json_t *ev, int *first)
{
	int bad = ev == NULL;

	if (!bad) {
		fputs(*first ? "\n" : ",\n", f);
		bad = json_dumpf(ev, f, JSON_COMPACT | JSON_PRESERVE_ORDER |
				 JSON_REAL_PRECISION(15)) != 0;
	}
	*first = 0;
	json_decref(ev);
	return bad;
}

static json_t *meta(const char *what, int pid, int tid, const char *name)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:{s:o}}", "name", what, "ph",
			 "M", "pid", pid, "tid", tid, "args", "name",
			 exp_json_text(name));
}

static double us(sim_time ns)
{
	return (double)ns / 1e3;
}

/* The span's name and category. */
static void label(const struct world *w, const struct world_tl_span *s,
		  char *name, size_t n, const char **cat)
{
	const struct world_job *j = s->job >= 0 && s->job < world_njobs(w) ?
		world_job(w, s->job) : NULL;
	const char *id = j ? j->tj.id : "pool";

	switch (s->kind) {
	case WORLD_TL_SWAP_OUT:
		snprintf(name, n, "swap out %s", id);
		*cat = "swap";
		return;
	case WORLD_TL_SWAP_IN:
		snprintf(name, n, "swap in %s", id);
		*cat = "swap";
		return;
	case WORLD_TL_LOAD:
		snprintf(name, n, "load %s", s->zWhat ? s->zWhat : "model");
		*cat = "load";
		return;
	default:
		snprintf(name, n, "%s", j ? j->tj.id : "pool batch");
		*cat = j == NULL ? "pool" : j->tj.kind == TRACE_INFER ?
		       "infer" : "train";
	}
}

static int write_gpus(FILE *f, struct world *w, int *first)
{
	int g, bad = 0;

	for (g = 0; g < world_ngpus(w) && !bad; g++) {
		const struct gpu *gp = world_gpu(w, g);
		char name[160];
		snprintf(name, sizeof name, "GPU %d: %s, node %d", g,
			 gp->dev->name, gp->node);
		bad |= emit(f, meta("process_name", g + 1, 0, name), first);
		bad |= emit(f, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}",
					 "name", "process_sort_index", "ph",
					 "M", "pid", g + 1, "tid", 0, "args",
					 "sort_index", g), first);
	}
	return bad;
}

static int write_spans(FILE *f, struct world *w,
		       const struct world_timeline *tl, int *first)
{
	size_t *ix = malloc((tl->nspans + 1) * sizeof *ix), i;
	struct lanes l = { NULL, 0, 0 };
	int bad = ix == NULL, gpu = -1, named = 0, k;

	for (i = 0; !bad && i < tl->nspans; i++)
		ix[i] = i;
	g_tl = tl;
	if (!bad)
		qsort(ix, tl->nspans, sizeof *ix, by_gpu_start);
	for (i = 0; !bad && i < tl->nspans; i++) {
		const struct world_tl_span *s = &tl->spans[ix[i]];
		char name[160], lane[32];
		const char *cat;
		if (s->gpu != gpu) {
			gpu = s->gpu;
			l.n = 0;
			named = 0;
		}
		if ((k = lane_of(&l, s->t0_ns, s->t1_ns)) < 0) {
			bad = 1;
			break;
		}
		for (; named <= k; named++) {
			snprintf(lane, sizeof lane, "lane %d", named);
			bad |= emit(f, meta("thread_name", gpu + 1, named,
					    lane),
				    first);
		}
		label(w, s, name, sizeof name, &cat);
		bad |= emit(f, json_pack("{s:o, s:s, s:s, s:f, s:f, s:i, s:i, "
					 "s:{s:i}}", "name", exp_json_text(name),
					 "cat", cat, "ph", "X", "ts",
					 us(s->t0_ns), "dur",
					 us(s->t1_ns - s->t0_ns), "pid", gpu + 1,
					 "tid", k, "args", "job", s->job),
			    first);
	}
	free(l.end);
	free(ix);
	return bad;
}

static int write_counters(FILE *f, const struct world_timeline *tl,
			  int *first)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < tl->ncounters && !bad; i++) {
		const struct world_tl_counter *c = &tl->counters[i];
		bad |= emit(f, json_pack("{s:s, s:s, s:f, s:i, s:{s:f}}",
					 "name", "HBM", "ph", "C", "ts",
					 us(c->t_ns), "pid", c->gpu + 1, "args",
					 "allocated", c->hbm_frac), first);
		bad |= emit(f, json_pack("{s:s, s:s, s:f, s:i, s:{s:f}}",
					 "name", "SM", "ph", "C", "ts",
					 us(c->t_ns), "pid", c->gpu + 1, "args",
					 "busy", c->sm_frac), first);
	}
	return bad;
}

int exp_timeline_write(const char *path, struct world *w,
		       struct sim_err *err)
{
	struct world_timeline tl;
	char tmp[4200];
	FILE *f;
	int rc, bad, first = 1;

	if ((rc = world_timeline(w, &tl, err)) != 0)
		return rc;
	/* written under a temporary name and renamed: never half a file */
	if ((f = sim_out_open(path, tmp, sizeof tmp, err)) == NULL)
		return err->code;
	fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"source\": "
	      "\"colosim replay --timeline\", \"time\": \"simulated\"", f);
	fprintf(f, ", \"truncated\": %s}, \"traceEvents\": [",
		tl.truncated ? "true" : "false");
	bad = write_gpus(f, w, &first);
	bad |= bad ? 0 : write_spans(f, w, &tl, &first);
	bad |= bad ? 0 : write_counters(f, &tl, &first);
	fputs("\n]}\n", f);
	if (bad)
		rc = sim_err_set(err, ferror(f) ? SIM_EIO : SIM_ENOMEM, "%s: "
				 "writing the timeline failed", path);
	return sim_out_close(f, tmp, path, rc, err);
}
