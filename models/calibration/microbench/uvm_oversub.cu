// uvm_oversub.cu: unified (managed) memory under oversubscription.
//
// To keep the run short and the host memory need small, the benchmark
// first takes all but F bytes of free device memory with cudaMalloc (the
// ballast; F = --free-bytes, default 4 GiB), then allocates S = r F of
// managed memory for r in 0.5, 0.75, 1 and, only with --oversub, 1.25 ..
// 2.0, writes it once from the device (first touch), and times passes
// over it:
//   seq:    a grid-stride read-modify-write of every element;
//   random: the same work in 64 KiB chunks visited in a scrambled order.
// WARNING: asking for more managed memory than the device has free can
// hang the GPU on some machines (seen on this project's lent machines);
// oversubscription is therefore opt-in (--oversub; run_all.sh
// --uvm-oversub).
// Rows: variant seq|random, param excess_bytes (S - F, negative when it
// fits), metric time (ns); and param ratio, metric managed_bytes.
// `colosim calibrate` fits t = a + excess / rate over excess >= 0.
// Checksum: each pass adds 1 to every element; a sample must equal the
// number of passes at the end.
#include "mb_common.cuh"

__global__ static void k_seq(unsigned *x, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		x[i] += 1;
}

// Chunk c (16384 words) of nchunks, visited as (c * P) mod nchunks with P
// prime and not a divisor of nchunks: a fixed scrambled permutation.
__global__ static void k_random(unsigned *x, size_t n, size_t nchunks,
				size_t prime)
{
	const size_t W = 16384;
	for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
		size_t base = (c * prime) % nchunks * W;
		for (size_t j = threadIdx.x; j < W && base + j < n;
		     j += blockDim.x)
			x[base + j] += 1;
	}
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	double free_target = 4.0 * (1 << 30);
	bool oversub = false;
	for (size_t i = 0; i < rest.size(); i++) {
		if (rest[i] == "--free-bytes" && i + 1 < rest.size())
			free_target = std::atof(rest[++i].c_str());
		else if (rest[i] == "--oversub")
			oversub = true;
	}
	mb_device(o);
	int managed = 0;
	CK(cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess,
				  o.dev));
	if (!managed) {
		std::fprintf(stderr, "uvm_oversub: the device cannot page "
			     "managed memory on demand; skipped\n");
		return 0;
	}
	mb_env_logger env(o, "uvm_oversub");
	int sms = mb_sms(o.dev);
	size_t freeb, totalb;
	CK(cudaMemGetInfo(&freeb, &totalb));
	std::vector<void *> ballast;
	const size_t chunk = (size_t)1 << 30;
	while (freeb > (size_t)free_target + chunk) {
		void *p;
		if (cudaMalloc(&p, std::min(chunk, freeb - (size_t)free_target))
		    != cudaSuccess)
			break;
		ballast.push_back(p);
		CK(cudaMemGetInfo(&freeb, &totalb));
	}
	(void)cudaGetLastError();
	CK(cudaMemGetInfo(&freeb, &totalb));
	std::vector<double> ratios = { 0.5, 0.75, 1.0 };
	if (oversub)
		for (double r : { 1.25, 1.5, 1.75, 2.0 })
			ratios.push_back(r);
	for (double r : ratios) {
		size_t bytes = (size_t)(r * (double)freeb) / (2u << 20) *
			       (2u << 20);
		size_t n = bytes / 4, nchunks = (n + 16383) / 16384;
		size_t prime = 1000003;
		while (nchunks % prime == 0)
			prime += 2;
		unsigned *x;
		CK(cudaMallocManaged(&x, bytes));
		CK(cudaMemset(x, 0, bytes));   // first touch on the device
		CK(cudaDeviceSynchronize());
		double excess = (double)bytes - (double)freeb;
		int passes = 0;
		const char *names[2] = { "seq", "random" };
		for (int v = 0; v < 2; v++) {
			std::vector<double> t;
			for (int i = 0; i < o.trials + 1; i++) {
				double ns = mb_event_ns(0, [&] {
					if (v == 0)
						k_seq<<<sms * 8, 256>>>(x, n);
					else
						k_random<<<sms * 8, 256>>>(
							x, n, nchunks, prime);
				});
				CKLAUNCH();
				passes++;
				if (i > 0)   // pass 0: warm-up
					t.push_back(ns);
			}
			mb_row(o, "uvm_oversub", names[v], "excess_bytes",
			       excess, "time", "ns", t);
			mb_row1(o, "uvm_oversub", names[v], "ratio", r,
				"managed_bytes", "bytes", (double)bytes);
		}
		CK(cudaDeviceSynchronize());
		for (size_t i = 0; i < n; i += n / 97 + 1)
			if (x[i] != (unsigned)passes)
				mb_die("uvm_oversub", "pass-count checksum");
		CK(cudaFree(x));
	}
	for (void *p : ballast)
		CK(cudaFree(p));
	return 0;
}
