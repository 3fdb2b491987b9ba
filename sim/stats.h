/*
** stats.h: statistics accumulators.
**
** sim_twacc: the time-weighted mean of a piecewise-constant signal (memory in
**   use, busy SMs).  The area is summed with Neumaier compensation over
**   integer nanosecond intervals, so millions of updates do not drift.
** sim_sample: a sample of observations (JCTs, latencies): count, mean and
**   variance (Welford), min and max, and quantiles.  Values are kept exactly
**   up to a cap; past it they move into a log-bucketed histogram whose
**   quantiles carry a relative error of at most SIM_HIST_REL_ERR (1%), so
**   memory stays bounded however many requests a run serves.
*/
#ifndef COLOSIM_SIM_STATS_H
#define COLOSIM_SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

/*
** Neumaier's compensated addition: *sum + *c is the running total of every
** x added, with an error that does not grow with the number of terms.  Used
** wherever progress is settled millions of times (the GPU and link models,
** the time-weighted accumulator).
*/
static inline void sim_comp_add(double *sum, double *c, double x)
{
	double t = *sum + x;
	double as = *sum < 0 ? -*sum : *sum, ax = x < 0 ? -x : x;

	if (as >= ax)
		*c += (*sum - t) + x;
	else
		*c += (x - t) + *sum;
	*sum = t;
}

struct sim_twacc {
	sim_time t0;          /* start of the observation window */
	sim_time t_last;      /* time of the last update */
	double value;         /* current value of the signal */
	double area, comp;    /* integral of value dt (ns), compensation */
	double peak;          /* largest value seen */
};

/* Starts observing at t0 with value v0. */
void sim_twacc_init(struct sim_twacc *a, sim_time t0, double v0);

/* The signal takes value v from time t on (t >= last update; earlier t is
** treated as the last update time, never integrated backwards). */
void sim_twacc_set(struct sim_twacc *a, sim_time t, double v);

/* Adds dv to the current value from time t on. */
void sim_twacc_add(struct sim_twacc *a, sim_time t, double dv);

/* The time-weighted mean over [t0, t_end]; the current value if empty. */
double sim_twacc_mean(const struct sim_twacc *a, sim_time t_end);

#define SIM_HIST_REL_ERR 0.01
#define SIM_SAMPLE_EXACT_DEFAULT 100000

struct sim_sample {
	uint64_t n;
	double mean, m2, min, max;
	/* exact mode */
	double *vals;
	size_t nvals, capvals, exact_cap;
	int sorted;
	/* histogram mode (vals == NULL and hist != NULL) */
	uint64_t *hist;       /* counts for bucket indices [hmin, hmin+nhist) */
	int64_t hmin;
	size_t nhist;
	uint64_t nzero;       /* observations <= SIM_HIST_TINY */
	int failed;           /* an allocation failed: quantiles are NaN */
};

#define SIM_HIST_TINY 1e-12

/* An empty sample keeping up to exact_cap values exactly (0: the default). */
void sim_sample_init(struct sim_sample *s, size_t exact_cap);

/* Frees the sample's memory. */
void sim_sample_fini(struct sim_sample *s);

/* Adds one observation.  Returns 0 or SIM_ENOMEM (the moments still count). */
int sim_sample_add(struct sim_sample *s, double x);

/* The sample variance (n - 1 denominator); 0 when n < 2. */
double sim_sample_var(const struct sim_sample *s);

/*
** The q-quantile, 0 <= q <= 1; NaN when empty.  Exact mode: linear
** interpolation between order statistics (gsl_stats_quantile_from_sorted_data).
** Histogram mode: the representative value of the bucket holding rank
** ceil(q n), within SIM_HIST_REL_ERR of an order statistic there.
** Not const: exact mode sorts the stored values on first use.
*/
double sim_sample_quantile(struct sim_sample *s, double q);

/* 1 once the sample has moved to its histogram. */
static inline int sim_sample_is_hist(const struct sim_sample *s)
{
	return s->hist != NULL;
}

#endif
