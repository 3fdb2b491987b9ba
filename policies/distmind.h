/*
** distmind.h: DistMind's request routing as a pure function of the pool's
** state, shared by policies/distmind.c and tests/test_distmind.c.
*/
#ifndef COLOSIM_POLICIES_DISTMIND_H
#define COLOSIM_POLICIES_DISTMIND_H

/* The GPU for a request, over n GPUs where in[g] says GPU g is in the pool,
** load[g] is its outstanding requests and has[g] != 0 that it holds (or is
** loading) the request's model.  With cache != 0, DistMind's order: a GPU
** with the model and load 0; any GPU with load 0; a GPU with the model and
** load < busy_load; the least-loaded GPU with load < max_load; else -1
** (queue).  With cache == 0 (the Ray-like baseline) the two cases that
** look at has[] are skipped.  Lowest index first within a case. */
int distmind_route(int n, const int *in, const int *load, const int *has,
		   int busy_load, int max_load, int cache);

#endif
