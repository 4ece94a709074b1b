/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the pagemap reader and pmemramctl cache-report on a fake procfs and the HMAT sysfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A structural check of XML: tags nest and close, attribute values are quoted, "&" starts one of
 * the five entities, one root element.  Enough for what svg.c writes. */
static bool xml_well_formed(const char *p)
{
	const char *stack[64];
	size_t depth = 0, roots = 0;

	while (*p) {
		size_t n;

		if (*p == '&') {
			if (strncmp(p, "&amp;", 5) && strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
			    strncmp(p, "&quot;", 6) && strncmp(p, "&apos;", 6))
				return false;
			p++;
			continue;
		}
		if (*p != '<') {
			if (depth == 0 && *p != '\n')
				return false;
			p++;
			continue;
		}
		if (p[1] == '?') {
			p = strstr(p, "?>");
			if (!p)
				return false;
			p += 2;
			continue;
		}
		if (p[1] == '/') {
			n = strcspn(p + 2, ">");
			/* The open tag's name ends where this one does. */
			if (depth == 0 || strncmp(p + 2, stack[depth - 1], n) || !strchr(" />", stack[depth - 1][n]))
				return false;
			depth--;
			p += 2 + n + 1;
			continue;
		}
		stack[depth] = ++p;
		p += strcspn(p, " />");
		while (*p == ' ') {
			p += strspn(p, " ");
			p += strcspn(p, "=\"<>");
			if (p[0] != '=' || p[1] != '"')
				return false;
			p += 2 + strcspn(p + 2, "\"<");
			if (*p++ != '"')
				return false;
		}
		if (depth == 0)
			roots++;
		if (p[0] == '/' && p[1] == '>')
			p += 2;
		else if (*p++ != '>' || ++depth == ELEMENTSOF(stack))
			return false;
	}
	return depth == 0 && roots == 1;
}

/* Each bar's height and the count its tooltip gives, in the order drawn; the number of bars. */
static size_t svg_bars(const char *svg, double *heights, uint64_t *counts, size_t max)
{
	size_t n = 0;

	for (const char *p = svg; (p = strstr(p, "<rect class=\"bar\"")) && n < max; p++) {
		const char *h = strstr(p, "height=\""), *end = strchr(p, '>');

		if (end[-1] == '/') /* the legend's swatch, no tooltip */
			continue;
		assert_int_equal(sscanf(h, "height=\"%lf\"><title>%" SCNu64 " slots hold", &heights[n], &counts[n]), 2);
		n++;
	}
	return n;
}

static char *read_text(const char *path)
{
	char *text = calloc(1, RUN_OUTPUT_MAX);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_non_null(text);
	assert_true(fd >= 0);
	n = read(fd, text, RUN_OUTPUT_MAX - 1);
	assert_true(n > 0);
	close(fd);
	return text;
}

/* --svg: node 1's frames in a cache of 4 page slots (16 KiB) hold {0, 0, 1}: two slots empty,
 * one with a page, one with two. */
static void test_cache_report_svg(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *svg = NULL;
	char path[512], cmd[600], dir[512];
	const uint64_t want[] = { 2, 1, 1 };
	struct json_object *j;
	double heights[8];
	uint64_t counts[8];

	add_process(ENV(state)->proc);
	snprintf(path, sizeof(path), "%s/occupancy.svg", ENV(state)->proc);
	assert_int_equal(fake_sysfs_write(ENV(state)->proc, "occupancy.svg", "an older picture\n"), 0);
	run = cache_report(ENV(state),
			   (const char *const[]){ "--node", "1", "--cache-size", "16K", "--svg", path, NULL });
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_int_equal(json_int_at(j, "nodes.0.distinct_slots"), 2);
	json_object_put(j);
	svg = read_text(path);
	assert_true(xml_well_formed(svg));
	snprintf(cmd, sizeof(cmd), "command -v xmllint >/dev/null || exit 0; xmllint --noout '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_non_null(strstr(svg, "<title>Memory-side cache slot occupancy of pid 777 (pages of 4 KiB)</title>"));
	assert_non_null(strstr(svg, "node 1: 3 pages (12 KiB) behind a 16 KiB direct-mapped cache (--cache-size)"));

	/* k = 3 has neither a slot nor half a slot expected (4 / 64): three bars, heights as counts. */
	assert_int_equal(svg_bars(svg, heights, counts, ELEMENTSOF(heights)), 3);
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(counts[k], want[k]);
		assert_true(fabs(heights[k] / heights[0] - (double)want[k] / (double)want[0]) < 1e-3);
	}
	assert_true(heights[0] > 100.0);
	/* 4 * (3/4)^3 slots empty and as many with one page expected, at random. */
	assert_non_null(strstr(svg, "2 slots hold 0 pages; random placement: 1.7 expected"));
	assert_non_null(strstr(svg, "1 slots hold 2 pages; random placement: 0.6 expected"));

	/* The written file replaced the older one, and no temporary file is left beside it. */
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | grep -c svg) = 1", ENV(state)->proc);
	assert_int_equal(system(cmd), 0);
	free(TAKE_PTR(run));

	/* A directory in the way is not replaced. */
	snprintf(dir, sizeof(dir), "%s/pictures", ENV(state)->proc);
	assert_int_equal(mkdir(dir, 0755), 0);
	run = cache_report(ENV(state), (const char *const[]){ "--cache-size", "16K", "--svg", dir, NULL });
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "pictures exists and is not a regular file: not replaced"));
	free(TAKE_PTR(run));

	snprintf(path, sizeof(path), "%s/missing/occupancy.svg", ENV(state)->proc);
	run = cache_report(ENV(state), (const char *const[]){ "--cache-size", "16K", "--svg", path, NULL });
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "cannot write "));
	assert_non_null(strstr(run->err, "missing/occupancy.svg: No such file or directory"));
	free(TAKE_PTR(run));

	/* Node 0 has no cache in HMAT: nothing modelled, nothing drawn. */
	snprintf(path, sizeof(path), "%s/none.svg", ENV(state)->proc);
	run = cache_report(ENV(state), (const char *const[]){ "--node", "0", "--svg", path, NULL });
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "no node's pages were modelled, nothing to draw in"));
	assert_int_equal(access(path, F_OK), -1);
	free(TAKE_PTR(run));

	run = cache_report(ENV(state), (const char *const[]){ "--svg", "", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--svg needs a file name"));
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_range),   FAKE_TEST(test_frames),
		FAKE_TEST(test_frames_hidden),	     FAKE_TEST(test_cache_report),
		FAKE_TEST(test_cache_report_errors), FAKE_TEST(test_cache_report_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
