/*
** runner.c: the sweep runner (see runner.h).
**
** Parent: keeps up to `jobs` children in flight, polls their pipes, reads
** each child's whole message, reaps it and stores the run.  Child: ignores
** SIGINT (the terminal sends it to the whole process group; the parent
** decides), simulates, writes one message, _exits without running atexit
** handlers or touching the parent's SQLite handle.
**
** Message (same binary on both ends, so raw structs are fine; the header
** carries the struct sizes, see runner_int.h):
**   struct wire_head, then msglen bytes of error text, then the metrics,
**   jobs, series, latency and placement arrays.  The MPI runner
**   (runner_mpi.c) sends the same message from a worker rank to rank 0.
*/
#include "experiments/runner.h"
#include "experiments/runner_int.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "models/device.h"
#include "policies/policy.h"
#include "models/cluster.h"
#include "traces/trace.h"

#define WIRE_MAGIC 0x636f6c72u

/* The sizes of the raw structs a message carries: a message from another
** build (another struct layout) is refused rather than misread. */
#define WIRE_LAYOUT ((uint64_t)sizeof(struct res_metric) |              \
		     (uint64_t)sizeof(struct res_job) << 12 |             \
		     (uint64_t)sizeof(struct res_series) << 24 |          \
		     (uint64_t)sizeof(struct res_lat_bin) << 36 |         \
		     (uint64_t)sizeof(struct res_place) << 48)
/* and of the named histograms and series (schema 3) */
#define WIRE_LAYOUT2 ((uint64_t)sizeof(struct res_hist_bin) |            \
		      (uint64_t)sizeof(struct res_point) << 12)
_Static_assert(sizeof(struct res_hist_bin) < 4096 &&
	       sizeof(struct res_point) < 4096, "WIRE_LAYOUT2 packs them too");
_Static_assert(sizeof(struct res_metric) < 4096 &&
	       sizeof(struct res_job) < 4096 &&
	       sizeof(struct res_series) < 4096 &&
	       sizeof(struct res_lat_bin) < 4096 &&
	       sizeof(struct res_place) < 4096,
	       "WIRE_LAYOUT packs each struct size in 12 bits");

struct wire_head {
	uint32_t magic;
	int32_t rc;
	uint64_t layout, layout2;
	uint32_t msglen;
	uint64_t events;
	double wall_s;
	uint64_t nmetrics, njobs, nseries, nlat, nplace, nhists, npoints;
};

struct slot {
	pid_t pid;
	int fd;
	size_t run;                /* index into the matrix */
	struct exp_run_spec spec;  /* run `run`, owned while in flight */
	struct exp_wire w;
};

double exp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void exp_wire_fini(struct exp_wire *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

/* Where a message goes: a pipe (the child) or a buffer (inline). */
typedef int (*wire_put_fn)(void *ctx, const void *p, size_t n);

/* Writes all of buf to the fd *ctx (retrying short writes); 0 or -1. */
static int put_fd(void *ctx, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	int fd = *(int *)ctx;

	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Makes room for `more` bytes in w; 0 or -1. */
static int wire_reserve(struct exp_wire *w, size_t more)
{
	size_t c;
	unsigned char *p;

	if (w->cap - w->len >= more)
		return 0;
	c = w->cap ? w->cap : 65536;
	while (c - w->len < more)
		c *= 2;
	p = realloc(w->buf, c);
	if (p == NULL)
		return -1;
	w->buf = p;
	w->cap = c;
	return 0;
}

/* Appends to the struct exp_wire *ctx; 0 or -1. */
static int put_mem(void *ctx, const void *p, size_t n)
{
	struct exp_wire *w = ctx;

	if (n == 0)
		return 0;
	if (wire_reserve(w, n) != 0)
		return -1;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

/* Writes the message of one run (rc, err's text when rc != 0, else res). */
static int wire_write(wire_put_fn put, void *ctx, int rc,
		      const struct sim_err *err, const struct run_result *res)
{
	struct wire_head h;

	memset(&h, 0, sizeof h);
	h.magic = WIRE_MAGIC;
	h.layout = WIRE_LAYOUT;
	h.layout2 = WIRE_LAYOUT2;
	h.rc = rc;
	if (rc == 0) {
		h.events = res->events;
		h.wall_s = res->wall_s;
		h.nmetrics = res->nmetrics;
		h.njobs = res->njobs;
		h.nseries = res->nseries;
		h.nlat = res->nlat;
		h.nplace = res->nplace;
		h.nhists = res->nhists;
		h.npoints = res->npoints;
	} else {
		h.msglen = (uint32_t)strlen(err->msg);
	}
	if (put(ctx, &h, sizeof h) ||
	    put(ctx, err->msg, h.msglen) ||
	    put(ctx, res->metrics, h.nmetrics * sizeof *res->metrics) ||
	    put(ctx, res->jobs, h.njobs * sizeof *res->jobs) ||
	    put(ctx, res->series, h.nseries * sizeof *res->series) ||
	    put(ctx, res->lat, h.nlat * sizeof *res->lat) ||
	    put(ctx, res->place, h.nplace * sizeof *res->place) ||
	    put(ctx, res->hists, h.nhists * sizeof *res->hists) ||
	    put(ctx, res->points, h.npoints * sizeof *res->points))
		return -1;
	return 0;
}

/* Simulates spec and fills res, timing it; returns the simulator's code. */
static int simulate_one(const struct exp_runner_opts *o,
			const struct exp_run_spec *spec, struct run_result *res,
			struct sim_err *err)
{
	double t0 = exp_now_s();
	int rc;

	run_result_init(res);
	sim_err_clear(err);
	rc = o->simulate(spec, res, err);
	if (rc == 0 && res->wall_s <= 0)
		res->wall_s = exp_now_s() - t0;
	if (rc != 0 && err->msg[0] == '\0')
		sim_err_set(err, rc, "%s", sim_strerror(rc));
	return rc;
}

/* The child's side: never returns. */
static void child_main(int fd, const struct exp_runner_opts *o,
		       const struct exp_run_spec *spec)
{
	struct run_result res;
	struct sim_err err;
	int rc;

	signal(SIGINT, SIG_IGN);
	rc = simulate_one(o, spec, &res, &err);
	if (wire_write(put_fd, &fd, rc, &err, &res) != 0)
		_exit(3);
	_exit(0);
}

/*
** Decodes a message into res (initialised here) or msg.  Returns 0 for a
** simulated run, 1 for a run the simulator failed (msg filled), -1 for a
** truncated or garbled message, -2 out of memory.
*/
static int decode(const unsigned char *buf, size_t len, struct run_result *res,
		  char *msg, size_t msgsize)
{
	struct wire_head h;
	size_t need, off;

	run_result_init(res);
	if (len < sizeof h)
		return -1;
	memcpy(&h, buf, sizeof h);
	if (h.magic != WIRE_MAGIC || h.layout != WIRE_LAYOUT ||
	    h.layout2 != WIRE_LAYOUT2 || h.msglen >= SIM_ERR_MSG_MAX)
		return -1;
	need = sizeof h + h.msglen;
	if (h.nmetrics > len || h.njobs > len || h.nseries > len ||
	    h.nlat > len || h.nplace > len || h.nhists > len ||
	    h.npoints > len)
		return -1;
	need += h.nmetrics * sizeof *res->metrics + h.njobs * sizeof *res->jobs +
		h.nseries * sizeof *res->series + h.nlat * sizeof *res->lat +
		h.nplace * sizeof *res->place + h.nhists * sizeof *res->hists +
		h.npoints * sizeof *res->points;
	if (need != len)
		return -1;
	off = sizeof h;
	if (h.rc != 0) {
		size_t n = h.msglen < msgsize - 1 ? h.msglen : msgsize - 1;
		memcpy(msg, buf + off, n);
		msg[n] = '\0';
		return 1;
	}
	off += h.msglen;
	res->events = h.events;
	res->wall_s = h.wall_s;
#define TAKE(arr, n, cap)                                                \
	if (h.n > 0) {                                                   \
		res->arr = malloc(h.n * sizeof *res->arr);               \
		if (res->arr == NULL)                                    \
			return -2;                                       \
		memcpy(res->arr, buf + off, h.n * sizeof *res->arr);     \
		off += h.n * sizeof *res->arr;                           \
		res->n = res->cap = h.n;                                 \
	}
	TAKE(metrics, nmetrics, capmetrics)
	TAKE(jobs, njobs, capjobs)
	TAKE(series, nseries, capseries)
	TAKE(lat, nlat, caplat)
	TAKE(place, nplace, capplace)
	TAKE(hists, nhists, caphists)
	TAKE(points, npoints, cappoints)
#undef TAKE
	/* Strings came over a pipe: make sure each is terminated. */
	{
		size_t i;
		for (i = 0; i < res->nmetrics; i++)
			res->metrics[i].name[sizeof res->metrics[i].name - 1] = 0;
		for (i = 0; i < res->njobs; i++) {
			res->jobs[i].id[sizeof res->jobs[i].id - 1] = 0;
			res->jobs[i].kind[sizeof res->jobs[i].kind - 1] = 0;
			res->jobs[i].model[sizeof res->jobs[i].model - 1] = 0;
		}
		for (i = 0; i < res->nhists; i++)
			res->hists[i].name[sizeof res->hists[i].name - 1] = 0;
		for (i = 0; i < res->npoints; i++)
			res->points[i].name[sizeof res->points[i].name - 1] = 0;
	}
	return 0;
}

int exp_wire_outcome(const struct exp_run_spec *spec, const unsigned char *buf,
		     size_t len, const struct exp_exit *ex,
		     struct run_result *res, char *msg, size_t msgsize)
{
	int d = decode(buf, len, res, msg, msgsize);

	if (d == -2) {
		run_result_fini(res);
		return SIM_ENOMEM;
	}
	if (ex->how != EXP_EXIT_OK || d < 0) {
		run_result_fini(res);
		run_result_init(res);
		if (ex->how == EXP_EXIT_SIGNAL)
			snprintf(msg, msgsize, "run %s: worker killed by "
				 "signal %d", spec->key, (int)ex->code);
		else if (ex->how == EXP_EXIT_STATUS)
			snprintf(msg, msgsize, "run %s: worker exited with "
				 "status %d", spec->key, (int)ex->code);
		else
			snprintf(msg, msgsize, "run %s: worker sent a "
				 "truncated result", spec->key);
		return 1;
	}
	return d;
}

void exp_sweep_report(struct exp_sweep *sw, const struct exp_run_spec *last,
		      const char *last_error)
{
	struct exp_progress p;
	size_t fin = sw->stats->done + sw->stats->failed;
	size_t left;

	if (sw->o->progress == NULL)
		return;
	memset(&p, 0, sizeof p);
	p.total = sw->stats->total;
	p.skipped = sw->stats->skipped;
	p.done = sw->stats->done;
	p.failed = sw->stats->failed;
	p.running = sw->running;
	p.elapsed_s = exp_now_s() - sw->t0;
	p.rate_per_s = p.elapsed_s > 0 ? (double)fin / p.elapsed_s : 0;
	left = p.total - p.skipped - fin;
	p.eta_s = fin > 0 && p.rate_per_s > 0 ? (double)left / p.rate_per_s
					      : (double)NAN;
	p.stopping = sw->o->stop != NULL && *sw->o->stop;
	p.last = last;
	p.last_error = last_error;
	sw->o->progress(sw->o->progress_ctx, &p);
}

void exp_sweep_begin(struct exp_sweep *sw, struct store *st, int64_t id,
		     struct exp_runs *m,
		     const struct exp_runner_opts *o,
		     struct exp_run_stats *stats)
{
	memset(stats, 0, sizeof *stats);
	stats->total = exp_runs_count(m);
	stats->ranks = 1;
	memset(sw, 0, sizeof *sw);
	sw->st = st;
	sw->id = id;
	sw->m = m;
	sw->o = o;
	sw->stats = stats;
	sw->t0 = exp_now_s();
	exp_sweep_report(sw, NULL, NULL);
}

int exp_sweep_store(struct exp_sweep *sw, const struct exp_run_spec *spec,
		    int failed, const char *msg, const struct run_result *res,
		    struct sim_err *err)
{
	int rc = store_put_run(sw->st, sw->id, spec,
			       failed ? STORE_RUN_FAILED : STORE_RUN_DONE,
			       failed ? msg : NULL, failed ? NULL : res, err);

	if (rc != 0)
		return rc;
	if (failed && sw->stats->failed++ == 0)
		snprintf(sw->stats->first_error,
			 sizeof sw->stats->first_error, "%s: %s", spec->key,
			 msg ? msg : "failed");
	else if (!failed)
		sw->stats->done++;
	exp_sweep_report(sw, spec, failed ? msg : NULL);
	return 0;
}

int exp_sweep_end(struct exp_sweep *sw, int rc, struct sim_err *err)
{
	const struct exp_run_stats *s = sw->stats;

	if (rc != 0)
		return rc;
	if (sw->o->stop != NULL && *sw->o->stop &&
	    s->skipped + s->done + s->failed < s->total) {
		sw->stats->stopped = 1;
		return sim_err_set(err, SIM_ESTOP, "stopped on request after "
				   "%zu of %zu runs; rerun with --resume to "
				   "finish", s->skipped + s->done + s->failed,
				   s->total);
	}
	exp_sweep_report(sw, NULL, NULL);
	return 0;
}

/* How a reaped child ended. */
static struct exp_exit exit_of(pid_t w, int status)
{
	struct exp_exit ex = { EXP_EXIT_OK, 0 };

	if (w < 0) {
		ex.how = EXP_EXIT_LOST;
	} else if (WIFSIGNALED(status)) {
		ex.how = EXP_EXIT_SIGNAL;
		ex.code = WTERMSIG(status);
	} else if (!WIFEXITED(status)) {
		ex.how = EXP_EXIT_LOST;
	} else if (WEXITSTATUS(status) != 0) {
		ex.how = EXP_EXIT_STATUS;
		ex.code = WEXITSTATUS(status);
	}
	return ex;
}

/* Closes a slot whose pipe reached EOF and waits for its child. */
static struct exp_exit wait_child(struct slot *sl)
{
	int status = 0;
	pid_t w;

	close(sl->fd);
	do
		w = waitpid(sl->pid, &status, 0);
	while (w < 0 && errno == EINTR);
	return exit_of(w, status);
}

/* Reaps a child whose pipe reached EOF and stores its run. */
static int reap(struct exp_sweep *sw, struct slot *sl, struct sim_err *err)
{
	const struct exp_run_spec *spec = &sl->spec;
	struct exp_exit ex = wait_child(sl);
	struct run_result res;
	char msg[SIM_ERR_MSG_MAX];
	int d, rc;

	sw->running--;
	d = exp_wire_outcome(spec, sl->w.buf, sl->w.len, &ex, &res, msg,
			     sizeof msg);
	exp_wire_fini(&sl->w);
	if (d < 0)
		rc = sim_err_set(err, d, "out of memory");
	else
		rc = exp_sweep_store(sw, spec, d == 1, msg, &res, err);
	run_result_fini(&res);
	exp_run_spec_fini(&sl->spec);   /* stored (or lost): the slot is free */
	return rc;
}

/* Reads what is available on a slot's pipe; 1 at EOF, 0 otherwise, or
** SIM_ENOMEM. */
static int drain(struct slot *sl, struct sim_err *err)
{
	for (;;) {
		ssize_t r;
		if (wire_reserve(&sl->w, 65536) != 0)
			return sim_err_set(err, SIM_ENOMEM, "out of memory");
		r = read(sl->fd, sl->w.buf + sl->w.len, sl->w.cap - sl->w.len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 1;      /* treated as EOF; reap reports it */
		if (r == 0)
			return 1;
		sl->w.len += (size_t)r;
		if ((size_t)r < 65536)
			return 0;      /* probably drained: back to poll */
	}
}

/* Forks a child simulating spec (borrowed: the caller still owns it)
** into a fresh slot. */
static int start_child(const struct exp_runner_opts *o,
		       const struct exp_run_spec *spec, struct slot *sl,
		       struct sim_err *err)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return sim_err_set(err, SIM_EIO, "pipe: %s", strerror(errno));
	fflush(NULL);                  /* no duplicated stdio buffers */
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return sim_err_set(err, SIM_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], o, spec);
	}
	close(fds[1]);
	memset(sl, 0, sizeof *sl);
	sl->pid = pid;
	sl->fd = fds[0];
	sl->run = (size_t)spec->index;
	return 0;
}

int exp_run_forked(const struct exp_runner_opts *o,
		   const struct exp_run_spec *spec, struct exp_wire *w,
		   struct exp_exit *ex, struct sim_err *err)
{
	struct slot sl;
	struct pollfd pfd;
	int rc;

	memset(w, 0, sizeof *w);
	if ((rc = start_child(o, spec, &sl, err)) != 0)
		return rc;
	pfd.fd = sl.fd;
	pfd.events = POLLIN;
	for (;;) {
		int n = poll(&pfd, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		/* A failing poll falls through to read, which reports. */
		rc = drain(&sl, err);
		if (rc != 0)
			break;
	}
	*ex = wait_child(&sl);
	if (rc < 0) {
		exp_wire_fini(&sl.w);
		return rc;
	}
	*w = sl.w;
	return 0;
}

int exp_run_here(const struct exp_runner_opts *o,
		 const struct exp_run_spec *spec, struct exp_wire *w,
		 struct exp_exit *ex, struct sim_err *err)
{
	struct run_result res;
	struct sim_err serr;
	int rc;

	memset(w, 0, sizeof *w);
	ex->how = EXP_EXIT_OK;
	ex->code = 0;
	rc = simulate_one(o, spec, &res, &serr);
	rc = wire_write(put_mem, w, rc, &serr, &res);
	run_result_fini(&res);
	if (rc != 0) {
		exp_wire_fini(w);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	return 0;
}

int exp_wire_error(struct exp_wire *w, const char *msg, struct sim_err *err)
{
	struct run_result res;
	struct sim_err e;

	memset(w, 0, sizeof *w);
	run_result_init(&res);
	sim_err_clear(&e);
	sim_err_set(&e, SIM_ESTATE, "%s", msg);
	if (wire_write(put_mem, w, SIM_ESTATE, &e, &res) != 0) {
		exp_wire_fini(w);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	return 0;
}

/* The --no-fork path: one run at a time in this process. */
static int run_inline(struct exp_sweep *sw, const struct exp_run_spec *spec,
		      struct sim_err *err)
{
	struct run_result res;
	struct sim_err serr;
	int rc;

	rc = simulate_one(sw->o, spec, &res, &serr);
	rc = exp_sweep_store(sw, spec, rc != 0, serr.msg, &res, err);
	run_result_fini(&res);
	return rc;
}

int exp_runner_run(struct store *st, int64_t id, struct exp_runs *m,
		   const struct exp_runner_opts *o, struct exp_run_stats *stats,
		   struct sim_err *err)
{
	struct exp_sweep sw;
	struct slot *slots;
	struct pollfd *pfd;
	size_t next = 0, i, nslots;
	int rc = 0;

	memset(stats, 0, sizeof *stats);
	stats->total = exp_runs_count(m);
	if (o->simulate == NULL)
		return sim_err_set(err, SIM_EINVAL, "runner: no simulate "
				   "function");
	nslots = o->jobs > 0 ? (size_t)o->jobs : 1;
	slots = calloc(nslots, sizeof *slots);
	pfd = calloc(nslots, sizeof *pfd);
	if (slots == NULL || pfd == NULL) {
		free(slots);
		free(pfd);
		return sim_err_set(err, SIM_ENOMEM, "out of memory");
	}
	exp_sweep_begin(&sw, st, id, m, o, stats);
	for (;;) {
		int stopping = o->stop != NULL && *o->stop;
		int n;
		/* Fill the free slots with runs not yet done. */
		while (rc == 0 && !stopping && sw.running < nslots &&
		       next < stats->total) {
			struct exp_run_spec spec;
			int done;
			size_t run = next++;
			/* built when its turn comes, freed when stored */
			if ((rc = exp_runs_get(m, run, &spec, err)) != 0)
				break;
			if ((rc = store_run_done(st, id, spec.key, &done,
						 err)) != 0 || done) {
				stats->skipped += rc == 0;
				exp_run_spec_fini(&spec);
				continue;
			}
			if (o->no_fork) {
				rc = run_inline(&sw, &spec, err);
				exp_run_spec_fini(&spec);
				stopping = o->stop != NULL && *o->stop;
				continue;
			}
			rc = start_child(o, &spec, &slots[sw.running], err);
			if (rc != 0) {
				exp_run_spec_fini(&spec);
				break;
			}
			/* moved: the slot frees it once stored (reap) */
			slots[sw.running].spec = spec;
			sw.running++;
		}
		if (sw.running == 0)
			break;
		for (i = 0; i < sw.running; i++) {
			pfd[i].fd = slots[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		n = poll(pfd, (nfds_t)sw.running, 1000);
		if (n < 0 && errno != EINTR) {
			rc = sim_err_set(err, SIM_EIO, "poll: %s",
					 strerror(errno));
			/* keep going: the children must still be reaped */
		}
		if (n <= 0) {
			exp_sweep_report(&sw, NULL, NULL);
			continue;
		}
		/* Walk backwards so that moving the last slot into a reaped
		** one does not skip anything. */
		for (i = sw.running; i-- > 0;) {
			int eof, r2;
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			eof = drain(&slots[i], err);
			if (eof < 0) {
				rc = rc ? rc : eof;
				continue;
			}
			if (!eof)
				continue;
			r2 = reap(&sw, &slots[i], err);
			if (r2 != 0 && rc == 0)
				rc = r2;
			slots[i] = slots[sw.running];
			pfd[i] = pfd[sw.running];
		}
	}
	free(slots);
	free(pfd);
	return exp_sweep_end(&sw, rc, err);
}

void exp_progress_line(const struct exp_progress *p, char *buf, size_t size)
{
	size_t fin = p->skipped + p->done + p->failed;
	double pct = p->total ? 100.0 * (double)fin / (double)p->total : 100;
	char eta[32], extra[64];

	if (isfinite(p->eta_s) && p->eta_s >= 0 && p->eta_s < 1e7) {
		long s = (long)(p->eta_s + 0.5);
		if (s >= 3600)
			snprintf(eta, sizeof eta, "%ld:%02ld:%02ld", s / 3600,
				 s / 60 % 60, s % 60);
		else
			snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
	} else {
		snprintf(eta, sizeof eta, "--:--");
	}
	extra[0] = '\0';
	if (p->failed > 0)
		snprintf(extra, sizeof extra, "  (%zu running, %zu failed)",
			 p->running, p->failed);
	else
		snprintf(extra, sizeof extra, "  (%zu running)", p->running);
	snprintf(buf, size, "[%*zu/%zu] %5.1f%%  %.3g runs/s  ETA %s%s%s",
		 p->total >= 1000 ? 4 : 3, fin, p->total, pct, p->rate_per_s,
		 eta, extra, p->stopping ? "  stopping after runs in flight"
		 : "");
}

/*
** Checks, before anything is stored, what would make every run fail: an
** unknown policy, a cluster naming an unknown device, a trace that cannot
** be opened or has a bad header.  One clear error instead of a database
** of failed runs.
*/
static int preflight(const char *cfg_path, struct exp_runs *m,
		     const char *devdir, struct sim_err *err)
{
	struct dev_catalog cat = { NULL, 0 };
	struct exp_run_spec prev, cur;
	size_t k, n = exp_runs_count(m);
	int rc = 0;

	memset(&prev, 0, sizeof prev);
	/* one spec at a time (and the previous one, to skip repeats) */
	for (k = 0; k < n && rc == 0; k++) {
		const struct exp_run_spec *r = &cur;
		if ((rc = exp_runs_get(m, k, &cur, err)) != 0)
			break;
		if (k > 0 && strcmp(r->policy, prev.policy) == 0 &&
		    strcmp(r->cluster, prev.cluster) == 0 &&
		    (r->trace == NULL) == (prev.trace == NULL) &&
		    (r->trace == NULL || strcmp(r->trace, prev.trace) == 0)) {
			exp_run_spec_fini(&prev);
			prev = cur;
			continue;
		}
		exp_run_spec_fini(&prev);
		prev = cur;
		if (pol_find(r->policy) == NULL) {
			char known[512];
			pol_names(known, sizeof known);
			rc = sim_err_set(err, SIM_ENOENT, "%s: unknown policy "
					 "'%s' (known: %s)", cfg_path,
					 r->policy, known);
			break;
		}
		if (cat.n == 0 &&
		    (rc = dev_catalog_load(&cat, devdir, err)) != 0)
			break;
		{
			struct cluster_spec cl;
			char where[600];
			snprintf(where, sizeof where, "%s: cluster", cfg_path);
			if ((rc = cluster_parse(&cl, r->cluster, &cat, where,
						err)) != 0)
				break;
		}
		if (r->trace != NULL) {
			struct trace_reader *tr = NULL;
			if ((rc = trace_open(&tr, r->trace, err)) != 0)
				break;
			trace_close(tr);
		}
	}
	exp_run_spec_fini(&prev);
	dev_catalog_fini(&cat);
	return rc;
}

/*
** Creates the folders above the database file (like mkdir -p), so that a
** config's `db = ../results/NAME.db` works on a fresh clone.  0, or
** SIM_EIO naming the folder that could not be made.
*/
static int make_db_dirs(const char *db, struct sim_err *err)
{
	char dir[4096];
	char *p;

	if (snprintf(dir, sizeof dir, "%s", db) >= (int)sizeof dir)
		return sim_err_set(err, SIM_EINVAL, "%.64s...: path too long",
				   db);
	p = strrchr(dir, '/');
	if (p == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		char c = *p;
		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			return sim_err_set(err, SIM_EIO, "%s: cannot create the "
					   "results folder: %s", dir,
					   strerror(errno));
		*p = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int exp_sweep_devices(const struct exp_run_request *req,
		      const struct exp_config *cfg, struct exp_runs *m,
		      char *devdir, size_t devdir_size, struct sim_err *err)
{
	int rc;

	/* --devices, else the config's devices, else the search; every run
	** borrows devdir (and the config's arrivals folder). */
	if ((rc = dev_find_dir(req->devices_dir ? req->devices_dir :
			       cfg->devices, devdir, devdir_size, err)) != 0)
		return rc;
	exp_runs_set_dirs(m, devdir, cfg->arrivals_dir);
	return 0;
}

int exp_sweep_open(const struct exp_run_request *req,
		   const struct exp_config *cfg, struct exp_runs *m,
		   const char *devdir, struct store **stp, int64_t *idp,
		   char *db_used, size_t db_used_size, struct sim_err *err)
{
	struct store *st = NULL;
	const char *db;
	char hash[17];
	int64_t id;
	int rc;

	*stp = NULL;
	if ((rc = preflight(req->config_path, m, devdir, err)) != 0)
		return rc;
	db = req->db_path ? req->db_path : cfg->db;
	if (db_used != NULL && db_used_size > 0)
		snprintf(db_used, db_used_size, "%s", db);
	if ((rc = make_db_dirs(db, err)) != 0)
		return rc;
	if ((rc = store_open(&st, db, STORE_WRITE, err)) != 0)
		return rc;
	rc = store_find_experiment(st, cfg->name, &id, hash, err);
	if (rc == 0) {
		long ndone = 0;
		if (req->overwrite) {
			if ((rc = store_delete_experiment(st, id, err)) != 0)
				goto fail;
			rc = SIM_ENOENT;
		} else if (!req->resume) {
			store_count_done(st, id, &ndone, err);
			rc = sim_err_set(err, SIM_EEXIST, "%s: experiment '%s' "
					 "is already stored (%ld of %zu runs "
					 "done); use --resume to finish it, "
					 "--overwrite to replace it, or -o "
					 "for another database", db, cfg->name,
					 ndone, exp_runs_count(m));
			goto fail;
		} else if (strcmp(hash, cfg->hash) != 0) {
			rc = sim_err_set(err, SIM_ESTATE, "%s: experiment '%s' "
					 "was stored from a different config "
					 "(hash %s, now %s); resuming would mix "
					 "results: rename the experiment or use "
					 "--overwrite", db, cfg->name, hash,
					 cfg->hash);
			goto fail;
		}
	}
	if (rc == SIM_ENOENT) {
		sim_err_clear(err);
		if ((rc = store_add_experiment(st, cfg, (long)exp_runs_count(m),
					       &id,
					       err)) != 0)
			goto fail;
	} else if (rc != 0) {
		goto fail;
	}
	*stp = st;
	*idp = id;
	return 0;
fail:
	store_close(st);
	return rc;
}

int exp_run_experiment_local(const struct exp_run_request *req,
			     const struct exp_runner_opts *o,
			     struct exp_run_stats *stats, char *db_used,
			     size_t db_used_size, struct sim_err *err)
{
	struct exp_config *cfg = NULL;
	struct exp_runs *m = NULL;
	struct store *st = NULL;
	char devdir[4096];
	int64_t id;
	int rc;

	memset(stats, 0, sizeof *stats);
	stats->ranks = 1;
	if ((rc = exp_config_load(&cfg, req->config_path, err)) != 0)
		return rc;
	if ((rc = exp_runs_open(&m, cfg, err)) != 0)
		goto out;
	/* Every run borrows devdir, which lives until the runner returns. */
	if ((rc = exp_sweep_devices(req, cfg, m, devdir, sizeof devdir,
				    err)) != 0)
		goto out;
	if ((rc = exp_sweep_open(req, cfg, m, devdir, &st, &id, db_used,
				 db_used_size, err)) != 0)
		goto out;
	rc = exp_runner_run(st, id, m, o, stats, err);
out:
	store_close(st);
	exp_runs_close(m);
	exp_config_free(cfg);
	return rc;
}

int exp_run_experiment(const struct exp_run_request *req,
		       const struct exp_runner_opts *o,
		       struct exp_run_stats *stats, char *db_used,
		       size_t db_used_size, struct sim_err *err)
{
	if (o->mpi)
		return exp_run_experiment_mpi(req, o, stats, db_used,
					      db_used_size, err);
	return exp_run_experiment_local(req, o, stats, db_used, db_used_size,
					err);
}
