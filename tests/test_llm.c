/*
** test_llm.c: LLM architectures, per-token costs, the iteration roofline,
** replica memory, and the fit and check of docs/VALIDATION.md
** (models/llm.h, models/llm_points.h).
**
** Known figures:
**   - exact parameter counts of the HuggingFace checkpoints (sum of the
**     tensors of model.safetensors.index.json / the model cards):
**     Llama-2-7B 6,738,415,616; 13B 13,015,864,320; 70B 68,976,648,192;
**     Llama-3-8B 8,030,261,248; 70B 70,553,706,496; Mistral-7B
**     7,241,732,096; Mixtral-8x7B 46,702,792,704;
**   - Mixtral: "each token has access to 47B parameters, but only uses
**     13B active parameters" (Jiang et al. 2024, sec. 2);
**   - KV cache per token: vLLM paper (Kwon et al., SOSP'23, sec. 3) for a
**     13B model (d 5120, 40 layers): 2 x 5120 x 40 x 2 bytes = 800 KB;
**   - forward FLOPs per token ~ 2 N (Kaplan et al. 2020, sec. 2.1).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/llm.h"
#include "models/llm_points.h"
#include "tests/util.h"

static const struct llm_arch *arch(const char *name)
{
	const struct llm_arch *a = llm_arch_find(name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	return a;
}

static void test_params(void)
{
	static const struct { const char *name; uint64_t params; } known[] = {
		{ "llama-2-7b", 6738415616ULL },
		{ "llama-2-13b", 13015864320ULL },
		{ "llama-2-70b", 68976648192ULL },
		{ "llama-3-8b", 8030261248ULL },
		{ "llama-3-70b", 70553706496ULL },
		{ "mistral-7b", 7241732096ULL },
		{ "mixtral-8x7b", 46702792704ULL },
	};
	size_t i;

	CU_ASSERT_EQUAL(llm_arch_count(), 7);
	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		CU_ASSERT_EQUAL(llm_arch_params(arch(known[i].name)),
				known[i].params);
	CU_ASSERT_PTR_NOT_NULL(llm_arch_find("LLAMA-2-7B"));
	CU_ASSERT_PTR_NULL(llm_arch_find("gpt-5"));
}

static void test_per_token(void)
{
	const struct llm_arch *a7 = arch("llama-2-7b");
	const struct llm_arch *mx = arch("mixtral-8x7b");
	double active;

	/* 2 x (parameters - embedding table - norm gains): the embedding is
	** a lookup, the 2 x 32 + 1 RMSNorms of 4096 gains multiply nothing
	** that is counted */
	CU_ASSERT_DOUBLE_EQUAL(llm_flops_per_token(a7),
			       2.0 * (6738415616.0 - 32000.0 * 4096 -
				      65.0 * 4096), 1);
	/* the 2N rule within 2% */
	CU_ASSERT(fabs(llm_flops_per_token(a7) / (2 * 6738415616.0) - 1) < 0.02);
	/* attention: 4 ctx d per layer; at 2048 tokens 32 x 4 x 2048 x 4096 */
	CU_ASSERT_DOUBLE_EQUAL(llm_attn_flops_per_token(a7, 2048),
			       32.0 * 4 * 2048 * 4096, 1);
	/* Mixtral: about 13B active parameters per token (12.9B with the
	** embedding; the paper rounds) */
	active = llm_flops_per_token(mx) / 2 + 32000.0 * 4096;
	CU_ASSERT(fabs(active / 12.9e9 - 1) < 0.01);
	/* KV cache per token */
	CU_ASSERT_EQUAL(llm_kv_bytes_per_token(a7, 2), 524288);
	CU_ASSERT_EQUAL(llm_kv_bytes_per_token(arch("llama-2-13b"), 2), 819200);
	CU_ASSERT_EQUAL(llm_kv_bytes_per_token(arch("llama-2-70b"), 2), 327680);
	CU_ASSERT_EQUAL(llm_kv_bytes_per_token(arch("llama-3-8b"), 1), 65536);
}

/* A device built by hand so that the test's arithmetic is its own. */
static struct dev_profile hand_dev(void)
{
	struct dev_profile d;

	memset(&d, 0, sizeof d);
	strcpy(d.name, "hand");
	d.hbm_bytes = 80ULL << 30;
	d.hbm_bw_bytes_per_s = 2e12;
	d.fp16_flops = d.bf16_flops = 300e12;
	d.nvlink_bytes_per_s = 600e9;
	d.h2d_pinned_bytes_per_s = d.d2h_pinned_bytes_per_s = 25e9;
	d.pcie_latency_ns = 10000;
	d.ctx_bytes = 512ULL << 20;
	return d;
}

static struct llm_consts hand_consts(void)
{
	struct llm_consts c;

	memset(&c, 0, sizeof c);
	c.eta_flops = 0.5;
	c.eta_bw = 0.8;
	c.eta_kv = 0.8;
	c.eta_elem = 0.5;
	c.eta_attn = 0.5;
	c.eta_link = 0.5;
	c.t_small_ns = 20000;
	c.t_attn_ns = 10000;
	c.t_hop_ns = 1000;
	c.t_iter0_ns = 100000;
	return c;
}

/* One decode of one sequence at context 1024 on Llama-2-7B, TP 1: every
** GEMM is memory-bound; terms in microseconds, computed by hand. */
static void test_step_decode(void)
{
	struct dev_profile d = hand_dev();
	struct llm_consts c = hand_consts();
	struct llm_model m;
	struct llm_iter it;
	struct llm_step_terms t;
	struct sim_err err = { 0 };
	double pb = 0.8 * 2e12, qkv, o, up, dn, attn, head;

	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-7b"), &d,
					     LLM_PREC_FP16, 1, &c, &err), 0);
	memset(&it, 0, sizeof it);
	it.ndecode = 1;
	it.decode_ctx = 1024;
	it.nsample = 1;
	llm_step_terms(&m, &it, &t);
	/* weights x 2 bytes + (in + out) x 2 bytes of activations */
	qkv = (4096.0 * 12288 * 2 + (4096 + 12288) * 2) / pb * 1e6;
	o = (4096.0 * 4096 * 2 + (4096 + 4096) * 2) / pb * 1e6;
	up = (4096.0 * 22016 * 2 + (4096 + 22016) * 2) / pb * 1e6;
	dn = (11008.0 * 4096 * 2 + (11008 + 4096) * 2) / pb * 1e6;
	TEST_ASSERT_CLOSE(t.linear / 1e3, 32 * (qkv + o + up + dn), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(32 * (qkv + o + up + dn), 8097.64, 0.01);
	/* small kernels: 156 KB of traffic is far under the 20 us floor */
	TEST_ASSERT_CLOSE(t.small / 1e3, 32 * 20.0, 1e-12);
	/* attention: 1024 tokens x K and V of 4096 x 2 bytes, plus q, the
	** output and the new K, V: 10.51 us, over the 10 us floor */
	attn = (1024.0 * 16384 + (2 * 4096 * 2 + 16384)) / pb * 1e6;
	CU_ASSERT_DOUBLE_EQUAL(attn, 10.506, 0.001);
	TEST_ASSERT_CLOSE(t.attn_decode / 1e3, 32 * attn, 1e-9);
	CU_ASSERT_EQUAL(t.attn_prefill, 0);
	CU_ASSERT_EQUAL(t.allreduce, 0);
	head = (4096.0 * 32000 * 2 + (4096 + 32000) * 2) / pb * 1e6;
	TEST_ASSERT_CLOSE(t.head / 1e3, head, 1e-9);
	TEST_ASSERT_CLOSE(t.overhead, 100000, 1e-12);
	TEST_ASSERT_CLOSE(t.total / 1e3, 32 * (qkv + o + up + dn + 20 + attn) +
			  head + 100, 1e-9);
	CU_ASSERT_EQUAL(llm_step_ns(&m, &it), (sim_time)ceil(t.total));
	/* an empty iteration takes no time */
	memset(&it, 0, sizeof it);
	CU_ASSERT_EQUAL(llm_step_ns(&m, &it), 0);
}

/* A prefill of 4096 tokens: compute-bound GEMMs and attention. */
static void test_step_prefill(void)
{
	struct dev_profile d = hand_dev();
	struct llm_consts c = hand_consts();
	struct llm_model m;
	struct llm_iter it;
	struct llm_step_terms t;
	struct sim_err err = { 0 };
	double pf = 0.5 * 300e12, lin, attn, small;

	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-7b"), &d,
					     LLM_PREC_FP16, 1, &c, &err), 0);
	memset(&it, 0, sizeof it);
	it.nprefill = 1;
	it.prefill_tokens = 4096;
	it.prefill_pairs = 4096.0 * (4097.0 / 2);
	it.prefill_kv = 4096;
	it.nsample = 1;
	llm_step_terms(&m, &it, &t);
	lin = 2.0 * 4096 * (4096.0 * 12288 + 4096.0 * 4096 + 4096.0 * 22016 +
			    11008.0 * 4096) / pf * 1e6;
	TEST_ASSERT_CLOSE(t.linear / 1e3, 32 * lin, 1e-9);
	/* causal attention: 4 pairs d FLOPs at eta_attn 0.5 */
	attn = 4.0 * 4096 * 4097.0 / 2 * 4096 / (0.5 * 300e12) * 1e6;
	TEST_ASSERT_CLOSE(t.attn_prefill / 1e3, 32 * attn, 1e-9);
	/* elementwise: 4096 x (7 d + 2 (q + kv) + 3 f) x 2 bytes at 1 TB/s */
	small = 4096.0 * (7 * 4096 + 2 * 8192 + 3 * 11008) * 2 / 1e12 * 1e6;
	TEST_ASSERT_CLOSE(t.small / 1e3, 32 * small, 1e-9);
}

/* Tensor parallelism: the GEMMs split in two and two all-reduces per
** block appear, priced by the ring formula. */
static void test_step_tp(void)
{
	struct dev_profile d = hand_dev();
	struct llm_consts c = hand_consts();
	struct llm_model m1, m2;
	struct llm_iter it;
	struct llm_step_terms t1, t2;
	struct sim_err err = { 0 };
	double bytes, ar;

	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m1, arch("llama-2-13b"), &d,
					     LLM_PREC_FP16, 1, &c, &err), 0);
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m2, arch("llama-2-13b"), &d,
					     LLM_PREC_FP16, 2, &c, &err), 0);
	memset(&it, 0, sizeof it);
	it.ndecode = 8;
	it.decode_ctx = 8 * 512;
	it.nsample = 8;
	llm_step_terms(&m1, &it, &t1);
	llm_step_terms(&m2, &it, &t2);
	CU_ASSERT_EQUAL(t1.allreduce, 0);
	/* memory-bound GEMMs: half the weights, a little more activations */
	CU_ASSERT(t2.linear < 0.51 * t1.linear && t2.linear > 0.49 * t1.linear);
	/* per all-reduce: t_small / 5 + 2 (n - 1) hops + 2 (n - 1) / n of
	** 8 x 5120 x 2 bytes at 0.5 x 300 GB/s */
	bytes = 8.0 * 5120 * 2;
	ar = 20000.0 / 5 + 2 * 1000 + bytes / (0.5 * 300e9) * 1e9;
	TEST_ASSERT_CLOSE(t2.allreduce, 40 * 2 * ar, 1e-9);
	/* the KV cache of 13B's 40 heads splits too */
	TEST_ASSERT_CLOSE(m2.kv_bytes_per_token, 819200.0 / 2, 1e-12);
}

static void test_model_errors(void)
{
	struct dev_profile d = hand_dev();
	struct llm_model m;
	struct sim_err err = { 0 };
	enum llm_prec p;

	CU_ASSERT_EQUAL(llm_model_init(&m, arch("llama-2-7b"), &d,
				       LLM_PREC_FP8, 1, NULL, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no fp8 peak"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(llm_model_init(&m, arch("llama-2-7b"), &d,
				       LLM_PREC_FP16, 3, NULL, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "does not divide the 32"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(llm_model_init(&m, arch("llama-2-7b"), &d,
				       LLM_PREC_FP16, 0, NULL, &err), SIM_EINVAL);
	/* 70B's 8 KV heads are replicated beyond TP 8: one per GPU */
	CU_ASSERT_EQUAL(llm_model_init(&m, arch("llama-2-70b"), &d,
				       LLM_PREC_FP16, 16, NULL, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(m.kv_per_gpu, 128, 1e-12);
	CU_ASSERT_EQUAL(llm_prec_parse("BF16", &p), 0);
	CU_ASSERT_EQUAL(p, LLM_PREC_BF16);
	CU_ASSERT_EQUAL(llm_prec_parse("int4", &p), SIM_EINVAL);
	CU_ASSERT_EQUAL(llm_prec_bytes(LLM_PREC_FP8), 1);
}

/* MoE: one token reads 2 of 8 experts, a large batch all of them. */
static void test_step_moe(void)
{
	struct dev_profile d = hand_dev();
	struct llm_consts c = hand_consts();
	struct llm_model m;
	struct llm_iter it;
	struct llm_step_terms t1, t2;
	struct sim_err err = { 0 };
	double exp_w = 3.0 * 4096 * 14336 * 2, attn_w = 41943040.0 * 2;

	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("mixtral-8x7b"), &d,
					     LLM_PREC_BF16, 1, &c, &err), 0);
	memset(&it, 0, sizeof it);
	it.ndecode = 1;
	it.decode_ctx = 16;
	it.nsample = 1;
	llm_step_terms(&m, &it, &t1);
	/* weights read at T = 1: attention, router and 2 experts */
	TEST_ASSERT_CLOSE(t1.linear / 32 * 0.8 * 2e12 / 1e9,
			  attn_w + 2 * exp_w + 4096.0 * 8 * 2, 1e-3);
	it.ndecode = 256;
	it.decode_ctx = 256 * 16;
	it.nsample = 256;
	llm_step_terms(&m, &it, &t2);
	/* 256 tokens visit every expert: at least the 8 experts' weights */
	CU_ASSERT(t2.linear / 32 * 0.8 * 2e12 / 1e9 > attn_w + 8 * exp_w);
}

static void test_memory(void)
{
	struct dev_profile d = hand_dev();
	struct llm_model m;
	struct llm_mem mem;
	struct sim_err err = { 0 };
	double cap = 80.0 * 1073741824 * 0.9;

	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-7b"), &d,
					     LLM_PREC_FP16, 1, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(llm_memory(&m, 0.9, 16, 4096, 256, &mem, &err), 0);
	CU_ASSERT_EQUAL(mem.weight_bytes, 2 * 6738415616ULL);
	CU_ASSERT_EQUAL(mem.block_bytes, 16 * 524288);
	/* the pool is the largest whole number of blocks that fits */
	CU_ASSERT((double)mem.total_bytes <= cap);
	CU_ASSERT((double)(mem.total_bytes + mem.block_bytes) > cap);
	CU_ASSERT_EQUAL(mem.kv_bytes, (uint64_t)mem.blocks * mem.block_bytes);
	/* 70B at FP16 on one 80 GB GPU: 138 GB of weights do not fit */
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-70b"), &d,
					     LLM_PREC_FP16, 1, NULL, &err), 0);
	CU_ASSERT_EQUAL(llm_memory(&m, 0.9, 16, 4096, 256, &mem, &err),
			SIM_ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "does not fit with its KV cache"));
	sim_err_clear(&err);
	/* with TP 4 it does */
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-70b"), &d,
					     LLM_PREC_FP16, 4, NULL, &err), 0);
	CU_ASSERT_EQUAL(llm_memory(&m, 0.9, 16, 4096, 256, &mem, &err), 0);
	CU_ASSERT(mem.blocks > 1000);
	CU_ASSERT_EQUAL(llm_memory(&m, 1.5, 16, 4096, 256, &mem, &err),
			SIM_EINVAL);
}

/* ---- the fit and the check (docs/VALIDATION.md) ----------------------- */

static struct dev_catalog cat;
static int cat_ok;

static const struct dev_profile *find_dev(void *ctx, const char *name)
{
	(void)ctx;
	return dev_catalog_find(&cat, name);
}

static int load_cat(void)
{
	struct sim_err err = { 0 };

	if (!cat_ok)
		cat_ok = dev_catalog_load(&cat, "models/devices", &err) == 0;
	return cat_ok;
}

/* The fit on the calibration set gives llm_consts_default()'s values. */
static void test_fit(void)
{
	struct llm_consts c, d;
	struct sim_err err = { 0 };

	CU_ASSERT_FATAL(load_cat());
	llm_consts_default(&d);
	c = d;
	CU_ASSERT_EQUAL_FATAL(llm_fit(&c, find_dev(NULL, "a100-80gb"), find_dev,
				      NULL, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(c.eta_flops, d.eta_flops, 5e-5);
	CU_ASSERT_DOUBLE_EQUAL(c.eta_bw, d.eta_bw, 5e-5);
	CU_ASSERT_DOUBLE_EQUAL(c.eta_kv, d.eta_kv, 5e-5);
	CU_ASSERT_DOUBLE_EQUAL(c.eta_elem, d.eta_elem, 5e-5);
	CU_ASSERT_DOUBLE_EQUAL(c.eta_link, d.eta_link, 5e-5);
	CU_ASSERT_EQUAL(c.t_small_ns, d.t_small_ns);
	CU_ASSERT_EQUAL(c.t_attn_ns, d.t_attn_ns);
	/* the overhead is rounded to a microsecond in the table */
	CU_ASSERT(llabs(c.t_iter0_ns - d.t_iter0_ns) <= 500);
	/* kept, not fitted */
	CU_ASSERT_EQUAL(c.eta_attn, d.eta_attn);
	CU_ASSERT_EQUAL(c.t_hop_ns, d.t_hop_ns);
}

/* Every point predicted; the calibration point is met; the check-only
** median error stays where docs/VALIDATION.md reports it. */
static void test_validate(void)
{
	struct llm_valid rows[64];
	struct sim_err err = { 0 };
	double mcal, mchk;
	size_t i, n = llm_point_count(), ncal = 0;

	CU_ASSERT_FATAL(load_cat());
	CU_ASSERT_FATAL(n <= 64);
	CU_ASSERT_EQUAL_FATAL(llm_validate(NULL, find_dev, NULL, rows, 64,
					   &mcal, &mchk, &err), 0);
	for (i = 0; i < n; i++) {
		const struct llm_point *p = llm_point_at(i);

		CU_ASSERT(rows[i].pred > 0);
		CU_ASSERT_PTR_NOT_NULL(p->source);
		if (p->cal) {
			ncal++;
			CU_ASSERT(fabs(rows[i].err) < 0.005);
		}
	}
	CU_ASSERT_EQUAL(ncal, 1);
	CU_ASSERT(n - ncal >= 40);
	CU_ASSERT(mcal < 0.005);
	CU_ASSERT(mchk > 0.10 && mchk < 0.16);
	/* a missing device is an error naming the point */
	CU_ASSERT_EQUAL(llm_point_predict(llm_point_at(0), NULL, NULL, NULL,
					  &mcal, &err), SIM_ENOENT);
}

/* A static batch: throughput rises with the batch while decode is
** memory-bound; the time to first token grows with the prompt. */
static void test_static_run(void)
{
	struct llm_model m;
	struct sim_err err = { 0 };
	double t1, e1, t2, e2;

	CU_ASSERT_FATAL(load_cat());
	CU_ASSERT_EQUAL_FATAL(llm_model_init(&m, arch("llama-2-7b"),
					     find_dev(NULL, "h100-sxm"),
					     LLM_PREC_FP16, 1, NULL, &err), 0);
	llm_static_run(&m, 1, 128, 128, &t1, &e1);
	llm_static_run(&m, 32, 128, 128, &t2, &e2);
	CU_ASSERT(32 * 128 / e2 > 10 * (128 / e1));
	llm_static_run(&m, 1, 2048, 1, &t2, &e2);
	/* 16 times the tokens: compute-bound at 2048, partly bound by the
	** weights' bandwidth at 128 */
	CU_ASSERT(t2 > 4 * t1 && t2 < 16 * t1);
	CU_ASSERT_DOUBLE_EQUAL(t2, e2, 1e-9);
}

static void test_cleanup(void)
{
	if (cat_ok)
		dev_catalog_fini(&cat);
	cat_ok = 0;
}

TEST_REGISTER(llm)
{
	static const struct test_case cases[] = {
		{ "parameter counts", test_params },
		{ "per-token FLOPs and KV bytes", test_per_token },
		{ "decode step by hand", test_step_decode },
		{ "prefill step by hand", test_step_prefill },
		{ "tensor parallelism", test_step_tp },
		{ "bad combinations", test_model_errors },
		{ "mixture of experts", test_step_moe },
		{ "replica memory", test_memory },
		{ "fit on the calibration set", test_fit },
		{ "validation medians", test_validate },
		{ "static batch", test_static_run },
		{ "cleanup", test_cleanup },
		{ NULL, NULL }
	};

	return test_add_suite("llm", cases);
}
