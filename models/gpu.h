/*
** gpu.h: the fluid GPU model (DESIGN.md, "The fluid execution model").
**
** A gpu holds tenants: a job's presence on the device (or on one MIG slice)
** with its memory allocation and share parameters.  A busy tenant runs one
** work unit: an amount of solo time (work_left_ns, nanoseconds the unit would
** take alone on the whole device) with a profile (alpha: compute-bound
** fraction of solo time; sat: SM fraction it can use, the GSLICE knee;
** bw_frac: HBM bandwidth it needs at full speed as a fraction of peak).
**
** The sharing mode turns the set of busy tenants into a speed per tenant
** (1 = solo).  Every change (attach, detach, resize, begin, finish, share
** change) first settles the progress of every busy tenant at its old speed
** up to `now`, then recomputes all speeds.  The model is pure: it knows no
** event queue.  After each change, the caller (the world, sim/) reschedules
** the completion of every busy tenant on that gpu at gpu_finish_time().
**
** Memory is a hard constraint: attach/resize refuse (SIM_ENOSPC) what does
** not fit, unless the caller allows oversubscription, in which case the
** excess is paged over the host link at the profile's unified-memory rate
** and every busy tenant slows down accordingly (docs/MODEL.md).
**
** Equations and their sources: docs/MODEL.md, "GPU sharing modes".
** STATUS: interface contract; implemented in models/gpu.c.
*/
#ifndef COLOSIM_MODELS_GPU_H
#define COLOSIM_MODELS_GPU_H

#include <stdint.h>

#include "models/device.h"
#include "sim/err.h"
#include "sim/stats.h"
#include "sim/time.h"

enum gpu_mode {
	GPU_MODE_EXCLUSIVE = 0,   /* one tenant; speed 1 */
	GPU_MODE_TIMESLICE,       /* round-robin: (1/n) q / (q + c) */
	GPU_MODE_MPS,             /* SM shares, water-filled; bandwidth shared */
	GPU_MODE_MIG,             /* fixed slices; timeslice inside a slice */
	GPU_MODE_INTERLEAVE,      /* Muri: up to 4 tenants take turns on CPU,
				     GPU and network (models/interleave.h) */
	GPU_MODE_STREAMS          /* one process, kernels on streams: MPS's
				     equations without caps, with
				     streams_contention_k */
};

/* "exclusive", "timeslice", "mps", "mig", "interleave", "streams"; NULL
** for an unknown value. */
const char *gpu_mode_name(enum gpu_mode m);
/* Parses a mode name; 0 or SIM_EINVAL. */
int gpu_mode_parse(const char *s, enum gpu_mode *out);

/* Fields may only be appended: positional initialisers elsewhere rely on
** the order.  A field left 0 takes the default its comment names. */
struct gpu_work_profile {
	double alpha;             /* compute-bound fraction of the busy
				     part's roofline terms, 0..1 */
	double sat;               /* SM fraction usable, (0, 1] */
	double bw_frac;           /* HBM bandwidth demand / peak while
				     GPU-busy at full speed */
	double duty;              /* GPU-busy fraction of solo time, (0, 1];
				     the rest is host-side time (input
				     pipeline, launches, synchronisation)
				     that other tenants can fill.  0 = 1:
				     always busy (docs/MODEL.md, "Duty
				     cycles") */
	/* interleave mode: one iteration's time on the CPU / data stage, the
	** GPU and the network, and its solo iteration time (ms); has_res 0:
	** unknown (the GPU then time-slices) */
	int has_res;
	double res_ms[3];
	double iter_ms;
};

struct gpu_tenant {
	/* set by the owner before attach; owner's business afterwards */
	int id;                   /* for reports */
	void *owner;              /* borrowed, never touched by the model */
	uint64_t ev;              /* owner's completion-event handle */
	int due;                  /* owner's: a completion is due at due_ns */
	sim_time due_ns;          /* (the world keeps one event per gpu) */
	uint64_t mem_bytes;       /* resident allocation (use gpu_resize) */
	double sm_cap;            /* MPS thread percentage / 100, (0, 1] */
	int slice;                /* MIG slice index, -1 for the whole GPU */
	double host_stretch;      /* host-side (GPU-idle) time of a unit
				     stretches by this under CPU contention,
				     >= 1; 0 = 1.  Set with
				     gpu_set_host_stretch() once attached */
	/* the current work unit; the model updates these */
	int busy;
	struct gpu_work_profile prof;
	double work_left_ns;      /* solo time still to run */
	double speed;             /* current speed, 0 when idle */
	sim_time t_settled;       /* progress is settled up to here */
	/* private to the model */
	double work0_;            /* work_ns of the unit at gpu_begin */
	double done_, donec_;     /* solo ns done: Neumaier sum + compensation */
	double share_;            /* MPS: water-filled SM share */
	double pbusy_;            /* wall fraction spent GPU-busy (duty
				     cycles: the fixed point of gpu.c) */
	sim_time fin_;            /* gpu_finish_time(), cached when fin_ok_ */
	int fin_ok_;
	int fixed_;               /* MPS: water-filling bookkeeping */
	struct gpu_tenant *next_;
	struct gpu *gpu_;
};

struct gpu_slice {
	int profile;              /* index into dev->mig */
	uint64_t hbm_bytes, mem_used;
	double sm_frac, bw_frac;  /* share of the device */
};

struct gpu {
	const struct dev_profile *dev;   /* borrowed; outlives the gpu */
	int id, node;
	enum gpu_mode mode;
	struct gpu_tenant *tenants;      /* attached tenants, a list */
	int ntenants, nbusy;
	uint64_t mem_used;               /* sum of tenants' mem_bytes */
	int nslices;
	struct gpu_slice slices[7];
	struct sim_twacc hbm;            /* allocated bytes (capped at capacity) */
	struct sim_twacc sm;             /* busy SM fraction, 0..1 */
	uint64_t mem_peak_bytes;         /* largest mem_used seen (uncapped) */
	uint64_t changes;                /* speed recomputations so far */
	uint64_t ev;                     /* owner's: completion-event handle */
};

/* Initialises an empty gpu at time t0.  MIG starts with no slices. */
void gpu_init(struct gpu *g, const struct dev_profile *dev, int id, int node,
	      enum gpu_mode mode, sim_time t0);
void gpu_fini(struct gpu *g);

/* Replaces the MIG layout with the named profiles ("3g.40gb", ...).  Only
** allowed with no tenant attached (SIM_ESTATE), mode MIG (SIM_EINVAL), and a
** layout that fits the device (SIM_ENOSPC); names must exist (SIM_ENOENT). */
int gpu_set_mig_layout(struct gpu *g, const char *const *profiles, int n,
		       sim_time now, struct sim_err *err);

/* Attaches an idle tenant with its mem_bytes, sm_cap and slice set.
** SIM_ENOSPC when memory does not fit and !allow_oversub; SIM_ESTATE when
** exclusive and occupied or the tenant is already attached; SIM_EINVAL on a
** bad slice or share. */
int gpu_attach(struct gpu *g, struct gpu_tenant *t, sim_time now,
	       int allow_oversub, struct sim_err *err);

/* Detaches a tenant (busy or not); its unfinished work is left in
** work_left_ns (settled to now) so that it can resume elsewhere. */
void gpu_detach(struct gpu *g, struct gpu_tenant *t, sim_time now);

/* Changes a tenant's allocation; same refusals as gpu_attach. */
int gpu_resize(struct gpu *g, struct gpu_tenant *t, uint64_t mem_bytes,
	       sim_time now, int allow_oversub, struct sim_err *err);

/* Changes a tenant's MPS share (0, 1]. */
int gpu_set_share(struct gpu *g, struct gpu_tenant *t, double sm_cap,
		  sim_time now);

/* Sets an attached tenant's host stretch (>= 1; CPU contention on its
** node, "Host CPU contention" in docs/MODEL.md); SIM_EINVAL otherwise. */
int gpu_set_host_stretch(struct gpu *g, struct gpu_tenant *t, double h,
			 sim_time now);

/* Starts a work unit of work_ns solo nanoseconds on an attached tenant
** (replacing any unit in progress). */
void gpu_begin(struct gpu *g, struct gpu_tenant *t, double work_ns,
	       const struct gpu_work_profile *prof, sim_time now);

/* Ends the tenant's work unit now (finished or abandoned): idle, speed 0. */
void gpu_finish(struct gpu *g, struct gpu_tenant *t, sim_time now);

/* Settles every busy tenant's progress to now at the current speeds. */
void gpu_settle(struct gpu *g, sim_time now);

/* When the tenant's unit completes at its current speed: now + the
** remaining work / speed, rounded up to a nanosecond; SIM_TIME_NEVER when
** idle or stalled.  Call after the last change at `now`.  O(1): the model
** computes it once per change, when it sets the speeds, and caches it. */
sim_time gpu_finish_time(const struct gpu_tenant *t, sim_time now);

/* The tenant's solo work left at `now` (>= t_settled) at its current
** speed, without settling anything: what work_left_ns would read if the
** gpu were settled now (0 at or past gpu_finish_time). */
double gpu_work_left(const struct gpu_tenant *t, sim_time now);

/* The wall fraction the tenant spends GPU-busy at the current speeds
** (its duty cycle stretched by sharing; 0 when idle). */
double gpu_busy_frac(const struct gpu_tenant *t);

/* ---- host CPU contention (docs/MODEL.md, "Host CPU contention") ----
** The host-side parts of the tenants of one node share its CPU cores.  The
** world computes each node's stretch with gpu_host_stretch() and hands it
** to the tenants with gpu_set_host_stretch(). */
struct gpu_host_load {
	double duty;              /* GPU-busy fraction of solo time, (0, 1] */
	double busy_rate;         /* mean rate of its busy part, > 0 */
	double cores;             /* cores its host part keeps busy */
};

/* A busy tenant's load at its current speed, with `cores` host cores. */
void gpu_host_load_of(const struct gpu_tenant *t, double cores,
		      struct gpu_host_load *out);

/* The stretch h >= 1 of every host part of a node with `cpus` cores: the
** least fixed point of h = max(1, sum_i cores_i f_i(h) / cpus), f_i(h) =
** (1 - d_i) h / ((1 - d_i) h + d_i / r_i) the wall fraction tenant i
** spends on the host.  1 when the demand fits (or cpus <= 0: unlimited). */
double gpu_host_stretch(const struct gpu_host_load *l, int n, double cpus);

/* Free HBM (capacity - used; 0 when oversubscribed), whole device or slice. */
uint64_t gpu_mem_free(const struct gpu *g, int slice);

/* Bytes beyond capacity (0 unless oversubscribed), whole device or slice. */
uint64_t gpu_mem_excess(const struct gpu *g, int slice);

#endif
