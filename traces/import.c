/*
** import.c: the importer table, the import context, and the staging sink
** that sorts jobs and arrivals and writes the v1 trace (see import.h).
**
** The sink is a private temporary SQLite database (sqlite3_open_v2 with an
** empty file name: on disk, deleted on close) with an 8 MiB page cache, so
** sorting a trace of any length keeps memory bounded.  Jobs are stored with
** their submit time in the input's time base and the text of the columns
** after submit_s; times are transformed (rebased, compressed) only when the
** rows are written, so the transformation is applied once and identically
** to a service's row and its arrivals.
*/
#include "traces/import.h"

#include "sim/file.h"
#include "traces/trace.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <csv.h>
#include <sqlite3.h>

#include "traces/import_csv.h"
#include "traces/trace.h"

extern const struct imp_format imp_fmt_alibaba_v2023;
extern const struct imp_format imp_fmt_alibaba_v2025;
extern const struct imp_format imp_fmt_alibaba_genai_v2026;
extern const struct imp_format imp_fmt_tiresias;
extern const struct imp_format imp_fmt_azure_llm_2023;
extern const struct imp_format imp_fmt_muri;

const struct imp_format *const imp_formats[] = {
	&imp_fmt_alibaba_v2023,
	&imp_fmt_alibaba_v2025,
	&imp_fmt_alibaba_genai_v2026,
	&imp_fmt_tiresias,
	&imp_fmt_azure_llm_2023,
	&imp_fmt_muri,
	NULL
};

const struct imp_format *imp_find(const char *name)
{
	int i;

	for (i = 0; imp_formats[i] != NULL; i++)
		if (strcasecmp(imp_formats[i]->zName, name) == 0)
			return imp_formats[i];
	return NULL;
}

void imp_format_names(char *buf, size_t n)
{
	size_t k = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; imp_formats[i] != NULL && k < n; i++) {
		int w = snprintf(buf + k, n - k, "%s%s", i ? ", " : "",
				 imp_formats[i]->zName);
		if (w < 0)
			break;
		k += (size_t)w;
	}
}

void imp_opts_init(struct imp_opts *o)
{
	memset(o, 0, sizeof *o);
	o->compress = 1.0;
	o->sample = 1.0;
	o->gpu_scale = 1.0;
	o->seed = 1;
}

/* ---- counts ---------------------------------------------------------- */

static void count(struct imp_count *tab, int *n, const char *reason)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(tab[i].reason, reason) == 0) {
			tab[i].n++;
			return;
		}
	if (*n == IMP_REASONS_MAX)
		i = IMP_REASONS_MAX - 1;   /* full: fold into the last */
	else
		i = (*n)++;
	if (tab[i].n == 0)
		snprintf(tab[i].reason, sizeof tab[i].reason, "%s", reason);
	tab[i].n++;
}

void imp_skip(struct imp_ctx *c, const char *reason)
{
	c->stats->skipped++;
	count(c->stats->skip, &c->stats->nskip, reason);
}

void imp_note(struct imp_ctx *c, const char *reason)
{
	count(c->stats->note, &c->stats->nnote, reason);
}

int imp_sample(struct imp_ctx *c)
{
	double u;

	if (c->opts->sample >= 1.0)
		return 1;
	u = sim_rng_uniform(&c->rng);
	if (u < c->opts->sample)
		return 1;
	c->stats->sampled_out++;
	return 0;
}

int imp_scale_gpus(struct imp_ctx *c, int gpus)
{
	int g = gpus;

	if (c->opts->gpu_scale != 1.0) {
		double x = floor(gpus * c->opts->gpu_scale + 0.5);
		g = x < 1 ? 1 : x > 1e6 ? 1000000 : (int)x;
		if (g != gpus)
			imp_note(c, "GPU count changed by --gpu-scale");
	}
	if (c->opts->max_gpus > 0 && g > c->opts->max_gpus) {
		g = c->opts->max_gpus;
		imp_note(c, "GPU count clamped by --max-gpus");
	}
	return g;
}

/* ---- the sink ---------------------------------------------------------- */

#define SVC_MAX 64
#define SIDE_MAX 4

struct imp_sink {
	sqlite3 *db;
	sqlite3_stmt *ins_job, *ins_arr;
	long seq;
	int nsvc;
	char svc_path[SVC_MAX][512];     /* arrival file of each service */
	char svc_base[SVC_MAX][256];
	long svc_n[SVC_MAX];             /* arrivals staged per service */
	int any_util;                    /* some job has a gpu_util */
	int svc_tok[SVC_MAX];            /* 1: a request file (tokens) */
	int nside;
	char side_path[SIDE_MAX][600];   /* side files (cluster) written */
};

static int db_err(struct imp_sink *s, struct sim_err *err, const char *what)
{
	return sim_err_set(err, SIM_ELIB, "sqlite (%s): %s", what,
			   s->db ? sqlite3_errmsg(s->db) : "cannot open");
}

static int sink_open(struct imp_sink **out, struct sim_err *err)
{
	static const char *const setup =
		"PRAGMA cache_size=-8192;"
		"PRAGMA temp_store=FILE;"
		"PRAGMA journal_mode=OFF;"
		"PRAGMA synchronous=OFF;"
		"CREATE TABLE job(seq INTEGER PRIMARY KEY, submit_ns INTEGER "
		"NOT NULL, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, "
		"rest TEXT NOT NULL, "
		"path TEXT, line INTEGER);"
		"CREATE TABLE arr(svc INTEGER NOT NULL, t_ns INTEGER NOT NULL, "
		"p INTEGER, o INTEGER);"
		"BEGIN;";
	struct imp_sink *s = calloc(1, sizeof *s);

	*out = NULL;
	if (s == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (sqlite3_open_v2("", &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, setup, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO job(submit_ns, id, kind, "
			       "rest, path, line) VALUES(?,?,?,?,?,?)", -1,
			       &s->ins_job, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO arr(svc, t_ns, p, o) "
			       "VALUES(?,?,?,?)", -1, &s->ins_arr, NULL) !=
	    SQLITE_OK) {
		int rc = db_err(s, err, "staging database");
		sqlite3_finalize(s->ins_job);
		sqlite3_close(s->db);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static void sink_close(struct imp_sink *s)
{
	if (s == NULL)
		return;
	sqlite3_finalize(s->ins_job);
	sqlite3_finalize(s->ins_arr);
	sqlite3_close(s->db);
	free(s);
}

/* Appends printf output to buf at *k (truncation is checked by caller). */
static void put(char *buf, size_t n, size_t *k, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
static void put(char *buf, size_t n, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*k >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *k, n - *k, fmt, ap);
	va_end(ap);
	if (w > 0)
		*k += (size_t)w;
}

/* A field that needs quoting in CSV (RFC 4180), or spaces libcsv trims. */
static int needs_quote(const char *s)
{
	size_t n = strlen(s);

	return strpbrk(s, ",\"\r\n") != NULL ||
	       (n > 0 && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
			  s[n - 1] == '\t' || s[0] == '#'));
}

static void put_text(char *buf, size_t n, size_t *k, const char *s)
{
	size_t w;

	if (s == NULL)
		return;
	if (!needs_quote(s)) {
		put(buf, n, k, "%s", s);
		return;
	}
	if (*k + 1 >= n)
		return;
	/* csv_write quotes and doubles embedded quotes; it writes no NUL. */
	w = csv_write(buf + *k, n - *k - 1, s, strlen(s));
	*k += w;
	if (*k < n)
		buf[*k] = '\0';
}

/* The columns after submit_s, as text. */
static int format_rest(const struct imp_ctx *c, const struct imp_job *j,
		       char *buf, size_t n)
{
	int r;

	char t[32];
	size_t k = 0;

	put(buf, n, &k, "%s,%d,", j->model, j->batch);
	if (j->iterations > 0)
		put(buf, n, &k, "%lld", (long long)j->iterations);
	put(buf, n, &k, ",");
	if (j->duration_ns > 0) {
		imp_fmt_seconds(j->duration_ns, t, sizeof t);
		put(buf, n, &k, "%s", t);
	}
	put(buf, n, &k, ",");
	if (j->iter_ms > 0)
		put(buf, n, &k, "%.10g", j->iter_ms);
	put(buf, n, &k, ",,,");           /* optimizer, precision */
	if (j->gpus > 0 || c->host_cols)
		put(buf, n, &k, "%d", j->gpus);
	put(buf, n, &k, ",");
	if (j->gpu_share > 0)
		put(buf, n, &k, "%.10g", j->gpu_share);
	put(buf, n, &k, ",,");            /* mem_mib */
	if (j->has_priority)
		put(buf, n, &k, "%d", j->priority);
	put(buf, n, &k, ",");
	if (j->slo_ms > 0)
		put(buf, n, &k, "%.10g", j->slo_ms);
	put(buf, n, &k, ",");
	put_text(buf, n, &k, j->arrival);
	put(buf, n, &k, ",");
	if (j->rate_per_s > 0)
		put(buf, n, &k, "%.10g", j->rate_per_s);
	put(buf, n, &k, ",");
	put_text(buf, n, &k, j->arrival_arg);
	put(buf, n, &k, ",");             /* batch_timeout_ms */
	for (r = 0; c->res_cols && r < 3; r++) {
		put(buf, n, &k, ",");
		if (j->has_res)
			put(buf, n, &k, "%.10g", j->res_ms[r]);
	}
	if (c->host_cols)
		put(buf, n, &k, ",%lld,%lld", (long long)j->cpu_milli,
		    (long long)j->host_mem_mib);
	/* the optional gpu_util: always staged last; sink_write drops the
	** column when no job has it */
	put(buf, n, &k, ",");
	if (j->gpu_util > 0)
		put(buf, n, &k, "%.6g", j->gpu_util);
	return k < n ? 0 : -1;
}

int imp_emit_job(struct imp_ctx *c, const struct imp_job *j,
		 const char *path, long line, struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	char rest[1024];
	int rc;

	/* the v1 limit of the reader (trace_job.id): a longer one (an
	** app_name.instance_sn of the DLRM trace, say) would write a trace
	** that does not read back; the record is skipped, counted */
	if (strlen(j->id) >= sizeof ((struct trace_job *)0)->id) {
		imp_skip(c, "id longer than 63 characters");
		return 0;
	}
	if (format_rest(c, j, rest, sizeof rest) != 0)
		return sim_err_set(err, SIM_ERANGE, "%s:%ld: job '%s': row "
				   "too long", path, line, j->id);
	if (j->gpu_util > 0)
		s->any_util = 1;
	sqlite3_reset(s->ins_job);
	sqlite3_bind_int64(s->ins_job, 1, j->submit_ns);
	sqlite3_bind_text(s->ins_job, 2, j->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->ins_job, 3, j->infer == 2 ? "llm" : j->infer ?
			  "infer" : "train", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(s->ins_job, 4, rest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->ins_job, 5, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s->ins_job, 6, line);
	rc = sqlite3_step(s->ins_job);
	if (rc == SQLITE_CONSTRAINT) {
		sqlite3_stmt *q;
		char where[600] = "an earlier row";
		if (sqlite3_prepare_v2(s->db, "SELECT path, line FROM job "
				       "WHERE id=?", -1, &q, NULL) ==
		    SQLITE_OK) {
			sqlite3_bind_text(q, 1, j->id, -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW &&
			    sqlite3_column_text(q, 0) != NULL)
				snprintf(where, sizeof where, "%s:%lld",
					 (const char *)sqlite3_column_text(q, 0),
					 sqlite3_column_int64(q, 1));
			sqlite3_finalize(q);
		}
		return sim_err_set(err, SIM_EEXIST, "%s:%ld:1: id '%s' repeats "
				   "%s (ids must be unique)", path, line,
				   j->id, where);
	}
	if (rc != SQLITE_DONE)
		return db_err(s, err, "insert job");
	s->seq++;
	return 0;
}

int imp_arrivals_open(struct imp_ctx *c, const char *name, int *svc,
		      const char **basename, struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	int w;

	if (c->out_stem == NULL)
		return sim_err_set(err, SIM_EINVAL, "%s: the arrival files go "
				   "next to the trace: give -o OUT", c->format);
	if (s->nsvc == SVC_MAX)
		return sim_err_set(err, SIM_ERANGE, "%s: more than %d services",
				   c->format, SVC_MAX);
	w = snprintf(s->svc_path[s->nsvc], sizeof s->svc_path[0],
		     "%s.%s.arrivals", c->out_stem, name);
	if (w < 0 || (size_t)w >= sizeof s->svc_path[0])
		return sim_err_set(err, SIM_ERANGE, "%s: path too long",
				   c->out_stem);
	snprintf(s->svc_base[s->nsvc], sizeof s->svc_base[0], "%s",
		 imp_basename(s->svc_path[s->nsvc]));
	*basename = s->svc_base[s->nsvc];
	*svc = s->nsvc++;
	return 0;
}

/* Stages one arrival of service svc; p and o 0: no token counts. */
static int stage_arrival(struct imp_ctx *c, int svc, sim_time t_ns, int p,
			 int o, struct sim_err *err)
{
	struct imp_sink *s = c->sink;

	sqlite3_reset(s->ins_arr);
	sqlite3_bind_int(s->ins_arr, 1, svc);
	sqlite3_bind_int64(s->ins_arr, 2, t_ns);
	if (p > 0) {
		sqlite3_bind_int(s->ins_arr, 3, p);
		sqlite3_bind_int(s->ins_arr, 4, o);
		s->svc_tok[svc] = 1;
	} else {
		sqlite3_bind_null(s->ins_arr, 3);
		sqlite3_bind_null(s->ins_arr, 4);
	}
	if (sqlite3_step(s->ins_arr) != SQLITE_DONE)
		return db_err(s, err, "insert arrival");
	s->svc_n[svc]++;
	return 0;
}

int imp_arrival(struct imp_ctx *c, int svc, sim_time t_ns,
		struct sim_err *err)
{
	return stage_arrival(c, svc, t_ns, 0, 0, err);
}

int imp_arrival_tokens(struct imp_ctx *c, int svc, sim_time t_ns,
		       int prompt_tokens, int output_tokens,
		       struct sim_err *err)
{
	if (prompt_tokens < 1 || output_tokens < 1)
		return sim_err_set(err, SIM_EINVAL, "%s: a request of %d prompt "
				   "and %d output tokens", c->format,
				   prompt_tokens, output_tokens);
	return stage_arrival(c, svc, t_ns, prompt_tokens, output_tokens, err);
}

static void add_side(struct imp_stats *st, const char *path)
{
	if (st->nside < 4)
		snprintf(st->side_files[st->nside++], sizeof st->side_files[0],
			 "%s", path);
	else
		st->side_more++;
}

/*
** Every output of an import (the trace, its arrival files, its cluster
** file) is written under a temporary name (sim_out_tmpname) and renamed
** into place only when the whole import succeeded (commit_outputs), so a
** failure, a full disk say, leaves no truncated file and keeps any file
** the user already had at those paths.
*/
int imp_side_file(struct imp_ctx *c, const char *suffix, const char *text,
		  struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	char tmp[700], *path;
	FILE *f;
	int bad;

	if (c->out_stem == NULL)
		return sim_err_set(err, SIM_EINVAL, "%s: the %s file goes next "
				   "to the trace: give -o OUT", c->format,
				   suffix);
	if (s->nside == SIDE_MAX)
		return sim_err_set(err, SIM_ERANGE, "%s: more than %d side "
				   "files", c->format, SIDE_MAX);
	path = s->side_path[s->nside];
	snprintf(path, sizeof s->side_path[0], "%s.%s", c->out_stem, suffix);
	if ((f = sim_out_open(path, tmp, sizeof tmp, err)) == NULL)
		return err->code;
	s->nside++;
	fputs(text, f);
	bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return sim_err_set(err, SIM_EIO, "%s: write failed", path);
	return 0;
}

/* Renames every temporary output onto its path (rc 0), or removes them
** all (rc != 0); returns rc or the first rename error. */
static int finish_outputs(struct imp_ctx *c, const char *out_path, int rc,
			  struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	char tmp[700];
	int i;

	for (i = 0; s != NULL && i < s->nside + s->nsvc; i++) {
		const char *p = i < s->nside ? s->side_path[i] :
				s->svc_path[i - s->nside];
		if (i >= s->nside && s->svc_n[i - s->nside] == 0)
			continue;       /* never written */
		if (sim_out_tmpname(p, tmp, sizeof tmp) != 0)
			continue;
		if (rc != 0) {
			sim_out_abort(tmp);
			continue;
		}
		if ((rc = sim_out_commit(tmp, p, err)) == 0)
			add_side(c->stats, p);
	}
	if (out_path != NULL && sim_out_tmpname(out_path, tmp,
						sizeof tmp) == 0) {
		if (rc != 0)
			sim_out_abort(tmp);
		else
			rc = sim_out_commit(tmp, out_path, err);
	}
	return rc;
}

/* The largest output time, in ns: the trace reader's limit (2^62 ns,
** docs/LIMITS.md), so that every time an import writes reads back. */
#define IMP_TIME_MAX_NS (INT64_C(1) << 62)

/* t in the input's time base -> output ns in *out; SIM_ERANGE when the
** result (after rebasing and --compress) is negative or past the limit. */
static int transform(const struct imp_ctx *c, sim_time origin, sim_time t,
		     sim_time *out, struct sim_err *err)
{
	double x;

	/* the difference in integers (exact), unless it would overflow */
	if ((origin < 0 && t > INT64_MAX + origin) ||
	    (origin > 0 && t < INT64_MIN + origin))
		x = (double)t - (double)origin;
	else
		x = (double)(t - origin);
	if (c->opts->compress != 1.0)
		x /= c->opts->compress;
	if (!(x >= 0 && x <= (double)IMP_TIME_MAX_NS))
		return sim_err_set(err, SIM_ERANGE, "%s: a time of %.6g s "
				   "after the first one (after --compress) "
				   "is out of range [0, %.6g] s (docs/"
				   "LIMITS.md)", c->format, x / 1e9,
				   (double)IMP_TIME_MAX_NS / 1e9);
	*out = (sim_time)llround(x);
	return 0;
}

static int write_arrivals(struct imp_ctx *c, sim_time origin,
			  struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	sqlite3_stmt *q;
	char tmp[700];
	int i, rc = 0;

	if (sqlite3_prepare_v2(s->db, "SELECT t_ns, p, o FROM arr WHERE svc=? "
			       "ORDER BY t_ns", -1, &q, NULL) != SQLITE_OK)
		return db_err(s, err, "select arrivals");
	for (i = 0; i < s->nsvc && rc == 0; i++) {
		FILE *f;
		char t[32];
		int st;

		if (s->svc_n[i] == 0)   /* no service row refers to it */
			continue;
		if ((f = sim_out_open(s->svc_path[i], tmp, sizeof tmp,
				  err)) == NULL) {
			rc = err->code;
			break;
		}
		sqlite3_reset(q);
		sqlite3_bind_int(q, 1, i);
		if (s->svc_tok[i])
			fprintf(f, "%s\n", TRACE_REQ_HEADER);
		while ((st = sqlite3_step(q)) == SQLITE_ROW) {
			sim_time v;
			if ((rc = transform(c, origin,
					    sqlite3_column_int64(q, 0), &v,
					    err)) != 0)
				break;
			imp_fmt_seconds(v, t, sizeof t);
			if (s->svc_tok[i])
				fprintf(f, "%s,%lld,%lld\n", t,
					sqlite3_column_int64(q, 1),
					sqlite3_column_int64(q, 2));
			else
				fprintf(f, "%s\n", t);
			c->stats->arrivals_written++;
		}
		if (rc == 0 && st != SQLITE_DONE)
			rc = db_err(s, err, "select arrivals");
		if ((ferror(f) | fclose(f)) != 0 && rc == 0)
			rc = sim_err_set(err, SIM_EIO, "%s: write failed",
					 s->svc_path[i]);
	}
	sqlite3_finalize(q);
	return rc;
}

static const char header[] =
	"# colosim-trace v1\n"
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms,"
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,arrival,"
	"rate,arrival_arg,batch_timeout_ms";

static int sink_write(struct imp_ctx *c, FILE *out, struct sim_err *err)
{
	struct imp_sink *s = c->sink;
	sqlite3_stmt *q;
	sim_time origin = 0;
	char t[32], idbuf[300];
	int st, rc = 0;

	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, err, "commit");
	if (c->rebase) {
		if (sqlite3_prepare_v2(s->db, "SELECT min(m) FROM (SELECT "
				       "min(submit_ns) AS m FROM job UNION ALL "
				       "SELECT min(t_ns) FROM arr)", -1, &q,
				       NULL) != SQLITE_OK)
			return db_err(s, err, "select origin");
		if (sqlite3_step(q) == SQLITE_ROW &&
		    sqlite3_column_type(q, 0) != SQLITE_NULL)
			origin = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	fputs(header, out);
	if (c->res_cols)
		fputs(",res_cpu_ms,res_gpu_ms,res_net_ms", out);
	if (c->host_cols)
		fputs(",cpu_milli,host_mem_mib", out);
	fputs(s->any_util ? ",gpu_util\n" : "\n", out);
	fprintf(out, "# imported by colosim import %s (docs/TRACE_FORMAT.md, "
		"Importers)\n", c->format);
	if (sqlite3_prepare_v2(s->db, "SELECT id, submit_ns, kind, rest FROM "
			       "job "
			       "ORDER BY submit_ns, seq", -1, &q, NULL) !=
	    SQLITE_OK)
		return db_err(s, err, "select jobs");
	while ((st = sqlite3_step(q)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(q, 0);
		const char *kind = (const char *)sqlite3_column_text(q, 2);
		const char *rest = (const char *)sqlite3_column_text(q, 3);
		size_t k = 0;

		sim_time v;

		if ((rc = transform(c, origin, sqlite3_column_int64(q, 1), &v,
				    err)) != 0)
			break;
		put_text(idbuf, sizeof idbuf, &k, id);
		imp_fmt_seconds(v, t, sizeof t);
		/* without any gpu_util the staged last field (empty) goes */
		fprintf(out, "%s,%s,%s,%.*s\n", idbuf, kind, t,
			(int)(strlen(rest) - (s->any_util ? 0 : 1)), rest);
		c->stats->jobs_written++;
	}
	if (rc == 0 && st != SQLITE_DONE)
		rc = db_err(s, err, "select jobs");
	sqlite3_finalize(q);
	if (rc == 0)
		rc = write_arrivals(c, origin, err);
	return rc;
}

/* Checks the options that do not depend on the format. */
static int check_opts(const struct imp_opts *o, struct sim_err *err)
{
	char names[256], buf[64];
	const char *p;

	if (!(o->compress > 0) || !isfinite(o->compress))
		return sim_err_set(err, SIM_EINVAL, "--compress: expected a "
				   "factor > 0, got %g", o->compress);
	if (!(o->sample > 0 && o->sample <= 1))
		return sim_err_set(err, SIM_EINVAL, "--sample: expected a "
				   "fraction in (0, 1], got %g", o->sample);
	if (!(o->gpu_scale > 0) || !isfinite(o->gpu_scale))
		return sim_err_set(err, SIM_EINVAL, "--gpu-scale: expected a "
				   "factor > 0, got %g", o->gpu_scale);
	if (o->length != IMP_LEN_ITERATIONS && o->length != IMP_LEN_DURATION)
		return sim_err_set(err, SIM_EINVAL, "--length: expected "
				   "iterations or duration");
	if (o->iter_scale < 0 || !isfinite(o->iter_scale) ||
	    o->iter_scale > 1000)
		return sim_err_set(err, SIM_EINVAL, "--iter-scale: expected a "
				   "factor in (0, 1000], got %g", o->iter_scale);
	if (o->max_gpus < 0 || o->batch < 0 || o->replicas < 0 ||
	    o->slo_ms < 0 || o->rate_per_s < 0)
		return sim_err_set(err, SIM_EINVAL, "negative option value");
	imp_zoo_list(names, sizeof names);
	if (o->model != NULL && !imp_is_zoo_model(o->model))
		return sim_err_set(err, SIM_EINVAL, "--model: unknown model "
				   "'%s' (known: %s)", o->model, names);
	for (p = o->model_map; p != NULL && *p != '\0';) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		size_t n;
		if (eq == NULL || (comma != NULL && comma < eq) || eq == p)
			return sim_err_set(err, SIM_EINVAL, "--model-map: "
					   "expected from=to,..., got '%s'",
					   o->model_map);
		n = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, eq + 1, n);
		buf[n] = '\0';
		if (!imp_is_zoo_model(buf))
			return sim_err_set(err, SIM_EINVAL, "--model-map: "
					   "unknown model '%s' (known: %s)",
					   buf, names);
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int imp_run(const struct imp_format *fmt, const char *const *inputs,
	    int ninputs, const char *out_path, FILE *out,
	    const struct imp_opts *opts, struct imp_stats *stats,
	    struct sim_err *err)
{
	struct imp_ctx c;
	char stem[512], tmp[700];
	FILE *f = out;
	int i, rc, bad;

	memset(stats, 0, sizeof *stats);
	memset(&c, 0, sizeof c);
	if ((rc = check_opts(opts, err)) != 0)
		return rc;
	if (ninputs < 1)
		return sim_err_set(err, SIM_EINVAL, "%s: no input file",
				   fmt->zName);
	if (out_path == NULL && out == NULL)
		return sim_err_set(err, SIM_EINVAL, "no output");
	c.opts = opts;
	c.stats = stats;
	c.format = fmt->zName;
	if (out_path != NULL) {
		size_t n = strlen(out_path);
		if (n >= sizeof stem)
			return sim_err_set(err, SIM_ERANGE, "%s: path too long",
					   out_path);
		memcpy(stem, out_path, n + 1);
		if (n > 4 && strcasecmp(stem + n - 4, ".csv") == 0)
			stem[n - 4] = '\0';
		c.out_stem = stem;
	}
	if ((rc = sim_rng_init(&c.rng, opts->seed, "import.sample", 0, err)))
		return rc;
	if (fmt->szState > 0 && (c.state = calloc(1, fmt->szState)) == NULL) {
		sim_rng_fini(&c.rng);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	rc = sink_open(&c.sink, err);
	for (i = 0; rc == 0 && i < ninputs; i++)
		rc = fmt->xFile(&c, inputs[i], err);
	if (rc == 0 && fmt->xFinish != NULL)
		rc = fmt->xFinish(&c, err);
	if (rc == 0 && out_path != NULL &&
	    (f = sim_out_open(out_path, tmp, sizeof tmp, err)) == NULL)
		rc = err->code;
	if (rc == 0)
		rc = sink_write(&c, f, err);
	if (f != NULL) {
		bad = ferror(f);
		if (out_path != NULL)
			bad |= fclose(f);
		else
			bad |= fflush(f);
		if (bad && rc == 0)
			rc = sim_err_set(err, SIM_EIO, "%s: write failed",
					 out_path ? out_path : "stdout");
	}
	/* The outputs were written under temporary names: rename them into
	** place, or remove them after a failure (a file the user already had
	** at a path stays as it was). */
	rc = finish_outputs(&c, out_path, rc, err);
	sink_close(c.sink);
	free(c.state);
	sim_rng_fini(&c.rng);
	return rc;
}
