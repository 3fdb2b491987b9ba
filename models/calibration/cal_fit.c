/*
** cal_fit.c: the calibration fits (see cal_fit.h; equations in
** docs/CALIBRATION.md, "Fits").
**
** Every fit reads the `median` column of the rows it selects (bench, mode,
** variant, param, metric), regresses with GSL and reports r^2:
**   - copies: weighted linear least squares t = lat + bytes / bw
**     (gsl_fit_wlinear, weights 1/t^2 so that each size counts by its
**     relative error; an unweighted fit lets the 1 GiB points decide alone);
**   - HBM bandwidth against SMs and the MPS curves: a saturating line
**     y = B min(1, x / x0), B by linear least squares for each x0 and x0 by
**     a grid scan refined with GSL's Brent minimiser;
**   - contention: slowdown = (1 + k) base, through the origin (gsl_fit_mul),
**     k clamped at 0;
**   - time slicing: period(n) = n (q + c), through the origin, with q the
**     mean measured run interval;
**   - unified memory: ordinary least squares t = a + excess_bytes / rate.
** The r^2 of a weighted fit is the weighted one: 1 - chi^2 / sum w (y - ybar_w)^2.
*/
#include "models/calibration/cal_fit.h"
#include "models/device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_min.h>

#define MAXPTS 512

/* A fit is a profile key when the device loader knows it (device.c's
** field table): one list, so the two cannot drift apart. */
int cal_key_in_profile(const char *name)
{
	return dev_key_known(name);
}

const struct cal_fit *cal_result_find(const struct cal_result *res,
				      const char *name)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (strcmp(res->fits[i].name, name) == 0)
			return &res->fits[i];
	return NULL;
}

static void add_fit(struct cal_result *res, const char *name, double value,
		    const char *unit, double r2, int npoints)
{
	struct cal_fit *f;

	if (res->n >= CAL_FIT_MAX || cal_result_find(res, name) != NULL)
		return;
	f = &res->fits[res->n++];
	snprintf(f->name, sizeof f->name, "%s", name);
	snprintf(f->unit, sizeof f->unit, "%s", unit);
	f->value = value;
	f->r2 = r2;
	f->npoints = npoints;
	f->in_profile = cal_key_in_profile(name);
}

static void skip(struct cal_result *res, const char *name, const char *why)
{
	if (res->nskipped < CAL_FIT_MAX)
		snprintf(res->skipped[res->nskipped++], sizeof res->skipped[0],
			 "%s: %s", name, why);
}

/* Rows matching the filter (NULL matches anything): x = param_value,
** y = median.  Returns how many (at most cap). */
static size_t select_rows(const struct cal_raw *raw, const char *bench,
			  const char *mode, const char *variant,
			  const char *param, const char *metric,
			  double *x, double *y, size_t cap)
{
	size_t i, n = 0;

	for (i = 0; i < raw->n && n < cap; i++) {
		const struct cal_row *r = &raw->rows[i];

		if ((bench && strcmp(r->bench, bench) != 0) ||
		    (mode && strcmp(r->mode, mode) != 0) ||
		    (variant && strcmp(r->variant, variant) != 0) ||
		    (param && strcmp(r->param, param) != 0) ||
		    (metric && strcmp(r->metric, metric) != 0))
			continue;
		x[n] = r->param_value;
		y[n] = r->median;
		n++;
	}
	return n;
}

/* Centered r^2 from the residual sum of squares; NAN if y is constant. */
static double r2_of(const double *y, const double *w, size_t n, double ssres)
{
	double sw = 0, my = 0, sst = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double wi = w ? w[i] : 1.0;
		sw += wi;
		my += wi * y[i];
	}
	my /= sw;
	for (i = 0; i < n; i++)
		sst += (w ? w[i] : 1.0) * (y[i] - my) * (y[i] - my);
	return sst > 0 ? 1.0 - ssres / sst : (double)NAN;
}

/* ---- copies: t = lat + bytes / bw ---------------------------------- */

static int fit_line(const double *x, const double *y, size_t n, int weighted,
		    double *c0, double *c1, double *r2)
{
	double w[MAXPTS], cov00, cov01, cov11, chisq;
	size_t i;
	int st;

	for (i = 0; i < n; i++)
		w[i] = weighted ? 1.0 / (y[i] * y[i]) : 1.0;
	st = gsl_fit_wlinear(x, 1, w, 1, y, 1, n, c0, c1, &cov00, &cov01,
			     &cov11, &chisq);
	if (st != GSL_SUCCESS || !isfinite(*c0) || !isfinite(*c1))
		return -1;
	*r2 = r2_of(y, w, n, chisq);
	return 0;
}

static void fit_copies(const struct cal_raw *raw, struct cal_result *res)
{
	static const char *const kinds[] = {
		"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable",
		"d2d", NULL
	};
	double x[MAXPTS], y[MAXPTS], lat_sum = 0, r2_min = 1;
	int nlat = 0, npts_lat = 0;
	size_t k, n, i;

	for (k = 0; kinds[k] != NULL; k++) {
		char bw_name[CAL_NAME_MAX], lat_name[CAL_NAME_MAX];
		double c0, c1, r2;
		int bad = 0;

		snprintf(bw_name, sizeof bw_name, "%s_bytes_per_s", kinds[k]);
		snprintf(lat_name, sizeof lat_name, "%s_latency_ns", kinds[k]);
		n = select_rows(raw, "memcpy_sweep", NULL, kinds[k], "bytes",
				"time", x, y, MAXPTS);
		if (n == 0)
			continue;
		for (i = 0; i < n; i++)
			bad |= !(y[i] > 0) || !(x[i] > 0);
		if (n < 3 || bad) {
			skip(res, bw_name, n < 3 ? "fewer than 3 sizes" :
			     "a size or time is not positive");
			continue;
		}
		if (fit_line(x, y, n, 1, &c0, &c1, &r2) != 0 || !(c1 > 0)) {
			skip(res, bw_name, "time does not grow with size");
			continue;
		}
		/* t in ns, so bytes/s = 1e9 / (ns per byte).  A negative
		** intercept is noise around a latency near zero: clamp. */
		add_fit(res, bw_name, 1e9 / c1, "bytes_per_s", r2, (int)n);
		add_fit(res, lat_name, c0 > 0 ? c0 : 0, "ns", r2, (int)n);
		if (strcmp(kinds[k], "h2d_pinned") == 0 ||
		    strcmp(kinds[k], "d2h_pinned") == 0) {
			lat_sum += c0 > 0 ? c0 : 0;
			r2_min = r2 < r2_min ? r2 : r2_min;
			npts_lat += (int)n;
			nlat++;
		}
	}
	if (nlat > 0)
		add_fit(res, "pcie_latency_ns", lat_sum / nlat, "ns", r2_min,
			npts_lat);
}

/* ---- saturating line: y = B min(1, x / x0) --------------------------- */

struct sat_data {
	const double *x, *y;
	size_t n;
};

/* For a knee x0, the least-squares B and the residual sum of squares. */
static double sat_sse(double x0, void *p)
{
	const struct sat_data *d = p;
	double sgy = 0, sgg = 0, sse = 0, b;
	size_t i;

	for (i = 0; i < d->n; i++) {
		double g = d->x[i] < x0 ? d->x[i] / x0 : 1.0;
		sgy += g * d->y[i];
		sgg += g * g;
	}
	b = sgg > 0 ? sgy / sgg : 0;
	for (i = 0; i < d->n; i++) {
		double g = d->x[i] < x0 ? d->x[i] / x0 : 1.0;
		sse += (d->y[i] - b * g) * (d->y[i] - b * g);
	}
	return sse;
}

static int fit_saturating(const double *x, const double *y, size_t n,
			  double *b, double *x0, double *r2)
{
	struct sat_data d = { x, y, n };
	double lo = INFINITY, hi = 0, best, fbest, sgy = 0, sgg = 0;
	enum { GRID = 400 };
	size_t i;
	int g, gbest = 0;

	for (i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return -1;
		lo = x[i] < lo ? x[i] : lo;
		hi = x[i] > hi ? x[i] : hi;
	}
	/* The knee lies between the smallest and the largest x: below the
	** smallest every point is saturated, above the largest none is. */
	fbest = INFINITY;
	for (g = 0; g <= GRID; g++) {
		double xg = lo + (hi - lo) * g / GRID;
		double f = sat_sse(xg, &d);
		if (f < fbest) {
			fbest = f;
			gbest = g;
		}
	}
	best = lo + (hi - lo) * gbest / GRID;
	if (gbest > 0 && gbest < GRID) {
		gsl_function fn = { sat_sse, &d };
		gsl_min_fminimizer *m =
			gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
		double a = lo + (hi - lo) * (gbest - 1) / GRID;
		double c = lo + (hi - lo) * (gbest + 1) / GRID;
		int it;

		if (m != NULL && gsl_min_fminimizer_set_with_values(m, &fn,
			best, fbest, a, sat_sse(a, &d), c, sat_sse(c, &d)) ==
			GSL_SUCCESS) {
			for (it = 0; it < 100; it++) {
				if (gsl_min_fminimizer_iterate(m) != GSL_SUCCESS)
					break;
				if (gsl_min_test_interval(
					gsl_min_fminimizer_x_lower(m),
					gsl_min_fminimizer_x_upper(m),
					1e-9 * hi, 0) == GSL_SUCCESS)
					break;
			}
			if (gsl_min_fminimizer_f_minimum(m) <= fbest) {
				best = gsl_min_fminimizer_x_minimum(m);
				fbest = gsl_min_fminimizer_f_minimum(m);
			}
		}
		gsl_min_fminimizer_free(m);
	}
	for (i = 0; i < n; i++) {
		double gi = x[i] < best ? x[i] / best : 1.0;
		sgy += gi * y[i];
		sgg += gi * gi;
	}
	*x0 = best;
	*b = sgy / sgg;
	*r2 = r2_of(y, NULL, n, fbest);
	return isfinite(*b) ? 0 : -1;
}

static void fit_hbm(const struct cal_raw *raw, struct cal_result *res)
{
	static const char *const variants[] = { "copy", "triad", "read", NULL };
	double x[MAXPTS], y[MAXPTS], b, x0, r2;
	size_t n = 0, v;

	for (v = 0; variants[v] != NULL && n == 0; v++)
		n = select_rows(raw, "hbm_stream", NULL, variants[v], "sms",
				"bandwidth", x, y, MAXPTS);
	if (n == 0)
		return;
	if (n < 3) {
		skip(res, "hbm_bw_bytes_per_s", "fewer than 3 SM counts");
		return;
	}
	if (fit_saturating(x, y, n, &b, &x0, &r2) != 0 || !(b > 0)) {
		skip(res, "hbm_bw_bytes_per_s", "no positive bandwidth");
		return;
	}
	add_fit(res, "hbm_bw_bytes_per_s", b, "bytes_per_s", r2, (int)n);
	add_fit(res, "hbm_sat_sms", x0, "sms", r2, (int)n);
}

/* MPS: speed(p) = t(p_max) / t(p) against the share p/100. */
static void fit_mps(const struct cal_raw *raw, struct cal_result *res)
{
	static const char *const kinds[] = { "compute", "memory", NULL };
	double x[MAXPTS], y[MAXPTS], b, x0, r2;
	size_t k, n, i;

	for (k = 0; kinds[k] != NULL; k++) {
		char name[CAL_NAME_MAX];
		double pmax = 0, tref = 0;

		snprintf(name, sizeof name, "mps_sat_%s", kinds[k]);
		n = select_rows(raw, "mps_sweep", "mps", kinds[k], "percent",
				"time", x, y, MAXPTS);
		if (n == 0)
			continue;
		for (i = 0; i < n; i++)
			if (x[i] >= pmax) {
				pmax = x[i];
				tref = y[i];
			}
		if (n < 3 || !(tref > 0)) {
			skip(res, name, "fewer than 3 percentages");
			continue;
		}
		for (i = 0; i < n; i++) {
			y[i] = y[i] > 0 ? tref / y[i] : 0;
			x[i] /= 100.0;
		}
		if (fit_saturating(x, y, n, &b, &x0, &r2) != 0) {
			skip(res, name, "percentages must be positive");
			continue;
		}
		add_fit(res, name, x0, "fraction", r2, (int)n);
	}
}

/* ---- co-run contention: slowdown = (1 + k) max(1, sum sm, sum bw) ---- */

static int kernel_frac(const struct cal_raw *raw, const char *kernel,
		       const char *metric, double *out)
{
	double x, y;

	if (select_rows(raw, "corun_matrix", "exclusive", kernel, NULL, metric,
			&x, &y, 1) != 1)
		return -1;
	*out = y;
	return 0;
}

static void fit_contention(const struct cal_raw *raw, struct cal_result *res,
			   const char *mode, const char *name)
{
	double x[MAXPTS], y[MAXPTS], c1, cov11, sumsq;
	size_t i, n = 0;
	int missing = 0;

	for (i = 0; i < raw->n && n < MAXPTS; i++) {
		const struct cal_row *r = &raw->rows[i];
		char a[CAL_NAME_MAX], *b;
		double sa, sb, ba, bb, base;

		if (strcmp(r->bench, "corun_matrix") != 0 ||
		    strcmp(r->mode, mode) != 0 ||
		    strcmp(r->metric, "slowdown") != 0)
			continue;
		snprintf(a, sizeof a, "%s", r->variant);
		b = strchr(a, '+');
		if (b == NULL)
			continue;
		*b++ = '\0';
		if (kernel_frac(raw, a, "sm_frac", &sa) ||
		    kernel_frac(raw, b, "sm_frac", &sb) ||
		    kernel_frac(raw, a, "bw_frac", &ba) ||
		    kernel_frac(raw, b, "bw_frac", &bb)) {
			missing = 1;
			continue;
		}
		base = sa + sb > ba + bb ? sa + sb : ba + bb;
		x[n] = base > 1 ? base : 1;
		y[n] = r->median;
		n++;
	}
	if (n == 0) {
		if (missing)
			skip(res, name, "no exclusive sm_frac/bw_frac rows for "
			     "the co-run kernels");
		return;
	}
	if (n < 2 || gsl_fit_mul(x, 1, y, 1, n, &c1, &cov11, &sumsq) !=
	    GSL_SUCCESS) {
		skip(res, name, "fewer than 2 kernel pairs");
		return;
	}
	/* k < 0 (co-runs faster than the first-order model) is noise around
	** k near 0, and the profile keys are >= 0: clamp, as for latencies. */
	add_fit(res, name, c1 > 1.0 ? c1 - 1.0 : 0.0, "ratio",
		r2_of(y, NULL, n, sumsq), (int)n);
}

/* ---- time slicing: period(n) = n (q + c) ----------------------------- */

static void fit_timeslice(const struct cal_raw *raw, struct cal_result *res)
{
	double xr[MAXPTS], run[MAXPTS], x[MAXPTS], y[MAXPTS];
	double q = 0, c1, cov11, sumsq;
	size_t nr, n, i;

	nr = select_rows(raw, "timeslice", "timeslice", NULL, "nproc", "run",
			 xr, run, MAXPTS);
	n = select_rows(raw, "timeslice", "timeslice", NULL, "nproc", "period",
			x, y, MAXPTS);
	if (nr == 0 && n == 0)
		return;
	if (nr == 0 || n < 2) {
		skip(res, "ts_quantum_ns", "need run rows and period rows for "
		     "at least 2 process counts");
		return;
	}
	for (i = 0; i < nr; i++)
		q += run[i];
	q /= (double)nr;
	if (gsl_fit_mul(x, 1, y, 1, n, &c1, &cov11, &sumsq) != GSL_SUCCESS ||
	    !(q > 0)) {
		skip(res, "ts_quantum_ns", "unusable period rows");
		return;
	}
	add_fit(res, "ts_quantum_ns", q, "ns", r2_of(y, NULL, n, sumsq),
		(int)(n + nr));
	if (c1 - q < 0)
		skip(res, "ts_switch_ns", "period per process is shorter than "
		     "the run interval");
	else
		add_fit(res, "ts_switch_ns", c1 - q, "ns",
			r2_of(y, NULL, n, sumsq), (int)(n + nr));
}

/* ---- unified memory: t = a + excess / rate --------------------------- */

static void fit_uvm(const struct cal_raw *raw, struct cal_result *res)
{
	static const char *const kinds[][2] = {
		{ "seq", "uvm_bytes_per_s" },
		{ "random", "uvm_random_bytes_per_s" }, { NULL, NULL }
	};
	double x[MAXPTS], y[MAXPTS], c0, c1, r2;
	size_t k, n, i, m;

	for (k = 0; kinds[k][0] != NULL; k++) {
		n = select_rows(raw, "uvm_oversub", NULL, kinds[k][0],
				"excess_bytes", "time", x, y, MAXPTS);
		if (n == 0)
			continue;
		for (i = m = 0; i < n; i++)      /* oversubscribed points */
			if (x[i] >= 0) {
				x[m] = x[i];
				y[m] = y[i];
				m++;
			}
		if (m < 3) {
			skip(res, kinds[k][1], "fewer than 3 oversubscribed sizes");
			continue;
		}
		if (fit_line(x, y, m, 0, &c0, &c1, &r2) != 0 || !(c1 > 0)) {
			skip(res, kinds[k][1], "time does not grow with the excess");
			continue;
		}
		add_fit(res, kinds[k][1], 1e9 / c1, "bytes_per_s", r2, (int)m);
	}
}

/* ---- direct measurements (medians) ----------------------------------- */

static void take_measured(const struct cal_raw *raw, struct cal_result *res)
{
	static const struct {
		const char *bench, *variant, *metric, *name, *unit;
	} m[] = {
		{ "capacity", "context", "ctx_bytes", "ctx_bytes", "bytes" },
		{ "capacity", "context", "ctx_create", "ctx_create_ns", "ns" },
		{ "capacity", "malloc", "largest", "max_alloc_bytes", "bytes" },
		{ "launch", "empty", "launch", "launch_overhead_ns", "ns" },
		{ "launch", "empty", "roundtrip", "kernel_roundtrip_ns", "ns" },
		{ "compute_peak", "fp32_fma", "rate", "fp32_fma_flops", "flops_per_s" },
		{ "compute_peak", "fp16_fma", "rate", "fp16_fma_flops", "flops_per_s" },
		{ "compute_peak", "gemm_fp16", "rate", "gemm_fp16_flops", "flops_per_s" },
		{ "compute_peak", "gemm_fp32", "rate", "gemm_fp32_flops", "flops_per_s" },
		{ NULL, NULL, NULL, NULL, NULL }
	};
	double x[MAXPTS], y[MAXPTS];
	size_t i, n, j, best;

	for (i = 0; m[i].bench != NULL; i++) {
		n = select_rows(raw, m[i].bench, "exclusive", m[i].variant,
				NULL, m[i].metric, x, y, MAXPTS);
		if (n == 0)
			continue;
		/* Several sizes (GEMM): the best rate is the device's. */
		for (j = best = 0; j < n; j++)
			if (y[j] > y[best])
				best = j;
		add_fit(res, m[i].name, y[best], m[i].unit, (double)NAN, (int)n);
	}
}

int cal_fit_all(const struct cal_raw *raw, struct cal_result *res,
		struct sim_err *err)
{
	memset(res, 0, sizeof *res);
	fit_copies(raw, res);
	fit_hbm(raw, res);
	fit_mps(raw, res);
	fit_contention(raw, res, "mps", "mps_contention_k");
	fit_contention(raw, res, "streams", "streams_contention_k");
	fit_timeslice(raw, res);
	fit_uvm(raw, res);
	take_measured(raw, res);
	if (res->n == 0 && res->nskipped == 0)
		return sim_err_set(err, SIM_ENOENT, "%s: no rows that a fit "
				   "uses (see docs/CALIBRATION.md for the "
				   "bench/variant/metric names)", raw->path);
	return 0;
}
