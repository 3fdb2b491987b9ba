/*
** cli.h: shared pieces of the colosim command line (experiments/cli/).
**
** The command line is the only layer that prints and exits.  Each
** subcommand lives in experiments/cli/cmd_NAME.c and defines
**
**     const struct cli_cmd cli_cmd_NAME = { "NAME", "one-line summary", fn };
**
** The Makefile collects the list from the file names (build/cli/cmds.inc),
** so a new subcommand is a new file.  fn(argc, argv) gets argv[0] == "NAME"
** and returns the process exit status: 0 success, 1 failure, 2 usage or
** input errors.
*/
#ifndef COLOSIM_SIM_CLI_H
#define COLOSIM_SIM_CLI_H

#include <stdio.h>

#include "sim/err.h"

typedef int (*cli_cmd_fn)(int argc, char **argv);

struct cli_cmd {
	const char *zName;
	const char *zSummary;
	cli_cmd_fn xRun;
};

/* Prints "colosim: MESSAGE" to stderr and returns 2 (for `return`). */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* Prints "colosim: <err->msg>" (or the code's text) and returns 1, or 2
** for input errors (SIM_EPARSE, SIM_ENOENT, SIM_EINVAL, SIM_ERANGE). */
int cli_report(const struct sim_err *err);

/* The one line for a command run without what it needs: "colosim: CMD:
** missing WHAT (usage: USAGE; see colosim CMD --help)"; returns 2. */
int cli_missing(const char *cmd, const char *what, const char *usage);

/* For option opt at argv[i] that should take a value: returns 0 when opt is
** one of names (NULL-terminated) and a value follows (i + 1 < argc); else
** prints "CMD: unknown option 'X' (try --help)" or "CMD: X needs a value"
** and returns 2. */
int cli_check_value(const char *cmd, const char *opt,
		    const char *const *names, int have_value);

/* Prints each warning as "colosim: warning: KIND: MESSAGE" to stderr. */
struct exp_warnings;
void cli_print_warnings(const struct exp_warnings *w);

/* Parses a whole decimal or floating value; 0 on success, -1 if malformed. */
int cli_parse_double(const char *s, double *out);
int cli_parse_u64(const char *s, unsigned long long *out);

#endif
