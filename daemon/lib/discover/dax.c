/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dax devices from bus/dax/devices/daxX.Y: source, bound driver (mode), target node, size, align, resource, ranges. */
#include <inttypes.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

#define DAX_DIR "bus/dax/devices"

static int range_compare(const void *a, const void *b)
{
	const struct pmemram_dax_range *x = a, *y = b;

	return x->page_offset < y->page_offset ? -1 : x->page_offset > y->page_offset;
}

/* mappingN/{start,end,page_offset} of the device in dir (all of them root's to read): d->ranges in
 * device order, d->n_ranges 0 when unreadable or absent (before Linux 5.10). */
static int read_ranges(struct pmemram_ctx *ctx, const char *dir, struct pmemram_dax *d)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir maps = {};
	char sub[96], path[128];
	int r;

	r = sysfs_dir_read(ctx, dir, "mapping", PMEMRAM_MAX_DAX_DEVICES, &maps);
	if (sysfs_absent(ctx, r) || r == -EACCES) {
		pmemram_ctx_clear_error(ctx);
		return 0;
	}
	if (r < 0)
		return r;
	for (size_t i = 0; i < maps.n && i < PMEMRAM_DAX_RANGES_MAX; i++) {
		struct pmemram_dax_range *g = &d->ranges[i];

		r = path_printf(sub, sizeof(sub), "%s/%s", dir, maps.names[i]);
		if (r >= 0)
			r = sysfs_read_hex(ctx, SYSFS_JOIN(path, sub, "start"), &g->start);
		if (r >= 0)
			r = sysfs_read_hex(ctx, SYSFS_JOIN(path, sub, "end"), &g->end);
		if (r >= 0 && g->end < g->start) {
			pmemram_ctx_set_error_path(ctx, path);
			return log_debug_errno(ctx, -EINVAL, "%s: %s ends at %#" PRIx64 " before its start %#" PRIx64,
					       d->name, maps.names[i], g->end, g->start);
		}
		if (r >= 0)
			r = sysfs_read_hex(ctx, SYSFS_JOIN(path, sub, "page_offset"), &g->page_offset);
		if (r == -EACCES) {
			pmemram_ctx_clear_error(ctx);
			return 0; /* root's to read: unknown */
		}
		if (r < 0)
			return r;
	}
	d->n_ranges = maps.n;
	qsort(d->ranges, maps.n < PMEMRAM_DAX_RANGES_MAX ? maps.n : PMEMRAM_DAX_RANGES_MAX, sizeof(d->ranges[0]),
	      range_compare);
	return 0;
}

static int read_device(struct pmemram_ctx *ctx, const char *name, struct pmemram_dax *ret)
{
	struct pmemram_dax d = { .target_node = -1 };
	char dir[64], path[96];
	int r;

	if (!pmemram_dax_name_is_valid(name) || strlen(name) >= sizeof(d.name))
		return log_debug_errno(ctx, -EINVAL, "unexpected dax device name %s", name);
	strcpy(d.name, name);
	r = path_printf(dir, sizeof(dir), DAX_DIR "/%s", name);
	if (r < 0)
		return r;

	r = pmemram_dax_source_read(ctx, &d);
	if (r < 0)
		return r;

	r = sysfs_read_link_name(ctx, SYSFS_JOIN(path, dir, "driver"), d.driver, sizeof(d.driver));
	if (sysfs_absent(ctx, r))
		d.driver[0] = '\0'; /* unbound */
	else if (r < 0)
		return r;
	d.mode = pmemram_dax_mode_from_driver(d.driver);

	/* The kernel hides target_node when the device has none (dev_dax_visible()), rather than
	 * showing -1: no node, which the planner refuses by name, not a device to fail on. */
	r = sysfs_read_int(ctx, SYSFS_JOIN(path, dir, "target_node"), &d.target_node);
	if (sysfs_absent(ctx, r))
		d.target_node = -1;
	else if (r < 0)
		return r;
	if (d.target_node < -1 || d.target_node >= PMEMRAM_MAX_NODES) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, -EINVAL, "%s: target node %d out of range", name, d.target_node);
	}

	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "size"), &d.size);
	if (r < 0)
		return r;

	/* align appeared in 5.10; older kernels: 0 means "not reported". */
	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "align"), &d.align);
	if (sysfs_absent(ctx, r))
		d.align = 0;
	else if (r < 0)
		return r;

	/* resource is root-only (0400): unreadable is not an error for a status query. */
	r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "resource"), &d.resource);
	if (r == -EACCES || sysfs_absent(ctx, r))
		pmemram_ctx_clear_error(ctx);
	else if (r < 0)
		return r;
	else
		d.has_resource = true;

	r = read_ranges(ctx, dir, &d);
	if (r < 0)
		return r;

	*ret = d;
	return 0;
}

bool pmemram_dax_last_byte(const struct pmemram_dax *d, uint64_t *ret)
{
	if (!d->has_resource || d->size == 0 || d->size - 1 > UINT64_MAX - d->resource)
		return false;
	*ret = d->resource + (d->size - 1);
	return true;
}

bool pmemram_dax_contiguous(const struct pmemram_dax *d, uint64_t block_size)
{
	if (d->n_ranges > PMEMRAM_DAX_RANGES_MAX)
		return false;
	for (size_t i = 1; i < d->n_ranges; i++)
		if (d->ranges[i - 1].end == UINT64_MAX || d->ranges[i].start != d->ranges[i - 1].end + 1 ||
		    (block_size > 0 && d->ranges[i].start % block_size != 0))
			return false;
	return true;
}

bool pmemram_dax_inside(const struct pmemram_dax *d, uint64_t start, uint64_t end)
{
	uint64_t last;

	if (d->n_ranges > PMEMRAM_DAX_RANGES_MAX)
		return false;
	for (size_t i = 0; i < d->n_ranges; i++)
		if (d->ranges[i].start < start || d->ranges[i].end > end)
			return false;
	if (d->n_ranges > 0)
		return true;
	return pmemram_dax_last_byte(d, &last) && d->resource >= start && last <= end;
}

const char *pmemram_dax_ranges_format(const struct pmemram_dax *d, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < d->n_ranges && i < PMEMRAM_DAX_RANGES_MAX && n < size; i++) {
		int k = snprintf(buf + n, size - n, "%s0x%" PRIx64 "-0x%" PRIx64, i ? ", " : "", d->ranges[i].start,
				 d->ranges[i].end);

		n += k > 0 ? (size_t)k : 0;
	}
	if (d->n_ranges > PMEMRAM_DAX_RANGES_MAX && n < size)
		(void)snprintf(buf + n, size - n, ", ...");
	return buf;
}

struct pmemram_dax_list *pmemram_dax_list_free(struct pmemram_dax_list *l)
{
	if (!l)
		return NULL;
	free(l->devices);
	free(l);
	return NULL;
}

/* FNV-1a over each device's name, range and size. */
static uint64_t dax_signature(const struct pmemram_dax_list *l)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < l->n_devices; i++) {
		const struct pmemram_dax *d = &l->devices[i];
		uint64_t words[2] = { d->resource, d->size };

		for (const char *c = d->name; *c; c++)
			h = (h ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
		for (size_t w = 0; w < ELEMENTSOF(words); w++)
			for (unsigned k = 0; k < 64; k += 8)
				h = (h ^ ((words[w] >> k) & 0xff)) * UINT64_C(0x100000001b3);
	}
	return h;
}

int pmemram_dax_list_read(struct pmemram_ctx *ctx, struct pmemram_dax_list **ret)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;

	r = sysfs_dir_read(ctx, DAX_DIR, "dax", PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (sysfs_absent(ctx, r))
		goto done; /* dax bus not registered: no devices */
	if (r < 0)
		return r;

	if (dir.n > 0) {
		l->devices = calloc(dir.n, sizeof(*l->devices));
		if (!l->devices)
			return -ENOMEM;
	}
	for (size_t i = 0; i < dir.n; i++) {
		r = read_device(ctx, dir.names[i], &l->devices[i]);
		if (r < 0)
			return r;
		l->n_devices++;
	}

done:
	pmemram_ctx_set_dax_signature(ctx, dax_signature(l));
	log_debug(ctx, "%zu dax devices", l->n_devices);
	*ret = TAKE_PTR(l);
	return 0;
}

int pmemram_dax_identity(struct pmemram_ctx *ctx, const struct pmemram_dax *dax, char *buf, size_t size)
{
	struct pmemram_observed_dax d = {};
	int r;

	if (!ctx || !dax || !buf || size == 0)
		return -EINVAL;
	d.dax = *dax;
	r = pmemram_dax_namespace_read(ctx, &d);
	if (r < 0)
		return r;
	return pmemram_observed_dax_identity(&d, buf, size);
}

int pmemram_observed_dax_identity(const struct pmemram_observed_dax *d, char *buf, size_t size)
{
	uint64_t last;
	int r;

	if (!d || !buf || size == 0)
		return -EINVAL;
	if (d->uuid[0])
		r = snprintf(buf, size, "uuid:%s", d->uuid);
	else if (pmemram_dax_last_byte(&d->dax, &last))
		/* inclusive, as /proc/iomem prints it: the exclusive end of the top range would be 0 */
		r = snprintf(buf, size, "range:0x%" PRIx64 "-0x%" PRIx64, d->dax.resource, last);
	else if (d->dax.has_resource)
		return -ERANGE;
	else
		return -EACCES; /* the physical address is root's to read */
	return r < 0 || (size_t)r >= size ? -ENAMETOOLONG : 0;
}

void pmemram_dax_identity_upgrade(char *id, size_t size)
{
	uint64_t start, end;
	char *p;

	if (!id || strncmp(id, "range:", strlen("range:")) != 0)
		return;
	errno = 0;
	start = strtoull(id + strlen("range:"), &p, 16);
	if (errno != 0 || *p != '-')
		return;
	end = strtoull(p + 1, &p, 16);
	/* an end on a page boundary (0: wrapped) is exclusive: sizes are whole pages */
	if (errno != 0 || *p != '\0' || (end & 0xfff) != 0)
		return;
	(void)snprintf(id, size, "range:0x%" PRIx64 "-0x%" PRIx64, start, end - 1);
}

int pmemram_dax_identity_read(struct pmemram_ctx *ctx, const char *device, char *buf, size_t size)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
	int r;

	if (!ctx || !pmemram_dax_name_is_valid(device) || !buf || size == 0)
		return -EINVAL;
	r = pmemram_dax_list_read(ctx, &l);
	if (r < 0)
		return r;
	for (size_t i = 0; i < l->n_devices; i++)
		if (streq(l->devices[i].name, device))
			return pmemram_dax_identity(ctx, &l->devices[i], buf, size);
	return -ENODEV;
}
