// compute_peak.cu: arithmetic throughput.
//
// - fp32_fma: each thread runs 8 independent chains a = a * x + y (fmaf),
//   ITER steps each, over a full-occupancy grid; 2 flops per FMA.
// - fp16_fma: the same with __hfma2 on half2 (4 flops per instruction).
//   x = 1 and y = 0 are kernel arguments, so the compiler cannot fold the
//   chains, and the exact result (the initial value) is the checksum.
// - gemm_fp16 / gemm_fp32 (when built with cuBLAS): cublasGemmEx, FP16
//   inputs with FP32 accumulation and plain FP32 (no TF32), n x n x n for
//   n = 4096 and 8192, inputs pseudo-random in [-1, 1) (never zeros), a few
//   output elements checked against a double-precision dot product on the
//   host.  2 n^3 flops per GEMM.
// Rows: variant, param none (FMA) or n (GEMM), metric rate (flops_per_s).
#include "mb_common.cuh"

#include <cuda_fp16.h>
#ifdef MB_HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#define ITER 16384

__global__ static void k_fp32(float *out, float x, float y)
{
	float a[8];
	for (int j = 0; j < 8; j++)
		a[j] = (float)(threadIdx.x % 7 + j);
	for (int i = 0; i < ITER; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			a[j] = fmaf(a[j], x, y);
	float s = 0;
	for (int j = 0; j < 8; j++)
		s += a[j];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ static void k_fp16(float *out, __half2 x, __half2 y)
{
	__half2 a[8];
	for (int j = 0; j < 8; j++)
		a[j] = __float2half2_rn((float)(threadIdx.x % 7 + j));
	for (int i = 0; i < ITER; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			a[j] = __hfma2(a[j], x, y);
	float s = 0;
	for (int j = 0; j < 8; j++)
		s += __low2float(a[j]) + __high2float(a[j]);
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static void check_fma(const float *d, size_t n, double per_lane,
		      const char *what)
{
	std::vector<float> h(n);
	CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i += 97) {
		double want = 0;
		for (int j = 0; j < 8; j++)
			want += per_lane * (double)((i % 256) % 7 + (size_t)j);
		if ((double)h[i] != want)
			mb_die("compute_peak", what);
	}
}

#ifdef MB_HAVE_CUBLAS
__device__ static float hashf(size_t i, unsigned seed)
{
	unsigned h = (unsigned)i * 2654435761u ^ seed * 2246822519u;
	h ^= h >> 15;
	h *= 2246822519u;
	h ^= h >> 13;
	// Multiples of 2^-10 in [-1, 1): exact in half precision too.
	return (float)(h & 0x7ff) / 1024.0f - 1.0f;
}

__global__ static void k_init(float *f, __half *hh, size_t n, unsigned seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float v = hashf(i, seed);
		f[i] = v;
		hh[i] = __float2half_rn(v);   // exact (see hashf)
	}
}

#define CB(call)                                                            \
	do {                                                                \
		if ((call) != CUBLAS_STATUS_SUCCESS)                        \
			mb_die("compute_peak", #call " failed");            \
	} while (0)

static void gemm(const mb_opts &o, int sms, cublasHandle_t hdl, int n,
		 bool half_in)
{
	size_t nn = (size_t)n * n;
	float *a, *b, *c;
	__half *ah, *bh;
	CK(cudaMalloc(&a, nn * 4));
	CK(cudaMalloc(&b, nn * 4));
	CK(cudaMalloc(&c, nn * 4));
	CK(cudaMalloc(&ah, nn * 2));
	CK(cudaMalloc(&bh, nn * 2));
	k_init<<<sms * 4, 256>>>(a, ah, nn, 1);
	k_init<<<sms * 4, 256>>>(b, bh, nn, 2);
	CKLAUNCH();
	const float one = 1, zero = 0;
	auto run = [&] {
		if (half_in)
			CB(cublasGemmEx(hdl, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
					&one, ah, CUDA_R_16F, n, bh, CUDA_R_16F,
					n, &zero, c, CUDA_R_32F, n,
					CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
		else
			CB(cublasGemmEx(hdl, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
					&one, a, CUDA_R_32F, n, b, CUDA_R_32F,
					n, &zero, c, CUDA_R_32F, n,
					CUBLAS_COMPUTE_32F_PEDANTIC,
					CUBLAS_GEMM_DEFAULT));
	};
	run();
	run();
	CK(cudaDeviceSynchronize());
	std::vector<double> rate;
	for (int t = 0; t < o.trials; t++)
		rate.push_back(2.0 * n * (double)n * n /
			       (mb_event_ns(0, run) * 1e-9));
	// Check C(i, j) = sum_k A(i, k) B(k, j) (column-major) at a few places.
	std::vector<float> ha(nn), hb(nn), hc(nn);
	CK(cudaMemcpy(ha.data(), a, nn * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hb.data(), b, nn * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hc.data(), c, nn * 4, cudaMemcpyDeviceToHost));
	for (int s = 0; s < 8; s++) {
		int i = (s * 977) % n, j = (s * 613 + 5) % n;
		double ref = 0, mag = 0;
		for (int k = 0; k < n; k++) {
			double p = (double)ha[(size_t)k * n + i] *
				   hb[(size_t)j * n + k];
			ref += p;
			mag += std::fabs(p);
		}
		double got = hc[(size_t)j * n + i];
		if (std::fabs(got - ref) > 1e-4 * mag + 1e-6)
			mb_die("compute_peak", "GEMM result differs from the "
			       "host reference");
	}
	mb_row(o, "compute_peak", half_in ? "gemm_fp16" : "gemm_fp32", "n", n,
	       "rate", "flops_per_s", rate);
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	CK(cudaFree(ah));
	CK(cudaFree(bh));
}
#endif

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env_logger env(o, "compute_peak");
	int sms = mb_sms(o.dev), per_sm = 0, block = 256;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_fp32,
							 block, 0));
	int grid = sms * std::max(1, per_sm);
	size_t nthreads = (size_t)grid * block;
	float *out;
	CK(cudaMalloc(&out, nthreads * sizeof(float)));

	auto f32 = [&] { k_fp32<<<grid, block>>>(out, 1.0f, 0.0f); };
	f32();
	CKLAUNCH();
	std::vector<double> rate;
	for (int t = 0; t < o.trials; t++)
		rate.push_back(2.0 * 8 * ITER * (double)nthreads /
			       (mb_event_ns(0, f32) * 1e-9));
	check_fma(out, nthreads, 1.0, "fp32 FMA checksum");
	mb_row(o, "compute_peak", "fp32_fma", "none", 0, "rate", "flops_per_s",
	       rate);

	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_fp16,
							 block, 0));
	grid = sms * std::max(1, per_sm);
	nthreads = (size_t)grid * block;
	CK(cudaFree(out));
	CK(cudaMalloc(&out, nthreads * sizeof(float)));
	__half2 hx = __float2half2_rn(1.0f), hy = __float2half2_rn(0.0f);
	auto f16 = [&] { k_fp16<<<grid, block>>>(out, hx, hy); };
	f16();
	CKLAUNCH();
	rate.clear();
	for (int t = 0; t < o.trials; t++)
		rate.push_back(2.0 * 2 * 8 * ITER * (double)nthreads /
			       (mb_event_ns(0, f16) * 1e-9));
	check_fma(out, nthreads, 2.0, "fp16 FMA checksum");
	mb_row(o, "compute_peak", "fp16_fma", "none", 0, "rate", "flops_per_s",
	       rate);
	CK(cudaFree(out));

#ifdef MB_HAVE_CUBLAS
	cublasHandle_t hdl;
	CB(cublasCreate(&hdl));
	for (int n : { 4096, 8192 }) {
		gemm(o, sms, hdl, n, true);
		gemm(o, sms, hdl, n, false);
	}
	CB(cublasDestroy(hdl));
#else
	std::fprintf(stderr, "compute_peak: built without cuBLAS: no GEMM\n");
#endif
	return 0;
}
