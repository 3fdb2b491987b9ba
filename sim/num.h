/*
** num.h: the one parser of numbers in text (trace fields, config values,
** device profiles, calibration CSVs, command-line options), and the checked
** conversion of seconds and milliseconds to nanoseconds.
**
** Every parser takes the whole string: no leading or trailing blanks, no
** trailing text.  Decimals are plain ([+-]digits[.digits][e[+-]digits]):
** no hexadecimal, no "inf", "nan" or "infinity", so a non-finite value can
** never come in.  Integers are decimal digits with an optional sign (no
** octal surprise: "010" is ten).  Every parser has an explicit range
** [lo, hi]; a value outside it, or one that overflows the type, is
** SIM_ERANGE, a malformed one SIM_EPARSE.
**
** Messages: with err non-NULL the parser fills it with
** "WHAT: expected KIND in [LO, HI], got 'TEXT'"; what names the field and
** is where callers put their position ("t.csv:3:12: submit_s").  With err
** NULL only the code comes back, for callers that phrase their own message.
** The text shown is cut at 40 characters.
**
** Times: simulated time is int64 nanoseconds (sim/time.h).  An input time
** or duration may be at most SIM_NUM_TIME_MAX_NS = 2^62 ns (about 4.6e9 s,
** 146 years), half the int64 range, so that a time plus a duration always
** fits; sim_num_s_to_ns refuses anything larger (4.7e9 s, 1e300 s) instead
** of saturating, which used to validate and then give wrong results.
*/
#ifndef COLOSIM_SIM_NUM_H
#define COLOSIM_SIM_NUM_H

#include <stdint.h>

#include "sim/err.h"
#include "sim/time.h"

/* The largest time or duration an input may give, in ns (2^62). */
#define SIM_NUM_TIME_MAX_NS (INT64_C(1) << 62)
/* The same in seconds, for ranges and messages (4611686018.427...). */
#define SIM_NUM_TIME_MAX_S 4611686018.427387904

/* Longest text of a number (digits, sign, exponent); longer is malformed. */
#define SIM_NUM_TEXT_MAX 64

int sim_num_double(const char *s, const char *what, double lo, double hi,
		   double *out, struct sim_err *err);
int sim_num_i64(const char *s, const char *what, int64_t lo, int64_t hi,
		int64_t *out, struct sim_err *err);
int sim_num_int(const char *s, const char *what, int lo, int hi, int *out,
		struct sim_err *err);
int sim_num_u64(const char *s, const char *what, uint64_t lo, uint64_t hi,
		uint64_t *out, struct sim_err *err);

/* 1 when s has the syntax of a plain decimal (as sim_num_double reads). */
int sim_num_is_decimal(const char *s);

/*
** s seconds (ms milliseconds) to nanoseconds, rounded to the nearest: 0, or
** SIM_ERANGE when s is not finite or |ns| > SIM_NUM_TIME_MAX_NS (*out
** untouched).  The rounding is sim_time_from_s's, so accepted values
** convert exactly as before.
*/
int sim_num_s_to_ns(double s, sim_time *out);
int sim_num_ms_to_ns(double ms, sim_time *out);

/*
** A decimal number of seconds in [lo_s, hi_s] (hi_s at most
** SIM_NUM_TIME_MAX_S), to nanoseconds.  Messages as above, with KIND
** "seconds".
*/
int sim_num_secs(const char *s, const char *what, double lo_s, double hi_s,
		 sim_time *out_ns, struct sim_err *err);

#endif
