/*
** warn.h: warnings about experiments whose numbers say less than they seem
** to (docs/RESULTS.md, "Warnings"), printed at the end of `colosim run`
** and by `colosim report`.
**
** Three rules over the runs stored with status done; two runs are
** "identical" when they have the same metrics with the same values
** (relative difference <= 1e-12), leaving out `events` and `wall_s`,
** which count the engine's work, not the outcome:
**
**   zero-variance  a variant's replications (>= 2) in a setting are all
**                  identical: its interval is 0 and says nothing (a fixed
**                  trace, nothing random);
**   noop-policy    a variant whose policy differs from the baseline's is
**                  identical to the baseline in every replication of a
**                  setting (>= 1 pair): the policy had nothing to act on;
**   noop-sweep     a swept key (other than policy) whose different values
**                  give identical runs in every group of runs that differ
**                  only in it (same policy, replication and other swept
**                  values; >= 1 such group).
**
** Ownership: exp_warnings_build fills *w (released by exp_warnings_fini).
*/
#ifndef COLOSIM_EXPERIMENTS_WARN_H
#define COLOSIM_EXPERIMENTS_WARN_H

#include <stddef.h>

#include "experiments/store.h"
#include "sim/err.h"

enum exp_warn_kind {
	EXP_WARN_ZERO_VARIANCE = 0,
	EXP_WARN_NOOP_POLICY,
	EXP_WARN_NOOP_SWEEP
};

struct exp_warning {
	enum exp_warn_kind kind;
	char msg[600];                /* one line, no trailing newline */
};

struct exp_warnings {
	struct exp_warning *v;
	size_t n;
};

/* The warning kind's short name: "zero-variance", ... */
const char *exp_warn_name(enum exp_warn_kind k);

/*
** The warnings of experiment (NULL: the only one stored) against baseline
** (as in rep_build: a variant label or a policy; NULL: exclusive when it
** ran, else the first variant).  0 and *w filled (maybe empty), or a store
** error / SIM_ENOENT for an unknown experiment.
*/
int exp_warnings_build(struct store *s, const char *experiment,
		       const char *baseline, struct exp_warnings *w,
		       struct sim_err *err);

void exp_warnings_fini(struct exp_warnings *w);

#endif
