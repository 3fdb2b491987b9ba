/*
** test_llm_sched.c: the replica schedulers (models/llm_sched.h): batch
** formation of vllm, sarathi and orca on small queues worked out by hand,
** preemption by recomputation and by swap, refusals, and a randomised
** run of each to completion that checks the block accounting.
*/
#include <string.h>

#include "models/llm_sched.h"
#include "sim/rng.h"
#include "tests/util.h"

struct rec {
	int tokens, firsts, dones;
	int order[64];            /* ids in the order they finished */
};

static void on_token(void *ctx, struct llm_req *r, int first, int done)
{
	struct rec *k = ctx;

	k->tokens++;
	k->firsts += first;
	if (done && k->dones < 64)
		k->order[k->dones] = (int)r->id;
	k->dones += done;
}

static void req(struct llm_req *r, uint64_t id, int prompt, int output)
{
	memset(r, 0, sizeof *r);
	r->id = id;
	r->prompt_tokens = prompt;
	r->output_tokens = output;
}

static void engine(struct llm_engine *e, enum llm_sched_kind k, int budget,
		   int64_t blocks, int block_tokens, int64_t host,
		   enum llm_preempt pre)
{
	struct llm_sched_cfg c;
	struct sim_err err = { 0 };

	llm_sched_cfg_default(&c, k, 4096);
	c.max_num_batched_tokens = budget;
	c.preempt = pre;
	CU_ASSERT_EQUAL_FATAL(llm_engine_init(e, &c, blocks, block_tokens,
					      host, &err), 0);
}

/* vLLM: prefill-only iterations while prompts wait, whole prompts within
** the token budget, then decode-only iterations. */
static void test_vllm_batches(void)
{
	struct llm_engine e;
	struct llm_req r[3];
	struct llm_iter it;
	struct rec k;
	struct sim_err err = { 0 };

	memset(&k, 0, sizeof k);
	engine(&e, LLM_SCHED_VLLM, 40, 1000, 16, 0, LLM_PREEMPT_RECOMPUTE);
	req(&r[0], 1, 10, 3);
	req(&r[1], 2, 20, 3);
	req(&r[2], 3, 30, 4);
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r[0], &err), 0);
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r[1], &err), 0);
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r[2], &err), 0);
	/* 10 + 20 fit the 40-token budget, + 30 does not */
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
	CU_ASSERT_EQUAL(it.nprefill, 2);
	CU_ASSERT_EQUAL(it.prefill_tokens, 30);
	CU_ASSERT_EQUAL(it.ndecode, 0);
	CU_ASSERT_EQUAL(it.nsample, 2);
	CU_ASSERT_DOUBLE_EQUAL(it.prefill_pairs, 10 * 5.5 + 20 * 10.5, 1e-9);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), SIM_ESTATE);
	CU_ASSERT_EQUAL(llm_engine_complete(&e, on_token, &k), 0);
	CU_ASSERT_EQUAL(k.firsts, 2);
	/* the third prompt waits: a prefill-only iteration again */
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 1);
	CU_ASSERT_EQUAL(it.prefill_tokens, 30);
	CU_ASSERT_EQUAL(it.ndecode, 0);
	llm_engine_complete(&e, on_token, &k);
	/* now all three decode: contexts 10 + 1, 20 + 1, 30 + 1 */
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 3);
	CU_ASSERT_EQUAL(it.ndecode, 3);
	CU_ASSERT_EQUAL(it.decode_ctx, 11 + 21 + 31);
	CU_ASSERT_EQUAL(it.nprefill, 0);
	llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 3);
	CU_ASSERT_EQUAL(it.decode_ctx, 12 + 22 + 32);
	llm_engine_complete(&e, on_token, &k);
	/* r1 and r2 have their 3 tokens: done; r3 has one more to go */
	CU_ASSERT_EQUAL(k.dones, 2);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 1);
	llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(k.dones, 3);
	CU_ASSERT_EQUAL(k.tokens, 10);
	CU_ASSERT_EQUAL(k.order[2], 3);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 0);
	CU_ASSERT_EQUAL(e.kv.free, e.kv.blocks);
	llm_engine_fini(&e);
}

/* Two sequences of 8 tokens in 6 blocks of 4: they decode until both
** need a fourth block; the later one is preempted and recomputed. */
static void test_vllm_recompute(void)
{
	struct llm_engine e;
	struct llm_req r[2];
	struct llm_iter it;
	struct rec k;
	int n, i;

	memset(&k, 0, sizeof k);
	engine(&e, LLM_SCHED_VLLM, 64, 7, 4, 0, LLM_PREEMPT_RECOMPUTE);
	CU_ASSERT_EQUAL(e.kv.watermark, 0);
	req(&r[0], 1, 8, 10);
	req(&r[1], 2, 8, 10);
	llm_engine_submit(&e, &r[0], NULL);
	llm_engine_submit(&e, &r[1], NULL);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);     /* 4 blocks */
	llm_engine_complete(&e, on_token, &k);
	/* decode 1: tokens 9 -> 3 blocks each (6 of 7) */
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
		llm_engine_complete(&e, on_token, &k);
	}
	CU_ASSERT_EQUAL(e.kv.free, 1);
	CU_ASSERT_EQUAL(r[0].computed, 12);
	/* the 13th token needs a fourth block each: r1 takes the last free
	** one, r2 has none and is the tail: it preempts itself */
	n = llm_engine_form(&e, &it);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(e.preemptions, 1);
	CU_ASSERT_EQUAL(e.recomputes, 1);
	CU_ASSERT_EQUAL(r[1].state, LLM_REQ_WAITING);
	CU_ASSERT_EQUAL(r[1].computed, 0);
	CU_ASSERT_EQUAL(r[1].target, 8 + 5);   /* prompt + 5 tokens so far */
	CU_ASSERT_EQUAL(r[1].kv.blocks, 0);
	llm_engine_complete(&e, on_token, &k);
	/* run to the end: r1 finishes, r2 is recomputed and finishes */
	while ((n = llm_engine_form(&e, &it)) > 0)
		llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(k.dones, 2);
	CU_ASSERT_EQUAL(k.tokens, 20);
	CU_ASSERT_EQUAL(k.firsts, 2);  /* the recompute's token is not a first */
	CU_ASSERT_EQUAL(k.order[0], 1);
	CU_ASSERT_EQUAL(e.kv.free, 7);
	llm_engine_fini(&e);
}

/* The same squeeze with swapping: r2 goes to the host (3 blocks copied in
** the iteration) and comes back once r1 is done. */
static void test_vllm_swap(void)
{
	struct llm_engine e;
	struct llm_req r[2];
	struct llm_iter it;
	struct rec k;
	int i, swapped_in = 0;

	memset(&k, 0, sizeof k);
	engine(&e, LLM_SCHED_VLLM, 64, 7, 4, 16, LLM_PREEMPT_SWAP);
	req(&r[0], 1, 8, 10);
	req(&r[1], 2, 8, 10);
	llm_engine_submit(&e, &r[0], NULL);
	llm_engine_submit(&e, &r[1], NULL);
	for (i = 0; i < 5; i++) {
		llm_engine_form(&e, &it);
		llm_engine_complete(&e, on_token, &k);
	}
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 1);
	CU_ASSERT_EQUAL(it.swap_out_blocks, 3);
	CU_ASSERT_EQUAL(it.block_tokens, 4);
	CU_ASSERT_EQUAL(r[1].state, LLM_REQ_SWAPPED);
	CU_ASSERT_EQUAL(r[1].computed, 12);    /* kept: no recompute */
	CU_ASSERT_EQUAL(e.kv.host_free, 13);
	llm_engine_complete(&e, on_token, &k);
	while (llm_engine_form(&e, &it) > 0) {
		swapped_in += (int)it.swap_in_blocks;
		llm_engine_complete(&e, on_token, &k);
	}
	CU_ASSERT_EQUAL(swapped_in, 3);
	CU_ASSERT_EQUAL(e.swap_outs, 1);
	CU_ASSERT_EQUAL(e.swap_ins, 1);
	CU_ASSERT_EQUAL(e.recomputes, 0);
	CU_ASSERT_EQUAL(k.dones, 2);
	CU_ASSERT_EQUAL(k.tokens, 20);
	CU_ASSERT_EQUAL(e.kv.free, 7);
	CU_ASSERT_EQUAL(e.kv.host_free, 16);
	llm_engine_fini(&e);
}

/* Sarathi-Serve: a running decode and a 40-token prompt with a budget of
** 16: every iteration carries the decode and a 15-token chunk; the
** prompt's first token comes with its third chunk (15 + 15 + 10). */
static void test_sarathi_chunks(void)
{
	struct llm_engine e;
	struct llm_req a, b;
	struct llm_iter it;
	struct rec k;

	memset(&k, 0, sizeof k);
	engine(&e, LLM_SCHED_SARATHI, 16, 1000, 16, 0, LLM_PREEMPT_RECOMPUTE);
	req(&a, 1, 4, 10);
	llm_engine_submit(&e, &a, NULL);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 1);
	CU_ASSERT_EQUAL(it.prefill_tokens, 4);
	llm_engine_complete(&e, on_token, &k);
	req(&b, 2, 40, 2);
	llm_engine_submit(&e, &b, NULL);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
	CU_ASSERT_EQUAL(it.ndecode, 1);
	CU_ASSERT_EQUAL(it.nprefill, 1);
	CU_ASSERT_EQUAL(it.prefill_tokens, 15);
	CU_ASSERT_EQUAL(it.nsample, 1);        /* the chunk samples nothing */
	CU_ASSERT_DOUBLE_EQUAL(it.prefill_pairs, 15 * 8.0, 1e-9);
	llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(b.computed, 15);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
	CU_ASSERT_EQUAL(it.prefill_tokens, 15);
	/* the second chunk attends to the 15 cached tokens */
	CU_ASSERT_DOUBLE_EQUAL(it.prefill_pairs, 15 * (15 + 8.0), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(it.prefill_kv, 30, 1e-9);
	llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(k.firsts, 1);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
	CU_ASSERT_EQUAL(it.prefill_tokens, 10);
	CU_ASSERT_EQUAL(it.nsample, 2);
	llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(k.firsts, 2);
	CU_ASSERT_EQUAL(a.generated, 4);       /* never stalled */
	llm_engine_fini(&e);
}

/* Orca: decodes and whole new prompts together; a request reserves its
** whole length, so a second one waits for room instead of preempting. */
static void test_orca(void)
{
	struct llm_engine e;
	struct llm_req a, b, c;
	struct llm_iter it;
	struct rec k;

	memset(&k, 0, sizeof k);
	engine(&e, LLM_SCHED_ORCA, 4096, 10, 4, 0, LLM_PREEMPT_RECOMPUTE);
	req(&a, 1, 8, 8);                      /* 16 tokens: 4 blocks */
	req(&b, 2, 8, 12);                     /* 20 tokens: 5 blocks */
	req(&c, 3, 8, 8);
	llm_engine_submit(&e, &a, NULL);
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 1);
	CU_ASSERT_EQUAL(a.kv.blocks, 4);
	llm_engine_complete(&e, on_token, &k);
	llm_engine_submit(&e, &b, NULL);
	llm_engine_submit(&e, &c, NULL);
	/* a decodes, b's whole prompt joins; c does not fit (4 + 5 + 4) */
	CU_ASSERT_EQUAL(llm_engine_form(&e, &it), 2);
	CU_ASSERT_EQUAL(it.ndecode, 1);
	CU_ASSERT_EQUAL(it.nprefill, 1);
	CU_ASSERT_EQUAL(it.prefill_tokens, 8);
	CU_ASSERT_EQUAL(e.kv.free, 1);
	llm_engine_complete(&e, on_token, &k);
	while (llm_engine_form(&e, &it) > 0)
		llm_engine_complete(&e, on_token, &k);
	CU_ASSERT_EQUAL(e.preemptions, 0);
	CU_ASSERT_EQUAL(k.dones, 3);
	CU_ASSERT_EQUAL(k.tokens, 28);
	CU_ASSERT_EQUAL(k.order[0], 1);
	CU_ASSERT_EQUAL(e.kv.free, 10);
	llm_engine_fini(&e);
}

static void test_refusals(void)
{
	struct llm_engine e;
	struct llm_req r;
	struct sim_err err = { 0 };
	enum llm_sched_kind kind;

	engine(&e, LLM_SCHED_VLLM, 2048, 100, 16, 0, LLM_PREEMPT_RECOMPUTE);
	req(&r, 7, 4000, 200);
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "context window of 4096"));
	sim_err_clear(&err);
	req(&r, 8, 1000, 1000);                /* 125 blocks of 100 */
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "KV blocks"));
	sim_err_clear(&err);
	req(&r, 9, 0, 5);
	CU_ASSERT_EQUAL(llm_engine_submit(&e, &r, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(llm_engine_queued(&e), 0);
	CU_ASSERT_EQUAL(llm_sched_parse("Sarathi", &kind), 0);
	CU_ASSERT_EQUAL(kind, LLM_SCHED_SARATHI);
	CU_ASSERT_EQUAL(llm_sched_parse("fifo", &kind), SIM_EINVAL);
	llm_engine_fini(&e);
}

/* Blocks held by the queued and running sequences, on the GPU and the
** host, match the pool's counters. */
static void check_accounting(const struct llm_engine *e,
			     const struct llm_req *rs, int n)
{
	int64_t gpu = 0, host = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (rs[i].kv.on_host)
			host += rs[i].kv.blocks;
		else
			gpu += rs[i].kv.blocks;
	}
	CU_ASSERT_EQUAL(gpu, e->kv.blocks - e->kv.free);
	CU_ASSERT_EQUAL(host, e->kv.host_blocks - e->kv.host_free);
}

static void run_random(enum llm_sched_kind kind, enum llm_preempt pre)
{
	enum { N = 300 };
	static struct llm_req rs[N];
	struct llm_engine e;
	struct llm_iter it;
	struct sim_rng rng;
	struct rec k;
	int i, next = 0, n, iters = 0, expect = 0;

	memset(&k, 0, sizeof k);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, 42, "llm-sched", (uint64_t)kind,
					   NULL), 0);
	engine(&e, kind, kind == LLM_SCHED_SARATHI ? 256 : 4096, 400, 16, 200,
	       pre);
	for (i = 0; i < N; i++) {
		req(&rs[i], (uint64_t)i, 1 + (int)sim_rng_int(&rng, 600),
		    1 + (int)sim_rng_int(&rng, 300));
		expect += rs[i].output_tokens;
	}
	for (;;) {
		/* a few arrivals before every iteration */
		for (n = 0; n < 3 && next < N; n++, next++)
			CU_ASSERT_EQUAL(llm_engine_submit(&e, &rs[next], NULL), 0);
		n = llm_engine_form(&e, &it);
		CU_ASSERT(n >= 0);
		check_accounting(&e, rs, N);
		if (n == 0 && next == N)
			break;
		if (n > 0) {
			CU_ASSERT(it.nprefill + it.ndecode == n);
			CU_ASSERT(it.nprefill + it.ndecode <= 256);
			llm_engine_complete(&e, on_token, &k);
		}
		if (++iters > 200000)
			break;
	}
	CU_ASSERT_EQUAL(k.dones, N);
	CU_ASSERT_EQUAL(k.firsts, N);
	CU_ASSERT_EQUAL(k.tokens, expect);
	CU_ASSERT_EQUAL(e.kv.free, e.kv.blocks);
	CU_ASSERT_EQUAL(e.kv.host_free, e.kv.host_blocks);
	for (i = 0; i < N; i++)
		CU_ASSERT_EQUAL(rs[i].generated, rs[i].output_tokens);
	/* 300 requests of ~450 tokens in 6400 tokens of cache: the vllm and
	** sarathi engines must preempt; orca must not */
	if (kind == LLM_SCHED_ORCA) {
		CU_ASSERT_EQUAL(e.preemptions, 0);
	} else {
		CU_ASSERT(e.preemptions > 0);
	}
	if (pre == LLM_PREEMPT_SWAP && kind != LLM_SCHED_ORCA)
		CU_ASSERT(e.swap_outs > 0 && e.swap_ins == e.swap_outs);
	llm_engine_fini(&e);
	sim_rng_fini(&rng);
}

static void test_random_vllm(void)
{
	run_random(LLM_SCHED_VLLM, LLM_PREEMPT_RECOMPUTE);
	run_random(LLM_SCHED_VLLM, LLM_PREEMPT_SWAP);
}

static void test_random_sarathi(void)
{
	run_random(LLM_SCHED_SARATHI, LLM_PREEMPT_RECOMPUTE);
	run_random(LLM_SCHED_SARATHI, LLM_PREEMPT_SWAP);
}

static void test_random_orca(void)
{
	run_random(LLM_SCHED_ORCA, LLM_PREEMPT_RECOMPUTE);
}

TEST_REGISTER(llm_sched)
{
	static const struct test_case cases[] = {
		{ "vllm batches", test_vllm_batches },
		{ "vllm preemption by recompute", test_vllm_recompute },
		{ "vllm preemption by swap", test_vllm_swap },
		{ "sarathi chunked prefill", test_sarathi_chunks },
		{ "orca reservation", test_orca },
		{ "refusals", test_refusals },
		{ "random vllm", test_random_vllm },
		{ "random sarathi", test_random_sarathi },
		{ "random orca", test_random_orca },
		{ NULL, NULL }
	};

	return test_add_suite("llm_sched", cases);
}
