/*
** test_distmind.c: DistMind's pools and policies (sim/world/world_pool.c,
** sim/world/world_mempool.c, policies/distmind.c): the pipelined load of ResNet-152 over 100 Gb/s
** RDMA and a V100's PCIe 3 against the whole-model load, both equal to the
** flow-shop recurrence computed here by hand from the zoo's layer groups;
** the load balancer's five cases on constructed states; sharding over
** min(servers, 4); re-assignment taking a GPU from training under load;
** bad parameters; the timer sleeping while no service is live.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/device.h"
#include "models/link.h"
#include "models/workload.h"
#include "policies/distmind.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define RDMA_BPS (100e9 / 8.0)        /* 100 Gb/s */

/* Builds and runs a world in t (the caller closes it) with DistMind's
** network: 100 Gb/s RDMA between nodes and to mem_servers memory servers;
** seed 11, no event budget.  0 or the error code. */
static int run_world(struct tw_world *t, const char *trace,
		     const char *policy, const char *cluster, int mem_servers)
{
	struct world_config cfg = tw_config(pol_find(policy));

	cfg.seed = 11;
	cfg.max_events = 0;
	cfg.nic_bytes_per_s = RDMA_BPS;
	cfg.memory_servers = mem_servers;
	cfg.memory_server_nic_bytes_per_s = RDMA_BPS;
	return tw_simulate(t, trace, cluster, &cfg, NULL);
}

/* The end of the single request of service 0 under policy, in ns. */
static sim_time one_request(const char *policy)
{
	struct tw_world t;
	const char *trace;
	sim_time end = -1;
	FILE *f;
	char path[600];

	snprintf(path, sizeof path, "%s/dm-one.arrivals", test_tmpdir());
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs("0\n", f);
	fclose(f);
	trace = tw_write("dm-one.csv", "s0,infer,0,resnet152,1,,,,,,1,1,,,"
			 "1000,file,,dm-one.arrivals,0\n");
	if (run_world(&t, trace, policy, "1x1:v100-32gb", 1) == 0 &&
	    world_job(t.w, 0)->state == JOB_DONE)
		end = world_job(t.w, 0)->end_ns;
	tw_close(&t);
	return end;
}

static void test_pipeline_vs_whole(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	const struct zoo_model *m = zoo_find("resnet152");
	const struct dev_profile *d;
	sim_time *st, done_p = 0, B, prev = 0, net_w, pcie_w, t_p, t_w;
	double total = 0, cum = 0;
	size_t G, k;

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(dev_catalog_load(&cat, "models/devices", &err) == 0);
	d = dev_catalog_find(&cat, "v100-32gb");
	CU_ASSERT_FATAL(d != NULL);
	CU_ASSERT_EQUAL(d->pcie_gen, 3);
	G = m->ngroups;
	CU_ASSERT(G > 50);                 /* stem, 50 blocks, fc */
	B = wl_infer_batch_ns(m, d, 1);
	st = calloc(3 * G, sizeof *st);
	CU_ASSERT_FATAL(st != NULL);
	/* by hand: group g moves 4 x params bytes over the NIC (no latency
	** figure: 0), then PCIe (pinned rate and latency of the profile);
	** it executes its share of B by forward FLOPs, cumulatively rounded */
	for (k = 0; k < G; k++) {
		double b = 4.0 * (double)m->groups[k].params;
		sim_time upto;
		total += b;
		cum += m->groups[k].fwd_flops;
		st[k] = (sim_time)ceil(b / RDMA_BPS * 1e9);
		st[G + k] = d->pcie_latency_ns +
			(sim_time)ceil(b / d->h2d_pinned_bytes_per_s * 1e9);
		upto = k == G - 1 ? B :
			(sim_time)llround((double)B * cum / m->fwd_flops);
		st[2 * G + k] = upto - prev;
		prev = upto;
	}
	CU_ASSERT_EQUAL(link_pipeline(st, 3, (int)G, 0, NULL, &done_p), 0);
	net_w = (sim_time)ceil(total / RDMA_BPS * 1e9);
	pcie_w = d->pcie_latency_ns +
		(sim_time)ceil(total / d->h2d_pinned_bytes_per_s * 1e9);
	t_p = one_request("distmind");
	t_w = one_request("distmind-ray");
	if (t_p != done_p)
		fprintf(stderr, "\n  pipelined %lld, recurrence %lld\n",
			(long long)t_p, (long long)done_p);
	CU_ASSERT_EQUAL(t_p, done_p);
	CU_ASSERT_EQUAL(t_w, net_w + pcie_w + B);
	CU_ASSERT_EQUAL(t_w - t_p, net_w + pcie_w + B - done_p);
	CU_ASSERT(t_p < t_w);
	/* the pipeline hides most of the transfer: PipeSwitch's point */
	CU_ASSERT(t_p < net_w + B);
	free(st);
	dev_catalog_fini(&cat);
}

static void test_balancer_order(void)
{
	/* four GPUs, GPU 3 outside the pool */
	int in[4] = { 1, 1, 1, 0 };
	int load_a[4] = { 1, 0, 0, 0 }, has_a[4] = { 1, 0, 1, 1 };
	int load_b[4] = { 1, 3, 0, 0 }, has_b[4] = { 1, 0, 0, 1 };
	int load_c[4] = { 3, 1, 2, 0 }, has_c[4] = { 1, 1, 0, 1 };
	int load_d[4] = { 3, 2, 2, 0 }, has_d[4] = { 1, 1, 0, 1 };
	int load_e[4] = { 4, 5, 4, 0 }, has_e[4] = { 1, 1, 1, 1 };

	/* 1: has the model and idle (GPU 2), before the idle GPU 1 */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_a, has_a, 2, 4, 1), 2);
	/* 2: no idle GPU has it: any idle GPU (GPU 2; GPU 3 is not in) */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_b, has_b, 2, 4, 1), 2);
	/* 3: nobody idle: has it with load < 2 (GPU 1), not least-loaded */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_c, has_c, 2, 4, 1), 1);
	/* 4: nobody with the model under 2: least loaded under 4 (GPU 1,
	** the lowest of the ties at 2) */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_d, has_d, 2, 4, 1), 1);
	/* 5: everybody at 4 or more: queue */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_e, has_e, 2, 4, 1), -1);
	/* the Ray-like order ignores the cache */
	CU_ASSERT_EQUAL(distmind_route(4, in, load_a, has_a, 2, 4, 0), 1);
	CU_ASSERT_EQUAL(distmind_route(4, in, load_c, has_c, 2, 4, 0), 1);
	load_c[1] = 2;              /* GPU 1 now too busy for case 3 */
	load_c[2] = 1;
	CU_ASSERT_EQUAL(distmind_route(4, in, load_c, has_c, 2, 4, 1), 2);
}

static void test_sharding(void)
{
	static const int servers[] = { 1, 2, 3, 4, 7, 16 };
	const char *trace = tw_write("dm-empty.csv", "");
	size_t i, z;

	for (i = 0; i < sizeof servers / sizeof *servers; i++) {
		struct tw_world tw;
		const struct world *w;
		int expect = servers[i] < 4 ? servers[i] : 4;
		CU_ASSERT_FATAL(run_world(&tw, trace, "distmind",
					  "1x1:v100-32gb", servers[i]) == 0);
		w = tw.w;
		CU_ASSERT_EQUAL(world_pool_servers(w), servers[i]);
		for (z = 0; z < zoo_count(); z++) {
			int s[4], t[4], n, a, b;
			n = world_pool_shards(w, zoo_at(z), s);
			CU_ASSERT_EQUAL(n, expect);
			for (a = 0; a < n; a++) {
				CU_ASSERT(s[a] >= 0 && s[a] < servers[i]);
				for (b = 0; b < a; b++)
					CU_ASSERT(s[a] != s[b]);
			}
			/* seeded: the same answer every time */
			CU_ASSERT_EQUAL(world_pool_shards(w, zoo_at(z), t), n);
			CU_ASSERT(memcmp(s, t, (size_t)n * sizeof *s) == 0);
		}
		tw_close(&tw);
	}
}

static void test_reassign_under_load(void)
{
	struct tw_world t;
	const struct world_job *train, *svc;
	/* a long training job from t = 0; a heavy service from t = 2.5 s
	** for 6 s: at the first tick (1 s) the idle pool hands both GPUs to
	** training (one runs the job); once requests wait, the ticks bring
	** the idle GPU back and then preempt the training job */
	const char *trace = tw_write("dm-reassign.csv",
		"t0,train,0,resnet50,32,,60,,momentum,fp32,1,1,,,,,,,\n"
		"s0,infer,2.5,resnet50,8,,6,,,,1,1,,,100,poisson,2500,,0\n");

	CU_ASSERT_FATAL(run_world(&t, trace, "distmind", "1x2:v100-32gb",
				  2) == 0);
	train = world_job(t.w, 0);
	svc = world_job(t.w, 1);
	CU_ASSERT_EQUAL(train->state, JOB_DONE);
	CU_ASSERT_EQUAL(svc->state, JOB_DONE);
	CU_ASSERT(train->preemptions >= 1);
	/* it started at the first tick, not at 0 (every GPU began in the
	** pool), and lost time to inference */
	CU_ASSERT_EQUAL(train->start_ns, SIM_NS_PER_S);
	CU_ASSERT(train->end_ns > train->start_ns + 60 * SIM_NS_PER_S);
	tw_close(&t);
}

/* One training job of 1e9 s and no service: after the first tick hands
** the idle pool to training, the timer sleeps (it used to tick every
** period for the whole run: 1e9 events); the job still starts at 1 s. */
static void test_idle_timer_sleeps(void)
{
	struct tw_world t;
	const char *trace = tw_write("dm-idle.csv",
		"t0,train,0,resnet50,32,,1000000000,,momentum,fp32,1,1,,,,,,,"
		"\n");

	/* the suites' event budget (2,000,000): the old timer runs out of
	** it and fails here instead of running for hours */
	struct world_config cfg = tw_config(pol_find("distmind"));

	CU_ASSERT_FATAL(tw_simulate(&t, trace, "1x2:v100-32gb", &cfg,
				    NULL) == 0);
	CU_ASSERT_EQUAL(world_job(t.w, 0)->state, JOB_DONE);
	CU_ASSERT_EQUAL(world_job(t.w, 0)->start_ns, SIM_NS_PER_S);
	CU_ASSERT(t.res.events < 100000);
	if (t.res.events >= 100000)
		fprintf(stderr, "\n  %llu events\n",
			(unsigned long long)t.res.events);
	tw_close(&t);
}

/* A busy service grows the pool to both GPUs and ends; nothing waits
** for 1e8 s: the timer sleeps with the pool above its floor (it used to
** tick every period: 1e8 events, past the suites' budget), and the
** training job arriving at 1e8 s (a tick time) wakes it: that tick hands
** the idle pool back and the job starts at once. */
static void test_pool_above_floor_sleeps(void)
{
	struct tw_world t;
	const char *trace = tw_write("dm-above.csv",
		"s0,infer,0,resnet50,8,,60,,,,1,1,,,100,poisson,400,,0\n"
		"t1,train,100000000,resnet50,32,,100,,momentum,fp32,2,1,,,,"
		",,,\n");
	struct world_config cfg = tw_config(pol_find("distmind"));
	const struct world_job *train;

	CU_ASSERT_FATAL(tw_simulate(&t, trace, "1x2:v100-32gb", &cfg,
				    NULL) == 0);
	train = world_job(t.w, tw_find(&t, "t1"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(train);
	CU_ASSERT_EQUAL(train->state, JOB_DONE);
	CU_ASSERT_EQUAL(train->start_ns, sim_time_from_s(100000000));
	CU_ASSERT(t.res.events < 200000);
	tw_close(&t);
}

static void test_bad_params(void)
{
	struct run_result res;
	struct sim_err err = { 0, "" };
	struct tw_world t;
	const char *trace = tw_write("dm-bad.csv",
		"s0,infer,0,resnet50,8,,1,,,,1,1,,,100,poisson,10,,0\n");
	static const char *const bad[][2] = {
		{ "distmind", "period_ms=0" },
		{ "distmind", "util_target=2" },
		{ "distmind", "busy_load=9" },
		{ "distmind", "max_load=0" },
		{ "distmind", "bogus=1" },
		{ "distmind", "min_inference_gpus=5" },
		{ "distmind-ray", "train_gpus=9" },
		{ "distmind-ray", "period_ms=10" },
		{ "distmind-mps", "sm_pct=0" },
		{ "distmind-mps", "max_load=3" },
	};
	size_t i;
	int rc;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		run_result_init(&res);
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(tw_run(trace, bad[i][0], "1x2:v100-32gb", 1,
				       bad[i][1], &res, &err), SIM_EINVAL);
		CU_ASSERT(err.msg[0] != '\0');
		run_result_fini(&res);
	}
	/* good parameters run */
	run_result_init(&res);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(tw_run(trace, "distmind", "1x2:v100-32gb", 1,
			       "period_ms=500,busy_load=1,max_load=3", &res,
			       &err), 0);
	if (err.code != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	run_result_fini(&res);
	/* a negative memory pool */
	rc = run_world(&t, trace, "distmind", "1x2:v100-32gb", -1);
	CU_ASSERT(rc != 0);
	CU_ASSERT_EQUAL(rc, SIM_EINVAL);
	tw_close(&t);
}

/* Re-assignment must skip GPUs it cannot free: one holding a service
** replica (services are not preempted) used to stop the run with "on_timer
** failed: operation not allowed in this state" (mixed-small, seed 1). */
static void test_reassign_skips_services(void)
{
	struct run_result r;
	struct sim_err err = { 0, "" };
	int rc;

	run_result_init(&r);
	rc = tw_run("traces/ref/mixed-small.csv", "distmind", "2x4:a100-80gb",
		    1, NULL, &r, &err);
	if (rc != 0)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_DOUBLE_EQUAL(run_result_get(&r, "jobs_done") +
			       run_result_get(&r, "jobs_failed"),
			       run_result_get(&r, "jobs_total"), 0);
	run_result_fini(&r);
}

TEST_REGISTER(distmind)
{
	static const struct test_case cases[] = {
		{ "ResNet-152: pipelined vs whole load = recurrence",
		  test_pipeline_vs_whole },
		{ "load balancer: the five cases in order",
		  test_balancer_order },
		{ "sharding over min(servers, 4), seeded", test_sharding },
		{ "re-assignment takes a GPU from training under load",
		  test_reassign_under_load },
		{ "bad parameters are errors", test_bad_params },
		{ "no service: the timer sleeps (few events)",
		  test_idle_timer_sleeps },
		{ "a pool above its floor, nothing waiting: the timer sleeps",
		  test_pool_above_floor_sleeps },
		{ "re-assignment skips GPUs it cannot free",
		  test_reassign_skips_services },
		{ NULL, NULL }
	};
	return test_add_suite("distmind", cases);
}
