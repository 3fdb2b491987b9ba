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

static void help(FILE *f)
{
	fprintf(f,
"usage: colosim openb [--policy bestfit|fgd|both] [--nodes FILE]\n"
"                     [--arrivals FILE] [--tiebreak FILE] [--out DIR]\n"
"                     [--threshold PCT] [--no-plot]\n"
"                     [--db FILE [--experiment NAME]]\n\n"
"Replays the FGD paper's openb experiment: pods arrive in order and never\n"
"leave; each is placed by BestFit or FGD or fails.  Writes DIR/openb.csv\n"
"(policy,k,alloc_pct: GPU allocation %% at k%% arrived GPU demand) and\n"
"DIR/openb-alloc.png (gnuplot), and prints the curve at 90..130%%.\n\n"
"  --policy P     bestfit, fgd or both (default both)\n"
"  --nodes F      node list (default " TRACE_DIR "openb_node_list_gpu_node.csv)\n"
"  --arrivals F   arrivals (default " TRACE_DIR "fgd-seed42/arrivals.csv)\n"
"  --tiebreak F   node ranks (default " TRACE_DIR "fgd-seed42/node_tiebreak.csv)\n"
"  --out DIR      output folder, created if missing (default openb-out)\n"
"  --threshold P  FGD typical pods cover P%% of the original pods (default 95)\n"
"                 (T: ../shared/traces if present, else data/traces, where\n"
"                 " FETCH_HINT ")\n"
"  --no-plot      skip the gnuplot figure\n"
"  --db FILE      also store each policy's run in the results store FILE\n"
"                 (metrics alloc_pct_kNNN, placed, failed, wall_s; see\n"
"                 colosim report FILE)\n"
"  --experiment N the experiment's name in FILE (default openb-fgd)\n");
}

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_openb(int argc, char **argv)
{
	char dnodes[512], darrivals[512], dtiebreak[512];
	const char *nodes = dnodes, *arrivals = darrivals;
	const char *tiebreak = dtiebreak;
	const char *out = "openb-out", *policy = "both";
	const char *db = NULL, *experiment = "openb-fgd";
	static const int marks[] = { 90, 100, 110, 120, 130 };
	const char *names[2];
	const double *cv[2];
	double curves[2][OPENB_KMAX + 1], threshold = 95.0, t0, c0;
	double wall[2], cpu[2];
	struct openb_run runs[2];
	enum openb_policy pols[2];
	struct openb_data d;
	struct sim_err err;
	struct rusage ru;
	char csv[4096];
	int i, j, n = 0, plot = 1, rc = 0;

	snprintf(dnodes, sizeof dnodes, "%s/alibaba-gpu-v2023/"
		 "openb_node_list_gpu_node.csv", trace_root());
	snprintf(darrivals, sizeof darrivals, "%s/alibaba-gpu-v2023/"
		 "fgd-seed42/arrivals.csv", trace_root());
	snprintf(dtiebreak, sizeof dtiebreak, "%s/alibaba-gpu-v2023/"
		 "fgd-seed42/node_tiebreak.csv", trace_root());
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			help(stdout);
			return 0;
		} else if (strcmp(a, "--no-plot") == 0) {
			plot = 0;
		} else if (i + 1 >= argc) {
			return cli_usage_error("openb: %s: missing value or"
					       " unknown option (see --help)", a);
		} else if (strcmp(a, "--policy") == 0) {
			policy = argv[++i];
		} else if (strcmp(a, "--nodes") == 0) {
			nodes = argv[++i];
		} else if (strcmp(a, "--arrivals") == 0) {
			arrivals = argv[++i];
		} else if (strcmp(a, "--tiebreak") == 0) {
			tiebreak = argv[++i];
		} else if (strcmp(a, "--db") == 0) {
			db = argv[++i];
		} else if (strcmp(a, "--experiment") == 0) {
			experiment = argv[++i];
			if (experiment[0] == '\0')
				return cli_usage_error("openb: --experiment: "
						       "empty name");
		} else if (strcmp(a, "--out") == 0) {
			out = argv[++i];
		} else if (strcmp(a, "--threshold") == 0) {
			if (cli_parse_double(argv[++i], &threshold) != 0 ||
			    !(threshold > 0 && threshold <= 100))
				return cli_usage_error("openb: --threshold: '%s'"
						       " is not in (0, 100]",
						       argv[i]);
		} else {
			return cli_usage_error("openb: unknown option '%s'"
					       " (see --help)", a);
		}
	}
	if (strcmp(policy, "bestfit") == 0 || strcmp(policy, "both") == 0) {
		names[n] = "BestFit";
		pols[n++] = OPENB_BESTFIT;
	}
	if (strcmp(policy, "fgd") == 0 || strcmp(policy, "both") == 0) {
		names[n] = "FGD";
		pols[n++] = OPENB_FGD;
	}
	if (n == 0)
		return cli_usage_error("openb: --policy: unknown policy '%s'"
				       " (bestfit, fgd or both)", policy);
	if (mkdir(out, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "colosim: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if ((size_t)snprintf(csv, sizeof(csv), "%s/openb.csv", out) >=
	    sizeof(csv))
		return cli_usage_error("openb: --out: path too long");

	sim_err_clear(&err);
	openb_data_init(&d);
	t0 = now_s(CLOCK_MONOTONIC);
	if (openb_load_nodes(&d, nodes, &err) != 0 ||
	    openb_load_arrivals(&d, arrivals, &err) != 0 ||
	    openb_load_tiebreak(&d, tiebreak, &err) != 0) {
		openb_data_fini(&d);
		if (err.code == SIM_ENOENT) {
			fprintf(stderr, "colosim: %s (" FETCH_HINT ")\n",
				err.msg);
			return 2;
		}
		return cli_report(&err);
	}
	printf("openb: %zu nodes, %lld GPUs, %zu arrivals (loaded in %.3f s)\n",
	       d.cluster.nnodes, (long long)d.cluster.gpus_total, d.narr,
	       now_s(CLOCK_MONOTONIC) - t0);

	memset(runs, 0, sizeof(runs));
	for (i = 0; i < n && rc == 0; i++) {
		t0 = now_s(CLOCK_MONOTONIC);
		c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		rc = openb_replay(&d, pols[i], threshold, &runs[i], &err);
		wall[i] = now_s(CLOCK_MONOTONIC) - t0;
		cpu[i] = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (rc == 0)
			rc = openb_curve(&runs[i], OPENB_KMAX, 0, curves[i]);
		cv[i] = curves[i];
	}
	if (rc == 0)
		rc = openb_write_csv(csv, names, cv, n, OPENB_KMAX, &err);
	if (rc == 0 && plot)
		rc = openb_write_plot(out, names, cv, n, OPENB_KMAX, &err);
	if (rc == 0 && db != NULL) {
		struct openb_store_info info = { experiment, nodes, arrivals,
						 tiebreak, threshold };
		rc = openb_store_runs(db, &info, names, runs, cv, wall, n,
				      &err);
	}
	if (rc != 0) {
		for (i = 0; i < n; i++)
			openb_run_fini(&runs[i]);
		openb_data_fini(&d);
		if (err.code == 0)
			sim_err_set(&err, rc, "openb: %s", sim_strerror(rc));
		return cli_report(&err);
	}

	printf("\nGPU allocation (%% of %lld GPUs) at arrived GPU demand (%%"
	       " of capacity):\n\n%-8s %7s %7s", (long long)runs[0].gpus_total,
	       "policy", "placed", "failed");
	for (j = 0; j < 5; j++)
		printf("  @%-5d", marks[j]);
	printf("  %7s %7s\n", "wall_s", "cpu_s");
	for (i = 0; i < n; i++) {
		printf("%-8s %7zu %7zu", names[i], runs[i].placed,
		       runs[i].failed);
		for (j = 0; j < 5; j++)
			printf("  %6.2f", curves[i][marks[j]]);
		printf("  %7.3f %7.3f\n", wall[i], cpu[i]);
	}
	for (i = 0; i < n; i++)
		if (pols[i] == OPENB_FGD)
			printf("\nFGD typical pods: %zu classes covering %.2f%%"
			       " of the %s original pods\n", runs[i].ntypical,
			       100.0 * runs[i].typical_share, "trace's");
	getrusage(RUSAGE_SELF, &ru);
	printf("peak resident memory: %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
	printf("wrote %s\n", csv);
	if (db != NULL)
		printf("stored experiment '%s' in %s (colosim report %s)\n",
		       experiment, db, db);
	if (plot)
		printf("wrote %s/openb-alloc.png (data and script beside it)\n",
		       out);
	for (i = 0; i < n; i++)
		openb_run_fini(&runs[i]);
	openb_data_fini(&d);
	return 0;
}

const struct cli_cmd cli_cmd_openb = {
	"openb", "FGD paper's openb experiment: BestFit/FGD allocation curves",
	cmd_openb
};
