/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the shuffle state: patched kernel/mm/shuffle, stock parameter fallback, failures. */
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

	fake_expect_failures(FAKE_KERNEL_HMAT, patched, ELEMENTSOF(patched), read_shuffle);
	fake_expect_failures(FAKE_KERNEL_STOCK, stock, ELEMENTSOF(stock), read_shuffle);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_patched, fake_env_setup_hmat),
		FAKE_TEST(test_patched_forced_off, fake_env_setup_hmat),
		FAKE_TEST(test_stock, fake_env_setup_stock),
		FAKE_TEST(test_unavailable, fake_env_setup_stock),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
