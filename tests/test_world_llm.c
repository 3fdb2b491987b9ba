/*
** test_world_llm.c: LLM services in the world (sim/world/world_llm.c).
**
**   - on unshared GPUs a service replays exactly as `llm serve`'s
**     dedicated replicas (experiments/llm_serve.c): the same TTFT, TPOT,
**     inter-token and end-to-end samples, tokens, iterations,
**     preemptions and KV-cache use, for vllm, sarathi and orca, recompute
**     and swap, TP 1 and TP 2, round robin and least loaded;
**   - memory: kv = reserve holds vLLM's pool from placement on; dynamic
**     holds the blocks in use and gives them back; a co-located training
**     job that takes the free memory makes a dynamic replica preempt;
**     oversub pages the GPU;
**   - sharing: under timeslice a training job slows the service and the
**     service slows the training job;
**   - tensor-parallel placement refused unless each replica's GPUs share
**     a node;
**   - bad input: one message naming file, line and field for a request
**     over the context window, a TP degree no node holds, a model that
**     does not fit with its KV cache, unknown and bad settings;
**   - drawn request sizes follow their distribution and repeat by seed.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "experiments/config.h"
#include "experiments/llm_serve.h"
#include "experiments/runner.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "sim/world/world_llm.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define DEV "a100-80gb"

/* ---- requests ----------------------------------------------------------- */

/* n requests from a fixed LCG: gaps of mean gap_s, prompts 50..1550,
** outputs 10..400; the first at t = 0. */
static void make_reqs(struct llm_serve_req *q, int n, double gap_s,
		      unsigned seed)
{
	unsigned long long x = seed * 2654435761ULL + 1;
	sim_time t = 0;
	int i;

#define NEXT() (x = x * 6364136223846793005ULL + 1442695040888963407ULL, \
		(double)(x >> 11) / 9007199254740992.0)
	for (i = 0; i < n; i++) {
		if (i > 0)
			t += (sim_time)(-log(1 - NEXT()) * gap_s * 1e9) + 1;
		q[i].arrival_ns = t;
		q[i].prompt_tokens = 50 + (int)(NEXT() * 1500);
		q[i].output_tokens = 10 + (int)(NEXT() * 390);
	}
#undef NEXT
}

/* Writes q as a request file and a trace with one llm row of `replicas`
** replicas of model; returns the trace's path. */
static const char *write_llm(const char *name, const struct llm_serve_req *q,
			     int n, const char *model, int replicas)
{
	static char path[600];
	char reqs[600], row[300];
	FILE *f;
	int i;

	snprintf(reqs, sizeof reqs, "%s/%s.requests", test_tmpdir(), name);
	f = fopen(reqs, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "t_s,prompt_tokens,output_tokens\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%lld.%09lld,%d,%d\n",
			(long long)(q[i].arrival_ns / SIM_NS_PER_S),
			(long long)(q[i].arrival_ns % SIM_NS_PER_S),
			q[i].prompt_tokens, q[i].output_tokens);
	fclose(f);
	snprintf(row, sizeof row, "chat,llm,0,%s,256,,,,,,%d,,,,1000,file,,"
		 "%s.requests,\n", model, replicas, name);
	snprintf(path, sizeof path, "%s", tw_write(name, row));
	return path;
}

/* Settings "k=v,k=v" into pp (entries pv, buffer buf). */
static void llm_params(const char *s, char *buf, size_t n,
		       struct pol_param *pv, struct pol_params *pp)
{
	pp->n = tw_params(s, buf, n, pv, 16);
	pp->v = pv;
}

/* ---- the match with llm serve ------------------------------------------- */

struct match_case {
	const char *name, *model, *cluster, *settings;
	int replicas, tp;
	enum llm_sched_kind sched;
	enum llm_preempt preempt;
	enum llm_route route;
	double util;
	int n;
	double gap_s;
	int want_preempt;             /* the load must preempt */
	int unbounded;                /* kv=unbounded vs --no-paging */
};

static void check_q(const struct run_result *res, const char *pre,
		    struct sim_sample *s)
{
	char k[64];

	snprintf(k, sizeof k, "%s_mean_ms", pre);
	TEST_ASSERT_CLOSE(run_result_get(res, k), s->mean, 1e-9);
	snprintf(k, sizeof k, "%s_p50_ms", pre);
	TEST_ASSERT_CLOSE(run_result_get(res, k), sim_sample_quantile(s, 0.5),
			  1e-9);
	snprintf(k, sizeof k, "%s_p95_ms", pre);
	TEST_ASSERT_CLOSE(run_result_get(res, k), sim_sample_quantile(s, 0.95),
			  1e-9);
	snprintf(k, sizeof k, "%s_p99_ms", pre);
	TEST_ASSERT_CLOSE(run_result_get(res, k), sim_sample_quantile(s, 0.99),
			  1e-9);
}

static void run_match(const struct match_case *mc)
{
	struct llm_serve_req *q = calloc((size_t)mc->n, sizeof *q);
	struct world_config cfg = tw_config(pol_find("exclusive"));
	struct pol_param pv[16];
	struct pol_params pp;
	struct tw_world t;
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result r;
	char buf[512];
	const char *trace;

	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	make_reqs(q, mc->n, mc->gap_s, 7);
	trace = write_llm(mc->name, q, mc->n, mc->model, mc->replicas);
	llm_params(mc->settings, buf, sizeof buf, pv, &pp);
	cfg.llm = &pp;
	cfg.max_events = 0;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, trace, mc->cluster, &cfg, NULL),
			      0);
	/* the reference: the same requests on dedicated replicas */
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, llm_arch_find(mc->model),
					     dev_catalog_find(&t.cat, DEV),
					     LLM_PREC_FP16, mc->tp, NULL, NULL),
			      0);
	llm_serve_cfg_default(&c, &m, mc->sched);
	c.replicas = mc->replicas;
	c.gpu_mem_util = mc->util;
	c.route = mc->route;
	c.sched.preempt = mc->preempt;
	c.paging = !mc->unbounded;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, q, (size_t)mc->n, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.completed, (uint64_t)mc->n);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_requests_completed"),
			       (double)r.completed, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_tokens_out"),
			       (double)r.tokens_out, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_iterations"),
			       (double)r.iterations, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_preemptions"),
			       (double)r.preemptions, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_swap_outs"),
			       (double)r.swap_outs, 0);
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "llm_swapped_bytes"),
			  r.swapped_bytes, 1e-12);
	if (mc->want_preempt)
		CU_ASSERT(r.preemptions > 0);
	check_q(&t.res, "llm_ttft", &r.ttft_ms);
	check_q(&t.res, "llm_tpot", &r.tpot_ms);
	check_q(&t.res, "llm_itl", &r.itl_ms);
	check_q(&t.res, "llm_e2e", &r.e2e_ms);
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "llm_slo_both"), r.slo_both,
			  1e-12);
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "llm_out_tok_per_s"),
			  r.out_tok_per_s, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "llm_kv_util_mean"),
			  r.kv_util_mean, 1e-9);
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "llm_kv_util_peak"),
			  r.kv_util_peak, 1e-12);
	/* the service ended with its last token */
	TEST_ASSERT_CLOSE(run_result_get(&t.res, "makespan_s"),
			  sim_time_to_s(r.end_ns), 1e-12);
	llm_serve_result_fini(&r);
	tw_close(&t);
	free(q);
}

static void test_match(void)
{
	static const struct match_case cases[] = {
		{ "m_vllm", "llama-2-7b", "1x2:" DEV,
		  "gpu_memory_utilization=0.25,route=rr", 2, 1, LLM_SCHED_VLLM,
		  LLM_PREEMPT_RECOMPUTE, LLM_ROUTE_RR, 0.25, 600, 0.05, 1, 0 },
		{ "m_sarathi", "llama-2-7b", "1x1:" DEV,
		  "sched=sarathi,preempt=swap,gpu_memory_utilization=0.25", 1,
		  1, LLM_SCHED_SARATHI, LLM_PREEMPT_SWAP, LLM_ROUTE_LEAST, 0.25,
		  400, 0.1, 1, 0 },
		{ "m_orca", "llama-3-8b", "1x2:" DEV,
		  "sched=orca,gpu_memory_utilization=0.3", 2, 1,
		  LLM_SCHED_ORCA, LLM_PREEMPT_RECOMPUTE, LLM_ROUTE_LEAST, 0.3,
		  400, 0.05, 0, 0 },
		{ "m_tp2", "llama-2-13b", "1x4:" DEV, "tp=2", 2, 2,
		  LLM_SCHED_VLLM, LLM_PREEMPT_RECOMPUTE, LLM_ROUTE_LEAST, 0.9,
		  300, 0.05, 0, 0 },
		{ "m_unb", "llama-2-7b", "1x1:" DEV,
		  "kv=unbounded,gpu_memory_utilization=0.25", 1, 1,
		  LLM_SCHED_VLLM, LLM_PREEMPT_RECOMPUTE, LLM_ROUTE_LEAST, 0.25,
		  400, 0.05, 0, 1 },
	};
	size_t k;

	for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
		run_match(&cases[k]);
}

/* ---- memory --------------------------------------------------------------- */

/* One service of 200 requests on one GPU under `settings`; the GPU's
** memory after placement and at the end, the run's metrics. */
static void mem_run(const char *name, const char *settings, const char *extra,
		    const char *policy, struct tw_world *t)
{
	struct llm_serve_req q[200];
	struct world_config cfg = tw_config(pol_find(policy));
	static struct pol_param pv[16];
	static struct pol_params pp;
	static char buf[512];
	char body[2048], path[600];
	const char *trace;
	FILE *f;

	make_reqs(q, 200, 0.2, 3);
	trace = write_llm(name, q, 200, "llama-2-7b", 1);
	snprintf(path, sizeof path, "%s", trace);
	if (extra != NULL) {      /* append rows after the llm row */
		f = fopen(path, "a");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		snprintf(body, sizeof body, "%s", extra);
		fputs(body, f);
		fclose(f);
	}
	llm_params(settings, buf, sizeof buf, pv, &pp);
	cfg.llm = &pp;
	cfg.max_events = 0;
	CU_ASSERT_EQUAL_FATAL(tw_open(t, path, "1x1:" DEV, &cfg, NULL), 0);
}

static void test_memory(void)
{
	struct tw_world t;
	struct llm_model m;
	struct llm_mem mem;
	uint64_t base, total;
	double hbm_reserve, jct_dyn;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&t.cat, "models/devices", NULL),
			      0);
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, llm_arch_find("llama-2-7b"),
					     dev_catalog_find(&t.cat, DEV),
					     LLM_PREC_FP16, 1, NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(llm_memory(&m, 0.9, 16, 4096, 256, &mem, NULL),
			      0);
	dev_catalog_fini(&t.cat);
	base = mem.total_bytes - mem.kv_bytes;
	total = mem.total_bytes;

	/* reserve: vLLM's whole pool from the placement on */
	mem_run("mem_res", "kv=reserve", NULL, "exclusive", &t);
	tw_until(&t, 0);
	CU_ASSERT_EQUAL(world_gpu(t.w, 0)->mem_used, total);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT_EQUAL(world_gpu(t.w, 0)->mem_peak_bytes, total);
	hbm_reserve = run_result_get(&t.res, "hbm_util_mean");
	tw_close(&t);

	/* dynamic: the blocks in use, given back at the end */
	mem_run("mem_dyn", "kv=dynamic", NULL, "exclusive", &t);
	tw_until(&t, 0);
	CU_ASSERT(world_gpu(t.w, 0)->mem_used > base);
	CU_ASSERT(world_gpu(t.w, 0)->mem_used < base + (total - base) / 10);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT(world_gpu(t.w, 0)->mem_peak_bytes > base);
	CU_ASSERT(world_gpu(t.w, 0)->mem_peak_bytes < total);
	CU_ASSERT(run_result_get(&t.res, "hbm_util_mean") < hbm_reserve);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_preemptions"), 0,
			       0);
	tw_close(&t);

	/* dynamic beside a training job that takes the free memory at 0.5 s:
	** the replica's pool is capped at what is left, and it preempts */
	mem_run("mem_dyn2", "kv=dynamic",
		"T,train,0.5,resnet50,32,,30,,,,1,,62000,,,,,,\n",
		"timeslice", &t);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT(run_result_get(&t.res, "llm_preemptions") > 0);
	CU_ASSERT(world_gpu(t.w, 0)->mem_peak_bytes <=
		  world_gpu(t.w, 0)->dev->hbm_bytes);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_requests_completed"),
			       200, 0);
	jct_dyn = tw_end_s(&t, "T");
	tw_close(&t);

	/* oversub: the same, grown past capacity: the GPU pages (memory
	** above capacity) and the training job pays for it */
	mem_run("mem_over", "kv=oversub",
		"T,train,0.5,resnet50,32,,30,,,,1,,62000,,,,,,\n",
		"timeslice", &t);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT(world_gpu(t.w, 0)->mem_peak_bytes >
		  world_gpu(t.w, 0)->dev->hbm_bytes);
	CU_ASSERT(tw_end_s(&t, "T") > jct_dyn);
	if (getenv("TEST_VERBOSE") && *getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  train end: dynamic %g s, oversub %g s; "
			"preemptions %g\n", jct_dyn, tw_end_s(&t, "T"),
			run_result_get(&t.res, "llm_preemptions"));
	tw_close(&t);
}

/* ---- sharing ------------------------------------------------------------- */

static void test_timeslice_slows_both(void)
{
	struct tw_world t;
	double tpot_alone, tpot_shared, jct_alone, jct_shared;

	mem_run("ts_alone", "gpu_memory_utilization=0.5", NULL, "timeslice", &t);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&t), 0);
	tpot_alone = run_result_get(&t.res, "llm_tpot_mean_ms");
	tw_close(&t);
	CU_ASSERT_EQUAL_FATAL(tw_go(&t, "ts_train.csv",
				    "T,train,0,resnet50,32,,20,,,,1,,20000,,,,"
				    ",,\n", pol_find("timeslice"), "1x1:" DEV,
				    NULL), 0);
	jct_alone = tw_end_s(&t, "T");
	tw_close(&t);
	mem_run("ts_shared", "gpu_memory_utilization=0.5",
		"T,train,0,resnet50,32,,20,,,,1,,20000,,,,,,\n", "timeslice",
		&t);
	CU_ASSERT_EQUAL_FATAL(tw_finish(&t), 0);
	tpot_shared = run_result_get(&t.res, "llm_tpot_mean_ms");
	jct_shared = tw_end_s(&t, "T");
	tw_close(&t);
	/* two busy tenants time-slice: each runs at most half speed while
	** both are busy */
	CU_ASSERT(tpot_shared > 1.5 * tpot_alone);
	CU_ASSERT(jct_shared > jct_alone + 1);
}

/* ---- tensor-parallel placement -------------------------------------------- */

static int idle_schedule(struct world *w, void *state)
{
	(void)w;
	(void)state;
	return 0;
}

static const struct pol_ops idle_ops = {
	.iVersion = 2, .zName = "idle", .zDesc = "places nothing",
	.xSchedule = idle_schedule,
};

static void test_tp_groups(void)
{
	struct llm_serve_req q[4];
	struct world_config cfg = tw_config(&idle_ops);
	struct pol_param pv[16];
	struct pol_params pp;
	struct sim_err err;
	struct tw_world t;
	char buf[128];
	const char *trace;
	static const int split[4] = { 0, 1, 2, 3 }, ok[4] = { 4, 0, 3, 1 };
	int j;

	make_reqs(q, 4, 0.1, 5);
	trace = write_llm("tp", q, 4, "llama-2-7b", 2);
	llm_params("tp=2", buf, sizeof buf, pv, &pp);
	cfg.llm = &pp;
	CU_ASSERT_EQUAL_FATAL(tw_open(&t, trace, "2x3:" DEV, &cfg, NULL), 0);
	tw_until(&t, 0);
	j = tw_find(&t, "chat");
	CU_ASSERT_FATAL(j >= 0);
	/* the policies see replicas x tp GPUs */
	CU_ASSERT_EQUAL(pol_job(t.w, j).gpus, 4);
	CU_ASSERT_EQUAL(pol_job(t.w, j).kind, POL_LLM);
	sim_err_clear(&err);
	/* node 0 holds GPUs 0-2: {0, 1, 2, 3} leaves GPU 2 and GPU 3 alone */
	CU_ASSERT_EQUAL(world_place(t.w, j, split, 4, NULL, &err), SIM_ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "groups of 2 on one node"));
	CU_ASSERT_EQUAL(world_job(t.w, j)->state, JOB_PENDING);
	CU_ASSERT_EQUAL(world_place(t.w, j, ok, 4, NULL, &err), 0);
	CU_ASSERT_EQUAL(tw_finish(&t), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_requests_completed"),
			       4, 0);
	tw_close(&t);
}

/* ---- routing through the policy hook -------------------------------------- */

static int last_schedule(struct world *w, void *state)
{
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j, gpus[2] = { 0, 1 };

	(void)state;
	while ((j = pol_pending_next(w, &it)) >= 0)
		if (pol_place(w, j, gpus, pol_job(w, j).gpus, NULL, NULL) < 0)
			return SIM_EINVAL;
	return 0;
}

/* Every request to the last replica. */
static int last_route(struct world *w, void *state, int j, int *replica)
{
	(void)state;
	*replica = pol_job(w, j).nplaced - 1;
	return 0;
}

static const struct pol_ops last_ops = {
	.iVersion = 2, .zName = "last", .zDesc = "routes to the last replica",
	.xSchedule = last_schedule, .xOnRequest = last_route,
};

static void test_policy_routes(void)
{
	struct llm_serve_req q[100];
	struct world_config cfg = tw_config(&last_ops);
	struct pol_param pv[16];
	struct pol_params pp;
	struct tw_world t;
	char buf[64];

	make_reqs(q, 100, 0.05, 9);
	llm_params("route=rr", buf, sizeof buf, pv, &pp);
	cfg.llm = &pp;
	cfg.max_events = 0;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, write_llm("route", q, 100,
						       "llama-2-7b", 2),
					  "1x2:" DEV, &cfg, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_requests_completed"),
			       100, 0);
	/* GPU 0's replica never ran an iteration; GPU 1's did */
	CU_ASSERT_DOUBLE_EQUAL(world_gpu(t.w, 0)->sm.area, 0, 0);
	CU_ASSERT(world_gpu(t.w, 1)->sm.area > 0);
	tw_close(&t);
}

/* ---- bad input ---------------------------------------------------------------- */

/* Runs trace body (one llm row naming requests file reqs with text rtext)
** on cluster with settings; returns the run's error message. */
static const char *run_error(const char *name, const char *row,
			     const char *rtext, const char *cluster,
			     const char *settings)
{
	static char msg[SIM_ERR_MSG_MAX];
	struct world_config cfg = tw_config(pol_find("exclusive"));
	struct pol_param pv[16];
	struct pol_params pp;
	struct sim_err err;
	struct tw_world t;
	char buf[256], sbuf[256], path[600];
	FILE *f;
	int rc;

	snprintf(path, sizeof path, "%s/%s.requests", test_tmpdir(), name);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(rtext, f);
		fclose(f);
	}
	llm_params(settings, sbuf, sizeof sbuf, pv, &pp);
	cfg.llm = &pp;
	msg[0] = '\0';
	sim_err_clear(&err);
	snprintf(buf, sizeof buf, "%s.csv", name);
	rc = tw_open(&t, tw_write(buf, row), cluster, &cfg, NULL);
	if (rc == 0)
		rc = world_run(t.w, &err);
	else
		snprintf(err.msg, sizeof err.msg, "open failed");
	CU_ASSERT(rc != 0);
	snprintf(msg, sizeof msg, "%s", err.msg);
	if (getenv("TEST_VERBOSE") && *getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  %s: %s\n", name, msg);
	tw_close(&t);
	return msg;
}

static void test_bad_input(void)
{
	const char *m;
	struct pol_param q = { "tp", "0", "x.ini:3: [llm]" };
	struct pol_params pp = { 1, &q };
	struct sim_err err;

	/* a request over the context window: file, line, column, field */
	m = run_error("long", "chat,llm,0,llama-2-7b,256,,,,,,1,,,,1000,file,,"
		      "long.requests,\n", "t_s,prompt_tokens,output_tokens\n"
		      "0,100,10\n0.5,9000,100\n", "1x1:" DEV, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "long.requests:3:5: prompt_tokens: "
				      "9000 prompt + 100 output tokens exceed "
				      "the 4096-token context window"));
	/* a malformed count */
	m = run_error("badnum", "chat,llm,0,llama-2-7b,256,,,,,,1,,,,1000,file,"
		      ",badnum.requests,\n", "t_s,prompt_tokens,output_tokens\n"
		      "0,1x0,10\n", "1x1:" DEV, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "badnum.requests:2:3: prompt_tokens: "
				      "expected an integer"));
	/* a TP degree no node holds */
	m = run_error("tp16", "chat,llm,0,llama-2-7b,256,,,,,,1,,,,1000,file,,"
		      "tp16.requests,\n", "t_s,prompt_tokens,output_tokens\n"
		      "0,100,10\n", "2x8:" DEV, "tp=16");
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "tp16.csv:3: gpus: llm service chat: "
				      "tensor parallelism 16"));
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "largest node has 8"));
	/* a model that does not fit with its KV cache */
	m = run_error("big", "chat,llm,0,llama-2-70b,256,,,,,,1,,,,1000,file,,"
		      "big.requests,\n", "t_s,prompt_tokens,output_tokens\n"
		      "0,100,10\n", "1x2:a100-40gb", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(m, "big.csv:3: model: llm service chat: "
				      "llama-2-70b at fp16 with tensor "
				      "parallelism 1 does not fit"));
	/* settings: unknown key, bad value, bad distribution */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(world_llm_check(&pp, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.ini:3: [llm]: parameter tp "
				      "= '0': expected an integer in [1, 64]"));
	q.key = "chat.colour";
	q.value = "red";
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(world_llm_check(&pp, &err), SIM_EINVAL);
	if (getenv("TEST_VERBOSE") && *getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown LLM setting "
				      "'chat.colour'"));
	q.key = "prompt_tokens";
	q.value = "gauss:3";
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(world_llm_check(&pp, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected const:N"));
	q.key = "chat.kv";
	q.value = "dynamic";
	CU_ASSERT_EQUAL(world_llm_check(&pp, &err), 0);
}

/* ---- drawn sizes ----------------------------------------------------------- */

static void test_drawn_sizes(void)
{
	static const char row[] =
		"chat,llm,0,llama-2-7b,256,,10,,,,1,,,,1000,poisson,20,,\n";
	struct world_config cfg = tw_config(pol_find("exclusive"));
	struct pol_param pv[16];
	struct pol_params pp;
	struct tw_world t;
	char buf[256];
	double n, tok1;

	llm_params("prompt_tokens=const:200,output_tokens=uniform:5:15", buf,
		   sizeof buf, pv, &pp);
	cfg.llm = &pp;
	cfg.max_events = 0;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, tw_write("drawn.csv", row),
					  "1x1:" DEV, &cfg, NULL), 0);
	n = run_result_get(&t.res, "llm_requests_completed");
	tok1 = run_result_get(&t.res, "llm_tokens_out");
	/* 20 req/s for 10 s: about 200 requests, 10 output tokens each */
	CU_ASSERT(n > 150 && n < 250);
	CU_ASSERT(tok1 > 9 * n && tok1 < 11 * n);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_requests_total"),
			       n, 0);
	tw_close(&t);
	/* the same seed draws the same sizes */
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&t, tw_write("drawn.csv", row),
					  "1x1:" DEV, &cfg, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&t.res, "llm_tokens_out"), tok1,
			       0);
	tw_close(&t);
}

/* ---- the docs ----------------------------------------------------------------- */

/* docs/RESULTS.md's [llm] table is the settings table: one row "| `key` |
** type | range | default |" per key, as pol_param_range prints it, and
** no other row. */
static void test_docs_table(void)
{
	FILE *f = fopen("docs/RESULTS.md", "rb");
	static char doc[1 << 20];
	const struct pol_param_def *d;
	const char *sec, *end, *line;
	char row[512], range[256];
	size_t n;
	int rows = 0, defs = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(doc, 1, sizeof doc - 1, f);
	doc[n] = '\0';
	fclose(f);
	sec = strstr(doc, "\n### `[llm]`: the LLM services' settings\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
	end = strstr(sec + 1, "\n#");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	for (d = world_llm_keys; d->zKey != NULL; d++, defs++) {
		const char *hit;
		pol_param_range(d, range, sizeof range);
		snprintf(row, sizeof row, "\n| `%s` | %s | %s | %s |", d->zKey,
			 pol_ptype_name(d->eType), range, d->zDefault);
		hit = strstr(sec, row);
		if (hit == NULL || hit > end)
			fprintf(stderr, "\n  docs/RESULTS.md [llm]: no row '%s'\n",
				row + 1);
		CU_ASSERT(hit != NULL && hit < end);
	}
	for (line = sec; line != NULL && line < end;
	     line = strchr(line + 1, '\n'))
		if (strncmp(line, "\n| `", 4) == 0)
			rows++;
	CU_ASSERT_EQUAL(rows, defs);
}

/* ---- an experiment end to end ------------------------------------------- */

static long q_long(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	long v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = (long)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(h);
	return v;
}

/* [llm] and llm.KEY sweeps through the runner's forked workers into the
** store: metrics, the histograms, the KV series, the services rows. */
static void test_experiment(void)
{
	char cfgp[600], db[600], trace[600];
	struct exp_run_request req;
	struct exp_runner_opts o;
	struct exp_run_stats stats;
	struct exp_config *cfg = NULL;
	struct sim_err err;
	FILE *f;

	snprintf(trace, sizeof trace, "%s",
		 tw_write("exp_llm.csv", "chat,llm,0,llama-2-7b,64,,20,,,,1,,,"
			  ",1000,poisson,4,,\nT,train,0,resnet50,32,,10,,,,1,,"
			  "10000,,,,,,\n"));
	snprintf(cfgp, sizeof cfgp, "%s/exp_llm.ini", test_tmpdir());
	snprintf(db, sizeof db, "%s/exp_llm.db", test_tmpdir());
	remove(db);
	f = fopen(cfgp, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "[experiment]\nname = e\ntrace = %s\ncluster = 1x1:" DEV
		"\nreplications = 2\n[llm]\nkv = dynamic\nslo_tpot_ms = 20\n"
		"chat.prompt_tokens = uniform:100:300\n[sweep]\npolicy = "
		"exclusive, llm-harvest\nllm.sched = vllm, sarathi\n", trace);
	fclose(f);
	memset(&req, 0, sizeof req);
	req.config_path = cfgp;
	req.db_path = db;
	req.devices_dir = "models/devices";
	memset(&o, 0, sizeof o);
	o.jobs = 2;
	o.simulate = exp_simulate;
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(exp_run_experiment(&req, &o, &stats, NULL, 0,
						 &err), 0);
	CU_ASSERT_EQUAL(stats.done, 8);
	CU_ASSERT_EQUAL(stats.failed, 0);
	CU_ASSERT_EQUAL(q_long(db, "SELECT count(DISTINCT run_id) FROM "
			       "metrics WHERE name = 'llm_tpot_p99_ms'"), 8);
	CU_ASSERT_EQUAL(q_long(db, "SELECT count(DISTINCT run_id || name) FROM "
			       "histograms WHERE count > 0"), 16);
	CU_ASSERT(q_long(db, "SELECT count(*) FROM timeseries WHERE name = "
			 "'llm_kv_util'") > 8);
	CU_ASSERT_EQUAL(q_long(db, "SELECT count(*) FROM services s JOIN jobs "
			       "j ON j.run_id = s.run_id AND j.job_id = "
			       "s.job_id WHERE j.kind = 'llm' AND "
			       "s.requests_served > 0"), 8);
	CU_ASSERT_EQUAL(q_long(db, "SELECT count(*) FROM run_params WHERE "
			       "kind = 'sweep' AND key = 'llm.sched'"), 8);
	/* the swept scheduler changes the results */
	CU_ASSERT_EQUAL(q_long(db, "SELECT count(DISTINCT m.value) FROM metrics "
			       "m JOIN runs r ON r.id = m.run_id WHERE m.name = "
			       "'llm_iterations' AND r.policy = 'exclusive' AND "
			       "r.replication = 0"), 2);
	/* config errors name file and line */
	f = fopen(cfgp, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "[experiment]\nname = e\ntrace = %s\ncluster = 1x1:" DEV
		"\npolicy = exclusive\n[llm]\nkv = lazy\n", trace);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_config_load(&cfg, cfgp, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exp_llm.ini:7: [llm]: "
				      "parameter kv = 'lazy'"));
	f = fopen(cfgp, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "[experiment]\nname = e\ntrace = %s\ncluster = 1x1:" DEV
		"\npolicy = exclusive\n[sweep]\nllm.tp = 1, 0\n", trace);
	fclose(f);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_config_load(&cfg, cfgp, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exp_llm.ini:7: [sweep]: "
				      "parameter tp = '0'"));
	exp_config_free(cfg);
}

TEST_REGISTER(world_llm)
{
	static const struct test_case cases[] = {
		{ "matches llm serve on unshared GPUs", test_match },
		{ "KV memory: reserve, dynamic, oversub", test_memory },
		{ "timeslice slows both tenants", test_timeslice_slows_both },
		{ "tensor-parallel groups", test_tp_groups },
		{ "requests routed by the policy", test_policy_routes },
		{ "bad input, one line each", test_bad_input },
		{ "drawn request sizes", test_drawn_sizes },
		{ "an experiment: config, runner, store", test_experiment },
		{ "docs/RESULTS.md's [llm] table is the code's", test_docs_table },
		{ NULL, NULL }
	};

	return test_add_suite("world_llm", cases);
}
