/*
** plot.h: paper figures of an experiment, drawn by gnuplot from data files
** written out of the results store (docs/RESULTS.md, "Figures").
**
** For each setting of the experiment (the swept values other than the
** policy), plot_experiment writes, into the output folder:
**   jct_cdf      CDF of job completion times, one line per policy (pooled
**                over replications; finished jobs only)
**   hbm_util     HBM allocated (% of capacity) over time per policy: the
**                cluster-wide series, averaged over replications in 100
**                time bins
**   makespan     bars: mean makespan per policy with its CI
**   mem_util     bars: time-averaged HBM allocated per policy with its CI
**   latency_cdf  CDF of inference request latency per policy (from the
**                stored latency histograms, pooled over replications)
**   slo          bars: SLO attainment per policy with its CI
**   NAME_diff    for each bar figure: the paired difference against the
**                baseline with its paired CI (plot_bars.c)
** and over the whole experiment sweep-KEY-NAME, the bar metrics against
** each numeric swept key (plot_sweep.c); with plot_opts.metrics only those
** metrics' bars, differences and sweeps; with want_gpu / timeline the
** figures of plot_gpu.c.  Each as NAME.dat (the numbers, plain text) and
** NAME.pdf / NAME.png / NAME.svg.  A figure without data (no inference in
** the trace, say) is skipped with a note, not an error.  With several
** settings the names get a "-sK" suffix (K from 1) and settings.txt maps K
** to the setting.
**
** gnuplot runs as an external program (posix_spawnp, an argument vector,
** no shell).  The scripts (plots/NAME.gp, one shared style in style.gp) take
** their inputs as gnuplot variables set with -e; every string among them
** (paths, policy labels) is single-quoted with plot_gp_quote, and every
** terminal is set noenhanced, so no label is ever read as markup or code.
*/
#ifndef COLOSIM_PLOTS_PLOT_H
#define COLOSIM_PLOTS_PLOT_H

#include <stddef.h>

#include "experiments/store.h"
#include "sim/err.h"

enum { PLOT_PDF = 1, PLOT_PNG = 2, PLOT_SVG = 4 };

struct plot_opts {
	const char *out_dir;       /* created if missing */
	unsigned formats;          /* PLOT_* bits; 0 means PDF + PNG */
	const char *gnuplot;       /* program; NULL: "gnuplot" from PATH */
	const char *scripts_dir;   /* NULL: plot_find_scripts() */
	double conf;               /* CI level; 0 means 0.95 */
	/* What to draw.  All unset: the default figures.  Any set: only
	** what is asked. */
	const char *metrics;       /* "a,b": these metrics' bars, paired
				      differences and sweep figures */
	int want_gpu;              /* 1: the figure of GPU gpu */
	int gpu;
	int timeline;              /* 1: the cluster timeline */
	int replication;           /* the run (per variant) of the gpu and
				      timeline figures; default 0 */
};

struct plot_output {
	char **paths;              /* files written (figures and data) */
	size_t npaths;
	char *notes;               /* one line per skipped figure or format
				      fallback; "" when none */
};

/*
** Writes the figures of experiment (NULL: the database must hold exactly
** one).  On success out lists what was written (free with
** plot_output_fini).  Errors: SIM_ENOENT (experiment, gnuplot or the
** scripts not found, with what to install), SIM_EIO (a file cannot be
** written; gnuplot failed, with its last message), store errors.
*/
int plot_experiment(struct store *s, const char *experiment,
		    const struct plot_opts *o, struct plot_output *out,
		    struct sim_err *err);

void plot_output_fini(struct plot_output *out);

/*
** The folder holding style.gp: $COLOSIM_PLOTS when set, else ./plots,
** else PREFIX/share/colosim/plots for the usual prefixes; NULL if none.
*/
const char *plot_find_scripts(void);

/*
** Writes s as a gnuplot single-quoted string literal into out (size bytes):
** inside single quotes gnuplot interprets nothing but '' (one quote).
** Returns 0, or SIM_EINVAL for a string holding a newline or control
** character, or SIM_ENOSPC when out is too small.
*/
int plot_gp_quote(const char *s, char *out, size_t size);

/*
** The terminals the gnuplot program offers (GPVAL_TERMINALS), space
** separated, into buf.  SIM_ENOENT when gnuplot cannot be run.
*/
int plot_terminals(const char *gnuplot, char *buf, size_t size,
		   struct sim_err *err);

/*
** Runs `gnuplot -e "NAME='VALUE'; ..." SCRIPT` (gnuplot: NULL for the one
** in PATH), the n names[i] set to values[i], each quoted by plot_gp_quote;
** no shell, output captured (plot_experiment's figures run through the
** same spawner).  outfile, when not NULL, must exist and be non-empty
** afterwards.  0, SIM_ENOENT (gnuplot cannot be run), SIM_EINVAL (a value
** that cannot be quoted), SIM_EIO (gnuplot failed: its last line in err).
*/
int plot_gnuplot(const char *gnuplot, const char *script,
		 const char *const *names, const char *const *values,
		 size_t n, const char *outfile, struct sim_err *err);

/*
** The openb figure (docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on the
** openb trace"), in the style of the paper's Fig. 9: writes
** DIR/openb-alloc.dat (k, then one column per curve, titled names[i];
** NaN where a curve has no point) and draws DIR/openb-alloc.png with
** SCRIPTS/openb.gp (scripts_dir NULL: plot_find_scripts()).  0, or
** SIM_EIO / SIM_ENOENT as plot_gnuplot.
*/
int plot_openb(const char *dir, const char *scripts_dir, const char *gnuplot,
	       const char *const *names, const double *const *curves,
	       int ncurves, int kmax, struct sim_err *err);

#endif
