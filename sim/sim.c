/*
** sim.c: the engine's clock and run loop (see sim.h).
*/
#include "sim/sim.h"

#include <stdarg.h>
#include <stdio.h>

void sim_init(struct sim *sim)
{
	sim->now = 0;
	sim->events = 0;
	sim_equeue_init(&sim->q);
	sim->stop_requested = 0;
	sim_err_clear(&sim->err);
}

void sim_fini(struct sim *sim)
{
	sim_equeue_fini(&sim->q);
}

int sim_schedule_at(struct sim *sim, sim_time t, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle)
{
	if (t < sim->now)
		return SIM_EPAST;
	return sim_equeue_push(&sim->q, t, prio, fn, ctx, arg, handle);
}

int sim_schedule_in(struct sim *sim, sim_time dt, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle)
{
	/* sim_time_add_sat, inlined: this is on every event's path. */
	sim_time t = dt > SIM_TIME_MAX - sim->now ? SIM_TIME_MAX
						   : sim->now + dt;

	if (dt < 0)
		return SIM_EPAST;
	return sim_equeue_push(&sim->q, t, prio, fn, ctx, arg, handle);
}

int sim_cancel(struct sim *sim, uint64_t handle)
{
	return sim_equeue_cancel(&sim->q, handle);
}

void sim_stop(struct sim *sim)
{
	sim->stop_requested = 1;
}

int sim_fail(struct sim *sim, int code, const char *fmt, ...)
{
	va_list ap;

	if (sim->err.code == 0) {
		sim->err.code = code;
		va_start(ap, fmt);
		vsnprintf(sim->err.msg, sizeof sim->err.msg, fmt, ap);
		va_end(ap);
	}
	return code;
}

enum sim_stop_reason sim_run(struct sim *sim, sim_time horizon,
			     uint64_t max_events)
{
	sim->stop_requested = 0;
	for (;;) {
		sim_time t;
		sim_event_fn fn;
		void *ctx;
		uint64_t arg;
		int rc;

		if (max_events != 0 && sim->events >= max_events)
			return SIM_STOP_BUDGET;
		switch (sim_equeue_pop_until(&sim->q, horizon, &t, &fn, &ctx,
					     &arg)) {
		case 0:
			return SIM_STOP_EMPTY;
		case 2:
			if (horizon > sim->now)
				sim->now = horizon;
			return SIM_STOP_HORIZON;
		default:
			break;
		}
		sim->now = t;
		sim->events++;
		rc = fn(sim, ctx, arg);
		if (rc < 0) {
			if (sim->err.code == 0)
				sim_fail(sim, rc, "event handler failed: %s",
					 sim_strerror(rc));
			return SIM_STOP_ERROR;
		}
		/* a failure recorded by code that could not return it (sim_fail
		** from a job leaving its GPUs) ends the run too: the run fails
		** anyway, and going on from a broken state can run forever (a
		** policy's timer waiting for jobs that can no longer end) */
		if (sim->err.code != 0)
			return SIM_STOP_ERROR;
		if (sim->stop_requested)
			return SIM_STOP_REQUEST;
	}
}
