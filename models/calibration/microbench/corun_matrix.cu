// corun_matrix.cu: slowdown of each kernel of a small catalogue when it
// runs beside each other one.
//
// Catalogue (launch shapes from the device's SM count and occupancy):
//   compute: FMA chains over 2 full waves of the device;
//   memory:  triad over three 256 MiB arrays (streams from HBM);
//   l2:      triad repeated 64 times over arrays that fit in an eighth of L2;
//   small:   FMA chains in 8 blocks (a small grid that leaves SMs idle).
// Roles:
//   corun_matrix --solo            mode exclusive: each kernel alone: time,
//                                  sm_frac = min(1, grid / (SMs x blocks
//                                  per SM)), bw_frac = its HBM bytes/s over
//                                  the memory kernel's
//   corun_matrix --streams         mode streams: every ordered pair in one
//                                  process, the background kernel
//                                  relaunched on a second stream
//   corun_matrix --fg A --with B --sync DIR --mode timeslice|mps
//   corun_matrix --bg B --sync DIR
//                                  two processes (run_all.sh starts both):
//                                  fg times A alone, then (DIR/solo_done)
//                                  bg starts relaunching B, then
//                                  (DIR/bg_running) fg times A again, then
//                                  (DIR/fg_done) bg stops.
// Rows: variant "A+B", param none, metric slowdown (ratio: co-run trial /
// solo median) and time (ns).  `colosim calibrate` fits the contention
// coefficient from the mps and streams slowdowns with the solo sm_frac and
// bw_frac rows.
// Checksums: FMA outputs equal their start values (x = 1, y = 0 at run
// time); triad outputs are summed and compared with the host at the end.
#include "mb_common.cuh"

#include <sys/stat.h>


struct kern {
	const char *name;
	int grid, block, per_sm;
	double hbm_bytes;   // bytes from/to HBM per launch
	float *a, *b, *c;   // triad arrays (nullptr for FMA)
	size_t n;
	int reps;
	float *out;         // FMA outputs
};

struct catalogue {
	int sms;
	std::vector<kern> k;
};

static void launch(const kern &k, cudaStream_t s)
{
	if (k.a == nullptr)
		mb_fma8<8192><<<k.grid, k.block, 0, s>>>(k.out, 1.0f, 0.0f);
	else
		mb_triad<<<k.grid, k.block, 0, s>>>(k.a, k.b, k.c, k.n, k.reps);
}

static catalogue make_catalogue(int dev)
{
	catalogue c;
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, dev));
	c.sms = p.multiProcessorCount;
	int fma_per_sm = 0, triad_per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fma_per_sm, mb_fma8<8192>,
							 256, 0));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&triad_per_sm,
							 mb_triad, 256, 0));
	size_t nmem = ((size_t)256 << 20) / 4;
	size_t nl2 = std::max<size_t>(1024, (size_t)p.l2CacheSize / 8 / 3 / 4);
	kern ks[4] = {
		{ "compute", 2 * c.sms * fma_per_sm, 256, fma_per_sm, 0,
		  nullptr, nullptr, nullptr, 0, 0, nullptr },
		{ "memory", c.sms * triad_per_sm, 256, triad_per_sm,
		  3.0 * (double)nmem * 4, nullptr, nullptr, nullptr, nmem, 1,
		  nullptr },
		{ "l2", c.sms * triad_per_sm, 256, triad_per_sm,
		  3.0 * (double)nl2 * 4, nullptr, nullptr, nullptr, nl2, 64,
		  nullptr },
		{ "small", 8, 256, fma_per_sm, 0, nullptr, nullptr, nullptr, 0,
		  0, nullptr },
	};
	for (kern &k : ks) {
		if (k.n > 0) {
			CK(cudaMalloc(&k.a, k.n * 4));
			CK(cudaMalloc(&k.b, k.n * 4));
			CK(cudaMalloc(&k.c, k.n * 4));
			mb_fill<<<c.sms * 4, 256>>>(k.a, k.n, 1);
			mb_fill<<<c.sms * 4, 256>>>(k.b, k.n, 2);
			CKLAUNCH();
		} else {
			CK(cudaMalloc(&k.out, (size_t)k.grid * k.block * 4));
		}
		c.k.push_back(k);
	}
	CK(cudaDeviceSynchronize());
	return c;
}

static void check(const catalogue &c)
{
	for (const kern &k : c.k) {
		if (k.n > 0) {
			if (mb_device_sum(k.c, k.n, c.sms) !=
			    mb_fill_sum(k.n, 1) + 3 * mb_fill_sum(k.n, 2))
				mb_die("corun_matrix", "triad checksum");
		} else {
			float h[256];
			CK(cudaMemcpy(h, k.out, sizeof h,
				      cudaMemcpyDeviceToHost));
			for (int i = 0; i < 256; i++)
				if (h[i] != (float)(8 * (i % 5) + 28))
					mb_die("corun_matrix", "FMA checksum");
		}
	}
}

static const kern &find(const catalogue &c, const std::string &name)
{
	for (const kern &k : c.k)
		if (name == k.name)
			return k;
	mb_die("corun_matrix", ("unknown kernel " + name +
				" (compute, memory, l2, small)").c_str());
	return c.k[0];
}

static std::vector<double> time_solo(const mb_opts &o, const kern &k,
				     cudaStream_t s)
{
	std::vector<double> t;
	launch(k, s);   // warm-up
	for (int i = 0; i < o.trials; i++)
		t.push_back(mb_event_ns(s, [&] { launch(k, s); }));
	CKLAUNCH();
	return t;
}

static void emit_pair(const mb_opts &o, const kern &fg, const kern &bg,
		      const std::vector<double> &solo,
		      const std::vector<double> &co)
{
	double m = mb_summarise(solo).median;
	std::vector<double> sl;
	for (double x : co)
		sl.push_back(x / m);
	std::string v = std::string(fg.name) + "+" + bg.name;
	mb_row(o, "corun_matrix", v, "none", 0, "slowdown", "ratio", sl);
	mb_row(o, "corun_matrix", v, "none", 0, "time", "ns", co);
}

static bool exists(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0;
}

static void touch(const std::string &path)
{
	FILE *f = std::fopen(path.c_str(), "w");
	if (f == nullptr)
		mb_die("corun_matrix", ("cannot create " + path).c_str());
	std::fclose(f);
}

static void wait_for(const std::string &path, double timeout_s)
{
	double t0 = mb_host_ns();
	while (!exists(path)) {
		if (mb_host_ns() - t0 > timeout_s * 1e9)
			mb_die("corun_matrix", ("timed out waiting for " +
						path).c_str());
		std::this_thread::sleep_for(std::chrono::milliseconds(5));
	}
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	std::string role, fgname, bgname, sync;
	for (size_t i = 0; i < rest.size(); i++) {
		if (rest[i] == "--solo" || rest[i] == "--streams")
			role = rest[i];
		else if (rest[i] == "--fg" && i + 1 < rest.size())
			role = "--fg", fgname = rest[++i];
		else if (rest[i] == "--bg" && i + 1 < rest.size())
			role = "--bg", bgname = rest[++i];
		else if (rest[i] == "--with" && i + 1 < rest.size())
			bgname = rest[++i];
		else if (rest[i] == "--sync" && i + 1 < rest.size())
			sync = rest[++i];
	}
	if (role.empty() || ((role == "--fg" || role == "--bg") &&
			     (sync.empty() || bgname.empty())))
		mb_die("corun_matrix", "usage: corun_matrix --solo | --streams "
		       "| --fg A --with B --sync DIR | --bg B --sync DIR");
	mb_device(o);
	catalogue c = make_catalogue(o.dev);
	cudaStream_t sa, sb;
	CK(cudaStreamCreateWithFlags(&sa, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&sb, cudaStreamNonBlocking));

	if (role == "--solo") {
		mb_env_logger env(o, "corun_matrix");
		o.mode = "exclusive";
		std::vector<double> med;
		for (const kern &k : c.k) {
			std::vector<double> t = time_solo(o, k, sa);
			med.push_back(mb_summarise(t).median);
			mb_row(o, "corun_matrix", k.name, "none", 0, "time", "ns",
			       t);
		}
		double ref = c.k[1].hbm_bytes / med[1];   // the memory kernel
		for (size_t i = 0; i < c.k.size(); i++) {
			const kern &k = c.k[i];
			double sm = std::min(1.0, (double)k.grid /
					     ((double)c.sms * k.per_sm));
			mb_row1(o, "corun_matrix", k.name, "none", 0, "sm_frac",
				"ratio", sm);
			mb_row1(o, "corun_matrix", k.name, "none", 0, "bw_frac",
				"ratio", k.hbm_bytes / med[i] / ref);
		}
	} else if (role == "--streams") {
		mb_env_logger env(o, "corun_matrix");
		o.mode = "streams";
		for (const kern &fg : c.k) {
			std::vector<double> solo = time_solo(o, fg, sa);
			for (const kern &bg : c.k) {
				std::vector<double> co;
				launch(bg, sb);
				launch(fg, sa);   // warm-up beside bg
				for (int i = 0; i < o.trials; i++) {
					launch(bg, sb);
					launch(bg, sb);
					co.push_back(mb_event_ns(sa, [&] {
						launch(fg, sa);
					}));
				}
				CKLAUNCH();
				CK(cudaStreamSynchronize(sb));
				emit_pair(o, fg, bg, solo, co);
			}
		}
	} else if (role == "--fg") {
		const kern &fg = find(c, fgname), &bg = find(c, bgname);
		std::vector<double> solo = time_solo(o, fg, sa);
		touch(sync + "/solo_done");
		wait_for(sync + "/bg_running", 60);
		std::vector<double> co;
		launch(fg, sa);   // warm-up beside bg
		for (int i = 0; i < o.trials; i++)
			co.push_back(mb_event_ns(sa, [&] { launch(fg, sa); }));
		CKLAUNCH();
		touch(sync + "/fg_done");
		emit_pair(o, fg, bg, solo, co);
	} else {
		const kern &bg = find(c, bgname);
		wait_for(sync + "/solo_done", 60);
		cudaEvent_t ev[2];
		CK(cudaEventCreate(&ev[0]));
		CK(cudaEventCreate(&ev[1]));
		double t0 = mb_host_ns();
		for (long i = 0; !exists(sync + "/fg_done"); i++) {
			// Two launches in flight: wait for the older one.
			launch(bg, sb);
			CK(cudaEventRecord(ev[i % 2], sb));
			if (i >= 1)
				CK(cudaEventSynchronize(ev[(i + 1) % 2]));
			if (i == 1)
				touch(sync + "/bg_running");
			if (mb_host_ns() - t0 > 120e9)
				mb_die("corun_matrix", "background ran 120 s "
				       "without fg_done");
		}
		CKLAUNCH();
		CK(cudaStreamSynchronize(sb));
	}
	CK(cudaDeviceSynchronize());
	check(c);
	return 0;
}
