/*
** openb.h: the FGD paper's experiment on the Alibaba "openb" trace
** (USENIX ATC'23, Fig. 9): readers for its node list, pod arrivals and
** node tie-break ranks; the replay (pods arrive in order and never leave;
** a pod that fits nowhere fails and is dropped, its GPU demand still counts
** as arrived); the allocation curve; CSV output.
**
** The inputs are the files of ../shared/traces/alibaba-gpu-v2023/
** (openb_node_list_gpu_node.csv, fgd-seed42/arrivals.csv,
** fgd-seed42/node_tiebreak.csv), but nothing here depends on their sizes.
** The replay is a configuration of the ordinary world (sim/world/,
** policies bestfit and fgd): arrivals that never leave; the figure is
** plots/openb.gp (plots/plot.h, plot_openb).
** Readers fill a struct sim_err with "file:line:column: field: problem".
** See docs/REPRODUCTION.md, "FGD (USENIX ATC'23) on the openb trace".
*/
#ifndef COLOSIM_EXPERIMENTS_OPENB_H
#define COLOSIM_EXPERIMENTS_OPENB_H

#include <stddef.h>
#include <stdint.h>

#include "sim/world/result.h"
#include "sim/err.h"

#define OPENB_NAME_MAX 48
#define OPENB_SPEC_MAX 64
#define OPENB_MODEL_MAX 24
#define OPENB_KMAX     130        /* curve points k = 0..130 (% demand) */

struct openb_node {
	char sn[OPENB_NAME_MAX];
	int64_t cpu_milli, mem_mib;
	int ngpus;
	char model[OPENB_MODEL_MAX];   /* "" for none */
	int64_t rank;              /* tie-break rank: the row (or the file) */
};

struct openb_arrival {
	char name[OPENB_NAME_MAX];
	int original;              /* 1 when name == orig_name (not a clone) */
	int64_t cpu_milli, mem_mib;
	int num_gpu, gpu_milli;    /* gpu_milli per GPU, 0..1000 */
	char gpu_spec[OPENB_SPEC_MAX];
	long line;                 /* in the arrivals file */
};

struct openb_data {
	struct openb_node *nodes;
	size_t nnodes, capnodes;
	struct openb_arrival *arr;
	size_t narr, caparr;
	int64_t gpus_total;
	char arrivals_path[512];
};

void openb_data_init(struct openb_data *d);
void openb_data_fini(struct openb_data *d);

/*
** Reads a node list with header sn,cpu_milli,memory_mib,gpu,model (extra
** columns are ignored) into d->nodes; ranks default to the row order.
** Must come first.  Returns 0 or SIM_ENOENT/SIM_EIO/SIM_EPARSE/SIM_ERANGE/
** SIM_EEXIST (duplicate sn)/SIM_ENOMEM.
*/
int openb_load_nodes(struct openb_data *d, const char *path,
		     struct sim_err *err);

/*
** Reads arrivals with header seq,name,orig_name,cpu_milli,memory_mib,
** num_gpu,gpu_milli,gpu_spec; seq must be 0,1,2,... in file order.  Load
** the nodes first.
*/
int openb_load_arrivals(struct openb_data *d, const char *path,
			struct sim_err *err);

/*
** Reads tie-break ranks with header tiebreak_rank,sim_name,sn: every node
** of d must appear exactly once (SIM_EPARSE otherwise).
*/
int openb_load_tiebreak(struct openb_data *d, const char *path,
			struct sim_err *err);

enum openb_policy { OPENB_BESTFIT, OPENB_FGD };

/* One replay: cluster-wide milli-GPU after each arrival. */
struct openb_run {
	int64_t *alloc_milli;      /* allocated after arrival i */
	int64_t *arrived_milli;    /* cumulative demand after arrival i */
	size_t n;
	size_t placed, failed;
	int64_t gpus_total;
	size_t ntypical;           /* FGD: typical-pod classes used */
	double typical_share;      /* FGD: share of the originals they cover */
};

void openb_run_fini(struct openb_run *r);

/*
** The world's inputs for d, written into folder dir (which must exist):
** dir/openb-trace.csv (one CPU-only or share training job per arrival,
** submitted at seq seconds, lasting 1e9 s: they never leave before the
** horizon), dir/openb-population.csv (the original, non-clone arrivals:
** FGD's typical pods), dir/openb.cluster (the cluster spec: nodes grouped
** by GPUs, device, CPUs and memory in order of first appearance) and
** dir/openb.ranks (each world node's tie-break rank, one per line, in the
** world's node order).  A gpu_spec constraint is refused (SIM_EINVAL
** naming its line): the world does not carry GPU-model constraints.
*/
int openb_write_world(const struct openb_data *d, const char *dir,
		      struct sim_err *err);

/*
** Replays d in the ordinary world (docs/REPRODUCTION.md): writes its
** inputs into dir (openb_write_world), then runs policy bestfit or fgd
** (nofit = fail; FGD learns its typical pods from openb-population.csv
** with the given threshold, 95 in the paper) to the horizon after the last
** arrival, recording after each arrival's scheduling pass the GPU shares
** held cluster-wide (world_share_alloc_milli) and the GPU demand arrived.
** devices_dir as exp_sim_args (NULL: the usual search).  Returns 0 or a
** SIM_E* code; *out is filled (caller frees with openb_run_fini).
*/
int openb_replay(const struct openb_data *d, enum openb_policy policy,
		 double threshold_pct, const char *dir,
		 const char *devices_dir, struct openb_run *out,
		 struct sim_err *err);

/* Emulate the paper's analysis script: round every sample to 2 decimals
** and the mean to 2 decimals (its expected_results are rounded so). */
#define OPENB_CURVE_ROUND2 1

/*
** The allocation curve: for k = 0..kmax, the mean of 100 * allocated /
** (1000 * GPUs) over the arrivals whose round(100 * arrived / (1000 *
** GPUs)) equals k (ties to even, as numpy); when none do, the mean over
** those in bins k-1..k+1; NaN when those are empty too.  curve holds kmax+1
** values.  Returns 0, SIM_EINVAL (kmax < 0, no GPUs) or SIM_ENOMEM.
*/
int openb_curve(const struct openb_run *r, int kmax, int flags, double *curve);

/*
** Records a curve in a run result as metrics "alloc_pct_kNNN" (k = 0..kmax,
** NaN points skipped).  0 or SIM_ENOMEM.
*/
int openb_curve_to_result(struct run_result *res, const double *curve,
			  int kmax);

/*
** Writes "policy,k,alloc_pct" rows (policies in the given order, NaN points
** skipped).  names are the policies' names as printed.
*/
int openb_write_csv(const char *path, const char *const *names,
		    const double *const *curves, int ncurves, int kmax,
		    struct sim_err *err);

/*
** Stores n (1 or 2) runs in the results store db under info->experiment
** (experiments/openb_store.c): one run per policy, names[i] lower-cased
** as its key, policy and variant; metrics alloc_pct_kNNN, placed, failed,
** arrivals, gpus_total, wall_s.  The same name with the same inputs
** replaces the runs; with other inputs: SIM_EEXIST.  Store errors as
** store.h says.
*/
struct openb_store_info {
	const char *experiment;
	const char *nodes, *arrivals, *tiebreak;
	double threshold_pct;
};
int openb_store_runs(const char *db, const struct openb_store_info *info,
		     const char *const *names, const struct openb_run *runs,
		     const double *const *curves, const double *wall_s, int n,
		     struct sim_err *err);
#endif
