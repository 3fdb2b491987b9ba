/*
** world_llm_res.c: what the LLM services report: the window a policy
** reads (pol_llm_window) and the run's metrics, histograms, KV-cache
** series and per-service rows (docs/RESULTS.md, "LLM services").
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/world/world_llm_int.h"

static double q_or_nan(struct sim_sample *s, double q)
{
	return s->n ? sim_sample_quantile(s, q) : (double)NAN;
}

int world_llm_window(struct world *w, int j, struct pol_llm_window *out,
		     struct sim_err *err)
{
	struct llm_svc *sv;
	struct llm_win *wn;
	int r;

	if (j < 0 || j >= w->njobs || (sv = llm__svc(w, j)) == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm_window: job %d is not "
				   "an LLM service", j);
	wn = &sv->win;
	memset(out, 0, sizeof *out);
	out->t0_ns = wn->t0;
	out->len_ns = w->sim.now - wn->t0;
	out->arrivals = wn->arrivals;
	out->completed = wn->completed;
	out->tokens = wn->tokens;
	out->ttft_miss = wn->ttft_miss;
	out->tpot_miss = wn->tpot_miss;
	out->ttft_p99_ms = q_or_nan(&wn->ttft, 0.99);
	out->tpot_mean_ms = wn->tpot.n ? wn->tpot.mean : (double)NAN;
	out->tpot_p99_ms = q_or_nan(&wn->tpot, 0.99);
	out->itl_mean_ms = wn->itl.n ? wn->itl.mean : (double)NAN;
	out->itl_p99_ms = q_or_nan(&wn->itl, 0.99);
	out->iterations = wn->iterations;
	out->preemptions = wn->preemptions;
	out->replicas = sv->nrep;
	out->tp = sv->set.tp;
	out->slo_ttft_ms = sv->slo_ttft_ms;
	out->slo_tpot_ms = sv->slo_tpot_ms;
	out->queued = (uint64_t)sv->nbacklog;
	for (r = 0; r < sv->nrep; r++) {
		const struct llm_rep *rp = &sv->rep[r];
		double b = rp->busy_ns;
		if (rp->busy)     /* busy_ns is offset at a reset */
			b += (double)(w->sim.now - rp->t_iter);
		out->busy_frac += b;
		out->kv_util += rp->util / sv->nrep;
		out->queued += (uint64_t)llm_engine_queued(&rp->e);
	}
	if (sv->nrep > 0 && out->len_ns > 0)
		out->busy_frac /= (double)out->len_ns * sv->nrep;
	return 0;
}

int world_llm_window_reset(struct world *w, int j, struct sim_err *err)
{
	struct llm_svc *sv;
	struct llm_win *wn;
	int r;

	if (j < 0 || j >= w->njobs || (sv = llm__svc(w, j)) == NULL)
		return sim_err_set(err, SIM_EINVAL, "llm_window_reset: job %d "
				   "is not an LLM service", j);
	wn = &sv->win;
	sim_sample_fini(&wn->ttft);
	sim_sample_fini(&wn->tpot);
	sim_sample_fini(&wn->itl);
	memset(wn, 0, sizeof *wn);
	sim_sample_init(&wn->ttft, 0);
	sim_sample_init(&wn->tpot, 0);
	sim_sample_init(&wn->itl, 0);
	wn->t0 = w->sim.now;
	for (r = 0; r < sv->nrep; r++) {
		sv->rep[r].busy_ns = 0;
		if (sv->rep[r].busy)      /* count from now on */
			sv->rep[r].busy_ns = -(double)(w->sim.now -
						       sv->rep[r].t_iter);
	}
	return 0;
}

/* A histogram of s: 80 log-spaced bins between its min and max. */
static int add_hist(struct sim_sample *s, const char *name,
		    struct run_result *res)
{
	enum { NB = 80 };
	uint64_t counts[NB];
	double lo, r;
	int b, rc;

	if (!world__res_bins(s, NB, counts, &lo, &r))
		return 0;
	for (b = 0; b < NB; b++) {
		struct res_hist_bin bin;
		memset(&bin, 0, sizeof bin);
		snprintf(bin.name, sizeof bin.name, "%s", name);
		bin.lo = lo * exp(r * b);
		bin.hi = lo * exp(r * (b + 1));
		bin.count = counts[b];
		if ((rc = run_result_add_hist(res, &bin)) != 0)
			return rc;
	}
	return 0;
}

int llm__results(struct world *w, void *state, struct run_result *res)
{
	struct llm_world *lw = state;
	unsigned long long unserved = 0;
	double kv_mean = 0;
	uint64_t iters = 0, pre = 0, rec = 0, swo = 0;
	int j, r, rc = 0, nrep = 0, k;

	for (j = 0; j < lw->capsvc && j < w->njobs; j++) {
		struct llm_svc *sv = lw->svc[j];
		if (sv == NULL)
			continue;
		unserved += (unsigned long long)(sv->nbacklog + sv->inflight);
		for (r = 0; r < sv->nrep; r++) {
			const struct llm_engine *e = &sv->rep[r].e;
			sim_time end = lw->t_last > sv->rep[r].kv.t0 ?
				lw->t_last : w->sim.now;
			if (!sv->rep[r].inited)
				continue;
			kv_mean += sim_twacc_mean(&sv->rep[r].kv, end);
			nrep++;
			iters += e->iterations;
			pre += e->preemptions;
			rec += e->recomputes;
			swo += e->swap_outs;
		}
	}
	if (lw->total == 0)
		return 0;     /* no LLM service: no LLM metrics */
#define SET(name, v) if (rc == 0) rc = run_result_set(res, name, (v))
#define QS(pre, s) \
	SET(pre "_mean_ms", lw->s.n ? lw->s.mean : (double)NAN); \
	SET(pre "_p50_ms", world__res_quant(&lw->s, 0.50)); \
	SET(pre "_p95_ms", world__res_quant(&lw->s, 0.95)); \
	SET(pre "_p99_ms", world__res_quant(&lw->s, 0.99))
	SET("llm_requests_total", (double)lw->total);
	SET("llm_requests_completed", (double)lw->completed);
	SET("llm_requests_rejected", (double)lw->rejected);
	SET("llm_requests_unserved", (double)unserved);
	SET("llm_requests_skipped", (double)lw->skipped);
	SET("llm_requests_truncated", (double)lw->truncated);
	QS("llm_ttft", ttft);
	QS("llm_tpot", tpot);
	QS("llm_itl", itl);
	QS("llm_e2e", e2e);
	SET("llm_slo_ttft", (double)lw->ok_ttft / (double)lw->total);
	SET("llm_slo_tpot", (double)lw->ok_tpot / (double)lw->total);
	SET("llm_slo_both", (double)lw->ok_both / (double)lw->total);
	SET("llm_tokens_out", (double)lw->tokens);
	SET("llm_out_tok_per_s", lw->t_last > lw->t_first ?
	    (double)lw->tokens / sim_time_to_s(lw->t_last - lw->t_first) :
	    (double)NAN);
	SET("llm_kv_util_mean", nrep ? kv_mean / nrep : (double)NAN);
	SET("llm_kv_util_peak", lw->kv_peak);
	SET("llm_iterations", (double)iters);
	SET("llm_preemptions", (double)pre);
	SET("llm_recomputes", (double)rec);
	SET("llm_swap_outs", (double)swo);
	SET("llm_swapped_bytes", lw->swapped_bytes);
#undef QS
#undef SET
	if (rc == 0)
		rc = add_hist(&lw->ttft, "llm_ttft_ms", res);
	if (rc == 0)
		rc = add_hist(&lw->tpot, "llm_tpot_ms", res);
	for (k = 0; rc == 0 && k < lw->s_n; k++) {
		struct res_point p;
		memset(&p, 0, sizeof p);
		snprintf(p.name, sizeof p.name, "llm_kv_util");
		p.t_s = lw->s_t[k];
		p.value = lw->s_v[k];
		rc = run_result_add_point(res, &p);
	}
	return rc;
}

/* xJobResult: the service's row (docs/RESULTS.md, "services"): requests
** that arrived, completed, met both SLOs; the TTFT SLO; the end-to-end
** latency of the completed ones. */
void llm__job_result(struct world *w, void *state,
			   const struct world_job *job, struct res_job *r)
{
	struct llm_svc *sv = llm__svc(w, job->idx);
	struct sim_sample *s;

	(void)state;
	if (sv == NULL)
		return;
	s = &sv->e2e;
	r->req_total = sv->n_req;
	r->req_served = sv->n_done;
	r->req_slo_ok = sv->n_ok;
	r->slo_ms = sv->slo_ttft_ms;
	r->lat_mean_ms = s->n ? s->mean : (double)NAN;
	r->lat_p50_ms = s->n ? sim_sample_quantile(s, 0.50) : (double)NAN;
	r->lat_p95_ms = s->n ? sim_sample_quantile(s, 0.95) : (double)NAN;
	r->lat_p99_ms = s->n ? sim_sample_quantile(s, 0.99) : (double)NAN;
}

