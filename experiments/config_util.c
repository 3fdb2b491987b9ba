/*
** config_util.c: the key/value, string and path helpers of experiment
** configs (see config_int.h).
*/
#include "experiments/config_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "traces/gen.h"

char *exp__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

char *exp__strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* Appends (key, value, line) to *v (n entries, capacity *cap). */
int exp__kv_push(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
		   const char *value, int line)
{
	struct exp_kv *p;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		p = realloc(*v, c * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		*v = p;
		*cap = c;
	}
	p = &(*v)[*n];
	p->key = exp__strdup(key);
	p->value = exp__strdup(value);
	p->line = line;
	if (p->key == NULL || p->value == NULL) {
		free(p->key);
		free(p->value);
		return SIM_ENOMEM;
	}
	(*n)++;
	return 0;
}

void exp__kv_free(struct exp_kv *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

const char *exp_kv_get(const struct exp_kv *kv, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return kv[i].value;
	return NULL;
}

void exp_strv_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* 1 when s is non-empty and made of [A-Za-z0-9] and the characters of extra. */
int exp__is_word(const char *s, const char *extra)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && strchr(extra, *s) == NULL)
			return 0;
	return 1;
}

/* Resolves a path relative to the config's folder. */
char *exp__resolve_path(const char *cfgpath, const char *p)
{
	const char *slash = strrchr(cfgpath, '/');
	size_t dl;
	char *r;

	if (p[0] == '/' || slash == NULL)
		return exp__strdup(p);
	dl = (size_t)(slash - cfgpath) + 1;
	r = malloc(dl + strlen(p) + 1);
	if (r != NULL) {
		memcpy(r, cfgpath, dl);
		strcpy(r + dl, p);
	}
	return r;
}

/* Sets kv[key] = value, replacing an existing entry. */
int exp__kv_set(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
		  const char *value, int line)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i].key, key) == 0) {
			char *s = exp__strdup(value);
			if (s == NULL)
				return SIM_ENOMEM;
			free((*v)[i].value);
			(*v)[i].value = s;
			(*v)[i].line = line;
			return 0;
		}
	return exp__kv_push(v, n, cap, key, value, line);
}

const struct exp_policy_cfg *exp__find_policy(const struct exp_config *cfg,
						const char *name)
{
	size_t i;

	for (i = 0; i < cfg->npolicies; i++)
		if (strcmp(cfg->policies[i].name, name) == 0)
			return &cfg->policies[i];
	return NULL;
}

const struct exp_sweep_dim *exp__find_dim(const struct exp_config *cfg,
					    const char *key)
{
	size_t i;

	for (i = 0; i < cfg->ndims; i++)
		if (strcmp(cfg->dims[i].key, key) == 0)
			return &cfg->dims[i];
	return NULL;
}

int exp__check_gen(const char *key, const char *value, struct sim_err *err)
{
	struct gen_opts o;
	struct sim_err e;
	int rc;

	sim_err_clear(err);
	if (strcmp(key, "seed") == 0)
		return sim_err_set(err, SIM_EINVAL, "seed: the generator's seed "
				   "is each replication's (set [experiment] "
				   "seed instead)");
	gen_defaults(&o);
	sim_err_clear(&e);
	rc = gen_set(&o, key, value, &e);
	if (rc == SIM_ENOENT) {
		const char *dym = strstr(e.msg, "(did you mean");
		size_t n = dym ? strcspn(dym + 1, ")") : 0;
		return sim_err_set(err, SIM_EINVAL, "%s: unknown generator "
				   "option (%.*s%scolosim gen --help lists "
				   "them)", key, (int)n, dym ? dym + 1 : "",
				   dym ? "; " : "");
	}
	if (rc != 0)
		return sim_err_set(err, rc, "%s", e.msg);
	return 0;
}
