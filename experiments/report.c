/*
** report.c: confidence intervals and paired differences over the results
** store (see report.h).
**
** The observations of one experiment are read once, in run order, into a
** flat array of (setting, variant, metric, replication, value) with the
** strings interned; groups are then formed in memory.  This is O(R*M)
** memory for R runs and M metrics per run: a few MB for the largest sweeps
** colosim is meant for.
*/
#include "experiments/report.h"
#include "experiments/names.h"
#include "experiments/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

/* The documented metric order (docs/RESULTS.md, "Metrics"). */
static const char *const metric_order[] = {
	"makespan_s", "jct_mean_s", "jct_p50_s", "jct_p95_s", "jct_p99_s",
	"queue_delay_mean_s", "slowdown_mean", "hbm_util_mean", "sm_util_mean",
	"latency_p50_ms", "latency_p95_ms", "latency_p99_ms", "slo_attainment",
	"requests_total", "requests_served", "requests_unserved",
	"jobs_total", "jobs_done", "jobs_failed", "jobs_unfinished", "gpu_hours",
	"llm_ttft_p50_ms", "llm_ttft_p99_ms", "llm_tpot_p50_ms",
	"llm_tpot_p99_ms", "llm_slo_ttft", "llm_slo_tpot", "llm_slo_both",
	"llm_out_tok_per_s", "llm_kv_util_mean", "llm_preemptions",
	NULL
};

int rep_metric_rank(const char *name)
{
	int i;

	for (i = 0; metric_order[i] != NULL; i++)
		if (strcmp(metric_order[i], name) == 0)
			return i;
	return i;
}

void rep_stat_compute(const double *x, size_t n, double conf,
		      struct rep_stat *out)
{
	out->n = n;
	out->mean = n > 0 ? gsl_stats_mean(x, 1, n) : (double)NAN;
	out->sd = NAN;
	out->half = NAN;
	if (n >= 2) {
		double t = gsl_cdf_tdist_Pinv(0.5 + conf / 2, (double)(n - 1));
		out->sd = gsl_stats_sd_m(x, 1, n, out->mean);
		out->half = t * out->sd / sqrt((double)n);
	}
}

double rep_rel_diff(double diff, double base, double variant)
{
	double ab = fabs(base), av = fabs(variant);

	if (!isfinite(diff) || !(ab > 0) || !isfinite(av) ||
	    ab < REP_REL_MIN * (ab > av ? ab : av))
		return NAN;
	return diff / base;
}

int rep_keep_metrics(struct rep_table *t, const char *list,
		     struct sim_err *err)
{
	struct rep_row *rows;
	size_t n = 0, i, start;
	const char *p;

	/* Every name must be in the table. */
	for (p = list; *p; ) {
		size_t l = strcspn(p, ",");
		int found = 0;
		for (i = 0; i < t->nrows && !found; i++)
			found = strlen(t->rows[i].metric) == l &&
				strncmp(t->rows[i].metric, p, l) == 0;
		if (l == 0 || !found)
			return sim_err_set(err, SIM_ENOENT, "--metric: no metric "
					   "'%.*s' in experiment %s (see the "
					   "report without --metric)", (int)l,
					   p, t->experiment);
		p += l + (p[l] == ',');
	}
	rows = calloc(t->nrows + 1, sizeof *rows);
	if (rows == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	/* Per setting (rows are grouped by setting), the listed metrics in
	** the list's order. */
	for (start = 0; start < t->nrows; ) {
		size_t end = start;
		while (end < t->nrows &&
		       strcmp(t->rows[end].setting, t->rows[start].setting) == 0)
			end++;
		for (p = list; *p; p += strcspn(p, ",") +
		     (p[strcspn(p, ",")] == ',')) {
			size_t l = strcspn(p, ",");
			for (i = start; i < end; i++)
				if (strlen(t->rows[i].metric) == l &&
				    strncmp(t->rows[i].metric, p, l) == 0)
					rows[n++] = t->rows[i];
		}
		start = end;
	}
	free(t->rows);
	t->rows = rows;
	t->nrows = n;
	return 0;
}

/* ------------------------------------------------------------ collection */

struct obs {
	int setting, variant, metric, rep;
	double v;
};

static int db_fail(sqlite3 *db, const char *what, struct sim_err *err)
{
	return sim_err_set(err, SIM_EIO, "results database: %s: %s", what,
			   sqlite3_errmsg(db));
}

int rep_list_experiments(struct store *s, char **out, struct sim_err *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	size_t len = 0;
	char *buf = NULL;
	int rc;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM experiments ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "list experiments", err);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		size_t l = strlen(n ? n : "");
		char *p = realloc(buf, len + l + 3);
		if (p == NULL) {
			free(buf);
			sqlite3_finalize(st);
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		}
		buf = p;
		if (len > 0) {
			memcpy(buf + len, ", ", 2);
			len += 2;
		}
		memcpy(buf + len, n ? n : "", l + 1);
		len += l;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(buf);
		return db_fail(db, "list experiments", err);
	}
	if (buf == NULL && (buf = calloc(1, 1)) == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	*out = buf;
	return 0;
}

int rep_find_experiment(struct store *s, const char *name, int64_t *id,
			char **name_out, struct sim_err *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	char *list = NULL;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, name ? "SELECT id, name, total_runs FROM "
			       "experiments WHERE name = ?1" : "SELECT id, "
			       "name, total_runs FROM experiments", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(db, "find experiment", err);
	if (name && sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(db, "bind", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n++ == 0) {
			const char *nm = (const char *)sqlite3_column_text(st, 1);
			if (nm == NULL) {     /* NOT NULL: out of memory */
				sqlite3_finalize(st);
				return sim_err_set(err, SIM_ENOMEM,
						   "out of memory");
			}
			*id = sqlite3_column_int64(st, 0);
			free(*name_out);
			*name_out = malloc(strlen(nm) + 1);
			if (*name_out == NULL) {
				sqlite3_finalize(st);
				return sim_err_set(err, SIM_ENOMEM,
						   "out of memory");
			}
			strcpy(*name_out, nm);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, "find experiment", err);
	if (n == 1)
		return 0;
	if ((rc = rep_list_experiments(s, &list, err)) != 0)
		return rc;
	if (n == 0 && name != NULL)
		rc = sim_err_set(err, SIM_ENOENT, "no experiment '%s' in the "
				 "database (stored: %s)", name,
				 *list ? list : "none");
	else if (n == 0)
		rc = sim_err_set(err, SIM_ENOENT, "the database holds no "
				 "experiment");
	else
		rc = sim_err_set(err, SIM_EINVAL, "the database holds several "
				 "experiments (%s): name one with --experiment",
				 list);
	free(list);
	return rc;
}

static int cmp_obs_rep(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	return (x->rep > y->rep) - (x->rep < y->rep);
}

struct collect {
	struct exp_names settings, variants, metrics;
	int *variant_policy;          /* variant -> index in policies */
	struct exp_names policies;
	struct obs *o;
	size_t n, cap;
};

static void collect_free(struct collect *c)
{
	exp_names_fini(&c->settings);
	exp_names_fini(&c->variants);
	exp_names_fini(&c->metrics);
	exp_names_fini(&c->policies);
	free(c->variant_policy);
	free(c->o);
}

static int collect(struct store *s, int64_t id, struct collect *c,
		   struct sim_err *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db,
		"SELECT r.setting, r.variant, r.policy, r.replication, m.name,"
		" m.value FROM runs r JOIN metrics m ON m.run_id = r.id"
		" WHERE r.experiment_id = ?1 AND r.status = 'done'"
		" AND m.value IS NOT NULL ORDER BY r.run_index, m.name",
		-1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "read metrics", err);
	if (sqlite3_bind_int64(st, 1, id) != SQLITE_OK) {
		sqlite3_finalize(st);
		return db_fail(db, "bind", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct obs o;
		int pol;
		const char *t[5];
		int k;
		for (k = 0; k < 3; k++) {
			t[k] = (const char *)sqlite3_column_text(st, k);
			if (t[k] == NULL)
				t[k] = "";
		}
		t[4] = (const char *)sqlite3_column_text(st, 4);
		if (t[4] == NULL)
			t[4] = "";
		o.setting = exp_names_add(&c->settings, t[0]);
		o.variant = exp_names_add(&c->variants, t[1]);
		pol = exp_names_add(&c->policies, t[2]);
		o.metric = exp_names_add(&c->metrics, t[4]);
		o.rep = sqlite3_column_int(st, 3);
		o.v = sqlite3_column_double(st, 5);
		if (o.setting < 0 || o.variant < 0 || pol < 0 || o.metric < 0)
			goto oom;
		if (c->variants.n > 0) {
			int *p = realloc(c->variant_policy,
					 c->variants.n * sizeof *p);
			if (p == NULL)
				goto oom;
			c->variant_policy = p;
			p[o.variant] = pol;
		}
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 256;
			struct obs *p = realloc(c->o, cap * sizeof *p);
			if (p == NULL)
				goto oom;
			c->o = p;
			c->cap = cap;
		}
		c->o[c->n++] = o;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, "read metrics", err);
	return 0;
oom:
	sqlite3_finalize(st);
	return sim_err_set(err, SIM_ENOMEM, "out of memory");
}

static int run_counts(struct store *s, int64_t id, struct rep_table *t,
		      struct sim_err *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT e.total_runs, (SELECT count(*) FROM"
			       " runs WHERE experiment_id = e.id AND status = "
			       "'done'), (SELECT count(*) FROM runs WHERE "
			       "experiment_id = e.id AND status = 'failed') "
			       "FROM experiments e WHERE e.id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(db, "count runs", err);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		t->total_runs = (long)sqlite3_column_int64(st, 0);
		t->done_runs = (long)sqlite3_column_int64(st, 1);
		t->failed_runs = (long)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(db, "count runs", err);
}

/* Finds the baseline variant index, or -1 with err set. */
static int pick_baseline(const struct collect *c, const char *baseline,
			 struct sim_err *err)
{
	size_t i, len = 0;
	char known[400];

	if (c->variants.n == 0)
		return -1;
	for (i = 0; i < c->variants.n; i++)
		if (baseline != NULL && strcmp(c->variants.v[i], baseline) == 0)
			return (int)i;
	for (i = 0; i < c->variants.n; i++)
		if (strcmp(c->policies.v[c->variant_policy[i]],
			   baseline ? baseline : "exclusive") == 0)
			return (int)i;
	if (baseline == NULL)
		return 0;
	known[0] = '\0';
	for (i = 0; i < c->variants.n && len + 4 < sizeof known; i++) {
		snprintf(known + len, sizeof known - len, "%s%s",
			 i ? ", " : "", c->variants.v[i]);
		len = strlen(known);
	}
	sim_err_set(err, SIM_ENOENT, "baseline '%s' did not run in this "
		    "experiment (ran: %s)", baseline, known);
	return -2;
}

static char *dup_str(const char *s)
{
	char *p = malloc(strlen(s) + 1);

	if (p != NULL)
		strcpy(p, s);
	return p;
}

/* Observations in the table's row order: setting, metric (its position
** in the table's metric order), variant, replication. */
static int cmp_obs_row(const void *a, const void *b)
{
	const struct obs *x = a, *y = b;

	if (x->setting != y->setting)
		return (x->setting > y->setting) - (x->setting < y->setting);
	if (x->metric != y->metric)
		return (x->metric > y->metric) - (x->metric < y->metric);
	if (x->variant != y->variant)
		return (x->variant > y->variant) - (x->variant < y->variant);
	return cmp_obs_rep(a, b);
}

/* morder[k]: the metric shown k-th: documented first, then by name. */
static void order_metrics(const struct collect *c, int *morder)
{
	size_t i, j;

	for (i = 0; i < c->metrics.n; i++)
		morder[i] = (int)i;
	for (i = 1; i < c->metrics.n; i++)
		for (j = i; j > 0; j--) {
			const char *p = c->metrics.v[morder[j - 1]];
			const char *q = c->metrics.v[morder[j]];
			int rp = rep_metric_rank(p), rq = rep_metric_rank(q);
			int tmp;

			if (rp < rq || (rp == rq && strcmp(p, q) <= 0))
				break;
			tmp = morder[j];
			morder[j] = morder[j - 1];
			morder[j - 1] = tmp;
		}
}

/* A row's statistics from its variant's observations grp[0..ng) and the
** baseline's bgrp[0..nb) (both by replication; nb = 0: no baseline),
** paired by replication.  x and d hold ng values each. */
static void fill_row(struct rep_row *r, const struct obs *grp, size_t ng,
		     const struct obs *bgrp, size_t nb, double conf,
		     double *x, double *d)
{
	size_t i, nd = 0, bi = 0;

	for (i = 0; i < ng; i++)
		x[i] = grp[i].v;
	rep_stat_compute(x, ng, conf, &r->stat);
	r->rel = NAN;
	for (i = 0; !r->is_baseline && i < ng; i++) {
		while (bi < nb && bgrp[bi].rep < grp[i].rep)
			bi++;
		if (bi < nb && bgrp[bi].rep == grp[i].rep)
			d[nd++] = grp[i].v - bgrp[bi].v;
	}
	if (nd > 0) {
		double bm = 0;

		rep_stat_compute(d, nd, conf, &r->diff);
		for (i = 0; i < nb; i++)
			bm += bgrp[i].v;
		bm /= (double)nb;
		r->rel = rep_rel_diff(r->diff.mean, bm, r->stat.mean);
	}
}

/* The rows of one (setting, metric) block o[0..n), sorted by variant
** and replication; b the baseline variant (-1: none). */
static void block_rows(const struct collect *c, const struct obs *o,
		       size_t n, int b, const int *morder, double conf,
		       struct rep_table *t, double *x, double *d)
{
	const struct obs *bgrp = NULL;
	size_t i, j, nb = 0;

	for (i = 0; i < n && b >= 0; i = j) {
		for (j = i; j < n && o[j].variant == o[i].variant; j++)
			;
		if (o[i].variant == b) {
			bgrp = o + i;
			nb = j - i;
		}
	}
	for (i = 0; i < n; i = j) {
		struct rep_row *r = &t->rows[t->nrows++];
		int v = o[i].variant;

		for (j = i; j < n && o[j].variant == v; j++)
			;
		r->setting = c->settings.v[o[i].setting];
		r->variant = c->variants.v[v];
		r->policy = c->policies.v[c->variant_policy[v]];
		r->metric = c->metrics.v[morder[o[i].metric]];
		r->is_baseline = v == b;
		fill_row(r, o + i, j - i, bgrp, nb, conf, x, d);
	}
}

/* One sort of every observation into row order, then one walk: O(n log
** n) for n observations (a scan of all of them per row was quadratic in
** the experiment's size). */
int rep_build(struct store *s, const char *experiment, const char *baseline,
	      double conf, struct rep_table *t, struct sim_err *err)
{
	struct collect c;
	int64_t id = 0;
	int *morder = NULL, *mpos = NULL;
	double *x = NULL, *d = NULL;
	size_t i, j;
	int rc, b;

	memset(t, 0, sizeof *t);
	memset(&c, 0, sizeof c);
	t->conf = conf;
	if ((rc = rep_find_experiment(s, experiment, &id, &t->experiment,
				       err)) ||
	    (rc = run_counts(s, id, t, err)) ||
	    (rc = collect(s, id, &c, err)))
		goto out;
	b = pick_baseline(&c, baseline, err);
	if (b == -2) {
		rc = err->code;
		goto out;
	}
	if (b >= 0 && (t->baseline = dup_str(c.variants.v[b])) == NULL)
		goto oom;
	morder = malloc((c.metrics.n + 1) * sizeof *morder);
	mpos = malloc((c.metrics.n + 1) * sizeof *mpos);
	x = malloc((c.n + 1) * sizeof *x);
	d = malloc((c.n + 1) * sizeof *d);
	t->rows = calloc(c.settings.n * c.metrics.n * c.variants.n + 1,
			 sizeof *t->rows);
	if (!morder || !mpos || !x || !d || !t->rows)
		goto oom;
	order_metrics(&c, morder);
	for (i = 0; i < c.metrics.n; i++)
		mpos[morder[i]] = (int)i;
	for (i = 0; i < c.n; i++)
		c.o[i].metric = mpos[c.o[i].metric];
	if (c.n > 0)
		qsort(c.o, c.n, sizeof *c.o, cmp_obs_row);
	for (i = 0; i < c.n; i = j) {
		for (j = i; j < c.n && c.o[j].setting == c.o[i].setting &&
			    c.o[j].metric == c.o[i].metric; j++)
			;
		block_rows(&c, c.o + i, j - i, b, morder, conf, t, x, d);
	}
	rc = 0;
	/* Hand the interned strings over to the table. */
	t->npool = c.settings.n + c.variants.n + c.metrics.n + c.policies.n;
	t->pool = malloc((t->npool + 1) * sizeof *t->pool);
	if (t->pool == NULL)
		goto oom;
	j = 0;
	for (i = 0; i < c.settings.n; i++)
		t->pool[j++] = c.settings.v[i];
	for (i = 0; i < c.variants.n; i++)
		t->pool[j++] = c.variants.v[i];
	for (i = 0; i < c.metrics.n; i++)
		t->pool[j++] = c.metrics.v[i];
	for (i = 0; i < c.policies.n; i++)
		t->pool[j++] = c.policies.v[i];
	c.settings.n = c.variants.n = c.metrics.n = c.policies.n = 0;
	goto out;
oom:
	rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
out:
	free(morder);
	free(mpos);
	free(x);
	free(d);
	collect_free(&c);
	if (rc)
		rep_table_fini(t);
	return rc;
}

void rep_table_fini(struct rep_table *t)
{
	size_t i;

	free(t->experiment);
	free(t->baseline);
	free(t->rows);
	for (i = 0; i < t->npool; i++)
		free(t->pool[i]);
	free(t->pool);
	memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------- rendering */

/* Prints v with %*.*g (a leading '+' when sign), or none padded to width. */
static void put_num(FILE *f, int width, int prec, int sign, double v,
		    const char *none)
{
	if (isfinite(v))
		fprintf(f, sign ? "%+*.*g" : "%*.*g", width, prec, v);
	else
		fprintf(f, "%*s", width, none);
}

static void csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void render_table(FILE *f, const struct rep_table *t)
{
	const char *cur_set = NULL, *cur_met = NULL;
	size_t i;
	int wv = 24;        /* the variant column fits the longest label */

	for (i = 0; i < t->nrows; i++)
		if ((int)strlen(t->rows[i].variant) > wv)
			wv = (int)strlen(t->rows[i].variant);
	fprintf(f, "experiment %s: %ld of %ld runs done, %ld failed; mean and "
		"%.0f%% CI (Student t) over replications\n", t->experiment,
		t->done_runs, t->total_runs, t->failed_runs, t->conf * 100);
	if (t->baseline)
		fprintf(f, "paired differences against %s (same replication, "
			"same arrivals)\n", t->baseline);
	for (i = 0; i < t->nrows; i++) {
		const struct rep_row *r = &t->rows[i];
		if (cur_set == NULL || strcmp(cur_set, r->setting) != 0) {
			if (r->setting[0])
				fprintf(f, "\n== %s ==\n", r->setting);
			cur_set = r->setting;
			cur_met = NULL;
		}
		if (cur_met == NULL || strcmp(cur_met, r->metric) != 0) {
			fprintf(f, "\n%s\n  %-*s %3s %12s %11s %13s %11s %8s\n",
				r->metric, wv, "policy", "n", "mean", "+-CI",
				"diff", "+-CI", "rel");
			cur_met = r->metric;
		}
		fprintf(f, "  %-*s %3zu ", wv, r->variant, r->stat.n);
		put_num(f, 12, 5, 0, r->stat.mean, "-");
		fputc(' ', f);
		put_num(f, 11, 4, 0, r->stat.half, "n/a");
		if (r->is_baseline) {
			fputs("    (baseline)\n", f);
			continue;
		}
		if (r->diff.n == 0) {
			fputs("   (no pairs)\n", f);
			continue;
		}
		fputc(' ', f);
		put_num(f, 13, 5, 1, r->diff.mean, "-");
		fputc(' ', f);
		put_num(f, 11, 4, 0, r->diff.half, "n/a");
		if (isfinite(r->rel))
			fprintf(f, " %+7.1f%%", r->rel * 100);
		else
			fprintf(f, " %8s", "n/a");
		fputc('\n', f);
	}
	if (t->nrows == 0)
		fputs("\n(no finished runs with metrics yet)\n", f);
}

static void render_csv(FILE *f, const struct rep_table *t)
{
	size_t i;

	fputs("experiment,setting,variant,policy,metric,n,mean,sd,ci_half,"
	      "ci_lo,ci_hi,baseline,diff_n,diff_mean,diff_half,diff_lo,"
	      "diff_hi,rel_diff\n", f);
	for (i = 0; i < t->nrows; i++) {
		const struct rep_row *r = &t->rows[i];
		double v[9] = {
			r->stat.mean, r->stat.sd, r->stat.half,
			r->stat.mean - r->stat.half, r->stat.mean + r->stat.half,
			r->diff.mean, r->diff.half,
			r->diff.mean - r->diff.half, r->diff.mean + r->diff.half
		};
		int k;
		csv_str(f, t->experiment);
		fputc(',', f);
		csv_str(f, r->setting);
		fputc(',', f);
		csv_str(f, r->variant);
		fputc(',', f);
		csv_str(f, r->policy);
		fputc(',', f);
		csv_str(f, r->metric);
		fprintf(f, ",%zu", r->stat.n);
		for (k = 0; k < 5; k++) {
			fputc(',', f);
			put_num(f, 0, 17, 0, v[k], "");
		}
		fputc(',', f);
		csv_str(f, t->baseline ? t->baseline : "");
		fprintf(f, ",%zu", r->diff.n);
		for (k = 5; k < 9; k++) {
			fputc(',', f);
			if (r->diff.n > 0)
				put_num(f, 0, 17, 0, v[k], "");
		}
		fputc(',', f);
		put_num(f, 0, 17, 0, r->rel, "");
		fputc('\n', f);
	}
}

static json_t *json_row(const struct rep_row *r)
{
	json_t *o = json_object();
	int bad = o == NULL;

	bad |= json_object_set_new(o, "setting", exp_json_text(r->setting));
	bad |= json_object_set_new(o, "variant", exp_json_text(r->variant));
	bad |= json_object_set_new(o, "policy", exp_json_text(r->policy));
	bad |= json_object_set_new(o, "metric", exp_json_text(r->metric));
	bad |= json_object_set_new(o, "n", json_integer((json_int_t)r->stat.n));
	bad |= json_object_set_new(o, "mean", exp_json_num(r->stat.mean));
	bad |= json_object_set_new(o, "sd", exp_json_num(r->stat.sd));
	bad |= json_object_set_new(o, "ci_half", exp_json_num(r->stat.half));
	bad |= json_object_set_new(o, "is_baseline",
				   json_boolean(r->is_baseline));
	if (r->diff.n > 0) {
		bad |= json_object_set_new(o, "diff_n",
					   json_integer((json_int_t)r->diff.n));
		bad |= json_object_set_new(o, "diff_mean",
					   exp_json_num(r->diff.mean));
		bad |= json_object_set_new(o, "diff_half",
					   exp_json_num(r->diff.half));
		bad |= json_object_set_new(o, "rel_diff", exp_json_num(r->rel));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The table as one JSON object (jansson does the escaping); numbers
** with 17 significant digits, as before. */
static int render_json(FILE *f, const struct rep_table *t)
{
	json_t *o = json_object(), *rows = json_array();
	char *text = NULL;
	size_t i;
	int bad = o == NULL || rows == NULL;

	bad |= json_object_set_new(o, "experiment", exp_json_text(t->experiment));
	bad |= json_object_set_new(o, "baseline", t->baseline ?
				   exp_json_text(t->baseline) : json_null());
	bad |= json_object_set_new(o, "confidence", json_real(t->conf));
	bad |= json_object_set_new(o, "total_runs",
				   json_integer(t->total_runs));
	bad |= json_object_set_new(o, "done_runs", json_integer(t->done_runs));
	bad |= json_object_set_new(o, "failed_runs",
				   json_integer(t->failed_runs));
	for (i = 0; !bad && i < t->nrows; i++)
		bad |= json_array_append_new(rows, json_row(&t->rows[i]));
	bad |= json_object_set(o, "rows", rows);
	if (!bad)
		text = json_dumps(o, JSON_PRESERVE_ORDER |
				  JSON_REAL_PRECISION(17));
	json_decref(rows);
	json_decref(o);
	if (text == NULL)
		return SIM_ENOMEM;
	fputs(text, f);
	fputc('\n', f);
	free(text);
	return 0;
}

int rep_render(const struct rep_table *t, enum rep_format fmt, char **out,
	       struct sim_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	*out = NULL;
	if (f == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (fmt == REP_CSV)
		render_csv(f, t);
	else if (fmt == REP_JSON)
		rc = render_json(f, t);
	else
		render_table(f, t);
	if (ferror(f) | (fclose(f) != 0) || rc != 0) {
		free(buf);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	*out = buf;
	return 0;
}
