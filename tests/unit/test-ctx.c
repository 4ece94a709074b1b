/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the library context: sysfs root selection, refcounting, logging levels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

static int log_calls;
static char last_message[256];

_printf_(6, 0) static void record_log(struct pmemram_ctx *ctx, int priority, const char *file, int line,
				      const char *fn, const char *format, va_list args)
{
	log_calls++;
	vsnprintf(last_message, sizeof(last_message), format, args);
}

static void test_default_root(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;

	assert_int_equal(unsetenv("PMEMRAM_SYSFS_ROOT"), 0);
	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_string_equal(pmemram_ctx_get_sysfs_root(ctx), "/sys");
	assert_true(pmemram_ctx_get_sysfs_fd(ctx) >= 0);
	assert_int_equal(pmemram_ctx_get_log_priority(ctx), LOG_ERR);
	assert_null(pmemram_ctx_get_error_path(ctx));
}

static void test_env_root(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	struct pmemram_ctx *unchanged = (struct pmemram_ctx *)0x1;
	char *root = NULL, slashed[4096];

	assert_int_equal(fake_sysfs_new(&root), 0);
	snprintf(slashed, sizeof(slashed), "%s//", root);
	assert_int_equal(setenv("PMEMRAM_SYSFS_ROOT", slashed, 1), 0);
	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_string_equal(pmemram_ctx_get_sysfs_root(ctx), root);

	/* a root that does not exist fails, and leaves the output alone */
	assert_int_equal(setenv("PMEMRAM_SYSFS_ROOT", "/nonexistent/pmemram", 1), 0);
	assert_int_equal(pmemram_ctx_new(&unchanged), -ENOENT);
	assert_ptr_equal(unchanged, (struct pmemram_ctx *)0x1);

	assert_int_equal(unsetenv("PMEMRAM_SYSFS_ROOT"), 0);
	fake_sysfs_free(root);
}

static void test_set_root(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	char *root = NULL;

	assert_int_equal(fake_sysfs_new(&root), 0);
	assert_int_equal(fake_sysfs_write(root, "devices/system/memory/block_size_bytes", "8000000\n"), 0);
	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, root), 0);
	assert_string_equal(pmemram_ctx_get_sysfs_root(ctx), root);
	assert_int_equal(faccessat(pmemram_ctx_get_sysfs_fd(ctx), "devices/system/memory/block_size_bytes",
				   R_OK, 0),
			 0);

	/* a bad root keeps the old one */
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, "/nonexistent/pmemram"), -ENOENT);
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, ""), -EINVAL);
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, "/dev/null"), -ENOTDIR);
	assert_string_equal(pmemram_ctx_get_sysfs_root(ctx), root);

	fake_sysfs_free(root);
}

static void test_refcount(void **state)
{
	struct pmemram_ctx *ctx = NULL;
	int v = 3;

	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_ptr_equal(pmemram_ctx_ref(ctx), ctx);
	pmemram_ctx_set_userdata(ctx, &v);
	assert_null(pmemram_ctx_unref(ctx));
	/* still alive: one reference left */
	assert_ptr_equal(pmemram_ctx_get_userdata(ctx), &v);
	assert_null(pmemram_ctx_unref(ctx));

	assert_null(pmemram_ctx_unref(NULL));
	assert_null(pmemram_ctx_ref(NULL));
	assert_int_equal(pmemram_ctx_new(NULL), -EINVAL);
}

static void test_log_env(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL, *ctx2 = NULL;

	assert_int_equal(setenv("PMEMRAM_LOG", "debug", 1), 0);
	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_int_equal(pmemram_ctx_get_log_priority(ctx), LOG_DEBUG);

	/* nonsense keeps the default */
	assert_int_equal(setenv("PMEMRAM_LOG", "chatty", 1), 0);
	assert_int_equal(pmemram_ctx_new(&ctx2), 0);
	assert_int_equal(pmemram_ctx_get_log_priority(ctx2), LOG_ERR);
	assert_int_equal(unsetenv("PMEMRAM_LOG"), 0);
}

static void test_log_fn(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	char buf[16];

	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	pmemram_ctx_set_log_fn(ctx, record_log);
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, "/"), 0);

	/* library messages are debug only: nothing at the default level */
	log_calls = 0;
	assert_int_equal(sysfs_read_string(ctx, "nonexistent-attribute", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(log_calls, 0);
	assert_string_equal(pmemram_ctx_get_error_path(ctx), "/nonexistent-attribute");

	pmemram_ctx_set_log_priority(ctx, LOG_DEBUG);
	assert_int_equal(sysfs_read_string(ctx, "nonexistent-attribute", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(log_calls, 1);
	assert_non_null(strstr(last_message, "nonexistent-attribute"));

	pmemram_ctx_clear_error(ctx);
	assert_null(pmemram_ctx_get_error_path(ctx));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_root), cmocka_unit_test(test_env_root),
		cmocka_unit_test(test_set_root),     cmocka_unit_test(test_refcount),
		cmocka_unit_test(test_log_env),	     cmocka_unit_test(test_log_fn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
