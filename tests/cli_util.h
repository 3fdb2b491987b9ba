/*
** cli_util.h: running the built colosim binary from a suite (end-to-end
** tests of the command line: exit status and the one stderr line).
**
** The binary is COLOSIM_BIN (make check sets it to the binary of the same
** build; default build/colosim), run from the project root under
** `timeout 60`, so a hang is exit 124, not a stuck suite.
*/
#ifndef COLOSIM_TESTS_CLI_UTIL_H
#define COLOSIM_TESTS_CLI_UTIL_H

/* The binary under test. */
const char *tc_bin(void);

/* test_tmpdir()/name (a static buffer per slot: up to 4 live at once). */
const char *tc_tmp(const char *name);

/* Writes text to tc_tmp(name) and returns the path. */
const char *tc_put(const char *name, const char *text);

/*
** Runs `colosim ARGS` (a shell fragment; %T expands to the test folder)
** with stdin from /dev/null, stdout discarded; returns the exit status
** (-1 when killed) and points *err at its stderr (static, 4 KiB).
*/
int tc_run(const char *args, const char **err);

/*
** Runs a shell script (popen) in which %B expands to the binary's absolute
** path, %T to the test folder and %R to the project root; returns its
** exit status and points *err at what it wrote to stdout (static, 4 KiB:
** redirect 2>&1 to see stderr).
*/
int tc_sh(const char *script, const char **err);

/* The number of lines of s. */
int tc_lines(const char *s);

/*
** Asserts that `colosim ARGS` exits with code and writes exactly one
** stderr line holding each of has1 and has2 (NULL: anything).
*/
void tc_expect(const char *args, int code, const char *has1,
	       const char *has2);

#endif
