/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pmem CXL region of a create-region = pmem claim, made or finished through libcxl: see pmemram-apply.h. */
#include <stdio.h>

#include "cxl-load.h"
#include "lib-load.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

/* The context whose log lines go to ctx's debug log: libcxl hands its log function only its own. */
static _Thread_local struct pmemram_ctx *log_ctx;

_printf_(6, 0) static void cxl_log(_unused_ struct cxl_ctx *cctx, int priority, const char *file, int line,
				   const char *fn, const char *format, va_list args)
{
	(void)priority;
	lib_log_forward(log_ctx, "libcxl", file, line, fn, format, args);
}

/* A step failed: why says which, r its error. */
_printf_(4, 5) static int step_fail(char *why, size_t size, int r, const char *format, ...)
{
	va_list args;
	size_t n;

	va_start(args, format);
	(void)vsnprintf(why, size, format, args);
	va_end(args);
	n = strlen(why);
	(void)snprintf(why + n, size - n, ": %s", strerror(r < 0 ? -r : r));
	return r < 0 ? r : -r;
}

static struct cxl_region *region_by_uuid(const struct cxl_api *api, struct cxl_decoder *root, const uint8_t *want)
{
	unsigned char u[16];

	for (struct cxl_region *region = api->region_get_first(root); region; region = api->region_get_next(region)) {
		api->region_get_uuid(region, u);
		if (memcmp(u, want, sizeof(u)) == 0)
			return region;
	}
	return NULL;
}

/* The memdev's endpoint decoder for the region: the one already in it, else one holding exactly
 * size of pmem outside any region (a creation cut short after allocating it), else the first
 * free one (the kernel hands out an endpoint's decoders in order). */
static struct cxl_decoder *endpoint_decoder(const struct cxl_api *api, struct cxl_port *port, struct cxl_region *region,
					    uint64_t size)
{
	struct cxl_decoder *allocated = NULL, *free_one = NULL;

	for (struct cxl_decoder *d = api->decoder_get_first(port); d; d = api->decoder_get_next(d)) {
		struct cxl_region *in = api->decoder_get_region(d);
		unsigned long long dpa = api->decoder_get_dpa_size(d);

		if (in == region)
			return d;
		if (in)
			continue;
		if (!allocated && dpa == size && api->decoder_get_mode(d) == CXL_DECODER_MODE_PMEM)
			allocated = d;
		if (!free_one && dpa == 0)
			free_one = d;
	}
	return allocated ? allocated : free_one;
}

static int create(const struct cxl_api *api, struct cxl_ctx *cctx, const struct pmemram_action *a, char *why,
		  size_t size)
{
	struct cxl_memdev *memdev = NULL;
	struct cxl_endpoint *endpoint;
	struct cxl_decoder *root, *ep;
	struct cxl_region *region;
	uint8_t want[16];
	int r;

	for (memdev = api->memdev_get_first(cctx); memdev; memdev = api->memdev_get_next(memdev))
		if (streq_ptr(api->memdev_get_devname(memdev), a->device))
			break;
	if (!memdev)
		return step_fail(why, size, -ENODEV, "libcxl does not list %s", a->device);
	endpoint = api->memdev_get_endpoint(memdev);
	if (!endpoint)
		return step_fail(why, size, -ENODEV, "%s has no endpoint port", a->device);
	root = api->decoder_get_by_name(cctx, a->decoder);
	if (!root)
		return step_fail(why, size, -ENODEV, "libcxl does not list root decoder %s", a->decoder);
	pmemram_cxl_region_uuid(a->serial, want);

	/* 1: the region, its UUID first: that is how the next run finds one cut short. */
	region = region_by_uuid(api, root, want);
	if (!region) {
		region = api->decoder_create_pmem_region(root);
		if (!region)
			return step_fail(why, size, -EIO, "%s: cannot create a pmem region", a->decoder);
		r = api->region_set_uuid(region, want);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot set its UUID", api->region_get_devname(region));
	}
	/* 2: one way, the root decoder's granularity, the size. */
	if (api->region_get_size(region) == 0) {
		r = api->region_set_interleave_granularity(region, api->decoder_get_interleave_granularity(root));
		if (r >= 0)
			r = api->region_set_interleave_ways(region, 1);
		if (r >= 0)
			r = api->region_set_size(region, a->size);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot set its geometry and size",
					 api->region_get_devname(region));
	}
	/* 3: the memdev's capacity on an endpoint decoder, as the region's one target; a region with
	 * the UUID but another memdev's decoder there is not finished. */
	ep = api->region_get_target_decoder(region, 0);
	if (ep && api->decoder_get_memdev(ep) != memdev)
		return step_fail(why, size, -ESTALE, "%s has %s's UUID but %s as target, not one of %s's",
				 api->region_get_devname(region), a->device, api->decoder_get_devname(ep), a->device);
	if (!ep) {
		ep = endpoint_decoder(api, api->endpoint_get_port(endpoint), region, a->size);
		if (!ep)
			return step_fail(why, size, -EBUSY, "%s: no free endpoint decoder", a->device);
		if (api->decoder_get_dpa_size(ep) == 0) {
			r = api->decoder_set_mode(ep, CXL_DECODER_MODE_PMEM);
			if (r >= 0)
				r = api->decoder_set_dpa_size(ep, a->size);
			if (r < 0)
				return step_fail(why, size, r, "%s: cannot allocate %s's pmem capacity",
						 api->decoder_get_devname(ep), a->device);
		}
		r = api->region_set_target(region, 0, ep);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot make %s its target", api->region_get_devname(region),
					 api->decoder_get_devname(ep));
	}
	/* 4 and 5: commit the decoders, bind the region driver (which makes the nvdimm region). */
	if (!api->region_decode_is_committed(region)) {
		r = api->region_decode_commit(region);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot commit it", api->region_get_devname(region));
	}
	if (!api->region_is_enabled(region)) {
		r = api->region_enable(region);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot enable it", api->region_get_devname(region));
	}
	return 0;
}

int pmemram_cxl_create_region(struct pmemram_ctx *ctx, void *userdata, const struct pmemram_action *a, char *why,
			      size_t why_size)
{
	const struct cxl_api *api = userdata;
	struct pmemram_ctx *outer = log_ctx;
	struct cxl_ctx *cctx;
	int r;

	if (!ctx || !a || !why || why_size == 0)
		return -EINVAL;
	why[0] = '\0';
	if (!api) {
		r = cxl_api_get(ctx, &api);
		if (r < 0)
			return step_fail(why, why_size, r, "cannot load " CXL_SONAME);
	}
	r = api->new_ctx(&cctx);
	if (r < 0)
		return step_fail(why, why_size, r, "cxl_new");
	log_ctx = ctx;
	api->set_log_fn(cctx, cxl_log);
	api->set_log_priority(cctx, pmemram_ctx_get_log_priority(ctx));
	r = create(api, cctx, a, why, why_size);
	api->unref(cctx);
	log_ctx = outer;
	return r;
}
