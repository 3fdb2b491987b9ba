/*
** cluster.h: the simulated cluster: nodes of GPUs, possibly of several
** device types, described by a spec such as "4x8:a100-80gb,2x4:v100-16gb"
** (4 nodes of 8 A100-80GB, then 2 nodes of 4 V100-16GB).  GPUs are numbered
** node by node; node n's GPUs are consecutive.  A part may add its nodes'
** host resources after the device: "8x8:v100-32gb:cpus=92:mem_gb=520"
** (CPU cores and host memory per node; 0 when not given).
** A node whose spec gives no cpus= has CLUSTER_CPUS_PER_GPU_DEFAULT cores
** per GPU for the host-side parts of its training jobs (docs/MODEL.md,
** "Host CPU contention"; cluster_node_cpus).
*/
#ifndef COLOSIM_SIM_CLUSTER_H
#define COLOSIM_SIM_CLUSTER_H

#include <stddef.h>

#include "models/device.h"
#include "sim/err.h"

#define CLUSTER_GROUPS_MAX 16

/* Cores per GPU of a node whose spec names none: an assumption, the shape
** of the Alibaba v2023 trace's G2 nodes (96 CPUs for 8 GPUs) and of Muri's
** cluster (92 for 8). */
#define CLUSTER_CPUS_PER_GPU_DEFAULT 12

struct cluster_group {
	int nodes, gpus_per_node;
	int cpus_per_node;                 /* 0: not given */
	double mem_gb_per_node;            /* host memory; 0: not given */
	const struct dev_profile *dev;     /* borrowed from the catalog */
};

/* One part of a spec, its device as written (not looked up). */
struct cluster_part {
	int nodes, gpus_per_node;
	int cpus_per_node;                 /* 0: not given */
	double mem_gb_per_node;            /* 0: not given */
	char device[DEV_NAME_MAX];
};

struct cluster_spec {
	int ngroups;
	struct cluster_group groups[CLUSTER_GROUPS_MAX];
	int nnodes, ngpus;
};

/*
** The syntax alone (no catalog): fills parts[0 .. *nparts - 1] (room for
** CLUSTER_GROUPS_MAX).  Blanks around parts are allowed ("4x8:a, 2x4:b").
** Errors as cluster_parse, less the unknown device; a device name is
** letters, digits, '-', '_' and '.'.  The one cluster parser: configs and
** sweeps check their specs with it, the command line and runs resolve them
** with cluster_parse.
*/
int cluster_parse_parts(const char *spec, const char *what,
			struct cluster_part *parts, int *nparts,
			struct sim_err *err);

/*
** Parses spec against the catalog.  Errors (SIM_EPARSE, SIM_ENOENT for an
** unknown device listing the known ones, SIM_ERANGE for zero or absurd
** counts) name the offending part: "cluster '4x0:a100': GPUs per node must
** be 1..64".  `what` names the source in messages ("--cluster", "file:12").
*/
int cluster_parse(struct cluster_spec *out, const char *spec,
		  const struct dev_catalog *cat, const char *what,
		  struct sim_err *err);

/* The CPU cores of node n (0 <= n < nnodes): its part's cpus=, else
** CLUSTER_CPUS_PER_GPU_DEFAULT x its GPUs; 0 for a bad index. */
int cluster_node_cpus(const struct cluster_spec *c, int n);

/* The device and node of GPU index g (0 <= g < ngpus). */
const struct dev_profile *cluster_gpu_dev(const struct cluster_spec *c, int g,
					  int *node);

#endif
