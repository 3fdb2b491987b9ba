/*
** phold.c: the PHOLD benchmark on the colosim engine (sim/sim.h).
**
** PHOLD (Fujimoto 1990, the reference model of ROSS): N logical processes
** (LPs) start with M events each, addressed to themselves at exponential
** times.  Each event, on arrival at its LP, draws from that LP's own stream
**   u ~ U[0,1): if u < remote, the next destination is uniform over all N
**               LPs (itself included), else the LP itself;
**   x ~ Exp(mean): the next event is at now + x seconds (in ns, rounded),
** and sends exactly one new event, so the pending set stays at N*M.  There is
** no lookahead constant, and increments have a mean of 1 s = 1e9 ns, so equal
** times are rare (and when they occur, the engine's insertion order decides).
**
** The run stops after --events events.  Each LP keeps the number of events
** it received and the sum of their times (mod 2^64); the checksum mixes both
** over all LPs, so any change in event order or in the draws changes it.
** tests/bench/phold_simpy.py reproduces GSL's taus2 seeding and its
** uniform, uniform_int and exponential functions bit for bit, so for the same
** options both programs must print the same checksum: that is the check that
** they did the same work.
**
** Output: one line `bench phold key=value ... events_per_s=...`.
*/
#include <stdio.h>
#include <stdlib.h>

#include "sim/rng.h"
#include "sim/sim.h"
#include "tests/bench/bench.h"

struct phold_lp {
	uint64_t count;          /* events received */
	uint64_t tsum_ns;        /* sum of their times, mod 2^64 */
	struct sim_rng rng;      /* stream ("phold", LP index) */
};

struct phold {
	struct phold_lp *lps;
	uint64_t n;
	double remote;           /* probability that a send is remote */
	double mean_s;           /* mean increment, seconds */
};

static int phold_event(struct sim *sim, void *ctx, uint64_t arg)
{
	struct phold *p = ctx;
	struct phold_lp *lp = &p->lps[arg];
	uint64_t dest = arg;
	sim_time dt_ns;

	lp->count++;
	lp->tsum_ns += (uint64_t)sim->now;
	if (sim_rng_uniform(&lp->rng) < p->remote)
		dest = sim_rng_int(&lp->rng, (unsigned long)p->n);
	dt_ns = sim_time_from_s(sim_rng_exp(&lp->rng, p->mean_s));
	return sim_schedule_in(sim, dt_ns, 0, phold_event, p, dest, NULL);
}

static uint64_t phold_checksum(const struct phold *p)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325), i;

	for (i = 0; i < p->n; i++) {
		h = sim_mix64(h ^ p->lps[i].count);
		h = sim_mix64(h ^ p->lps[i].tsum_ns);
	}
	return h;
}

int main(int argc, char **argv)
{
	uint64_t lps = 1024, init = 16, events = 20000000, seed = 1, i, j;
	double remote = 0.5, mean_s = 1.0, t0, c0, wall_s, cpu_s;
	const struct bench_opt opts[] = {
		{ "lps", BENCH_U64, &lps, 1, 1e7, "logical processes N" },
		{ "init", BENCH_U64, &init, 1, 1e6, "initial events per LP M" },
		{ "events", BENCH_U64, &events, 1, 1e12,
		  "events to execute (the run's budget)" },
		{ "remote", BENCH_DOUBLE, &remote, 0, 1,
		  "probability that an event goes to a uniform random LP" },
		{ "mean", BENCH_DOUBLE, &mean_s, 1e-6, 1e6,
		  "mean exponential increment, seconds" },
		{ "seed", BENCH_U64, &seed, 0, 9007199254740992.0,
		  "master seed of the LP streams" },
		{ NULL, BENCH_U64, NULL, 0, 0, NULL }
	};
	struct phold p;
	struct sim sim;
	struct sim_err err;
	enum sim_stop_reason why;
	int rc;

	rc = bench_parse(argc, argv,
			 "PHOLD on the colosim engine; prints one "
			 "`bench phold ...` line.", opts);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (lps * init > 100000000u) {
		fprintf(stderr, "%s: --lps * --init = %llu pending events: "
			"more than 1e8\n", argv[0],
			(unsigned long long)(lps * init));
		return 2;
	}
	sim_gsl_quiet();
	sim_err_clear(&err);
	p.n = lps;
	p.remote = remote;
	p.mean_s = mean_s;
	p.lps = calloc(lps, sizeof *p.lps);
	if (p.lps == NULL) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		return 1;
	}
	sim_init(&sim);
	for (i = 0; i < lps; i++) {
		struct phold_lp *lp = &p.lps[i];
		if (sim_rng_init(&lp->rng, seed, "phold", i, &err) != 0) {
			fprintf(stderr, "%s: %s\n", argv[0], err.msg);
			return 1;
		}
		/* M initial events per LP, addressed to itself. */
		for (j = 0; j < init; j++) {
			sim_time t_ns = sim_time_from_s(
				sim_rng_exp(&lp->rng, mean_s));
			rc = sim_schedule_at(&sim, t_ns, 0, phold_event, &p, i,
					     NULL);
			if (rc != 0) {
				fprintf(stderr, "%s: schedule: %s\n", argv[0],
					sim_strerror(rc));
				return 1;
			}
		}
	}

	t0 = bench_now_s();
	c0 = bench_cpu_s();
	why = sim_run(&sim, SIM_TIME_MAX, events);
	cpu_s = bench_cpu_s() - c0;
	wall_s = bench_now_s() - t0;
	if (why != SIM_STOP_BUDGET) {
		fprintf(stderr, "%s: run stopped early (reason %d): %s\n",
			argv[0], (int)why, sim.err.msg);
		return 1;
	}

	printf("bench phold lps=%llu init=%llu remote=%g mean_s=%g seed=%llu "
	       "pending=%llu events=%llu end_t_ns=%lld checksum=%016llx "
	       "wall_s=%.3f cpu_s=%.3f events_per_s=%.0f\n",
	       (unsigned long long)lps, (unsigned long long)init, remote,
	       mean_s, (unsigned long long)seed,
	       (unsigned long long)sim_equeue_size(&sim.q),
	       (unsigned long long)sim.events, (long long)sim.now,
	       (unsigned long long)phold_checksum(&p), wall_s,
	       cpu_s, (double)sim.events / cpu_s);
	for (i = 0; i < lps; i++)
		sim_rng_fini(&p.lps[i].rng);
	free(p.lps);
	sim_fini(&sim);
	return 0;
}
