/*
** test_engine.c: the event queue, the run loop, random streams and
** statistics accumulators (sim/).
*/
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/rng.h"
#include "sim/sim.h"
#include "sim/stats.h"
#include "tests/util.h"

/* A log of fired events, in order. */
struct trace_log {
	uint64_t ids[64];
	sim_time ts[64];
	int n;
};

static int log_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	struct trace_log *lg = ctx;

	if (lg->n < 64) {
		lg->ids[lg->n] = arg;
		lg->ts[lg->n] = sim->now;
		lg->n++;
	}
	return 0;
}

static void test_order_and_ties(void)
{
	struct sim sim;
	struct trace_log lg = { .n = 0 };

	sim_init(&sim);
	/* Inserted out of order; ties at t=5 differ by class, then by order. */
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 10, 1, log_fn, &lg, 1, NULL), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 5, 2, log_fn, &lg, 2, NULL), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 5, 1, log_fn, &lg, 3, NULL), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 5, 2, log_fn, &lg, 4, NULL), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 1, 9, log_fn, &lg, 5, NULL), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 5, 1, log_fn, &lg, 6, NULL), 0);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_EMPTY);
	CU_ASSERT_EQUAL(lg.n, 6);
	CU_ASSERT_EQUAL(lg.ids[0], 5);
	CU_ASSERT_EQUAL(lg.ids[1], 3);
	CU_ASSERT_EQUAL(lg.ids[2], 6);
	CU_ASSERT_EQUAL(lg.ids[3], 2);
	CU_ASSERT_EQUAL(lg.ids[4], 4);
	CU_ASSERT_EQUAL(lg.ids[5], 1);
	CU_ASSERT_EQUAL(lg.ts[5], 10);
	CU_ASSERT_EQUAL(sim.events, 6);
	CU_ASSERT_EQUAL(sim.now, 10);
	sim_fini(&sim);
}

/* Random keys against a sorted copy: pops come out in (t, seq) order. */
static void test_heap_random(void)
{
	struct sim_equeue q;
	struct sim_rng rng;
	enum { N = 20000 };
	static sim_time ts[N];
	sim_time prev_t = -1, t;
	uint64_t prev_arg = 0, arg;
	sim_event_fn fn;
	void *ctx;
	int i, n = 0;

	sim_equeue_init(&q);
	CU_ASSERT_EQUAL(sim_rng_init(&rng, 7, "heap", 0, NULL), 0);
	for (i = 0; i < N; i++) {
		ts[i] = (sim_time)sim_rng_int(&rng, 1000);  /* many ties */
		CU_ASSERT_EQUAL_FATAL(sim_equeue_push(&q, ts[i], 0, log_fn,
						      NULL, (uint64_t)i, NULL), 0);
	}
	while (sim_equeue_pop(&q, &t, &fn, &ctx, &arg)) {
		CU_ASSERT(t > prev_t || (t == prev_t && arg > prev_arg));
		CU_ASSERT_EQUAL(t, ts[arg]);
		prev_t = t;
		prev_arg = arg;
		n++;
	}
	CU_ASSERT_EQUAL(n, N);
	CU_ASSERT_EQUAL(sim_equeue_size(&q), 0);
	sim_rng_fini(&rng);
	sim_equeue_fini(&q);
}

static void test_cancel(void)
{
	struct sim sim;
	struct trace_log lg = { .n = 0 };
	uint64_t h1, h2, h3;

	sim_init(&sim);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 1, 0, log_fn, &lg, 1, &h1), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 2, 0, log_fn, &lg, 2, &h2), 0);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 3, 0, log_fn, &lg, 3, &h3), 0);
	CU_ASSERT(sim_equeue_pending(&sim.q, h2));
	CU_ASSERT_EQUAL(sim_cancel(&sim, h2), 0);
	CU_ASSERT(!sim_equeue_pending(&sim.q, h2));
	CU_ASSERT_EQUAL(sim_cancel(&sim, h2), SIM_ESTALE);   /* twice */
	CU_ASSERT_EQUAL(sim_cancel(&sim, 0), SIM_ESTALE);    /* never issued */
	CU_ASSERT_EQUAL(sim_equeue_size(&sim.q), 2);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_EMPTY);
	CU_ASSERT_EQUAL(lg.n, 2);
	CU_ASSERT_EQUAL(lg.ids[0], 1);
	CU_ASSERT_EQUAL(lg.ids[1], 3);
	/* A fired event's handle is stale, even once its slot is reused. */
	CU_ASSERT_EQUAL(sim_cancel(&sim, h1), SIM_ESTALE);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 9, 0, log_fn, &lg, 9, NULL), 0);
	CU_ASSERT_EQUAL(sim_cancel(&sim, h3), SIM_ESTALE);
	CU_ASSERT_EQUAL(sim_equeue_size(&sim.q), 1);
	sim_fini(&sim);
}

/* Cancel-and-reschedule churn: tombstones are swept, survivors run. */
static void test_cancel_churn(void)
{
	struct sim sim;
	struct trace_log lg = { .n = 0 };
	uint64_t h;
	int i;

	sim_init(&sim);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 1000000, 0, log_fn, &lg, 0, &h), 0);
	for (i = 1; i <= 100000; i++) {
		CU_ASSERT_EQUAL_FATAL(sim_cancel(&sim, h), 0);
		CU_ASSERT_EQUAL_FATAL(sim_schedule_at(&sim, 1000000 + i, 0,
					log_fn, &lg, (uint64_t)i, &h), 0);
	}
	CU_ASSERT(sim.q.n < 10000);      /* swept, not 100001 entries */
	CU_ASSERT_EQUAL(sim_equeue_size(&sim.q), 1);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_EMPTY);
	CU_ASSERT_EQUAL(lg.n, 1);
	CU_ASSERT_EQUAL(lg.ids[0], 100000);
	sim_fini(&sim);
}

static int past_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	int *rc = ctx;
	(void)arg;
	*rc = sim_schedule_at(sim, sim->now - 1, 0, log_fn, NULL, 0, NULL);
	return 0;
}

static void test_past_refused(void)
{
	struct sim sim;
	int rc = 0;

	sim_init(&sim);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 100, 0, past_fn, &rc, 0, NULL), 0);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_EMPTY);
	CU_ASSERT_EQUAL(rc, SIM_EPAST);
	CU_ASSERT_EQUAL(sim_schedule_in(&sim, -1, 0, log_fn, NULL, 0, NULL),
			SIM_EPAST);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 100, 0, log_fn, NULL, 0, NULL), 0);
	CU_ASSERT_EQUAL(sim_equeue_size(&sim.q), 1);
	sim_fini(&sim);
}

/* Reschedules itself every 10 ns forever. */
static int tick_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	int *count = ctx;
	(*count)++;
	return sim_schedule_in(sim, 10, 0, tick_fn, ctx, arg, NULL);
}

static int stop_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	(void)ctx; (void)arg;
	sim_stop(sim);
	return 0;
}

static int fail_fn(struct sim *sim, void *ctx, uint64_t arg)
{
	(void)ctx; (void)arg;
	return sim_fail(sim, SIM_EINVAL, "boom at %lld", (long long)sim->now);
}

static void test_stop_conditions(void)
{
	struct sim sim;
	int count = 0;

	sim_init(&sim);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, 0, 0, tick_fn, &count, 0, NULL), 0);
	/* Horizon 95: ticks at 0, 10, ..., 90 run; the clock ends at 95. */
	CU_ASSERT_EQUAL(sim_run(&sim, 95, 0), SIM_STOP_HORIZON);
	CU_ASSERT_EQUAL(count, 10);
	CU_ASSERT_EQUAL(sim.now, 95);
	/* An event exactly at the horizon runs. */
	CU_ASSERT_EQUAL(sim_run(&sim, 100, 0), SIM_STOP_HORIZON);
	CU_ASSERT_EQUAL(count, 11);
	/* The budget counts all events executed so far. */
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 20), SIM_STOP_BUDGET);
	CU_ASSERT_EQUAL(sim.events, 20);
	CU_ASSERT_EQUAL(count, 20);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, sim.now + 5, 0, stop_fn, NULL, 0,
					NULL), 0);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_REQUEST);
	CU_ASSERT_EQUAL(sim.now, 195);
	CU_ASSERT_EQUAL(sim_schedule_at(&sim, sim.now + 1, 0, fail_fn, NULL, 0,
					NULL), 0);
	CU_ASSERT_EQUAL(sim_run(&sim, SIM_TIME_MAX, 0), SIM_STOP_ERROR);
	CU_ASSERT_EQUAL(sim.err.code, SIM_EINVAL);
	CU_ASSERT_STRING_EQUAL(sim.err.msg, "boom at 196");
	sim_fini(&sim);
}

static void test_time_conversions(void)
{
	CU_ASSERT_EQUAL(sim_time_from_s(1.5), 1500000000);
	CU_ASSERT_EQUAL(sim_time_from_ms(2.0000004), 2000000);
	CU_ASSERT_EQUAL(sim_time_from_us(0.0006), 1);
	CU_ASSERT_EQUAL(sim_time_from_s(1e30), SIM_TIME_MAX);
	CU_ASSERT_EQUAL(sim_time_from_s(NAN), 0);
	CU_ASSERT_DOUBLE_EQUAL(sim_time_to_s(2500000000), 2.5, 1e-12);
	CU_ASSERT_EQUAL(sim_time_add_sat(SIM_TIME_MAX - 1, 5), SIM_TIME_MAX);
}

static void test_rng_reproducible(void)
{
	struct sim_rng a, b, c;
	int i, same = 1, differ = 0;

	CU_ASSERT_EQUAL(sim_rng_init(&a, 42, "arrivals", 3, NULL), 0);
	CU_ASSERT_EQUAL(sim_rng_init(&b, 42, "arrivals", 3, NULL), 0);
	CU_ASSERT_EQUAL(sim_rng_init(&c, 42, "arrivals", 4, NULL), 0);
	for (i = 0; i < 1000; i++) {
		double x = sim_rng_uniform(&a), y = sim_rng_uniform(&b);
		double z = sim_rng_uniform(&c);
		same &= (x == y);
		differ += (x != z);
	}
	CU_ASSERT(same);
	CU_ASSERT(differ > 990);
	CU_ASSERT_NOT_EQUAL(sim_rng_seed(42, "arrivals", 0),
			    sim_rng_seed(42, "sizes", 0));
	CU_ASSERT_NOT_EQUAL(sim_rng_seed(42, "arrivals", 0),
			    sim_rng_seed(43, "arrivals", 0));
	sim_rng_fini(&a);
	sim_rng_fini(&b);
	sim_rng_fini(&c);
}

/* Draws of stream A are the same whether or not stream B exists and is
** drawn from in between (independence of named streams). */
static void test_rng_independent(void)
{
	struct sim_rng a, b;
	double alone[100], interleaved[100];
	int i;

	CU_ASSERT_EQUAL(sim_rng_init(&a, 1, "jobs", 0, NULL), 0);
	for (i = 0; i < 100; i++)
		alone[i] = sim_rng_exp(&a, 2.0);
	sim_rng_fini(&a);
	CU_ASSERT_EQUAL(sim_rng_init(&b, 1, "policy", 0, NULL), 0);
	CU_ASSERT_EQUAL(sim_rng_init(&a, 1, "jobs", 0, NULL), 0);
	for (i = 0; i < 100; i++) {
		(void)sim_rng_uniform(&b);
		interleaved[i] = sim_rng_exp(&a, 2.0);
		(void)sim_rng_uniform(&b);
	}
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(alone[i], interleaved[i]);
	sim_rng_fini(&a);
	sim_rng_fini(&b);
}

static void test_twacc(void)
{
	struct sim_twacc a;

	/* 2 on [0,10), 6 on [10,15), 0 on [15,20): area 20+30+0 = 50 over 20. */
	sim_twacc_init(&a, 0, 2.0);
	sim_twacc_set(&a, 10, 6.0);
	sim_twacc_add(&a, 15, -6.0);
	CU_ASSERT_DOUBLE_EQUAL(sim_twacc_mean(&a, 20), 2.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(a.peak, 6.0, 0);
	/* Window starting later: [5, 15]: 2*5 + 6*5 = 40 / 10. */
	sim_twacc_init(&a, 5, 2.0);
	sim_twacc_set(&a, 10, 6.0);
	CU_ASSERT_DOUBLE_EQUAL(sim_twacc_mean(&a, 15), 4.0, 1e-12);
}

/* A million tiny updates: the compensated area does not drift. */
static void test_twacc_no_drift(void)
{
	struct sim_twacc a;
	int i;

	sim_twacc_init(&a, 0, 0.1);
	for (i = 1; i <= 1000000; i++)
		sim_twacc_set(&a, (sim_time)i * 3, (i % 2) ? 0.3 : 0.1);
	/* Alternating 0.1 and 0.3 in equal spans: mean exactly 0.2. */
	CU_ASSERT_DOUBLE_EQUAL(sim_twacc_mean(&a, 3000000), 0.2, 1e-13);
}

static void test_sample_quantiles(void)
{
	struct sim_sample s;
	struct sim_rng rng;
	double v[501], sorted[501];
	int i;

	sim_sample_init(&s, 0);
	CU_ASSERT(isnan(sim_sample_quantile(&s, 0.5)));
	CU_ASSERT_EQUAL(sim_rng_init(&rng, 3, "q", 0, NULL), 0);
	for (i = 0; i < 501; i++) {
		v[i] = sorted[i] = sim_rng_exp(&rng, 10.0);
		sim_sample_add(&s, v[i]);
	}
	gsl_sort(sorted, 1, 501);
	CU_ASSERT_EQUAL(sim_sample_quantile(&s, 0.5), sorted[250]);
	CU_ASSERT_EQUAL(sim_sample_quantile(&s, 0.0), sorted[0]);
	CU_ASSERT_EQUAL(sim_sample_quantile(&s, 1.0), sorted[500]);
	/* q = 0.99: position 495 exactly. */
	CU_ASSERT_DOUBLE_EQUAL(sim_sample_quantile(&s, 0.99), sorted[495], 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.mean, gsl_stats_mean(v, 1, 501), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sim_sample_var(&s), gsl_stats_variance(v, 1, 501),
			       1e-7);
	CU_ASSERT_EQUAL(s.min, sorted[0]);
	CU_ASSERT_EQUAL(s.max, sorted[500]);
	sim_sample_fini(&s);
	sim_rng_fini(&rng);
}

/* Past the exact cap, quantiles stay within 1% of the exact ones. */
static void test_sample_histogram(void)
{
	struct sim_sample s;
	struct sim_rng rng;
	enum { N = 50000 };
	static double sorted[N];
	const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999 };
	size_t k;
	int i;

	sim_sample_init(&s, 1000);
	CU_ASSERT_EQUAL(sim_rng_init(&rng, 5, "h", 0, NULL), 0);
	for (i = 0; i < N; i++) {
		sorted[i] = 0.1 + sim_rng_exp(&rng, 20.0);
		CU_ASSERT_EQUAL_FATAL(sim_sample_add(&s, sorted[i]), 0);
	}
	CU_ASSERT(sim_sample_is_hist(&s));
	gsl_sort(sorted, 1, N);
	for (k = 0; k < sizeof qs / sizeof qs[0]; k++) {
		size_t r = (size_t)ceil(qs[k] * N) - 1;
		double got = sim_sample_quantile(&s, qs[k]);
		CU_ASSERT(fabs(got - sorted[r]) <= SIM_HIST_REL_ERR * sorted[r]);
	}
	sim_sample_fini(&s);
	sim_rng_fini(&rng);
}

TEST_REGISTER(engine)
{
	static const struct test_case cases[] = {
		{ "order and tie-breaking", test_order_and_ties },
		{ "heap against sorted keys", test_heap_random },
		{ "cancellation", test_cancel },
		{ "cancel/reschedule churn sweeps tombstones", test_cancel_churn },
		{ "past events refused", test_past_refused },
		{ "stop conditions", test_stop_conditions },
		{ "time conversions", test_time_conversions },
		{ "rng reproducible", test_rng_reproducible },
		{ "rng streams independent", test_rng_independent },
		{ "time-weighted mean by hand", test_twacc },
		{ "time-weighted mean without drift", test_twacc_no_drift },
		{ "quantiles against sorted array", test_sample_quantiles },
		{ "histogram quantiles within 1%", test_sample_histogram },
		{ NULL, NULL }
	};
	return test_add_suite("engine", cases);
}
