/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl hotplug [apply]: what the kernel does with hot-added memory, against pmemram.conf's policy. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-bootparam.h"
#include "pmemram-config.h"
#include "pmemram-hotplug-policy.h"

const char *ctl_hotplug_policy_origin(const struct pmemram_config *c, char *buf, size_t size)
{
	if (c->hotplug_set.file < 0 || (size_t)c->hotplug_set.file >= c->n_files)
		return NULL;
	return pmemram_config_origin_to_string(c, c->hotplug_set, buf, size);
}

int ctl_hotplug_read(struct pmemram_ctx *ctx, const struct pmemram_config *c, struct ctl_hotplug *h)
{
	int r;

	*h = (struct ctl_hotplug){ .policy_r = -EIO };
	r = pmemram_hotplug_running_read(ctx, &h->running);
	if (r < 0)
		return ctl_read_failed(ctx, "the kernel's hotplug policy", r);
	r = pmemram_bootparam_read(ctl_boot_root(), &pmemram_boot_hotplug, &h->boot);
	if (r < 0) {
		const char *root = ctl_boot_root_prefix();

		fprintf(stderr, "%s: cannot read the boot configuration (%s%s, %s%s or %s%s): %s\n",
			program_invocation_short_name, root, PMEMRAM_KERNEL_CMDLINE_PATH, root,
			PMEMRAM_GRUB_DEFAULT_PATH, root, pmemram_boot_hotplug.dropin, strerror(-r));
		return CTL_EXIT_OK;
	}
	h->policy_r = pmemram_hotplug_policy_evaluate_config(c, &h->running, &h->boot, &h->policy);
	if (h->policy_r < 0)
		fprintf(stderr, "%s: cannot evaluate the hotplug policy: %s\n", program_invocation_short_name,
			strerror(-h->policy_r));
	return CTL_EXIT_OK;
}

/* "memhp_default_state=offline", "memhp_default_state=online memory_hotplug.online_policy=auto-movable", or
 * "no memhp_default_state" for the words of boot's parameters. */
static const char *boot_words(const struct pmemram_bootparam *b, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < PMEMRAM_BOOT_KEYS_MAX && pmemram_boot_hotplug.keys[i]; i++)
		if (b->param[i].present && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? " " : "",
						pmemram_boot_hotplug.keys[i], b->param[i].value);
	if (!buf[0])
		snprintf(buf, size, "no %s", pmemram_boot_hotplug.keys[0]);
	return buf;
}

void ctl_hotplug_print(const struct ctl_hotplug *h, const char *origin)
{
	const struct pmemram_hotplug_policy *p = &h->policy;
	char words[160];

	printf("Hotplug: the kernel onlines added memory as: %s (auto_online_blocks %s, online_policy %s)\n",
	       h->policy_r >= 0 ? p->running : pmemram_auto_online_to_string(h->running.auto_online),
	       pmemram_auto_online_to_string(h->running.auto_online),
	       h->running.online_policy[0] ? h->running.online_policy : "(none)");
	if (h->policy_r < 0) {
		printf("  policy: unknown (the boot configuration could not be read, see above)\n");
		return;
	}
	printf("  policy %s%s%s%s: %s\n", pmemram_config_hotplug_to_string(p->policy), origin ? " (" : "", origin ?: "",
	       origin ? ")" : "", p->text);
	if (h->boot.loader == PMEMRAM_BOOTLOADER_NONE)
		printf("  next boot: no boot configuration found\n");
	else
		printf("  next boot (%s, %s): %s\n", pmemram_bootloader_to_string(h->boot.loader), h->boot.path,
		       boot_words(&h->boot, words, sizeof(words)));
	if (p->exposure[0])
		printf("  %s\n", p->exposure);
}

struct json_object *ctl_hotplug_json(const struct ctl_hotplug *h, const char *origin)
{
	/* pmemram_boot_hotplug's keys, without the dot a JSON path would split on */
	static const char *const json_keys[PMEMRAM_BOOT_KEYS_MAX] = { "memhp_default_state", "online_policy" };
	const struct pmemram_hotplug_policy *p = &h->policy;
	struct json_object *o = json_object_new_object(), *k = json_object_new_object(), *n = json_object_new_object(),
			   *w = json_object_new_object(), *b = json_object_new_object();
	bool ok = o && k && n && w && b;

	ok = ok && json_add(k, "auto_online_blocks",
			    json_object_new_string(pmemram_auto_online_to_string(h->running.auto_online)));
	ok = ok &&
	     json_add_string_or_null(k, "online_policy", h->running.online_policy[0] ? h->running.online_policy : NULL);
	ok = ok && json_add_string_or_null(k, "policy", h->policy_r >= 0 ? p->running : NULL);
	ok = ok && json_add(k, "onlines_added_memory",
			    json_object_new_boolean(h->running.auto_online != PMEMRAM_AUTO_ONLINE_OFFLINE));
	ok = ok && json_add(o, "running", json_object_get(k));
	if (h->policy_r < 0) {
		ok = ok && json_add_null_value(o, "policy");
		goto out;
	}
	ok = ok && json_add(o, "policy", json_object_new_string(pmemram_config_hotplug_to_string(p->policy)));
	ok = ok && json_add_string_or_null(o, "set_at", origin);
	for (size_t i = 0; i < PMEMRAM_BOOT_KEYS_MAX; i++) {
		ok = ok && json_add_string_or_null(w, json_keys[i], p->want[i]);
		ok = ok &&
		     json_add_string_or_null(n, json_keys[i], h->boot.param[i].present ? h->boot.param[i].value : NULL);
	}
	ok = ok && json_add(n, "policy", json_object_new_string(p->next_boot));
	ok = ok && json_add(o, "wanted_parameters", json_object_get(w));
	ok = ok && json_add(o, "next_boot", json_object_get(n));
	ok = ok && json_add(o, "remove_boot_parameters", json_object_new_boolean(p->remove_ours));
	ok = ok && json_add(o, "state", json_object_new_string(pmemram_hotplug_policy_state_to_string(p->state)));
	ok = ok && json_add(o, "pending", json_object_new_boolean(p->state != PMEMRAM_HOTPLUG_POLICY_IN_EFFECT));
	ok = ok && json_add(o, "text", json_object_new_string(p->text));
	ok = ok && json_add_string_or_null(o, "exposure", p->exposure[0] ? p->exposure : NULL);
	ok = ok && json_add(b, "loader", json_object_new_string(pmemram_bootloader_to_string(h->boot.loader)));
	ok = ok && json_add_string_or_null(b, "path", h->boot.loader != PMEMRAM_BOOTLOADER_NONE ? h->boot.path : NULL);
	ok = ok && json_add(b, "root", json_object_new_string(ctl_boot_root()));
	ok = ok && json_add(o, "boot_configuration", json_object_get(b));
out:
	json_object_put(k);
	json_object_put(n);
	json_object_put(w);
	json_object_put(b);
	if (!ok)
		json_object_putp(&o);
	return o;
}

/* *ret_done: one line on what happened; *ret_changed: a file was written or removed. */
static int apply(const struct ctl_hotplug *h, bool dry_run, struct json_object *out, const char **ret_done,
		 bool *ret_changed)
{
	const struct pmemram_hotplug_policy *p = &h->policy;
	const char *name = pmemram_config_hotplug_to_string(p->policy);

	*ret_done = "nothing to change";
	*ret_changed = false;
	if (p->state == PMEMRAM_HOTPLUG_POLICY_NO_LOADER) {
		fprintf(stderr, "%s hotplug apply: %s\n", program_invocation_short_name, p->text);
		*ret_done = "failed: no boot configuration to write";
		return CTL_EXIT_FAILED;
	}
	if (p->state != PMEMRAM_HOTPLUG_POLICY_NOT_APPLIED)
		return CTL_EXIT_OK;
	if (dry_run) {
		*ret_done = p->remove_ours ? "would remove pmemram's hotplug parameters from the boot configuration"
					   : "would write hotplug parameters into the boot configuration";
		return CTL_EXIT_OK;
	}
	return ctl_boot_write("hotplug apply", &pmemram_boot_hotplug, p->want, p->remove_ours ? NULL : name,
			      "hotplug parameters", out, ret_done, ret_changed);
}

static void hotplug_help(void)
{
	printf("Usage: %s hotplug [--json] [--config DIR]\n"
	       "       %s hotplug apply [--dry-run] [--json] [--config DIR]\n"
	       "\n"
	       "Show what the running kernel does with memory it adds (auto_online_blocks,\n"
	       "memory_hotplug.online_policy) against the hotplug-policy of pmemram.conf\n"
	       "(keep|offline|movable|auto-movable) and the next boot's kernel command line.\n"
	       "With apply, write memhp_default_state (and memory_hotplug.online_policy) into the\n"
	       "boot configuration (/etc/kernel/cmdline, or a GRUB drop-in followed by update-grub);\n"
	       "the policy takes effect at the next boot.\n"
	       "\n"
	       "  -h --help        Show this help\n"
	       "  -j --json        Print JSON\n"
	       "  -n --dry-run     Say what apply would change, change nothing\n"
	       "  -c --config DIR  Configuration directory (default $PMEMRAM_CONFIG_DIR or %s)\n",
	       program_invocation_short_name, program_invocation_short_name, PMEMRAM_CONFIG_DIR_DEFAULT);
}

int cmd_hotplug(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	struct pmemram_config *config = NULL;
	struct json_object *root = NULL, *applied = NULL;
	const char *done = NULL, *origin;
	bool configured;
	struct ctl_hotplug h;
	char where[PATH_MAX + 16];
	struct ctl_apply_args args = { .json = g->json, .config_dir = ctl_config_dir() };
	int ret;

	ret = ctl_apply_args("hotplug", argc, argv, hotplug_help, &args);
	if (ret >= 0)
		return ret;

	ret = ctl_load_config(args.config_dir, true, &config, &configured);
	if (ret != CTL_EXIT_OK)
		return ret;
	origin = ctl_hotplug_policy_origin(config, where, sizeof(where));
	if (ctl_ctx_new(&ctx) < 0) {
		pmemram_config_free(config);
		return CTL_EXIT_SYSTEM;
	}
	ret = ctl_hotplug_read(ctx, config, &h);
	if (ret == CTL_EXIT_OK && h.policy_r < 0)
		ret = CTL_EXIT_SYSTEM; /* said why */
	if (ret == CTL_EXIT_OK && args.apply) {
		bool changed;

		applied = json_object_new_object();
		ret = apply(&h, args.dry_run, applied, &done, &changed);
		/* Show the state as it is now, also after a failed update tool. */
		if (changed && (ctl_hotplug_read(ctx, config, &h) != CTL_EXIT_OK || h.policy_r < 0))
			ret = CTL_EXIT_SYSTEM;
	}
	pmemram_config_free(config);
	if (ret == CTL_EXIT_SYSTEM) {
		json_object_put(applied);
		return ret;
	}

	if (args.json) {
		root = ctl_hotplug_json(&h, origin);
		ctl_apply_json(root, applied, args.dry_run, done);
		if (ctl_print_json(root, root != NULL) < 0)
			return CTL_EXIT_SYSTEM;
	} else {
		json_object_put(applied);
		if (args.apply)
			printf("%s\n", done);
		ctl_hotplug_print(&h, origin);
	}
	return ret != CTL_EXIT_OK ? ret : ctl_flush_stdout();
}
