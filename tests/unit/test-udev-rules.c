/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for finding udev rules that online memory: rule lines, whole files, and the directory scan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fake-sysfs.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_line(void **state)
{
	static const struct {
		const char *line;
		enum pmemram_udev_selects selects;
		bool sets_state;
		enum pmemram_auto_online policy;
	} cases[] = {
		{ "SUBSYSTEM==\"memory\", ACTION==\"add\", ATTR{state}==\"offline\", ATTR{state}=\"online\"",
		  PMEMRAM_UDEV_SELECTS_MEMORY, true, PMEMRAM_AUTO_ONLINE_ONLINE },
		{ "SUBSYSTEM == \"memory\" , ATTR{state} = \"online_movable\"", PMEMRAM_UDEV_SELECTS_MEMORY, true,
		  PMEMRAM_AUTO_ONLINE_MOVABLE },
		{ "SUBSYSTEM==\"cpu|memory\", ATTR{state}:=\"online_kernel\"", PMEMRAM_UDEV_SELECTS_MEMORY, true,
		  PMEMRAM_AUTO_ONLINE_KERNEL },
		{ "KERNEL==\"memory*\", ATTR{state}=\"online\"", PMEMRAM_UDEV_SELECTS_MEMORY, true,
		  PMEMRAM_AUTO_ONLINE_ONLINE },
		{ "SUBSYSTEM==\"memory\", ATTR{state}=\"$env{.state}\"", PMEMRAM_UDEV_SELECTS_MEMORY, true,
		  PMEMRAM_AUTO_ONLINE_ONLINE },
		/* A match on the state is not a write; "offline" onlines nothing. */
		{ "SUBSYSTEM==\"memory\", ATTR{state}==\"online\"", PMEMRAM_UDEV_SELECTS_MEMORY, false, 0 },
		{ "SUBSYSTEM==\"memory\", ATTR{state}=\"offline\"", PMEMRAM_UDEV_SELECTS_MEMORY, false, 0 },
		{ "SUBSYSTEM==\"cpu\", ATTR{online}=\"1\"", PMEMRAM_UDEV_SELECTS_OTHER, false, 0 },
		{ "SUBSYSTEM!=\"memory\", GOTO=\"end\"", PMEMRAM_UDEV_SELECTS_NOT_MEMORY, false, 0 },
		{ "SUBSYSTEM!=\"cpu\", ATTR{state}=\"online\"", PMEMRAM_UDEV_SELECTS_ANY, true, PMEMRAM_AUTO_ONLINE_ONLINE },
		{ "ACTION==\"add\", RUN+=\"/bin/sh -c \\\"echo online > /sys$devpath/state\\\"\"",
		  PMEMRAM_UDEV_SELECTS_ANY, false, 0 },
		{ "LABEL=\"end\"", PMEMRAM_UDEV_SELECTS_ANY, false, 0 },
	};
	struct pmemram_udev_line l;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		assert_int_equal(pmemram_parse_udev_line(cases[i].line, &l), 0);
		if (l.selects != cases[i].selects || l.sets_state != cases[i].sets_state ||
		    (l.sets_state && l.policy != cases[i].policy))
			fail_msg("%s: selects %d sets %d policy %d", cases[i].line, l.selects, l.sets_state, l.policy);
	}

	assert_int_equal(pmemram_parse_udev_line("SUBSYSTEM!=\"memory\", GOTO=\"memory_end\"", &l), 0);
	assert_string_equal(l.goto_label, "memory_end");
	assert_int_equal(pmemram_parse_udev_line("LABEL=\"memory_end\"", &l), 0);
	assert_string_equal(l.label, "memory_end");
	assert_string_equal(l.goto_label, "");
}

static void test_line_malformed(void **state)
{
	static const char *const lines[] = {
		"SUBSYSTEM==memory",
		"SUBSYSTEM==\"memory",
		"SUBSYSTEM \"memory\"",
		"ATTR{state=\"online\"",
		"=\"x\"",
		"SUBSYSTEM==\"memory\"x",
		"GOTO=\"a-label-much-longer-than-the-sixty-three-bytes-a-label-may-have-in-here\"",
	};
	struct pmemram_udev_line l = { .label = "untouched" };

	for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
		if (pmemram_parse_udev_line(lines[i], &l) != -EINVAL)
			fail_msg("accepted: %s", lines[i]);
		assert_string_equal(l.label, "untouched");
	}
}

static int scan(const char *text, struct pmemram_observed_udev *u)
{
	*u = (struct pmemram_observed_udev){};
	return pmemram_udev_rules_scan("/etc/udev/rules.d/x.rules", text, strlen(text), u);
}

static void test_file(void **state)
{
	struct pmemram_observed_udev u;

	/* Red Hat's style: skip everything but memory to a label; continuation lines; comments. */
	assert_int_equal(scan("# Memory hotadd request\n"
			      "SUBSYSTEM!=\"memory\", GOTO=\"memory_hotplug_end\"\n"
			      "ACTION!=\"add\", \\\n"
			      "   GOTO=\"memory_hotplug_end\"\n"
			      "ENV{.state}=\"online\"\n"
			      "   # indented comment\n"
			      "ATTR{state}==\"offline\", ATTR{state}=\"$env{.state}\"\n"
			      "LABEL=\"memory_hotplug_end\"\n",
			      &u),
			 1);
	assert_true(u.onlines_memory);
	assert_int_equal(u.policy, PMEMRAM_AUTO_ONLINE_ONLINE);
	assert_string_equal(u.rule, "/etc/udev/rules.d/x.rules:7");

	/* After the label the section is over: a bare state write no longer concerns memory. */
	assert_int_equal(scan("SUBSYSTEM!=\"memory\", GOTO=\"end\"\n"
			      "LABEL=\"end\"\n"
			      "ATTR{state}=\"online\"\n",
			      &u),
			 0);
	assert_false(u.onlines_memory);

	/* The first onlining rule counts; malformed lines are skipped; no final newline. */
	assert_int_equal(scan("SUBSYSTEM==\"memory\", ATTR{state}=\"online\n"
			      "\n"
			      "SUBSYSTEM==\"cpu\", ATTR{state}=\"online\"\n"
			      "SUBSYSTEM==\"memory\", ATTR{state}=\"online_movable\"\n"
			      "SUBSYSTEM==\"memory\", ATTR{state}=\"online_kernel\"",
			      &u),
			 1);
	assert_int_equal(u.policy, PMEMRAM_AUTO_ONLINE_MOVABLE);
	assert_string_equal(u.rule, "/etc/udev/rules.d/x.rules:4");

	assert_int_equal(scan("", &u), 0);
	assert_int_equal(scan("\\\n\\\n", &u), 0);
	assert_int_equal(pmemram_udev_rules_scan("x", NULL, 0, &u), 0);

	/* The text is size bytes, not a string: a file ending in blanks has no NUL after them. */
	{
		char *blanks = malloc(3);

		assert_non_null(blanks);
		memcpy(blanks, " \t ", 3);
		assert_int_equal(pmemram_udev_rules_scan("x", blanks, 3, &u), 0);
		free(blanks);
	}
}

static void test_file_too_long(void **state)
{
	size_t n = 2 * PMEMRAM_UDEV_MAX_LINE;
	_cleanup_(freep) char *text = malloc(n + 64);
	struct pmemram_observed_udev u;
	char *p;

	/* A rule longer than the limit is skipped whole, not cut into something that parses. */
	assert_non_null(text);
	p = stpcpy(text, "SUBSYSTEM==\"memory\", ATTR{state}=\"online\", ");
	while ((size_t)(p - text) < n)
		p = stpcpy(p, "\\\n ENV{x}=\"y\",");
	strcpy(p, "\n");
	assert_int_equal(scan(text, &u), 0);
}

static void test_dirs(void **state)
{
	struct pmemram_observed_udev u = {};

	/* 60-pmemram.rules is ours; /usr/lib/.../40-vendor.rules hides /lib/.../40-vendor.rules. */
	assert_int_equal(pmemram_udev_rules_read(ENV(state)->ctx, &u), 0);
	assert_true(u.onlines_memory);
	assert_int_equal(u.policy, PMEMRAM_AUTO_ONLINE_MOVABLE);
	assert_string_equal(u.rule, FAKE_UDEV_RULE);

	/* /etc overrides by name; a /dev/null-style empty file masks. */
	assert_int_equal(fake_sysfs_write(ENV(state)->udev, "etc/udev/rules.d/40-vendor.rules", "%s", ""), 0);
	assert_int_equal(pmemram_udev_rules_read(ENV(state)->ctx, &u), 0);
	assert_false(u.onlines_memory);

	/* Sorted by name across directories: 30-*.rules in /run comes first. */
	assert_int_equal(fake_sysfs_write(ENV(state)->udev, "run/udev/rules.d/30-mem.rules",
					  "SUBSYSTEM==\"memory\", ATTR{state}=\"online_kernel\"\n"),
			 0);
	assert_int_equal(pmemram_udev_rules_read(ENV(state)->ctx, &u), 0);
	assert_int_equal(u.policy, PMEMRAM_AUTO_ONLINE_KERNEL);
	assert_string_equal(u.rule, "/run/udev/rules.d/30-mem.rules:1");
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* Set the mtime of every rules directory that exists to a minute ago. */
static void age_rules_dirs(const char *root)
{
	static const char *const dirs[] = { "etc/udev/rules.d", "run/udev/rules.d", "usr/local/lib/udev/rules.d",
					    "usr/lib/udev/rules.d", "lib/udev/rules.d" };
	struct timespec times[2];
	char path[4096];

	assert_int_equal(clock_gettime(CLOCK_REALTIME, &times[0]), 0);
	times[0].tv_sec -= 60;
	times[1] = times[0];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (utimensat(AT_FDCWD, path, times, 0) < 0)
			assert_int_equal(errno, ENOENT);
	}
}

/* The rules are read again only when a directory changed: otherwise a read costs a stat per
 * directory.  A directory changed in the last seconds is read every time (its mtime may not
 * change again within the clock's tick). */
static void test_dirs_cached(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_observed_udev u = {};
	uint64_t before;

	assert_int_equal(fake_sysfs_write(env->udev, "etc/udev/rules.d/70-mem.rules",
					  "SUBSYSTEM==\"memory\", ATTR{state}=\"online_kernel\"\n"),
			 0);
	/* Just changed: read, and read again. */
	assert_int_equal(pmemram_udev_rules_read(env->ctx, &u), 0);
	assert_string_equal(u.rule, FAKE_UDEV_RULE);
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_UDEV);
	assert_int_equal(pmemram_udev_rules_read(env->ctx, &u), 0);
	assert_true(pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_UDEV) - before > 5);

	/* Settled: read once more, then only stamped. */
	age_rules_dirs(env->udev);
	assert_int_equal(pmemram_udev_rules_read(env->ctx, &u), 0);
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_UDEV);
	memset(&u, 0, sizeof(u));
	assert_int_equal(pmemram_udev_rules_read(env->ctx, &u), 0);
	assert_int_equal(pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_UDEV) - before, 5);
	assert_true(u.onlines_memory);
	assert_string_equal(u.rule, FAKE_UDEV_RULE);

	/* A file removed from /usr/lib: that directory changed, the rules are read again, and the
	 * file of the same name in /lib is no longer hidden. */
	assert_int_equal(fake_sysfs_remove(env->udev, "usr/lib/udev/rules.d/40-vendor.rules"), 0);
	assert_int_equal(pmemram_udev_rules_read(env->ctx, &u), 0);
	assert_string_equal(u.rule, "/lib/udev/rules.d/40-vendor.rules:1");
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

static void test_dirs_absent(void **state)
{
	struct pmemram_observed_udev u = { .onlines_memory = true };

	assert_int_equal(fake_sysfs_remove(ENV(state)->udev, "usr"), 0);
	assert_int_equal(fake_sysfs_remove(ENV(state)->udev, "lib"), 0);
	assert_int_equal(pmemram_udev_rules_read(ENV(state)->ctx, &u), 0);
	assert_false(u.onlines_memory);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_file_too_big(void **state)
{
	struct pmemram_observed_udev u = { .rule = "untouched" };
	_cleanup_(freep) char *big = calloc(1, PMEMRAM_UDEV_MAX_FILE_SIZE + 2);
	char expected[4096];

	assert_non_null(big);
	memset(big, '#', PMEMRAM_UDEV_MAX_FILE_SIZE + 1);
	assert_int_equal(fake_sysfs_write(ENV(state)->udev, "etc/udev/rules.d/01-big.rules", "%s", big), 0);
	assert_int_equal(pmemram_udev_rules_read(ENV(state)->ctx, &u), -EFBIG);
	assert_string_equal(u.rule, "untouched");
	snprintf(expected, sizeof(expected), "%s/etc/udev/rules.d/01-big.rules", ENV(state)->udev);
	assert_string_equal(pmemram_ctx_get_error_path(ENV(state)->ctx), expected);
}

/* daxctl 76's hook (-C as daxctl's first argument), and rules that only look like it. */
static void test_daxctl_hook(void **state)
{
	static const char hook[] = "# daxctl\n"
				   "ACTION==\"add\", SUBSYSTEM==\"dax\", RUN+=\"/usr/bin/mydaxctl -C x\"\n"
				   "ACTION==\"add\", RUN==\"/usr/bin/daxctl -C x\"\n"
				   "ACTION==\"add\", SUBSYSTEM==\"dax\", \\\n"
				   "  RUN+=\"/usr/bin/daxctl -C $env{DEVNAME}\"\n";
	static const char other[] = "ACTION==\"add\", SUBSYSTEM==\"dax\", ENV{SYSTEMD_WANTS}=\"daxdev-reconfigure@x\"\n"
				    "RUN+=\"/usr/bin/daxctl list\"\n"
				    "RUN+=\"/usr/bin/daxctl reconfigure-device -C $env{DEVNAME}\"\n"
				    "RUN+=\"/usr/bin/daxctl -Cx\"\n";
	char rule[64];

	assert_int_equal(pmemram_udev_daxctl_hook_scan("/r/90.rules", hook, strlen(hook), rule, sizeof(rule)), 1);
	assert_string_equal(rule, "/r/90.rules:4");
	assert_int_equal(pmemram_udev_daxctl_hook_scan("/r/90.rules", other, strlen(other), rule, sizeof(rule)), 0);
	assert_int_equal(pmemram_udev_daxctl_hook_scan("/r/90.rules", NULL, 0, rule, sizeof(rule)), 0);
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),	    cmocka_unit_test(test_line_malformed),
		cmocka_unit_test(test_file),	    cmocka_unit_test(test_file_too_long),
		cmocka_unit_test(test_daxctl_hook), FAKE_TEST(test_dirs),
		FAKE_TEST(test_dirs_cached),	    FAKE_TEST(test_dirs_absent),
		FAKE_TEST(test_file_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
