/*
** openb.c: readers, the world's inputs, the replay through the world,
** the allocation curve and the CSV of the FGD experiment on the openb
** trace (see openb.h).
**
** CSV goes through the one reader (sim/csv.h), numbers through sim/num.h;
** errors name the line a record starts on, and the column of an error is
** the 1-based field number.  Records are handled as they complete, so a
** reader holds one record at a time.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "experiments/openb.h"
#include "experiments/simulate.h"
#include "models/cluster.h"
#include "sim/csv.h"
#include "sim/file.h"
#include "sim/num.h"
#include "sim/world/world.h"
#include "traces/trace.h"

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
}

void openb_data_fini(struct openb_data *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	free(d->arr);
	memset(d, 0, sizeof(*d));
}

static int node_index(const struct openb_data *d, const char *sn)
{
	size_t i;

	/* O(nodes) per lookup: used only while reading 1e3-node files. */
	for (i = 0; i < d->nnodes; i++)
		if (strcmp(d->nodes[i].sn, sn) == 0)
			return (int)i;
	return -1;
}

#define OPENB_MAX_GPUS 64          /* per node: the cluster spec's limit */

static int node_rec(void *ctx, const struct rec *r, struct sim_err *err)
{
	static const char *const hdr[] = { "sn", "cpu_milli", "memory_mib",
					   "gpu", "model", NULL };
	struct openb_data *d = ctx;
	struct openb_node *n;
	int64_t ngpu;
	int rc;

	if (r->line == 1)
		return want_header(r, hdr, err);
	if (d->nnodes == d->capnodes) {
		size_t cap = d->capnodes ? 2 * d->capnodes : 256;
		void *p = realloc(d->nodes, cap * sizeof(*d->nodes));

		if (p == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		d->nodes = p;
		d->capnodes = cap;
	}
	n = &d->nodes[d->nnodes];
	memset(n, 0, sizeof(*n));
	if ((rc = want_fields(r, 5, err)) != 0 ||
	    (rc = copy_str(r, 0, "sn", n->sn, sizeof(n->sn), 1, err)) != 0 ||
	    (rc = get_i64(r, 1, "cpu_milli", 0, INT64_MAX / 4, &n->cpu_milli,
			  err)) ||
	    (rc = get_i64(r, 2, "memory_mib", 0, INT64_MAX / 4, &n->mem_mib,
			  err)) ||
	    (rc = get_i64(r, 3, "gpu", 0, OPENB_MAX_GPUS, &ngpu, err)) ||
	    (rc = copy_str(r, 4, "model", n->model, sizeof(n->model), 0, err)))
		return rc;
	if (strcmp(n->model, "nan") == 0)    /* pandas' empty cell */
		n->model[0] = '\0';
	if (node_index(d, n->sn) >= 0)
		return sim_err_set(err, SIM_EEXIST, "%s:%ld:1: sn: node '%s'"
				   " listed twice", r->path, r->line, n->sn);
	n->ngpus = (int)ngpu;
	n->rank = (int64_t)d->nnodes;
	d->gpus_total += n->ngpus;
	d->nnodes++;
	return 0;
}

int openb_load_nodes(struct openb_data *d, const char *path,
		     struct sim_err *err)
{
	int rc;

	if (d->nnodes != 0)
		return sim_err_set(err, SIM_ESTATE, "%s: nodes already loaded",
				   path);
	rc = read_csv(path, node_rec, d, err);
	if (rc == 0 && d->nnodes == 0)
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
	int64_t seq, ngpu, milli;
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
	    (rc = get_i64(r, 3, "cpu_milli", 0, INT64_C(1) << 40,
			  &a->cpu_milli, err)) ||
	    (rc = get_i64(r, 4, "memory_mib", 0, INT64_C(1) << 40,
			  &a->mem_mib, err)) ||
	    (rc = get_i64(r, 5, "num_gpu", 0, OPENB_MAX_GPUS, &ngpu, err)) ||
	    (rc = get_i64(r, 6, "gpu_milli", 0, 1000, &milli, err)) ||
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
	a->num_gpu = (int)ngpu;
	a->gpu_milli = (int)milli;
	a->line = r->line;
	d->narr++;
	return 0;
}

int openb_load_arrivals(struct openb_data *d, const char *path,
			struct sim_err *err)
{
	int rc;

	if (d->nnodes == 0)
		return sim_err_set(err, SIM_ESTATE, "%s: load the nodes before"
				   " the arrivals", path);
	rc = read_csv(path, arrival_rec, d, err);
	if (rc == 0 && d->narr == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s:2:1: no arrivals", path);
	snprintf(d->arrivals_path, sizeof d->arrivals_path, "%s", path);
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
	tc->d->nodes[idx].rank = rank;
	return 0;
}

int openb_load_tiebreak(struct openb_data *d, const char *path,
			struct sim_err *err)
{
	struct tie_ctx tc;
	size_t i;
	int rc;

	if (d->nnodes == 0)
		return sim_err_set(err, SIM_ESTATE, "%s: load the nodes before"
				   " their ranks", path);
	tc.d = d;
	tc.seen = calloc(d->nnodes, 1);
	if (tc.seen == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	rc = read_csv(path, tie_rec, &tc, err);
	for (i = 0; rc == 0 && i < d->nnodes; i++)
		if (!tc.seen[i])
			rc = sim_err_set(err, SIM_EPARSE, "%s: node '%s' has no"
					 " tie-break rank", path,
					 d->nodes[i].sn);
	free(tc.seen);
	return rc;
}

/* ---- the world's inputs ---- */

/* openb GPU models -> device profile names (as the alibaba-v2023
** importer: G2 and G3 are aliases in the device catalog). */
static void device_of(const char *model, char *dev, size_t n)
{
	static const char *const map[][2] = {
		{ "P100", "p100" }, { "T4", "t4" }, { "V100M16", "v100-16gb" },
		{ "V100M32", "v100-32gb" }, { "A10", "a10" }, { "G2", "g2" },
		{ "G3", "g3" }, { NULL, NULL }
	};
	size_t i;

	for (i = 0; map[i][0] != NULL; i++)
		if (strcasecmp(map[i][0], model) == 0) {
			snprintf(dev, n, "%s", map[i][1]);
			return;
		}
	for (i = 0; model[i] != '\0' && i + 1 < n; i++)
		dev[i] = (char)tolower((unsigned char)model[i]);
	dev[i] = '\0';
}

/* 1 when nodes a and b go into one cluster part. */
static int same_part(const struct openb_node *a, const struct openb_node *b)
{
	return a->ngpus == b->ngpus && a->cpu_milli == b->cpu_milli &&
	       a->mem_mib == b->mem_mib && strcmp(a->model, b->model) == 0;
}

/*
** The parts: part[i] of each node (in order of first appearance), and in
** world order (part by part, nodes in file order within a part) the node
** index of each world node into order[].  Returns the number of parts or
** a negative code.
*/
static int openb_parts(const struct openb_data *d, int *part, size_t *order,
		       size_t *first, struct sim_err *err)
{
	size_t i, k, np = 0, at = 0;

	for (i = 0; i < d->nnodes; i++) {
		const struct openb_node *n = &d->nodes[i];
		for (k = 0; k < np; k++)
			if (same_part(&d->nodes[first[k]], n))
				break;
		if (k == np) {
			if (np == CLUSTER_GROUPS_MAX)
				return sim_err_set(err, SIM_ERANGE, "openb: more "
						   "than %d kinds of node (GPUs, "
						   "model, CPU, memory): the "
						   "cluster spec holds no more",
						   CLUSTER_GROUPS_MAX);
			if (n->ngpus < 1 || n->model[0] == '\0' ||
			    n->cpu_milli % 1000 != 0 || n->mem_mib % 1024 != 0 ||
			    n->cpu_milli < 1000 || n->mem_mib < 1024)
				return sim_err_set(err, SIM_EINVAL, "openb: node "
						   "'%s': %d GPUs of model '%s', "
						   "%lld mCPU, %lld MiB: the "
						   "world's nodes have GPUs and "
						   "whole CPUs and GiB",
						   n->sn, n->ngpus, n->model,
						   (long long)n->cpu_milli,
						   (long long)n->mem_mib);
			first[np++] = i;
		}
		part[i] = (int)k;
	}
	for (k = 0; k < np; k++)
		for (i = 0; i < d->nnodes; i++)
			if (part[i] == (int)k)
				order[at++] = i;
	return (int)np;
}

static int write_trace(const struct openb_data *d, const char *path,
		       int originals, struct sim_err *err)
{
	FILE *fp = fopen(path, "w");
	size_t i;

	if (fp == NULL)
		return sim_err_set(err, SIM_EIO, "%s: %s", path,
				   strerror(errno));
	fprintf(fp, "%s\n", TRACE_MAGIC);
	for (i = 0; i < TRACE_NCOLS; i++)
		fprintf(fp, "%s,", trace_columns[i]);
	fprintf(fp, "cpu_milli,host_mem_mib\n");
	for (i = 0; i < d->narr; i++) {
		const struct openb_arrival *a = &d->arr[i];
		char share[32] = "";

		if (originals && !a->original)
			continue;
		if (a->num_gpu > 0 && a->gpu_milli < 1000)
			snprintf(share, sizeof share, "%.3f",
				 a->gpu_milli / 1000.0);
		/* id,kind,submit_s,model,batch,iterations,duration_s,iter_ms,
		** optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,
		** arrival,rate,arrival_arg,batch_timeout_ms */
		fprintf(fp, "%s,train,%zu,resnet50,32,,1e9,,,,%d,%s,,,,,,,,"
			"%lld,%lld\n", a->name, i, a->num_gpu, share,
			(long long)a->cpu_milli, (long long)a->mem_mib);
	}
	if (fclose(fp) != 0)
		return sim_err_set(err, SIM_EIO, "%s: write error", path);
	return 0;
}

static int join(char *dst, size_t cap, const char *dir, const char *file,
		struct sim_err *err)
{
	if ((size_t)snprintf(dst, cap, "%s/%s", dir, file) >= cap)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", dir);
	return 0;
}

int openb_write_world(const struct openb_data *d, const char *dir,
		      struct sim_err *err)
{
	char path[4096], dev[64];
	int *part = malloc((d->nnodes + 1) * sizeof(*part));
	size_t *order = malloc((d->nnodes + 1) * sizeof(*order));
	size_t first[CLUSTER_GROUPS_MAX], i, k;
	int np = 0, rc = 0;
	FILE *fp = NULL;

	if (part == NULL || order == NULL)
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (i = 0; rc == 0 && i < d->narr; i++)
		if (d->arr[i].gpu_spec[0] != '\0')
			rc = sim_err_set(err, SIM_EINVAL, "%s:%ld:8: gpu_spec: "
					 "'%s': GPU-model constraints are not "
					 "carried into the world",
					 d->arrivals_path, d->arr[i].line,
					 d->arr[i].gpu_spec);
	if (rc == 0 && (np = openb_parts(d, part, order, first, err)) < 0)
		rc = np;
	if (rc == 0 && (rc = join(path, sizeof path, dir, "openb.cluster",
				  err)) == 0 && (fp = fopen(path, "w")) == NULL)
		rc = sim_err_set(err, SIM_EIO, "%s: %s", path, strerror(errno));
	for (k = 0; rc == 0 && k < (size_t)np; k++) {
		const struct openb_node *n = &d->nodes[first[k]];
		size_t cnt = 0;
		for (i = 0; i < d->nnodes; i++)
			cnt += part[i] == (int)k;
		device_of(n->model, dev, sizeof dev);
		fprintf(fp, "%s%zux%d:%s:cpus=%lld:mem_gb=%lld", k ? "," : "",
			cnt, n->ngpus, dev, (long long)(n->cpu_milli / 1000),
			(long long)(n->mem_mib / 1024));
	}
	if (fp != NULL) {
		fputc('\n', fp);
		if (fclose(fp) != 0 && rc == 0)
			rc = sim_err_set(err, SIM_EIO, "%s: write error", path);
		fp = NULL;
	}
	if (rc == 0 && (rc = join(path, sizeof path, dir, "openb.ranks",
				  err)) == 0 && (fp = fopen(path, "w")) == NULL)
		rc = sim_err_set(err, SIM_EIO, "%s: %s", path, strerror(errno));
	for (i = 0; rc == 0 && i < d->nnodes; i++)
		fprintf(fp, "%lld\n", (long long)d->nodes[order[i]].rank);
	if (fp != NULL && fclose(fp) != 0 && rc == 0)
		rc = sim_err_set(err, SIM_EIO, "%s: write error", path);
	if (rc == 0 && (rc = join(path, sizeof path, dir, "openb-trace.csv",
				  err)) == 0)
		rc = write_trace(d, path, 0, err);
	if (rc == 0 && (rc = join(path, sizeof path, dir,
				  "openb-population.csv", err)) == 0)
		rc = write_trace(d, path, 1, err);
	free(part);
	free(order);
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

struct probe {
	const struct openb_data *d;
	struct openb_run *out;
	size_t seen;               /* arrivals recorded */
	int64_t arrived;
};

/* After each scheduling pass: the arrivals admitted since the last one
** take the cluster's GPU shares held now (one arrival per pass here). */
static int on_pass(void *ctx, struct world *w)
{
	struct probe *pr = ctx;
	size_t n = (size_t)world_njobs(w);
	int64_t alloc = world_share_alloc_milli(w);

	for (; pr->seen < n && pr->seen < pr->d->narr; pr->seen++) {
		const struct openb_arrival *a = &pr->d->arr[pr->seen];
		pr->arrived += (int64_t)a->num_gpu * a->gpu_milli;
		pr->out->alloc_milli[pr->seen] = alloc;
		pr->out->arrived_milli[pr->seen] = pr->arrived;
	}
	return 0;
}

/* Reads dir/openb.ranks and dir/openb.cluster back (what the world gets). */
static int read_world_inputs(const struct openb_data *d, const char *dir,
			     int64_t *ranks, char *spec, size_t nspec,
			     struct sim_err *err)
{
	char path[4096];
	FILE *fp;
	size_t i;
	long long v;
	int rc;

	if ((rc = join(path, sizeof path, dir, "openb.ranks", err)) != 0)
		return rc;
	if ((fp = fopen(path, "r")) == NULL)
		return sim_err_set(err, SIM_EIO, "%s: %s", path,
				   strerror(errno));
	for (i = 0; i < d->nnodes && fscanf(fp, "%lld", &v) == 1; i++)
		ranks[i] = v;
	fclose(fp);
	if (i != d->nnodes)
		return sim_err_set(err, SIM_EIO, "%s: short", path);
	if ((rc = join(path, sizeof path, dir, "openb.cluster", err)) != 0)
		return rc;
	if ((fp = fopen(path, "r")) == NULL)
		return sim_err_set(err, SIM_EIO, "%s: %s", path,
				   strerror(errno));
	if (fgets(spec, (int)nspec, fp) == NULL)
		spec[0] = '\0';
	fclose(fp);
	spec[strcspn(spec, "\n")] = '\0';
	return 0;
}

int openb_replay(const struct openb_data *d, enum openb_policy policy,
		 double threshold_pct, const char *dir,
		 const char *devices_dir, struct openb_run *out,
		 struct sim_err *err)
{
	char trace[4096], pop[4096], thr[32], spec[4096];
	struct pol_param pv[3];
	struct pol_params pp;
	struct exp_sim_args a;
	struct run_result res;
	struct probe pr;
	int64_t *ranks;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (policy != OPENB_BESTFIT && policy != OPENB_FGD)
		return sim_err_set(err, SIM_EINVAL, "openb: unknown policy %d",
				   (int)policy);
	if ((rc = openb_write_world(d, dir, err)) != 0 ||
	    (rc = join(trace, sizeof trace, dir, "openb-trace.csv", err)) ||
	    (rc = join(pop, sizeof pop, dir, "openb-population.csv", err)))
		return rc;
	ranks = malloc((d->nnodes + 1) * sizeof(*ranks));
	out->alloc_milli = calloc(d->narr + 1, sizeof(int64_t));
	out->arrived_milli = calloc(d->narr + 1, sizeof(int64_t));
	if (ranks == NULL || out->alloc_milli == NULL ||
	    out->arrived_milli == NULL) {
		free(ranks);
		openb_run_fini(out);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	rc = read_world_inputs(d, dir, ranks, spec, sizeof spec, err);
	snprintf(thr, sizeof thr, "%.17g", threshold_pct);
	pv[0].key = "nofit";
	pv[0].value = "fail";
	pv[1].key = "threshold";
	pv[1].value = thr;
	pv[2].key = "population";
	pv[2].value = pop;
	for (i = 0; i < 3; i++)
		pv[i].origin = "colosim openb";
	pp.n = policy == OPENB_FGD ? 3 : 1;
	pp.v = pv;
	memset(&pr, 0, sizeof pr);
	pr.d = d;
	pr.out = out;
	memset(&a, 0, sizeof a);
	a.trace = trace;
	a.cluster = spec;
	a.policy = policy == OPENB_FGD ? "fgd" : "bestfit";
	a.params = &pp;
	a.seed = 42;
	a.horizon_ns = (sim_time)(d->narr + 1) * SIM_NS_PER_S;
	a.devices_dir = devices_dir;
	a.node_rank = ranks;
	a.on_pass = on_pass;
	a.pass_ctx = &pr;
	run_result_init(&res);
	if (rc == 0)
		rc = exp_simulate_args(&a, &res, err);
	free(ranks);
	if (rc == 0 && pr.seen != d->narr)
		rc = sim_err_set(err, SIM_ESTATE, "openb: %zu of %zu arrivals "
				 "were seen by a scheduling pass", pr.seen,
				 d->narr);
	if (rc == 0) {
		out->n = d->narr;
		out->gpus_total = d->gpus_total;
		out->failed = (size_t)run_result_get(&res, "jobs_failed");
		out->placed = out->n - out->failed;
		if (policy == OPENB_FGD) {
			out->ntypical = (size_t)run_result_get(
				&res, "fgd_typical_classes");
			out->typical_share = run_result_get(
				&res, "fgd_typical_share");
		}
	}
	run_result_fini(&res);
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
