/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libdaxctl through dlopen(): see daxctl-load.h. */
#include <dlfcn.h>
#include <stddef.h>

#include "daxctl-load.h"
#include "pmemram-private.h"

#define SYMBOL(field) { "daxctl_" #field, offsetof(struct daxctl_api, field) }

static const struct {
	const char *name;
	size_t offset;
} symbols[] = {
	{ "daxctl_new", offsetof(struct daxctl_api, new_ctx) },
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
	SYMBOL(dev_disable),
	SYMBOL(dev_enable_ram),
	SYMBOL(dev_enable_devdax),
};

int daxctl_api_get(struct pmemram_ctx *ctx, const struct daxctl_api **ret)
{
	static struct daxctl_api api;
	static bool loaded;
	void *handle;

	if (!ret)
		return -EINVAL;
	if (loaded) {
		*ret = &api;
		return 0;
	}

	/* Failures are not remembered: a library installed meanwhile is found next time. */
	handle = dlopen(DAXCTL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		pmemram_log(ctx, LOG_ERR, __FILE__, __LINE__, __func__,
			    "cannot load %s (package libdaxctl1): %s", DAXCTL_SONAME, dlerror());
		return -ELIBACC;
	}
	for (size_t i = 0; i < ELEMENTSOF(symbols); i++) {
		void *p = dlsym(handle, symbols[i].name);

		if (!p) {
			pmemram_log(ctx, LOG_ERR, __FILE__, __LINE__, __func__, "%s has no %s: %s", DAXCTL_SONAME,
				    symbols[i].name, dlerror());
			(void)dlclose(handle);
			return -ELIBACC;
		}
		memcpy((char *)&api + symbols[i].offset, &p, sizeof(p));
	}
	loaded = true;
	*ret = &api;
	return 0;
}
