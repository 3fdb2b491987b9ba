/*
** gslice.h: what the GSLICE policy (policies/gslice.c) exposes besides
** its ops table: the knee probe, for tests and reports.
*/
#ifndef COLOSIM_POLICIES_GSLICE_H
#define COLOSIM_POLICIES_GSLICE_H

#include "models/device.h"
#include "models/zoo.h"

/* The knee share (0.01..1, whole percent) of `model` at max batch b on
** device d: the smallest share whose batch latency under the MPS model,
** the service alone, is within knee_tol of its latency on the whole GPU
** (docs/MODEL.md, "GSLICE").  Pure. */
double gslice_knee(const struct zoo_model *model, const struct dev_profile *d,
		   int b, double knee_tol);

struct world_svc_window;

/* Adaptive batching (MODEL.md "GSLICE"): the next max batch (1..top) of a
** service from its measurement window and SLO.  Over the SLO: one more
** with a backlog (queue longer than a batch per replica, or arrivals past
** served by 5%), else floor(batch_dec * b); under batch_slack * SLO with
** full batches (mean >= 0.9 b): one more; then capped where the line
** exec(b) = a + c b fitted to the window's batches reaches batch_slo_frac *
** SLO.  Pure. */
int gslice_adapt_batch(const struct world_svc_window *wn, double slo_ms,
		       int top, double batch_dec, double batch_slack,
		       double batch_slo_frac);

#endif
