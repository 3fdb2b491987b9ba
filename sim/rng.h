/*
** rng.h: named, reproducible random streams over GSL.
**
** Every consumer of randomness (a generator, a job, a policy, a benchmark LP)
** owns a stream identified by a name and an index.  Its seed is a mixing
** function (SplitMix64's finaliser) of (master seed, FNV-1a hash of the name,
** index), so
**   - the same (master, name, index) always yields the same draws;
**   - creating, using or dropping one stream never shifts another's draws
**     (common random numbers across policies in a paired comparison);
**   - nearby indices or masters give unrelated seeds.
** The generator is GSL's taus2, L'Ecuyer's maximally equidistributed
** combined Tausworthe generator (period 2^88, 24 bytes of state, where
** MT19937 needs 5000: docs/MODEL.md, "Random streams", compares them).
** GSL seeds it with 32 bits, so two streams collide with probability about
** k^2 / 2^33 for k streams: negligible for the thousands of streams of one
** run, and documented in docs/MODEL.md.
** There is no hidden generator anywhere in colosim: no rand(), no static
** gsl_rng.
*/
#ifndef COLOSIM_SIM_RNG_H
#define COLOSIM_SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/err.h"

struct sim_rng {
	gsl_rng *r;          /* owned; use with any gsl_ran_* function */
	uint64_t seed;       /* the mixed 64-bit seed, for reports */
};

/* SplitMix64's finaliser: a bijective 64-bit mixing function. */
uint64_t sim_mix64(uint64_t x);

/* FNV-1a, 64-bit, of a NUL-terminated string. */
uint64_t sim_hash_str(const char *s);

/* The seed of stream (name, index) under master. */
uint64_t sim_rng_seed(uint64_t master, const char *name, uint64_t index);

/*
** Creates stream (name, index) under master in *rng.  Returns 0, or SIM_ENOMEM
** (with a message in err).  Release with sim_rng_fini.
*/
int sim_rng_init(struct sim_rng *rng, uint64_t master, const char *name,
		 uint64_t index, struct sim_err *err);

/* Frees the stream; accepts an rng that was never initialised if zeroed. */
void sim_rng_fini(struct sim_rng *rng);

/* A uniform double in [0, 1). */
double sim_rng_uniform(struct sim_rng *rng);

/* A uniform double in (0, 1): safe to take the logarithm of. */
double sim_rng_uniform_pos(struct sim_rng *rng);

/* An exponential variate with the given mean (gsl_ran_exponential). */
double sim_rng_exp(struct sim_rng *rng, double mean);

/* A uniform integer in [0, n), n >= 1 (gsl_rng_uniform_int). */
unsigned long sim_rng_int(struct sim_rng *rng, unsigned long n);

/*
** Turns GSL's abort-on-error handler off for the whole process, so GSL
** failures come back as status codes that callers check.  The command line
** and the test runner call it once at start-up.
*/
void sim_gsl_quiet(void);

#endif
