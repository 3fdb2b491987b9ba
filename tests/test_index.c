/*
** test_index.c: the indexes behind work proportional to what changed
** (issue 20 item 1): sim/oset (ordered set with a subtree least aux) and
** sim/maxtree (max segment tree) against brute force under random
** operations, and the world's GPU indexes (sim/world/world_index.c)
** against scans of the GPUs after every scheduling pass of every policy
** (the policy view's questions, the sample sums, world__index_check).
*/
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/simulate.h"
#include "policies/distmind.h"
#include "policies/dlas.h"
#include "policies/gslice.h"
#include "policies/llm_harvest.h"
#include "policies/policy.h"
#include "policies/pollux.h"
#include "policies/qsched.h"
#include "sim/maxtree.h"
#include "sim/oset.h"
#include "sim/rng.h"
#include "sim/world/result.h"
#include "sim/world/world_int.h"
#include "tests/util.h"
#include "tests/world_util.h"
#include "traces/gen.h"

/* A splitmix64 stream: the same numbers on every run. */
static uint64_t rnd(uint64_t *s)
{
	*s += UINT64_C(0x9e3779b97f4a7c15);
	return sim_mix64(*s);
}

/* ---- sim/oset against a sorted array -------------------------------------- */

struct ent {
	int64_t k1, k2, aux;
	int id, h;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* 1 when (k1, k2, id) >= e's key. */
static int key_le(const struct ent *e, int64_t k1, int64_t k2, int id)
{
	struct ent q = { .k1 = k1, .k2 = k2, .id = id };

	return ent_cmp(e, &q) >= 0;
}

static void test_oset_random(void)
{
	enum { N = 400, OPS = 6000 };
	struct sim_oset s;
	struct ent live[N], sorted[N];
	uint64_t r;
	int n = 0, next_id = 0, op, k, bad = 0;

	r = 20;
	sim_oset_init(&s);
	for (op = 0; op < OPS && !bad; op++) {
		unsigned what = (unsigned)(rnd(&r) % 8);
		int h, i;
		if ((what < 4 && n < N) || n == 0) {
			struct ent e = {
				.k1 = (int64_t)(rnd(&r) % 20) - 10,
				.k2 = (int64_t)(rnd(&r) % 5),
				.aux = (int64_t)(rnd(&r) % 100),
				.id = next_id++,
			};
			e.h = sim_oset_insert(&s, e.k1, e.k2, e.id, e.aux);
			CU_ASSERT_FATAL(e.h >= 0);
			live[n++] = e;
		} else if (what < 6) {
			i = (int)(rnd(&r) % (uint64_t)n);
			sim_oset_remove(&s, live[i].h);
			live[i] = live[--n];
		} else {
			i = (int)(rnd(&r) % (uint64_t)n);
			live[i].k1 = (int64_t)(rnd(&r) % 20) - 10;
			live[i].aux = (int64_t)(rnd(&r) % 100);
			sim_oset_update(&s, live[i].h, live[i].k1, live[i].k2,
					live[i].aux);
		}
		memcpy(sorted, live, (size_t)n * sizeof *sorted);
		qsort(sorted, (size_t)n, sizeof *sorted, ent_cmp);
		if (s.count != n)
			bad = 1;
		/* the walk both ways equals the sorted order */
		for (k = 0, h = sim_oset_first(&s); k < n && h >= 0;
		     k++, h = sim_oset_next(&s, h))
			if (h != sorted[k].h || sim_oset_id(&s, h) !=
			    sorted[k].id || sim_oset_aux(&s, h) != sorted[k].aux)
				bad = 1;
		if (k != n || h != -1)
			bad = 1;
		for (k = n - 1, h = sim_oset_last(&s); k >= 0 && h >= 0;
		     k--, h = sim_oset_prev(&s, h))
			if (h != sorted[k].h)
				bad = 1;
		if (k != -1 || h != -1)
			bad = 1;
		/* a lower bound and an aux search from a random key */
		{
			int64_t k1 = (int64_t)(rnd(&r) % 24) - 12;
			int64_t k2 = (int64_t)(rnd(&r) % 6);
			int64_t bound = (int64_t)(rnd(&r) % 100);
			int id = (int)(rnd(&r) % (uint64_t)(next_id + 1));
			int lb = -1, la = -1;
			for (k = 0; k < n; k++)
				if (key_le(&sorted[k], k1, k2, id)) {
					if (lb < 0)
						lb = sorted[k].h;
					if (sorted[k].aux <= bound) {
						la = sorted[k].h;
						break;
					}
				}
			if (sim_oset_lower_bound(&s, k1, k2, id) != lb ||
			    sim_oset_first_aux_le(&s, k1, k2, id, bound) != la)
				bad = 1;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(op == OPS);
	sim_oset_clear(&s);
	CU_ASSERT_EQUAL(s.count, 0);
	CU_ASSERT_EQUAL(sim_oset_first(&s), -1);
	sim_oset_fini(&s);
}

static void test_oset_dkey(void)
{
	static const double x[] = { -1e300, -2.5, -1e-300, 0.0, 1e-300, 1.0,
				    1.5, 3e9, 1e300 };
	size_t k;

	for (k = 0; k + 1 < sizeof x / sizeof x[0]; k++)
		CU_ASSERT(sim_oset_dkey(x[k]) < sim_oset_dkey(x[k + 1]));
	CU_ASSERT_EQUAL(sim_oset_dkey(-0.0), sim_oset_dkey(0.0));
	CU_ASSERT_EQUAL(sim_oset_dkey(0.0), 0);
}

/* ---- sim/maxtree against an array ---------------------------------------- */

static int i64_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x > y ? -1 : x < y;
}

static void test_maxtree_random(void)
{
	static const int sizes[] = { 0, 1, 2, 5, 37, 64, 100 };
	size_t z;
	int bad = 0;

	for (z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
		int n = sizes[z], op, i;
		struct sim_maxtree t;
		int64_t v[100], sv[100];
		uint64_t r;

		r = 30 + (uint64_t)n;
		CU_ASSERT_EQUAL_FATAL(sim_maxtree_init(&t, n, 0), 0);
		for (i = 0; i < n; i++)
			v[i] = 0;
		if (n == 0)
			CU_ASSERT_EQUAL(sim_maxtree_first_ge(&t, 0, 0), -1);
		for (op = 0; n > 0 && op < 2000; op++) {
			int64_t b, m = INT64_MIN;
			int from, want = -1, kk;
			i = (int)(rnd(&r) % (uint64_t)n);
			v[i] = (int64_t)(rnd(&r) % 50);
			sim_maxtree_set(&t, i, v[i]);
			for (kk = 0; kk < n; kk++)
				m = v[kk] > m ? v[kk] : m;
			if (sim_maxtree_max(&t) != m || sim_maxtree_get(&t, i) !=
			    v[i])
				bad = 1;
			b = (int64_t)(rnd(&r) % 55);
			from = (int)(rnd(&r) % (uint64_t)(n + 1));
			for (kk = from; kk < n && want < 0; kk++)
				if (v[kk] >= b)
					want = kk;
			if (sim_maxtree_first_ge(&t, from, b) != want)
				bad = 1;
			/* the k-th largest, small k and past the 16 the walk
			** keeps on its stack */
			memcpy(sv, v, (size_t)n * sizeof *sv);
			qsort(sv, (size_t)n, sizeof *sv, i64_desc);
			kk = 1 + (int)(rnd(&r) % (uint64_t)n);
			if (sim_maxtree_kth(&t, kk) != sv[kk - 1])
				bad = 1;
		}
		if (n > 0 && sim_maxtree_kth(&t, n + 1) != INT64_MIN)
			bad = 1;
		sim_maxtree_fini(&t);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* ---- the world's GPU indexes against scans ------------------------------- */

static int u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

struct probe {
	int passes, bad;
	char first[200];
};

static void fail(struct probe *p, const struct world *w, const char *what)
{
	if (p->bad++ == 0)
		snprintf(p->first, sizeof p->first, "%s at t=%lld ns (pass %d)",
			 what, (long long)w->sim.now, p->passes);
}

static uint64_t slice_max_free(const struct world *w, int g, int *member_)
{
	struct pol_gpu_info gi = pol_gpu(w, g);
	uint64_t m = 0;
	int s;

	*member_ = 0;
	if (gi.mode != POL_GPU_MIG)
		return 0;
	for (s = 0; s < gi.nslices; s++) {
		struct pol_slice_info si = pol_gpu_slice(w, g, s);
		if (si.mem_used == 0 && (!*member_ || si.hbm_bytes > m)) {
			m = si.hbm_bytes;
			*member_ = 1;
		}
	}
	return m;
}

/* What GPU g offers under `how`; 0 in *in when it is not in that tree. */
static uint64_t offer(const struct world *w, int g, enum pol_fit how,
		      int *in)
{
	if (how == POL_FIT_SLICE)
		return slice_max_free(w, g, in);
	*in = how == POL_FIT_FREE || pol_gpu_ntenants(w, g) == 0;
	return *in ? pol_gpu_free(w, g, -1) : 0;
}

static void check_fits(struct probe *p, const struct world *w, uint64_t b)
{
	static const enum pol_fit hows[] = { POL_FIT_FREE, POL_FIT_IDLE,
					     POL_FIT_SLICE };
	int G = pol_ngpus(w), g, k, n, in;
	uint64_t *v = malloc((size_t)(G ? G : 1) * sizeof *v);
	size_t h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (h = 0; h < sizeof hows / sizeof hows[0]; h++) {
		uint64_t mx = 0, got;
		int from = -1, want;
		n = 0;
		for (g = 0; g < G; g++) {
			uint64_t o = offer(w, g, hows[h], &in);
			if (in)
				v[n++] = o;
			if (in && o > mx)
				mx = o;
		}
		if (pol_gpu_max_fit(w, hows[h]) != mx)
			fail(p, w, "pol_gpu_max_fit");
		/* the first-fit walk meets exactly the GPUs with b bytes */
		for (g = 0; g < G; g++) {
			uint64_t o = offer(w, g, hows[h], &in);
			if (!in || o < b)
				continue;
			want = g;
			from = pol_gpu_next_fit(w, from + 1, b, hows[h]);
			if (from != want) {
				fail(p, w, "pol_gpu_next_fit");
				break;
			}
		}
		if (g == G && pol_gpu_next_fit(w, from + 1, b, hows[h]) != -1)
			fail(p, w, "pol_gpu_next_fit past the last");
		qsort(v, (size_t)n, sizeof *v, u64_desc);
		for (k = 1; k <= n + 1 && k <= 20; k++) {
			int r = pol_gpu_nth_fit(w, k, hows[h], &got);
			if (r != (k <= n) || (r && got != v[k - 1]))
				fail(p, w, "pol_gpu_nth_fit");
		}
	}
	free(v);
}

/* GPU a before GPU b in order ord (their keys now). */
static int before(const struct world *w, enum pol_gpu_order ord, int a,
		  int b)
{
	uint64_t fa = pol_gpu_free(w, a, -1), fb = pol_gpu_free(w, b, -1);
	int ta = pol_gpu_ntenants(w, a), tb = pol_gpu_ntenants(w, b);

	if (ord == POL_ORDER_LEAST_LOADED && ta != tb)
		return ta < tb;
	if (fa != fb)
		return ord == POL_ORDER_BEST_FIT ? fa < fb : fa > fb;
	return a < b;
}

/* GPUs a and b have the same key in order ord. */
static int same_key(const struct world *w, enum pol_gpu_order ord, int a,
		    int b)
{
	return pol_gpu_free(w, a, -1) == pol_gpu_free(w, b, -1) &&
	       (ord == POL_ORDER_BEST_FIT ||
		pol_gpu_ntenants(w, a) == pol_gpu_ntenants(w, b));
}

static void check_orders(struct probe *p, const struct world *w, uint64_t b)
{
	int G = pol_ngpus(w), d, g, o, n, k, prev, last;
	int *want = malloc((size_t)(G ? G : 1) * sizeof *want);

	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	for (d = 0; d < pol_ndevs(w); d++) {
		for (o = 0; o < 2; o++) {
			enum pol_gpu_order ord = o ? POL_ORDER_LEAST_LOADED :
						     POL_ORDER_BEST_FIT;
			/* the expected order: insertion sort of the kind's
			** GPUs with b bytes free */
			n = 0;
			for (g = 0; g < G; g++) {
				if (pol_gpu_dev(w, g) != d ||
				    pol_gpu_free(w, g, -1) < b)
					continue;
				for (k = n; k > 0 && before(w, ord, g,
							    want[k - 1]); k--)
					want[k] = want[k - 1];
				want[k] = g;
				n++;
			}
			g = pol_gpu_order_first(w, d, ord, b);
			for (k = 0; k < n && g == want[k]; k++) {
				int s = pol_gpu_order_skip(w, d, ord, b, g);
				int e = k + 1;
				/* skip lands on the first of the next key */
				while (e < n && same_key(w, ord, want[k],
							 want[e]))
					e++;
				if (s != (e < n ? want[e] : -1))
					fail(p, w, "pol_gpu_order_skip");
				g = pol_gpu_order_next(w, d, ord, b, g);
			}
			if (k != n || g != -1)
				fail(p, w, ord == POL_ORDER_BEST_FIT ?
				     "best-fit order" : "least-loaded order");
		}
		/* most free first, ties by the highest index first */
		prev = -1;
		last = 0;
		for (g = pol_gpu_most_free(w, d, -1); g >= 0;
		     g = pol_gpu_most_free(w, d, g), last++) {
			if (pol_gpu_dev(w, g) != d ||
			    (prev >= 0 && (pol_gpu_free(w, g, -1) >
					   pol_gpu_free(w, prev, -1) ||
					   (pol_gpu_free(w, g, -1) ==
					    pol_gpu_free(w, prev, -1) &&
					    g > prev))))
				fail(p, w, "pol_gpu_most_free");
			prev = g;
		}
		if (last != pol_dev(w, d).ngpus)
			fail(p, w, "pol_gpu_most_free count");
	}
	free(want);
}

/* The pool's routing index against distmind_route over a snapshot of
** every GPU, for every pooled service and a few loads. */
static void check_route(struct probe *p, struct world *w)
{
	static const int lim[][2] = { { 2, 4 }, { 1, 1 }, { 3, 8 } };
	int G = pol_ngpus(w), g, j, k, c;
	int *in = malloc((size_t)G * sizeof *in);
	int *load = malloc((size_t)G * sizeof *load);
	int *has = malloc((size_t)G * sizeof *has);

	if (in == NULL || load == NULL || has == NULL) {
		fail(p, w, "out of memory");
		goto out;
	}
	for (g = 0; g < G; g++) {
		in[g] = pol_pool_in(w, g);
		load[g] = pol_pool_load(w, g);
	}
	for (j = 0; j < pol_njobs(w); j++) {
		if (!pol_pool_serving(w, j))
			continue;
		for (g = 0; g < G; g++)
			has[g] = pol_pool_has_model(w, g, j);
		for (k = 0; k < 3; k++)
			for (c = 0; c < 2; c++)
				if (pol_pool_route(w, j, lim[k][0], lim[k][1],
						   c) !=
				    distmind_route(G, in, load, has,
						   lim[k][0], lim[k][1], c))
					fail(p, w, "pol_pool_route");
	}
out:
	free(in);
	free(load);
	free(has);
}

/* The node indexes (policy interface v9) against a count of every GPU:
** each node's idle GPUs, and the lowest node from every start with k idle
** or wholly idle of at most k GPUs. */
static void check_nodes(struct probe *p, const struct world *w)
{
	int N = pol_nnodes(w), G = pol_ngpus(w), n, g, k, from, want, mx = 0;
	int *idle = calloc((size_t)(N ? N : 1), sizeof *idle);
	int *size = calloc((size_t)(N ? N : 1), sizeof *size);

	if (idle == NULL || size == NULL) {
		fail(p, w, "out of memory");
		goto out;
	}
	for (g = 0; g < G; g++) {
		n = pol_gpu(w, g).node;
		if (n < 0 || n >= N)
			continue;
		size[n]++;
		idle[n] += pol_gpu_ntenants(w, g) == 0;
	}
	for (n = 0; n < N; n++) {
		if (pol_node_idle(w, n) != idle[n])
			fail(p, w, "pol_node_idle");
		if (size[n] > mx)
			mx = size[n];
	}
	for (from = 0; from <= N; from++)
		for (k = 0; k <= mx + 1; k++) {
			for (want = from; want < N && idle[want] < k; want++)
				;
			if (pol_node_next_idle(w, from, k) !=
			    (want < N ? want : -1))
				fail(p, w, "pol_node_next_idle");
			for (want = from; want < N && (idle[want] != size[want]
						       || size[want] > k);
			     want++)
				;
			if (pol_node_next_whole(w, from, k) !=
			    (want < N && k > 0 ? want : -1))
				fail(p, w, "pol_node_next_whole");
		}
out:
	free(idle);
	free(size);
}

/* The policies whose state begins with the queue schedulers' core
** (policies/qsched.h): their what-if index against its counts. */
static int is_qsched(const char *name)
{
	static const char *const names[] = { "srtf", "srsf", "tiresias",
		"gittins", "themis", "gandiva", "muri-s", "muri-l", NULL };
	int k;

	for (k = 0; names[k] != NULL; k++)
		if (strcmp(name, names[k]) == 0)
			return 1;
	return 0;
}

static int on_pass(void *ctx, struct world *w)
{
	struct probe *p = ctx;
	int G = pol_ngpus(w), g, idle = 0;
	double hbm = 0, cap = 0, sm = 0, h2, c2, s2;

	p->passes++;
	if (world__index_check(w) >= 0)
		fail(p, w, "world__index_check");
	/* the policies' own indexes against their scans */
	if (strcmp(w->pol->zName, "llm-harvest") == 0 &&
	    llm_harvest_index_check(w, w->pol_state) >= 0)
		fail(p, w, "llm_harvest_index_check");
	if (strncmp(w->pol->zName, "distmind", 8) == 0)
		check_route(p, w);
	if (is_qsched(w->pol->zName) &&
	    qs_index_check((const struct qsched *)w->pol_state) >= 0)
		fail(p, w, "qs_index_check");
	check_nodes(p, w);
	if (strcmp(w->pol->zName, "pollux") == 0 &&
	    pollux_index_check(w, w->pol_state) >= 0)
		fail(p, w, "pollux_index_check");
	if (strcmp(w->pol->zName, "gittins") == 0 &&
	    gittins_table_check(w->pol_state) >= 0)
		fail(p, w, "gittins_table_check");
	if (strcmp(w->pol->zName, "gslice") == 0 &&
	     gslice_index_check(w, w->pol_state) >= 0)
		fail(p, w, "gslice_index_check");
	for (g = 0; g < G; g++) {
		const struct gpu *gp = &w->gpus[g];
		double used = (double)gp->mem_used;
		double c = (double)gp->dev->hbm_bytes;
		hbm += used > c ? c : used;
		cap += c;
		sm += gp->sm.value;
		idle += pol_gpu_ntenants(w, g) == 0;
	}
	if (pol_gpus_idle(w) != idle)
		fail(p, w, "pol_gpus_idle");
	/* a sample's sums from the indexes: the same doubles, bit for bit */
	if (world__index_totals(w, &h2, &c2, &s2) != 0 || h2 != hbm ||
	    c2 != cap || s2 != sm)
		fail(p, w, "world__index_totals");
	/* the questions are O(G) to check: every pass early on, then every
	** seventh, to keep the suite short */
	if (p->passes <= 20 || p->passes % 25 == 0) {
		check_fits(p, w, 0);
		check_fits(p, w, (uint64_t)10 << 30);
		check_orders(p, w, 0);
		check_orders(p, w, (uint64_t)20 << 30);
	}
	return 0;
}

static const char *gen_trace(const char *name, const char *const *kv)
{
	static char path[600];
	struct gen_opts o;
	struct sim_err err;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
	gen_defaults(&o);
	for (; kv[0] != NULL; kv += 2) {
		sim_err_clear(&err);
		if (gen_set(&o, kv[0], kv[1], &err) != 0)
			return NULL;
	}
	f = fopen(path, "w");
	if (f == NULL)
		return NULL;
	sim_err_clear(&err);
	if (gen_write(f, &o, &err) != 0) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	return path;
}

/* Every registered policy on a mixed trace over two device kinds (and
** MIG under mig): after every pass the indexes equal the scans. */
static void test_world_indexes(void)
{
	static const char *const kv[] = {
		"seed", "5", "jobs", "60", "rate", "0.05",
		"infer-frac", "0.2", "infer-duration-s", "900",
		"dur-median-s", "900", "gpus", "1:6,2:2,4:1",
		NULL, NULL };
	const char *trace = gen_trace("index.csv", kv);
	const struct pol_ops *const *pp;
	int ran = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (pp = pol_registry; *pp != NULL; pp++) {
		/* mig: the A100s alone (the V100 has no MIG profiles) */
		int mig = strcmp((*pp)->zName, "mig") == 0;
		struct exp_sim_args a = tw_sim_args(trace, (*pp)->zName, mig ?
						    "2x4:a100-80gb,1x4:a100-40gb" :
						    "2x4:a100-80gb,1x4:v100-32gb",
						    3);
		struct probe p;
		struct run_result res;
		struct sim_err err;
		int rc;

		memset(&p, 0, sizeof p);
		a.on_pass = on_pass;
		a.pass_ctx = &p;
		run_result_init(&res);
		sim_err_clear(&err);
		rc = exp_simulate_args(&a, &res, &err);
		if (rc != 0)
			fprintf(stderr, "\n  %s: %s", (*pp)->zName, err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		if (p.bad != 0)
			fprintf(stderr, "\n  %s: %d index mismatches, first: %s",
				(*pp)->zName, p.bad, p.first);
		CU_ASSERT_EQUAL(p.bad, 0);
		CU_ASSERT(p.passes > 10);
		ran += rc == 0;
		run_result_fini(&res);
	}
	CU_ASSERT(ran >= 10);
}

/* gittins learning online with a window of 7 on 80 jobs: after every pass
** the sorted sizes it keeps (one out, one in at each finish once the
** window is full) equal a sort of its window. */
static void test_gittins_window(void)
{
	static const char *const kv[] = {
		"seed", "9", "jobs", "80", "rate", "0.05", "infer-frac", "0",
		"dur-median-s", "1800", "gpus", "1:4,2:2,4:1", NULL, NULL };
	const char *trace = gen_trace("index-git.csv", kv);
	struct exp_sim_args a = tw_sim_args(trace, "gittins", "2x8:a100-80gb",
					    3);
	struct pol_param pv[1] = { { "window", "7", "test" } };
	struct pol_params pp = { 1, pv };
	struct probe p;
	struct run_result res;
	struct sim_err err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	memset(&p, 0, sizeof p);
	a.params = &pp;
	a.on_pass = on_pass;
	a.pass_ctx = &p;
	run_result_init(&res);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(exp_simulate_args(&a, &res, &err), 0);
	if (p.bad != 0)
		fprintf(stderr, "\n  gittins: %d mismatches, first: %s", p.bad,
			p.first);
	CU_ASSERT_EQUAL(p.bad, 0);
	CU_ASSERT(p.passes > 80);
	/* 79 done, one failed (seed 9): over 7 finishes, so sizes went out */
	CU_ASSERT(run_result_get(&res, "jobs_done") >= 70);
	run_result_fini(&res);
}

/* The queue schedulers, node-consolidated, and pollux (its node index
** after every pass), on nodes of 8, 4 and 2 GPUs
** with jobs of up to 16 (whole nodes plus a rest): after every pass the
** node indexes and the what-if index equal their scans. */
static void test_qsched_nodes(void)
{
	static const char *const kv[] = {
		"seed", "9", "jobs", "80", "rate", "0.05", "infer-frac", "0",
		"dur-median-s", "1800", "gpus", "1:4,2:2,4:2,8:1,12:1,16:1",
		NULL, NULL };
	static const char *const pols[] = { "srtf", "srsf", "tiresias",
		"gittins", "themis", "gandiva", "pollux", NULL };
	const char *trace = gen_trace("index-nodes.csv", kv);
	int k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(trace);
	for (k = 0; pols[k] != NULL; k++) {
		struct exp_sim_args a = tw_sim_args(trace, pols[k],
						    "2x8:a100-80gb,3x4:a100-80gb,"
						    "2x2:v100-32gb", 3);
		struct pol_param pv[1] = { { "placement", "node", "test" } };
		struct pol_params pp = { 1, pv };
		struct probe p;
		struct run_result res;
		struct sim_err err;
		int rc;

		memset(&p, 0, sizeof p);
		if (strcmp(pols[k], "pollux") != 0)
			a.params = &pp;   /* pollux: its own rule */
		a.on_pass = on_pass;
		a.pass_ctx = &p;
		run_result_init(&res);
		sim_err_clear(&err);
		rc = exp_simulate_args(&a, &res, &err);
		if (rc != 0)
			fprintf(stderr, "\n  %s: %s", pols[k], err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		if (p.bad != 0)
			fprintf(stderr, "\n  %s: %d index mismatches, first: %s",
				pols[k], p.bad, p.first);
		CU_ASSERT_EQUAL(p.bad, 0);
		CU_ASSERT(p.passes > 10);
		run_result_fini(&res);
	}
}

TEST_REGISTER(index)
{
	static const struct test_case cases[] = {
		{ "oset against a sorted array", test_oset_random },
		{ "oset double keys", test_oset_dkey },
		{ "maxtree against an array", test_maxtree_random },
		{ "world GPU indexes against scans, every policy",
		  test_world_indexes },
		{ "queue schedulers' node indexes on mixed node sizes",
		  test_qsched_nodes },
		{ "gittins's sorted window against a sort of it",
		  test_gittins_window },
		{ NULL, NULL }
	};
	return test_add_suite("index", cases);
}
