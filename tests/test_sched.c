/*
** test_sched.c: the literature's cluster schedulers (policies/qsched.c,
** srsf.c, dlas.c, tiresias.c, gittins.c, muri.c), the interleaving model
** (models/interleave.c), the blossom matching (policies/blossom.c), the
** Muri importer and the trace's optional columns, on cases computed by
** hand (each case's arithmetic is in its comment).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/interleave.h"
#include "policies/blossom.h"
#include "policies/dlas.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"
#include "traces/import.h"
#include "traces/trace.h"

#define HDR_RES "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,arrival," \
	"rate,arrival_arg,batch_timeout_ms,res_cpu_ms,res_gpu_ms,res_net_ms\n"

static const char *write_raw(const char *name, const char *text)
{
	return test_write(name, NULL, text);
}

/* ---- the interleaving model ------------------------------------------ */

/* A = (100, 20, 0) ms, B = (20, 100, 0) ms, both 120 ms solo.  In the
** order (A, B) the recurrence gives f1 = B.net = 0, f2 = A.cpu = 100,
** f3 = max(f2 + A.gpu, f1 + B.cpu) = 120, f4 = max(f3 + A.net,
** f3 + B.gpu) = 220, f5 = f4 + B.net = 220; f5 - f1 = f4 - f0: T = 220.
** In (B, A): f2 = 20, f3 = max(20 + 100, 0 + 100) = 120, f4 = max(120,
** 120 + 20) = 140 = f5: T = 140.  The pairing of one's CPU stage with the
** other's GPU and network: max(100, 100) + max(20, 20) = 120, the best.
** Times Muri's overhead for two, 1.33 / 1.015. */
static void test_interleave_two(void)
{
	struct il_job j[2] = { { { 100, 20, 0 }, 120 },
			       { { 20, 100, 0 }, 120 } };
	const struct il_job *ab[2] = { &j[0], &j[1] }, *ba[2] = { &j[1], &j[0] };
	double f2 = 1.33 / 1.015;

	CU_ASSERT_DOUBLE_EQUAL(il_round_ordered(ab, 2), 220, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(il_round_ordered(ba, 2), 140, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(il_round(j, 2, IL_BEST, NULL), 120 * f2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(il_round(j, 2, IL_WORST, NULL), 220 * f2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(il_round(j, 2, IL_GIVEN, NULL), 220 * f2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(il_round(j, 1, IL_BEST, NULL), 120, 0);
	CU_ASSERT_EQUAL(il_round(j, 5, IL_BEST, NULL), -1);
	/* weight: (120 + 120) / (4 x T) */
	CU_ASSERT_DOUBLE_EQUAL(il_used_ratio(&j[0], 1, &j[1], 1, IL_BEST, NULL),
			       240 / (4 * 120 * f2), 1e-12);
}

/* ---- the blossom ------------------------------------------------------- */

/* The best total weight of a matching, by brute force. */
static double brute(const double *w, int n, unsigned used)
{
	double best = 0;
	int u, v;

	for (u = 0; u < n && (used >> u & 1); u++)
		;
	if (u >= n)
		return 0;
	best = brute(w, n, used | 1u << u);              /* u unmatched */
	for (v = u + 1; v < n; v++)
		if (!(used >> v & 1) && w[u * n + v] > 0) {
			double t = w[u * n + v] +
				brute(w, n, used | 1u << u | 1u << v);
			if (t > best)
				best = t;
		}
	return best;
}

static double solve_weight(const double *w, int n, int *mate)
{
	struct bl_graph *g = bl_create(n);
	double tot = 0;
	int u, v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	for (u = 0; u < n; u++)
		for (v = u + 1; v < n; v++)
			if (w[u * n + v] > 0)
				bl_edge(g, u, v, w[u * n + v]);
	bl_solve(g, mate);
	bl_destroy(g);
	for (u = 0; u < n; u++)
		if (mate[u] > u) {
			CU_ASSERT_EQUAL(mate[mate[u]], u);
			CU_ASSERT(w[u * n + mate[u]] > 0);
			tot += w[u * n + mate[u]];
		}
	return tot;
}

/* A path a-b-c-d weighted 1, 3, 1: the heaviest matching is {b-c} (3),
** not the two outer edges (2).  A 5-cycle of weight-1 edges with a
** pendant on vertex 0 (weight 1) needs a blossom: {0-5, 1-2, 3-4}.  Then
** 300 random graphs of 2..9 vertices against brute force. */
static void test_blossom(void)
{
	double w[81];
	int mate[9], k, n, u, v;
	unsigned s = 12345;

	memset(w, 0, sizeof w);
	w[0 * 4 + 1] = 1;
	w[1 * 4 + 2] = 3;
	w[2 * 4 + 3] = 1;
	CU_ASSERT_DOUBLE_EQUAL(solve_weight(w, 4, mate), 3, 1e-12);
	CU_ASSERT_EQUAL(mate[1], 2);
	CU_ASSERT_EQUAL(mate[0], -1);
	memset(w, 0, sizeof w);
	for (u = 0; u < 5; u++) {
		v = (u + 1) % 5;
		w[(u < v ? u : v) * 6 + (u < v ? v : u)] = 1;
	}
	w[0 * 6 + 5] = 1;
	CU_ASSERT_DOUBLE_EQUAL(solve_weight(w, 6, mate), 3, 1e-12);
	CU_ASSERT_EQUAL(mate[5], 0);
	for (k = 0; k < 300; k++) {
		n = 2 + k % 8;
		memset(w, 0, sizeof w);
		for (u = 0; u < n; u++)
			for (v = u + 1; v < n; v++) {
				s = s * 1103515245u + 12345u;
				if ((s >> 16) % 3 != 0)
					w[u * n + v] = 1 + (double)((s >> 8) % 97);
			}
		CU_ASSERT_DOUBLE_EQUAL(solve_weight(w, n, mate), brute(w, n, 0),
				       1e-9);
	}
}

/* ---- queue-order schedulers ----------------------------------------- */

/* One node of 2 GPUs.  A: 2 GPUs x 100 s (service 200 GPU-s); B: 1 GPU x
** 150 s (150 GPU-s); both at 0.  srtf runs A first (100 < 150), then B:
** A ends at 100, B at 250.  srsf runs B first (150 < 200); A needs both
** GPUs and waits (fit-first skips it) until B ends at 150: A ends at 250. */
static void test_srtf_srsf(void)
{
	const char *body =
		"A,train,0,resnet50,32,,100,,,,2,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,150,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srtf_ab.csv", body, pol_find("srtf"),
				    "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 250, 1e-6);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "srsf_ab.csv", body, pol_find("srsf"),
				    "1x2:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 150, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "A"), 150, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 250, 1e-6);
	tw_close(&r);
}

/* Node-consolidated placement: two nodes of 2 GPUs.  X (1 GPU, 300 s) and
** Y (1 GPU, 200 s) at 0 go to node 0 (the first node with a free GPU);
** Z (2 GPUs, 100 s) at 10 gets node 1.  srtf order at 10: Z (100), Y, X:
** all fit.  With placement=any the same GPUs (lowest free first). */
static void test_node_placement(void)
{
	const char *body =
		"X,train,0,resnet50,32,,300,,,,1,,1000,,,,,,\n"
		"Y,train,0,resnet50,32,,200,,,,1,,1000,,,,,,\n"
		"Z,train,10,resnet50,32,,100,,,,2,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "node.csv", body, pol_find("srtf"),
				    "2x2:a100-80gb", NULL), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Z")->first_gpu_, 2);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Z"), 110, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "X"), 300, 1e-6);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "X"), 0);
	tw_close(&r);
	/* a 3-GPU job on 2-GPU nodes takes one idle node and one GPU of
	** another: it runs; a 5-GPU job cannot (4 GPUs): failed */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "node3.csv",
		"W,train,0,resnet50,32,,50,,,,3,,1000,,,,,,\n"
		"V,train,0,resnet50,32,,50,,,,5,,1000,,,,,,\n",
		pol_find("srsf"), "2x2:a100-80gb", "placement=node"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "W"), 50, 1e-6);
	CU_ASSERT_EQUAL(tw_wjob(&r, "V")->state, JOB_FAILED);
	tw_close(&r);
}

/* tiresias, one GPU, queues "100" (100 GPU-s).  A (300 s) runs from 0.
** B (100 s) arrives at 50 into Q0 behind A, which keeps running; at 100
** A's attained service reaches 100 (the timer armed at 50 for
** ceil(100 / 1) - 50 = 50 s): A goes to Q1 and B runs 100..200; A resumes
** at 200 with 200 s left: ends at 400. */
static void test_tiresias(void)
{
	const char *body =
		"A,train,0,resnet50,32,,300,,,,1,,1000,,,,,,\n"
		"B,train,50,resnet50,32,,100,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "tir.csv", body, pol_find("tiresias"),
				    "1x1:a100-80gb", "queues=100"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 200, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 400, 1e-6);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 1);
	tw_close(&r);
	/* GPU-time: a 2-GPU job reaches 100 GPU-s after 50 s */
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "tir2.csv",
		"A,train,0,resnet50,32,,300,,,,2,,1000,,,,,,\n"
		"B,train,10,resnet50,32,,20,,,,2,,1000,,,,,,\n",
		pol_find("tiresias"), "1x2:a100-80gb", "queues=100"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 70, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 320, 1e-6);
	tw_close(&r);
	/* bad parameters are refused at start-up */
	CU_ASSERT_NOT_EQUAL(tw_go(&r, "tir3.csv", body, pol_find("tiresias"),
				  "1x1:a100-80gb", "queues=-5"), 0);
	tw_close(&r);
}

/* jump = tiresias: the timer as Tiresias's simulator sets it, floor((limit
** - executed) / GPUs) s after the pass.  One node of 4 GPUs; A (4 GPUs,
** 300 s) at 0, B (4 GPUs, 20 s) pending behind it in Q0 until A leaves Q0.
**  1. queues 100, B at 10: the pass at 10 sets floor((100 - 10) / 4) =
**     floor(22.5) = 22 s: A is demoted at 32 (attained 128), not at
**     ceil(100 / 4) = 25 as with jump = muri; B runs 32..52; A resumes at
**     52 with 268 s left: ends at 320.
**  2. queues 102, B at 0: floor(102 / 4) = 25 s, and at 25 A has 100 <
**     102 GPU-s: no demotion; floor((102 - 25) / 4) = 19 s more: demoted
**     at 44 (muri: ceil(25.5) = 26); B 44..64; A ends at 320.
**  3. queues 4.5, B at 0: floor(4.5 / 4) = 1 s; at 1 A has 4 < 4.5 and
**     floor(3.5 / 4) = 0, a timer the simulator would spin on: the
**     crossing is kept instead, ceil(4.5 / 4) = 2 s of run: B starts
**     at 2.  B is demoted the same way at 4 (1 s, then the crossing, 2 s
**     of run), behind A in the last queue: A runs 4..302, B 302..320. */
static void test_tiresias_jump(void)
{
	static const struct {
		const char *queues, *b_submit;
		double b_start, b_end, a_end, b_start_muri;
	} c[] = {
		{ "100", "10", 32, 52, 320, 25 },
		{ "102", "0", 44, 64, 320, 26 },
		{ "4.5", "0", 2, 320, 302, 2 },
	};
	char body[256], params[64];
	struct tw_world r;
	size_t k;

	for (k = 0; k < sizeof c / sizeof c[0]; k++) {
		snprintf(body, sizeof body,
			 "A,train,0,resnet50,32,,300,,,,4,,1000,,,,,,\n"
			 "B,train,%s,resnet50,32,,20,,,,4,,1000,,,,,,\n",
			 c[k].b_submit);
		snprintf(params, sizeof params, "queues=%s,jump=tiresias",
			 c[k].queues);
		CU_ASSERT_EQUAL_FATAL(tw_go(&r, "tirj.csv", body,
					    pol_find("tiresias"),
					    "1x4:a100-80gb", params), 0);
		CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), c[k].b_start,
				       1e-6);
		CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), c[k].b_end, 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), c[k].a_end, 1e-6);
		tw_close(&r);
		/* the default, jump = muri, demotes at the crossing */
		snprintf(params, sizeof params, "queues=%s", c[k].queues);
		CU_ASSERT_EQUAL_FATAL(tw_go(&r, "tirj.csv", body,
					    pol_find("tiresias"),
					    "1x4:a100-80gb", params), 0);
		CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), c[k].b_start_muri,
				       1e-6);
		tw_close(&r);
	}
	/* a choice it does not know is refused */
	CU_ASSERT_NOT_EQUAL(tw_go(&r, "tirj.csv", body, pol_find("tiresias"),
				  "1x4:a100-80gb", "jump=python3"), 0);
	tw_close(&r);
}

/* ---- dlas: a superseded timer runs no pass ---------------------------- */

/* A probe policy: tiresias's dlas with an order hook that notes the time
** of every pass that orders a job (the state is the world's, so the
** notes live here; one probe run at a time). */
static struct {
	sim_time at[64];
	int n;
} dlas_passes;

struct dlas_probe {
	struct dlas d;
};

static const struct pol_param_def dlas_probe_params[] = {
	DLAS_PARAMS(struct dlas_probe, d),
	POL_PARAM_END
};

static void dlas_probe_order(struct dlas *d, struct world *w, int j)
{
	sim_time now = pol_now(w);

	(void)d;
	(void)j;
	if (dlas_passes.n < 64 &&
	    (dlas_passes.n == 0 || dlas_passes.at[dlas_passes.n - 1] != now))
		dlas_passes.at[dlas_passes.n++] = now;
}

static int dlas_probe_init(struct world *w, void *s,
			   const struct pol_params *p, struct sim_err *err)
{
	struct dlas_probe *x = s;

	(void)p;
	x->d.order = dlas_probe_order;
	return dlas_init(&x->d, w, "dlas-probe", err);
}

static void dlas_probe_fini(struct world *w, void *s)
{
	(void)w;
	dlas_fini(s);
}

static int dlas_probe_arrival(struct world *w, void *s, int j)
{
	return dlas_arrival(s, w, j);
}

static int dlas_probe_finish(struct world *w, void *s, int j)
{
	dlas_finish(s, w, j);
	return 0;
}

static int dlas_probe_timer(struct world *w, void *s, uint64_t tag)
{
	return dlas_timer(s, w, tag);
}

static int dlas_probe_schedule(struct world *w, void *s)
{
	return dlas_pass(s, w);
}

static const struct pol_ops dlas_probe_ops = {
	.iVersion = POL_IFACE_VERSION,
	.zName = "dlas-probe",
	.zDesc = "test: dlas noting its passes",
	.szState = sizeof(struct dlas_probe),
	.szJob = QS_SZJOB,
	.xInit = dlas_probe_init,
	.xFini = dlas_probe_fini,
	.xOnArrival = dlas_probe_arrival,
	.xOnFinish = dlas_probe_finish,
	.xOnTimer = dlas_probe_timer,
	.xSchedule = dlas_probe_schedule,
	.aParam = dlas_probe_params,
};

/* 2 GPUs, one threshold at 100 s of run time.  C (1 GPU, 10,000 s) is
** demoted at 100 s to the last queue (no jump of its own after).  A (1
** GPU, 50 s) arrives at 200: its jump at 300 sets a timer.  A ends at
** 250; that pass sets no timer (C has no jump) but supersedes A's: at
** 300 no pass may run (before the fix, the timer of the pass at 200 was
** still the latest one, fired, and re-sorted at 300).  The passes that
** order a job: 0, 100, 200, 250. */
static void test_dlas_stale_timer(void)
{
	const char *body =
		"C,train,0,resnet50,32,,10000,,,,1,,1000,,,,,,\n"
		"A,train,200,resnet50,32,,50,,,,1,,1000,,,,,,\n";
	static const double want_s[] = { 0, 100, 200, 250 };
	struct tw_world r;
	int k, at300 = 0;

	dlas_passes.n = 0;
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "dlas_stale.csv", body,
				    &dlas_probe_ops, "1x2:a100-80gb",
				    "queues=100,service=time"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 250, 1e-6);
	for (k = 0; k < dlas_passes.n; k++)
		if (fabs((double)dlas_passes.at[k] / 1e9 - 300) < 1e-3)
			at300++;
	CU_ASSERT_EQUAL(at300, 0);
	CU_ASSERT_EQUAL_FATAL(dlas_passes.n >= 4, 1);
	for (k = 0; k < 4; k++)
		CU_ASSERT_DOUBLE_EQUAL((double)dlas_passes.at[k] / 1e9,
				       want_s[k], 1e-6);
	tw_close(&r);
}

/* gittins with a size distribution of {100, 100, 1000} GPU-s, delta 100:
** a job with 0 attained has index P/E with P = 2/3 (two of three finish
** within 100 more) and E = (100 + 100 + 100) / 3 = 100: 6666.6667; a job
** that has attained 100 (past the first two sizes) has P = 0 (none of
** the rest, {1000}, finish within 100 more): index 0.  So a new job runs
** before one that has attained 100: A (1 GPU, 300 s) at 0; B (50 s) at
** 100 preempts A when A's attained reaches 100 (its queue's threshold
** is far: queues 10000), at B's arrival. */
static void test_gittins(void)
{
	const char *dist = write_raw("dist.csv", "job_id,duration\n1,100\n"
				     "2,100\n3,1000\n");
	char params[700];
	struct tw_world r;

	snprintf(params, sizeof params, "queues=10000,delta=100,dist=%s",
		 dist);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "git.csv",
		"A,train,0,resnet50,32,,300,,,,1,,1000,,,,,,\n"
		"B,train,100,resnet50,32,,50,,,,1,,1000,,,,,,\n",
		pol_find("gittins"), "1x1:a100-80gb", params), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 150, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 350, 1e-6);
	tw_close(&r);
}

/* gittins e_floor: sizes {10, 30, 40} GPU-s, delta 20.  A new job takes
** the entry at 10 - 1 = 9: i = 0, i' = 1 (30 > 29), P = 1/3 = 0.33333, E =
** (10 + 20 x 2) / 3 = 16.66667: index 19999.796; with E floored (Python
** 2's int division) E = 16: 20833.125.  A job that has attained 10 takes
** the entry at 29: i = 1, i' = 2 (n - 1: 49 is past the largest), P =
** 1/2, E = (30 + 20) / 2 = 25: 20000 either way.  One GPU, queues 10000:
** A (100 s) at 0, B (5 s) at 10: real E keeps A (20000 > 19999.796),
** B runs 100..105; floored, B preempts A (20833.125 > 20000): B 10..15,
** A ends at 105. */
static void test_gittins_e_floor(void)
{
	const char *dist = write_raw("dist2.csv", "duration\n10\n30\n40\n");
	const char *body = "A,train,0,resnet50,32,,100,,,,1,,1000,,,,,,\n"
			   "B,train,10,resnet50,32,,5,,,,1,,1000,,,,,,\n";
	char params[700];
	struct tw_world r;
	int fl;

	for (fl = 0; fl <= 1; fl++) {
		snprintf(params, sizeof params,
			 "queues=10000,delta=20,e_floor=%d,dist=%s", fl, dist);
		CU_ASSERT_EQUAL_FATAL(tw_go(&r, "gitf.csv", body,
					    pol_find("gittins"),
					    "1x1:a100-80gb", params), 0);
		CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), fl ? 10 : 100,
				       1e-6);
		CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), fl ? 15 : 105,
				       1e-6);
		CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), fl ? 105 : 100,
				       1e-6);
		tw_close(&r);
	}
}

/* muri-s on one GPU: A and B of test_interleave_two, 10 iterations each
** (1.2 s solo).  Both arrive at 0: the slot A opens admits B; 2 GPUs
** asked of 1, so they are matched and run together at 120 / T each, T =
** 120 x 1.33 / 1.015: both end at 10 T = 1.5724 s.  srtf would end them
** at 1.2 and 2.4 s. */
static void test_muri(void)
{
	const char *t = write_raw("muri.csv", HDR_RES
		"A,train,0,resnet50,32,10,,120,,,1,,1000,,,,,,,100,20,0\n"
		"B,train,0,resnet50,32,10,,120,,,1,,1000,,,,,,,20,100,0\n");
	double tt = 0.120 * 1.33 / 1.015;
	struct world_config cfg = tw_config(pol_find("muri-s"));
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, t, "1x1:a100-80gb", &cfg, NULL),
			      0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 10 * tt, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 10 * tt, 1e-6);
	tw_close(&r);
	cfg = tw_config(pol_find("srtf"));
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, t, "1x1:a100-80gb", &cfg, NULL),
			      0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 2.4, 1e-6);
	tw_close(&r);
	/* two jobs that would both want the GPU stage: (20, 100, 0) twice:
	** best T = max(20, 100) + max(20, 100) = 200 x overhead > 240?  No:
	** 200 x 1.310 = 262 > 240 = the sum of solo times, so autopack
	** splits them and they run one after the other (1.2 s, 2.4 s) */
	t = write_raw("muri2.csv", HDR_RES
		"A,train,0,resnet50,32,10,,120,,,1,,1000,,,,,,,20,100,0\n"
		"B,train,0,resnet50,32,10,,120,,,1,,1000,,,,,,,20,100,0\n");
	cfg = tw_config(pol_find("muri-s"));
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, t, "1x1:a100-80gb", &cfg, NULL),
			      0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A") + tw_end_s(&r, "B"), 3.6,
			       1e-6);
	tw_close(&r);
}

/* ---- the Muri importer and the optional columns --------------------- */

static void test_import_muri(void)
{
	char in[512], cl[512];
	const char *inputs[2] = { in, cl };
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	struct trace_reader *rd;
	struct trace_job j;
	char out[512], clout[512];
	FILE *f;

	snprintf(in, sizeof in, "%s", write_raw("muri_in.csv",
		"job_id,num_gpu,submit_time,iterations,model_name,batch_size,"
		"duration,interval,iteration_time,resource_time_0,"
		"resource_time_1,resource_time_2,priority\n"
		"0,1,0,1000,dqn,128,600000,0,490,446,8,0,1\n"
		"1,8,201694,2000,vgg16,16,300000,201694,214,82,75,66,0\n"));
	snprintf(cl, sizeof cl, "%s", write_raw("muri_cl.csv",
		"num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,"
		"mem_p_node\n1,8,8,92,520\n"));

	snprintf(out, sizeof out, "%s/muri_out.csv", test_tmpdir());
	snprintf(clout, sizeof clout, "%s/muri_out.cluster", test_tmpdir());
	imp_opts_init(&o);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("muri"), inputs, 2, out, NULL,
				      &o, &st, &err), 0);
	CU_ASSERT_EQUAL(st.jobs_written, 2);
	CU_ASSERT_EQUAL_FATAL(trace_open(&rd, out, &err), 0);
	CU_ASSERT_EQUAL(trace_next(rd, &j, &err), 1);
	CU_ASSERT_STRING_EQUAL(j.id, "0");
	CU_ASSERT_EQUAL(j.iterations, 1000);
	CU_ASSERT_EQUAL(j.iter_ns, 490000000);
	CU_ASSERT_EQUAL(j.duration_ns, 0);
	CU_ASSERT_EQUAL(j.priority, 0);            /* opportunistic */
	CU_ASSERT_EQUAL(j.has_res, 1);
	CU_ASSERT_DOUBLE_EQUAL(j.res_ms[0], 446, 0);
	CU_ASSERT_STRING_EQUAL(j.model, "mobilenetv2");
	CU_ASSERT_EQUAL(trace_next(rd, &j, &err), 1);
	CU_ASSERT_EQUAL(j.submit_ns, 201694000000LL);   /* ms -> s */
	CU_ASSERT_EQUAL(j.priority, 1);            /* guaranteed */
	CU_ASSERT_DOUBLE_EQUAL(j.res_ms[2], 66, 0);
	trace_close(rd);
	f = fopen(clout, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(out, sizeof out, f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, "8x8:v100-32gb:cpus=92:mem_gb=520\n");
	/* --length duration and --iter-scale */
	snprintf(out, sizeof out, "%s/muri_out2.csv", test_tmpdir());
	o.length = IMP_LEN_DURATION;
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("muri"), inputs, 1, out, NULL,
				      &o, &st, &err), 0);
	CU_ASSERT_EQUAL_FATAL(trace_open(&rd, out, &err), 0);
	CU_ASSERT_EQUAL(trace_next(rd, &j, &err), 1);
	CU_ASSERT_EQUAL(j.duration_ns, 600000000000LL);
	CU_ASSERT_EQUAL(j.iterations, 0);
	trace_close(rd);
	o.length = IMP_LEN_ITERATIONS;
	o.iter_scale = 1.015;
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("muri"), inputs, 1, out, NULL,
				      &o, &st, &err), 0);
	CU_ASSERT_EQUAL_FATAL(trace_open(&rd, out, &err), 0);
	CU_ASSERT_EQUAL(trace_next(rd, &j, &err), 1);
	CU_ASSERT_EQUAL(j.iter_ns, 497350000);
	trace_close(rd);
	/* a malformed time names file, line and field */
	inputs[0] = write_raw("muri_bad.csv", "job_id,num_gpu,submit_time,"
			      "iterations,model_name,iteration_time\n"
			      "0,1,soon,10,dqn,490\n");
	CU_ASSERT_EQUAL(imp_run(imp_find("muri"), inputs, 1, out, NULL, &o,
				&st, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "muri_bad.csv:2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "submit_time"));
}

static int open_err(const char *name, const char *text, struct sim_err *err)
{
	struct trace_reader *rd;
	struct trace_job j;
	int rc;

	sim_err_clear(err);
	rc = trace_open(&rd, write_raw(name, text), err);
	if (rc != 0)
		return rc;
	while ((rc = trace_next(rd, &j, err)) == 1)
		;
	trace_close(rd);
	return rc;
}

static void test_optional_columns(void)
{
	struct sim_err err;
	const char *h = "# colosim-trace v1\n"
		"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms,"
		"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,"
		"arrival,rate,arrival_arg,batch_timeout_ms";
	char buf[1024];

	snprintf(buf, sizeof buf, "%s,min_gpus,max_gpus\n"
		 "a,train,0,resnet50,32,10,,,,,2,,,,,,,,,1,4\n", h);
	CU_ASSERT_EQUAL(open_err("opt1.csv", buf, &err), 0);
	snprintf(buf, sizeof buf, "%s,min_gpus,max_gpus\n"
		 "a,train,0,resnet50,32,10,,,,,2,,,,,,,,,3,4\n", h);
	CU_ASSERT_EQUAL(open_err("opt2.csv", buf, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "min_gpus"));
	snprintf(buf, sizeof buf, "%s,res_cpu_ms\n"
		 "a,train,0,resnet50,32,10,,,,,2,,,,,,,,,1\n", h);
	CU_ASSERT_EQUAL(open_err("opt3.csv", buf, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "go together"));
	snprintf(buf, sizeof buf, "%s,colour\n"
		 "a,train,0,resnet50,32,10,,,,,2,,,,,,,,,red\n", h);
	CU_ASSERT_EQUAL(open_err("opt4.csv", buf, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown column 'colour'"));
	snprintf(buf, sizeof buf, "%s,res_cpu_ms,res_gpu_ms,res_net_ms\n"
		 "a,train,0,resnet50,32,10,,,,,2,,,,,,,,,1,-2,3\n", h);
	CU_ASSERT_EQUAL(open_err("opt5.csv", buf, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "res_gpu_ms"));
}

TEST_REGISTER(sched)
{
	static const struct test_case cases[] = {
		{ "interleaving round times by hand", test_interleave_two },
		{ "blossom matching against brute force", test_blossom },
		{ "srtf and srsf orders", test_srtf_srsf },
		{ "node-consolidated placement", test_node_placement },
		{ "tiresias demotes on attained GPU-time", test_tiresias },
		{ "tiresias jump = tiresias: the peer's floor", test_tiresias_jump },
		{ "dlas: a superseded timer runs no pass",
		  test_dlas_stale_timer },
		{ "gittins index from a distribution", test_gittins },
		{ "gittins e_floor: Python 2's E", test_gittins_e_floor },
		{ "muri-s interleaves complementary jobs", test_muri },
		{ "muri importer", test_import_muri },
		{ "optional trace columns", test_optional_columns },
		{ NULL, NULL }
	};
	return test_add_suite("sched", cases);
}
