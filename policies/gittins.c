/*
** gittins.c: Tiresias's Gittins-index variant (NSDI'19; its simulator's
** "dlas-gpu-gittins": dlas_sim_jobs with each queue ordered by the Gittins
** index of the job's attained GPU service, highest first, then earliest
** submitted; SymbioticLab/Tiresias simulator/run_sim.py get_gittins_index,
** cal_r_gittins_index, parse_job_dist).  The queues, starvation and
** placement are tiresias's (dlas.h).
**
** The index needs a distribution of job sizes (GPU-seconds): `dist` = a
** CSV file with a `duration` column (the simulator reads
** yarn-gput1000.csv, 1,000 samples); without it, the attained service of
** the last `window` jobs that finished in this run (before the first
** finishes, every index is 0 and each queue is FIFO by submit time).
** `delta` is the service quantum of the index (gittins_delta = 3250).
**
** The table, as the simulator computes it, on the sorted integer sizes
** d[0..n-1] with prefix sums: for attained a, i = the first with d[i] > a,
** i' = the first with d[i'] > a + delta (n - 1 past the largest), P =
** (i' - i) / (n - i) and E = (sum d[i..i') + delta (n - i')) / (n - i),
** each rounded to 5 decimals (E's quotient floored first with e_floor = 1,
** as Python 2 divides the simulator's ints), index = P 1e6 / E rounded to
** 4; a job's index is the table's at the first size above its attained service
** (0 past the largest).
**
** Cost per event: the qsched core's (policies/qsched.h, "Cost per event":
** O(A) a pass plus the sort, O(A log N) the desired set under node
** placement, O(n log G) a placement; nothing O(G) or O(N) an event), plus
** per active job and pass the Gittins index from the service distribution's
** table, O(log T) in its T points (a bisection; each point's index is
** computed once per version of the table, when first asked for).  Online,
** a finish is O(window) (the sorted copy of the window: one size out, one
** in) and the next pass O(window) for the prefix sums (it was a sort and
** every point's index: O(window log window) a finish).  Worst case: as
** tiresias's.
*/
#include "policies/dlas.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gittins {
	struct dlas d;                /* first: the hooks pass it as the state */
	double delta;                 /* parameters */
	int window;
	int e_floor;                  /* 1: E's quotient floored (Python 2) */
	const char *dist;
	int online;
	double *data;                 /* sorted sizes, n of them */
	double *pre;                  /* prefix sums, n + 1 */
	double *gi;                   /* index at each size, when */
	uint64_t *gi_gen;             /* gi_gen[i] == gen (computed lazily) */
	uint64_t gen;                 /* the table's version */
	int n;
	double *ring;                 /* online: the last `window` sizes */
	int nring, ring_at, dirty;    /* (data: the ring's sizes, sorted) */
};

static const struct pol_param_def git_params[] = {
	DLAS_PARAMS(struct gittins, d),
	POL_PARAM_STRING("dist", struct gittins, dist, NULL,
			 "CSV of job sizes (a duration column, GPU-s); "
			 "unset: learn from finished jobs"),
	POL_PARAM_DOUBLE("delta", struct gittins, delta, 1, 1e9, "3250",
			 "the index's service quantum, GPU-s"),
	POL_PARAM_INT("window", struct gittins, window, 2, 1000000, "1000",
		      "online: the last this many finished jobs"),
	POL_PARAM_BOOL("e_floor", struct gittins, e_floor, "0",
		       "1: floor E's quotient, as Tiresias's run_sim.py under "
		       "Python 2; 0: real (Python 3, Muri's copy)"),
	POL_PARAM_END
};

static double round_to(double x, double scale)
{
	return nearbyint(x * scale) / scale;
}

/* The first index with data[i] > a (n if none). */
static int upper(const struct gittins *g, double a)
{
	int lo = 0, hi = g->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (g->data[mid] > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static double index_at(const struct gittins *g, double a)
{
	int n = g->n, i, id;
	double p, e;

	if (a > g->data[n - 1] - 1)
		return 0.0;
	i = upper(g, a);
	id = a + g->delta > g->data[n - 1] - 1 ? n - 1 : upper(g, a + g->delta);
	p = round_to((double)(id - i) / (double)(n - i), 1e5);
	e = (g->pre[id] - g->pre[i] + g->delta * (double)(n - id)) /
		(double)(n - i);
	if (g->e_floor)        /* Python 2: e_sum / (num - idx) on ints */
		e = floor(e);
	e = round_to(e, 1e5);
	return e > 0 ? round_to(p * 1e6 / e, 1e4) : 0.0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The table of the sorted g->data[0..n): prefix sums; the indexes are
** computed when first asked for (rank_of), from this version. */
static void prefix(struct gittins *g)
{
	int i;

	g->pre[0] = 0;
	for (i = 0; i < g->n; i++)
		g->pre[i + 1] = g->pre[i] + g->data[i];
	g->gen++;
}

/* Builds the table from g->data[0..n) (sorts it). */
static void build(struct gittins *g)
{
	qsort(g->data, (size_t)g->n, sizeof *g->data, cmp_dbl);
	prefix(g);
}

/* Online: the sorted sizes less one u (a size they hold), in O(m). */
static void sorted_remove(double *d, int m, double u)
{
	int lo = 0, hi = m;

	while (lo < hi) {                   /* the first >= u */
		int mid = lo + (hi - lo) / 2;
		if (d[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m && d[lo] == u)
		memmove(d + lo, d + lo + 1, (size_t)(m - lo - 1) * sizeof *d);
}

/* Online: v inserted into the sorted d[0..m) (room for m + 1), in O(m):
** the same array a sort of the sizes gives (equal sizes are equal). */
static void sorted_insert(double *d, int m, double v)
{
	int lo = 0, hi = m;

	while (lo < hi) {                   /* the first > v */
		int mid = lo + (hi - lo) / 2;
		if (d[mid] > v)
			hi = mid;
		else
			lo = mid + 1;
	}
	memmove(d + lo + 1, d + lo, (size_t)(m - lo) * sizeof *d);
	d[lo] = v;
}

static int alloc_table(struct gittins *g, int n)
{
	g->data = malloc((size_t)(n ? n : 1) * sizeof *g->data);
	g->pre = malloc((size_t)(n + 1) * sizeof *g->pre);
	g->gi = malloc((size_t)(n ? n : 1) * sizeof *g->gi);
	g->gi_gen = calloc((size_t)(n ? n : 1), sizeof *g->gi_gen);
	return g->data && g->pre && g->gi && g->gi_gen ? 0 : SIM_ENOMEM;
}

/* Reads the `duration` column of path (seconds; integers as the
** simulator's int(row['duration'])). */
static int read_dist(struct gittins *g, const char *path, struct sim_err *err)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int col = -1, cap = 0, lineno = 0;

	if (f == NULL)
		return sim_err_set(err, SIM_ENOENT, "policy gittins: dist: "
				   "cannot open %s: %s", path,
				   strerror(errno));
	g->n = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char *tok, *save = NULL, *end;
		int k = 0;
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0')
			continue;
		for (tok = strtok_r(line, ",", &save); tok != NULL;
		     tok = strtok_r(NULL, ",", &save), k++) {
			double v;
			if (col < 0) {
				if (strcmp(tok, "duration") == 0)
					col = k;
				continue;
			}
			if (k != col)
				continue;
			v = strtod(tok, &end);
			if (end == tok || *end != '\0' || !(v >= 0) ||
			    v > 1e12) {
				fclose(f);
				return sim_err_set(err, SIM_EPARSE, "%s:%d: "
						   "duration: expected seconds "
						   ">= 0, got '%s'", path,
						   lineno, tok);
			}
			if (g->n == cap) {
				int nc = cap ? 2 * cap : 1024;
				double *p = realloc(g->data, (size_t)nc *
						    sizeof *p);
				if (p == NULL) {
					fclose(f);
					return SIM_ENOMEM;
				}
				g->data = p;
				cap = nc;
			}
			g->data[g->n++] = floor(v);
		}
		if (col < 0) {
			fclose(f);
			return sim_err_set(err, SIM_EPARSE, "%s:1: header lacks "
					   "a 'duration' column", path);
		}
	}
	fclose(f);
	if (g->n < 2)
		return sim_err_set(err, SIM_EPARSE, "%s: needs at least 2 "
				   "durations, has %d", path, g->n);
	g->pre = malloc((size_t)(g->n + 1) * sizeof *g->pre);
	g->gi = malloc((size_t)g->n * sizeof *g->gi);
	g->gi_gen = calloc((size_t)g->n, sizeof *g->gi_gen);
	if (g->pre == NULL || g->gi == NULL || g->gi_gen == NULL)
		return SIM_ENOMEM;
	build(g);
	return 0;
}

/* Rebuilds the online table when the ring changed (data holds its sizes,
** sorted, kept by git_finish: O(window) a finish, not a sort). */
static void refresh(struct gittins *g)
{
	if (!g->online || !g->dirty)
		return;
	g->n = g->nring;
	if (g->n >= 2)
		prefix(g);
	g->dirty = 0;
}

/* The index of a job with attained service a (the simulator's
** get_gittins_index): the table's at the first size above a, computed
** once per version of the table. */
static double rank_of(struct gittins *g, double a)
{
	int i = upper(g, a);

	if (i >= g->n)
		return 0.0;
	if (g->gi_gen[i] != g->gen) {
		g->gi[i] = index_at(g, g->data[i] - 1);
		g->gi_gen[i] = g->gen;
	}
	return g->gi[i];
}

static void git_order(struct dlas *d, struct world *w, int j)
{
	struct gittins *g = (struct gittins *)d;
	struct qs_job *x = qs_job(w, j);
	double a = floor(dlas_attained_s(d, w, j));

	x->key = g->n >= 2 ? -rank_of(g, a) : 0;
	x->key2 = (double)qs_job(w, j)->submit_ns;
}

static int git_init(struct world *w, void *s, const struct pol_params *p,
		    struct sim_err *err)
{
	struct gittins *g = s;
	int rc;

	(void)p;
	if ((rc = dlas_init(&g->d, w, "gittins", err)) != 0)
		return rc;
	g->d.order = git_order;
	if (g->dist != NULL && g->dist[0] != '\0')
		return read_dist(g, g->dist, err);
	g->online = 1;
	g->ring = malloc((size_t)g->window * sizeof *g->ring);
	if (g->ring == NULL || alloc_table(g, g->window) != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	return 0;
}

static void git_fini(struct world *w, void *s)
{
	struct gittins *g = s;
	(void)w;
	dlas_fini(&g->d);
	free(g->data);
	free(g->pre);
	free(g->gi);
	free(g->gi_gen);
	free(g->ring);
}

int gittins_table_check(const void *state)
{
	const struct gittins *g = state;
	double *c;
	int i, bad = -1;

	if (!g->online)
		return -1;
	if ((c = malloc((size_t)(g->nring ? g->nring : 1) * sizeof *c)) == NULL)
		return 0;
	memcpy(c, g->ring, (size_t)g->nring * sizeof *c);
	qsort(c, (size_t)g->nring, sizeof *c, cmp_dbl);
	for (i = 0; i < g->nring && bad < 0; i++)
		if (c[i] != g->data[i])
			bad = i;
	free(c);
	return bad;
}

static int git_arrival(struct world *w, void *s, int j)
{
	return dlas_arrival(s, w, j);
}

static int git_finish(struct world *w, void *s, int j)
{
	struct gittins *g = s;

	if (g->online && qs_active(w, j)) {
		/* it ran until now: add the last stretch by hand (the world
		** has marked it done already) */
		struct qs_job *x = qs_job(w, j);
		double s_ = (x->exec_ns + (double)(pol_now(w) - x->last_ns)) /
			1e9;
		if (g->d.gpu_service)
			s_ *= (double)qs_job(w, j)->gpus;
		/* the sorted copy: the size it evicts out, this one in */
		if (g->nring == g->window)
			sorted_remove(g->data, g->nring,
				      g->ring[g->ring_at]);
		sorted_insert(g->data, g->nring == g->window ?
			      g->nring - 1 : g->nring, floor(s_));
		g->ring[g->ring_at] = floor(s_);
		g->ring_at = (g->ring_at + 1) % g->window;
		if (g->nring < g->window)
			g->nring++;
		g->dirty = 1;
	}
	dlas_finish(&g->d, w, j);
	return 0;
}

static int git_timer(struct world *w, void *s, uint64_t tag)
{
	refresh(s);
	return dlas_timer(s, w, tag);
}

static int git_schedule(struct world *w, void *s)
{
	refresh(s);
	return dlas_pass(s, w);
}

const struct pol_ops pol_gittins = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "gittins",
	.zDesc = "Tiresias's Gittins-index variant: 2D-LAS queues ordered by "
		 "the Gittins index of attained GPU-time",
	.szState = sizeof(struct gittins),
	.szJob = QS_SZJOB,
	.xInit = git_init,
	.xFini = git_fini,
	.xOnArrival = git_arrival,
	.xOnFinish = git_finish,
	.xOnTimer = git_timer,
	.xSchedule = git_schedule,
	.aParam = git_params,
};
