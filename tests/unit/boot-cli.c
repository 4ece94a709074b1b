/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl run on a fake sysfs and procfs, a boot root and a configuration directory of a test's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "boot-cli.h"
#include "macro.h"

void boot_cli_setup(struct boot_cli *c, void **state)
{
	c->env = *state;
	assert_int_equal(fake_sysfs_new(&c->boot), 0);
	assert_int_equal(fake_sysfs_new(&c->config), 0);
}

void boot_cli_done(struct boot_cli *c)
{
	c->boot = fake_sysfs_free(c->boot);
	c->config = fake_sysfs_free(c->config);
}

struct run *boot_cli_run(struct boot_cli *c, const char *extra_env, const char *const *args)
{
	char sysfs[512], proc[512], boot_root[512], config[512];
	const char *env[] = { sysfs, proc, boot_root, config, extra_env, NULL };

	snprintf(sysfs, sizeof(sysfs), "PMEMRAM_SYSFS_ROOT=%s", c->env->root);
	snprintf(proc, sizeof(proc), "PMEMRAM_PROCFS_ROOT=%s", c->env->proc);
	snprintf(boot_root, sizeof(boot_root), "PMEMRAM_BOOT_ROOT=%s", c->boot);
	snprintf(config, sizeof(config), "PMEMRAM_CONFIG_DIR=%s", c->config);
	return run_ctl_env(env, args);
}

struct json_object *boot_cli_json(struct boot_cli *c, const char *extra_env, const char *const *args, int status)
{
	_cleanup_(freep) struct run *run = boot_cli_run(c, extra_env, args);
	struct json_object *j;

	if (run->status != status)
		fail_msg("exit status %d, expected %d; stderr: %s", run->status, status, run->err);
	j = json_tokener_parse(run->out);
	if (!j)
		fail_msg("no JSON: %s", run->out);
	return j;
}
