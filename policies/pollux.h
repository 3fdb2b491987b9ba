/*
** pollux.h: what the Pollux policy (policies/pollux.c) exposes besides its
** ops table, for tests: a check of its node index.
*/
#ifndef COLOSIM_POLICIES_POLLUX_H
#define COLOSIM_POLICIES_POLLUX_H

#include "policies/policy.h"

/* For tests, after a pass: -1 when Pollux's node index (state: its
** xInit's state) holds every node once with its idle GPUs now
** (pol_node_idle), else the first node where it does not (0 when the
** index has the wrong number of entries).  O(N). */
int pollux_index_check(struct world *w, const void *state);

#endif
