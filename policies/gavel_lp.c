/*
** gavel_lp.c: Gavel's allocation programs through GLPK (gavel_lp.h).
**
** Columns: x[i][j] (1 + i m + j), then one objective column (t or z).
** Rows: m capacity rows, n "one" rows, n objective rows.  Interior point
** (GLPK's primal-dual method, glp_interior) by default: among the many
** optimal allocations of a max-min program it returns one in the middle
** of the optimal face, as Gavel's ECOS (an interior-point cone solver)
** does; the simplex returns a vertex of it.
*/
#include "policies/gavel_lp.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>

#include "policies/policy.h"

void gv_isolated(const struct gv_lp_in *in, double *iso)
{
	double N = 0, W = 0, t;
	int i, j;

	for (j = 0; j < in->m; j++)
		N += in->ngpus[j];
	for (i = 0; i < in->n; i++)
		W += in->w[i];
	t = W > 0 ? N / W : 0;
	for (i = 0; i < in->n; i++)
		if ((double)in->sf[i] / in->w[i] < t)
			t = (double)in->sf[i] / in->w[i];
	for (i = 0; i < in->n; i++) {
		double share = t * in->w[i] / in->sf[i], s = 0;
		for (j = 0; j < in->m; j++)
			s += in->tput[i * in->m + j] * in->ngpus[j] / N;
		iso[i] = share * s;
	}
}

/* Loads the base constraints and the objective rows' coefficients
** coef[i m + j] (column x) and ocoef[i] (the objective column) into lp. */
static int load(glp_prob *lp, const struct gv_lp_in *in, const double *coef,
		const double *ocoef)
{
	int n = in->n, m = in->m, nx = n * m, ne = 0, i, j;
	int *ia = malloc((size_t)(3 * nx + n + 1) * sizeof *ia);
	int *ja = malloc((size_t)(3 * nx + n + 1) * sizeof *ja);
	double *ar = malloc((size_t)(3 * nx + n + 1) * sizeof *ar);

	if (ia == NULL || ja == NULL || ar == NULL) {
		free(ia);
		free(ja);
		free(ar);
		return SIM_ENOMEM;
	}
	glp_add_rows(lp, m + 2 * n);
	glp_add_cols(lp, nx + 1);
	for (j = 0; j < m; j++)
		glp_set_row_bnds(lp, 1 + j, GLP_UP, 0, in->ngpus[j]);
	for (i = 0; i < n; i++) {
		glp_set_row_bnds(lp, 1 + m + i, GLP_UP, 0, 1);
		glp_set_row_bnds(lp, 1 + m + n + i, GLP_LO, 0, 0);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++) {
			int c = 1 + i * m + j;
			if (in->tput[i * m + j] > 0)
				glp_set_col_bnds(lp, c, GLP_LO, 0, 0);
			else
				glp_set_col_bnds(lp, c, GLP_FX, 0, 0);
			ne++, ia[ne] = 1 + j, ja[ne] = c, ar[ne] = in->sf[i];
			ne++, ia[ne] = 1 + m + i, ja[ne] = c, ar[ne] = 1;
			if (coef[i * m + j] != 0) {
				ne++;
				ia[ne] = 1 + m + n + i;
				ja[ne] = c;
				ar[ne] = coef[i * m + j];
			}
		}
	glp_set_col_bnds(lp, nx + 1, GLP_LO, 0, 0);
	for (i = 0; i < n; i++)
		if (ocoef[i] != 0) {
			ne++;
			ia[ne] = 1 + m + n + i;
			ja[ne] = nx + 1;
			ar[ne] = ocoef[i];
		}
	glp_load_matrix(lp, ne, ia, ja, ar);
	free(ia);
	free(ja);
	free(ar);
	return 0;
}

/* Solves lp; 1 optimal (x filled), 0 not. */
static int solve(glp_prob *lp, int solver, int nx, double *x)
{
	int k, ok = 0;

	if (solver == GV_LP_INTERIOR) {
		glp_iptcp p;
		glp_init_iptcp(&p);
		p.msg_lev = GLP_MSG_OFF;
		if (glp_interior(lp, &p) == 0 && glp_ipt_status(lp) == GLP_OPT) {
			for (k = 0; k < nx; k++)
				x[k] = glp_ipt_col_prim(lp, 1 + k);
			ok = 1;
		}
	}
	if (!ok) {
		glp_smcp p;
		glp_init_smcp(&p);
		p.msg_lev = GLP_MSG_OFF;
		p.presolve = GLP_OFF;
		if (glp_simplex(lp, &p) == 0 && glp_get_status(lp) == GLP_OPT) {
			for (k = 0; k < nx; k++)
				x[k] = glp_get_col_prim(lp, 1 + k);
			ok = 1;
		}
	}
	for (k = 0; ok && k < nx; k++)
		x[k] = x[k] < 0 ? 0 : x[k] > 1 ? 1 : x[k];
	return ok;
}

/* Whether the FTF rows at rho are feasible (simplex).  Row i, thr_i >=
** rem_i / (rho E_i - tss_i), is written divided by its right-hand side
** (coefficients tput (rho E_i - tss_i) / rem_i, bound 1), so that every
** row has the same scale whatever the jobs' units. */
static int ftf_feasible(glp_prob *lp, const struct gv_lp_in *in,
			const double *E, double rho, int *ind, double *val)
{
	glp_smcp p;
	int i, j, rc, m = in->m;

	for (i = 0; i < in->n; i++) {
		double d = rho * E[i] - in->tss[i];
		int len = 0;
		if (!(d > 0))
			return 0;
		for (j = 0; j < m; j++)
			if (in->tput[i * m + j] > 0) {
				len++;
				ind[len] = 1 + i * m + j;
				val[len] = in->rem[i] > 0 ?
					in->tput[i * m + j] * d / in->rem[i] :
					1;
			}
		glp_set_mat_row(lp, 1 + m + in->n + i, len, ind, val);
		glp_set_row_bnds(lp, 1 + m + in->n + i, GLP_LO,
				 in->rem[i] > 0 ? 1 : 0, 0);
	}
	glp_init_smcp(&p);
	p.msg_lev = GLP_MSG_OFF;
	p.presolve = GLP_OFF;   /* its presolver passed rows 1e-3 over
				   their bounds as feasible (GLPK 5.0) */
	rc = glp_simplex(lp, &p);
	return rc == 0 && (glp_get_status(lp) == GLP_OPT ||
			   glp_get_status(lp) == GLP_FEAS);
}

/* Finish-time fairness: minimise max_i rho_i, rho_i = (tss_i + rem_i /
** thr_i) / (tss_i + rem_i / iso_i), by bisection on rho over feasibility
** programs (thr_i >= rem_i / (rho E_i - tss_i) is linear for a fixed
** rho); the allocation is the one at the smallest feasible rho found. */
static int ftf(glp_prob *lp, const struct gv_lp_in *in, const double *iso,
	       double *x)
{
	int n = in->n, m = in->m, i, j, k, ok;
	double *E = malloc((size_t)n * sizeof *E), lo = 0, hi;
	int *ind = malloc((size_t)(m + 1) * sizeof *ind);
	double *val = malloc((size_t)(m + 1) * sizeof *val);

	if (E == NULL || ind == NULL || val == NULL) {
		free(E);
		free(ind);
		free(val);
		return SIM_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		double best = 0;
		E[i] = in->tss[i] + (iso[i] > 0 ? in->rem[i] / iso[i] : 0);
		for (j = 0; j < m; j++)
			if (in->tput[i * m + j] > best)
				best = in->tput[i * m + j];
		if (best > 0 && E[i] > 0) {
			double lb = (in->tss[i] + in->rem[i] / best) / E[i];
			if (lb > lo)
				lo = lb;
		}
	}
	glp_set_obj_coef(lp, n * m + 1, 0);
	glp_set_col_bnds(lp, n * m + 1, GLP_FX, 0, 0);
	hi = lo > 0 ? lo : 1;
	if (ftf_feasible(lp, in, E, hi, ind, val)) {
		lo = hi;
	} else {
		for (k = 0; k < 200 && !ftf_feasible(lp, in, E, hi * 2, ind, val); k++)
			hi *= 2;
		lo = hi;
		hi *= 2;
		for (k = 0; k < 60 && (hi - lo) > 1e-9 * hi; k++) {
			double mid = 0.5 * (lo + hi);
			if (ftf_feasible(lp, in, E, mid, ind, val))
				hi = mid;
			else
				lo = mid;
		}
		lo = hi;
	}
	ftf_feasible(lp, in, E, lo * (1 + 1e-9), ind, val);
	glp_set_obj_dir(lp, GLP_MAX);
	ok = solve(lp, in->solver, n * m, x);
	free(E);
	free(ind);
	free(val);
	return ok;
}

int gv_lp_solve(const struct gv_lp_in *in, double *x)
{
	int n = in->n, m = in->m, i, j, ok = 0, rc, old;
	double tmax = 0;
	double *coef = calloc((size_t)(n * m + 1), sizeof *coef);
	double *ocoef = calloc((size_t)n + 1, sizeof *ocoef);
	double *iso = calloc((size_t)n + 1, sizeof *iso);
	glp_prob *lp = NULL;

	if (coef == NULL || ocoef == NULL || iso == NULL) {
		rc = SIM_ENOMEM;
		goto out;
	}
	gv_isolated(in, iso);
	for (i = 0; i < n * m; i++)
		if (in->tput[i] > tmax)
			tmax = in->tput[i];
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++) {
			double T = in->tput[i * m + j];
			double *c = &coef[i * m + j];
			if (!(T > 0))
				continue;
			switch (in->objective) {
			case GV_OBJ_MMF_PERF:
				/* throughput x scale factor x priority weight
				** (1 / w) / isolated throughput
				** (max_min_fairness.py, WithPerf) */
				*c = iso[i] > 0 ? T * in->sf[i] /
					(in->w[i] * iso[i]) : 0;
				break;
			case GV_OBJ_MMF:
				/* unit throughputs, no normalisation */
				*c = in->sf[i] / in->w[i];
				break;
			default:         /* FTF, makespan: throughput,
					    scaled to at most 1 (the
					    programs do not depend on it) */
				*c = T / tmax;
				break;
			}
		}
	for (i = 0; i < n; i++)
		ocoef[i] = in->objective == GV_OBJ_MAKESPAN ? -in->rem[i] :
			in->objective == GV_OBJ_FTF_PERF ? 0 : -1;
	old = glp_term_out(GLP_OFF);
	lp = glp_create_prob();
	if ((rc = load(lp, in, coef, ocoef)) != 0) {
		glp_term_out(old);
		goto out;
	}
	if (in->objective == GV_OBJ_FTF_PERF) {
		rc = ftf(lp, in, iso, x);
		if (rc < 0) {
			glp_term_out(old);
			goto out;
		}
		ok = rc;
	} else {
		glp_set_obj_dir(lp, GLP_MAX);
		glp_set_obj_coef(lp, n * m + 1, 1);
		ok = solve(lp, in->solver, n * m, x);
	}
	glp_term_out(old);
	rc = 0;
	if (!ok) {
		/* the isolated allocation (x_equal) */
		double N = 0;
		for (j = 0; j < m; j++)
			N += in->ngpus[j];
		for (i = 0; i < n; i++) {
			double s = 0;
			for (j = 0; j < m; j++)
				s += in->tput[i * m + j] * in->ngpus[j] / N;
			for (j = 0; j < m; j++)
				x[i * m + j] = s > 0 ? iso[i] / s *
					in->ngpus[j] / N : 0;
		}
		rc = 1;
	}
out:
	if (lp != NULL)
		glp_delete_prob(lp);
	free(coef);
	free(ocoef);
	free(iso);
	return rc;
}
