/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdaxctl through dlopen(): see daxctl-load.h. */
#include <stddef.h>

#include "daxctl-load.h"
#include "lib-load.h"
#include "pmemram-private.h"

#define SYMBOL(field)                                                                  \
	{                                                                              \
		.name = "daxctl_" #field, .offset = offsetof(struct daxctl_api, field) \
	}

static const struct lib_symbol symbols[] = {
	{ .name = "daxctl_new", .offset = offsetof(struct daxctl_api, new_ctx) },
	SYMBOL(unref),
	SYMBOL(set_userdata),
	SYMBOL(get_userdata),
	SYMBOL(set_log_fn),
	SYMBOL(set_log_priority),
	SYMBOL(region_get_first),
	SYMBOL(region_get_next),
	SYMBOL(dev_get_first),
	SYMBOL(dev_get_next),
	SYMBOL(dev_get_devname),
	SYMBOL(dev_enable_ram),
	SYMBOL(dev_enable_devdax),
};

int daxctl_api_get(struct pmemram_ctx *ctx, const struct daxctl_api **ret)
{
	static struct daxctl_api api;
	static bool loaded;
	int r;

	if (!ret)
		return -EINVAL;
	r = lib_load_once(ctx, DAXCTL_SONAME, "libdaxctl1", symbols, ELEMENTSOF(symbols), &api, &loaded);
	if (r < 0)
		return r;
	*ret = &api;
	return 0;
}
