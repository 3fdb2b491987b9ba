/*
** gavel_lp.h: the linear programs of Gavel's policies (Narayanan et al.,
** OSDI 2020; stanford-futuredata/gavel scheduler/policies/), solved with
** GLPK (policies/gavel_lp.c; docs/POLICIES.md, "gavel").
**
** n jobs, m worker types.  Job i asks sf[i] GPUs; tput[i * m + j] is its
** throughput alone on type j (any unit per job: the programs below are
** invariant to a job's own scale except where said), 0 where it cannot
** run; ngpus[j] GPUs of type j.  The allocation x[i * m + j] in [0, 1] is
** the fraction of wall time job i spends on type j; every program keeps
**     sum_i sf[i] x[i][j] <= ngpus[j],   sum_j x[i][j] <= 1,   x >= 0
** (Gavel's get_base_constraints), and x[i][j] = 0 where tput is 0.
*/
#ifndef COLOSIM_POLICIES_GAVEL_LP_H
#define COLOSIM_POLICIES_GAVEL_LP_H

enum {
	GV_OBJ_MMF_PERF = 0,   /* max_min_fairness_perf */
	GV_OBJ_MMF,            /* max_min_fairness (heterogeneity-agnostic) */
	GV_OBJ_FTF_PERF,       /* finish_time_fairness_perf */
	GV_OBJ_MAKESPAN        /* min_total_duration_perf */
};

enum { GV_LP_INTERIOR = 0, GV_LP_SIMPLEX = 1 };

struct gv_lp_in {
	int n, m;
	int objective;                /* GV_OBJ_* */
	int solver;                   /* GV_LP_* */
	const int *sf;                /* n */
	const double *w;              /* n: priority weights (Gavel's
					 priority_weight, >= 1) */
	const double *tput;           /* n x m */
	const int *ngpus;             /* m */
	const double *rem;            /* n: work left, in tput's unit x s
					 (FTF, makespan) */
	const double *tss;            /* n: seconds since arrival (FTF) */
};

/* The equal-share ("isolated") allocation Gavel normalizes by: each job
** the time share t w_i / sf_i, t = min(sum_j ngpus[j] / sum_i w_i,
** min_i sf_i / w_i) (the optimum of max-min fairness with unit
** throughputs), spread over the types in proportion to their GPUs (the
** paper's X^equal); iso[i] = sum_j tput x (n entries). */
void gv_isolated(const struct gv_lp_in *in, double *iso);

/* Solves in's program into x (n x m).  Returns 0, 1 when the solver
** failed and x holds the isolated allocation instead (counted by the
** caller), or SIM_ENOMEM. */
int gv_lp_solve(const struct gv_lp_in *in, double *x);

#endif
