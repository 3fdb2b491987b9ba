/*
** test_frac.c: fractional GPUs in the world (sim/world/world_frac.c,
** docs/MODEL.md "Fractional GPUs") under the share policies bestfit and
** fgd: by hand, a departure frees a share that the next arrival takes; a
** share job alone runs in its trace duration; CPU and host memory of a
** node are held and given back; a CPU-only job runs on a node under a
** share policy and fails at arrival under an older policy; the trace's
** optional columns and their errors.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/util.h"
#include "tests/world_util.h"

#define HDR TW_HEADER_NOEOL ",cpu_milli,host_mem_mib\n"
#define TW_HEADER_NOEOL "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms"

/* Two nodes of one A100-40GB, 8 CPUs and 32 GiB each. */
#define TWO_NODES "2x1:a100-40gb:cpus=8:mem_gb=32"

static const char *put(const char *name, const char *body)
{
	return test_write(name, HDR, body);
}

/* Job row: id, submit s, duration s, gpus, share, cpu milli, memory MiB. */
#define ROW(id, sub, dur, g, share, cpu, mem) \
	#id ",train," #sub ",resnet50,32,," #dur ",,,," #g "," share \
	",,,,,,,," #cpu "," #mem "\n"

/*
** A (0.6) and B (0.6) arrive at 0: each fills most of one node's GPU.  C
** (0.6, at 1 s) fits neither (0.4 free on both) and waits; A leaves at
** 10 s and frees its share, which C takes at once: C runs 10..15.  Every
** job is alone on its GPU, so it runs in exactly its duration.
*/
static void test_departure_frees_share(void)
{
	static const char *const pols[] = { "bestfit", "fgd" };
	const char *trace = put("frac-dep.csv",
				ROW(A, 0, 10, 1, "0.6", 1000, 1024)
				ROW(B, 0, 20, 1, "0.6", 1000, 1024)
				ROW(C, 1, 5, 1, "0.6", 1000, 1024));
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *a, *b, *c;
	int p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (p = 0; p < 2; p++) {
		run_result_init(&r);
		CU_ASSERT_EQUAL_FATAL(tw_run(trace, pols[p], TWO_NODES, 1, NULL,
					     &r, &err), 0);
		a = tw_job(&r, "A");
		b = tw_job(&r, "B");
		c = tw_job(&r, "C");
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 3);
		/* A and B on different nodes (GPUs 0 and 1) */
		CU_ASSERT_NOT_EQUAL(a->first_gpu, b->first_gpu);
		TEST_ASSERT_CLOSE(a->end_s, 10, 1e-6);
		TEST_ASSERT_CLOSE(b->end_s, 20, 1e-6);
		/* C waits for A's share, then takes A's GPU */
		TEST_ASSERT_CLOSE(c->start_s, 10, 1e-6);
		TEST_ASSERT_CLOSE(c->end_s, 15, 1e-6);
		CU_ASSERT_EQUAL(c->first_gpu, a->first_gpu);
		TEST_ASSERT_CLOSE(c->jct_s, 14, 1e-6);
		TEST_ASSERT_CLOSE(c->queue_s, 9, 1e-6);
		/* slowdown against the time at its share: 14 / 5 */
		TEST_ASSERT_CLOSE(c->slowdown, 14.0 / 5.0, 1e-6);
		TEST_ASSERT_CLOSE(run_result_get(&r, "makespan_s"), 20, 1e-6);
		run_result_fini(&r);
	}
}

/*
** The trace's duration is the time at the share: under mps, the same job
** with the share as its static SM cap runs longer (the model's speed at
** that cap is below 1); under a share placement it runs in 10 s.  Two
** 0.5 jobs sharing one GPU interfere as the MPS model says: no faster
** than alone.
*/
static void test_duration_at_share(void)
{
	const char *trace;
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *x, *y;

	trace = put("frac-one.csv", ROW(X, 0, 10, 1, "0.3", 0, 0));
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "bestfit", "1x1:a100-40gb", 1,
				     NULL, &r, &err), 0);
	x = tw_job(&r, "X");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	TEST_ASSERT_CLOSE(x->end_s, 10, 1e-6);
	run_result_fini(&r);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "mps", "1x1:a100-40gb", 1, NULL,
				     &r, &err), 0);
	x = tw_job(&r, "X");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT(x->end_s > 10.5);
	run_result_fini(&r);

	trace = put("frac-two.csv", ROW(X, 0, 10, 1, "0.5", 0, 0)
		    ROW(Y, 0, 10, 1, "0.5", 0, 0));
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "fgd", "1x1:a100-40gb", 1, NULL,
				     &r, &err), 0);
	x = tw_job(&r, "X");
	y = tw_job(&r, "Y");
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_EQUAL(x->first_gpu, 0);
	CU_ASSERT_EQUAL(y->first_gpu, 0);
	CU_ASSERT_DOUBLE_EQUAL(x->start_s, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(y->start_s, 0, 1e-9);   /* both at once: 0.5 + 0.5 */
	CU_ASSERT(x->end_s >= 10 - 1e-6);
	CU_ASSERT(y->end_s >= 10 - 1e-6);
	run_result_fini(&r);
}

/*
** Host resources: node 0 and 1 have 8 CPUs each.  P (6 CPUs, a 0.1 share)
** and Q (6 CPUs) cannot share a node, whatever their GPU shares; R (a
** CPU-only job of 6 CPUs) fits neither until P leaves at 10 s, then runs
** its 5 s on P's node.  Under timeslice (interface version 2) the CPU-only
** job fails at arrival.
*/
static void test_cpu_and_cpu_only(void)
{
	const char *trace = put("frac-cpu.csv",
				ROW(P, 0, 10, 1, "0.1", 6000, 1024)
				ROW(Q, 0, 30, 1, "0.1", 6000, 1024)
				ROW(R, 1, 5, 0, "", 6000, 1024));
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *p, *q, *rj;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "bestfit", TWO_NODES, 1, NULL, &r,
				     &err), 0);
	p = tw_job(&r, "P");
	q = tw_job(&r, "Q");
	rj = tw_job(&r, "R");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
	CU_ASSERT_NOT_EQUAL(p->first_gpu, q->first_gpu);
	CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 3);
	TEST_ASSERT_CLOSE(rj->start_s, 10, 1e-6);
	TEST_ASSERT_CLOSE(rj->end_s, 15, 1e-6);
	CU_ASSERT_EQUAL(rj->first_gpu, -1);     /* on a node, no GPU */
	run_result_fini(&r);

	/* without host resources in the cluster, CPU never constrains: P and
	** Q share node 0's GPU (BestFit packs), R runs at once */
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "bestfit", "2x1:a100-40gb", 1,
				     NULL, &r, &err), 0);
	p = tw_job(&r, "P");
	q = tw_job(&r, "Q");
	rj = tw_job(&r, "R");
	CU_ASSERT_EQUAL(p->first_gpu, q->first_gpu);
	TEST_ASSERT_CLOSE(rj->start_s, 1, 1e-6);
	run_result_fini(&r);

	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "timeslice", TWO_NODES, 1, NULL,
				     &r, &err), 0);
	CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 2);
	CU_ASSERT_EQUAL(run_result_get(&r, "jobs_failed"), 1);
	CU_ASSERT_EQUAL(tw_job(&r, "R")->status, 1);
	run_result_fini(&r);
}

/*
** The end of a CPU-only job frees CPU that no GPU sees change: C1 and C2
** (CPU-only, 6 CPUs) take one node each at 0 s; G (a 0.1 share, 6 CPUs,
** at 1 s) fits neither and waits; C1 ends at 10 s and G runs 10..15 on
** its node.  The policies' view must look at that node again although no
** GPU of it changed (policies/frac_view.c).
*/
static void test_cpu_only_end(void)
{
	static const char *const pols[] = { "bestfit", "fgd" };
	const char *trace = put("frac-cpuend.csv",
				ROW(C1, 0, 10, 0, "", 6000, 1024)
				ROW(C2, 0, 40, 0, "", 6000, 1024)
				ROW(G, 1, 5, 1, "0.1", 6000, 1024));
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *g;
	int p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (p = 0; p < 2; p++) {
		run_result_init(&r);
		CU_ASSERT_EQUAL_FATAL(tw_run(trace, pols[p], TWO_NODES, 1, NULL,
					     &r, &err), 0);
		g = tw_job(&r, "G");
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 3);
		TEST_ASSERT_CLOSE(g->start_s, 10, 1e-6);
		TEST_ASSERT_CLOSE(g->end_s, 15, 1e-6);
		TEST_ASSERT_CLOSE(run_result_get(&r, "makespan_s"), 40, 1e-6);
		run_result_fini(&r);
	}
}

/* nofit = fail fails what fits no node now; wait (the default) waits; a
** job too large for any empty node fails either way. */
static void test_nofit(void)
{
	const char *trace = put("frac-nofit.csv",
				ROW(A, 0, 10, 1, "0.7", 0, 0)
				ROW(B, 1, 10, 1, "0.7", 0, 0)
				ROW(H, 2, 10, 2, "1", 0, 0));
	struct run_result r;
	struct sim_err err = { 0, "" };

	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "fgd", "1x1:a100-40gb", 1, NULL,
				     &r, &err), 0);
	CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 2);
	CU_ASSERT_EQUAL(tw_job(&r, "H")->status, 1);     /* 2 GPUs: never */
	TEST_ASSERT_CLOSE(tw_job(&r, "B")->start_s, 10, 1e-6);
	run_result_fini(&r);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(trace, "fgd", "1x1:a100-40gb", 1,
				     "nofit=fail", &r, &err), 0);
	CU_ASSERT_EQUAL(run_result_get(&r, "jobs_done"), 1);
	CU_ASSERT_EQUAL(tw_job(&r, "B")->status, 1);
	run_result_fini(&r);
}

/* The optional columns: read when present, and their errors. */
static void test_trace_columns(void)
{
	struct trace_reader *tr;
	struct trace_job tj;
	struct sim_err err = { 0, "" };
	const char *p = put("frac-cols.csv", ROW(A, 0, 10, 1, "0.5", 2500,
						   4096)
			    ROW(B, 0, 10, 0, "", 1000, 0));
	char path[512];
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(trace_open(&tr, p, &err), 0);
	CU_ASSERT_EQUAL(trace_next(tr, &tj, &err), 1);
	CU_ASSERT_EQUAL(tj.cpu_milli, 2500);
	CU_ASSERT_EQUAL(tj.host_mem_mib, 4096);
	CU_ASSERT_EQUAL(trace_next(tr, &tj, &err), 1);
	CU_ASSERT_EQUAL(tj.gpus, 0);
	trace_close(tr);

	snprintf(path, sizeof path, "%s/frac-bad.csv", test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(TW_HEADER_NOEOL ",cpu_mili\n", f);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_open(&tr, path, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown column 'cpu_mili'"));

	p = put("frac-bad2.csv", "A,train,0,resnet50,32,100,,,,,0,,,,,,,,,1,1\n"
		"B,train,0,resnet50,32,,10,,,,1,0.5,,,,,,,,-5,1\n");
	CU_ASSERT_EQUAL_FATAL(trace_open(&tr, p, &err), 0);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_next(tr, &tj, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "frac-bad2.csv:3:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpus: expected an integer"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_next(tr, &tj, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cpu_milli: expected an "
				      "integer"));
	trace_close(tr);
}

TEST_REGISTER(frac)
{
	static const struct test_case cases[] = {
		{ "a departure frees a share the next arrival takes",
		  test_departure_frees_share },
		{ "a share job alone runs in its trace duration",
		  test_duration_at_share },
		{ "host CPU held and given back; CPU-only jobs",
		  test_cpu_and_cpu_only },
		{ "a CPU-only job's end frees CPU for a waiting job",
		  test_cpu_only_end },
		{ "nofit: wait or fail", test_nofit },
		{ "the trace's cpu_milli and host_mem_mib columns",
		  test_trace_columns },
		{ NULL, NULL }
	};

	return test_add_suite("frac", cases);
}
