/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the CXL region maker: pmemram_cxl_create_region() against a fake libcxl that models
 * one memdev, its endpoint's two decoders, a root decoder and its regions, and logs each change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "cxl-load.h"
#include "fake-sysfs.h"
#include "lib-load.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

#define MiB (1ULL << 20)

/* ---- the fake library -------------------------------------------------------------------- */

struct cxl_region {
	char name[16];
	unsigned char uuid[16];
	enum cxl_decoder_mode mode;
	unsigned granularity, ways;
	unsigned long long size;
	struct cxl_decoder *target;
	bool committed, enabled, used;
};

struct cxl_decoder {
	char name[16];
	enum cxl_decoder_mode mode;
	unsigned long long dpa_size;
	struct cxl_region *region;
};

struct cxl_port {
	struct cxl_decoder decoders[2];
};

struct cxl_endpoint {
	struct cxl_port port;
};

struct cxl_memdev {
	struct cxl_endpoint endpoint;
	unsigned long long serial;
};

struct cxl_ctx {
	struct cxl_memdev memdev;
	struct cxl_memdev twin; /* mem1, listed after mem0 when twin_listed */
	bool twin_listed;
	struct cxl_decoder root;
	struct cxl_decoder other; /* an endpoint decoder of another memdev */
	struct cxl_region regions[3];
	char log[512];	       /* the changes, "create region0; uuid region0; ..." */
	const char *fail_step; /* a change that fails with -EIO */
	bool kill_at_create;   /* the process is killed right after the kernel made the region */
};

static struct cxl_ctx world;
static char *sysroot; /* the fake sysfs, with decoder0.0/create_pmem_region and create_ram_region */
#define REGION0_UUID "bus/cxl/devices/region0/uuid"

/* chmod() a file of the fake sysfs. */
static int chmod_below(const char *path, mode_t mode)
{
	char full[PATH_MAX];

	(void)snprintf(full, sizeof(full), "%s/%s", sysroot, path);
	return chmod(full, mode);
}
static char record_dir[PATH_MAX];
static jmp_buf killed;

/* The root decoder's create_pmem_region and create_ram_region, as the kernel keeps them: the name
 * the next region gets, the lowest free id. */
static void next_sync(void)
{
	for (size_t i = 0; i < 3; i++)
		if (!world.regions[i].used) {
			assert_int_equal(fake_sysfs_write(sysroot, "bus/cxl/devices/decoder0.0/create_pmem_region",
							  "region%zu\n", i),
					 0);
			assert_int_equal(fake_sysfs_write(sysroot, "bus/cxl/devices/decoder0.0/create_ram_region",
							  "region%zu\n", i),
					 0);
			return;
		}
}

static int change(const char *step, const char *name)
{
	size_t n = strlen(world.log);

	snprintf(world.log + n, sizeof(world.log) - n, "%s%s %s", n ? "; " : "", step, name);
	return world.fail_step && strcmp(world.fail_step, step) == 0 ? -EIO : 0;
}

static int f_new(struct cxl_ctx **ret)
{
	*ret = &world;
	return 0;
}
static void f_unref(struct cxl_ctx *c)
{
	(void)c;
}
static void f_set_log_fn(struct cxl_ctx *c,
			 void (*fn)(struct cxl_ctx *, int, const char *, int, const char *, const char *, va_list))
{
	(void)c;
	(void)fn;
}
static void f_set_log_priority(struct cxl_ctx *c, int p)
{
	(void)c;
	(void)p;
}
static struct cxl_memdev *f_memdev_get_first(struct cxl_ctx *c)
{
	return &c->memdev;
}
static struct cxl_memdev *f_memdev_get_next(struct cxl_memdev *m)
{
	return m == &world.memdev && world.twin_listed ? &world.twin : NULL;
}
static const char *f_memdev_get_devname(struct cxl_memdev *m)
{
	return m == &world.memdev ? "mem0" : "mem1";
}
static struct cxl_endpoint *f_memdev_get_endpoint(struct cxl_memdev *m)
{
	return &m->endpoint;
}
static unsigned long long f_memdev_get_serial(struct cxl_memdev *m)
{
	return m->serial;
}
static struct cxl_memdev *f_decoder_get_memdev(struct cxl_decoder *d)
{
	static struct cxl_memdev other;

	if (d == &world.other)
		return &other;
	return d == &world.memdev.endpoint.port.decoders[0] || d == &world.memdev.endpoint.port.decoders[1]
		       ? &world.memdev
		       : NULL;
}
static struct cxl_port *f_endpoint_get_port(struct cxl_endpoint *e)
{
	return &e->port;
}
static struct cxl_decoder *f_decoder_get_by_name(struct cxl_ctx *c, const char *name)
{
	return strcmp(name, c->root.name) == 0 ? &c->root : NULL;
}
static struct cxl_decoder *f_decoder_get_first(struct cxl_port *p)
{
	return &p->decoders[0];
}
static struct cxl_decoder *f_decoder_get_next(struct cxl_decoder *d)
{
	return d == &world.memdev.endpoint.port.decoders[0] ? &world.memdev.endpoint.port.decoders[1] : NULL;
}
static const char *f_decoder_get_devname(struct cxl_decoder *d)
{
	return d->name;
}
static struct cxl_region *f_decoder_get_region(struct cxl_decoder *d)
{
	return d->region;
}
static unsigned long long f_decoder_get_dpa_size(struct cxl_decoder *d)
{
	return d->dpa_size;
}
static enum cxl_decoder_mode f_decoder_get_mode(struct cxl_decoder *d)
{
	return d->mode;
}
static int f_decoder_set_mode(struct cxl_decoder *d, enum cxl_decoder_mode mode)
{
	int k = change("mode", d->name);

	if (k == 0) {
		d->mode = mode;
	}
	return k;
}
static int f_decoder_set_dpa_size(struct cxl_decoder *d, unsigned long long size)
{
	int k = change("dpa", d->name);

	if (k == 0) {
		d->dpa_size = size;
	}
	return k;
}
static unsigned f_decoder_get_interleave_granularity(struct cxl_decoder *d)
{
	(void)d;
	return 256;
}
static struct cxl_region *create_region(enum cxl_decoder_mode mode)
{
	for (size_t i = 0; i < 3; i++)
		if (!world.regions[i].used) {
			world.regions[i] = (struct cxl_region){ .used = true, .mode = mode };
			snprintf(world.regions[i].name, sizeof(world.regions[i].name), "region%zu", i);
			if (change("create", world.regions[i].name) < 0)
				return NULL;
			next_sync();
			if (world.kill_at_create) {
				world.kill_at_create = false;
				longjmp(killed, 1);
			}
			return &world.regions[i];
		}
	return NULL;
}
static struct cxl_region *f_decoder_create_pmem_region(struct cxl_decoder *d)
{
	(void)d;
	return create_region(CXL_DECODER_MODE_PMEM);
}
static struct cxl_region *f_decoder_create_ram_region(struct cxl_decoder *d)
{
	(void)d;
	return create_region(CXL_DECODER_MODE_RAM);
}
static struct cxl_region *next_used(struct cxl_region *from)
{
	for (; from < world.regions + 3; from++)
		if (from->used)
			return from;
	return NULL;
}
static struct cxl_region *f_region_get_first(struct cxl_decoder *d)
{
	(void)d;
	return next_used(world.regions);
}
static struct cxl_region *f_region_get_next(struct cxl_region *r)
{
	return next_used(r + 1);
}
static const char *f_region_get_devname(struct cxl_region *r)
{
	return r->name;
}
static void f_region_get_uuid(struct cxl_region *r, uuid_t u)
{
	memcpy(u, r->uuid, 16);
}
static unsigned long long f_region_get_size(struct cxl_region *r)
{
	return r->size;
}
static unsigned f_region_get_interleave_ways(struct cxl_region *r)
{
	return r->ways;
}
static enum cxl_decoder_mode f_region_get_mode(struct cxl_region *r)
{
	return r->mode;
}
static struct cxl_decoder *f_region_get_target_decoder(struct cxl_region *r, int position)
{
	return position == 0 ? r->target : NULL;
}
static int f_region_set_uuid(struct cxl_region *r, uuid_t u)
{
	int k = change("uuid", r->name);

	if (k == 0) {
		memcpy(r->uuid, u, 16);
	}
	return k;
}
static int f_region_set_interleave_granularity(struct cxl_region *r, unsigned g)
{
	int k = change("granularity", r->name);

	if (k == 0) {
		r->granularity = g;
	}
	return k;
}
static int f_region_set_interleave_ways(struct cxl_region *r, unsigned ways)
{
	int k = change("ways", r->name);

	if (k == 0) {
		r->ways = ways;
	}
	return k;
}
static int f_region_set_size(struct cxl_region *r, unsigned long long size)
{
	int k = change("size", r->name);

	if (k == 0) {
		r->size = size;
	}
	return k;
}
static int f_region_set_target(struct cxl_region *r, int position, struct cxl_decoder *d)
{
	int k = change("target", d->name);

	assert_int_equal(position, 0);
	if (k == 0) {
		r->target = d;
		d->region = r;
	}
	return k;
}
static int f_region_decode_is_committed(struct cxl_region *r)
{
	return r->committed;
}
static int f_region_decode_commit(struct cxl_region *r)
{
	int k = change("commit", r->name);

	if (k == 0) {
		r->committed = true;
	}
	return k;
}
static int f_region_is_enabled(struct cxl_region *r)
{
	return r->enabled;
}
static int f_region_enable(struct cxl_region *r)
{
	int k = change("enable", r->name);

	if (k == 0) {
		r->enabled = true;
	}
	return k;
}

static int f_region_delete(struct cxl_region *r)
{
	int k = change("delete", r->name);

	if (k == 0) {
		r->used = false;
		next_sync();
	}
	return k;
}

static const struct cxl_api fake = {
	.new_ctx = f_new,
	.unref = f_unref,
	.set_log_fn = f_set_log_fn,
	.set_log_priority = f_set_log_priority,
	.memdev_get_first = f_memdev_get_first,
	.memdev_get_next = f_memdev_get_next,
	.memdev_get_devname = f_memdev_get_devname,
	.memdev_get_endpoint = f_memdev_get_endpoint,
	.memdev_get_serial = f_memdev_get_serial,
	.endpoint_get_port = f_endpoint_get_port,
	.decoder_get_by_name = f_decoder_get_by_name,
	.decoder_get_first = f_decoder_get_first,
	.decoder_get_next = f_decoder_get_next,
	.decoder_get_devname = f_decoder_get_devname,
	.decoder_get_region = f_decoder_get_region,
	.decoder_get_memdev = f_decoder_get_memdev,
	.decoder_get_dpa_size = f_decoder_get_dpa_size,
	.decoder_get_mode = f_decoder_get_mode,
	.decoder_set_mode = f_decoder_set_mode,
	.decoder_set_dpa_size = f_decoder_set_dpa_size,
	.decoder_get_interleave_granularity = f_decoder_get_interleave_granularity,
	.decoder_create_pmem_region = f_decoder_create_pmem_region,
	.decoder_create_ram_region = f_decoder_create_ram_region,
	.region_get_first = f_region_get_first,
	.region_get_next = f_region_get_next,
	.region_get_devname = f_region_get_devname,
	.region_get_uuid = f_region_get_uuid,
	.region_get_size = f_region_get_size,
	.region_get_target_decoder = f_region_get_target_decoder,
	.region_get_interleave_ways = f_region_get_interleave_ways,
	.region_get_mode = f_region_get_mode,
	.region_set_uuid = f_region_set_uuid,
	.region_set_interleave_granularity = f_region_set_interleave_granularity,
	.region_set_interleave_ways = f_region_set_interleave_ways,
	.region_set_size = f_region_set_size,
	.region_set_target = f_region_set_target,
	.region_decode_is_committed = f_region_decode_is_committed,
	.region_decode_commit = f_region_decode_commit,
	.region_is_enabled = f_region_is_enabled,
	.region_enable = f_region_enable,
	.region_delete = f_region_delete,
};

/* ---- the tests ----------------------------------------------------------------------------- */

static const struct pmemram_action action = {
	.type = PMEMRAM_ACTION_CREATE_CXL_REGION,
	.device = "mem0",
	.claim = "cxl",
	.serial = 0x5eed0001,
	.decoder = "decoder0.0",
	.size = 512 * MiB,
};

static void world_init(void)
{
	world = (struct cxl_ctx){ .root = { .name = "decoder0.0" }, .other = { .name = "decoder3.0" } };
	world.memdev.serial = 0x5eed0001;
	strcpy(world.memdev.endpoint.port.decoders[0].name, "decoder2.0");
	strcpy(world.memdev.endpoint.port.decoders[1].name, "decoder2.1");
	next_sync();
}

static int run(struct pmemram_ctx *ctx, char *why, size_t size)
{
	world.log[0] = '\0';
	return pmemram_cxl_create_region(ctx, (void *)&fake, &action, record_dir, why, size);
}

#define RECORD "run/" PMEMRAM_CXL_RECORD_PREFIX "0x5eed0001"

static struct pmemram_ctx *new_ctx(void)
{
	struct pmemram_ctx *ctx = NULL;

	assert_int_equal(pmemram_ctx_new(&ctx), 0);
	assert_int_equal(pmemram_ctx_set_sysfs_root(ctx, sysroot), 0);
	return ctx;
}

static int setup(void **state)
{
	(void)state;
	if (fake_sysfs_new(&sysroot) < 0 || fake_sysfs_write(sysroot, "run/.keep", "\n") < 0)
		return -1;
	snprintf(record_dir, sizeof(record_dir), "%s/run", sysroot);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sysroot = fake_sysfs_free(sysroot);
	return 0;
}

/* Every step in order, the UUID right after the region is made: that is what finds it again. */
static void test_create(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();
	struct cxl_region *r = &world.regions[0];
	unsigned char want[16];
	char why[128];

	(void)state;
	world_init();
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_string_equal(world.log,
			    "create region0; uuid region0; granularity region0; ways region0; size region0; "
			    "mode decoder2.0; dpa decoder2.0; target decoder2.0; commit region0; enable region0");
	pmemram_cxl_region_uuid(0x5eed0001, want);
	assert_memory_equal(r->uuid, want, 16);
	assert_int_equal(r->granularity, 256);
	assert_int_equal(r->ways, 1);
	assert_int_equal(r->size, 512 * MiB);
	assert_int_equal(world.memdev.endpoint.port.decoders[0].mode, CXL_DECODER_MODE_PMEM);
	assert_int_equal(world.memdev.endpoint.port.decoders[0].dpa_size, 512 * MiB);
	assert_true(r->committed && r->enabled);

	/* Done: nothing changes, no second region. */
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_string_equal(world.log, "");
}

/* Cut short after each step, the next call finishes the same region from there. */
static void test_resume(void **state)
{
	static const char *const steps[] = { "create", "uuid", "granularity", "ways",	"size",
					     "mode",   "dpa",  "target",      "commit", "enable" };
	static const char *const rest[] = {
		/* after a failed create nothing is left: all again */
		"create region0; uuid region0; granularity region0; ways region0; size region0; mode decoder2.0; dpa "
		"decoder2.0; target decoder2.0; commit region0; enable region0",
		/* the region that could not be named was deleted: made again, under the same name */
		"create region0; uuid region0; granularity region0; ways region0; size region0; mode decoder2.0; dpa "
		"decoder2.0; target decoder2.0; commit region0; enable region0",
		"granularity region0; ways region0; size region0; mode decoder2.0; dpa decoder2.0; target decoder2.0; "
		"commit region0; enable region0",
		"granularity region0; ways region0; size region0; mode decoder2.0; dpa decoder2.0; target decoder2.0; "
		"commit region0; enable region0",
		"granularity region0; ways region0; size region0; mode decoder2.0; dpa decoder2.0; target decoder2.0; "
		"commit region0; enable region0",
		"mode decoder2.0; dpa decoder2.0; target decoder2.0; commit region0; enable region0",
		"mode decoder2.0; dpa decoder2.0; target decoder2.0; commit region0; enable region0",
		/* the capacity allocated on decoder2.0 is used as it is */
		"target decoder2.0; commit region0; enable region0",
		"commit region0; enable region0",
		"enable region0",
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();
	char why[128];

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
		world_init();
		world.fail_step = steps[i];
		assert_true(run(ctx, why, sizeof(why)) < 0);
		if (strcmp(steps[i], "create") == 0) {
			world.regions[0].used = false; /* the kernel made none */
			assert_string_equal(why, "bus/cxl/devices/decoder0.0/create_pmem_region: cannot create a pmem "
						 "region (its record is kept): Input/output error");
			/* It might have: the record stays, naming a region the next call does not find. */
			assert_string_equal(fake_sysfs_read(sysroot, RECORD), "decoder0.0 region0");
		} else
			assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
		if (strcmp(steps[i], "uuid") == 0) {
			assert_string_equal(world.log, "create region0; uuid region0; delete region0");
			assert_string_equal(why, "region0: cannot set its UUID (deleted it): Input/output error");
		}
		world.fail_step = NULL;
		assert_int_equal(run(ctx, why, sizeof(why)), 0);
		if (strcmp(world.log, rest[i]) != 0)
			fail_msg("cut short at %s: then %s; expected %s", steps[i], world.log, rest[i]);
	}
}

/* A failed step is named with its error; a missing memdev or root decoder, or no free endpoint
 * decoder, too. */
static void test_failures(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();
	struct pmemram_action a = action;
	char why[128];

	(void)state;
	world_init();
	world.fail_step = "commit";
	assert_int_equal(run(ctx, why, sizeof(why)), -EIO);
	assert_string_equal(why, "region0: cannot commit it: Input/output error");

	world_init();
	strcpy(a.decoder, "decoder0.1");
	assert_int_equal(pmemram_cxl_create_region(ctx, (void *)&fake, &a, NULL, why, sizeof(why)), -ENODEV);
	assert_string_equal(why, "libcxl does not list root decoder decoder0.1: No such device");
	a = action;
	strcpy(a.device, "mem1");
	assert_int_equal(pmemram_cxl_create_region(ctx, (void *)&fake, &a, NULL, why, sizeof(why)), -ENODEV);
	assert_string_equal(why, "libcxl does not list mem1: No such device");

	/* Both endpoint decoders hold other capacity. */
	world_init();
	world.memdev.endpoint.port.decoders[0].dpa_size = 256 * MiB;
	world.memdev.endpoint.port.decoders[1].dpa_size = 256 * MiB;
	assert_int_equal(run(ctx, why, sizeof(why)), -EBUSY);
	assert_string_equal(why, "mem0: no free endpoint decoder: Device or resource busy");

	/* mem0 is another device now (renumbered): nothing is done. */
	world_init();
	world.memdev.serial = 0x5eed0002;
	assert_int_equal(run(ctx, why, sizeof(why)), -ESTALE);
	assert_string_equal(world.log, "");
	assert_string_equal(why, "mem0 has serial 0x5eed0002 now, not 0x5eed0001: Stale file handle");

	/* Another memdev has the serial too: their regions would have one UUID; nothing is done. */
	world_init();
	world.twin_listed = true;
	world.twin.serial = 0x5eed0001;
	assert_int_equal(run(ctx, why, sizeof(why)), -ESTALE);
	assert_string_equal(world.log, "");
	assert_string_equal(why, "2 memdevs have serial 0x5eed0001; which is the claim's cannot be told: Stale file "
				 "handle");
	assert_false(world.regions[0].used);
	world.twin.serial = 0x5eed0002;
	assert_int_equal(run(ctx, why, sizeof(why)), 0);

	/* A region with mem0's UUID but another memdev's decoder as target is left as it is. */
	world_init();
	world.fail_step = "commit";
	assert_int_equal(run(ctx, why, sizeof(why)), -EIO);
	world.fail_step = NULL;
	world.regions[0].target = &world.other;
	assert_int_equal(run(ctx, why, sizeof(why)), -ESTALE);
	assert_string_equal(world.log, "");
	assert_string_equal(why,
			    "region0 has mem0's UUID but decoder3.0 as target, not one of mem0's: Stale file handle");
}

/* A call killed right after the kernel made the region. */
/* run() of the same action for a RAM region, through api. */
static int run_ram(struct pmemram_ctx *ctx, const struct cxl_api *api, char *why, size_t size)
{
	struct pmemram_action ram_action = action;

	ram_action.ram = true;
	world.log[0] = '\0';
	return pmemram_cxl_create_region(ctx, (void *)api, &ram_action, record_dir, why, size);
}

static void run_killed(struct pmemram_ctx *ctx)
{
	char why[128];

	world.kill_at_create = true;
	if (setjmp(killed) == 0) {
		(void)run(ctx, why, sizeof(why));
		fail_msg("not killed");
	}
}

/* A RAM region: no UUID, the endpoint decoder in RAM mode; done, found again by the memdev's
 * decoder in it; killed after making it, the recorded region (RAM, no target) adopted. */
static void test_create_ram(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();
	struct cxl_region *r = &world.regions[0];
	struct cxl_api api = fake;
	char why[128];

	(void)state;
	world_init();
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_string_equal(world.log,
			    "create region0; granularity region0; ways region0; size region0; "
			    "mode decoder2.0; dpa decoder2.0; target decoder2.0; commit region0; enable region0");
	assert_int_equal(r->mode, CXL_DECODER_MODE_RAM);
	assert_memory_equal(r->uuid, (unsigned char[16]){ 0 }, 16);
	assert_int_equal(r->size, 512 * MiB);
	assert_int_equal(world.memdev.endpoint.port.decoders[0].mode, CXL_DECODER_MODE_RAM);
	assert_int_equal(world.memdev.endpoint.port.decoders[0].dpa_size, 512 * MiB);
	assert_true(r->committed && r->enabled);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), 0);
	assert_string_equal(world.log, "");

	/* Cut short after its target: found by the memdev's decoder, finished. */
	world_init();
	world.fail_step = "commit";
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), -EIO);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
	world.fail_step = NULL;
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), 0);
	assert_string_equal(world.log, "commit region0; enable region0");
	assert_false(world.regions[1].used);

	/* Cut short before its target (its size set): the record names it, and it is adopted. */
	world_init();
	world.fail_step = "mode";
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), -EIO);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "decoder0.0 region0");
	world.fail_step = NULL;
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), 0);
	assert_string_equal(world.log, "mode decoder2.0; dpa decoder2.0; target decoder2.0; commit region0; enable "
				       "region0");
	assert_false(world.regions[1].used);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");

	/* The memdev in a pmem region: not touched. */
	world_init();
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_int_equal(run_ram(ctx, &fake, why, sizeof(why)), -ESTALE);
	assert_string_equal(world.log, "");
	assert_string_equal(why, "mem0 is in CXL region region0, not a RAM region of its own: Stale file handle");

	/* A libcxl that makes no RAM regions (Debian 12's): nothing done. */
	world_init();
	api.decoder_create_ram_region = NULL;
	assert_int_equal(run_ram(ctx, &api, why, sizeof(why)), -EOPNOTSUPP);
	assert_string_equal(world.log, "");
	assert_false(world.regions[0].used);
}

/* Killed between making the region and naming it: the next call adopts the region its record
 * names instead of making a second one; a record naming a region that is not such an orphan is
 * dropped. */
static void test_killed(void **state)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();
	char why[128];

	(void)state;
	world_init();
	run_killed(ctx);
	assert_string_equal(world.log, "create region0");
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "decoder0.0 region0");
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_string_equal(world.log,
			    "uuid region0; granularity region0; ways region0; size region0; mode decoder2.0; "
			    "dpa decoder2.0; target decoder2.0; commit region0; enable region0");
	assert_false(world.regions[1].used);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");

	/* The kernel made the region but libcxl returned none: the record kept names it, and the next
	 * call adopts it. */
	world_init();
	world.fail_step = "create";
	assert_int_equal(run(ctx, why, sizeof(why)), -EIO);
	world.fail_step = NULL;
	assert_true(world.regions[0].used);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "decoder0.0 region0");
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_true(strncmp(world.log, "uuid region0; granularity region0;", 34) == 0);
	assert_false(world.regions[1].used);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");

	/* The record cannot be written: no region is made. */
	world_init();
	assert_int_equal(fake_sysfs_write(sysroot, "run/" PMEMRAM_CXL_RECORD_PREFIX "0x5eed0001/x", "\n"), 0);
	assert_true(run(ctx, why, sizeof(why)) < 0);
	assert_string_equal(world.log, "");
	assert_true(strstr(why, RECORD ": cannot record the region about to be made: ") != NULL);
	assert_int_equal(fake_sysfs_remove(sysroot, RECORD), 0);

	/* Killed again, and the adoption's naming fails: the region may be someone else's after all,
	 * so it is left as it is and the record dropped. */
	world_init();
	run_killed(ctx);
	world.fail_step = "uuid";
	assert_int_equal(run(ctx, why, sizeof(why)), -EIO);
	assert_string_equal(world.log, "uuid region0");
	assert_string_equal(why, "region0: cannot set its UUID (adopted, so left as it is): Input/output error");
	assert_true(world.regions[0].used);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
	world.fail_step = NULL;

	/* The recorded region is a ram one, or has its interleave ways set (another tool is making
	 * it), or libcxl cannot tell its mode (before LIBCXL_5) and sysfs shows no uuid attribute (a
	 * region not in pmem mode on 6.1) or a read-only one (on later kernels): not adopted, not
	 * deleted; a region of its own is made. */
	for (size_t i = 0; i < 4; i++) {
		struct cxl_api api = fake;

		world_init();
		run_killed(ctx);
		if (i == 0)
			world.regions[0].mode = CXL_DECODER_MODE_RAM;
		else if (i == 1)
			world.regions[0].ways = 1;
		else
			api.region_get_mode = NULL;
		if (i == 3) {
			assert_int_equal(fake_sysfs_write(sysroot, REGION0_UUID, "\n"), 0);
			assert_int_equal(chmod_below(REGION0_UUID, 0444), 0);
		}
		world.log[0] = '\0';
		assert_int_equal(pmemram_cxl_create_region(ctx, &api, &action, record_dir, why, sizeof(why)), 0);
		assert_true(strncmp(world.log, "create region1; uuid region1;", 29) == 0);
		assert_true(world.regions[0].used);
		assert_memory_equal(world.regions[0].uuid, (unsigned char[16]){ 0 }, 16);
		assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
		if (i == 3)
			assert_int_equal(fake_sysfs_remove(sysroot, REGION0_UUID), 0);
	}

	/* libcxl cannot tell the mode, and sysfs shows the region's uuid attribute writable, as the
	 * kernel does only on a pmem region: adopted. */
	{
		struct cxl_api api = fake;

		world_init();
		run_killed(ctx);
		api.region_get_mode = NULL;
		assert_int_equal(fake_sysfs_write(sysroot, REGION0_UUID, "\n"), 0);
		assert_int_equal(chmod_below(REGION0_UUID, 0644), 0);
		world.log[0] = '\0';
		assert_int_equal(pmemram_cxl_create_region(ctx, &api, &action, record_dir, why, sizeof(why)), 0);
		assert_true(strncmp(world.log, "uuid region0; granularity region0;", 34) == 0);
		assert_false(world.regions[1].used);
		assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
		assert_int_equal(fake_sysfs_remove(sysroot, REGION0_UUID), 0);
	}

	/* The recorded region has a size (someone else's, being made): not adopted; nor one that
	 * is not there. */
	world_init();
	world.regions[0] = (struct cxl_region){ .name = "region0", .used = true, .size = 256 * MiB };
	next_sync();
	assert_int_equal(fake_sysfs_write(sysroot, RECORD, "decoder0.0 region0\n"), 0);
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_true(strncmp(world.log, "create region1; uuid region1;", 29) == 0);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
	world_init();
	assert_int_equal(fake_sysfs_write(sysroot, RECORD, "decoder0.0 region2\n"), 0);
	assert_int_equal(run(ctx, why, sizeof(why)), 0);
	assert_true(strncmp(world.log, "create region0; uuid region0;", 29) == 0);
	assert_string_equal(fake_sysfs_read(sysroot, RECORD), "<absent>");
}

/* A function the library lacks: an optional one is left NULL, one not optional fails the load.
 * Shown with the C library, which every test has. */
static void test_optional_symbol(void **state)
{
	struct table {
		size_t (*len)(const char *);
		void (*none)(void);
	} t;
	const struct lib_symbol optional[] = {
		{ .name = "strlen", .offset = offsetof(struct table, len) },
		{ .name = "pmemram_test_no_such_function", .offset = offsetof(struct table, none), .optional = true },
	};
	const struct lib_symbol required[] = {
		{ .name = "strlen", .offset = offsetof(struct table, len) },
		{ .name = "pmemram_test_no_such_function", .offset = offsetof(struct table, none) },
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = new_ctx();

	(void)state;
	memset(&t, 0xff, sizeof(t));
	assert_int_equal(lib_load(ctx, "libc.so.6", "libc6", optional, ELEMENTSOF(optional), &t), 0);
	assert_int_equal(t.len("four"), 4);
	assert_null(t.none);
	assert_int_equal(lib_load(ctx, "libc.so.6", "libc6", required, ELEMENTSOF(required), &t), -ELIBACC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_failures),	cmocka_unit_test(test_killed),
		cmocka_unit_test(test_optional_symbol), cmocka_unit_test(test_create_ram),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
