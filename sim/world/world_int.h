/*
** world_int.h: the world's private state, shared by sim/world/world.c (events and
** life cycle), sim/world/world_act.c (the view and the policy actions),
** sim/world/service.c (inference services) and sim/world/world_res.c (metrics).
** Nothing outside sim/ includes it.
*/
#ifndef COLOSIM_SIM_WORLD_INT_H
#define COLOSIM_SIM_WORLD_INT_H

#include "sim/world/world.h"

/* Downsampled utilisation series: row k holds the cluster HBM and SM
** fractions, then (per_gpu) each GPU's pair. */
struct world_series {
	int cap, n, width, per_gpu;
	sim_time dt;
	sim_time *t;
	double *v;
};

struct world {
	struct sim sim;
	const struct cluster_spec *cl;
	struct gpu *gpus;
	int ngpus;
	struct world_job *jobs;
	int njobs, capjobs;
	int *pending;                 /* pending job indices, arrival order */
	int npending, cappending;
	struct trace_reader *tr;
	struct trace_job next_tj;     /* the row read ahead */
	int trace_done;
	char trace_path[512];
	const struct pol_ops *pol;
	void *pol_state;
	int pol_inited;
	uint64_t seed;
	sim_time horizon;
	uint64_t max_events;
	enum sim_stop_reason stop_reason;
	int sched_pending;
	int live_jobs;                /* arrived, not done or failed */
	int open_svcs;                /* services whose arrivals are open
					 (sim/world/service.c, svc_close_open) */
	double nic_bytes_per_s;       /* inter-node bandwidth per GPU */
	struct sim_sample jct_s, queue_s, slowdown, lat_ms;
	uint64_t req_total, req_served, req_slo_ok;
	uint64_t req_queued;          /* in backlogs and replica queues now */
	uint64_t req_rejected;        /* arrivals refused: queues full */
	uint64_t max_queued;          /* the bound on req_queued */
	struct world_series series;
	int mem_servers;              /* the memory pool (world_load.c) */
	double mem_server_bytes_per_s;
	struct world_pool *pool;      /* NULL until first used */
	struct world_metric *xmetrics; /* world_add_metric, in first-use order */
	int nxmetrics, capxmetrics;
	/* swapping (sim/world/world_swap.c) */
	int preempt_cost;             /* WORLD_PREEMPT_* */
	struct world_swapper *swapper; /* host links of swap copies; NULL
					  until the first swap */
};

struct world_metric {
	char name[48];
	double value;
};

int world__request_schedule(struct world *w);
void world__maybe_stop(struct world *w);
void pending_remove_job(struct world *w, int j);
int pending_add_job(struct world *w, int j);
int world__gpu_changed(struct world *w, int g);
int world__job_done(struct world *w, int j);
void world__free_placement(struct world_job *job);
int world__hook_rc(struct world *w, int rc, const char *hook);
/* Copies the trace's per-resource times of a training job into the
** profile its tenants run (the interleave mode reads them). */
void world__train_res(const struct world_job *job,
		      struct gpu_work_profile *prof);
double world__train_total_ns(const struct world *w,
			     const struct world_job *job,
			     const struct dev_profile *d, const int *gpus,
			     int n);
/* sim/world/world_swap.c: swap running job j out (as_preempt: world_preempt
** with preempt_cost swap: counts a preemption and appends j to the queue);
** free the swapper and every copy in flight (world_destroy). */
int world__swap_out(struct world *w, int j, int as_preempt,
		    struct sim_err *err);
void world__swap_fini(struct world *w);

/* world_load.c: the GPU pool.  pool_request takes one request of a pooled
** service; pool_tenant_changed reschedules an executor (tenant id < 0). */
int world__pool_request(struct world *w, int j, sim_time t_arr);
int world__pool_tenant_changed(struct world *w, struct gpu_tenant *t);
void world__pool_fini(struct world *w);
/* service.c, for the pool */
int svc_set_pooled(struct world *w, int j);
int svc_is_pooled(const struct world *w, int j);
int svc_pool_done(struct world *w, int j, sim_time t_arr);
void svc_pool_batch(struct world *w, int j, int n, sim_time t0);

#endif
