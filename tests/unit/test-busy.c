/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the users of pmem: maps and mountinfo lines, block links, and the scans over a fake procfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "fake-sysfs.h"
#include "pmemram-observe.h"
#include "pmemram-pagemap.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_maps_line(void **state)
{
	static const struct {
		const char *line;
		const char *path; /* NULL: -EINVAL */
	} cases[] = {
		{ "7f0000000000-7f0010000000 rw-s 00000000 00:05 321                        /dev/dax0.0\n", "/dev/dax0.0" },
		{ "7f0000000000-7f0010000000 rw-s 00000000 00:05 321 /dev/dax0.0 (deleted)\n", "/dev/dax0.0" },
		{ "7f0000000000-7f0010000000 r--p 00000000 fe:00 7 /home/a b/lib.so\n", "/home/a b/lib.so" },
		{ "7ffd5a4c6000-7ffd5a4e7000 rw-p 00000000 00:00 0                          [stack]", "[stack]" },
		{ "7f3e1c000000-7f3e1c021000 rw-p 00000000 00:00 0 \n", "" },
		{ "7f3e1c000000-7f3e1c021000 rw-p 00000000 00:00 0", "" },
		{ "", NULL },
		{ "garbage\n", NULL },
		{ "7f3e1c000000-7f3e1c021000 rw-p 00000000\n", NULL },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const char *path = NULL;
		size_t len = 0;
		int r = pmemram_parse_maps_line(cases[i].line, &path, &len);

		if (!cases[i].path) {
			assert_int_equal(r, -EINVAL);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(len, strlen(cases[i].path));
		assert_memory_equal(path, cases[i].path, len);
	}
}

static void test_mountinfo_line(void **state)
{
	struct pmemram_mountinfo m;
	char long_source[200];

	assert_int_equal(pmemram_parse_mountinfo_line(
				 "40 21 259:0 / /mnt/pmem rw,relatime shared:30 - ext4 /dev/pmem2 rw,dax=always\n", &m),
			 0);
	assert_int_equal(m.major, 259);
	assert_int_equal(m.minor, 0);
	assert_string_equal(m.source, "/dev/pmem2");

	/* No optional fields; several of them; a mount point with an escaped space. */
	assert_int_equal(pmemram_parse_mountinfo_line("36 35 98:17 /x /mnt - xfs /dev/sdb1 rw", &m), 0);
	assert_int_equal(m.minor, 17);
	assert_string_equal(m.source, "/dev/sdb1");
	assert_int_equal(pmemram_parse_mountinfo_line("36 35 0:5 / /my\\040dir rw shared:2 master:1 - tmpfs tmpfs rw", &m), 0);
	assert_int_equal(m.major, 0);
	assert_string_equal(m.source, "tmpfs");

	/* A source too long for the buffer is dropped, the numbers kept. */
	memset(long_source, 'x', sizeof(long_source) - 1);
	long_source[sizeof(long_source) - 1] = '\0';
	{
		char line[400];

		snprintf(line, sizeof(line), "1 2 8:1 / /m rw - fuse %s rw", long_source);
		assert_int_equal(pmemram_parse_mountinfo_line(line, &m), 0);
		assert_int_equal(m.major, 8);
		assert_string_equal(m.source, "");
	}

	assert_int_equal(pmemram_parse_mountinfo_line("36 35 98:0 / /mnt rw shared:1\n", &m), -EINVAL);
	assert_int_equal(pmemram_parse_mountinfo_line("36 35 98 / /mnt rw - ext4 /dev/x rw", &m), -EINVAL);
	assert_int_equal(pmemram_parse_mountinfo_line("36 35 a:0 / /mnt rw - ext4 /dev/x rw", &m), -EINVAL);
	assert_int_equal(pmemram_parse_mountinfo_line("36 35 1:99999999999 / /m rw - ext4 /dev/x rw", &m), -ERANGE);
	assert_int_equal(pmemram_parse_mountinfo_line("36", &m), -EINVAL);
}

static void test_links(void **state)
{
	char buf[32];

	assert_int_equal(pmemram_parse_link_parent("../../../devices/platform/ACPI0012:00/ndbus0/region0/namespace0.0",
						   buf, sizeof(buf)), 0);
	assert_string_equal(buf, "region0");
	assert_int_equal(pmemram_parse_link_parent("/a/region7/namespace7.1/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "region7");
	assert_int_equal(pmemram_parse_link_parent("namespace0.0", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_parse_link_parent("../namespace0.0", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_parse_link_parent("/a/region0/n", buf, 4), -ENAMETOOLONG);

	assert_int_equal(pmemram_parse_block_link("../../devices/platform/x/region2/pfn2.1/block/pmem2", buf,
						  sizeof(buf)), 0);
	assert_string_equal(buf, "pmem2");
	assert_int_equal(pmemram_parse_block_link("../../devices/x/block/pmem0/pmem0p1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pmem0");
	assert_int_equal(pmemram_parse_block_link("../../devices/virtual/block/loop0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "loop0");
	assert_int_equal(pmemram_parse_block_link("../../devices/x/nvme0n1", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_parse_block_link("/block/", buf, sizeof(buf)), -EINVAL);
}

static void test_blockdev_is_on(void **state)
{
	assert_true(pmemram_blockdev_is_on("pmem0", "pmem0"));
	assert_true(pmemram_blockdev_is_on("/dev/pmem0", "pmem0"));
	assert_true(pmemram_blockdev_is_on("/dev/pmem0p1", "pmem0"));
	assert_true(pmemram_blockdev_is_on("pmem0.1p12", "pmem0.1"));
	assert_true(pmemram_blockdev_is_on("pmem0s1", "pmem0s"));
	assert_false(pmemram_blockdev_is_on("pmem01", "pmem0"));
	assert_false(pmemram_blockdev_is_on("pmem0p", "pmem0"));
	assert_false(pmemram_blockdev_is_on("pmem0.1", "pmem0"));
	assert_false(pmemram_blockdev_is_on("/dev/pmem1", "pmem0"));
	assert_false(pmemram_blockdev_is_on("pmem0", ""));
	assert_false(pmemram_blockdev_is_on("tmpfs", "pmem0"));
}

static void test_ns_mode(void **state)
{
	enum pmemram_ns_mode m;

	assert_int_equal(pmemram_parse_ns_mode("raw", &m), 1);
	assert_int_equal(m, PMEMRAM_NS_RAW);
	assert_int_equal(pmemram_parse_ns_mode("safe", &m), 1);
	assert_int_equal(m, PMEMRAM_NS_SECTOR);
	assert_int_equal(pmemram_parse_ns_mode("memory", &m), 1);
	assert_int_equal(m, PMEMRAM_NS_FSDAX);
	assert_int_equal(pmemram_parse_ns_mode("dax", &m), 0);
	assert_int_equal(pmemram_parse_ns_mode("fsdax", &m), -EINVAL);
	assert_int_equal(pmemram_parse_ns_mode("", &m), -EINVAL);
}

static struct pmemram_observed_dax observed_dax(const char *name)
{
	struct pmemram_observed_dax d = {};

	strcpy(d.dax.name, name);
	return d;
}

static struct pmemram_observed_namespace observed_ns(const char *name, const char *disk)
{
	struct pmemram_observed_namespace ns = {};

	strcpy(ns.name, name);
	strcpy(ns.blockdev, disk);
	return ns;
}

static void test_dax_users_scan(void **state)
{
	struct pmemram_observed_dax devices[] = { observed_dax("dax0.0"), observed_dax("dax1.0"), observed_dax("dax1.1"),
						  observed_dax("dax7.0") };
	size_t unreadable = 99;

	assert_int_equal(pmemram_users_scan(ENV(state)->ctx, devices, ELEMENTSOF(devices), NULL, 0, &unreadable), 0);
	assert_int_equal(unreadable, 0);
	assert_false(devices[0].mapped);
	assert_true(devices[1].mapped);
	assert_false(devices[1].open_only);
	assert_string_equal(devices[1].mapped_by, FAKE_DAX_USER);
	/* Open but not mapped: found through /proc/PID/fd, not "/dev/dax7.01". */
	assert_true(devices[3].mapped);
	assert_true(devices[3].open_only);
	assert_string_equal(devices[3].mapped_by, "pid 5151 (holder)");
	/* "dax1.1" must not match "/dev/dax1.10"-style prefixes, nor dax1.0's lines. */
	assert_false(devices[2].mapped);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));

	/* Without a comm the pid alone names the user. */
	devices[1] = observed_dax("dax1.0");
	assert_int_equal(fake_sysfs_remove(ENV(state)->proc, "4242/comm"), 0);
	assert_int_equal(pmemram_users_scan(ENV(state)->ctx, devices, ELEMENTSOF(devices), NULL, 0, &unreadable), 0);
	assert_string_equal(devices[1].mapped_by, "pid 4242");

	/* The scanning process itself (procfs's "self" link; the fixture's "self" is a directory, which
	 * names nobody) is passed over: pmemram maps no dax device. */
	devices[1] = observed_dax("dax1.0");
	devices[3] = observed_dax("dax7.0");
	assert_int_equal(fake_sysfs_remove(ENV(state)->proc, "self"), 0);
	assert_int_equal(fake_sysfs_symlink(ENV(state)->proc, "self", "4242"), 0);
	assert_int_equal(pmemram_users_scan(ENV(state)->ctx, devices, ELEMENTSOF(devices), NULL, 0, &unreadable), 0);
	assert_false(devices[1].mapped);
	assert_true(devices[3].mapped);
	assert_string_equal(devices[3].mapped_by, "pid 5151 (holder)");
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

/* A machine with many processes: the scan runs in several threads (one per 16 processes and CPU),
 * and finds the same users, wherever they are in the list, and counts every file it read. */
static void test_dax_users_many_processes(void **state)
{
	struct pmemram_observed_dax devices[] = { observed_dax("dax0.0"), observed_dax("dax1.1"),
						  observed_dax("dax2.0") };
	struct pmemram_observed_namespace ns[] = { observed_ns("namespace3.0", "pmem3") };
	struct fake_env *env = ENV(state);
	size_t unreadable = 99, procs = 300;
	uint64_t before;
	char path[64];

	for (size_t i = 0; i < procs; i++) {
		unsigned long pid = 10000 + i;

		snprintf(path, sizeof(path), "%lu/comm", pid);
		assert_int_equal(fake_sysfs_write(env->proc, path, "worker%zu\n", i), 0);
		snprintf(path, sizeof(path), "%lu/exe", pid);
		assert_int_equal(fake_sysfs_symlink(env->proc, path, "/usr/bin/worker"), 0);
		snprintf(path, sizeof(path), "%lu/maps", pid);
		assert_int_equal(
			fake_sysfs_write(env->proc, path,
					 "55d4c0a00000-55d4c0a2a000 r-xp 00000000 fe:00 2400 /usr/bin/worker\n%s",
					 i == 251 ? "7f0000000000-7f0010000000 rw-s 00000000 00:05 321 /dev/dax1.1\n"
						  : ""),
			0);
		snprintf(path, sizeof(path), "%lu/fd/0", pid);
		assert_int_equal(fake_sysfs_symlink(env->proc, path, i == 77 ? "/dev/dax0.0" : "/dev/null"), 0);
		snprintf(path, sizeof(path), "%lu/fd/1", pid);
		assert_int_equal(fake_sysfs_symlink(env->proc, path, i == 178 ? "/dev/pmem3" : "pipe:[12]"), 0);
	}
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_PROCFS);
	assert_int_equal(pmemram_users_scan(env->ctx, devices, ELEMENTSOF(devices), ns, ELEMENTSOF(ns), &unreadable),
			 0);
	assert_int_equal(unreadable, 0);
	assert_true(devices[0].mapped);
	assert_true(devices[0].open_only);
	assert_string_equal(devices[0].mapped_by, "pid 10077 (worker77)");
	assert_true(devices[1].mapped);
	assert_false(devices[1].open_only);
	assert_string_equal(devices[1].mapped_by, "pid 10251 (worker251)");
	assert_false(devices[2].mapped);
	assert_string_equal(ns[0].in_use, "/dev/pmem3 open by pid 10178 (worker178)");
	/* exe, maps, the fd directory and two links of each: the workers' reads are counted too */
	assert_true(pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_PROCFS) - before >= 5 * procs);
	assert_null(pmemram_ctx_get_error_path(env->ctx));

	/* A worker's failure fails the scan: a descriptor directory that is a file. */
	devices[1] = observed_dax("dax1.1");
	assert_int_equal(fake_sysfs_remove(env->proc, "10251/fd/0"), 0);
	assert_int_equal(fake_sysfs_remove(env->proc, "10251/fd/1"), 0);
	assert_int_equal(fake_sysfs_remove(env->proc, "10251/fd"), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "10251/fd", "not a directory\n"), 0);
	assert_int_equal(pmemram_users_scan(env->ctx, devices, ELEMENTSOF(devices), ns, ELEMENTSOF(ns), &unreadable),
			 -ENOTDIR);
	assert_non_null(pmemram_ctx_get_error_path(env->ctx));
}

static void test_dax_users_no_procfs(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	struct pmemram_observed_dax devices[] = { observed_dax("dax0.0") };
	size_t unreadable = 99;

	/* procfs opens on first use: a bad root fails the scan, naming the root. */
	assert_int_equal(setenv("PMEMRAM_PROCFS_ROOT", "/nonexistent/proc", 1), 0);
	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_int_equal(unsetenv("PMEMRAM_PROCFS_ROOT"), 0);
	assert_string_equal(pmemram_ctx_get_root(ctx, PMEMRAM_ROOT_PROCFS), "/nonexistent/proc");
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, ENV(state)->root), 0);

	assert_int_equal(pmemram_users_scan(ctx, devices, 1, NULL, 0, &unreadable), -ENOENT);
	assert_int_equal(unreadable, 99);
	assert_string_equal(pmemram_ctx_get_error_path(ctx), "/nonexistent/proc");

	/* Nothing to look for: procfs is not even opened. */
	assert_int_equal(pmemram_users_scan(ctx, devices, 0, NULL, 0, &unreadable), 0);
	assert_int_equal(unreadable, 0);
}

static void test_mounts_scan(void **state)
{
	struct pmemram_observed_namespace ns[3] = {
		{ .name = "namespace2.0", .blockdev = "pmem2" },
		{ .name = "namespace3.0", .blockdev = "pmem3" },
		{ .name = "namespace4.0", .blockdev = "" },
	};

	assert_int_equal(pmemram_mounts_scan(ENV(state)->ctx, ns, ELEMENTSOF(ns)), 0);
	assert_true(ns[0].mounted);
	assert_false(ns[1].mounted);
	assert_false(ns[2].mounted);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));

	/* By major:minor alone (the source says something else), and by source alone (btrfs). */
	ns[0].mounted = false;
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "self/mountinfo",
					  "40 21 259:0 / /mnt/pmem rw - ext4 /dev/disk/by-label/x rw\n"
					  "41 21 0:77 / /mnt/b rw - btrfs /dev/pmem3 rw\n"
					  "this is not mountinfo\n"),
			 0);
	assert_int_equal(pmemram_mounts_scan(ENV(state)->ctx, ns, ELEMENTSOF(ns)), 0);
	assert_true(ns[0].mounted);
	assert_true(ns[1].mounted);
}

static void test_mounts_no_mountinfo(void **state)
{
	struct pmemram_observed_namespace ns[1] = { { .name = "namespace2.0", .blockdev = "pmem2" } };
	char expected[4096];

	assert_int_equal(fake_sysfs_remove(ENV(state)->proc, "self/mountinfo"), 0);
	assert_int_equal(pmemram_mounts_scan(ENV(state)->ctx, ns, 1), -ENOENT);
	snprintf(expected, sizeof(expected), "%s/self/mountinfo", ENV(state)->proc);
	assert_string_equal(pmemram_ctx_get_error_path(ENV(state)->ctx), expected);
}

/* A namespace's block device in use without a mount: held open (a partition of it here), swap,
 * or held by another block device. */
static void test_blockdev_users(void **state)
{
	struct pmemram_observed_namespace ns[] = { observed_ns("namespace2.0", "pmem2"),
						   observed_ns("namespace3.0", "pmem3"),
						   observed_ns("namespace4.0", "pmem4"),
						   observed_ns("namespace5.0", "pmem5") };
	struct fake_env *env = ENV(state);
	size_t unreadable = 99;

	assert_int_equal(fake_sysfs_symlink(env->proc, "5151/fd/6", "/dev/pmem3p1"), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "swaps",
					  "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
					  "/dev/pmem4                              partition\t1048572\t\t0\t\t-2\n"
					  "/swapfile                               file\t\t1048572\t\t0\t\t-3\n"),
			 0);
	assert_int_equal(fake_sysfs_symlink(env->root, "class/block/pmem5/holders/dm-0", "../../dm-0"), 0);
	assert_int_equal(fake_sysfs_write(env->root, "class/block/pmem2/dev", "259:0\n"), 0);

	assert_int_equal(pmemram_users_scan(env->ctx, NULL, 0, ns, ELEMENTSOF(ns), &unreadable), 0);
	assert_string_equal(ns[1].in_use, "/dev/pmem3p1 open by pid 5151 (holder)");
	assert_int_equal(pmemram_blockdev_users_scan(env->ctx, ns, ELEMENTSOF(ns)), 0);
	assert_string_equal(ns[0].in_use, "");
	assert_string_equal(ns[1].in_use, "/dev/pmem3p1 open by pid 5151 (holder)");
	assert_string_equal(ns[2].in_use, "/dev/pmem4 is swap");
	assert_string_equal(ns[3].in_use, "/dev/pmem5 held by dm-0");
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

/* Who has pages on a node (the suspects of a block that will not go offline when frames are
 * hidden): the Nx= counts of every mapping in /proc/PID/numa_maps. */
static void test_node_users(void **state)
{
	char buf[128];

	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "4242/numa_maps",
					  "7f0000000000 default anon=120 dirty=120 N0=20 N2=100 kernelpagesize_kB=4\n"
					  "7f0010000000 bind:2 anon=5 dirty=5 N2=5 kernelpagesize_kB=4\n"),
			 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "1/numa_maps",
					  "55d4c0a00000 default file=/usr/lib/systemd/systemd mapped=40 N0=40\n"),
			 0);
	assert_int_equal(pmemram_node_users(ENV(state)->ctx, 2, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "pid 4242 (qemu-system-x86) (105 pages)");
	assert_int_equal(pmemram_node_users(ENV(state)->ctx, 0, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "pid 1 (systemd) (40 pages), pid 4242 (qemu-system-x86) (20 pages)");
	/* The most pages first, whatever the pid order. */
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "1/numa_maps", "55d4c0a00000 default N2=300\n"), 0);
	assert_int_equal(pmemram_node_users(ENV(state)->ctx, 2, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "pid 1 (systemd) (300 pages), pid 4242 (qemu-system-x86) (105 pages)");
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "1/numa_maps", "55d4c0a00000 default N2=3\n"), 0);
	assert_int_equal(pmemram_node_users(ENV(state)->ctx, 2, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "pid 4242 (qemu-system-x86) (105 pages), pid 1 (systemd) (3 pages)");
	assert_int_equal(pmemram_node_users(ENV(state)->ctx, 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_line),
		cmocka_unit_test(test_mountinfo_line),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_blockdev_is_on),
		cmocka_unit_test(test_ns_mode),
		FAKE_TEST(test_dax_users_scan),
		FAKE_TEST(test_node_users),
		FAKE_TEST(test_blockdev_users),
		FAKE_TEST(test_dax_users_many_processes),
		FAKE_TEST(test_dax_users_no_procfs),
		FAKE_TEST(test_mounts_scan),
		FAKE_TEST(test_mounts_no_mountinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
