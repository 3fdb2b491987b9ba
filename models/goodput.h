/*
** goodput.h: the goodput of an elastic data-parallel training job, in the
** style of Pollux (Qiao et al., OSDI 2021; petuum/adaptdl adaptdl/
** goodput.py, commit 084518b): throughput (samples per second) times the
** statistical efficiency of the total batch (docs/MODEL.md, "Goodput of
** elastic jobs").
**
** A job's per-GPU batch b is fixed (the trace's batch), so n GPUs train
** with a total batch M = n b.  Its work is stated at its trace's count n0,
** M0 = n0 b, where its efficiency is 1: at n GPUs it needs M0 / (M E(M))
** times the iterations, each of its iteration time at n.  Pure functions:
** no state, no failure.
*/
#ifndef COLOSIM_MODELS_GOODPUT_H
#define COLOSIM_MODELS_GOODPUT_H

/* The gradient noise scale used for a model with no published value and
** no trace column, in samples: an assumption (docs/MODEL.md). */
#define GP_NOISE_DEFAULT 11397.0

/*
** Statistical efficiency of total batch m relative to m0 (Pollux; McCandlish
** et al. 2018): E(m) = (phi + m0) / (phi + m), phi the gradient noise
** scale in samples (> 0).  E(m0) = 1; E falls towards m0 / m as phi -> 0.
*/
double gp_efficiency(double phi, double m0, double m);

/*
** The job's run time at n GPUs over its run time at n0 (n, n0 >= 1): the
** iterations it needs, n0 / (n E(n b)), times the iteration time at n
** over the one at n0 (iter_ns, iter0_ns > 0).  1 when n == n0 and the
** iteration times are equal.
*/
double gp_time_ratio(int n0, int n, int batch, double phi, double iter0_ns,
		     double iter_ns);

/* The noise scale of zoo model `name` where Pollux's artifact gives one
** (docs/MODEL.md lists them and their source), else GP_NOISE_DEFAULT. */
double gp_noise_scale(const char *name);

#endif
