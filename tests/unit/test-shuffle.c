/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the shuffle state: patched kernel/mm/shuffle, nodeN/shuffle, stock parameter fallback,
 * failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_patched(void **state)
{
	struct pmemram_shuffle s;

	assert_int_equal(pmemram_shuffle_read(ENV(state)->ctx, &s), 0);
	assert_int_equal(s.source, PMEMRAM_SHUFFLE_SYSFS);
	/* the raw parameter says N: the effective state wins */
	assert_true(s.enabled);
	assert_string_equal(s.reason, "hmat");
	assert_int_equal(s.order, 10);
	/* a kernel/mm/shuffle without nodeN/shuffle: no switch per node */
	assert_false(s.per_node);
	assert_int_equal(s.n_nodes, 0);
	assert_null(pmemram_shuffle_find_node(&s, 1));
}

static void test_live(void **state)
{
	struct pmemram_shuffle s;

	assert_int_equal(pmemram_shuffle_read(ENV(state)->ctx, &s), 0);
	assert_int_equal(s.source, PMEMRAM_SHUFFLE_SYSFS);
	assert_true(s.per_node);
	assert_int_equal(s.n_nodes, 3);
	for (int n = 0; n < 3; n++) {
		const struct pmemram_shuffle_node *e = pmemram_shuffle_find_node(&s, n);

		assert_non_null(e);
		assert_int_equal(e->node, n);
		assert_int_equal(e->enabled, n == 1);
		assert_string_equal(e->reason, n == 1 ? "hmat" : "default-off");
	}
	assert_null(pmemram_shuffle_find_node(&s, 3));
}

/* A node in the online list whose directory went meanwhile is left out; the others are read. */
static void test_live_node_gone(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_shuffle s;

	assert_int_equal(fake_env_break(env, "devices/system/node/node2/shuffle/enabled", NULL), 0);
	assert_int_equal(pmemram_shuffle_read(env->ctx, &s), 0);
	assert_true(s.per_node);
	assert_int_equal(s.n_nodes, 2);
	assert_null(pmemram_shuffle_find_node(&s, 2));
	assert_non_null(pmemram_shuffle_find_node(&s, 1));
}

/* Node 0's files gone (the first online node): the others are read, and the switch per node is still
 * known from the summary's node list. */
static void test_live_first_node_gone(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_shuffle s;

	assert_int_equal(fake_env_break(env, "devices/system/node/node0/shuffle/reason", NULL), 0);
	assert_int_equal(pmemram_shuffle_read(env->ctx, &s), 0);
	assert_true(s.per_node);
	assert_int_equal(s.n_nodes, 2);
	assert_null(pmemram_shuffle_find_node(&s, 0));
	assert_non_null(pmemram_shuffle_find_node(&s, 2));
}

static void test_live_write(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_shuffle s;

	assert_int_equal(pmemram_shuffle_node_write(env->ctx, 0, true), 0);
	assert_string_equal(fake_sysfs_read(env->root, "devices/system/node/node0/shuffle/enabled"), "1");
	assert_int_equal(pmemram_shuffle_node_write(env->ctx, 1, false), 0);
	assert_string_equal(fake_sysfs_read(env->root, "devices/system/node/node1/shuffle/enabled"), "0");
	assert_int_equal(pmemram_shuffle_read(env->ctx, &s), 0);
	assert_true(pmemram_shuffle_find_node(&s, 0)->enabled);
	assert_false(pmemram_shuffle_find_node(&s, 1)->enabled);
	/* no such node: the file cannot be written, and the context names it */
	assert_true(pmemram_shuffle_node_write(env->ctx, 7, true) < 0);
	assert_true(fake_env_error_path_is(env, "devices/system/node/node7/shuffle/enabled"));
	assert_int_equal(pmemram_shuffle_node_write(env->ctx, -1, true), -EINVAL);
}

static void test_patched_forced_off(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_shuffle s;

	assert_int_equal(fake_env_break(env, "kernel/mm/shuffle/enabled", "0\n"), 0);
	assert_int_equal(fake_env_break(env, "kernel/mm/shuffle/reason", "forced-off\n"), 0);
	assert_int_equal(pmemram_shuffle_read(env->ctx, &s), 0);
	assert_false(s.enabled);
	assert_string_equal(s.reason, "forced-off");
}

static void test_stock(void **state)
{
	struct pmemram_shuffle s;

	assert_int_equal(pmemram_shuffle_read(ENV(state)->ctx, &s), 0);
	assert_int_equal(s.source, PMEMRAM_SHUFFLE_PARAMETER);
	assert_true(s.enabled);
	assert_string_equal(s.reason, "parameter");
	assert_int_equal(s.order, -1);
}

static void test_unavailable(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_shuffle s;

	assert_int_equal(fake_env_break(env, "module/page_alloc", NULL), 0);
	assert_int_equal(pmemram_shuffle_read(env->ctx, &s), 0);
	assert_int_equal(s.source, PMEMRAM_SHUFFLE_UNAVAILABLE);
	assert_false(s.enabled);
	assert_string_equal(s.reason, "");
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

static int read_shuffle(struct pmemram_ctx *ctx)
{
	struct pmemram_shuffle s = { .order = 77 };
	int r;

	r = pmemram_shuffle_read(ctx, &s);
	if (r < 0)
		assert_int_equal(s.order, 77);
	return r;
}

static void test_failures(void **state)
{
	static const struct fake_failure patched[] = {
		{ "kernel/mm/shuffle/order", NULL, -ENOENT, NULL },
		{ "kernel/mm/shuffle/order", "ten\n", -EINVAL, NULL },
		{ "kernel/mm/shuffle/order", "-3\n", -EINVAL, NULL },
		{ "kernel/mm/shuffle/enabled", "2\n", -EINVAL, NULL },
		{ "kernel/mm/shuffle/reason", "HMAT says so\n", -EINVAL, NULL },
		{ "kernel/mm/shuffle/reason", "a-reason-far-longer-than-thirty-one-characters\n", -E2BIG, NULL },
	};
	static const struct fake_failure stock[] = {
		{ "module/page_alloc/parameters/shuffle", "maybe\n", -EINVAL, NULL },
	};

	static const struct fake_failure live[] = {
		{ "devices/system/node/node1/shuffle/enabled", "yes please\n", -EINVAL, NULL },
		{ "devices/system/node/node0/shuffle/reason", "Default Off\n", -EINVAL, NULL },
		{ "devices/system/node/node1/shuffle/reason", "\n", -EINVAL, NULL },
		{ "devices/system/node/node2/shuffle/reason", "a-reason-far-longer-than-thirty-one-characters\n",
		  -E2BIG, NULL },
		{ "devices/system/node/online", "0-x\n", -EINVAL, NULL },
	};

	fake_expect_failures(FAKE_KERNEL_HMAT, patched, ELEMENTSOF(patched), read_shuffle);
	fake_expect_failures(FAKE_KERNEL_LIVE, live, ELEMENTSOF(live), read_shuffle);
	fake_expect_failures(FAKE_KERNEL_STOCK, stock, ELEMENTSOF(stock), read_shuffle);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_patched, fake_env_setup_hmat),
		FAKE_TEST(test_patched_forced_off, fake_env_setup_hmat),
		FAKE_TEST(test_live, fake_env_setup_live),
		FAKE_TEST(test_live_node_gone, fake_env_setup_live),
		FAKE_TEST(test_live_first_node_gone, fake_env_setup_live),
		FAKE_TEST(test_live_write, fake_env_setup_live),
		FAKE_TEST(test_stock, fake_env_setup_stock),
		FAKE_TEST(test_unavailable, fake_env_setup_stock),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
