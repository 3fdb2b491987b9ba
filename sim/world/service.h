/*
** service.h: inference services inside the world: request arrivals,
** per-replica queues, dynamic batching, latency and SLO accounting.
** Private to sim/ (included by world*.c).
*/
#ifndef COLOSIM_SIM_SERVICE_H
#define COLOSIM_SIM_SERVICE_H

struct world;

/* At arrival: opens the request stream and schedules the first request. */
int svc_create(struct world *w, int j);
/* Frees the service of job j (no-op for training jobs). */
void svc_destroy(struct world *w, int j);
/* After placement: sets up one queue per replica and hands them the
** requests that waited while the service was pending. */
int svc_placed(struct world *w, int j);
/* The batch of replica k finished now.  Its tenant is still busy in the
** GPU model (its unit done, nothing left): the next batch, if one starts,
** replaces the unit (gpu_begin), so the GPU's speeds are recomputed once,
** not twice, per batch boundary; otherwise the unit ends here (gpu_finish)
** and the GPU is rescheduled. */
int svc_batch_done(struct world *w, int j, int k);
/* Job j (a service, or a training job: no-op) failed: its arrivals end. */
int svc_fail(struct world *w, int j);
/* Ends the arrivals of every open service (no lifetime, endless arrival
** process): called when nothing else is left to run. */
int svc_close_open(struct world *w);
/* Requests waiting at replica r (-1: before placement). */
int svc_queue_len(const struct world *w, int j, int r);
/* Requests never served (still queued or in flight) at the end. */
unsigned long long svc_unserved(const struct world *w, int j);

/* The run-time max batch (1..tj.batch), set by world_set_batch. */
int svc_set_batch(struct world *w, int j, int max_batch);
int svc_max_batch(const struct world *w, int j);
/* The measurement window (world_svc_window) and its reset. */
struct world_svc_window;
int svc_window(struct world *w, int j, struct world_svc_window *out);
void svc_window_reset(struct world *w, int j);

#endif
