/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the reconcile loop: rounds, observations, failure marking, holds, and what it reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"
#include "pmemram-reconcile.h"

/* The fake tree's dax0.0: 1006 MiB at 0x140000000, blocks memory40..memory46 of 128 MiB, node 2. */
#define DEV "dax0.0"
#define FIRST 40
#define END 47

struct fake {
	struct fake_env *env;
	struct pmemram_config *config;
	int bind_error;	   /* what binding kmem returns */
	bool bind_probed;  /* the first kmem bind finds device_dax binding it (the kernel's probe) */
	int disable_error; /* what unbinding device_dax returns (the driver stays) */
	unsigned n_writes;
};

#define FAKE(state) ((struct fake *)*(state))

/* The kernel's side: rebinding the device, adding its blocks with kmem, onlining them. */
static int fake_disable(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;

	(void)ctx;
	f->n_writes++;
	if (f->disable_error)
		return f->disable_error;
	return fake_sysfs_set_dax_driver(f->env->root, device, NULL);
}

static int fake_bind_kmem(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	struct fake *f = userdata;

	(void)ctx;
	f->n_writes++;
	if (f->bind_error)
		return f->bind_error;
	if (f->bind_probed) {
		f->bind_probed = false;
		assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, device, "device_dax"), 0);
		return -EBUSY;
	}
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, device, "kmem"), 0);
	for (unsigned long b = FIRST; b < END; b++)
		assert_int_equal(fake_sysfs_add_block(f->env->root, b, 2, "offline", "Movable Normal"), 0);
	return 0;
}

static int fake_set_block(struct pmemram_ctx *ctx, void *userdata, unsigned long block, const char *value)
{
	struct fake *f = userdata;

	(void)ctx;
	f->n_writes++;
	assert_string_equal(value, "online_movable");
	return fake_sysfs_set_block(f->env->root, block, "online", "Movable");
}

static const struct pmemram_apply_ops ops = {
	.disable_devdax = fake_disable,
	.enable_kmem = fake_bind_kmem,
	.set_block_state = fake_set_block,
};

/* The hmat tree with dax0.0 on device_dax and no blocks of its own yet, no udev rule that
 * onlines memory, and a configuration claiming dax0.0 as Movable. */
static int setup(void **state)
{
	static const char text[] = "[claim \"pmem\"]\nmatch = device:" DEV "\nonline = movable\n";
	struct pmemram_config_errors errors = {};
	struct fake *f;
	int r;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	*state = f;
	r = fake_env_setup_hmat((void **)&f->env);
	if (r < 0)
		return r;
	if (fake_sysfs_set_dax_driver(f->env->root, DEV, "device_dax") < 0 ||
	    fake_sysfs_remove(f->env->root, "devices/system/memory/memory40") < 0 ||
	    fake_sysfs_remove(f->env->udev, "etc/udev/rules.d") < 0 ||
	    fake_sysfs_remove(f->env->udev, "usr/lib/udev/rules.d") < 0 ||
	    fake_sysfs_remove(f->env->udev, "lib/udev/rules.d") < 0)
		return -1;
	if (pmemram_config_new(&f->config) < 0 ||
	    pmemram_config_parse(f->config, "pmemram.conf", text, strlen(text), &errors) < 0 ||
	    pmemram_config_verify(f->config, &errors) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = FAKE(state);

	pmemram_config_free(f->config);
	fake_env_teardown((void **)&f->env);
	free(f);
	return 0;
}

static int reconcile(struct fake *f, const char *const *held, size_t n_held, struct pmemram_reconcile_result **ret)
{
	struct pmemram_apply_options apply = { .ops = &ops, .ops_userdata = f };
	struct pmemram_reconcile_options o = { .apply = &apply, .held = held, .n_held = n_held };

	return pmemram_reconcile(f->env->ctx, f->config, &o, ret);
}

static const struct pmemram_device_verdict *verdict_of(const struct pmemram_reconcile_result *res, const char *dev)
{
	for (size_t i = 0; i < res->plan->n_verdicts; i++)
		if (streq(res->plan->verdicts[i].device, dev))
			return &res->plan->verdicts[i];
	fail_msg("no verdict for %s", dev);
	return NULL;
}

/* A claimed device on device_dax converges in one round from one observation: the round's
 * verified results are carried forward, the system is not read again to confirm them. */
static void test_fresh_device(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);
	const struct pmemram_device_verdict *v;

	assert_int_equal(reconcile(f, NULL, 0, &res), 0);
	assert_int_equal(res->rounds, 1);
	assert_int_equal(res->n_observations, 1);
	assert_int_equal(res->n_results, 2 + (END - FIRST));
	assert_int_equal(res->n_done, res->n_results);
	assert_int_equal(res->n_failed, 0);
	assert_int_equal(res->plan->n_actions, 0);
	v = verdict_of(res, DEV);
	assert_int_equal(v->verdict, PMEMRAM_VERDICT_CONVERGED);
	assert_int_equal(v->n_blocks_done, END - FIRST);
	for (unsigned long b = FIRST; b < END; b++)
		assert_string_equal(fake_sysfs_block_attr(f->env->root, b, "state"), "online");
	assert_string_equal(fake_sysfs_dax_driver(f->env->root, DEV), "kmem");
	assert_non_null(res->observation);
	/* Taken from device_dax: its users were looked for first. */
	assert_true(res->observation->users_scanned);
}

/* Once converged, a reconcile reads the system once and writes nothing: its accesses are those
 * of one observation. */
static void test_converged_reads_once(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *obs = NULL;
	struct fake *f = FAKE(state);
	struct pmemram_ctx *ctx = f->env->ctx;
	uint64_t before, reconcile_cost, observe_cost;

	assert_int_equal(reconcile(f, NULL, 0, &res), 0);
	res = pmemram_reconcile_result_free(res);
	f->n_writes = 0;

	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(reconcile(f, NULL, 0, &res), 0);
	reconcile_cost = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	assert_int_equal(res->rounds, 0);
	assert_int_equal(res->n_observations, 1);
	assert_int_equal(f->n_writes, 0);
	assert_int_equal(verdict_of(res, DEV)->verdict, PMEMRAM_VERDICT_CONVERGED);

	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_observe_lazy(ctx, &obs), 0);
	observe_cost = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	print_message("# converged reconcile of 1 device: %" PRIu64 " sysfs accesses, one observation %" PRIu64 "\n",
		      reconcile_cost, observe_cost);
	assert_true(observe_cost > 0);
	assert_int_equal(reconcile_cost, observe_cost);
}

/* The record of pmemram's kmem binds is written from the reconcile's results and observation: the
 * bound device by its namespace, and not a sysfs access more than a reconcile that records
 * nothing. */
static void test_records_binds(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);
	struct pmemram_ctx *ctx = f->env->ctx;
	char dir[PATH_MAX];
	struct pmemram_apply_options apply = { .ops = &ops, .ops_userdata = f };
	struct pmemram_reconcile_options o = { .apply = &apply };
	uint64_t before, plain, recording;

	snprintf(dir, sizeof(dir), "%s/run", f->env->root);
	assert_int_equal(fake_sysfs_write(dir, "keep", "\n"), 0);
	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_reconcile(ctx, f->config, &o, &res), 0);
	plain = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	res = pmemram_reconcile_result_free(res);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "<absent>");

	/* the same bind again, from device_dax and no blocks, now recorded */
	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, DEV, "device_dax"), 0);
	for (unsigned long b = FIRST; b < END; b++) {
		char path[64];

		snprintf(path, sizeof(path), "devices/system/memory/memory%lu", b);
		assert_int_equal(fake_sysfs_remove(f->env->root, path), 0);
	}
	apply.onlined_dir = dir;
	before = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_reconcile(ctx, f->config, &o, &res), 0);
	recording = pmemram_ctx_get_accesses(ctx, PMEMRAM_ROOT_SYSFS) - before;
	assert_int_equal(res->onlined_error, 0);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "uuid:" FAKE_UUID_KMEM);
	assert_int_equal(recording, plain);
}

/* A failed action marks its device FAILED, leaves the others alone, and has the next round read
 * the system again rather than trust what was carried: -EIO, two observations. */
static void test_failure_observes_again(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);
	const struct pmemram_device_verdict *v;

	f->bind_error = -ENXIO;
	assert_int_equal(reconcile(f, NULL, 0, &res), -EIO);
	assert_int_equal(res->rounds, 1);
	assert_int_equal(res->n_observations, 2);
	assert_int_equal(res->n_failed, 1);
	v = verdict_of(res, DEV);
	assert_int_equal(v->verdict, PMEMRAM_VERDICT_FAILED);
	assert_int_equal(v->reason, PMEMRAM_REASON_APPLY_FAILED);
	assert_non_null(strstr(v->text, "binding kmem failed"));
	/* Disabled, not bound: the failure is what the next reconcile finds and retries. */
	assert_string_equal(fake_sysfs_dax_driver(f->env->root, DEV), "");
	assert_int_equal(res->plan->n_actions, 0);
}

/* A new device read while the kernel still probes it (unbound), which device_dax binds as
 * pmemram binds kmem: no failure, the next round reads it again and takes it from device_dax. */
static void test_probed_meanwhile(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);
	const struct pmemram_device_verdict *v;

	assert_int_equal(fake_sysfs_set_dax_driver(f->env->root, DEV, NULL), 0);
	f->bind_probed = true;
	assert_int_equal(reconcile(f, NULL, 0, &res), 0);
	assert_int_equal(res->n_failed, 0);
	assert_int_equal(res->rounds, 2);
	/* round 1: the bind, then its blocks not attempted; round 2: from device_dax */
	assert_int_equal(res->results[0].status, PMEMRAM_APPLY_CHANGED);
	assert_string_equal(res->results[0].reason,
			    DEV ": device_dax bound it during binding kmem (it was still being probed)");
	for (size_t i = 1; i <= END - FIRST; i++)
		assert_int_equal(res->results[i].status, PMEMRAM_APPLY_SKIPPED);
	assert_int_equal(res->results[END - FIRST + 1].status, PMEMRAM_APPLY_DONE);
	assert_int_equal(res->results[END - FIRST + 1].action.type, PMEMRAM_ACTION_DISABLE_DEVDAX);
	v = verdict_of(res, DEV);
	assert_int_equal(v->verdict, PMEMRAM_VERDICT_CONVERGED);
	assert_string_equal(fake_sysfs_dax_driver(f->env->root, DEV), "kmem");
}

/* A device whose unbind failed stays on device_dax: the round after the failure observes again
 * and drops its actions, and does not scan the processes for its users again. */
static void test_failed_unbind_not_scanned_again(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);

	f->disable_error = -ENXIO;
	assert_int_equal(reconcile(f, NULL, 0, &res), -EIO);
	assert_int_equal(res->rounds, 1);
	assert_int_equal(res->n_observations, 2);
	assert_int_equal(verdict_of(res, DEV)->verdict, PMEMRAM_VERDICT_FAILED);
	assert_string_equal(fake_sysfs_dax_driver(f->env->root, DEV), "device_dax");
	assert_int_equal(res->plan->n_actions, 0);
	assert_non_null(res->observation);
	assert_false(res->observation->users_scanned);
}

/* A device release gave back is not touched: no actions, verdict held, 0; and no process is
 * scanned for its users, as nothing is to be taken from device_dax (a device not held is). */
static void test_held_device(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	static const char *const held[] = { DEV };
	struct fake *f = FAKE(state);
	const struct pmemram_device_verdict *v;

	assert_int_equal(reconcile(f, held, 1, &res), 0);
	assert_non_null(res->observation);
	assert_false(res->observation->users_scanned);
	assert_int_equal(res->rounds, 0);
	assert_int_equal(res->n_results, 0);
	assert_int_equal(f->n_writes, 0);
	v = verdict_of(res, DEV);
	assert_int_equal(v->verdict, PMEMRAM_VERDICT_IGNORED);
	assert_int_equal(v->reason, PMEMRAM_REASON_HELD);
	assert_string_equal(fake_sysfs_dax_driver(f->env->root, DEV), "device_dax");
}

/* A dry run plans and describes once, changes nothing, and says work remains by returning 0
 * with the actions still in the plan. */
static void test_dry_run(void **state)
{
	_cleanup_(pmemram_reconcile_result_freep) struct pmemram_reconcile_result *res = NULL;
	struct fake *f = FAKE(state);
	struct pmemram_apply_options apply = { .ops = &ops, .ops_userdata = f, .dry_run = true };
	struct pmemram_reconcile_options o = { .apply = &apply };

	assert_int_equal(pmemram_reconcile(f->env->ctx, f->config, &o, &res), 0);
	assert_int_equal(res->rounds, 1);
	assert_int_equal(res->n_results, 2 + (END - FIRST));
	assert_int_equal(res->results[0].status, PMEMRAM_APPLY_DRY_RUN);
	assert_int_equal(f->n_writes, 0);
	assert_int_equal(verdict_of(res, DEV)->verdict, PMEMRAM_VERDICT_PENDING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fresh_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_converged_reads_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failure_observes_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_unbind_not_scanned_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
