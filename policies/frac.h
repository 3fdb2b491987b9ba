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

/*
** The world as snapshots, grouped into classes of equal nodes
** (policies/frac_view.c): nodes with the same free CPU and memory, the
** same cpu_any / mem_any and the same multiset of GPU free milli fit the
** same pods and score alike under both rules, so a rule scores one node
** of each class, its lowest (tiebreak_rank, index).  A node is
** re-snapshotted (and moves class) when its version moved; which nodes to
** look at comes from the world's changed GPUs (pol_nchanged) and, for
** CPU-only pods, which no GPU sees, from the policy's own placements and
** their ends (frac_view_on_finish), never from a scan of every node.
*/
struct frac_class;

struct frac_view {
	struct frac_node *nodes;
	int nnodes;
	int fail_nofit;            /* nofit = fail */
	/* classes: nnodes slots, the live ones in live[0..nlive), rep[k]
	** the lowest (tiebreak_rank, index) node of class live[k] */
	struct frac_class *cls;
	int *live, *rep, nlive;
	int *free_cls, nfree;
	int *bucket, nbucket;      /* hash chains of the live classes */
	int *node_cls, *node_pos;  /* per node: its class, heap position */
	/* nodes to look at again */
	int *gpu_node, ngpus;      /* per world GPU, its node */
	int *dirty, ndirty;
	unsigned char *is_dirty;
	int chg_seen;              /* pol_changed_at entries seen this pass */
	struct sim_oset cpu_pods;  /* the CPU-only pods placed and not
				      ended: key and id the job, aux its
				      node (bounded by the live pods) */
	/* the distinct empty nodes (capacities), for "fits no node" */
	struct frac_node *shapes;
	int nshapes;
};

/* xInit's part: every GPU to MPS, the snapshots and classes.  SIM_EINVAL
** for a node of more than FRAC_MAX_GPUS GPUs; SIM_ENOMEM. */
int frac_view_init(struct world *w, struct frac_view *v,
		   struct sim_err *err);
/* Frees what init allocated; accepts a zeroed or partly built view. */
void frac_view_fini(struct frac_view *v);
/* Re-snapshots (and re-classes) the nodes that changed since the last
** call: those of the world's changed GPUs from entry chg_seen on, and
** those marked by the view's own CPU-only placements and ends.  0 or
** SIM_ENOMEM. */
int frac_view_refresh(struct world *w, struct frac_view *v);
/* A pass's end: marks the nodes of the changed GPUs not seen yet (the
** world empties its list when the pass returns). */
void frac_view_pass_end(struct world *w, struct frac_view *v);
/* xOnFinish's part: job j ended; a CPU-only pod's node is looked at
** again.  0 or SIM_ENOMEM. */
int frac_view_on_finish(struct frac_view *v, int j);
/* frac_schedule's part: job j was placed on node with ngpu GPUs (a
** CPU-only pod, ngpu 0, is remembered and its node looked at again).  0 or
** SIM_ENOMEM. */
int frac_view_placed(struct frac_view *v, int j, int node, int ngpu);
/* 1 when pod p would fit some node of the cluster with nothing placed. */
int frac_view_fits_empty(const struct frac_view *v, const struct frac_pod *p);
/* The pod of job j. */
struct frac_pod frac_job_pod(const struct world *w, int j);

/*
** One placement rule over candidate nodes: cand[0..ncand) are indices into
** nodes, at most one node of each class of equal nodes, the class's lowest
** (tiebreak_rank, index); cand NULL means every node 0..ncand-1.  The
** winner is the highest score, then the lowest tiebreak_rank, then the
** lowest index, so the answer is the one over every node.  0 and *out
** filled (out->node an index into nodes), or SIM_ENOSPC.
*/
typedef int (*frac_place_fn)(void *state, const struct frac_node *nodes,
			     const int *cand, size_t ncand,
			     const struct frac_pod *p, struct frac_place *out);

/* A 64-bit finalizer (MurmurHash3's fmix64) for the memo and class
** hashes of fgd.c and frac_view.c. */
static inline uint64_t frac_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* 1 when node a goes before node b among equal scores: the lower
** tiebreak_rank, then the lower index. */
static inline int frac_before(const struct frac_node *nodes, int a, int b)
{
	return nodes[a].tiebreak_rank != nodes[b].tiebreak_rank ?
		nodes[a].tiebreak_rank < nodes[b].tiebreak_rank : a < b;
}

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
/* The same over candidates (a frac_place_fn). */
int frac_bestfit_among(void *state, const struct frac_node *nodes,
		       const int *cand, size_t ncand, const struct frac_pod *p,
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
/* The same over candidates (a frac_place_fn). */
int frac_fgd_among(void *state, const struct frac_node *nodes,
		   const int *cand, size_t ncand, const struct frac_pod *p,
		   struct frac_place *out);

#endif
