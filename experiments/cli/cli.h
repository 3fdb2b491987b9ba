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

/* "colosim: CMD: unknown WHAT 'WORD' (did you mean X? known: KNOWN)",
** the hint only when a known name is a likely typo (sim/suggest.h);
** known is "a, b, c".  Returns 2. */
int cli_unknown(const char *cmd, const char *what, const char *word,
		const char *known);

/* The one line for a command run without what it needs: "colosim: CMD:
** missing WHAT (usage: USAGE; see colosim CMD --help)"; returns 2. */
int cli_missing(const char *cmd, const char *what, const char *usage);

/*
** Options, from one table per subcommand: getopt_long parses them and the
** same table prints --help, so help and parsing cannot disagree.
**
** A table is an array of struct cli_opt ended by a row whose zHelp is NULL.
** An option is spelled --zLong and/or -cShort; zArg names its value in the
** help ("N", "FILE"), NULL for a flag.  zHelp may hold '\n': the lines after
** the first are indented under it.  -h and --help are added to every table.
*/
struct cli_opt {
	const char *zLong;    /* without "--"; NULL: short only */
	char cShort;          /* 0: long only */
	const char *zArg;     /* NULL: a flag */
	const char *zHelp;
};

struct cli_spec {
	const char *zCmd;     /* "replay", "list devices": prefixes messages */
	const char *zUsage;   /* the synopsis after "usage: " */
	const char *zAbout;   /* paragraphs between the synopsis and options */
	const struct cli_opt *opts;
	const char *zEpilog;  /* after the options; NULL for none */
};

/* Called for each option in command-line order with its index in the
** table and its value (NULL for a flag), and for each operand with index
** CLI_OPERAND.  Returns 0 to go on or an exit status to stop with (after
** printing its one line: cli_usage_error). */
#define CLI_OPERAND (-1)
typedef int (*cli_opt_fn)(void *ctx, int opt, char *value);

/*
** Parses argv[1 .. argc - 1] (argv[0] is the command) against spec.
** Returns 0 when every argument was handled; CLI_HELP after printing the
** help on stdout (the command then exits 0); or an exit status (2 with one
** line on stderr: "CMD: unknown option '--x' (did you mean --y? try
** --help)", "CMD: --x needs a value (N)", "CMD: --x takes no value"; or
** whatever fn returned).  Options may come before, between or after the
** operands; "--" ends the options; --KEY=VALUE works too.
*/
#define CLI_HELP (-2)
int cli_parse(const struct cli_spec *spec, int argc, char **argv,
	      cli_opt_fn fn, void *ctx);

/* Prints spec's help (usage, about, the option table, epilog) to f. */
void cli_help(const struct cli_spec *spec, FILE *f);

/* Prints each warning as "colosim: warning: KIND: MESSAGE" to stderr. */
struct exp_warnings;
void cli_print_warnings(const struct exp_warnings *w);

/* Value checks for option callbacks: parse with sim/num.h (whole string,
** no NaN or infinity, range [lo, hi]); 0, or -1 when malformed or out of
** range (the caller prints its message). */
int cli_parse_double(const char *s, double lo, double hi, double *out);
int cli_parse_u64(const char *s, unsigned long long lo,
		  unsigned long long hi, unsigned long long *out);

#endif
