/*
** test_corun.c: `colosim corun` (models/corun.h): job parsing, errors,
** hand-checkable answers, and the promise that it uses the replay's model:
** the same jobs arriving together in a replay run at the speeds corun
** prints.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "models/corun.h"
#include "models/device.h"
#include "tests/util.h"
#include "tests/world_util.h"

static const struct dev_profile *dev(struct dev_catalog *cat, const char *n)
{
	struct sim_err err = { 0, "" };

	if (cat->n == 0 && dev_catalog_load(cat, "models/devices", &err) != 0)
		return NULL;
	return dev_catalog_find(cat, n);
}

static void test_parse(void)
{
	struct corun_job j;
	struct sim_err err = { 0, "" };

	CU_ASSERT_EQUAL(corun_parse_job("resnet50", &j, &err), 0);
	CU_ASSERT_EQUAL(j.batch, zoo_find("resnet50")->default_batch);
	CU_ASSERT_EQUAL(j.prec, WL_PREC_FP32);
	CU_ASSERT_EQUAL(corun_parse_job("resnet50:64:amp", &j, &err), 0);
	CU_ASSERT_EQUAL(j.batch, 64);
	CU_ASSERT_EQUAL(j.prec, WL_PREC_MIXED);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(corun_parse_job("resnet51:8", &j, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown model 'resnet51'"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(corun_parse_job("resnet50:0", &j, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "batch"));
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(corun_parse_job("resnet50:8:fp64", &j, &err),
			SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'amp'"));
}

/* Two identical jobs under time slicing: corun's speed is the two-tenant
** closed form (tests/util.h) of the job's duty cycle; normalized = steps
** / solo steps; memory that does not fit is refused with the bytes. */
static void test_by_hand(void)
{
	struct dev_catalog cat = { NULL, 0 };
	const struct dev_profile *d = dev(&cat, "v100-16gb");
	struct corun_job j[2];
	struct sim_err err = { 0, "" };
	double comb, q, c, v;

	if (d == NULL) {
		CU_FAIL("no v100-16gb profile");
		return;
	}
	corun_parse_job("resnet50:32", &j[0], &err);
	corun_parse_job("resnet50:32", &j[1], &err);
	CU_ASSERT_EQUAL_FATAL(corun_run(d, GPU_MODE_TIMESLICE, NULL, j, 2,
					&comb, &err), 0);
	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	v = test_duty_pair_speed(j[0].prof.duty, 1.0, q / (2 * (q + c)) /
				 (1 + d->ts_mem_contention_k *
				  j[0].prof.bw_frac));
	CU_ASSERT_DOUBLE_EQUAL(j[0].normalized, v, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(comb, 2 * v, 1e-9);
	TEST_ASSERT_CLOSE(j[0].steps_per_s, v * j[0].solo_steps_per_s, 1e-12);
	TEST_ASSERT_CLOSE(j[0].solo_steps_per_s,
			  1e9 / (double)wl_train_iter_ns(j[0].m, d, 32,
							 WL_PREC_FP32), 1e-12);
	/* a host gap to fill: two jobs together beat one at a time */
	CU_ASSERT(comb > 1.0 && comb < 2.0);
	corun_parse_job("resnet50:256", &j[0], &err);
	corun_parse_job("resnet50:256", &j[1], &err);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(corun_run(d, GPU_MODE_MPS, NULL, j, 2, &comb, &err),
			SIM_ENOSPC);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "17179869184 free"));
	/* MIG: each job alone on its slice, isolated */
	d = dev(&cat, "a100-40gb");
	if (d == NULL) {
		CU_FAIL("no a100-40gb profile");
		dev_catalog_fini(&cat);
		return;
	}
	corun_parse_job("resnet50:32", &j[0], &err);
	corun_parse_job("resnet18-cifar10:128", &j[1], &err);
	CU_ASSERT_EQUAL(corun_run(d, GPU_MODE_MIG, "3g.20gb", j, 2, &comb,
				  &err), 0);
	{
		struct corun_job one[2] = { j[0], j[0] };
		double comb1;

		/* the first job's slice speed does not depend on its
		** neighbour */
		CU_ASSERT_EQUAL(corun_run(d, GPU_MODE_MIG, "3g.20gb", one, 2,
					  &comb1, &err), 0);
		CU_ASSERT_DOUBLE_EQUAL(one[0].normalized, j[0].normalized,
				       1e-15);
	}
	CU_ASSERT_EQUAL(corun_run(d, GPU_MODE_MIG, "5g.1gb", j, 2, &comb,
				  &err), SIM_ENOENT);
	dev_catalog_fini(&cat);
}

/* The replay of the same jobs arriving together: A (few iterations)
** finishes first at iterations / corun's co-located steps per second. */
static void replay_matches(const char *policy, enum gpu_mode mode)
{
	struct dev_catalog cat = { NULL, 0 };
	const struct dev_profile *d = dev(&cat, "v100-16gb");
	struct corun_job j[2];
	struct run_result r;
	struct sim_err err = { 0, "" };
	const struct res_job *a, *b;
	double comb;
	const char *path;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	corun_parse_job("resnet50:16", &j[0], &err);
	corun_parse_job("resnet18-cifar10:128", &j[1], &err);
	CU_ASSERT_EQUAL_FATAL(corun_run(d, mode, NULL, j, 2, &comb, &err), 0);
	path = tw_write("corun.csv",
		"A,train,0,resnet50,16,200,,,,,1,,,,,,,,\n"
		"B,train,0,resnet18-cifar10,128,100000,,,,,1,,,,,,,,\n");
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(path, policy, "1x1:v100-16gb", 1, NULL,
				     &r, &err), 0);
	a = tw_job(&r, "A");
	b = tw_job(&r, "B");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_DOUBLE_EQUAL(a->start_s, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(b->start_s, 0, 0);
	/* A ran at corun's speed from 0 to its end (rounded up to a ns) */
	TEST_ASSERT_CLOSE(a->jct_s, 200.0 / j[0].steps_per_s, 1e-8);
	run_result_fini(&r);
	dev_catalog_fini(&cat);
}

static void test_replay_timeslice(void)
{
	replay_matches("timeslice", GPU_MODE_TIMESLICE);
}

static void test_replay_mps(void)
{
	replay_matches("mps", GPU_MODE_MPS);
}

/* The command: --json has the documented fields; a bad mode is one line
** and exit 2. */
static void test_cli_json(void)
{
	const char *b = getenv("COLOSIM_BIN");
	char cmd[512];
	FILE *p;
	json_t *o, *jobs;
	json_error_t je;
	int st;

	snprintf(cmd, sizeof cmd, "%s corun resnet50:32 lstm-wikitext2 "
		 "--device v100-16gb --mode mps --json",
		 b && *b ? b : "build/colosim");
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	o = json_loadf(p, JSON_DISABLE_EOF_CHECK, &je);
	st = pclose(p);
	CU_ASSERT_EQUAL(st, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "device")),
			       "v100-16gb");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "mode")),
			       "mps");
	jobs = json_object_get(o, "jobs");
	CU_ASSERT_EQUAL(json_array_size(jobs), 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(
		json_array_get(jobs, 1), "model")), "lstm-wikitext2");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(
		json_array_get(jobs, 1), "batch")), 20);
	CU_ASSERT(json_real_value(json_object_get(json_array_get(jobs, 0),
						  "normalized")) > 0);
	CU_ASSERT(json_real_value(json_object_get(o, "combined_normalized"))
		  > 0);
	json_decref(o);
	snprintf(cmd, sizeof cmd, "%s corun resnet50 resnet50 --device "
		 "v100-16gb --mode spatial 2>/dev/null",
		 b && *b ? b : "build/colosim");
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	st = pclose(p);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

TEST_REGISTER(corun)
{
	static const struct test_case cases[] = {
		{ "job parsing", test_parse },
		{ "hand-computed pair, memory, mig", test_by_hand },
		{ "replay matches corun (timeslice)", test_replay_timeslice },
		{ "replay matches corun (mps)", test_replay_mps },
		{ "the command's json", test_cli_json },
		{ NULL, NULL }
	};
	return test_add_suite("corun", cases);
}
