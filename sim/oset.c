/*
** oset.c: the ordered set (see oset.h): a treap with parent links and a
** subtree minimum of aux.
**
** Invariants: in-order is (k1, k2, id) ascending; a node's pri is at
** least its children's; amin is min(aux, children's amin).  Rotations keep
** the set of every subtree above them, so they touch only the two nodes
** they move.
*/
#include "sim/oset.h"

#include <stdlib.h>
#include <string.h>

#include "sim/err.h"

#define NIL (-1)

void sim_oset_init(struct sim_oset *s)
{
	memset(s, 0, sizeof *s);
	s->root = s->free_ = NIL;
}

void sim_oset_fini(struct sim_oset *s)
{
	free(s->n);
	sim_oset_init(s);
}

void sim_oset_clear(struct sim_oset *s)
{
	struct sim_oset_node *n = s->n;
	int cap = s->cap;

	sim_oset_init(s);
	s->n = n;
	s->cap = cap;
	/* every node back on the free list, lowest index first */
	for (int i = cap - 1; i >= 0; i--) {
		n[i].l = s->free_;
		s->free_ = i;
	}
}

static uint32_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;              /* splitmix64 */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31));
}

/* -1, 0, 1 as (k1, k2, id) compares to node z's key. */
static int cmp(const struct sim_oset_node *z, int64_t k1, int64_t k2, int id)
{
	if (k1 != z->k1)
		return k1 < z->k1 ? -1 : 1;
	if (k2 != z->k2)
		return k2 < z->k2 ? -1 : 1;
	return id < z->id ? -1 : id > z->id;
}

static void pull(struct sim_oset *s, int z)
{
	struct sim_oset_node *n = s->n;
	int64_t m = n[z].aux;

	if (n[z].l != NIL && n[n[z].l].amin < m)
		m = n[n[z].l].amin;
	if (n[z].r != NIL && n[n[z].r].amin < m)
		m = n[n[z].r].amin;
	n[z].amin = m;
}

/* Replaces child `old` of `par` (NIL: the root) by `nw`. */
static void relink(struct sim_oset *s, int par, int old, int nw)
{
	if (par == NIL)
		s->root = nw;
	else if (s->n[par].l == old)
		s->n[par].l = nw;
	else
		s->n[par].r = nw;
	if (nw != NIL)
		s->n[nw].p = par;
}

/* Lifts x above its parent y. */
static void rotate_up(struct sim_oset *s, int x)
{
	struct sim_oset_node *n = s->n;
	int y = n[x].p, gp = n[y].p, b;

	if (n[y].l == x) {
		b = n[x].r;
		n[y].l = b;
		n[x].r = y;
	} else {
		b = n[x].l;
		n[y].r = b;
		n[x].l = y;
	}
	if (b != NIL)
		n[b].p = y;
	relink(s, gp, y, x);
	n[y].p = x;
	pull(s, y);
	pull(s, x);
}

/* Links free-standing node x (key and aux set) into the tree. */
static void link(struct sim_oset *s, int x)
{
	struct sim_oset_node *n = s->n;
	int y = NIL, z = s->root, left = 0;

	n[x].l = n[x].r = NIL;
	n[x].amin = n[x].aux;
	while (z != NIL) {
		y = z;
		left = cmp(&n[z], n[x].k1, n[x].k2, n[x].id) < 0;
		z = left ? n[z].l : n[z].r;
	}
	n[x].p = y;
	if (y == NIL)
		s->root = x;
	else if (left)
		n[y].l = x;
	else
		n[y].r = x;
	for (z = y; z != NIL && n[z].amin > n[x].aux; z = n[z].p)
		n[z].amin = n[x].aux;
	while (n[x].p != NIL && n[x].pri > n[n[x].p].pri)
		rotate_up(s, x);
	s->count++;
}

/* Takes node x out of the tree (it stays allocated). */
static void unlink_node(struct sim_oset *s, int x)
{
	struct sim_oset_node *n = s->n;
	int c, par;

	while (n[x].l != NIL && n[x].r != NIL) {
		int l = n[x].l, r = n[x].r;
		rotate_up(s, n[l].pri > n[r].pri ? l : r);
	}
	c = n[x].l != NIL ? n[x].l : n[x].r;
	par = n[x].p;
	relink(s, par, x, c);
	for (; par != NIL; par = n[par].p)
		pull(s, par);
	s->count--;
}

int sim_oset_insert(struct sim_oset *s, int64_t k1, int64_t k2, int id,
		    int64_t aux)
{
	int x;

	if (s->free_ == NIL) {
		int cap = s->cap ? 2 * s->cap : 16, i;
		struct sim_oset_node *p = realloc(s->n, (size_t)cap * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		s->n = p;
		for (i = cap - 1; i >= s->cap; i--) {
			p[i].l = s->free_;
			s->free_ = i;
		}
		s->cap = cap;
	}
	x = s->free_;
	s->free_ = s->n[x].l;
	s->n[x].k1 = k1;
	s->n[x].k2 = k2;
	s->n[x].id = id;
	s->n[x].aux = aux;
	s->n[x].pri = mix(s->seq++);
	link(s, x);
	return x;
}

void sim_oset_remove(struct sim_oset *s, int h)
{
	unlink_node(s, h);
	s->n[h].l = s->free_;
	s->n[h].p = NIL;
	s->free_ = h;
}

void sim_oset_update(struct sim_oset *s, int h, int64_t k1, int64_t k2,
		     int64_t aux)
{
	struct sim_oset_node *x = &s->n[h];

	if (x->k1 == k1 && x->k2 == k2) {     /* same place: aux only */
		int z;
		x->aux = aux;
		for (z = h; z != NIL; z = s->n[z].p)
			pull(s, z);
		return;
	}
	unlink_node(s, h);
	x = &s->n[h];
	x->k1 = k1;
	x->k2 = k2;
	x->aux = aux;
	link(s, h);
}

int sim_oset_first(const struct sim_oset *s)
{
	int z = s->root;

	if (z == NIL)
		return NIL;
	while (s->n[z].l != NIL)
		z = s->n[z].l;
	return z;
}

int sim_oset_last(const struct sim_oset *s)
{
	int z = s->root;

	if (z == NIL)
		return NIL;
	while (s->n[z].r != NIL)
		z = s->n[z].r;
	return z;
}

int sim_oset_next(const struct sim_oset *s, int h)
{
	const struct sim_oset_node *n = s->n;
	int z;

	if (n[h].r != NIL) {
		for (z = n[h].r; n[z].l != NIL; z = n[z].l)
			;
		return z;
	}
	for (z = n[h].p; z != NIL && n[z].r == h; z = n[z].p)
		h = z;
	return z;
}

int sim_oset_prev(const struct sim_oset *s, int h)
{
	const struct sim_oset_node *n = s->n;
	int z;

	if (n[h].l != NIL) {
		for (z = n[h].l; n[z].r != NIL; z = n[z].r)
			;
		return z;
	}
	for (z = n[h].p; z != NIL && n[z].l == h; z = n[z].p)
		h = z;
	return z;
}

int sim_oset_lower_bound(const struct sim_oset *s, int64_t k1, int64_t k2,
			 int id)
{
	int z = s->root, res = NIL;

	while (z != NIL) {
		if (cmp(&s->n[z], k1, k2, id) <= 0) {
			res = z;
			z = s->n[z].l;
		} else {
			z = s->n[z].r;
		}
	}
	return res;
}

/* The first node of z's subtree, in order, with aux <= bound. */
static int first_le_all(const struct sim_oset *s, int z, int64_t bound)
{
	const struct sim_oset_node *n = s->n;

	while (z != NIL && n[z].amin <= bound) {
		if (n[z].l != NIL && n[n[z].l].amin <= bound)
			z = n[z].l;
		else if (n[z].aux <= bound)
			return z;
		else
			z = n[z].r;
	}
	return NIL;
}

/* The first node of z's subtree with key >= (k1, k2, id), aux <= bound.
** Recursion along one root-to-leaf path: O(depth). */
static int first_le_from(const struct sim_oset *s, int z, int64_t k1,
			 int64_t k2, int id, int64_t bound)
{
	const struct sim_oset_node *n = s->n;
	int r;

	while (z != NIL && n[z].amin <= bound &&
	       cmp(&n[z], k1, k2, id) > 0)    /* z's key < K: right only */
		z = n[z].r;
	if (z == NIL || n[z].amin > bound)
		return NIL;
	if ((r = first_le_from(s, n[z].l, k1, k2, id, bound)) != NIL)
		return r;
	if (n[z].aux <= bound)
		return z;
	return first_le_all(s, n[z].r, bound);
}

int sim_oset_first_aux_le(const struct sim_oset *s, int64_t k1, int64_t k2,
			  int id, int64_t bound)
{
	return first_le_from(s, s->root, k1, k2, id, bound);
}

int64_t sim_oset_dkey(double x)
{
	int64_t i;
	uint64_t u;

	memcpy(&u, &x, sizeof u);
	if (u >> 63)
		i = -(int64_t)(u & 0x7fffffffffffffffull);
	else
		i = (int64_t)u;
	return i;
}
