/*
** equeue.h: the pending-event set.
**
** A 4-ary min-heap of (time, priority class, insertion sequence) keys over a
** pool of event slots.  Insert and pop are O(log n); cancellation is O(1): it
** turns the slot into a tombstone that pop discards.  Tombstones are swept by
** an O(n) rebuild whenever they outnumber live events (and number more than
** a few thousand), so memory stays within twice the live set: the fluid GPU
** model cancels and reschedules completions on every speed change, and
** without the sweep those tombstones would pile up until their old times.
**
** Ties are broken deterministically: equal times go by priority class (lower
** first), then by insertion order, as libuv's timer heap does with its start
** counter.  Handles are (slot, generation) pairs packed in a uint64_t, so a
** handle to an event that already fired or was cancelled is recognised as
** stale even after its slot has been reused.  Handle 0 is never issued.
*/
#ifndef COLOSIM_SIM_EQUEUE_H
#define COLOSIM_SIM_EQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/time.h"

struct sim;

/*
** An event handler.  It runs at the event's time with the engine, the
** context pointer and the integer argument given when it was scheduled.  It
** returns 0, or a negative SIM_E* code that stops the run (after recording a
** message in the engine's sim_err, see sim_fail()).
*/
typedef int (*sim_event_fn)(struct sim *sim, void *ctx, uint64_t arg);

#define SIM_PRIO_MAX 0xffffu

/*
** A heap entry is 16 bytes, so a family of four siblings fills one 64-byte
** cache line.  The insertion sequence lives in the slot: it is read only to
** break a tie on (t, prio), which is rare in large queues, where the cache
** lines matter, and cheap in small ones, where everything is in cache.
*/
struct sim__heap_ent {
	sim_time t;
	uint32_t slot;
	uint32_t prio;          /* priority class */
};

struct sim__slot {
	sim_event_fn fn;        /* NULL: free or cancelled (tombstone) */
	void *ctx;
	uint64_t arg;
	union {
		uint64_t seq;       /* insertion sequence, while queued */
		uint32_t next_free; /* free-list link, while free */
	};
	uint32_t gen;           /* bumped when the slot is released */
};

struct sim_equeue {
	struct sim__heap_ent *heap;  /* root at heap[0]; see equeue.c */
	void *heap_mem;           /* the allocation heap points into */
	size_t n, cap;            /* heap entries in use / allocated */
	struct sim__slot *slots;
	uint32_t nslots, capslots;
	uint32_t free_head;       /* UINT32_MAX when the free list is empty */
	uint64_t seq;             /* next insertion sequence number */
	size_t live;              /* entries that are not tombstones */
};

/* Initialises an empty queue (no allocation yet).  Never fails. */
void sim_equeue_init(struct sim_equeue *q);

/* Frees the queue's memory; q may be reused after sim_equeue_init. */
void sim_equeue_fini(struct sim_equeue *q);

/*
** Inserts an event at time t with priority class prio (0..SIM_PRIO_MAX).
** On success stores its handle in *handle (if not NULL) and returns 0; on
** failure returns SIM_ENOMEM or SIM_EINVAL (fn NULL, prio out of range or
** sequence space exhausted) and leaves the queue unchanged.  The queue itself
** does not refuse past times: that is the engine's job (sim_schedule_at).
*/
int sim_equeue_push(struct sim_equeue *q, sim_time t, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle);

/*
** Cancels the event with this handle in O(1).  Returns 0, or SIM_ESTALE if
** the event already fired, was cancelled, or the handle is not one of ours.
*/
int sim_equeue_cancel(struct sim_equeue *q, uint64_t handle);

/* 1 if the handle names an event that is still pending, else 0. */
int sim_equeue_pending(const struct sim_equeue *q, uint64_t handle);

/*
** The time of the earliest live event, or SIM_TIME_NEVER if none.  May
** discard tombstones at the top (hence not const).
*/
sim_time sim_equeue_peek(struct sim_equeue *q);

/*
** Removes the earliest live event and copies it out.  Returns 1 when an
** event was popped, 0 when the queue holds no live event.
*/
int sim_equeue_pop(struct sim_equeue *q, sim_time *t, sim_event_fn *fn,
		   void **ctx, uint64_t *arg);

/*
** Pops the earliest live event, as sim_equeue_pop, but only if its time is
** at most horizon: the run loop's peek and pop in one step, so the top is
** checked for tombstones once.  Returns 1 when an event was popped, 0 when
** the queue holds no live event, 2 when the earliest lies beyond horizon
** (it stays queued).
*/
int sim_equeue_pop_until(struct sim_equeue *q, sim_time horizon,
			 sim_time *t, sim_event_fn *fn, void **ctx,
			 uint64_t *arg);

/* The number of live (not cancelled) pending events. */
static inline size_t sim_equeue_size(const struct sim_equeue *q)
{
	return q->live;
}

#endif
