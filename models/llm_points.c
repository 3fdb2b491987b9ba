/*
** llm_points.c: published LLM serving measurements, the fit of the
** iteration model's constants on the calibration set, and the check
** (llm_points.h; docs/VALIDATION.md, "LLM serving").
**
** The split into calibration and check-only points was made before the
** first fit and is recorded in each row (`cal`); the check points are
** never used to choose a constant.
*/
#include "models/llm_points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* ---- Operator times (calibration) -------------------------------------
** microsoft/vidur, data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/
** mlp.csv at commit bee57dafa1eb2dc422dcaec46a66975599a6a242: per-kernel
** times of one Llama-2-7B block on an A100-80GB, tensor parallelism 1,
** column time_stats.<op>.median (ms) of the rows with num_tokens 1, 8,
** 16, 32 (memory-bound GEMMs), 384, 512, 936, 4096 (compute-bound) and
** the small kernels at 1, 8 and 4096 tokens.  Shapes: attn_pre_proj is
** q, k, v (4096 -> 12288), attn_post_proj 4096 -> 4096, mlp_up_proj gate
** and up (4096 -> 22016), mlp_down_proj 11008 -> 4096. */
#define QKV(t, ms) { "attn_pre_proj", LLM_OP_LINEAR, t, 4096, 12288, ms }
#define OPR(t, ms) { "attn_post_proj", LLM_OP_LINEAR, t, 4096, 4096, ms }
#define UP(t, ms)  { "mlp_up_proj", LLM_OP_LINEAR, t, 4096, 22016, ms }
#define DN(t, ms)  { "mlp_down_proj", LLM_OP_LINEAR, t, 11008, 4096, ms }
#define SM(t, name, ms) { name, LLM_OP_SMALL, t, 0, 0, ms }
static const struct llm_op_point op_points[] = {
	QKV(1, .065), OPR(1, .025), UP(1, .116), DN(1, .060),
	QKV(8, .063), OPR(8, .025), UP(8, .111), DN(8, .061),
	QKV(16, .064), OPR(16, .026), UP(16, .111), DN(16, .062),
	QKV(32, .066), OPR(32, .027), UP(32, .115), DN(32, .065),
	QKV(384, .169), OPR(384, .066), UP(384, .292), DN(384, .144),
	QKV(512, .234), OPR(512, .088), UP(512, .402), DN(512, .229),
	QKV(936, .468), OPR(936, .153), UP(936, .699), DN(936, .421),
	QKV(4096, 1.911), OPR(4096, .611), UP(4096, 3.3655), DN(4096, 1.604),
	SM(1, "input_layernorm", .005), SM(1, "attn_rope", .005),
	SM(1, "post_attention_layernorm", .005), SM(1, "mlp_act", .007),
	SM(1, "add", .002),
	SM(8, "input_layernorm", .004), SM(8, "attn_rope", .005),
	SM(8, "post_attention_layernorm", .004), SM(8, "mlp_act", .008),
	SM(8, "add", .002),
	SM(4096, "input_layernorm", .105), SM(4096, "attn_rope", .149),
	SM(4096, "post_attention_layernorm", .104), SM(4096, "mlp_act", .266),
	SM(4096, "add", .055),
};
#undef QKV
#undef OPR
#undef UP
#undef DN
#undef SM
#define NOP_POINTS (sizeof op_points / sizeof op_points[0])

/* microsoft/vidur, data/profiling/a100/attention.csv at commit
** e2d00e9afba96cec9f0e7ea560bbfc4a539fae6a: time_stats.attn_decode.median
** (ms) of the first 80 rows (n_embd 8192, 64 query / 8 KV heads, tensor
** parallelism 2, kv_cache_size 32, batch_size 1..80, FlashAttention):
** decode attention over a tiny cache, i.e. the kernel's floor. */
static const double attn_floor[] = {
	.015, .014, .013, .013, .013, .012, .013, .012, .012, .013,
	.012, .012, .012, .016, .016, .016, .016, .016, .016, .016,
	.017, .009, .009, .009, .009, .009, .009, .011, .011, .011,
	.012, .012, .012, .012, .012, .012, .012, .012, .012, .012,
	.012, .012, .012, .012, .012, .012, .012, .012, .012, .012,
	.012, .012, .012, .012, .017, .017, .017, .017, .018, .018,
	.018, .018, .018, .018, .018, .018, .019, .020, .020, .020,
	.020, .020, .020, .020, .020, .020, .020, .020, .020, .020,
};

/* The same file: attn_decode medians (ms) of the rows with kv_cache_size
** 2688 (same shape), batch_size 19..93 (one read of the file, in order):
** decode attention streaming b x 2688 x 2 (K, V) x 4 KV heads x 128 x 2
** bytes per GPU, the bandwidth-bound regime. */
#define ATTN_KV_CTX 2688
#define ATTN_KV_ROW (2.0 * 4 * 128 * 2)
#define ATTN_KV_B0 19
static const double attn_kv[] = {
	.097, .100, .097, .090, .092, .093, .096, .098, .099, .133,
	.134, .135, .137, .138, .137, .137, .139, .137, .140, .141,
	.141, .143, .145, .146, .149, .151, .152, .157, .159, .161,
	.165, .167, .170, .174, .176, .181, .241, .244, .277, .278,
	.278, .278, .280, .282, .281, .281, .280, .282, .284, .283,
	.283, .283, .284, .284, .284, .284, .285, .284, .286, .287,
	.289, .287, .289, .290, .289, .292, .291, .294, .294, .296,
	.299, .300, .302, .305, .308,
};

/* NVIDIA/nccl-tests issue #149 ("Expected bandwidth results? A100 GPUs
** over NVLink", 2023-06-27): all_reduce_perf on 8x A100-SXM4-80GB reaches
** a bus bandwidth of about 200 GB/s; NVLink 3 gives 300 GB/s per
** direction (600 GB/s of the profile is both directions). */
#define NCCL_BUSBW_A100 200e9

/* ---- End-to-end points -------------------------------------------------
** TensorRT-LLM's performance tables (gptSessionBenchmark: static batches,
** the whole batch's prompts in one context step, then generation steps):
**   T05: release/0.5.0, docs/source/performance.md, "High Throughput"
**        (https://raw.githubusercontent.com/NVIDIA/TensorRT-LLM/
**        release/0.5.0/docs/source/performance.md), out tok/s;
**   T05L: docs/source/performance.md at commit
**        138f96d45f90b9667426f7c47297d8c06bafac73, "Low Latency" (data
**        from v0.5), 1st token latency at batch 1;
**   T061: the same file and commit, "Peak Throughput" (v0.6.1), out tok/s
**        (per GPU for H100; only TP 1 rows are used, where per GPU and
**        per replica agree);
**   T09: nvidia.github.io/TensorRT-LLM/performance/perf-overview.html,
**        "All data was generated using version 0.9.0", out tok/s/GPU.
** "LLaMA 7B/70B" in these tables are Llama-2 (the file's methodology
** builds "Llama2-7b, Llama2-70b"); "A100" is an A100-SXM4-80GB and
** "H100" an H100-SXM5-80GB (assumption: the tables name no variant; NVIDIA
** benchmarks on DGX/HGX systems). */
#define T05 "TensorRT-LLM release/0.5.0 docs/source/performance.md, High " \
	    "Throughput"
#define T05L "TensorRT-LLM docs/source/performance.md @ 138f96d, Low " \
	     "Latency (v0.5 data)"
#define T061 "TensorRT-LLM docs/source/performance.md @ 138f96d, Peak " \
	     "Throughput (v0.6.1)"
#define T09 "TensorRT-LLM perf-overview (v0.9.0 data), Peak Throughput"
#define FP16 LLM_PREC_FP16
#define FP8 LLM_PREC_FP8
#define TP LLM_M_TPUT
#define TG LLM_M_TPUT_GPU
#define TT LLM_M_TTFT_MS
static const struct llm_point points[] = {
	/* calibration: the per-iteration overhead */
	{ "T05-a100-7b-64x128/128", "llama-2-7b", "a100-80gb", FP16, 1, 64,
	  128, 128, TP, 3486, 1, "TensorRT-LLM v0.5.0", T05 },
	/* check only */
	{ "T05-a100-7b-32x128/2048", "llama-2-7b", "a100-80gb", FP16, 1, 32,
	  128, 2048, TP, 1459, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-a100-7b-32x2048/128", "llama-2-7b", "a100-80gb", FP16, 1, 32,
	  2048, 128, TP, 529, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-a100-7b-16x2048/2048", "llama-2-7b", "a100-80gb", FP16, 1, 16,
	  2048, 2048, TP, 592, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-7b-64x128/128", "llama-2-7b", "h100-sxm", FP8, 1, 64,
	  128, 128, TP, 9193, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-7b-64x128/2048", "llama-2-7b", "h100-sxm", FP8, 1, 64,
	  128, 2048, TP, 5367, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-7b-64x2048/128", "llama-2-7b", "h100-sxm", FP8, 1, 64,
	  2048, 128, TP, 2058, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-7b-32x2048/2048", "llama-2-7b", "h100-sxm", FP8, 1, 32,
	  2048, 2048, TP, 2230, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-70b-tp4-64x128/128", "llama-2-70b", "h100-sxm", FP8, 4,
	  64, 128, 128, TP, 3317, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-70b-tp4-64x128/2048", "llama-2-70b", "h100-sxm", FP8, 4,
	  64, 128, 2048, TP, 2616, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-70b-tp4-64x2048/128", "llama-2-70b", "h100-sxm", FP8, 4,
	  64, 2048, 128, TP, 843, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05-h100-70b-tp4-64x2048/2048", "llama-2-70b", "h100-sxm", FP8, 4,
	  64, 2048, 2048, TP, 1583, 0, "TensorRT-LLM v0.5.0", T05 },
	{ "T05L-a100-7b-ttft128", "llama-2-7b", "a100-80gb", FP16, 1, 1, 128,
	  1, TT, 16, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-a100-7b-ttft2048", "llama-2-7b", "a100-80gb", FP16, 1, 1,
	  2048, 1, TT, 133, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-a100-70b-tp4-ttft128", "llama-2-70b", "a100-80gb", FP16, 4, 1,
	  128, 1, TT, 47, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-a100-70b-tp4-ttft2048", "llama-2-70b", "a100-80gb", FP16, 4,
	  1, 2048, 1, TT, 377, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-h100-7b-ttft128", "llama-2-7b", "h100-sxm", FP8, 1, 1, 128, 1,
	  TT, 7, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-h100-7b-ttft2048", "llama-2-7b", "h100-sxm", FP8, 1, 1, 2048,
	  1, TT, 36, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-h100-70b-tp4-ttft128", "llama-2-70b", "h100-sxm", FP8, 4, 1,
	  128, 1, TT, 26, 0, "TensorRT-LLM v0.5", T05L },
	{ "T05L-h100-70b-tp4-ttft2048", "llama-2-70b", "h100-sxm", FP8, 4, 1,
	  2048, 1, TT, 109, 0, "TensorRT-LLM v0.5", T05L },
	{ "T061-a100-7b-384x128/128", "llama-2-7b", "a100-80gb", FP16, 1, 384,
	  128, 128, TP, 5586, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-a100-7b-60x128/2048", "llama-2-7b", "a100-80gb", FP16, 1, 60,
	  128, 2048, TP, 1928, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-a100-7b-52x2048/128", "llama-2-7b", "a100-80gb", FP16, 1, 52,
	  2048, 128, TP, 591, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-h100-7b-768x128/128", "llama-2-7b", "h100-sxm", FP8, 1, 768,
	  128, 128, TG, 19694, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-h100-7b-112x128/2048", "llama-2-7b", "h100-sxm", FP8, 1, 112,
	  128, 2048, TG, 6818, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-h100-7b-80x2048/128", "llama-2-7b", "h100-sxm", FP8, 1, 80,
	  2048, 128, TG, 2244, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T061-h100-7b-48x2048/2048", "llama-2-7b", "h100-sxm", FP8, 1, 48,
	  2048, 2048, TG, 2740, 0, "TensorRT-LLM v0.6.1", T061 },
	{ "T09-h200-mistral-896x128/128", "mistral-7b", "h200", FP8, 1, 896,
	  128, 128, TG, 20460, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-mistral-120x128/2048", "mistral-7b", "h200", FP8, 1, 120,
	  128, 2048, TG, 8950, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-mistral-64x2048/128", "mistral-7b", "h200", FP8, 1, 64,
	  2048, 128, TG, 2423, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-mistral-56x2048/2048", "mistral-7b", "h200", FP8, 1, 56,
	  2048, 2048, TG, 3867, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-7b-896x128/128", "llama-2-7b", "h200", FP8, 1, 896, 128,
	  128, TG, 20618, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-7b-120x128/2048", "llama-2-7b", "h200", FP8, 1, 120, 128,
	  2048, TG, 8348, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-7b-64x2048/128", "llama-2-7b", "h200", FP8, 1, 64, 2048,
	  128, TG, 2391, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-7b-56x2048/2048", "llama-2-7b", "h200", FP8, 1, 56, 2048,
	  2048, TG, 3522, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-70b-1024x128/128", "llama-2-70b", "h200", FP8, 1, 1024,
	  128, 128, TG, 3989, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-70b-64x2048/128", "llama-2-70b", "h200", FP8, 1, 64, 2048,
	  128, TG, 418, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h200-70b-64x2048/2048", "llama-2-70b", "h200", FP8, 1, 64,
	  2048, 2048, TG, 1458, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-mistral-896x128/128", "mistral-7b", "h100-sxm", FP8, 1,
	  896, 128, 128, TG, 20404, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-mistral-120x128/2048", "mistral-7b", "h100-sxm", FP8, 1,
	  120, 128, 2048, TG, 8623, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-mistral-84x2048/128", "mistral-7b", "h100-sxm", FP8, 1, 84,
	  2048, 128, TG, 2405, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-mistral-56x2048/2048", "mistral-7b", "h100-sxm", FP8, 1,
	  56, 2048, 2048, TG, 3731, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-7b-896x128/128", "llama-2-7b", "h100-sxm", FP8, 1, 896,
	  128, 128, TG, 19854, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-7b-120x128/2048", "llama-2-7b", "h100-sxm", FP8, 1, 120,
	  128, 2048, TG, 6944, 0, "TensorRT-LLM v0.9.0", T09 },
	{ "T09-h100-7b-84x2048/128", "llama-2-7b", "h100-sxm", FP8, 1, 84,
	  2048, 128, TG, 2163, 0, "TensorRT-LLM v0.9.0", T09 },
};
#undef FP16
#undef FP8
#undef TP
#undef TG
#undef TT
#define NPOINTS (sizeof points / sizeof points[0])

size_t llm_op_point_count(void)
{
	return NOP_POINTS;
}

const struct llm_op_point *llm_op_point_at(size_t i)
{
	return i < NOP_POINTS ? &op_points[i] : NULL;
}

const double *llm_attn_floor_points(size_t *n)
{
	*n = sizeof attn_floor / sizeof attn_floor[0];
	return attn_floor;
}

const char *llm_metric_name(enum llm_metric m)
{
	switch (m) {
	case LLM_M_TTFT_MS: return "ttft_ms";
	case LLM_M_TPUT: return "out_tok_per_s";
	case LLM_M_TPUT_GPU: return "out_tok_per_s_per_gpu";
	}
	return "?";
}

size_t llm_point_count(void)
{
	return NPOINTS;
}

const struct llm_point *llm_point_at(size_t i)
{
	return i < NPOINTS ? &points[i] : NULL;
}

void llm_static_run(const struct llm_model *m, int batch, int input,
		    int output, double *ttft_ns, double *total_ns)
{
	struct llm_iter it;
	double total;
	int j;

	memset(&it, 0, sizeof it);
	it.nprefill = batch;
	it.prefill_tokens = (int64_t)batch * input;
	it.prefill_pairs = (double)batch * input * ((input + 1) / 2.0);
	it.prefill_kv = (double)batch * input;
	it.nsample = batch;
	*ttft_ns = (double)llm_step_ns(m, &it);
	total = *ttft_ns;
	memset(&it, 0, sizeof it);
	it.ndecode = batch;
	it.nsample = batch;
	/* generation step j feeds token j, which attends to the prompt and
	** tokens 1..j */
	for (j = 1; j < output; j++) {
		it.decode_ctx = (int64_t)batch * (input + j);
		total += (double)llm_step_ns(m, &it);
	}
	*total_ns = total;
}

int llm_point_predict(const struct llm_point *p, const struct llm_consts *c,
		      llm_dev_find_fn find, void *ctx, double *pred,
		      struct sim_err *err)
{
	const struct llm_arch *a = llm_arch_find(p->model);
	const struct dev_profile *d = find ? find(ctx, p->device) : NULL;
	struct llm_model m;
	double ttft, total;
	int rc;

	if (a == NULL)
		return sim_err_set(err, SIM_ENOENT, "point %s: unknown model %s",
				   p->id, p->model);
	if (d == NULL)
		return sim_err_set(err, SIM_ENOENT,
				   "point %s: no device profile %s", p->id,
				   p->device);
	rc = llm_model_init(&m, a, d, p->prec, p->tp, c, err);
	if (rc)
		return rc;
	llm_static_run(&m, p->batch, p->input, p->output, &ttft, &total);
	switch (p->metric) {
	case LLM_M_TTFT_MS:
		*pred = ttft / 1e6;
		break;
	case LLM_M_TPUT:
		*pred = (double)p->batch * p->output / (total / 1e9);
		break;
	case LLM_M_TPUT_GPU:
		*pred = (double)p->batch * p->output / (total / 1e9) / p->tp;
		break;
	}
	return 0;
}

static double median(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Elementwise elements per token of Llama-2-7B's block (llm.c): 7 d + 2
** (q + kv) + 3 f at TP 1. */
static double elem_7b(void)
{
	return 7.0 * 4096 + 2 * (4096 + 4096) + 3.0 * 11008;
}

int llm_fit(struct llm_consts *c, const struct dev_profile *a100,
	    llm_dev_find_fn find, void *ctx, struct sim_err *err)
{
	double mem[NOP_POINTS], cmp[NOP_POINTS], attn[128];
	double sum1 = 0, sum8 = 0, sum4096 = 0, pred, base, meas;
	size_t i, nm = 0, nc = 0, na;
	const double *af = llm_attn_floor_points(&na);
	const struct llm_point *cal = NULL;
	int rc;

	if (a100 == NULL || !(a100->fp16_flops > 0))
		return sim_err_set(err, SIM_EINVAL,
				   "llm fit: no A100-80GB profile");
	for (i = 0; i < NOP_POINTS; i++) {
		const struct llm_op_point *p = &op_points[i];
		double t = p->ms * 1e-3;

		if (p->kind == LLM_OP_SMALL) {
			if (p->tokens == 1)
				sum1 += p->ms;
			else if (p->tokens == 8)
				sum8 += p->ms;
			else if (p->tokens == 4096)
				sum4096 += p->ms;
			continue;
		}
		if (p->tokens <= 32)
			mem[nm++] = (2 * p->in * p->out + 2.0 * p->tokens *
				     (p->in + p->out)) / (t * a100->hbm_bw_bytes_per_s);
		else
			cmp[nc++] = 2.0 * p->tokens * p->in * p->out /
				    (t * a100->fp16_flops);
	}
	c->eta_bw = median(mem, nm);
	c->eta_flops = median(cmp, nc);
	c->eta_elem = 4096 * elem_7b() * 2 /
		      (sum4096 * 1e-3 * a100->hbm_bw_bytes_per_s);
	c->t_small_ns = (sim_time)llround((sum1 + sum8) / 2 * 1e6);
	memcpy(attn, af, na * sizeof *af);
	c->t_attn_ns = (sim_time)llround(median(attn, na) * 1e6);
	na = sizeof attn_kv / sizeof attn_kv[0];
	for (i = 0; i < na; i++)
		attn[i] = (double)(ATTN_KV_B0 + (int)i) * ATTN_KV_CTX *
			  ATTN_KV_ROW / (attn_kv[i] * 1e-3 *
					 a100->hbm_bw_bytes_per_s);
	c->eta_kv = median(attn, na);
	c->eta_link = NCCL_BUSBW_A100 / (a100->nvlink_bytes_per_s / 2);
	/* the overhead: the calibration end-to-end point, everything else
	** fixed; a static run has `output` iterations */
	for (i = 0; i < NPOINTS; i++)
		if (points[i].cal)
			cal = &points[i];
	if (cal == NULL || cal->metric != LLM_M_TPUT)
		return sim_err_set(err, SIM_ESTATE,
				   "llm fit: no calibration throughput point");
	c->t_iter0_ns = 0;
	rc = llm_point_predict(cal, c, find, ctx, &pred, err);
	if (rc)
		return rc;
	base = (double)cal->batch * cal->output / pred;
	meas = (double)cal->batch * cal->output / cal->value;
	c->t_iter0_ns = meas > base ?
		(sim_time)llround((meas - base) * 1e9 / cal->output) : 0;
	return 0;
}

int llm_validate(const struct llm_consts *c, llm_dev_find_fn find, void *ctx,
		 struct llm_valid *rows, size_t nrows, double *median_cal,
		 double *median_check, struct sim_err *err)
{
	double ecal[NPOINTS], echk[NPOINTS];
	size_t i, ncal = 0, nchk = 0;
	int rc;

	if (nrows < NPOINTS)
		return sim_err_set(err, SIM_EINVAL,
				   "llm validate: %zu rows for %zu points",
				   nrows, (size_t)NPOINTS);
	for (i = 0; i < NPOINTS; i++) {
		rc = llm_point_predict(&points[i], c, find, ctx, &rows[i].pred,
				       err);
		if (rc)
			return rc;
		rows[i].err = (rows[i].pred - points[i].value) /
			      points[i].value;
		if (points[i].cal)
			ecal[ncal++] = fabs(rows[i].err);
		else
			echk[nchk++] = fabs(rows[i].err);
	}
	*median_cal = ncal ? median(ecal, ncal) : 0;
	*median_check = nchk ? median(echk, nchk) : 0;
	return 0;
}
