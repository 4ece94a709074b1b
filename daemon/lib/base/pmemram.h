/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libpmemram's base and discovery: the context, and memory, NUMA, dax and shuffle state from sysfs. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- context ----------------------------------------------------------- */

struct pmemram_ctx;

/* The directory trees a context reads, each through a directory handle so tests can redirect it. */
enum pmemram_root {
	PMEMRAM_ROOT_SYSFS,  /* $PMEMRAM_SYSFS_ROOT or /sys; opened by pmemram_ctx_new() */
	PMEMRAM_ROOT_PROCFS, /* $PMEMRAM_PROCFS_ROOT or /proc; opened on first use */
	PMEMRAM_ROOT_UDEV,   /* $PMEMRAM_UDEV_ROOT or /: holds etc/udev/rules.d etc.; opened on first use */
	_PMEMRAM_ROOT_MAX,
};

typedef void (*pmemram_log_fn)(struct pmemram_ctx *ctx, int priority, const char *file, int line,
			       const char *fn, const char *format, va_list args);

/* Root from $PMEMRAM_SYSFS_ROOT (default "/sys"), log priority from $PMEMRAM_LOG. */
int pmemram_ctx_new(struct pmemram_ctx **ret_ctx);
struct pmemram_ctx *pmemram_ctx_ref(struct pmemram_ctx *ctx);
struct pmemram_ctx *pmemram_ctx_unref(struct pmemram_ctx *ctx);
/* Open root now (validating it) and use it for which from now on. */
int pmemram_ctx_set_root(struct pmemram_ctx *ctx, enum pmemram_root which, const char *root);
const char *pmemram_ctx_get_root(struct pmemram_ctx *ctx, enum pmemram_root which);
/* The root's directory fd, opened on first use; -errno (error path set) when it cannot be opened. */
int pmemram_ctx_get_root_fd(struct pmemram_ctx *ctx, enum pmemram_root which);
/* Shorthands for PMEMRAM_ROOT_SYSFS. */
int pmemram_ctx_set_sysfs_root(struct pmemram_ctx *ctx, const char *root);
const char *pmemram_ctx_get_sysfs_root(struct pmemram_ctx *ctx);
int pmemram_ctx_get_sysfs_fd(struct pmemram_ctx *ctx);
void pmemram_ctx_set_log_fn(struct pmemram_ctx *ctx, pmemram_log_fn fn);
void pmemram_ctx_set_log_priority(struct pmemram_ctx *ctx, int priority);
int pmemram_ctx_get_log_priority(struct pmemram_ctx *ctx);
/*
 * How long one memory block may take to go offline (0: no bound).  On 6.1 the kernel retries an
 * offline until the writing task gets a signal when pages cannot be migrated (extra references,
 * such as pages spliced into a pipe); the library writes "offline" from a child process that it
 * kills at this deadline, and the write then fails with -ETIMEDOUT, the block still online.
 */
#define PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC (UINT64_C(30) * 1000000)
void pmemram_ctx_set_offline_timeout(struct pmemram_ctx *ctx, uint64_t usec);
uint64_t pmemram_ctx_get_offline_timeout(struct pmemram_ctx *ctx);
void pmemram_ctx_set_userdata(struct pmemram_ctx *ctx, void *userdata);
void *pmemram_ctx_get_userdata(struct pmemram_ctx *ctx);
/* Absolute path of the file behind the last failed sysfs access, or NULL. */
const char *pmemram_ctx_get_error_path(struct pmemram_ctx *ctx);
void pmemram_ctx_clear_error(struct pmemram_ctx *ctx);

/* ---- pure parsers (no I/O; tests feed strings) --------------------------- */

#define PMEMRAM_MAX_NODES 1024 /* MAX_NUMNODES with NODES_SHIFT=10 */

struct pmemram_nodemask {
	uint64_t bits[PMEMRAM_MAX_NODES / 64];
};

enum pmemram_zone {
	PMEMRAM_ZONE_NONE, /* online block spanning several zones ("none") */
	PMEMRAM_ZONE_DMA,
	PMEMRAM_ZONE_DMA32,
	PMEMRAM_ZONE_NORMAL,
	PMEMRAM_ZONE_HIGHMEM,
	PMEMRAM_ZONE_MOVABLE,
	PMEMRAM_ZONE_DEVICE,
	_PMEMRAM_ZONE_MAX,
};

struct pmemram_zones {
	enum pmemram_zone first; /* current zone when online, default zone when offline */
	unsigned mask;		 /* 1u << zone for every listed zone */
};

struct pmemram_meminfo_line {
	int node;
	char key[32];
	uint64_t value; /* in kB when unit is "kB", otherwise a count */
	bool kb;
};

int pmemram_parse_u64(const char *s, int base, uint64_t *ret);
int pmemram_parse_int(const char *s, int *ret);
/* "134217728", "128K", "128M", "128MiB", "1G", "1GB" (K..E, always binary): bytes; -EINVAL, -ERANGE. */
int pmemram_parse_size(const char *s, uint64_t *ret);
int pmemram_parse_bool(const char *s, bool *ret);
int pmemram_parse_range_list(const char *s, struct pmemram_nodemask *ret);
int pmemram_parse_valid_zones(const char *s, struct pmemram_zones *ret);
int pmemram_parse_meminfo_line(const char *line, struct pmemram_meminfo_line *ret);
int pmemram_parse_meminfo_value(const char *text, const char *key, uint64_t *ret_bytes);
int pmemram_parse_log_priority(const char *s, int *ret);

bool pmemram_nodemask_test(const struct pmemram_nodemask *m, unsigned node);
void pmemram_nodemask_set(struct pmemram_nodemask *m, unsigned node);
unsigned pmemram_nodemask_weight(const struct pmemram_nodemask *m);
/* Next set bit at or after "from", or -1. */
int pmemram_nodemask_next(const struct pmemram_nodemask *m, unsigned from);
/* The kernel's list format, "0,2-3" ("" for an empty mask), into buf; the inverse of
 * pmemram_parse_range_list().  -ENAMETOOLONG (buf "") when it does not fit in size bytes. */
int pmemram_nodemask_format(const struct pmemram_nodemask *m, char *buf, size_t size);
#define PMEMRAM_NODEMASK_FOREACH(n, m) \
	for (int n = pmemram_nodemask_next((m), 0); n >= 0; n = pmemram_nodemask_next((m), n + 1))

/* ---- names --------------------------------------------------------------- */

enum pmemram_block_state {
	PMEMRAM_BLOCK_OFFLINE,
	PMEMRAM_BLOCK_ONLINE,
	PMEMRAM_BLOCK_GOING_OFFLINE,
	_PMEMRAM_BLOCK_STATE_MAX,
};

enum pmemram_auto_online {
	PMEMRAM_AUTO_ONLINE_OFFLINE,
	PMEMRAM_AUTO_ONLINE_ONLINE,
	PMEMRAM_AUTO_ONLINE_KERNEL,
	PMEMRAM_AUTO_ONLINE_MOVABLE,
	_PMEMRAM_AUTO_ONLINE_MAX,
};

enum pmemram_cache_indexing {
	PMEMRAM_CACHE_DIRECT_MAPPED = 0,
	PMEMRAM_CACHE_COMPLEX = 1,
	PMEMRAM_CACHE_INDEXING_OTHER = 2,
	_PMEMRAM_CACHE_INDEXING_MAX,
};

enum pmemram_cache_write_policy {
	PMEMRAM_CACHE_WRITE_BACK = 0,
	PMEMRAM_CACHE_WRITE_THROUGH = 1,
	PMEMRAM_CACHE_WRITE_OTHER = 2,
	_PMEMRAM_CACHE_WRITE_POLICY_MAX,
};

enum pmemram_dax_mode {
	PMEMRAM_DAX_UNBOUND,
	PMEMRAM_DAX_DEVDAX,
	PMEMRAM_DAX_SYSTEM_RAM,
	PMEMRAM_DAX_OTHER, /* bound to a driver we do not know */
	_PMEMRAM_DAX_MODE_MAX,
};

enum pmemram_shuffle_source {
	PMEMRAM_SHUFFLE_UNAVAILABLE, /* kernel without CONFIG_SHUFFLE_PAGE_ALLOCATOR */
	PMEMRAM_SHUFFLE_SYSFS,	     /* patched kernel: kernel/mm/shuffle/ */
	PMEMRAM_SHUFFLE_PARAMETER,   /* stock kernel: raw page_alloc.shuffle */
	_PMEMRAM_SHUFFLE_SOURCE_MAX,
};

/* to_string functions return NULL for out-of-range values; from_string return -EINVAL. */
const char *pmemram_zone_to_string(enum pmemram_zone z);
int pmemram_zone_from_string(const char *s);
const char *pmemram_block_state_to_string(enum pmemram_block_state s);
int pmemram_block_state_from_string(const char *s);
const char *pmemram_auto_online_to_string(enum pmemram_auto_online a);
int pmemram_auto_online_from_string(const char *s);
/* Whether a kernel that onlines added blocks by itself under policy lands them in zone: offline always
 * (nothing is onlined), online_movable and online_kernel in their zone, "online" never surely (its zone
 * is the online policy's choice per block). */
bool pmemram_auto_online_fits(enum pmemram_auto_online policy, enum pmemram_zone zone);
const char *pmemram_cache_indexing_to_string(enum pmemram_cache_indexing i);
const char *pmemram_cache_write_policy_to_string(enum pmemram_cache_write_policy w);
const char *pmemram_dax_mode_to_string(enum pmemram_dax_mode m);
enum pmemram_dax_mode pmemram_dax_mode_from_driver(const char *driver);
const char *pmemram_shuffle_source_to_string(enum pmemram_shuffle_source s);
/* "128 MiB", "1.5 GiB", "512 B": exact integers where possible, one decimal otherwise. */
char *pmemram_format_size(uint64_t bytes, char *buf, size_t size);

/* ---- memory blocks ------------------------------------------------------- */

#define PMEMRAM_MAX_BLOCKS (1u << 22)

struct pmemram_memblock {
	unsigned long id; /* N of memoryN */
	uint64_t phys_index;
	enum pmemram_block_state state;
	struct pmemram_zones zones;
	bool removable;
	int node; /* -1 when the block has no nodeN link */
};

struct pmemram_memory {
	uint64_t block_size;
	enum pmemram_auto_online auto_online;
	size_t n_blocks;
	struct pmemram_memblock *blocks; /* sorted by id */
};

/* Per (node, zone) counts of online blocks and per-node offline counts. */
struct pmemram_memory_node_summary {
	int node;
	size_t online[_PMEMRAM_ZONE_MAX];
	size_t online_total;
	size_t offline;
	size_t going_offline;
};

struct pmemram_memory_summary {
	size_t n_nodes;
	struct pmemram_memory_node_summary *nodes; /* sorted by node, -1 first */
};

int pmemram_memory_read(struct pmemram_ctx *ctx, struct pmemram_memory **ret);
/* The same with the blocks in the spans [first, end) alone; spans NULL: every block. */
struct pmemram_block_span {
	unsigned long first, end;
};
int pmemram_memory_read_spans(struct pmemram_ctx *ctx, const struct pmemram_block_span *spans, size_t n_spans,
			      struct pmemram_memory **ret);
/* The same with memoryN alone (no blocks when it does not exist). */
int pmemram_memory_read_block(struct pmemram_ctx *ctx, unsigned long block, struct pmemram_memory **ret);
/* The sequence number of the last uevent the kernel sent (kernel/uevent_seqnum); a uevent's
 * SEQNUM says when it was sent against it. */
int pmemram_uevent_seqnum_read(struct pmemram_ctx *ctx, uint64_t *ret);
struct pmemram_memory *pmemram_memory_free(struct pmemram_memory *m);
int pmemram_memory_summarize(const struct pmemram_memory *m, struct pmemram_memory_summary **ret);
struct pmemram_memory_summary *pmemram_memory_summary_free(struct pmemram_memory_summary *s);

/* ---- NUMA nodes ---------------------------------------------------------- */

#define PMEMRAM_MAX_CACHE_LEVELS 8

struct pmemram_cache {
	unsigned level; /* L of indexL */
	uint64_t size;
	uint64_t line_size;
	enum pmemram_cache_indexing indexing;
	enum pmemram_cache_write_policy write_policy;
};

struct pmemram_access {
	bool present;
	uint64_t read_latency;	 /* ns */
	uint64_t write_latency;	 /* ns */
	uint64_t read_bandwidth; /* MB/s */
	uint64_t write_bandwidth;
};

struct pmemram_node {
	int id;
	bool has_cpu;
	bool has_memory;
	uint64_t mem_total; /* bytes */
	int tier;	    /* memory_tierN, -1 when not in any tier */
	size_t n_caches;
	struct pmemram_cache caches[PMEMRAM_MAX_CACHE_LEVELS];
	struct pmemram_access access0;
};

struct pmemram_topology {
	struct pmemram_nodemask online;
	struct pmemram_nodemask has_cpu;
	struct pmemram_nodemask has_memory;
	size_t n_nodes;
	struct pmemram_node *nodes; /* one per online node, sorted by id */
};

int pmemram_topology_read(struct pmemram_ctx *ctx, struct pmemram_topology **ret);

/* The memory-tiering counters of nodeN/vmstat: pgpromote_* and pgdemote_* (pages promoted to and
 * demoted from the node), as many as the kernel has, in its order. */
#define PMEMRAM_VMSTAT_MAX 16
#define PMEMRAM_VMSTAT_NAME_MAX 32

struct pmemram_vmstat_counter {
	char name[PMEMRAM_VMSTAT_NAME_MAX]; /* "pgpromote_success": lower case, digits and '_' */
	uint64_t value;
};

/* One "NAME VALUE" line of a vmstat file: 1 and *ret for a pgpromote_ or pgdemote_ counter, 0 for
 * any other line, -EINVAL for a tiering counter that does not parse.  Pure. */
int pmemram_parse_vmstat_line(const char *line, struct pmemram_vmstat_counter *ret);
/* Those counters of node (up to max of them, in ret): their number, 0 when the kernel has none
 * (before 5.18, or a node without the file), -errno when the file cannot be read. */
int pmemram_node_vmstat_read(struct pmemram_ctx *ctx, int node, struct pmemram_vmstat_counter *ret, size_t max);
/* The same of the whole system, /proc/vmstat below the procfs root.  6.1 counts pgdemote_* only
 * there (later kernels per node too), and pgpromote_* per node and there with NUMA balancing. */
int pmemram_vmstat_read(struct pmemram_ctx *ctx, struct pmemram_vmstat_counter *ret, size_t max);
struct pmemram_topology *pmemram_topology_free(struct pmemram_topology *t);
const struct pmemram_node *pmemram_topology_find_node(const struct pmemram_topology *t, int id);
/* The nodes with a direct-mapped memory-side cache (HMAT) in front of their memory; t may be NULL. */
void pmemram_topology_direct_mapped_nodes(const struct pmemram_topology *t, struct pmemram_nodemask *ret);

/* ---- page allocator shuffling -------------------------------------------- */

#define PMEMRAM_SHUFFLE_REASON_MAX 32

/* One node's nodeN/shuffle/: whether its free lists are shuffled, and why (set by the kernel). */
struct pmemram_shuffle_node {
	int node;
	bool enabled;
	char reason[PMEMRAM_SHUFFLE_REASON_MAX]; /* "hmat", "sysfs", "forced-off", ... */
};

struct pmemram_shuffle {
	enum pmemram_shuffle_source source;
	bool enabled;
	char reason[PMEMRAM_SHUFFLE_REASON_MAX]; /* "hmat", "cmdline", ... or "parameter" on stock kernels */
	int order;				 /* -1 when the kernel does not say */
	/* The kernel switches shuffling per node at runtime (nodeN/shuffle/enabled exists): then
	 * nodes holds every online node, sorted; else n_nodes is 0. */
	bool per_node;
	size_t n_nodes;
	struct pmemram_shuffle_node nodes[PMEMRAM_MAX_NODES];
};

int pmemram_shuffle_read(struct pmemram_ctx *ctx, struct pmemram_shuffle *ret);
/* The node's entry in s->nodes, NULL when it has none. */
const struct pmemram_shuffle_node *pmemram_shuffle_find_node(const struct pmemram_shuffle *s, int node);
/* Switch a node's shuffling at runtime (nodeN/shuffle/enabled); -EPERM when the running kernel was
 * booted with page_alloc.shuffle=0. */
int pmemram_shuffle_node_write(struct pmemram_ctx *ctx, int node, bool enable);

/* ---- dax devices ---------------------------------------------------------- */

#define PMEMRAM_MAX_DAX_DEVICES 4096

/* Where a dax device's memory comes from, as its place in the device tree says. */
enum pmemram_dax_source {
	PMEMRAM_DAX_SOURCE_UNKNOWN,
	PMEMRAM_DAX_SOURCE_NVDIMM, /* a namespace of an NVDIMM region (ndbusN/regionN) */
	PMEMRAM_DAX_SOURCE_HMEM,   /* soft-reserved memory: dax_hmem's platform device hmem.N */
	PMEMRAM_DAX_SOURCE_CXL,	   /* a CXL region, or an NVDIMM region on a CXL nvdimm-bridge */
	_PMEMRAM_DAX_SOURCE_MAX,
};

/* "unknown", "nvdimm", "hmem", "cxl". */
const char *pmemram_dax_source_to_string(enum pmemram_dax_source s);

/* One physical range of a dax device: its mappingN (start and end inclusive, page_offset where it
 * lies in the device). */
struct pmemram_dax_range {
	uint64_t start, end, page_offset;
};
#define PMEMRAM_DAX_RANGES_MAX 8

struct pmemram_dax {
	char name[32];	 /* daxX.Y */
	enum pmemram_dax_source source;
	char provider[32]; /* the device that provides it: "region0" (nvdimm, cxl), "hmem.0"; "" unknown */
	char driver[32]; /* "" when unbound */
	enum pmemram_dax_mode mode;
	int target_node; /* -1 when the kernel reports none */
	uint64_t size;
	uint64_t align; /* 0 when not reported */
	bool has_resource;
	uint64_t resource; /* the start of its first range */
	/* Its ranges in device order (page_offset), from mappingN (root only, Linux 5.10+); 0 when
	 * unknown: then resource and size stand for one range.  Past PMEMRAM_DAX_RANGES_MAX only
	 * counted. */
	size_t n_ranges;
	struct pmemram_dax_range ranges[PMEMRAM_DAX_RANGES_MAX];
};

/* The device's last physical byte, resource + size - 1, as /proc/iomem and hmem: claims write a
 * range's end: false when its address is unknown (not root), its size 0, or the end past 2^64. */
bool pmemram_dax_last_byte(const struct pmemram_dax *d, uint64_t *ret);
/* Whether the device's memory is one contiguous physical range: its ranges known to follow each
 * other without a gap, or unknown (one range as far as anyone can tell).  With block_size > 0, every
 * join must also fall on a memory-block boundary: kmem adds each range's whole blocks on its own,
 * so only then are its blocks those of resource and size. */
bool pmemram_dax_contiguous(const struct pmemram_dax *d, uint64_t block_size);
/* Whether the device lies inside [start, end]: every range when known, else resource and size;
 * false when its address is unknown or it has more ranges than are kept. */
bool pmemram_dax_inside(const struct pmemram_dax *d, uint64_t start, uint64_t end);
/* "0x100000000-0x10fffffff, 0x120000000-0x12fffffff": its ranges as /proc/iomem prints them, cut
 * to fit size (", ..." when not all are kept). */
const char *pmemram_dax_ranges_format(const struct pmemram_dax *d, char *buf, size_t size);

struct pmemram_dax_list {
	size_t n_devices;
	struct pmemram_dax *devices; /* sorted by name (version order) */
};

int pmemram_dax_list_read(struct pmemram_ctx *ctx, struct pmemram_dax_list **ret);
/* Whether the running kernel hands soft-reserved (hmem) and CXL RAM dax devices to kmem as it
 * finds them, onlining their blocks under its own policy: Linux 6.3 and later, by the release in
 * the procfs root's sys/kernel/osrelease.  false when that cannot be read or parsed. */
bool pmemram_kernel_binds_ram_at_probe(struct pmemram_ctx *ctx);
/* The same of a release string, "6.12.118+deb13-amd64"; false when it is not one. */
bool pmemram_release_binds_ram_at_probe(const char *release);
/* "daxR.I" with decimal R and I (no sign, no blanks, up to 9 digits each), shorter than
 * PMEMRAM_DAX_NAME_MAX: the only names requests and commands accept for a dax device. */
#define PMEMRAM_DAX_NAME_MAX 32
bool pmemram_dax_name_is_valid(const char *name);
/* Bytes of the well-formed UTF-8 character at s (1 to 4; a NUL is 0), or 0 when s does not start
 * one (a stray continuation byte, an overlong form, a surrogate, a cut sequence). */
size_t pmemram_utf8_char_len(const char *s);
/* Whether s is well-formed UTF-8 without control characters: safe in a terminal, a unit file, JSON. */
bool pmemram_name_is_printable(const char *s);
/* s for a message: control characters and bytes that are not UTF-8 as \xNN, cut to fit size. */
const char *pmemram_name_escape(const char *s, char *buf, size_t size);
/* "memoryN" with decimal N (no sign, no blanks): 0 and *ret, or -EINVAL. */
int pmemram_parse_block_name(const char *name, unsigned long *ret);
struct pmemram_dax_list *pmemram_dax_list_free(struct pmemram_dax_list *l);

/* ---- _cleanup_ helpers: pmemram_ctx_unrefp(), pmemram_memory_freep(), ... ---- */

#define _PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(type, func) \
	static inline void func##p(type **p)             \
	{                                                \
		if (*p)                                  \
			*p = func(*p);                   \
	}

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_ctx, pmemram_ctx_unref)
_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_memory, pmemram_memory_free)
_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_memory_summary, pmemram_memory_summary_free)
_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_topology, pmemram_topology_free)
_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_dax_list, pmemram_dax_list_free)
