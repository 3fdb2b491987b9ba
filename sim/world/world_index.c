/*
** world_index.c: the world core's indexes over its GPUs (world_int.h,
** "indexes"; docs/ARCHITECTURE.md, "Indexes"), so that a policy finds the
** GPUs it can use, and a statistics sample sums the cluster, without a
** scan of every GPU.
**
** What is kept, per GPU as of its last change (world__index_gpu, called
** by world__gpu_changed, which every change of a GPU's tenants, memory or
** speeds is followed by, and by the mode and MIG layout actions):
**   - max trees (sim/maxtree.h) over GPU indices of the free memory of
**     every GPU, of idle GPUs only (no tenant), and of the largest empty
**     MIG slice: "the lowest GPU from g on with B bytes free" in O(log G);
**   - the number of idle GPUs and of empty MIG slices;
**   - per device kind, built on the first question that needs them, two
**     ordered sets (sim/oset.h): by free memory (best fit) and by
**     (tenants, most free memory) (least loaded), ties by GPU index;
**   - the cluster's allocated bytes (capped at each GPU's capacity) and
**     capacity, as integers, and a bitmap of the GPUs whose SM use is not
**     0: a sample adds the busy GPUs' SM use in index order, which is the
**     same double sum, bit for bit, as adding every GPU's;
**   - the GPUs changed since the last scheduling pass ended;
**   - per node, its idle GPUs, and two max trees over node indices: of
**     the idle count ("the lowest node from n on with k idle GPUs") and,
**     for a node all of whose GPUs are idle, of max_node + 1 - its size
**     ("the lowest wholly idle node of at most k GPUs"), in O(log N):
**     the queue schedulers' node-consolidated placement (policies/qsched.c).
** An update costs O(log G) per tree and ordered set whose key changed (a
** unit that begins or ends changes none of them); a GPU change that only
** moves speeds touches the SM bitmap alone.
**
** Invariant: for every GPU, the entries equal what its struct gpu says
** (world__index_check recomputes them, for tests).
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim/world/world_int.h"

enum { ORD_BF = 0, ORD_LL = 1 };

struct gix_gpu {
	int64_t free;                 /* gpu_mem_free(-1) */
	int nt;                       /* tenants */
	int nslfree;                  /* empty MIG slices */
	int64_t slmax;                /* largest empty slice's bytes; -1 */
	uint64_t used_clip;           /* min(mem_used, capacity) */
	int smnz;                     /* sm.value != 0 */
};

struct world_gix {
	int ndevs;
	const struct dev_profile *devs[CLUSTER_GROUPS_MAX];
	int dev_gpu[CLUSTER_GROUPS_MAX], dev_ngpus[CLUSTER_GROUPS_MAX];
	int *gpu_dev;
	struct gix_gpu *g;
	struct sim_maxtree t_free, t_idle, t_slice;
	int nidle, nslices_free;
	uint64_t used_sum, cap_sum;
	uint64_t *smnz;               /* bitmap, (G + 63) / 64 words */
	int have[2];                  /* the ordered sets are built */
	struct sim_oset os[2][CLUSTER_GROUPS_MAX];
	int *oh[2];                   /* per GPU: its handle */
	int *chg, nchg;               /* changed since the last pass */
	unsigned char *in_chg;
	int nnodes, max_node;         /* nodes; the most GPUs on one */
	int *node_idle, *node_size;   /* per node: idle GPUs, GPUs */
	struct sim_maxtree t_nidle;   /* per node: idle GPUs */
	struct sim_maxtree t_nwhole;  /* per node: max_node + 1 - size when
					 every GPU is idle, else 0 */
	int failed;                   /* an ordered set could not grow */
};

/* A tree's value for a GPU that is in it with v bytes (0: not in it),
** so that "at least B bytes" is ">= B + 1" and 0 bytes still counts. */
static int64_t member(int64_t v) { return v + 1; }

/* Node n's entries in the node trees, from its idle count. */
static void node_set(struct world_gix *x, int n)
{
	sim_maxtree_set(&x->t_nidle, n, x->node_idle[n]);
	sim_maxtree_set(&x->t_nwhole, n, x->node_size[n] > 0 &&
			x->node_idle[n] == x->node_size[n] ?
			x->max_node + 1 - x->node_size[n] : 0);
}

/* GPU g's node, or -1 outside the node table. */
static int gpu_node(const struct world *w, int g)
{
	int n = w->gpus[g].node;

	return n >= 0 && n < w->gix->nnodes ? n : -1;
}

static void gix_values(const struct gpu *gp, struct gix_gpu *o)
{
	uint64_t cap = gp->dev->hbm_bytes;
	int s;

	o->free = (int64_t)gpu_mem_free(gp, -1);
	o->nt = gp->ntenants;
	o->used_clip = gp->mem_used < cap ? gp->mem_used : cap;
	o->smnz = gp->sm.value != 0;
	o->nslfree = 0;
	o->slmax = -1;
	if (gp->mode != GPU_MODE_MIG)
		return;
	for (s = 0; s < gp->nslices; s++)
		if (gp->slices[s].mem_used == 0) {
			o->nslfree++;
			if ((int64_t)gp->slices[s].hbm_bytes > o->slmax)
				o->slmax = (int64_t)gp->slices[s].hbm_bytes;
		}
}

static void oset_key(const struct gix_gpu *v, int ord, int64_t *k1,
		     int64_t *k2)
{
	if (ord == ORD_BF) {
		*k1 = v->free;
		*k2 = 0;
	} else {
		*k1 = v->nt;
		*k2 = -v->free;
	}
}

/* Builds ordered set `ord` of every device kind from the GPUs' entries. */
static int build(const struct world *w, int ord)
{
	struct world_gix *x = w->gix;      /* the indexes are the core's cache */
	int g;

	x->oh[ord] = malloc((size_t)(w->ngpus ? w->ngpus : 1) *
			    sizeof *x->oh[ord]);
	if (x->oh[ord] == NULL)
		return SIM_ENOMEM;
	for (g = 0; g < w->ngpus; g++) {
		int64_t k1, k2;
		int h;
		oset_key(&x->g[g], ord, &k1, &k2);
		h = sim_oset_insert(&x->os[ord][x->gpu_dev[g]], k1, k2, g, 0);
		if (h < 0)
			return h;
		x->oh[ord][g] = h;
	}
	x->have[ord] = 1;
	return 0;
}

/* GPU g's first entries (the ordered sets are built later, from these). */
static void add_gpu(struct world *w, int g)
{
	struct world_gix *x = w->gix;
	struct gix_gpu *v = &x->g[g];

	gix_values(&w->gpus[g], v);
	if (v->smnz)
		x->smnz[g / 64] |= (uint64_t)1 << (g % 64);
	x->used_sum += v->used_clip;
	sim_maxtree_set(&x->t_free, g, member(v->free));
	sim_maxtree_set(&x->t_idle, g, v->nt == 0 ? member(v->free) : 0);
	x->nidle += v->nt == 0;
	sim_maxtree_set(&x->t_slice, g, v->slmax >= 0 ? member(v->slmax) : 0);
	x->nslices_free += v->nslfree;
	if (gpu_node(w, g) >= 0)
		x->node_idle[gpu_node(w, g)] += v->nt == 0;
}

int world__index_init(struct world *w, struct sim_err *err)
{
	struct world_gix *x = calloc(1, sizeof *x);
	size_t n = (size_t)(w->ngpus ? w->ngpus : 1);
	int g, d, o;

	w->gix = x;
	if (x == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (o = 0; o < 2; o++)
		for (d = 0; d < CLUSTER_GROUPS_MAX; d++)
			sim_oset_init(&x->os[o][d]);
	x->gpu_dev = calloc(n, sizeof *x->gpu_dev);
	x->g = calloc(n, sizeof *x->g);
	x->smnz = calloc((n + 63) / 64, sizeof *x->smnz);
	x->chg = malloc(n * sizeof *x->chg);
	x->in_chg = calloc(n, 1);
	x->nnodes = w->cl != NULL && w->cl->nnodes > 0 ? w->cl->nnodes : 0;
	x->node_idle = calloc((size_t)(x->nnodes ? x->nnodes : 1),
			      sizeof *x->node_idle);
	x->node_size = calloc((size_t)(x->nnodes ? x->nnodes : 1),
			      sizeof *x->node_size);
	if (x->gpu_dev == NULL || x->g == NULL || x->smnz == NULL ||
	    x->chg == NULL || x->in_chg == NULL || x->node_idle == NULL ||
	    x->node_size == NULL ||
	    sim_maxtree_init(&x->t_free, w->ngpus, 0) != 0 ||
	    sim_maxtree_init(&x->t_idle, w->ngpus, 0) != 0 ||
	    sim_maxtree_init(&x->t_slice, w->ngpus, 0) != 0 ||
	    sim_maxtree_init(&x->t_nidle, x->nnodes, 0) != 0 ||
	    sim_maxtree_init(&x->t_nwhole, x->nnodes, 0) != 0)
		return sim_err_set(err, SIM_ENOMEM, "out of memory for the "
				   "GPU indexes of %d GPUs", w->ngpus);
	for (g = 0; g < w->ngpus; g++)
		if (gpu_node(w, g) >= 0)
			x->node_size[gpu_node(w, g)]++;
	for (d = 0; d < x->nnodes; d++)
		if (x->node_size[d] > x->max_node)
			x->max_node = x->node_size[d];
	for (g = 0; g < w->ngpus; g++) {
		const struct dev_profile *dp = w->gpus[g].dev;
		for (d = 0; d < x->ndevs && x->devs[d] != dp; d++)
			;
		if (d == x->ndevs) {
			/* a kind per cluster group at most */
			assert(d < CLUSTER_GROUPS_MAX);
			x->devs[d] = dp;
			x->dev_gpu[d] = g;
			x->ndevs++;
		}
		x->dev_ngpus[d]++;
		x->gpu_dev[g] = d;
		x->cap_sum += dp->hbm_bytes;
		add_gpu(w, g);
	}
	for (d = 0; d < x->nnodes; d++)
		node_set(x, d);
	return 0;
}

void world__index_fini(struct world *w)
{
	struct world_gix *x = w->gix;
	int o, d;

	if (x == NULL)
		return;
	for (o = 0; o < 2; o++) {
		for (d = 0; d < CLUSTER_GROUPS_MAX; d++)
			sim_oset_fini(&x->os[o][d]);
		free(x->oh[o]);
	}
	sim_maxtree_fini(&x->t_free);
	sim_maxtree_fini(&x->t_idle);
	sim_maxtree_fini(&x->t_slice);
	sim_maxtree_fini(&x->t_nidle);
	sim_maxtree_fini(&x->t_nwhole);
	free(x->node_idle);
	free(x->node_size);
	free(x->gpu_dev);
	free(x->g);
	free(x->smnz);
	free(x->chg);
	free(x->in_chg);
	free(x);
	w->gix = NULL;
}

void world__index_gpu(struct world *w, int g)
{
	struct world_gix *x = w->gix;
	struct gix_gpu nv, *ov = &x->g[g];
	int o;

	gix_values(&w->gpus[g], &nv);
	if (!x->in_chg[g]) {
		x->in_chg[g] = 1;
		x->chg[x->nchg++] = g;
	}
	if (nv.smnz != ov->smnz) {
		if (nv.smnz)
			x->smnz[g / 64] |= (uint64_t)1 << (g % 64);
		else
			x->smnz[g / 64] &= ~((uint64_t)1 << (g % 64));
	}
	x->used_sum = x->used_sum - ov->used_clip + nv.used_clip;
	if (nv.free != ov->free || nv.nt != ov->nt) {
		sim_maxtree_set(&x->t_free, g, member(nv.free));
		sim_maxtree_set(&x->t_idle, g, nv.nt == 0 ? member(nv.free) : 0);
		x->nidle += (nv.nt == 0) - (ov->nt == 0);
		if ((nv.nt == 0) != (ov->nt == 0) && gpu_node(w, g) >= 0) {
			int n = gpu_node(w, g);
			x->node_idle[n] += (nv.nt == 0) - (ov->nt == 0);
			node_set(x, n);
		}
		for (o = 0; o < 2; o++) {
			int64_t k1, k2;
			if (!x->have[o])
				continue;
			oset_key(&nv, o, &k1, &k2);
			sim_oset_update(&x->os[o][x->gpu_dev[g]], x->oh[o][g],
					k1, k2, 0);
		}
	}
	if (nv.slmax != ov->slmax)
		sim_maxtree_set(&x->t_slice, g, nv.slmax >= 0 ?
				member(nv.slmax) : 0);
	x->nslices_free += nv.nslfree - ov->nslfree;
	*ov = nv;
}

/* The node counts and trees against a count of every GPU: -1, or
** w->ngpus on a difference. */
static int node_check(const struct world *w)
{
	const struct world_gix *x = w->gix;
	int *idle = calloc((size_t)(x->nnodes ? x->nnodes : 1), sizeof *idle);
	int *size = calloc((size_t)(x->nnodes ? x->nnodes : 1), sizeof *size);
	int g, n, bad = idle == NULL || size == NULL;

	for (g = 0; g < w->ngpus && !bad; g++)
		if ((n = gpu_node(w, g)) >= 0) {
			size[n]++;
			idle[n] += w->gpus[g].ntenants == 0;
		}
	for (n = 0; n < x->nnodes && !bad; n++) {
		int64_t whole = size[n] > 0 && idle[n] == size[n] ?
			x->max_node + 1 - size[n] : 0;
		bad = idle[n] != x->node_idle[n] ||
			size[n] != x->node_size[n] ||
			sim_maxtree_get(&x->t_nidle, n) != idle[n] ||
			sim_maxtree_get(&x->t_nwhole, n) != whole;
	}
	free(idle);
	free(size);
	return bad ? w->ngpus : -1;
}

int world__index_check(const struct world *w)
{
	const struct world_gix *x = w->gix;
	uint64_t used = 0;
	int g, o, idle = 0, slfree = 0;

	for (g = 0; g < w->ngpus; g++) {
		struct gix_gpu v;
		gix_values(&w->gpus[g], &v);
		if (v.free != x->g[g].free || v.nt != x->g[g].nt ||
		    v.slmax != x->g[g].slmax || v.nslfree != x->g[g].nslfree ||
		    v.smnz != x->g[g].smnz ||
		    sim_maxtree_get(&x->t_free, g) != member(v.free) ||
		    sim_maxtree_get(&x->t_idle, g) !=
		    (v.nt == 0 ? member(v.free) : 0) ||
		    sim_maxtree_get(&x->t_slice, g) !=
		    (v.slmax >= 0 ? member(v.slmax) : 0) ||
		    !(x->smnz[g / 64] >> (g % 64) & 1) != !v.smnz)
			return g;
		for (o = 0; o < 2; o++) {
			const struct sim_oset *os = &x->os[o][x->gpu_dev[g]];
			int64_t k1, k2;
			int h;
			if (!x->have[o])
				continue;
			h = x->oh[o][g];
			oset_key(&v, o, &k1, &k2);
			if (sim_oset_id(os, h) != g ||
			    sim_oset_k1(os, h) != k1 || sim_oset_k2(os, h) != k2)
				return g;
		}
		idle += v.nt == 0;
		slfree += v.nslfree;
		used += v.used_clip;
	}
	if (idle != x->nidle || slfree != x->nslices_free ||
	    used != x->used_sum)
		return w->ngpus;
	return node_check(w);
}

/* ---- nodes ------------------------------------------------------------------ */

int world_node_idle(const struct world *w, int n)
{
	const struct world_gix *x = w->gix;

	return n >= 0 && n < x->nnodes ? x->node_idle[n] : 0;
}

int world_node_next_idle(const struct world *w, int from, int k)
{
	const struct world_gix *x = w->gix;

	if (from < 0)
		from = 0;
	if (from >= x->nnodes)
		return -1;
	return sim_maxtree_first_ge(&x->t_nidle, from, k > 0 ? k : 0);
}

int world_node_next_whole(const struct world *w, int from, int max_gpus)
{
	const struct world_gix *x = w->gix;
	int64_t bound;

	if (from < 0)
		from = 0;
	if (from >= x->nnodes || max_gpus < 1)
		return -1;
	/* size <= max_gpus  <=>  max_node + 1 - size >= max_node + 1 -
	** max_gpus; a node not wholly idle holds 0, below every bound */
	bound = (int64_t)x->max_node + 1 - max_gpus;
	return sim_maxtree_first_ge(&x->t_nwhole, from, bound > 1 ? bound : 1);
}

/* ---- device kinds ---------------------------------------------------------- */

int world_ndevs(const struct world *w) { return w->gix->ndevs; }

const struct dev_profile *world_dev(const struct world *w, int d)
{
	return d >= 0 && d < w->gix->ndevs ? w->gix->devs[d] : NULL;
}

int world_dev_gpu(const struct world *w, int d)
{
	return d >= 0 && d < w->gix->ndevs ? w->gix->dev_gpu[d] : -1;
}

int world_dev_ngpus(const struct world *w, int d)
{
	return d >= 0 && d < w->gix->ndevs ? w->gix->dev_ngpus[d] : 0;
}

int world_gpu_dev(const struct world *w, int g)
{
	return g >= 0 && g < w->ngpus ? w->gix->gpu_dev[g] : -1;
}

/* ---- questions -------------------------------------------------------------- */

int world_gpus_idle(const struct world *w) { return w->gix->nidle; }

int world_slices_free(const struct world *w)
{
	return w->gix->nslices_free;
}

static const struct sim_maxtree *tree(const struct world *w,
				      enum world_fit how)
{
	return how == WORLD_FIT_IDLE ? &w->gix->t_idle :
		how == WORLD_FIT_SLICE ? &w->gix->t_slice : &w->gix->t_free;
}

int world_gpu_next_fit(const struct world *w, int from, uint64_t bytes,
		       enum world_fit how)
{
	if (bytes >= (uint64_t)INT64_MAX)
		return -1;
	return sim_maxtree_first_ge(tree(w, how), from,
				    member((int64_t)bytes));
}

uint64_t world_gpu_max_fit(const struct world *w, enum world_fit how)
{
	int64_t m = sim_maxtree_max(tree(w, how));

	return m > 0 ? (uint64_t)(m - 1) : 0;
}

int world_gpu_nth_fit(const struct world *w, int n, enum world_fit how,
		      uint64_t *bytes)
{
	int64_t m = sim_maxtree_kth(tree(w, how), n);

	if (m <= 0)                   /* fewer than n GPUs in it */
		return 0;
	*bytes = (uint64_t)(m - 1);
	return 1;
}

/* Ordered set `ord` of kind d, built on first use (NULL: out of memory,
** which world__index_failed reports). */
static struct sim_oset *oset_of(const struct world *w, int ord, int d)
{
	struct world_gix *x = w->gix;

	if (!x->have[ord] && !x->failed && build(w, ord) != 0)
		x->failed = 1;
	return x->have[ord] ? &x->os[ord][d] : NULL;
}

/* The first entry of s from handle h on (h itself when it qualifies) that
** has at least `bytes` free; least-loaded skips to the next tenant count
** when an entry falls short (the rest of its count has less free). */
static int qualify(const struct sim_oset *s, int ord, int h, int64_t bytes)
{
	while (h >= 0) {
		int64_t free_b = ord == ORD_BF ? sim_oset_k1(s, h) :
			-sim_oset_k2(s, h);
		/* best fit starts at the first with enough and ascends */
		if (ord == ORD_BF || free_b >= bytes)
			return h;
		h = sim_oset_lower_bound(s, sim_oset_k1(s, h) + 1, INT64_MIN,
					 INT_MIN);
	}
	return -1;
}

int world_gpu_order_first(const struct world *w, int d, enum world_order ord,
			  uint64_t bytes)
{
	const struct sim_oset *s;
	int o = ord == WORLD_ORDER_LEAST_LOADED ? ORD_LL : ORD_BF, h;

	if (d < 0 || d >= w->gix->ndevs || bytes >= (uint64_t)INT64_MAX ||
	    (s = oset_of(w, o, d)) == NULL)
		return -1;
	h = o == ORD_BF ? sim_oset_lower_bound(s, (int64_t)bytes, INT64_MIN,
					       INT_MIN) : sim_oset_first(s);
	h = qualify(s, o, h, (int64_t)bytes);
	return h >= 0 ? sim_oset_id(s, h) : -1;
}

int world_gpu_order_next(const struct world *w, int d, enum world_order ord,
			 uint64_t bytes, int g)
{
	const struct sim_oset *s;
	int o = ord == WORLD_ORDER_LEAST_LOADED ? ORD_LL : ORD_BF, h;

	if (d < 0 || d >= w->gix->ndevs || g < 0 || g >= w->ngpus ||
	    w->gix->gpu_dev[g] != d || bytes >= (uint64_t)INT64_MAX ||
	    (s = oset_of(w, o, d)) == NULL)
		return -1;
	h = sim_oset_next(s, w->gix->oh[o][g]);
	h = qualify(s, o, h, (int64_t)bytes);
	return h >= 0 ? sim_oset_id(s, h) : -1;
}

int world_gpu_order_skip(const struct world *w, int d, enum world_order ord,
			 uint64_t bytes, int g)
{
	const struct sim_oset *s;
	int o = ord == WORLD_ORDER_LEAST_LOADED ? ORD_LL : ORD_BF, h;

	if (d < 0 || d >= w->gix->ndevs || g < 0 || g >= w->ngpus ||
	    w->gix->gpu_dev[g] != d || bytes >= (uint64_t)INT64_MAX ||
	    (s = oset_of(w, o, d)) == NULL)
		return -1;
	h = w->gix->oh[o][g];
	h = sim_oset_lower_bound(s, sim_oset_k1(s, h), sim_oset_k2(s, h) + 1,
				 INT_MIN);
	h = qualify(s, o, h, (int64_t)bytes);
	return h >= 0 ? sim_oset_id(s, h) : -1;
}

/* The last (most free) GPU of kind d in best-fit order, and the one
** before g: the largest free memories, for bounds. */
int world_gpu_most_free(const struct world *w, int d, int before)
{
	const struct sim_oset *s;
	int h;

	if (d < 0 || d >= w->gix->ndevs || (s = oset_of(w, ORD_BF, d)) == NULL)
		return -1;
	if (before < 0)
		h = sim_oset_last(s);
	else if (before < w->ngpus && w->gix->gpu_dev[before] == d)
		h = sim_oset_prev(s, w->gix->oh[ORD_BF][before]);
	else
		return -1;
	return h >= 0 ? sim_oset_id(s, h) : -1;
}

int world__index_failed(const struct world *w) { return w->gix->failed; }

/* ---- changed GPUs ------------------------------------------------------------ */

int world_nchanged(const struct world *w) { return w->gix->nchg; }

int world_changed_at(const struct world *w, int k)
{
	return k >= 0 && k < w->gix->nchg ? w->gix->chg[k] : -1;
}

void world__index_pass_done(struct world *w)
{
	struct world_gix *x = w->gix;
	int k;

	for (k = 0; k < x->nchg; k++)
		x->in_chg[x->chg[k]] = 0;
	x->nchg = 0;
}

/* ---- the cluster's totals for a statistics sample ---------------------------- */

int world__index_totals(const struct world *w, double *hbm, double *cap,
			double *sm)
{
	const struct world_gix *x = w->gix;
	size_t k, nw = ((size_t)w->ngpus + 63) / 64;
	double s = 0;

	/* exact as a double sum in index order only below 2^53 */
	if (x->cap_sum >= ((uint64_t)1 << 53))
		return -1;
	for (k = 0; k < nw; k++) {
		uint64_t m = x->smnz[k];
		while (m != 0) {
			int b = __builtin_ctzll(m);
			s += w->gpus[k * 64 + (size_t)b].sm.value;
			m &= m - 1;
		}
	}
	*hbm = (double)x->used_sum;
	*cap = (double)x->cap_sum;
	*sm = s;
	return 0;
}
