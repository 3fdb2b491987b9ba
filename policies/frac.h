/*
** frac.h: placement policies for fractional-GPU pods on a frac_cluster
** (models/fracnode.h): BestFit and FGD (fragmentation gradient descent,
** Weng et al., USENIX ATC'23), with the exact integer truncations,
** normalisation and tie-breaks of the paper's Kubernetes simulator
** (hkust-adsl/kubernetes-scheduler-simulator).
**
** A placement function maps (cluster state, pod) to a node and GPU indices,
** or SIM_ENOSPC when the pod fits nowhere; it never changes the cluster (the
** caller commits with frac_cluster_alloc).  Rules common to both:
**   - only feasible nodes (frac_node_fits) are candidates;
**   - a single feasible node is taken without scoring;
**   - the highest score wins; ties go to the lowest tiebreak_rank (then to
**     the lowest node index).
** Every equation is in docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on
** the openb trace", with its source.
** The pods must be resolved against the cluster (frac_pod_resolve).
**
** The lead's policy registry can wrap these through struct frac_policy.
*/
#ifndef COLOSIM_POLICIES_FRAC_H
#define COLOSIM_POLICIES_FRAC_H

#include <stddef.h>
#include <stdint.h>

#include "models/fracnode.h"
#include "sim/err.h"

/* BestFit's normalisation constants: the largest node of the FGD paper's
** cluster (128 CPUs, 8 GPUs), as in the simulator's MaxSpecCpu/MaxSpecGpu. */
#define FRAC_BESTFIT_MAX_CPU_MILLI 128000
#define FRAC_BESTFIT_MAX_GPU_MILLI 8000

/*
** BestFit's raw score of pod p on node n (n must fit p):
** trunc(100 * (1 - (0.5 (cpu_free - cpu_req)/128000
**                 + 0.5 (gpu_free_total - gpu_req_total)/8000))).
*/
int64_t frac_bestfit_raw(const struct frac_node *n, const struct frac_pod *p);

/* Normalised score trunc((s - lo) * 100 / (hi - lo)); 0 when hi == lo. */
int64_t frac_normalize(int64_t s, int64_t lo, int64_t hi);

/*
** BestFit: the node with the highest normalised raw score; GPUs by
** frac_pick_gpus_default (a sharing pod takes the fitting GPU with the
** least free milli).  Returns 0 and fills out, or SIM_ENOSPC.
*/
int frac_bestfit_place(const struct frac_cluster *c, const struct frac_pod *p,
		       struct frac_place *out);

/* ---- FGD ---- */

/* One class of "typical pods" and its renormalised share p. */
struct frac_typical {
	int64_t cpu_milli;
	int gpu_milli;
	int num_gpu;
	char gpu_spec[64];
	struct frac_pod pod;       /* resolved against the cluster */
	int cpu_rank;              /* index of cpu_milli in fgd->cpu_levels */
	uint64_t count;
	double p;
};

struct frac_fgd_memo_slot;

/*
** FGD's state: the typical-pod table and caches.  Owned by the caller
** (frac_fgd_init/frac_fgd_fini); bound to one cluster's model table (the
** typical pods' allowed models are resolved against it), not to its nodes
** or state: any cluster with the same model table may be placed on.
*/
struct frac_fgd {
	struct frac_typical *t;
	size_t nt;
	int64_t *cpu_levels;       /* distinct typical cpu_milli, ascending */
	size_t ncpu_levels;
	/* exact memo of Frag by node shape (model, CPU level, sorted GPUs):
	** Frag depends on nothing else, so a hit returns the very double a
	** fresh computation would */
	struct frac_fgd_memo_slot *memo;
	size_t memo_cap, memo_used;
	uint64_t memo_hits, memo_misses;
};

/*
** Builds the typical-pod table from a pod population (for openb: the
** original pods of the trace, not the clones): pods are grouped by
** (cpu_milli, gpu_milli, num_gpu, gpu_spec), sorted by count descending
** (ties: larger cpu, then gpu_milli, then num_gpu, then gpu_spec first, as
** the simulator's sort), and taken while their cumulative count is below
** threshold_pct percent of all pods; shares are then renormalised to 1.
** The pods need not be resolved.  Returns 0, SIM_EINVAL (no pods, bad
** threshold), SIM_ERANGE (spec too long) or SIM_ENOMEM.
*/
int frac_fgd_init(struct frac_fgd *f, const struct frac_cluster *c,
		  const struct frac_pod *pods, size_t npods,
		  double threshold_pct, struct sim_err *err);
void frac_fgd_fini(struct frac_fgd *f);

/*
** Frag(n): sum over typical pods t of p_t * f(n, t), where f is the node's
** total free milli-GPU when t asks for no GPU or n cannot host t (model,
** CPU or GPU count), and otherwise the summed free milli of the GPUs whose
** free milli is below t's gpu_milli.  Computed in double precision with the
** simulator's summation order.  No caching.
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

/* FGD placement; 0 and out filled, or SIM_ENOSPC. */
int frac_fgd_place(struct frac_fgd *f, const struct frac_cluster *c,
		   const struct frac_pod *p, struct frac_place *out);

/* ---- a uniform face for a policy registry ---- */

typedef int (*frac_place_fn)(void *state, const struct frac_cluster *c,
			     const struct frac_pod *p, struct frac_place *out);

struct frac_policy {
	const char *zName;         /* "bestfit", "fgd" */
	frac_place_fn xPlace;
	void *pState;              /* NULL for bestfit; a struct frac_fgd * */
};

/* Adapters with the frac_place_fn signature. */
int frac_bestfit_fn(void *state, const struct frac_cluster *c,
		    const struct frac_pod *p, struct frac_place *out);
int frac_fgd_fn(void *state, const struct frac_cluster *c,
		const struct frac_pod *p, struct frac_place *out);

#endif
