/*
** workload.h: the training-job and inference-service models: memory
** footprints, iteration and batch times, and the work profile each hands to
** the GPU model.  Pure functions of (model, device, batch, options).
** Equations, constants and their sources: docs/MODEL.md, "Workloads".
**
** STATUS: interface contract; implemented in models/workload.c.
*/
#ifndef COLOSIM_MODELS_WORKLOAD_H
#define COLOSIM_MODELS_WORKLOAD_H

#include <stdint.h>

#include "models/device.h"
#include "models/gpu.h"
#include "models/zoo.h"
#include "sim/time.h"

enum wl_optimizer { WL_OPT_SGD = 0, WL_OPT_MOMENTUM, WL_OPT_ADAM };
enum wl_precision { WL_PREC_FP32 = 0, WL_PREC_MIXED };

struct wl_train_mem {
	uint64_t static_bytes;        /* context + weights + grads + optimizer */
	uint64_t peak_bytes;          /* static + activations of the batch */
	uint64_t trough_bytes;        /* between iterations */
	double peak_frac;             /* fraction of an iteration near the peak */
};

/* The memory of one data-parallel worker. */
void wl_train_memory(const struct zoo_model *m, const struct dev_profile *d,
		     int batch, enum wl_optimizer opt, enum wl_precision prec,
		     struct wl_train_mem *out);

/* Solo time of one training iteration on the device (roofline with a
** documented efficiency), without the all-reduce. */
sim_time wl_train_iter_ns(const struct zoo_model *m,
			  const struct dev_profile *d, int batch,
			  enum wl_precision prec);

/* The GPU work profile of a training iteration / inference batch. */
void wl_train_profile(const struct zoo_model *m, const struct dev_profile *d,
		      int batch, enum wl_precision prec,
		      struct gpu_work_profile *out);
void wl_infer_profile(const struct zoo_model *m, const struct dev_profile *d,
		      int batch, struct gpu_work_profile *out);

/* Solo latency of one inference batch, L(model, device, batch). */
sim_time wl_infer_batch_ns(const struct zoo_model *m,
			   const struct dev_profile *d, int batch);

/* Memory of an inference replica able to run batches up to max_batch. */
uint64_t wl_infer_memory(const struct zoo_model *m,
			 const struct dev_profile *d, int max_batch);

/* ---- additions by the workloads helper (not in the first contract) ---- */

/* "sgd"/"momentum"/"adam", "fp32"/"mixed" (case-insensitive); 0 or
** SIM_EINVAL.  The names are the trace's column values. */
int wl_optimizer_parse(const char *s, enum wl_optimizer *out);
int wl_precision_parse(const char *s, enum wl_precision *out);
const char *wl_optimizer_name(enum wl_optimizer o);
const char *wl_precision_name(enum wl_precision p);

/* Bytes per parameter of weights + gradients + optimizer state (ZeRO's
** accounting: mixed-precision Adam is 16). */
double wl_state_bytes_per_param(enum wl_optimizer opt,
				enum wl_precision prec);

/* The inference latency curve of a device: L(b) = t0 + max(compute,
** memory), compute = b * fwd_flops / (fp16_flops * eta).  Fitted on the
** published ResNet-50 TensorRT FP16 latencies (docs/MODEL.md); devices
** without a fit get the mean of the fitted ones and calibrated = 0. */
struct wl_infer_curve {
	double t0_ns;                 /* fixed overhead per batch */
	double eta;                   /* efficiency against fp16_flops */
	int calibrated;               /* 1: fitted for this device family */
	const char *fit;              /* "a100", "v100", "t4" or "mean" */
};
void wl_infer_curve_of(const struct dev_profile *d, struct wl_infer_curve *out);

/* Bytes each worker sends (and receives) for one gradient all-reduce of a
** data-parallel job over `gpus` workers with a ring algorithm:
** 2 (n - 1) / n * gradient bytes; 0 for one GPU.  The link model turns
** them into time. */
uint64_t wl_allreduce_bytes(const struct zoo_model *m, enum wl_precision prec,
			    int gpus);

#endif
