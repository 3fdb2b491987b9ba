// timeslice.cu: the time-slice quantum and context-switch cost.
//
// Spin mode (run_all.sh starts N copies at once, N = 2, 3, 4, without MPS):
//   timeslice --spin-ms MS --start-at NS --log FILE
// waits until CLOCK_REALTIME reaches NS (so that every copy has its
// context ready), then runs one 32-thread block whose first thread reads
// %globaltimer (the device-wide nanosecond clock, common to all processes)
// in a loop for MS milliseconds.  A jump of more than GAP_NS between two
// reads means the context was switched out; the loop logs each run
// interval [start, end] and the file gets one "start end" line per
// interval.
// Analyse mode:
//   timeslice --analyze N FILE...
// merges the logs over the window where all N ran and writes rows
// (mode timeslice, variant spin, param nproc = N), all in ns:
//   run:    the length of each run interval (the quantum as seen),
//   gap:    from the end of one process's interval to the start of the
//           next process's interval (the switch cost),
//   period: from one interval's start to the same process's next start.
// `colosim calibrate` takes q = mean run and fits period(N) = N (q + c).
// Checksum: the spin loop counts its clock reads; the intervals must be
// ordered and the count must exceed the number of intervals.
#include "mb_common.cuh"

#include <fstream>
#include <sstream>

#define GAP_NS 5000ull
#define MAXI 262144

__device__ static unsigned long long gtimer()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ static void k_spin(unsigned long long *iv, unsigned *niv,
			      unsigned long long dur_ns,
			      unsigned long long *reads)
{
	if (threadIdx.x != 0)
		return;
	unsigned long long t0 = gtimer(), start = t0, prev = t0, now, cnt = 0;
	unsigned k = 0;
	do {
		now = gtimer();
		cnt++;
		if (now - prev > GAP_NS) {
			if (k < MAXI) {
				iv[2 * k] = start;
				iv[2 * k + 1] = prev;
				k++;
			}
			start = now;
		}
		prev = now;
	} while (now - t0 < dur_ns);
	if (k < MAXI) {
		iv[2 * k] = start;
		iv[2 * k + 1] = prev;
		k++;
	}
	*niv = k;
	*reads = cnt;
}

static int spin(const mb_opts &o, double ms, double start_at,
		const std::string &log)
{
	unsigned long long *iv, *reads;
	unsigned *niv;
	CK(cudaMalloc(&iv, sizeof(unsigned long long) * 2 * MAXI));
	CK(cudaMalloc(&niv, sizeof *niv));
	CK(cudaMalloc(&reads, sizeof *reads));
	k_spin<<<1, 32>>>(iv, niv, 1000000, reads);   // warm-up, 1 ms
	CKLAUNCH();
	CK(cudaDeviceSynchronize());
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		double now = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
		if (now >= start_at)
			break;
		std::this_thread::sleep_for(std::chrono::microseconds(200));
	}
	k_spin<<<1, 32>>>(iv, niv, (unsigned long long)(ms * 1e6), reads);
	CKLAUNCH();
	CK(cudaDeviceSynchronize());
	unsigned k = 0;
	unsigned long long cnt = 0;
	CK(cudaMemcpy(&k, niv, sizeof k, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(&cnt, reads, sizeof cnt, cudaMemcpyDeviceToHost));
	std::vector<unsigned long long> h(2 * (size_t)k);
	CK(cudaMemcpy(h.data(), iv, h.size() * sizeof h[0],
		      cudaMemcpyDeviceToHost));
	for (unsigned i = 0; i < k; i++)
		if (h[2 * i] > h[2 * i + 1] ||
		    (i > 0 && h[2 * i] <= h[2 * i - 1]))
			mb_die("timeslice", "interval log out of order");
	if (cnt <= k)
		mb_die("timeslice", "clock-read count checksum");
	FILE *f = std::fopen(log.c_str(), "w");
	if (f == nullptr)
		mb_die("timeslice", "cannot write the interval log");
	for (unsigned i = 0; i < k; i++)
		std::fprintf(f, "%llu %llu\n", h[2 * i], h[2 * i + 1]);
	std::fclose(f);
	std::fprintf(stderr, "timeslice: %s: %u intervals, %llu clock reads\n",
		     log.c_str(), k, cnt);
	(void)o;
	return 0;
}

struct iv {
	unsigned long long s, e;
	int pid;
};

static int analyze(mb_opts &o, int nproc, const std::vector<std::string> &logs)
{
	std::vector<std::vector<iv>> per(logs.size());
	unsigned long long w0 = 0, w1 = ~0ull;
	for (size_t p = 0; p < logs.size(); p++) {
		std::ifstream in(logs[p]);
		iv x;
		x.pid = (int)p;
		while (in >> x.s >> x.e)
			per[p].push_back(x);
		if (per[p].empty())
			mb_die("timeslice", ("empty log " + logs[p]).c_str());
		w0 = std::max(w0, per[p].front().s);
		w1 = std::min(w1, per[p].back().e);
	}
	if (w1 <= w0)
		mb_die("timeslice", "the processes did not overlap");
	std::vector<double> run, gap, period;
	std::vector<iv> all;
	for (auto &v : per) {
		// Interior intervals only: the first and last are cut by the
		// window.
		for (size_t i = 0; i < v.size(); i++) {
			if (v[i].s <= w0 || v[i].e >= w1)
				continue;
			run.push_back((double)(v[i].e - v[i].s));
			all.push_back(v[i]);
			if (i + 1 < v.size() && v[i + 1].e < w1)
				period.push_back((double)(v[i + 1].s - v[i].s));
		}
	}
	std::sort(all.begin(), all.end(),
		  [](const iv &a, const iv &b) { return a.s < b.s; });
	for (size_t i = 0; i + 1 < all.size(); i++)
		if (all[i + 1].pid != all[i].pid && all[i + 1].s >= all[i].e)
			gap.push_back((double)(all[i + 1].s - all[i].e));
	if (run.size() < 10)
		std::fprintf(stderr, "timeslice: only %zu interior intervals: "
			     "no time slicing seen (MPS running?)\n",
			     run.size());
	o.mode = "timeslice";
	mb_row(o, "timeslice", "spin", "nproc", nproc, "run", "ns", run);
	mb_row(o, "timeslice", "spin", "nproc", nproc, "gap", "ns", gap);
	mb_row(o, "timeslice", "spin", "nproc", nproc, "period", "ns", period);
	return 0;
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	double ms = 2000, start_at = 0;
	int nproc = 0;
	std::string log;
	std::vector<std::string> logs;
	for (size_t i = 0; i < rest.size(); i++) {
		if (rest[i] == "--spin-ms" && i + 1 < rest.size())
			ms = std::atof(rest[++i].c_str());
		else if (rest[i] == "--start-at" && i + 1 < rest.size())
			start_at = std::atof(rest[++i].c_str());
		else if (rest[i] == "--log" && i + 1 < rest.size())
			log = rest[++i];
		else if (rest[i] == "--analyze" && i + 1 < rest.size())
			nproc = std::atoi(rest[++i].c_str());
		else
			logs.push_back(rest[i]);
	}
	mb_device(o);
	if (nproc > 0) {
		if ((int)logs.size() != nproc)
			mb_die("timeslice", "--analyze N needs N log files");
		return analyze(o, nproc, logs);
	}
	if (log.empty())
		mb_die("timeslice", "usage: timeslice --spin-ms MS --start-at "
		       "NS --log FILE | --analyze N FILE...");
	return spin(o, ms, start_at, log);
}
