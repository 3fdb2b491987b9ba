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

#include "sim/csv.h"
#include "sim/num.h"
#include "traces/import.h"
#include "traces/trace.h"

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
		if (ta < te) {
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

/* ---- the request file ---------------------------------------------------- */

struct load {
	const char *path, *model;
	int max_len;
	enum llm_long mode;
	int c_t, c_p, c_o, datetime;
	struct llm_serve_req *r;
	size_t n, cap;
	unsigned long skipped, truncated;
};

static int col_of(const struct sim_csv_rec *h, const char *name)
{
	int k;

	for (k = 0; k < h->nf; k++)
		if (strcasecmp(h->f[k], name) == 0)
			return k;
	return -1;
}

static int load_header(struct load *L, const struct sim_csv_rec *h,
		       struct sim_err *err)
{
	static const char *const azure[3] = { "TIMESTAMP", "ContextTokens",
					      "GeneratedTokens" };
	static const char *const ours[3] = { "t_s", "prompt_tokens",
					     "output_tokens" };
	const char *const *names;
	int k, *c[3] = { &L->c_t, &L->c_p, &L->c_o };

	L->datetime = col_of(h, "TIMESTAMP") >= 0;
	names = L->datetime ? azure : ours;
	for (k = 0; k < 3; k++)
		if ((*c[k] = col_of(h, names[k])) < 0)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:1: header "
					   "lacks column '%s' (expected %s,%s,%s "
					   "or %s,%s,%s)", L->path, h->line,
					   names[k], azure[0], azure[1],
					   azure[2], ours[0], ours[1], ours[2]);
	return 0;
}

/* Field k (column name what) of rec as a token count. */
static int load_tokens(const struct load *L, const struct sim_csv_rec *rec,
		       int k, const char *what, int64_t *v,
		       struct sim_err *err)
{
	if (sim_num_i64(rec->f[k], NULL, 1, TRACE_TOKENS_MAX, v, NULL) != 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected an "
				   "integer in [1, %d], got '%.40s'", L->path,
				   rec->line, rec->col[k], what,
				   TRACE_TOKENS_MAX, rec->f[k]);
	return 0;
}

static int load_row(void *ctx, const struct sim_csv_rec *rec,
		    struct sim_err *err)
{
	struct load *L = ctx;
	const char *np = L->datetime ? "ContextTokens" : "prompt_tokens";
	int64_t p, o;
	sim_time t;
	int rc;

	if (rec->index == 0)
		return load_header(L, rec, err);
	if (L->datetime ? imp_parse_datetime(rec->f[L->c_t], &t) != 0 :
	    sim_num_secs(rec->f[L->c_t], NULL, 0, SIM_NUM_TIME_MAX_S, &t,
			 NULL) != 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected "
				   "%s, got '%.40s'", L->path, rec->line,
				   rec->col[L->c_t], L->datetime ? "TIMESTAMP" :
				   "t_s", L->datetime ? "'YYYY-MM-DD "
				   "HH:MM:SS[.fraction]'" : "seconds >= 0",
				   rec->f[L->c_t]);
	if ((rc = load_tokens(L, rec, L->c_p, np, &p, err)) != 0 ||
	    (rc = load_tokens(L, rec, L->c_o, L->datetime ? "GeneratedTokens" :
			      "output_tokens", &o, err)) != 0)
		return rc;
	if (p + o > L->max_len) {
		if (L->mode == LLM_LONG_ERROR)
			return sim_err_set(err, SIM_EINVAL, "%s:%ld:%d: %s: "
					   "%lld prompt + %lld output tokens "
					   "exceed the %d-token context window "
					   "of %s (--long skip or truncate to "
					   "replay it)", L->path, rec->line,
					   rec->col[L->c_p], np, (long long)p,
					   (long long)o, L->max_len, L->model);
		if (L->mode == LLM_LONG_SKIP) {
			L->skipped++;
			return 0;
		}
		/* keep the output, cut the prompt's head (at least 1) */
		L->truncated++;
		if (o >= L->max_len)
			o = L->max_len - 1;
		p = L->max_len - o;
	}
	if (L->n == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 1024;
		struct llm_serve_req *r = realloc(L->r, cap * sizeof *r);
		if (r == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		L->r = r;
		L->cap = cap;
	}
	L->r[L->n].arrival_ns = t;
	L->r[L->n].prompt_tokens = (int)p;
	L->r[L->n].output_tokens = (int)o;
	L->n++;
	return 0;
}

struct ordered {
	struct llm_serve_req r;
	size_t i;
};

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;

	if (x->r.arrival_ns != y->r.arrival_ns)
		return x->r.arrival_ns < y->r.arrival_ns ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Stable order by arrival: equal times keep their file order. */
static int sort_arrivals(struct llm_serve_req *r, size_t n)
{
	struct ordered *o;
	size_t i;

	for (i = 1; i < n && r[i - 1].arrival_ns <= r[i].arrival_ns; i++)
		;
	if (i >= n)
		return 0;
	if ((o = malloc(n * sizeof *o)) == NULL)
		return SIM_ENOMEM;
	for (i = 0; i < n; i++) {
		o[i].r = r[i];
		o[i].i = i;
	}
	qsort(o, n, sizeof *o, cmp_ordered);
	for (i = 0; i < n; i++)
		r[i] = o[i].r;
	free(o);
	return 0;
}

int llm_serve_load(const char *path, int max_len, const char *model,
		   enum llm_long mode, struct llm_serve_req **out, size_t *n,
		   unsigned long *skipped, unsigned long *truncated,
		   struct sim_err *err)
{
	struct load L;
	sim_time t0;
	size_t i;
	int rc;

	*out = NULL;
	*n = 0;
	memset(&L, 0, sizeof L);
	L.path = path;
	L.model = model != NULL ? model : "the model";
	L.max_len = max_len;
	L.mode = mode;
	rc = sim_csv_each(path, "request file", SIM_CSV_HEADER, load_row, &L,
			  err);
	if (rc == 0 && L.n == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s: no requests", path);
	if (rc != 0) {
		free(L.r);
		return rc;
	}
	if (sort_arrivals(L.r, L.n) != 0) {
		free(L.r);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	t0 = L.r[0].arrival_ns;
	for (i = 0; i < L.n; i++)
		L.r[i].arrival_ns -= t0;
	*out = L.r;
	*n = L.n;
	if (skipped != NULL)
		*skipped = L.skipped;
	if (truncated != NULL)
		*truncated = L.truncated;
	return 0;
}
