/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CXL region of a create-region claim (pmem or RAM), made or finished through libcxl: see pmemram-apply.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

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
 * size of mode's capacity outside any region (a creation cut short after allocating it), else the
 * first free one (the kernel hands out an endpoint's decoders in order). */
static struct cxl_decoder *endpoint_decoder(const struct cxl_api *api, struct cxl_port *port, struct cxl_region *region,
					    uint64_t size, enum cxl_decoder_mode mode)
{
	struct cxl_decoder *allocated = NULL, *free_one = NULL;

	for (struct cxl_decoder *d = api->decoder_get_first(port); d; d = api->decoder_get_next(d)) {
		struct cxl_region *in = api->decoder_get_region(d);
		unsigned long long dpa = api->decoder_get_dpa_size(d);

		if (in == region)
			return d;
		if (in)
			continue;
		if (!allocated && dpa == size && api->decoder_get_mode(d) == mode)
			allocated = d;
		if (!free_one && dpa == 0)
			free_one = d;
	}
	return allocated ? allocated : free_one;
}

/* ---- the record of a region being made -------------------------------------------------------
 * Between making a region and giving it its UUID, a run killed leaves a region nothing tells
 * pmemram's, holding address space.  The region's name is known before it is made (the root
 * decoder's create_pmem_region reads the next one), so it is recorded first, in
 * dir/PMEMRAM_CXL_RECORD_PREFIX<serial>: "decoder0.0 region3". */

static int record_path(const char *dir, uint64_t serial, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/" PMEMRAM_CXL_RECORD_PREFIX "%#" PRIx64, dir, serial);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The region the record names on root decoder, in decoder and region ("" each when none). */
static void record_read(const char *path, char decoder[32], char region[32])
{
	char line[80] = "";
	ssize_t n;
	int fd;

	decoder[0] = region[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	n = read(fd, line, sizeof(line) - 1);
	(void)close(fd);
	if (n <= 0)
		return;
	line[n] = '\0';
	if (sscanf(line, "%31s %31s", decoder, region) != 2)
		decoder[0] = region[0] = '\0';
}

static int record_write(const char *path, const char *decoder, const char *region)
{
	char line[80];
	int n = snprintf(line, sizeof(line), "%s %s\n", decoder, region);

	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	return file_write_atomic(path, line, (size_t)n, 0644, 0);
}

/* Whether region is a pmem region (ram false) or a RAM one (ram true).  libcxl says so from LIBCXL_5
 * on (cxl_region_get_mode()); before it (Debian 12's libcxl 76, which makes no RAM regions), sysfs
 * does for pmem: the kernel shows a region's uuid attribute writable only on a pmem region (6.1
 * hides it on others, later kernels make it read-only). */
static bool region_is(struct pmemram_ctx *ctx, const struct cxl_api *api, struct cxl_region *region, bool ram)
{
	char path[96];
	struct stat st;
	int r;

	if (ram)
		return api->region_get_mode && api->region_get_mode(region) == CXL_DECODER_MODE_RAM;
	if (api->region_get_mode)
		return api->region_get_mode(region) == CXL_DECODER_MODE_PMEM;
	if (path_printf(path, sizeof(path), "bus/cxl/devices/%s/uuid", api->region_get_devname(region)) < 0)
		return false;
	r = root_stat(ctx, PMEMRAM_ROOT_SYSFS, path, &st);
	if (r < 0) {
		(void)sysfs_absent(ctx, r);
		return false;
	}
	return (st.st_mode & S_IWUSR) != 0;
}

/* The region a run killed after making it and before giving it its UUID left, as the record names
 * it: on root, in pmem mode, with no UUID, interleave ways, size or target yet; NULL when there is
 * none such (a record naming another is dropped: that run made no region, or someone else has it
 * now, and may be setting it up).  A RAM region has no UUID: its record stands until its target is
 * set, and it is adopted in RAM mode without a target, whatever its geometry. */
static struct cxl_region *record_adopt(struct pmemram_ctx *ctx, const struct cxl_api *api, struct cxl_decoder *root,
				       const char *path, bool ram)
{
	char decoder[32], name[32];
	unsigned char u[16];

	record_read(path, decoder, name);
	if (!name[0] || !streq(decoder, api->decoder_get_devname(root)))
		return NULL;
	for (struct cxl_region *region = api->region_get_first(root); region; region = api->region_get_next(region)) {
		if (!streq_ptr(api->region_get_devname(region), name))
			continue;
		if (ram)
			return region_is(ctx, api, region, true) && !api->region_get_target_decoder(region, 0) ? region
													       : NULL;
		api->region_get_uuid(region, u);
		if (uuid_is_null(u) && region_is(ctx, api, region, false) &&
		    api->region_get_interleave_ways(region) == 0 && api->region_get_size(region) == 0 &&
		    !api->region_get_target_decoder(region, 0))
			return region;
	}
	return NULL;
}

/* A new pmem (or RAM) region on root in *ret, recorded (when record) under the name the kernel gives
 * it next.  When the kernel may have made it but libcxl returned none, the record is kept for the
 * next run to adopt or drop; a failure before that leaves none. */
static int region_make(struct pmemram_ctx *ctx, const struct cxl_api *api, struct cxl_decoder *root, bool ram,
		       const char *record, struct cxl_region **ret, char *why, size_t size)
{
	const char *attr = ram ? "create_ram_region" : "create_pmem_region";
	char path[96], next[32] = "";
	struct cxl_region *region;
	const char *made;
	int r;

	r = path_printf(path, sizeof(path), "bus/cxl/devices/%s/%s", api->decoder_get_devname(root), attr);
	if (r < 0)
		return step_fail(why, size, r, "%s: no %s path", api->decoder_get_devname(root), attr);
	if (record) {
		r = sysfs_read_string(ctx, path, next, sizeof(next));
		if (r < 0) {
			(void)unlink(record);
			return step_fail(why, size, r, "%s: cannot read the next region's name", path);
		}
		r = record_write(record, api->decoder_get_devname(root), next);
		if (r < 0) {
			(void)unlink(record);
			return step_fail(why, size, r, "%s: cannot record the region about to be made", record);
		}
	}
	region = ram ? api->decoder_create_ram_region(root) : api->decoder_create_pmem_region(root);
	if (!region)
		return step_fail(why, size, -EIO, "%s: cannot create a %s region%s", path, ram ? "RAM" : "pmem",
				 record ? " (its record is kept)" : "");
	/* Someone else took that name first: the record follows the region made. */
	made = api->region_get_devname(region);
	if (record && made && !streq(made, next))
		(void)record_write(record, api->decoder_get_devname(root), made);
	*ret = region;
	return 0;
}

/* Step 1 of a RAM region, which has no UUID to be found by: the one the memdev's endpoint decoder
 * is in (a RAM region of one way: the claim's, whoever made it), else the one the record names (a
 * run cut short before setting its target), else a new one. */
static int ram_region(struct pmemram_ctx *ctx, const struct cxl_api *api, struct cxl_decoder *root,
		      struct cxl_port *port, const struct pmemram_action *a, const char *record,
		      struct cxl_region **ret, char *why, size_t size)
{
	struct cxl_region *region = NULL;

	for (struct cxl_decoder *d = api->decoder_get_first(port); d && !region; d = api->decoder_get_next(d))
		region = api->decoder_get_region(d);
	if (region) {
		if (!region_is(ctx, api, region, true) || api->region_get_interleave_ways(region) > 1)
			return step_fail(why, size, -ESTALE, "%s is in CXL region %s, not a RAM region of its own",
					 a->device, api->region_get_devname(region));
		*ret = region;
		return 0;
	}
	region = record ? record_adopt(ctx, api, root, record, true) : NULL;
	if (region) {
		log_debug(ctx, "%s: adopting %s, made by a run cut short before setting its target", a->device,
			  api->region_get_devname(region));
		*ret = region;
		return 0;
	}
	return region_make(ctx, api, root, true, record, ret, why, size);
}

static int create(struct pmemram_ctx *ctx, const struct cxl_api *api, struct cxl_ctx *cctx,
		  const struct pmemram_action *a, const char *record_dir, char *why, size_t size)
{
	char record_buf[PATH_MAX];
	const char *record = NULL;
	struct cxl_memdev *memdev = NULL;
	struct cxl_endpoint *endpoint;
	struct cxl_decoder *root, *ep;
	struct cxl_region *region = NULL;
	enum cxl_decoder_mode mode = a->ram ? CXL_DECODER_MODE_RAM : CXL_DECODER_MODE_PMEM;
	uint8_t want[16];
	bool adopted;
	unsigned n = 0;
	int r;

	if (a->ram && !api->decoder_create_ram_region)
		return step_fail(why, size, -EOPNOTSUPP,
				 "this libcxl has no cxl_decoder_create_ram_region(): it makes no RAM regions");

	/* Two memdevs with the serial would get regions of one UUID: make none (the planner refuses
	 * them too, but one may have appeared since). */
	for (struct cxl_memdev *m = api->memdev_get_first(cctx); m; m = api->memdev_get_next(m)) {
		if (api->memdev_get_serial(m) == a->serial)
			n++;
		if (!memdev && streq_ptr(api->memdev_get_devname(m), a->device))
			memdev = m;
	}
	if (n > 1)
		return step_fail(why, size, -ESTALE,
				 "%u memdevs have serial %#" PRIx64 "; which is the claim's cannot be told", n,
				 a->serial);
	if (!memdev)
		return step_fail(why, size, -ENODEV, "libcxl does not list %s", a->device);
	/* The planner saw the claimed serial under that name; memdevs renumber when re-probed. */
	if (api->memdev_get_serial(memdev) != a->serial)
		return step_fail(why, size, -ESTALE, "%s has serial %#llx now, not %#" PRIx64, a->device,
				 api->memdev_get_serial(memdev), a->serial);
	endpoint = api->memdev_get_endpoint(memdev);
	if (!endpoint)
		return step_fail(why, size, -ENODEV, "%s has no endpoint port", a->device);
	root = api->decoder_get_by_name(cctx, a->decoder);
	if (!root)
		return step_fail(why, size, -ENODEV, "libcxl does not list root decoder %s", a->decoder);
	pmemram_cxl_region_uuid(a->serial, want);

	if (record_dir) {
		r = record_path(record_dir, a->serial, record_buf, sizeof(record_buf));
		if (r < 0)
			return step_fail(why, size, r, "%s: no record path", record_dir);
		record = record_buf;
	}

	/* 1: the region, its UUID first: that is how the next run finds one cut short.  One this call
	 * made is deleted when it cannot be named; one adopted is left as it is. */
	if (a->ram) {
		r = ram_region(ctx, api, root, api->endpoint_get_port(endpoint), a, record, &region, why, size);
		if (r < 0)
			return r;
	} else
		region = region_by_uuid(api, root, want);
	if (!region) {
		region = record ? record_adopt(ctx, api, root, record, false) : NULL;
		adopted = region != NULL;
		if (adopted)
			log_debug(ctx, "%s: adopting %s, made by a run cut short before giving it its UUID", a->device,
				  api->region_get_devname(region));
		else {
			r = region_make(ctx, api, root, false, record, &region, why, size);
			if (r < 0)
				return r;
		}
		r = api->region_set_uuid(region, want);
		if (r < 0 && adopted) {
			/* It may be someone else's after all: left as it is, and no longer ours. */
			(void)unlink(record);
			return step_fail(why, size, r, "%s: cannot set its UUID (adopted, so left as it is)",
					 api->region_get_devname(region));
		}
		if (r < 0) {
			char name[32];
			int k;

			(void)snprintf(name, sizeof(name), "%s", api->region_get_devname(region));
			k = api->region_delete(region); /* frees it: only one this call made */

			if (k >= 0 && record)
				(void)unlink(record);
			return step_fail(why, size, r, "%s: cannot set its UUID (%s)", name,
					 k < 0 ? "nor delete it" : "deleted it");
		}
	}
	if (record && !a->ram)
		(void)unlink(record);
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
		return step_fail(why, size, -ESTALE, "%s has %s's %s but %s as target, not one of %s's",
				 api->region_get_devname(region), a->device, a->ram ? "decoder" : "UUID",
				 api->decoder_get_devname(ep), a->device);
	if (!ep) {
		ep = endpoint_decoder(api, api->endpoint_get_port(endpoint), region, a->size, mode);
		if (!ep)
			return step_fail(why, size, -EBUSY, "%s: no free endpoint decoder", a->device);
		if (api->decoder_get_dpa_size(ep) == 0) {
			r = api->decoder_set_mode(ep, mode);
			if (r >= 0)
				r = api->decoder_set_dpa_size(ep, a->size);
			if (r < 0)
				return step_fail(why, size, r, "%s: cannot allocate %s's %s capacity",
						 api->decoder_get_devname(ep), a->device, a->ram ? "RAM" : "pmem");
		}
		r = api->region_set_target(region, 0, ep);
		if (r < 0)
			return step_fail(why, size, r, "%s: cannot make %s its target", api->region_get_devname(region),
					 api->decoder_get_devname(ep));
	}
	/* A RAM region is the memdev's from here on: its decoder is in it. */
	if (record && a->ram)
		(void)unlink(record);
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

int pmemram_cxl_create_region(struct pmemram_ctx *ctx, void *userdata, const struct pmemram_action *a,
			      const char *record_dir, char *why, size_t why_size)
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
	r = create(ctx, api, cctx, a, record_dir, why, why_size);
	api->unref(cctx);
	log_ctx = outer;
	return r;
}
