/*
** fuzz_import.c: one importer (traces/import_*.c), named at build time by
** FUZZ_IMPORTER ("tiresias"): the Makefile builds one harness per entry of
** imp_formats[].
**
** Input: one upstream file.  The import writes into the harness's folder;
** an output that the import accepted must be a valid trace (every row
** passes the reader), which checks the importers' promise that their
** output satisfies the v1 field rules.
*/
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

#include "traces/import.h"
#include "traces/trace.h"

#ifndef FUZZ_IMPORTER
#define FUZZ_IMPORTER "tiresias"
#endif

#define ROWS_MAX 5000

static void check_output(const char *path)
{
	struct trace_reader *r = NULL;
	struct trace_job j;
	struct sim_err err;
	int rc, rows;

	sim_err_clear(&err);
	rc = trace_open(&r, path, &err);
	if (rc != 0)
		fprintf(stderr, "import output: %s\n", err.msg);
	FUZZ_CHECK(rc == 0);
	for (rows = 0; rows < ROWS_MAX; rows++) {
		sim_err_clear(&err);
		rc = trace_next(r, &j, &err);
		if (rc < 0)
			fprintf(stderr, "import output: %s\n", err.msg);
		FUZZ_CHECK(rc >= 0);
		if (rc == 0)
			break;
	}
	trace_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct imp_format *fmt = imp_find(FUZZ_IMPORTER);
	const char *in = fuzz_file("input.csv", data, size);
	const char *out = fuzz_file("out.csv", "", 0);
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	int rc;

	FUZZ_CHECK(fmt != NULL);
	imp_opts_init(&o);
	sim_err_clear(&err);
	rc = imp_run(fmt, &in, 1, out, NULL, &o, &st, &err);
	fuzz_clean_error(rc, &err, "imp_run");
	if (rc == 0)
		check_output(out);
	return 0;
}
