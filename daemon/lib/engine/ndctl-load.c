/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libndctl through dlopen(): see ndctl-load.h. */
#include <stddef.h>

#include "lib-load.h"
#include "ndctl-load.h"
#include "pmemram-private.h"

#define SYMBOL(field)                                                                \
	{                                                                            \
		.name = "ndctl_" #field, .offset = offsetof(struct ndctl_api, field) \
	}

static const struct lib_symbol symbols[] = {
	{ .name = "ndctl_new", .offset = offsetof(struct ndctl_api, new_ctx) },
	SYMBOL(unref),
	SYMBOL(set_log_fn),
	SYMBOL(set_log_priority),
	SYMBOL(bus_get_first),
	SYMBOL(bus_get_next),
	SYMBOL(region_get_first),
	SYMBOL(region_get_next),
	SYMBOL(region_get_devname),
	SYMBOL(region_get_namespace_seed),
	SYMBOL(region_get_max_available_extent),
	SYMBOL(region_get_interleave_ways),
	SYMBOL(region_get_align),
	SYMBOL(namespace_get_first),
	SYMBOL(namespace_get_next),
	SYMBOL(namespace_get_devname),
	SYMBOL(namespace_get_uuid),
	SYMBOL(namespace_get_alt_name),
	SYMBOL(namespace_get_size),
	SYMBOL(namespace_set_uuid),
	SYMBOL(namespace_set_alt_name),
	SYMBOL(namespace_set_size),
	SYMBOL(namespace_is_active),
	SYMBOL(namespace_disable_safe),
	SYMBOL(namespace_set_enforce_mode),
	SYMBOL(namespace_get_pfn),
	SYMBOL(namespace_get_btt),
	SYMBOL(namespace_get_dax),
	SYMBOL(pfn_get_uuid),
	SYMBOL(pfn_delete),
	SYMBOL(region_get_dax_seed),
	SYMBOL(dax_get_uuid),
	SYMBOL(dax_set_uuid),
	SYMBOL(dax_set_location),
	SYMBOL(dax_set_align),
	SYMBOL(dax_set_namespace),
	SYMBOL(dax_enable),
	SYMBOL(dax_is_enabled),
};

int ndctl_api_get(struct pmemram_ctx *ctx, const struct ndctl_api **ret)
{
	static struct ndctl_api api;
	static bool loaded;
	int r;

	if (!ret)
		return -EINVAL;
	r = lib_load_once(ctx, NDCTL_SONAME, "libndctl6", symbols, ELEMENTSOF(symbols), &api, &loaded);
	if (r < 0)
		return r;
	*ret = &api;
	return 0;
}
