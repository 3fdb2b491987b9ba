/*
** time.c: conversions between nanosecond simulated time and real units.
*/
#include "sim/time.h"

#include <math.h>

static sim_time from_scaled(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9.2e18)
		return SIM_TIME_MAX;
	if (x <= -9.2e18)
		return -SIM_TIME_MAX;
	return (sim_time)llround(x);
}

sim_time sim_time_from_s(double s)   { return from_scaled(s * 1e9); }
sim_time sim_time_from_ms(double ms) { return from_scaled(ms * 1e6); }
sim_time sim_time_from_us(double us) { return from_scaled(us * 1e3); }

double sim_time_to_s(sim_time t)  { return (double)t / 1e9; }
double sim_time_to_ms(sim_time t) { return (double)t / 1e6; }

sim_time sim_time_add_sat(sim_time a, sim_time b)
{
	if (b > 0 && a > SIM_TIME_MAX - b)
		return SIM_TIME_MAX;
	return a + b;
}
