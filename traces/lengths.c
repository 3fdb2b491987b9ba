/*
** lengths.c: named distributions of request sizes in tokens (lengths.h).
** Numbers through sim/num.h; draws through GSL on the caller's stream.
*/
#include "traces/lengths.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim/num.h"
#include "traces/trace.h"

static int bad(const char *s, struct sim_err *err)
{
	return sim_err_set(err, SIM_EINVAL, "expected const:N, uniform:LO:HI, "
			   "lognormal:MEDIAN:SIGMA or exp:MEAN (N, LO, HI, "
			   "MEDIAN, MEAN in [1, %d], LO <= HI, SIGMA in "
			   "[0, 10]), got '%.40s'", TRACE_TOKENS_MAX, s);
}

int trace_len_parse(const char *s, struct trace_len_dist *out,
		    struct sim_err *err)
{
	char buf[64], *p[3];
	int n = 0, k;
	size_t len = strlen(s);

	memset(out, 0, sizeof *out);
	if (len == 0 || len >= sizeof buf)
		return bad(s, err);
	memcpy(buf, s, len + 1);
	p[n++] = buf;
	for (k = 0; buf[k]; k++)
		if (buf[k] == ':') {
			if (n == 3)
				return bad(s, err);
			buf[k] = '\0';
			p[n++] = &buf[k + 1];
		}
	snprintf(out->text, sizeof out->text, "%s", s);
	if (strcmp(p[0], "const") == 0 && n == 2)
		out->kind = TRACE_LEN_CONST;
	else if (strcmp(p[0], "uniform") == 0 && n == 3)
		out->kind = TRACE_LEN_UNIFORM;
	else if (strcmp(p[0], "lognormal") == 0 && n == 3)
		out->kind = TRACE_LEN_LOGNORMAL;
	else if (strcmp(p[0], "exp") == 0 && n == 2)
		out->kind = TRACE_LEN_EXP;
	else
		return bad(s, err);
	if (sim_num_double(p[1], NULL, 1, TRACE_TOKENS_MAX, &out->a, NULL))
		return bad(s, err);
	if (n == 3 && sim_num_double(p[2], NULL,
				     out->kind == TRACE_LEN_UNIFORM ? 1 : 0,
				     out->kind == TRACE_LEN_UNIFORM ?
				     TRACE_TOKENS_MAX : 10, &out->b, NULL))
		return bad(s, err);
	if (out->kind == TRACE_LEN_UNIFORM &&
	    (out->a != floor(out->a) || out->b != floor(out->b) ||
	     out->b < out->a))
		return bad(s, err);
	if (out->kind == TRACE_LEN_CONST && out->a != floor(out->a))
		return bad(s, err);
	return 0;
}

int trace_len_draw(const struct trace_len_dist *d, struct sim_rng *rng)
{
	double v;

	switch (d->kind) {
	case TRACE_LEN_UNIFORM:
		v = d->a + (double)sim_rng_int(rng, (unsigned long)(d->b -
							      d->a + 1));
		break;
	case TRACE_LEN_LOGNORMAL:
		v = gsl_ran_lognormal(rng->r, log(d->a), d->b);
		break;
	case TRACE_LEN_EXP:
		v = sim_rng_exp(rng, d->a);
		break;
	default:
		v = d->a;
	}
	v = floor(v + 0.5);
	if (!(v >= 1))
		return 1;
	return v > TRACE_TOKENS_MAX ? TRACE_TOKENS_MAX : (int)v;
}
