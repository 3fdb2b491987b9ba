/*
** qsched.c: the pass shared by the queue-order schedulers (qsched.h).
*/
#include "policies/qsched.h"

#include <stdlib.h>
#include <string.h>

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
	q->gpus = calloc((size_t)(ng > 0 ? ng : 1), sizeof *q->gpus);
	if (q->node_first == NULL || q->node_size == NULL ||
	    q->node_free == NULL || q->node_taken == NULL || q->gpus == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = ng - 1; g >= 0; g--) {
		struct pol_gpu_info gi = pol_gpu(w, g);
		if (gi.node < 0 || gi.node >= q->nnodes)
			continue;
		q->node_first[gi.node] = g;     /* GPUs of a node are
						   consecutive */
		q->node_size[gi.node]++;
	}
	for (n = 0; n < q->nnodes; n++)
		if (q->node_size[n] > q->max_node)
			q->max_node = q->node_size[n];
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
	free(q->job);
	free(q->act);
	free(q->node_first);
	free(q->node_size);
	free(q->node_free);
	free(q->node_taken);
	free(q->gpus);
	memset(q, 0, sizeof *q);
}

/* Takes g GPUs from the node free counts in q->node_free (the what-if or
** the actual state); 1 if they fit.  With `use` set, consumes them and
** records the chosen nodes in q->node_taken (1 whole, 2 partial). */
static int take_nodes(struct qsched *q, int g, int use)
{
	int n, rem = g, last = -1;

	for (n = 0; n < q->nnodes; n++)
		q->node_taken[n] = 0;
	if (g <= q->max_node) {
		for (n = 0; n < q->nnodes; n++)
			if (q->node_free[n] >= g)
				break;
		if (n == q->nnodes)
			return 0;
		if (use) {
			q->node_free[n] -= g;
			q->node_taken[n] = 2;
		}
		return 1;
	}
	for (n = 0; n < q->nnodes && rem > 0; n++)
		if (q->node_free[n] == q->node_size[n] &&
		    q->node_size[n] <= rem) {
			q->node_taken[n] = 1;
			rem -= q->node_size[n];
		}
	if (rem > 0) {
		for (n = 0; n < q->nnodes; n++)
			if (!q->node_taken[n] && q->node_free[n] >= rem)
				break;
		if (n == q->nnodes)
			return 0;
		last = n;
	}
	if (!use)
		return 1;
	for (n = 0; n < q->nnodes; n++)
		if (q->node_taken[n] == 1)
			q->node_free[n] = 0;
	if (last >= 0) {
		q->node_free[last] -= rem;
		q->node_taken[last] = 2;
	}
	return 1;
}

/* 1 if job j could run on the empty cluster under this placement. */
static int fits_ever(struct qsched *q, struct world *w, int j)
{
	struct pol_job_info ji = pol_job(w, j);
	int n;

	if (ji.gpus > pol_ngpus(w) || !pol_job_fits_empty(w, j))
		return 0;
	if (q->placement != QS_PLACE_NODE)
		return 1;
	for (n = 0; n < q->nnodes; n++)
		q->node_free[n] = q->node_size[n];
	return take_nodes(q, ji.gpus, 0);
}

int qs_arrive(struct qsched *q, struct world *w, int j, const char *policy)
{
	struct pol_job_info ji = pol_job(w, j);
	char why[96];

	if (j >= q->njob) {
		int n = q->njob ? 2 * q->njob : 256;
		struct qs_job *p;
		while (n <= j)
			n *= 2;
		p = realloc(q->job, (size_t)n * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		memset(p + q->njob, 0, (size_t)(n - q->njob) * sizeof *p);
		q->job = p;
		q->njob = n;
	}
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
	if (q->nact == q->act_cap) {
		int n = q->act_cap ? 2 * q->act_cap : 256;
		int *p = realloc(q->act, (size_t)n * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		q->act = p;
		q->act_cap = n;
	}
	memset(&q->job[j], 0, sizeof q->job[j]);
	q->job[j].active = 1;
	q->job[j].last_ns = pol_now(w);
	q->act[q->nact++] = j;
	return 1;
}

void qs_finish(struct qsched *q, int j)
{
	int k;

	if (j < 0 || j >= q->njob || !q->job[j].active)
		return;
	q->job[j].active = 0;
	for (k = 0; k < q->nact && q->act[k] != j; k++)
		;
	if (k < q->nact) {
		memmove(q->act + k, q->act + k + 1,
			(size_t)(q->nact - k - 1) * sizeof *q->act);
		q->nact--;
	}
}

void qs_settle(struct qsched *q, struct world *w)
{
	sim_time now = pol_now(w);
	int k;

	for (k = 0; k < q->nact; k++) {
		struct qs_job *x = &q->job[q->act[k]];
		double dt = (double)(now - x->last_ns);
		if (pol_job(w, q->act[k]).state == POL_JOB_RUNNING) {
			x->exec_ns += dt;
			x->total_exec_ns += dt;
		} else if (x->exec_ns > 0) {
			x->pend_ns += dt;
		}
		x->last_ns = now;
	}
}

void qs_sort(struct qsched *q)
{
	int k, i;

	for (k = 1; k < q->nact; k++) {        /* insertion sort: stable */
		int j = q->act[k];
		const struct qs_job *x = &q->job[j];
		for (i = k; i > 0; i--) {
			const struct qs_job *y = &q->job[q->act[i - 1]];
			if (y->klass != x->klass ? y->klass < x->klass :
			    y->key != x->key ? y->key < x->key :
			    y->key2 != x->key2 ? y->key2 < x->key2 :
			    y->seq <= x->seq)
				break;
			q->act[i] = q->act[i - 1];
		}
		q->act[i] = j;
	}
}

/* The node free counts of the actual cluster (exclusive GPUs). */
static void actual_free(struct qsched *q, struct world *w)
{
	int n, g;

	for (n = 0; n < q->nnodes; n++) {
		q->node_free[n] = 0;
		for (g = q->node_first[n];
		     g < q->node_first[n] + q->node_size[n]; g++)
			q->node_free[n] += pol_gpu(w, g).ntenants == 0;
	}
}

/* Chooses GPUs for job j on the actual cluster into q->gpus; 1 if found. */
static int choose(struct qsched *q, struct world *w, int j, int need)
{
	int n, g, got = 0, pass;

	if (q->placement != QS_PLACE_NODE) {
		for (g = 0; g < pol_ngpus(w) && got < need; g++)
			if (pol_gpu(w, g).ntenants == 0)
				q->gpus[got++] = g;
		return got == need;
	}
	(void)j;
	actual_free(q, w);
	if (!take_nodes(q, need, 1))
		return 0;
	for (pass = 1; pass <= 2; pass++)       /* whole nodes, then the rest */
		for (n = 0; n < q->nnodes; n++) {
			int want = q->node_taken[n] != pass ? 0 : pass == 1 ?
				q->node_size[n] : need - got;
			for (g = q->node_first[n]; g < q->node_first[n] +
			     q->node_size[n] && want > 0; g++)
				if (pol_gpu(w, g).ntenants == 0) {
					q->gpus[got++] = g;
					want--;
				}
		}
	return got == need;
}

/* Takes every running active job off its GPUs (a re-pack). */
static int preempt_all(struct qsched *q, struct world *w, int *moved)
{
	struct sim_err e = { 0, "" };
	int k, rc;

	for (k = 0; k < q->nact; k++)
		if (pol_job(w, q->act[k]).state == POL_JOB_RUNNING) {
			if ((rc = pol_preempt(w, q->act[k], &e)) != 0)
				return rc;
			(*moved)++;
		}
	return 0;
}

void qs_whatif(struct qsched *q, struct world *w)
{
	int n;

	for (n = 0; n < q->nnodes; n++)
		q->node_free[n] = q->node_size[n];
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
	return choose(q, w, -1, g);
}

int qs_apply(struct qsched *q, struct world *w)
{
	struct sim_err e = { 0, "" };
	int k, n, rc, free_gpus = pol_ngpus(w), repacked = 0, moved = 0;

	/* the desired set, on an empty cluster */
	for (n = 0; n < q->nnodes; n++)
		q->node_free[n] = q->node_size[n];
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k], g = pol_job(w, j).gpus;
		if (pol_job(w, j).state == POL_JOB_SWAPPING_OUT) {
			q->job[j].want = 0;     /* on its way out */
			continue;
		}
		if (q->placement == QS_PLACE_NODE) {
			q->job[j].want = take_nodes(q, g, 1);
		} else {
			q->job[j].want = g <= free_gpus;
			if (q->job[j].want)
				free_gpus -= g;
		}
	}
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k];
		if (!q->job[j].want &&
		    pol_job(w, j).state == POL_JOB_RUNNING &&
		    (rc = pol_preempt(w, j, &e)) != 0)
			return rc;
	}
again:
	for (k = 0; k < q->nact; k++) {
		int j = q->act[k];
		struct pol_job_info ji = pol_job(w, j);
		if (!q->job[j].want || (ji.state != POL_JOB_PENDING &&
					ji.state != POL_JOB_PREEMPTED))
			continue;          /* running, or a swap copy in flight */
		if (!choose(q, w, j, ji.gpus)) {
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
		rc = pol_place(w, j, q->gpus, ji.gpus, NULL, &e);
		if (rc < 0 && rc != SIM_ENOSPC && rc != SIM_ESTATE)
			return rc;
	}
	if (repacked) {
		pol_add_metric(w, "qsched_repacks", 1);
		pol_add_metric(w, "qsched_repack_moves", moved);
	}
	return 0;
}
