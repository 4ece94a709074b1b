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

void ctl_shuffle_done(struct ctl_shuffle *s)
{
	s->topology = pmemram_topology_free(s->topology);
	free(s->cmdline);
	s->cmdline = NULL;
}

void ctl_shuffle_freep(struct ctl_shuffle **s)
{
	if (!*s)
		return;
	ctl_shuffle_done(*s);
	free(*s);
	*s = NULL;
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
	r = pmemram_bootparam_read(ctl_boot_root(), &pmemram_boot_shuffle, &s->boot);
	if (r < 0) {
		const char *root = ctl_boot_root_prefix();

		/* The reader does not say which file failed: name the ones it reads. */
		fprintf(stderr, "%s: cannot read the boot configuration (%s%s, %s%s or %s%s): %s\n",
			program_invocation_short_name, root, PMEMRAM_KERNEL_CMDLINE_PATH, root,
			PMEMRAM_GRUB_DEFAULT_PATH, root, pmemram_boot_shuffle.dropin, strerror(-r));
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

/* "nodes (shuffle-nodes = 0,2)" for the nodes policy, else its name */
const char *ctl_shuffle_policy_name(const struct pmemram_shuffle_policy *p, char *buf, size_t size)
{
	char list[64];

	if (p->policy != PMEMRAM_CONFIG_SHUFFLE_NODES)
		return pmemram_config_shuffle_to_string(p->policy);
	if (pmemram_nodemask_format(&p->list, list, sizeof(list)) < 0)
		snprintf(list, sizeof(list), "...");
	snprintf(buf, size, "nodes (shuffle-nodes = %s)", list);
	return buf;
}

/* One node on a kernel with the runtime switch: its state and what the policy needs of it. */
const char *ctl_shuffle_node_text(const struct pmemram_shuffle_policy_node *n, char *buf, size_t size)
{
	const char *need;

	switch (n->action) {
	case PMEMRAM_SHUFFLE_NODE_ENABLE:
		need = "to shuffle (pmemramctl shuffle apply)";
		break;
	case PMEMRAM_SHUFFLE_NODE_DISABLE:
		need = "to stop shuffling (pmemramctl shuffle apply)";
		break;
	case PMEMRAM_SHUFFLE_NODE_FORCED_OFF:
		need = "wanted, but forced off by page_alloc.shuffle=0 on the kernel command line";
		break;
	default:
		need = n->has_memory ? "in effect" : "no memory yet";
		break;
	}
	snprintf(buf, size, "%s (%s), %s", n->enabled ? "shuffled" : "not shuffled", n->reason, need);
	return buf;
}

void ctl_shuffle_print(const struct ctl_shuffle *s, const char *policy_origin, bool live_nodes)
{
	const struct pmemram_shuffle *k = &s->kernel;
	char name[96], text[160];

	switch (k->source) {
	case PMEMRAM_SHUFFLE_SYSFS:
		printf("Page shuffling: %s (reason %s, order %d)%s\n", k->enabled ? "enabled" : "disabled", k->reason,
		       k->order, k->per_node ? ", switched per node at runtime" : "");
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
	printf("  policy %s%s%s%s: %s\n", ctl_shuffle_policy_name(&s->policy, name, sizeof(name)),
	       policy_origin ? " (" : "", policy_origin ?: "", policy_origin ? ")" : "", s->policy.text);
	for (size_t i = 0; (live_nodes || !s->policy.live) && i < s->policy.n_nodes; i++)
		printf("  node%-3d %s\n", s->policy.nodes[i].node,
		       ctl_shuffle_node_text(&s->policy.nodes[i], text, sizeof(text)));
	printf("  command line: %s%s; ", s->policy.running[0] ? "page_alloc.shuffle=" : "no page_alloc.shuffle",
	       s->policy.running);
	if (s->boot.loader == PMEMRAM_BOOTLOADER_NONE)
		printf("next boot: no boot configuration found\n");
	else
		printf("next boot (%s, %s): %s%s\n", pmemram_bootloader_to_string(s->boot.loader), s->boot.path,
		       s->policy.next_boot[0] ? "page_alloc.shuffle=" : "no page_alloc.shuffle", s->policy.next_boot);
}

/* Per node of a kernel with the runtime switch: the kernel's state, and the policy's when known. */
static struct json_object *nodes_json(const struct ctl_shuffle *s)
{
	struct json_object *a = json_object_new_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < s->kernel.n_nodes; i++) {
		const struct pmemram_shuffle_node *k = &s->kernel.nodes[i];
		const struct pmemram_shuffle_policy_node *p =
			s->policy_r >= 0 && i < s->policy.n_nodes ? &s->policy.nodes[i] : NULL;
		struct json_object *o = json_object_new_object();

		ok = json_append(a, o);
		ok = ok && json_add(o, "node", json_object_new_int(k->node));
		ok = ok && json_add(o, "enabled", json_object_new_boolean(k->enabled));
		ok = ok && json_add(o, "reason", json_object_new_string(k->reason));
		ok = ok && (p && p->has_memory ? json_add(o, "wanted", json_object_new_boolean(p->wanted))
					       : json_add_null_value(o, "wanted"));
		ok = ok &&
		     json_add_string_or_null(o, "action", p ? pmemram_shuffle_node_action_to_string(p->action) : NULL);
		ok = ok && (p ? json_add(o, "has_memory", json_object_new_boolean(p->has_memory))
			      : json_add_null_value(o, "has_memory"));
	}
	if (!ok)
		json_object_putp(&a);
	return a;
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
	ok &= json_add(o, "per_node", json_object_new_boolean(k->per_node));
	ok &= json_add(o, "nodes", nodes_json(s));
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
	if (s->policy.policy == PMEMRAM_CONFIG_SHUFFLE_NODES) {
		char list[128];

		ok &= pmemram_nodemask_format(&s->policy.list, list, sizeof(list)) >= 0 &&
		      json_add(p, "shuffle_nodes", json_object_new_string(list));
	} else
		ok &= json_add_null_value(p, "shuffle_nodes");
	ok &= json_add_string_or_null(p, "set_at", policy_origin);
	ok &= json_add(p, "live", json_object_new_boolean(s->policy.live));
	ok &= json_add(p, "remove_boot_parameter", json_object_new_boolean(s->policy.remove_ours));
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
	       "Show the page allocator shuffling policy of pmemram.conf (shuffle = auto|on|off, or\n"
	       "shuffle-nodes = LIST) against the running kernel and the next boot's kernel command line.\n"
	       "With apply, on a kernel that switches nodes at runtime, write each node's\n"
	       "/sys/devices/system/node/nodeN/shuffle/enabled that differs; on others, write\n"
	       "page_alloc.shuffle into the boot configuration (/etc/kernel/cmdline, or a GRUB drop-in\n"
	       "followed by update-grub) so that the next boot follows the policy.\n"
	       "\n"
	       "  -h --help        Show this help\n"
	       "  -j --json        Print JSON\n"
	       "  -n --dry-run     Say what apply would change, change nothing\n"
	       "  -c --config DIR  Configuration directory (default $PMEMRAM_CONFIG_DIR or %s)\n",
	       program_invocation_short_name, program_invocation_short_name, PMEMRAM_CONFIG_DIR_DEFAULT);
}

/* Write want ("1", "0", or NULL to remove pmemram's) into the boot configuration; as apply(). */
static int write_boot(const char *want, struct json_object *out, const char **ret_done, bool *ret_changed)
{
	const char *values[PMEMRAM_BOOT_KEYS_MAX] = { want };

	return ctl_boot_write("shuffle apply", &pmemram_boot_shuffle, values, want, "page_alloc.shuffle", out, ret_done,
			      ret_changed);
}

/* A kernel with the runtime switch: write nodeN/shuffle/enabled of each node that differs, and
 * remove pmemram's page_alloc.shuffle from the boot configuration; each node in out's "nodes". */
static int apply_live(struct pmemram_ctx *ctx, const struct ctl_shuffle *s, bool dry_run, struct json_object *out,
		      const char **ret_done, bool *ret_changed)
{
	static char done[256];
	struct json_object *nodes = json_object_new_array();
	unsigned n_written = 0, n_failed = 0, n_forced = 0, n_would = 0;
	int ret = CTL_EXIT_OK, r;

	json_add(out, "nodes", json_object_get(nodes));
	for (size_t i = 0; i < s->policy.n_nodes; i++) {
		const struct pmemram_shuffle_policy_node *n = &s->policy.nodes[i];
		bool enable = n->action != PMEMRAM_SHUFFLE_NODE_DISABLE; /* forced-off: wanted on */
		struct json_object *o;
		const char *result;

		if (n->action == PMEMRAM_SHUFFLE_NODE_KEEP)
			continue;
		if (n->action == PMEMRAM_SHUFFLE_NODE_FORCED_OFF) {
			result = "forced-off";
			n_forced++;
			fprintf(stderr,
				"%s shuffle apply: node %d: forced off by page_alloc.shuffle=0 on the kernel command "
				"line, not switched\n",
				program_invocation_short_name, n->node);
		} else if (dry_run) {
			result = "would-write";
			n_would++;
		} else {
			r = pmemram_shuffle_node_write(ctx, n->node, enable);
			if (r >= 0) {
				result = "written";
				n_written++;
				*ret_changed = true;
			} else if (r == -EPERM) {
				result = "forced-off";
				n_forced++;
				fprintf(stderr,
					"%s shuffle apply: node %d: writing %d refused: forced off by "
					"page_alloc.shuffle=0 on the kernel command line\n",
					program_invocation_short_name, n->node, enable);
			} else {
				const char *path = pmemram_ctx_get_error_path(ctx);

				result = "failed";
				n_failed++;
				fprintf(stderr, "%s shuffle apply: node %d: cannot write %s: %s\n",
					program_invocation_short_name, n->node,
					path ? path : "its nodeN/shuffle/enabled", strerror(-r));
			}
		}
		o = json_object_new_object();
		json_add(o, "node", json_object_new_int(n->node));
		json_add(o, "write", json_object_new_string(enable ? "1" : "0"));
		json_add(o, "result", json_object_new_string(result));
		json_append(nodes, o);
	}
	json_object_put(nodes);
	json_add(out, "changed", json_object_new_boolean(*ret_changed));

	snprintf(done, sizeof(done), "%s", "nothing to change");
	if (n_would > 0)
		snprintf(done, sizeof(done), "would switch %u nodes at runtime", n_would);
	else if (n_written > 0)
		snprintf(done, sizeof(done), "switched %u nodes at runtime", n_written);
	if (n_forced + n_failed > 0) {
		size_t len = n_would + n_written > 0 ? strlen(done) : 0;

		snprintf(done + len, sizeof(done) - len, "%sfailed: %u nodes forced off, %u could not be written",
			 len > 0 ? "; " : "", n_forced, n_failed);
		ret = CTL_EXIT_FAILED;
	}
	*ret_done = done;
	if (!s->policy.remove_ours)
		return ret;
	if (dry_run) {
		size_t len = strlen(done);

		snprintf(done + len, sizeof(done) - len,
			 "; would remove pmemram's page_alloc.shuffle from the boot configuration");
		return ret;
	}
	r = write_boot(NULL, out, ret_done, ret_changed);
	if (r != CTL_EXIT_OK)
		return r;
	if (n_written + n_forced + n_failed > 0) {
		size_t len = strlen(done);

		snprintf(done + len, sizeof(done) - len, "; %s", *ret_done);
		*ret_done = done;
	}
	return ret;
}

/* *ret_done: one line on what happened; *ret_changed: a file was written or removed (even when a
 * later step failed), so the state is worth reading again. */
static int apply(struct pmemram_ctx *ctx, const struct ctl_shuffle *s, bool dry_run, struct json_object *out,
		 const char **ret_done, bool *ret_changed)
{
	const char *want = s->policy.want;

	*ret_done = "nothing to change";
	*ret_changed = false;
	if (s->policy.live) {
		int ret = apply_live(ctx, s, dry_run, out, ret_done, ret_changed), r;

		if (dry_run)
			return ret;
		/* A running pmemramd applies the policy it loaded at every reconcile: have it load this
		 * one, or it would switch the nodes back. */
		r = ctl_daemon_simple("reload", NULL, 60, NULL);
		json_add(out, "daemon",
			 json_object_new_string(r == 0		       ? "reloaded"
						: ctl_daemon_absent(r) ? "not-running"
								       : "refused"));
		if (r < 0 && !ctl_daemon_absent(r)) {
			fprintf(stderr,
				"%s shuffle apply: pmemramd did not reload the configuration (%s): it switches the "
				"nodes back to the policy it has ('systemctl reload pmemramd'; its log says why)\n",
				program_invocation_short_name, strerror(-r));
			ret = CTL_EXIT_FAILED;
		}
		return ret;
	}
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
	return write_boot(want, out, ret_done, ret_changed);
}

/* What apply_live() wrote (or would write), one line a node. */
static void print_applied_nodes(struct json_object *applied, bool dry_run)
{
	struct json_object *nodes, *o, *v;

	if (!applied || !json_object_object_get_ex(applied, "nodes", &nodes))
		return;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		const char *write, *result;
		int node;

		o = json_object_array_get_idx(nodes, i);
		node = json_object_object_get_ex(o, "node", &v) ? json_object_get_int(v) : -1;
		write = json_object_object_get_ex(o, "write", &v) ? json_object_get_string(v) : "?";
		result = json_object_object_get_ex(o, "result", &v) ? json_object_get_string(v) : "?";
		if (streq(result, "written") || streq(result, "would-write"))
			printf("node %d: %s %s to node%d/shuffle/enabled\n", node, dry_run ? "would write" : "wrote",
			       write, node);
		else
			printf("node %d: did not write %s to node%d/shuffle/enabled: %s\n", node, write, node, result);
	}
}

int cmd_shuffle(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	/* Two per-node tables of PMEMRAM_MAX_NODES entries, some 90 KiB: not on the stack. */
	_cleanup_(ctl_shuffle_freep) struct ctl_shuffle *s = NULL;
	struct pmemram_config *config = NULL;
	struct json_object *root = NULL, *applied = NULL;
	const char *done = NULL, *origin;
	bool configured;
	enum pmemram_config_shuffle policy;
	struct pmemram_nodemask nodes;
	char where[PATH_MAX + 16];
	struct ctl_apply_args args = { .json = g->json, .config_dir = ctl_config_dir() };
	int ret;

	ret = ctl_apply_args("shuffle", argc, argv, shuffle_help, &args);
	if (ret >= 0)
		return ret;

	ret = ctl_load_config(args.config_dir, true, &config, &configured);
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
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		return CTL_EXIT_SYSTEM;
	}
	ret = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &nodes : NULL, s);
	if (ret != CTL_EXIT_OK)
		return ret;
	if (s->policy_r < 0)
		return CTL_EXIT_SYSTEM; /* said why */

	if (args.apply) {
		bool changed;
		int r2;

		applied = json_object_new_object();
		ret = apply(ctx, s, args.dry_run, applied, &done, &changed);
		if (changed) {
			/* Show the state as it is now, also after a failed update tool. */
			ctl_shuffle_done(s);
			r2 = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &nodes : NULL, s);
			if (r2 != CTL_EXIT_OK || s->policy_r < 0) {
				json_object_put(applied);
				return r2 != CTL_EXIT_OK ? r2 : CTL_EXIT_SYSTEM;
			}
		}
	}

	if (args.json) {
		root = ctl_shuffle_json(s, origin);
		ctl_apply_json(root, applied, args.dry_run, done);
		if (ctl_print_json(root, root != NULL) < 0)
			return CTL_EXIT_SYSTEM;
	} else {
		print_applied_nodes(applied, args.dry_run);
		json_object_put(applied);
		if (args.apply)
			printf("%s\n", done);
		ctl_shuffle_print(s, origin, true);
	}
	return ret != CTL_EXIT_OK ? ret : ctl_flush_stdout();
}
