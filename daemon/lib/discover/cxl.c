/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CXL side of an nvdimm region: the CXL pmem region of its range and that region's memdevs' serials;
 * CXL memdevs and regions; CXL memory that firmware made plain RAM. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

#define CXL_DIR "bus/cxl/devices"
#define ND_DIR "bus/nd/devices"

/* "decoderX.Y": what a CXL region's targetN names, checked before it goes into a path. */
static bool decoder_name_is_valid(const char *s)
{
	size_t d;

	if (strncmp(s, "decoder", 7) != 0)
		return false;
	s += 7;
	d = strspn(s, "0123456789");
	if (d == 0 || s[d] != '.')
		return false;
	s += d + 1;
	d = strspn(s, "0123456789");
	return d > 0 && s[d] == '\0';
}

/* The serials of the memdevs behind region's targets: target0, target1, ... (as many as its
 * interleave ways; an unset one is empty), each an endpoint decoder whose port's uport is the memdev. */
static int read_serials(struct pmemram_ctx *ctx, const char *region, struct pmemram_cxl_origin *o)
{
	char path[128], decoder[64];
	int r;

	for (unsigned i = 0; i < PMEMRAM_CXL_MAX_TARGETS; i++) {
		r = path_printf(path, sizeof(path), CXL_DIR "/%s/target%u", region, i);
		if (r < 0)
			return r;
		r = sysfs_read_string(ctx, path, decoder, sizeof(decoder));
		if (sysfs_absent(ctx, r))
			break;
		if (r < 0)
			return r;
		if (!decoder[0])
			continue; /* position not filled yet */
		if (!decoder_name_is_valid(decoder)) {
			pmemram_ctx_set_error_path(ctx, path);
			return log_debug_errno(ctx, -EINVAL, "%s: unexpected decoder name \"%s\"", path, decoder);
		}
		r = path_printf(path, sizeof(path), CXL_DIR "/%s/../uport/serial", decoder);
		if (r < 0)
			return r;
		r = sysfs_read_hex(ctx, path, &o->serials[o->n_serials]);
		if (r < 0)
			return r;
		o->n_serials++;
	}
	return 0;
}

/* resource (hex) and size of bus/NAME; size is hex on the CXL bus, decimal on the nd bus. */
static int read_range(struct pmemram_ctx *ctx, const char *bus, const char *name, bool hex_size, uint64_t *ret_start,
		      uint64_t *ret_size)
{
	char dir[64], path[96];
	int r;

	r = path_printf(dir, sizeof(dir), "%s/%s", bus, name);
	if (r < 0)
		return r;
	r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "resource"), ret_start);
	if (r < 0)
		return r;
	if (hex_size)
		return sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "size"), ret_size);
	r = sysfs_read_u64(ctx, SYSFS_JOIN(path, dir, "size"), ret_size);
	if (r >= 0 && (*ret_size == 0 || *ret_start + *ret_size < *ret_start)) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, -EINVAL, "%s: empty or overflowing range", dir);
	}
	return r;
}

/* 1 when the CXL region is the pmem region behind [nd_start, nd_start + nd_size): the nvdimm region
 * of a CXL pmem region has exactly its range.  A region without space shows resource
 * 0xffffffffffffffff and size 0; mode (6.3+) tells ram regions from pmem ones. */
static int region_is(struct pmemram_ctx *ctx, const char *region, uint64_t nd_start, uint64_t nd_size)
{
	char path[96], mode[16];
	uint64_t start, size;
	int r;

	r = read_range(ctx, CXL_DIR, region, true, &start, &size);
	if (r < 0)
		return r;
	if (start != nd_start || size != nd_size)
		return 0;
	r = path_printf(path, sizeof(path), CXL_DIR "/%s/mode", region);
	if (r < 0)
		return r;
	r = sysfs_read_string(ctx, path, mode, sizeof(mode));
	if (sysfs_absent(ctx, r))
		return 1;
	if (r < 0)
		return r;
	return streq(mode, "pmem");
}

/* Keeps in *o the first reason the CXL side is unknown (r, and the file the context blames) and
 * goes on without it: a memdev or region may be going away.  Only -ENOMEM still fails. */
static int remember_unreadable(struct pmemram_ctx *ctx, int r, struct pmemram_cxl_origin *o)
{
	const char *path = pmemram_ctx_get_error_path(ctx);

	if (r == -ENOMEM)
		return r;
	if (!o->error) {
		*o = (struct pmemram_cxl_origin){ .error = r };
		if (path)
			(void)snprintf(o->error_path, sizeof(o->error_path), "%s", path);
		else
			(void)snprintf(o->error_path, sizeof(o->error_path), "%s/" CXL_DIR,
				       pmemram_ctx_get_sysfs_root(ctx));
	}
	log_debug(ctx, "CXL origin unreadable: %s: %s", path ? path : CXL_DIR, strerror(-r));
	pmemram_ctx_clear_error(ctx);
	return 0;
}

int pmemram_cxl_origin_read(struct pmemram_ctx *ctx, const char *nd_region, struct pmemram_cxl_origin *ret)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	struct pmemram_cxl_origin o = {}, skipped = {};
	char path[96], target[PATH_MAX];
	uint64_t start, size;
	int r;

	if (!ctx || !nd_region || !ret)
		return -EINVAL;
	*ret = o;

	/* Only the nvdimm bus of a CXL root's nvdimm bridge (".../root0/nvdimm-bridge0/ndbus1/
	 * region4") holds regions of CXL regions: an NFIT one is not looked up. */
	r = path_printf(path, sizeof(path), ND_DIR "/%s", nd_region);
	if (r >= 0)
		r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, path, target, sizeof(target));
	if (r < 0)
		return remember_unreadable(ctx, r, ret);
	if (!strstr(target, "/nvdimm-bridge"))
		return 0;

	r = sysfs_dir_read(ctx, CXL_DIR, "region", PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (sysfs_absent(ctx, r))
		return 0; /* no CXL bus */
	if (r < 0)
		return remember_unreadable(ctx, r, ret);
	if (dir.n == 0)
		return 0;

	/* The nvdimm region of a CXL pmem region hangs below the CXL root's nvdimm bridge, not
	 * below the CXL region: its physical range is what ties the two. */
	r = read_range(ctx, ND_DIR, nd_region, false, &start, &size);
	if (r < 0)
		return remember_unreadable(ctx, r, ret);

	for (size_t i = 0; i < dir.n; i++) {
		/* One being torn down cannot be the region; another may still be. */
		r = region_is(ctx, dir.names[i], start, size);
		if (r < 0)
			r = remember_unreadable(ctx, r, &skipped); /* 0, or -ENOMEM */
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (strlen(dir.names[i]) >= sizeof(o.region)) {
			r = log_debug_errno(ctx, -ENAMETOOLONG, "%s: CXL region name too long", dir.names[i]);
			return remember_unreadable(ctx, r, ret);
		}
		strcpy(o.region, dir.names[i]);
		r = read_serials(ctx, o.region, &o);
		if (r < 0)
			return remember_unreadable(ctx, r, ret);
		*ret = o;
		return 1;
	}
	*ret = skipped;
	return 0;
}

int pmemram_cxl_region_origin_read(struct pmemram_ctx *ctx, const char *cxl_region, struct pmemram_cxl_origin *ret)
{
	struct pmemram_cxl_origin o = {};
	int r;

	if (!ctx || !cxl_region || !ret)
		return -EINVAL;
	*ret = o;
	if (strlen(cxl_region) >= sizeof(o.region)) {
		r = log_debug_errno(ctx, -ENAMETOOLONG, "%s: CXL region name too long", cxl_region);
		return remember_unreadable(ctx, r, ret);
	}
	strcpy(o.region, cxl_region);
	r = read_serials(ctx, o.region, &o);
	if (r < 0)
		return remember_unreadable(ctx, r, ret);
	*ret = o;
	return 1;
}

/* ---- memdevs and regions, for create-region = pmem ---------------------------------------- */

/* Reads "dir/attr" as a string into buf; "" when the attribute is absent. */
static int read_optional(struct pmemram_ctx *ctx, const char *dir, const char *attr, char *buf, size_t size)
{
	char path[128];
	int r;

	buf[0] = '\0';
	r = sysfs_read_string(ctx, SYSFS_JOIN(path, dir, attr), buf, size);
	if (sysfs_absent(ctx, r)) {
		buf[0] = '\0';
		return 0;
	}
	return r < 0 ? r : 0;
}

/* The endpoint port whose uport is the memdev, "" when there is none (cxl_mem not bound). */
static int memdev_endpoint(struct pmemram_ctx *ctx, struct pmemram_observed_memdev *m)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	char path[128], name[64];
	int r;

	r = sysfs_dir_read(ctx, CXL_DIR, "endpoint", PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (sysfs_absent(ctx, r))
		return 0;
	for (size_t i = 0; r >= 0 && i < dir.n; i++) {
		r = path_printf(path, sizeof(path), CXL_DIR "/%s/uport", dir.names[i]);
		if (r >= 0)
			r = sysfs_read_link_name(ctx, path, name, sizeof(name));
		if (sysfs_absent(ctx, r))
			r = 0;
		else if (r >= 0 && streq(name, m->name) && strlen(dir.names[i]) < sizeof(m->endpoint))
			strcpy(m->endpoint, dir.names[i]);
	}
	return r < 0 ? r : 0;
}

/* The endpoint's decoders (decoderE.N for endpointE): the one in a region, else the first that
 * holds DPA. */
static int memdev_decoders(struct pmemram_ctx *ctx, struct pmemram_observed_memdev *m)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	char prefix[48], dir_path[96], path[128], region[32];
	uint64_t dpa;
	int r;

	r = path_printf(prefix, sizeof(prefix), "decoder%s.", m->endpoint + strlen("endpoint"));
	if (r >= 0)
		r = sysfs_dir_read(ctx, CXL_DIR, prefix, PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (sysfs_absent(ctx, r))
		return 0;
	for (size_t i = 0; r >= 0 && i < dir.n && !m->region[0]; i++) {
		r = path_printf(dir_path, sizeof(dir_path), CXL_DIR "/%s", dir.names[i]);
		if (r >= 0)
			r = read_optional(ctx, dir_path, "region", region, sizeof(region));
		if (r >= 0)
			r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir_path, "dpa_size"), &dpa);
		if (sysfs_absent(ctx, r)) {
			r = 0;
			continue;
		}
		if (r < 0 || (!region[0] && (dpa == 0 || m->decoder[0])) || strlen(dir.names[i]) >= sizeof(m->decoder))
			continue;
		strcpy(m->decoder, dir.names[i]);
		m->dpa_size = dpa;
		if (region[0] && strlen(region) < sizeof(m->region))
			strcpy(m->region, region);
	}
	return r;
}

/* Whether root decoder dec takes memory of one way through dport: cap_attr ("cap_pmem", "cap_ram")
 * 1, interleave_ways 1 and target_list that dport's id alone. */
static int root_decoder_fits(struct pmemram_ctx *ctx, const char *dec, const char *cap_attr, const char *dport_id)
{
	char dir[64], cap[8], ways[8], targets[64];
	int r;

	r = path_printf(dir, sizeof(dir), CXL_DIR "/%s", dec);
	if (r >= 0)
		r = read_optional(ctx, dir, cap_attr, cap, sizeof(cap));
	if (r >= 0)
		r = read_optional(ctx, dir, "interleave_ways", ways, sizeof(ways));
	if (r >= 0)
		r = read_optional(ctx, dir, "target_list", targets, sizeof(targets));
	if (r < 0)
		return r;
	return streq(cap, "1") && streq(ways, "1") && streq(targets, dport_id);
}

/* "root0" and "port1" from an endpoint's link ".../root0/port1/endpoint2": its root port and its
 * host bridge's port, the one right below the root; -ENOENT when the path has no such two. */
static int endpoint_ports(const char *target, char *root, size_t root_size, char *port, size_t port_size)
{
	const char *p = strstr(target, "/root"), *q;

	if (!p)
		return -ENOENT;
	p++;
	q = strchr(p, '/');
	if (!q || (size_t)(q - p) >= root_size || strncmp(q + 1, "port", 4) != 0)
		return -ENOENT;
	memcpy(root, p, (size_t)(q - p));
	root[q - p] = '\0';
	p = q + 1;
	q = strchr(p, '/');
	if (!q || (size_t)(q - p) >= port_size)
		return -ENOENT;
	memcpy(port, p, (size_t)(q - p));
	port[q - p] = '\0';
	return 0;
}

#define CXL_ROOT_REGIONS_MAX 256

/* The largest extent of root decoder dec's address space (start, size) that the regions below it
 * leave free, its start aligned up to the 256 MiB the kernel aligns a region's base to: what a
 * region made there can have at most. */
static int root_decoder_free(struct pmemram_ctx *ctx, const char *dec, uint64_t *ret)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir regions = {};
	uint64_t used[CXL_ROOT_REGIONS_MAX][2], start, size, at, end, best = 0;
	char dir[64], path[96];
	size_t n = 0;
	int r;

	r = path_printf(dir, sizeof(dir), CXL_DIR "/%s", dec);
	if (r >= 0)
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "start"), &start);
	if (r >= 0)
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "size"), &size);
	if (r >= 0)
		r = sysfs_dir_read(ctx, dir, "region", CXL_ROOT_REGIONS_MAX, &regions);
	if (r < 0)
		return r;
	/* Each region's [resource, resource + size), in order of resource; one without space
	 * shows resource 0xffffffffffffffff and size 0. */
	for (size_t i = 0; i < regions.n; i++) {
		uint64_t s, sz;
		size_t k;

		r = read_range(ctx, CXL_DIR, regions.names[i], true, &s, &sz);
		if (r < 0)
			return r;
		if (sz == 0 || s == UINT64_MAX)
			continue;
		for (k = n++; k > 0 && used[k - 1][0] > s; k--) {
			used[k][0] = used[k - 1][0];
			used[k][1] = used[k - 1][1];
		}
		used[k][0] = s;
		used[k][1] = s + sz;
	}
	at = start;
	end = start + size;
	for (size_t i = 0; i <= n; i++) {
		uint64_t limit = i < n ? used[i][0] : end, base;

		base = (at + PMEMRAM_CXL_REGION_ALIGN - 1) / PMEMRAM_CXL_REGION_ALIGN * PMEMRAM_CXL_REGION_ALIGN;
		if (limit > base && limit - base > best)
			best = limit - base;
		if (i < n && used[i][1] > at)
			at = used[i][1];
	}
	*ret = best;
	return 0;
}

/* The root decoders for a pmem and for a RAM region of this memdev alone: the endpoint's host
 * bridge port (the port below the root, "port1") has as uport the host bridge's firmware device
 * ("ACPI0016:00"), which one of the root's dportN links to; N is what a root decoder's target_list
 * names.  "" when the path or the links are not so (left to the planner's refusal). */
static int memdev_root_decoder(struct pmemram_ctx *ctx, struct pmemram_observed_memdev *m)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dports = {}, decoders = {};
	char path[128], target[PATH_MAX], root[32], port[32], bridge[64], name[64], prefix[48];
	int r;

	r = path_printf(path, sizeof(path), CXL_DIR "/%s", m->endpoint);
	if (r >= 0)
		r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, path, target, sizeof(target));
	if (r < 0)
		return r;
	if (endpoint_ports(target, root, sizeof(root), port, sizeof(port)) < 0)
		return 0;
	r = path_printf(path, sizeof(path), CXL_DIR "/%s/uport", port);
	if (r >= 0)
		r = sysfs_read_link_name(ctx, path, bridge, sizeof(bridge));
	if (r >= 0)
		r = path_printf(path, sizeof(path), CXL_DIR "/%s", root);
	if (r >= 0)
		r = sysfs_dir_read(ctx, path, "dport", PMEMRAM_MAX_DAX_DEVICES, &dports);
	if (r >= 0)
		r = path_printf(prefix, sizeof(prefix), "decoder%s.", root + strlen("root"));
	if (r >= 0)
		r = sysfs_dir_read(ctx, CXL_DIR, prefix, PMEMRAM_MAX_DAX_DEVICES, &decoders);
	if (r < 0)
		return r;
	for (size_t d = 0; r >= 0 && d < dports.n && !(m->root_decoder[0] && m->ram_root_decoder[0]); d++) {
		r = path_printf(path, sizeof(path), CXL_DIR "/%s/%s", root, dports.names[d]);
		if (r >= 0)
			r = sysfs_read_link_name(ctx, path, name, sizeof(name));
		if (r < 0 || !streq(name, bridge))
			continue;
		for (size_t k = 0; r >= 0 && k < decoders.n; k++) {
			const char *dport_id = dports.names[d] + strlen("dport");

			if (strlen(decoders.names[k]) >= sizeof(m->root_decoder))
				continue;
			r = m->root_decoder[0] ? 0 : root_decoder_fits(ctx, decoders.names[k], "cap_pmem", dport_id);
			if (r > 0)
				strcpy(m->root_decoder, decoders.names[k]);
			if (r >= 0 && !m->ram_root_decoder[0])
				r = root_decoder_fits(ctx, decoders.names[k], "cap_ram", dport_id);
			if (r > 0)
				strcpy(m->ram_root_decoder, decoders.names[k]);
		}
	}
	if (r >= 0 && m->root_decoder[0])
		r = root_decoder_free(ctx, m->root_decoder, &m->root_free);
	if (r >= 0 && m->ram_root_decoder[0])
		r = root_decoder_free(ctx, m->ram_root_decoder, &m->ram_root_free);
	return r < 0 ? r : 0;
}

static int read_memdev(struct pmemram_ctx *ctx, const char *name, struct pmemram_observed_memdev *m)
{
	char dir[64], path[96];
	int r;

	r = path_printf(dir, sizeof(dir), CXL_DIR "/%s", name);
	if (r >= 0) {
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "serial"), &m->serial);
		m->serial_unreadable = r < 0;
		if (r < 0)
			m->serial = 0;
	}
	if (r >= 0)
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "pmem/size"), &m->pmem_size);
	if (r >= 0) {
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "ram/size"), &m->ram_size);
		if (sysfs_absent(ctx, r))
			r = 0; /* none read as none: the planner refuses a RAM region of 0 bytes */
	}
	if (r >= 0)
		r = memdev_endpoint(ctx, m);
	if (r >= 0 && m->endpoint[0])
		r = memdev_decoders(ctx, m);
	if (r >= 0 && m->endpoint[0])
		r = memdev_root_decoder(ctx, m);
	return r;
}

static int read_cxl_region(struct pmemram_ctx *ctx, const char *name, struct pmemram_observed_cxl_region *c)
{
	char dir[64], path[96], target[PATH_MAX], commit[8], mode[16], uuid[SYSFS_ATTR_MAX], *slash;
	struct pmemram_cxl_origin targets = {};
	int r;

	r = path_printf(dir, sizeof(dir), CXL_DIR "/%s", name);
	if (r >= 0)
		r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, dir, target, sizeof(target));
	if (r < 0)
		return r;
	/* ".../root0/decoder0.0/region0": the root decoder is the last directory but one. */
	slash = strrchr(target, '/');
	if (slash) {
		const char *dec;

		*slash = '\0';
		dec = strrchr(target, '/');
		dec = dec ? dec + 1 : target;
		if (strlen(dec) < sizeof(c->root_decoder))
			strcpy(c->root_decoder, dec);
	}
	r = read_optional(ctx, dir, "uuid", uuid, sizeof(uuid));
	if (r >= 0 && strlen(uuid) < sizeof(c->uuid) && !streq(uuid, "00000000-0000-0000-0000-000000000000"))
		strcpy(c->uuid, uuid);
	if (r >= 0)
		r = read_optional(ctx, dir, "commit", commit, sizeof(commit));
	if (r >= 0)
		r = read_optional(ctx, dir, "mode", mode, sizeof(mode));
	if (r >= 0)
		r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "size"), &c->size);
	if (r >= 0)
		r = read_serials(ctx, name, &targets);
	if (r < 0)
		return r;
	c->n_targets = targets.n_serials;
	c->target_serial = targets.serials[0];
	c->committed = streq(commit, "1");
	c->ram = streq(mode, "ram");
	r = sysfs_exists(ctx, SYSFS_JOIN(path, dir, "driver"));
	c->enabled = r > 0;
	return r < 0 ? r : 0;
}

#define CXL_NAME_MAX 32
_Static_assert(offsetof(struct pmemram_observed_memdev, name) == 0 &&
		       sizeof(((struct pmemram_observed_memdev *)NULL)->name) == CXL_NAME_MAX,
	       "cxl_list_read() writes the name first");
_Static_assert(offsetof(struct pmemram_observed_cxl_region, name) == 0 &&
		       sizeof(((struct pmemram_observed_cxl_region *)NULL)->name) == CXL_NAME_MAX,
	       "cxl_list_read() writes the name first");

/* Each device of the CXL bus named prefix<digit>... read by read_one into a zeroed element of
 * elem_size whose first member is its name: kept when it returns 1, left out at 0; only -ENOMEM
 * fails.  None without the CXL bus. */
static int cxl_list_read(struct pmemram_ctx *ctx, const char *prefix, size_t elem_size,
			 int (*read_one)(struct pmemram_ctx *ctx, const char *name, void *elem), void **ret,
			 size_t *ret_n)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	_cleanup_(freep) char *list = NULL;
	size_t n = 0;
	int r;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;
	*ret = NULL;
	*ret_n = 0;
	r = sysfs_dir_read(ctx, CXL_DIR, prefix, PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (sysfs_absent(ctx, r)) {
		pmemram_ctx_clear_error(ctx);
		return 0;
	}
	if (r < 0 || dir.n == 0)
		return r;
	list = calloc(dir.n, elem_size);
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < dir.n; i++) {
		char *elem = list + n * elem_size;

		if (strlen(dir.names[i]) >= CXL_NAME_MAX)
			continue;
		strcpy(elem, dir.names[i]);
		r = read_one(ctx, dir.names[i], elem);
		if (r < 0)
			return r;
		if (r > 0)
			n++;
		else
			memset(elem, 0, elem_size);
	}
	*ret = TAKE_PTR(list);
	*ret_n = n;
	return 0;
}

/* A memdev not fully read is kept, saying what could not be read (best effort, as for origins). */
static int memdev_read_one(struct pmemram_ctx *ctx, const char *name, void *elem)
{
	struct pmemram_observed_memdev *m = elem;
	const char *path;
	int r = read_memdev(ctx, name, m);

	if (r >= 0 || r == -ENOMEM)
		return r < 0 ? r : 1;
	path = pmemram_ctx_get_error_path(ctx);
	m->error = r;
	(void)snprintf(m->error_path, sizeof(m->error_path), "%s", path ? path : CXL_DIR);
	log_debug(ctx, "CXL memdev %s unreadable: %s: %s", name, m->error_path, strerror(-r));
	pmemram_ctx_clear_error(ctx);
	return 1;
}

/* A region not readable is going away: not one to finish. */
static int cxl_region_read_one(struct pmemram_ctx *ctx, const char *name, void *elem)
{
	int r = read_cxl_region(ctx, name, elem);

	if (r >= 0 || r == -ENOMEM)
		return r < 0 ? r : 1;
	log_debug(ctx, "CXL region %s unreadable: %s", name, strerror(-r));
	pmemram_ctx_clear_error(ctx);
	return 0;
}

int pmemram_cxl_memdevs_read(struct pmemram_ctx *ctx, struct pmemram_observed_memdev **ret, size_t *ret_n)
{
	return cxl_list_read(ctx, "mem", sizeof(**ret), memdev_read_one, (void **)ret, ret_n);
}

int pmemram_cxl_regions_read(struct pmemram_ctx *ctx, struct pmemram_observed_cxl_region **ret, size_t *ret_n)
{
	return cxl_list_read(ctx, "region", sizeof(**ret), cxl_region_read_one, (void **)ret, ret_n);
}

/* "  START-END : NAME" of /proc/iomem: depth (two spaces a level), the range and the name. */
static bool iomem_parse(const char *line, unsigned *ret_depth, uint64_t *ret_start, uint64_t *ret_end,
			const char **ret_name)
{
	unsigned depth = 0;
	int used = 0;

	while (line[depth] == ' ')
		depth++;
	if (depth % 2 || sscanf(line + depth, "%" SCNx64 "-%" SCNx64 " : %n", ret_start, ret_end, &used) != 2 ||
	    used == 0)
		return false;
	*ret_depth = depth / 2;
	*ret_name = line + depth + used;
	return true;
}

int pmemram_cxl_plain_ram_read(struct pmemram_ctx *ctx, struct pmemram_cxl_plain_ram **ret, size_t *ret_n)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) char *line = NULL;
	_cleanup_(freep) struct pmemram_cxl_plain_ram *found = NULL;
	char window[32] = "";
	unsigned window_depth = 0;
	size_t allocated = 0, n = 0;
	ssize_t len;
	int r;

	if (!ctx || !ret || !ret_n)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, "iomem", &f);
	if (r < 0)
		return r;
	while ((len = getline(&line, &allocated, f)) > 0) {
		struct pmemram_cxl_plain_ram *more;
		uint64_t start, end;
		const char *name;
		unsigned depth;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!iomem_parse(line, &depth, &start, &end, &name))
			continue;
		if (window[0] && depth <= window_depth)
			window[0] = '\0';
		if (strncmp(name, "CXL Window ", strlen("CXL Window ")) == 0) {
			snprintf(window, sizeof(window), "%s", name);
			window_depth = depth;
			continue;
		}
		/* Only a direct child: kmem's is "System RAM (kmem)" below a region and a dax device */
		if (!window[0] || depth != window_depth + 1 || strcmp(name, "System RAM") != 0)
			continue;
		more = reallocarray(found, n + 1, sizeof(*found));
		if (!more)
			return -ENOMEM;
		found = more;
		found[n] = (struct pmemram_cxl_plain_ram){ .start = start, .end = end };
		snprintf(found[n].window, sizeof(found[n].window), "%s", window);
		n++;
	}
	if (ferror(f)) {
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, "iomem");
		return -EIO;
	}
	*ret = TAKE_PTR(found);
	*ret_n = n;
	return 0;
}
