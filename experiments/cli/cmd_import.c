/*
** cmd_import.c: `colosim import FORMAT INPUT... [-o OUT] [options]`:
** converts a public trace into colosim's trace format v1 (traces/import.h)
** and reports, on stderr, how many records were read, written and skipped,
** by reason, and the assumptions applied.
*/
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "traces/import.h"

#define IMPORT_INPUTS_MAX 64

enum { O_OUT, O_COMPRESS, O_SAMPLE, O_GPU_SCALE, O_MAX_GPUS, O_SEED,
       O_MODEL, O_MODEL_MAP, O_DEVICE_MAP, O_BATCH, O_SLO_MS, O_RATE,
       O_REPLICAS, O_KEEP_PENDING, O_HOST, O_LENGTH, O_ITER_SCALE, O_LLM,
       O_QUIET };

static const struct cli_opt opts[] = {
	[O_OUT] = { "output", 'o', "OUT", "the trace to write (default: "
		    "standard output;\nformats with side files need -o)" },
	[O_COMPRESS] = { "compress", 0, "K", "divide submit and arrival times "
			 "by K > 0 (K > 1\nraises the load; durations are "
			 "kept)" },
	[O_SAMPLE] = { "sample", 0, "F", "keep each job (request, for request "
		       "traces) with\nprobability F in (0, 1]" },
	[O_GPU_SCALE] = { "gpu-scale", 0, "F", "multiply each job's GPU count "
			  "by F (rounded, >= 1)" },
	[O_MAX_GPUS] = { "max-gpus", 0, "N", "clamp GPU counts to N" },
	[O_SEED] = { "seed", 0, "S", "master seed of the sampling stream "
		     "(default 1)" },
	[O_MODEL] = { "model", 0, "NAME", "zoo model for traces that name "
		      "none" },
	[O_MODEL_MAP] = { "model-map", 0, "A=B,...", "map trace model names to "
			  "zoo models (tiresias)" },
	[O_DEVICE_MAP] = { "device-map", 0, "T=D,...", "map GPU types to device "
			   "profiles (alibaba-v2023)" },
	[O_BATCH] = { "batch", 0, "N", "batch size where the trace gives none" },
	[O_SLO_MS] = { "slo-ms", 0, "MS", "inference SLO where the trace gives "
		       "none" },
	[O_RATE] = { "rate", 0, "R", "Poisson requests/s per instance "
		     "(alibaba-v2025)" },
	[O_REPLICAS] = { "replicas", 0, "N", "replicas per service (request "
			 "traces; default 1)" },
	[O_KEEP_PENDING] = { "keep-pending", 0, NULL, "alibaba-v2023: keep "
			     "never-scheduled pods, with\nduration = deletion "
			     "- creation" },
	[O_HOST] = { "host", 0, NULL, "alibaba-v2023: the pods' CPU and "
		     "memory (cpu_milli,\nhost_mem_mib columns; CPU-only pods "
		     "kept) and the nodes'\n(cpus=N:mem_gb=X in the cluster "
		     "spec), for bestfit and fgd" },
	[O_LENGTH] = { "length", 0, "L", "muri: iterations (default: iterations "
		       "x\niteration_time, as Muri's simulator) or duration" },
	[O_ITER_SCALE] = { "iter-scale", 0, "F", "muri: multiply iteration times "
			   "by F (Muri's\nsimulator: 1.015)" },
	[O_LLM] = { "llm", 0, NULL, "azure-llm-2023: llm services (each "
		    "request's tokens\nserved by LLM replicas; "
		    "docs/TRACE_FORMAT.md)" },
	[O_QUIET] = { "quiet", 'q', NULL, "no report on stderr" },
	{ NULL, 0, NULL, NULL }
};

static char formats_text[2048];

static const struct cli_spec spec = {
	"import", "colosim import FORMAT INPUT... [-o OUT] [options]",
	"Converts a public GPU-cluster or inference trace into a colosim trace\n"
	"(format v1, docs/TRACE_FORMAT.md).  Inputs are streamed: memory stays\n"
	"bounded whatever their size.  Side files go next to OUT (OUT less "
	".csv):\nOUT.NAME.arrivals (request arrivals of an inference service) "
	"and\nOUT.cluster (a --cluster spec built from a node list).",
	opts, formats_text
};

/* The epilog: the formats, from the importer registry. */
static void list_formats(void)
{
	size_t k = 0;
	int i, w;

	k = (size_t)snprintf(formats_text, sizeof formats_text, "formats:");
	for (i = 0; imp_formats[i] != NULL && k < sizeof formats_text; i++) {
		w = snprintf(formats_text + k, sizeof formats_text - k,
			     "\n  %-20s %s\n  %-20s inputs: %s",
			     imp_formats[i]->zName, imp_formats[i]->zSummary,
			     "", imp_formats[i]->zInputs);
		if (w < 0)
			break;
		k += (size_t)w;
	}
}

static void report(const char *format, const struct imp_stats *st,
		   const char *out_path)
{
	int i;

	fprintf(stderr, "colosim import %s: %ld record%s read, %ld job%s "
		"written, %ld skipped, %ld sampled out",
		format, st->rows_read, st->rows_read == 1 ? "" : "s",
		st->jobs_written, st->jobs_written == 1 ? "" : "s",
		st->skipped, st->sampled_out);
	if (st->arrivals_written > 0)
		fprintf(stderr, ", %ld arrivals written", st->arrivals_written);
	fputc('\n', stderr);
	for (i = 0; i < st->nskip; i++)
		fprintf(stderr, "  skipped %8ld  %s\n", st->skip[i].n,
			st->skip[i].reason);
	for (i = 0; i < st->nnote; i++)
		fprintf(stderr, "  note    %8ld  %s\n", st->note[i].n,
			st->note[i].reason);
	if (out_path != NULL)
		fprintf(stderr, "  wrote %s\n", out_path);
	for (i = 0; i < st->nside; i++)
		fprintf(stderr, "  wrote %s\n", st->side_files[i]);
	if (st->side_more > 0)
		fprintf(stderr, "  and %ld more side files\n", st->side_more);
}

struct import_args {
	const char *inputs[IMPORT_INPUTS_MAX];
	const char *out_path, *fmt_name;
	struct imp_opts o;
	int n, quiet;
};

static int num_opt(int opt, const char *v, double *out)
{
	if (cli_parse_double(v, -DBL_MAX, DBL_MAX, out) != 0)
		return cli_usage_error("import: --%s: expected a number, got "
				       "'%s'", opts[opt].zLong, v);
	return 0;
}

static int int_opt(int opt, const char *v, int *out)
{
	unsigned long long x;

	if (cli_parse_u64(v, 0, 1000000000ULL, &x) != 0)
		return cli_usage_error("import: --%s: expected a whole number, "
				       "got '%s'", opts[opt].zLong, v);
	*out = (int)x;
	return 0;
}

static int on_operand(struct import_args *a, const char *v)
{
	if (a->fmt_name == NULL)
		a->fmt_name = v;
	else if (a->n < IMPORT_INPUTS_MAX)
		a->inputs[a->n++] = v;
	else
		return cli_usage_error("import: more than %d inputs",
				       IMPORT_INPUTS_MAX);
	return 0;
}

static int on_opt(void *ctx, int opt, char *v)
{
	struct import_args *a = ctx;
	struct imp_opts *o = &a->o;
	unsigned long long seed;

	switch (opt) {
	case CLI_OPERAND: return on_operand(a, v);
	case O_OUT:
		if (v[0] == '\0')
			return cli_usage_error("import: -o needs a file name");
		a->out_path = v;
		return 0;
	case O_COMPRESS: return num_opt(opt, v, &o->compress);
	case O_SAMPLE: return num_opt(opt, v, &o->sample);
	case O_GPU_SCALE: return num_opt(opt, v, &o->gpu_scale);
	case O_SLO_MS: return num_opt(opt, v, &o->slo_ms);
	case O_RATE: return num_opt(opt, v, &o->rate_per_s);
	case O_MAX_GPUS: return int_opt(opt, v, &o->max_gpus);
	case O_BATCH: return int_opt(opt, v, &o->batch);
	case O_REPLICAS: return int_opt(opt, v, &o->replicas);
	case O_SEED:
		if (cli_parse_u64(v, 0, UINT64_MAX, &seed) != 0)
			return cli_usage_error("import: --seed: expected a "
					       "whole number, got '%s'", v);
		o->seed = seed;
		return 0;
	case O_MODEL: o->model = v; return 0;
	case O_MODEL_MAP: o->model_map = v; return 0;
	case O_DEVICE_MAP: o->device_map = v; return 0;
	case O_KEEP_PENDING: o->keep_pending = 1; return 0;
	case O_HOST: o->host = 1; return 0;
	case O_LENGTH:
		if (strcmp(v, "iterations") == 0)
			o->length = IMP_LEN_ITERATIONS;
		else if (strcmp(v, "duration") == 0)
			o->length = IMP_LEN_DURATION;
		else
			return cli_usage_error("import: --length: expected "
					       "iterations or duration, got "
					       "'%s'", v);
		return 0;
	case O_ITER_SCALE: return num_opt(opt, v, &o->iter_scale);
	case O_LLM: o->llm = 1; return 0;
	case O_QUIET: a->quiet = 1; return 0;
	}
	return 2;
}

static int cmd_import(int argc, char **argv)
{
	const struct imp_format *fmt;
	struct import_args a;
	struct imp_stats st;
	struct sim_err err;
	int rc;

	memset(&a, 0, sizeof a);
	imp_opts_init(&a.o);
	sim_err_clear(&err);
	list_formats();
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.fmt_name == NULL || a.n == 0)
		return cli_missing("import", a.fmt_name == NULL ? "FORMAT" :
				   "INPUT", spec.zUsage);
	fmt = imp_find(a.fmt_name);
	if (fmt == NULL) {
		char names[256];
		imp_format_names(names, sizeof names);
		return cli_usage_error("import: unknown format '%s' (known: %s)",
				       a.fmt_name, names);
	}
	rc = imp_run(fmt, a.inputs, a.n, a.out_path,
		     a.out_path ? NULL : stdout, &a.o, &st, &err);
	if (rc != 0)
		return cli_report(&err);
	if (!a.quiet)
		report(fmt->zName, &st, a.out_path);
	return 0;
}

const struct cli_cmd cli_cmd_import = {
	"import",
	"convert a public trace (Alibaba, Tiresias, Azure) into a colosim trace",
	cmd_import
};
