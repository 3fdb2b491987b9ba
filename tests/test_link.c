/*
** test_link.c: links, max-min fair flows and the pipeline recurrence
** (models/link.c) against hand-computed answers (docs/MODEL.md, "Links").
*/
#include <stdlib.h>
#include <string.h>

#include "models/link.h"
#include "tests/util.h"

#define GBPS 1e9   /* bytes per second in one GB/s */

/* One flow alone: latency + bytes / bandwidth. */
static void test_single(void)
{
	struct link_net n;
	struct link_flow f;
	int l;

	link_net_init(&n);
	l = link_add(&n, "pcie", 10 * GBPS, 1000, NULL);
	CU_ASSERT_EQUAL(l, 0);
	memset(&f, 0, sizeof f);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, &l, 1, 1e9, 0, 0, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.rate_bytes_per_s, 10 * GBPS, 1e-3);
	/* 1e9 B at 1e10 B/s = 0.1 s = 1e8 ns, + 1000 ns latency */
	CU_ASSERT_EQUAL(link_flow_finish_time(&f, 0), 100001000);
	CU_ASSERT_EQUAL(link_transfer_ns(1e9, 10 * GBPS, 1000), 100001000);
	/* drained at 1e8: the latency tail takes no bandwidth */
	link_settle(&n, 100000000);
	CU_ASSERT_EQUAL(f.bytes_left, 0);
	CU_ASSERT_DOUBLE_EQUAL(n.links[0].bytes_carried, 1e9, 1e-3);
	/* A settle inside the latency tail must not move the end: the
	** latency runs from the drain, not from the last settle. */
	link_settle(&n, 100000500);
	CU_ASSERT_EQUAL(link_flow_finish_time(&f, 100000500), 100001000);
	link_flow_end(&n, &f, 100001000);
	CU_ASSERT_EQUAL(f.active, 0);
	CU_ASSERT_EQUAL(n.nflows, 0);
	CU_ASSERT_EQUAL(link_flow_finish_time(&f, 0), SIM_TIME_NEVER);
	link_net_fini(&n);
}

/* Three flows on a 10 GB/s link, one of them also crossing a 2 GB/s link
** elsewhere: max-min gives 2, 4, 4.  The same with a cap instead. */
static void test_maxmin(void)
{
	struct link_net n;
	struct link_flow f[3];
	int shared, narrow, p2[2], i;

	link_net_init(&n);
	shared = link_add(&n, "nic", 10 * GBPS, 0, NULL);
	narrow = link_add(&n, "remote", 2 * GBPS, 0, NULL);
	memset(f, 0, sizeof f);
	p2[0] = shared;
	p2[1] = narrow;
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[0], p2, 2, 1e12, 0, 0, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(f[0].rate_bytes_per_s, 2 * GBPS, 1);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[1], &shared, 1, 1e12, 0, 0,
					NULL), 0);
	/* two flows: 2 and 8 */
	CU_ASSERT_DOUBLE_EQUAL(f[1].rate_bytes_per_s, 8 * GBPS, 1);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[2], &shared, 1, 1e12, 0, 0,
					NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(f[0].rate_bytes_per_s, 2 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[1].rate_bytes_per_s, 4 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[2].rate_bytes_per_s, 4 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(n.links[shared].used_bytes_per_s, 10 * GBPS, 1);
	CU_ASSERT_EQUAL(n.links[shared].nflows, 3);
	/* the capped flow ends: the other two split the link, 5 and 5 */
	link_flow_end(&n, &f[0], 10);
	CU_ASSERT_DOUBLE_EQUAL(f[1].rate_bytes_per_s, 5 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[2].rate_bytes_per_s, 5 * GBPS, 1);
	for (i = 1; i < 3; i++)
		link_flow_end(&n, &f[i], 10);

	/* the same bottleneck as a cap on the flow */
	memset(f, 0, sizeof f);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[0], &shared, 1, 1e12,
					2 * GBPS, 0, NULL), 0);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[1], &shared, 1, 1e12, 0, 0,
					NULL), 0);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[2], &shared, 1, 1e12, 0, 0,
					NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(f[0].rate_bytes_per_s, 2 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[1].rate_bytes_per_s, 4 * GBPS, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[2].rate_bytes_per_s, 4 * GBPS, 1);
	/* a cap above the fair share does not bind: 10/3 each */
	link_flow_end(&n, &f[0], 0);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f[0], &shared, 1, 1e12,
					5 * GBPS, 0, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(f[0].rate_bytes_per_s, 10 * GBPS / 3, 1);
	CU_ASSERT_DOUBLE_EQUAL(f[1].rate_bytes_per_s, 10 * GBPS / 3, 1);
	link_net_fini(&n);
}

/* Rates change on start and end; progress is settled in between.  Link
** 1 B/ns.  A: 1000 B at t=0.  B: 500 B at t=200 (A has 800 left).  Both
** at 0.5 B/ns: B drains at 1200, A has 300 left then, alone: 1500. */
static void test_progress(void)
{
	struct link_net n;
	struct link_flow a, b;
	int l;

	link_net_init(&n);
	l = link_add(&n, "l", 1e9, 0, NULL);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	link_flow_start(&n, &a, &l, 1, 1000, 0, 0, NULL);
	CU_ASSERT_EQUAL(link_flow_finish_time(&a, 0), 1000);
	link_flow_start(&n, &b, &l, 1, 500, 0, 200, NULL);
	CU_ASSERT_DOUBLE_EQUAL(a.bytes_left, 800, 1e-9);
	CU_ASSERT_EQUAL(link_flow_finish_time(&a, 200), 1800);
	CU_ASSERT_EQUAL(link_flow_finish_time(&b, 200), 1200);
	link_flow_end(&n, &b, 1200);
	CU_ASSERT_EQUAL(b.bytes_left, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.bytes_left, 300, 1e-9);
	CU_ASSERT_EQUAL(link_flow_finish_time(&a, 1200), 1500);
	link_settle(&n, 1499);
	CU_ASSERT(a.bytes_left > 0);
	link_settle(&n, 1500);
	CU_ASSERT_EQUAL(a.bytes_left, 0);
	link_flow_end(&n, &a, 1500);
	CU_ASSERT_DOUBLE_EQUAL(n.links[l].bytes_carried, 1500, 1e-6);
	CU_ASSERT_EQUAL(n.changes, 4);
	link_net_fini(&n);
}

/* 3 stages x 4 groups from t0 = 10, by hand:
**   stage times  net  4 2 3 1 / pcie 2 5 1 2 / exec 3 1 4 2
**   finish       net 14 16 19 20 / pcie 16 21 22 24 / exec 19 22 26 28 */
static void test_pipeline(void)
{
	static const sim_time st[12] = { 4, 2, 3, 1, 2, 5, 1, 2, 3, 1, 4, 2 };
	static const sim_time want[12] = { 14, 16, 19, 20, 16, 21, 22, 24,
					   19, 22, 26, 28 };
	sim_time fin[12], done = 0;
	sim_time one[1] = { 7 }, bad[2] = { 1, -1 };
	int i;

	CU_ASSERT_EQUAL(link_pipeline(st, 3, 4, 10, fin, &done), 0);
	for (i = 0; i < 12; i++)
		CU_ASSERT_EQUAL(fin[i], want[i]);
	CU_ASSERT_EQUAL(done, 28);
	CU_ASSERT_EQUAL(link_pipeline(st, 3, 4, 10, NULL, &done), 0);
	CU_ASSERT_EQUAL(done, 28);
	/* one stage, one group: t0 + time */
	CU_ASSERT_EQUAL(link_pipeline(one, 1, 1, 5, NULL, &done), 0);
	CU_ASSERT_EQUAL(done, 12);
	/* bad sizes and negative stage times are refused */
	CU_ASSERT_EQUAL(link_pipeline(bad, 1, 2, 0, NULL, &done), SIM_EINVAL);
	CU_ASSERT_EQUAL(link_pipeline(st, 0, 4, 0, NULL, &done), SIM_EINVAL);
	CU_ASSERT_EQUAL(link_pipeline(st, 3, 0, 0, NULL, &done), SIM_EINVAL);
}

static void test_errors_and_profiles(void)
{
	struct link_net n;
	struct link_flow f;
	struct dev_catalog cat;
	const struct dev_profile *d;
	struct sim_err err;
	int l, h2d = -1, d2h = -1, dup[2];

	link_net_init(&n);
	sim_err_clear(&err);
	CU_ASSERT_EQUAL(link_add(&n, "zero", 0, 0, &err), SIM_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "zero"));
	CU_ASSERT_EQUAL(link_add(&n, "neg", 1e9, -1, NULL), SIM_EINVAL);
	l = link_add(&n, "ok", 1e9, 0, NULL);
	memset(&f, 0, sizeof f);
	dup[0] = dup[1] = l;
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, dup, 2, 1, 0, 0, NULL),
			SIM_EINVAL);
	dup[1] = 7;
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, dup, 2, 1, 0, 0, NULL),
			SIM_EINVAL);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, &l, 1, -5, 0, 0, NULL),
			SIM_EINVAL);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, &l, 0, 5, 0, 0, NULL),
			SIM_EINVAL);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, &l, 1, 5, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(link_flow_start(&n, &f, &l, 1, 5, 0, 0, NULL),
			SIM_ESTATE);

	CU_ASSERT_EQUAL_FATAL(dev_catalog_load(&cat, "models/devices", NULL),
			      0);
	d = dev_catalog_find(&cat, "a100-80gb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(link_add_host(&n, d, "gpu0", 1, &h2d, &d2h, NULL), 0);
	CU_ASSERT_STRING_EQUAL(n.links[h2d].name, "gpu0.h2d");
	CU_ASSERT_DOUBLE_EQUAL(n.links[h2d].bw_bytes_per_s,
			       d->h2d_pinned_bytes_per_s, 0);
	CU_ASSERT_EQUAL(n.links[d2h].latency_ns, d->pcie_latency_ns);
	CU_ASSERT_EQUAL(link_add_host(&n, d, "gpu1", 0, &h2d, &d2h, NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(n.links[h2d].bw_bytes_per_s,
			       d->h2d_pageable_bytes_per_s, 0);
	CU_ASSERT_EQUAL(n.links[h2d].latency_ns, d->pcie_latency_ns);
	/* A calibrated profile's per-kind copy latency wins over the one
	** pcie_latency_ns (0, the committed profiles' value, does not). */
	{
		struct dev_profile *c = malloc(sizeof *c);

		CU_ASSERT_FATAL(c != NULL);
		memcpy(c, d, sizeof *c);
		c->h2d_pinned_latency_ns = 7000;
		c->d2h_pageable_latency_ns = 16000;
		CU_ASSERT_EQUAL(link_add_host(&n, c, "gpu2", 1, &h2d, &d2h,
					      NULL), 0);
		CU_ASSERT_EQUAL(n.links[h2d].latency_ns, 7000);
		CU_ASSERT_EQUAL(n.links[d2h].latency_ns, c->pcie_latency_ns);
		CU_ASSERT_EQUAL(link_add_host(&n, c, "gpu3", 0, &h2d, &d2h,
					      NULL), 0);
		CU_ASSERT_EQUAL(n.links[h2d].latency_ns, c->pcie_latency_ns);
		CU_ASSERT_EQUAL(n.links[d2h].latency_ns, 16000);
		free(c);
	}
	CU_ASSERT(link_add_nvlink(&n, d, "gpu0", NULL) >= 0);
	CU_ASSERT_EQUAL(link_add_nvlink(&n, dev_catalog_find(&cat, "t4"),
					"gpu9", NULL), SIM_EINVAL);
	dev_catalog_fini(&cat);
	link_net_fini(&n);
	CU_ASSERT_EQUAL(f.active, 0);
}

TEST_REGISTER(link)
{
	static const struct test_case cases[] = {
		{ "single flow: latency + bytes/rate", test_single },
		{ "max-min fairness, one flow capped elsewhere", test_maxmin },
		{ "rates recomputed on start and end", test_progress },
		{ "pipeline recurrence by hand", test_pipeline },
		{ "errors and profile links", test_errors_and_profiles },
		{ NULL, NULL }
	};
	return test_add_suite("link", cases);
}
