/*
** llm_serve.c: an LLM request stream on dedicated replicas (llm_serve.h).
**
** Two kinds of events, taken in time order: the next arrival (routed to a
** replica, which starts an iteration if it was idle) and the earliest end
** of an iteration in flight (its tokens are delivered, then the replica
** forms its next iteration).  With at most a few dozen replicas a linear
** scan finds the earliest end; the engine does the rest.
*/
#include "experiments/llm_serve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct track {
	sim_time arrival, first, last;
	int ntok;
};

struct replica {
	struct llm_engine e;
	int busy;
	sim_time t_end;
	struct sim_twacc kv;
};

struct run {
	const struct llm_serve_cfg *c;
	struct llm_serve_result *out;
	struct track *tr;
	sim_time now;
	double block_bytes;       /* one block on all GPUs of a replica */
};

int llm_route_parse(const char *s, enum llm_route *out)
{
	if (s && strcasecmp(s, "rr") == 0)
		*out = LLM_ROUTE_RR;
	else if (s && strcasecmp(s, "least") == 0)
		*out = LLM_ROUTE_LEAST;
	else
		return SIM_EINVAL;
	return 0;
}

void llm_serve_cfg_default(struct llm_serve_cfg *c,
			   const struct llm_model *m, enum llm_sched_kind k)
{
	memset(c, 0, sizeof *c);
	c->model = m;
	llm_sched_cfg_default(&c->sched, k, m ? m->arch->max_ctx : 4096);
	c->replicas = 1;
	c->block_tokens = 16;
	c->gpu_mem_util = 0.9;
	c->swap_bytes = 4.0 * 1073741824;
	c->paging = 1;
	c->route = LLM_ROUTE_RR;
	/* assumptions: interactive-chat targets of the order DistServe and
	** Sarathi-Serve evaluate with; set them per experiment */
	c->slo_ttft_ms = 1000;
	c->slo_tpot_ms = 100;
}

void llm_serve_result_fini(struct llm_serve_result *r)
{
	sim_sample_fini(&r->ttft_ms);
	sim_sample_fini(&r->tpot_ms);
	sim_sample_fini(&r->itl_ms);
	sim_sample_fini(&r->e2e_ms);
}

static void on_token(void *ctx, struct llm_req *r, int first, int done)
{
	struct run *u = ctx;
	struct llm_serve_result *o = u->out;
	struct track *t = &u->tr[r->id];
	double ms;

	if (first) {
		t->first = u->now;
		(void)sim_sample_add(&o->ttft_ms,
				     sim_time_to_ms(u->now - t->arrival));
	} else {
		(void)sim_sample_add(&o->itl_ms,
				     sim_time_to_ms(u->now - t->last));
	}
	t->last = u->now;
	t->ntok++;
	o->tokens_out++;
	if (!done)
		return;
	o->completed++;
	(void)sim_sample_add(&o->e2e_ms, sim_time_to_ms(u->now - t->arrival));
	ms = sim_time_to_ms(t->first - t->arrival);
	{
		int ok_ttft = ms <= u->c->slo_ttft_ms, ok_tpot = 1;

		if (t->ntok >= 2) {
			double tpot = sim_time_to_ms(u->now - t->first) /
				      (t->ntok - 1);

			(void)sim_sample_add(&o->tpot_ms, tpot);
			ok_tpot = tpot <= u->c->slo_tpot_ms;
		}
		o->slo_ttft += ok_ttft;
		o->slo_tpot += ok_tpot;
		o->slo_both += ok_ttft && ok_tpot;
	}
}

/* Forms and starts the replica's next iteration at u->now, or leaves it
** idle.  0 or a negative error. */
static int start(struct run *u, struct replica *p)
{
	struct llm_iter it;
	int n = llm_engine_form(&p->e, &it);

	if (n < 0)
		return n;
	sim_twacc_set(&p->kv, u->now, kv_pool_util(&p->e.kv));
	if (n == 0) {
		p->busy = 0;
		return 0;
	}
	p->busy = 1;
	p->t_end = sim_time_add_sat(u->now, llm_step_ns(u->c->model, &it));
	u->out->swapped_bytes += (double)(it.swap_out_blocks +
					  it.swap_in_blocks) * u->block_bytes;
	return 0;
}

static int pick(const struct llm_serve_cfg *c, struct replica *reps,
		size_t i)
{
	int j, best = 0, bestn = -1;

	if (c->route == LLM_ROUTE_RR)
		return (int)(i % (size_t)c->replicas);
	for (j = 0; j < c->replicas; j++) {
		int q = llm_engine_queued(&reps[j].e) +
			llm_engine_running(&reps[j].e);

		if (bestn < 0 || q < bestn) {
			best = j;
			bestn = q;
		}
	}
	return best;
}

static int setup(const struct llm_serve_cfg *c, struct replica *reps,
		 struct run *u, sim_time t0, struct sim_err *err)
{
	struct llm_mem mem;
	int64_t blocks, host;
	int j, rc;

	rc = llm_memory(c->model, c->gpu_mem_util, c->block_tokens,
			c->sched.max_num_batched_tokens, c->sched.max_num_seqs,
			&mem, err);
	if (rc)
		return rc;
	blocks = c->paging ? mem.blocks : INT64_C(1) << 40;
	host = c->paging && c->sched.preempt == LLM_PREEMPT_SWAP ?
	       (int64_t)floor(c->swap_bytes / (double)mem.block_bytes) : 0;
	u->block_bytes = (double)mem.block_bytes * c->model->tp;
	u->out->kv_blocks = blocks;
	for (j = 0; j < c->replicas; j++) {
		rc = llm_engine_init(&reps[j].e, &c->sched, blocks,
				     c->block_tokens, host, err);
		if (rc)
			return rc;
		sim_twacc_init(&reps[j].kv, t0, 0);
	}
	return 0;
}

int llm_serve_run(const struct llm_serve_cfg *c,
		  const struct llm_serve_req *reqs, size_t n,
		  struct llm_serve_result *out, struct sim_err *err)
{
	struct replica *reps = NULL;
	struct llm_req *rq = NULL;
	struct run u;
	sim_time t0 = n ? reqs[0].arrival_ns : 0;
	size_t i = 0;
	int j, rc = 0;

	memset(out, 0, sizeof *out);
	sim_sample_init(&out->ttft_ms, 0);
	sim_sample_init(&out->tpot_ms, 0);
	sim_sample_init(&out->itl_ms, 0);
	sim_sample_init(&out->e2e_ms, 0);
	if (c->model == NULL || c->replicas < 1 || c->replicas > 4096)
		return sim_err_set(err, SIM_EINVAL,
				   "llm serve: need a model and 1..4096 replicas");
	for (i = 1; i < n; i++)
		if (reqs[i].arrival_ns < reqs[i - 1].arrival_ns)
			return sim_err_set(err, SIM_EINVAL,
					   "llm serve: request %zu arrives before "
					   "request %zu", i, i - 1);
	memset(&u, 0, sizeof u);
	u.c = c;
	u.out = out;
	reps = calloc((size_t)c->replicas, sizeof *reps);
	rq = calloc(n ? n : 1, sizeof *rq);
	u.tr = calloc(n ? n : 1, sizeof *u.tr);
	if (reps == NULL || rq == NULL || u.tr == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "llm serve: out of memory");
		goto done;
	}
	if ((rc = setup(c, reps, &u, t0, err)) != 0)
		goto done;
	i = 0;
	for (;;) {
		sim_time ta = i < n ? reqs[i].arrival_ns : SIM_TIME_NEVER;
		sim_time te = SIM_TIME_NEVER;
		int je = -1;

		for (j = 0; j < c->replicas; j++)
			if (reps[j].busy && reps[j].t_end < te) {
				te = reps[j].t_end;
				je = j;
			}
		if (ta == SIM_TIME_NEVER && je < 0)
			break;
		if (ta <= te) {
			struct sim_err e2;

			u.now = ta;
			rq[i].id = i;
			rq[i].prompt_tokens = reqs[i].prompt_tokens;
			rq[i].output_tokens = reqs[i].output_tokens;
			u.tr[i].arrival = ta;
			j = pick(c, reps, i);
			sim_err_clear(&e2);
			out->submitted++;
			if (llm_engine_submit(&reps[j].e, &rq[i], &e2) != 0) {
				if (out->rejected++ == 0)
					out->first_reject = e2;
			} else if (!reps[j].busy &&
				   (rc = start(&u, &reps[j])) != 0) {
				goto nomem;
			}
			i++;
			continue;
		}
		u.now = te;
		out->end_ns = te;
		if ((rc = llm_engine_complete(&reps[je].e, on_token, &u)) != 0 ||
		    (rc = start(&u, &reps[je])) != 0)
			goto nomem;
	}
	for (j = 0; j < c->replicas; j++) {
		struct llm_engine *e = &reps[j].e;
		double peak = e->kv.blocks > 0 ?
			(double)e->kv.peak_used / (double)e->kv.blocks : 0;

		out->iterations += e->iterations;
		out->preemptions += e->preemptions;
		out->recomputes += e->recomputes;
		out->swap_outs += e->swap_outs;
		out->kv_util_mean += sim_twacc_mean(&reps[j].kv, out->end_ns) /
				     c->replicas;
		if (peak > out->kv_util_peak)
			out->kv_util_peak = peak;
	}
	if (out->completed > 0) {
		out->slo_ttft /= (double)out->completed;
		out->slo_tpot /= (double)out->completed;
		out->slo_both /= (double)out->completed;
	}
	if (out->end_ns > t0)
		out->out_tok_per_s = (double)out->tokens_out /
				     sim_time_to_s(out->end_ns - t0);
	goto done;
nomem:
	rc = sim_err_set(err, rc, "llm serve: %s", sim_strerror(rc));
done:
	if (reps)
		for (j = 0; j < c->replicas; j++)
			llm_engine_fini(&reps[j].e);
	free(reps);
	free(rq);
	free(u.tr);
	return rc;
}
