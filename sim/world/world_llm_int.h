/*
** world_llm_int.h: the private state of the LLM services' tenant kind,
** shared by its files (sim/world/world_llm.c: the kind, requests,
** iterations, arrival; world_llm_set.c: the settings; world_llm_place.c:
** placement and the KV pool; world_llm_res.c: the policies' window and the
** run's results).  Nothing outside those files includes it.
*/
#ifndef COLOSIM_SIM_WORLD_LLM_INT_H
#define COLOSIM_SIM_WORLD_LLM_INT_H

#include "models/llm.h"
#include "models/llm_sched.h"
#include "sim/world/world_int.h"
#include "sim/world/world_llm.h"
#include "traces/lengths.h"

/* ---- settings (world_llm_keys, world_llm_set.c) ---- */

enum { KV_RESERVE = 0, KV_DYNAMIC, KV_OVERSUB, KV_UNBOUNDED };
enum { LONG_ERROR = 0, LONG_SKIP, LONG_TRUNCATE };
enum { ROUTE_LEAST = 0, ROUTE_RR };

struct llm_set {
	int sched, tp, prec, block, kv, preempt, lmode, route, mbt;
	double util, swap_gib, slo_ttft_ms, slo_tpot_ms;
	const char *prompt, *output;  /* valid during the fill only */
};

/* One request, from its arrival until its last token (or refusal). */
struct lreq {
	struct llm_req r;             /* r.owner: its service */
	sim_time arrival, first, last;
	int ntok;
	struct lreq *next;            /* backlog, free list */
};

#define LREQ_SLAB 1024

struct lslab {
	struct lslab *next;
	struct lreq req[LREQ_SLAB];
};

struct llm_rep {
	struct llm_engine e;
	int inited;
	int *tix;                     /* its tenants' indices in job->tenants */
	const struct llm_model *m;
	uint64_t base_bytes, block_bytes;   /* per GPU */
	int64_t max_blocks;           /* the pool's bound */
	int64_t held;                 /* blocks the tenants hold now */
	int busy, pending;            /* an iteration in flight; its units
					 not yet done */
	sim_time t_iter;              /* when it began */
	double util;                  /* KV blocks in use / max_blocks */
	struct sim_twacc kv;
	double busy_ns;               /* in iterations, this window */
};

/* The measurement window a policy reads (pol_llm_window). */
struct llm_win {
	sim_time t0;
	uint64_t arrivals, completed, tokens, ttft_miss, tpot_miss,
		 iterations, preemptions;
	struct sim_sample ttft, tpot, itl;
};

#define LLM_DEVS 4
/* Exact end-to-end latencies kept per service for its result row before
** the histogram takes over (as service.c's SVC_LAT_EXACT). */
#define SVC_E2E_EXACT 1024

struct llm_svc {
	int j;
	struct llm_world *lw;
	struct llm_set set;
	struct trace_len_dist dprompt, doutput;
	struct llm_sched_cfg sched;
	double slo_ttft_ms, slo_tpot_ms;
	struct trace_arrivals *arr;
	struct sim_rng rng, lrng;
	struct trace_req next;        /* the request read ahead */
	uint64_t req_ev;
	int arrivals_done;
	sim_time end_ns;
	/* per device of the cluster: the replica's model */
	const struct dev_profile *mdev[LLM_DEVS];
	struct llm_model model[LLM_DEVS];
	int mok[LLM_DEVS];            /* 1 fits with its KV cache, 0 not */
	struct llm_mem mem[LLM_DEVS];
	int nmodels;
	struct lreq *bl_head, *bl_tail;
	long nbacklog;
	struct llm_rep *rep;
	int *tix;                     /* the replicas' tenant indices */
	int *rep_ix;                  /* per tenant index: its replica */
	int nrep, rr;
	long inflight;                /* submitted, not done */
	struct llm_win win;
	/* the whole run, for the service's result row (llm_job_result) */
	uint64_t n_req, n_done, n_ok;
	struct sim_sample e2e;
};

/* A downsampled series of the KV-cache use over time (mean over placed
** replicas): at most SERIES_CAP points, every other dropped and the step
** doubled when full, as the world's utilisation series. */
#define SERIES_CAP 512

struct llm_kv {
	char *key, *value, *origin;
};

struct llm_world {
	struct llm_kv *pv;            /* the settings, copied */
	size_t npv;
	struct llm_svc **svc;         /* by job index; NULL: not an LLM job */
	int capsvc;
	struct lslab *slabs;
	struct lreq *free;
	uint64_t held, max_held;      /* requests held now (arrived, not
					 done or refused); the bound: the
					 world's max_queued_requests, as for
					 infer services */
	/* run metrics */
	struct sim_sample ttft, tpot, itl, e2e;
	uint64_t total, completed, rejected, skipped, truncated, tokens;
	uint64_t ok_ttft, ok_tpot, ok_both;
	double swapped_bytes;
	sim_time t_first, t_last;
	int have_first;
	double kv_mean_sum;           /* per-replica time-weighted means */
	int kv_nrep;
	double kv_peak;
	double util_sum;              /* current, over placed replicas */
	int nlive;
	sim_time s_dt, s_next;
	int s_n;
	double s_t[SERIES_CAP], s_v[SERIES_CAP];
};

/* ---- across the files ---- */

/* Service j's state, or NULL for a job that is not an LLM service. */
struct llm_svc *llm__svc(const struct world *w, int j);
/* The service's settings into sv->set (world_llm_set.c); 0, or the run
** fails naming the setting's origin. */
int llm__settings(struct world *w, struct llm_svc *sv,
		  const struct world_job *job);
/* The replica's model on device d, made on first use (sv->mok[*k]: it
** fits with its KV cache there); NULL past LLM_DEVS device kinds. */
struct llm_model *llm__model_on(struct llm_svc *sv, const struct world_job *job,
				const struct dev_profile *d, int *k,
				struct sim_err *e);
/* Tenant t's memory domain on GPU g: capacity and free bytes. */
void llm__domain(const struct gpu *g, const struct gpu_tenant *t,
		 uint64_t *cap, uint64_t *free_b);
/* Routes request q (backlog before placement, else a replica). */
struct lreq;
int llm__route(struct world *w, struct llm_svc *sv, struct lreq *q);
/* Ends service j at this instant, through an event, when it is drained. */
int llm__check_later(struct world *w, int j);
/* The kind's handlers in world_llm_place.c and world_llm_res.c. */
int llm__place(struct world *w, void *state, struct world_job *job,
	       const int *gpus, int n, const struct world_place_opts *o,
	       struct sim_err *err);
int llm__placed(struct world *w, void *state, struct world_job *job);
int llm__results(struct world *w, void *state, struct run_result *res);
void llm__job_result(struct world *w, void *state,
		     const struct world_job *job, struct res_job *r);

#endif
