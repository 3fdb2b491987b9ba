/*
** config_int.h: helpers shared by the two halves of experiment configs
** (internal to experiments/): config.c parses the INI file, matrix.c
** expands its sweep into runs; both build the same key/value arrays.
** Strings returned are heap copies owned by the caller.
*/
#ifndef COLOSIM_EXPERIMENTS_CONFIG_INT_H
#define COLOSIM_EXPERIMENTS_CONFIG_INT_H

#include <stddef.h>

#include "experiments/config.h"

/* malloc'd copies; NULL when out of memory. */
char *exp__strdup(const char *s);
char *exp__strndup(const char *s, size_t n);

/* Appends (key, value, line) to *v (n entries, capacity *cap); 0 or
** SIM_ENOMEM. */
int exp__kv_push(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
		 const char *value, int line);
/* Sets kv[key] = value, replacing an existing entry; 0 or SIM_ENOMEM. */
int exp__kv_set(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
		const char *value, int line);
void exp__kv_free(struct exp_kv *v, size_t n);

/* 1 when s is non-empty and made of [A-Za-z0-9] and the characters of
** extra. */
int exp__is_word(const char *s, const char *extra);

/* p resolved against the folder of the config at cfgpath (heap). */
char *exp__resolve_path(const char *cfgpath, const char *p);

/* The [policy.NAME] section or [sweep] dimension of that name, or NULL. */
const struct exp_policy_cfg *exp__find_policy(const struct exp_config *cfg,
					      const char *name);
const struct exp_sweep_dim *exp__find_dim(const struct exp_config *cfg,
					  const char *key);

/* Checks generator option key = value (KEY without "gen.") as the run
** will set it: 0, or SIM_EINVAL with "KEY: what was expected" in err. */
int exp__check_gen(const char *key, const char *value, struct sim_err *err);

/* Builds cfg->canon and cfg->canon_text from the parsed config
** (experiments/canon.c); 0 or SIM_ENOMEM. */
int exp__canon_build(struct exp_config *cfg, struct sim_err *err);

#endif
