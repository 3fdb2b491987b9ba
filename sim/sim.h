/*
** sim.h: the discrete-event engine.
**
** One `struct sim` holds all engine state: the clock, the pending-event set,
** counters, the stop flag and the first error.  There is no global state, so
** several simulations can run side by side in one process (tests do).
**
** Time never goes backwards: sim_schedule_at refuses a time earlier than the
** current one with SIM_EPAST.  The run loop pops events in (time, priority
** class, insertion order) and stops on the first of: no pending event, the
** next event beyond the horizon, the event budget spent, a stop request from
** a handler, or a handler's error.
*/
#ifndef COLOSIM_SIM_SIM_H
#define COLOSIM_SIM_SIM_H

#include <stdint.h>

#include "sim/equeue.h"
#include "sim/err.h"
#include "sim/time.h"

/*
** Priority classes for events at the same instant.  Lower runs first.  The
** order makes one instant consistent: departures free resources before
** arrivals ask for them, and the policy's scheduling pass sees both.
*/
enum sim_prio {
	SIM_PRIO_COMPLETE = 10,   /* work units finishing, transfers ending */
	SIM_PRIO_ARRIVAL  = 20,   /* jobs and requests arriving */
	SIM_PRIO_TIMER    = 30,   /* policy timers, batching timeouts */
	SIM_PRIO_SCHEDULE = 40,   /* the policy's scheduling pass */
	SIM_PRIO_SAMPLE   = 50    /* statistics sampling */
};

/* Why sim_run returned. */
enum sim_stop_reason {
	SIM_STOP_EMPTY = 0,       /* no pending event left */
	SIM_STOP_HORIZON,         /* the next event lies beyond the horizon */
	SIM_STOP_BUDGET,          /* the event budget was spent */
	SIM_STOP_REQUEST,         /* a handler called sim_stop() */
	SIM_STOP_ERROR            /* a handler failed; see sim->err */
};

struct sim {
	sim_time now;
	uint64_t events;          /* events executed so far */
	struct sim_equeue q;
	int stop_requested;
	struct sim_err err;       /* the first handler error */
};

/* Initialises an engine at time 0 with no events.  Never fails. */
void sim_init(struct sim *sim);

/* Frees the engine's memory.  Pending events are dropped unrun. */
void sim_fini(struct sim *sim);

/*
** Schedules fn(sim, ctx, arg) at absolute time t with priority class prio.
** Returns 0 and the event's handle in *handle (may be NULL), or SIM_EPAST if
** t < sim->now, SIM_EINVAL / SIM_ENOMEM as sim_equeue_push.  ctx is borrowed:
** it must stay valid until the event fires or is cancelled.
*/
int sim_schedule_at(struct sim *sim, sim_time t, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle);

/* As sim_schedule_at, at now + dt (dt >= 0; saturates at SIM_TIME_MAX). */
int sim_schedule_in(struct sim *sim, sim_time dt, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle);

/* Cancels a pending event: 0, or SIM_ESTALE if it is no longer pending. */
int sim_cancel(struct sim *sim, uint64_t handle);

/*
** Runs events until a stop condition.  Events at exactly `horizon` still run;
** when the run stops on the horizon, the clock is advanced to it.  A
** max_events of 0 means no budget.  Returns the reason; SIM_STOP_ERROR when
** a handler returned an error or recorded one (sim_fail), sim->err holding
** its message.  May be called again to continue.
*/
enum sim_stop_reason sim_run(struct sim *sim, sim_time horizon,
			     uint64_t max_events);

/* Asks the run loop to stop after the current handler returns. */
void sim_stop(struct sim *sim);

/* Records a handler failure in sim->err and returns code (for `return`). */
int sim_fail(struct sim *sim, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

#endif
