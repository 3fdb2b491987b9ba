/*
** rusage.c: runs one command under a CPU-time limit and reports what it
** cost (tests/bench/grid.py's launcher).
**
**   build/bench/rusage -o REPORT CPU_S -- COMMAND [ARG...]
**
** Forks, sets RLIMIT_CPU to CPU_S seconds in the child (SIGXCPU at the
** limit, SIGKILL 5 s later), execs COMMAND and waits for it with wait4;
** kills it after 4 x CPU_S + 30 s of wall-clock time (a stall that burns
** no CPU).  Writes one line to REPORT:
**
**   status=ok|timeout|error code=N cpu_s=U+S rss_kb=PEAK
**
** (code: the exit status, or the signal for a killed command).  Why a C
** launcher: Linux's ru_maxrss of a process that was forked from a large
** one and exec'd starts at its parent's peak (the old image's high-water
** mark survives exec), so a Python driver that forked colosim itself
** would report its own ~10 MB for every small replay.  This launcher is
** small, and its child is measured from a fresh start.  Exit status: 0
** when the report was written, 2 on bad usage or a failed fork/exec.
*/
#define _DEFAULT_SOURCE 1         /* wait4 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *report;
	struct rusage ru;
	struct timespec nap = { 0, 20000000 };
	double t0, cap;
	char *end;
	long cpu;
	pid_t pid, w;
	int st = 0, killed = 0;
	FILE *f;

	if (argc < 6 || strcmp(argv[1], "-o") != 0 ||
	    strcmp(argv[4], "--") != 0) {
		fprintf(stderr, "usage: rusage -o REPORT CPU_S -- COMMAND "
			"[ARG...]\n");
		return 2;
	}
	report = argv[2];
	cpu = strtol(argv[3], &end, 10);
	if (*end != '\0' || cpu < 1 || cpu > 86400) {
		fprintf(stderr, "rusage: CPU_S '%s': expected 1..86400\n",
			argv[3]);
		return 2;
	}
	cap = 4.0 * (double)cpu + 30;
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		struct rlimit rl;
		rl.rlim_cur = (rlim_t)cpu;
		rl.rlim_max = (rlim_t)cpu + 5;
		setrlimit(RLIMIT_CPU, &rl);
		execvp(argv[5], argv + 5);
		fprintf(stderr, "rusage: %s: %s\n", argv[5], strerror(errno));
		_exit(127);
	}
	for (;;) {
		w = wait4(pid, &st, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("rusage: wait4");
			return 2;
		}
		if (!killed && now_s() - t0 > cap) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		nanosleep(&nap, NULL);
	}
	f = fopen(report, "w");
	if (f == NULL) {
		perror(report);
		return 2;
	}
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st);
		fprintf(f, "status=%s code=%d", killed || sig == SIGXCPU ||
			sig == SIGKILL ? "timeout" : "error", sig);
	} else {
		fprintf(f, "status=%s code=%d", WEXITSTATUS(st) == 0 ? "ok" :
			"error", WEXITSTATUS(st));
	}
	fprintf(f, " cpu_s=%.3f rss_kb=%ld\n", tv_s(ru.ru_utime) +
		tv_s(ru.ru_stime), ru.ru_maxrss);
	return fclose(f) == 0 ? 0 : 2;
}
