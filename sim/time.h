/*
** time.h: simulated time.
**
** Simulated time is an int64_t count of nanoseconds since the start of the
** run (about 292 years of range).  It is never a double: floating point is
** used only at the edges (trace seconds in, report seconds out), and code
** never accumulates `t += dt` in floating point.  Conversions from seconds
** round to the nearest nanosecond and saturate instead of overflowing.
*/
#ifndef COLOSIM_SIM_TIME_H
#define COLOSIM_SIM_TIME_H

#include <stdint.h>

typedef int64_t sim_time;

#define SIM_NS_PER_US  INT64_C(1000)
#define SIM_NS_PER_MS  INT64_C(1000000)
#define SIM_NS_PER_S   INT64_C(1000000000)
#define SIM_TIME_MAX   INT64_MAX
#define SIM_TIME_NEVER INT64_MAX

/* Seconds (finite or not) to nanoseconds, rounded; saturates at +-MAX. */
sim_time sim_time_from_s(double s);
sim_time sim_time_from_ms(double ms);
sim_time sim_time_from_us(double us);

/* Nanoseconds to seconds / milliseconds, for reports. */
double sim_time_to_s(sim_time t);
double sim_time_to_ms(sim_time t);

/* a + b saturating at SIM_TIME_MAX (neither operand negative overflow). */
sim_time sim_time_add_sat(sim_time a, sim_time b);

#endif
