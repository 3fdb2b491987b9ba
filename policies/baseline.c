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
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

enum { ORD_FIFO, ORD_SJF, ORD_SRTF };
enum { PL_FIRST, PL_BEST, PL_SPREAD };

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
	double *key;            /* scratch: sort keys */
	int *prio;              /* scratch: trace priorities, as key */
	int *jobs;              /* scratch: pass order */
	unsigned char *fit;     /* per job: 0 unknown, 1 fits an empty
				   cluster, 2 never can (the cluster is
				   fixed, so this is decided once) */
	uint64_t *minmem;       /* per job: least footprint over the GPUs */
	int nfit;
	/* srtf what-if: what the victims chosen so far would free, per GPU
	** (tenants, bytes) and per MIG slice (bytes, 7 per GPU); all 0
	** outside make_room */
	int *gone_ten;
	uint64_t *gone_mem, *gone_slice;
	int *victims;           /* scratch: srtf victims, longest first */
	double *vrem;           /* scratch: their remaining times */
	int *onjobs;            /* scratch: jobs found on the GPUs */
	int nonjobs_cap;
	unsigned *seen;         /* per job: the stamp of the walk that found
				   it */
	int nseen;
	unsigned stamp;
	unsigned char *resv;    /* per GPU: reserved for a job waiting for
				   swap copies to end (this pass only) */
	int *cand2;             /* scratch: the reserved GPUs */
	int waiting;            /* make_room reserved GPUs for this job */
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
	(void)w;
	free(b->cand);
	free(b->slices);
	free(b->bestv);
	free(b->key);
	free(b->prio);
	free(b->jobs);
	free(b->fit);
	free(b->minmem);
	free(b->gone_ten);
	free(b->gone_mem);
	free(b->gone_slice);
	free(b->victims);
	free(b->vrem);
	free(b->onjobs);
	free(b->seen);
	free(b->resv);
	free(b->cand2);
}

/* The job's sort key under the configured order. */
static double job_key(struct world *w, const struct base *b,
		      const struct pol_job_info *job)
{
	if (b->order == ORD_FIFO)
		return (double)job->submit_ns;
	return pol_job_remaining_ns(w, job->job, 0);
}

/* Fills b->jobs with the pending jobs in pass order; returns how many. */
static int pass_order(struct world *w, struct base *b)
{
	int n = pol_npending(w), k, i;
	size_t sz = (size_t)(n ? n : 1);

	free(b->jobs);
	free(b->key);
	free(b->prio);
	b->jobs = malloc(sz * sizeof *b->jobs);
	b->key = malloc(sz * sizeof *b->key);
	b->prio = malloc(sz * sizeof *b->prio);
	if (b->jobs == NULL || b->key == NULL || b->prio == NULL)
		return -1;
	for (k = 0; k < n; k++) {         /* insertion sort: stable */
		int j = pol_pending_at(w, k);
		struct pol_job_info job = pol_job(w, j);
		double key = job_key(w, b, &job);
		int pr = job.priority;
		for (i = k; i > 0 && (b->on_full == FULL_SWAP &&
				      b->prio[i - 1] != pr ?
				      b->prio[i - 1] < pr :
				      b->key[i - 1] > key ||
				      (b->key[i - 1] == key &&
				       b->jobs[i - 1] > j)); i--) {
			b->key[i] = b->key[i - 1];
			b->prio[i] = b->prio[i - 1];
			b->jobs[i] = b->jobs[i - 1];
		}
		b->key[i] = key;
		b->prio[i] = pr;
		b->jobs[i] = j;
	}
	return n;
}

/* Free memory left on GPU g (or slice s) if job j went there; -1 if it
** does not fit or the GPU / slice is not available to it.  Counts the
** srtf what-if victims (gone_*) as gone. */
static double leftover(struct world *w, const struct base *b, int j, int g,
		       int s)
{
	struct pol_gpu_info gp = pol_gpu(w, g);
	uint64_t need = pol_job_mem(w, j, g), free_b, used;

	if (b->resv[g])
		return -1;
	if (b->mode == POL_GPU_EXCLUSIVE && gp.ntenants > b->gone_ten[g])
		return -1;
	if (b->mode == POL_GPU_MIG) {
		struct pol_slice_info sl = pol_gpu_slice(w, g, s);
		if (sl.mem_used > b->gone_slice[g * 7 + s])
			return -1;
		free_b = sl.hbm_bytes;
	} else {
		used = gp.mem_used - b->gone_mem[g];
		free_b = used < gp.hbm_bytes ? gp.hbm_bytes - used : 0;
	}
	if (need > free_b)
		return -1;
	return (double)(free_b - need);
}

/* Chooses GPUs (and slices) for job j into b->cand / b->slices; 1 if found. */
static int choose(struct world *w, struct base *b, int j)
{
	int need = pol_job(w, j).gpus, got = 0, g, s, k;
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

static int try_place(struct world *w, struct base *b, int j)
{
	struct pol_place_opts o = { .sm_cap = 1.0 };
	struct pol_job_info job = pol_job(w, j);
	struct sim_err e = { 0, "" };
	int rc;

	if (!choose(w, b, j))
		return 0;
	if (b->mode == POL_GPU_MPS)
		o.sm_cap = job.gpu_share < 1 ? job.gpu_share : b->sm_cap;
	if (b->mode == POL_GPU_MIG)
		o.slices = b->slices;
	rc = pol_place(w, j, b->cand, job.gpus, &o, &e);
	if (rc == SIM_ENOSPC || rc == SIM_ESTATE)
		return 0;
	return rc < 0 ? rc : 1;
}

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

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int onjobs_push(struct base *b, int n, int j)
{
	if (n == b->nonjobs_cap) {
		int c = n ? 2 * n : 64;
		int *p = realloc(b->onjobs, (size_t)c * sizeof *p);
		if (p == NULL)
			return -1;
		b->onjobs = p;
		b->nonjobs_cap = c;
	}
	b->onjobs[n] = j;
	return 0;
}

/* The jobs in `state` that hold GPUs, found through the GPUs' tenants
** (never a scan of every job the run has seen), in job order, into
** b->onjobs; returns how many, or -1 out of memory. */
static int jobs_on_gpus(struct world *w, struct base *b, int state)
{
	int g, n = 0, nj = pol_njobs(w);

	if (nj > b->nseen) {
		unsigned *p = realloc(b->seen, (size_t)nj * sizeof *p);
		if (p == NULL)
			return -1;
		memset(p + b->nseen, 0, (size_t)(nj - b->nseen) * sizeof *p);
		b->seen = p;
		b->nseen = nj;
	}
	if (++b->stamp == 0) {          /* wrapped: forget every stamp */
		memset(b->seen, 0, (size_t)b->nseen * sizeof *b->seen);
		b->stamp = 1;
	}
	for (g = 0; g < pol_ngpus(w); g++) {
		struct pol_tenant_walk it = pol_tenants(w, g);
		struct pol_tenant_info t;
		while (pol_tenant_next(w, &it, &t)) {
			if (t.job < 0 || t.job >= nj ||
			    b->seen[t.job] == b->stamp ||
			    pol_job_state(w, t.job) != state)
				continue;
			b->seen[t.job] = b->stamp;
			if (onjobs_push(b, n, t.job) != 0)
				return -1;
			n++;
		}
	}
	if (n > 1)
		qsort(b->onjobs, (size_t)n, sizeof *b->onjobs, cmp_int);
	return n;
}

/* Adds (1) or removes (-1) every job swapping out to the what-if;
** returns how many there are, -1 out of memory. */
static int what_if_swapping(struct world *w, struct base *b, int sign)
{
	int k, n = jobs_on_gpus(w, b, POL_JOB_SWAPPING_OUT);

	for (k = 0; k < n; k++)
		what_if(w, b, b->onjobs[k], sign);
	return n;
}

/* Reserves the GPUs in b->cand2[0..n) for the rest of this pass. */
static void reserve(struct base *b, int n)
{
	int k;

	for (k = 0; k < n; k++)
		b->resv[b->cand2[k]] = 1;
	b->waiting = 1;
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
*/
enum { ROOM_SRTF, ROOM_SWAP };

static int make_room(struct world *w, struct base *b, int j, int how)
{
	struct pol_job_info job = pol_job(w, j);
	double mine = pol_job_remaining_ns(w, j, 0);
	struct sim_err e = { 0, "" };
	int need = job.gpus, k, i, n, nv = 0, fit = 0, nout, non, rc;

	if ((nout = what_if_swapping(w, b, 1)) > 0 && choose(w, b, j)) {
		memcpy(b->cand2, b->cand, (size_t)need * sizeof *b->cand2);
		what_if_swapping(w, b, -1);
		reserve(b, need);
		return 0;
	}
	if (nout < 0 || (non = jobs_on_gpus(w, b, POL_JOB_RUNNING)) < 0)
		return SIM_ENOMEM;
	free(b->victims);
	free(b->vrem);
	b->victims = malloc((size_t)(non ? non : 1) * sizeof *b->victims);
	b->vrem = malloc((size_t)(non ? non : 1) * sizeof *b->vrem);
	if (b->victims == NULL || b->vrem == NULL)
		return SIM_ENOMEM;
	for (n = 0; n < non; n++) {             /* longest first, stable */
		struct pol_job_info v;
		double r;
		k = b->onjobs[n];
		if (pol_job_state(w, k) != POL_JOB_RUNNING)
			continue;
		v = pol_job(w, k);
		if (v.kind != POL_TRAIN)
			continue;
		if (how == ROOM_SWAP && v.priority >= job.priority)
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
	for (k = 0; k < nv && !fit; k++) {
		what_if(w, b, b->victims[k], 1);
		fit = choose(w, b, j);
	}
	if (fit && need <= pol_ngpus(w))
		memcpy(b->cand2, b->cand, (size_t)need * sizeof *b->cand2);
	for (i = 0; i < k; i++)
		what_if(w, b, b->victims[i], -1);
	if (nout > 0)
		what_if_swapping(w, b, -1);
	if (!fit)
		return 0;
	for (i = 0; i < k; i++) {
		rc = how == ROOM_SWAP ? pol_swap_out(w, b->victims[i], &e) :
			pol_preempt(w, b->victims[i], &e);
		if (rc != 0)
			return rc;
	}
	rc = how == ROOM_SWAP ? 0 : try_place(w, b, j);
	if (rc == 0)                  /* the memory is on its way out */
		reserve(b, need);
	return rc;
}

/* 1 if job j could run on an empty cluster under this policy: under mig,
** enough GPUs must have a slice that holds it. */
static int fits_empty(struct world *w, const struct base *b, int j)
{
	int g, s, n = 0;

	if (b->mode != POL_GPU_MIG)
		return pol_job_fits_empty(w, j);
	for (g = 0; g < pol_ngpus(w); g++) {
		int ns = pol_gpu(w, g).nslices;
		for (s = 0; s < ns; s++)
			if (pol_job_mem(w, j, g) <=
			    pol_gpu_slice(w, g, s).hbm_bytes) {
				n++;
				break;
			}
	}
	return n >= pol_job(w, j).gpus;
}

/* fits_empty, decided once per job; -1 out of memory. */
static int fits_cached(struct world *w, struct base *b, int j)
{
	if (j >= b->nfit) {
		int n = pol_njobs(w) > j ? pol_njobs(w) : j + 1;
		unsigned char *p = realloc(b->fit, (size_t)n);
		uint64_t *m;
		if (p == NULL)
			return -1;
		b->fit = p;
		m = realloc(b->minmem, (size_t)n * sizeof *m);
		if (m == NULL)
			return -1;
		b->minmem = m;
		memset(p + b->nfit, 0, (size_t)(n - b->nfit));
		b->nfit = n;
	}
	if (b->fit[j] == 0) {
		int g;
		b->fit[j] = fits_empty(w, b, j) ? 1 : 2;
		b->minmem[j] = UINT64_MAX;
		for (g = 0; g < pol_ngpus(w); g++)
			if (pol_job_mem(w, j, g) < b->minmem[j])
				b->minmem[j] = pol_job_mem(w, j, g);
	}
	return b->fit[j] == 1;
}

/* The most free memory on any GPU: a job needing more fits nowhere in
** this pass (placements only lower it).  Unused under mig. */
static uint64_t max_free(struct world *w)
{
	uint64_t m = 0, f;
	int g;

	for (g = 0; g < pol_ngpus(w); g++)
		if ((f = pol_gpu_free(w, g, -1)) > m)
			m = f;
	return m;
}

/* An upper bound on the GPUs (slices, under mig) a job can still get in
** this pass, kept exact by take_avail: exclusive counts idle GPUs, mig free
** slices; the sharing modes have no cheap bound (INT_MAX). */
static int avail_gpus(struct world *w, const struct base *b)
{
	int g, s, n = 0;

	if (b->mode != POL_GPU_EXCLUSIVE && b->mode != POL_GPU_MIG)
		return 0x7fffffff;
	for (g = 0; g < pol_ngpus(w); g++) {
		struct pol_gpu_info gp = pol_gpu(w, g);
		if (b->mode == POL_GPU_EXCLUSIVE) {
			n += gp.ntenants == 0;
			continue;
		}
		for (s = 0; s < gp.nslices; s++)
			n += pol_gpu_slice(w, g, s).mem_used == 0;
	}
	return n;
}

static int base_schedule(struct world *w, void *state)
{
	struct base *b = state;
	int n = pass_order(w, b), k, rc, fit;
	int avail = avail_gpus(w, b);
	uint64_t maxfree = b->mode == POL_GPU_MIG ? UINT64_MAX : max_free(w);

	if (n < 0)
		return SIM_ENOMEM;
	memset(b->resv, 0, (size_t)pol_ngpus(w));
	for (k = 0; k < n; k++) {
		int j = b->jobs[k], st = pol_job_state(w, j);
		struct pol_job_info job;
		if (st != POL_JOB_PENDING && st != POL_JOB_PREEMPTED)
			continue;
		job = pol_job(w, j);
		if ((fit = fits_cached(w, b, j)) < 0)
			return SIM_ENOMEM;
		if (fit && (job.gpus > avail || b->minmem[j] > maxfree) &&
		    b->order != ORD_SRTF && b->on_full != FULL_SWAP) {
			/* cannot fit now: skip the scan (a placement only
			** lowers avail, so the bound holds for the pass) */
			if (!b->backfill)
				break;
			continue;
		}
		if (!fit) {
			pol_fail_job(w, j, b->mode == POL_GPU_MIG ?
				     "needs more GPUs or memory than the "
				     "MIG slices have" : "needs more GPUs or "
				     "memory than the cluster has");
			continue;
		}
		b->waiting = 0;
		rc = try_place(w, b, j);
		if (rc == 0 && b->order == ORD_SRTF && job.kind == POL_TRAIN)
			rc = make_room(w, b, j, ROOM_SRTF);
		if (rc == 0 && b->on_full == FULL_SWAP && !b->waiting)
			rc = make_room(w, b, j, ROOM_SWAP);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			avail = b->order == ORD_SRTF ? avail_gpus(w, b) :
				avail - job.gpus;
			if (b->mode != POL_GPU_MIG)
				maxfree = max_free(w);
		}
		if (rc == 0 && !b->backfill)
			break;
	}
	return 0;
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
	return rc ? rc : mig_layout(w, s, err);
}

#define BASELINE(var, name, desc, init, params)                           \
	const struct pol_ops var = {                                      \
		.iVersion = 2,                                            \
		.zName = name,                                            \
		.zDesc = desc,                                            \
		.szState = sizeof(struct base),                           \
		.aParam = params,                                         \
		.xInit = init,                                            \
		.xFini = base_fini,                                       \
		.xSchedule = base_schedule                                \
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
