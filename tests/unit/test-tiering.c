/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the class slices (render, write, read back, prune), what the classes use, and the demotion switch. */
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
#include <unistd.h>

#include "fake-sysfs.h"
#include "macro.h"
#include "pmemram-tiering.h"
#include "run-ctl.h"

#define ENV(state) ((struct fake_env *)*(state))

static size_t count_lines_with(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static struct pmemram_class economy(void)
{
	struct pmemram_class c = { .nodes = PMEMRAM_CLASS_NODES_PMEM, .mode = PMEMRAM_CLASS_BIND };

	strcpy(c.name, "economy");
	strcpy(c.nodes_text, "pmem");
	return c;
}

static void test_slice_name(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(pmemram_slice_name("economy", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pmemram-economy.slice");
	assert_int_equal(pmemram_slice_name("low-cost", buf, sizeof(buf)), -EINVAL); /* '-' nests slices */
	assert_int_equal(pmemram_slice_name("a.b", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_slice_name("", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_slice_name("economy", buf, 10), -ENAMETOOLONG);
}

static void test_slice_files(void **state)
{
	struct pmemram_class c = economy(), premium = economy();
	_cleanup_(freep) char *text = NULL, *text2 = NULL;
	char *dir = NULL, nodes[64];
	_cleanup_(closep) int fd = -1;
	const char *keep[] = { "premium" };

	(void)state;
	strcpy(premium.name, "premium");
	assert_int_equal(fake_sysfs_new(&dir), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);

	assert_int_equal(pmemram_slice_render(&c, "", "pmemram.conf:4", &text), -EINVAL);
	/* a newline in a comment would start a directive of its own */
	assert_int_equal(pmemram_slice_render(&c, "2", "pmemram.conf.d/a\nAllowedMemoryNodes=0.conf:2", &text), -EINVAL);
	assert_int_equal(pmemram_slice_render(&c, "2\n", "pmemram.conf:4", &text), -EINVAL);
	assert_int_equal(pmemram_slice_render(&c, "2", "pmemram.conf:4", &text), 0);
	assert_non_null(strstr(text, "\n[Slice]\nAllowedMemoryNodes=2\n"));
	assert_non_null(strstr(text, "pmemram.conf:4"));
	assert_int_equal(strncmp(text, PMEMRAM_SLICE_HEADER, strlen(PMEMRAM_SLICE_HEADER)), 0);

	/* Absent, written, unchanged, changed. */
	assert_int_equal(pmemram_slice_read_nodes(fd, "economy", nodes, sizeof(nodes)), 0);
	assert_int_equal(pmemram_slice_write(fd, "economy", text), 1);
	assert_int_equal(pmemram_slice_read_nodes(fd, "economy", nodes, sizeof(nodes)), 1);
	assert_string_equal(nodes, "2");
	assert_int_equal(pmemram_slice_write(fd, "economy", text), 0);
	assert_int_equal(pmemram_slice_render(&c, "2-3", "pmemram.conf:4", &text2), 0);
	assert_int_equal(pmemram_slice_write(fd, "economy", text2), 1);
	assert_int_equal(pmemram_slice_read_nodes(fd, "economy", nodes, sizeof(nodes)), 1);
	assert_string_equal(nodes, "2-3");
	assert_string_equal(fake_sysfs_read(dir, ".pmemram-economy.slice.tmp"), "<absent>");

	/* Someone else's unit of the name is neither read as ours, overwritten nor pruned. */
	assert_int_equal(fake_sysfs_write(dir, "pmemram-theirs.slice", "[Slice]\nAllowedMemoryNodes=0\n"), 0);
	assert_int_equal(pmemram_slice_read_nodes(fd, "theirs", nodes, sizeof(nodes)), 0);
	strcpy(c.name, "theirs");
	assert_int_equal(pmemram_slice_write(fd, "theirs", text), -EEXIST);

	/* A symlink of the name is not followed, not replaced. */
	assert_int_equal(symlinkat("pmemram-premium.slice", fd, "pmemram-link.slice"), 0);
	assert_int_equal(pmemram_slice_write(fd, "link", text), -EEXIST);

	/* Prune keeps premium and theirs, removes economy (ours, no longer configured). */
	assert_int_equal(pmemram_slice_write(fd, "premium", text), 1);
	assert_int_equal(fake_sysfs_write(dir, "other.slice", "x\n"), 0);
	assert_int_equal(pmemram_slice_prune(fd, keep, ELEMENTSOF(keep), NULL, NULL), 1);
	assert_string_equal(fake_sysfs_read(dir, "pmemram-economy.slice"), "<absent>");
	assert_string_not_equal(fake_sysfs_read(dir, "pmemram-premium.slice"), "<absent>");
	assert_string_not_equal(fake_sysfs_read(dir, "pmemram-theirs.slice"), "<absent>");
	assert_string_equal(fake_sysfs_read(dir, "other.slice"), "x");
	assert_int_equal(pmemram_slice_prune(fd, keep, ELEMENTSOF(keep), NULL, NULL), 0);
	fake_sysfs_free(dir);
}

/* protect = SIZE: MemoryLow= in the class's slice, the sum in pmemram.slice, read back from the cgroup. */
static void test_slice_protect(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_class c = economy();
	_cleanup_(freep) char *text = NULL, *parent = NULL, *parent2 = NULL;
	_cleanup_(closep) int fd = -1;
	char *dir = NULL, got[PMEMRAM_SLICE_MAX] = "";
	uint64_t low = 1;
	int fd2;

	assert_int_equal(pmemram_slice_render(&c, "2", "pmemram.conf:4", &text), 0);
	assert_null(strstr(text, "MemoryLow")); /* none without protect */
	free(TAKE_PTR(text));
	c.protect = UINT64_C(512) << 20;
	assert_int_equal(pmemram_slice_render(&c, "2", "pmemram.conf:4", &text), 0);
	assert_non_null(strstr(text, "\n[Slice]\nAllowedMemoryNodes=2\nMemoryLow=536870912\n"));
	free(TAKE_PTR(text));
	c.protect = UINT64_MAX;
	assert_int_equal(pmemram_slice_render(&c, "2", "pmemram.conf:4", &text), 0);
	assert_non_null(strstr(text, "\nMemoryLow=infinity\n"));

	assert_int_equal(pmemram_parent_slice_render(0, &parent), -EINVAL);
	assert_int_equal(pmemram_parent_slice_render(UINT64_C(3) << 30, &parent), 0);
	assert_int_equal(strncmp(parent, PMEMRAM_SLICE_HEADER, strlen(PMEMRAM_SLICE_HEADER)), 0);
	assert_non_null(strstr(parent, "\n[Slice]\nMemoryLow=3221225472\n"));
	assert_int_equal(pmemram_parent_slice_render(UINT64_C(1) << 30, &parent2), 0);

	/* pmemram.slice: written, unchanged, changed, removed, gone; someone else's is left alone. */
	assert_int_equal(fake_sysfs_new(&dir), 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pmemram_parent_slice_write(fd, NULL), 0);
	assert_int_equal(pmemram_parent_slice_write(fd, parent), 1);
	assert_int_equal(pmemram_parent_slice_write(fd, parent), 0);
	assert_int_equal(pmemram_parent_slice_write(fd, parent2), 1);
	assert_int_equal(pread(fd2 = openat(fd, "pmemram.slice", O_RDONLY | O_CLOEXEC), got, sizeof(got) - 1, 0),
			 (ssize_t)strlen(parent2));
	assert_string_equal(got, parent2);
	safe_close(fd2);
	assert_int_equal(pmemram_parent_slice_write(fd, NULL), 1);
	assert_string_equal(fake_sysfs_read(dir, "pmemram.slice"), "<absent>");
	assert_int_equal(pmemram_parent_slice_write(fd, NULL), 0);
	assert_int_equal(fake_sysfs_write(dir, "pmemram.slice", "[Slice]\nCPUWeight=50\n"), 0);
	assert_int_equal(pmemram_parent_slice_write(fd, parent), -EEXIST);
	assert_int_equal(pmemram_parent_slice_write(fd, NULL), -EEXIST);
	assert_string_equal(fake_sysfs_read(dir, "pmemram.slice"), "[Slice]\nCPUWeight=50");
	/* not a class's slice: prune never takes it */
	assert_int_equal(pmemram_slice_prune(fd, NULL, 0, NULL, NULL), 0);
	fake_sysfs_free(dir);

	/* memory.low of the slice's cgroup: none yet, no memory controller, a value, max */
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "premium", &low), 0);
	assert_int_equal(low, 1);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/cgroup.procs",
					  "1\n"),
			 0);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "premium", &low), -ENOENT);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.low",
					  "536870912\n"),
			 0);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "premium", &low), 1);
	assert_int_equal(low, UINT64_C(512) << 20);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.low",
					  "max\n"),
			 0);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "premium", &low), 1);
	assert_int_equal(low, UINT64_MAX);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.low",
					  "lots\n"),
			 0);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "premium", &low), -EINVAL);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, "pre-mium", &low), -EINVAL);
	/* pmemram.slice's own */
	assert_int_equal(pmemram_slice_read_protection(env->ctx, NULL, &low), -ENOENT);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/memory.low", "1073741824\n"), 0);
	assert_int_equal(pmemram_slice_read_protection(env->ctx, NULL, &low), 1);
	assert_int_equal(low, UINT64_C(1) << 30);

	/* the kernel keeps whole pages */
	assert_true(pmemram_protection_matches(UINT64_C(512) << 20, UINT64_C(512) << 20));
	assert_true(pmemram_protection_matches(4096 + 100, 4096));
	assert_true(pmemram_protection_matches(100, 0));
	assert_true(pmemram_protection_matches(0, 0));
	assert_true(pmemram_protection_matches(UINT64_MAX, UINT64_MAX));
	assert_false(pmemram_protection_matches(UINT64_C(512) << 20, 0));
	assert_false(pmemram_protection_matches(0, 4096));
}

/* memory.numa_stat: anon and file added per node, other lines not looked at, bad lines refused whole. */
static void test_numa_stat_parse(void **state)
{
	_cleanup_(freep) struct pmemram_numa_usage *u = calloc(1, sizeof(*u));
	struct pmemram_nodemask allowed = {}, outside;

	(void)state;
	assert_non_null(u);
	assert_int_equal(pmemram_parse_numa_stat_line("anon N0=4096 N1=0 N2=67108864", u), PMEMRAM_NUMA_STAT_ANON);
	assert_int_equal(pmemram_parse_numa_stat_line("file N0=8192 N1=0 N2=4096 ", u), PMEMRAM_NUMA_STAT_FILE);
	assert_int_equal(pmemram_parse_numa_stat_line("kernel_stack N0=16384 N1=0 N2=0", u), 0);
	assert_int_equal(pmemram_parse_numa_stat_line("shmem N0=what", u), 0);
	assert_int_equal(pmemram_parse_numa_stat_line("anonymous N0=1", u), 0);
	assert_int_equal(pmemram_parse_numa_stat_line("", u), 0);
	assert_int_equal(u->bytes[0], 12288);
	assert_int_equal(u->bytes[1], 0);
	assert_int_equal(u->bytes[2], 67108864 + 4096);
	assert_int_equal(pmemram_nodemask_weight(&u->nodes), 3);

	/* malformed anon and file lines: an error, and nothing of them added */
	static const char *const bad[] = {
		"anon N0=",
		"anon N0",
		"anon 0=1",
		"anon N=1",
		"anon N0=1 N1",
		"anon N0=1  N1=2",
		"anon N0=1,N1=2",
		"file N0=-1",
		"file N0=0x10",
		"file\tN0=1",
		"anon N0=1x",
		"file N0=1 N",
		"anon N0=99999999999999999999999",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(pmemram_parse_numa_stat_line(bad[i], u), -EINVAL);
		assert_int_equal(u->bytes[0], 12288);
	}
	/* nodes past the first 64 bits of a mask count; past the largest node id they are refused */
	assert_int_equal(pmemram_parse_numa_stat_line("anon N1=7 N64=4096 N1023=1", u), PMEMRAM_NUMA_STAT_ANON);
	assert_int_equal(u->bytes[64], 4096);
	assert_int_equal(u->bytes[1023], 1);
	assert_true(pmemram_nodemask_test(&u->nodes, 64));
	assert_int_equal(pmemram_parse_numa_stat_line("anon N1=7 N1024=4096", u), -ERANGE);
	assert_int_equal(pmemram_parse_numa_stat_line("anon N123456789=1", u), -ERANGE);
	assert_int_equal(u->bytes[1], 7); /* the refused lines added nothing */
	assert_int_equal(pmemram_parse_numa_stat_line(NULL, u), -EINVAL);
	assert_int_equal(pmemram_parse_numa_stat_line("anon N0=1", NULL), -EINVAL);
	/* a sum past 64 bits stays at the most */
	assert_int_equal(pmemram_parse_numa_stat_line("file N5=18446744073709551615 N5=1", u), PMEMRAM_NUMA_STAT_FILE);
	assert_int_equal(u->bytes[5], UINT64_MAX);

	/* outside a class's nodes: the nodes holding any of it */
	u->bytes[5] = 0;
	pmemram_nodemask_set(&allowed, 0);
	pmemram_nodemask_set(&allowed, 1);
	assert_int_equal(pmemram_numa_usage_outside(u, &allowed, &outside), 67108864 + 4096 + 4096 + 1);
	assert_int_equal(pmemram_nodemask_weight(&outside), 3);
	assert_true(pmemram_nodemask_test(&outside, 2) && pmemram_nodemask_test(&outside, 64) &&
		    pmemram_nodemask_test(&outside, 1023));
	pmemram_nodemask_set(&allowed, 2);
	pmemram_nodemask_set(&allowed, 64);
	pmemram_nodemask_set(&allowed, 1023);
	assert_int_equal(pmemram_numa_usage_outside(u, &allowed, &outside), 0);
	assert_int_equal(pmemram_nodemask_weight(&outside), 0);
}

/* The slice cgroup's memory.numa_stat below the sysfs root, and what --json makes of it. */
static void test_numa_stat_read(void **state)
{
	struct fake_env *env = ENV(state);
	_cleanup_(freep) struct pmemram_numa_usage *u = calloc(1, sizeof(*u));
	static const char path[] = "fs/cgroup/pmemram.slice/pmemram-economy.slice/memory.numa_stat";
	struct pmemram_nodemask economy = {};
	struct json_object *o;

	assert_non_null(u);
	/* no cgroup yet: systemd makes it with the slice's first unit */
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "economy", u), 0);
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "eco nomy", u), -EINVAL);
	assert_int_equal(fake_sysfs_write(env->root, "fs/cgroup/pmemram.slice/pmemram-economy.slice/cgroup.procs",
					  "1\n"),
			 0);
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "economy", u), -ENOENT);
	assert_int_equal(fake_sysfs_write(env->root, path,
					  "anon N0=0 N1=0 N2=67108864\nfile N0=4096 N1=0 N2=1048576\n"
					  "kernel_stack N0=16384 N1=0 N2=0\nslab_reclaimable N0=2048 N1=0 N2=0\n"),
			 0);
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "economy", u), 1);
	assert_int_equal(u->bytes[0], 4096);
	assert_int_equal(u->bytes[2], 67108864 + 1048576);

	pmemram_nodemask_set(&economy, 2);
	o = json_object_new_object();
	assert_true(pmemram_numa_usage_to_json(o, 1, u, &economy));
	assert_int_equal(json_object_get_int64(json_at(o, "memory_per_node.2")), 67108864 + 1048576);
	assert_int_equal(json_object_get_int64(json_at(o, "memory_per_node.1")), 0);
	assert_int_equal(json_object_get_int64(json_at(o, "memory_bytes")), 67108864 + 1048576 + 4096);
	assert_string_equal(json_string_at(o, "outside_nodes"), "0");
	assert_int_equal(json_object_get_int64(json_at(o, "bytes_outside")), 4096);
	json_object_put(o);
	o = json_object_new_object();
	assert_true(pmemram_numa_usage_to_json(o, 0, u, &economy));
	assert_true(json_object_object_get_ex(o, "memory_per_node", NULL));
	assert_null(json_at(o, "memory_per_node"));
	assert_null(json_at(o, "bytes_outside"));
	json_object_put(o);

	/* a file without its anon or file line, or with a bad one, is not a usage */
	assert_int_equal(fake_sysfs_write(env->root, path, "anon N0=0 N1=0 N2=1\n"), 0);
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "economy", u), -EBADMSG);
	assert_true(fake_env_error_path_is(env, path));
	assert_int_equal(fake_sysfs_write(env->root, path, "anon N0=0 N1=0 N2=1\nfile N0=1 N1=oops\n"), 0);
	assert_int_equal(pmemram_slice_read_usage(env->ctx, "economy", u), -EINVAL);
	assert_true(fake_env_error_path_is(env, path));
	assert_int_equal(u->bytes[2], 67108864 + 1048576); /* untouched */
}

/* Tiering counters as JSON: absolute, or since a baseline; the three named always there. */
static void test_vmstat_json(void **state)
{
	const struct pmemram_vmstat_counter base[] = { { "pgdemote_kswapd", 100 }, { "pgdemote_direct", 7 } };
	const struct pmemram_vmstat_counter now[] = { { "pgdemote_kswapd", 150 },
						      { "pgdemote_direct", 3 },
						      { "pgdemote_khugepaged", 2 } };
	struct json_object *o;

	(void)state;
	o = pmemram_vmstat_to_json(now, ELEMENTSOF(now), NULL, 0);
	assert_non_null(o);
	assert_int_equal(json_object_get_int64(json_at(o, "pgdemote_kswapd")), 150);
	assert_int_equal(json_object_get_int64(json_at(o, "pgdemote_khugepaged")), 2);
	assert_true(json_object_object_get_ex(o, "pgpromote_success", NULL));
	assert_null(json_at(o, "pgpromote_success")); /* not counted: null, not 0 */
	json_object_put(o);
	o = pmemram_vmstat_to_json(now, ELEMENTSOF(now), base, ELEMENTSOF(base));
	assert_int_equal(json_object_get_int64(json_at(o, "pgdemote_kswapd")), 50);
	assert_int_equal(json_object_get_int64(json_at(o, "pgdemote_direct")), 3); /* went back: from 0 */
	assert_int_equal(json_object_get_int64(json_at(o, "pgdemote_khugepaged")), 2);
	json_object_put(o);
	o = pmemram_vmstat_to_json(NULL, 0, NULL, 0);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"pgdemote_kswapd\":null,\"pgdemote_direct\":null,\"pgpromote_success\":null}");
	json_object_put(o);
}

static void test_demotion(void **state)
{
	struct fake_env *env = ENV(state);
	bool on = true;

	assert_int_equal(pmemram_demotion_read(env->ctx, &on), -ENOENT);
	assert_int_equal(fake_sysfs_write(env->root, "kernel/mm/numa/demotion_enabled", "false\n"), 0);
	assert_int_equal(pmemram_demotion_read(env->ctx, &on), 0);
	assert_false(on);
	/* The fake file keeps what is written ("1"); the kernel would show "true". */
	assert_int_equal(pmemram_demotion_write(env->ctx, true), -EIO);
	assert_int_equal(fake_sysfs_write(env->root, "kernel/mm/numa/demotion_enabled", "true\n"), 0);
	assert_int_equal(pmemram_demotion_read(env->ctx, &on), 0);
	assert_true(on);
}

static void test_promotion(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_promotion p;

	/* A kernel without NUMA balancing has no sysctl. */
	assert_int_equal(pmemram_promotion_read(env->ctx, &p), -ENOENT);
	assert_int_equal(pmemram_promotion_write(env->ctx, true, 0), -ENOENT);
	assert_non_null(strstr(pmemram_ctx_get_error_path(env->ctx), "/sys/kernel/numa_balancing"));

	/* Bit 1 (balancing within a tier) is kept when the tiering bit is set or cleared. */
	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/numa_balancing", "1\n"), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/numa_balancing_promote_rate_limit_MBps", "65536\n"),
			 0);
	assert_int_equal(pmemram_promotion_read(env->ctx, &p), 0);
	assert_int_equal(p.numa_balancing, 1);
	assert_false(p.tiering);
	assert_int_equal(p.rate_mbps, 65536);
	assert_int_equal(pmemram_promotion_write(env->ctx, true, 256), 0);
	assert_string_equal(fake_sysfs_read(env->proc, "sys/kernel/numa_balancing"), "3");
	assert_string_equal(fake_sysfs_read(env->proc, "sys/kernel/numa_balancing_promote_rate_limit_MBps"), "256");
	assert_int_equal(pmemram_promotion_read(env->ctx, &p), 0);
	assert_true(p.tiering);
	assert_int_equal(pmemram_promotion_write(env->ctx, false, 0), 0);
	assert_string_equal(fake_sysfs_read(env->proc, "sys/kernel/numa_balancing"), "1");
	assert_string_equal(fake_sysfs_read(env->proc, "sys/kernel/numa_balancing_promote_rate_limit_MBps"), "256");

	/* Garbage in the sysctl is not a state. */
	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/numa_balancing", "tiered\n"), 0);
	assert_int_equal(pmemram_promotion_read(env->ctx, &p), -EBADMSG);
}

/* pmemramctl classes and run on the fake HMAT machine (node 2 holds kmem memory). */
static struct run *ctl(struct fake_env *env, const char *config, const char *const *args)
{
	char sysfs[512], procfs[512], conf[512], slices[512];
	const char *vars[] = { sysfs, procfs, conf, slices, NULL };

	snprintf(sysfs, sizeof(sysfs), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(procfs, sizeof(procfs), "PMEMRAM_PROCFS_ROOT=%s", env->proc);
	snprintf(conf, sizeof(conf), "PMEMRAM_CONFIG_DIR=%s", config);
	snprintf(slices, sizeof(slices), "PMEMRAM_SLICE_DIR=%s", config); /* no slices there */
	return run_ctl_env(vars, args);
}

static void test_ctl_classes(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char *config = NULL;
	struct json_object *j;

	assert_int_equal(fake_sysfs_new(&config), 0);
	assert_int_equal(fake_sysfs_write(config, "pmemram.conf",
					  "[class \"local\"]\nnodes = 0\n[class \"economy\"]\nnodes = pmem\n"
					  "[class \"premium\"]\nnodes = dram\nmode = preferred\n"),
			 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", "--json", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "kmem_nodes"), "2");
	assert_string_equal(json_string_at(j, "classes.1.class"), "economy");
	assert_string_equal(json_string_at(j, "classes.1.nodes"), "2");
	assert_string_equal(json_string_at(j, "classes.1.slice"), "pmemram-economy.slice");
	assert_null(json_at(j, "classes.1.slice_nodes"));
	assert_string_equal(json_string_at(j, "classes.2.nodes"), "0-1");
	assert_string_equal(json_string_at(j, "classes.2.mode"), "preferred");
	assert_null(json_at(j, "classes.2.demotion_escape_nodes")); /* no demotion switch: no conflict */
	json_object_put(j);
	free(TAKE_PTR(run));

	/* Demotion on: the DRAM-only classes may lose pages to the pmem node 2, economy cannot. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "kernel/mm/numa/demotion_enabled", "true\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", "--json", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "classes.0.demotion_escape_nodes"), "2");
	assert_null(json_at(j, "classes.1.demotion_escape_nodes"));
	assert_string_equal(json_string_at(j, "classes.2.demotion_escape_nodes"), "2");
	json_object_put(j);
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(
		strstr(run->out, "CONFLICT: demotion is on, and the kernel may demote this class's pages to node 2\n"));
	assert_non_null(
		strstr(run->out, "set demotion = off, or protect = SIZE in the class (MemoryLow= on its slice)\n"));
	assert_null(strstr(run->out, "protect = SIZE is set"));
	free(TAKE_PTR(run));

	/* premium protected: the slice has no cgroup yet, then one whose memory.low is not it, then is */
	assert_int_equal(fake_sysfs_write(config, "pmemram.conf.d/40-protect.conf",
					  "[class \"premium\"]\nprotect = 1G\n"),
			 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "protect = 1 GiB: the slice has no cgroup yet (no unit in it)\n"));
	assert_non_null(
		strstr(run->out, "protect = SIZE is set: reclaim, and so demotion, passes over that much of it\n"));
	free(TAKE_PTR(run));
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "fs/cgroup/pmemram.slice/memory.low", "1073741824\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.low",
					  "0\n"),
			 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_non_null(strstr(run->out, "protect = 1 GiB: memory.low 0 B (NOT in effect)\n"));
	free(TAKE_PTR(run));
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.low",
					  "1073741824\n"),
			 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_non_null(strstr(run->out, "protect = 1 GiB: memory.low 1 GiB (in effect)\n"));
	free(TAKE_PTR(run));
	/* pmemram.slice bounds it: less there is less for the class */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "fs/cgroup/pmemram.slice/memory.low", "0\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_non_null(strstr(run->out,
			       "protect = 1 GiB: memory.low 1 GiB (NOT in effect: pmemram.slice's memory.low is "
			       "less than all classes' protect)\n"));
	free(TAKE_PTR(run));
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "fs/cgroup/pmemram.slice/memory.low", "1073741824\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", "--json", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_get_int64(json_at(j, "classes.2.protect")), INT64_C(1) << 30);
	assert_int_equal(json_object_get_int64(json_at(j, "classes.2.memory_low")), INT64_C(1) << 30);
	assert_int_equal(json_object_get_int64(json_at(j, "classes.1.protect")), 0);
	assert_int_equal(json_object_get_int64(json_at(j, "pmemram_slice_memory_low")), INT64_C(1) << 30);
	assert_null(json_at(j, "classes.1.memory_low"));
	json_object_put(j);
	free(TAKE_PTR(run));
	assert_int_equal(fake_sysfs_remove(config, "pmemram.conf.d/40-protect.conf"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "kernel/mm/numa/demotion_enabled", "false\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 0);
	assert_null(strstr(run->out, "CONFLICT"));
	free(TAKE_PTR(run));

	/* What each class uses: economy's memory on node 2 and some on node 0, outside its nodes;
	 * premium's on 0-1; node 0's counters since boot, pgpromote_success not counted. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root,
					  "fs/cgroup/pmemram.slice/pmemram-economy.slice/memory.numa_stat",
					  "anon N0=12582912 N1=0 N2=67108864\nfile N0=0 N1=0 N2=4096\n"),
			 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root,
					  "fs/cgroup/pmemram.slice/pmemram-premium.slice/memory.numa_stat",
					  "anon N0=1048576 N1=2097152 N2=0\nfile N0=0 N1=0 N2=0\n"),
			 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "devices/system/node/node0/vmstat",
					  "nr_free_pages 100\npgdemote_kswapd 5\npgdemote_direct 0\n"),
			 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "vmstat", "pgdemote_kswapd 7\npgdemote_direct 2\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "memory: node 0 12 MiB, node 1 0 B, node 2 64.0 MiB\n"));
	assert_non_null(strstr(run->out, "OUTSIDE: 12 MiB on node 0, not the class's"));
	assert_non_null(strstr(run->out, "memory: node 0 1 MiB, node 1 2 MiB, node 2 0 B\n"));
	assert_non_null(strstr(run->out, "memory: none (the slice has no cgroup yet)\n")); /* local */
	assert_non_null(
		strstr(run->out, "  node 0: pgdemote_kswapd 5, pgdemote_direct 0, pgpromote_success not counted\n"));
	assert_non_null(
		strstr(run->out, "  system: pgdemote_kswapd 7, pgdemote_direct 2, pgpromote_success not counted\n"));
	assert_int_equal(count_lines_with(run->out, "OUTSIDE"), 1);
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "classes", "--json", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_get_int64(json_at(j, "classes.1.memory_per_node.2")), 67108864 + 4096);
	assert_int_equal(json_object_get_int64(json_at(j, "classes.1.memory_bytes")), 67108864 + 4096 + 12582912);
	assert_string_equal(json_string_at(j, "classes.1.outside_nodes"), "0");
	assert_int_equal(json_object_get_int64(json_at(j, "classes.1.bytes_outside")), 12582912);
	assert_null(json_at(j, "classes.2.outside_nodes"));
	assert_int_equal(json_object_get_int64(json_at(j, "classes.2.bytes_outside")), 0);
	assert_null(json_at(j, "classes.0.memory_per_node"));
	assert_int_equal(json_object_get_int(json_at(j, "tiering_counters.nodes.0.node")), 0);
	assert_int_equal(json_object_get_int64(json_at(j, "tiering_counters.nodes.0.pgdemote_kswapd")), 5);
	assert_null(json_at(j, "tiering_counters.nodes.0.pgpromote_success"));
	assert_int_equal(json_object_get_int64(json_at(j, "tiering_counters.system.pgdemote_direct")), 2);
	json_object_put(j);
	free(TAKE_PTR(run));

	/* run: the policy is the process's (numa_maps shows it), and so is PMEMRAM_CLASS. */
	run = ctl(ENV(state), config,
		  (const char *const[]){ "run", "--class", "local", "--", "sh", "-c",
					 "echo $PMEMRAM_CLASS; grep -c ' bind:0 ' /proc/self/numa_maps", NULL });
	assert_int_equal(run->status, 0);
	assert_int_equal(strncmp(run->out, "local\n", 6), 0);
	assert_true(atoi(run->out + 6) > 0);
	free(TAKE_PTR(run));

	/* A class naming a node that does not exist: an error, and nothing runs. */
	assert_int_equal(fake_sysfs_write(config, "pmemram.conf.d/50-bad.conf", "[class \"bad\"]\nnodes = 0,5\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->out, "ERROR: node 5 does not exist"));
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "run", "--class", "bad", "--", "touch", config, NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "class bad: node 5 does not exist"));
	free(TAKE_PTR(run));

	run = ctl(ENV(state), config, (const char *const[]){ "run", "--class", "nope", "--", "true", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "no class \"nope\""));
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "run", "--class", "local", NULL });
	assert_int_equal(run->status, 64);
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "run", "--class", "local", "--", "/nonexistent/x", NULL });
	assert_int_equal(run->status, 127);
	fake_sysfs_free(config);
}

/* mode = weighted-interleave: the weights wanted and the kernel's, and run refusing a kernel without them. */
static void test_ctl_weights(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char *config = NULL;
	struct json_object *j;

	assert_int_equal(fake_sysfs_new(&config), 0);
	assert_int_equal(
		fake_sysfs_write(config, "pmemram.conf",
				 "[class \"wide\"]\nnodes = all\nmode = weighted-interleave\n"
				 "[class \"two\"]\nnodes = 1,2\nmode = weighted-interleave\nweights = 1:3,2:1\n"),
		0);
	/* A kernel without weighted interleave (before 6.9): said, and run refuses. */
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "weights 0:10,1:5,2:1 (from the HMAT's read bandwidth): the kernel has no "
					 "weighted interleave (Linux 6.9 and later)"));
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "run", "--class", "two", "--", "touch", config, NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "class two: the kernel has no weighted interleave (Linux 6.9 and later); not "
					 "running touch"));
	free(TAKE_PTR(run));

	/* A kernel with it: the kernel's weights against the class's. */
	for (int n = 0; n < 3; n++) {
		char path[96];

		snprintf(path, sizeof(path), "kernel/mm/mempolicy/weighted_interleave/node%d", n);
		assert_int_equal(fake_sysfs_write(ENV(state)->root, path, "1\n"), 0);
	}
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "kernel/mm/mempolicy/weighted_interleave/node1", "3\n"), 0);
	run = ctl(ENV(state), config, (const char *const[]){ "classes", "--json", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "classes.0.weights_spec"), "hmat");
	assert_string_equal(json_string_at(j, "classes.0.weights"), "0:10,1:5,2:1");
	assert_string_equal(json_string_at(j, "classes.0.weights_in_force"), "0:1,1:3,2:1");
	assert_false(json_bool_at(j, "classes.0.weights_in_effect"));
	assert_string_equal(json_string_at(j, "classes.1.weights"), "1:3,2:1");
	assert_true(json_bool_at(j, "classes.1.weights_in_effect"));
	json_object_put(j);
	free(TAKE_PTR(run));
	run = ctl(ENV(state), config, (const char *const[]){ "classes", NULL });
	assert_non_null(strstr(run->out, "weights 1:3,2:1 (as configured): in force"));
	assert_non_null(strstr(run->out, "weights 0:10,1:5,2:1 (from the HMAT's read bandwidth): NOT in force: the "
					 "kernel has 0:1,1:3,2:1"));
	fake_sysfs_free(config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slice_name),
		cmocka_unit_test(test_slice_files),
		cmocka_unit_test_setup_teardown(test_slice_protect, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test(test_numa_stat_parse),
		cmocka_unit_test_setup_teardown(test_numa_stat_read, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test(test_vmstat_json),
		cmocka_unit_test_setup_teardown(test_demotion, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_promotion, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_ctl_classes, fake_env_setup_hmat, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_ctl_weights, fake_env_setup_hmat, fake_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
