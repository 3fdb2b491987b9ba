/*
** test_blossom.c: the maximum-weight matcher (policies/blossom.c) against
** its reference: the matcher as it was at fb140d9 (below, verbatim but
** for the names), the order of operations of Muri's _Blossom_Same.  The
** fast one must return the same matching, tie order included (muri's
** decisions depend on it), on graphs with many equal weights, with a
** graph reused through bl_reset across sizes; and a maximum one, against
** brute force on small graphs (tests/test_sched.c).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/blossom.h"
#include "tests/util.h"

/* ---- the reference (policies/blossom.c at fb140d9) ------------------- */

struct ref_graph;
static void ref_destroy(struct ref_graph *g);

struct ref_e {
	int u, v;
	double w;
};

struct ref_graph {
	int n, nx, cap;               /* vertices; vertices + blossoms; rows */
	struct ref_e *g;               /* cap x cap */
	double *lab;
	int *match, *slack, *st, *pa, *S, *vis, t;
	int *flo, *nflo;              /* flower of x: flo[x*cap ..], nflo[x] */
	int *from;                    /* flower_from: cap x (n+1) */
	int *q, qh, qt;               /* search queue (FIFO) */
	int *tmp;                     /* scratch: breadth-first pushes */
	/* the slack of x's edge from slack[x], memoised while the labels
	** stay (sdgen[x] == labgen): the same sum, computed once */
	double *sd;
	unsigned *sdgen, labgen;
};

#define E(gr, a, b) ((gr)->g[(size_t)(a) * (size_t)(gr)->cap + (size_t)(b)])
#define FLO(gr, x) (&(gr)->flo[(size_t)(x) * (size_t)(gr)->cap])
#define FROM(gr, x, y) ((gr)->from[(size_t)(x) * (size_t)((gr)->n + 1) + \
				   (size_t)(y)])

/* Muri's my_cmp: 0 when x and y are close (relative 1e-5) or x < y. */
static int gt(double x, double y)
{
	double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);

	if (fabs(x - y) <= 1e-5 * m)
		return 0;
	return x > y;
}

static struct ref_graph *ref_create(int n)
{
	struct ref_graph *g = calloc(1, sizeof *g);
	size_t c;

	if (g == NULL || n < 1)
		return free(g), NULL;
	g->n = n;
	g->cap = 2 * n + 2;
	c = (size_t)g->cap;
	g->g = calloc(c * c, sizeof *g->g);
	g->lab = calloc(c, sizeof *g->lab);
	g->match = calloc(c, sizeof *g->match);
	g->slack = calloc(c, sizeof *g->slack);
	g->st = calloc(c, sizeof *g->st);
	g->pa = calloc(c, sizeof *g->pa);
	g->S = calloc(c, sizeof *g->S);
	g->vis = calloc(c, sizeof *g->vis);
	g->flo = calloc(c * c, sizeof *g->flo);
	g->nflo = calloc(c, sizeof *g->nflo);
	g->from = calloc(c * (size_t)(n + 1), sizeof *g->from);
	g->q = calloc(c * c, sizeof *g->q);
	g->tmp = calloc(c * 4, sizeof *g->tmp);
	g->sd = calloc(c, sizeof *g->sd);
	g->sdgen = calloc(c, sizeof *g->sdgen);
	if (!g->sd || !g->sdgen || !g->g || !g->lab || !g->match || !g->slack || !g->st || !g->pa ||
	    !g->S || !g->vis || !g->flo || !g->nflo || !g->from || !g->q ||
	    !g->tmp) {
		ref_destroy(g);
		return NULL;
	}
	for (int u = 0; u < g->cap; u++)
		for (int v = 0; v < g->cap; v++) {
			E(g, u, v).u = u;
			E(g, u, v).v = v;
		}
	return g;
}

static void ref_destroy(struct ref_graph *g)
{
	if (g == NULL)
		return;
	free(g->g);
	free(g->lab);
	free(g->match);
	free(g->slack);
	free(g->st);
	free(g->pa);
	free(g->S);
	free(g->vis);
	free(g->flo);
	free(g->nflo);
	free(g->from);
	free(g->q);
	free(g->tmp);
	free(g->sd);
	free(g->sdgen);
	free(g);
}

static void ref_edge(struct ref_graph *g, int u, int v, double w)
{
	E(g, u + 1, v + 1).w = w;
	E(g, v + 1, u + 1).w = w;
}

static double dist(const struct ref_graph *g, const struct ref_e *e)
{
	return g->lab[e->u] + g->lab[e->v] - E(g, e->u, e->v).w * 2.0;
}

/* dist of x's slack edge (slack[x] != 0). */
static double slack_dist(struct ref_graph *g, int x)
{
	if (g->sdgen[x] != g->labgen) {
		g->sd[x] = dist(g, &E(g, g->slack[x], x));
		g->sdgen[x] = g->labgen;
	}
	return g->sd[x];
}

static void update_slack(struct ref_graph *g, int u, int x)
{
	double du = dist(g, &E(g, u, x));

	if (g->slack[x] == 0 || du < slack_dist(g, x)) {
		g->slack[x] = u;
		g->sd[x] = du;
		g->sdgen[x] = g->labgen;
	}
}

static void set_slack(struct ref_graph *g, int x)
{
	g->slack[x] = 0;
	for (int u = 1; u <= g->n; u++)
		if (E(g, u, x).w > 0 && g->st[u] != x && g->S[g->st[u]] == 0)
			update_slack(g, u, x);
}

/* Pushes the vertices of x (x itself, or a blossom's leaves breadth
** first) onto the search queue. */
static void q_push(struct ref_graph *g, int x)
{
	int h = 0, t = 0;

	g->tmp[t++] = x;
	while (h < t) {
		int y = g->tmp[h++];
		if (y <= g->n) {
			g->q[g->qt++] = y;
			continue;
		}
		for (int i = 0; i < g->nflo[y]; i++)
			g->tmp[t++] = FLO(g, y)[i];
	}
}

static void set_st(struct ref_graph *g, int x, int b)
{
	g->st[x] = b;
	if (x <= g->n)
		return;
	for (int i = 0; i < g->nflo[x]; i++)
		set_st(g, FLO(g, x)[i], b);
}

static void reverse(int *a, int lo, int hi)     /* [lo, hi) */
{
	for (hi--; lo < hi; lo++, hi--) {
		int t = a[lo];
		a[lo] = a[hi];
		a[hi] = t;
	}
}

/* Position of xr in blossom b's flower, the flower turned so that the
** path from the base to xr has even length. */
static int get_pr(struct ref_graph *g, int b, int xr)
{
	int *f = FLO(g, b), n = g->nflo[b], pr = 0;

	while (pr < n && f[pr] != xr)
		pr++;
	if (pr % 2 == 1) {
		reverse(f, 1, n);
		return n - pr;
	}
	return pr;
}

static void rotate(int *a, int n, int k)        /* a[k..n) then a[0..k) */
{
	reverse(a, 0, k);
	reverse(a, k, n);
	reverse(a, 0, n);
}

static void set_match(struct ref_graph *g, int u, int v)
{
	g->match[u] = E(g, u, v).v;
	if (u > g->n) {
		struct ref_e e = E(g, u, v);
		int xr = FROM(g, u, e.u), pr = get_pr(g, u, xr);
		for (int i = 0; i < pr; i++)
			set_match(g, FLO(g, u)[i], FLO(g, u)[i ^ 1]);
		set_match(g, xr, v);
		rotate(FLO(g, u), g->nflo[u], pr);
	}
}

static void augment(struct ref_graph *g, int u, int v)
{
	for (;;) {
		int xnv = g->st[g->match[u]];
		set_match(g, u, v);
		if (xnv == 0)
			return;
		set_match(g, xnv, g->st[g->pa[xnv]]);
		u = g->st[g->pa[xnv]];
		v = xnv;
	}
}

static int get_lca(struct ref_graph *g, int u, int v)
{
	g->t++;
	while (u != 0 || v != 0) {
		if (u != 0) {
			int t;
			if (g->vis[u] == g->t)
				return u;
			g->vis[u] = g->t;
			u = g->st[g->match[u]];
			if (u != 0)
				u = g->st[g->pa[u]];
			t = u;
			u = v;
			v = t;
		} else {
			u = v;
			v = 0;
		}
	}
	return 0;
}

static void add_blossom(struct ref_graph *g, int u, int lca, int v)
{
	int b = g->n + 1, x, y, *f;

	while (b <= g->nx && g->st[b] != 0)
		b++;
	if (b > g->nx)
		g->nx++;
	g->lab[b] = 0;
	g->S[b] = 0;
	g->match[b] = g->match[lca];
	f = FLO(g, b);
	g->nflo[b] = 0;
	f[g->nflo[b]++] = lca;
	for (x = u; x != lca; x = g->st[g->pa[y]]) {
		f[g->nflo[b]++] = x;
		f[g->nflo[b]++] = y = g->st[g->match[x]];
		q_push(g, y);
	}
	reverse(f, 1, g->nflo[b]);
	for (x = v; x != lca; x = g->st[g->pa[y]]) {
		f[g->nflo[b]++] = x;
		f[g->nflo[b]++] = y = g->st[g->match[x]];
		q_push(g, y);
	}
	set_st(g, b, b);
	for (x = 1; x <= g->nx; x++) {
		E(g, b, x).w = 0;
		E(g, x, b).w = 0;
	}
	for (x = 1; x <= g->n; x++)
		FROM(g, b, x) = 0;
	for (int i = 0; i < g->nflo[b]; i++) {
		int xs = f[i];
		for (x = 1; x <= g->nx; x++)
			if (!gt(E(g, b, x).w, 0) ||
			    dist(g, &E(g, xs, x)) < dist(g, &E(g, b, x))) {
				E(g, b, x) = E(g, xs, x);
				E(g, x, b) = E(g, x, xs);
			}
		for (x = 1; x <= g->n; x++)
			if (FROM(g, xs, x) != 0)
				FROM(g, b, x) = xs;
	}
	set_slack(g, b);
}

static void expand_blossom(struct ref_graph *g, int b)
{
	int *f = FLO(g, b), xr, pr, i;

	for (i = 0; i < g->nflo[b]; i++)
		set_st(g, f[i], f[i]);
	xr = FROM(g, b, E(g, b, g->pa[b]).u);
	pr = get_pr(g, b, xr);
	for (i = 0; i < pr; i += 2) {
		int xs = f[i], xns = f[i + 1];
		g->pa[xs] = E(g, xns, xs).u;
		g->S[xs] = 1;
		g->S[xns] = 0;
		g->slack[xs] = 0;
		set_slack(g, xns);
		q_push(g, xns);
	}
	g->S[xr] = 1;
	g->pa[xr] = g->pa[b];
	for (i = pr + 1; i < g->nflo[b]; i++) {
		int xs = f[i];
		g->S[xs] = -1;
		set_slack(g, xs);
	}
	g->st[b] = 0;
}

static int on_found_edge(struct ref_graph *g, const struct ref_e *e)
{
	int u = g->st[e->u], v = g->st[e->v];

	if (g->S[v] == -1) {
		int nu;
		g->pa[v] = e->u;
		g->S[v] = 1;
		nu = g->st[g->match[v]];
		g->slack[v] = g->slack[nu] = 0;
		g->S[nu] = 0;
		q_push(g, nu);
	} else if (g->S[v] == 0) {
		int lca = get_lca(g, u, v);
		if (lca == 0) {
			augment(g, u, v);
			augment(g, v, u);
			return 1;
		}
		add_blossom(g, u, lca, v);
	}
	return 0;
}

/* One search: 1 if it augmented the matching. */
static int matching(struct ref_graph *g)
{
	int x, u, v, b;

	for (x = 0; x <= g->nx; x++) {
		g->S[x] = -1;
		g->slack[x] = 0;
	}
	g->qh = g->qt = 0;
	for (x = 1; x <= g->nx; x++)
		if (g->st[x] == x && g->match[x] <= 0) {
			g->pa[x] = 0;
			g->S[x] = 0;
			q_push(g, x);
		}
	if (g->qh == g->qt)
		return 0;
	for (;;) {
		double d = HUGE_VAL;
		while (g->qh < g->qt) {
			const struct ref_e *row;
			double lu;
			u = g->q[g->qh++];
			if (g->S[g->st[u]] == 1)
				continue;
			/* vertex-vertex edges are never rewritten (blossoms
			** are n+1..): E(u, v) joins u and v, its slack the
			** sum below */
			row = &E(g, u, 0);
			lu = g->lab[u];
			for (v = 1; v <= g->n; v++) {
				double wv = row[v].w;
				if (wv > 0 && g->st[u] != g->st[v]) {
					if (!gt(lu + g->lab[v] - wv * 2.0, 0)) {
						if (on_found_edge(g, &row[v]))
							return 1;
					} else {
						update_slack(g, u, g->st[v]);
					}
				}
			}
		}
		for (b = g->n + 1; b <= g->nx; b++)
			if (g->st[b] == b && g->S[b] == 1 && g->lab[b] / 2 < d)
				d = g->lab[b] / 2;
		for (x = 1; x <= g->nx; x++)
			if (g->st[x] == x && g->slack[x] != 0) {
				double s = slack_dist(g, x);
				if (g->S[x] == -1 && s < d)
					d = s;
				else if (g->S[x] == 0 && s / 2 < d)
					d = s / 2;
			}
		for (u = 1; u <= g->n; u++) {
			if (g->S[g->st[u]] == 0) {
				if (!gt(g->lab[u], d))
					return 0;
				g->lab[u] -= d;
			} else if (g->S[g->st[u]] == 1) {
				g->lab[u] += d;
			}
		}
		for (b = g->n + 1; b <= g->nx; b++)
			if (g->st[b] == b) {
				if (g->S[g->st[b]] == 0)
					g->lab[b] += d * 2;
				else if (g->S[g->st[b]] == 1)
					g->lab[b] -= d * 2;
			}
		g->labgen++;
		g->qh = g->qt = 0;
		for (x = 1; x <= g->nx; x++)
			if (g->st[x] == x && g->slack[x] != 0 &&
			    g->st[g->slack[x]] != x &&
			    !gt(slack_dist(g, x), 0) &&
			    on_found_edge(g, &E(g, g->slack[x], x)))
				return 1;
		for (b = g->n + 1; b <= g->nx; b++)
			if (g->st[b] == b && g->S[b] == 1 && !gt(g->lab[b], 0))
				expand_blossom(g, b);
	}
}

static int ref_solve(struct ref_graph *g, int *mate)
{
	double wmax = 0;
	int u, v, pairs = 0, any = 0;

	g->nx = g->n;
	g->t = 0;
	for (u = 0; u < g->cap; u++) {
		g->match[u] = 0;
		g->pa[u] = 0;
		g->st[u] = u;
		g->nflo[u] = 0;
		g->vis[u] = 0;
	}
	for (u = 0; u <= g->n; u++)
		for (v = 0; v <= g->n; v++)
			FROM(g, u, v) = u == v ? u : 0;
	for (u = 1; u <= g->n; u++)
		for (v = 1; v <= g->n; v++) {
			if (E(g, u, v).w > wmax)
				wmax = E(g, u, v).w;
			any |= E(g, u, v).w > 0;
		}
	for (u = 0; u <= g->n; u++)
		g->lab[u] = wmax;
	g->labgen++;
	if (any)
		while (matching(g))
			;
	for (u = 1; u <= g->n; u++) {
		v = g->match[u];
		mate[u - 1] = v > 0 && g->match[v] == u ? v - 1 : -1;
		if (v > 0 && g->match[v] == u && v < u)
			pairs++;
	}
	return pairs;
}

/* ---- the comparison --------------------------------------------------- */

/* A small LCG (the test's own stream). */
static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Graph kind k on n vertices into w (n x n, symmetric, 0: no edge):
** 0 weights from a few integers; 1 Muri-like, vertices of a few types,
** the weight a function of the two types, some pairs cut; 2 all equal;
** 3 sparse, varied. */
static void make_graph(double *w, int n, int k, unsigned *s)
{
	double tw[6][6];
	int type[256], u, v, a, b, nt = 2 + (int)(lcg(s) % 5);

	for (a = 0; a < 6; a++)
		for (b = a; b < 6; b++)
			tw[a][b] = tw[b][a] = 0.2 + (double)(lcg(s) % 1000) / 1250;
	for (u = 0; u < n; u++)
		type[u] = (int)(lcg(s) % (unsigned)nt);
	for (u = 0; u < n; u++)
		for (v = u + 1; v < n; v++) {
			double x = 0;
			unsigned r = lcg(s);
			switch (k) {
			case 0: x = r % 4 == 0 ? 0 : 1 + (double)(r % 3); break;
			case 1: x = r % 7 == 0 ? 0 : tw[type[u]][type[v]]; break;
			case 2: x = 1; break;
			default: x = r % 5 != 0 ? 0 : (double)(r % 10007) / 97; break;
			}
			w[u * n + v] = w[v * n + u] = x;
		}
}

/* One graph through both matchers (the fast one in g, reset for n):
** the same partner for every vertex and the same pair count. */
static int same_matching(struct bl_graph *g, const double *w, int n)
{
	struct ref_graph *r = ref_create(n);
	int mr[256], mf[256], pr, pf, u, v;

	if (r == NULL || bl_reset(g, n) != 0) {
		ref_destroy(r);
		return -1;
	}
	for (u = 0; u < n; u++)
		for (v = u + 1; v < n; v++)
			if (w[u * n + v] > 0) {
				ref_edge(r, u, v, w[u * n + v]);
				bl_edge(g, u, v, w[u * n + v]);
			}
	pr = ref_solve(r, mr);
	pf = bl_solve(g, mf);
	ref_destroy(r);
	return pr == pf && memcmp(mr, mf, (size_t)n * sizeof *mr) == 0;
}

/* 600 graphs of 2..60 vertices and 12 of 100..200, the four kinds, on
** one graph created for 200 and reset each time (sizes up and down), and
** a fresh one for some: every matching equal to the reference's. */
static void test_blossom_same(void)
{
	struct bl_graph *g = bl_create(200);
	double *w = malloc(200 * 200 * sizeof *w);
	unsigned s = 777;
	int k, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	for (k = 0; k < 612; k++) {
		int n = k < 600 ? 2 + (int)(lcg(&s) % 59) :
			100 + (int)(lcg(&s) % 101);
		make_graph(w, n, k % 4, &s);
		if (same_matching(g, w, n) != 1)
			bad++;
		if (k % 50 == 0) {                /* a fresh graph too */
			struct bl_graph *f = bl_create(n);
			CU_ASSERT_PTR_NOT_NULL_FATAL(f);
			if (same_matching(f, w, n) != 1)
				bad++;
			bl_destroy(f);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* out of range */
	CU_ASSERT_EQUAL(bl_reset(g, 201), -1);
	CU_ASSERT_EQUAL(bl_reset(g, 0), -1);
	bl_destroy(g);
	free(w);
}

TEST_REGISTER(blossom)
{
	static const struct test_case cases[] = {
		{ "the reference's matching, tie order included",
		  test_blossom_same },
		{ NULL, NULL }
	};
	return test_add_suite("blossom", cases);
}
