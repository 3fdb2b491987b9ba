/*
** test_num.c: the number parser (sim/num.h): whole-string syntax, NaN and
** infinity refused, ranges, overflow, messages naming the field, and the
** checked seconds-to-nanoseconds conversion.
*/
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "sim/num.h"
#include "sim/time.h"
#include "tests/util.h"

static void test_double(void)
{
	struct sim_err err;
	double v = -1;
	static const char *const bad[] = {
		"", " 1", "1 ", "1x", "nan", "NaN", "inf", "-inf", "infinity",
		"0x10", "1e", "1e+", ".", "-", "+", "1..2", "--1", "1,5", NULL
	};
	int i;

	CU_ASSERT_EQUAL(sim_num_double("2.5", "x", 0, 10, &v, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 2.5, 0);
	CU_ASSERT_EQUAL(sim_num_double("-1e3", "x", -DBL_MAX, DBL_MAX, &v,
				       NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, -1000, 0);
	CU_ASSERT_EQUAL(sim_num_double(".5", "x", 0, 1, &v, NULL), 0);
	CU_ASSERT_EQUAL(sim_num_double("5.", "x", 0, 10, &v, NULL), 0);
	CU_ASSERT_EQUAL(sim_num_double("+3", "x", 0, 10, &v, NULL), 0);
	for (i = 0; bad[i] != NULL; i++) {
		v = 42;
		CU_ASSERT_EQUAL(sim_num_double(bad[i], "x", -DBL_MAX, DBL_MAX,
					       &v, NULL), SIM_EPARSE);
		CU_ASSERT_DOUBLE_EQUAL(v, 42, 0);     /* untouched */
	}
	/* overflow to infinity is out of range, never a value */
	CU_ASSERT_EQUAL(sim_num_double("1e999", "x", -DBL_MAX, DBL_MAX, &v,
				       NULL), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_double("-1e999", "x", -DBL_MAX, DBL_MAX, &v,
				       NULL), SIM_ERANGE);
	/* the range is inclusive */
	CU_ASSERT_EQUAL(sim_num_double("1", "x", 0, 1, &v, NULL), 0);
	CU_ASSERT_EQUAL(sim_num_double("1.0000001", "x", 0, 1, &v, NULL),
			SIM_ERANGE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_double("7", "t.csv:3:9: rate", 0, 5, &v,
				       &err), SIM_ERANGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "t.csv:3:9: rate: expected a number "
			       "in [0, 5], got '7'");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_double("nan", "k", 0, DBL_MAX, &v, &err),
			SIM_EPARSE);
	CU_ASSERT_STRING_EQUAL(err.msg, "k: expected a number >= 0, got "
			       "'nan'");
}

static void test_integers(void)
{
	struct sim_err err;
	int64_t v = 0;
	uint64_t u = 0;
	int k = 0;

	CU_ASSERT_EQUAL(sim_num_i64("-42", "n", INT64_MIN, INT64_MAX, &v,
				    NULL), 0);
	CU_ASSERT_EQUAL(v, -42);
	/* decimal only: "010" is ten, not eight */
	CU_ASSERT_EQUAL(sim_num_i64("010", "n", 0, 100, &v, NULL), 0);
	CU_ASSERT_EQUAL(v, 10);
	CU_ASSERT_EQUAL(sim_num_i64("9223372036854775807", "n", INT64_MIN,
				    INT64_MAX, &v, NULL), 0);
	CU_ASSERT_EQUAL(v, INT64_MAX);
	CU_ASSERT_EQUAL(sim_num_i64("9223372036854775808", "n", INT64_MIN,
				    INT64_MAX, &v, NULL), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_i64("1.0", "n", 0, 9, &v, NULL), SIM_EPARSE);
	CU_ASSERT_EQUAL(sim_num_i64("0x1", "n", 0, 9, &v, NULL), SIM_EPARSE);
	CU_ASSERT_EQUAL(sim_num_i64("", "n", 0, 9, &v, NULL), SIM_EPARSE);
	CU_ASSERT_EQUAL(sim_num_int("2147483648", "n", 0, INT32_MAX, &k, NULL),
			SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_int("12", "n", 1, 64, &k, NULL), 0);
	CU_ASSERT_EQUAL(k, 12);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_int("0", "--gpus", 1, 64, &k, &err),
			SIM_ERANGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--gpus: expected an integer in "
			       "[1, 64], got '0'");
	/* unsigned: full 64-bit range, no negative wrap-around */
	CU_ASSERT_EQUAL(sim_num_u64("18446744073709551615", "s", 0,
				    UINT64_MAX, &u, NULL), 0);
	CU_ASSERT(u == UINT64_MAX);
	CU_ASSERT_EQUAL(sim_num_u64("18446744073709551616", "s", 0,
				    UINT64_MAX, &u, NULL), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_u64("-1", "s", 0, UINT64_MAX, &u, NULL),
			SIM_EPARSE);
}

static void test_seconds(void)
{
	struct sim_err err;
	sim_time t = 0;

	/* accepted values convert exactly as sim_time_from_s */
	CU_ASSERT_EQUAL(sim_num_s_to_ns(1.5, &t), 0);
	CU_ASSERT_EQUAL(t, sim_time_from_s(1.5));
	CU_ASSERT_EQUAL(sim_num_s_to_ns(0.1234567894, &t), 0);
	CU_ASSERT_EQUAL(t, sim_time_from_s(0.1234567894));
	CU_ASSERT_EQUAL(sim_num_ms_to_ns(2.5, &t), 0);
	CU_ASSERT_EQUAL(t, 2500000);
	/* 4.6e9 s fits (below 2^62 ns); 4.7e9 s and 1e300 s do not */
	CU_ASSERT_EQUAL(sim_num_s_to_ns(4.6e9, &t), 0);
	CU_ASSERT_EQUAL(t, INT64_C(4600000000000000000));
	t = 7;
	CU_ASSERT_EQUAL(sim_num_s_to_ns(4.7e9, &t), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_s_to_ns(1e300, &t), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_s_to_ns(-1e300, &t), SIM_ERANGE);
	CU_ASSERT_EQUAL(sim_num_ms_to_ns(4.7e12, &t), SIM_ERANGE);
	CU_ASSERT_EQUAL(t, 7);                       /* untouched */
	CU_ASSERT_EQUAL(sim_num_s_to_ns(SIM_NUM_TIME_MAX_S, &t), 0);
	CU_ASSERT_EQUAL(t, SIM_NUM_TIME_MAX_NS);
	/* text */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_secs("60", "d", 0, 1e12, &t, &err), 0);
	CU_ASSERT_EQUAL(t, 60 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(sim_num_secs("4.7e9", "t.csv:3:20: duration_s", 0,
				     1e12, &t, &err), SIM_ERANGE);
	CU_ASSERT(strstr(err.msg, "t.csv:3:20: duration_s: expected seconds "
			 "in [0, 4.61169e+09], got '4.7e9'") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_secs("1e300", "d", 0, 1e12, &t, &err),
			SIM_ERANGE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_secs("inf", "d", 0, 1e12, &t, &err),
			SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_secs("-1", "d", 0, 1e12, &t, &err),
			SIM_ERANGE);
}

static void test_long_text(void)
{
	char s[200];
	double v;

	/* a number of 100 digits is malformed (over SIM_NUM_TEXT_MAX), and
	** the message shows only the first 40 characters */
	struct sim_err err;

	memset(s, '1', 100);
	s[100] = '\0';
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_num_double(s, "x", -DBL_MAX, DBL_MAX, &v, &err),
			SIM_EPARSE);
	CU_ASSERT(strlen(err.msg) < 100);
	CU_ASSERT(strstr(err.msg, "...'") != NULL);
}

TEST_REGISTER(num)
{
	static const struct test_case cases[] = {
		{"decimals: syntax, NaN/inf, range", test_double},
		{"integers: overflow, range, decimal only", test_integers},
		{"seconds to ns refuses what does not fit", test_seconds},
		{"long number text", test_long_text},
		{NULL, NULL}
	};
	return test_add_suite("num", cases);
}
