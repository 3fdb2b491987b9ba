// alloc.cu: allocation latency against size (4 KiB to 1 GiB, x4 steps).
//
// Host-clock time of each call (these are host API calls; an event would
// miss the host side): cudaMalloc, cudaFree, cudaMallocAsync and
// cudaFreeAsync (each followed by cudaStreamSynchronize, with the default
// pool's release threshold at 0 so that every free really returns the
// memory), cudaHostAlloc and cudaFreeHost.  Rows: variant = API name,
// param bytes, metric time (ns).
// Checksum: every allocation is written (one byte per 64 KiB, device side
// with cudaMemsetAsync) and read back before it is freed.
#include "mb_common.cuh"

static void touch_dev(unsigned char *p, size_t b, cudaStream_t s)
{
	unsigned char h = 0;
	for (size_t off = 0; off < b; off += 65536)
		CK(cudaMemsetAsync(p + off, 0x5a, 1, s));
	CK(cudaMemcpyAsync(&h, p + (b - 1) / 65536 * 65536, 1,
			   cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	if (h != 0x5a)
		mb_die("alloc", "device allocation checksum");
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env_logger env(o, "alloc");
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	cudaMemPool_t pool;
	CK(cudaDeviceGetDefaultMemPool(&pool, o.dev));
	unsigned long long zero = 0;
	CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
				   &zero));
	CK(cudaFree(nullptr));   // the context exists before timing
	size_t maxb = o.quick ? (size_t)64 << 20 : (size_t)1 << 30;
	for (size_t b = (size_t)4 << 10; b <= maxb; b *= 4) {
		std::vector<double> tm, tf, tma, tfa, tha, thf;
		for (int t = 0; t < o.trials + 1; t++) {   // trial 0: warm-up
			unsigned char *p;
			double t0 = mb_host_ns();
			CK(cudaMalloc(&p, b));
			double t1 = mb_host_ns();
			touch_dev(p, b, s);
			double t2 = mb_host_ns();
			CK(cudaFree(p));
			double t3 = mb_host_ns();
			if (t > 0) {
				tm.push_back(t1 - t0);
				tf.push_back(t3 - t2);
			}
			t0 = mb_host_ns();
			CK(cudaMallocAsync(&p, b, s));
			CK(cudaStreamSynchronize(s));
			t1 = mb_host_ns();
			touch_dev(p, b, s);
			t2 = mb_host_ns();
			CK(cudaFreeAsync(p, s));
			CK(cudaStreamSynchronize(s));
			t3 = mb_host_ns();
			if (t > 0) {
				tma.push_back(t1 - t0);
				tfa.push_back(t3 - t2);
			}
			t0 = mb_host_ns();
			CK(cudaHostAlloc(&p, b, cudaHostAllocDefault));
			t1 = mb_host_ns();
			p[0] = 7;
			p[b - 1] = 9;
			if (p[0] + p[b - 1] != 16)
				mb_die("alloc", "host allocation checksum");
			t2 = mb_host_ns();
			CK(cudaFreeHost(p));
			t3 = mb_host_ns();
			if (t > 0) {
				tha.push_back(t1 - t0);
				thf.push_back(t3 - t2);
			}
		}
		double bd = (double)b;
		mb_row(o, "alloc", "cudaMalloc", "bytes", bd, "time", "ns", tm);
		mb_row(o, "alloc", "cudaFree", "bytes", bd, "time", "ns", tf);
		mb_row(o, "alloc", "cudaMallocAsync", "bytes", bd, "time", "ns",
		       tma);
		mb_row(o, "alloc", "cudaFreeAsync", "bytes", bd, "time", "ns",
		       tfa);
		mb_row(o, "alloc", "cudaHostAlloc", "bytes", bd, "time", "ns",
		       tha);
		mb_row(o, "alloc", "cudaFreeHost", "bytes", bd, "time", "ns",
		       thf);
	}
	CK(cudaStreamDestroy(s));
	return 0;
}
