/*
** test_memory.c: the world's memory follows the jobs active at once, not
** the trace (docs/PERFORMANCE.md, "Memory bounded by the active set").  A
** generated training trace of a few thousand jobs, on a cluster where a
** few dozen run at once, is replayed with a probe after every scheduling
** pass: the job records held never exceed the live jobs by more than the
** jobs that finished at that instant, so a regression that keeps finished
** jobs' records (or stops releasing them) fails here without timing
** anything.  The retired jobs' result rows, policy view and world_job
** copies keep what the live records said; a done service's window and
** row keep their latencies after its samples are given back.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policies/policy.h"
#include "sim/time.h"
#include "tests/util.h"
#include "tests/world_util.h"
#include "traces/gen.h"

#define MEM_JOBS 3000

struct mem_probe {
	int passes;
	int max_live;                 /* live jobs at a pass, at most */
	int max_excess;               /* records - live jobs, at most */
	int bad_view;                 /* retired jobs the view got wrong */
	int seen_retired;
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
		p->seen_retired++;
		if ((int)o.state != st || o.job != j || o.zModel == NULL ||
		    o.submit_ns < 0 || o.end_ns < o.submit_ns ||
		    o.nplaced != 0)
			p->bad_view++;
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
	CU_ASSERT(p.seen_retired > 0);
	CU_ASSERT_EQUAL(p.bad_view, 0);
	/* job 0 ended long before the end: retired, its policy state gone */
	CU_ASSERT_PTR_NULL(pol_job_priv(t.w, 0));
	CU_ASSERT(pol_job_state(t.w, 0) == POL_JOB_DONE ||
		  pol_job_state(t.w, 0) == POL_JOB_FAILED);
	/* ids and models interned: tens of bytes a job, not a record */
	CU_ASSERT(world_interned_bytes(t.w) < (size_t)MEM_JOBS * 64);
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

TEST_REGISTER(memory)
{
	static const struct test_case cases[] = {
		{ "records follow the active jobs",
		  test_records_follow_active_jobs },
		{ "metrics only: same metrics, no rows", test_metrics_only },
		{ "a done service keeps its latencies",
		  test_done_service_keeps_latency },
		{ NULL, NULL }
	};
	return test_add_suite("memory", cases);
}
