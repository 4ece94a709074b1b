/* SPDX-License-Identifier: GPL-2.0-or-later */
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

int fake_sysfs_set_block(const char *root, unsigned long block, const char *state, const char *zones)
{
	char path[96];
	int r;

	snprintf(path, sizeof(path), "devices/system/memory/memory%lu/state", block);
	r = fake_sysfs_write(root, path, "%s\n", state);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "devices/system/memory/memory%lu/valid_zones", block);
	return fake_sysfs_write(root, path, "%s\n", zones);
}

const char *fake_sysfs_read(const char *root, const char *path)
{
	static char buf[128];
	char full[PATH_MAX];
	FILE *file;
	size_t n;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	file = fopen(full, "re");
	if (!file)
		return "<absent>";
	n = fread(buf, 1, sizeof(buf) - 1, file);
	fclose(file);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return buf;
}

const char *fake_sysfs_block_attr(const char *root, unsigned long block, const char *attr)
{
	char path[96];

	snprintf(path, sizeof(path), "devices/system/memory/memory%lu/%s", block, attr);
	return fake_sysfs_read(root, path);
}

const char *fake_sysfs_dax_driver(const char *root, const char *device)
{
	static char target[PATH_MAX];
	char full[PATH_MAX];
	ssize_t n;

	snprintf(full, sizeof(full), "%s/bus/dax/devices/%s/driver", root, device);
	n = readlink(full, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = '\0';
	return strrchr(target, '/') + 1;
}

int fake_sysfs_set_dax_driver(const char *root, const char *device, const char *driver)
{
	char path[96], target[96];
	int r;

	snprintf(path, sizeof(path), "bus/dax/devices/%s/driver", device);
	r = fake_sysfs_remove(root, path);
	if (!driver)
		return r;
	snprintf(target, sizeof(target), "../../../../bus/dax/drivers/%s", driver);
	return fake_sysfs_symlink(root, path, target);
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

int fake_sysfs_add_block(const char *root, unsigned long block, int node, const char *state, const char *zones)
{
	return add_block(root, (unsigned)block, node, state, zones);
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

/* ---- NVDIMM bus: regions, namespaces, nd_dax/pfn claim devices, dax devices, disks ---- */

#define NDBUS "devices/platform/ACPI0012:00/ndbus0"

/* bus/nd/devices/NAME -> ../../../NDBUS/regionR/NAME (or the region itself). */
static int add_nd_link(const char *root, int region, const char *name)
{
	char path[96], target[160];

	snprintf(path, sizeof(path), "bus/nd/devices/%s", name);
	if (strncmp(name, "region", 6) == 0)
		snprintf(target, sizeof(target), "../../../" NDBUS "/%s", name);
	else
		snprintf(target, sizeof(target), "../../../" NDBUS "/region%d/%s", region, name);
	return fake_sysfs_symlink(root, path, target);
}

static int add_region(const char *root, int region)
{
	char path[96], name[32];

	snprintf(name, sizeof(name), "region%d", region);
	snprintf(path, sizeof(path), NDBUS "/%s/size", name);
	CHECK(fake_sysfs_write(root, path, "1073741824\n"));
	return add_nd_link(root, region, name);
}

/* namespaceR.I with mode ("raw", "safe", "memory", "dax"), size, uuid ("" for none), holder. */
static int add_namespace(const char *root, int region, int id, const char *mode, unsigned long long size,
			 const char *uuid, const char *holder)
{
	char name[32], path[128];

	snprintf(name, sizeof(name), "namespace%d.%d", region, id);
#define NS_ATTR(attr, ...)                                                                  \
	do {                                                                                \
		snprintf(path, sizeof(path), NDBUS "/region%d/%s/" attr, region, name);     \
		CHECK(fake_sysfs_write(root, path, __VA_ARGS__));                           \
	} while (0)
	NS_ATTR("mode", "%s\n", mode);
	NS_ATTR("size", "%llu\n", size);
	NS_ATTR("uuid", "%s\n", uuid);
	NS_ATTR("holder", "%s\n", holder);
#undef NS_ATTR
	return add_nd_link(root, region, name);
}

/* The disk of a namespace, below its claiming device (or the namespace when raw), and /sys/dev/block. */
static int add_disk(const char *root, int region, const char *parent, const char *disk, const char *devt)
{
	char path[160], target[160];

	snprintf(path, sizeof(path), NDBUS "/region%d/%s/block/%s/dev", region, parent, disk);
	CHECK(fake_sysfs_write(root, path, "%s\n", devt));
	snprintf(path, sizeof(path), "dev/block/%s", devt);
	snprintf(target, sizeof(target), "../../" NDBUS "/region%d/%s/block/%s", region, parent, disk);
	return fake_sysfs_symlink(root, path, target);
}

/* A dax device's attributes in dir (up is the "../" back to the root from dir/driver), bound to
 * driver, and its bus/dax/devices link; resource 0 leaves it out (unreadable, as for non-root). */
static int add_dax_device(const char *root, const char *dir, const char *up, const char *name, const char *driver,
			  int node, unsigned long long size, unsigned long long resource)
{
	char path[160], target[160];

	snprintf(path, sizeof(path), "%s/driver", dir);
	snprintf(target, sizeof(target), "%sbus/dax/drivers/%s", up, driver);
	CHECK(fake_sysfs_symlink(root, path, target));
	snprintf(path, sizeof(path), "%s/target_node", dir);
	CHECK(fake_sysfs_write(root, path, "%d\n", node));
	snprintf(path, sizeof(path), "%s/size", dir);
	CHECK(fake_sysfs_write(root, path, "%llu\n", size));
	snprintf(path, sizeof(path), "%s/align", dir);
	CHECK(fake_sysfs_write(root, path, "2097152\n"));
	if (resource) {
		snprintf(path, sizeof(path), "%s/resource", dir);
		CHECK(fake_sysfs_write(root, path, "%#llx\n", resource));
	}

	snprintf(path, sizeof(path), "bus/dax/devices/%s", name);
	snprintf(target, sizeof(target), "../../../%s", dir);
	return fake_sysfs_symlink(root, path, target);
}

/* A dax device inside nd_dax device claim (regionR/daxR.S) for namespace ns, linked from bus/dax. */
static int add_dax(const char *root, int region, const char *claim, const char *ns, const char *name,
		   const char *driver, int node, unsigned long long size, unsigned long long resource)
{
	char dir[128], path[160];

	snprintf(path, sizeof(path), NDBUS "/region%d/%s/namespace", region, claim);
	CHECK(fake_sysfs_write(root, path, "%s\n", ns));
	snprintf(path, sizeof(path), NDBUS "/region%d/%s/driver", region, claim);
	CHECK(fake_sysfs_symlink(root, path, "../../../../../bus/nd/drivers/nd_pmem"));
	CHECK(add_nd_link(root, region, claim));

	snprintf(dir, sizeof(dir), NDBUS "/region%d/%s/%s", region, claim, name);
	return add_dax_device(root, dir, "../../../../../../../", name, driver, node, size, resource);
}

int fake_sysfs_add_hmem(const char *root, int id, const char *name, const char *driver, int node,
			unsigned long long size, unsigned long long resource)
{
	char dir[96];

	snprintf(dir, sizeof(dir), "devices/platform/hmem.%d/%s", id, name);
	return add_dax_device(root, dir, "../../../../", name, driver, node, size, resource);
}

int fake_sysfs_add_dax_mapping(const char *root, const char *name, int id, unsigned long long start,
			       unsigned long long end, unsigned long long page_offset)
{
	char path[128];

	snprintf(path, sizeof(path), "bus/dax/devices/%s/mapping%d/start", name, id);
	CHECK(fake_sysfs_write(root, path, "%#llx\n", start));
	snprintf(path, sizeof(path), "bus/dax/devices/%s/mapping%d/end", name, id);
	CHECK(fake_sysfs_write(root, path, "%#llx\n", end));
	snprintf(path, sizeof(path), "bus/dax/devices/%s/mapping%d/page_offset", name, id);
	return fake_sysfs_write(root, path, "%#llx\n", page_offset);
}

static int populate_nvdimm(const char *root)
{
	/* region0: the brief's devdax namespace, 1006 MiB as System RAM; an idle seed beside it */
	CHECK(add_region(root, 0));
	CHECK(add_namespace(root, 0, 0, "dax", 1073741824ULL, FAKE_UUID_KMEM, "dax0.1"));
	CHECK(add_namespace(root, 0, 1, "raw", 0, "", ""));
	CHECK(add_dax(root, 0, "dax0.1", "namespace0.0", "dax0.0", "kmem", 2, 1054867456ULL, 0x140000000ULL));
	/* region1: a 256 MiB device-dax instance */
	CHECK(add_region(root, 1));
	CHECK(add_namespace(root, 1, 0, "dax", 268435456ULL, FAKE_UUID_DEVDAX, "dax1.1"));
	CHECK(add_dax(root, 1, "dax1.1", "namespace1.0", "dax1.0", "device_dax", 2, 268435456ULL, 0));
	CHECK(fake_sysfs_write(root, NDBUS "/region1/dax1.1/uuid", "%s\n", FAKE_UUID_DEVDAX_INFO));
	/* region2: fsdax through pfn2.1, disk pmem2 (mounted in the fake procfs) */
	CHECK(add_region(root, 2));
	CHECK(add_namespace(root, 2, 0, "memory", 536870912ULL, FAKE_UUID_FSDAX, "pfn2.1"));
	CHECK(add_nd_link(root, 2, "pfn2.1"));
	CHECK(fake_sysfs_write(root, NDBUS "/region2/pfn2.1/uuid", "%s\n", FAKE_UUID_FSDAX_INFO));
	CHECK(add_disk(root, 2, "pfn2.1", "pmem2", "259:0"));
	/* region3: a raw namespace, disk pmem3 right below it, not mounted */
	CHECK(add_region(root, 3));
	CHECK(add_namespace(root, 3, 0, "raw", 536870912ULL, FAKE_UUID_RAW, ""));
	CHECK(add_disk(root, 3, "namespace3.0", "pmem3", "259:1"));
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

	/* 1006 MiB of pmem as System RAM, a 256 MiB device-dax instance, fsdax and raw namespaces */
	return populate_nvdimm(root);
}

static int populate_live(const char *root)
{
	CHECK(populate_hmat(root));
	CHECK(fake_sysfs_write(root, "kernel/mm/shuffle/nodes", "1\n"));
	for (int n = 0; n <= 2; n++) {
		char path[64];

		snprintf(path, sizeof(path), "devices/system/node/node%d/shuffle/enabled", n);
		CHECK(fake_sysfs_write(root, path, "%s", n == 1 ? "1\n" : "0\n"));
		snprintf(path, sizeof(path), "devices/system/node/node%d/shuffle/reason", n);
		CHECK(fake_sysfs_write(root, path, "%s", n == 1 ? "hmat\n" : "default-off\n"));
	}
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
	case FAKE_KERNEL_LIVE:
		return populate_live(root);
	}
	return -EINVAL;
}

int fake_procfs_populate(const char *root)
{
	CHECK(fake_sysfs_write(root, "self/mountinfo",
			       "21 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
			       "22 21 0:5 / /dev rw,nosuid shared:2 - devtmpfs devtmpfs rw,size=1000k\n"
			       "23 21 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
			       "40 21 259:0 / /mnt/pmem rw,relatime shared:30 - ext4 /dev/pmem2 rw,dax=always\n"));
	CHECK(fake_sysfs_write(root, "cmdline", "root=/dev/vda rw console=ttyS0\n"));
	CHECK(fake_sysfs_write(root, "1/comm", "systemd\n"));
	CHECK(fake_sysfs_symlink(root, "1/exe", "/usr/lib/systemd/systemd"));
	/* A kernel thread: no exe link, no memory map, no files.  Its maps name dax7.0 here only so
	 * that a scan reading them would show: the scan must tell it by its exe link alone. */
	CHECK(fake_sysfs_write(root, "2/comm", "kthreadd\n"));
	CHECK(fake_sysfs_write(root, "2/maps",
			       "7f0000000000-7f0010000000 rw-s 00000000 00:05 322          /dev/dax7.0\n"));
	CHECK(fake_sysfs_write(root, "1/maps",
			       "55d4c0a00000-55d4c0a2a000 r--p 00000000 fe:00 1311         /usr/lib/systemd/systemd\n"
			       "7ffd5a4c6000-7ffd5a4e7000 rw-p 00000000 00:00 0            [stack]\n"
			       "7f3e1c000000-7f3e1c021000 rw-p 00000000 00:00 0 \n"));
	CHECK(fake_sysfs_write(root, "4242/comm", "qemu-system-x86\n"));
	CHECK(fake_sysfs_symlink(root, "4242/exe", "/usr/bin/qemu-system-x86_64"));
	CHECK(fake_sysfs_write(root, "4242/maps",
			       "55d4c0a00000-55d4c0a2a000 r-xp 00000000 fe:00 2400         /usr/bin/qemu-system-x86_64\n"
			       "7f0000000000-7f0010000000 rw-s 00000000 00:05 321          /dev/dax1.0\n"
			       "7f0010000000-7f0010200000 rw-s 00000000 00:05 321          /dev/dax1.0\n"));
	/* Holds /dev/dax7.0 open without mapping it (programs open first and map later). */
	CHECK(fake_sysfs_write(root, "5151/comm", "holder\n"));
	CHECK(fake_sysfs_symlink(root, "5151/exe", "/usr/bin/holder (deleted)"));
	CHECK(fake_sysfs_write(root, "5151/maps",
			       "55d4c0a00000-55d4c0a2a000 r-xp 00000000 fe:00 2401         /usr/bin/holder\n"));
	CHECK(fake_sysfs_symlink(root, "5151/fd/0", "/dev/null"));
	CHECK(fake_sysfs_symlink(root, "5151/fd/3", "socket:[4711]"));
	CHECK(fake_sysfs_symlink(root, "5151/fd/4", "/dev/dax7.01"));
	CHECK(fake_sysfs_symlink(root, "5151/fd/5", "/dev/dax7.0"));
	/* Exited between readdir and open: no maps any more. */
	CHECK(fake_sysfs_write(root, "4243/comm", "gone\n"));
	CHECK(fake_sysfs_remove(root, "4243/comm"));
	return 0;
}

int fake_udev_populate(const char *root)
{
	CHECK(fake_sysfs_write(root, "etc/udev/rules.d/" "60-pmemram.rules",
			       "SUBSYSTEM==\"memory\", ACTION==\"add\", ATTR{state}=\"online_kernel\"\n"));
	CHECK(fake_sysfs_write(root, "usr/lib/udev/rules.d/10-cpu.rules",
			       "SUBSYSTEM==\"cpu\", ACTION==\"add\", ATTR{online}=\"1\"\n"));
	CHECK(fake_sysfs_write(root, "usr/lib/udev/rules.d/40-vendor.rules",
			       "# Memory hotadd request\n"
			       "SUBSYSTEM!=\"memory\", GOTO=\"memory_hotplug_end\"\n"
			       "ACTION!=\"add\", \\\n"
			       "  GOTO=\"memory_hotplug_end\"\n"
			       "\n"
			       "ENV{.state}=\"online\"\n"
			       "\n"
			       "ATTR{state}==\"offline\", ATTR{state}=\"online_movable\"\n"
			       "LABEL=\"memory_hotplug_end\"\n"));
	CHECK(fake_sysfs_write(root, "lib/udev/rules.d/40-vendor.rules",
			       "SUBSYSTEM==\"memory\", ATTR{state}=\"online\"\n"));
	return 0;
}

/* ---- cmocka fixtures ----------------------------------------------------------- */

static int env_setup(void **state, enum fake_kernel kind)
{
	struct fake_env *env = calloc(1, sizeof(*env));

	if (!env)
		return -1;
	*state = env;

	if (fake_sysfs_new(&env->root) < 0 || fake_sysfs_populate(env->root, kind) < 0 ||
	    fake_sysfs_new(&env->proc) < 0 || fake_procfs_populate(env->proc) < 0 ||
	    fake_sysfs_new(&env->udev) < 0 || fake_udev_populate(env->udev) < 0 ||
	    pmemram_ctx_new(&env->ctx) < 0 || pmemram_ctx_set_sysfs_root(env->ctx, env->root) < 0 ||
	    pmemram_ctx_set_root(env->ctx, PMEMRAM_ROOT_PROCFS, env->proc) < 0 ||
	    pmemram_ctx_set_root(env->ctx, PMEMRAM_ROOT_UDEV, env->udev) < 0)
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

int fake_env_setup_live(void **state)
{
	return env_setup(state, FAKE_KERNEL_LIVE);
}

int fake_env_teardown(void **state)
{
	struct fake_env *env = *state;

	if (env) {
		pmemram_ctx_unref(env->ctx);
		fake_sysfs_free(env->root);
		fake_sysfs_free(env->proc);
		fake_sysfs_free(env->udev);
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
