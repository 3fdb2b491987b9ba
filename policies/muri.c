/*
** muri.c: Muri (SIGCOMM'22): multi-resource interleaving of up to four
** training jobs with the same GPU count on the same GPUs, the groups
** chosen by maximum-weight matching (policies/blossom.c) on Muri's
** resource-use weight (models/interleave.c), re-decided at every arrival
** and completion.  Two orders, as Muri's simulator
** (Rivendile/Muri simulator/run_sim.py multi_resource_blossom_same_sim_jobs
** with gputime):
**
**   muri-s  remaining solo time x GPUs, smallest first (duration known)
**   muri-l  attained service, wall time run x GPUs, smallest first
**           (duration unknown)
**
** A pass (docs/POLICIES.md, "muri-s, muri-l"):
**   1. jobs in that order (stable); walking it on an empty cluster with the
**      placement (qsched.h, node by default as Muri's yarn), each job that
**      fits opens a slot that admits it and the next three jobs of its GPU
**      count (the candidates);
**   2. while the candidates need more GPUs than the cluster has, up to four
**      rounds: per GPU count, a graph of the current groups with an edge
**      between two whose union has at most four jobs, weighted by
**      il_used_ratio; a maximum-weight matching; matched pairs merge, in
**      the matching's order, until the candidates fit;
**   3. a group whose round time exceeds the sum of its jobs' solo
**      iteration times is split ("autopack"); groups are ordered by their
**      smallest key and taken, fit-first, on an empty cluster;
**   4. the chosen groups are placed, larger GPU counts first, each group's
**      jobs on the same GPUs; groups already running as such stay.
** GPUs are in interleave mode (models/gpu.h): a group's jobs run at their
** solo iteration time over the group's round time.  Jobs without
** per-resource times (res_*_ms) run alone (a group of one).
**
** Cost per event (A active jobs, G GPUs; n a GPU count's candidates,
** at most 4 G / its GPU count, 232 on Muri's trace4): the qsched core's
** pass (qsched.h), then per round and GPU count the graph's key O(n), a
** matching memoised by it (MURI_GC slots, 80 % of trace4's graphs) or
** else the graph O(n^2) (round times memoised by job types) and the
** maximum-weight matching O(n^3) (blossom.c, one reused graph), which is
** most of the time (bl_solve and its search ~60 %); the policy's own
** walks read each active job's record (struct mu_priv: its trace times,
** memory and type read once at arrival), not pol_job's snapshot; a pair's
** round time is read from a type x type table.  trace4 (2,638 jobs, 61 k
** matchings, 12.9 k solved, the matcher ~80 % of the time) 18.3-21.5
** CPU-s muri-s, trace2 7.1-8.0, at load 3-4 on 2 cores
** (docs/PERFORMANCE.md, "w8-muri"; muri-l 27-33 and 8.6-11.4: short of
** 100x Muri's simulator there).  Worst case: a long queue of one GPU
** count (n = 4 G every event).
*/
#include "policies/qsched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/blossom.h"

#define MURI_KEYS 32
#define IL_MAX_JOBS 4                 /* Muri's packing_num, the most */

/* One job's times in ms, for the memo's type table and the weight. */
struct il_job {
	double res[3];
	double iter;
};

struct mpack {
	int n;
	int job[IL_MAX_JOBS];
	double key;                   /* smallest member key */
	int gpus;
};

/* Round times memoised by the group's job types (jobs with the same
** per-resource and iteration times share a type): the matching asks for
** the same few groups many times a pass. */
#define MURI_MEMO 4096                /* type table slots */
#define MURI_RMEMO 65536              /* round-time slots (a miss costs
					 pol_interleave_round_ms) */
/* Pairs of the first MURI_T2 type ids, directly: most of a graph's
** edges join two packs of one (round times are a function of the types
** alone, so any cache of them gives the same value). */
#define MURI_T2 64
struct memo_slot {
	int key[IL_MAX_JOBS];         /* sorted type ids, -1 padded; key[0]
					 == -2: empty */
	double tt;
};

/* Matchings memoised by their graph: a graph is the sequence of its
** vertices' (packs') member types, in member order, and memory sums; the
** edges and weights are a function of it (mem_fits, used_ratio through
** the type-memoised round time), so equal keys give the same matching,
** tie order included.  Direct-mapped by the key's hash. */
#define MURI_GC 512
#define GC_W (IL_MAX_JOBS + 1)        /* key words per vertex */
struct gc_ent {
	uint64_t h;
	int n;                        /* vertices; 0: empty */
	int64_t *key;                 /* n x GC_W */
	int *mate;                    /* n */
};

struct type_slot {
	double v[4];                  /* res0..2, iter */
	int id;                       /* -1: empty */
};

/* A job's pol_job_priv: qsched's state, then what the passes read of
** the job, read once at its arrival: the trace's times and GPU 0's
** device's memory are fixed for a job's life (pol_job_mem is a function
** of the job and the device; these policies never resize), so no pass
** takes a pol_job snapshot for them. */
struct mu_priv {
	struct qs_job q;
	int type;                     /* type_id's; -1: none */
	int groupable;                /* resource times and iteration time */
	struct il_job il;             /* times in ms */
	double rsum;                  /* il.res[0] + il.res[1] + il.res[2] */
	uint64_t mem;                 /* pol_job_mem(j, 0) */
};

/* Active job j's record (NULL: none, as pol_job_priv). */
static const struct mu_priv *mu_of(const struct world *w, int j)
{
	return pol_job_priv(w, j);
}

/* The record of the active order's k-th job (actx[k] is its qs_job, the
** record's first member). */
static struct mu_priv *mu_act(struct qsched *q, int k)
{
	return (struct mu_priv *)q->actx[k];
}

/* Active job j's type id (-1: none). */
static int type_of(const struct world *w, int j)
{
	const struct mu_priv *p = mu_of(w, j);

	return p != NULL ? p->type : -1;
}

struct muri {
	struct qsched q;
	struct memo_slot *memo;
	double *tt2;                  /* MURI_T2 x MURI_T2, lo x hi; NaN:
					 not known */
	struct type_slot *types;
	int ntypes;
	int attained;                 /* muri-l */
	const char *name;
	int placement;                /* parameters */
	int max_pack;
	int autopack;
	/* scratch, sized to the active jobs */
	struct mpack *pk, *pk2;       /* groups; the next round's */
	int npk, npk2, cap;
	int *used, *mate, *cand;
	int *agpus, *aflag;           /* per active index, this pass: GPUs,
					 AF_* flags (candidates) */
	int nkeys, keys[MURI_KEYS];
	int *gpus_of;                 /* per pack: its GPUs (max GPUs each) */
	int *placed;                  /* per pack: 1 when placed this pass */
	struct gc_ent *gc;            /* matchings by graph (MURI_GC slots) */
	struct bl_graph *bg;          /* the matcher, reused (bl_reset) */
	int bg_n;                     /* the n it was created for */
	double pused[512];            /* this graph: pack's resource sum, */
	double pterm[512][IL_MAX_JOBS]; /* its jobs' terms, */
	int ptype[512][IL_MAX_JOBS];  /* their type ids, */
	uint64_t pmem[512];           /* its memory sum */
	int64_t gkey[512 * GC_W];     /* scratch: this graph's key */
};

static const struct pol_param_def muri_params[] = {
	POL_PARAM_CHOICE("placement", struct muri, placement, qs_place_names,
			 "node", "node: a group within one node, larger ones on "
			 "whole nodes (Muri's yarn); any: any free GPUs"),
	POL_PARAM_INT("max_pack", struct muri, max_pack, 1, IL_MAX_JOBS, "4",
		      "most jobs interleaved on the same GPUs (packing_num)"),
	POL_PARAM_BOOL("autopack", struct muri, autopack, "1",
		       "split a group slower than its jobs one after another"),
	POL_PARAM_END
};

static int muri_init_common(struct world *w, struct muri *m, const char *name,
			    const struct pol_params *p, struct sim_err *err)
{
	int rc, g;

	(void)p;
	m->name = name;
	m->memo = malloc(MURI_RMEMO * sizeof *m->memo);
	m->types = malloc(MURI_MEMO * sizeof *m->types);
	m->gc = calloc(MURI_GC, sizeof *m->gc);
	m->tt2 = malloc(MURI_T2 * MURI_T2 * sizeof *m->tt2);
	if (m->memo == NULL || m->types == NULL || m->gc == NULL ||
	    m->tt2 == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < MURI_RMEMO; g++)
		m->memo[g].key[0] = -2;
	for (g = 0; g < MURI_MEMO; g++)
		m->types[g].id = -1;
	for (g = 0; g < MURI_T2 * MURI_T2; g++)
		m->tt2[g] = NAN;
	if ((rc = qs_init(&m->q, w, m->placement, err)) != 0)
		return rc;
	for (g = 0; g < pol_ngpus(w); g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_INTERLEAVE,
					   err)) != 0)
			return rc;
	return 0;
}

static int muris_init(struct world *w, void *s, const struct pol_params *p,
		      struct sim_err *err)
{
	return muri_init_common(w, s, "muri-s", p, err);
}

static int muril_init(struct world *w, void *s, const struct pol_params *p,
		      struct sim_err *err)
{
	((struct muri *)s)->attained = 1;
	return muri_init_common(w, s, "muri-l", p, err);
}

static void muri_fini(struct world *w, void *s)
{
	struct muri *m = s;
	int k;
	(void)w;
	qs_fini(&m->q);
	for (k = 0; m->gc != NULL && k < MURI_GC; k++) {
		free(m->gc[k].key);
		free(m->gc[k].mate);
	}
	free(m->gc);
	bl_destroy(m->bg);
	free(m->memo);
	free(m->tt2);
	free(m->types);
	free(m->pk);
	free(m->pk2);
	free(m->used);
	free(m->mate);
	free(m->cand);
	free(m->gpus_of);
	free(m->placed);
	free(m->agpus);
	free(m->aflag);
}

static unsigned hash_dbl(const double *v, int n)
{
	unsigned h = 2166136261u;
	int i;

	for (i = 0; i < n; i++) {
		const unsigned char *b = (const unsigned char *)&v[i];
		size_t k;
		for (k = 0; k < sizeof v[i]; k++)
			h = (h ^ b[k]) * 16777619u;
	}
	return h;
}

/* The type id of times x (res, iter); -1 when the table is full. */
static int type_id(struct muri *m, struct il_job x)
{
	double v[4] = { x.res[0], x.res[1], x.res[2], x.iter };
	unsigned h = hash_dbl(v, 4) & (MURI_MEMO - 1);
	int probes;

	for (probes = 0; probes < MURI_MEMO; probes++) {
		struct type_slot *t = &m->types[h];
		if (t->id < 0) {
			if (m->ntypes >= MURI_MEMO / 2)
				return -1;
			memcpy(t->v, v, sizeof v);
			t->id = m->ntypes++;
			return t->id;
		}
		if (memcmp(t->v, v, sizeof v) == 0)
			return t->id;
		h = (h + 1) & (MURI_MEMO - 1);
	}
	return -1;
}

static int muri_arrival(struct world *w, void *s, int j)
{
	struct muri *m = s;
	int rc = qs_arrive(&m->q, w, j, m->name);

	struct pol_job_info ji;
	struct il_job il;
	int type;

	if (rc < 0)
		return rc;
	ji = pol_job(w, j);
	il.res[0] = ji.res_ms[0];
	il.res[1] = ji.res_ms[1];
	il.res[2] = ji.res_ms[2];
	il.iter = (double)ji.iter_ns / 1e6;
	type = type_id(m, il);          /* every arrival's: ids in order */
	if (rc > 0) {
		struct mu_priv *p = pol_job_priv(w, j);
		p->type = type;
		p->groupable = ji.has_res && ji.iter_ns > 0;
		p->il = il;
		p->rsum = il.res[0] + il.res[1] + il.res[2];
		p->mem = pol_job_mem(w, j, 0);
	}
	return 0;
}

static int muri_finish(struct world *w, void *s, int j)
{
	struct muri *m = s;
	qs_finish(&m->q, w, j);
	return 0;
}

enum { AF_SWAP_OUT = 1, AF_GROUPABLE = 2 };

static int grow(struct muri *m, struct world *w)
{
	int n = m->q.nact + 1;

	if (n <= m->cap)
		return 0;
	n = n < 64 ? 64 : 2 * n;
	free(m->pk);
	free(m->pk2);
	free(m->used);
	free(m->mate);
	free(m->cand);
	free(m->gpus_of);
	free(m->placed);
	free(m->agpus);
	free(m->aflag);
	m->agpus = malloc((size_t)n * sizeof *m->agpus);
	m->aflag = malloc((size_t)n * sizeof *m->aflag);
	m->pk = malloc((size_t)n * sizeof *m->pk);
	m->pk2 = malloc((size_t)n * sizeof *m->pk2);
	m->used = malloc((size_t)n * sizeof *m->used);
	m->mate = malloc((size_t)n * sizeof *m->mate);
	m->cand = malloc((size_t)n * sizeof *m->cand);
	m->gpus_of = malloc((size_t)n * (size_t)pol_ngpus(w) *
			    sizeof *m->gpus_of);
	m->placed = malloc((size_t)n * sizeof *m->placed);
	m->cap = n;
	return m->pk && m->pk2 && m->used && m->mate && m->cand &&
		m->agpus && m->aflag &&
		m->gpus_of && m->placed ? 0 : SIM_ENOMEM;
}

static double pack_round_raw(struct muri *m, struct world *w,
			     const struct mpack *a, const struct mpack *b)
{
	int jobs[IL_MAX_JOBS];
	int n = 0, i;

	(void)m;
	for (i = 0; i < a->n; i++)
		jobs[n++] = a->job[i];
	for (i = 0; b != NULL && i < b->n; i++)
		jobs[n++] = b->job[i];
	return pol_interleave_round_ms(w, jobs, n);
}

/* pack_round_key's memo, by the ids sorted in place (key[0..n) >= 0). */
static double pack_round_memo(struct muri *m, struct world *w,
			      const struct mpack *a, const struct mpack *b,
			      int *key, int n)
{
	int i, k;
	unsigned h;
	struct memo_slot *e;

	for (i = 1; i < n; i++)                 /* sort the ids */
		for (k = i; k > 0 && key[k - 1] > key[k]; k--) {
			int t = key[k];
			key[k] = key[k - 1];
			key[k - 1] = t;
		}
	h = 2166136261u;
	for (i = 0; i < IL_MAX_JOBS; i++)
		h = (h ^ (unsigned)(key[i] + 2)) * 16777619u;
	e = &m->memo[h & (MURI_RMEMO - 1)];
	if (e->key[0] != -2 &&
	    memcmp(e->key, key, IL_MAX_JOBS * sizeof *key) == 0)
		return e->tt;
	memcpy(e->key, key, IL_MAX_JOBS * sizeof *key); /* direct-mapped:
							   replace */
	e->tt = pack_round_raw(m, w, a, b);
	return e->tt;
}

/* The round time of packs a and b (b NULL: a alone), memoised by the
** n member type ids in key (a's members', then b's; -1 padded to
** IL_MAX_JOBS; a negative id: not memoisable); two ids under MURI_T2
** in m->tt2. */
static double pack_round_key(struct muri *m, struct world *w,
			     const struct mpack *a, const struct mpack *b,
			     int *key, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (key[i] < 0)
			return pack_round_raw(m, w, a, b);
	if (n == 2 && key[0] < MURI_T2 && key[1] < MURI_T2) {
		int lo = key[0] < key[1] ? key[0] : key[1];
		double *t = &m->tt2[lo * MURI_T2 + key[0] + key[1] - lo];
		if (isnan(*t))
			*t = pack_round_memo(m, w, a, b, key, n);
		return *t;
	}
	return pack_round_memo(m, w, a, b, key, n);
}

/* The round time of pack a alone, memoised by its jobs' types. */
static double pack_round(struct muri *m, struct world *w,
			 const struct mpack *a)
{
	int key[IL_MAX_JOBS] = { -1, -1, -1, -1 }, n = 0, i;

	for (i = 0; i < a->n; i++)
		key[n++] = type_of(w, a->job[i]);
	return pack_round_key(m, w, a, NULL, key, n);
}

/* used_ratio of packs idx[u] and idx[v] of this graph, from the sums
** pack_sums kept: the same additions in the same order. */
static double used_ratio_uv(struct muri *m, struct world *w, const int *idx,
			    int u, int v)
{
	const struct mpack *a = &m->pk[idx[u]], *b = &m->pk[idx[v]];
	double used = m->pused[u], tt;
	int key[IL_MAX_JOBS] = { -1, -1, -1, -1 }, n = 0, i;

	for (i = 0; i < a->n; i++)
		key[n++] = m->ptype[u][i];
	for (i = 0; i < b->n; i++) {
		used += m->pterm[v][i];
		key[n++] = m->ptype[v][i];
	}
	tt = pack_round_key(m, w, a, b, key, n);
	return tt > 0 ? used / (tt * 4.0) : 0;
}

/* The per-pack sums of this graph's packs idx[0..n) (n <= 512): its
** members' type ids (the round-time memo's key), the
** resource-use sum of the weight and the memory (GPU 0's device, the
** yardstick of every comparison here: a pair is an edge only if its
** union fits one GPU; Muri's simulator does not model GPU memory,
** colosim does not pair jobs that cannot share). */
static void pack_sums(struct muri *m, const struct world *w, const int *idx,
		      int n)
{
	int u, i;

	for (u = 0; u < n; u++) {
		const struct mpack *p = &m->pk[idx[u]];
		m->pused[u] = 0;
		m->pmem[u] = 0;
		for (i = 0; i < p->n; i++) {
			const struct mu_priv *x = mu_of(w, p->job[i]);
			m->ptype[u][i] = x->type;
			m->pterm[u][i] = x->rsum;
			m->pused[u] += m->pterm[u][i];
			m->pmem[u] += x->mem;
		}
	}
}

static int key_index(struct muri *m, int gpus)
{
	int k;

	for (k = 0; k < m->nkeys; k++)
		if (m->keys[k] == gpus)
			return k;
	if (m->nkeys == MURI_KEYS)
		return -1;
	m->keys[m->nkeys] = gpus;
	return m->nkeys++;
}

/* 1 if job j is being copied off its GPUs (preempt_cost = swap): it
** cannot be placed before the copy ends, so it is no candidate (as in
** qs_apply). */
static int swapping_out(const struct world *w, int j)
{
	return pol_job_state(w, j) == POL_JOB_SWAPPING_OUT;
}

/* 1 if a swap copy is in flight: its GPUs are held until it ends. */
static int copy_in_flight(struct muri *m, struct world *w)
{
	int k;

	for (k = 0; k < m->q.nact; k++) {
		int s = pol_job_state(w, m->q.act[k]);
		if (s == POL_JOB_SWAPPING_OUT || s == POL_JOB_SWAPPING_IN)
			return 1;
	}
	return 0;
}

/* Step 1: the candidates, as packs of one, grouped by GPU count in the
** order the counts first appear; returns the GPUs they need. */
static long candidates(struct muri *m, struct world *w)
{
	int k, i;
	long need = 0;

	/* the jobs' GPUs and flags, read once: nothing changes in this
	** step (the walk below reads them O(A) times a job) */
	m->nkeys = 0;
	for (k = 0; k < m->q.nact; k++) {
		const struct mu_priv *x = mu_act(&m->q, k);
		m->used[k] = 0;
		m->agpus[k] = x->q.gpus;
		m->aflag[k] = (swapping_out(w, m->q.act[k]) ? AF_SWAP_OUT : 0) |
			(x->groupable ? AF_GROUPABLE : 0);
		key_index(m, m->agpus[k]);
	}
	qs_whatif(&m->q, w);
	m->npk = 0;
	for (k = 0; k < m->q.nact; k++) {
		int g = m->agpus[k];
		int ki = key_index(m, g), taken = 0;
		if (m->used[k] || ki < 0 || (m->aflag[k] & AF_SWAP_OUT) ||
		    !qs_fits(&m->q, g))
			continue;
		/* admit the next max_pack jobs of this GPU count (this one
		** first: the earlier ones are taken already) */
		for (i = k; i < m->q.nact && taken < m->max_pack; i++) {
			int jj = m->q.act[i];
			if (m->used[i] || m->agpus[i] != g ||
			    (m->aflag[i] & AF_SWAP_OUT))
				continue;
			if (taken > 0 && (!(m->aflag[i] & AF_GROUPABLE) ||
					  !(m->aflag[k] & AF_GROUPABLE)))
				break;     /* without resource times: alone */
			m->used[i] = 1;
			m->cand[m->npk] = ki;
			m->pk[m->npk].n = 1;
			m->pk[m->npk].job[0] = jj;
			m->pk[m->npk].key = m->q.actx[i]->key;
			m->pk[m->npk].gpus = g;
			m->npk++;
			taken++;
			need += g;
		}
	}
	return need;
}

/* The key of the graph of packs idx[0..n) into m->gkey; 0 if a member
** has no type id (then the weights are not a function of the types). */
static int gc_key(struct muri *m, struct world *w, const int *idx, int n)
{
	int u, i;

	for (u = 0; u < n; u++) {
		const struct mpack *p = &m->pk[idx[u]];
		int64_t *k = &m->gkey[(size_t)u * GC_W];
		uint64_t mem = 0;
		for (i = 0; i < IL_MAX_JOBS; i++) {
			k[i] = i < p->n ? type_of(w, p->job[i]) : -1;
			if (i < p->n && k[i] < 0)
				return 0;
		}
		for (i = 0; i < p->n; i++)
			mem += mu_of(w, p->job[i])->mem;
		k[IL_MAX_JOBS] = (int64_t)mem;
	}
	return 1;
}

/* 1 and the matching in m->mate if this graph's is known; else *slot is
** the slot to store it in (NULL: not memoisable). */
static int gc_find(struct muri *m, struct world *w, const int *idx, int n,
		   struct gc_ent **slot)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i, len = (size_t)n * GC_W;
	struct gc_ent *e;

	*slot = NULL;
	if (!gc_key(m, w, idx, n))
		return 0;
	for (i = 0; i < len; i++)
		h = (h ^ (uint64_t)m->gkey[i]) * 1099511628211ULL;
	e = &m->gc[h % MURI_GC];
	if (e->n == n && e->h == h &&
	    memcmp(e->key, m->gkey, len * sizeof *e->key) == 0) {
		memcpy(m->mate, e->mate, (size_t)n * sizeof *m->mate);
		return 1;
	}
	e->h = h;
	*slot = e;
	return 0;
}

/* Stores m->gkey and m->mate (n vertices) in slot e (replacing it). */
static int gc_store(struct gc_ent *e, struct muri *m, int n)
{
	size_t len = (size_t)n * GC_W;

	free(e->key);
	free(e->mate);
	e->key = malloc(len * sizeof *e->key);
	e->mate = malloc((size_t)n * sizeof *e->mate);
	if (e->key == NULL || e->mate == NULL) {
		free(e->key);
		free(e->mate);
		e->key = NULL;
		e->mate = NULL;
		e->n = 0;
		return SIM_ENOMEM;
	}
	memcpy(e->key, m->gkey, len * sizeof *e->key);
	memcpy(e->mate, m->mate, (size_t)n * sizeof *e->mate);
	e->n = n;
	return 0;
}

/* The matcher emptied for n vertices: one graph kept and reset (the
** same matching as a new one, blossom.h); NULL when out of memory.  Its
** size grows in steps of 32 vertices (a new graph costs O(size^2)). */
static struct bl_graph *matcher(struct muri *m, int n)
{
	if (n > m->bg_n) {
		int c = n < 64 ? 64 : (n + 31) / 32 * 32;
		bl_destroy(m->bg);
		m->bg_n = 0;
		if ((m->bg = bl_create(c)) == NULL)
			return NULL;
		m->bg_n = c;
	}
	return bl_reset(m->bg, n) == 0 ? m->bg : NULL;
}

/* Step 2, one round: per GPU count, match the current packs (m->pk, key
** index in m->cand) and merge matched pairs while *need > cluster GPUs.
** The next round's packs are written to m->pk2, then swapped in.  The
** new order is the matching's: a pair where its later member stood. */
static int blossom_round(struct muri *m, struct world *w, long *need)
{
	long cluster = pol_ngpus(w);
	int k, ki, n2 = 0;

	for (ki = 0; ki < m->nkeys; ki++) {
		int idx[512], n = 0, u, v;
		struct bl_graph *g;
		struct gc_ent *e = NULL;
		int any = 0;

		uint64_t hbm = pol_gpu(w, 0).hbm_bytes;  /* fixed: read once */

		for (k = 0; k < m->npk && n < 512; k++)
			if (m->cand[k] == ki)
				idx[n++] = k;
		if (n == 0)
			continue;
		for (u = 0; u < n; u++)
			m->mate[u] = -1;
		if (n > 1 && gc_find(m, w, idx, n, &e))
			goto matched;
		g = NULL;
		if (n > 1 && (g = matcher(m, n)) == NULL)
			return SIM_ENOMEM;
		if (g != NULL)
			pack_sums(m, w, idx, n);
		for (u = 0; g != NULL && u < n; u++)
			for (v = u + 1; v < n; v++) {
				const struct mpack *a = &m->pk[idx[u]];
				const struct mpack *b = &m->pk[idx[v]];
				double wt;
				/* mem_fits(a, b), from the sums */
				if (a->n + b->n > m->max_pack ||
				    m->pmem[u] + m->pmem[v] > hbm)
					continue;
				wt = used_ratio_uv(m, w, idx, u, v);
				if (wt > 0 && !(wt <= 1e-5 * wt)) {
					bl_edge(g, u, v, wt);
					any = 1;
				}
			}
		if (any)
			bl_solve(g, m->mate);
		if (e != NULL && gc_store(e, m, n) != 0)
			return SIM_ENOMEM;
matched:
		for (u = 0; u < n; u++) {
			int mate = m->mate[u];
			if (mate >= 0 && mate > u)
				continue;          /* taken at its partner */
			if (mate >= 0 && *need > cluster) {
				struct mpack p = m->pk[idx[mate]];
				const struct mpack *b = &m->pk[idx[u]];
				int i;
				for (i = 0; i < b->n; i++)
					p.job[p.n++] = b->job[i];
				if (b->key < p.key)
					p.key = b->key;
				*need -= p.gpus;
				m->pk2[n2] = p;
				m->used[n2++] = ki;
			} else {
				if (mate >= 0) {
					m->pk2[n2] = m->pk[idx[mate]];
					m->used[n2++] = ki;
				}
				m->pk2[n2] = m->pk[idx[u]];
				m->used[n2++] = ki;
			}
		}
	}
	memcpy(m->pk, m->pk2, (size_t)n2 * sizeof *m->pk);
	memcpy(m->cand, m->used, (size_t)n2 * sizeof *m->cand);
	m->npk = n2;
	return 0;
}

/* Step 3: split groups that run slower interleaved than one after
** another; order by smallest key (stable); keep those that fit an empty
** cluster in that order.  The kept packs end in m->pk[0..npk). */
static void autopack(struct muri *m, struct world *w)
{
	int k, i, n2 = 0;

	for (k = 0; k < m->npk; k++) {
		const struct mpack *p = &m->pk[k];
		double sum = 0;
		for (i = 0; i < p->n; i++)
			sum += mu_of(w, p->job[i])->il.iter;
		if (m->autopack && p->n > 1 && pack_round(m, w, p) / sum > 1)
			for (i = 0; i < p->n; i++) {
				struct mpack one = { 1, { p->job[i] },
						     qs_job(w, p->job[i])->key,
						     p->gpus };
				m->pk2[n2++] = one;
			}
		else
			m->pk2[n2++] = *p;
	}
	for (k = 1; k < n2; k++) {              /* stable by key */
		struct mpack x = m->pk2[k];
		for (i = k; i > 0 && m->pk2[i - 1].key > x.key; i--)
			m->pk2[i] = m->pk2[i - 1];
		m->pk2[i] = x;
	}
	qs_whatif(&m->q, w);
	m->npk = 0;
	for (k = 0; k < n2; k++)
		if (qs_fits(&m->q, m->pk2[k].gpus))
			m->pk[m->npk++] = m->pk2[k];
}

/* 1 if pack p runs as such now: every member running, all on the same
** GPUs, with no other tenant there. */
static int intact(struct muri *m, struct world *w, const struct mpack *p)
{
	struct pol_job_info a = pol_job(w, p->job[0]);
	int i, k;

	(void)m;
	for (i = 0; i < p->n; i++) {
		struct pol_job_info x = pol_job(w, p->job[i]);
		if ((x.state != POL_JOB_RUNNING &&
		     x.state != POL_JOB_SWAPPING_IN) ||
		    x.nplaced != a.nplaced)
			return 0;
		for (k = 0; k < x.nplaced; k++)
			if (pol_job_tenant(w, p->job[i], k).gpu !=
			    pol_job_tenant(w, p->job[0], k).gpu)
				return 0;
	}
	for (k = 0; k < a.nplaced; k++)
		if (pol_gpu_ntenants(w, pol_job_tenant(w, p->job[0], k).gpu) !=
		    p->n)
			return 0;
	return 1;
}

/* Places pack p's members on the GPUs in q->gpus. */
static int place_pack(struct muri *m, struct world *w, const struct mpack *p)
{
	struct sim_err e = { 0, "" };
	int gp[1024], i, rc;

	if (p->gpus > 1024)
		return 0;
	memcpy(gp, m->q.gpus, (size_t)p->gpus * sizeof *gp);
	for (i = 0; i < p->n; i++) {
		int st = pol_job_state(w, p->job[i]);
		if (st != POL_JOB_PENDING && st != POL_JOB_PREEMPTED)
			continue;
		rc = pol_place(w, p->job[i], gp, p->gpus, NULL, &e);
		if (rc < 0 && rc != SIM_ENOSPC && rc != SIM_ESTATE)
			return rc;
	}
	return 0;
}

/* Step 4: realise the chosen packs, larger GPU counts first. */
static int realise(struct muri *m, struct world *w)
{
	struct sim_err e = { 0, "" };
	int k, i, rc, repacked = 0;

	for (k = 1; k < m->npk; k++) {          /* stable by GPUs, desc */
		struct mpack x = m->pk[k];
		for (i = k; i > 0 && m->pk[i - 1].gpus < x.gpus; i--)
			m->pk[i] = m->pk[i - 1];
		m->pk[i] = x;
	}
	for (k = 0; k < m->q.nact; k++)
		m->q.actx[k]->want = 0;
	for (k = 0; k < m->npk; k++) {
		m->placed[k] = intact(m, w, &m->pk[k]);
		for (i = 0; i < m->pk[k].n; i++)
			qs_job(w, m->pk[k].job[i])->want =
				1 + m->placed[k];
	}
	/* off: jobs not chosen, and members of packs not running as such */
	for (k = 0; k < m->q.nact; k++) {
		int j = m->q.act[k];
		if (m->q.actx[k]->want != 2 &&
		    pol_job_state(w, j) == POL_JOB_RUNNING &&
		    (rc = pol_preempt(w, j, &e)) != 0)
			return rc;
	}
again:
	for (k = 0; k < m->npk; k++) {
		if (m->placed[k])
			continue;
		if (!qs_choose(&m->q, w, m->pk[k].gpus)) {
			/* re-pack once; not while a swap copy holds GPUs
			** (the pack waits for the copy, as in qs_apply:
			** re-packing then swaps out every running job and
			** the copies' ends re-pack again) */
			if (repacked || copy_in_flight(m, w))
				continue;
			repacked = 1;
			for (i = 0; i < m->q.nact; i++)
				if (pol_job_state(w, m->q.act[i]) ==
				    POL_JOB_RUNNING &&
				    (rc = pol_preempt(w, m->q.act[i], &e)) != 0)
					return rc;
			for (i = 0; i < m->npk; i++)
				m->placed[i] = 0;
			pol_add_metric(w, "qsched_repacks", 1);
			goto again;
		}
		if ((rc = place_pack(m, w, &m->pk[k])) != 0)
			return rc;
		m->placed[k] = 1;
	}
	return 0;
}

static int muri_schedule(struct world *w, void *s)
{
	struct muri *m = s;
	long need;
	int k, round, rc;

	if ((rc = grow(m, w)) != 0)
		return rc;
	qs_settle(&m->q, w);
	for (k = 0; k < m->q.nact; k++) {
		int j = m->q.act[k];
		struct qs_job *x = m->q.actx[k];
		double g = (double)x->gpus;
		x->key = m->attained ? x->total_exec_ns * g :
			pol_job_remaining_ns(w, j, 0) * g;
	}
	qs_sort(&m->q, w);
	need = candidates(m, w);
	/* the first round always runs (its matching orders the packs), the
	** next ones while the candidates need more GPUs than there are */
	for (round = 0; round < m->max_pack; round++) {
		if ((rc = blossom_round(m, w, &need)) != 0)
			return rc;
		if (need <= pol_ngpus(w))
			break;
	}
	autopack(m, w);
	return realise(m, w);
}

const struct pol_ops pol_muri_s = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "muri-s",
	.zDesc = "Muri-S: multi-resource interleaving of up to 4 same-size "
		 "jobs, blossom-matched, shortest remaining service first "
		 "(SIGCOMM'22)",
	.szState = sizeof(struct muri),
	.szJob = sizeof(struct mu_priv),
	.xInit = muris_init,
	.xFini = muri_fini,
	.xOnArrival = muri_arrival,
	.xOnFinish = muri_finish,
	.xSchedule = muri_schedule,
	.aParam = muri_params,
};

const struct pol_ops pol_muri_l = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "muri-l",
	.zDesc = "Muri-L: multi-resource interleaving, blossom-matched, least "
		 "attained service first (durations unknown; SIGCOMM'22)",
	.szState = sizeof(struct muri),
	.szJob = sizeof(struct mu_priv),
	.xInit = muril_init,
	.xFini = muri_fini,
	.xOnArrival = muri_arrival,
	.xOnFinish = muri_finish,
	.xSchedule = muri_schedule,
	.aParam = muri_params,
};
