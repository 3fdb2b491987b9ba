/*
** equeue.c: binary heap with a slot pool and tombstone cancellation.
**
** Invariants: heap[0..n) is a min-heap on (t, key); every heap entry names a
** slot that is either live (fn != NULL) or a tombstone (fn == NULL, not on
** the free list); live counts the live entries; a slot is on the free list
** only when no heap entry names it.
*/
#include "sim/equeue.h"

#include <stdlib.h>

#include "sim/err.h"

#define SEQ_BITS 48
#define SEQ_MASK ((UINT64_C(1) << SEQ_BITS) - 1)
#define NO_SLOT  UINT32_MAX
/* Sweep tombstones when there are more of them than live events and at
** least this many, so small queues never pay for a rebuild. */
#define SWEEP_MIN 4096

void sim_equeue_init(struct sim_equeue *q)
{
	q->heap = NULL;
	q->n = q->cap = 0;
	q->slots = NULL;
	q->nslots = q->capslots = 0;
	q->free_head = NO_SLOT;
	q->seq = 0;
	q->live = 0;
}

void sim_equeue_fini(struct sim_equeue *q)
{
	free(q->heap);
	free(q->slots);
	sim_equeue_init(q);
}

static inline int ent_less(const struct sim__heap_ent *a,
			   const struct sim__heap_ent *b)
{
	return a->t < b->t || (a->t == b->t && a->key < b->key);
}

static void sift_up(struct sim__heap_ent *h, size_t i)
{
	struct sim__heap_ent e = h[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ent_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void sift_down(struct sim__heap_ent *h, size_t n, size_t i)
{
	struct sim__heap_ent e = h[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ent_less(&h[c + 1], &h[c]))
			c++;
		if (!ent_less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static void release_slot(struct sim_equeue *q, uint32_t s)
{
	q->slots[s].fn = NULL;
	q->slots[s].gen++;
	q->slots[s].next_free = q->free_head;
	q->free_head = s;
}

static int grow(struct sim_equeue *q)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct sim__heap_ent *h = realloc(q->heap, cap * sizeof *h);
		if (h == NULL)
			return SIM_ENOMEM;
		q->heap = h;
		q->cap = cap;
	}
	if (q->free_head == NO_SLOT && q->nslots == q->capslots) {
		uint32_t cap;
		struct sim__slot *s;
		if (q->capslots >= UINT32_MAX / 2)
			return SIM_ENOMEM;
		cap = q->capslots ? q->capslots * 2 : 64;
		s = realloc(q->slots, (size_t)cap * sizeof *s);
		if (s == NULL)
			return SIM_ENOMEM;
		q->slots = s;
		q->capslots = cap;
	}
	return 0;
}

int sim_equeue_push(struct sim_equeue *q, sim_time t, unsigned prio,
		    sim_event_fn fn, void *ctx, uint64_t arg, uint64_t *handle)
{
	uint32_t s;
	int rc;

	if (fn == NULL || prio > SIM_PRIO_MAX || q->seq > SEQ_MASK)
		return SIM_EINVAL;
	if ((rc = grow(q)) != 0)
		return rc;
	if (q->free_head != NO_SLOT) {
		s = q->free_head;
		q->free_head = q->slots[s].next_free;
	} else {
		s = q->nslots++;
		q->slots[s].gen = 1;
	}
	q->slots[s].fn = fn;
	q->slots[s].ctx = ctx;
	q->slots[s].arg = arg;
	q->heap[q->n].t = t;
	q->heap[q->n].key = ((uint64_t)prio << SEQ_BITS) | q->seq++;
	q->heap[q->n].slot = s;
	sift_up(q->heap, q->n++);
	q->live++;
	if (handle != NULL)
		*handle = ((uint64_t)q->slots[s].gen << 32) | ((uint64_t)s + 1);
	return 0;
}

static struct sim__slot *handle_slot(const struct sim_equeue *q, uint64_t h)
{
	uint64_t s1 = h & 0xffffffffu;
	uint32_t gen = (uint32_t)(h >> 32);

	if (s1 == 0 || s1 > q->nslots)
		return NULL;
	if (q->slots[s1 - 1].gen != gen || q->slots[s1 - 1].fn == NULL)
		return NULL;
	return &q->slots[s1 - 1];
}

/* Drops every tombstone and re-heapifies: O(n). */
static void sweep(struct sim_equeue *q)
{
	size_t i, j = 0;

	for (i = 0; i < q->n; i++) {
		uint32_t s = q->heap[i].slot;
		if (q->slots[s].fn == NULL)
			release_slot(q, s);
		else
			q->heap[j++] = q->heap[i];
	}
	q->n = j;
	for (i = q->n / 2; i-- > 0;)
		sift_down(q->heap, q->n, i);
}

int sim_equeue_cancel(struct sim_equeue *q, uint64_t handle)
{
	struct sim__slot *sl = handle_slot(q, handle);

	if (sl == NULL)
		return SIM_ESTALE;
	sl->fn = NULL;     /* tombstone: the heap entry stays until popped */
	q->live--;
	if (q->n - q->live > q->live && q->n - q->live >= SWEEP_MIN)
		sweep(q);
	return 0;
}

int sim_equeue_pending(const struct sim_equeue *q, uint64_t handle)
{
	return handle_slot(q, handle) != NULL;
}

/* Removes the heap top, whatever it is. */
static void pop_top(struct sim_equeue *q)
{
	q->n--;
	if (q->n > 0) {
		q->heap[0] = q->heap[q->n];
		sift_down(q->heap, q->n, 0);
	}
}

sim_time sim_equeue_peek(struct sim_equeue *q)
{
	while (q->n > 0) {
		uint32_t s = q->heap[0].slot;
		if (q->slots[s].fn != NULL)
			return q->heap[0].t;
		pop_top(q);
		release_slot(q, s);
	}
	return SIM_TIME_NEVER;
}

int sim_equeue_pop(struct sim_equeue *q, sim_time *t, sim_event_fn *fn,
		   void **ctx, uint64_t *arg)
{
	while (q->n > 0) {
		uint32_t s = q->heap[0].slot;
		struct sim__slot *sl = &q->slots[s];
		sim_time te = q->heap[0].t;

		pop_top(q);
		if (sl->fn == NULL) {
			release_slot(q, s);
			continue;
		}
		*t = te;
		*fn = sl->fn;
		*ctx = sl->ctx;
		*arg = sl->arg;
		release_slot(q, s);
		q->live--;
		return 1;
	}
	return 0;
}
