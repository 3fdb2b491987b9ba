/*
** cmd_gen.c: `colosim gen [--KEY VALUE]... [-o FILE]`: writes a synthetic
** trace (traces/gen.h) to FILE or stdout.  Same options and seed, same
** bytes.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "sim/file.h"
#include "traces/gen.h"

#define GEN_OPTS_MAX 48

/* The option table: every generator key (traces/gen.h, gen_keys) takes
** a value; then -o FILE. */
static struct cli_opt opts[GEN_OPTS_MAX];
static int o_file;

static const struct cli_spec spec = {
	"gen", "colosim gen [--KEY VALUE]... [-o FILE]",
	"Writes a synthetic trace in format v1 (docs/TRACE_FORMAT.md) to FILE "
	"or stdout.\nThe same options and seed give the same bytes.  Mixes are "
	"'value:weight,...'.", opts, NULL
};

static void build_opts(void)
{
	int i;

	for (i = 0; gen_keys[i][0] != NULL && i < GEN_OPTS_MAX - 2; i++) {
		opts[i].zLong = gen_keys[i][0];
		opts[i].cShort = 0;
		opts[i].zArg = "V";
		opts[i].zHelp = gen_keys[i][1];
	}
	o_file = i;
	opts[i].zLong = NULL;
	opts[i].cShort = 'o';
	opts[i].zArg = "FILE";
	opts[i].zHelp = "write to FILE (default stdout)";
	memset(&opts[i + 1], 0, sizeof opts[i + 1]);
}

struct gen_args {
	struct gen_opts o;
	const char *path;
	struct sim_err err;
};

static int on_opt(void *ctx, int opt, char *v)
{
	struct gen_args *a = ctx;

	if (opt == CLI_OPERAND)
		return cli_usage_error("gen: expected --KEY VALUE, got '%s' "
				       "(try --help)", v);
	if (opt == o_file) {
		a->path = v;
		return 0;
	}
	if (gen_set(&a->o, opts[opt].zLong, v, &a->err) < 0)
		return cli_usage_error("gen: %s", a->err.msg);
	return 0;
}

static int run(int argc, char **argv)
{
	struct gen_args a;
	FILE *out = stdout;
	char tmp[4200];
	int rc;

	memset(&a, 0, sizeof a);
	gen_defaults(&a.o);
	sim_err_clear(&a.err);
	build_opts();
	if ((rc = cli_parse(&spec, argc, argv, on_opt, &a)) != 0)
		return rc == CLI_HELP ? 0 : rc;
	/* -o: written under a temporary name and renamed once complete, so
	** a failure (a full disk) leaves no truncated trace behind */
	if (a.path != NULL &&
	    (out = sim_out_open(a.path, tmp, sizeof tmp, &a.err)) == NULL)
		return cli_report(&a.err);
	a.o.out_path = a.path;
	rc = gen_write(out, &a.o, &a.err);
	if (rc == SIM_EIO)    /* gen_write does not know the file's name */
		snprintf(a.err.msg, sizeof a.err.msg, "%s: write error: %s",
			 a.path ? a.path : "stdout", strerror(errno));
	if (a.path != NULL)
		rc = sim_out_close(out, tmp, a.path, rc, &a.err);
	else if (fflush(stdout) != 0 && rc == 0) {
		rc = sim_err_set(&a.err, SIM_EIO, "stdout: write error");
	}
	if (rc < 0)
		return cli_report(&a.err);
	return 0;
}

const struct cli_cmd cli_cmd_gen = {
	"gen", "write a synthetic trace (seeded, reproducible)", run
};
