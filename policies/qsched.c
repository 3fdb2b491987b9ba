/*
** qsched.c: the pass shared by the queue-order schedulers (qsched.h).
*/
#include "policies/qsched.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Node n's what-if free count is f: node_free and the two sets. */
static void wi_set(struct qsched *q, int n, int f)
{
	q->node_free[n] = f;
	sim_oset_update(&q->wi_free, q->wi_hfree[n], n, 0, -(int64_t)f);
	sim_oset_update(&q->wi_whole, q->wi_hwhole[n], n, 0,
			f == q->node_size[n] ? q->node_size[n] : INT64_MAX);
	if (!q->wi_in_dirty[n]) {
		q->wi_in_dirty[n] = 1;
		q->wi_dirty[q->nwi_dirty++] = n;
	}
}

/* The what-if cluster empty again: every node changed since the last
** reset back to its size. */
static void wi_reset(struct qsched *q)
{
	int k;

	for (k = 0; k < q->nwi_dirty; k++) {
		int n = q->wi_dirty[k];
		q->node_free[n] = q->node_size[n];
		sim_oset_update(&q->wi_free, q->wi_hfree[n], n, 0,
				-(int64_t)q->node_size[n]);
		sim_oset_update(&q->wi_whole, q->wi_hwhole[n], n, 0,
				q->node_size[n]);
		q->wi_in_dirty[n] = 0;
	}
	q->nwi_dirty = 0;
}

/* The lowest what-if node >= from with at least k free; -1. */
static int wi_next_free(const struct qsched *q, int from, int k)
{
	int h = sim_oset_first_aux_le(&q->wi_free, from, 0, 0, -(int64_t)k);

	return h < 0 ? -1 : sim_oset_id(&q->wi_free, h);
}

/* The lowest wholly free what-if node >= from of at most k GPUs; -1. */
static int wi_next_whole(const struct qsched *q, int from, int k)
{
	int h = sim_oset_first_aux_le(&q->wi_whole, from, 0, 0, k);

	return h < 0 ? -1 : sim_oset_id(&q->wi_whole, h);
}

int qs_index_check(const struct qsched *q)
{
	int n;

	for (n = 0; n < q->nnodes; n++) {
		int64_t whole = q->node_free[n] == q->node_size[n] ?
			q->node_size[n] : INT64_MAX;
		if (sim_oset_id(&q->wi_free, q->wi_hfree[n]) != n ||
		    sim_oset_aux(&q->wi_free, q->wi_hfree[n]) !=
		    -(int64_t)q->node_free[n] ||
		    sim_oset_id(&q->wi_whole, q->wi_hwhole[n]) != n ||
		    sim_oset_aux(&q->wi_whole, q->wi_hwhole[n]) != whole ||
		    (!q->wi_in_dirty[n] &&
		     q->node_free[n] != q->node_size[n]))
			return n;
	}
	return -1;
}

int qs_init(struct qsched *q, struct world *w, int placement,
	    struct sim_err *err)
{
	int g, n, ng = pol_ngpus(w);

	memset(q, 0, sizeof *q);
	q->placement = placement;
	q->nnodes = pol_nnodes(w);
	n = q->nnodes > 0 ? q->nnodes : 1;
	q->node_first = calloc((size_t)n, sizeof *q->node_first);
	q->node_size = calloc((size_t)n, sizeof *q->node_size);
	q->node_free = calloc((size_t)n, sizeof *q->node_free);
	q->node_taken = calloc((size_t)n, sizeof *q->node_taken);
	q->taken = calloc((size_t)n, sizeof *q->taken);
	q->wi_hfree = calloc((size_t)n, sizeof *q->wi_hfree);
	q->wi_hwhole = calloc((size_t)n, sizeof *q->wi_hwhole);
	q->wi_dirty = calloc((size_t)n, sizeof *q->wi_dirty);
	q->wi_in_dirty = calloc((size_t)n, 1);
	q->fit_empty = calloc((size_t)(ng > 0 ? ng : 1) + 1, 1);
	q->gpus = calloc((size_t)(ng > 0 ? ng : 1), sizeof *q->gpus);
	sim_oset_init(&q->wi_free);
	sim_oset_init(&q->wi_whole);
	if (q->node_first == NULL || q->node_size == NULL ||
	    q->node_free == NULL || q->node_taken == NULL || q->gpus == NULL ||
	    q->taken == NULL || q->wi_hfree == NULL || q->wi_hwhole == NULL ||
	    q->wi_dirty == NULL || q->wi_in_dirty == NULL ||
	    q->fit_empty == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = ng - 1; g >= 0; g--) {
		struct pol_gpu_info gi = pol_gpu(w, g);
		if (gi.node < 0 || gi.node >= q->nnodes)
			continue;
		q->node_first[gi.node] = g;     /* GPUs of a node are
						   consecutive */
		q->node_size[gi.node]++;
	}
	for (n = 0; n < q->nnodes; n++) {
		if (q->node_size[n] > q->max_node)
			q->max_node = q->node_size[n];
		q->node_free[n] = q->node_size[n];
		q->wi_hfree[n] = sim_oset_insert(&q->wi_free, n, 0, n,
						 -(int64_t)q->node_size[n]);
		q->wi_hwhole[n] = sim_oset_insert(&q->wi_whole, n, 0, n,
						  q->node_size[n]);
		if (q->wi_hfree[n] < 0 || q->wi_hwhole[n] < 0)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	for (g = 0; g < ng; g++) {
		int rc = pol_set_gpu_mode(w, g, POL_GPU_EXCLUSIVE, err);
		if (rc != 0)
			return rc;
	}
	return 0;
}

const char *const qs_place_names[] = { "any", "node", NULL };

void qs_fini(struct qsched *q)
{
	free(q->act);
	free(q->actx);
	free(q->sact);
	free(q->sactx);
	free(q->node_first);
	free(q->node_size);
	free(q->node_free);
	free(q->node_taken);
	free(q->taken);
	free(q->wi_hfree);
	free(q->wi_hwhole);
	free(q->wi_dirty);
	free(q->wi_in_dirty);
	free(q->fit_empty);
	sim_oset_fini(&q->wi_free);
	sim_oset_fini(&q->wi_whole);
	free(q->gpus);
	memset(q, 0, sizeof *q);
}

/* The node walk of the yarn rule for more than one node's GPUs, over
** either index (the what-if sets or the world's node indexes; the two
** differ only in where "wholly free" and "k free" are looked up): the
** lowest wholly free nodes of at most the GPUs still to place, in index
** order, into q->taken (their number in *ntaken), then the lowest other
** node with enough free for the rest (*last, -1 when none is needed).
** Returns the GPUs left to place on *last (0 when whole nodes sufficed),
** or -1 when they do not fit. */
static int walk_nodes(struct qsched *q, const void *ctx, int g,
		      int (*whole)(const void *, int, int),
		      int (*free_k)(const void *, int, int),
		      int *ntaken, int *last)
{
	int n, k, rem = g, from = 0;

	*ntaken = 0;
	*last = -1;
	while (rem > 0 && (n = whole(ctx, from, rem)) >= 0) {
		q->taken[(*ntaken)++] = n;
		q->node_taken[n] = 1;
		rem -= q->node_size[n];
		from = n + 1;
	}
	for (from = 0; rem > 0; from = n + 1) {
		if ((n = free_k(ctx, from, rem)) < 0)
			break;
		if (!q->node_taken[n]) {
			*last = n;
			break;
		}
	}
	for (k = 0; k < *ntaken; k++)
		q->node_taken[q->taken[k]] = 0;
	return rem > 0 && *last < 0 ? -1 : rem;
}

static int wi_whole_at(const void *ctx, int from, int rem)
{
	return wi_next_whole(ctx, from, rem);
}

static int wi_free_at(const void *ctx, int from, int rem)
{
	return wi_next_free(ctx, from, rem);
}

/* Takes g GPUs from the what-if cluster, as the peers' yarn scheme: a job
** of at most one node's GPUs on the lowest node with g free; a larger one
** on the lowest wholly free nodes of at most the GPUs still to place (in
** index order), the rest on the lowest other node with enough free.  1 if
** they fit; with `use` set, consumes them. */
static int take_nodes(struct qsched *q, int g, int use)
{
	int n, k, rem, ntaken, last;

	if (g <= q->max_node) {
		if ((n = wi_next_free(q, 0, g)) < 0)
			return 0;
		if (use)
			wi_set(q, n, q->node_free[n] - g);
		return 1;
	}
	if ((rem = walk_nodes(q, q, g, wi_whole_at, wi_free_at, &ntaken,
			      &last)) < 0)
		return 0;
	if (!use)
		return 1;
	for (k = 0; k < ntaken; k++)
		wi_set(q, q->taken[k], 0);
	if (last >= 0)
		wi_set(q, last, q->node_free[last] - rem);
	return 1;
}

/* 1 if g GPUs fit the empty cluster's nodes under the node placement
** (take_nodes on every node free), from a walk of the nodes once per
** count. */
static int fits_empty_nodes(struct qsched *q, int g)
{
	int n, rem = g;

	if (q->fit_empty[g] != 0)
		return q->fit_empty[g] == 1;
	if (g <= q->max_node) {
		q->fit_empty[g] = 1;
		return 1;
	}
	for (n = 0; n < q->nnodes; n++)
		q->node_taken[n] = 0;
	for (n = 0; n < q->nnodes && rem > 0; n++)
		if (q->node_size[n] <= rem) {
			q->node_taken[n] = 1;
			rem -= q->node_size[n];
		}
	for (n = 0; rem > 0 && n < q->nnodes; n++)
		if (!q->node_taken[n] && q->node_size[n] >= rem)
			break;
	q->fit_empty[g] = rem <= 0 || n < q->nnodes ? 1 : 2;
	for (n = 0; n < q->nnodes; n++)
		q->node_taken[n] = 0;
	return q->fit_empty[g] == 1;
}

/* 1 if job j could run on the empty cluster under this placement. */
static int fits_ever(struct qsched *q, struct world *w, int j)
{
	struct pol_job_info ji = pol_job(w, j);

	if (ji.gpus > pol_ngpus(w) || !pol_job_fits_empty(w, j))
		return 0;
	if (q->placement != QS_PLACE_NODE)
		return 1;
	return fits_empty_nodes(q, ji.gpus);
}

struct qs_job *qs_job(const struct world *w, int j)
{
	return pol_job_priv(w, j);
}

size_t qs_job_bytes(const struct qsched *q)
{
	return (size_t)q->act_cap * (sizeof *q->act + sizeof *q->actx) +
		(size_t)q->sort_cap * (sizeof *q->sact + sizeof *q->sactx);
}

int qs_active(const struct world *w, int j)
{
	const struct qs_job *x = qs_job(w, j);

	return x != NULL && x->active;
}

int qs_arrive(struct qsched *q, struct world *w, int j, const char *policy)
{
	struct pol_job_info ji = pol_job(w, j);
	struct qs_job *x;
	char why[96];
	int n;

	if (ji.kind != POL_TRAIN || ji.gpus == 0) {
		snprintf(why, sizeof why, "%s schedules training jobs on "
			 "GPUs only", policy);
		pol_fail_job(w, j, why);
		return 0;
	}
	if (!fits_ever(q, w, j)) {
		pol_fail_job(w, j, q->placement == QS_PLACE_NODE ?
			     "needs more GPUs or memory than the cluster's "
			     "nodes have" : "needs more GPUs or memory than "
			     "the cluster has");
		return 0;
	}
	if ((x = qs_job(w, j)) == NULL)
		return SIM_ENOMEM;
	if (q->nact == q->act_cap) {
		int *p;
		struct qs_job **px;
		n = q->act_cap ? 2 * q->act_cap : 256;
		if ((p = realloc(q->act, (size_t)n * sizeof *p)) == NULL)
			return SIM_ENOMEM;
		q->act = p;
		if ((px = realloc(q->actx, (size_t)n * sizeof *px)) == NULL)
			return SIM_ENOMEM;
		q->actx = px;
		q->act_cap = n;
	}
	memset(x, 0, sizeof *x);
	x->active = 1;
	x->gpus = ji.gpus;
	x->submit_ns = ji.submit_ns;
	x->last_ns = pol_now(w);
	q->actx[q->nact] = x;
	q->act[q->nact++] = j;
	return 1;
}

void qs_finish(struct qsched *q, struct world *w, int j)
{
	struct qs_job *x = qs_job(w, j);
	int k;

	if (x == NULL || !x->active)
		return;
	x->active = 0;
	for (k = 0; k < q->nact && q->act[k] != j; k++)
		;
	if (k < q->nact) {
		memmove(q->act + k, q->act + k + 1,
			(size_t)(q->nact - k - 1) * sizeof *q->act);
		memmove(q->actx + k, q->actx + k + 1,
			(size_t)(q->nact - k - 1) * sizeof *q->actx);
		q->nact--;
	}
}

void qs_settle(struct qsched *q, struct world *w)
{
	sim_time now = pol_now(w);
	int k;

	for (k = 0; k < q->nact; k++)
		qs_settle_job(q->actx[k], pol_job_state(w, q->act[k]), now);
}

/* 1 if record y goes strictly after x in (klass, key, key2, seq). */
static int goes_after(const struct qs_job *y, const struct qs_job *x)
{
	return !(y->klass != x->klass ? y->klass < x->klass :
		 y->key != x->key ? y->key < x->key :
		 y->key2 != x->key2 ? y->key2 < x->key2 :
		 y->seq <= x->seq);
}

/* 1 if a key of x is NaN (the order is then no preorder). */
static int has_nan(const struct qs_job *x)
{
	return x->key != x->key || x->key2 != x->key2;
}

/* Sorts act[0..nact) (with actx) by goes_after, stable, with the
** scratch (sact, sactx): a bottom-up merge sort, O(A log A). */
static void merge_sort(struct qsched *q)
{
	int *sa = q->act, *da = q->sact, *ta;
	struct qs_job **sx = q->actx, **dx = q->sactx, **tx;
	int width, lo, n = q->nact;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			int mid = lo + width < n ? lo + width : n;
			int hi = lo + 2 * width < n ? lo + 2 * width : n;
			int a = lo, b = mid, k = lo;
			while (a < mid && b < hi) {
				int r = goes_after(sx[a], sx[b]);
				int from = r ? b++ : a++;
				da[k] = sa[from];
				dx[k++] = sx[from];
			}
			for (; a < mid; a++, k++) {
				da[k] = sa[a];
				dx[k] = sx[a];
			}
			for (; b < hi; b++, k++) {
				da[k] = sa[b];
				dx[k] = sx[b];
			}
		}
		ta = sa, sa = da, da = ta;
		tx = sx, sx = dx, dx = tx;
	}
	if (sa != q->act) {
		memcpy(q->act, sa, (size_t)n * sizeof *sa);
		memcpy(q->actx, sx, (size_t)n * sizeof *sx);
	}
}

/* 1 if the merge sort may finish qs_sort's work: its scratch there (made
** on first use, at the active order's capacity) and no NaN key (with
** one the insertion sort's comparison is no preorder, and only the
** insertion sort's own walk gives its order). */
static int can_merge(struct qsched *q)
{
	int k;

	for (k = 0; k < q->nact; k++)
		if (has_nan(q->actx[k]))
			return 0;
	if (q->sort_cap < q->act_cap) {
		free(q->sact);
		free(q->sactx);
		q->sact = malloc((size_t)q->act_cap * sizeof *q->sact);
		q->sactx = malloc((size_t)q->act_cap * sizeof *q->sactx);
		q->sort_cap = q->sact != NULL && q->sactx != NULL ?
			q->act_cap : 0;
	}
	return q->sort_cap >= q->nact;
}

void qs_sort(struct qsched *q, struct world *w)
{
	long moved = 0, budget = 16L * q->nact + 4096;
	int k, i;

	(void)w;
	/* insertion sort, stable: O(A + inversions).  Past a budget of
	** moves (an order that turns over: themis's rho) a stable merge
	** sort finishes: the prefix sorted so far and the rest untouched
	** are the original order with ties kept, so a stable sort of them
	** is the insertion sort's order. */
	for (k = 1; k < q->nact; k++) {
		int j = q->act[k];
		struct qs_job *x = q->actx[k];
		for (i = k; i > 0; i--) {
			const struct qs_job *y = q->actx[i - 1];
			if (!goes_after(y, x))
				break;
			q->act[i] = q->act[i - 1];
			q->actx[i] = q->actx[i - 1];
		}
		q->act[i] = j;
		q->actx[i] = x;
		moved += k - i;
		if (moved > budget && k + 1 < q->nact) {
			if (can_merge(q)) {
				merge_sort(q);
				return;
			}
			budget = LONG_MAX;
		}
	}
}

/* Appends to q->gpus from *got the lowest `want` GPUs without tenants of
** node n (the world's idle-GPU tree). */
static void node_gpus(struct qsched *q, struct world *w, int n, int want,
		      int *got)
{
	int g = q->node_first[n] - 1, end = q->node_first[n] + q->node_size[n];

	while (want > 0 &&
	       (g = pol_gpu_next_fit(w, g + 1, 0, POL_FIT_IDLE)) >= 0 &&
	       g < end) {
		q->gpus[(*got)++] = g;
		want--;
	}
}

static int world_whole_at(const void *ctx, int from, int rem)
{
	return pol_node_next_whole(ctx, from, rem);
}

static int world_idle_at(const void *ctx, int from, int rem)
{
	return pol_node_next_idle(ctx, from, rem);
}

/* Chooses `need` GPUs on the actual cluster (GPUs without tenants) into
** q->gpus; 1 if found.  Any: the lowest idle GPUs.  Node: take_nodes's
** rule over the world's node indexes (a node's idle GPUs are its free
** ones); the whole nodes' GPUs first, in node order, then the rest's. */
static int choose(struct qsched *q, struct world *w, int need)
{
	int n, k, g, got = 0, rem, ntaken, last;

	if (q->placement != QS_PLACE_NODE) {
		for (g = -1; got < need &&
		     (g = pol_gpu_next_fit(w, g + 1, 0, POL_FIT_IDLE)) >= 0;)
			q->gpus[got++] = g;
		return got == need;
	}
	if (need <= q->max_node) {
		if ((n = pol_node_next_idle(w, 0, need)) < 0)
			return 0;
		node_gpus(q, w, n, need, &got);
		return got == need;
	}
	if ((rem = walk_nodes(q, w, need, world_whole_at, world_idle_at,
			      &ntaken, &last)) < 0)
		return 0;
	for (k = 0; k < ntaken; k++)
		node_gpus(q, w, q->taken[k], q->node_size[q->taken[k]], &got);
	if (last >= 0)
		node_gpus(q, w, last, rem, &got);
	return got == need;
}

/* Takes every running active job off its GPUs (a re-pack). */
static int preempt_all(struct qsched *q, struct world *w, int *moved)
{
	struct sim_err e = { 0, "" };
	int k, rc;

	for (k = 0; k < q->nact; k++)
		if (pol_job_state(w, q->act[k]) == POL_JOB_RUNNING) {
			if ((rc = pol_preempt(w, q->act[k], &e)) != 0)
				return rc;
			(*moved)++;
		}
	return 0;
}

void qs_whatif(struct qsched *q, struct world *w)
{
	wi_reset(q);
	q->whatif_free = pol_ngpus(w);
}

int qs_fits(struct qsched *q, int g)
{
	if (q->placement == QS_PLACE_NODE)
		return take_nodes(q, g, 1);
	if (g > q->whatif_free)
		return 0;
	q->whatif_free -= g;
	return 1;
}

int qs_choose(struct qsched *q, struct world *w, int g)
{
	return choose(q, w, g);
}

int qs_apply(struct qsched *q, struct world *w)
{
	struct sim_err e = { 0, "" };
	int k, rc, free_gpus = pol_ngpus(w), repacked = 0, moved = 0;
	int fresh = q->st_fresh;

	q->st_fresh = 0;
	/* the desired set, on an empty cluster */
	wi_reset(q);
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k];
		struct qs_job *x = q->actx[k];
		int g = x->gpus;
		if ((fresh ? x->st : pol_job_state(w, j)) ==
		    POL_JOB_SWAPPING_OUT) {
			x->want = 0;            /* on its way out */
			continue;
		}
		/* free_gpus bounds the what-if cluster's free GPUs under
		** either placement: past it, nothing to look up */
		x->want = g <= free_gpus &&
			(q->placement != QS_PLACE_NODE || take_nodes(q, g, 1));
		if (x->want)
			free_gpus -= g;
	}
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k];
		if (!q->actx[k]->want &&
		    (!fresh || q->actx[k]->st == POL_JOB_RUNNING) &&
		    pol_job_state(w, j) == POL_JOB_RUNNING &&
		    (rc = pol_preempt(w, j, &e)) != 0)
			return rc;
	}
again:
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k], st;
		int g = q->actx[k]->gpus;
		if (!q->actx[k]->want)
			continue;
		st = pol_job_state(w, j);
		if (st != POL_JOB_PENDING && st != POL_JOB_PREEMPTED)
			continue;          /* running, or a swap copy in flight */
		if (!choose(q, w, g)) {
			/* Fits the empty cluster but not around the running
			** jobs: re-pack once.  (GPUs a swap copy holds make
			** even that fail: the job waits for the copy.) */
			if (repacked || q->placement != QS_PLACE_NODE)
				continue;
			repacked = 1;
			if ((rc = preempt_all(q, w, &moved)) != 0)
				return rc;
			goto again;
		}
		q->actx[k]->nplace++;      /* tried: enough for its use */
		rc = pol_place(w, j, q->gpus, g, NULL, &e);
		if (rc < 0 && rc != SIM_ENOSPC && rc != SIM_ESTATE)
			return rc;
	}
	if (repacked) {
		pol_add_metric(w, "qsched_repacks", 1);
		pol_add_metric(w, "qsched_repack_moves", moved);
	}
	return 0;
}
