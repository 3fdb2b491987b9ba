/*
** kvcache.c: the paged KV-cache pool (kvcache.h).
*/
#include "models/kvcache.h"

#include <math.h>
#include <string.h>

static void set_watermark(struct kv_pool *p)
{
	/* vLLM's BlockSpaceManager: watermark_blocks = int(watermark *
	** num_gpu_blocks) */
	p->watermark = (int64_t)floor(p->watermark_frac * (double)p->blocks);
}

int kv_pool_init(struct kv_pool *p, int64_t blocks, int block_tokens,
		 int64_t host_blocks, double watermark_frac,
		 struct sim_err *err)
{
	memset(p, 0, sizeof *p);
	if (blocks < 0 || host_blocks < 0)
		return sim_err_set(err, SIM_EINVAL,
				   "kv cache: negative block count");
	if (block_tokens < 1)
		return sim_err_set(err, SIM_EINVAL,
				   "kv cache: block size %d: must be >= 1",
				   block_tokens);
	if (!(watermark_frac >= 0 && watermark_frac < 1))
		return sim_err_set(err, SIM_EINVAL,
				   "kv cache: watermark %g: must be in [0, 1)",
				   watermark_frac);
	p->block_tokens = block_tokens;
	p->blocks = p->free = blocks;
	p->host_blocks = p->host_free = host_blocks;
	p->watermark_frac = watermark_frac;
	set_watermark(p);
	return 0;
}

int64_t kv_blocks_for(const struct kv_pool *p, int64_t tokens)
{
	if (tokens <= 0)
		return 0;
	return (tokens + p->block_tokens - 1) / p->block_tokens;
}

int64_t kv_seq_need(const struct kv_pool *p, const struct kv_seq *s,
		    int64_t tokens)
{
	int64_t b = kv_blocks_for(p, tokens);

	return b > s->blocks ? b - s->blocks : 0;
}

int kv_can_admit(const struct kv_pool *p, int64_t blocks)
{
	return p->free - blocks >= p->watermark;
}

static void note_used(struct kv_pool *p)
{
	int64_t used = p->blocks - p->free;

	if (used > p->peak_used)
		p->peak_used = used;
}

int kv_seq_grow(struct kv_pool *p, struct kv_seq *s, int64_t tokens)
{
	int64_t need;

	if (s->on_host)
		return SIM_ESTATE;
	need = kv_seq_need(p, s, tokens);
	if (need > p->free)
		return SIM_ENOSPC;
	p->free -= need;
	s->blocks += need;
	if (tokens > s->tokens)
		s->tokens = tokens;
	note_used(p);
	return 0;
}

void kv_seq_free(struct kv_pool *p, struct kv_seq *s)
{
	if (s->on_host)
		p->host_free += s->blocks;
	else
		p->free += s->blocks;
	s->blocks = 0;
	s->tokens = 0;
	s->on_host = 0;
}

int kv_seq_swap_out(struct kv_pool *p, struct kv_seq *s)
{
	if (s->on_host)
		return SIM_ESTATE;
	if (s->blocks > p->host_free)
		return SIM_ENOSPC;
	p->host_free -= s->blocks;
	p->free += s->blocks;
	p->swapped_out += s->blocks;
	s->on_host = 1;
	return 0;
}

int kv_seq_swap_in(struct kv_pool *p, struct kv_seq *s)
{
	if (!s->on_host)
		return SIM_ESTATE;
	if (!kv_can_admit(p, s->blocks))
		return SIM_ENOSPC;
	p->free -= s->blocks;
	p->host_free += s->blocks;
	p->swapped_in += s->blocks;
	s->on_host = 0;
	note_used(p);
	return 0;
}

int kv_pool_set_blocks(struct kv_pool *p, int64_t blocks)
{
	int64_t used = p->blocks - p->free;

	if (blocks < used)
		return SIM_ENOSPC;
	p->blocks = blocks;
	p->free = blocks - used;
	set_watermark(p);
	return 0;
}

int64_t kv_pool_used(const struct kv_pool *p)
{
	return p->blocks - p->free;
}

double kv_pool_util(const struct kv_pool *p)
{
	return p->blocks > 0 ? (double)(p->blocks - p->free) / (double)p->blocks
			     : 0;
}
