/*
** plot_int.h: what the figure files of plots/ share (plot.c: the state,
** data files and the gnuplot runner, the CDF and HBM figures; plot_bars.c:
** a metric's bars and paired differences; plot_sweep.c: metric against a
** swept parameter; plot_gpu.c: one GPU's tenants and the cluster
** timeline).  Private to plots/.
*/
#ifndef COLOSIM_PLOTS_PLOT_INT_H
#define COLOSIM_PLOTS_PLOT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "experiments/report.h"
#include "plots/plot.h"
#include "sim/strbuf.h"

struct plotter {
	struct store *s;
	sqlite3 *db;
	const struct plot_opts *o;
	struct plot_output *out;
	struct sim_strbuf notes;
	int64_t id;
	const char *scripts;
	const char *terms[3];         /* per format: terminal or NULL */
	const char *exts[3];
	/* the setting being drawn */
	const char *setting;
	char suffix[32];
	char **variants;              /* labels, in run order */
	size_t nvariants;
	const struct rep_table *rep;
	char tmp[1200];               /* temporary name of the open output */
};

/* How a metric is drawn: its label (one per quantity, every figure the
** same), unit, scale (100 for a fraction shown in %) and file name. */
struct plot_metric {
	const char *metric;
	const char *file;             /* figure base name */
	const char *label;            /* "Makespan" */
	const char *unit;             /* "s", "%", "" */
	double scale;
	int pct;                      /* a percentage: the axis is 0..100 */
};

/* The drawing of metric name (a generic one for names not in the table;
** its strings then point into name). */
void plot__metric(const char *name, struct plot_metric *out);

/* "Makespan (s)": the axis label of m into buf. */
void plot__axis_label(const struct plot_metric *m, char *buf, size_t size);

/* The variables a figure's script gets besides the common ones. */
struct plot_vars {
	const char *ylabel;           /* NULL: '' */
	const char *xlabel;           /* NULL: '' */
	double ymax;                  /* > 0: the y axis is [0, ymax] */
	int logx;                     /* 1: logarithmic x axis */
	const char *extra;            /* more "NAME=NUMBER; " text, or NULL */
	const size_t *lts;            /* the line type of each block (its
					 variant's colour), or NULL: 1..n */
};

/*
** Runs the figure's script once per format: name (+ the setting's
** suffix) is the file name, script the plots/SCRIPT.gp to run, titles[0..n)
** the labels of the data file's blocks.
*/
int plot__draw(struct plotter *p, const char *name, const char *script,
	       const char *const *titles, size_t n, const struct plot_vars *v,
	       struct sim_err *err);

/* Opens OUT/NAME(+suffix).dat for writing (path receives it). */
FILE *plot__open_data(struct plotter *p, const char *name, char *path,
		      size_t size, struct sim_err *err);

/* Closes a data file and lists it in the output. */
int plot__close_data(struct plotter *p, FILE *f, const char *path,
		     struct sim_err *err);
/* Closes and removes an output abandoned after an error (its temporary
** name: the data file it would replace is left as it was). */
void plot__drop_data(struct plotter *p, FILE *f);

/* Adds one line to the notes handed back to the caller. */
void plot__note(struct plotter *p, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

int plot__db_fail(struct plotter *p, const char *what, struct sim_err *err);

/* A metric's bars (mean and CI per variant) and its paired differences
** against the baseline, for the current setting (plot_bars.c). */
int plot__bars(struct plotter *p, const char *metric, struct sim_err *err);
int plot__diff(struct plotter *p, const char *metric, struct sim_err *err);

/* The metric against each numeric swept key, the whole experiment
** (plot_sweep.c); no numeric key: nothing. */
int plot__sweeps(struct plotter *p, const char *metric, struct sim_err *err);

/* For replication o->replication of each variant of the current setting:
** GPU o->gpu's tenants, HBM and SM over time; the cluster timeline
** (plot_gpu.c). */
int plot__gpu(struct plotter *p, struct sim_err *err);
int plot__timeline(struct plotter *p, struct sim_err *err);

/* The LLM services' TTFT / TPOT CDFs of the current setting (plot_llm.c,
** schema 3); none: a note. */
int plot__llm(struct plotter *p, struct sim_err *err);

#endif
