/* Builds fake sysfs trees (nodes, memory blocks, HMAT caches, tiers, dax, shuffle) for unit tests. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake-sysfs.h"
#include "pmemram.h"

static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);

	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

static int full_path(const char *root, const char *path, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", root, path);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return mkdir_parents(buf);
}

int fake_sysfs_new(char **ret_root)
{
	const char *tmp = getenv("TMPDIR");
	char *root;

	if (asprintf(&root, "%s/pmemram-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return -ENOMEM;
	if (!mkdtemp(root)) {
		int r = -errno;

		free(root);
		return r;
	}
	*ret_root = root;
	return 0;
}

int fake_sysfs_write(const char *root, const char *path, const char *format, ...)
{
	char full[PATH_MAX];
	va_list args;
	FILE *f;
	int r;

	r = full_path(root, path, full, sizeof(full));
	if (r < 0)
		return r;

	f = fopen(full, "we");
	if (!f)
		return -errno;
	va_start(args, format);
	r = vfprintf(f, format, args) < 0 ? -EIO : 0;
	va_end(args);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

int fake_sysfs_symlink(const char *root, const char *path, const char *target)
{
	char full[PATH_MAX];
	int r;

	r = full_path(root, path, full, sizeof(full));
	if (r < 0)
		return r;
	return symlink(target, full) < 0 ? -errno : 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

int fake_sysfs_remove(const char *root, const char *path)
{
	char full[PATH_MAX];
	int n = snprintf(full, sizeof(full), "%s/%s", root, path);

	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	return nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

char *fake_sysfs_free(char *root)
{
	if (!root)
		return NULL;
	(void)nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
	return NULL;
}

/* ---- building blocks -------------------------------------------------------- */

#define CHECK(expr)                      \
	do {                             \
		int _r_ = (expr);        \
		if (_r_ < 0)             \
			return _r_;      \
	} while (0)

static int add_block(const char *root, unsigned id, int node, const char *state, const char *zones)
{
	char dir[64], path[96], target[64];

	snprintf(dir, sizeof(dir), "devices/system/memory/memory%u", id);

#define BLOCK_ATTR(attr, ...)                                          \
	do {                                                           \
		snprintf(path, sizeof(path), "%s/" attr, dir);         \
		CHECK(fake_sysfs_write(root, path, __VA_ARGS__));      \
	} while (0)
	BLOCK_ATTR("state", "%s\n", state);
	BLOCK_ATTR("valid_zones", "%s\n", zones);
	BLOCK_ATTR("phys_index", "%08x\n", id);
	BLOCK_ATTR("removable", "1\n");
	BLOCK_ATTR("uevent", "%s", "");
#undef BLOCK_ATTR

	if (node >= 0) {
		snprintf(path, sizeof(path), "%s/node%d", dir, node);
		snprintf(target, sizeof(target), "../../node/node%d", node);
		CHECK(fake_sysfs_symlink(root, path, target));
	}
	return 0;
}

static int add_blocks(const char *root, unsigned first, unsigned last, int node, const char *state,
		      const char *zones)
{
	for (unsigned id = first; id <= last; id++)
		CHECK(add_block(root, id, node, state, zones));
	return 0;
}

static int add_node(const char *root, int node, unsigned long mem_total_kb)
{
	char path[64];

	snprintf(path, sizeof(path), "devices/system/node/node%d/meminfo", node);
	return fake_sysfs_write(root, path,
				"Node %d MemTotal:       %8lu kB\n"
				"Node %d MemFree:        %8lu kB\n"
				"Node %d HugePages_Total:     0\n",
				node, mem_total_kb, node, mem_total_kb / 2, node);
}

static int add_access0(const char *root, int node, unsigned latency, unsigned bandwidth)
{
	static const char *const attrs[] = { "read_latency", "write_latency", "read_bandwidth",
					     "write_bandwidth" };
	char path[96];

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "devices/system/node/node%d/access0/initiators/%s", node, attrs[i]);
		CHECK(fake_sysfs_write(root, path, "%u\n", i < 2 ? latency : bandwidth));
	}
	return 0;
}

static int add_dax(const char *root, const char *name, const char *driver, int node, unsigned long long size,
		   unsigned long long resource)
{
	char path[96], target[64];

	snprintf(path, sizeof(path), "bus/dax/devices/%s/driver", name);
	snprintf(target, sizeof(target), "../../../../bus/dax/drivers/%s", driver);
	CHECK(fake_sysfs_symlink(root, path, target));
	snprintf(path, sizeof(path), "bus/dax/devices/%s/target_node", name);
	CHECK(fake_sysfs_write(root, path, "%d\n", node));
	snprintf(path, sizeof(path), "bus/dax/devices/%s/size", name);
	CHECK(fake_sysfs_write(root, path, "%llu\n", size));
	snprintf(path, sizeof(path), "bus/dax/devices/%s/align", name);
	CHECK(fake_sysfs_write(root, path, "2097152\n"));
	if (resource) {
		snprintf(path, sizeof(path), "bus/dax/devices/%s/resource", name);
		CHECK(fake_sysfs_write(root, path, "%#llx\n", resource));
	}
	return 0;
}

/* ---- whole trees ------------------------------------------------------------- */

static int populate_hmat(const char *root)
{
	CHECK(fake_sysfs_write(root, "devices/system/node/online", "0-2\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/possible", "0-2\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/has_cpu", "0\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/has_memory", "0-2\n"));
	CHECK(add_node(root, 0, 1048576));
	CHECK(add_node(root, 1, 1048576));
	CHECK(add_node(root, 2, 917504));
	CHECK(add_access0(root, 0, 10, 10240));
	CHECK(add_access0(root, 1, 30, 5120));
	CHECK(add_access0(root, 2, 100, 1024));

	CHECK(fake_sysfs_write(root, "devices/system/node/node1/memory_side_cache/uevent", "%s", ""));
	CHECK(fake_sysfs_write(root, "devices/system/node/node1/memory_side_cache/index1/size", "134217728\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/node1/memory_side_cache/index1/line_size", "64\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/node1/memory_side_cache/index1/indexing", "0\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/node1/memory_side_cache/index1/write_policy", "0\n"));

	CHECK(fake_sysfs_write(root, "devices/virtual/memory_tiering/memory_tier4/nodelist", "0-1\n"));
	CHECK(fake_sysfs_write(root, "devices/virtual/memory_tiering/memory_tier22/nodelist", "2\n"));

	CHECK(fake_sysfs_write(root, "devices/system/memory/block_size_bytes", "8000000\n"));
	CHECK(fake_sysfs_write(root, "devices/system/memory/auto_online_blocks", "offline\n"));
	CHECK(add_blocks(root, 0, 0, 0, "online", "none"));
	CHECK(add_blocks(root, 1, 3, 0, "online", "DMA32"));
	CHECK(add_blocks(root, 4, 7, 0, "online", "Normal"));
	CHECK(add_blocks(root, 8, 15, 1, "online", "Normal"));
	CHECK(add_blocks(root, 32, 38, 2, "online", "Movable"));
	CHECK(add_blocks(root, 39, 39, 2, "offline", "Movable Normal"));
	CHECK(add_blocks(root, 40, 40, 2, "going-offline", "Movable"));

	CHECK(fake_sysfs_write(root, "kernel/mm/shuffle/enabled", "1\n"));
	CHECK(fake_sysfs_write(root, "kernel/mm/shuffle/reason", "hmat\n"));
	CHECK(fake_sysfs_write(root, "kernel/mm/shuffle/order", "10\n"));
	CHECK(fake_sysfs_write(root, "module/page_alloc/parameters/shuffle", "N\n"));

	/* 1006 MiB of pmem as System RAM, plus a 256 MiB device-dax instance */
	CHECK(add_dax(root, "dax0.0", "kmem", 2, 1054867456ULL, 0x140000000ULL));
	CHECK(add_dax(root, "dax1.0", "device_dax", 2, 268435456ULL, 0));
	return 0;
}

static int populate_stock(const char *root)
{
	CHECK(fake_sysfs_write(root, "devices/system/node/online", "0\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/has_cpu", "0\n"));
	CHECK(fake_sysfs_write(root, "devices/system/node/has_memory", "0\n"));
	CHECK(add_node(root, 0, 2097152));

	CHECK(fake_sysfs_write(root, "devices/system/memory/block_size_bytes", "8000000\n"));
	CHECK(fake_sysfs_write(root, "devices/system/memory/auto_online_blocks", "online\n"));
	CHECK(add_blocks(root, 0, 3, 0, "online", "Normal"));
	CHECK(add_blocks(root, 4, 4, -1, "offline", "Normal Movable"));

	CHECK(fake_sysfs_write(root, "module/page_alloc/parameters/shuffle", "Y\n"));
	return 0;
}

int fake_sysfs_populate(const char *root, enum fake_kernel kind)
{
	switch (kind) {
	case FAKE_KERNEL_HMAT:
		return populate_hmat(root);
	case FAKE_KERNEL_STOCK:
		return populate_stock(root);
	}
	return -EINVAL;
}

/* ---- cmocka fixtures ----------------------------------------------------------- */

static int env_setup(void **state, enum fake_kernel kind)
{
	struct fake_env *env = calloc(1, sizeof(*env));

	if (!env)
		return -1;
	*state = env;

	if (fake_sysfs_new(&env->root) < 0 || fake_sysfs_populate(env->root, kind) < 0 ||
	    pmemram_ctx_new(&env->ctx) < 0 || pmemram_ctx_set_sysfs_root(env->ctx, env->root) < 0)
		return -1;
	return 0;
}

int fake_env_setup_hmat(void **state)
{
	return env_setup(state, FAKE_KERNEL_HMAT);
}

int fake_env_setup_stock(void **state)
{
	return env_setup(state, FAKE_KERNEL_STOCK);
}

int fake_env_teardown(void **state)
{
	struct fake_env *env = *state;

	if (env) {
		pmemram_ctx_unref(env->ctx);
		fake_sysfs_free(env->root);
		free(env);
	}
	*state = NULL;
	return 0;
}

int fake_env_break(struct fake_env *env, const char *file, const char *content)
{
	if (content)
		return fake_sysfs_write(env->root, file, "%s", content);
	return fake_sysfs_remove(env->root, file);
}

int fake_env_error_path_is(struct fake_env *env, const char *file)
{
	const char *path = pmemram_ctx_get_error_path(env->ctx);
	size_t len = strlen(env->root);

	return path && strncmp(path, env->root, len) == 0 && path[len] == '/' && strcmp(path + len + 1, file) == 0;
}

void fake_expect_failures(enum fake_kernel kind, const struct fake_failure *cases, size_t n, fake_reader reader)
{
	for (size_t i = 0; i < n; i++) {
		const struct fake_failure *c = &cases[i];
		const char *blamed = c->blamed ? c->blamed : c->file;
		void *state = NULL;
		int r;

		assert_int_equal(env_setup(&state, kind), 0);
		assert_int_equal(fake_env_break(state, c->file, c->content), 0);
		r = reader(((struct fake_env *)state)->ctx);
		if (r != c->error || !fake_env_error_path_is(state, blamed))
			fail_msg("damaging %s: got %d (%s), expected %d blaming %s", c->file, r,
				 pmemram_ctx_get_error_path(((struct fake_env *)state)->ctx), c->error, blamed);
		fake_env_teardown(&state);
	}
}
