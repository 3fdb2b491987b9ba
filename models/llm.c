/*
** llm.c: LLM architectures, per-token costs, replica memory and the
** iteration-time roofline (llm.h; docs/MODEL.md, "LLM serving").
**
** The architectures are the published configs (HuggingFace config.json of
** each checkpoint, which the model papers' tables match); parameter counts
** are computed from the shapes and checked against the published exact
** counts in tests/test_llm.c.  The calibrated constants of
** llm_consts_default() and the points they were fitted on are in
** models/llm_points.c (the fit is redone by tests/test_llm.c).
*/
#include "models/llm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "models/link.h"

/*
** The zoo of LLMs.  Sources (every number of a row is in its config):
**   Llama-2: Touvron et al., "Llama 2", 2023, Table 1 (context 4k, GQA for
**     70B) and meta-llama/Llama-2-{7b,13b,70b}-hf config.json;
**   Llama-3: Meta, Llama 3 model card (2024; 8k context, GQA 8 KV heads,
**     128K vocabulary) and meta-llama/Meta-Llama-3-{8B,70B} config.json;
**   Mistral-7B: Jiang et al., "Mistral 7B", 2023, Table 1 and
**     mistralai/Mistral-7B-v0.1 config.json (sliding window 4096 not
**     modelled: attention spans the whole context, an overestimate past
**     4096 tokens);
**   Mixtral-8x7B: Jiang et al., "Mixtral of Experts", 2024, Table 1 (8
**     experts, top-2) and mistralai/Mixtral-8x7B-v0.1 config.json.
*/
static const struct llm_arch llm_archs[] = {
	{ "llama-2-7b", "Llama-2-7B", 32, 4096, 32, 32, 128, 11008, 32000,
	  4096, 1, 1, 0,
	  "Touvron et al. 2023 Table 1; meta-llama/Llama-2-7b-hf config.json" },
	{ "llama-2-13b", "Llama-2-13B", 40, 5120, 40, 40, 128, 13824, 32000,
	  4096, 1, 1, 0,
	  "Touvron et al. 2023 Table 1; meta-llama/Llama-2-13b-hf config.json" },
	{ "llama-2-70b", "Llama-2-70B", 80, 8192, 64, 8, 128, 28672, 32000,
	  4096, 1, 1, 0,
	  "Touvron et al. 2023 Table 1 (GQA); meta-llama/Llama-2-70b-hf "
	  "config.json" },
	{ "llama-3-8b", "Llama-3-8B", 32, 4096, 32, 8, 128, 14336, 128256,
	  8192, 1, 1, 0,
	  "Meta Llama 3 model card 2024; meta-llama/Meta-Llama-3-8B "
	  "config.json" },
	{ "llama-3-70b", "Llama-3-70B", 80, 8192, 64, 8, 128, 28672, 128256,
	  8192, 1, 1, 0,
	  "Meta Llama 3 model card 2024; meta-llama/Meta-Llama-3-70B "
	  "config.json" },
	{ "mistral-7b", "Mistral-7B", 32, 4096, 32, 8, 128, 14336, 32000,
	  32768, 1, 1, 0,
	  "Jiang et al. 2023 Table 1; mistralai/Mistral-7B-v0.1 config.json" },
	{ "mixtral-8x7b", "Mixtral-8x7B", 32, 4096, 32, 8, 128, 14336, 32000,
	  32768, 8, 2, 0,
	  "Jiang et al. 2024 Table 1; mistralai/Mixtral-8x7B-v0.1 "
	  "config.json" },
};
#define LLM_NARCH (sizeof llm_archs / sizeof llm_archs[0])

/* Activations are 16-bit at every precision (FP8 engines quantise
** weights and the KV cache, not the residual stream). */
#define LLM_ACT_BYTES 2.0

size_t llm_arch_count(void)
{
	return LLM_NARCH;
}

const struct llm_arch *llm_arch_at(size_t i)
{
	return i < LLM_NARCH ? &llm_archs[i] : NULL;
}

const struct llm_arch *llm_arch_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < LLM_NARCH; i++)
		if (strcasecmp(llm_archs[i].name, name) == 0)
			return &llm_archs[i];
	return NULL;
}

void llm_arch_names(char *buf, size_t n)
{
	size_t i, used = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < LLM_NARCH && used < n; i++) {
		int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
				 llm_archs[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

uint64_t llm_arch_block_params(const struct llm_arch *a)
{
	uint64_t d = (uint64_t)a->d_model, hd = (uint64_t)a->head_dim;
	uint64_t q = (uint64_t)a->heads * hd, kv = (uint64_t)a->kv_heads * hd;
	uint64_t attn = d * q + 2 * d * kv + q * d;
	uint64_t ffn = 3 * d * (uint64_t)a->ffn * (uint64_t)a->experts;
	uint64_t router = a->experts > 1 ? d * (uint64_t)a->experts : 0;

	return attn + ffn + router + 2 * d;       /* two RMSNorms */
}

uint64_t llm_arch_params(const struct llm_arch *a)
{
	uint64_t d = (uint64_t)a->d_model, v = (uint64_t)a->vocab;

	/* embedding + blocks + final norm + untied LM head */
	return v * d + (uint64_t)a->layers * llm_arch_block_params(a) + d +
	       v * d;
}

/* Weights one token multiplies in a block: attention, and the FFN of
** each expert it visits (plus the router). */
static double token_block_weights(const struct llm_arch *a)
{
	double d = a->d_model, hd = a->head_dim;
	double q = a->heads * hd, kv = a->kv_heads * hd;
	double w = d * q + 2 * d * kv + q * d;

	w += 3.0 * d * a->ffn * a->experts_per_token;
	if (a->experts > 1)
		w += d * a->experts;
	return w;
}

double llm_flops_per_token(const struct llm_arch *a)
{
	return 2.0 * (a->layers * token_block_weights(a) +
		      (double)a->d_model * a->vocab);
}

double llm_attn_flops_per_token(const struct llm_arch *a, double ctx)
{
	return 4.0 * ctx * a->heads * (double)a->head_dim * a->layers;
}

int llm_prec_parse(const char *s, enum llm_prec *out)
{
	if (s == NULL)
		return SIM_EINVAL;
	if (strcasecmp(s, "fp16") == 0)
		*out = LLM_PREC_FP16;
	else if (strcasecmp(s, "bf16") == 0)
		*out = LLM_PREC_BF16;
	else if (strcasecmp(s, "fp8") == 0)
		*out = LLM_PREC_FP8;
	else
		return SIM_EINVAL;
	return 0;
}

const char *llm_prec_name(enum llm_prec p)
{
	switch (p) {
	case LLM_PREC_FP16: return "fp16";
	case LLM_PREC_BF16: return "bf16";
	case LLM_PREC_FP8: return "fp8";
	}
	return "?";
}

int llm_prec_bytes(enum llm_prec p)
{
	return p == LLM_PREC_FP8 ? 1 : 2;
}

uint64_t llm_kv_bytes_per_token(const struct llm_arch *a, int kv_bytes)
{
	return 2 * (uint64_t)a->layers * (uint64_t)a->kv_heads *
	       (uint64_t)a->head_dim * (uint64_t)kv_bytes;
}

/* The calibrated constants: models/llm_points.c holds the points and the
** fit (llm_fit), docs/MODEL.md the table.  tests/test_llm.c redoes the fit
** and checks that these values are its result. */
void llm_consts_default(struct llm_consts *c)
{
	c->eta_flops = 0.7047;    /* median GEMM rate, Vidur A100 7B ops */
	c->eta_bw = 0.7466;       /* median weight-read rate, same */
	c->eta_kv = 0.7135;       /* decode attention, Vidur A100 rows */
	c->eta_elem = 0.4620;     /* elementwise kernels, 4096 tokens */
	c->eta_attn = 0.62;       /* FlashAttention-2 forward, assumption */
	c->eta_link = 0.6667;     /* nccl-tests busbw 200 of 300 GB/s */
	c->t_small_ns = 23500;    /* small kernels of a block, 1-8 tokens */
	c->t_attn_ns = 13000;     /* decode attention over 32 tokens */
	c->t_hop_ns = 1000;       /* NCCL LL protocol, per hop */
	c->t_iter0_ns = 202000;   /* fitted on TRT-LLM A100 7B bs64 */
	c->t_seq_ns = 0;          /* not fitted: no per-sequence term */
}

static double peak_of(const struct dev_profile *d, enum llm_prec p)
{
	switch (p) {
	case LLM_PREC_FP16: return d->fp16_flops;
	case LLM_PREC_BF16: return d->bf16_flops;
	case LLM_PREC_FP8: return d->fp8_flops;
	}
	return 0;
}

/* One linear operator of a block: weights in x out split over the GPUs
** (column-parallel splits out, row-parallel splits in: same count). */
static void add_op(struct llm_model *m, double in, double out, double tok,
		   int moe, int row)
{
	int k = m->nops++;

	m->op_w[k] = in * out / m->tp;
	/* Megatron's split: a column-parallel operator reads the whole input
	** and writes its share of the output, a row-parallel one the
	** reverse (its partial sums are then all-reduced) */
	m->op_io[k] = row ? in / m->tp + out : in + out / m->tp;
	m->op_tok[k] = tok;
	m->op_moe[k] = moe;
}

int llm_model_init(struct llm_model *m, const struct llm_arch *a,
		   const struct dev_profile *d, enum llm_prec prec, int tp,
		   const struct llm_consts *c, struct sim_err *err)
{
	double dm, hd, q, kv, f, e;

	memset(m, 0, sizeof *m);
	if (a == NULL || d == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm: no model or device");
	if (tp < 1 || tp > 64)
		return sim_err_set(err, SIM_EINVAL,
				   "tensor-parallel degree %d: must be 1..64", tp);
	if (a->heads % tp != 0)
		return sim_err_set(err, SIM_EINVAL,
				   "tensor-parallel degree %d does not divide "
				   "the %d attention heads of %s", tp, a->heads,
				   a->name);
	if (a->kv_heads % tp != 0 && tp % a->kv_heads != 0)
		return sim_err_set(err, SIM_EINVAL,
				   "tensor-parallel degree %d and the %d KV heads "
				   "of %s: neither divides the other", tp,
				   a->kv_heads, a->name);
	m->peak_flops = peak_of(d, prec);
	if (!(m->peak_flops > 0))
		return sim_err_set(err, SIM_EINVAL,
				   "device %s has no %s peak (%s_flops = 0)",
				   d->name, llm_prec_name(prec),
				   llm_prec_name(prec));
	m->arch = a;
	m->dev = d;
	m->prec = prec;
	m->tp = tp;
	if (c)
		m->c = *c;
	else
		llm_consts_default(&m->c);
	m->wbytes = llm_prec_bytes(prec);
	m->kvbytes = llm_prec_bytes(prec);
	dm = a->d_model;
	hd = a->head_dim;
	q = a->heads * hd;
	kv = a->kv_heads * hd;
	f = a->ffn;
	e = a->experts;
	/* KV heads are split over the GPUs, or replicated when fewer than tp
	** (vLLM's rule): each GPU holds max(1, kv_heads / tp) of them. */
	m->q_per_gpu = q / tp;
	m->kv_per_gpu = (a->kv_heads >= tp ? a->kv_heads / tp : 1) * hd;
	add_op(m, dm, q + 2 * kv, 1, 0, 0);               /* QKV */
	add_op(m, q, dm, 1, 0, 1);                        /* output */
	if (a->experts > 1) {
		m->op_w[m->nops] = dm * e;                /* router, replicated */
		m->op_io[m->nops] = dm + e;
		m->op_tok[m->nops] = 1;
		m->nops++;
		/* the experts' grouped GEMMs: per visit a token reads and
		** writes the activations of one expert */
		add_op(m, dm, 2 * f * e, a->experts_per_token, 1, 0);
		m->op_io[m->nops - 1] = dm + 2 * f / tp;
		add_op(m, f * e, dm, a->experts_per_token, 1, 1);
		m->op_io[m->nops - 1] = f / tp + dm;
	} else {
		add_op(m, dm, 2 * f, 1, 0, 0);            /* gate + up */
		add_op(m, f, dm, 1, 0, 1);                /* down */
	}
	/* Elementwise traffic per token (docs/MODEL.md): two RMSNorms (read,
	** write d), a residual add (2 in, 1 out), rotary on q and k, SiLU-gate
	** (2 f in, f out, per expert visited). */
	m->elem_per_token = 7 * dm + 2 * (m->q_per_gpu + m->kv_per_gpu) +
			    3 * f * a->experts_per_token / tp;
	m->weight_bytes = (double)llm_arch_params(a) * m->wbytes / tp;
	m->kv_bytes_per_token = 2.0 * a->layers * m->kv_per_gpu * m->kvbytes;
	return 0;
}

/* The roofline of one kernel; with acc, also adds its FLOPs and bytes
** (times the repeat count n) for llm_step_profile. */
struct roof_acc {
	double flops, bytes;
};

static double roof_ns(double flops, double pf, double bytes, double pb)
{
	double a = flops / pf, b = bytes / pb;

	return 1e9 * (a > b ? a : b);
}

static double roof_n(double flops, double pf, double bytes, double pb,
		     double n, struct roof_acc *acc)
{
	if (acc != NULL) {
		acc->flops += n * flops;
		acc->bytes += n * bytes;
	}
	return roof_ns(flops, pf, bytes, pb);
}

/* One collective over the tp GPUs of the replica: a kernel's launch floor
** (t_small / 5 kernels), hops_per_rank (n - 1) ring hops, and frac (n - 1)
** / n of the bytes at the NCCL bus bandwidth: a ring all-reduce has 2 (n -
** 1) hops and moves 2 (n - 1) / n of the buffer, an all-gather half. */
static double collective_ns(const struct llm_model *m, double bytes,
			    double hops_per_rank, double frac)
{
	int n = m->tp;
	double bw = m->dev->nvlink_bytes_per_s > 0 ?
		    m->dev->nvlink_bytes_per_s / 2 :
		    m->dev->h2d_pinned_bytes_per_s;

	if (n <= 1 || bytes <= 0)
		return 0;
	return (double)m->c.t_small_ns / 5 +
	       hops_per_rank * (n - 1) * (double)m->c.t_hop_ns +
	       1e9 * frac * (n - 1) / n * bytes / (m->c.eta_link * bw);
}

static void step_terms(const struct llm_model *m, const struct llm_iter *it,
		       struct llm_step_terms *o, struct roof_acc *acc)
{
	const struct llm_arch *a = m->arch;
	const struct llm_consts *c = &m->c;
	double pf = c->eta_flops * m->peak_flops;
	double pb = c->eta_bw * m->dev->hbm_bw_bytes_per_s;
	double pk = c->eta_kv * m->dev->hbm_bw_bytes_per_s;
	double T = (double)it->prefill_tokens + it->ndecode;
	double L = a->layers, lin = 0, small, ap = 0, ad = 0, ar = 0, h = 0;
	double kvrow = 2 * m->kv_per_gpu * m->kvbytes;
	int k;

	memset(o, 0, sizeof *o);
	if (T <= 0 && it->swap_out_blocks <= 0 && it->swap_in_blocks <= 0)
		return;
	for (k = 0; k < m->nops && T > 0; k++) {
		double tok = T * m->op_tok[k], w = m->op_w[k], wread = w;

		if (m->op_moe[k]) {
			/* a token multiplies one expert's weights per visit;
			** the grouped GEMM reads the experts some token
			** visits: E (1 - (1 - k/E)^T) of them under uniform
			** routing (an assumption) */
			double e = a->experts, kk = a->experts_per_token;

			wread = w * (1 - pow(1 - kk / e, T));
			w /= e;
		}
		lin += roof_n(2 * tok * w, pf, wread * m->wbytes +
			      tok * m->op_io[k] * LLM_ACT_BYTES, pb, L, acc);
	}
	small = 0;
	if (T > 0) {
		small = 1e9 * T * m->elem_per_token * LLM_ACT_BYTES /
			(c->eta_elem * m->dev->hbm_bw_bytes_per_s);
		if (acc != NULL)
			acc->bytes += L * T * m->elem_per_token *
				      LLM_ACT_BYTES;
		if (small < (double)c->t_small_ns)
			small = (double)c->t_small_ns;
	}
	if (it->nprefill > 0) {
		ap = roof_n(4 * it->prefill_pairs * m->q_per_gpu,
			    c->eta_attn * m->peak_flops,
			    it->prefill_kv * kvrow + (double)it->prefill_tokens *
			    (2 * m->q_per_gpu * LLM_ACT_BYTES + kvrow), pk, L,
			    acc);
		if (ap < (double)c->t_attn_ns)
			ap = (double)c->t_attn_ns;
	}
	if (it->ndecode > 0) {
		ad = roof_n(4 * (double)it->decode_ctx * m->q_per_gpu, pf,
			    (double)it->decode_ctx * kvrow + it->ndecode *
			    (2 * m->q_per_gpu * LLM_ACT_BYTES + kvrow), pk, L,
			    acc);
		if (ad < (double)c->t_attn_ns)
			ad = (double)c->t_attn_ns;
	}
	if (T > 0)          /* after attention and after the FFN */
		ar = 2 * collective_ns(m, T * a->d_model * LLM_ACT_BYTES, 2, 2);
	if (it->nsample > 0) {
		double w = (double)a->d_model * a->vocab / m->tp;

		h = roof_n(2.0 * it->nsample * w, pf, w * m->wbytes +
			   it->nsample * (a->d_model + (double)a->vocab /
					  m->tp) * LLM_ACT_BYTES, pb, 1, acc);
		/* the logits are gathered to one rank: an all-gather */
		h += collective_ns(m, (double)it->nsample * a->vocab *
				   LLM_ACT_BYTES, 1, 1);
	}
	o->linear = L * lin;
	o->small = L * small;
	o->attn_prefill = L * ap;
	o->attn_decode = L * ad;
	o->allreduce = L * ar;
	o->head = h;
	o->overhead = (double)c->t_iter0_ns +
		      (double)c->t_seq_ns * (it->nprefill + it->ndecode);
	if (it->swap_out_blocks > 0 || it->swap_in_blocks > 0) {
		double blk = m->kv_bytes_per_token * it->block_tokens;

		if (it->swap_out_blocks > 0)
			o->swap += (double)link_transfer_ns(
				blk * (double)it->swap_out_blocks,
				m->dev->d2h_pinned_bytes_per_s,
				m->dev->pcie_latency_ns);
		if (it->swap_in_blocks > 0)
			o->swap += (double)link_transfer_ns(
				blk * (double)it->swap_in_blocks,
				m->dev->h2d_pinned_bytes_per_s,
				m->dev->pcie_latency_ns);
	}
	o->total = o->linear + o->small + o->attn_prefill + o->attn_decode +
		   o->allreduce + o->head + o->overhead + o->swap;
}

void llm_step_terms(const struct llm_model *m, const struct llm_iter *it,
		    struct llm_step_terms *o)
{
	step_terms(m, it, o, NULL);
}

/* SM fraction a unit of F FLOPs can fill: F / (F + F_half), F_half the
** work that takes as long as the fixed cost of an iteration (docs/MODEL.md,
** "LLM replicas in the world": the zoo's rule of "Work profiles" with
** t_iter0 for the device's t0; an assumption). */
void llm_step_profile(const struct llm_model *m, const struct llm_iter *it,
		      struct llm_step_prof *out)
{
	struct llm_step_terms t;
	struct roof_acc acc = { 0, 0 };
	double tc, tm, half, busy;

	memset(out, 0, sizeof *out);
	step_terms(m, it, &t, &acc);
	if (t.total <= 0)
		return;
	busy = t.total - t.overhead - t.swap;
	tc = acc.flops / (m->c.eta_flops * m->peak_flops);
	tm = acc.bytes / m->dev->hbm_bw_bytes_per_s;
	half = (double)m->c.t_iter0_ns * 1e-9 * m->c.eta_flops * m->peak_flops;
	out->total_ns = t.total;
	out->busy_ns = busy > 0 ? busy : 0;
	out->duty = busy > 0 ? busy / t.total : 0;
	out->alpha = tc + tm > 0 ? tc / (tc + tm) : 0;
	out->sat = acc.flops > 0 ? acc.flops / (acc.flops + half) : 0.01;
	if (out->sat < 0.01)
		out->sat = 0.01;
	out->bw_busy = busy > 0 ? 1e9 * tm / busy : 0;
	if (out->bw_busy > 1)
		out->bw_busy = 1;
}

sim_time llm_step_ns(const struct llm_model *m, const struct llm_iter *it)
{
	struct llm_step_terms t;
	double ns;

	llm_step_terms(m, it, &t);
	if (t.total <= 0)
		return 0;
	ns = ceil(t.total);
	if (ns > 9e18)
		return SIM_TIME_MAX;
	return ns < 1 ? 1 : (sim_time)ns;
}

int llm_memory(const struct llm_model *m, double gpu_mem_util,
	       int block_tokens, int max_batched_tokens, int max_seqs,
	       struct llm_mem *out, struct sim_err *err)
{
	const struct llm_arch *a = m->arch;
	double cap, act, left, blk, f = (double)a->ffn / m->tp;

	memset(out, 0, sizeof *out);
	if (!(gpu_mem_util > 0 && gpu_mem_util <= 1))
		return sim_err_set(err, SIM_EINVAL,
				   "gpu_memory_utilization %g: must be in (0, 1]",
				   gpu_mem_util);
	if (block_tokens < 1 || max_batched_tokens < 1 || max_seqs < 1)
		return sim_err_set(err, SIM_EINVAL,
				   "block size, max_num_batched_tokens and "
				   "max_num_seqs must be >= 1");
	/* The workspace of vLLM's profiling run at max_batched_tokens: the
	** residual stream and three d-sized temporaries, q, k and v, and the
	** gate/up/activation tensors of the FFN, plus FP32 logits and
	** probabilities of max_seqs samples (docs/MODEL.md, an assumption:
	** vLLM measures this peak at start-up). */
	act = (double)max_batched_tokens *
	      (4.0 * a->d_model + m->q_per_gpu + 2 * m->kv_per_gpu + 3 * f) *
	      LLM_ACT_BYTES + (double)max_seqs * a->vocab / m->tp * 4 * 2;
	cap = (double)m->dev->hbm_bytes * gpu_mem_util;
	blk = m->kv_bytes_per_token * block_tokens;
	left = cap - (double)m->dev->ctx_bytes - m->weight_bytes - act;
	out->weight_bytes = (uint64_t)ceil(m->weight_bytes);
	out->act_bytes = (uint64_t)ceil(act);
	out->ctx_bytes = m->dev->ctx_bytes;
	out->block_bytes = (uint64_t)ceil(blk);
	if (left < blk)
		return sim_err_set(err, SIM_ENOSPC,
				   "%s at %s with tensor parallelism %d does not "
				   "fit with its KV cache on %s: weights %.1f GiB "
				   "+ workspace %.1f GiB + context %.1f GiB per "
				   "GPU leave no room for one %d-token block in "
				   "%.1f GiB (%.0f%% of HBM)", a->name,
				   llm_prec_name(m->prec), m->tp, m->dev->name,
				   m->weight_bytes / 1073741824.0,
				   act / 1073741824.0,
				   (double)m->dev->ctx_bytes / 1073741824.0,
				   block_tokens, cap / 1073741824.0,
				   gpu_mem_util * 100);
	out->blocks = (int64_t)floor(left / blk);
	out->kv_bytes = (uint64_t)out->blocks * out->block_bytes;
	out->total_bytes = out->ctx_bytes + out->weight_bytes +
			   out->act_bytes + out->kv_bytes;
	return 0;
}
