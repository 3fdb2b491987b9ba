/*
** test_kvcache.c: the paged KV-cache pool (models/kvcache.h): block
** arithmetic, allocation and release, the admission watermark, swapping,
** resizing, and the accounting invariant.
*/
#include "models/kvcache.h"
#include "tests/util.h"

static void test_init(void)
{
	struct kv_pool p;
	struct sim_err err = { 0 };

	CU_ASSERT_EQUAL(kv_pool_init(&p, 100, 0, 0, 0.01, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(kv_pool_init(&p, -1, 16, 0, 0.01, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL(kv_pool_init(&p, 100, 16, 0, 1.0, &err), SIM_EINVAL);
	CU_ASSERT_EQUAL_FATAL(kv_pool_init(&p, 1000, 16, 50, 0.01, &err), 0);
	CU_ASSERT_EQUAL(p.free, 1000);
	CU_ASSERT_EQUAL(p.watermark, 10);      /* int(0.01 x 1000) */
	CU_ASSERT_EQUAL(kv_blocks_for(&p, 0), 0);
	CU_ASSERT_EQUAL(kv_blocks_for(&p, 1), 1);
	CU_ASSERT_EQUAL(kv_blocks_for(&p, 16), 1);
	CU_ASSERT_EQUAL(kv_blocks_for(&p, 17), 2);
	CU_ASSERT_EQUAL(kv_blocks_for(&p, 160), 10);
}

static void test_grow_free(void)
{
	struct kv_pool p;
	struct kv_seq a = { 0, 0, 0 }, b = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(kv_pool_init(&p, 10, 16, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 33), 0);      /* 3 blocks */
	CU_ASSERT_EQUAL(a.blocks, 3);
	CU_ASSERT_EQUAL(p.free, 7);
	CU_ASSERT_EQUAL(kv_seq_need(&p, &a, 48), 0);      /* room to 48 */
	CU_ASSERT_EQUAL(kv_seq_need(&p, &a, 49), 1);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 40), 0);      /* no new block */
	CU_ASSERT_EQUAL(a.blocks, 3);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &b, 112), 0);     /* 7 blocks */
	CU_ASSERT_EQUAL(p.free, 0);
	CU_ASSERT_EQUAL(p.peak_used, 10);
	CU_ASSERT_DOUBLE_EQUAL(kv_pool_util(&p), 1.0, 1e-12);
	/* out of blocks: refused, nothing changes */
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 49), SIM_ENOSPC);
	CU_ASSERT_EQUAL(a.blocks, 3);
	CU_ASSERT_EQUAL(p.free, 0);
	kv_seq_free(&p, &b);
	CU_ASSERT_EQUAL(p.free, 7);
	CU_ASSERT_EQUAL(b.blocks, 0);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 49), 0);
	CU_ASSERT_EQUAL(kv_pool_used(&p), 4);
}

static void test_watermark(void)
{
	struct kv_pool p;
	struct kv_seq a = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(kv_pool_init(&p, 200, 16, 0, 0.05, NULL), 0);
	CU_ASSERT_EQUAL(p.watermark, 10);
	/* admission keeps 10 blocks free; growth may use them */
	CU_ASSERT(kv_can_admit(&p, 190));
	CU_ASSERT(!kv_can_admit(&p, 191));
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 190 * 16), 0);
	CU_ASSERT(!kv_can_admit(&p, 1));
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 200 * 16), 0);
	CU_ASSERT_EQUAL(p.free, 0);
}

static void test_swap(void)
{
	struct kv_pool p;
	struct kv_seq a = { 0, 0, 0 }, b = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(kv_pool_init(&p, 10, 4, 5, 0, NULL), 0);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 16), 0);      /* 4 blocks */
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &b, 24), 0);      /* 6 blocks */
	CU_ASSERT_EQUAL(kv_seq_swap_out(&p, &b), SIM_ENOSPC); /* host has 5 */
	CU_ASSERT_EQUAL(b.on_host, 0);
	CU_ASSERT_EQUAL(kv_seq_swap_out(&p, &a), 0);
	CU_ASSERT_EQUAL(p.free, 4);
	CU_ASSERT_EQUAL(p.host_free, 1);
	CU_ASSERT_EQUAL(p.swapped_out, 4);
	CU_ASSERT_EQUAL(kv_seq_swap_out(&p, &a), SIM_ESTATE);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 20), SIM_ESTATE); /* on the host */
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &b, 40), 0);      /* b takes 4 more */
	CU_ASSERT_EQUAL(kv_seq_swap_in(&p, &a), SIM_ENOSPC);
	kv_seq_free(&p, &b);
	CU_ASSERT_EQUAL(kv_seq_swap_in(&p, &a), 0);
	CU_ASSERT_EQUAL(p.swapped_in, 4);
	CU_ASSERT_EQUAL(p.host_free, 5);
	CU_ASSERT_EQUAL(p.free, 6);
	kv_seq_free(&p, &a);
	CU_ASSERT_EQUAL(p.free, 10);
	/* freeing a swapped-out sequence returns host blocks */
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 8), 0);
	CU_ASSERT_EQUAL(kv_seq_swap_out(&p, &a), 0);
	kv_seq_free(&p, &a);
	CU_ASSERT_EQUAL(p.host_free, 5);
	CU_ASSERT_EQUAL(p.free, 10);
}

static void test_resize(void)
{
	struct kv_pool p;
	struct kv_seq a = { 0, 0, 0 };

	CU_ASSERT_EQUAL_FATAL(kv_pool_init(&p, 100, 16, 0, 0.1, NULL), 0);
	CU_ASSERT_EQUAL(kv_seq_grow(&p, &a, 60 * 16), 0);
	CU_ASSERT_EQUAL(kv_pool_set_blocks(&p, 59), SIM_ENOSPC);
	CU_ASSERT_EQUAL(p.blocks, 100);
	CU_ASSERT_EQUAL(kv_pool_set_blocks(&p, 60), 0);
	CU_ASSERT_EQUAL(p.free, 0);
	CU_ASSERT_EQUAL(p.watermark, 6);
	CU_ASSERT_EQUAL(kv_pool_set_blocks(&p, 200), 0);
	CU_ASSERT_EQUAL(p.free, 140);
	CU_ASSERT_EQUAL(p.watermark, 20);
}

TEST_REGISTER(kvcache)
{
	static const struct test_case cases[] = {
		{ "init and block arithmetic", test_init },
		{ "grow and free", test_grow_free },
		{ "admission watermark", test_watermark },
		{ "swap out and in", test_swap },
		{ "resize", test_resize },
		{ NULL, NULL }
	};

	return test_add_suite("kvcache", cases);
}
