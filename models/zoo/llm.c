/*
** llm.c: the LLM architectures of models/llm.c (Llama-2 7B/13B/70B,
** Llama-3 8B/70B, Mistral-7B, Mixtral-8x7B) as zoo models, so that a
** training job or a fixed-batch inference service can name them too.  The
** shapes come from llm_arch_at(); this file only counts them the zoo's way
** (build.h): 2 FLOPs per weight per token, attention 4 s^2 d per block in
** full, the LM head over every position, activations by Korthikanti et
** al. (MLSys'23) eq. 1 as for llama-7b (transformer.c).
**
** Grouped-query attention: k and v project to kv_heads x head_dim.  A
** mixture of experts: every token runs experts_per_token of the experts'
** FFNs (their parameters and FLOPs), the other experts add parameters
** only; activations count the visited experts.
**
** A sample is one sequence of 4096 tokens (Llama-2's context; Llama-3's
** 8192 halved to keep the same sample; an assumption for Mistral and
** Mixtral, whose 32k window is not a training length).  Groups: the
** embedding, the blocks (two per group past 62 blocks, so that 80-block
** models fit ZOO__MAX_GROUPS), the head.
*/
#include "models/llm.h"
#include "models/zoo/build.h"

#define ZLLM_SEQ 4096

static void block(struct zoo__b *b, const struct llm_arch *a, uint64_t kv)
{
	const int s = ZLLM_SEQ, d = a->d_model, f = a->ffn;
	const int q = a->heads * a->head_dim, k = a->kv_heads * a->head_dim;
	uint64_t sd = (uint64_t)s * d, attn_live, mlp_live;
	int e;

	zoo__params(b, 2 * (uint64_t)d);                     /* two norms */
	zoo__linear(b, d, q, s, 0);                          /* q */
	zoo__linear(b, d, k, s, 0);                          /* k */
	zoo__linear(b, d, k, s, 0);                          /* v */
	zoo__flops(b, 4.0 * s * (double)s * q);              /* QK^T, AV */
	zoo__linear(b, q, d, s, 0);                          /* output */
	if (a->experts > 1)
		zoo__linear(b, d, a->experts, s, 0);         /* router */
	for (e = 0; e < a->experts; e++) {
		if (e < a->experts_per_token) {
			zoo__linear(b, d, f, s, 0);          /* gate */
			zoo__linear(b, d, f, s, 0);          /* up */
			zoo__linear(b, f, d, s, 0);          /* down */
		} else {
			zoo__params(b, 3 * (uint64_t)d * f);
		}
	}
	zoo__act_train(b, sd * 17 + (uint64_t)5 * a->heads * s * s / 2);
	attn_live = 3 * sd + 2 * (uint64_t)s * k + (uint64_t)a->heads * s * s;
	mlp_live = 2 * sd + 2 * (uint64_t)s * f * a->experts_per_token;
	zoo__hold(b, kv);
	zoo__act_live(b, attn_live > mlp_live ? attn_live : mlp_live);
}

static void build_one(struct zoo__slot *slot, const struct llm_arch *a)
{
	struct zoo__b b;
	const int s = ZLLM_SEQ, d = a->d_model;
	const int per = a->layers > ZOO__MAX_GROUPS - 2 ? 2 : 1;
	uint64_t kv_tok = 2 * (uint64_t)a->kv_heads * a->head_dim;
	int i;

	zoo__begin(&b, slot, a->name, a->display, "llm", s, a->source);
	b.manual_act = 1;
	zoo__group(&b, "embed");
	zoo__params(&b, (uint64_t)a->vocab * d);
	zoo__act_train(&b, (uint64_t)s * d);
	for (i = 0; i < a->layers; i++) {
		if (i % per == 0) {
			if (per == 1)
				zoo__group(&b, "block.%d", i);
			else
				zoo__group(&b, "block.%d-%d", i, i + per - 1);
		}
		/* the KV cache of the blocks so far (GQA: kv_heads) */
		block(&b, a, (uint64_t)i * s * kv_tok);
	}
	zoo__hold(&b, (uint64_t)a->layers * s * kv_tok);
	zoo__group(&b, "head");
	zoo__params(&b, (uint64_t)d);                        /* final norm */
	zoo__params(&b, (uint64_t)a->vocab * d);             /* LM head */
	zoo__flops(&b, 2.0 * s * (double)d * a->vocab);
	zoo__act_train(&b, (uint64_t)s * a->vocab);
	zoo__act_live(&b, (uint64_t)s * d + (uint64_t)s * a->vocab);
	zoo__end(&b);
}

int zoo__build_llms(struct zoo__slot *s)
{
	size_t i, n = llm_arch_count();

	for (i = 0; i < n; i++)
		build_one(&s[i], llm_arch_at(i));
	return (int)n;
}
