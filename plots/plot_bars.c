/*
** plot_bars.c: one metric per variant, as bars of the mean with its
** confidence interval (NAME) and as the paired difference against the
** baseline with its paired interval (NAME_diff): the statistic
** `colosim report` states, whose interval is usually far narrower than
** the bars' unpaired ones (docs/RESULTS.md, "Figures").
**
** A percentage (a fraction x 100) is drawn on a 0..100 axis, its bars'
** intervals clipped to [0, 100] in the data file too; its differences are
** percentage points, not clipped.  Colours follow the variant's position
** in the run order, so a variant has one colour in every figure.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_int.h"

/* One label per quantity: every figure and axis names a metric this way. */
static const struct plot_metric metrics[] = {
	{ "makespan_s", "makespan", "Makespan", "s", 1, 0 },
	{ "hbm_util_mean", "mem_util", "Mean HBM allocated", "%", 100, 1 },
	{ "sm_util_mean", "sm_util", "Mean SM busy", "%", 100, 1 },
	{ "slo_attainment", "slo", "SLO attainment", "%", 100, 1 },
	{ "jct_mean_s", "jct_mean", "Mean JCT", "s", 1, 0 },
	{ "jct_p50_s", "jct_p50", "Median JCT", "s", 1, 0 },
	{ "jct_p95_s", "jct_p95", "p95 JCT", "s", 1, 0 },
	{ "jct_p99_s", "jct_p99", "p99 JCT", "s", 1, 0 },
	{ "queue_delay_mean_s", "queue_delay", "Mean queueing delay", "s", 1,
	  0 },
	{ "slowdown_mean", "slowdown", "Mean slowdown", "", 1, 0 },
	{ "latency_p50_ms", "latency_p50", "Median request latency", "ms", 1,
	  0 },
	{ "latency_p95_ms", "latency_p95", "p95 request latency", "ms", 1, 0 },
	{ "latency_p99_ms", "latency_p99", "p99 request latency", "ms", 1, 0 },
	{ "gpu_hours", "gpu_hours", "GPU time", "GPU-h", 1, 0 },
	{ NULL, NULL, NULL, NULL, 0, 0 }
};

void plot__metric(const char *name, struct plot_metric *out)
{
	int i;

	for (i = 0; metrics[i].metric != NULL; i++)
		if (strcmp(metrics[i].metric, name) == 0) {
			*out = metrics[i];
			return;
		}
	out->metric = name;
	out->file = name;
	out->label = name;
	out->unit = "";
	out->scale = 1;
	out->pct = 0;
}

void plot__axis_label(const struct plot_metric *m, char *buf, size_t size)
{
	if (m->unit[0])
		snprintf(buf, size, "%s (%s)", m->label, m->unit);
	else
		snprintf(buf, size, "%s", m->label);
}

/* The colour (line type) of a variant: its position in the run order. */
static size_t variant_lt(const struct plotter *p, const char *variant)
{
	size_t i;

	for (i = 0; i < p->nvariants; i++)
		if (strcmp(p->variants[i], variant) == 0)
			return i + 1;
	return 1;
}

static double clip(double v, const struct plot_metric *m)
{
	if (!m->pct)
		return v;
	return v < 0 ? 0 : v > 100 ? 100 : v;
}

int plot__bars(struct plotter *p, const char *metric, struct sim_err *err)
{
	const char **titles = calloc(p->nvariants + 1, sizeof *titles);
	struct plot_metric m;
	struct plot_vars v = {0};
	char path[1100], ylabel[160], extra[64];
	size_t i, nt = 0;
	FILE *f;
	int rc;

	plot__metric(metric, &m);
	if (titles == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if ((f = plot__open_data(p, m.file, path, sizeof path, err)) == NULL) {
		free(titles);
		return err->code;
	}
	fprintf(f, "# colosim: %s per policy, mean and %.0f%% CI (Student t) "
		"over replications, x %g%s\n# columns: index mean lo hi n "
		"linetype\n", metric, p->rep->conf * 100, m.scale,
		m.pct ? "; the interval clipped to [0, 100]" : "");
	for (i = 0; i < p->rep->nrows; i++) {
		const struct rep_row *r = &p->rep->rows[i];
		double h, mean;
		if (strcmp(r->setting, p->setting) != 0 ||
		    strcmp(r->metric, metric) != 0 || !isfinite(r->stat.mean))
			continue;
		h = isfinite(r->stat.half) ? r->stat.half : 0;
		mean = m.scale * r->stat.mean;
		titles[nt++] = r->variant;
		fprintf(f, "# %zu: %s\n%zu %.17g %.17g %.17g %zu %zu\n", nt,
			r->variant, nt, mean, clip(mean - m.scale * h, &m),
			clip(mean + m.scale * h, &m), r->stat.n,
			variant_lt(p, r->variant));
	}
	if ((rc = plot__close_data(p, f, path, err)) == 0) {
		if (nt == 0) {
			plot__note(p, "%s%s: no data, figure skipped", m.file,
				   p->suffix);
		} else {
			plot__axis_label(&m, ylabel, sizeof ylabel);
			v.ylabel = ylabel;
			v.ymax = m.pct ? 100 : 0;
			snprintf(extra, sizeof extra, "nt=%zu; ", nt);
			v.extra = extra;
			rc = plot__draw(p, m.file, "bars", titles, nt, &v, err);
		}
	}
	free(titles);
	return rc;
}

/* "+4.1%", or "n/a" when the report has no relative difference. */
static void rel_text(double rel, char *buf, size_t size)
{
	if (isfinite(rel))
		snprintf(buf, size, "%+.1f%%", rel * 100);
	else
		snprintf(buf, size, "n/a");
}

int plot__diff(struct plotter *p, const char *metric, struct sim_err *err)
{
	const char **titles = calloc(p->nvariants + 1, sizeof *titles);
	struct plot_metric m;
	struct plot_vars v = {0};
	char path[1100], ylabel[200], name[128], rel[32];
	size_t i, nt = 0;
	FILE *f;
	int rc;

	plot__metric(metric, &m);
	if (titles == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	snprintf(name, sizeof name, "%s_diff", m.file);
	if ((f = plot__open_data(p, name, path, sizeof path, err)) == NULL) {
		free(titles);
		return err->code;
	}
	fprintf(f, "# colosim: %s, paired difference against %s (variant - "
		"baseline, same replication), mean and %.0f%% CI (Student t) "
		"over the pairs, x %g%s\n# columns: index diff lo hi n linetype "
		"rel_diff\n", metric, p->rep->baseline ? p->rep->baseline :
		"(none)", p->rep->conf * 100, m.scale, m.pct ?
		" (percentage points)" : "");
	for (i = 0; i < p->rep->nrows; i++) {
		const struct rep_row *r = &p->rep->rows[i];
		double h, d;
		if (strcmp(r->setting, p->setting) != 0 ||
		    strcmp(r->metric, metric) != 0 || r->is_baseline ||
		    r->diff.n == 0 || !isfinite(r->diff.mean))
			continue;
		h = isfinite(r->diff.half) ? r->diff.half : 0;
		d = m.scale * r->diff.mean;
		titles[nt++] = r->variant;
		rel_text(r->rel, rel, sizeof rel);
		fprintf(f, "# %zu: %s\n%zu %.17g %.17g %.17g %zu %zu %s\n", nt,
			r->variant, nt, d, d - m.scale * h, d + m.scale * h,
			r->diff.n, variant_lt(p, r->variant), rel);
	}
	if ((rc = plot__close_data(p, f, path, err)) == 0) {
		if (nt == 0) {
			plot__note(p, "%s%s: no paired data, figure skipped",
				   name, p->suffix);
		} else {
			/* "\xce\x94" is U+0394, a capital delta, in UTF-8 */
			snprintf(ylabel, sizeof ylabel, "\xce\x94 %s vs %s%s%s%s",
				 m.label, p->rep->baseline, m.pct || m.unit[0] ?
				 " (" : "", m.pct ? "pp" : m.unit, m.pct ||
				 m.unit[0] ? ")" : "");
			v.ylabel = ylabel;
			rc = plot__draw(p, name, "diff", titles, nt, &v, err);
		}
	}
	free(titles);
	return rc;
}
