/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Physical frames of a process's resident pages, from /proc/PID/maps and /proc/PID/pagemap. */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmemram-observe.h"
#include "pmemram-pagemap.h"
#include "pmemram-private.h"

#define PAGEMAP_CHUNK 4096 /* entries per pread: 32 KiB, 16 MiB of address space */

int pmemram_parse_maps_range(const char *line, uint64_t *ret_start, uint64_t *ret_end)
{
	char buf[2 * 16 + 2];
	const char *dash;
	uint64_t start, end;
	size_t len;

	if (!line || !ret_start || !ret_end)
		return -EINVAL;

	len = strcspn(line, " \t\n");
	dash = memchr(line, '-', len);
	if (!dash || len >= sizeof(buf))
		return -EINVAL;
	if (copy_span(buf, sizeof(buf), line, (size_t)(dash - line)) < 0 ||
	    pmemram_parse_u64(buf, 16, &start) < 0)
		return -EINVAL;
	if (copy_span(buf, sizeof(buf), dash + 1, len - (size_t)(dash - line) - 1) < 0 ||
	    pmemram_parse_u64(buf, 16, &end) < 0)
		return -EINVAL;
	if (end <= start)
		return -EINVAL;

	*ret_start = start;
	*ret_end = end;
	return 0;
}

static int frames_push(struct pmemram_frames *f, uint64_t pfn)
{
	if (f->n == f->allocated) {
		size_t want = f->allocated ? f->allocated * 2 : 4096;
		uint64_t *p;

		if (f->allocated >= PMEMRAM_FRAMES_MAX)
			return -E2BIG;
		if (want > PMEMRAM_FRAMES_MAX)
			want = PMEMRAM_FRAMES_MAX;
		p = reallocarray(f->pfns, want, sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->pfns = p;
		f->allocated = want;
	}
	f->pfns[f->n++] = pfn;
	return 0;
}

/* The entries of [start, end) into f.  A range pagemap cannot read (the kernel refuses the
 * addresses of [vsyscall] on some configurations) is counted in skipped, not an error. */
static int read_range(struct pmemram_frames *f, int fd, uint64_t start, uint64_t end, uint64_t page_size,
		      uint64_t *zero_pfns)
{
	uint64_t entries[PAGEMAP_CHUNK];

	for (uint64_t page = start / page_size; page < end / page_size;) {
		uint64_t want = end / page_size - page;
		ssize_t got;
		size_t n;

		if (want > PAGEMAP_CHUNK)
			want = PAGEMAP_CHUNK;
		if (page > (uint64_t)INT64_MAX / sizeof(uint64_t))
			break;
		got = pread(fd, entries, want * sizeof(uint64_t), (off_t)(page * sizeof(uint64_t)));
		if (got < 0) {
			if (errno == ESRCH)
				return -ESRCH;
			f->skipped++;
			return 0;
		}
		n = (size_t)got / sizeof(uint64_t);
		if (n == 0) {
			f->skipped++;
			return 0;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t pfn = entries[i] & PMEMRAM_PAGEMAP_PFN_MASK;
			int r;

			if (!(entries[i] & PMEMRAM_PAGEMAP_PRESENT)) {
				if (entries[i] & PMEMRAM_PAGEMAP_SWAPPED)
					f->swapped++;
				continue;
			}
			f->present++;
			if (pfn == 0)
				(*zero_pfns)++;
			r = frames_push(f, pfn);
			if (r < 0)
				return r;
		}
		page += n;
	}
	return 0;
}

int pmemram_frames_add_pid(struct pmemram_ctx *ctx, struct pmemram_frames *f, int pid, uint64_t page_size)
{
	_cleanup_(fclosep) FILE *maps = NULL, *pagemap = NULL;
	_cleanup_(freep) char *line = NULL;
	struct pmemram_frames saved;
	char path[64];
	uint64_t zero_pfns = 0, present_before;
	size_t allocated = 0;
	int r;

	if (!ctx || !f || pid <= 0 || page_size == 0 || (page_size & (page_size - 1)) != 0)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	saved = *f;
	present_before = f->present;

	r = path_printf(path, sizeof(path), "%d/maps", pid);
	if (r < 0)
		return r;
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, path, &maps);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;

	r = path_printf(path, sizeof(path), "%d/pagemap", pid);
	if (r < 0)
		return r;
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, path, &pagemap);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;

	for (;;) {
		uint64_t start, end;

		errno = 0;
		if (getline(&line, &allocated, maps) < 0) {
			r = errno ? -errno : 0;
			break;
		}
		f->mappings++;
		r = pmemram_parse_maps_range(line, &start, &end);
		if (r < 0) {
			(void)path_printf(path, sizeof(path), "%d/maps", pid);
			pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, path);
			r = log_debug_errno(ctx, -EINVAL, "malformed maps line: %s", line);
			break;
		}
		r = read_range(f, fileno(pagemap), start, end, page_size, &zero_pfns);
		if (r < 0)
			break;
	}

	/* Frame 0 is never handed to a process: all-zero frames mean the kernel hid them. */
	if (r == 0 && zero_pfns > 0 && zero_pfns == f->present - present_before) {
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, path);
		r = log_debug_errno(ctx, -EPERM, "pagemap of pid %d shows no frame numbers (needs CAP_SYS_ADMIN)", pid);
	}
	if (r < 0) {
		if (r == -ESRCH)
			pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, path);
		/* Keep the array (it may have grown) but forget this process's part of it. */
		saved.pfns = f->pfns;
		saved.allocated = f->allocated;
		*f = saved;
		return r;
	}
	return 0;
}

void pmemram_frames_done(struct pmemram_frames *f)
{
	free(f->pfns);
	*f = (struct pmemram_frames){};
}

int pmemram_frame_owners(struct pmemram_ctx *ctx, uint64_t first_pfn, uint64_t end_pfn, uint64_t page_size,
			 char *buf, size_t size)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir pids = {};
	size_t len = 0, read = 0, hidden = 0;
	int r, found = 0;

	if (!ctx || !buf || size == 0 || first_pfn >= end_pfn)
		return -EINVAL;
	buf[0] = '\0';
	r = root_dir_read(ctx, PMEMRAM_ROOT_PROCFS, ".", "", PMEMRAM_MAX_PROCESSES, &pids);
	if (r < 0)
		return r;

	for (size_t i = 0; i < pids.n && found < PMEMRAM_FRAME_OWNERS_MAX; i++) {
		struct pmemram_frames f = {};
		unsigned long pid;
		uint64_t hits = 0;
		char who[64];

		if (sysfs_name_index(pids.names[i], "", &pid) < 0 || pid == 0 || pid > INT32_MAX)
			continue;
		/* Gone, kernel thread, hidden frames or too big to read: nothing to name here. */
		r = pmemram_frames_add_pid(ctx, &f, (int)pid, page_size);
		if (r < 0) {
			hidden += r == -EPERM;
			pmemram_ctx_clear_error(ctx);
			pmemram_frames_done(&f);
			continue;
		}
		read += f.n > 0; /* kernel threads and empty processes show nothing either way */
		for (size_t k = 0; k < f.n; k++)
			hits += f.pfns[k] >= first_pfn && f.pfns[k] < end_pfn;
		pmemram_frames_done(&f);
		if (hits == 0)
			continue;

		pmemram_process_name(ctx, pids.names[i], who, sizeof(who));
		r = snprintf(buf + len, size - len, "%s%s (%" PRIu64 " page%s)", found ? ", " : "", who, hits,
			     hits == 1 ? "" : "s");
		if (r < 0 || (size_t)r >= size - len)
			break;
		len += (size_t)r;
		found++;
	}
	/* Every process with pages showed frame 0: the frames are hidden from us. */
	if (found == 0 && read == 0 && hidden > 0)
		return -EPERM;
	return found;
}

/* "N2=123" words of a numa_maps line: the pages on node. */
static uint64_t numa_maps_pages(const char *line, int node)
{
	char word[16];
	int n = snprintf(word, sizeof(word), " N%d=", node);
	const char *p = line;
	uint64_t total = 0;

	while (n > 0 && (p = strstr(p, word))) {
		p += n;
		total += strtoull(p, NULL, 10);
	}
	return total;
}

struct node_user {
	char pid[16];
	uint64_t pages;
};

int pmemram_node_users(struct pmemram_ctx *ctx, int node, char *buf, size_t size)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir pids = {};
	struct node_user top[PMEMRAM_FRAME_OWNERS_MAX] = {};
	size_t len = 0, n_top = 0;
	int r;

	if (!ctx || node < 0 || !buf || size == 0)
		return -EINVAL;
	buf[0] = '\0';
	r = root_dir_read(ctx, PMEMRAM_ROOT_PROCFS, ".", "", PMEMRAM_MAX_PROCESSES, &pids);
	if (r < 0)
		return r;

	/* The processes with the most pages there, most first. */
	for (size_t i = 0; i < pids.n; i++) {
		_cleanup_(fclosep) FILE *f = NULL;
		_cleanup_(freep) char *line = NULL;
		size_t line_size = 0, k;
		uint64_t pages = 0;
		char path[64];

		if (path_printf(path, sizeof(path), "%s/numa_maps", pids.names[i]) < 0 ||
		    root_fopen(ctx, PMEMRAM_ROOT_PROCFS, path, &f) < 0) {
			pmemram_ctx_clear_error(ctx);
			continue;
		}
		while (getline(&line, &line_size, f) > 0)
			pages += numa_maps_pages(line, node);
		if (pages == 0 || strlen(pids.names[i]) >= sizeof(top[0].pid))
			continue;
		for (k = n_top; k > 0 && top[k - 1].pages < pages; k--)
			if (k < PMEMRAM_FRAME_OWNERS_MAX)
				top[k] = top[k - 1];
		if (k >= PMEMRAM_FRAME_OWNERS_MAX)
			continue;
		top[k].pages = pages;
		(void)snprintf(top[k].pid, sizeof(top[k].pid), "%s", pids.names[i]);
		if (n_top < PMEMRAM_FRAME_OWNERS_MAX)
			n_top++;
	}

	for (size_t k = 0; k < n_top; k++) {
		char who[64];

		pmemram_process_name(ctx, top[k].pid, who, sizeof(who));
		r = snprintf(buf + len, size - len, "%s%s (%" PRIu64 " page%s)", k ? ", " : "", who, top[k].pages,
			     top[k].pages == 1 ? "" : "s");
		if (r < 0 || (size_t)r >= size - len)
			return (int)k;
		len += (size_t)r;
	}
	return (int)n_top;
}
