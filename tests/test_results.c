/*
** test_results.c: what a world run hands the results store beyond its
** metrics (sim/world/result.h): the placement log (sim/world/world_plog.c),
** each service's own requests, latency and SLO, and arrival jitter
** (sim/world/world_jitter.c), on the reference trace traces/ref/
** mixed-small.csv (60 rows, training jobs and services).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/simulate.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define TRACE "traces/ref/mixed-small.csv"
#define CLUSTER "2x8:a100-80gb"

static int run(const char *policy, uint64_t seed, double jitter_s,
	       struct run_result *res)
{
	struct exp_sim_args a = tw_sim_args(TRACE, policy, CLUSTER, seed);
	struct sim_err err = { 0, "" };
	int rc;

	a.arrival_jitter_ns = sim_time_from_s(jitter_s);
	run_result_init(res);
	rc = exp_simulate_args(&a, res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  run: %s\n", err.msg);
	return rc;
}

static int cmp_place(const void *a, const void *b)
{
	const struct res_place *x = a, *y = b;

	if (x->gpu != y->gpu)
		return (x->gpu > y->gpu) - (x->gpu < y->gpu);
	return (x->start_s > y->start_s) - (x->start_s < y->start_s);
}

/* Under exclusive every job's intervals are its run: one per GPU from
** start_s to end_s, and no GPU ever holds two tenants at once. */
static void test_placements_exclusive(void)
{
	struct run_result r;
	size_t i, j;

	CU_ASSERT_EQUAL_FATAL(run("exclusive", 1, 0, &r), 0);
	CU_ASSERT(r.nplace > 0);
	for (j = 0; j < r.njobs; j++) {
		const struct res_job *job = &r.jobs[j];
		int n = 0, lowest = 1 << 30;
		for (i = 0; i < r.nplace; i++) {
			const struct res_place *p = &r.place[i];
			if (p->job != (int)j)
				continue;
			n++;
			if (p->gpu < lowest)
				lowest = p->gpu;
			CU_ASSERT_DOUBLE_EQUAL(p->start_s, job->start_s, 1e-9);
			CU_ASSERT(job->status != 0 ||
				  fabs(p->end_s - job->end_s) <= 1e-9);
			CU_ASSERT(p->end_s < 0 || p->end_s >= p->start_s);
			CU_ASSERT(p->mem_bytes > 0);
			CU_ASSERT_EQUAL(p->slice, -1);
		}
		CU_ASSERT_EQUAL(n, job->start_s >= 0 ? job->gpus : 0);
		if (n > 0)
			CU_ASSERT_EQUAL(lowest, job->first_gpu);
	}
	qsort(r.place, r.nplace, sizeof *r.place, cmp_place);
	for (i = 1; i < r.nplace; i++)
		if (r.place[i].gpu == r.place[i - 1].gpu)
			CU_ASSERT(r.place[i - 1].end_s >= 0 &&
				  r.place[i].start_s >= r.place[i - 1].end_s -
				  1e-9);
	run_result_fini(&r);
}

/* Co-location shows in the log as overlapping intervals on one GPU. */
static void test_placements_colocated(void)
{
	struct run_result r;
	size_t i;
	int overlaps = 0;

	CU_ASSERT_EQUAL_FATAL(run("timeslice", 1, 0, &r), 0);
	qsort(r.place, r.nplace, sizeof *r.place, cmp_place);
	for (i = 1; i < r.nplace; i++)
		overlaps += r.place[i].gpu == r.place[i - 1].gpu &&
			(r.place[i - 1].end_s < 0 ||
			 r.place[i].start_s < r.place[i - 1].end_s - 1e-9);
	CU_ASSERT(overlaps > 0);
	for (i = 0; i < r.nplace; i++)
		CU_ASSERT(r.place[i].job >= 0 &&
			  (size_t)r.place[i].job < r.njobs);
	run_result_fini(&r);
}

/* The services' own counts add up to the run's. */
static void test_service_results(void)
{
	struct run_result r;
	double total = 0, served = 0, ok = 0;
	size_t j;
	int nsvc = 0;

	CU_ASSERT_EQUAL_FATAL(run("mps", 1, 0, &r), 0);
	for (j = 0; j < r.njobs; j++) {
		const struct res_job *job = &r.jobs[j];
		if (strcmp(job->kind, "infer") != 0) {
			CU_ASSERT_EQUAL(job->req_total, 0);
			CU_ASSERT(isnan(job->lat_p99_ms));
			continue;
		}
		nsvc++;
		total += (double)job->req_total;
		served += (double)job->req_served;
		ok += (double)job->req_slo_ok;
		CU_ASSERT(job->req_slo_ok <= job->req_served &&
			  job->req_served <= job->req_total);
		CU_ASSERT(job->slo_ms > 0);
		/* quantiles in order, up to the last bit of an interpolation
		** between equal order statistics */
		CU_ASSERT(job->req_served > 0 ?
			  job->lat_p50_ms <= job->lat_p95_ms * (1 + 1e-12) &&
			  job->lat_p95_ms <= job->lat_p99_ms * (1 + 1e-12) &&
			  job->lat_mean_ms > 0 : isnan(job->lat_p50_ms));
	}
	CU_ASSERT(nsvc > 0);
	CU_ASSERT_DOUBLE_EQUAL(total, run_result_get(&r, "requests_total"), 0);
	CU_ASSERT_DOUBLE_EQUAL(served, run_result_get(&r, "requests_served"),
			       0);
	TEST_ASSERT_CLOSE(ok / total, run_result_get(&r, "slo_attainment"),
			  1e-12);
	run_result_fini(&r);
}

/* Jitter J: each row later by [0, J], the trace's order kept, the same
** draws for every policy of a seed and other draws for another seed. */
static void test_arrival_jitter(void)
{
	struct run_result base, a, b, c;
	size_t j;
	int moved = 0, differ = 0;

	CU_ASSERT_EQUAL_FATAL(run("exclusive", 1, 0, &base), 0);
	CU_ASSERT_EQUAL_FATAL(run("exclusive", 1, 60, &a), 0);
	CU_ASSERT_EQUAL_FATAL(run("colti", 1, 60, &b), 0);
	CU_ASSERT_EQUAL_FATAL(run("exclusive", 2, 60, &c), 0);
	CU_ASSERT_EQUAL_FATAL(a.njobs, base.njobs);
	CU_ASSERT_EQUAL_FATAL(b.njobs, base.njobs);
	CU_ASSERT_EQUAL_FATAL(c.njobs, base.njobs);
	for (j = 0; j < base.njobs; j++) {
		double d = a.jobs[j].submit_s - base.jobs[j].submit_s;
		CU_ASSERT_STRING_EQUAL(a.jobs[j].id, base.jobs[j].id);
		CU_ASSERT(d >= 0 && d <= 60 + 1e-9);
		moved += d > 0;
		if (j > 0)
			CU_ASSERT(a.jobs[j].submit_s >= a.jobs[j - 1].submit_s);
		/* common random numbers across policies */
		CU_ASSERT_DOUBLE_EQUAL(b.jobs[j].submit_s, a.jobs[j].submit_s,
				       0);
		differ += c.jobs[j].submit_s != a.jobs[j].submit_s;
	}
	CU_ASSERT(moved > (int)base.njobs / 2);
	CU_ASSERT(differ > (int)base.njobs / 2);
	CU_ASSERT(run_result_get(&a, "makespan_s") !=
		  run_result_get(&base, "makespan_s"));
	run_result_fini(&base);
	run_result_fini(&a);
	run_result_fini(&b);
	run_result_fini(&c);
}

TEST_REGISTER(results)
{
	static const struct test_case cases[] = {
		{"placement log under exclusive", test_placements_exclusive},
		{"co-located intervals overlap", test_placements_colocated},
		{"per-service requests add up", test_service_results},
		{"arrival jitter", test_arrival_jitter},
		{NULL, NULL}
	};
	return test_add_suite("results", cases);
}
