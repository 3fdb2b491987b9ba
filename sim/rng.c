/*
** rng.c: named GSL streams (see rng.h).  The generator is GSL's taus2
** (docs/MODEL.md, "Random streams" says why).
*/
#include "sim/rng.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

uint64_t sim_mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

uint64_t sim_hash_str(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

uint64_t sim_rng_seed(uint64_t master, const char *name, uint64_t index)
{
	uint64_t h = sim_mix64(master);

	h = sim_mix64(h ^ sim_hash_str(name));
	return sim_mix64(h ^ sim_mix64(index + UINT64_C(0x632be59bd9b4e019)));
}

int sim_rng_init(struct sim_rng *rng, uint64_t master, const char *name,
		 uint64_t index, struct sim_err *err)
{
	uint64_t seed = sim_rng_seed(master, name, index);
	unsigned long s32 = (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu);

	rng->seed = seed;
	rng->r = gsl_rng_alloc(gsl_rng_taus2);
	if (rng->r == NULL)
		return sim_err_set(err, SIM_ENOMEM,
				   "cannot allocate random stream %s[%llu]",
				   name, (unsigned long long)index);
	/* taus2 treats seed 0 as its default 1; keep streams distinct. */
	gsl_rng_set(rng->r, s32 ? s32 : 0x5eedu);
	return 0;
}

void sim_rng_fini(struct sim_rng *rng)
{
	if (rng->r != NULL)
		gsl_rng_free(rng->r);
	rng->r = NULL;
}

double sim_rng_uniform(struct sim_rng *rng)
{
	return gsl_rng_uniform(rng->r);
}

double sim_rng_uniform_pos(struct sim_rng *rng)
{
	return gsl_rng_uniform_pos(rng->r);
}

double sim_rng_exp(struct sim_rng *rng, double mean)
{
	return gsl_ran_exponential(rng->r, mean);
}

unsigned long sim_rng_int(struct sim_rng *rng, unsigned long n)
{
	return gsl_rng_uniform_int(rng->r, n);
}

void sim_gsl_quiet(void)
{
	gsl_set_error_handler_off();
}
