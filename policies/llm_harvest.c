/*
** llm_harvest.c: the policy "llm-harvest": training jobs harvest the GPU
** time LLM replicas leave idle, while a feedback loop guards the
** replicas' time per output token (docs/POLICIES.md, "llm-harvest").
**
** COLTI's idea (co-locate on the SMs a resident job leaves idle, when the
** memory fits) for LLM serving: a decode iteration of a small batch is
** memory-bound and fills few SMs, and the engine's host-side work between
** iterations leaves the GPU idle, so a training job beside a replica gets
** real throughput; but every token of every running request pays for the
** interference.  So:
**
**   - every GPU runs MPS; services (llm and infer) go first-fit to GPUs
**     that hold no other service, at the full SM share; training jobs go
**     preferably to GPUs that hold one service and no training job, with
**     a capped SM share (starting at share_init), else to empty GPUs at
**     the full share; memory must fit (the replica's KV pool is whatever
**     its kv setting makes it: docs/MODEL.md, "LLM replicas in the world");
**   - every period_ms, for each running LLM service it reads the window
**     (pol_llm_window) and resets it: when the guarded signal (the mean
**     inter-token gap, or the p99 TPOT of the requests completed in the
**     window) is over guard x slo_tpot_ms, each training job harvesting
**     its GPUs has its share cut by the factor backoff; when it already
**     was at share_min, it is preempted (pause = 1) and kept off service
**     GPUs for cooldown_s; when the signal is under relax x guard x
**     slo_tpot_ms (or the replica produced nothing), the share grows by
**     share_step up to share_max (AIMD, as TCP's congestion window);
**   - a training job that no service's GPUs can take runs on free GPUs.
**
** The share is the only knob a running job has in this GPU model; it
** stretches the training job's compute and frees SMs for the replica's
** prefill-heavy iterations, but the HBM bandwidth both draw is shared
** whatever the shares (docs/MODEL.md, "GPU sharing modes", known limits),
** which is why the guard must be able to pause the job.
**
** Cost per event (G GPUs, P pending jobs, R jobs placed and not finished,
** n GPUs a job, D device kinds; log: O(log G) index steps):
**   pass                O(changed GPUs x (tenants + log G)) to refresh the
**                       GPU classes (empty / one service / training only:
**                       first-fit indexes by free memory), then per pending
**                       job O(D + n log G) for its GPUs
**   control tick        O(R) (the placed jobs, by index: uncap and the LLM
**                       windows), plus a pass when jobs wait and a GPU
**                       changed, the last pass placed a job or a pause
**                       ended since it (else the pass would place nothing);
**                       O(1) with no service live once a walk has uncapped
**                       every placed job and no pass placed one since
** The timer ticks on the grid k x period_ms from 0; it sleeps after a tick
** with no service live, every placed job uncapped and no job waiting
** (every later tick would change nothing but its count), and the next
** arrival re-arms it on the same grid: a run with no service costs about
** one tick per arrival, not one per period (1e4 training jobs, 125x8:
** 2.1e6 events before, 6.4e4 after; outputs identical).
** Worst cases: GPUs of a class whose free memory passes the smallest
** footprint over the device kinds but not the job's on their own kind
** (each is checked and passed); a long queue, tried every tick
** (O(P (D + n log G)) a tick).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policies/llm_harvest.h"
#include "policies/policy.h"

enum { SIG_ITL_MEAN = 0, SIG_TPOT_P99 };

struct hv {
	/* parameters */
	double period_ms, guard, relax, share_init, share_min, share_max,
	       share_step, backoff, cooldown_s;
	int signal, pause;
	uint64_t tick;
	int *cand;                    /* scratch: GPUs chosen */
	/* the GPUs by what holds them (CL_*), each a first-fit index: key
	** the GPU, aux -(free bytes); cls[g], gh[g]: g's class and handle */
	struct sim_oset cl[3];
	int *cls, *gh;
	/* the jobs placed and not finished, by index (struct hv_job's jh) */
	struct sim_oset placed;
	/* when the last pass ended, whether it placed a job, and the ends
	** of the pauses (until, job): a tick's pass runs only when one of
	** those may change its answer */
	sim_time last_pass;
	int placed_last;
	struct sim_oset cool;
	/* the timer's sleep (hv_timer): services arrived and not ended,
	** whether every placed job runs uncapped with no service live
	** (clean: the uncap walk would change nothing), whether the timer
	** sleeps, and when the last tick ran (the grid's phase) */
	int live_svc, clean, dormant;
	sim_time last_tick;
};

/* A job's state (its pol_job_priv, zeroed when first asked for, freed
** with the job's record): the share the loop gave it (when has_share),
** until when it is kept off service GPUs (0: never paused), the tick
** that last changed it (ticks count from 1), and its handle in
** h->placed plus 1 (0: not there). */
struct hv_job {
	double share;
	sim_time until;
	uint64_t tick_of;
	int has_share, jh1;
};

/* GPU classes: no job; one service and no training job; training jobs
** and no service.  Any other GPU is in none. */
enum { CL_EMPTY = 0, CL_ONE_SVC, CL_TRAIN_ONLY, CL_NONE };

static const char *const signal_names[] = { "itl_mean", "tpot_p99", NULL };

static const struct pol_param_def hv_params[] = {
	POL_PARAM_DOUBLE("period_ms", struct hv, period_ms, 1, 600000, "500",
			 "control period"),
	POL_PARAM_CHOICE("signal", struct hv, signal, signal_names,
			 "itl_mean", "guarded statistic of the window: mean "
			 "inter-token gap, or p99 TPOT of completed requests"),
	POL_PARAM_DOUBLE("guard", struct hv, guard, 0.05, 1, "0.8",
			 "back off above guard x the service's TPOT SLO"),
	POL_PARAM_DOUBLE("relax", struct hv, relax, 0, 1, "0.75",
			 "grow below relax x guard x the TPOT SLO"),
	POL_PARAM_DOUBLE("share_init", struct hv, share_init, 0.01, 1, "0.5",
			 "SM share of a training job placed beside a service"),
	POL_PARAM_DOUBLE("share_min", struct hv, share_min, 0.01, 1, "0.1",
			 "smallest share before the job is paused"),
	POL_PARAM_DOUBLE("share_max", struct hv, share_max, 0.01, 1, "0.9",
			 "largest share beside a service"),
	POL_PARAM_DOUBLE("share_step", struct hv, share_step, 0.001, 1, "0.1",
			 "additive increase per period"),
	POL_PARAM_DOUBLE("backoff", struct hv, backoff, 0.05, 0.99, "0.5",
			 "multiplicative decrease when over the guard"),
	POL_PARAM_BOOL("pause", struct hv, pause, "1", "1: preempt a job "
		       "that still breaks the guard at share_min"),
	POL_PARAM_DOUBLE("cooldown_s", struct hv, cooldown_s, 0, 1e6, "10",
			 "a paused job stays off service GPUs this long"),
	POL_PARAM_END
};

/* Job j's state; NULL when out of memory (j is live: a pending, running
** or just-finished job). */
static struct hv_job *hj(struct world *w, int j)
{
	return pol_job_priv(w, j);
}

static int is_service(const struct pol_job_info *j)
{
	return j->kind == POL_INFER || j->kind == POL_LLM;
}

/* What holds GPU g: *svc its services, *train its training jobs. */
static void holders(struct world *w, int g, int *svc, int *train)
{
	struct pol_tenant_walk it = pol_tenants(w, g);
	struct pol_tenant_info t;

	*svc = *train = 0;
	while (pol_tenant_next(w, &it, &t)) {
		struct pol_job_info j;
		if (t.job < 0)
			continue;
		j = pol_job(w, t.job);
		if (is_service(&j))
			(*svc)++;
		else
			(*train)++;
	}
}

/* GPU g's class from its holders. */
static int class_of(struct world *w, int g)
{
	int svc, train;

	holders(w, g, &svc, &train);
	if (svc == 0)
		return train == 0 ? CL_EMPTY : CL_TRAIN_ONLY;
	return svc == 1 && train == 0 ? CL_ONE_SVC : CL_NONE;
}

/* Refreshes GPU g's class and free memory in the indexes. */
static int refresh(struct world *w, struct hv *h, int g)
{
	int c = class_of(w, g), hd;
	uint64_t fr = pol_gpu_free(w, g, -1);
	int64_t aux = fr > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)fr;

	if (h->cls[g] == c) {
		if (c != CL_NONE)
			sim_oset_update(&h->cl[c], h->gh[g], 0, 0, aux);
		return 0;
	}
	if (h->cls[g] != CL_NONE)
		sim_oset_remove(&h->cl[h->cls[g]], h->gh[g]);
	h->cls[g] = c;
	h->gh[g] = -1;
	if (c == CL_NONE)
		return 0;
	if ((hd = sim_oset_insert(&h->cl[c], 0, 0, g, aux)) < 0)
		return hd;
	h->gh[g] = hd;
	return 0;
}

static int refresh_changed(struct world *w, struct hv *h)
{
	int k, n = pol_nchanged(w), rc;

	for (k = 0; k < n; k++)
		if ((rc = refresh(w, h, pol_changed_at(w, k))) != 0)
			return rc;
	return 0;
}

/* Job j's smallest footprint over the device kinds. */
static uint64_t min_mem(const struct world *w, int j)
{
	uint64_t lo = UINT64_MAX;
	int d;

	for (d = 0; d < pol_ndevs(w); d++) {
		uint64_t m = pol_job_mem(w, j, pol_dev(w, d).gpu);
		if (m < lo)
			lo = m;
	}
	return lo;
}

/* Picks n GPUs for job j into h->cand, first fit: services on GPUs
** without a service (free ones first); training on GPUs with one service
** and no training (harvest: *harvest 1) unless paused, then on empty ones.
** Each pass walks its class's first-fit index (lowest index first, by
** free memory from the smallest footprint over the kinds, each GPU then
** checked exactly): the GPUs a walk over every GPU would take, in its
** order.  1 if found. */
static int pick(struct world *w, struct hv *h, int j, int n, int *harvest)
{
	struct pol_job_info job = pol_job(w, j);
	int pass, g, got = 0, k, hd;
	struct hv_job *r = hj(w, j);
	int paused = job.kind == POL_TRAIN && r != NULL &&
		     r->until > pol_now(w);
	uint64_t lo = min_mem(w, j);
	int64_t bound = lo > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)lo;

	*harvest = 0;
	for (pass = 0; pass < 2 && got < n; pass++) {
		int c = is_service(&job) ?
			(pass == 0 ? CL_EMPTY : CL_TRAIN_ONLY) :
			(pass == 0 ? CL_ONE_SVC : CL_EMPTY);
		if (!is_service(&job) && pass == 0 && paused)
			continue;
		g = -1;
		while (got < n &&
		       (hd = sim_oset_first_aux_le(&h->cl[c], 0, 0, g + 1,
						   bound)) >= 0) {
			int dup = 0;
			g = sim_oset_id(&h->cl[c], hd);
			if (pol_job_mem(w, j, g) > pol_gpu_free(w, g, -1))
				continue;
			for (k = 0; k < got; k++)
				dup |= h->cand[k] == g;
			if (dup)
				continue;
			if (!is_service(&job) && pass == 0)
				*harvest = 1;
			h->cand[got++] = g;
		}
	}
	return got == n;
}

/* Service j was placed on h->cand[0..n): the training job on each of
** those GPUs is capped at share_init (the shares change after the walks:
** no action inside a tenant walk). */
static int cap_beside(struct world *w, struct hv *h, int j, int n)
{
	struct hv_job *r;
	int k, rc;

	for (k = 0; k < n; k++) {
		struct pol_tenant_walk tw = pol_tenants(w, h->cand[k]);
		struct pol_tenant_info t;
		int tj = -1;
		while (pol_tenant_next(w, &tw, &t))
			if (t.job >= 0 && t.job != j &&
			    pol_job(w, t.job).kind == POL_TRAIN)
				tj = t.job;
		if (tj < 0)
			continue;
		if ((r = hj(w, tj)) == NULL)
			return SIM_ENOMEM;
		if (!r->has_share || r->share > h->share_init) {
			r->share = h->share_init;
			r->has_share = 1;
		}
		if ((rc = pol_set_share(w, tj, r->share, NULL)) < 0)
			return rc;
	}
	return 0;
}

static int wake(struct world *w, struct hv *h, int at_now);

static int hv_schedule(struct world *w, void *state)
{
	struct hv *h = state;
	struct pol_pending_walk it = POL_PENDING_WALK;
	int j, k, rc;

	if ((rc = refresh_changed(w, h)) != 0)
		return rc;
	h->placed_last = 0;
	h->last_pass = pol_now(w);
	while ((j = pol_pending_next(w, &it)) >= 0) {
		struct pol_job_info job = pol_job(w, j);
		struct pol_place_opts o = { .sm_cap = 1.0 };
		struct hv_job *r;
		int harvest;

		if (job.gpus < 1) {
			pol_fail_job(w, j, "a CPU-only job: llm-harvest places "
				     "GPU work only");
			continue;
		}
		if (!pol_job_fits_empty(w, j)) {
			pol_fail_job(w, j, "larger than any GPU set");
			continue;
		}
		if ((r = hj(w, j)) == NULL)
			return SIM_ENOMEM;
		if (!pick(w, h, j, job.gpus, &harvest))
			continue;
		if (harvest) {
			if (!r->has_share) {
				r->share = h->share_init;
				r->has_share = 1;
			}
			o.sm_cap = r->share;
		}
		rc = pol_place(w, j, h->cand, job.gpus, &o, NULL);
		if (rc != 0 && rc != SIM_ENOSPC && rc != SIM_ESTATE)
			return rc;
		if (rc != 0)
			continue;
		if (is_service(&job) &&
		    (rc = cap_beside(w, h, j, job.gpus)) < 0)
			return rc;
		h->placed_last = 1;
		h->clean = 0;
		for (k = 0; k < job.gpus; k++)
			if ((rc = refresh(w, h, h->cand[k])) != 0)
				return rc;
		if (r->jh1 == 0) {
			if ((rc = sim_oset_insert(&h->placed, 0, 0, j, 0)) < 0)
				return rc;
			r->jh1 = rc + 1;
		}
	}
	/* only an arrival wakes the timer in the cases its sleep covers;
	** anything else that leaves work for a tick wakes it here */
	if (h->dormant && (h->placed_last || pol_npending(w) > 0))
		return wake(w, h, 0);
	return 0;
}

/* One control step for the training jobs harvesting LLM service s's GPUs:
** dir < 0 back off, > 0 grow. */
static int adjust(struct world *w, struct hv *h, int s, int dir)
{
	struct pol_job_info sj = pol_job(w, s);
	int k, rc, victims[64], nv = 0, i;

	for (k = 0; k < sj.nplaced && nv < 64; k++) {
		struct pol_tenant_walk it = pol_tenants(w,
			pol_job_tenant(w, s, k).gpu);
		struct pol_tenant_info t;
		while (pol_tenant_next(w, &it, &t) && nv < 64) {
			int dup = 0;
			if (t.job < 0 || pol_job(w, t.job).kind != POL_TRAIN ||
			    pol_job_state(w, t.job) != POL_JOB_RUNNING)
				continue;
			for (i = 0; i < nv; i++)
				dup |= victims[i] == t.job;
			if (!dup)
				victims[nv++] = t.job;
		}
	}
	for (i = 0; i < nv; i++) {
		int j = victims[i];
		struct hv_job *r = hj(w, j);
		double sh;
		if (r == NULL)
			return SIM_ENOMEM;
		if (r->tick_of == h->tick)         /* once per period */
			continue;
		r->tick_of = h->tick;
		sh = !r->has_share ? pol_job_tenant(w, j, 0).sm_cap : r->share;
		if (dir < 0 && sh <= h->share_min * (1 + 1e-9) && h->pause) {
			pol_add_metric(w, "harvest_pauses", 1);
			r->until = pol_now(w) + (sim_time)(h->cooldown_s * 1e9);
			if ((rc = sim_oset_insert(&h->cool, r->until, 0, j,
						  0)) < 0)
				return rc;
			if ((rc = pol_preempt(w, j, NULL)) < 0 &&
			    rc != SIM_ESTATE)
				return rc;
			continue;
		}
		if (dir < 0) {
			sh = fmax(h->share_min, sh * h->backoff);
			pol_add_metric(w, "harvest_cuts", 1);
		} else {
			if (sh >= h->share_max)
				continue;
			sh = fmin(h->share_max, sh + h->share_step);
			pol_add_metric(w, "harvest_raises", 1);
		}
		r->share = sh;
		r->has_share = 1;
		if ((rc = pol_set_share(w, j, sh, NULL)) < 0)
			return rc;
	}
	return 0;
}

/* A training job capped beside a service that has left gets its GPUs
** whole again. */
static int uncap(struct world *w, int j)
{
	struct pol_job_info job = pol_job(w, j);
	struct hv_job *r;
	int k, svc, train;

	if (job.kind != POL_TRAIN || job.state != POL_JOB_RUNNING ||
	    job.nplaced == 0 || pol_job_tenant(w, j, 0).sm_cap >= 1)
		return 0;
	for (k = 0; k < job.nplaced; k++) {
		holders(w, pol_job_tenant(w, j, k).gpu, &svc, &train);
		if (svc > 0)
			return 0;
	}
	if ((r = hj(w, j)) == NULL)
		return SIM_ENOMEM;
	r->has_share = 0;
	return pol_set_share(w, j, 1.0, NULL);
}

/* Whether a tick's pass may place something the last pass did not. */
static int tick_pass_needed(struct world *w, struct hv *h)
{
	int hd;

	if (pol_nchanged(w) > 0 || h->placed_last)
		return 1;
	/* drop the pauses that ended before the last pass */
	while ((hd = sim_oset_first(&h->cool)) >= 0 &&
	       sim_oset_k1(&h->cool, hd) <= h->last_pass)
		sim_oset_remove(&h->cool, hd);
	return hd >= 0 && sim_oset_k1(&h->cool, hd) <= pol_now(w);
}

static int hv_timer(struct world *w, void *state, uint64_t tag)
{
	struct hv *h = state;
	int j, hd, nx, rc;

	(void)tag;
	h->tick++;
	h->last_tick = pol_now(w);
	/* with no service live, no job is capped beside one and no LLM
	** window exists: once a walk has uncapped every placed job and no
	** pass has placed one since (clean), both walks would change
	** nothing */
	if (h->live_svc == 0 && h->clean)
		goto pass;
	/* the jobs placed and not finished, by index: every running job
	** (a walk over every job would visit them in this order) */
	for (hd = sim_oset_first(&h->placed); hd >= 0; hd = nx) {
		j = sim_oset_id(&h->placed, hd);
		nx = sim_oset_next(&h->placed, hd);
		if (pol_job_state(w, j) == POL_JOB_RUNNING &&
		    (rc = uncap(w, j)) < 0)
			return rc;
	}
	for (hd = sim_oset_first(&h->placed); hd >= 0; hd = nx) {
		struct pol_llm_window win;
		double sig, target;
		j = sim_oset_id(&h->placed, hd);
		nx = sim_oset_next(&h->placed, hd);
		if (pol_job_state(w, j) != POL_JOB_RUNNING ||
		    pol_job(w, j).kind != POL_LLM)
			continue;
		if ((rc = pol_llm_window(w, j, &win, NULL)) != 0 ||
		    (rc = pol_llm_window_reset(w, j, NULL)) != 0)
			return rc;
		sig = h->signal == SIG_ITL_MEAN ? win.itl_mean_ms :
		      win.tpot_p99_ms;
		target = h->guard * win.slo_tpot_ms;
		if (!isnan(sig) && sig > target)
			rc = adjust(w, h, j, -1);
		else if (isnan(sig) || sig < h->relax * target)
			rc = adjust(w, h, j, 1);
		if (rc != 0)
			return rc;
	}
	h->clean = h->live_svc == 0;
pass:
	/* a paused job's cooldown may have ended: nothing else would run
	** a scheduling pass for it.  The pass is a function of the GPUs,
	** the queue and the pauses: when none changed since the last one
	** (no GPU changed, it placed nothing, no pause ended since) it
	** would place nothing, and is skipped (O(1) instead of O(P)). */
	if (pol_npending(w) > 0 && tick_pass_needed(w, h) &&
	    (rc = hv_schedule(w, h)) != 0)
		return rc;
	/* Every later tick would change nothing until a job arrives: no
	** service live (no window to read, nobody to cap or pause), every
	** placed job uncapped, no pass placed one since, and nothing
	** waiting (a tick runs no pass).  Only the tick count moves, and
	** it is compared for equality within one tick.  hv_arrival
	** re-arms the timer on its grid. */
	if (h->live_svc == 0 && h->clean && pol_npending(w) == 0) {
		h->dormant = 1;
		return 0;
	}
	return pol_set_timer(w, (sim_time)(h->period_ms * 1e6), 0, NULL);
}

/* Re-arms a sleeping timer at the first tick of its grid (last_tick + k
** periods) at or after now (at_now) or after it: a job arriving at a tick
** time runs before that tick (SIM_PRIO_ARRIVAL before SIM_PRIO_TIMER),
** a pass after it (SIM_PRIO_SCHEDULE), as under a timer that never slept. */
static int wake(struct world *w, struct hv *h, int at_now)
{
	sim_time now = pol_now(w), p = (sim_time)(h->period_ms * 1e6), k;

	if (!h->dormant)
		return 0;
	h->dormant = 0;
	k = (now - h->last_tick + (at_now ? p - 1 : p)) / p;
	return pol_set_timer(w, h->last_tick + k * p - now, 0, NULL);
}

/* A job arrived: count the services (the sleep reads the count) and wake
** the timer (a waiting job makes a tick run a pass). */
static int hv_arrival(struct world *w, void *state, int j)
{
	struct hv *h = state;
	struct pol_job_info job = pol_job(w, j);

	if (is_service(&job))
		h->live_svc++;
	return wake(w, h, 1);
}

static int hv_init(struct world *w, void *state, const struct pol_params *p,
		   struct sim_err *err)
{
	struct hv *h = state;
	int g, rc;

	if (h->share_min > h->share_max)
		return sim_err_set(err, SIM_EINVAL, "%s: llm-harvest: share_min "
				   "%g is above share_max %g",
				   pol_param_origin(p, "share_min") ?
				   pol_param_origin(p, "share_min") :
				   "default", h->share_min, h->share_max);
	if (h->share_init < h->share_min || h->share_init > h->share_max)
		return sim_err_set(err, SIM_EINVAL, "%s: llm-harvest: "
				   "share_init %g outside [share_min, "
				   "share_max] = [%g, %g]",
				   pol_param_origin(p, "share_init") ?
				   pol_param_origin(p, "share_init") :
				   "default", h->share_init, h->share_min,
				   h->share_max);
	h->cand = malloc((size_t)(pol_ngpus(w) + 1) * sizeof *h->cand);
	h->cls = malloc((size_t)(pol_ngpus(w) + 1) * sizeof *h->cls);
	h->gh = malloc((size_t)(pol_ngpus(w) + 1) * sizeof *h->gh);
	for (g = 0; g < 3; g++)
		sim_oset_init(&h->cl[g]);
	sim_oset_init(&h->placed);
	sim_oset_init(&h->cool);
	h->placed_last = 1;
	if (h->cand == NULL || h->cls == NULL || h->gh == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	for (g = 0; g < pol_ngpus(w); g++)
		if ((rc = pol_set_gpu_mode(w, g, POL_GPU_MPS, err)) != 0)
			return rc;
	for (g = 0; g < pol_ngpus(w); g++) {
		h->cls[g] = CL_NONE;
		h->gh[g] = -1;
		if ((rc = refresh(w, h, g)) != 0)
			return sim_err_set(err, rc, "out of memory");
	}
	/* the run's counts, 0 until the loop acts */
	pol_add_metric(w, "harvest_cuts", 0);
	pol_add_metric(w, "harvest_raises", 0);
	pol_add_metric(w, "harvest_pauses", 0);
	return pol_set_timer(w, (sim_time)(h->period_ms * 1e6), 0, err);
}

static void hv_fini(struct world *w, void *state)
{
	struct hv *h = state;
	int k;

	(void)w;
	free(h->cand);
	free(h->cls);
	free(h->gh);
	for (k = 0; k < 3; k++)
		sim_oset_fini(&h->cl[k]);
	sim_oset_fini(&h->placed);
	sim_oset_fini(&h->cool);
}

static int hv_finish(struct world *w, void *state, int j)
{
	struct hv *h = state;
	struct pol_job_info job = pol_job(w, j);
	struct hv_job *r;

	if (is_service(&job) && h->live_svc > 0)
		h->live_svc--;
	if ((r = hj(w, j)) != NULL && r->jh1 != 0) {
		sim_oset_remove(&h->placed, r->jh1 - 1);
		r->jh1 = 0;
	}
	return 0;
}

int llm_harvest_index_check(struct world *w, const void *state)
{
	const struct hv *h = state;
	int g;

	for (g = 0; g < pol_ngpus(w); g++) {
		int c = class_of(w, g);
		if (h->cls[g] != c)
			return g;
		if (c != CL_NONE &&
		    (sim_oset_id(&h->cl[c], h->gh[g]) != g ||
		     sim_oset_aux(&h->cl[c], h->gh[g]) !=
		     -(int64_t)pol_gpu_free(w, g, -1)))
			return g;
	}
	return -1;
}

const struct pol_ops pol_llm_harvest = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "llm-harvest",
	.zDesc = "training harvests the GPU time LLM replicas leave idle "
		 "(MPS), backing off when TPOT nears its SLO",
	.szState = sizeof(struct hv),
	.szJob = sizeof(struct hv_job),
	.aParam = hv_params,
	.xInit = hv_init,
	.xFini = hv_fini,
	.xOnTimer = hv_timer,
	.xOnArrival = hv_arrival,
	.xOnFinish = hv_finish,
	.xSchedule = hv_schedule,
};
