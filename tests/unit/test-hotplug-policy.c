/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the hotplug policy: policy x running kernel x boot configuration, and pmemramctl hotplug. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "boot-cli.h"
#include "fake-sysfs.h"
#include "macro.h"
#include "pmemram-hotplug-policy.h"
#include "run-ctl.h"

#define MOVABLE (1u << PMEMRAM_ZONE_MOVABLE)
#define NORMAL (1u << PMEMRAM_ZONE_NORMAL)

/* A boot configuration giving memhp_default_state=state (NULL: none) and online_policy (NULL: none). */
static struct pmemram_bootparam boot(enum pmemram_bootloader loader, const char *state, const char *online_policy,
				     bool ours)
{
	struct pmemram_bootparam b = { .loader = loader, .written_by_pmemram = ours };

	if (state) {
		b.param[0].present = true;
		strcpy(b.param[0].value, state);
	}
	if (online_policy) {
		b.param[1].present = true;
		strcpy(b.param[1].value, online_policy);
	}
	return b;
}

struct hotplug_case {
	const char *name;
	enum pmemram_config_hotplug policy;
	unsigned claimed;
	enum pmemram_auto_online running;
	const char *online_policy;
	struct pmemram_bootparam boot;
	const char *state, *text, *next_boot, *exposure; /* exposure NULL: none */
};

static void test_cases(void **state)
{
	const struct hotplug_case cases[] = {
		{ "keep, the kernel offline: nothing to say", PMEMRAM_CONFIG_HOTPLUG_KEEP, MOVABLE,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "contig-zones", boot(PMEMRAM_BOOTLOADER_GRUB, NULL, NULL, false),
		  "in-effect", "keep: pmemram leaves the kernel's policy alone (now offline)", "default", NULL },
		{ "keep, Debian 13's default: the exposure is said", PMEMRAM_CONFIG_HOTPLUG_KEEP, MOVABLE,
		  PMEMRAM_AUTO_ONLINE_ONLINE, "contig-zones",
		  boot(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, NULL, NULL, false), "in-effect", "(now online)", "default",
		  "onlines the memory it adds itself (online): an unclaimed device's too when the kernel binds it to "
		  "kmem (hmem and CXL RAM at probe since 6.3), and claimed memory it adds perhaps not into the zone "
		  "claimed (Movable); fix: hotplug-policy = offline" },
		{ "keep, pmemram's drop-in left: not applied", PMEMRAM_CONFIG_HOTPLUG_KEEP, 0,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "", boot(PMEMRAM_BOOTLOADER_GRUB, "offline", NULL, true), "not-applied",
		  "pmemram's hotplug parameters are still in the boot configuration", "offline", NULL },
		{ "keep, the user's own words on /etc/kernel/cmdline stay theirs", PMEMRAM_CONFIG_HOTPLUG_KEEP, 0,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "", boot(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "offline", NULL, true),
		  "in-effect", "keep:", "offline", NULL },
		{ "offline, nothing written yet", PMEMRAM_CONFIG_HOTPLUG_OFFLINE, MOVABLE, PMEMRAM_AUTO_ONLINE_ONLINE,
		  "contig-zones", boot(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, NULL, NULL, false), "not-applied",
		  "not applied: the boot configuration says default, not offline (run pmemramctl hotplug apply)",
		  "default", "(online)" },
		{ "offline, written: pending a reboot", PMEMRAM_CONFIG_HOTPLUG_OFFLINE, MOVABLE,
		  PMEMRAM_AUTO_ONLINE_ONLINE, "contig-zones",
		  boot(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "offline", NULL, true), "next-boot",
		  "takes effect at next boot: the boot configuration says offline, the running kernel online "
		  "(reboot to apply)",
		  "offline", "(online)" },
		{ "offline, booted with it", PMEMRAM_CONFIG_HOTPLUG_OFFLINE, MOVABLE, PMEMRAM_AUTO_ONLINE_OFFLINE,
		  "contig-zones", boot(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "offline", NULL, true), "in-effect",
		  "in effect (memhp_default_state=offline)", "offline", NULL },
		{ "offline, but an online_policy left on the line", PMEMRAM_CONFIG_HOTPLUG_OFFLINE, 0,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "auto-movable",
		  boot(PMEMRAM_BOOTLOADER_GRUB, "offline", "auto-movable", false), "not-applied", "not applied",
		  "offline", NULL },
		{ "movable: Normal claims are at risk, Movable ones are not", PMEMRAM_CONFIG_HOTPLUG_MOVABLE,
		  MOVABLE | NORMAL, PMEMRAM_AUTO_ONLINE_MOVABLE, "contig-zones",
		  boot(PMEMRAM_BOOTLOADER_GRUB, "online_movable", NULL, true), "in-effect",
		  "in effect (memhp_default_state=online_movable)", "movable",
		  "claimed memory it adds perhaps not into the zone claimed (Normal)" },
		{ "auto-movable needs both words", PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE, MOVABLE,
		  PMEMRAM_AUTO_ONLINE_ONLINE, "contig-zones", boot(PMEMRAM_BOOTLOADER_GRUB, "online", NULL, true),
		  "not-applied", "the boot configuration says online, not auto-movable", "online", "(online)" },
		{ "auto-movable in effect", PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE, MOVABLE, PMEMRAM_AUTO_ONLINE_ONLINE,
		  "auto-movable", boot(PMEMRAM_BOOTLOADER_GRUB, "online", "auto-movable", true), "in-effect",
		  "in effect (memhp_default_state=online memory_hotplug.online_policy=auto-movable)", "auto-movable",
		  "(auto-movable)" },
		{ "no boot loader, the kernel already agrees", PMEMRAM_CONFIG_HOTPLUG_OFFLINE, 0,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "", boot(PMEMRAM_BOOTLOADER_NONE, NULL, NULL, false), "in-effect",
		  "in effect, but no boot configuration", "default", NULL },
		{ "no boot loader, the kernel does not agree", PMEMRAM_CONFIG_HOTPLUG_MOVABLE, 0,
		  PMEMRAM_AUTO_ONLINE_OFFLINE, "", boot(PMEMRAM_BOOTLOADER_NONE, NULL, NULL, false), "no-boot-loader",
		  "no boot configuration (GRUB or /etc/kernel/cmdline) was found to put it in (now offline)", "default",
		  NULL },
	};

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const struct hotplug_case *c = &cases[i];
		struct pmemram_hotplug_running k = { .auto_online = c->running };
		struct pmemram_hotplug_policy p;

		print_message("case: %s\n", c->name);
		strcpy(k.online_policy, c->online_policy);
		assert_int_equal(pmemram_hotplug_policy_evaluate(c->policy, c->claimed, &k, &c->boot, &p), 0);
		assert_string_equal(pmemram_hotplug_policy_state_to_string(p.state), c->state);
		if (!strstr(p.text, c->text))
			fail_msg("text '%s' lacks '%s'", p.text, c->text);
		assert_string_equal(p.next_boot, c->next_boot);
		if (c->exposure ? !strstr(p.exposure, c->exposure) : p.exposure[0] != '\0')
			fail_msg("exposure '%s', expected '%s'", p.exposure, c->exposure ?: "");
	}
}

static void test_invalid(void **state)
{
	struct pmemram_hotplug_running k = {};
	struct pmemram_bootparam b = {};
	struct pmemram_hotplug_policy p;

	(void)state;
	assert_int_equal(pmemram_hotplug_policy_evaluate(_PMEMRAM_CONFIG_HOTPLUG_MAX, 0, &k, &b, &p), -EINVAL);
	assert_int_equal(pmemram_hotplug_policy_evaluate(PMEMRAM_CONFIG_HOTPLUG_KEEP, 0, NULL, &b, &p), -EINVAL);
	assert_int_equal(pmemram_hotplug_policy_evaluate(PMEMRAM_CONFIG_HOTPLUG_KEEP, 0, &k, NULL, &p), -EINVAL);
	assert_null(pmemram_hotplug_policy_state_to_string(_PMEMRAM_HOTPLUG_POLICY_STATE_MAX));
	assert_string_equal(pmemram_config_hotplug_to_string(PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE), "auto-movable");
}

/* ---- pmemramctl hotplug against a fake sysfs and boot root ---------------------------------------- */

static void cli_setup(struct boot_cli *c, void **state, const char *policy)
{
	boot_cli_setup(c, state);
	assert_int_equal(fake_sysfs_write(c->config, "pmemram.conf", "[global]\nhotplug-policy = %s\n", policy), 0);
	/* Debian 13's default */
	assert_int_equal(fake_sysfs_write(c->env->root, "devices/system/memory/auto_online_blocks", "online\n"), 0);
	assert_int_equal(fake_sysfs_write(c->env->root, "module/memory_hotplug/parameters/online_policy",
					  "contig-zones\n"),
			 0);
}

static void test_cli_kernel_cmdline(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "auto-movable");
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline",
					  "root=/dev/vda memhp_default_state=online_movable quiet\n"),
			 0);

	j = boot_cli_json(&c, NULL, (const char *const[]){ "hotplug", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "running.auto_online_blocks"), "online");
	assert_string_equal(json_string_at(j, "running.online_policy"), "contig-zones");
	assert_string_equal(json_string_at(j, "running.policy"), "online");
	assert_string_equal(json_string_at(j, "policy"), "auto-movable");
	assert_string_equal(json_string_at(j, "set_at"), "pmemram.conf:2");
	assert_string_equal(json_string_at(j, "state"), "not-applied");
	assert_string_equal(json_string_at(j, "next_boot.policy"), "movable");
	assert_string_equal(json_string_at(j, "wanted_parameters.online_policy"), "auto-movable");
	assert_non_null(strstr(json_string_at(j, "exposure"), "an unclaimed device's too"));
	json_object_put(j);

	/* A dry run changes nothing. */
	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", "apply", "--dry-run", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "would write hotplug parameters into the boot configuration"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"),
			    "root=/dev/vda memhp_default_state=online_movable quiet");

	j = boot_cli_json(&c, NULL, (const char *const[]){ "hotplug", "apply", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "apply.changed"));
	assert_string_equal(json_string_at(j, "apply.result"), "wrote hotplug parameters into the boot configuration");
	assert_string_equal(json_string_at(j, "state"), "next-boot");
	assert_true(json_bool_at(j, "pending"));
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"),
			    "root=/dev/vda quiet memhp_default_state=online memory_hotplug.online_policy=auto-movable");

	/* Again: nothing to change. */
	j = boot_cli_json(&c, NULL, (const char *const[]){ "hotplug", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "apply.result"), "nothing to change");
	json_object_put(j);

	/* Movable: the online policy goes from the line. */
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nhotplug-policy = movable\n"), 0);
	j = boot_cli_json(&c, NULL, (const char *const[]){ "hotplug", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "next_boot.policy"), "movable");
	assert_null(json_at(j, "next_boot.online_policy"));
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"),
			    "root=/dev/vda quiet memhp_default_state=online_movable");

	/* The booted kernel agreeing: in effect, nothing exposed but Normal claims (none here). */
	assert_int_equal(fake_sysfs_write(c.env->root, "devices/system/memory/auto_online_blocks", "online_movable\n"),
			 0);
	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(
		strstr(run->out, "policy movable (pmemram.conf:2): in effect (memhp_default_state=online_movable)"));
	assert_non_null(strstr(run->out,
			       "next boot (kernel-cmdline, /etc/kernel/cmdline): memhp_default_state=online_movable"));
	free(TAKE_PTR(run));

	/* Status shows it too. */
	j = boot_cli_json(&c, NULL, (const char *const[]){ "status", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "hotplug.state"), "in-effect");
	assert_string_equal(json_string_at(j, "hotplug.running.policy"), "movable");
	json_object_put(j);
	boot_cli_done(&c);
}

/* GRUB_CMDLINE_LINUX and _DEFAULT after update-grub sources /etc/default/grub and the drop-in. */
static const char *grub_source(const char *boot)
{
	static char buf[1024];
	char command[PATH_MAX + 256];
	FILE *p;
	size_t n;

	snprintf(command, sizeof(command),
		 "cd '%s' && sh -euc '. ./etc/default/grub; . ./etc/default/grub.d/61-pmemram-hotplug.cfg; "
		 "set | grep -q ^pmemram_ && exit 9; printf %%s \"$GRUB_CMDLINE_LINUX|$GRUB_CMDLINE_LINUX_DEFAULT\"'",
		 boot);
	p = popen(command, "re");
	assert_non_null(p);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return buf;
}

static void test_cli_grub(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char update[700], script[600], marker[512];
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "offline");
	assert_int_equal(
		fake_sysfs_write(c.boot, "etc/default/grub",
				 "GRUB_CMDLINE_LINUX=\"memory-hotplug.online_policy=auto-movable root=/dev/vda\"\n"
				 "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet memhp_default_state=online\"\n"),
		0);
	snprintf(script, sizeof(script), "%s/update-grub", c.boot);
	snprintf(marker, sizeof(marker), "%s/ran", c.boot);
	assert_int_equal(fake_sysfs_write(c.boot, "update-grub", "#!/bin/sh\necho ran >\"%s\"\n", marker), 0);
	assert_int_equal(chmod(script, 0755), 0);
	snprintf(update, sizeof(update), "PMEMRAM_BOOT_UPDATE_COMMAND=%s", script);

	j = boot_cli_json(&c, update, (const char *const[]){ "hotplug", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "next_boot.policy"), "auto-movable");
	assert_string_equal(json_string_at(j, "boot_configuration.path"), "/etc/default/grub.d/61-pmemram-hotplug.cfg");
	json_object_put(j);

	j = boot_cli_json(&c, update, (const char *const[]){ "hotplug", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "apply.update_command"), "update-grub");
	assert_string_equal(json_string_at(j, "next_boot.policy"), "offline");
	assert_null(json_at(j, "next_boot.online_policy"));
	assert_string_equal(json_string_at(j, "state"), "next-boot");
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "ran"), "ran");
	/* What update-grub will put on the line: both of the user's words gone, pmemram's at the end. */
	assert_string_equal(grub_source(c.boot), "root=/dev/vda|quiet memhp_default_state=offline");
	snprintf(script, sizeof(script),
		 "grep -qx '# pmemram-hotplug: offline' '%s/etc/default/grub.d/61-pmemram-hotplug.cfg'", c.boot);
	assert_int_equal(system(script), 0);

	/* The shuffle drop-in is a file of its own: the hotplug setting leaves it alone. */
	assert_string_equal(fake_sysfs_read(c.boot, "etc/default/grub.d/60-pmemram.cfg"), "<absent>");

	/* Back to keep: pmemram's drop-in goes. */
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nhotplug-policy = keep\n"), 0);
	run = boot_cli_run(&c, update, (const char *const[]){ "hotplug", "apply", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "removed pmemram's hotplug parameters from the boot configuration"));
	assert_non_null(strstr(run->out, "keep: pmemram leaves the kernel's policy alone (now online)"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.boot, "etc/default/grub.d/61-pmemram-hotplug.cfg"), "<absent>");
	boot_cli_done(&c);
}

static void test_cli_errors(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct boot_cli c;

	/* No boot configuration at all. */
	cli_setup(&c, state, "offline");
	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", "apply", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "no boot configuration (GRUB or /etc/kernel/cmdline) was found"));
	free(TAKE_PTR(run));

	/* A line the kernel would misread is refused, named, and left as it is. */
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline", "quiet \"open\n"), 0);
	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", "apply", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "/etc/kernel/cmdline: the double quote at byte 7 is never closed"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"), "quiet \"open");

	/* A configuration value that is not a policy names file, line and the choices. */
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nhotplug-policy = online\n"), 0);
	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", NULL });
	assert_int_equal(run->status, 3);
	assert_non_null(strstr(run->err, "pmemram.conf:2"));
	assert_non_null(strstr(run->err, "expected 'keep', 'offline', 'movable' or 'auto-movable', got 'online'"));
	free(TAKE_PTR(run));

	run = boot_cli_run(&c, NULL, (const char *const[]){ "hotplug", "--dry-run", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--dry-run goes with apply"));
	boot_cli_done(&c);
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases), cmocka_unit_test(test_invalid), FAKE_TEST(test_cli_kernel_cmdline),
		FAKE_TEST(test_cli_grub),     FAKE_TEST(test_cli_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
