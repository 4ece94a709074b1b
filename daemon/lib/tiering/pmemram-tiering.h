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
/* The path of file in the class's slice cgroup below the sysfs root,
 * fs/cgroup/pmemram.slice/pmemram-NAME.slice/FILE (with class_name NULL, in pmemram.slice's): 1 and
 * the path in buf when the cgroup exists, 0 when it does not; -EINVAL for a name a class may not
 * have, -ENAMETOOLONG, -errno. */
int pmemram_slice_cgroup_file(struct pmemram_ctx *ctx, const char *class_name, const char *file, char *buf,
			      size_t size);
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

/*
 * What a class uses: the memory of its slice cgroup per NUMA node, from memory.numa_stat.  The
 * "anon" and "file" lines are added up ("file" holds shmem and the swap cache, so those are not
 * added again; anon_thp, file_thp and the like are parts of them).  Kernel memory (kernel_stack,
 * pagetables, slab_*) is left out: the kernel may place it outside cpuset.mems, so it would
 * flag a class whose units stayed on their nodes.  Values are in bytes.
 */
struct pmemram_numa_usage {
	struct pmemram_nodemask nodes;	   /* the nodes the file lists (those with memory) */
	uint64_t bytes[PMEMRAM_MAX_NODES]; /* anon + file on each, saturating */
};
#define PMEMRAM_NUMA_STAT_ANON 1
#define PMEMRAM_NUMA_STAT_FILE 2
/* One line of memory.numa_stat, "KEY N0=BYTES N1=BYTES ...": an "anon" or "file" line is added to
 * *acc and PMEMRAM_NUMA_STAT_ANON or _FILE returned, any other line is 0 (and not looked at);
 * -EINVAL for an anon or file line that does not parse, -ERANGE for a node past
 * PMEMRAM_MAX_NODES - 1 (*acc then untouched).  Pure. */
int pmemram_parse_numa_stat_line(const char *line, struct pmemram_numa_usage *acc);
/* The class's usage now: 1 and *ret; 0 when its slice has no cgroup (systemd makes it with the
 * slice's first unit); -ENOENT when the cgroup has no memory.numa_stat (no memory controller);
 * -EBADMSG when the file lacks the anon or the file line; -errno. */
int pmemram_slice_read_usage(struct pmemram_ctx *ctx, const char *class_name, struct pmemram_numa_usage *ret);
/* The bytes of u on nodes outside allowed, and those nodes (the ones holding any) in *ret_nodes. */
uint64_t pmemram_numa_usage_outside(const struct pmemram_numa_usage *u, const struct pmemram_nodemask *allowed,
				    struct pmemram_nodemask *ret_nodes);
/* Add a class's usage to o: "memory_per_node" {"NODE": bytes, ...}, "memory_bytes",
 * "outside_nodes" ("2", null when none) and "bytes_outside"; r is what pmemram_slice_read_usage()
 * returned, allowed the class's nodes (NULL when it does not resolve).  Every key is null when
 * the usage is not known (r <= 0), and the outside ones when allowed is NULL.  false on
 * allocation failure. */
bool pmemram_numa_usage_to_json(struct json_object *o, int r, const struct pmemram_numa_usage *u,
				const struct pmemram_nodemask *allowed);

/*
 * The tiering counters of a node's vmstat (pmemram_node_vmstat_read()) as JSON:
 * {"pgdemote_kswapd": N, "pgdemote_direct": N, "pgpromote_success": N, ...}, each of those three
 * null when the kernel does not count it (pgpromote_success needs CONFIG_NUMA_BALANCING), and any
 * other pgpromote_ or pgdemote_ counter it has after them.  With base, each value is the increase
 * since base (a counter missing from base, or smaller now, counts from 0).  NULL on allocation
 * failure.
 */
struct json_object *pmemram_vmstat_to_json(const struct pmemram_vmstat_counter *now, size_t n,
					   const struct pmemram_vmstat_counter *base, size_t n_base);

/* The kernel's weights of weighted interleave, below sysfs (Linux 6.9). */
#define PMEMRAM_WEIGHTS_DIR "kernel/mm/mempolicy/weighted_interleave"
/* MPOL_WEIGHTED_INTERLEAVE of <linux/mempolicy.h>, which older headers lack. */
#define PMEMRAM_MPOL_WEIGHTED_INTERLEAVE 6

/* The kernel's weight of node (1-255): 0, or -ENOENT on a kernel without weighted interleave (the
 * directory) or for a node it has no file for. */
int pmemram_weight_read(struct pmemram_ctx *ctx, unsigned node, unsigned *ret);
/* Write it, and read it back. */
int pmemram_weight_write(struct pmemram_ctx *ctx, unsigned node, unsigned weight);
/* Whether the running kernel has weighted interleave (the directory exists): 1, 0, or -errno. */
int pmemram_weights_supported(struct pmemram_ctx *ctx);
