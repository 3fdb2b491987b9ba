/*
** test_memory.c: the world's memory follows the jobs active at once, not
** the trace (docs/PERFORMANCE.md, "Memory bounded by the active set").  A
** generated training trace of a few thousand jobs, on a cluster where a
** few dozen run at once, is replayed with a probe after every scheduling
** pass: the job records held never exceed the live jobs by more than the
** jobs that finished at that instant, so a regression that keeps finished
** jobs' records (or stops releasing them) fails here without timing
** anything.  The retired jobs' result rows and world_job copies keep what
** the live records said; the policy view knows a released job by index,
** kind and state (policy.h, version 9); a done service's window and row
** keep their latencies after its samples are given back.  A metrics-only
** world (replay's) on a mixed trace holds records for live jobs alone,
** services included, and a job table of a few bytes a job, with no
** interned strings.  The queue schedulers built on policies/qsched.c keep
** their per-job state in the job's pol_job_priv: after every pass the
** states held never exceed the live jobs by more than the ones finished
** at that instant, and qsched's own arrays stay at a few bytes per job
** active at most, not a slot per job index.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policies/policy.h"
#include "policies/qsched.h"
#include "sim/time.h"
#include "sim/world/world_int.h"
#include "tests/util.h"
#include "tests/world_util.h"
#include "traces/gen.h"

#define MEM_JOBS 3000

struct mem_probe {
	int passes;
	int max_live;                 /* live jobs at a pass, at most */
	int max_excess;               /* records - live jobs, at most */
	int bad_view;                 /* retired jobs the view got wrong */
	int seen_retired;             /* finished, full view */
	int seen_released;            /* finished, released view */
};

/* After each pass: records against live jobs, and the view of the first
** jobs once they are finished (and, past a pass, retired). */
static int probe(void *ctx, struct world *w)
{
	struct mem_probe *p = ctx;
	int live = world_live_jobs(w), rec = world_live_records(w), j;

	p->passes++;
	if (live > p->max_live)
		p->max_live = live;
	if (rec - live > p->max_excess)
		p->max_excess = rec - live;
	for (j = 0; j < 8 && j < pol_njobs(w); j++) {
		struct pol_job_info o = pol_job(w, j);
		int st = pol_job_state(w, j);
		if (st != POL_JOB_DONE && st != POL_JOB_FAILED)
			continue;
		if ((int)o.state != st || o.job != j || o.zModel == NULL ||
		    o.nplaced != 0 || o.kind != POL_TRAIN)
			p->bad_view++;
		else if (o.zModel[0] == '\0') {
			/* released (version 9): index, kind and state */
			p->seen_released++;
			if (o.submit_ns != 0 || o.end_ns != -1 || o.gpus != 0 ||
			    o.batch != 0 || o.model_params != 0 ||
			    pol_job_mem(w, j, 0) != 0 ||
			    pol_job_priv(w, j) != NULL)
				p->bad_view++;
		} else {
			/* finished at this instant: still all of it */
			p->seen_retired++;
			if (o.submit_ns < 0 || o.end_ns < o.submit_ns)
				p->bad_view++;
		}
	}
	return 0;
}

static const char *gen_trace(const char *name, const char *infer_frac)
{
	static char path[512];
	struct gen_opts o;
	struct sim_err err = { 0, "" };
	char jobs[16];
	FILE *fp;
	int rc;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
	snprintf(jobs, sizeof jobs, "%d", MEM_JOBS);
	gen_defaults(&o);
	CU_ASSERT_EQUAL_FATAL(gen_set(&o, "jobs", jobs, &err), 0);
	CU_ASSERT_EQUAL_FATAL(gen_set(&o, "infer-frac", infer_frac, &err), 0);
	CU_ASSERT_EQUAL_FATAL(gen_set(&o, "infer-rate-median", "1", &err), 0);
	CU_ASSERT_EQUAL_FATAL(gen_set(&o, "infer-duration-s", "600", &err),
			      0);
	fp = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
	rc = gen_write(fp, &o, &err);
	fclose(fp);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return path;
}

static void test_records_follow_active_jobs(void)
{
	struct tw_world t;
	struct mem_probe p;
	struct world_config cfg = tw_config(pol_find("exclusive"));
	const char *path = gen_trace("mem-train.csv", "0");
	size_t i;
	int j, retired = 0;

	memset(&p, 0, sizeof p);
	cfg.on_pass = probe;
	cfg.pass_ctx = &p;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	CU_ASSERT_EQUAL(world_njobs(t.w), MEM_JOBS);
	CU_ASSERT(p.passes > MEM_JOBS);
	/* a few dozen run at once; every record beyond them is a job that
	** finished at this instant (released after the pass) */
	CU_ASSERT(p.max_live > 5 && p.max_live < MEM_JOBS / 10);
	CU_ASSERT(p.max_excess >= 1 && p.max_excess <= 8);
	CU_ASSERT(world_peak_records(t.w) <= p.max_live + p.max_excess);
	/* the last jobs ended with the run, no pass after them */
	CU_ASSERT(world_live_records(t.w) <= 8);
	CU_ASSERT(p.seen_retired > 0 && p.seen_released > 0);
	CU_ASSERT_EQUAL(p.bad_view, 0);
	/* job 0 ended long before the end: retired, its policy state gone */
	CU_ASSERT_PTR_NULL(pol_job_priv(t.w, 0));
	CU_ASSERT(pol_job_state(t.w, 0) == POL_JOB_DONE ||
		  pol_job_state(t.w, 0) == POL_JOB_FAILED);
	/* ids and models interned: tens of bytes a job, not a record */
	CU_ASSERT(world_interned_bytes(t.w) < (size_t)MEM_JOBS * 64);
	/* a world with result rows keeps every retired job's row */
	CU_ASSERT(world_job_table_bytes(t.w) > (size_t)MEM_JOBS * 64);
	/* every job has its row, and a retired one's copy agrees with it */
	CU_ASSERT_EQUAL_FATAL(t.res.njobs, (size_t)MEM_JOBS);
	for (i = 0; i < t.res.njobs; i++) {
		const struct res_job *r = &t.res.jobs[i];
		const struct world_job *wj = world_job(t.w, (int)i);
		CU_ASSERT_PTR_NOT_NULL_FATAL(wj);
		CU_ASSERT_STRING_EQUAL(r->id, wj->tj.id);
		CU_ASSERT_STRING_EQUAL(r->model, wj->tj.model);
		CU_ASSERT_STRING_EQUAL(r->kind, "train");
		CU_ASSERT(r->status == (wj->state == JOB_DONE ? 0 : 1));
		CU_ASSERT(r->end_s == sim_time_to_s(wj->end_ns));
		CU_ASSERT(r->submit_s == sim_time_to_s(wj->submit_ns));
		if (r->status == 0) {
			CU_ASSERT(r->jct_s > 0 && r->slowdown >= 1 - 1e-9);
			CU_ASSERT(r->first_gpu >= 0 && r->first_gpu < 1000);
		} else {
			CU_ASSERT(wj->fail_reason[0] != '\0');
		}
		retired += wj->idx == (int)i && wj->nplaced == 0;
	}
	CU_ASSERT_EQUAL(retired, MEM_JOBS);
	/* the world's actions refuse a retired job */
	for (j = 0; j < MEM_JOBS; j++)
		if (world_job(t.w, j)->state == JOB_DONE)
			break;
	CU_ASSERT(j < MEM_JOBS);
	{
		struct sim_err e = { 0, "" };
		int g = 0;
		CU_ASSERT_EQUAL(world_place(t.w, j, &g, 1, NULL, &e),
				SIM_ESTATE);
		CU_ASSERT(strstr(e.msg, "done") != NULL);
		CU_ASSERT_EQUAL(world_preempt(t.w, j, &e), SIM_ESTATE);
	}
	tw_close(&t);
}

/* metrics_only (what replay asks for): the same metrics, no job rows or
** placements held. */
static void test_metrics_only(void)
{
	struct tw_world a, b;
	struct world_config cfg = tw_config(pol_find("exclusive"));
	const char *path = gen_trace("mem-mo.csv", "0.3");
	size_t i;

	CU_ASSERT_EQUAL_FATAL(tw_simulate(&a, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	cfg.metrics_only = 1;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&b, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	CU_ASSERT(a.res.njobs == MEM_JOBS && a.res.nplace >= MEM_JOBS / 2);
	CU_ASSERT(b.res.njobs == 0 && b.res.nplace == 0);
	CU_ASSERT_EQUAL_FATAL(a.res.nmetrics, b.res.nmetrics);
	for (i = 0; i < a.res.nmetrics; i++) {
		double x = a.res.metrics[i].value, y = b.res.metrics[i].value;
		CU_ASSERT_STRING_EQUAL(a.res.metrics[i].name,
				       b.res.metrics[i].name);
		CU_ASSERT(x == y || (isnan(x) && isnan(y)));
	}
	CU_ASSERT(a.res.nlat > 0 && a.res.nlat == b.res.nlat);
	tw_close(&a);
	tw_close(&b);
}

/* A service that finished gives its latency values back: its row and its
** window still report the latencies of what it served (one sample, never
** reset under exclusive, so the two p99s are the same number). */
static void test_done_service_keeps_latency(void)
{
	struct tw_world t;
	struct world_svc_window wn;
	struct sim_err e = { 0, "" };
	int j;

	CU_ASSERT_EQUAL_FATAL(tw_go(&t, "mem-svc.csv",
		"s1,infer,0,resnet50,8,,20,,,,1,,,,100,poisson,20,,2\n"
		"t1,train,0,resnet50,32,,600,,,,1,,,,,,,,\n",
		pol_find("exclusive"), "1x2:a100-80gb", NULL), 0);
	j = tw_find(&t, "s1");
	CU_ASSERT_FATAL(j >= 0);
	CU_ASSERT_EQUAL(world_job(t.w, j)->state, JOB_DONE);
	CU_ASSERT_EQUAL_FATAL(world_svc_window(t.w, j, &wn, &e), 0);
	CU_ASSERT(wn.served > 100 && wn.served == tw_job(&t.res, "s1")->
		  req_served);
	CU_ASSERT(wn.lat_p99_ms > 0 && wn.lat_mean_ms > 0);
	CU_ASSERT(wn.lat_p99_ms == tw_job(&t.res, "s1")->lat_p99_ms);
	CU_ASSERT(tw_job(&t.res, "s1")->lat_p50_ms > 0 &&
		  tw_job(&t.res, "s1")->lat_p50_ms <=
		  tw_job(&t.res, "s1")->lat_p95_ms);
	/* a reset empties it as for a live service */
	CU_ASSERT_EQUAL(world_svc_window_reset(t.w, j, &e), 0);
	CU_ASSERT_EQUAL_FATAL(world_svc_window(t.w, j, &wn, &e), 0);
	CU_ASSERT(wn.served == 0 && wn.lat_p99_ms == 0);
	tw_close(&t);
}

/* What the lean probe saw: records against live jobs, counted by kind. */
struct lean_probe {
	int passes, max_live, max_excess;
	int bad_view, seen_released, seen_svc;
};

static int lean_probe(void *ctx, struct world *w)
{
	struct lean_probe *p = ctx;
	int live = world_live_jobs(w), rec = world_live_records(w);
	int j = pol_njobs(w) - 400;

	p->passes++;
	if (live > p->max_live)
		p->max_live = live;
	if (rec - live > p->max_excess)
		p->max_excess = rec - live;
	/* a job that arrived 400 jobs ago and is finished: released, or
	** finished at this instant */
	if (j >= 0 && (pol_job_state(w, j) == POL_JOB_DONE ||
		       pol_job_state(w, j) == POL_JOB_FAILED)) {
		struct pol_job_info o = pol_job(w, j);
		struct pol_svc_window win;
		struct sim_err e = { 0, "" };
		if (o.zModel[0] == '\0') {
			p->seen_released++;
			p->seen_svc += o.kind == POL_INFER;
			if (o.job != j || (int)o.state != pol_job_state(w, j) ||
			    (o.kind != POL_TRAIN && o.kind != POL_INFER) ||
			    o.end_ns != -1 || o.gpus != 0 ||
			    (o.kind == POL_INFER &&
			     pol_svc_window(w, j, &win, &e) != SIM_ESTATE))
				p->bad_view++;
		}
	}
	return 0;
}

/* Replay's world on a mixed trace: services are released as training
** jobs are, so the records follow the live jobs of both kinds; nothing is
** interned and the job table costs a few bytes a job; the metrics are
** those of a world with result rows. */
static void test_lean_world_bounded(void)
{
	struct tw_world a, b;
	struct lean_probe p;
	struct world_config cfg = tw_config(pol_find("exclusive"));
	const char *path = gen_trace("mem-lean.csv", "0.3");
	size_t i;

	memset(&p, 0, sizeof p);
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&a, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	cfg.metrics_only = 1;
	cfg.on_pass = lean_probe;
	cfg.pass_ctx = &p;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&b, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	CU_ASSERT(p.passes > MEM_JOBS);
	CU_ASSERT(p.max_live > 5 && p.max_live < MEM_JOBS / 10);
	CU_ASSERT(p.max_excess >= 1 && p.max_excess <= 8);
	CU_ASSERT(world_peak_records(b.w) <= p.max_live + p.max_excess);
	CU_ASSERT(world_live_records(b.w) <= 8);
	CU_ASSERT(p.seen_released > 0 && p.seen_svc > 0);
	CU_ASSERT_EQUAL(p.bad_view, 0);
	CU_ASSERT_EQUAL(world_interned_bytes(b.w), 0);
	/* three chunks of 1024: the last one's record pointers, a byte a
	** job, no rows (rows would be 136 B a job) */
	CU_ASSERT(world_job_table_bytes(b.w) < (size_t)MEM_JOBS * 8);
	CU_ASSERT(world_job_table_bytes(a.w) > (size_t)MEM_JOBS * 64);
	/* the store world keeps a released service's record for its row */
	CU_ASSERT(world_peak_records(a.w) > world_peak_records(b.w));
	CU_ASSERT_EQUAL_FATAL(a.res.nmetrics, b.res.nmetrics);
	for (i = 0; i < a.res.nmetrics; i++) {
		double x = a.res.metrics[i].value, y = b.res.metrics[i].value;
		CU_ASSERT_STRING_EQUAL(a.res.metrics[i].name,
				       b.res.metrics[i].name);
		CU_ASSERT(x == y || (isnan(x) && isnan(y)));
	}
	{
		/* a released job's copy: index, kind, state */
		const struct world_job *c = world_job(b.w, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT(c->idx == 0 && c->model == NULL &&
			  strcmp(c->tj.id, "#0") == 0);
		CU_ASSERT(c->state == JOB_DONE || c->state == JOB_FAILED);
	}
	tw_close(&a);
	tw_close(&b);
}

struct qs_probe {
	int passes;
	int max_live;                 /* live jobs at a pass, at most */
	int max_privs;                /* per-job states held, at most */
	int max_excess;               /* states - live jobs, at most */
	size_t max_bytes;             /* qs_job_bytes, at most */
	int not_qsched;               /* 1: no qs_job_bytes to read */
};

/* After each pass: the per-job states the world holds for the policy and
** qsched's own bytes, against the live jobs. */
static int qs_probe(void *ctx, struct world *w)
{
	struct qs_probe *p = ctx;
	const struct qsched *q = w->pol_state;  /* the state begins with it */
	int live = world_live_jobs(w), privs = world_live_privs(w);
	size_t b = p->not_qsched ? 0 : qs_job_bytes(q);

	p->passes++;
	if (live > p->max_live)
		p->max_live = live;
	if (privs > p->max_privs)
		p->max_privs = privs;
	if (privs - live > p->max_excess)
		p->max_excess = privs - live;
	if (b > p->max_bytes)
		p->max_bytes = b;
	return 0;
}

/* Replays path under policy in a metrics-only world with qs_probe after
** every pass (qsched: read qsched's bytes too; budget: the event budget,
** 0 for the suites' default) and checks what every per-job record
** layout must hold: many passes, a few dozen jobs live at once, their
** states there, and no more than the live jobs' and those finished at
** this instant, nor at the end.  t stays open for the caller's checks. */
static void probe_run(struct tw_world *t, struct qs_probe *p,
		      const char *policy, const char *path, int qsched,
		      uint64_t budget)
{
	struct world_config cfg = tw_config(pol_find(policy));

	memset(p, 0, sizeof *p);
	p->not_qsched = !qsched;
	if (budget != 0)
		cfg.max_events = budget;
	cfg.metrics_only = 1;
	cfg.on_pass = qs_probe;
	cfg.pass_ctx = p;
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg.policy);
	CU_ASSERT_EQUAL_FATAL(tw_simulate(t, path, "125x8:a100-80gb", &cfg,
					  NULL), 0);
	CU_ASSERT(p->passes > MEM_JOBS);
	CU_ASSERT(p->max_live > 5 && p->max_live < MEM_JOBS / 10);
	CU_ASSERT(p->max_privs >= p->max_live / 2);
	CU_ASSERT(p->max_excess <= 8);
	CU_ASSERT(world_live_privs(t->w) <= 8);
	if (p->max_excess > 8 || p->max_privs < p->max_live / 2 ||
	    world_live_privs(t->w) > 8)
		fprintf(stderr, "%s: live %d, states %d (excess %d), %d at "
			"the end (%d live)\n", policy, p->max_live,
			p->max_privs, p->max_excess, world_live_privs(t->w),
			world_live_jobs(t->w));
}

/* srtf, tiresias, themis, gandiva and muri-s (every layout of the
** per-job record: qsched's alone, with themis's, gandiva's, muri's type)
** on the 3,000-job training trace: a few dozen jobs live at once, and the
** per-job memory follows them.  The old table (80 B per job index,
** doubling from 256) held 320 KB by the end; its scratch and active order
** are bounded here by 12 B per slot of the order's capacity (256, then
** twice the most active). */
static void test_qsched_follows_live_jobs(void)
{
	static const char *const names[] = { "srtf", "tiresias", "themis",
		"gandiva", "muri-s", NULL };
	const char *path = gen_trace("mem-qs.csv", "0");
	int k;

	for (k = 0; names[k] != NULL; k++) {
		struct tw_world t;
		struct qs_probe p;
		size_t cap;

		probe_run(&t, &p, names[k], path, 1, 0);
		cap = (size_t)(p.max_live > 128 ? 2 * p.max_live : 256);
		CU_ASSERT(p.max_bytes > 0 && p.max_bytes <= cap * 12);
		if (p.max_bytes > cap * 12)
			fprintf(stderr, "%s: qsched %zu B\n", names[k],
				p.max_bytes);
		tw_close(&t);
	}
}

/* Policies not on qsched that keep their per-job state in the job's
** record: llm-harvest (share, pause, handle) on the 3,000-job mixed trace
** (services and training jobs), gavel (throughputs, times so far,
** deficits, allocation: 856 B a job), pollux (its round's counts) and
** antman (class, GPUs held) on the training one.  The states
** follow the live jobs; each kept tables per job index before (doubling),
** and no record. */
static void test_records_follow_live_jobs(void)
{
	static const char *const cases[][2] = {
		{ "llm-harvest", "0.3" }, { "gavel", "0" }, { "pollux", "0" },
		{ "antman", "0" },
	};
	size_t k;

	for (k = 0; k < sizeof cases / sizeof *cases; k++) {
		char name[32];
		struct tw_world t;
		struct qs_probe p;

		snprintf(name, sizeof name, "mem-rec%zu.csv", k);
		/* llm-harvest's timer: ~2.3e6 events, over the default */
		probe_run(&t, &p, cases[k][0], gen_trace(name, cases[k][1]),
			  0, 8000000);
		tw_close(&t);
	}
}

TEST_REGISTER(memory)
{
	static const struct test_case cases[] = {
		{ "records follow the active jobs",
		  test_records_follow_active_jobs },
		{ "metrics only: same metrics, no rows", test_metrics_only },
		{ "a done service keeps its latencies",
		  test_done_service_keeps_latency },
		{ "metrics only: records and table follow the live jobs",
		  test_lean_world_bounded },
		{ "qsched's per-job state follows the live jobs",
		  test_qsched_follows_live_jobs },
		{ "llm-harvest's, gavel's, pollux's, antman's per-job state "
		  "follows the live jobs", test_records_follow_live_jobs },
		{ NULL, NULL }
	};
	return test_add_suite("memory", cases);
}
