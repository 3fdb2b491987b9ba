/*
** num.c: whole-string number parsing with ranges, and checked conversion
** of seconds to nanoseconds (see num.h).
**
** strtod and strtoll do the conversion; this file adds what they leave to
** every caller: the syntax check before (plain decimal only, so no "inf",
** "nan", hex or blanks), the full-string check after, overflow (ERANGE),
** and the range.
*/
#include "sim/num.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "WHAT: " or "" */
static const char *sep(const char *what)
{
	return what != NULL && what[0] != '\0' ? ": " : "";
}

static const char *nz(const char *what)
{
	return what != NULL ? what : "";
}

/* The range as words: "", " >= LO", " <= HI" or " in [LO, HI]". */
static void range_text(char *buf, size_t n, int has_lo, int has_hi,
		       const char *lo, const char *hi)
{
	if (has_lo && has_hi)
		snprintf(buf, n, " in [%s, %s]", lo, hi);
	else if (has_lo)
		snprintf(buf, n, " >= %s", lo);
	else if (has_hi)
		snprintf(buf, n, " <= %s", hi);
	else
		buf[0] = '\0';
}

static int fail(struct sim_err *err, int code, const char *what,
		const char *kind, const char *range, const char *s)
{
	return sim_err_set(err, code, "%s%sexpected %s%s, got '%.40s%s'",
			   nz(what), sep(what), kind, range, s,
			   strlen(s) > 40 ? "..." : "");
}

int sim_num_is_decimal(const char *s)
{
	const char *p = s;
	int digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (digits == 0)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0' && (size_t)(p - s) <= SIM_NUM_TEXT_MAX;
}

/* 1 when s is [+-]digits of sane length. */
static int is_integer(const char *s)
{
	const char *p = s;

	if (*p == '+' || *p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == '\0' && (size_t)(p - s) <= SIM_NUM_TEXT_MAX;
}

static void dbl_range(char *buf, size_t n, double lo, double hi)
{
	char a[32], b[32];

	snprintf(a, sizeof a, "%g", lo);
	snprintf(b, sizeof b, "%g", hi);
	range_text(buf, n, lo > -DBL_MAX, hi < DBL_MAX, a, b);
}

int sim_num_double(const char *s, const char *what, double lo, double hi,
		   double *out, struct sim_err *err)
{
	char range[80], *end;
	double v;

	/* the range's text is made only for an error: printing two doubles
	** per field was a sixth of a replay's CPU */
	if (!sim_num_is_decimal(s)) {
		dbl_range(range, sizeof range, lo, hi);
		return fail(err, SIM_EPARSE, what, "a number", range, s);
	}
	errno = 0;
	v = strtod(s, &end);
	/* ERANGE on underflow still gives a usable (tiny or 0) value; on
	** overflow v is +-HUGE_VAL and the finite check refuses it. */
	if (*end != '\0' || !isfinite(v) || v < lo || v > hi) {
		dbl_range(range, sizeof range, lo, hi);
		return fail(err, SIM_ERANGE, what, "a number", range, s);
	}
	*out = v;
	return 0;
}

static void i64_range(char *buf, size_t n, int64_t lo, int64_t hi)
{
	char a[32], b[32];

	snprintf(a, sizeof a, "%lld", (long long)lo);
	snprintf(b, sizeof b, "%lld", (long long)hi);
	range_text(buf, n, lo > INT64_MIN, hi < INT64_MAX, a, b);
}

int sim_num_i64(const char *s, const char *what, int64_t lo, int64_t hi,
		int64_t *out, struct sim_err *err)
{
	char range[80], *end;
	long long v;

	if (!is_integer(s)) {
		i64_range(range, sizeof range, lo, hi);
		return fail(err, SIM_EPARSE, what, "an integer", range, s);
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || errno == ERANGE || v < lo || v > hi) {
		i64_range(range, sizeof range, lo, hi);
		return fail(err, SIM_ERANGE, what, "an integer", range, s);
	}
	*out = v;
	return 0;
}

int sim_num_int(const char *s, const char *what, int lo, int hi, int *out,
		struct sim_err *err)
{
	int64_t v;
	int rc = sim_num_i64(s, what, lo, hi, &v, err);

	if (rc == 0)
		*out = (int)v;
	return rc;
}

static void u64_range(char *buf, size_t n, uint64_t lo, uint64_t hi)
{
	char a[32], b[32];

	snprintf(a, sizeof a, "%llu", (unsigned long long)lo);
	snprintf(b, sizeof b, "%llu", (unsigned long long)hi);
	range_text(buf, n, lo > 0, hi < UINT64_MAX, a, b);
}

int sim_num_u64(const char *s, const char *what, uint64_t lo, uint64_t hi,
		uint64_t *out, struct sim_err *err)
{
	char range[80], *end;
	unsigned long long v;

	/* strtoull accepts "-1" (as 2^64 - 1): refuse any sign but '+'. */
	if (!is_integer(s) || s[0] == '-') {
		u64_range(range, sizeof range, lo, hi);
		return fail(err, SIM_EPARSE, what, "an unsigned integer",
			    range, s);
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0' || errno == ERANGE || v < lo || v > hi) {
		u64_range(range, sizeof range, lo, hi);
		return fail(err, SIM_ERANGE, what, "an unsigned integer",
			    range, s);
	}
	*out = v;
	return 0;
}

static int scaled_to_ns(double x, sim_time *out)
{
	/* 2^62 is exact in a double; so is every integer-valued bound. */
	if (!isfinite(x) || fabs(x) > (double)SIM_NUM_TIME_MAX_NS)
		return SIM_ERANGE;
	*out = (sim_time)llround(x);
	return 0;
}

int sim_num_s_to_ns(double s, sim_time *out)
{
	return scaled_to_ns(s * 1e9, out);
}

int sim_num_ms_to_ns(double ms, sim_time *out)
{
	return scaled_to_ns(ms * 1e6, out);
}

int sim_num_secs(const char *s, const char *what, double lo_s, double hi_s,
		 sim_time *out_ns, struct sim_err *err)
{
	char range[80];
	double v;
	int rc;

	if (hi_s > SIM_NUM_TIME_MAX_S)
		hi_s = SIM_NUM_TIME_MAX_S;
	if (lo_s < -SIM_NUM_TIME_MAX_S)
		lo_s = -SIM_NUM_TIME_MAX_S;
	rc = sim_num_double(s, NULL, lo_s, hi_s, &v, NULL);
	if (rc == 0)
		rc = sim_num_s_to_ns(v, out_ns);
	if (rc != 0) {
		dbl_range(range, sizeof range, lo_s, hi_s);
		return fail(err, rc, what, "seconds", range, s);
	}
	return 0;
}
