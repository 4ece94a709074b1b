/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for NUMA node discovery: masks, MemTotal, memory-side caches, access0, tiers, vmstat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_hmat_nodes(void **state)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;
	const struct pmemram_node *n;

	assert_int_equal(pmemram_topology_read(ENV(state)->ctx, &t), 0);
	assert_int_equal(t->n_nodes, 3);
	assert_int_equal(pmemram_nodemask_weight(&t->has_cpu), 1);

	n = pmemram_topology_find_node(t, 0);
	assert_non_null(n);
	assert_true(n->has_cpu);
	assert_true(n->has_memory);
	assert_int_equal(n->mem_total, 1073741824);
	assert_int_equal(n->tier, 4);
	assert_int_equal(n->n_caches, 0);
	assert_true(n->access0.present);
	assert_int_equal(n->access0.read_latency, 10);
	assert_int_equal(n->access0.write_bandwidth, 10240);

	n = pmemram_topology_find_node(t, 1);
	assert_false(n->has_cpu);
	assert_true(n->has_memory);
	assert_int_equal(n->tier, 4);
	assert_int_equal(n->n_caches, 1);
	assert_int_equal(n->caches[0].level, 1);
	assert_int_equal(n->caches[0].size, 128 * 1024 * 1024);
	assert_int_equal(n->caches[0].line_size, 64);
	assert_int_equal(n->caches[0].indexing, PMEMRAM_CACHE_DIRECT_MAPPED);
	assert_int_equal(n->caches[0].write_policy, PMEMRAM_CACHE_WRITE_BACK);
	assert_int_equal(n->access0.read_latency, 30);
	assert_int_equal(n->access0.read_bandwidth, 5120);

	n = pmemram_topology_find_node(t, 2);
	assert_int_equal(n->mem_total, 896 * 1024 * 1024);
	assert_int_equal(n->tier, 22);
	assert_int_equal(n->access0.write_latency, 100);

	assert_null(pmemram_topology_find_node(t, 3));
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_stock_nodes(void **state)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;

	assert_int_equal(pmemram_topology_read(ENV(state)->ctx, &t), 0);
	assert_int_equal(t->n_nodes, 1);
	assert_int_equal(t->nodes[0].mem_total, 2147483648ULL);
	assert_int_equal(t->nodes[0].tier, -1);
	assert_int_equal(t->nodes[0].n_caches, 0);
	assert_false(t->nodes[0].access0.present);
}

static void test_complex_cache(void **state)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;
	struct fake_env *env = ENV(state);

	assert_int_equal(fake_env_break(env, "devices/system/node/node1/memory_side_cache/index1/indexing", "1\n"), 0);
	assert_int_equal(fake_env_break(env, "devices/system/node/node1/memory_side_cache/index1/write_policy", "1\n"), 0);
	assert_int_equal(pmemram_topology_read(env->ctx, &t), 0);
	assert_int_equal(t->nodes[1].caches[0].indexing, PMEMRAM_CACHE_COMPLEX);
	assert_int_equal(t->nodes[1].caches[0].write_policy, PMEMRAM_CACHE_WRITE_THROUGH);
}

static int read_topology(struct pmemram_ctx *ctx)
{
	struct pmemram_topology *t = (struct pmemram_topology *)0x1;
	int r;

	r = pmemram_topology_read(ctx, &t);
	if (r < 0)
		assert_ptr_equal(t, (struct pmemram_topology *)0x1);
	else
		pmemram_topology_free(t);
	return r;
}

#define CACHE1 "devices/system/node/node1/memory_side_cache/index1"

static void test_failures(void **state)
{
	static const struct fake_failure cases[] = {
		{ "devices/system/node/online", NULL, -ENOENT, NULL },
		{ "devices/system/node/has_memory", "0-\n", -EINVAL, NULL },
		{ "devices/system/node/node2/meminfo", NULL, -ENOENT, NULL },
		{ "devices/system/node/node2/meminfo", "Node 2 MemFree: 12 kB\n", -EINVAL, NULL },
		{ CACHE1 "/size", "big\n", -EINVAL, NULL },
		{ CACHE1 "/line_size", NULL, -ENOENT, NULL },
		{ CACHE1 "/indexing", "3\n", -EINVAL, CACHE1 },
		{ CACHE1 "/write_policy", "7\n", -EINVAL, CACHE1 },
		{ "devices/system/node/node0/access0/initiators/read_bandwidth", NULL, -ENOENT, NULL },
		{ "devices/virtual/memory_tiering/memory_tier22/nodelist", "two\n", -EINVAL, NULL },
	};

	fake_expect_failures(FAKE_KERNEL_HMAT, cases, ELEMENTSOF(cases), read_topology);
}

/* The kernel drops a tier when its last node goes (kmem unbound): one listed but gone by the time
 * its nodelist is read is left out, and its nodes have no tier. */
static void test_tier_removed_while_read(void **state)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;

	assert_int_equal(fake_env_break(ENV(state), "devices/virtual/memory_tiering/memory_tier22/nodelist", NULL), 0);
	assert_int_equal(pmemram_topology_read(ENV(state)->ctx, &t), 0);
	assert_int_equal(pmemram_topology_find_node(t, 0)->tier, 4);
	assert_int_equal(pmemram_topology_find_node(t, 2)->tier, -1);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* A node whose last memory went (kmem unbound) leaves the online list and loses its directory:
 * one listed but gone by the time it is read is left out, not an error. */
static void test_node_removed_while_read(void **state)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;

	assert_int_equal(fake_sysfs_remove(ENV(state)->root, "devices/system/node/node2"), 0);
	assert_int_equal(pmemram_topology_read(ENV(state)->ctx, &t), 0);
	assert_int_equal(t->n_nodes, 2);
	assert_non_null(pmemram_topology_find_node(t, 1));
	assert_null(pmemram_topology_find_node(t, 2));
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* The tiering counters of a node's vmstat, in the kernel's order; other lines left out. */
static void test_vmstat(void **state)
{
	struct pmemram_vmstat_counter c[PMEMRAM_VMSTAT_MAX];
	struct pmemram_ctx *ctx = ENV(state)->ctx;

	assert_int_equal(fake_sysfs_write(ENV(state)->root, "devices/system/node/node1/vmstat",
					  "nr_free_pages 1234\npgpromote_success 17\nnuma_hit 9\n"
					  "pgdemote_kswapd 5\npgdemote_direct 0\npgpromote_candidate 21\n"),
			 0);
	assert_int_equal(pmemram_node_vmstat_read(ctx, 1, c, ELEMENTSOF(c)), 4);
	assert_string_equal(c[0].name, "pgpromote_success");
	assert_int_equal(c[0].value, 17);
	assert_string_equal(c[1].name, "pgdemote_kswapd");
	assert_int_equal(c[1].value, 5);
	assert_string_equal(c[2].name, "pgdemote_direct");
	assert_int_equal(c[2].value, 0);
	assert_string_equal(c[3].name, "pgpromote_candidate");
	assert_int_equal(c[3].value, 21);
	/* At most max of them. */
	assert_int_equal(pmemram_node_vmstat_read(ctx, 1, c, 2), 2);
	/* No file (a kernel before tiering counters): none, not an error. */
	assert_int_equal(pmemram_node_vmstat_read(ctx, 7, c, ELEMENTSOF(c)), 0);
	assert_null(pmemram_ctx_get_error_path(ctx));
	/* A tiering counter that does not parse is an error naming the file. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "devices/system/node/node2/vmstat", "pgdemote_kswapd x\n"), 0);
	assert_int_equal(pmemram_node_vmstat_read(ctx, 2, c, ELEMENTSOF(c)), -EINVAL);
	assert_non_null(strstr(pmemram_ctx_get_error_path(ctx), "node2/vmstat"));
}

static void test_parse_vmstat_line(void **state)
{
	struct pmemram_vmstat_counter c;

	(void)state;
	assert_int_equal(pmemram_parse_vmstat_line("pgdemote_direct 18446744073709551615", &c), 1);
	assert_string_equal(c.name, "pgdemote_direct");
	assert_true(c.value == UINT64_MAX);
	assert_int_equal(pmemram_parse_vmstat_line("numa_hit 3", &c), 0);
	assert_int_equal(pmemram_parse_vmstat_line("pgpromote_success", &c), -EINVAL);
	assert_int_equal(pmemram_parse_vmstat_line("pgpromote_success -1", &c), -EINVAL);
	assert_int_equal(pmemram_parse_vmstat_line("pgpromote_Success 1", &c), -EINVAL);
	assert_int_equal(pmemram_parse_vmstat_line("pgpromote_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1", &c), -EINVAL);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_hmat_nodes, fake_env_setup_hmat),
		FAKE_TEST(test_stock_nodes, fake_env_setup_stock),
		FAKE_TEST(test_complex_cache, fake_env_setup_hmat),
		FAKE_TEST(test_tier_removed_while_read, fake_env_setup_hmat),
		FAKE_TEST(test_node_removed_while_read, fake_env_setup_hmat),
		cmocka_unit_test(test_failures),
		FAKE_TEST(test_vmstat, fake_env_setup_hmat),
		cmocka_unit_test(test_parse_vmstat_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
