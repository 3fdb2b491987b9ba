/*
** test_zoo.c: the model zoo (models/zoo.h) against published parameter
** counts and FLOPs, and the consistency of its layer groups.
*/
#include <stdio.h>
#include <string.h>

#include "models/zoo.h"
#include "tests/util.h"

struct published {
	const char *name;
	double params;        /* published parameter count */
	uint64_t exact;       /* the framework's exact count */
	double gmac;          /* published forward GMAC per sample, 0 unknown */
};

/* Parameters: the papers (ResNet-50 25.6M, VGG-16 138M, BERT-base 110M,
** BERT-large 340M, GPT-2 124M, LLaMA-7B 6.7B: the list) and
** torchvision's / HuggingFace's model tables for the exact counts.  GMAC:
** torchvision's model table (ResNet-50 4.09, ResNet-152 11.51, VGG-16
** 15.47, Inception-v3 5.71, DenseNet-201 4.29, MobileNetV2 0.30). */
static const struct published pub[] = {
	{ "resnet50", 25.6e6, 25557032, 4.09 },
	{ "resnet152", 60.2e6, 60192808, 11.51 },
	{ "vgg16", 138e6, 138357544, 15.47 },
	{ "inception3", 23.85e6, 23834568, 5.71 },
	{ "densenet201", 20.0e6, 20013928, 4.29 },
	{ "mobilenetv2", 3.5e6, 3504872, 0.30 },
	{ "bert-base", 110e6, 109482240, 0 },
	{ "bert-large", 340e6, 335141888, 0 },
	{ "gpt2", 124e6, 124439808, 0 },
	{ "llama-7b", 6.7e9, 6738415616ULL, 0 },
	/* the LLMs of models/llm.c: published sizes (Llama 2 paper 7B, 13B,
	** 70B; Llama 3 card 8B, 70B; Mistral 7.3B; Mixtral 46.7B total) and
	** the HuggingFace checkpoints' exact counts (test_llm.c) */
	{ "llama-2-7b", 6.7e9, 6738415616ULL, 0 },
	{ "llama-2-13b", 13e9, 13015864320ULL, 0 },
	{ "llama-2-70b", 69e9, 68976648192ULL, 0 },
	{ "llama-3-8b", 8.0e9, 8030261248ULL, 0 },
	{ "llama-3-70b", 70.6e9, 70553706496ULL, 0 },
	{ "mistral-7b", 7.3e9, 7241732096ULL, 0 },
	{ "mixtral-8x7b", 46.7e9, 46702792704ULL, 0 },
	/* Gavel's and Lucid's models (models/zoo/gavel.c, lucid.c): the
	** counts of the PyTorch modules their code builds, by hand from the
	** layer shapes (kuangliu ResNet18 and VGG11 and MobileNetV2 are
	** also the repository's published figures: 11.17M, 9.23M, 2.30M) */
	{ "resnet18-cifar10", 11.17e6, 11173962, 0.56 },
	{ "lstm-wikitext2", 13.99e6, 13987678, 0 },
	{ "a3c-pong", 3.25e6, 3249639, 0 },
	{ "cyclegan", 28.29e6, 28285832, 0 },
	{ "vgg11-cifar10", 9.23e6, 9231114, 0 },
	{ "mobilenetv2-cifar10", 2.30e6, 2296922, 0 },
	{ "dcgan-lsun", 6.34e6, 3576704 + 2765568, 0 },
	{ "neumf-movielens", 1.60e6, 1602657, 0 },
	{ "ppo-lunarlander", 9797, 9797, 0 },
	{ "td3-bipedalwalker", 395906, 395906, 0 },
};

static void test_published_params(void)
{
	size_t i;

	for (i = 0; i < sizeof pub / sizeof pub[0]; i++) {
		const struct zoo_model *m = zoo_find(pub[i].name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		/* the 2% bound against the published figure */
		TEST_ASSERT_CLOSE((double)m->params, pub[i].params, 0.02);
		/* and the exact framework count, since we build the same net */
		CU_ASSERT_EQUAL(m->params, pub[i].exact);
		if (m->params != pub[i].exact)
			fprintf(stderr, "%s: %llu params, expected %llu\n",
				pub[i].name, (unsigned long long)m->params,
				(unsigned long long)pub[i].exact);
		if (pub[i].gmac > 0)
			TEST_ASSERT_CLOSE(m->fwd_flops / 2e9, pub[i].gmac, 0.02);
	}
}

/* Transformer FLOPs by hand: 2 * (linear weights) * s + 4 s^2 d L. */
static void test_transformer_flops(void)
{
	const struct zoo_model *m = zoo_find("bert-base");
	double s = 128, d = 768, L = 12, f = 3072;
	double lin = L * (4 * d * d + 2 * d * f);
	double expect = 2 * lin * s + 4 * s * s * d * L + 2 * d * d;  /* pooler */

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	TEST_ASSERT_CLOSE(m->fwd_flops, expect, 1e-9);
	/* LLaMA-7B: about 2 * params * tokens (the usual 2N rule), plus
	** attention; the embedding lookup is free */
	m = zoo_find("llama-7b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	TEST_ASSERT_CLOSE(m->fwd_flops,
			  2.0 * (6738415616.0 - 32000.0 * 4096) * 2048 +
			  4.0 * 2048 * 2048 * 4096 * 32, 1e-3);
	/* Llama-2-70B (GQA, 4096-token sample): 2N per token of the
	** non-embedding weights, plus 4 s^2 (64 x 128) per block */
	m = zoo_find("llama-2-70b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	TEST_ASSERT_CLOSE(m->fwd_flops,
			  2.0 * (68976648192.0 - 32000.0 * 8192) * 4096 +
			  4.0 * 4096 * 4096 * 8192 * 80, 1e-3);
	CU_ASSERT_EQUAL(m->ngroups, 42);       /* two blocks a group */
	/* Mixtral: the FLOPs of 2 of 8 experts, the parameters of all 8 */
	m = zoo_find("mixtral-8x7b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	TEST_ASSERT_CLOSE(m->fwd_flops / 4096 / 2, 12.9e9 - 32000.0 * 4096 +
			  4.0 * 4096 * 4096 * 32 / 2, 0.01);
}

static void test_groups_consistent(void)
{
	size_t i, j, k;

	CU_ASSERT_EQUAL(zoo_count(), 30);
	for (i = 0; i < zoo_count(); i++) {
		const struct zoo_model *m = zoo_at(i);
		uint64_t p = 0;
		double f = 0;
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		/* several groups for pipelined loading; the two-part models
		** (autoencoder, the GANs) have two */
		CU_ASSERT(m->ngroups >= 2 && m->ngroups < 64);
		CU_ASSERT(m->default_batch >= 1);
		CU_ASSERT(m->origin != NULL);
		for (j = 0; j < m->ngroups; j++) {
			p += m->groups[j].params;
			f += m->groups[j].fwd_flops;
			for (k = 0; k < j; k++)
				CU_ASSERT(strcmp(m->groups[j].name,
						 m->groups[k].name) != 0);
		}
		CU_ASSERT_EQUAL(p, m->params);
		TEST_ASSERT_CLOSE(f, m->fwd_flops, 1e-12);
		CU_ASSERT(m->act_train_bytes > m->act_infer_bytes);
		CU_ASSERT(m->act_infer_bytes > 0);
		CU_ASSERT(m->source != NULL && strlen(m->source) > 20);
		CU_ASSERT(m->input_len > 0);
	}
	/* one group per bottleneck: 3+4+6+3 blocks, stem, fc */
	CU_ASSERT_EQUAL(zoo_find("resnet50")->ngroups, 18);
	CU_ASSERT_EQUAL(zoo_find("llama-7b")->ngroups, 34);
	CU_ASSERT_STRING_EQUAL(zoo_find("resnet50")->groups[1].name, "layer1.0");
	CU_ASSERT_EQUAL(zoo_find("resnet50")->groups[17].params,
			2048 * 1000 + 1000);
}

/* Korthikanti et al. eq. 1 for BERT-base at 128 tokens, in FP32. */
static void test_activations(void)
{
	const struct zoo_model *m = zoo_find("bert-base");
	double s = 128, d = 768, a = 12;
	double per_layer = s * d * (17 + 2.5 * a * s / d) * 4;

	TEST_ASSERT_CLOSE((double)m->act_train_bytes,
			  12 * per_layer + (s * d + d) * 4, 1e-6);
	/* ResNet-50: a ~90 MB/sample training footprint (see MODEL.md) */
	m = zoo_find("resnet50");
	CU_ASSERT(m->act_train_bytes > 70e6 && m->act_train_bytes < 110e6);
}

static void test_lookup_and_names(void)
{
	char buf[1024], small[12];

	CU_ASSERT_PTR_NOT_NULL(zoo_find("ResNet50"));
	CU_ASSERT_PTR_NOT_NULL(zoo_find("LLAMA-7B"));
	CU_ASSERT_PTR_NULL(zoo_find("resnet51"));
	CU_ASSERT_PTR_NULL(zoo_find(""));
	CU_ASSERT_PTR_NULL(zoo_find(NULL));
	CU_ASSERT_PTR_NULL(zoo_at(30));
	CU_ASSERT_PTR_NOT_NULL(zoo_find("Transformer-Multi30k"));
	zoo_names(buf, sizeof buf);
	{
		static const char head[] = "resnet50, resnet152, vgg16, "
			"inception3, densenet201, mobilenetv2, bert-base, "
			"bert-large, gpt2, llama-7b, llama-2-7b, llama-2-13b, "
			"llama-2-70b, llama-3-8b, llama-3-70b, mistral-7b, "
			"mixtral-8x7b, resnet18-cifar10, transformer-multi30k, ";

		CU_ASSERT(strncmp(buf, head, sizeof head - 1) == 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, ", td3-bipedalwalker"));
	}
	zoo_names(small, sizeof small);
	CU_ASSERT_EQUAL(strlen(small), sizeof small - 1);
	CU_ASSERT_STRING_EQUAL(small, "resnet50, r");
}

TEST_REGISTER(zoo)
{
	static const struct test_case cases[] = {
		{ "published parameter counts and MACs", test_published_params },
		{ "transformer FLOPs by hand", test_transformer_flops },
		{ "groups add up to the totals", test_groups_consistent },
		{ "activation bytes", test_activations },
		{ "lookup and names", test_lookup_and_names },
		{ NULL, NULL }
	};
	return test_add_suite("zoo", cases);
}
