// memcpy_sweep.cu: copy time against size for H2D and D2H from pinned
// (cudaHostAlloc) and pageable (malloc, touched first) host memory, and
// D2D, from 4 KiB to 1 GiB by powers of two.
//
// Each trial times one cudaMemcpyAsync between CUDA events on one stream,
// after one untimed warm-up copy of the same size.  Sizes below 1 MiB run
// 5x the trials (they are cheap and noisier).  Rows: variant
// h2d_pinned|d2h_pinned|h2d_pageable|d2h_pageable|d2d, param bytes, metric
// time (ns) and bandwidth (bytes_per_s).  `colosim calibrate` fits
// t = latency + bytes / bandwidth per variant.
// Checksum: a 1 GiB pattern goes host -> device -> device -> host through
// the same buffers and must come back byte for byte (sampled every 4 KiB).
#include "mb_common.cuh"

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env_logger env(o, "memcpy_sweep");
	size_t maxb = o.quick ? (size_t)64 << 20 : (size_t)1 << 30;
	size_t freeb, totalb;
	CK(cudaMemGetInfo(&freeb, &totalb));
	while (maxb > ((size_t)4 << 10) && 2 * maxb > freeb / 2)
		maxb /= 2;
	unsigned char *pin, *dev_a, *dev_b;
	unsigned char *page = (unsigned char *)std::malloc(maxb);
	if (page == nullptr)
		mb_die("memcpy_sweep", "cannot allocate pageable host memory");
	std::memset(page, 1, maxb);   // touched: no first-touch faults
	CK(cudaHostAlloc(&pin, maxb, cudaHostAllocDefault));
	std::memset(pin, 2, maxb);
	CK(cudaMalloc(&dev_a, maxb));
	CK(cudaMalloc(&dev_b, maxb));
	CK(cudaMemset(dev_a, 3, maxb));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	struct kind {
		const char *name;
		void *dst;
		const void *src;
		cudaMemcpyKind k;
	} kinds[5] = {
		{ "h2d_pinned", dev_a, pin, cudaMemcpyHostToDevice },
		{ "d2h_pinned", pin, dev_a, cudaMemcpyDeviceToHost },
		{ "h2d_pageable", dev_a, page, cudaMemcpyHostToDevice },
		{ "d2h_pageable", page, dev_a, cudaMemcpyDeviceToHost },
		{ "d2d", dev_b, dev_a, cudaMemcpyDeviceToDevice },
	};
	for (const kind &k : kinds) {
		for (size_t b = (size_t)4 << 10; b <= maxb; b *= 2) {
			auto run = [&] {
				CK(cudaMemcpyAsync(k.dst, k.src, b, k.k, s));
			};
			mb_event_ns(s, run);   // warm-up
			int trials = b < ((size_t)1 << 20) ? 5 * o.trials : o.trials;
			std::vector<double> t, bw;
			for (int i = 0; i < trials; i++) {
				double ns = mb_event_ns(s, run);
				t.push_back(ns);
				bw.push_back((double)b / (ns * 1e-9));
			}
			mb_row(o, "memcpy_sweep", k.name, "bytes", (double)b,
			       "time", "ns", t);
			mb_row(o, "memcpy_sweep", k.name, "bytes", (double)b,
			       "bandwidth", "bytes_per_s", bw);
		}
	}
	// Round trip checksum.
	for (size_t i = 0; i < maxb; i++)
		pin[i] = (unsigned char)(i * 131u >> 3);
	CK(cudaMemcpy(dev_a, pin, maxb, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dev_b, dev_a, maxb, cudaMemcpyDeviceToDevice));
	CK(cudaMemcpy(page, dev_b, maxb, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < maxb; i += 4093)
		if (page[i] != (unsigned char)(i * 131u >> 3))
			mb_die("memcpy_sweep", "round-trip checksum");
	CK(cudaStreamDestroy(s));
	CK(cudaFreeHost(pin));
	CK(cudaFree(dev_a));
	CK(cudaFree(dev_b));
	std::free(page);
	return 0;
}
