/*
** zoo.h: the model zoo: DNN models with their sizes, per-layer-group
** parameter bytes and FLOPs, and activation footprints.
**
** Figures are computed from the architectures (the files of models/zoo/) and checked
** against published parameter counts in tests/test_zoo.c; each model names
** its sources.  The table is static and read-only.
**
** STATUS: interface contract; implemented in models/zoo.c and models/zoo/.
*/
#ifndef COLOSIM_MODELS_ZOO_H
#define COLOSIM_MODELS_ZOO_H

#include <stddef.h>
#include <stdint.h>

struct zoo_group {
	const char *name;             /* "conv1", "layer3", "block.11" */
	uint64_t params;              /* parameters in the group */
	double fwd_flops;             /* forward FLOPs per sample (2 per MAC) */
};

struct zoo_model {
	const char *name;             /* "resnet50": the trace's model column */
	const char *display;          /* "ResNet-50" */
	const char *task;             /* "vision", "nlp", "llm" */
	uint64_t params;              /* total parameters */
	double fwd_flops;             /* forward FLOPs per sample */
	uint64_t act_train_bytes;     /* activations kept for backward, FP32,
					 per sample */
	uint64_t act_infer_bytes;     /* peak live activations in inference,
					 FP32, per sample */
	int input_len;                /* sequence length or image side used */
	const struct zoo_group *groups;
	size_t ngroups;
	const char *source;           /* where the figures come from */
	int default_batch;            /* batch when a job names none
					 (colosim corun MODEL); the source's
					 default where it has one */
	const char *origin;           /* the workload it models: "Gavel
					 (OSDI'20) job type ResNet-18",
					 "torchvision", ... */
};

size_t zoo_count(void);
const struct zoo_model *zoo_at(size_t i);

/* Case-insensitive lookup by name; NULL if unknown. */
const struct zoo_model *zoo_find(const char *name);

/* Writes the known names, comma separated, into buf (for error messages). */
void zoo_names(char *buf, size_t n);

#endif
