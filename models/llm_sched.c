/*
** llm_sched.c: the replica schedulers (llm_sched.h; docs/MODEL.md, "LLM
** serving", "Replica schedulers").
**
** Sequence bookkeeping, the same for every scheduler:
**   - a new request has computed = 0 and target = its prompt; once
**     computed reaches target, the iteration samples a token (generated
**     += 1);
**   - a decoding sequence has computed = prompt + generated - 1 (the last
**     token's K and V are written by the iteration that feeds it) and
**     attends to computed + 1 tokens;
**   - preemption by recomputation frees the blocks and sets target =
**     prompt + generated (vLLM recomputes the prompt and the output so
**     far as one prefill, which then samples the next token); by swap, the
**     blocks go to the host and the sequence waits in the swapped queue.
** Blocks: vLLM v0 allocates a prompt's blocks when it admits it; decodes
** add one when they cross a block boundary; Orca reserves prompt + output
** at admission.
*/
#include "models/llm_sched.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* vLLM's BlockSpaceManager watermark (vllm/core/block_manager.py,
** watermark = 0.01). */
#define LLM_WATERMARK 0.01

int llm_sched_parse(const char *s, enum llm_sched_kind *out)
{
	if (s == NULL)
		return SIM_EINVAL;
	if (strcasecmp(s, "vllm") == 0)
		*out = LLM_SCHED_VLLM;
	else if (strcasecmp(s, "sarathi") == 0)
		*out = LLM_SCHED_SARATHI;
	else if (strcasecmp(s, "orca") == 0)
		*out = LLM_SCHED_ORCA;
	else
		return SIM_EINVAL;
	return 0;
}

const char *llm_sched_name(enum llm_sched_kind k)
{
	switch (k) {
	case LLM_SCHED_VLLM: return "vllm";
	case LLM_SCHED_SARATHI: return "sarathi";
	case LLM_SCHED_ORCA: return "orca";
	}
	return "?";
}

int llm_preempt_parse(const char *s, enum llm_preempt *out)
{
	if (s == NULL)
		return SIM_EINVAL;
	if (strcasecmp(s, "recompute") == 0)
		*out = LLM_PREEMPT_RECOMPUTE;
	else if (strcasecmp(s, "swap") == 0)
		*out = LLM_PREEMPT_SWAP;
	else
		return SIM_EINVAL;
	return 0;
}

const char *llm_preempt_name(enum llm_preempt p)
{
	return p == LLM_PREEMPT_SWAP ? "swap" : "recompute";
}

void llm_sched_cfg_default(struct llm_sched_cfg *c, enum llm_sched_kind k,
			   int max_model_len)
{
	memset(c, 0, sizeof *c);
	c->kind = k;
	c->max_num_seqs = 256;
	c->max_model_len = max_model_len;
	c->max_num_batched_tokens = k == LLM_SCHED_SARATHI ? 512 :
		(max_model_len > 2048 ? max_model_len : 2048);
	c->preempt = LLM_PREEMPT_RECOMPUTE;
}

/* ---- queues ------------------------------------------------------------ */

static void rq_push_back(struct llm_rq *q, struct llm_req *r)
{
	r->next_ = NULL;
	r->prev_ = q->tail;
	if (q->tail)
		q->tail->next_ = r;
	else
		q->head = r;
	q->tail = r;
	q->n++;
}

static void rq_push_front(struct llm_rq *q, struct llm_req *r)
{
	r->prev_ = NULL;
	r->next_ = q->head;
	if (q->head)
		q->head->prev_ = r;
	else
		q->tail = r;
	q->head = r;
	q->n++;
}

static void rq_remove(struct llm_rq *q, struct llm_req *r)
{
	if (r->prev_)
		r->prev_->next_ = r->next_;
	else
		q->head = r->next_;
	if (r->next_)
		r->next_->prev_ = r->prev_;
	else
		q->tail = r->prev_;
	r->next_ = r->prev_ = NULL;
	q->n--;
}

/* ---- engine ------------------------------------------------------------ */

int llm_engine_init(struct llm_engine *e, const struct llm_sched_cfg *cfg,
		    int64_t blocks, int block_tokens, int64_t host_blocks,
		    struct sim_err *err)
{
	int rc;

	memset(e, 0, sizeof *e);
	if (cfg->max_num_seqs < 1 || cfg->max_num_batched_tokens < 1 ||
	    cfg->max_model_len < 2)
		return sim_err_set(err, SIM_EINVAL,
				   "llm scheduler: max_num_seqs, "
				   "max_num_batched_tokens must be >= 1 and "
				   "max_model_len >= 2");
	rc = kv_pool_init(&e->kv, blocks, block_tokens, host_blocks,
			  LLM_WATERMARK, err);
	if (rc)
		return rc;
	e->cfg = *cfg;
	return 0;
}

void llm_engine_fini(struct llm_engine *e)
{
	free(e->batch);
	e->batch = NULL;
	e->nbatch = e->capbatch = 0;
}

int llm_engine_submit(struct llm_engine *e, struct llm_req *r,
		      struct sim_err *err)
{
	int64_t len = (int64_t)r->prompt_tokens + r->output_tokens;

	if (r->prompt_tokens < 1 || r->output_tokens < 1)
		return sim_err_set(err, SIM_EINVAL,
				   "request %llu: %d prompt and %d output tokens: "
				   "both must be >= 1", (unsigned long long)r->id,
				   r->prompt_tokens, r->output_tokens);
	if (len > e->cfg.max_model_len)
		return sim_err_set(err, SIM_EINVAL,
				   "request %llu: %d prompt + %d output tokens "
				   "is longer than the context window of %d "
				   "tokens", (unsigned long long)r->id,
				   r->prompt_tokens, r->output_tokens,
				   e->cfg.max_model_len);
	/* the admission watermark is never available to a sequence */
	if (kv_blocks_for(&e->kv, len) > e->kv.blocks - e->kv.watermark)
		return sim_err_set(err, SIM_EINVAL,
				   "request %llu: %lld tokens need %lld KV blocks; "
				   "the replica has %lld (%lld above the "
				   "watermark)", (unsigned long long)r->id,
				   (long long)len,
				   (long long)kv_blocks_for(&e->kv, len),
				   (long long)e->kv.blocks,
				   (long long)(e->kv.blocks - e->kv.watermark));
	if (e->cfg.kind == LLM_SCHED_VLLM &&
	    r->prompt_tokens > e->cfg.max_num_batched_tokens)
		return sim_err_set(err, SIM_EINVAL,
				   "request %llu: a prompt of %d tokens is over "
				   "max_num_batched_tokens %d (the vllm scheduler "
				   "does not chunk prompts)",
				   (unsigned long long)r->id, r->prompt_tokens,
				   e->cfg.max_num_batched_tokens);
	memset(&r->kv, 0, sizeof r->kv);
	r->computed = 0;
	r->target = r->prompt_tokens;
	r->generated = 0;
	r->sched_tokens = 0;
	r->preemptions = 0;
	r->state = LLM_REQ_WAITING;
	rq_push_back(&e->waiting, r);
	return 0;
}

static int batch_push(struct llm_engine *e, struct llm_req *r)
{
	if (e->nbatch == e->capbatch) {
		int cap = e->capbatch ? 2 * e->capbatch : 64;
		struct llm_req **b = realloc(e->batch, (size_t)cap * sizeof *b);

		if (b == NULL)
			return SIM_ENOMEM;
		e->batch = b;
		e->capbatch = cap;
	}
	e->batch[e->nbatch++] = r;
	return 0;
}

static int add_prefill(struct llm_engine *e, struct llm_req *r, int64_t q)
{
	struct llm_iter *it = &e->cur;
	double c = (double)r->computed;

	if (batch_push(e, r))
		return SIM_ENOMEM;
	r->sched_tokens = (int)q;
	it->nprefill++;
	it->prefill_tokens += q;
	it->prefill_pairs += (double)q * (c + ((double)q + 1) / 2);
	it->prefill_kv += c + (double)q;
	if (r->computed + q >= r->target)
		it->nsample++;
	return 0;
}

static int add_decode(struct llm_engine *e, struct llm_req *r)
{
	struct llm_iter *it = &e->cur;

	if (batch_push(e, r))
		return SIM_ENOMEM;
	r->sched_tokens = 1;
	it->ndecode++;
	it->decode_ctx += r->computed + 1;
	it->nsample++;
	return 0;
}

/* Takes r out of the running queue: to the host when swapping is on and
** the host pool has room, else back to the front of the waiting queue to
** be recomputed. */
static void preempt(struct llm_engine *e, struct llm_req *r)
{
	rq_remove(&e->running, r);
	r->preemptions++;
	e->preemptions++;
	if (e->cfg.preempt == LLM_PREEMPT_SWAP &&
	    kv_seq_swap_out(&e->kv, &r->kv) == 0) {
		e->cur.swap_out_blocks += r->kv.blocks;
		e->swapped_out_blocks += r->kv.blocks;
		e->swap_outs++;
		r->state = LLM_REQ_SWAPPED;
		rq_push_back(&e->swapped, r);
		return;
	}
	kv_seq_free(&e->kv, &r->kv);
	e->recomputes++;
	r->computed = 0;
	r->target = (int64_t)r->prompt_tokens + r->generated;
	r->state = LLM_REQ_WAITING;
	rq_push_front(&e->waiting, r);
}

/* Gives every decoding sequence of the running queue its next token,
** preempting from the tail when a block is short.  Returns 1 if it
** preempted, or SIM_ENOMEM. */
static int schedule_decodes(struct llm_engine *e, int budget, int *tok)
{
	struct llm_req *r, *nx;
	int preempted = 0;

	for (r = e->running.head; r; r = nx) {
		nx = r->next_;
		if (r->computed < r->target)
			continue;               /* still prefilling */
		if (*tok >= budget)
			break;
		while (kv_seq_grow(&e->kv, &r->kv, r->computed + 1) ==
		       SIM_ENOSPC) {
			struct llm_req *v = e->running.tail;

			preempted = 1;
			if (v == r) {
				preempt(e, r);
				r = NULL;
				break;
			}
			if (v == nx)
				nx = NULL;
			preempt(e, v);
		}
		if (r == NULL)
			break;  /* r was the tail: nothing after it is left */
		if (add_decode(e, r))
			return SIM_ENOMEM;
		(*tok)++;
	}
	return preempted;
}

/* Brings swapped sequences back, first come first served, while the
** blocks (above the watermark) and max_num_seqs allow. */
static int schedule_swap_ins(struct llm_engine *e, int budget, int *tok)
{
	struct llm_req *r, *nx;

	for (r = e->swapped.head; r; r = nx) {
		int64_t extra;

		nx = r->next_;
		if (e->running.n >= e->cfg.max_num_seqs || *tok >= budget)
			break;
		extra = kv_blocks_for(&e->kv, r->computed + 1) - r->kv.blocks;
		if (extra < 0)
			extra = 0;
		if (!kv_can_admit(&e->kv, r->kv.blocks + extra))
			break;
		(void)kv_seq_swap_in(&e->kv, &r->kv);
		e->cur.swap_in_blocks += r->kv.blocks;
		e->swapped_in_blocks += r->kv.blocks;
		e->swap_ins++;
		rq_remove(&e->swapped, r);
		r->state = LLM_REQ_RUNNING;
		rq_push_back(&e->running, r);
		(void)kv_seq_grow(&e->kv, &r->kv, r->computed + 1);
		if (add_decode(e, r))
			return SIM_ENOMEM;
		(*tok)++;
	}
	return 0;
}

/* Admits waiting requests, first come first served: whole prompts
** (chunk = 0) or the first chunk of each within the token budget. */
static int schedule_admit(struct llm_engine *e, int budget, int *tok,
			  int chunk, int64_t reserve_output)
{
	struct llm_req *r;

	while ((r = e->waiting.head) != NULL) {
		int64_t q = r->target - r->computed, hold, need;

		if (e->running.n >= e->cfg.max_num_seqs)
			break;
		if (chunk) {
			if (*tok >= budget)
				break;
			if (q > budget - *tok)
				q = budget - *tok;
		} else if (*tok + q > budget && e->nbatch > 0) {
			break;
		}
		hold = r->target + (reserve_output ? r->output_tokens -
				    r->generated : 0);
		need = kv_seq_need(&e->kv, &r->kv, hold);
		if (!kv_can_admit(&e->kv, need))
			break;
		(void)kv_seq_grow(&e->kv, &r->kv, hold);
		rq_remove(&e->waiting, r);
		r->state = LLM_REQ_RUNNING;
		rq_push_back(&e->running, r);
		if (add_prefill(e, r, q))
			return SIM_ENOMEM;
		*tok += (int)q;
	}
	return 0;
}

static int form_vllm(struct llm_engine *e)
{
	int tok = 0, budget = e->cfg.max_num_batched_tokens, rc;

	if (e->swapped.n == 0) {
		rc = schedule_admit(e, budget, &tok, 0, 0);
		if (rc || e->nbatch > 0)
			return rc;
	}
	rc = schedule_decodes(e, budget, &tok);
	if (rc < 0)
		return rc;
	return rc == 0 ? schedule_swap_ins(e, budget, &tok) : 0;
}

static int form_sarathi(struct llm_engine *e)
{
	int tok = 0, budget = e->cfg.max_num_batched_tokens, rc;
	struct llm_req *r;

	rc = schedule_decodes(e, budget, &tok);
	if (rc < 0)
		return rc;
	if (rc == 0 && (rc = schedule_swap_ins(e, budget, &tok)) != 0)
		return rc;
	/* ongoing prefills, then new requests, chunked to the budget */
	for (r = e->running.head; r && tok < budget; r = r->next_) {
		int64_t q = r->target - r->computed;

		if (q <= 0 || r->sched_tokens > 0)
			continue;
		if (q > budget - tok)
			q = budget - tok;
		if (add_prefill(e, r, q))
			return SIM_ENOMEM;
		tok += (int)q;
	}
	if (e->swapped.n == 0)
		return schedule_admit(e, budget, &tok, 1, 0);
	return 0;
}

static int form_orca(struct llm_engine *e)
{
	int tok = 0, budget = e->cfg.max_num_batched_tokens;
	struct llm_req *r;

	for (r = e->running.head; r; r = r->next_) {
		/* reserved at admission: growth cannot fail */
		(void)kv_seq_grow(&e->kv, &r->kv, r->computed + 1);
		if (add_decode(e, r))
			return SIM_ENOMEM;
		tok++;
	}
	return schedule_admit(e, budget, &tok, 0, 1);
}

int llm_engine_form(struct llm_engine *e, struct llm_iter *it)
{
	int rc;

	if (e->in_flight)
		return SIM_ESTATE;
	memset(&e->cur, 0, sizeof e->cur);
	e->cur.block_tokens = e->kv.block_tokens;
	e->nbatch = 0;
	switch (e->cfg.kind) {
	case LLM_SCHED_SARATHI: rc = form_sarathi(e); break;
	case LLM_SCHED_ORCA: rc = form_orca(e); break;
	default: rc = form_vllm(e); break;
	}
	if (rc < 0) {
		/* out of memory half-way: put nothing in flight */
		int i;

		for (i = 0; i < e->nbatch; i++)
			e->batch[i]->sched_tokens = 0;
		e->nbatch = 0;
		memset(it, 0, sizeof *it);
		return rc;
	}
	if (e->nbatch == 0) {
		/* Nothing runs.  Swap-outs made while trying (every running
		** sequence preempted itself) cost nothing here: an
		** approximation, the engine is then idle anyway. */
		memset(it, 0, sizeof *it);
		return 0;
	}
	e->in_flight = 1;
	*it = e->cur;
	return e->nbatch;
}

int llm_engine_complete(struct llm_engine *e, llm_token_fn fn, void *ctx)
{
	int i;

	if (!e->in_flight)
		return SIM_ESTATE;
	e->in_flight = 0;
	e->iterations++;
	for (i = 0; i < e->nbatch; i++) {
		struct llm_req *r = e->batch[i];
		int first, done;

		r->computed += r->sched_tokens;
		r->sched_tokens = 0;
		if (r->computed < r->target)
			continue;               /* a prompt chunk */
		r->generated++;
		e->tokens_out++;
		first = r->generated == 1;
		done = r->generated >= r->output_tokens;
		if (done) {
			kv_seq_free(&e->kv, &r->kv);
			rq_remove(&e->running, r);
			r->state = LLM_REQ_DONE;
		}
		if (fn)
			fn(ctx, r, first, done);
	}
	e->nbatch = 0;
	return 0;
}

int llm_engine_queued(const struct llm_engine *e)
{
	return e->waiting.n + e->swapped.n;
}

int llm_engine_running(const struct llm_engine *e)
{
	return e->running.n;
}
