/*
** llm_harvest.h: what the llm-harvest policy (policies/llm_harvest.c)
** exposes besides its ops table, for tests.
*/
#ifndef COLOSIM_POLICIES_LLM_HARVEST_H
#define COLOSIM_POLICIES_LLM_HARVEST_H

#include "policies/policy.h"

/* -1 when llm-harvest's GPU class indexes (state: its xInit's state)
** equal a scan of every GPU now (class, free memory), else the first GPU
** where they do not. */
int llm_harvest_index_check(struct world *w, const void *state);

#endif
