/*
** manifest.h: the manifest of the public traces the importers read
** (traces/manifest.csv; docs/TRACES.md, "Getting the public traces").
**
** One CSV record per file, with the header
**
**   trace,file,kind,repo,commit,path,url,sha256,bytes,licence
**
**   trace    the name `colosim traces fetch NAME` takes (several files)
**   file     where the file lies under the fetch folder (and under a
**            mirror): a relative path without "." or ".." parts
**   kind     upstream (published at url) or derived (made from upstream
**            data by running a program; on no upstream, fetched from a
**            mirror only)
**   repo     GitHub owner/name of the upstream (for derived files: the
**            program that made them)
**   commit   the commit the file was taken from (for derived: the
**            program's commit)
**   path     the file's path in repo at commit ("" for derived)
**   url      where it downloads from: GitHub raw at that commit ("" for
**            derived)
**   sha256   64 lower-case hex digits: the file's SHA-256
**   bytes    its size
**   licence  its terms of use
**
** Every field is checked when the manifest is read; an error names
** file:line:column and the field.  A manifest owns its strings; free it
** with trace_manifest_fini.
*/
#ifndef COLOSIM_TRACES_MANIFEST_H
#define COLOSIM_TRACES_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

struct trace_file {
	char *trace;
	char *file;
	int derived;              /* kind: 0 upstream, 1 derived */
	char *repo;
	char *commit;
	char *path;               /* "" for derived */
	char *url;                /* "" for derived */
	char sha256[65];          /* lower-case hex, NUL-terminated */
	uint64_t bytes;
	char *licence;
	long line;                /* in the manifest */
};

struct trace_manifest {
	char *path;               /* the manifest read */
	struct trace_file *files; /* in manifest order */
	size_t nfiles;
};

/*
** Reads the manifest at path into *m (overwritten; on failure left empty,
** nothing to free).  Errors: SIM_ENOENT (no file), SIM_EPARSE
** ("path:line:col: field: ..."), SIM_EEXIST (a file listed twice),
** SIM_ENOMEM.
*/
int trace_manifest_load(struct trace_manifest *m, const char *path,
			struct sim_err *err);
void trace_manifest_fini(struct trace_manifest *m);

/*
** The manifest's path into out (size n): given (a --manifest value) when
** not NULL, else $COLOSIM_TRACE_MANIFEST, else the first that exists of
** ./traces/manifest.csv, the binary's checkout, the binary's prefix
** (share/colosim/traces/manifest.csv) and the compiled-in prefix
** (sim/datadir.h).  0 or SIM_ENOENT naming them all.
*/
int trace_manifest_find(const char *given, char *out, size_t n,
			struct sim_err *err);

/*
** The distinct trace names of m in manifest order into names (at most
** max; borrowed from m); returns how many there are (may exceed max).
*/
size_t trace_manifest_names(const struct trace_manifest *m,
			    const char **names, size_t max);

/*
** 0 when m lists a trace called name; else SIM_ENOENT with "unknown trace
** 'NAME' (did you mean 'X'? known: a, b, ...)" (the suggestion only when
** one name is close).
*/
int trace_manifest_check(const struct trace_manifest *m, const char *name,
			 struct sim_err *err);

#endif
