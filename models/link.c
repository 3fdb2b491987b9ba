/*
** link.c: max-min fair flows over links, and the pipeline recurrence (see
** link.h; equations in docs/MODEL.md, "Links").
**
** Rates come from progressive filling: at each round the tightest
** constraint (a link's remaining bandwidth over its unfixed flows, or a
** flow's own cap) fixes the flows it binds, which then leave the problem.
** Each round fixes at least one flow, so a recomputation is O(F (F + L)).
**
** Invariants: the rates of the flows crossing a link never sum past its
** bandwidth (up to rounding); a flow's progress is a compensated sum of
** rate * dt over integer-ns intervals, and a flow settled at or past its
** drain time has bytes_left == 0 exactly.  A drained flow waiting out its
** latency takes no bandwidth.
*/
#include "models/link.h"
#include "sim/stats.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void link_net_init(struct link_net *n)
{
	memset(n, 0, sizeof *n);
}

void link_net_fini(struct link_net *n)
{
	struct link_flow *f, *next;

	for (f = n->flows; f != NULL; f = next) {
		next = f->next_;
		f->next_ = NULL;
		f->net_ = NULL;
		f->active = 0;
	}
	free(n->links);
	memset(n, 0, sizeof *n);
}

int link_add(struct link_net *n, const char *name, double bw_bytes_per_s,
	     sim_time latency_ns, struct sim_err *err)
{
	struct link *l;

	if (!(bw_bytes_per_s > 0) || !isfinite(bw_bytes_per_s) ||
	    latency_ns < 0)
		return sim_err_set(err, SIM_EINVAL, "link %s: bandwidth %g B/s "
				   "and latency %lld ns (expected > 0 and >= 0)",
				   name, bw_bytes_per_s, (long long)latency_ns);
	if (n->nlinks == n->caplinks) {
		int cap = n->caplinks ? 2 * n->caplinks : 16;
		struct link *nl = realloc(n->links, (size_t)cap * sizeof *nl);

		if (nl == NULL)
			return sim_err_set(err, SIM_ENOMEM, "link %s: out of "
					   "memory", name);
		n->links = nl;
		n->caplinks = cap;
	}
	l = &n->links[n->nlinks];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->bw_bytes_per_s = bw_bytes_per_s;
	l->latency_ns = latency_ns;
	return n->nlinks++;
}

int link_add_host(struct link_net *n, const struct dev_profile *d,
		  const char *prefix, int pinned, int *h2d, int *d2h,
		  struct sim_err *err)
{
	char name[LINK_NAME_MAX + 8];
	int a, b;

	/* A calibrated profile has the latency of each copy kind; 0 means
	** not measured, and the one pcie_latency_ns stands in. */
	sim_time lat_h2d = pinned ? d->h2d_pinned_latency_ns :
			   d->h2d_pageable_latency_ns;
	sim_time lat_d2h = pinned ? d->d2h_pinned_latency_ns :
			   d->d2h_pageable_latency_ns;

	snprintf(name, sizeof name, "%s.h2d", prefix);
	a = link_add(n, name, pinned ? d->h2d_pinned_bytes_per_s :
		     d->h2d_pageable_bytes_per_s,
		     lat_h2d > 0 ? lat_h2d : d->pcie_latency_ns, err);
	if (a < 0)
		return a;
	snprintf(name, sizeof name, "%s.d2h", prefix);
	b = link_add(n, name, pinned ? d->d2h_pinned_bytes_per_s :
		     d->d2h_pageable_bytes_per_s,
		     lat_d2h > 0 ? lat_d2h : d->pcie_latency_ns, err);
	if (b < 0)
		return b;
	*h2d = a;
	*d2h = b;
	return 0;
}

int link_add_nvlink(struct link_net *n, const struct dev_profile *d,
		    const char *prefix, struct sim_err *err)
{
	char name[LINK_NAME_MAX + 8];

	if (!(d->nvlink_bytes_per_s > 0))
		return sim_err_set(err, SIM_EINVAL, "%s: %s has no NVLink",
				   prefix, d->name);
	snprintf(name, sizeof name, "%s.nvlink", prefix);
	return link_add(n, name, d->nvlink_bytes_per_s, 0, err);
}

/* Whole ns to drain `left` bytes at rate B/s, rounded up so that
** rate * dt / 1e9 >= left; -1 past sim_time's range. */
static sim_time drain_dt(double left, double rate)
{
	double x;
	sim_time dt;

	if (left <= 0)
		return 0;
	x = ceil(left / rate * (double)SIM_NS_PER_S);
	if (!(x < (double)(SIM_TIME_MAX / 2)))
		return -1;
	dt = (sim_time)x;
	while ((double)dt * rate / (double)SIM_NS_PER_S < left)
		dt++;
	return dt;
}

/* When the flow's last byte drains at the current rate, or NEVER. */
static sim_time drain_time(const struct link_flow *f)
{
	sim_time dt;

	if (f->bytes_left <= 0)
		return f->t_drained_;   /* not the last settle: see settle_one */
	if (!(f->rate_bytes_per_s > 0))
		return SIM_TIME_NEVER;
	dt = drain_dt(f->bytes_left, f->rate_bytes_per_s);
	return dt < 0 ? SIM_TIME_NEVER : sim_time_add_sat(f->t_settled, dt);
}

sim_time link_flow_finish_time(const struct link_flow *f, sim_time now)
{
	sim_time t;

	(void)now;
	if (!f->active)
		return SIM_TIME_NEVER;
	t = drain_time(f);
	return t == SIM_TIME_NEVER ? t : sim_time_add_sat(t, f->latency_ns);
}

static void settle_one(struct link_net *n, struct link_flow *f, sim_time now)
{
	double moved;
	int i;

	if (now <= f->t_settled)
		return;
	if (f->bytes_left > 0 && f->rate_bytes_per_s > 0) {
		if (now >= drain_time(f)) {
			/* Remember when it drained, so that a later settle
			** does not move the end (and the latency after it). */
			f->t_drained_ = drain_time(f);
			moved = f->bytes_left;
			f->done_ = f->bytes;
			f->donec_ = 0;
			f->bytes_left = 0;
		} else {
			double before = f->bytes_left;

			sim_comp_add(&f->done_, &f->donec_, f->rate_bytes_per_s *
				 (double)(now - f->t_settled) /
				 (double)SIM_NS_PER_S);
			f->bytes_left = f->bytes - (f->done_ + f->donec_);
			if (f->bytes_left <= 0) {
				f->bytes_left = 0;
				f->t_drained_ = now;
			}
			moved = before - f->bytes_left;
		}
		for (i = 0; i < f->npath; i++)
			n->links[f->path[i]].bytes_carried += moved;
	}
	f->t_settled = now;
}

void link_settle(struct link_net *n, sim_time now)
{
	struct link_flow *f;

	for (f = n->flows; f != NULL; f = f->next_)
		settle_one(n, f, now);
}

/* Max-min fair rates by progressive filling (MODEL.md, "Links"). */
static void recompute(struct link_net *n)
{
	struct link_flow *f;
	int i, unfixed = 0;

	for (i = 0; i < n->nlinks; i++) {
		n->links[i].left_ = n->links[i].bw_bytes_per_s;
		n->links[i].unfixed_ = 0;
		n->links[i].used_bytes_per_s = 0;
		n->links[i].nflows = 0;
	}
	for (f = n->flows; f != NULL; f = f->next_) {
		f->rate_bytes_per_s = 0;
		f->fixed_ = f->bytes_left <= 0;   /* drained: latency only */
		if (f->fixed_)
			continue;
		unfixed++;
		for (i = 0; i < f->npath; i++) {
			n->links[f->path[i]].unfixed_++;
			n->links[f->path[i]].nflows++;
		}
	}
	while (unfixed > 0) {
		double level = HUGE_VAL;
		int bott = -1;
		struct link_flow *capped = NULL;

		for (i = 0; i < n->nlinks; i++) {
			struct link *l = &n->links[i];

			if (l->unfixed_ > 0 &&
			    fmax(l->left_, 0) / l->unfixed_ < level) {
				level = fmax(l->left_, 0) / l->unfixed_;
				bott = i;
			}
		}
		for (f = n->flows; f != NULL; f = f->next_)
			if (!f->fixed_ && f->cap_bytes_per_s > 0 &&
			    f->cap_bytes_per_s < level) {
				level = f->cap_bytes_per_s;
				capped = f;
			}
		assert(bott >= 0 || capped != NULL);
		for (f = n->flows; f != NULL; f = f->next_) {
			int binds = 0;

			if (f->fixed_)
				continue;
			if (capped != NULL)
				binds = f == capped;
			else
				for (i = 0; i < f->npath; i++)
					binds |= f->path[i] == bott;
			if (!binds)
				continue;
			f->rate_bytes_per_s = level;
			f->fixed_ = 1;
			unfixed--;
			for (i = 0; i < f->npath; i++) {
				n->links[f->path[i]].left_ -= level;
				n->links[f->path[i]].unfixed_--;
				n->links[f->path[i]].used_bytes_per_s += level;
			}
		}
	}
	n->changes++;
}

int link_flow_start(struct link_net *n, struct link_flow *f, const int *path,
		    int npath, double bytes, double cap_bytes_per_s,
		    sim_time now, struct sim_err *err)
{
	struct link_flow **pp;
	sim_time lat = 0;
	int i, j;

	if (f->active)
		return sim_err_set(err, SIM_ESTATE, "flow %d is already "
				   "active", f->id);
	if (npath < 1 || npath > LINK_PATH_MAX)
		return sim_err_set(err, SIM_EINVAL, "flow %d: path of %d links "
				   "(expected 1..%d)", f->id, npath,
				   LINK_PATH_MAX);
	if (!(bytes >= 0) || !isfinite(bytes) || !(cap_bytes_per_s >= 0))
		return sim_err_set(err, SIM_EINVAL, "flow %d: %g bytes, cap %g "
				   "B/s", f->id, bytes, cap_bytes_per_s);
	for (i = 0; i < npath; i++) {
		if (path[i] < 0 || path[i] >= n->nlinks)
			return sim_err_set(err, SIM_EINVAL, "flow %d: no link "
					   "%d", f->id, path[i]);
		for (j = 0; j < i; j++)
			if (path[j] == path[i])
				return sim_err_set(err, SIM_EINVAL, "flow %d: "
						   "link %s twice in the path",
						   f->id,
						   n->links[path[i]].name);
		lat += n->links[path[i]].latency_ns;
	}
	link_settle(n, now);
	memcpy(f->path, path, (size_t)npath * sizeof *path);
	f->npath = npath;
	f->cap_bytes_per_s = cap_bytes_per_s;
	f->bytes = f->bytes_left = bytes;
	f->done_ = f->donec_ = 0;
	f->latency_ns = lat;
	f->t_start = f->t_settled = f->t_drained_ = now;
	f->active = 1;
	f->net_ = n;
	f->next_ = NULL;
	for (pp = &n->flows; *pp != NULL; pp = &(*pp)->next_)
		;
	*pp = f;
	n->nflows++;
	recompute(n);
	return 0;
}

void link_flow_end(struct link_net *n, struct link_flow *f, sim_time now)
{
	struct link_flow **pp;

	assert(f->active && f->net_ == n);
	link_settle(n, now);
	for (pp = &n->flows; *pp != f; pp = &(*pp)->next_)
		assert(*pp != NULL);
	*pp = f->next_;
	f->next_ = NULL;
	f->net_ = NULL;
	f->active = 0;
	f->rate_bytes_per_s = 0;
	n->nflows--;
	recompute(n);
}

sim_time link_transfer_ns(double bytes, double bw_bytes_per_s,
			  sim_time latency_ns)
{
	sim_time dt = drain_dt(bytes, bw_bytes_per_s);

	return dt < 0 ? SIM_TIME_NEVER : sim_time_add_sat(latency_ns, dt);
}

int link_pipeline(const sim_time *stage_ns, int nstages, int ngroups,
		  sim_time t0, sim_time *finish_ns, sim_time *done_ns)
{
	sim_time prev[LINK_PIPE_STAGES_MAX];  /* finish[s][g-1] */
	int s, g;

	if (nstages < 1 || nstages > LINK_PIPE_STAGES_MAX || ngroups < 1)
		return SIM_EINVAL;
	for (s = 0; s < nstages; s++)
		prev[s] = t0;
	for (g = 0; g < ngroups; g++) {
		sim_time above = t0;          /* finish[s-1][g] */

		for (s = 0; s < nstages; s++) {
			sim_time t = stage_ns[(size_t)s * (size_t)ngroups +
					      (size_t)g];
			sim_time start = prev[s] > above ? prev[s] : above;

			if (t < 0)
				return SIM_EINVAL;
			prev[s] = above = sim_time_add_sat(start, t);
			if (finish_ns != NULL)
				finish_ns[(size_t)s * (size_t)ngroups +
					  (size_t)g] = above;
		}
	}
	*done_ns = prev[nstages - 1];
	return 0;
}
