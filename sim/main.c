/*
** main.c: the colosim command line (placeholder front end, grows with the
** subcommands).
*/
#include <stdio.h>
#include <string.h>

#include "sim/rng.h"
#include "sim/version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: colosim COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  version            print the version\n"
		"  help               this text\n");
}

int main(int argc, char **argv)
{
	sim_gsl_quiet();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("colosim %s\n", COLOSIM_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "colosim: unknown command '%s' (try 'colosim help')\n",
		argv[1]);
	return 2;
}
