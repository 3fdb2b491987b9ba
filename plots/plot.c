/*
** plot.c: data files from the results store and gnuplot runs (see plot.h).
**
** Every figure goes the same way: query the store with bound parameters,
** write NAME.dat (gnuplot's plain format: '#' comments, blocks separated by
** two blank lines, one block per policy), then run
**     gnuplot -e "VARIABLES" SCRIPTS/NAME.gp
** once per requested format, with the variables' strings quoted by
** plot_gp_quote.  gnuplot's output is captured; on failure its last line
** goes into the error.
*/
#include "plots/plot.h"
#include "plots/plot_int.h"

#include "sim/file.h"
#include "sim/strbuf.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiments/report.h"

extern char **environ;

#define HBM_BINS 100
/* The longest output folder (docs/LIMITS.md). */
#define PLOT_DIR_MAX 1000

/* ------------------------------------------------------------- utilities */

int plot_gp_quote(const char *s, char *out, size_t size)
{
	size_t n = 0;

	if (size < 3)
		return SIM_ENOSPC;
	out[n++] = '\'';
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return SIM_EINVAL;
		if (n + 4 > size)
			return SIM_ENOSPC;
		if (*s == '\'')
			out[n++] = '\'';
		out[n++] = *s;
	}
	out[n++] = '\'';
	out[n] = '\0';
	return 0;
}

/* A growable string; oom is sticky. */
/* Appends name='value' (quoted) and "; ".  Returns 0 or an error code. */
static int sb_var(struct sim_strbuf *b, const char *name, const char *value)
{
	size_t sz = strlen(value) * 2 + 3;
	char *q = malloc(sz);
	int rc;

	if (q == NULL)
		return SIM_ENOMEM;
	rc = plot_gp_quote(value, q, sz);
	if (rc == 0) {
		sim_strbuf_add(b, name);
		sim_strbuf_add(b, "=");
		sim_strbuf_add(b, q);
		sim_strbuf_add(b, "; ");
	}
	free(q);
	return b->oom ? SIM_ENOMEM : rc;
}

/*
** Runs argv (argv[0] looked up in PATH) with stdout and stderr captured
** into out (truncated to size).  *status receives the wait status.
** Returns 0, or -1 when the program could not be started (errno set).
*/
static int spawn_capture(char *const argv[], char *out, size_t size,
			 int *status)
{
	posix_spawn_file_actions_t fa;
	int fds[2], rc;
	size_t len = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fds) != 0)
		return -1;
	if (posix_spawn_file_actions_init(&fa) != 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		errno = rc;
		return -1;
	}
	for (;;) {
		char tmp[4096];
		ssize_t r = read(fds[0], tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (len + 1 < size) {
			size_t k = (size_t)r < size - 1 - len ? (size_t)r
							      : size - 1 - len;
			memcpy(out + len, tmp, k);
			len += k;
			out[len] = '\0';
		}
	}
	close(fds[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int plot_terminals(const char *gnuplot, char *buf, size_t size,
		   struct sim_err *err)
{
	char prog[256], cmd[] = "print GPVAL_TERMINALS", opt[] = "-e";
	char *argv[4];
	int status = 0;

	snprintf(prog, sizeof prog, "%s", gnuplot ? gnuplot : "gnuplot");
	argv[0] = prog;
	argv[1] = opt;
	argv[2] = cmd;
	argv[3] = NULL;
	if (spawn_capture(argv, buf, size, &status) != 0 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return sim_err_set(err, SIM_ENOENT, "cannot run '%s': %s; "
				   "install gnuplot (Debian: apt-get install "
				   "gnuplot-nox)", prog, errno ? strerror(errno)
				   : "not found");
	if (WEXITSTATUS(status) != 0)
		return sim_err_set(err, SIM_EIO, "'%s' failed to list its "
				   "terminals: %s", prog, buf);
	return 0;
}

int plot_gnuplot(const char *gnuplot, const char *script,
		 const char *const *names, const char *const *values,
		 size_t n, const char *outfile, struct sim_err *err)
{
	struct sim_strbuf e = {0};
	char prog[256], opt[] = "-e", spath[1100], outbuf[8192];
	char *argv[5];
	struct stat st;
	int status = 0, rc = 0;
	size_t i;

	for (i = 0; rc == 0 && i < n; i++)
		rc = sb_var(&e, names[i], values[i]);
	if (rc != 0 || e.oom) {
		free(e.s);
		return sim_err_set(err, rc ? rc : SIM_ENOMEM, "%s: cannot quote "
				   "a value for gnuplot", script);
	}
	snprintf(prog, sizeof prog, "%s", gnuplot ? gnuplot : "gnuplot");
	snprintf(spath, sizeof spath, "%s", script);
	argv[0] = prog;
	argv[1] = opt;
	argv[2] = e.s != NULL ? e.s : opt + 2;
	argv[3] = spath;
	argv[4] = NULL;
	if (outfile != NULL)
		unlink(outfile);
	if (spawn_capture(argv, outbuf, sizeof outbuf, &status) != 0) {
		free(e.s);
		return sim_err_set(err, SIM_ENOENT, "cannot run '%s': %s; "
				   "install gnuplot (Debian: apt-get install "
				   "gnuplot-nox)", prog, strerror(errno));
	}
	free(e.s);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    (outfile != NULL && (stat(outfile, &st) != 0 ||
				 st.st_size == 0))) {
		char *end = outbuf + strlen(outbuf), *line;
		while (end > outbuf && (end[-1] == '\n' || end[-1] == ' '))
			*--end = '\0';
		line = strrchr(outbuf, '\n');
		line = line ? line + 1 : outbuf;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return sim_err_set(err, SIM_ENOENT, "cannot run '%s'; "
					   "install gnuplot (Debian: apt-get "
					   "install gnuplot-nox)", prog);
		return sim_err_set(err, SIM_EIO, "gnuplot failed on %s: %s",
				   script, *line ? line : "no output file");
	}
	return 0;
}

/* 1 when the space-separated list has word w. */
static int has_word(const char *list, const char *w)
{
	size_t l = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w)) != NULL) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[l] == '\0' || p[l] == ' ' || p[l] == '\n'))
			return 1;
		p += l;
	}
	return 0;
}

const char *plot_find_scripts(void)
{
	static const char *const dirs[] = {
		"plots", "/usr/local/share/colosim/plots",
		"/usr/share/colosim/plots", NULL
	};
	const char *env = getenv("COLOSIM_PLOTS");
	char path[1024];
	struct stat st;
	int i;

	if (env != NULL && *env != '\0')
		return env;
	for (i = 0; dirs[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/style.gp", dirs[i]);
		if (stat(path, &st) == 0)
			return dirs[i];
	}
	return NULL;
}

/* mkdir -p */
static int make_dirs(const char *dir, struct sim_err *err)
{
	char buf[1024];
	size_t i, l = strlen(dir);
	struct stat st;

	if (l == 0 || l >= sizeof buf)
		return sim_err_set(err, SIM_EINVAL, "bad output folder '%s'",
				   dir);
	memcpy(buf, dir, l + 1);
	for (i = 1; i <= l; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return sim_err_set(err, SIM_EIO, "%s: cannot create: "
					   "%s", buf, strerror(errno));
		if (i < l)
			buf[i] = '/';
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return sim_err_set(err, SIM_EIO, "%s: not a folder", dir);
	return 0;
}

/* ------------------------------------------------------------ the state */

int plot__db_fail(struct plotter *p, const char *what, struct sim_err *err)
{
	return sim_err_set(err, SIM_EIO, "results database: %s: %s", what,
			   sqlite3_errmsg(p->db));
}

void plot__note(struct plotter *p, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	sim_strbuf_add(&p->notes, line);
	sim_strbuf_add(&p->notes, "\n");
}

static int add_path(struct plotter *p, const char *path, struct sim_err *err)
{
	char **v = realloc(p->out->paths, (p->out->npaths + 1) * sizeof *v);

	if (v == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	p->out->paths = v;
	v[p->out->npaths] = malloc(strlen(path) + 1);
	if (v[p->out->npaths] == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	strcpy(v[p->out->npaths++], path);
	return 0;
}

static void free_variants(struct plotter *p)
{
	size_t i;

	for (i = 0; i < p->nvariants; i++)
		free(p->variants[i]);
	free(p->variants);
	p->variants = NULL;
	p->nvariants = 0;
}

/* Reads a one-text-column query (bound ?1 = id, ?2 = setting when given)
** into a heap array of heap strings. */
static int query_strings(struct plotter *p, const char *sql,
			 const char *setting, char ***out, size_t *nout,
			 struct sim_err *err)
{
	sqlite3_stmt *st;
	char **v = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	*nout = 0;
	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK)
		return plot__db_fail(p, "query", err);
	if (sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK ||
	    (setting && sqlite3_bind_text(st, 2, setting, -1,
					  SQLITE_TRANSIENT) != SQLITE_OK)) {
		sqlite3_finalize(st);
		return plot__db_fail(p, "bind", err);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		char **q = realloc(v, (n + 1) * sizeof *q);
		if (q == NULL || (q[n] = malloc(strlen(t ? t : "") + 1)) == NULL) {
			if (q != NULL)
				v = q;
			rc = SQLITE_NOMEM;
			break;
		}
		v = q;
		strcpy(v[n++], t ? t : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		exp_strv_free(v, n);
		return rc == SQLITE_NOMEM ? sim_err_set(err, SIM_ENOMEM,
							"out of memory")
					  : plot__db_fail(p, "query", err);
	}
	*out = v;
	*nout = n;
	return 0;
}

/* ---------------------------------------------------------------- figures */

int plot__draw(struct plotter *p, const char *name, const char *script,
	       const char *const *titles, size_t n, const struct plot_vars *v,
	       struct sim_err *err)
{
	static const struct plot_vars none = {0};
	char data[1200], fig[1100], spath[1300], num[128], outbuf[8192];
	char tmpf[1200], figl[1200], sdir[1100];
	size_t f, i;
	int rc;

	/* Every path gnuplot sees is literal (sim_path_literal: no "<cmd" or
	** "|cmd" pipe), and the figure is drawn into a temporary name and
	** renamed once gnuplot succeeded, so a failure leaves no partial
	** figure. */
	snprintf(tmpf, sizeof tmpf, "%s/%s%s.dat", p->o->out_dir, name,
		 p->suffix);
	if ((rc = sim_path_literal(tmpf, data, sizeof data, "data file",
				   err)) ||
	    (rc = sim_path_literal(p->scripts, sdir, sizeof sdir,
				   "scripts folder", err)))
		return rc;
	snprintf(spath, sizeof spath, "%s/%s.gp", sdir, script);
	for (f = 0; f < 3; f++) {
		struct sim_strbuf e = {0};
		char prog[256], opt[] = "-e";
		char *argv[5];
		struct stat st;
		int status = 0;
		if (p->terms[f] == NULL)
			continue;
		snprintf(fig, sizeof fig, "%s/%s%s.%s", p->o->out_dir, name,
			 p->suffix, p->exts[f]);
		if (sim_out_tmpname(fig, tmpf, sizeof tmpf) != 0 ||
		    sim_path_literal(tmpf, figl, sizeof figl, "figure",
				     err) != 0)
			return sim_err_set(err, SIM_ENOSPC, "%s: path too "
					   "long", fig);
		rc = sb_var(&e, "fmt", p->exts[f]);
		if (!rc) rc = sb_var(&e, "term", p->terms[f]);
		if (!rc) rc = sb_var(&e, "outfile", figl);
		if (!rc) rc = sb_var(&e, "datafile", data);
		if (!rc) rc = sb_var(&e, "scriptdir", sdir);
		if (!rc) rc = sb_var(&e, "figtitle", p->setting);
		if (v == NULL)
			v = &none;
		if (!rc) rc = sb_var(&e, "ylabel", v->ylabel ? v->ylabel : "");
		if (!rc) rc = sb_var(&e, "xlabel", v->xlabel ? v->xlabel : "");
		snprintf(num, sizeof num, "n=%zu; ymax=%.17g; logx=%d; array "
			 "titles[%zu]; ", n, v->ymax, v->logx, n ? n : 1);
		sim_strbuf_add(&e, num);
		if (v->extra != NULL)
			sim_strbuf_add(&e, v->extra);
		snprintf(num, sizeof num, "array lts[%zu]; ", n ? n : 1);
		sim_strbuf_add(&e, num);
		for (i = 0; i < n; i++) {
			snprintf(num, sizeof num, "lts[%zu]=%zu; ", i + 1,
				 v->lts ? v->lts[i] : i + 1);
			sim_strbuf_add(&e, num);
		}
		for (i = 0; rc == 0 && i < n; i++) {
			snprintf(num, sizeof num, "titles[%zu]", i + 1);
			rc = sb_var(&e, num, titles[i]);
		}
		if (rc != 0 || e.oom) {
			free(e.s);
			return sim_err_set(err, rc ? rc : SIM_ENOMEM, "%s: "
					   "cannot quote a label or path for "
					   "gnuplot", name);
		}
		snprintf(prog, sizeof prog, "%s",
			 p->o->gnuplot ? p->o->gnuplot : "gnuplot");
		argv[0] = prog;
		argv[1] = opt;
		argv[2] = e.s;
		argv[3] = spath;
		argv[4] = NULL;
		unlink(tmpf);
		if (spawn_capture(argv, outbuf, sizeof outbuf, &status) != 0) {
			free(e.s);
			return sim_err_set(err, SIM_ENOENT, "cannot run '%s': "
					   "%s", prog, strerror(errno));
		}
		free(e.s);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
		    stat(tmpf, &st) != 0 || st.st_size == 0) {
			/* the last non-empty line of gnuplot's output */
			char *end = outbuf + strlen(outbuf), *line;
			while (end > outbuf && (end[-1] == '\n' || end[-1] == ' '))
				*--end = '\0';
			line = strrchr(outbuf, '\n');
			line = line ? line + 1 : outbuf;
			sim_out_abort(tmpf);
			return sim_err_set(err, SIM_EIO, "gnuplot failed on %s "
					   "(%s): %s", fig, spath,
					   *line ? line : "no output file");
		}
		if ((rc = sim_out_commit(tmpf, fig, err)) != 0 ||
		    (rc = add_path(p, fig, err)) != 0)
			return rc;
	}
	return 0;
}

/* Opens output path under its temporary name (p->tmp; one at a time). */
static FILE *open_out(struct plotter *p, const char *path,
		      struct sim_err *err)
{
	return sim_out_open(path, p->tmp, sizeof p->tmp, err);
}

FILE *plot__open_data(struct plotter *p, const char *name, char *path,
		      size_t size, struct sim_err *err)
{
	snprintf(path, size, "%s/%s%s.dat", p->o->out_dir, name, p->suffix);
	return open_out(p, path, err);
}

/* Closes the output opened by open_out and renames it onto path; on a
** write error the temporary is removed. */
int plot__close_data(struct plotter *p, FILE *f, const char *path,
		     struct sim_err *err)
{
	int rc;

	if ((rc = sim_out_close(f, p->tmp, path, 0, err)) != 0)
		return rc;
	return add_path(p, path, err);
}

/* Drops an output abandoned after an error. */
void plot__drop_data(struct plotter *p, FILE *f)
{
	fclose(f);
	sim_out_abort(p->tmp);
}

/* Writes one "# policy: LABEL" header; labels are printable (config.c). */
static void block_head(FILE *f, size_t k, const char *label)
{
	if (k > 0)
		fputs("\n\n", f);
	fprintf(f, "# policy: %s\n", label);
}

/*
** A CDF figure: sql yields ascending x values (jct) for ?1 id, ?2 setting,
** ?3 variant; or, with hist set, (lo, hi, count) bins in ascending order.
*/
static int fig_cdf(struct plotter *p, const char *name, const char *what,
		   const char *sql, int hist, struct sim_err *err)
{
	const char **titles = calloc(p->nvariants + 1, sizeof *titles);
	size_t *lts = calloc(p->nvariants + 1, sizeof *lts);
	struct plot_vars pv = {0};
	char path[1100];
	size_t v, nt = 0;
	sqlite3_stmt *st = NULL;
	FILE *f;
	int rc = 0;

	if (titles == NULL || lts == NULL) {
		free(titles);
		free(lts);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	if ((f = plot__open_data(p, name, path, sizeof path, err)) == NULL) {
		free(titles);
		free(lts);
		return err->code;
	}
	fprintf(f, "# colosim: %s CDF per policy, pooled over replications\n"
		"# columns: x cdf\n", what);
	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = plot__db_fail(p, name, err);
		goto out;
	}
	for (v = 0; v < p->nvariants; v++) {
		double total = 0, cum = 0;
		int r;
		size_t k = 0;
		sqlite3_reset(st);
		if (sqlite3_bind_int64(st, 1, p->id) != SQLITE_OK ||
		    sqlite3_bind_text(st, 2, p->setting, -1,
				      SQLITE_TRANSIENT) != SQLITE_OK ||
		    sqlite3_bind_text(st, 3, p->variants[v], -1,
				      SQLITE_TRANSIENT) != SQLITE_OK) {
			rc = plot__db_fail(p, "bind", err);
			goto out;
		}
		/* First pass: the total. */
		while ((r = sqlite3_step(st)) == SQLITE_ROW)
			total += hist ? sqlite3_column_double(st, 2) : 1;
		if (r != SQLITE_DONE) {
			rc = plot__db_fail(p, name, err);
			goto out;
		}
		if (total <= 0)
			continue;
		block_head(f, nt, p->variants[v]);
		lts[nt] = v + 1;
		titles[nt++] = p->variants[v];
		sqlite3_reset(st);
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			if (hist) {
				if (k++ == 0)
					fprintf(f, "%.17g 0\n",
						sqlite3_column_double(st, 0));
				cum += sqlite3_column_double(st, 2);
				fprintf(f, "%.17g %.17g\n",
					sqlite3_column_double(st, 1),
					cum / total);
			} else {
				/* start the step at (first x, 0) */
				if (k++ == 0)
					fprintf(f, "%.17g 0\n",
						sqlite3_column_double(st, 0));
				cum += 1;
				fprintf(f, "%.17g %.17g\n",
					sqlite3_column_double(st, 0),
					cum / total);
			}
		}
		if (r != SQLITE_DONE) {
			rc = plot__db_fail(p, name, err);
			goto out;
		}
	}
out:
	sqlite3_finalize(st);
	if (rc) {
		plot__drop_data(p, f);
		free(titles);
		free(lts);
		return rc;
	}
	if ((rc = plot__close_data(p, f, path, err)) == 0) {
		pv.lts = lts;
		if (nt == 0)
			plot__note(p, "%s%s: no data, figure skipped", name,
				   p->suffix);
		else
			rc = plot__draw(p, name, name, titles, nt, &pv, err);
	}
	free(titles);
	free(lts);
	return rc;
}

static int fig_jct(struct plotter *p, struct sim_err *err)
{
	/* Training jobs only: a service's "completion" is its lifetime. */
	return fig_cdf(p, "jct_cdf", "job completion time (s)",
		"SELECT j.jct_s FROM jobs j JOIN runs r ON j.run_id = r.id"
		" WHERE r.experiment_id = ?1 AND r.setting = ?2"
		" AND r.variant = ?3 AND r.status = 'done'"
		" AND j.status = 'done' AND j.kind = 'train' AND j.jct_s > 0"
		" ORDER BY j.jct_s", 0,
		err);
}

static int fig_latency(struct plotter *p, struct sim_err *err)
{
	return fig_cdf(p, "latency_cdf", "request latency (ms)",
		"SELECT l.lo_ms, l.hi_ms, sum(l.count) FROM latency l"
		" JOIN runs r ON l.run_id = r.id WHERE r.experiment_id = ?1"
		" AND r.setting = ?2 AND r.variant = ?3 AND r.status = 'done'"
		" AND l.hi_ms > 0 GROUP BY l.lo_ms, l.hi_ms"
		" ORDER BY l.hi_ms, l.lo_ms", 1, err);
}

/* HBM over time: 100 bins over [0, t_max], mean over runs and GPUs. */
static int fig_hbm(struct plotter *p, struct sim_err *err)
{
	static const char *const sql =
		"SELECT s.t_s, s.hbm_frac FROM series s JOIN runs r"
		" ON s.run_id = r.id WHERE r.experiment_id = ?1"
		" AND r.setting = ?2 AND r.variant = ?3 AND r.status = 'done'"
		" AND s.hbm_frac IS NOT NULL AND (s.gpu = -1) = ?4";
	const char **titles = calloc(p->nvariants + 1, sizeof *titles);
	size_t lts[256];
	struct plot_vars pv = {0};
	double sum[HBM_BINS], tmax = 0;
	long cnt[HBM_BINS];
	char path[1100];
	sqlite3_stmt *st = NULL;
	size_t v, nt = 0;
	int cluster = 0, rc = 0, pass, b, r;
	FILE *f;

	if (titles == NULL)
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	if ((f = plot__open_data(p, "hbm_util", path, sizeof path, err)) == NULL) {
		free(titles);
		return err->code;
	}
	fputs("# colosim: HBM allocated (% of capacity) over time per policy;"
	      "\n# mean over replications (and over GPUs when no cluster-wide "
	      "series was stored)\n# in 100 time bins\n# columns: t_s "
	      "hbm_pct\n", f);
	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = plot__db_fail(p, "hbm_util", err);
		goto out;
	}
	/* Pass 0 finds t_max and whether cluster-wide rows exist; pass 1
	** writes the blocks. */
	for (pass = 0; pass < 2; pass++) {
		int mode;
		for (mode = 1; mode >= 0; mode--) {
			if (pass == 1 && mode != cluster)
				continue;
			for (v = 0; v < p->nvariants; v++) {
				int any = 0;
				sqlite3_reset(st);
				if (sqlite3_bind_int64(st, 1, p->id) ||
				    sqlite3_bind_text(st, 2, p->setting, -1,
						      SQLITE_TRANSIENT) ||
				    sqlite3_bind_text(st, 3, p->variants[v], -1,
						      SQLITE_TRANSIENT) ||
				    sqlite3_bind_int(st, 4, mode)) {
					rc = plot__db_fail(p, "bind", err);
					goto out;
				}
				for (b = 0; b < HBM_BINS; b++) {
					sum[b] = 0;
					cnt[b] = 0;
				}
				while ((r = sqlite3_step(st)) == SQLITE_ROW) {
					double t = sqlite3_column_double(st, 0);
					any = 1;
					if (pass == 0) {
						if (t > tmax)
							tmax = t;
						continue;
					}
					b = tmax > 0 ? (int)(t / tmax * HBM_BINS) : 0;
					if (b >= HBM_BINS)
						b = HBM_BINS - 1;
					if (b < 0)
						b = 0;
					sum[b] += sqlite3_column_double(st, 1);
					cnt[b]++;
				}
				if (r != SQLITE_DONE) {
					rc = plot__db_fail(p, "hbm_util", err);
					goto out;
				}
				if (pass == 0 && any && mode == 1)
					cluster = 1;
				if (pass == 0 || !any)
					continue;
				block_head(f, nt, p->variants[v]);
				if (nt < sizeof lts / sizeof lts[0])
					lts[nt] = v + 1;
				titles[nt++] = p->variants[v];
				for (b = 0; b < HBM_BINS; b++)
					if (cnt[b] > 0)
						fprintf(f, "%.17g %.17g\n",
							(b + 0.5) * tmax / HBM_BINS,
							100 * sum[b] / (double)cnt[b]);
			}
			if (pass == 0 && cluster)
				break;
		}
	}
out:
	sqlite3_finalize(st);
	if (rc) {
		plot__drop_data(p, f);
		free(titles);
		return rc;
	}
	if ((rc = plot__close_data(p, f, path, err)) == 0) {
		if (nt == 0)
			plot__note(p, "%s%s: no data, figure skipped", "hbm_util",
			     p->suffix);
		else
		{
			pv.lts = nt <= sizeof lts / sizeof lts[0] ? lts : NULL;
			rc = plot__draw(p, "hbm_util", "hbm_util", titles, nt,
					&pv, err);
		}
	}
	free(titles);
	return rc;
}

/* Chooses a terminal per requested format from what gnuplot offers. */
static int pick_terminals(struct plotter *p, unsigned formats,
			  struct sim_err *err)
{
	char terms[4096];
	int rc = plot_terminals(p->o->gnuplot, terms, sizeof terms, err);

	if (rc != 0)
		return rc;
	p->exts[0] = "pdf";
	p->exts[1] = "png";
	p->exts[2] = "svg";
	if (formats & PLOT_PDF) {
		if (has_word(terms, "pdfcairo"))
			p->terms[0] = "pdfcairo";
		else
			plot__note(p, "pdf: gnuplot has no pdfcairo terminal; PDFs "
			     "skipped (install gnuplot-nox or gnuplot-qt)");
	}
	if (formats & PLOT_PNG) {
		if (has_word(terms, "pngcairo"))
			p->terms[1] = "pngcairo";
		else if (has_word(terms, "png")) {
			p->terms[1] = "png";
			plot__note(p, "png: no pngcairo terminal, using libgd's png "
			     "(rougher anti-aliasing)");
		} else
			plot__note(p, "png: gnuplot has neither pngcairo nor png; "
			     "PNGs skipped");
	}
	if ((formats & PLOT_SVG) && has_word(terms, "svg"))
		p->terms[2] = "svg";
	if (!p->terms[0] && !p->terms[1] && !p->terms[2])
		return sim_err_set(err, SIM_ENOENT, "gnuplot offers none of "
				   "the requested terminals (pdfcairo, "
				   "pngcairo/png, svg); install gnuplot-nox");
	return 0;
}

/* The default metric figures: bars and paired differences. */
static const char *const default_metrics[] = {
	"makespan_s", "hbm_util_mean", "slo_attainment", NULL
};

/* Calls fn for each metric of --metric's list (or the defaults). */
static int each_metric(struct plotter *p,
		       int (*fn)(struct plotter *, const char *,
				 struct sim_err *), struct sim_err *err)
{
	const char *l = p->o->metrics;
	char name[64];
	int i, rc;

	if (l == NULL) {
		for (i = 0; default_metrics[i] != NULL; i++)
			if ((rc = fn(p, default_metrics[i], err)) != 0)
				return rc;
		return 0;
	}
	while (*l) {
		size_t n = strcspn(l, ",");
		snprintf(name, sizeof name, "%.*s", (int)n, l);
		if ((rc = fn(p, name, err)) != 0)
			return rc;
		l += n + (l[n] == ',');
	}
	return 0;
}

/* Both metric figures of one metric. */
static int metric_figs(struct plotter *p, const char *metric,
		       struct sim_err *err)
{
	int rc = plot__bars(p, metric, err);

	return rc ? rc : plot__diff(p, metric, err);
}

static int draw_setting(struct plotter *p, struct sim_err *err)
{
	const struct plot_opts *o = p->o;
	int only = o->metrics != NULL || o->want_gpu || o->timeline;
	int rc;

	free_variants(p);
	if ((rc = query_strings(p, "SELECT variant FROM runs WHERE "
				"experiment_id = ?1 AND setting = ?2 AND "
				"status = 'done' GROUP BY variant ORDER BY "
				"min(run_index)", p->setting, &p->variants,
				&p->nvariants, err)) != 0)
		return rc;
	if (!only &&
	    ((rc = fig_jct(p, err)) || (rc = fig_hbm(p, err)) ||
	     (rc = fig_latency(p, err)) || (rc = plot__llm(p, err))))
		return rc;
	if ((!only || o->metrics != NULL) &&
	    (rc = each_metric(p, metric_figs, err)) != 0)
		return rc;
	if (o->want_gpu && (rc = plot__gpu(p, err)) != 0)
		return rc;
	if (o->timeline && (rc = plot__timeline(p, err)) != 0)
		return rc;
	return 0;
}

/* Checks --metric's names against the stored metrics first: one error
** naming the unknown one instead of a run of skipped figures. */
static int check_metrics(struct plotter *p, struct sim_err *err)
{
	const char *l = p->o->metrics;
	size_t i;

	while (l != NULL && *l) {
		size_t n = strcspn(l, ",");
		int found = 0;
		for (i = 0; i < p->rep->nrows && !found; i++)
			found = strlen(p->rep->rows[i].metric) == n &&
				strncmp(p->rep->rows[i].metric, l, n) == 0;
		if (!found || n == 0)
			return sim_err_set(err, SIM_ENOENT, "--metric: no metric "
					   "'%.*s' in experiment %s", (int)n, l,
					   p->rep->experiment);
		l += n + (l[n] == ',');
	}
	return 0;
}

int plot_experiment(struct store *s, const char *experiment,
		    const struct plot_opts *o, struct plot_output *out,
		    struct sim_err *err)
{
	struct plotter p;
	struct rep_table rep;
	char **settings = NULL, spath[1100];
	size_t nset = 0, k;
	struct stat st;
	int rc;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	memset(&rep, 0, sizeof rep);
	/* every file name below is the folder plus at most ~40 characters,
	** in 1100-byte buffers: a longer folder is refused, never cut */
	if ((rc = sim_path_literal(o->out_dir, spath, sizeof spath,
				   "--out", err)) != 0)
		return rc;
	if (strlen(o->out_dir) > PLOT_DIR_MAX)
		return sim_err_set(err, SIM_EINVAL, "--out: longer than %d "
				   "characters (docs/LIMITS.md)", PLOT_DIR_MAX);
	p.s = s;
	p.db = store_db(s);
	p.o = o;
	p.out = out;
	p.scripts = o->scripts_dir ? o->scripts_dir : plot_find_scripts();
	if (p.scripts == NULL)
		return sim_err_set(err, SIM_ENOENT, "cannot find the gnuplot "
				   "scripts (plots/style.gp): run from the "
				   "source tree, set COLOSIM_PLOTS, or pass "
				   "--scripts DIR");
	snprintf(spath, sizeof spath, "%s/style.gp", p.scripts);
	if (stat(spath, &st) != 0)
		return sim_err_set(err, SIM_ENOENT, "%s: no such script",
				   spath);
	if ((rc = rep_build(s, experiment, NULL, o->conf > 0 ? o->conf : 0.95,
			    &rep, err)) != 0)
		return rc;
	p.rep = &rep;
	if ((rc = check_metrics(&p, err)) ||
	    (rc = store_find_experiment(s, rep.experiment, &p.id, NULL, err)) ||
	    (rc = make_dirs(o->out_dir, err)) ||
	    (rc = pick_terminals(&p, o->formats ? o->formats
				 : PLOT_PDF | PLOT_PNG, err)) ||
	    (rc = query_strings(&p, "SELECT setting FROM runs WHERE "
				"experiment_id = ?1 AND status = 'done' GROUP "
				"BY setting ORDER BY min(run_index)", NULL,
				&settings, &nset, err)))
		goto out;
	if (nset == 0) {
		rc = sim_err_set(err, SIM_ENOENT, "experiment '%s' has no "
				 "finished run to plot", rep.experiment);
		goto out;
	}
	if (nset > 1) {
		FILE *f;
		snprintf(spath, sizeof spath, "%s/settings.txt", o->out_dir);
		if ((f = open_out(&p, spath, err)) == NULL) {
			rc = err->code;
			goto out;
		}
		for (k = 0; k < nset; k++)
			fprintf(f, "s%zu %s\n", k + 1, settings[k]);
		if ((rc = plot__close_data(&p, f, spath, err)) != 0)
			goto out;
	}
	for (k = 0; k < nset && rc == 0; k++) {
		p.setting = settings[k];
		if (nset > 1)
			snprintf(p.suffix, sizeof p.suffix, "-s%zu", k + 1);
		rc = draw_setting(&p, err);
	}
	/* Metric against parameter: over the settings, so once. */
	p.setting = "";
	p.suffix[0] = '\0';
	if (rc == 0 && (o->metrics != NULL || (!o->want_gpu && !o->timeline)))
		rc = each_metric(&p, plot__sweeps, err);
out:
	free_variants(&p);
	exp_strv_free(settings, nset);
	rep_table_fini(&rep);
	if (p.notes.oom) {
		free(p.notes.s);
		p.notes.s = NULL;
	}
	out->notes = p.notes.s;
	if (out->notes == NULL && (out->notes = calloc(1, 1)) == NULL && !rc)
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
	if (rc)
		plot_output_fini(out);
	return rc;
}

void plot_output_fini(struct plot_output *out)
{
	exp_strv_free(out->paths, out->npaths);
	free(out->notes);
	memset(out, 0, sizeof *out);
}
