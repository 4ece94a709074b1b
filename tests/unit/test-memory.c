/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for memory block discovery and the per-node/zone summary against fake sysfs trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static const struct pmemram_memblock *find_block(const struct pmemram_memory *m, unsigned long id)
{
	for (size_t i = 0; i < m->n_blocks; i++)
		if (m->blocks[i].id == id)
			return &m->blocks[i];
	return NULL;
}

static void test_hmat_blocks(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	const struct pmemram_memblock *b;

	assert_int_equal(pmemram_memory_read(ENV(state)->ctx, &m), 0);
	assert_int_equal(m->block_size, 128 * 1024 * 1024);
	assert_int_equal(m->auto_online, PMEMRAM_AUTO_ONLINE_OFFLINE);
	assert_int_equal(m->n_blocks, 25);
	/* sorted numerically */
	assert_int_equal(m->blocks[8].id, 8);
	assert_int_equal(m->blocks[9].id, 9);
	assert_int_equal(m->blocks[16].id, 32);

	b = find_block(m, 32);
	assert_non_null(b);
	assert_int_equal(b->state, PMEMRAM_BLOCK_ONLINE);
	assert_int_equal(b->zones.first, PMEMRAM_ZONE_MOVABLE);
	assert_int_equal(b->node, 2);
	assert_int_equal(b->phys_index, 0x20);
	assert_true(b->removable);

	b = find_block(m, 39);
	assert_int_equal(b->state, PMEMRAM_BLOCK_OFFLINE);
	assert_int_equal(b->zones.first, PMEMRAM_ZONE_MOVABLE);
	assert_int_equal(b->zones.mask, (1u << PMEMRAM_ZONE_MOVABLE) | (1u << PMEMRAM_ZONE_NORMAL));

	b = find_block(m, 40);
	assert_int_equal(b->state, PMEMRAM_BLOCK_GOING_OFFLINE);

	b = find_block(m, 0);
	assert_int_equal(b->zones.first, PMEMRAM_ZONE_NONE);
	assert_int_equal(b->node, 0);
}

static void test_hmat_summary(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	_cleanup_(pmemram_memory_summary_freep) struct pmemram_memory_summary *s = NULL;
	const struct pmemram_memory_node_summary *n;

	assert_int_equal(pmemram_memory_read(ENV(state)->ctx, &m), 0);
	assert_int_equal(pmemram_memory_summarize(m, &s), 0);
	assert_int_equal(s->n_nodes, 3);

	n = &s->nodes[0];
	assert_int_equal(n->node, 0);
	assert_int_equal(n->online_total, 8);
	assert_int_equal(n->online[PMEMRAM_ZONE_NONE], 1);
	assert_int_equal(n->online[PMEMRAM_ZONE_DMA32], 3);
	assert_int_equal(n->online[PMEMRAM_ZONE_NORMAL], 4);
	assert_int_equal(n->offline, 0);

	n = &s->nodes[1];
	assert_int_equal(n->node, 1);
	assert_int_equal(n->online[PMEMRAM_ZONE_NORMAL], 8);

	n = &s->nodes[2];
	assert_int_equal(n->node, 2);
	assert_int_equal(n->online[PMEMRAM_ZONE_MOVABLE], 7);
	assert_int_equal(n->online_total, 7);
	assert_int_equal(n->offline, 1);
	assert_int_equal(n->going_offline, 1);
}

static void test_stock_blocks(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	_cleanup_(pmemram_memory_summary_freep) struct pmemram_memory_summary *s = NULL;

	assert_int_equal(pmemram_memory_read(ENV(state)->ctx, &m), 0);
	assert_int_equal(m->auto_online, PMEMRAM_AUTO_ONLINE_ONLINE);
	assert_int_equal(m->n_blocks, 5);
	assert_int_equal(m->blocks[4].node, -1);

	/* blocks without a node come first */
	assert_int_equal(pmemram_memory_summarize(m, &s), 0);
	assert_int_equal(s->n_nodes, 2);
	assert_int_equal(s->nodes[0].node, -1);
	assert_int_equal(s->nodes[0].offline, 1);
	assert_int_equal(s->nodes[1].node, 0);
	assert_int_equal(s->nodes[1].online[PMEMRAM_ZONE_NORMAL], 4);
}

/* A block without its node link is still being added: 6.1 oopses on a read of its valid_zones,
 * so discovery must not open the file (a garbage one would fail the read if it did). */
static void test_unlinked_block_zones_not_read(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;

	assert_int_equal(fake_env_break(ENV(state), "devices/system/memory/memory4/valid_zones", "Bogus\n"), 0);
	assert_int_equal(pmemram_memory_read(ENV(state)->ctx, &m), 0);
	assert_int_equal(m->blocks[4].node, -1);
	assert_int_equal(m->blocks[4].state, PMEMRAM_BLOCK_OFFLINE);
	assert_int_equal(m->blocks[4].zones.mask, 0);
	assert_int_equal(m->blocks[4].zones.first, PMEMRAM_ZONE_NONE);
}

/* A block removed between the directory listing and the read of its files is left out, whether its
 * directory is gone or only its attributes (the kernel removes those first); a block that is there
 * but cannot be parsed still fails the read (test_failures). */
static void test_block_removed_while_read(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;

	/* What the listing sees of a block whose directory is gone by the time it is opened. */
	assert_int_equal(fake_sysfs_symlink(ENV(state)->root, "devices/system/memory/memory9", "memory-gone"), 0);
	/* And one whose attributes went first. */
	assert_int_equal(fake_env_break(ENV(state), "devices/system/memory/memory3/state", NULL), 0);
	assert_int_equal(pmemram_memory_read(ENV(state)->ctx, &m), 0);
	assert_int_equal(m->n_blocks, 4);
	assert_int_equal(m->blocks[2].id, 2);
	assert_int_equal(m->blocks[3].id, 4);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static int read_memory(struct pmemram_ctx *ctx)
{
	struct pmemram_memory *m = (struct pmemram_memory *)0x1;
	int r;

	r = pmemram_memory_read(ctx, &m);
	if (r < 0)
		assert_ptr_equal(m, (struct pmemram_memory *)0x1);
	else
		pmemram_memory_free(m);
	return r;
}

static void test_failures(void **state)
{
	static const struct fake_failure cases[] = {
		{ "devices/system/memory/block_size_bytes", NULL, -ENOENT, NULL },
		{ "devices/system/memory/block_size_bytes", "80000zz\n", -EINVAL, NULL },
		{ "devices/system/memory/block_size_bytes", "8000001\n", -EINVAL, NULL }, /* not a power of 2 */
		{ "devices/system/memory/auto_online_blocks", "sometimes\n", -EINVAL, NULL },
		{ "devices/system/memory/memory33/state", "half-online\n", -EINVAL, NULL },
		{ "devices/system/memory/memory33/valid_zones", "Movable Bogus\n", -EINVAL, NULL },
		{ "devices/system/memory/memory8/phys_index", "zz\n", -EINVAL, NULL },
	};

	fake_expect_failures(FAKE_KERNEL_HMAT, cases, ELEMENTSOF(cases), read_memory);
}

static void test_removable_optional(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	struct fake_env *env = ENV(state);

	assert_int_equal(fake_env_break(env, "devices/system/memory/memory1/removable", NULL), 0);
	assert_int_equal(pmemram_memory_read(env->ctx, &m), 0);
	assert_false(find_block(m, 1)->removable);
	assert_true(find_block(m, 2)->removable);
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

static void test_summarize_invalid(void **state)
{
	struct pmemram_memblock b = { .node = PMEMRAM_MAX_NODES, .state = PMEMRAM_BLOCK_ONLINE };
	struct pmemram_memory m = { .n_blocks = 1, .blocks = &b };
	struct pmemram_memory_summary *s = NULL;

	assert_int_equal(pmemram_memory_summarize(&m, &s), -EINVAL);
	assert_null(s);
	assert_int_equal(pmemram_memory_summarize(NULL, &s), -EINVAL);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_hmat_blocks, fake_env_setup_hmat),
		FAKE_TEST(test_hmat_summary, fake_env_setup_hmat),
		FAKE_TEST(test_stock_blocks, fake_env_setup_stock),
		FAKE_TEST(test_unlinked_block_zones_not_read, fake_env_setup_stock),
		FAKE_TEST(test_block_removed_while_read, fake_env_setup_stock),
		cmocka_unit_test(test_failures),
		FAKE_TEST(test_removable_optional, fake_env_setup_stock),
		cmocka_unit_test(test_summarize_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
