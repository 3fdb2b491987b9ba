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
** Devices come from --dir, else $COLOSIM_DEVICES, ./models/devices or the
** installed profiles.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/llm.h"
#include "models/llm_points.h"
#include "experiments/cli/cli.h"

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
		"       colosim llm validate [--fit] [--dir DIR]\n\n"
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
		"first\n\n"
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

	if (cli_parse_u64(s, &v) != 0 || (long long)v < lo || (long long)v > hi)
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
			if (cli_parse_double(v, &o->util) != 0 ||
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

	sim_err_clear(&err);
	if (dev_catalog_load(cat, dir ? dir : dev_default_dir(), &err) != 0)
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
	int rc = parse_opts(argc, argv, 2, &o);

	if (rc)
		return rc;
	if ((rc = load(&cat, o.dir)) != 0)
		return rc;
	if ((rc = model_of(&o, &cat, &m)) != 0) {
		dev_catalog_fini(&cat);
		return rc;
	}
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
	int rc = parse_opts(argc, argv, 2, &o);

	if (rc)
		return rc;
	if ((rc = load(&cat, o.dir)) != 0)
		return rc;
	if ((rc = model_of(&o, &cat, &m)) != 0) {
		dev_catalog_fini(&cat);
		return rc;
	}
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

static int run(int argc, char **argv)
{
	if (argc < 2)
		return cli_missing("llm", "a topic (models, step, memory, "
				   "validate)", "colosim llm TOPIC ...");
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
	return cli_usage_error("llm: unknown topic '%s' (models, step, memory, "
			       "validate)", argv[1]);
}

const struct cli_cmd cli_cmd_llm = {
	"llm", "the LLM serving model: architectures, iteration time, "
	"memory, validation", run
};
