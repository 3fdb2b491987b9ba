/*
** cal_profile.c: writes fitted parameters into a device profile INI (see
** cal_profile_write in cal_fit.h).
**
** The existing file is read whole and rewritten line by line: inside the
** [device] section a line whose key (the text before '=' or ':', trimmed)
** is a fitted parameter is replaced; every other line is copied byte for
** byte.  Keys not found are inserted after the section's last non-blank
** line.  The output goes to a mkstemp file in the same directory, which is
** renamed over the target only once it is completely written and flushed,
** so a reader sees either the old file or the new one.
*/
#include "models/calibration/cal_fit.h"
#include "models/device.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outbuf {
	char *p;
	size_t n, cap;
	int oom;
};

static void put(struct outbuf *o, const char *s, size_t len)
{
	if (o->oom)
		return;
	if (o->n + len + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *q;

		while (o->n + len + 1 > cap)
			cap *= 2;
		q = realloc(o->p, cap);
		if (q == NULL) {
			o->oom = 1;
			return;
		}
		o->p = q;
		o->cap = cap;
	}
	memcpy(o->p + o->n, s, len);
	o->n += len;
	o->p[o->n] = '\0';
}

/* Copies s into dst, '@' and control characters turned into spaces. */
static void clean(char *dst, size_t cap, const char *s)
{
	size_t i;

	snprintf(dst, cap, "%s", s);
	for (i = 0; dst[i] != '\0'; i++)
		if (dst[i] == '@' || iscntrl((unsigned char)dst[i]))
			dst[i] = ' ';
}

static int integral_key(const char *name)
{
	size_t n = strlen(name);

	return (n > 3 && strcmp(name + n - 3, "_ns") == 0) ||
	       (n > 6 && strcmp(name + n - 6, "_bytes") == 0);
}

static void put_fit(struct outbuf *o, const struct cal_fit *f,
		    const char *date, const char *device)
{
	char line[512];

	if (isnan(f->r2))
		snprintf(line, sizeof line, integral_key(f->name) ?
			 "%s = %.0f @ measured %s %s\n" :
			 "%s = %.6g @ measured %s %s\n",
			 f->name, f->value, date, device);
	else
		snprintf(line, sizeof line, integral_key(f->name) ?
			 "%s = %.0f @ fitted %s %s r2=%.4f\n" :
			 "%s = %.6g @ fitted %s %s r2=%.4f\n",
			 f->name, f->value, date, device, f->r2);
	put(o, line, strlen(line));
}

/* The section name of a "[name]" line into sec; 1 if it is one. */
static int section_of(const char *line, size_t len, char *sec, size_t cap)
{
	const char *e = line + len;
	const char *s = line, *close;

	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e || *s != '[')
		return 0;
	close = memchr(s, ']', (size_t)(e - s));
	if (close == NULL)
		return 0;
	snprintf(sec, cap, "%.*s", (int)(close - s - 1), s + 1);
	return 1;
}

/* The key of a "key = value" line into key; 1 if it is one. */
static int key_of(const char *line, size_t len, char *key, size_t cap)
{
	const char *e = line + len, *s = line, *k;

	while (s < e && isspace((unsigned char)*s))
		s++;
	if (s == e || *s == ';' || *s == '#')
		return 0;
	for (k = s; k < e && *k != '=' && *k != ':'; k++)
		;
	if (k == e)
		return 0;
	while (k > s && isspace((unsigned char)k[-1]))
		k--;
	snprintf(key, cap, "%.*s", (int)(k - s), s);
	return 1;
}

static int blank(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)line[i]))
			return 0;
	return 1;
}

/* Reads the whole file; *text NULL (and 0 returned) if it does not exist. */
static int slurp(const char *path, char **text, size_t *len,
		 struct sim_err *err)
{
	FILE *f = fopen(path, "rb");
	struct outbuf o = { NULL, 0, 0, 0 };
	char chunk[4096];
	size_t got;

	*text = NULL;
	*len = 0;
	if (f == NULL) {
		if (errno == ENOENT)
			return 0;
		return sim_err_set(err, SIM_EIO, "%s: cannot read: %s", path,
				   strerror(errno));
	}
	/* a device profile: at most DEV_FILE_MAX bytes (-o /dev/zero would
	** otherwise be read until memory runs out) */
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		put(&o, chunk, got);
		if (o.n > DEV_FILE_MAX) {
			fclose(f);
			free(o.p);
			return sim_err_set(err, SIM_ERANGE, "%s: larger than %d "
					   "bytes (a device profile; docs/"
					   "LIMITS.md)", path, DEV_FILE_MAX);
		}
	}
	put(&o, "", 0);
	if (ferror(f) || o.oom) {
		fclose(f);
		free(o.p);
		return sim_err_set(err, o.oom ? SIM_ENOMEM : SIM_EIO,
				   "%s: cannot read the whole file", path);
	}
	fclose(f);
	*text = o.p;
	*len = o.n;
	return 0;
}

static int write_atomic(const char *path, const struct outbuf *o,
			mode_t mode, struct sim_err *err)
{
	char tmp[1100];
	FILE *f;
	int fd, bad;

	snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return sim_err_set(err, SIM_EIO, "%s: cannot create a temporary "
				   "file beside it: %s", path, strerror(errno));
	f = fdopen(fd, "wb");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		return sim_err_set(err, SIM_EIO, "%s: %s", tmp, strerror(errno));
	}
	bad = fwrite(o->p, 1, o->n, f) != o->n;
	bad |= fflush(f) != 0;
	bad |= fsync(fd) != 0;
	bad |= fchmod(fd, mode) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return sim_err_set(err, SIM_EIO, "%s: cannot write: %s", path,
				   strerror(e));
	}
	return 0;
}

int cal_profile_write(const char *path, const struct cal_result *res,
		      const char *date, const char *device, int all_keys,
		      int *fragment, struct sim_err *err)
{
	struct outbuf o = { NULL, 0, 0, 0 };
	char cdate[64], cdev[CAL_NAME_MAX], sec[128], key[CAL_NAME_MAX];
	char *text;
	size_t len, pos, i, insert_at = 0;
	int rc, in_dev = 0, have_dev = 0;
	int done[CAL_FIT_MAX] = { 0 };
	struct stat st;
	mode_t mode = 0644;

	clean(cdate, sizeof cdate, date);
	clean(cdev, sizeof cdev, device);
	*fragment = 0;
	rc = slurp(path, &text, &len, err);
	if (rc)
		return rc;
	if (text == NULL) {
		*fragment = 1;
		static const char head[] =
			"; A fragment of a device profile written by `colosim "
			"calibrate`:\n; merge these keys into the [device] "
			"section of a full profile.\n[device]\n";

		put(&o, head, sizeof head - 1);
		for (i = 0; i < res->n; i++)
			if (all_keys || res->fits[i].in_profile)
				put_fit(&o, &res->fits[i], cdate, cdev);
	} else {
		if (stat(path, &st) == 0)
			mode = st.st_mode & 07777;
		/* Pass 1: copy lines, replacing fitted keys in [device];
		** remember where the section's last non-blank line ends. */
		for (pos = 0; pos < len;) {
			const char *line = text + pos;
			const char *nl = memchr(line, '\n', len - pos);
			size_t ll = nl ? (size_t)(nl - line) + 1 : len - pos;
			int replaced = 0;

			if (section_of(line, ll, sec, sizeof sec)) {
				in_dev = strcmp(sec, "device") == 0;
				if (in_dev) {
					have_dev = 1;
					insert_at = o.n + ll;
				}
			} else if (in_dev && key_of(line, ll, key, sizeof key)) {
				for (i = 0; i < res->n; i++) {
					const struct cal_fit *f = &res->fits[i];
					if ((all_keys || f->in_profile) &&
					    strcmp(f->name, key) == 0) {
						put_fit(&o, f, cdate, cdev);
						done[i] = replaced = 1;
					}
				}
			}
			if (!replaced)
				put(&o, line, ll);
			if (in_dev && !blank(line, ll))
				insert_at = o.n;
			pos += ll;
		}
		if (o.n > 0 && o.p[o.n - 1] != '\n') {
			put(&o, "\n", 1);
			if (in_dev)
				insert_at = o.n;
		}
		/* Pass 2: the keys the section did not have. */
		{
			struct outbuf add = { NULL, 0, 0, 0 };

			if (!have_dev)
				put(&add, "\n[device]\n", 10);
			for (i = 0; i < res->n; i++)
				if (!done[i] && (all_keys || res->fits[i].in_profile))
					put_fit(&add, &res->fits[i], cdate, cdev);
			if (!have_dev)
				insert_at = o.n;
			if (add.n > 0 && !o.oom) {
				struct outbuf fin = { NULL, 0, 0, 0 };
				put(&fin, o.p, insert_at);
				put(&fin, add.p, add.n);
				put(&fin, o.p + insert_at, o.n - insert_at);
				free(o.p);
				o = fin;
			}
			if (add.oom)
				o.oom = 1;
			free(add.p);
		}
		free(text);
	}
	if (o.oom) {
		free(o.p);
		return sim_err_set(err, SIM_ENOMEM, "%s: out of memory", path);
	}
	if (o.p == NULL)
		put(&o, "", 0);
	rc = write_atomic(path, &o, mode, err);
	free(o.p);
	return rc;
}
