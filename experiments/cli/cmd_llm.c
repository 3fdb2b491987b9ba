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
** Each topic has one option table (cli_parse / cli_help); `serve --json`
** writes one object through jansson.  Devices come from --dir, else as
** dev_find_dir() finds them ($COLOSIM_DEVICES, ./models/devices, the
** checkout, the prefix).
*/
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/llm.h"
#include "models/llm_points.h"
#include "experiments/json.h"
#include "experiments/llm_serve.h"
#include "experiments/cli/cli.h"

/* ---- the option tables ------------------------------------------------- */

/* One enum for every option of every topic; each topic's table lists the
** ones it takes, in the order its help prints them. */
enum {
	O_TP, O_PREC, O_PREFILL, O_PREFILL_CTX, O_DECODE, O_CTX, O_UTIL,
	O_BLOCK, O_MBT, O_SEQS, O_DIR, O_FIT, O_MODEL, O_DEVICE, O_GPUS,
	O_REPLICAS, O_SCHED, O_PREEMPT, O_SWAP, O_NO_PAGING, O_SLO_TTFT,
	O_SLO_TPOT, O_ROUTE, O_LONG, O_JSON, O__N
};

static const struct cli_opt all_opts[O__N] = {
	[O_TP] = { "tp", 0, "N", "tensor-parallel degree (default 1; serve: "
		   "GPUs / replicas)" },
	[O_PREC] = { "prec", 0, "P", "fp16 (default), bf16 or fp8" },
	[O_PREFILL] = { "prefill", 0, "T", "prefill tokens of one sequence "
			"(default 0)" },
	[O_PREFILL_CTX] = { "prefill-ctx", 0, "C", "tokens it has cached "
			    "(default 0)" },
	[O_DECODE] = { "decode", 0, "B", "decoding sequences (default 1 "
		       "without --prefill)" },
	[O_CTX] = { "ctx", 0, "C", "their context (default 1)" },
	[O_UTIL] = { "util", 0, "F", "gpu_memory_utilization (default 0.9)" },
	[O_BLOCK] = { "block", 0, "N", "tokens per KV block (default 16)" },
	[O_MBT] = { "max-batched-tokens", 0, "N", "token budget of an "
		    "iteration (memory: 4096; serve:\nthe scheduler's "
		    "default)" },
	[O_SEQS] = { "max-seqs", 0, "N", "sequences per iteration (default "
		     "256)" },
	[O_DIR] = { "dir", 0, "DIR", "device profiles (default "
		    "$COLOSIM_DEVICES, ./models/devices)" },
	[O_FIT] = { "fit", 0, NULL, "refit the constants on the calibration "
		    "set first" },
	[O_MODEL] = { "model", 0, "M", "architecture (default llama-3-70b; "
		      "colosim llm models)" },
	[O_DEVICE] = { "device", 0, "D", "device profile (default h100-sxm)" },
	[O_GPUS] = { "gpus", 0, "N", "GPUs (default 8)" },
	[O_REPLICAS] = { "replicas", 0, "R", "replicas (default 1)" },
	[O_SCHED] = { "sched", 0, "S", "vllm (default), sarathi or orca" },
	[O_PREEMPT] = { "preempt", 0, "P", "recompute (default) or swap" },
	[O_SWAP] = { "swap-gib", 0, "G", "host swap space per replica "
		     "(default 4)" },
	[O_NO_PAGING] = { "no-paging", 0, NULL, "an unbounded KV cache: no "
			  "admission limit, no preemption" },
	[O_SLO_TTFT] = { "slo-ttft-ms", 0, "X", "TTFT target (default 1000)" },
	[O_SLO_TPOT] = { "slo-tpot-ms", 0, "Y", "TPOT target (default 100)" },
	[O_ROUTE] = { "route", 0, "R", "rr (default) or least" },
	[O_LONG] = { "long", 0, "M", "a request over the context window: "
		     "error (default),\nskip or truncate" },
	[O_JSON] = { "json", 0, NULL, "one JSON object instead of a table" },
};

#define TOPIC_OPTS 24

struct topic {
	const char *zName;
	const char *zUsage;
	const char *zAbout;
	int npos;                     /* operands */
	const int *aOpt;              /* -1 ended */
	struct cli_opt opts[TOPIC_OPTS + 1];
	int map[TOPIC_OPTS];          /* table row -> O_* */
	struct cli_spec spec;
};

static const int step_o[] = { O_TP, O_PREC, O_PREFILL, O_PREFILL_CTX,
			      O_DECODE, O_CTX, O_DIR, -1 };
static const int memory_o[] = { O_TP, O_PREC, O_UTIL, O_BLOCK, O_MBT,
				O_SEQS, O_DIR, -1 };
static const int validate_o[] = { O_FIT, O_DIR, -1 };
static const int serve_o[] = { O_MODEL, O_DEVICE, O_GPUS, O_REPLICAS, O_TP,
			       O_PREC, O_SCHED, O_PREEMPT, O_SWAP, O_NO_PAGING,
			       O_UTIL, O_BLOCK, O_MBT, O_SEQS, O_SLO_TTFT,
			       O_SLO_TPOT, O_ROUTE, O_LONG, O_JSON, O_DIR, -1 };
static const int none_o[] = { -1 };

static struct topic topics[] = {
	{ "models", "colosim llm models", "The architectures: parameters, "
	  "GFLOP and KV bytes per token.", 0, none_o, {{0}}, {0}, {0} },
	{ "step", "colosim llm step MODEL DEVICE [options]", "One engine "
	  "iteration: a prefill chunk of T tokens after C cached ones\nand/or "
	  "B decodes at context C; prints each term.", 2, step_o, {{0}}, {0},
	  {0} },
	{ "memory", "colosim llm memory MODEL DEVICE [options]", "Weights, "
	  "workspace and KV blocks of one replica, per GPU.", 2, memory_o,
	  {{0}}, {0}, {0} },
	{ "validate", "colosim llm validate [--fit] [--dir DIR]", "The "
	  "published points of docs/VALIDATION.md: value, model, error.", 0,
	  validate_o, {{0}}, {0}, {0} },
	{ "serve", "colosim llm serve REQUESTS [options]", "Replays REQUESTS "
	  "on dedicated replicas and prints TTFT, TPOT, inter-token\nand "
	  "end-to-end latency (p50/p95/p99), SLO attainment, output tokens/s,"
	  "\nKV-cache use, preemptions, swapped bytes.  REQUESTS is CSV with "
	  "TIMESTAMP,\nContextTokens, GeneratedTokens (the Azure LLM 2023 "
	  "trace) or t_s,\nprompt_tokens, output_tokens (docs/TRACE_FORMAT.md"
	  ").  The world's LLM tenant\nreplays the same requests the same "
	  "way on unshared GPUs (colosim replay).", 1, serve_o, {{0}}, {0},
	  {0} },
};

#define NTOPICS (sizeof topics / sizeof topics[0])

static struct topic *topic_of(const char *name)
{
	size_t i, k;

	for (i = 0; i < NTOPICS; i++) {
		struct topic *t = &topics[i];
		if (strcmp(t->zName, name) != 0)
			continue;
		if (t->spec.zCmd == NULL) {   /* build the table once */
			static char cmd[NTOPICS][24];
			for (k = 0; t->aOpt[k] >= 0 && k < TOPIC_OPTS; k++) {
				t->opts[k] = all_opts[t->aOpt[k]];
				t->map[k] = t->aOpt[k];
			}
			memset(&t->opts[k], 0, sizeof t->opts[k]);
			snprintf(cmd[i], sizeof cmd[i], "llm %s", t->zName);
			t->spec.zCmd = cmd[i];
			t->spec.zUsage = t->zUsage;
			t->spec.zAbout = t->zAbout;
			t->spec.opts = t->opts;
		}
		return t;
	}
	return NULL;
}

struct opts {
	const struct topic *t;
	const char *pos[2];
	int npos;
	const char *dir, *model, *device;
	enum llm_prec prec;
	long tp, prefill, prefill_ctx, decode, ctx, block, mbt, seqs, gpus,
	     replicas;
	double util, swap_gib, slo_ttft, slo_tpot;
	enum llm_sched_kind sched;
	enum llm_preempt preempt;
	enum llm_route route;
	enum llm_long lmode;
	int fit, paging, json, tp_given;
};

static int bad(const struct opts *o, int opt, const char *v,
	       const char *expected)
{
	return cli_usage_error("%s: --%s '%s': expected %s", o->t->spec.zCmd,
			       all_opts[opt].zLong, v, expected);
}

static int num_long(const struct opts *o, int opt, const char *v, long lo,
		    long hi, long *out)
{
	unsigned long long u;
	char what[64];

	if (cli_parse_u64(v, (unsigned long long)lo, (unsigned long long)hi,
			  &u) != 0) {
		snprintf(what, sizeof what, "an integer in %ld..%ld", lo, hi);
		return bad(o, opt, v, what);
	}
	*out = (long)u;
	return 0;
}

static int num_double(const struct opts *o, int opt, const char *v,
		      double lo, double hi, double *out, const char *what)
{
	if (cli_parse_double(v, lo, hi, out) != 0)
		return bad(o, opt, v, what);
	return 0;
}

static int on_opt(void *ctx, int k, char *v)
{
	struct opts *o = ctx;

	if (k == CLI_OPERAND) {
		if (o->npos == o->t->npos)
			return cli_usage_error("%s: unexpected argument '%s'",
					       o->t->spec.zCmd, v);
		o->pos[o->npos++] = v;
		return 0;
	}
	switch (o->t->map[k]) {
	case O_TP: o->tp_given = 1;
		return num_long(o, O_TP, v, 1, 64, &o->tp);
	case O_PREFILL: return num_long(o, O_PREFILL, v, 0, 1L << 20,
					&o->prefill);
	case O_PREFILL_CTX: return num_long(o, O_PREFILL_CTX, v, 0, 1L << 24,
					    &o->prefill_ctx);
	case O_DECODE: return num_long(o, O_DECODE, v, 0, 1L << 20, &o->decode);
	case O_CTX: return num_long(o, O_CTX, v, 1, 1L << 24, &o->ctx);
	case O_BLOCK: return num_long(o, O_BLOCK, v, 1, 1024, &o->block);
	case O_MBT: return num_long(o, O_MBT, v, 1, 1L << 24, &o->mbt);
	case O_SEQS: return num_long(o, O_SEQS, v, 1, 1L << 20, &o->seqs);
	case O_GPUS: return num_long(o, O_GPUS, v, 1, 4096, &o->gpus);
	case O_REPLICAS: return num_long(o, O_REPLICAS, v, 1, 4096,
					 &o->replicas);
	case O_UTIL:
		if (num_double(o, O_UTIL, v, 0, 1, &o->util, "a number in "
			       "(0, 1]") != 0)
			return 2;
		return o->util > 0 ? 0 : bad(o, O_UTIL, v, "a number in (0, 1]");
	case O_SWAP: return num_double(o, O_SWAP, v, 0, 1e9, &o->swap_gib,
				       "a finite number >= 0");
	case O_SLO_TTFT: return num_double(o, O_SLO_TTFT, v, 0, DBL_MAX,
					   &o->slo_ttft, "a finite number >= 0");
	case O_SLO_TPOT: return num_double(o, O_SLO_TPOT, v, 0, DBL_MAX,
					   &o->slo_tpot, "a finite number >= 0");
	case O_DIR: o->dir = v; return 0;
	case O_MODEL: o->model = v; return 0;
	case O_DEVICE: o->device = v; return 0;
	case O_FIT: o->fit = 1; return 0;
	case O_NO_PAGING: o->paging = 0; return 0;
	case O_JSON: o->json = 1; return 0;
	case O_PREC:
		return llm_prec_parse(v, &o->prec) ?
		       bad(o, O_PREC, v, "fp16, bf16 or fp8") : 0;
	case O_SCHED:
		return llm_sched_parse(v, &o->sched) ?
		       bad(o, O_SCHED, v, "vllm, sarathi or orca") : 0;
	case O_PREEMPT:
		return llm_preempt_parse(v, &o->preempt) ?
		       bad(o, O_PREEMPT, v, "recompute or swap") : 0;
	case O_ROUTE:
		return llm_route_parse(v, &o->route) ?
		       bad(o, O_ROUTE, v, "rr or least") : 0;
	case O_LONG:
		if (strcmp(v, "error") == 0)
			o->lmode = LLM_LONG_ERROR;
		else if (strcmp(v, "skip") == 0)
			o->lmode = LLM_LONG_SKIP;
		else if (strcmp(v, "truncate") == 0)
			o->lmode = LLM_LONG_TRUNCATE;
		else
			return bad(o, O_LONG, v, "error, skip or truncate");
		return 0;
	}
	return 2;
}

/* Parses topic t's arguments (argv[0] is the topic) into *o with the
** defaults first.  0, or the exit status (CLI_HELP: help printed). */
static int parse_opts(const struct topic *t, int argc, char **argv,
		      struct opts *o)
{
	int rc;

	memset(o, 0, sizeof *o);
	o->t = t;
	o->tp = 1;
	o->util = 0.9;
	o->block = 16;
	o->ctx = 1;
	o->model = "llama-3-70b";
	o->device = "h100-sxm";
	o->gpus = 8;
	o->replicas = 1;
	o->swap_gib = 4;
	o->slo_ttft = 1000;
	o->slo_tpot = 100;
	o->paging = 1;
	if ((rc = cli_parse(&t->spec, argc, argv, on_opt, o)) != 0)
		return rc;
	if (o->npos < t->npos)
		return cli_missing(t->spec.zCmd, t->npos == 2 ?
				   "MODEL and DEVICE" : "REQUESTS",
				   t->spec.zUsage);
	if (t->npos == 2) {
		o->model = o->pos[0];
		o->device = o->pos[1];
	}
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

/* The catalog and the replica's model of `step` and `memory`; on failure
** nothing is left to free. */
static int open_model(const struct opts *o, struct dev_catalog *cat,
		      struct llm_model *m)
{
	int rc;

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

static int do_step(const struct opts *oo)
{
	struct opts o = *oo;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_iter it;
	struct llm_step_terms t;
	int rc = open_model(&o, &cat, &m);

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

static int do_memory(const struct opts *oo)
{
	struct opts o = *oo;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_mem mem;
	struct sim_err err;
	int rc;

	if (o.mbt == 0)
		o.mbt = 4096;
	if (o.seqs == 0)
		o.seqs = 256;
	if ((rc = open_model(&o, &cat, &m)) != 0)
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

static int do_validate(const struct opts *oo)
{
	struct opts o = *oo;
	struct dev_catalog cat;
	struct llm_consts c;
	struct llm_valid *rows;
	struct sim_err err;
	double mcal, mchk;
	size_t i, n = llm_point_count();
	int rc;

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

/* NAME_mean, NAME_p50, NAME_p95, NAME_p99 into o (null without data). */
static int json_q(json_t *o, const char *name, struct sim_sample *s)
{
	static const char *const suf[4] = { "mean", "p50", "p95", "p99" };
	static const double q[4] = { 0, 0.5, 0.95, 0.99 };
	char key[64];
	int k, bad = 0;

	for (k = 0; k < 4; k++) {
		double v = s->n == 0 ? (double)NAN : k == 0 ? s->mean :
			   sim_sample_quantile(s, q[k]);
		snprintf(key, sizeof key, "%s_%s", name, suf[k]);
		bad |= json_object_set_new(o, key, exp_json_num(v));
	}
	return bad;
}

static int print_json(const struct llm_serve_cfg *c, const char *path,
		      struct llm_serve_result *r)
{
	const struct llm_model *m = c->model;
	json_t *o = json_object();
	char *text = NULL;
	int bad = o == NULL;

#define NUM(k, v) bad |= json_object_set_new(o, k, exp_json_num((double)(v)))
#define TXT(k, v) bad |= json_object_set_new(o, k, exp_json_text(v))
	TXT("requests", path);
	TXT("model", m->arch->name);
	TXT("device", m->dev->name);
	TXT("prec", llm_prec_name(m->prec));
	NUM("tp", m->tp);
	NUM("replicas", c->replicas);
	TXT("sched", llm_sched_name(c->sched.kind));
	NUM("paging", c->paging);
	NUM("submitted", r->submitted);
	NUM("completed", r->completed);
	NUM("rejected", r->rejected);
	NUM("iterations", r->iterations);
	if (o != NULL) {
		bad |= json_q(o, "ttft_ms", &r->ttft_ms);
		bad |= json_q(o, "tpot_ms", &r->tpot_ms);
		bad |= json_q(o, "itl_ms", &r->itl_ms);
		bad |= json_q(o, "e2e_ms", &r->e2e_ms);
	}
	NUM("slo_ttft_ms", c->slo_ttft_ms);
	NUM("slo_tpot_ms", c->slo_tpot_ms);
	NUM("slo_ttft", r->slo_ttft);
	NUM("slo_tpot", r->slo_tpot);
	NUM("slo_both", r->slo_both);
	NUM("tokens_out", r->tokens_out);
	NUM("out_tok_per_s", r->out_tok_per_s);
	NUM("kv_blocks", r->kv_blocks);
	NUM("kv_util_mean", r->kv_util_mean);
	NUM("kv_util_peak", r->kv_util_peak);
	NUM("preemptions", r->preemptions);
	NUM("recomputes", r->recomputes);
	NUM("swap_outs", r->swap_outs);
	NUM("swapped_bytes", r->swapped_bytes);
	NUM("end_s", sim_time_to_s(r->end_ns));
#undef NUM
#undef TXT
	if (!bad)
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				  JSON_REAL_PRECISION(10));
	json_decref(o);
	if (text == NULL) {
		fprintf(stderr, "colosim: llm serve: out of memory\n");
		return 1;
	}
	printf("%s\n", text);
	free(text);
	return 0;
}

static void print_table(const struct llm_serve_cfg *c, const char *path,
			struct llm_serve_result *r)
{
	const struct llm_model *m = c->model;

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

static int do_serve(const struct opts *oo)
{
	struct opts o = *oo;
	struct dev_catalog cat;
	struct llm_model m;
	struct llm_serve_cfg c;
	struct llm_serve_result res;
	struct llm_serve_req *reqs = NULL;
	struct sim_err err;
	unsigned long skipped = 0, truncated = 0;
	size_t n = 0;
	int rc;

	if (!o.tp_given) {
		if (o.gpus % o.replicas != 0)
			return cli_usage_error("llm serve: %ld GPUs do not split "
					       "into %ld replicas", o.gpus,
					       o.replicas);
		o.tp = o.gpus / o.replicas;
	} else if (o.tp * o.replicas > o.gpus) {
		return cli_usage_error("llm serve: %ld replicas of TP %ld need "
				       "%ld GPUs; --gpus is %ld", o.replicas,
				       o.tp, o.tp * o.replicas, o.gpus);
	}
	if ((rc = load(&cat, o.dir)) != 0)
		return rc;
	if ((rc = model_of(&o, &cat, &m)) != 0) {
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
	sim_err_clear(&err);
	rc = llm_serve_load(o.pos[0], c.sched.max_model_len, m.arch->name,
			    o.lmode, &reqs, &n, &skipped, &truncated, &err);
	if (rc != 0) {
		dev_catalog_fini(&cat);
		return cli_report(&err);
	}
	if (skipped || truncated)
		fprintf(stderr, "colosim: llm serve: %lu requests over the "
			"context window %s\n", skipped ? skipped : truncated,
			skipped ? "skipped" : "truncated");
	rc = llm_serve_run(&c, reqs, n, &res, &err);
	if (rc == 0) {
		if (o.json)
			rc = print_json(&c, o.pos[0], &res);
		else
			print_table(&c, o.pos[0], &res);
	} else {
		rc = cli_report(&err);
	}
	llm_serve_result_fini(&res);
	free(reqs);
	dev_catalog_fini(&cat);
	if (rc)
		return rc;
	return ferror(stdout) ? 1 : 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: colosim llm TOPIC [options]\n\nThe LLM serving "
		"model (docs/MODEL.md, \"LLM serving\").  Topics:\n");
	for (i = 0; i < NTOPICS; i++)
		fprintf(f, "  %-9s %s\n", topics[i].zName, topics[i].zUsage);
	fprintf(f, "\ncolosim llm TOPIC --help prints a topic's options.\n");
}

static int run(int argc, char **argv)
{
	struct topic *t;
	struct opts o;
	int rc;

	if (argc < 2)
		return cli_missing("llm", "a topic (models, step, memory, "
				   "validate, serve)", "colosim llm TOPIC ...");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if ((t = topic_of(argv[1])) == NULL)
		return cli_usage_error("llm: unknown topic '%s' (models, step, "
				       "memory, validate, serve)", argv[1]);
	if ((rc = parse_opts(t, argc - 1, argv + 1, &o)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (strcmp(t->zName, "models") == 0)
		return do_models();
	if (strcmp(t->zName, "step") == 0)
		return do_step(&o);
	if (strcmp(t->zName, "memory") == 0)
		return do_memory(&o);
	if (strcmp(t->zName, "validate") == 0)
		return do_validate(&o);
	return do_serve(&o);
}

const struct cli_cmd cli_cmd_llm = {
	"llm", "the LLM serving model: architectures, iteration time, "
	"memory, validation, dedicated-replica replay", run
};
