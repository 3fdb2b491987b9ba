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

/*
** Output files, written whole or not at all (docs/LIMITS.md):
**
** sim_path_literal copies path into out (n bytes) in a form that no
** program can read as anything but a file name: a relative path gets a
** leading "./", so it can never begin with '<' or '|' (gnuplot opens
** "<cmd" and "|cmd" as pipes), '-' (an option) or '~'.  Returns 0,
** SIM_EINVAL (with err) for an empty path or one holding a control
** character (a line break would end a gnuplot command) or one too long
** for out; what names the path in the message.
*/
int sim_path_literal(const char *path, char *out, size_t n, const char *what,
		     struct sim_err *err);

/*
** The temporary name of an output: "PATH.tmp.PID" into out (n bytes).
** Writers write there and sim_out_commit renames it onto path, so path
** is either the old file or the complete new one, never a truncated one;
** sim_out_abort removes the temporary after a failure.  0, or SIM_ENOSPC.
*/
int sim_out_tmpname(const char *path, char *out, size_t n);
int sim_out_commit(const char *tmp, const char *path, struct sim_err *err);
void sim_out_abort(const char *tmp);

/*
** The two together: sim_out_open opens path's temporary name (into tmp, n
** bytes) for writing, NULL with err set ("PATH: cannot create: REASON");
** sim_out_close closes it and, when rc is 0 and nothing failed while
** writing, renames it onto path, else removes it.  Returns rc, or the
** write or rename error.
*/
FILE *sim_out_open(const char *path, char *tmp, size_t n,
		   struct sim_err *err);
int sim_out_close(FILE *f, const char *tmp, const char *path, int rc,
		  struct sim_err *err);

#endif
