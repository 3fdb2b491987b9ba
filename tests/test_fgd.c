/*
** test_fgd.c: BestFit and FGD placement (policies/frac.h) and the openb
** experiment (experiments/openb.h), a configuration of the world: every
** rule on small hand-built nodes with hand arithmetic, then the real trace
** when ../shared/traces is present, checked against the FGD simulator's
** published expected results at all 131 points of both curves.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiments/openb.h"
#include "policies/frac.h"
#include "sim/err.h"
#include "sim/rng.h"
#include "tests/util.h"

/* A node with all GPUs free. */
static struct frac_node node(int64_t cpu, int64_t mem, int ngpus, int64_t rank)
{
	struct frac_node n;
	int i;

	memset(&n, 0, sizeof(n));
	n.cpu_free_milli = cpu;
	n.mem_free_mib = mem;
	n.ngpus = ngpus;
	for (i = 0; i < ngpus; i++)
		n.gpu_free_milli[i] = FRAC_MILLI_PER_GPU;
	n.tiebreak_rank = rank;
	return n;
}

static struct frac_pod pod(int64_t cpu, int64_t mem, int num_gpu, int milli)
{
	struct frac_pod p;

	memset(&p, 0, sizeof(p));
	p.cpu_milli = cpu;
	p.mem_mib = mem;
	p.num_gpu = num_gpu;
	p.gpu_milli = milli;
	return p;
}

static void test_feasibility(void)
{
	struct frac_node a = node(8000, 16384, 2, 0), b = node(8000, 16384, 0, 1);
	struct frac_pod p;

	a.gpu_free_milli[1] = 300;                   /* GPUs: 1000, 300 */
	p = pod(8000, 16384, 0, 0);
	CU_ASSERT_TRUE(frac_node_fits(&a, &p));
	p = pod(8001, 0, 0, 0);
	CU_ASSERT_FALSE(frac_node_fits(&a, &p));     /* CPU */
	p = pod(0, 16385, 0, 0);
	CU_ASSERT_FALSE(frac_node_fits(&a, &p));     /* memory */
	a.cpu_any = a.mem_any = 1;                   /* not modelled */
	CU_ASSERT_TRUE(frac_node_fits(&a, &p));
	a.cpu_any = a.mem_any = 0;
	/* GPU count: each of num_gpu GPUs must have gpu_milli free */
	p = pod(1, 1, 1, 1000);
	CU_ASSERT_TRUE(frac_node_fits(&a, &p));
	p = pod(1, 1, 2, 1000);
	CU_ASSERT_FALSE(frac_node_fits(&a, &p));
	p = pod(1, 1, 2, 300);
	CU_ASSERT_TRUE(frac_node_fits(&a, &p));
	p = pod(1, 1, 2, 301);
	CU_ASSERT_FALSE(frac_node_fits(&a, &p));
	p = pod(1, 1, 1, 100);
	CU_ASSERT_FALSE(frac_node_fits(&b, &p));     /* no GPUs */
	p = pod(1, 1, 3, 100);
	CU_ASSERT_FALSE(frac_node_fits(&a, &p));
	CU_ASSERT_EQUAL(frac_node_gpu_free(&a), 1300);
}

static void test_bestfit_score(void)
{
	struct frac_node c[3];
	struct frac_pod p = pod(4000, 0, 1, 1000);
	struct frac_place pl;

	c[0] = node(64000, 1, 4, 9);     /* A */
	c[1] = node(16000, 1, 1, 9);     /* B */
	c[2] = node(32000, 1, 2, 9);     /* C */
	/* A: 1 - (0.5*60000/128000 + 0.5*3000/8000) = 0.578125 -> 57 */
	CU_ASSERT_EQUAL(frac_bestfit_raw(&c[0], &p), 57);
	/* B: 1 - 0.5*12000/128000 = 0.953125 -> 95 */
	CU_ASSERT_EQUAL(frac_bestfit_raw(&c[1], &p), 95);
	/* C: 1 - (0.109375 + 0.0625) = 0.828125 -> 82 */
	CU_ASSERT_EQUAL(frac_bestfit_raw(&c[2], &p), 82);
	/* normalised over the feasible nodes: (82-57)*100/(95-57) = 65.8 */
	CU_ASSERT_EQUAL(frac_normalize(57, 57, 95), 0);
	CU_ASSERT_EQUAL(frac_normalize(95, 57, 95), 100);
	CU_ASSERT_EQUAL(frac_normalize(82, 57, 95), 65);
	CU_ASSERT_EQUAL(frac_normalize(40, 40, 40), 0);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 1);
	CU_ASSERT_EQUAL(pl.ngpu, 1);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	/* B full: C wins */
	c[1].gpu_free_milli[0] = 0;
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 2);
	/* a node whose CPU is not modelled: no CPU term.  C: 1 - 0.0625 */
	c[2].cpu_any = 1;
	CU_ASSERT_EQUAL(frac_bestfit_raw(&c[2], &p), 93);
	/* nothing fits */
	p = pod(70000, 0, 0, 0);
	c[2].cpu_any = 0;
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, c, 3, &p, &pl), SIM_ENOSPC);
}

static void test_gpu_choice(void)
{
	struct frac_node c = node(64000, 1, 4, 0);
	struct frac_pod p;
	struct frac_place pl;
	static const int32_t frees[4] = { 1000, 500, 300, 500 };

	memcpy(c.gpu_free_milli, frees, sizeof(frees));
	/* a sharing pod takes the least free GPU that fits, lowest index
	** on ties */
	p = pod(1, 0, 1, 300);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 2);
	p.gpu_milli = 400;
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 1);
	p.gpu_milli = 600;
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	/* whole-GPU pods take the lowest-index fully free GPUs */
	c.gpu_free_milli[1] = 200;
	c.gpu_free_milli[2] = 1000;
	c.gpu_free_milli[3] = 1000;
	p = pod(1, 0, 2, 1000);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.ngpu, 2);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	CU_ASSERT_EQUAL(pl.gpu[1], 2);
}

/* Typical pods A (1000 mCPU, 1 x 500) x2, B (2000, 1 x 1000), C (1000, no
** GPU): shares 0.5, 0.25, 0.25 (B before C: equal counts, larger CPU). */
static int build_fgd(struct frac_fgd *f, double thr)
{
	struct frac_pod pop[4];

	pop[0] = pod(1000, 0, 1, 500);
	pop[1] = pod(1000, 0, 0, 0);
	pop[2] = pod(2000, 0, 1, 1000);
	pop[3] = pod(1000, 0, 1, 500);
	return frac_fgd_init(f, pop, 4, thr, NULL);
}

static void test_fgd_typical(void)
{
	struct frac_fgd f;
	struct frac_pod none = pod(1, 0, 0, 0);

	CU_ASSERT_EQUAL_FATAL(build_fgd(&f, 100.0), 0);
	CU_ASSERT_EQUAL(f.nt, 3);
	CU_ASSERT_EQUAL(f.t[0].cpu_milli, 1000);
	CU_ASSERT_EQUAL(f.t[0].gpu_milli, 500);
	CU_ASSERT_EQUAL(f.t[1].cpu_milli, 2000);
	CU_ASSERT_EQUAL(f.t[2].gpu_milli, 0);
	CU_ASSERT_DOUBLE_EQUAL(f.t[0].p, 0.5, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(f.t[1].p, 0.25, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(f.t[2].p, 0.25, 1e-15);
	frac_fgd_fini(&f);
	/* 60%: 2.4 of 4 pods -> A (2) then B (3); renormalised by 3/4 */
	CU_ASSERT_EQUAL_FATAL(build_fgd(&f, 60.0), 0);
	CU_ASSERT_EQUAL(f.nt, 2);
	CU_ASSERT_DOUBLE_EQUAL(f.t[0].p, 2.0 / 3.0, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(f.t[1].p, 1.0 / 3.0, 1e-15);
	frac_fgd_fini(&f);
	CU_ASSERT_EQUAL(frac_fgd_init(&f, &none, 0, 95, NULL), SIM_EINVAL);
	CU_ASSERT_EQUAL(frac_fgd_init(&f, &none, 1, 0, NULL), SIM_EINVAL);
}

static void test_fgd_frag_by_hand(void)
{
	struct frac_fgd f;
	struct frac_node n = node(1500, 1, 2, 0);

	CU_ASSERT_EQUAL_FATAL(build_fgd(&f, 100.0), 0);
	n.gpu_free_milli[0] = 700;
	n.gpu_free_milli[1] = 200;
	/* A: CPU ok, GPU 0 hosts it: only GPU 1's 200 is fragment, 0.5*200;
	** B: CPU 1500 < 2000, no whole GPU: all 900 free, 0.25*900;
	** C: asks no GPU: all 900, 0.25*900.  550 in all. */
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &n), 550.0, 1e-12);
	n.cpu_free_milli = 2000;
	n.gpu_free_milli[0] = 1000;
	n.gpu_free_milli[1] = 1000;
	/* A hosted, no GPU below 500: 0; B hosted (CPU 2000): 0; C: 0.25*2000 */
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &n), 500.0, 1e-12);
	n.cpu_free_milli = 500;
	/* all lack CPU: 2000 * (0.5 + 0.25 + 0.25) */
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &n), 2000.0, 1e-12);
	/* CPU not modelled: every CPU request covered, as with 2000 */
	n.cpu_any = 1;
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &n), 500.0, 1e-12);
	/* score = trunc(100 sigmoid(d/1000)) */
	CU_ASSERT_EQUAL(frac_fgd_score(550.0, 450.0), 52);   /* 0.52498 */
	CU_ASSERT_EQUAL(frac_fgd_score(550.0, 550.0), 50);
	CU_ASSERT_EQUAL(frac_fgd_score(575.0, 750.0), 45);   /* 0.45636 */
	frac_fgd_fini(&f);
}

static void test_fgd_sharing_choice(void)
{
	struct frac_fgd f;
	struct frac_pod p = pod(500, 0, 1, 100);
	struct frac_place pl;
	struct frac_node c = node(1500, 1, 2, 0), after;

	c.gpu_free_milli[0] = 600;
	c.gpu_free_milli[1] = 550;
	CU_ASSERT_EQUAL_FATAL(build_fgd(&f, 100.0), 0);
	/* before: A hosted, 0 fragment; B, C: 0.25*1150 each = 575.
	** GPU 0 -> {500, 550}: A hosted, 0; B, C 0.25*1050 -> 525: score 51.
	** GPU 1 -> {600, 450}: A hosted, 450 frag -> 225 + 525 = 750: 45.
	** FGD takes GPU 0; BestFit would take GPU 1 (least free). */
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &c), 575.0, 1e-12);
	CU_ASSERT_EQUAL(frac_fgd_node_score(&f, &c, &p, &pl), 51);
	CU_ASSERT_EQUAL(pl.ngpu, 1);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	after = c;
	after.cpu_free_milli -= 500;
	after.gpu_free_milli[1] -= 100;
	CU_ASSERT_DOUBLE_EQUAL(frac_fgd_frag(&f, &after), 750.0, 1e-12);
	CU_ASSERT_EQUAL(frac_fgd_place(&f, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 1);
	/* equal free milli on two GPUs: the first reaching the best wins */
	c.gpu_free_milli[0] = 550;
	CU_ASSERT_EQUAL(frac_fgd_place(&f, &c, 1, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	/* a whole-GPU pod: hypothetical and real take the fully free GPUs */
	c.gpu_free_milli[0] = 1000;
	c.gpu_free_milli[1] = 1000;
	c.cpu_free_milli = 4000;
	p = pod(2000, 0, 2, 1000);
	/* before 0.25*2000 (C) = 500; after: no GPU left, 0: sigmoid(0.5)
	** = 0.6225: score 62 */
	CU_ASSERT_EQUAL(frac_fgd_node_score(&f, &c, &p, &pl), 62);
	CU_ASSERT_EQUAL(pl.ngpu, 2);
	CU_ASSERT_EQUAL(pl.gpu[0], 0);
	CU_ASSERT_EQUAL(pl.gpu[1], 1);
	frac_fgd_fini(&f);
}

/* The memoised node score equals the score recomputed from scratch with
** frac_fgd_frag, over random node states and pods. */
static void test_fgd_memo_exact(void)
{
	struct frac_fgd f;
	struct frac_pod pop[6], p;
	struct frac_place pl;
	struct frac_node n, a;
	struct sim_rng rng;
	int64_t s, best, exp_s;
	int i, g, trial, best_g;

	pop[0] = pod(4000, 0, 1, 250);
	pop[1] = pod(8000, 0, 1, 500);
	pop[2] = pod(12000, 0, 1, 1000);
	pop[3] = pod(32000, 0, 4, 1000);
	pop[4] = pod(6000, 0, 0, 0);
	pop[5] = pod(8000, 0, 1, 500);
	CU_ASSERT_EQUAL_FATAL(frac_fgd_init(&f, pop, 6, 100, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, 11, "fgd-memo", 0, NULL), 0);
	for (trial = 0; trial < 300; trial++) {
		n = node(1000 * (int64_t)sim_rng_int(&rng, 97), 1, 8, 0);
		for (g = 0; g < 8; g++)
			n.gpu_free_milli[g] = 50 * (int32_t)sim_rng_int(&rng, 21);
		p = pop[sim_rng_int(&rng, 6)];
		p.cpu_milli = 1000 * (int64_t)sim_rng_int(&rng, 8);
		if (!frac_node_fits(&n, &p))
			continue;
		s = frac_fgd_node_score(&f, &n, &p, &pl);
		if (p.num_gpu == 1 && p.gpu_milli < 1000) {
			best = -1;
			best_g = -1;
			for (g = 0; g < 8; g++) {
				if (n.gpu_free_milli[g] < p.gpu_milli)
					continue;
				a = n;
				a.cpu_free_milli -= p.cpu_milli;
				a.gpu_free_milli[g] -= p.gpu_milli;
				exp_s = frac_fgd_score(frac_fgd_frag(&f, &n),
						       frac_fgd_frag(&f, &a));
				if (exp_s > best) {
					best = exp_s;
					best_g = g;
				}
			}
			CU_ASSERT_EQUAL(s, best);
			CU_ASSERT_EQUAL(pl.gpu[0], best_g);
		} else {
			a = n;
			a.cpu_free_milli -= p.cpu_milli;
			for (i = 0; i < p.num_gpu; i++)
				a.gpu_free_milli[pl.gpu[i]] -= p.gpu_milli;
			/* whole GPUs: hypothetical = real (fully free ones) */
			exp_s = frac_fgd_score(frac_fgd_frag(&f, &n),
					       frac_fgd_frag(&f, &a));
			CU_ASSERT_EQUAL(s, exp_s);
		}
	}
	CU_ASSERT_TRUE(f.memo_hits > 0);
	sim_rng_fini(&rng);
	frac_fgd_fini(&f);
}

static void test_tiebreak_rank(void)
{
	struct frac_fgd f;
	struct frac_pod p = pod(1000, 0, 1, 500);
	struct frac_place pl;
	struct frac_node c[3];

	c[0] = node(8000, 1, 2, 7);
	c[1] = node(8000, 1, 2, 3);     /* same node, lower rank */
	c[2] = node(8000, 1, 2, 5);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 1);
	CU_ASSERT_EQUAL_FATAL(build_fgd(&f, 100.0), 0);
	CU_ASSERT_EQUAL(frac_fgd_place(&f, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 1);
	c[1].tiebreak_rank = 9;
	CU_ASSERT_EQUAL(frac_fgd_place(&f, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 2);
	CU_ASSERT_EQUAL(frac_bestfit_place(NULL, c, 3, &p, &pl), 0);
	CU_ASSERT_EQUAL(pl.node, 2);
	frac_fgd_fini(&f);
}

static void test_curve_binning(void)
{
	/* 1 GPU: percent = milli / 10.  Arrived 0.4, 0.6, 1.5, 2.5, 3.5 %
	** go to bins 0, 1, 2, 2, 4 (half to even); allocated 0.4 .. 3.0 %. */
	int64_t arrived[5] = { 4, 6, 15, 25, 35 };
	int64_t alloc[5] = { 4, 6, 10, 20, 30 };
	int64_t arrived3[1] = { 30 }, alloc3[1] = { 1 };
	struct openb_run r;
	double cv[7];

	memset(&r, 0, sizeof(r));
	r.arrived_milli = arrived;
	r.alloc_milli = alloc;
	r.n = 5;
	r.gpus_total = 1;
	CU_ASSERT_EQUAL(openb_curve(&r, 6, 0, cv), 0);
	CU_ASSERT_DOUBLE_EQUAL(cv[0], 0.4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cv[1], 0.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cv[2], 1.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cv[3], 2.0, 1e-12);   /* empty: bins 2 and 4 */
	CU_ASSERT_DOUBLE_EQUAL(cv[4], 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(cv[5], 3.0, 1e-12);   /* empty: bin 4 only */
	CU_ASSERT_TRUE(isnan(cv[6]));                /* 5, 6, 7 all empty */
	/* the analysis script's rounding to 2 decimals */
	r.arrived_milli = arrived3;
	r.alloc_milli = alloc3;
	r.n = 1;
	r.gpus_total = 3;
	CU_ASSERT_EQUAL(openb_curve(&r, 1, 0, cv), 0);
	CU_ASSERT_DOUBLE_EQUAL(cv[1], 1.0 / 30.0, 1e-12);
	CU_ASSERT_EQUAL(openb_curve(&r, 1, OPENB_CURVE_ROUND2, cv), 0);
	CU_ASSERT_DOUBLE_EQUAL(cv[1], 0.03, 1e-12);
	r.gpus_total = 0;
	CU_ASSERT_EQUAL(openb_curve(&r, 1, 0, cv), SIM_EINVAL);
}

/* Writes text to a fresh file in the test folder and returns its path. */
static const char *tmpfile_with(const char *name, const char *text)
{
	const char *p = test_write(name, NULL, text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

static void test_readers(void)
{
	struct openb_data d;
	struct sim_err err;
	const char *nodes, *arr, *tie;

	nodes = tmpfile_with("n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			     "a,8000,1024,2,T4\nb,4000,1024,0,nan\n");
	arr = tmpfile_with("a.csv", "seq,name,orig_name,cpu_milli,memory_mib,"
			   "num_gpu,gpu_milli,gpu_spec\n0,p,p,100,10,1,500,T4\n"
			   "1,p-tuned-1,p,100,10,1,500,\"T4|A10\"\n");
	tie = tmpfile_with("t.csv", "tiebreak_rank,sim_name,sn\n"
			   "5,x,b\n2,y,a\n");
	openb_data_init(&d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(openb_load_nodes(&d, nodes, &err), 0);
	CU_ASSERT_EQUAL(openb_load_arrivals(&d, arr, &err), 0);
	CU_ASSERT_EQUAL(openb_load_tiebreak(&d, tie, &err), 0);
	CU_ASSERT_EQUAL(d.nnodes, 2);
	CU_ASSERT_EQUAL(d.gpus_total, 2);
	CU_ASSERT_STRING_EQUAL(d.nodes[1].model, "");
	CU_ASSERT_EQUAL(d.nodes[0].rank, 2);
	CU_ASSERT_EQUAL(d.narr, 2);
	CU_ASSERT_TRUE(d.arr[0].original);
	CU_ASSERT_FALSE(d.arr[1].original);
	CU_ASSERT_STRING_EQUAL(d.arr[1].gpu_spec, "T4|A10");
	CU_ASSERT_EQUAL(d.arr[1].gpu_milli, 500);
	/* the world carries no GPU-model constraint: refused, named */
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(openb_write_world(&d, test_tmpdir(), &err),
			SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a.csv:2:8: gpu_spec"));
	openb_data_fini(&d);

	/* errors name file:line:column and the field */
	openb_data_init(&d);
	sim_err_clear(&err);
	nodes = tmpfile_with("bad.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			     "a,8000,1024,2,T4\nb,40x0,1024,0,\n");
	CU_ASSERT_EQUAL(openb_load_nodes(&d, nodes, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.csv:3:2: cpu_milli"));
	openb_data_fini(&d);

	openb_data_init(&d);
	sim_err_clear(&err);
	nodes = tmpfile_with("hdr.csv", "sn,cpu,memory_mib,gpu,model\n");
	CU_ASSERT_EQUAL(openb_load_nodes(&d, nodes, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "hdr.csv:1:2: header"));
	openb_data_fini(&d);

	openb_data_init(&d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(openb_load_nodes(&d, "/nonexistent/n.csv", &err),
			SIM_ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/n.csv"));
	openb_data_fini(&d);

	openb_data_init(&d);
	sim_err_clear(&err);
	nodes = tmpfile_with("n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			     "a,8000,1024,65,T4\n");
	CU_ASSERT_EQUAL(openb_load_nodes(&d, nodes, &err), SIM_ERANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":2:4: gpu"));
	openb_data_fini(&d);

	openb_data_init(&d);
	sim_err_clear(&err);
	nodes = tmpfile_with("n.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			     "a,8000,1024,2,T4\n");
	arr = tmpfile_with("a.csv", "seq,name,orig_name,cpu_milli,memory_mib,"
			   "num_gpu,gpu_milli,gpu_spec\n1,p,p,100,10,1,500,\n");
	CU_ASSERT_EQUAL_FATAL(openb_load_nodes(&d, nodes, &err), 0);
	CU_ASSERT_EQUAL(openb_load_arrivals(&d, arr, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a.csv:2:1: seq"));
	sim_err_clear(&err);
	tie = tmpfile_with("t.csv", "tiebreak_rank,sim_name,sn\n1,x,zz\n");
	CU_ASSERT_EQUAL(openb_load_tiebreak(&d, tie, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.csv:2:3: sn"));
	sim_err_clear(&err);
	tie = tmpfile_with("t.csv", "tiebreak_rank,sim_name,sn\n");
	CU_ASSERT_EQUAL(openb_load_tiebreak(&d, tie, &err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'a' has no tie-break rank"));
	openb_data_fini(&d);
}

/*
** The real trace through the world.  Reference: the FGD simulator's own
** expected results, hkust-adsl/kubernetes-scheduler-simulator,
** experiments/analysis/expected_results/analysis_allo_discrete.csv
** (commit 1853fc0), rows openb_pod_list_default / 05-BestFit and 06-FGD,
** tune 1.3, seed 42 (k = 0..130), computed with the script's 2-decimal
** rounding: every one of the 131 points of both rows must match.
*/
static const double ref_bestfit[OPENB_KMAX + 1] = {
	0.25, 1.04, 2.01, 3.01, 3.98, 5.06, 5.98, 7.02, 8.03, 8.99, 10.03,
	11.03, 12.0, 13.03, 14.01, 14.99, 15.97, 16.98, 17.99, 19.01, 19.98,
	20.98, 21.9, 23.03, 24.02, 24.98, 25.97, 27.02, 28.01, 28.97, 30.02,
	31.0, 32.05, 33.02, 33.97, 34.96, 36.0, 36.98, 38.01, 39.0, 39.99,
	41.05, 42.0, 43.04, 44.0, 45.01, 45.98, 47.0, 47.94, 49.05, 49.95,
	51.01, 51.97, 53.03, 53.99, 54.97, 55.97, 57.01, 57.99, 58.98, 59.98,
	61.0, 62.01, 63.02, 63.94, 64.99, 65.96, 67.04, 68.0, 68.99, 70.08,
	71.01, 72.0, 73.06, 74.04, 75.02, 76.06, 76.99, 77.99, 79.01, 79.99,
	80.97, 81.99, 83.0, 83.98, 85.04, 86.0, 86.98, 88.03, 89.0, 89.98,
	90.98, 92.02, 92.79, 92.87, 92.87, 92.89, 92.92, 92.93, 92.94, 92.94,
	92.95, 92.96, 92.96, 92.96, 92.96, 92.97, 92.97, 92.99, 93.0, 93.0,
	93.0, 93.0, 93.0, 93.0, 93.01, 93.01, 93.03, 93.04, 93.05, 93.07,
	93.07, 93.08, 93.1, 93.11, 93.11, 93.12, 93.12, 93.12, 93.13, 93.13
};
static const double ref_fgd[OPENB_KMAX + 1] = {
	0.25, 1.04, 2.01, 3.01, 3.98, 5.06, 5.98, 7.02, 8.03, 8.99, 10.03,
	11.03, 12.0, 13.03, 14.01, 14.99, 15.97, 16.98, 17.99, 19.01, 19.98,
	20.98, 21.9, 23.03, 24.02, 24.98, 25.97, 27.02, 28.01, 28.97, 30.02,
	31.0, 32.05, 33.02, 33.97, 34.96, 36.0, 36.98, 38.01, 39.0, 39.99,
	41.05, 42.0, 43.04, 44.0, 45.01, 45.98, 47.0, 47.94, 49.05, 49.95,
	51.01, 51.97, 53.03, 53.99, 54.97, 55.97, 57.01, 57.99, 58.98, 59.98,
	61.0, 62.01, 63.02, 63.94, 64.99, 65.96, 67.04, 68.0, 68.99, 70.08,
	71.01, 72.0, 73.06, 74.04, 75.02, 76.06, 76.99, 77.99, 79.01, 79.99,
	80.97, 81.99, 83.0, 83.98, 85.04, 86.0, 86.98, 88.03, 89.0, 89.98,
	90.98, 92.02, 92.96, 94.03, 94.92, 95.1, 95.13, 95.14, 95.14, 95.14,
	95.15, 95.15, 95.16, 95.16, 95.16, 95.17, 95.17, 95.18, 95.19, 95.19,
	95.2, 95.2, 95.2, 95.2, 95.2, 95.2, 95.23, 95.23, 95.23, 95.24, 95.24,
	95.25, 95.26, 95.26, 95.27, 95.28, 95.28, 95.28, 95.28, 95.29
};

static void test_openb_trace(void)
{
	const char *dir = test_shared_traces();
	char nodes[512], arr[512], tie[512];
	struct openb_data d;
	struct openb_run r;
	struct run_result res;
	struct sim_err err;
	double cv[2][OPENB_KMAX + 1], cr[OPENB_KMAX + 1];
	size_t i, norig = 0;
	int k, pol, diff;

	if (dir == NULL) {
		test_skip_trace("alibaba-gpu-v2023/fgd-seed42/arrivals.csv");
		return;
	}
	snprintf(nodes, sizeof(nodes), "%s/alibaba-gpu-v2023/"
		 "openb_node_list_gpu_node.csv", dir);
	snprintf(arr, sizeof(arr), "%s/alibaba-gpu-v2023/fgd-seed42/"
		 "arrivals.csv", dir);
	snprintf(tie, sizeof(tie), "%s/alibaba-gpu-v2023/fgd-seed42/"
		 "node_tiebreak.csv", dir);
	if (access(nodes, R_OK) != 0 || access(arr, R_OK) != 0 ||
	    access(tie, R_OK) != 0) {
		test_skip_trace(access(nodes, R_OK) != 0 ?
				"alibaba-gpu-v2023/openb_node_list_gpu_node.csv"
				: "alibaba-gpu-v2023/fgd-seed42/arrivals.csv");
		return;
	}
	openb_data_init(&d);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(openb_load_nodes(&d, nodes, &err), 0);
	CU_ASSERT_EQUAL_FATAL(openb_load_arrivals(&d, arr, &err), 0);
	CU_ASSERT_EQUAL_FATAL(openb_load_tiebreak(&d, tie, &err), 0);
	CU_ASSERT_EQUAL(d.nnodes, 1213);
	CU_ASSERT_EQUAL(d.gpus_total, 6212);
	CU_ASSERT_EQUAL(d.narr, 10866);
	for (i = 0; i < d.narr; i++)
		norig += (size_t)d.arr[i].original;
	CU_ASSERT_EQUAL(norig, 8152);
	for (pol = 0; pol < 2; pol++) {
		const double *ref = pol ? ref_fgd : ref_bestfit;

		CU_ASSERT_EQUAL_FATAL(openb_replay(&d, pol ? OPENB_FGD :
						   OPENB_BESTFIT, 95.0,
						   test_tmpdir(),
						   "models/devices", &r,
						   &err), 0);
		CU_ASSERT_EQUAL(r.n, 10866);
		CU_ASSERT_EQUAL(r.placed + r.failed, 10866);
		CU_ASSERT_EQUAL(r.placed, pol ? 8334 : 8190);
		CU_ASSERT_EQUAL(openb_curve(&r, OPENB_KMAX, 0, cv[pol]), 0);
		CU_ASSERT_EQUAL(openb_curve(&r, OPENB_KMAX, OPENB_CURVE_ROUND2,
					    cr), 0);
		for (k = 0, diff = 0; k <= OPENB_KMAX; k++) {
			CU_ASSERT_FALSE(isnan(cv[pol][k]));
			CU_ASSERT_TRUE(cv[pol][k] <= 100.0);
			/* allocations never shrink: the curve never falls (but for
			** the last bit of equal means) */
			if (k > 0)
				CU_ASSERT_TRUE(cv[pol][k] >= cv[pol][k - 1] - 1e-9);
			CU_ASSERT_TRUE(fabs(cv[pol][k] - cr[k]) < 0.011);
			diff += fabs(cr[k] - ref[k]) > 1e-9;
		}
		/* the simulator's curve, point for point */
		CU_ASSERT_EQUAL(diff, 0);
		if (pol == 1) {
			CU_ASSERT_EQUAL(r.ntypical, 35);
			CU_ASSERT_DOUBLE_EQUAL(r.typical_share, 0.9526, 5e-5);
			run_result_init(&res);
			CU_ASSERT_EQUAL(openb_curve_to_result(&res, cv[1],
							      OPENB_KMAX), 0);
			CU_ASSERT_DOUBLE_EQUAL(run_result_get(&res,
					       "alloc_pct_k100"), cv[1][100],
					       1e-12);
			run_result_fini(&res);
		}
		openb_run_fini(&r);
	}
	/* FGD allocates more than BestFit once demand passes capacity */
	for (k = 100; k <= OPENB_KMAX; k++)
		CU_ASSERT_TRUE(cv[1][k] > cv[0][k] + 1.0);
	openb_data_fini(&d);
}

TEST_REGISTER(fgd)
{
	static const struct test_case cases[] = {
		{ "feasibility", test_feasibility },
		{ "bestfit_score", test_bestfit_score },
		{ "gpu_choice", test_gpu_choice },
		{ "fgd_typical", test_fgd_typical },
		{ "fgd_frag_by_hand", test_fgd_frag_by_hand },
		{ "fgd_sharing_choice", test_fgd_sharing_choice },
		{ "fgd_memo_exact", test_fgd_memo_exact },
		{ "tiebreak_rank", test_tiebreak_rank },
		{ "curve_binning", test_curve_binning },
		{ "readers", test_readers },
		{ "openb_trace", test_openb_trace },
		{ NULL, NULL }
	};

	return test_add_suite("fgd", cases);
}
