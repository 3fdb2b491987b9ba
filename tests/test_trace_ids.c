/*
** test_trace_ids.c: the trace reader's id set (traces/trace_ids.h): a
** duplicate is reported with its first line whichever structure holds the
** id; ids j1..jn in order cost one interval, not a slot each; "j007" and
** "j7" are different ids; ids in no order still answer right (checked
** against a brute-force list).
*/
#include <stdio.h>
#include <string.h>

#include "sim/err.h"
#include "sim/rng.h"
#include "tests/util.h"
#include "traces/trace_ids.h"

static void test_sequential_ids_constant(void)
{
	struct trace_ids s;
	char id[32];
	long k;
	size_t small;

	trace_ids_init(&s);
	for (k = 1; k <= 1000; k++) {
		snprintf(id, sizeof id, "j%ld", k);
		CU_ASSERT_EQUAL(trace_ids_add(&s, id, k + 2), 0);
	}
	small = trace_ids_bytes(&s);
	for (; k <= 200000; k++) {
		snprintf(id, sizeof id, "j%ld", k);
		if (trace_ids_add(&s, id, k + 2) != 0)
			break;
	}
	CU_ASSERT_EQUAL(k, 200001);
	/* one interval per digit count: no growth (a hash slot each would
	** be 2.4 MB) */
	CU_ASSERT_EQUAL(trace_ids_bytes(&s), small);
	CU_ASSERT(trace_ids_bytes(&s) < 8192);
	CU_ASSERT_EQUAL(s.iv.count, 6);
	CU_ASSERT_EQUAL(s.n, 0);
	/* a duplicate anywhere in the run: its own line */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j1", 500000), 3);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j777", 500001), 779);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j200000", 500002), 200002);
	trace_ids_fini(&s);
}

static void test_leading_zeros_and_forms(void)
{
	struct trace_ids s;

	trace_ids_init(&s);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j7", 2), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j007", 3), 0);   /* not j7 */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j07", 4), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j0", 5), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "0", 6), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "7", 7), 0);      /* prefix "" */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "k7", 8), 0);     /* other prefix */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "job", 9), 0);    /* no digits */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j8", 10), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j007", 11), 3);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j7", 12), 2);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j07", 13), 4);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j0", 14), 5);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "0", 15), 6);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "7", 16), 7);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "k7", 17), 8);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "job", 18), 9);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "j8", 19), 10);
	/* more than 18 digits: the hash table */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "x1234567890123456789", 20), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "x1234567890123456789", 21), 20);
	trace_ids_fini(&s);
}

/* Ids drawn from a small range in a random order, with gaps in the lines
** (comments): every answer as a brute-force list gives it. */
static void test_random_order_against_list(void)
{
	enum { N = 20000, RANGE = 6000 };
	static long first[3][RANGE];
	static const char *const pre[3] = { "a", "b-", "" };
	struct trace_ids s;
	uint64_t ctr = 42;
	long line = 1;
	int k, bad = 0;

	memset(first, 0, sizeof first);
	trace_ids_init(&s);
	for (k = 0; k < N; k++) {
		int p = (int)(sim_mix64(ctr++) % 3);
		/* runs of consecutive ids, then a jump */
		int v = k % 7 != 0 ? (k * 13) % RANGE :
			(int)(sim_mix64(ctr++) % RANGE);
		char id[32];
		long got;
		line += 1 + (sim_mix64(ctr++) % 5 == 0);
		snprintf(id, sizeof id, "%s%d", pre[p], v);
		got = trace_ids_add(&s, id, line);
		if (got != first[p][v])
			bad++;
		if (first[p][v] == 0)
			first[p][v] = line;
	}
	CU_ASSERT_EQUAL(bad, 0);
	trace_ids_fini(&s);
}

/* gen's mixed traces: train-0001, infer-0002, ... numbered in file
** order: one interval per digit count and a byte per id, not a slot. */
static void test_interleaved_prefixes(void)
{
	enum { N = 50000 };
	struct trace_ids s;
	char id[32];
	long k;

	trace_ids_init(&s);
	for (k = 0; k < N; k++) {
		snprintf(id, sizeof id, "%s-%04ld",
			 k % 3 == 1 ? "infer" : "train", k);
		CU_ASSERT_EQUAL(trace_ids_add(&s, id, k + 5), 0);
	}
	CU_ASSERT_EQUAL(s.iv.count, 2);       /* 4 digits, then 5 */
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT(trace_ids_bytes(&s) < (size_t)N * 3);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "infer-0001", 1), 6);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "train-12345", 1), 12350);
	/* the same number, the other prefix: a new id (then a duplicate) */
	CU_ASSERT_EQUAL(trace_ids_add(&s, "train-0001", 1), 0);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "train-0001", 2), 1);
	CU_ASSERT_EQUAL(trace_ids_add(&s, "train-1", 3), 0);
	trace_ids_fini(&s);
}

TEST_REGISTER(trace_ids)
{
	static const struct test_case cases[] = {
		{ "ids in order: one interval", test_sequential_ids_constant },
		{ "leading zeros and other forms", test_leading_zeros_and_forms },
		{ "random order: as a list", test_random_order_against_list },
		{ "interleaved prefixes: one interval",
		  test_interleaved_prefixes },
		{ NULL, NULL }
	};
	return test_add_suite("trace_ids", cases);
}
