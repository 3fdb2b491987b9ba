/*
** blossom.c: maximum-weight general matching (blossom.h).
**
** Vertices are 1..n inside (0 means none), blossoms n+1..nx.  Each vertex
** or blossom x has a dual label lab[x]; an edge is tight when its slack
** lab[u] + lab[v] - 2 w(u, v) is 0 (within tolerance).  The search grows
** alternating trees from every free vertex (S = 0 outer, 1 inner, -1
** unlabelled), shrinks odd cycles into blossoms, augments along a path
** between two trees, and otherwise adjusts the duals by the least slack d;
** it ends when no augmenting path exists or an outer vertex's label would
** reach 0 (a maximum-weight, not maximum-cardinality, matching).
**
** Muri's decisions depend on the tie order, so every shortcut here keeps
** the order of operations, and the floating-point sums, of the plain
** implementation (tests/test_blossom.c holds it, as of fb140d9, and
** checks the same matching on tie-heavy graphs): a blossom's slack is
** found along its row (the mirror of its column), once per scanned
** vertex; an inner vertex's slack is not kept (never read while inner);
** add_blossom keeps the slack of the blossom's entries; bl_reset reuses a
** graph, fresh wherever a solve reads it.  Cost: O(n^3) a solve, the
** scan of every outer vertex's n edges per augmentation most of it.
*/
#include "policies/blossom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct bl_e {
	int u, v;
	double w;
};

struct bl_graph {
	int n, nx, cap;               /* vertices; vertices + blossoms; rows */
	int nmax;                     /* the n created for (bl_reset) */
	struct bl_e *g;               /* cap x cap */
	double *lab;
	int *match, *slack, *st, *pa, *S, *vis, t;
	int *flo, *nflo;              /* flower of x: flo[x*cap ..], nflo[x] */
	int *from;                    /* flower_from: cap x (n+1) */
	int *q, qh, qt;               /* search queue (FIFO) */
	int *tmp;                     /* scratch: breadth-first pushes */
	/* the slack of x's edge from slack[x], memoised while the labels
	** stay (sdgen[x] == labgen): the same sum, computed once */
	double *sd;
	unsigned long long *sdgen, labgen;
	unsigned long long *seen, scan; /* the search: blossom x's slack
					 updated in this scan (seen[x] ==
					 scan) */
	double *db;                   /* add_blossom: dist of E(b, x), */
	char *dbok;                   /* known when dbok[x] */
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

/* Entry (a, b) as a new graph holds it: no edge, endpoints a and b. */
static void e_fresh(struct bl_graph *g, int a, int b)
{
	E(g, a, b).u = a;
	E(g, a, b).v = b;
	E(g, a, b).w = 0;
}

struct bl_graph *bl_create(int n)
{
	struct bl_graph *g = calloc(1, sizeof *g);
	size_t c;

	if (g == NULL || n < 1)
		return free(g), NULL;
	g->n = n;
	g->nmax = n;
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
	g->db = calloc(c, sizeof *g->db);
	g->seen = calloc(c, sizeof *g->seen);
	g->dbok = calloc(c, sizeof *g->dbok);
	if (!g->db || !g->dbok || !g->seen || !g->sd || !g->sdgen || !g->g || !g->lab || !g->match || !g->slack || !g->st || !g->pa ||
	    !g->S || !g->vis || !g->flo || !g->nflo || !g->from || !g->q ||
	    !g->tmp) {
		bl_destroy(g);
		return NULL;
	}
	for (int u = 0; u < g->cap; u++)
		for (int v = 0; v < g->cap; v++)
			e_fresh(g, u, v);
	return g;
}

/* The state a new graph of n vertices has, as far as a solve can read
** it: the vertex rows and columns 0..n fresh here; a blossom's row and
** column when the solve first takes its number (add_blossom), before
** which no entry of them is written or read.  The other arrays are
** written before they are read (bl_solve, matching, add_blossom), but
** for the slack cache, which labgen (never reset) keeps valid. */
int bl_reset(struct bl_graph *g, int n)
{
	if (g == NULL || n < 1 || n > g->nmax)
		return -1;
	g->n = n;
	for (int u = 0; u <= n; u++)
		for (int v = 0; v <= n; v++)
			e_fresh(g, u, v);
	return 0;
}

void bl_destroy(struct bl_graph *g)
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
	free(g->db);
	free(g->dbok);
	free(g->seen);
	free(g);
}

void bl_edge(struct bl_graph *g, int u, int v, double w)
{
	E(g, u + 1, v + 1).w = w;
	E(g, v + 1, u + 1).w = w;
}

/* The slack of edge e.  An entry of positive weight is a copy of the
** vertex-vertex entry (e->u, e->v) (those are never rewritten), so its
** weight is that one's; others (none, or a blossom's entry between
** rewrites) read it there. */
static double dist(const struct bl_graph *g, const struct bl_e *e)
{
	if (e->w > 0)
		return g->lab[e->u] + g->lab[e->v] - e->w * 2.0;
	return g->lab[e->u] + g->lab[e->v] - E(g, e->u, e->v).w * 2.0;
}

/* dist of x's slack edge (slack[x] != 0). */
static double slack_dist(struct bl_graph *g, int x)
{
	if (g->sdgen[x] != g->labgen) {
		g->sd[x] = dist(g, &E(g, g->slack[x], x));
		g->sdgen[x] = g->labgen;
	}
	return g->sd[x];
}

static void update_slack(struct bl_graph *g, int u, int x)
{
	double du = dist(g, &E(g, u, x));

	if (g->slack[x] == 0 || du < slack_dist(g, x)) {
		g->slack[x] = u;
		g->sd[x] = du;
		g->sdgen[x] = g->labgen;
	}
}

/* slack[x]: the least-slack edge to top-level x from an outer vertex
** outside it, the first of equals.  Read along row x: for a vertex u
** outside x, E(x, u) is E(u, x) mirrored (the two are written together,
** from mirrored entries), the same weight and the same sum. */
static void set_slack(struct bl_graph *g, int x)
{
	const struct bl_e *row = &E(g, x, 0);
	double best = 0;
	int su = 0;

	for (int u = 1; u <= g->n; u++)
		if (row[u].w > 0 && g->st[u] != x && g->S[g->st[u]] == 0) {
			double du = g->lab[row[u].u] + g->lab[row[u].v] -
				row[u].w * 2.0;
			if (su == 0 || du < best) {
				su = u;
				best = du;
			}
		}
	g->slack[x] = su;
	if (su != 0) {
		g->sd[x] = best;
		g->sdgen[x] = g->labgen;
	}
}

/* Pushes the vertices of x (x itself, or a blossom's leaves breadth
** first) onto the search queue. */
static void q_push(struct bl_graph *g, int x)
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

static void set_st(struct bl_graph *g, int x, int b)
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
static int get_pr(struct bl_graph *g, int b, int xr)
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

static void set_match(struct bl_graph *g, int u, int v)
{
	g->match[u] = E(g, u, v).v;
	if (u > g->n) {
		struct bl_e e = E(g, u, v);
		int xr = FROM(g, u, e.u), pr = get_pr(g, u, xr);
		for (int i = 0; i < pr; i++)
			set_match(g, FLO(g, u)[i], FLO(g, u)[i ^ 1]);
		set_match(g, xr, v);
		rotate(FLO(g, u), g->nflo[u], pr);
	}
}

static void augment(struct bl_graph *g, int u, int v)
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

static int get_lca(struct bl_graph *g, int u, int v)
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

/* FROM(b, x) = xs for every vertex x in xs (breadth first, as q_push). */
static void from_leaves(struct bl_graph *g, int b, int xs)
{
	int h = 0, t = 0;

	g->tmp[t++] = xs;
	while (h < t) {
		int y = g->tmp[h++];
		if (y <= g->n) {
			FROM(g, b, y) = xs;
			continue;
		}
		for (int i = 0; i < g->nflo[y]; i++)
			g->tmp[t++] = FLO(g, y)[i];
	}
}

static void add_blossom(struct bl_graph *g, int u, int lca, int v)
{
	int b = g->n + 1, x, y, *f;

	while (b <= g->nx && g->st[b] != 0)
		b++;
	if (b > g->nx) {              /* first use of b: fresh (bl_reset) */
		g->nx++;
		for (x = 0; x < g->cap; x++) {
			e_fresh(g, b, x);
			e_fresh(g, x, b);
		}
	}
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
	/* the labels stay through this loop: the dist of E(b, x), once
	** computed or copied with its edge, is kept in db[x] (gt(w, 0)
	** is w > 0: |w| <= 1e-5 |w| only at w = 0) */
	memset(g->dbok, 0, (size_t)g->nx + 1);
	for (int i = 0; i < g->nflo[b]; i++) {
		int xs = f[i];
		for (x = 1; x <= g->nx; x++) {
			double dx;
			if (!(E(g, b, x).w > 0)) {
				E(g, b, x) = E(g, xs, x);
				E(g, x, b) = E(g, x, xs);
				g->dbok[x] = 0;
				continue;
			}
			dx = dist(g, &E(g, xs, x));
			if (!g->dbok[x]) {
				g->db[x] = dist(g, &E(g, b, x));
				g->dbok[x] = 1;
			}
			if (dx < g->db[x]) {
				E(g, b, x) = E(g, xs, x);
				E(g, x, b) = E(g, x, xs);
				/* at x = b the second copy overwrites the
				** first: E(b, b) is then E(b, xs) */
				g->db[x] = dx;
				g->dbok[x] = x != b;
			}
		}
		/* FROM(xs, x) != 0 exactly for the vertices x in xs */
		from_leaves(g, b, xs);
	}
	set_slack(g, b);
}

static void expand_blossom(struct bl_graph *g, int b)
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

static int on_found_edge(struct bl_graph *g, const struct bl_e *e)
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

/* Scans outer vertex u's edges in vertex order: a tight one is found
** (1 if it augmented), the others update their ends' slack.  The arrays
** are held in locals (their contents change, through on_found_edge, but
** never where they are); only on_found_edge changes st and S. */
static int scan_vertex(struct bl_graph *g, int u)
{
	/* vertex-vertex edges are never rewritten (blossoms are n+1..):
	** E(u, v) joins u and v, its slack the sum below */
	const struct bl_e *row = &E(g, u, 0);
	const double *lab = g->lab;
	const int *st = g->st, *S = g->S;
	int *slack = g->slack, n = g->n, xu = st[u];
	double *sd = g->sd, lu = lab[u];
	unsigned long long *sdgen = g->sdgen, labgen = g->labgen;

	g->scan++;
	for (int v = 1; v <= n; v++) {
		double wv = row[v].w, s;
		int xv;
		if (!(wv > 0))
			continue;
		xv = st[v];
		if (xu == xv)
			continue;
		s = lu + lab[v] - wv * 2.0;
		if (!(s > 0)) {                 /* !gt(s, 0) */
			if (on_found_edge(g, &row[v]))
				return 1;
			g->scan++;              /* blossoms may change */
			xu = st[u];
		} else if (S[xv] == 1) {
			/* an inner x's slack is never used while it is inner
			** (d takes outer and free ones; its edge found tight
			** does nothing) and is reset when it leaves */
		} else if (xv == v) {
			/* update_slack(u, v): dist(E(u, v)) is s, the same
			** sum */
			if (slack[v] != 0 && sdgen[v] != labgen) {
				sd[v] = dist(g, &E(g, slack[v], v));
				sdgen[v] = labgen;
			}
			if (slack[v] == 0 || s < sd[v]) {
				slack[v] = u;
				sd[v] = s;
				sdgen[v] = labgen;
			}
		} else if (g->seen[xv] != g->scan) {
			/* once per blossom and scan: the same edge E(u, xv),
			** the same outcome */
			g->seen[xv] = g->scan;
			update_slack(g, u, xv);
		}
	}
	return 0;
}

/* One search: 1 if it augmented the matching. */
static int matching(struct bl_graph *g)
{
	int x, u, b;

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
			u = g->q[g->qh++];
			if (g->S[g->st[u]] == 1)
				continue;
			if (scan_vertex(g, u))
				return 1;
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

int bl_solve(struct bl_graph *g, int *mate)
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
