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

#endif
