/*
** cli.c: helpers shared by the subcommands (see cli.h).
*/
#include "experiments/cli/cli.h"

#include "experiments/warn.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

int cli_check_value(const char *cmd, const char *opt,
		    const char *const *names, int have_value)
{
	size_t k;

	for (k = 0; names[k] != NULL; k++)
		if (strcmp(opt, names[k]) == 0)
			break;
	if (names[k] == NULL)
		return cli_usage_error("%s: unknown option '%s' (try --help)",
				       cmd, opt);
	if (!have_value)
		return cli_usage_error("%s: %s needs a value", cmd, opt);
	return 0;
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

int cli_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_u64(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (*s == '-' || *s == '\0')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

void cli_print_warnings(const struct exp_warnings *w)
{
	size_t i;

	for (i = 0; w != NULL && i < w->n; i++)
		fprintf(stderr, "colosim: warning: %s: %s\n",
			exp_warn_name(w->v[i].kind), w->v[i].msg);
}
