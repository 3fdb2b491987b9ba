// mb_common.cuh: what every microbenchmark of the colosim calibration suite
// shares: error checks, host and event timing, order statistics, the raw CSV
// row writer, and the clock/power logger (NVML loaded with dlopen, else
// nvidia-smi, else nothing with a note on stderr).
//
// Output contract: CSV rows (no header) on stdout, one per measured
// distribution, in the long format of docs/CALIBRATION.md:
//   schema,device,mode,bench,variant,param,param_value,metric,unit,n,
//   median,p05,p95,min,max
// Diagnostics go to stderr.  A failed CUDA call or a wrong checksum ends
// the program with status 1 and a message naming the benchmark, so a
// broken measurement never reaches the CSV silently.
#ifndef MB_COMMON_CUH
#define MB_COMMON_CUH

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <time.h>
#include <vector>

#define MB_SCHEMA "colosim-raw-1"

#define CK(call)                                                            \
	do {                                                                \
		cudaError_t e_ = (call);                                    \
		if (e_ != cudaSuccess) {                                    \
			std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__,    \
				     __LINE__, #call, cudaGetErrorString(e_));\
			std::exit(1);                                       \
		}                                                           \
	} while (0)

// After a kernel launch: the launch error, then (sync) any fault.
#define CKLAUNCH() CK(cudaGetLastError())

static inline void mb_die(const char *bench, const char *what)
{
	std::fprintf(stderr, "%s: %s\n", bench, what);
	std::exit(1);
}

// ---- options common to every benchmark --------------------------------

struct mb_opts {
	std::string device;   // cudaDeviceProp name, commas replaced
	std::string mode;     // exclusive, streams, timeslice, mps
	int trials;           // >= 10
	int dev;              // CUDA device index
	bool quick;           // fewer sizes (smoke runs)
};

// Parses --mode M, --trials N, --device I, --quick; leaves other
// arguments for the benchmark (returns them in rest).
static inline mb_opts mb_parse(int argc, char **argv,
			       std::vector<std::string> &rest)
{
	mb_opts o;
	o.mode = "exclusive";
	o.trials = 10;
	o.dev = 0;
	o.quick = false;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--mode" && i + 1 < argc)
			o.mode = argv[++i];
		else if (a == "--trials" && i + 1 < argc)
			o.trials = std::max(10, std::atoi(argv[++i]));
		else if (a == "--device" && i + 1 < argc)
			o.dev = std::atoi(argv[++i]);
		else if (a == "--quick")
			o.quick = true;
		else
			rest.push_back(a);
	}
	return o;
}

// Selects the device and fills o.device (no context is created here
// beyond what cudaGetDeviceProperties needs).
static inline void mb_device(mb_opts &o)
{
	cudaDeviceProp p;
	CK(cudaSetDevice(o.dev));
	CK(cudaGetDeviceProperties(&p, o.dev));
	o.device = p.name;
	for (char &c : o.device)
		if (c == ',' || c == '"' || c == '@' || c == '\n')
			c = ' ';
}

// ---- timing ----------------------------------------------------------

static inline double mb_host_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

// Device time of whatever f enqueues on stream s, in ns (CUDA events).
template <class F> static double mb_event_ns(cudaStream_t s, F f)
{
	cudaEvent_t a, b;
	float ms = 0;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaEventRecord(a, s));
	f();
	CK(cudaEventRecord(b, s));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return (double)ms * 1e6;
}

// ---- statistics and rows ----------------------------------------------

struct mb_stats {
	size_t n;
	double median, p05, p95, min, max;
};

// Order statistics with linear interpolation between order statistics
// (the same definition as gsl_stats_quantile_from_sorted_data).
static inline mb_stats mb_summarise(std::vector<double> v)
{
	mb_stats s = { v.size(), 0, 0, 0, 0, 0 };
	if (v.empty())
		return s;
	std::sort(v.begin(), v.end());
	auto q = [&](double f) {
		double idx = f * (double)(v.size() - 1);
		size_t lo = (size_t)idx;
		double d = idx - (double)lo;
		return lo + 1 < v.size() ? (1 - d) * v[lo] + d * v[lo + 1]
					 : v[lo];
	};
	s.median = q(0.5);
	s.p05 = q(0.05);
	s.p95 = q(0.95);
	s.min = v.front();
	s.max = v.back();
	return s;
}

static inline void mb_row(const mb_opts &o, const char *bench,
			  const std::string &variant, const char *param,
			  double pv, const char *metric, const char *unit,
			  const std::vector<double> &vals)
{
	mb_stats s = mb_summarise(vals);
	if (s.n == 0)
		return;
	std::printf("%s,%s,%s,%s,%s,%s,%.17g,%s,%s,%zu,%.9g,%.9g,%.9g,%.9g,"
		    "%.9g\n", MB_SCHEMA, o.device.c_str(), o.mode.c_str(), bench,
		    variant.c_str(), param, pv, metric, unit, s.n, s.median,
		    s.p05, s.p95, s.min, s.max);
	std::fflush(stdout);
}

static inline void mb_row1(const mb_opts &o, const char *bench,
			   const std::string &variant, const char *param,
			   double pv, const char *metric, const char *unit,
			   double v)
{
	mb_row(o, bench, variant, param, pv, metric, unit,
	       std::vector<double>(1, v));
}

// ---- clocks, power, temperature, memory used --------------------------
//
// NVML is loaded at run time (libnvidia-ml.so.1 ships with the driver),
// so building needs no NVML headers.  The prototypes below are NVML's
// documented C API (nvml.h): return 0 is NVML_SUCCESS; clock type 1 is
// NVML_CLOCK_SM, 2 NVML_CLOCK_MEM; temperature sensor 0 is the GPU;
// power is in milliwatts.

struct mb_nvml_mem {
	unsigned long long total, free, used;
};

struct mb_env {
	void *lib = nullptr;
	void *dev = nullptr;
	int (*getClock)(void *, int, unsigned *) = nullptr;
	int (*getPower)(void *, unsigned *) = nullptr;
	int (*getTemp)(void *, int, unsigned *) = nullptr;
	int (*getMem)(void *, mb_nvml_mem *) = nullptr;
	std::string busid;
	bool smi = false;
};

static inline void mb_env_open(mb_env &e, int dev)
{
	char bus[64];
	CK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
	e.busid = bus;
	e.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (e.lib != nullptr) {
		auto init = (int (*)())dlsym(e.lib, "nvmlInit_v2");
		auto byBus = (int (*)(const char *, void **))dlsym(
			e.lib, "nvmlDeviceGetHandleByPciBusId_v2");
		e.getClock = (int (*)(void *, int, unsigned *))dlsym(
			e.lib, "nvmlDeviceGetClockInfo");
		e.getPower = (int (*)(void *, unsigned *))dlsym(
			e.lib, "nvmlDeviceGetPowerUsage");
		e.getTemp = (int (*)(void *, int, unsigned *))dlsym(
			e.lib, "nvmlDeviceGetTemperature");
		e.getMem = (int (*)(void *, mb_nvml_mem *))dlsym(
			e.lib, "nvmlDeviceGetMemoryInfo");
		if (init && byBus && e.getClock && e.getPower && e.getTemp &&
		    e.getMem && init() == 0 && byBus(bus, &e.dev) == 0)
			return;
		dlclose(e.lib);
		e.lib = nullptr;
		e.dev = nullptr;
	}
	e.smi = std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
	if (!e.smi)
		std::fprintf(stderr, "note: neither NVML nor nvidia-smi: clocks "
			     "and power are not logged\n");
}

// One sample: SM MHz, memory MHz, W, degrees C.  false if unavailable.
static inline bool mb_env_sample(mb_env &e, double v[4])
{
	if (e.dev != nullptr) {
		unsigned sm = 0, mem = 0, mw = 0, t = 0;
		if (e.getClock(e.dev, 1, &sm) || e.getClock(e.dev, 2, &mem) ||
		    e.getPower(e.dev, &mw) || e.getTemp(e.dev, 0, &t))
			return false;
		v[0] = sm; v[1] = mem; v[2] = mw / 1000.0; v[3] = t;
		return true;
	}
	if (!e.smi)
		return false;
	std::string cmd = "nvidia-smi --query-gpu=clocks.sm,clocks.mem,"
			  "power.draw,temperature.gpu --format=csv,noheader,"
			  "nounits -i " + e.busid + " 2>/dev/null";
	FILE *p = popen(cmd.c_str(), "r");
	if (p == nullptr)
		return false;
	int got = std::fscanf(p, "%lf , %lf , %lf , %lf", &v[0], &v[1], &v[2],
			      &v[3]);
	pclose(p);
	return got == 4;
}

// Device memory in use (all processes), for the context footprint.
static inline bool mb_env_mem_used(mb_env &e, double *used_bytes)
{
	if (e.dev != nullptr) {
		mb_nvml_mem m;
		if (e.getMem(e.dev, &m) != 0)
			return false;
		*used_bytes = (double)m.used;
		return true;
	}
	if (!e.smi)
		return false;
	std::string cmd = "nvidia-smi --query-gpu=memory.used --format=csv,"
			  "noheader,nounits -i " + e.busid + " 2>/dev/null";
	FILE *p = popen(cmd.c_str(), "r");
	double mib = 0;
	if (p == nullptr)
		return false;
	int got = std::fscanf(p, "%lf", &mib);
	pclose(p);
	*used_bytes = mib * 1048576.0;
	return got == 1;
}

// Samples the environment on a thread for the life of the object and
// writes its distributions (variant "env") when destroyed.
struct mb_env_logger {
	const mb_opts &o;
	const char *bench;
	mb_env env;
	std::atomic<bool> stop{ false };
	std::vector<double> s[4];
	std::thread th;

	mb_env_logger(const mb_opts &opts, const char *b) : o(opts), bench(b)
	{
		mb_env_open(env, o.dev);
		int period_ms = env.dev ? 100 : 500;
		th = std::thread([this, period_ms] {
			while (!stop.load()) {
				double v[4];
				if (mb_env_sample(env, v))
					for (int i = 0; i < 4; i++)
						s[i].push_back(v[i]);
				std::this_thread::sleep_for(
					std::chrono::milliseconds(period_ms));
			}
		});
	}
	~mb_env_logger()
	{
		stop.store(true);
		th.join();
		static const char *m[4] = { "sm_clock", "mem_clock", "power",
					    "temperature" };
		static const char *u[4] = { "MHz", "MHz", "W", "C" };
		for (int i = 0; i < 4; i++)
			mb_row(o, bench, "env", "none", 0, m[i], u[i], s[i]);
		if (env.lib)
			dlclose(env.lib);
	}
};

// ---- device helpers ---------------------------------------------------

// Fills x[i] with small integers from i (exact in float and in double sums).
// A compute-bound kernel: ITERS steps of 8 independent FMA chains per
// thread.  With x = 1, y = 0 each chain keeps its start value, so thread t
// writes 8 (t % 5) + 28: the checksum the callers compare against.
template <int ITERS>
__global__ static void mb_fma8(float *out, float x, float y)
{
	float a[8];
	for (int j = 0; j < 8; j++)
		a[j] = (float)(threadIdx.x % 5 + j);
	for (int i = 0; i < ITERS; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			a[j] = fmaf(a[j], x, y);
	float s = 0;
	for (int j = 0; j < 8; j++)
		s += a[j];
	out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

// A memory-bound kernel: reps passes of the STREAM triad c = a + 3 b.
__global__ static void mb_triad(const float *a, const float *b, float *c,
				size_t n, int reps)
{
	for (int r = 0; r < reps; r++)
		for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
		     i < n; i += (size_t)gridDim.x * blockDim.x)
			c[i] = a[i] + 3 * b[i];
}

__global__ static void mb_fill(float *x, size_t n, unsigned mul)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] = (float)((i * mul) % 7u);
}

// sum of x into *out (double, exact for our small integers).
__global__ static void mb_sum(const float *x, size_t n, double *out)
{
	double acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		acc += x[i];
	for (int off = 16; off > 0; off /= 2)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, acc);
}

// The host value of sum_i ((i * mul) % 7) for i < n.
static inline double mb_fill_sum(size_t n, unsigned mul)
{
	double s = 0;
	for (size_t r = 0; r < 7; r++) {
		size_t cnt = n / 7 + (r < n % 7 ? 1 : 0);
		s += (double)cnt * (double)((r * mul) % 7u);
	}
	return s;
}

static inline double mb_device_sum(const float *x, size_t n, int sms)
{
	double *d, h = 0;
	CK(cudaMalloc(&d, sizeof *d));
	CK(cudaMemset(d, 0, sizeof *d));
	mb_sum<<<sms * 4, 256>>>(x, n, d);
	CKLAUNCH();
	CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	return h;
}

static inline int mb_sms(int dev)
{
	int v = 0;
	CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev));
	return v;
}

#endif
