/*
** timeline.h: one run's timeline as a Chrome trace (the JSON "Trace Event
** Format" that ui.perfetto.dev and chrome://tracing open), for `colosim
** replay --timeline FILE` (docs/RESULTS.md, "Timelines").
**
** Layout: one process per GPU (pid = GPU index + 1: "GPU 3: a100-80gb, node 0"), its threads
** lanes of spans that never overlap (co-located tenants take one lane
** each), and two counter tracks, HBM and SM (fractions in [0, 1]).  Spans
** ("ph": "X", microseconds of simulated time): a work unit, named by its
** job's trace id (category "train", "infer" or "pool"); a swap ("swap out
** ID", "swap in ID", category "swap"); a model load ("load MODEL",
** category "load").
*/
#ifndef COLOSIM_EXPERIMENTS_TIMELINE_H
#define COLOSIM_EXPERIMENTS_TIMELINE_H

#include "sim/err.h"

struct world;

/* Writes the timeline of w (created with cfg.timeline, run) to path.  0,
** or SIM_EIO naming the file / SIM_ESTATE / SIM_ENOMEM. */
int exp_timeline_write(const char *path, struct world *w,
		       struct sim_err *err);

#endif
