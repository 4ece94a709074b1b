/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a dax device comes from (NVDIMM namespace, soft-reserved hmem range, CXL region), from its sysfs path. */
#include <ctype.h>
#include <limits.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

static const char *const source_names[_PMEMRAM_DAX_SOURCE_MAX] = {
	[PMEMRAM_DAX_SOURCE_UNKNOWN] = "unknown",
	[PMEMRAM_DAX_SOURCE_NVDIMM] = "nvdimm",
	[PMEMRAM_DAX_SOURCE_HMEM] = "hmem",
	[PMEMRAM_DAX_SOURCE_CXL] = "cxl",
};

const char *pmemram_dax_source_to_string(enum pmemram_dax_source s)
{
	return (unsigned)s < ELEMENTSOF(source_names) ? source_names[s] : NULL;
}

bool pmemram_release_binds_ram_at_probe(const char *release)
{
	unsigned long major, minor;
	char *end;

	if (!release || !isdigit((unsigned char)release[0]))
		return false;
	errno = 0;
	major = strtoul(release, &end, 10);
	if (errno || *end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	minor = strtoul(end + 1, &end, 10);
	if (errno)
		return false;
	/* v6.3: dax_hmem and dax_cxl create their devices for kmem (DAXDRV_KMEM_TYPE) */
	return major > 6 || (major == 6 && minor >= 3);
}

bool pmemram_kernel_binds_ram_at_probe(struct pmemram_ctx *ctx)
{
	char release[128];

	if (root_read_string(ctx, PMEMRAM_ROOT_PROCFS, "sys/kernel/osrelease", release, sizeof(release)) < 0) {
		pmemram_ctx_clear_error(ctx); /* unknown: not an error of the caller's */
		return false;
	}
	return pmemram_release_binds_ram_at_probe(release);
}

/* Whether the component [s, s + len) is prefix followed by decimal digits, with one '.' between
 * two runs of digits when dot: "region0", "hmem.0" (prefix "hmem."), "decoder0.1". */
static bool component_is(const char *s, size_t len, const char *prefix, bool dot)
{
	size_t n = strlen(prefix), i, digits = 0;

	if (len <= n || strncmp(s, prefix, n) != 0)
		return false;
	for (i = n; i < len && isdigit((unsigned char)s[i]); i++)
		digits++;
	if (digits == 0)
		return false;
	if (!dot)
		return i == len;
	if (i == len || s[i] != '.')
		return false;
	for (digits = 0, i++; i < len && isdigit((unsigned char)s[i]); i++)
		digits++;
	return digits > 0 && i == len;
}

/* What the components above the dax device show, walking from the root down. */
struct path_marks {
	bool cxl;	     /* ACPI0017 (the CXL root), a CXL decoder or nvdimm-bridge */
	bool nd;	     /* an ndbusN */
	char hmem[32];	     /* "hmem.N" */
	char cxl_region[32]; /* regionN below a CXL decoder */
	char nd_region[32];  /* regionN below an ndbus */
};

static void mark_component(struct path_marks *m, const char *s, size_t len, bool after_decoder)
{
	if (component_is(s, len, "hmem.", false))
		(void)copy_span(m->hmem, sizeof(m->hmem), s, len);
	else if (component_is(s, len, "ndbus", false))
		m->nd = true;
	else if (component_is(s, len, "nvdimm-bridge", false) || component_is(s, len, "decoder", true) ||
		 (len > 9 && strncmp(s, "ACPI0017:", 9) == 0))
		m->cxl = true;
	else if (component_is(s, len, "region", false)) {
		if (m->nd)
			(void)copy_span(m->nd_region, sizeof(m->nd_region), s, len);
		else if (after_decoder)
			(void)copy_span(m->cxl_region, sizeof(m->cxl_region), s, len);
	}
}

int pmemram_parse_dax_source(const char *target, enum pmemram_dax_source *ret, char *provider, size_t size)
{
	struct path_marks m = {};
	const char *s = target, *provided = "";
	bool after_decoder = false;

	if (!target || !ret || !provider || size == 0)
		return -EINVAL;

	while (*s) {
		size_t len = strcspn(s, "/");

		if (len > 0) {
			mark_component(&m, s, len, after_decoder);
			after_decoder = component_is(s, len, "decoder", true);
		}
		s += len + (s[len] == '/');
	}

	/* CXL first: its pmem regions sit on an ndbus below the nvdimm-bridge. */
	if (m.cxl && (m.cxl_region[0] || m.nd_region[0])) {
		*ret = PMEMRAM_DAX_SOURCE_CXL;
		provided = m.cxl_region[0] ? m.cxl_region : m.nd_region;
	} else if (m.hmem[0]) {
		*ret = PMEMRAM_DAX_SOURCE_HMEM;
		provided = m.hmem;
	} else if (m.nd && m.nd_region[0]) {
		*ret = PMEMRAM_DAX_SOURCE_NVDIMM;
		provided = m.nd_region;
	} else
		*ret = PMEMRAM_DAX_SOURCE_UNKNOWN;
	return copy_span(provider, size, provided, strlen(provided));
}

int pmemram_dax_source_read(struct pmemram_ctx *ctx, struct pmemram_dax *d)
{
	char path[64], target[PATH_MAX];
	int r;

	if (!ctx || !d)
		return -EINVAL;
	r = path_printf(path, sizeof(path), "bus/dax/devices/%s", d->name);
	if (r < 0)
		return r;
	/* bus/dax/devices/daxX.Y links to the device, below whatever provides it. */
	r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, path, target, sizeof(target));
	if (r == -EINVAL || r == -ENOENT) {
		/* not a link (a tree that is no sysfs), or gone since listed: nothing to say */
		pmemram_ctx_clear_error(ctx);
		target[0] = '\0';
	} else if (r < 0)
		return r;
	return pmemram_parse_dax_source(target, &d->source, d->provider, sizeof(d->provider));
}
