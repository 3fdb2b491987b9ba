/*
** openb.c: readers, replay, allocation curve and output of the FGD
** experiment on the openb trace (see openb.h).
**
** CSV goes through the one reader (sim/csv.h), numbers through sim/num.h;
** errors name the line a record starts on, and the column of an error is
** the 1-based field number.  Records are handled as they complete, so a
** reader holds one record at a time.
*/
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>

#include "sim/csv.h"
#include "sim/file.h"
#include "sim/num.h"
#include "experiments/openb.h"
#include "policies/frac.h"

/* ---- a record-at-a-time CSV reader ---- */

#define REC_FIELDS 16
#define REC_FIELD_MAX 128

struct rec {
	const char *path;
	long line;                 /* line the record starts on */
	int nf;
	char *const *f;
};

typedef int (*rec_fn)(void *ctx, const struct rec *r, struct sim_err *err);

/* The formats' own limits: at most REC_FIELDS fields of REC_FIELD_MAX - 1
** bytes (node names, GPU models and numbers are short). */
static int check_rec(const struct sim_csv_rec *c, struct sim_err *err)
{
	int k;

	if (c->nf > REC_FIELDS)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: more than %d "
				   "fields", c->path, c->line, REC_FIELDS + 1,
				   REC_FIELDS);
	for (k = 0; k < c->nf; k++)
		if (c->len[k] >= REC_FIELD_MAX)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: field "
					   "longer than %d bytes", c->path,
					   c->line, k + 1, REC_FIELD_MAX - 1);
	return 0;
}

static int read_csv(const char *path, rec_fn fn, void *ctx,
		    struct sim_err *err)
{
	struct sim_csv *r;
	struct sim_csv_rec c;
	struct rec rec;
	long n = 0;
	int rc;

	if ((rc = sim_csv_open(&r, path, "", 0, NULL, err)) != 0)
		return rc;
	while ((rc = sim_csv_next(r, &c, err)) == 1) {
		n++;
		if ((rc = check_rec(&c, err)) != 0)
			break;
		rec.path = c.path;
		rec.line = c.line;
		rec.nf = c.nf;
		rec.f = c.f;
		if ((rc = fn(ctx, &rec, err)) != 0)
			break;
	}
	if (rc == 0 && n == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:1:1: empty file", path);
	sim_csv_close(r);
	return rc;
}

/* Checks that field col (0-based) of the header is name. */
static int want_header(const struct rec *r, const char *const *names,
		       struct sim_err *err)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (i >= r->nf || strcmp(r->f[i], names[i]) != 0)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: header:"
					   " expected '%s', found '%s'",
					   r->path, r->line, i + 1, names[i],
					   i < r->nf ? r->f[i] : "");
	return 0;
}

static int want_fields(const struct rec *r, int n, struct sim_err *err)
{
	if (r->nf < n)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: expected %d"
				   " fields, found %d", r->path, r->line,
				   r->nf + 1, n, r->nf);
	return 0;
}

static int get_i64(const struct rec *r, int col, const char *name,
		   int64_t lo, int64_t hi, int64_t *out, struct sim_err *err)
{
	const char *s = r->f[col];
	int rc = sim_num_i64(s, NULL, lo, hi, out, NULL);

	if (rc == SIM_EPARSE)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected an"
				   " integer, found '%s'", r->path, r->line,
				   col + 1, name, s);
	if (rc != 0)
		return sim_err_set(err, SIM_ERANGE, "%s:%ld:%d: %s: %s not in"
				   " [%lld, %lld]", r->path, r->line, col + 1,
				   name, s, (long long)lo, (long long)hi);
	return 0;
}

static int copy_str(const struct rec *r, int col, const char *name,
		    char *dst, size_t cap, int nonempty, struct sim_err *err)
{
	size_t len = strlen(r->f[col]);

	if (len >= cap)
		return sim_err_set(err, SIM_ERANGE, "%s:%ld:%d: %s: longer than"
				   " %zu bytes", r->path, r->line, col + 1,
				   name, cap - 1);
	if (nonempty && len == 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: empty",
				   r->path, r->line, col + 1, name);
	memcpy(dst, r->f[col], len + 1);
	return 0;
}

/* ---- data ---- */

void openb_data_init(struct openb_data *d)
{
	memset(d, 0, sizeof(*d));
	frac_cluster_init(&d->cluster);
}

void openb_data_fini(struct openb_data *d)
{
	if (d == NULL)
		return;
	frac_cluster_fini(&d->cluster);
	free(d->node_names);
	free(d->arr);
	memset(d, 0, sizeof(*d));
}

static int node_index(const struct openb_data *d, const char *sn)
{
	size_t i;

	/* O(nodes) per lookup: used only while reading 1e3-node files. */
	for (i = 0; i < d->cluster.nnodes; i++)
		if (strcmp(d->node_names[i], sn) == 0)
			return (int)i;
	return -1;
}

struct nodes_ctx {
	struct openb_data *d;
	size_t capnames;
};

static int node_rec(void *ctx, const struct rec *r, struct sim_err *err)
{
	static const char *const hdr[] = { "sn", "cpu_milli", "memory_mib",
					   "gpu", "model", NULL };
	struct nodes_ctx *nc = ctx;
	struct openb_data *d = nc->d;
	char sn[OPENB_NAME_MAX], model[FRAC_MODEL_NAME_MAX];
	int64_t cpu, mem, ngpu;
	int rc, idx;

	if (r->line == 1)
		return want_header(r, hdr, err);
	if ((rc = want_fields(r, 5, err)) != 0 ||
	    (rc = copy_str(r, 0, "sn", sn, sizeof(sn), 1, err)) != 0 ||
	    (rc = get_i64(r, 1, "cpu_milli", 0, INT64_MAX / 4, &cpu, err)) ||
	    (rc = get_i64(r, 2, "memory_mib", 0, INT64_MAX / 4, &mem, err)) ||
	    (rc = get_i64(r, 3, "gpu", 0, FRAC_MAX_GPUS, &ngpu, err)) ||
	    (rc = copy_str(r, 4, "model", model, sizeof(model), 0, err)))
		return rc;
	if (strcmp(model, "nan") == 0)    /* pandas' empty cell */
		model[0] = '\0';
	if (node_index(d, sn) >= 0)
		return sim_err_set(err, SIM_EEXIST, "%s:%ld:1: sn: node '%s'"
				   " listed twice", r->path, r->line, sn);
	if (d->cluster.nnodes == nc->capnames) {
		size_t cap = nc->capnames ? 2 * nc->capnames : 256;
		void *p = realloc(d->node_names, cap * sizeof(*d->node_names));

		if (p == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		d->node_names = p;
		nc->capnames = cap;
	}
	idx = frac_cluster_add_node(&d->cluster, cpu, mem, (int)ngpu, model,
				    (int64_t)d->cluster.nnodes, err);
	if (idx < 0)
		return sim_err_set(err, idx, "%s:%ld: node rejected", r->path,
				   r->line);
	strcpy(d->node_names[idx], sn);
	return 0;
}

int openb_load_nodes(struct openb_data *d, const char *path,
		     struct sim_err *err)
{
	struct nodes_ctx nc = { d, 0 };
	int rc;

	if (d->cluster.nnodes != 0)
		return sim_err_set(err, SIM_ESTATE, "%s: nodes already loaded",
				   path);
	rc = read_csv(path, node_rec, &nc, err);
	if (rc == 0 && d->cluster.nnodes == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:2:1: no nodes", path);
	return rc;
}

static int arrival_rec(void *ctx, const struct rec *r, struct sim_err *err)
{
	static const char *const hdr[] = { "seq", "name", "orig_name",
		"cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
		NULL };
	struct openb_data *d = ctx;
	struct openb_arrival *a;
	char orig[OPENB_NAME_MAX];
	int64_t seq, cpu, mem, ngpu, milli;
	int rc;

	if (r->line == 1)
		return want_header(r, hdr, err);
	if (d->narr == d->caparr) {
		size_t cap = d->caparr ? 2 * d->caparr : 1024;
		void *p = realloc(d->arr, cap * sizeof(*d->arr));

		if (p == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		d->arr = p;
		d->caparr = cap;
	}
	a = &d->arr[d->narr];
	memset(a, 0, sizeof(*a));
	if ((rc = want_fields(r, 8, err)) != 0 ||
	    (rc = get_i64(r, 0, "seq", 0, INT64_MAX, &seq, err)) != 0)
		return rc;
	if (seq != (int64_t)d->narr)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:1: seq: expected"
				   " %zu, found %lld (arrivals must be in seq"
				   " order)", r->path, r->line, d->narr,
				   (long long)seq);
	if ((rc = copy_str(r, 1, "name", a->name, sizeof(a->name), 1, err)) ||
	    (rc = copy_str(r, 2, "orig_name", orig, sizeof(orig), 1, err)) ||
	    (rc = get_i64(r, 3, "cpu_milli", 0, INT64_MAX / 4, &cpu, err)) ||
	    (rc = get_i64(r, 4, "memory_mib", 0, INT64_MAX / 4, &mem, err)) ||
	    (rc = get_i64(r, 5, "num_gpu", 0, FRAC_MAX_GPUS, &ngpu, err)) ||
	    (rc = get_i64(r, 6, "gpu_milli", 0, FRAC_MILLI_PER_GPU, &milli,
			  err)) ||
	    (rc = copy_str(r, 7, "gpu_spec", a->gpu_spec, sizeof(a->gpu_spec),
			   0, err)))
		return rc;
	if ((ngpu == 0) != (milli == 0))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:7: gpu_milli: %lld"
				   " with num_gpu %lld (both or neither must be"
				   " 0)", r->path, r->line, (long long)milli,
				   (long long)ngpu);
	if (strcmp(a->gpu_spec, "nan") == 0)
		a->gpu_spec[0] = '\0';
	a->original = strcmp(a->name, orig) == 0;
	a->pod.cpu_milli = cpu;
	a->pod.mem_mib = mem;
	a->pod.num_gpu = (int)ngpu;
	a->pod.gpu_milli = (int)milli;
	d->narr++;
	return 0;
}

int openb_load_arrivals(struct openb_data *d, const char *path,
			struct sim_err *err)
{
	size_t i;
	int rc;

	if (d->cluster.nnodes == 0)
		return sim_err_set(err, SIM_ESTATE, "%s: load the nodes before"
				   " the arrivals", path);
	rc = read_csv(path, arrival_rec, d, err);
	if (rc == 0 && d->narr == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:2:1: no arrivals", path);
	/* The array no longer moves: point each pod at its own spec. */
	for (i = 0; i < d->narr; i++) {
		d->arr[i].pod.gpu_spec = d->arr[i].gpu_spec;
		frac_pod_resolve(&d->cluster, &d->arr[i].pod);
	}
	return rc;
}

struct tie_ctx {
	struct openb_data *d;
	unsigned char *seen;
};

static int tie_rec(void *ctx, const struct rec *r, struct sim_err *err)
{
	static const char *const hdr[] = { "tiebreak_rank", "sim_name", "sn",
					   NULL };
	struct tie_ctx *tc = ctx;
	int64_t rank;
	int rc, idx;

	if (r->line == 1)
		return want_header(r, hdr, err);
	if ((rc = want_fields(r, 3, err)) != 0 ||
	    (rc = get_i64(r, 0, "tiebreak_rank", INT64_MIN, INT64_MAX, &rank,
			  err)) != 0)
		return rc;
	idx = node_index(tc->d, r->f[2]);
	if (idx < 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:3: sn: no node '%s'"
				   " in the node list", r->path, r->line,
				   r->f[2]);
	if (tc->seen[idx])
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:3: sn: node '%s'"
				   " ranked twice", r->path, r->line, r->f[2]);
	tc->seen[idx] = 1;
	tc->d->cluster.nodes[idx].tiebreak_rank = rank;
	return 0;
}

int openb_load_tiebreak(struct openb_data *d, const char *path,
			struct sim_err *err)
{
	struct tie_ctx tc;
	size_t i;
	int rc;

	if (d->cluster.nnodes == 0)
		return sim_err_set(err, SIM_ESTATE, "%s: load the nodes before"
				   " their ranks", path);
	tc.d = d;
	tc.seen = calloc(d->cluster.nnodes, 1);
	if (tc.seen == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	rc = read_csv(path, tie_rec, &tc, err);
	for (i = 0; rc == 0 && i < d->cluster.nnodes; i++)
		if (!tc.seen[i])
			rc = sim_err_set(err, SIM_EPARSE, "%s: node '%s' has no"
					 " tie-break rank", path,
					 d->node_names[i]);
	free(tc.seen);
	return rc;
}

/* ---- replay ---- */

void openb_run_fini(struct openb_run *r)
{
	if (r == NULL)
		return;
	free(r->alloc_milli);
	free(r->arrived_milli);
	memset(r, 0, sizeof(*r));
}

int openb_replay(const struct openb_data *d, enum openb_policy policy,
		 double threshold_pct, struct openb_run *out,
		 struct sim_err *err)
{
	struct frac_cluster c;
	struct frac_fgd fgd;
	struct frac_pod *orig = NULL;
	struct frac_place pl;
	size_t i, norig = 0;
	int64_t arrived = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&fgd, 0, sizeof(fgd));
	if (policy != OPENB_BESTFIT && policy != OPENB_FGD)
		return sim_err_set(err, SIM_EINVAL, "openb: unknown policy %d",
				   (int)policy);
	if (frac_cluster_copy(&c, &d->cluster) != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	out->alloc_milli = malloc((d->narr + 1) * sizeof(int64_t));
	out->arrived_milli = malloc((d->narr + 1) * sizeof(int64_t));
	if (out->alloc_milli == NULL || out->arrived_milli == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto done;
	}
	if (policy == OPENB_FGD) {
		orig = malloc((d->narr + 1) * sizeof(*orig));
		if (orig == NULL) {
			rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
			goto done;
		}
		for (i = 0; i < d->narr; i++)
			if (d->arr[i].original)
				orig[norig++] = d->arr[i].pod;
		rc = frac_fgd_init(&fgd, &c, orig, norig, threshold_pct, err);
		if (rc != 0)
			goto done;
		out->ntypical = fgd.nt;
		for (i = 0; i < fgd.nt; i++)
			out->typical_share += (double)fgd.t[i].count;
		out->typical_share /= (double)norig;
	}
	out->gpus_total = c.gpus_total;
	for (i = 0; i < d->narr; i++) {
		const struct frac_pod *p = &d->arr[i].pod;

		if (policy == OPENB_FGD)
			rc = frac_fgd_place(&fgd, &c, p, &pl);
		else
			rc = frac_bestfit_place(&c, p, &pl);
		if (rc == 0) {
			rc = frac_cluster_alloc(&c, p, &pl, err);
			if (rc != 0)
				goto done;      /* a policy bug, not bad input */
			out->placed++;
		} else {
			out->failed++;
			rc = 0;
		}
		arrived += (int64_t)p->num_gpu * p->gpu_milli;
		out->alloc_milli[i] = c.gpu_used_milli;
		out->arrived_milli[i] = arrived;
	}
	out->n = d->narr;
done:
	free(orig);
	frac_fgd_fini(&fgd);
	frac_cluster_fini(&c);
	if (rc != 0)
		openb_run_fini(out);
	return rc;
}

/* ---- curve ---- */

static double round2(double x)
{
	char buf[64];

	/* printf rounds the exact binary value half-to-even, as Python's
	** round(x, 2) does. */
	snprintf(buf, sizeof(buf), "%.2f", x);
	return strtod(buf, NULL);
}

int openb_curve(const struct openb_run *r, int kmax, int flags, double *curve)
{
	double *sum, v;
	size_t *cnt, i;
	long b;
	int k, j;

	if (kmax < 0 || r->gpus_total <= 0)
		return SIM_EINVAL;
	sum = calloc((size_t)kmax + 1, sizeof(*sum));
	cnt = calloc((size_t)kmax + 1, sizeof(*cnt));
	if (sum == NULL || cnt == NULL) {
		free(sum);
		free(cnt);
		return SIM_ENOMEM;
	}
	/* The analysis script's arithmetic: milli / GPUs / 10, numpy's round
	** (half to even = rint in the default rounding mode). */
	for (i = 0; i < r->n; i++) {
		b = lrint((double)r->arrived_milli[i] / (double)r->gpus_total /
			  10.0);
		if (b < 0 || b > kmax)
			continue;
		v = (double)r->alloc_milli[i] / (double)r->gpus_total / 10.0;
		if (flags & OPENB_CURVE_ROUND2)
			v = round2(v);
		sum[b] += v;
		cnt[b]++;
	}
	for (k = 0; k <= kmax; k++) {
		double s = sum[k];
		size_t n = cnt[k];

		if (n == 0)
			for (j = k - 1; j <= k + 1; j += 2)
				if (j >= 0 && j <= kmax) {
					s += sum[j];
					n += cnt[j];
				}
		curve[k] = n ? s / (double)n : (double)NAN;
		if (n && (flags & OPENB_CURVE_ROUND2))
			curve[k] = round2(curve[k]);
	}
	free(sum);
	free(cnt);
	return 0;
}

int openb_curve_to_result(struct run_result *res, const double *curve,
			  int kmax)
{
	char name[48];
	int k, rc;

	for (k = 0; k <= kmax; k++) {
		if (isnan(curve[k]))
			continue;
		snprintf(name, sizeof(name), "alloc_pct_k%03d", k);
		if ((rc = run_result_set(res, name, curve[k])) != 0)
			return rc;
	}
	return 0;
}

/* ---- output ---- */

int openb_write_csv(const char *path, const char *const *names,
		    const double *const *curves, int ncurves, int kmax,
		    struct sim_err *err)
{
	char tmp[4200];
	FILE *fp;
	int i, k;

	/* written under a temporary name and renamed: never half a file */
	if ((fp = sim_out_open(path, tmp, sizeof tmp, err)) == NULL)
		return err->code;
	fprintf(fp, "policy,k,alloc_pct\n");
	for (i = 0; i < ncurves; i++)
		for (k = 0; k <= kmax; k++)
			if (!isnan(curves[i][k]))
				fprintf(fp, "%s,%d,%.4f\n", names[i], k,
					curves[i][k]);
	return sim_out_close(fp, tmp, path, 0, err);
}

/* The figure's script: constant text; the data file, the output and the
** number of curves arrive as ARG1..ARG3 (gnuplot -c). */
static const char plot_script[] =
"# openb-alloc.gp: GPU allocation ratio vs arrived GPU demand, in the\n"
"# style of Fig. 9 of the FGD paper (USENIX ATC'23). Written by colosim.\n"
"# usage: gnuplot -c openb-alloc.gp DATAFILE OUTPUT.png NCURVES\n"
"set terminal pngcairo size 1400,480 font ',13' linewidth 2\n"
"set output ARG2\n"
"set datafile missing 'NaN'\n"
"set key autotitle columnhead\n"
"set grid lt 0 lw 0.5\n"
"n = int(ARG3)\n"
"set multiplot layout 1,2\n"
"set key top left\n"
"set xlabel 'Arrived workloads (% of cluster GPU capacity)'\n"
"set ylabel 'GPU allocation ratio (%)'\n"
"set xrange [0:130]\n"
"set yrange [0:100]\n"
"plot for [i=2:n+1] ARG1 using 1:i with lines lw 2, \\\n"
"     (x < 100 ? x : 100) with lines dt 3 lc 'grey' title 'Ideal'\n"
"set key top right\n"
"set ylabel 'Unallocated GPU (%)'\n"
"set xrange [75:130]\n"
"set yrange [0:25]\n"
"plot for [i=2:n+1] ARG1 using 1:(100 - column(i)) with lines lw 2, \\\n"
"     (x < 100 ? 100 - x : 0) with lines dt 3 lc 'grey' title 'Ideal'\n"
"unset multiplot\n";

static int join(char *dst, size_t cap, const char *dir, const char *file,
		struct sim_err *err)
{
	if ((size_t)snprintf(dst, cap, "%s/%s", dir, file) >= cap)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", dir);
	return 0;
}

/* Writes the curves as a gnuplot data file (names non-NULL) or the plot
** script (names NULL) to path, through a temporary name. */
static int write_dat(const char *path, const char *const *names,
		     const double *const *curves, int ncurves, int kmax,
		     struct sim_err *err)
{
	char tmp[4200];
	FILE *fp;
	int i, k;

	if ((fp = sim_out_open(path, tmp, sizeof tmp, err)) == NULL)
		return err->code;
	if (names == NULL) {
		fputs(plot_script, fp);
	} else {
		fprintf(fp, "k");
		for (i = 0; i < ncurves; i++)
			fprintf(fp, " %s", names[i]);
		fprintf(fp, "\n");
		for (k = 0; k <= kmax; k++) {
			fprintf(fp, "%d", k);
			for (i = 0; i < ncurves; i++)
				if (isnan(curves[i][k]))
					fprintf(fp, " NaN");
				else
					fprintf(fp, " %.4f", curves[i][k]);
			fprintf(fp, "\n");
		}
	}
	return sim_out_close(fp, tmp, path, 0, err);
}

int openb_write_plot(const char *dir, const char *const *names,
		     const double *const *curves, int ncurves, int kmax,
		     struct sim_err *err)
{
	char dat[4096], gp[4096], png[4096], log[4096], nbuf[16];
	char tmp[4200], ldat[4300], lgp[4300], lpng[4300];
	char a0[] = "gnuplot", a1[] = "-c";
	char *argv[7];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, status;
	extern char **environ;

	if ((rc = join(dat, sizeof(dat), dir, "openb-alloc.dat", err)) ||
	    (rc = join(gp, sizeof(gp), dir, "openb-alloc.gp", err)) ||
	    (rc = join(png, sizeof(png), dir, "openb-alloc.png", err)) ||
	    (rc = join(log, sizeof(log), dir, "openb-alloc.log", err)))
		return rc;
	if (sim_out_tmpname(png, tmp, sizeof tmp) != 0)
		return sim_err_set(err, SIM_ENOSPC, "%s: path too long", png);
	/* gnuplot reads "<cmd" and "|cmd" as pipes: every path it sees is
	** literal (sim_path_literal) */
	if ((rc = sim_path_literal(dat, ldat, sizeof ldat, "--out", err)) ||
	    (rc = sim_path_literal(gp, lgp, sizeof lgp, "--out", err)) ||
	    (rc = sim_path_literal(tmp, lpng, sizeof lpng, "--out", err)))
		return rc;
	if ((rc = write_dat(dat, names, curves, ncurves, kmax, err)) ||
	    (rc = write_dat(gp, NULL, NULL, 0, 0, err)))
		return rc;
	snprintf(nbuf, sizeof(nbuf), "%d", ncurves);
	argv[0] = a0;
	argv[1] = a1;
	argv[2] = lgp;
	argv[3] = ldat;
	argv[4] = lpng;
	argv[5] = nbuf;
	argv[6] = NULL;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT |
					 O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return sim_err_set(err, SIM_ELIB, "gnuplot: cannot run: %s",
				   strerror(rc));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			sim_out_abort(tmp);
			return sim_err_set(err, SIM_ELIB, "gnuplot: wait: %s",
					   strerror(errno));
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		sim_out_abort(tmp);
		return sim_err_set(err, SIM_ELIB, "gnuplot failed (status %d);"
				   " see %s", status, log);
	}
	return sim_out_commit(tmp, png, err);
}
