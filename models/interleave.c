/*
** interleave.c: Muri's multi-resource interleaving model (interleave.h;
** equations in docs/MODEL.md, "Multi-resource interleaving").
*/
#include "models/interleave.h"

#include <math.h>
#include <stddef.h>

void il_overheads_init(struct il_overheads *o)
{
	/* Muri simulator/jobs.py itertime_overhead_list: [1.015, 1.33/1.015,
	** 1.5/1.015, 1.37/1.015]; the first scales every iteration time
	** (the importer's --iter-scale), the others a group of 2, 3, 4. */
	o->f[0] = o->f[1] = 1.0;
	o->f[2] = 1.33 / 1.015;
	o->f[3] = 1.5 / 1.015;
	o->f[4] = 1.37 / 1.015;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

/* math.isclose(a, b, rel_tol) with abs_tol 0. */
static int close_rel(double a, double b, double rel)
{
	return fabs(a - b) <= rel * dmax(fabs(a), fabs(b));
}

double il_round_ordered(const struct il_job *const *p, int n)
{
	/* Stage k of step i+1 follows stage k-1 of step i: job (i+1)%4's
	** network, job (i+2)%4's GPU after the previous step, job (i+3)%4's
	** data two steps back; two rounds, or until a round repeats. */
	double fi[9] = { 0 }, tt = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if ((i + 1) % 4 < n)
			fi[i + 1] = dmax(fi[i + 1], fi[i] + p[(i + 1) % 4]->res[2]);
		if ((i + 2) % 4 < n)
			fi[i + 1] = dmax(fi[i + 1], fi[i] + p[(i + 2) % 4]->res[1]);
		if (i > 0 && (i + 3) % 4 < n)
			fi[i + 1] = dmax(fi[i + 1],
					 fi[i - 1] + p[(i + 3) % 4]->res[0]);
		if (i >= 4 && close_rel(fi[i + 1] - fi[i - 3], fi[i] - fi[i - 4],
					1e-3)) {
			tt = fi[i + 1] - fi[i - 3];
			break;
		}
	}
	if (!(tt > 0))
		tt = fi[8] - fi[4];
	return tt;
}

/* Visits every permutation of idx[k..n) (Heap-free: swap recursion),
** keeping the best or worst round time in *acc. */
static void permute(const struct il_job *jobs, int *idx, int k, int n,
		    int worst, double *acc)
{
	int i;

	if (k == n) {
		const struct il_job *p[IL_MAX_JOBS];
		double tt;
		for (i = 0; i < n; i++)
			p[i] = &jobs[idx[i]];
		tt = il_round_ordered(p, n);
		if (worst ? tt > *acc : tt < *acc)
			*acc = tt;
		return;
	}
	for (i = k; i < n; i++) {
		int t = idx[k];
		idx[k] = idx[i];
		idx[i] = t;
		permute(jobs, idx, k + 1, n, worst, acc);
		idx[i] = idx[k];
		idx[k] = t;
	}
}

double il_round(const struct il_job *jobs, int n, enum il_order order,
		const struct il_overheads *o)
{
	struct il_overheads dflt;
	int idx[IL_MAX_JOBS] = { 0, 1, 2, 3 };
	double tt;

	if (n < 1 || n > IL_MAX_JOBS)
		return -1;
	if (n == 1)
		return jobs[0].iter;
	if (o == NULL) {
		il_overheads_init(&dflt);
		o = &dflt;
	}
	if (order == IL_GIVEN) {
		const struct il_job *p[IL_MAX_JOBS];
		int i;
		for (i = 0; i < n; i++)
			p[i] = &jobs[i];
		tt = il_round_ordered(p, n);
	} else {
		int worst = order == IL_WORST;
		tt = worst ? 0.0 : HUGE_VAL;
		permute(jobs, idx, 0, n, worst, &tt);
		if (n == 2) {
			/* two jobs may also pair one's data stage with the
			** other's GPU and network stages */
			double t2 = dmax(jobs[0].res[0],
					 jobs[1].res[1] + jobs[1].res[2]) +
				dmax(jobs[1].res[0],
				     jobs[0].res[1] + jobs[0].res[2]);
			if (worst ? t2 > tt : t2 < tt)
				tt = t2;
		}
	}
	return tt * o->f[n];
}

double il_used_ratio(const struct il_job *a, int na, const struct il_job *b,
		     int nb, enum il_order order, const struct il_overheads *o)
{
	struct il_job all[IL_MAX_JOBS];
	double used = 0, tt;
	int i, n = 0;

	if (na + nb < 1 || na + nb > IL_MAX_JOBS)
		return 0;
	for (i = 0; i < na; i++)
		all[n++] = a[i];
	for (i = 0; i < nb; i++)
		all[n++] = b[i];
	for (i = 0; i < n; i++)
		used += all[i].res[0] + all[i].res[1] + all[i].res[2];
	tt = il_round(all, n, order, o);
	return tt > 0 ? used / (tt * 4.0) : 0;
}
