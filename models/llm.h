/*
** llm.h: LLM serving, the model layer: architectures, their per-token
** costs, a replica's memory, and the time of one engine iteration
** (docs/MODEL.md, "LLM serving").
**
** An architecture (struct llm_arch) is a decoder-only transformer from its
** published config: layers, hidden size, query heads, KV heads (grouped-query
** attention when fewer than the query heads), FFN size, vocabulary, context
** window and, for a mixture of experts, the number of experts and how many
** each token visits.  The table is static and read-only.
**
** A replica (struct llm_model) is an architecture served on one device type
** at a precision with a tensor-parallel degree.  llm_model_init() checks the
** combination and precomputes, per GPU of the replica, the weights of each
** linear operator, so that llm_step_ns() -- called once per iteration of the
** replica -- is a few dozen floating-point operations.
**
** One iteration (struct llm_iter) carries prefill tokens (new prompt tokens,
** possibly a chunk of a prompt, attending to what the sequence has cached)
** and decode tokens (one per running sequence, attending to its context).
** Its time is a per-operator roofline:
**
**   t = L (sum_k max(F_k / (eta_f P), B_k / (eta_b W)) + t_small + t_attn
**          + t_allreduce) + t_head + t_iter0 + t_swap
**
** with the constants of struct llm_consts, their sources and fits in
** docs/MODEL.md and docs/VALIDATION.md.  Everything here is pure: no state,
** no event queue, no printing.
*/
#ifndef COLOSIM_MODELS_LLM_H
#define COLOSIM_MODELS_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "models/device.h"
#include "sim/err.h"
#include "sim/time.h"

struct llm_arch {
	const char *name;         /* "llama-2-7b": the trace's model column */
	const char *display;      /* "Llama-2-7B" */
	int layers;               /* transformer blocks */
	int d_model;              /* hidden size */
	int heads;                /* query heads */
	int kv_heads;             /* key/value heads (GQA when < heads) */
	int head_dim;             /* d_model / heads for every model here */
	int ffn;                  /* FFN (per expert) intermediate size */
	int vocab;                /* vocabulary = embedding and LM-head rows */
	int max_ctx;              /* context window, tokens */
	int experts;              /* 1 for a dense model */
	int experts_per_token;    /* top-k routing; 1 for a dense model */
	uint64_t params;          /* total parameters, computed (llm.c) */
	const char *source;       /* where the config comes from */
};

size_t llm_arch_count(void);
const struct llm_arch *llm_arch_at(size_t i);
/* Case-insensitive lookup by name; NULL if unknown. */
const struct llm_arch *llm_arch_find(const char *name);
/* Writes the known names, comma separated, into buf. */
void llm_arch_names(char *buf, size_t n);

/* Parameters of the architecture from its shape (embedding, blocks with
** norms, final norm, untied LM head; every model here has no biases). */
uint64_t llm_arch_params(const struct llm_arch *a);
/* Parameters of one block (attention, FFN or experts and router, norms). */
uint64_t llm_arch_block_params(const struct llm_arch *a);

/* Forward FLOPs of one token through the linear layers and the LM head
** (2 per weight it multiplies; a MoE token meets experts_per_token experts),
** without attention over the context. */
double llm_flops_per_token(const struct llm_arch *a);
/* Attention FLOPs of one token attending to ctx cached tokens: QK^T and
** the weighted sum of V, 4 ctx heads head_dim per layer. */
double llm_attn_flops_per_token(const struct llm_arch *a, double ctx);

enum llm_prec { LLM_PREC_FP16 = 0, LLM_PREC_BF16, LLM_PREC_FP8 };
/* "fp16", "bf16", "fp8" (case-insensitive); 0 or SIM_EINVAL. */
int llm_prec_parse(const char *s, enum llm_prec *out);
const char *llm_prec_name(enum llm_prec p);
/* Bytes per weight and per cached K/V element: 2, 2, 1. */
int llm_prec_bytes(enum llm_prec p);

/* KV-cache bytes of one token over all layers, at kv_bytes per element,
** across the whole replica: 2 (K and V) layers kv_heads head_dim kv_bytes. */
uint64_t llm_kv_bytes_per_token(const struct llm_arch *a, int kv_bytes);

/*
** The constants of the iteration-time model.  llm_consts_default() gives
** the calibrated ones (docs/MODEL.md, "LLM serving", table of constants);
** callers may change them (a sensitivity study, another engine's
** overhead).
*/
struct llm_consts {
	double eta_flops;         /* GEMM rate / dense peak of the precision */
	double eta_bw;            /* achieved / profile HBM bandwidth of
				     GEMMs reading their weights */
	double eta_kv;            /* the same for attention reading the KV
				     cache */
	double eta_elem;          /* the same for elementwise kernels */
	double eta_attn;          /* prefill attention FLOP rate / peak */
	double eta_link;          /* NCCL bus bandwidth / NVLink per direction */
	sim_time t_small_ns;      /* floor of a block's small kernels (norms,
				     rotary, activation, residual) */
	sim_time t_attn_ns;       /* floor of one attention kernel */
	sim_time t_hop_ns;        /* all-reduce latency per ring hop */
	sim_time t_iter0_ns;      /* fixed cost of an iteration (scheduling,
				     sampling, launches, synchronisation) */
	sim_time t_seq_ns;        /* per sequence in the iteration */
};
void llm_consts_default(struct llm_consts *c);

/* A replica's model: the architecture on a device type (borrowed: both
** must outlive it), its precision and tensor-parallel degree, and the
** per-GPU quantities llm_step_ns() uses. */
#define LLM__OPS 6
struct llm_model {
	const struct llm_arch *arch;
	const struct dev_profile *dev;
	enum llm_prec prec;
	int tp;
	struct llm_consts c;
	/* derived, per GPU of the replica */
	double peak_flops;        /* dense peak of the precision */
	int wbytes;               /* bytes per weight */
	int kvbytes;              /* bytes per cached K/V element */
	double weight_bytes;      /* resident weights */
	double kv_bytes_per_token;/* this GPU's share of a token's KV cache */
	int nops;                 /* linear operators of a block */
	double op_w[LLM__OPS];    /* weights of operator k on this GPU */
	double op_io[LLM__OPS];   /* activation elements in + out per token */
	double op_tok[LLM__OPS];  /* tokens the operator sees per batch
				     token (experts: top-k) */
	int op_moe[LLM__OPS];     /* 1: the experts' grouped GEMM */
	double elem_per_token;    /* elementwise elements per token, block */
	double q_per_gpu, kv_per_gpu; /* heads x head_dim on this GPU */
};

/*
** Checks and derives.  Errors (SIM_EINVAL, message in err, no file: the
** caller adds where the values came from): tp < 1, tp not dividing the
** query heads, KV heads neither a multiple nor a divisor of tp, a device
** without a peak for the precision (bf16_flops or fp8_flops = 0).
** c may be NULL (the defaults).
*/
int llm_model_init(struct llm_model *m, const struct llm_arch *a,
		   const struct dev_profile *d, enum llm_prec prec, int tp,
		   const struct llm_consts *c, struct sim_err *err);

/*
** What one iteration carries, summed over its sequences (the scheduler,
** models/llm_sched.h, fills it).  A prefill chunk of q tokens of a sequence
** that has c tokens cached attends to c + (q + 1) / 2 tokens on average
** (causal): prefill_pairs sums q (c + (q + 1) / 2) and prefill_kv sums
** c + q (the KV tokens the kernel reads).
*/
struct llm_iter {
	int nprefill;             /* sequences with prefill tokens */
	int64_t prefill_tokens;   /* sum of their chunk lengths */
	double prefill_pairs;     /* query-key pairs of those chunks */
	double prefill_kv;        /* KV tokens the prefill attention reads */
	int ndecode;              /* sequences decoding one token */
	int64_t decode_ctx;       /* sum of the contexts they attend to */
	int nsample;              /* sequences sampling a token (LM head) */
	int64_t swap_out_blocks;  /* KV blocks copied GPU -> host first */
	int64_t swap_in_blocks;   /* host -> GPU */
	int block_tokens;         /* tokens per KV block (for the swaps) */
};

/* Time of one iteration on the replica, >= 1 ns for a non-empty one, 0
** for an empty one.  The KV swaps go through the host link of the device
** profile (models/link.h, link_transfer_ns, pinned bandwidth). */
sim_time llm_step_ns(const struct llm_model *m, const struct llm_iter *it);

/* The terms of llm_step_ns, for reports and tests (ns, as doubles). */
struct llm_step_terms {
	double linear, small, attn_prefill, attn_decode, allreduce, head,
	       overhead, swap, total;
};
void llm_step_terms(const struct llm_model *m, const struct llm_iter *it,
		    struct llm_step_terms *out);

/*
** How an iteration uses the GPU, for the fluid GPU model when the replica
** shares its GPUs (docs/MODEL.md, "LLM replicas in the world"): duty =
** GPU-busy time / iteration time (the fixed cost t_iter0 + t_seq and the
** KV swaps leave the SMs idle); alpha = compute / (compute + memory) time
** of its kernels' FLOPs and bytes at the profile's peaks; bw_busy = the
** bytes' time at peak bandwidth / busy time (clamped to 1); sat = F / (F
** + F_half), F_half = t_iter0 eta_f P.  All 0 for an empty iteration.
*/
struct llm_step_prof {
	double total_ns, busy_ns;
	double duty, alpha, sat, bw_busy;
};
void llm_step_profile(const struct llm_model *m, const struct llm_iter *it,
		      struct llm_step_prof *out);

/*
** Memory of a replica, per GPU.  gpu_mem_util is vLLM's
** gpu_memory_utilization (the fraction of HBM the engine may use);
** max_batched_tokens and max_seqs size the activation workspace vLLM
** profiles at start-up.  Returns 0 and fills out, or SIM_ENOSPC with
** "MODEL at PREC with TP n: weights W GiB + workspace A GiB leave no room
** for the KV cache on DEVICE (H GiB x util)" when no block fits.
*/
struct llm_mem {
	uint64_t weight_bytes;    /* per GPU */
	uint64_t act_bytes;       /* activation workspace per GPU */
	uint64_t ctx_bytes;       /* CUDA context (device profile) */
	uint64_t kv_bytes;        /* left for the KV cache per GPU */
	uint64_t block_bytes;     /* one block (block_tokens tokens) per GPU */
	int64_t blocks;           /* KV blocks of the replica */
	uint64_t total_bytes;     /* what the replica holds per GPU */
};
int llm_memory(const struct llm_model *m, double gpu_mem_util,
	       int block_tokens, int max_batched_tokens, int max_seqs,
	       struct llm_mem *out, struct sim_err *err);

#endif
