// capacity.cu: device memory capacity and the CUDA context.
//
// - device total_bytes / free_bytes: cudaMemGetInfo once the context exists.
// - context ctx_create: host time of the first runtime call (cudaFree(0))
//   after cudaDeviceReset destroyed the primary context, per trial.
// - context ctx_bytes: device memory in use (NVML, else nvidia-smi) after
//   the context is created minus before, per trial; skipped (with a note)
//   when neither is available.  Other processes must be idle meanwhile.
// - malloc largest: the largest single cudaMalloc that succeeds, found by
//   bisection to 2 MiB; the block is then written and read back
//   (checksum) so that the allocation is real.
// Rows: variant device|context|malloc, param none, metric as above.
#include "mb_common.cuh"

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env env;
	mb_env_open(env, o.dev);
	std::vector<double> create, ctxb;
	for (int t = 0; t < o.trials + 1; t++) {
		CK(cudaDeviceReset());
		double before = 0, after = 0;
		bool mem = mb_env_mem_used(env, &before);
		double t0 = mb_host_ns();
		CK(cudaFree(nullptr));
		double t1 = mb_host_ns();
		mem = mem && mb_env_mem_used(env, &after);
		if (t == 0)
			continue;   // warm-up: driver and module loading
		create.push_back(t1 - t0);
		if (mem)
			ctxb.push_back(after - before);
	}
	if (ctxb.empty())
		std::fprintf(stderr, "capacity: no NVML or nvidia-smi: "
			     "ctx_bytes not measured\n");
	mb_row(o, "capacity", "context", "none", 0, "ctx_create", "ns", create);
	mb_row(o, "capacity", "context", "none", 0, "ctx_bytes", "bytes", ctxb);

	size_t freeb, totalb;
	CK(cudaMemGetInfo(&freeb, &totalb));
	mb_row1(o, "capacity", "device", "none", 0, "total_bytes", "bytes",
		(double)totalb);
	mb_row1(o, "capacity", "device", "none", 0, "free_bytes", "bytes",
		(double)freeb);
	const size_t g = (size_t)2 << 20;
	size_t lo = 0, hi = freeb / g + 1;   // lo fits, hi does not
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		void *p = nullptr;
		if (cudaMalloc(&p, mid * g) == cudaSuccess) {
			CK(cudaFree(p));
			lo = mid;
		} else {
			(void)cudaGetLastError();   // clear the OOM error
			hi = mid;
		}
	}
	unsigned char *p, h = 0;
	CK(cudaMalloc(&p, lo * g));
	CK(cudaMemset(p + lo * g - 1, 0x3c, 1));
	CK(cudaMemcpy(&h, p + lo * g - 1, 1, cudaMemcpyDeviceToHost));
	if (h != 0x3c)
		mb_die("capacity", "largest allocation checksum");
	CK(cudaFree(p));
	mb_row1(o, "capacity", "malloc", "none", 0, "largest", "bytes",
		(double)(lo * g));
	return 0;
}
