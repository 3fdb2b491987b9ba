/*
** test_measured.c: a job's measured profile in a trace (docs/TRACE_FORMAT.md,
** the optional column gpu_util; iter_ms): the reader, the importers' writer,
** and the world's use of it (wl_train_profile_measured: duty from the
** utilisation, or the host part from a measured iteration time).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cluster.h"
#include "models/device.h"
#include "models/workload.h"
#include "models/zoo.h"
#include "traces/import.h"
#include "traces/trace.h"
#include "tests/util.h"
#include "tests/world_util.h"

#define HDR20 "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms,gpu_util\n"

static const char *put(const char *name, const char *text)
{
	static char p[4][512];
	static int k;
	char *path = p[k++ & 3];
	FILE *f;

	snprintf(path, 512, "%s/%s", test_tmpdir(), name);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* The first error of reading the whole trace (0 when clean); *j the last
** job read. */
static int read_all(const char *path, struct trace_job *j,
		    struct sim_err *err)
{
	struct trace_reader *r;
	int rc, first = 0;

	sim_err_clear(err);
	rc = trace_open(&r, path, err);
	if (rc != 0)
		return rc;
	while ((rc = trace_next(r, j, first ? NULL : err)) != 0)
		if (rc < 0 && first == 0)
			first = rc;
	trace_close(r);
	return first;
}

static void test_reader(void)
{
	struct trace_job j;
	struct sim_err err;

	/* the optional column, a fraction */
	CU_ASSERT_EQUAL(read_all(put("u1.csv", HDR20
		"a,train,0,resnet50,32,,10,,,,1,,,,,,,,,0.75\n"
		"b,train,1,resnet50,32,,10,,,,1,,,,,,,,,\n"), &j, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(j.gpu_util, 0, 0);    /* b: empty */
	CU_ASSERT_EQUAL(read_all(put("u2.csv", HDR20
		"a,train,0,resnet50,32,,10,,,,1,,,,,,,,,0.75\n"), &j, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(j.gpu_util, 0.75, 0);
	/* out of range: a percent instead of a fraction */
	CU_ASSERT_EQUAL(read_all(put("u3.csv", HDR20
		"a,train,0,resnet50,32,,10,,,,1,,,,,,,,,75\n"), &j, &err),
		SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "u3.csv:3:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_util: expected a "
				      "fraction"));
	/* a service cannot have one */
	CU_ASSERT_EQUAL(read_all(put("u4.csv", HDR20
		"s,infer,0,resnet50,8,,10,,,,1,,,,100,poisson,10,,,0.5\n"), &j,
		&err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_util"));
	/* a row with the 19 columns under the 20-column header */
	CU_ASSERT_EQUAL(read_all(put("u5.csv", HDR20
		"a,train,0,resnet50,32,,10,,,,1,,,,,,,,\n"), &j, &err),
		SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected 20 fields"));
	/* an unknown extra column */
	CU_ASSERT_EQUAL(read_all(put("u6.csv", "# colosim-trace v1\n"
		"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms,"
		"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,"
		"arrival,rate,arrival_arg,batch_timeout_ms,sm_util\n"), &j,
		&err), SIM_EPARSE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown column 'sm_util'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gpu_util, noise_scale)"));
}

/* The Tiresias importer (and its variants) fills gpu_util from a percent
** column; the column is written only when some job has it. */
static void test_importer(void)
{
	const char *in, *out, *inputs[1];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	struct trace_job j;
	char buf[4096];
	FILE *f;
	size_t n;

	in = put("tir_u.csv", "job_id,num_gpu,submit_time,iterations,"
		 "model_name,duration,interval,gpu_util\n"
		 "1,1,0,100,resnet50,50,0,80\n"
		 "2,1,5,100,resnet50,50,5,\n");
	out = put("tir_u_out.csv", "");
	imp_opts_init(&o);
	inputs[0] = in;
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("tiresias"), inputs, 1, out,
				      NULL, &o, &st, &err), 0);
	f = fopen(out, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	CU_ASSERT(strncmp(buf, HDR20, strlen(HDR20)) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",,,,,,,,0.8\n"));
	CU_ASSERT_EQUAL(read_all(out, &j, &err), 0);
	/* without the column: the 19-column header */
	in = put("tir_nu.csv", "job_id,num_gpu,submit_time,iterations,"
		 "model_name,duration,interval\n1,1,0,100,resnet50,50,0\n");
	out = put("tir_nu_out.csv", "");
	inputs[0] = in;
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("tiresias"), inputs, 1, out,
				      NULL, &o, &st, &err), 0);
	f = fopen(out, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "gpu_util"));
	CU_ASSERT_EQUAL(read_all(out, &j, &err), 0);
}

/* The world takes the measured profile: two jobs with gpu_util 0.5 under
** time slicing run at the two-tenant closed form with duty min(1, a
** 0.5^g) (the device's fitted map), not the zoo's duty. */
static void test_world_uses_it(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	struct run_result r;
	const struct dev_profile *d;
	const struct res_job *a;
	struct gpu_work_profile p;
	double q, c, v, duty;
	const char *path;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "v100-16gb");
	if (d == NULL) {
		CU_FAIL("no v100-16gb");
		dev_catalog_fini(&cat);
		return;
	}
	wl_train_profile_measured(zoo_find("resnet50"), d, 32, WL_PREC_FP32,
				  0, 0.5, &p);
	duty = d->util_duty_scale * pow(0.5, d->util_duty_exp);
	CU_ASSERT_DOUBLE_EQUAL(p.duty, duty, 1e-12);
	q = (double)d->ts_quantum_ns;
	c = (double)d->ts_switch_ns;
	v = test_duty_pair_speed(duty, 1.0, q / (2 * (q + c)) /
				 (1 + d->ts_mem_contention_k * p.bw_frac));
	path = put("measured20.csv", HDR20
		"A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,,0.5\n"
		"B,train,0,resnet50,32,,20,,,,1,,1000,,,,,,,0.5\n");
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(path, "timeslice", "1x1:v100-16gb", 1,
				     NULL, &r, &err), 0);
	a = tw_job(&r, "A");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	TEST_ASSERT_CLOSE(a->jct_s, 10.0 / v, 1e-8);
	run_result_fini(&r);
	/* a measured iteration time: the model's busy part, the rest host */
	wl_train_profile_measured(zoo_find("resnet50"), d, 32, WL_PREC_FP32,
				  1e9, 0, &p);
	{
		struct wl_train_fit f;

		wl_train_fit_of(zoo_find("resnet50"), d, WL_PREC_FP32, &f);
		TEST_ASSERT_CLOSE(p.duty, f.eta_scale * wl_train_roofline_ns(
			zoo_find("resnet50"), d, 32, WL_PREC_FP32) / 1e9,
			1e-12);
	}
	dev_catalog_fini(&cat);
}

/* Host CPU contention in the world (docs/MODEL.md, "Host CPU
** contention"): two jobs, each alone on one of the two GPUs of a node
** with 1 CPU, duty d = 0.4 (from a gpu_util chosen for it), busy parts at
** rate 1.  Each host part keeps 1 core busy a fraction f(h) = 0.6 h / (0.6
** h + 0.4) of the time; h = 2 f(h) gives 0.6 h + 0.4 = 1.2, h = 4/3, and
** speed = 1 / (0.6 x 4/3 + 0.4) = 1 / 1.2: 10 s of solo work takes 12 s.
** With the default cores (12 per GPU) nothing stretches: 10 s. */
static void test_host_cpu_in_world(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	struct run_result r;
	const struct dev_profile *d;
	const struct res_job *a;
	char body[1024];
	const char *path;
	double u;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	d = dev_catalog_find(&cat, "v100-16gb");
	if (d == NULL) {
		CU_FAIL("no v100-16gb");
		dev_catalog_fini(&cat);
		return;
	}
	u = pow(0.4 / d->util_duty_scale, 1.0 / d->util_duty_exp);
	CU_ASSERT_DOUBLE_EQUAL(wl_duty_from_util(d, u), 0.4, 1e-12);
	snprintf(body, sizeof body, HDR20
		 "A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,,%.17g\n"
		 "B,train,0,resnet50,32,,10,,,,1,,1000,,,,,,,%.17g\n", u, u);
	path = put("cpu.csv", body);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(path, "exclusive", "1x2:v100-16gb:cpus=1", 1,
				     NULL, &r, &err), 0);
	a = tw_job(&r, "A");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	TEST_ASSERT_CLOSE(a->jct_s, 12.0, 1e-8);
	TEST_ASSERT_CLOSE(tw_job(&r, "B")->jct_s, 12.0, 1e-8);
	run_result_fini(&r);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(path, "exclusive", "1x2:v100-16gb", 1,
				     NULL, &r, &err), 0);
	TEST_ASSERT_CLOSE(tw_job(&r, "A")->jct_s, 10.0, 1e-8);
	run_result_fini(&r);
	/* one job alone on the node: 0.6 of one core fits */
	snprintf(body, sizeof body, HDR20
		 "A,train,0,resnet50,32,,10,,,,1,,1000,,,,,,,%.17g\n", u);
	path = put("cpu1.csv", body);
	run_result_init(&r);
	CU_ASSERT_EQUAL_FATAL(tw_run(path, "exclusive", "1x2:v100-16gb:cpus=1", 1,
				     NULL, &r, &err), 0);
	TEST_ASSERT_CLOSE(tw_job(&r, "A")->jct_s, 10.0, 1e-8);
	run_result_fini(&r);
	dev_catalog_fini(&cat);
}

/* The cluster spec's cpus= and the default cores per node. */
static void test_cluster_cpus(void)
{
	struct dev_catalog cat = { NULL, 0 };
	struct sim_err err = { 0, "" };
	struct cluster_spec c;

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", &err),
			      0);
	CU_ASSERT_EQUAL(cluster_parse(&c, "2x8:a100-80gb:cpus=96,"
				      "1x4:v100-16gb", &cat, "test", &err), 0);
	CU_ASSERT_EQUAL(cluster_node_cpus(&c, 0), 96);
	CU_ASSERT_EQUAL(cluster_node_cpus(&c, 1), 96);
	CU_ASSERT_EQUAL(cluster_node_cpus(&c, 2),
			CLUSTER_CPUS_PER_GPU_DEFAULT * 4);
	CU_ASSERT_EQUAL(cluster_node_cpus(&c, 3), 0);
	dev_catalog_fini(&cat);
}

TEST_REGISTER(measured)
{
	static const struct test_case cases[] = {
		{ "optional gpu_util column", test_reader },
		{ "importer fills gpu_util", test_importer },
		{ "world uses the measured profile", test_world_uses_it },
		{ "host CPU contention in the world", test_host_cpu_in_world },
		{ "cluster spec CPUs per node", test_cluster_cpus },
		{ NULL, NULL }
	};
	return test_add_suite("measured", cases);
}
