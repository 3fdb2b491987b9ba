/*
** file.c: opening input files with one clear error (see file.h).
*/
#include "sim/file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sim_fopen_in(FILE **out, const char *path, const char *mode,
		 const char *what, struct sim_err *err)
{
	const char *sep = what != NULL && what[0] ? " " : "";
	struct stat st;
	FILE *f;
	int e, code;

	if (what == NULL)
		what = "";
	*out = NULL;
	f = fopen(path, mode);
	if (f != NULL) {
		if (fstat(fileno(f), &st) != 0 || !S_ISDIR(st.st_mode)) {
			*out = f;
			return 0;
		}
		fclose(f);
		return sim_err_set(err, SIM_EINVAL, "%s: cannot open%s%s: is a "
				   "directory, expected a file", path, sep,
				   what);
	}
	e = errno;
	code = e == ENOENT || e == ENOTDIR ? SIM_ENOENT :
		e == EACCES || e == EISDIR || e == EPERM ? SIM_EINVAL : SIM_EIO;
	return sim_err_set(err, code, "%s: cannot open%s%s: %s", path, sep,
			   what, strerror(e));
}

int sim_path_literal(const char *path, char *out, size_t n, const char *what,
		     struct sim_err *err)
{
	const char *p, *pre;
	int w;

	if (what == NULL)
		what = "path";
	if (path == NULL || path[0] == '\0')
		return sim_err_set(err, SIM_EINVAL, "%s: empty", what);
	for (p = path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return sim_err_set(err, SIM_EINVAL, "%s: a control "
					   "character at position %d: expected "
					   "a plain file name", what,
					   (int)(p - path) + 1);
	pre = path[0] == '/' || strncmp(path, "./", 2) == 0 ||
	      strncmp(path, "../", 3) == 0 ? "" : "./";
	w = snprintf(out, n, "%s%s", pre, path);
	if (w < 0 || (size_t)w >= n)
		return sim_err_set(err, SIM_EINVAL, "%s: longer than %zu "
				   "characters", what, n > 3 ? n - 3 : 0);
	return 0;
}

int sim_out_tmpname(const char *path, char *out, size_t n)
{
	int w = snprintf(out, n, "%s.tmp.%ld", path, (long)getpid());

	return w < 0 || (size_t)w >= n ? SIM_ENOSPC : 0;
}

int sim_out_commit(const char *tmp, const char *path, struct sim_err *err)
{
	if (rename(tmp, path) != 0) {
		int e = errno;
		remove(tmp);
		return sim_err_set(err, SIM_EIO, "%s: cannot write: %s", path,
				   strerror(e));
	}
	return 0;
}

void sim_out_abort(const char *tmp)
{
	remove(tmp);
}

FILE *sim_out_open(const char *path, char *tmp, size_t n,
		   struct sim_err *err)
{
	FILE *f;

	if (sim_out_tmpname(path, tmp, n) != 0) {
		sim_err_set(err, SIM_EINVAL, "%s: path too long", path);
		return NULL;
	}
	if ((f = fopen(tmp, "w")) == NULL)
		sim_err_set(err, SIM_EIO, "%s: cannot create: %s", path,
			    strerror(errno));
	return f;
}

int sim_out_close(FILE *f, const char *tmp, const char *path, int rc,
		  struct sim_err *err)
{
	int bad = ferror(f);

	if (fclose(f) != 0)
		bad = 1;
	if (rc == 0 && bad)
		rc = sim_err_set(err, SIM_EIO, "%s: write error: %s", path,
				 strerror(errno));
	if (rc != 0) {
		sim_out_abort(tmp);
		return rc;
	}
	return sim_out_commit(tmp, path, err);
}
