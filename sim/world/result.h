/*
** result.h: what one simulation run produces, in memory, before it goes to
** the results store (experiments/store.h) or to `colosim replay --json`.
**
** A run_result owns copies of everything added to it.  Metrics are
** (name, value) pairs with the names of docs/RESULTS.md (makespan_s,
** hbm_util_mean, jct_p95_s, ...); jobs are per-job rows; series are
** downsampled per-GPU samples; latency bins form the run's request-latency
** histogram; placements are every interval a job's tenant spent on a GPU
** (docs/RESULTS.md, tables jobs, services and placements);
** named histograms and series are what a tenant kind adds (the LLM
** services' TTFT and TPOT distributions, their KV-cache use).
*/
#ifndef COLOSIM_EXPERIMENTS_RESULT_H
#define COLOSIM_EXPERIMENTS_RESULT_H

#include <stddef.h>
#include <stdint.h>

struct res_metric {
	char name[48];
	double value;
};

struct res_job {
	char id[64];
	char kind[8];                 /* "train" / "infer" */
	char model[48];
	int gpus;
	int first_gpu;                /* lowest GPU index used; -1 never placed */
	int status;                   /* 0 done, 1 failed, 2 unfinished */
	double submit_s, start_s, end_s;
	double jct_s, queue_s, slowdown;
	/* Inference services (kind "infer") only, over the whole run: requests
	** that arrived, were served, were served within the SLO; the SLO; and
	** the latency of the served ones (NaN when none was served; the
	** quantiles carry sim_sample's 1% histogram error past 1024
	** requests).  Training jobs: counts 0, the rest NaN. */
	uint64_t req_total, req_served, req_slo_ok;
	double slo_ms;
	double lat_mean_ms, lat_p50_ms, lat_p95_ms, lat_p99_ms;
};

/* One interval of one tenant of a job on one GPU: a placement, from the
** attach to the detach (preemption, swap-out, the end of the job). */
struct res_place {
	int job;                      /* index into run_result.jobs */
	int gpu;
	int slice;                    /* MIG slice, -1 the whole GPU */
	double start_s;
	double end_s;                 /* -1: still placed when the run ended */
	uint64_t mem_bytes;           /* allocation at the attach */
	double sm_cap;                /* MPS share at the attach, (0, 1] */
};

struct res_series {
	int gpu;                      /* -1: cluster-wide */
	double t_s;
	double hbm_frac, sm_frac;
};

struct res_lat_bin {
	double lo_ms, hi_ms;
	uint64_t count;
};

/* A named histogram's bin (a tenant kind's distribution: "llm_ttft_ms",
** "llm_tpot_ms"): count observations in [lo, hi). */
struct res_hist_bin {
	char name[24];
	double lo, hi;
	uint64_t count;
};

/* A point of a named time series ("llm_kv_util"). */
struct res_point {
	char name[24];
	double t_s, value;
};

struct run_result {
	struct res_metric *metrics; size_t nmetrics, capmetrics;
	struct res_hist_bin *hists; size_t nhists, caphists;
	struct res_point *points;   size_t npoints, cappoints;
	struct res_job *jobs;       size_t njobs, capjobs;
	struct res_series *series;  size_t nseries, capseries;
	struct res_lat_bin *lat;    size_t nlat, caplat;
	struct res_place *place;    size_t nplace, capplace;
	uint64_t events;
	double wall_s;
};

void run_result_init(struct run_result *r);
void run_result_fini(struct run_result *r);

/* Each add returns 0 or SIM_ENOMEM; set replaces a metric of the same name. */
int run_result_set(struct run_result *r, const char *name, double value);
int run_result_add_job(struct run_result *r, const struct res_job *j);
/* Room for n more job rows / placements at once, without the doubling
** slack of one add at a time (0 or SIM_ENOMEM). */
int run_result_reserve_jobs(struct run_result *r, size_t n);
int run_result_reserve_place(struct run_result *r, size_t n);
int run_result_add_series(struct run_result *r, const struct res_series *s);
int run_result_add_lat(struct run_result *r, const struct res_lat_bin *b);
int run_result_add_hist(struct run_result *r, const struct res_hist_bin *b);
int run_result_add_point(struct run_result *r, const struct res_point *p);
int run_result_add_place(struct run_result *r, const struct res_place *p);

/* The metric's value, or NaN when absent. */
double run_result_get(const struct run_result *r, const char *name);

#endif
