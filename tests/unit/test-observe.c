/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for namespace discovery and the whole observation on a fake NVDIMM sysfs, procfs and udev tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <sys/wait.h>

#include "fake-sysfs.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"
#include "pmemram-protocol.h"

#define ENV(state) ((struct fake_env *)*(state))
#define MiB (1024ULL * 1024)

static void test_dax_namespace(void **state)
{
	struct pmemram_observed_dax d = {};

	strcpy(d.dax.name, "dax0.0");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.uuid, FAKE_UUID_KMEM);
	assert_string_equal(d.region, "region0");

	strcpy(d.dax.name, "dax1.0");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.uuid, FAKE_UUID_DEVDAX);
	assert_string_equal(d.region, "region1");

	/* Upper-case UUIDs come out lower case. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/namespace1.0/uuid",
					  "11111111-2222-3333-4444-55555555555A\n"),
			 0);
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.uuid, "11111111-2222-3333-4444-55555555555a");

	/* Not on an NVDIMM (hmem): no parent namespace attribute, nothing known. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "devices/platform/hmem.0/dax3.0/size", "0\n"), 0);
	assert_int_equal(fake_sysfs_symlink(ENV(state)->root, "bus/dax/devices/dax3.0",
					    "../../../devices/platform/hmem.0/dax3.0"),
			 0);
	strcpy(d.dax.name, "dax3.0");
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.uuid, "");
	assert_string_equal(d.region, "");
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_namespaces(void **state)
{
	_cleanup_(freep) struct pmemram_observed_namespace *ns = NULL;
	size_t n = 99;

	/* namespace0.0 and 1.0 are devdax, 0.1 an idle seed: only 2.0 and 3.0 are listed. */
	assert_int_equal(pmemram_namespaces_read(ENV(state)->ctx, &ns, &n), 0);
	assert_int_equal(n, 2);

	assert_string_equal(ns[0].name, "namespace2.0");
	assert_string_equal(ns[0].uuid, FAKE_UUID_FSDAX);
	assert_string_equal(ns[0].region, "region2");
	assert_int_equal(ns[0].mode, PMEMRAM_NS_FSDAX);
	assert_int_equal(ns[0].size, 512 * MiB);
	assert_string_equal(ns[0].blockdev, "pmem2");
	assert_string_equal(ns[0].info_uuid, FAKE_UUID_FSDAX_INFO); /* pfn2.1's */
	assert_false(ns[0].mounted);

	assert_string_equal(ns[1].name, "namespace3.0");
	assert_int_equal(ns[1].mode, PMEMRAM_NS_RAW);
	assert_string_equal(ns[1].blockdev, "pmem3");
	assert_string_equal(ns[1].info_uuid, ""); /* raw: no info block */
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_namespaces_variants(void **state)
{
	_cleanup_(freep) struct pmemram_observed_namespace *ns = NULL;
	size_t n;

	/* Sector mode (btt claim without a disk: disabled), a label-less namespace without uuid. */
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/namespace2.0/mode", "safe\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/namespace2.0/holder", "btt2.0\n"), 0);
	assert_int_equal(fake_sysfs_remove(ENV(state)->root, "bus/nd/devices/namespace3.0/uuid"), 0);
	assert_int_equal(pmemram_namespaces_read(ENV(state)->ctx, &ns, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ns[0].mode, PMEMRAM_NS_SECTOR);
	assert_string_equal(ns[0].blockdev, "");
	assert_string_equal(ns[1].uuid, "");
	assert_string_equal(ns[1].blockdev, "pmem3");
}

/* A devdax namespace whose nd_dax device is not bound (a conversion cut short) is listed as such;
 * a holder whose driver cannot be read is an error, not a guess. */
static void test_namespaces_devdax_disabled(void **state)
{
	_cleanup_(freep) struct pmemram_observed_namespace *ns = NULL;
	size_t n;

	assert_int_equal(fake_sysfs_remove(ENV(state)->root, "bus/nd/devices/dax1.1/driver"), 0);
	assert_int_equal(pmemram_namespaces_read(ENV(state)->ctx, &ns, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ns[0].name, "namespace1.0");
	assert_int_equal(ns[0].mode, PMEMRAM_NS_DEVDAX);
	assert_string_equal(ns[0].uuid, FAKE_UUID_DEVDAX);
	assert_string_equal(ns[0].blockdev, "");
	assert_int_equal(pmemram_namespace_holder_disabled(ENV(state)->ctx, "namespace1.0"), 1);
	assert_int_equal(pmemram_namespace_holder_disabled(ENV(state)->ctx, "namespace0.0"), 0);
	/* raw: no holder */
	assert_int_equal(pmemram_namespace_holder_disabled(ENV(state)->ctx, "namespace3.0"), 0);
}

/* What create = devdax needs of regions: the largest free extent (never available_size, the sum of
 * the free extents), the alignment (hex) and the interleave ways; namespaces' names. */
static void test_regions_and_names(void **state)
{
	_cleanup_(freep) struct pmemram_observed_region *regions = NULL;
	_cleanup_(freep) struct pmemram_observed_namespace *ns = NULL;
	struct pmemram_observed_dax d = { .dax.name = "dax1.0" };
	size_t n;

	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/region0/max_available_extent", "0\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/region1/max_available_extent", "%d\n",
					  256 << 20),
			 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/region1/align", "0x1000000\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/region1/mappings", "2\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/region2/available_size", "%d\n", 64 << 20),
			 0);
	assert_int_equal(pmemram_regions_read(ENV(state)->ctx, &regions, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(regions[0].name, "region0");
	assert_true(regions[0].has_extent);
	assert_int_equal(regions[0].available, 0);
	assert_true(regions[1].has_extent);
	assert_int_equal(regions[1].available, 256 * MiB);
	assert_int_equal(regions[1].align, 16 * MiB);
	assert_int_equal(regions[1].ways, 2);
	assert_false(regions[2].has_extent); /* available_size alone */
	assert_int_equal(regions[2].available, 0);
	assert_int_equal(regions[2].align, 0);
	assert_int_equal(regions[2].ways, 0);
	assert_false(regions[3].has_extent); /* neither attribute */

	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/namespace1.0/alt_name", "made\n"), 0);
	assert_int_equal(fake_sysfs_write(ENV(state)->root, "bus/nd/devices/namespace3.0/alt_name", "raw-one\n"), 0);
	assert_int_equal(pmemram_dax_namespace_read(ENV(state)->ctx, &d), 0);
	assert_string_equal(d.ns_name, "made");
	assert_int_equal(pmemram_namespaces_read(ENV(state)->ctx, &ns, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ns[0].alt_name, ""); /* namespace2.0 has none */
	assert_string_equal(ns[1].alt_name, "raw-one");
}

static void test_no_nd_bus(void **state)
{
	_cleanup_(freep) struct pmemram_observed_namespace *ns = NULL;
	size_t n = 99;

	assert_int_equal(pmemram_namespaces_read(ENV(state)->ctx, &ns, &n), 0);
	assert_int_equal(n, 0);
	assert_null(ns);
	assert_null(pmemram_ctx_get_error_path(ENV(state)->ctx));
}

static void test_observe(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	const struct pmemram_observed *v;

	assert_int_equal(pmemram_observe(ENV(state)->ctx, &o), 0);
	v = &o->observed;
	assert_int_equal(v->block_size, 128 * MiB);
	assert_int_equal(v->auto_online, PMEMRAM_AUTO_ONLINE_OFFLINE);
	/* Only the blocks of the dax devices' ranges: dax0.0's memory40..46, of which the tree has
	 * memory40 (dax1.0 shows no range); the 24 blocks of boot memory are not read. */
	assert_int_equal(v->n_blocks, 1);
	assert_int_equal(v->blocks[0].id, 40);
	assert_ptr_equal(v->blocks, o->memory->blocks);

	assert_int_equal(v->n_devices, 2);
	assert_string_equal(v->devices[0].dax.name, "dax0.0");
	assert_string_equal(v->devices[0].uuid, FAKE_UUID_KMEM);
	assert_false(v->devices[0].mapped);
	assert_string_equal(v->devices[0].info_uuid, ""); /* not in the tree: nothing to match */
	assert_string_equal(v->devices[1].region, "region1");
	assert_string_equal(v->devices[1].uuid, FAKE_UUID_DEVDAX);
	assert_string_equal(v->devices[1].info_uuid, FAKE_UUID_DEVDAX_INFO);
	assert_true(v->devices[1].mapped);
	assert_string_equal(v->devices[1].mapped_by, FAKE_DAX_USER);
	assert_int_equal(o->observed.n_unreadable_processes, 0);

	assert_int_equal(v->n_namespaces, 2);
	assert_true(v->namespaces[0].mounted);
	assert_false(v->namespaces[1].mounted);

	assert_true(v->udev.onlines_memory);
	assert_int_equal(v->udev.policy, PMEMRAM_AUTO_ONLINE_MOVABLE);
	assert_string_equal(v->udev.rule, FAKE_UDEV_RULE);
}

/* The lazy observation leaves out who maps and mounts what, until asked; then it equals the full one. */
static void test_observe_lazy(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	const struct pmemram_observed *v;

	assert_int_equal(pmemram_observe_lazy(ENV(state)->ctx, &o), 0);
	v = &o->observed;
	assert_false(o->users_scanned);
	assert_int_equal(v->n_devices, 2);
	assert_false(v->devices[1].mapped);
	assert_string_equal(v->devices[1].mapped_by, "");
	assert_false(v->namespaces[0].mounted);
	assert_true(v->udev.onlines_memory);

	assert_int_equal(pmemram_observation_scan_users(ENV(state)->ctx, o), 0);
	assert_true(o->users_scanned);
	assert_true(v->devices[1].mapped);
	assert_string_equal(v->devices[1].mapped_by, FAKE_DAX_USER);
	assert_true(v->namespaces[0].mounted);
	assert_false(v->namespaces[1].mounted);
	/* A second call does not scan again. */
	assert_int_equal(pmemram_observation_scan_users(ENV(state)->ctx, o), 0);
}

/* Scoped to one block: memoryN and the dax device holding it (dax0.0 holds memory40..46), and
 * a cost that does not grow with the blocks of the system. */
static void test_observe_block(void **state)
{
	struct pmemram_ctx *ctx = ENV(state)->ctx;
	struct pmemram_observation *o = NULL;
	uint64_t before, cost, cost_more_blocks;

	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_observe_block(ctx, 40, &o), 0);
	cost = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	assert_true(o->observed.scoped);
	assert_int_equal(o->observed.n_blocks, 1);
	assert_int_equal(o->observed.blocks[0].id, 40);
	assert_int_equal(o->observed.n_devices, 1);
	assert_string_equal(o->observed.devices[0].dax.name, "dax0.0");
	assert_int_equal(o->observed.n_namespaces, 0);
	assert_false(o->observed.udev.onlines_memory);
	o = pmemram_observation_free(o);

	/* A block of boot memory: no device, nothing to plan. */
	assert_int_equal(pmemram_observe_block(ctx, 5, &o), 0);
	assert_int_equal(o->observed.n_blocks, 1);
	assert_int_equal(o->observed.n_devices, 0);
	o = pmemram_observation_free(o);

	/* A block of the device not added (yet, or any more): no block, the device still found. */
	assert_int_equal(pmemram_observe_block(ctx, 45, &o), 0);
	assert_int_equal(o->observed.n_blocks, 0);
	assert_int_equal(o->observed.n_devices, 1);
	o = pmemram_observation_free(o);

	for (unsigned long b = 200; b < 300; b++)
		assert_int_equal(fake_sysfs_add_block(ENV(state)->root, b, 0, "online", "Normal"), 0);
	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_observe_block(ctx, 40, &o), 0);
	cost_more_blocks = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	assert_int_equal(cost_more_blocks, cost);
	o = pmemram_observation_free(o);
}

/* A block added while its device's kmem probe still runs: the device shows no driver until the
 * probe returned.  The observation waits for the driver (here set 200 ms later by a child), and
 * gives up after the timeout with the device as it is. */
static void test_observe_block_bound(void **state)
{
	struct pmemram_ctx *ctx = ENV(state)->ctx;
	struct pmemram_observation *o = NULL;
	uint64_t t0;
	pid_t pid;
	int status;

	assert_int_equal(fake_sysfs_set_dax_driver(ENV(state)->root, "dax0.0", NULL), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		(void)usleep(200 * 1000);
		_exit(fake_sysfs_set_dax_driver(ENV(state)->root, "dax0.0", "kmem") < 0);
	}
	t0 = now_usec(CLOCK_MONOTONIC);
	assert_int_equal(pmemram_observe_block_bound(ctx, 40, 10 * USEC_PER_SEC, 10 * USEC_PER_MSEC, &o), 0);
	assert_true(now_usec(CLOCK_MONOTONIC) - t0 >= 150 * USEC_PER_MSEC);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(o->observed.n_devices, 1);
	assert_int_equal(o->observed.devices[0].dax.mode, PMEMRAM_DAX_SYSTEM_RAM);
	o = pmemram_observation_free(o);

	/* No driver comes: the last observation after the timeout. */
	assert_int_equal(fake_sysfs_set_dax_driver(ENV(state)->root, "dax0.0", NULL), 0);
	t0 = now_usec(CLOCK_MONOTONIC);
	assert_int_equal(pmemram_observe_block_bound(ctx, 40, 100 * USEC_PER_MSEC, 10 * USEC_PER_MSEC, &o), 1);
	assert_true(now_usec(CLOCK_MONOTONIC) - t0 >= 100 * USEC_PER_MSEC);
	assert_int_equal(o->observed.devices[0].dax.mode, PMEMRAM_DAX_UNBOUND);
	o = pmemram_observation_free(o);

	/* A block of no device, and a device bound to device_dax: no wait. */
	t0 = now_usec(CLOCK_MONOTONIC);
	assert_int_equal(pmemram_observe_block_bound(ctx, 5, 10 * USEC_PER_SEC, 10 * USEC_PER_MSEC, &o), 0);
	o = pmemram_observation_free(o);
	assert_int_equal(fake_sysfs_set_dax_driver(ENV(state)->root, "dax0.0", "device_dax"), 0);
	assert_int_equal(pmemram_observe_block_bound(ctx, 40, 10 * USEC_PER_SEC, 10 * USEC_PER_MSEC, &o), 0);
	assert_int_equal(o->observed.devices[0].dax.mode, PMEMRAM_DAX_DEVDAX);
	assert_true(now_usec(CLOCK_MONOTONIC) - t0 < 5 * USEC_PER_SEC);
	o = pmemram_observation_free(o);
}

/* 6.12 sends a block's "add" before the block has its node link (the links come once every block
 * of the device is registered), with the device already bound: the observation waits for the link
 * too (here made 200 ms later by a child), and gives up after the timeout. */
static void test_observe_block_linked(void **state)
{
	struct pmemram_ctx *ctx = ENV(state)->ctx;
	const char *root = ENV(state)->root;
	struct pmemram_observation *o = NULL;
	char link[64], target[32];
	uint64_t t0;
	pid_t pid;
	int status, node;

	assert_int_equal(fake_sysfs_set_dax_driver(root, "dax0.0", "kmem"), 0);
	assert_int_equal(pmemram_observe_block(ctx, 40, &o), 0);
	node = o->observed.blocks[0].node;
	assert_true(node >= 0);
	o = pmemram_observation_free(o);
	snprintf(link, sizeof(link), "devices/system/memory/memory40/node%d", node);
	snprintf(target, sizeof(target), "../../node/node%d", node);
	assert_int_equal(fake_sysfs_remove(root, link), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		(void)usleep(200 * 1000);
		_exit(fake_sysfs_symlink(root, link, target) < 0);
	}
	t0 = now_usec(CLOCK_MONOTONIC);
	assert_int_equal(pmemram_observe_block_bound(ctx, 40, 10 * USEC_PER_SEC, 10 * USEC_PER_MSEC, &o), 0);
	assert_true(now_usec(CLOCK_MONOTONIC) - t0 >= 150 * USEC_PER_MSEC);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(o->observed.blocks[0].node, node);
	o = pmemram_observation_free(o);

	/* No link comes: the last observation after the timeout, 1. */
	assert_int_equal(fake_sysfs_remove(root, link), 0);
	assert_int_equal(pmemram_observe_block_bound(ctx, 40, 100 * USEC_PER_MSEC, 10 * USEC_PER_MSEC, &o), 1);
	assert_int_equal(o->observed.blocks[0].node, -1);
	o = pmemram_observation_free(o);
}

/* The held file: one device per line; empty lines and names with '/' are not devices. */
static void test_held_read(void **state)
{
	const char *dir = ENV(state)->udev; /* any scratch directory */
	char *names[PMEMRAM_HELD_MAX];
	size_t n = 99;

	assert_int_equal(pmemram_held_read(dir, names, NULL, &n), 0);
	assert_int_equal(n, 0); /* absent: nothing held */

	assert_int_equal(fake_sysfs_write(dir, PMEMRAM_HELD_FILE, "dax0.0\n\n../dax9.9\ndax1.0\n"), 0);
	assert_int_equal(pmemram_held_read(dir, names, NULL, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "dax0.0");
	assert_string_equal(names[1], "dax1.0");
	free(names[0]);
	free(names[1]);

	assert_int_equal(pmemram_held_read(NULL, names, NULL, &n), -EINVAL);

	/* with identities: a line without one (from before them) has NULL */
	{
		char *ids[PMEMRAM_HELD_MAX];

		assert_int_equal(fake_sysfs_write(dir, PMEMRAM_HELD_FILE,
						  "dax0.0 uuid:" FAKE_UUID_KMEM "\nrubbish x\ndax1.0\n"),
				 0);
		assert_int_equal(pmemram_held_read(dir, names, ids, &n), 0);
		assert_int_equal(n, 2);
		assert_string_equal(names[0], "dax0.0");
		assert_string_equal(ids[0], "uuid:" FAKE_UUID_KMEM);
		assert_string_equal(names[1], "dax1.0");
		assert_null(ids[1]);
		for (size_t i = 0; i < n; i++) {
			free(names[i]);
			free(ids[i]);
		}
	}

	/* an hmem device held by its range (an older pmemram's exclusive end reads inclusive), whose
	 * name the NVDIMM device took: not the held device, so the hold is stale */
	{
		char *ids[PMEMRAM_HELD_MAX], now[PMEMRAM_DEVICE_IDENTITY_MAX];

		assert_int_equal(fake_sysfs_write(dir, PMEMRAM_HELD_FILE, "dax0.0 range:0x60000000-0x70000000\n"), 0);
		assert_int_equal(pmemram_held_read(dir, names, ids, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(ids[0], "range:0x60000000-0x6fffffff");
		assert_int_equal(pmemram_dax_identity_read(ENV(state)->ctx, names[0], now, sizeof(now)), 0);
		assert_string_equal(now, "uuid:" FAKE_UUID_KMEM);
		free(names[0]);
		free(ids[0]);
	}
}

/* A device's identity: its namespace's UUID, or its physical range when it has no namespace. */
static void test_dax_identity(void **state)
{
	struct fake_env *env = ENV(state);
	char id[PMEMRAM_DEVICE_IDENTITY_MAX];

	assert_int_equal(pmemram_dax_identity_read(env->ctx, "dax0.0", id, sizeof(id)), 0);
	assert_string_equal(id, "uuid:" FAKE_UUID_KMEM);
	assert_int_equal(pmemram_dax_identity_read(env->ctx, "dax1.0", id, sizeof(id)), 0);
	assert_string_equal(id, "uuid:" FAKE_UUID_DEVDAX);
	assert_int_equal(pmemram_dax_identity_read(env->ctx, "dax7.0", id, sizeof(id)), -ENODEV);
	assert_int_equal(pmemram_dax_identity_read(env->ctx, "dax..", id, sizeof(id)), -EINVAL);

	/* no namespace behind it (soft-reserved memory, say): the range names it */
	assert_int_equal(fake_sysfs_remove(env->root, "bus/nd/devices/region0/dax0.1/namespace"), 0);
	assert_int_equal(pmemram_dax_identity_read(env->ctx, "dax0.0", id, sizeof(id)), 0);
	assert_string_equal(id, "range:0x140000000-0x17edfffff");

	/* inclusive: the top of the address space does not wrap to 0, and 0 prints as 0x0 */
	{
		struct pmemram_observed_dax d = { .dax = { .has_resource = true, .size = 1ULL << 32 } };

		assert_int_equal(pmemram_observed_dax_identity(&d, id, sizeof(id)), 0);
		assert_string_equal(id, "range:0x0-0xffffffff");
		d.dax.resource = UINT64_C(0xffffffff00000000);
		assert_int_equal(pmemram_observed_dax_identity(&d, id, sizeof(id)), 0);
		assert_string_equal(id, "range:0xffffffff00000000-0xffffffffffffffff");
		d.dax.size = (1ULL << 32) + 4096;
		assert_int_equal(pmemram_observed_dax_identity(&d, id, sizeof(id)), -ERANGE);
	}

	/* a record from before, with the exclusive end, reads as the inclusive form */
	snprintf(id, sizeof(id), "range:0x140000000-0x17ee00000");
	pmemram_dax_identity_upgrade(id, sizeof(id));
	assert_string_equal(id, "range:0x140000000-0x17edfffff");
	snprintf(id, sizeof(id), "range:0xffffffff00000000-0");
	pmemram_dax_identity_upgrade(id, sizeof(id));
	assert_string_equal(id, "range:0xffffffff00000000-0xffffffffffffffff");
	pmemram_dax_identity_upgrade(id, sizeof(id));
	assert_string_equal(id, "range:0xffffffff00000000-0xffffffffffffffff");
	snprintf(id, sizeof(id), "uuid:" FAKE_UUID_KMEM);
	pmemram_dax_identity_upgrade(id, sizeof(id));
	assert_string_equal(id, "uuid:" FAKE_UUID_KMEM);
}

static void test_observe_stock(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;

	/* No dax bus, no nd bus: nothing to scan procfs for, nothing claimed. */
	assert_int_equal(pmemram_observe(ENV(state)->ctx, &o), 0);
	assert_int_equal(o->observed.n_devices, 0);
	assert_int_equal(o->observed.n_namespaces, 0);
	assert_int_equal(o->observed.auto_online, PMEMRAM_AUTO_ONLINE_ONLINE);
}

static int observe(struct pmemram_ctx *ctx)
{
	struct pmemram_observation *o = (struct pmemram_observation *)0x1;
	int r;

	r = pmemram_observe(ctx, &o);
	if (r < 0)
		assert_ptr_equal(o, (struct pmemram_observation *)0x1);
	else
		pmemram_observation_free(o);
	return r;
}

static void test_failures(void **state)
{
	static const struct fake_failure cases[] = {
		{ "bus/nd/devices/namespace0.0/uuid", "not-a-uuid\n", -EINVAL, NULL },
		{ "bus/nd/devices/namespace0.0", NULL, -ENOENT, NULL },
		{ "bus/nd/devices/namespace2.0/mode", "fsdax\n", -EINVAL, NULL },
		{ "bus/nd/devices/namespace2.0/mode", NULL, -ENOENT, NULL },
		{ "bus/nd/devices/namespace3.0/size", "big\n", -EINVAL, NULL },
		{ "devices/system/memory/auto_online_blocks", NULL, -ENOENT, NULL },
	};

	fake_expect_failures(FAKE_KERNEL_HMAT, cases, ELEMENTSOF(cases), observe);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_dax_namespace, fake_env_setup_hmat),
		FAKE_TEST(test_namespaces, fake_env_setup_hmat),
		FAKE_TEST(test_namespaces_variants, fake_env_setup_hmat),
		FAKE_TEST(test_namespaces_devdax_disabled, fake_env_setup_hmat),
		FAKE_TEST(test_regions_and_names, fake_env_setup_hmat),
		FAKE_TEST(test_no_nd_bus, fake_env_setup_stock),
		FAKE_TEST(test_observe, fake_env_setup_hmat),
		FAKE_TEST(test_observe_lazy, fake_env_setup_hmat),
		FAKE_TEST(test_observe_block, fake_env_setup_hmat),
		FAKE_TEST(test_observe_block_bound, fake_env_setup_hmat),
		FAKE_TEST(test_observe_block_linked, fake_env_setup_hmat),
		FAKE_TEST(test_dax_identity, fake_env_setup_hmat),
		FAKE_TEST(test_held_read, fake_env_setup_hmat),
		FAKE_TEST(test_observe_stock, fake_env_setup_stock),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
