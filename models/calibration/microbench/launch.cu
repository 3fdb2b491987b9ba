// launch.cu: kernel launch overhead and empty-kernel round trip.
//
// - launch: host time of 1000 back-to-back asynchronous launches of an
//   empty kernel (1 block, 32 threads) divided by 1000; the queue is
//   drained (synchronised) outside the timed region.
// - roundtrip: host time of one launch plus cudaStreamSynchronize, the
//   mean of 100 per trial.
// - device_gap: CUDA-event time of 1000 back-to-back empty kernels / 1000
//   (the device-side cost per kernel when the queue is full).
// Rows: variant empty, param none, metric launch|roundtrip|device_gap, ns.
// Checksum: every launch passes flag = 0 except those of one last batch
// (flag = 1), each of which adds 1 to a counter: the count must match,
// proving the launches ran (the kernel is otherwise empty).
#include "mb_common.cuh"

__global__ static void k_empty(int *counter, int flag)
{
	if (flag && threadIdx.x == 0)
		atomicAdd(counter, 1);
}

int main(int argc, char **argv)
{
	std::vector<std::string> rest;
	mb_opts o = mb_parse(argc, argv, rest);
	mb_device(o);
	mb_env_logger env(o, "launch");
	int *counter;
	CK(cudaMalloc(&counter, sizeof(int)));
	CK(cudaMemset(counter, 0, sizeof(int)));
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (int i = 0; i < 100; i++)   // warm-up: module load, queues
		k_empty<<<1, 32, 0, s>>>(counter, 0);
	CKLAUNCH();
	CK(cudaStreamSynchronize(s));
	enum { BATCH = 1000, RT = 100 };
	std::vector<double> launch, rt, gap;
	for (int t = 0; t < o.trials * 3; t++) {
		double t0 = mb_host_ns();
		for (int i = 0; i < BATCH; i++)
			k_empty<<<1, 32, 0, s>>>(counter, 0);
		double t1 = mb_host_ns();
		CK(cudaStreamSynchronize(s));
		launch.push_back((t1 - t0) / BATCH);
		t0 = mb_host_ns();
		for (int i = 0; i < RT; i++) {
			k_empty<<<1, 32, 0, s>>>(counter, 0);
			CK(cudaStreamSynchronize(s));
		}
		rt.push_back((mb_host_ns() - t0) / RT);
		gap.push_back(mb_event_ns(s, [&] {
			for (int i = 0; i < BATCH; i++)
				k_empty<<<1, 32, 0, s>>>(counter, 0);
		}) / BATCH);
	}
	CKLAUNCH();
	for (int i = 0; i < BATCH; i++)
		k_empty<<<1, 32, 0, s>>>(counter, 1);
	CKLAUNCH();
	int h = 0;
	CK(cudaMemcpyAsync(&h, counter, sizeof h, cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	if (h != BATCH)
		mb_die("launch", "launch counter checksum");
	mb_row(o, "launch", "empty", "none", 0, "launch", "ns", launch);
	mb_row(o, "launch", "empty", "none", 0, "roundtrip", "ns", rt);
	mb_row(o, "launch", "empty", "none", 0, "device_gap", "ns", gap);
	CK(cudaStreamDestroy(s));
	CK(cudaFree(counter));
	return 0;
}
