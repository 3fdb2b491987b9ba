/*
** plot_gpu.c: what ran where, from the placements table (schema 2) and
** the per-GPU series, for one run per variant (replication
** plot_opts.replication of the current setting):
**   gpuG-vK      GPU G: its tenants over time (one bar per placement
**                interval, stacked in rows when they overlap: co-located),
**                and its HBM allocated and SM busy (%) over time
**   timeline-vK  every GPU: one bar per placement interval, training jobs
**                and services in two colours
** K is the variant's position in the run order (the figure's title names
** it).  An interval still open when the run ended is drawn to the run's
** makespan.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_int.h"

struct ival {
	double t0, t1;
	int gpu, infer, slot;
	char job[64];
};

/* A job id as one data-file word: blanks, quotes and '#' become '_'. */
static char *word(char *s)
{
	char *c;

	for (c = s; *c; c++)
		if (*c == ' ' || *c == '\t' || *c == '"' || *c == '\'' ||
		    *c == '#')
			*c = '_';
	return s;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->gpu != y->gpu)
		return (x->gpu > y->gpu) - (x->gpu < y->gpu);
	if (x->t0 != y->t0)
		return (x->t0 > y->t0) - (x->t0 < y->t0);
	return strcmp(x->job, y->job);
}

/* Rows within each GPU: the lowest row free at an interval's start.
** Returns the most rows any GPU needed. */
static int assign_slots(struct ival *v, size_t n)
{
	enum { MAXROW = 64 };
	double last[MAXROW];
	size_t i;
	int g = -2, r, most = 1;

	for (i = 0; i < n; i++) {
		if (v[i].gpu != g) {
			g = v[i].gpu;
			for (r = 0; r < MAXROW; r++)
				last[r] = -INFINITY;
		}
		for (r = 0; r < MAXROW - 1 && last[r] > v[i].t0; r++)
			;
		v[i].slot = r;
		last[r] = v[i].t1;
		if (r + 1 > most)
			most = r + 1;
	}
	return most;
}

/* The placement intervals of run (of GPU gpu, or all when gpu < 0),
** sorted by GPU and start; open ones end at t_end. */
static int load_ivals(struct plotter *p, int64_t run, int gpu, double t_end,
		      struct ival **out, size_t *nout, struct sim_err *err)
{
	sqlite3_stmt *st;
	struct ival *v = NULL;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*nout = 0;
	if (sqlite3_prepare_v2(p->db, "SELECT p.gpu, p.start_s, p.end_s, "
			       "p.job_id, j.kind FROM placements p LEFT JOIN "
			       "jobs j ON j.run_id = p.run_id AND j.job_id = "
			       "p.job_id WHERE p.run_id = ?1 AND (?2 < 0 OR "
			       "p.gpu = ?2)", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, run) != SQLITE_OK ||
	    sqlite3_bind_int(st, 2, gpu) != SQLITE_OK) {
		sqlite3_finalize(st);
		return plot__db_fail(p, "placements", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *job = (const char *)sqlite3_column_text(st, 3);
		const char *kind = (const char *)sqlite3_column_text(st, 4);
		if (n == cap) {
			size_t c = cap ? cap * 2 : 64;
			struct ival *q = realloc(v, c * sizeof *q);
			if (q == NULL) {
				free(v);
				sqlite3_finalize(st);
				return sim_err_set(err, SIM_ENOMEM,
						   "out of memory");
			}
			v = q;
			cap = c;
		}
		v[n].gpu = sqlite3_column_int(st, 0);
		v[n].t0 = sqlite3_column_double(st, 1);
		v[n].t1 = sqlite3_column_type(st, 2) == SQLITE_NULL ? t_end :
			sqlite3_column_double(st, 2);
		v[n].infer = kind != NULL && (strcmp(kind, "infer") == 0 ||
					    strcmp(kind, "llm") == 0);
		snprintf(v[n].job, sizeof v[n].job, "%s", job ? job : "?");
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return plot__db_fail(p, "placements", err);
	}
	if (n > 0)
		qsort(v, n, sizeof *v, cmp_ival);
	*out = v;
	*nout = n;
	return 0;
}

/* Calls fn for the run of replication R of each variant of the setting. */
static int each_run(struct plotter *p,
		    int (*fn)(struct plotter *, int64_t, size_t, const char *,
			      double, struct sim_err *), struct sim_err *err)
{
	sqlite3_stmt *st;
	size_t v;
	int rc = 0;

	if (store_schema_version(p->s) < STORE_SCHEMA_EXPORT) {
		plot__note(p, "gpu/timeline figures: the database has results "
			   "schema %d; placements are stored from schema %d "
			   "on (rerun the experiment)",
			   store_schema_version(p->s), STORE_SCHEMA_EXPORT);
		return 0;
	}
	if (sqlite3_prepare_v2(p->db, "SELECT r.id, (SELECT value FROM "
			       "metrics m WHERE m.run_id = r.id AND m.name = "
			       "'makespan_s') FROM runs r WHERE r.experiment_id"
			       " = ?1 AND r.setting = ?2 AND r.variant = ?3 AND"
			       " r.replication = ?4 AND r.status = 'done'", -1,
			       &st, NULL) != SQLITE_OK)
		return plot__db_fail(p, "runs", err);
	for (v = 0; rc == 0 && v < p->nvariants; v++) {
		int r;
		sqlite3_reset(st);
		if (sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK ||
		    sqlite3_bind_text(st, 2, p->setting, -1, SQLITE_TRANSIENT) ||
		    sqlite3_bind_text(st, 3, p->variants[v], -1,
				      SQLITE_TRANSIENT) ||
		    sqlite3_bind_int(st, 4, p->o->replication)) {
			rc = plot__db_fail(p, "bind", err);
			break;
		}
		r = sqlite3_step(st);
		if (r == SQLITE_ROW)
			rc = fn(p, sqlite3_column_int64(st, 0), v + 1,
				p->variants[v], sqlite3_column_double(st, 1),
				err);
		else if (r == SQLITE_DONE)
			plot__note(p, "%s: no done run of replication %d",
				   p->variants[v], p->o->replication);
		else
			rc = plot__db_fail(p, "runs", err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The figure's title: variant, setting, replication (and GPU). */
static void title(struct plotter *p, const char *variant, int gpu,
		  char *buf, size_t size)
{
	size_t l;

	snprintf(buf, size, "%s%s%s, replication %d", variant,
		 p->setting[0] ? ", " : "", p->setting, p->o->replication);
	l = strlen(buf);
	if (gpu >= 0)
		snprintf(buf + l, size - l, ", GPU %d", gpu);
}

static int gpu_run(struct plotter *p, int64_t run, size_t k,
		   const char *variant, double t_end, struct sim_err *err)
{
	static const char *const titles[] = {
		"training job", "inference service", "HBM allocated (%)",
		"SM busy (%)"
	};
	struct ival *iv = NULL;
	struct plot_vars v = {0};
	char name[64], path[1100], extra[1200], tq[800], ttl[600];
	sqlite3_stmt *st = NULL;
	size_t n = 0, i, ns = 0;
	int g = p->o->gpu, rows, rc, r;
	FILE *f;

	if ((rc = load_ivals(p, run, g, t_end, &iv, &n, err)) != 0)
		return rc;
	rows = assign_slots(iv, n);
	snprintf(name, sizeof name, "gpu%d-v%zu", g, k);
	if ((f = plot__open_data(p, name, path, sizeof path, err)) == NULL) {
		free(iv);
		return err->code;
	}
	fprintf(f, "# colosim: GPU %d of run %lld (%s, replication %d)\n"
		"# block 0, tenants: start_s end_s row infer job (an open "
		"interval ends at the makespan)\n", g, (long long)run, variant,
		p->o->replication);
	for (i = 0; i < n; i++)
		fprintf(f, "%.17g %.17g %d %d %s\n", iv[i].t0, iv[i].t1,
			iv[i].slot, iv[i].infer, word(iv[i].job));
	if (n == 0)
		fputs("0 0 -1 0 none\n", f);
	fputs("\n\n# block 1, series: t_s hbm_pct sm_pct\n", f);
	if (sqlite3_prepare_v2(p->db, "SELECT t_s, hbm_frac, sm_frac FROM "
			       "series WHERE run_id = ?1 AND gpu = ?2 ORDER BY "
			       "t_s", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 1, run) || sqlite3_bind_int(st, 2, g)) {
		sqlite3_finalize(st);
		plot__drop_data(p, f);
		free(iv);
		return plot__db_fail(p, "series", err);
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(f, "%.17g %.17g %.17g\n", sqlite3_column_double(st, 0),
			100 * sqlite3_column_double(st, 1),
			100 * sqlite3_column_double(st, 2));
		ns++;
	}
	sqlite3_finalize(st);
	free(iv);
	if (ns == 0)
		fputs("0 0 0\n", f);
	if ((rc = plot__close_data(p, f, path, err)) != 0)
		return rc;
	if (r != SQLITE_DONE)
		return plot__db_fail(p, "series", err);
	if (n == 0 && ns == 0) {
		plot__note(p, "%s%s: GPU %d has neither placements nor a "
			   "series in this run, figure skipped", name,
			   p->suffix, g);
		return 0;
	}
	if (ns == 0)
		plot__note(p, "%s%s: no per-GPU series stored (runs of more "
			   "than 64 GPUs keep only the cluster-wide one)",
			   name, p->suffix);
	title(p, variant, g, ttl, sizeof ttl);
	if ((rc = plot_gp_quote(ttl, tq, sizeof tq)) != 0)
		return sim_err_set(err, rc, "%s: cannot quote the title", name);
	snprintf(extra, sizeof extra, "rows=%d; xmax=%.17g; runtitle=%s; ",
		 rows, t_end > 0 ? t_end : 1, tq);
	v.extra = extra;
	v.xlabel = "Time (s)";
	return plot__draw(p, name, "gpu", titles, 4, &v, err);
}

int plot__gpu(struct plotter *p, struct sim_err *err)
{
	return each_run(p, gpu_run, err);
}

static int timeline_run(struct plotter *p, int64_t run, size_t k,
			const char *variant, double t_end, struct sim_err *err)
{
	static const char *const titles[] = {
		"training job", "inference service"
	};
	struct ival *iv = NULL;
	struct plot_vars v = {0};
	char name[64], path[1100], extra[1200], tq[800], ttl[600];
	size_t n = 0, i;
	int rows, rc, ngpus = 0;
	FILE *f;

	if ((rc = load_ivals(p, run, -1, t_end, &iv, &n, err)) != 0)
		return rc;
	snprintf(name, sizeof name, "timeline-v%zu", k);
	if (n == 0) {
		free(iv);
		plot__note(p, "%s%s: no placements in this run, figure "
			   "skipped", name, p->suffix);
		return 0;
	}
	rows = assign_slots(iv, n);
	if ((f = plot__open_data(p, name, path, sizeof path, err)) == NULL) {
		free(iv);
		return err->code;
	}
	fprintf(f, "# colosim: placements of run %lld (%s, replication %d); "
		"GPU g's bars lie in [g - 0.4, g + 0.4], one row per overlap\n"
		"# columns: start_s end_s y infer gpu job\n", (long long)run,
		variant, p->o->replication);
	for (i = 0; i < n; i++) {
		double y = iv[i].gpu - 0.4 + 0.8 * (iv[i].slot + 0.5) / rows;
		fprintf(f, "%.17g %.17g %.17g %d %d %s\n", iv[i].t0, iv[i].t1,
			y, iv[i].infer, iv[i].gpu, word(iv[i].job));
		if (iv[i].gpu + 1 > ngpus)
			ngpus = iv[i].gpu + 1;
	}
	free(iv);
	if ((rc = plot__close_data(p, f, path, err)) != 0)
		return rc;
	title(p, variant, -1, ttl, sizeof ttl);
	if ((rc = plot_gp_quote(ttl, tq, sizeof tq)) != 0)
		return sim_err_set(err, rc, "%s: cannot quote the title", name);
	snprintf(extra, sizeof extra, "rows=%d; ngpus=%d; xmax=%.17g; "
		 "runtitle=%s; ", rows, ngpus, t_end > 0 ? t_end : 1, tq);
	v.extra = extra;
	v.xlabel = "Time (s)";
	v.ylabel = "GPU";
	return plot__draw(p, name, "timeline", titles, 2, &v, err);
}

int plot__timeline(struct plotter *p, struct sim_err *err)
{
	return each_run(p, timeline_run, err);
}
