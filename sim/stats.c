/*
** stats.c: time-weighted and sample statistics (see stats.h).
*/
#include "sim/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/err.h"

void sim_twacc_init(struct sim_twacc *a, sim_time t0, double v0)
{
	a->t0 = a->t_last = t0;
	a->value = v0;
	a->area = a->comp = 0.0;
	a->peak = v0;
}

/* Neumaier's compensated sum: area + comp is the exact-ish integral. */
static void area_add(struct sim_twacc *a, double x)
{
	sim_comp_add(&a->area, &a->comp, x);
}

void sim_twacc_set(struct sim_twacc *a, sim_time t, double v)
{
	if (t > a->t_last) {
		area_add(a, a->value * (double)(t - a->t_last));
		a->t_last = t;
	}
	a->value = v;
	if (v > a->peak)
		a->peak = v;
}

void sim_twacc_add(struct sim_twacc *a, sim_time t, double dv)
{
	sim_twacc_set(a, t, a->value + dv);
}

double sim_twacc_mean(const struct sim_twacc *a, sim_time t_end)
{
	double area = a->area + a->comp;

	if (t_end <= a->t0)
		return a->value;
	if (t_end > a->t_last)
		area += a->value * (double)(t_end - a->t_last);
	return area / (double)(t_end - a->t0);
}

/* Bucket i holds (gamma^(i-1), gamma^i]; its representative 2 gamma^i /
** (gamma + 1) is within (gamma - 1) / (gamma + 1) = REL_ERR of any member. */
static double hist_gamma(void)
{
	return (1.0 + SIM_HIST_REL_ERR) / (1.0 - SIM_HIST_REL_ERR);
}

static int64_t hist_index(double x)
{
	return (int64_t)ceil(log(x) / log(hist_gamma()));
}

static double hist_value(int64_t i)
{
	double g = hist_gamma();
	return 2.0 * pow(g, (double)i) / (g + 1.0);
}

void sim_sample_init(struct sim_sample *s, size_t exact_cap)
{
	memset(s, 0, sizeof *s);
	s->exact_cap = exact_cap ? exact_cap : SIM_SAMPLE_EXACT_DEFAULT;
	s->min = INFINITY;
	s->max = -INFINITY;
	s->sorted = 1;
}

void sim_sample_fini(struct sim_sample *s)
{
	free(s->vals);
	free(s->hist);
	s->vals = NULL;
	s->hist = NULL;
}

static int hist_put(struct sim_sample *s, double x)
{
	int64_t i;

	if (!(x > SIM_HIST_TINY)) {
		s->nzero++;
		return 0;
	}
	i = hist_index(x);
	if (s->nhist == 0) {
		s->hist = calloc(16, sizeof *s->hist);
		if (s->hist == NULL)
			return SIM_ENOMEM;
		s->hmin = i;
		s->nhist = 16;
	}
	if (i < s->hmin || i >= s->hmin + (int64_t)s->nhist) {
		int64_t lo = i < s->hmin ? i : s->hmin;
		int64_t hi = i >= s->hmin + (int64_t)s->nhist ?
			i + 1 : s->hmin + (int64_t)s->nhist;
		size_t n = (size_t)(hi - lo);
		uint64_t *h = calloc(n, sizeof *h);
		if (h == NULL)
			return SIM_ENOMEM;
		memcpy(h + (s->hmin - lo), s->hist, s->nhist * sizeof *h);
		free(s->hist);
		s->hist = h;
		s->hmin = lo;
		s->nhist = n;
	}
	s->hist[i - s->hmin]++;
	return 0;
}

/* Moves the exact values into the histogram. */
static int to_hist(struct sim_sample *s)
{
	size_t k;

	for (k = 0; k < s->nvals; k++)
		if (hist_put(s, s->vals[k]) != 0)
			return SIM_ENOMEM;
	if (s->hist == NULL) {      /* every value was tiny: still mark mode */
		s->hist = calloc(1, sizeof *s->hist);
		if (s->hist == NULL)
			return SIM_ENOMEM;
		s->nhist = 1;
	}
	free(s->vals);
	s->vals = NULL;
	s->nvals = s->capvals = 0;
	return 0;
}

int sim_sample_add(struct sim_sample *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
	if (x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
	if (s->failed)
		return SIM_ENOMEM;
	if (s->hist == NULL && s->nvals == s->exact_cap && to_hist(s) != 0)
		goto fail;
	if (s->hist != NULL) {
		if (hist_put(s, x) != 0)
			goto fail;
		return 0;
	}
	if (s->nvals == s->capvals) {
		size_t cap = s->capvals ? s->capvals * 2 : 64;
		double *v;
		if (cap > s->exact_cap)
			cap = s->exact_cap;
		v = realloc(s->vals, cap * sizeof *v);
		if (v == NULL)
			goto fail;
		s->vals = v;
		s->capvals = cap;
	}
	s->vals[s->nvals++] = x;
	s->sorted = 0;
	return 0;
fail:
	s->failed = 1;
	return SIM_ENOMEM;
}

double sim_sample_var(const struct sim_sample *s)
{
	return s->n < 2 ? 0.0 : s->m2 / (double)(s->n - 1);
}

double sim_sample_quantile(struct sim_sample *s, double q)
{
	uint64_t rank, seen;
	size_t k;

	if (s->n == 0 || s->failed || !(q >= 0.0 && q <= 1.0))
		return NAN;
	if (s->hist == NULL) {
		if (!s->sorted) {
			gsl_sort(s->vals, 1, s->nvals);
			s->sorted = 1;
		}
		return gsl_stats_quantile_from_sorted_data(s->vals, 1,
							   s->nvals, q);
	}
	if (q <= 0.0)
		return s->min;
	if (q >= 1.0)
		return s->max;
	rank = (uint64_t)ceil(q * (double)s->n);
	if (rank < 1)
		rank = 1;
	seen = s->nzero;
	if (rank <= seen)
		return s->min < 0.0 ? s->min : 0.0;
	for (k = 0; k < s->nhist; k++) {
		seen += s->hist[k];
		if (seen >= rank)
			return hist_value(s->hmin + (int64_t)k);
	}
	return s->max;
}
