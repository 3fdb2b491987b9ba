/*
** config.c: experiment configs and run matrices (see config.h).
**
** libinih does the INI syntax; we feed it lines from memory through our own
** reader so that we always know the current line (the Debian build of inih
** does not pass line numbers to the handler).  The handler checks each key
** as it comes and stops at the first error; cross-key checks (trace vs gen,
** sweep keys naming known policies) run after the whole file is read.
*/
#include "sim/file.h"
#include "experiments/config.h"

#include "sim/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "sim/rng.h"

/* ---------------------------------------------------------------- helpers */

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* Appends (key, value, line) to *v (n entries, capacity *cap). */
static int kv_push(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
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
	p->key = xstrdup(key);
	p->value = xstrdup(value);
	p->line = line;
	if (p->key == NULL || p->value == NULL) {
		free(p->key);
		free(p->value);
		return SIM_ENOMEM;
	}
	(*n)++;
	return 0;
}

static void kv_free(struct exp_kv *v, size_t n)
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
static int is_word(const char *s, const char *extra)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && strchr(extra, *s) == NULL)
			return 0;
	return 1;
}

/* 1 when s holds no control character (values end up in SQL bindings,
** data files and plot titles: one line each). */
static int is_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* ----------------------------------------------------- cluster and sweeps */

int exp_cluster_parse(const char *spec, const char *where,
		      struct exp_cluster_group **out, size_t *nout,
		      struct sim_err *err)
{
	struct exp_cluster_group *g = NULL;
	size_t n = 0, cap = 0;
	const char *p = spec;

	*out = NULL;
	*nout = 0;
	for (;;) {
		struct exp_cluster_group one;
		char *end;
		long nodes, gpus;
		size_t len;

		while (isspace((unsigned char)*p))
			p++;
		errno = 0;
		nodes = strtol(p, &end, 10);
		if (end == p || *end != 'x' || nodes < 1 || nodes > 100000)
			goto bad;
		p = end + 1;
		gpus = strtol(p, &end, 10);
		if (end == p || *end != ':' || gpus < 1 || gpus > 64)
			goto bad;
		p = end + 1;
		len = strcspn(p, ",");
		while (len > 0 && isspace((unsigned char)p[len - 1]))
			len--;
		if (len == 0 || len >= sizeof one.device)
			goto bad;
		memcpy(one.device, p, len);
		one.device[len] = '\0';
		if (!is_word(one.device, "-_."))
			goto bad;
		one.nodes = (int)nodes;
		one.gpus_per_node = (int)gpus;
		if (n == cap) {
			struct exp_cluster_group *q;
			cap = cap ? cap * 2 : 4;
			q = realloc(g, cap * sizeof *q);
			if (q == NULL) {
				free(g);
				return sim_err_set(err, SIM_ENOMEM,
						   "%s: out of memory", where);
			}
			g = q;
		}
		g[n++] = one;
		p += strcspn(p, ",");
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		p++;                   /* the comma */
	}
	*out = g;
	*nout = n;
	return 0;
bad:
	free(g);
	return sim_err_set(err, SIM_EPARSE,
			   "%s: cluster: expected NODESxGPUS:DEVICE[,...] "
			   "(e.g. 4x8:a100-80gb,2x4:v100-16gb), got '%s'",
			   where, spec);
}

static int strv_push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s == NULL)
		return SIM_ENOMEM;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		char **p = realloc(*v, c * sizeof *p);
		if (p == NULL) {
			free(s);
			return SIM_ENOMEM;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = s;
	return 0;
}

/* Expands one "a..b step s" item into v; 0 or an error. */
static int expand_range(const char *item, const char *where, char ***v,
			size_t *n, size_t *cap, struct sim_err *err)
{
	char buf[256], *dots, *step, num[64];
	double a, b, s;
	long cnt, i;

	if (strlen(item) >= sizeof buf)
		return sim_err_set(err, SIM_EPARSE, "%s: range too long", where);
	strcpy(buf, item);
	dots = strstr(buf, "..");
	step = strstr(buf, " step ");
	if (step == NULL || step < dots)
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': expected 'a..b step s'",
				   where, item);
	*dots = '\0';
	*step = '\0';
	if (parse_double(buf, &a) || parse_double(dots + 2, &b) ||
	    parse_double(step + 6, &s))
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': expected numbers in "
				   "'a..b step s'", where, item);
	if (!(s > 0) || b < a)
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': need a <= b and step > 0",
				   where, item);
	/* Count with a tolerance of 1e-9 steps so that 0..1 step 0.1 ends at
	** 1; values are a + i*s, never an accumulated sum. */
	if ((b - a) / s > EXP_MAX_VALUES)
		return sim_err_set(err, SIM_ERANGE,
				   "%s: range '%s' has more than %d values",
				   where, item, EXP_MAX_VALUES);
	cnt = (long)floor((b - a) / s + 1e-9) + 1;
	for (i = 0; i < cnt; i++) {
		double x = a + (double)i * s;
		if (fabs(x) < 1e-12 * s)
			x = 0;
		snprintf(num, sizeof num, "%.12g", x);
		if (strv_push(v, n, cap, xstrdup(num)))
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	return 0;
}

int exp_sweep_values(const char *text, const char *where, char ***out,
		     size_t *nout, struct sim_err *err)
{
	char **v = NULL;
	size_t n = 0, cap = 0, i, j;
	const char *p = text;
	int rc;

	for (;;) {
		size_t len = strcspn(p, ",");
		const char *a = p, *e = p + len;
		char *item;

		while (a < e && isspace((unsigned char)*a))
			a++;
		while (e > a && isspace((unsigned char)e[-1]))
			e--;
		if (a == e) {
			rc = sim_err_set(err, SIM_EPARSE,
					 "%s: empty value in list '%s'", where,
					 text);
			goto fail;
		}
		item = xstrndup(a, (size_t)(e - a));
		if (item == NULL) {
			rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
			goto fail;
		}
		if (strstr(item, "..") != NULL) {
			rc = expand_range(item, where, &v, &n, &cap, err);
			free(item);
			if (rc)
				goto fail;
		} else if ((rc = strv_push(&v, &n, &cap, item)) != 0) {
			rc = sim_err_set(err, rc, "out of memory");
			goto fail;
		}
		if (n > EXP_MAX_VALUES) {
			rc = sim_err_set(err, SIM_ERANGE,
					 "%s: more than %d values", where,
					 EXP_MAX_VALUES);
			goto fail;
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(v[i], v[j]) == 0) {
				rc = sim_err_set(err, SIM_EPARSE,
						 "%s: value '%s' listed twice",
						 where, v[i]);
				goto fail;
			}
	*out = v;
	*nout = n;
	return 0;
fail:
	exp_strv_free(v, n);
	return rc;
}

/* ------------------------------------------------------------- the parser */

enum { SEC_NONE, SEC_EXPERIMENT, SEC_CLUSTER, SEC_SWEEP, SEC_POLICY };

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
	size_t cappol, capgen, capparams;
	struct exp_kv *sweep_raw;     /* [sweep] before expansion */
	size_t nsweep_raw, capsweep_raw;
	struct exp_kv *seen;          /* keys of [experiment]/[cluster] */
	size_t nseen, capseen;
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
			      (n > 7 && strncmp(p + 1, "policy.", 7) == 0))) {
				sim_err_set(c->err, SIM_EPARSE, "%s:%d: [%.*s] "
					    "unknown section (known: "
					    "[experiment], [cluster], [sweep], "
					    "[policy.NAME])", c->path, c->line,
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

/* Resolves a path relative to the config's folder. */
static char *resolve_path(const char *cfgpath, const char *p)
{
	const char *slash = strrchr(cfgpath, '/');
	size_t dl;
	char *r;

	if (p[0] == '/' || slash == NULL)
		return xstrdup(p);
	dl = (size_t)(slash - cfgpath) + 1;
	r = malloc(dl + strlen(p) + 1);
	if (r != NULL) {
		memcpy(r, cfgpath, dl);
		strcpy(r + dl, p);
	}
	return r;
}

static int set_str(struct parse_ctx *c, char **dst, const char *v)
{
	char *s = xstrdup(v);

	if (s == NULL)
		return perr(c, SIM_ENOMEM, "out of memory");
	free(*dst);
	*dst = s;
	return 1;
}

static int on_experiment(struct parse_ctx *c, const char *k, const char *v)
{
	struct exp_config *cfg = c->cfg;
	size_t tmp = 0;

	if (strcmp(k, "name") == 0) {
		if (!is_word(v, "_.-") || strlen(v) >= EXP_NAME_MAX)
			return perr(c, SIM_EPARSE, "name: expected letters, "
				    "digits, '_', '.', '-' (at most %d), got "
				    "'%s'", EXP_NAME_MAX - 1, v);
		return set_str(c, &cfg->name, v);
	}
	if (strcmp(k, "trace") == 0) {
		char *r = resolve_path(c->path, v);
		if (r == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		free(cfg->trace);
		cfg->trace = r;
		cfg->trace_line = c->line;
		return 1;
	}
	if (strncmp(k, "gen.", 4) == 0) {
		if (!is_word(k + 4, "_-"))
			return perr(c, SIM_EPARSE, "%s: expected gen.NAME with "
				    "NAME of letters, digits, '_' and '-'", k);
		if (kv_push(&cfg->gen, &cfg->ngen, &c->capgen, k + 4, v,
			    c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	}
	if (strcmp(k, "cluster") == 0) {
		struct exp_cluster_group *g;
		char where[300];
		snprintf(where, sizeof where, "%s:%d", c->path, c->line);
		if (exp_cluster_parse(v, where, &g, &tmp, c->err))
			return 0;
		free(g);
		cfg->cluster_line = c->line;
		return set_str(c, &cfg->cluster, v);
	}
	if (strcmp(k, "horizon_s") == 0) {
		if (parse_double(v, &cfg->horizon_s) || cfg->horizon_s < 0)
			return perr(c, SIM_EPARSE, "horizon_s: expected seconds "
				    ">= 0 (0: until all work is done), got "
				    "'%s'", v);
		return 1;
	}
	if (strcmp(k, "replications") == 0) {
		if (parse_int(v, 1, 100000, &cfg->replications))
			return perr(c, SIM_EPARSE, "replications: expected an "
				    "integer in 1..100000, got '%s'", v);
		return 1;
	}
	if (strcmp(k, "seed") == 0) {
		if (parse_u64(v, &cfg->seed))
			return perr(c, SIM_EPARSE, "seed: expected an unsigned "
				    "64-bit integer, got '%s'", v);
		return 1;
	}
	if (strcmp(k, "db") == 0) {
		char *r = resolve_path(c->path, v);
		if (r == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		free(cfg->db);
		cfg->db = r;
		return 1;
	}
	if (strcmp(k, "devices") == 0) {
		char *r = resolve_path(c->path, v);
		if (r == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		free(cfg->devices);
		cfg->devices = r;
		return 1;
	}
	if (strcmp(k, "policy") == 0) {
		if (!is_word(v, "_-"))
			return perr(c, SIM_EPARSE, "policy: expected one policy "
				    "name (sweep several in [sweep]), got "
				    "'%s'", v);
		cfg->policy_line = c->line;
		return set_str(c, &cfg->policy, v);
	}
	return perr(c, SIM_EPARSE, "unknown key '%s' (known: name, trace, "
		    "gen.KEY, cluster, horizon_s, replications, seed, db, "
		    "devices, policy)", k);
}

static int on_cluster(struct parse_ctx *c, const char *k, const char *v)
{
	struct exp_config *cfg = c->cfg;
	double d;

	if (strcmp(k, "nodes") == 0) {
		struct exp_cluster_group *g;
		size_t n;
		char where[300];
		snprintf(where, sizeof where, "%s:%d", c->path, c->line);
		if (exp_cluster_parse(v, where, &g, &n, c->err))
			return 0;
		free(g);
		c->nodes_line = c->line;
		return set_str(c, &cfg->cluster, v);
	}
	if (strcmp(k, "memory_servers") == 0) {
		if (parse_int(v, 0, 100000, &cfg->copts.memory_servers))
			return perr(c, SIM_EPARSE, "memory_servers: expected an "
				    "integer >= 0, got '%s'", v);
		return 1;
	}
	if (strcmp(k, "nic_gbps") == 0 ||
	    strcmp(k, "memory_server_nic_gbps") == 0) {
		if (parse_double(v, &d) || !(d > 0))
			return perr(c, SIM_EPARSE, "%s: expected Gb/s > 0, got "
				    "'%s'", k, v);
		if (k[0] == 'n')
			cfg->copts.nic_gbps = d;
		else
			cfg->copts.memory_server_nic_gbps = d;
		return 1;
	}
	if (strcmp(k, "preempt_cost") == 0) {
		/* WORLD_PREEMPT_FREE / _SWAP (sim/world/world.h) */
		if (strcmp(v, "free") == 0)
			cfg->copts.preempt_cost = 0;
		else if (strcmp(v, "swap") == 0)
			cfg->copts.preempt_cost = 1;
		else
			return perr(c, SIM_EPARSE, "preempt_cost: expected "
				    "free or swap, got '%s'", v);
		return 1;
	}
	return perr(c, SIM_EPARSE, "unknown key '%s' (known: nodes, nic_gbps, "
		    "memory_servers, memory_server_nic_gbps, preempt_cost)",
		    k);
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
	else if (strncmp(section, "policy.", 7) == 0) {
		const char *name = section + 7;
		struct exp_policy_cfg *p;
		if (!is_word(name, "_-"))
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
		p->name = xstrdup(name);
		if (p->name == NULL)
			return perr(c, SIM_ENOMEM, "out of memory");
		p->line = c->hdr_line;
		cfg->npolicies++;
		c->pol = p;
		c->capparams = 0;
		c->sec = SEC_POLICY;
	} else {
		return perr(c, SIM_EPARSE, "unknown section (known: "
			    "[experiment], [cluster], [sweep], "
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
			perr(c, SIM_EPARSE, "key '%s' repeated (first at line "
			     "%d)", k, list[i].line);
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
	switch (c->sec) {
	case SEC_EXPERIMENT:
	case SEC_CLUSTER: {
		char key[140];
		snprintf(key, sizeof key, "%d.%s", c->sec, name);
		if (check_dup(c, c->seen, c->nseen, key))
			return 0;
		if (kv_push(&c->seen, &c->nseen, &c->capseen, key, "",
			    c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return c->sec == SEC_EXPERIMENT ? on_experiment(c, name, value)
						: on_cluster(c, name, value);
	}
	case SEC_SWEEP:
		if (check_dup(c, c->sweep_raw, c->nsweep_raw, name))
			return 0;
		if (kv_push(&c->sweep_raw, &c->nsweep_raw, &c->capsweep_raw,
			    name, value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	case SEC_POLICY:
		if (!is_word(name, "_.-"))
			return perr(c, SIM_EPARSE, "key '%s': expected letters, "
				    "digits, '_', '.', '-'", name);
		if (check_dup(c, c->pol->params, c->pol->nparams, name))
			return 0;
		if (kv_push(&c->pol->params, &c->pol->nparams, &c->capparams,
			    name, value, c->line))
			return perr(c, SIM_ENOMEM, "out of memory");
		return 1;
	default:
		return perr(c, SIM_EPARSE, "key outside a section");
	}
}

static const struct exp_policy_cfg *find_policy(const struct exp_config *cfg,
						const char *name)
{
	size_t i;

	for (i = 0; i < cfg->npolicies; i++)
		if (strcmp(cfg->policies[i].name, name) == 0)
			return &cfg->policies[i];
	return NULL;
}

static const struct exp_sweep_dim *find_dim(const struct exp_config *cfg,
					    const char *key)
{
	size_t i;

	for (i = 0; i < cfg->ndims; i++)
		if (strcmp(cfg->dims[i].key, key) == 0)
			return &cfg->dims[i];
	return NULL;
}

/* Checks one expanded sweep dimension's key and values. */
static int check_dim(struct parse_ctx *c, const struct exp_sweep_dim *d)
{
	struct exp_config *cfg = c->cfg;
	size_t i;
	double x;

	c->line = d->line;
	snprintf(c->secname, sizeof c->secname, "sweep");
	for (i = 0; i < d->nvalues; i++) {
		const char *v = d->values[i];
		if (strcmp(d->key, "policy") == 0) {
			if (!is_word(v, "_-"))
				return perr(c, SIM_EPARSE, "policy: '%s' is not "
					    "a policy name", v);
		} else if (strcmp(d->key, "horizon_s") == 0) {
			if (parse_double(v, &x) || x < 0)
				return perr(c, SIM_EPARSE, "horizon_s: expected "
					    "seconds >= 0, got '%s'", v);
		} else if (strcmp(d->key, "cluster") == 0) {
			struct exp_cluster_group *g;
			size_t n;
			char where[300];
			snprintf(where, sizeof where, "%s:%d", c->path,
				 d->line);
			if (strchr(v, ':') == NULL || strchr(v, 'x') == NULL)
				return perr(c, SIM_EPARSE, "cluster: sweep "
					    "values are separated by commas; "
					    "write one group per value, got "
					    "'%s'", v);
			if (exp_cluster_parse(v, where, &g, &n, c->err))
				return c->err->code;
			free(g);
		} else if (strcmp(d->key, "trace") == 0) {
			if (cfg->ngen > 0)
				return perr(c, SIM_EPARSE, "trace: swept, but "
					    "[experiment] sets gen.* options");
		} else if (strncmp(d->key, "gen.", 4) == 0) {
			if (cfg->trace != NULL)
				return perr(c, SIM_EPARSE, "%s: generator option "
					    "swept, but [experiment] reads a "
					    "trace", d->key);
			if (!is_word(d->key + 4, "_-"))
				return perr(c, SIM_EPARSE, "%s: bad generator "
					    "option name", d->key);
		} else if (strncmp(d->key, "policy.", 7) == 0) {
			const char *dot = strchr(d->key + 7, '.');
			if (dot == NULL || dot == d->key + 7 || dot[1] == '\0')
				return perr(c, SIM_EPARSE, "%s: expected "
					    "policy.NAME.KEY", d->key);
		} else {
			return perr(c, SIM_EPARSE, "unknown sweep key '%s' "
				    "(known: policy, horizon_s, cluster, trace, "
				    "gen.KEY, policy.NAME.KEY)", d->key);
		}
	}
	return 0;
}

/* The list of policies the matrix runs, checked against the sections. */
static int check_policies(struct parse_ctx *c)
{
	struct exp_config *cfg = c->cfg;
	const struct exp_sweep_dim *pd = find_dim(cfg, "policy");
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
	if (cfg->cluster == NULL && find_dim(cfg, "cluster") == NULL)
		return perr(c, SIM_EPARSE, "cluster: missing (e.g. cluster = "
			    "4x8:a100-80gb)");
	if (cfg->cluster_line > 0 && c->nodes_line > 0) {
		c->line = c->nodes_line;
		snprintf(c->secname, sizeof c->secname, "cluster");
		return perr(c, SIM_EPARSE, "nodes: the cluster is already set "
			    "in [experiment] (line %d)", cfg->cluster_line);
	}
	if (cfg->trace == NULL && cfg->ngen == 0 &&
	    find_dim(cfg, "trace") == NULL) {
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
		cfg->db = xstrdup(buf);
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
		d->key = xstrdup(c->sweep_raw[i].key);
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
	return check_policies(c);
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
	cfg->path = xstrdup(path);
	cfg->text = xstrndup(text, len);
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
	kv_free(c.sweep_raw, c.nsweep_raw);
	kv_free(c.seen, c.nseen);
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
	kv_free(cfg->gen, cfg->ngen);
	free(cfg->cluster);
	free(cfg->db);
	free(cfg->devices);
	free(cfg->policy);
	for (i = 0; i < cfg->npolicies; i++) {
		free(cfg->policies[i].name);
		kv_free(cfg->policies[i].params, cfg->policies[i].nparams);
	}
	free(cfg->policies);
	for (i = 0; i < cfg->ndims; i++) {
		free(cfg->dims[i].key);
		exp_strv_free(cfg->dims[i].values, cfg->dims[i].nvalues);
	}
	free(cfg->dims);
	free(cfg);
}

/* ------------------------------------------------------------- expansion */

uint64_t exp_replication_seed(uint64_t master, int replication)
{
	return sim_rng_seed(master, "replication", (uint64_t)replication);
}

/* A growable string. */
/* Appends " k=v" (no leading space when empty). */
static void sb_kv(struct sim_strbuf *b, const char *k, const char *v)
{
	if (b->n > 0)
		sim_strbuf_add(b, " ");
	sim_strbuf_add(b, k);
	sim_strbuf_add(b, "=");
	sim_strbuf_add(b, v);
}

static char *sb_take(struct sim_strbuf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	if (b->s == NULL)
		return xstrdup("");
	return b->s;
}

/* Free one spec's owned memory. */
static void spec_fini(struct exp_run_spec *s)
{
	free(s->key);
	free(s->variant);
	free(s->setting);
	free(s->policy);
	kv_free(s->params, s->nparams);
	kv_free(s->gen, s->ngen);
	kv_free(s->sweep, s->nsweep);
	free(s->trace);
	free(s->cluster);
	free(s->groups);
}

/* Sets kv[key] = value, replacing an existing entry. */
static int kv_set(struct exp_kv **v, size_t *n, size_t *cap, const char *key,
		  const char *value, int line)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*v)[i].key, key) == 0) {
			char *s = xstrdup(value);
			if (s == NULL)
				return SIM_ENOMEM;
			free((*v)[i].value);
			(*v)[i].value = s;
			(*v)[i].line = line;
			return 0;
		}
	return kv_push(v, n, cap, key, value, line);
}

/* Fills one spec: policy pol, global choice gi[], policy choice pi[],
** replication r.  gdims/pdims index cfg->dims. */
static int build_spec(struct exp_run_spec *s, const struct exp_config *cfg,
		      const char *pol, const size_t *gdims, const size_t *gi,
		      size_t ng, const size_t *pdims, const size_t *pi,
		      size_t np, int r, struct sim_err *err)
{
	const struct exp_policy_cfg *pc = find_policy(cfg, pol);
	struct sim_strbuf key = {0}, var = {0}, set = {0};
	size_t capp = 0, capg = 0, caps = 0, i;
	char rep[32];
	int rc = 0;

	memset(s, 0, sizeof *s);
	s->experiment = cfg->name;
	s->replication = r;
	s->seed = exp_replication_seed(cfg->seed, r);
	s->copts = &cfg->copts;
	s->horizon_s = cfg->horizon_s;
	s->policy = xstrdup(pol);
	s->cluster = cfg->cluster ? xstrdup(cfg->cluster) : NULL;
	s->trace = cfg->trace ? xstrdup(cfg->trace) : NULL;
	if (s->policy == NULL || (cfg->cluster && s->cluster == NULL) ||
	    (cfg->trace && s->trace == NULL))
		rc = SIM_ENOMEM;
	for (i = 0; pc != NULL && rc == 0 && i < pc->nparams; i++)
		rc = kv_push(&s->params, &s->nparams, &capp,
			     pc->params[i].key, pc->params[i].value,
			     pc->params[i].line);
	for (i = 0; rc == 0 && i < cfg->ngen; i++)
		rc = kv_push(&s->gen, &s->ngen, &capg, cfg->gen[i].key,
			     cfg->gen[i].value, cfg->gen[i].line);
	sb_kv(&var, "policy", pol);
	if (find_dim(cfg, "policy") != NULL) {
		const struct exp_sweep_dim *d = find_dim(cfg, "policy");
		rc = kv_push(&s->sweep, &s->nsweep, &caps, "policy", pol,
			     d->line);
	}
	/* Global dimensions, in file order. */
	for (i = 0; rc == 0 && i < ng; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[gdims[i]];
		const char *v = d->values[gi[i]];
		rc = kv_push(&s->sweep, &s->nsweep, &caps, d->key, v, d->line);
		if (rc)
			break;
		sb_kv(&set, d->key, v);
		if (strcmp(d->key, "horizon_s") == 0) {
			s->horizon_s = strtod(v, NULL);
		} else if (strcmp(d->key, "cluster") == 0) {
			free(s->cluster);
			s->cluster = xstrdup(v);
			if (s->cluster == NULL)
				rc = SIM_ENOMEM;
		} else if (strcmp(d->key, "trace") == 0) {
			free(s->trace);
			s->trace = resolve_path(cfg->path, v);
			if (s->trace == NULL)
				rc = SIM_ENOMEM;
		} else if (strncmp(d->key, "gen.", 4) == 0) {
			rc = kv_set(&s->gen, &s->ngen, &capg, d->key + 4, v,
				    d->line);
		}
	}
	/* The policy's own dimensions. */
	for (i = 0; rc == 0 && i < np; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[pdims[i]];
		const char *v = d->values[pi[i]];
		const char *pk = strchr(d->key + 7, '.') + 1;
		rc = kv_push(&s->sweep, &s->nsweep, &caps, d->key, v, d->line);
		if (rc == 0)
			rc = kv_set(&s->params, &s->nparams, &capp, pk, v,
				    d->line);
		sb_kv(&var, pk, v);
	}
	if (rc == 0 && s->cluster != NULL) {
		char where[300];
		snprintf(where, sizeof where, "%s", cfg->path);
		rc = exp_cluster_parse(s->cluster, where, &s->groups,
				       &s->ngroups, err);
		if (rc)
			return rc;
	}
	/* key = setting, variant, replication: unique by construction. */
	if (set.n > 0)
		sim_strbuf_add(&key, set.s);
	if (var.s != NULL && !var.oom) {
		if (key.n > 0)
			sim_strbuf_add(&key, " ");
		sim_strbuf_add(&key, var.s);
	}
	snprintf(rep, sizeof rep, "%d", r);
	sb_kv(&key, "rep", rep);
	s->key = sb_take(&key);
	/* variant reads "colti headroom=0.2": drop the "policy=" prefix. */
	s->variant = var.s && !var.oom ? xstrdup(var.s + 7) : NULL;
	free(var.s);
	s->setting = sb_take(&set);
	if (rc == 0 && (s->key == NULL || s->variant == NULL ||
			s->setting == NULL))
		rc = SIM_ENOMEM;
	if (rc)
		return sim_err_set(err, rc, "out of memory");
	return 0;
}

/* Advances a mixed-radix counter; returns 0 when it wrapped around. */
static int odometer(size_t *idx, const size_t *radix, size_t n)
{
	size_t i = n;

	while (i-- > 0) {
		if (++idx[i] < radix[i])
			return 1;
		idx[i] = 0;
	}
	return 0;
}

int exp_matrix_build(struct exp_matrix *m, const struct exp_config *cfg,
		     struct sim_err *err)
{
	const struct exp_sweep_dim *pd = find_dim(cfg, "policy");
	size_t nd = cfg->ndims, ng = 0, cap, i, p, npol;
	size_t *gdims = NULL, *grad = NULL, *gi = NULL;
	size_t *pdims = NULL, *prad = NULL, *pi = NULL;
	const char *const *pols;
	const char *single[1];
	int r, rc = 0;

	m->runs = NULL;
	m->nruns = 0;
	if (pd != NULL) {
		pols = (const char *const *)pd->values;
		npol = pd->nvalues;
	} else {
		single[0] = cfg->policy;
		pols = single;
		npol = 1;
	}
	gdims = calloc(nd + 1, sizeof *gdims);
	grad = calloc(nd + 1, sizeof *grad);
	gi = calloc(nd + 1, sizeof *gi);
	pdims = calloc(nd + 1, sizeof *pdims);
	prad = calloc(nd + 1, sizeof *prad);
	pi = calloc(nd + 1, sizeof *pi);
	if (!gdims || !grad || !gi || !pdims || !prad || !pi) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nd; i++)
		if (strncmp(cfg->dims[i].key, "policy.", 7) != 0 &&
		    strcmp(cfg->dims[i].key, "policy") != 0) {
			gdims[ng] = i;
			grad[ng++] = cfg->dims[i].nvalues;
		}
	/* Count first, so that a huge matrix fails before allocating. */
	{
		double g = 1, sum = 0;
		for (i = 0; i < ng; i++)
			g *= (double)grad[i];
		for (p = 0; p < npol; p++) {
			double k = 1;
			size_t nl = strlen(pols[p]);
			for (i = 0; i < nd; i++)
				if (strncmp(cfg->dims[i].key, "policy.", 7) == 0 &&
				    strncmp(cfg->dims[i].key + 7, pols[p], nl) == 0 &&
				    cfg->dims[i].key[7 + nl] == '.')
					k *= (double)cfg->dims[i].nvalues;
			sum += k;
		}
		sum *= g * cfg->replications;
		if (sum > EXP_MAX_RUNS) {
			rc = sim_err_set(err, SIM_ERANGE, "%s: the sweep has %.0f "
					 "runs (at most %d)", cfg->path, sum,
					 EXP_MAX_RUNS);
			goto out;
		}
		cap = (size_t)sum;
	}
	m->runs = calloc(cap ? cap : 1, sizeof *m->runs);
	if (m->runs == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	/* Replication outermost: a sweep stopped early holds whole
	** replications of every policy, which the report can already pair. */
	for (r = 0; r < cfg->replications; r++) {
		memset(gi, 0, (nd + 1) * sizeof *gi);
		do {
			for (p = 0; p < npol; p++) {
				size_t npd = 0, nl = strlen(pols[p]);
				for (i = 0; i < nd; i++)
					if (strncmp(cfg->dims[i].key, "policy.", 7) == 0 &&
					    strncmp(cfg->dims[i].key + 7, pols[p], nl) == 0 &&
					    cfg->dims[i].key[7 + nl] == '.') {
						pdims[npd] = i;
						prad[npd++] = cfg->dims[i].nvalues;
					}
				memset(pi, 0, (nd + 1) * sizeof *pi);
				do {
					struct exp_run_spec *s = &m->runs[m->nruns];
					if (m->nruns >= cap) {
						rc = sim_err_set(err, SIM_ESTATE,
							"matrix count mismatch");
						goto out;
					}
					rc = build_spec(s, cfg, pols[p], gdims, gi,
							ng, pdims, pi, npd, r,
							err);
					s->index = (int)m->nruns;
					m->nruns++;
					if (rc)
						goto out;
				} while (odometer(pi, prad, npd));
			}
		} while (odometer(gi, grad, ng));
	}
out:
	free(gdims);
	free(grad);
	free(gi);
	free(pdims);
	free(prad);
	free(pi);
	if (rc)
		exp_matrix_fini(m);
	return rc;
}

void exp_matrix_fini(struct exp_matrix *m)
{
	size_t i;

	for (i = 0; i < m->nruns; i++)
		spec_fini(&m->runs[i]);
	free(m->runs);
	m->runs = NULL;
	m->nruns = 0;
}
