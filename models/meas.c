/*
** meas.c: readers of the public measurement sets (see meas.h).
**
** The CSV files go through libcsv one physical line at a time (so that a
** record knows its line) into a small table of string fields; the typed
** readers then check the header, convert each field and name file, line
** and column on the first bad one.  MISO's JSON logs go through jansson.
** Folders are listed in name order, so every fit sees the same sequence.
*/
#include "models/meas.h"
#include "sim/file.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <csv.h>
#include <jansson.h>

#define MEAS_FIELD_MAX 128
#define MEAS_COLS_MAX 20

/* A CSV file as records of fields. */
struct table {
	char (*f)[MEAS_COLS_MAX][MEAS_FIELD_MAX];
	int *ncol, *line;
	size_t n, cap;
	const char *path;
};

struct tparse {
	struct table *t;
	struct sim_err *err;
	int line, ncol, failed;
	char cur[MEAS_COLS_MAX][MEAS_FIELD_MAX];
};

static void on_field(void *s, size_t len, void *data)
{
	struct tparse *c = data;

	if (c->failed)
		return;
	if (c->ncol >= MEAS_COLS_MAX || len >= MEAS_FIELD_MAX) {
		c->failed = 1;
		sim_err_set(c->err, SIM_EPARSE, "%s:%d:%d: %s", c->t->path,
			    c->line, c->ncol + 1, c->ncol >= MEAS_COLS_MAX ?
			    "too many fields" : "field too long");
		return;
	}
	memcpy(c->cur[c->ncol], s, len);
	c->cur[c->ncol][len] = '\0';
	c->ncol++;
}

static void on_record(int ch, void *data)
{
	struct tparse *c = data;
	struct table *t = c->t;

	(void)ch;
	if (c->failed)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		void *f = realloc(t->f, cap * sizeof *t->f);
		int *nc = realloc(t->ncol, cap * sizeof *t->ncol);
		int *ln = realloc(t->line, cap * sizeof *t->line);

		if (f != NULL)
			t->f = f;
		if (nc != NULL)
			t->ncol = nc;
		if (ln != NULL)
			t->line = ln;
		if (f == NULL || nc == NULL || ln == NULL) {
			c->failed = 1;
			sim_err_set(c->err, SIM_ENOMEM, "%s: out of memory",
				    t->path);
			return;
		}
		t->cap = cap;
	}
	memcpy(t->f[t->n], c->cur, sizeof c->cur);
	t->ncol[t->n] = c->ncol;
	t->line[t->n] = c->line;
	t->n++;
	c->ncol = 0;
}

static void table_fini(struct table *t)
{
	free(t->f);
	free(t->ncol);
	free(t->line);
	memset(t, 0, sizeof *t);
}

static int table_read(struct table *t, const char *path, struct sim_err *err)
{
	struct csv_parser p;
	struct tparse c;
	FILE *f;
	char buf[4096];
	int rc;

	memset(t, 0, sizeof *t);
	t->path = path;
	rc = sim_fopen_in(&f, path, "r", "measurements", err);
	if (rc != 0)
		return rc;
	if (csv_init(&p, CSV_STRICT | CSV_APPEND_NULL) != 0) {
		fclose(f);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	memset(&c, 0, sizeof c);
	c.t = t;
	c.err = err;
	while (!c.failed && fgets(buf, sizeof buf, f) != NULL) {
		size_t len = strlen(buf);

		c.line++;
		if (csv_parse(&p, buf, len, on_field, on_record, &c) != len) {
			c.failed = 1;
			sim_err_set(err, SIM_EPARSE, "%s:%d: %s", path, c.line,
				    csv_strerror(csv_error(&p)));
		}
	}
	if (!c.failed && ferror(f)) {
		c.failed = 1;
		sim_err_set(err, SIM_EIO, "%s: read error", path);
	}
	if (!c.failed && csv_fini(&p, on_field, on_record, &c) != 0) {
		c.failed = 1;
		sim_err_set(err, SIM_EPARSE, "%s:%d: %s", path, c.line,
			    csv_strerror(csv_error(&p)));
	}
	csv_free(&p);
	fclose(f);
	if (c.failed) {
		table_fini(t);
		return err != NULL && err->code ? err->code : SIM_EPARSE;
	}
	if (t->n == 0) {
		table_fini(t);
		return sim_err_set(err, SIM_EPARSE, "%s:1: empty file", path);
	}
	return 0;
}

/* Column index of name in the header (record 0), or an error. */
static int col_of(const struct table *t, const char *name, int *out,
		  struct sim_err *err)
{
	int i;

	for (i = 0; i < t->ncol[0]; i++)
		if (strcmp(t->f[0][i], name) == 0) {
			*out = i;
			return 0;
		}
	return sim_err_set(err, SIM_EPARSE, "%s:%d: no column '%s' in the "
			   "header", t->path, t->line[0], name);
}

static const char *field(const struct table *t, size_t r, int c)
{
	return c < t->ncol[r] ? t->f[r][c] : "";
}

/* A finite number in [lo, hi] from field c of record r. */
static int num(const struct table *t, size_t r, int c, double lo, double hi,
	       double *out, struct sim_err *err)
{
	const char *s = field(t, r, c);
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) ||
	    v < lo || v > hi)
		return sim_err_set(err, SIM_EPARSE, "%s:%d:%d: %s: expected a "
				   "number in [%g, %g], got '%s'", t->path,
				   t->line[r], c + 1, t->f[0][c], lo, hi, s);
	*out = v;
	return 0;
}

static int copy_name(const struct table *t, size_t r, int c, char *dst,
		     size_t n, struct sim_err *err)
{
	const char *s = field(t, r, c);

	if (*s == '\0' || strlen(s) >= n)
		return sim_err_set(err, SIM_EPARSE, "%s:%d:%d: %s: expected a "
				   "name of 1 to %zu characters", t->path,
				   t->line[r], c + 1, t->f[0][c], n - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

void meas_init(struct meas_set *m)
{
	memset(m, 0, sizeof *m);
}

void meas_fini(struct meas_set *m)
{
	free(m->gavel);
	free(m->ljobs);
	free(m->lpairs);
	free(m->miso);
	memset(m, 0, sizeof *m);
}

static int join(char *out, size_t n, const char *dir, const char *rel,
		struct sim_err *err)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, rel) >= n)
		return sim_err_set(err, SIM_EINVAL, "%s: path too long", dir);
	return 0;
}

int meas_load_gavel(struct meas_set *m, const char *dir, struct sim_err *err)
{
	char path[1024];
	struct table t;
	int cg, cm, cb, cs, rc;
	size_t r;

	if ((rc = join(path, sizeof path, dir,
		       "gavel-solo/solo_throughputs.csv", err)) != 0)
		return rc;
	if ((rc = table_read(&t, path, err)) != 0)
		return rc;
	if ((rc = col_of(&t, "gpu", &cg, err)) != 0 ||
	    (rc = col_of(&t, "model", &cm, err)) != 0 ||
	    (rc = col_of(&t, "batch_size", &cb, err)) != 0 ||
	    (rc = col_of(&t, "steps_per_s", &cs, err)) != 0)
		goto out;
	m->gavel = calloc(t.n, sizeof *m->gavel);
	if (m->gavel == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 1; r < t.n; r++) {
		struct meas_gavel *g = &m->gavel[m->ngavel];
		double b = 0;

		if ((rc = copy_name(&t, r, cg, g->gpu, sizeof g->gpu, err)) ||
		    (rc = copy_name(&t, r, cm, g->model, sizeof g->model,
				    err)) ||
		    (rc = num(&t, r, cs, 1e-9, 1e9, &g->steps_per_s, err)))
			goto out;
		if (field(&t, r, cb)[0] != '\0' &&
		    (rc = num(&t, r, cb, 1, 1e7, &b, err)) != 0)
			goto out;
		g->batch = (int)b;
		g->line = t.line[r];
		m->ngavel++;
	}
out:
	table_fini(&t);
	return rc;
}

static int load_ljobs(struct meas_set *m, const char *path,
		      struct sim_err *err)
{
	struct table t;
	int cm, cd, cb, ca, cs, cu, cmu, cg, rc;
	size_t r;

	if ((rc = table_read(&t, path, err)) != 0)
		return rc;
	if ((rc = col_of(&t, "model", &cm, err)) ||
	    (rc = col_of(&t, "dataset", &cd, err)) ||
	    (rc = col_of(&t, "batchsize", &cb, err)) ||
	    (rc = col_of(&t, "amp", &ca, err)) ||
	    (rc = col_of(&t, "speed", &cs, err)) ||
	    (rc = col_of(&t, "gpu_util", &cu, err)) ||
	    (rc = col_of(&t, "gmem_util", &cmu, err)) ||
	    (rc = col_of(&t, "gmem", &cg, err)))
		goto out;
	m->ljobs = calloc(t.n, sizeof *m->ljobs);
	if (m->ljobs == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 1; r < t.n; r++) {
		struct meas_lucid_job *j = &m->ljobs[m->nljobs];
		double b, a;

		if ((rc = copy_name(&t, r, cm, j->model, sizeof j->model,
				    err)) ||
		    (rc = copy_name(&t, r, cd, j->dataset, sizeof j->dataset,
				    err)) ||
		    (rc = num(&t, r, cb, 1, 1e7, &b, err)) ||
		    (rc = num(&t, r, ca, 0, 1, &a, err)) ||
		    (rc = num(&t, r, cs, 1e-9, 1e12, &j->speed, err)) ||
		    (rc = num(&t, r, cu, 0, 100, &j->gpu_util, err)) ||
		    (rc = num(&t, r, cmu, 0, 100, &j->mem_util, err)) ||
		    (rc = num(&t, r, cg, 0, 1e9, &j->gmem_mib, err)))
			goto out;
		j->batch = (int)b;
		j->amp = (int)a;
		j->gpu_util /= 100;
		j->mem_util /= 100;
		j->line = t.line[r];
		m->nljobs++;
	}
out:
	table_fini(&t);
	return rc;
}

/* Index of the job (model, dataset, batch, amp), or -1. */
static int find_ljob(const struct meas_set *m, const char *model,
		     const char *ds, int batch, int amp)
{
	size_t i;

	for (i = 0; i < m->nljobs; i++)
		if (strcmp(m->ljobs[i].model, model) == 0 &&
		    strcmp(m->ljobs[i].dataset, ds) == 0 &&
		    m->ljobs[i].batch == batch && m->ljobs[i].amp == amp)
			return (int)i;
	return -1;
}

static int load_lpairs(struct meas_set *m, const char *path,
		       struct sim_err *err)
{
	static const char *const names[2][6] = {
		{ "model1", "dataset1", "batchsize1", "amp1", "speed1",
		  "gpu_num1" },
		{ "model2", "dataset2", "batchsize2", "amp2", "speed2",
		  "gpu_num2" },
	};
	struct table t;
	int col[2][6], rc = 0, k, i;
	size_t r;

	if ((rc = table_read(&t, path, err)) != 0)
		return rc;
	for (k = 0; k < 2; k++)
		for (i = 0; i < 6; i++)
			if ((rc = col_of(&t, names[k][i], &col[k][i], err)))
				goto out;
	m->lpairs = calloc(t.n, sizeof *m->lpairs);
	if (m->lpairs == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 1; r < t.n; r++) {
		struct meas_lucid_pair *p = &m->lpairs[m->nlpairs];
		int j[2];
		double v[2], gpus;

		for (k = 0; k < 2; k++) {
			double b, a;

			if ((rc = num(&t, r, col[k][2], 1, 1e7, &b, err)) ||
			    (rc = num(&t, r, col[k][3], 0, 1, &a, err)) ||
			    (rc = num(&t, r, col[k][4], 0, 100, &v[k], err)) ||
			    (rc = num(&t, r, col[k][5], 1, 1, &gpus, err)))
				goto out;
			j[k] = find_ljob(m, field(&t, r, col[k][0]),
					 field(&t, r, col[k][1]), (int)b,
					 (int)a);
			if (j[k] < 0) {
				rc = sim_err_set(err, SIM_EPARSE, "%s:%d: %s "
						 "%s batch %d amp %d: not in "
						 "single_data.csv", path,
						 t.line[r],
						 field(&t, r, col[k][0]),
						 field(&t, r, col[k][1]),
						 (int)b, (int)a);
				goto out;
			}
		}
		p->j1 = j[0];
		p->j2 = j[1];
		p->norm1 = v[0];
		p->norm2 = v[1];
		p->line = t.line[r];
		m->nlpairs++;
	}
out:
	table_fini(&t);
	return rc;
}

int meas_load_lucid(struct meas_set *m, const char *dir, struct sim_err *err)
{
	char path[1024];
	int rc;

	if ((rc = join(path, sizeof path, dir, "lucid/single_data.csv",
		       err)) != 0 ||
	    (rc = load_ljobs(m, path, err)) != 0)
		return rc;
	if ((rc = join(path, sizeof path, dir, "lucid/colocate_info.csv",
		       err)) != 0)
		return rc;
	return load_lpairs(m, path, err);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parses "<slice>_<model>_train<batch>.json"; 0 when it has that form. */
static int miso_name(const char *name, struct meas_miso *o)
{
	const char *u1 = strchr(name, '_'), *tr = strstr(name, "_train");
	char *end;
	long b;

	if (u1 == NULL || tr == NULL || tr <= u1 ||
	    (size_t)(u1 - name) >= sizeof o->slice ||
	    (size_t)(tr - u1 - 1) >= sizeof o->model || tr == u1 + 1)
		return -1;
	b = strtol(tr + 6, &end, 10);
	if (end == tr + 6 || strcmp(end, ".json") != 0 || b < 1 || b > 1000000)
		return -1;
	memcpy(o->slice, name, (size_t)(u1 - name));
	o->slice[u1 - name] = '\0';
	memcpy(o->model, u1 + 1, (size_t)(tr - u1 - 1));
	o->model[tr - u1 - 1] = '\0';
	o->batch = (int)b;
	return 0;
}

static int miso_file(const char *path, struct meas_miso *o,
		     struct sim_err *err)
{
	json_error_t je;
	json_t *root, *arr;
	size_t i, n;
	double *v;

	root = json_load_file(path, 0, &je);
	if (root == NULL)
		return sim_err_set(err, SIM_EPARSE, "%s:%d: %s", path, je.line,
				   je.text);
	arr = json_object_get(root, "0");
	n = json_is_array(arr) ? json_array_size(arr) : 0;
	if (n < 2) {
		json_decref(root);
		return sim_err_set(err, SIM_EPARSE, "%s:1: \"0\": expected an "
				   "array of at least 2 iteration times", path);
	}
	v = malloc((n - 1) * sizeof *v);
	if (v == NULL) {
		json_decref(root);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (i = 1; i < n; i++) {
		json_t *x = json_array_get(arr, i);

		v[i - 1] = json_is_number(x) ? json_number_value(x) : -1;
		if (!(v[i - 1] > 0) || !isfinite(v[i - 1])) {
			free(v);
			json_decref(root);
			return sim_err_set(err, SIM_EPARSE, "%s: \"0\"[%zu]: "
					   "expected a positive number of "
					   "seconds", path, i);
		}
	}
	qsort(v, n - 1, sizeof *v, cmp_dbl);
	o->iter_s = (n - 1) % 2 ? v[(n - 1) / 2] :
		    0.5 * (v[(n - 1) / 2 - 1] + v[(n - 1) / 2]);
	o->n = (int)n;
	free(v);
	json_decref(root);
	return 0;
}

int meas_load_miso(struct meas_set *m, const char *dir, struct sim_err *err)
{
	char path[1024], **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if ((rc = join(path, sizeof path, dir, "miso-mig", err)) != 0)
		return rc;
	d = opendir(path);
	if (d == NULL)
		return sim_err_set(err, errno == ENOENT ? SIM_ENOENT : SIM_EIO,
				   "%s: cannot open folder: %s", path,
				   strerror(errno));
	while ((e = readdir(d)) != NULL) {
		struct meas_miso probe;

		if (miso_name(e->d_name, &probe) != 0)
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? 2 * cap : 64) *
					    sizeof *names);
			if (nn == NULL) {
				rc = sim_err_set(err, SIM_ENOMEM, "out of "
						 "memory");
				goto out;
			}
			names = nn;
			cap = cap ? 2 * cap : 64;
		}
		names[n] = strdup(e->d_name);
		if (names[n] == NULL) {
			rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	if (n == 0) {
		rc = sim_err_set(err, SIM_ENOENT, "%s: no <slice>_<model>_"
				 "train<batch>.json logs", path);
		goto out;
	}
	qsort(names, n, sizeof *names, cmp_name);
	m->miso = calloc(n, sizeof *m->miso);
	if (m->miso == NULL) {
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct meas_miso *o = &m->miso[m->nmiso];
		char fp[1400];

		miso_name(names[i], o);
		snprintf(fp, sizeof fp, "%s/%s", path, names[i]);
		if ((rc = miso_file(fp, o, err)) != 0)
			goto out;
		m->nmiso++;
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}
