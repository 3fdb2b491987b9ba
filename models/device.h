/*
** device.h: GPU device profiles (models/devices/NAME.ini), read with libinih.
**
** A profile is the set of numbers the GPU, link and workload models take
** from a device: capacities, peak rates, host-link bandwidths, MIG slice
** shapes, time-slicing and MPS parameters.  Every value in the INI names its
** source after an '@':
**
**     hbm_bytes = 85899345920 @ spec NVIDIA A100 datasheet (80 GB HBM2e)
**     ts_switch_ns = 25000    @ fitted 2026-11-30 H200 r2=0.998
**     h2d_pinned_bytes_per_s = 5.5e10 @ measured 2026-11-30 H200 driver 580.159
**
** The source must start with `spec`, `measured` or `fitted` (a value no
** datasheet gives is "spec assumption: <why>").  The text keys name,
** display and aliases (other names, comma-separated) may omit it.  Lines
** are at most DEV_LINE_MAX - 3 characters.  Unknown keys,
** missing required keys, malformed numbers and missing sources are errors
** naming file and line.  Values are SI units named in the key (bytes,
** bytes_per_s, flops, ns).  See docs/MODEL.md for what each one feeds.
**
** STATUS: interface contract; implemented in models/device.c.
*/
#ifndef COLOSIM_MODELS_DEVICE_H
#define COLOSIM_MODELS_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"
#include "sim/time.h"

#define DEV_NAME_MAX 48
#define DEV_MIG_MAX 8
#define DEV_ALIASES_MAX 128      /* "v100m16, v100-sxm2-16gb" */
#define DEV_SRC_POOL 12288       /* bytes of "key\0source\0" records */
#define DEV_LINE_MAX 256         /* longest line of a profile INI */
#define DEV_FILE_MAX (1 << 20)   /* bytes of one profile (they are ~5 KB) */
#define DEV_LINES_MAX 10000      /* lines of one profile (they are ~60) */

struct dev_mig_profile {
	char name[24];            /* "1g.10gb" */
	int max_count;            /* how many fit on one GPU */
	int sms;                  /* SMs in the slice */
	uint64_t hbm_bytes;       /* memory of the slice */
	double bw_frac;           /* share of the device's HBM bandwidth */
	int compute_slices;       /* the N of "Ng.": GPCs the slice takes */
};

struct dev_profile {
	char name[DEV_NAME_MAX];      /* id used on the command line: "a100-80gb" */
	char display[64];             /* "NVIDIA A100-SXM4-80GB" */
	char path[256];               /* the INI it came from */
	char aliases[DEV_ALIASES_MAX];/* other names, comma-separated ("" none) */
	/* memory */
	uint64_t hbm_bytes;
	double hbm_bw_bytes_per_s;
	uint64_t l2_bytes;
	uint64_t ctx_bytes;           /* CUDA context footprint per process */
	/* compute */
	int sms;
	double fp32_flops, fp16_flops, bf16_flops;   /* dense peak, per second */
	double fp8_flops;             /* optional: dense FP8 tensor peak; 0 = none */
	double bf16_achieved_flops;   /* optional: measured large GEMM; 0 = unknown */
	double sm_clock_hz;           /* optional: SM clock under load; 0 = unknown */
	/* host link */
	int pcie_gen;
	double h2d_pinned_bytes_per_s, d2h_pinned_bytes_per_s;
	double h2d_pageable_bytes_per_s, d2h_pageable_bytes_per_s;
	sim_time pcie_latency_ns;
	double nvlink_bytes_per_s;    /* per GPU, aggregate; 0 = none */
	/* sharing */
	sim_time ts_quantum_ns;       /* time-slice quantum */
	sim_time ts_switch_ns;        /* context-switch cost per slice */
	double mps_contention_k;      /* MPS interference: speed /= 1 + k (n-1) */
	double uvm_bytes_per_s;       /* unified-memory paging rate */
	/* Co-location keys (docs/MODEL.md, "Duty cycles", "MIG"), optional:
	** 0 when absent, which is the first-order model without the term. */
	double ts_mem_contention_k;   /* time slicing: busy part / (1 + k x
					 co-busy bandwidth demand) */
	double util_duty_scale;       /* measured GPU utilisation u -> duty */
	double util_duty_exp;         /*   min(1, scale u^exp); 0 = 1 */
	double mig_bw_weight;         /* MIG busy stretch: weight of the
					 bandwidth term, [0, 1] */
	/* Optional calibration keys (docs/CALIBRATION.md): written by
	** `colosim calibrate`; 0 = not measured.  Which model reads each one
	** (most are recorded for reference only) is in docs/MODEL.md. */
	sim_time h2d_pinned_latency_ns, d2h_pinned_latency_ns;
	sim_time h2d_pageable_latency_ns, d2h_pageable_latency_ns;
	sim_time d2d_latency_ns;      /* device-to-device copy latency */
	double d2d_bytes_per_s;       /* device-to-device copy rate */
	double hbm_sat_sms;           /* SMs that saturate HBM bandwidth */
	double mps_sat_compute;       /* MPS share where a compute-bound */
	double mps_sat_memory;        /*   / memory-bound kernel saturates */
	double streams_contention_k;  /* same-process streams interference */
	double uvm_random_bytes_per_s;/* paging rate, scattered access */
	sim_time ctx_create_ns;       /* CUDA context creation time */
	uint64_t max_alloc_bytes;     /* largest single cudaMalloc */
	sim_time launch_overhead_ns;  /* host cost of one async launch */
	sim_time kernel_roundtrip_ns; /* launch + synchronize, empty kernel */
	double fp32_fma_flops, fp16_fma_flops;   /* measured FMA chains */
	double gemm_fp16_flops, gemm_fp32_flops; /* measured cuBLAS GEMM */
	int nmig;
	struct dev_mig_profile mig[DEV_MIG_MAX];
	/* where each value came from: "key\0source\0" records; MIG keys are
	** stored as "mig 1g.10gb.sms".  Read with dev_source(). */
	char src_[DEV_SRC_POOL];
	size_t nsrc_;
};

/* Loads one profile.  Returns 0, or SIM_ENOENT / SIM_EIO / SIM_EPARSE with
** "file:line: key: what was expected" in err.  *out is fully overwritten. */
int dev_load_file(const char *path, struct dev_profile *out,
		  struct sim_err *err);

/* 1 if key is a [device] key of the profile format (required or optional),
** else 0.  `colosim calibrate` writes only such keys by default. */
int dev_key_known(const char *key);

/* The source text of a key in a loaded profile ("spec ..."), or NULL.
** MIG keys are named "mig 1g.10gb.sms".  The pointer lives as long as d. */
const char *dev_source(const struct dev_profile *d, const char *key);

struct dev_catalog {
	struct dev_profile *devs;     /* owned array, sorted by name */
	size_t n;
};

/* Loads every *.ini of dir.  Returns 0 or the first error. */
int dev_catalog_load(struct dev_catalog *cat, const char *dir,
		     struct sim_err *err);
void dev_catalog_fini(struct dev_catalog *cat);

/* Index of the MIG profile named name in d->mig, or -1. */
int dev_mig_find(const struct dev_profile *d, const char *name);

/* Case-insensitive lookup by name (or alias); NULL if absent.  The pointer
** lives as long as the catalog. */
const struct dev_profile *dev_catalog_find(const struct dev_catalog *cat,
					   const char *name);

/* Writes "a100-40gb, a100-80gb, ..." into buf (for "unknown device" errors). */
void dev_catalog_names(const struct dev_catalog *cat, char *buf, size_t n);

/* The profile directory into out (size n): given (a --devices value) when
** not NULL, else $COLOSIM_DEVICES, else the first that exists of
** ./models/devices, the binary's checkout, the binary's prefix and the
** compiled-in prefix (sim/datadir.h).  0, or SIM_ENOENT naming all of
** them. */
int dev_find_dir(const char *given, char *out, size_t n,
		 struct sim_err *err);

#endif
