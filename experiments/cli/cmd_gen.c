/*
** cmd_gen.c: `colosim gen [--KEY VALUE]... [-o FILE]`: writes a synthetic
** trace (traces/gen.h) to FILE or stdout.  Same options and seed, same
** bytes.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "experiments/cli/cli.h"
#include "traces/gen.h"

static void usage(FILE *f)
{
	int i;

	fprintf(f, "usage: colosim gen [--KEY VALUE]... [-o FILE]\n\n"
		   "Writes a synthetic trace in format v1 (docs/TRACE_FORMAT.md)"
		   " to FILE or stdout.\nThe same options and seed give the "
		   "same bytes.  Mixes are 'value:weight,...'.\n\n");
	for (i = 0; gen_keys[i][0] != NULL; i++)
		fprintf(f, "  --%-20s %s\n", gen_keys[i][0], gen_keys[i][1]);
	fprintf(f, "  -o FILE                write to FILE (default stdout)\n");
}

static int run(int argc, char **argv)
{
	struct gen_opts o;
	struct sim_err err;
	const char *path = NULL;
	FILE *out = stdout;
	int i, rc;

	gen_defaults(&o);
	sim_err_clear(&err);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			path = argv[++i];
			continue;
		}
		if (strncmp(argv[i], "--", 2) != 0)
			return cli_usage_error("gen: expected --KEY VALUE, got "
					       "'%s' (try --help)", argv[i]);
		if (i + 1 >= argc)
			return cli_usage_error("gen: %s needs a value",
					       argv[i]);
		if (gen_set(&o, argv[i] + 2, argv[i + 1], &err) < 0)
			return cli_usage_error("gen: %s", err.msg);
		i++;
	}
	if (path != NULL) {
		out = fopen(path, "w");
		if (out == NULL)
			return cli_usage_error("gen: %s: cannot create: %s",
					       path, strerror(errno)) - 1;
	}
	rc = gen_write(out, &o, &err);
	if (path != NULL && fclose(out) != 0 && rc == 0)
		rc = sim_err_set(&err, SIM_EIO, "%s: write error", path);
	if (rc < 0)
		return cli_report(&err);
	return 0;
}

const struct cli_cmd cli_cmd_gen = {
	"gen", "write a synthetic trace (seeded, reproducible)", run
};
