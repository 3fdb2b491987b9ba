/*
** fuzz_util.c: the private folder, input files and checks shared by the
** fuzz harnesses (see fuzz.h).
*/
#define _XOPEN_SOURCE 700
#include "tests/fuzz/fuzz.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/rng.h"

static char dir[256];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_dir(void)
{
	if (dir[0] != '\0')
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
	if (dir[0] == '\0') {
		const char *base = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/colosim-fuzz-XXXXXX",
			 base && *base ? base : "/tmp");
		if (mkdtemp(dir) == NULL) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(rm_dir);
		sim_gsl_quiet();
	}
	return dir;
}

const char *fuzz_file(const char *name, const void *data, size_t size)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ & 3];
	FILE *f;

	snprintf(p, sizeof buf[0], "%s/%s", fuzz_dir(), name);
	f = fopen(p, "wb");
	if (f == NULL || (size && fwrite(data, 1, size, f) != size) ||
	    fclose(f) != 0) {
		perror(p);
		abort();
	}
	return p;
}

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
	abort();
}

int fuzz_clean_error(int rc, const struct sim_err *err, const char *what)
{
	if (rc >= 0)
		return rc;
	if (rc <= SIM_E__LAST || err->code != rc || err->msg[0] == '\0' ||
	    strchr(err->msg, '\n') != NULL) {
		fprintf(stderr, "%s: unclean error: rc %d, err.code %d, msg "
			"'%s'\n", what, rc, err->code, err->msg);
		abort();
	}
	return rc;
}
