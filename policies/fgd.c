/*
** fgd.c: FGD (fragmentation gradient descent) placement of fractional-GPU
** jobs (policies/frac.h; docs/POLICIES.md, "bestfit and fgd";
** docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on the openb trace").
**
** Frag(node) is a sum over the typical pods; to reproduce the simulator's
** truncated integer scores the sum uses its order: each typical pod adds
** p_t * f to one of seven buckets (lack both, lack GPU, satisfied, lack CPU,
** no-GPU satisfied, no-GPU lack CPU, no access), and Frag is the sum of the
** buckets in that order, skipping "satisfied".  Frag depends only on
** which typical CPU requests the node's free CPU covers and on the
** multiset of its GPUs' free milli; a hash memo keyed by exactly that
** returns bit-identical values and makes a full openb run take about a
** second instead of minutes.  The memo is cleared when half full, which
** changes speed only.
**
** Cost per event (N nodes, P pending, k GPUs a node, C typical pod
** classes, L classes of equal nodes, policies/frac_view.c): a pass
** re-snapshots the nodes that changed (O(k log k + log m) each) and, for
** each pending job, scores one node per class of equal nodes (FGD's
** fragmentation delta, O(k C) on a memo miss, a hash lookup on a hit:
** O(L k) a job).  L is at most N but counts distinct node states: the
** empty nodes are one class, so on a large, lightly loaded cluster L
** follows the load, not N.  Worst case: a long queue on a cluster of
** all-different nodes (O(P N k) a pass).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/frac.h"

#define POLICY_NAME fgd
#define MEMO_WORDS 5
#define MEMO_CAP   (1u << 17)
#define MEMO_USED  (UINT64_C(1) << 63)

struct frac_fgd_memo_slot {
	uint64_t key[MEMO_WORDS];   /* key[0] has MEMO_USED set when occupied */
	double frag;
};

/* ---- typical pods ---- */

/* The simulator's PodResource.Less: cpu, gpu_milli, num_gpu (then
** gpu_spec, which the world does not carry: all equal). */
static int class_cmp(const struct frac_typical *a, const struct frac_typical *b)
{
	if (a->cpu_milli != b->cpu_milli)
		return a->cpu_milli < b->cpu_milli ? -1 : 1;
	if (a->gpu_milli != b->gpu_milli)
		return a->gpu_milli < b->gpu_milli ? -1 : 1;
	if (a->num_gpu != b->num_gpu)
		return a->num_gpu < b->num_gpu ? -1 : 1;
	return 0;
}

static int class_qcmp(const void *x, const void *y)
{
	return class_cmp(x, y);
}

/* Count descending, then class descending (sort.Reverse of the
** simulator's Less). */
static int rank_qcmp(const void *x, const void *y)
{
	const struct frac_typical *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return -class_cmp(a, b);
}

static int i64_qcmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

int frac_fgd_init(struct frac_fgd *f, const struct frac_pod *pods,
		  size_t npods, double threshold_pct, struct sim_err *err)
{
	struct frac_typical *all;
	size_t i, n = 0, take = 0;
	double total = (double)npods, expected, cum = 0.0;

	memset(f, 0, sizeof(*f));
	if (npods == 0)
		return sim_err_set(err, SIM_EINVAL, "FGD: no pods to learn"
				   " typical pods from");
	if (!(threshold_pct > 0.0 && threshold_pct <= 100.0))
		return sim_err_set(err, SIM_EINVAL, "FGD: typical-pod threshold"
				   " %g%% not in (0, 100]", threshold_pct);
	all = calloc(npods, sizeof(*all));
	if (all == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (i = 0; i < npods; i++) {
		all[i].cpu_milli = pods[i].cpu_milli;
		all[i].gpu_milli = pods[i].num_gpu > 0 ? pods[i].gpu_milli : 0;
		all[i].num_gpu = pods[i].num_gpu;
		all[i].count = 1;
	}
	qsort(all, npods, sizeof(*all), class_qcmp);
	for (i = 0; i < npods; i++) {
		if (n > 0 && class_cmp(&all[n - 1], &all[i]) == 0)
			all[n - 1].count++;
		else
			all[n++] = all[i];
	}
	qsort(all, n, sizeof(*all), rank_qcmp);
	/* Taken one class at a time while the cumulative count is below the
	** threshold (the simulator's podIncreaseStep 1). */
	expected = threshold_pct * total / 100.0;
	while (cum < expected && take < n) {
		cum += (double)all[take].count;
		all[take].p = (double)all[take].count / total;
		take++;
	}
	if (take < n)
		for (i = 0; i < take; i++)
			all[i].p /= cum / total;
	f->t = realloc(all, take * sizeof(*all));
	if (f->t == NULL)
		f->t = all;
	f->nt = take;
	f->cpu_levels = malloc(take * sizeof(*f->cpu_levels));
	f->memo = calloc(MEMO_CAP, sizeof(*f->memo));
	if (f->cpu_levels == NULL || f->memo == NULL) {
		frac_fgd_fini(f);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	f->memo_cap = MEMO_CAP;
	for (i = 0; i < take; i++)
		f->cpu_levels[i] = f->t[i].cpu_milli;
	qsort(f->cpu_levels, take, sizeof(*f->cpu_levels), i64_qcmp);
	for (i = 0, n = 0; i < take; i++)
		if (n == 0 || f->cpu_levels[n - 1] != f->cpu_levels[i])
			f->cpu_levels[n++] = f->cpu_levels[i];
	f->ncpu_levels = n;
	for (i = 0; i < take; i++) {
		int64_t *hit = bsearch(&f->t[i].cpu_milli, f->cpu_levels, n,
				       sizeof(*f->cpu_levels), i64_qcmp);
		f->t[i].cpu_rank = (int)(hit - f->cpu_levels);
	}
	return 0;
}

void frac_fgd_fini(struct frac_fgd *f)
{
	if (f == NULL)
		return;
	free(f->t);
	free(f->cpu_levels);
	free(f->memo);
	memset(f, 0, sizeof(*f));
}

/* ---- fragmentation ---- */

enum { Q1_LACK_BOTH, Q2_LACK_GPU, Q3_SATISFIED, Q4_LACK_CPU, XL_SATISFIED,
       XR_LACK_CPU, NO_ACCESS, NFRAG };

/*
** Frag of a node shape.  cpu_ok(t) is passed as "levels covered": typical
** pod t's CPU request is covered iff t->cpu_rank < ncovered.
*/
static double frag_shape(const struct frac_fgd *f, size_t ncovered,
			 const int32_t *gpu_free, int ngpus)
{
	double d[NFRAG] = { 0 }, out = 0.0;
	int64_t total = 0, frag;
	size_t k;
	int i, have, need, cpu_ok;

	for (i = 0; i < ngpus; i++)
		total += gpu_free[i];
	for (k = 0; k < f->nt; k++) {
		const struct frac_typical *t = &f->t[k];

		cpu_ok = (size_t)t->cpu_rank < ncovered;
		if (t->gpu_milli == 0) {
			d[cpu_ok ? XL_SATISFIED : XR_LACK_CPU] +=
				t->p * (double)total;
			continue;
		}
		/* (NO_ACCESS, a GPU model the pod may not use, never
		** happens: no model constraints are carried) */
		need = t->num_gpu > 1 ? t->num_gpu : 1;
		have = 0;
		frag = 0;
		for (i = 0; i < ngpus; i++) {
			if (gpu_free[i] >= t->gpu_milli)
				have++;
			else
				frag += gpu_free[i];
		}
		if (have >= need) {
			if (cpu_ok)
				d[Q2_LACK_GPU] += t->p * (double)frag;
			else
				d[Q4_LACK_CPU] += t->p * (double)total;
		} else {
			d[cpu_ok ? Q2_LACK_GPU : Q1_LACK_BOTH] +=
				t->p * (double)total;
		}
	}
	for (i = 0; i < NFRAG; i++)
		if (i != Q3_SATISFIED)
			out += d[i];
	return out;
}

/* Number of typical CPU levels <= cpu_free_milli (all of them when the
** node's CPU is not modelled). */
static size_t cpu_covered(const struct frac_fgd *f, int cpu_any,
			  int64_t cpu_free_milli)
{
	size_t lo = 0, hi = f->ncpu_levels, mid;

	if (cpu_any)
		return f->ncpu_levels;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->cpu_levels[mid] <= cpu_free_milli)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double frac_fgd_frag(const struct frac_fgd *f, const struct frac_node *n)
{
	return frag_shape(f, cpu_covered(f, n->cpu_any, n->cpu_free_milli),
			  n->gpu_free_milli, n->ngpus);
}

/* Frag of the shape (CPU levels covered, gpu_free[0..ngpus)), via the
** memo. */
static double frag_memo(struct frac_fgd *f, size_t ncov,
			const int32_t *gpu_free, int ngpus)
{
	int32_t s[FRAC_MAX_GPUS];
	uint64_t key[MEMO_WORDS] = { 0 }, h;
	size_t pos;
	int i, j;
	struct frac_fgd_memo_slot *slot;

	for (i = 0; i < ngpus; i++) {            /* insertion sort, <= 16 */
		int32_t v = gpu_free[i];

		for (j = i; j > 0 && s[j - 1] > v; j--)
			s[j] = s[j - 1];
		s[j] = v;
	}
	key[0] = MEMO_USED | (uint64_t)ncov << 16 | (uint64_t)ngpus << 32;
	for (i = 0; i < ngpus; i++)
		key[1 + i / 4] |= (uint64_t)(uint16_t)s[i] << (16 * (i % 4));
	h = key[0];
	for (i = 1; i < MEMO_WORDS; i++)
		h = frac_mix64(h ^ key[i]);
	pos = (size_t)h & (f->memo_cap - 1);
	for (;;) {
		slot = &f->memo[pos];
		if (!(slot->key[0] & MEMO_USED))
			break;
		if (memcmp(slot->key, key, sizeof(key)) == 0) {
			f->memo_hits++;
			return slot->frag;
		}
		pos = (pos + 1) & (f->memo_cap - 1);
	}
	f->memo_misses++;
	if (f->memo_used >= f->memo_cap / 2) {
		memset(f->memo, 0, f->memo_cap * sizeof(*f->memo));
		f->memo_used = 0;
		pos = (size_t)h & (f->memo_cap - 1);
		slot = &f->memo[pos];
	}
	memcpy(slot->key, key, sizeof(key));
	slot->frag = frag_shape(f, ncov, s, ngpus);
	f->memo_used++;
	return slot->frag;
}

int64_t frac_fgd_score(double frag_before, double frag_after)
{
	double x = (frag_before - frag_after) / 1000.0;

	return (int64_t)(1.0 / (1.0 + exp(-x)) * 100.0);
}

int64_t frac_fgd_node_score(struct frac_fgd *f, const struct frac_node *n,
			    const struct frac_pod *p, struct frac_place *out)
{
	int32_t tmp[FRAC_MAX_GPUS];
	int order[FRAC_MAX_GPUS];
	size_t cov0 = cpu_covered(f, n->cpu_any, n->cpu_free_milli);
	size_t cov1 = cpu_covered(f, n->cpu_any, n->cpu_free_milli -
				  p->cpu_milli);
	int64_t s, best_s = 0;
	double before, after;
	int i, j, best = -1, left;

	before = frag_memo(f, cov0, n->gpu_free_milli, n->ngpus);
	if (p->num_gpu == 1 && p->gpu_milli < FRAC_MILLI_PER_GPU) {
		for (i = 0; i < n->ngpus; i++) {
			if (n->gpu_free_milli[i] < p->gpu_milli)
				continue;
			/* A GPU with the same free milli as an earlier one
			** gives the same state, hence the same score, and
			** the earlier one wins ties. */
			for (j = 0; j < i; j++)
				if (n->gpu_free_milli[j] == n->gpu_free_milli[i])
					break;
			if (j < i)
				continue;
			memcpy(tmp, n->gpu_free_milli, sizeof(tmp));
			tmp[i] -= p->gpu_milli;
			after = frag_memo(f, cov1, tmp, n->ngpus);
			s = frac_fgd_score(before, after);
			if (best < 0 || s > best_s) {
				best = i;
				best_s = s;
			}
		}
		out->ngpu = 0;
		if (best >= 0)
			out->gpu[out->ngpu++] = best;
		return best_s;
	}
	memcpy(tmp, n->gpu_free_milli, sizeof(tmp));
	if (p->num_gpu > 0) {
		for (i = 0; i < n->ngpus; i++) {         /* stable ascending */
			for (j = i; j > 0 &&
			     tmp[order[j - 1]] > tmp[i]; j--)
				order[j] = order[j - 1];
			order[j] = i;
		}
		left = p->num_gpu;
		for (i = 0; i < n->ngpus && left > 0; i++)
			if (tmp[order[i]] >= p->gpu_milli) {
				tmp[order[i]] -= p->gpu_milli;
				left--;
			}
	}
	after = frag_memo(f, cov1, tmp, n->ngpus);
	frac_pick_gpus_default(n, p, out);
	return frac_fgd_score(before, after);
}

int frac_fgd_among(void *state, const struct frac_node *nodes,
		   const int *cand, size_t ncand, const struct frac_pod *p,
		   struct frac_place *out)
{
	struct frac_fgd *f = state;
	struct frac_place pick;
	int64_t s, best_s = 0;
	size_t k;
	int i, best = -1;

	/* With a single feasible node the score is not needed, but its GPU
	** choice is FGD's all the same; scoring it changes nothing. */
	for (k = 0; k < ncand; k++) {
		i = cand != NULL ? cand[k] : (int)k;
		if (!frac_node_fits(&nodes[i], p))
			continue;
		s = frac_fgd_node_score(f, &nodes[i], p, &pick);
		if (best < 0 || s > best_s ||
		    (s == best_s && frac_before(nodes, i, best))) {
			best = i;
			best_s = s;
			*out = pick;
			out->node = best;
		}
	}
	return best < 0 ? SIM_ENOSPC : 0;
}

int frac_fgd_place(void *state, const struct frac_node *nodes, size_t nnodes,
		   const struct frac_pod *p, struct frac_place *out)
{
	return frac_fgd_among(state, nodes, NULL, nnodes, p, out);
}

/* ---- the policy ---- */

struct fgd_state {
	struct frac_view v;
	struct frac_fgd fgd;
	double threshold;
	const char *population;    /* valid during xInit only */
	int nofit;
	/* xInit's scratch: the population's pods */
	struct frac_pod *pods;
	size_t npods, cappods;
};

static const char *const nofit_choices[] = { "wait", "fail", NULL };

static const struct pol_param_def fgd_params[] = {
	POL_PARAM_DOUBLE("threshold", struct fgd_state, threshold, 0.01, 100,
			 "95", "typical pods: the most frequent classes "
			 "covering this % of the population's pods"),
	POL_PARAM_STRING("population", struct fgd_state, population, NULL,
			 "trace whose rows the typical pods are learnt from "
			 "(default: the run's own trace)"),
	POL_PARAM_CHOICE("nofit", struct fgd_state, nofit, nofit_choices,
			 "wait", "a job that fits no node now: wait for one "
			 "to free, or fail (the openb experiment)"),
	POL_PARAM_END
};

static int add_row(void *ctx, const struct pol_trace_row *r)
{
	struct fgd_state *st = ctx;

	if (st->npods == st->cappods) {
		size_t cap = st->cappods ? 2 * st->cappods : 1024;
		struct frac_pod *q = realloc(st->pods, cap * sizeof *q);
		if (q == NULL)
			return SIM_ENOMEM;
		st->pods = q;
		st->cappods = cap;
	}
	st->pods[st->npods].cpu_milli = r->cpu_milli;
	st->pods[st->npods].mem_mib = r->host_mem_mib;
	st->pods[st->npods].num_gpu = r->gpus;
	st->pods[st->npods].gpu_milli = r->share_milli;
	st->npods++;
	return 0;
}

static int fgd_init(struct world *w, void *state, const struct pol_params *p,
		    struct sim_err *err)
{
	struct fgd_state *st = state;
	int rc;

	(void)p;
	st->v.fail_nofit = st->nofit == 1;
	rc = pol_trace_rows(w, st->population, add_row, st, err);
	if (rc == SIM_ENOMEM && err != NULL && err->code == 0)
		sim_err_set(err, rc, "policy fgd: out of memory");
	if (rc == 0)
		rc = frac_fgd_init(&st->fgd, st->pods, st->npods,
				   st->threshold, err);
	if (rc == 0) {
		/* what the typical pods are, in the run's metrics */
		double covered = 0;
		size_t i;
		for (i = 0; i < st->fgd.nt; i++)
			covered += (double)st->fgd.t[i].count;
		if (pol_add_metric(w, "fgd_typical_classes",
				   (double)st->fgd.nt) != 0 ||
		    pol_add_metric(w, "fgd_typical_share",
				   covered / (double)st->npods) != 0)
			rc = sim_err_set(err, SIM_ENOMEM, "policy fgd: out of "
					 "memory");
	}
	free(st->pods);
	st->pods = NULL;
	if (rc == 0)
		rc = frac_view_init(w, &st->v, err);
	return rc;
}

static void fgd_fini(struct world *w, void *state)
{
	struct fgd_state *st = state;

	(void)w;
	free(st->pods);
	frac_fgd_fini(&st->fgd);
	frac_view_fini(&st->v);
}

static int fgd_schedule(struct world *w, void *state)
{
	struct fgd_state *st = state;

	return frac_schedule(w, &st->v, frac_fgd_among, &st->fgd);
}

static int fgd_on_finish(struct world *w, void *state, int j)
{
	struct fgd_state *st = state;

	(void)w;
	return frac_view_on_finish(&st->v, j);
}

const struct pol_ops POL_OPS_SYMBOL(POLICY_NAME) = {
	.iVersion = 3,
	.zName = POL_NAME_STRING(POLICY_NAME),
	.zDesc = "FGD (Weng et al., ATC'23): fractional GPU shares, the node "
		 "whose fragmentation grows least",
	.szState = sizeof(struct fgd_state),
	.xInit = fgd_init,
	.xFini = fgd_fini,
	.xOnFinish = fgd_on_finish,
	.xSchedule = fgd_schedule,
	.aParam = fgd_params,
};
