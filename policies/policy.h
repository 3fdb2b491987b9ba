/*
** policy.h: the co-location / scheduling policy plugin interface.
**
** A policy is one C file that fills one `struct pol_ops` and is listed once
** in policies/registry.c (a static NULL-terminated table, as Lua's luaL_Reg
** or ROSS's tw_lptype).  Start from policies/template.c; docs/POLICIES.md
** explains every hook and action with a worked example.
**
** Versioning (as sqlite3_module): fields are only ever appended.  A policy
** states the interface version it was written for in iVersion; the engine
** refuses a table whose version is newer than POL_IFACE_VERSION and never
** reads fields past the ones that version had.
**
** The engine allocates szState bytes of zeroed private state per run and
** passes it to every hook.  Hooks read the world through the read-only view
** in sim/world/world.h and change it only through the world_* action calls, which
** validate every request and return a SIM_E* error instead of corrupting
** state.  A hook returns 0, or a negative SIM_E* code that stops the run
** (after filling err / calling world_fail), for broken invariants only: a
** placement that does not fit is an ordinary, non-fatal answer.
**
** Every hook except xSchedule is optional (NULL).
*/
#ifndef COLOSIM_POLICIES_POLICY_H
#define COLOSIM_POLICIES_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

#define POL_IFACE_VERSION 1

struct world;

/* One `key = value` parameter from [policy.NAME] or --param key=value. */
struct pol_param {
	const char *key;
	const char *value;
	const char *origin;           /* "demo.ini:14" or "--param" */
};

struct pol_params {
	size_t n;
	const struct pol_param *v;
};

struct pol_ops {
	int iVersion;                 /* POL_IFACE_VERSION the policy targets */
	const char *zName;            /* unique, lower-case: "timeslice" */
	const char *zDesc;            /* one line for `colosim list policies` */
	size_t szState;               /* private state, allocated and zeroed */

	/* Reads parameters (unknown keys are errors: use pol_params_check),
	** sets GPU modes and MIG layouts, arms timers. */
	int (*xInit)(struct world *w, void *state, const struct pol_params *p,
		     struct sim_err *err);
	/* Frees what xInit allocated (not the state block itself).  Called
	** after a failed xInit too: it must accept a partly initialised
	** state (the block starts zeroed, so free() of every pointer is). */
	void (*xFini)(struct world *w, void *state);
	/* A job or service arrived and is pending (a scheduling pass follows). */
	int (*xOnArrival)(struct world *w, void *state, int job);
	/* A job finished or a service ended (a scheduling pass follows). */
	int (*xOnFinish)(struct world *w, void *state, int job);
	/* Routes one request of service `job` to a replica index in
	** [0, replicas); leave *replica at -1 for the default (the replica with
	** the shortest queue). */
	int (*xOnRequest)(struct world *w, void *state, int job, int *replica);
	/* A timer armed with world_set_timer fired. */
	int (*xOnTimer)(struct world *w, void *state, uint64_t tag);
	/* Required: place pending work.  Runs once per instant at which
	** anything arrived, finished or was preempted, after those events. */
	int (*xSchedule)(struct world *w, void *state);
};

/* The registry (policies/registry.c): NULL-terminated. */
extern const struct pol_ops *const pol_registry[];

/* Looks a policy up by name; NULL if unknown. */
const struct pol_ops *pol_find(const char *name);

/* "exclusive, timeslice, ..." into buf, for "unknown policy" errors. */
void pol_names(char *buf, size_t n);

/*
** Parameter helpers.  pol_params_check fails with SIM_EINVAL naming the
** origin and the allowed keys when a key is not in `allowed` (NULL-ended).
** The getters return 0 and leave *out untouched when the key is absent, or
** SIM_EINVAL naming origin, key and the expected form when malformed.
*/
int pol_params_check(const struct pol_params *p, const char *policy,
		     const char *const *allowed, struct sim_err *err);
int pol_param_str(const struct pol_params *p, const char *key,
		  const char **out);
int pol_param_double(const struct pol_params *p, const char *key,
		     double lo, double hi, double *out, struct sim_err *err);
int pol_param_int(const struct pol_params *p, const char *key, long lo,
		  long hi, long *out, struct sim_err *err);
/* One of the NULL-ended choices; *out is its index. */
int pol_param_choice(const struct pol_params *p, const char *key,
		     const char *const *choices, int *out,
		     struct sim_err *err);

#endif
