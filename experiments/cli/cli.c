/*
** cli.c: helpers shared by the subcommands (see cli.h): messages, the
** table-driven option parser over getopt_long and the help printed from
** the same table, value checks over sim/num.h.
*/
#include "experiments/cli/cli.h"

#include "experiments/warn.h"

#include <assert.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim/num.h"
#include "sim/suggest.h"

#define CLI_OPTS_MAX 64
#define LONG_BASE 1000        /* getopt_long's code of table row i */

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("colosim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int cli_missing(const char *cmd, const char *what, const char *usage)
{
	return cli_usage_error("%s: missing %s (usage: %s; see colosim %s "
			       "--help)", cmd, what, usage, cmd);
}

int cli_unknown(const char *cmd, const char *what, const char *word,
		const char *known)
{
	char hint[96];

	sim_did_you_mean(word, known, hint, sizeof hint);
	return cli_usage_error("%s: unknown %s '%s' (%sknown: %s)", cmd, what,
			       word, hint, known);
}

int cli_report(const struct sim_err *err)
{
	fprintf(stderr, "colosim: %s\n",
		err->msg[0] ? err->msg : sim_strerror(err->code));
	switch (err->code) {
	case SIM_EPARSE: case SIM_ENOENT: case SIM_EINVAL: case SIM_ERANGE:
	case SIM_EVERSION:
		return 2;
	default:
		return 1;
	}
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
	return sim_num_double(s, NULL, lo, hi, out, NULL) ? -1 : 0;
}

int cli_parse_u64(const char *s, unsigned long long lo,
		  unsigned long long hi, unsigned long long *out)
{
	uint64_t v;

	if (sim_num_u64(s, NULL, lo, hi, &v, NULL) != 0)
		return -1;
	*out = v;
	return 0;
}

/* ---- help ---- */

static int opt_count(const struct cli_opt *t)
{
	int n = 0;

	while (t != NULL && t[n].zHelp != NULL)
		n++;
	return n;
}

/* "-o, --output OUT", "--json", "-j N" */
static void spelled(const struct cli_opt *o, char *buf, size_t n)
{
	if (o->cShort && o->zLong)
		snprintf(buf, n, "-%c, --%s%s%s", o->cShort, o->zLong,
			 o->zArg ? " " : "", o->zArg ? o->zArg : "");
	else if (o->cShort)
		snprintf(buf, n, "-%c%s%s", o->cShort, o->zArg ? " " : "",
			 o->zArg ? o->zArg : "");
	else
		snprintf(buf, n, "--%s%s%s", o->zLong, o->zArg ? " " : "",
			 o->zArg ? o->zArg : "");
}

/* One row: the spelling padded to width, then the help, whose further
** lines are indented under its first. */
static void help_row(FILE *f, const char *sp, const char *help, int width)
{
	const char *p = help;

	if ((int)strlen(sp) > width)
		fprintf(f, "  %s\n  %-*s  ", sp, width, "");
	else
		fprintf(f, "  %-*s  ", width, sp);
	for (;;) {
		size_t len = strcspn(p, "\n");
		fprintf(f, "%.*s\n", (int)len, p);
		if (p[len] == '\0')
			break;
		p += len + 1;
		fprintf(f, "  %-*s  ", width, "");
	}
}

void cli_help(const struct cli_spec *spec, FILE *f)
{
	const struct cli_opt *t = spec->opts;
	char sp[96];
	int i, n = opt_count(t), width = 10;

	fprintf(f, "usage: %s\n", spec->zUsage);
	if (spec->zAbout != NULL)
		fprintf(f, "\n%s\n", spec->zAbout);
	for (i = 0; i < n; i++) {
		spelled(&t[i], sp, sizeof sp);
		if ((int)strlen(sp) > width && strlen(sp) <= 22)
			width = (int)strlen(sp);
	}
	fprintf(f, "\noptions:\n");
	for (i = 0; i < n; i++) {
		spelled(&t[i], sp, sizeof sp);
		help_row(f, sp, t[i].zHelp, width);
	}
	help_row(f, "-h, --help", "print this help", width);
	if (spec->zEpilog != NULL)
		fprintf(f, "\n%s\n", spec->zEpilog);
}

/* ---- parsing ---- */

/* The table row whose long name is closest to arg ("--polcy=x"), if
** close enough to be a likely typo; -1 otherwise. */
static int nearest(const struct cli_opt *t, const char *arg)
{
	const char *name = arg + strspn(arg, "-");
	size_t len = strcspn(name, "=");
	int i, best = -1, bd = 9;

	for (i = 0; i < opt_count(t); i++) {
		int d;
		if (t[i].zLong == NULL)
			continue;
		d = sim_edit_distance(name, len, t[i].zLong,
				      strlen(t[i].zLong), 9);
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return sim_typo_close(len, bd) ? best : -1;
}

static int bad_option(const struct cli_spec *spec, const char *arg,
		      int code)
{
	const struct cli_opt *t = spec->opts;
	int k;

	if (code >= LONG_BASE)      /* a flag given "=VALUE" */
		return cli_usage_error("%s: --%s takes no value", spec->zCmd,
				       t[code - LONG_BASE].zLong);
	if (code > 0 && code != '?')
		return cli_usage_error("%s: unknown option '-%c' (try --help)",
				       spec->zCmd, code);
	k = nearest(t, arg);
	if (k >= 0)
		return cli_usage_error("%s: unknown option '%s' (did you mean "
				       "--%s? try --help)", spec->zCmd, arg,
				       t[k].zLong);
	return cli_usage_error("%s: unknown option '%s' (try --help)",
			       spec->zCmd, arg);
}

static int needs_value(const struct cli_spec *spec, int code)
{
	const struct cli_opt *t = spec->opts;
	int i;

	if (code >= LONG_BASE) {
		i = code - LONG_BASE;
		return cli_usage_error("%s: --%s needs a value (%s)",
				       spec->zCmd, t[i].zLong, t[i].zArg);
	}
	for (i = 0; i < opt_count(t); i++)
		if (t[i].cShort == code)
			return cli_usage_error("%s: -%c needs a value (%s)",
					       spec->zCmd, code, t[i].zArg);
	return cli_usage_error("%s: -%c needs a value", spec->zCmd, code);
}

/* getopt_long's tables from spec's: long options coded LONG_BASE + row,
** "-:" first (operands in order as code 1; ':' for a missing value). */
static void build_tables(const struct cli_opt *t, struct option *lo,
			 char *shorts)
{
	int i, k = 0, n = opt_count(t);
	char *p = shorts;

	assert(n <= CLI_OPTS_MAX);
	*p++ = '-';
	*p++ = ':';
	for (i = 0; i < n; i++) {
		if (t[i].zLong != NULL) {
			lo[k].name = t[i].zLong;
			lo[k].has_arg = t[i].zArg ? required_argument :
				       no_argument;
			lo[k].flag = NULL;
			lo[k++].val = LONG_BASE + i;
		}
		if (t[i].cShort) {
			*p++ = t[i].cShort;
			if (t[i].zArg)
				*p++ = ':';
		}
	}
	lo[k].name = "help";
	lo[k].has_arg = no_argument;
	lo[k].flag = NULL;
	lo[k++].val = 'h';
	memset(&lo[k], 0, sizeof lo[k]);
	*p++ = 'h';
	*p = '\0';
}

/* The table row of short option c, or -1. */
static int short_row(const struct cli_opt *t, int c)
{
	int i;

	for (i = 0; i < opt_count(t); i++)
		if (t[i].cShort == c)
			return i;
	return -1;
}

int cli_parse(const struct cli_spec *spec, int argc, char **argv,
	      cli_opt_fn fn, void *ctx)
{
	struct option lo[CLI_OPTS_MAX + 2];
	char shorts[3 * CLI_OPTS_MAX + 4];
	int c, i, rc = 0;

	build_tables(spec->opts, lo, shorts);
	opterr = 0;
	optind = 0;                   /* glibc: start afresh */
	while (rc == 0 &&
	       (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 1)
			rc = fn(ctx, CLI_OPERAND, optarg);
		else if (c == 'h') {
			cli_help(spec, stdout);
			return CLI_HELP;
		} else if (c >= LONG_BASE)
			rc = fn(ctx, c - LONG_BASE, optarg);
		else if (c == '?')
			return bad_option(spec, argv[optind - 1], optopt);
		else if (c == ':')
			return needs_value(spec, optopt);
		else if ((i = short_row(spec->opts, c)) >= 0)
			rc = fn(ctx, i, optarg);
		else
			return bad_option(spec, argv[optind - 1], c);
	}
	for (i = optind; rc == 0 && i < argc; i++)  /* after "--" */
		rc = fn(ctx, CLI_OPERAND, argv[i]);
	return rc;
}

void cli_print_warnings(const struct exp_warnings *w)
{
	size_t i;

	for (i = 0; w != NULL && i < w->n; i++)
		fprintf(stderr, "colosim: warning: %s: %s\n",
			exp_warn_name(w->v[i].kind), w->v[i].msg);
}
