/*
** canon.c: the canonical form of an experiment config, which --resume
** compares (see config.h and docs/RESULTS.md, "Resuming").
**
** Two configs that run the same matrix of simulations have the same
** canonical form, whatever their comments, blank lines, key order,
** spelling of numbers ("0.10", "1e-1"), ranges ("0..0.2 step 0.1" is
** "0, 0.1, 0.2") or replication count: replications only add or remove
** whole runs, each keyed by its replication, so raising them resumes.
** Name and db are where the results go, not what they are.  Paths are
** kept as written (relative to the config), so the same config resumed
** from another folder still matches.
*/
#include "experiments/config_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/num.h"
#include "sim/rng.h"
#include "sim/strbuf.h"

/* Keys whose items are lower-cased (names compared case-insensitively). */
static int lower_key(const char *k)
{
	return strcmp(k, "policy") == 0 || strcmp(k, "sweep.policy") == 0;
}

static int cluster_key(const char *k)
{
	return strcmp(k, "cluster") == 0 || strcmp(k, "sweep.cluster") == 0;
}

/* Appends the normalized item s[0..n) to b. */
static void add_item(struct sim_strbuf *b, const char *s, size_t n,
		     const char *key)
{
	char item[512], num[40];
	size_t i, k = 0;
	double d;

	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	for (i = 0; i < n && k + 1 < sizeof item; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (cluster_key(key) && isspace(ch))
			continue;
		item[k++] = (char)(lower_key(key) || cluster_key(key) ?
				   tolower(ch) : ch);
	}
	item[k] = '\0';
	/* Integers keep every digit (a 64-bit seed does not survive a
	** double); other numbers print in their shortest exact form. */
	i = item[0] == '+' || item[0] == '-';
	if (item[i] != '\0' && strspn(item + i, "0123456789") == k - i) {
		size_t z = i;
		while (item[z] == '0' && item[z + 1] != '\0')
			z++;
		if (item[0] == '-' && strcmp(item + z, "0") != 0)
			sim_strbuf_add(b, "-");
		sim_strbuf_add(b, item + z);
		return;
	}
	if (sim_num_double(item, NULL, -1e308, 1e308, &d, NULL) == 0) {
		int prec;
		for (prec = 15; prec < 17; prec++) {
			snprintf(num, sizeof num, "%.*g", prec, d);
			if (strtod(num, NULL) == d)
				break;
		}
		snprintf(num, sizeof num, "%.*g", prec, d);
		sim_strbuf_add(b, num);
		return;
	}
	sim_strbuf_add(b, item);
}

/* The normalized form of a value of key: comma-separated items, each
** normalized, joined by ", " (heap; NULL when out of memory). */
static char *norm_value(const char *key, const char *v)
{
	struct sim_strbuf b = { NULL, 0, 0, 0 };
	const char *p = v;

	for (;;) {
		size_t n = strcspn(p, ",");
		if (p != v)
			sim_strbuf_add(&b, ", ");
		add_item(&b, p, n, key);
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	if (b.oom || b.s == NULL) {
		free(b.s);
		return b.oom ? NULL : exp__strdup("");
	}
	return b.s;
}

/* The canonical key of a written key, or NULL when it is left out. */
static const char *canon_key(const char *written, char *buf, size_t n)
{
	if (strcmp(written, "experiment.name") == 0 ||
	    strcmp(written, "experiment.db") == 0 ||
	    strcmp(written, "experiment.replications") == 0)
		return NULL;
	if (strcmp(written, "experiment.cluster") == 0 ||
	    strcmp(written, "cluster.nodes") == 0)
		return "cluster";
	if (strncmp(written, "experiment.", 11) == 0)
		return written + 11;
	snprintf(buf, n, "%s", written);
	return buf;
}

static int add(struct exp_config *cfg, size_t *cap, const char *key,
	       const char *value, int line)
{
	char *v = norm_value(key, value);
	int rc;

	if (v == NULL)
		return SIM_ENOMEM;
	rc = exp__kv_push(&cfg->canon, &cfg->ncanon, cap, key, v, line);
	free(v);
	return rc;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct exp_kv *)a)->key,
		      ((const struct exp_kv *)b)->key);
}

int exp__canon_build(struct exp_config *cfg, struct sim_err *err)
{
	static const char *const defaults[][2] = {
		{ "seed", "1" }, { "horizon_s", "0" },
		{ "cluster.preempt_cost", "free" },
		{ "cluster.memory_servers", "0" }, { "arrival_jitter_s", "0" },
	};
	struct sim_strbuf t = { NULL, 0, 0, 0 };
	size_t cap = 0, i, k;
	char buf[300];
	int rc = 0;

	for (i = 0; rc == 0 && i < cfg->nwritten; i++) {
		const char *key = canon_key(cfg->written[i].key, buf,
					    sizeof buf);
		if (key != NULL)
			rc = add(cfg, &cap, key, cfg->written[i].value,
				 cfg->written[i].line);
	}
	for (i = 0; rc == 0 && i < sizeof defaults / sizeof defaults[0]; i++)
		if (exp_kv_get(cfg->canon, cfg->ncanon, defaults[i][0]) ==
		    NULL)
			rc = add(cfg, &cap, defaults[i][0], defaults[i][1], 0);
	for (i = 0; rc == 0 && i < cfg->ndims; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[i];
		struct sim_strbuf v = { NULL, 0, 0, 0 };
		snprintf(buf, sizeof buf, "sweep.%s", d->key);
		for (k = 0; k < d->nvalues; k++) {
			if (k > 0)
				sim_strbuf_add(&v, ",");
			sim_strbuf_add(&v, d->values[k]);
		}
		rc = v.oom ? SIM_ENOMEM :
		     add(cfg, &cap, buf, v.s ? v.s : "", d->line);
		free(v.s);
	}
	if (rc != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	qsort(cfg->canon, cfg->ncanon, sizeof *cfg->canon, by_key);
	for (i = 0; i < cfg->ncanon; i++) {
		sim_strbuf_add(&t, cfg->canon[i].key);
		sim_strbuf_add(&t, "=");
		sim_strbuf_add(&t, cfg->canon[i].value);
		sim_strbuf_add(&t, "\n");
	}
	if (t.oom) {
		free(t.s);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	cfg->canon_text = t.s ? t.s : exp__strdup("");
	if (cfg->canon_text == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	snprintf(cfg->canon_hash, sizeof cfg->canon_hash, "%016" PRIx64,
		 sim_hash_str(cfg->canon_text));
	return 0;
}

/* "PATH:LINE: " or "PATH: " (a default has no line). */
static void where(const struct exp_config *cfg, int line, char *buf,
		  size_t n)
{
	if (line > 0)
		snprintf(buf, n, "%s:%d: ", cfg->path, line);
	else
		snprintf(buf, n, "%s: ", cfg->path);
}

int exp_config_canon_cmp(const struct exp_config *cfg, const char *stored,
			 struct sim_err *err)
{
	const char *p = stored;
	size_t i = 0;
	char at[600];

	for (;;) {
		const char *nl = p ? strchr(p, '\n') : NULL;
		const char *eq = nl ? memchr(p, '=', (size_t)(nl - p)) : NULL;
		const struct exp_kv *c = i < cfg->ncanon ? &cfg->canon[i] : NULL;
		size_t kl = eq ? (size_t)(eq - p) : 0;
		int cmp;

		if (nl != NULL && eq == NULL) {        /* not ours: skip */
			p = nl + 1;
			continue;
		}
		if (nl == NULL && c == NULL)
			return 0;
		if (nl == NULL)
			cmp = 1;                       /* only in cfg */
		else if (c == NULL)
			cmp = -1;                      /* only stored */
		else {
			cmp = strncmp(p, c->key, kl);
			if (cmp == 0 && c->key[kl] != '\0')
				cmp = -1;
		}
		if (cmp < 0) {
			where(cfg, 0, at, sizeof at);
			return sim_err_set(err, SIM_ESTATE, "%s%.*s: set to "
					   "'%.*s' when the experiment was "
					   "stored, no longer set", at,
					   (int)kl, p,
					   (int)(nl - eq - 1), eq + 1);
		}
		if (cmp > 0) {
			where(cfg, c->line, at, sizeof at);
			return sim_err_set(err, SIM_ESTATE, "%s%s = '%s': not "
					   "set when the experiment was stored",
					   at, c->key, c->value);
		}
		if (strlen(c->value) != (size_t)(nl - eq - 1) ||
		    strncmp(c->value, eq + 1, (size_t)(nl - eq - 1)) != 0) {
			where(cfg, c->line, at, sizeof at);
			return sim_err_set(err, SIM_ESTATE, "%s%s = '%s': was "
					   "'%.*s' when the experiment was "
					   "stored", at, c->key, c->value,
					   (int)(nl - eq - 1), eq + 1);
		}
		p = nl + 1;
		i++;
	}
}
