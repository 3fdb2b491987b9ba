/*
** dlas.h: Tiresias's discretized two-dimensional least-attained-service
** queues (NSDI'19), shared by policies/tiresias.c and policies/gittins.c.
** Semantics as the Tiresias and Muri simulators' dlas_sim_jobs
** (docs/POLICIES.md, "tiresias"):
**
**   - a job's attained service is its wall time running (`executed`)
**     times its GPUs (`service = gpu`, the "dlas-gpu" variant) or the
**     time alone (`service = time`);
**   - queues Q0..Q(n-1) with thresholds; a new job enters Q0 at the end;
**     at each pass a running job whose attained service reached its
**     queue's threshold moves to the end of the next queue (one step a
**     pass), in arrival order;
**   - starvation (knob `starvation` = S > 0): a pending job of a lower
**     queue that has run, whose time pending since it last ran reaches S x
**     its executed time, goes back to the end of Q0 with its executed time
**     reset;
**   - a pass takes the queues in order, and inside a queue its order
**     (FIFO: arrival, demotion or promotion; after each pass the queue's
**     pending jobs move behind its running ones), fit-first on the
**     placement (qsched.h); gittins orders inside a queue by its index;
**   - a timer brings the next pass to the next demotion (or promotion),
**     with the demotion instant rounded up to a whole second of executed
**     time per GPU, ceil(threshold / GPUs), as Muri's simulator does
**     (`jump = muri`, `jump_round = 1`; 0: the exact instant); `jump =
**     tiresias` sets the timer as Tiresias's simulator does instead,
**     floor((threshold - executed) / GPUs) s after the pass (its Python 2
**     integer division of a GPU-second threshold less wall seconds run),
**     at or after the crossing for a job that has run (docs/POLICIES.md,
**     "tiresias").
*/
#ifndef COLOSIM_POLICIES_DLAS_H
#define COLOSIM_POLICIES_DLAS_H

#include "policies/qsched.h"

#define DLAS_MAXQ 16

struct dlas {
	struct qsched q;
	/* parameters (the policies' tables, DLAS_PARAMS) */
	const char *queues;           /* "3250,7200" */
	double starvation;
	int gpu_service;              /* 1: executed x GPUs (service = gpu) */
	int jump_round;
	int jump;                     /* DLAS_JUMP_MURI | DLAS_JUMP_TIRESIAS */
	int placement;
	/* derived */
	int nq;                       /* queues: thresholds + 1 */
	double limit_s[DLAS_MAXQ];    /* thresholds, attained seconds */
	long counter;                 /* queue positions handed out */
	uint64_t timer_gen;
	int *ev;                      /* scratch: demoted / promoted jobs */
	int nev, ev_cap;
	/* the in-queue order hook: gittins sets key/key2 per job; NULL:
	** FIFO (tiresias) */
	void (*order)(struct dlas *d, struct world *w, int j);
	void *order_ctx;
	const char *name;
};

extern const char *const dlas_service_names[];
/* The `jump` choices, in dlas_jump_names order. */
enum { DLAS_JUMP_MURI = 0, DLAS_JUMP_TIRESIAS = 1 };
extern const char *const dlas_jump_names[];

/* The shared parameter rows for a state type T whose struct dlas is the
** member `m` (docs/POLICIES.md, "tiresias"). */
#define DLAS_PARAMS(T, m)                                                  \
	POL_PARAM_STRING("queues", T, m.queues, "3250,7200",                 \
			 "queue thresholds, attained seconds (x GPUs), "     \
			 "increasing"),                                      \
	POL_PARAM_DOUBLE("starvation", T, m.starvation, 0, 1e6, "0",         \
			 "a pending job that has run returns to Q0 after "   \
			 "this x its executed time; 0: off"),                \
	POL_PARAM_CHOICE("service", T, m.gpu_service, dlas_service_names,    \
			 "gpu", "attained service: wall time run x GPUs "    \
			 "(gpu) or alone (time)"),                           \
	POL_PARAM_BOOL("jump_round", T, m.jump_round, "1",                   \
		       "1: demote at ceil(threshold / GPUs) s of run time, " \
		       "as Muri's simulator; 0: at the exact crossing"),    \
	POL_PARAM_CHOICE("jump", T, m.jump, dlas_jump_names, "muri",         \
			 "next demotion: muri: at the crossing (jump_round " \
			 "rounds it); tiresias: floor((threshold - executed)" \
			 " / GPUs) s after the pass, as Tiresias's simulator"), \
	POL_PARAM_CHOICE("placement", T, m.placement, qs_place_names, "any", \
			 "any: any free GPUs (the peers' count); node: "     \
			 "node-consolidated")

/* Sets up from the parameters already in *d.  0 or SIM_E*. */
int dlas_init(struct dlas *d, struct world *w, const char *name,
	      struct sim_err *err);
void dlas_fini(struct dlas *d);
int dlas_arrival(struct dlas *d, struct world *w, int j);
void dlas_finish(struct dlas *d, struct world *w, int j);
/* One pass (settle, demote, promote, order, apply, re-queue, timer). */
int dlas_pass(struct dlas *d, struct world *w);
/* The timer hook: a pass when tag is the latest timer's. */
int dlas_timer(struct dlas *d, struct world *w, uint64_t tag);
/* Job j's attained service in seconds (Tiresias's j_gt). */
double dlas_attained_s(const struct dlas *d, struct world *w, int j);

/* gittins (policies/gittins.c), learning online: the sorted sizes it keeps
** beside its ring against a sort of the ring.  -1 when they agree (or it
** reads a dist file), else the first index that differs (0 when out of
** memory).  For the tests. */
int gittins_table_check(const void *state);

#endif
