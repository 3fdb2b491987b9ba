/*
** gpu.c: the fluid GPU model (see gpu.h; equations in docs/MODEL.md, "GPU
** sharing modes" and "Memory and oversubscription").
**
** Every public call that changes the set of busy tenants, a share or an
** allocation goes: settle(now) -> change -> recompute().  settle() moves
** each busy tenant's progress forward at its old speed; recompute() derives
** every speed from the mode's first-order equation.  No parameter is a
** literal here: all come from the dev_profile.
**
** Invariants:
**  - g->mem_used is the sum of the attached tenants' mem_bytes, and each MIG
**    slice's mem_used the sum over its tenants; without oversubscription
**    neither exceeds its capacity.
**  - g->nbusy counts attached tenants with busy != 0; an idle tenant has
**    speed 0.
**  - A busy tenant's progress is exact up to t_settled: work done is a
**    compensated (Neumaier) sum of speed * dt over integer-ns intervals, and
**    a tenant settled at or past the time gpu_finish_time() promised has
**    work_left_ns == 0 exactly, so the completion event never finds work
**    left and never fires before the work is done.
*/
#include "models/gpu.h"

#include "models/interleave.h"
#include "sim/stats.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

static const char *const mode_names[] = {
	"exclusive", "timeslice", "mps", "mig", "interleave"
};

const char *gpu_mode_name(enum gpu_mode m)
{
	if ((int)m < 0 || (size_t)m >= sizeof mode_names / sizeof mode_names[0])
		return NULL;
	return mode_names[m];
}

int gpu_mode_parse(const char *s, enum gpu_mode *out)
{
	size_t i;

	for (i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum gpu_mode)i;
			return 0;
		}
	return SIM_EINVAL;
}

/* fmin and fmax for the model's finite, positive operands: the same
** values, without a call into libm (which -O2 does not inline). */
static inline double dmin(double a, double b)
{
	return b < a ? b : a;
}

static inline double dmax(double a, double b)
{
	return b > a ? b : a;
}

/* Whole nanoseconds needed to run rem solo-ns at speed, rounded up so that
** speed * dt >= rem; -1 when it does not fit in sim_time. */
static sim_time ceil_dt(double rem, double speed)
{
	double x;
	sim_time dt;

	if (rem <= 0)
		return 0;
	x = ceil(rem / speed);
	if (!(x < (double)(SIM_TIME_MAX / 2)))
		return -1;
	dt = (sim_time)x;
	while ((double)dt * speed < rem)
		dt++;
	return dt;
}

/* The finish time from the tenant's state (see gpu_finish_time). */
static sim_time finish_calc(const struct gpu_tenant *t)
{
	sim_time dt;

	if (!t->busy || !(t->speed > 0))
		return SIM_TIME_NEVER;
	dt = ceil_dt(t->work_left_ns, t->speed);
	if (dt < 0)
		return SIM_TIME_NEVER;
	return sim_time_add_sat(t->t_settled, dt);
}

/* Invariant: fin_ok_ implies fin_ == finish_calc(t).  Every change of busy,
** speed, work_left_ns or t_settled clears fin_ok_ or refreshes fin_;
** recompute() refreshes every attached tenant, once per change, which is
** the one place the division is paid (it used to be paid again by every
** settle and every reschedule: docs/PERFORMANCE.md). */
static inline sim_time finish_of(const struct gpu_tenant *t)
{
	return t->fin_ok_ ? t->fin_ : finish_calc(t);
}

sim_time gpu_finish_time(const struct gpu_tenant *t, sim_time now)
{
	(void)now;   /* progress is known at t_settled; speed is unchanged since */
	return finish_of(t);
}

double gpu_work_left(const struct gpu_tenant *t, sim_time now)
{
	double done, c;

	if (!t->busy || !(t->speed > 0) || now <= t->t_settled)
		return t->work_left_ns;
	if (now >= gpu_finish_time(t, now))
		return 0.0;
	done = t->done_;
	c = t->donec_;
	sim_comp_add(&done, &c, t->speed * (double)(now - t->t_settled));
	return t->work0_ - (done + c) > 0 ? t->work0_ - (done + c) : 0.0;
}

static void settle_one(struct gpu_tenant *t, sim_time now)
{
	if (now <= t->t_settled)
		return;
	if (t->busy && t->speed > 0) {
		sim_time fin = finish_of(t);

		if (now >= fin) {
			t->done_ = t->work0_;
			t->donec_ = 0;
			t->work_left_ns = 0;
		} else {
			sim_comp_add(&t->done_, &t->donec_,
				 t->speed * (double)(now - t->t_settled));
			t->work_left_ns = t->work0_ - (t->done_ + t->donec_);
			if (t->work_left_ns < 0)
				t->work_left_ns = 0;
		}
	}
	t->t_settled = now;
	t->fin_ok_ = 0;
}

void gpu_settle(struct gpu *g, sim_time now)
{
	struct gpu_tenant *t;

	for (t = g->tenants; t != NULL; t = t->next_) {
		settle_one(t, now);
		if (!t->fin_ok_) {
			t->fin_ = finish_calc(t);
			t->fin_ok_ = 1;
		}
	}
}

/* Settles every tenant before a change (which recompute() follows). */
static void settle_all(struct gpu *g, sim_time now)
{
	struct gpu_tenant *t;

	for (t = g->tenants; t != NULL; t = t->next_)
		settle_one(t, now);
}

/* Time-slice factor for n busy contexts: (1/n) q / (q + c), 1 when alone. */
static double ts_factor(const struct dev_profile *d, int n)
{
	double q = (double)d->ts_quantum_ns, c = (double)d->ts_switch_ns;

	if (n <= 1)
		return 1.0;
	return q / ((double)n * (q + c));
}

/* Capacity and use of a tenant's memory domain (slice or whole device). */
static void mem_domain(const struct gpu *g, int slice, uint64_t *cap,
		       uint64_t *used)
{
	if (slice >= 0 && slice < g->nslices) {
		*cap = g->slices[slice].hbm_bytes;
		*used = g->slices[slice].mem_used;
	} else {
		*cap = g->dev->hbm_bytes;
		*used = g->mem_used;
	}
}

/*
** Paging time per solo ns for a tenant whose domain is oversubscribed
** (MODEL.md, "Memory and oversubscription"): a fraction E/M of its HBM
** traffic (bw_frac * peak) misses and moves over the host link at the
** unified-memory rate U: P = bw_frac * (B / U) * (E / M).
*/
static double paging(const struct gpu *g, const struct gpu_tenant *t)
{
	uint64_t cap, used;
	double bw;

	mem_domain(g, g->mode == GPU_MODE_MIG ? t->slice : -1, &cap, &used);
	if (used <= cap)
		return 0.0;
	bw = g->dev->hbm_bw_bytes_per_s;
	return t->prof.bw_frac * (bw / g->dev->uvm_bytes_per_s) *
	       ((double)(used - cap) / (double)used);
}

/* MPS water-filling: each busy tenant wants min(cap, sat); when the wants
** exceed the device, the level rises until the SMs are used up (max-min
** fair).  Leaves each busy tenant's share in share_. */
static void mps_waterfill(struct gpu *g)
{
	struct gpu_tenant *t;
	double left = 1.0;
	int unfixed = 0, progress;

	for (t = g->tenants; t != NULL; t = t->next_) {
		t->fixed_ = !t->busy;
		t->share_ = 0;
		if (t->busy)
			unfixed++;
	}
	while (unfixed > 0) {
		double level = left / unfixed;

		progress = 0;
		for (t = g->tenants; t != NULL; t = t->next_) {
			double want = dmin(t->sm_cap, t->prof.sat);

			if (!t->fixed_ && want <= level) {
				t->share_ = want;
				t->fixed_ = 1;
				left -= want;
				unfixed--;
				progress = 1;
			}
		}
		if (!progress) {
			for (t = g->tenants; t != NULL; t = t->next_)
				if (!t->fixed_) {
					t->share_ = level;
					t->fixed_ = 1;
				}
			unfixed = 0;
		}
	}
}

static void recompute_mps(struct gpu *g, double *sm_busy)
{
	const struct dev_profile *d = g->dev;
	struct gpu_tenant *t;
	double bwsum = 0, over, kfac;

	mps_waterfill(g);
	for (t = g->tenants; t != NULL; t = t->next_)
		if (t->busy)
			bwsum += t->prof.bw_frac;
	over = dmax(1.0, bwsum);
	kfac = 1.0 + d->mps_contention_k * (double)(g->nbusy - 1);
	for (t = g->tenants; t != NULL; t = t->next_) {
		double a, c;

		if (!t->busy)
			continue;
		a = t->prof.alpha;
		c = t->share_ >= t->prof.sat ? 1.0 : t->prof.sat / t->share_;
		t->speed = 1.0 / ((a * c + (1 - a) * over + paging(g, t)) * kfac);
		*sm_busy += t->share_;
	}
}

static void recompute_mig(struct gpu *g, double *sm_busy)
{
	struct gpu_tenant *t;
	int nbusy[sizeof g->slices / sizeof g->slices[0]] = { 0 };

	for (t = g->tenants; t != NULL; t = t->next_)
		if (t->busy)
			nbusy[t->slice]++;
	for (t = g->tenants; t != NULL; t = t->next_) {
		const struct gpu_slice *s;
		double a, c, m, f;

		if (!t->busy)
			continue;
		s = &g->slices[t->slice];
		a = t->prof.alpha;
		c = dmax(1.0, t->prof.sat / s->sm_frac);
		m = dmax(1.0, t->prof.bw_frac / s->bw_frac);
		f = ts_factor(g->dev, nbusy[t->slice]);
		t->speed = f / (a * c + (1 - a) * m + paging(g, t));
		*sm_busy += f * dmin(t->prof.sat, s->sm_frac);
	}
}

/* Interleave (docs/MODEL.md, "Multi-resource interleaving"): the busy
** tenants' round time T from their per-resource times, best order; each
** runs at its solo iteration time / T.  Without the times for every busy
** tenant, or with more than 4, the GPU time-slices as timeslice does. */
static void recompute_interleave(struct gpu *g, double *sm_busy)
{
	struct il_job jobs[IL_MAX_JOBS];
	struct gpu_tenant *t;
	double tt, f;
	int n = 0, ok = 1;

	for (t = g->tenants; t != NULL; t = t->next_) {
		if (!t->busy)
			continue;
		if (n == IL_MAX_JOBS || !t->prof.has_res ||
		    !(t->prof.iter_ms > 0)) {
			ok = 0;
			break;
		}
		jobs[n].res[0] = t->prof.res_ms[0];
		jobs[n].res[1] = t->prof.res_ms[1];
		jobs[n].res[2] = t->prof.res_ms[2];
		jobs[n].iter = t->prof.iter_ms;
		n++;
	}
	tt = ok && n > 0 ? il_round(jobs, n, IL_BEST, NULL) : -1;
	f = ts_factor(g->dev, g->nbusy);
	for (t = g->tenants; t != NULL; t = t->next_)
		if (t->busy) {
			double s = tt > 0 ? t->prof.iter_ms / tt : f;
			t->speed = s / (1.0 + paging(g, t));
			*sm_busy += s * t->prof.sat;
		}
}

/* Derives every busy tenant's speed from the mode; updates the statistics.
** Progress must be settled to now. */
static void recompute(struct gpu *g, sim_time now)
{
	struct gpu_tenant *t;
	double sm_busy = 0, f;
	uint64_t cap = g->dev->hbm_bytes;

	for (t = g->tenants; t != NULL; t = t->next_)
		if (!t->busy)
			t->speed = 0;
	switch (g->mode) {
	case GPU_MODE_EXCLUSIVE:
	case GPU_MODE_TIMESLICE:
		f = ts_factor(g->dev, g->nbusy);
		for (t = g->tenants; t != NULL; t = t->next_)
			if (t->busy) {
				t->speed = f / (1.0 + paging(g, t));
				sm_busy += f * t->prof.sat;
			}
		break;
	case GPU_MODE_MPS:
		recompute_mps(g, &sm_busy);
		break;
	case GPU_MODE_MIG:
		recompute_mig(g, &sm_busy);
		break;
	case GPU_MODE_INTERLEAVE:
		recompute_interleave(g, &sm_busy);
		break;
	}
	for (t = g->tenants; t != NULL; t = t->next_) {
		t->fin_ = finish_calc(t);
		t->fin_ok_ = 1;
	}
	sim_twacc_set(&g->sm, now, dmin(1.0, sm_busy));
	sim_twacc_set(&g->hbm, now,
		      (double)(g->mem_used < cap ? g->mem_used : cap));
	if (g->mem_used > g->mem_peak_bytes)
		g->mem_peak_bytes = g->mem_used;
	g->changes++;
}

void gpu_init(struct gpu *g, const struct dev_profile *dev, int id, int node,
	      enum gpu_mode mode, sim_time t0)
{
	memset(g, 0, sizeof *g);
	g->dev = dev;
	g->id = id;
	g->node = node;
	g->mode = mode;
	sim_twacc_init(&g->hbm, t0, 0);
	sim_twacc_init(&g->sm, t0, 0);
}

void gpu_fini(struct gpu *g)
{
	struct gpu_tenant *t, *next;

	for (t = g->tenants; t != NULL; t = next) {
		next = t->next_;
		t->next_ = NULL;
		t->gpu_ = NULL;
		t->fin_ok_ = 0;
	}
	g->tenants = NULL;
	g->ntenants = g->nbusy = 0;
}

int gpu_set_mig_layout(struct gpu *g, const char *const *profiles, int n,
		       sim_time now, struct sim_err *err)
{
	const struct dev_profile *d = g->dev;
	int count[DEV_MIG_MAX] = { 0 }, idx[sizeof g->slices /
					    sizeof g->slices[0]];
	int i, gsum = 0, gmax = 0, smsum = 0;
	uint64_t memsum = 0;
	double bwsum = 0;

	if (g->mode != GPU_MODE_MIG)
		return sim_err_set(err, SIM_EINVAL, "gpu %d: MIG layout on a "
				   "gpu in %s mode", g->id,
				   gpu_mode_name(g->mode));
	if (g->ntenants > 0)
		return sim_err_set(err, SIM_ESTATE, "gpu %d: MIG layout change "
				   "with %d tenants attached", g->id,
				   g->ntenants);
	if (n < 0 || n > (int)(sizeof g->slices / sizeof g->slices[0]))
		return sim_err_set(err, SIM_ENOSPC, "gpu %d: %d MIG slices, at "
				   "most %d", g->id, n,
				   (int)(sizeof g->slices / sizeof g->slices[0]));
	/* The device's compute slices: the most any one profile covers when
	** repeated max_count times (7 x 1g = 7 on A100 and H100). */
	for (i = 0; i < d->nmig; i++)
		if (d->mig[i].compute_slices * d->mig[i].max_count > gmax)
			gmax = d->mig[i].compute_slices * d->mig[i].max_count;
	for (i = 0; i < n; i++) {
		int p = dev_mig_find(d, profiles[i]);

		if (p < 0)
			return sim_err_set(err, SIM_ENOENT, "gpu %d: %s has no "
					   "MIG profile '%s'", g->id, d->name,
					   profiles[i]);
		idx[i] = p;
		if (++count[p] > d->mig[p].max_count)
			return sim_err_set(err, SIM_ENOSPC, "gpu %d: more than "
					   "%d x %s", g->id,
					   d->mig[p].max_count,
					   d->mig[p].name);
		gsum += d->mig[p].compute_slices;
		smsum += d->mig[p].sms;
		memsum += d->mig[p].hbm_bytes;
		bwsum += d->mig[p].bw_frac;
	}
	if (gsum > gmax || smsum > d->sms || memsum > d->hbm_bytes ||
	    bwsum > 1.0 + DBL_EPSILON * n)
		return sim_err_set(err, SIM_ENOSPC, "gpu %d: MIG layout does "
				   "not fit %s (%d of %d compute slices, %.3g of "
				   "the memory bandwidth)", g->id, d->name,
				   gsum, gmax, bwsum);
	settle_all(g, now);
	g->nslices = n;
	for (i = 0; i < n; i++) {
		const struct dev_mig_profile *m = &d->mig[idx[i]];

		g->slices[i].profile = idx[i];
		g->slices[i].hbm_bytes = m->hbm_bytes;
		g->slices[i].mem_used = 0;
		g->slices[i].sm_frac = (double)m->sms / (double)d->sms;
		g->slices[i].bw_frac = m->bw_frac;
	}
	recompute(g, now);
	return 0;
}

/* Would used - old + new bytes overflow the domain?  (Shrinking always
** fits, even when the domain is already oversubscribed.) */
static int mem_refused(const struct gpu *g, int slice, uint64_t old,
		       uint64_t new_bytes)
{
	uint64_t cap, used;

	mem_domain(g, slice, &cap, &used);
	if (new_bytes <= old)
		return 0;
	return new_bytes - old > cap || used > cap - (new_bytes - old);
}

int gpu_attach(struct gpu *g, struct gpu_tenant *t, sim_time now,
	       int allow_oversub, struct sim_err *err)
{
	struct gpu_tenant **pp;
	int slice = g->mode == GPU_MODE_MIG ? t->slice : -1;

	if (t->gpu_ != NULL)
		return sim_err_set(err, SIM_ESTATE, "tenant %d is already "
				   "attached to gpu %d", t->id, t->gpu_->id);
	if (g->mode == GPU_MODE_EXCLUSIVE && g->ntenants > 0)
		return sim_err_set(err, SIM_ESTATE, "gpu %d is exclusive and "
				   "holds tenant %d", g->id, g->tenants->id);
	if (g->mode == GPU_MODE_MIG ? (t->slice < 0 || t->slice >= g->nslices)
				    : t->slice != -1)
		return sim_err_set(err, SIM_EINVAL, "tenant %d: slice %d on gpu "
				   "%d (%s mode, %d slices)", t->id, t->slice,
				   g->id, gpu_mode_name(g->mode), g->nslices);
	if (g->mode == GPU_MODE_MPS && !(t->sm_cap > 0 && t->sm_cap <= 1))
		return sim_err_set(err, SIM_EINVAL, "tenant %d: MPS share %g "
				   "outside (0, 1]", t->id, t->sm_cap);
	if (!allow_oversub && mem_refused(g, slice, 0, t->mem_bytes))
		return sim_err_set(err, SIM_ENOSPC, "gpu %d: tenant %d needs "
				   "%llu bytes, %llu free", g->id, t->id,
				   (unsigned long long)t->mem_bytes,
				   (unsigned long long)gpu_mem_free(g, slice));
	settle_all(g, now);
	for (pp = &g->tenants; *pp != NULL; pp = &(*pp)->next_)
		;
	*pp = t;
	t->next_ = NULL;
	t->gpu_ = g;
	t->busy = 0;
	t->speed = 0;
	t->t_settled = now;
	g->ntenants++;
	g->mem_used += t->mem_bytes;
	if (slice >= 0)
		g->slices[slice].mem_used += t->mem_bytes;
	recompute(g, now);
	return 0;
}

void gpu_detach(struct gpu *g, struct gpu_tenant *t, sim_time now)
{
	struct gpu_tenant **pp;
	int slice = g->mode == GPU_MODE_MIG ? t->slice : -1;

	assert(t->gpu_ == g);
	settle_all(g, now);
	for (pp = &g->tenants; *pp != t; pp = &(*pp)->next_)
		assert(*pp != NULL);
	*pp = t->next_;
	t->next_ = NULL;
	t->gpu_ = NULL;
	if (t->busy)
		g->nbusy--;
	t->busy = 0;
	t->speed = 0;
	t->fin_ok_ = 0;
	g->ntenants--;
	g->mem_used -= t->mem_bytes;
	if (slice >= 0)
		g->slices[slice].mem_used -= t->mem_bytes;
	recompute(g, now);
}

int gpu_resize(struct gpu *g, struct gpu_tenant *t, uint64_t mem_bytes,
	       sim_time now, int allow_oversub, struct sim_err *err)
{
	int slice = g->mode == GPU_MODE_MIG ? t->slice : -1;

	assert(t->gpu_ == g);
	if (!allow_oversub && mem_refused(g, slice, t->mem_bytes, mem_bytes))
		return sim_err_set(err, SIM_ENOSPC, "gpu %d: tenant %d grows "
				   "to %llu bytes, %llu free", g->id, t->id,
				   (unsigned long long)mem_bytes,
				   (unsigned long long)gpu_mem_free(g, slice));
	settle_all(g, now);
	g->mem_used = g->mem_used - t->mem_bytes + mem_bytes;
	if (slice >= 0)
		g->slices[slice].mem_used = g->slices[slice].mem_used -
					    t->mem_bytes + mem_bytes;
	t->mem_bytes = mem_bytes;
	recompute(g, now);
	return 0;
}

int gpu_set_share(struct gpu *g, struct gpu_tenant *t, double sm_cap,
		  sim_time now)
{
	assert(t->gpu_ == g);
	if (!(sm_cap > 0 && sm_cap <= 1))
		return SIM_EINVAL;
	settle_all(g, now);
	t->sm_cap = sm_cap;
	recompute(g, now);
	return 0;
}

void gpu_begin(struct gpu *g, struct gpu_tenant *t, double work_ns,
	       const struct gpu_work_profile *prof, sim_time now)
{
	assert(t->gpu_ == g);
	assert(prof->alpha >= 0 && prof->alpha <= 1);
	assert(prof->sat > 0 && prof->sat <= 1);
	assert(prof->bw_frac >= 0);
	settle_all(g, now);
	if (!t->busy)
		g->nbusy++;
	t->busy = 1;
	t->prof = *prof;
	t->work0_ = work_ns > 0 ? work_ns : 0;
	t->done_ = t->donec_ = 0;
	t->work_left_ns = t->work0_;
	t->t_settled = now;
	recompute(g, now);
}

void gpu_finish(struct gpu *g, struct gpu_tenant *t, sim_time now)
{
	assert(t->gpu_ == g);
	settle_all(g, now);
	if (t->busy)
		g->nbusy--;
	t->busy = 0;
	t->speed = 0;
	recompute(g, now);
}

uint64_t gpu_mem_free(const struct gpu *g, int slice)
{
	uint64_t cap, used;

	mem_domain(g, slice, &cap, &used);
	return used < cap ? cap - used : 0;
}

uint64_t gpu_mem_excess(const struct gpu *g, int slice)
{
	uint64_t cap, used;

	mem_domain(g, slice, &cap, &used);
	return used > cap ? used - cap : 0;
}
