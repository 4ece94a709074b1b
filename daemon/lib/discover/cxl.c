/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CXL side of an nvdimm region: the CXL pmem region of its range and that region's memdevs' serials. */
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
	uint64_t start, size;
	int r;

	if (!ctx || !nd_region || !ret)
		return -EINVAL;
	*ret = o;

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
