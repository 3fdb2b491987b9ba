/*
** manifest.c: reading and checking traces/manifest.csv (see manifest.h).
**
** The CSV goes through the importers' reader (import_csv.h), so its
** errors name file:line:column like every other input.  A file path must
** stay under the fetch folder: relative, no empty, "." or ".." parts, no
** backslashes; this is what keeps a manifest from writing elsewhere.
*/
#include "traces/manifest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/datadir.h"
#include "traces/import_csv.h"

#define MF_NCOLS 10

static const char *const mf_cols[MF_NCOLS] = {
	"trace", "file", "kind", "repo", "commit", "path", "url", "sha256",
	"bytes", "licence"
};
enum { C_TRACE, C_FILE, C_KIND, C_REPO, C_COMMIT, C_PATH, C_URL, C_SHA,
       C_BYTES, C_LICENCE };

struct mf_load {
	struct trace_manifest *m;
	size_t cap;
	int col[MF_NCOLS];
};

static void file_fini(struct trace_file *f)
{
	free(f->trace);
	free(f->file);
	free(f->repo);
	free(f->commit);
	free(f->path);
	free(f->url);
	free(f->licence);
}

void trace_manifest_fini(struct trace_manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nfiles; i++)
		file_fini(&m->files[i]);
	free(m->files);
	free(m->path);
	m->files = NULL;
	m->nfiles = 0;
	m->path = NULL;
}

/* A field as text: "" when empty; err names a required one left empty. */
static int field(const struct imp_row *r, const struct mf_load *L, int c,
		 int required, const char **s, struct sim_err *err)
{
	int rc = imp_field(r, L->col[c], mf_cols[c], s, err);

	if (rc != 0)
		return rc;
	if (*s == NULL) {
		if (required)
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: "
					   "missing", r->path, r->line,
					   L->col[c] + 1, mf_cols[c]);
		*s = "";
	}
	return 0;
}

/* 1 when p is a relative path of plain parts (no "", ".", ".."). */
static int safe_path(const char *p)
{
	const char *s = p;

	if (*p == '\0' || *p == '/' || strchr(p, '\\') != NULL)
		return 0;
	while (*s != '\0') {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') ||
		    (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		s += n;
		if (*s == '/')
			s++;
		if (e != NULL && *s == '\0')
			return 0;       /* trailing slash */
	}
	return 1;
}

static int is_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' &&
		    *s != '.')
			return 0;
	return 1;
}

static int check_row(const struct imp_row *r, const struct mf_load *L,
		     struct trace_file *f, struct sim_err *err)
{
	const char *s[MF_NCOLS];
	int64_t bytes;
	int present, c, rc;
	size_t i;

	for (c = 0; c < MF_NCOLS; c++) {
		int req = c != C_PATH && c != C_URL;
		if ((rc = field(r, L, c, req, &s[c], err)) != 0)
			return rc;
	}
	if (!is_name(s[C_TRACE]))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: trace: expected "
				   "letters, digits, '-', '_', '.', got '%s'",
				   r->path, r->line, L->col[C_TRACE] + 1,
				   s[C_TRACE]);
	if (!safe_path(s[C_FILE]))
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: file: expected "
				   "a relative path without '.', '..' or "
				   "empty parts, got '%s'", r->path, r->line,
				   L->col[C_FILE] + 1, s[C_FILE]);
	if (strcmp(s[C_KIND], "upstream") == 0) {
		f->derived = 0;
		if (*s[C_URL] == '\0' || *s[C_PATH] == '\0')
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: %s: "
					   "missing (an upstream file needs "
					   "path and url)", r->path, r->line,
					   L->col[*s[C_PATH] ? C_URL : C_PATH]
					   + 1, *s[C_PATH] ? "url" : "path");
	} else if (strcmp(s[C_KIND], "derived") == 0) {
		f->derived = 1;
	} else {
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: kind: expected "
				   "upstream or derived, got '%s'", r->path,
				   r->line, L->col[C_KIND] + 1, s[C_KIND]);
	}
	if (strlen(s[C_SHA]) != 64)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: sha256: "
				   "expected 64 hex digits, got '%s'", r->path,
				   r->line, L->col[C_SHA] + 1, s[C_SHA]);
	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[C_SHA][i]))
			return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: "
					   "sha256: expected 64 hex digits, "
					   "got '%s'", r->path, r->line,
					   L->col[C_SHA] + 1, s[C_SHA]);
	if ((rc = imp_get_i64(r, L->col[C_BYTES], "bytes", &bytes, &present,
			      err)) != 0)
		return rc;
	if (bytes <= 0)
		return sim_err_set(err, SIM_EPARSE, "%s:%ld:%d: bytes: expected "
				   "a size > 0, got '%s'", r->path, r->line,
				   L->col[C_BYTES] + 1, s[C_BYTES]);
	for (i = 0; i < 64; i++)
		f->sha256[i] = (char)tolower((unsigned char)s[C_SHA][i]);
	f->sha256[64] = '\0';
	f->bytes = (uint64_t)bytes;
	f->line = r->line;
	f->trace = strdup(s[C_TRACE]);
	f->file = strdup(s[C_FILE]);
	f->repo = strdup(s[C_REPO]);
	f->commit = strdup(s[C_COMMIT]);
	f->path = strdup(s[C_PATH]);
	f->url = strdup(s[C_URL]);
	f->licence = strdup(s[C_LICENCE]);
	if (!f->trace || !f->file || !f->repo || !f->commit || !f->path ||
	    !f->url || !f->licence)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	return 0;
}

static int on_row(void *ctx, const struct imp_row *r, struct sim_err *err)
{
	struct mf_load *L = ctx;
	struct trace_manifest *m = L->m;
	struct trace_file *f;
	size_t i;
	int c, rc;

	if (r->index == 0) {
		for (c = 0; c < MF_NCOLS; c++)
			if ((rc = imp_col_req(r, mf_cols[c], &L->col[c],
					      err)) != 0)
				return rc;
		return 0;
	}
	if (m->nfiles == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 32;
		struct trace_file *nf = realloc(m->files, cap * sizeof *nf);
		if (nf == NULL)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		m->files = nf;
		L->cap = cap;
	}
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof *f);
	rc = check_row(r, L, f, err);
	if (rc == 0)
		for (i = 0; i < m->nfiles; i++)
			if (strcmp(m->files[i].file, f->file) == 0) {
				rc = sim_err_set(err, SIM_EEXIST, "%s:%ld:%d: "
						 "file: '%s' is listed twice "
						 "(first on line %ld)", r->path,
						 r->line, L->col[C_FILE] + 1,
						 f->file, m->files[i].line);
				break;
			}
	if (rc != 0) {
		file_fini(f);
		return rc;
	}
	m->nfiles++;
	return 0;
}

int trace_manifest_load(struct trace_manifest *m, const char *path,
			struct sim_err *err)
{
	struct mf_load L;
	int rc;

	memset(m, 0, sizeof *m);
	memset(&L, 0, sizeof L);
	L.m = m;
	rc = imp_csv_each(path, on_row, &L, err);
	if (rc == 0 && m->nfiles == 0)
		rc = sim_err_set(err, SIM_EPARSE, "%s: no files listed", path);
	if (rc == 0 && (m->path = strdup(path)) == NULL)
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (rc != 0)
		trace_manifest_fini(m);
	return rc;
}

int trace_manifest_find(const char *given, char *out, size_t n,
			struct sim_err *err)
{
	const struct sim_datadir q = {
		"trace manifest", given, "--manifest", "COLOSIM_TRACE_MANIFEST",
		"traces/manifest.csv", "traces/manifest.csv", NULL, NULL
	};

	return sim_datadir_find(&q, out, n, err);
}

size_t trace_manifest_names(const struct trace_manifest *m,
			    const char **names, size_t max)
{
	size_t i, j, k = 0;

	for (i = 0; i < m->nfiles; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(m->files[j].trace, m->files[i].trace) == 0)
				break;
		if (j < i)
			continue;
		if (k < max)
			names[k] = m->files[i].trace;
		k++;
	}
	return k;
}

/* Levenshtein distance of a and b, case-insensitive, capped at 63. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];

	if (la > 63)
		la = 63;
	if (lb > 63)
		lb = 63;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) ==
				      tolower((unsigned char)b[j - 1]) ? 0 : 1;
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int trace_manifest_check(const struct trace_manifest *m, const char *name,
			 struct sim_err *err)
{
	const char *names[64], *best = NULL, *prefixed = NULL;
	char known[400];
	size_t nn, i, d, bestd = (size_t)-1, len = 0, nprefixed = 0;
	size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;

	nn = trace_manifest_names(m, names, 64);
	if (nn > 64)
		nn = 64;
	for (i = 0; i < nn; i++)
		if (strcmp(names[i], name) == 0)
			return 0;
	known[0] = '\0';
	for (i = 0; i < nn; i++) {
		int w = snprintf(known + len, sizeof known - len, "%s%s",
				 i ? ", " : "", names[i]);
		if (w > 0 && (size_t)w < sizeof known - len)
			len += (size_t)w;
		if (*name != '\0' &&
		    strncasecmp(names[i], name, strlen(name)) == 0) {
			prefixed = names[i];
			nprefixed++;
		}
		d = edit_distance(name, names[i]);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	if (nprefixed == 1)
		best = prefixed;
	else if (bestd > limit)
		best = NULL;
	if (best != NULL)
		return sim_err_set(err, SIM_ENOENT, "unknown trace '%s' (did "
				   "you mean '%s'? known: %s)", name, best,
				   known);
	return sim_err_set(err, SIM_ENOENT, "unknown trace '%s' (known: %s)",
			   name, known);
}
