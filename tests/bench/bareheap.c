/*
** bareheap.c: the hold model on a bare binary heap, with no engine.
**
** The reference for tests/bench/hold.c: the same work (pop the earliest of P
** pending times, push one at now + Exp(mean) drawn from the same GSL stream
** and rounded to ns the same way) on the plainest textbook structure: a
** binary min-heap of (time, insertion sequence) keys, 16 bytes each, with no
** payload, no handles, no cancellation and no handler call.  Ties go by
** sequence, as in the engine, so both pop in the same order.
** tests/bench/callgrind.sh compares the instructions per event of
** bareheap_measured with hold.c's hold_measured.
** Output: `bench bareheap pending=... events_per_s=...`.
*/
#include <stdio.h>
#include <stdlib.h>

#include "sim/rng.h"
#include "sim/time.h"
#include "tests/bench/bench.h"

struct ent {
	sim_time t;
	uint64_t seq;
};

struct bheap {
	struct ent *h;
	size_t n;
	uint64_t seq;
	sim_time now;
	struct sim_rng rng;
	double mean_s;
};

static inline int less(const struct ent *a, const struct ent *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void push(struct bheap *b, sim_time t)
{
	struct ent e = { t, b->seq++ };
	size_t i = b->n++;

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!less(&e, &b->h[p]))
			break;
		b->h[i] = b->h[p];
		i = p;
	}
	b->h[i] = e;
}

static sim_time pop(struct bheap *b)
{
	sim_time t = b->h[0].t;
	struct ent e = b->h[--b->n];
	size_t i = 0, n = b->n;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && less(&b->h[c + 1], &b->h[c]))
			c++;
		if (!less(&b->h[c], &e))
			break;
		b->h[i] = b->h[c];
		i = c;
	}
	b->h[i] = e;
	return t;
}

static void hold(struct bheap *b, uint64_t events)
{
	uint64_t i;

	for (i = 0; i < events; i++) {
		b->now = pop(b);
		push(b, b->now + sim_time_from_s(sim_rng_exp(&b->rng,
							     b->mean_s)));
	}
}

/* The timed part, a function of its own so that callgrind can count it. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void bareheap_measured(struct bheap *b, uint64_t events)
{
	hold(b, events);
}

static int bare_one(const char *prog, uint64_t pending, uint64_t events,
		    double warmup, double mean_s, uint64_t seed)
{
	struct bheap b;
	struct sim_err err;
	uint64_t i, warm = (uint64_t)(warmup * (double)pending);
	double t0, c0, wall_s, cpu_s;

	sim_err_clear(&err);
	b.n = 0;
	b.seq = 0;
	b.now = 0;
	b.mean_s = mean_s;
	b.h = malloc(pending * sizeof *b.h);
	if (b.h == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (sim_rng_init(&b.rng, seed, "hold", 0, &err) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return 1;
	}
	for (i = 0; i < pending; i++)
		push(&b, sim_time_from_s(sim_rng_exp(&b.rng, mean_s)));
	hold(&b, warm);
	t0 = bench_now_s();
	c0 = bench_cpu_s();
	bareheap_measured(&b, events);
	cpu_s = bench_cpu_s() - c0;
	wall_s = bench_now_s() - t0;
	printf("bench bareheap pending=%llu warmup_events=%llu events=%llu "
	       "end_t_ns=%lld wall_s=%.3f cpu_s=%.3f "
	       "ns_per_event=%.1f events_per_s=%.0f\n",
	       (unsigned long long)b.n, (unsigned long long)warm,
	       (unsigned long long)events, (long long)b.now, wall_s,
	       cpu_s, cpu_s * 1e9 / (double)events,
	       (double)events / cpu_s);
	fflush(stdout);
	sim_rng_fini(&b.rng);
	free(b.h);
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
			     "The hold model on a bare binary heap (no engine); "
			     "prints one `bench bareheap ...` line per size.",
			     opts);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	sim_gsl_quiet();
	if (pending != 0)
		return bare_one(argv[0], pending, events, warmup, mean_s, seed);
	for (p = 1000; p <= 1000000; p *= 10)
		if ((rc = bare_one(argv[0], p, events, warmup, mean_s, seed)))
			return rc;
	return 0;
}
