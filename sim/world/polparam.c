/*
** polparam.c: the policy parameter engine (policies/policy.h): checks the
** user's `key = value` parameters against a policy's declarative table and
** writes their values into the policy's state before xInit; the version 1
** hand-reading helpers; the text forms `colosim list policies NAME` and
** docs/POLICIES.md print.
**
** One parser per type serves every path (a user's value, a table's
** default, the version 1 getters), so a default is checked exactly as a
** user's value would be, and an error reads the same whichever path found
** it: "ORIGIN: parameter KEY = 'VALUE': expected WHAT".
*/
#include "policies/policy.h"
#include "sim/suggest.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Appends s to buf[*len..n) with a ", " separator, truncating with "...". */
static void join(char *buf, size_t n, size_t *len, const char *s)
{
	int w;

	if (*len >= n)
		return;
	w = snprintf(buf + *len, n - *len, "%s%s", *len ? ", " : "", s);
	if (w < 0 || (size_t)w >= n - *len) {
		if (n > 4)
			strcpy(buf + n - 4, "...");
		*len = n;
		return;
	}
	*len += (size_t)w;
}

static const struct pol_param *find(const struct pol_params *p,
				    const char *key)
{
	size_t i;
	const struct pol_param *hit = NULL;

	/* The last occurrence wins: --param overrides the config file. */
	for (i = 0; p != NULL && i < p->n; i++)
		if (strcmp(p->v[i].key, key) == 0)
			hit = &p->v[i];
	return hit;
}

const char *pol_param_origin(const struct pol_params *p, const char *key)
{
	const struct pol_param *q = find(p, key);

	return q == NULL ? NULL : q->origin ? q->origin : "--param";
}

/* ---- one parser per type ------------------------------------------------- */

/* Each returns 1 and fills *out when text is a well-formed value in range,
** else 0 and the expected form in expect[n]. */

static int parse_double(const char *text, double lo, double hi, double *out,
			char *expect, size_t n)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (end == text || *end != '\0' || errno || !isfinite(v) || v < lo ||
	    v > hi) {
		snprintf(expect, n, "a number in [%.10g, %.10g]", lo, hi);
		return 0;
	}
	*out = v;
	return 1;
}

static int parse_long(const char *text, long lo, long hi, long *out,
		      char *expect, size_t n)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || *end != '\0' || errno || v < lo || v > hi) {
		snprintf(expect, n, "an integer in [%ld, %ld]", lo, hi);
		return 0;
	}
	*out = v;
	return 1;
}

static int parse_choice(const char *text, const char *const *choices,
			int *out, char *expect, size_t n)
{
	char list[256];
	size_t len = 0;
	int k;

	for (k = 0; choices[k] != NULL; k++)
		if (strcasecmp(choices[k], text) == 0) {
			*out = k;
			return 1;
		}
	list[0] = '\0';
	for (k = 0; choices[k] != NULL; k++)
		join(list, sizeof list, &len, choices[k]);
	snprintf(expect, n, "one of: %s", list);
	return 0;
}

static int bad(const char *origin, const char *key, const char *value,
	       const char *expect, struct sim_err *err)
{
	return sim_err_set(err, SIM_EINVAL, "%s: parameter %s = '%s': "
			   "expected %s", origin ? origin : "--param", key,
			   value, expect);
}

/* ---- the table engine ------------------------------------------------------ */

/* Int ranges as longs, clamped to int (the destination). */
static long lo_of(const struct pol_param_def *d)
{
	return d->lo < (double)INT_MIN ? INT_MIN : (long)d->lo;
}

static long hi_of(const struct pol_param_def *d)
{
	return d->hi > (double)INT_MAX ? INT_MAX : (long)d->hi;
}

/* Parses text as parameter d; with dst, writes the value there.  1 if
** well-formed, else 0 with the expected form in expect. */
static int parse_def(const struct pol_param_def *d, const char *text,
		     void *dst, char *expect, size_t n)
{
	double dv;
	long lv;
	int iv;

	switch (d->eType) {
	case POL_PDOUBLE:
		if (!parse_double(text, d->lo, d->hi, &dv, expect, n))
			return 0;
		if (dst != NULL)
			memcpy(dst, &dv, sizeof dv);
		return 1;
	case POL_PINT:
	case POL_PBOOL:
		if (!parse_long(text, lo_of(d), hi_of(d), &lv, expect, n)) {
			if (d->eType == POL_PBOOL)
				snprintf(expect, n, "0 or 1");
			return 0;
		}
		iv = (int)lv;
		if (dst != NULL)
			memcpy(dst, &iv, sizeof iv);
		return 1;
	case POL_PCHOICE:
		if (!parse_choice(text, d->azChoice, &iv, expect, n))
			return 0;
		if (dst != NULL)
			memcpy(dst, &iv, sizeof iv);
		return 1;
	case POL_PSTRING:
		if (dst != NULL)
			memcpy(dst, &text, sizeof text);
		return 1;
	}
	snprintf(expect, n, "a value of a known type");
	return 0;
}

static const struct pol_param_def *def_of(const struct pol_param_def *t,
					  const char *key)
{
	for (; t != NULL && t->zKey != NULL; t++)
		if (strcmp(t->zKey, key) == 0)
			return t;
	return NULL;
}

/* The engine: checks p against ops's table and, with state, fills it. */
static int apply(const struct pol_ops *ops, const struct pol_params *p,
		 void *state, struct sim_err *err)
{
	const struct pol_param_def *t, *d;
	char expect[300];
	size_t i;

	if (ops->iVersion < 2)
		return 0;               /* xInit reads its own */
	t = ops->aParam;
	for (i = 0; p != NULL && i < p->n; i++) {
		char list[512], hint[96];
		size_t len = 0;
		if (def_of(t, p->v[i].key) != NULL)
			continue;
		list[0] = '\0';
		for (d = t; d != NULL && d->zKey != NULL; d++)
			join(list, sizeof list, &len, d->zKey);
		sim_did_you_mean(p->v[i].key, list, hint, sizeof hint);
		return sim_err_set(err, SIM_EINVAL, "%s: unknown parameter "
				   "'%s' for policy %s (%sknown: %s)",
				   p->v[i].origin ? p->v[i].origin : "--param",
				   p->v[i].key, ops->zName, hint,
				   len ? list : "none");
	}
	for (d = t; d != NULL && d->zKey != NULL; d++) {
		const struct pol_param *q = find(p, d->zKey);
		void *dst = state != NULL ? (char *)state + d->iOffset : NULL;

		if (q != NULL) {
			if (!parse_def(d, q->value, dst, expect, sizeof expect))
				return bad(q->origin, d->zKey, q->value,
					   expect, err);
			continue;
		}
		if (d->zDefault == NULL && d->eType == POL_PSTRING) {
			if (dst != NULL)
				memset(dst, 0, sizeof(const char *));
			continue;
		}
		if (d->zDefault == NULL ||
		    !parse_def(d, d->zDefault, dst, expect, sizeof expect))
			return sim_err_set(err, SIM_EINVAL, "policy %s: "
					   "parameter %s: bad default '%s' "
					   "(a bug in its table)", ops->zName,
					   d->zKey, d->zDefault ? d->zDefault :
					   "(none)");
	}
	return 0;
}

int pol_params_validate(const struct pol_ops *ops, const struct pol_params *p,
			struct sim_err *err)
{
	return apply(ops, p, NULL, err);
}

int pol_params_fill(const struct pol_ops *ops, const struct pol_params *p,
		    void *state, struct sim_err *err)
{
	return apply(ops, p, state, err);
}

int pol_param_table_check(const char *policy, const struct pol_param_def *t,
			  struct sim_err *err)
{
	const struct pol_param_def *d, *e;
	char expect[300];

	for (d = t; d != NULL && d->zKey != NULL; d++) {
		const char *why = NULL;
		if (d->zKey[0] == '\0')
			why = "an empty key";
		else if ((int)d->eType < (int)POL_PDOUBLE ||
			 (int)d->eType > (int)POL_PSTRING)
			why = "an unknown type";
		else if ((d->eType == POL_PDOUBLE || d->eType == POL_PINT) &&
			 !(d->lo <= d->hi))
			why = "an empty range";
		else if (d->eType == POL_PCHOICE &&
			 (d->azChoice == NULL || d->azChoice[0] == NULL))
			why = "no choices";
		else if (d->zHelp == NULL || d->zHelp[0] == '\0')
			why = "no help";
		else if (d->zDefault == NULL && d->eType != POL_PSTRING)
			why = "no default";
		else if (d->zDefault != NULL &&
			 !parse_def(d, d->zDefault, NULL, expect,
				    sizeof expect))
			why = "a default out of its range";
		for (e = t; why == NULL && e < d; e++)
			if (strcmp(e->zKey, d->zKey) == 0)
				why = "a duplicate key";
		if (why != NULL)
			return sim_err_set(err, SIM_EINVAL, "policy %s: "
					   "parameter '%s': %s", policy,
					   d->zKey, why);
	}
	return 0;
}

const char *pol_ptype_name(enum pol_ptype t)
{
	switch (t) {
	case POL_PDOUBLE: return "number";
	case POL_PINT: return "integer";
	case POL_PBOOL: return "bool";
	case POL_PCHOICE: return "choice";
	case POL_PSTRING: return "string";
	}
	return "?";
}

void pol_param_range(const struct pol_param_def *d, char *buf, size_t n)
{
	size_t len = 0;
	int k;

	if (n == 0)
		return;
	buf[0] = '\0';
	switch (d->eType) {
	case POL_PDOUBLE:
		snprintf(buf, n, "[%.10g, %.10g]", d->lo, d->hi);
		return;
	case POL_PINT:
		snprintf(buf, n, "[%ld, %ld]", lo_of(d), hi_of(d));
		return;
	case POL_PBOOL:
		snprintf(buf, n, "0, 1");
		return;
	case POL_PCHOICE:
		for (k = 0; d->azChoice != NULL && d->azChoice[k] != NULL; k++)
			join(buf, n, &len, d->azChoice[k]);
		return;
	case POL_PSTRING:
		snprintf(buf, n, "any");
		return;
	}
}

/* ---- version 1: hand-read parameters ---------------------------------------- */

int pol_params_check(const struct pol_params *p, const char *policy,
		     const char *const *allowed, struct sim_err *err)
{
	size_t i, k;

	for (i = 0; p != NULL && i < p->n; i++) {
		int ok = 0;
		for (k = 0; allowed[k] != NULL; k++)
			if (strcmp(allowed[k], p->v[i].key) == 0)
				ok = 1;
		if (!ok) {
			char list[512];
			size_t len = 0;
			list[0] = '\0';
			for (k = 0; allowed[k] != NULL; k++)
				join(list, sizeof list, &len, allowed[k]);
			return sim_err_set(err, SIM_EINVAL,
					   "%s: unknown parameter '%s' for "
					   "policy %s (known: %s)",
					   p->v[i].origin ? p->v[i].origin :
					   "--param", p->v[i].key, policy,
					   len ? list : "none");
		}
	}
	return 0;
}

int pol_param_str(const struct pol_params *p, const char *key,
		  const char **out)
{
	const struct pol_param *q = find(p, key);

	if (q != NULL)
		*out = q->value;
	return 0;
}

int pol_param_double(const struct pol_params *p, const char *key,
		     double lo, double hi, double *out, struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char expect[96];

	if (q != NULL && !parse_double(q->value, lo, hi, out, expect,
				       sizeof expect))
		return bad(q->origin, q->key, q->value, expect, err);
	return 0;
}

int pol_param_int(const struct pol_params *p, const char *key, long lo,
		  long hi, long *out, struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char expect[96];

	if (q != NULL && !parse_long(q->value, lo, hi, out, expect,
				     sizeof expect))
		return bad(q->origin, q->key, q->value, expect, err);
	return 0;
}

int pol_param_choice(const struct pol_params *p, const char *key,
		     const char *const *choices, int *out,
		     struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char expect[300];

	if (q != NULL && !parse_choice(q->value, choices, out, expect,
				       sizeof expect))
		return bad(q->origin, q->key, q->value, expect, err);
	return 0;
}
