/*
** test_import.c: the trace importers (traces/import*.c).
**
** Small hand-written inputs check the mapping rules, the options and the
** errors exactly; the public traces in ../shared/traces (when present)
** check row counts, skipped-row counts and a few rows computed by hand
** from the upstream files.  Expected rows are compared as text: the output
** is trace format v1 as written, independent of the reader.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/util.h"
#include "traces/import.h"

/* ---- helpers ----------------------------------------------------------- */

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", test_tmpdir(), name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* Does text hold line as one whole line? */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' ||
						     p[n] == '\0'))
			return 1;
		p++;
	}
	return 0;
}

/* The k-th line (0-based) of text into buf. */
static const char *nth_line(const char *text, int k, char *buf, size_t n)
{
	const char *e;
	size_t len;

	while (k-- > 0 && text != NULL) {
		text = strchr(text, '\n');
		if (text != NULL)
			text++;
	}
	if (text == NULL)
		return "";
	e = strchr(text, '\n');
	len = e ? (size_t)(e - text) : strlen(text);
	if (len >= n)
		len = n - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}

static long count_lines(const char *text)
{
	long n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static long skip_count(const struct imp_stats *st, const char *prefix)
{
	int i;

	for (i = 0; i < st->nskip; i++)
		if (strncmp(st->skip[i].reason, prefix, strlen(prefix)) == 0)
			return st->skip[i].n;
	return 0;
}

static long note_count(const struct imp_stats *st, const char *prefix)
{
	int i;

	for (i = 0; i < st->nnote; i++)
		if (strncmp(st->note[i].reason, prefix, strlen(prefix)) == 0)
			return st->note[i].n;
	return 0;
}

/* Runs one import of a single input into out (a temp file name). */
static int run1(const char *format, const char *in, const char *out,
		const struct imp_opts *o, struct imp_stats *st,
		struct sim_err *err)
{
	const char *inputs[1];

	inputs[0] = in;
	sim_err_clear(err);
	return imp_run(imp_find(format), inputs, 1, out, NULL, o, st, err);
}

#define HDR "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms,arrival," \
	"rate,arrival_arg,batch_timeout_ms\n"

/* ---- unit pieces ------------------------------------------------------- */

static void test_seconds_and_datetimes(void)
{
	char b[32];
	sim_time t;

	imp_fmt_seconds(0, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "0");
	imp_fmt_seconds(INT64_C(12500000000), b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "12.5");
	imp_fmt_seconds(INT64_C(77299370000), b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "77.29937");
	imp_fmt_seconds(1, b, sizeof b);
	CU_ASSERT_STRING_EQUAL(b, "0.000000001");
	CU_ASSERT_EQUAL(imp_parse_datetime("1970-01-02 00:00:00", &t), 0);
	CU_ASSERT_EQUAL(t, INT64_C(86400) * SIM_NS_PER_S);
	/* 2000-03-01 is 951868800 s after the epoch (a leap-year Feb). */
	CU_ASSERT_EQUAL(imp_parse_datetime("2000-03-01 00:00:01.5", &t), 0);
	CU_ASSERT_EQUAL(t, INT64_C(951868801) * SIM_NS_PER_S + 500000000);
	CU_ASSERT_EQUAL(imp_parse_datetime("2023-11-16 18:17:03.9799600", &t),
			0);
	CU_ASSERT_EQUAL(t % SIM_NS_PER_S, 979960000);
	CU_ASSERT_EQUAL(imp_parse_datetime("2023-13-01 00:00:00", &t), -1);
	CU_ASSERT_EQUAL(imp_parse_datetime("2023-11-16", &t), -1);
	CU_ASSERT_EQUAL(imp_parse_datetime("2023-11-16 18:17:03x", &t), -1);
	CU_ASSERT_EQUAL(imp_parse_seconds("475.00000000000006", &t), 0);
	CU_ASSERT_EQUAL(t, INT64_C(475) * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(imp_parse_seconds("-1", &t), -1);
	CU_ASSERT_EQUAL(imp_parse_seconds("abc", &t), -1);
	CU_ASSERT_PTR_NOT_NULL(imp_find("tiresias"));
	CU_ASSERT_PTR_NOT_NULL(imp_find("Azure-LLM-2023"));
	CU_ASSERT_PTR_NULL(imp_find("philly"));
}

/* ---- hand-written inputs --------------------------------------------- */

/* A Tiresias variant with extra columns, out of order, with a model the
** zoo lacks, a row missing its duration and iterations, and a quoted id. */
static const char tir_variant[] =
	"job_id,num_gpu,submit_time,iterations,model_name,duration,interval,"
	"batch_size,iteration_time,priority,user\n"
	"a,4,10,100,resnet50,50,0,64,0.5,2,alice\n"
	"b,1,5,,vgg19,30,0,16,,,bob\n"
	"c,2,7,,resnet50,,0,32,,,carol\n"
	"\"d,1\",8,20,10,googlenet,,0,128,0.25,1,dave\n"
	"e,1,20,10,unet,,0,8,,,eve\n";

static void test_tiresias_variant(void)
{
	char in[512], out[512];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	tmp_path(in, sizeof in, "tir_variant.csv");
	tmp_path(out, sizeof out, "tir_variant_out.csv");
	write_file(in, tir_variant);
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out, &o, &st, &err), 0);
	CU_ASSERT_EQUAL(st.rows_read, 5);
	CU_ASSERT_EQUAL(st.jobs_written, 3);
	CU_ASSERT_EQUAL(st.skipped, 2);
	CU_ASSERT_EQUAL(skip_count(&st, "neither iterations nor duration"), 1);
	CU_ASSERT_EQUAL(skip_count(&st, "model 'unet' not in the zoo"), 1);
	CU_ASSERT_EQUAL(note_count(&st, "model vgg19 mapped to vgg16"), 1);
	CU_ASSERT_EQUAL(note_count(&st, "unknown column 'user'"), 1);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* Sorted by submit time; iteration_time s -> iter_ms; quoted id. */
	CU_ASSERT_EQUAL(strncmp(text, HDR, strlen(HDR)), 0);
	{
		char b[256];
		CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
			"b,train,5,vgg16,16,,30,,,,1,,,,,,,,");
		CU_ASSERT_STRING_EQUAL(nth_line(text, 4, b, sizeof b),
			"a,train,10,resnet50,64,100,50,500,,,4,,,2,,,,,");
		CU_ASSERT_STRING_EQUAL(nth_line(text, 5, b, sizeof b),
			"\"d,1\",train,20,inception3,128,10,,250,,,8,,,1,,,,,");
	}
	CU_ASSERT_EQUAL(count_lines(text), 6);
	free(text);
}

static void test_options(void)
{
	char in[512], out[512], b[256];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	tmp_path(in, sizeof in, "tir_opts.csv");
	tmp_path(out, sizeof out, "tir_opts_out.csv");
	write_file(in, "job_id,num_gpu,submit_time,iterations,model_name,"
		   "duration,interval\n"
		   "0,8,10,100,vgg16,50,0\n"
		   "1,1,31,100,vgg16,50,0\n"
		   "2,3,40,100,vgg16,50,0\n");
	imp_opts_init(&o);
	o.compress = 2;
	o.gpu_scale = 0.5;
	o.max_gpus = 3;
	o.batch = 7;
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out, &o, &st, &err), 0);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* 8 * 0.5 = 4 clamped to 3; 1 * 0.5 rounds to 1 (at least 1);
	** 3 * 0.5 = 1.5 rounds to 2.  Submit times halve; durations stay. */
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
			       "0,train,5,vgg16,7,100,50,,,,3,,,,,,,,");
	CU_ASSERT_STRING_EQUAL(nth_line(text, 4, b, sizeof b),
			       "1,train,15.5,vgg16,7,100,50,,,,1,,,,,,,,");
	CU_ASSERT_STRING_EQUAL(nth_line(text, 5, b, sizeof b),
			       "2,train,20,vgg16,7,100,50,,,,2,,,,,,,,");
	CU_ASSERT_EQUAL(note_count(&st, "GPU count clamped"), 1);
	free(text);

	/* A model map overrides the built-in one; a bad map is refused. */
	imp_opts_init(&o);
	o.model_map = "vgg16=resnet152";
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out, &o, &st, &err), 0);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(has_line(text, "0,train,10,resnet152,32,100,50,,,,8,,,,,,,,"));
	free(text);
	o.model_map = "vgg16=unet";
	CU_ASSERT_EQUAL(run1("tiresias", in, out, &o, &st, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown model 'unet'"));
	imp_opts_init(&o);
	o.sample = 0;
	CU_ASSERT_EQUAL(run1("tiresias", in, out, &o, &st, &err), SIM_EINVAL);
}

/* Sampling: deterministic for a seed, different across seeds, and keeping
** about the requested fraction. */
static void test_sampling(void)
{
	char in[512], out1[512], out2[512];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *a, *b;
	FILE *f;
	int i;
	long kept;

	tmp_path(in, sizeof in, "tir_many.csv");
	tmp_path(out1, sizeof out1, "tir_many_1.csv");
	tmp_path(out2, sizeof out2, "tir_many_2.csv");
	f = fopen(in, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("job_id,num_gpu,submit_time,iterations,model_name,duration,"
	      "interval\n", f);
	for (i = 0; i < 4000; i++)
		fprintf(f, "j%d,1,%d,10,resnet50,,1\n", i, i);
	fclose(f);
	imp_opts_init(&o);
	o.sample = 0.25;
	o.seed = 42;
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out1, &o, &st, &err), 0);
	kept = st.jobs_written;
	CU_ASSERT_EQUAL(kept + st.sampled_out, 4000);
	/* Binomial(4000, 0.25): mean 1000, sd 27.4; 5 sd either side. */
	CU_ASSERT(kept > 863 && kept < 1137);
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out2, &o, &st, &err), 0);
	a = test_slurp(out1);
	b = test_slurp(out2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(a, b);
	free(b);
	o.seed = 43;
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out2, &o, &st, &err), 0);
	b = test_slurp(out2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(strcmp(a, b) != 0);
	free(a);
	free(b);
}

/* Request traces: unsorted input gives a sorted arrival file rebased to
** the earliest request; a missing time is skipped and counted. */
static void test_requests(void)
{
	char in[512], out[512], arr[512], b[256];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	tmp_path(in, sizeof in, "azure_small.csv");
	tmp_path(out, sizeof out, "azure_small_out.csv");
	tmp_path(arr, sizeof arr, "azure_small_out.azure_small.arrivals");
	write_file(in, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
		   "2023-11-16 18:00:10.5,10,1\n"
		   "2023-11-16 18:00:00.25,10,1\n"
		   ",10,1\n"
		   "2023-11-16 18:01:00,10,1\n");
	imp_opts_init(&o);
	o.compress = 2;
	CU_ASSERT_EQUAL_FATAL(run1("azure-llm-2023", in, out, &o, &st, &err),
			      0);
	CU_ASSERT_EQUAL(st.rows_read, 4);
	CU_ASSERT_EQUAL(st.arrivals_written, 3);
	CU_ASSERT_EQUAL(skip_count(&st, "missing request time"), 1);
	text = test_slurp(arr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* a request file: the times and each request's tokens */
	CU_ASSERT_STRING_EQUAL(text, "t_s,prompt_tokens,output_tokens\n"
			       "0,10,1\n5.125,10,1\n29.875,10,1\n");
	free(text);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
		"azure_small,infer,0,llama-7b,8,,,,,,1,,,,10000,file,,"
		"azure_small_out.azure_small.arrivals,");
	free(text);
	/* --llm: an llm service; a request without tokens is skipped */
	write_file(in, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
		   "2023-11-16 18:00:00,10,1\n"
		   "2023-11-16 18:00:01,0,5\n"
		   "2023-11-16 18:00:02,20,3\n");
	imp_opts_init(&o);
	o.llm = 1;
	CU_ASSERT_EQUAL_FATAL(run1("azure-llm-2023", in, out, &o, &st, &err),
			      0);
	CU_ASSERT_EQUAL(skip_count(&st, "token count outside 1..16777216"), 1);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
		"azure_small,llm,0,llama-2-70b,256,,,,,,1,,,,10000,file,,"
		"azure_small_out.azure_small.arrivals,");
	free(text);
	text = test_slurp(arr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, "t_s,prompt_tokens,output_tokens\n"
			       "0,10,1\n2,20,3\n");
	free(text);
	imp_opts_init(&o);
	o.compress = 2;
	/* Arrival files need -o. */
	{
		const char *inputs[1] = { in };
		FILE *devnull = fopen("/dev/null", "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(devnull);
		CU_ASSERT_EQUAL(imp_run(imp_find("azure-llm-2023"), inputs, 1,
					NULL, devnull, &o, &st, &err),
				SIM_EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-o OUT"));
		fclose(devnull);
	}
}

/* Malformed inputs: each error names file:line:column; the partial output
** is removed. */
static void expect_error(const char *format, const char *name,
			 const char *content, int code, const char *where,
			 const char *what)
{
	char in[512], out[512], want[600];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	FILE *f;

	tmp_path(in, sizeof in, name);
	tmp_path(out, sizeof out, "bad_out.csv");
	write_file(in, content);
	imp_opts_init(&o);
	CU_ASSERT_EQUAL(run1(format, in, out, &o, &st, &err), code);
	snprintf(want, sizeof want, "%s:%s", in, where);
	if (strstr(err.msg, want) == NULL || strstr(err.msg, what) == NULL)
		fprintf(stderr, "\n  unexpected error: %s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
	f = fopen(out, "r");
	CU_ASSERT_PTR_NULL(f);
	if (f != NULL)
		fclose(f);
}

static void test_malformed(void)
{
	expect_error("tiresias", "empty.csv", "", SIM_EPARSE, "1:1:",
		     "empty file");
	expect_error("tiresias", "nocol.csv",
		     "job_id,num_gpu,iterations,model_name,duration\n"
		     "0,1,10,vgg16,5\n", SIM_EPARSE, "1:6:",
		     "lacks column 'submit_time'");
	expect_error("tiresias", "badnum.csv",
		     "job_id,num_gpu,submit_time,iterations,model_name,"
		     "duration,interval\n0,1,0,10,vgg16,5,0\n"
		     "1,two,3,10,vgg16,5,0\n", SIM_EPARSE, "3:2:",
		     "num_gpu: expected an integer, got 'two'");
	expect_error("tiresias", "short.csv",
		     "job_id,num_gpu,submit_time,iterations,model_name,"
		     "duration,interval\n0,1,0,10,vgg16,5,0\n1,1,3\n",
		     SIM_EPARSE, "3:4:", "iterations: missing");
	expect_error("tiresias", "dup.csv",
		     "job_id,num_gpu,submit_time,iterations,model_name,"
		     "duration,interval\n0,1,0,10,vgg16,5,0\n"
		     "0,1,3,10,vgg16,5,0\n", SIM_EEXIST, "3:1:",
		     "id '0' repeats");
	expect_error("tiresias", "quote.csv",
		     "job_id,num_gpu,submit_time,iterations,model_name,"
		     "duration,interval\n0,1,0,10,\"vgg16,5,0\n",
		     SIM_EPARSE, "2:", "unterminated");
	expect_error("alibaba-v2023", "pods.csv",
		     "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
		     "pod_phase,creation_time,deletion_time,scheduled_time\n"
		     "p0,1000,1024,1,500,,LS,Running,0,10,0\n"
		     "p1,1000,1024,1,500,,LS,Running,-3,10,0\n",
		     SIM_EPARSE, "3:9:", "creation_time: expected seconds");
	expect_error("alibaba-v2023", "untimed.csv",
		     "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
		     "p0,1000,1024,1,500\n", SIM_EPARSE, "1:6:",
		     "carries no times");
	expect_error("azure-llm-2023", "azbad.csv",
		     "TIMESTAMP,ContextTokens,GeneratedTokens\n"
		     "2023-11-16 18:00:10,10,1\n2023-11-16 18:00:1,10,1\n",
		     SIM_EPARSE, "3:1:", "TIMESTAMP: expected");
	expect_error("alibaba-v2025", "v25.csv", "instance_sn,role\n",
		     SIM_EPARSE, "1:3:", "lacks column 'app_name'");
}

/* The openb rules on a hand-built pod list and node list. */
static void test_openb_small(void)
{
	const char *inputs[2];
	char pods[512], nodes[512], out[512], cl[512], b[256];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	tmp_path(pods, sizeof pods, "pods.csv");
	tmp_path(nodes, sizeof nodes, "nodes.csv");
	tmp_path(out, sizeof out, "openb_small.csv");
	tmp_path(cl, sizeof cl, "openb_small.cluster");
	write_file(pods, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
		   "gpu_spec,qos,pod_phase,creation_time,deletion_time,"
		   "scheduled_time\n"
		   "p0,1000,1024,1,250,,BE,Running,100,400,150\n"
		   "p1,1000,1024,0,0,,LS,Running,0,10,0\n"
		   "p2,1000,1024,2,1000,V100M32,Guaranteed,Running,50,90,60\n"
		   "p3,1000,1024,1,500,,LS,Pending,70,90,\n"
		   "p4,1000,1024,1,500,,Weird,Running,70,90,70\n");
	write_file(nodes, "sn,cpu_milli,memory_mib,gpu,model\n"
		   "n0,1,1,8,G2\nn1,1,1,0,\nn2,1,1,2,T4\nn3,1,1,8,G2\n"
		   "n4,1,1,4,X9\n");
	inputs[0] = pods;
	inputs[1] = nodes;
	imp_opts_init(&o);
	o.device_map = "T4=t4-custom";
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("alibaba-v2023"), inputs, 2,
				      out, NULL, &o, &st, &err), 0);
	CU_ASSERT_EQUAL(st.rows_read, 10);
	CU_ASSERT_EQUAL(st.jobs_written, 2);
	CU_ASSERT_EQUAL(skip_count(&st, "CPU-only pod"), 1);
	CU_ASSERT_EQUAL(skip_count(&st, "never scheduled"), 1);
	CU_ASSERT_EQUAL(skip_count(&st, "missing or unknown qos"), 1);
	CU_ASSERT_EQUAL(skip_count(&st, "node without GPUs"), 1);
	CU_ASSERT_EQUAL(note_count(&st, "gpu_spec constraint dropped"), 1);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
		"p2,train,50,resnet50,32,,30,,,,2,1,,3,,,,,");
	CU_ASSERT_STRING_EQUAL(nth_line(text, 4, b, sizeof b),
		"p0,train,100,resnet50,32,,250,,,,1,0.25,,0,,,,,");
	free(text);
	text = test_slurp(cl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, "2x8:g2,1x2:t4-custom,1x4:x9\n");
	free(text);
	/* --keep-pending keeps p3 with deletion - creation = 20 s. */
	o.keep_pending = 1;
	CU_ASSERT_EQUAL_FATAL(run1("alibaba-v2023", pods, out, &o, &st, &err),
			      0);
	CU_ASSERT_EQUAL(st.jobs_written, 3);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(has_line(text, "p3,train,70,resnet50,32,,20,,,,1,0.5,,2,,,,,"));
	free(text);
}

/* ---- the public traces ------------------------------------------------- */

static int shared(char *buf, size_t n, const char *rel)
{
	const char *dir = test_shared_traces();
	FILE *f;

	if (dir == NULL) {
		test_skip_trace(rel);
		return 0;
	}
	snprintf(buf, n, "%s/%s", dir, rel);
	f = fopen(buf, "r");
	if (f == NULL) {
		test_skip_trace(rel);
		return 0;
	}
	fclose(f);
	return 1;
}

static void test_real_openb(void)
{
	const char *inputs[2];
	char pods[512], nodes[512], out[512], cl[512];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	if (!shared(pods, sizeof pods,
		    "alibaba-gpu-v2023/openb_pod_list_default.csv") ||
	    !shared(nodes, sizeof nodes,
		    "alibaba-gpu-v2023/openb_node_list_gpu_node.csv")) {
		return;
	}
	tmp_path(out, sizeof out, "openb.csv");
	tmp_path(cl, sizeof cl, "openb.cluster");
	inputs[0] = pods;
	inputs[1] = nodes;
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("alibaba-v2023"), inputs, 2,
				      out, NULL, &o, &st, &err), 0);
	/* 8,152 pods + 1,213 nodes; 1,088 CPU-only pods; 897 pods were
	** never scheduled, 861 of them asking for a GPU. */
	CU_ASSERT_EQUAL(st.rows_read, 8152 + 1213);
	CU_ASSERT_EQUAL(skip_count(&st, "CPU-only pod"), 1088);
	CU_ASSERT_EQUAL(skip_count(&st, "never scheduled"), 861);
	CU_ASSERT_EQUAL(st.skipped, 1088 + 861);
	CU_ASSERT_EQUAL(st.jobs_written, 8152 - 1088 - 861);
	CU_ASSERT_EQUAL(note_count(&st, "node written"), 1213);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL(count_lines(text), 3 + 6203);
	/* openb-pod-0001: LS, 460 milli, created = scheduled = 427061,
	** deleted 12902960. */
	CU_ASSERT(has_line(text, "openb-pod-0001,train,427061,resnet50,32,,"
			   "12475899,,,,1,0.46,,2,,,,,"));
	/* openb-pod-0017: Burstable, 8 whole GPUs, 10769854 - 9437497. */
	CU_ASSERT(has_line(text, "openb-pod-0017,train,9437497,resnet50,32,,"
			   "1332357,,,,8,1,,1,,,,,"));
	free(text);
	text = test_slurp(cl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* Node counts by (model, GPUs) from the node list: 6,212 GPUs. */
	CU_ASSERT_STRING_EQUAL(text, "131x2:p100,39x8:g3,21x8:v100-32gb,"
			       "28x4:v100-16gb,549x8:g2,17x4:t4,387x2:t4,"
			       "19x1:v100-16gb,8x8:v100-16gb,9x4:v100-32gb,"
			       "3x1:p100,2x1:a10\n");
	free(text);
}

static void test_real_openb_unsorted(void)
{
	char pods[512], out[512], b[256], prev[64] = "0";
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;
	int k, sorted = 1;

	if (!shared(pods, sizeof pods,
		    "alibaba-gpu-v2023/openb_pod_list_gpushare100.csv")) {
		return;
	}
	tmp_path(out, sizeof out, "gpushare.csv");
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(run1("alibaba-v2023", pods, out, &o, &st, &err),
			      0);
	/* The file is not in creation order (3,530 inversions); the output
	** must be.  1,088 pods are CPU-only; 1,173 GPU pods never ran. */
	CU_ASSERT_EQUAL(st.rows_read, 8152);
	CU_ASSERT_EQUAL(skip_count(&st, "CPU-only pod"), 1088);
	CU_ASSERT_EQUAL(skip_count(&st, "never scheduled"), 1173);
	CU_ASSERT_EQUAL(st.jobs_written, 8152 - 1088 - 1173);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (k = 3; k < 3 + st.jobs_written; k++) {
		const char *line = nth_line(text, k, b, sizeof b);
		const char *c1 = strchr(line, ',');
		const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		char cur[64];
		if (c2 == NULL) {
			sorted = 0;
			break;
		}
		snprintf(cur, sizeof cur, "%.*s", (int)(strchr(c2 + 1, ',') -
						       c2 - 1), c2 + 1);
		if (atof(cur) < atof(prev))
			sorted = 0;
		snprintf(prev, sizeof prev, "%s", cur);
		if (!sorted)
			break;
	}
	CU_ASSERT(sorted);
	free(text);
}

static void test_real_dlrm(void)
{
	char in[512], out[512];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	if (!shared(in, sizeof in,
		    "alibaba-gpu-v2025/disaggregated_DLRM_trace.csv")) {
		return;
	}
	tmp_path(out, sizeof out, "dlrm.csv");
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(run1("alibaba-v2025", in, out, &o, &st, &err),
			      0);
	/* 23,871 instances: 16,485 CN; of the 7,386 HN, 16 were deleted the
	** second they were scheduled. */
	CU_ASSERT_EQUAL(st.rows_read, 23871);
	CU_ASSERT_EQUAL(skip_count(&st, "CN instance"), 16485);
	CU_ASSERT_EQUAL(skip_count(&st, "deletion_time not after start"), 16);
	CU_ASSERT_EQUAL(st.jobs_written, 7386 - 16);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* instance_7300: created = scheduled = 3973.0000000000005, deleted
	** 5647. */
	CU_ASSERT(has_line(text, "app_0.instance_7300,infer,3973,bert-base,64,,"
			   "1674,,,,1,,,,100,poisson,100,,"));
	/* instance_7503: alive past the window (ends at 2677541, the largest
	** time in the file): 2677541 - 55657. */
	CU_ASSERT(has_line(text, "app_28.instance_7503,infer,55612,bert-base,"
			   "64,,2621884,,,,1,,,,100,poisson,100,,"));
	free(text);
}

static void test_real_requests(void)
{
	const char *inputs[2];
	char code[512], conv[512], genai[512], out[512], arr[600], b[256];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	if (!shared(code, sizeof code,
		    "azure-llm-2023/AzureLLMInferenceTrace_code.csv") ||
	    !shared(conv, sizeof conv,
		    "azure-llm-2023/AzureLLMInferenceTrace_conv.csv") ||
	    !shared(genai, sizeof genai,
		    "alibaba-genai-v2026/lora_request_trace.csv")) {
		return;
	}
	tmp_path(out, sizeof out, "azure.csv");
	inputs[0] = code;
	inputs[1] = conv;
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(imp_run(imp_find("azure-llm-2023"), inputs, 2,
				      out, NULL, &o, &st, &err), 0);
	CU_ASSERT_EQUAL(st.rows_read, 8819 + 19366);
	CU_ASSERT_EQUAL(st.arrivals_written, 8819 + 19366);
	CU_ASSERT_EQUAL(st.skipped, 0);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* conv starts first (18:15:46.68059); code 77.29937 s later. */
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
		"AzureLLMInferenceTrace_conv,infer,0,llama-7b,8,,,,,,1,,,,"
		"10000,file,,azure.AzureLLMInferenceTrace_conv.arrivals,");
	CU_ASSERT_STRING_EQUAL(nth_line(text, 4, b, sizeof b),
		"AzureLLMInferenceTrace_code,infer,77.29937,llama-7b,8,,,,,,1,"
		",,,10000,file,,azure.AzureLLMInferenceTrace_code.arrivals,");
	free(text);
	tmp_path(arr, sizeof arr, "azure.AzureLLMInferenceTrace_conv.arrivals");
	text = test_slurp(arr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_EQUAL(count_lines(text), 19366 + 1);
	CU_ASSERT_EQUAL(strncmp(text, "t_s,prompt_tokens,output_tokens\n"
				"0,374,44\n4.314579,396,109\n", 57), 0);
	free(text);

	tmp_path(out, sizeof out, "genai.csv");
	CU_ASSERT_EQUAL_FATAL(run1("alibaba-genai-v2026", genai, out, &o, &st,
				   &err), 0);
	CU_ASSERT_EQUAL(st.rows_read, 26823);
	CU_ASSERT_EQUAL(st.arrivals_written, 26823);
	CU_ASSERT_EQUAL(st.jobs_written, 1);
	CU_ASSERT_EQUAL(note_count(&st, "request with status FAILED"), 398);
	tmp_path(arr, sizeof arr, "genai.lora_request_trace.arrivals");
	text = test_slurp(arr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	/* 16:57:50 -> 18:16:14 is 4704 s; the last, 2024-12-08 17:33:57, is
	** 23 d 36 min 7 s after the first. */
	CU_ASSERT_EQUAL(strncmp(text, "0\n4704\n4756\n", 12), 0);
	CU_ASSERT(has_line(text, "1989367"));
	free(text);
}

static void test_real_tiresias(void)
{
	char in[512], out[512], b[256];
	struct imp_opts o;
	struct imp_stats st;
	struct sim_err err;
	char *text;

	if (!shared(in, sizeof in, "tiresias/60_job.csv")) {
		return;
	}
	tmp_path(out, sizeof out, "tiresias.csv");
	imp_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(run1("tiresias", in, out, &o, &st, &err), 0);
	CU_ASSERT_EQUAL(st.rows_read, 60);
	CU_ASSERT_EQUAL(st.jobs_written, 60);
	CU_ASSERT_EQUAL(st.skipped, 0);
	/* 10 models, 6 jobs each; 6 of them mapped to zoo models. */
	CU_ASSERT_EQUAL(note_count(&st, "model vgg19 mapped to vgg16"), 6);
	CU_ASSERT_EQUAL(note_count(&st, "model alexnet mapped to vgg16"), 6);
	text = test_slurp(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(nth_line(text, 3, b, sizeof b),
			       "0,train,0,vgg16,32,606,164,,,,1,,,,,,,,");
	CU_ASSERT_STRING_EQUAL(nth_line(text, 4, b, sizeof b),
			       "1,train,30,vgg16,32,133,147,,,,8,,,,,,,,");
	CU_ASSERT_EQUAL(count_lines(text), 63);
	free(text);
}

TEST_REGISTER(import)
{
	static const struct test_case cases[] = {
		{ "seconds and datetimes", test_seconds_and_datetimes },
		{ "tiresias variant columns", test_tiresias_variant },
		{ "compress, gpu scale, model map", test_options },
		{ "sampling is seeded", test_sampling },
		{ "request trace arrivals", test_requests },
		{ "malformed inputs", test_malformed },
		{ "openb rules, small", test_openb_small },
		{ "openb default + nodes (public)", test_real_openb },
		{ "openb gpushare100 sorted (public)", test_real_openb_unsorted },
		{ "DLRM v2025 (public)", test_real_dlrm },
		{ "Azure + GenAI requests (public)", test_real_requests },
		{ "Tiresias 60 jobs (public)", test_real_tiresias },
		{ NULL, NULL }
	};
	return test_add_suite("import", cases);
}
