// hbm_stream.cu: device-memory bandwidth.
//
// 1. Working-set sweep: copy (b = a), triad (c = a + 3 b) and read-only
//    (sum a) kernels, full grid, over working sets from 1 MiB to 4 GiB
//    (all arrays together; capped at 80% of free memory).  Small sets sit
//    in L2 (the plateau above HBM), large ones stream from HBM.  Each trial
//    repeats the kernel until it has moved >= 256 MiB, so that small sets
//    are not launch-bound.  Rows: variant copy|triad|read, param bytes,
//    metric bandwidth (bytes_per_s, bytes read + written / time).
// 2. SM sweep: the copy kernel over 512 MiB with k blocks of 1024 threads,
//    each forced alone on its SM by a dynamic shared-memory request above
//    half the SM's capacity, k = 1 .. all SMs.  Rows: param sms, metric
//    bandwidth; a block records %smid so a run that did not spread over k
//    distinct SMs is reported on stderr.
// Checksums: after each variant the output is summed on the device and
// compared with the value computed on the host.
#include "mb_common.cuh"

__device__ static unsigned smid()
{
	unsigned r;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
	return r;
}

__global__ static void k_copy(const float4 *__restrict__ a,
			      float4 *__restrict__ b, size_t n4,
			      unsigned *sm_seen)
{
	extern __shared__ char pad[];   // only there to limit blocks per SM
	if (sm_seen != nullptr && threadIdx.x == 0) {
		pad[0] = 0;
		sm_seen[blockIdx.x] = smid();
	}
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n4; i += 4 * stride) {   // 4 loads in flight
		float4 x0 = a[i], x1 = a[i + stride], x2 = a[i + 2 * stride],
		       x3 = a[i + 3 * stride];
		b[i] = x0;
		b[i + stride] = x1;
		b[i + 2 * stride] = x2;
		b[i + 3 * stride] = x3;
	}
	for (; i < n4; i += stride)
		b[i] = a[i];
}

__global__ static void k_triad(const float4 *__restrict__ a,
			       const float4 *__restrict__ b,
			       float4 *__restrict__ c, size_t n4)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
	     i += (size_t)gridDim.x * blockDim.x) {
		float4 x = a[i], y = b[i];
		c[i] = make_float4(x.x + 3 * y.x, x.y + 3 * y.y, x.z + 3 * y.z,
				   x.w + 3 * y.w);
	}
}

__global__ static void k_read(const float4 *__restrict__ a, size_t n4,
			      float *out)
{
	float acc = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
	     i += (size_t)gridDim.x * blockDim.x) {
		float4 x = a[i];
		acc += x.x + x.y + x.z + x.w;
	}
	// Stored only if impossible: keeps the loads without a reduction.
	if (acc == -1.0f)
		*out = acc;
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env_logger env(o, "hbm_stream");
	int sms = mb_sms(o.dev);
	size_t freeb, totalb;
	CK(cudaMemGetInfo(&freeb, &totalb));
	size_t max_ws = std::min<size_t>((size_t)4 << 30, freeb / 10 * 8);
	// Three arrays of max_ws / 3 cover every variant.
	size_t cap = max_ws / 3 / 16 * 16;
	float *a, *b, *c, *dummy;
	CK(cudaMalloc(&a, cap));
	CK(cudaMalloc(&b, cap));
	CK(cudaMalloc(&c, cap));
	CK(cudaMalloc(&dummy, sizeof(float)));
	mb_fill<<<sms * 4, 256>>>(a, cap / 4, 1);
	mb_fill<<<sms * 4, 256>>>(b, cap / 4, 3);
	CKLAUNCH();
	CK(cudaDeviceSynchronize());
	int grid = sms * 8, block = 256;

	// 1. working-set sweep
	const char *vars[3] = { "copy", "triad", "read" };
	for (int v = 0; v < 3; v++) {
		int arrays = v == 0 ? 2 : v == 1 ? 3 : 1;
		for (size_t ws = (size_t)1 << 20; ws <= max_ws; ws *= 2) {
			size_t per = ws / arrays / 16 * 16, n4 = per / 16;
			if (per > cap || n4 == 0)
				break;
			double moved = (double)per * arrays;
			int reps = (int)std::max(1.0, 268435456.0 / moved);
			auto run = [&] {
				for (int r = 0; r < reps; r++) {
					if (v == 0)
						k_copy<<<grid, block>>>(
							(float4 *)a, (float4 *)b,
							n4, nullptr);
					else if (v == 1)
						k_triad<<<grid, block>>>(
							(float4 *)a, (float4 *)b,
							(float4 *)c, n4);
					else
						k_read<<<grid, block>>>(
							(float4 *)a, n4, dummy);
				}
			};
			run();   // warm-up
			CKLAUNCH();
			std::vector<double> bw;
			for (int t = 0; t < o.trials; t++)
				bw.push_back(moved * reps /
					     (mb_event_ns(0, run) * 1e-9));
			CKLAUNCH();
			mb_row(o, "hbm_stream", vars[v], "bytes", (double)ws,
			       "bandwidth", "bytes_per_s", bw);
			if (v == 0) {
				double want = mb_fill_sum(per / 4, 1);
				if (mb_device_sum(b, per / 4, sms) != want)
					mb_die("hbm_stream", "copy checksum");
			} else if (v == 1) {
				double want = mb_fill_sum(per / 4, 1) +
					      3 * mb_fill_sum(per / 4, 3);
				if (mb_device_sum(c, per / 4, sms) != want)
					mb_die("hbm_stream", "triad checksum");
			}
		}
	}

	// 2. bandwidth against the number of SMs
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, o.dev));
	int smem = (int)p.sharedMemPerMultiprocessor / 2 + 1024;
	if (smem > (int)p.sharedMemPerBlockOptin)
		smem = (int)p.sharedMemPerBlockOptin;
	CK(cudaFuncSetAttribute(k_copy,
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				smem));
	size_t per = std::min<size_t>(cap, (size_t)512 << 20) / 16 * 16;
	unsigned *seen;
	CK(cudaMallocManaged(&seen, sizeof(unsigned) * (size_t)sms));
	std::vector<int> ks;
	for (int k = 1; k < 16 && k < sms; k *= 2)
		ks.push_back(k);
	for (int k = 16; k < sms; k += o.quick ? 32 : 8)
		ks.push_back(k);
	ks.push_back(sms);
	for (int k : ks) {
		auto run = [&] {
			k_copy<<<k, 1024, smem>>>((float4 *)a, (float4 *)b,
						  per / 16, seen);
		};
		run();
		CKLAUNCH();
		CK(cudaDeviceSynchronize());
		std::vector<unsigned> ids(seen, seen + k);
		std::sort(ids.begin(), ids.end());
		long distinct = std::unique(ids.begin(), ids.end()) - ids.begin();
		if (distinct != k)
			std::fprintf(stderr, "hbm_stream: %d blocks ran on %ld "
				     "SMs\n", k, distinct);
		std::vector<double> bw;
		for (int t = 0; t < o.trials; t++)
			bw.push_back(2.0 * (double)per /
				     (mb_event_ns(0, run) * 1e-9));
		mb_row(o, "hbm_stream", "copy", "sms", k, "bandwidth",
		       "bytes_per_s", bw);
	}
	if (mb_device_sum(b, per / 4, sms) != mb_fill_sum(per / 4, 1))
		mb_die("hbm_stream", "SM-sweep copy checksum");
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	CK(cudaFree(dummy));
	CK(cudaFree(seen));
	return 0;
}
