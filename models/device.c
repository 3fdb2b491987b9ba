/*
** device.c: reading GPU device profiles (models/devices/NAME.ini) and the
** catalog of them (see device.h; every key is documented in docs/MODEL.md,
** "Device profiles").
**
** Parsing goes through libinih's ini_parse_stream with our own line reader,
** which counts lines (the Debian build of inih does not pass line numbers to
** handlers) and notices lines too long for inih's buffer instead of letting
** inih split them silently.  Each `key = value @ source` line is checked
** against one static field table; a key not in the table, a duplicate, a
** malformed or out-of-range number, a missing or unknown source kind are all
** errors naming file and line.  After the parse, required keys that never
** appeared are reported with the line of their section header.
**
** Optional keys (the calibration keys of docs/CALIBRATION.md among them)
** are 0 when absent, meaning "not measured".
**
** Invariants of a loaded profile: every required field was given exactly
** once with a source; capacities and rates are positive; each MIG profile
** has all four keys, fits the device (SMs, memory, bandwidth share) and a
** name of the form "<N>g.<mem>".
*/
#include "sim/datadir.h"
#include "sim/file.h"
#include "models/device.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "sim/num.h"

enum fkind { F_STR, F_U64, F_INT, F_DBL, F_TIME };

/* What a numeric field may hold: > 0, >= 0, (0, 1], [0, 1]. */
enum frange { R_POS, R_NONNEG, R_FRAC, R_UNIT };

struct field {
	const char *key;
	enum fkind kind;
	size_t off, size;         /* offsetof / sizeof in the target struct */
	int required;
	enum frange range;
};

#define DF(key, kind, req, range) \
	{ #key, kind, offsetof(struct dev_profile, key), \
	  sizeof(((struct dev_profile *)0)->key), req, range }

/* The [device] keys.  The order is the order of docs/MODEL.md's table. */
static const struct field dev_fields[] = {
	DF(name, F_STR, 1, R_POS),
	DF(display, F_STR, 1, R_POS),
	DF(aliases, F_STR, 0, R_POS),
	DF(hbm_bytes, F_U64, 1, R_POS),
	DF(hbm_bw_bytes_per_s, F_DBL, 1, R_POS),
	DF(l2_bytes, F_U64, 1, R_POS),
	DF(ctx_bytes, F_U64, 1, R_NONNEG),
	DF(sms, F_INT, 1, R_POS),
	DF(fp32_flops, F_DBL, 1, R_POS),
	DF(fp16_flops, F_DBL, 1, R_POS),
	DF(bf16_flops, F_DBL, 1, R_NONNEG),
	DF(fp8_flops, F_DBL, 0, R_NONNEG),
	DF(bf16_achieved_flops, F_DBL, 0, R_NONNEG),
	DF(sm_clock_hz, F_DBL, 0, R_NONNEG),
	DF(pcie_gen, F_INT, 1, R_POS),
	DF(h2d_pinned_bytes_per_s, F_DBL, 1, R_POS),
	DF(d2h_pinned_bytes_per_s, F_DBL, 1, R_POS),
	DF(h2d_pageable_bytes_per_s, F_DBL, 1, R_POS),
	DF(d2h_pageable_bytes_per_s, F_DBL, 1, R_POS),
	DF(pcie_latency_ns, F_TIME, 1, R_NONNEG),
	DF(nvlink_bytes_per_s, F_DBL, 1, R_NONNEG),
	DF(ts_quantum_ns, F_TIME, 1, R_POS),
	DF(ts_switch_ns, F_TIME, 1, R_NONNEG),
	DF(mps_contention_k, F_DBL, 1, R_NONNEG),
	DF(uvm_bytes_per_s, F_DBL, 1, R_POS),
	/* Optional co-location keys (0 = the term is off). */
	DF(ts_mem_contention_k, F_DBL, 0, R_NONNEG),
	DF(util_duty_scale, F_DBL, 0, R_NONNEG),
	DF(util_duty_exp, F_DBL, 0, R_NONNEG),
	DF(mig_bw_weight, F_DBL, 0, R_UNIT),
	/* Optional calibration keys (0 = not measured). */
	DF(h2d_pinned_latency_ns, F_TIME, 0, R_NONNEG),
	DF(d2h_pinned_latency_ns, F_TIME, 0, R_NONNEG),
	DF(h2d_pageable_latency_ns, F_TIME, 0, R_NONNEG),
	DF(d2h_pageable_latency_ns, F_TIME, 0, R_NONNEG),
	DF(d2d_latency_ns, F_TIME, 0, R_NONNEG),
	DF(d2d_bytes_per_s, F_DBL, 0, R_NONNEG),
	DF(hbm_sat_sms, F_DBL, 0, R_NONNEG),
	DF(mps_sat_compute, F_DBL, 0, R_UNIT),
	DF(mps_sat_memory, F_DBL, 0, R_UNIT),
	DF(streams_contention_k, F_DBL, 0, R_NONNEG),
	DF(uvm_random_bytes_per_s, F_DBL, 0, R_NONNEG),
	DF(ctx_create_ns, F_TIME, 0, R_NONNEG),
	DF(max_alloc_bytes, F_U64, 0, R_NONNEG),
	DF(launch_overhead_ns, F_TIME, 0, R_NONNEG),
	DF(kernel_roundtrip_ns, F_TIME, 0, R_NONNEG),
	DF(fp32_fma_flops, F_DBL, 0, R_NONNEG),
	DF(fp16_fma_flops, F_DBL, 0, R_NONNEG),
	DF(gemm_fp16_flops, F_DBL, 0, R_NONNEG),
	DF(gemm_fp32_flops, F_DBL, 0, R_NONNEG),
};
#define NDEV_FIELDS (sizeof dev_fields / sizeof dev_fields[0])

/* load_ctx.dev_seen has one bit per [device] key. */
_Static_assert(NDEV_FIELDS <= 64, "dev_seen holds one bit per key");

#define MF(key, kind, range) \
	{ #key, kind, offsetof(struct dev_mig_profile, key), \
	  sizeof(((struct dev_mig_profile *)0)->key), 1, range }

static const struct field mig_fields[] = {
	MF(max_count, F_INT, R_POS),
	MF(sms, F_INT, R_POS),
	MF(hbm_bytes, F_U64, R_POS),
	MF(bw_frac, F_DBL, R_FRAC),
};
#define NMIG_FIELDS (sizeof mig_fields / sizeof mig_fields[0])

/*
** Magnitude bounds of the numeric keys (docs/LIMITS.md, "Device profiles").
** The kind of range (> 0, >= 0, a fraction) is the field table's; these
** add the physical span, so that every quantity the models derive from a
** profile (times = work / rate, shares, products with trace sizes) stays
** finite and every time fits int64 nanoseconds.  The spans are
** assumptions, chosen orders of magnitude beyond any GPU built (an H200
** has 1e15 FLOP/s, 5e12 B/s, 1.5e11 bytes): a value outside one is a
** typo or a unit error, never a device.  A positive key may not be below
** lo; a key >= 0 may be 0 (not measured) or in [lo, hi].
*/
struct dev_bound {
	const char *key;
	double lo, hi;
};

#define DEV_RATE_LO 1e3          /* bytes/s of a link or memory */
#define DEV_RATE_HI 1e16
#define DEV_FLOPS_LO 1e6
#define DEV_FLOPS_HI 1e19
#define DEV_BYTES_HI 1125899906842624.0   /* 2^50, 1 PiB */
#define DEV_NS_HI 1e12           /* 1000 s: any latency or time slice */
#define DEV_K_HI 100.0           /* contention coefficients */
#define DEV_SMS_HI 65536.0

static const struct dev_bound dev_bounds[] = {
	{ "hbm_bytes", 1, DEV_BYTES_HI },
	{ "hbm_bw_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "l2_bytes", 1, DEV_BYTES_HI },
	{ "ctx_bytes", 0, DEV_BYTES_HI },
	{ "sms", 1, DEV_SMS_HI },
	{ "fp32_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "fp16_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "bf16_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "bf16_achieved_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "sm_clock_hz", 1e6, 1e11 },
	{ "pcie_gen", 1, 16 },
	{ "h2d_pinned_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "d2h_pinned_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "h2d_pageable_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "d2h_pageable_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "pcie_latency_ns", 0, DEV_NS_HI },
	{ "nvlink_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	/* a quantum under 1 us would make time slicing a flood of events */
	{ "ts_quantum_ns", 1000, DEV_NS_HI },
	{ "ts_switch_ns", 0, DEV_NS_HI },
	{ "mps_contention_k", 0, DEV_K_HI },
	{ "uvm_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "h2d_pinned_latency_ns", 0, DEV_NS_HI },
	{ "d2h_pinned_latency_ns", 0, DEV_NS_HI },
	{ "h2d_pageable_latency_ns", 0, DEV_NS_HI },
	{ "d2h_pageable_latency_ns", 0, DEV_NS_HI },
	{ "d2d_latency_ns", 0, DEV_NS_HI },
	{ "d2d_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "hbm_sat_sms", 0, DEV_SMS_HI },
	{ "streams_contention_k", 0, DEV_K_HI },
	{ "uvm_random_bytes_per_s", DEV_RATE_LO, DEV_RATE_HI },
	{ "ctx_create_ns", 0, DEV_NS_HI },
	{ "max_alloc_bytes", 0, DEV_BYTES_HI },
	{ "launch_overhead_ns", 0, DEV_NS_HI },
	{ "kernel_roundtrip_ns", 0, DEV_NS_HI },
	{ "fp32_fma_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "fp16_fma_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "gemm_fp16_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	{ "gemm_fp32_flops", DEV_FLOPS_LO, DEV_FLOPS_HI },
	/* [mig NAME] keys (bw_frac is a fraction already) */
	{ "max_count", 1, 64 },
};

/* Checks v against key's bounds (none: |v| <= DEV_FLOPS_HI); 0 or -1 with
** what was expected in why (n bytes). */
static int check_bound(const char *key, int may_be_zero, double v,
		       char *why, size_t n)
{
	double lo = 0, hi = DEV_FLOPS_HI;
	size_t i;

	for (i = 0; i < sizeof dev_bounds / sizeof dev_bounds[0]; i++)
		if (strcmp(dev_bounds[i].key, key) == 0) {
			lo = dev_bounds[i].lo;
			hi = dev_bounds[i].hi;
			break;
		}
	if ((v >= lo && v <= hi) || (may_be_zero && v == 0))
		return 0;
	snprintf(why, n, "expected %s[%.6g, %.6g] (docs/LIMITS.md)",
		 may_be_zero && lo > 0 ? "0 or a number in " : "a number in ",
		 lo, hi);
	return -1;
}

/* The parse state handed to inih. */
struct load_ctx {
	const char *path;
	FILE *f;
	struct dev_profile *d;
	struct sim_err *err;
	int line;                 /* the line inih is looking at */
	int long_line;            /* first line longer than inih's buffer */
	size_t nread;             /* bytes read so far */
	int too_big;              /* more than DEV_FILE_MAX bytes */
	int header_line;          /* line of the latest [section] header */
	int device_line;          /* line of [device], 0 if absent */
	uint64_t dev_seen;        /* bit i: dev_fields[i] given */
	uint64_t mig_seen[DEV_MIG_MAX];
	int mig_line[DEV_MIG_MAX];
	char section[64];         /* the section of the previous key */
};

/* fgets with a line count; a line longer than num - 1 is remembered and
** its rest skipped, so that inih never sees a split line.  Reading stops
** at DEV_FILE_MAX bytes (c->too_big): /dev/zero named as a profile is an
** error, not an endless skip. */
static char *count_reader(char *str, int num, void *stream)
{
	struct load_ctx *c = stream;
	size_t len;
	const char *p;

	/* lines are counted too: a NUL byte hides the bytes after it from
	** strlen, so /dev/zero would read "empty lines" forever */
	if (c->nread > DEV_FILE_MAX || c->line >= DEV_LINES_MAX) {
		c->too_big = 1;
		return NULL;
	}
	if (fgets(str, num, c->f) == NULL)
		return NULL;
	c->line++;
	len = strlen(str);
	c->nread += len;
	if (len > 0 && str[len - 1] != '\n' && !feof(c->f)) {
		int ch;

		if (c->long_line == 0)
			c->long_line = c->line;
		while (c->nread <= DEV_FILE_MAX &&
		       (ch = fgetc(c->f)) != EOF && ch != '\n')
			c->nread++;
		str[0] = '\0';   /* inih sees an empty line */
	}
	if (c->nread > DEV_FILE_MAX) {
		c->too_big = 1;
		return NULL;
	}
	for (p = str; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '[')
		c->header_line = c->line;
	if (strncmp(p, "[device]", 8) == 0 && c->device_line == 0)
		c->device_line = c->line;
	return str;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (*p != '\0' && isspace((unsigned char)*p))
		p++;
	if (p != s)
		memmove(s, p, strlen(p) + 1);
}

/* Appends "key\0source\0" to the profile's source pool. */
static int src_add(struct dev_profile *d, const char *key, const char *src)
{
	size_t kl = strlen(key) + 1, sl = strlen(src) + 1;

	if (d->nsrc_ + kl + sl > sizeof d->src_)
		return -1;
	memcpy(d->src_ + d->nsrc_, key, kl);
	memcpy(d->src_ + d->nsrc_ + kl, src, sl);
	d->nsrc_ += kl + sl;
	return 0;
}

const char *dev_source(const struct dev_profile *d, const char *key)
{
	size_t i = 0;

	while (i < d->nsrc_) {
		const char *k = d->src_ + i;
		const char *s = k + strlen(k) + 1;

		if (strcmp(k, key) == 0)
			return s;
		i = (size_t)(s + strlen(s) + 1 - d->src_);
	}
	return NULL;
}

static int valid_source(const char *src)
{
	static const char *const kinds[] = { "spec", "measured", "fitted" };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t n = strlen(kinds[i]);

		if (strncmp(src, kinds[i], n) == 0 &&
		    (src[n] == '\0' || src[n] == ' ' || src[n] == ':'))
			return 1;
	}
	return 0;
}

static int valid_name(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
		      *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* Parses value into the field at base + f->off; 0 or -1 with why. */
static int set_field(void *base, const struct field *f, const char *value,
		     const char **why)
{
	char *p = (char *)base + f->off;
	double v;

	if (f->kind == F_STR) {
		if (strlen(value) >= f->size) {
			*why = "text too long";
			return -1;
		}
		if (value[0] == '\0') {
			*why = "empty text";
			return -1;
		}
		memcpy(p, value, strlen(value) + 1);
		return 0;
	}
	if (sim_num_double(value, NULL, -DBL_MAX, DBL_MAX, &v, NULL) != 0) {
		*why = "expected a number";
		return -1;
	}
	if ((f->range == R_POS && !(v > 0)) ||
	    (f->range == R_NONNEG && v < 0) ||
	    (f->range == R_FRAC && !(v > 0 && v <= 1)) ||
	    (f->range == R_UNIT && !(v >= 0 && v <= 1))) {
		*why = f->range == R_POS ? "expected a positive number" :
		       f->range == R_NONNEG ? "expected a number >= 0" :
		       f->range == R_FRAC ? "expected a fraction in (0, 1]" :
		       "expected a fraction in [0, 1]";
		return -1;
	}
	switch (f->kind) {
	case F_DBL:
		memcpy(p, &v, sizeof v);
		return 0;
	case F_U64: case F_TIME: case F_INT: {
		/* times at most 2^62 ns, as every input time (sim/num.h) */
		double lim = f->kind == F_INT ? 2147483647.0 :
			     f->kind == F_TIME ? (double)SIM_NUM_TIME_MAX_NS :
			     1.8e19;
		uint64_t uv;

		if (v != floor(v) || v > lim) {
			*why = "expected a whole number in range";
			return -1;
		}
		if (f->kind == F_INT) {
			int iv = (int)v;
			memcpy(p, &iv, sizeof iv);
		} else if (f->kind == F_TIME) {
			sim_time tv = (sim_time)v;
			memcpy(p, &tv, sizeof tv);
		} else {
			/* an integer literal stays exact above 2^53 */
			if (sim_num_u64(value, NULL, 0, UINT64_MAX, &uv,
					NULL) != 0)
				uv = (uint64_t)v;
			memcpy(p, &uv, sizeof uv);
		}
		return 0;
	}
	case F_STR:
		break;
	}
	return -1;
}

static const struct field *find_field(const struct field *t, size_t n,
				      const char *key, size_t *idx)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].key, key) == 0) {
			*idx = i;
			return &t[i];
		}
	return NULL;
}

int dev_key_known(const char *key)
{
	size_t idx;

	return find_field(dev_fields, NDEV_FIELDS, key, &idx) != NULL;
}

/* Splits "value @ source" in place; *src is NULL when there is no '@'. */
static void split_source(char *buf, char **src)
{
	char *at = strchr(buf, '@');

	*src = NULL;
	if (at != NULL) {
		*at = '\0';
		*src = at + 1;
		trim(*src);
	}
	trim(buf);
}

static int mig_slot(struct load_ctx *c, const char *name)
{
	struct dev_profile *d = c->d;
	int i;

	for (i = 0; i < d->nmig; i++)
		if (strcmp(d->mig[i].name, name) == 0)
			return i;
	return -1;
}

/* A new [mig NAME] section: checks the name and opens a slot. */
static int mig_open(struct load_ctx *c, const char *name)
{
	struct dev_profile *d = c->d;
	struct dev_mig_profile *m;
	size_t len;
	int g;

	if (d->nmig >= DEV_MIG_MAX)
		return sim_err_set(c->err, SIM_EPARSE,
				   "%s:%d: more than %d MIG profiles", c->path,
				   c->header_line, DEV_MIG_MAX);
	if (strlen(name) >= sizeof d->mig[0].name || !valid_name(name))
		return sim_err_set(c->err, SIM_EPARSE,
				   "%s:%d: [mig %s]: expected a profile name such "
				   "as 1g.10gb", c->path, c->header_line, name);
	len = strspn(name, "0123456789");
	if (len == 0 || len > 3 || name[len] != 'g' || name[len + 1] != '.')
		g = 0;
	else {
		char digits[4];
		memcpy(digits, name, len);
		digits[len] = '\0';
		if (sim_num_int(digits, NULL, 1, 999, &g, NULL) != 0)
			g = 0;
	}
	if (g <= 0)
		return sim_err_set(c->err, SIM_EPARSE,
				   "%s:%d: [mig %s]: expected a name of the form "
				   "<N>g.<memory> (e.g. 3g.40gb)", c->path,
				   c->header_line, name);
	m = &d->mig[d->nmig];
	memset(m, 0, sizeof *m);
	memcpy(m->name, name, strlen(name) + 1);
	m->compute_slices = (int)g;
	c->mig_line[d->nmig] = c->header_line;
	c->mig_seen[d->nmig] = 0;
	return d->nmig++;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct load_ctx *c = user;
	struct dev_profile *d = c->d;
	char buf[DEV_LINE_MAX], srckey[96], bound[96], *src;
	const struct field *f;
	const char *why = NULL;
	size_t idx;
	uint64_t *seen;
	void *base;
	int slot = -1;

	if (c->err->code != 0)
		return 0;
	if (name == NULL)          /* a section callback, if inih makes them */
		return 1;
	if (section[0] == '\0') {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: key outside any "
			    "section (expected [device] first)", c->path,
			    c->line, name);
		return 0;
	}
	if (strcmp(section, "device") == 0) {
		f = find_field(dev_fields, NDEV_FIELDS, name, &idx);
		seen = &c->dev_seen;
		base = d;
		snprintf(srckey, sizeof srckey, "%s", name);
	} else if (strncmp(section, "mig ", 4) == 0) {
		const char *mname = section + 4;

		slot = mig_slot(c, mname);
		if (slot < 0 || strcmp(c->section, section) != 0) {
			if (slot >= 0) {
				sim_err_set(c->err, SIM_EPARSE, "%s:%d: [%s] "
					    "appears twice", c->path,
					    c->header_line, section);
				return 0;
			}
			slot = mig_open(c, mname);
			if (slot < 0)
				return 0;
		}
		f = find_field(mig_fields, NMIG_FIELDS, name, &idx);
		seen = &c->mig_seen[slot];
		base = &d->mig[slot];
		snprintf(srckey, sizeof srckey, "mig %s.%s", mname, name);
	} else {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: unknown section [%s] "
			    "(expected [device] or [mig NAME])", c->path,
			    c->header_line, section);
		return 0;
	}
	snprintf(c->section, sizeof c->section, "%s", section);
	if (f == NULL) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: unknown key in "
			    "[%s] (see docs/MODEL.md, \"Device profiles\")",
			    c->path, c->line, name, section);
		return 0;
	}
	if (*seen & ((uint64_t)1 << idx)) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: given twice in "
			    "[%s]", c->path, c->line, name, section);
		return 0;
	}
	if (strlen(value) >= sizeof buf) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: value too long",
			    c->path, c->line, name);
		return 0;
	}
	memcpy(buf, value, strlen(value) + 1);
	split_source(buf, &src);
	if (src == NULL && f->kind != F_STR) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: missing source "
			    "(expected 'VALUE @ spec|measured|fitted ...')",
			    c->path, c->line, name);
		return 0;
	}
	if (src != NULL && !valid_source(src)) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: source '%s' must "
			    "start with spec, measured or fitted", c->path,
			    c->line, name, src);
		return 0;
	}
	if (set_field(base, f, buf, &why) != 0) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: %s, got '%s'",
			    c->path, c->line, name, why, buf);
		return 0;
	}
	if (f->kind != F_STR &&
	    check_bound(name, f->range == R_NONNEG, strtod(buf, NULL), bound,
			sizeof bound) != 0) {
		sim_err_set(c->err, SIM_ERANGE, "%s:%d: %s: %s, got '%s'",
			    c->path, c->line, name, bound, buf);
		return 0;
	}
	if (src != NULL && src_add(d, srckey, src) != 0) {
		sim_err_set(c->err, SIM_EPARSE, "%s:%d: %s: sources exceed %d "
			    "bytes in one profile", c->path, c->line, name,
			    DEV_SRC_POOL);
		return 0;
	}
	*seen |= (uint64_t)1 << idx;
	return 1;
}

/* Checks names, aliases and the MIG table after a successful parse. */
static int check_profile(struct load_ctx *c)
{
	struct dev_profile *d = c->d;
	size_t i;
	int m, j;

	if (c->device_line == 0)
		return sim_err_set(c->err, SIM_EPARSE, "%s:1: no [device] "
				   "section", c->path);
	for (i = 0; i < NDEV_FIELDS; i++)
		if (dev_fields[i].required && !(c->dev_seen & ((uint64_t)1 << i)))
			return sim_err_set(c->err, SIM_EPARSE, "%s:%d: [device]: "
					   "missing required key %s", c->path,
					   c->device_line, dev_fields[i].key);
	if (!valid_name(d->name))
		return sim_err_set(c->err, SIM_EPARSE, "%s:%d: name: '%s': "
				   "expected lower-case letters, digits, '-', "
				   "'_' or '.'", c->path, c->device_line,
				   d->name);
	if (d->aliases[0] != '\0') {
		char tmp[DEV_ALIASES_MAX], *tok, *save = NULL;

		memcpy(tmp, d->aliases, sizeof tmp);
		for (tok = strtok_r(tmp, ",", &save); tok != NULL;
		     tok = strtok_r(NULL, ",", &save)) {
			trim(tok);
			if (!valid_name(tok))
				return sim_err_set(c->err, SIM_EPARSE, "%s:%d: "
						   "aliases: '%s' is not a valid "
						   "name", c->path,
						   c->device_line, tok);
		}
	}
	for (m = 0; m < d->nmig; m++) {
		struct dev_mig_profile *mp = &d->mig[m];

		for (i = 0; i < NMIG_FIELDS; i++)
			if (!(c->mig_seen[m] & ((uint64_t)1 << i)))
				return sim_err_set(c->err, SIM_EPARSE, "%s:%d: "
						   "[mig %s]: missing required "
						   "key %s", c->path,
						   c->mig_line[m], mp->name,
						   mig_fields[i].key);
		if (mp->sms > d->sms || mp->hbm_bytes > d->hbm_bytes)
			return sim_err_set(c->err, SIM_EPARSE, "%s:%d: [mig %s]: "
					   "more SMs or memory than the device",
					   c->path, c->mig_line[m], mp->name);
		for (j = 0; j < m; j++)
			if (strcmp(d->mig[j].name, mp->name) == 0)
				return sim_err_set(c->err, SIM_EPARSE,
						   "%s:%d: [mig %s] appears "
						   "twice", c->path,
						   c->mig_line[m], mp->name);
	}
	return 0;
}

int dev_load_file(const char *path, struct dev_profile *out,
		  struct sim_err *err)
{
	struct load_ctx c;
	struct sim_err local;
	int rc;

	if (err == NULL) {
		sim_err_clear(&local);
		err = &local;
	}
	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	c.path = path;
	c.d = out;
	c.err = err;
	snprintf(out->path, sizeof out->path, "%s", path);
	if ((rc = sim_fopen_in(&c.f, path, "r", "device profile", err)) != 0)
		return rc;
	rc = ini_parse_stream(count_reader, &c, handler, &c);
	if (c.too_big)
		sim_err_set(err, SIM_ERANGE, "%s: more than %d bytes or %d "
			    "lines (a device profile; docs/LIMITS.md)", path,
			    DEV_FILE_MAX, DEV_LINES_MAX);
	if (ferror(c.f))
		sim_err_set(err, SIM_EIO, "%s:%d: read error", path, c.line);
	fclose(c.f);
	if (c.long_line != 0)
		sim_err_set(err, SIM_EPARSE, "%s:%d: line too long (at most %d "
			    "characters)", path, c.long_line,
			    DEV_LINE_MAX - 3);
	if (err->code == 0 && rc > 0)
		sim_err_set(err, SIM_EPARSE, "%s:%d: expected '[section]' or "
			    "'key = value @ source'", path, rc);
	if (err->code == 0 && rc < 0)
		sim_err_set(err, SIM_ENOMEM, "%s: parser out of memory", path);
	if (err->code == 0)
		check_profile(&c);
	return err->code;
}

int dev_mig_find(const struct dev_profile *d, const char *name)
{
	int i;

	for (i = 0; i < d->nmig; i++)
		if (strcasecmp(d->mig[i].name, name) == 0)
			return i;
	return -1;
}

/* Calls fn on the name and every alias of d until fn returns non-zero. */
static int each_name(const struct dev_profile *d,
		     int (*fn)(const char *nm, void *arg), void *arg)
{
	char tmp[DEV_ALIASES_MAX], *tok, *save = NULL;
	int r = fn(d->name, arg);

	if (r != 0)
		return r;
	memcpy(tmp, d->aliases, sizeof tmp);
	for (tok = strtok_r(tmp, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		trim(tok);
		if ((r = fn(tok, arg)) != 0)
			return r;
	}
	return 0;
}

static int name_eq(const char *nm, void *arg)
{
	return strcasecmp(nm, arg) == 0;
}

const struct dev_profile *dev_catalog_find(const struct dev_catalog *cat,
					   const char *name)
{
	size_t i;

	for (i = 0; i < cat->n; i++)
		if (each_name(&cat->devs[i], name_eq, (void *)(uintptr_t)name))
			return &cat->devs[i];
	return NULL;
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct dev_profile *)a)->name,
		      ((const struct dev_profile *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A name clash between profiles: arg is the catalog so far plus the index
** of the profile being checked. */
struct clash_arg {
	const struct dev_catalog *cat;
	size_t self;
	const char *other_path;
};

static int clash(const char *nm, void *arg)
{
	struct clash_arg *a = arg;
	size_t i;

	for (i = 0; i < a->self; i++)
		if (each_name(&a->cat->devs[i], name_eq, (void *)(uintptr_t)nm)) {
			a->other_path = a->cat->devs[i].path;
			return 1;
		}
	return 0;
}

int dev_catalog_load(struct dev_catalog *cat, const char *dir,
		     struct sim_err *err)
{
	DIR *dp;
	struct dirent *de;
	char **names = NULL, path[512];
	size_t n = 0, cap = 0, i;
	int rc = 0;

	cat->devs = NULL;
	cat->n = 0;
	dp = opendir(dir);
	if (dp == NULL)
		return sim_err_set(err, errno == ENOENT ? SIM_ENOENT : SIM_EIO,
				   "%s: cannot open device directory: %s", dir,
				   strerror(errno));
	while ((de = readdir(dp)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0 ||
		    de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 16) *
					    sizeof *names);
			if (nn == NULL) {
				rc = SIM_ENOMEM;
				break;
			}
			names = nn;
			cap = cap ? cap * 2 : 16;
		}
		if ((names[n] = strdup(de->d_name)) == NULL) {
			rc = SIM_ENOMEM;
			break;
		}
		n++;
	}
	closedir(dp);
	if (rc == 0 && n == 0)
		rc = sim_err_set(err, SIM_ENOENT, "%s: no device profiles "
				 "(*.ini)", dir);
	if (rc == 0) {
		qsort(names, n, sizeof *names, cmp_str);
		cat->devs = calloc(n, sizeof *cat->devs);
		if (cat->devs == NULL)
			rc = SIM_ENOMEM;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		struct clash_arg ca = { cat, cat->n, NULL };

		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		rc = dev_load_file(path, &cat->devs[cat->n], err);
		if (rc != 0)
			break;
		if (each_name(&cat->devs[cat->n], clash, &ca)) {
			rc = sim_err_set(err, SIM_EEXIST, "%s: name or alias "
					 "already used by %s", path,
					 ca.other_path);
			break;
		}
		cat->n++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == SIM_ENOMEM)
		sim_err_set(err, SIM_ENOMEM, "%s: out of memory", dir);
	if (rc != 0) {
		dev_catalog_fini(cat);
		return rc;
	}
	qsort(cat->devs, cat->n, sizeof *cat->devs, cmp_dev);
	return 0;
}

void dev_catalog_fini(struct dev_catalog *cat)
{
	free(cat->devs);
	cat->devs = NULL;
	cat->n = 0;
}

void dev_catalog_names(const struct dev_catalog *cat, char *buf, size_t n)
{
	size_t i, len = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < cat->n && len < n; i++) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				 cat->devs[i].name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

int dev_find_dir(const char *given, char *out, size_t n,
		 struct sim_err *err)
{
	const struct sim_datadir q = {
		"device profiles", given, "--devices", "COLOSIM_DEVICES",
		"models/devices", "devices", NULL, NULL
	};

	return sim_datadir_find(&q, out, n, err);
}
