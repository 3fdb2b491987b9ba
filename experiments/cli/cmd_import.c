/*
** cmd_import.c: `colosim import FORMAT INPUT... [-o OUT] [options]`:
** converts a public trace into colosim's trace format v1 (traces/import.h)
** and reports, on stderr, how many records were read, written and skipped,
** by reason, and the assumptions applied.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "traces/import.h"

#define IMPORT_INPUTS_MAX 64

static void import_usage(FILE *f)
{
	int i;

	fprintf(f,
"usage: colosim import FORMAT INPUT... [-o OUT] [options]\n"
"\n"
"Converts a public GPU-cluster or inference trace into a colosim trace\n"
"(format v1, docs/TRACE_FORMAT.md).  Inputs are streamed: memory stays\n"
"bounded whatever their size.  Side files go next to OUT (OUT less .csv):\n"
"OUT.NAME.arrivals (request arrivals of an inference service) and\n"
"OUT.cluster (a --cluster spec built from a node list).\n"
"\n"
"options:\n"
"  -o, --output OUT     the trace to write (default: standard output;\n"
"                       formats with side files need -o)\n"
"  --compress K         divide submit and arrival times by K > 0 (K > 1\n"
"                       raises the load; durations are kept)\n"
"  --sample F           keep each job (request, for request traces) with\n"
"                       probability F in (0, 1]\n"
"  --gpu-scale F        multiply each job's GPU count by F (rounded, >= 1)\n"
"  --max-gpus N         clamp GPU counts to N\n"
"  --seed S             master seed of the sampling stream (default 1)\n"
"  --model NAME         zoo model for traces that name none\n"
"  --model-map A=B,...  map trace model names to zoo models (tiresias)\n"
"  --device-map T=D,... map GPU types to device profiles (alibaba-v2023)\n"
"  --batch N            batch size where the trace gives none\n"
"  --slo-ms MS          inference SLO where the trace gives none\n"
"  --rate R             Poisson requests/s per instance (alibaba-v2025)\n"
"  --replicas N         replicas per service (request traces; default 1)\n"
"  --keep-pending       alibaba-v2023: keep never-scheduled pods, with\n"
"                       duration = deletion - creation\n"
"  --length L           muri: iterations (default: iterations x\n"
"                       iteration_time, as Muri's simulator) or duration\n"
"  --iter-scale F       muri: multiply iteration times by F (Muri's\n"
"                       simulator: 1.015)\n"
"  -q, --quiet          no report on stderr\n"
"\n"
"formats:\n");
	for (i = 0; imp_formats[i] != NULL; i++)
		fprintf(f, "  %-20s %s\n  %-20s inputs: %s\n",
			imp_formats[i]->zName, imp_formats[i]->zSummary, "",
			imp_formats[i]->zInputs);
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

/* The value of option argv[*i] ("--x V" or "--x=V"); NULL if none. */
static const char *optval(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		return "";
	return argv[++*i];
}

static int num_opt(const char *name, const char *v, double *out)
{
	if (v[0] == '\0' || cli_parse_double(v, out) != 0)
		return cli_usage_error("import: %s: expected a number, got "
				       "'%s'", name, v);
	return 0;
}

static int int_opt(const char *name, const char *v, int *out)
{
	unsigned long long x;

	if (v[0] == '\0' || cli_parse_u64(v, &x) != 0 || x > 1000000000ULL)
		return cli_usage_error("import: %s: expected a whole number, "
				       "got '%s'", name, v);
	*out = (int)x;
	return 0;
}

static int cmd_import(int argc, char **argv)
{
	const char *inputs[IMPORT_INPUTS_MAX];
	const char *out_path = NULL, *fmt_name = NULL, *v;
	const struct imp_format *fmt;
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	unsigned long long seed;
	int i, n = 0, quiet = 0, rc;

	imp_opts_init(&o);
	sim_err_clear(&err);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		rc = 0;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			import_usage(stdout);
			return 0;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = 1;
		} else if (strcmp(a, "--keep-pending") == 0) {
			o.keep_pending = 1;
		} else if (strcmp(a, "-o") == 0 ||
			   (v = optval(argc, argv, &i, "--output")) != NULL) {
			if (strcmp(a, "-o") == 0)
				v = i + 1 < argc ? argv[++i] : "";
			if (v[0] == '\0')
				return cli_usage_error("import: -o needs a "
						       "file name");
			out_path = v;
		} else if ((v = optval(argc, argv, &i, "--compress"))) {
			rc = num_opt("--compress", v, &o.compress);
		} else if ((v = optval(argc, argv, &i, "--sample"))) {
			rc = num_opt("--sample", v, &o.sample);
		} else if ((v = optval(argc, argv, &i, "--gpu-scale"))) {
			rc = num_opt("--gpu-scale", v, &o.gpu_scale);
		} else if ((v = optval(argc, argv, &i, "--max-gpus"))) {
			rc = int_opt("--max-gpus", v, &o.max_gpus);
		} else if ((v = optval(argc, argv, &i, "--seed"))) {
			if (v[0] == '\0' || cli_parse_u64(v, &seed) != 0)
				return cli_usage_error("import: --seed: "
						       "expected a whole number, "
						       "got '%s'", v);
			o.seed = seed;
		} else if ((v = optval(argc, argv, &i, "--model-map"))) {
			o.model_map = v;
		} else if ((v = optval(argc, argv, &i, "--model"))) {
			o.model = v;
		} else if ((v = optval(argc, argv, &i, "--device-map"))) {
			o.device_map = v;
		} else if ((v = optval(argc, argv, &i, "--batch"))) {
			rc = int_opt("--batch", v, &o.batch);
		} else if ((v = optval(argc, argv, &i, "--slo-ms"))) {
			rc = num_opt("--slo-ms", v, &o.slo_ms);
		} else if ((v = optval(argc, argv, &i, "--rate"))) {
			rc = num_opt("--rate", v, &o.rate_per_s);
		} else if ((v = optval(argc, argv, &i, "--replicas"))) {
			rc = int_opt("--replicas", v, &o.replicas);
		} else if ((v = optval(argc, argv, &i, "--length"))) {
			if (strcmp(v, "iterations") == 0)
				o.length = IMP_LEN_ITERATIONS;
			else if (strcmp(v, "duration") == 0)
				o.length = IMP_LEN_DURATION;
			else
				return cli_usage_error("import: --length: "
						       "expected iterations or "
						       "duration, got '%s'", v);
		} else if ((v = optval(argc, argv, &i, "--iter-scale"))) {
			rc = num_opt("--iter-scale", v, &o.iter_scale);
		} else if (a[0] == '-' && a[1] != '\0') {
			return cli_usage_error("import: unknown option '%s' "
					       "(try 'colosim import --help')",
					       a);
		} else if (fmt_name == NULL) {
			fmt_name = a;
		} else if (n < IMPORT_INPUTS_MAX) {
			inputs[n++] = a;
		} else {
			return cli_usage_error("import: more than %d inputs",
					       IMPORT_INPUTS_MAX);
		}
		if (rc != 0)
			return rc;
	}
	if (fmt_name == NULL || n == 0)
		return cli_missing("import", fmt_name == NULL ? "FORMAT" :
				   "INPUT", "colosim import FORMAT INPUT... "
				   "[-o OUT] [options]");
	fmt = imp_find(fmt_name);
	if (fmt == NULL) {
		char names[256];
		imp_format_names(names, sizeof names);
		return cli_usage_error("import: unknown format '%s' (known: %s)",
				       fmt_name, names);
	}
	rc = imp_run(fmt, inputs, n, out_path, out_path ? NULL : stdout, &o,
		     &st, &err);
	if (rc != 0)
		return cli_report(&err);
	if (!quiet)
		report(fmt->zName, &st, out_path);
	return 0;
}

const struct cli_cmd cli_cmd_import = {
	"import",
	"convert a public trace (Alibaba, Tiresias, Azure) into a colosim trace",
	cmd_import
};
