/*
** cmd_list.c: `colosim list TOPIC`: prints a catalog.
**
** Topics are rows of a static table (name, summary, function), so a new
** topic (models, policies) is one function and one row.
**
**   colosim list devices [--dir DIR] [NAME]
**       the device profiles: one line each, or every key of NAME with its
**       value and source.
**   colosim list policies [NAME]
**       the policies: one line each, or NAME's parameter table.
*/
#include <stdio.h>
#include <string.h>

#include "models/device.h"
#include "sim/datadir.h"
#include "policies/policy.h"
#include "experiments/cli/cli.h"
#include "experiments/cli/list_models.h"

struct list_topic {
	const char *zName;
	const char *zSummary;
	int (*xRun)(int argc, char **argv);
};

static const struct cli_opt devices_opts[] = {
	{ "devices", 0, "DIR", "the profiles' folder (default: "
	  "$COLOSIM_DEVICES, else\n./models/devices, the binary's checkout, "
	  "the binary's\nprefix, PREFIX/share/colosim/devices)" },
	{ "dir", 0, "DIR", "the same as --devices" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec devices_spec = {
	"list devices", "colosim list devices [--devices DIR] [NAME]",
	"Without NAME, prints one line per device profile found in DIR.\nWith "
	"NAME (or an alias), prints every value of that profile with its "
	"source.", devices_opts, NULL
};

static const struct cli_opt no_opts[] = { { NULL, 0, NULL, NULL } };

static struct cli_spec models_spec = {
	"list models", "colosim list models",
	"The model zoo (models/zoo.h): sizes, FLOPs, activations.", no_opts,
	NULL
};

static struct cli_spec policies_spec = {
	"list policies", "colosim list policies [NAME]",
	"The policy registry (policies/registry.c); with NAME, that policy's\n"
	"parameters: key, type, range, default, help (docs/POLICIES.md).",
	no_opts, NULL
};

struct devices_args {
	const char *dir, *name;
};

static int devices_opt(void *ctx, int opt, char *v)
{
	struct devices_args *a = ctx;

	if (opt == 0 || opt == 1) {
		a->dir = v;
		return 0;
	}
	if (a->name != NULL)
		return cli_usage_error("list devices: one NAME at most");
	a->name = v;
	return 0;
}

/* Operands of a topic that takes none are errors. */
static int no_operand(void *ctx, int opt, char *v)
{
	const struct cli_spec *spec = ctx;

	(void)opt;
	return cli_usage_error("%s: unexpected '%s'", spec->zCmd, v);
}

static void print_key(const struct dev_profile *d, const char *key,
		      const char *value)
{
	const char *src = dev_source(d, key);

	printf("  %-26s %-20s %s\n", key, value, src ? src : "");
}

static void print_profile(const struct dev_profile *d)
{
	char v[64];
	int i;

#define NUM(key, fmt, expr) \
	do { snprintf(v, sizeof v, fmt, expr); print_key(d, key, v); } while (0)
	printf("%s: %s (%s)\n", d->name, d->display, d->path);
	if (d->aliases[0])
		printf("  aliases: %s\n", d->aliases);
	NUM("hbm_bytes", "%llu", (unsigned long long)d->hbm_bytes);
	NUM("hbm_bw_bytes_per_s", "%.4g", d->hbm_bw_bytes_per_s);
	NUM("l2_bytes", "%llu", (unsigned long long)d->l2_bytes);
	NUM("ctx_bytes", "%llu", (unsigned long long)d->ctx_bytes);
	NUM("sms", "%d", d->sms);
	NUM("fp32_flops", "%.4g", d->fp32_flops);
	NUM("fp16_flops", "%.4g", d->fp16_flops);
	NUM("bf16_flops", "%.4g", d->bf16_flops);
	if (d->fp8_flops > 0)
		NUM("fp8_flops", "%.4g", d->fp8_flops);
	if (d->bf16_achieved_flops > 0)
		NUM("bf16_achieved_flops", "%.4g", d->bf16_achieved_flops);
	if (d->sm_clock_hz > 0)
		NUM("sm_clock_hz", "%.4g", d->sm_clock_hz);
	NUM("pcie_gen", "%d", d->pcie_gen);
	NUM("h2d_pinned_bytes_per_s", "%.4g", d->h2d_pinned_bytes_per_s);
	NUM("d2h_pinned_bytes_per_s", "%.4g", d->d2h_pinned_bytes_per_s);
	NUM("h2d_pageable_bytes_per_s", "%.4g", d->h2d_pageable_bytes_per_s);
	NUM("d2h_pageable_bytes_per_s", "%.4g", d->d2h_pageable_bytes_per_s);
	NUM("pcie_latency_ns", "%lld", (long long)d->pcie_latency_ns);
	NUM("nvlink_bytes_per_s", "%.4g", d->nvlink_bytes_per_s);
	NUM("ts_quantum_ns", "%lld", (long long)d->ts_quantum_ns);
	NUM("ts_switch_ns", "%lld", (long long)d->ts_switch_ns);
	NUM("mps_contention_k", "%.4g", d->mps_contention_k);
	NUM("uvm_bytes_per_s", "%.4g", d->uvm_bytes_per_s);
	/* Optional calibration keys: shown only when measured (non-zero). */
#define OPT(key, fmt, expr) \
	do { if (d->key > 0) NUM(#key, fmt, expr); } while (0)
	OPT(ts_mem_contention_k, "%.4g", d->ts_mem_contention_k);
	OPT(util_duty_scale, "%.4g", d->util_duty_scale);
	OPT(util_duty_exp, "%.4g", d->util_duty_exp);
	OPT(mig_bw_weight, "%.4g", d->mig_bw_weight);
	OPT(h2d_pinned_latency_ns, "%lld", (long long)d->h2d_pinned_latency_ns);
	OPT(d2h_pinned_latency_ns, "%lld", (long long)d->d2h_pinned_latency_ns);
	OPT(h2d_pageable_latency_ns, "%lld",
	    (long long)d->h2d_pageable_latency_ns);
	OPT(d2h_pageable_latency_ns, "%lld",
	    (long long)d->d2h_pageable_latency_ns);
	OPT(d2d_latency_ns, "%lld", (long long)d->d2d_latency_ns);
	OPT(d2d_bytes_per_s, "%.4g", d->d2d_bytes_per_s);
	OPT(hbm_sat_sms, "%.4g", d->hbm_sat_sms);
	OPT(mps_sat_compute, "%.4g", d->mps_sat_compute);
	OPT(mps_sat_memory, "%.4g", d->mps_sat_memory);
	OPT(streams_contention_k, "%.4g", d->streams_contention_k);
	OPT(uvm_random_bytes_per_s, "%.4g", d->uvm_random_bytes_per_s);
	OPT(ctx_create_ns, "%lld", (long long)d->ctx_create_ns);
	OPT(max_alloc_bytes, "%llu", (unsigned long long)d->max_alloc_bytes);
	OPT(launch_overhead_ns, "%lld", (long long)d->launch_overhead_ns);
	OPT(kernel_roundtrip_ns, "%lld", (long long)d->kernel_roundtrip_ns);
	OPT(fp32_fma_flops, "%.4g", d->fp32_fma_flops);
	OPT(fp16_fma_flops, "%.4g", d->fp16_fma_flops);
	OPT(gemm_fp16_flops, "%.4g", d->gemm_fp16_flops);
	OPT(gemm_fp32_flops, "%.4g", d->gemm_fp32_flops);
#undef OPT
#undef NUM
	for (i = 0; i < d->nmig; i++) {
		const struct dev_mig_profile *m = &d->mig[i];
		char key[64];

		snprintf(key, sizeof key, "mig %s.sms", m->name);
		printf("  mig %-9s x%d  %3d SMs  %6.1f GiB  %.3g of bandwidth"
		       "   %s\n", m->name, m->max_count, m->sms,
		       (double)m->hbm_bytes / (1 << 30), m->bw_frac,
		       dev_source(d, key) ? dev_source(d, key) : "");
	}
}

static int list_devices(int argc, char **argv)
{
	struct devices_args a = { NULL, NULL };
	struct dev_catalog cat;
	struct sim_err err;
	const char *dir, *name;
	char devdir[4096];
	size_t i;
	int rc;

	if ((rc = cli_parse(&devices_spec, argc, argv, devices_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	dir = a.dir;
	name = a.name;
	sim_err_clear(&err);
	if (dev_find_dir(dir, devdir, sizeof devdir, &err) != 0 ||
	    dev_catalog_load(&cat, devdir, &err) != 0)
		return cli_report(&err);
	if (name != NULL) {
		const struct dev_profile *d = dev_catalog_find(&cat, name);
		char names[1024];

		if (d == NULL) {
			dev_catalog_names(&cat, names, sizeof names);
			dev_catalog_fini(&cat);
			return cli_usage_error("unknown device '%s' (known: %s)",
					       name, names);
		}
		print_profile(d);
		dev_catalog_fini(&cat);
		return 0;
	}
	printf("%-10s %-28s %7s %7s %4s %7s %7s %4s %-18s %s\n", "name",
	       "display", "HBM_GiB", "BW_GB/s", "SMs", "FP32_TF", "BF16_TF",
	       "PCIe", "MIG profiles", "aliases");
	for (i = 0; i < cat.n; i++) {
		const struct dev_profile *d = &cat.devs[i];
		char mig[64] = "-";

		if (d->nmig > 0)
			snprintf(mig, sizeof mig, "%s..%s", d->mig[0].name,
				 d->mig[d->nmig - 1].name);
		printf("%-10s %-28s %7.1f %7.0f %4d %7.1f %7.1f %4d %-18s %s\n",
		       d->name, d->display, (double)d->hbm_bytes / (1 << 30),
		       d->hbm_bw_bytes_per_s / 1e9, d->sms,
		       d->fp32_flops / 1e12, d->bf16_flops / 1e12,
		       d->pcie_gen, mig, d->aliases[0] ? d->aliases : "-");
	}
	dev_catalog_fini(&cat);
	return 0;
}

static int list_models(int argc, char **argv)
{
	int rc = cli_parse(&models_spec, argc, argv, no_operand,
			   &models_spec);

	if (rc != 0)
		return rc == CLI_HELP ? 0 : rc;
	return cli_list_models(stdout);
}

/* One policy's parameter table: key, type, range, default, help (the
** columns of its table in docs/POLICIES.md). */
static void print_policy(const struct pol_ops *o)
{
	const struct pol_param_def *d;
	char range[256];

	printf("%s: %s\n", o->zName, o->zDesc);
	if (o->iVersion < 2) {
		printf("(interface version %d: parameters are read by its "
		       "xInit, not declared)\n", o->iVersion);
		return;
	}
	if (o->aParam == NULL || o->aParam[0].zKey == NULL) {
		printf("no parameters\n");
		return;
	}
	printf("\n  %-20s %-8s %-34s %-12s %s\n", "key", "type", "range",
	       "default", "help");
	for (d = o->aParam; d->zKey != NULL; d++) {
		pol_param_range(d, range, sizeof range);
		printf("  %-20s %-8s %-34s %-12s %s\n", d->zKey,
		       pol_ptype_name(d->eType), range,
		       d->zDefault ? d->zDefault : "(none)", d->zHelp);
	}
}

/* The one operand of `list policies`: a policy name. */
static int policies_opt(void *ctx, int opt, char *v)
{
	const char **name = ctx;

	(void)opt;
	if (*name != NULL)
		return cli_usage_error("list policies: unexpected '%s'", v);
	*name = v;
	return 0;
}

static int list_policies(int argc, char **argv)
{
	const char *name = NULL;
	size_t i;
	int rc = cli_parse(&policies_spec, argc, argv, policies_opt, &name);

	if (rc != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (name != NULL) {
		const struct pol_ops *o = pol_find(name);
		char known[512];

		if (o == NULL && strcmp(name, pol_template.zName) == 0)
			o = &pol_template;       /* not registered */
		if (o == NULL) {
			pol_names(known, sizeof known);
			return cli_usage_error("list policies: unknown policy "
					       "'%s' (known: %s, %s)", name,
					       known, pol_template.zName);
		}
		print_policy(o);
		return 0;
	}
	printf("%-12s %s\n", "policy", "description");
	for (i = 0; pol_registry[i] != NULL; i++)
		printf("%-12s %s\n", pol_registry[i]->zName,
		       pol_registry[i]->zDesc);
	return 0;
}

static const struct list_topic topics[] = {
	{ "devices", "GPU device profiles (models/devices/*.ini)",
	  list_devices },
	{ "models", "the model zoo", list_models },
	{ "policies", "co-location and scheduling policies", list_policies },
	{ NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: colosim list TOPIC [ARGS]   (colosim list TOPIC "
		   "--help)\n\ntopics:\n");
	for (i = 0; topics[i].zName != NULL; i++)
		fprintf(f, "  %-10s %s\n", topics[i].zName, topics[i].zSummary);
}

static int cmd_list(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return cli_missing("list", "TOPIC", "colosim list "
				   "devices|models|policies");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; topics[i].zName != NULL; i++)
		if (strcmp(argv[1], topics[i].zName) == 0)
			return topics[i].xRun(argc - 1, argv + 1);
	return cli_usage_error("list: unknown topic '%s' (known: devices, "
			       "models, policies)", argv[1]);
}

const struct cli_cmd cli_cmd_list = {
	"list", "print a catalog: devices, models, policies", cmd_list
};
