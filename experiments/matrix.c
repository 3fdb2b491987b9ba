/*
** matrix.c: the run matrix of an experiment (see config.h): sweep value
** lists and ranges, and their expansion into one spec per run.
**
** The matrix is the cross product of the global sweep dimensions, the
** policies and, for each policy, its own policy.NAME.KEY dimensions, times
** the replications (outermost).  Values are copied into the specs; a spec's
** key is unique by construction (setting, variant, replication).
*/
#include "experiments/config_int.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster.h"
#include "sim/num.h"
#include "sim/rng.h"
#include "sim/strbuf.h"

static int strv_push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (s == NULL)
		return SIM_ENOMEM;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		char **p = realloc(*v, c * sizeof *p);
		if (p == NULL) {
			free(s);
			return SIM_ENOMEM;
		}
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = s;
	return 0;
}

/* A number of a range, blanks around it allowed ("0 .. 1 step 0.1"). */
static int range_num(char *s, double *out)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return sim_num_double(s, NULL, -DBL_MAX, DBL_MAX, out, NULL);
}

/* 1 if s (blanks skipped) starts like a number: a range "a..b step s"
** does, a relative path "../x" (swept traces) does not. */
static int starts_number(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (isdigit((unsigned char)s[0]))
		return 1;
	return (s[0] == '-' || s[0] == '+' || s[0] == '.') &&
		isdigit((unsigned char)s[1]);
}

/* Expands one "a..b step s" item into v; 0 or an error. */
static int expand_range(const char *item, const char *where, char ***v,
			size_t *n, size_t *cap, struct sim_err *err)
{
	char buf[256], *dots, *step, num[64];
	double a, b, s;
	long cnt, i;

	if (strlen(item) >= sizeof buf)
		return sim_err_set(err, SIM_EPARSE, "%s: range too long", where);
	strcpy(buf, item);
	dots = strstr(buf, "..");
	step = strstr(buf, " step ");
	if (step == NULL || step < dots)
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': expected 'a..b step s'",
				   where, item);
	*dots = '\0';
	*step = '\0';
	if (range_num(buf, &a) || range_num(dots + 2, &b) ||
	    range_num(step + 6, &s))
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': expected numbers in "
				   "'a..b step s'", where, item);
	if (!(s > 0) || b < a)
		return sim_err_set(err, SIM_EPARSE,
				   "%s: range '%s': need a <= b and step > 0",
				   where, item);
	/* Count with a tolerance of 1e-9 steps so that 0..1 step 0.1 ends at
	** 1; values are a + i*s, never an accumulated sum. */
	if ((b - a) / s > EXP_MAX_VALUES)
		return sim_err_set(err, SIM_ERANGE,
				   "%s: range '%s' has more than %d values",
				   where, item, EXP_MAX_VALUES);
	cnt = (long)floor((b - a) / s + 1e-9) + 1;
	for (i = 0; i < cnt; i++) {
		double x = a + (double)i * s;
		if (fabs(x) < 1e-12 * s)
			x = 0;
		snprintf(num, sizeof num, "%.12g", x);
		if (strv_push(v, n, cap, exp__strdup(num)))
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	return 0;
}

int exp_sweep_values(const char *text, const char *where, char ***out,
		     size_t *nout, struct sim_err *err)
{
	char **v = NULL;
	size_t n = 0, cap = 0, i, j;
	const char *p = text;
	int rc;

	for (;;) {
		size_t len = strcspn(p, ",");
		const char *a = p, *e = p + len;
		char *item;

		while (a < e && isspace((unsigned char)*a))
			a++;
		while (e > a && isspace((unsigned char)e[-1]))
			e--;
		if (a == e) {
			rc = sim_err_set(err, SIM_EPARSE,
					 "%s: empty value in list '%s'", where,
					 text);
			goto fail;
		}
		item = exp__strndup(a, (size_t)(e - a));
		if (item == NULL) {
			rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
			goto fail;
		}
		if (strstr(item, "..") != NULL && starts_number(item)) {
			rc = expand_range(item, where, &v, &n, &cap, err);
			free(item);
			if (rc)
				goto fail;
		} else if ((rc = strv_push(&v, &n, &cap, item)) != 0) {
			rc = sim_err_set(err, rc, "out of memory");
			goto fail;
		}
		if (n > EXP_MAX_VALUES) {
			rc = sim_err_set(err, SIM_ERANGE,
					 "%s: more than %d values", where,
					 EXP_MAX_VALUES);
			goto fail;
		}
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(v[i], v[j]) == 0) {
				rc = sim_err_set(err, SIM_EPARSE,
						 "%s: value '%s' listed twice",
						 where, v[i]);
				goto fail;
			}
	*out = v;
	*nout = n;
	return 0;
fail:
	exp_strv_free(v, n);
	return rc;
}

uint64_t exp_replication_seed(uint64_t master, int replication)
{
	return sim_rng_seed(master, "replication", (uint64_t)replication);
}

/* A growable string. */
/* Appends " k=v" (no leading space when empty). */
static void sb_kv(struct sim_strbuf *b, const char *k, const char *v)
{
	if (b->n > 0)
		sim_strbuf_add(b, " ");
	sim_strbuf_add(b, k);
	sim_strbuf_add(b, "=");
	sim_strbuf_add(b, v);
}

static char *sb_take(struct sim_strbuf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	if (b->s == NULL)
		return exp__strdup("");
	return b->s;
}

/* Free one spec's owned memory. */
static void spec_fini(struct exp_run_spec *s)
{
	free(s->key);
	free(s->variant);
	free(s->setting);
	free(s->policy);
	exp__kv_free(s->params, s->nparams);
	exp__kv_free(s->gen, s->ngen);
	exp__kv_free(s->llm, s->nllm);
	exp__kv_free(s->sweep, s->nsweep);
	free(s->trace);
	free(s->cluster);
	free(s->groups);
}

/* One point of the matrix: the policy, the index of each global dimension
** (gdims[i] indexes cfg->dims, gi[i] its value) and of each of the
** policy's own dimensions, and the replication. */
struct point {
	const char *pol;
	const size_t *gdims, *gi;
	size_t ng;
	const size_t *pdims, *pi;
	size_t np;
	int r;
};

/* A spec under construction: capacities of its arrays, label buffers. */
struct spec_build {
	struct exp_run_spec *s;
	size_t capp, capg, caps, capl;
	struct sim_strbuf var, set;
};

/* The spec's fields that do not depend on the swept values. */
static int spec_base(struct spec_build *b, const struct exp_config *cfg,
		     const struct point *pt)
{
	const struct exp_policy_cfg *pc = exp__find_policy(cfg, pt->pol);
	struct exp_run_spec *s = b->s;
	size_t i;
	int rc = 0;

	memset(s, 0, sizeof *s);
	s->experiment = cfg->name;
	s->replication = pt->r;
	s->seed = exp_replication_seed(cfg->seed, pt->r);
	s->copts = &cfg->copts;
	s->horizon_s = cfg->horizon_s;
	s->arrival_jitter_s = cfg->arrival_jitter_s;
	s->policy = exp__strdup(pt->pol);
	s->cluster = cfg->cluster ? exp__strdup(cfg->cluster) : NULL;
	s->trace = cfg->trace ? exp__strdup(cfg->trace) : NULL;
	if (s->policy == NULL || (cfg->cluster && s->cluster == NULL) ||
	    (cfg->trace && s->trace == NULL))
		rc = SIM_ENOMEM;
	for (i = 0; pc != NULL && rc == 0 && i < pc->nparams; i++)
		rc = exp__kv_push(&s->params, &s->nparams, &b->capp,
				  pc->params[i].key, pc->params[i].value,
				  pc->params[i].line);
	for (i = 0; rc == 0 && i < cfg->ngen; i++)
		rc = exp__kv_push(&s->gen, &s->ngen, &b->capg, cfg->gen[i].key,
				  cfg->gen[i].value, cfg->gen[i].line);
	for (i = 0; rc == 0 && i < cfg->nllm; i++)
		rc = exp__kv_push(&s->llm, &s->nllm, &b->capl, cfg->llm[i].key,
				  cfg->llm[i].value, cfg->llm[i].line);
	sb_kv(&b->var, "policy", pt->pol);
	if (rc == 0 && exp__find_dim(cfg, "policy") != NULL)
		rc = exp__kv_push(&s->sweep, &s->nsweep, &b->caps, "policy",
				  pt->pol, exp__find_dim(cfg, "policy")->line);
	return rc;
}

/* Applies one global swept value (horizon_s, cluster, trace, gen.KEY). */
static int spec_global(struct spec_build *b, const struct exp_config *cfg,
		       const struct exp_sweep_dim *d, const char *v,
		       struct sim_err *err)
{
	struct exp_run_spec *s = b->s;
	int rc;

	rc = exp__kv_push(&s->sweep, &s->nsweep, &b->caps, d->key, v, d->line);
	if (rc)
		return rc;
	sb_kv(&b->set, d->key, v);
	if (strcmp(d->key, "horizon_s") == 0) {
		/* checked when the config was read */
		if (sim_num_double(v, NULL, 0, DBL_MAX, &s->horizon_s, err))
			return SIM_EPARSE;
	} else if (strcmp(d->key, "cluster") == 0) {
		free(s->cluster);
		s->cluster = exp__strdup(v);
		if (s->cluster == NULL)
			return SIM_ENOMEM;
	} else if (strcmp(d->key, "trace") == 0) {
		free(s->trace);
		s->trace = exp__resolve_path(cfg->path, v);
		if (s->trace == NULL)
			return SIM_ENOMEM;
	} else if (strncmp(d->key, "gen.", 4) == 0) {
		return exp__kv_set(&s->gen, &s->ngen, &b->capg, d->key + 4, v,
				   d->line);
	} else if (strncmp(d->key, "llm.", 4) == 0) {
		return exp__kv_set(&s->llm, &s->nllm, &b->capl, d->key + 4, v,
				   d->line);
	}
	return 0;
}

/* The cluster's parts, through the one cluster parser. */
static int spec_groups(struct exp_run_spec *s, const struct exp_config *cfg,
		       struct sim_err *err)
{
	struct cluster_part parts[CLUSTER_GROUPS_MAX];
	int n, rc;

	if (s->cluster == NULL)
		return 0;
	rc = cluster_parse_parts(s->cluster, cfg->path, parts, &n, err);
	if (rc)
		return rc;
	s->groups = malloc((size_t)n * sizeof *s->groups);
	if (s->groups == NULL)
		return SIM_ENOMEM;
	memcpy(s->groups, parts, (size_t)n * sizeof *parts);
	s->ngroups = (size_t)n;
	return 0;
}

/* key = setting, variant, replication: unique by construction; variant
** reads "colti headroom=0.2" (the "policy=" prefix dropped). */
static int spec_labels(struct spec_build *b, int r)
{
	struct exp_run_spec *s = b->s;
	struct sim_strbuf key = {0};
	char rep[32];

	if (b->set.n > 0)
		sim_strbuf_add(&key, b->set.s);
	if (b->var.s != NULL && !b->var.oom) {
		if (key.n > 0)
			sim_strbuf_add(&key, " ");
		sim_strbuf_add(&key, b->var.s);
	}
	snprintf(rep, sizeof rep, "%d", r);
	sb_kv(&key, "rep", rep);
	s->key = sb_take(&key);
	s->variant = b->var.s && !b->var.oom ? exp__strdup(b->var.s + 7) :
		     NULL;
	free(b->var.s);
	b->var.s = NULL;
	s->setting = sb_take(&b->set);
	b->set.s = NULL;
	if (s->key == NULL || s->variant == NULL || s->setting == NULL)
		return SIM_ENOMEM;
	return 0;
}

/* Fills spec s for point pt. */
static int build_spec(struct exp_run_spec *s, const struct exp_config *cfg,
		      const struct point *pt, struct sim_err *err)
{
	struct spec_build b;
	size_t i;
	int rc;

	memset(&b, 0, sizeof b);
	b.s = s;
	rc = spec_base(&b, cfg, pt);
	for (i = 0; rc == 0 && i < pt->ng; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[pt->gdims[i]];
		rc = spec_global(&b, cfg, d, d->values[pt->gi[i]], err);
	}
	/* The policy's own dimensions. */
	for (i = 0; rc == 0 && i < pt->np; i++) {
		const struct exp_sweep_dim *d = &cfg->dims[pt->pdims[i]];
		const char *v = d->values[pt->pi[i]];
		const char *pk = strchr(d->key + 7, '.') + 1;
		rc = exp__kv_push(&s->sweep, &s->nsweep, &b.caps, d->key, v,
				  d->line);
		if (rc == 0)
			rc = exp__kv_set(&s->params, &s->nparams, &b.capp, pk,
					 v, d->line);
		sb_kv(&b.var, pk, v);
	}
	if (rc == 0 && (rc = spec_groups(s, cfg, err)) != 0 && err->code != 0) {
		free(b.var.s);
		free(b.set.s);
		return rc;
	}
	if (rc == 0)
		rc = spec_labels(&b, pt->r);
	free(b.var.s);
	free(b.set.s);
	if (rc)
		return sim_err_set(err, rc, "out of memory");
	return 0;
}

/* 1 when dimension d is policy.POL.KEY. */
static int is_policy_dim(const struct exp_sweep_dim *d, const char *pol)
{
	size_t nl = strlen(pol);

	return strncmp(d->key, "policy.", 7) == 0 &&
	       strncmp(d->key + 7, pol, nl) == 0 && d->key[7 + nl] == '.';
}

/* The dimensions of policy pol into pdims/prad; returns their count. */
static size_t policy_dims(const struct exp_config *cfg, const char *pol,
			  size_t *pdims, size_t *prad)
{
	size_t i, n = 0;

	for (i = 0; i < cfg->ndims; i++)
		if (is_policy_dim(&cfg->dims[i], pol)) {
			pdims[n] = i;
			prad[n++] = cfg->dims[i].nvalues;
		}
	return n;
}

/* The matrix being built: the policies, the global dimensions, scratch
** index arrays of ndims + 1 entries. */
struct mbuild {
	const struct exp_config *cfg;
	const char *const *pols;
	size_t npol, ng, cap;
	size_t *gdims, *grad, *gi, *pdims, *prad, *pi;
};

/* Runs of the matrix, counted in floating point so that a huge sweep
** fails before anything is allocated. */
static double count_runs(const struct mbuild *mb)
{
	double g = 1, sum = 0;
	size_t i, p;

	for (i = 0; i < mb->ng; i++)
		g *= (double)mb->grad[i];
	for (p = 0; p < mb->npol; p++) {
		double k = 1;
		for (i = 0; i < mb->cfg->ndims; i++)
			if (is_policy_dim(&mb->cfg->dims[i], mb->pols[p]))
				k *= (double)mb->cfg->dims[i].nvalues;
		sum += k;
	}
	return sum * g * mb->cfg->replications;
}

static int mbuild_init(struct mbuild *mb, const struct exp_config *cfg,
		       const char **single)
{
	const struct exp_sweep_dim *pd = exp__find_dim(cfg, "policy");
	size_t i, nd = cfg->ndims;

	memset(mb, 0, sizeof *mb);
	mb->cfg = cfg;
	if (pd != NULL) {
		mb->pols = (const char *const *)pd->values;
		mb->npol = pd->nvalues;
	} else {
		single[0] = cfg->policy;
		mb->pols = single;
		mb->npol = 1;
	}
	mb->gdims = calloc(nd + 1, sizeof *mb->gdims);
	mb->grad = calloc(nd + 1, sizeof *mb->grad);
	mb->gi = calloc(nd + 1, sizeof *mb->gi);
	mb->pdims = calloc(nd + 1, sizeof *mb->pdims);
	mb->prad = calloc(nd + 1, sizeof *mb->prad);
	mb->pi = calloc(nd + 1, sizeof *mb->pi);
	if (!mb->gdims || !mb->grad || !mb->gi || !mb->pdims || !mb->prad ||
	    !mb->pi)
		return SIM_ENOMEM;
	for (i = 0; i < nd; i++)
		if (strncmp(cfg->dims[i].key, "policy.", 7) != 0 &&
		    strcmp(cfg->dims[i].key, "policy") != 0) {
			mb->gdims[mb->ng] = i;
			mb->grad[mb->ng++] = cfg->dims[i].nvalues;
		}
	return 0;
}

static void mbuild_fini(struct mbuild *mb)
{
	free(mb->gdims);
	free(mb->grad);
	free(mb->gi);
	free(mb->pdims);
	free(mb->prad);
	free(mb->pi);
}

/*
** The streamed matrix.  Run k is decoded from its index, in the order the
** materialized matrix always had (replication outermost, then the global
** point as an odometer whose last dimension turns fastest, then the
** policies, then each policy's own odometer):
**     k = r * (G * B) + g * B + off[p] + j
** with G the global points, B = sum over policies of cnt[p] (the points of
** policy p's own dimensions), off[p] the runs of the policies before p.
** So exp_runs_get builds any run on demand in O(dimensions), and a sweep
** of a million runs holds one spec per run in flight, not a million.
*/
struct exp_runs {
	const struct exp_config *cfg;
	struct mbuild mb;
	const char *single[1];
	size_t n, G, B;
	size_t *cnt, *off;            /* per policy */
	const char *devices_dir, *arrivals_dir;
};

static void decode(size_t v, const size_t *radix, size_t n, size_t *idx)
{
	size_t i = n;

	while (i-- > 0) {
		idx[i] = radix[i] ? v % radix[i] : 0;
		v = radix[i] ? v / radix[i] : 0;
	}
}

int exp_runs_open(struct exp_runs **out, const struct exp_config *cfg,
		  struct sim_err *err)
{
	struct exp_runs *rs = calloc(1, sizeof *rs);
	double n;
	size_t p, i;

	*out = NULL;
	if (rs == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	rs->cfg = cfg;
	if (mbuild_init(&rs->mb, cfg, rs->single) != 0)
		goto oom;
	n = count_runs(&rs->mb);
	if (n > EXP_MAX_RUNS) {
		exp_runs_close(rs);
		return sim_err_set(err, SIM_ERANGE, "%s: the sweep has %.0f "
				   "runs (at most %d)", cfg->path, n,
				   EXP_MAX_RUNS);
	}
	rs->cnt = calloc(rs->mb.npol + 1, sizeof *rs->cnt);
	rs->off = calloc(rs->mb.npol + 1, sizeof *rs->off);
	if (rs->cnt == NULL || rs->off == NULL)
		goto oom;
	rs->G = 1;
	for (i = 0; i < rs->mb.ng; i++)
		rs->G *= rs->mb.grad[i];
	for (p = 0; p < rs->mb.npol; p++) {
		size_t np = policy_dims(cfg, rs->mb.pols[p], rs->mb.pdims,
					rs->mb.prad);
		rs->cnt[p] = 1;
		for (i = 0; i < np; i++)
			rs->cnt[p] *= rs->mb.prad[i];
		rs->off[p] = rs->B;
		rs->B += rs->cnt[p];
	}
	rs->n = (size_t)n;
	*out = rs;
	return 0;
oom:
	exp_runs_close(rs);
	return sim_err_set(err, SIM_ENOMEM, "out of memory");
}

size_t exp_runs_count(const struct exp_runs *rs)
{
	return rs->n;
}

void exp_runs_set_dirs(struct exp_runs *rs, const char *devices_dir,
		       const char *arrivals_dir)
{
	rs->devices_dir = devices_dir;
	rs->arrivals_dir = arrivals_dir;
}

int exp_runs_get(struct exp_runs *rs, size_t k, struct exp_run_spec *s,
		 struct sim_err *err)
{
	struct mbuild *mb = &rs->mb;
	struct point pt;
	size_t rem, j, p = 0;
	int rc;

	memset(s, 0, sizeof *s);
	if (k >= rs->n)
		return sim_err_set(err, SIM_EINVAL, "run %zu of a matrix of "
				   "%zu", k, rs->n);
	pt.r = (int)(k / (rs->G * rs->B));
	rem = k % (rs->G * rs->B);
	decode(rem / rs->B, mb->grad, mb->ng, mb->gi);
	rem %= rs->B;
	while (p + 1 < mb->npol && rem >= rs->off[p + 1])
		p++;
	j = rem - rs->off[p];
	pt.pol = mb->pols[p];
	pt.gdims = mb->gdims;
	pt.gi = mb->gi;
	pt.ng = mb->ng;
	pt.np = policy_dims(rs->cfg, pt.pol, mb->pdims, mb->prad);
	decode(j, mb->prad, pt.np, mb->pi);
	pt.pdims = mb->pdims;
	pt.pi = mb->pi;
	rc = build_spec(s, rs->cfg, &pt, err);
	s->index = (int)k;
	s->devices_dir = rs->devices_dir;
	s->arrivals_dir = rs->arrivals_dir;
	if (rc != 0) {
		exp_run_spec_fini(s);
		return rc;
	}
	return 0;
}

void exp_run_spec_fini(struct exp_run_spec *s)
{
	spec_fini(s);
	memset(s, 0, sizeof *s);
}

void exp_runs_close(struct exp_runs *rs)
{
	if (rs == NULL)
		return;
	mbuild_fini(&rs->mb);
	free(rs->cnt);
	free(rs->off);
	free(rs);
}

int exp_matrix_build(struct exp_matrix *m, const struct exp_config *cfg,
		     struct sim_err *err)
{
	struct exp_runs *rs;
	size_t k, n;
	int rc;

	m->runs = NULL;
	m->nruns = 0;
	if ((rc = exp_runs_open(&rs, cfg, err)) != 0)
		return rc;
	n = exp_runs_count(rs);
	m->runs = calloc(n ? n : 1, sizeof *m->runs);
	if (m->runs == NULL) {
		exp_runs_close(rs);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (k = 0; k < n && rc == 0; k++) {
		rc = exp_runs_get(rs, k, &m->runs[k], err);
		if (rc == 0)
			m->nruns++;
	}
	exp_runs_close(rs);
	if (rc)
		exp_matrix_fini(m);
	return rc;
}

void exp_matrix_fini(struct exp_matrix *m)
{
	size_t i;

	for (i = 0; i < m->nruns; i++)
		spec_fini(&m->runs[i]);
	free(m->runs);
	m->runs = NULL;
	m->nruns = 0;
}
