/*
** params.c: parameter helpers for policies (see policy.h) and the registry
** lookups.
*/
#include "policies/policy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct pol_ops *pol_find(const char *name)
{
	size_t i;

	for (i = 0; pol_registry[i] != NULL; i++)
		if (strcasecmp(pol_registry[i]->zName, name) == 0)
			return pol_registry[i];
	return NULL;
}

/* Appends s to buf[*len..n) with a separator, truncating with "...". */
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

void pol_names(char *buf, size_t n)
{
	size_t i, len = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; pol_registry[i] != NULL; i++)
		join(buf, n, &len, pol_registry[i]->zName);
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

static int bad(const struct pol_param *q, const char *expect,
	       struct sim_err *err)
{
	return sim_err_set(err, SIM_EINVAL, "%s: parameter %s = '%s': "
			   "expected %s", q->origin ? q->origin : "--param",
			   q->key, q->value, expect);
}

int pol_param_double(const struct pol_params *p, const char *key,
		     double lo, double hi, double *out, struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char *end, expect[96];
	double v;

	if (q == NULL)
		return 0;
	errno = 0;
	v = strtod(q->value, &end);
	snprintf(expect, sizeof expect, "a number in [%g, %g]", lo, hi);
	if (end == q->value || *end != '\0' || errno || !isfinite(v) ||
	    v < lo || v > hi)
		return bad(q, expect, err);
	*out = v;
	return 0;
}

int pol_param_int(const struct pol_params *p, const char *key, long lo,
		  long hi, long *out, struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char *end, expect[96];
	long v;

	if (q == NULL)
		return 0;
	errno = 0;
	v = strtol(q->value, &end, 10);
	snprintf(expect, sizeof expect, "an integer in [%ld, %ld]", lo, hi);
	if (end == q->value || *end != '\0' || errno || v < lo || v > hi)
		return bad(q, expect, err);
	*out = v;
	return 0;
}

int pol_param_choice(const struct pol_params *p, const char *key,
		     const char *const *choices, int *out,
		     struct sim_err *err)
{
	const struct pol_param *q = find(p, key);
	char expect[256];
	size_t len = 0;
	int k;

	if (q == NULL)
		return 0;
	for (k = 0; choices[k] != NULL; k++)
		if (strcasecmp(choices[k], q->value) == 0) {
			*out = k;
			return 0;
		}
	expect[0] = '\0';
	for (k = 0; choices[k] != NULL; k++)
		join(expect, sizeof expect, &len, choices[k]);
	{
		char e2[300];
		snprintf(e2, sizeof e2, "one of: %s", expect);
		return bad(q, e2, err);
	}
}
