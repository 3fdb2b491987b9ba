/*
** cmd_plot.c: `colosim plot DB --experiment NAME [--out DIR]
** [--format pdf,png,svg] [--metric LIST] [--gpu N] [--timeline]
** [--replication R]`: paper figures through gnuplot (plots/plot.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/store.h"
#include "plots/plot.h"
#include "experiments/cli/cli.h"

static void help(FILE *f)
{
	fputs("usage: colosim plot DB [--experiment NAME] [--out DIR]\n"
	      "                    [--format pdf,png,svg] [--conf LEVEL]\n"
	      "                    [--scripts DIR] [--gnuplot PROGRAM]\n"
	      "                    [--metric NAME[,NAME...]] [--gpu N] "
	      "[--timeline]\n"
	      "                    [--replication R]\n\n"
	      "Writes, per setting of the experiment: jct_cdf (job completion "
	      "time CDF),\nhbm_util (HBM allocated over time), makespan, "
	      "mem_util and slo (bars with\nconfidence intervals) and their "
	      "paired differences against the baseline\n(NAME_diff), "
	      "latency_cdf; per numeric swept key, sweep-KEY-NAME (the\n"
	      "metric against it).  Each as NAME.dat (the plotted numbers) "
	      "and one\nfigure per format; figures without data are skipped "
	      "with a note.\nWith --metric, --gpu or --timeline only what "
	      "they ask for is drawn.\n\n"
	      "  --experiment NAME  which experiment (needed when DB holds "
	      "several)\n"
	      "  --out DIR          output folder (default figures/NAME, or "
	      "figures)\n"
	      "  --format LIST      pdf, png, svg, comma-separated (default "
	      "pdf,png)\n"
	      "  --conf LEVEL       confidence level of the bars (default "
	      "0.95)\n"
	      "  --scripts DIR      the gnuplot scripts (default: $COLOSIM_PLOTS,"
	      "\n                     ./plots, PREFIX/share/colosim/plots)\n"
	      "  --gnuplot PROGRAM  the gnuplot to run (default: gnuplot in "
	      "PATH)\n"
	      "  --metric LIST      these metrics' bars, paired differences "
	      "and sweeps\n"
	      "  --gpu N            GPU N's tenants, HBM and SM over time "
	      "(gpuN-vK)\n"
	      "  --timeline         every GPU's placements over time "
	      "(timeline-vK)\n"
	      "  --replication R    the run of --gpu and --timeline, per "
	      "variant (default 0)\n", f);
}

/* Parses "pdf,png" into PLOT_* bits; 0 on a bad list. */
static unsigned parse_formats(const char *s)
{
	unsigned bits = 0;

	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 3 && strncmp(s, "pdf", 3) == 0)
			bits |= PLOT_PDF;
		else if (n == 3 && strncmp(s, "png", 3) == 0)
			bits |= PLOT_PNG;
		else if (n == 3 && strncmp(s, "svg", 3) == 0)
			bits |= PLOT_SVG;
		else
			return 0;
		s += n;
		if (*s == ',')
			s++;
	}
	return bits;
}

static const char *const value_opts[] = {
	"--experiment", "-e", "--out", "-o", "--format", "-f", "--conf",
	"--scripts", "--gnuplot", "--metric", "-m", "--gpu", "--replication",
	NULL
};

static int cmd_plot(int argc, char **argv)
{
	const char *db = NULL, *exp = NULL;
	struct plot_opts o;
	struct plot_output out;
	struct store *st = NULL;
	struct sim_err err;
	char outdir[1024];
	const char *p;
	size_t k;
	int i, rc;

	memset(&o, 0, sizeof o);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			help(stdout);
			return 0;
		}
		if (strcmp(a, "--timeline") == 0) {
			o.timeline = 1;
			continue;
		}
		if (a[0] == '-' && (rc = cli_check_value("plot", a,
				value_opts, i + 1 < argc)) != 0)
			return rc;
		if (strcmp(a, "--experiment") == 0 || strcmp(a, "-e") == 0) {
			exp = argv[++i];
		} else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) {
			o.out_dir = argv[++i];
		} else if (strcmp(a, "--format") == 0 ||
			   strcmp(a, "-f") == 0) {
			o.formats = parse_formats(argv[++i]);
			if (o.formats == 0)
				return cli_usage_error("plot: --format: expected "
					"a comma list of pdf, png, svg; got '%s'",
					argv[i]);
		} else if (strcmp(a, "--conf") == 0) {
			if (cli_parse_double(argv[++i], &o.conf) != 0 ||
			    !(o.conf > 0 && o.conf < 1))
				return cli_usage_error("plot: --conf: expected a "
					"level in (0, 1), got '%s'", argv[i]);
		} else if (strcmp(a, "--scripts") == 0) {
			o.scripts_dir = argv[++i];
		} else if (strcmp(a, "--gnuplot") == 0) {
			o.gnuplot = argv[++i];
		} else if (strcmp(a, "--metric") == 0 || strcmp(a, "-m") == 0) {
			o.metrics = argv[++i];
		} else if (strcmp(a, "--gpu") == 0 ||
			   strcmp(a, "--replication") == 0) {
			unsigned long long u;
			if (cli_parse_u64(argv[i + 1], &u) != 0 ||
			    u > 1000000)
				return cli_usage_error("plot: %s: expected an "
					"index in 0..1000000, got '%s'", a,
					argv[i + 1]);
			if (a[2] == 'g') {
				o.want_gpu = 1;
				o.gpu = (int)u;
			} else {
				o.replication = (int)u;
			}
			i++;
		} else if (a[0] == '-') {
			return cli_usage_error("plot: unknown option '%s' (try "
					       "--help)", a);
		} else if (db == NULL) {
			db = a;
		} else {
			return cli_usage_error("plot: one DB only (got '%s' and "
					       "'%s')", db, a);
		}
	}
	if (db == NULL)
		return cli_missing("plot", "DB", "colosim plot DB "
				   "[--experiment NAME] [--out DIR] "
				   "[--format pdf,png,svg]");
	if (o.out_dir == NULL) {
		if (exp != NULL)
			snprintf(outdir, sizeof outdir, "figures/%s", exp);
		else
			snprintf(outdir, sizeof outdir, "figures");
		o.out_dir = outdir;
	}
	sim_err_clear(&err);
	if ((rc = store_open(&st, db, STORE_READ, &err)) != 0)
		return cli_report(&err);
	rc = plot_experiment(st, exp, &o, &out, &err);
	store_close(st);
	if (rc != 0)
		return cli_report(&err);
	for (k = 0; k < out.npaths; k++)
		if (strstr(out.paths[k], ".dat") == NULL)
			printf("%s\n", out.paths[k]);
	for (p = out.notes; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
		fprintf(stderr, "colosim: plot: %.*s\n", (int)strcspn(p, "\n"),
			p);
	plot_output_fini(&out);
	return 0;
}

const struct cli_cmd cli_cmd_plot = {
	"plot", "paper figures (gnuplot) from a results database", cmd_plot
};
