/*
** cmd_replay.c: `colosim replay TRACE --policy P --cluster SPEC ...`: one
** simulation, a summary table or one JSON object (jansson) on stdout.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "experiments/json.h"
#include "experiments/simulate.h"
#include "policies/catalog.h"
#include "experiments/cli/cli.h"
#include "sim/num.h"
#include "sim/world/world.h"

#define MAX_PARAMS 64

enum { O_POLICY, O_CLUSTER, O_SEED, O_PARAM, O_LLM, O_HORIZON,
       O_MAX_EVENTS, O_MAX_QUEUED, O_PREEMPT, O_SPREAD, O_DEVICES, O_ARRIVALS,
       O_PLUGIN, O_TIMELINE, O_JSON };

static const struct cli_opt opts[] = {
	[O_POLICY] = { "policy", 0, "P", "a policy (colosim list policies)" },
	[O_CLUSTER] = { "cluster", 0, "SPEC", "NODESxGPUS:DEVICE[,...], e.g. "
			"2x4:a100-80gb\n(devices: colosim list devices)" },
	[O_SEED] = { "seed", 0, "S", "master seed (default 1)" },
	[O_PARAM] = { "param", 0, "K=V", "a policy parameter; repeatable" },
	[O_LLM] = { "llm", 0, "K=V", "an LLM service setting (KEY=V for every "
		    "service,\nID.KEY=V for service ID; docs/RESULTS.md, "
		    "\"[llm]\");\nrepeatable" },
	[O_HORIZON] = { "horizon", 0, "SEC", "stop the simulation at this "
			"simulated time" },
	[O_MAX_EVENTS] = { "max-events", 0, "N", "stop after N events" },
	[O_MAX_QUEUED] = { "max-queued", 0, "N", "requests queued at once over "
			   "all services; more\narrivals are rejected and "
			   "counted (default 4194304)" },
	[O_PREEMPT] = { "preempt-cost", 0, "C", "free (default): a preempted "
			"job leaves its GPUs at\nonce; swap: it is swapped out "
			"over PCIe and pays the\ncopy back in when placed "
			"again (docs/MODEL.md,\n\"Swapping\")" },
	[O_SPREAD] = { "spread-cost", 0, "C", "allreduce (default): a job "
		       "spread over nodes pays\nits ring all-reduce over the "
		       "NIC; none: every\nplacement costs what the "
		       "consolidated one does\n(docs/MODEL.md, \"Data-parallel "
		       "training\")" },
	[O_DEVICES] = { "devices", 0, "DIR", "device profiles (default: "
			"$COLOSIM_DEVICES,\n./models/devices, the binary's "
			"checkout or prefix)" },
	[O_ARRIVALS] = { "arrivals-dir", 0, "DIR", "a folder besides the "
			 "trace's from which 'file'\nservices may read their "
			 "arrival files\n(docs/LIMITS.md)" },
	[O_PLUGIN] = { "plugin", 0, "FILE.so", "load a policy plugin (runs its "
		       "code); repeatable\n(docs/POLICIES.md, \"Plugins\")" },
	[O_TIMELINE] = { "timeline", 0, "FILE", "write the run's timeline as a "
			 "Chrome trace (JSON):\na track per GPU, spans per work "
			 "unit, swap and model\nload, HBM and SM counters; open "
			 "it in ui.perfetto.dev" },
	[O_JSON] = { "json", 0, NULL, "one JSON object instead of a table" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"replay", "colosim replay TRACE --policy P --cluster SPEC [options]",
	"Runs one simulation of TRACE (trace format v1, docs/TRACE_FORMAT.md) "
	"on\nthe cluster SPEC under policy P and prints its metrics.",
	opts, NULL
};

struct replay_args {
	struct exp_sim_args a;
	struct pol_catalog pols;
	struct pol_param pv[MAX_PARAMS];
	struct pol_params params;
	struct pol_param lv[MAX_PARAMS];
	struct pol_params llm;
	int json;
};

static int bad_value(int opt, const char *v, const char *expected)
{
	return cli_usage_error("replay: --%s '%s': expected %s",
			       opts[opt].zLong, v, expected);
}

/* --param / --llm KEY=VALUE into ps (entries pv). */
static int on_param(struct pol_params *ps, struct pol_param *pv,
		    const char *opt, char *v)
{
	char *eq = strchr(v, '=');

	if (eq == NULL || eq == v)
		return cli_usage_error("replay: --%s '%s': expected "
				       "KEY=VALUE", opt, v);
	if (ps->n == MAX_PARAMS)
		return cli_usage_error("replay: more than %d --%s",
				       MAX_PARAMS, opt);
	*eq = '\0';
	pv[ps->n].key = v;
	pv[ps->n].value = eq + 1;
	pv[ps->n].origin = opt[0] == 'l' ? "--llm" : "--param";
	ps->n++;
	return 0;
}

static int on_opt(void *ctx, int opt, char *v)
{
	struct replay_args *r = ctx;
	struct exp_sim_args *a = &r->a;
	unsigned long long u;
	double d;

	switch (opt) {
	case CLI_OPERAND:
		if (a->trace != NULL)
			return cli_usage_error("replay: one trace only ('%s' "
					       "and '%s')", a->trace, v);
		a->trace = v;
		return 0;
	case O_POLICY: a->policy = v; return 0;
	case O_CLUSTER: a->cluster = v; return 0;
	case O_DEVICES: a->devices_dir = v; return 0;
	case O_ARRIVALS: a->arrivals_dir = v; return 0;
	case O_JSON: r->json = 1; return 0;
	case O_TIMELINE: a->timeline_path = v; return 0;
	case O_PLUGIN: {
		struct sim_err err = { 0, "" };
		if (pol_catalog_load(&r->pols, v, &err) != 0)
			return cli_report(&err);
		return 0;
	}
	case O_PARAM: return on_param(&r->params, r->pv, "param", v);
	case O_LLM: return on_param(&r->llm, r->lv, "llm", v);
	case O_SEED:
		if (cli_parse_u64(v, 0, UINT64_MAX, &u))
			return bad_value(opt, v, "an unsigned integer");
		a->seed = u;
		return 0;
	case O_MAX_EVENTS:
	case O_MAX_QUEUED:
		if (cli_parse_u64(v, 1, UINT64_MAX, &u))
			return bad_value(opt, v, "a positive integer");
		if (opt == O_MAX_EVENTS)
			a->max_events = u;
		else
			a->max_queued_requests = u;
		return 0;
	case O_PREEMPT:
		if (strcmp(v, "free") != 0 && strcmp(v, "swap") != 0)
			return bad_value(opt, v, "free or swap");
		a->preempt_cost = strcmp(v, "swap") == 0 ?
				  WORLD_PREEMPT_SWAP : WORLD_PREEMPT_FREE;
		return 0;
	case O_SPREAD:
		if (strcmp(v, "allreduce") != 0 && strcmp(v, "none") != 0)
			return bad_value(opt, v, "allreduce or none");
		a->spread_cost = strcmp(v, "none") == 0 ?
				 WORLD_SPREAD_NONE : WORLD_SPREAD_ALLREDUCE;
		return 0;
	case O_HORIZON:
		if (cli_parse_double(v, 1e-9, SIM_NUM_TIME_MAX_S, &d) ||
		    sim_num_s_to_ns(d, &a->horizon_ns))
			return bad_value(opt, v, "seconds > 0 (at most "
					 "4.6e9)");
		return 0;
	}
	return 2;
}

/* The run as one JSON object: the inputs, then every metric (null when
** NaN or infinite), numbers with 10 significant digits as the table. */
static int print_json(const struct exp_sim_args *a,
		      const struct run_result *res)
{
	json_t *o = json_object();
	char *text = NULL;
	size_t k;
	int bad = o == NULL;

	bad |= json_object_set_new(o, "policy", exp_json_text(a->policy));
	bad |= json_object_set_new(o, "trace", exp_json_text(a->trace));
	bad |= json_object_set_new(o, "cluster", exp_json_text(a->cluster));
	/* JSON readers keep integers exactly only up to 2^53 or 2^63; a seed
	** past int64 is written as a string of its digits. */
	if (a->seed <= (uint64_t)INT64_MAX)
		bad |= json_object_set_new(o, "seed",
					   json_integer((json_int_t)a->seed));
	else {
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)a->seed);
		bad |= json_object_set_new(o, "seed", json_string(buf));
	}
	for (k = 0; k < res->nmetrics; k++)
		bad |= json_object_set_new(o, res->metrics[k].name,
					   exp_json_num(res->metrics[k].value));
	if (!bad)
		text = json_dumps(o, JSON_PRESERVE_ORDER |
				  JSON_REAL_PRECISION(10));
	json_decref(o);
	if (text == NULL) {
		fprintf(stderr, "colosim: replay: out of memory\n");
		return 1;
	}
	printf("%s\n", text);
	free(text);
	return 0;
}

static void print_table(const struct exp_sim_args *a,
			const struct run_result *res)
{
	size_t k;

	printf("trace    %s\npolicy   %s\ncluster  %s\nseed     %llu\n\n",
	       a->trace, a->policy, a->cluster, (unsigned long long)a->seed);
	for (k = 0; k < res->nmetrics; k++)
		printf("%-22s %.10g\n", res->metrics[k].name,
		       res->metrics[k].value);
}

static int run(int argc, char **argv)
{
	struct replay_args r;
	struct exp_sim_args *a = &r.a;
	struct run_result res;
	struct sim_err err = { 0, "" };
	struct timespec t0, t1;
	int rc;

	memset(&r, 0, sizeof r);
	r.params.v = r.pv;
	pol_catalog_init(&r.pols);
	r.llm.v = r.lv;
	a->seed = 1;
	a->catalog = &r.pols;
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &r)) != 0) {
		pol_catalog_fini(&r.pols);
		return rc == CLI_HELP ? 0 : rc;
	}
	if (a->trace == NULL || a->policy == NULL || a->cluster == NULL) {
		pol_catalog_fini(&r.pols);
		return cli_missing("replay", a->trace == NULL ? "TRACE" :
				   a->policy == NULL ? "--policy P" :
				   "--cluster SPEC", spec.zUsage);
	}
	a->params = &r.params;
	a->llm = &r.llm;
	/* it prints the metrics alone: no job rows or placements held,
	** unless a timeline is written, which names every job by its id
	** (a metrics-only world keeps a released job's index alone) */
	a->metrics_only = a->timeline_path == NULL;
	run_result_init(&res);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = exp_simulate_args(a, &res, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc != 0) {
		run_result_fini(&res);
		pol_catalog_fini(&r.pols);
		return cli_report(&err);
	}
	res.wall_s = (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	run_result_set(&res, "wall_s", res.wall_s);
	rc = 0;
	if (r.json)
		rc = print_json(a, &res);
	else
		print_table(a, &res);
	run_result_fini(&res);
	pol_catalog_fini(&r.pols);
	return rc;
}

const struct cli_cmd cli_cmd_replay = {
	"replay", "simulate one trace under one policy on one cluster", run
};
