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
#define _XOPEN_SOURCE 700   /* realpath */
#include "traces/trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* 1 when path (resolved) is root or inside it (root resolved). */
static int inside(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '/' ||
					       path[n] == '\0');
}

/*
** The path of a service's arrival file, confined (docs/LIMITS.md,
** "Arrival files"): arrival_arg relative to the trace's folder, or
** absolute; with symbolic links and ".." resolved (realpath), it must lie
** inside the trace's folder or inside allow_dir (a folder the user named:
** --arrivals-dir, a config's arrivals_dir), and be a regular file (not a
** FIFO or a device such as /dev/zero).  So a trace from elsewhere cannot
** make colosim read /etc/shadow or block on /dev/stdin.  The message names
** the path as the trace gives it, never anything read from it.
*/
static int arrival_path(const struct trace_job *job, const char *trace_dir,
			const char *allow_dir, char *out, size_t n,
			const char *what, struct sim_err *err)
{
	char cand[4200], real[PATH_MAX], root[PATH_MAX];
	const char *arg = job->arrival_arg;
	struct stat st;

	if (trace_dir == NULL || trace_dir[0] == '\0')
		trace_dir = ".";
	if (arg[0] == '/')
		snprintf(cand, sizeof cand, "%s", arg);
	else
		snprintf(cand, sizeof cand, "%s/%s", trace_dir, arg);
	if (realpath(cand, real) == NULL) {
		int e = errno;
		return sim_err_set(err, e == ENOENT || e == ENOTDIR ?
				   SIM_ENOENT : SIM_EINVAL, "%s: cannot open "
				   "%s: %s", cand, what, strerror(e));
	}
	if (!((realpath(trace_dir, root) != NULL && inside(real, root)) ||
	      (allow_dir != NULL && realpath(allow_dir, root) != NULL &&
	       inside(real, root))))
		return sim_err_set(err, SIM_EINVAL, "%s: %s is outside the "
				   "trace's folder %s%s%s: arrival files are "
				   "read only there or in a folder named with "
				   "--arrivals-dir", arg, what, trace_dir,
				   allow_dir ? " and " : "",
				   allow_dir ? allow_dir : "");
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
		return sim_err_set(err, SIM_EINVAL, "%s: %s is not a regular "
				   "file", cand, what);
	if ((size_t)snprintf(out, n, "%s", cand) >= n)
		return sim_err_set(err, SIM_ERANGE, "%s: %s: path too long",
				   arg, what);
	return 0;
}

int trace_arrivals_open(struct trace_arrivals **out,
			const struct trace_job *job, const char *trace_dir,
			struct sim_rng *rng, struct sim_err *err)
{
	return trace_arrivals_open_in(out, job, trace_dir, NULL, rng, err);
}

int trace_arrivals_open_in(struct trace_arrivals **out,
			   const struct trace_job *job, const char *trace_dir,
			   const char *allow_dir, struct sim_rng *rng,
			   struct sim_err *err)
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
		{
			char what[160];
			int rc;
			snprintf(what, sizeof what, "the arrival file of '%.64s' "
				 "(line %ld)", job->id, job->line);
			if ((rc = arrival_path(job, trace_dir, allow_dir,
					       a->path, sizeof a->path, what,
					       err)) != 0 ||
			    (rc = sim_csv_open(&a->csv, a->path, what,
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

	/* the field is not shown (as the times) */
	if (sim_num_int(rec->f[k], NULL, 1, TRACE_TOKENS_MAX, out, NULL))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: expected "
				   "an integer in [1, %d]", a->path, rec->line,
				   rec->col[k], name[k], TRACE_TOKENS_MAX);
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
	/* the field is not shown: an arrival file is not the trace the user
	** gave, and only its position is needed to fix it */
	if (sim_num_secs(rec.f[0], NULL, 0, SIM_NUM_TIME_MAX_S, &v, NULL))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: "
				   "expected seconds in [0, %.10g] (a decimal "
				   "number)", a->path, rec.line, rec.col[0],
				   a->tokens ? "t_s" : "arrival",
				   SIM_NUM_TIME_MAX_S);
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

int trace_arrivals_open_ended(const struct trace_job *job)
{
	struct trace_rate seg[TRACE_RATES_MAX];
	int n;

	if (job->duration_ns > 0)
		return 0;
	if (job->arrival == TRACE_ARR_POISSON)
		return 1;
	if (job->arrival != TRACE_ARR_RATES)
		return 0;
	/* the reader checked the list; a bad one reads as ending */
	n = trace_parse_rates(job->arrival_arg, seg, TRACE_RATES_MAX, NULL);
	return n > 0 && seg[n - 1].rate_per_s > 0;
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
