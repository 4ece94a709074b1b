/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libcxl through dlopen(): see cxl-load.h. */
#include <stddef.h>

#include "cxl-load.h"
#include "lib-load.h"
#include "pmemram-private.h"

#define SYMBOL(field)                                                            \
	{                                                                        \
		.name = "cxl_" #field, .offset = offsetof(struct cxl_api, field) \
	}

static const struct lib_symbol symbols[] = {
	{ .name = "cxl_new", .offset = offsetof(struct cxl_api, new_ctx) },
	SYMBOL(unref),
	SYMBOL(set_log_fn),
	SYMBOL(set_log_priority),
	SYMBOL(memdev_get_first),
	SYMBOL(memdev_get_next),
	SYMBOL(memdev_get_devname),
	SYMBOL(memdev_get_endpoint),
	SYMBOL(memdev_get_serial),
	SYMBOL(endpoint_get_port),
	SYMBOL(decoder_get_by_name),
	SYMBOL(decoder_get_first),
	SYMBOL(decoder_get_next),
	SYMBOL(decoder_get_devname),
	SYMBOL(decoder_get_region),
	SYMBOL(decoder_get_memdev),
	SYMBOL(decoder_get_dpa_size),
	SYMBOL(decoder_get_mode),
	SYMBOL(decoder_set_mode),
	SYMBOL(decoder_set_dpa_size),
	SYMBOL(decoder_get_interleave_granularity),
	SYMBOL(decoder_create_pmem_region),
	{ .name = "cxl_decoder_create_ram_region",
	  .offset = offsetof(struct cxl_api, decoder_create_ram_region),
	  .optional = true },
	SYMBOL(region_get_first),
	SYMBOL(region_get_next),
	SYMBOL(region_get_devname),
	SYMBOL(region_get_uuid),
	SYMBOL(region_get_size),
	SYMBOL(region_get_target_decoder),
	SYMBOL(region_get_interleave_ways),
	{ .name = "cxl_region_get_mode", .offset = offsetof(struct cxl_api, region_get_mode), .optional = true },
	SYMBOL(region_set_uuid),
	SYMBOL(region_set_interleave_granularity),
	SYMBOL(region_set_interleave_ways),
	SYMBOL(region_set_size),
	SYMBOL(region_set_target),
	SYMBOL(region_decode_is_committed),
	SYMBOL(region_decode_commit),
	SYMBOL(region_is_enabled),
	SYMBOL(region_enable),
	SYMBOL(region_delete),
};

int cxl_api_get(struct pmemram_ctx *ctx, const struct cxl_api **ret)
{
	static struct cxl_api api;
	static bool loaded;
	int r;

	if (!ret)
		return -EINVAL;
	r = lib_load_once(ctx, CXL_SONAME, "libcxl1", symbols, ELEMENTSOF(symbols), &api, &loaded);
	if (r < 0)
		return r;
	*ret = &api;
	return 0;
}
