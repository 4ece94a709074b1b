/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl shuffle [apply]: the page-shuffle policy against the kernel and the boot configuration. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-bootparam.h"
#include "pmemram-config.h"
#include "pmemram-shuffle-policy.h"

const char *ctl_boot_root(void)
{
	const char *root = secure_getenv("PMEMRAM_BOOT_ROOT");

	return root && *root ? root : "/";
}

/* The tests' stand-in for update-grub, NULL for the real one; the library refuses it for "/". */
static const char *boot_update_command(void)
{
	return secure_getenv(PMEMRAM_BOOT_UPDATE_COMMAND_ENV);
}

void ctl_shuffle_done(struct ctl_shuffle *s)
{
	s->topology = pmemram_topology_free(s->topology);
	free(s->cmdline);
	s->cmdline = NULL;
}

int ctl_shuffle_read(struct pmemram_ctx *ctx, enum pmemram_config_shuffle policy, const struct pmemram_nodemask *nodes,
		     struct ctl_shuffle *s)
{
	int r;

	r = pmemram_shuffle_read(ctx, &s->kernel);
	if (r < 0)
		return ctl_read_failed(ctx, "page shuffling state", r);
	if (!s->topology) {
		r = pmemram_topology_read(ctx, &s->topology);
		if (r < 0)
			return ctl_read_failed(ctx, "NUMA nodes", r);
	}
	/* From here on a failure leaves the kernel's state valid: policy_r says the policy is not. */
	s->policy_r = -EIO;
	r = pmemram_cmdline_read(ctx, &s->cmdline);
	if (r < 0) {
		(void)ctl_read_failed(ctx, "the kernel command line", r);
		return CTL_EXIT_OK;
	}
	r = pmemram_bootparam_read(ctl_boot_root(), &s->boot);
	if (r < 0) {
		const char *root = streq(ctl_boot_root(), "/") ? "" : ctl_boot_root();

		/* The reader does not say which file failed: name the ones it reads. */
		fprintf(stderr, "%s: cannot read the boot configuration (%s%s, %s%s or %s%s): %s\n",
			program_invocation_short_name, root, PMEMRAM_KERNEL_CMDLINE_PATH, root, PMEMRAM_GRUB_DEFAULT_PATH,
			root, PMEMRAM_GRUB_DROPIN_PATH, strerror(-r));
		return CTL_EXIT_OK;
	}
	r = pmemram_shuffle_policy_evaluate(policy, nodes, &s->kernel, s->topology, s->cmdline, &s->boot, &s->policy);
	if (r < 0) {
		fprintf(stderr, "%s: cannot evaluate the shuffle policy: %s\n", program_invocation_short_name,
			strerror(-r));
		return CTL_EXIT_OK;
	}
	s->policy_r = 0;
	return CTL_EXIT_OK;
}

void ctl_shuffle_print(const struct ctl_shuffle *s, const char *policy_origin)
{
	const struct pmemram_shuffle *k = &s->kernel;

	switch (k->source) {
	case PMEMRAM_SHUFFLE_SYSFS:
		printf("Page shuffling: %s (reason %s, order %d)\n", k->enabled ? "enabled" : "disabled", k->reason,
		       k->order);
		break;
	case PMEMRAM_SHUFFLE_PARAMETER:
		printf("Page shuffling: page_alloc.shuffle=%s (stock kernel: effective state not reported)\n",
		       k->enabled ? "Y" : "N");
		break;
	default:
		printf("Page shuffling: not available (kernel without CONFIG_SHUFFLE_PAGE_ALLOCATOR)\n");
		break;
	}
	if (s->policy_r < 0) {
		printf("  policy: unknown (the command line or boot configuration could not be read, see above)\n");
		return;
	}
	printf("  policy %s%s%s%s: %s\n", pmemram_config_shuffle_to_string(s->policy.policy),
	       policy_origin ? " (" : "", policy_origin ?: "", policy_origin ? ")" : "", s->policy.text);
	printf("  command line: %s%s; ", s->policy.running[0] ? "page_alloc.shuffle=" : "no page_alloc.shuffle",
	       s->policy.running);
	if (s->boot.loader == PMEMRAM_BOOTLOADER_NONE)
		printf("next boot: no boot configuration found\n");
	else
		printf("next boot (%s, %s): %s%s\n", pmemram_bootloader_to_string(s->boot.loader), s->boot.path,
		       s->policy.next_boot[0] ? "page_alloc.shuffle=" : "no page_alloc.shuffle", s->policy.next_boot);
}

struct json_object *ctl_shuffle_json(const struct ctl_shuffle *s, const char *policy_origin)
{
	const struct pmemram_shuffle *k = &s->kernel;
	struct json_object *o = json_object_new_object(), *p = json_object_new_object(), *b = json_object_new_object();
	bool ok = o && p && b;

	ok &= json_add(o, "source", json_object_new_string(pmemram_shuffle_source_to_string(k->source)));
	if (k->source == PMEMRAM_SHUFFLE_UNAVAILABLE) {
		ok &= json_add_null_value(o, "enabled");
		ok &= json_add_null_value(o, "reason");
	} else {
		ok &= json_add(o, "enabled", json_object_new_boolean(k->enabled));
		ok &= json_add(o, "reason", json_object_new_string(k->reason));
	}
	ok &= k->order >= 0 ? json_add(o, "order", json_object_new_int(k->order)) : json_add_null_value(o, "order");
	if (s->policy_r < 0) {
		/* Unknown: the reason went to stderr. */
		ok &= json_add_null_value(o, "policy");
		json_object_put(b);
		json_object_put(p);
		if (!ok)
			json_object_putp(&o);
		return o;
	}

	ok &= json_add(p, "policy", json_object_new_string(pmemram_config_shuffle_to_string(s->policy.policy)));
	ok &= json_add_string_or_null(p, "set_at", policy_origin);
	ok &= json_add(p, "direct_mapped_cache", json_object_new_boolean(s->policy.direct_mapped_cache));
	ok &= json_add_string_or_null(p, "wanted_parameter", s->policy.want);
	ok &= json_add_string_or_null(p, "running_parameter", s->policy.running[0] ? s->policy.running : NULL);
	ok &= json_add_string_or_null(p, "next_boot_parameter", s->policy.next_boot[0] ? s->policy.next_boot : NULL);
	ok &= json_add(p, "state",
		       json_object_new_string(pmemram_shuffle_policy_state_to_string(s->policy.state)));
	ok &= json_add(p, "pending", json_object_new_boolean(s->policy.state != PMEMRAM_SHUFFLE_POLICY_IN_EFFECT));
	ok &= json_add(p, "text", json_object_new_string(s->policy.text));
	ok &= json_add(b, "loader", json_object_new_string(pmemram_bootloader_to_string(s->boot.loader)));
	ok &= json_add_string_or_null(b, "path", s->boot.loader != PMEMRAM_BOOTLOADER_NONE ? s->boot.path : NULL);
	ok &= json_add(b, "root", json_object_new_string(ctl_boot_root()));
	ok &= json_add(p, "boot_configuration", json_object_get(b));
	ok &= json_add(o, "policy", json_object_get(p));
	json_object_put(b);
	json_object_put(p);
	if (!ok)
		json_object_putp(&o);
	return o;
}

const char *ctl_shuffle_policy_origin(const struct pmemram_config *c, char *buf, size_t size)
{
	struct pmemram_config_origin o = pmemram_config_shuffle_origin(c);

	if (o.file < 0 || (size_t)o.file >= c->n_files)
		return NULL;
	return pmemram_config_origin_to_string(c, o, buf, size);
}

static void shuffle_help(void)
{
	printf("Usage: %s shuffle [--json] [--config DIR]\n"
	       "       %s shuffle apply [--dry-run] [--json] [--config DIR]\n"
	       "\n"
	       "Show the page allocator shuffling policy of pmemram.conf (shuffle = auto|on|off) against\n"
	       "the running kernel and the next boot's kernel command line; with apply, write\n"
	       "page_alloc.shuffle into the boot configuration (/etc/kernel/cmdline, or a GRUB drop-in\n"
	       "followed by update-grub) so that the next boot follows the policy.\n"
	       "\n"
	       "  -h --help        Show this help\n"
	       "  -j --json        Print JSON\n"
	       "  -n --dry-run     Say what apply would change, change nothing\n"
	       "  -c --config DIR  Configuration directory (default $PMEMRAM_CONFIG_DIR or %s)\n",
	       program_invocation_short_name, program_invocation_short_name, PMEMRAM_CONFIG_DIR_DEFAULT);
}

/* *ret_done: one line on what happened; *ret_changed: a file was written or removed (even when a
 * later step failed), so the state is worth reading again. */
static int apply(const struct ctl_shuffle *s, bool dry_run, struct json_object *out, const char **ret_done,
		 bool *ret_changed)
{
	struct pmemram_bootparam_change change = {};
	const char *want = s->policy.want;
	int r;

	*ret_done = "nothing to change";
	*ret_changed = false;
	if (s->policy.state == PMEMRAM_SHUFFLE_POLICY_NO_LOADER) {
		fprintf(stderr, "%s shuffle apply: %s\n", program_invocation_short_name, s->policy.text);
		*ret_done = "failed: no boot configuration to write";
		return CTL_EXIT_FAILED;
	}
	if (s->policy.state != PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED)
		return CTL_EXIT_OK;
	if (dry_run) {
		*ret_done = want ? "would write page_alloc.shuffle into the boot configuration"
				 : "would remove pmemram's page_alloc.shuffle from the boot configuration";
		return CTL_EXIT_OK;
	}

	r = pmemram_bootparam_write(ctl_boot_root(), boot_update_command(), want, &change);
	json_add(out, "changed", json_object_new_boolean(change.changed));
	json_add(out, "path", json_object_new_string(change.path));
	json_add_string_or_null(out, "update_command", change.update_command[0] ? change.update_command : NULL);
	json_add(out, "update_status", json_object_new_int(change.update_status));
	*ret_changed = change.changed;
	if (r < 0) {
		if (r == -EPERM) {
			fprintf(stderr,
				"%s shuffle apply: %s is set: it replaces update-grub only with %s (tests), "
				"never for the running system; nothing was written\n",
				program_invocation_short_name, PMEMRAM_BOOT_UPDATE_COMMAND_ENV, "PMEMRAM_BOOT_ROOT");
			*ret_done = "failed: refused to run another command than update-grub for /";
		} else if (r == -EIO && change.update_command[0]) {
			fprintf(stderr, "%s shuffle apply: wrote %s, but %s failed (exit status %d)\n",
				program_invocation_short_name, change.path, change.update_command, change.update_status);
			*ret_done = "failed: the boot configuration was written, but its update tool failed";
		} else {
			fprintf(stderr, "%s shuffle apply: cannot write %s%s: %s\n", program_invocation_short_name,
				streq(ctl_boot_root(), "/") ? "" : ctl_boot_root(),
				change.path[0] ? change.path : " the boot configuration",
				change.detail[0] ? change.detail : strerror(-r));
			*ret_done = "failed: the boot configuration could not be written";
		}
		return CTL_EXIT_FAILED;
	}
	*ret_done = want ? "wrote page_alloc.shuffle into the boot configuration"
			 : "removed pmemram's page_alloc.shuffle from the boot configuration";
	if (change.update_command[0])
		fprintf(stderr, "%s shuffle apply: %s ran (exit status %d)\n", program_invocation_short_name,
			change.update_command, change.update_status);
	return CTL_EXIT_OK;
}

int cmd_shuffle(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },	  { "json", no_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },	  { "config", required_argument, NULL, 'c' },
		{},
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(ctl_shuffle_done) struct ctl_shuffle s = {};
	struct pmemram_config *config = NULL;
	struct json_object *root = NULL, *applied = NULL;
	const char *dir = ctl_config_dir(), *done = NULL, *origin;
	bool json = g->json, dry_run = false, configured, do_apply = false;
	enum pmemram_config_shuffle policy;
	struct pmemram_nodemask nodes;
	char where[PATH_MAX + 16];
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjnc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			shuffle_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			return ctl_unknown_option("shuffle", argv);
		}
	}
	if (optind < argc && streq(argv[optind], "apply")) {
		do_apply = true;
		optind++;
	}
	if (optind < argc)
		return ctl_usage_error("shuffle", "unexpected argument '%s' (only 'apply')", argv[optind]);
	if (dry_run && !do_apply)
		return ctl_usage_error("shuffle", "--dry-run goes with apply");

	ret = ctl_load_config(dir, true, &config, &configured);
	if (ret != CTL_EXIT_OK)
		return ret;
	origin = ctl_shuffle_policy_origin(config, where, sizeof(where));
	if (ctl_ctx_new(&ctx) < 0) {
		pmemram_config_free(config);
		return CTL_EXIT_SYSTEM;
	}
	policy = pmemram_config_shuffle_policy(config);
	nodes = config->shuffle_nodes;
	pmemram_config_free(config);
	ret = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &nodes : NULL, &s);
	if (ret != CTL_EXIT_OK)
		return ret;
	if (s.policy_r < 0)
		return CTL_EXIT_SYSTEM; /* said why */

	if (do_apply) {
		bool changed;
		int r2;

		applied = json_object_new_object();
		ret = apply(&s, dry_run, applied, &done, &changed);
		if (changed) {
			/* Show the state as it is now, also after a failed update tool. */
			ctl_shuffle_done(&s);
			r2 = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &nodes : NULL, &s);
			if (r2 != CTL_EXIT_OK || s.policy_r < 0) {
				json_object_put(applied);
				return r2 != CTL_EXIT_OK ? r2 : CTL_EXIT_SYSTEM;
			}
		}
	}

	if (json) {
		root = ctl_shuffle_json(&s, origin);
		if (applied) {
			json_add(applied, "dry_run", json_object_new_boolean(dry_run));
			json_add(applied, "result", json_object_new_string(done));
			json_add(root, "apply", applied);
		}
		if (ctl_print_json(root, root != NULL) < 0)
			return CTL_EXIT_SYSTEM;
	} else {
		json_object_put(applied);
		if (do_apply)
			printf("%s\n", done);
		ctl_shuffle_print(&s, origin);
	}
	return ret != CTL_EXIT_OK ? ret : ctl_flush_stdout();
}
