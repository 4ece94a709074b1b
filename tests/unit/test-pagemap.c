/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the pagemap reader and pmemramctl cache-report on a fake procfs and the HMAT sysfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "macro.h"
#include "pmemram-pagemap.h"
#include "run-ctl.h"

#define ENV(state) ((struct fake_env *)*(state))
#define PAGE UINT64_C(4096)
#define PRESENT(pfn) (PMEMRAM_PAGEMAP_PRESENT | (UINT64_C(1) << 55) | (pfn)) /* bit 55: soft-dirty, ignored */

/*
 * In the HMAT tree memory blocks are 128 MiB (32768 frames): node 0 has blocks 0-7, node 1 (behind the
 * 128 MiB direct-mapped cache, 32768 page slots) blocks 8-15, so frames 262144..524287 are node 1's.
 */
#define NODE1_PFN UINT64_C(262144)
#define SLOTS UINT64_C(32768)

/* Write n entries at virtual address vaddr of pid's pagemap (a sparse file). */
static void write_entries(const char *proc, int pid, uint64_t vaddr, const uint64_t *entries, size_t n)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/pagemap", proc, pid);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, entries, n * sizeof(uint64_t), (off_t)(vaddr / PAGE * sizeof(uint64_t))),
			 (ssize_t)(n * sizeof(uint64_t)));
	close(fd);
}

/*
 * pid 777: a 4-page text mapping (node 1 slot 0, node 1 slot 0 again, one page swapped, one absent),
 * a 3-page heap (node 1 slot 1, node 0, and the first frame again: a shared page) and [vsyscall],
 * whose pagemap range lies beyond the file and reads empty.
 */
static void add_process(const char *proc)
{
	const uint64_t text[] = { PRESENT(NODE1_PFN), PRESENT(NODE1_PFN + SLOTS), PMEMRAM_PAGEMAP_SWAPPED | 77, 0 };
	const uint64_t heap[] = { PRESENT(NODE1_PFN + 1), PRESENT(1000), PRESENT(NODE1_PFN) };

	assert_int_equal(fake_sysfs_write(proc, "777/maps",
					  "00400000-00404000 r-xp 00000000 fe:00 17   /usr/bin/worker\n"
					  "7f0000000000-7f0000003000 rw-p 00000000 00:00 0 \n"
					  "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n"),
			 0);
	write_entries(proc, 777, 0x400000, text, ELEMENTSOF(text));
	write_entries(proc, 777, 0x7f0000000000, heap, ELEMENTSOF(heap));
}

static void test_maps_range(void **state)
{
	uint64_t a = 0, b = 0;

	(void)state;
	assert_int_equal(pmemram_parse_maps_range("00400000-00404000 r-xp 00000000 fe:00 17 /bin/x\n", &a, &b), 0);
	assert_int_equal(a, 0x400000);
	assert_int_equal(b, 0x404000);
	assert_int_equal(pmemram_parse_maps_range("ffffffffff600000-ffffffffff601000 --xp", &a, &b), 0);
	assert_int_equal(a, UINT64_C(0xffffffffff600000));
	assert_int_equal(pmemram_parse_maps_range("00404000-00400000 r-xp", &a, &b), -EINVAL); /* backwards */
	assert_int_equal(pmemram_parse_maps_range("00400000-00400000 r-xp", &a, &b), -EINVAL); /* empty */
	assert_int_equal(pmemram_parse_maps_range("00400000 r-xp", &a, &b), -EINVAL);
	assert_int_equal(pmemram_parse_maps_range("0040g000-00404000 r-xp", &a, &b), -EINVAL);
	assert_int_equal(pmemram_parse_maps_range("10000000000000000-10000000000000001 r", &a, &b), -EINVAL);
}

static void test_frames(void **state)
{
	struct pmemram_frames f = {};

	add_process(ENV(state)->proc);
	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 777, PAGE), 0);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.pfns[0], NODE1_PFN);
	assert_int_equal(f.pfns[1], NODE1_PFN + SLOTS);
	assert_int_equal(f.pfns[2], NODE1_PFN + 1);
	assert_int_equal(f.pfns[3], 1000);
	assert_int_equal(f.pfns[4], NODE1_PFN);
	assert_int_equal(f.present, 5);
	assert_int_equal(f.swapped, 1);
	assert_int_equal(f.mappings, 3);
	assert_int_equal(f.skipped, 1);

	/* A second process appends; one that does not exist changes nothing. */
	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 4243, PAGE), -ESRCH);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.present, 5);
	pmemram_frames_done(&f);
	assert_null(f.pfns);
	assert_int_equal(f.n, 0);
}

static void test_frames_hidden(void **state)
{
	const uint64_t hidden[] = { PMEMRAM_PAGEMAP_PRESENT, PMEMRAM_PAGEMAP_PRESENT };
	struct pmemram_frames f = {};

	add_process(ENV(state)->proc);
	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 777, PAGE), 0);

	/* Without CAP_SYS_ADMIN the kernel shows present pages at frame 0. */
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "778/maps", "00400000-00402000 r-xp 0 fe:00 1 /x\n"), 0);
	write_entries(ENV(state)->proc, 778, 0x400000, hidden, ELEMENTSOF(hidden));
	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 778, PAGE), -EPERM);
	assert_non_null(strstr(pmemram_ctx_get_error_path(ENV(state)->ctx), "778/pagemap"));
	assert_int_equal(f.n, 5);
	assert_int_equal(f.present, 5);
	assert_int_equal(f.mappings, 3);

	/* A malformed maps line is an error naming the file, and rolls back too. */
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "779/maps", "garbage\n"), 0);
	write_entries(ENV(state)->proc, 779, 0, hidden, 1);
	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 779, PAGE), -EINVAL);
	assert_non_null(strstr(pmemram_ctx_get_error_path(ENV(state)->ctx), "779/maps"));
	assert_int_equal(f.n, 5);

	assert_int_equal(pmemram_frames_add_pid(ENV(state)->ctx, &f, 777, 3000), -EINVAL); /* not a power of 2 */
	pmemram_frames_done(&f);
}

static struct run *cache_report(struct fake_env *env, const char *const *extra)
{
	char sysfs[512], proc[512];
	const char *env_vars[] = { sysfs, proc, NULL };
	const char *args[16] = { "cache-report", "--json", "--pid", "777" };
	size_t n = 4;

	snprintf(sysfs, sizeof(sysfs), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(proc, sizeof(proc), "PMEMRAM_PROCFS_ROOT=%s", env->proc);
	for (; extra && *extra && n < ELEMENTSOF(args) - 1; extra++)
		args[n++] = *extra;
	return run_ctl_env(env_vars, args);
}

/* Hand-computed: 4 distinct frames, 3 on node 1 in slots {0, 0, 1}, one on node 0 (no cache). */
static void test_cache_report(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct json_object *j;
	double expected = (double)SLOTS * (1.0 - pow(1.0 - 1.0 / (double)SLOTS, 3));

	add_process(ENV(state)->proc);
	run = cache_report(ENV(state), NULL);
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_int_at(j, "pages"), 4);
	assert_int_equal(json_int_at(j, "swapped_pages"), 1);
	assert_int_equal(json_int_at(j, "pids.0"), 777);

	assert_int_equal(json_int_at(j, "nodes.0.node"), 0);
	assert_int_equal(json_int_at(j, "nodes.0.pages"), 1);
	assert_false(json_bool_at(j, "nodes.0.modelled"));
	assert_non_null(strstr(json_string_at(j, "nodes.0.reason"), "no memory-side cache"));

	assert_int_equal(json_int_at(j, "nodes.1.node"), 1);
	assert_int_equal(json_int_at(j, "nodes.1.pages"), 3);
	assert_true(json_bool_at(j, "nodes.1.modelled"));
	assert_string_equal(json_string_at(j, "nodes.1.cache.source"), "hmat");
	assert_int_equal(json_int_at(j, "nodes.1.cache.size_bytes"), 134217728);
	assert_int_equal(json_int_at(j, "nodes.1.slots"), SLOTS);
	assert_int_equal(json_int_at(j, "nodes.1.distinct_slots"), 2);
	assert_int_equal(json_int_at(j, "nodes.1.ideal_slots"), 3);
	assert_true(fabs(json_object_get_double(json_at(j, "nodes.1.expected_random_slots")) - expected) < 1e-9);
	/* 20 accesses per page; the two frames sharing slot 0 can only cost the direct-mapped cache. */
	assert_int_equal(json_int_at(j, "nodes.1.uniform.accesses"), 60);
	assert_true(json_int_at(j, "nodes.1.uniform.direct_mapped_misses") >=
		    json_int_at(j, "nodes.1.uniform.lru_misses"));
	assert_int_equal(json_int_at(j, "nodes.1.uniform.lru_misses"), 3);
	json_object_put(j);
	free(TAKE_PTR(run));

	/* --node and --cache-size: node 0 modelled as a 4 KiB cache of one slot. */
	run = cache_report(ENV(state), (const char *const[]){ "--node", "0", "--cache-size", "4K", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_array_length(json_at(j, "nodes")), 1);
	assert_int_equal(json_int_at(j, "nodes.0.node"), 0);
	assert_string_equal(json_string_at(j, "nodes.0.cache.source"), "option");
	assert_int_equal(json_int_at(j, "nodes.0.slots"), 1);
	assert_int_equal(json_int_at(j, "nodes.0.distinct_slots"), 1);
	json_object_put(j);
	free(TAKE_PTR(run));

	/* --shared-cache: nodes 0 and 1 behind one 128 MiB cache, the frames in slots {0, 0, 1, 1000}. */
	run = cache_report(ENV(state), (const char *const[]){ "--shared-cache", "1,0", "--cache-size", "128M", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_array_length(json_at(j, "nodes")), 1);
	assert_int_equal(json_int_at(j, "nodes.0.node"), 0);
	assert_string_equal(json_string_at(j, "nodes.0.shared_cache_nodes"), "0-1");
	assert_int_equal(json_int_at(j, "nodes.0.pages"), 4);
	assert_int_equal(json_int_at(j, "nodes.0.slots"), SLOTS);
	assert_int_equal(json_int_at(j, "nodes.0.distinct_slots"), 3);
	assert_int_equal(json_int_at(j, "nodes.0.ideal_slots"), 4);
	json_object_put(j);
	free(TAKE_PTR(run));

	/* --node 1, one of the shared nodes: the shared report, under node 0. */
	run = cache_report(ENV(state), (const char *const[]){ "--shared-cache", "0-1", "--cache-size", "128M", "--node",
							      "1", NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_array_length(json_at(j, "nodes")), 1);
	assert_string_equal(json_string_at(j, "nodes.0.shared_cache_nodes"), "0-1");
	assert_int_equal(json_int_at(j, "nodes.0.pages"), 4);
	json_object_put(j);
}

static void test_cache_report_errors(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	const uint64_t hidden[] = { PMEMRAM_PAGEMAP_PRESENT };

	/* pid 777 is not made yet here. */
	run = cache_report(ENV(state), (const char *const[]){ "--pid", "4243", NULL });
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "pid 777: no such process"));
	free(TAKE_PTR(run));

	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "778/maps", "00400000-00401000 r-xp 0 fe:00 1 /x\n"), 0);
	write_entries(ENV(state)->proc, 778, 0x400000, hidden, 1);
	run = run_ctl_env((const char *const[]){ NULL },
			  (const char *const[]){ "cache-report", "--pid", "1", "--cache-size", "1.5G", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--cache-size '1.5G'"));
	free(TAKE_PTR(run));

	run = run_ctl_env((const char *const[]){ NULL }, (const char *const[]){ "cache-report", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "at least one --pid"));
	free(TAKE_PTR(run));

	run = run_ctl_env((const char *const[]){ NULL },
			  (const char *const[]){ "cache-report", "--pid", "1", "--shared-cache", "8-15", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--shared-cache needs --cache-size"));
	free(TAKE_PTR(run));

	run = run_ctl_env((const char *const[]){ NULL },
			  (const char *const[]){ "cache-report", "--pid", "1", "--shared-cache", "3", "--cache-size",
						 "128M", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--shared-cache '3' is not a list of two or more nodes"));
	free(TAKE_PTR(run));

	add_process(ENV(state)->proc);
	run = cache_report(ENV(state), (const char *const[]){ "--pid", "778", NULL });
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "778/pagemap shows no page frame numbers"));
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_range), FAKE_TEST(test_frames), FAKE_TEST(test_frames_hidden),
		FAKE_TEST(test_cache_report),	   FAKE_TEST(test_cache_report_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
