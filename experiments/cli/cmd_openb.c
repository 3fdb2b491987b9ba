/*
** cmd_openb.c: `colosim openb`, the FGD paper's experiment (USENIX ATC'23,
** Fig. 9) on the Alibaba openb trace: BestFit and/or FGD placement of the
** 10,866 arrivals (demand inflated to 130% of 6,212 GPUs), the allocation
** curves as CSV and a gnuplot figure, and a summary table with timings.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "experiments/openb.h"
#include "experiments/cli/cli.h"
#include "plots/plot.h"

/* The inputs' folder: ../shared/traces when it is there (the project's
** shared copy), else data/traces (where `colosim traces fetch` puts
** them). */
#define TRACE_DIR "T/alibaba-gpu-v2023/"
#define FETCH_HINT "colosim traces fetch alibaba-gpu-v2023 " \
	"alibaba-gpu-v2023-fgd-seed42 --mirror DIR gets them; docs/TRACES.md"

static const char *trace_root(void)
{
	struct stat st;

	return stat("../shared/traces/alibaba-gpu-v2023", &st) == 0 ?
	       "../shared/traces" : "data/traces";
}

enum { O_POLICY, O_NODES, O_ARRIVALS, O_TIEBREAK, O_OUT, O_THRESHOLD,
       O_NO_PLOT, O_DB, O_EXPERIMENT };

static const struct cli_opt opts[] = {
	[O_POLICY] = { "policy", 0, "P", "bestfit, fgd or both (default both)" },
	[O_NODES] = { "nodes", 0, "F", "node list (default " TRACE_DIR
		      "\nopenb_node_list_gpu_node.csv)" },
	[O_ARRIVALS] = { "arrivals", 0, "F", "arrivals (default " TRACE_DIR
			 "\nfgd-seed42/arrivals.csv)" },
	[O_TIEBREAK] = { "tiebreak", 0, "F", "node ranks (default " TRACE_DIR
			 "\nfgd-seed42/node_tiebreak.csv)" },
	[O_OUT] = { "out", 0, "DIR", "output folder, created if missing "
		    "(default openb-out)" },
	[O_THRESHOLD] = { "threshold", 0, "P", "FGD typical pods cover P% of "
			  "the original pods (default 95)\n(T: ../shared/traces "
			  "if present, else data/traces, where\n" FETCH_HINT
			  ")" },
	[O_NO_PLOT] = { "no-plot", 0, NULL, "skip the gnuplot figure" },
	[O_DB] = { "db", 0, "FILE", "also store each policy's run in the "
		   "results store FILE\n(metrics alloc_pct_kNNN, placed, failed, "
		   "wall_s; see\ncolosim report FILE)" },
	[O_EXPERIMENT] = { "experiment", 0, "N", "the experiment's name in FILE "
			   "(default openb-fgd)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"openb", "colosim openb [--policy bestfit|fgd|both] [--nodes FILE]\n"
	"                     [--arrivals FILE] [--tiebreak FILE] [--out DIR]\n"
	"                     [--threshold PCT] [--no-plot]\n"
	"                     [--db FILE [--experiment NAME]]",
	"Replays the FGD paper's openb experiment: pods arrive in order and "
	"never\nleave; each is placed by BestFit or FGD or fails.  Writes "
	"DIR/openb.csv\n(policy,k,alloc_pct: GPU allocation % at k% arrived GPU "
	"demand) and\nDIR/openb-alloc.png (gnuplot), and prints the curve at "
	"90..130%.", opts, NULL
};

struct openb_args {
	const char *nodes, *arrivals, *tiebreak, *out, *policy, *db;
	const char *experiment;
	double threshold;
	int plot;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct openb_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		return cli_usage_error("openb: unexpected '%s' (see --help)",
				       v);
	case O_POLICY: a->policy = v; return 0;
	case O_NODES: a->nodes = v; return 0;
	case O_ARRIVALS: a->arrivals = v; return 0;
	case O_TIEBREAK: a->tiebreak = v; return 0;
	case O_OUT: a->out = v; return 0;
	case O_DB: a->db = v; return 0;
	case O_NO_PLOT: a->plot = 0; return 0;
	case O_EXPERIMENT:
		if (v[0] == '\0')
			return cli_usage_error("openb: --experiment: empty "
					       "name");
		a->experiment = v;
		return 0;
	case O_THRESHOLD:
		if (cli_parse_double(v, 0, 100, &a->threshold) != 0 ||
		    !(a->threshold > 0))
			return cli_usage_error("openb: --threshold: '%s' is not "
					       "in (0, 100]", v);
		return 0;
	}
	return 2;
}

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The runs of one invocation. */
struct openb_out {
	const char *names[2];
	enum openb_policy pols[2];
	const double *cv[2];
	double curves[2][OPENB_KMAX + 1];
	double wall[2], cpu[2];
	struct openb_run runs[2];
	int n;
	char csv[4096];
};

/* The policies of --policy into o; 2 (with the message) if unknown. */
static int pick_policies(const struct openb_args *a, struct openb_out *o)
{
	if (strcmp(a->policy, "bestfit") == 0 || strcmp(a->policy, "both") == 0) {
		o->names[o->n] = "BestFit";
		o->pols[o->n++] = OPENB_BESTFIT;
	}
	if (strcmp(a->policy, "fgd") == 0 || strcmp(a->policy, "both") == 0) {
		o->names[o->n] = "FGD";
		o->pols[o->n++] = OPENB_FGD;
	}
	if (o->n == 0)
		return cli_usage_error("openb: --policy: unknown policy '%s'"
				       " (bestfit, fgd or both)", a->policy);
	return 0;
}

/* Replays each policy, then writes the CSV, the figure and the store. */
static int replay_all(const struct openb_args *a, struct openb_data *d,
		      struct openb_out *o, struct sim_err *err)
{
	double t0, c0;
	int i, rc = 0;

	for (i = 0; i < o->n && rc == 0; i++) {
		t0 = now_s(CLOCK_MONOTONIC);
		c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		rc = openb_replay(d, o->pols[i], a->threshold, a->out, NULL,
				  &o->runs[i], err);
		o->wall[i] = now_s(CLOCK_MONOTONIC) - t0;
		o->cpu[i] = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (rc == 0)
			rc = openb_curve(&o->runs[i], OPENB_KMAX, 0,
					 o->curves[i]);
		o->cv[i] = o->curves[i];
	}
	if (rc == 0)
		rc = openb_write_csv(o->csv, o->names, o->cv, o->n, OPENB_KMAX,
				     err);
	if (rc == 0 && a->plot)
		rc = plot_openb(a->out, NULL, NULL, o->names, o->cv, o->n,
				OPENB_KMAX, err);
	if (rc == 0 && a->db != NULL) {
		struct openb_store_info info = { a->experiment, a->nodes,
						 a->arrivals, a->tiebreak,
						 a->threshold };
		rc = openb_store_runs(a->db, &info, o->names, o->runs, o->cv,
				      o->wall, o->n, err);
	}
	return rc;
}

static void print_summary(const struct openb_args *a,
			  const struct openb_out *o)
{
	static const int marks[] = { 90, 100, 110, 120, 130 };
	struct rusage ru;
	int i, j;

	printf("\nGPU allocation (%% of %lld GPUs) at arrived GPU demand (%%"
	       " of capacity):\n\n%-8s %7s %7s",
	       (long long)o->runs[0].gpus_total, "policy", "placed", "failed");
	for (j = 0; j < 5; j++)
		printf("  @%-5d", marks[j]);
	printf("  %7s %7s\n", "wall_s", "cpu_s");
	for (i = 0; i < o->n; i++) {
		printf("%-8s %7zu %7zu", o->names[i], o->runs[i].placed,
		       o->runs[i].failed);
		for (j = 0; j < 5; j++)
			printf("  %6.2f", o->curves[i][marks[j]]);
		printf("  %7.3f %7.3f\n", o->wall[i], o->cpu[i]);
	}
	for (i = 0; i < o->n; i++)
		if (o->pols[i] == OPENB_FGD)
			printf("\nFGD typical pods: %zu classes covering %.2f%%"
			       " of the %s original pods\n", o->runs[i].ntypical,
			       100.0 * o->runs[i].typical_share, "trace's");
	getrusage(RUSAGE_SELF, &ru);
	printf("peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	printf("wrote %s\n", o->csv);
	if (a->db != NULL)
		printf("stored experiment '%s' in %s (colosim report %s)\n",
		       a->experiment, a->db, a->db);
	if (a->plot)
		printf("wrote %s/openb-alloc.png (data beside it; plots/openb.gp)\n",
		       a->out);
}

static int cmd_openb(int argc, char **argv)
{
	char dnodes[512], darrivals[512], dtiebreak[512];
	struct openb_args a = {
		dnodes, darrivals, dtiebreak,
		"openb-out", "both", NULL, "openb-fgd", 95.0, 1
	};
	static struct openb_out o;
	struct openb_data d;
	struct sim_err err;
	double t0;
	int i, rc;

	memset(&o, 0, sizeof o);
	snprintf(dnodes, sizeof dnodes, "%s/alibaba-gpu-v2023/"
		 "openb_node_list_gpu_node.csv", trace_root());
	snprintf(darrivals, sizeof darrivals, "%s/alibaba-gpu-v2023/"
		 "fgd-seed42/arrivals.csv", trace_root());
	snprintf(dtiebreak, sizeof dtiebreak, "%s/alibaba-gpu-v2023/"
		 "fgd-seed42/node_tiebreak.csv", trace_root());
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if ((rc = pick_policies(&a, &o)) != 0)
		return rc;
	if (mkdir(a.out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "colosim: %s: %s\n", a.out, strerror(errno));
		return 1;
	}
	if ((size_t)snprintf(o.csv, sizeof(o.csv), "%s/openb.csv", a.out) >=
	    sizeof(o.csv))
		return cli_usage_error("openb: --out: path too long");
	sim_err_clear(&err);
	openb_data_init(&d);
	t0 = now_s(CLOCK_MONOTONIC);
	if (openb_load_nodes(&d, a.nodes, &err) != 0 ||
	    openb_load_arrivals(&d, a.arrivals, &err) != 0 ||
	    openb_load_tiebreak(&d, a.tiebreak, &err) != 0) {
		openb_data_fini(&d);
		if (err.code == SIM_ENOENT) {
			fprintf(stderr, "colosim: %s (" FETCH_HINT ")\n",
				err.msg);
			return 2;
		}
		return cli_report(&err);
	}
	printf("openb: %zu nodes, %lld GPUs, %zu arrivals (loaded in %.3f s)\n",
	       d.nnodes, (long long)d.gpus_total, d.narr,
	       now_s(CLOCK_MONOTONIC) - t0);
	rc = replay_all(&a, &d, &o, &err);
	if (rc == 0)
		print_summary(&a, &o);
	for (i = 0; i < o.n; i++)
		openb_run_fini(&o.runs[i]);
	openb_data_fini(&d);
	if (rc != 0) {
		if (err.code == 0)
			sim_err_set(&err, rc, "openb: %s", sim_strerror(rc));
		return cli_report(&err);
	}
	return 0;
}

const struct cli_cmd cli_cmd_openb = {
	"openb", "FGD paper's openb experiment: BestFit/FGD allocation curves",
	cmd_openb
};
