/*
** build.h: the builder that computes the model zoo's figures from the
** architectures (internal to models/zoo.c and the files of models/zoo/).
**
** A model file describes its network layer by layer (convolutions, batch
** norms, linear layers, raw parameter tensors such as embeddings); the
** builder adds up, per layer group, the parameters and forward FLOPs per
** sample (2 per multiply-accumulate), and for the whole model the
** activation elements kept for the backward pass and the peak live
** activation elements of inference.  Conventions (docs/MODEL.md,
** "Workloads", "Activation memory"):
**   - conv/linear FLOPs = 2 * kh * kw * (cin / groups) * cout * hout * wout;
**     bias, batch norm, activation functions and pooling are not counted
**     (they are < 1% of the FLOPs of every zoo model);
**   - batch norm has 2 parameters per channel (gamma, beta; running
**     statistics are buffers, not parameters, as in PyTorch's count);
**   - training keeps, per conv followed by batch norm, its output and the
**     normalised/activated output (2 tensors); per bare conv, linear, pool
**     or standalone batch norm, 1 tensor;
**   - inference live = input + output of the current layer + the tensors a
**     block holds on the side (residual input, concatenated features), set
**     with zoo__hold().
** Invariants: groups are appended in order; a model never has more than
** ZOO__MAX_GROUPS groups (overflow is recorded and checked by the tests).
*/
#ifndef COLOSIM_MODELS_ZOO_BUILD_H
#define COLOSIM_MODELS_ZOO_BUILD_H

#include <stdint.h>

#include "models/zoo.h"

#define ZOO__MAX_GROUPS 64
#define ZOO__NAME_MAX 24

/* The storage of one model: the public struct plus its groups. */
struct zoo__slot {
	struct zoo_model m;
	struct zoo_group g[ZOO__MAX_GROUPS];
	char names[ZOO__MAX_GROUPS][ZOO__NAME_MAX];
};

struct zoo__b {
	struct zoo__slot *s;
	uint64_t act_train_elems;     /* kept for backward, per sample */
	uint64_t act_live_max;        /* inference peak live, per sample */
	uint64_t hold_elems;          /* side tensors live in the block */
	int overflow;                 /* more groups than ZOO__MAX_GROUPS */
	int manual_act;               /* activations given by zoo__act_* only
					 (transformers) */
};

void zoo__begin(struct zoo__b *b, struct zoo__slot *s, const char *name,
		const char *display, const char *task, int input_len,
		const char *source);
/* Closes the model: totals from the groups, activations in FP32 bytes. */
void zoo__end(struct zoo__b *b);

/* Starts a new layer group; later layers count into it. */
void zoo__group(struct zoo__b *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* A convolution cin -> cout with a kh x kw kernel from hin x win to
** hout x wout, in `groups` groups; post says what follows: ZOO__BIAS (a
** bias of cout), ZOO__BN (batch norm over cout, no bias) or ZOO__NONE. */
enum { ZOO__BIAS = 0, ZOO__BN = 1, ZOO__NONE = 2 };
void zoo__conv(struct zoo__b *b, int cin, int cout, int kh, int kw,
	       int hin, int win, int hout, int wout, int groups, int post);

/* A standalone batch norm over c channels of h x w (pre-activation). */
void zoo__bn(struct zoo__b *b, int c, int h, int w);

/* A pooling layer's output (c x h x w) kept for backward. */
void zoo__pool(struct zoo__b *b, int c, int hin, int win, int hout, int wout);

/* A linear layer in -> out applied to `tokens` positions, with or without
** bias. */
void zoo__linear(struct zoo__b *b, int in, int out, int tokens, int bias);

/* Parameters without FLOPs (embedding tables, norms). */
void zoo__params(struct zoo__b *b, uint64_t n);

/* FLOPs without parameters (attention score and value products). */
void zoo__flops(struct zoo__b *b, double flops);

/* Activation elements kept for backward / a live set for inference,
** for layers the helpers above do not describe (transformers). */
void zoo__act_train(struct zoo__b *b, uint64_t elems);
void zoo__act_live(struct zoo__b *b, uint64_t elems);

/* An LSTM layer in -> hidden over `tokens` steps (PyTorch nn.LSTM: two
** bias vectors; 2 x 4h (in + h) FLOPs per step; gates, cell and hidden
** state, 6h elements per step, kept for backward). */
void zoo__lstm(struct zoo__b *b, int in, int hidden, int tokens);

/* A transposed convolution cin -> cout, k x k, from hin x hin to hout x
** hout: k^2 cin cout weights, 2 x weights x hin^2 FLOPs (one product
** per input pixel and weight); post as for zoo__conv. */
void zoo__convt(struct zoo__b *b, int cin, int cout, int k, int hin,
		int hout, int post);

/* The model's default batch and the workload it stands for. */
void zoo__meta(struct zoo__b *b, int default_batch, const char *origin);

/* Side tensors live during the current block (0 to release). */
void zoo__hold(struct zoo__b *b, uint64_t elems);

/* The model files: each builds its models into consecutive slots and
** returns how many it built. */
int zoo__build_resnet(struct zoo__slot *s);       /* resnet50, resnet152 */
int zoo__build_vgg(struct zoo__slot *s);          /* vgg16 */
int zoo__build_inception(struct zoo__slot *s);    /* inception3 */
int zoo__build_densenet(struct zoo__slot *s);     /* densenet201 */
int zoo__build_mobilenet(struct zoo__slot *s);    /* mobilenetv2 */
int zoo__build_transformers(struct zoo__slot *s); /* bert-base, bert-large,
						     gpt2, llama-7b */
int zoo__build_llms(struct zoo__slot *s);         /* models/llm.c's table:
						     llama-2-7b ... mixtral */
int zoo__build_gavel(struct zoo__slot *s);        /* Gavel's job types */
int zoo__build_lucid(struct zoo__slot *s);        /* Lucid's workloads */

#endif
