/*
** plot_sweep.c: a metric against a swept parameter (sweep-KEY-NAME).
**
** For each swept key other than policy whose values are all numbers (two
** or more of them), one figure over the whole experiment: x is the key's
** value, y the metric's mean over replications with its confidence
** interval (Student t, unpaired: these are means, the paired differences
** are the NAME_diff figures), one line per policy and combination of the
** other swept values.  Runs that do not have the key (exclusive in a
** sweep of policy.colti.KEY) are drawn as flat reference lines at their
** mean, labelled "(no KEY)".  The x axis is logarithmic when the values
** are positive and span a factor of 100 or more.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_int.h"

struct srun {
	int64_t id;
	int64_t index;                /* run_index: the run order */
	int baseline;                 /* a run of the report's baseline */
	char policy[64];
	double y;                     /* the metric (scaled), NaN: none */
	char **val;                   /* per key: the swept value or NULL */
};

struct sweep {
	struct srun *r;
	size_t n;
	char **keys;
	size_t nkeys;
};

static void sweep_free(struct sweep *sw)
{
	size_t i, k;

	for (i = 0; i < sw->n; i++) {
		for (k = 0; sw->r[i].val != NULL && k < sw->nkeys; k++)
			free(sw->r[i].val[k]);
		free(sw->r[i].val);
	}
	free(sw->r);
	exp_strv_free(sw->keys, sw->nkeys);
}

static int key_index(struct sweep *sw, const char *key, int add)
{
	size_t k, i;
	char **p;

	for (k = 0; k < sw->nkeys; k++)
		if (strcmp(sw->keys[k], key) == 0)
			return (int)k;
	if (!add)
		return -1;
	p = realloc(sw->keys, (sw->nkeys + 1) * sizeof *p);
	if (p == NULL)
		return -2;
	sw->keys = p;
	if ((p[sw->nkeys] = strdup(key)) == NULL)
		return -2;
	for (i = 0; i < sw->n; i++) {
		char **v = realloc(sw->r[i].val, (sw->nkeys + 1) * sizeof *v);
		if (v == NULL)
			return -2;
		v[sw->nkeys] = NULL;
		sw->r[i].val = v;
	}
	return (int)sw->nkeys++;
}

static struct srun *find(struct sweep *sw, int64_t id)
{
	size_t lo = 0, hi = sw->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sw->r[mid].id < id)
			lo = mid + 1;
		else if (sw->r[mid].id > id)
			hi = mid;
		else
			return &sw->r[mid];
	}
	return NULL;
}

/* The done runs (sorted by id) with metric (scaled) and swept values. */
static int load(struct plotter *p, const char *metric, double scale,
		struct sweep *sw, struct sim_err *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(p->db, "SELECT r.id, r.policy, (SELECT value "
			       "FROM metrics m WHERE m.run_id = r.id AND "
			       "m.name = ?2), r.run_index, r.variant FROM runs r"
			       " WHERE r.experiment_id = ?1 AND r.status = "
			       "'done' ORDER BY r.id", -1, &st, NULL) !=
	    SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, metric, -1, SQLITE_TRANSIENT) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		return plot__db_fail(p, "sweep runs", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srun *r;
		const char *pol = (const char *)sqlite3_column_text(st, 1);
		if (sw->n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct srun *q = realloc(sw->r, c * sizeof *q);
			if (q == NULL) {
				sqlite3_finalize(st);
				return sim_err_set(err, SIM_ENOMEM,
						   "out of memory");
			}
			sw->r = q;
			cap = c;
		}
		r = &sw->r[sw->n++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		snprintf(r->policy, sizeof r->policy, "%s", pol ? pol : "");
		r->y = sqlite3_column_type(st, 2) == SQLITE_NULL ? (double)NAN :
			scale * sqlite3_column_double(st, 2);
		r->index = sqlite3_column_int64(st, 3);
		r->baseline = p->rep->baseline != NULL &&
			sqlite3_column_text(st, 4) != NULL &&
			strcmp((const char *)sqlite3_column_text(st, 4),
			       p->rep->baseline) == 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return plot__db_fail(p, "sweep runs", err);
	if (sqlite3_prepare_v2(p->db, "SELECT p.run_id, p.key, p.value FROM "
			       "run_params p JOIN runs r ON r.id = p.run_id "
			       "WHERE r.experiment_id = ?1 AND p.kind = 'sweep'"
			       " AND p.key <> 'policy' ORDER BY r.run_index, "
			       "p.key", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK) {
		sqlite3_finalize(st);
		return plot__db_fail(p, "sweep values", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct srun *r = find(sw, sqlite3_column_int64(st, 0));
		const char *k = (const char *)sqlite3_column_text(st, 1);
		const char *v = (const char *)sqlite3_column_text(st, 2);
		int ki;
		if (r == NULL || k == NULL || v == NULL)
			continue;
		if ((ki = key_index(sw, k, 1)) < 0 ||
		    (r->val == NULL && (r->val = calloc(sw->nkeys,
						       sizeof *r->val)) == NULL) ||
		    (r->val[ki] == NULL && (r->val[ki] = strdup(v)) == NULL)) {
			sqlite3_finalize(st);
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : plot__db_fail(p, "sweep values", err);
}

/* 1 when every value of key k is a finite number and two differ. */
static int numeric_key(const struct sweep *sw, size_t k, double *lo,
		       double *hi)
{
	size_t i;
	int any = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < sw->n; i++) {
		const char *v = sw->r[i].val ? sw->r[i].val[k] : NULL;
		char *end;
		double x;
		if (v == NULL)
			continue;
		x = strtod(v, &end);
		if (end == v || *end != '\0' || !isfinite(x))
			return 0;
		*lo = fmin(*lo, x);
		*hi = fmax(*hi, x);
		any = 1;
	}
	return any && *hi > *lo;
}

/* 1 when key is a parameter of one policy (policy.NAME.KEY). */
static int policy_key(const char *key)
{
	return strncmp(key, "policy.", 7) == 0;
}

/*
** The line label of run r for key k: its policy and its own other swept
** values ("colti sm_threshold=2": policy.NAME. dropped), "(no KEY)" for a
** run without k.  The context: the global swept values other than k
** ("gen.load=0.5"), one figure per context.
*/
static void labels(const struct sweep *sw, const struct srun *r, size_t k,
		   char *lab, size_t lsize, char *ctx, size_t csize)
{
	size_t j, len, pl = strlen(r->policy);

	snprintf(lab, lsize, "%s", r->policy);
	ctx[0] = '\0';
	for (j = 0; j < sw->nkeys; j++) {
		const char *key = sw->keys[j];
		if (j == k || r->val == NULL || r->val[j] == NULL)
			continue;
		if (!policy_key(key)) {
			len = strlen(ctx);
			snprintf(ctx + len, csize - len, "%s%s=%s",
				 len ? " " : "", key, r->val[j]);
			continue;
		}
		if (strncmp(key + 7, r->policy, pl) == 0 && key[7 + pl] == '.')
			key += 8 + pl;
		len = strlen(lab);
		snprintf(lab + len, lsize - len, " %s=%s", key, r->val[j]);
	}
	if (r->val == NULL || r->val[k] == NULL) {
		const char *key = sw->keys[k];
		if (strncmp(key + 7, r->policy, pl) == 0 && key[7 + pl] == '.')
			key += 8 + pl;
		len = strlen(lab);
		snprintf(lab + len, lsize - len, " (no %s)",
			 policy_key(sw->keys[k]) ? strrchr(key, '.') + 1 : key);
	}
}

/* One run as seen by the figure of key k: its line and context. */
struct pt {
	char lab[256], ctx[256];
	double x, y;
	int has, line;
	int64_t index;
};

struct line {
	const char *label;            /* points into a pt */
	int ref;                      /* a run without the key */
	int64_t first;                /* the smallest run_index of the line */
};

static int cmp_line(const void *a, const void *b)
{
	int64_t x = ((const struct line *)a)->first;
	int64_t y = ((const struct line *)b)->first;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Writes the block of line l (points pts[0..n) of that line and context):
** per x, mean lo hi n; a reference line flat over [xlo, xhi]. */
static void write_line(struct plotter *p, FILE *f, const struct pt *pts,
		       size_t n, int l, int ref, double xlo, double xhi,
		       const struct plot_metric *m, double *xs, double *ys)
{
	size_t i, nx = 0, a, b, ny;

	for (i = 0; i < n; i++)
		if (pts[i].line == l)
			xs[nx++] = ref ? 0 : pts[i].x;
	qsort(xs, nx, sizeof *xs, cmp_double);
	for (a = 0; a < nx; a = b) {
		struct rep_stat s;
		double h;
		for (b = a; b < nx && xs[b] == xs[a]; b++)
			;
		ny = 0;
		for (i = 0; i < n; i++)
			if (pts[i].line == l && (ref || pts[i].x == xs[a]))
				ys[ny++] = pts[i].y;
		rep_stat_compute(ys, ny, p->rep->conf, &s);
		h = isfinite(s.half) ? s.half : 0;
		if (!ref)
			fprintf(f, "%.17g %.17g %.17g %.17g %zu\n", xs[a], s.mean,
				m->pct ? fmax(0, s.mean - h) : s.mean - h,
				m->pct ? fmin(100, s.mean + h) : s.mean + h, s.n);
		else
			fprintf(f, "%.17g %.17g %.17g %.17g %zu\n%.17g %.17g "
				"%.17g %.17g %zu\n", xlo, s.mean, s.mean, s.mean,
				s.n, xhi, s.mean, s.mean, s.mean, s.n);
	}
}

/* The figure of key k in context ctx (the points of that context are
** pts[0..n)); cidx > 0 numbers the context in the file name. */
static int fig_sweep(struct plotter *p, const struct sweep *sw, size_t k,
		     struct pt *pts, size_t n, const char *ctx, size_t cidx,
		     const struct plot_metric *m, double xlo, double xhi,
		     struct sim_err *err)
{
	struct line *lines = calloc(n + 1, sizeof *lines);
	const char **titles = calloc(n + 1, sizeof *titles);
	double *xs = malloc((n + 1) * sizeof *xs);
	double *ys = malloc((n + 1) * sizeof *ys);
	struct plot_vars v = {0};
	char name[256], path[1100], ylabel[160], extra[96];
	const char *saved = p->setting;
	size_t nl = 0, i, j;
	FILE *f = NULL;
	int rc = 0;

	if (!lines || !titles || !xs || !ys) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < nl && strcmp(lines[j].label, pts[i].lab); j++)
			;
		if (j == nl) {
			lines[nl].label = pts[i].lab;
			lines[nl].first = pts[i].index;
			lines[nl++].ref = !pts[i].has;
		} else if (pts[i].index < lines[j].first) {
			lines[j].first = pts[i].index;
		}
	}
	/* Lines in run order: each variant keeps its place and colour. */
	qsort(lines, nl, sizeof *lines, cmp_line);
	for (i = 0; i < n; i++)
		for (j = 0; j < nl; j++)
			if (strcmp(lines[j].label, pts[i].lab) == 0)
				pts[i].line = (int)j;
	snprintf(name, sizeof name, "sweep-%s-%s", sw->keys[k], m->file);
	if (cidx > 0) {
		size_t l = strlen(name);
		snprintf(name + l, sizeof name - l, "-c%zu", cidx);
	}
	if ((f = plot__open_data(p, name, path, sizeof path, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	fprintf(f, "# colosim: %s against %s%s%s, mean and %.0f%% CI (Student "
		"t) over replications, x %g; one block per line; a \"(no ...)\""
		" line is the baseline, flat at its mean\n# columns: x mean lo "
		"hi n\n", m->metric, sw->keys[k], ctx[0] ? " at " : "", ctx,
		p->rep->conf * 100, m->scale);
	for (j = 0; j < nl; j++) {
		if (j > 0)
			fputs("\n\n", f);
		fprintf(f, "# line: %s\n", lines[j].label);
		write_line(p, f, pts, n, (int)j, lines[j].ref, xlo, xhi, m, xs,
			   ys);
		titles[j] = lines[j].label;
	}
	if ((rc = plot__close_data(p, f, path, err)) != 0)
		goto out;
	plot__axis_label(m, ylabel, sizeof ylabel);
	v.ylabel = ylabel;
	v.xlabel = sw->keys[k];
	v.ymax = m->pct ? 100 : 0;
	v.logx = xlo > 0 && xhi / xlo >= 100;
	snprintf(extra, sizeof extra, "xlo=%.17g; xhi=%.17g; ", xlo, xhi);
	v.extra = extra;
	p->setting = ctx;
	rc = plot__draw(p, name, "sweep", titles, nl, &v, err);
	p->setting = saved;
out:
	free(lines);
	free(titles);
	free(xs);
	free(ys);
	return rc;
}

/* The figures of key k: one per context, over the runs that have k and
** the baseline's runs (its reference line). */
static int key_figs(struct plotter *p, const struct sweep *sw, size_t k,
		    const struct plot_metric *m, double xlo, double xhi,
		    struct sim_err *err)
{
	struct pt *pts = calloc(sw->n + 1, sizeof *pts);
	struct pt *sel = calloc(sw->n + 1, sizeof *sel);
	char (*ctxs)[256] = calloc(sw->n + 1, sizeof *ctxs);
	size_t n = 0, nc = 0, i, c, ns;
	int rc = 0;

	if (!pts || !sel || !ctxs) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < sw->n; i++) {
		const struct srun *r = &sw->r[i];
		struct pt *q = &pts[n];
		int has = r->val != NULL && r->val[k] != NULL;
		if (isnan(r->y) || (!has && !r->baseline))
			continue;
		labels(sw, r, k, q->lab, sizeof q->lab, q->ctx, sizeof q->ctx);
		q->has = has;
		q->x = has ? strtod(r->val[k], NULL) : 0;
		q->y = r->y;
		q->index = r->index;
		for (c = 0; c < nc && strcmp(ctxs[c], q->ctx) != 0; c++)
			;
		if (c == nc)
			snprintf(ctxs[nc++], sizeof ctxs[0], "%s", q->ctx);
		n++;
	}
	for (c = 0; rc == 0 && c < nc; c++) {
		int any = 0;
		for (i = ns = 0; i < n; i++)
			if (strcmp(pts[i].ctx, ctxs[c]) == 0) {
				sel[ns++] = pts[i];
				any |= pts[i].has;
			}
		if (any)
			rc = fig_sweep(p, sw, k, sel, ns, ctxs[c],
				       nc > 1 ? c + 1 : 0, m, xlo, xhi, err);
	}
out:
	free(pts);
	free(sel);
	free(ctxs);
	return rc;
}

int plot__sweeps(struct plotter *p, const char *metric, struct sim_err *err)
{
	struct sweep sw;
	struct plot_metric m;
	size_t k;
	int rc;

	memset(&sw, 0, sizeof sw);
	plot__metric(metric, &m);
	rc = load(p, metric, m.scale, &sw, err);
	for (k = 0; rc == 0 && k < sw.nkeys; k++) {
		double lo, hi;
		if (numeric_key(&sw, k, &lo, &hi))
			rc = key_figs(p, &sw, k, &m, lo, hi, err);
	}
	sweep_free(&sw);
	return rc;
}
