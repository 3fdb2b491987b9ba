/*
** fetch.c: downloading and verifying the manifest's files (see fetch.h).
**
** One libcurl easy handle per file.  The body streams into a temporary
** file beside the destination while Nettle's SHA-256 runs over it; a body
** longer than the manifest's size is cut off at once (a wrong URL serving
** a large page costs nothing).  Only a file whose size and digest match is
** renamed into place, so a destination is never partial or unverified.
**
** Protocols are limited to http, https and file (redirects: http and
** https only); a transfer slower than 1 byte/s for 60 s, or a connection
** not made in 30 s, fails instead of hanging.
*/
#include "traces/fetch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <nettle/sha2.h>

#include "sim/version.h"

#define FETCH_PATH_MAX 4096

static void to_hex(const uint8_t *d, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * n] = '\0';
}

int trace_sha256_file(const char *path, char hex[65], uint64_t *bytes,
		      struct sim_err *err)
{
	struct sha256_ctx ctx;
	uint8_t digest[SHA256_DIGEST_SIZE];
	unsigned char buf[1 << 16];
	uint64_t total = 0;
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return sim_err_set(err, errno == ENOENT ? SIM_ENOENT : SIM_EIO,
				   "%s: cannot open: %s", path,
				   strerror(errno));
	sha256_init(&ctx);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		sha256_update(&ctx, n, buf);
		total += n;
	}
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		return sim_err_set(err, SIM_EIO, "%s: read error: %s", path,
				   strerror(e));
	}
	fclose(f);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
	to_hex(digest, SHA256_DIGEST_SIZE, hex);
	if (bytes != NULL)
		*bytes = total;
	return 0;
}

/* Appends s to out (length *len, size n), %-escaping each part between
** slashes with libcurl; -1 when it does not fit or memory runs out. */
static int append_escaped(char *out, size_t *len, size_t n, const char *s)
{
	while (*s != '\0') {
		const char *e = strchr(s, '/');
		size_t seg = e ? (size_t)(e - s) : strlen(s);
		char *esc = seg > 0 ? curl_easy_escape(NULL, s, (int)seg) :
			    NULL;
		int w;

		if (seg > 0 && esc == NULL)
			return -1;
		w = snprintf(out + *len, n - *len, "%s%s", esc ? esc : "",
			     e ? "/" : "");
		curl_free(esc);
		if (w < 0 || (size_t)w >= n - *len)
			return -1;
		*len += (size_t)w;
		s += seg + (e ? 1 : 0);
	}
	return 0;
}

int trace_fetch_url(const struct trace_file *f, const char *mirror,
		    char *out, size_t n, struct sim_err *err)
{
	char abs[FETCH_PATH_MAX];
	size_t len = 0, ml;
	int w;

	if (mirror == NULL || *mirror == '\0') {
		if (f->derived)
			return sim_err_set(err, SIM_ENOENT, "%s: a derived file "
					   "(made by running %s at %s), on no "
					   "upstream: fetch it from a mirror "
					   "(--mirror DIR or "
					   "COLOSIM_TRACE_MIRROR; "
					   "docs/TRACES.md)", f->file,
					   f->repo, f->commit);
		if (snprintf(out, n, "%s", f->url) >= (int)n)
			return sim_err_set(err, SIM_ERANGE, "%s: URL too long",
					   f->file);
		return 0;
	}
	if (strstr(mirror, "://") != NULL) {
		ml = strlen(mirror);
		while (ml > 0 && mirror[ml - 1] == '/')
			ml--;
		w = snprintf(out, n, "%.*s/", (int)ml, mirror);
	} else {
		struct stat sb;
		if (stat(mirror, &sb) != 0)
			return sim_err_set(err, SIM_ENOENT, "%s: cannot open "
					   "the mirror folder: %s", mirror,
					   strerror(errno));
		if (!S_ISDIR(sb.st_mode))
			return sim_err_set(err, SIM_ENOENT, "%s: the mirror is "
					   "not a folder (nor a URL)", mirror);
		if (mirror[0] == '/') {
			snprintf(abs, sizeof abs, "%s", mirror);
		} else if (getcwd(abs, sizeof abs) == NULL ||
			   strlen(abs) + strlen(mirror) + 2 > sizeof abs) {
			return sim_err_set(err, SIM_ERANGE, "%s: mirror path "
					   "too long", mirror);
		} else {
			strcat(abs, "/");
			strcat(abs, mirror);
		}
		w = snprintf(out, n, "file://");
		if (w > 0 && (size_t)w < n) {
			len = (size_t)w;
			if (append_escaped(out, &len, n, abs) != 0)
				w = -1;
			else
				w = snprintf(out + len, n - len, "/");
		}
	}
	if (w < 0 || (size_t)w >= n - len)
		return sim_err_set(err, SIM_ERANGE, "%s: mirror URL too long",
				   f->file);
	len += (size_t)w;
	if (append_escaped(out, &len, n, f->file) != 0)
		return sim_err_set(err, SIM_ERANGE, "%s: mirror URL too long",
				   f->file);
	return 0;
}

/* Creates the folders above path (like mkdir -p of its dirname). */
static int make_parents(const char *path, struct sim_err *err)
{
	char dir[FETCH_PATH_MAX];
	char *p;

	snprintf(dir, sizeof dir, "%s", path);
	p = strrchr(dir, '/');
	if (p == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0777) != 0 && errno != EEXIST)
				return sim_err_set(err, SIM_EIO, "%s: cannot "
						   "create the folder: %s",
						   dir, strerror(errno));
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

struct sink {
	FILE *f;
	struct sha256_ctx sha;
	uint64_t bytes, limit;
	int too_big;
	int write_errno;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
	struct sink *s = ud;
	size_t n = size * nmemb;

	if (s->bytes + n > s->limit) {
		s->too_big = 1;
		return 0;
	}
	if (fwrite(p, 1, n, s->f) != n) {
		s->write_errno = errno ? errno : EIO;
		return 0;
	}
	sha256_update(&s->sha, n, (const uint8_t *)p);
	s->bytes += n;
	return n;
}

/* Downloads url into the open file s->f; 0 or an error naming url. */
static int download(const struct trace_file *f, const char *url,
		    const char *tmp, struct sink *s, struct sim_err *err)
{
	char ebuf[CURL_ERROR_SIZE] = "";
	CURL *h;
	CURLcode rc;

	h = curl_easy_init();
	if (h == NULL)
		return sim_err_set(err, SIM_ELIB, "%s: curl_easy_init failed",
				   url);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "colosim/" COLOSIM_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	rc = curl_easy_perform(h);
	curl_easy_cleanup(h);
	if (s->too_big)
		return sim_err_set(err, SIM_EPARSE, "%s: size mismatch: "
				   "expected %llu bytes, got more (from %s)",
				   f->file, (unsigned long long)f->bytes,
				   url);
	if (s->write_errno != 0)
		return sim_err_set(err, SIM_EIO, "%s: write failed: %s", tmp,
				   strerror(s->write_errno));
	if (rc != CURLE_OK)
		return sim_err_set(err, SIM_EIO, "%s: %s", url,
				   ebuf[0] ? ebuf : curl_easy_strerror(rc));
	return 0;
}

int trace_fetch_file(const struct trace_file *f,
		     const struct trace_fetch_opts *o,
		     enum trace_fetch_status *status, struct sim_err *err)
{
	char dest[FETCH_PATH_MAX], tmp[FETCH_PATH_MAX], url[FETCH_PATH_MAX];
	char hex[65];
	uint8_t digest[SHA256_DIGEST_SIZE];
	enum trace_fetch_status st = TRACE_FETCH_GOT;
	struct sink s;
	struct stat sb;
	const char *base;
	uint64_t have;
	int fd, rc;

	if (snprintf(dest, sizeof dest, "%s/%s", o->dir, f->file) >=
	    (int)sizeof dest)
		return sim_err_set(err, SIM_ERANGE, "%s/%s: path too long",
				   o->dir, f->file);
	if (stat(dest, &sb) == 0) {
		if (!S_ISREG(sb.st_mode))
			return sim_err_set(err, SIM_EINVAL, "%s: exists and is "
					   "not a regular file", dest);
		if ((uint64_t)sb.st_size == f->bytes) {
			if ((rc = trace_sha256_file(dest, hex, &have,
						    err)) != 0)
				return rc;
			if (strcmp(hex, f->sha256) == 0) {
				if (status != NULL)
					*status = TRACE_FETCH_PRESENT;
				if (o->progress != NULL)
					o->progress(o->progress_ctx, f,
						    TRACE_FETCH_PRESENT, NULL);
				return 0;
			}
		}
		st = TRACE_FETCH_REPLACED;
	}
	if ((rc = trace_fetch_url(f, o->mirror, url, sizeof url, err)) != 0)
		return rc;
	if ((rc = make_parents(dest, err)) != 0)
		return rc;
	base = strrchr(dest, '/') + 1;
	if (snprintf(tmp, sizeof tmp, "%.*s.%s.part-XXXXXX",
		     (int)(base - dest), dest, base) >= (int)sizeof tmp)
		return sim_err_set(err, SIM_ERANGE, "%s: path too long", dest);
	fd = mkstemp(tmp);
	if (fd < 0)
		return sim_err_set(err, SIM_EIO, "%s: cannot create: %s", tmp,
				   strerror(errno));
	memset(&s, 0, sizeof s);
	s.f = fdopen(fd, "wb");
	if (s.f == NULL) {
		close(fd);
		unlink(tmp);
		return sim_err_set(err, SIM_EIO, "%s: cannot open: %s", tmp,
				   strerror(errno));
	}
	sha256_init(&s.sha);
	s.limit = f->bytes;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fclose(s.f);
		unlink(tmp);
		return sim_err_set(err, SIM_ELIB, "curl_global_init failed");
	}
	rc = download(f, url, tmp, &s, err);
	curl_global_cleanup();
	if (fclose(s.f) != 0 && rc == 0)
		rc = sim_err_set(err, SIM_EIO, "%s: write failed: %s", tmp,
				 strerror(errno));
	if (rc == 0 && s.bytes != f->bytes)
		rc = sim_err_set(err, SIM_EPARSE, "%s: size mismatch: expected "
				 "%llu bytes, got %llu (from %s)", f->file,
				 (unsigned long long)f->bytes,
				 (unsigned long long)s.bytes, url);
	if (rc == 0) {
		sha256_digest(&s.sha, SHA256_DIGEST_SIZE, digest);
		to_hex(digest, SHA256_DIGEST_SIZE, hex);
		if (strcmp(hex, f->sha256) != 0)
			rc = sim_err_set(err, SIM_EPARSE, "%s: checksum "
					 "mismatch: expected %s, got %s (from "
					 "%s)", f->file, f->sha256, hex, url);
	}
	if (rc == 0 && chmod(tmp, 0644) != 0)
		rc = sim_err_set(err, SIM_EIO, "%s: chmod: %s", tmp,
				 strerror(errno));
	if (rc == 0 && rename(tmp, dest) != 0)
		rc = sim_err_set(err, SIM_EIO, "%s: cannot rename to %s: %s",
				 tmp, dest, strerror(errno));
	if (rc != 0) {
		unlink(tmp);
		return rc;
	}
	if (status != NULL)
		*status = st;
	if (o->progress != NULL)
		o->progress(o->progress_ctx, f, st, url);
	return 0;
}

int trace_fetch(const struct trace_manifest *m, const char *name,
		const struct trace_fetch_opts *o, struct sim_err *err)
{
	size_t i;
	int rc;

	if ((rc = trace_manifest_check(m, name, err)) != 0)
		return rc;
	for (i = 0; i < m->nfiles; i++) {
		if (strcmp(m->files[i].trace, name) != 0)
			continue;
		if ((rc = trace_fetch_file(&m->files[i], o, NULL, err)) != 0)
			return rc;
	}
	return 0;
}
