/*
** frac_view.c: the share policies' view of the world (see frac.h, "The
** world as snapshots"): a snapshot per node, the nodes grouped into
** classes of equal state, and which nodes changed since they were last
** looked at.
**
** A class is a set of nodes with the same key: cpu_any, mem_any, free CPU
** and memory, GPU count and sorted GPU free milli.  Both rules' scores and
** feasibility depend on the key alone, so a rule scores the class's
** lowest (tiebreak_rank, index) node, kept at the top of a binary heap of
** its members; the chosen node's GPUs are then picked on that very node.
** Classes live in nnodes slots (there are never more classes than nodes)
** found through hash chains; live[] lists the nonempty ones, rep[] their
** heads, in no particular order (the rules break ties explicitly).
**
** Which nodes to look at: the world's changed GPUs (every share placement
** or release of a GPU job changes its GPUs' tenants), and the nodes of the
** view's CPU-only pods, marked when placed and when they end (the world
** neither preempts them nor moves them).  A marked node is re-snapshotted
** only when its version moved.  So nothing here costs O(nodes) after init:
** a change costs O(k log k + log m) (k GPUs a node, m nodes in its class).
**
** Invariants: every node is in exactly one class, node_cls/node_pos say
** where; a class's key equals the key of each of its members' snapshots;
** after frac_view_refresh every snapshot whose world version moved and
** whose node was changed has been taken again.
*/
#include <stdlib.h>
#include <string.h>

#include "policies/frac.h"

struct cls_key {
	int64_t cpu_free_milli, mem_free_mib;
	int cpu_any, mem_any, ngpus;
	int32_t gpu[FRAC_MAX_GPUS];     /* ascending; [ngpus..) zero */
};

struct frac_class {
	struct cls_key key;
	uint64_t hash;
	int next;                       /* hash chain; -1 ends it */
	int live_pos;                   /* its index in live[] */
	int *heap, nheap, capheap;      /* members, (rank, index) min-heap */
};

/* ---- keys ------------------------------------------------------------------ */

static void key_of(const struct frac_node *n, struct cls_key *k)
{
	int i, j;

	memset(k, 0, sizeof *k);
	k->cpu_free_milli = n->cpu_free_milli;
	k->mem_free_mib = n->mem_free_mib;
	k->cpu_any = n->cpu_any;
	k->mem_any = n->mem_any;
	k->ngpus = n->ngpus;
	for (i = 0; i < n->ngpus; i++) {         /* insertion sort, <= 16 */
		int32_t x = n->gpu_free_milli[i];

		for (j = i; j > 0 && k->gpu[j - 1] > x; j--)
			k->gpu[j] = k->gpu[j - 1];
		k->gpu[j] = x;
	}
}

static int key_eq(const struct cls_key *a, const struct cls_key *b)
{
	return a->cpu_free_milli == b->cpu_free_milli &&
	       a->mem_free_mib == b->mem_free_mib &&
	       a->cpu_any == b->cpu_any && a->mem_any == b->mem_any &&
	       a->ngpus == b->ngpus &&
	       memcmp(a->gpu, b->gpu, (size_t)a->ngpus * sizeof a->gpu[0]) == 0;
}

static uint64_t key_hash(const struct cls_key *k)
{
	uint64_t h = frac_mix64((uint64_t)k->cpu_free_milli ^
			   (uint64_t)(k->cpu_any | k->mem_any << 1 |
				      k->ngpus << 2) << 56);
	int i;

	h = frac_mix64(h ^ (uint64_t)k->mem_free_mib);
	for (i = 0; i < k->ngpus; i += 2)
		h = frac_mix64(h ^ ((uint64_t)(uint32_t)k->gpu[i] |
			       (uint64_t)(uint32_t)k->gpu[i + 1] << 32));
	return h;
}

/* ---- a class's heap --------------------------------------------------------- */

static void heap_set(struct frac_view *v, struct frac_class *c, int pos, int n)
{
	c->heap[pos] = n;
	v->node_pos[n] = pos;
}

static void heap_up(struct frac_view *v, struct frac_class *c, int pos)
{
	int n = c->heap[pos], up;

	while (pos > 0) {
		up = (pos - 1) / 2;
		if (!frac_before(v->nodes, n, c->heap[up]))
			break;
		heap_set(v, c, pos, c->heap[up]);
		pos = up;
	}
	heap_set(v, c, pos, n);
}

static void heap_down(struct frac_view *v, struct frac_class *c, int pos)
{
	int n = c->heap[pos], kid;

	for (;;) {
		kid = 2 * pos + 1;
		if (kid >= c->nheap)
			break;
		if (kid + 1 < c->nheap &&
		    frac_before(v->nodes, c->heap[kid + 1], c->heap[kid]))
			kid++;
		if (!frac_before(v->nodes, c->heap[kid], n))
			break;
		heap_set(v, c, pos, c->heap[kid]);
		pos = kid;
	}
	heap_set(v, c, pos, n);
}

/* ---- classes ---------------------------------------------------------------- */

/* Node n (its snapshot taken) joins the class of its key, made when
** none is live.  0 or SIM_ENOMEM (n then in no class: the run stops). */
static int cls_add(struct frac_view *v, int n)
{
	struct cls_key k;
	struct frac_class *c;
	uint64_t h;
	int id, b;

	key_of(&v->nodes[n], &k);
	h = key_hash(&k);
	b = (int)(h & (uint64_t)(v->nbucket - 1));
	for (id = v->bucket[b]; id >= 0; id = v->cls[id].next)
		if (v->cls[id].hash == h && key_eq(&v->cls[id].key, &k))
			break;
	if (id < 0) {
		id = v->free_cls[--v->nfree];
		c = &v->cls[id];
		c->key = k;
		c->hash = h;
		c->nheap = 0;
		c->next = v->bucket[b];
		v->bucket[b] = id;
		c->live_pos = v->nlive;
		v->live[v->nlive++] = id;
	}
	c = &v->cls[id];
	if (c->nheap == c->capheap) {
		int cap = c->capheap ? 2 * c->capheap : 4;
		int *q = realloc(c->heap, (size_t)cap * sizeof *q);
		if (q == NULL)
			return SIM_ENOMEM;
		c->heap = q;
		c->capheap = cap;
	}
	v->node_cls[n] = id;
	c->heap[c->nheap++] = n;
	heap_up(v, c, c->nheap - 1);
	v->rep[c->live_pos] = c->heap[0];
	return 0;
}

/* Node n leaves its class; an emptied class is freed. */
static void cls_remove(struct frac_view *v, int n)
{
	int id = v->node_cls[n], pos = v->node_pos[n], last, *pp, k;
	struct frac_class *c = &v->cls[id];

	last = c->heap[--c->nheap];
	if (pos < c->nheap) {
		heap_set(v, c, pos, last);
		heap_up(v, c, pos);
		heap_down(v, c, v->node_pos[last]);
	}
	v->node_cls[n] = -1;
	if (c->nheap > 0) {
		v->rep[c->live_pos] = c->heap[0];
		return;
	}
	pp = &v->bucket[c->hash & (uint64_t)(v->nbucket - 1)];
	while (*pp != id)
		pp = &v->cls[*pp].next;
	*pp = c->next;
	k = c->live_pos;
	v->nlive--;
	if (k < v->nlive) {
		v->live[k] = v->live[v->nlive];
		v->rep[k] = v->rep[v->nlive];
		v->cls[v->live[k]].live_pos = k;
	}
	v->free_cls[v->nfree++] = id;
}

/* ---- snapshots ---------------------------------------------------------------- */

static void snap(struct world *w, struct frac_node *fn, int n)
{
	struct pol_node_info ni = pol_node(w, n);
	int k;

	fn->cpu_any = ni.cpu_milli == 0;
	fn->mem_any = ni.mem_mib == 0;
	fn->cpu_free_milli = ni.cpu_free_milli;
	fn->mem_free_mib = ni.mem_free_mib;
	fn->ngpus = ni.ngpus;
	fn->gpu0 = ni.gpu;
	fn->tiebreak_rank = ni.rank;
	fn->version = ni.version;
	for (k = 0; k < ni.ngpus && k < FRAC_MAX_GPUS; k++)
		fn->gpu_free_milli[k] = pol_gpu(w, ni.gpu + k).share_free_milli;
}

static void mark(struct frac_view *v, int n)
{
	if (n < 0 || n >= v->nnodes || v->is_dirty[n])
		return;
	v->is_dirty[n] = 1;
	v->dirty[v->ndirty++] = n;
}

/* Records node n's empty shape unless an equal one is known. */
static void add_shape(struct frac_view *v, const struct pol_node_info *ni)
{
	struct frac_node e;
	int k;

	memset(&e, 0, sizeof e);
	e.cpu_any = ni->cpu_milli == 0;
	e.mem_any = ni->mem_mib == 0;
	e.cpu_free_milli = ni->cpu_milli;
	e.mem_free_mib = ni->mem_mib;
	e.ngpus = ni->ngpus;
	for (k = 0; k < ni->ngpus && k < FRAC_MAX_GPUS; k++)
		e.gpu_free_milli[k] = FRAC_MILLI_PER_GPU;
	for (k = 0; k < v->nshapes; k++)
		if (v->shapes[k].cpu_any == e.cpu_any &&
		    v->shapes[k].mem_any == e.mem_any &&
		    v->shapes[k].cpu_free_milli == e.cpu_free_milli &&
		    v->shapes[k].mem_free_mib == e.mem_free_mib &&
		    v->shapes[k].ngpus == e.ngpus)
			return;
	v->shapes[v->nshapes++] = e;
}

int frac_view_init(struct world *w, struct frac_view *v, struct sim_err *err)
{
	size_t nn;
	int n, g, k, rc;

	sim_oset_init(&v->cpu_pods);
	v->nnodes = pol_nnodes(w);
	v->ngpus = pol_ngpus(w);
	nn = (size_t)(v->nnodes > 0 ? v->nnodes : 1);
	for (v->nbucket = 16; (size_t)v->nbucket < 2 * nn; v->nbucket *= 2)
		;
	v->nodes = calloc(nn, sizeof *v->nodes);
	v->cls = calloc(nn, sizeof *v->cls);
	v->live = malloc(nn * sizeof *v->live);
	v->rep = malloc(nn * sizeof *v->rep);
	v->free_cls = malloc(nn * sizeof *v->free_cls);
	v->bucket = malloc((size_t)v->nbucket * sizeof *v->bucket);
	v->node_cls = malloc(nn * sizeof *v->node_cls);
	v->node_pos = malloc(nn * sizeof *v->node_pos);
	v->dirty = malloc(nn * sizeof *v->dirty);
	v->is_dirty = calloc(nn, 1);
	v->shapes = malloc(nn * sizeof *v->shapes);
	v->gpu_node = malloc((size_t)(v->ngpus > 0 ? v->ngpus : 1) *
			     sizeof *v->gpu_node);
	if (v->nodes == NULL || v->cls == NULL || v->live == NULL ||
	    v->rep == NULL || v->free_cls == NULL || v->bucket == NULL ||
	    v->node_cls == NULL || v->node_pos == NULL || v->dirty == NULL ||
	    v->is_dirty == NULL || v->shapes == NULL || v->gpu_node == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (k = 0; k < v->nbucket; k++)
		v->bucket[k] = -1;
	for (k = 0; k < (int)nn; k++)
		v->free_cls[k] = (int)nn - 1 - k;
	v->nfree = (int)nn;
	for (g = 0; g < v->ngpus; g++)
		v->gpu_node[g] = -1;
	for (n = 0; n < v->nnodes; n++) {
		struct pol_node_info ni = pol_node(w, n);

		if (ni.ngpus > FRAC_MAX_GPUS)
			return sim_err_set(err, SIM_EINVAL, "node %d has %d "
					   "GPUs; the share policies handle at "
					   "most %d per node", n, ni.ngpus,
					   FRAC_MAX_GPUS);
		for (g = ni.gpu; g < ni.gpu + ni.ngpus; g++)
			if (g >= 0 && g < v->ngpus)
				v->gpu_node[g] = n;
		add_shape(v, &ni);
		snap(w, &v->nodes[n], n);
		if (cls_add(v, n) != 0)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (g = 0; g < v->ngpus; g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS, err)) != 0)
			return rc;
	return 0;
}

void frac_view_fini(struct frac_view *v)
{
	int k;

	if (v->cls != NULL)
		for (k = 0; k < (v->nnodes > 0 ? v->nnodes : 1); k++)
			free(v->cls[k].heap);
	free(v->nodes);
	free(v->cls);
	free(v->live);
	free(v->rep);
	free(v->free_cls);
	free(v->bucket);
	free(v->node_cls);
	free(v->node_pos);
	free(v->dirty);
	free(v->is_dirty);
	free(v->shapes);
	free(v->gpu_node);
	sim_oset_fini(&v->cpu_pods);
	v->nodes = NULL;
	v->cls = NULL;
	v->live = v->rep = v->free_cls = v->bucket = NULL;
	v->node_cls = v->node_pos = v->dirty = v->gpu_node = NULL;
	v->is_dirty = NULL;
	v->shapes = NULL;
}

/* Marks the nodes of the world's changed GPUs not seen yet. */
static void collect(struct world *w, struct frac_view *v)
{
	int k, g, nc = pol_nchanged(w);

	if (v->chg_seen > nc)          /* emptied behind our back */
		v->chg_seen = 0;
	for (k = v->chg_seen; k < nc; k++) {
		g = pol_changed_at(w, k);
		if (g >= 0 && g < v->ngpus)
			mark(v, v->gpu_node[g]);
	}
	v->chg_seen = nc;
}

int frac_view_refresh(struct world *w, struct frac_view *v)
{
	int n, rc;

	collect(w, v);
	while (v->ndirty > 0) {
		n = v->dirty[--v->ndirty];
		v->is_dirty[n] = 0;
		if (pol_node(w, n).version == v->nodes[n].version)
			continue;
		cls_remove(v, n);
		snap(w, &v->nodes[n], n);
		if ((rc = cls_add(v, n)) != 0)
			return rc;
	}
	return 0;
}

void frac_view_pass_end(struct world *w, struct frac_view *v)
{
	collect(w, v);
	v->chg_seen = 0;
}

int frac_view_placed(struct frac_view *v, int j, int node, int ngpu)
{
	int h;

	mark(v, node);
	if (ngpu > 0 || j < 0)
		return 0;
	h = sim_oset_lower_bound(&v->cpu_pods, j, 0, j);
	if (h >= 0 && sim_oset_id(&v->cpu_pods, h) == j) {
		sim_oset_update(&v->cpu_pods, h, j, 0, node);
		return 0;
	}
	return sim_oset_insert(&v->cpu_pods, j, 0, j, node) < 0 ?
		SIM_ENOMEM : 0;
}

int frac_view_on_finish(struct frac_view *v, int j)
{
	int h = j >= 0 ? sim_oset_lower_bound(&v->cpu_pods, j, 0, j) : -1;

	if (h >= 0 && sim_oset_id(&v->cpu_pods, h) == j) {
		mark(v, (int)sim_oset_aux(&v->cpu_pods, h));
		sim_oset_remove(&v->cpu_pods, h);
	}
	return 0;
}

int frac_view_fits_empty(const struct frac_view *v, const struct frac_pod *p)
{
	int k;

	for (k = 0; k < v->nshapes; k++)
		if (frac_node_fits(&v->shapes[k], p))
			return 1;
	return 0;
}
