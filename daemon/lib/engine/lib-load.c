/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen() and dlsym() into a table of function pointers: see lib-load.h. */
#include <dlfcn.h>
#include <stdio.h>

#include "lib-load.h"
#include "pmemram-private.h"

int lib_load(struct pmemram_ctx *ctx, const char *soname, const char *package, const struct lib_symbol *symbols,
	     size_t n_symbols, void *api)
{
	void *handle;

	if (!soname || !symbols || !api)
		return -EINVAL;
	handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		pmemram_log(ctx, LOG_ERR, __FILE__, __LINE__, __func__, "cannot load %s (package %s): %s", soname,
			    package, dlerror());
		return -ELIBACC;
	}
	for (size_t i = 0; i < n_symbols; i++) {
		void *p = dlsym(handle, symbols[i].name);

		if (!p && symbols[i].optional) {
			pmemram_log(ctx, LOG_DEBUG, __FILE__, __LINE__, __func__, "%s has no %s (optional): %s", soname,
				    symbols[i].name, dlerror());
		} else if (!p) {
			pmemram_log(ctx, LOG_ERR, __FILE__, __LINE__, __func__, "%s has no %s: %s", soname,
				    symbols[i].name, dlerror());
			(void)dlclose(handle);
			return -ELIBACC;
		}
		memcpy((char *)api + symbols[i].offset, &p, sizeof(p));
	}
	return 0;
}

int lib_load_once(struct pmemram_ctx *ctx, const char *soname, const char *package, const struct lib_symbol *symbols,
		  size_t n_symbols, void *api, bool *loaded)
{
	int r;

	/* Failures are not remembered: a library installed meanwhile is found next time. */
	if (*loaded)
		return 0;
	r = lib_load(ctx, soname, package, symbols, n_symbols, api);
	*loaded = r >= 0;
	return r;
}

_printf_(6, 0) void lib_log_forward(struct pmemram_ctx *ctx, const char *library, const char *file, int line,
				    const char *fn, const char *format, va_list args)
{
	char msg[256];
	size_t len;

	if (!ctx || pmemram_ctx_get_log_priority(ctx) < LOG_DEBUG)
		return;
	(void)vsnprintf(msg, sizeof(msg), format, args);
	len = strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		msg[--len] = '\0';
	pmemram_log(ctx, LOG_DEBUG, file, line, fn, "%s: %s", library, msg);
}
