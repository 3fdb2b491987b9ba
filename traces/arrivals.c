/*
** arrivals.c: the request arrival process of an inference service
** (trace.h, trace_arrivals_*; docs/TRACE_FORMAT.md "Arrival processes").
**
** Yields non-decreasing absolute arrival times, one per call, so memory is
** constant in the number of requests:
**   poisson  exponential gaps of mean 1/rate from the service's submit time;
**   rates    a non-homogeneous Poisson process with piecewise-constant
**            rate, drawn exactly by inversion: a unit exponential E is
**            spent across segments (E -= rate * segment length) until one
**            holds it;
**   file     timestamps in seconds (absolute simulated time), one per
**            line, non-decreasing, not before submit; blank lines and
**            '#' comments skipped.  A request file is the same with the
**            header t_s,prompt_tokens,output_tokens first and three fields
**            per line: each arrival then carries its token counts
**            (trace_arrivals_next_req).
** Arrivals stop at submit + duration when the service has a duration.
** Time is integer nanoseconds: gaps are rounded to the nanosecond and
** added as integers (never t += dt in floating point).  Draws come only
** from the caller's stream, one unit exponential per arrival.
*/
#include "traces/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/csv.h"
#include "sim/num.h"

struct trace_arrivals {
	enum trace_arrival kind;
	struct sim_rng *rng;          /* borrowed */
	sim_time submit_ns, end_ns, t_ns;
	double rate_per_s;
	struct trace_rate seg[TRACE_RATES_MAX];
	sim_time seg_ns[TRACE_RATES_MAX];   /* absolute segment starts */
	int nseg, iseg;
	struct sim_csv *csv;          /* TRACE_ARR_FILE */
	char path[600];
	int tokens;                   /* -1 before the first record, then
					 1 for a request file, 0 for times */
	int done;
};

static sim_time gap_ns(double s)
{
	double ns = s * 1e9;

	if (!(ns < 9e18))
		return SIM_TIME_MAX;
	return (sim_time)llround(ns);
}

int trace_arrivals_open(struct trace_arrivals **out,
			const struct trace_job *job, const char *trace_dir,
			struct sim_rng *rng, struct sim_err *err)
{
	struct trace_arrivals *a;
	int i, n;

	*out = NULL;
	if (job->kind == TRACE_TRAIN)
		return sim_err_set(err, SIM_EINVAL, "job '%s' is not an "
				   "inference service", job->id);
	a = calloc(1, sizeof *a);
	if (a == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	a->kind = job->arrival;
	a->rng = rng;
	a->submit_ns = job->submit_ns;
	a->t_ns = job->submit_ns;
	a->end_ns = job->duration_ns > 0 ?
		sim_time_add_sat(job->submit_ns, job->duration_ns) :
		SIM_TIME_MAX;
	switch (job->arrival) {
	case TRACE_ARR_POISSON:
		if (!(job->rate_per_s > 0) || rng == NULL)
			goto inval;
		a->rate_per_s = job->rate_per_s;
		break;
	case TRACE_ARR_RATES:
		if (rng == NULL)
			goto inval;
		n = trace_parse_rates(job->arrival_arg, a->seg,
				      TRACE_RATES_MAX, err);
		if (n < 0) {
			free(a);
			return n;
		}
		a->nseg = n;
		for (i = 0; i < n; i++)
			a->seg_ns[i] = sim_time_add_sat(job->submit_ns,
						gap_ns(a->seg[i].from_s));
		a->iseg = -1;     /* before the first segment: rate 0 */
		break;
	case TRACE_ARR_FILE:
		if (job->arrival_arg[0] == '/' || trace_dir == NULL)
			snprintf(a->path, sizeof a->path, "%s",
				 job->arrival_arg);
		else
			snprintf(a->path, sizeof a->path, "%s/%s", trace_dir,
				 job->arrival_arg);
		{
			char what[160];
			int rc;
			snprintf(what, sizeof what, "the arrival file of '%.64s' "
				 "(line %ld)", job->id, job->line);
			if ((rc = sim_csv_open(&a->csv, a->path, what,
					       SIM_CSV_COMMENTS, NULL,
					       err)) != 0) {
				free(a);
				return rc;
			}
		}
		a->tokens = -1;
		break;
	default:
		goto inval;
	}
	*out = a;
	return 0;
inval:
	free(a);
	return sim_err_set(err, SIM_EINVAL, "service '%s' (line %ld): no "
			   "valid arrival process%s", job->id, job->line,
			   rng == NULL ? " or no random stream" : "");
}

/* Next arrival of a piecewise-constant-rate process, by inversion. */
static int next_rates(struct trace_arrivals *a, sim_time *t)
{
	double e = -log(sim_rng_uniform_pos(a->rng));   /* Exp(1) */

	for (;;) {
		double rate = a->iseg < 0 ? 0 : a->seg[a->iseg].rate_per_s;
		sim_time end = a->iseg + 1 < a->nseg ? a->seg_ns[a->iseg + 1] :
			SIM_TIME_MAX;
		if (rate > 0) {
			double cap = end == SIM_TIME_MAX ? HUGE_VAL :
				rate * (double)(end - a->t_ns) * 1e-9;
			if (e <= cap) {
				a->t_ns = sim_time_add_sat(a->t_ns,
						gap_ns(e / rate));
				if (a->t_ns > end)     /* rounding at the edge */
					a->t_ns = end;
				*t = a->t_ns;
				return 1;
			}
			e -= cap;
		}
		if (end == SIM_TIME_MAX)
			return 0;         /* the last rate is 0: done */
		a->t_ns = end;
		a->iseg++;
	}
}

/* Token count k of a request file's record into *out. */
static int req_tokens(struct trace_arrivals *a, const struct sim_csv_rec *rec,
		      int k, int *out, struct sim_err *err)
{
	static const char *const name[3] = { "t_s", "prompt_tokens",
					      "output_tokens" };

	if (sim_num_int(rec->f[k], NULL, 1, TRACE_TOKENS_MAX, out, NULL))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected "
				   "an integer in [1, %d], got '%.40s'",
				   a->path, rec->line, rec->col[k], name[k],
				   TRACE_TOKENS_MAX, rec->f[k]);
	return 0;
}

/* The next request of an arrival file: one time per record, or, after
** the header of a request file, a time and two token counts (blank lines
** and '#' comments skipped by the reader). */
static int next_file(struct trace_arrivals *a, struct trace_req *q,
		     struct sim_err *err)
{
	struct sim_csv_rec rec;
	sim_time v;
	int rc = sim_csv_next(a->csv, &rec, err), nf;

	if (rc > 0 && a->tokens < 0) {
		a->tokens = rec.nf == 3 && strcmp(rec.f[0], "t_s") == 0;
		if (a->tokens) {
			if (strcmp(rec.f[1], "prompt_tokens") != 0 ||
			    strcmp(rec.f[2], "output_tokens") != 0)
				return sim_err_set(err, SIM_EPARSE, "%s:%ld:1: "
						   "header: expected '%s'",
						   a->path, rec.line,
						   TRACE_REQ_HEADER);
			rc = sim_csv_next(a->csv, &rec, err);
		}
	}
	if (rc <= 0)
		return rc;
	nf = a->tokens ? 3 : 1;
	if (rec.nf != nf)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: arrival: "
				   "expected %s per line, got %d fields",
				   a->path, rec.line, sim_csv_col(&rec, nf),
				   a->tokens ? "a time and two token counts "
				   "(t_s,prompt_tokens,output_tokens)" :
				   "one time in seconds", rec.nf);
	if (sim_num_secs(rec.f[0], NULL, 0, SIM_NUM_TIME_MAX_S, &v, NULL))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: "
				   "expected seconds in [0, %.10g], got "
				   "'%.40s'", a->path, rec.line, rec.col[0],
				   a->tokens ? "t_s" : "arrival",
				   SIM_NUM_TIME_MAX_S, rec.f[0]);
	if (v < a->t_ns)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: "
				   "expected a time >= %.9g s (arrivals are "
				   "sorted and not before the service's submit "
				   "time), got %.9g", a->path, rec.line,
				   rec.col[0], a->tokens ? "t_s" : "arrival",
				   sim_time_to_s(a->t_ns), sim_time_to_s(v));
	q->line = rec.line;
	if (a->tokens) {
		if ((rc = req_tokens(a, &rec, 1, &q->prompt_tokens, err)) ||
		    (rc = req_tokens(a, &rec, 2, &q->output_tokens, err)))
			return rc;
		q->col_prompt = rec.col[1];
		q->col_output = rec.col[2];
	}
	a->t_ns = v;
	q->t_ns = v;
	return 1;
}

int trace_arrivals_next_req(struct trace_arrivals *a, struct trace_req *q,
			    struct sim_err *err)
{
	int rc;

	memset(q, 0, sizeof *q);
	if (a->done)
		return 0;
	switch (a->kind) {
	case TRACE_ARR_POISSON:
		a->t_ns = sim_time_add_sat(a->t_ns, gap_ns(
			sim_rng_exp(a->rng, 1.0 / a->rate_per_s)));
		q->t_ns = a->t_ns;
		rc = 1;
		break;
	case TRACE_ARR_RATES:
		rc = next_rates(a, &q->t_ns);
		break;
	case TRACE_ARR_FILE:
		rc = next_file(a, q, err);
		break;
	default:
		rc = 0;
	}
	if (rc == 1 && (q->t_ns > a->end_ns || q->t_ns == SIM_TIME_MAX))
		rc = 0;
	if (rc <= 0)
		a->done = 1;
	return rc;
}

int trace_arrivals_next(struct trace_arrivals *a, sim_time *t,
			struct sim_err *err)
{
	struct trace_req q;
	int rc = trace_arrivals_next_req(a, &q, err);

	if (rc == 1)
		*t = q.t_ns;
	return rc;
}

const char *trace_arrivals_path(const struct trace_arrivals *a)
{
	return a->path;
}

void trace_arrivals_close(struct trace_arrivals *a)
{
	if (a == NULL)
		return;
	sim_csv_close(a->csv);
	free(a);
}
