/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Namespaces made devdax through libndctl: a claimed one converted keeping its UUID, or one created: see pmemram-apply.h. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/random.h>

#include "lib-load.h"
#include "ndctl-load.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

#define DEVDAX_ALIGN PMEMRAM_DEVDAX_ALIGN

/* The job whose libndctl context is live on this thread.  libndctl's log function is handed only
 * that context, and reading the context's userdata back would take the function table, which is
 * the job's own: libndctl as loaded, or the one its caller passed. */
static _Thread_local struct pmemram_ctx *log_ctx;

_printf_(6, 0) static void ndctl_log(_unused_ struct ndctl_ctx *nctx, int priority, const char *file, int line,
				     const char *fn, const char *format, va_list args)
{
	(void)priority;
	lib_log_forward(log_ctx, "libndctl", file, line, fn, format, args);
}

static void uuid_format(const unsigned char *u, char *buf, size_t size)
{
	(void)snprintf(buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		       u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* A random (version 4) UUID, for a dax device's info block. */
static int uuid_random(unsigned char *u)
{
	if (getrandom(u, 16, 0) != 16)
		return errno > 0 ? -errno : -EIO;
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	return 0;
}

static struct ndctl_namespace *namespace_find(const struct ndctl_api *api, struct ndctl_ctx *nctx, const char *name,
					      struct ndctl_region **ret_region)
{
	for (struct ndctl_bus *bus = api->bus_get_first(nctx); bus; bus = api->bus_get_next(bus))
		for (struct ndctl_region *region = api->region_get_first(bus); region;
		     region = api->region_get_next(region))
			for (struct ndctl_namespace *ndns = api->namespace_get_first(region); ndns;
			     ndns = api->namespace_get_next(ndns))
				if (streq_ptr(api->namespace_get_devname(ndns), name)) {
					*ret_region = region;
					return ndns;
				}
	return NULL;
}

/* Steps 4 and 5: the region's dax seed (unless one holds the namespace already), enabled. */
static int dax_attach(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_region *region,
		      struct ndctl_namespace *ndns, const char *name)
{
	struct ndctl_dax *dax = api->namespace_get_dax(ndns);
	unsigned char u[16];
	int r;

	if (!dax) {
		dax = api->region_get_dax_seed(region);
		if (!dax)
			return log_debug_errno(ctx, -ENXIO, "%s: its region has no dax seed", name);
		r = uuid_random(u);
		if (r >= 0)
			r = api->dax_set_uuid(dax, u);
		if (r >= 0)
			r = api->dax_set_location(dax, NDCTL_PFN_LOC_PMEM);
		if (r >= 0)
			r = api->dax_set_align(dax, DEVDAX_ALIGN);
		if (r >= 0)
			r = api->dax_set_namespace(dax, ndns);
		if (r < 0)
			return log_debug_errno(ctx, r, "%s: cannot set up the dax seed: %s", name, strerror(-r));
	}
	r = api->dax_enable(dax);
	if (r < 0) {
		/* Give the seed back: the next attempt starts again from the detached namespace. */
		(void)api->dax_set_namespace(dax, NULL);
		return log_debug_errno(ctx, r, "%s: enabling its dax device failed: %s", name, strerror(-r));
	}
	return 0;
}

/* Steps 1 to 5 for a namespace known to be the one wanted. */
static int devdax_finish(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_region *region,
			 struct ndctl_namespace *ndns, const char *name)
{
	struct ndctl_dax *dax;
	struct ndctl_pfn *pfn;
	int r;

	if (api->namespace_get_btt(ndns))
		return log_debug_errno(ctx, -EOPNOTSUPP, "%s: a sector namespace: not converting", name);

	dax = api->namespace_get_dax(ndns);
	if (dax && api->dax_is_enabled(dax))
		return 0;
	/* 1: refused by libndctl while the block device is mounted or open (O_EXCL). */
	if (api->namespace_is_active(ndns)) {
		r = api->namespace_disable_safe(ndns);
		if (r < 0)
			return log_debug_errno(ctx, r, "%s: cannot disable it: %s", name, strerror(-r));
	}
	/* 2 */
	pfn = api->namespace_get_pfn(ndns);
	if (pfn) {
		r = api->pfn_delete(pfn);
		if (r < 0)
			return log_debug_errno(ctx, r, "%s: cannot detach its fsdax device: %s", name, strerror(-r));
	}
	/* 3: what ndctl does too, unchecked: kernels before 4.13 lack it. */
	(void)api->namespace_set_enforce_mode(ndns, NDCTL_NS_MODE_DEVDAX);
	return dax_attach(ctx, api, region, ndns, name);
}

static int convert(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_ctx *nctx, const char *name,
		   const char *uuid)
{
	struct ndctl_region *region = NULL;
	struct ndctl_namespace *ndns;
	unsigned char u[16];
	char have[40];

	ndns = namespace_find(api, nctx, name, &region);
	if (!ndns)
		return log_debug_errno(ctx, -ENODEV, "%s: libndctl does not list it", name);
	api->namespace_get_uuid(ndns, u);
	uuid_format(u, have, sizeof(have));
	if (strcasecmp(have, uuid) != 0)
		return log_debug_errno(ctx, -ESTALE, "%s: its UUID is %s, not %s: not converting", name, have, uuid);
	return devdax_finish(ctx, api, region, ndns, name);
}

/* The region's namespace with a size that create() made for name (1): named after it, with the
 * UUID want, and no fsdax or sector device (a creation cut short leaves it raw or devdax).  Else 0
 * and one with the name or the UUID that is not that one, which may hold someone's data; -ENOENT
 * when there is neither. */
static int namespace_created(const struct ndctl_api *api, struct ndctl_region *region, const char *name,
			     const uint8_t *want, struct ndctl_namespace **ret)
{
	unsigned char u[16];

	*ret = NULL;
	for (struct ndctl_namespace *ndns = api->namespace_get_first(region); ndns;
	     ndns = api->namespace_get_next(ndns)) {
		bool named = streq_ptr(api->namespace_get_alt_name(ndns), name), same;

		if (api->namespace_get_size(ndns) == 0)
			continue;
		api->namespace_get_uuid(ndns, u);
		same = memcmp(u, want, sizeof(u)) == 0;
		if (named && same && !api->namespace_get_pfn(ndns) && !api->namespace_get_btt(ndns)) {
			*ret = ndns;
			return 1;
		}
		if ((named || same) && !*ret)
			*ret = ndns;
	}
	return *ret ? 0 : -ENOENT;
}

/* The size of the namespace to make, by the planner's rule (pmemram_create_size()). */
static int create_size(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_region *region,
		       const char *region_name, uint64_t *ret)
{
	unsigned long long extent = api->region_get_max_available_extent(region);
	unsigned long align = api->region_get_align(region);
	struct pmemram_observed_region r = {
		.has_extent = extent != ULLONG_MAX,
		.available = extent != ULLONG_MAX ? extent : 0,
		.align = align != ULONG_MAX ? align : 0,
		.ways = api->region_get_interleave_ways(region),
	};
	uint64_t block_size;
	int k;

	k = sysfs_read_hex(ctx, "devices/system/memory/block_size_bytes", &block_size);
	if (k < 0)
		return log_debug_errno(ctx, k, "cannot read the memory block size: %s", strerror(-k));
	k = pmemram_create_size(&r, block_size, ret);
	if (k == -EOPNOTSUPP)
		return log_debug_errno(ctx, k, "%s: the kernel does not tell its largest free extent", region_name);
	if (k < 0)
		return log_debug_errno(ctx, k,
				       "%s: free extent of %llu bytes, %" PRIu64
				       " aligned, less than two memory blocks of %" PRIu64,
				       region_name, extent, *ret, block_size);
	return 0;
}

static int create(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_ctx *nctx, const char *region_name,
		  const char *name)
{
	struct ndctl_region *region = NULL;
	struct ndctl_namespace *ndns;
	uint64_t size;
	unsigned char u[16];
	uint8_t want[16];
	int r;

	for (struct ndctl_bus *bus = api->bus_get_first(nctx); bus && !region; bus = api->bus_get_next(bus))
		for (region = api->region_get_first(bus); region; region = api->region_get_next(region))
			if (streq_ptr(api->region_get_devname(region), region_name))
				break;
	if (!region)
		return log_debug_errno(ctx, -ENODEV, "%s: libndctl does not list it", region_name);
	pmemram_create_uuid(name, want);
	r = namespace_created(api, region, name, want, &ndns);
	if (r > 0)
		return devdax_finish(ctx, api, region, ndns, api->namespace_get_devname(ndns));
	if (r == 0)
		return log_debug_errno(ctx, -EEXIST,
				       "%s: %s has the name '%s' or its UUID, but pmemram did not create it",
				       region_name, api->namespace_get_devname(ndns), name);

	r = create_size(ctx, api, region, region_name, &size);
	if (r < 0)
		return r;
	ndns = api->region_get_namespace_seed(region);
	if (!ndns)
		return log_debug_errno(ctx, -ENXIO, "%s: no namespace seed", region_name);
	/* Cut short here, the seed keeps no size and is not this claim's yet: all is set again, but
	 * the kernel refuses a UUID any namespace has, the seed itself included. */
	api->namespace_get_uuid(ndns, u);
	r = memcmp(u, want, sizeof(u)) == 0 ? 0 : api->namespace_set_uuid(ndns, want);
	if (r >= 0)
		r = api->namespace_set_alt_name(ndns, name);
	if (r >= 0)
		r = api->namespace_set_size(ndns, size);
	if (r < 0)
		return log_debug_errno(ctx, r, "%s: cannot set up namespace seed %s: %s", region_name,
				       api->namespace_get_devname(ndns), strerror(-r));
	return devdax_finish(ctx, api, region, ndns, api->namespace_get_devname(ndns));
}

typedef int (*ndctl_job)(struct pmemram_ctx *ctx, const struct ndctl_api *api, struct ndctl_ctx *nctx, const char *a,
			 const char *b);

/* A libndctl context of its own for each job: they are rare, and change what a kept one listed.
 * api is the function table to call, NULL for libndctl itself. */
static int with_ndctl(struct pmemram_ctx *ctx, const struct ndctl_api *api, ndctl_job job, const char *a, const char *b)
{
	struct pmemram_ctx *outer = log_ctx;
	struct ndctl_ctx *nctx;
	int r;

	if (!ctx || !a || !b)
		return -EINVAL;
	if (!api) {
		r = ndctl_api_get(ctx, &api);
		if (r < 0)
			return r;
	}
	log_ctx = ctx;
	r = api->new_ctx(&nctx);
	if (r < 0) {
		log_ctx = outer;
		return log_debug_errno(ctx, r, "ndctl_new: %s", strerror(-r));
	}
	api->set_log_fn(nctx, ndctl_log);
	api->set_log_priority(nctx, pmemram_ctx_get_log_priority(ctx));
	r = job(ctx, api, nctx, a, b);
	api->unref(nctx);
	log_ctx = outer;
	return r;
}

int pmemram_ndctl_convert_namespace(struct pmemram_ctx *ctx, void *userdata, const char *namespace_name,
				    const char *uuid)
{
	return with_ndctl(ctx, userdata, convert, namespace_name, uuid);
}

int pmemram_ndctl_create_namespace(struct pmemram_ctx *ctx, void *userdata, const char *region, const char *name)
{
	return with_ndctl(ctx, userdata, create, region, name);
}
