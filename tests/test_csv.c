/*
** test_csv.c: the CSV reader (sim/csv.h): records and their positions,
** quotes over lines, comments, the limits (long line, long field, many
** fields, long record), malformed input, recovery after an error.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/csv.h"
#include "tests/util.h"

static const char *put(const char *name, const char *text, size_t n)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/csv-%s", test_tmpdir(), name);
	f = fopen(path, "wb");
	if (f != NULL) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	return path;
}

#define PUT(name, lit) put(name, lit, sizeof lit - 1)

static void test_records_and_positions(void)
{
	const char *p = PUT("a.csv", "id,name,x\n"
			    "1, b ,\"q,uoted\"\r\n"
			    "\n"
			    "2,\"two\nlines\",\"say \"\"hi\"\"\"\n"
			    "3,,last");
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", SIM_CSV_HEADER, NULL,
					   &err), 0);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(rec.index, 0);
	CU_ASSERT_EQUAL(rec.nf, 3);
	CU_ASSERT_STRING_EQUAL(rec.f[2], "x");
	CU_ASSERT_PTR_NULL(rec.f[3]);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(rec.line, 2);
	CU_ASSERT_STRING_EQUAL(rec.f[1], "b");          /* trimmed */
	CU_ASSERT_STRING_EQUAL(rec.f[2], "q,uoted");
	CU_ASSERT_EQUAL(rec.col[1], 3);
	CU_ASSERT_EQUAL(rec.col[2], 7);
	CU_ASSERT_EQUAL(rec.first_len, 15);             /* "\r" dropped */
	CU_ASSERT_EQUAL(sim_csv_col(&rec, 3), 16);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(rec.line, 4);                   /* blank line skipped */
	CU_ASSERT_STRING_EQUAL(rec.f[1], "two\nlines");
	CU_ASSERT_STRING_EQUAL(rec.f[2], "say \"hi\"");
	CU_ASSERT_EQUAL(rec.fline[2], 5);               /* after the newline */
	CU_ASSERT_EQUAL(rec.col[2], 8);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(rec.line, 6);                   /* no final newline */
	CU_ASSERT_STRING_EQUAL(rec.f[1], "");
	CU_ASSERT_STRING_EQUAL(rec.f[2], "last");
	CU_ASSERT_EQUAL(rec.index, 3);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 0);
	CU_ASSERT_STRING_EQUAL(sim_csv_header(r)->f[1], "name");
	CU_ASSERT_EQUAL(err.code, 0);
	sim_csv_close(r);
}

static void test_comments(void)
{
	const char *p = PUT("c.csv", "# colosim-trace v1\na,b\n  # note\n"
			    "\"#x\",1\n#y,2\n");
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;
	const char *line;
	size_t len;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", SIM_CSV_COMMENTS, NULL,
					   &err), 0);
	CU_ASSERT_EQUAL_FATAL(sim_csv_raw_line(r, &line, &len, &err), 1);
	CU_ASSERT_STRING_EQUAL(line, "# colosim-trace v1");
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_STRING_EQUAL(rec.f[0], "a");
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_STRING_EQUAL(rec.f[0], "#x");         /* quoted: data */
	CU_ASSERT_EQUAL(rec.line, 4);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 0);
	sim_csv_close(r);
	/* without the flag a '#' line is a record */
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", 0, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_STRING_EQUAL(rec.f[0], "# colosim-trace v1");
	sim_csv_close(r);
}

/* A line past the limit is one clear error at its line, and the reader
** goes on with the next line. */
static void test_long_line(void)
{
	size_t n = SIM_CSV_LINE_MAX + 100, k = 0;
	char *text = malloc(n + 64);
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;
	const char *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	k += (size_t)sprintf(text, "a,b\n");
	memset(text + k, 'x', n);
	k += n;
	k += (size_t)sprintf(text + k, "\n1,2\n");
	p = put("long.csv", text, k);
	free(text);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", SIM_CSV_HEADER, NULL,
					   &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "long.csv:2:65537: line longer than 65536 "
			 "bytes") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(rec.line, 3);
	CU_ASSERT_STRING_EQUAL(rec.f[1], "2");
	sim_csv_close(r);
}

static void test_limits(void)
{
	struct sim_csv_limits lim = { 0, 8, 20, 3 };
	const char *p = PUT("lim.csv", "id,name\n1,abcdefghij\n1,2,3,4\n"
			    "1,\"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\"\n"
			    "9,ok\n");
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", SIM_CSV_HEADER, &lim,
					   &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "lim.csv:2:3: name: field longer "
			       "than 8 bytes") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "lim.csv:3:7: more than 3 fields") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "lim.csv:4:1: record longer than 20 bytes")
		  != NULL);
	sim_csv_close(r);
}

static void test_malformed(void)
{
	const char *p = PUT("bad.csv", "a,b\nx,y\"z\n1,2\n3,\"open\n");
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", 0, NULL, &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "bad.csv:2:4: malformed CSV") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(r, &rec, &err), 1);  /* goes on */
	CU_ASSERT_STRING_EQUAL(rec.f[0], "1");
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "bad.csv:4:3: unterminated quoted "
			       "field at the end of the file") != NULL);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 0);
	sim_csv_close(r);

	p = put("nul.csv", "a,b\n1,\0002\n", 9);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", 0, NULL, &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), 1);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "nul.csv:2:3: NUL byte") != NULL);
	sim_csv_close(r);

	p = PUT("cr.csv", "a,b\r1,2\n");
	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", 0, NULL, &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "cr.csv:1:4: carriage return") != NULL);
	sim_csv_close(r);
}

static void test_empty_and_missing(void)
{
	const char *p = PUT("empty.csv", "");
	struct sim_csv *r;
	struct sim_csv_rec rec;
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&r, p, "", SIM_CSV_HEADER, NULL,
					   &err), 0);
	CU_ASSERT_EQUAL(sim_csv_next(r, &rec, &err), SIM_EPARSE);
	CU_ASSERT(strstr(err.msg, "empty.csv:1:1: empty file") != NULL);
	sim_csv_close(r);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_csv_open(&r, "/nonexistent/x.csv", "trace", 0,
				     NULL, &err), SIM_ENOENT);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT(strstr(err.msg, "/nonexistent/x.csv") != NULL);
}

struct sum { int n; long total; };

static int add_rec(void *ctx, const struct sim_csv_rec *rec,
		   struct sim_err *err)
{
	struct sum *s = ctx;

	(void)err;
	if (rec->index > 0)
		s->total += atol(rec->f[0]);
	return ++s->n == 3 ? 7 : 0;      /* stop after three */
}

static void test_each(void)
{
	const char *p = PUT("each.csv", "v\n1\n2\n3\n4\n");
	struct sum s = { 0, 0 };
	struct sim_err err;

	sim_err_clear(&err);
	CU_ASSERT_EQUAL(sim_csv_each(p, "", SIM_CSV_HEADER, add_rec, &s, &err),
			7);
	CU_ASSERT_EQUAL(s.n, 3);
	CU_ASSERT_EQUAL(s.total, 3);
}

TEST_REGISTER(csv)
{
	static const struct test_case cases[] = {
		{"records, quotes over lines, positions", test_records_and_positions},
		{"comments and raw lines", test_comments},
		{"a line past the limit, then recovery", test_long_line},
		{"field, field count and record limits", test_limits},
		{"malformed CSV, NUL, bare CR", test_malformed},
		{"empty and missing files", test_empty_and_missing},
		{"sim_csv_each stops on a callback's code", test_each},
		{NULL, NULL}
	};
	return test_add_suite("csv", cases);
}
