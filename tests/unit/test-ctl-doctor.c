/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl doctor on a clean fake machine, and on it with one trap set per test. */
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

/* sysfs, procfs, udev and boot roots, the configuration (and pmemramd's socket's directory). */
struct doctor_env {
	char *sys, *proc, *udev, *conf;
	char *vars[8];
};

#define ENV(state) ((struct doctor_env *)*(state))
#define W(root, path, ...) assert_int_equal(fake_sysfs_write((root), (path), __VA_ARGS__), 0)

#define CLAIM_SLOW "[claim \"slow\"]\nmatch = device:dax0.0\n"

static int add_node(const char *root, int node, const char *meminfo_kb)
{
	char path[64];

	snprintf(path, sizeof(path), "devices/system/node/node%d/meminfo", node);
	return fake_sysfs_write(root, path, "Node %d MemTotal: %s kB\n", node, meminfo_kb);
}

/* Node 0: CPUs and 1 GiB of DRAM, blocks 0-7, the last Movable (movablecore=); node 1: no CPU,
 * hmem.0's dax0.0 on kmem, 1 GiB at 4 GiB, blocks 32-39 Movable; each node a tier of its own;
 * nothing onlines memory by itself; demotion off; no page shuffling wanted (no cache). */
static int populate_clean(const char *sys)
{
	int r = 0;

	r = r ?: fake_sysfs_write(sys, "devices/system/node/online", "0-1\n");
	r = r ?: fake_sysfs_write(sys, "devices/system/node/has_cpu", "0\n");
	r = r ?: fake_sysfs_write(sys, "devices/system/node/has_memory", "0-1\n");
	r = r ?: add_node(sys, 0, "1048576");
	r = r ?: add_node(sys, 1, "1048576");
	r = r ?: fake_sysfs_write(sys, "devices/virtual/memory_tiering/memory_tier4/nodelist", "0\n");
	r = r ?: fake_sysfs_write(sys, "devices/virtual/memory_tiering/memory_tier22/nodelist", "1\n");
	r = r ?: fake_sysfs_write(sys, "devices/system/memory/block_size_bytes", "8000000\n");
	r = r ?: fake_sysfs_write(sys, "devices/system/memory/auto_online_blocks", "offline\n");
	for (unsigned long b = 0; r == 0 && b < 8; b++)
		r = fake_sysfs_add_block(sys, b, 0, "online", b == 7 ? "Movable" : "Normal");
	for (unsigned long b = 32; r == 0 && b < 40; b++)
		r = fake_sysfs_add_block(sys, b, 1, "online", "Movable");
	r = r ?: fake_sysfs_add_hmem(sys, 0, "dax0.0", "kmem", 1, 1ULL << 30, 1ULL << 32);
	r = r ?: fake_sysfs_write(sys, "kernel/mm/numa/demotion_enabled", "false\n");
	r = r ?: fake_sysfs_write(sys, "module/page_alloc/parameters/shuffle", "N\n");
	return r;
}

static int setup(void **state)
{
	struct doctor_env *e = calloc(1, sizeof(*e));

	*state = e;
	if (!e || fake_sysfs_new(&e->sys) < 0 || fake_sysfs_new(&e->proc) < 0 || fake_sysfs_new(&e->udev) < 0 ||
	    fake_sysfs_new(&e->conf) < 0 || populate_clean(e->sys) < 0 ||
	    fake_sysfs_write(e->proc, "cmdline", "root=/dev/vda rw\n") < 0 ||
	    fake_sysfs_write(e->proc, "sys/kernel/osrelease", "6.12.0-1-amd64\n") < 0 ||
	    fake_sysfs_write(e->conf, "pmemram.conf", CLAIM_SLOW) < 0)
		return -1;
	if (asprintf(&e->vars[0], "PMEMRAM_SYSFS_ROOT=%s", e->sys) < 0 ||
	    asprintf(&e->vars[1], "PMEMRAM_PROCFS_ROOT=%s", e->proc) < 0 ||
	    asprintf(&e->vars[2], "PMEMRAM_UDEV_ROOT=%s", e->udev) < 0 ||
	    asprintf(&e->vars[3], "PMEMRAM_CONFIG_DIR=%s", e->conf) < 0 ||
	    asprintf(&e->vars[4], "PMEMRAM_SOCKET=%s/pmemramd.sock", e->conf) < 0 ||
	    asprintf(&e->vars[5], "PMEMRAM_BOOT_ROOT=%s", e->udev) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	struct doctor_env *e = *state;

	if (!e)
		return 0;
	fake_sysfs_free(e->sys);
	fake_sysfs_free(e->proc);
	fake_sysfs_free(e->udev);
	fake_sysfs_free(e->conf);
	for (size_t i = 0; i < ELEMENTSOF(e->vars); i++)
		free(e->vars[i]);
	free(e);
	return 0;
}

static struct run *run_doctor(void **state, const char *a)
{
	const char *args[] = { "doctor", a, NULL };

	return run_ctl_env((const char *const *)ENV(state)->vars, args);
}

/* doctor --json: exactly one finding, with id, severity and subject as given; exit as severity
 * says.  Returns the finding (owned by *ret_j). */
static struct json_object *only_finding(void **state, struct json_object **ret_j, const char *id, const char *severity,
					const char *subject)
{
	_cleanup_(freep) struct run *run = run_doctor(state, "--json");
	struct json_object *j = json_tokener_parse(run->out), *f;

	assert_non_null(j);
	assert_string_equal(run->err, "");
	if (json_object_array_length(json_at(j, "findings")) != 1)
		fail_msg("expected one finding: %s", run->out);
	f = json_at(j, "findings.0");
	assert_string_equal(json_string_at(f, "id"), id);
	assert_string_equal(json_string_at(f, "severity"), severity);
	assert_string_equal(json_string_at(f, "subject"), subject);
	assert_int_equal(run->status, streq(severity, "error") ? 2 : 1);
	*ret_j = j;
	return f;
}

/* doctor --json with exactly n findings, exiting with status: the JSON, the caller's to put. */
static struct json_object *findings(void **state, size_t n, int status)
{
	_cleanup_(freep) struct run *run = run_doctor(state, "--json");
	struct json_object *j = json_tokener_parse(run->out);

	assert_non_null(j);
	if (json_object_array_length(json_at(j, "findings")) != n)
		fail_msg("expected %zu findings: %s", n, run->out);
	assert_int_equal(run->status, status);
	return j;
}

static void test_clean(void **state)
{
	_cleanup_(freep) struct run *human = run_doctor(state, NULL);
	_cleanup_(freep) struct run *json = run_doctor(state, "--json");
	struct json_object *j = json_tokener_parse(json->out);

	if (human->status != 0)
		fail_msg("exit %d: %s%s", human->status, human->out, human->err);
	assert_string_equal(human->err, "");
	assert_string_equal(human->out, "No problems found.\n");
	assert_int_equal(json->status, 0);
	assert_non_null(j);
	assert_int_equal(json_int_at(j, "schema_version"), 1);
	assert_int_equal(json_object_array_length(json_at(j, "findings")), 0);
	json_object_put(j);
}

static void test_zone_mismatch(void **state)
{
	struct json_object *j, *f;

	for (unsigned long b = 32; b < 40; b++)
		assert_int_equal(fake_sysfs_set_block(ENV(state)->sys, b, "online", "Normal"), 0);
	f = only_finding(state, &j, "zone-mismatch", "error", "dax0.0");
	assert_string_equal(json_string_at(f, "problem"),
			    "onlined by the kernel, at probe with 8 blocks in Normal, where claim 'slow' wants Movable");
	assert_string_equal(json_string_at(f, "fix"), "pmemramctl reconcile (pmemramd moves each block to Movable), "
						      "or online = normal in claim 'slow' to keep it as it is");
	json_object_put(j);
}

static void test_no_target_node(void **state)
{
	struct json_object *j, *f;

	assert_int_equal(fake_sysfs_add_hmem(ENV(state)->sys, 1, "dax1.0", "device_dax", -1, 1ULL << 30, 0), 0);
	f = only_finding(state, &j, "no-target-node", "warning", "dax1.0");
	assert_string_equal(json_string_at(f, "problem"), "the kernel gives it no target node (target_node -1)");
	json_object_put(j);

	/* Claimed, it is an error. */
	W(ENV(state)->conf, "pmemram.conf", CLAIM_SLOW "[claim \"lost\"]\nmatch = device:dax1.0\n");
	only_finding(state, &j, "no-target-node", "error", "dax1.0");
	json_object_put(j);
}

static void test_too_small(void **state)
{
	struct json_object *j, *f;

	assert_int_equal(fake_sysfs_add_hmem(ENV(state)->sys, 1, "dax1.0", "device_dax", 1, 64ULL << 20, 0), 0);
	f = only_finding(state, &j, "too-small", "warning", "dax1.0");
	assert_string_equal(json_string_at(f, "problem"),
			    "67108864 bytes, smaller than one memory block (block_size_bytes 128 MiB)");
	json_object_put(j);
}

static void test_claim_unmatched(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->conf, "pmemram.conf", CLAIM_SLOW "[claim \"typo\"]\nmatch = device:dax9.0\n");
	f = only_finding(state, &j, "claim-unmatched", "error", "claim typo");
	assert_non_null(strstr(json_string_at(f, "problem"), "claim 'typo' matches no device"));
	assert_string_equal(json_string_at(f, "fix"), "pmemramctl claim typo with the match of a device pmemramctl "
						      "status lists, or pmemramctl unclaim typo");
	json_object_put(j);
}

static void test_auto_online(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->sys, "devices/system/memory/auto_online_blocks", "online\n");
	f = only_finding(state, &j, "auto-online", "warning", "/sys/devices/system/memory/auto_online_blocks");
	assert_string_equal(json_string_at(f, "problem"), "reads online");
	json_object_put(j);
}

static void test_memhp_default_state(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->proc, "cmdline", "root=/dev/vda memhp_default_state=online_movable rw\n");
	f = only_finding(state, &j, "memhp-default-state", "warning", "/proc/cmdline");
	assert_string_equal(json_string_at(f, "problem"),
			    "memhp_default_state=online_movable on the kernel command line");
	json_object_put(j);
}

/* hotplug-policy = offline: not applied, then pending a reboot (memhp-default-state gives way to it),
 * then booted with it: nothing. */
static void test_hotplug_pending(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->conf, "pmemram.conf", "[global]\nhotplug-policy = offline\n" CLAIM_SLOW);
	W(ENV(state)->udev, "etc/kernel/cmdline", "root=/dev/vda rw\n");
	W(ENV(state)->sys, "devices/system/memory/auto_online_blocks", "online\n");
	W(ENV(state)->proc, "cmdline", "root=/dev/vda memhp_default_state=online rw\n");
	/* auto-online and memhp-default-state are there too: hotplug-pending is the third */
	j = findings(state, 3, 1);
	f = json_at(j, "findings.2");
	assert_string_equal(json_string_at(f, "id"), "hotplug-pending");
	assert_string_equal(json_string_at(f, "subject"), "hotplug-policy");
	assert_string_equal(json_string_at(f, "fix"), "pmemramctl hotplug apply, then reboot");
	assert_non_null(strstr(json_string_at(f, "problem"), "not-applied: "));
	assert_non_null(strstr(json_string_at(json_at(j, "findings.1"), "fix"), "pmemramctl hotplug apply"));
	json_object_put(j);

	/* Written: auto-online (the running kernel) and hotplug-pending, not memhp-default-state */
	W(ENV(state)->udev, "etc/kernel/cmdline", "root=/dev/vda rw memhp_default_state=offline\n");
	j = findings(state, 2, 1);
	assert_string_equal(json_string_at(j, "findings.0.id"), "auto-online");
	f = json_at(j, "findings.1");
	assert_string_equal(json_string_at(f, "id"), "hotplug-pending");
	assert_string_equal(json_string_at(f, "fix"), "reboot");
	assert_non_null(strstr(json_string_at(f, "problem"), "next-boot: takes effect at next boot"));
	json_object_put(j);

	W(ENV(state)->proc, "cmdline", "root=/dev/vda rw memhp_default_state=offline\n");
	W(ENV(state)->sys, "devices/system/memory/auto_online_blocks", "offline\n");
	json_object_put(findings(state, 0, 0));
}

static void test_udev_online(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->udev, "usr/lib/udev/rules.d/40-vendor.rules",
	  "SUBSYSTEM==\"memory\", ACTION==\"add\", ATTR{state}==\"offline\", ATTR{state}=\"online\"\n");
	f = only_finding(state, &j, "udev-online", "warning", "/usr/lib/udev/rules.d/40-vendor.rules:1");
	assert_string_equal(json_string_at(f, "problem"), "a udev rule onlines hot-added memory as online");
	assert_string_equal(json_string_at(f, "fix"), "ln -s /dev/null /etc/udev/rules.d/40-vendor.rules (masks the "
						      "rule), then udevadm control --reload");
	json_object_put(j);
}

static void test_tier_mixed(void **state)
{
	struct json_object *j, *f;

	assert_int_equal(fake_sysfs_remove(ENV(state)->sys, "devices/virtual/memory_tiering/memory_tier22"), 0);
	W(ENV(state)->sys, "devices/virtual/memory_tiering/memory_tier4/nodelist", "0-1\n");
	f = only_finding(state, &j, "tier-mixed", "warning", "memory_tier4");
	assert_string_equal(json_string_at(f, "problem"), "slow node1 (pmem, no CPU) and node0 share memory_tier4");
	json_object_put(j);
}

static void test_demotion_escape(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->sys, "kernel/mm/numa/demotion_enabled", "true\n");
	W(ENV(state)->conf, "pmemram.conf", CLAIM_SLOW "[class \"fast\"]\nnodes = dram\n");
	f = only_finding(state, &j, "demotion-escape", "warning", "class fast");
	assert_string_equal(json_string_at(f, "problem"),
			    "demotion is on and may move the class's pages to node 1 outside its slice");
	json_object_put(j);

	/* protect = SIZE is the administrator's answer to it. */
	W(ENV(state)->conf, "pmemram.conf", CLAIM_SLOW "[class \"fast\"]\nnodes = dram\nprotect = 64M\n");
	{
		_cleanup_(freep) struct run *run = run_doctor(state, NULL);

		assert_int_equal(run->status, 0);
	}
}

/* The human line: severity, subject, problem, id, why and fix, one line per finding. */
static void test_human_line(void **state)
{
	_cleanup_(freep) struct run *run = NULL;

	W(ENV(state)->conf, "pmemram.conf", CLAIM_SLOW "[claim \"typo\"]\nmatch = device:dax9.0\n");
	run = run_doctor(state, NULL);
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->out, "error: claim typo: claim 'typo' matches no device"));
	assert_non_null(strstr(run->out, " [claim-unmatched]; why: "));
	assert_non_null(strstr(run->out, "; fix: pmemramctl claim typo with the match of a device"));
	assert_int_equal(strchr(run->out, '\n') - run->out + 1, (long)strlen(run->out));
}

static void test_shuffle_pending(void **state)
{
	struct json_object *j, *f;

	/* A direct-mapped cache in front of node 1 wants shuffling; the next boot's command line has it. */
	W(ENV(state)->sys, "devices/system/node/node1/memory_side_cache/index1/size", "134217728\n");
	W(ENV(state)->sys, "devices/system/node/node1/memory_side_cache/index1/line_size", "64\n");
	W(ENV(state)->sys, "devices/system/node/node1/memory_side_cache/index1/indexing", "0\n");
	W(ENV(state)->sys, "devices/system/node/node1/memory_side_cache/index1/write_policy", "0\n");
	W(ENV(state)->udev, "etc/kernel/cmdline", "root=/dev/vda rw page_alloc.shuffle=1\n");
	f = only_finding(state, &j, "shuffle-pending", "warning", "page_alloc.shuffle");
	assert_string_equal(json_string_at(f, "fix"), "reboot");
	assert_non_null(strstr(json_string_at(f, "problem"), "next-boot: "));
	json_object_put(j);

	W(ENV(state)->udev, "etc/kernel/cmdline", "root=/dev/vda rw\n");
	f = only_finding(state, &j, "shuffle-pending", "warning", "page_alloc.shuffle");
	assert_string_equal(json_string_at(f, "fix"), "pmemramctl shuffle apply, then reboot");
	json_object_put(j);
}

static void test_cxl_memdev_no_region(void **state)
{
	const char *sys = ENV(state)->sys;
	struct json_object *j, *f;

	assert_int_equal(fake_sysfs_symlink(sys, "bus/cxl/devices/mem0", "../../../devices/pci0000:0c/mem0"), 0);
	W(sys, "devices/pci0000:0c/mem0/serial", "0x5eed0101\n");
	W(sys, "devices/pci0000:0c/mem0/ram/size", "0x20000000\n");
	W(sys, "devices/pci0000:0c/mem0/pmem/size", "0x0\n");
	f = only_finding(state, &j, "cxl-memdev-no-region", "warning", "mem0 (serial 0x5eed0101)");
	assert_string_equal(json_string_at(f, "problem"), "512 MiB of volatile capacity in no CXL region");
	assert_string_equal(json_string_at(f, "fix"),
			    "pmemramctl claim NAME --cxl-memdev 0x5eed0101 --create-region=ram");
	json_object_put(j);
}

/* Only System RAM directly in a CXL window: kmem's, below a region and a dax device, is claimed memory. */
static void test_cxl_plain_ram(void **state)
{
	struct json_object *j, *f;

	W(ENV(state)->proc, "iomem",
	  "00000000-00000fff : Reserved\n"
	  "00100000-7ffdbfff : System RAM\n"
	  "  01000000-01ffffff : Kernel code\n"
	  "1050000000-114fffffff : CXL Window 0\n"
	  "  1050000000-10cfffffff : System RAM\n"
	  "1150000000-124fffffff : CXL Window 1\n"
	  "  1150000000-118fffffff : region0\n"
	  "    1150000000-118fffffff : dax0.0\n"
	  "      1150000000-118fffffff : System RAM (kmem)\n"
	  "  1190000000-11cfffffff : Soft Reserved\n"
	  "2000000000-20ffffffff : System RAM\n");
	f = only_finding(state, &j, "cxl-plain-ram", "warning", "CXL Window 0");
	assert_string_equal(json_string_at(f, "problem"),
			    "0x1050000000-0x10cfffffff (2 GiB) is System RAM outside any CXL region");
	assert_non_null(strstr(json_string_at(f, "fix"), "EFI_MEMORY_SP"));
	json_object_put(j);
}

/* The section becomes a claim, which matches nothing here: that is a finding of its own. */
static void test_daxctl_hook(void **state)
{
	struct doctor_env *e = ENV(state);
	struct json_object *j, *f;

	W(e->udev, "usr/lib/udev/rules.d/90-daxctl-device.rules",
	  "ACTION==\"add\", SUBSYSTEM==\"dax\", RUN+=\"/usr/bin/daxctl -C $env{DEVNAME}\"\n");
	W(e->conf, "daxctl.conf.d/50-x.conf",
	  "[reconfigure-device x]\nnvdimm.uuid = " FAKE_UUID_DEVDAX_INFO "\nmode = system-ram\n");
	assert_true(asprintf(&e->vars[6], "PMEMRAM_DAXCTL_CONFIG_DIR=%s/daxctl.conf.d", e->conf) > 0);
	j = findings(state, 2, 2);
	assert_string_equal(json_string_at(j, "findings.0.id"), "claim-unmatched");
	f = json_at(j, "findings.1");
	assert_string_equal(json_string_at(f, "id"), "daxctl-hook");
	assert_string_equal(json_string_at(f, "severity"), "warning");
	assert_string_equal(json_string_at(f, "subject"), "/usr/lib/udev/rules.d/90-daxctl-device.rules:1");
	assert_non_null(strstr(json_string_at(f, "problem"), "has 1 reconfigure-device section"));
	assert_non_null(strstr(json_string_at(f, "fix"), "ln -s /dev/null /etc/udev/rules.d/90-daxctl-device.rules "));
	json_object_put(j);
}

static void test_usage(void **state)
{
	_cleanup_(freep) struct run *help = run_doctor(state, "--help");
	_cleanup_(freep) struct run *extra = run_doctor(state, "extra");

	assert_int_equal(help->status, 0);
	assert_non_null(strstr(help->out, "Usage: pmemramctl doctor [--json] [--config DIR]"));
	assert_int_equal(extra->status, 64);
	assert_non_null(strstr(extra->err, "unexpected argument 'extra'"));
}

#define DOCTOR_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		DOCTOR_TEST(test_clean),
		DOCTOR_TEST(test_zone_mismatch),
		DOCTOR_TEST(test_no_target_node),
		DOCTOR_TEST(test_too_small),
		DOCTOR_TEST(test_claim_unmatched),
		DOCTOR_TEST(test_auto_online),
		DOCTOR_TEST(test_memhp_default_state),
		DOCTOR_TEST(test_hotplug_pending),
		DOCTOR_TEST(test_udev_online),
		DOCTOR_TEST(test_tier_mixed),
		DOCTOR_TEST(test_demotion_escape),
		DOCTOR_TEST(test_human_line),
		DOCTOR_TEST(test_shuffle_pending),
		DOCTOR_TEST(test_cxl_memdev_no_region),
		DOCTOR_TEST(test_cxl_plain_ram),
		DOCTOR_TEST(test_daxctl_hook),
		DOCTOR_TEST(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
