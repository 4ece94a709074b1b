/* Fake sysfs trees under mkdtemp() for the discovery tests. */
#pragma once

#include <stddef.h>

enum fake_kernel {
	/* Patched 6.1 in the QEMU topology of the brief: node 0 cpu+DRAM, node 1 memory-only
	 * behind a 128 MiB direct-mapped cache, node 2 pmem via dax/kmem; kernel/mm/shuffle. */
	FAKE_KERNEL_HMAT,
	/* Stock kernel, one node: raw page_alloc.shuffle only, no tiers, caches or dax bus. */
	FAKE_KERNEL_STOCK,
};

/* New empty tree under $TMPDIR (or /tmp); returns its malloc'd path. */
int fake_sysfs_new(char **ret_root);
/* Populate a tree for one kernel flavour. */
int fake_sysfs_populate(const char *root, enum fake_kernel kind);
/* Write root/path (parents created) with printf-formatted content. */
int fake_sysfs_write(const char *root, const char *path, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
/* Create root/path as a symlink to target (parents created). */
int fake_sysfs_symlink(const char *root, const char *path, const char *target);
/* Remove root/path, recursively for directories. */
int fake_sysfs_remove(const char *root, const char *path);
/* Remove the whole tree and free the path; returns NULL. */
char *fake_sysfs_free(char *root);

/* cmocka fixtures: *state becomes a struct fake_env with a populated tree and a context on it. */
struct pmemram_ctx;
struct fake_env {
	char *root;
	struct pmemram_ctx *ctx;
};

int fake_env_setup_hmat(void **state);
int fake_env_setup_stock(void **state);
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
