/*
** hold.c: the classic hold model on the colosim engine (sim/sim.h).
**
** The hold model (Vaucher and Duval 1975; Jones 1986) measures a pending-event
** set at a fixed size: fill it with P events at exponential times, then
** repeatedly pop the earliest and push one at now + Exp(mean).  Here the pop
** and push are the engine's own run loop: each event's handler schedules its
** successor, so a measured event costs one peek/pop, one handler call, one
** exponential draw (GSL taus2, stream ("hold", 0)) and one schedule.
**
** The queue is first warmed up with --warmup events per pending event (the
** initial fill is not the steady-state distribution of pending times), then
** --events events are timed.  Without --pending it runs P = 1e3, 1e4, 1e5,
** 1e6 in turn.  One line per size: `bench hold pending=... events_per_s=...`.
** tests/bench/bareheap.c does the same work on a bare binary heap; the
** function hold_measured is what tests/bench/callgrind.sh counts.
*/
#include <stdio.h>

#include "sim/rng.h"
#include "sim/sim.h"
#include "tests/bench/bench.h"

struct hold {
	struct sim_rng rng;
	double mean_s;
};

static int hold_event(struct sim *sim, void *ctx, uint64_t arg)
{
	struct hold *h = ctx;

	return sim_schedule_in(sim, sim_time_from_s(sim_rng_exp(&h->rng,
								h->mean_s)),
			       0, hold_event, h, arg + 1, NULL);
}

/* The timed part, a function of its own so that callgrind can count it. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static enum sim_stop_reason hold_measured(struct sim *sim, uint64_t events)
{
	return sim_run(sim, SIM_TIME_MAX, sim->events + events);
}

static int hold_one(const char *prog, uint64_t pending, uint64_t events,
		    double warmup, double mean_s, uint64_t seed)
{
	struct hold h;
	struct sim sim;
	struct sim_err err;
	uint64_t i, warm = (uint64_t)(warmup * (double)pending);
	double t0, c0, wall_s, cpu_s;
	int rc = 0;

	sim_err_clear(&err);
	h.mean_s = mean_s;
	if (sim_rng_init(&h.rng, seed, "hold", 0, &err) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return 1;
	}
	sim_init(&sim);
	for (i = 0; i < pending && rc == 0; i++)
		rc = sim_schedule_at(&sim,
				     sim_time_from_s(sim_rng_exp(&h.rng, mean_s)),
				     0, hold_event, &h, 0, NULL);
	if (rc == 0 && warm > 0 &&
	    sim_run(&sim, SIM_TIME_MAX, warm) != SIM_STOP_BUDGET)
		rc = SIM_ESTATE;
	if (rc != 0) {
		fprintf(stderr, "%s: setup failed: %s\n", prog,
			sim_strerror(rc));
		return 1;
	}
	t0 = bench_now_s();
	c0 = bench_cpu_s();
	if (hold_measured(&sim, events) != SIM_STOP_BUDGET) {
		fprintf(stderr, "%s: run stopped early: %s\n", prog,
			sim.err.msg);
		return 1;
	}
	cpu_s = bench_cpu_s() - c0;
	wall_s = bench_now_s() - t0;
	printf("bench hold pending=%llu warmup_events=%llu events=%llu "
	       "end_t_ns=%lld wall_s=%.3f cpu_s=%.3f "
	       "ns_per_event=%.1f events_per_s=%.0f\n",
	       (unsigned long long)sim_equeue_size(&sim.q),
	       (unsigned long long)warm, (unsigned long long)events,
	       (long long)sim.now, wall_s, cpu_s,
	       cpu_s * 1e9 / (double)events, (double)events / cpu_s);
	fflush(stdout);
	sim_fini(&sim);
	sim_rng_fini(&h.rng);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t pending = 0, events = 4000000, seed = 1, p;
	double warmup = 1.0, mean_s = 1.0;
	const struct bench_opt opts[] = {
		{ "pending", BENCH_U64, &pending, 0, 1e8,
		  "pending events (0: 1e3, 1e4, 1e5 and 1e6 in turn)" },
		{ "events", BENCH_U64, &events, 1, 1e12, "timed events per size" },
		{ "warmup", BENCH_DOUBLE, &warmup, 0, 100,
		  "untimed events first, per pending event" },
		{ "mean", BENCH_DOUBLE, &mean_s, 1e-6, 1e6,
		  "mean exponential increment, seconds" },
		{ "seed", BENCH_U64, &seed, 0, 9007199254740992.0,
		  "master seed" },
		{ NULL, BENCH_U64, NULL, 0, 0, NULL }
	};
	int rc = bench_parse(argc, argv,
			     "The hold model on the colosim engine; prints one "
			     "`bench hold ...` line per pending-set size.",
			     opts);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	sim_gsl_quiet();
	if (pending != 0)
		return hold_one(argv[0], pending, events, warmup, mean_s, seed);
	for (p = 1000; p <= 1000000; p *= 10)
		if ((rc = hold_one(argv[0], p, events, warmup, mean_s, seed)))
			return rc;
	return 0;
}
