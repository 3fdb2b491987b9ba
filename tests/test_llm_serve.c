/*
** test_llm_serve.c: a request stream on dedicated LLM replicas
** (experiments/llm_serve.h) and `colosim llm serve`: latencies worked out
** from the iteration model by hand, preemption with and without paging,
** refusals, determinism, the command's one-line errors, and the Azure
** trace end to end when ../shared is present.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "experiments/llm_serve.h"
#include "tests/util.h"

/* The A100-80GB profile of models/devices (the suite runs from the
** project root). */
static struct dev_profile dev(void)
{
	struct dev_profile d;
	struct sim_err err = { 0 };

	memset(&d, 0, sizeof d);
	CU_ASSERT_EQUAL(dev_load_file("models/devices/a100-80gb.ini", &d, &err),
			0);
	return d;
}

static void model(struct llm_model *m, const struct dev_profile *d)
{
	CU_ASSERT_EQUAL_FATAL(llm_model_init(m, llm_arch_find("llama-2-7b"), d,
					     LLM_PREC_FP16, 1, NULL, NULL), 0);
}

/* One request alone: TTFT is its prefill iteration, TPOT the decode
** iterations, end-to-end their sum. */
static void test_single(void)
{
	struct dev_profile d = dev();
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result r;
	struct llm_serve_req q = { 5 * SIM_NS_PER_MS, 100, 4 };
	struct llm_iter it;
	sim_time pre, dec[3];
	int j;

	model(&m, &d);
	llm_serve_cfg_default(&c, &m, LLM_SCHED_VLLM);
	memset(&it, 0, sizeof it);
	it.nprefill = 1;
	it.prefill_tokens = 100;
	it.prefill_pairs = 100 * 50.5;
	it.prefill_kv = 100;
	it.nsample = 1;
	pre = llm_step_ns(&m, &it);
	memset(&it, 0, sizeof it);
	it.ndecode = it.nsample = 1;
	for (j = 0; j < 3; j++) {
		it.decode_ctx = 101 + j;
		dec[j] = llm_step_ns(&m, &it);
	}
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, &q, 1, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.completed, 1);
	CU_ASSERT_EQUAL(r.tokens_out, 4);
	CU_ASSERT_EQUAL(r.iterations, 4);
	TEST_ASSERT_CLOSE(sim_sample_quantile(&r.ttft_ms, 0.5),
			  sim_time_to_ms(pre), 1e-12);
	TEST_ASSERT_CLOSE(sim_sample_quantile(&r.tpot_ms, 0.5),
			  sim_time_to_ms(dec[0] + dec[1] + dec[2]) / 3, 1e-12);
	TEST_ASSERT_CLOSE(sim_sample_quantile(&r.e2e_ms, 0.5),
			  sim_time_to_ms(pre + dec[0] + dec[1] + dec[2]), 1e-12);
	CU_ASSERT_EQUAL(r.itl_ms.n, 3);
	CU_ASSERT_EQUAL(r.end_ns, q.arrival_ns + pre + dec[0] + dec[1] + dec[2]);
	CU_ASSERT_DOUBLE_EQUAL(r.slo_both, 1.0, 1e-12);
	/* a TTFT SLO below the prefill time fails it */
	llm_serve_result_fini(&r);
	c.slo_ttft_ms = sim_time_to_ms(pre) / 2;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, &q, 1, &r, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.slo_ttft, 0.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.slo_tpot, 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r.slo_both, 0.0, 1e-12);
	llm_serve_result_fini(&r);
}

/* 200 long requests at once into a small cache: paging preempts, the
** unbounded cache does not; both deliver every token. */
static void test_paging(void)
{
	enum { N = 200 };
	static struct llm_serve_req q[N];
	struct dev_profile d = dev();
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result r1, r2, r3;
	uint64_t expect = 0;
	int i;

	/* 15 GiB HBM: 12.6 GiB of weights leave ~1 GiB of KV cache */
	d.hbm_bytes = 15ULL << 30;
	model(&m, &d);
	for (i = 0; i < N; i++) {
		q[i].arrival_ns = i * SIM_NS_PER_US;
		q[i].prompt_tokens = 500 + i;
		q[i].output_tokens = 300;
		expect += 300;
	}
	llm_serve_cfg_default(&c, &m, LLM_SCHED_VLLM);
	c.gpu_mem_util = 1.0;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, q, N, &r1, NULL), 0);
	CU_ASSERT_EQUAL(r1.completed, N);
	CU_ASSERT_EQUAL(r1.tokens_out, expect);
	CU_ASSERT(r1.preemptions > 0);
	CU_ASSERT(r1.kv_util_peak > 0.9 && r1.kv_util_peak <= 1.0);
	c.paging = 0;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, q, N, &r2, NULL), 0);
	CU_ASSERT_EQUAL(r2.completed, N);
	CU_ASSERT_EQUAL(r2.preemptions, 0);
	/* without the memory limit everything runs at once: sooner */
	CU_ASSERT(r2.end_ns < r1.end_ns);
	/* swapping instead of recomputing moves bytes over PCIe */
	c.paging = 1;
	c.sched.preempt = LLM_PREEMPT_SWAP;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, q, N, &r3, NULL), 0);
	CU_ASSERT_EQUAL(r3.completed, N);
	CU_ASSERT(r3.swap_outs > 0);
	CU_ASSERT(r3.swapped_bytes > 0);
	llm_serve_result_fini(&r1);
	llm_serve_result_fini(&r2);
	llm_serve_result_fini(&r3);
}

static void test_reject_and_order(void)
{
	struct dev_profile d = dev();
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result r;
	struct llm_serve_req q[3] = {
		{ 0, 100, 10 }, { 1000, 4000, 200 }, { 2000, 50, 5 }
	};
	struct sim_err err = { 0 };

	model(&m, &d);
	llm_serve_cfg_default(&c, &m, LLM_SCHED_SARATHI);
	c.replicas = 2;
	c.route = LLM_ROUTE_LEAST;
	CU_ASSERT_EQUAL_FATAL(llm_serve_run(&c, q, 3, &r, NULL), 0);
	CU_ASSERT_EQUAL(r.submitted, 3);
	CU_ASSERT_EQUAL(r.rejected, 1);
	CU_ASSERT_EQUAL(r.completed, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.first_reject.msg, "context window"));
	llm_serve_result_fini(&r);
	q[2].arrival_ns = 10;
	CU_ASSERT_EQUAL(llm_serve_run(&c, q, 3, &r, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "arrives before"));
	llm_serve_result_fini(&r);
}

/* ---- the command ----------------------------------------------------- */

static const char *bin(void)
{
	const char *b = getenv("COLOSIM_BIN");

	return b && *b ? b : "build/colosim";
}

/* Runs colosim with args; stdout to *out (if not NULL), stderr to *err;
** returns the exit status. */
static int sh(const char *args, char *out, size_t nout, char *err,
	      size_t nerr)
{
	char cmd[2048], path[600];
	FILE *p, *f;
	size_t n;
	int st;

	snprintf(path, sizeof path, "%s/llm_serve.err", test_tmpdir());
	snprintf(cmd, sizeof cmd, "timeout 60 %s %s 2>%s </dev/null", bin(),
		 args, path);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	n = fread(out, 1, nout - 1, p);
	out[n] = '\0';
	st = pclose(p);
	err[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(err, 1, nerr - 1, f);
		err[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *put(const char *name, const char *text)
{
	static char buf[2][600];
	static int k;
	char *p = buf[k++ & 1];
	FILE *f;

	snprintf(p, sizeof buf[0], "%s/%s", test_tmpdir(), name);
	if ((f = fopen(p, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void test_cli_errors(void)
{
	static char out[8192], err[2048];
	char args[1024];
	const char *f;

	/* a request longer than the context window: file, line, field */
	f = put("long.csv", "t_s,prompt_tokens,output_tokens\n0,100,10\n"
			    "0.5,9000,100\n");
	snprintf(args, sizeof args, "llm serve %s --model llama-2-7b", f);
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "long.csv:3:5: prompt_tokens: 9000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "4096-token context window"));
	/* skipped on request */
	snprintf(args, sizeof args, "llm serve %s --model llama-2-7b --gpus 1 "
		 "--long skip --json", f);
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"completed\": 1,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"ttft_ms_p99\":"));
	/* a malformed number names its column */
	f = put("bad.csv", "t_s,prompt_tokens,output_tokens\n0,12x,10\n");
	snprintf(args, sizeof args, "llm serve %s", f);
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad.csv:2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "prompt_tokens"));
	/* a model that does not fit with its KV cache */
	f = put("ok.csv", "t_s,prompt_tokens,output_tokens\n0,100,10\n");
	snprintf(args, sizeof args, "llm serve %s --model llama-2-70b --gpus 1",
		 f);
	CU_ASSERT(sh(args, out, sizeof out, err, sizeof err) != 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "does not fit with its KV cache"));
	/* a tensor-parallel degree the model cannot take, or the node
	** cannot hold */
	snprintf(args, sizeof args, "llm serve %s --tp 3 --gpus 3", f);
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "does not divide"));
	snprintf(args, sizeof args, "llm serve %s --tp 8 --replicas 2", f);
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "need 16 GPUs"));
	snprintf(args, sizeof args, "llm serve %s/none.csv", test_tmpdir());
	CU_ASSERT_EQUAL(sh(args, out, sizeof out, err, sizeof err), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "none.csv"));
}

/* The Azure conversation trace end to end (skipped without ../shared):
** every request served, identical output twice (determinism). */
static void test_azure(void)
{
	static char out1[8192], out2[8192], err[2048];
	char args[1024];
	const char *dir = test_shared_traces();

	if (dir == NULL) {
		fprintf(stderr, "\n  test_llm_serve: ../shared/traces absent, "
			"Azure case skipped\n");
		return;
	}
	snprintf(args, sizeof args, "llm serve %s/azure-llm-2023/"
		 "AzureLLMInferenceTrace_code.csv --json", dir);
	CU_ASSERT_EQUAL(sh(args, out1, sizeof out1, err, sizeof err), 0);
	CU_ASSERT_EQUAL(sh(args, out2, sizeof out2, err, sizeof err), 0);
	CU_ASSERT_STRING_EQUAL(out1, out2);
	CU_ASSERT_PTR_NOT_NULL(strstr(out1, "\"submitted\": 8819,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out1, "\"completed\": 8819,"));
}

TEST_REGISTER(llm_serve)
{
	static const struct test_case cases[] = {
		{ "one request by hand", test_single },
		{ "paging, unbounded, swap", test_paging },
		{ "refusals and order", test_reject_and_order },
		{ "command errors", test_cli_errors },
		{ "azure trace", test_azure },
		{ NULL, NULL }
	};

	return test_add_suite("llm_serve", cases);
}
