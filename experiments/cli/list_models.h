/*
** list_models.h: the model zoo as a table, for `colosim list models`
** (the lead wires it into cmd_list).
*/
#ifndef COLOSIM_SIM_CLI_LIST_MODELS_H
#define COLOSIM_SIM_CLI_LIST_MODELS_H

#include <stdio.h>

/* Prints one row per zoo model (name, parameters, weight bytes at FP32,
** forward GFLOPs per sample, activation MB per sample for training and
** inference, layer groups, input size) and the sources; returns 0, or 1
** if writing failed. */
int cli_list_models(FILE *out);

#endif
