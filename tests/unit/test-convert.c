/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the namespace converter: the applier runs pmemram_ndctl_* against a fake libndctl
 * that models regions, namespaces and their claim devices, and shows them in the fake sysfs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake-sysfs.h"
#include "ndctl-load.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

/* What a create = devdax claim named "made" gives its namespace (pmemram_create_uuid()). */
#define MADE_UUID "851e5c5c-2378-8c1e-a0bf-123961976f21"
#define MiB (1ULL << 20)

/* ---- the fake library: one bus, the HMAT tree's four regions ------------------------------ */

/* A pfn, btt or dax device: the claim a namespace's mode follows. */
struct claim {
	char name[16];
	struct ndctl_region *region;
	struct ndctl_namespace *ns;
	bool enabled;
	unsigned char uuid[16];
	enum ndctl_pfn_loc loc;
	unsigned long align;
};

struct ndctl_pfn {
	struct claim c;
};

struct ndctl_btt {
	struct claim c;
};

struct ndctl_dax {
	struct claim c;
};

struct ndctl_namespace {
	struct ndctl_region *region;
	char name[24];
	bool enabled, gone;
	unsigned char uuid[16];
	char alt_name[64];
	unsigned long long size;
	enum ndctl_namespace_mode enforce;
};

#define MAX_NS 4
#define MAX_DAX 4

struct ndctl_region {
	int id;
	char name[16];
	unsigned long long extent;
	unsigned long align;
	unsigned ways;
	struct ndctl_namespace ns[MAX_NS];
	size_t n_ns, ns_seed;
	struct ndctl_pfn pfn;
	struct ndctl_btt btt;
	struct ndctl_dax dax[MAX_DAX];
	size_t n_dax, dax_seed;
};

struct ndctl_ctx {
	void (*log_fn)(struct ndctl_ctx *nctx, int priority, const char *file, int line, const char *fn,
		       const char *format, va_list args);
	int priority;
};

struct ndctl_bus {
	int unused;
};

/* The library's state, as a real one keeps its own: reset by each test's setup. */
static struct lib {
	struct fake_env *env;
	struct ndctl_ctx nctx;
	struct ndctl_bus bus;
	struct ndctl_region regions[4];
	size_t live;	     /* contexts not unref'ed */
	const char *fail;    /* the call that fails once, NULL none */
	int fail_error;	     /* with this error */
	bool fail_late;	     /* after doing its work */
	const char *vanish;  /* a namespace ndctl_new() no longer finds (gone meanwhile) */
	const char *relabel; /* a namespace ndctl_new() finds with another UUID (made again meanwhile) */
	char calls[512];     /* the calls that change something, space-separated */
	size_t chatter;	     /* error lines "chatter N" logged before the failing call's own */
	const char *after;   /* a line logged after it */
} lib;

static void uuid_parse_hex(const char *s, unsigned char *u)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = 0;

	memset(u, 0, 16);
	for (; *s && n < 32; s++) {
		const char *d = strchr(digits, *s);

		if (*s == '-')
			continue;
		assert_non_null(d);
		u[n / 2] = (unsigned char)(u[n / 2] << 4 | (d - digits));
		n++;
	}
	assert_int_equal(n, 32);
}

static void uuid_text(const unsigned char *u, char *buf, size_t size)
{
	static const unsigned char zero[16];

	if (memcmp(u, zero, 16) == 0) {
		snprintf(buf, size, "%s", "");
		return;
	}
	snprintf(buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
		 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* libndctl's err() and dbg(): only when the context's priority lets them through */
_printf_(2, 3) static void lib_log(int priority, const char *format, ...)
{
	va_list args;

	if (!lib.nctx.log_fn || lib.nctx.priority < priority)
		return;
	va_start(args, format);
	lib.nctx.log_fn(&lib.nctx, priority, "libndctl.c", 1, "fake", format, args);
	va_end(args);
}

#define lib_err(...) lib_log(LOG_ERR, __VA_ARGS__)

/* Record a call that changes something; its error when it is the one to fail, which it logs as
 * libndctl does: an error line, or for a sysfs attribute written (attr not NULL) a debug line. */
static int step_attr(const char *call, const char *object, const char *attr)
{
	size_t len = strlen(lib.calls);

	snprintf(lib.calls + len, sizeof(lib.calls) - len, "%s%s:%s", len ? " " : "", call, object);
	lib_log(LOG_DEBUG, "%s: %s: debug words that are not an error\n", object, call);
	if (!lib.fail || strcmp(lib.fail, call) != 0)
		return 0;
	lib.fail = NULL;
	for (size_t i = 1; i <= lib.chatter; i++)
		lib_err("chatter %zu\n", i);
	if (attr)
		lib_log(LOG_DEBUG, "failed to write %s to %s: %s\n", "1", attr, strerror(-lib.fail_error));
	else
		lib_err("%s: %s failed: %s\n", object, call, strerror(-lib.fail_error));
	if (lib.after)
		lib_err("%s\n", lib.after);
	return lib.fail_error;
}

static int step(const char *call, const char *object)
{
	return step_attr(call, object, NULL);
}

/* The attribute a set_* call writes: /sys/bus/nd/devices/OBJECT/ATTR. */
static const char *attr_path(const char *call, const char *object)
{
	static char path[96];

	snprintf(path, sizeof(path), "/sys/bus/nd/devices/%s/%s", object, strstr(call, "set_") + strlen("set_"));
	return path;
}

/* What the kernel shows: each namespace's mode, holder and label, each claim device's driver. */
static void mirror_claim(const struct claim *c)
{
	char path[96];

	if (!c->name[0])
		return;
	snprintf(path, sizeof(path), "bus/nd/devices/%s/driver", c->name);
	(void)fake_sysfs_remove(lib.env->root, path);
	if (c->enabled)
		assert_int_equal(fake_sysfs_symlink(lib.env->root, path, "../../../bus/nd/drivers/nd_pmem"), 0);
}

static const struct claim *claim_of(const struct ndctl_namespace *ns, const char **ret_mode)
{
	const struct ndctl_region *r = ns->region;

	*ret_mode = "raw";
	if (r->pfn.c.ns == ns) {
		*ret_mode = "memory";
		return &r->pfn.c;
	}
	if (r->btt.c.ns == ns) {
		*ret_mode = "safe";
		return &r->btt.c;
	}
	for (size_t i = 0; i < r->n_dax; i++)
		if (r->dax[i].c.ns == ns) {
			*ret_mode = "dax";
			return &r->dax[i].c;
		}
	return NULL;
}

#define NS_FILE(ns, attr, ...)                                                           \
	do {                                                                             \
		snprintf(path, sizeof(path), "bus/nd/devices/%s/" attr, (ns)->name);     \
		assert_int_equal(fake_sysfs_write(lib.env->root, path, __VA_ARGS__), 0); \
	} while (0)

static void mirror(void)
{
	for (size_t i = 0; i < ELEMENTSOF(lib.regions); i++) {
		struct ndctl_region *r = &lib.regions[i];

		for (size_t j = 0; j < r->n_ns; j++) {
			const struct ndctl_namespace *ns = &r->ns[j];
			const struct claim *c;
			const char *mode;
			char path[96], uuid[40];

			if (ns->gone)
				continue;
			c = claim_of(ns, &mode);
			uuid_text(ns->uuid, uuid, sizeof(uuid));
			NS_FILE(ns, "mode", "%s\n", mode);
			NS_FILE(ns, "holder", "%s\n", c ? c->name : "");
			NS_FILE(ns, "uuid", "%s\n", uuid);
			NS_FILE(ns, "alt_name", "%s\n", ns->alt_name);
			NS_FILE(ns, "size", "%llu\n", ns->size);
		}
		mirror_claim(&r->pfn.c);
		mirror_claim(&r->btt.c);
		for (size_t j = 0; j < r->n_dax; j++)
			mirror_claim(&r->dax[j].c);
	}
}

static struct ndctl_namespace *add_ns(struct ndctl_region *r, const char *uuid, unsigned long long size, bool enabled)
{
	struct ndctl_namespace *ns = &r->ns[r->n_ns];

	assert_true(r->n_ns < MAX_NS);
	ns->region = r;
	snprintf(ns->name, sizeof(ns->name), "namespace%d.%zu", r->id, r->n_ns++);
	if (uuid[0])
		uuid_parse_hex(uuid, ns->uuid);
	ns->size = size;
	ns->enabled = enabled;
	return ns;
}

/* A dax device of the region (daxR.id), claiming ns when not NULL. */
static struct ndctl_dax *add_dax(struct ndctl_region *r, unsigned id, struct ndctl_namespace *ns, bool enabled)
{
	struct ndctl_dax *dax = &r->dax[r->n_dax++];

	assert_true(r->n_dax <= MAX_DAX);
	dax->c.region = r;
	snprintf(dax->c.name, sizeof(dax->c.name), "dax%d.%u", r->id, id);
	dax->c.ns = ns;
	dax->c.enabled = enabled;
	return dax;
}

/* The HMAT tree: region0 devdax (dax0.1) with the idle seed namespace0.1 and 771 MiB free;
 * region1 devdax; region2 fsdax through pfn2.1; region3 raw.  Each has an idle dax seed. */
static void lib_reset(struct fake_env *env)
{
	struct ndctl_region *r;

	memset(&lib, 0, sizeof(lib));
	lib.env = env;
	lib.fail_error = -EIO;
	for (size_t i = 0; i < ELEMENTSOF(lib.regions); i++) {
		r = &lib.regions[i];
		r->id = (int)i;
		snprintf(r->name, sizeof(r->name), "region%zu", i);
		r->align = 16 * MiB;
		r->ways = 1;
	}
	r = &lib.regions[0];
	r->extent = 771 * MiB;
	add_dax(r, 1, add_ns(r, FAKE_UUID_KMEM, 1024 * MiB, false), true);
	r->ns_seed = r->n_ns;
	add_ns(r, "", 0, false);
	r->dax_seed = r->n_dax;
	add_dax(r, 2, NULL, false);

	r = &lib.regions[1];
	add_dax(r, 1, add_ns(r, FAKE_UUID_DEVDAX, 256 * MiB, false), true);
	r->dax_seed = r->n_dax;
	add_dax(r, 2, NULL, false);

	r = &lib.regions[2];
	r->pfn.c = (struct claim){
		.name = "pfn2.1", .region = r, .ns = add_ns(r, FAKE_UUID_FSDAX, 512 * MiB, false), .enabled = true
	};
	uuid_parse_hex(FAKE_UUID_FSDAX_INFO, r->pfn.c.uuid);
	r->dax_seed = r->n_dax;
	add_dax(r, 0, NULL, false);

	r = &lib.regions[3];
	add_ns(r, FAKE_UUID_RAW, 512 * MiB, true);
	r->dax_seed = r->n_dax;
	add_dax(r, 0, NULL, false);
	mirror();
}

static struct ndctl_namespace *lib_ns(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(lib.regions); i++)
		for (size_t j = 0; j < lib.regions[i].n_ns; j++)
			if (streq(lib.regions[i].ns[j].name, name))
				return &lib.regions[i].ns[j];
	fail_msg("no namespace %s", name);
	return NULL;
}

/* ---- its functions ------------------------------------------------------------------------ */

static int fake_new(struct ndctl_ctx **ret)
{
	int r = step("new", "ctx");

	if (r < 0)
		return r;
	if (lib.vanish) {
		char path[96];

		lib_ns(lib.vanish)->gone = true;
		snprintf(path, sizeof(path), "bus/nd/devices/%s", lib.vanish);
		assert_int_equal(fake_sysfs_remove(lib.env->root, path), 0);
	}
	if (lib.relabel) {
		uuid_parse_hex("11111111-2222-4333-8444-555555555555", lib_ns(lib.relabel)->uuid);
		mirror();
	}
	lib.live++;
	lib.nctx = (struct ndctl_ctx){ .priority = LOG_ERR };
	*ret = &lib.nctx;
	return 0;
}

static struct ndctl_ctx *fake_unref(struct ndctl_ctx *nctx)
{
	assert_ptr_equal(nctx, &lib.nctx);
	assert_int_equal(lib.live, 1);
	lib.live--;
	lib.nctx.log_fn = NULL;
	return NULL;
}

static void fake_set_log_fn(struct ndctl_ctx *nctx,
			    void (*fn)(struct ndctl_ctx *nctx, int priority, const char *file, int line, const char *fn,
				       const char *format, va_list args))
{
	nctx->log_fn = fn;
}

static void fake_set_log_priority(struct ndctl_ctx *nctx, int priority)
{
	nctx->priority = priority;
}

static struct ndctl_bus *fake_bus_get_first(struct ndctl_ctx *nctx)
{
	assert_ptr_equal(nctx, &lib.nctx);
	return &lib.bus;
}

static struct ndctl_bus *fake_bus_get_next(struct ndctl_bus *bus)
{
	(void)bus;
	return NULL;
}

static struct ndctl_region *fake_region_get_first(struct ndctl_bus *bus)
{
	(void)bus;
	return &lib.regions[0];
}

static struct ndctl_region *fake_region_get_next(struct ndctl_region *r)
{
	return r + 1 < lib.regions + ELEMENTSOF(lib.regions) ? r + 1 : NULL;
}

static const char *fake_region_get_devname(struct ndctl_region *r)
{
	return r->name;
}

static struct ndctl_namespace *fake_region_get_namespace_seed(struct ndctl_region *r)
{
	return r->ns_seed < r->n_ns ? &r->ns[r->ns_seed] : NULL;
}

static unsigned long long fake_region_get_max_available_extent(struct ndctl_region *r)
{
	return r->extent;
}

static unsigned int fake_region_get_interleave_ways(struct ndctl_region *r)
{
	return r->ways;
}

static unsigned long fake_region_get_align(struct ndctl_region *r)
{
	return r->align;
}

static struct ndctl_namespace *ns_from(struct ndctl_region *r, size_t i)
{
	for (; i < r->n_ns; i++)
		if (!r->ns[i].gone)
			return &r->ns[i];
	return NULL;
}

static struct ndctl_namespace *fake_namespace_get_first(struct ndctl_region *r)
{
	return ns_from(r, 0);
}

static struct ndctl_namespace *fake_namespace_get_next(struct ndctl_namespace *ns)
{
	return ns_from(ns->region, (size_t)(ns - ns->region->ns) + 1);
}

static const char *fake_namespace_get_devname(struct ndctl_namespace *ns)
{
	return ns->name;
}

static void fake_namespace_get_uuid(struct ndctl_namespace *ns, uuid_t u)
{
	memcpy(u, ns->uuid, 16);
}

static const char *fake_namespace_get_alt_name(struct ndctl_namespace *ns)
{
	return ns->alt_name;
}

static unsigned long long fake_namespace_get_size(struct ndctl_namespace *ns)
{
	return ns->size;
}

static bool fake_namespace_is_active(struct ndctl_namespace *ns)
{
	const char *mode;
	const struct claim *c = claim_of(ns, &mode);

	return ns->enabled || (c && c->enabled);
}

/* The kernel refuses to relabel a namespace that is enabled or claimed. */
static int ns_change(struct ndctl_namespace *ns, const char *call)
{
	const char *mode;
	int r = step_attr(call, ns->name, attr_path(call, ns->name));

	if (r < 0 && !lib.fail_late)
		return r;
	if (fake_namespace_is_active(ns) || claim_of(ns, &mode)) {
		lib_err("%s: busy\n", ns->name);
		return -EBUSY;
	}
	return r;
}

static int fake_namespace_set_uuid(struct ndctl_namespace *ns, uuid_t u)
{
	int r = ns_change(ns, "namespace_set_uuid");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	/* the kernel refuses a UUID that any namespace has, this one included */
	for (size_t i = 0; i < ELEMENTSOF(lib.regions); i++)
		for (size_t j = 0; j < lib.regions[i].n_ns; j++)
			if (memcmp(lib.regions[i].ns[j].uuid, u, 16) == 0) {
				lib_err("%s: uuid in use by %s\n", ns->name, lib.regions[i].ns[j].name);
				return -EEXIST;
			}
	memcpy(ns->uuid, u, 16);
	mirror();
	return r;
}

static int fake_namespace_set_alt_name(struct ndctl_namespace *ns, const char *alt_name)
{
	int r = ns_change(ns, "namespace_set_alt_name");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	snprintf(ns->alt_name, sizeof(ns->alt_name), "%s", alt_name);
	mirror();
	return r;
}

static int fake_namespace_set_size(struct ndctl_namespace *ns, unsigned long long size)
{
	int r = ns_change(ns, "namespace_set_size");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	if (size > ns->size + ns->region->extent)
		return -ENOSPC;
	ns->region->extent = ns->region->extent + ns->size - size;
	ns->size = size;
	mirror();
	return r;
}

/* As libndctl's: the namespace disabled, and its fsdax, sector or dax device deleted
 * (ndctl_namespace_disable_invalidate()). */
static int fake_namespace_disable_safe(struct ndctl_namespace *ns)
{
	const char *mode;
	struct claim *c = (struct claim *)claim_of(ns, &mode);
	int r = step("namespace_disable_safe", ns->name);

	if (r < 0 && !lib.fail_late)
		return r;
	ns->enabled = false;
	if (c) {
		c->enabled = false;
		c->ns = NULL;
	}
	mirror();
	return r;
}

static int fake_namespace_set_enforce_mode(struct ndctl_namespace *ns, enum ndctl_namespace_mode mode)
{
	int r = step("namespace_set_enforce_mode", ns->name);

	if (r < 0 && !lib.fail_late)
		return r;
	ns->enforce = mode;
	return r;
}

static struct ndctl_pfn *fake_namespace_get_pfn(struct ndctl_namespace *ns)
{
	return ns->region->pfn.c.ns == ns ? &ns->region->pfn : NULL;
}

static struct ndctl_btt *fake_namespace_get_btt(struct ndctl_namespace *ns)
{
	return ns->region->btt.c.ns == ns ? &ns->region->btt : NULL;
}

static struct ndctl_dax *fake_namespace_get_dax(struct ndctl_namespace *ns)
{
	for (size_t i = 0; i < ns->region->n_dax; i++)
		if (ns->region->dax[i].c.ns == ns)
			return &ns->region->dax[i];
	return NULL;
}

static void fake_pfn_get_uuid(struct ndctl_pfn *pfn, uuid_t u)
{
	memcpy(u, pfn->c.uuid, 16);
}

static int fake_pfn_delete(struct ndctl_pfn *pfn)
{
	int r = step("pfn_delete", pfn->c.name);

	if (r < 0 && !lib.fail_late)
		return r;
	if (pfn->c.enabled) {
		lib_err("%s: enabled, not deleting\n", pfn->c.name);
		return -EBUSY;
	}
	pfn->c.ns = NULL;
	mirror();
	return r;
}

static struct ndctl_dax *fake_region_get_dax_seed(struct ndctl_region *r)
{
	return r->dax_seed < r->n_dax ? &r->dax[r->dax_seed] : NULL;
}

/* The kernel refuses to change a dax device's settings while it is enabled. */
static int dax_change(struct ndctl_dax *dax, const char *call)
{
	int r = step_attr(call, dax->c.name, attr_path(call, dax->c.name));

	if (r < 0 && !lib.fail_late)
		return r;
	if (dax->c.enabled) {
		lib_err("%s: enabled, not changing it\n", dax->c.name);
		return -EBUSY;
	}
	return r;
}

static void fake_dax_get_uuid(struct ndctl_dax *dax, uuid_t u)
{
	memcpy(u, dax->c.uuid, 16);
}

static int fake_dax_set_uuid(struct ndctl_dax *dax, uuid_t u)
{
	int r = dax_change(dax, "dax_set_uuid");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	memcpy(dax->c.uuid, u, 16);
	return r;
}

static int fake_dax_set_location(struct ndctl_dax *dax, enum ndctl_pfn_loc loc)
{
	int r = dax_change(dax, "dax_set_location");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	dax->c.loc = loc;
	return r;
}

static int fake_dax_set_align(struct ndctl_dax *dax, unsigned long align)
{
	int r = dax_change(dax, "dax_set_align");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	dax->c.align = align;
	return r;
}

static int fake_dax_set_namespace(struct ndctl_dax *dax, struct ndctl_namespace *ns)
{
	const char *mode;
	int r = dax_change(dax, "dax_set_namespace");

	if (r < 0 && (r == -EBUSY || !lib.fail_late))
		return r;
	if (ns && (ns->enabled || claim_of(ns, &mode))) {
		lib_err("%s: %s is busy\n", dax->c.name, ns->name);
		return -EBUSY;
	}
	dax->c.ns = ns;
	mirror();
	return r;
}

/* Probing the dax device writes its info block and makes the region a new dax seed (and a new
 * namespace seed when the namespace was the seed). */
static int fake_dax_enable(struct ndctl_dax *dax)
{
	struct ndctl_region *reg = dax->c.region;
	int r = step("dax_enable", dax->c.name);

	if (r < 0 && !lib.fail_late)
		return r;
	if (!dax->c.ns || dax->c.align != PMEMRAM_DEVDAX_ALIGN || dax->c.loc != NDCTL_PFN_LOC_PMEM) {
		lib_err("%s: failed to enable\n", dax->c.name);
		return -ENXIO;
	}
	dax->c.enabled = true;
	if (reg->dax_seed == (size_t)(dax - reg->dax)) {
		reg->dax_seed = reg->n_dax;
		add_dax(reg, (unsigned)reg->n_dax + 1, NULL, false);
	}
	if (reg->ns_seed == (size_t)(dax->c.ns - reg->ns)) {
		reg->ns_seed = reg->n_ns;
		add_ns(reg, "", 0, false);
	}
	mirror();
	return r;
}

static int fake_dax_is_enabled(struct ndctl_dax *dax)
{
	return dax->c.enabled;
}

static struct ndctl_api fake_api = {
	.new_ctx = fake_new,
	.unref = fake_unref,
	.set_log_fn = fake_set_log_fn,
	.set_log_priority = fake_set_log_priority,
	.bus_get_first = fake_bus_get_first,
	.bus_get_next = fake_bus_get_next,
	.region_get_first = fake_region_get_first,
	.region_get_next = fake_region_get_next,
	.region_get_devname = fake_region_get_devname,
	.region_get_namespace_seed = fake_region_get_namespace_seed,
	.region_get_max_available_extent = fake_region_get_max_available_extent,
	.region_get_interleave_ways = fake_region_get_interleave_ways,
	.region_get_align = fake_region_get_align,
	.namespace_get_first = fake_namespace_get_first,
	.namespace_get_next = fake_namespace_get_next,
	.namespace_get_devname = fake_namespace_get_devname,
	.namespace_get_uuid = fake_namespace_get_uuid,
	.namespace_get_alt_name = fake_namespace_get_alt_name,
	.namespace_get_size = fake_namespace_get_size,
	.namespace_set_uuid = fake_namespace_set_uuid,
	.namespace_set_alt_name = fake_namespace_set_alt_name,
	.namespace_set_size = fake_namespace_set_size,
	.namespace_is_active = fake_namespace_is_active,
	.namespace_disable_safe = fake_namespace_disable_safe,
	.namespace_set_enforce_mode = fake_namespace_set_enforce_mode,
	.namespace_get_pfn = fake_namespace_get_pfn,
	.namespace_get_btt = fake_namespace_get_btt,
	.namespace_get_dax = fake_namespace_get_dax,
	.pfn_get_uuid = fake_pfn_get_uuid,
	.pfn_delete = fake_pfn_delete,
	.region_get_dax_seed = fake_region_get_dax_seed,
	.dax_get_uuid = fake_dax_get_uuid,
	.dax_set_uuid = fake_dax_set_uuid,
	.dax_set_location = fake_dax_set_location,
	.dax_set_align = fake_dax_set_align,
	.dax_set_namespace = fake_dax_set_namespace,
	.dax_enable = fake_dax_enable,
	.dax_is_enabled = fake_dax_is_enabled,
};

/* ---- running the converter ----------------------------------------------------------------- */

/* The context's debug lines, joined by '\n'. */
static char debug_log[8192];

_printf_(6, 0) static void capture(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
				   const char *format, va_list args)
{
	size_t len = strlen(debug_log);

	(void)ctx, (void)priority, (void)file, (void)line, (void)fn;
	if (len + 1 < sizeof(debug_log)) {
		vsnprintf(debug_log + len, sizeof(debug_log) - len - 1, format, args);
		strcat(debug_log, "\n");
	}
}

static int setup(void **state)
{
	struct fake_env *env;

	if (fake_env_setup_hmat(state) < 0)
		return -1;
	env = *state;
	debug_log[0] = '\0';
	pmemram_ctx_set_log_fn(env->ctx, capture);
	pmemram_ctx_set_log_priority(env->ctx, LOG_DEBUG);
	lib_reset(env);
	return 0;
}

static int teardown(void **state)
{
	return fake_env_teardown(state);
}

/* The default namespace ops, handed the fake library as their userdata. */
static const struct pmemram_apply_ops ndctl_ops = {
	.convert_namespace = pmemram_ndctl_convert_namespace,
	.create_namespace = pmemram_ndctl_create_namespace,
};

/* One action through the applier: its status, result and reason; the library's calls cleared
 * before, and every context it made unref'ed after. */
static int apply(const struct pmemram_action *a, char *reason, size_t size)
{
	struct pmemram_apply_options o = { .ops = &ndctl_ops, .ops_userdata = &fake_api };
	struct pmemram_apply_report *report = NULL;
	int r, status;

	lib.calls[0] = '\0';
	debug_log[0] = '\0';
	r = pmemram_apply(lib.env->ctx, a, 1, &o, &report);
	assert_non_null(report);
	assert_int_equal(lib.live, 0);
	assert_int_equal(report->results[0].result, r);
	snprintf(reason, size, "%s", report->results[0].reason);
	status = report->results[0].status;
	pmemram_apply_report_free(report);
	return r < 0 ? r : status;
}

#define CONVERT(ns, id)                                                                            \
	{                                                                                          \
		.type = PMEMRAM_ACTION_CONVERT_NAMESPACE, .device = (ns), .uuid = (id), .node = -1 \
	}
#define CREATE(reg, name)                                                                             \
	{                                                                                             \
		.type = PMEMRAM_ACTION_CREATE_NAMESPACE, .device = (reg), .claim = (name), .node = -1 \
	}

static const char *sysfs_ns(const char *ns, const char *attr)
{
	char path[96];

	snprintf(path, sizeof(path), "bus/nd/devices/%s/%s", ns, attr);
	return fake_sysfs_read(lib.env->root, path);
}

/* The namespace is devdax through an enabled dax device set up as convert.c does, UUID uuid, its
 * info block's info (NULL: a random one). */
static void assert_devdax(const char *name, const char *uuid, const char *info)
{
	struct ndctl_namespace *ns = lib_ns(name);
	struct ndctl_dax *dax = fake_namespace_get_dax(ns);
	char have[40];

	assert_non_null(dax);
	assert_true(dax->c.enabled);
	assert_int_equal(dax->c.align, PMEMRAM_DEVDAX_ALIGN);
	assert_int_equal(dax->c.loc, NDCTL_PFN_LOC_PMEM);
	if (info) {
		uuid_text(dax->c.uuid, have, sizeof(have));
		assert_string_equal(have, info);
	} else {
		assert_int_equal(dax->c.uuid[6] >> 4, 4); /* a random info-block UUID, version 4 */
		assert_int_equal(dax->c.uuid[8] >> 6, 2);
	}
	assert_int_equal(ns->enforce, NDCTL_NS_MODE_DEVDAX);
	assert_null(fake_namespace_get_pfn(ns));
	uuid_text(ns->uuid, have, sizeof(have));
	assert_string_equal(have, uuid);
	assert_string_equal(sysfs_ns(name, "mode"), "dax");
	assert_string_equal(sysfs_ns(name, "holder"), dax->c.name);
	assert_string_equal(sysfs_ns(name, "uuid"), uuid);
}

/* Take /dev/pmem2 out of the fake procfs's mounts. */
static void unmount_pmem2(struct fake_env *env)
{
	assert_int_equal(fake_sysfs_write(env->proc, "self/mountinfo",
					  "21 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"),
			 0);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_convert_fsdax(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace2.0", FAKE_UUID_FSDAX);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	unmount_pmem2(*state);
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_string_equal(reason, "namespace2.0: converted to devdax (uuid " FAKE_UUID_FSDAX
				    " kept; its former contents are gone)");
	/* The fsdax info block's UUID to the seed before disabling the namespace deletes the fsdax
	 * device: the dax device has it. */
	assert_string_equal(lib.calls, "new:ctx dax_set_uuid:dax2.0 namespace_disable_safe:namespace2.0 "
				       "namespace_set_enforce_mode:namespace2.0 dax_set_location:dax2.0 "
				       "dax_set_align:dax2.0 dax_set_namespace:dax2.0 dax_enable:dax2.0");
	assert_devdax("namespace2.0", FAKE_UUID_FSDAX, FAKE_UUID_FSDAX_INFO);
	assert_string_equal(sysfs_ns("pfn2.1", "driver"), "<absent>");

	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_ALREADY);
	assert_string_equal(reason, "namespace2.0: already devdax");
	assert_string_equal(lib.calls, "");
}

/* A namespace disabled with its fsdax device still attached (a job cut short): the fsdax device
 * deleted, its UUID kept by the dax device; when the deletion fails, the seed forgets the UUID
 * (it may go to another namespace), and the next run gives it again. */
static void test_convert_fsdax_disabled(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace2.0", FAKE_UUID_FSDAX);
	struct ndctl_region *r = &lib.regions[2];
	char reason[PMEMRAM_PLAN_TEXT_MAX];
	unsigned char u[16];

	unmount_pmem2(*state);
	r->pfn.c.enabled = false;
	mirror();
	lib.fail = "pfn_delete";
	assert_int_equal(apply(&a, reason, sizeof(reason)), -EIO);
	assert_non_null(strstr(reason, "cannot detach its fsdax device: Input/output error"));
	assert_string_equal(lib.calls, "new:ctx dax_set_uuid:dax2.0 pfn_delete:pfn2.1 dax_set_uuid:dax2.0");
	fake_dax_get_uuid(&r->dax[r->dax_seed], u);
	assert_memory_equal(u, (unsigned char[16]){}, 16);
	assert_non_null(fake_namespace_get_pfn(lib_ns("namespace2.0")));

	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_string_equal(lib.calls, "new:ctx dax_set_uuid:dax2.0 pfn_delete:pfn2.1 "
				       "namespace_set_enforce_mode:namespace2.0 dax_set_location:dax2.0 "
				       "dax_set_align:dax2.0 dax_set_namespace:dax2.0 dax_enable:dax2.0");
	assert_devdax("namespace2.0", FAKE_UUID_FSDAX, FAKE_UUID_FSDAX_INFO);
}

static void test_convert_raw(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_string_equal(reason, "namespace3.0: converted to devdax (uuid " FAKE_UUID_RAW
				    " kept; its former contents are gone)");
	assert_string_equal(lib.calls, "new:ctx namespace_disable_safe:namespace3.0 "
				       "namespace_set_enforce_mode:namespace3.0 dax_set_uuid:dax3.0 "
				       "dax_set_location:dax3.0 dax_set_align:dax3.0 dax_set_namespace:dax3.0 "
				       "dax_enable:dax3.0");
	assert_devdax("namespace3.0", FAKE_UUID_RAW, NULL);
}

static void test_create(void **state)
{
	static const struct pmemram_action a = CREATE("region0", "made");
	struct ndctl_namespace *ns;
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_string_equal(reason, "region0: created devdax namespace namespace0.1 named 'made'");
	assert_string_equal(lib.calls, "new:ctx namespace_set_uuid:namespace0.1 namespace_set_alt_name:namespace0.1 "
				       "namespace_set_size:namespace0.1 namespace_set_enforce_mode:namespace0.1 "
				       "dax_set_uuid:dax0.2 dax_set_location:dax0.2 dax_set_align:dax0.2 "
				       "dax_set_namespace:dax0.2 dax_enable:dax0.2");
	assert_devdax("namespace0.1", MADE_UUID, NULL);
	ns = lib_ns("namespace0.1");
	/* 771 MiB free, aligned down to the region's 16 MiB */
	assert_int_equal(ns->size, 768 * MiB);
	assert_string_equal(ns->alt_name, "made");
	assert_string_equal(sysfs_ns("namespace0.1", "alt_name"), "made");

	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_ALREADY);
	assert_string_equal(reason, "region0: already holds devdax namespace namespace0.1 named 'made'");
	assert_string_equal(lib.calls, "");
}

/* Called on a namespace that is devdax already (the applier asks only when sysfs says otherwise,
 * which a race can make stale), the op changes nothing. */
static void test_convert_done_already(void **state)
{
	struct fake_env *env = *state;
	char why[PMEMRAM_PLAN_TEXT_MAX] = "stale";

	assert_int_equal(pmemram_ndctl_convert_namespace(env->ctx, &fake_api, "namespace1.0", FAKE_UUID_DEVDAX, why,
							 sizeof(why)),
			 0);
	assert_string_equal(why, "");
	assert_string_equal(lib.calls, "new:ctx");
	assert_int_equal(lib.live, 0);
	assert_true(fake_namespace_get_dax(lib_ns("namespace1.0"))->c.enabled);
	assert_int_equal(pmemram_ndctl_create_namespace(env->ctx, &fake_api, "region7", "made", why, sizeof(why)),
			 -ENODEV);
	assert_string_equal(why, "libndctl does not list it");
	assert_non_null(strstr(debug_log, "region7: libndctl does not list it"));
}

/* One libndctl call that fails, and what the result's reason says of it after the action's own
 * words: the step, then the library's error line about object (none for "new"). */
struct failing {
	const char *call;
	const char *step;
	const char *object;
	const char *attr; /* the sysfs attribute the call writes, NULL for an error line */
	bool labelled;	  /* a creation had given the namespace its name, UUID and size by then */
};

#define EIO_TEXT "Input/output error"
#define LIB_SAID(object, call) "; libndctl: " object ": " call " failed: " EIO_TEXT
#define WRITE_FAILED(object, attr) "failed to write 1 to /sys/bus/nd/devices/" object "/" attr ": " EIO_TEXT

/* A library line as the op keeps it: one of 80 characters or more keeps its first 20 and its last 56,
 * joined by "...". */
static const char *kept(const char *line)
{
	static char buf[80];
	size_t len = strlen(line);

	if (len < 80)
		return line;
	snprintf(buf, sizeof(buf), "%.20s...%s", line, line + len - 56);
	return buf;
}

/* The op's words for f: its step and the library's line. */
static void expect_why(const struct failing *f, char *buf, size_t size)
{
	char line[160];

	if (!f->object) {
		snprintf(buf, size, "%s", f->step);
		return;
	}
	if (f->attr)
		snprintf(line, sizeof(line), "failed to write 1 to /sys/bus/nd/devices/%s/%s: " EIO_TEXT, f->object,
			 f->attr);
	else
		snprintf(line, sizeof(line), "%s: %s failed: " EIO_TEXT, f->object, f->call);
	snprintf(buf, size, "%s; libndctl: %s", f->step, kept(line));
}

#define DAX_SEED "cannot set up the dax seed: " EIO_TEXT

static const struct failing convert_failures[] = {
	{ "new", "ndctl_new: " EIO_TEXT, NULL, NULL, false },
	{ "dax_set_uuid", "cannot give its dax seed the fsdax UUID: " EIO_TEXT, "dax2.0", "uuid", false },
	{ "namespace_disable_safe", "cannot disable it: " EIO_TEXT, "namespace2.0", NULL, false },
	{ "dax_set_location", DAX_SEED, "dax2.0", "location", false },
	{ "dax_set_align", DAX_SEED, "dax2.0", "align", false },
	{ "dax_set_namespace", DAX_SEED, "dax2.0", "namespace", false },
	{ "dax_enable", "enabling its dax device failed: " EIO_TEXT, "dax2.0", NULL, false },
};

/* Each call failing in turn: an error naming the namespace and the step, and the next run finishes
 * the job. */
static void test_convert_each_call_fails(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace2.0", FAKE_UUID_FSDAX);
	char reason[PMEMRAM_PLAN_TEXT_MAX], want[2 * PMEMRAM_PLAN_TEXT_MAX], why[PMEMRAM_PLAN_TEXT_MAX];

	for (size_t i = 0; i < ELEMENTSOF(convert_failures); i++) {
		const struct failing *f = &convert_failures[i];
		const char *mode;

		lib_reset(*state);
		unmount_pmem2(*state);
		lib.fail = f->call;
		assert_int_equal(apply(&a, reason, sizeof(reason)), -EIO);
		assert_null(lib.fail); /* it was called */
		claim_of(lib_ns("namespace2.0"), &mode);
		expect_why(f, why, sizeof(why));
		snprintf(want, sizeof(want), "namespace2.0: conversion to devdax failed (mode now %s): %s", mode, why);
		assert_string_equal(reason, want);
		/* the UUID kept, and no dax device left holding the namespace (a failed enable gives the
		 * seed back) */
		assert_string_equal(sysfs_ns("namespace2.0", "uuid"), FAKE_UUID_FSDAX);
		assert_null(fake_namespace_get_dax(lib_ns("namespace2.0")));

		assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
		assert_devdax("namespace2.0", FAKE_UUID_FSDAX, FAKE_UUID_FSDAX_INFO);
	}
}

#define SEED_FAILED "cannot set up namespace seed namespace0.1: " EIO_TEXT
#define DAX_SEED_FAILED "namespace0.1: " DAX_SEED

static const struct failing create_failures[] = {
	{ "new", "ndctl_new: " EIO_TEXT, NULL, NULL, false },
	{ "namespace_set_uuid", SEED_FAILED, "namespace0.1", "uuid", false },
	{ "namespace_set_alt_name", SEED_FAILED, "namespace0.1", "alt_name", false },
	{ "namespace_set_size", SEED_FAILED, "namespace0.1", "size", false },
	{ "dax_set_uuid", DAX_SEED_FAILED, "dax0.2", "uuid", true },
	{ "dax_set_location", DAX_SEED_FAILED, "dax0.2", "location", true },
	{ "dax_set_align", DAX_SEED_FAILED, "dax0.2", "align", true },
	{ "dax_set_namespace", DAX_SEED_FAILED, "dax0.2", "namespace", true },
	{ "dax_enable", "namespace0.1: enabling its dax device failed: " EIO_TEXT, "dax0.2", NULL, true },
};

static void test_create_each_call_fails(void **state)
{
	static const struct pmemram_action a = CREATE("region0", "made");
	char reason[PMEMRAM_PLAN_TEXT_MAX], want[2 * PMEMRAM_PLAN_TEXT_MAX], why[PMEMRAM_PLAN_TEXT_MAX];

	for (size_t i = 0; i < ELEMENTSOF(create_failures); i++) {
		const struct failing *f = &create_failures[i];

		lib_reset(*state);
		lib.fail = f->call;
		assert_int_equal(apply(&a, reason, sizeof(reason)), -EIO);
		assert_null(lib.fail);
		expect_why(f, why, sizeof(why));
		snprintf(want, sizeof(want), "region0: creating a devdax namespace named 'made' failed: %s", why);
		assert_string_equal(reason, want);
		assert_null(fake_namespace_get_dax(lib_ns("namespace0.1")));

		assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
		/* the namespace found again by its name and UUID: not sized a second time */
		if (f->labelled) {
			assert_null(strstr(lib.calls, "namespace_set_uuid"));
			assert_null(strstr(lib.calls, "namespace_set_alt_name"));
			assert_null(strstr(lib.calls, "namespace_set_size"));
		}
		assert_string_equal(reason, "region0: created devdax namespace namespace0.1 named 'made'");
		assert_devdax("namespace0.1", MADE_UUID, NULL);
		assert_int_equal(lib_ns("namespace0.1")->size, 768 * MiB);
	}
}

/* A namespace of the region with the claim's name and another UUID may hold data: refused, nothing
 * changed. */
static void test_create_foreign(void **state)
{
	static const struct pmemram_action a = CREATE("region0", "made");
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	snprintf(lib_ns("namespace0.0")->alt_name, sizeof(lib_ns("namespace0.0")->alt_name), "made");
	mirror();
	assert_int_equal(apply(&a, reason, sizeof(reason)), -EEXIST);
	assert_string_equal(reason,
			    "region0: creating a devdax namespace named 'made' failed: namespace0.0 has the name "
			    "'made' or its UUID, but pmemram did not create it");
	assert_string_equal(lib.calls, "new:ctx");
	assert_non_null(strstr(debug_log, "region0: namespace0.0 has the name 'made' or its UUID, but pmemram did "
					  "not create it"));
	assert_int_equal(lib_ns("namespace0.1")->size, 0);
}

/* A sector (btt) namespace is not converted. */
static void test_convert_sector(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	struct ndctl_region *r = &lib.regions[3];
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	r->btt.c = (struct claim){ .name = "btt3.0", .region = r, .ns = lib_ns("namespace3.0"), .enabled = true };
	mirror();
	assert_int_equal(apply(&a, reason, sizeof(reason)), -EOPNOTSUPP);
	assert_string_equal(
		reason,
		"namespace3.0: conversion to devdax failed (mode now safe): a sector namespace: not converting");
	assert_string_equal(lib.calls, "new:ctx");
	assert_non_null(strstr(debug_log, "namespace3.0: a sector namespace: not converting"));
}

/* ndctl_namespace_set_enforce_mode() fails on kernels before 4.13, as ndctl knows: not fatal. */
static void test_convert_enforce_mode_unchecked(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	lib.fail = "namespace_set_enforce_mode";
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_null(lib.fail);
	assert_true(fake_namespace_get_dax(lib_ns("namespace3.0"))->c.enabled);
}

/* Users found by the applier's re-check right before the conversion: the library is not even
 * opened, and the namespace stays as it was. */
static void test_convert_users_recheck(void **state)
{
	static const struct pmemram_action fsdax = CONVERT("namespace2.0", FAKE_UUID_FSDAX);
	static const struct pmemram_action raw = CONVERT("namespace3.0", FAKE_UUID_RAW);
	struct fake_env *env = *state;
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	assert_int_equal(apply(&fsdax, reason, sizeof(reason)), -EBUSY);
	assert_string_equal(reason, "namespace2.0: in use (/dev/pmem2 mounted): not converting");
	assert_string_equal(lib.calls, "");
	assert_true(lib.regions[2].pfn.c.enabled);
	assert_string_equal(sysfs_ns("namespace2.0", "mode"), "memory");

	assert_int_equal(fake_sysfs_write(env->proc, "6262/comm", "dd\n"), 0);
	assert_int_equal(fake_sysfs_symlink(env->proc, "6262/exe", "/usr/bin/dd"), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "6262/maps", "\n"), 0);
	assert_int_equal(fake_sysfs_symlink(env->proc, "6262/fd/3", "/dev/pmem3"), 0);
	assert_int_equal(apply(&raw, reason, sizeof(reason)), -EBUSY);
	assert_string_equal(reason, "namespace3.0: in use (/dev/pmem3 open by pid 6262 (dd)): not converting");
	assert_string_equal(lib.calls, "");
	assert_true(lib_ns("namespace3.0")->enabled);
	assert_null(fake_namespace_get_dax(lib_ns("namespace3.0")));
	assert_string_equal(sysfs_ns("namespace3.0", "mode"), "raw");
}

/* The namespace gone before the applier reads it, or between its re-check and libndctl's listing. */
static void test_convert_namespace_gone(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	lib.vanish = "namespace3.0";
	assert_int_equal(apply(&a, reason, sizeof(reason)), -ENOENT);
	assert_string_equal(reason, "namespace3.0: cannot re-read its mode after the conversion: No such file or "
				    "directory; the conversion had failed: libndctl does not list it");
	assert_string_equal(lib.calls, "new:ctx");
	assert_non_null(strstr(debug_log, "namespace3.0: libndctl does not list it"));

	lib_reset(*state);
	lib_ns("namespace3.0")->gone = true;
	assert_int_equal(fake_sysfs_remove(lib.env->root, "bus/nd/devices/namespace3.0"), 0);
	assert_int_equal(apply(&a, reason, sizeof(reason)), -ENOENT);
	assert_string_equal(reason, "namespace3.0: cannot read its mode and UUID: No such file or directory");
	assert_string_equal(lib.calls, "");
}

/* The namespace made again with another UUID between the applier's read and libndctl's: the
 * converter's own check refuses it. */
static void test_convert_namespace_relabelled(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	lib.relabel = "namespace3.0";
	assert_int_equal(apply(&a, reason, sizeof(reason)), -ESTALE);
	assert_string_equal(reason, "namespace3.0: conversion to devdax failed (mode now raw): its UUID is "
				    "11111111-2222-4333-8444-555555555555, not " FAKE_UUID_RAW ": not converting");
	assert_string_equal(lib.calls, "new:ctx");
	assert_non_null(strstr(debug_log,
			       "namespace3.0: its UUID is 11111111-2222-4333-8444-555555555555, not " FAKE_UUID_RAW
			       ": not converting"));
	assert_true(lib_ns("namespace3.0")->enabled);
}

/* The library errs after the dax device is enabled: the contents are gone, so the result is DONE,
 * saying what the library reported; the seed is not taken back from the enabled device. */
static void test_convert_late_error(void **state)
{
	static const struct pmemram_action a = CONVERT("namespace3.0", FAKE_UUID_RAW);
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	lib.fail = "dax_enable";
	lib.fail_late = true;
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	/* the library's words, long after this reason's start, end cut at its bound */
	assert_int_equal(strlen(reason), PMEMRAM_PLAN_TEXT_MAX - 1);
	assert_true(strncmp(reason,
			    "namespace3.0: converted to devdax (uuid " FAKE_UUID_RAW
			    " kept; its former contents are gone); the "
			    "library then reported: enabling its dax device failed: " EIO_TEXT
			    "; libndctl: dax3.0: dax_enable failed: " EIO_TEXT "; dax3.0: enabled, not changing it",
			    PMEMRAM_PLAN_TEXT_MAX - 1) == 0);
	assert_devdax("namespace3.0", FAKE_UUID_RAW, NULL);

	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_ALREADY);
	assert_string_equal(lib.calls, "");
}

/* The same for a creation: the library errs once the namespace is devdax. */
static void test_create_late_error(void **state)
{
	static const struct pmemram_action a = CREATE("region0", "made");
	char reason[PMEMRAM_PLAN_TEXT_MAX];

	(void)state;
	lib.fail = "dax_enable";
	lib.fail_late = true;
	assert_int_equal(apply(&a, reason, sizeof(reason)), PMEMRAM_APPLY_DONE);
	assert_string_equal(reason,
			    "region0: created devdax namespace namespace0.1 named 'made'; the library then "
			    "reported: namespace0.1: enabling its dax device failed: " EIO_TEXT
			    "; libndctl: dax0.2: dax_enable failed: " EIO_TEXT "; dax0.2: enabled, not changing it");
	assert_devdax("namespace0.1", MADE_UUID, NULL);
}

/* libndctl's error lines, and its debug lines on a failed attribute write, reach the op's words
 * whatever the log priority: the last two, or the last alone when both do not fit the room the
 * applier gives, each cut short. */
static void test_library_lines(void **state)
{
	static const struct pmemram_action create = CREATE("region0", "made");
	static const struct pmemram_action convert = CONVERT("namespace3.0", FAKE_UUID_RAW);
	struct fake_env *env = *state;
	char reason[PMEMRAM_PLAN_TEXT_MAX], why[1024], want[1024], line[200];
	const char *x;

	pmemram_ctx_set_log_priority(env->ctx, LOG_CRIT);
	lib.chatter = 3;
	lib.fail = "namespace_set_size";
	assert_int_equal(pmemram_ndctl_create_namespace(env->ctx, &fake_api, "region0", "made", why, sizeof(why)),
			 -EIO);
	snprintf(want, sizeof(want), SEED_FAILED "; libndctl: chatter 3; %s", WRITE_FAILED("namespace0.1", "size"));
	assert_string_equal(why, want);

	lib_reset(env);
	lib.chatter = 3;
	lib.fail = "dax_enable";
	assert_int_equal(apply(&convert, reason, sizeof(reason)), -EIO);
	assert_string_equal(reason, "namespace3.0: conversion to devdax failed (mode now raw): enabling its dax device "
				    "failed: " EIO_TEXT "; libndctl: chatter 3; dax3.0: dax_enable failed: " EIO_TEXT);

	/* long lines: each cut to its bound, the last alone when both do not fit the room */
	lib_reset(env);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	lib.after = line;
	lib.fail = "namespace_set_size";
	assert_int_equal(apply(&create, reason, sizeof(reason)), -EIO);
	snprintf(want, sizeof(want),
		 "region0: creating a devdax namespace named 'made' failed: " SEED_FAILED "; libndctl: %s", kept(line));
	assert_string_equal(reason, want);
	lib_reset(env);
	lib.after = line;
	lib.fail = "dax_set_uuid";
	assert_int_equal(apply(&convert, reason, sizeof(reason)), -EIO);
	snprintf(want, sizeof(want),
		 "namespace3.0: conversion to devdax failed (mode now raw): " DAX_SEED "; libndctl: %s", kept(line));
	assert_string_equal(reason, want);
	lib_reset(env);
	lib.after = line;
	lib.fail = "dax_enable";
	assert_int_equal(pmemram_ndctl_convert_namespace(env->ctx, &fake_api, "namespace3.0", FAKE_UUID_RAW, why,
							 sizeof(why)),
			 -EIO);
	x = strstr(why, LIB_SAID("dax3.0", "dax_enable") "; x");
	assert_non_null(x);
	x += strlen(LIB_SAID("dax3.0", "dax_enable") "; ");
	assert_string_equal(x, "xxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(strlen(x), 79);
	lib_reset(env);
	lib.after = line;
	lib.fail = "namespace_set_size";
	assert_int_equal(apply(&create, reason, sizeof(reason)), -EIO);
	assert_non_null(strstr(reason, SEED_FAILED "; libndctl: xxxx"));
	assert_true(strlen(reason) < PMEMRAM_PLAN_TEXT_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_convert_fsdax, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_fsdax_disabled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_raw, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_done_already, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_each_call_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_each_call_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_sector, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_enforce_mode_unchecked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_users_recheck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_relabelled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_late_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_late_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_library_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
