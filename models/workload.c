/*
** workload.c: the training-job and inference-service models (workload.h).
**
** Pure functions of (model, device, batch, options); no state.  Every
** equation and constant is in docs/MODEL.md, "Workloads", with its source:
**   - state bytes per parameter: ZeRO (Rajbhandari et al., SC'20, sec. 3.1);
**   - training efficiency: NVIDIA DeepLearningExamples ResNet-50 v1.5
**     PyTorch throughputs (V100-16GB FP32 367 img/s, AMP 1200 img/s;
**     A100-80GB AMP 2470 img/s);
**   - inference latency curve: weighted least-squares fit (GSL,
**     gsl_fit_wlinear, weights 1/L^2) on the published ResNet-50 TensorRT
**     FP16 latencies at batch 1/8/32 (A100 2.13/3.90/11.2 ms, V100
**     2.84/5.98/15.7 ms, T4 3.00/9.00/28.4 ms); tests/test_workload.c
**     redoes the fit and checks these constants.
*/
#include "models/workload.h"

#include <ctype.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "sim/err.h"

/* Training efficiency against the precision's dense peak (MODEL.md
** "Training iteration time").  FP32: V100 367 img/s * 3 * 8.178 GFLOP /
** 15.7 TFLOP/s.  Mixed: geometric mean of V100 (1200 img/s, 125 TFLOP/s:
** 0.2355) and A100 (2470 img/s, 312 TFLOP/s: 0.1942). */
#define WL_ETA_TRAIN_FP32  0.5735
#define WL_ETA_TRAIN_MIXED 0.2139

/* Backward costs twice the forward (Kaplan et al. 2020, sec. 2.1;
** Narayanan et al. SC'21): an iteration is 3 forward passes of FLOPs. */
#define WL_TRAIN_FLOP_FACTOR 3.0

/* Activation memory is near its peak (within 10%) for this fraction of an
** iteration: it grows linearly through the forward pass and shrinks
** linearly through the backward pass, a triangle whose top 10% lasts 10%
** of the iteration whatever the forward/backward split. */
#define WL_PEAK_FRAC 0.10

struct wl_fit {
	const char *family;
	double t0_ms, eta;
};

/* Fitted constants (see the file comment): t0 = intercept, eta =
** 8.178e9 FLOP / (fp16 peak * slope) with the datasheet peaks 312, 125
** and 65 TFLOP/s.  Residuals within 4.5% (MODEL.md). */
static const struct wl_fit wl_fits[] = {
	{ "a100", 1.8064, 0.0925 },
	{ "v100", 2.4458, 0.1551 },
	{ "t4",   2.1834, 0.1514 },
};
/* Devices without a fit: the arithmetic means of the three. */
static const struct wl_fit wl_fit_mean = { "mean", 2.1452, 0.1330 };

int wl_optimizer_parse(const char *s, enum wl_optimizer *out)
{
	if (strcasecmp(s, "sgd") == 0)
		*out = WL_OPT_SGD;
	else if (strcasecmp(s, "momentum") == 0)
		*out = WL_OPT_MOMENTUM;
	else if (strcasecmp(s, "adam") == 0)
		*out = WL_OPT_ADAM;
	else
		return SIM_EINVAL;
	return 0;
}

int wl_precision_parse(const char *s, enum wl_precision *out)
{
	if (strcasecmp(s, "fp32") == 0)
		*out = WL_PREC_FP32;
	else if (strcasecmp(s, "mixed") == 0)
		*out = WL_PREC_MIXED;
	else
		return SIM_EINVAL;
	return 0;
}

const char *wl_optimizer_name(enum wl_optimizer o)
{
	switch (o) {
	case WL_OPT_SGD: return "sgd";
	case WL_OPT_MOMENTUM: return "momentum";
	case WL_OPT_ADAM: return "adam";
	}
	return "?";
}

const char *wl_precision_name(enum wl_precision p)
{
	return p == WL_PREC_MIXED ? "mixed" : "fp32";
}

double wl_state_bytes_per_param(enum wl_optimizer opt, enum wl_precision prec)
{
	/* optimizer state, FP32 in both precisions: momentum 4, Adam 8 */
	double opt_bytes = opt == WL_OPT_ADAM ? 8 : opt == WL_OPT_MOMENTUM ? 4 : 0;

	if (prec == WL_PREC_MIXED)   /* FP16 weights + grads, FP32 master */
		return 2 + 2 + 4 + opt_bytes;
	return 4 + 4 + opt_bytes;    /* FP32 weights + grads */
}

void wl_train_memory(const struct zoo_model *m, const struct dev_profile *d,
		     int batch, enum wl_optimizer opt, enum wl_precision prec,
		     struct wl_train_mem *out)
{
	double act = (double)m->act_train_bytes * (prec == WL_PREC_MIXED ? 0.5 : 1);

	if (batch < 1)
		batch = 1;
	out->static_bytes = d->ctx_bytes + (uint64_t)ceil(
		(double)m->params * wl_state_bytes_per_param(opt, prec));
	out->peak_bytes = out->static_bytes + (uint64_t)ceil(act * batch);
	out->trough_bytes = out->static_bytes;
	out->peak_frac = WL_PEAK_FRAC;
}

/* The token of a device name that names its family: "a100-40gb" ->
** "a100"; matches whole tokens so that "t4" does not match "rtx4090". */
int wl_name_has_token(const char *name, const char *tok)
{
	size_t n = strlen(tok);
	const char *p = name;

	while (*p) {
		while (*p && !isalnum((unsigned char)*p))
			p++;
		if (strncasecmp(p, tok, n) == 0 &&
		    !isalnum((unsigned char)p[n]))
			return 1;
		while (*p && isalnum((unsigned char)*p))
			p++;
	}
	return 0;
}

void wl_infer_curve_of(const struct dev_profile *d, struct wl_infer_curve *out)
{
	const struct wl_fit *f = &wl_fit_mean;
	size_t i;

	for (i = 0; i < sizeof wl_fits / sizeof wl_fits[0]; i++)
		if (wl_name_has_token(d->name, wl_fits[i].family)) {
			f = &wl_fits[i];
			break;
		}
	out->t0_ns = f->t0_ms * 1e6;
	out->eta = f->eta;
	out->calibrated = f != &wl_fit_mean;
	out->fit = f->family;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median host cost of the table rows that `keep` accepts; -1 if none. */
static double median_host(const struct dev_profile *d, enum wl_precision prec,
			  int level, int *count)
{
	size_t i, n, k = 0;
	const struct wl_fit_entry *t = wl_fit_table(&n);
	double v[256];

	for (i = 0; i < n && k < sizeof v / sizeof v[0]; i++) {
		int fam = wl_name_has_token(d->name, t[i].family);

		if ((level == 0 && fam && t[i].prec == prec) ||
		    (level == 1 && fam) || level == 2)
			v[k++] = t[i].host_ns;
	}
	*count = (int)k;
	if (k == 0)
		return -1;
	qsort(v, k, sizeof v[0], cmp_dbl);
	return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

void wl_train_fit_of(const struct zoo_model *m, const struct dev_profile *d,
		     enum wl_precision prec, struct wl_train_fit *out)
{
	static const char *const rule[] = {
		"rule: median host cost of this device family's fitted "
		"models at this precision, eta_scale 1 (docs/MODEL.md)",
		"rule: median host cost of this device family's fitted "
		"models, eta_scale 1 (docs/MODEL.md)",
		"rule: median host cost of all fitted models, eta_scale 1 "
		"(docs/MODEL.md)",
	};
	size_t i, n;
	const struct wl_fit_entry *t = wl_fit_table(&n);
	int level, count = 0;

	for (i = 0; i < n; i++)
		if (strcasecmp(t[i].model, m->name) == 0 && t[i].prec == prec &&
		    wl_name_has_token(d->name, t[i].family)) {
			out->host_ns = t[i].host_ns;
			out->host_lo_ns = t[i].host_lo_ns;
			out->host_hi_ns = t[i].host_hi_ns;
			out->eta_scale = t[i].eta_scale;
			out->eta_lo = t[i].eta_lo;
			out->eta_hi = t[i].eta_hi;
			out->measured = 1;
			out->npts = t[i].npts;
			out->source = t[i].source;
			return;
		}
	memset(out, 0, sizeof *out);
	out->eta_scale = out->eta_lo = out->eta_hi = 1.0;
	out->source = "rule: no fitted model (host cost 0, eta_scale 1)";
	for (level = 0; level < 3; level++) {
		double h = median_host(d, prec, level, &count);

		if (h >= 0) {
			out->host_ns = out->host_lo_ns = out->host_hi_ns = h;
			out->npts = count;
			out->source = rule[level];
			return;
		}
	}
}

static sim_time ns_of(double ns)
{
	if (!(ns >= 1))
		return 1;
	if (ns > 9e18)
		return SIM_TIME_MAX;
	return (sim_time)llround(ns);
}

/* The FP16 rate of the device; a device without FP16 units (K80) runs
** half precision at its FP32 rate. */
static double fp16_peak(const struct dev_profile *d)
{
	return d->fp16_flops > 0 ? d->fp16_flops : d->fp32_flops;
}

/* Inference times of one batch (FP16 weights and activations). */
struct infer_parts {
	double t0_ns, tc_ns, tm_ns, bytes, flops, flops_half;
};

static void infer_parts(const struct zoo_model *m, const struct dev_profile *d,
			int batch, struct infer_parts *p)
{
	struct wl_infer_curve c;

	wl_infer_curve_of(d, &c);
	if (batch < 1)
		batch = 1;
	p->t0_ns = c.t0_ns;
	p->flops = (double)batch * m->fwd_flops;
	p->tc_ns = p->flops / (fp16_peak(d) * c.eta) * 1e9;
	/* weights read once; each activation written and read at FP16 */
	p->bytes = 2.0 * (double)m->params + (double)batch * m->act_infer_bytes;
	p->tm_ns = p->bytes / d->hbm_bw_bytes_per_s * 1e9;
	p->flops_half = c.t0_ns * 1e-9 * fp16_peak(d) * c.eta;
}

sim_time wl_infer_batch_ns(const struct zoo_model *m,
			   const struct dev_profile *d, int batch)
{
	struct infer_parts p;

	infer_parts(m, d, batch, &p);
	return ns_of(p.t0_ns + fmax(p.tc_ns, p.tm_ns));
}

/* The SM fraction a unit of `flops` can fill: W / (W + W_half), W_half the
** work that takes as long as the device's fixed overhead (MODEL.md
** "Work profiles"; an assumption, see there). */
static double sat_of(double flops, double flops_half)
{
	double s = flops / (flops + flops_half);

	return s < 0.01 ? 0.01 : s > 1 ? 1 : s;
}

void wl_infer_profile(const struct zoo_model *m, const struct dev_profile *d,
		      int batch, struct gpu_work_profile *out)
{
	struct infer_parts p;
	double l_ns;

	infer_parts(m, d, batch, &p);
	l_ns = p.t0_ns + fmax(p.tc_ns, p.tm_ns);
	out->alpha = p.tc_ns / (p.tc_ns + p.tm_ns);
	out->sat = sat_of(p.flops, p.flops_half);
	out->bw_frac = fmin(1.0, p.tm_ns / l_ns);
	/* a batch is one work unit the world starts when requests are
	** there: its host-side gaps are inside t0, not fillable idle time */
	out->duty = 1.0;
	out->has_res = 0;
	out->res_ms[0] = out->res_ms[1] = out->res_ms[2] = 0;
	out->iter_ms = 0;
}

uint64_t wl_infer_memory(const struct zoo_model *m,
			 const struct dev_profile *d, int max_batch)
{
	if (max_batch < 1)
		max_batch = 1;
	/* FP16 weights + the FP16 activations of the largest batch */
	return d->ctx_bytes + 2 * m->params +
	       (uint64_t)max_batch * (m->act_infer_bytes / 2);
}

/* Training times of one iteration. */
struct train_parts {
	double tc_ns, tm_ns, flops, flops_half;
	double host_ns, eta_scale;    /* the model's measured fit (or rule) */
};

/* The parts with the model's fit given (wl_train_fit_of's answer). */
static void train_parts_fit(const struct zoo_model *m,
			    const struct dev_profile *d, int batch,
			    enum wl_precision prec,
			    const struct wl_train_fit *fit,
			    struct train_parts *p)
{
	struct wl_infer_curve c;
	int mixed = prec == WL_PREC_MIXED;
	double peak = mixed ? d->fp16_flops : d->fp32_flops;
	double eta = mixed ? WL_ETA_TRAIN_MIXED : WL_ETA_TRAIN_FP32;
	double act = (double)m->act_train_bytes * (mixed ? 0.5 : 1);
	double bytes;

	if (batch < 1)
		batch = 1;
	/* a device without tensor cores runs mixed precision at its FP32
	** rate (e.g. K80, P100's FP16 is not a training path in PyTorch) */
	if (!(peak > 0))
		peak = d->fp32_flops;
	p->flops = WL_TRAIN_FLOP_FACTOR * batch * m->fwd_flops;
	p->tc_ns = p->flops / (peak * eta) * 1e9;
	/* activations written in forward and read in backward; weights
	** read twice (forward, backward); the optimizer reads and writes
	** all state once */
	bytes = 2.0 * act * batch +
		(double)m->params * (2.0 * (mixed ? 2 : 4) +
		2.0 * wl_state_bytes_per_param(WL_OPT_MOMENTUM, prec));
	p->tm_ns = bytes / d->hbm_bw_bytes_per_s * 1e9;
	wl_infer_curve_of(d, &c);
	p->flops_half = c.t0_ns * 1e-9 * fp16_peak(d) * c.eta;
	p->host_ns = fit->host_ns;
	p->eta_scale = fit->eta_scale;
}

static void train_parts(const struct zoo_model *m, const struct dev_profile *d,
			int batch, enum wl_precision prec, struct train_parts *p)
{
	struct wl_train_fit fit;

	wl_train_fit_of(m, d, prec, &fit);
	train_parts_fit(m, d, batch, prec, &fit, p);
}

/* The GPU-busy part: the roofline max(tc, tm) scaled by the model's
** measured busy-time factor (MODEL.md, "Iteration time"). */
static double busy_ns(const struct train_parts *p)
{
	return p->eta_scale * fmax(p->tc_ns, p->tm_ns);
}

double wl_train_roofline_ns(const struct zoo_model *m,
			    const struct dev_profile *d, int batch,
			    enum wl_precision prec)
{
	struct train_parts p;

	train_parts(m, d, batch, prec, &p);
	return fmax(p.tc_ns, p.tm_ns);
}

sim_time wl_train_iter_ns(const struct zoo_model *m,
			  const struct dev_profile *d, int batch,
			  enum wl_precision prec)
{
	struct train_parts p;

	train_parts(m, d, batch, prec, &p);
	return ns_of(p.host_ns + busy_ns(&p));
}

/* wl_train_profile from the parts. */
static void profile_of(const struct train_parts *p,
		       struct gpu_work_profile *out)
{
	double busy;

	busy = busy_ns(p);
	out->alpha = p->tc_ns / (p->tc_ns + p->tm_ns);
	out->sat = sat_of(p->flops, p->flops_half);
	/* bandwidth while busy: tm's bytes over the (scaled) busy time */
	out->bw_frac = fmin(1.0, p->tm_ns / busy);
	out->duty = busy / (busy + p->host_ns);
	if (!(out->duty > 0) || out->duty > 1)
		out->duty = 1;
	out->has_res = 0;          /* the world adds a trace's res_*_ms */
	out->res_ms[0] = out->res_ms[1] = out->res_ms[2] = 0;
	out->iter_ms = 0;
}

void wl_train_profile(const struct zoo_model *m, const struct dev_profile *d,
		      int batch, enum wl_precision prec,
		      struct gpu_work_profile *out)
{
	struct train_parts p;

	train_parts(m, d, batch, prec, &p);
	profile_of(&p, out);
}

void wl_train_profile_measured_fit(const struct zoo_model *m,
				   const struct dev_profile *d, int batch,
				   enum wl_precision prec,
				   const struct wl_train_fit *fit,
				   double iter_ns, double gpu_util,
				   struct gpu_work_profile *out)
{
	struct train_parts p;

	train_parts_fit(m, d, batch, prec, fit, &p);
	profile_of(&p, out);
	if (gpu_util > 0) {
		out->duty = wl_duty_from_util(d, gpu_util);
		return;
	}
	if (iter_ns > 0) {
		out->duty = fmin(1.0, busy_ns(&p) / iter_ns);
		if (!(out->duty > 0))
			out->duty = 1;
	}
}

void wl_train_profile_measured(const struct zoo_model *m,
			       const struct dev_profile *d, int batch,
			       enum wl_precision prec, double iter_ns,
			       double gpu_util, struct gpu_work_profile *out)
{
	struct wl_train_fit fit;

	wl_train_fit_of(m, d, prec, &fit);
	wl_train_profile_measured_fit(m, d, batch, prec, &fit, iter_ns,
				      gpu_util, out);
}

double wl_duty_from_util(const struct dev_profile *d, double util)
{
	double a = d->util_duty_scale > 0 ? d->util_duty_scale : 1.0;
	double e = d->util_duty_exp > 0 ? d->util_duty_exp : 1.0;
	double x;

	if (!(util > 0))
		return 1e-3;
	x = a * pow(fmin(util, 1.0), e);
	return x < 1e-3 ? 1e-3 : x > 1 ? 1.0 : x;
}

uint64_t wl_allreduce_bytes(const struct zoo_model *m, enum wl_precision prec,
			    int gpus)
{
	double grad = (double)m->params * (prec == WL_PREC_MIXED ? 2 : 4);

	if (gpus <= 1)
		return 0;
	return (uint64_t)ceil(2.0 * (gpus - 1) / gpus * grad);
}

/*
** The fit memo.  Open addressing on (model, device, precision), load <=
** 1/2; a run meets a few models on a few devices, so the table stays at
** its first size.  Why: wl_train_fit_of scans the fitted table and, for
** a model without a row, takes medians over it (qsort, a token match per
** row), which was ~40% of a training replay's CPU when done per placement.
*/
void wl_fit_memo_init(struct wl_fit_memo *c)
{
	c->v = NULL;
	c->n = c->cap = 0;
}

void wl_fit_memo_fini(struct wl_fit_memo *c)
{
	if (c == NULL)
		return;
	free(c->v);
	wl_fit_memo_init(c);
}

static size_t memo_hash(const struct zoo_model *m,
			const struct dev_profile *d, enum wl_precision prec)
{
	uint64_t h = (uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uintptr_t)d * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t)prec * 0x165667b19e3779f9ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot of the key, or the empty slot where it goes. */
static struct wl_fit_memo_entry *memo_slot(struct wl_fit_memo_entry *v,
					   size_t cap,
					   const struct zoo_model *m,
					   const struct dev_profile *d,
					   enum wl_precision prec)
{
	size_t i = memo_hash(m, d, prec) & (cap - 1);

	while (v[i].m != NULL &&
	       !(v[i].m == m && v[i].d == d && v[i].prec == prec))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static int memo_grow(struct wl_fit_memo *c)
{
	size_t cap = c->cap ? 2 * c->cap : 64, i;
	struct wl_fit_memo_entry *v = calloc(cap, sizeof *v);

	if (v == NULL)
		return SIM_ENOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->v[i].m != NULL)
			*memo_slot(v, cap, c->v[i].m, c->v[i].d,
				   c->v[i].prec) = c->v[i];
	free(c->v);
	c->v = v;
	c->cap = cap;
	return 0;
}

const struct wl_train_fit *wl_fit_memo_get(struct wl_fit_memo *c,
					   const struct zoo_model *m,
					   const struct dev_profile *d,
					   enum wl_precision prec,
					   struct wl_train_fit *tmp)
{
	struct wl_fit_memo_entry *e;

	if (c->cap > 0) {
		e = memo_slot(c->v, c->cap, m, d, prec);
		if (e->m != NULL)
			return &e->fit;
	}
	if (2 * (c->n + 1) > c->cap && memo_grow(c) != 0) {
		wl_train_fit_of(m, d, prec, tmp);
		return tmp;
	}
	e = memo_slot(c->v, c->cap, m, d, prec);
	e->m = m;
	e->d = d;
	e->prec = prec;
	wl_train_fit_of(m, d, prec, &e->fit);
	c->n++;
	return &e->fit;
}
