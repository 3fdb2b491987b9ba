/*
** fracnode.h: a cluster of nodes whose GPUs can be shared in thousandths
** ("milli-GPUs"), with the CPU and memory that pods also request.  This is
** the node model of the FGD paper (Weng et al., USENIX ATC'23) and of its
** Kubernetes simulator: a node has cpu_milli, memory_mib, one GPU model and
** a list of per-GPU free milli; a pod asks for cpu_milli, memory_mib,
** num_gpu GPUs of gpu_milli each, and optionally a set of allowed models.
**
** Invariants: 0 <= gpu_free_milli[i] <= FRAC_MILLI_PER_GPU; cpu and memory
** free are never negative; `version` grows by one at every allocation, so
** policies can cache per-node values and know when they went stale.
** Nothing here chooses where a pod goes: that is policies/frac.h.
** Equations and rules: docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on the
** openb trace".
*/
#ifndef COLOSIM_MODELS_FRACNODE_H
#define COLOSIM_MODELS_FRACNODE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

#define FRAC_MILLI_PER_GPU 1000   /* one whole GPU (openb trace convention) */
#define FRAC_MAX_GPUS      16     /* per node; openb has at most 8 */
#define FRAC_MAX_MODELS    64     /* distinct GPU models per cluster */
#define FRAC_MODEL_NAME_MAX 24

struct frac_node {
	int64_t cpu_milli, cpu_free_milli;
	int64_t mem_mib, mem_free_mib;
	int ngpus;
	int model;                 /* index in the cluster's model table; -1 none */
	int32_t gpu_free_milli[FRAC_MAX_GPUS];
	int64_t tiebreak_rank;     /* among equal scores the lowest rank wins */
	uint64_t version;          /* bumped by every allocation */
};

struct frac_cluster {
	struct frac_node *nodes;
	size_t nnodes, capnodes;
	char model_names[FRAC_MAX_MODELS][FRAC_MODEL_NAME_MAX];
	int nmodels;
	int64_t gpus_total;        /* sum of ngpus */
	int64_t gpu_used_milli;    /* sum over nodes of 1000*ngpus - free */
};

/*
** A pod's request.  gpu_milli is per GPU (1000 = a whole GPU); a pod with
** num_gpu == 1 and gpu_milli < 1000 shares a GPU.  gpu_spec is borrowed
** (NULL or "" = any model; otherwise '|'-separated model names) and must
** outlive the pod; frac_pod_resolve turns it into model_mask/any_model for
** one cluster, which every feasibility test uses.
*/
struct frac_pod {
	int64_t cpu_milli;
	int64_t mem_mib;
	int num_gpu;
	int gpu_milli;
	const char *gpu_spec;
	uint64_t model_mask;       /* bit m: model m of the cluster allowed */
	int any_model;             /* 1 when the spec names no model */
};

/* A placement: node index and the GPU indices it takes (ngpu == num_gpu). */
struct frac_place {
	int node;
	int ngpu;
	int gpu[FRAC_MAX_GPUS];
};

void frac_cluster_init(struct frac_cluster *c);
void frac_cluster_fini(struct frac_cluster *c);

/*
** Appends a node with all resources free and returns its index (>= 0), or a
** negative SIM_E* code: SIM_ERANGE for negative sizes or more than
** FRAC_MAX_GPUS GPUs, SIM_ENOSPC for more than FRAC_MAX_MODELS models,
** SIM_ENOMEM.  model may be NULL or "" for a node without GPUs.
*/
int frac_cluster_add_node(struct frac_cluster *c, int64_t cpu_milli,
			  int64_t mem_mib, int ngpus, const char *model,
			  int64_t tiebreak_rank, struct sim_err *err);

/* The model's index in c's table, or -1. */
int frac_cluster_model_id(const struct frac_cluster *c, const char *name);

/* Deep copy of src into dst (dst uninitialised); 0 or SIM_ENOMEM. */
int frac_cluster_copy(struct frac_cluster *dst, const struct frac_cluster *src);

/*
** Fills p->model_mask and p->any_model from p->gpu_spec for cluster c.
** Names the cluster lacks simply match no node.  Never fails.
*/
void frac_pod_resolve(const struct frac_cluster *c, struct frac_pod *p);

/* 1 when node n's GPU model is allowed for pod p (resolved). */
int frac_model_ok(const struct frac_node *n, const struct frac_pod *p);

/*
** 1 when node n can host pod p now: free CPU and memory cover the request,
** the model is allowed, and at least num_gpu GPUs each have free milli >=
** gpu_milli.
*/
int frac_node_fits(const struct frac_node *n, const struct frac_pod *p);

/* Total free milli-GPU of node n. */
int64_t frac_node_gpu_free(const struct frac_node *n);

/*
** The GPUs a pod takes on node n when the policy has no opinion of its own:
** a sharing pod the GPU with the least free milli that still fits (lowest
** index on ties); a whole-GPU pod the lowest-index fully free GPUs; a
** multi-GPU pod of less than 1000 milli each the lowest-index GPUs that fit.
** Fills out->gpu/ngpu (not out->node).  Returns 0, or SIM_ENOSPC when the
** pod does not fit.
*/
int frac_pick_gpus_default(const struct frac_node *n, const struct frac_pod *p,
			   struct frac_place *out);

/*
** Commits placement pl of pod p: subtracts CPU, memory and gpu_milli from
** each listed GPU, bumps the node's version and the cluster's used milli.
** Returns 0, or SIM_EINVAL/SIM_ENOSPC (nothing changed) when the placement
** is malformed or does not fit.
*/
int frac_cluster_alloc(struct frac_cluster *c, const struct frac_pod *p,
		       const struct frac_place *pl, struct sim_err *err);

#endif
