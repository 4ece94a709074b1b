/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner: (configuration, observed system) -> ordered actions and per-device verdicts, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmemram-config.h"
#include "pmemram.h"

#define PMEMRAM_PLAN_TEXT_MAX 256
/* The smallest namespace the kernel makes with an info block (nd_namespace_store()). */
#define PMEMRAM_CREATE_MIN (16ULL << 20)
/* The alignment of the dax devices pmemram makes, and of a namespace it creates per interleave way. */
#define PMEMRAM_DEVDAX_ALIGN (2ULL << 20)

/* The UUID a create = devdax claim gives the namespace it makes, from the claim's name alone: what
 * proves a namespace with that name pmemram's.  An RFC 9562 version-8 UUID whose halves are 64-bit
 * FNV-1a hashes of "pmemram-create:" and the name, from FNV's offset basis and from that basis with
 * its halves swapped. */
void pmemram_create_uuid(const char *claim, uint8_t ret[16]);
/* The same, lower case as sysfs shows it; returns buf. */
char *pmemram_create_uuid_string(const char *claim, char buf[PMEMRAM_UUID_STRING_MAX]);

/* The UUID of the CXL region a create-region = pmem claim makes: pmemram_create_uuid() of
 * "cxl-region:" and the memdev's serial ("cxl-region:0x5eed0001"), which tells the region
 * pmemram's after a restart, whatever the claim is called. */
void pmemram_cxl_region_uuid(uint64_t serial, uint8_t ret[16]);
/* The same, lower case as sysfs shows it; returns buf. */
char *pmemram_cxl_region_uuid_string(uint64_t serial, char buf[PMEMRAM_UUID_STRING_MAX]);

/* ---- what discovery saw (plain data; the planner borrows, never frees) ---------------- */

/* A dax device with what its namespace (nd bus) and /proc add to the sysfs view. */
/* The CXL region an nvdimm region lies in, and that region's memory devices. */
#define PMEMRAM_CXL_MAX_TARGETS 16 /* interleave ways of a CXL region at most */
struct pmemram_cxl_origin {
	char region[32];			   /* CXL region, "region0"; "" when not on CXL */
	uint64_t serials[PMEMRAM_CXL_MAX_TARGETS]; /* its memdevs' serial numbers, by position */
	size_t n_serials;
	int error;	      /* -errno when the CXL side could not be read (region then ""), else 0 */
	char error_path[128]; /* the file that could not be read, when error */
};

struct pmemram_observed_dax {
	struct pmemram_dax dax;			   /* from pmemram_dax_list_read() */
	char uuid[PMEMRAM_UUID_STRING_MAX];	   /* its namespace's UUID, lower case; "" when none */
	char info_uuid[PMEMRAM_UUID_STRING_MAX];   /* the devdax info block's, as ndctl list -N shows it */
	char region[32];			   /* "region0"; "" when unknown */
	char namespace[32];			   /* "namespace0.0"; "" when none */
	char ns_name[64];			   /* its namespace's name (alt_name), "" when none */
	struct pmemram_cxl_origin cxl;		   /* the CXL side of region, when on CXL */
	bool mapped;				   /* /dev/daxX.Y mapped or held open by a process */
	bool open_only;				   /* held open, mapped by nobody (found) */
	char mapped_by[48];			   /* "pid 1234 (qemu)" when known */
};

enum pmemram_ns_mode {
	PMEMRAM_NS_RAW,
	PMEMRAM_NS_SECTOR,
	PMEMRAM_NS_FSDAX,
	PMEMRAM_NS_DEVDAX, /* given to a dax device that is not enabled: a conversion cut short */
	_PMEMRAM_NS_MODE_MAX,
};

/* A namespace that is not in devdax mode, or whose devdax device is not enabled (enabled ones
 * appear as dax devices). */
struct pmemram_observed_namespace {
	char name[32]; /* "namespace0.0" */
	char uuid[PMEMRAM_UUID_STRING_MAX];
	/* The info block's, of its fsdax (pfn) or sector (btt) device: the UUID ndctl list -N shows,
	 * the namespace's own being raw_uuid in ndctl list -N -v; "" when raw. */
	char info_uuid[PMEMRAM_UUID_STRING_MAX];
	char region[32];
	char alt_name[64]; /* the label's name: a claim's name when pmemram created it ("" none) */
	enum pmemram_ns_mode mode;
	uint64_t size;
	char blockdev[32]; /* "pmem0"; "" when none */
	bool mounted;	   /* the block device (or a partition) is mounted */
	char in_use[128];  /* otherwise in use: "/dev/pmem0 open by pid 12 (fio)", "... is swap",
			    * "/dev/pmem0 held by dm-0"; "" when not */
};

/* An NVDIMM region's free space, for claims with create = devdax. */
struct pmemram_observed_region {
	char name[32];		       /* "region0" */
	bool has_extent;	       /* the kernel tells its largest free extent (max_available_extent, 4.19+) */
	uint64_t available;	       /* that extent, 0 without has_extent */
	uint64_t align;		       /* a namespace's size is a multiple of it (align, 5.9+); 0 unknown */
	unsigned ways;		       /* its interleave ways (mappings); 0 unknown */
	struct pmemram_cxl_origin cxl; /* the CXL region it lies in, when on CXL */
};

/* A CXL memory device (bus/cxl/devices/memN), for claims with create-region = pmem. */
struct pmemram_observed_memdev {
	char name[32]; /* "mem0" */
	uint64_t serial;
	uint64_t pmem_size;	   /* its pmem capacity (memN/pmem/size) */
	char endpoint[32];	   /* "endpoint2"; "" when cxl_mem has not enabled it */
	char decoder[32];	   /* its endpoint decoder in a region, else the first holding DPA; "" */
	uint64_t dpa_size;	   /* the DPA that decoder holds */
	char region[32];	   /* the CXL region that decoder is in; "" none */
	char root_decoder[32];	   /* a root decoder of one way that takes pmem for its host bridge; "" none */
	uint64_t root_free;	   /* that root decoder's largest free extent of address space, 256 MiB aligned */
	uint64_t ram_size;	   /* its volatile capacity (memN/ram/size) */
	char ram_root_decoder[32]; /* the same of one that takes RAM (cap_ram); "" none */
	uint64_t ram_root_free;	   /* its largest free extent */
	bool serial_unreadable;	   /* its serial could not be read (error says why): serial is 0 */
	int error;		   /* -errno when part of it could not be read, else 0 */
	char error_path[128];	   /* the file that could not be read, when error */
};

/* A CXL region (bus/cxl/devices/regionN), for claims with create-region. */
struct pmemram_observed_cxl_region {
	char name[32];			    /* "region0" */
	char root_decoder[32];		    /* the root decoder it was made on */
	char uuid[PMEMRAM_UUID_STRING_MAX]; /* a pmem region's, lower case; "" none or null */
	uint64_t size;
	size_t n_targets;	/* its targets set (targetN naming an endpoint decoder) */
	uint64_t target_serial; /* the serial of the memdev behind the first of them */
	bool committed;		/* commit reads 1 */
	bool enabled;		/* bound to the cxl_region driver */
	bool ram;		/* mode reads "ram" (6.3 and later: 6.1 makes pmem regions only) */
};

/* The alignment of a CXL region's size per interleave way (the kernel's SZ_256M). */
#define PMEMRAM_CXL_REGION_ALIGN (256ULL << 20)

/* The size of the namespace create = devdax makes in region r, its largest free extent aligned
 * down to the least common multiple of its alignment and 2 MiB times its interleave ways (the
 * kernel's and devdax's), in *ret_size; the planner
 * and the op judge by it alike.  -EOPNOTSUPP when the kernel does not tell the extent (a namespace
 * takes one contiguous extent, which the total free space does not give), -ENOSPC (*ret_size set)
 * when pmemram_create_blocks() of that size is 0: such a namespace may give no memory and still use
 * up the claim's one namespace. */
int pmemram_create_size(const struct pmemram_observed_region *r, uint64_t block_size, uint64_t *ret_size);

/* The whole memory blocks of block_size that kmem adds, wherever the kernel places it, from the
 * devdax namespace of size bytes that create = devdax makes: the namespace keeps its info block
 * and memory map ahead of the data (aligned to 2 MiB), and kmem adds only whole blocks aligned in
 * physical memory while the namespace is sure of 2 MiB alignment only.  With 128 MiB blocks, 260
 * MiB is the least size that gives one block (390 MiB two). */
uint64_t pmemram_create_blocks(uint64_t size, uint64_t block_size);

/* A udev rule that onlines hot-added memory, other than pmemram's own. */
struct pmemram_observed_udev {
	bool onlines_memory;
	enum pmemram_auto_online policy; /* what it writes to memoryN/state */
	char rule[128];			 /* "/usr/lib/udev/rules.d/40-redhat.rules:12" */
};

struct pmemram_observed {
	uint64_t block_size;
	enum pmemram_auto_online auto_online; /* /sys/devices/system/memory/auto_online_blocks */
	struct pmemram_observed_udev udev;
	/* The kernel binds hmem and CXL RAM devices to kmem at probe (pmemram_kernel_binds_ram_at_probe()):
	 * one of those on kmem that pmemram did not bind was put there by the kernel, as far as
	 * anyone can tell.  Not read for a scoped observation (udev-online's, block by block),
	 * which no provenance is taken from. */
	bool ram_kmem_at_probe;
	size_t n_blocks;
	const struct pmemram_memblock *blocks; /* sorted by id, as pmemram_memory_read() returns them */
	size_t n_devices;
	const struct pmemram_observed_dax *devices;
	size_t n_namespaces;
	const struct pmemram_observed_namespace *namespaces;
	size_t n_regions;
	const struct pmemram_observed_region *regions;
	size_t n_memdevs;
	const struct pmemram_observed_memdev *memdevs;
	size_t n_cxl_regions;
	const struct pmemram_observed_cxl_region *cxl_regions;
	/* Processes whose maps or descriptors the users scan could not read (pmemram_users_scan()):
	 * a namespace one of them may hold open is not converted. */
	size_t n_unreadable_processes;
	/* When set, only memory blocks [scope_first, scope_end) were read: the plan judges and acts
	 * on those alone, and a device's other blocks are neither missing nor planned. */
	bool scoped;
	unsigned long scope_first, scope_end;
};

/* ---- the plan ---------------------------------------------------------------------- */

enum pmemram_action_type {
	PMEMRAM_ACTION_CONVERT_NAMESPACE, /* raw/fsdax namespace to devdax, keeping its UUID: destroys data */
	PMEMRAM_ACTION_DISABLE_DEVDAX,	  /* unbind device_dax */
	PMEMRAM_ACTION_BIND_KMEM,	  /* bind kmem: the kernel adds the blocks, offline */
	PMEMRAM_ACTION_OFFLINE_BLOCK,	  /* planned only right before ONLINE_BLOCK of the same block */
	PMEMRAM_ACTION_ONLINE_BLOCK,	  /* zone NONE: the kernel's default zone (a release's undo) */
	PMEMRAM_ACTION_UNBIND_KMEM,	  /* release: every block of the device offline first */
	PMEMRAM_ACTION_BIND_DEVDAX,	  /* release: after UNBIND_KMEM */
	PMEMRAM_ACTION_CREATE_NAMESPACE,  /* devdax namespace named after the claim over the region's free space */
	PMEMRAM_ACTION_CREATE_CXL_REGION, /* pmem CXL region of one memdev, or finishing the claim's one */
	_PMEMRAM_ACTION_TYPE_MAX,
};

struct pmemram_action {
	enum pmemram_action_type type;
	char device[32];  /* dax device, the namespace for CONVERT_NAMESPACE, the region for CREATE_NAMESPACE,
			  * the memdev for CREATE_CXL_REGION */
	char decoder[32]; /* CREATE_CXL_REGION: the root decoder */
	uint64_t size;	  /* CREATE_CXL_REGION: the region's size */
	uint64_t serial;  /* CREATE_CXL_REGION: the memdev's serial */
	bool ram;	  /* CREATE_CXL_REGION: a RAM region (no UUID), not a pmem one */
	char claim[PMEMRAM_CONFIG_NAME_MAX];
	char uuid[PMEMRAM_UUID_STRING_MAX]; /* CONVERT_NAMESPACE: the claimed UUID the namespace must have;
					     * CREATE_NAMESPACE: the one it gets (pmemram_create_uuid());
					     * CREATE_CXL_REGION: the region's (pmemram_cxl_region_uuid()) */
	int node;		/* target node, -1 for CONVERT_NAMESPACE */
	unsigned long block;	/* memoryN, for *_BLOCK */
	enum pmemram_zone zone; /* ONLINE_BLOCK: MOVABLE or NORMAL */
};

enum pmemram_verdict {
	PMEMRAM_VERDICT_IGNORED,   /* no claim matches: left alone, not an error */
	PMEMRAM_VERDICT_CONVERGED, /* claimed and already as configured */
	PMEMRAM_VERDICT_PENDING,   /* claimed; the plan holds its actions */
	PMEMRAM_VERDICT_REFUSED,   /* claimed, but pmemram will not touch it: see reason */
	PMEMRAM_VERDICT_FAILED,	   /* claimed; reconcile tried and an action failed (set by reconcile) */
	_PMEMRAM_VERDICT_MAX,
};

enum pmemram_reason {
	PMEMRAM_REASON_NONE,
	PMEMRAM_REASON_UNCLAIMED,
	PMEMRAM_REASON_NAMESPACE_MODE,	    /* raw/sector/fsdax namespace and convert = no */
	PMEMRAM_REASON_MOUNTED,		    /* namespace's block device mounted: no conversion */
	PMEMRAM_REASON_MAPPED,		    /* dax device mapped by a process */
	PMEMRAM_REASON_OPEN,		    /* dax device held open (not mapped) by a process */
	PMEMRAM_REASON_BLOCKDEV_BUSY,	    /* namespace's block device open, swap or held: no conversion */
	PMEMRAM_REASON_OTHER_DRIVER,	    /* bound to a driver other than device_dax or kmem */
	PMEMRAM_REASON_NO_TARGET_NODE,	    /* kmem rejects target_node -1 */
	PMEMRAM_REASON_NO_RESOURCE,	    /* physical address unknown (resource is root-only) */
	PMEMRAM_REASON_TOO_SMALL,	    /* no whole memory block inside the range */
	PMEMRAM_REASON_AUTO_ONLINE,	    /* kernel auto_online_blocks would pick another zone */
	PMEMRAM_REASON_UDEV_ONLINE,	    /* a udev rule would online into another zone */
	PMEMRAM_REASON_BLOCKS_MISSING,	    /* kmem bound but blocks of the range absent */
	PMEMRAM_REASON_BLOCK_GOING_OFFLINE, /* someone is offlining a block right now */
	PMEMRAM_REASON_BLOCK_BEING_ADDED,   /* a block of the range has no node link yet */
	PMEMRAM_REASON_ZONE_NOT_VALID,	    /* an offline block's valid_zones lacks the claimed zone */
	PMEMRAM_REASON_HELD,		    /* given back with release: left alone until reclaimed */
	PMEMRAM_REASON_APPLY_FAILED,	    /* an action failed: the text says which and why */
	PMEMRAM_REASON_USERS_UNKNOWN,	    /* processes the users scan could not read: no conversion */
	PMEMRAM_REASON_NAME_TAKEN,	    /* create = devdax: a namespace not pmemram's has the claim's name */
	PMEMRAM_REASON_EXTENT_UNKNOWN,	    /* create = devdax: the kernel does not tell the largest free extent */
	PMEMRAM_REASON_RANGES_SPLIT,	    /* the device's ranges are not one contiguous physical range */
	PMEMRAM_REASON_NO_ROOT_DECODER,	    /* create-region: no root decoder takes pmem for the memdev */
	PMEMRAM_REASON_DPA_IN_USE,	    /* create-region: the memdev's capacity is decoded already */
	PMEMRAM_REASON_REGION_NOT_OURS,	    /* create-region: the memdev is in a region pmemram did not make */
	PMEMRAM_REASON_CXL_UNREADABLE,	    /* create-region: the memdev's CXL topology could not be read */
	PMEMRAM_REASON_NO_HPA_SPACE,	    /* create-region: the root decoder has no room for the region */
	PMEMRAM_REASON_SERIAL_AMBIGUOUS,    /* create-region: more than one memdev has the claimed serial */
	PMEMRAM_REASON_MEMDEV_UNCLAIMED,    /* a cxl-memdev claim: the region interleaves memdevs no claim names */
	_PMEMRAM_REASON_MAX,
};

struct pmemram_device_verdict {
	char device[32]; /* dax device or namespace */
	char claim[PMEMRAM_CONFIG_NAME_MAX]; /* "" when ignored */
	const char *matched_by;		     /* how the claim matched: "uuid" (the namespace label's), "info-uuid"
				 * (the devdax info block's, which ndctl list shows), "device", "hmem-range", "region",
				 * "cxl-region", "cxl-memdev", "hmem-node", "all-devdax"; NULL when ignored */
	struct pmemram_cxl_origin cxl;	     /* the CXL region and memdevs the device's memory is on */
	enum pmemram_verdict verdict;
	enum pmemram_reason reason;
	char text[PMEMRAM_PLAN_TEXT_MAX]; /* one line for logs and status */
	char conflict[2 * PMEMRAM_PLAN_TEXT_MAX]; /* a daxctl.conf.d section for the device that the deciding
					       * claim overrides: "daxctl section 'NAME' (FILE:LINE) ...", or "" */
	size_t n_blocks;		  /* whole memory blocks in the device's range */
	size_t n_blocks_done;		  /* of those, online in the claimed zone */
};

struct pmemram_plan {
	size_t n_actions;
	struct pmemram_action *actions; /* in the order to apply them */
	size_t n_verdicts;
	struct pmemram_device_verdict *verdicts; /* dax devices in observed order, then namespaces, regions */
	size_t n_unmatched;
	char (*unmatched)[PMEMRAM_CONFIG_NAME_MAX]; /* claims that matched nothing */
	/* For each unmatched claim, what may have kept it from matching ("CXL origin of dax4.0
	 * unreadable: PATH: ERROR"), "" when nothing is known. */
	char (*unmatched_notes)[PMEMRAM_PLAN_TEXT_MAX];
};

/* The claim-unmatched event's text for the plan's unmatched claim i, with what to check for the
 * claim's kind of match (c, as config has it; NULL: none) and the plan's note on it. */
char *pmemram_claim_unmatched_text(const struct pmemram_plan *plan, size_t i, const struct pmemram_claim *c, char *buf,
				   size_t size);

/* Pure: reads config and observed, writes *ret.  A converged system gives no actions.
 * After a CONVERT_NAMESPACE or BIND_KMEM the applier re-reads and plans again; the plan already
 * lists the blocks kmem will add, from the device's range and the block size. */
int pmemram_plan_compute(const struct pmemram_config *config, const struct pmemram_observed *observed,
			 struct pmemram_plan **ret);
struct pmemram_plan *pmemram_plan_free(struct pmemram_plan *plan);
bool pmemram_plan_has_refusals(const struct pmemram_plan *plan);
/* Whether a decision in the plan depends on who uses a device (an action that takes a dax device
 * from device_dax or converts a namespace): then plan again with the users scanned. */
bool pmemram_plan_needs_users(const struct pmemram_plan *plan);

/* First and one-past-last block of [start, start + size) after alignment; -ERANGE when none fits. */
int pmemram_block_range(uint64_t start, uint64_t size, uint64_t block_size, unsigned long *ret_first,
			unsigned long *ret_end);

const char *pmemram_action_type_to_string(enum pmemram_action_type t);
const char *pmemram_verdict_to_string(enum pmemram_verdict v);
const char *pmemram_reason_to_string(enum pmemram_reason r);
const char *pmemram_ns_mode_to_string(enum pmemram_ns_mode m);
/* One line: "dax0.0: online memory37 as movable". */
char *pmemram_action_describe(const struct pmemram_action *a, char *buf, size_t size);

/* Human output: numbered actions (runs of blocks folded), then one line per device. */
int pmemram_plan_print(const struct pmemram_plan *plan, FILE *f);
/* JSON object {"actions": [...], "devices": [...], "unmatched_claims": [...]}; needs json-c. */
struct json_object;
int pmemram_plan_to_json(const struct pmemram_plan *plan, struct json_object **ret);
/* The daxctl.conf.d sections of c as a JSON array of {"origin": "FILE:LINE", "section", "uuid",
 * "state": "claimed"|"redundant"|"conflict"|"merged"|"skipped", "claim", "text"}; NULL without memory. */
struct json_object *pmemram_daxctl_to_json(const struct pmemram_config *c);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_plan, pmemram_plan_free)
