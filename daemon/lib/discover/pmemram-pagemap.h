/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Physical frames behind a process's resident memory: /proc/PID/maps and /proc/PID/pagemap. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "pmemram.h"

/*
 * pagemap has one 64-bit entry per virtual page: bit 63 "present in RAM", bit 62 "swapped", bits
 * 0-54 the page frame number when present.  Since Linux 4.2 the PFN reads as 0 unless the reader has
 * CAP_SYS_ADMIN, so a caller without it sees present pages at frame 0: pmemram_frames_add_pid()
 * returns -EPERM for that rather than a model of one frame.
 */
#define PMEMRAM_PAGEMAP_PRESENT (UINT64_C(1) << 63)
#define PMEMRAM_PAGEMAP_SWAPPED (UINT64_C(1) << 62)
#define PMEMRAM_PAGEMAP_PFN_MASK ((UINT64_C(1) << 55) - 1)

/* Frames collected so far, duplicates included (shared pages appear once per mapping). */
#define PMEMRAM_FRAMES_MAX (UINT64_C(1) << 26) /* entries before dedup: 512 MiB of array; -E2BIG above */

struct pmemram_frames {
	uint64_t *pfns;
	size_t n;
	size_t allocated;
	uint64_t present;	 /* present pages seen, including those beyond the frames kept */
	uint64_t swapped;	 /* pages out on swap: resident nowhere, not modelled */
	uint64_t mappings;	 /* maps lines read */
	uint64_t skipped;	 /* mappings whose pagemap range could not be read (e.g. [vsyscall]) */
};

/*
 * Append the PFNs of every present page of process pid (from the context's procfs root) with pages
 * of page_size bytes.  -ESRCH when the process does not exist (one that exits while being read gives
 * what was read, its later mappings reading empty, counted in skipped), -EPERM
 * when the kernel hides the frame numbers, -EACCES when pagemap cannot be opened, -E2BIG beyond
 * PMEMRAM_FRAMES_MAX; the error path names the file.  On failure f keeps what it had before.
 */
int pmemram_frames_add_pid(struct pmemram_ctx *ctx, struct pmemram_frames *f, int pid, uint64_t page_size);
void pmemram_frames_done(struct pmemram_frames *f);

/* The processes (at most PMEMRAM_FRAME_OWNERS_MAX) with resident pages in frames
 * [first_pfn, end_pfn), as "pid 12 (comm) (N pages), ..." in buf: who holds the pages of a
 * block that will not go offline.  Needs CAP_SYS_ADMIN to see frames; processes that cannot
 * be read are skipped.  Returns how many were named, -EPERM when the kernel hid every frame
 * (no CAP_SYS_ADMIN), or -errno when procfs cannot be listed. */
#define PMEMRAM_FRAME_OWNERS_MAX 3
int pmemram_frame_owners(struct pmemram_ctx *ctx, uint64_t first_pfn, uint64_t end_pfn, uint64_t page_size,
			 char *buf, size_t size);
/* Where frames are hidden: the processes (at most PMEMRAM_FRAME_OWNERS_MAX, the most pages first)
 * with pages on NUMA node, from /proc/PID/numa_maps, in the same format.  Returns how many were
 * named, or -errno. */
int pmemram_node_users(struct pmemram_ctx *ctx, int node, char *buf, size_t size);

/* Parse a maps line's "START-END" address range; -EINVAL when malformed or empty. */
int pmemram_parse_maps_range(const char *line, uint64_t *ret_start, uint64_t *ret_end);
