/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl run on a fake sysfs and procfs, a boot root and a configuration directory of a test's own. */
#pragma once

#include <json-c/json.h>

#include "fake-sysfs.h"
#include "run-ctl.h"

struct boot_cli {
	struct fake_env *env;
	char *boot;   /* boot root: etc/kernel/cmdline or etc/default/grub below it */
	char *config; /* configuration directory */
};

/* The fake environment *state and two new empty directories, for the boot root and the configuration. */
void boot_cli_setup(struct boot_cli *c, void **state);
void boot_cli_done(struct boot_cli *c);
/* pmemramctl with args under c, plus extra_env ("NAME=value" or NULL). */
struct run *boot_cli_run(struct boot_cli *c, const char *extra_env, const char *const *args);
/* The same, failing the test unless it exits with status and prints JSON; that JSON. */
struct json_object *boot_cli_json(struct boot_cli *c, const char *extra_env, const char *const *args, int status);
