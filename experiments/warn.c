/*
** warn.c: warnings about degenerate experiments (see warn.h).
**
** The done runs of the experiment are read once: their setting, variant,
** policy and replication, their metrics (one column per name, NaN when a
** run has none), their swept values and how many training jobs and
** services they ran.  The rules then compare runs in memory: O(R * M)
** for R runs and M metrics, plus a sort of R signatures per swept key.
*/
#include "experiments/warn.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/names.h"
#include "experiments/report.h"
#include "sim/strbuf.h"

#define SAME_REL 1e-12

const char *exp_warn_name(enum exp_warn_kind k)
{
	switch (k) {
	case EXP_WARN_ZERO_VARIANCE: return "zero-variance";
	case EXP_WARN_NOOP_POLICY: return "noop-policy";
	case EXP_WARN_NOOP_SWEEP: return "noop-sweep";
	}
	return "?";
}

struct wrun {
	int64_t id;
	int setting, variant, policy, rep;
	long ninfer, ntrain;
	double *m;                    /* mets.n values, NaN: none */
	char **sw;                    /* keys.n values, NULL: not swept */
};

struct wctx {
	sqlite3 *db;
	int64_t exp;
	struct exp_names settings, variants, policies, mets, keys;
	int *skip;                    /* per metric: 1 = not compared */
	struct wrun *r;               /* in run order */
	size_t n;
	struct idpos *by_id;          /* (id, index in r), sorted by id */
	double *mv;
	char **swv;
	struct exp_warnings *out;
};

static void ctx_free(struct wctx *c)
{
	size_t i;

	exp_names_fini(&c->settings);
	exp_names_fini(&c->variants);
	exp_names_fini(&c->policies);
	exp_names_fini(&c->mets);
	for (i = 0; c->swv != NULL && i < c->n * c->keys.n; i++)
		free(c->swv[i]);
	exp_names_fini(&c->keys);
	free(c->swv);
	free(c->mv);
	free(c->skip);
	free(c->r);
	free(c->by_id);
}

static int db_fail(struct wctx *c, const char *what, struct sim_err *err)
{
	return sim_err_set(err, SIM_EIO, "results database: %s: %s", what,
			   sqlite3_errmsg(c->db));
}

static int oom(struct sim_err *err)
{
	return sim_err_set(err, SIM_ENOMEM, "out of memory");
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return t ? t : "";
}

static int prepare(struct wctx *c, const char *sql, sqlite3_stmt **st,
		   struct sim_err *err)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(c, "prepare", err);
	if (sqlite3_bind_int64(*st, 1, c->exp) != SQLITE_OK) {
		sqlite3_finalize(*st);
		return db_fail(c, "bind", err);
	}
	return 0;
}

/* ------------------------------------------------------------- loading */

static int load_runs(struct wctx *c, struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if ((rc = prepare(c, "SELECT id, setting, variant, policy, replication"
			  " FROM runs WHERE experiment_id = ?1 AND status ="
			  " 'done' ORDER BY run_index", &st, err)) != 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct wrun *w;
		if (c->n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct wrun *p = realloc(c->r, nc * sizeof *p);
			if (p == NULL)
				goto nomem;
			c->r = p;
			cap = nc;
		}
		w = &c->r[c->n];
		memset(w, 0, sizeof *w);
		w->id = sqlite3_column_int64(st, 0);
		w->setting = exp_names_add(&c->settings, col_text(st, 1));
		w->variant = exp_names_add(&c->variants, col_text(st, 2));
		w->policy = exp_names_add(&c->policies, col_text(st, 3));
		w->rep = sqlite3_column_int(st, 4);
		if (w->setting < 0 || w->variant < 0 || w->policy < 0)
			goto nomem;
		c->n++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(c, "read runs", err);
nomem:
	sqlite3_finalize(st);
	return oom(err);
}

struct idpos {
	int64_t id;
	size_t pos;
};

static int cmp_idpos(const void *a, const void *b)
{
	int64_t x = ((const struct idpos *)a)->id;
	int64_t y = ((const struct idpos *)b)->id;

	return (x > y) - (x < y);
}

/* The run with id, or NULL. */
static struct wrun *find_run(struct wctx *c, int64_t id)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t v = c->by_id[mid].id;
		if (v < id)
			lo = mid + 1;
		else if (v > id)
			hi = mid;
		else
			return &c->r[c->by_id[mid].pos];
	}
	return NULL;
}

static int index_runs(struct wctx *c, struct sim_err *err)
{
	size_t i;

	c->by_id = malloc((c->n + 1) * sizeof *c->by_id);
	if (c->by_id == NULL)
		return oom(err);
	for (i = 0; i < c->n; i++) {
		c->by_id[i].id = c->r[i].id;
		c->by_id[i].pos = i;
	}
	qsort(c->by_id, c->n, sizeof *c->by_id, cmp_idpos);
	return 0;
}

/*
** Two passes over (run_id, name, value) rows: the names, then the values
** into a runs x names table.  Metrics (text NULL) go into c->mv, swept
** values (text) into c->swv.
*/
static int load_table(struct wctx *c, const char *sql, int text,
		      struct sim_err *err)
{
	struct exp_names *nm = text ? &c->keys : &c->mets;
	sqlite3_stmt *st;
	size_t i;
	int rc, pass;

	if ((rc = prepare(c, sql, &st, err)) != 0)
		return rc;
	for (pass = 0; pass < 2; pass++) {
		sqlite3_reset(st);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct wrun *w = find_run(c, sqlite3_column_int64(st, 0));
			int k;
			if (w == NULL)
				continue;
			if (pass == 0) {
				if (exp_names_add(nm, col_text(st, 1)) < 0)
					goto nomem;
				continue;
			}
			k = exp_names_find(nm, col_text(st, 1));
			if (!text) {
				w->m[k] = sqlite3_column_double(st, 2);
			} else if (w->sw[k] == NULL &&
				   (w->sw[k] = strdup(col_text(st, 2))) == NULL) {
				goto nomem;
			}
		}
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_fail(c, "read runs", err);
		}
		if (pass == 1)
			break;
		if (!text) {
			c->mv = malloc((c->n * nm->n + 1) * sizeof *c->mv);
			c->skip = calloc(nm->n + 1, sizeof *c->skip);
			if (c->mv == NULL || c->skip == NULL)
				goto nomem;
			for (i = 0; i < c->n * nm->n; i++)
				c->mv[i] = NAN;
			for (i = 0; i < nm->n; i++)
				c->skip[i] = strcmp(nm->v[i], "events") == 0 ||
					strcmp(nm->v[i], "wall_s") == 0;
			for (i = 0; i < c->n; i++)
				c->r[i].m = &c->mv[i * nm->n];
		} else {
			c->swv = calloc(c->n * nm->n + 1, sizeof *c->swv);
			if (c->swv == NULL)
				goto nomem;
			for (i = 0; i < c->n; i++)
				c->r[i].sw = &c->swv[i * nm->n];
		}
	}
	sqlite3_finalize(st);
	return 0;
nomem:
	sqlite3_finalize(st);
	return oom(err);
}

static int load_jobs(struct wctx *c, struct sim_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = prepare(c, "SELECT j.run_id, sum(j.kind = 'infer'),"
			  " sum(j.kind = 'train') FROM jobs j JOIN runs r ON"
			  " r.id = j.run_id WHERE r.experiment_id = ?1 AND"
			  " r.status = 'done' GROUP BY j.run_id", &st,
			  err)) != 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct wrun *w = find_run(c, sqlite3_column_int64(st, 0));
		if (w != NULL) {
			w->ninfer = (long)sqlite3_column_int64(st, 1);
			w->ntrain = (long)sqlite3_column_int64(st, 2);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(c, "read jobs", err);
}

/* --------------------------------------------------------------- rules */

/* 1 when runs a and b have the same outcome metrics. */
static int same(const struct wctx *c, const struct wrun *a,
		const struct wrun *b)
{
	size_t i;

	for (i = 0; i < c->mets.n; i++) {
		double x = a->m[i], y = b->m[i];
		if (c->skip[i] || (isnan(x) && isnan(y)))
			continue;
		if (isnan(x) || isnan(y))
			return 0;
		if (x != y && fabs(x - y) > SAME_REL * fmax(fabs(x), fabs(y)))
			return 0;
	}
	return 1;
}

static int add(struct wctx *c, enum exp_warn_kind k, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static int add(struct wctx *c, enum exp_warn_kind k, const char *fmt, ...)
{
	struct exp_warnings *w = c->out;
	struct exp_warning *p = realloc(w->v, (w->n + 1) * sizeof *p);
	va_list ap;

	if (p == NULL)
		return SIM_ENOMEM;
	w->v = p;
	p[w->n].kind = k;
	va_start(ap, fmt);
	vsnprintf(p[w->n].msg, sizeof p[w->n].msg, fmt, ap);
	va_end(ap);
	w->n++;
	return 0;
}

/* "a, b, c and 2 more" of up to 3 names (a strbuf the caller frees). */
static void list_add(struct sim_strbuf *b, size_t *count, const char *s)
{
	if (*count < 3) {
		if (*count > 0)
			sim_strbuf_add(b, "; ");
		sim_strbuf_add(b, s);
	}
	(*count)++;
}

static void list_end(struct sim_strbuf *b, size_t count)
{
	char more[48];

	if (count > 3) {
		snprintf(more, sizeof more, " and %zu more", count - 3);
		sim_strbuf_add(b, more);
	}
}

static int rule_zero_variance(struct wctx *c)
{
	struct sim_strbuf b = {0};
	size_t s, v, i, eligible = 0, identical = 0, nrep = 0;
	int rc = 0;

	for (s = 0; s < c->settings.n; s++)
		for (v = 0; v < c->variants.n; v++) {
			const struct wrun *first = NULL;
			size_t n = 0;
			int all = 1;
			for (i = 0; i < c->n; i++) {
				const struct wrun *w = &c->r[i];
				if (w->setting != (int)s || w->variant != (int)v)
					continue;
				if (first == NULL)
					first = w;
				else if (!same(c, first, w))
					all = 0;
				n++;
			}
			if (n < 2)
				continue;
			eligible++;
			if (!all)
				continue;
			if (n > nrep)
				nrep = n;
			{
				char lab[400];
				snprintf(lab, sizeof lab, "%s%s%s%s",
					 c->variants.v[v],
					 c->settings.v[s][0] ? " (" : "",
					 c->settings.v[s],
					 c->settings.v[s][0] ? ")" : "");
				list_add(&b, &identical, lab);
			}
		}
	list_end(&b, identical);
	if (identical > 0 && !b.oom) {
		if (identical == eligible)
			rc = add(c, EXP_WARN_ZERO_VARIANCE, "replications are "
				 "identical: every variant gave the same results "
				 "in all its replications (up to %zu), so every "
				 "+-CI is 0 and says nothing about variability "
				 "(a fixed trace, nothing random); set "
				 "[experiment] arrival_jitter_s, or generate the "
				 "trace per replication with gen.* "
				 "(docs/RESULTS.md, \"Replications of a fixed "
				 "trace\")", nrep);
		else
			rc = add(c, EXP_WARN_ZERO_VARIANCE, "replications are "
				 "identical for %zu of %zu variants and settings "
				 "(their +-CI is 0): %s", identical, eligible,
				 b.s);
	}
	if (b.oom)
		rc = SIM_ENOMEM;
	free(b.s);
	return rc;
}

/* The baseline variant as rep_build picks it, or -1. */
static int pick_baseline(const struct wctx *c, const char *baseline)
{
	size_t i;

	if (baseline != NULL) {
		int v = exp_names_find(&c->variants, baseline);
		if (v >= 0)
			return v;
	}
	for (i = 0; i < c->n; i++)
		if (strcmp(c->policies.v[c->r[i].policy],
			   baseline ? baseline : "exclusive") == 0)
			return c->r[i].variant;
	return c->n > 0 && baseline == NULL ? c->r[0].variant : -1;
}

/* Pairs of variant v with baseline b in setting s: *pairs compared, 1 if
** every pair is identical. */
static int noop_in(const struct wctx *c, int s, int v, int b, size_t *pairs)
{
	size_t i, j;
	int all = 1;

	*pairs = 0;
	for (i = 0; i < c->n; i++) {
		const struct wrun *w = &c->r[i];
		if (w->setting != s || w->variant != v)
			continue;
		for (j = 0; j < c->n; j++) {
			const struct wrun *x = &c->r[j];
			if (x->setting == s && x->variant == b &&
			    x->rep == w->rep) {
				(*pairs)++;
				all &= same(c, w, x);
				break;
			}
		}
	}
	return *pairs > 0 && all;
}

static int rule_noop_policy(struct wctx *c, const char *baseline)
{
	int b = pick_baseline(c, baseline), v, s, rc = 0;
	int bpol = -1;
	size_t i;

	for (i = 0; b >= 0 && i < c->n; i++)
		if (c->r[i].variant == b)
			bpol = c->r[i].policy;
	for (v = 0; b >= 0 && rc == 0 && v < (int)c->variants.n; v++) {
		struct sim_strbuf lst = {0};
		size_t nset = 0, nnoop = 0, pairs, np = 0;
		long ninfer = 0, ntrain = 0;
		int pol = -1;
		for (i = 0; i < c->n; i++)
			if (c->r[i].variant == v) {
				pol = c->r[i].policy;
				ninfer += c->r[i].ninfer;
				ntrain += c->r[i].ntrain;
			}
		if (v == b || pol == bpol || pol < 0)
			continue;
		for (s = 0; s < (int)c->settings.n; s++) {
			int noop = noop_in(c, s, v, b, &pairs);
			if (pairs == 0)
				continue;
			nset++;
			np += noop ? pairs : 0;
			if (noop)
				list_add(&lst, &nnoop, c->settings.v[s]);
		}
		list_end(&lst, nnoop);
		if (nnoop > 0 && !lst.oom) {
			char where[400];
			if (nnoop < nset)
				snprintf(where, sizeof where, " of %s", lst.s);
			else
				snprintf(where, sizeof where, "%s",
					 c->settings.n > 1 ? " of every setting"
					 : "");
			rc = add(c, EXP_WARN_NOOP_POLICY, "policy %s gave exactly "
				 "the results of the baseline %s in all %zu "
				 "paired replications%s: it had nothing to act "
				 "on%s", c->variants.v[v], c->variants.v[b], np,
				 where, ninfer == 0 ? " (the runs have no "
				 "inference services)" : ntrain == 0 ? " (the "
				 "runs have no training jobs)" : "");
		}
		if (lst.oom)
			rc = SIM_ENOMEM;
		free(lst.s);
	}
	return rc;
}

struct sig {
	char *s;
	size_t run;
};

static int cmp_sig(const void *a, const void *b)
{
	return strcmp(((const struct sig *)a)->s, ((const struct sig *)b)->s);
}

/* The runs that have key k, each with the signature of everything but k. */
static int signatures(const struct wctx *c, size_t k, struct sig **out,
		      size_t *nout)
{
	struct sig *g = calloc(c->n + 1, sizeof *g);
	size_t i, j, n = 0;

	if (g == NULL)
		return SIM_ENOMEM;
	for (i = 0; i < c->n; i++) {
		const struct wrun *w = &c->r[i];
		struct sim_strbuf b = {0};
		char head[48];
		if (w->sw == NULL || w->sw[k] == NULL)
			continue;
		snprintf(head, sizeof head, "%d|%d|", w->policy, w->rep);
		sim_strbuf_add(&b, head);
		for (j = 0; j < c->keys.n; j++) {
			if (j == k)
				continue;
			sim_strbuf_add(&b, w->sw[j] ? w->sw[j] : "\x01");
			sim_strbuf_add(&b, "\x1f");
		}
		if (b.oom) {
			free(b.s);
			for (j = 0; j < n; j++)
				free(g[j].s);
			free(g);
			return SIM_ENOMEM;
		}
		g[n].s = b.s;
		g[n++].run = i;
	}
	qsort(g, n, sizeof *g, cmp_sig);
	*out = g;
	*nout = n;
	return 0;
}

static int rule_noop_sweep(struct wctx *c)
{
	size_t k;
	int rc = 0;

	for (k = 0; rc == 0 && k < c->keys.n; k++) {
		struct sim_strbuf vals = {0};
		struct exp_names seen = { NULL, 0, 0 };
		struct sig *g = NULL;
		size_t n = 0, i, groups = 0, dead = 0, nv = 0;
		if (strcmp(c->keys.v[k], "policy") == 0)
			continue;
		if ((rc = signatures(c, k, &g, &n)) != 0)
			break;
		for (i = 0; i < n; ) {
			size_t j = i, ndist = 0;
			int all = 1;
			struct exp_names dist = { NULL, 0, 0 };
			while (j < n && strcmp(g[j].s, g[i].s) == 0) {
				const struct wrun *w = &c->r[g[j].run];
				if (exp_names_find(&dist, w->sw[k]) < 0) {
					if (exp_names_add(&dist, w->sw[k]) < 0)
						rc = SIM_ENOMEM;
					ndist++;
				}
				all &= same(c, &c->r[g[i].run], w);
				j++;
			}
			exp_names_fini(&dist);
			if (ndist >= 2) {
				groups++;
				dead += all;
			}
			i = j;
		}
		for (i = 0; i < n; i++) {
			const char *v = c->r[g[i].run].sw[k];
			if (exp_names_find(&seen, v) >= 0)
				continue;
			if (exp_names_add(&seen, v) < 0)
				rc = SIM_ENOMEM;
			list_add(&vals, &nv, v);
		}
		list_end(&vals, nv);
		if (rc == 0 && groups > 0 && dead == groups && !vals.oom)
			rc = add(c, EXP_WARN_NOOP_SWEEP, "swept key %s: its values "
				 "(%s) gave identical results in every run "
				 "(%zu groups of runs differing only in it): it "
				 "changes nothing here%s", c->keys.v[k], vals.s,
				 groups, strncmp(c->keys.v[k], "policy.", 7) == 0 ?
				 " (is it a key the policy reads? "
				 "docs/POLICIES.md)" : strcmp(c->keys.v[k],
				 "horizon_s") == 0 ? " (did every run end before "
				 "the horizon?)" : "");
		if (vals.oom)
			rc = SIM_ENOMEM;
		free(vals.s);
		exp_names_fini(&seen);
		for (i = 0; i < n; i++)
			free(g[i].s);
		free(g);
	}
	return rc;
}

int exp_warnings_build(struct store *s, const char *experiment,
		       const char *baseline, struct exp_warnings *w,
		       struct sim_err *err)
{
	struct wctx c;
	char *name = NULL;
	int rc;

	memset(w, 0, sizeof *w);
	memset(&c, 0, sizeof c);
	c.db = store_db(s);
	c.out = w;
	if ((rc = rep_find_experiment(s, experiment, &c.exp, &name, err)) ||
	    (rc = load_runs(&c, err)) || (rc = index_runs(&c, err)) ||
	    (rc = load_table(&c, "SELECT m.run_id, m.name, m.value FROM "
			     "metrics m JOIN runs r ON r.id = m.run_id WHERE "
			     "r.experiment_id = ?1 AND m.value IS NOT NULL",
			     0, err)) ||
	    (rc = load_table(&c, "SELECT p.run_id, p.key, p.value FROM "
			     "run_params p JOIN runs r ON r.id = p.run_id "
			     "WHERE r.experiment_id = ?1 AND p.kind = 'sweep'",
			     1, err)) ||
	    (rc = load_jobs(&c, err)))
		goto out;
	if (c.mv == NULL && (c.mv = calloc(1, sizeof *c.mv)) == NULL) {
		rc = oom(err);
		goto out;
	}
	if ((rc = rule_zero_variance(&c)) == 0 &&
	    (rc = rule_noop_policy(&c, baseline)) == 0)
		rc = rule_noop_sweep(&c);
	if (rc == SIM_ENOMEM)
		oom(err);
out:
	free(name);
	ctx_free(&c);
	if (rc != 0)
		exp_warnings_fini(w);
	return rc;
}

void exp_warnings_fini(struct exp_warnings *w)
{
	free(w->v);
	w->v = NULL;
	w->n = 0;
}
