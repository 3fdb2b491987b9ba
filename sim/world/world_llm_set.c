/*
** world_llm_set.c: the LLM services' settings (world_llm.h): the table of
** keys, their check, and each service's values (`KEY = VALUE` for every
** service, then `ID.KEY = VALUE` for service ID, the last given winning),
** filled by the policies' parameter engine (sim/world/polparam.c) from a
** private ops table, so a setting is parsed and checked exactly as a
** policy parameter is.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_llm_int.h"

static const char *const sched_names[] = { "vllm", "sarathi", "orca", NULL };
static const char *const prec_names[] = { "fp16", "bf16", "fp8", NULL };
static const char *const kv_names[] = { "reserve", "dynamic", "oversub",
					 "unbounded", NULL };
static const char *const preempt_names[] = { "recompute", "swap", NULL };
static const char *const long_names[] = { "error", "skip", "truncate",
					   NULL };
static const char *const route_names[] = { "least", "rr", NULL };

/* The defaults: vLLM's (16-token blocks, 0.9 of HBM, 4 GiB of swap,
** recomputation); the TPOT target and the request lengths are
** assumptions (docs/RESULTS.md, "[llm]"): lognormal fits (MLE of the log)
** of the Azure LLM 2023 conversation trace, 19,366 requests. */
const struct pol_param_def world_llm_keys[] = {
	POL_PARAM_CHOICE("sched", struct llm_set, sched, sched_names, "vllm",
			 "replica scheduler: vLLM, Sarathi-Serve's chunked "
			 "prefill, Orca"),
	POL_PARAM_INT("tp", struct llm_set, tp, 1, 64, "1",
		      "tensor-parallel degree: GPUs of one node per replica"),
	POL_PARAM_CHOICE("prec", struct llm_set, prec, prec_names, "fp16",
			 "weights and KV-cache precision"),
	POL_PARAM_INT("block", struct llm_set, block, 1, 1024, "16",
		      "tokens per KV block"),
	POL_PARAM_DOUBLE("gpu_memory_utilization", struct llm_set, util,
			 0.01, 1, "0.9", "fraction of each GPU's (or MIG "
			 "slice's) HBM a replica may hold"),
	POL_PARAM_CHOICE("kv", struct llm_set, kv, kv_names, "reserve",
			 "reserve: the whole KV pool from placement on; "
			 "dynamic: the blocks in use, in free memory only; "
			 "oversub: the blocks in use, past capacity (paged); "
			 "unbounded: no KV limit, no KV memory (no paging)"),
	POL_PARAM_CHOICE("preempt", struct llm_set, preempt, preempt_names,
			 "recompute", "when blocks run out: recompute or "
			 "swap blocks to host memory"),
	POL_PARAM_DOUBLE("swap_gib", struct llm_set, swap_gib, 0, 1e6, "4",
			 "host swap space per replica, GiB"),
	POL_PARAM_INT("max_num_batched_tokens", struct llm_set, mbt, 0,
		      1 << 24, "0", "token budget of an iteration; 0: the "
		      "scheduler's default"),
	POL_PARAM_DOUBLE("slo_ttft_ms", struct llm_set, slo_ttft_ms, 0, 1e9,
			 "0", "time-to-first-token target, ms; 0: the "
			 "trace's slo_ms"),
	POL_PARAM_DOUBLE("slo_tpot_ms", struct llm_set, slo_tpot_ms, 0.001,
			 1e9, "100", "time-per-output-token target, ms"),
	POL_PARAM_CHOICE("long", struct llm_set, lmode, long_names, "error",
			 "a request over the context window: an error, "
			 "skipped, or its prompt truncated"),
	POL_PARAM_STRING("prompt_tokens", struct llm_set, prompt,
			 "lognormal:761:0.985", "prompt lengths when the "
			 "arrivals carry none (traces/lengths.h)"),
	POL_PARAM_STRING("output_tokens", struct llm_set, output,
			 "lognormal:151:0.859", "output lengths when the "
			 "arrivals carry none"),
	POL_PARAM_CHOICE("route", struct llm_set, route, route_names, "least",
			 "routing without a policy on_request: fewest "
			 "requests queued and running, or round robin"),
	POL_PARAM_END
};

static const struct pol_ops set_ops = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "llm",
	.aParam = world_llm_keys,
};

static int known_key(const char *k)
{
	const struct pol_param_def *d;

	for (d = world_llm_keys; d->zKey != NULL; d++)
		if (strcmp(d->zKey, k) == 0)
			return 1;
	return 0;
}

/* The setting name of key "KEY" or "ID.KEY" (after the last dot). */
static const char *key_of(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot != NULL ? dot + 1 : key;
}

int world_llm_check(const struct pol_params *p, struct sim_err *err)
{
	size_t i;

	for (i = 0; p != NULL && i < p->n; i++) {
		const struct pol_param *q = &p->v[i];
		const char *k = key_of(q->key);
		struct pol_param one = { k, q->value, q->origin };
		struct pol_params pp = { 1, &one };
		struct llm_set s;
		struct trace_len_dist d;
		struct sim_err e;
		int rc;

		if (!known_key(k)) {
			char list[512] = "";
			const struct pol_param_def *x;
			size_t len = 0;
			for (x = world_llm_keys; x->zKey != NULL; x++)
				len += (size_t)snprintf(list + len, len <
					sizeof list ? sizeof list - len : 0,
					"%s%s", len ? ", " : "", x->zKey);
			return sim_err_set(err, SIM_EINVAL, "%s: unknown LLM "
					   "setting '%s' (known: %s)",
					   q->origin ? q->origin : "--llm",
					   q->key, list);
		}
		if (k == q->key + 1 || (k != q->key && k[0] == '\0'))
			return sim_err_set(err, SIM_EINVAL, "%s: LLM setting "
					   "'%s': expected KEY or ID.KEY",
					   q->origin ? q->origin : "--llm",
					   q->key);
		if ((rc = pol_params_fill(&set_ops, &pp, &s, err)) != 0)
			return rc;
		sim_err_clear(&e);
		if ((strcmp(k, "prompt_tokens") == 0 ||
		     strcmp(k, "output_tokens") == 0) &&
		    trace_len_parse(q->value, &d, &e) != 0)
			return sim_err_set(err, SIM_EINVAL, "%s: LLM setting %s: "
					   "%s", q->origin ? q->origin : "--llm",
					   q->key, e.msg);
	}
	return 0;
}

/* The service's settings: every KEY, then its own ID.KEY (the last
** given wins), into sv->set; the length distributions parsed.  0, or the
** run fails naming the setting's origin. */
int llm__settings(struct world *w, struct llm_svc *sv,
			const struct world_job *job)
{
	struct llm_world *lw = sv->lw;
	struct pol_param *pv = NULL;
	struct pol_params pp = { 0, NULL };
	struct sim_err e;
	size_t i, n = 0, idlen = strlen(job->tj.id);
	int rc;

	if (lw->npv > 0 && (pv = calloc(lw->npv, sizeof *pv)) == NULL)
		return sim_fail(&w->sim, SIM_ENOMEM, "out of memory");
	for (i = 0; i < lw->npv; i++)
		if (strchr(lw->pv[i].key, '.') == NULL) {
			pv[n].key = lw->pv[i].key;
			pv[n].value = lw->pv[i].value;
			pv[n++].origin = lw->pv[i].origin;
		}
	for (i = 0; i < lw->npv; i++) {
		const char *k = lw->pv[i].key, *dot = strrchr(k, '.');
		if (dot != NULL && (size_t)(dot - k) == idlen &&
		    strncmp(k, job->tj.id, idlen) == 0) {
			pv[n].key = dot + 1;
			pv[n].value = lw->pv[i].value;
			pv[n++].origin = lw->pv[i].origin;
		}
	}
	pp.n = n;
	pp.v = pv;
	sim_err_clear(&e);
	rc = pol_params_fill(&set_ops, &pp, &sv->set, &e);
	if (rc == 0 && (rc = trace_len_parse(sv->set.prompt, &sv->dprompt,
					     &e)) != 0)
		sim_err_set(&e, rc, "%s: LLM setting prompt_tokens: %.200s",
			    pol_param_origin(&pp, "prompt_tokens") ?
			    pol_param_origin(&pp, "prompt_tokens") : "default",
			    e.msg);
	if (rc == 0 && (rc = trace_len_parse(sv->set.output, &sv->doutput,
					     &e)) != 0)
		sim_err_set(&e, rc, "%s: LLM setting output_tokens: %.200s",
			    pol_param_origin(&pp, "output_tokens") ?
			    pol_param_origin(&pp, "output_tokens") : "default",
			    e.msg);
	free(pv);
	sv->set.prompt = sv->set.output = NULL;
	if (rc != 0)
		return sim_fail(&w->sim, rc, "%s", e.msg);
	return 0;
}

