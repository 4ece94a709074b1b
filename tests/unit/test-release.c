/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for release: a fake kernel behind the ops table offlines, removes and rebinds in the fake tree, or lies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"
#include "pmemram-release.h"

/*
 * The HMAT tree's dax0.0 (kmem, node 2, 1006 MiB) moved to 4 GiB: its range 0x100000000 +
 * 0x3ee00000 holds the whole 128 MiB blocks 32..38 (4 GiB / 128 MiB = 32; 0x13ee00000 / 128 MiB =
 * 39.86, so 39 is partial), which the tree has online in Movable on node 2.  memory39 (offline)
 * and memory40 (going-offline) lie outside it.
 */
#define DEVICE "dax0.0"
#define FIRST 32
#define LAST 38

/* What the fake kernel does when a block's state is written, instead of the honest default. */
struct block_script {
	unsigned long block;
	const char *value; /* the write it applies to; NULL for any */
	int error;	   /* what the write returns */
	const char *state; /* state afterwards; NULL leaves the block as it was */
	const char *zones; /* valid_zones afterwards */
	unsigned long other; /* another block changed at the same time (someone else onlining it); 0 for none */
	const char *other_state, *other_zones;
};

struct fake {
	struct fake_env *env;
	const struct block_script *script;
	size_t n_script;
	int unbind_error;  /* disable_kmem returns this ... */
	bool unbind_lies;  /* ... and, when set, changes nothing */
	bool leak_blocks;  /* unbinding kmem leaves the blocks (the kernel could not remove them) */
	int devdax_error;  /* enable_devdax returns this and binds nothing */
	bool devdax_lies;  /* enable_devdax returns 0 and binds nothing */
	int kmem_error;	   /* enable_kmem returns this and binds nothing */
	bool auto_online;  /* binding kmem adds the blocks online in Normal, as auto_online_blocks=online might */
	char calls[64][48];
	size_t n_calls;
	char progress[32][48];
	size_t n_progress;
};

#define FAKE(state) ((struct fake *)*(state))

_printf_(2, 3) static void record(struct fake *f, const char *format, ...)
{
	va_list args;

	assert_true(f->n_calls < ELEMENTSOF(f->calls));
	va_start(args, format);
	vsnprintf(f->calls[f->n_calls++], sizeof(f->calls[0]), format, args);
	va_end(args);
}

static void remove_block(struct fake *f, unsigned long block)
{
	char path[96];

	snprintf(path, sizeof(path), "devices/system/memory/memory%lu", block);
	assert_int_equal(fake_sysfs_remove(f->env->root, path), 0);
}

/* ---- the fake kernel --------------------------------------------------------------------- */

/* The fake tree's view of a few files, through fake-sysfs's helpers. */
static void write_block(struct fake *f, unsigned long block, const char *state, const char *zones)
{
	assert_int_equal(fake_sysfs_set_block(f->env->root, block, state, zones), 0);
}

static const char *block_file(struct fake *f, unsigned long block, const char *attr)
{
	return fake_sysfs_block_attr(f->env->root, block, attr);
}

static const char *driver_of(struct fake *f, const char *device)
{
	return fake_sysfs_dax_driver(f->env->root, device);
}

/* Bind driver (NULL: unbind) in the tree; a link that is not there needs no removing. */
static void set_driver(struct fake *f, const char *device, const char *driver)
{
	int r = fake_sysfs_set_dax_driver(f->env->root, device, driver);

	if (driver)
		assert_int_equal(r, 0);
}

static int fake_set_block_state(struct pmemram_ctx *ctx, void *userdata, unsigned long block, const char *value)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	record(f, "memory%lu %s", block, value);
	for (size_t i = 0; i < f->n_script; i++) {
		const struct block_script *s = &f->script[i];

		if (s->block != block || (s->value && !streq(s->value, value)))
			continue;
		if (s->state)
			write_block(f, block, s->state, s->zones);
		if (s->other)
			write_block(f, s->other, s->other_state, s->other_zones);
		return s->error;
	}

	/* What the kernel does on success. */
	if (streq(value, "online_movable"))
		write_block(f, block, "online", "Movable");
	else if (streq(value, "online_kernel"))
		write_block(f, block, "online", "Normal");
	else if (streq(value, "offline"))
		write_block(f, block, "offline", "Movable Normal");
	else
		fail_msg("unexpected state write %s", value);
	return 0;
}

/* kmem's remove: its blocks go when all are offline; otherwise the kernel keeps (leaks) them all. */
static int fake_disable_kmem(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;
	bool online = false;

	assert_non_null(ctx);
	record(f, "unbind %s", device);
	if (f->unbind_lies)
		return f->unbind_error;
	for (unsigned long b = FIRST; b <= LAST; b++)
		online = online || streq(block_file(f, b, "state"), "online");
	if (!online && !f->leak_blocks)
		for (unsigned long b = FIRST; b <= LAST; b++)
			remove_block(f, b);
	set_driver(f, device, NULL);
	return f->unbind_error;
}

static int fake_enable_devdax(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	record(f, "devdax %s", device);
	if (f->devdax_error || f->devdax_lies)
		return f->devdax_error;
	set_driver(f, device, "device_dax");
	return 0;
}

/* kmem's probe adds the range's blocks, offline unless auto-onlining. */
static int fake_enable_kmem(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	record(f, "kmem %s", device);
	if (f->kmem_error)
		return f->kmem_error;
	set_driver(f, device, "kmem");
	for (unsigned long b = FIRST; b <= LAST; b++)
		assert_int_equal(fake_sysfs_add_block(f->env->root, b, 2, f->auto_online ? "online" : "offline",
						      f->auto_online ? "Normal" : "Movable Normal"),
				 0);
	return 0;
}

static const struct pmemram_apply_ops fake_ops = {
	.set_block_state = fake_set_block_state,
	.disable_kmem = fake_disable_kmem,
	.enable_devdax = fake_enable_devdax,
	.enable_kmem = fake_enable_kmem,
};

static void fake_progress(struct pmemram_ctx *ctx, const struct pmemram_action *action, size_t index, size_t total,
			  void *userdata)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	assert_string_equal(action->device, DEVICE);
	assert_true(index < total);
	assert_true(f->n_progress < ELEMENTSOF(f->progress));
	snprintf(f->progress[f->n_progress++], sizeof(f->progress[0]), "%s memory%lu %zu/%zu",
		 action->type == PMEMRAM_ACTION_OFFLINE_BLOCK ? "offline" : "online", action->block, index, total);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	void *env = NULL;

	if (!f || fake_env_setup_hmat(&env) < 0)
		return -1;
	f->env = env;
	*state = f;
	return fake_sysfs_write(f->env->root, "bus/dax/devices/" DEVICE "/resource", "0x100000000\n");
}

static int teardown(void **state)
{
	struct fake *f = *state;
	void *env = f->env;

	fake_env_teardown(&env);
	free(f);
	return 0;
}

static int run(struct fake *f, const char *device, bool dry_run, struct pmemram_release_report **ret)
{
	struct pmemram_apply_options o = {
		.ops = &fake_ops,
		.ops_userdata = f,
		.progress = fake_progress,
		.progress_userdata = f,
		.dry_run = dry_run,
	};

	return pmemram_release(f->env->ctx, device, &o, ret);
}

static void assert_list(char (*got)[48], size_t n_got, const char *const *expected, size_t n)
{
	for (size_t i = 0; i < n && i < n_got; i++)
		assert_string_equal(got[i], expected[i]);
	assert_int_equal(n_got, n);
}

#define assert_calls(f, expected) assert_list((f)->calls, (f)->n_calls, (expected), ELEMENTSOF(expected))
#define assert_progress(f, expected) assert_list((f)->progress, (f)->n_progress, (expected), ELEMENTSOF(expected))

static const struct pmemram_release_block *block_of(const struct pmemram_release_report *r, unsigned long id)
{
	for (size_t i = 0; i < r->n_blocks; i++)
		if (r->blocks[i].id == id)
			return &r->blocks[i];
	fail_msg("memory%lu not in the report", id);
	return NULL;
}

static void assert_block(const struct pmemram_release_report *r, unsigned long id,
			 enum pmemram_release_block_status status, int result, const char *reason)
{
	const struct pmemram_release_block *b = block_of(r, id);

	assert_string_equal(pmemram_release_block_status_to_string(b->status),
			    pmemram_release_block_status_to_string(status));
	assert_int_equal(b->result, result);
	if (reason)
		assert_string_equal(b->reason, reason);
}

static void assert_outcome(const struct pmemram_release_report *r, enum pmemram_release_outcome outcome, int result,
			   const char *reason)
{
	assert_string_equal(pmemram_release_outcome_to_string(r->outcome), pmemram_release_outcome_to_string(outcome));
	assert_int_equal(r->result, result);
	if (reason)
		assert_string_equal(r->reason, reason);
}

/* Blocks FIRST..LAST online in zone (their valid_zones), memory33 excepted when zone33 is set. */
static void assert_blocks_online(struct fake *f, const char *zone33)
{
	for (unsigned long b = FIRST; b <= LAST; b++) {
		assert_string_equal(block_file(f, b, "state"), "online");
		assert_string_equal(block_file(f, b, "valid_zones"), b == 33 && zone33 ? zone33 : "Movable");
	}
}

static void assert_blocks_gone(struct fake *f)
{
	for (unsigned long b = FIRST; b <= LAST; b++)
		assert_string_equal(block_file(f, b, "state"), "<absent>");
	assert_string_equal(block_file(f, 39, "state"), "offline");
}

static const char *const offline_all[] = {
	"memory38 offline", "memory37 offline", "memory36 offline", "memory35 offline",
	"memory34 offline", "memory33 offline", "memory32 offline",
};

/* ---- tests -------------------------------------------------------------------------------- */

static void test_releases_all_blocks(void **state)
{
	static const char *const calls[] = {
		"memory38 offline", "memory37 offline", "memory36 offline", "memory35 offline", "memory34 offline",
		"memory33 offline", "memory32 offline", "unbind " DEVICE,   "devdax " DEVICE,
	};
	static const char *const progress[] = {
		"offline memory38 0/7", "offline memory37 1/7", "offline memory36 2/7", "offline memory35 3/7",
		"offline memory34 4/7", "offline memory33 5/7", "offline memory32 6/7",
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, DEVICE, false, &r), 0);
	assert_calls(f, calls);
	assert_progress(f, progress);

	/* 7 blocks of 128 MiB */
	assert_outcome(r, PMEMRAM_RELEASE_RELEASED, 0, "dax0.0: released 896 MiB (7 blocks, 7 offlined now), device_dax bound");
	assert_string_equal(r->device, DEVICE);
	assert_int_equal(r->node, 2);
	assert_string_equal(r->driver_before, "kmem");
	assert_string_equal(r->driver_after, "device_dax");
	assert_int_equal(r->block_size, 128 << 20);
	assert_int_equal(r->n_blocks, 7);
	for (unsigned long b = FIRST; b <= LAST; b++) {
		const struct pmemram_release_block *blk = block_of(r, b);

		assert_int_equal(blk->node, 2);
		assert_int_equal(blk->state_before, PMEMRAM_BLOCK_ONLINE);
		assert_int_equal(blk->zone_before, PMEMRAM_ZONE_MOVABLE);
	}
	assert_block(r, 32, PMEMRAM_RELEASE_BLOCK_OFFLINED, 0, "memory32: offlined (was online in Movable)");
	assert_block(r, 38, PMEMRAM_RELEASE_BLOCK_OFFLINED, 0, "memory38: offlined (was online in Movable)");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_OFFLINED], 7);

	assert_string_equal(driver_of(f, DEVICE), "device_dax");
	assert_blocks_gone(f);
}

static void test_some_blocks_already_offline(void **state)
{
	static const char *const calls[] = {
		"memory38 offline", "memory37 offline", "memory34 offline", "memory33 offline",
		"memory32 offline", "unbind " DEVICE,	"devdax " DEVICE,
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	write_block(f, 35, "offline", "Movable Normal");
	write_block(f, 36, "offline", "Movable Normal");
	assert_int_equal(run(f, DEVICE, false, &r), 0);
	assert_calls(f, calls);
	/* progress counts the 5 blocks to offline */
	assert_int_equal(f->n_progress, 5);
	assert_string_equal(f->progress[2], "offline memory34 2/5");

	assert_outcome(r, PMEMRAM_RELEASE_RELEASED, 0, "dax0.0: released 896 MiB (7 blocks, 5 offlined now), device_dax bound");
	assert_block(r, 35, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory35: already offline");
	assert_block(r, 36, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory36: already offline");
	assert_int_equal(block_of(r, 36)->state_before, PMEMRAM_BLOCK_OFFLINE);
	assert_block(r, 37, PMEMRAM_RELEASE_BLOCK_OFFLINED, 0, NULL);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_OFFLINED], 5);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE], 2);
	assert_string_equal(driver_of(f, DEVICE), "device_dax");
	assert_blocks_gone(f);
}

static void test_busy_block_restores_the_others(void **state)
{
	/* memory35 holds unmovable pages: the kernel cannot migrate them and the write fails, block online */
	static const struct block_script script[] = { { 35, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL } };
	static const char *const calls[] = {
		"memory38 offline",	   "memory37 offline",	     "memory36 offline",       "memory35 offline",
		"memory34 offline",	   "memory33 offline",	     "memory32 offline",       "memory32 online_movable",
		"memory33 online_kernel", "memory34 online_movable", "memory36 online_movable", "memory37 online_movable",
		"memory38 online_movable",
	};
	static const char *const progress[] = {
		"offline memory38 0/7", "offline memory37 1/7", "offline memory36 2/7", "offline memory35 3/7",
		"offline memory34 4/7", "offline memory33 5/7", "offline memory32 6/7", "online memory32 0/6",
		"online memory33 1/6",	"online memory34 2/6",	"online memory36 3/6",	"online memory37 4/6",
		"online memory38 5/6",
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	write_block(f, 33, "online", "Normal");
	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_calls(f, calls);
	assert_progress(f, progress);

	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EBUSY,
		       "dax0.0: not released: memory35 could not be offlined; kmem still bound, the 6 blocks offlined "
		       "online again");
	assert_block(r, 35, PMEMRAM_RELEASE_BLOCK_FAILED, -EBUSY,
		     "memory35: could not be offlined: the kernel could not migrate its pages away (unmovable or "
		     "pinned pages in use): Device or resource busy");
	assert_block(r, 33, PMEMRAM_RELEASE_BLOCK_RESTORED, 0, "memory33: offlined, then onlined again in Normal");
	assert_int_equal(block_of(r, 33)->zone_before, PMEMRAM_ZONE_NORMAL);
	assert_block(r, 38, PMEMRAM_RELEASE_BLOCK_RESTORED, 0, "memory38: offlined, then onlined again in Movable");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_RESTORED], 6);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_FAILED], 1);
	assert_string_equal(r->driver_after, "kmem");

	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_blocks_online(f, "Normal");
}

static void test_offline_timeout_stops_and_restores(void **state)
{
	/* memory36's pages cannot migrate: the bounded write was interrupted, the block is online */
	static const struct block_script script[] = { { 36, "offline", -ETIMEDOUT, NULL, NULL, 0, NULL, NULL } };
	static const char *const calls[] = {
		"memory38 offline", "memory37 offline", "memory36 offline", "memory37 online_movable",
		"memory38 online_movable",
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	pmemram_ctx_set_offline_timeout(f->env->ctx, 5 * 1000000);
	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -ETIMEDOUT);
	/* The blocks below it are not tried: each could take the whole timeout again. */
	assert_calls(f, calls);
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -ETIMEDOUT,
		       "dax0.0: not released: memory36 could not be offlined; kmem still bound, the 2 blocks offlined "
		       "online again");
	assert_block(r, 36, PMEMRAM_RELEASE_BLOCK_FAILED, -ETIMEDOUT,
		     "memory36: did not go offline within 5 s: the kernel kept retrying to migrate pages that stay "
		     "in use (extra references, e.g. spliced into a pipe); no process maps its pages (kernel or "
		     "pipe buffers hold them)");
	assert_block(r, 35, PMEMRAM_RELEASE_BLOCK_UNTOUCHED, 0, NULL);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_RESTORED], 2);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_UNTOUCHED], 4);
	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_blocks_online(f, NULL);
}

static void test_several_failures_tried_all(void **state)
{
	/* memory37 and memory35 both busy; memory36 refused for another reason.  All are tried. */
	static const struct block_script script[] = {
		{ 37, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL },
		{ 36, "offline", -EINVAL, NULL, NULL, 0, NULL, NULL },
		{ 35, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL },
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	/* 7 offline writes, then 4 restores (38, 34, 33, 32) */
	assert_int_equal(f->n_calls, 11);
	assert_string_equal(f->calls[7], "memory32 online_movable");
	assert_string_equal(f->calls[10], "memory38 online_movable");
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EBUSY,
		       "dax0.0: not released: 3 blocks could not be offlined (memory37 first); kmem still bound, the 4 "
		       "blocks offlined online again");
	assert_block(r, 36, PMEMRAM_RELEASE_BLOCK_FAILED, -EINVAL,
		     "memory36: offline rejected: Invalid argument (state online, valid_zones: Movable)");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_FAILED], 3);
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_RESTORED], 4);
	assert_blocks_online(f, NULL);
}

static void test_restore_failure_is_incomplete(void **state)
{
	static const struct block_script script[] = {
		{ 35, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL },
		{ 36, "online_movable", -EINVAL, NULL, NULL, 0, NULL, NULL },
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_outcome(r, PMEMRAM_RELEASE_INCOMPLETE, -EBUSY,
		       "dax0.0: not released: memory35 could not be offlined; kmem still bound, but 1 block could not be "
		       "put back (memory36 first)");
	assert_block(r, 36, PMEMRAM_RELEASE_BLOCK_NOT_RESTORED, -EINVAL,
		     "memory36: not put back online in Movable: online_movable rejected: Invalid argument (state "
		     "offline, valid_zones: Movable Normal)");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_RESTORED], 5);
	assert_string_equal(block_file(f, 36, "state"), "offline");
	assert_string_equal(block_file(f, 37, "state"), "online");
	assert_string_equal(driver_of(f, DEVICE), "kmem");
}

static void test_block_back_online_before_unbind(void **state)
{
	/* While memory32 is offlined, something onlines memory38 again: kmem must not be unbound. */
	static const struct block_script script[] = {
		{ 32, "offline", 0, "offline", "Movable Normal", 38, "online", "Movable" },
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	/* 7 offline writes, 6 restores, no unbind */
	assert_int_equal(f->n_calls, 13);
	assert_string_equal(f->calls[12], "memory37 online_movable");
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EBUSY,
		       "dax0.0: not released: memory38: online again (valid_zones: Movable) before kmem could be "
		       "unbound: something else onlined it; kmem still bound, the 6 blocks offlined online again");
	assert_block(r, 38, PMEMRAM_RELEASE_BLOCK_FAILED, -EBUSY, NULL);
	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_blocks_online(f, NULL);
}

static void test_unbind_takes_no_effect(void **state)
{
	static const char *const restores[] = {
		"memory32 online_movable", "memory33 online_movable", "memory34 online_movable", "memory35 online_movable",
		"memory36 online_movable", "memory37 online_movable", "memory38 online_movable",
	};
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	/* disable_kmem "succeeds", but kmem stays bound and the blocks stay */
	f->unbind_lies = true;
	assert_int_equal(run(f, DEVICE, false, &r), -EIO);
	assert_int_equal(f->n_calls, 15);
	assert_list(f->calls, 7, offline_all, 7);
	assert_string_equal(f->calls[7], "unbind " DEVICE);
	assert_list(f->calls + 8, 7, restores, 7);
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EIO,
		       "dax0.0: not released: unbinding kmem took no effect: bound to kmem; kmem still bound, the 7 "
		       "blocks offlined online again");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_RESTORED], 7);
	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_blocks_online(f, NULL);
}

static void test_unbind_error_with_kmem_bound(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	/* what libdaxctl says when the driver link is still there after unbinding */
	f->unbind_lies = true;
	f->unbind_error = -EBUSY;
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EBUSY,
		       "dax0.0: not released: unbinding kmem failed: Device or resource busy; kmem still bound, the 7 "
		       "blocks offlined online again");
	assert_blocks_online(f, NULL);
}

static void test_blocks_left_after_unbind(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->leak_blocks = true;
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	/* no device_dax on a range the kernel still holds, and nothing left to undo */
	assert_int_equal(f->n_calls, 8);
	assert_string_equal(f->calls[7], "unbind " DEVICE);
	assert_outcome(r, PMEMRAM_RELEASE_INCOMPLETE, -EBUSY,
		       "dax0.0: kmem unbound, but the kernel did not remove memory32: it stays offline, its range "
		       "claimed, until reboot");
	assert_string_equal(r->driver_after, "");
	assert_string_equal(driver_of(f, DEVICE), "");
	assert_string_equal(block_file(f, 32, "state"), "offline");
}

static void test_devdax_bind_fails_kmem_rebound(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->devdax_error = -ENXIO;
	assert_int_equal(run(f, DEVICE, false, &r), -ENXIO);
	/* 7 offline, unbind, devdax, kmem, 7 online_movable: the blocks come back offline with kmem */
	assert_int_equal(f->n_calls, 17);
	assert_string_equal(f->calls[8], "devdax " DEVICE);
	assert_string_equal(f->calls[9], "kmem " DEVICE);
	assert_string_equal(f->calls[10], "memory32 online_movable");
	assert_string_equal(f->calls[16], "memory38 online_movable");
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -ENXIO,
		       "dax0.0: not released: binding device_dax failed: No such device or address; kmem still bound, "
		       "the 7 blocks offlined online again");
	assert_string_equal(r->driver_after, "kmem");
	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_blocks_online(f, NULL);
}

static void test_devdax_rebind_auto_onlined_into_normal(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	/* device_dax "binds" but the link never appears; kmem comes back with its blocks online in Normal,
	 * and memory35, offline before the run, auto-onlined with them */
	write_block(f, 35, "offline", "Movable Normal");
	f->devdax_lies = true;
	f->auto_online = true;
	assert_int_equal(run(f, DEVICE, false, &r), -EIO);
	/* 6 offline, unbind, devdax, kmem, then per block offline + online_movable (memory35: offline only) */
	assert_int_equal(f->n_calls, 6 + 3 + 6 * 2 + 1);
	assert_string_equal(f->calls[9], "memory32 offline");
	assert_string_equal(f->calls[10], "memory32 online_movable");
	assert_string_equal(f->calls[15], "memory35 offline");
	assert_string_equal(f->calls[16], "memory36 offline");
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EIO,
		       "dax0.0: not released: binding device_dax took no effect: unbound; kmem still bound, the 6 "
		       "blocks offlined online again");
	assert_block(r, 35, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory35: already offline");
	assert_string_equal(block_file(f, 35, "state"), "offline");
	for (unsigned long b = 36; b <= LAST; b++)
		assert_string_equal(block_file(f, b, "valid_zones"), "Movable");
	assert_string_equal(driver_of(f, DEVICE), "kmem");
}

static void test_devdax_and_kmem_fail_is_incomplete(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	f->devdax_error = -ENXIO;
	f->kmem_error = -ENOMEM;
	assert_int_equal(run(f, DEVICE, false, &r), -ENXIO);
	assert_int_equal(f->n_calls, 10);
	assert_outcome(r, PMEMRAM_RELEASE_INCOMPLETE, -ENXIO,
		       "dax0.0: not released: binding device_dax failed: No such device or address; binding kmem "
		       "failed: Cannot allocate memory: its memory is out of use with no driver bound");
	assert_string_equal(driver_of(f, DEVICE), "");
}

static void test_already_devdax(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, "dax1.0", false, &r), 0);
	assert_int_equal(f->n_calls, 0);
	assert_outcome(r, PMEMRAM_RELEASE_ALREADY, 0, "dax1.0: already released (bound to device_dax)");
	assert_string_equal(r->driver_before, "device_dax");
	assert_int_equal(r->n_blocks, 0);
	assert_string_equal(driver_of(f, "dax1.0"), "device_dax");
}

static void test_unbound_device(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	/* kmem unbound, but memory32..38 still there (left by a failed removal): no device_dax */
	set_driver(f, DEVICE, NULL);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_int_equal(f->n_calls, 0);
	assert_outcome(r, PMEMRAM_RELEASE_REFUSED, -EBUSY,
		       "dax0.0: unbound, but memory32 of its range is still present (kmem could not remove it; it stays "
		       "until reboot): not binding device_dax");
	assert_block(r, 32, PMEMRAM_RELEASE_BLOCK_UNTOUCHED, 0, "memory32: untouched (online in Movable)");
	r = pmemram_release_report_free(r);

	/* without them, release just binds device_dax */
	for (unsigned long b = FIRST; b <= LAST; b++)
		remove_block(f, b);
	assert_int_equal(run(f, DEVICE, false, &r), 0);
	assert_string_equal(f->calls[0], "devdax " DEVICE);
	assert_int_equal(f->n_calls, 1);
	assert_outcome(r, PMEMRAM_RELEASE_RELEASED, 0, "dax0.0: was unbound; device_dax bound");
	assert_string_equal(r->driver_before, "");
	assert_string_equal(r->driver_after, "device_dax");
	assert_int_equal(r->n_blocks, 0);
}

static void test_refusals(void **state)
{
	struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, "dax7.0", false, &r), -ENODEV);
	assert_outcome(r, PMEMRAM_RELEASE_REFUSED, -ENODEV, "dax7.0: no such dax device");
	assert_int_equal(r->node, -1);
	r = pmemram_release_report_free(r);

	set_driver(f, DEVICE, "cxl_dax_region");
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_outcome(r, PMEMRAM_RELEASE_REFUSED, -EBUSY, "dax0.0: bound to cxl_dax_region, not kmem: not releasing it");
	r = pmemram_release_report_free(r);

	/* resource is root-only: without it the blocks cannot be told */
	set_driver(f, DEVICE, "kmem");
	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/dax/devices/" DEVICE "/resource"), 0);
	assert_int_equal(run(f, DEVICE, false, &r), -EACCES);
	assert_outcome(r, PMEMRAM_RELEASE_REFUSED, -EACCES,
		       "dax0.0: physical address unknown (resource is readable by root only): cannot find its memory "
		       "blocks");
	r = pmemram_release_report_free(r);

	/* ranges with a gap between them: its blocks are not those of resource and size */
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/devices/" DEVICE "/resource", "0x100000000\n"), 0);
	assert_int_equal(fake_sysfs_add_dax_mapping(f->env->root, DEVICE, 0, 0x100000000, 0x107ffffff, 0), 0);
	assert_int_equal(fake_sysfs_add_dax_mapping(f->env->root, DEVICE, 1, 0x200000000, 0x207ffffff, 0x8000), 0);
	assert_int_equal(run(f, DEVICE, false, &r), -EOPNOTSUPP);
	assert_outcome(r, PMEMRAM_RELEASE_REFUSED, -EOPNOTSUPP,
		       "dax0.0: 2 physical ranges that are not one contiguous range (0x100000000-0x107ffffff, "
		       "0x200000000-0x207ffffff): pmemram releases a device of one range only; use daxctl "
		       "offline-memory");
	r = pmemram_release_report_free(r);
	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/dax/devices/" DEVICE "/mapping0"), 0);
	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/dax/devices/" DEVICE "/mapping1"), 0);

	/* an unreadable tree names the file */
	assert_int_equal(fake_env_break(f->env, "devices/system/memory/memory36/valid_zones", "Bogus\n"), 0);
	assert_int_equal(run(f, DEVICE, false, &r), -EINVAL);
	assert_int_equal(r->outcome, PMEMRAM_RELEASE_REFUSED);
	assert_non_null(strstr(r->reason, "dax0.0: cannot read the memory blocks: Invalid argument ("));
	assert_non_null(strstr(r->reason, "/devices/system/memory/memory36/valid_zones)"));
	assert_true(fake_env_error_path_is(f->env, "devices/system/memory/memory36/valid_zones"));
	r = pmemram_release_report_free(r);

	assert_int_equal(f->n_calls, 0);
	assert_string_equal(block_file(f, 38, "state"), "online");

	/* bad arguments: no report */
	assert_int_equal(pmemram_release(NULL, DEVICE, NULL, &r), -EINVAL);
	assert_int_equal(pmemram_release(f->env->ctx, NULL, NULL, &r), -EINVAL);
	assert_int_equal(pmemram_release(f->env->ctx, "", NULL, &r), -EINVAL);
	assert_int_equal(pmemram_release(f->env->ctx, "../dax0.0", NULL, &r), -EINVAL);
	assert_int_equal(pmemram_release(f->env->ctx, "dax0.0-is-a-much-too-long-device-name", NULL, &r), -EINVAL);
	assert_int_equal(pmemram_release(f->env->ctx, DEVICE, NULL, NULL), -EINVAL);
	assert_null(r);
	assert_int_equal(f->n_calls, 0);
}

static void test_dry_run_touches_nothing(void **state)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct pmemram_apply_options o = { .dry_run = true }; /* default ops: must not be called either */
	struct fake *f = FAKE(state);

	write_block(f, 35, "offline", "Movable Normal");
	write_block(f, 33, "online", "Normal");
	assert_int_equal(run(f, DEVICE, true, &r), 0);
	assert_int_equal(f->n_calls, 0);
	assert_int_equal(f->n_progress, 0);
	assert_outcome(r, PMEMRAM_RELEASE_DRY_RUN, 0,
		       "dax0.0: would offline 6 of 7 blocks (1 already offline), unbind kmem and bind device_dax");
	assert_block(r, 33, PMEMRAM_RELEASE_BLOCK_DRY_RUN, 0, "memory33: would be offlined (online in Normal)");
	assert_block(r, 35, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory35: already offline");
	assert_block(r, 38, PMEMRAM_RELEASE_BLOCK_DRY_RUN, 0, "memory38: would be offlined (online in Movable)");
	assert_int_equal(r->counts[PMEMRAM_RELEASE_BLOCK_DRY_RUN], 6);
	assert_string_equal(r->driver_after, "kmem");
	r = pmemram_release_report_free(r);

	assert_int_equal(pmemram_release(f->env->ctx, DEVICE, &o, &r), 0);
	assert_int_equal(r->outcome, PMEMRAM_RELEASE_DRY_RUN);

	assert_string_equal(driver_of(f, DEVICE), "kmem");
	assert_string_equal(block_file(f, 38, "state"), "online");
	assert_string_equal(block_file(f, 33, "valid_zones"), "Normal");
	assert_string_equal(block_file(f, 35, "state"), "offline");
}

/* The report printed to a string; free() it. */
static char *print(const struct pmemram_release_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(pmemram_release_report_print(r, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_print_folds_runs(void **state)
{
	static const struct block_script script[] = { { 35, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL } };
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	_cleanup_(freep) char *released = NULL, *rolled_back = NULL;
	struct fake *f = FAKE(state);

	write_block(f, 33, "online", "Normal");
	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	rolled_back = print(r);
	assert_string_equal(rolled_back,
			    "dax0.0: not released: memory35 could not be offlined; kmem still bound, the 6 blocks "
			    "offlined online again\n"
			    "  memory32: offlined, then onlined again in Movable\n"
			    "  memory33: offlined, then onlined again in Normal\n"
			    "  memory34: offlined, then onlined again in Movable\n"
			    "  memory35: could not be offlined: the kernel could not migrate its pages away (unmovable or "
			    "pinned pages in use): Device or resource busy\n"
			    "  memory36..memory38: offlined, then onlined again in Movable (3 blocks)\n");
	r = pmemram_release_report_free(r);

	f->n_script = 0;
	assert_int_equal(run(f, DEVICE, false, &r), 0);
	released = print(r);
	assert_string_equal(released,
			    "dax0.0: released 896 MiB (7 blocks, 7 offlined now), device_dax bound\n"
			    "  memory32: offlined (was online in Movable)\n"
			    "  memory33: offlined (was online in Normal)\n"
			    "  memory34..memory38: offlined (was online in Movable) (5 blocks)\n");

	assert_int_equal(pmemram_release_report_print(NULL, stdout), -EINVAL);
}

static void test_json(void **state)
{
	static const struct block_script script[] = { { 35, "offline", -EBUSY, NULL, NULL, 0, NULL, NULL } };
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct json_object *j = NULL, *blocks, *b, *counts;
	struct fake *f = FAKE(state);

	write_block(f, 36, "offline", "Movable Normal");
	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, DEVICE, false, &r), -EBUSY);
	assert_int_equal(pmemram_release_report_to_json(r, &j), 0);

	assert_string_equal(json_object_get_string(json_object_object_get(j, "device")), "dax0.0");
	assert_int_equal(json_object_get_int(json_object_object_get(j, "node")), 2);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "outcome")), "rolled-back");
	assert_int_equal(json_object_get_int(json_object_object_get(j, "errno")), EBUSY);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "reason")), r->reason);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "driver_before")), "kmem");
	assert_string_equal(json_object_get_string(json_object_object_get(j, "driver_after")), "kmem");
	assert_int_equal(json_object_get_int64(json_object_object_get(j, "block_size")), 128 << 20);

	counts = json_object_object_get(j, "counts");
	assert_int_equal(json_object_get_int(json_object_object_get(counts, "restored")), 5);
	assert_int_equal(json_object_get_int(json_object_object_get(counts, "failed")), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(counts, "already-offline")), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(counts, "offlined")), 0);
	assert_int_equal(json_object_object_length(counts), _PMEMRAM_RELEASE_BLOCK_STATUS_MAX);

	blocks = json_object_object_get(j, "blocks");
	assert_int_equal(json_object_array_length(blocks), 7);
	b = json_object_array_get_idx(blocks, 3); /* memory35 */
	assert_int_equal(json_object_get_int(json_object_object_get(b, "block")), 35);
	assert_int_equal(json_object_get_int(json_object_object_get(b, "node")), 2);
	assert_string_equal(json_object_get_string(json_object_object_get(b, "status")), "failed");
	assert_string_equal(json_object_get_string(json_object_object_get(b, "state_before")), "online");
	assert_string_equal(json_object_get_string(json_object_object_get(b, "zone_before")), "Movable");
	assert_int_equal(json_object_get_int(json_object_object_get(b, "errno")), EBUSY);
	assert_string_equal(json_object_get_string(json_object_object_get(b, "reason")), block_of(r, 35)->reason);
	b = json_object_array_get_idx(blocks, 4); /* memory36: offline before, no zone, no errno */
	assert_string_equal(json_object_get_string(json_object_object_get(b, "status")), "already-offline");
	assert_string_equal(json_object_get_string(json_object_object_get(b, "state_before")), "offline");
	assert_true(json_object_object_get_ex(b, "zone_before", NULL));
	assert_null(json_object_object_get(b, "zone_before"));
	assert_false(json_object_object_get_ex(b, "errno", NULL));
	json_object_put(j);
	r = pmemram_release_report_free(r);

	/* success: no errno */
	f->n_script = 0;
	assert_int_equal(run(f, DEVICE, false, &r), 0);
	assert_int_equal(pmemram_release_report_to_json(r, &j), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "outcome")), "released");
	assert_string_equal(json_object_get_string(json_object_object_get(j, "driver_after")), "device_dax");
	assert_false(json_object_object_get_ex(j, "errno", NULL));
	json_object_put(j);

	assert_int_equal(pmemram_release_report_to_json(NULL, &j), -EINVAL);
}

static void test_default_ops_write_driver_files(void **state)
{
	/* dax99.99, kmem, holds only memory39 (offline already): no block write.  The default ops write
	 * kmem's driver files; the fake kernel unbinds nothing, so nothing is left to undo. */
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *r = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_symlink(f->env->root, "bus/dax/devices/dax99.99/driver",
					    "../../../../bus/dax/drivers/kmem"),
			 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/devices/dax99.99/target_node", "2\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/devices/dax99.99/size", "134217728\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/devices/dax99.99/resource", "0x138000000\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/kmem/remove_id", "%s", ""), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/kmem/unbind", "%s", ""), 0);

	assert_int_equal(pmemram_release(f->env->ctx, "dax99.99", NULL, &r), -EIO);
	assert_outcome(r, PMEMRAM_RELEASE_ROLLED_BACK, -EIO,
		       "dax99.99: not released: unbinding kmem took no effect: bound to kmem; kmem still bound");
	assert_int_equal(r->n_blocks, 1);
	assert_block(r, 39, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory39: already offline");
	assert_string_equal(driver_of(f, "dax99.99"), "kmem");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/remove_id"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/unbind"), "dax99.99");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pmemram_release_outcome_to_string(PMEMRAM_RELEASE_INCOMPLETE), "incomplete");
	assert_null(pmemram_release_outcome_to_string(_PMEMRAM_RELEASE_OUTCOME_MAX));
	assert_string_equal(pmemram_release_block_status_to_string(PMEMRAM_RELEASE_BLOCK_NOT_RESTORED), "not-restored");
	assert_null(pmemram_release_block_status_to_string(_PMEMRAM_RELEASE_BLOCK_STATUS_MAX));
	assert_null(pmemram_release_report_free(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_releases_all_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_some_blocks_already_offline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_block_restores_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_timeout_stops_and_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_failures_tried_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_failure_is_incomplete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_back_online_before_unbind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbind_takes_no_effect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbind_error_with_kmem_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocks_left_after_unbind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devdax_bind_fails_kmem_rebound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devdax_rebind_auto_onlined_into_normal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devdax_and_kmem_fail_is_incomplete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_already_devdax, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbound_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_touches_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_folds_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_ops_write_driver_files, setup, teardown),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
