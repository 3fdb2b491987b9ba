/*
** fetch.h: downloading the files of traces/manifest.csv and checking them
** against their SHA-256 (docs/TRACES.md, "Getting the public traces").
**
** Downloads go through libcurl (https for the upstreams, file:// for a
** local mirror, http(s) for a mirror server); digests through Nettle.  A
** file is written to a temporary name beside its destination, checked
** (size and SHA-256) and only then renamed into place, so the destination
** is either absent or verified: an interrupted or corrupted download
** never leaves a partial file.  A destination already present with the
** right digest is not downloaded again.
**
** A mirror is a folder laid out like the fetch folder (FILE of the
** manifest under it: ../shared/traces is one) or a URL prefix
** ("http://host/traces", "file:///srv/traces"): FILE is appended to it.
** Without a mirror, upstream files come from their url; derived files
** have none and need a mirror.
*/
#ifndef COLOSIM_TRACES_FETCH_H
#define COLOSIM_TRACES_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"
#include "traces/manifest.h"

enum trace_fetch_status {
	TRACE_FETCH_GOT = 1,       /* downloaded and verified */
	TRACE_FETCH_PRESENT,       /* already there with the right digest */
	TRACE_FETCH_REPLACED       /* there with another digest: downloaded
				      again and verified, the old one replaced */
};

/* Told about each file when it is done (url: where it came from, NULL
** when already present). */
typedef void (*trace_fetch_fn)(void *ctx, const struct trace_file *f,
			       enum trace_fetch_status status,
			       const char *url);

struct trace_fetch_opts {
	const char *dir;           /* the fetch folder (created if missing) */
	const char *mirror;        /* NULL or "": the upstream urls */
	trace_fetch_fn progress;   /* NULL: silent */
	void *progress_ctx;
};

/*
** Fetches every file of trace name (see trace_manifest_check for an
** unknown name) into o->dir, stopping at the first failure; the files
** verified before it stay.  0, or:
**   SIM_ENOENT  unknown trace; a derived file without a mirror; a mirror
**               folder that does not exist
**   SIM_EIO     a download failed ("URL: curl's reason"), or a file or
**               folder could not be written
**   SIM_EPARSE  a download's size or SHA-256 differs from the manifest's
**               ("FILE: checksum mismatch: expected X, got Y (from URL)")
*/
int trace_fetch(const struct trace_manifest *m, const char *name,
		const struct trace_fetch_opts *o, struct sim_err *err);

/* The same for one file; *status (may be NULL) says what was done. */
int trace_fetch_file(const struct trace_file *f,
		     const struct trace_fetch_opts *o,
		     enum trace_fetch_status *status, struct sim_err *err);

/*
** The URL f is fetched from under mirror (NULL or "": f->url) into out
** (size n).  A mirror folder becomes a file:// URL of its absolute path.
** 0, SIM_ENOENT (derived file without a mirror; no such mirror folder) or
** SIM_ERANGE (too long).
*/
int trace_fetch_url(const struct trace_file *f, const char *mirror,
		    char *out, size_t n, struct sim_err *err);

/* SHA-256 of the file at path as 64 lower-case hex digits into hex, its
** size into *bytes (may be NULL).  0, SIM_ENOENT or SIM_EIO. */
int trace_sha256_file(const char *path, char hex[65], uint64_t *bytes,
		      struct sim_err *err);

#endif
