/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tiering classes on the system: their systemd slices and the kernel's demotion switch. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram-config.h"
#include "pmemram.h"

/*
 * Each class gets a runtime slice unit, /run/systemd/system/pmemram-NAME.slice, whose
 * AllowedMemoryNodes= is the class's nodes as last resolved; a unit joins the class with
 * Slice=pmemram-NAME.slice.  systemd applies a changed AllowedMemoryNodes= to the slice's cgroup
 * (cpuset.mems) at daemon-reload, so running units follow without a restart.  Files in that
 * directory named pmemram-*.slice that start with PMEMRAM_SLICE_HEADER are pmemram's: those of
 * classes no longer configured are removed; others are never touched.
 */
#define PMEMRAM_SLICE_DIR "/run/systemd/system"
#define PMEMRAM_SLICE_DIR_ENV "PMEMRAM_SLICE_DIR" /* read once by each program's main: tests */
#define PMEMRAM_SLICE_HEADER "# Written by pmemramd for the tiering class "
#define PMEMRAM_SLICE_MAX 4096 /* bytes of a slice file pmemram reads back */

/* "pmemram-NAME.slice" in buf; -EINVAL for a name a class may not have, -ENAMETOOLONG. */
int pmemram_slice_name(const char *class_name, char *buf, size_t size);
/* The slice unit's text for class c resolved to nodes ("2", "0-1"; never empty); origin is where the
 * class was defined ("pmemram.conf:7"), for the comment.  Caller frees *ret. */
int pmemram_slice_render(const struct pmemram_class *c, const char *nodes, const char *origin, char **ret);
/* The AllowedMemoryNodes= value of pmemram's slice for the class in dir_fd: 1 and nodes, 0 when there
 * is no such file (or it is not pmemram's), -errno. */
int pmemram_slice_read_nodes(int dir_fd, const char *class_name, char *nodes, size_t size);
/* Write text as the class's slice below dir_fd unless it already holds exactly that: 1 written,
 * 0 unchanged, -errno.  Atomic: a hidden temporary file renamed over it. */
int pmemram_slice_write(int dir_fd, const char *class_name, const char *text);

/*
 * A class's protect = SIZE becomes MemoryLow= in its slice: the kernel then reclaims (and so
 * demotes) the slice's memory below that size only when no other memory can be reclaimed.
 * Measured on 6.1 (tests/vm/scenarios/tiering-protect.sh): MemoryLow= keeps a DRAM-only class's
 * pages on DRAM under demotion, as MemoryMin= does; MemoryLow= gives way when nothing else can be
 * reclaimed, where memory.min is hard and the OOM killer runs instead (cgroup-v2.rst).  The kernel protects a cgroup only as far as its
 * parent is protected, so pmemram.slice, the parent of every class slice, gets the sum of them;
 * without it the classes' MemoryLow= protects nothing (measured too).
 */
#define PMEMRAM_SLICE_PROTECT_KEY "MemoryLow"
#define PMEMRAM_SLICE_PROTECT_FILE "memory.low" /* the cgroup file systemd writes it to */
#define PMEMRAM_PARENT_SLICE "pmemram.slice"
/* pmemram.slice's text for the sum of the classes' protections (not 0).  Caller frees *ret. */
int pmemram_parent_slice_render(uint64_t protect, char **ret);
/* pmemram_slice_write() for pmemram.slice; text NULL removes pmemram's file: 1 changed, 0
 * unchanged, -EEXIST when a pmemram.slice that pmemramd did not write is there. */
int pmemram_parent_slice_write(int dir_fd, const char *text);
/* The protection the kernel applies to the class's slice now: memory.low of the cgroup
 * fs/cgroup/pmemram.slice/pmemram-NAME.slice below the sysfs root ("max" is UINT64_MAX), or with
 * class_name NULL of fs/cgroup/pmemram.slice itself.  1 and
 * *ret; 0 when the cgroup does not exist (systemd makes it with the slice's first unit); -ENOENT
 * when it has no memory.low (no memory controller there); -errno. */
int pmemram_slice_read_protection(struct pmemram_ctx *ctx, const char *class_name, uint64_t *ret);
/* Whether memory.low reading memory_low is protect = bytes: the kernel keeps whole pages. */
bool pmemram_protection_matches(uint64_t bytes, uint64_t memory_low);
/* Remove pmemram's slice files below dir_fd whose class is not in keep: the number removed, -errno.
 * Each removed name is passed to removed (may be NULL). */
int pmemram_slice_prune(int dir_fd, const char *const *keep, size_t n_keep,
			void (*removed)(const char *name, void *userdata), void *userdata);

/* kernel.numa_balancing and its promotion rate limit, below the procfs root. */
struct pmemram_promotion {
	unsigned numa_balancing; /* the sysctl: bit 1 between the nodes of a tier, bit 2 between tiers */
	bool tiering;		 /* bit 2: hot pages of slower tiers are promoted to the top tier */
	uint64_t rate_mbps;	 /* numa_balancing_promote_rate_limit_MBps, 0 when the kernel has none */
};
/* -ENOENT when the kernel has no NUMA balancing (CONFIG_NUMA_BALANCING off). */
int pmemram_promotion_read(struct pmemram_ctx *ctx, struct pmemram_promotion *ret);
/* {"numa_balancing": N, "tiering": bool, "rate_limit_mbps": N or null} from what
 * pmemram_promotion_read() returned (r) and read; NULL for r < 0 (or no memory). */
struct json_object;
struct json_object *pmemram_promotion_to_json(int r, const struct pmemram_promotion *p);
/* Set or clear the tiering bit (the other bits kept), and the rate limit unless rate_mbps is 0;
 * each written value read back (-EIO when it differs). */
int pmemram_promotion_write(struct pmemram_ctx *ctx, bool on, uint64_t rate_mbps);

/* /sys/kernel/mm/numa/demotion_enabled: -ENOENT when the kernel has no such switch. */
int pmemram_demotion_read(struct pmemram_ctx *ctx, bool *ret);
/* Write it and read it back; -EIO when it does not stick. */
int pmemram_demotion_write(struct pmemram_ctx *ctx, bool on);
