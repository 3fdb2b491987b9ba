/*
** config.c: reading experiment configs (see config.h); the run matrix they
** expand into is matrix.c.
**
** libinih does the INI syntax; we feed it lines from memory through our own
** reader so that we always know the current line (the Debian build of inih
** does not pass line numbers to the handler).  The handler checks each key
** as it comes and stops at the first error; cross-key checks (trace vs gen,
** sweep keys naming known policies) run after the whole file is read.
** Numbers go through sim/num.h, cluster specs through models/cluster.h.
*/
#include "experiments/config_int.h"

#include <ctype.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "models/cluster.h"
#include "sim/file.h"
#include "sim/num.h"
#include "sim/rng.h"
#include "traces/gen.h"
#include "sim/world/world_llm.h"

/* 1 when s holds no control character (values end up in SQL bindings,
** data files and plot titles: one line each). */
static int is_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

enum { SEC_NONE, SEC_EXPERIMENT, SEC_CLUSTER, SEC_SWEEP, SEC_POLICY,
       SEC_LLM };

struct parse_ctx {
	struct exp_config *cfg;
	struct sim_err *err;
	const char *path;
	const char *text, *pos, *end;
	int line;                /* of the line inih is handling */
	int hdr_line;            /* of the last [section] header read */
	int sec_hdr_line;        /* of the current section's header */
	int sec;                 /* SEC_* of the current section */
	char secname[128];
	struct exp_policy_cfg *pol;   /* current [policy.NAME] */
	size_t cappol, capgen, capparams, capllm;
	struct exp_kv *sweep_raw;     /* [sweep] before expansion */
	size_t nsweep_raw, capsweep_raw;
	struct exp_kv *seen;          /* keys of [experiment]/[cluster] */
	size_t nseen, capseen;
	size_t capwritten;
	int horizon_line, repl_line, seed_line, nodes_line;
};

/* ini_reader over the text in memory: copies one line (with its newline)
** and counts it.  A line longer than the buffer is an error. */
static char *mem_reader(char *str, int num, void *stream)
{
	struct parse_ctx *c = stream;
	size_t len;
	const char *nl;

	if (c->pos >= c->end || c->err->code != 0)
		return NULL;
	nl = memchr(c->pos, '\n', (size_t)(c->end - c->pos));
	len = nl ? (size_t)(nl - c->pos) + 1 : (size_t)(c->end - c->pos);
	c->line++;
	if (len + 1 > (size_t)num) {
		sim_err_set(c->err, SIM_EPARSE,
			    "%s:%d: line longer than %d characters", c->path,
			    c->line, num - 2);
		return NULL;
	}
	memcpy(str, c->pos, len);
	str[len] = '\0';
	c->pos += len;
	{
		/* Note section headers here: inih reports a section only with
		** its first key, so an empty or repeated one would pass. */
		const char *p = str;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			size_t n = strcspn(p + 1, "]\r\n");
			c->hdr_line = c->line;
			if (p[1 + n] != ']') {
				sim_err_set(c->err, SIM_EPARSE, "%s:%d: section "
					    "header '[%.*s' lacks its ']'",
					    c->path, c->line, (int)n, p + 1);
				return NULL;
			}
			if (!((n == 10 && strncmp(p + 1, "experiment", 10) == 0) ||
			      (n == 7 && strncmp(p + 1, "cluster", 7) == 0) ||
			      (n == 5 && strncmp(p + 1, "sweep", 5) == 0) ||
			      (n == 3 && strncmp(p + 1, "llm", 3) == 0) ||
			      (n > 7 && strncmp(p + 1, "policy.", 7) == 0))) {
				sim_err_set(c->err, SIM_EPARSE, "%s:%d: [%.*s] "
					    "unknown section (known: "
					    "[experiment], [cluster], [sweep], "
					    "[llm], [policy.NAME])", c->path,
					    c->line,
					    (int)(n < 100 ? n : 100), p + 1);
				return NULL;
			}
		}
	}
	return str;
}

static int perr(struct parse_ctx *c, int code, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Records "path:line: [section] " + message; returns 0 for inih (stop). */
static int perr(struct parse_ctx *c, int code, const char *fmt, ...)
{
	char msg[SIM_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sim_err_set(c->err, code, "%s:%d: [%s] %s", c->path, c->line,
		    c->secname, msg);
	return 0;
}

static int set_str(struct parse_ctx *c, char **dst, const char *v)
{
	char *s = exp__strdup(v);

	if (s == NULL)
		return perr(c, SIM_ENOMEM, "out of memory");
	free(*dst);
	*dst = s;
	return 1;
}

/* A cluster spec value: checked by the one cluster parser. */
static int check_cluster(struct parse_ctx *c, const char *v)
{
	struct cluster_part parts[CLUSTER_GROUPS_MAX];
	char where[300];
	int n;

	snprintf(where, sizeof where, "%s:%d: [%s] cluster", c->path, c->line,
		 c->secname);
	return cluster_parse_parts(v, where, parts, &n, c->err) ? 0 : 1;
}

/* ---- [experiment] keys: one function each, found in exp_keys ---- */

typedef int (*key_fn)(struct parse_ctx *c, const char *k, const char *v);

struct key_def {
	const char *name;
	key_fn fn;
};

static int k_name(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (!exp__is_word(v, "_.-") || strlen(v) >= EXP_NAME_MAX)
		return perr(c, SIM_EPARSE, "name: expected letters, digits, "
			    "'_', '.', '-' (at most %d), got '%s'",
			    EXP_NAME_MAX - 1, v);
	return set_str(c, &c->cfg->name, v);
}

static int set_path(struct parse_ctx *c, char **dst, const char *v)
{
	char *r = exp__resolve_path(c->path, v);

	if (r == NULL)
		return perr(c, SIM_ENOMEM, "out of memory");
	free(*dst);
	*dst = r;
	return 1;
}

static int k_trace(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	c->cfg->trace_line = c->line;
	return set_path(c, &c->cfg->trace, v);
}

static int k_db(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	return set_path(c, &c->cfg->db, v);
}

static int k_devices(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	return set_path(c, &c->cfg->devices, v);
}

static int k_arrivals(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	return set_path(c, &c->cfg->arrivals_dir, v);
}

static int k_gen(struct parse_ctx *c, const char *k, const char *v)
{
	struct exp_config *cfg = c->cfg;
	struct sim_err e;

	if (!exp__is_word(k + 4, "_-"))
		return perr(c, SIM_EPARSE, "%s: expected gen.NAME with NAME of "
			    "letters, digits, '_' and '-'", k);
	if (exp__check_gen(k + 4, v, &e) != 0)
		return perr(c, SIM_EPARSE, "gen.%s", e.msg);
	if (exp__kv_push(&cfg->gen, &cfg->ngen, &c->capgen, k + 4, v, c->line))
		return perr(c, SIM_ENOMEM, "out of memory");
	return 1;
}

static int k_cluster(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (!check_cluster(c, v))
		return 0;
	c->cfg->cluster_line = c->line;
	return set_str(c, &c->cfg->cluster, v);
}

static int k_horizon(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (sim_num_double(v, NULL, 0, SIM_NUM_TIME_MAX_S, &c->cfg->horizon_s,
			   NULL))
		return perr(c, SIM_EPARSE, "horizon_s: expected seconds in "
			    "[0, %.10g] (0: until all work is done), got "
			    "'%s'", SIM_NUM_TIME_MAX_S, v);
	return 1;
}

static int k_jitter(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (sim_num_double(v, NULL, 0, 1e8, &c->cfg->arrival_jitter_s, NULL))
		return perr(c, SIM_EPARSE, "arrival_jitter_s: expected seconds "
			    "in [0, 1e8] (0: the trace's times), got '%s'", v);
	return 1;
}

static int k_replications(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (sim_num_int(v, NULL, 1, 100000, &c->cfg->replications, NULL))
		return perr(c, SIM_EPARSE, "replications: expected an integer "
			    "in 1..100000, got '%s'", v);
	return 1;
}

static int k_seed(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (sim_num_u64(v, NULL, 0, UINT64_MAX, &c->cfg->seed, NULL))
		return perr(c, SIM_EPARSE, "seed: expected an unsigned 64-bit "
			    "decimal integer, got '%s'", v);
	return 1;
}

static int k_policy(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (!exp__is_word(v, "_-"))
		return perr(c, SIM_EPARSE, "policy: expected one policy name "
			    "(sweep several in [sweep]), got '%s'", v);
	c->cfg->policy_line = c->line;
	return set_str(c, &c->cfg->policy, v);
}

/* plugins = a.so, b.so: each resolved against the config's folder. */
static int k_plugins(struct parse_ctx *c, const char *k, const char *v)
{
	struct exp_config *cfg = c->cfg;
	const char *p = v;

	(void)k;
	cfg->plugins_line = c->line;
	while (*p != '\0') {
		size_t len = strcspn(p, ","), n = len;
		char item[4096], **pv;
		while (n > 0 && isspace((unsigned char)p[n - 1]))
			n--;
		while (n > 0 && isspace((unsigned char)*p)) {
			p++;
			n--;
			len--;
		}
		if (n == 0 || n >= sizeof item)
			return perr(c, SIM_EPARSE, "plugins: expected FILE.so, "
				    "... (paths relative to the config), got "
				    "'%s'", v);
		memcpy(item, p, n);
		item[n] = '\0';
		pv = realloc(cfg->plugins, (cfg->nplugins + 1) * sizeof *pv);
		if (pv == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		cfg->plugins = pv;
		pv[cfg->nplugins] = exp__resolve_path(c->path, item);
		if (pv[cfg->nplugins] == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		cfg->nplugins++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 1;
}

static const struct key_def exp_keys[] = {
	{ "name", k_name }, { "trace", k_trace }, { "gen.*", k_gen },
	{ "cluster", k_cluster }, { "horizon_s", k_horizon },
	{ "replications", k_replications }, { "seed", k_seed },
	{ "db", k_db }, { "devices", k_devices }, { "policy", k_policy },
	{ "arrivals_dir", k_arrivals },
	{ "arrival_jitter_s", k_jitter }, { "plugins", k_plugins },
	{ NULL, NULL }
};

/* ---- [cluster] keys ---- */

static int k_nodes(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	if (!check_cluster(c, v))
		return 0;
	c->nodes_line = c->line;
	return set_str(c, &c->cfg->cluster, v);
}

static int k_memory_servers(struct parse_ctx *c, const char *k,
			    const char *v)
{
	(void)k;
	if (sim_num_int(v, NULL, 0, 100000, &c->cfg->copts.memory_servers,
			NULL))
		return perr(c, SIM_EPARSE, "memory_servers: expected an "
			    "integer in 0..100000, got '%s'", v);
	return 1;
}

static int k_gbps(struct parse_ctx *c, const char *k, const char *v)
{
	double d;

	if (sim_num_double(v, NULL, DBL_MIN, DBL_MAX, &d, NULL))
		return perr(c, SIM_EPARSE, "%s: expected Gb/s > 0, got '%s'",
			    k, v);
	if (k[0] == 'n')
		c->cfg->copts.nic_gbps = d;
	else
		c->cfg->copts.memory_server_nic_gbps = d;
	return 1;
}

static int k_preempt_cost(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	/* WORLD_PREEMPT_FREE / _SWAP (sim/world/world.h) */
	if (strcmp(v, "free") == 0)
		c->cfg->copts.preempt_cost = 0;
	else if (strcmp(v, "swap") == 0)
		c->cfg->copts.preempt_cost = 1;
	else
		return perr(c, SIM_EPARSE, "preempt_cost: expected free or "
			    "swap, got '%s'", v);
	return 1;
}

static int k_spread_cost(struct parse_ctx *c, const char *k, const char *v)
{
	(void)k;
	/* WORLD_SPREAD_ALLREDUCE / _NONE (sim/world/world.h) */
	if (strcmp(v, "allreduce") == 0)
		c->cfg->copts.spread_cost = 0;
	else if (strcmp(v, "none") == 0)
		c->cfg->copts.spread_cost = 1;
	else
		return perr(c, SIM_EPARSE, "spread_cost: expected allreduce "
			    "or none, got '%s'", v);
	return 1;
}

static const struct key_def cluster_keys[] = {
	{ "nodes", k_nodes }, { "nic_gbps", k_gbps },
	{ "memory_servers", k_memory_servers },
	{ "memory_server_nic_gbps", k_gbps },
	{ "preempt_cost", k_preempt_cost },
	{ "spread_cost", k_spread_cost }, { NULL, NULL }
};

/* Hands k to its function in table t ("x.*" matches every "x.KEY"); an
** unknown key lists the known ones. */
static int on_key(struct parse_ctx *c, const struct key_def *t,
		  const char *k, const char *v)
{
	char known[256];
	size_t n = 0;
	int i;

	for (i = 0; t[i].name != NULL; i++) {
		const char *star = strchr(t[i].name, '*');
		size_t pl = star ? (size_t)(star - t[i].name) : 0;

		if (star ? strncmp(k, t[i].name, pl) == 0 :
			   strcmp(k, t[i].name) == 0)
			return t[i].fn(c, k, v);
	}
	known[0] = '\0';
	for (i = 0; t[i].name != NULL && n < sizeof known; i++) {
		int w = snprintf(known + n, sizeof known - n, "%s%s",
				 i ? ", " : "", strcmp(t[i].name, "gen.*") == 0 ?
				 "gen.KEY" : t[i].name);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return perr(c, SIM_EPARSE, "unknown key '%s' (known: %s)", k, known);
}

static int on_section(struct parse_ctx *c, const char *section)
{
	struct exp_config *cfg = c->cfg;
	size_t i;

	snprintf(c->secname, sizeof c->secname, "%s", section);
	c->pol = NULL;
	if (strcmp(section, "experiment") == 0)
		c->sec = SEC_EXPERIMENT;
	else if (strcmp(section, "cluster") == 0)
		c->sec = SEC_CLUSTER;
	else if (strcmp(section, "sweep") == 0)
		c->sec = SEC_SWEEP;
	else if (strcmp(section, "llm") == 0)
		c->sec = SEC_LLM;
	else if (strncmp(section, "policy.", 7) == 0) {
		const char *name = section + 7;
		struct exp_policy_cfg *p;
		if (!exp__is_word(name, "_-"))
			return perr(c, SIM_EPARSE, "expected [policy.NAME] with "
				    "NAME of letters, digits, '_', '-'");
		for (i = 0; i < cfg->npolicies; i++)
			if (strcmp(cfg->policies[i].name, name) == 0 &&
			    (c->line = c->hdr_line) > 0)
				return perr(c, SIM_EPARSE, "section repeated "
					    "(first at line %d)",
					    cfg->policies[i].line);
		if (cfg->npolicies == c->cappol) {
			size_t cap = c->cappol ? c->cappol * 2 : 4;
			p = realloc(cfg->policies, cap * sizeof *p);
			if (p == NULL)
				return perr(c, SIM_ENOMEM, "out of memory");
			cfg->policies = p;
			c->cappol = cap;
		}
		p = &cfg->policies[cfg->npolicies];
		memset(p, 0, sizeof *p);
		p->name = exp__strdup(name);
		if (p->name == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		p->line = c->hdr_line;
		cfg->npolicies++;
		c->pol = p;
		c->capparams = 0;
		c->sec = SEC_POLICY;
	} else {
		return perr(c, SIM_EPARSE, "unknown section (known: "
			    "[experiment], [cluster], [sweep], [llm], "
			    "[policy.NAME])");
	}
	return 1;
}

/* Remembers key k of a plain section; a repeat is an error. */
static int check_dup(struct parse_ctx *c, const struct exp_kv *list,
		     size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i].key, k) == 0) {
			/* [experiment]/[cluster] keys are kept as "SEC.KEY" */
			const char *shown = k[0] >= '0' && k[0] <= '9' &&
				strchr(k, '.') ? strchr(k, '.') + 1 : k;
			perr(c, SIM_EPARSE, "key '%s' repeated (first at line "
			     "%d)", shown, list[i].line);
			return -1;
		}
	return 0;
}

static int cfg_handler(void *user, const char *section, const char *name,
		       const char *value)
{
	struct parse_ctx *c = user;

	if (c->err->code != 0)
		return 0;
	/* inih hands us the section with each key: a new name is a new
	** section.  A repeated [experiment] merges (check_dup guards keys). */
	if (strcmp(section, c->secname) != 0 ||
	    c->hdr_line != c->sec_hdr_line) {
		c->sec_hdr_line = c->hdr_line;
		if (!on_section(c, section))
			return 0;
	}
	if (!is_printable(value))
		return perr(c, SIM_EPARSE, "%s: control character in value",
			    name);
	if (value[0] == '\0')
		return perr(c, SIM_EPARSE, "%s: empty value", name);
	if (c->sec != SEC_SWEEP) {
		char key[300];
		snprintf(key, sizeof key, "%s.%s", section, name);
		if (exp__kv_push(&c->cfg->written, &c->cfg->nwritten,
				 &c->capwritten, key, value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
	}
	switch (c->sec) {
	case SEC_EXPERIMENT:
	case SEC_CLUSTER: {
		char key[140];
		snprintf(key, sizeof key, "%d.%s", c->sec, name);
		if (check_dup(c, c->seen, c->nseen, key))
			return 0;
		if (exp__kv_push(&c->seen, &c->nseen, &c->capseen, key, "",
			    c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return on_key(c, c->sec == SEC_EXPERIMENT ? exp_keys :
			      cluster_keys, name, value);
	}
	case SEC_SWEEP:
		if (check_dup(c, c->sweep_raw, c->nsweep_raw, name))
			return 0;
		if (exp__kv_push(&c->sweep_raw, &c->nsweep_raw, &c->capsweep_raw,
			    name, value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	case SEC_LLM: {
		char origin[80];
		struct pol_param q;
		struct pol_params pp = { 1, &q };
		struct sim_err e;
		if (check_dup(c, c->cfg->llm, c->cfg->nllm, name))
			return 0;
		snprintf(origin, sizeof origin, "%s:%d: [llm]", c->path,
			 c->line);
		q.key = name;
		q.value = value;
		q.origin = origin;
		sim_err_clear(&e);
		if (world_llm_check(&pp, &e) != 0)
			return sim_err_set(c->err, SIM_EPARSE, "%s", e.msg), 0;
		if (exp__kv_push(&c->cfg->llm, &c->cfg->nllm, &c->capllm, name,
				 value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	}
	case SEC_POLICY:
		if (!exp__is_word(name, "_.-"))
			return perr(c, SIM_EPARSE, "key '%s': expected letters, "
				    "digits, '_', '.', '-'", name);
		if (check_dup(c, c->pol->params, c->pol->nparams, name))
			return 0;
		if (exp__kv_push(&c->pol->params, &c->pol->nparams, &c->capparams,
			    name, value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	default:
		return perr(c, SIM_EPARSE, "key outside a section");
	}
}

/* Checks one expanded sweep dimension's key and values. */
static int check_dim(struct parse_ctx *c, const struct exp_sweep_dim *d)
{
	struct exp_config *cfg = c->cfg;
	struct sim_err e;
	size_t i;
	double x;

	c->line = d->line;
	snprintf(c->secname, sizeof c->secname, "sweep");
	for (i = 0; i < d->nvalues; i++) {
		const char *v = d->values[i];
		if (strcmp(d->key, "policy") == 0) {
			if (!exp__is_word(v, "_-"))
				return perr(c, SIM_EPARSE, "policy: '%s' is not "
					    "a policy name", v);
		} else if (strcmp(d->key, "horizon_s") == 0) {
			if (sim_num_double(v, NULL, 0, SIM_NUM_TIME_MAX_S, &x,
					   NULL))
				return perr(c, SIM_EPARSE, "horizon_s: expected "
					    "seconds in [0, %.10g], got '%s'",
					    SIM_NUM_TIME_MAX_S, v);
		} else if (strcmp(d->key, "cluster") == 0) {
			if (strchr(v, ':') == NULL || strchr(v, 'x') == NULL)
				return perr(c, SIM_EPARSE, "cluster: sweep "
					    "values are separated by commas; "
					    "write one group per value, got "
					    "'%s'", v);
			if (!check_cluster(c, v))
				return c->err->code;
		} else if (strcmp(d->key, "trace") == 0) {
			if (cfg->ngen > 0)
				return perr(c, SIM_EPARSE, "trace: swept, but "
					    "[experiment] sets gen.* options");
		} else if (strncmp(d->key, "gen.", 4) == 0) {
			if (cfg->trace != NULL)
				return perr(c, SIM_EPARSE, "%s: generator option "
					    "swept, but [experiment] reads a "
					    "trace", d->key);
			if (!exp__is_word(d->key + 4, "_-"))
				return perr(c, SIM_EPARSE, "%s: bad generator "
					    "option name", d->key);
			if (exp__check_gen(d->key + 4, v, &e) != 0)
				return perr(c, SIM_EPARSE, "gen.%s (value %zu "
					    "of %zu)", e.msg, i + 1,
					    d->nvalues);
		} else if (strncmp(d->key, "llm.", 4) == 0) {
			char origin[80];
			struct pol_param q;
			struct pol_params pp = { 1, &q };
			snprintf(origin, sizeof origin, "%s:%d: [sweep]",
				 c->path, d->line);
			q.key = d->key + 4;
			q.value = v;
			q.origin = origin;
			sim_err_clear(&e);
			if (world_llm_check(&pp, &e) != 0)
				return sim_err_set(c->err, SIM_EPARSE, "%s",
						   e.msg);
		} else if (strncmp(d->key, "policy.", 7) == 0) {
			const char *dot = strchr(d->key + 7, '.');
			if (dot == NULL || dot == d->key + 7 || dot[1] == '\0')
				return perr(c, SIM_EPARSE, "%s: expected "
					    "policy.NAME.KEY", d->key);
		} else {
			return perr(c, SIM_EPARSE, "unknown sweep key '%s' "
				    "(known: policy, horizon_s, cluster, trace, "
				    "gen.KEY, llm.KEY, policy.NAME.KEY)", d->key);
		}
	}
	return 0;
}

/* The list of policies the matrix runs, checked against the sections. */
static int check_policies(struct parse_ctx *c)
{
	struct exp_config *cfg = c->cfg;
	const struct exp_sweep_dim *pd = exp__find_dim(cfg, "policy");
	size_t i, j;

	if (pd != NULL && cfg->policy != NULL) {
		c->line = cfg->policy_line;
		snprintf(c->secname, sizeof c->secname, "experiment");
		return perr(c, SIM_EPARSE, "policy: set here and swept in "
			    "[sweep] (line %d); keep one", pd->line);
	}
	if (pd == NULL && cfg->policy == NULL) {
		c->line = c->line > 0 ? c->line : 1;
		snprintf(c->secname, sizeof c->secname, "experiment");
		return perr(c, SIM_EPARSE, "no policy: set [experiment] "
			    "policy = NAME or [sweep] policy = A, B, ...");
	}
	/* A [policy.NAME] that no run uses is most likely a typo. */
	for (i = 0; i < cfg->npolicies; i++) {
		int used = 0;
		if (pd == NULL)
			used = strcmp(cfg->policy, cfg->policies[i].name) == 0;
		else
			for (j = 0; j < pd->nvalues; j++)
				used |= strcmp(pd->values[j],
					       cfg->policies[i].name) == 0;
		if (!used) {
			c->line = cfg->policies[i].line;
			snprintf(c->secname, sizeof c->secname, "policy.%s",
				 cfg->policies[i].name);
			return perr(c, SIM_EPARSE, "policy '%s' is not run "
				    "(not in the policy list)",
				    cfg->policies[i].name);
		}
	}
	/* policy.NAME.KEY sweeps must name a policy that runs. */
	for (i = 0; i < cfg->ndims; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[i];
		const char *name = d->key + 7;
		size_t nl;
		int used = 0;
		if (strncmp(d->key, "policy.", 7) != 0)
			continue;
		nl = (size_t)(strchr(name, '.') - name);
		if (pd == NULL)
			used = strlen(cfg->policy) == nl &&
			       strncmp(cfg->policy, name, nl) == 0;
		else
			for (j = 0; j < pd->nvalues; j++)
				used |= strlen(pd->values[j]) == nl &&
					strncmp(pd->values[j], name, nl) == 0;
		if (!used) {
			c->line = d->line;
			snprintf(c->secname, sizeof c->secname, "sweep");
			return perr(c, SIM_EPARSE, "%s: policy '%.*s' is not "
				    "run", d->key, (int)nl, name);
		}
	}
	return 0;
}

static int finish(struct parse_ctx *c)
{
	struct exp_config *cfg = c->cfg;
	size_t i;
	int rc;

	c->line = 1;
	snprintf(c->secname, sizeof c->secname, "experiment");
	if (cfg->name == NULL)
		return perr(c, SIM_EPARSE, "name: missing (every experiment "
			    "needs a name)");
	if (cfg->trace != NULL && cfg->ngen > 0) {
		c->line = cfg->trace_line;
		return perr(c, SIM_EPARSE, "trace and gen.* options are "
			    "exclusive: read a trace or generate one");
	}
	if (cfg->cluster == NULL && exp__find_dim(cfg, "cluster") == NULL)
		return perr(c, SIM_EPARSE, "cluster: missing (e.g. cluster = "
			    "4x8:a100-80gb)");
	if (cfg->cluster_line > 0 && c->nodes_line > 0) {
		c->line = c->nodes_line;
		snprintf(c->secname, sizeof c->secname, "cluster");
		return perr(c, SIM_EPARSE, "nodes: the cluster is already set "
			    "in [experiment] (line %d)", cfg->cluster_line);
	}
	if (cfg->trace == NULL && cfg->ngen == 0 &&
	    exp__find_dim(cfg, "trace") == NULL) {
		int has_gen = 0;
		for (i = 0; i < cfg->ndims; i++)
			has_gen |= strncmp(cfg->dims[i].key, "gen.", 4) == 0;
		if (!has_gen)
			return perr(c, SIM_EPARSE, "no workload: set trace = "
				    "PATH or gen.KEY = VALUE options");
	}
	if (cfg->db == NULL) {
		char buf[EXP_NAME_MAX + 4];
		snprintf(buf, sizeof buf, "%s.db", cfg->name);
		cfg->db = exp__strdup(buf);
		if (cfg->db == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
	}
	/* Expand the sweep. */
	if (c->nsweep_raw > 0) {
		cfg->dims = calloc(c->nsweep_raw, sizeof *cfg->dims);
		if (cfg->dims == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
	}
	for (i = 0; i < c->nsweep_raw; i++) {
		struct exp_sweep_dim *d = &cfg->dims[i];
		char where[300];
		snprintf(where, sizeof where, "%s:%d: [sweep] %s", c->path,
			 c->sweep_raw[i].line, c->sweep_raw[i].key);
		d->key = exp__strdup(c->sweep_raw[i].key);
		d->line = c->sweep_raw[i].line;
		cfg->ndims++;
		if (d->key == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		rc = exp_sweep_values(c->sweep_raw[i].value, where, &d->values,
				      &d->nvalues, c->err);
		if (rc)
			return rc;
		if ((rc = check_dim(c, d)) != 0)
			return rc;
	}
	if (cfg->replications == 0)
		cfg->replications = 1;
	if ((rc = check_policies(c)) != 0)
		return rc;
	return exp__canon_build(cfg, c->err);
}

int exp_config_parse(struct exp_config **out, const char *path,
		     const char *text, size_t len, struct sim_err *err)
{
	struct exp_config *cfg;
	struct parse_ctx c;
	int rc;

	*out = NULL;
	cfg = calloc(1, sizeof *cfg);
	if (cfg == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	cfg->seed = 1;
	cfg->path = exp__strdup(path);
	cfg->text = exp__strndup(text, len);
	cfg->text_len = len;
	if (cfg->path == NULL || cfg->text == NULL) {
		exp_config_free(cfg);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	snprintf(cfg->hash, sizeof cfg->hash, "%016llx",
		 (unsigned long long)sim_hash_str(cfg->text));
	if (memchr(text, '\0', len) != NULL) {
		exp_config_free(cfg);
		return sim_err_set(err, SIM_EPARSE, "%s: NUL byte in config",
				   path);
	}
	memset(&c, 0, sizeof c);
	c.cfg = cfg;
	c.err = err;
	c.path = path;
	c.text = c.pos = cfg->text;
	c.end = cfg->text + len;
	rc = ini_parse_stream(mem_reader, &c, cfg_handler, &c);
	if (err->code == 0 && rc > 0)
		sim_err_set(err, SIM_EPARSE, "%s:%d: syntax error: expected "
			    "[section], KEY = VALUE, or a ';' comment", path,
			    rc);
	else if (err->code == 0 && rc < 0)
		sim_err_set(err, rc == -2 ? SIM_ENOMEM : SIM_EIO,
			    "%s: cannot parse (inih error %d)", path, rc);
	if (err->code == 0)
		finish(&c);
	exp__kv_free(c.sweep_raw, c.nsweep_raw);
	exp__kv_free(c.seen, c.nseen);
	if (err->code != 0) {
		exp_config_free(cfg);
		return err->code;
	}
	*out = cfg;
	return 0;
}

int exp_config_load(struct exp_config **out, const char *path,
		    struct sim_err *err)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	*out = NULL;
	if ((rc = sim_fopen_in(&f, path, "rb", "config", err)) != 0)
		return rc;
	for (;;) {
		if (len + 4096 > cap) {
			char *p;
			cap = cap ? cap * 2 : 8192;
			if (cap > (16u << 20)) {
				free(buf);
				fclose(f);
				return sim_err_set(err, SIM_ERANGE, "%s: config "
						   "larger than 16 MiB", path);
			}
			p = realloc(buf, cap);
			if (p == NULL) {
				free(buf);
				fclose(f);
				return sim_err_set(err, SIM_ENOMEM,
						   "out of memory");
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return sim_err_set(err, SIM_EIO, "%s: read error", path);
	}
	fclose(f);
	rc = exp_config_parse(out, path, buf ? buf : "", len, err);
	free(buf);
	return rc;
}

void exp_config_free(struct exp_config *cfg)
{
	size_t i;

	if (cfg == NULL)
		return;
	free(cfg->path);
	free(cfg->text);
	free(cfg->name);
	free(cfg->trace);
	exp__kv_free(cfg->gen, cfg->ngen);
	exp__kv_free(cfg->llm, cfg->nllm);
	free(cfg->cluster);
	free(cfg->db);
	free(cfg->devices);
	free(cfg->arrivals_dir);
	free(cfg->policy);
	for (i = 0; i < cfg->nplugins; i++)
		free(cfg->plugins[i]);
	free(cfg->plugins);
	exp__kv_free(cfg->written, cfg->nwritten);
	exp__kv_free(cfg->canon, cfg->ncanon);
	free(cfg->canon_text);
	for (i = 0; i < cfg->npolicies; i++) {
		free(cfg->policies[i].name);
		exp__kv_free(cfg->policies[i].params, cfg->policies[i].nparams);
	}
	free(cfg->policies);
	for (i = 0; i < cfg->ndims; i++) {
		free(cfg->dims[i].key);
		exp_strv_free(cfg->dims[i].values, cfg->dims[i].nvalues);
	}
	free(cfg->dims);
	free(cfg);
}
