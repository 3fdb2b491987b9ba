/*
** bench.h: helpers shared by the engine benchmarks (the .c files in tests/bench/).
**
** The benchmarks are programs, not library code: they print their one
** summary line and exit non-zero on bad options.  Options are `--name=value`
** pairs checked against a table, so a typo is an error rather than a
** silently ignored default.  Clocks are read here and only here (model
** code never reads the clock).
*/
#ifndef COLOSIM_TESTS_BENCH_H
#define COLOSIM_TESTS_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
** CPU seconds used by this process.  The benchmarks report events per CPU
** second: on a machine shared with other work, a process that waits for a
** core accrues wall time but no CPU time, so this is the steadier measure of
** "events per second on one core"; wall_s is printed beside it.
*/
static inline double bench_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum bench_opt_kind { BENCH_U64, BENCH_DOUBLE };

/* One option: --name=value stored in *u64 or *dbl, within [min, max]. */
struct bench_opt {
	const char *name;
	enum bench_opt_kind kind;
	void *dst;
	double min, max;
	const char *help;
};

static inline void bench_usage(FILE *f, const char *prog, const char *what,
			       const struct bench_opt *opts)
{
	fprintf(f, "usage: %s [--name=value ...]\n%s\n\noptions:\n", prog,
		what);
	for (; opts->name != NULL; opts++) {
		if (opts->kind == BENCH_U64)
			fprintf(f, "  --%-10s %s (default %llu)\n", opts->name,
				opts->help,
				(unsigned long long)*(uint64_t *)opts->dst);
		else
			fprintf(f, "  --%-10s %s (default %g)\n", opts->name,
				opts->help, *(double *)opts->dst);
	}
}

/*
** Parses argv against opts (terminated by a NULL name).  Returns 0, 1 when
** --help was printed, or -1 after printing one line naming the bad option.
*/
static inline int bench_parse(int argc, char **argv, const char *what,
			      const struct bench_opt *opts)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		const struct bench_opt *o;
		size_t len;
		char *end;
		double v;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			bench_usage(stdout, argv[0], what, opts);
			return 1;
		}
		eq = strchr(a, '=');
		if (strncmp(a, "--", 2) != 0 || eq == NULL) {
			fprintf(stderr, "%s: argument %d '%s': expected "
				"--name=value (see --help)\n", argv[0], i, a);
			return -1;
		}
		len = (size_t)(eq - a - 2);
		for (o = opts; o->name != NULL; o++)
			if (strlen(o->name) == len &&
			    strncmp(a + 2, o->name, len) == 0)
				break;
		if (o->name == NULL) {
			fprintf(stderr, "%s: argument %d '%s': unknown option "
				"(see --help)\n", argv[0], i, a);
			return -1;
		}
		errno = 0;
		v = strtod(eq + 1, &end);
		if (eq[1] == '\0' || *end != '\0' || errno != 0 ||
		    !(v >= o->min && v <= o->max) ||
		    (o->kind == BENCH_U64 && v != (double)(uint64_t)v)) {
			fprintf(stderr, "%s: --%s: expected %s in [%g, %g], "
				"got '%s'\n", argv[0], o->name,
				o->kind == BENCH_U64 ? "an integer" : "a number",
				o->min, o->max, eq + 1);
			return -1;
		}
		if (o->kind == BENCH_U64)
			*(uint64_t *)o->dst = (uint64_t)v;
		else
			*(double *)o->dst = v;
	}
	return 0;
}

#endif
