/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the applier: a fake kernel behind the ops table changes the fake sysfs tree, or lies. */
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
#include <time.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "pmemram-apply.h"
#include "pmemram-private.h"

/* What the fake kernel does when a block's state is written, instead of the honest default. */
struct block_script {
	unsigned long block;
	int error;	   /* what the write returns */
	const char *state; /* state afterwards; NULL leaves the block as it was */
	const char *zones; /* valid_zones afterwards */
};

struct fake {
	struct fake_env *env;
	const struct block_script *script;
	size_t n_script;
	int device_error; /* returned by disable_devdax/enable_kmem */
	bool device_lies; /* they return 0 but leave the driver link alone */
	char knob_at_bind[32];	   /* auto_online_blocks when enable_kmem was called */
	unsigned long probe_skips; /* a block the kernel fails to online during the bind, 0 none */
	bool convert_stops;	   /* convert_namespace leaves the dax device disabled, -ENXIO */
	bool convert_ignored;	   /* convert_namespace returns 0 and changes nothing */
	bool convert_late_error;   /* convert_namespace converts, then returns -EIO */
	int create_error;	   /* create_namespace returns it and changes nothing */
	char calls[16][64];
	size_t n_calls;
	size_t progress[16];
	size_t n_progress;
};

#define FAKE(state) ((struct fake *)*(state))
#define NS_UUID "6e2a3b3c-4f5d-4e6f-8a9b-0c1d2e3f4a5b"
/* What a create = devdax claim named "made" gives its namespace. */
#define MADE_UUID "851e5c5c-2378-8c1e-a0bf-123961976f21"

_printf_(2, 3) static void record(struct fake *f, const char *format, ...)
{
	va_list args;

	assert_true(f->n_calls < ELEMENTSOF(f->calls));
	va_start(args, format);
	vsnprintf(f->calls[f->n_calls++], sizeof(f->calls[0]), format, args);
	va_end(args);
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

static int fake_set_block_state(struct pmemram_ctx *ctx, void *userdata, unsigned long block, const char *value)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	record(f, "memory%lu %s", block, value);
	for (size_t i = 0; i < f->n_script; i++) {
		const struct block_script *s = &f->script[i];

		if (s->block != block)
			continue;
		if (s->state)
			write_block(f, block, s->state, s->zones);
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

/* The driver core: unbind (driver NULL) or bind, unless told to fail or to lie. */
static int fake_rebind(struct pmemram_ctx *ctx, struct fake *f, const char *verb, const char *device,
		       const char *driver)
{
	assert_non_null(ctx);
	record(f, "%s %s", verb, device);
	if (f->device_error || f->device_lies)
		return f->device_error;
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, device, driver), 0);
	return 0;
}

static int fake_disable_devdax(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	return fake_rebind(ctx, userdata, "disable", device, NULL);
}

#define AUTO_ONLINE "devices/system/memory/auto_online_blocks"

/* kmem's probe: the kernel onlines the blocks it adds (dax1.0's 41-44) when auto_online_blocks
 * says so. */
static int fake_enable_kmem(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;
	const char *knob = fake_sysfs_read(f->env->root, AUTO_ONLINE);
	int r;

	snprintf(f->knob_at_bind, sizeof(f->knob_at_bind), "%s", knob ? knob : "");
	r = fake_rebind(ctx, f, "enable", device, "kmem");
	if (r < 0 || f->device_lies || !knob || !streq(device, "dax1.0"))
		return r;
	for (unsigned long b = 41; b <= 44; b++)
		if (b == f->probe_skips)
			continue;
		else if (streq(knob, "online_movable"))
			write_block(f, b, "online", "Movable");
		else if (streq(knob, "online_kernel"))
			write_block(f, b, "online", "Normal");
	return 0;
}

/* As the kernel after libndctl's steps: the namespace held by an enabled nd_dax device dax0.9,
 * or, with f->convert_stops, held by dax0.9 not bound to its driver (enabling it failed). */
static int fake_convert_namespace(struct pmemram_ctx *ctx, void *userdata, const char *ns, const char *uuid, char *why,
				  size_t why_size)
{
	struct fake *f = userdata;
	char path[96];

	assert_non_null(ctx);
	/* the applier hands over an empty message for the op to fill on failure */
	assert_true(why_size > 0);
	assert_string_equal(why, "");
	record(f, "convert %s %s", ns, uuid);
	if (f->convert_ignored)
		return 0;
	snprintf(path, sizeof(path), "bus/nd/devices/%s/mode", ns);
	assert_int_equal(fake_sysfs_write(f->env->root, path, "dax\n"), 0);
	snprintf(path, sizeof(path), "bus/nd/devices/%s/holder", ns);
	assert_int_equal(fake_sysfs_write(f->env->root, path, "dax0.9\n"), 0);
	if (f->convert_stops)
		return -ENXIO;
	assert_int_equal(fake_sysfs_symlink(f->env->root, "bus/nd/devices/dax0.9/driver",
					    "../../../bus/nd/drivers/nd_pmem"),
			 0);
	return f->convert_late_error ? -EIO : 0;
}

/* As the kernel after libndctl's creation: region0's seed namespace0.1 sized, named, given the
 * claim's UUID and devdax through an enabled dax0.9 (unless f->convert_ignored or create_error). */
static int fake_create_namespace(struct pmemram_ctx *ctx, void *userdata, const char *region, const char *name,
				 char *why, size_t why_size)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	assert_true(why_size > 0);
	assert_string_equal(why, "");
	record(f, "create %s %s", region, name);
	if (f->convert_ignored || f->create_error)
		return f->create_error;
	assert_string_equal(name, "made");
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/alt_name", "%s\n", name), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/size", "1071644672\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/uuid", MADE_UUID "\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/mode", "dax\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/holder", "dax0.9\n"), 0);
	assert_int_equal(fake_sysfs_symlink(f->env->root, "bus/nd/devices/dax0.9/driver",
					    "../../../bus/nd/drivers/nd_pmem"),
			 0);
	return 0;
}

static const struct pmemram_apply_ops fake_ops = {
	.disable_devdax = fake_disable_devdax,
	.enable_kmem = fake_enable_kmem,
	.convert_namespace = fake_convert_namespace,
	.create_namespace = fake_create_namespace,
	.set_block_state = fake_set_block_state,
};

static void fake_progress(struct pmemram_ctx *ctx, const struct pmemram_action *action, size_t index,
			  size_t total, void *userdata)
{
	struct fake *f = userdata;

	assert_non_null(ctx);
	assert_non_null(action);
	assert_true(index < total);
	assert_true(f->n_progress < ELEMENTSOF(f->progress));
	f->progress[f->n_progress++] = index;
}

/* The HMAT tree (dax1.0: device_dax on node 2, blocks 32-38 online Movable) plus dax1.0's future
 * blocks 41-44, offline and able to go either way, and memory45 still being added. */
static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	void *env = NULL;

	if (!f || fake_env_setup_hmat(&env) < 0)
		return -1;
	f->env = env;
	*state = f;
	for (unsigned long b = 41; b <= 44; b++)
		if (fake_sysfs_add_block(f->env->root, b, 2, "offline", "Movable Normal") < 0)
			return -1;
	/* memory45 is still being added: no node yet, and a valid_zones that must not be read */
	if (fake_sysfs_add_block(f->env->root, 45, -1, "offline", "Bogus") < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	void *env = f->env;

	fake_env_teardown(&env);
	free(f);
	return 0;
}

static int run(struct fake *f, const struct pmemram_action *actions, size_t n, bool dry_run,
	       struct pmemram_apply_report **ret)
{
	struct pmemram_apply_options o = {
		.ops = &fake_ops,
		.ops_userdata = f,
		.progress = fake_progress,
		.progress_userdata = f,
		.dry_run = dry_run,
	};

	return pmemram_apply(f->env->ctx, actions, n, &o, ret);
}

#define ACTION(t, dev, b, z) { .type = (t), .device = (dev), .node = 2, .block = (b), .zone = (z) }
#define DISABLE(dev) ACTION(PMEMRAM_ACTION_DISABLE_DEVDAX, dev, 0, PMEMRAM_ZONE_NONE)
#define BIND(dev) ACTION(PMEMRAM_ACTION_BIND_KMEM, dev, 0, PMEMRAM_ZONE_NONE)
#define BIND_INTO(dev, z) ACTION(PMEMRAM_ACTION_BIND_KMEM, dev, 0, PMEMRAM_ZONE_##z)
#define ONLINE(b, z) ACTION(PMEMRAM_ACTION_ONLINE_BLOCK, "dax1.0", b, PMEMRAM_ZONE_##z)
#define OFFLINE(b) ACTION(PMEMRAM_ACTION_OFFLINE_BLOCK, "dax1.0", b, PMEMRAM_ZONE_NORMAL)

static void assert_calls(struct fake *f, const char *const *expected, size_t n)
{
	for (size_t i = 0; i < n && i < f->n_calls; i++)
		assert_string_equal(f->calls[i], expected[i]);
	assert_int_equal(f->n_calls, n);
}

static void assert_result(const struct pmemram_apply_report *report, size_t i, enum pmemram_apply_status status,
			  int result, const char *reason)
{
	const struct pmemram_apply_result *res = &report->results[i];

	assert_true(i < report->n_results);
	assert_string_equal(pmemram_apply_status_to_string(res->status), pmemram_apply_status_to_string(status));
	assert_int_equal(res->result, result);
	if (reason)
		assert_string_equal(res->reason, reason);
}

/* dd, pid 6262, holding /dev/pmem3 (region3's raw namespace) open without mapping it. */
static void dd_opens_pmem3(struct fake *f)
{
	assert_int_equal(fake_sysfs_write(f->env->proc, "6262/comm", "dd\n"), 0);
	assert_int_equal(fake_sysfs_symlink(f->env->proc, "6262/exe", "/usr/bin/dd"), 0);
	assert_int_equal(fake_sysfs_write(f->env->proc, "6262/maps", "\n"), 0);
	assert_int_equal(fake_sysfs_symlink(f->env->proc, "6262/fd/3", "/dev/pmem3"), 0);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_full_sequence_in_order(void **state)
{
	static const struct pmemram_action actions[] = {
		DISABLE("dax1.0"), BIND("dax1.0"), ONLINE(41, MOVABLE), ONLINE(42, MOVABLE), ONLINE(43, NORMAL),
	};
	static const char *const calls[] = {
		"disable dax1.0", "enable dax1.0", "memory41 online_movable", "memory42 online_movable",
		"memory43 online_kernel",
	};
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, actions, ELEMENTSOF(actions), false, &report), 0);
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_int_equal(f->n_progress, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(f->progress[i], i);

	assert_int_equal(report->n_results, 5);
	assert_int_equal(report->n_done, 5);
	assert_int_equal(report->failed, -1);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0, "dax1.0: unbound");
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0, "dax1.0: bound to kmem");
	assert_result(report, 2, PMEMRAM_APPLY_DONE, 0, "memory41: online in Movable");
	assert_result(report, 4, PMEMRAM_APPLY_DONE, 0, "memory43: online in Normal");
	assert_int_equal(report->results[3].action.block, 42);
	assert_string_equal(driver_of(f, "dax1.0"), "kmem");
	assert_string_equal(block_file(f, 44, "state"), "offline");
}

static void test_stops_at_first_failure(void **state)
{
	/* The kernel refuses Movable for memory42 (it would split a zone): state stays offline. */
	static const struct block_script script[] = { { 42, -EINVAL, "offline", "Normal" } };
	static const struct pmemram_action actions[] = { ONLINE(41, MOVABLE), ONLINE(42, MOVABLE), ONLINE(43, MOVABLE) };
	static const char *const calls[] = { "memory41 online_movable", "memory42 online_movable" };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, actions, ELEMENTSOF(actions), false, &report), -EINVAL);
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_int_equal(f->n_progress, 2);

	assert_int_equal(report->n_results, 3);
	assert_int_equal(report->n_done, 1);
	assert_int_equal(report->failed, 1);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0, NULL);
	assert_result(report, 1, PMEMRAM_APPLY_FAILED, -EINVAL,
		      "memory42: online_movable rejected: Invalid argument (state offline, valid_zones: Normal)");
	assert_result(report, 2, PMEMRAM_APPLY_SKIPPED, 0, NULL);
	assert_string_equal(block_file(f, 43, "state"), "offline");
}

static void test_already_online_counts_as_success(void **state)
{
	/* memory41: a udev rule onlined it between our read and our write, so the write fails. */
	static const struct block_script script[] = { { 41, -EINVAL, "online", "Movable" } };
	static const struct pmemram_action actions[] = { ONLINE(32, MOVABLE), ONLINE(41, MOVABLE) };
	static const char *const calls[] = { "memory41 online_movable" };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	f->script = script;
	f->n_script = ELEMENTSOF(script);
	assert_int_equal(run(f, actions, ELEMENTSOF(actions), false, &report), 0);
	/* memory32 was online in Movable already: not written at all */
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_int_equal(report->n_done, 2);
	assert_result(report, 0, PMEMRAM_APPLY_ALREADY, 0, "memory32: already online in Movable");
	assert_result(report, 1, PMEMRAM_APPLY_ALREADY, 0, "memory41: already online in Movable");
}

/* One action that fails, then one that must not be attempted. */
struct failure_case {
	struct pmemram_action action;
	bool scripted; /* script applies */
	struct block_script script;
	bool device_lies;
	int error;
	const char *reason;
	const char *call;   /* the one call the fake kernel sees, NULL for none */
	const char *blamed; /* the context's error path, when a file is to blame */
};

/* One case per entry, its texts beside it. */
/* clang-format off */
static const struct failure_case failures[] = {
	/* the write "succeeds" but the kernel put the block into Normal: only the re-read tells */
	{ ONLINE(41, MOVABLE), true, { 41, 0, "online", "Normal" }, false, -EIO,
	  "memory41: online in Normal, not Movable (valid_zones: Normal)", "memory41 online_movable", NULL },
	/* the write returns 0 and nothing changes */
	{ ONLINE(41, MOVABLE), true, { 41, 0, NULL, NULL }, false, -EIO,
	  "memory41: online_movable took no effect: state offline (valid_zones: Movable Normal)",
	  "memory41 online_movable", NULL },
	/* online in another zone: not ours to write (the planner offlines first) */
	{ ONLINE(32, NORMAL), false, {}, false, -EBUSY,
	  "memory32: already online in Movable, not Normal (valid_zones: Movable)", NULL, NULL },
	{ OFFLINE(33), true, { 33, -EBUSY, NULL, NULL }, false, -EBUSY,
	  "memory33: could not be offlined: its pages cannot be migrated (unmovable or pinned): Device or resource "
	  "busy; memory onlined outside Movable keeps the kernel's own allocations: claim it online = normal, or "
	  "boot with memhp_default_state=offline",
	  "memory33 offline", NULL },
	{ ONLINE(50, MOVABLE), false, {}, false, -ENODEV, "memory50: absent", NULL, NULL },
	/* no node link yet: neither onlined nor its valid_zones read (6.1 oopses on both) */
	{ ONLINE(45, MOVABLE), false, {}, false, -EAGAIN, "memory45: still being added (no node link yet)", NULL,
	  NULL },
	/* unbinding "succeeds" but device_dax is still there */
	{ DISABLE("dax1.0"), false, {}, true, -EIO,
	  "dax1.0: disabling device_dax took no effect: bound to device_dax", "disable dax1.0", NULL },
};
/* clang-format on */

static void test_failures(void **state)
{
	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(failures); i++) {
		const struct failure_case *c = &failures[i];
		const struct pmemram_action actions[] = { c->action, ONLINE(44, MOVABLE) };
		struct pmemram_apply_report *report = NULL;
		void *fixture = NULL;
		struct fake *f;

		assert_int_equal(setup(&fixture), 0);
		f = fixture;
		f->script = c->scripted ? &c->script : NULL;
		f->n_script = c->scripted ? 1 : 0;
		f->device_lies = c->device_lies;

		if (run(f, actions, 2, false, &report) != c->error || !streq(report->results[0].reason, c->reason))
			fail_msg("case %zu: got %d \"%s\", expected %d \"%s\"", i, report->results[0].result,
				 report->results[0].reason, c->error, c->reason);
		assert_result(report, 0, PMEMRAM_APPLY_FAILED, c->error, c->reason);
		assert_result(report, 1, PMEMRAM_APPLY_SKIPPED, 0, NULL);
		assert_int_equal(report->failed, 0);
		assert_int_equal(report->n_done, 0);
		assert_calls(f, &c->call, c->call ? 1 : 0);
		assert_string_equal(block_file(f, 44, "state"), "offline");
		if (c->blamed)
			assert_true(fake_env_error_path_is(f->env, c->blamed));

		pmemram_apply_report_free(report);
		teardown(&fixture);
	}
}

static void test_rezone(void **state)
{
	static const struct pmemram_action actions[] = { OFFLINE(33), ONLINE(33, NORMAL), OFFLINE(41) };
	static const char *const calls[] = { "memory33 offline", "memory33 online_kernel" };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, actions, ELEMENTSOF(actions), false, &report), 0);
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0, "memory33: offline");
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0, "memory33: online in Normal");
	assert_result(report, 2, PMEMRAM_APPLY_ALREADY, 0, "memory41: already offline");
	assert_string_equal(block_file(f, 33, "valid_zones"), "Normal");
}

static void test_dry_run_touches_nothing(void **state)
{
	static const struct pmemram_action actions[] = {
		DISABLE("dax1.0"), BIND("dax1.0"), ONLINE(41, MOVABLE), OFFLINE(33), ONLINE(33, NORMAL),
	};
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	/* Any read would also fail: the dry run must not even look. */
	assert_int_equal(fake_sysfs_remove(f->env->root, "devices/system/memory/memory41"), 0);
	assert_int_equal(run(f, actions, ELEMENTSOF(actions), true, &report), 0);
	assert_int_equal(f->n_calls, 0);
	assert_int_equal(f->n_progress, 5);
	assert_int_equal(report->n_done, 0);
	assert_int_equal(report->failed, -1);
	for (size_t i = 0; i < ELEMENTSOF(actions); i++)
		assert_result(report, i, PMEMRAM_APPLY_DRY_RUN, 0, NULL);
	assert_string_equal(report->results[0].reason, "dax1.0: disable device_dax");
	assert_string_equal(report->results[2].reason, "dax1.0: online memory41 as movable");

	assert_string_equal(driver_of(f, "dax1.0"), "device_dax");
	assert_string_equal(block_file(f, 33, "state"), "online");
	assert_string_equal(block_file(f, 33, "valid_zones"), "Movable");
}

static void test_device_errors(void **state)
{
	static const struct pmemram_action bind_bound[] = { BIND("dax1.0"), ONLINE(38, MOVABLE) };
	static const struct pmemram_action disable[] = { DISABLE("dax1.0") };
	static const struct pmemram_action already[] = { BIND("dax0.0"), DISABLE("dax0.0") };
	static const struct pmemram_action missing[] = { BIND("dax7.0") };
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	/* kmem needs an unbound device: never call enable_ram on one device_dax holds.  A bind
	 * planned for a device read unbound that device_dax holds by now: the kernel's probe ended
	 * after the read, which is no failure; the rest of the run is not attempted. */
	assert_int_equal(run(f, bind_bound, 2, false, &report), -EAGAIN);
	assert_int_equal(f->n_calls, 0);
	assert_int_equal(report->failed, -1);
	assert_true(report->changed);
	assert_result(report, 0, PMEMRAM_APPLY_CHANGED, -EAGAIN,
		      "dax1.0: bound to device_dax since it was read unbound (still being probed then)");
	assert_result(report, 1, PMEMRAM_APPLY_SKIPPED, 0, "not attempted: the device changed since it was read");
	report = pmemram_apply_report_free(report);

	f->device_error = -EBUSY;
	assert_int_equal(run(f, disable, 1, false, &report), -EBUSY);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "dax1.0: disabling device_dax failed: Device or resource busy");
	report = pmemram_apply_report_free(report);

	/* dax0.0 is kmem already: binding is done, disabling device_dax is not ours to do */
	assert_int_equal(run(f, already, 2, false, &report), -EBUSY);
	assert_result(report, 0, PMEMRAM_APPLY_ALREADY, 0, "dax0.0: already bound to kmem");
	assert_result(report, 1, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "dax0.0: bound to kmem, expected bound to device_dax: not disabling device_dax");
	report = pmemram_apply_report_free(report);

	assert_int_equal(run(f, missing, 1, false, &report), -ENODEV);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ENODEV, "dax7.0: cannot read its driver: No such device");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 1);
}

static void test_default_block_write(void **state)
{
	/* The real write through the context's sysfs handle, with nothing behind the file to act like
	 * the kernel: it lands in memory41/state, reads back unchanged, and the applier says so. */
	static const struct pmemram_apply_ops ops = { .set_block_state = pmemram_apply_write_block_state };
	static const struct pmemram_action actions[] = { ONLINE(41, MOVABLE) };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct pmemram_apply_options o = { .ops = &ops };
	struct fake *f = FAKE(state);

	assert_int_equal(pmemram_apply(f->env->ctx, actions, 1, &o, &report), -EIO);
	assert_string_equal(block_file(f, 41, "state"), "online_movable");
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO,
		      "memory41: online_movable took no effect: state online_movable (valid_zones: Movable Normal)");
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* An offline the kernel keeps retrying (pages that cannot migrate) stands here as a FIFO nobody
 * reads: opening it for writing blocks until a signal.  The bounded write gives up at the
 * context's offline timeout, and an online write is not bounded at all. */
static void test_default_offline_write_is_bounded(void **state)
{
	struct fake *f = FAKE(state);
	char path[PATH_MAX];
	struct timespec t0;
	double took;

	snprintf(path, sizeof(path), "%s/devices/system/memory/memory42/state", f->env->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	pmemram_ctx_set_offline_timeout(f->env->ctx, 200 * 1000);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pmemram_apply_write_block_state(f->env->ctx, NULL, 42, "offline"), -ETIMEDOUT);
	took = seconds_since(&t0);
	assert_true(took >= 0.19);
	assert_true(took < 10.0); /* generous: only "it came back", not how fast */
	assert_true(fake_env_error_path_is(f->env, "devices/system/memory/memory42/state"));

	/* A block that goes offline in time is verified as before. */
	assert_int_equal(fake_sysfs_set_block(f->env->root, 43, "offline", "Movable Normal"), 0);
	assert_int_equal(pmemram_apply_write_block_state(f->env->ctx, NULL, 43, "offline"), 0);
	assert_string_equal(block_file(f, 43, "state"), "offline");
}

struct done_log {
	struct fake *f;
	char lines[8][320];
	size_t n;
};

/* Each result is handed over before the next action starts: the calls made so far and its reason. */
static void record_done(struct pmemram_ctx *ctx, const struct pmemram_apply_result *res, void *userdata)
{
	struct done_log *log = userdata;

	assert_non_null(ctx);
	assert_true(log->n < ELEMENTSOF(log->lines));
	snprintf(log->lines[log->n++], sizeof(log->lines[0]), "%zu calls, %s: %s", log->f->n_calls,
		 pmemram_apply_status_to_string(res->status), res->reason);
}

static void test_done_as_each_completes(void **state)
{
	static const struct pmemram_action actions[] = { DISABLE("dax1.0"), BIND("dax1.0"), ONLINE(41, MOVABLE),
							 ONLINE(42, MOVABLE) };
	static const struct block_script script[] = { { 41, -EBUSY, NULL, NULL } };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);
	struct done_log log = { .f = f };
	struct pmemram_apply_options o = { .ops = &fake_ops, .ops_userdata = f, .done = record_done, .done_userdata = &log };

	f->script = script;
	f->n_script = 1;
	assert_int_equal(pmemram_apply(f->env->ctx, actions, ELEMENTSOF(actions), &o, &report), -EBUSY);
	/* the skipped action was never attempted: no result handed over for it */
	assert_int_equal(log.n, 3);
	assert_string_equal(log.lines[0], "1 calls, done: dax1.0: unbound");
	assert_string_equal(log.lines[1], "2 calls, done: dax1.0: bound to kmem");
	assert_string_equal(log.lines[2], "3 calls, failed: memory41: online_movable rejected: Device or resource busy "
					  "(state offline, valid_zones: Movable Normal)");
}

static void test_convert_namespace(void **state)
{
	static const struct pmemram_apply_ops no_convert = { .set_block_state = fake_set_block_state };
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE, .device = "namespace0.0", .uuid = NS_UUID, .node = -1 },
	};
	struct pmemram_apply_options o = { .ops = &no_convert };
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/mode", "memory\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/uuid", NS_UUID "\n"), 0);
	assert_int_equal(pmemram_apply(f->env->ctx, actions, 1, &o, &report), -EOPNOTSUPP);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EOPNOTSUPP,
		      "namespace0.0: conversion to devdax failed (mode now memory): Operation not supported");
	report = pmemram_apply_report_free(report);

	/* Cut short: mode dax, but its dax device not enabled; the same action finishes it. */
	f->convert_stops = true;
	assert_int_equal(run(f, actions, 1, false, &report), -ENXIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ENXIO,
		      "namespace0.0: conversion to devdax failed (mode now dax): No such device or address");
	report = pmemram_apply_report_free(report);
	f->convert_stops = false;
	assert_int_equal(run(f, actions, 1, false, &report), 0);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0,
		      "namespace0.0: converted to devdax (uuid " NS_UUID " kept; its former contents are gone)");
	report = pmemram_apply_report_free(report);
	assert_int_equal(run(f, actions, 1, false, &report), 0);
	assert_result(report, 0, PMEMRAM_APPLY_ALREADY, 0, "namespace0.0: already devdax");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 2);
	assert_string_equal(f->calls[0], "convert namespace0.0 " NS_UUID);
}

/* The users are looked at again right before the op: mounted, or open by a process (which
 * libndctl's exclusive open would miss), the namespace is left alone. */
static void test_convert_namespace_rechecks_users(void **state)
{
	static const struct pmemram_action mounted[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE,
		  .device = "namespace2.0",
		  .uuid = FAKE_UUID_FSDAX,
		  .node = -1 },
	};
	static const struct pmemram_action open[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE,
		  .device = "namespace3.0",
		  .uuid = FAKE_UUID_RAW,
		  .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(run(f, mounted, 1, false, &report), -EBUSY);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "namespace2.0: in use (/dev/pmem2 mounted): not converting");
	report = pmemram_apply_report_free(report);

	dd_opens_pmem3(f);
	assert_int_equal(run(f, open, 1, false, &report), -EBUSY);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "namespace3.0: in use (/dev/pmem3 open by pid 6262 (dd)): not converting");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 0);

	/* closed again: converted */
	assert_int_equal(fake_sysfs_remove(f->env->proc, "6262/fd/3"), 0);
	assert_int_equal(run(f, open, 1, false, &report), 0);
	assert_int_equal(f->n_calls, 1);
	assert_string_equal(f->calls[0], "convert namespace3.0 " FAKE_UUID_RAW);
	report = pmemram_apply_report_free(report);
}

/* The op failed after the namespace became devdax: its contents are gone all the same, so the
 * result is done (and says what the library reported), not "already". */
static void test_convert_namespace_late_error(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE, .device = "namespace0.0", .uuid = NS_UUID, .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/mode", "raw\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/uuid", NS_UUID "\n"), 0);
	f->convert_late_error = true;
	assert_int_equal(run(f, actions, 1, false, &report), 0);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0,
		      "namespace0.0: converted to devdax (uuid " NS_UUID " kept; its former contents are gone); "
		      "the library then reported: Input/output error");
	report = pmemram_apply_report_free(report);
}

/* An op that says it converted but leaves the mode as it was is caught by the re-read. */
static void test_convert_namespace_no_effect(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE, .device = "namespace0.0", .uuid = NS_UUID, .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/mode", "raw\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/uuid", NS_UUID "\n"), 0);
	f->convert_ignored = true;
	assert_int_equal(run(f, actions, 1, false, &report), -EIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO,
		      "namespace0.0: conversion to devdax took no effect: mode raw");
	report = pmemram_apply_report_free(report);
}

/* Never a namespace the claim does not name: another UUID (the name reused since the plan), or
 * none at all, is refused before the op is called. */
static void test_convert_namespace_other_uuid(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE, .device = "namespace0.0", .uuid = NS_UUID, .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/mode", "memory\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.0/uuid",
					  "11111111-2222-4333-8444-555555555555\n"),
			 0);
	assert_int_equal(run(f, actions, 1, false, &report), -ESTALE);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ESTALE,
		      "namespace0.0: its UUID is '11111111-2222-4333-8444-555555555555', not the claimed " NS_UUID
		      ": not converting");
	report = pmemram_apply_report_free(report);

	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/nd/devices/namespace0.0/uuid"), 0);
	assert_int_equal(run(f, actions, 1, false, &report), -ESTALE);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ESTALE,
		      "namespace0.0: its UUID is '', not the claimed " NS_UUID ": not converting");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 0);
}

/* create = devdax: made once, then found by its name; an op that does nothing is caught. */
static void test_create_namespace(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CREATE_NAMESPACE, .device = "region0", .claim = "made", .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	f->convert_ignored = true;
	assert_int_equal(run(f, actions, 1, false, &report), -EIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO,
		      "region0: creating a devdax namespace named 'made' took no effect");
	report = pmemram_apply_report_free(report);

	f->convert_ignored = false;
	assert_int_equal(run(f, actions, 1, false, &report), 0);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0, "region0: created devdax namespace namespace0.1 named 'made'");
	report = pmemram_apply_report_free(report);
	assert_int_equal(run(f, actions, 1, false, &report), 0);
	assert_result(report, 0, PMEMRAM_APPLY_ALREADY, 0,
		      "region0: already holds devdax namespace namespace0.1 named 'made'");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 2);
	assert_string_equal(f->calls[1], "create region0 made");
}

/* A half-made namespace of the claim's (its name and UUID, raw) is finished only when nothing uses
 * its disk: finishing disables it. */
static void test_create_namespace_half_made_busy(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CREATE_NAMESPACE, .device = "region3", .claim = "made", .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);
	char uuid[PMEMRAM_UUID_STRING_MAX];

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace3.0/alt_name", "made\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace3.0/uuid", "%s\n",
					  pmemram_create_uuid_string("made", uuid)),
			 0);
	dd_opens_pmem3(f);
	assert_int_equal(run(f, actions, 1, false, &report), -EBUSY);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "region3: namespace3.0, named 'made', is in use (/dev/pmem3 open by pid 6262 (dd)): not "
		      "finishing it");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 0);

	/* closed: the op is asked to finish it */
	assert_int_equal(fake_sysfs_remove(f->env->proc, "6262/fd/3"), 0);
	f->convert_ignored = true;
	assert_int_equal(run(f, actions, 1, false, &report), -EIO);
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 1);
	assert_string_equal(f->calls[0], "create region3 made");
}

/* A devdax namespace named after the claim that pmemram did not create (ndctl create-namespace
 * -n made, another UUID) is not the claim's: the op is asked, and its refusal is the result. */
static void test_create_namespace_foreign(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CREATE_NAMESPACE, .device = "region0", .claim = "made", .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/alt_name", "made\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/size", "1071644672\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/uuid", NS_UUID "\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/mode", "dax\n"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/namespace0.1/holder", "dax0.9\n"), 0);
	assert_int_equal(fake_sysfs_symlink(f->env->root, "bus/nd/devices/dax0.9/driver",
					    "../../../bus/nd/drivers/nd_pmem"),
			 0);
	f->create_error = -EEXIST;
	assert_int_equal(run(f, actions, 1, false, &report), -EEXIST);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EEXIST,
		      "region0: creating a devdax namespace named 'made' failed: File exists");
	report = pmemram_apply_report_free(report);
	assert_int_equal(f->n_calls, 1);
	assert_string_equal(f->calls[0], "create region0 made");
}

/* Library code logs at debug only: count the lines, fail on anything louder. */
static size_t debug_lines;

static void count_debug(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
			const char *format, va_list args)
{
	assert_non_null(ctx);
	assert_int_equal(priority, LOG_DEBUG);
	(void)file, (void)line, (void)fn, (void)format, (void)args;
	debug_lines++;
}

/* The default ops write the dax bus's driver files below the context's root; the fake kernel
 * binds nothing, which the re-read of the driver link reports. */
static void test_default_ops_write_driver_files(void **state)
{
	static const struct pmemram_action actions[] = { DISABLE("dax99.99") };
	static const struct pmemram_action bind[] = { BIND("dax99.99") };
	static const struct pmemram_action devdax[] = { ACTION(PMEMRAM_ACTION_BIND_DEVDAX, "dax99.99", 0,
							       PMEMRAM_ZONE_NONE) };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	static const char *const files[] = { "device_dax/remove_id", "device_dax/unbind", "kmem/new_id", "kmem/bind" };
	struct fake *f = FAKE(state);
	char path[64];

	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		snprintf(path, sizeof(path), "bus/dax/drivers/%s", files[i]);
		assert_int_equal(fake_sysfs_write(f->env->root, path, "%s", ""), 0);
	}
	assert_int_equal(fake_sysfs_symlink(f->env->root, "bus/dax/devices/dax99.99/driver",
					    "../../../../bus/dax/drivers/device_dax"),
			 0);
	assert_int_equal(pmemram_apply(f->env->ctx, actions, 1, NULL, &report), -EIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO,
		      "dax99.99: disabling device_dax took no effect: bound to device_dax");
	/* The driver lets go of the name before the device. */
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/device_dax/remove_id"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/device_dax/unbind"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/new_id"), "");
	report = pmemram_apply_report_free(report);

	/* Unbound: new_id, and bind when new_id did not bind it. */
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, "dax99.99", NULL), 0);
	assert_int_equal(pmemram_apply(f->env->ctx, bind, 1, NULL, &report), -EIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO, "dax99.99: binding kmem took no effect: unbound");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/new_id"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/bind"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/remove_id"), "<absent>");
	report = pmemram_apply_report_free(report);

	/* device_dax takes any dax device: bind alone; its new_id would bind every unbound one. */
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/device_dax/new_id", "%s", ""), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/device_dax/bind", "%s", ""), 0);
	assert_int_equal(pmemram_apply(f->env->ctx, devdax, 1, NULL, &report), -EIO);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EIO, "dax99.99: binding device_dax took no effect: unbound");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/device_dax/bind"), "dax99.99");
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/device_dax/new_id"), "");
	report = pmemram_apply_report_free(report);

	/* A kmem bind that fails takes the name out of kmem's id table again. */
	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/dax/drivers/kmem/bind"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/kmem/bind/is-a-directory", "%s", ""), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/kmem/remove_id", "%s", ""), 0);
	assert_true(pmemram_apply(f->env->ctx, bind, 1, NULL, &report) < 0);
	assert_int_equal(report->results[0].status, PMEMRAM_APPLY_FAILED);
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/remove_id"), "dax99.99");
	report = pmemram_apply_report_free(report);

	/* The old driver's files in order: its unbind missing, the name is out of its table first. */
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, "dax99.99", "device_dax"), 0);
	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/drivers/device_dax/remove_id", "%s", ""), 0);
	assert_int_equal(fake_sysfs_remove(f->env->root, "bus/dax/drivers/device_dax/unbind"), 0);
	assert_int_equal(pmemram_apply(f->env->ctx, actions, 1, NULL, &report), -ENOENT);
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/device_dax/remove_id"), "dax99.99");
}

/* A driver that is not registered (its module not loaded) is libdaxctl's to load and bind: it reads
 * the real /sys, where no dax99.99 exists, and the lookup fails cleanly. */
static void test_default_ops_load_through_libdaxctl(void **state)
{
	static const struct pmemram_action actions[] = { BIND("dax99.99") };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	const char *prefix = "dax99.99: binding kmem failed: ";
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/dax/devices/dax99.99/size", "0\n"), 0);
	/* The fake tree has no bus/dax/drivers/kmem. */
	assert_string_equal(fake_sysfs_read(f->env->root, "bus/dax/drivers/kmem/new_id"), "<absent>");
	pmemram_ctx_set_log_fn(f->env->ctx, count_debug);
	pmemram_ctx_set_log_priority(f->env->ctx, LOG_DEBUG);
	debug_lines = 0;
	assert_true(pmemram_apply(f->env->ctx, actions, 1, NULL, &report) < 0);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, report->results[0].result, NULL);
	assert_memory_equal(report->results[0].reason, prefix, strlen(prefix));
	assert_string_equal(driver_of(f, "dax99.99"), "");
	assert_true(debug_lines > 0);
	/* The libdaxctl context outlives the run (freed with the pmemram context). */
	assert_non_null(pmemram_ctx_get_apply_state(f->env->ctx));
	pmemram_ctx_set_log_fn(f->env->ctx, NULL);
}

/* libndctl reads the real /sys, where no namespace99.99 nor region99 exists: both jobs fail
 * cleanly, with every function of the table found in libndctl6. */
static void test_default_ops_use_libndctl(void **state)
{
	static const struct pmemram_action actions[] = {
		{ .type = PMEMRAM_ACTION_CONVERT_NAMESPACE,
		  .device = "namespace3.0",
		  .uuid = FAKE_UUID_RAW,
		  .node = -1 },
		{ .type = PMEMRAM_ACTION_CREATE_NAMESPACE, .device = "region99", .claim = "made", .node = -1 },
	};
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(fake_sysfs_write(f->env->root, "bus/nd/devices/region99/available_size", "0\n"), 0);
	pmemram_ctx_set_log_fn(f->env->ctx, count_debug);
	pmemram_ctx_set_log_priority(f->env->ctx, LOG_DEBUG);
	debug_lines = 0;
	assert_int_equal(pmemram_apply(f->env->ctx, actions, 1, NULL, &report), -ENODEV);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ENODEV,
		      "namespace3.0: conversion to devdax failed (mode now raw): libndctl does not list it");
	report = pmemram_apply_report_free(report);
	assert_int_equal(pmemram_apply(f->env->ctx, actions + 1, 1, NULL, &report), -ENODEV);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -ENODEV,
		      "region99: creating a devdax namespace named 'made' failed: libndctl does not list it");
	report = pmemram_apply_report_free(report);
	assert_true(debug_lines > 0);
	pmemram_ctx_set_log_fn(f->env->ctx, NULL);
}

/* ---- the kernel onlines during the bind ----------------------------------------------------- */

/* dax1.0 unbound, its blocks 41-44 gone (the bind adds them), and the record's path. */
static void unbind_for_auto_online(struct fake *f, char *record, size_t size)
{
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, "dax1.0", NULL), 0);
	for (unsigned long b = 41; b <= 44; b++)
		write_block(f, b, "offline", "Movable Normal");
	snprintf(record, size, "%s/auto-online", f->env->root);
}

static int run_recorded(struct fake *f, const struct pmemram_action *actions, size_t n, const char *record,
			struct pmemram_apply_report **ret)
{
	struct pmemram_apply_options o = {
		.ops = &fake_ops,
		.ops_userdata = f,
		.auto_online_record = record,
	};

	return pmemram_apply(f->env->ctx, actions, n, &o, ret);
}

static const char *record_content(const char *record, char *buf, size_t size)
{
	FILE *file = fopen(record, "re");
	size_t n;

	assert_non_null(file);
	n = fread(buf, 1, size - 1, file);
	buf[n] = '\0';
	fclose(file);
	return buf;
}

static void test_kernel_onlines_during_bind(void **state)
{
	static const struct pmemram_action actions[] = {
		BIND_INTO("dax1.0", MOVABLE), ONLINE(41, MOVABLE), ONLINE(42, MOVABLE),
		ONLINE(43, MOVABLE),	      ONLINE(44, MOVABLE),
	};
	static const char *const calls[] = { "enable dax1.0" };
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);
	char record[PATH_MAX], buf[64];

	unbind_for_auto_online(f, record, sizeof(record));
	assert_int_equal(run_recorded(f, actions, ELEMENTSOF(actions), record, &report), 0);
	/* the knob said online_movable during the bind, and no block was written */
	assert_string_equal(f->knob_at_bind, "online_movable");
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_int_equal(report->n_done, 5);
	assert_result(report, 0, PMEMRAM_APPLY_DONE, 0, "dax1.0: bound to kmem");
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0,
		      "memory41: online in Movable (by the kernel, during the kmem bind)");
	assert_result(report, 4, PMEMRAM_APPLY_DONE, 0,
		      "memory44: online in Movable (by the kernel, during the kmem bind)");
	assert_false(report->results[0].by_kernel);
	assert_true(report->results[1].by_kernel && report->results[4].by_kernel);
	/* put back, and nothing left to undo */
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "offline");
	assert_string_equal(record_content(record, buf, sizeof(buf)), "");
}

static void test_auto_online_fallbacks(void **state)
{
	static const struct pmemram_action actions[] = {
		BIND_INTO("dax1.0", NORMAL),
		ONLINE(41, NORMAL),
		ONLINE(42, NORMAL),
	};
	static const struct pmemram_action movable[] = { BIND_INTO("dax1.0", MOVABLE), ONLINE(41, MOVABLE) };
	static const char *const calls[] = { "enable dax1.0", "memory42 online_kernel" };
	static const char *const plain_calls[] = { "enable dax1.0", "memory41 online_movable" };
	static const char *const admin_calls[] = { "enable dax1.0" };
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);
	char record[PATH_MAX], buf[64];

	/* The kernel could not online memory42 in the probe: it is written like any other block. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->probe_skips = 42;
	assert_int_equal(run_recorded(f, actions, ELEMENTSOF(actions), record, &report), 0);
	assert_string_equal(f->knob_at_bind, "online_kernel");
	assert_calls(f, calls, ELEMENTSOF(calls));
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0,
		      "memory41: online in Normal (by the kernel, during the kmem bind)");
	assert_result(report, 2, PMEMRAM_APPLY_DONE, 0, "memory42: online in Normal");
	report = pmemram_apply_report_free(report);
	f->probe_skips = 0;

	/* Without a record the knob is not touched and every block is written. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->n_calls = 0;
	assert_int_equal(run_recorded(f, movable, ELEMENTSOF(movable), NULL, &report), 0);
	assert_string_equal(f->knob_at_bind, "offline");
	assert_calls(f, plain_calls, ELEMENTSOF(plain_calls));
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0, "memory41: online in Movable");
	assert_false(report->results[1].by_kernel);
	report = pmemram_apply_report_free(report);

	/* The administrator's online_movable already does it: left as it is, nothing recorded. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->n_calls = 0;
	assert_int_equal(fake_sysfs_write(f->env->root, AUTO_ONLINE, "online_movable\n"), 0);
	assert_int_equal(run_recorded(f, movable, ELEMENTSOF(movable), record, &report), 0);
	assert_calls(f, admin_calls, ELEMENTSOF(admin_calls));
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0,
		      "memory41: online in Movable (by the kernel, during the kmem bind)");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "online_movable");
	assert_string_equal(record_content(record, buf, sizeof(buf)), "");
	report = pmemram_apply_report_free(report);

	/* Debian 13's "online" (the kernel's own zone): the claim's zone for the bind, then put back. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->n_calls = 0;
	assert_int_equal(fake_sysfs_write(f->env->root, AUTO_ONLINE, "online\n"), 0);
	assert_int_equal(run_recorded(f, movable, ELEMENTSOF(movable), record, &report), 0);
	assert_string_equal(f->knob_at_bind, "online_movable");
	assert_calls(f, admin_calls, ELEMENTSOF(admin_calls));
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0,
		      "memory41: online in Movable (by the kernel, during the kmem bind)");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "online");
	assert_string_equal(record_content(record, buf, sizeof(buf)), "");
	report = pmemram_apply_report_free(report);

	/* ... and with no record to keep it in, no bind at all. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->n_calls = 0;
	assert_int_equal(fake_sysfs_write(f->env->root, AUTO_ONLINE, "online\n"), 0);
	assert_int_equal(run_recorded(f, movable, ELEMENTSOF(movable), NULL, &report), -EBUSY);
	assert_int_equal(f->n_calls, 0);
	assert_result(report, 0, PMEMRAM_APPLY_FAILED, -EBUSY,
		      "dax1.0: auto_online_blocks is 'online' and was not set for the bind (no record to keep its "
		      "value in): not binding kmem");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "online");
	report = pmemram_apply_report_free(report);
}

static void test_auto_online_put_back(void **state)
{
	static const struct pmemram_action actions[] = { BIND_INTO("dax1.0", MOVABLE), ONLINE(41, MOVABLE) };
	struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);
	char record[PATH_MAX], buf[64];
	FILE *file;

	/* A bind that fails puts the knob back all the same. */
	unbind_for_auto_online(f, record, sizeof(record));
	f->device_error = -ENXIO;
	assert_int_equal(run_recorded(f, actions, ELEMENTSOF(actions), record, &report), -ENXIO);
	assert_string_equal(f->knob_at_bind, "online_movable");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "offline");
	assert_string_equal(record_content(record, buf, sizeof(buf)), "");
	report = pmemram_apply_report_free(report);
	f->device_error = 0;

	/* A run killed during its bind left online_kernel and its record: the next run puts the
	 * recorded value back before it reads the knob, and then works as usual. */
	assert_int_equal(fake_sysfs_write(f->env->root, AUTO_ONLINE, "online_kernel\n"), 0);
	file = fopen(record, "we");
	assert_non_null(file);
	fputs("offline", file);
	fclose(file);
	assert_int_equal(run_recorded(f, actions, ELEMENTSOF(actions), record, &report), 0);
	assert_string_equal(f->knob_at_bind, "online_movable");
	assert_result(report, 1, PMEMRAM_APPLY_DONE, 0,
		      "memory41: online in Movable (by the kernel, during the kmem bind)");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "offline");
	report = pmemram_apply_report_free(report);

	/* pmemramd's start does the same with no bind to do. */
	assert_int_equal(fake_sysfs_write(f->env->root, AUTO_ONLINE, "online_movable\n"), 0);
	file = fopen(record, "we");
	assert_non_null(file);
	fputs("offline\n", file);
	fclose(file);
	assert_int_equal(pmemram_apply_undo_auto_online(f->env->ctx, record, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "offline");
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "offline");
	assert_int_equal(pmemram_apply_undo_auto_online(f->env->ctx, record, buf, sizeof(buf)), 0);
	/* a record that is not a knob value is not written anywhere */
	file = fopen(record, "we");
	assert_non_null(file);
	fputs("online_sideways\n", file);
	fclose(file);
	assert_int_equal(pmemram_apply_undo_auto_online(f->env->ctx, record, buf, sizeof(buf)), -EBADMSG);
	assert_string_equal(fake_sysfs_read(f->env->root, AUTO_ONLINE), "offline");
	unlink(record);
	assert_int_equal(pmemram_apply_undo_auto_online(f->env->ctx, record, buf, sizeof(buf)), 0);
}

static void test_empty_and_invalid(void **state)
{
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	struct fake *f = FAKE(state);

	assert_int_equal(pmemram_apply(NULL, NULL, 0, NULL, &report), -EINVAL);
	assert_int_equal(pmemram_apply(f->env->ctx, NULL, 1, NULL, &report), -EINVAL);
	assert_null(report);
	assert_int_equal(pmemram_apply(f->env->ctx, NULL, 0, NULL, &report), 0);
	assert_int_equal(report->n_results, 0);
	assert_int_equal(report->failed, -1);
	assert_null(pmemram_apply_status_to_string(_PMEMRAM_APPLY_STATUS_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_sequence_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stops_at_first_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_already_online_counts_as_success, setup, teardown),
		cmocka_unit_test(test_failures),
		cmocka_unit_test_setup_teardown(test_rezone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_touches_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_block_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_done_as_each_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_offline_write_is_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_no_effect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_other_uuid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_namespace_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_namespace_half_made_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_ops_write_driver_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_ops_load_through_libdaxctl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_rechecks_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_convert_namespace_late_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_ops_use_libndctl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_onlines_during_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_online_fallbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auto_online_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_and_invalid, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
