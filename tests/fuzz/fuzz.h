/*
** fuzz.h: what every fuzz harness (tests/fuzz/fuzz_NAME.c) shares.
**
** A harness is a libFuzzer target: LLVMFuzzerTestOneInput gets one input
** and must return 0; a crash, a sanitizer report, a leak, a timeout or a
** FUZZ_CHECK failure is a finding.  The same harness links two ways:
**   - with clang -fsanitize=fuzzer (make fuzz): libFuzzer's main mutates
**     the inputs;
**   - with tests/fuzz/driver.c (make check): a main that feeds each file
**     named on its command line once, so the seed corpora and the
**     regression inputs of tests/fuzz/regress/ run in every test build.
** The library reads files, so fuzz_file writes the input into a private
** temporary folder (removed at exit) and hands back its path.
*/
#ifndef COLOSIM_TESTS_FUZZ_FUZZ_H
#define COLOSIM_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The harness's private folder, created on first use. */
const char *fuzz_dir(void);

/* Writes data into fuzz_dir()/name (replacing it) and returns the path
** (a static buffer per name slot: up to 4 live at once). */
const char *fuzz_file(const char *name, const void *data, size_t size);

/*
** A failed call must leave one clean line: a negative SIM_E* code equal to
** err->code and a non-empty message without a line break.  Aborts (a
** finding) otherwise.  Returns rc.
*/
int fuzz_clean_error(int rc, const struct sim_err *err, const char *what);

/* Aborts with a message when cond is false (works under NDEBUG). */
#define FUZZ_CHECK(cond) \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))
void fuzz_fail(const char *file, int line, const char *what);

#endif
