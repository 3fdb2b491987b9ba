/*
** export.h: analysis-ready tables out of the results store, in wide form
** (docs/RESULTS.md, "Exporting").
**
** Each table is one of the store's export_* views (schema 2) with its
** `sweep` JSON column replaced by one column per swept key (placed after
** `replication`; a key that is already a column, such as policy or
** cluster, is not repeated), and, for runs, its metric columns replaced by
** one column per metric stored (the documented order of
** rep_metric_rank, then by name).  A run that has no value of a swept key
** or a metric gets an empty CSV field / JSON null.  Sentinels are gone:
** the views turn the jobs table's -1 (not started, not finished, no solo
** time, never placed) into NULL.
**
** CSV: a header line, then one line per row; numbers as %.17g (integers
** as integers), text quoted only when it holds a comma, quote or line
** break.  JSON: one array of objects, one per row, keys the CSV header;
** swept values that read as numbers are numbers.
*/
#ifndef COLOSIM_EXPERIMENTS_EXPORT_H
#define COLOSIM_EXPERIMENTS_EXPORT_H

#include <stdio.h>

#include "experiments/store.h"
#include "sim/err.h"

enum exp_export_table {
	EXPORT_RUNS = 0, EXPORT_JOBS, EXPORT_SERIES, EXPORT_LATENCY,
	EXPORT_PLACEMENTS, EXPORT__COUNT
};

enum exp_export_format { EXPORT_CSV = 0, EXPORT_JSON };

struct exp_export_opts {
	enum exp_export_table table;
	enum exp_export_format format;
	const char *experiment;       /* NULL: every experiment of the store */
	const char *metrics;          /* runs only: "a,b" keeps these metric
					 columns (in this order); NULL: all */
};

/* The table named name ("runs", "jobs", ...): 0, or SIM_ENOENT with the
** known names in err. */
int exp_export_find(const char *name, enum exp_export_table *t,
		    struct sim_err *err);

/* The name of table t ("runs"; its view is "export_runs"). */
const char *exp_export_name(enum exp_export_table t);

/*
** Writes table o->table of the store to out (borrowed; not closed).
** Errors: SIM_EVERSION (a schema-1 store: no export views; `colosim export
** --upgrade` migrates it), SIM_ENOENT (no such experiment or metric, with
** the stored ones listed), SIM_EIO (a write to out failed), store errors.
** On an error part of the table may have been written.
*/
int exp_export(struct store *s, const struct exp_export_opts *o, FILE *out,
	       struct sim_err *err);

#endif
