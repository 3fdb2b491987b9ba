// mps_sweep.cu: one MPS client's speed against its SM share.
//
// run_all.sh starts the MPS control daemon and runs this program once per
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE in 10, 20, .. 100 (read here from the
// environment; 100 when unset).  It times two kernels, each over a grid of
// 8 waves of the full device so that a smaller share stretches the time:
//   compute: FMA chains (as compute_peak's fp32_fma);
//   memory:  triad over 1 GiB.
// Rows: mode mps, variant compute|memory, param percent, metric time (ns).
// `colosim calibrate` fits speed(p) = t(100) / t(p) = min(1, p / sat).
// Checksums: the FMA chains return their start value (x = 1, y = 0 given
// at run time); the triad output is summed and compared with the host.
#include "mb_common.cuh"


int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	if (o.mode == "exclusive")
		o.mode = "mps";
	const char *pct = std::getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	double p = pct && *pct ? std::atof(pct) : 100.0;
	mb_device(o);
	mb_env_logger env(o, "mps_sweep");
	int sms = mb_sms(o.dev), per_sm = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mb_fma8<4096>, 256,
							 0));
	int grid = sms * std::max(1, per_sm) * 8;
	float *out;
	CK(cudaMalloc(&out, (size_t)grid * 256 * sizeof(float)));
	auto fma = [&] { mb_fma8<4096><<<grid, 256>>>(out, 1.0f, 0.0f); };
	fma();
	CKLAUNCH();
	std::vector<double> t;
	for (int i = 0; i < o.trials; i++)
		t.push_back(mb_event_ns(0, fma));
	mb_row(o, "mps_sweep", "compute", "percent", p, "time", "ns", t);
	float h[256];
	CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	for (int i = 0; i < 256; i++)
		if (h[i] != (float)(8 * (i % 5) + 28))
			mb_die("mps_sweep", "FMA checksum");
	CK(cudaFree(out));

	size_t n = ((size_t)1 << 30) / 4;
	float *a, *b, *c;
	CK(cudaMalloc(&a, n * 4));
	CK(cudaMalloc(&b, n * 4));
	CK(cudaMalloc(&c, n * 4));
	mb_fill<<<sms * 4, 256>>>(a, n, 1);
	mb_fill<<<sms * 4, 256>>>(b, n, 2);
	auto triad = [&] { mb_triad<<<grid, 256>>>(a, b, c, n, 1); };
	triad();
	CKLAUNCH();
	t.clear();
	for (int i = 0; i < o.trials; i++)
		t.push_back(mb_event_ns(0, triad));
	mb_row(o, "mps_sweep", "memory", "percent", p, "time", "ns", t);
	if (mb_device_sum(c, n, sms) !=
	    mb_fill_sum(n, 1) + 3 * mb_fill_sum(n, 2))
		mb_die("mps_sweep", "triad checksum");
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaFree(c));
	return 0;
}
