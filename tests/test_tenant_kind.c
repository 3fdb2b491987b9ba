/*
** test_tenant_kind.c: a tenant kind added without touching a core file.
**
** Two kinds are defined here, outside sim/world/, and registered with a
** running world at run time (world__kind_add): "probe" lets the core time
** its units (xUnitDone), "self" times its own (no xUnitDone; xChanged
** schedules its completion).  Their tenants are attached through the
** core's API (world__tenant_attach) next to an ordinary training job from
** the trace, and the test asserts that every handler is called when its
** contract says: unit done at the hand-computed instants, changed when a
** co-tenant arrives or leaves, results in world_results, fini at
** world_destroy.  Then the registry's refusals.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster.h"
#include "models/device.h"
#include "sim/world/world_int.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define MS 1000000                    /* ns */

/* What the kinds saw; lives outside the world, so xFini can be seen. */
struct probe_log {
	sim_time done_ns[2];          /* per tenant: xUnitDone, -1 never */
	int ndone;
	sim_time changed_ns[16];      /* every xChanged, in call order */
	int changed_who[16];          /* 0: tenant A, 1: tenant B */
	int nchanged;
	sim_time self_done_ns;        /* "self": its own completion event */
	int self_unit_done_calls;     /* must stay 0: it has no xUnitDone */
	int fini;                     /* xFini calls (both kinds) */
};

/* A kind's state: its tenants, owned by it, alive until its xFini. */
struct probe {
	struct probe_log *log;
	struct world *w;
	struct gpu_tenant t[2];
	int g;
};

static int who(const struct probe *p, const struct gpu_tenant *t)
{
	return (int)(t - p->t);
}

/* Ends t's unit, takes it off its GPU and reschedules the GPU. */
static int leave(struct world *w, struct probe *p, struct gpu_tenant *t)
{
	gpu_finish(&w->gpus[p->g], t, w->sim.now);
	gpu_detach(&w->gpus[p->g], t, w->sim.now);
	return world__gpu_changed(w, p->g);
}

static int probe_unit_done(struct world *w, void *state, struct gpu_tenant *t)
{
	struct probe *p = state;

	p->log->done_ns[who(p, t)] = w->sim.now;
	p->log->ndone++;
	return leave(w, p, t);
}

static int probe_changed(struct world *w, void *state, struct gpu_tenant *t)
{
	struct probe *p = state;
	struct probe_log *l = p->log;

	if (l->nchanged < 16) {
		l->changed_ns[l->nchanged] = w->sim.now;
		l->changed_who[l->nchanged] = who(p, t);
	}
	l->nchanged++;
	return 0;
}

static int probe_results(struct world *w, void *state, struct run_result *res)
{
	const struct probe *p = state;

	(void)w;
	return run_result_set(res, "probe_units_done", p->log->ndone);
}

static void probe_fini(struct world *w, void *state)
{
	struct probe *p = state;

	(void)w;
	p->log->fini++;
	free(p);
}

static const struct world_kind probe_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "probe",
	.eJob = WORLD_NO_JOBS,
	.xFini = probe_fini,
	.xResults = probe_results,
	.xUnitDone = probe_unit_done,
	.xChanged = probe_changed,
};

/* ---- "self": a kind that times its own units --------------------------- */

static int self_done(struct sim *s, void *ctx, uint64_t arg)
{
	struct probe *p = ctx;

	(void)s; (void)arg;
	p->t[0].ev = 0;
	p->log->self_done_ns = p->w->sim.now;
	return leave(p->w, p, &p->t[0]);
}

static int self_changed(struct world *w, void *state, struct gpu_tenant *t)
{
	struct probe *p = state;
	sim_time fin;

	if (t->ev != 0) {
		sim_cancel(&w->sim, t->ev);
		t->ev = 0;
	}
	fin = t->busy ? gpu_finish_time(t, w->sim.now) : SIM_TIME_NEVER;
	if (fin == SIM_TIME_NEVER)
		return 0;
	return sim_schedule_at(&w->sim, fin, SIM_PRIO_COMPLETE, self_done, p,
			       0, &t->ev);
}

static const struct world_kind self_kind = {
	.iVersion = WORLD_KIND_VERSION,
	.zName = "self",
	.eJob = WORLD_NO_JOBS,
	.xFini = probe_fini,
	.xChanged = self_changed,
};

/* ---- driving them ------------------------------------------------------- */

/* Attaches tenant k of p (1 GiB) to its GPU and begins a unit of work_ns
** solo time with a compute-bound profile. */
static int arrive(struct world *w, const struct world_kind *k, struct probe *p,
		  int i, double work_ns)
{
	static const struct gpu_work_profile prof = {
		.alpha = 1.0, .sat = 1.0, .bw_frac = 0.0, .duty = 1.0
	};
	struct gpu_tenant *t = &p->t[i];
	struct sim_err err = { 0, "" };
	int rc;

	memset(t, 0, sizeof *t);
	t->id = -100 - i;             /* no job: a negative id */
	t->mem_bytes = (uint64_t)1 << 30;
	t->sm_cap = 1.0;
	t->slice = -1;
	if ((rc = world__tenant_attach(w, k, p->g, t, 0, &err)) != 0) {
		fprintf(stderr, "\n  attach: %s\n", err.msg);
		return rc;
	}
	gpu_begin(&w->gpus[p->g], t, work_ns, &prof, w->sim.now);
	return world__gpu_changed(w, p->g);
}

/* At t1 = 2 ms: tenant B (4 ms of work) joins A on GPU 0. */
static int on_b_arrives(struct sim *s, void *ctx, uint64_t arg)
{
	struct world *w = ctx;

	(void)s; (void)arg;
	return arrive(w, &probe_kind, world__kind_state(w, &probe_kind), 1,
		      4.0 * MS);
}

struct tk_world {
	struct dev_catalog cat;
	struct cluster_spec cl;
	struct world *w;
};

static int tk_open(struct tk_world *x)
{
	struct world_config cfg;
	struct sim_err err = { 0, "" };
	/* an ordinary training job, arriving after the probes are gone */
	const char *path = tw_write("tenant_kind.csv",
		"J,train,1,resnet50,32,,10,,,,1,,1000,,,,,,\n");
	int rc;

	memset(x, 0, sizeof *x);
	memset(&cfg, 0, sizeof cfg);
	rc = dev_catalog_load(&x->cat, "models/devices", &err);
	if (rc == 0)
		rc = cluster_parse(&x->cl, "1x2:a100-80gb", &x->cat, "c", &err);
	if (rc == 0) {
		cfg.cluster = &x->cl;
		cfg.trace_path = path;
		cfg.policy = pol_find("exclusive");
		cfg.seed = 1;
		rc = world_create(&x->w, &cfg, &err);
	}
	if (rc != 0)
		fprintf(stderr, "\n  tk_open: %s\n", err.msg);
	return rc;
}

/* Registers "probe" with p on GPU 0 (time-sliced) and "self" with q on
** GPU 1 (exclusive). */
static int tk_register(struct tk_world *x, struct probe *p, struct probe *q)
{
	struct sim_err err = { 0, "" };
	int rc;

	p->w = q->w = x->w;
	if ((rc = world_set_gpu_mode(x->w, 0, GPU_MODE_TIMESLICE, &err)) != 0 ||
	    (rc = world__kind_add(x->w, &probe_kind, p, &err)) != 0 ||
	    (rc = world__kind_add(x->w, &self_kind, q, &err)) != 0)
		fprintf(stderr, "\n  tk_register: %s\n", err.msg);
	return rc;
}

/*
** Hand-computed (docs/MODEL.md, "GPU sharing modes"): time-slicing n busy
** tenants gives each q / (n (q + c)) of the GPU; the a100-80gb profile has
** q = 1024 us, c = 25 us, so two run at f = 1024 / 2098.
**   A: 10 ms of work from t = 0, alone (speed 1) until t1 = 2 ms: 8 ms left.
**   B: 4 ms of work from t1; both at f: B ends at t1 + 4 ms / f =
**      2 ms + 8.1953125 ms = 10195312.5 ns, rounded up: 10195313 ns.
**   A then has 8 ms - f * 8195313 ns = 3999999.76 ns left, alone: it ends
**      at 10195313 + 4000000 = 14195313 ns (rounded up).
**   "self" on GPU 1: 3 ms of work alone, ends at 3 ms exactly.
**   J (10 s, from the trace) arrives at 1 s and ends at 11 s.
*/
static void test_handlers_called(void)
{
	struct tk_world x;
	struct probe_log log;
	struct probe *p = calloc(1, sizeof *p), *q = calloc(1, sizeof *q);
	struct run_result res;
	struct sim_err err = { 0, "" };
	const struct dev_profile *d;
	const struct res_job *jr;

	memset(&log, 0, sizeof log);
	log.done_ns[0] = log.done_ns[1] = log.self_done_ns = -1;
	CU_ASSERT_FATAL(p != NULL && q != NULL);
	p->log = q->log = &log;
	p->g = 0;
	q->g = 1;
	CU_ASSERT_EQUAL_FATAL(tk_open(&x), 0);
	CU_ASSERT_EQUAL_FATAL(tk_register(&x, p, q), 0);
	d = x.w->gpus[0].dev;
	CU_ASSERT_EQUAL(d->ts_quantum_ns, 1024000);  /* the numbers above */
	CU_ASSERT_EQUAL(d->ts_switch_ns, 25000);
	CU_ASSERT_PTR_EQUAL(world__kind_state(x.w, &probe_kind), p);
	CU_ASSERT_EQUAL_FATAL(arrive(x.w, &probe_kind, p, 0, 10.0 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(arrive(x.w, &self_kind, q, 0, 3.0 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(sim_schedule_at(&x.w->sim, 2 * MS,
					      SIM_PRIO_ARRIVAL, on_b_arrives,
					      x.w, 0, NULL), 0);
	run_result_init(&res);
	CU_ASSERT_EQUAL_FATAL(world_run(x.w, &err), 0);
	CU_ASSERT_EQUAL_FATAL(world_results(x.w, &res, &err), 0);

	CU_ASSERT_EQUAL(log.done_ns[1], 10195313);
	CU_ASSERT_EQUAL(log.done_ns[0], 14195313);
	CU_ASSERT_EQUAL(log.ndone, 2);
	/* xChanged: A at its own arrival, A and B (list order) when B, the
	** co-tenant, arrives, A when B leaves; none when A leaves last. */
	CU_ASSERT_EQUAL_FATAL(log.nchanged, 4);
	CU_ASSERT(log.changed_ns[0] == 0 && log.changed_who[0] == 0);
	CU_ASSERT(log.changed_ns[1] == 2 * MS && log.changed_who[1] == 0);
	CU_ASSERT(log.changed_ns[2] == 2 * MS && log.changed_who[2] == 1);
	CU_ASSERT(log.changed_ns[3] == 10195313 && log.changed_who[3] == 0);
	CU_ASSERT_EQUAL(log.self_done_ns, 3 * MS);
	/* the world around them ran as usual */
	CU_ASSERT_EQUAL(x.w->gpus[0].ntenants + x.w->gpus[1].ntenants, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&res, "probe_units_done"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&res, "jobs_done"), 1, 0);
	jr = tw_job(&res, "J");
	CU_ASSERT_FATAL(jr != NULL);
	CU_ASSERT_DOUBLE_EQUAL(jr->start_s, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(jr->jct_s, 10, 1e-9);

	CU_ASSERT_EQUAL(log.fini, 0);
	world_destroy(x.w);
	CU_ASSERT_EQUAL(log.fini, 2);             /* both, at destroy */
	run_result_fini(&res);
	dev_catalog_fini(&x.cat);
}

/* A world stopped with the probes' units in flight still calls xFini. */
static void test_fini_mid_unit(void)
{
	struct tk_world x;
	struct probe_log log;
	struct probe *p = calloc(1, sizeof *p), *q = calloc(1, sizeof *q);

	memset(&log, 0, sizeof log);
	CU_ASSERT_FATAL(p != NULL && q != NULL);
	p->log = q->log = &log;
	q->g = 1;
	CU_ASSERT_EQUAL_FATAL(tk_open(&x), 0);
	CU_ASSERT_EQUAL_FATAL(tk_register(&x, p, q), 0);
	CU_ASSERT_EQUAL_FATAL(arrive(x.w, &probe_kind, p, 0, 10.0 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(arrive(x.w, &self_kind, q, 0, 3.0 * MS), 0);
	sim_run(&x.w->sim, 1 * MS, 0);
	CU_ASSERT_EQUAL(log.ndone, 0);
	world_destroy(x.w);
	CU_ASSERT_EQUAL(log.fini, 2);
	dev_catalog_fini(&x.cat);
}

static void test_refusals(void)
{
	static const struct world_kind trainer = {
		.iVersion = WORLD_KIND_VERSION, .zName = "trainer2",
		.eJob = TRACE_TRAIN,
	};
	static const struct world_kind future = {
		.iVersion = WORLD_KIND_VERSION + 1, .zName = "future",
		.eJob = WORLD_NO_JOBS,
	};
	static const struct world_kind clash = {
		.iVersion = WORLD_KIND_VERSION, .zName = "probe",
		.eJob = WORLD_NO_JOBS,
	};
	struct tk_world x;
	struct probe_log log;
	struct probe *p = calloc(1, sizeof *p);
	struct sim_err err = { 0, "" };
	struct gpu_tenant t;

	memset(&log, 0, sizeof log);
	CU_ASSERT_FATAL(p != NULL);
	p->log = &log;
	CU_ASSERT_EQUAL_FATAL(tk_open(&x), 0);
	/* not registered: no state, no tenant */
	CU_ASSERT_PTR_NULL(world__kind_state(x.w, &probe_kind));
	memset(&t, 0, sizeof t);
	t.id = -1000;
	t.sm_cap = 1.0;
	t.slice = -1;
	CU_ASSERT_EQUAL(world__tenant_attach(x.w, &probe_kind, 0, &t, 0,
					     &err), SIM_ENOENT);
	CU_ASSERT_EQUAL(x.w->gpus[0].ntenants, 0);
	/* the built-in "train" runs the training jobs already */
	memset(&err, 0, sizeof err);    /* (an error keeps its first message) */
	CU_ASSERT_EQUAL(world__kind_add(x.w, &trainer, p, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "kind train runs"));
	CU_ASSERT_EQUAL(world__kind_add(x.w, &future, p, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(world__kind_add(x.w, NULL, p, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(world__kind_add(x.w, &probe_kind, p, &err), 0);
	CU_ASSERT_EQUAL(world__kind_add(x.w, &probe_kind, p, &err),
			SIM_EINVAL);
	CU_ASSERT_EQUAL(world__kind_add(x.w, &clash, p, &err), SIM_EINVAL);
	/* an unknown GPU */
	CU_ASSERT_EQUAL(world__tenant_attach(x.w, &probe_kind, 7, &t, 0,
					     &err), SIM_EINVAL);
	/* only the one registration that succeeded is finalised (and frees
	** p: a refused one finalised too would free it twice) */
	world_destroy(x.w);
	CU_ASSERT_EQUAL(log.fini, 1);
	dev_catalog_fini(&x.cat);
}

TEST_REGISTER(tenant_kind)
{
	static const struct test_case cases[] = {
		{ "a kind from tests/: handlers at hand-computed times",
		  test_handlers_called },
		{ "xFini with units in flight", test_fini_mid_unit },
		{ "the registry's refusals", test_refusals },
		{ NULL, NULL }
	};
	return test_add_suite("tenant_kind", cases);
}
