/*
** baseline.c: the four baseline policies, one ops table each, sharing one
** scheduler:
**
**   exclusive  one job per GPU (today's schedulers)
**   timeslice  pack jobs while memory fits; the driver time-slices them
**   mps        pack jobs while memory fits, each with a static SM share
**   mig        a static MIG layout per GPU; one job per slice
**
** Each takes `order` (fifo: by submit time; sjf: shortest solo time first;
** srtf: shortest remaining time first, preempting running training jobs
** with more remaining time, longest first, only when that makes room; all
** times on GPU 0's device), `placement` (first-fit: lowest GPU indices;
** best-fit: the GPUs (or slices) left with the least free memory;
** least-loaded: the GPUs with the fewest tenants, then the most free
** memory; the default of timeslice and mps, first-fit elsewhere) and
** `backfill` (1: a job that does not fit is skipped and later ones may
** start; 0: strict order, the pass stops at the first job that does not
** fit).  A job that could not run even on an empty cluster fails at once.
**
** Indexes.  Each pending job is in the policy's own ordered sets (sim/
** oset.h, through policy.h), keyed by its pass order: one of all of them,
** and one per GPU count (a "bucket") of those that can run at all, whose
** entries carry the job's least footprint over the device kinds.  The
** world answers "the n-th largest free memory of an idle GPU / of any GPU
** / of a MIG GPU's empty slice" (pol_gpu_nth_fit) and "the GPUs with B
** bytes free in first-fit, best-fit or least-loaded order" from its GPU
** indexes.  A pass with backfill, fifo or sjf therefore asks each bucket of
** n GPUs only for its first job, from where the pass is, whose footprint
** is at most that n-th largest: the jobs it tries are the ones that can be
** placed (on one device kind: exactly those), and the others cost nothing.
** Every answer is the one the scan over every job and GPU gave (the
** golden metrics and a dump of every output over the policies' options
** check it).
**
** Cost per event (P pending jobs, G GPUs, B buckets, n GPUs a job, R jobs
** running; log: the sets' and trees' O(log) steps):
**   arrival / requeue   O(D + log P) (D device kinds: footprints, fit)
**   pass, fifo or sjf with backfill
**                       O((tried + 1) B log P + placed n log G)
**   pass without backfill   O(placed + failed + 1) set steps
**   placement choice    first-fit O(n log G); best-fit and least-loaded
**                       O(D n log G) (least-loaded: plus a step per run of
**                       GPUs with equal keys it passes); mig with best-fit
**                       or least-loaded: O(G) (a scan, no slice order)
**   pass, srtf or on_full = swap   O(P) for the pass order, and per job
**                       that does not fit O(R log R + G log R) for the
**                       victims (one what-if scan of the GPUs per step
**                       of a search over how many to take)
** Worst cases: srtf and on_full = swap on a long queue (every pending job
** is tried every pass: O(P (R + G log R))); least-loaded on many GPUs
** whose free memories differ by less than the rounding of its key
** (tenants x 1e18 - free, a double: a few hundred bytes).
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

enum { ORD_FIFO, ORD_SJF, ORD_SRTF };
enum { PL_FIRST, PL_BEST, PL_SPREAD };

/* A job's entry (pol_job_priv), made when it enters the queue. */
struct bjob {
	int known;              /* the fields below are set */
	int fit;                /* 1 fits an empty cluster, 2 never can */
	int gpus, prio, kind;
	double share;           /* the trace's gpu_share */
	uint64_t minmem;        /* least footprint over the device kinds */
	int64_t k1, k2;         /* pass-order key (with the job index) */
	int h_all, h_bkt, bkt;  /* handles in `all` and in bucket bkt (-1:
				   in `nofit`), -1 none */
	int h_run, h_out;       /* in b->running / b->swapping, -1 none */
};

/* The pending jobs of one GPU count that can run, in pass order. */
struct bucket {
	int gpus;
	struct sim_oset set;    /* aux: minmem */
	int h;                  /* this pass: the next candidate, -1 */
	int64_t c1, c2;         /* this pass: the key after the last tried */
	int cid;
};

struct base {
	enum pol_gpu_mode mode;
	/* parameters (filled by the engine from the tables below) */
	int order, placement, backfill, on_full;
	double sm_pct;          /* mps: static share, percent */
	const char *layout;     /* mig: during xInit only */
	double sm_cap;          /* mps: static share */
	int *cand;              /* scratch: candidate GPUs */
	double *bestv;          /* scratch: their best-fit / spread scores */
	int *slices;            /* scratch: chosen MIG slices */
	int *jobs;              /* scratch: the slow pass's order */
	int capjobs;
	/* the pending jobs: all in pass order; per GPU count those that can
	** run */
	struct sim_oset all, nofit;
	struct bucket *bk;
	int nbk;
	/* jobs this policy runs (training, for srtf victims) and jobs it is
	** swapping out, by index */
	struct sim_oset running, swapping;
	/* candidate GPUs of the indexed choice: (score, GPU) */
	struct cscore { double v; int g; } *cs;
	int capcs;
	/* mig: per (device kind, largest slice) the GPUs that have it */
	struct migcap { int dev; uint64_t slice; int n; } *mcap;
	int nmcap;
	/* srtf what-if: what the victims chosen so far would free, per GPU
	** (tenants, bytes) and per MIG slice (bytes, 7 per GPU); all 0
	** outside make_room, where whatif is set */
	int *gone_ten;
	uint64_t *gone_mem, *gone_slice;
	int whatif;
	int *victims;           /* scratch: srtf victims, longest first */
	double *vrem;           /* scratch: their remaining times */
	int capv;
	unsigned char *resv;    /* per GPU: reserved for a job waiting for
				   swap copies to end (this pass only) */
	int *cand2;             /* scratch: the reserved GPUs */
	int nresv;
	int waiting;            /* make_room reserved GPUs for this job */
	int failed;             /* out of memory in a hook without a code */
};

enum { FULL_WAIT, FULL_SWAP };

static const char *const order_names[] = { "fifo", "sjf", "srtf", NULL };
static const char *const place_names[] = { "first-fit", "best-fit",
						   "least-loaded", NULL };
static const char *const full_names[] = { "wait", "swap", NULL };

/* The parameters every baseline takes; the sharing modes spread by
** default (packing a busy GPU while another sits idle is nobody's
** intent), exclusive and mig take the lowest GPUs. */
#define BASE_PARAMS(placement_default)                                     \
	POL_PARAM_CHOICE("order", struct base, order, order_names, "fifo",  \
			 "pass order: submit time, shortest solo time, or " \
			 "shortest remaining time with preemption"),        \
	POL_PARAM_CHOICE("placement", struct base, placement, place_names,  \
			 placement_default, "GPUs: lowest indices, least "  \
			 "memory left, or fewest tenants then most free"),  \
	POL_PARAM_BOOL("backfill", struct base, backfill, "1", "1: later "  \
		       "jobs may start when one does not fit; 0: strict "   \
		       "order"),                                            \
	POL_PARAM_CHOICE("on_full", struct base, on_full, full_names,       \
			 "wait", "a job that does not fit waits, or swaps " \
			 "out running training of lower priority")

static const struct pol_param_def excl_params[] = {
	BASE_PARAMS("first-fit"),
	POL_PARAM_END
};

static const struct pol_param_def ts_params[] = {
	BASE_PARAMS("least-loaded"),
	POL_PARAM_END
};

static const struct pol_param_def mps_params[] = {
	BASE_PARAMS("least-loaded"),
	POL_PARAM_DOUBLE("sm_pct", struct base, sm_pct, 1, 100, "100",
			 "static MPS SM share, percent (a trace gpu_share "
			 "< 1 overrides it)"),
	POL_PARAM_END
};

static const struct pol_param_def mig_params[] = {
	BASE_PARAMS("first-fit"),
	POL_PARAM_STRING("layout", struct base, layout, NULL,
			 "MIG profiles of each GPU, a comma list (default: "
			 "as many of the smallest profile as fit)"),
	POL_PARAM_END
};

static int base_init(struct world *w, struct base *b, enum pol_gpu_mode mode,
		     struct sim_err *err)
{
	int g, rc, n = pol_ngpus(w);

	b->mode = mode;
	b->sm_cap = mode == POL_GPU_MPS ? b->sm_pct / 100.0 : 1.0;
	sim_oset_init(&b->all);
	sim_oset_init(&b->nofit);
	sim_oset_init(&b->running);
	sim_oset_init(&b->swapping);
	b->cand = malloc((size_t)n * sizeof *b->cand);
	b->slices = malloc((size_t)n * sizeof *b->slices);
	b->bestv = malloc((size_t)n * sizeof *b->bestv);
	b->gone_ten = calloc((size_t)n, sizeof *b->gone_ten);
	b->gone_mem = calloc((size_t)n, sizeof *b->gone_mem);
	b->gone_slice = calloc((size_t)n * 7, sizeof *b->gone_slice);
	b->resv = calloc((size_t)n, 1);
	b->cand2 = malloc((size_t)n * sizeof *b->cand2);
	if (b->cand == NULL || b->slices == NULL || b->bestv == NULL ||
	    b->gone_ten == NULL || b->gone_mem == NULL ||
	    b->gone_slice == NULL || b->resv == NULL || b->cand2 == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < n; g++)
		if ((rc = pol_set_gpu_mode(w, g, mode, err)) != 0)
			return rc;
	return 0;
}

/* mig: per (device kind, largest slice) how many GPUs have it, for
** fits_empty (the layout is fixed from xInit on). */
static int mig_caps(struct world *w, struct base *b, struct sim_err *err)
{
	int g, s, k;

	b->mcap = calloc((size_t)pol_ngpus(w) + 1, sizeof *b->mcap);
	if (b->mcap == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < pol_ngpus(w); g++) {
		uint64_t big = 0;
		int d = pol_gpu_dev(w, g), ns = pol_gpu(w, g).nslices;
		for (s = 0; s < ns; s++)
			if (pol_gpu_slice(w, g, s).hbm_bytes > big)
				big = pol_gpu_slice(w, g, s).hbm_bytes;
		if (ns == 0)
			continue;
		for (k = 0; k < b->nmcap && (b->mcap[k].dev != d ||
					     b->mcap[k].slice != big); k++)
			;
		if (k == b->nmcap) {
			b->mcap[k].dev = d;
			b->mcap[k].slice = big;
			b->nmcap++;
		}
		b->mcap[k].n++;
	}
	return 0;
}

/* mig: the layout, a comma list of profile names; default: as many of the
** device's smallest profile as fit (e.g. 7 x 1g.10gb on an H100). */
static int mig_layout(struct world *w, const struct base *b,
		      struct sim_err *err)
{
	const char *spec = b->layout;
	int g, rc;

	for (g = 0; g < pol_ngpus(w); g++) {
		struct pol_dev_info d = pol_dev(w, pol_gpu(w, g).dev);
		const char *names[7];
		char buf[256], *tok, *save = NULL;
		int n = 0, k, small = 0;

		if (d.nmig == 0)
			return sim_err_set(err, SIM_EINVAL, "policy mig: device "
					   "%s has no MIG profiles", d.zName);
		if (spec != NULL) {
			snprintf(buf, sizeof buf, "%s", spec);
			for (tok = strtok_r(buf, ", ", &save); tok != NULL;
			     tok = strtok_r(NULL, ", ", &save)) {
				if (n == 7)
					return sim_err_set(err, SIM_EINVAL,
						"policy mig: layout '%s' has "
						"more than 7 slices", spec);
				names[n++] = tok;
			}
		} else {
			for (k = 1; k < d.nmig; k++)
				if (pol_dev_mig(w, d.dev, k).sms <
				    pol_dev_mig(w, d.dev, small).sms)
					small = k;
			for (n = 0; n < pol_dev_mig(w, d.dev, small).max_count &&
			     n < 7; n++)
				names[n] = pol_dev_mig(w, d.dev, small).zName;
		}
		if ((rc = pol_set_mig_layout(w, g, names, n, err)) != 0)
			return rc;
	}
	return 0;
}

static void base_fini(struct world *w, void *state)
{
	struct base *b = state;
	int k;

	(void)w;
	free(b->cand);
	free(b->slices);
	free(b->bestv);
	free(b->jobs);
	sim_oset_fini(&b->all);
	sim_oset_fini(&b->nofit);
	for (k = 0; k < b->nbk; k++)
		sim_oset_fini(&b->bk[k].set);
	free(b->bk);
	sim_oset_fini(&b->running);
	sim_oset_fini(&b->swapping);
	free(b->cs);
	free(b->mcap);
	free(b->gone_ten);
	free(b->gone_mem);
	free(b->gone_slice);
	free(b->victims);
	free(b->vrem);
	free(b->resv);
	free(b->cand2);
}

/* ---- the pending jobs ----------------------------------------------------- */

/* 1 if job j could run on an empty cluster under this policy: under mig,
** enough GPUs must have a slice that holds it.  O(device kinds). */
static int fits_empty(struct world *w, const struct base *b, int j,
		      int gpus)
{
	int k, n = 0;

	if (b->mode != POL_GPU_MIG)
		return pol_job_fits_empty(w, j);
	for (k = 0; k < b->nmcap; k++)
		if (pol_job_mem(w, j, pol_dev(w, b->mcap[k].dev).gpu) <=
		    b->mcap[k].slice)
			n += b->mcap[k].n;
	return n >= gpus;
}

/* Job j's entry, filled on first use (its fit, footprint and pass-order
** key do not change while it waits: the cluster is fixed, a waiting job
** makes no progress); NULL out of memory. */
static struct bjob *entry(struct world *w, const struct base *b, int j)
{
	struct bjob *e = pol_job_priv(w, j);
	struct pol_job_info job;
	double key;
	int d;

	if (e == NULL || e->known)
		return e;
	job = pol_job(w, j);
	e->known = 1;
	e->gpus = job.gpus;
	e->prio = job.priority;
	e->kind = job.kind;
	e->share = job.gpu_share;
	e->h_all = e->h_bkt = e->h_run = e->h_out = -1;
	e->fit = fits_empty(w, b, j, job.gpus) ? 1 : 2;
	e->minmem = UINT64_MAX;
	for (d = 0; d < pol_ndevs(w); d++) {
		uint64_t m = pol_job_mem(w, j, pol_dev(w, d).gpu);
		if (m < e->minmem)
			e->minmem = m;
	}
	/* the pass order: higher priority first when swapping, then the
	** key (submit time, or remaining solo time on GPU 0's device),
	** then the index */
	key = b->order == ORD_FIFO ? (double)job.submit_ns :
		pol_job_remaining_ns(w, j, 0);
	if (b->on_full == FULL_SWAP) {
		e->k1 = -(int64_t)job.priority;
		e->k2 = sim_oset_dkey(key);
	} else {
		e->k1 = sim_oset_dkey(key);
		e->k2 = 0;
	}
	return e;
}

/* The bucket of jobs on n GPUs (made when first needed), or NULL. */
static struct bucket *bucket_of(struct base *b, int n)
{
	struct bucket *p;
	int k;

	for (k = 0; k < b->nbk; k++)
		if (b->bk[k].gpus == n)
			return &b->bk[k];
	p = realloc(b->bk, (size_t)(b->nbk + 1) * sizeof *p);
	if (p == NULL)
		return NULL;
	b->bk = p;
	memset(&p[b->nbk], 0, sizeof p[b->nbk]);
	p[b->nbk].gpus = n;
	sim_oset_init(&p[b->nbk].set);
	return &p[b->nbk++];
}

/* Job j entered the queue: into the sets. */
static int base_queue(struct world *w, void *state, int j)
{
	struct base *b = state;
	struct bjob *e = entry(w, b, j);
	struct bucket *bk;

	if (e == NULL)
		return SIM_ENOMEM;
	if (e->gpus == 0)             /* as the world fails it for a policy
					 of an interface before version 3 */
		return pol_fail_job(w, j, "CPU-only job (0 GPUs): the policy "
				    "places GPU jobs only") < 0 ? SIM_ENOMEM : 0;
	if (e->h_out >= 0) {          /* its swap-out ended */
		sim_oset_remove(&b->swapping, e->h_out);
		e->h_out = -1;
	}
	if (e->h_all >= 0)
		return 0;
	e->h_all = sim_oset_insert(&b->all, e->k1, e->k2, j, 0);
	if (e->h_all < 0)
		return SIM_ENOMEM;
	if (e->fit != 1) {
		e->bkt = -1;
		e->h_bkt = sim_oset_insert(&b->nofit, e->k1, e->k2, j, 0);
		return e->h_bkt < 0 ? SIM_ENOMEM : 0;
	}
	if ((bk = bucket_of(b, e->gpus)) == NULL)
		return SIM_ENOMEM;
	e->bkt = (int)(bk - b->bk);
	e->h_bkt = sim_oset_insert(&bk->set, e->k1, e->k2, j,
				   (int64_t)(e->minmem < INT64_MAX ?
					     e->minmem : INT64_MAX));
	return e->h_bkt < 0 ? SIM_ENOMEM : 0;
}

/* Job j left the queue (placed, failed, finished). */
static void unqueue(struct base *b, struct bjob *e)
{
	if (e->h_all >= 0)
		sim_oset_remove(&b->all, e->h_all);
	if (e->h_bkt >= 0)
		sim_oset_remove(e->bkt < 0 ? &b->nofit : &b->bk[e->bkt].set,
				e->h_bkt);
	e->h_all = e->h_bkt = -1;
}

static void set_running(struct base *b, struct bjob *e, int j, int on)
{
	if (on && e->h_run < 0) {
		e->h_run = sim_oset_insert(&b->running, j, 0, j, 0);
		if (e->h_run < 0)
			b->failed = 1;
	} else if (!on && e->h_run >= 0) {
		sim_oset_remove(&b->running, e->h_run);
		e->h_run = -1;
	}
}

static int base_finish(struct world *w, void *state, int j)
{
	struct base *b = state;
	struct bjob *e = pol_job_priv(w, j);

	if (e == NULL || !e->known)
		return 0;
	unqueue(b, e);
	set_running(b, e, j, 0);
	if (e->h_out >= 0) {
		sim_oset_remove(&b->swapping, e->h_out);
		e->h_out = -1;
	}
	return 0;
}

/* ---- choosing GPUs ------------------------------------------------------ */

/* Free memory left on GPU g (or slice s) if job j went there; -1 if it
** does not fit or the GPU / slice is not available to it.  Counts the
** srtf what-if victims (gone_*) as gone. */
static double leftover(struct world *w, const struct base *b, int j, int g,
		       int s)
{
	uint64_t need, free_b;

	if (b->resv[g])
		return -1;
	if (b->mode == POL_GPU_EXCLUSIVE &&
	    pol_gpu_ntenants(w, g) > b->gone_ten[g])
		return -1;
	need = pol_job_mem(w, j, g);
	if (b->mode == POL_GPU_MIG) {
		struct pol_slice_info sl = pol_gpu_slice(w, g, s);
		if (sl.mem_used > b->gone_slice[g * 7 + s])
			return -1;
		free_b = sl.hbm_bytes;
	} else if (b->gone_mem[g] == 0) {
		free_b = pol_gpu_free(w, g, -1);
	} else {
		struct pol_gpu_info gp = pol_gpu(w, g);
		uint64_t used = gp.mem_used - b->gone_mem[g];
		free_b = used < gp.hbm_bytes ? gp.hbm_bytes - used : 0;
	}
	if (need > free_b)
		return -1;
	return (double)(free_b - need);
}

/* Chooses `need` GPUs (and slices) for job j into b->cand / b->slices by a
** scan of every GPU; 1 if found.  The what-if of make_room (gone_*) and
** mig's best-fit and least-loaded come here. */
static int choose_scan(struct world *w, struct base *b, int j, int need)
{
	int got = 0, g, s, k;
	int ngpu = pol_ngpus(w);
	double *bestv = b->bestv;    /* the kept GPUs' scores, ascending */

	if (need > ngpu)
		return 0;
	if (b->placement == PL_FIRST) {
		for (g = 0; g < ngpu && got < need; g++) {
			int ns = b->mode == POL_GPU_MIG ?
				pol_gpu(w, g).nslices : 1;
			for (s = 0; s < ns; s++)
				if (leftover(w, b, j, g, s) >= 0) {
					b->cand[got] = g;
					b->slices[got++] = s;
					break;
				}
		}
		return got == need;
	}
	/* best-fit: keep the `need` GPUs with the least leftover;
	** least-loaded: those with the fewest tenants, then the most free */
	for (g = 0; g < ngpu; g++) {
		int ns = b->mode == POL_GPU_MIG ? pol_gpu(w, g).nslices : 1;
		double lo = -1;
		int ls = -1;
		for (s = 0; s < ns; s++) {
			double l = leftover(w, b, j, g, s);
			if (l >= 0 && (lo < 0 || l < lo)) {
				lo = l;
				ls = s;
			}
		}
		if (ls < 0)
			continue;
		if (b->placement == PL_SPREAD)   /* fewest tenants, most free */
			lo = (double)pol_gpu_ntenants(w, g) * 1e18 - lo;
		for (k = got; k > 0 && bestv[k - 1] > lo; k--) {
			if (k < need) {
				bestv[k] = bestv[k - 1];
				b->cand[k] = b->cand[k - 1];
				b->slices[k] = b->slices[k - 1];
			}
		}
		if (k < need) {
			bestv[k] = lo;
			b->cand[k] = g;
			b->slices[k] = ls;
			if (got < need)
				got++;
		}
	}
	return got == need;
}

/* First fit from the world's index: the lowest GPUs with room. */
static int choose_first(struct world *w, struct base *b, int j, int need,
			uint64_t minmem)
{
	enum pol_fit how = b->mode == POL_GPU_EXCLUSIVE ? POL_FIT_IDLE :
		b->mode == POL_GPU_MIG ? POL_FIT_SLICE : POL_FIT_FREE;
	int got = 0, g = -1, s;

	while (got < need && (g = pol_gpu_next_fit(w, g + 1, minmem, how)) >= 0) {
		int ns = b->mode == POL_GPU_MIG ? pol_gpu(w, g).nslices : 1;
		for (s = 0; s < ns; s++)
			if (leftover(w, b, j, g, s) >= 0) {
				b->cand[got] = g;
				b->slices[got++] = s;
				break;
			}
	}
	return got == need;
}

static int cs_push(struct base *b, int n, double v, int g)
{
	if (n == b->capcs) {
		int c = b->capcs ? 2 * b->capcs : 64;
		struct cscore *p = realloc(b->cs, (size_t)c * sizeof *p);
		if (p == NULL)
			return -1;
		b->cs = p;
		b->capcs = c;
	}
	b->cs[n].v = v;
	b->cs[n].g = g;
	return 0;
}

static int cs_cmp(const void *x, const void *y)
{
	const struct cscore *a = x, *c = y;

	if (a->v != c->v)
		return a->v < c->v ? -1 : 1;
	return (a->g > c->g) - (a->g < c->g);
}

/*
** Best-fit and least-loaded from the world's ordered GPU indexes, per
** device kind: the GPUs of each kind come in order of their score (the
** scan's: leftover, or tenants x 1e18 - leftover), which is non-
** decreasing along the order; from each kind the `need` best are taken,
** with every GPU that ties (as a double) with the need-th, but at most
** `need` of a run of GPUs with the very same key (those come by index);
** sorted by (score, index), the first `need` are the scan's choice.
** Returns 1 when found, 0 when not, -1 out of memory.
*/
static int choose_ordered(struct world *w, struct base *b, int j, int need)
{
	enum pol_gpu_order ord = b->placement == PL_BEST &&
		b->mode != POL_GPU_EXCLUSIVE ? POL_ORDER_BEST_FIT :
		POL_ORDER_LEAST_LOADED;
	int d, n = 0, k;

	for (d = 0; d < pol_ndevs(w); d++) {
		uint64_t memd = pol_job_mem(w, j, pol_dev(w, d).gpu);
		int g = pol_gpu_order_first(w, d, ord, memd), taken = 0, run = 0;
		int prev_nt = -1;
		uint64_t prev_free = 0;
		double vneed = 0;
		while (g >= 0) {
			int nt = pol_gpu_ntenants(w, g);
			uint64_t fr = pol_gpu_free(w, g, -1);
			double lo, v;
			if (b->mode == POL_GPU_EXCLUSIVE && nt > 0)
				break;        /* past the idle GPUs */
			if ((lo = leftover(w, b, j, g, 0)) < 0) {
				g = pol_gpu_order_next(w, d, ord, memd, g);
				continue;     /* reserved */
			}
			v = b->placement == PL_SPREAD ?
				(double)nt * 1e18 - lo : lo;
			if (taken >= need && v > vneed)
				break;
			if (nt == prev_nt && fr == prev_free) {
				if (run >= need) {
					g = pol_gpu_order_skip(w, d, ord, memd,
							       g);
					continue;
				}
				run++;
			} else {
				prev_nt = nt;
				prev_free = fr;
				run = 1;
			}
			if (cs_push(b, n++, v, g) != 0)
				return -1;
			if (++taken == need)
				vneed = v;
			g = pol_gpu_order_next(w, d, ord, memd, g);
		}
	}
	if (n < need)
		return 0;
	qsort(b->cs, (size_t)n, sizeof *b->cs, cs_cmp);
	for (k = 0; k < need; k++) {
		b->cand[k] = b->cs[k].g;
		b->slices[k] = 0;
	}
	return 1;
}

/* Chooses GPUs (and slices) for job j into b->cand / b->slices; 1 if
** found, 0 if not, -1 out of memory. */
static int choose(struct world *w, struct base *b, int j)
{
	struct bjob *e = entry(w, b, j);
	int need;

	if (e == NULL)
		return -1;
	need = e->gpus;
	if (need > pol_ngpus(w))
		return 0;
	if (b->whatif || (b->mode == POL_GPU_MIG && b->placement != PL_FIRST))
		return choose_scan(w, b, j, need);
	if (b->placement == PL_FIRST)
		return choose_first(w, b, j, need, e->minmem);
	return choose_ordered(w, b, j, need);
}

/* 1 placed, 0 not, or a negative code. */
static int try_place(struct world *w, struct base *b, int j)
{
	struct pol_place_opts o = { .sm_cap = 1.0 };
	struct bjob *e = entry(w, b, j);
	struct sim_err err = { 0, "" };
	int rc;

	if (e == NULL)
		return SIM_ENOMEM;
	if ((rc = choose(w, b, j)) <= 0)
		return rc < 0 ? SIM_ENOMEM : 0;
	if (b->mode == POL_GPU_MPS)
		o.sm_cap = e->share < 1 ? e->share : b->sm_cap;
	if (b->mode == POL_GPU_MIG)
		o.slices = b->slices;
	rc = pol_place(w, j, b->cand, e->gpus, &o, &err);
	if (rc == SIM_ENOSPC || rc == SIM_ESTATE)
		return 0;
	if (rc < 0)
		return rc;
	unqueue(b, e);
	if (e->kind == POL_TRAIN)
		set_running(b, e, j, 1);
	return b->failed ? SIM_ENOMEM : 1;
}

/* ---- making room: srtf and on_full = swap ------------------------------- */

/* Adds (sign 1) or removes (-1) running job v's tenants to the what-if
** of what the srtf victims would free. */
static void what_if(struct world *w, struct base *b, int v, int sign)
{
	int k, n = pol_job(w, v).nplaced;

	for (k = 0; k < n; k++) {
		struct pol_tenant_info t = pol_job_tenant(w, v, k);
		int g = t.gpu, s = t.slice;
		uint64_t m = t.mem_bytes;
		b->gone_ten[g] += sign;
		b->gone_mem[g] = sign > 0 ? b->gone_mem[g] + m :
			b->gone_mem[g] - m;
		if (s >= 0 && s < 7)
			b->gone_slice[g * 7 + s] = sign > 0 ?
				b->gone_slice[g * 7 + s] + m :
				b->gone_slice[g * 7 + s] - m;
	}
}

/* Adds (1) or removes (-1) every job swapping out to the what-if;
** returns how many there are. */
static int what_if_swapping(struct world *w, struct base *b, int sign)
{
	int h, n = 0;

	for (h = sim_oset_first(&b->swapping); h >= 0;
	     h = sim_oset_next(&b->swapping, h)) {
		int k = sim_oset_id(&b->swapping, h);
		if (pol_job_state(w, k) == POL_JOB_SWAPPING_OUT) {
			what_if(w, b, k, sign);
			n++;
		}
	}
	return n;
}

/* Reserves the GPUs in b->cand2[0..n) for the rest of this pass. */
static void reserve(struct base *b, int n)
{
	int k;

	for (k = 0; k < n; k++)
		b->resv[b->cand2[k]] = 1;
	b->nresv += n;
	b->waiting = 1;
}

/* Job j was taken off its GPUs by a make_room action (preempted or
** swapped out). */
static void taken_off(struct world *w, struct base *b, int j)
{
	struct bjob *e = pol_job_priv(w, j);

	if (e == NULL || !e->known)
		return;
	set_running(b, e, j, 0);
	if (pol_job_state(w, j) == POL_JOB_SWAPPING_OUT && e->h_out < 0 &&
	    (e->h_out = sim_oset_insert(&b->swapping, j, 0, j, 0)) < 0)
		b->failed = 1;
}

/* With the first k victims counted as gone (the what-if holds the first
** *at of them), whether j fits; moves the what-if to k victims. */
static int fits_with(struct world *w, struct base *b, int j, int k, int *at)
{
	while (*at < k)
		what_if(w, b, b->victims[(*at)++], 1);
	while (*at > k)
		what_if(w, b, b->victims[--(*at)], -1);
	return choose(w, b, j);
}

/*
** Makes room for job j by taking running training jobs off their GPUs,
** until j fits (a what-if on leftover()); takes nothing when even all of
** them would not make room.  Returns 1 if j was placed, 0 if not (yet).
**
**   ROOM_SRTF  srtf: preempts (pol_preempt) the jobs with more remaining
**              time than j, longest first, and places j at once.
**   ROOM_SWAP  on_full = swap: swaps out (pol_swap_out) the jobs of
**              lower priority than j, most remaining time first.
**
** Jobs already swapping out free their memory when their copies end: they
** count as gone first, and when that is room enough j waits for them
** rather than take more.  While j waits, the GPUs it will take are
** reserved for the rest of the pass, so that a later job (a victim coming
** back, a backfill) cannot take the room made for j.  Remaining times are
** on GPU 0's device, as the pass order.
**
** The victims come from the running set (not every job seen); the fewest
** that make room is found by a binary search (room only grows with more
** of them gone), after one what-if with all of them.
*/
enum { ROOM_SRTF, ROOM_SWAP };

static int make_room(struct world *w, struct base *b, int j, int how)
{
	struct bjob *ej = entry(w, b, j);
	double mine;
	struct sim_err e = { 0, "" };
	int need, k, i, nv = 0, fit = 0, nout, rc, h, at = 0, lo, hi;

	if (ej == NULL)
		return SIM_ENOMEM;
	need = ej->gpus;
	mine = pol_job_remaining_ns(w, j, 0);
	b->whatif = 1;
	if ((nout = what_if_swapping(w, b, 1)) > 0 && choose(w, b, j) > 0) {
		memcpy(b->cand2, b->cand, (size_t)need * sizeof *b->cand2);
		what_if_swapping(w, b, -1);
		b->whatif = 0;
		reserve(b, need);
		return 0;
	}
	if (b->capv < b->running.count) {
		int c = b->running.count;
		int *pv = realloc(b->victims, (size_t)c * sizeof *pv);
		double *pr = pv ? realloc(b->vrem, (size_t)c * sizeof *pr) :
			NULL;
		if (pv != NULL)
			b->victims = pv;
		if (pr == NULL) {
			b->whatif = 0;
			return SIM_ENOMEM;
		}
		b->vrem = pr;
		b->capv = c;
	}
	for (h = sim_oset_first(&b->running); h >= 0;   /* longest first, */
	     h = sim_oset_next(&b->running, h)) {       /* stable */
		struct bjob *ev;
		double r;
		k = sim_oset_id(&b->running, h);
		if (pol_job_state(w, k) != POL_JOB_RUNNING)
			continue;
		ev = pol_job_priv(w, k);
		if (ev == NULL || ev->kind != POL_TRAIN)
			continue;
		if (how == ROOM_SWAP && ev->prio >= ej->prio)
			continue;
		r = pol_job_remaining_ns(w, k, 0);
		if (how == ROOM_SRTF && !(r > mine))
			continue;
		for (i = nv; i > 0 && b->vrem[i - 1] < r; i--) {
			b->vrem[i] = b->vrem[i - 1];
			b->victims[i] = b->victims[i - 1];
		}
		b->vrem[i] = r;
		b->victims[i] = k;
		nv++;
	}
	/* the fewest victims that make room: all of them first */
	k = 0;
	if (nv > 0 && (fit = fits_with(w, b, j, nv, &at)) > 0) {
		lo = 1;
		hi = nv;                  /* fits with hi, not with lo - 1 */
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if ((rc = fits_with(w, b, j, mid, &at)) < 0)
				break;
			if (rc > 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		k = hi;
		fit = fits_with(w, b, j, k, &at);
	}
	if (fit > 0 && need <= pol_ngpus(w))
		memcpy(b->cand2, b->cand, (size_t)need * sizeof *b->cand2);
	fits_with(w, b, j, 0, &at);   /* the what-if back to nothing */
	if (nout > 0)
		what_if_swapping(w, b, -1);
	b->whatif = 0;
	if (fit < 0)
		return SIM_ENOMEM;
	if (!fit)
		return 0;
	for (i = 0; i < k; i++) {
		rc = how == ROOM_SWAP ? pol_swap_out(w, b->victims[i], &e) :
			pol_preempt(w, b->victims[i], &e);
		if (rc != 0)
			return rc;
		taken_off(w, b, b->victims[i]);
	}
	rc = how == ROOM_SWAP ? 0 : try_place(w, b, j);
	if (rc == 0)                  /* the memory is on its way out */
		reserve(b, need);
	return b->failed ? SIM_ENOMEM : rc;
}

/* ---- the pass ------------------------------------------------------------ */

static int fail_nofit(struct world *w, struct base *b, int j)
{
	struct bjob *e = pol_job_priv(w, j);

	pol_fail_job(w, j, b->mode == POL_GPU_MIG ?
		     "needs more GPUs or memory than the MIG slices have" :
		     "needs more GPUs or memory than the cluster has");
	if (e != NULL)
		unqueue(b, e);
	return 0;
}

/* 1 if entry ha of set a comes before entry hb of set c in pass order. */
static int before(const struct sim_oset *a, int ha, const struct sim_oset *c,
		  int hb)
{
	if (sim_oset_k1(a, ha) != sim_oset_k1(c, hb))
		return sim_oset_k1(a, ha) < sim_oset_k1(c, hb);
	if (sim_oset_k2(a, ha) != sim_oset_k2(c, hb))
		return sim_oset_k2(a, ha) < sim_oset_k2(c, hb);
	return sim_oset_id(a, ha) < sim_oset_id(c, hb);
}

/* The bound on bucket bk's footprints: the gpus-th most free memory a
** GPU offers under this mode; 0 when fewer GPUs offer any. */
static int bucket_bound(struct world *w, const struct base *b, int gpus,
			int64_t *bound)
{
	enum pol_fit how = b->mode == POL_GPU_EXCLUSIVE ? POL_FIT_IDLE :
		b->mode == POL_GPU_MIG ? POL_FIT_SLICE : POL_FIT_FREE;
	uint64_t m;

	if (!pol_gpu_nth_fit(w, gpus, how, &m))
		return 0;
	*bound = m < INT64_MAX ? (int64_t)m : INT64_MAX;
	return 1;
}

/*
** fifo or sjf with backfill: the jobs that cannot run fail first (a
** backfill pass visits every job, and failing one changes nothing the
** others see), then each bucket of n GPUs gives its first job, from
** where the pass is in it, whose footprint is at most the n-th most free
** memory (a job above it fits nowhere, as the scan found by trying it);
** the earliest in pass order is tried; the bounds are refreshed after a
** placement (they only shrink within a pass).
*/
static int pass_backfill(struct world *w, struct base *b)
{
	int k, rc;

	while (b->nofit.count > 0)    /* in pass order */
		fail_nofit(w, b, sim_oset_id(&b->nofit,
					     sim_oset_first(&b->nofit)));
	for (k = 0; k < b->nbk; k++) {
		b->bk[k].c1 = INT64_MIN;
		b->bk[k].c2 = INT64_MIN;
		b->bk[k].cid = INT_MIN;
	}
	for (;;) {
		int best = -1, j;
		struct bucket *bk;
		for (k = 0; k < b->nbk; k++) {
			int64_t bound;
			bk = &b->bk[k];
			bk->h = -1;
			if (bk->set.count == 0 ||
			    !bucket_bound(w, b, bk->gpus, &bound))
				continue;
			bk->h = sim_oset_first_aux_le(&bk->set, bk->c1, bk->c2,
						      bk->cid, bound);
			if (bk->h >= 0 && (best < 0 ||
					   before(&bk->set, bk->h,
						  &b->bk[best].set,
						  b->bk[best].h)))
				best = k;
		}
		if (best < 0)
			return 0;
		bk = &b->bk[best];
		j = sim_oset_id(&bk->set, bk->h);
		bk->c1 = sim_oset_k1(&bk->set, bk->h);
		bk->c2 = sim_oset_k2(&bk->set, bk->h);
		bk->cid = j + 1;
		if ((rc = try_place(w, b, j)) < 0)
			return rc;
	}
}

/* Without backfill: in pass order until the first job that does not fit
** (one that never can fails, and the pass goes on). */
static int pass_strict(struct world *w, struct base *b)
{
	int h = sim_oset_first(&b->all), rc;

	while (h >= 0) {
		int j = sim_oset_id(&b->all, h);
		int64_t k1 = sim_oset_k1(&b->all, h), k2 = sim_oset_k2(&b->all, h);
		struct bjob *e = pol_job_priv(w, j);
		if (e == NULL)
			return SIM_ENOMEM;
		if (e->fit == 2)
			fail_nofit(w, b, j);
		else if ((rc = try_place(w, b, j)) <= 0)
			return rc;
		h = sim_oset_lower_bound(&b->all, k1, k2, j + 1);
	}
	return 0;
}

/* srtf or on_full = swap: every pending job, in the order of the pass's
** start (victims put back during the pass wait for the next one), may
** make room. */
static int pass_room(struct world *w, struct base *b)
{
	int n = b->all.count, k = 0, h, rc = 0;

	if (n > b->capjobs) {
		int *p = realloc(b->jobs, (size_t)n * sizeof *p);
		if (p == NULL)
			return SIM_ENOMEM;
		b->jobs = p;
		b->capjobs = n;
	}
	for (h = sim_oset_first(&b->all); h >= 0; h = sim_oset_next(&b->all, h))
		b->jobs[k++] = sim_oset_id(&b->all, h);
	for (k = 0; k < n; k++) {
		int j = b->jobs[k], st = pol_job_state(w, j);
		struct bjob *e;
		if (st != POL_JOB_PENDING && st != POL_JOB_PREEMPTED)
			continue;
		if ((e = entry(w, b, j)) == NULL) {
			rc = SIM_ENOMEM;
			break;
		}
		if (e->fit == 2) {
			fail_nofit(w, b, j);
			continue;
		}
		b->waiting = 0;
		rc = try_place(w, b, j);
		if (rc == 0 && b->order == ORD_SRTF && e->kind == POL_TRAIN)
			rc = make_room(w, b, j, ROOM_SRTF);
		if (rc == 0 && b->on_full == FULL_SWAP && !b->waiting)
			rc = make_room(w, b, j, ROOM_SWAP);
		if (rc < 0 || (rc == 0 && !b->backfill))
			break;
	}
	if (b->nresv > 0) {
		memset(b->resv, 0, (size_t)pol_ngpus(w));
		b->nresv = 0;
	}
	return rc < 0 ? rc : 0;
}

static int base_schedule(struct world *w, void *state)
{
	struct base *b = state;

	if (b->failed)
		return SIM_ENOMEM;
	if (b->order == ORD_SRTF || b->on_full == FULL_SWAP)
		return pass_room(w, b);
	return b->backfill ? pass_backfill(w, b) : pass_strict(w, b);
}

static int excl_init(struct world *w, void *s, const struct pol_params *p,
		     struct sim_err *err)
{
	(void)p;
	return base_init(w, s, POL_GPU_EXCLUSIVE, err);
}

static int ts_init(struct world *w, void *s, const struct pol_params *p,
		   struct sim_err *err)
{
	(void)p;
	return base_init(w, s, POL_GPU_TIMESLICE, err);
}

static int mps_init(struct world *w, void *s, const struct pol_params *p,
		    struct sim_err *err)
{
	(void)p;
	return base_init(w, s, POL_GPU_MPS, err);
}

static int mig_init(struct world *w, void *s, const struct pol_params *p,
		    struct sim_err *err)
{
	int rc = base_init(w, s, POL_GPU_MIG, err);

	(void)p;
	if (rc == 0)
		rc = mig_layout(w, s, err);
	return rc ? rc : mig_caps(w, s, err);
}

#define BASELINE(var, name, desc, init, params)                           \
	const struct pol_ops var = {                                      \
		.iVersion = POL_IFACE_VERSION,                            \
		.zName = name,                                            \
		.zDesc = desc,                                            \
		.szState = sizeof(struct base),                           \
		.aParam = params,                                         \
		.xInit = init,                                            \
		.xFini = base_fini,                                       \
		.xOnFinish = base_finish,                                 \
		.xSchedule = base_schedule,                               \
		.xOnQueue = base_queue,                                   \
		.szJob = sizeof(struct bjob)                              \
	}

BASELINE(pol_exclusive, "exclusive",
	 "one job per GPU, as today's cluster schedulers do", excl_init,
	 excl_params);
BASELINE(pol_timeslice, "timeslice",
	 "pack jobs while memory fits; the driver time-slices them", ts_init,
	 ts_params);
BASELINE(pol_mps, "mps",
	 "pack jobs while memory fits, each with a static MPS SM share",
	 mps_init, mps_params);
BASELINE(pol_mig, "mig", "a static MIG layout per GPU, one job per slice",
	 mig_init, mig_params);
