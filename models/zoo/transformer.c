/*
** transformer.c: BERT-base, BERT-large (Devlin et al., NAACL 2019; the
** HuggingFace BertModel with its pooler, without a task head), GPT-2 small
** (Radford et al. 2019, 124M; LM head tied to the token embedding) and
** LLaMA-7B (Touvron et al. 2023, Table 2: d=4096, 32 heads, 32 layers,
** SwiGLU FFN of 11008, RMSNorm, no biases, untied LM head, vocabulary
** 32000).  One group for the embeddings, one per transformer block, one
** for the head, so that pipelined loading streams block by block.
**
** A sample is one sequence of input_len tokens: 128 for BERT (the usual
** fine-tuning and serving length), the full context for GPT-2 (1024) and
** LLaMA (2048).  FLOPs: 2 per weight per token for every linear layer,
** plus 4 s^2 d per block for the attention scores and the weighted sum
** (full, not causally halved, as dense kernels compute it).
** Activations kept for backward: Korthikanti et al., "Reducing Activation
** Recomputation in Large Transformer Models" (MLSys 2023), eq. 1:
** s d (34 + 5 a s / d) bytes per block at 16 bits, i.e.
** s d (17 + 2.5 a s / d) elements, stored here as FP32 elements.
** Published parameters: BERT-base 110M, BERT-large 340M (Devlin et al.;
** the exact BertModel counts are 109,482,240 and 335,141,888), GPT-2 124M
** (124,439,808), LLaMA-7B 6.7B (6,738,415,616).
*/
#include "models/zoo/build.h"

struct tf_shape {
	const char *name, *display, *task, *source;
	int layers, d, heads, ffn, vocab, seq, max_pos, type_vocab;
	int llama;            /* SwiGLU, RMSNorm, no biases, untied head */
	int decoder;          /* keeps a KV cache in inference */
};

static void block(struct zoo__b *b, const struct tf_shape *t, uint64_t kv)
{
	const int s = t->seq, d = t->d, f = t->ffn, bias = !t->llama;
	uint64_t sd = (uint64_t)s * d, attn_live, mlp_live;

	zoo__params(b, (uint64_t)(t->llama ? 2 : 4) * d);   /* two norms */
	zoo__linear(b, d, 3 * d, s, bias);                   /* q, k, v */
	zoo__flops(b, 4.0 * s * (double)s * d);              /* QK^T, AV */
	zoo__linear(b, d, d, s, bias);                       /* output */
	if (t->llama) {
		zoo__linear(b, d, f, s, 0);                  /* gate */
		zoo__linear(b, d, f, s, 0);                  /* up */
		zoo__linear(b, f, d, s, 0);                  /* down */
	} else {
		zoo__linear(b, d, f, s, 1);
		zoo__linear(b, f, d, s, 1);
	}
	/* Korthikanti et al. eq. 1, in elements */
	zoo__act_train(b, sd * 17 + (uint64_t)5 * t->heads * s * s / 2);
	/* inference: residual + input + q, k, v + scores, or residual +
	** input + FFN hidden (two of them with SwiGLU) */
	attn_live = 5 * sd + (uint64_t)t->heads * s * s;
	mlp_live = 2 * sd + (uint64_t)(t->llama ? 2 : 1) * s * f;
	zoo__hold(b, kv);
	zoo__act_live(b, attn_live > mlp_live ? attn_live : mlp_live);
}

static void transformer(struct zoo__slot *slot, const struct tf_shape *t)
{
	struct zoo__b b;
	const int s = t->seq, d = t->d;
	uint64_t kv = 0;
	int i;

	zoo__begin(&b, slot, t->name, t->display, t->task, s, t->source);
	b.manual_act = 1;
	zoo__group(&b, "embed");
	zoo__params(&b, (uint64_t)t->vocab * d);
	if (!t->llama)
		zoo__params(&b, (uint64_t)t->max_pos * d);
	if (t->type_vocab > 0)      /* BERT: segment embedding + LayerNorm */
		zoo__params(&b, (uint64_t)t->type_vocab * d + 2 * (uint64_t)d);
	zoo__act_train(&b, (uint64_t)s * d);
	for (i = 0; i < t->layers; i++) {
		zoo__group(&b, "block.%d", i);
		if (t->decoder)     /* the KV cache of the blocks so far */
			kv = 2 * (uint64_t)i * s * d;
		block(&b, t, kv);
	}
	zoo__hold(&b, t->decoder ? 2 * (uint64_t)t->layers * s * d : 0);
	zoo__group(&b, "head");
	if (t->type_vocab > 0) {
		/* BERT pooler: dense + tanh on the first token */
		zoo__linear(&b, d, d, 1, 1);
		zoo__act_train(&b, (uint64_t)d);
	} else {
		/* final norm, then the LM head over every position (its
		** weights tied to the embedding for GPT-2) */
		zoo__params(&b, (uint64_t)(t->llama ? 1 : 2) * d);
		if (t->llama)
			zoo__params(&b, (uint64_t)t->vocab * d);
		zoo__flops(&b, 2.0 * s * (double)d * t->vocab);
		zoo__act_train(&b, (uint64_t)s * t->vocab);
		zoo__act_live(&b, (uint64_t)s * d + (uint64_t)s * t->vocab);
	}
	zoo__end(&b);
}

int zoo__build_transformers(struct zoo__slot *s)
{
	static const struct tf_shape shapes[4] = {
		{ "bert-base", "BERT-base", "nlp",
		  "Devlin et al. NAACL 2019 (L=12, H=768, A=12): 110M "
		  "params; HuggingFace BertModel incl. pooler; seq 128",
		  12, 768, 12, 3072, 30522, 128, 512, 2, 0, 0 },
		{ "bert-large", "BERT-large", "nlp",
		  "Devlin et al. NAACL 2019 (L=24, H=1024, A=16): 340M "
		  "params; HuggingFace BertModel incl. pooler; seq 128",
		  24, 1024, 16, 4096, 30522, 128, 512, 2, 0, 0 },
		{ "gpt2", "GPT-2 (124M)", "llm",
		  "Radford et al. 2019, smallest GPT-2 (L=12, d=768, "
		  "A=12, ctx 1024, vocab 50257, tied head): 124M params",
		  12, 768, 12, 3072, 50257, 1024, 1024, 0, 0, 1 },
		{ "llama-7b", "LLaMA-7B", "llm",
		  "Touvron et al. 2023 Table 2 (d=4096, 32 heads, 32 "
		  "layers, FFN 11008, vocab 32000, ctx 2048): 6.7B params",
		  32, 4096, 32, 11008, 32000, 2048, 2048, 0, 1, 1 },
	};
	int i;

	static const int batch[4] = { 32, 32, 8, 1 };

	for (i = 0; i < 4; i++) {
		transformer(&s[i], &shapes[i]);
		s[i].m.default_batch = batch[i];
	}
	return 4;
}
