/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for sysfs attribute I/O: typed reads, errors naming the file, write + re-read, dirs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

#define CTX(state) (((struct fake_env *)*(state))->ctx)
#define ROOT(state) (((struct fake_env *)*(state))->root)

static void assert_error_path(void **state, const char *path)
{
	assert_true(fake_env_error_path_is(*state, path));
	pmemram_ctx_clear_error(CTX(state));
}

static void test_read_typed(void **state)
{
	struct pmemram_ctx *ctx = CTX(state);
	struct pmemram_nodemask m;
	char buf[64];
	uint64_t v;
	int i;
	bool b;

	assert_int_equal(sysfs_read_string(ctx, "kernel/mm/shuffle/reason", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hmat");
	assert_int_equal(sysfs_read_hex(ctx, "devices/system/memory/block_size_bytes", &v), 0);
	assert_int_equal(v, 134217728);
	assert_int_equal(sysfs_read_u64(ctx, "bus/dax/devices/dax0.0/size", &v), 0);
	assert_int_equal(v, 1054867456);
	assert_int_equal(sysfs_read_int(ctx, "bus/dax/devices/dax0.0/target_node", &i), 0);
	assert_int_equal(i, 2);
	assert_int_equal(sysfs_read_bool(ctx, "module/page_alloc/parameters/shuffle", &b), 0);
	assert_false(b);
	assert_int_equal(sysfs_read_nodemask(ctx, "devices/system/node/has_memory", &m), 0);
	assert_int_equal(pmemram_nodemask_weight(&m), 3);
	assert_int_equal(sysfs_read_link_name(ctx, "bus/dax/devices/dax0.0/driver", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "kmem");
	assert_int_equal(sysfs_exists(ctx, "kernel/mm/shuffle"), 1);
	assert_int_equal(sysfs_exists(ctx, "kernel/mm/nothing"), 0);
	assert_null(pmemram_ctx_get_error_path(ctx));
}

static void test_read_errors(void **state)
{
	struct pmemram_ctx *ctx = CTX(state);
	const char *root = ROOT(state);
	char small[4];
	uint64_t v = 99;
	int i = 99;

	assert_int_equal(sysfs_read_u64(ctx, "devices/system/memory/nothing", &v), -ENOENT);
	assert_error_path(state, "devices/system/memory/nothing");

	assert_int_equal(fake_sysfs_write(root, "bad/number", "12x\n"), 0);
	assert_int_equal(sysfs_read_u64(ctx, "bad/number", &v), -EINVAL);
	assert_error_path(state, "bad/number");
	assert_int_equal(sysfs_read_int(ctx, "bad/number", &i), -EINVAL);
	assert_int_equal(v, 99);
	assert_int_equal(i, 99);

	assert_int_equal(fake_sysfs_write(root, "bad/empty", "%s", ""), 0);
	assert_int_equal(sysfs_read_hex(ctx, "bad/empty", &v), -EINVAL);

	/* too long for the caller's buffer: refused, not truncated */
	assert_int_equal(sysfs_read_string(ctx, "kernel/mm/shuffle/reason", small, sizeof(small)), -E2BIG);

	/* a directory is not an attribute */
	assert_int_equal(sysfs_read_u64(ctx, "kernel/mm/shuffle", &v), -EISDIR);
	assert_int_equal(sysfs_read_link_name(ctx, "kernel/mm/shuffle/order", small, sizeof(small)), -EINVAL);
	assert_true(sysfs_absent(ctx, -ENOENT));
	assert_null(pmemram_ctx_get_error_path(ctx));
	assert_false(sysfs_absent(ctx, -EINVAL));
}

static void test_write_verify(void **state)
{
	struct pmemram_ctx *ctx = CTX(state);
		char buf[32];

	assert_int_equal(sysfs_write_verify(ctx, "devices/system/memory/memory39/state", "online", NULL), 0);
	assert_int_equal(sysfs_read_string(ctx, "devices/system/memory/memory39/state", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "online");

	/* the kernel accepts online_movable but reports "online": verify against the expectation */
	assert_int_equal(sysfs_write_verify(ctx, "devices/system/memory/memory39/state", "online_movable",
					    "online"),
			 -EIO);
	assert_error_path(state, "devices/system/memory/memory39/state");

	assert_int_equal(sysfs_write_verify(ctx, "no/such/dir/state", "online", NULL), -ENOENT);
}

static void test_dir_read(void **state)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir d = {};
	struct pmemram_ctx *ctx = CTX(state);
	unsigned long id;

	assert_int_equal(sysfs_dir_read(ctx, "devices/system/memory", "memory", 100, &d), 0);
	assert_int_equal(d.n, 25);
	/* version order: memory8 before memory10 */
	assert_string_equal(d.names[0], "memory0");
	assert_string_equal(d.names[8], "memory8");
	assert_string_equal(d.names[10], "memory10");
	assert_string_equal(d.names[24], "memory40");
	sysfs_dir_done(&d);

	assert_int_equal(sysfs_dir_read(ctx, "devices/system/memory", "memory", 24, &d), -E2BIG);
	assert_int_equal(sysfs_dir_read(ctx, "devices/nothing", "x", 1, &d), -ENOENT);
	assert_int_equal(d.n, 0);

	assert_int_equal(sysfs_name_index("memory32", "memory", &id), 0);
	assert_int_equal(id, 32);
	assert_int_equal(sysfs_name_index("memory", "memory", &id), -EINVAL);
	assert_int_equal(sysfs_name_index("memory3x", "memory", &id), -EINVAL);
	assert_int_equal(sysfs_name_index("node3", "memory", &id), -EINVAL);
}

static void test_path_printf(void **state)
{
	char buf[8];

	assert_int_equal(path_printf(buf, sizeof(buf), "a/%d", 12), 0);
	assert_string_equal(buf, "a/12");
	assert_int_equal(path_printf(buf, sizeof(buf), "abcdef/%d", 12), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_typed, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_read_errors, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_write_verify, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_dir_read, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test(test_path_printf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
