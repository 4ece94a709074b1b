/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the planner: hand-written states, refusals, and replanning after a kill at every step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmemram-plan.h"
#include "pmemram-private.h"

#define MiB (UINT64_C(1) << 20)
#define BLOCK (128 * MiB)
/* The brief's guest: a 1006 MiB device at 5 GiB holds blocks 40..46. */
#define START UINT64_C(0x140000000)
#define SIZE (1006 * MiB)
#define FIRST 40
#define END 47
#define UUID "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f"
#define UUID2 "11111111-2222-3333-4444-555555555555"
#define UUID3 "77777777-2222-3333-4444-555555555555"
/* What a create = devdax claim named "made" gives its namespace (computed apart, in Python). */
#define MADE_UUID "851e5c5c-2378-8c1e-a0bf-123961976f21"
#define BOTH_ZONES ((1u << PMEMRAM_ZONE_NORMAL) | (1u << PMEMRAM_ZONE_MOVABLE))

/* A system the tests can edit and the simulator can change, as the kernel would. */
struct world {
	struct pmemram_memblock blocks[64];
	struct pmemram_observed_dax devices[4];
	struct pmemram_observed_namespace namespaces[2];
	struct pmemram_observed_region regions[2];
	struct pmemram_observed_memdev memdevs[2];
	struct pmemram_observed_cxl_region cxl_regions[2];
	struct pmemram_observed o;
};

static int compare_blocks(const void *a, const void *b)
{
	const struct pmemram_memblock *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void add_blocks(struct world *w, unsigned long first, unsigned long end, enum pmemram_block_state state,
		       enum pmemram_zone zone, int node)
{
	for (unsigned long id = first; id < end; id++) {
		assert_true(w->o.n_blocks < ELEMENTSOF(w->blocks));
		w->blocks[w->o.n_blocks++] = (struct pmemram_memblock){
			.id = id,
			.phys_index = id,
			.state = state,
			.zones = { .first = zone, .mask = state == PMEMRAM_BLOCK_ONLINE ? 1u << zone : BOTH_ZONES },
			.node = node,
		};
	}
	qsort(w->blocks, w->o.n_blocks, sizeof(w->blocks[0]), compare_blocks);
}

static struct pmemram_memblock *block(struct world *w, unsigned long id)
{
	for (size_t i = 0; i < w->o.n_blocks; i++)
		if (w->blocks[i].id == id)
			return &w->blocks[i];
	fail_msg("no block %lu", id);
	return NULL;
}

/* Blocks first..end-1, which exist, online in zone (as someone onlined them earlier). */
static void set_online(struct world *w, unsigned long first, unsigned long end, enum pmemram_zone zone)
{
	for (unsigned long id = first; id < end; id++) {
		block(w, id)->state = PMEMRAM_BLOCK_ONLINE;
		block(w, id)->zones = (struct pmemram_zones){ .first = zone, .mask = 1u << zone };
	}
}

/* Node 0's boot memory (blocks 0..7, Normal), so lookups skip unrelated blocks. */
static void world_init(struct world *w)
{
	*w = (struct world){};
	w->o = (struct pmemram_observed){
		.block_size = BLOCK,
		.auto_online = PMEMRAM_AUTO_ONLINE_OFFLINE,
		.blocks = w->blocks,
		.devices = w->devices,
		.namespaces = w->namespaces,
		.regions = w->regions,
		.memdevs = w->memdevs,
		.cxl_regions = w->cxl_regions,
	};
	add_blocks(w, 0, 8, PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_NORMAL, 0);
}

/* A pmem region of one NVDIMM with the kernel's default 16 MiB alignment. */
static struct pmemram_observed_region *add_region(struct world *w, const char *name, uint64_t available)
{
	struct pmemram_observed_region *r;

	assert_true(w->o.n_regions < ELEMENTSOF(w->regions));
	r = &w->regions[w->o.n_regions++];
	*r = (struct pmemram_observed_region){
		.has_extent = true, .available = available, .align = 16 * MiB, .ways = 1
	};
	strcpy(r->name, name);
	return r;
}

static struct pmemram_observed_dax *add_dax(struct world *w, const char *name, const char *uuid,
					    enum pmemram_dax_mode mode, uint64_t start, uint64_t size)
{
	struct pmemram_observed_dax *d = &w->devices[w->o.n_devices++];

	*d = (struct pmemram_observed_dax){
		.dax = { .mode = mode, .target_node = 2, .size = size, .has_resource = true, .resource = start },
	};
	strcpy(d->dax.name, name);
	strcpy(d->dax.driver, mode == PMEMRAM_DAX_DEVDAX ? "device_dax" : mode == PMEMRAM_DAX_SYSTEM_RAM ? "kmem" : "");
	strcpy(d->uuid, uuid);
	strcpy(d->region, "region0");
	return d;
}

/* add_dax() for a devdax namespace as ndctl creates it: its info block's UUID is info (what
 * daxctl.conf.d names), its label's another one. */
static struct pmemram_observed_dax *add_nd_dax(struct world *w, const char *name, const char *info, uint64_t start,
					       uint64_t size)
{
	struct pmemram_observed_dax *d =
		add_dax(w, name, "0f0f0f0f-0000-4000-8000-000000000000", PMEMRAM_DAX_DEVDAX, start, size);

	d->uuid[7] = name[3]; /* one label UUID a device */
	strcpy(d->info_uuid, info);
	return d;
}

/* dax0.0 claimed by UUID in the given mode; kmem-bound devices get their blocks offline. */
static struct pmemram_observed_dax *world_with_dax(struct world *w, enum pmemram_dax_mode mode)
{
	world_init(w);
	if (mode == PMEMRAM_DAX_SYSTEM_RAM)
		add_blocks(w, FIRST, END, PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_NORMAL, 2);
	return add_dax(w, "dax0.0", UUID, mode, START, SIZE);
}

static struct pmemram_config *config(const char *text)
{
	struct pmemram_config_errors e = {};
	struct pmemram_config *c;

	assert_int_equal(pmemram_config_new(&c), 0);
	assert_int_equal(pmemram_config_parse(c, "test.conf", text, strlen(text), &e), 0);
	assert_int_equal(pmemram_config_verify(c, &e), 0);
	return c;
}

/* config(mine) with the sections of a daxctl.conf.d file a.conf merged in. */
static struct pmemram_config *config_daxctl(const char *mine, const char *theirs)
{
	struct pmemram_config *c = config(mine);
	struct pmemram_config_errors e = {};

	assert_int_equal(pmemram_daxctl_parse(c, "/etc/daxctl.conf.d/a.conf", theirs, strlen(theirs), &e), 0);
	assert_int_equal(pmemram_daxctl_merge(c, &e), 0);
	return c;
}

#define CLAIM_UUID "[claim \"fast\"]\nmatch = uuid:" UUID "\n"

static struct pmemram_plan *plan(const struct world *w, const char *config_text)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config(config_text);
	struct pmemram_plan *p = NULL;

	assert_int_equal(pmemram_plan_compute(c, &w->o, &p), 0);
	assert_non_null(p);
	return p;
}

static void expect_action(const struct pmemram_plan *p, size_t i, enum pmemram_action_type type, const char *device,
			  unsigned long block)
{
	assert_true(i < p->n_actions);
	assert_int_equal(p->actions[i].type, type);
	assert_string_equal(p->actions[i].device, device);
	if (type == PMEMRAM_ACTION_ONLINE_BLOCK || type == PMEMRAM_ACTION_OFFLINE_BLOCK)
		assert_int_equal(p->actions[i].block, block);
}

static void expect_verdict(const struct pmemram_plan *p, size_t i, enum pmemram_verdict verdict,
			   enum pmemram_reason reason, const char *text)
{
	assert_true(i < p->n_verdicts);
	assert_int_equal(p->verdicts[i].verdict, verdict);
	assert_int_equal(p->verdicts[i].reason, reason);
	if (text)
		assert_string_equal(p->verdicts[i].text, text);
}

/* A refusal: the device's only verdict, no actions. */
static void expect_refusal(const struct world *w, const char *config_text, enum pmemram_reason reason, const char *text)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(w, config_text);

	assert_int_equal(p->n_actions, 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_REFUSED, reason, text);
	assert_true(pmemram_plan_has_refusals(p));
}

/* ---- the kernel, simulated: every action must be legal in the state it meets ---------- */

static struct pmemram_observed_dax *find_dax(struct world *w, const char *name)
{
	for (size_t i = 0; i < w->o.n_devices; i++)
		if (streq(w->devices[i].dax.name, name))
			return &w->devices[i];
	fail_msg("no device %s", name);
	return NULL;
}

static void apply(struct world *w, const struct pmemram_action *a)
{
	struct pmemram_observed_dax *d;
	struct pmemram_memblock *b;
	unsigned long first, end;

	switch (a->type) {
	case PMEMRAM_ACTION_CONVERT_NAMESPACE:
		assert_int_equal(w->o.n_namespaces, 1);
		assert_string_equal(w->namespaces[0].name, a->device);
		add_dax(w, "dax0.0", w->namespaces[0].uuid, PMEMRAM_DAX_DEVDAX, START, SIZE);
		w->o.n_namespaces = 0;
		break;
	case PMEMRAM_ACTION_CREATE_NAMESPACE:
		/* The free space stays as it was: only the name keeps a second one from being made. */
		assert_string_equal(a->device, "region0");
		assert_string_equal(a->uuid, MADE_UUID);
		d = add_dax(w, "dax0.0", a->uuid, PMEMRAM_DAX_DEVDAX, START, SIZE);
		strcpy(d->namespace, "namespace0.0");
		strcpy(d->ns_name, a->claim);
		break;
	case PMEMRAM_ACTION_DISABLE_DEVDAX:
		d = find_dax(w, a->device);
		assert_int_equal(d->dax.mode, PMEMRAM_DAX_DEVDAX);
		d->dax.mode = PMEMRAM_DAX_UNBOUND;
		break;
	case PMEMRAM_ACTION_BIND_KMEM:
		d = find_dax(w, a->device);
		assert_int_equal(d->dax.mode, PMEMRAM_DAX_UNBOUND);
		assert_int_equal(pmemram_block_range(d->dax.resource, d->dax.size, BLOCK, &first, &end), 0);
		d->dax.mode = PMEMRAM_DAX_SYSTEM_RAM;
		add_blocks(w, first, end, PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_NORMAL, a->node);
		break;
	case PMEMRAM_ACTION_OFFLINE_BLOCK:
		b = block(w, a->block);
		assert_int_equal(b->state, PMEMRAM_BLOCK_ONLINE);
		*b = (struct pmemram_memblock){ .id = b->id, .state = PMEMRAM_BLOCK_OFFLINE, .node = b->node,
						.zones = { .first = PMEMRAM_ZONE_NORMAL, .mask = BOTH_ZONES } };
		break;
	case PMEMRAM_ACTION_ONLINE_BLOCK:
		b = block(w, a->block);
		assert_int_equal(b->state, PMEMRAM_BLOCK_OFFLINE); /* never online twice */
		assert_true(b->zones.mask & (1u << a->zone));
		set_online(w, a->block, a->block + 1, a->zone);
		break;
	default:
		fail();
	}
}

/* Plan and apply, as the daemon does, until a plan is empty (a conversion takes a second round);
 * then everything claimed must be converged.  Returns the number of actions applied. */
static size_t converge(struct world *w, const char *config_text)
{
	size_t total = 0;

	for (int round = 0;; round++) {
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(w, config_text);

		if (p->n_actions == 0) {
			for (size_t i = 0; i < p->n_verdicts; i++)
				assert_int_equal(p->verdicts[i].verdict, PMEMRAM_VERDICT_CONVERGED);
			return total;
		}
		assert_true(round < 2);
		for (size_t i = 0; i < p->n_actions; i++)
			apply(w, &p->actions[i]);
		total += p->n_actions;
	}
}

/* ---- cases ---------------------------------------------------------------------------- */

/* ndctl list -N shows a devdax namespace's info-block UUID, not its label's: both match. */
static void test_claim_by_info_uuid(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *d;
	struct world w;

	d = world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	strcpy(d->info_uuid, UUID2);
	p = plan(&w, "[claim \"fast\"]\nmatch = uuid:" UUID2 "\n");
	assert_int_equal(p->n_unmatched, 0);
	assert_string_equal(p->verdicts[0].claim, "fast");
	assert_string_equal(p->verdicts[0].matched_by, "info-uuid");
	assert_int_equal(p->n_actions, 2 + 7);
}

static void test_fresh_devdax(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	p = plan(&w, CLAIM_UUID);

	assert_int_equal(p->n_actions, 2 + 7);
	expect_action(p, 0, PMEMRAM_ACTION_DISABLE_DEVDAX, "dax0.0", 0);
	expect_action(p, 1, PMEMRAM_ACTION_BIND_KMEM, "dax0.0", 0);
	assert_int_equal(p->actions[1].node, 2);
	for (size_t i = 0; i < 7; i++) {
		expect_action(p, 2 + i, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", FIRST + i);
		assert_int_equal(p->actions[2 + i].zone, PMEMRAM_ZONE_MOVABLE);
		assert_string_equal(p->actions[2 + i].claim, "fast");
	}
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "disable device_dax, bind kmem, then online 7 blocks as movable on node 2");
	assert_int_equal(p->verdicts[0].n_blocks, 7);
	assert_string_equal(p->verdicts[0].matched_by, "uuid");
	assert_int_equal(p->n_unmatched, 0);
	assert_false(pmemram_plan_has_refusals(p));
	/* Taking dax0.0 from device_dax depends on whether a process maps it. */
	assert_true(pmemram_plan_needs_users(p));
}

static void test_converged(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_SYSTEM_RAM);
	set_online(&w, FIRST, END, PMEMRAM_ZONE_MOVABLE);
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_CONVERGED, PMEMRAM_REASON_NONE, "7 blocks online as movable");
	assert_int_equal(p->verdicts[0].n_blocks_done, 7);
}

/* kill -9 after 3 of 7 blocks: only the other 4 are onlined. */
static void test_partial(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_SYSTEM_RAM);
	set_online(&w, FIRST, FIRST + 3, PMEMRAM_ZONE_MOVABLE);
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 4);
	for (size_t i = 0; i < 4; i++)
		expect_action(p, i, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", FIRST + 3 + i);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "3 of 7 blocks online as movable; 4 to online, 0 to move from another zone");
	/* Onlining kmem's blocks does not depend on who maps what. */
	assert_false(pmemram_plan_needs_users(p));
	assert_int_equal(converge(&w, CLAIM_UUID), 4);
}

/* Scoped to one block (udev-online): the device's other blocks were not read, so they are neither
 * missing nor planned, and a block of the device still being added elsewhere does not hold this
 * one up. */
static void test_scoped(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_blocks(&w, FIRST + 2, FIRST + 3, PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_NORMAL, 2);
	add_dax(&w, "dax0.0", UUID, PMEMRAM_DAX_SYSTEM_RAM, START, SIZE);
	w.o.scoped = true;
	w.o.scope_first = FIRST + 2;
	w.o.scope_end = FIRST + 3;
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", FIRST + 2);
	p = pmemram_plan_free(p);

	set_online(&w, FIRST + 2, FIRST + 3, PMEMRAM_ZONE_MOVABLE);
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_CONVERGED, PMEMRAM_REASON_NONE, NULL);
}

/* Stopped after any number of steps, a new plan finishes the rest without redoing anything. */
static void test_kill_anywhere(void **state)
{
	static const char *const configs[] = {
		CLAIM_UUID,
		"[claim \"n\"]\nmatch = uuid:" UUID "\nonline = normal\nconvert = yes\n",
	};

	for (size_t c = 0; c < ELEMENTSOF(configs); c++)
		for (size_t k = 0;; k++) {
			_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL, *rest = NULL;
			struct world w;

			if (c == 0)
				world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
			else {
				world_init(&w);
				w.o.n_namespaces = 1;
				w.namespaces[0] = (struct pmemram_observed_namespace){
					.name = "namespace0.0", .uuid = UUID, .mode = PMEMRAM_NS_FSDAX, .blockdev = "pmem0"
				};
			}
			p = plan(&w, configs[c]);
			if (k > p->n_actions)
				break;
			for (size_t i = 0; i < k; i++)
				apply(&w, &p->actions[i]);

			rest = plan(&w, configs[c]);
			/* a conversion ends the plan: the new dax device is planned once it exists */
			if (c == 0 || k == 0)
				assert_int_equal(rest->n_actions, p->n_actions - k);
			converge(&w, configs[c]);
		}
}

static void test_unbound(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_UNBOUND);
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 1 + 7);
	expect_action(p, 0, PMEMRAM_ACTION_BIND_KMEM, "dax0.0", 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "bind kmem, then online 7 blocks as movable on node 2");
}

static void test_unclaimed(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	p = plan(&w, "[claim \"other\"]\nmatch = uuid:" UUID2 "\n");
	assert_int_equal(p->n_actions, 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, "not claimed by any configuration");
	assert_string_equal(p->verdicts[0].claim, "");
	assert_false(pmemram_plan_has_refusals(p));
	assert_int_equal(p->n_unmatched, 1);
	assert_string_equal(p->unmatched[0], "other");
	p = pmemram_plan_free(p);

	/* no configuration at all: nothing is touched */
	p = plan(&w, "");
	assert_int_equal(p->n_actions, 0);
	assert_int_equal(p->verdicts[0].verdict, PMEMRAM_VERDICT_IGNORED);
}

static void test_busy(void **state)
{
	struct pmemram_observed_dax *d;
	struct world w;

	d = world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	d->mapped = true;
	strcpy(d->mapped_by, "pid 1234 (qemu)");
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_MAPPED, "in use by pid 1234 (qemu): stop it before pmemram can take the memory");

	d->mapped_by[0] = '\0';
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_MAPPED, "in use by a process: stop it before pmemram can take the memory");

	d->open_only = true;
	strcpy(d->mapped_by, "pid 5151 (holder)");
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_OPEN,
		       "held open by pid 5151 (holder) (not mapped yet): stop it before pmemram can take the memory");
	d->open_only = false;

	d->mapped = false;
	d->dax.target_node = -1;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_NO_TARGET_NODE,
		       "no target node: the firmware did not assign one, kmem would reject it");

	d->dax.has_resource = false;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_NO_RESOURCE,
		       "physical address unknown (resource is readable by root only)");

	d->dax.mode = PMEMRAM_DAX_OTHER;
	strcpy(d->dax.driver, "dax_pmem_compat");
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_OTHER_DRIVER, "bound to driver dax_pmem_compat, not device_dax or kmem");
}

static void test_too_small(void **state)
{
	struct pmemram_observed_dax *d;
	struct world w;

	d = world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	d->dax.resource = UINT64_C(0x148000000);
	d->dax.size = 100 * MiB;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_TOO_SMALL,
		       "100 MiB at 0x148000000 holds no whole 128 MiB memory block (start aligned up 0x148000000, "
		       "end aligned down 0x148000000)");

	/* a whole block's worth, but straddling a boundary */
	d->dax.resource = UINT64_C(0x144000000);
	d->dax.size = BLOCK;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_TOO_SMALL,
		       "128 MiB at 0x144000000 holds no whole 128 MiB memory block (start aligned up 0x148000000, "
		       "end aligned down 0x148000000)");

	/* inside one block */
	d->dax.resource = UINT64_C(0x149000000);
	d->dax.size = MiB;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_TOO_SMALL,
		       "1 MiB at 0x149000000 holds no whole 128 MiB memory block (start aligned up 0x150000000, "
		       "end aligned down 0x148000000)");
}

static void test_auto_online(void **state)
{
	static const struct {
		enum pmemram_auto_online policy;
		const char *online;
		bool refused;
	} cases[] = {
		{ PMEMRAM_AUTO_ONLINE_OFFLINE, "movable", false }, { PMEMRAM_AUTO_ONLINE_OFFLINE, "normal", false },
		{ PMEMRAM_AUTO_ONLINE_ONLINE, "movable", false },  { PMEMRAM_AUTO_ONLINE_ONLINE, "normal", false },
		{ PMEMRAM_AUTO_ONLINE_KERNEL, "movable", true },   { PMEMRAM_AUTO_ONLINE_KERNEL, "normal", false },
		{ PMEMRAM_AUTO_ONLINE_MOVABLE, "movable", false }, { PMEMRAM_AUTO_ONLINE_MOVABLE, "normal", true },
	};
	struct world w;
	char conf[256];

	world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;

		snprintf(conf, sizeof(conf), CLAIM_UUID "online = %s\n", cases[i].online);
		w.o.auto_online = cases[i].policy;
		p = plan(&w, conf);
		assert_int_equal(pmemram_plan_has_refusals(p), cases[i].refused);
		assert_int_equal(p->n_actions, cases[i].refused ? 0 : 9);
	}

	/* "online" is set to the claim's zone for the bind, unless pmemram may not touch the knob */
	w.o.auto_online = PMEMRAM_AUTO_ONLINE_ONLINE;
	expect_refusal(&w, "[global]\nonline-at-bind = no\n" CLAIM_UUID, PMEMRAM_REASON_AUTO_ONLINE,
		       "auto_online_blocks is 'online': the kernel would online the new blocks itself, not as movable; "
		       "set it to 'offline'");

	/* once kmem is bound the blocks exist: the policy no longer matters */
	world_with_dax(&w, PMEMRAM_DAX_SYSTEM_RAM);
	w.o.auto_online = PMEMRAM_AUTO_ONLINE_ONLINE;
	assert_int_equal(converge(&w, CLAIM_UUID), 7);
}

static void test_udev_online(void **state)
{
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	w.o.udev = (struct pmemram_observed_udev){ .onlines_memory = true, .policy = PMEMRAM_AUTO_ONLINE_ONLINE,
						   .rule = "/usr/lib/udev/rules.d/40-redhat.rules:12" };
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_UDEV_ONLINE,
		       "udev rule /usr/lib/udev/rules.d/40-redhat.rules:12 onlines new memory as 'online', not as movable");

	w.o.udev.policy = PMEMRAM_AUTO_ONLINE_MOVABLE;
	assert_int_equal(converge(&w, CLAIM_UUID), 9);
}

static void test_wrong_zone(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_SYSTEM_RAM);
	set_online(&w, FIRST, END, PMEMRAM_ZONE_MOVABLE);
	/* someone else onlined two blocks: one into Normal, one spanning zones */
	set_online(&w, 44, 45, PMEMRAM_ZONE_NORMAL);
	set_online(&w, 46, 47, PMEMRAM_ZONE_NONE);
	block(&w, 45)->state = PMEMRAM_BLOCK_OFFLINE;
	block(&w, 45)->zones.mask = BOTH_ZONES;

	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_actions, 5);
	expect_action(p, 0, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", 45);
	expect_action(p, 1, PMEMRAM_ACTION_OFFLINE_BLOCK, "dax0.0", 44);
	expect_action(p, 2, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", 44);
	expect_action(p, 3, PMEMRAM_ACTION_OFFLINE_BLOCK, "dax0.0", 46);
	expect_action(p, 4, PMEMRAM_ACTION_ONLINE_BLOCK, "dax0.0", 46);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "4 of 7 blocks online as movable; 1 to online, 2 to move from another zone");
	assert_int_equal(converge(&w, CLAIM_UUID), 5);
}

static void test_block_refusals(void **state)
{
	struct world w;

	world_with_dax(&w, PMEMRAM_DAX_SYSTEM_RAM);
	block(&w, 43)->state = PMEMRAM_BLOCK_GOING_OFFLINE;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_BLOCK_GOING_OFFLINE,
		       "memory43 is going offline (a release in progress?); retry when it settles");

	/* Still being added: no node yet, so neither its zones nor an online write are safe. */
	block(&w, 43)->state = PMEMRAM_BLOCK_OFFLINE;
	block(&w, 43)->node = -1;
	block(&w, 43)->zones = (struct pmemram_zones){};
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_BLOCK_BEING_ADDED,
		       "memory43 is still being added (no node link yet); retry when it settles");

	block(&w, 43)->node = 2;
	block(&w, 43)->zones = (struct pmemram_zones){ PMEMRAM_ZONE_NORMAL, 1u << PMEMRAM_ZONE_NORMAL };
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_ZONE_NOT_VALID, "memory43 cannot be onlined as movable (valid zones: Normal)");

	world_init(&w);
	add_blocks(&w, FIRST, FIRST + 5, PMEMRAM_BLOCK_OFFLINE, PMEMRAM_ZONE_NORMAL, 2);
	add_dax(&w, "dax0.0", UUID, PMEMRAM_DAX_SYSTEM_RAM, START, SIZE);
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_BLOCKS_MISSING,
		       "bound to kmem, but 2 of the 7 blocks memory40..memory46 are absent");
}

/* uuid beats device beats region beats all-devdax, whatever the order in the file. */
static void test_precedence(void **state)
{
	static const char conf[] = "[claim \"all\"]\nmatch = all-devdax\n"
				   "[claim \"region\"]\nmatch = region:region1\nonline = normal\n"
				   "[claim \"dev\"]\nmatch = device:dax1.0\n"
				   "[claim \"uuid\"]\nmatch = uuid:" UUID2 "\n"
				   "[claim \"nothing\"]\nmatch = region:region9\n";
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_dax(&w, "dax0.0", "", PMEMRAM_DAX_DEVDAX, START, SIZE);
	strcpy(add_dax(&w, "dax1.0", UUID2, PMEMRAM_DAX_DEVDAX, START + 8 * BLOCK, BLOCK)->region, "region1");
	strcpy(add_dax(&w, "dax1.1", "", PMEMRAM_DAX_DEVDAX, START + 9 * BLOCK, BLOCK)->region, "region1");
	strcpy(add_dax(&w, "dax2.0", UUID, PMEMRAM_DAX_DEVDAX, START + 10 * BLOCK, BLOCK)->region, "region2");

	p = plan(&w, conf);
	assert_int_equal(p->n_verdicts, 4);
	assert_string_equal(p->verdicts[0].claim, "all");
	assert_string_equal(p->verdicts[1].claim, "uuid");
	assert_string_equal(p->verdicts[2].claim, "region");
	assert_string_equal(p->verdicts[3].claim, "all");
	assert_int_equal(p->actions[p->n_actions - 1].zone, PMEMRAM_ZONE_MOVABLE);
	assert_int_equal(p->n_unmatched, 2);
	assert_string_equal(p->unmatched[0], "dev");
	assert_string_equal(p->unmatched[1], "nothing");
}

/* A claim of daxctl.conf.d's comes after every claim of pmemram's own, however specific. */
static void test_precedence_daxctl(void **state)
{
	static const char mine[] = "[claim \"region\"]\nmatch = region:region0\nonline = normal\n";
	static const char theirs[] = "[reconfigure-device x]\nnvdimm.uuid = " UUID "\nmode = system-ram\n"
				     "[reconfigure-device y]\nnvdimm.uuid = " UUID2 "\nmode = system-ram\n";
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config_daxctl(mine, theirs);
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	assert_int_equal(c->n_claims, 3);

	world_init(&w);
	add_nd_dax(&w, "dax0.0", UUID, START, SIZE);
	strcpy(add_nd_dax(&w, "dax1.0", UUID2, START + 8 * BLOCK, BLOCK)->region, "region1");
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), 0);
	assert_int_equal(p->n_verdicts, 2);
	assert_string_equal(p->verdicts[0].claim, "region");
	assert_string_equal(p->verdicts[1].claim, "daxctl:y");
	/* daxctl:x matched dax0.0 and lost it to "region": not a claim that matches nothing */
	assert_int_equal(p->n_unmatched, 0);
}

/* A broad pmemram claim that wins a device a daxctl section names differently: the claim is used,
 * and the verdict says which section disagrees, where. */
static void test_daxctl_conflict_broad(void **state)
{
	static const char mine[] = "[claim \"region\"]\nmatch = region:region0\nonline = normal\n"
				   "[claim \"rest\"]\nmatch = all-devdax\n";
	static const char theirs[] = "[reconfigure-device x]\nnvdimm.uuid = " UUID "\nmode = system-ram\n"
				     "[reconfigure-device y]\nnvdimm.uuid = " UUID2 "\nmode = devdax\n"
				     "[reconfigure-device z]\nnvdimm.uuid = " UUID3 "\nmode = system-ram\n";
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config_daxctl(mine, theirs);
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_nd_dax(&w, "dax0.0", UUID, START, SIZE);
	strcpy(add_nd_dax(&w, "dax1.0", UUID2, START + 8 * BLOCK, BLOCK)->region, "region1");
	strcpy(add_nd_dax(&w, "dax2.0", UUID3, START + 16 * BLOCK, BLOCK)->region, "region2");
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), 0);
	assert_int_equal(p->n_verdicts, 3);
	/* movable = true (the default) against online = normal */
	assert_string_equal(p->verdicts[0].claim, "region");
	assert_non_null(strstr(p->verdicts[0].conflict, "'x'"));
	assert_non_null(strstr(p->verdicts[0].conflict, "/etc/daxctl.conf.d/a.conf:1"));
	/* mode = devdax: daxctl leaves it a dax device, the claim onlines it */
	assert_string_equal(p->verdicts[1].claim, "rest");
	assert_non_null(strstr(p->verdicts[1].conflict, "mode = devdax"));
	assert_non_null(strstr(p->verdicts[1].conflict, "/etc/daxctl.conf.d/a.conf:4"));
	/* movable both ways: no conflict */
	assert_string_equal(p->verdicts[2].claim, "rest");
	assert_string_equal(p->verdicts[2].conflict, "");
	assert_int_equal(p->n_unmatched, 0);
}

/* Sections for one UUID in two files, the one whose mode counts read last: the conflict names
 * that one, not the other that only sets movable. */
static void test_daxctl_conflict_mode_section(void **state)
{
	static const char a[] = "[reconfigure-device only-movable]\nnvdimm.uuid = " UUID2 "\nmovable = false\n";
	static const char b[] = "# mode\n[reconfigure-device dd]\nnvdimm.uuid = " UUID2 "\nmode = devdax\n";
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config("[claim \"rest\"]\nmatch = all-devdax\n");
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_config_errors e = {};
	struct world w;

	assert_int_equal(pmemram_daxctl_parse(c, "/etc/daxctl.conf.d/10-a.conf", a, strlen(a), &e), 0);
	assert_int_equal(pmemram_daxctl_parse(c, "/etc/daxctl.conf.d/20-b.conf", b, strlen(b), &e), 0);
	assert_int_equal(pmemram_daxctl_merge(c, &e), 0);
	world_init(&w);
	add_nd_dax(&w, "dax1.0", UUID2, START, BLOCK);
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), 0);
	assert_int_equal(p->n_verdicts, 1);
	assert_string_equal(p->verdicts[0].claim, "rest");
	assert_string_equal(p->verdicts[0].conflict,
			    "daxctl section 'dd' (/etc/daxctl.conf.d/20-b.conf:2) says mode = devdax, claim 'rest' "
			    "onlines it as movable: the claim is used");
}

/* A daxctl section matches the info block's UUID alone, as daxctl does: one naming the
 * namespace's label UUID claims nothing, and the device's verdict says why. */
static void test_daxctl_info_uuid_only(void **state)
{
	static const char theirs[] = "[reconfigure-device label]\nnvdimm.uuid = " UUID "\nmode = system-ram\n"
				     "[reconfigure-device info]\nnvdimm.uuid = " UUID3 "\nmode = system-ram\n";
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config_daxctl("", theirs);
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *d;
	struct world w;

	world_init(&w);
	d = add_dax(&w, "dax0.0", UUID, PMEMRAM_DAX_DEVDAX, START, SIZE);
	strcpy(d->info_uuid, UUID2);
	d = add_dax(&w, "dax1.0", UUID2, PMEMRAM_DAX_DEVDAX, START + 8 * BLOCK, BLOCK);
	strcpy(d->info_uuid, UUID3);
	strcpy(d->region, "region1");
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), 0);
	assert_int_equal(p->n_verdicts, 2);
	assert_int_equal(p->verdicts[0].verdict, PMEMRAM_VERDICT_IGNORED);
	assert_string_equal(p->verdicts[0].text,
			    "not claimed: daxctl section 'label' (/etc/daxctl.conf.d/a.conf:1) names the namespace's "
			    "label UUID, and daxctl matches the info block's, " UUID2 " (ndctl list's uuid)");
	assert_string_equal(p->verdicts[1].claim, "daxctl:info");
	assert_string_equal(p->verdicts[1].matched_by, "info-uuid");
}

/* Soft-reserved devices are claimed by range or target node, never NVDIMM ones, whatever their names. */
static void test_hmem(void **state)
{
	static const char conf[] = "[claim \"window\"]\nmatch = hmem:60000000-6fffffff\n"
				   "[claim \"node1\"]\nmatch = hmem:node=1\nonline = normal\n";
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *hmem, *hmem2, *nvdimm;
	struct world w;

	world_init(&w);
	/* an NVDIMM device inside the range and on node 1: neither hmem claim takes it */
	nvdimm = add_dax(&w, "dax0.0", UUID, PMEMRAM_DAX_DEVDAX, 0x60000000, 2 * BLOCK);
	nvdimm->dax.source = PMEMRAM_DAX_SOURCE_NVDIMM;
	nvdimm->dax.target_node = 1;
	hmem = add_dax(&w, "dax1.0", "", PMEMRAM_DAX_DEVDAX, 0x60000000, 2 * BLOCK);
	hmem->dax.source = PMEMRAM_DAX_SOURCE_HMEM;
	hmem->dax.target_node = 1;
	hmem->region[0] = '\0';
	/* past the range's end by one byte: only the node claim */
	hmem2 = add_dax(&w, "dax2.0", "", PMEMRAM_DAX_DEVDAX, 0x68000000, BLOCK + 1);
	hmem2->dax.source = PMEMRAM_DAX_SOURCE_HMEM;
	hmem2->dax.target_node = 1;
	hmem2->region[0] = '\0';

	p = plan(&w, conf);
	assert_int_equal(p->n_verdicts, 3);
	expect_verdict(p, 0, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	assert_string_equal(p->verdicts[1].claim, "window");
	assert_string_equal(p->verdicts[1].matched_by, "hmem-range");
	expect_verdict(p, 1, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "disable device_dax, bind kmem, then online 2 blocks as movable on node 1");
	assert_string_equal(p->verdicts[2].claim, "node1");
	assert_string_equal(p->verdicts[2].matched_by, "hmem-node");
	assert_int_equal(p->n_unmatched, 0);
	p = pmemram_plan_free(p);

	/* the same device under another name (the next boot's) is still the range's */
	strcpy(hmem->dax.name, "dax0.1");
	hmem2->dax.target_node = 2;
	p = plan(&w, conf);
	assert_string_equal(p->verdicts[1].device, "dax0.1");
	assert_string_equal(p->verdicts[1].claim, "window");
	expect_verdict(p, 2, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	assert_int_equal(p->n_unmatched, 1);
	assert_string_equal(p->unmatched[0], "node1");
	p = pmemram_plan_free(p);

	/* no physical address known (not root): a range claim cannot match */
	hmem->dax.has_resource = false;
	p = plan(&w, "[claim \"window\"]\nmatch = hmem:60000000-6fffffff\n");
	expect_verdict(p, 1, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	p = pmemram_plan_free(p);
	hmem->dax.has_resource = true;

	/* the range's end is inclusive, as /proc/iomem prints it */
	hmem->dax.resource = UINT64_C(0xffffffff00000000);
	hmem->dax.size = BLOCK;
	p = plan(&w, "[claim \"top\"]\nmatch = hmem:ffffffff00000000-ffffffff07ffffff\n");
	assert_string_equal(p->verdicts[1].claim, "top");
	p = pmemram_plan_free(p);
	p = plan(&w, "[claim \"top\"]\nmatch = hmem:ffffffff00000000-ffffffff07fffffe\n");
	expect_verdict(p, 1, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	p = pmemram_plan_free(p);

	/* a dynamic region's seed device, of size 0, on the node: not the node claim's (it would be
	 * refused as too small every reconcile) */
	hmem2->dax.target_node = 1;
	hmem2->dax.size = 0;
	hmem2->dax.has_resource = false;
	p = plan(&w, "[claim \"node1\"]\nmatch = hmem:node=1\n");
	assert_string_equal(p->verdicts[1].claim, "node1");
	expect_verdict(p, 2, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
}

/* What kmem would reject with a cryptic message, refused with the reason instead. */
static void test_hmem_refusals(void **state)
{
	static const char conf[] =
		"[claim \"node\"]\nmatch = hmem:node=1\n[claim \"window\"]\nmatch = hmem:0-ffffffff\n";
	struct pmemram_observed_dax *d;
	struct world w;

	world_init(&w);
	d = add_dax(&w, "dax0.0", "", PMEMRAM_DAX_DEVDAX, 0x60000000, 2 * BLOCK);
	d->dax.source = PMEMRAM_DAX_SOURCE_HMEM;
	d->dax.target_node = -1;
	expect_refusal(&w, conf, PMEMRAM_REASON_NO_TARGET_NODE,
		       "no target node: the firmware did not assign one, kmem would reject it");
	d->dax.target_node = 1;
	d->dax.resource = 0x61000000;
	d->dax.size = BLOCK + 16 * MiB;
	expect_refusal(&w, conf, PMEMRAM_REASON_TOO_SMALL,
		       "144 MiB at 0x61000000 holds no whole 128 MiB memory block (start aligned up 0x68000000, "
		       "end aligned down 0x68000000)");
}

/* An hmem device of several ranges: a range claim takes it only with every range inside; one in
 * pieces is refused naming its ranges, one whose ranges follow each other is one range. */
static void test_hmem_ranges(void **state)
{
	static const char window[] = "[claim \"window\"]\nmatch = hmem:60000000-6fffffff\n";
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *d;
	struct world w;

	world_init(&w);
	/* mapping0 inside the window, mapping1 far above it; resource and size alone would fit. */
	d = add_dax(&w, "dax1.0", "", PMEMRAM_DAX_DEVDAX, 0x60000000, 2 * BLOCK);
	d->dax.source = PMEMRAM_DAX_SOURCE_HMEM;
	d->dax.target_node = 1;
	d->region[0] = '\0';
	d->dax.n_ranges = 2;
	d->dax.ranges[0] = (struct pmemram_dax_range){ 0x60000000, 0x67ffffff, 0 };
	d->dax.ranges[1] = (struct pmemram_dax_range){ 0x200000000, 0x207ffffff, 0x8000 };
	p = plan(&w, window);
	expect_verdict(p, 0, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	assert_int_equal(p->n_unmatched, 1);
	p = pmemram_plan_free(p);

	/* Both inside, with a gap: matched, refused. */
	d->dax.ranges[1] = (struct pmemram_dax_range){ 0x6c000000, 0x6fffffff, 0x8000 };
	expect_refusal(
		&w, window, PMEMRAM_REASON_RANGES_SPLIT,
		"dax1.0 has 2 physical ranges that are not one range of whole memory blocks (0x60000000-0x67ffffff, "
		"0x6c000000-0x6fffffff): pmemram onlines a device whose ranges meet on block boundaries only");
	/* Claimed by node, the same. */
	expect_refusal(
		&w, "[claim \"n\"]\nmatch = hmem:node=1\n", PMEMRAM_REASON_RANGES_SPLIT,
		"dax1.0 has 2 physical ranges that are not one range of whole memory blocks (0x60000000-0x67ffffff, "
		"0x6c000000-0x6fffffff): pmemram onlines a device whose ranges meet on block boundaries only");

	/* More ranges than are kept: not known to be inside, never matched by range. */
	d->dax.n_ranges = PMEMRAM_DAX_RANGES_MAX + 1;
	p = plan(&w, window);
	expect_verdict(p, 0, PMEMRAM_VERDICT_IGNORED, PMEMRAM_REASON_UNCLAIMED, NULL);
	p = pmemram_plan_free(p);

	/* The second right after the first: one range, planned as resource and size say. */
	d->dax.n_ranges = 2;
	d->dax.ranges[1] = (struct pmemram_dax_range){ 0x68000000, 0x6fffffff, 0x8000 };
	p = plan(&w, window);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "disable device_dax, bind kmem, then online 2 blocks as movable on node 1");
	p = pmemram_plan_free(p);

	/* Contiguous, but meeting 2 MiB into a block: kmem would add that block for neither range. */
	d->dax.ranges[0] = (struct pmemram_dax_range){ 0x60000000, 0x681fffff, 0 };
	d->dax.ranges[1] = (struct pmemram_dax_range){ 0x68200000, 0x6fffffff, 0x8200 };
	expect_refusal(
		&w, window, PMEMRAM_REASON_RANGES_SPLIT,
		"dax1.0 has 2 physical ranges that are not one range of whole memory blocks (0x60000000-0x681fffff, "
		"0x68200000-0x6fffffff): pmemram onlines a device whose ranges meet on block boundaries only");
}

/* The claim-unmatched event: what to check, for each kind of match, and the plan's note after it. */
static void test_unmatched_text(void **state)
{
	static const char conf[] = "[claim \"u\"]\nmatch = uuid:" UUID "\n"
				   "[claim \"d\"]\nmatch = device:dax9.0\n"
				   "[claim \"r\"]\nmatch = region:region7\n"
				   "[claim \"rc\"]\nmatch = region:region8\ncreate = devdax\n"
				   "[claim \"h\"]\nmatch = hmem:60000000-6fffffff\n"
				   "[claim \"hn\"]\nmatch = hmem:node=3\n"
				   "[claim \"cr\"]\nmatch = cxl-region:region4\n"
				   "[claim \"cm\"]\nmatch = cxl-memdev:0x5eed0001\n"
				   "[claim \"a\"]\nmatch = all-devdax\n";
	static const char *const texts[] = {
		"claim 'u' matches no device: compare it with ndctl list -N -v: a claim matches a namespace's uuid "
		"(its info block's) or its raw_uuid (its own)",
		"claim 'd' matches no device: dax device names change across boots and hmem and nvdimm devices "
		"share them: prefer uuid:, hmem: or cxl-memdev:",
		"claim 'r' matches no device: check ndctl list -R -N: an empty region has no dax device (add "
		"create = devdax to make one)",
		"claim 'rc' matches no device: check that ndctl list -R shows the region (create = devdax makes its "
		"namespace)",
		"claim 'h' matches no device: check the Soft Reserved lines of /proc/iomem and daxctl list: each of "
		"the device's ranges must lie inside, and reading them needs root",
		"claim 'hn' matches no device: check the target_node of the hmem devices (daxctl list): the "
		"firmware's proximity domain",
		"claim 'cr' matches no device: the kernel may not have reassembled the CXL region at boot (cxl list "
		"-R), and a region made again may have another number: prefer cxl-memdev:SERIAL",
		"claim 'cm' matches no device: check the serial with cxl list -M, and that a region using that "
		"memdev is assembled and has a dax device (cxl list -R, daxctl list); CXL origin of dax0.0 needs "
		"root to read: /sys/bus/nd/devices/region1/resource",
		"claim 'a' matches no device: there is no dax device at all (daxctl list)",
	};
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config(conf);
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *d;
	char buf[2 * PMEMRAM_PLAN_TEXT_MAX + 64];
	struct world w;

	world_init(&w);
	/* a device no claim takes (an nvdimm one, unclaimed by all-devdax: that is the point of 'a' below) */
	d = add_dax(&w, "dax0.0", "", PMEMRAM_DAX_DEVDAX, START, SIZE);
	d->cxl.error = -EACCES;
	strcpy(d->cxl.error_path, "/sys/bus/nd/devices/region1/resource");
	w.o.n_devices = 0;
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), 0);
	assert_int_equal(p->n_unmatched, 9);
	for (size_t i = 0; i < p->n_unmatched; i++) {
		if (streq(p->unmatched[i], "cm"))
			continue; /* with the device's note, below */
		assert_string_equal(pmemram_claim_unmatched_text(p, i, pmemram_config_find_claim(c, p->unmatched[i]),
								 buf, sizeof(buf)),
				    texts[i]);
	}
	p = pmemram_plan_free(p);

	/* The CXL origin the device could not be read for goes after the hint. */
	w.o.n_devices = 1;
	p = plan(&w, "[claim \"cm\"]\nmatch = cxl-memdev:0x5eed0001\n");
	assert_int_equal(p->n_unmatched, 1);
	assert_string_equal(pmemram_claim_unmatched_text(p, 0, pmemram_config_find_claim(c, "cm"), buf, sizeof(buf)),
			    texts[7]);
	/* A claim the configuration no longer has: no hint. */
	assert_string_equal(pmemram_claim_unmatched_text(p, 0, NULL, buf, sizeof(buf)),
			    "claim 'cm' matches no device; CXL origin of dax0.0 needs root to read: "
			    "/sys/bus/nd/devices/region1/resource");
}

/* CXL claims match through the device's CXL origin, never through the nvdimm region's name. */
static void test_cxl_matches(void **state)
{
	static const char conf[] = "[claim \"mem\"]\nmatch = cxl-memdev:1592590338\n"
				   "[claim \"cxlr\"]\nmatch = cxl-region:region1\n"
				   "[claim \"other\"]\nmatch = cxl-memdev:0x5eed0009\n";
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct json_object *j = NULL, *v;
	struct pmemram_observed_dax *d;
	struct world w;

	world_init(&w);
	/* dax0.0 on CXL region4, interleaved over two memdevs; dax1.0 on nvdimm region1 (NFIT). */
	d = add_dax(&w, "dax0.0", "", PMEMRAM_DAX_DEVDAX, START, SIZE);
	d->cxl = (struct pmemram_cxl_origin){ .region = "region4",
					      .serials = { 0x5eed0001, 0x5eed0002 },
					      .n_serials = 2 };
	strcpy(add_dax(&w, "dax1.0", "", PMEMRAM_DAX_DEVDAX, START + 8 * BLOCK, BLOCK)->region, "region1");

	p = plan(&w, conf);
	assert_int_equal(p->n_verdicts, 2);
	assert_string_equal(p->verdicts[0].claim, "mem");
	assert_string_equal(p->verdicts[0].matched_by, "cxl-memdev");
	/* One memdev of two claimed: the region's memory is spread over both, so not taken. */
	expect_verdict(p, 0, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_MEMDEV_UNCLAIMED,
		       "CXL region4 interleaves 2 memdevs and no claim names 0x5eed0001: "
		       "claim each memdev, or the region (cxl-region:region4)");
	assert_string_equal(pmemram_reason_to_string(PMEMRAM_REASON_MEMDEV_UNCLAIMED), "memdev-unclaimed");
	assert_int_equal(p->verdicts[1].verdict, PMEMRAM_VERDICT_IGNORED);
	assert_int_equal(p->n_unmatched, 2);
	assert_string_equal(p->unmatched[0], "cxlr");
	assert_string_equal(p->unmatched[1], "other");

	/* Where the memory is, for status: the CXL region and its memdevs as sysfs writes them. */
	assert_int_equal(pmemram_plan_to_json(p, &j), 0);
	v = json_object_object_get(json_object_array_get_idx(json_object_object_get(j, "devices"), 0), "cxl");
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "{\"region\":\"region4\",\"memdevs\":[\"0x5eed0001\",\"0x5eed0002\"]}");
	assert_false(json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(j, "devices"), 1),
					       "cxl", NULL));
	json_object_put(j);
	p = pmemram_plan_free(p);

	/* Each memdev claimed, by claims of their own: the first decides and the device is taken. */
	p = plan(&w,
		 "[claim \"mem\"]\nmatch = cxl-memdev:1592590338\n[claim \"mem1\"]\nmatch = cxl-memdev:0x5eed0001\n");
	assert_string_equal(p->verdicts[0].claim, "mem");
	assert_int_equal(p->verdicts[0].verdict, PMEMRAM_VERDICT_PENDING);
	p = pmemram_plan_free(p);
	/* A memdev without a serial (0) can be named by no claim. */
	d->cxl.serials[1] = 0;
	p = plan(&w, "[claim \"mem1\"]\nmatch = cxl-memdev:0x5eed0001\n");
	expect_verdict(p, 0, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_MEMDEV_UNCLAIMED,
		       "CXL region4 interleaves 2 memdevs and no claim names 0x0: "
		       "claim each memdev, or the region (cxl-region:region4)");
	p = pmemram_plan_free(p);
	/* The region's own claim takes it whatever its memdevs. */
	p = plan(&w, "[claim \"cxlr\"]\nmatch = cxl-region:region4\n");
	assert_int_equal(p->verdicts[0].verdict, PMEMRAM_VERDICT_PENDING);
	p = pmemram_plan_free(p);
	d->cxl.serials[1] = 0x5eed0002;

	/* The CXL region's name; the nvdimm region's name still goes before it. */
	p = plan(&w, "[claim \"cxlr\"]\nmatch = cxl-region:region4\n[claim \"mem\"]\nmatch = cxl-memdev:0x5eed0001\n");
	assert_string_equal(p->verdicts[0].claim, "cxlr");
	assert_string_equal(p->verdicts[0].matched_by, "cxl-region");
	p = pmemram_plan_free(p);
	p = plan(&w, "[claim \"cxlr\"]\nmatch = cxl-region:region4\n[claim \"nd\"]\nmatch = region:region0\n");
	assert_string_equal(p->verdicts[0].claim, "nd");
	assert_string_equal(p->verdicts[0].matched_by, "region");
}

static void test_namespaces(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	w.o.n_namespaces = 2;
	w.namespaces[0] = (struct pmemram_observed_namespace){
		.name = "namespace0.0", .uuid = UUID, .mode = PMEMRAM_NS_FSDAX, .blockdev = "pmem0", .size = SIZE
	};
	w.namespaces[1] = (struct pmemram_observed_namespace){
		.name = "namespace1.0", .uuid = UUID2, .mode = PMEMRAM_NS_RAW, .blockdev = "pmem1"
	};

	/* claimed by UUID, but conversion not allowed; the unclaimed namespace is not listed */
	p = plan(&w, CLAIM_UUID);
	assert_int_equal(p->n_verdicts, 1);
	assert_string_equal(p->verdicts[0].device, "namespace0.0");
	expect_verdict(p, 0, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_NAMESPACE_MODE,
		       "namespace is in fsdax mode, not devdax; 'convert = yes' lets pmemram convert it (destroys its contents)");
	p = pmemram_plan_free(p);

	/* region and all-devdax claims never convert */
	p = plan(&w, "[claim \"a\"]\nmatch = all-devdax\n[claim \"r\"]\nmatch = region:region0\n");
	assert_int_equal(p->n_verdicts, 0);
	assert_int_equal(p->n_actions, 0);
	p = pmemram_plan_free(p);

	p = plan(&w, CLAIM_UUID "convert = yes\n");
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace0.0", 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "convert the fsdax namespace to devdax (destroys its contents)");
	p = pmemram_plan_free(p);

	w.namespaces[0].mounted = true;
	expect_refusal(&w, CLAIM_UUID "convert = yes\n", PMEMRAM_REASON_MOUNTED,
		       "fsdax namespace in use (/dev/pmem0 mounted); not converting");

	w.namespaces[0].mounted = false;
	strcpy(w.namespaces[0].in_use, "/dev/pmem0 is swap");
	expect_refusal(&w, CLAIM_UUID "convert = yes\n", PMEMRAM_REASON_BLOCKDEV_BUSY,
		       "fsdax namespace in use (/dev/pmem0 is swap); not converting");
	strcpy(w.namespaces[0].in_use, "/dev/pmem0 held by dm-0");
	expect_refusal(&w, CLAIM_UUID "convert = yes\n", PMEMRAM_REASON_BLOCKDEV_BUSY,
		       "fsdax namespace in use (/dev/pmem0 held by dm-0); not converting");

	/* a process whose descriptors could not be read may hold it open */
	w.namespaces[0].in_use[0] = '\0';
	w.o.n_unreadable_processes = 3;
	expect_refusal(&w, CLAIM_UUID "convert = yes\n", PMEMRAM_REASON_USERS_UNKNOWN,
		       "the descriptors of 3 processes could not be read: one may hold /dev/pmem0 open; not converting");
	w.o.n_unreadable_processes = 0;

	/* the fsdax info block's UUID, the one ndctl list -N shows, claims it too; daxctl's sections do
	 * not (daxctl matches enabled dax devices only) */
	strcpy(w.namespaces[0].info_uuid, UUID3);
	p = plan(&w, "[claim \"fs\"]\nmatch = uuid:" UUID3 "\n");
	assert_int_equal(p->n_verdicts, 1);
	assert_string_equal(p->verdicts[0].claim, "fs");
	expect_verdict(
		p, 0, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_NAMESPACE_MODE,
		"namespace is in fsdax mode, not devdax; 'convert = yes' lets pmemram convert it (destroys its contents)");
	p = pmemram_plan_free(p);
	p = plan(&w, "[claim \"fs\"]\nmatch = uuid:" UUID3 "\nconvert = yes\n");
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace0.0", 0);
	/* the conversion checks the namespace's own UUID, which it keeps */
	assert_string_equal(p->actions[0].uuid, UUID);
	assert_int_equal(p->n_unmatched, 0);
	p = pmemram_plan_free(p);
}

#define CLAIM_CREATE "[claim \"made\"]\nmatch = region:region0\ncreate = devdax\n"

/* create = devdax: one namespace over the free space, onlined by the same claim, and never a
 * second one, though the region still shows free space. */
static void test_create(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_region(&w, "region0", 1022 * MiB);
	add_region(&w, "region1", 1022 * MiB);
	p = plan(&w, CLAIM_CREATE);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region0", 0);
	assert_string_equal(p->actions[0].claim, "made");
	assert_int_equal(p->n_verdicts, 1);
	assert_string_equal(p->verdicts[0].device, "region0");
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "create a devdax namespace 'made' of 1008 MiB over the region's 1022 MiB of free space");
	p = pmemram_plan_free(p);

	/* create, then disable device_dax, bind kmem and online its 7 blocks */
	assert_int_equal(converge(&w, CLAIM_CREATE), 1 + 2 + (END - FIRST));
	assert_string_equal(w.devices[0].ns_name, "made");
	assert_int_equal(converge(&w, CLAIM_CREATE), 0);

	/* Without create, a region claim makes nothing. */
	world_init(&w);
	add_region(&w, "region0", 1022 * MiB);
	p = plan(&w, "[claim \"r\"]\nmatch = region:region0\n");
	assert_int_equal(p->n_actions, 0);
	assert_int_equal(p->n_verdicts, 0);
}

/* Too little free space to be sure of one whole memory block once aligned and the devdax memory map
 * is in it, or the largest free extent unknown: refused, nothing made. */
static void test_create_too_small(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_region(&w, "region0", 64 * MiB);
	expect_refusal(&w, CLAIM_CREATE, PMEMRAM_REASON_TOO_SMALL,
		       "create = devdax: 64 MiB free (64 MiB aligned), too little to be sure of one whole 128 MiB "
		       "memory block after the devdax memory map; no namespace created");
	/* Two blocks: 6 MiB of info block and memory map leave 250 MiB of data, which may start 2 MiB
	 * past a block boundary and so hold no whole block. */
	w.regions[0].available = 270 * MiB;
	expect_refusal(&w, CLAIM_CREATE, PMEMRAM_REASON_TOO_SMALL,
		       "create = devdax: 270 MiB free (256 MiB aligned), too little to be sure of one whole 128 MiB "
		       "memory block after the devdax memory map; no namespace created");
	/* The boundary, with 2 MiB alignment: 258 MiB is too little, 260 MiB enough. */
	w.regions[0].align = 0;
	w.regions[0].available = 259 * MiB;
	expect_refusal(&w, CLAIM_CREATE, PMEMRAM_REASON_TOO_SMALL,
		       "create = devdax: 259 MiB free (258 MiB aligned), too little to be sure of one whole 128 MiB "
		       "memory block after the devdax memory map; no namespace created");
	w.regions[0].available = 260 * MiB;
	p = plan(&w, CLAIM_CREATE);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region0", 0);
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "create a devdax namespace 'made' of 260 MiB over the region's 260 MiB of free space");
	w.regions[0].align = 16 * MiB;

	/* Without max_available_extent, the total free space may lie in pieces too small. */
	w.regions[0] = (struct pmemram_observed_region){ .name = "region0", .align = 16 * MiB, .ways = 1 };
	expect_refusal(&w, CLAIM_CREATE, PMEMRAM_REASON_EXTENT_UNKNOWN,
		       "create = devdax: the kernel does not tell region0's largest free extent "
		       "(max_available_extent, Linux 4.19 and later); no namespace created");
}

/* The whole blocks a created namespace is sure to give, by nd_pfn_init()'s layout and kmem's rounding. */
static void test_create_blocks(void **state)
{
	/* 256 MiB: 8 KiB and 65535 struct pages of 64 bytes, 6 MiB once aligned; 250 MiB of data hold
	 * no whole 128 MiB block when they start at 2 MiB past a block boundary. */
	assert_int_equal(pmemram_create_blocks(256 * MiB, BLOCK), 0);
	assert_int_equal(pmemram_create_blocks(258 * MiB, BLOCK), 0);
	/* 260 MiB: 254 MiB of data, one whole block wherever they start. */
	assert_int_equal(pmemram_create_blocks(260 * MiB, BLOCK), 1);
	assert_int_equal(pmemram_create_blocks(3 * BLOCK, BLOCK), 1);
	assert_int_equal(pmemram_create_blocks(388 * MiB, BLOCK), 1);
	assert_int_equal(pmemram_create_blocks(390 * MiB, BLOCK), 2);
	/* 1 GiB: 18 MiB of info block and map, 1006 MiB of data: 6 blocks at worst, 7 at best. */
	assert_int_equal(pmemram_create_blocks(1024 * MiB, BLOCK), 6);
	/* Blocks no larger than the alignment: the data start is always on a block boundary. */
	assert_int_equal(pmemram_create_blocks(16 * MiB, 2 * MiB), 7);
	/* Nothing left after the map, or nothing at all. */
	assert_int_equal(pmemram_create_blocks(2 * MiB, 2 * MiB), 0);
	assert_int_equal(pmemram_create_blocks(8 << 10, BLOCK), 0);
	assert_int_equal(pmemram_create_blocks(0, BLOCK), 0);
}

/* The rule the planner and the libndctl op share. */
static void test_create_size(void **state)
{
	struct pmemram_observed_region r = { .has_extent = true, .available = 1022 * MiB };
	uint64_t size = 0;

	/* Neither alignment known: 2 MiB per interleave way. */
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 1022 * MiB);
	r.ways = 2;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 1020 * MiB);
	r.align = 16 * MiB;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 1008 * MiB);
	r.available = 2 * BLOCK + 31 * MiB;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 2 * BLOCK + 16 * MiB);
	r.available = 2 * BLOCK + 15 * MiB;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), -ENOSPC);
	assert_int_equal(size, 2 * BLOCK);
	/* Three ways: a multiple of 16 MiB and of 6 MiB, 48 MiB, not the larger of the two. */
	r = (struct pmemram_observed_region){ .has_extent = true, .available = 1000 * MiB, .ways = 3 };
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 996 * MiB);
	r.align = 16 * MiB;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), 0);
	assert_int_equal(size, 960 * MiB);
	/* An alignment past the extent: nothing fits. */
	r.align = UINT64_C(1) << 62;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), -ENOSPC);
	assert_int_equal(size, 0);
	/* Small blocks: still the smallest namespace the kernel makes. */
	r = (struct pmemram_observed_region){ .has_extent = true, .available = 15 * MiB };
	assert_int_equal(pmemram_create_size(&r, 2 * MiB, &size), -ENOSPC);
	r.has_extent = false;
	assert_int_equal(pmemram_create_size(&r, BLOCK, &size), -EOPNOTSUPP);
}

/* The UUID a create claim gives, from its name alone; RFC 9562 version 8, variant 10. */
static void test_create_uuid(void **state)
{
	char buf[PMEMRAM_UUID_STRING_MAX];
	uint8_t u[16];

	assert_string_equal(pmemram_create_uuid_string("made", buf), MADE_UUID);
	assert_string_equal(pmemram_create_uuid_string("fast", buf), "aa2ed50f-d841-854d-912d-a902bdcd9932");
	pmemram_create_uuid("", u);
	assert_int_equal(u[6] >> 4, 8);
	assert_int_equal(u[8] >> 6, 2);
}

/* A creation cut short leaves a namespace named after the claim, with the UUID it gives, that is
 * not devdax yet: it is finished by converting it (by that UUID), and no other is made.  Another
 * name is not the claim's. */
static void test_create_unfinished(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	add_region(&w, "region0", 512 * MiB);
	w.o.n_namespaces = 1;
	w.namespaces[0] = (struct pmemram_observed_namespace){ .name = "namespace0.0",
							       .uuid = MADE_UUID,
							       .region = "region0",
							       .alt_name = "made",
							       .mode = PMEMRAM_NS_DEVDAX,
							       .size = SIZE };
	p = plan(&w, CLAIM_CREATE);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace0.0", 0);
	assert_string_equal(p->actions[0].uuid, MADE_UUID);
	assert_string_equal(p->actions[0].claim, "made");
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "finish the conversion to devdax: enable its dax device (destroys its contents)");
	p = pmemram_plan_free(p);

	/* Cut short before its dax seed was attached: raw. */
	w.namespaces[0].mode = PMEMRAM_NS_RAW;
	p = plan(&w, CLAIM_CREATE);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace0.0", 0);
	assert_int_equal(p->n_verdicts, 1);
	p = pmemram_plan_free(p);

	strcpy(w.namespaces[0].alt_name, "someone-else");
	strcpy(w.namespaces[0].uuid, UUID);
	w.namespaces[0].mode = PMEMRAM_NS_FSDAX;
	p = plan(&w, CLAIM_CREATE);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region0", 0);
	assert_string_equal(p->actions[0].uuid, MADE_UUID);
}

/* A namespace with the claim's name that pmemram did not make (ndctl create-namespace -n made), or
 * with its UUID in another mode or place, may hold data: the region is refused, nothing converted,
 * nothing created. */
static void test_create_foreign(void **state)
{
	static const struct {
		const char *uuid, *alt_name, *region;
		enum pmemram_ns_mode mode;
		const char *text;
	} cases[] = {
		{ UUID, "made", "region0", PMEMRAM_NS_FSDAX,
		  "region0 holds namespace0.0 named 'made' that pmemram did not create; not creating another" },
		{ UUID, "made", "region0", PMEMRAM_NS_RAW,
		  "region0 holds namespace0.0 named 'made' that pmemram did not create; not creating another" },
		{ "", "made", "region0", PMEMRAM_NS_DEVDAX,
		  "region0 holds namespace0.0 named 'made' that pmemram did not create; not creating another" },
		{ MADE_UUID, "made", "region0", PMEMRAM_NS_FSDAX,
		  "region0 holds namespace0.0 named 'made' in fsdax mode, which no creation cut short leaves; not touching it" },
		{ MADE_UUID, "made", "region0", PMEMRAM_NS_SECTOR,
		  "region0 holds namespace0.0 named 'made' in sector mode, which no creation cut short leaves; not touching it" },
		{ MADE_UUID, "made", "region1", PMEMRAM_NS_RAW,
		  "namespace0.0 in region1 has UUID " MADE_UUID
		  ", which pmemram gives the namespace of claim 'made'; not creating another" },
	};
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct pmemram_observed_dax *d;
	struct world w;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		world_init(&w);
		add_region(&w, "region0", 512 * MiB);
		w.o.n_namespaces = 1;
		w.namespaces[0] = (struct pmemram_observed_namespace){
			.name = "namespace0.0", .mode = cases[i].mode, .blockdev = "pmem0", .size = SIZE
		};
		strcpy(w.namespaces[0].uuid, cases[i].uuid);
		strcpy(w.namespaces[0].alt_name, cases[i].alt_name);
		strcpy(w.namespaces[0].region, cases[i].region);
		p = plan(&w, CLAIM_CREATE);
		assert_int_equal(p->n_actions, 0);
		assert_int_equal(p->n_verdicts, 1);
		assert_string_equal(p->verdicts[0].device, "region0");
		expect_verdict(p, 0, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_NAME_TAKEN, cases[i].text);
		assert_string_equal(pmemram_reason_to_string(p->verdicts[0].reason), "name-taken");
		p = pmemram_plan_free(p);
	}

	/* An enabled devdax namespace with the name but not the UUID: its dax device is the region
	 * claim's as any other, but it is not the one created. */
	world_init(&w);
	add_region(&w, "region0", 512 * MiB);
	d = add_dax(&w, "dax0.0", UUID, PMEMRAM_DAX_SYSTEM_RAM, START, SIZE);
	strcpy(d->namespace, "namespace0.0");
	strcpy(d->ns_name, "made");
	add_blocks(&w, FIRST, END, PMEMRAM_BLOCK_ONLINE, PMEMRAM_ZONE_MOVABLE, 2);
	p = plan(&w, CLAIM_CREATE);
	assert_int_equal(p->n_actions, 0);
	assert_int_equal(p->n_verdicts, 2);
	expect_verdict(p, 0, PMEMRAM_VERDICT_CONVERGED, PMEMRAM_REASON_NONE, NULL);
	expect_verdict(p, 1, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_NAME_TAKEN,
		       "region0 holds namespace0.0 named 'made' that pmemram did not create; not creating another");
	p = pmemram_plan_free(p);
	strcpy(d->uuid, MADE_UUID);
	assert_int_equal(converge(&w, CLAIM_CREATE), 0);
}

/* The action names the claimed UUID, and only that namespace is converted. */
static void test_namespace_convert_only_claimed(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	struct world w;

	world_init(&w);
	w.o.n_namespaces = 2;
	w.namespaces[0] = (struct pmemram_observed_namespace){
		.name = "namespace0.0", .uuid = UUID, .mode = PMEMRAM_NS_FSDAX, .blockdev = "pmem0", .size = SIZE
	};
	w.namespaces[1] = (struct pmemram_observed_namespace){
		.name = "namespace1.0", .uuid = UUID2, .mode = PMEMRAM_NS_RAW, .blockdev = "pmem1", .size = SIZE
	};
	p = plan(&w, "[claim \"two\"]\nmatch = uuid:" UUID2 "\nconvert = yes\n");
	assert_int_equal(p->n_verdicts, 1);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace1.0", 0);
	assert_string_equal(p->actions[0].uuid, UUID2);
	assert_string_equal(p->actions[0].claim, "two");
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "convert the raw namespace to devdax (destroys its contents)");
}

/* A sector namespace is never converted; a devdax one whose dax device is not enabled (a
 * conversion cut short) is finished only with convert = yes. */
static void test_namespace_sector_and_unfinished(void **state)
{
	struct world w;

	world_init(&w);
	w.o.n_namespaces = 1;
	w.namespaces[0] = (struct pmemram_observed_namespace){
		.name = "namespace0.0", .uuid = UUID, .mode = PMEMRAM_NS_SECTOR, .size = SIZE
	};
	expect_refusal(&w, CLAIM_UUID "convert = yes\n", PMEMRAM_REASON_NAMESPACE_MODE,
		       "namespace is in sector mode; pmemram converts only raw and fsdax namespaces");

	w.namespaces[0].mode = PMEMRAM_NS_DEVDAX;
	expect_refusal(&w, CLAIM_UUID, PMEMRAM_REASON_NAMESPACE_MODE,
		       "devdax namespace whose dax device is not enabled; 'convert = yes' lets pmemram enable it");
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_UUID "convert = yes\n");

		assert_int_equal(p->n_actions, 1);
		expect_action(p, 0, PMEMRAM_ACTION_CONVERT_NAMESPACE, "namespace0.0", 0);
		assert_string_equal(p->actions[0].uuid, UUID);
		expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
			       "finish the conversion to devdax: enable its dax device (destroys its contents)");
	}
}

static void test_output(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	_cleanup_(freep) char *text = NULL;
	struct json_object *j = NULL, *a, *v;
	size_t size = 0;
	struct world w;
	char line[128];
	FILE *f;

	world_with_dax(&w, PMEMRAM_DAX_DEVDAX);
	add_dax(&w, "dax1.0", UUID2, PMEMRAM_DAX_DEVDAX, START + 8 * BLOCK, BLOCK);
	p = plan(&w, CLAIM_UUID "[claim \"spare\"]\nmatch = device:dax9.0\n");

	assert_string_equal(pmemram_action_describe(&p->actions[0], line, sizeof(line)), "dax0.0: disable device_dax");
	assert_string_equal(pmemram_action_describe(&p->actions[1], line, sizeof(line)), "dax0.0: bind kmem (node 2)");
	assert_string_equal(pmemram_action_describe(&p->actions[2], line, sizeof(line)), "dax0.0: online memory40 as movable");

	f = open_memstream(&text, &size);
	assert_non_null(f);
	assert_int_equal(pmemram_plan_print(p, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text,
			    "Actions (9):\n"
			    "    1. dax0.0: disable device_dax\n"
			    "    2. dax0.0: bind kmem (node 2)\n"
			    "    3. dax0.0: online memory40..memory46 as movable (7 blocks)\n"
			    "Devices:\n"
			    "  dax0.0         fast             pending   disable device_dax, bind kmem, then online 7 blocks as movable on node 2\n"
			    "  dax1.0         -                ignored   not claimed by any configuration\n"
			    "Claim 'spare' matches no device.\n");

	assert_int_equal(pmemram_plan_to_json(p, &j), 0);
	assert_int_equal(json_object_array_length(json_object_object_get(j, "actions")), 9);
	a = json_object_array_get_idx(json_object_object_get(j, "actions"), 8);
	assert_string_equal(json_object_get_string(json_object_object_get(a, "action")), "online-block");
	assert_int_equal(json_object_get_int(json_object_object_get(a, "block")), 46);
	assert_string_equal(json_object_get_string(json_object_object_get(a, "zone")), "movable");
	assert_int_equal(json_object_get_int(json_object_object_get(a, "node")), 2);
	v = json_object_array_get_idx(json_object_object_get(j, "devices"), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(v, "verdict")), "ignored");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "reason")), "unclaimed");
	assert_true(json_object_object_get_ex(v, "claim", NULL));
	assert_null(json_object_object_get(v, "claim"));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(json_object_object_get(j, "unmatched_claims"), 0)),
			    "spare");
	json_object_put(j);

	/* converged: says so instead of "0 actions" */
	world_init(&w);
	p = pmemram_plan_free(p);
	p = plan(&w, "");
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	assert_int_equal(pmemram_plan_print(p, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, "Nothing to do.\n");
}

static void test_bad_input(void **state)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = config("");
	struct pmemram_plan *p = (void *)0x1;
	unsigned long first = 7, end = 7;
	struct world w;

	assert_int_equal(pmemram_block_range(START, SIZE, BLOCK, &first, &end), 0);
	assert_int_equal(first, FIRST);
	assert_int_equal(end, END);
	assert_int_equal(pmemram_block_range(START, 8 * BLOCK, BLOCK, &first, &end), 0);
	assert_int_equal(end - first, 8);
	assert_int_equal(pmemram_block_range(UINT64_MAX - BLOCK, 2 * BLOCK, BLOCK, &first, &end), -EINVAL);
	assert_int_equal(pmemram_block_range(START, SIZE, 3 * MiB, &first, &end), -EINVAL);
	assert_int_equal(pmemram_block_range(START + 1, BLOCK, BLOCK, &first, &end), -ERANGE);

	world_init(&w);
	w.o.block_size = 3 * MiB;
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), -EINVAL);
	world_init(&w);
	w.blocks[3].id = 1; /* unsorted */
	assert_int_equal(pmemram_plan_compute(c, &w.o, &p), -EINVAL);
	assert_int_equal(pmemram_plan_compute(NULL, &w.o, &p), -EINVAL);
	assert_ptr_equal(p, (void *)0x1);
}

/* ---- create-region = pmem -------------------------------------------------------------- */

#define CLAIM_CXL                                                                                 \
	"[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0001\ncreate-region = pmem\ncreate = devdax\n" \
	"online = movable\n"

/* The plan's one action: making or finishing mem0's region. */
static void expect_region_action(const struct world *w)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(w, CLAIM_CXL);

	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_CXL_REGION, "mem0", 0);
}

/* mem0 (serial 0x5eed0001), 512 MiB of pmem plus a bit, under root decoder decoder0.0, in no region. */
static struct pmemram_observed_memdev *add_memdev(struct world *w)
{
	struct pmemram_observed_memdev *m = &w->memdevs[w->o.n_memdevs++];

	*m = (struct pmemram_observed_memdev){ .serial = 0x5eed0001, .pmem_size = 512 * MiB + 2 * MiB };
	strcpy(m->name, "mem0");
	strcpy(m->endpoint, "endpoint2");
	strcpy(m->root_decoder, "decoder0.0");
	m->root_free = 4096 * MiB;
	return m;
}

static struct pmemram_observed_cxl_region *add_cxl_region(struct world *w, const char *uuid, bool committed,
							  bool enabled)
{
	struct pmemram_observed_cxl_region *r = &w->cxl_regions[w->o.n_cxl_regions++];

	*r = (struct pmemram_observed_cxl_region){ .size = 512 * MiB, .committed = committed, .enabled = enabled };
	strcpy(r->name, "region0");
	strcpy(r->root_decoder, "decoder0.0");
	strcpy(r->uuid, uuid);
	return r;
}

/* The memdev in the claim's region: its endpoint decoder names it. */
static void memdev_in_region(struct pmemram_observed_memdev *m)
{
	strcpy(m->decoder, "decoder2.0");
	strcpy(m->region, "region0");
	m->dpa_size = 512 * MiB;
}

static void test_cxl_region_create(void **state)
{
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;
	char uuid[PMEMRAM_UUID_STRING_MAX], text[PMEMRAM_PLAN_TEXT_MAX];
	struct world w;

	/* The region's UUID comes from the memdev's serial alone, and differs from its namespace's. */
	pmemram_cxl_region_uuid_string(0x5eed0001, uuid);
	assert_string_equal(uuid, pmemram_cxl_region_uuid_string(0x5eed0001, text));
	assert_string_equal(uuid, pmemram_create_uuid_string("cxl-region:0x5eed0001", text));
	assert_string_not_equal(uuid, pmemram_create_uuid_string("cxl", text));
	assert_string_not_equal(uuid, pmemram_cxl_region_uuid_string(0x5eed0002, text));

	world_init(&w);
	add_memdev(&w);
	p = plan(&w, CLAIM_CXL);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_CXL_REGION, "mem0", 0);
	assert_string_equal(p->actions[0].decoder, "decoder0.0");
	assert_int_equal(p->actions[0].size, 512 * MiB); /* 256 MiB aligned */
	assert_string_equal(p->actions[0].uuid, uuid);
	assert_int_equal(p->actions[0].serial, 0x5eed0001);
	assert_string_equal(p->actions[0].claim, "cxl");
	assert_int_equal(p->n_verdicts, 1);
	assert_string_equal(p->verdicts[0].device, "mem0");
	assert_string_equal(p->verdicts[0].matched_by, "cxl-memdev");
	expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
		       "create a CXL pmem region of 512 MiB on decoder0.0 for mem0 (serial 0x5eed0001)");
	assert_int_equal(p->n_unmatched, 0);
	assert_string_equal(pmemram_action_describe(&p->actions[0], text, sizeof(text)),
			    "mem0: create CXL pmem region of 512 MiB on decoder0.0 (or finish it), DESTROYING ANY DATA "
			    "THERE");
	p = pmemram_plan_free(p);

	/* Without the opt-in, or for another serial, the memdev is left alone. */
	p = plan(&w, "[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0001\n");
	assert_int_equal(p->n_actions, 0);
	assert_int_equal(p->n_verdicts, 0);
	assert_int_equal(p->n_unmatched, 1);
	p = pmemram_plan_free(p);
	p = plan(&w, "[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0002\ncreate-region = pmem\ncreate = devdax\n");
	assert_int_equal(p->n_actions, 0);
	assert_int_equal(p->n_verdicts, 0);
	p = pmemram_plan_free(p);

	/* Made, committed and enabled: nothing more for the memdev; its nvdimm region, on CXL with
	 * that memdev, gets the claim's namespace. */
	memdev_in_region(&w.memdevs[0]);
	add_cxl_region(&w, uuid, true, true);
	add_region(&w, "region4", 512 * MiB);
	w.regions[0].cxl =
		(struct pmemram_cxl_origin){ .region = "region0", .serials = { 0x5eed0001 }, .n_serials = 1 };
	p = plan(&w, CLAIM_CXL);
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region4", 0);
	assert_string_equal(p->verdicts[0].matched_by, "cxl-memdev");
	assert_string_equal(p->verdicts[0].cxl.region, "region0");
	p = pmemram_plan_free(p);
	/* The claim renamed: its region is still its own (the UUID is the serial's). */
	p = plan(&w, "[claim \"fast\"]\nmatch = cxl-memdev:0x5EED0001\ncreate-region = pmem\ncreate = devdax\n");
	assert_int_equal(p->n_actions, 1);
	expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region4", 0);
	assert_string_equal(p->actions[0].claim, "fast");
	assert_int_equal(p->n_verdicts, 1); /* none for mem0: not region-not-ours */
	p = pmemram_plan_free(p);
	/* Another serial's claim does not create in that region. */
	p = plan(&w, "[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0002\ncreate-region = pmem\ncreate = devdax\n");
	assert_int_equal(p->n_actions, 0);
}

/* A creation cut short: the claim's region (by UUID) is finished, whatever step it stopped at. */
static void test_cxl_region_finish(void **state)
{
	char uuid[PMEMRAM_UUID_STRING_MAX];
	struct world w;

	pmemram_cxl_region_uuid_string(0x5eed0001, uuid);
	for (int step = 0; step < 3; step++) {
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;

		world_init(&w);
		add_memdev(&w);
		/* 0: made, no target yet (another root decoder: the region's is used), the memdev's
		 * capacity allocated outside it (not dpa-in-use: the region will take it);
		 * 1: uncommitted; 2: committed, not enabled */
		add_cxl_region(&w, uuid, step >= 2, false);
		if (step == 0) {
			strcpy(w.cxl_regions[0].root_decoder, "decoder0.1");
			strcpy(w.memdevs[0].decoder, "decoder2.0");
			w.memdevs[0].dpa_size = 512 * MiB;
		} else {
			memdev_in_region(&w.memdevs[0]);
		}
		p = plan(&w, CLAIM_CXL);
		assert_int_equal(p->n_actions, 1);
		expect_action(p, 0, PMEMRAM_ACTION_CREATE_CXL_REGION, "mem0", 0);
		assert_string_equal(p->actions[0].decoder, step == 0 ? "decoder0.1" : "decoder0.0");
		expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
			       step == 0   ? "finish CXL region region0 (512 MiB) of mem0, left without its memdev"
			       : step == 1 ? "finish CXL region region0 (512 MiB) of mem0, left uncommitted"
					   : "finish CXL region region0 (512 MiB) of mem0, left disabled");
	}
}

/* ---- create-region = ram ---------------------------------------------------------------- */

#define CLAIM_CXL_RAM "[claim \"cxl\"]\nmatch = cxl-memdev:0x5eed0001\ncreate-region = ram\n"

/* mem0 as add_memdev() makes it, with 512 MiB of RAM capacity plus a bit, which decoder0.0 takes too. */
static struct pmemram_observed_memdev *add_ram_memdev(struct world *w)
{
	struct pmemram_observed_memdev *m = add_memdev(w);

	m->pmem_size = 0;
	m->ram_size = 512 * MiB + 2 * MiB;
	strcpy(m->ram_root_decoder, "decoder0.0");
	m->ram_root_free = 4096 * MiB;
	return m;
}

/* A RAM region of mem0 alone: made, finished when cut short, left as it is once enabled, whoever
 * made it; never a UUID. */
static void test_cxl_ram_region(void **state)
{
	char text[PMEMRAM_PLAN_TEXT_MAX];
	struct world w;

	world_init(&w);
	add_ram_memdev(&w);
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL_RAM);

		assert_int_equal(p->n_actions, 1);
		expect_action(p, 0, PMEMRAM_ACTION_CREATE_CXL_REGION, "mem0", 0);
		assert_true(p->actions[0].ram);
		assert_string_equal(p->actions[0].decoder, "decoder0.0");
		assert_int_equal(p->actions[0].size, 512 * MiB);
		assert_int_equal(p->actions[0].serial, 0x5eed0001);
		assert_string_equal(p->actions[0].uuid, "");
		assert_string_equal(p->verdicts[0].matched_by, "cxl-memdev");
		expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
			       "create a CXL RAM region of 512 MiB on decoder0.0 for mem0 (serial 0x5eed0001)");
		assert_string_equal(pmemram_action_describe(&p->actions[0], text, sizeof(text)),
				    "mem0: create CXL RAM region of 512 MiB on decoder0.0 (or finish it)");
	}

	/* In its RAM region, uncommitted, then disabled: finished; enabled: nothing for the memdev
	 * (the claim takes the region's dax device), whoever made it. */
	memdev_in_region(&w.memdevs[0]);
	add_cxl_region(&w, "", false, false)->ram = true;
	w.cxl_regions[0].n_targets = 1;
	w.cxl_regions[0].target_serial = 0x5eed0001;
	for (int step = 0; step < 3; step++) {
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = NULL;

		w.cxl_regions[0].committed = step >= 1;
		w.cxl_regions[0].enabled = step >= 2;
		p = plan(&w, CLAIM_CXL_RAM);
		if (step == 2) {
			assert_int_equal(p->n_actions, 0);
			assert_int_equal(p->n_verdicts, 0);
			continue;
		}
		assert_int_equal(p->n_actions, 1);
		assert_true(p->actions[0].ram);
		expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE,
			       step == 0 ? "finish CXL RAM region region0 (512 MiB) of mem0, left uncommitted"
					 : "finish CXL RAM region region0 (512 MiB) of mem0, left disabled");
	}
	/* The same region under a pmem claim is not that claim's. */
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS,
		       "mem0 is in CXL region region0 (decoder2.0), which pmemram did not make; not touching it");
}

static void test_cxl_ram_region_refusals(void **state)
{
	struct world w;

	/* In a pmem region, or a RAM region interleaved with another memdev. */
	world_init(&w);
	memdev_in_region(add_ram_memdev(&w));
	add_cxl_region(&w, UUID, true, true);
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_REGION_NOT_OURS,
		       "mem0 is in CXL region region0 (decoder2.0), not a RAM region; not touching it");
	w.cxl_regions[0].ram = true;
	w.cxl_regions[0].uuid[0] = '\0';
	w.cxl_regions[0].n_targets = 2;
	w.cxl_regions[0].target_serial = 0x5eed0001;
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_REGION_NOT_OURS,
		       "mem0 is in CXL region region0 (decoder2.0), interleaved with other memdevs; not touching it");
	w.cxl_regions[0].n_targets = 1;
	w.cxl_regions[0].target_serial = 0x5eed0002;
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_REGION_NOT_OURS, NULL);

	world_init(&w);
	add_ram_memdev(&w);
	strcpy(w.memdevs[0].decoder, "decoder2.0");
	w.memdevs[0].dpa_size = 256 * MiB;
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_DPA_IN_USE,
		       "mem0: 256 MiB of its capacity is allocated to decoder2.0 outside any region; not creating one");

	/* pmem alone (QEMU's persistent-memdev), or less than a region takes. */
	world_init(&w);
	add_memdev(&w);
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_TOO_SMALL,
		       "mem0: 0 B of RAM capacity, less than the 256 MiB a CXL region takes at least");
	w.memdevs[0].ram_size = 255 * MiB;
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_TOO_SMALL, NULL);

	/* A root decoder for pmem only, and one too full. */
	world_init(&w);
	add_ram_memdev(&w)->ram_root_decoder[0] = '\0';
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_NO_ROOT_DECODER,
		       "no root decoder of one way takes RAM for mem0's host bridge (cxl list -D: volatile_capable, "
		       "nr_targets 1); not creating a region");
	world_init(&w);
	add_ram_memdev(&w)->ram_root_free = 256 * MiB;
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_NO_HPA_SPACE,
		       "decoder0.0 has 256 MiB of address space free in one piece, mem0's region needs 512 MiB (cxl "
		       "list -D -d decoder0.0: max_available_extent); not creating one");
	world_init(&w);
	add_ram_memdev(&w)->endpoint[0] = '\0';
	expect_refusal(&w, CLAIM_CXL_RAM, PMEMRAM_REASON_NO_ROOT_DECODER,
		       "mem0 has no endpoint port (cxl_mem not bound to it); not creating a region");
}

/* The nvdimm region of a CXL region pmemram did not make for the claim's memdev gets no namespace:
 * a foreign region spanning an unclaimed memdev too, one of another UUID, one with the claim's
 * UUID but another memdev as well. */
static void test_cxl_region_foreign_namespace(void **state)
{
	char uuid[PMEMRAM_UUID_STRING_MAX];
	struct world w;

	pmemram_cxl_region_uuid_string(0x5eed0001, uuid);
	world_init(&w);
	memdev_in_region(add_memdev(&w));
	add_cxl_region(&w, UUID, true, true);
	add_region(&w, "region4", 1024 * MiB)->cxl = (struct pmemram_cxl_origin){ .region = "region0",
										  .serials = { 0x5eed0001, 0x5eed0002 },
										  .n_serials = 2 };
	/* mem0's only verdict is its refusal; region4 is not planned. */
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS, NULL);
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_verdicts, 1);
		assert_string_equal(p->verdicts[0].device, "mem0");
	}

	/* mem0 alone, a UUID not the serial's. */
	w.regions[0].cxl.n_serials = 1;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS, NULL);

	/* The serial's UUID, but two memdevs (or one unknown) behind it: no namespace either. */
	strcpy(w.cxl_regions[0].uuid, uuid);
	w.regions[0].cxl.n_serials = 2;
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_actions, 0);
		assert_int_equal(p->n_verdicts, 0);
	}
	w.regions[0].cxl =
		(struct pmemram_cxl_origin){ .region = "region0", .serials = { 0x5eed0002 }, .n_serials = 1 };
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_actions, 0);
		assert_int_equal(p->n_verdicts, 0);
	}
	/* The claim's own: the namespace is made. */
	w.regions[0].cxl.serials[0] = 0x5eed0001;
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_actions, 1);
		expect_action(p, 0, PMEMRAM_ACTION_CREATE_NAMESPACE, "region4", 0);
	}
}

static void test_cxl_region_refusals(void **state)
{
	char uuid[PMEMRAM_UUID_STRING_MAX];
	struct world w;

	/* In a region someone else made, committed or not. */
	world_init(&w);
	memdev_in_region(add_memdev(&w));
	add_cxl_region(&w, UUID, false, false);
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS,
		       "mem0 is in CXL region region0 (decoder2.0), which pmemram did not make; not touching it");
	w.cxl_regions[0].committed = w.cxl_regions[0].enabled = true;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS, NULL);

	/* A region with mem0's UUID whose target is another memdev (or more than mem0), mem0 in it
	 * or not: neither finished nor given a namespace. */
	world_init(&w);
	add_memdev(&w);
	add_cxl_region(&w, pmemram_cxl_region_uuid_string(0x5eed0001, uuid), false, false);
	w.cxl_regions[0].n_targets = 1;
	w.cxl_regions[0].target_serial = 0x5eed0002;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS,
		       "CXL region region0 has the UUID of mem0's region but the memdev with serial 0x5eed0002 as "
		       "target; not touching it");
	memdev_in_region(&w.memdevs[0]);
	w.cxl_regions[0].n_targets = 2;
	w.cxl_regions[0].target_serial = 0x5eed0001;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_REGION_NOT_OURS,
		       "CXL region region0 has the UUID of mem0's region but the memdev with serial 0x5eed0001 and "
		       "others as target; not touching it");
	w.cxl_regions[0].n_targets = 1;
	expect_region_action(&w);

	/* Capacity allocated outside any region. */
	world_init(&w);
	add_memdev(&w);
	strcpy(w.memdevs[0].decoder, "decoder2.0");
	w.memdevs[0].dpa_size = 256 * MiB;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_DPA_IN_USE,
		       "mem0: 256 MiB of its capacity is allocated to decoder2.0 outside any region; not creating one");

	/* Not enough address space free in the root decoder; just enough is. */
	world_init(&w);
	add_memdev(&w)->root_free = 256 * MiB;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_NO_HPA_SPACE,
		       "decoder0.0 has 256 MiB of address space free in one piece, mem0's region needs 512 MiB (cxl "
		       "list -D -d decoder0.0: max_available_extent); not creating one");
	assert_string_equal(pmemram_reason_to_string(PMEMRAM_REASON_NO_HPA_SPACE), "no-hpa-space");
	w.memdevs[0].root_free = 512 * MiB;
	expect_region_action(&w);

	/* Two memdevs with the claimed serial: their regions would have one UUID; neither is touched. */
	world_init(&w);
	add_memdev(&w);
	strcpy(add_memdev(&w)->name, "mem1");
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_actions, 0);
		assert_int_equal(p->n_verdicts, 2);
		for (size_t i = 0; i < 2; i++)
			expect_verdict(p, i, PMEMRAM_VERDICT_REFUSED, PMEMRAM_REASON_SERIAL_AMBIGUOUS,
				       i == 0 ? "2 memdevs have serial 0x5eed0001 (cxl list -M); which is the claim's "
						"cannot be told: not touching mem0"
					      : NULL);
	}
	assert_string_equal(pmemram_reason_to_string(PMEMRAM_REASON_SERIAL_AMBIGUOUS), "serial-ambiguous");
	/* Another serial on the second: the first gets its region. */
	w.memdevs[1].serial = 0x5eed0002;
	expect_region_action(&w);

	/* Unreadable, with a region of its UUID left unfinished, in it or not: not finished either;
	 * made, committed and enabled: nothing to say. */
	world_init(&w);
	add_memdev(&w);
	w.memdevs[0].error = -EACCES;
	strcpy(w.memdevs[0].error_path, "/sys/bus/cxl/devices/endpoint2/uport");
	add_cxl_region(&w, pmemram_cxl_region_uuid_string(0x5eed0001, uuid), false, false);
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_CXL_UNREADABLE,
		       "mem0: cannot read its CXL topology: /sys/bus/cxl/devices/endpoint2/uport: Permission denied; "
		       "not finishing a region");
	memdev_in_region(&w.memdevs[0]);
	w.cxl_regions[0].n_targets = 1;
	w.cxl_regions[0].target_serial = 0x5eed0001;
	w.cxl_regions[0].committed = true;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_CXL_UNREADABLE, NULL);
	w.cxl_regions[0].enabled = true;
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_actions, 0);
		assert_int_equal(p->n_verdicts, 0);
	}

	/* No root decoder for its host bridge, no endpoint, too small, unreadable. */
	world_init(&w);
	add_memdev(&w)->root_decoder[0] = '\0';
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_NO_ROOT_DECODER,
		       "no root decoder of one way takes pmem for mem0's host bridge (cxl list -D: pmem_capable, "
		       "nr_targets 1); not creating a region");
	w.memdevs[0].endpoint[0] = '\0';
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_NO_ROOT_DECODER,
		       "mem0 has no endpoint port (cxl_mem not bound to it); not creating a region");
	w.memdevs[0].pmem_size = 255 * MiB;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_TOO_SMALL,
		       "mem0: 255 MiB of pmem capacity, less than the 256 MiB a CXL region takes at least");
	w.memdevs[0].error = -EACCES;
	strcpy(w.memdevs[0].error_path, "/sys/bus/cxl/devices/endpoint2/uport");
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_CXL_UNREADABLE,
		       "mem0: cannot read its CXL topology: /sys/bus/cxl/devices/endpoint2/uport: Permission denied; "
		       "not creating a region");

	/* Its serial unreadable: the claim whose serial no other memdev has says so. */
	strcpy(w.memdevs[0].error_path, "/sys/bus/cxl/devices/mem0/serial");
	w.memdevs[0].serial_unreadable = true;
	w.memdevs[0].serial = 0;
	expect_refusal(&w, CLAIM_CXL, PMEMRAM_REASON_CXL_UNREADABLE,
		       "mem0: cannot read its serial: /sys/bus/cxl/devices/mem0/serial: Permission denied; it may be the "
		       "claim's memdev, whose serial no other memdev has: not creating a region");
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_string_equal(p->verdicts[0].claim, "cxl");
		assert_int_equal(p->n_unmatched, 0);
	}
	/* Another memdev has the claim's serial: the unreadable one is not the claim's. */
	add_memdev(&w);
	strcpy(w.memdevs[1].name, "mem1");
	{
		_cleanup_(pmemram_plan_freep) struct pmemram_plan *p = plan(&w, CLAIM_CXL);

		assert_int_equal(p->n_verdicts, 1);
		assert_string_equal(p->verdicts[0].device, "mem1");
		expect_verdict(p, 0, PMEMRAM_VERDICT_PENDING, PMEMRAM_REASON_NONE, NULL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_devdax),
		cmocka_unit_test(test_claim_by_info_uuid),
		cmocka_unit_test(test_converged),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_kill_anywhere),
		cmocka_unit_test(test_unbound),
		cmocka_unit_test(test_unclaimed),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_auto_online),
		cmocka_unit_test(test_udev_online),
		cmocka_unit_test(test_scoped),
		cmocka_unit_test(test_wrong_zone),
		cmocka_unit_test(test_block_refusals),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_precedence_daxctl),
		cmocka_unit_test(test_daxctl_conflict_broad),
		cmocka_unit_test(test_daxctl_conflict_mode_section),
		cmocka_unit_test(test_daxctl_info_uuid_only),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_namespace_convert_only_claimed),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_create_too_small),
		cmocka_unit_test(test_create_blocks),
		cmocka_unit_test(test_create_size),
		cmocka_unit_test(test_create_uuid),
		cmocka_unit_test(test_create_unfinished),
		cmocka_unit_test(test_create_foreign),
		cmocka_unit_test(test_namespace_sector_and_unfinished),
		cmocka_unit_test(test_hmem),
		cmocka_unit_test(test_hmem_refusals),
		cmocka_unit_test(test_hmem_ranges),
		cmocka_unit_test(test_unmatched_text),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_cxl_matches),
		cmocka_unit_test(test_cxl_region_create),
		cmocka_unit_test(test_cxl_region_finish),
		cmocka_unit_test(test_cxl_region_refusals),
		cmocka_unit_test(test_cxl_region_foreign_namespace),
		cmocka_unit_test(test_cxl_ram_region),
		cmocka_unit_test(test_cxl_ram_region_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
