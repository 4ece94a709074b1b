/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The boot configuration for pmemramctl: where it is, and writing a setting into it with its messages. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-bootparam.h"

const char *ctl_boot_root(void)
{
	const char *root = secure_getenv("PMEMRAM_BOOT_ROOT");

	return root && *root ? root : "/";
}

const char *ctl_boot_root_prefix(void)
{
	return streq(ctl_boot_root(), "/") ? "" : ctl_boot_root();
}

/* The tests' stand-in for update-grub, NULL for the real one; the library refuses it for "/". */
static const char *boot_update_command(void)
{
	return secure_getenv(PMEMRAM_BOOT_UPDATE_COMMAND_ENV);
}

int ctl_boot_write(const char *command, const struct pmemram_boot_setting *s,
		   const char *const values[PMEMRAM_BOOT_KEYS_MAX], const char *marker, const char *what,
		   struct json_object *out, const char **ret_done, bool *ret_changed)
{
	static char done[160];
	struct pmemram_bootparam_change change = {};
	bool any = false;
	int r;

	for (size_t i = 0; i < PMEMRAM_BOOT_KEYS_MAX; i++)
		any = any || values[i];
	r = pmemram_bootparam_write(ctl_boot_root(), boot_update_command(), s, values, marker, &change);
	json_add(out, "changed", json_object_new_boolean(change.changed));
	json_add(out, "path", json_object_new_string(change.path));
	json_add_string_or_null(out, "update_command", change.update_command[0] ? change.update_command : NULL);
	json_add(out, "update_status", json_object_new_int(change.update_status));
	*ret_changed = *ret_changed || change.changed;
	if (r < 0) {
		if (r == -EPERM) {
			fprintf(stderr,
				"%s %s: %s is set: it replaces update-grub only with %s (tests), "
				"never for the running system; nothing was written\n",
				program_invocation_short_name, command, PMEMRAM_BOOT_UPDATE_COMMAND_ENV,
				"PMEMRAM_BOOT_ROOT");
			*ret_done = "failed: refused to run another command than update-grub for /";
		} else if (r == -EIO && change.update_command[0]) {
			fprintf(stderr, "%s %s: wrote %s, but %s failed (exit status %d)\n",
				program_invocation_short_name, command, change.path, change.update_command,
				change.update_status);
			*ret_done = "failed: the boot configuration was written, but its update tool failed";
		} else {
			fprintf(stderr, "%s %s: cannot write %s%s: %s\n", program_invocation_short_name, command,
				ctl_boot_root_prefix(), change.path[0] ? change.path : " the boot configuration",
				change.detail[0] ? change.detail : strerror(-r));
			*ret_done = "failed: the boot configuration could not be written";
		}
		return CTL_EXIT_FAILED;
	}
	snprintf(done, sizeof(done),
		 any ? "wrote %s into the boot configuration" : "removed pmemram's %s from the boot configuration",
		 what);
	*ret_done = done;
	if (change.update_command[0])
		fprintf(stderr, "%s %s: %s ran (exit status %d)\n", program_invocation_short_name, command,
			change.update_command, change.update_status);
	return CTL_EXIT_OK;
}

void ctl_apply_json(struct json_object *root, struct json_object *applied, bool dry_run, const char *done)
{
	if (!applied)
		return;
	json_add(applied, "dry_run", json_object_new_boolean(dry_run));
	json_add(applied, "result", json_object_new_string(done));
	json_add(root, "apply", applied);
}

int ctl_apply_args(const char *command, int argc, char **argv, void (*help)(void), struct ctl_apply_args *a)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjnc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return CTL_EXIT_OK;
		case 'j':
			a->json = true;
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'c':
			a->config_dir = optarg;
			break;
		default:
			return ctl_unknown_option(command, argv);
		}
	}
	if (optind < argc && streq(argv[optind], "apply")) {
		a->apply = true;
		optind++;
	}
	if (optind < argc)
		return ctl_usage_error(command, "unexpected argument '%s' (only 'apply')", argv[optind]);
	if (a->dry_run && !a->apply)
		return ctl_usage_error(command, "--dry-run goes with apply");
	return -1;
}
