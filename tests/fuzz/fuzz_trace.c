/*
** fuzz_trace.c: the trace reader and validator (traces/trace.c) and the
** arrival processes of every service it accepts (traces/arrivals.c).
**
** Input: a trace file.  Every row is read (errors included: the reader
** goes on after a bad row); for each accepted inference row the arrival
** process is opened and drawn a bounded number of times.  Checks: every
** error is one clean line; an accepted row's times are in range; arrivals
** are non-decreasing and not before the service's submit time.
*/
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "sim/rng.h"
#include "traces/trace.h"

#define ROWS_MAX 2000
#define DRAWS_MAX 200

static void draw_arrivals(const struct trace_job *j, const char *dir)
{
	struct trace_arrivals *a = NULL;
	struct sim_rng rng;
	struct sim_err err;
	sim_time t, prev;
	int rc, k;

	sim_err_clear(&err);
	if (sim_rng_init(&rng, 1, "fuzz", 0, &err) != 0)
		return;
	rc = trace_arrivals_open(&a, j, dir, &rng, &err);
	fuzz_clean_error(rc, &err, "trace_arrivals_open");
	if (rc == 0) {
		prev = j->submit_ns;
		for (k = 0; k < DRAWS_MAX; k++) {
			sim_err_clear(&err);
			rc = trace_arrivals_next(a, &t, &err);
			fuzz_clean_error(rc, &err, "trace_arrivals_next");
			if (rc <= 0)
				break;
			FUZZ_CHECK(t >= prev);
			prev = t;
		}
		trace_arrivals_close(a);
	}
	sim_rng_fini(&rng);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("t.csv", data, size);
	struct trace_reader *r = NULL;
	struct trace_job j;
	struct sim_err err;
	int rc, rows;

	sim_err_clear(&err);
	rc = trace_open(&r, path, &err);
	fuzz_clean_error(rc, &err, "trace_open");
	if (rc != 0) {
		FUZZ_CHECK(r == NULL);
		return 0;
	}
	for (rows = 0; rows < ROWS_MAX; rows++) {
		sim_err_clear(&err);
		rc = trace_next(r, &j, &err);
		fuzz_clean_error(rc, &err, "trace_next");
		if (rc == 0 || rc == SIM_EIO || rc == SIM_ENOMEM)
			break;
		if (rc < 0)
			continue;
		FUZZ_CHECK(j.submit_ns >= 0 && j.duration_ns >= 0);
		/* gpus 0: a CPU-only training job with a duration
		** (docs/TRACE_FORMAT.md) */
		FUZZ_CHECK(j.gpus >= 1 ||
			   (j.gpus == 0 && j.kind == TRACE_TRAIN &&
			    j.duration_ns > 0));
		FUZZ_CHECK(j.batch >= 1);
		FUZZ_CHECK(j.gpu_share > 0 && j.gpu_share <= 1);
		FUZZ_CHECK(memchr(j.id, '\0', sizeof j.id) != NULL);
		FUZZ_CHECK(memchr(j.arrival_arg, '\0',
				  sizeof j.arrival_arg) != NULL);
		if (j.kind == TRACE_INFER)
			draw_arrivals(&j, trace_dir(r));
	}
	trace_close(r);
	return 0;
}
