/*
** llm_sched.h: the request scheduler of one LLM replica as a pure object:
** given its queues and its KV cache, it forms the next iteration, and when
** the caller says the iteration is over it advances every sequence in it
** (docs/MODEL.md, "LLM serving", "Replica schedulers").
**
** The engine knows no time and no event queue.  The caller (the world's
** LLM replica tenant) submits requests, asks llm_engine_form() for the next
** iteration (an llm_iter for llm_step_ns()), runs it for that long, then
** calls llm_engine_complete(), which reports every token produced through a
** callback.  Three schedulers, chosen per service:
**
**   vllm     vLLM v0's default: first come first served; an iteration is
**            either prefills only (admitted whole while the token budget
**            max_num_batched_tokens, max_num_seqs and the free blocks above
**            the watermark allow) or decodes only; when a decode needs a
**            block and none is free the latest admitted sequence is
**            preempted (recomputation or swap); swapped sequences come back
**            before new ones are admitted.
**   sarathi  Sarathi-Serve's chunked prefill (Agrawal et al., OSDI'24):
**            every iteration carries all running decodes, then the rest of
**            the token budget goes to prompt chunks (ongoing prefills
**            first, then new requests), so decodes never stall behind a
**            long prompt.
**   orca     Orca's iteration-level batching (Yu et al., OSDI'22): decodes
**            and whole new prompts in one iteration, up to max_num_seqs;
**            each request reserves the KV cache of its whole length
**            (prompt + output) when admitted, so it is never preempted.
**
** Ownership: the caller owns every struct llm_req and keeps it alive until
** the callback reports it done (or llm_engine_submit refuses it); the
** engine links them into its queues.  The engine owns its batch array.
*/
#ifndef COLOSIM_MODELS_LLM_SCHED_H
#define COLOSIM_MODELS_LLM_SCHED_H

#include <stdint.h>

#include "models/kvcache.h"
#include "models/llm.h"
#include "sim/err.h"

enum llm_sched_kind { LLM_SCHED_VLLM = 0, LLM_SCHED_SARATHI, LLM_SCHED_ORCA };
/* "vllm", "sarathi", "orca" (case-insensitive); 0 or SIM_EINVAL. */
int llm_sched_parse(const char *s, enum llm_sched_kind *out);
const char *llm_sched_name(enum llm_sched_kind k);

enum llm_preempt { LLM_PREEMPT_RECOMPUTE = 0, LLM_PREEMPT_SWAP };
int llm_preempt_parse(const char *s, enum llm_preempt *out);
const char *llm_preempt_name(enum llm_preempt p);

struct llm_sched_cfg {
	enum llm_sched_kind kind;
	int max_num_seqs;         /* sequences per iteration */
	int max_num_batched_tokens; /* token budget per iteration */
	int max_model_len;        /* longest prompt + output accepted */
	enum llm_preempt preempt;
};
/* vLLM's defaults: max_num_seqs 256, max_num_batched_tokens
** max(max_model_len, 2048) for vllm and orca, 512 for sarathi (its paper's
** token budget for Mistral-7B on A100), recomputation. */
void llm_sched_cfg_default(struct llm_sched_cfg *c, enum llm_sched_kind k,
			   int max_model_len);

enum llm_req_state {
	LLM_REQ_NEW = 0, LLM_REQ_WAITING, LLM_REQ_RUNNING, LLM_REQ_SWAPPED,
	LLM_REQ_DONE
};

struct llm_req {
	/* set by the owner before llm_engine_submit */
	uint64_t id;
	void *owner;              /* borrowed, never touched */
	int prompt_tokens;        /* >= 1 */
	int output_tokens;        /* >= 1 */
	/* the engine's; read-only for the owner */
	enum llm_req_state state;
	int64_t computed;         /* tokens whose K and V are cached */
	int64_t target;           /* tokens to compute before sampling */
	int generated;            /* output tokens produced */
	int sched_tokens;         /* tokens in the current iteration */
	int preemptions;          /* times preempted */
	struct kv_seq kv;
	struct llm_req *next_, *prev_;
};

struct llm_rq {                   /* an intrusive FIFO */
	struct llm_req *head, *tail;
	int n;
};

struct llm_engine {
	struct llm_sched_cfg cfg;
	struct kv_pool kv;
	struct llm_rq waiting, running, swapped;
	struct llm_req **batch;   /* owned: the current iteration's sequences */
	int nbatch, capbatch;
	int in_flight;            /* formed and not yet completed */
	struct llm_iter cur;      /* the iteration in flight */
	/* counters */
	uint64_t iterations, preemptions, recomputes, swap_outs, swap_ins;
	int64_t swapped_out_blocks, swapped_in_blocks;
	uint64_t tokens_out;      /* output tokens produced */
};

/* Sets up an engine with a KV pool of `blocks` GPU blocks of block_tokens
** tokens and host_blocks blocks of swap space (vLLM's watermark 0.01).
** 0, SIM_EINVAL (bad configuration) or SIM_ENOMEM. */
int llm_engine_init(struct llm_engine *e, const struct llm_sched_cfg *cfg,
		    int64_t blocks, int block_tokens, int64_t host_blocks,
		    struct sim_err *err);
void llm_engine_fini(struct llm_engine *e);

/* Queues a request.  SIM_EINVAL with a message for a request that can
** never run: no prompt or output tokens, prompt + output over
** max_model_len, or more KV blocks than the pool has. */
int llm_engine_submit(struct llm_engine *e, struct llm_req *r,
		      struct sim_err *err);

/* Forms the next iteration into *it and returns its number of sequences
** (0: nothing can run; *it is then empty).  SIM_ESTATE if an iteration is
** already in flight, SIM_ENOMEM if the batch array cannot grow. */
int llm_engine_form(struct llm_engine *e, struct llm_iter *it);

/* Called once per sequence that produced a token in the completed
** iteration: first = its first output token, done = its last (the engine
** has then freed its blocks and dropped it). */
typedef void (*llm_token_fn)(void *ctx, struct llm_req *r, int first,
			     int done);
/* Applies the iteration in flight.  SIM_ESTATE if there is none. */
int llm_engine_complete(struct llm_engine *e, llm_token_fn fn, void *ctx);

/* Sequences queued (waiting + swapped) and running. */
int llm_engine_queued(const struct llm_engine *e);
int llm_engine_running(const struct llm_engine *e);

#endif
