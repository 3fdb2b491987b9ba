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

enum {
	O_EXPERIMENT, O_OUT, O_FORMAT, O_CONF, O_SCRIPTS, O_GNUPLOT, O_METRIC,
	O_GPU, O_TIMELINE, O_REPLICATION
};

static const struct cli_opt opts[] = {
	[O_EXPERIMENT] = { "experiment", 'e', "NAME", "which experiment "
			   "(needed when DB holds several)" },
	[O_OUT] = { "out", 'o', "DIR", "output folder (default figures/NAME, "
		    "or figures)" },
	[O_FORMAT] = { "format", 'f', "LIST", "pdf, png, svg, comma-separated "
		       "(default pdf,png)" },
	[O_CONF] = { "conf", 0, "LEVEL", "confidence level of the bars "
		     "(default 0.95)" },
	[O_SCRIPTS] = { "scripts", 0, "DIR", "the gnuplot scripts (default: "
			"$COLOSIM_PLOTS,\n./plots, PREFIX/share/colosim/plots)" },
	[O_GNUPLOT] = { "gnuplot", 0, "PROGRAM", "the gnuplot to run (default: "
			"gnuplot in PATH)" },
	[O_METRIC] = { "metric", 'm', "LIST", "these metrics' bars, paired "
		       "differences and sweep\nfigures only" },
	[O_GPU] = { "gpu", 0, "N", "GPU N's tenants, HBM and SM over time "
		    "(gpuN-vK)" },
	[O_TIMELINE] = { "timeline", 0, NULL, "every GPU's placements over "
			 "time (timeline-vK)" },
	[O_REPLICATION] = { "replication", 0, "R", "the run of --gpu and "
			    "--timeline, per variant\n(default 0)" },
	{ NULL, 0, NULL, NULL }
};

static const struct cli_spec spec = {
	"plot", "colosim plot DB [--experiment NAME] [--out DIR]\n"
	"                    [--format pdf,png,svg] [--conf LEVEL]\n"
	"                    [--scripts DIR] [--gnuplot PROGRAM]\n"
	"                    [--metric NAME[,NAME...]] [--gpu N] [--timeline]\n"
	"                    [--replication R]",
	"Writes, per setting of the experiment: jct_cdf (job completion time "
	"CDF),\nhbm_util (HBM allocated over time), makespan, mem_util and slo "
	"(bars with\nconfidence intervals) and their paired differences "
	"against the baseline\n(NAME_diff), latency_cdf; per numeric swept "
	"key, sweep-KEY-NAME (the\nmetric against it).  Each as NAME.dat (the "
	"plotted numbers) and one\nfigure per format; figures without data "
	"are skipped with a note.\nWith --metric, --gpu or --timeline only "
	"what they ask for is drawn.", opts, NULL
};

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

struct plot_args {
	const char *db, *exp;
	struct plot_opts o;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct plot_args *a = ctx;

	switch (opt) {
	case CLI_OPERAND:
		if (a->db != NULL)
			return cli_usage_error("plot: one DB only (got '%s' and "
					       "'%s')", a->db, v);
		a->db = v;
		return 0;
	case O_EXPERIMENT: a->exp = v; return 0;
	case O_OUT: a->o.out_dir = v; return 0;
	case O_SCRIPTS: a->o.scripts_dir = v; return 0;
	case O_GNUPLOT: a->o.gnuplot = v; return 0;
	case O_METRIC: a->o.metrics = v; return 0;
	case O_TIMELINE: a->o.timeline = 1; return 0;
	case O_GPU:
	case O_REPLICATION: {
		unsigned long long u;
		if (cli_parse_u64(v, 0, 1000000, &u) != 0)
			return cli_usage_error("plot: --%s: expected an index "
					       "in 0..1000000, got '%s'",
					       opt == O_GPU ? "gpu" :
					       "replication", v);
		if (opt == O_GPU) {
			a->o.want_gpu = 1;
			a->o.gpu = (int)u;
		} else {
			a->o.replication = (int)u;
		}
		return 0;
	}
	case O_FORMAT:
		a->o.formats = parse_formats(v);
		if (a->o.formats == 0)
			return cli_usage_error("plot: --format: expected a "
					       "comma list of pdf, png, svg; "
					       "got '%s'", v);
		return 0;
	case O_CONF:
		if (cli_parse_double(v, 0, 1, &a->o.conf) != 0 ||
		    !(a->o.conf > 0 && a->o.conf < 1))
			return cli_usage_error("plot: --conf: expected a level "
					       "in (0, 1), got '%s'", v);
		return 0;
	}
	return 2;
}

static int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	struct plot_output out;
	struct store *st = NULL;
	struct sim_err err;
	char outdir[1024];
	const char *p;
	size_t k;
	int rc;

	memset(&a, 0, sizeof a);
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	if (a.db == NULL)
		return cli_missing("plot", "DB", "colosim plot DB "
				   "[--experiment NAME] [--out DIR] "
				   "[--format pdf,png,svg]");
	if (a.o.out_dir == NULL) {
		if (a.exp != NULL)
			snprintf(outdir, sizeof outdir, "figures/%s", a.exp);
		else
			snprintf(outdir, sizeof outdir, "figures");
		a.o.out_dir = outdir;
	}
	sim_err_clear(&err);
	if ((rc = store_open(&st, a.db, STORE_READ, &err)) != 0)
		return cli_report(&err);
	rc = plot_experiment(st, a.exp, &a.o, &out, &err);
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
