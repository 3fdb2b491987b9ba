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

#endif
