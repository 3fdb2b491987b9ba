/*
** report.h: policies x metrics from the results store, with the mean and a
** Student-t confidence interval over replications, and the paired
** difference against a baseline (docs/RESULTS.md, "Reports").
**
** Runs are grouped by setting (the swept values other than the policy) and
** variant (the policy and its own swept parameters).  In each setting, a
** variant's value in replication r is paired with the baseline's value in
** the same replication r: both saw the same arrivals (common random
** numbers), so the paired interval is usually much narrower than the
** difference of two independent intervals.
**
** Interval: mean +- t_{(1+conf)/2, n-1} * sd / sqrt(n), with sd the sample
** standard deviation (n - 1 denominator) and t from gsl_cdf_tdist_Pinv.
** With n < 2 the half-width is NaN (printed "n/a").
*/
#ifndef COLOSIM_EXPERIMENTS_REPORT_H
#define COLOSIM_EXPERIMENTS_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "experiments/store.h"
#include "sim/err.h"

struct rep_stat {
	size_t n;
	double mean;
	double sd;          /* sample standard deviation; NaN if n < 2 */
	double half;        /* CI half-width; NaN if n < 2 */
};

/* The mean and conf-level interval of x[0..n).  conf in (0, 1). */
void rep_stat_compute(const double *x, size_t n, double conf,
		      struct rep_stat *out);

struct rep_row {
	const char *setting;     /* borrowed from the table's string pool */
	const char *variant;
	const char *policy;
	const char *metric;
	struct rep_stat stat;
	int is_baseline;
	struct rep_stat diff;    /* variant - baseline, paired; n = 0 when no
				    pairs (or this is the baseline) */
	double rel;              /* diff.mean / baseline mean; NaN if none
				    or the baseline is near 0 (rep_rel_diff) */
};

struct rep_table {
	char *experiment;
	char *baseline;          /* the baseline variant's label, or NULL */
	double conf;
	long total_runs, done_runs, failed_runs;
	struct rep_row *rows;    /* by setting, metric, variant (run order) */
	size_t nrows;
	char **pool;             /* owned strings the rows point into */
	size_t npool;
};

enum rep_format { REP_TABLE, REP_CSV, REP_JSON };

/*
** Builds the report of experiment (NULL: the database must hold exactly
** one) against baseline (a variant label or a policy name; NULL:
** "exclusive" when it ran, else the first variant), at level conf (0.95).
** Errors: SIM_ENOENT (no such experiment or baseline; the message lists
** the known ones), store errors.  Release with rep_table_fini.
*/
int rep_build(struct store *s, const char *experiment, const char *baseline,
	      double conf, struct rep_table *t, struct sim_err *err);

void rep_table_fini(struct rep_table *t);

/* Renders t into *out (malloc'd, NUL-terminated; the caller frees). */
int rep_render(const struct rep_table *t, enum rep_format fmt, char **out,
	       struct sim_err *err);

/*
** The relative difference diff / base, or NaN (printed n/a) when the
** baseline mean is 0 or smaller in magnitude than REP_REL_MIN times the
** larger of |base| and |variant| (the variant's mean): a relative change
** beyond about +-9900% says only that the baseline is near zero; the
** absolute difference is the number to read then.
*/
#define REP_REL_MIN 0.01
double rep_rel_diff(double diff, double base, double variant);

/*
** Keeps only the rows of the metrics in list ("a,b": comma-separated), in
** the list's order within each setting.  SIM_ENOENT when a name has no row
** (the table is then unchanged).
*/
int rep_keep_metrics(struct rep_table *t, const char *list,
		     struct sim_err *err);

/* The rank of a metric in the documented order (docs/RESULTS.md); names
** not listed rank after all listed ones. */
int rep_metric_rank(const char *name);

/*
** The id and name (*name_out: malloc'd, freed first if set) of experiment
** name, or of the only one stored when name is NULL.  SIM_ENOENT (no such
** experiment, with the stored ones listed), SIM_EINVAL (name is NULL and
** several are stored).
*/
int rep_find_experiment(struct store *s, const char *name, int64_t *id,
			char **name_out, struct sim_err *err);

/* The experiment names stored, comma-separated, in *out (malloc'd). */
int rep_list_experiments(struct store *s, char **out, struct sim_err *err);

#endif
