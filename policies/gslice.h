/*
** gslice.h: what the GSLICE policy (policies/gslice.c) exposes besides
** its ops table, for tests and reports: the knee rule and adaptive
** batching, as pure functions.
*/
#ifndef COLOSIM_POLICIES_GSLICE_H
#define COLOSIM_POLICIES_GSLICE_H

#include "policies/policy.h"

/* The knee share (0.01..1, whole percent) from a service's speeds under
** the MPS model, alone on one GPU (pol_probe_mps with n = 100: speed[0]
** on the whole GPU, speed[p] at p%): the smallest share whose speed is
** within knee_tol of the whole GPU's, i.e. whose batch latency is at most
** (1 + knee_tol) times it (docs/MODEL.md, "GSLICE"); 1 if none.  Pure. */
double gslice_knee_of(const double *speed, double knee_tol);

/* Adaptive batching (MODEL.md "GSLICE"): the next max batch (1..top) of a
** service from its measurement window and SLO.  Over the SLO: one more
** with a backlog (queue longer than a batch per replica, or arrivals past
** served by 5%), else floor(batch_dec * b); under batch_slack * SLO with
** full batches (mean >= 0.9 b): one more; then capped where the line
** exec(b) = a + c b fitted to the window's batches reaches batch_slo_frac *
** SLO.  Pure. */
int gslice_adapt_batch(const struct pol_svc_window *wn, double slo_ms,
		       int top, double batch_dec, double batch_slack,
		       double batch_slo_frac);

/* For tests: -1 when GSLICE's free-share index (state: its xInit's state)
** equals a scan of every GPU now (membership, free share, free memory),
** else the first GPU where it does not. */
int gslice_index_check(struct world *w, const void *state);

#endif
