/*
** runner_mpi.c: the sweep runner across machines, under MPI (runner.h).
**
** Built with MPI when the Makefile finds it (MPI=auto: pkg-config ompi-c
** or mpich; MPI=1 requires it; MPI=0 builds without), which defines
** COLOSIM_MPI for this file only.  Without it the entry points remain and
** say that this colosim has no MPI; the rest of colosim never includes
** <mpi.h>.
**
** Rank 0, the coordinator, does what the parent of the fork runner does:
** loads the config, broadcasts its text (so every rank opens the same
** run matrix, and only rank 0 needs the config file), preflights it, opens
** the store, and answers every message of a worker rank with one run to
** simulate or with STOP.  The matrix is streamed on every rank: rank 0
** builds a run's spec when it hands the run out and keeps it, one per
** busy rank, until the run is stored; a worker builds the run it is sent
** from its index and frees it once the result is sent.  Runs go out one at a time in matrix order, each
** to the first rank that asks (dynamic load balance); a run's result is
** stored as it arrives, in one transaction, through the same code as with
** fork workers, so the database holds the same rows as with -j 1 (only
** runs.id, wall_s and finished_at differ: ids follow the order runs
** finish in, as with -j N).  Runs already stored as done are skipped
** (--resume).  A worker rank simulates each run in a forked child (or in
** its own process under --no-fork) and sends the child's message, the
** fork runner's wire format (runner_int.h), with how the child ended.
**
** Messages (tags):
**   READY  worker -> 0   int32 rc, then the error text when rc != 0
**   WORK   0 -> worker   int64 run index, then the run's key (a check)
**   STOP   0 -> worker   empty: the worker returns
**   RESULT worker -> 0   struct result_head, then len bytes in DATA
**                        messages of at most CHUNK_BYTES (MPI counts are
**                        int)
**
** Waiting polls (MPI_Iprobe, MPI_Test) with a short, growing sleep rather
** than blocking in MPI, whose blocking calls spin a core: rank 0 shares a
** machine with workers and should cost them nothing.
*/
#include "experiments/runner.h"
#include "experiments/runner_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exp_mpi_launched(void)
{
	static const char *const size_vars[] = {
		"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"
	};
	size_t i;

	for (i = 0; i < sizeof size_vars / sizeof size_vars[0]; i++) {
		const char *v = getenv(size_vars[i]);
		char *end;
		long n;
		if (v == NULL || *v == '\0')
			continue;
		n = strtol(v, &end, 10);
		if (*end == '\0' && n >= 1 && n <= 1 << 24)
			return (int)n;
	}
	return getenv("PMIX_RANK") != NULL ? -1 : 0;
}

#ifndef COLOSIM_MPI

int exp_mpi_built(void)
{
	return 0;
}

const char *exp_mpi_library(void)
{
	return "none";
}

int exp_run_experiment_mpi(const struct exp_run_request *req,
			   const struct exp_runner_opts *o,
			   struct exp_run_stats *stats, char *db_used,
			   size_t db_used_size, struct sim_err *err)
{
	int n = exp_mpi_launched();

	if (n == 1)            /* a world of one: nothing to distribute */
		return exp_run_experiment_local(req, o, stats, db_used,
						db_used_size, err);
	memset(stats, 0, sizeof *stats);
	stats->ranks = 1;
	if (n > 1)
		return sim_err_set(err, SIM_ESTATE, "started as one of %d MPI "
				   "ranks, but this colosim was built without "
				   "MPI: every rank would run the whole sweep; "
				   "rebuild with `make MPI=1` (libopenmpi-dev)",
				   n);
	return sim_err_set(err, SIM_ESTATE, "this colosim was built without "
			   "MPI; rebuild with `make MPI=1` (libopenmpi-dev)");
}

#else /* COLOSIM_MPI */

#include <limits.h>
#include <time.h>

#include <mpi.h>

enum { TAG_READY = 1, TAG_WORK, TAG_STOP, TAG_RESULT, TAG_DATA };

#define CHUNK_BYTES (1 << 30)

struct result_head {
	int64_t run;
	int32_t how, code;         /* struct exp_exit */
	uint64_t len;
};

int exp_mpi_built(void)
{
	return 1;
}

const char *exp_mpi_library(void)
{
	static char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int n = 0;
	char *nl;

	if (v[0] == '\0' && MPI_Get_library_version(v, &n) != MPI_SUCCESS)
		snprintf(v, sizeof v, "MPI %d.%d", MPI_VERSION,
			 MPI_SUBVERSION);
	if ((nl = strpbrk(v, ",\n")) != NULL)
		*nl = '\0';
	return v;
}

/* Records a failed MPI call; SIM_ELIB. */
static int mpi_fail(struct sim_err *err, int mrc, const char *call, int rank)
{
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;

	if (MPI_Error_string(mrc, s, &n) != MPI_SUCCESS)
		snprintf(s, sizeof s, "error %d", mrc);
	return sim_err_set(err, SIM_ELIB, "MPI rank %d: %s: %s", rank, call,
			   s);
}

/* Sleeps *ns nanoseconds and doubles it, up to 2 ms. */
static void backoff(long *ns)
{
	struct timespec ts = { 0, *ns };

	nanosleep(&ts, NULL);
	if (*ns < 2000000)
		*ns *= 2;
}

/* Waits for a message from src; reports sw's progress about once a
** second (sw may be NULL).  An MPI return code. */
static int wait_msg(int src, MPI_Status *st, struct exp_sweep *sw)
{
	double last = exp_now_s();
	long ns = 20000;

	for (;;) {
		int flag = 0;
		int mrc = MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
				     st);
		if (mrc != MPI_SUCCESS || flag)
			return mrc;
		backoff(&ns);
		if (sw != NULL && exp_now_s() - last >= 1.0) {
			exp_sweep_report(sw, NULL, NULL);
			last = exp_now_s();
		}
	}
}

/* Sends len bytes to dest under tag, polling rather than spinning. */
static int send_wait(const void *p, int len, int dest, int tag)
{
	MPI_Request rq;
	long ns = 20000;
	int mrc = MPI_Isend(p, len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &rq);

	while (mrc == MPI_SUCCESS) {
		int flag = 0;
		mrc = MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
		if (flag)
			break;
		backoff(&ns);
	}
	return mrc;
}

/* Receives a whole message of the size st announces into *buf (heap,
** NUL-terminated; the caller frees it).  An MPI return code, or
** MPI_ERR_NO_MEM. */
static int recv_probed(const MPI_Status *st, unsigned char **buf, int *len)
{
	MPI_Status st2;
	int n = 0, mrc;

	*buf = NULL;
	*len = 0;
	if ((mrc = MPI_Get_count(st, MPI_BYTE, &n)) != MPI_SUCCESS)
		return mrc;
	if (n < 0 || (*buf = malloc((size_t)n + 1)) == NULL)
		return MPI_ERR_NO_MEM;
	mrc = MPI_Recv(*buf, n, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG,
		       MPI_COMM_WORLD, &st2);
	(*buf)[n] = '\0';
	*len = n;
	return mrc;
}

/* ---- rank 0 ---------------------------------------------------------- */

struct coord {
	struct exp_sweep sw;          /* sw.st NULL: nothing opened */
	struct exp_runs *m;           /* NULL: the setup failed */
	size_t nruns;                 /* exp_runs_count(m) */
	size_t next;                  /* next run of the matrix to consider */
	size_t *busy;                 /* per rank: its run, or SIZE_MAX */
	struct exp_run_spec *spec;    /* per rank: its run's spec (owned
					 while busy, freed once stored) */
	int alive;                    /* worker ranks not yet stopped */
	int fatal;                    /* first error: hand out no more */
	struct sim_err *err;
};

/* Answers rank dest with its next run or STOP.  An MPI return code. */
static int give_work(struct coord *c, int dest)
{
	const struct exp_runner_opts *o = c->sw.o;

	c->busy[dest] = SIZE_MAX;      /* its previous run, if any, is out */
	while (c->fatal == 0 && !(o->stop != NULL && *o->stop) &&
	       c->next < c->nruns) {
		size_t run = c->next++;
		struct exp_run_spec spec;
		size_t klen;
		unsigned char *msg;
		int64_t idx = (int64_t)run;
		int done, mrc, rc;

		/* built when its turn comes (rank 0 holds one spec per busy
		** rank, never the matrix), freed once stored */
		if ((rc = exp_runs_get(c->m, run, &spec, c->err)) != 0) {
			c->fatal = rc;
			break;
		}
		rc = store_run_done(c->sw.st, c->sw.id, spec.key, &done,
				    c->err);
		if (rc != 0 || done) {
			exp_run_spec_fini(&spec);
			if (rc != 0) {
				c->fatal = rc;
				break;
			}
			c->sw.stats->skipped++;
			continue;
		}
		klen = strlen(spec.key);
		if ((msg = malloc(sizeof idx + klen)) == NULL) {
			exp_run_spec_fini(&spec);
			c->fatal = sim_err_set(c->err, SIM_ENOMEM,
					       "out of memory");
			break;
		}
		memcpy(msg, &idx, sizeof idx);
		memcpy(msg + sizeof idx, spec.key, klen);
		mrc = MPI_Send(msg, (int)(sizeof idx + klen), MPI_BYTE, dest,
			       TAG_WORK, MPI_COMM_WORLD);
		free(msg);
		c->busy[dest] = run;
		c->spec[dest] = spec;     /* moved: on_result frees it */
		c->sw.running++;
		return mrc;
	}
	c->alive--;
	return MPI_Send(NULL, 0, MPI_BYTE, dest, TAG_STOP, MPI_COMM_WORLD);
}

/* A worker's READY: its setup's code and message. */
static int on_ready(struct coord *c, const MPI_Status *st)
{
	unsigned char *buf;
	int len, mrc = recv_probed(st, &buf, &len);
	int32_t rc = 0;

	if (mrc == MPI_SUCCESS && (size_t)len >= sizeof rc)
		memcpy(&rc, buf, sizeof rc);
	if (mrc == MPI_SUCCESS && rc != 0 && c->fatal == 0)
		c->fatal = sim_err_set(c->err, rc, "MPI rank %d: %s",
				       st->MPI_SOURCE,
				       (const char *)buf + sizeof rc);
	free(buf);
	if (mrc == MPI_SUCCESS && c->busy[st->MPI_SOURCE] != SIZE_MAX)
		return MPI_ERR_OTHER;             /* a broken protocol */
	return mrc != MPI_SUCCESS ? mrc : give_work(c, st->MPI_SOURCE);
}

/* A worker's RESULT: takes the data, gives the worker its next run, then
** stores this one (so the worker simulates while rank 0 writes). */
static int on_result(struct coord *c, const MPI_Status *st)
{
	int src = st->MPI_SOURCE;
	struct result_head h;
	struct exp_exit ex;
	struct exp_run_spec spec;
	struct run_result res;
	char msg[SIM_ERR_MSG_MAX];
	unsigned char *data = NULL;
	uint64_t off = 0;
	int mrc, d, rc;

	mrc = MPI_Recv(&h, (int)sizeof h, MPI_BYTE, src, TAG_RESULT,
		       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (mrc != MPI_SUCCESS)
		return mrc;
	if (h.run < 0 || (uint64_t)h.run >= c->nruns ||
	    c->busy[src] != (size_t)h.run || h.len > SIZE_MAX - 1)
		return MPI_ERR_OTHER;             /* a broken protocol */
	if ((data = malloc((size_t)h.len + 1)) == NULL)
		return MPI_ERR_NO_MEM;
	while (off < h.len && mrc == MPI_SUCCESS) {
		uint64_t n = h.len - off < CHUNK_BYTES ? h.len - off
							: CHUNK_BYTES;
		mrc = MPI_Recv(data + off, (int)n, MPI_BYTE, src, TAG_DATA,
			       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		off += n;
	}
	if (mrc != MPI_SUCCESS) {
		free(data);
		return mrc;
	}
	/* The run's spec leaves the rank's entry, which its next run takes. */
	spec = c->spec[src];
	memset(&c->spec[src], 0, sizeof c->spec[src]);
	c->busy[src] = SIZE_MAX;
	c->sw.running--;
	if ((mrc = give_work(c, src)) != MPI_SUCCESS) {
		exp_run_spec_fini(&spec);
		free(data);
		return mrc;
	}
	ex.how = h.how;
	ex.code = h.code;
	d = exp_wire_outcome(&spec, data, (size_t)h.len, &ex, &res, msg,
			     sizeof msg);
	free(data);
	if (d < 0) {
		exp_run_spec_fini(&spec);
		if (c->fatal == 0)
			c->fatal = sim_err_set(c->err, d, "out of memory");
		return MPI_SUCCESS;
	}
	rc = exp_sweep_store(&c->sw, &spec, d == 1, msg, &res, c->err);
	run_result_fini(&res);
	exp_run_spec_fini(&spec);
	if (rc != 0 && c->fatal == 0)
		c->fatal = rc;
	return MPI_SUCCESS;
}

/* Answers every worker until each has been stopped.  An MPI code. */
static int coordinate(struct coord *c)
{
	while (c->alive > 0) {
		MPI_Status st;
		int mrc = wait_msg(MPI_ANY_SOURCE, &st,
				   c->sw.st != NULL ? &c->sw : NULL);
		if (mrc != MPI_SUCCESS)
			return mrc;
		if (st.MPI_TAG == TAG_READY)
			mrc = on_ready(c, &st);
		else if (st.MPI_TAG == TAG_RESULT)
			mrc = on_result(c, &st);
		else
			mrc = MPI_ERR_TAG;
		if (mrc != MPI_SUCCESS)
			return mrc;
	}
	return MPI_SUCCESS;
}

static int coordinator(const struct exp_run_request *req,
		       const struct exp_runner_opts *o,
		       struct exp_run_stats *stats, char *db_used,
		       size_t db_used_size, int nranks, int *broken,
		       struct sim_err *err)
{
	struct exp_config *cfg = NULL;
	struct exp_runs *m = NULL;
	struct store *st = NULL;
	struct coord c;
	char devdir[4096];
	int64_t id = 0, len = -1;
	int rc, mrc, r;

	rc = exp_config_load(&cfg, req->config_path, err);
	if (rc == 0 && cfg->text_len > INT_MAX)
		rc = sim_err_set(err, SIM_ERANGE, "%s: config larger than "
				 "2 GB", req->config_path);
	if (rc == 0)
		len = (int64_t)cfg->text_len;
	mrc = MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (mrc == MPI_SUCCESS && len >= 0)
		mrc = MPI_Bcast(cfg->text, (int)len, MPI_BYTE, 0,
				MPI_COMM_WORLD);
	if (mrc != MPI_SUCCESS) {
		*broken = 1;
		rc = mpi_fail(err, mrc, "MPI_Bcast", 0);
		goto out;
	}
	if (len < 0)
		goto out;
	/* The matrix is streamed: rank 0 builds a run's spec when a rank
	** asks for work, as the fork runner does when a slot frees. */
	if ((rc = exp_runs_open(&m, cfg, err)) == 0 &&
	    (rc = exp_sweep_devices(req, cfg, m, devdir, sizeof devdir,
				    err)) == 0)
		rc = exp_sweep_open(req, cfg, m, devdir, &st, &id, db_used,
				    db_used_size, err);
	memset(&c, 0, sizeof c);
	c.m = rc == 0 ? m : NULL;
	c.nruns = rc == 0 ? exp_runs_count(m) : 0;
	c.err = err;
	c.fatal = rc;
	c.alive = nranks - 1;
	c.busy = malloc((size_t)nranks * sizeof *c.busy);
	c.spec = calloc((size_t)nranks, sizeof *c.spec);
	if (c.busy == NULL || c.spec == NULL) {
		/* The workers wait for an answer: without one the launcher
		** must tear the job down. */
		free(c.busy);
		free(c.spec);
		*broken = 1;
		rc = sim_err_set(err, SIM_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 0; r < nranks; r++)
		c.busy[r] = SIZE_MAX;
	if (rc == 0)
		exp_sweep_begin(&c.sw, st, id, m, o, stats);
	else
		c.sw.o = o;
	mrc = coordinate(&c);
	/* Runs still in flight (a failed MPI call): their specs. */
	for (r = 0; r < nranks; r++)
		exp_run_spec_fini(&c.spec[r]);
	free(c.busy);
	free(c.spec);
	if (mrc != MPI_SUCCESS) {
		*broken = 1;
		rc = mpi_fail(err, mrc, "coordinating the workers", 0);
	} else if (rc == 0) {
		rc = exp_sweep_end(&c.sw, c.fatal, err);
	}
out:
	stats->rank = 0;
	stats->ranks = nranks;
	store_close(st);
	exp_runs_close(m);
	exp_config_free(cfg);
	return rc;
}

/* ---- the other ranks ------------------------------------------------- */

/* Simulates run (checking that key names it) into a message. */
static int work_one(const struct exp_runner_opts *o, struct exp_runs *m,
		    int64_t run, const char *key, int rank,
		    struct exp_wire *w, struct exp_exit *ex)
{
	struct exp_run_spec spec;
	struct sim_err e;
	char msg[SIM_ERR_MSG_MAX];
	int rc;

	ex->how = EXP_EXIT_OK;
	ex->code = 0;
	sim_err_clear(&e);
	if (m == NULL || run < 0 || (uint64_t)run >= exp_runs_count(m)) {
		snprintf(msg, sizeof msg, "run %s: MPI rank %d expanded "
			 "another run matrix from the same config", key, rank);
		return exp_wire_error(w, msg, &e);
	}
	/* This rank builds the run from its index too, and frees it after. */
	if ((rc = exp_runs_get(m, (size_t)run, &spec, &e)) != 0) {
		snprintf(msg, sizeof msg, "run %s: MPI rank %d: %.400s", key,
			 rank, e.msg);
		return exp_wire_error(w, msg, &e);
	}
	if (strcmp(spec.key, key) != 0) {
		exp_run_spec_fini(&spec);
		snprintf(msg, sizeof msg, "run %s: MPI rank %d expanded "
			 "another run matrix from the same config", key, rank);
		return exp_wire_error(w, msg, &e);
	}
	rc = o->no_fork ? exp_run_here(o, &spec, w, ex, &e)
			: exp_run_forked(o, &spec, w, ex, &e);
	exp_run_spec_fini(&spec);
	if (rc == 0)
		return 0;
	/* No child could be started: this run fails, the rank goes on. */
	snprintf(msg, sizeof msg, "MPI rank %d: %.400s", rank, e.msg);
	ex->how = EXP_EXIT_OK;
	return exp_wire_error(w, msg, &e);
}

/* Sends one run's outcome to rank 0.  An MPI code. */
static int send_result(int64_t run, const struct exp_wire *w,
		       const struct exp_exit *ex)
{
	struct result_head h;
	uint64_t off = 0;
	int mrc;

	memset(&h, 0, sizeof h);
	h.run = run;
	h.how = ex->how;
	h.code = ex->code;
	h.len = w->len;
	mrc = send_wait(&h, (int)sizeof h, 0, TAG_RESULT);
	while (mrc == MPI_SUCCESS && off < h.len) {
		uint64_t n = h.len - off < CHUNK_BYTES ? h.len - off
							: CHUNK_BYTES;
		mrc = send_wait(w->buf + off, (int)n, 0, TAG_DATA);
		off += n;
	}
	return mrc;
}

static int worker(const struct exp_run_request *req,
		  const struct exp_runner_opts *o, int rank, int *broken,
		  struct sim_err *err)
{
	struct exp_config *cfg = NULL;
	struct exp_runs *m = NULL;
	unsigned char *ready = NULL;
	char *text = NULL, devdir[4096];
	int64_t len = -1;
	int32_t rc32;
	size_t n;
	int rc = 0, mrc;

	mrc = MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (mrc == MPI_SUCCESS && len < 0)
		return 0;               /* rank 0 failed and says why */
	if (mrc == MPI_SUCCESS && (text = malloc((size_t)len + 1)) == NULL)
		mrc = MPI_ERR_NO_MEM;
	if (mrc == MPI_SUCCESS)
		mrc = MPI_Bcast(text, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (mrc != MPI_SUCCESS) {
		free(text);
		*broken = 1;
		return mpi_fail(err, mrc, "MPI_Bcast", rank);
	}
	text[len] = '\0';
	rc = exp_config_parse(&cfg, req->config_path, text, (size_t)len, err);
	free(text);
	if (rc == 0)
		rc = exp_runs_open(&m, cfg, err);
	/* Each rank finds the device folder itself (--devices, the
	** config's, or the search from its own working directory). */
	if (rc == 0)
		rc = exp_sweep_devices(req, cfg, m, devdir, sizeof devdir,
				       err);
	rc32 = rc;
	n = rc ? strlen(err->msg) : 0;
	if ((ready = malloc(sizeof rc32 + n)) == NULL) {
		mrc = MPI_ERR_NO_MEM;
	} else {
		memcpy(ready, &rc32, sizeof rc32);
		memcpy(ready + sizeof rc32, err->msg, n);
		mrc = send_wait(ready, (int)(sizeof rc32 + n), 0, TAG_READY);
		free(ready);
	}
	while (mrc == MPI_SUCCESS) {
		MPI_Status st;
		unsigned char *buf;
		struct exp_wire w;
		struct exp_exit ex;
		int64_t run = -1;
		int blen;

		if ((mrc = wait_msg(0, &st, NULL)) != MPI_SUCCESS)
			break;
		if ((mrc = recv_probed(&st, &buf, &blen)) != MPI_SUCCESS) {
			free(buf);
			break;
		}
		if (st.MPI_TAG == TAG_STOP) {
			free(buf);
			break;
		}
		if (st.MPI_TAG != TAG_WORK || (size_t)blen < sizeof run) {
			free(buf);
			mrc = MPI_ERR_TAG;
			break;
		}
		memcpy(&run, buf, sizeof run);
		if (work_one(o, m, run, (const char *)buf + sizeof run, rank,
			     &w, &ex) != 0) {
			free(buf);
			mrc = MPI_ERR_NO_MEM;
			break;
		}
		free(buf);
		mrc = send_result(run, &w, &ex);
		exp_wire_fini(&w);
	}
	if (mrc != MPI_SUCCESS) {
		*broken = 1;
		sim_err_clear(err);
		rc = mpi_fail(err, mrc, "working", rank);
	}
	exp_runs_close(m);
	exp_config_free(cfg);
	return rc;
}

int exp_run_experiment_mpi(const struct exp_run_request *req,
			   const struct exp_runner_opts *o,
			   struct exp_run_stats *stats, char *db_used,
			   size_t db_used_size, struct sim_err *err)
{
	int inited = 0, rank = 0, size = 1, broken = 0, rc, mrc;

	memset(stats, 0, sizeof *stats);
	stats->ranks = 1;
	MPI_Initialized(&inited);
	if (!inited && (mrc = MPI_Init(NULL, NULL)) != MPI_SUCCESS)
		return mpi_fail(err, mrc, "MPI_Init", -1);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size == 1) {
		rc = exp_run_experiment_local(req, o, stats, db_used,
					      db_used_size, err);
	} else if (o->jobs > 1) {
		/* Every rank reaches the same verdict; only rank 0 fails
		** with it.  The others end with success, or the launcher,
		** seeing a rank exit non-zero, may kill rank 0 before it
		** reports the reason (a race test_mpi caught under load). */
		stats->rank = rank;
		stats->ranks = size;
		rc = rank != 0 ? 0 :
		     sim_err_set(err, SIM_EINVAL, "-j %d under MPI: each "
				 "worker rank simulates one run at a time; "
				 "start one rank per core instead (mpirun -np "
				 "N)", o->jobs);
	} else if (rank == 0) {
		rc = coordinator(req, o, stats, db_used, db_used_size, size,
				 &broken, err);
	} else {
		rc = worker(req, o, rank, &broken, err);
		stats->rank = rank;
		stats->ranks = size;
	}
	/* After a failed MPI call another rank may never answer: skipping
	** MPI_Finalize lets the launcher end the job instead of hanging. */
	if (!broken && !inited)
		MPI_Finalize();
	return rc;
}

#endif /* COLOSIM_MPI */
