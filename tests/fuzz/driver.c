/*
** driver.c: a main for the fuzz harnesses without libFuzzer (see fuzz.h):
** feeds every file named on the command line (a folder: each file in it)
** to LLVMFuzzerTestOneInput once and prints how many ran.  make check runs
** each harness so over its seeds and tests/fuzz/regress/NAME/, so every
** crash the fuzzers found stays fixed in every build, sanitizers or not.
*/
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Inputs larger than this are a mistake in the corpus. */
#define DRIVER_MAX_INPUT (16u << 20)

static int feed(const char *path, long *n)
{
	struct stat st;
	unsigned char *buf;
	FILE *f;
	size_t len;

	if (stat(path, &st) != 0 || st.st_size > (off_t)DRIVER_MAX_INPUT) {
		fprintf(stderr, "%s: cannot read (or larger than %u bytes)\n",
			path, DRIVER_MAX_INPUT);
		return 1;
	}
	buf = malloc((size_t)st.st_size + 1);
	f = fopen(path, "rb");
	if (buf == NULL || f == NULL) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(buf);
		if (f != NULL)
			fclose(f);
		return 1;
	}
	len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	(*n)++;
	return 0;
}

static int feed_dir(const char *path, long *n)
{
	struct dirent **ents;
	int k, m, bad = 0;

	m = scandir(path, &ents, NULL, alphasort);
	if (m < 0) {
		fprintf(stderr, "%s: cannot list\n", path);
		return 1;
	}
	for (k = 0; k < m; k++) {
		char p[1024];
		struct stat st;

		if (ents[k]->d_name[0] != '.') {
			snprintf(p, sizeof p, "%s/%s", path, ents[k]->d_name);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				bad |= feed(p, n);
		}
		free(ents[k]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	long n = 0;
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			bad |= feed_dir(argv[i], &n);
		else
			bad |= feed(argv[i], &n);
	}
	printf("%s: %ld inputs\n", argv[0], n);
	return bad;
}
