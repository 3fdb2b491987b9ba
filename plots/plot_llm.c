/*
** plot_llm.c: the LLM services' figure, from the named histograms of
** schema 3 (docs/RESULTS.md, "histograms"):
**   llm_cdf   TTFT and TPOT CDFs side by side, one line per variant,
**             pooled over replications (each CDF evaluated at its bins'
**             upper edges, as latency_cdf)
** A store older than schema 3, or a setting without LLM services, has no
** such figure (silently: it does not apply).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_int.h"

static const char *const sql =
	"SELECT h.lo, h.hi, sum(h.count) FROM histograms h"
	" JOIN runs r ON h.run_id = r.id WHERE r.experiment_id = ?1"
	" AND r.setting = ?2 AND r.variant = ?3 AND r.status = 'done'"
	" AND h.name = ?4 AND h.hi > 0 GROUP BY h.lo, h.hi"
	" ORDER BY h.hi, h.lo";

/* Variant v's CDF of histogram name as one block of f (when f is not
** NULL); returns the observations counted, or -1 on a database error. */
static double block(struct plotter *p, sqlite3_stmt *st, size_t v,
		    const char *name, FILE *f)
{
	double total = 0, cum = 0;
	int r, k = 0;

	sqlite3_reset(st);
	if (sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, p->setting, -1, SQLITE_TRANSIENT) !=
	    SQLITE_OK ||
	    sqlite3_bind_text(st, 3, p->variants[v], -1, SQLITE_TRANSIENT) !=
	    SQLITE_OK ||
	    sqlite3_bind_text(st, 4, name, -1, SQLITE_STATIC) != SQLITE_OK)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		total += sqlite3_column_double(st, 2);
	if (r != SQLITE_DONE)
		return -1;
	if (f == NULL || total <= 0)
		return total;
	sqlite3_reset(st);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (k++ == 0)
			fprintf(f, "%.17g 0\n", sqlite3_column_double(st, 0));
		cum += sqlite3_column_double(st, 2);
		fprintf(f, "%.17g %.17g\n", sqlite3_column_double(st, 1),
			cum / total);
	}
	return r == SQLITE_DONE ? total : -1;
}

int plot__llm(struct plotter *p, struct sim_err *err)
{
	static const char *const hist[2] = { "llm_ttft_ms", "llm_tpot_ms" };
	const char **titles;
	unsigned char *keep;
	sqlite3_stmt *st = NULL;
	char path[1100];
	size_t v, nt = 0;
	FILE *f = NULL;
	int h, rc = 0;

	if (store_schema_version(p->s) < STORE_SCHEMA_HIST)
		return 0;
	titles = calloc(p->nvariants + 1, sizeof *titles);
	keep = calloc(p->nvariants + 1, 1);
	if (titles == NULL || keep == NULL) {
		free(titles);
		free(keep);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = plot__db_fail(p, "llm_cdf", err);
		goto out;
	}
	/* the variants with both distributions */
	for (v = 0; v < p->nvariants; v++) {
		double a = block(p, st, v, hist[0], NULL),
		       b = block(p, st, v, hist[1], NULL);
		if (a < 0 || b < 0) {
			rc = plot__db_fail(p, "llm_cdf", err);
			goto out;
		}
		if (a > 0 && b > 0) {
			keep[v] = 1;
			titles[nt++] = p->variants[v];
		}
	}
	if (nt == 0)
		goto out;
	if ((f = plot__open_data(p, "llm_cdf", path, sizeof path, err)) ==
	    NULL) {
		rc = err->code;
		goto out;
	}
	fprintf(f, "# colosim: LLM services: TTFT then TPOT CDF per policy, "
		"pooled over replications\n# blocks 0..n-1 TTFT, n..2n-1 TPOT;"
		" columns: ms cdf\n");
	for (h = 0; h < 2; h++)
		for (v = 0; v < p->nvariants; v++) {
			if (!keep[v])
				continue;
			fprintf(f, "%s# %s, policy: %s\n", h || v ? "\n\n" : "",
				hist[h], p->variants[v]);
			if (block(p, st, v, hist[h], f) < 0) {
				fclose(f);
				rc = plot__db_fail(p, "llm_cdf", err);
				goto out;
			}
		}
	if ((rc = plot__close_data(p, f, path, err)) == 0)
		rc = plot__draw(p, "llm_cdf", "llm_cdf", titles, nt, NULL, err);
out:
	sqlite3_finalize(st);
	free(titles);
	free(keep);
	return rc;
}
