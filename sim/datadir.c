/*
** datadir.c: finding colosim's data files wherever the binary runs (see
** datadir.h for the order).
**
** The binary's own path comes from /proc/self/exe (Linux); where that
** cannot be read, candidates 4 and 5 are left out and the others still
** work.  Nothing is cached: each call looks again, so a test that changes
** the environment or the current directory sees the change.
*/
#include "sim/datadir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef COLOSIM_PREFIX
#define COLOSIM_PREFIX "/usr/local"
#endif

#define DATADIR_MAX_CAND 4
#define DATADIR_PATH_MAX 4096

const char *sim_datadir_prefix(void)
{
	return COLOSIM_PREFIX;
}

/* ROOT, the folder above the binary's folder, into root (size n): 0, or -1
** when the binary's path is unknown or has no folder. */
static int exe_root(const char *exe, char *root, size_t n)
{
	char buf[DATADIR_PATH_MAX];
	char *slash;
	ssize_t len;

	if (exe != NULL) {
		if (snprintf(buf, sizeof buf, "%s", exe) >= (int)sizeof buf)
			return -1;
	} else {
		len = readlink("/proc/self/exe", buf, sizeof buf - 1);
		if (len <= 0)
			return -1;
		buf[len] = '\0';
	}
	slash = strrchr(buf, '/');          /* strip the binary's name */
	if (slash == NULL)
		return -1;
	*slash = '\0';
	slash = strrchr(buf, '/');          /* strip its folder */
	if (slash == NULL)
		snprintf(buf, sizeof buf, ".");
	else
		*slash = '\0';
	if (snprintf(root, n, "%s", buf) >= (int)n)
		return -1;
	return 0;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int sim_datadir_find(const struct sim_datadir *q, char *out, size_t n,
		     struct sim_err *err)
{
	char cand[DATADIR_MAX_CAND][DATADIR_PATH_MAX];
	char root[DATADIR_PATH_MAX];
	char tried[SIM_ERR_MSG_MAX];
	const char *prefix = q->prefix != NULL ? q->prefix : COLOSIM_PREFIX;
	const char *env = q->env != NULL ? getenv(q->env) : NULL;
	const char *pick = NULL;
	size_t nc = 0, i, len;

	if (q->given != NULL)
		pick = q->given;
	else if (env != NULL && *env != '\0')
		pick = env;
	if (pick != NULL) {
		if (!exists(pick))
			return sim_err_set(err, SIM_ENOENT, "%s: no such file "
					   "or directory (the %s named by %s)",
					   pick, q->what, pick == q->given ?
					   q->option : q->env);
		if (snprintf(out, n, "%s", pick) >= (int)n)
			return sim_err_set(err, SIM_ERANGE, "%.64s...: path "
					   "too long", pick);
		return 0;
	}
	/* A candidate too long for its buffer is left out. */
	if (snprintf(cand[nc], DATADIR_PATH_MAX, "%s", q->checkout) <
	    DATADIR_PATH_MAX)
		nc++;
	if (exe_root(q->exe, root, sizeof root) == 0) {
		if (snprintf(cand[nc], DATADIR_PATH_MAX, "%s/%s", root,
			     q->checkout) < DATADIR_PATH_MAX)
			nc++;
		if (snprintf(cand[nc], DATADIR_PATH_MAX, "%s/share/colosim/%s",
			     root, q->share) < DATADIR_PATH_MAX)
			nc++;
	}
	if (*prefix != '\0' &&
	    snprintf(cand[nc], DATADIR_PATH_MAX, "%s/share/colosim/%s",
		     prefix, q->share) < DATADIR_PATH_MAX &&
	    (nc == 0 || strcmp(cand[nc], cand[nc - 1]) != 0))
		nc++;
	for (i = 0; i < nc; i++) {
		if (exists(cand[i])) {
			if (snprintf(out, n, "%s", cand[i]) >= (int)n)
				return sim_err_set(err, SIM_ERANGE, "%.64s...: "
						   "path too long", cand[i]);
			return 0;
		}
	}
	tried[0] = '\0';
	for (i = 0, len = 0; i < nc && len < sizeof tried; i++) {
		int w = snprintf(tried + len, sizeof tried - len, "%s%s%s",
				 i ? ", " : "", cand[i][0] == '/' ? "" : "./",
				 cand[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return sim_err_set(err, SIM_ENOENT, "no %s found: %s not given, %s "
			   "not set, and none of %s exists (give %s or set "
			   "%s)", q->what, q->option, q->env, tried,
			   q->option, q->env);
}
