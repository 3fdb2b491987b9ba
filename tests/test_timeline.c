/*
** test_timeline.c: `colosim replay --timeline` (sim/world/world_timeline.c,
** experiments/timeline.c): the Chrome trace parses back; its spans match
** the run (one unit span per training worker placement, starting and
** ending where the job did; a swap out and a swap in where a preemption
** under preempt_cost = swap copies; one load span per model load of the
** GPU pool); lanes on one GPU never overlap; counters stay in [0, 1].
*/
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/timeline.h"
#include "sim/world/world.h"
#include "sim/world/world_pool.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* Runs body under ops with the timeline on, writes it to name.json and
** parses it back (the caller decrefs); t stays open for inspection. */
static json_t *timeline(struct tw_world *t, const char *name,
			const char *body, const struct pol_ops *ops,
			const char *cluster, const char *params,
			int preempt_cost)
{
	struct world_config cfg = tw_config(ops);
	struct sim_err err = { 0, "" };
	char csv[300], path[600];
	json_error_t je;
	json_t *doc;

	snprintf(csv, sizeof csv, "%s.csv", name);
	snprintf(path, sizeof path, "%s/%s.json", test_tmpdir(), name);
	cfg.timeline = 1;
	cfg.preempt_cost = preempt_cost;
	if (tw_simulate(t, tw_write(csv, body), cluster, &cfg, params) != 0)
		return NULL;
	if (exp_timeline_write(path, t->w, &err) != 0) {
		fprintf(stderr, "\n  %s\n", err.msg);
		return NULL;
	}
	doc = json_load_file(path, 0, &je);
	if (doc == NULL)
		fprintf(stderr, "\n  %s:%d: %s\n", path, je.line, je.text);
	return doc;
}

/* The spans ("X") of doc whose name and category match (NULL: any). */
static int spans(json_t *doc, const char *name, const char *cat,
		 double *ts, double *dur, int max)
{
	json_t *ev = json_object_get(doc, "traceEvents"), *e;
	size_t i;
	int n = 0;

	json_array_foreach(ev, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *nm = json_string_value(json_object_get(e, "name"));
		const char *ct = json_string_value(json_object_get(e, "cat"));
		if (ph == NULL || strcmp(ph, "X") != 0 ||
		    (name && (nm == NULL || strcmp(nm, name) != 0)) ||
		    (cat && (ct == NULL || strcmp(ct, cat) != 0)))
			continue;
		if (n < max) {
			ts[n] = json_number_value(json_object_get(e, "ts"));
			dur[n] = json_number_value(json_object_get(e, "dur"));
		}
		n++;
	}
	return n;
}

struct lane_span {
	long long pid, tid;
	double t0, t1;
};

static int by_lane(const void *a, const void *b)
{
	const struct lane_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* No two spans of one (pid, tid) overlap; every counter is in [0, 1]. */
static int well_formed(json_t *doc)
{
	json_t *ev = json_object_get(doc, "traceEvents"), *a;
	struct lane_span *v = calloc(json_array_size(ev) + 1, sizeof *v);
	size_t i, n = 0;
	int bad = v == NULL;

	json_array_foreach(ev, i, a) {
		const char *ph = json_string_value(json_object_get(a, "ph"));
		if (v == NULL || ph == NULL)
			continue;
		if (strcmp(ph, "C") == 0) {
			json_t *args = json_object_get(a, "args"), *x;
			const char *key;
			json_object_foreach(args, key, x)
				bad += json_number_value(x) < 0 ||
				       json_number_value(x) > 1 + 1e-12;
		} else if (strcmp(ph, "X") == 0) {
			v[n].pid = json_integer_value(json_object_get(a, "pid"));
			v[n].tid = json_integer_value(json_object_get(a, "tid"));
			v[n].t0 = json_number_value(json_object_get(a, "ts"));
			v[n].t1 = v[n].t0 +
				json_number_value(json_object_get(a, "dur"));
			n++;
		}
	}
	if (v != NULL)
		qsort(v, n, sizeof *v, by_lane);
	for (i = 1; i < n; i++)
		bad += v[i].pid == v[i - 1].pid && v[i].tid == v[i - 1].tid &&
		       v[i].t0 < v[i - 1].t1 - 1e-3;
	free(v);
	return bad;
}

/* Three training jobs, exclusive on two GPUs: one span each, from the
** job's start to its end. */
static void test_units_match_jobs(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
		"B,train,5,resnet50,32,,50,,,,1,,1000,,,,,,\n"
		"C,train,10,vgg16,32,,80,,,,1,,1000,,,,,,\n";
	static const char *const ids[] = { "A", "B", "C" };
	struct tw_world t;
	json_t *doc = timeline(&t, "tl-units", body, pol_find("exclusive"),
			       "1x2:a100-80gb", NULL, 0);
	double ts[8], dur[8];
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(spans(doc, NULL, "train", ts, dur, 8), 3);
	for (i = 0; i < 3; i++) {
		const struct world_job *j = tw_wjob(&t, ids[i]);
		CU_ASSERT_EQUAL_FATAL(spans(doc, ids[i], "train", ts, dur, 8),
				      1);
		CU_ASSERT_DOUBLE_EQUAL(ts[0], (double)j->start_ns / 1e3, 1e-3);
		CU_ASSERT_DOUBLE_EQUAL(ts[0] + dur[0], (double)j->end_ns / 1e3,
				       1e-3);
	}
	CU_ASSERT_EQUAL(well_formed(doc), 0);
	json_decref(doc);
	tw_close(&t);
}

/* A preemption under preempt_cost = swap: A's unit, its swap out, B's
** unit, A's swap in, A's second unit, each where the run put it. */
static void test_swap_spans(void)
{
	static const char body[] =
		"A,train,0,resnet50,32,,1000,,,,1,,10240,,,,,,\n"
		"B,train,10,resnet50,32,,100,,,,1,,10240,,,,,,\n";
	struct tw_world t;
	json_t *doc = timeline(&t, "tl-swap", body, pol_find("exclusive"),
			       "1x1:v100-16gb", "order=srtf",
			       WORLD_PREEMPT_SWAP);
	double ts[8], dur[8], b0, b1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(spans(doc, "A", "train", ts, dur, 8), 2);
	CU_ASSERT_EQUAL_FATAL(spans(doc, "B", "train", ts, dur, 8), 1);
	b0 = ts[0];
	b1 = ts[0] + dur[0];
	CU_ASSERT_DOUBLE_EQUAL(b1, (double)tw_wjob(&t, "B")->end_ns / 1e3,
			       1e-3);
	CU_ASSERT_EQUAL_FATAL(spans(doc, "swap out A", "swap", ts, dur, 8), 1);
	CU_ASSERT_DOUBLE_EQUAL(ts[0], 10e6, 1e-3);    /* B arrives at 10 s */
	CU_ASSERT_DOUBLE_EQUAL(ts[0] + dur[0], b0, 1e-3);
	CU_ASSERT_EQUAL_FATAL(spans(doc, "swap in A", "swap", ts, dur, 8), 1);
	CU_ASSERT(ts[0] >= b1 - 1e-3);
	CU_ASSERT(dur[0] > 0);
	CU_ASSERT_EQUAL(tw_wjob(&t, "A")->preemptions, 1);
	CU_ASSERT_EQUAL(well_formed(doc), 0);
	json_decref(doc);
	tw_close(&t);
}

/* DistMind's GPU pool: one load span per model load it counted. */
static void test_load_spans(void)
{
	struct world_config cfg = tw_config(pol_find("distmind"));
	struct sim_err err = { 0, "" };
	struct tw_world t;
	char path[600];
	json_error_t je;
	double ts[1], dur[1];
	json_t *doc;
	int n;

	cfg.timeline = 1;
	snprintf(path, sizeof path, "%s/tl-dm.json", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, "traces/ref/mixed-small.csv",
					  "1x4:a100-80gb", &cfg, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(exp_timeline_write(path, t.w, &err), 0);
	doc = json_load_file(path, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	n = spans(doc, NULL, "load", ts, dur, 1);
	CU_ASSERT(world_pool_loads(t.w) > 0);
	/* a load still in flight at the end is a span the pool did not
	** count yet: at most one per GPU */
	CU_ASSERT(n >= (int)world_pool_loads(t.w) &&
		  n <= (int)world_pool_loads(t.w) + 4);
	CU_ASSERT(spans(doc, NULL, "pool", ts, dur, 1) > 0);
	CU_ASSERT_EQUAL(well_formed(doc), 0);
	json_decref(doc);
	tw_close(&t);
}

/* The command line: a file that parses, with one process per GPU; an
** unwritable path is one line. */
static void test_cli(void)
{
	char cmd[1200], err[1024], path[600];
	json_error_t je;
	json_t *doc;
	size_t i, nproc = 0, nid = 0, nlean = 0;
	json_t *e;

	snprintf(path, sizeof path, "%s/tl-cli.json", test_tmpdir());
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --policy "
		 "colti --cluster 1x2:a100-80gb --timeline %s >/dev/null",
		 test_bin(), path);
	CU_ASSERT_EQUAL_FATAL(test_sh(cmd, NULL, 0, err, sizeof err), 0);
	doc = json_load_file(path, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	json_array_foreach(json_object_get(doc, "traceEvents"), i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		nproc += n != NULL && strcmp(n, "process_name") == 0;
		nid += n != NULL && (strncmp(n, "infer-", 6) == 0 ||
				     strncmp(n, "train-", 6) == 0);
		nlean += n != NULL && n[0] == '#';
	}
	CU_ASSERT_EQUAL(nproc, 2);
	/* spans are named by the trace's ids, also for jobs that ended long
	** before the timeline is written (replay keeps their rows then) */
	CU_ASSERT(nid > 0);
	CU_ASSERT_EQUAL(nlean, 0);
	json_decref(doc);
	snprintf(cmd, sizeof cmd, "%s replay traces/ref/colti.csv --policy "
		 "colti --cluster 1x2:a100-80gb --timeline /no/such/dir/t.json",
		 test_bin());
	CU_ASSERT_EQUAL(test_sh(cmd, NULL, 0, err, sizeof err), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/no/such/dir/t.json: cannot "
				      "create"));
}

TEST_REGISTER(timeline)
{
	static const struct test_case cases[] = {
		{ "unit spans are the jobs' runs", test_units_match_jobs },
		{ "swap spans where the copies are", test_swap_spans },
		{ "load spans count the pool's loads", test_load_spans },
		{ "replay --timeline", test_cli },
		{ NULL, NULL }
	};
	return test_add_suite("timeline", cases);
}
