/*
** test_gen.c: the synthetic trace generator (traces/gen.c): determinism
** (same seed and options, same bytes; the reference traces recreated byte
** for byte), the distributions it promises, and option errors.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/util.h"
#include "traces/gen.h"
#include "traces/trace.h"

/* Generates into a malloc'ed string (*len bytes). */
static char *gen_str(const struct gen_opts *o, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct sim_err err;

	sim_err_clear(&err);
	if (f == NULL)
		return NULL;
	CU_ASSERT_EQUAL(gen_write(f, o, &err), 0);
	fclose(f);
	return buf;
}

static int set_all(struct gen_opts *o, const char *const *kv)
{
	struct sim_err err;

	gen_defaults(o);
	for (; kv[0] != NULL; kv += 2) {
		sim_err_clear(&err);
		if (gen_set(o, kv[0], kv[1], &err) != 0)
			return -1;
	}
	return 0;
}

static void test_determinism(void)
{
	struct gen_opts o;
	size_t n1, n2, n3;
	char *a, *b, *c;

	gen_defaults(&o);
	o.seed = 99;
	a = gen_str(&o, &n1);
	b = gen_str(&o, &n2);
	o.seed = 100;
	c = gen_str(&o, &n3);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT(memcmp(a, b, n1) == 0);
	CU_ASSERT(n1 != n3 || memcmp(a, c, n1) != 0);
	free(a);
	free(b);
	free(c);
}

/* The commands of traces/ref/README.md. */
static void test_reference_recreated(void)
{
	static const char *const mixed[] = { "seed", "42", "jobs", "60",
		"rate", "0.02", "infer-rate-median", "2", "infer-duration-s",
		"600", NULL };
	static const char *const colti[] = { "seed", "2023", "jobs", "24",
		"rate", "0.005", "models", "resnet50:1,vgg16:1,bert-base:1",
		"infer-frac", "0.33", "gpus", "1:1", "train-batch", "32:1,64:1",
		"infer-batch", "8:1,16:1", "mixed-frac", "0", "optimizers",
		"momentum:1", "dur-median-s", "900", "dur-sigma", "0.5",
		"infer-rate-median", "5", "infer-duration-s", "1800",
		"slo-ms", "100:1", NULL };
	static const char *const bursty[] = { "seed", "7", "jobs", "120",
		"rate", "0.05", "arrival", "bursty", "burst-cv", "3",
		"infer-frac", "0.5", "infer-arrival", "rates",
		"infer-duration-s", "1200", "infer-rate-median", "2", NULL };
	static const struct { const char *path; const char *const *kv; } ref[] = {
		{ "traces/ref/mixed-small.csv", mixed },
		{ "traces/ref/colti.csv", colti },
		{ "traces/ref/bursty-rates.csv", bursty },
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct gen_opts o;
		char *mem, *file;
		size_t n, flen;
		FILE *f;

		CU_ASSERT_EQUAL_FATAL(set_all(&o, ref[i].kv), 0);
		mem = gen_str(&o, &n);
		f = fopen(ref[i].path, "rb");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		file = malloc(n + 2);
		flen = fread(file, 1, n + 1, f);
		fclose(f);
		CU_ASSERT_EQUAL(flen, n);
		CU_ASSERT(flen == n && memcmp(mem, file, n) == 0);
		free(mem);
		free(file);
	}
}

/* 3000 jobs: the mixes and distributions come out as asked. */
static void test_distributions(void)
{
	static const char *const kv[] = { "seed", "5", "jobs", "3000",
		"rate", "0.1", "infer-frac", "0.25", "gpus", "1:3,4:1",
		"dur-median-s", "600", "dur-sigma", "1", NULL };
	struct gen_opts o;
	struct trace_reader *r;
	struct trace_job j;
	struct sim_err err;
	const char *path;
	char *text;
	size_t n;
	FILE *f;
	int ninfer = 0, ntrain = 0, four = 0, below = 0, rc;
	double last_s = 0;

	CU_ASSERT_EQUAL_FATAL(set_all(&o, kv), 0);
	text = gen_str(&o, &n);
	path = "gen-dist.csv";
	{
		static char p[512];
		snprintf(p, sizeof p, "%s/%s", test_tmpdir(), path);
		path = p;
	}
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(text, 1, n, f);
	fclose(f);
	free(text);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_open(&r, path, &err), 0);
	while ((rc = trace_next(r, &j, &err)) == 1) {
		if (j.kind == TRACE_INFER)
			ninfer++;
		else {
			ntrain++;
			if (sim_time_to_s(j.duration_ns) < 600)
				below++;
		}
		four += j.gpus == 4;
		last_s = sim_time_to_s(j.submit_ns);
	}
	CU_ASSERT_EQUAL(rc, 0);
	trace_close(r);
	CU_ASSERT_EQUAL(ninfer + ntrain, 3000);
	/* binomial 3 sigma: 0.25 +- 0.024, 0.25 +- 0.024, 0.5 +- 0.03 */
	CU_ASSERT(fabs(ninfer / 3000.0 - 0.25) < 0.024);
	CU_ASSERT(fabs(four / 3000.0 - 0.25) < 0.024);
	CU_ASSERT(fabs(below / (double)ntrain - 0.5) < 0.03);
	/* Poisson: 3000 gaps of mean 10 s: 30000 s +- 3 sigma (1643) */
	CU_ASSERT(fabs(last_s - 30000) < 1650);
}

/* Bursty gaps have the asked coefficient of variation. */
static void test_bursty(void)
{
	static const char *const kv[] = { "seed", "11", "jobs", "4000",
		"rate", "1", "arrival", "bursty", "burst-cv", "3", NULL };
	struct gen_opts o;
	char *text, *p;
	size_t n;
	double prev = 0, s1 = 0, s2 = 0, mean, cv;
	int k = 0;

	CU_ASSERT_EQUAL_FATAL(set_all(&o, kv), 0);
	text = gen_str(&o, &n);
	for (p = strchr(text, '\n'); p != NULL; p = strchr(p + 1, '\n')) {
		double t;
		char *comma = strchr(p + 1, ',');
		if (p[1] == '#' || comma == NULL ||
		    strncmp(p + 1, "id,", 3) == 0)
			continue;
		comma = strchr(comma + 1, ',');
		if (comma == NULL)
			continue;
		t = strtod(comma + 1, NULL);
		s1 += t - prev;
		s2 += (t - prev) * (t - prev);
		prev = t;
		k++;
	}
	free(text);
	CU_ASSERT(k > 2000);
	mean = s1 / k;
	cv = sqrt(s2 / k - mean * mean) / mean;
	CU_ASSERT(fabs(mean - 1) < 0.2);
	CU_ASSERT(cv > 2.2 && cv < 3.8);
}

static void test_option_errors(void)
{
	struct gen_opts o;
	struct sim_err err;

	gen_defaults(&o);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "jobz", "5", &err), SIM_ENOENT);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "models", "resnet50:1,alexnet:2", &err),
			SIM_EINVAL);
	CU_ASSERT(strstr(err.msg, "unknown model 'alexnet' (known: resnet50")
		  != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "gpus", "1:0", &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "gpus", "1.5:1", &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "infer-frac", "2", &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "arrival", "weibull", &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "seed", "-1", &err), SIM_EINVAL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(gen_set(&o, "share", "0.5:1,1:1", &err), 0);
	CU_ASSERT_EQUAL(o.share.n, 2);
}

/* LLM services: request files next to the trace, every request within
** the model's context window, the same bytes twice, the other rows the
** same bytes as without LLM services, and no output without a path. */
static void test_llm_services(void)
{
	static const char *const kv[] = {
		"jobs", "12", "llm-frac", "0.5", "llm-models", "llama-2-7b:1",
		"llm-rate-median", "3", "llm-duration-s", "60",
		"llm-prompt", "lognormal:3000:1", "llm-output", "uniform:50:150",
		NULL
	};
	struct gen_opts o;
	struct sim_err err;
	char path[600], rq[700], *t1, *t2, *r1, *line;
	size_t len;
	int n = 0, over = 0, llm = 0;

	CU_ASSERT_EQUAL_FATAL(set_all(&o, kv), 0);
	/* without a path: refused */
	{
		char *buf = NULL;
		FILE *f = open_memstream(&buf, &len);
		sim_err_clear(&err);
		CU_ASSERT_EQUAL(gen_write(f, &o, &err), SIM_EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "give -o FILE"));
		fclose(f);
		free(buf);
	}
	snprintf(path, sizeof path, "%s/genllm.csv", test_tmpdir());
	o.out_path = path;
	t1 = gen_str(&o, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t1);
	for (line = t1; (line = strstr(line, "\nllm-")) != NULL; line++)
		llm++;
	CU_ASSERT(llm >= 2 && llm <= 10);
	line = strstr(t1, "\nllm-");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line);
	CU_ASSERT_EQUAL(strncmp(strstr(line, ",llm,") + 5 + strcspn(
		strstr(line, ",llm,") + 5, ",") + 1, "llama-2-7b,256,", 15),
		0);
	snprintf(rq, sizeof rq, "%s/genllm.%.8s.requests", test_tmpdir(),
		 line + 1);
	r1 = test_slurp(rq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r1);
	CU_ASSERT_EQUAL(strncmp(r1, "t_s,prompt_tokens,output_tokens\n", 32),
			0);
	for (line = strchr(r1, '\n'); line != NULL && line[1];
	     line = strchr(line + 1, '\n')) {
		double t;
		int p, q;
		if (sscanf(line + 1, "%lf,%d,%d", &t, &p, &q) != 3)
			continue;
		n++;
		over += p + q > 4096 || q < 50 || q > 150 || p < 1;
	}
	/* about 3 requests/s for 60 s; lognormal prompts reach past the
	** 4096-token window and are cut to it */
	CU_ASSERT(n > 60 && n < 500);
	CU_ASSERT_EQUAL(over, 0);
	t2 = gen_str(&o, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	CU_ASSERT_STRING_EQUAL(t1, t2);
	free(t2);
	t2 = test_slurp(rq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t2);
	CU_ASSERT_STRING_EQUAL(r1, t2);
	free(t2);
	/* the training and infer rows are those of the same seed without
	** LLM services, where the LLM rows were drawn */
	{
		struct gen_opts o2;
		static const char *const kv2[] = { "jobs", "12", NULL };
		char *t3;
		CU_ASSERT_EQUAL_FATAL(set_all(&o2, kv2), 0);
		t3 = gen_str(&o2, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t3);
		line = strstr(t1, "\ntrain-");
		if (line != NULL) {
			size_t k = strcspn(line + 1, "\n");
			char row[512];
			snprintf(row, sizeof row, "\n%.*s\n", (int)k, line + 1);
			CU_ASSERT_PTR_NOT_NULL(strstr(t3, row));
		}
		free(t3);
	}
	free(t1);
	free(r1);
}

TEST_REGISTER(gen)
{
	static const struct test_case cases[] = {
		{ "same seed, same bytes", test_determinism },
		{ "reference traces recreated", test_reference_recreated },
		{ "mixes and distributions", test_distributions },
		{ "bursty gaps", test_bursty },
		{ "option errors", test_option_errors },
		{ "LLM services and their request files", test_llm_services },
		{ NULL, NULL }
	};
	return test_add_suite("gen", cases);
}
