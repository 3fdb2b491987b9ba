/*
** cmd_replay.c: `colosim replay TRACE --policy P --cluster SPEC ...`: one
** simulation, a summary table or one JSON object on stdout.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiments/simulate.h"
#include "experiments/cli/cli.h"
#include "sim/world/world.h"

#define MAX_PARAMS 64

static void help(FILE *f)
{
	fprintf(f,
"usage: colosim replay TRACE --policy P --cluster SPEC [options]\n"
"\n"
"Runs one simulation of TRACE (trace format v1, docs/TRACE_FORMAT.md) on\n"
"the cluster SPEC under policy P and prints its metrics.\n"
"\n"
"  --policy P        a policy (colosim list policies)\n"
"  --cluster SPEC    NODESxGPUS:DEVICE[,...], e.g. 2x4:a100-80gb\n"
"                    (devices: colosim list devices)\n"
"  --seed S          master seed (default 1)\n"
"  --param K=V       a policy parameter; repeatable\n"
"  --horizon SEC     stop the simulation at this simulated time\n"
"  --max-events N    stop after N events\n"
"  --max-queued N    requests queued at once over all services; more\n"
"                    arrivals are rejected and counted (default 4194304)\n"
"  --preempt-cost C  free (default): a preempted job leaves its GPUs at\n"
"                    once; swap: it is swapped out over PCIe and pays the\n"
"                    copy back in when placed again (docs/MODEL.md,\n"
"                    \"Swapping\")\n"
"  --devices DIR     device profiles (default: $COLOSIM_DEVICES,\n"
"                    ./models/devices, the binary's checkout or prefix)\n"
"  --json            one JSON object instead of a table\n");
}

/* Prints s as a JSON string. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_num(double v)
{
	if (v != v || v > 1.7e308 || v < -1.7e308)
		printf("null");
	else
		printf("%.10g", v);
}

static const char *const value_opts[] = {
	"--policy", "--cluster", "--devices", "--seed", "--max-events",
	"--horizon", "--param", "--max-queued", "--preempt-cost", NULL
};

static int run(int argc, char **argv)
{
	struct exp_sim_args a = { 0 };
	struct pol_param pv[MAX_PARAMS];
	struct pol_params params = { 0, pv };
	struct run_result res;
	struct sim_err err = { 0, "" };
	struct timespec t0, t1;
	int json = 0, i, rc;
	size_t k;
	unsigned long long u;
	double d;

	a.seed = 1;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			help(stdout);
			return 0;
		} else if (strcmp(o, "--json") == 0) {
			json = 1;
			continue;
		} else if (o[0] != '-') {
			if (a.trace != NULL)
				return cli_usage_error("replay: one trace only "
						       "('%s' and '%s')",
						       a.trace, o);
			a.trace = o;
			continue;
		}
		if ((rc = cli_check_value("replay", o, value_opts,
					  v != NULL)) != 0)
			return rc;
		i++;
		if (strcmp(o, "--policy") == 0) {
			a.policy = v;
		} else if (strcmp(o, "--cluster") == 0) {
			a.cluster = v;
		} else if (strcmp(o, "--devices") == 0) {
			a.devices_dir = v;
		} else if (strcmp(o, "--seed") == 0) {
			if (cli_parse_u64(v, &u))
				return cli_usage_error("replay: --seed '%s': "
						       "expected an unsigned "
						       "integer", v);
			a.seed = u;
		} else if (strcmp(o, "--max-events") == 0) {
			if (cli_parse_u64(v, &u) || u == 0)
				return cli_usage_error("replay: --max-events "
						       "'%s': expected a "
						       "positive integer", v);
			a.max_events = u;
		} else if (strcmp(o, "--max-queued") == 0) {
			if (cli_parse_u64(v, &u) || u == 0)
				return cli_usage_error("replay: --max-queued "
						       "'%s': expected a "
						       "positive integer", v);
			a.max_queued_requests = u;
		} else if (strcmp(o, "--preempt-cost") == 0) {
			if (strcmp(v, "free") == 0)
				a.preempt_cost = WORLD_PREEMPT_FREE;
			else if (strcmp(v, "swap") == 0)
				a.preempt_cost = WORLD_PREEMPT_SWAP;
			else
				return cli_usage_error("replay: --preempt-cost "
						       "'%s': expected free or "
						       "swap", v);
		} else if (strcmp(o, "--horizon") == 0) {
			if (cli_parse_double(v, &d) || d <= 0)
				return cli_usage_error("replay: --horizon '%s': "
						       "expected seconds > 0",
						       v);
			a.horizon_ns = sim_time_from_s(d);
		} else if (strcmp(o, "--param") == 0) {
			char *eq = strchr(v, '=');
			if (eq == NULL || eq == v)
				return cli_usage_error("replay: --param '%s': "
						       "expected KEY=VALUE", v);
			if (params.n == MAX_PARAMS)
				return cli_usage_error("replay: more than %d "
						       "--param", MAX_PARAMS);
			*eq = '\0';
			pv[params.n].key = v;
			pv[params.n].value = eq + 1;
			pv[params.n].origin = "--param";
			params.n++;
		} else {
			return cli_usage_error("replay: unknown option '%s' "
					       "(try --help)", o);
		}
	}
	if (a.trace == NULL || a.policy == NULL || a.cluster == NULL)
		return cli_missing("replay", a.trace == NULL ? "TRACE" :
				   a.policy == NULL ? "--policy P" :
				   "--cluster SPEC", "colosim replay TRACE "
				   "--policy P --cluster SPEC [options]");
	a.params = &params;
	run_result_init(&res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = exp_simulate_args(&a, &res, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc != 0) {
		run_result_fini(&res);
		return cli_report(&err);
	}
	res.wall_s = (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	run_result_set(&res, "wall_s", res.wall_s);
	if (json) {
		printf("{\"policy\": ");
		json_str(a.policy);
		printf(", \"trace\": ");
		json_str(a.trace);
		printf(", \"cluster\": ");
		json_str(a.cluster);
		printf(", \"seed\": %llu", (unsigned long long)a.seed);
		for (k = 0; k < res.nmetrics; k++) {
			printf(", ");
			json_str(res.metrics[k].name);
			printf(": ");
			json_num(res.metrics[k].value);
		}
		printf("}\n");
	} else {
		printf("trace    %s\npolicy   %s\ncluster  %s\nseed     %llu\n\n",
		       a.trace, a.policy, a.cluster,
		       (unsigned long long)a.seed);
		for (k = 0; k < res.nmetrics; k++)
			printf("%-22s %.10g\n", res.metrics[k].name,
			       res.metrics[k].value);
	}
	run_result_fini(&res);
	return 0;
}

const struct cli_cmd cli_cmd_replay = {
	"replay", "simulate one trace under one policy on one cluster", run
};
