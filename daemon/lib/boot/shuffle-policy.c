/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The page-shuffle policy: what pmemram wants on the kernel command line, and whether it is in force. */
#include <stdio.h>

#include "pmemram-private.h"
#include "pmemram-shuffle-policy.h"

static const char *const state_names[_PMEMRAM_SHUFFLE_POLICY_STATE_MAX] = {
	[PMEMRAM_SHUFFLE_POLICY_IN_EFFECT] = "in-effect",     [PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT] = "next-boot",
	[PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED] = "not-applied", [PMEMRAM_SHUFFLE_POLICY_NO_LOADER] = "no-boot-loader",
	[PMEMRAM_SHUFFLE_POLICY_IGNORED] = "ignored",	      [PMEMRAM_SHUFFLE_POLICY_FORCED_OFF] = "forced-off",
	[PMEMRAM_SHUFFLE_POLICY_UNSUPPORTED] = "unsupported",
};

static const char *const action_names[_PMEMRAM_SHUFFLE_NODE_ACTION_MAX] = {
	[PMEMRAM_SHUFFLE_NODE_KEEP] = "keep",
	[PMEMRAM_SHUFFLE_NODE_ENABLE] = "enable",
	[PMEMRAM_SHUFFLE_NODE_DISABLE] = "disable",
	[PMEMRAM_SHUFFLE_NODE_FORCED_OFF] = "forced-off",
};

const char *pmemram_shuffle_policy_state_to_string(enum pmemram_shuffle_policy_state s)
{
	return (unsigned)s < ELEMENTSOF(state_names) ? state_names[s] : NULL;
}

const char *pmemram_shuffle_node_action_to_string(enum pmemram_shuffle_node_action a)
{
	return (unsigned)a < ELEMENTSOF(action_names) ? action_names[a] : NULL;
}

/* As the kernel's kstrtobool(), which parses page_alloc.shuffle: the first one or two characters;
 * and "auto", the patched kernel's opt-in to the HMAT's requests. */
const char *pmemram_shuffle_param_normalize(const char *v)
{
	if (!v)
		return NULL;
	if (streq(v, "auto"))
		return "auto";
	switch (v[0]) {
	case '\0': /* bare "page_alloc.shuffle": the kernel passes no value, taken as true */
	case 'y':
	case 'Y':
	case 't':
	case 'T':
	case '1':
		return "1";
	case 'n':
	case 'N':
	case 'f':
	case 'F':
	case '0':
		return "0";
	case 'o':
	case 'O':
		if (v[1] == 'n' || v[1] == 'N')
			return "1";
		if (v[1] == 'f' || v[1] == 'F')
			return "0";
		return NULL;
	default:
		return NULL;
	}
}

static void set_param(char *buf, size_t size, bool present, const char *value)
{
	const char *n = present ? pmemram_shuffle_param_normalize(value) : NULL;

	snprintf(buf, size, "%s", !present ? "" : n ? n : value);
}

static bool any_direct_mapped(const struct pmemram_topology *t)
{
	struct pmemram_nodemask m;

	pmemram_topology_direct_mapped_nodes(t, &m);
	return pmemram_nodemask_weight(&m) > 0;
}

/* Whether the running kernel shuffles as want ("1"/"0") says; false when it cannot tell. */
static bool kernel_agrees(const struct pmemram_shuffle *k, const char *want)
{
	if (k->source == PMEMRAM_SHUFFLE_UNAVAILABLE)
		return streq(want, "0"); /* a kernel that cannot shuffle does not */
	return k->enabled == streq(want, "1");
}

/* Whether the policy wants a node with memory shuffled, on a kernel that switches nodes at runtime. */
static bool node_wanted(enum pmemram_config_shuffle policy, const struct pmemram_nodemask *nodes,
			const struct pmemram_shuffle_policy_node *n)
{
	switch (policy) {
	case PMEMRAM_CONFIG_SHUFFLE_ON:
		return true;
	case PMEMRAM_CONFIG_SHUFFLE_OFF:
		return false;
	case PMEMRAM_CONFIG_SHUFFLE_NODES:
		return pmemram_nodemask_test(nodes, (unsigned)n->node);
	default:
		/* auto: the kernel's own decision stands (HMAT, the command line, nothing), and a node the
		 * kernel has not decided yet (an HMAT request for memory just onlined) is left to it.  Only
		 * a node switched at runtime is put back: shuffled if it has a direct-mapped cache. */
		if (!streq(n->reason, "sysfs"))
			return n->enabled;
		return n->direct_mapped_cache;
	}
}

/* Each node of the kernel's, what it is and what it needs; the nodes each action applies to. */
static void evaluate_nodes(struct pmemram_shuffle_policy *p, const struct pmemram_nodemask *nodes,
			   const struct pmemram_shuffle *k, const struct pmemram_topology *t,
			   struct pmemram_nodemask by_action[static _PMEMRAM_SHUFFLE_NODE_ACTION_MAX],
			   struct pmemram_nodemask *shuffled)
{
	struct pmemram_nodemask dm;

	pmemram_topology_direct_mapped_nodes(t, &dm);
	for (size_t i = 0; i < k->n_nodes; i++) {
		const struct pmemram_node *tn = pmemram_topology_find_node(t, k->nodes[i].node);
		struct pmemram_shuffle_policy_node *n = &p->nodes[p->n_nodes++];

		n->node = k->nodes[i].node;
		n->enabled = k->nodes[i].enabled;
		snprintf(n->reason, sizeof(n->reason), "%s", k->nodes[i].reason);
		n->has_memory = tn && tn->has_memory;
		n->direct_mapped_cache = pmemram_nodemask_test(&dm, (unsigned)n->node);
		n->action = PMEMRAM_SHUFFLE_NODE_KEEP;
		n->wanted = node_wanted(p->policy, nodes, n);
		/* Enabling shuffles the node's free memory: only for a node with memory.  Disabling
		 * walks nothing, and keeps memory onlined later from being shuffled before pmemram
		 * sees it (page_alloc.shuffle=1 sets memoryless nodes too). */
		if (n->wanted && !n->enabled && n->has_memory)
			n->action = streq(n->reason, "forced-off") ? PMEMRAM_SHUFFLE_NODE_FORCED_OFF
								   : PMEMRAM_SHUFFLE_NODE_ENABLE;
		else if (!n->wanted && n->enabled)
			n->action = PMEMRAM_SHUFFLE_NODE_DISABLE;
		pmemram_nodemask_set(&by_action[n->action], (unsigned)n->node);
		if (n->enabled)
			pmemram_nodemask_set(shuffled, (unsigned)n->node);
	}
}

/* "1,3", "none", or the count when the list does not fit */
static const char *node_list(const struct pmemram_nodemask *m, char *buf, size_t size)
{
	if (pmemram_nodemask_weight(m) == 0)
		snprintf(buf, size, "none");
	else if (pmemram_nodemask_format(m, buf, size) < 0)
		snprintf(buf, size, "(%u of them)", pmemram_nodemask_weight(m));
	return buf;
}

/* A kernel that switches nodes at runtime: pmemram writes the nodes, nothing for the next boot. */
static void evaluate_live(struct pmemram_shuffle_policy *p, const struct pmemram_nodemask *nodes,
			  const struct pmemram_shuffle *k, const struct pmemram_topology *t, bool ours_present)
{
	struct pmemram_nodemask by_action[_PMEMRAM_SHUFFLE_NODE_ACTION_MAX] = {}, shuffled = {}, no_auto = {};
	char on[96], off[96], list[64], waiting[192] = "";

	p->live = true;
	p->remove_ours = ours_present;
	evaluate_nodes(p, nodes, k, t, by_action, &shuffled);
	/* The kernel's own "no": a node behind a direct-mapped cache, booted without the opt-in */
	for (size_t i = 0; i < p->n_nodes; i++)
		if (streq(p->nodes[i].reason, "hmat-no-auto"))
			pmemram_nodemask_set(&no_auto, (unsigned)p->nodes[i].node);
	if (pmemram_nodemask_weight(&no_auto) > 0)
		snprintf(waiting, sizeof(waiting),
			 "; nodes %s behind a direct-mapped cache are not shuffled: the kernel shuffles them with "
			 "page_alloc.shuffle=auto on its command line",
			 node_list(&no_auto, list, sizeof(list)));
	on[0] = off[0] = '\0';
	if (pmemram_nodemask_weight(&by_action[PMEMRAM_SHUFFLE_NODE_ENABLE]) > 0)
		snprintf(on, sizeof(on), "nodes %s to shuffle",
			 node_list(&by_action[PMEMRAM_SHUFFLE_NODE_ENABLE], list, sizeof(list)));
	if (pmemram_nodemask_weight(&by_action[PMEMRAM_SHUFFLE_NODE_DISABLE]) > 0)
		snprintf(off, sizeof(off), "nodes %s to stop shuffling",
			 node_list(&by_action[PMEMRAM_SHUFFLE_NODE_DISABLE], list, sizeof(list)));
	if (on[0] || off[0]) {
		p->state = PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED;
		snprintf(p->text, sizeof(p->text), "not applied: %s%s%s (run pmemramctl shuffle apply)", on,
			 on[0] && off[0] ? ", " : "", off);
	} else if (ours_present) {
		p->state = PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED;
		snprintf(p->text, sizeof(p->text),
			 "not applied: the kernel switches nodes at runtime, but pmemram's page_alloc.shuffle is still "
			 "in the boot configuration (run pmemramctl shuffle apply)");
	} else if (pmemram_nodemask_weight(&by_action[PMEMRAM_SHUFFLE_NODE_FORCED_OFF]) > 0) {
		p->state = PMEMRAM_SHUFFLE_POLICY_FORCED_OFF;
		snprintf(p->text, sizeof(p->text),
			 "nodes %s: forced off by page_alloc.shuffle=0 on the kernel command line",
			 node_list(&by_action[PMEMRAM_SHUFFLE_NODE_FORCED_OFF], list, sizeof(list)));
	} else {
		p->state = PMEMRAM_SHUFFLE_POLICY_IN_EFFECT;
		snprintf(p->text, sizeof(p->text), "in effect, switched at runtime: shuffled nodes %s%s",
			 node_list(&shuffled, list, sizeof(list)), waiting);
	}
}

int pmemram_shuffle_policy_evaluate(enum pmemram_config_shuffle policy, const struct pmemram_nodemask *nodes,
				    const struct pmemram_shuffle *kernel, const struct pmemram_topology *topology,
				    const char *cmdline, const struct pmemram_bootparam *boot,
				    struct pmemram_shuffle_policy *ret)
{
	_cleanup_(freep) char *running = NULL;
	struct pmemram_shuffle_policy *p = ret;
	bool ours_present, running_present;
	int r;

	if (!kernel || !cmdline || !boot || !ret || (unsigned)policy >= _PMEMRAM_CONFIG_SHUFFLE_MAX ||
	    (policy == PMEMRAM_CONFIG_SHUFFLE_NODES) != (nodes != NULL))
		return -EINVAL;
	r = pmemram_cmdline_get(cmdline, PMEMRAM_SHUFFLE_PARAM, &running);
	if (r < 0)
		return r;
	running_present = r > 0;

	/* Large (a slot per possible node): filled in place, untouched on the failures above. */
	memset(p, 0, sizeof(*p));
	p->policy = policy;
	if (nodes)
		p->list = *nodes;
	p->direct_mapped_cache = any_direct_mapped(topology);
	set_param(p->running, sizeof(p->running), running_present, running);
	set_param(p->next_boot, sizeof(p->next_boot), boot->param[0].present, boot->param[0].value);
	ours_present = boot->loader == PMEMRAM_BOOTLOADER_GRUB && boot->written_by_pmemram;
	if (kernel->per_node) {
		evaluate_live(p, nodes, kernel, topology, ours_present);
		return 0;
	}

	switch (policy) {
	case PMEMRAM_CONFIG_SHUFFLE_ON:
		p->want = "1";
		break;
	case PMEMRAM_CONFIG_SHUFFLE_OFF:
		p->want = "0";
		break;
	case PMEMRAM_CONFIG_SHUFFLE_NODES:
		break; /* page_alloc.shuffle cannot say which nodes */
	default:
		/* A patched kernel turns shuffling on for a direct-mapped cache by itself; a stock one
		 * needs the parameter for that. */
		if (kernel->source == PMEMRAM_SHUFFLE_PARAMETER && p->direct_mapped_cache)
			p->want = "1";
		break;
	}

	if (p->want && boot->loader == PMEMRAM_BOOTLOADER_NONE) {
		p->state = kernel_agrees(kernel, p->want) ? PMEMRAM_SHUFFLE_POLICY_IN_EFFECT
							  : PMEMRAM_SHUFFLE_POLICY_NO_LOADER;
		snprintf(p->text, sizeof(p->text), "%s",
			 p->state == PMEMRAM_SHUFFLE_POLICY_IN_EFFECT
				 ? "in effect, but no boot configuration (GRUB or /etc/kernel/cmdline) keeps it"
				 : "needs page_alloc.shuffle on the kernel command line, and no boot configuration "
				   "(GRUB or /etc/kernel/cmdline) was found to put it in");
	} else if (p->want ? !streq(p->next_boot, p->want) : ours_present) {
		p->state = PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED;
		if (p->want)
			snprintf(p->text, sizeof(p->text),
				 "not applied: the boot configuration does not say page_alloc.shuffle=%s "
				 "(run pmemramctl shuffle apply)",
				 p->want);
		else
			snprintf(p->text, sizeof(p->text),
				 "not applied: pmemram's page_alloc.shuffle is still in the boot configuration "
				 "(run pmemramctl shuffle apply)");
	} else if (policy == PMEMRAM_CONFIG_SHUFFLE_NODES) {
		p->state = PMEMRAM_SHUFFLE_POLICY_UNSUPPORTED;
		snprintf(p->text, sizeof(p->text),
			 "not possible: shuffle-nodes needs a kernel that switches shuffling per node "
			 "(/sys/devices/system/node/nodeN/shuffle), this one has none; nothing is written");
	} else if (!streq(p->running, p->next_boot)) {
		p->state = PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT;
		if (p->next_boot[0])
			snprintf(p->text, sizeof(p->text), "takes effect at next boot (page_alloc.shuffle=%s)",
				 p->next_boot);
		else
			snprintf(p->text, sizeof(p->text), "takes effect at next boot (no page_alloc.shuffle)");
	} else if (p->want && !kernel_agrees(kernel, p->want)) {
		p->state = PMEMRAM_SHUFFLE_POLICY_IGNORED;
		snprintf(p->text, sizeof(p->text), "page_alloc.shuffle=%s is in force but the kernel %s", p->want,
			 kernel->source == PMEMRAM_SHUFFLE_UNAVAILABLE
				 ? "cannot shuffle (no CONFIG_SHUFFLE_PAGE_ALLOCATOR)"
				 : "does not follow it");
	} else {
		p->state = PMEMRAM_SHUFFLE_POLICY_IN_EFFECT;
		if (p->want)
			snprintf(p->text, sizeof(p->text), "in effect (page_alloc.shuffle=%s)", p->want);
		else if (p->running[0])
			snprintf(p->text, sizeof(p->text),
				 "in effect: the kernel decides, but page_alloc.shuffle=%s on its command line "
				 "(not pmemram's) overrides its own decision",
				 p->running);
		else
			snprintf(p->text, sizeof(p->text), "in effect: %s",
				 kernel->source == PMEMRAM_SHUFFLE_SYSFS ? "the kernel decides (HMAT autodetection)"
				 : kernel->source == PMEMRAM_SHUFFLE_PARAMETER ? "no direct-mapped cache, nothing to do"
									       : "the kernel cannot shuffle");
	}
	return 0;
}

int pmemram_shuffle_policy_evaluate_config(const struct pmemram_config *c, const struct pmemram_shuffle *kernel,
					   const struct pmemram_topology *topology, const char *cmdline,
					   const struct pmemram_bootparam *boot, struct pmemram_shuffle_policy *ret)
{
	enum pmemram_config_shuffle policy;

	if (!c)
		return -EINVAL;
	policy = pmemram_config_shuffle_policy(c);
	return pmemram_shuffle_policy_evaluate(policy,
					       policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &c->shuffle_nodes : NULL,
					       kernel, topology, cmdline, boot, ret);
}

int pmemram_cmdline_read(struct pmemram_ctx *ctx, char **ret)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) char *line = NULL;
	size_t allocated = 0;
	ssize_t n;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, "cmdline", &f);
	if (r < 0)
		return r;
	errno = 0;
	n = getline(&line, &allocated, f);
	if (n < 0) {
		if (errno == 0) /* empty */
			return (*ret = strdup("")) ? 0 : -ENOMEM;
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, "cmdline");
		return -errno;
	}
	if (n > 0 && line[n - 1] == '\n')
		line[n - 1] = '\0';
	*ret = TAKE_PTR(line);
	return 0;
}
