/*
** colofit.c: the co-location fits and their held-out validation (see
** colofit.h; equations in docs/MODEL.md, results in docs/VALIDATION.md).
**
** Every prediction is made by the GPU model itself (models/gpu.c) on a
** scratch gpu, so the fitted constants mean exactly what a replay uses.
** GSL's error handler must be off (the command line turns it off at
** start-up); statuses are checked.  Deterministic: the data is read in a
** fixed order, groups and models are sorted by name, the bootstrap draws
** from a named random stream.
*/
#include "models/colofit.h"
#include "models/gpu.h"
#include "sim/rng.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* ---------------------------------------------------------------- solo */

/* Gavel's model column -> zoo model; Lucid's (model, dataset) -> zoo. */
static const char *const gavel_zoo[][2] = {
	{ "ResNet-18", "resnet18-cifar10" },
	{ "ResNet-50", "resnet50" },
	{ "Transformer", "transformer-multi30k" },
	{ "LM", "lstm-wikitext2" },
	{ "Recommendation", "autoencoder-ml20m" },
	{ "A3C", "a3c-pong" },
	{ "CycleGAN", "cyclegan" },
};

static const char *const gavel_dev[][2] = {
	{ "k80", "k80" }, { "p100", "p100" }, { "v100", "v100-16gb" },
};

static const char *const lucid_zoo[][3] = {
	{ "ResNet50", "ImageNet", "resnet50" },
	{ "ResNet18", "CIFAR-10", "resnet18-cifar10" },
	{ "Transformer", "Multi30k", "transformer-multi30k" },
	{ "LSTM", "Wikitext2", "lstm-wikitext2" },
	{ "VGG", "CIFAR-10", "vgg11-cifar10" },
	{ "MobileNetV2", "CIFAR-10", "mobilenetv2-cifar10" },
	{ "DCGAN", "LSUN", "dcgan-lsun" },
	{ "PointNet", "ShapeNet", "pointnet-shapenet" },
	{ "NeuMF", "MovieLens", "neumf-movielens" },
	{ "PPO", "LunarLander", "ppo-lunarlander" },
	{ "TD3", "BipedalWalker", "td3-bipedalwalker" },
};

static const char *map2(const char *const (*t)[2], size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i][0], k) == 0)
			return t[i][1];
	return NULL;
}

const struct zoo_model *colo_lucid_zoo(const struct meas_lucid_job *j)
{
	size_t i;

	for (i = 0; i < sizeof lucid_zoo / sizeof lucid_zoo[0]; i++)
		if (strcmp(lucid_zoo[i][0], j->model) == 0 &&
		    strcmp(lucid_zoo[i][1], j->dataset) == 0)
			return zoo_find(lucid_zoo[i][2]);
	return NULL;
}

/* The family token of a device profile name: its first token. */
static void family_of(const char *name, char *out, size_t n)
{
	size_t i;

	for (i = 0; name[i] != '\0' && name[i] != '-' && i + 1 < n; i++)
		out[i] = name[i];
	out[i] = '\0';
}

static int add_obs(struct colo_solo *s, size_t *cap, const char *set,
		   const struct dev_profile *d, const struct zoo_model *m,
		   enum wl_precision prec, int batch, double meas_ns, int line,
		   struct sim_err *err)
{
	struct colo_solo_obs *o;

	if (s->nobs == *cap) {
		size_t nc = *cap ? 2 * *cap : 128;
		void *p = realloc(s->obs, nc * sizeof *s->obs);

		if (p == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		s->obs = p;
		*cap = nc;
	}
	o = &s->obs[s->nobs++];
	memset(o, 0, sizeof *o);
	o->set = set;
	snprintf(o->dev, sizeof o->dev, "%s", d->name);
	o->m = m;
	o->prec = prec;
	o->batch = batch;
	o->meas_ns = meas_ns;
	o->roof_ns = wl_train_roofline_ns(m, d, batch, prec);
	o->line = line;
	return 0;
}

/* Weighted least squares of meas = host + eta roof over the observations
** idx[0..n) (weights 1/meas^2: relative errors), host >= 0.  The
** covariance is scaled by chisq / (n - 2) (the errors' scale is not
** known); 95% intervals with Student's t on n - 2 degrees of freedom.
** Two observations: the line through them (exact, no interval).  A
** negative intercept: the fit through the origin (host 0).  One
** observation: eta 1 and host = meas - roof (host 0 and eta = meas / roof
** when that is negative); exact. */
static void fit_group(struct colo_solo *s, const size_t *idx, size_t n,
		      struct colo_solo_fit *f)
{
	double x[64] = { 0 }, y[64] = { 0 }, w[64] = { 0 };
	double c0, c1, c00, c01, c11, chisq;
	size_t i;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		x[i] = s->obs[idx[i]].roof_ns;
		y[i] = s->obs[idx[i]].meas_ns;
		w[i] = 1.0 / (y[i] * y[i]);
	}
	f->npts = (int)n;
	f->exact = n < 3;
	if (n >= 3 && gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &c0, &c1, &c00,
				      &c01, &c11, &chisq) == GSL_SUCCESS &&
	    c0 >= 0 && c1 > 0) {
		double sc = chisq / (double)(n - 2);
		double tq = gsl_cdf_tdist_Pinv(0.975, (double)(n - 2));

		f->host_ns = c0;
		f->eta = c1;
		f->host_lo_ns = c0 - tq * sqrt(c00 * sc);
		f->host_hi_ns = c0 + tq * sqrt(c00 * sc);
		f->eta_lo = c1 - tq * sqrt(c11 * sc);
		f->eta_hi = c1 + tq * sqrt(c11 * sc);
		return;
	}
	if (n == 2 && x[1] != x[0]) {
		/* two points: the line through them when it is admissible */
		c1 = (y[1] - y[0]) / (x[1] - x[0]);
		c0 = y[0] - c1 * x[0];
		if (c0 >= 0 && c1 > 0) {
			f->host_ns = f->host_lo_ns = f->host_hi_ns = c0;
			f->eta = f->eta_lo = f->eta_hi = c1;
			f->exact = 1;
			return;
		}
	}
	if (n >= 2 && gsl_fit_wmul(x, 1, w, 1, y, 1, n, &c1, &c11, &chisq) ==
	    GSL_SUCCESS && c1 > 0) {
		/* through the origin: the intercept came out negative */
		double sc = chisq / (double)(n - 1);
		double tq = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1));

		f->host_ns = f->host_lo_ns = f->host_hi_ns = 0;
		f->eta = c1;
		f->eta_lo = c1 - tq * sqrt(c11 * sc);
		f->eta_hi = c1 + tq * sqrt(c11 * sc);
		f->exact = 0;
		return;
	}
	/* one point (or a degenerate fit): the host cost takes the gap */
	f->exact = 1;
	f->eta = 1.0;
	f->host_ns = y[0] - x[0];
	if (f->host_ns < 0) {
		f->host_ns = 0;
		f->eta = y[0] / x[0];
	}
	f->host_lo_ns = f->host_hi_ns = f->host_ns;
	f->eta_lo = f->eta_hi = f->eta;
}

static int same_group(const struct colo_solo_obs *a,
		      const struct colo_solo_obs *b)
{
	return a->m == b->m && a->prec == b->prec &&
	       strcmp(a->dev, b->dev) == 0;
}

int colo_fit_solo(const struct meas_set *ms, const struct dev_catalog *cat,
		  const char *date, struct colo_solo *out, size_t *skipped,
		  struct sim_err *err)
{
	size_t cap = 0, i, j, *idx = NULL, fcap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	*skipped = 0;
	for (i = 0; i < ms->ngavel; i++) {
		const struct meas_gavel *g = &ms->gavel[i];
		const char *zn = map2(gavel_zoo, sizeof gavel_zoo /
				      sizeof gavel_zoo[0], g->model);
		const char *dn = map2(gavel_dev, sizeof gavel_dev /
				      sizeof gavel_dev[0], g->gpu);
		const struct zoo_model *m = zn ? zoo_find(zn) : NULL;
		const struct dev_profile *d = dn ? dev_catalog_find(cat, dn) :
						 NULL;

		if (m == NULL || d == NULL) {
			(*skipped)++;
			continue;
		}
		rc = add_obs(out, &cap, "gavel", d, m, WL_PREC_FP32,
			     g->batch > 0 ? g->batch : m->default_batch,
			     1e9 / g->steps_per_s, g->line, err);
		if (rc != 0)
			goto fail;
	}
	for (i = 0; i < ms->nljobs; i++) {
		const struct meas_lucid_job *l = &ms->ljobs[i];
		const struct zoo_model *m = colo_lucid_zoo(l);
		const struct dev_profile *d = dev_catalog_find(cat, "rtx3090");

		if (m == NULL || d == NULL) {
			(*skipped)++;
			continue;
		}
		rc = add_obs(out, &cap, "lucid", d, m, l->amp ? WL_PREC_MIXED :
			     WL_PREC_FP32, l->batch, 1e9 * l->batch / l->speed,
			     l->line, err);
		if (rc != 0)
			goto fail;
	}
	idx = malloc((out->nobs + 1) * sizeof *idx);
	if (idx == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < out->nobs; i++) {
		size_t n = 0;
		struct colo_solo_fit *f;
		int seen = 0;

		for (j = 0; j < i; j++)
			if (same_group(&out->obs[j], &out->obs[i]))
				seen = 1;
		if (seen)
			continue;
		for (j = i; j < out->nobs; j++)
			if (same_group(&out->obs[j], &out->obs[i]))
				idx[n++] = j;
		if (out->nfits == fcap) {
			size_t nc = fcap ? 2 * fcap : 32;
			void *p = realloc(out->fits, nc * sizeof *out->fits);

			if (p == NULL) {
				rc = sim_err_set(err, SIM_ENOMEM, "out of "
						 "memory");
				goto fail;
			}
			out->fits = p;
			fcap = nc;
		}
		f = &out->fits[out->nfits++];
		memset(f, 0, sizeof *f);
		f->m = out->obs[i].m;
		f->prec = out->obs[i].prec;
		snprintf(f->dev, sizeof f->dev, "%s", out->obs[i].dev);
		family_of(f->dev, f->family, sizeof f->family);
		fit_group(out, idx, n, f);
		snprintf(f->source, sizeof f->source, "fitted %s solo %s %s "
			 "(%s): %d point%s%s", out->obs[i].set,
			 f->m->name, f->family, date, f->npts,
			 f->npts == 1 ? "" : "s",
			 f->exact ? ", exact" : ", wls 1/t^2");
		for (j = 0; j < n; j++) {
			struct colo_solo_obs *o = &out->obs[idx[j]];

			o->pred_ns = f->host_ns + f->eta * o->roof_ns;
		}
	}
	free(idx);
	return 0;
fail:
	free(idx);
	colo_solo_fini(out);
	return rc;
}

void colo_solo_fini(struct colo_solo *s)
{
	free(s->obs);
	free(s->fits);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------- Lucid pairs (TS) */

static void lucid_profile(const struct dev_profile *d,
			  const struct meas_lucid_job *j,
			  struct gpu_work_profile *p)
{
	p->alpha = 1.0;
	p->sat = 1.0;
	p->bw_frac = j->gpu_util > 0 ? fmin(1.0, j->mem_util / j->gpu_util)
				     : 0.0;
	p->duty = wl_duty_from_util(d, j->gpu_util);
}

void colo_lucid_pair(const struct dev_profile *d,
		     const struct meas_lucid_job *a,
		     const struct meas_lucid_job *b, double out[2])
{
	const struct meas_lucid_job *jobs[2] = { a, b };
	struct gpu_work_profile p[2];
	struct gpu_tenant t[2];
	struct gpu g;
	int k;

	gpu_init(&g, d, 0, 0, GPU_MODE_TIMESLICE, 0);
	for (k = 0; k < 2; k++) {
		memset(&t[k], 0, sizeof t[k]);
		t[k].id = k;
		t[k].sm_cap = 1;
		t[k].slice = -1;
		lucid_profile(d, jobs[k], &p[k]);
		(void)gpu_attach(&g, &t[k], 0, 1, NULL);
		gpu_begin(&g, &t[k], 1e12, &p[k], 0);
	}
	/* alone each runs at 1 (the busy part alone at rate 1): the
	** co-located speed is the normalized speed */
	out[0] = t[0].speed;
	out[1] = t[1].speed;
	gpu_fini(&g);
}

struct lucid_data {
	const struct meas_set *ms;
	const size_t *rows;
	size_t nrows;
	struct dev_profile d;         /* scratch copy of the base */
};

static void set_params(struct dev_profile *d, const gsl_vector *x)
{
	d->util_duty_scale = fmax(1e-3, gsl_vector_get(x, 0));
	d->util_duty_exp = fmax(1e-3, gsl_vector_get(x, 1));
	d->ts_mem_contention_k = fmax(0.0, gsl_vector_get(x, 2));
}

static int lucid_f(const gsl_vector *x, void *data, gsl_vector *f)
{
	struct lucid_data *ld = data;
	size_t i;

	set_params(&ld->d, x);
	for (i = 0; i < ld->nrows; i++) {
		const struct meas_lucid_pair *p = &ld->ms->lpairs[ld->rows[i]];
		double v[2];

		colo_lucid_pair(&ld->d, &ld->ms->ljobs[p->j1],
				&ld->ms->ljobs[p->j2], v);
		gsl_vector_set(f, 2 * i, v[0] - p->norm1);
		gsl_vector_set(f, 2 * i + 1, v[1] - p->norm2);
	}
	return GSL_SUCCESS;
}

int colo_fit_lucid(const struct meas_set *ms, const struct dev_profile *base,
		   const unsigned char *keep, struct colo_ts_params *out,
		   struct sim_err *err)
{
	const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
	gsl_multifit_nlinear_parameters fp =
		gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_multifit_nlinear_fdf fdf;
	gsl_vector *x0 = NULL;
	gsl_matrix *covar = NULL;
	struct lucid_data ld;
	size_t *rows, i, n = 0;
	double tq;
	int info, rc = 0, k;

	memset(out, 0, sizeof *out);
	rows = malloc((ms->nlpairs + 1) * sizeof *rows);
	if (rows == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (i = 0; i < ms->nlpairs; i++)
		if (keep == NULL || keep[i])
			rows[n++] = i;
	if (n < 4) {
		free(rows);
		return sim_err_set(err, SIM_EINVAL, "Lucid fit: %zu pairs, at "
				   "least 4 needed", n);
	}
	ld.ms = ms;
	ld.rows = rows;
	ld.nrows = n;
	ld.d = *base;
	fdf.f = lucid_f;
	fdf.df = NULL;                /* finite differences */
	fdf.fvv = NULL;
	fdf.n = 2 * n;
	fdf.p = 3;
	fdf.params = &ld;
	x0 = gsl_vector_alloc(3);
	covar = gsl_matrix_alloc(3, 3);
	w = gsl_multifit_nlinear_alloc(T, &fp, 2 * n, 3);
	if (x0 == NULL || covar == NULL || w == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	gsl_vector_set(x0, 0, base->util_duty_scale > 0 ?
		       base->util_duty_scale : 0.8);
	gsl_vector_set(x0, 1, base->util_duty_exp > 0 ?
		       base->util_duty_exp : 1.0);
	gsl_vector_set(x0, 2, base->ts_mem_contention_k);
	if (gsl_multifit_nlinear_init(x0, &fdf, w) != GSL_SUCCESS) {
		rc = sim_err_set(err, SIM_ELIB, "Lucid fit: GSL init failed");
		goto out;
	}
	out->status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10,
						  NULL, NULL, &info, w);
	if (out->status != GSL_SUCCESS && out->status != GSL_EMAXITER) {
		rc = sim_err_set(err, SIM_ELIB, "Lucid fit: %s",
				 gsl_strerror(out->status));
		goto out;
	}
	gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, covar);
	{
		gsl_vector *f = gsl_multifit_nlinear_residual(w);
		double chisq;

		gsl_blas_ddot(f, f, &chisq);
		out->chisq = chisq;
	}
	out->n = 2 * n;
	set_params(&ld.d, gsl_multifit_nlinear_position(w));
	out->scale = ld.d.util_duty_scale;
	out->expo = ld.d.util_duty_exp;
	out->kappa = ld.d.ts_mem_contention_k;
	tq = gsl_cdf_tdist_Pinv(0.975, (double)(2 * n - 3));
	for (k = 0; k < 3; k++) {
		double v = (k == 0 ? out->scale : k == 1 ? out->expo :
			    out->kappa);

		out->se[k] = sqrt(gsl_matrix_get(covar, (size_t)k, (size_t)k) *
				  out->chisq / (double)(2 * n - 3));
		out->lo[k] = v - tq * out->se[k];
		out->hi[k] = v + tq * out->se[k];
	}
out:
	gsl_multifit_nlinear_free(w);
	gsl_matrix_free(covar);
	gsl_vector_free(x0);
	free(rows);
	return rc;
}

void colo_lucid_group(const struct meas_set *ms, size_t i, char *buf,
		      size_t n)
{
	const char *a = ms->ljobs[ms->lpairs[i].j1].model;
	const char *b = ms->ljobs[ms->lpairs[i].j2].model;

	if (strcmp(a, b) > 0) {
		const char *t = a;

		a = b;
		b = t;
	}
	snprintf(buf, n, "%s+%s", a, b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int colo_lucid_kfold(const struct meas_set *ms, const struct dev_profile *base,
		     int k, struct colo_fold *folds, struct sim_err *err)
{
	char (*grp)[2 * MEAS_NAME_MAX + 2] = NULL;
	const char **names = NULL;
	int *fold_of = NULL;
	unsigned char *keep = NULL;
	double *ev = NULL, *pc = NULL, *mc = NULL, *work = NULL;
	size_t i, j, ng = 0;
	int f, rc = 0;

	if (k < 2)
		return sim_err_set(err, SIM_EINVAL, "k-fold: k = %d < 2", k);
	grp = calloc(ms->nlpairs + 1, sizeof *grp);
	names = calloc(ms->nlpairs + 1, sizeof *names);
	fold_of = calloc(ms->nlpairs + 1, sizeof *fold_of);
	keep = calloc(ms->nlpairs + 1, 1);
	ev = calloc(2 * ms->nlpairs + 1, sizeof *ev);
	pc = calloc(ms->nlpairs + 1, sizeof *pc);
	mc = calloc(ms->nlpairs + 1, sizeof *mc);
	work = calloc(2 * ms->nlpairs + 2, sizeof *work);
	if (!grp || !names || !fold_of || !keep || !ev || !pc || !mc ||
	    !work) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ms->nlpairs; i++) {
		int seen = 0;

		colo_lucid_group(ms, i, grp[i], sizeof grp[i]);
		for (j = 0; j < ng; j++)
			if (strcmp(names[j], grp[i]) == 0)
				seen = 1;
		if (!seen)
			names[ng++] = grp[i];
	}
	qsort(names, ng, sizeof *names, cmp_str);
	for (i = 0; i < ms->nlpairs; i++)
		for (j = 0; j < ng; j++)
			if (strcmp(names[j], grp[i]) == 0)
				fold_of[i] = (int)(j % (size_t)k);
	for (f = 0; f < k; f++) {
		struct colo_fold *o = &folds[f];
		struct dev_profile d = *base;
		size_t ne = 0, np = 0;

		memset(o, 0, sizeof *o);
		for (j = 0; j < ng; j++)
			if ((int)(j % (size_t)k) == f)
				o->ngroups++;
		for (i = 0; i < ms->nlpairs; i++)
			keep[i] = fold_of[i] != f;
		rc = colo_fit_lucid(ms, base, keep, &o->p, err);
		if (rc != 0)
			goto out;
		d.util_duty_scale = o->p.scale;
		d.util_duty_exp = o->p.expo;
		d.ts_mem_contention_k = o->p.kappa;
		for (i = 0; i < ms->nlpairs; i++) {
			const struct meas_lucid_pair *p = &ms->lpairs[i];
			double v[2];

			if (keep[i])
				continue;
			colo_lucid_pair(&d, &ms->ljobs[p->j1],
					&ms->ljobs[p->j2], v);
			ev[ne++] = fabs(v[0] - p->norm1);
			ev[ne++] = fabs(v[1] - p->norm2);
			pc[np] = v[0] + v[1];
			mc[np] = p->norm1 + p->norm2;
			np++;
		}
		o->npairs = np;
		gsl_sort(ev, 1, ne);
		o->med_abs_err = gsl_stats_median_from_sorted_data(ev, 1, ne);
		o->spearman = np > 2 ? gsl_stats_spearman(pc, 1, mc, 1, np,
							  work) : (double)NAN;
	}
out:
	free(grp);
	free(names);
	free(fold_of);
	free(keep);
	free(ev);
	free(pc);
	free(mc);
	free(work);
	return rc;
}

/* ---------------------------------------------------------------- MIG */

/* The SMs of the 7g.40gb slice from the profile (colo_fit_mig checks
** that it has one before anything below runs). */
static double sms_7g(const struct dev_profile *a100)
{
	int p = dev_mig_find(a100, "7g.40gb");

	assert(p >= 0);
	return (double)a100->mig[p].sms;
}

/* The A100 slices' speed ratio T(7g) / T(slice) that the GPU model
** predicts for a job with non-scaling fraction x at 7g and weight w. */
static double mig_ratio(const struct dev_profile *a100, double w, double x,
			const char *slice)
{
	static const char *const full[] = { "7g.40gb" };
	const char *one[1];
	struct dev_profile d = *a100;
	struct gpu_work_profile p = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 1.0, .duty = 1.0
	};
	struct gpu_tenant t;
	struct gpu g;
	double s7, busy, d_full, v[2];
	int k;

	d.mig_bw_weight = w;
	/* the 7g stretch (its SMs of the device's: 98 of 108 on the A100,
	** all the bandwidth) gives the duty on the whole device from the
	** measured fraction at 7g */
	s7 = (1 - w) * fmax(1.0, (double)d.sms / sms_7g(&d)) + w;
	busy = (1 - x) / s7;
	d_full = busy / (x + busy);
	p.duty = d_full > 0 ? d_full : 1e-6;
	for (k = 0; k < 2; k++) {
		one[0] = k == 0 ? full[0] : slice;
		gpu_init(&g, &d, 0, 0, GPU_MODE_MIG, 0);
		if (gpu_set_mig_layout(&g, one, 1, 0, NULL) != 0) {
			gpu_fini(&g);
			return (double)NAN;
		}
		memset(&t, 0, sizeof t);
		t.sm_cap = 1;
		t.slice = 0;
		(void)gpu_attach(&g, &t, 0, 1, NULL);
		gpu_begin(&g, &t, 1e12, &p, 0);
		v[k] = t.speed;
		gpu_fini(&g);
	}
	return v[1] / v[0];
}

/* The median of v[0..n) (sorted in place); NaN when n = 0. */
static double median(double *v, size_t n)
{
	if (n == 0)
		return (double)NAN;
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Mean absolute relative error over the observations of the models with
** use[model] != 0 (weights: how many times a model is drawn). */
static double mig_loss(const struct dev_profile *a100, struct colo_mig *m,
		       const int *use, double w)
{
	double s = 0, n = 0;
	size_t i;
	int k;

	for (i = 0; i < m->nobs; i++) {
		struct colo_mig_obs *o = &m->obs[i];

		for (k = 0; k < m->nmodels; k++)
			if (strcmp(m->models[k], o->model) == 0)
				break;
		if (k == m->nmodels || use[k] == 0)
			continue;
		o->pred = mig_ratio(a100, w, o->fixed_frac, o->slice);
		s += use[k] * fabs(o->pred - o->meas) / o->meas;
		n += use[k];
	}
	return n > 0 ? s / n : (double)NAN;
}

/* The w in [0, 1] of least mig_loss: a grid of 0.01, then golden
** section in the best cell's neighbourhood. */
static double mig_argmin(const struct dev_profile *a100, struct colo_mig *m,
			 const int *use)
{
	const double gr = 0.6180339887498949;
	double best = 0, bl = INFINITY, a, b, c, dd, fc, fd;
	int i, it;

	for (i = 0; i <= 100; i++) {
		double l = mig_loss(a100, m, use, i / 100.0);

		if (l < bl) {
			bl = l;
			best = i / 100.0;
		}
	}
	a = fmax(0.0, best - 0.01);
	b = fmin(1.0, best + 0.01);
	c = b - gr * (b - a);
	dd = a + gr * (b - a);
	fc = mig_loss(a100, m, use, c);
	fd = mig_loss(a100, m, use, dd);
	for (it = 0; it < 40; it++) {
		if (fc < fd) {
			b = dd;
			dd = c;
			fd = fc;
			c = b - gr * (b - a);
			fc = mig_loss(a100, m, use, c);
		} else {
			a = c;
			c = dd;
			fc = fd;
			dd = a + gr * (b - a);
			fd = mig_loss(a100, m, use, dd);
		}
	}
	return 0.5 * (a + b);
}

/* Weighted linear fit of T(7g) over the batch per model: the intercept
** (at least 0) is the model's fixed, non-scaling time per iteration. */
static double model_t0(const struct meas_set *ms, const char *model)
{
	double x[64], y[64], w[64], c0, c1, c00, c01, c11, chisq;
	size_t i, n = 0;

	for (i = 0; i < ms->nmiso && n < 64; i++) {
		const struct meas_miso *o = &ms->miso[i];

		if (strcmp(o->model, model) != 0 || strcmp(o->slice, "7g.40gb"))
			continue;
		x[n] = o->batch;
		y[n] = o->iter_s;
		w[n] = 1.0 / (y[n] * y[n]);
		n++;
	}
	if (n < 2 || gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &c0, &c1, &c00, &c01,
				     &c11, &chisq) != GSL_SUCCESS)
		return 0;
	return c0 > 0 ? c0 : 0;
}

static double t7_of(const struct meas_set *ms, const char *model, int batch)
{
	size_t i;

	for (i = 0; i < ms->nmiso; i++)
		if (strcmp(ms->miso[i].model, model) == 0 &&
		    ms->miso[i].batch == batch &&
		    strcmp(ms->miso[i].slice, "7g.40gb") == 0)
			return ms->miso[i].iter_s;
	return -1;
}

/* Per-job Amdahl T(s)/T(7g) = rho + (1 - rho) S7 / S_s with rho fitted in
** sample (least absolute relative error on a grid): the best a one-
** parameter-per-job form can do, for comparison. */
static double per_job_err(const struct dev_profile *a100, struct colo_mig *m)
{
	double *e = malloc((m->nobs + 1) * sizeof *e);
	size_t i, j, ne = 0;
	double r;

	if (e == NULL)
		return (double)NAN;
	for (i = 0; i < m->nobs; i++) {
		const struct colo_mig_obs *o = &m->obs[i];
		double best = INFINITY, brho = 0;
		int g;

		for (j = 0; j < i; j++)
			if (strcmp(m->obs[j].model, o->model) == 0 &&
			    m->obs[j].batch == o->batch)
				break;
		if (j < i)
			continue;
		for (g = 0; g <= 1000; g++) {
			double rho = g / 1000.0, l = 0;

			for (j = i; j < m->nobs; j++) {
				const struct colo_mig_obs *q = &m->obs[j];
				int p = dev_mig_find(a100, q->slice);
				double s7 = sms_7g(a100), ss, pr;

				if (strcmp(q->model, o->model) ||
				    q->batch != o->batch || p < 0)
					continue;
				ss = a100->mig[p].sms;
				pr = 1.0 / (rho + (1 - rho) * s7 / ss);
				l += fabs(pr - q->meas) / q->meas;
			}
			if (l < best) {
				best = l;
				brho = rho;
			}
		}
		for (j = i; j < m->nobs; j++) {
			const struct colo_mig_obs *q = &m->obs[j];
			int p = dev_mig_find(a100, q->slice);
			double pr;

			if (strcmp(q->model, o->model) || q->batch != o->batch ||
			    p < 0)
				continue;
			pr = 1.0 / (brho + (1 - brho) * sms_7g(a100) /
				    a100->mig[p].sms);
			e[ne++] = fabs(pr - q->meas) / q->meas;
		}
	}
	r = median(e, ne);
	free(e);
	return r;
}

/* The observations: every job with a 7g.40gb log, on each other slice,
** as its speed relative to 7g and its fixed (non-scaling) fraction. */
static int mig_collect(const struct meas_set *ms,
		       const struct dev_profile *a100, struct colo_mig *out,
		       struct sim_err *err)
{
	size_t i;
	int k;

	for (i = 0; i < ms->nmiso; i++) {
		const struct meas_miso *o = &ms->miso[i];
		double t7 = t7_of(ms, o->model, o->batch), t0;
		struct colo_mig_obs *q;

		if (t7 <= 0 || strcmp(o->slice, "7g.40gb") == 0 ||
		    dev_mig_find(a100, o->slice) < 0)
			continue;
		for (k = 0; k < out->nmodels; k++)
			if (strcmp(out->models[k], o->model) == 0)
				break;
		if (k == out->nmodels) {
			if (out->nmodels == 16)
				return sim_err_set(err, SIM_ERANGE, "MISO: "
						   "more than 16 models");
			snprintf(out->models[out->nmodels++], MEAS_NAME_MAX,
				 "%s", o->model);
		}
		t0 = model_t0(ms, o->model);
		q = &out->obs[out->nobs++];
		snprintf(q->model, sizeof q->model, "%s", o->model);
		snprintf(q->slice, sizeof q->slice, "%s", o->slice);
		q->batch = o->batch;
		q->fixed_frac = fmin(0.999, t0 / t7);
		q->meas = t7 / o->iter_s;
	}
	if (out->nobs == 0)
		return sim_err_set(err, SIM_ENOENT, "MISO: no job with a "
				   "7g.40gb log and another slice");
	return 0;
}

/* |pred - meas| / meas of observation i at the last mig_loss. */
static double mig_rel_err(const struct colo_mig *m, size_t i)
{
	return fabs(m->obs[i].pred - m->obs[i].meas) / m->obs[i].meas;
}

/* Median relative error over every observation at weight w. */
static double mig_med_err(const struct dev_profile *a100, struct colo_mig *m,
			  const int *use, double w, double *e)
{
	size_t i;

	(void)mig_loss(a100, m, use, w);
	for (i = 0; i < m->nobs; i++)
		e[i] = mig_rel_err(m, i);
	return median(e, m->nobs);
}

/* The 95% interval of w: 200 bootstrap resamples over models. */
static int mig_bootstrap(const struct dev_profile *a100, struct colo_mig *out,
			 struct sim_err *err)
{
	struct sim_rng rng;
	double boot[200];
	int use[16], b, k, rc;

	if ((rc = sim_rng_init(&rng, 20261202, "mig-bootstrap", 0, err)) != 0)
		return rc;
	for (b = 0; b < 200; b++) {
		for (k = 0; k < out->nmodels; k++)
			use[k] = 0;
		for (k = 0; k < out->nmodels; k++)
			use[gsl_rng_uniform_int(rng.r,
						(unsigned long)out->nmodels)]++;
		boot[b] = mig_argmin(a100, out, use);
	}
	sim_rng_fini(&rng);
	gsl_sort(boot, 1, 200);
	out->w_lo = boot[4];          /* 2.5% and 97.5% of 200 */
	out->w_hi = boot[194];
	return 0;
}

/* Leave one model out: w fitted on the others, errors on the model left
** out (e holds every observation's error in model order). */
static void mig_lomo(const struct dev_profile *a100, struct colo_mig *out,
		     double *e)
{
	size_t i, ne = 0;
	int k, j;

	for (k = 0; k < out->nmodels; k++) {
		int u[16];
		size_t first = ne;

		for (j = 0; j < out->nmodels; j++)
			u[j] = j != k;
		out->lomo_w[k] = mig_argmin(a100, out, u);
		for (j = 0; j < out->nmodels; j++)
			u[j] = j == k;
		(void)mig_loss(a100, out, u, out->lomo_w[k]);
		for (i = 0; i < out->nobs; i++)
			if (strcmp(out->obs[i].model, out->models[k]) == 0)
				e[ne++] = mig_rel_err(out, i);
		{
			double tmp[256];
			size_t t, nk = ne - first;

			for (t = 0; t < nk && t < 256; t++)
				tmp[t] = e[first + t];
			out->lomo_model_err[k] = median(tmp, nk < 256 ? nk :
							256);
		}
	}
	out->lomo_med_rel_err = median(e, ne);
}

int colo_fit_mig(const struct meas_set *ms, const struct dev_profile *a100,
		 struct colo_mig *out, struct sim_err *err)
{
	int use[16], k, rc = 0;
	double *e = NULL;

	memset(out, 0, sizeof *out);
	if (dev_mig_find(a100, "7g.40gb") < 0)
		return sim_err_set(err, SIM_EINVAL, "%s: no 7g.40gb MIG "
				   "profile (the MISO logs are A100-40GB)",
				   a100->name);
	out->obs = calloc(ms->nmiso + 1, sizeof *out->obs);
	e = calloc(ms->nmiso + 1, sizeof *e);
	if (out->obs == NULL || e == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = mig_collect(ms, a100, out, err)) != 0)
		goto fail;
	for (k = 0; k < out->nmodels; k++)
		use[k] = 1;
	out->w = mig_argmin(a100, out, use);
	out->sm_only_med_rel_err = mig_med_err(a100, out, use, 0.0, e);
	out->med_rel_err = mig_med_err(a100, out, use, out->w, e);
	if ((rc = mig_bootstrap(a100, out, err)) != 0)
		goto fail;
	mig_lomo(a100, out, e);
	/* leave the predictions at the full fit */
	(void)mig_loss(a100, out, use, out->w);
	out->per_job_med_rel_err = per_job_err(a100, out);
	free(e);
	return 0;
fail:
	free(e);
	colo_mig_fini(out);
	return rc;
}

void colo_mig_fini(struct colo_mig *m)
{
	free(m->obs);
	memset(m, 0, sizeof *m);
}
