/*
** test_sched2.c: the second part of issue 19 on cases computed by hand
** (each case's arithmetic is in its comment): the all-reduce of a spread
** job on a trace-given iteration time.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/zoo.h"
#include "policies/gavel_lp.h"
#include "policies/policy.h"
#include "sim/world/world.h"
#include "tests/util.h"
#include "tests/world_util.h"

/* ---- the all-reduce of a spread job ---------------------------------- */

/* Two nodes of 2 A100-80GB.  X (1 GPU) and Y (2 GPUs), 10 iterations of
** 1 s each (iter_ms), both at 0.  srtf with placement=any: X (10 s) first
** takes GPU 0, Y takes GPUs 1 and 2, one on each node: each iteration
** pays the ring all-reduce over the NIC less the consolidated one over
** NVLink, 2 (2 - 1) / 2 x G x (1 / 12.5e9 - 1 / 600e9) s, G = 4 bytes x
** ResNet-50's parameters.  placement=node puts Y on node 1 (GPUs 2-3):
** 10 s; so does spread_cost none. */
static void test_spread_iter(void)
{
	const char *body =
		"X,train,0,resnet50,32,10,,1000,,,1,,1000,,,,,,\n"
		"Y,train,0,resnet50,32,10,,1000,,,2,,1000,,,,,,\n";
	const struct zoo_model *m = zoo_find("resnet50");
	double g, extra;
	struct world_config cfg;
	struct tw_world r;
	const char *t;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	g = 4.0 * (double)m->params;
	extra = g * (1 / 12.5e9 - 1 / 600e9);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "spread.csv", body, pol_find("srtf"),
				    "2x2:a100-80gb", "placement=any"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10 * (1 + extra), 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "X"), 10, 1e-6);
	CU_ASSERT(extra > 0.005);       /* it matters: 8 ms an iteration */
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "spread2.csv", body, pol_find("srtf"),
				    "2x2:a100-80gb", "placement=node"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 2);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10, 1e-6);
	tw_close(&r);
	t = tw_write("spread3.csv", body);
	cfg = tw_config(pol_find("srtf"));
	cfg.spread_cost = WORLD_SPREAD_NONE;
	CU_ASSERT_EQUAL_FATAL(tw_simulate(&r, t, "2x2:a100-80gb", &cfg,
					  "placement=any"), 0);
	CU_ASSERT_EQUAL(tw_wjob(&r, "Y")->first_gpu_, 1);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 10, 1e-6);
	tw_close(&r);
	/* a bad value is refused */
	cfg.spread_cost = 7;
	CU_ASSERT_NOT_EQUAL(tw_simulate(&r, t, "2x2:a100-80gb", &cfg,
					"placement=any"), 0);
	tw_close(&r);
}

/* ---- gavel ------------------------------------------------------------ */

static void lp(int objective, int n, int m, const int *sf, const double *tput,
	       const int *ngpus, const double *rem, const double *tss,
	       double *x)
{
	double w[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct gv_lp_in in;

	memset(&in, 0, sizeof in);
	in.n = n;
	in.m = m;
	in.objective = objective;
	in.solver = GV_LP_INTERIOR;
	in.sf = sf;
	in.w = w;
	in.tput = tput;
	in.ngpus = ngpus;
	in.rem = rem;
	in.tss = tss;
	CU_ASSERT_EQUAL(gv_lp_solve(&in, x), 0);
}

/* The programs on cases with one optimum each.
** Heterogeneity-aware max-min, 1 GPU of each of 2 types, A 3x faster on
** type 0, B 3x on type 1: the isolated share is half of each type (iso =
** 2 each), so the coefficients are (1.5, 0.5) and (0.5, 1.5): A all on
** type 0, B all on type 1 (both 1.5; any other split lowers one).
** Agnostic max-min, one type of 2 GPUs, A 1 GPU, B 2 GPUs: t <= x_A,
** t <= 2 x_B, x_A + 2 x_B <= 2, x <= 1: x_A = 1, x_B = 0.5.
** Finish-time fairness, 1 GPU, two equal jobs of 100 s at their start:
** rho_i = 0.5 / x_i: x = 0.5 each.  Makespan, 1 GPU, A 100 s, B 300 s:
** x_A / 100 = x_B / 300, x_A + x_B = 1: 0.25, 0.75. */
static void test_gavel_lp(void)
{
	int sf11[2] = { 1, 1 }, sf12[2] = { 1, 2 }, n11[2] = { 1, 1 };
	int n2[1] = { 2 }, n1[1] = { 1 };
	double het[4] = { 3, 1, 1, 3 }, one[2] = { 1, 1 };
	double t100[2] = { 0.01, 0.01 }, tms[2] = { 0.01, 1 / 300.0 };
	double rem[2] = { 1, 1 }, tss[2] = { 0, 0 }, x[4];

	lp(GV_OBJ_MMF_PERF, 2, 2, sf11, het, n11, rem, tss, x);
	CU_ASSERT_DOUBLE_EQUAL(x[0], 1, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[1], 0, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[2], 0, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[3], 1, 1e-5);
	lp(GV_OBJ_MMF, 2, 1, sf12, one, n2, rem, tss, x);
	CU_ASSERT_DOUBLE_EQUAL(x[0], 1, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[1], 0.5, 1e-5);
	lp(GV_OBJ_FTF_PERF, 2, 1, sf11, t100, n1, rem, tss, x);
	CU_ASSERT_DOUBLE_EQUAL(x[0], 0.5, 1e-4);
	CU_ASSERT_DOUBLE_EQUAL(x[1], 0.5, 1e-4);
	lp(GV_OBJ_MAKESPAN, 2, 1, sf11, tms, n1, rem, tss, x);
	CU_ASSERT_DOUBLE_EQUAL(x[0], 0.25, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(x[1], 0.75, 1e-5);
}

/* Rounds of 100 s, a reset whenever the jobs change (reset_s 0).  Three
** 1000 s one-GPU jobs at 0 on 2 GPUs: X = 2/3 each.  Priorities X / (its
** share of the time so far), each starting at round / 2 = 50: round 1
** (0-100) all 2 (ties in arrival order): A, B; then A 150, B 150, C 50
** of 350: C first (4.67), then A (1.56) before B: round 2 C, A (A keeps
** GPU 0); then B and C (2.44) before A: round 3 B, C; then all equal:
** A, B again.  A runs rounds 1, 2, 4, 5, ..., 13, 14: done at 1400; B
** and C have one more round each: 1500.  FIFO would end C at 2000. */
static void test_gavel_rounds(void)
{
	const char *body =
		"A,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n"
		"C,train,0,resnet50,32,,1000,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "gavel.csv", body, pol_find("gavel"),
				    "1x2:a100-80gb",
				    "round_s=100,reset_s=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 1400, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 1500, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "C"), 1500, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "C"), 100, 1e-6);
	tw_close(&r);
}

/* Whole iterations a round (Gavel's int(throughput x round)): X, 10
** iterations of 30 s, runs 3 a round (90 s); Y, 4 of 40 s, 2 (80 s).
** The round ends at the longer slice, 90: Y idles 80-90, runs 90-170
** and ends at 170; X at 90, 180, 270 and 300.  whole_steps 0: rounds of
** 100 s, Y ends at 160, X at 300. */
static void test_gavel_steps(void)
{
	const char *body =
		"X,train,0,resnet50,32,10,,30000,,,1,,1000,,,,,,\n"
		"Y,train,0,resnet50,32,4,,40000,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "gsteps.csv", body, pol_find("gavel"),
				    "1x2:a100-80gb", "round_s=100"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 170, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "X"), 300, 1e-6);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "gsteps2.csv", body, pol_find("gavel"),
				    "1x2:a100-80gb",
				    "round_s=100,whole_steps=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "Y"), 160, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "X"), 300, 1e-6);
	tw_close(&r);
}

/* ---- themis ----------------------------------------------------------- */

/* One GPU, leases of 100 s; A 300 s and B 360 s, both at 0: contention 2
** throughout, so T_id = 2 x solo (600, 720) and rho = (now + remaining) /
** T_id.  0: both 0.5, A first (arrival order); 100: A (100 + 200) / 600
** = 0.5, B 460 / 720 = 0.64: B; 200: A 400 / 600 = 0.67, B 460 / 720:
** A; 300: A 0.67, B 560 / 720 = 0.78: B; 400: A 500 / 600 = 0.83, B 0.78:
** A, which ends at 500; B then ends at 660.  With a lease longer than
** the jobs, A keeps the GPU to its end (300), B starts then. */
static void test_themis(void)
{
	const char *body =
		"A,train,0,resnet50,32,,300,,,,1,,1000,,,,,,\n"
		"B,train,0,resnet50,32,,360,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "themis.csv", body,
				    pol_find("themis"), "1x1:a100-80gb",
				    "lease_s=100"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 500, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 660, 1e-6);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "A"), 2);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "B"), 2);
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "themis2.csv", body,
				    pol_find("themis"), "1x1:a100-80gb",
				    "lease_s=1000"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 300, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 300, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 660, 1e-6);
	tw_close(&r);
}

/* The share term: 2 GPUs, W asks 2 GPUs for 100 s, N 1 GPU for 100 s, N
** arriving at 1 while W runs (lease 50).  At 50 (contention about 2 for
** both, share 1 GPU): W's T_id = 100 x 2 / 1 = 200, rho (50 + 50) / 200
** = 0.5; N's T_id = 100, rho (49 + 100) / 100 = 1.49: N first, W does not
** fit beside it and is preempted; N runs 50-150, then W 150-200. */
static void test_themis_share(void)
{
	const char *body =
		"W,train,0,resnet50,32,,100,,,,2,,1000,,,,,,\n"
		"N,train,1,resnet50,32,,100,,,,1,,1000,,,,,,\n";
	struct tw_world r;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "themis3.csv", body,
				    pol_find("themis"), "1x2:a100-80gb",
				    "lease_s=50"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "N"), 50, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "N"), 150, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "W"), 200, 1e-6);
	tw_close(&r);
}

/* ---- gandiva ---------------------------------------------------------- */

static const char gd_body[] =
	"A,train,0,MODEL,32,,100,,,,1,,1000,,,,,,\n"
	"B,train,0,MODEL,32,,100,,,,1,,1000,,,,,,\n";

static int gd_go(struct tw_world *r, const char *name, const char *model,
		 const char *pol, const char *cluster, const char *params)
{
	char body[256], *at;

	CU_ASSERT_FATAL(snprintf(body, sizeof body, "%s", gd_body) <
			(int)sizeof body);
	while ((at = strstr(body, "MODEL")) != NULL) {
		char rest[256];
		CU_ASSERT_FATAL(snprintf(rest, sizeof rest, "%s", at + 5) <
				(int)sizeof rest);
		*at = '\0';
		CU_ASSERT_FATAL(strlen(body) + strlen(model) + strlen(rest) <
				sizeof body);
		strcat(body, model);
		strcat(body, rest);
	}
	return tw_go(r, name, body, pol_find(pol), cluster, params);
}

/* Two 100 s jobs on one GPU.  ResNet-50 pairs co-run faster than one
** after the other (the world's time-slicing model: speeds sum above 1),
** so the pair stays packed and both end when they end under the
** timeslice baseline.  BERT-large pairs sum below 1 (each s, about 0.5):
** at the first round (50 s) the pair is split for good, each having done
** 50 s; A runs alone 50-100 and 150-(200 - 50 s), B 100-150 and then to
** 250 - 100 s.  Two GPUs: no packing, each alone, 100 s. */
static void test_gandiva(void)
{
	struct tw_world r;
	double ts_end, s;

	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_ts.csv", "resnet50", "timeslice",
				    "1x1:a100-80gb", NULL), 0);
	ts_end = tw_end_s(&r, "B");
	tw_close(&r);
	CU_ASSERT(ts_end > 100 && ts_end < 200);
	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_r.csv", "resnet50", "gandiva",
				    "1x1:a100-80gb", "round_s=50"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "B"), 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), ts_end, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), ts_end, 1e-6);
	tw_close(&r);

	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_ts2.csv", "bert-large",
				    "timeslice", "1x1:a100-80gb", NULL), 0);
	s = 100 / tw_end_s(&r, "B");
	tw_close(&r);
	CU_ASSERT(s > 0.4 && s < 0.5);
	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_b.csv", "bert-large", "gandiva",
				    "1x1:a100-80gb", "round_s=50"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 200 - 50 * s, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 250 - 100 * s, 1e-5);
	tw_close(&r);

	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_2.csv", "bert-large", "gandiva",
				    "1x2:a100-80gb", "round_s=50"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 100, 1e-6);
	tw_close(&r);

	/* pack = 0: time-slicing rounds only, one job at a time */
	CU_ASSERT_EQUAL_FATAL(gd_go(&r, "gd_np.csv", "resnet50", "gandiva",
				    "1x1:a100-80gb", "round_s=50,pack=0"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "A"), 150, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "B"), 200, 1e-6);
	tw_close(&r);
}

/* ---- antman ----------------------------------------------------------- */

/* One 80 GB GPU.  O (opportunistic, priority 0, 20 GB) runs alone from 0;
** G (guaranteed, 70 GB) arrives at 10: the two do not fit, O is evicted,
** G runs 10-110 alone and O the 90 s it has left from 110 to 200.  With
** G at 1 GB they share: O is not evicted and runs on under the SM cap;
** the lower the cap, the less G is slowed.  Two guaranteed jobs never
** share: the second starts when the first ends. */
static void test_antman(void)
{
	const char *evict =
		"O,train,0,resnet50,32,,100,,,,1,,20000,0,,,,,\n"
		"G,train,10,resnet50,32,,100,,,,1,,70000,1,,,,,\n";
	const char *share =
		"O,train,0,resnet50,32,,100,,,,1,,20000,0,,,,,\n"
		"G,train,10,resnet50,32,,100,,,,1,,1000,1,,,,,\n";
	const char *two =
		"G1,train,0,resnet50,32,,100,,,,1,,1000,1,,,,,\n"
		"G2,train,0,resnet50,32,,100,,,,1,,1000,1,,,,,\n";
	struct tw_world r;
	double g_low, g_high;

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "am1.csv", evict, pol_find("antman"),
				    "1x1:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "G"), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "G"), 110, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "O"), 200, 1e-6);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "O"), 1);
	tw_close(&r);

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "am2.csv", share, pol_find("antman"),
				    "1x1:a100-80gb", "opp_sm=0.1"), 0);
	CU_ASSERT_EQUAL(tw_preemptions(&r, "O"), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "G"), 10, 1e-9);
	g_low = tw_end_s(&r, "G");
	CU_ASSERT(g_low > 110 && g_low < tw_end_s(&r, "O"));
	tw_close(&r);
	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "am3.csv", share, pol_find("antman"),
				    "1x1:a100-80gb", "opp_sm=1"), 0);
	g_high = tw_end_s(&r, "G");
	tw_close(&r);
	CU_ASSERT(g_low < g_high - 1);

	CU_ASSERT_EQUAL_FATAL(tw_go(&r, "am4.csv", two, pol_find("antman"),
				    "1x1:a100-80gb", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(tw_end_s(&r, "G1"), 100, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(tw_start_s(&r, "G2"), 100, 1e-6);
	tw_close(&r);
}

TEST_REGISTER(sched2)
{
	static const struct test_case cases[] = {
		{ "a spread job pays its all-reduce on iter_ms",
		  test_spread_iter },
		{ "gavel's programs by hand", test_gavel_lp },
		{ "gavel's rounds and priorities", test_gavel_rounds },
		{ "gavel runs whole iterations a round", test_gavel_steps },
		{ "themis: the worst finish-time fairness first, leases",
		  test_themis },
		{ "themis: a wide job's share of the cluster",
		  test_themis_share },
		{ "gandiva: packing kept or split by introspection, rounds",
		  test_gandiva },
		{ "antman: eviction, capped sharing, guaranteed alone",
		  test_antman },
		{ NULL, NULL }
	};
	return test_add_suite("sched2", cases);
}
