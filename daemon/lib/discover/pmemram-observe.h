/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Discovery for the planner: namespaces, processes and mounts using pmem, udev rules; pure parsers beside. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram-plan.h"
#include "pmemram.h"

/* pmemram's own udev rules (udev/ in the source tree): never counted as "another" onliner. */
#define PMEMRAM_UDEV_OWN_RULES "60-pmemram.rules"

/* Limits on what discovery reads (every user-controllable resource has one). */
#define PMEMRAM_MAX_NAMESPACES 4096
#define PMEMRAM_MAX_PROCESSES (1u << 22)	    /* PID_MAX_LIMIT */
#define PMEMRAM_MAX_FDS (1u << 20)		    /* descriptors per process (fs.nr_open's default) */
#define PMEMRAM_UDEV_MAX_RULES_FILES 4096	    /* per directory */
#define PMEMRAM_UDEV_MAX_FILE_SIZE (1024 * 1024)    /* bytes per rules file */
#define PMEMRAM_UDEV_MAX_LINE 16384		    /* bytes per rule, continuations joined */

/* ---- pure parsers (no I/O; tests feed strings) ------------------------------------------ */

/* A /proc/PID/maps line: *ret_path points at its pathname column inside line ("" when
 * anonymous), with the trailing newline and a " (deleted)" marker not included in *ret_len. */
int pmemram_parse_maps_line(const char *line, const char **ret_path, size_t *ret_len);

struct pmemram_mountinfo {
	unsigned major, minor;
	char source[64]; /* "/dev/pmem0"; "" when longer (then it names no pmem device anyway) */
};

/* A /proc/PID/mountinfo line: major:minor (third field) and mount source (after " - fstype "). */
int pmemram_parse_mountinfo_line(const char *line, struct pmemram_mountinfo *ret);

/* Second-to-last component of a sysfs link target: the parent device.
 * "../../../devices/platform/ACPI0012:00/ndbus0/region0/namespace0.0" -> "region0". */
int pmemram_parse_link_parent(const char *target, char *buf, size_t size);
/* The disk a /sys/dev/block/M:m link leads to: ".../block/pmem0/pmem0p1" -> "pmem0". */
int pmemram_parse_block_link(const char *target, char *buf, size_t size);
/* Whether name ("pmem0", "pmem0p1", "pmem0s1", with or without "/dev/") is disk or one of its partitions. */
bool pmemram_blockdev_is_on(const char *name, const char *disk);

/* Where a dax device comes from, by the path its bus/dax/devices link points to: below an
 * "ACPI0017:*" CXL root, a "decoderX.Y" or an "nvdimm-bridgeN", a CXL region (the regionN below the
 * decoder, else the NVDIMM region on the bridge); below "hmem.N", soft-reserved memory; below
 * "ndbusN/regionN", an NVDIMM namespace; else unknown ("" for provider).  The one place that tells
 * sources apart: a new kind of provider goes here. */
int pmemram_parse_dax_source(const char *target, enum pmemram_dax_source *ret, char *provider, size_t size);

/* A namespace's "mode" attribute ("raw", "safe", "memory", "dax"): 1 and *ret for the modes
 * pmemram lists as namespaces, 0 for "dax" (its dax device stands for it), -EINVAL otherwise. */
int pmemram_parse_ns_mode(const char *s, enum pmemram_ns_mode *ret);

/* How one udev rule line relates to memory devices. */
enum pmemram_udev_selects {
	PMEMRAM_UDEV_SELECTS_ANY,	 /* no SUBSYSTEM/KERNEL test that decides for memory */
	PMEMRAM_UDEV_SELECTS_MEMORY,	 /* SUBSYSTEM=="memory", KERNEL=="memory*" */
	PMEMRAM_UDEV_SELECTS_OTHER,	 /* SUBSYSTEM=="cpu": memory never gets past the test */
	PMEMRAM_UDEV_SELECTS_NOT_MEMORY, /* SUBSYSTEM!="memory": everything but memory */
};

struct pmemram_udev_line {
	enum pmemram_udev_selects selects;
	bool sets_state;		 /* ATTR{state}="online..." (assignment, not a match) */
	enum pmemram_auto_online policy; /* what it writes; ONLINE for "$env{...}" and friends */
	char goto_label[64];		 /* GOTO="..." */
	char label[64];			 /* LABEL="..." */
};

/* One logical rule line (continuations already joined; no comment): -EINVAL when malformed. */
int pmemram_parse_udev_line(const char *line, struct pmemram_udev_line *ret);

/* A whole rules file.  A rule onlines memory when it assigns ATTR{state}="online..." and either
 * selects memory itself or stands between SUBSYSTEM!="memory", GOTO="X" and LABEL="X".
 * 1 and *ret ("NAME:LINE", policy) for the first such rule, 0 when there is none.
 * Malformed lines are skipped, as udev does. */
int pmemram_udev_rules_scan(const char *name, const char *text, size_t size, struct pmemram_observed_udev *ret);

/* A whole rules file: 1 and rule ("NAME:LINE") for its first rule that RUNs daxctl with -C
 * (daxctl 76's 90-daxctl-device.rules on Debian 12, whose daxctl has no such option: the hook fails
 * for every dax device), 0 when it has none.  Malformed lines are skipped, as udev does. */
int pmemram_udev_daxctl_hook_scan(const char *name, const char *text, size_t size, char *rule, size_t rule_size);

/* ---- discovery (thin I/O through the context's roots) ------------------------------------ */

/* d->source and d->provider of the listed device d->name, from its bus/dax/devices link; a
 * device whose entry is gone or not a link has source unknown. */
int pmemram_dax_source_read(struct pmemram_ctx *ctx, struct pmemram_dax *d);

/* An NVDIMM-backed dax device's namespace UUID (lower case) and region from
 * bus/dax/devices/daxX.Y/../namespace; left "" for other dax devices (hmem). */
int pmemram_dax_namespace_read(struct pmemram_ctx *ctx, struct pmemram_observed_dax *d);

/* The CXL pmem region whose physical range is that of nvdimm region nd_region ("region0" of
 * bus/nd), and the serials of that CXL region's memdevs: 1 and *ret when there is one, 0 (*ret
 * empty) when there is none.  Best effort: when something cannot be read (a memdev or region
 * going away, the nvdimm region's range root's to read) it is 0 too, with ret->error and
 * ret->error_path saying what; only -ENOMEM fails.  The nvdimm region of a CXL pmem region sits
 * below the CXL root's nvdimm bridge, not below the CXL region, and the two are numbered
 * independently: only the range ties them. */
int pmemram_cxl_origin_read(struct pmemram_ctx *ctx, const char *nd_region, struct pmemram_cxl_origin *ret);

/* The CXL region cxl_region ("region0" of bus/cxl) as the origin of a dax device below it: a RAM
 * region's (6.3+) dax region hangs below the CXL region itself.  1 and *ret with its memdevs'
 * serials; best effort as pmemram_cxl_origin_read(): 0 with ret->error when they cannot be read. */
int pmemram_cxl_region_origin_read(struct pmemram_ctx *ctx, const char *cxl_region, struct pmemram_cxl_origin *ret);

/* Every CXL memdev (bus/cxl/devices/memN) with its serial, pmem capacity, the endpoint decoder
 * that holds its DPA or puts it in a region, and the root decoder a pmem region of it alone would
 * be made on; none without the CXL bus.  Best effort: a memdev not fully readable has error and
 * error_path set; only -ENOMEM fails. */
int pmemram_cxl_memdevs_read(struct pmemram_ctx *ctx, struct pmemram_observed_memdev **ret, size_t *ret_n);
/* Every CXL region (bus/cxl/devices/regionN) with its root decoder, UUID, size and state; an
 * unreadable one (going away) is left out.  None without the CXL bus. */
int pmemram_cxl_regions_read(struct pmemram_ctx *ctx, struct pmemram_observed_cxl_region **ret, size_t *ret_n);

/* System RAM that sits directly in a CXL window of /proc/iomem: CXL memory that firmware mapped as
 * ordinary memory (no EFI_MEMORY_SP), onlined at boot, with no region, dax device or claim to it.
 * Inclusive ranges, as /proc/iomem prints them (zeros when it is read without root). */
struct pmemram_cxl_plain_ram {
	uint64_t start, end;
	char window[32]; /* "CXL Window 0" */
};
/* Every such range, in /proc/iomem's order; none without CXL windows.  *ret is free()d. */
int pmemram_cxl_plain_ram_read(struct pmemram_ctx *ctx, struct pmemram_cxl_plain_ram **ret, size_t *ret_n);

/* What a dax device is, beyond its name (which a new device may take over): "uuid:UUID" of its
 * namespace for NVDIMM-backed devices, "range:0xSTART-0xEND" of its physical range otherwise.
 * -ENODEV when there is no such device, -EACCES when its range is unreadable (not root). */
#define PMEMRAM_DEVICE_IDENTITY_MAX 64
int pmemram_dax_identity_read(struct pmemram_ctx *ctx, const char *device, char *buf, size_t size);
/* The same for a device already listed (pmemram_dax_list_read()): reads only its namespace. */
int pmemram_dax_identity(struct pmemram_ctx *ctx, const struct pmemram_dax *dax, char *buf, size_t size);
/* The same for a device already observed with its namespace: reads nothing. */
int pmemram_observed_dax_identity(const struct pmemram_observed_dax *d, char *buf, size_t size);
/* An identity recorded before ranges were inclusive ("range:START-END" with END = START + size,
 * which a daemon upgrade finds in /run), rewritten in place as the inclusive form it now is; any
 * other left alone. */
void pmemram_dax_identity_upgrade(char *id, size_t size);

/* Every NVDIMM region (bus/nd/devices/regionN) with its largest free extent, for create =
 * devdax; none without the nd bus. */
int pmemram_regions_read(struct pmemram_ctx *ctx, struct pmemram_observed_region **ret, size_t *ret_n);

/* 1 when the namespace's holder (its pfn, btt or nd_dax device, "dax0.1") is not bound to its
 * driver: for a devdax namespace, a conversion stopped before its dax device was enabled.  0 when
 * it is bound, or when the namespace has no holder. */
int pmemram_namespace_holder_disabled(struct pmemram_ctx *ctx, const char *name);

/* Namespaces in raw, sector or fsdax mode with a size (idle seeds are left out), and devdax ones
 * whose dax device is not enabled, from bus/nd/devices/namespaceX.Y; "mounted" is left false, see pmemram_mounts_scan(). */
int pmemram_namespaces_read(struct pmemram_ctx *ctx, struct pmemram_observed_namespace **ret, size_t *ret_n);

/* Name process pid (its /proc directory name) "pid N (comm)" in buf, or "pid N" when its comm
 * cannot be read (gone, or not ours to read). */
void pmemram_process_name(struct pmemram_ctx *ctx, const char *pid, char *buf, size_t size);

/* Mark dax devices some process maps (/proc/PID/maps naming /dev/daxX.Y) or holds open
 * (/proc/PID/fd/N linking to it): the first such pid and comm, a mapping before a mere open; and
 * namespaces whose block device (or a partition) a process holds open (in_use).
 * *ret_unreadable counts processes whose maps or descriptors could not be read (other users'
 * when not root). */
int pmemram_users_scan(struct pmemram_ctx *ctx, struct pmemram_observed_dax *devices, size_t n,
		       struct pmemram_observed_namespace *namespaces, size_t n_namespaces, size_t *ret_unreadable);

/* Mark namespaces whose block device (or a partition) is swap (/proc/swaps) or held by another
 * block device such as dm or md (sysfs class/block/NAME/holders/): in_use says which. */
int pmemram_blockdev_users_scan(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n);

/* Mark namespaces whose block device (or a partition) is mounted: /proc/self/mountinfo,
 * matched by major:minor through sysfs dev/block/M:m, or by a /dev/pmem* source. */
int pmemram_mounts_scan(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n);

/* Whether namespace name ("namespace0.0") is in use now: mounted, open by a process, swap or held
 * by another block device, or some process's descriptors unreadable; why says which.  For a
 * check right before destroying it: the plan's scan may be seconds old.  1 in use, 0 not (or no
 * such namespace with a block device), -errno. */
int pmemram_namespace_in_use(struct pmemram_ctx *ctx, const char *name, char *why, size_t size);

/* The first udev rule, in udev's order, that onlines memory: files *.rules in etc/udev/rules.d,
 * run/udev/rules.d, usr/local/lib/udev/rules.d, usr/lib/udev/rules.d, lib/udev/rules.d below the
 * udev root (a name in an earlier directory hides the same name in later ones), except
 * PMEMRAM_UDEV_OWN_RULES.  ret->onlines_memory false when none. */
int pmemram_udev_rules_read(struct pmemram_ctx *ctx, struct pmemram_observed_udev *ret);
/* The first rule, in udev's order (the same files), that RUNs daxctl -C: 1 and "/FILE:LINE" in rule,
 * 0 (rule "") when there is none, -errno.  Read afresh each time. */
int pmemram_udev_daxctl_hook_read(struct pmemram_ctx *ctx, char *rule, size_t size);

/* Everything the planner needs, read in one go; observed points into the other members. */
struct pmemram_observation {
	struct pmemram_observed observed;
	struct pmemram_memory *memory;
	struct pmemram_dax_list *dax;
	struct pmemram_observed_dax *devices;
	struct pmemram_observed_namespace *namespaces;
	struct pmemram_observed_region *regions;
	struct pmemram_observed_memdev *memdevs;
	struct pmemram_observed_cxl_region *cxl_regions;
	bool users_scanned; /* mapped/mounted and observed.n_unreadable_processes filled in
			     * (pmemram_observation_scan_users()) */
};

int pmemram_observe(struct pmemram_ctx *ctx, struct pmemram_observation **ret);
/* Everything but the users of dax devices and namespaces (every process's maps, the mounts): the
 * expensive part, which only decisions to take a device from device_dax or convert a namespace
 * need (see pmemram_plan_needs_users()).  Complete it with pmemram_observation_scan_users(). */
int pmemram_observe_lazy(struct pmemram_ctx *ctx, struct pmemram_observation **ret);
int pmemram_observation_scan_users(struct pmemram_ctx *ctx, struct pmemram_observation *o);
/* Scoped to one memory block, for acting on that block alone: memoryN, the dax device whose range
 * holds it (with its namespace), no other device, block, namespace, user or udev rule.  The plan
 * from it has at most that block's actions; the cost does not grow with the blocks of the system. */
int pmemram_observe_block(struct pmemram_ctx *ctx, unsigned long block, struct pmemram_observation **ret);
/* The same, for a block just added: kmem adds a device's blocks from its probe, and each block's
 * "add" uevent comes while the probe still adds the rest: before the blocks get their node links
 * (6.12 links them once every block is registered, and after registering a node that was empty)
 * and, on some kernels, before the device's driver link appears.  A block of a device that shows
 * no driver, or (on a NUMA kernel) a block without a node link, is such a bind in progress:
 * observe again (every poll_usec) until neither holds or timeout_usec passed; then the last
 * observation, and 1 when it still shows one of them (0 otherwise, -errno on failure). */
int pmemram_observe_block_bound(struct pmemram_ctx *ctx, unsigned long block, uint64_t timeout_usec,
				uint64_t poll_usec, struct pmemram_observation **ret);
struct pmemram_observation *pmemram_observation_free(struct pmemram_observation *o);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_observation, pmemram_observation_free)
