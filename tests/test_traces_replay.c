/*
** test_traces_replay.c: imported public traces replay to completion
** (issue 9, item 6; docs/TRACES.md), and the world's bound on queued
** requests.
**
** Each case imports a small slice of one real trace in ../shared/traces
** (skipped, with a message, when that folder is absent) through the same
** importer as `colosim import`, then replays it under exclusive and
** timeslice and checks the run's accounting: every job ends (done or
** failed, none left unfinished), every request is served or counted as
** unserved, and, where the slice fits its cluster, nothing fails and every
** request is served.  Slices are sampled so the suite stays well under a
** second on one core.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/simulate.h"
#include "tests/util.h"
#include "tests/world_util.h"
#include "traces/import.h"

static const char *const policies[] = { "exclusive", "timeslice" };

/* Full path of a shared trace file into buf; 0 (with a message) when the
** shared folder or the file is absent. */
static int shared(char *buf, size_t n, const char *rel)
{
	const char *dir = test_shared_traces();
	FILE *f;

	if (dir == NULL) {
		test_skip_trace(rel);
		return 0;
	}
	snprintf(buf, n, "%s/%s", dir, rel);
	f = fopen(buf, "r");
	if (f == NULL) {
		test_skip_trace(rel);
		return 0;
	}
	fclose(f);
	return 1;
}

/* Imports inputs with opts into the test folder as name; returns the
** number of jobs written, or -1 after a failed assertion. */
static long import(const char *format, const char *const *inputs, int n,
		   const struct imp_opts *o, const char *name, char *out,
		   size_t outn)
{
	const struct imp_format *fmt = imp_find(format);
	struct imp_stats st;
	struct sim_err err = { 0, "" };
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(fmt);
	snprintf(out, outn, "%s/%s", test_tmpdir(), name);
	rc = imp_run(fmt, inputs, n, out, NULL, o, &st, &err);
	if (rc != 0)
		fprintf(stderr, "\n  import %s: %s\n", format, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT(st.jobs_written > 0);
	return st.jobs_written;
}

/* Replays trace under policy on cluster and checks the accounting; fits:
** nothing may fail and every request must be served.  Returns the jobs
** that failed. */
static double replay(const char *trace, const char *policy,
		     const char *cluster, long njobs, int fits)
{
	struct run_result res;
	struct sim_err err = { 0, "" };
	double total, done, failed, req, served, unserved;
	int rc;

	run_result_init(&res);
	rc = tw_run(trace, policy, cluster, 1, NULL, &res, &err);
	if (rc != 0)
		fprintf(stderr, "\n  replay %s under %s: %s\n", trace, policy,
			err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	total = run_result_get(&res, "jobs_total");
	done = run_result_get(&res, "jobs_done");
	failed = run_result_get(&res, "jobs_failed");
	req = run_result_get(&res, "requests_total");
	served = run_result_get(&res, "requests_served");
	unserved = run_result_get(&res, "requests_unserved");
	CU_ASSERT_EQUAL(total, (double)njobs);
	CU_ASSERT_EQUAL(run_result_get(&res, "jobs_unfinished"), 0);
	CU_ASSERT_EQUAL(done + failed, total);
	CU_ASSERT_EQUAL(served + unserved, req);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_rejected"), 0);
	if (fits) {
		CU_ASSERT_EQUAL(failed, 0);
		CU_ASSERT_EQUAL(unserved, 0);
	}
	run_result_fini(&res);
	return failed;
}

static void replay_both(const char *trace, const char *cluster, long njobs,
			int fits)
{
	size_t k;

	for (k = 0; k < sizeof policies / sizeof *policies; k++)
		replay(trace, policies[k], cluster, njobs, fits);
}

/* ---- one slice per trace ----------------------------------------------- */

/* 3% of the openb pods; a 32-GPU cluster, far smaller than the trace's
** 6,212 GPUs, so pods queue: every one still ends. */
static void test_alibaba_v2023(void)
{
	char pods[512], nodes[512], out[512];
	const char *in[2] = { pods, nodes };
	struct imp_opts o;
	long n;

	if (!shared(pods, sizeof pods,
		    "alibaba-gpu-v2023/openb_pod_list_default.csv") ||
	    !shared(nodes, sizeof nodes,
		    "alibaba-gpu-v2023/openb_node_list_gpu_node.csv"))
		return;
	imp_opts_init(&o);
	o.sample = 0.03;
	n = import("alibaba-v2023", in, 2, &o, "r-ali23.csv", out, sizeof out);
	replay_both(out, "4x8:a100-40gb", n, 1);
}

/* 1% of the DLRM instances at 1e-4 requests/s each (a few hundred
** requests per instance over lifetimes of up to 31 days). */
static void test_alibaba_v2025(void)
{
	char in0[512], out[512];
	const char *in[1] = { in0 };
	struct imp_opts o;
	long n;

	if (!shared(in0, sizeof in0,
		    "alibaba-gpu-v2025/disaggregated_DLRM_trace.csv"))
		return;
	imp_opts_init(&o);
	o.sample = 0.01;
	o.rate_per_s = 1e-4;
	n = import("alibaba-v2025", in, 1, &o, "r-ali25.csv", out, sizeof out);
	replay_both(out, "8x8:a100-40gb", n, 1);
}

/* 2% of the Stable Diffusion requests, one replica. */
static void test_genai_v2026(void)
{
	char in0[512], out[512];
	const char *in[1] = { in0 };
	struct imp_opts o;
	long n;

	if (!shared(in0, sizeof in0,
		    "alibaba-genai-v2026/lora_request_trace.csv"))
		return;
	imp_opts_init(&o);
	o.sample = 0.02;
	n = import("alibaba-genai-v2026", in, 1, &o, "r-genai.csv", out,
		   sizeof out);
	CU_ASSERT_EQUAL(n, 1);
	replay_both(out, "1x1:a100-40gb", n, 1);
}

/* 2% of both Azure LLM request files: two services on two GPUs. */
static void test_azure_llm_2023(void)
{
	char code[512], conv[512], out[512];
	const char *in[2] = { code, conv };
	struct imp_opts o;
	long n;

	if (!shared(code, sizeof code,
		    "azure-llm-2023/AzureLLMInferenceTrace_code.csv") ||
	    !shared(conv, sizeof conv,
		    "azure-llm-2023/AzureLLMInferenceTrace_conv.csv"))
		return;
	imp_opts_init(&o);
	o.sample = 0.02;
	n = import("azure-llm-2023", in, 2, &o, "r-azure.csv", out,
		   sizeof out);
	CU_ASSERT_EQUAL(n, 2);
	replay_both(out, "1x2:a100-80gb", n, 1);
}

/* The 60 Tiresias jobs on 8 GPUs (every job fits: the largest asks 8),
** then on 4 GPUs, where the ten 8-GPU jobs must fail, not wait forever. */
static void test_tiresias(void)
{
	char in0[512], out[512];
	const char *in[1] = { in0 };
	struct imp_opts o;
	size_t k;
	long n;

	if (!shared(in0, sizeof in0, "tiresias/60_job.csv"))
		return;
	imp_opts_init(&o);
	n = import("tiresias", in, 1, &o, "r-tir.csv", out, sizeof out);
	CU_ASSERT_EQUAL(n, 60);
	replay_both(out, "2x4:v100-16gb", n, 1);
	for (k = 0; k < sizeof policies / sizeof *policies; k++)
		CU_ASSERT_EQUAL(replay(out, policies[k], "1x4:v100-16gb", n, 0),
				10);
}

/* ---- the bound on queued requests (no shared data) --------------------- */

/* 1000 requests arrive at t = 0 at one replica of batch 1 with the world's
** bound at 10: the first starts a batch (in flight counts as queued), nine
** queue, and the other 990 find the bound reached before any batch ends,
** so they are rejected; the ten are served. */
static void test_queue_bound(void)
{
	char arr[512];
	struct exp_sim_args a;
	struct pol_params pp = { 0, NULL };
	struct run_result res;
	struct sim_err err = { 0, "" };
	const char *trace;
	FILE *f;
	int i, rc;

	snprintf(arr, sizeof arr, "%s/bound.arrivals", test_tmpdir());
	f = fopen(arr, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (i = 0; i < 1000; i++)
		fputs("0\n", f);
	fclose(f);
	trace = tw_write("bound.csv", "s,infer,0,resnet50,1,,,,,,1,,,,100,"
			 "file,,bound.arrivals,\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	a = tw_sim_args(trace, "exclusive", "1x1:a100-40gb", 1);
	a.params = &pp;
	a.max_queued_requests = 10;
	run_result_init(&res);
	rc = exp_simulate_args(&a, &res, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_total"), 1000);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_served"), 10);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_rejected"), 990);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_unserved"), 990);
	CU_ASSERT_EQUAL(run_result_get(&res, "jobs_done"), 1);
	run_result_fini(&res);

	/* The default bound (4 Mi) does not touch this run. */
	a.max_queued_requests = 0;
	run_result_init(&res);
	rc = exp_simulate_args(&a, &res, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_served"), 1000);
	CU_ASSERT_EQUAL(run_result_get(&res, "requests_rejected"), 0);
	run_result_fini(&res);
}

/* ---- scheduling passes with long queues --------------------------------- */

/* The passes skip jobs that cannot fit (more GPUs than are free, or more
** memory than any GPU has free) without scanning the GPUs; the outcome
** must be the scan's.  j0 holds one of two GPUs for 100 s; j1 (2 GPUs)
** cannot start until it ends; j2 (1 GPU) backfills at once, or, with
** backfill = 0, waits behind j1 (starts when j1 ends, 100 + 10). */
static void test_skip_keeps_order(void)
{
	static const char *const pols[] = { "exclusive", "timeslice", "mps",
					    "mig" };
	const char *trace = tw_write("skip.csv",
		"j0,train,0,resnet50,32,,100,,,,1,,50000,,,,,,\n"
		"j1,train,1,resnet50,32,,10,,,,2,,50000,,,,,,\n"
		"j2,train,2,resnet50,32,,10,,,,1,,50000,,,,,,\n");
	struct run_result res;
	struct sim_err err = { 0, "" };
	size_t k;
	int bf;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (k = 0; k < sizeof pols / sizeof *pols; k++) {
		/* 50,000 MiB per job: one job per A100-80GB (MIG: one per
		** 7g.80gb slice), so every mode queues like exclusive */
		const char *cl = "1x2:a100-80gb";
		const char *par[2] = { "backfill=1", "backfill=0" };
		char p2[64];
		for (bf = 0; bf < 2; bf++) {
			snprintf(p2, sizeof p2, "%s%s", par[bf], k == 3 ?
				 ",layout=7g.80gb" : "");
			run_result_init(&res);
			CU_ASSERT_EQUAL_FATAL(tw_run(trace, pols[k], cl, 1, p2,
						     &res, &err), 0);
			CU_ASSERT_EQUAL(run_result_get(&res, "jobs_done"), 3);
			/* under mig the 7g slice is slower than the
			** whole GPU, so times come from j0's end */
			TEST_ASSERT_CLOSE(tw_job(&res, "j1")->start_s,
					  tw_job(&res, "j0")->end_s, 1e-9);
			TEST_ASSERT_CLOSE(tw_job(&res, "j2")->start_s,
					  bf == 0 ? 2 : tw_job(&res, "j1")->end_s,
					  1e-9);
			if (k < 3)
				TEST_ASSERT_CLOSE(tw_job(&res, "j0")->end_s,
						  100, 1e-9);
			run_result_fini(&res);
		}
	}
}

/* 2,000 one-GPU jobs at t = 0 on 8 GPUs under every policy: each ends,
** and under exclusive FIFO they start in trace order, 250 waves of 10 s. */
static void test_long_queue(void)
{
	static const char *const pols[] = { "exclusive", "timeslice", "mps",
					    "mig", "colti" };
	char *body = malloc(2000 * 64), *p;
	const char *trace;
	struct run_result res;
	struct sim_err err = { 0, "" };
	size_t k;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	for (i = 0, p = body; i < 2000; i++)
		p += sprintf(p, "j%d,train,0,resnet50,32,,10,,,,1,,50000,,"
			     ",,,,\n", i);
	trace = tw_write("queue.csv", body);
	free(body);
	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (k = 0; k < sizeof pols / sizeof *pols; k++) {
		run_result_init(&res);
		CU_ASSERT_EQUAL_FATAL(tw_run(trace, pols[k], "1x8:a100-80gb",
					     1, k == 3 ? "layout=7g.80gb" :
					     NULL, &res, &err), 0);
		CU_ASSERT_EQUAL(run_result_get(&res, "jobs_done"), 2000);
		if (k == 0) {
			TEST_ASSERT_CLOSE(tw_job(&res, "j7")->start_s, 0, 1e-9);
			TEST_ASSERT_CLOSE(tw_job(&res, "j8")->start_s, 10,
					  1e-9);
			TEST_ASSERT_CLOSE(tw_job(&res, "j1999")->start_s, 2490,
					  1e-9);
		}
		run_result_fini(&res);
	}
}

TEST_REGISTER(traces_replay)
{
	static const struct test_case cases[] = {
		{ "alibaba-v2023 slice replays to completion",
		  test_alibaba_v2023 },
		{ "alibaba-v2025 slice replays to completion",
		  test_alibaba_v2025 },
		{ "alibaba-genai-v2026 slice replays to completion",
		  test_genai_v2026 },
		{ "azure-llm-2023 slice replays to completion",
		  test_azure_llm_2023 },
		{ "tiresias replays; oversized jobs fail cleanly",
		  test_tiresias },
		{ "queued requests are bounded, rejections counted",
		  test_queue_bound },
		{ "passes skip what cannot fit, order kept",
		  test_skip_keeps_order },
		{ "a 2000-job queue drains under every policy",
		  test_long_queue },
		{ NULL, NULL }
	};
	return test_add_suite("traces_replay", cases);
}
