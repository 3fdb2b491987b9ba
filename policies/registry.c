/*
** registry.c: every policy colosim knows, in one static NULL-terminated
** table (as Lua's luaL_Reg).  A new policy adds one extern line and one
** table entry; `colosim list policies` prints this table.
*/
#include "policies/policy.h"

extern const struct pol_ops pol_exclusive;
extern const struct pol_ops pol_timeslice;
extern const struct pol_ops pol_mps;
extern const struct pol_ops pol_mig;
extern const struct pol_ops pol_colti;
extern const struct pol_ops pol_gslice;
extern const struct pol_ops pol_distmind;
extern const struct pol_ops pol_distmind_ray;
extern const struct pol_ops pol_distmind_mps;
extern const struct pol_ops pol_srtf;
extern const struct pol_ops pol_srsf;
extern const struct pol_ops pol_tiresias;
extern const struct pol_ops pol_gittins;
extern const struct pol_ops pol_muri_s;
extern const struct pol_ops pol_muri_l;

const struct pol_ops *const pol_registry[] = {
	&pol_exclusive,
	&pol_timeslice,
	&pol_mps,
	&pol_mig,
	&pol_colti,
	&pol_gslice,
	&pol_distmind,
	&pol_distmind_ray,
	&pol_distmind_mps,
	&pol_srtf,
	&pol_srsf,
	&pol_tiresias,
	&pol_gittins,
	&pol_muri_s,
	&pol_muri_l,
	NULL
};
