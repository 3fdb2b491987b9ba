/*
** service.h: inference services inside the world (service.c): the tenant
** kind "replica" that runs the trace's services (request arrivals,
** per-replica queues, dynamic batching, latency and SLO accounting), and
** the API other parts of sim/world/ use: the public service controls
** (world_svc.c) and a server outside the replicas (the GPU pool,
** world_pool.c).  Private to sim/world/.
*/
#ifndef COLOSIM_SIM_SERVICE_H
#define COLOSIM_SIM_SERVICE_H

#include "sim/world/world.h"

/* Registers the kind "replica" (runs the trace's services; its metrics:
** latency_*, slo_attainment, requests_*, the latency histogram); reads
** cfg->max_queued_requests.  A world_init_fn. */
int svc_init(struct world *w, const struct world_config *cfg,
	     struct sim_err *err);

/* Requests waiting at replica r of service j (-1: before placement). */
int svc_queue_len(const struct world *w, int j, int r);
/* The run-time max batch (1..tj.batch), set by world_set_batch. */
int svc_set_batch(struct world *w, int j, int max_batch);
int svc_max_batch(const struct world *w, int j);
/* The measurement window (world_svc_window) and its reset. */
struct world_svc_window;
int svc_window(struct world *w, int j, struct world_svc_window *out);
void svc_window_reset(struct world *w, int j);

/* ---- a server outside the replicas (the GPU pool) ----------------------- */

/* Takes one request of service j (arrived at t_arr) for serving: 0 or a
** SIM_E* code that fails the run. */
typedef int svc_route_fn(struct world *w, void *ctx, int j, sim_time t_arr);

/* From now on, every request of service j (arrived, kind infer, not yet
** placed) goes to fn(ctx) instead of a replica, starting with the backlog
** that waited; ctx is borrowed for the rest of the run.  The server
** reports back with svc_external_batch (each batch run) and
** svc_external_done (each request served); the service ends when its
** arrivals are over and every request handed out came back. */
int svc_set_external(struct world *w, int j, svc_route_fn *fn, void *ctx);
/* 1 if service j is served through svc_set_external. */
int svc_is_external(const struct world *w, int j);
/* A batch of n requests of service j, begun at t0, ended now (its time
** is the server's, a model load included): counted in the window. */
void svc_external_batch(struct world *w, int j, int n, sim_time t0);
/* One request of service j (arrived at t_arr) was served now. */
int svc_external_done(struct world *w, int j, sim_time t_arr);

#endif
