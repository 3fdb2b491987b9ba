/*
** equeue.c: 4-ary heap with a slot pool and tombstone cancellation.
**
** Invariants: heap[0..n) is a min-heap on (t, prio, slots[slot].seq); every
** heap entry names a slot that is either live (fn != NULL) or a tombstone
** (fn == NULL, not on the free list, seq still valid); live counts the live
** entries; a slot is on the free list only when no heap entry names it.
**
** Layout, for speed at 1e5..1e6 pending events (docs/PERFORMANCE.md): the
** heap is 4-ary, so it is half as deep as a binary heap, and its 16-byte
** entries are placed so that the four children of any node share one 64-byte
** cache line (heap = heap_mem + 3 entries, heap_mem 64-byte aligned).  A pop
** then touches about one line per level, where a binary heap of 24-byte
** entries touched two.  The event's payload stays in its slot, which the run
** loop prefetches as soon as the event reaches the top.
*/
#include "sim/equeue.h"

#include <stdlib.h>
#include <string.h>

#include "sim/err.h"

#define SEQ_MAX  ((UINT64_C(1) << 62) - 1)
#define NO_SLOT  UINT32_MAX
#define ARITY    4
#define LINE     64
/* Entries before heap[0] in heap_mem, so that heap[4i+1..4i+4] is a line. */
#define HEAP_PAD (LINE / sizeof(struct sim__heap_ent) - 1)
/* Sweep tombstones when there are more of them than live events and at
** least this many, so small queues never pay for a rebuild. */
#define SWEEP_MIN 64

void sim_equeue_init(struct sim_equeue *q)
{
	q->heap = NULL;
	q->heap_mem = NULL;
	q->n = q->cap = 0;
	q->slots = NULL;
	q->nslots = q->capslots = 0;
	q->free_head = NO_SLOT;
	q->seq = 0;
	q->live = 0;
}

void sim_equeue_fini(struct sim_equeue *q)
{
	free(q->heap_mem);
	free(q->slots);
	sim_equeue_init(q);
}

/*
** The order of two entries.  Times decide almost always; the priority class
** next; the insertion sequence, which costs two slot reads, only when both
** are equal.
*/
static inline int ent_less(const struct sim__slot *slots,
			   const struct sim__heap_ent *a,
			   const struct sim__heap_ent *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	return slots[a->slot].seq < slots[b->slot].seq;
}

static void sift_up(const struct sim__slot *slots, struct sim__heap_ent *h,
		    size_t i)
{
	struct sim__heap_ent e = h[i];

	while (i > 0) {
		size_t p = (i - 1) / ARITY;
		if (!ent_less(slots, &e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

/* The index of the least of the children c .. min(c + ARITY, n) - 1. */
static inline size_t min_child(const struct sim__slot *slots,
			       const struct sim__heap_ent *h, size_t n,
			       size_t c)
{
	size_t m, j, a, b;

	if (c + ARITY <= n) {
		/* A full family, the common case: a small tournament. */
		a = ent_less(slots, &h[c + 1], &h[c]) ? c + 1 : c;
		b = ent_less(slots, &h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
		return ent_less(slots, &h[b], &h[a]) ? b : a;
	}
	for (m = c, j = c + 1; j < n; j++)
		if (ent_less(slots, &h[j], &h[m]))
			m = j;
	return m;
}

/*
** Places e in the subheap rooted at i, whose own entry is a hole: Floyd's
** bottom-up variant.  The hole first walks down along least children to a
** leaf (one comparison fewer per level than the textbook loop, which also
** compares with e), then e sifts up from there, but never above i.  On a
** pop, e is the former last leaf and belongs near the bottom, so the climb
** back is short.
*/
static void sift_down(const struct sim__slot *slots, struct sim__heap_ent *h,
		      size_t n, size_t i, struct sim__heap_ent e)
{
	size_t top = i, c;

	while ((c = ARITY * i + 1) < n) {
		size_t m;
#if defined(__GNUC__)
		/* The next level's family is one of the four lines that hold
		** the children of c .. c+3: ask for all four now, so that the
		** cache misses overlap instead of following one another down
		** the tree.  The addresses are computed as integers because
		** near the bottom they lie past the array, which a prefetch
		** may touch (it never faults) but C pointer arithmetic may not.
		*/
		{
			uintptr_t g = (uintptr_t)h + (ARITY * c + 1) *
				      sizeof *h;
			__builtin_prefetch((const void *)g);
			__builtin_prefetch((const void *)(g + LINE));
			__builtin_prefetch((const void *)(g + 2 * LINE));
			__builtin_prefetch((const void *)(g + 3 * LINE));
		}
#endif
		m = min_child(slots, h, n, c);
		h[i] = h[m];
		i = m;
	}
	while (i > top) {
		size_t p = (i - 1) / ARITY;
		if (!ent_less(slots, &e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
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

/* Doubles the heap array, keeping families on cache lines. */
static int grow_heap(struct sim_equeue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 64 - HEAP_PAD;
	size_t bytes = (cap + HEAP_PAD) * sizeof(struct sim__heap_ent);
	void *mem;

	if (cap > SIZE_MAX / 2 / sizeof(struct sim__heap_ent))
		return SIM_ENOMEM;
	/* aligned_alloc wants a size that is a multiple of the alignment. */
	bytes = (bytes + LINE - 1) / LINE * LINE;
	mem = aligned_alloc(LINE, bytes);
	if (mem == NULL)
		return SIM_ENOMEM;
	if (q->n > 0)
		memcpy((struct sim__heap_ent *)mem + HEAP_PAD, q->heap,
		       q->n * sizeof(struct sim__heap_ent));
	free(q->heap_mem);
	q->heap_mem = mem;
	q->heap = (struct sim__heap_ent *)mem + HEAP_PAD;
	q->cap = cap;
	return 0;
}

static int grow(struct sim_equeue *q)
{
	int rc;

	if (q->n == q->cap && (rc = grow_heap(q)) != 0)
		return rc;
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
	struct sim__slot *sl;
	uint32_t s;
	int rc;

	if (fn == NULL || prio > SIM_PRIO_MAX || q->seq > SEQ_MAX)
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
	sl = &q->slots[s];
	sl->fn = fn;
	sl->ctx = ctx;
	sl->arg = arg;
	sl->seq = q->seq++;
	q->heap[q->n].t = t;
	q->heap[q->n].slot = s;
	q->heap[q->n].prio = prio;
	sift_up(q->slots, q->heap, q->n++);
	q->live++;
	if (handle != NULL)
		*handle = ((uint64_t)sl->gen << 32) | ((uint64_t)s + 1);
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
	/* Floyd's heap construction: every node above the leaves. */
	for (i = q->n / ARITY + 1; i-- > 0;)
		if (i < q->n)
			sift_down(q->slots, q->heap, q->n, i, q->heap[i]);
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
	if (q->n > 0)
		sift_down(q->slots, q->heap, q->n, 0, q->heap[q->n]);
}

/* Discards tombstones from the top; returns 1 if a live event is on top. */
static inline int live_top(struct sim_equeue *q)
{
	while (q->n > 0) {
		uint32_t s = q->heap[0].slot;
		if (q->slots[s].fn != NULL)
			return 1;
		pop_top(q);
		release_slot(q, s);
	}
	return 0;
}

sim_time sim_equeue_peek(struct sim_equeue *q)
{
	return live_top(q) ? q->heap[0].t : SIM_TIME_NEVER;
}

int sim_equeue_pop_until(struct sim_equeue *q, sim_time horizon,
			 sim_time *t, sim_event_fn *fn, void **ctx,
			 uint64_t *arg)
{
	struct sim__slot *sl;
	uint32_t s;

	if (!live_top(q))
		return 0;
	if (q->heap[0].t > horizon)
		return 2;
	s = q->heap[0].slot;
	sl = &q->slots[s];
	*t = q->heap[0].t;
	*fn = sl->fn;
	*ctx = sl->ctx;
	*arg = sl->arg;
	q->live--;
	/* Sift before releasing: a tie on the way down may read this slot's
	** sequence number, which the free-list link overwrites. */
	pop_top(q);
	release_slot(q, s);
#if defined(__GNUC__)
	/* The next event's slot was written when it was scheduled, long ago
	** in a large queue: fetch it while the handler of this one runs. */
	if (q->n > 0)
		__builtin_prefetch(&q->slots[q->heap[0].slot]);
#endif
	return 1;
}

int sim_equeue_pop(struct sim_equeue *q, sim_time *t, sim_event_fn *fn,
		   void **ctx, uint64_t *arg)
{
	return sim_equeue_pop_until(q, SIM_TIME_MAX, t, fn, ctx, arg) == 1;
}
