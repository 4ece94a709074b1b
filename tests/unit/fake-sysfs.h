/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fake sysfs trees under mkdtemp() for the discovery tests. */
#pragma once

#include <stddef.h>

enum fake_kernel {
	/* Patched 6.1 in the QEMU topology of the brief: node 0 cpu+DRAM, node 1 memory-only
	 * behind a 128 MiB direct-mapped cache, node 2 pmem via dax/kmem; kernel/mm/shuffle. */
	FAKE_KERNEL_HMAT,
	/* Stock kernel, one node: raw page_alloc.shuffle only, no tiers, caches or dax bus. */
	FAKE_KERNEL_STOCK,
	/* FAKE_KERNEL_HMAT with the runtime switch per node: nodeN/shuffle/{enabled,reason}, node 1
	 * shuffled (hmat), nodes 0 and 2 not (default-off); the summary says nodes "1". */
	FAKE_KERNEL_LIVE,
};

/* Namespace UUIDs of the HMAT tree's NVDIMM regions 0..3. */
#define FAKE_UUID_KMEM "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f"
#define FAKE_UUID_DEVDAX "11111111-2222-3333-4444-555555555555"
#define FAKE_UUID_FSDAX "22222222-3333-4444-5555-666666666666"
#define FAKE_UUID_RAW "33333333-4444-5555-6666-777777777777"
#define FAKE_UUID_DEVDAX_INFO "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee" /* dax1.0's info block */
#define FAKE_UUID_FSDAX_INFO "bbbbbbbb-cccc-4ddd-8eee-ffffffffffff"  /* pfn2.1's info block */
/* The onlining rule in the fake udev tree, and the pid mapping /dev/dax1.0 in the fake procfs. */
#define FAKE_UDEV_RULE "/usr/lib/udev/rules.d/40-vendor.rules:8"
#define FAKE_DAX_USER "pid 4242 (qemu-system-x86)"

/* New empty tree under $TMPDIR (or /tmp); returns its malloc'd path. */
int fake_sysfs_new(char **ret_root);
/* Populate a tree for one kernel flavour. */
int fake_sysfs_populate(const char *root, enum fake_kernel kind);
/* A procfs: cmdline "root=/dev/vda rw console=ttyS0", pid 1 (systemd), pid 4242 mapping /dev/dax1.0, a pid that exited, and
 * self/mountinfo with pmem2 (259:0) mounted on /mnt/pmem. */
int fake_procfs_populate(const char *root);
/* A udev root: etc/udev/rules.d/60-pmemram.rules (ours), usr/lib/udev/rules.d/40-vendor.rules onlining
 * memory as online_movable at FAKE_UDEV_RULE, hiding a lib/udev/rules.d/40-vendor.rules that says "online". */
int fake_udev_populate(const char *root);
/* Write root/path (parents created) with printf-formatted content. */
int fake_sysfs_write(const char *root, const char *path, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* Create root/path as a symlink to target (parents created). */
int fake_sysfs_symlink(const char *root, const char *path, const char *target);
/* A soft-reserved dax device: devices/platform/hmem.ID/NAME bound to driver, linked from bus/dax. */
int fake_sysfs_add_hmem(const char *root, int id, const char *name, const char *driver, int node,
			unsigned long long size, unsigned long long resource);
/* mappingID of a dax device (bus/dax/devices/NAME/mappingID): start, end (inclusive) and page_offset. */
int fake_sysfs_add_dax_mapping(const char *root, const char *name, int id, unsigned long long start,
			       unsigned long long end, unsigned long long page_offset);
/* Remove root/path, recursively for directories. */
int fake_sysfs_remove(const char *root, const char *path);
/* A new memory block as hotplug leaves it: its attributes and, unless node < 0, its node link. */
int fake_sysfs_add_block(const char *root, unsigned long block, int node, const char *state, const char *zones);
/* A memory block's state and valid_zones, as the kernel shows them. */
int fake_sysfs_set_block(const char *root, unsigned long block, const char *state, const char *zones);
/* Content of root/path without trailing newlines, in a static buffer ("<absent>" when missing). */
const char *fake_sysfs_read(const char *root, const char *path);
/* memoryN/attr read as fake_sysfs_read() does. */
const char *fake_sysfs_block_attr(const char *root, unsigned long block, const char *attr);
/* The driver a dax device's driver link names, in a static buffer ("" when unbound). */
const char *fake_sysfs_dax_driver(const char *root, const char *device);
/* Point a dax device's driver link at driver, or only remove it (NULL): the removal's result then. */
int fake_sysfs_set_dax_driver(const char *root, const char *device, const char *driver);
/* Remove the whole tree and free the path; returns NULL. */
char *fake_sysfs_free(char *root);

/* cmocka fixtures: *state becomes a struct fake_env with populated trees and a context on them. */
struct pmemram_ctx;
struct fake_env {
	char *root; /* sysfs */
	char *proc;
	char *udev;
	struct pmemram_ctx *ctx;
};

int fake_env_setup_hmat(void **state);
int fake_env_setup_stock(void **state);
int fake_env_setup_live(void **state);
int fake_env_teardown(void **state);
/* Damage the tree: overwrite file with content, or remove it when content is NULL. */
int fake_env_break(struct fake_env *env, const char *file, const char *content);
/* Whether the context blames root/file for its last failure. */
int fake_env_error_path_is(struct fake_env *env, const char *file);

/* One way to damage a tree, and how discovery must fail on it. */
struct fake_failure {
	const char *file;    /* relative to the root */
	const char *content; /* new content; NULL removes the file */
	int error;	     /* negative errno the reader must return */
	const char *blamed;  /* path the context must blame; NULL means file */
};

/* Reads something from ctx, checks outputs stay untouched on failure, frees; returns the error. */
typedef int (*fake_reader)(struct pmemram_ctx *ctx);

/* For each case: fresh tree of the given kind, damage it, run reader, check error and blame. */
void fake_expect_failures(enum fake_kernel kind, const struct fake_failure *cases, size_t n, fake_reader reader);
