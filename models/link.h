/*
** link.h: links and flows with max-min fair bandwidth sharing, and the
** pipelined multi-stage transfer (docs/MODEL.md, "Links").
**
** A link_net holds links (PCIe per GPU and direction, NVLink within a node,
** an RDMA NIC per node and per memory server): each has a bandwidth and a
** latency.  A flow moves `bytes` along a path of links, optionally capped
** at a rate imposed elsewhere (a sender's disk, a policy's throttle).  The
** active flows share bandwidth max-min fairly (SimGrid's model, progressive
** filling): no flow can get more without taking from a flow that has less.
** A transfer alone costs latency + bytes / bandwidth; the path's latency is
** paid at the end, after the bytes have drained.
**
** Like the GPU model, the net is pure: it knows no event queue.  On every
** start or end it settles each flow's progress up to `now` at the old rates,
** then recomputes all rates; the caller (the world) then reschedules each
** active flow's completion at link_flow_finish_time().
**
** Ownership: the caller owns each struct link_flow and keeps it alive while
** it is started; the net owns its links array.
*/
#ifndef COLOSIM_MODELS_LINK_H
#define COLOSIM_MODELS_LINK_H

#include <stdint.h>

#include "models/device.h"
#include "sim/err.h"
#include "sim/time.h"

#define LINK_NAME_MAX 32
#define LINK_PATH_MAX 8
#define LINK_PIPE_STAGES_MAX 16

struct link {
	char name[LINK_NAME_MAX];     /* "gpu3.h2d", "node0.nic" */
	double bw_bytes_per_s;        /* capacity, > 0 */
	sim_time latency_ns;          /* per transfer, >= 0 */
	double used_bytes_per_s;      /* sum of the rates of its flows */
	int nflows;                   /* active flows crossing it */
	double bytes_carried;         /* settled bytes moved so far */
	/* private to the model */
	double left_;
	int unfixed_;
};

struct link_flow {
	/* set by the owner; the owner's business afterwards */
	int id;
	void *owner;                  /* borrowed, never touched */
	uint64_t ev;                  /* owner's completion-event handle */
	/* set by link_flow_start; read-only for the owner */
	int path[LINK_PATH_MAX];      /* link indices */
	int npath;
	double cap_bytes_per_s;       /* 0 = no cap */
	double bytes;                 /* size of the transfer */
	double bytes_left;            /* settled to t_settled */
	double rate_bytes_per_s;      /* current max-min fair rate */
	sim_time latency_ns;          /* sum of the path's latencies */
	sim_time t_start, t_settled;
	int active;
	/* private to the model */
	sim_time t_drained_;          /* when bytes_left reached 0 */
	double done_, donec_;
	int fixed_;
	struct link_flow *next_;
	struct link_net *net_;
};

struct link_net {
	struct link *links;           /* owned array */
	int nlinks, caplinks;
	struct link_flow *flows;      /* active flows, a list in start order */
	int nflows;
	uint64_t changes;             /* rate recomputations so far */
};

void link_net_init(struct link_net *n);
/* Frees the links; flows still active are left detached. */
void link_net_fini(struct link_net *n);

/* Adds a link; returns its index (>= 0), or SIM_EINVAL (bad bandwidth or
** latency) / SIM_ENOMEM with a message in err. */
int link_add(struct link_net *n, const char *name, double bw_bytes_per_s,
	     sim_time latency_ns, struct sim_err *err);

/* Adds the two directions of a GPU's host link from its profile: H2D and
** D2H at the pinned (pinned != 0) or pageable copy bandwidth, each with
** the latency of that copy kind when the profile has it (a calibrated
** profile's h2d_pinned_latency_ns, ...), else the profile's
** pcie_latency_ns.  Names are "<prefix>.h2d" / "<prefix>.d2h".
** Returns 0 or an error; the indices go to *h2d and *d2h. */
int link_add_host(struct link_net *n, const struct dev_profile *d,
		  const char *prefix, int pinned, int *h2d, int *d2h,
		  struct sim_err *err);

/* Adds a GPU's NVLink port (aggregate nvlink_bytes_per_s, no latency
** figure in the profile: 0); SIM_EINVAL when the device has none. */
int link_add_nvlink(struct link_net *n, const struct dev_profile *d,
		    const char *prefix, struct sim_err *err);

/* Starts a flow of `bytes` along path[0..npath) (distinct link indices),
** capped at cap_bytes_per_s (0 = none).  SIM_EINVAL on a bad path, size or
** cap; SIM_ESTATE if f is already active. */
int link_flow_start(struct link_net *n, struct link_flow *f, const int *path,
		    int npath, double bytes, double cap_bytes_per_s,
		    sim_time now, struct sim_err *err);

/* Ends a flow (finished or cancelled); bytes_left is settled to now. */
void link_flow_end(struct link_net *n, struct link_flow *f, sim_time now);

/* Settles every active flow's progress to now at the current rates. */
void link_settle(struct link_net *n, sim_time now);

/* When the flow completes: the time its last byte drains at the current
** rate (rounded up to a nanosecond) plus the path latency; SIM_TIME_NEVER
** when inactive.  Call after the last change at `now`. */
sim_time link_flow_finish_time(const struct link_flow *f, sim_time now);

/* The cost of a transfer alone: latency + ceil(bytes / bw) ns. */
sim_time link_transfer_ns(double bytes, double bw_bytes_per_s,
			  sim_time latency_ns);

/*
** The pipelined multi-stage transfer (a flow shop): ngroups layer groups
** pass in order through nstages stages (network, PCIe, execute); a stage
** takes one group at a time, and a group enters stage s once stage s-1 has
** finished it:
**
**     finish[s][g] = max(finish[s][g-1], finish[s-1][g]) + time[s][g]
**
** with finish[-1][g] = finish[s][-1] = t0.  stage_ns and finish_ns are
** row-major by stage (index s * ngroups + g); finish_ns may be NULL.
** *done_ns gets finish[nstages-1][ngroups-1].  Returns 0, or SIM_EINVAL
** for sizes outside 1..LINK_PIPE_STAGES_MAX stages, < 1 group or a
** negative stage time.
*/
int link_pipeline(const sim_time *stage_ns, int nstages, int ngroups,
		  sim_time t0, sim_time *finish_ns, sim_time *done_ns);

#endif
