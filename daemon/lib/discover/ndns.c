/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NVDIMM namespaces (bus/nd/devices/namespaceX.Y): UUID, region, mode, size, block device; dax device -> namespace. */
#include <limits.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

#define ND_DIR "bus/nd/devices"
#define DAX_DIR "bus/dax/devices"

int pmemram_parse_link_parent(const char *target, char *buf, size_t size)
{
	const char *end, *start;
	size_t len;

	if (!target || !buf || size == 0)
		return -EINVAL;

	end = target + strlen(target);
	while (end > target && end[-1] == '/')
		end--;
	/* Drop the last component... */
	while (end > target && end[-1] != '/')
		end--;
	while (end > target && end[-1] == '/')
		end--;
	/* ...and take the one before it. */
	start = end;
	while (start > target && start[-1] != '/')
		start--;

	len = (size_t)(end - start);
	if (len == 0 || (len <= 2 && strncmp(start, "..", len) == 0))
		return -EINVAL;
	return copy_span(buf, size, start, len);
}

int pmemram_parse_ns_mode(const char *s, enum pmemram_ns_mode *ret)
{
	/* namespace_devs.c mode_show(): claimed by btt "safe", by pfn (or raw with struct pages)
	 * "memory", by nd_dax "dax", else "raw".  ndctl calls them sector, fsdax, devdax, raw. */
	static const struct {
		const char *word;
		enum pmemram_ns_mode mode;
	} modes[] = {
		{ "raw", PMEMRAM_NS_RAW },
		{ "safe", PMEMRAM_NS_SECTOR },
		{ "memory", PMEMRAM_NS_FSDAX },
	};

	if (!s || !ret)
		return -EINVAL;
	if (streq(s, "dax"))
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(modes); i++)
		if (streq(s, modes[i].word)) {
			*ret = modes[i].mode;
			return 1;
		}
	return -EINVAL;
}

/* UUID (lower case, "" when the namespace has none) and region of a namespace. */
static int read_ns_identity(struct pmemram_ctx *ctx, const char *ns, char *uuid, size_t uuid_size, char *region,
			    size_t region_size)
{
	char dir[64], path[96], buf[SYSFS_ATTR_MAX];
	int r;

	r = path_printf(dir, sizeof(dir), ND_DIR "/%s", ns);
	if (r < 0)
		return r;

	r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, dir, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = pmemram_parse_link_parent(buf, region, region_size);
	if (r < 0) {
		pmemram_ctx_set_error_path(ctx, dir);
		return log_debug_errno(ctx, r, "%s: no parent in link %s", dir, buf);
	}

	/* Label-less (namespace_io) namespaces have no uuid attribute; pmem ones print "" until set. */
	r = sysfs_read_string(ctx, SYSFS_JOIN(path, dir, "uuid"), buf, sizeof(buf));
	if (sysfs_absent(ctx, r))
		buf[0] = '\0';
	else if (r < 0)
		return r;
	if (buf[0] && pmemram_uuid_normalize(buf) < 0) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, -EINVAL, "%s: malformed uuid \"%s\"", path, buf);
	}
	return copy_span(uuid, uuid_size, buf, strlen(buf));
}

/* The UUID in the info block device's uuid file at path (an nd_dax, pfn or btt device's) into buf:
 * "" when it has none (not set up yet, or not a UUID). */
static int read_info_uuid(struct pmemram_ctx *ctx, const char *path, char *buf, size_t size)
{
	char value[SYSFS_ATTR_MAX];
	int r;

	buf[0] = '\0';
	r = sysfs_read_string(ctx, path, value, sizeof(value));
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;
	if (value[0] && pmemram_uuid_normalize(value) >= 0 && strlen(value) < size)
		strcpy(buf, value);
	return 0;
}

/* A namespace's label name (alt_name); "" when it has none or no labels. */
static int read_ns_alt_name(struct pmemram_ctx *ctx, const char *ns, char *buf, size_t size)
{
	char path[96], name[SYSFS_ATTR_MAX];
	int r;

	r = path_printf(path, sizeof(path), ND_DIR "/%s/alt_name", ns);
	if (r < 0)
		return r;
	r = sysfs_read_string(ctx, path, name, sizeof(name));
	if (sysfs_absent(ctx, r))
		name[0] = '\0';
	else if (r < 0)
		return r;
	return copy_span(buf, size, name, strnlen(name, size - 1));
}

int pmemram_dax_namespace_read(struct pmemram_ctx *ctx, struct pmemram_observed_dax *d)
{
	char path[96], ns[32], uuid[sizeof(d->uuid)] = "", region[sizeof(d->region)] = "";
	int r;

	if (!ctx || !d)
		return -EINVAL;

	/* The dax device's parent is the nd_dax device (regionN/daxN.M) when it sits on an NVDIMM. */
	r = path_printf(path, sizeof(path), DAX_DIR "/%s/../namespace", d->dax.name);
	if (r < 0)
		return r;
	r = sysfs_read_string(ctx, path, ns, sizeof(ns));
	if (sysfs_absent(ctx, r))
		ns[0] = '\0'; /* hmem or another provider: no namespace */
	else if (r < 0)
		return r;

	/* ns "": an nd_dax that lost its namespace. */
	if (ns[0]) {
		r = read_ns_identity(ctx, ns, uuid, sizeof(uuid), region, sizeof(region));
		if (r < 0)
			return r;
	}
	strcpy(d->uuid, uuid);
	strcpy(d->region, region);
	(void)copy_span(d->namespace, sizeof(d->namespace), ns, strlen(ns));
	d->ns_name[0] = '\0';
	if (ns[0]) {
		r = read_ns_alt_name(ctx, ns, d->ns_name, sizeof(d->ns_name));
		if (r < 0)
			return r;
	}
	d->cxl = (struct pmemram_cxl_origin){};
	if (region[0]) {
		r = pmemram_cxl_origin_read(ctx, region, &d->cxl);
		if (r < 0)
			return r;
	} else if (!ns[0] && d->dax.source == PMEMRAM_DAX_SOURCE_CXL && d->dax.provider[0]) {
		/* A CXL RAM region's dax device: no namespace, the CXL region is its provider. */
		r = pmemram_cxl_region_origin_read(ctx, d->dax.provider, &d->cxl);
		if (r < 0)
			return r;
	}

	/* The nd_dax device's own uuid is its info block's, the one ndctl list -N prints. */
	d->info_uuid[0] = '\0';
	if (ns[0]) {
		r = path_printf(path, sizeof(path), DAX_DIR "/%s/../uuid", d->dax.name);
		if (r < 0)
			return r;
		return read_info_uuid(ctx, path, d->info_uuid, sizeof(d->info_uuid));
	}
	return 0;
}

/* The first pmem disk in dir/block ("" when none: namespace disabled). */
static int read_blockdev(struct pmemram_ctx *ctx, const char *dev, char *buf, size_t size)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir disks = {};
	char path[96];
	int r;

	r = path_printf(path, sizeof(path), ND_DIR "/%s/block", dev);
	if (r < 0)
		return r;
	r = sysfs_dir_read(ctx, path, "pmem", 16, &disks);
	if (sysfs_absent(ctx, r) || (r >= 0 && disks.n == 0)) {
		buf[0] = '\0';
		return 0;
	}
	if (r < 0)
		return r;
	return copy_span(buf, size, disks.names[0], strlen(disks.names[0]));
}

int pmemram_namespace_holder_disabled(struct pmemram_ctx *ctx, const char *name)
{
	char path[96], holder[32], driver[32];
	int r;

	r = path_printf(path, sizeof(path), ND_DIR "/%s/holder", name);
	if (r < 0)
		return r;
	r = sysfs_read_string(ctx, path, holder, sizeof(holder));
	if (sysfs_absent(ctx, r) || (r >= 0 && !holder[0]))
		return 0;
	if (r < 0)
		return r;
	r = path_printf(path, sizeof(path), ND_DIR "/%s/driver", holder);
	if (r < 0)
		return r;
	r = sysfs_read_link_name(ctx, path, driver, sizeof(driver));
	if (sysfs_absent(ctx, r))
		return 1;
	return r < 0 ? r : 0;
}

/* 1 and *ret for a listed namespace, 0 for one left out (devdax with its dax device enabled, or a
 * seed without size). */
static int read_namespace(struct pmemram_ctx *ctx, const char *name, struct pmemram_observed_namespace *ret)
{
	struct pmemram_observed_namespace ns = {};
	char dir[64], path[96], buf[SYSFS_ATTR_MAX];
	int r;

	if (strlen(name) >= sizeof(ns.name))
		return log_debug_errno(ctx, -EINVAL, "unexpected namespace name %s", name);
	strcpy(ns.name, name);
	r = path_printf(dir, sizeof(dir), ND_DIR "/%s", name);
	if (r < 0)
		return r;

	r = sysfs_read_string(ctx, SYSFS_JOIN(path, dir, "mode"), buf, sizeof(buf));
	if (r < 0)
		return r;
	r = pmemram_parse_ns_mode(buf, &ns.mode);
	if (r < 0) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, r, "%s: unknown mode \"%s\"", path, buf);
	}
	if (r == 0) {
		/* devdax: its dax device stands for it, unless that is not enabled. */
		r = pmemram_namespace_holder_disabled(ctx, name);
		if (r <= 0)
			return r;
		ns.mode = PMEMRAM_NS_DEVDAX;
	}

	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "size"), &ns.size);
	if (r < 0)
		return r;
	if (ns.size == 0)
		return 0;

	r = read_ns_identity(ctx, name, ns.uuid, sizeof(ns.uuid), ns.region, sizeof(ns.region));
	if (r < 0)
		return r;
	r = read_ns_alt_name(ctx, name, ns.alt_name, sizeof(ns.alt_name));
	if (r < 0)
		return r;

	/* The disk hangs below the claiming pfn/btt device, or the namespace itself when raw. */
	r = sysfs_read_string(ctx, SYSFS_JOIN(path, dir, "holder"), buf, sizeof(buf));
	if (sysfs_absent(ctx, r))
		buf[0] = '\0';
	else if (r < 0)
		return r;
	r = read_blockdev(ctx, buf[0] ? buf : name, ns.blockdev, sizeof(ns.blockdev));
	if (r < 0)
		return r;
	if (buf[0]) {
		r = path_printf(path, sizeof(path), ND_DIR "/%s/uuid", buf);
		if (r < 0)
			return r;
		r = read_info_uuid(ctx, path, ns.info_uuid, sizeof(ns.info_uuid));
		if (r < 0)
			return r;
	}

	*ret = ns;
	return 1;
}

/* The nd bus's devices named prefix<digit>... (none when libnvdimm is not loaded), and a zeroed
 * array of as many elements of elem_size for what is read of them (NULL for none). */
static int nd_dir_read(struct pmemram_ctx *ctx, const char *prefix, struct sysfs_dir *dir, size_t elem_size,
		       void **ret_list)
{
	int r = sysfs_dir_read(ctx, ND_DIR, prefix, PMEMRAM_MAX_NAMESPACES, dir);

	if (sysfs_absent(ctx, r))
		dir->n = 0;
	else if (r < 0)
		return r;
	*ret_list = NULL;
	if (dir->n > 0) {
		*ret_list = calloc(dir->n, elem_size);
		if (!*ret_list)
			return -ENOMEM;
	}
	return 0;
}

int pmemram_namespaces_read(struct pmemram_ctx *ctx, struct pmemram_observed_namespace **ret, size_t *ret_n)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	_cleanup_(freep) struct pmemram_observed_namespace *list = NULL;
	size_t n = 0;
	int r;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;

	r = nd_dir_read(ctx, "namespace", &dir, sizeof(*list), (void **)&list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < dir.n; i++) {
		r = read_namespace(ctx, dir.names[i], &list[n]);
		if (r < 0)
			return r;
		if (r > 0)
			n++;
	}

	log_debug(ctx, "%zu namespaces not in devdax mode", n);
	*ret = TAKE_PTR(list);
	*ret_n = n;
	return 0;
}

/* What create = devdax needs of one region: its largest free extent, alignment and interleave
 * ways; each unknown when the kernel lacks its attribute (as a region that is not pmem does). */
static int read_region(struct pmemram_ctx *ctx, const char *name, struct pmemram_observed_region *ret)
{
	char dir[64], path[96];
	uint64_t ways = 0;
	int r;

	if (strlen(name) >= sizeof(ret->name))
		return log_debug_errno(ctx, -EINVAL, "unexpected region name %s", name);
	*ret = (struct pmemram_observed_region){};
	strcpy(ret->name, name);
	r = path_printf(dir, sizeof(dir), ND_DIR "/%s", name);
	if (r < 0)
		return r;
	/* max_available_extent (4.19+): a namespace takes one contiguous extent. */
	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "max_available_extent"), &ret->available);
	if (r >= 0)
		ret->has_extent = true;
	else if (!sysfs_absent(ctx, r))
		return r;
	r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "align"), &ret->align);
	if (sysfs_absent(ctx, r))
		ret->align = 0;
	else if (r < 0)
		return r;
	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "mappings"), &ways);
	if (sysfs_absent(ctx, r))
		ways = 0;
	else if (r < 0)
		return r;
	ret->ways = ways <= UINT_MAX ? (unsigned)ways : 0;
	/* Best effort: an unknown CXL side leaves the region to region: claims alone. */
	r = pmemram_cxl_origin_read(ctx, name, &ret->cxl);
	return r < 0 ? r : 0;
}

int pmemram_regions_read(struct pmemram_ctx *ctx, struct pmemram_observed_region **ret, size_t *ret_n)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	_cleanup_(freep) struct pmemram_observed_region *list = NULL;
	int r;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;
	r = nd_dir_read(ctx, "region", &dir, sizeof(*list), (void **)&list);
	if (r < 0)
		return r;
	for (size_t i = 0; i < dir.n; i++) {
		r = read_region(ctx, dir.names[i], &list[i]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(list);
	*ret_n = dir.n;
	return 0;
}
