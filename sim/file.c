/*
** file.c: opening input files with one clear error (see file.h).
*/
#include "sim/file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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
