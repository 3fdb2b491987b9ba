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
	"exclusive", "timeslice", "mps", "mig", "interleave", "streams"
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

/*
** ---- Duty cycles (docs/MODEL.md, "Duty cycles") ----
**
** A busy tenant i alternates GPU-busy time (a fraction d_i of its solo
** time) and host-side time (1 - d_i, stretched by h_i under CPU
** contention).  Only the busy part competes for the GPU: a context with
** no work takes no time slice, and idle SMs go to the other MPS clients.
** With p_j the wall fraction tenant j spends GPU-busy, and the phases of
** different tenants independent, i's busy part runs at the mean rate
**
**     r_i = sum over sets S of the others  P(S) R_i(S),
**     P(S) = prod_{j in S} p_j prod_{j not in S} (1 - p_j),
**
** R_i(S) the mode's rate of i's busy part while exactly S is busy too.
** Time per solo ns: tau_i = (1 - d_i) h_i + d_i / r_i; speed = 1 / tau_i;
** p_i = (d_i / r_i) / tau_i.  The p_i are a fixed point, found by
** iteration (duty_solve).  A tenant with d_i = 1 and h_i = 1 has p_i = 1
** exactly, so a domain whose tenants are all always busy reduces to the
** plain equations (the fast path below, also used, as a documented limit,
** for a domain with more than DUTY_CYC_MAX cycling or DUTY_SET_MAX busy
** tenants).
*/

/* A domain (the GPU, or one MIG slice) is solved exactly when it has at
** most DUTY_SET_MAX busy tenants of which at most DUTY_CYC_MAX cycle (d < 1
** or h > 1): a tenant's co-busy sets are the 2^c subsets of the other
** cycling tenants, those always busy being in every one. */
#define DUTY_SET_MAX 16
#define DUTY_CYC_MAX 8
#define DUTY_MASKS (1u << DUTY_CYC_MAX)
#define DUTY_ITER_MAX 1000
#define DUTY_TOL 1e-12

struct duty_set {
	struct gpu_tenant *t[DUTY_SET_MAX];
	double d[DUTY_SET_MAX], h[DUTY_SET_MAX];
	double p[DUTY_SET_MAX];
	double st0[DUTY_SET_MAX];     /* busy stretch from the slice (MIG) */
	int cycles[DUTY_SET_MAX];     /* d < 1 or h > 1 */
	int n;
};

static double duty_of(const struct gpu_tenant *t)
{
	return t->prof.duty > 0 && t->prof.duty < 1 ? t->prof.duty : 1.0;
}

static double host_of(const struct gpu_tenant *t)
{
	return t->host_stretch > 1 ? t->host_stretch : 1.0;
}

/* Roofline stretch of a busy part whose compute stretches by c and whose
** memory traffic by m: max(phi_c c, phi_m m) with phi_c = tc / max(tc,
** tm), phi_m = tm / max(tc, tm) from alpha = tc / (tc + tm).  Solo (c = m
** = 1) it is 1: the same max(tc, tm) as the workload models' solo time. */
static double roofline_stretch(double alpha, double c, double m)
{
	double pc, pm;

	if (alpha >= 0.5) {
		pc = 1.0;
		pm = (1.0 - alpha) / alpha;
	} else {
		pm = 1.0;
		pc = alpha / (1.0 - alpha);
	}
	return dmax(pc * c, pm * m);
}

/* MIG: the busy-part stretch of t on slice sl, (1 - w) max(1, sat / f) +
** w max(1, bw / b), w = the device's mig_bw_weight (fitted on MISO's
** A100 logs; 0 = pure SM scaling). */
static double mig_stretch(const struct gpu *g, const struct gpu_slice *sl,
			  const struct gpu_tenant *t)
{
	double w = g->dev->mig_bw_weight;

	return (1.0 - w) * dmax(1.0, t->prof.sat / sl->sm_frac) +
	       w * dmax(1.0, t->prof.bw_frac / sl->bw_frac);
}

/* The MPS-like modes: MPS (caps) and streams (one process: no caps). */
static int spatial(const struct gpu *g)
{
	return g->mode == GPU_MODE_MPS || g->mode == GPU_MODE_STREAMS;
}

static double cap_of(const struct gpu *g, const struct gpu_tenant *t)
{
	return g->mode == GPU_MODE_STREAMS ? 1.0 : t->sm_cap;
}

/* MPS water-filling over the tenants of `in` (bit k: s->t[k]): each wants
** min(cap, sat); when the wants exceed the device, a level L with
** sum min(want, L) = 1 (max-min fair) caps them.  Fills share[k], k in in. */
static void waterfill_set(const struct gpu *g, const struct duty_set *s,
			  unsigned in, double *share)
{
	double left = 1.0, want[DUTY_SET_MAX] = { 0 };
	unsigned fixed = ~in;
	int k, unfixed = 0, progress;

	for (k = 0; k < s->n; k++)
		if (in & (1u << k)) {
			want[k] = dmin(cap_of(g, s->t[k]), s->t[k]->prof.sat);
			unfixed++;
		}
	while (unfixed > 0) {
		double level = left / unfixed;

		progress = 0;
		for (k = 0; k < s->n; k++)
			if (!(fixed & (1u << k)) && want[k] <= level) {
				share[k] = want[k];
				fixed |= 1u << k;
				left -= want[k];
				unfixed--;
				progress = 1;
			}
		if (!progress) {
			for (k = 0; k < s->n; k++)
				if (!(fixed & (1u << k)))
					share[k] = level;
			unfixed = 0;
		}
	}
}

/* The MPS rate of a busy part given its water-filled share, the busy
** bandwidth demand bwsum (its own included) and cnt co-busy tenants:
** 1 / (max(phi_c C, phi_m M) (1 + k cnt) + P). */
static double mps_rate(const struct gpu *g, const struct gpu_tenant *t,
		       double share, double bwsum, int cnt)
{
	double c = share >= t->prof.sat ? 1.0 : t->prof.sat / share;
	double st = roofline_stretch(t->prof.alpha, c, dmax(1.0, bwsum));

	double k = g->mode == GPU_MODE_STREAMS ? g->dev->streams_contention_k :
		   g->dev->mps_contention_k;

	return 1.0 / (st * (1.0 + k * cnt) + paging(g, t));
}

/* Round robin among the busy contexts of a domain (exclusive, timeslice,
** one MIG slice): T(cnt + 1) / (st (1 + kappa bw_others) + P), st the
** slice stretch (1 outside MIG), kappa = ts_mem_contention_k. */
static double ts_rate(const struct gpu *g, const struct gpu_tenant *t,
		      double st, double bw_others, int cnt)
{
	return ts_factor(g->dev, cnt + 1) /
	       (st * (1.0 + g->dev->ts_mem_contention_k * bw_others) +
		paging(g, t));
}

/* The water-filled shares of every busy set of one solve, each set
** filled once for all its members (a set is the always-busy tenants plus
** some cycling ones, so the cycling ones' bits, renumbered by gbit,
** name it).  Without it each tenant refilled every set it is in: n times
** the work, most of an MPS replay with many services. */
struct wf_cache {
	int gbit[DUTY_SET_MAX];       /* cycling tenant k's bit, -1: always */
	unsigned char done[DUTY_MASKS];
	double share[DUTY_MASKS][DUTY_SET_MAX];
};

static void wf_cache_init(struct wf_cache *c, const struct duty_set *s)
{
	int k, nb = 0;

	for (k = 0; k < s->n; k++)
		c->gbit[k] = s->cycles[k] ? nb++ : -1;
	memset(c->done, 0, (size_t)1 << nb);
}

/* The shares of busy set `in`, named gm in the cache, filled on first
** use. */
static const double *wf_shares(const struct gpu *g, const struct duty_set *s,
			       struct wf_cache *c, unsigned gm, unsigned in)
{
	if (!c->done[gm]) {
		waterfill_set(g, s, in, c->share[gm]);
		c->done[gm] = 1;
	}
	return c->share[gm];
}

/* rate[m] = R_i(S_m) for each co-busy set of i: S_m = always and the
** cycling others cyc[b] of the bits b of m.  Each set is built from m
** without its lowest bit (O(1) a set; the busy bandwidth summed in that
** order: the always-busy ones by index, then the cycling ones). */
static void busy_rates(const struct gpu *g, const struct duty_set *s,
		       struct wf_cache *c, int i, const int *cyc, int nc,
		       unsigned always, double *rate)
{
	double bw[DUTY_MASKS], bwi = s->t[i]->prof.bw_frac;
	unsigned set[DUTY_MASKS], gm[DUTY_MASKS], m;
	int cnt[DUTY_MASKS], k, sp = spatial(g);

	set[0] = always;
	bw[0] = 0;
	cnt[0] = 0;
	gm[0] = s->cycles[i] ? 1u << c->gbit[i] : 0;
	for (k = 0; k < s->n; k++)
		if (always & (1u << k)) {
			cnt[0]++;
			bw[0] += s->t[k]->prof.bw_frac;
		}
	for (m = 0; m < (1u << nc); m++) {
		if (m > 0) {
			unsigned p = m & (m - 1), low = m ^ p;
			int bit = 0;

			while (low > 1u) {
				low >>= 1;
				bit++;
			}
			k = cyc[bit];
			set[m] = set[p] | 1u << k;
			bw[m] = bw[p] + s->t[k]->prof.bw_frac;
			cnt[m] = cnt[p] + 1;
			gm[m] = gm[p] | 1u << c->gbit[k];
		}
		if (sp) {
			const double *share = wf_shares(g, s, c, gm[m],
							set[m] | 1u << i);

			rate[m] = mps_rate(g, s->t[i], share[i], bw[m] + bwi,
					   cnt[m]);
		} else {
			rate[m] = ts_rate(g, s->t[i], s->st0[i], bw[m], cnt[m]);
		}
	}
}

/* The cycling tenants other than i (their indices in s) and the mask of
** the others that are always busy. */
static int cyclers_of(const struct duty_set *s, int i, int *cyc,
		      unsigned *always)
{
	int k, nc = 0;

	*always = 0;
	for (k = 0; k < s->n; k++) {
		if (k == i)
			continue;
		if (s->cycles[k])
			cyc[nc++] = k;
		else
			*always |= 1u << k;
	}
	return nc;
}

/* r_i: R_i averaged over the cycling others' busy sets, weighted by s->p:
** the probabilities of the 2^nc sets built by doubling, O(2^nc). */
static double mean_rate(const struct duty_set *s, const int *cyc, int nc,
			const double *rate)
{
	double pr[DUTY_MASKS], r = 0;
	unsigned m, half;
	int b;

	pr[0] = 1.0;
	for (b = 0; b < nc; b++) {
		double q = s->p[cyc[b]];

		half = 1u << b;
		for (m = 0; m < half; m++) {
			pr[m | half] = pr[m] * q;
			pr[m] *= 1.0 - q;
		}
	}
	for (m = 0; m < (1u << nc); m++)
		r += pr[m] * rate[m];
	return r;
}

/* Solves one domain's duty-cycle fixed point; sets speed and pbusy_.
** Starts from each tenant's busy fraction of the previous solve (a change
** usually moves them little) or d; iterates the plain map, and damps it by
** half once it stops contracting (two heavy tenants can make it swing). */
static void duty_solve(struct gpu *g, struct duty_set *s)
{
	double rate[DUTY_SET_MAX][DUTY_MASKS], r[DUTY_SET_MAX];
	int cyc[DUTY_SET_MAX][DUTY_CYC_MAX], nc[DUTY_SET_MAX];
	double omega = 1.0, prev = INFINITY;
	static _Thread_local struct wf_cache wf;
	unsigned always;
	int i, it;

	wf_cache_init(&wf, s);
	for (i = 0; i < s->n; i++) {
		nc[i] = cyclers_of(s, i, cyc[i], &always);
		busy_rates(g, s, &wf, i, cyc[i], nc[i], always, rate[i]);
		if (!s->cycles[i])
			s->p[i] = 1.0;
		else if (s->t[i]->pbusy_ > 0 && s->t[i]->pbusy_ < 1)
			s->p[i] = s->t[i]->pbusy_;
		else
			s->p[i] = s->d[i];
	}
	for (it = 0; it < DUTY_ITER_MAX; it++) {
		double delta = 0;

		for (i = 0; i < s->n; i++)
			r[i] = mean_rate(s, cyc[i], nc[i], rate[i]);
		for (i = 0; i < s->n; i++) {
			double tau, pn;

			if (!s->cycles[i])
				continue;
			tau = (1 - s->d[i]) * s->h[i] + s->d[i] / r[i];
			pn = s->d[i] / r[i] / tau;
			delta = dmax(delta, fabs(pn - s->p[i]));
			s->p[i] += omega * (pn - s->p[i]);
		}
		if (delta < DUTY_TOL)
			break;
		if (delta > 0.9 * prev)
			omega = 0.5;
		prev = delta;
	}
	for (i = 0; i < s->n; i++) {
		struct gpu_tenant *t = s->t[i];
		double ri = mean_rate(s, cyc[i], nc[i], rate[i]);
		double tau = (1 - s->d[i]) * s->h[i] + s->d[i] / ri;

		t->speed = 1.0 / tau;
		t->pbusy_ = s->d[i] / ri / tau;
	}
}

/* The plain equations for a domain whose busy tenants are all treated as
** always busy (d = 1; the fast path).  MPS water-fills over the whole
** device (share_), the others round-robin. */
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
			double want = dmin(cap_of(g, t), t->prof.sat);

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

/* Does the tenant belong to the domain (slice -1: the whole GPU)? */
static int in_domain(const struct gpu *g, const struct gpu_tenant *t,
		     int slice)
{
	return t->busy && (g->mode != GPU_MODE_MIG || t->slice == slice);
}

static void always_busy(struct gpu *g, int slice)
{
	struct gpu_tenant *t;
	double bwsum = 0;
	int n = 0;

	for (t = g->tenants; t != NULL; t = t->next_)
		if (in_domain(g, t, slice)) {
			n++;
			bwsum += t->prof.bw_frac;
		}
	if (spatial(g))
		mps_waterfill(g);
	for (t = g->tenants; t != NULL; t = t->next_) {
		if (!in_domain(g, t, slice))
			continue;
		if (spatial(g))
			t->speed = mps_rate(g, t, t->share_, bwsum, n - 1);
		else
			t->speed = ts_rate(g, t, slice >= 0 ?
					   mig_stretch(g, &g->slices[slice], t) :
					   1.0, bwsum - t->prof.bw_frac, n - 1);
		t->pbusy_ = 1.0;
	}
}

/* Speeds of one domain: the duty-cycle fixed point when some tenant
** cycles and the domain is small enough, else the plain equations. */
static void solve_domain(struct gpu *g, int slice)
{
	struct duty_set s;
	struct gpu_tenant *t;
	int cycling = 0, n = 0;

	for (t = g->tenants; t != NULL; t = t->next_)
		if (in_domain(g, t, slice)) {
			if (duty_of(t) < 1 || host_of(t) > 1)
				cycling++;
			n++;
		}
	if (n == 0)
		return;
	if (cycling == 0 || cycling > DUTY_CYC_MAX || n > DUTY_SET_MAX) {
		always_busy(g, slice);
		return;
	}
	s.n = 0;
	for (t = g->tenants; t != NULL; t = t->next_)
		if (in_domain(g, t, slice)) {
			s.t[s.n] = t;
			s.d[s.n] = duty_of(t);
			s.h[s.n] = host_of(t);
			s.cycles[s.n] = s.d[s.n] < 1 || s.h[s.n] > 1;
			s.st0[s.n] = slice >= 0 ?
				     mig_stretch(g, &g->slices[slice], t) : 1.0;
			s.n++;
		}
	duty_solve(g, &s);
}

/* The busy-SM fraction a tenant adds: its GPU-busy work in SM-time per
** wall ns, d x speed x sat (MIG: d x speed x stretch x min(sat, f), the
** slice's SMs it holds while on it).  With d = 1 these are the plain
** figures: T(n) sat, the MPS share, T(n_s) min(sat, f_s). */
static double sm_of(const struct gpu *g, const struct gpu_tenant *t)
{
	double on = duty_of(t) * t->speed;

	if (g->mode == GPU_MODE_MIG) {
		const struct gpu_slice *sl = &g->slices[t->slice];

		return on * mig_stretch(g, sl, t) * dmin(t->prof.sat,
							 sl->sm_frac);
	}
	return on * t->prof.sat;
}

/* Interleave (docs/MODEL.md, "Multi-resource interleaving"): the busy
** tenants' round time T from their per-resource times, best order; each
** runs at its solo iteration time / T.  Returns 0 (nothing set) without
** the times for every busy tenant, or with more than 4: the GPU then
** time-slices as timeslice does (the caller's duty-cycle solve). */
static int recompute_interleave(struct gpu *g, double *sm_busy)
{
	struct il_job jobs[IL_MAX_JOBS];
	struct gpu_tenant *t;
	double tt;
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
	if (!(tt > 0))
		return 0;
	for (t = g->tenants; t != NULL; t = t->next_)
		if (t->busy) {
			double s = t->prof.iter_ms / tt;

			t->speed = s / (1.0 + paging(g, t));
			t->pbusy_ = 1.0;
			*sm_busy += s * t->prof.sat;
		}
	return 1;
}

/* Derives every busy tenant's speed from the mode; updates the statistics.
** Progress must be settled to now. */
static void recompute(struct gpu *g, sim_time now)
{
	struct gpu_tenant *t;
	double sm_busy = 0;
	uint64_t cap = g->dev->hbm_bytes;
	int sl, il = 0;

	for (t = g->tenants; t != NULL; t = t->next_)
		if (!t->busy) {
			t->speed = 0;
			t->pbusy_ = 0;
		}
	if (g->mode == GPU_MODE_MIG) {
		for (sl = 0; sl < g->nslices; sl++)
			solve_domain(g, sl);
	} else if (g->mode == GPU_MODE_INTERLEAVE &&
		   recompute_interleave(g, &sm_busy)) {
		il = 1;
	} else {
		solve_domain(g, -1);
	}
	for (t = g->tenants; t != NULL; t = t->next_) {
		if (t->busy && !il)
			sm_busy += sm_of(g, t);
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

int gpu_set_host_stretch(struct gpu *g, struct gpu_tenant *t, double h,
			 sim_time now)
{
	assert(t->gpu_ == g);
	if (!(h >= 1 && isfinite(h)))
		return SIM_EINVAL;
	settle_all(g, now);
	t->host_stretch = h;
	recompute(g, now);
	return 0;
}

double gpu_busy_frac(const struct gpu_tenant *t)
{
	return t->busy ? t->pbusy_ : 0.0;
}

void gpu_begin(struct gpu *g, struct gpu_tenant *t, double work_ns,
	       const struct gpu_work_profile *prof, sim_time now)
{
	assert(t->gpu_ == g);
	assert(prof->alpha >= 0 && prof->alpha <= 1);
	assert(prof->sat > 0 && prof->sat <= 1);
	assert(prof->bw_frac >= 0);
	assert(prof->duty >= 0 && prof->duty <= 1);
	settle_all(g, now);
	if (!t->busy)
		g->nbusy++;
	t->busy = 1;
	t->units++;
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

void gpu_host_load_of(const struct gpu_tenant *t, double cores,
		      struct gpu_host_load *out)
{
	double d = duty_of(t), h = host_of(t), tau;

	out->duty = d;
	out->cores = cores;
	out->busy_rate = 1.0;
	if (!t->busy || !(t->speed > 0))
		return;
	/* tau = (1 - d) h + d / r */
	tau = 1.0 / t->speed;
	if (tau - (1 - d) * h > 0)
		out->busy_rate = d / (tau - (1 - d) * h);
}

/* The host cores in use at stretch h. */
static double host_demand(const struct gpu_host_load *l, int n, double h)
{
	double dem = 0;
	int i;

	for (i = 0; i < n; i++) {
		double host = (1 - l[i].duty) * h;
		double busy = l[i].duty / (l[i].busy_rate > 0 ? l[i].busy_rate
							       : 1.0);

		if (host + busy > 0)
			dem += l[i].cores * host / (host + busy);
	}
	return dem;
}

double gpu_host_stretch(const struct gpu_host_load *l, int n, double cpus)
{
	double h = 1.0;
	int it;

	if (!(cpus > 0) || n <= 0)
		return 1.0;
	/* the map is increasing and bounded by sum cores / cpus: iterating
	** from 1 climbs to the least fixed point */
	for (it = 0; it < 10000; it++) {
		double hn = dmax(1.0, host_demand(l, n, h) / cpus);

		if (fabs(hn - h) < 1e-13 * hn) {
			h = hn;
			break;
		}
		h = hn;
	}
	return h;
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
