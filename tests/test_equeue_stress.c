/*
** test_equeue_stress.c: the event queue (sim/equeue.c) against a reference.
**
** The queue is a 4-ary heap whose entries keep (time, class) inline and the
** insertion sequence in the slot, with tombstone cancellation and sweeps.
** Here a random mix of pushes (few distinct times and classes, so ties on
** both are common), cancellations (bursts large enough to trigger sweeps)
** and pops is replayed on the queue and on a plain array searched linearly
** for the least (t, class, insertion order).  Every pop must return exactly
** the reference's event, and pending/size must agree throughout.
*/
#include <stdlib.h>

#include "sim/equeue.h"
#include "sim/err.h"
#include "sim/rng.h"
#include "tests/util.h"

enum { MAXEV = 40000 };

struct ref_ev {
	sim_time t;
	unsigned prio;
	uint64_t id;          /* insertion order, also the event's arg */
	uint64_t handle;
	int live;
};

struct ref {
	struct ref_ev *ev;
	size_t n;             /* events ever pushed */
};

static int nop_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	(void)sim;
	(void)ctx;
	(void)arg;
	return 0;
}

/* The index of the reference's least live event, or -1. */
static long ref_min(const struct ref *r)
{
	long best = -1;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct ref_ev *e = &r->ev[i];
		const struct ref_ev *b;
		if (!e->live)
			continue;
		if (best < 0) {
			best = (long)i;
			continue;
		}
		b = &r->ev[best];
		/* Ids rise with i, so a tie on (t, prio) keeps the first. */
		if (e->t < b->t || (e->t == b->t && e->prio < b->prio))
			best = (long)i;
	}
	return best;
}

/* Pops one event from both and checks they agree. */
static int pop_both(struct sim_equeue *q, struct ref *r, size_t *live)
{
	long m = ref_min(r);
	sim_time t;
	sim_event_fn fn;
	void *ctx;
	uint64_t arg;
	int got = sim_equeue_pop(q, &t, &fn, &ctx, &arg);

	if (m < 0)
		return got == 0;
	if (got != 1 || arg != r->ev[m].id || t != r->ev[m].t ||
	    fn != nop_fn)
		return 0;
	r->ev[m].live = 0;
	(*live)--;
	return !sim_equeue_pending(q, r->ev[m].handle);
}

static void run_mix(uint64_t seed, int distinct_t, int steps)
{
	struct sim_equeue q;
	struct sim_rng rng;
	struct ref r;
	size_t live = 0;
	int step, bad = 0;

	r.ev = calloc(MAXEV, sizeof *r.ev);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.ev);
	r.n = 0;
	sim_equeue_init(&q);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, seed, "equeue-stress", 0,
					   NULL), 0);
	for (step = 0; step < steps && !bad; step++) {
		unsigned long op = sim_rng_int(&rng, 100);
		/* Phases: fill (pushes), churn (cancel bursts), drain. */
		int phase = step * 3 / steps;

		if ((phase == 0 && op < 70) || (phase == 1 && op < 50)) {
			struct ref_ev *e;
			if (r.n == MAXEV)
				continue;
			e = &r.ev[r.n];
			e->t = (sim_time)sim_rng_int(&rng,
					(unsigned long)distinct_t);
			e->prio = (unsigned)sim_rng_int(&rng, 3);
			e->id = r.n;
			e->live = 1;
			if (sim_equeue_push(&q, e->t, e->prio, nop_fn, NULL,
					    e->id, &e->handle) != 0)
				bad = 1;
			r.n++;
			live++;
		} else if (phase == 1 && op < 95 && r.n > 0) {
			/* Cancel a random event; stale ones must say so. */
			size_t i = sim_rng_int(&rng, (unsigned long)r.n);
			int rc = sim_equeue_cancel(&q, r.ev[i].handle);
			if (r.ev[i].live) {
				bad |= rc != 0;
				r.ev[i].live = 0;
				live--;
			} else {
				bad |= rc != SIM_ESTALE;
			}
		} else {
			bad |= !pop_both(&q, &r, &live);
		}
		bad |= sim_equeue_size(&q) != live;
	}
	CU_ASSERT_FALSE(bad);
	while (!bad && live > 0)
		bad |= !pop_both(&q, &r, &live);
	CU_ASSERT_FALSE(bad);
	CU_ASSERT_EQUAL(sim_equeue_size(&q), 0);
	CU_ASSERT_EQUAL(sim_equeue_peek(&q), SIM_TIME_NEVER);
	sim_rng_fini(&rng);
	sim_equeue_fini(&q);
	free(r.ev);
}

/* Mostly distinct times: the order comes from the times. */
static void test_mix_distinct(void)
{
	run_mix(11, 1000000000, 12000);
}

/* Eight distinct times: nearly every comparison is a tie on t or class. */
static void test_mix_ties(void)
{
	run_mix(12, 8, 12000);
}

/* Enough cancellations in a large queue to trigger tombstone sweeps. */
static void test_mix_sweeps(void)
{
	struct sim_equeue q;
	uint64_t h[12000];
	sim_time t;
	sim_event_fn fn;
	void *ctx;
	uint64_t arg, prev = 0;
	int i, n = 0, ok = 1;

	sim_equeue_init(&q);
	for (i = 0; i < 12000; i++)
		CU_ASSERT_EQUAL_FATAL(sim_equeue_push(&q, (sim_time)(i % 50),
				(unsigned)(i % 3), nop_fn, NULL, (uint64_t)i,
				&h[i]), 0);
	/* Cancel all but every tenth: the sweep runs once tombstones pass
	** 4096 and outnumber the live events. */
	for (i = 0; i < 12000; i++)
		if (i % 10 != 0)
			CU_ASSERT_EQUAL(sim_equeue_cancel(&q, h[i]), 0);
	CU_ASSERT(q.n < 12000);
	CU_ASSERT_EQUAL(sim_equeue_size(&q), 1200);
	/* Survivors come out by (t, class, id): t = i%50, class = i%3. */
	while (sim_equeue_pop(&q, &t, &fn, &ctx, &arg)) {
		uint64_t key = (uint64_t)(arg % 50) << 40 |
			       (uint64_t)(arg % 3) << 32 | arg;
		ok &= arg % 10 == 0 && t == (sim_time)(arg % 50);
		ok &= n == 0 || key > prev;
		prev = key;
		n++;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(n, 1200);
	sim_equeue_fini(&q);
}

TEST_REGISTER(equeue_stress)
{
	static const struct test_case cases[] = {
		{ "random push/cancel/pop, distinct times", test_mix_distinct },
		{ "random push/cancel/pop, heavy ties", test_mix_ties },
		{ "cancellation sweep keeps the order", test_mix_sweeps },
		{ NULL, NULL }
	};
	return test_add_suite("equeue_stress", cases);
}
