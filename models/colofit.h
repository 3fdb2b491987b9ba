/*
** colofit.h: fitting the co-location models on public measurements and
** validating them on held-out splits (docs/MODEL.md, "Duty cycles", "MIG",
** "Iteration time"; docs/VALIDATION.md).
**
** Three fits, each on the data named, nothing else:
**   - solo: per (model, device family, precision) a host cost per
**     iteration and a busy-time factor, t = host + eta x roofline, by
**     weighted least squares on Gavel's solo throughputs (K80, P100, V100)
**     and Lucid's solo speeds (RTX 3090) of the zoo's models;
**   - Lucid pairs (time slicing, RTX 3090): the utilisation -> duty map
**     (scale, exponent) and the bandwidth interference of time slicing,
**     by nonlinear least squares (GSL multifit_nlinear) of the GPU
**     model's normalized speeds on the measured ones; group k-fold by
**     model pair;
**   - MISO (MIG, A100-40GB): the bandwidth weight of the slice stretch,
**     by least absolute relative error; leave-one-model-out.
** Every prediction goes through models/gpu.c, the code a replay runs.
** Pure computation: no printing; results are owned by the structs and
** freed by the *_fini functions.  Gavel's or anyone's pairwise co-location
** measurements are never read here: they are a test set.
*/
#ifndef COLOSIM_MODELS_COLOFIT_H
#define COLOSIM_MODELS_COLOFIT_H

#include <stddef.h>

#include "models/device.h"
#include "models/meas.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "sim/err.h"

/* ---- solo fits ---- */

struct colo_solo_obs {
	const char *set;              /* "gavel" or "lucid" */
	char dev[DEV_NAME_MAX];       /* profile name: "v100-16gb" */
	const struct zoo_model *m;
	enum wl_precision prec;
	int batch;
	double meas_ns, roof_ns, pred_ns;   /* iteration times */
	int line;                     /* in the measurement file */
};

struct colo_solo_fit {
	const struct zoo_model *m;
	char dev[DEV_NAME_MAX], family[16];
	enum wl_precision prec;
	double host_ns, host_lo_ns, host_hi_ns;
	double eta, eta_lo, eta_hi;
	int npts;
	int exact;                    /* one point: no interval */
	char source[200];
};

struct colo_solo {
	struct colo_solo_obs *obs;
	size_t nobs;
	struct colo_solo_fit *fits;
	size_t nfits;
};

/* The zoo model of a Lucid job, or NULL when the zoo has none. */
const struct zoo_model *colo_lucid_zoo(const struct meas_lucid_job *j);

/* Fits every (model, device, precision) of the Gavel and Lucid solo rows
** that the zoo and the catalog can express (K80 -> k80, P100 -> p100,
** V100 -> v100-16gb, Lucid -> rtx3090).  date goes into the sources.
** Rows the zoo cannot express are skipped (count in *skipped). */
int colo_fit_solo(const struct meas_set *ms, const struct dev_catalog *cat,
		  const char *date, struct colo_solo *out, size_t *skipped,
		  struct sim_err *err);
void colo_solo_fini(struct colo_solo *s);

/* ---- Lucid pairs: time slicing ---- */

struct colo_ts_params {
	double scale, expo, kappa;    /* util_duty_scale, util_duty_exp,
					 ts_mem_contention_k */
	double se[3];                 /* standard errors */
	double lo[3], hi[3];          /* 95% intervals */
	double chisq;
	size_t n;                     /* residuals (2 per pair) */
	int status;                   /* GSL status of the solver */
};

/* The normalized speeds (co-located over solo) of Lucid jobs a and b on
** device d under time slicing, through the GPU model. */
void colo_lucid_pair(const struct dev_profile *d,
		     const struct meas_lucid_job *a,
		     const struct meas_lucid_job *b, double out[2]);

/* Fits the three parameters on the pairs whose index has keep[i] != 0
** (NULL: all), starting from base's values. */
int colo_fit_lucid(const struct meas_set *ms, const struct dev_profile *base,
		   const unsigned char *keep, struct colo_ts_params *out,
		   struct sim_err *err);

/* The group of pair i: the unordered pair of model names. */
void colo_lucid_group(const struct meas_set *ms, size_t i, char *buf,
		      size_t n);

struct colo_fold {
	int ngroups;
	size_t npairs;
	double med_abs_err;           /* per-job normalized speed */
	double spearman;              /* of the pair's combined speed */
	struct colo_ts_params p;      /* fitted on the other folds */
};

/* Group k-fold: the groups sorted by name, group g in fold g mod k. */
int colo_lucid_kfold(const struct meas_set *ms, const struct dev_profile *base,
		     int k, struct colo_fold *folds, struct sim_err *err);

/* ---- MISO: MIG ---- */

struct colo_mig_obs {
	char model[MEAS_NAME_MAX], slice[16];
	int batch;
	double fixed_frac;            /* t0 / T(7g): the non-scaling part */
	double meas;                  /* T(7g) / T(slice) */
	double pred;
};

struct colo_mig {
	double w, w_lo, w_hi;         /* mig_bw_weight and its 95% interval
					 (bootstrap over models) */
	struct colo_mig_obs *obs;
	size_t nobs;
	double med_rel_err;           /* in-sample */
	double lomo_med_rel_err;      /* leave-one-model-out */
	char models[16][MEAS_NAME_MAX];
	double lomo_model_err[16];    /* median per held-out model */
	double lomo_w[16];
	int nmodels;
	double sm_only_med_rel_err;   /* w = 0: Amdahl in SMs alone */
	double per_job_med_rel_err;   /* Amdahl with a per-job serial
					 fraction fitted in sample */
};

int colo_fit_mig(const struct meas_set *ms, const struct dev_profile *a100,
		 struct colo_mig *out, struct sim_err *err);
void colo_mig_fini(struct colo_mig *m);

#endif
