/*
** blossom.h: maximum-weight matching in a general graph (Edmonds' blossom
** algorithm with dual variables, the O(n^3) primal-dual formulation of
** Gabow / Galil), as Muri's scheduler uses it to pair job groups
** (docs/POLICIES.md, "muri-s, muri-l").
**
** No Debian C library offers weighted matching on general graphs (igraph's
** C API matches weighted bipartite graphs only; LEMON and Boost are C++),
** hence this file.  It follows the textbook algorithm in the order of
** operations of Muri's simulator (Rivendile/Muri simulator/matching.py
** _Blossom_Same), so that among matchings of equal weight it returns the
** same one: leaves of a blossom enter the search queue breadth first, and
** weights compare with a relative tolerance of 1e-5 (its my_cmp).
**
** Ownership: a bl_graph is created for n vertices, filled with bl_edge,
** solved with bl_solve, freed with bl_destroy.
*/
#ifndef COLOSIM_POLICIES_BLOSSOM_H
#define COLOSIM_POLICIES_BLOSSOM_H

struct bl_graph;

/* n vertices 0..n-1 (n >= 1), no edges; NULL when out of memory. */
struct bl_graph *bl_create(int n);
void bl_destroy(struct bl_graph *g);
/* Empties g for n vertices (1 <= n <= the n it was created for), as
** bl_create(n) would return it: the same matching, tie order included,
** without the allocation.  0, or -1 when n is out of range. */
int bl_reset(struct bl_graph *g, int n);

/* Sets the weight of edge (u, v) (u != v; w > 0; symmetric). */
void bl_edge(struct bl_graph *g, int u, int v, double w);

/* Solves; mate[v] receives v's partner or -1 (mate has n entries).
** Returns the number of matched pairs. */
int bl_solve(struct bl_graph *g, int *mate);

#endif
