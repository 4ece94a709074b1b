/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the record of pmemram's kmem binds: by identity, pruned to the devices still on kmem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fake-sysfs.h"
#include "pmemram-apply.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"
#include "pmemram-provenance.h"

#define ENV(state) ((struct fake_env *)*(state))
#define ID_KMEM "uuid:" FAKE_UUID_KMEM
#define ID_DEVDAX "uuid:" FAKE_UUID_DEVDAX

/* A bind result for device, done. */
static struct pmemram_apply_result bound(const char *device)
{
	struct pmemram_apply_result r = { .action.type = PMEMRAM_ACTION_BIND_KMEM, .status = PMEMRAM_APPLY_DONE };

	snprintf(r.action.device, sizeof(r.action.device), "%s", device);
	return r;
}

static void test_onlined_record(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct fake_env *env = ENV(state);
	struct pmemram_observation none = {};
	struct pmemram_apply_result r[3] = { bound("dax0.0"), bound("dax0.0"), bound("dax9.0") };
	char dir[PATH_MAX], *ids[PMEMRAM_ONLINED_MAX];
	size_t n;

	snprintf(dir, sizeof(dir), "%s/run", env->root);
	assert_int_equal(fake_sysfs_write(dir, "keep", "\n"), 0);
	assert_int_equal(pmemram_onlined_read(dir, ids, &n), 0);
	assert_int_equal(n, 0); /* no file: nothing recorded */
	assert_int_equal(pmemram_observe(env->ctx, &o), 0);

	/* dax0.0 is on kmem: recorded once, by its namespace; dax9.0 is not observed, so not recorded */
	assert_int_equal(pmemram_onlined_note(dir, o, r, 3), 1);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), ID_KMEM);
	assert_int_equal(pmemram_onlined_note(dir, o, r, 1), 0);
	assert_int_equal(pmemram_onlined_read(dir, ids, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ids[0], ID_KMEM);
	free(ids[0]);

	/* only a bind that was done counts, of a device on kmem: dax1.0 is on device_dax */
	assert_int_equal(fake_sysfs_write(dir, "onlined", "%s", ""), 0);
	r[0].status = PMEMRAM_APPLY_FAILED;
	r[1] = bound("dax1.0");
	assert_int_equal(pmemram_onlined_note(dir, o, r, 2), 0);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "");

	/* a record of a device the observation shows off kmem (released, gone) goes at the next note */
	assert_int_equal(fake_sysfs_write(dir, "onlined", ID_KMEM "\n" ID_DEVDAX "\n"), 0);
	assert_int_equal(pmemram_onlined_note(dir, o, NULL, 0), 1);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), ID_KMEM);
	assert_int_equal(pmemram_onlined_note(dir, &none, NULL, 0), 1);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "");

	/* a name that another device took: dax0.0 is not the recorded namespace's any more */
	assert_int_equal(fake_sysfs_write(dir, "onlined", ID_KMEM "\n"), 0);
	assert_int_equal(fake_sysfs_write(env->root, "devices/platform/ACPI0012:00/ndbus0/region0/namespace0.0/uuid",
					  "%s\n", FAKE_UUID_RAW),
			 0);
	pmemram_observation_free(TAKE_PTR(o));
	assert_int_equal(pmemram_observe(env->ctx, &o), 0);
	assert_int_equal(pmemram_onlined_note(dir, o, NULL, 0), 1);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "");

	assert_int_equal(pmemram_onlined_note(NULL, o, NULL, 0), -EINVAL);
	assert_int_equal(pmemram_onlined_note(dir, NULL, NULL, 0), -EINVAL);
	assert_int_equal(pmemram_onlined_note(dir, o, NULL, 1), -EINVAL);
}

/* An update waits for the lock another writer holds: neither loses the other's line. */
static void test_onlined_lock(void **state)
{
	struct fake_env *env = ENV(state);
	char dir[PATH_MAX], lock[PATH_MAX + 16];
	int fd, status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/run", env->root);
	assert_int_equal(fake_sysfs_write(dir, "keep", "\n"), 0);
	snprintf(lock, sizeof(lock), "%s/" PMEMRAM_ONLINED_LOCK_FILE, dir);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
		struct pmemram_apply_result r = bound("dax0.0");

		_exit(pmemram_observe(env->ctx, &o) == 0 && pmemram_onlined_note(dir, o, &r, 1) == 1 ? 0 : 1);
	}
	nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0); /* still waiting for the lock */
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "<absent>");

	assert_int_equal(flock(fd, LOCK_UN), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), ID_KMEM);
	close(fd);
}

/* Status from the reconcile's observation reads no sysfs; a device read alone reads its namespace
 * once. */
static void test_provenance_observed(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct fake_env *env = ENV(state);
	struct json_object *a = NULL;
	struct pmemram_observed_dax ns = {};
	struct pmemram_provenance p;
	char dir[PATH_MAX], *ids[1] = { (char *)ID_KMEM };
	uint64_t before, one_ns;
	bool found = false;

	snprintf(dir, sizeof(dir), "%s/run", env->root);
	assert_int_equal(fake_sysfs_write(dir, "onlined", ID_KMEM "\n"), 0);
	assert_int_equal(pmemram_observe_lazy(env->ctx, &o), 0);
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_provenance_observed_json(o, dir, &a), 0);
	assert_int_equal(pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS), before);
	assert_int_equal(json_object_array_length(a), o->observed.n_devices);
	for (size_t i = 0; i < o->observed.n_devices; i++) {
		struct json_object *d = json_object_array_get_idx(a, i), *by = NULL;

		if (!streq(o->observed.devices[i].dax.name, "dax0.0"))
			continue;
		assert_true(json_object_object_get_ex(d, "onlined_by", &by));
		assert_string_equal(json_object_get_string(by), "pmemram");
		found = true;
	}
	assert_true(found);
	json_object_put(a);

	ns.dax = o->dax->devices[0];
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_dax_namespace_read(env->ctx, &ns), 0);
	one_ns = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS) - before;
	before = pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS);
	assert_int_equal(pmemram_provenance_read(env->ctx, &o->dax->devices[0], o->memory, ids, 1, &p), 0);
	assert_int_equal(pmemram_ctx_get_accesses(env->ctx, PMEMRAM_ROOT_SYSFS) - before, one_ns);
	pmemram_ctx_clear_error(env->ctx);
}

/* An hmem device recorded by its range, whose name an NVDIMM device on kmem took (the next boot):
 * not pmemram's, and its record goes at the next update. */
static void test_range_name_taken(void **state)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct fake_env *env = ENV(state);
	struct json_object *a = NULL, *by = NULL;
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/run", env->root);
	assert_int_equal(fake_sysfs_write(dir, "onlined", "range:0x60000000-0x6fffffff\n"), 0);
	assert_int_equal(pmemram_observe_lazy(env->ctx, &o), 0);
	assert_string_equal(o->observed.devices[0].dax.name, "dax0.0");
	assert_int_equal(o->observed.devices[0].dax.mode, PMEMRAM_DAX_SYSTEM_RAM);
	assert_int_equal(pmemram_provenance_observed_json(o, dir, &a), 0);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(a, 0), "onlined_by", &by));
	assert_string_equal(json_object_get_string(by), "other");
	json_object_put(a);
	assert_int_equal(pmemram_onlined_note(dir, o, NULL, 0), 1);
	assert_string_equal(fake_sysfs_read(dir, "onlined"), "");
}

/* onlined_by of the observed device name, from a fresh observation. */
static const char *observed_onlined_by(struct fake_env *env, const char *name, char *buf, size_t size)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct json_object *a = NULL, *by = NULL;

	buf[0] = '\0';
	assert_int_equal(pmemram_observe_lazy(env->ctx, &o), 0);
	assert_int_equal(pmemram_provenance_observed_json(o, NULL, &a), 0);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *d = json_object_array_get_idx(a, i), *v = NULL;

		if (json_object_object_get_ex(d, "device", &v) && streq(json_object_get_string(v), name) &&
		    json_object_object_get_ex(d, "onlined_by", &by))
			snprintf(buf, size, "%s", by ? json_object_get_string(by) : "null");
	}
	json_object_put(a);
	return buf;
}

/* Soft-reserved memory on kmem that pmemram did not bind: the kernel's on a kernel that binds it at
 * probe (6.3 and later), someone else's before; an NVDIMM's device on kmem is never the kernel's. */
static void test_kernel_at_probe(void **state)
{
	struct fake_env *env = ENV(state);
	struct pmemram_provenance p;
	struct pmemram_dax_list *list = NULL;
	char by[32];

	assert_int_equal(fake_sysfs_add_hmem(env->root, 3, "dax5.0", "kmem", 1, 256ULL << 20, 0x60000000), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/osrelease", "6.12.118+deb13-amd64\n"), 0);
	assert_string_equal(observed_onlined_by(env, "dax5.0", by, sizeof(by)), "kernel");
	assert_string_equal(observed_onlined_by(env, "dax0.0", by, sizeof(by)), "other");

	/* read alone, as pmemramctl status does without the daemon */
	assert_int_equal(pmemram_dax_list_read(env->ctx, &list), 0);
	for (size_t i = 0; i < list->n_devices; i++)
		if (streq(list->devices[i].name, "dax5.0")) {
			assert_int_equal(pmemram_provenance_read(env->ctx, &list->devices[i], NULL, NULL, 0, &p), 0);
			assert_string_equal(p.onlined_by, "kernel");
		}
	pmemram_dax_list_free(list);

	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/osrelease", "6.1.0-41-amd64\n"), 0);
	assert_string_equal(observed_onlined_by(env, "dax5.0", by, sizeof(by)), "other");
	/* unreadable: not known to be the kernel's, and no error left behind */
	assert_int_equal(fake_sysfs_remove(env->proc, "sys/kernel/osrelease"), 0);
	assert_string_equal(observed_onlined_by(env, "dax5.0", by, sizeof(by)), "other");
	assert_null(pmemram_ctx_get_error_path(env->ctx));
}

static void test_release_binds_ram_at_probe(void **state)
{
	(void)state;
	assert_true(pmemram_release_binds_ram_at_probe("6.12.118+deb13-amd64"));
	assert_true(pmemram_release_binds_ram_at_probe("6.3.0"));
	assert_true(pmemram_release_binds_ram_at_probe("7.0-rc1"));
	assert_true(pmemram_release_binds_ram_at_probe("10.1"));
	assert_false(pmemram_release_binds_ram_at_probe("6.2.16"));
	assert_false(pmemram_release_binds_ram_at_probe("6.1.0-41-amd64"));
	assert_false(pmemram_release_binds_ram_at_probe("5.19.0"));
	assert_false(pmemram_release_binds_ram_at_probe("6"));
	assert_false(pmemram_release_binds_ram_at_probe("6."));
	assert_false(pmemram_release_binds_ram_at_probe("v6.12"));
	assert_false(pmemram_release_binds_ram_at_probe(""));
	assert_false(pmemram_release_binds_ram_at_probe(NULL));
	assert_false(pmemram_release_binds_ram_at_probe("99999999999999999999999.1"));
}

/* An hmem device in two pieces: each range shown, no single range. */
static void test_ranges(void **state)
{
	struct pmemram_dax d = { .name = "dax3.0",
				 .source = PMEMRAM_DAX_SOURCE_HMEM,
				 .driver = "kmem",
				 .mode = PMEMRAM_DAX_SYSTEM_RAM,
				 .target_node = 1,
				 .size = 256ULL << 20,
				 .has_resource = true,
				 .resource = 0x60000000,
				 .n_ranges = 2,
				 .ranges = { { 0x60000000, 0x67ffffff, 0 }, { 0x70000000, 0x77ffffff, 0x8000 } } };
	struct pmemram_provenance p = { .source = PMEMRAM_DAX_SOURCE_HMEM };
	struct json_object *j, *v = NULL;

	j = pmemram_provenance_to_json(&d, &p);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "range", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(j, "ranges", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "0x60000000-0x67ffffff");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)), "0x70000000-0x77ffffff");
	json_object_put(j);

	/* the second right after the first: one range again */
	d.ranges[1] = (struct pmemram_dax_range){ 0x68000000, 0x6fffffff, 0x8000 };
	j = pmemram_provenance_to_json(&d, &p);
	assert_true(json_object_object_get_ex(j, "range", &v));
	assert_string_equal(json_object_get_string(v), "0x60000000-0x6fffffff");
	json_object_put(j);

	/* unknown (not root, or before 5.10): null */
	d.n_ranges = 0;
	j = pmemram_provenance_to_json(&d, &p);
	assert_true(json_object_object_get_ex(j, "ranges", &v));
	assert_null(v);
	json_object_put(j);
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_onlined_record, fake_env_setup_hmat),
		FAKE_TEST(test_onlined_lock, fake_env_setup_hmat),
		FAKE_TEST(test_provenance_observed, fake_env_setup_hmat),
		FAKE_TEST(test_range_name_taken, fake_env_setup_hmat),
		FAKE_TEST(test_kernel_at_probe, fake_env_setup_hmat),
		cmocka_unit_test(test_release_binds_ram_at_probe),
		cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
