/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl plan against fake sysfs, procfs and udev trees and a temporary configuration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-sysfs.h"
#include "pmemram-private.h"
#include "run-ctl.h"


/* The fake trees plus a configuration directory. */
struct plan_env {
	struct fake_env *fake;
	char *conf;
	char *vars[5];
};

static int setup(void **state)
{
	struct plan_env *p = calloc(1, sizeof(*p));
	void *fake = NULL;

	if (!p || fake_env_setup_hmat(&fake) < 0)
		return -1;
	p->fake = fake;
	*state = p;
	if (fake_sysfs_new(&p->conf) < 0 ||
	    asprintf(&p->vars[0], "PMEMRAM_SYSFS_ROOT=%s", p->fake->root) < 0 ||
	    asprintf(&p->vars[1], "PMEMRAM_PROCFS_ROOT=%s", p->fake->proc) < 0 ||
	    asprintf(&p->vars[2], "PMEMRAM_UDEV_ROOT=%s", p->fake->udev) < 0 ||
	    asprintf(&p->vars[3], "PMEMRAM_CONFIG_DIR=%s", p->conf) < 0)
		return -1;
	/* dax1.0's range: 256 MiB at 6 GiB, blocks 48 and 49. */
	return fake_sysfs_write(p->fake->root, "bus/dax/devices/dax1.0/resource", "0x180000000\n");
}

static int teardown(void **state)
{
	struct plan_env *p = *state;
	void *fake;

	if (!p)
		return 0;
	fake = p->fake;
	fake_env_teardown(&fake);
	fake_sysfs_free(p->conf);
	for (size_t i = 0; i < ELEMENTSOF(p->vars); i++)
		free(p->vars[i]);
	free(p);
	return 0;
}

#define PLAN(state) ((struct plan_env *)*(state))

static void write_config(void **state, const char *text)
{
	assert_int_equal(fake_sysfs_write(PLAN(state)->conf, "pmemram.conf", "%s", text), 0);
}

/* pmemramctl plan [a [b]] in the fake environment. */
static struct run *run_plan(void **state, const char *a, const char *b)
{
	const char *args[] = { "plan", a, b, NULL };

	return run_ctl_env((const char *const *)PLAN(state)->vars, args);
}

static struct json_object *run_plan_json(void **state, struct run **ret_run)
{
	struct run *run = run_plan(state, "--json", NULL);
	struct json_object *j;

	if (run->status != 0)
		fail_msg("exit %d: %s", run->status, run->err);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	*ret_run = run;
	return j;
}

/* The verdict object for a device, failing when it is not listed. */
static struct json_object *device(struct json_object *j, const char *name)
{
	struct json_object *devices = json_typed_at(j, "devices", json_type_array);

	for (size_t i = 0; i < json_object_array_length(devices); i++) {
		struct json_object *d = json_object_array_get_idx(devices, i);

		if (streq(json_string_at(d, "device"), name))
			return d;
	}
	fail_msg("device %s not in the plan", name);
	return NULL;
}

#define CLAIMS                                                    \
	"[claim \"fast\"]\nmatch = uuid:" FAKE_UUID_KMEM "\n"     \
	"[claim \"fs\"]\nmatch = uuid:" FAKE_UUID_FSDAX "\nconvert = yes\n" \
	"[claim \"raw\"]\nmatch = uuid:" FAKE_UUID_RAW "\nconvert = yes\n"

static void test_json(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct json_object *j;

	write_config(state, CLAIMS "[claim \"second\"]\nmatch = device:dax1.0\n"
				   "[claim \"nothing\"]\nmatch = region:region9\n");
	j = run_plan_json(state, &run);
	assert_string_equal(run->err, "");

	assert_int_equal(json_int_at(j, "schema_version"), 1);
	assert_string_equal(json_string_at(j, "config_dir"), PLAN(state)->conf);
	assert_true(json_bool_at(j, "configured"));
	assert_int_equal(json_int_at(j, "unreadable_processes"), 0);

	/* dax0.0, by namespace UUID: kmem bound, but block 40 of its range is going offline. */
	assert_string_equal(json_string_at(device(j, "dax0.0"), "claim"), "fast");
	assert_string_equal(json_string_at(device(j, "dax0.0"), "verdict"), "refused");
	assert_string_equal(json_string_at(device(j, "dax0.0"), "reason"), "block-going-offline");
	/* dax1.0 is mapped by qemu in the fake procfs. */
	assert_string_equal(json_string_at(device(j, "dax1.0"), "reason"), "mapped");
	assert_non_null(strstr(json_string_at(device(j, "dax1.0"), "text"), FAKE_DAX_USER));
	/* The fsdax namespace's pmem2 is mounted; the raw one gets converted. */
	assert_string_equal(json_string_at(device(j, "namespace2.0"), "reason"), "mounted");
	assert_string_equal(json_string_at(device(j, "namespace3.0"), "verdict"), "pending");

	assert_int_equal(json_object_array_length(json_at(j, "actions")), 1);
	assert_string_equal(json_string_at(j, "actions.0.action"), "convert-namespace");
	assert_string_equal(json_string_at(j, "actions.0.device"), "namespace3.0");
	assert_string_equal(json_string_at(j, "actions.0.uuid"), FAKE_UUID_RAW);
	assert_true(json_bool_at(j, "actions.0.destroys_data"));
	assert_string_equal(json_string_at(j, "unmatched_claims.0"), "nothing");
	json_object_put(j);
}

/* The plan with qemu gone (dax1.0 free) and dax1.0 claimed with the given online = value. */
static struct json_object *run_plan_dax1_free(void **state, const char *online)
{
	_cleanup_(freep) struct run *run = NULL;
	char config[256];

	assert_int_equal(fake_sysfs_write(PLAN(state)->fake->proc, "4242/maps", "%s", ""), 0);
	snprintf(config, sizeof(config), "[claim \"second\"]\nmatch = device:dax1.0\nonline = %s\n", online);
	write_config(state, config);
	return run_plan_json(state, &run);
}

static void test_json_pending_devdax(void **state)
{
	/* The udev rule onlines as movable, like the claim. */
	struct json_object *j = run_plan_dax1_free(state, "movable");

	assert_string_equal(json_string_at(device(j, "dax1.0"), "verdict"), "pending");
	assert_string_equal(json_string_at(device(j, "dax0.0"), "verdict"), "ignored");
	assert_int_equal(json_object_array_length(json_at(j, "actions")), 4);
	assert_string_equal(json_string_at(j, "actions.0.action"), "disable-devdax");
	assert_string_equal(json_string_at(j, "actions.1.action"), "bind-kmem");
	assert_int_equal(json_int_at(j, "actions.1.node"), 2);
	assert_int_equal(json_int_at(j, "actions.2.block"), 48);
	assert_int_equal(json_int_at(j, "actions.3.block"), 49);
	assert_string_equal(json_string_at(j, "actions.3.zone"), "movable");
	json_object_put(j);
}

static void test_json_udev_refusal(void **state)
{
	/* A normal-zone claim collides with the vendor rule onlining as online_movable. */
	struct json_object *j = run_plan_dax1_free(state, "normal");

	assert_string_equal(json_string_at(device(j, "dax1.0"), "reason"), "udev-online");
	assert_non_null(strstr(json_string_at(device(j, "dax1.0"), "text"), FAKE_UDEV_RULE));
	assert_int_equal(json_object_array_length(json_at(j, "actions")), 0);
	json_object_put(j);
}

static void test_human(void **state)
{
	_cleanup_(freep) struct run *run = NULL;

	write_config(state, CLAIMS);
	run = run_plan(state, NULL, NULL);
	assert_int_equal(run->status, 0);
	assert_string_equal(run->err, "");
	assert_non_null(strstr(run->out, "Actions (1):"));
	assert_non_null(
		strstr(run->out, "namespace3.0: convert to devdax, DESTROYING ALL ITS DATA (uuid " FAKE_UUID_RAW ")"));
	assert_non_null(strstr(run->out, "namespace2.0   fs "));
}

static void test_no_config(void **state)
{
	_cleanup_(freep) struct run *run = NULL, *run2 = NULL;
	char expected[4096];
	struct json_object *j;

	j = run_plan_json(state, &run);
	snprintf(expected, sizeof(expected), "pmemramctl: no configuration in %s: nothing is claimed\n",
		 PLAN(state)->conf);
	assert_string_equal(run->err, expected);
	assert_false(json_bool_at(j, "configured"));
	assert_int_equal(json_object_array_length(json_at(j, "actions")), 0);
	assert_string_equal(json_string_at(device(j, "dax0.0"), "verdict"), "ignored");
	json_object_put(j);

	/* --config wins over $PMEMRAM_CONFIG_DIR; a directory that does not exist is no configuration. */
	run2 = run_plan(state, "--config", "/nonexistent/pmemram");
	assert_int_equal(run2->status, 0);
	assert_string_equal(run2->err, "pmemramctl: no configuration in /nonexistent/pmemram: nothing is claimed\n");
	assert_non_null(strstr(run2->out, "Nothing to do."));
}

static void test_malformed_config(void **state)
{
	_cleanup_(freep) struct run *run = NULL;

	write_config(state, "[claim \"a\"]\nmatch = bogus:x\n[global]\nshuffle = sometimes\n");
	run = run_plan(state, "--json", NULL);
	assert_int_equal(run->status, 3);
	assert_string_equal(run->out, "");
	/* Every error, each naming the file and line. */
	assert_non_null(strstr(run->err, "/pmemram.conf:2: "));
	assert_non_null(strstr(run->err, "/pmemram.conf:4: "));
	assert_non_null(strstr(run->err, PLAN(state)->conf));
}

static void test_broken_proc(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char expected[4096];

	write_config(state, CLAIMS);
	assert_int_equal(fake_sysfs_remove(PLAN(state)->fake->proc, "self/mountinfo"), 0);
	run = run_plan(state, NULL, NULL);
	assert_int_equal(run->status, 2);
	assert_string_equal(run->out, "");
	snprintf(expected, sizeof(expected), "pmemramctl: cannot read %s/self/mountinfo: No such file or directory\n",
		 PLAN(state)->fake->proc);
	assert_string_equal(run->err, expected);
}

static void test_usage(void **state)
{
	_cleanup_(freep) struct run *help = run_plan(state, "--help", NULL);
	_cleanup_(freep) struct run *extra = run_plan(state, "extra", NULL);
	_cleanup_(freep) struct run *missing = run_plan(state, "--config", NULL);

	assert_int_equal(help->status, 0);
	assert_non_null(strstr(help->out, "Usage: pmemramctl plan [--json] [--config DIR]"));
	assert_int_equal(extra->status, 64);
	assert_non_null(strstr(extra->err, "unexpected argument 'extra'"));
	assert_int_equal(missing->status, 64);
}

#define PLAN_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		PLAN_TEST(test_json),
		PLAN_TEST(test_json_pending_devdax),
		PLAN_TEST(test_json_udev_refusal),
		PLAN_TEST(test_human),
		PLAN_TEST(test_no_config),
		PLAN_TEST(test_malformed_config),
		PLAN_TEST(test_broken_proc),
		PLAN_TEST(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
