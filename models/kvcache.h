/*
** kvcache.h: the paged KV cache of an LLM replica as a pure data structure
** (docs/MODEL.md, "LLM serving", "Paged KV cache").
**
** vLLM's PagedAttention (Kwon et al., SOSP'23) stores each sequence's keys
** and values in fixed blocks of block_tokens tokens (16 by default) taken
** from one pool; a sequence of n tokens holds ceil(n / block_tokens)
** blocks.  The pool is sized by the memory left after the weights
** (llm_memory() in models/llm.h).  Only counts matter to the simulator, so
** a sequence is its token and block counts (struct kv_seq), not a block
** table.
**
** Admission of a new sequence keeps a watermark of free blocks (vLLM's 1%)
** so that running sequences can still grow; growth of a running sequence
** may use every free block.  When blocks run out the scheduler preempts: by
** recomputation (the blocks are freed) or by swapping them to host memory
** (a host pool of host_blocks; the copy itself is costed by the iteration
** model through the link model).  Capacity may change at run time
** (kv_pool_set_blocks) when a co-location policy resizes the replica.
**
** Invariants: 0 <= free <= blocks, 0 <= host_free <= host_blocks, and the
** blocks held by sequences add up to blocks - free (checked by the tests).
*/
#ifndef COLOSIM_MODELS_KVCACHE_H
#define COLOSIM_MODELS_KVCACHE_H

#include <stdint.h>

#include "sim/err.h"

struct kv_pool {
	int block_tokens;         /* tokens per block, >= 1 */
	int64_t blocks;           /* blocks on the GPUs of the replica */
	int64_t free;             /* of which free */
	int64_t host_blocks;      /* swap space on the host (0: none) */
	int64_t host_free;
	int64_t watermark;        /* free blocks admission keeps */
	double watermark_frac;    /* watermark / blocks */
	/* statistics */
	int64_t peak_used;        /* most GPU blocks in use at once */
	int64_t swapped_out;      /* blocks copied to the host so far */
	int64_t swapped_in;       /* and back */
};

struct kv_seq {
	int64_t tokens;           /* tokens the blocks hold room for */
	int64_t blocks;           /* blocks held (on the GPU or the host) */
	int on_host;              /* 1: swapped out */
};

/* Sets up a pool.  SIM_EINVAL for blocks < 0, block_tokens < 1,
** host_blocks < 0 or a watermark fraction outside [0, 1). */
int kv_pool_init(struct kv_pool *p, int64_t blocks, int block_tokens,
		 int64_t host_blocks, double watermark_frac,
		 struct sim_err *err);

/* ceil(tokens / block_tokens); 0 for tokens <= 0. */
int64_t kv_blocks_for(const struct kv_pool *p, int64_t tokens);

/* Blocks s needs beyond what it holds to hold `tokens` tokens. */
int64_t kv_seq_need(const struct kv_pool *p, const struct kv_seq *s,
		    int64_t tokens);

/* 1 if a new sequence needing `blocks` may be admitted: free - blocks >=
** watermark. */
int kv_can_admit(const struct kv_pool *p, int64_t blocks);

/* Grows s to hold `tokens` tokens (never shrinks).  SIM_ENOSPC (nothing
** changed) if the free blocks do not suffice; SIM_ESTATE if s is on the
** host. */
int kv_seq_grow(struct kv_pool *p, struct kv_seq *s, int64_t tokens);

/* Frees s's blocks wherever they are; s becomes empty. */
void kv_seq_free(struct kv_pool *p, struct kv_seq *s);

/* Moves s's blocks to the host: SIM_ENOSPC if the host pool is short
** (nothing changed), SIM_ESTATE if already there. */
int kv_seq_swap_out(struct kv_pool *p, struct kv_seq *s);

/* Moves them back: SIM_ENOSPC unless free - blocks >= watermark. */
int kv_seq_swap_in(struct kv_pool *p, struct kv_seq *s);

/* Changes the GPU capacity to `blocks`: growing always works, shrinking
** only down to the blocks in use (SIM_ENOSPC otherwise, nothing changed).
** The watermark follows the new size. */
int kv_pool_set_blocks(struct kv_pool *p, int64_t blocks);

/* GPU blocks in use, and that over the capacity (0 for an empty pool). */
int64_t kv_pool_used(const struct kv_pool *p);
double kv_pool_util(const struct kv_pool *p);

#endif
