/*
** cli_util.c: running the built colosim binary from a suite (see
** cli_util.h).
*/
#define _XOPEN_SOURCE 700   /* realpath */
#include "tests/cli_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/util.h"

const char *tc_bin(void)
{
	const char *b = getenv("COLOSIM_BIN");

	return b && *b ? b : "build/colosim";
}

const char *tc_tmp(const char *name)
{
	static char buf[4][512];
	static int k;
	char *p = buf[k++ & 3];

	snprintf(p, sizeof buf[0], "%s/%s", test_tmpdir(), name);
	return p;
}

const char *tc_put(const char *name, const char *text)
{
	const char *p = tc_tmp(name);
	FILE *f = fopen(p, "w");

	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

int tc_sh(const char *script, const char **err)
{
	static char out[4096], root[4096];
	char cmd[8192], bin[4096], *d = cmd;
	const char *s;
	FILE *p;
	size_t n;
	int st;

	if (root[0] == '\0' && realpath(".", root) == NULL)
		snprintf(root, sizeof root, ".");
	if (realpath(tc_bin(), bin) == NULL)
		snprintf(bin, sizeof bin, "%s", tc_bin());
	for (s = script; *s && d < cmd + sizeof cmd - 4200; s++) {
		if (s[0] == '%' && (s[1] == 'T' || s[1] == 'B' ||
				    s[1] == 'R')) {
			d += snprintf(d, 4200, "%s", s[1] == 'T' ?
				      test_tmpdir() : s[1] == 'B' ? bin : root);
			s++;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	out[0] = '\0';
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	st = pclose(p);
	*err = out;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int tc_run(const char *args, const char **err)
{
	char script[6144];

	snprintf(script, sizeof script, "timeout 60 %%B %s 2>&1 >/dev/null "
		 "</dev/null", args);
	return tc_sh(script, err);
}

int tc_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

void tc_expect(const char *args, int code, const char *has1,
	       const char *has2)
{
	const char *err = "";
	int rc = tc_run(args, &err);
	int ok = rc == code && tc_lines(err) == 1 &&
		(has1 == NULL || strstr(err, has1) != NULL) &&
		(has2 == NULL || strstr(err, has2) != NULL);

	if (!ok)
		fprintf(stderr, "\n  colosim %.300s\n    exit %d (want %d), "
			"stderr: %s", args, rc, code, err);
	CU_ASSERT(ok);
}
