/*
** frac.h: what the share policies bestfit and fgd (policies/bestfit.c,
** policies/fgd.c) have in common: a node snapshot in milli-GPUs, the
** pods, and the placement rules of the FGD paper's Kubernetes simulator
** (Weng et al., USENIX ATC'23; hkust-adsl/kubernetes-scheduler-simulator),
** with its exact integer truncations, normalisation and tie-breaks.
**
** The policies read the world through policies/policy.h (version 3: nodes,
** free shares, pol_place_share) into these snapshots, score them with the
** functions below and place with pol_place_share; tests call the functions
** directly on hand-built nodes.  Rules common to both:
**   - only feasible nodes (frac_node_fits) are candidates;
**   - the highest score wins; ties go to the lowest tiebreak_rank (then to
**     the lowest node index).
** Every equation: docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on the openb
** trace"; the world's side: docs/MODEL.md, "Fractional GPUs".
** GPU-model constraints (the trace's gpu_spec) are not carried: every pod
** may use any node.
*/
#ifndef COLOSIM_POLICIES_FRAC_H
#define COLOSIM_POLICIES_FRAC_H

#include "policies/policy.h"

#define FRAC_MILLI_PER_GPU 1000   /* one whole GPU (openb's convention) */
#define FRAC_MAX_GPUS      16     /* per node; openb has at most 8 */

/* A node as the policies see it.  cpu_any / mem_any: the cluster gives no
** host CPU / memory, which then never constrain (and BestFit's CPU term
** is 0). */
struct frac_node {
	int64_t cpu_free_milli, mem_free_mib;
	int cpu_any, mem_any;
	int ngpus;
	int gpu0;                  /* the world's index of its first GPU */
	int32_t gpu_free_milli[FRAC_MAX_GPUS];
	int64_t tiebreak_rank;     /* among equal scores the lowest wins */
	uint64_t version;          /* the world's pol_node_info.version */
};

/* A pod's request: gpu_milli per GPU (1000 = a whole GPU); num_gpu 1 and
** gpu_milli < 1000 shares a GPU; num_gpu 0 asks for CPU and memory only. */
struct frac_pod {
	int64_t cpu_milli;
	int64_t mem_mib;
	int num_gpu;
	int gpu_milli;
};

/* A placement: node index and the GPU indices (on the node) it takes. */
struct frac_place {
	int node;
	int ngpu;
	int gpu[FRAC_MAX_GPUS];
};

/* 1 when node n can host pod p now: free CPU and memory cover the request
** and at least num_gpu GPUs each have free milli >= gpu_milli. */
int frac_node_fits(const struct frac_node *n, const struct frac_pod *p);

/* Total free milli-GPU of node n. */
int64_t frac_node_gpu_free(const struct frac_node *n);

/*
** The GPUs a pod takes on node n when the policy has no opinion of its own:
** a sharing pod the GPU with the least free milli that still fits (lowest
** index on ties); a whole-GPU pod the lowest-index fully free GPUs; a
** multi-GPU pod of less than 1000 milli each the lowest-index GPUs that fit.
** Fills out->gpu/ngpu (not out->node).  0, or SIM_ENOSPC.
*/
int frac_pick_gpus_default(const struct frac_node *n, const struct frac_pod *p,
			   struct frac_place *out);

/* ---- the share policies' common part (policies/frac.c) ---- */

/* The world as snapshots: every node, refreshed when its version moved. */
struct frac_view {
	struct frac_node *nodes;
	int nnodes;
	int fail_nofit;            /* nofit = fail */
};

/* xInit's part: every GPU to MPS, the snapshots.  SIM_EINVAL for a node
** of more than FRAC_MAX_GPUS GPUs. */
int frac_view_init(struct world *w, struct frac_view *v,
		   struct sim_err *err);
void frac_view_fini(struct frac_view *v);
/* Refreshes the snapshots whose node changed. */
void frac_view_refresh(struct world *w, struct frac_view *v);
/* The pod of job j. */
struct frac_pod frac_job_pod(const struct world *w, int j);

/* One placement rule: 0 and *out filled, or SIM_ENOSPC. */
typedef int (*frac_place_fn)(void *state, const struct frac_node *nodes,
			     size_t nnodes, const struct frac_pod *p,
			     struct frac_place *out);

/*
** xSchedule's body: each pending job in queue order is placed by rule
** (pol_place_share on the chosen node and GPUs); one that fits nowhere
** now fails under nofit = fail, and under nofit = wait when it would fit
** no empty node either, else it waits.  0 or a broken invariant's code.
*/
int frac_schedule(struct world *w, struct frac_view *v, frac_place_fn rule,
		  void *state);

/* ---- BestFit (policies/bestfit.c) ---- */

/* Normalisation constants: the largest node of the FGD paper's cluster
** (128 CPUs, 8 GPUs), the simulator's MaxSpecCpu/MaxSpecGpu. */
#define FRAC_BESTFIT_MAX_CPU_MILLI 128000
#define FRAC_BESTFIT_MAX_GPU_MILLI 8000

/* Raw score of pod p on node n (n must fit p):
** trunc(100 * (1 - (0.5 (cpu_free - cpu_req)/128000
**                 + 0.5 (gpu_free_total - gpu_req_total)/8000))). */
int64_t frac_bestfit_raw(const struct frac_node *n, const struct frac_pod *p);

/* Normalised score trunc((s - lo) * 100 / (hi - lo)); 0 when hi == lo. */
int64_t frac_normalize(int64_t s, int64_t lo, int64_t hi);

/* BestFit: the highest normalised raw score (a single feasible node is
** taken without scoring); GPUs by frac_pick_gpus_default.  state unused. */
int frac_bestfit_place(void *state, const struct frac_node *nodes,
		       size_t nnodes, const struct frac_pod *p,
		       struct frac_place *out);

/* ---- FGD (policies/fgd.c) ---- */

/* One class of "typical pods" and its renormalised share p. */
struct frac_typical {
	int64_t cpu_milli;
	int gpu_milli;
	int num_gpu;
	int cpu_rank;              /* index of cpu_milli in fgd->cpu_levels */
	uint64_t count;
	double p;
};

struct frac_fgd_memo_slot;

/* FGD's state: the typical-pod table and an exact memo of Frag. */
struct frac_fgd {
	struct frac_typical *t;
	size_t nt;
	int64_t *cpu_levels;       /* distinct typical cpu_milli, ascending */
	size_t ncpu_levels;
	/* Frag depends only on (CPU levels covered, sorted GPUs' free milli):
	** a hit returns the very double a fresh computation would */
	struct frac_fgd_memo_slot *memo;
	size_t memo_cap, memo_used;
	uint64_t memo_hits, memo_misses;
};

/*
** Builds the typical-pod table from a pod population: pods are grouped by
** (cpu_milli, gpu_milli, num_gpu), sorted by count descending (ties:
** larger cpu, then gpu_milli, then num_gpu first, as the simulator's sort),
** and taken while their cumulative count is below threshold_pct percent of
** all pods; shares are then renormalised to 1.  Returns 0, SIM_EINVAL (no
** pods, bad threshold) or SIM_ENOMEM.
*/
int frac_fgd_init(struct frac_fgd *f, const struct frac_pod *pods,
		  size_t npods, double threshold_pct, struct sim_err *err);
void frac_fgd_fini(struct frac_fgd *f);

/*
** Frag(n): sum over typical pods t of p_t * f(n, t), where f is the node's
** total free milli-GPU when t asks for no GPU or n cannot host t (CPU or
** GPU count), and otherwise the summed free milli of the GPUs whose free
** milli is below t's gpu_milli.  In the simulator's summation order.
** No caching.
*/
double frac_fgd_frag(const struct frac_fgd *f, const struct frac_node *n);

/* trunc(100 * sigmoid((before - after) / 1000)). */
int64_t frac_fgd_score(double frag_before, double frag_after);

/*
** The FGD score of pod p on node n (n must fit p) and the GPUs it takes:
** a sharing pod tries each GPU that fits, keeps the best score and the
** first GPU that reaches it; any other pod is scored on the hypothetical
** state that takes GPUs in ascending order of free milli (stable), and
** really takes the lowest-index GPUs (frac_pick_gpus_default).
** Fills out->gpu/ngpu (not out->node).
*/
int64_t frac_fgd_node_score(struct frac_fgd *f, const struct frac_node *n,
			    const struct frac_pod *p, struct frac_place *out);

/* FGD placement (state: a struct frac_fgd); 0 and out filled, or
** SIM_ENOSPC. */
int frac_fgd_place(void *state, const struct frac_node *nodes, size_t nnodes,
		   const struct frac_pod *p, struct frac_place *out);

#endif
