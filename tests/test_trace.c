/*
** test_trace.c: the trace reader and validator (traces/trace.c) and the
** arrival processes (traces/arrivals.c): every validation error path, the
** reference traces, and the statistics of the arrival processes.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/util.h"
#include "traces/trace.h"

#define HDR "# colosim-trace v1\n" \
	"id,kind,submit_s,model,batch,iterations,duration_s,iter_ms," \
	"optimizer,precision,gpus,gpu_share,mem_mib,priority,slo_ms," \
	"arrival,rate,arrival_arg,batch_timeout_ms\n"

static const char *write_tmp(const char *name, const char *text)
{
	const char *p = test_write(name, NULL, text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

struct errs {
	int n;
	char msg[64][SIM_ERR_MSG_MAX];
};

static void collect(void *ctx, const struct sim_err *e)
{
	struct errs *x = ctx;

	if (x->n < 64)
		snprintf(x->msg[x->n], SIM_ERR_MSG_MAX, "%s", e->msg);
	x->n++;
}

/* Reads a whole trace; returns the number of good rows, fills errs. */
static int read_all(const char *path, struct errs *x, int *open_rc,
		    struct sim_err *oerr)
{
	struct trace_reader *r;
	struct trace_job j;
	struct sim_err err;
	int rc, good = 0;

	memset(x, 0, sizeof *x);
	sim_err_clear(oerr);
	*open_rc = trace_open(&r, path, oerr);
	if (*open_rc < 0)
		return -1;
	trace_set_error_sink(r, collect, x);
	do {
		sim_err_clear(&err);
		rc = trace_next(r, &j, &err);
		if (rc == 1)
			good++;
		else if (rc < 0)
			CU_ASSERT(err.msg[0] != '\0');
	} while (rc != 0);
	trace_close(r);
	return good;
}

static int has(const struct errs *x, const char *needle)
{
	int i;

	for (i = 0; i < x->n && i < 64; i++)
		if (strstr(x->msg[i], needle) != NULL)
			return 1;
	fprintf(stderr, "\nmissing error '%s'; got:\n", needle);
	for (i = 0; i < x->n && i < 64; i++)
		fprintf(stderr, "  %s\n", x->msg[i]);
	return 0;
}

static int has_quiet(const struct errs *x, const char *needle)
{
	int i;

	for (i = 0; i < x->n && i < 64; i++)
		if (strstr(x->msg[i], needle) != NULL)
			return 1;
	return 0;
}

static void test_good_rows(void)
{
	struct trace_reader *r;
	struct trace_job j;
	struct sim_err err;
	const char *p = write_tmp("good.csv", HDR
		"# comment\n"
		"t1,train,0.5,ResNet50,64,1000,,120.5,adam,mixed,4,0.5,8192,3,,,,,\n"
		"\n"
		"s1,infer,1.25,bert-base,16,,60,,,,2,,,,50,poisson,200,,2.5\n"
		"s2,infer,2,gpt2,8,,,,,,,,,,100,rates,,\"10@0;0@60\",\n");

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_open(&r, p, &err), 0);
	CU_ASSERT_EQUAL(trace_next(r, &j, &err), 1);
	CU_ASSERT_STRING_EQUAL(j.id, "t1");
	CU_ASSERT_EQUAL(j.kind, TRACE_TRAIN);
	CU_ASSERT_EQUAL(j.submit_ns, 500000000);
	CU_ASSERT_STRING_EQUAL(j.model, "resnet50");
	CU_ASSERT_EQUAL(j.batch, 64);
	CU_ASSERT_EQUAL(j.iterations, 1000);
	CU_ASSERT_EQUAL(j.iter_ns, 120500000);
	CU_ASSERT_EQUAL(j.opt, WL_OPT_ADAM);
	CU_ASSERT_EQUAL(j.prec, WL_PREC_MIXED);
	CU_ASSERT_EQUAL(j.gpus, 4);
	CU_ASSERT_DOUBLE_EQUAL(j.gpu_share, 0.5, 1e-12);
	CU_ASSERT_EQUAL(j.mem_bytes, 8192ULL << 20);
	CU_ASSERT_EQUAL(j.priority, 3);
	CU_ASSERT_EQUAL(j.line, 4);
	CU_ASSERT_EQUAL(trace_next(r, &j, &err), 1);
	CU_ASSERT_EQUAL(j.kind, TRACE_INFER);
	CU_ASSERT_EQUAL(j.duration_ns, 60 * SIM_NS_PER_S);
	CU_ASSERT_EQUAL(j.slo_ns, 50 * SIM_NS_PER_MS);
	CU_ASSERT_EQUAL(j.arrival, TRACE_ARR_POISSON);
	CU_ASSERT_DOUBLE_EQUAL(j.rate_per_s, 200, 1e-12);
	CU_ASSERT_EQUAL(j.batch_timeout_ns, 2500000);
	CU_ASSERT_EQUAL(j.gpus, 2);
	CU_ASSERT_EQUAL(j.line, 6);
	CU_ASSERT_EQUAL(trace_next(r, &j, &err), 1);
	CU_ASSERT_EQUAL(j.arrival, TRACE_ARR_RATES);
	CU_ASSERT_STRING_EQUAL(j.arrival_arg, "10@0;0@60");
	/* defaults */
	CU_ASSERT_EQUAL(j.gpus, 1);
	CU_ASSERT_DOUBLE_EQUAL(j.gpu_share, 1, 0);
	CU_ASSERT_EQUAL(j.duration_ns, 0);
	CU_ASSERT_EQUAL(trace_next(r, &j, &err), 0);
	CU_ASSERT_EQUAL(err.code, 0);
	trace_close(r);
}

static void test_header_errors(void)
{
	struct trace_reader *r;
	struct sim_err err;
	const char *p;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_open(&r, "/nonexistent/x.csv", &err), SIM_ENOENT);
	CU_ASSERT_PTR_NULL(r);
	sim_err_clear(&err);
	p = write_tmp("empty.csv", "");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "empty.csv:1:1:") != NULL);
	sim_err_clear(&err);
	p = write_tmp("v2.csv", "# colosim-trace v2\nid\n");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EVERSION);
	CU_ASSERT(strstr(err.msg, "unsupported trace version 'v2'") != NULL);
	sim_err_clear(&err);
	p = write_tmp("nomagic.csv", "id,kind\n");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "nomagic.csv:1:1: expected the line "
			 "'# colosim-trace v1'") != NULL);
	sim_err_clear(&err);
	p = write_tmp("badcol.csv", "# colosim-trace v1\nid,kind,submit,model\n");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "badcol.csv:2:9: header: expected column 3 "
			 "to be 'submit_s', got 'submit'") != NULL);
	sim_err_clear(&err);
	p = write_tmp("short.csv", "# colosim-trace v1\nid,kind,submit_s\n");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "expected column 'model' after 'submit_s'")
		  != NULL);
	sim_err_clear(&err);
	p = write_tmp("nohdr.csv", "# colosim-trace v1\n");
	CU_ASSERT_EQUAL(trace_open(&r, p, &err), SIM_EPARSE);
}

/* One row per error path; each must be reported at its line and column. */
static void test_row_errors(void)
{
	struct errs x;
	struct sim_err oerr;
	int orc, good;
	const char *p = write_tmp("bad.csv", HDR
		/* 3 */ "t1,train,5,resnet51,0,,,,lamb,fp16,0,1.5,-1,x,10,,,,\n"
		/* 4 */ "t1,train,4,resnet50,8,10,,,,,,,,,,,,,\n"
		/* 5 */ "s1,serve,6,gpt2,8\n"
		/* 6 */ "s2,infer,7,gpt2,8,,,,,,,,,,,poisson,,,\n"
		/* 7 */ "s3,infer,8,gpt2,8,,,,,,,,,,5,rates,,\"1@5;2@3\",\n"
		/* 8 */ "s4,infer,9,gpt2,8,5,,3,sgd,fp32,,,,,5,file,,,-1\n"
		/* 9 */ ",train,9,vgg16,abc,1.5,-3,0,,,,,,,,,,,\n"
		/* 10 */ "s5,infer,9,gpt2,8,,,,,,,,,,5,burst,4,,\n"
		/* 11 */ "s6,infer,9,gpt2,8,,,,,,,,,,5,poisson,0,x,\n"
		/* 12 */ "s7,infer,9,gpt2,8,,,,,,,,,,5,rates,3,\"1@0;\",\n"
		/* 13 */ "t9,train,0x10,vgg16,8,1,,,,,,,,,,,,,,extra\n"
		/* 14 */ "t10,train,inf,vgg16,8,1,,,,,,,,,,,,,\n"
		/* 15 */ "t11,train,9,vgg16,8,,,,,,,,,,,,,,\n"
		/* 16 */ "t12,train,10,vgg16,8,1,,,,,,,,,,,,,\n"
		/* 17 */ "\"t13,train,11,vgg16,8,1,,,,,,,,,,,,,\n");

	good = read_all(p, &x, &orc, &oerr);
	CU_ASSERT_EQUAL(orc, 0);
	CU_ASSERT_EQUAL(good, 1);              /* only line 16 is valid */
	CU_ASSERT(has(&x, "bad.csv:3:12: model: unknown model 'resnet51' "
		      "(did you mean resnet50? known: resnet50, resnet152, "
		      "vgg16"));
	CU_ASSERT(has(&x, "bad.csv:3:21: batch: expected an integer in [1, "));
	CU_ASSERT(has(&x, "bad.csv:3:26: optimizer: expected sgd, momentum or "
		      "adam, got 'lamb'"));
	CU_ASSERT(has(&x, "bad.csv:3:31: precision: expected fp32 or mixed"));
	CU_ASSERT(has(&x, "bad.csv:3:36: gpus: expected an integer"));
	CU_ASSERT(has(&x, "bad.csv:3:38: gpu_share: expected a fraction in "
		      "[0.001, 1], got '1.5'"));
	CU_ASSERT(has(&x, "bad.csv:3:42: mem_mib: expected a decimal number > 0"));
	CU_ASSERT(has(&x, "bad.csv:3:45: priority: expected an integer"));
	CU_ASSERT(has(&x, "bad.csv:3:23: iterations: a train row needs "
		      "iterations or duration_s"));
	CU_ASSERT(has(&x, "bad.csv:3:47: slo_ms: must be empty for a train row"));
	CU_ASSERT(has(&x, "bad.csv:4:1: id: duplicate id 't1' (first on line 3)"));
	CU_ASSERT(has(&x, "bad.csv:4:10: submit_s: expected a time >= 5"));
	CU_ASSERT(has(&x, "bad.csv:5:18: expected 19 fields (the header's "
		      "columns), got 5"));
	CU_ASSERT(has(&x, "bad.csv:6:28: slo_ms: an infer row needs slo_ms"));
	CU_ASSERT(has(&x, "bad.csv:6:37: rate: poisson arrivals need a rate"));
	CU_ASSERT(has(&x, "bad.csv:7:37: arrival_arg: segment 2: start 3 s "
		      "before the previous one"));
	CU_ASSERT(has(&x, "bad.csv:8:19: iterations: must be empty for an "
		      "infer row"));
	CU_ASSERT(has(&x, "bad.csv:8:22: iter_ms: must be empty"));
	CU_ASSERT(has(&x, "bad.csv:8:24: optimizer: must be empty"));
	CU_ASSERT(has(&x, "bad.csv:8:28: precision: must be empty"));
	CU_ASSERT(has(&x, "bad.csv:8:45: arrival_arg: file arrivals need the "
		      "path"));
	CU_ASSERT(has(&x, "bad.csv:8:46: batch_timeout_ms: expected a decimal "
		      "number >= 0, got '-1'"));
	CU_ASSERT(has(&x, "bad.csv:9:1: id: expected a job id"));
	CU_ASSERT(has(&x, "bad.csv:9:16: batch: expected an integer in [1, "
		      "1048576], got 'abc'"));
	CU_ASSERT(has(&x, "bad.csv:9:20: iterations: expected an integer"));
	CU_ASSERT(has(&x, "bad.csv:9:24: duration_s: expected a decimal number > 0"));
	CU_ASSERT(has(&x, "bad.csv:9:27: iter_ms: expected a decimal number > 0"));
	CU_ASSERT(has(&x, "bad.csv:10:30: arrival: expected poisson, rates or "
		      "file, got 'burst'"));
	CU_ASSERT(has(&x, "bad.csv:11:38: rate: expected a decimal number > 0"));
	CU_ASSERT(has(&x, "bad.csv:11:40: arrival_arg: must be empty for a "
		      "poisson row"));
	CU_ASSERT(has(&x, "bad.csv:12:36: rate: must be empty for a rates row"));
	CU_ASSERT(has(&x, "bad.csv:12:38: arrival_arg: trailing ';'"));
	CU_ASSERT(has(&x, "bad.csv:13:38: expected 19 fields (the header's "
		      "columns), got 20"));
	CU_ASSERT(has(&x, "bad.csv:14:11: submit_s: expected a decimal number"
		      " >= 0, got 'inf'"));
	CU_ASSERT(has(&x, "bad.csv:15:21: iterations: a train row needs"));
	CU_ASSERT(has(&x, "bad.csv:17:1: unterminated quoted field"));
	/* a row with the wrong number of fields reports only that */
	CU_ASSERT(!has_quiet(&x, "bad.csv:5:4:"));
	CU_ASSERT_EQUAL(x.n, 36);
}

/* Times whose nanoseconds pass 2^62 (4.6e9 s) are errors, not values
** saturated to the end of time that used to validate and then give wrong
** results; 4.6e9 s still fits.  A line past the reader's limit is one
** error at its line, and the rows after it are still read. */
static void test_time_limits(void)
{
	struct errs x;
	struct sim_err oerr;
	int orc, good;
	static char text[80000];
	const char *p;
	size_t k;

	p = write_tmp("huge.csv", HDR
		/* 3 */ "a,train,0,resnet50,32,,4.7e9,,,,1,,,,,,,,\n"
		/* 4 */ "b,train,1e300,resnet50,32,,10,,,,1,,,,,,,,\n"
		/* 5 */ "c,train,1,resnet50,32,,10,1e300,,,1,,,,,,,,\n"
		/* 6 */ "d,infer,2,gpt2,8,,,,,,1,,,,4.7e12,poisson,5,,\n"
		/* 7 */ "e,train,3,resnet50,32,,4.6e9,,,,1,,,,,,,,\n");
	good = read_all(p, &x, &orc, &oerr);
	CU_ASSERT_EQUAL(orc, 0);
	CU_ASSERT_EQUAL(good, 1);
	CU_ASSERT(has(&x, "huge.csv:3:24: duration_s: expected at most "
		      "4611686018 s (2^62 ns, 146 years), got '4.7e9'"));
	CU_ASSERT(has(&x, "huge.csv:4:9: submit_s: expected at most "));
	CU_ASSERT(has(&x, "huge.csv:5:27: iter_ms: expected at most "));
	CU_ASSERT(has(&x, "huge.csv:6:28: slo_ms: expected at most "));
	CU_ASSERT_EQUAL(x.n, 4);

	k = (size_t)snprintf(text, sizeof text, "%s", HDR);
	memset(text + k, 'x', 70000);
	k += 70000;
	snprintf(text + k, sizeof text - k,
		 "\nf,train,4,resnet50,32,,10,,,,1,,,,,,,,\n");
	p = write_tmp("longline.csv", text);
	good = read_all(p, &x, &orc, &oerr);
	CU_ASSERT_EQUAL(good, 1);
	CU_ASSERT(has(&x, "longline.csv:3:65537: line longer than 65536 "
		      "bytes"));
	CU_ASSERT_EQUAL(x.n, 1);
}

static void test_reference_traces(void)
{
	static const struct { const char *path; int rows, models; } ref[] = {
		{ "traces/ref/mixed-small.csv", 60, 0 },
		{ "traces/ref/colti.csv", 24, 3 },
		{ "traces/ref/bursty-rates.csv", 120, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof ref / sizeof ref[0]; i++) {
		struct trace_reader *r;
		struct trace_job j;
		struct sim_err err;
		char seen[16][48];
		int rc, n = 0, ntrain = 0, ninfer = 0, nseen = 0, k;
		sim_time prev = 0;

		sim_err_clear(&err);
		CU_ASSERT_EQUAL_FATAL(trace_open(&r, ref[i].path, &err), 0);
		while ((rc = trace_next(r, &j, &err)) == 1) {
			n++;
			CU_ASSERT(j.submit_ns >= prev);
			prev = j.submit_ns;
			if (j.kind == TRACE_TRAIN)
				ntrain++;
			else
				ninfer++;
			for (k = 0; k < nseen && k < 3; k++)
				if (strcmp(seen[k], j.model) == 0)
					break;
			if (k == nseen && nseen < 16)
				strcpy(seen[nseen++], j.model);
		}
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(n, ref[i].rows);
		CU_ASSERT(ntrain > 0 && ninfer > 0);
		if (ref[i].models)
			CU_ASSERT_EQUAL(nseen, ref[i].models);
		trace_close(r);
	}
}

static struct trace_job service(enum trace_arrival kind, double rate,
				const char *arg, double submit_s,
				double duration_s)
{
	struct trace_job j;

	memset(&j, 0, sizeof j);
	strcpy(j.id, "svc");
	j.kind = TRACE_INFER;
	j.arrival = kind;
	j.rate_per_s = rate;
	snprintf(j.arrival_arg, sizeof j.arrival_arg, "%s", arg);
	j.submit_ns = sim_time_from_s(submit_s);
	j.duration_ns = sim_time_from_s(duration_s);
	return j;
}

static void test_arrivals_poisson(void)
{
	struct trace_job j = service(TRACE_ARR_POISSON, 100, "", 10, 200);
	struct trace_arrivals *a;
	struct sim_rng rng, rng2;
	struct sim_err err;
	sim_time t, prev = j.submit_ns, first = 0;
	long n = 0;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, 1, "arr", 0, &err), 0);
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, ".", &rng, &err), 0);
	while (trace_arrivals_next(a, &t, &err) == 1) {
		CU_ASSERT(t >= prev);
		if (n == 0)
			first = t;
		prev = t;
		n++;
	}
	CU_ASSERT(prev <= sim_time_from_s(210));
	/* 100 req/s over 200 s: 20000 +- 3 sigma (sigma = 141) */
	CU_ASSERT(labs(n - 20000) < 450);
	trace_arrivals_close(a);
	/* the same stream gives the same arrivals */
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng2, 1, "arr", 0, &err), 0);
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, ".", &rng2, &err), 0);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), 1);
	CU_ASSERT_EQUAL(t, first);
	trace_arrivals_close(a);
	sim_rng_fini(&rng);
	sim_rng_fini(&rng2);
}

static void test_arrivals_rates(void)
{
	/* 50 req/s for 100 s, 0 for 100 s, 200 req/s for 50 s, then 0 */
	struct trace_job j = service(TRACE_ARR_RATES, 0,
				     "50@0;0@100;200@200;0@250", 5, 0);
	struct trace_arrivals *a;
	struct sim_rng rng;
	struct sim_err err;
	sim_time t;
	long seg[3] = { 0, 0, 0 };

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_rng_init(&rng, 3, "arr", 1, &err), 0);
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, ".", &rng, &err), 0);
	while (trace_arrivals_next(a, &t, &err) == 1) {
		double s = sim_time_to_s(t) - 5;
		CU_ASSERT(s >= 0 && s <= 250);
		CU_ASSERT(!(s > 100 && s < 200));   /* the silent segment */
		seg[s < 100 ? 0 : s < 200 ? 1 : 2]++;
	}
	/* 5000 and 10000 expected; 3 sigma */
	CU_ASSERT(labs(seg[0] - 5000) < 215);
	CU_ASSERT(labs(seg[2] - 10000) < 300);
	trace_arrivals_close(a);
	sim_rng_fini(&rng);
}

static void test_arrivals_file(void)
{
	struct trace_job j = service(TRACE_ARR_FILE, 0, "arr1.txt", 1, 0);
	struct trace_arrivals *a;
	struct sim_err err;
	sim_time t;
	int n = 0;

	write_tmp("arr1.txt", "# times\n1.5\n2\n\n2\n3.25\n");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, test_tmpdir(),
						  NULL, &err), 0);
	while (trace_arrivals_next(a, &t, &err) == 1)
		n++;
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(t, 3250000000);
	trace_arrivals_close(a);
	/* a lifetime cuts the file short */
	j.duration_ns = SIM_NS_PER_S;
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, test_tmpdir(),
						  NULL, &err), 0);
	n = 0;
	while (trace_arrivals_next(a, &t, &err) == 1)
		n++;
	CU_ASSERT_EQUAL(n, 3);
	trace_arrivals_close(a);
	/* errors: decreasing, before submit, not a number, missing file */
	write_tmp("arr2.txt", "2\n1.5\n");
	write_tmp("arr3.txt", "0.5\n");
	write_tmp("arr4.txt", "1\nsoon\n");
	strcpy(j.arrival_arg, "arr2.txt");
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, test_tmpdir(),
						  NULL, &err), 0);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), 1);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "arr2.txt:2:1: arrival: expected a time "
			 ">= 2 s") != NULL);
	trace_arrivals_close(a);
	sim_err_clear(&err);
	strcpy(j.arrival_arg, "arr3.txt");
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, test_tmpdir(),
						  NULL, &err), 0);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "arr3.txt:1:1:") != NULL);
	trace_arrivals_close(a);
	sim_err_clear(&err);
	strcpy(j.arrival_arg, "arr4.txt");
	CU_ASSERT_EQUAL_FATAL(trace_arrivals_open(&a, &j, test_tmpdir(),
						  NULL, &err), 0);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), 1);
	CU_ASSERT_EQUAL(trace_arrivals_next(a, &t, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "arr4.txt:2:1: arrival: expected seconds "
			 "in [0, 4611686018]") != NULL);
	/* the arrival file's content is not echoed */
	CU_ASSERT(strstr(err.msg, "soon") == NULL);
	trace_arrivals_close(a);
	sim_err_clear(&err);
	strcpy(j.arrival_arg, "none.txt");
	CU_ASSERT_EQUAL(trace_arrivals_open(&a, &j, test_tmpdir(), NULL, &err),
			SIM_ENOENT);
	CU_ASSERT(strstr(err.msg, "none.txt") != NULL);
}

static void test_parse_rates(void)
{
	struct trace_rate seg[4];
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_parse_rates("10@0;2.5@30", seg, 4, &err), 2);
	CU_ASSERT_DOUBLE_EQUAL(seg[1].rate_per_s, 2.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(seg[1].from_s, 30, 0);
	CU_ASSERT_EQUAL(trace_parse_rates("10", seg, 4, &err), SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_parse_rates("-1@0", seg, 4, &err), SIM_EPARSE);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(trace_parse_rates("1@0;1@1;1@2;1@3;1@4", seg, 4, &err),
			SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "more than 4") != NULL);
}

TEST_REGISTER(trace)
{
	static const struct test_case cases[] = {
		{ "good rows and defaults", test_good_rows },
		{ "header errors", test_header_errors },
		{ "every row error path", test_row_errors },
		{ "times past 2^62 ns, a line past the limit", test_time_limits },
		{ "reference traces", test_reference_traces },
		{ "poisson arrivals", test_arrivals_poisson },
		{ "piecewise-rate arrivals", test_arrivals_rates },
		{ "arrival files", test_arrivals_file },
		{ "rate lists", test_parse_rates },
		{ NULL, NULL }
	};
	return test_add_suite("trace", cases);
}
