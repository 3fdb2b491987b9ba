/*
** cmd_llm.c: `colosim llm TOPIC`: the LLM serving model from the command
** line (docs/MODEL.md, "LLM serving"; docs/VALIDATION.md).
**
**   colosim llm models
**       the architectures: parameters, per-token FLOPs, KV bytes.
**   colosim llm step MODEL DEVICE [--tp N] [--prec P] [--prefill T]
**                    [--prefill-ctx C] [--decode B] [--ctx C]
**       the time of one iteration and its terms.
**   colosim llm memory MODEL DEVICE [--tp N] [--prec P] [--util F]
**                    [--block N] [--max-batched-tokens N] [--max-seqs N]
**       weights, workspace and the KV-cache blocks of one replica.
**   colosim llm validate [--dir DIR] [--fit]
**       every published point: value, model, error; the medians.
**   colosim llm serve REQUESTS [--model M] [--device D] [--gpus N] ...
**       a request file (Azure LLM 2023 columns, or t_s, prompt_tokens,
**       output_tokens) on dedicated replicas: the serving metrics.
** Devices come from --dir, else as dev_find_dir() finds them
** ($COLOSIM_DEVICES, ./models/devices, the checkout, the prefix).
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/llm.h"
#include "models/llm_points.h"
#include "experiments/llm_serve.h"
#include "experiments/cli/cli.h"
#include "traces/import_csv.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: colosim llm models\n"
		"       colosim llm step MODEL DEVICE [--tp N] [--prec P] "
		"[--prefill T]\n"
		"                        [--prefill-ctx C] [--decode B] "
		"[--ctx C] [--dir DIR]\n"
		"       colosim llm memory MODEL DEVICE [--tp N] [--prec P] "
		"[--util F] [--block N]\n"
		"                        [--max-batched-tokens N] "
		"[--max-seqs N] [--dir DIR]\n"
		"       colosim llm validate [--fit] [--dir DIR]\n"
		"       colosim llm serve REQUESTS [--model M] [--device D] "
		"[--gpus N] [--replicas R]\n"
		"                        [--sched S] [--preempt P] [--swap-gib G]"
		" [--no-paging]\n"
		"                        [--slo-ttft-ms X] [--slo-tpot-ms Y] "
		"[--route rr|least]\n"
		"                        [--long error|skip|truncate] "
		"[--max-seqs N] [--max-batched-tokens N]\n"
		"                        [--tp N] [--prec P] [--util F] "
		"[--block N] [--json] [--dir DIR]\n\n"
		"The LLM serving model (docs/MODEL.md, \"LLM serving\").\n"
		"  models    architectures: parameters, GFLOP and KV bytes per "
		"token\n"
		"  step      one engine iteration: a prefill chunk of T tokens "
		"after C cached\n"
		"            ones and/or B decodes at context C; prints each "
		"term\n"
		"  memory    weights, workspace and KV blocks of one replica "
		"per GPU\n"
		"  validate  the published points of docs/VALIDATION.md: "
		"value, model, error;\n"
		"            --fit refits the constants on the calibration set "
		"first\n"
		"  serve     replays REQUESTS on dedicated replicas and prints "
		"TTFT, TPOT,\n"
		"            inter-token and end-to-end latency (p50/p95/p99), "
		"SLO attainment,\n"
		"            output tokens/s, KV-cache use, preemptions, swapped "
		"bytes.  REQUESTS\n"
		"            is CSV with TIMESTAMP, ContextTokens, "
		"GeneratedTokens (the Azure LLM\n"
		"            2023 trace) or t_s, prompt_tokens, output_tokens.  "
		"Defaults: llama-3-70b,\n"
		"            h100-sxm, 8 GPUs, 1 replica (TP = GPUs / replicas), "
		"vllm, recompute,\n"
		"            4 GiB swap, SLOs 1000 ms / 100 ms, --long error\n\n"
		"  --tp N    tensor-parallel degree (default 1)\n"
		"  --prec P  fp16 (default), bf16 or fp8\n"
		"  --util F  gpu_memory_utilization (default 0.9)\n"
		"  --block N tokens per KV block (default 16)\n"
		"  --max-batched-tokens N, --max-seqs N  the workspace's "
		"sizes (4096, 256)\n"
		"  --dir DIR device profiles (default $COLOSIM_DEVICES, "
		"./models/devices)\n");
}

struct opts {
	const char *dir, *model, *device;
	enum llm_prec prec;
	long tp, prefill, prefill_ctx, decode, ctx, block, mbt, seqs;
	double util;
	int fit;
};

static int parse_long(const char *opt, const char *s, long lo, long hi,
		      long *out)
{
	unsigned long long v;

	if (cli_parse_u64(s, 0, (unsigned long long)hi, &v) != 0 ||
	    (long long)v < lo)
		return cli_usage_error("llm: %s '%s': expected an integer in "
				       "%ld..%ld", opt, s, lo, hi);
	*out = (long)v;
	return 0;
}

static int parse_opts(int argc, char **argv, int npos, struct opts *o)
{
	int i, pos = 0;

	memset(o, 0, sizeof *o);
	o->tp = 1;
	o->util = 0.9;
	o->block = 16;
	o->mbt = 4096;
	o->seqs = 256;
	o->ctx = 1;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (strcmp(a, "--fit") == 0) {
			o->fit = 1;
			continue;
		}
		if (a[0] != '-') {
			if (pos == 0)
				o->model = a;
			else if (pos == 1)
				o->device = a;
			if (++pos > npos)
				return cli_usage_error("llm %s: unexpected "
						       "argument '%s'", argv[1],
						       a);
			continue;
		}
		if (v == NULL)
			return cli_usage_error("llm %s: %s needs a value (try "
					       "--help)", argv[1], a);
		i++;
		if (strcmp(a, "--dir") == 0)
			o->dir = v;
		else if (strcmp(a, "--prec") == 0) {
			if (llm_prec_parse(v, &o->prec) != 0)
				return cli_usage_error("llm: --prec '%s': "
						       "expected fp16, bf16 or "
						       "fp8", v);
		} else if (strcmp(a, "--tp") == 0)
			rc = parse_long(a, v, 1, 64, &o->tp);
		else if (strcmp(a, "--prefill") == 0)
			rc = parse_long(a, v, 0, 1L << 20, &o->prefill);
		else if (strcmp(a, "--prefill-ctx") == 0)
			rc = parse_long(a, v, 0, 1L << 24, &o->prefill_ctx);
		else if (strcmp(a, "--decode") == 0)
			rc = parse_long(a, v, 0, 1L << 20, &o->decode);
		else if (strcmp(a, "--ctx") == 0)
			rc = parse_long(a, v, 1, 1L << 24, &o->ctx);
		else if (strcmp(a, "--block") == 0)
			rc = parse_long(a, v, 1, 1024, &o->block);
		else if (strcmp(a, "--max-batched-tokens") == 0)
			rc = parse_long(a, v, 1, 1L << 24, &o->mbt);
		else if (strcmp(a, "--max-seqs") == 0)
			rc = parse_long(a, v, 1, 1L << 20, &o->seqs);
		else if (strcmp(a, "--util") == 0) {
			if (cli_parse_double(v, 0, 1, &o->util) != 0 ||
			    !(o->util > 0 && o->util <= 1))
				return cli_usage_error("llm: --util '%s': "
						       "expected a number in "
						       "(0, 1]", v);
		} else
			return cli_usage_error("llm %s: unknown option '%s' "
					       "(try --help)", argv[1], a);
		if (rc)
			return rc;
	}
	if (pos < npos)
		return cli_missing("llm", npos == 2 ? "MODEL and DEVICE" :
				   "arguments", "colosim llm TOPIC ...");
	return 0;
}

static int load(struct dev_catalog *cat, const char *dir)
{
	struct sim_err err;
	char devdir[1024];

	sim_err_clear(&err);
	if (dev_find_dir(dir, devdir, sizeof devdir, &err) != 0 ||
	    dev_catalog_load(cat, devdir, &err) != 0)
		return cli_report(&err);
	return 0;
}

static int model_of(const struct opts *o, const struct dev_catalog *cat,
		    struct llm_model *m)
{
	const struct llm_arch *a = llm_arch_find(o->model);
	const struct dev_profile *d = dev_catalog_find(cat, o->device);
	struct sim_err err;
	char names[512];

	sim_err_clear(&err);
	if (a == NULL) {
		llm_arch_names(names, sizeof names);
		return cli_usage_error("llm: unknown model '%s' (known: %s)",
				       o->model, names);
	}
	if (d == NULL) {
		dev_catalog_names(cat, names, sizeof names);
		return cli_usage_error("llm: unknown device '%s' (known: %s)",
				       o->device, names);
	}
	if (llm_model_init(m, a, d, o->prec, (int)o->tp, NULL, &err) != 0)
		return cli_report(&err);
	return 0;
}

/* The options of `step` and `memory`, the catalog and the replica's
** model; on failure nothing is left to free. */
static int open_model(int argc, char **argv, struct opts *o,
		      struct dev_catalog *cat, struct llm_model *m)
{
	int rc = parse_opts(argc, argv, 2, o);

	if (rc)
		return rc;
	if ((rc = load(cat, o->dir)) != 0)
		return rc;
	if ((rc = model_of(o, cat, m)) != 0)
		dev_catalog_fini(cat);
	return rc;
}

static int do_models(void)
{
	size_t i;

	printf("%-13s %-13s %6s %6s %5s %4s %6s %7s %6s %5s %15s %9s %12s\n",
	       "name", "model", "layers", "d", "heads", "kv", "ffn", "vocab",
	       "ctx", "exprt", "params", "GFLOP/tok", "KV_KiB/tok");
	for (i = 0; i < llm_arch_count(); i++) {
		const struct llm_arch *a = llm_arch_at(i);

		printf("%-13s %-13s %6d %6d %5d %4d %6d %7d %6d %2d/%-2d "
		       "%15llu %9.3f %12.0f\n", a->name, a->display, a->layers,
		       a->d_model, a->heads, a->kv_heads, a->ffn, a->vocab,
		       a->max_ctx, a->experts_per_token, a->experts,
		       (unsigned long long)llm_arch_params(a),
		       llm_flops_per_token(a) / 1e9,
		       (double)llm_kv_bytes_per_token(a, 2) / 1024);
	}
	printf("\nGFLOP/tok: linear layers and LM head of one token, 2 per "
	       "weight (a MoE token meets\nits top-k experts), without "
	       "attention (4 x context x heads x head_dim per layer).\n"
	       "KV_KiB/tok: K and V of one token over all layers at 16 bits "
	       "(half at fp8).\nSources:\n");
	for (i = 0; i < llm_arch_count(); i++)
		printf("  %-13s %s\n", llm_arch_at(i)->name,
		       llm_arch_at(i)->source);
	return ferror(stdout) ? 1 : 0;
}

static int do_step(int argc, char **argv)
{
	struct opts o;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_iter it;
	struct llm_step_terms t;
	int rc = open_model(argc, argv, &o, &cat, &m);

	if (rc)
		return rc;
	if (o.prefill == 0 && o.decode == 0)
		o.decode = 1;
	memset(&it, 0, sizeof it);
	if (o.prefill > 0) {
		double q = (double)o.prefill, c = (double)o.prefill_ctx;

		it.nprefill = 1;
		it.prefill_tokens = o.prefill;
		it.prefill_pairs = q * (c + (q + 1) / 2);
		it.prefill_kv = c + q;
		it.nsample = 1;
	}
	it.ndecode = (int)o.decode;
	it.decode_ctx = (int64_t)o.decode * o.ctx;
	it.nsample += (int)o.decode;
	llm_step_terms(&m, &it, &t);
	printf("%s on %s, %s, TP %ld: prefill %ld tokens after %ld cached, "
	       "%ld decodes at context %ld\n", m.arch->name, m.dev->name,
	       llm_prec_name(m.prec), o.tp, o.prefill, o.prefill_ctx,
	       o.decode, o.decode ? o.ctx : 0);
	printf("  linear      %10.3f ms\n  small       %10.3f ms\n"
	       "  attn prefill%10.3f ms\n  attn decode %10.3f ms\n"
	       "  all-reduce  %10.3f ms\n  LM head     %10.3f ms\n"
	       "  overhead    %10.3f ms\n  total       %10.3f ms\n",
	       t.linear / 1e6, t.small / 1e6, t.attn_prefill / 1e6,
	       t.attn_decode / 1e6, t.allreduce / 1e6, t.head / 1e6,
	       t.overhead / 1e6, t.total / 1e6);
	if (o.decode > 0)
		printf("  time per output token %.3f ms, %.0f output tokens/s\n",
		       t.total / 1e6, o.decode / (t.total / 1e9));
	dev_catalog_fini(&cat);
	return ferror(stdout) ? 1 : 0;
}

static int do_memory(int argc, char **argv)
{
	struct opts o;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_mem mem;
	struct sim_err err;
	int rc = open_model(argc, argv, &o, &cat, &m);

	if (rc)
		return rc;
	sim_err_clear(&err);
	rc = llm_memory(&m, o.util, (int)o.block, (int)o.mbt, (int)o.seqs,
			&mem, &err);
	if (rc) {
		dev_catalog_fini(&cat);
		return cli_report(&err);
	}
	printf("%s on %s, %s, TP %ld, gpu_memory_utilization %.2f "
	       "(per GPU)\n", m.arch->name, m.dev->name, llm_prec_name(m.prec),
	       o.tp, o.util);
	printf("  weights     %8.2f GiB\n  workspace   %8.2f GiB\n"
	       "  context     %8.2f GiB\n  KV cache    %8.2f GiB: %lld blocks "
	       "of %ld tokens (%.2f MiB), %.0f tokens\n",
	       mem.weight_bytes / 1073741824.0, mem.act_bytes / 1073741824.0,
	       mem.ctx_bytes / 1073741824.0, mem.kv_bytes / 1073741824.0,
	       (long long)mem.blocks, o.block, mem.block_bytes / 1048576.0,
	       (double)mem.blocks * o.block);
	dev_catalog_fini(&cat);
	return ferror(stdout) ? 1 : 0;
}

static struct dev_catalog *val_cat;

static const struct dev_profile *find(void *ctx, const char *name)
{
	(void)ctx;
	return dev_catalog_find(val_cat, name);
}

static int do_validate(int argc, char **argv)
{
	struct opts o;
	struct dev_catalog cat;
	struct llm_consts c;
	struct llm_valid *rows;
	struct sim_err err;
	double mcal, mchk;
	size_t i, n = llm_point_count();
	int rc = parse_opts(argc, argv, 0, &o);

	if (rc)
		return rc;
	if ((rc = load(&cat, o.dir)) != 0)
		return rc;
	val_cat = &cat;
	sim_err_clear(&err);
	llm_consts_default(&c);
	if (o.fit && llm_fit(&c, find(NULL, "a100-80gb"), find, NULL, &err)) {
		dev_catalog_fini(&cat);
		return cli_report(&err);
	}
	rows = calloc(n, sizeof *rows);
	if (rows == NULL) {
		dev_catalog_fini(&cat);
		fprintf(stderr, "colosim: llm validate: out of memory\n");
		return 1;
	}
	rc = llm_validate(&c, find, NULL, rows, n, &mcal, &mchk, &err);
	if (rc) {
		free(rows);
		dev_catalog_fini(&cat);
		return cli_report(&err);
	}
	printf("constants%s: eta_flops %.4f eta_bw %.4f eta_kv %.4f eta_elem "
	       "%.4f eta_attn %.2f eta_link %.4f\n  t_small %lld ns t_attn "
	       "%lld ns t_hop %lld ns t_iter0 %lld ns t_seq %lld ns\n\n",
	       o.fit ? " (refitted)" : "", c.eta_flops, c.eta_bw, c.eta_kv,
	       c.eta_elem, c.eta_attn, c.eta_link, (long long)c.t_small_ns,
	       (long long)c.t_attn_ns, (long long)c.t_hop_ns,
	       (long long)c.t_iter0_ns, (long long)c.t_seq_ns);
	printf("%-31s %-5s %-12s %-10s %-4s %2s %5s %5s %5s %-21s %9s %9s "
	       "%7s\n", "point", "set", "model", "device", "prec", "tp",
	       "batch", "in", "out", "metric", "published", "model",
	       "error");
	for (i = 0; i < n; i++) {
		const struct llm_point *p = llm_point_at(i);

		printf("%-31s %-5s %-12s %-10s %-4s %2d %5d %5d %5d %-21s "
		       "%9.1f %9.1f %+6.1f%%\n", p->id, p->cal ? "cal" :
		       "check", p->model, p->device, llm_prec_name(p->prec),
		       p->tp, p->batch, p->input, p->output,
		       llm_metric_name(p->metric), p->value, rows[i].pred,
		       100 * rows[i].err);
	}
	printf("\nmedian |error|: calibration %.1f%%, check only %.1f%% "
	       "(%zu points); sources in docs/VALIDATION.md\n", 100 * mcal,
	       100 * mchk, n);
	free(rows);
	dev_catalog_fini(&cat);
	return ferror(stdout) ? 1 : 0;
}

/* ---- serve ------------------------------------------------------------ */

enum long_mode { LONG_ERROR = 0, LONG_SKIP, LONG_TRUNCATE };

struct load {
	const char *path;
	int max_len;              /* the model's context window */
	const char *model;
	enum long_mode mode;
	int c_t, c_p, c_o, datetime;
	sim_time t0;
	int have_t0;
	struct llm_serve_req *r;
	long *line;
	size_t n, cap;
	unsigned long skipped, truncated;
};

static int load_row(void *ctx, const struct imp_row *row, struct sim_err *err)
{
	struct load *L = ctx;
	int64_t p, o;
	sim_time t;
	int present, rc;

	if (row->index == 0) {
		L->datetime = imp_col(row, "TIMESTAMP") >= 0;
		if (L->datetime)
			rc = imp_col_req(row, "TIMESTAMP", &L->c_t, err) ||
			     imp_col_req(row, "ContextTokens", &L->c_p, err) ||
			     imp_col_req(row, "GeneratedTokens", &L->c_o, err);
		else
			rc = imp_col_req(row, "t_s", &L->c_t, err) ||
			     imp_col_req(row, "prompt_tokens", &L->c_p, err) ||
			     imp_col_req(row, "output_tokens", &L->c_o, err);
		return rc ? SIM_EPARSE : 0;
	}
	rc = L->datetime ?
	     imp_get_datetime(row, L->c_t, "TIMESTAMP", &t, &present, err) :
	     imp_get_secs(row, L->c_t, "t_s", &t, &present, err);
	if (rc == 0 && !present)
		rc = sim_err_set(err, SIM_EPARSE, "%s:%ld: %s: missing",
				 row->path, row->line,
				 L->datetime ? "TIMESTAMP" : "t_s");
	if (rc == 0)
		rc = imp_get_i64(row, L->c_p, L->datetime ? "ContextTokens" :
				 "prompt_tokens", &p, &present, err);
	if (rc == 0)
		rc = imp_get_i64(row, L->c_o, L->datetime ? "GeneratedTokens" :
				 "output_tokens", &o, &present, err);
	if (rc)
		return rc;
	if (p < 1 || o < 1 || p > 1 << 24 || o > 1 << 24)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld: %s: %lld prompt and "
				   "%lld output tokens: expected 1..16777216 each",
				   row->path, row->line, L->datetime ?
				   "ContextTokens" : "prompt_tokens",
				   (long long)p, (long long)o);
	if (p + o > L->max_len) {
		if (L->mode == LONG_ERROR)
			return sim_err_set(err, SIM_EINVAL,
					   "%s:%ld: %s: %lld prompt + %lld output "
					   "tokens exceed the %d-token context "
					   "window of %s (--long skip or truncate "
					   "to replay it)", row->path, row->line,
					   L->datetime ? "ContextTokens" :
					   "prompt_tokens", (long long)p,
					   (long long)o, L->max_len, L->model);
		if (L->mode == LONG_SKIP) {
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
		long *ln = realloc(L->line, cap * sizeof *ln);

		if (r)
			L->r = r;
		if (ln)
			L->line = ln;
		if (r == NULL || ln == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		L->cap = cap;
	}
	if (!L->have_t0 || t < L->t0) {
		/* times are made relative to the earliest request at the end */
		L->t0 = t;
		L->have_t0 = 1;
	}
	L->r[L->n].arrival_ns = t;
	L->r[L->n].prompt_tokens = (int)p;
	L->r[L->n].output_tokens = (int)o;
	L->line[L->n] = row->line;
	L->n++;
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct llm_serve_req *x = a, *y = b;

	return (x->arrival_ns > y->arrival_ns) - (x->arrival_ns < y->arrival_ns);
}

static void print_q(const char *name, struct sim_sample *s)
{
	if (s->n == 0) {
		printf("  %-22s -\n", name);
		return;
	}
	printf("  %-22s mean %10.2f  p50 %10.2f  p95 %10.2f  p99 %10.2f\n",
	       name, s->mean, sim_sample_quantile(s, 0.5),
	       sim_sample_quantile(s, 0.95), sim_sample_quantile(s, 0.99));
}

static void json_q(const char *name, struct sim_sample *s, int last)
{
	if (s->n == 0)
		printf("  \"%s_mean\": null, \"%s_p50\": null, \"%s_p95\": null, "
		       "\"%s_p99\": null%s\n", name, name, name, name,
		       last ? "" : ",");
	else
		printf("  \"%s_mean\": %.6g, \"%s_p50\": %.6g, \"%s_p95\": %.6g, "
		       "\"%s_p99\": %.6g%s\n", name, s->mean, name,
		       sim_sample_quantile(s, 0.5), name,
		       sim_sample_quantile(s, 0.95), name,
		       sim_sample_quantile(s, 0.99), last ? "" : ",");
}

static void print_result(const struct llm_serve_cfg *c, const char *path,
			 struct llm_serve_result *r, int json)
{
	const struct llm_model *m = c->model;

	if (json) {
		printf("{\n  \"requests\": \"%s\", \"model\": \"%s\", \"device\": "
		       "\"%s\", \"prec\": \"%s\", \"tp\": %d, \"replicas\": %d, "
		       "\"sched\": \"%s\", \"paging\": %d,\n", path,
		       m->arch->name, m->dev->name, llm_prec_name(m->prec), m->tp,
		       c->replicas, llm_sched_name(c->sched.kind), c->paging);
		printf("  \"submitted\": %llu, \"completed\": %llu, "
		       "\"rejected\": %llu, \"iterations\": %llu,\n",
		       (unsigned long long)r->submitted,
		       (unsigned long long)r->completed,
		       (unsigned long long)r->rejected,
		       (unsigned long long)r->iterations);
		json_q("ttft_ms", &r->ttft_ms, 0);
		json_q("tpot_ms", &r->tpot_ms, 0);
		json_q("itl_ms", &r->itl_ms, 0);
		json_q("e2e_ms", &r->e2e_ms, 0);
		printf("  \"slo_ttft_ms\": %g, \"slo_tpot_ms\": %g, "
		       "\"slo_ttft\": %.6g, \"slo_tpot\": %.6g, \"slo_both\": "
		       "%.6g,\n", c->slo_ttft_ms, c->slo_tpot_ms, r->slo_ttft,
		       r->slo_tpot, r->slo_both);
		printf("  \"tokens_out\": %llu, \"out_tok_per_s\": %.6g, "
		       "\"kv_blocks\": %lld, \"kv_util_mean\": %.6g, "
		       "\"kv_util_peak\": %.6g,\n",
		       (unsigned long long)r->tokens_out, r->out_tok_per_s,
		       (long long)r->kv_blocks, r->kv_util_mean, r->kv_util_peak);
		printf("  \"preemptions\": %llu, \"recomputes\": %llu, "
		       "\"swap_outs\": %llu, \"swapped_bytes\": %.6g, "
		       "\"end_s\": %.6g\n}\n", (unsigned long long)r->preemptions,
		       (unsigned long long)r->recomputes,
		       (unsigned long long)r->swap_outs, r->swapped_bytes,
		       sim_time_to_s(r->end_ns));
		return;
	}
	printf("%s: %s on %d x %s (TP %d, %s), scheduler %s, %s\n", path,
	       m->arch->name, c->replicas, m->dev->name, m->tp,
	       llm_prec_name(m->prec), llm_sched_name(c->sched.kind),
	       c->paging ? "paged KV cache" : "unbounded KV cache (no paging)");
	printf("  requests %llu, completed %llu, rejected %llu, %llu "
	       "iterations, %.1f s simulated\n",
	       (unsigned long long)r->submitted,
	       (unsigned long long)r->completed,
	       (unsigned long long)r->rejected,
	       (unsigned long long)r->iterations, sim_time_to_s(r->end_ns));
	print_q("TTFT (ms)", &r->ttft_ms);
	print_q("TPOT (ms)", &r->tpot_ms);
	print_q("inter-token gap (ms)", &r->itl_ms);
	print_q("end-to-end (ms)", &r->e2e_ms);
	printf("  SLO TTFT <= %g ms: %.1f%%, TPOT <= %g ms: %.1f%%, both: "
	       "%.1f%%\n", c->slo_ttft_ms, 100 * r->slo_ttft, c->slo_tpot_ms,
	       100 * r->slo_tpot, 100 * r->slo_both);
	if (c->paging)
		printf("  output %.0f tokens/s; KV cache %lld blocks per "
		       "replica, mean use %.1f%%, peak %.1f%%\n",
		       r->out_tok_per_s, (long long)r->kv_blocks,
		       100 * r->kv_util_mean, 100 * r->kv_util_peak);
	else
		printf("  output %.0f tokens/s; KV cache unbounded\n",
		       r->out_tok_per_s);
	printf("  preemptions %llu (recomputed %llu, swapped %llu), swapped "
	       "%.2f GiB\n", (unsigned long long)r->preemptions,
	       (unsigned long long)r->recomputes,
	       (unsigned long long)r->swap_outs,
	       r->swapped_bytes / 1073741824.0);
	if (r->rejected)
		printf("  first rejected: %s\n", r->first_reject.msg);
}

struct sopts {
	const char *path, *dir, *model, *device;
	long gpus, replicas, tp, block, seqs, mbt;
	double util, swap_gib, slo_ttft, slo_tpot;
	enum llm_prec prec;
	enum llm_sched_kind sched;
	enum llm_preempt preempt;
	enum llm_route route;
	enum long_mode lmode;
	int paging, json;
};

static int serve_opts(int argc, char **argv, struct sopts *o)
{
	int i;

	memset(o, 0, sizeof *o);
	o->model = "llama-3-70b";
	o->device = "h100-sxm";
	o->gpus = 8;
	o->replicas = 1;
	o->block = 16;
	o->util = 0.9;
	o->swap_gib = 4;
	o->slo_ttft = 1000;
	o->slo_tpot = 100;
	o->paging = 1;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;
		double d;

		if (strcmp(a, "--json") == 0) {
			o->json = 1;
			continue;
		}
		if (strcmp(a, "--no-paging") == 0) {
			o->paging = 0;
			continue;
		}
		if (a[0] != '-') {
			if (o->path)
				return cli_usage_error("llm serve: unexpected "
						       "argument '%s'", a);
			o->path = a;
			continue;
		}
		if (v == NULL)
			return cli_usage_error("llm serve: %s needs a value (try "
					       "--help)", a);
		i++;
		if (strcmp(a, "--dir") == 0)
			o->dir = v;
		else if (strcmp(a, "--model") == 0)
			o->model = v;
		else if (strcmp(a, "--device") == 0)
			o->device = v;
		else if (strcmp(a, "--gpus") == 0)
			rc = parse_long(a, v, 1, 4096, &o->gpus);
		else if (strcmp(a, "--replicas") == 0)
			rc = parse_long(a, v, 1, 4096, &o->replicas);
		else if (strcmp(a, "--tp") == 0)
			rc = parse_long(a, v, 1, 64, &o->tp);
		else if (strcmp(a, "--block") == 0)
			rc = parse_long(a, v, 1, 1024, &o->block);
		else if (strcmp(a, "--max-seqs") == 0)
			rc = parse_long(a, v, 1, 1L << 20, &o->seqs);
		else if (strcmp(a, "--max-batched-tokens") == 0)
			rc = parse_long(a, v, 1, 1L << 24, &o->mbt);
		else if (strcmp(a, "--prec") == 0) {
			if (llm_prec_parse(v, &o->prec))
				return cli_usage_error("llm serve: --prec '%s': "
						       "expected fp16, bf16 or "
						       "fp8", v);
		} else if (strcmp(a, "--sched") == 0) {
			if (llm_sched_parse(v, &o->sched))
				return cli_usage_error("llm serve: --sched '%s': "
						       "expected vllm, sarathi "
						       "or orca", v);
		} else if (strcmp(a, "--preempt") == 0) {
			if (llm_preempt_parse(v, &o->preempt))
				return cli_usage_error("llm serve: --preempt "
						       "'%s': expected recompute "
						       "or swap", v);
		} else if (strcmp(a, "--route") == 0) {
			if (llm_route_parse(v, &o->route))
				return cli_usage_error("llm serve: --route '%s': "
						       "expected rr or least", v);
		} else if (strcmp(a, "--long") == 0) {
			if (strcmp(v, "error") == 0)
				o->lmode = LONG_ERROR;
			else if (strcmp(v, "skip") == 0)
				o->lmode = LONG_SKIP;
			else if (strcmp(v, "truncate") == 0)
				o->lmode = LONG_TRUNCATE;
			else
				return cli_usage_error("llm serve: --long '%s': "
						       "expected error, skip or "
						       "truncate", v);
		} else if (strcmp(a, "--util") == 0 ||
			   strcmp(a, "--swap-gib") == 0 ||
			   strcmp(a, "--slo-ttft-ms") == 0 ||
			   strcmp(a, "--slo-tpot-ms") == 0) {
			if (cli_parse_double(v, 0, DBL_MAX, &d) != 0 ||
			    !isfinite(d) || (a[2] == 'u' && !(d > 0 && d <= 1)))
				return cli_usage_error("llm serve: %s '%s': "
						       "expected a finite number "
						       ">= 0%s", a, v, a[2] == 'u'
						       ? " in (0, 1]" : "");
			if (a[2] == 'u')
				o->util = d;
			else if (a[2] == 's' && a[3] == 'w')
				o->swap_gib = d;
			else if (a[6] == 't' && a[7] == 't')
				o->slo_ttft = d;
			else
				o->slo_tpot = d;
		} else {
			return cli_usage_error("llm serve: unknown option '%s' "
					       "(try --help)", a);
		}
		if (rc)
			return rc;
	}
	if (o->path == NULL)
		return cli_missing("llm serve", "REQUESTS",
				   "colosim llm serve REQUESTS [options]");
	if (o->tp == 0) {
		if (o->gpus % o->replicas != 0)
			return cli_usage_error("llm serve: %ld GPUs do not split "
					       "into %ld replicas", o->gpus,
					       o->replicas);
		o->tp = o->gpus / o->replicas;
	} else if (o->tp * o->replicas > o->gpus) {
		return cli_usage_error("llm serve: %ld replicas of TP %ld need "
				       "%ld GPUs; --gpus is %ld", o->replicas,
				       o->tp, o->tp * o->replicas, o->gpus);
	}
	return 0;
}

static int do_serve(int argc, char **argv)
{
	struct sopts o;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result res;
	struct load L;
	struct opts mo;
	struct sim_err err;
	size_t i;
	int rc = serve_opts(argc, argv, &o);

	if (rc)
		return rc;
	if ((rc = load(&cat, o.dir)) != 0)
		return rc;
	memset(&mo, 0, sizeof mo);
	mo.model = o.model;
	mo.device = o.device;
	mo.prec = o.prec;
	mo.tp = o.tp;
	if ((rc = model_of(&mo, &cat, &m)) != 0) {
		dev_catalog_fini(&cat);
		return rc;
	}
	llm_serve_cfg_default(&c, &m, o.sched);
	c.replicas = (int)o.replicas;
	c.block_tokens = (int)o.block;
	c.gpu_mem_util = o.util;
	c.swap_bytes = o.swap_gib * 1073741824.0;
	c.paging = o.paging;
	c.route = o.route;
	c.slo_ttft_ms = o.slo_ttft;
	c.slo_tpot_ms = o.slo_tpot;
	c.sched.preempt = o.preempt;
	if (o.seqs)
		c.sched.max_num_seqs = (int)o.seqs;
	if (o.mbt)
		c.sched.max_num_batched_tokens = (int)o.mbt;
	memset(&L, 0, sizeof L);
	L.path = o.path;
	L.max_len = c.sched.max_model_len;
	L.model = m.arch->name;
	L.mode = o.lmode;
	sim_err_clear(&err);
	rc = imp_csv_each(o.path, load_row, &L, &err);
	if (rc == 0 && L.n == 0)
		rc = sim_err_set(&err, SIM_EPARSE, "%s: no requests", o.path);
	if (rc) {
		free(L.r);
		free(L.line);
		dev_catalog_fini(&cat);
		return cli_report(&err);
	}
	for (i = 0; i < L.n; i++)
		L.r[i].arrival_ns -= L.t0;
	qsort(L.r, L.n, sizeof *L.r, cmp_arrival);
	if (L.skipped || L.truncated)
		fprintf(stderr, "colosim: llm serve: %lu requests over the "
			"context window %s\n", L.skipped ? L.skipped :
			L.truncated, L.skipped ? "skipped" : "truncated");
	rc = llm_serve_run(&c, L.r, L.n, &res, &err);
	if (rc == 0)
		print_result(&c, o.path, &res, o.json);
	llm_serve_result_fini(&res);
	free(L.r);
	free(L.line);
	dev_catalog_fini(&cat);
	if (rc)
		return cli_report(&err);
	return ferror(stdout) ? 1 : 0;
}

static int run(int argc, char **argv)
{
	if (argc < 2)
		return cli_missing("llm", "a topic (models, step, memory, "
				   "validate, serve)", "colosim llm TOPIC ...");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 && (strcmp(argv[2], "-h") == 0 ||
			 strcmp(argv[2], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "models") == 0)
		return do_models();
	if (strcmp(argv[1], "step") == 0)
		return do_step(argc, argv);
	if (strcmp(argv[1], "memory") == 0)
		return do_memory(argc, argv);
	if (strcmp(argv[1], "validate") == 0)
		return do_validate(argc, argv);
	if (strcmp(argv[1], "serve") == 0)
		return do_serve(argc, argv);
	return cli_usage_error("llm: unknown topic '%s' (models, step, memory, "
			       "validate, serve)", argv[1]);
}

const struct cli_cmd cli_cmd_llm = {
	"llm", "the LLM serving model: architectures, iteration time, "
	"memory, validation, dedicated-replica replay", run
};
