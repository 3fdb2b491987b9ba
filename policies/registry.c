/*
** registry.c: every policy colosim knows, in one static NULL-terminated
** table (as Lua's luaL_Reg), and the checks that keep it sound.  A new
** policy adds one extern line and one table entry; `colosim list
** policies` prints this table, and the conformance suite
** (tests/test_conformance.c) runs every entry and pol_registry_check.
*/
#include "policies/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

extern const struct pol_ops pol_exclusive;
extern const struct pol_ops pol_timeslice;
extern const struct pol_ops pol_mps;
extern const struct pol_ops pol_mig;
extern const struct pol_ops pol_colti;
extern const struct pol_ops pol_gslice;
extern const struct pol_ops pol_distmind;
extern const struct pol_ops pol_distmind_ray;
extern const struct pol_ops pol_distmind_mps;
extern const struct pol_ops pol_bestfit;
extern const struct pol_ops pol_fgd;
extern const struct pol_ops pol_srtf;
extern const struct pol_ops pol_srsf;
extern const struct pol_ops pol_tiresias;
extern const struct pol_ops pol_gittins;
extern const struct pol_ops pol_muri_s;
extern const struct pol_ops pol_muri_l;
extern const struct pol_ops pol_gavel;
extern const struct pol_ops pol_pollux;
extern const struct pol_ops pol_themis;
extern const struct pol_ops pol_gandiva;
extern const struct pol_ops pol_antman;
extern const struct pol_ops pol_llm_harvest;

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
	&pol_bestfit,
	&pol_fgd,
	&pol_srtf,
	&pol_srsf,
	&pol_tiresias,
	&pol_gittins,
	&pol_muri_s,
	&pol_muri_l,
	&pol_gavel,
	&pol_pollux,
	&pol_themis,
	&pol_gandiva,
	&pol_antman,
	&pol_llm_harvest,
	NULL
};

const struct pol_ops *pol_find(const char *name)
{
	size_t i;

	for (i = 0; pol_registry[i] != NULL; i++)
		if (strcasecmp(pol_registry[i]->zName, name) == 0)
			return pol_registry[i];
	return NULL;
}

void pol_names(char *buf, size_t n)
{
	size_t i, len = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; pol_registry[i] != NULL && len < n; i++) {
		int k = snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				 pol_registry[i]->zName);
		if (k < 0 || (size_t)k >= n - len) {
			if (n > 4)
				strcpy(buf + n - 4, "...");
			return;
		}
		len += (size_t)k;
	}
}

/* 1 if s is a policy name: lower-case letters, digits, '-' and '_'. */
static int good_name(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '-' && *s != '_')
			return 0;
	return 1;
}

/* The faults of one entry, or 0. */
static int check_entry(const struct pol_ops *o, const struct pol_ops *tmpl,
		       struct sim_err *err)
{
	const char *name = o->zName != NULL ? o->zName : "(unnamed)";

	if (!good_name(o->zName))
		return sim_err_set(err, SIM_EINVAL, "policy '%s': a name is "
				   "lower-case letters, digits, '-', '_'",
				   name);
	if (o->zDesc == NULL || o->zDesc[0] == '\0')
		return sim_err_set(err, SIM_EINVAL, "policy %s: no "
				   "description", name);
	if (o->xSchedule == NULL)
		return sim_err_set(err, SIM_EINVAL, "policy %s: no xSchedule",
				   name);
	if (o->iVersion < 1 || o->iVersion > POL_IFACE_VERSION)
		return sim_err_set(err, SIM_EVERSION, "policy %s: interface "
				   "version %d (this colosim knows 1..%d)",
				   name, o->iVersion, POL_IFACE_VERSION);
	if (tmpl != NULL && o != tmpl &&
	    strcasecmp(o->zName, tmpl->zName) == 0)
		return sim_err_set(err, SIM_EEXIST, "policy %s: a copy of "
				   "the template that kept its name: rename "
				   "it (POLICY_NAME in the copy)", name);
	if (tmpl != NULL && o != tmpl && tmpl->zDesc != NULL &&
	    strcmp(o->zDesc, tmpl->zDesc) == 0)
		return sim_err_set(err, SIM_EEXIST, "policy %s: has the "
				   "template's description: describe it",
				   name);
	if (o->iVersion >= 2)
		return pol_param_table_check(name, o->aParam, err);
	return 0;
}

int pol_registry_check(const struct pol_ops *const *reg,
		       const struct pol_ops *tmpl, struct sim_err *err)
{
	size_t i, k;
	int rc;

	for (i = 0; reg[i] != NULL; i++) {
		if ((rc = check_entry(reg[i], tmpl, err)) != 0)
			return rc;
		for (k = 0; k < i; k++)
			if (strcasecmp(reg[i]->zName, reg[k]->zName) == 0)
				return sim_err_set(err, SIM_EEXIST, "policy "
						   "%s: registered twice "
						   "(entries %zu and %zu)",
						   reg[i]->zName, k, i);
	}
	return 0;
}
