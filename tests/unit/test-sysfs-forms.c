/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysfs files pmemram reads whose form could differ between Linux 6.1 (Debian 12) and 6.12
 * (Debian 13), each read in both forms through the library's own readers: memory blocks
 * (valid_zones, state, auto_online_blocks), dax devices (memmap_on_memory, target_node, mappingN)
 * and memory tiers (memory_tierN/nodelist).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"

#define ENV(state) ((struct fake_env *)*(state))

/* ---- memory blocks ---------------------------------------------------------- */

/* A block of node 0 next to the stock tree's memory0..4. */
#define BLOCK 8
#define ZONE(z) (1u << PMEMRAM_ZONE_##z)

struct block_form {
	const char *state;
	const char *zones;
	enum pmemram_block_state state_id;
	enum pmemram_zone first;
	unsigned mask;
};

/*
 * valid_zones_show() is the same in 6.1 and 6.12: a block in MEM_ONLINE shows its zone alone
 * ("none" when it spans several), any other block the zone onlining would pick (MMOP_ONLINE) first,
 * then those of online_kernel and online_movable where they differ from it.  state_show() prints
 * "online", "offline" or "going-offline" in both.
 */
static const struct block_form block_forms[] = {
	/* 6.1 and 6.12: an offline block of a node without Movable memory yet, Normal the default. */
	{ "offline", "Normal Movable", PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_NORMAL, ZONE(NORMAL) | ZONE(MOVABLE) },
	/* 6.1 and 6.12: next to the node's Movable memory (kmem blocks onlined movable before it) or
	 * under memory_hotplug.online_policy=auto-movable, Movable is the default and comes first. */
	{ "offline", "Movable Normal", PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_MOVABLE, ZONE(MOVABLE) | ZONE(NORMAL) },
	/* 6.1 and 6.12: below 4 GiB the kernel zone that spans the block is DMA32. */
	{ "offline", "DMA32 Movable", PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_DMA32, ZONE(DMA32) | ZONE(MOVABLE) },
	/* 6.1 and 6.12: only MEM_ONLINE shows the zone, so a block going offline lists its zones as an
	 * offline one does. */
	{ "going-offline", "Movable Normal", PMEMRAM_BLOCK_GOING_OFFLINE, PMEMRAM_ZONE_MOVABLE,
	  ZONE(MOVABLE) | ZONE(NORMAL) },
	/* 6.1 and 6.12: an online block shows its own zone only. */
	{ "online", "Normal", PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_NORMAL, ZONE(NORMAL) },
	{ "online", "Movable", PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_MOVABLE, ZONE(MOVABLE) },
	{ "online", "DMA32", PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_DMA32, ZONE(DMA32) },
	{ "online", "DMA", PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_DMA, ZONE(DMA) },
	/* 6.1 and 6.12: boot memory across a zone boundary (mem->zone NULL) shows "none". */
	{ "online", "none", PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_NONE, ZONE(NONE) },
};

/* Each form through discovery (pmemram_memory_read_block()) and through the view the applier and
 * the release read blocks with (memblock_view_read(), memblock_view_read_zones()). */
static void test_block_forms(void **state)
{
	struct fake_env *env = ENV(state);

	assert_int_equal(fake_sysfs_add_block(env->root, BLOCK, 0, "offline", "Normal Movable"), 0);
	for (size_t i = 0; i < ELEMENTSOF(block_forms); i++) {
		_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
		const struct block_form *f = &block_forms[i];
		bool online = f->state_id == PMEMRAM_BLOCK_ONLINE;
		struct memblock_view v;

		assert_int_equal(fake_sysfs_set_block(env->root, BLOCK, f->state, f->zones), 0);

		assert_int_equal(pmemram_memory_read_block(env->ctx, BLOCK, &m), 0);
		assert_int_equal(m->n_blocks, 1);
		assert_int_equal(m->blocks[0].id, BLOCK);
		assert_int_equal(m->blocks[0].node, 0);
		assert_int_equal(m->blocks[0].state, f->state_id);
		assert_int_equal(m->blocks[0].zones.first, f->first);
		assert_int_equal(m->blocks[0].zones.mask, f->mask);
		assert_null(pmemram_ctx_get_error_path(env->ctx));

		/* With the node expected (its link looked up) and without (the listing says). */
		for (int hint = -1; hint <= 0; hint++) {
			assert_int_equal(memblock_view_read(env->ctx, BLOCK, hint, &v), 0);
			assert_true(v.present);
			assert_int_equal(v.node, 0);
			assert_string_equal(v.state, f->state);
			assert_int_equal(v.state_id, (int)f->state_id);
			assert_string_equal(v.zones, online ? f->zones : "not read");
			assert_int_equal(v.zone, online ? (int)f->first : -1);
		}
		assert_int_equal(memblock_view_read_zones(env->ctx, BLOCK, &v), 0);
		assert_string_equal(v.zones, f->zones);
		assert_int_equal(v.zone, (int)f->first);
	}
}

/*
 * A block whose directory is there before its node link (the kernel sets the node id after adding
 * the device): reading valid_zones then makes 6.1 look up node -1's zones (see read_block() in
 * memory.c).  The readers leave the file alone until the link is there, in both kernels, whatever
 * it would show: a word no kernel prints here proves it is never opened.
 */
static void test_block_without_node(void **state)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	struct fake_env *env = ENV(state);
	struct memblock_view v;

	assert_int_equal(fake_sysfs_add_block(env->root, BLOCK, -1, "offline", "Bogus"), 0);
	assert_int_equal(pmemram_memory_read_block(env->ctx, BLOCK, &m), 0);
	assert_int_equal(m->n_blocks, 1);
	assert_int_equal(m->blocks[0].node, -1);
	assert_int_equal(m->blocks[0].state, PMEMRAM_BLOCK_OFFLINE);
	assert_int_equal(m->blocks[0].zones.mask, 0);

	assert_int_equal(memblock_view_read(env->ctx, BLOCK, 0, &v), 0);
	assert_true(v.present);
	assert_int_equal(v.node, -1);
	assert_int_equal(v.state_id, PMEMRAM_BLOCK_OFFLINE);
	assert_int_equal(memblock_view_read_zones(env->ctx, BLOCK, &v), 0);
	assert_string_equal(v.zones, "not read, no node yet");
	assert_int_equal(v.zone, -1);
}

/* auto_online_blocks_show() prints online_type_to_str[] of the default online type, one of the
 * same four words in 6.1 and 6.12. */
static void test_auto_online_forms(void **state)
{
	static const struct {
		const char *text;
		enum pmemram_auto_online value;
	} forms[] = {
		{ "offline", PMEMRAM_AUTO_ONLINE_OFFLINE },
		{ "online", PMEMRAM_AUTO_ONLINE_ONLINE },
		{ "online_kernel", PMEMRAM_AUTO_ONLINE_KERNEL },
		{ "online_movable", PMEMRAM_AUTO_ONLINE_MOVABLE },
	};
	struct fake_env *env = ENV(state);

	for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
		_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;

		assert_int_equal(fake_sysfs_write(env->root, "devices/system/memory/auto_online_blocks", "%s\n",
						  forms[i].text),
				 0);
		assert_int_equal(pmemram_memory_read_block(env->ctx, 0, &m), 0);
		assert_int_equal(m->auto_online, forms[i].value);
		assert_string_equal(pmemram_auto_online_to_string(m->auto_online), forms[i].text);
		m = pmemram_memory_free(m);

		assert_int_equal(pmemram_memory_read(env->ctx, &m), 0);
		assert_int_equal(m->auto_online, forms[i].value);
		assert_null(pmemram_ctx_get_error_path(env->ctx));
	}
}

/* ---- dax devices --------------------------------------------------------------- */

#define DAX "bus/dax/devices/dax0.0"
#define DAX_SIZE (256ULL << 20)
#define DAX_START 0x60000000ULL

/*
 * A soft-reserved device below hmem.0 as 6.1 and 6.12 both lay it out: target node 1, one range in
 * mapping0 (5.10 and later), and, its region being dynamic, the write-only "mapping" attribute
 * beside mapping0 (dev_dax_visible() hides it for static, NVDIMM regions only).
 */
static void add_hmem_device(struct fake_env *env, const char *driver)
{
	assert_int_equal(fake_sysfs_add_hmem(env->root, 0, "dax0.0", driver, 1, DAX_SIZE, DAX_START), 0);
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax0.0", 0, DAX_START, DAX_START + DAX_SIZE - 1, 0), 0);
	assert_int_equal(fake_sysfs_write(env->root, DAX "/mapping", "%s", ""), 0);
	assert_int_equal(fake_sysfs_write(env->root, DAX "/numa_node", "1\n"), 0);
}

static void assert_same_dax(const struct pmemram_dax *a, const struct pmemram_dax *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->source, b->source);
	assert_string_equal(a->provider, b->provider);
	assert_string_equal(a->driver, b->driver);
	assert_int_equal(a->mode, b->mode);
	assert_int_equal(a->target_node, b->target_node);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->align, b->align);
	assert_int_equal(a->has_resource, b->has_resource);
	assert_int_equal(a->resource, b->resource);
	assert_int_equal(a->n_ranges, b->n_ranges);
	for (size_t i = 0; i < a->n_ranges && i < PMEMRAM_DAX_RANGES_MAX; i++) {
		assert_int_equal(a->ranges[i].start, b->ranges[i].start);
		assert_int_equal(a->ranges[i].end, b->ranges[i].end);
		assert_int_equal(a->ranges[i].page_offset, b->ranges[i].page_offset);
	}
}

/* 6.8 added memmap_on_memory ("%d\n", 0644) to every dax device, so 6.12 shows it and 6.1 does not;
 * pmemram does not read it, and the device must read the same with and without it. */
static void test_dax_memmap_on_memory(void **state)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l61 = NULL;
	struct fake_env *env = ENV(state);
	const struct pmemram_dax *d;

	/* 6.1: no memmap_on_memory. */
	add_hmem_device(env, "device_dax");
	assert_int_equal(pmemram_dax_list_read(env->ctx, &l61), 0);
	assert_int_equal(l61->n_devices, 1);
	d = &l61->devices[0];
	assert_string_equal(d->name, "dax0.0");
	assert_int_equal(d->source, PMEMRAM_DAX_SOURCE_HMEM);
	assert_string_equal(d->provider, "hmem.0");
	assert_string_equal(d->driver, "device_dax");
	assert_int_equal(d->mode, PMEMRAM_DAX_DEVDAX);
	assert_int_equal(d->target_node, 1);
	assert_int_equal(d->size, DAX_SIZE);
	assert_int_equal(d->align, 2 * 1024 * 1024);
	assert_true(d->has_resource);
	assert_int_equal(d->resource, DAX_START);
	assert_int_equal(d->n_ranges, 1);
	assert_int_equal(d->ranges[0].start, DAX_START);
	assert_int_equal(d->ranges[0].end, DAX_START + DAX_SIZE - 1);
	assert_int_equal(d->ranges[0].page_offset, 0);
	assert_null(pmemram_ctx_get_error_path(env->ctx));

	/* 6.12: memmap_on_memory 0 (the default) or 1 (set before kmem binds). */
	for (int on = 0; on <= 1; on++) {
		_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l612 = NULL;

		assert_int_equal(fake_sysfs_write(env->root, DAX "/memmap_on_memory", "%d\n", on), 0);
		assert_int_equal(pmemram_dax_list_read(env->ctx, &l612), 0);
		assert_int_equal(l612->n_devices, 1);
		assert_same_dax(&l61->devices[0], &l612->devices[0]);
		assert_null(pmemram_ctx_get_error_path(env->ctx));
	}
}

/*
 * target_node: 6.1 and 6.12 both show it for a device with a target node and hide it
 * (dev_dax_visible()) for one without, rather than print -1; the reader makes that -1.  The driver
 * link differs by kernel for soft-reserved memory: 6.12 (6.3 and later) binds hmem and CXL RAM
 * devices to kmem as it creates them, 6.1 leaves them with device_dax.
 */
static void test_dax_target_node(void **state)
{
	struct fake_env *env = ENV(state);

	/* 6.12: bound to kmem at probe, target_node shown. */
	add_hmem_device(env, "kmem");
	assert_int_equal(fake_sysfs_write(env->root, DAX "/memmap_on_memory", "0\n"), 0);
	{
		_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;

		assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
		assert_int_equal(l->n_devices, 1);
		assert_string_equal(l->devices[0].driver, "kmem");
		assert_int_equal(l->devices[0].mode, PMEMRAM_DAX_SYSTEM_RAM);
		assert_int_equal(l->devices[0].target_node, 1);
	}

	/* Both kernels, a device without a target node: no target_node file at all. */
	assert_int_equal(fake_sysfs_remove(env->root, DAX "/target_node"), 0);
	{
		_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;

		assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
		assert_int_equal(l->n_devices, 1);
		assert_int_equal(l->devices[0].target_node, -1);
		assert_int_equal(l->devices[0].size, DAX_SIZE);
		assert_int_equal(l->devices[0].n_ranges, 1);
		assert_null(pmemram_ctx_get_error_path(env->ctx));
	}

	/* 6.1: the same device left with device_dax, target_node shown again, no memmap_on_memory. */
	assert_int_equal(fake_sysfs_set_dax_driver(env->root, "dax0.0", "device_dax"), 0);
	assert_int_equal(fake_sysfs_remove(env->root, DAX "/memmap_on_memory"), 0);
	assert_int_equal(fake_sysfs_write(env->root, DAX "/target_node", "1\n"), 0);
	{
		_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;

		assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
		assert_int_equal(l->n_devices, 1);
		assert_string_equal(l->devices[0].driver, "device_dax");
		assert_int_equal(l->devices[0].mode, PMEMRAM_DAX_DEVDAX);
		assert_int_equal(l->devices[0].target_node, 1);
		assert_null(pmemram_ctx_get_error_path(env->ctx));
	}
}

/*
 * mappingN/{start,end,page_offset} ("%#llx\n" each, page_offset in pages) in 6.1 and 6.12 alike,
 * beside the write-only "mapping" attribute of a dynamic region: a device in two pieces whose
 * mapping0 is its second half, with and without 6.12's memmap_on_memory.
 */
static void test_dax_mappings(void **state)
{
	struct fake_env *env = ENV(state);

	add_hmem_device(env, "device_dax");
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax0.0", 0, 0x88000000, 0x8fffffff, 0x8000), 0);
	assert_int_equal(fake_sysfs_add_dax_mapping(env->root, "dax0.0", 1, DAX_START, 0x67ffffff, 0), 0);
	for (int form = 0; form < 2; form++) {
		_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *l = NULL;
		const struct pmemram_dax *d;
		char buf[128];

		/* 6.1 first, then 6.12 with memmap_on_memory. */
		if (form == 1)
			assert_int_equal(fake_sysfs_write(env->root, DAX "/memmap_on_memory", "0\n"), 0);
		assert_int_equal(pmemram_dax_list_read(env->ctx, &l), 0);
		assert_int_equal(l->n_devices, 1);
		d = &l->devices[0];
		assert_int_equal(d->n_ranges, 2);
		assert_int_equal(d->ranges[0].start, DAX_START);
		assert_int_equal(d->ranges[0].end, 0x67ffffff);
		assert_int_equal(d->ranges[0].page_offset, 0);
		assert_int_equal(d->ranges[1].start, 0x88000000);
		assert_int_equal(d->ranges[1].end, 0x8fffffff);
		assert_int_equal(d->ranges[1].page_offset, 0x8000);
		assert_false(pmemram_dax_contiguous(d, 0));
		assert_string_equal(pmemram_dax_ranges_format(d, buf, sizeof(buf)),
				    "0x60000000-0x67ffffff, 0x88000000-0x8fffffff");
		assert_null(pmemram_ctx_get_error_path(env->ctx));
	}
}

/* ---- memory tiers --------------------------------------------------------------- */

#define TIER_DIR "devices/virtual/memory_tiering"

struct tier {
	unsigned id;	      /* N of memory_tierN */
	const char *nodelist; /* "%*pbl" of its nodes, as both kernels print it */
};

/* Replace the tree's tiers: the subsystem's own device files, then memory_tierN/nodelist each. */
static void set_tiers(struct fake_env *env, const struct tier *tiers, size_t n)
{
	char path[96];

	assert_int_equal(fake_sysfs_remove(env->root, TIER_DIR), 0);
	assert_int_equal(fake_sysfs_write(env->root, TIER_DIR "/uevent", "%s", ""), 0);
	assert_int_equal(fake_sysfs_write(env->root, TIER_DIR "/power/control", "auto\n"), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), TIER_DIR "/memory_tier%u/nodelist", tiers[i].id);
		assert_int_equal(fake_sysfs_write(env->root, path, "%s\n", tiers[i].nodelist), 0);
		snprintf(path, sizeof(path), TIER_DIR "/memory_tier%u/uevent", tiers[i].id);
		assert_int_equal(fake_sysfs_write(env->root, path, "%s", ""), 0);
	}
}

/* The tiers pmemram_topology_read() reports for nodes 0, 1 and 2 of the HMAT tree. */
static void expect_tiers(struct fake_env *env, int tier0, int tier1, int tier2)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;

	assert_int_equal(pmemram_topology_read(env->ctx, &t), 0);
	assert_int_equal(t->n_nodes, 3);
	assert_int_equal(pmemram_topology_find_node(t, 0)->tier, tier0);
	assert_int_equal(pmemram_topology_find_node(t, 1)->tier, tier1);
	assert_int_equal(pmemram_topology_find_node(t, 2)->tier, tier2);
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

/*
 * 6.1: a tier is adistance >> MEMTIER_CHUNK_BITS (7, chunks of 128).  Every node with memory at
 * boot, CPU-less node 1 too, gets the DRAM type, MEMTIER_ADISTANCE_DRAM = 4 * 128 + 64 = 576:
 * memory_tier4.  A kmem node gets MEMTIER_DEFAULT_DAX_ADISTANCE = 5 * 576 = 2880: memory_tier22.
 * 6.1 takes no HMAT figures into account for tiers.  6.12 without HMAT figures shows the same.
 */
static void test_tiers_6_1(void **state)
{
	static const struct tier tiers[] = { { 4, "0-1" }, { 22, "2" } };

	set_tiers(ENV(state), tiers, ELEMENTSOF(tiers));
	expect_tiers(ENV(state), 4, 4, 22);
}

/*
 * 6.12: the same chunk bits and DRAM adistance, but with HMAT figures the adistance comes from
 * them (mt_perf_to_adistance(): 576 scaled by latency over DRAM's and by DRAM's bandwidth over the
 * node's), for kmem nodes since 6.7 and for CPU-less nodes with memory at boot since 6.10.  With
 * the tree's access0 figures node 1 (30 ns, 5120 MB/s against node 0's 10 ns, 10240 MB/s) gets
 * 576 * 3 * 2 = 3456, memory_tier27, and node 2 (100 ns, 1024 MB/s) 576 * 10 * 10 = 57600,
 * memory_tier450.  Whatever the numbers, the reader reports the tiers as the tree shows them.
 */
static void test_tiers_6_12(void **state)
{
	static const struct tier hmat[] = { { 4, "0" }, { 27, "1" }, { 450, "2" } };
	/* A device HMAT finds as fast as DRAM joins memory_tier4, listed "0,2". */
	static const struct tier dram_fast[] = { { 4, "0,2" }, { 27, "1" } };
	/* A node without HMAT figures falls back to the default: 6.10 renamed it
	 * MEMTIER_DEFAULT_LOWTIER_ADISTANCE, still 5 * 576, memory_tier22. */
	static const struct tier fallback[] = { { 4, "0" }, { 22, "2" }, { 27, "1" } };

	set_tiers(ENV(state), hmat, ELEMENTSOF(hmat));
	expect_tiers(ENV(state), 4, 27, 450);
	set_tiers(ENV(state), dram_fast, ELEMENTSOF(dram_fast));
	expect_tiers(ENV(state), 4, 27, 4);
	set_tiers(ENV(state), fallback, ELEMENTSOF(fallback));
	expect_tiers(ENV(state), 4, 27, 22);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_block_forms, fake_env_setup_stock),
		FAKE_TEST(test_block_without_node, fake_env_setup_stock),
		FAKE_TEST(test_auto_online_forms, fake_env_setup_stock),
		FAKE_TEST(test_dax_memmap_on_memory, fake_env_setup_stock),
		FAKE_TEST(test_dax_target_node, fake_env_setup_stock),
		FAKE_TEST(test_dax_mappings, fake_env_setup_stock),
		FAKE_TEST(test_tiers_6_1, fake_env_setup_hmat),
		FAKE_TEST(test_tiers_6_12, fake_env_setup_hmat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
