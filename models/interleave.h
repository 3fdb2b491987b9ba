/*
** interleave.h: Muri's multi-resource interleaving model (SIGCOMM'22;
** docs/MODEL.md, "Multi-resource interleaving").
**
** A training iteration uses three resources in turn: the CPU / data stage
** (r0), the GPU (r1), the network (r2), each for a measured time.  Up to
** four jobs that share the same GPUs take turns so that while one computes
** another loads data and a third communicates.  The group's round time T
** (every job does one iteration a round) is the steady state of a 4-stage
** pipeline recurrence over the jobs in some order, the best order taken,
** times a measured interleaving overhead per group size; a job alone runs
** at its own iteration time.  A job's speed in the group is its solo
** iteration time over T.
**
** The recurrence and the overheads are those of Muri's simulator
** (Rivendile/Muri simulator/matching.py _Packing.calc_iteration_time,
** jobs.py itertime_overhead_list); their values are in docs/MODEL.md.
*/
#ifndef COLOSIM_MODELS_INTERLEAVE_H
#define COLOSIM_MODELS_INTERLEAVE_H

#define IL_MAX_JOBS 4

enum il_order { IL_BEST = 0, IL_WORST = 1, IL_GIVEN = 2 };

/* One job of a group: per-resource times of one iteration (any unit, the
** same for all) and its solo iteration time (used alone, and for speeds). */
struct il_job {
	double res[3];
	double iter;
};

/* Overheads by group size (index 2..4; 0 and 1 unused), Muri's defaults
** (il_overheads_init). */
struct il_overheads {
	double f[IL_MAX_JOBS + 1];
};
void il_overheads_init(struct il_overheads *o);

/* The raw round time of n (2..4) jobs in the given order, without the
** overhead (Muri's recurrence, two rounds of the 4-stage pipeline). */
double il_round_ordered(const struct il_job *const *jobs, int n);

/* The group's round time: n == 1 its iteration time; else the raw round
** time under `order` (the best or worst of every permutation, or the
** given one) times the overhead for n (o NULL: Muri's).  n outside 1..4:
** -1. */
double il_round(const struct il_job *jobs, int n, enum il_order order,
		const struct il_overheads *o);

/* Muri's edge weight between two groups: the resource use of their union,
** sum of every job's resource times / (4 x its round time) (Muri counts
** 4 resources).  a and b: their jobs, na + nb <= 4. */
double il_used_ratio(const struct il_job *a, int na, const struct il_job *b,
		     int nb, enum il_order order, const struct il_overheads *o);

#endif
