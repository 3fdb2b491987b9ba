/*
** file.h: opening input files with one clear error.
**
** fopen() succeeds on a directory (reads then fail with EISDIR) and says
** nothing about which input it was; sim_fopen_in checks both before any
** byte is read, so every reader reports "PATH: cannot open WHAT: REASON"
** the same way.  Codes: SIM_ENOENT (missing), SIM_EINVAL (a directory or
** no permission: a bad input, exit status 2), SIM_EIO (anything else).
*/
#ifndef COLOSIM_SIM_FILE_H
#define COLOSIM_SIM_FILE_H

#include <stdio.h>

#include "sim/err.h"

/* Opens path for reading ("r" or "rb") into *out; what names the input in
** the message ("trace", "config"; "" for none).  Returns 0, or a code with
** err set and *out NULL. */
int sim_fopen_in(FILE **out, const char *path, const char *mode,
		 const char *what, struct sim_err *err);

#endif
