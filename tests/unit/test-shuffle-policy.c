/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the page-shuffle policy decision: policy x kernel x command lines x boot configuration. */
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
#include "pmemram-shuffle-policy.h"
#include "run-ctl.h"

static const struct pmemram_shuffle patched_on = { .source = PMEMRAM_SHUFFLE_SYSFS, .enabled = true, .reason = "hmat", .order = 10 };
static const struct pmemram_shuffle patched_off = { .source = PMEMRAM_SHUFFLE_SYSFS, .reason = "default-off", .order = 10 };
static const struct pmemram_shuffle patched_cmdline = { .source = PMEMRAM_SHUFFLE_SYSFS, .enabled = true, .reason = "cmdline", .order = 10 };
static const struct pmemram_shuffle patched_forced_off = { .source = PMEMRAM_SHUFFLE_SYSFS, .reason = "forced-off", .order = 10 };
static const struct pmemram_shuffle stock_off = { .source = PMEMRAM_SHUFFLE_PARAMETER, .reason = "parameter", .order = -1 };
static const struct pmemram_shuffle unavailable = { .source = PMEMRAM_SHUFFLE_UNAVAILABLE, .order = -1 };
static const struct pmemram_shuffle stock_on = { .source = PMEMRAM_SHUFFLE_PARAMETER, .enabled = true, .reason = "parameter", .order = -1 };

static struct pmemram_node cached_node = {
	.id = 1, .has_memory = true, .n_caches = 1,
	.caches = { { .level = 1, .size = 134217728, .line_size = 64, .indexing = PMEMRAM_CACHE_DIRECT_MAPPED } },
};
static struct pmemram_node plain_node = { .id = 0, .has_cpu = true, .has_memory = true };
static const struct pmemram_topology with_cache = { .n_nodes = 1, .nodes = &cached_node };
static const struct pmemram_topology without_cache = { .n_nodes = 1, .nodes = &plain_node };

static struct pmemram_bootparam boot(enum pmemram_bootloader loader, const char *value, bool ours)
{
	struct pmemram_bootparam b = { .loader = loader, .written_by_pmemram = ours };

	strcpy(b.path, loader == PMEMRAM_BOOTLOADER_GRUB ? "/etc/default/grub.d/60-pmemram.cfg" : "/etc/kernel/cmdline");
	if (value) {
		b.param[0].present = true;
		strcpy(b.param[0].value, value);
	}
	return b;
}

struct policy_case {
	const char *name;
	enum pmemram_config_shuffle policy;
	const struct pmemram_shuffle *kernel;
	const struct pmemram_topology *topology;
	const char *cmdline;
	enum pmemram_bootloader loader;
	const char *next_boot; /* NULL: not set */
	bool ours;
	/* expected */
	const char *want;
	enum pmemram_shuffle_policy_state state;
	const char *running, *next;
	const char *text; /* a part of the sentence */
};

#define K PMEMRAM_BOOTLOADER_KERNEL_CMDLINE
#define G PMEMRAM_BOOTLOADER_GRUB
#define N PMEMRAM_BOOTLOADER_NONE
#define AUTO PMEMRAM_CONFIG_SHUFFLE_AUTO
#define ON PMEMRAM_CONFIG_SHUFFLE_ON
#define OFF PMEMRAM_CONFIG_SHUFFLE_OFF

static const struct policy_case cases[] = {
	{ "auto, patched kernel decided by HMAT", AUTO, &patched_on, &with_cache, "root=/dev/vda quiet", K, NULL, false,
	  NULL, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "", "", "HMAT autodetection" },
	{ "on, nothing written yet", ON, &patched_off, &without_cache, "root=/dev/vda", K, NULL, false, "1",
	  PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, "", "", "pmemramctl shuffle apply" },
	{ "on, written, not booted", ON, &patched_off, &without_cache, "root=/dev/vda", K, "1", true, "1",
	  PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT, "", "1", "takes effect at next boot (page_alloc.shuffle=1)" },
	{ "on, booted with it (y is 1)", ON, &patched_cmdline, &without_cache, "root=/dev/vda page_alloc.shuffle=y", G,
	  "1", true, "1", PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "1", "1", "in effect (page_alloc.shuffle=1)" },
	{ "off overrides HMAT at next boot", OFF, &patched_on, &with_cache, "root=/dev/vda", K, "0", true, "0",
	  PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT, "", "0", "takes effect at next boot" },
	{ "off, booted with it", OFF, &patched_forced_off, &with_cache, "page_alloc.shuffle=0 root=/dev/vda", K, "0", true,
	  "0", PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "0", "0", "in effect" },
	{ "off in force but the kernel shuffles", OFF, &patched_on, &with_cache, "page_alloc.shuffle=off", K, "off", true,
	  "0", PMEMRAM_SHUFFLE_POLICY_IGNORED, "0", "0", "does not follow it" },
	{ "later words win", ON, &patched_cmdline, &without_cache, "page_alloc.shuffle=0 page_alloc.shuffle=1", K, "1",
	  true, "1", PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "1", "1", "in effect" },
	{ "on, no boot loader, kernel off", ON, &patched_off, &without_cache, "root=/dev/vda", N, NULL, false, "1",
	  PMEMRAM_SHUFFLE_POLICY_NO_LOADER, "", "", "no boot configuration" },
	{ "on, no boot loader, kernel on", ON, &patched_cmdline, &without_cache, "page_alloc.shuffle", N, NULL, false, "1",
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "1", "", "no boot configuration (GRUB or /etc/kernel/cmdline) keeps it" },
	{ "auto, stock kernel, direct-mapped cache", AUTO, &stock_off, &with_cache, "root=/dev/vda", G, NULL, false, "1",
	  PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, "", "", "does not say page_alloc.shuffle=1" },
	{ "auto, stock kernel, booted with it", AUTO, &stock_on, &with_cache, "page_alloc.shuffle=1", G, "1", true, "1",
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "1", "1", "in effect" },
	{ "auto, stock kernel, no cache", AUTO, &stock_off, &without_cache, "root=/dev/vda", G, NULL, false, NULL,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "", "", "nothing to do" },
	{ "auto after on: pmemram's drop-in still there", AUTO, &patched_on, &with_cache, "page_alloc.shuffle=1", G, "1",
	  true, NULL, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, "1", "1", "still in the boot configuration" },
	{ "auto after on: removed, not booted", AUTO, &patched_cmdline, &with_cache, "page_alloc.shuffle=1", G, NULL,
	  false, NULL, PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT, "1", "", "takes effect at next boot (no page_alloc.shuffle)" },
	{ "auto, the administrator's own parameter", AUTO, &patched_forced_off, &with_cache, "page_alloc.shuffle=0", K,
	  "0", true, NULL, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "0", "0", "(not pmemram's) overrides" },
	{ "off on a kernel that cannot shuffle", OFF, &unavailable, &with_cache, "page_alloc.shuffle=0", K, "0", true, "0",
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, "0", "0", "in effect" },
	{ "on on a kernel that cannot shuffle", ON, &unavailable, &with_cache, "page_alloc.shuffle=1", K, "1", true, "1",
	  PMEMRAM_SHUFFLE_POLICY_IGNORED, "1", "1", "cannot shuffle" },
	{ "unparsable value kept raw", ON, &patched_off, &without_cache, "page_alloc.shuffle=maybe", K, "maybe", true,
	  "1", PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, "maybe", "maybe", "pmemramctl shuffle apply" },
};

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		const struct policy_case *c = &cases[i];
		struct pmemram_bootparam b = boot(c->loader, c->next_boot, c->ours);
		struct pmemram_shuffle_policy p;

		print_message("case: %s\n", c->name);
		assert_int_equal(pmemram_shuffle_policy_evaluate(c->policy, NULL, c->kernel, c->topology, c->cmdline,
								 &b, &p),
				 0);
		assert_true(streq_ptr(p.want, c->want));
		assert_string_equal(pmemram_shuffle_policy_state_to_string(p.state),
				    pmemram_shuffle_policy_state_to_string(c->state));
		assert_string_equal(p.running, c->running);
		assert_string_equal(p.next_boot, c->next);
		if (!strstr(p.text, c->text))
			fail_msg("text \"%s\" lacks \"%s\"", p.text, c->text);
		assert_int_equal(p.direct_mapped_cache, c->topology == &with_cache);
	}
}

/* ---- a kernel that switches nodes at runtime ------------------------------------------------- */

/* node 0 DRAM and CPUs, node 1 memory behind a direct-mapped cache, node 2 without memory (yet) */
static struct pmemram_node live_nodes[] = {
	{ .id = 0, .has_cpu = true, .has_memory = true },
	{ .id = 1,
	  .has_memory = true,
	  .n_caches = 1,
	  .caches = { { .level = 1, .size = 134217728, .line_size = 64, .indexing = PMEMRAM_CACHE_DIRECT_MAPPED } } },
	{ .id = 2 },
};
static const struct pmemram_topology live_topology = { .n_nodes = 3, .nodes = live_nodes };

struct live_case {
	const char *name;
	enum pmemram_config_shuffle policy;
	const char *list;      /* shuffle-nodes, with NODES */
	const char *kernel[3]; /* each node: "1 REASON" or "0 REASON" */
	const char *cmdline;
	bool ours; /* pmemram's GRUB drop-in with page_alloc.shuffle=1 is there */
	/* expected */
	enum pmemram_shuffle_policy_state state;
	const char *actions[3];
	int wanted[3]; /* -1: no memory, not asked */
	const char *text;
};

#define NODES PMEMRAM_CONFIG_SHUFFLE_NODES
#define HMAT_BOOT                                          \
	{                                                  \
		"0 default-off", "1 hmat", "0 default-off" \
	}
#define KEEP3                          \
	{                              \
		"keep", "keep", "keep" \
	}

/* clang-format off */
static const struct live_case live_cases[] = {
	{ "auto, the kernel decided by HMAT", AUTO, NULL, HMAT_BOOT, "root=/dev/vda", false,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 1, -1 }, "in effect, switched at runtime: shuffled nodes 1" },
	{ "auto, the kernel booted without its opt-in: its no stands, and status says so", AUTO, NULL,
	  { "0 default-off", "0 hmat-no-auto", "0 default-off" }, "root=/dev/vda", false,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 0, -1 },
	  "shuffled nodes none; nodes 1 behind a direct-mapped cache are not shuffled: the kernel shuffles them with "
	  "page_alloc.shuffle=auto on its command line" },
	{ "auto, booted with the opt-in", AUTO, NULL, HMAT_BOOT, "root=/dev/vda page_alloc.shuffle=auto", false,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 1, -1 }, "in effect, switched at runtime: shuffled nodes 1" },
	{ "auto, the cached node switched off at runtime", AUTO, NULL, { "0 default-off", "0 sysfs", "0 default-off" },
	  "", false, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, { "keep", "enable", "keep" }, { 0, 1, -1 },
	  "not applied: nodes 1 to shuffle (run pmemramctl shuffle apply)" },
	{ "auto, a node without a cache switched on at runtime", AUTO, NULL, { "1 sysfs", "1 hmat", "0 default-off" }, "",
	  false, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, { "disable", "keep", "keep" }, { 0, 1, -1 },
	  "nodes 0 to stop shuffling" },
	{ "auto, page_alloc.shuffle=1 shuffles all: the kernel's choice", AUTO, NULL,
	  { "1 cmdline", "1 cmdline", "1 cmdline" }, "page_alloc.shuffle=1", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT,
	  KEEP3, { 1, 1, -1 }, "shuffled nodes 0-2" },
	{ "auto, forced off: respected", AUTO, NULL, { "0 forced-off", "0 forced-off", "0 forced-off" },
	  "page_alloc.shuffle=0", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 0, -1 }, "shuffled nodes none" },
	{ "auto, pmemram's old drop-in is still there", AUTO, NULL, HMAT_BOOT, "page_alloc.shuffle=1", true,
	  PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, KEEP3, { 0, 1, -1 }, "pmemram's page_alloc.shuffle is still in the boot" },
	{ "on: every node with memory", ON, NULL, HMAT_BOOT, "", false, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED,
	  { "enable", "keep", "keep" }, { 1, 1, -1 }, "nodes 0 to shuffle" },
	{ "on, applied", ON, NULL, { "1 sysfs", "1 hmat", "0 default-off" }, "", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT,
	  KEEP3, { 1, 1, -1 }, "shuffled nodes 0-1" },
	{ "on, forced off by the command line", ON, NULL, { "0 forced-off", "0 forced-off", "0 forced-off" },
	  "page_alloc.shuffle=0", false, PMEMRAM_SHUFFLE_POLICY_FORCED_OFF, { "forced-off", "forced-off", "keep" },
	  { 1, 1, -1 }, "nodes 0-1: forced off by page_alloc.shuffle=0 on the kernel command line" },
	{ "off: none, even the kernel's own choice, and node 2 before it has memory", OFF, NULL,
	  { "1 cmdline", "1 cmdline", "1 cmdline" }, "page_alloc.shuffle=1", false, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED,
	  { "disable", "disable", "disable" }, { 0, 0, -1 }, "nodes 0-2 to stop shuffling" },
	{ "auto, the cached node not decided yet (an HMAT request pending): left to the kernel", AUTO, NULL,
	  { "0 default-off", "0 default-off", "0 default-off" }, "", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3,
	  { 0, 0, -1 }, "shuffled nodes none" },
	{ "off, forced off: in effect", OFF, NULL, { "0 forced-off", "0 forced-off", "0 forced-off" },
	  "page_alloc.shuffle=0", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 0, -1 }, "in effect" },
	{ "nodes 0: the cached node off, DRAM on", NODES, "0", HMAT_BOOT, "", false, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED,
	  { "enable", "disable", "keep" }, { 1, 0, -1 }, "nodes 0 to shuffle, nodes 1 to stop shuffling" },
	{ "nodes 0, applied", NODES, "0", { "1 sysfs", "0 sysfs", "0 default-off" }, "", false,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 1, 0, -1 }, "shuffled nodes 0" },
	{ "nodes 1-2: node 2 gets its state with its memory", NODES, "1-2", HMAT_BOOT, "", false,
	  PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 1, -1 }, "in effect" },
	{ "nodes 0-1, forced off", NODES, "0-1", { "0 forced-off", "0 forced-off", "0 forced-off" },
	  "page_alloc.shuffle=0", false, PMEMRAM_SHUFFLE_POLICY_FORCED_OFF, { "forced-off", "forced-off", "keep" },
	  { 1, 1, -1 }, "forced off" },
	{ "nodes 1 under forced-off, node 1 on: nothing to do", NODES, "1", { "0 forced-off", "1 sysfs", "0 forced-off" },
	  "page_alloc.shuffle=0", false, PMEMRAM_SHUFFLE_POLICY_IN_EFFECT, KEEP3, { 0, 1, -1 }, "shuffled nodes 1" },
};
/* clang-format on */

static void live_kernel(const struct live_case *c, struct pmemram_shuffle *k)
{
	memset(k, 0, sizeof(*k));
	k->source = PMEMRAM_SHUFFLE_SYSFS;
	k->order = 10;
	k->per_node = true;
	for (int n = 0; n < 3; n++) {
		k->nodes[n].node = n;
		k->nodes[n].enabled = c->kernel[n][0] == '1';
		snprintf(k->nodes[n].reason, sizeof(k->nodes[n].reason), "%s", c->kernel[n] + 2);
		k->enabled |= k->nodes[n].enabled;
	}
	k->n_nodes = 3;
	snprintf(k->reason, sizeof(k->reason), "%s", k->nodes[1].reason);
}

static void test_live_cases(void **state)
{
	static struct pmemram_shuffle k;
	static struct pmemram_shuffle_policy p;

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(live_cases); i++) {
		const struct live_case *c = &live_cases[i];
		struct pmemram_bootparam b = boot(G, c->ours ? "1" : NULL, c->ours);
		struct pmemram_nodemask list;

		print_message("case: %s\n", c->name);
		live_kernel(c, &k);
		if (c->list)
			assert_int_equal(pmemram_parse_range_list(c->list, &list), 0);
		assert_int_equal(pmemram_shuffle_policy_evaluate(c->policy, c->list ? &list : NULL, &k, &live_topology,
								 c->cmdline, &b, &p),
				 0);
		assert_true(p.live);
		/* pmemram wants nothing of its own in the boot configuration of such a kernel */
		assert_null(p.want);
		assert_int_equal(p.remove_ours, c->ours);
		assert_string_equal(pmemram_shuffle_policy_state_to_string(p.state),
				    pmemram_shuffle_policy_state_to_string(c->state));
		if (!strstr(p.text, c->text))
			fail_msg("text \"%s\" lacks \"%s\"", p.text, c->text);
		assert_int_equal(p.n_nodes, 3);
		for (int n = 0; n < 3; n++) {
			assert_int_equal(p.nodes[n].node, n);
			assert_int_equal(p.nodes[n].enabled, k.nodes[n].enabled);
			assert_string_equal(p.nodes[n].reason, k.nodes[n].reason);
			assert_int_equal(p.nodes[n].has_memory, c->wanted[n] >= 0);
			assert_int_equal(p.nodes[n].direct_mapped_cache, n == 1);
			if (c->wanted[n] >= 0)
				assert_int_equal(p.nodes[n].wanted, c->wanted[n]);
			assert_string_equal(pmemram_shuffle_node_action_to_string(p.nodes[n].action), c->actions[n]);
		}
	}
}

/* A node list too long for the sentence is given as a count, never as "none". */
static void test_live_long_list(void **state)
{
	static struct pmemram_shuffle k;
	static struct pmemram_shuffle_policy p;
	struct pmemram_bootparam b = boot(G, NULL, false);

	(void)state;
	memset(&k, 0, sizeof(k));
	k.source = PMEMRAM_SHUFFLE_SYSFS;
	k.per_node = true;
	for (int n = 0; n < 80; n++) {
		k.nodes[n].node = 2 * n; /* every other node: no range to shorten the list */
		k.nodes[n].enabled = true;
		snprintf(k.nodes[n].reason, sizeof(k.nodes[n].reason), "cmdline");
	}
	k.n_nodes = 80;
	assert_int_equal(pmemram_shuffle_policy_evaluate(PMEMRAM_CONFIG_SHUFFLE_OFF, NULL, &k, &live_topology,
							 "page_alloc.shuffle=1", &b, &p),
			 0);
	assert_int_equal(p.state, PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED);
	if (!strstr(p.text, "nodes (80 of them) to stop shuffling"))
		fail_msg("text \"%s\"", p.text);
}

/* shuffle-nodes on kernels without the switch per node: nothing can be written for it. */
static void test_nodes_without_switch(void **state)
{
	static struct pmemram_shuffle_policy p;
	struct pmemram_nodemask list = {};
	struct pmemram_bootparam b = boot(G, NULL, false), ours = boot(G, "1", true);

	(void)state;
	pmemram_nodemask_set(&list, 1);
	assert_int_equal(pmemram_shuffle_policy_evaluate(NODES, &list, &patched_on, &with_cache, "", &b, &p), 0);
	assert_false(p.live);
	assert_null(p.want);
	assert_int_equal(p.n_nodes, 0);
	assert_string_equal(pmemram_shuffle_policy_state_to_string(p.state), "unsupported");
	assert_non_null(strstr(p.text, "shuffle-nodes needs a kernel that switches shuffling per node"));
	assert_int_equal(pmemram_shuffle_policy_evaluate(NODES, &list, &stock_on, &with_cache, "page_alloc.shuffle=1",
							 &ours, &p),
			 0);
	assert_string_equal(pmemram_shuffle_policy_state_to_string(p.state), "not-applied");
	assert_non_null(strstr(p.text, "pmemram's page_alloc.shuffle is still in the boot configuration"));
	/* the list goes with the nodes policy, and only with it */
	assert_int_equal(pmemram_shuffle_policy_evaluate(NODES, NULL, &patched_on, &with_cache, "", &b, &p), -EINVAL);
	assert_int_equal(pmemram_shuffle_policy_evaluate(ON, &list, &patched_on, &with_cache, "", &b, &p), -EINVAL);
	assert_null(pmemram_shuffle_node_action_to_string(_PMEMRAM_SHUFFLE_NODE_ACTION_MAX));
	assert_string_equal(pmemram_shuffle_policy_state_to_string(PMEMRAM_SHUFFLE_POLICY_FORCED_OFF), "forced-off");
}

static void test_normalize(void **state)
{
	(void)state;
	assert_string_equal(pmemram_shuffle_param_normalize(""), "1");
	assert_string_equal(pmemram_shuffle_param_normalize("1"), "1");
	assert_string_equal(pmemram_shuffle_param_normalize("Y"), "1");
	assert_string_equal(pmemram_shuffle_param_normalize("true"), "1");
	assert_string_equal(pmemram_shuffle_param_normalize("on"), "1");
	assert_string_equal(pmemram_shuffle_param_normalize("0"), "0");
	assert_string_equal(pmemram_shuffle_param_normalize("n"), "0");
	assert_string_equal(pmemram_shuffle_param_normalize("Off"), "0");
	assert_null(pmemram_shuffle_param_normalize("o"));
	assert_string_equal(pmemram_shuffle_param_normalize("auto"), "auto");
	assert_null(pmemram_shuffle_param_normalize("automatic"));
	assert_null(pmemram_shuffle_param_normalize("2"));
	assert_null(pmemram_shuffle_param_normalize(NULL));
}

static void test_invalid(void **state)
{
	struct pmemram_bootparam b = boot(K, NULL, false);
	struct pmemram_shuffle_policy p;

	(void)state;
	assert_int_equal(pmemram_shuffle_policy_evaluate(_PMEMRAM_CONFIG_SHUFFLE_MAX, NULL, &patched_on, &with_cache,
							 "", &b, &p),
			 -EINVAL);
	assert_int_equal(pmemram_shuffle_policy_evaluate(ON, NULL, NULL, &with_cache, "", &b, &p), -EINVAL);
	assert_int_equal(pmemram_shuffle_policy_evaluate(ON, NULL, &patched_on, &with_cache, NULL, &b, &p), -EINVAL);
	assert_null(pmemram_shuffle_policy_state_to_string(_PMEMRAM_SHUFFLE_POLICY_STATE_MAX));
}


/* ---- pmemramctl shuffle and status on the fake HMAT machine ---------------------------------- */

static void cli_setup(struct boot_cli *c, void **state, const char *policy)
{
	boot_cli_setup(c, state);
	assert_int_equal(fake_sysfs_write(c->config, "pmemram.conf", "[global]\nshuffle = %s\n", policy), 0);
}

static void test_cli_kernel_cmdline(void **state)
{
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "off");
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline", "root=/dev/vda quiet\n"), 0);

	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "reason"), "hmat");
	assert_string_equal(json_string_at(j, "policy.state"), "not-applied");
	assert_string_equal(json_string_at(j, "policy.wanted_parameter"), "0");
	assert_string_equal(json_string_at(j, "policy.set_at"), "pmemram.conf:2");
	assert_string_equal(json_string_at(j, "policy.boot_configuration.loader"), "kernel-cmdline");
	assert_null(json_at(j, "policy.next_boot_parameter"));
	json_object_put(j);

	/* A dry run changes nothing. */
	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "apply", "--dry-run", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "apply.dry_run"));
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"), "root=/dev/vda quiet");

	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "apply.changed"));
	assert_string_equal(json_string_at(j, "policy.state"), "next-boot");
	assert_string_equal(json_string_at(j, "policy.next_boot_parameter"), "0");
	assert_non_null(strstr(json_string_at(j, "policy.text"), "takes effect at next boot"));
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"), "root=/dev/vda quiet page_alloc.shuffle=0");

	/* Again: nothing to change; status shows it per node. */
	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "apply.result"), "nothing to change");
	json_object_put(j);
	j = boot_cli_json(&c, NULL, (const char *const[]){ "status", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "shuffle.policy.state"), "next-boot");
	assert_int_equal(json_int_at(j, "nodes.1.node"), 1);
	assert_true(json_bool_at(j, "nodes.1.shuffle.direct_mapped"));
	assert_int_equal(json_int_at(j, "nodes.1.shuffle.cache_size_bytes"), 134217728);
	assert_true(json_bool_at(j, "nodes.1.shuffle.shuffled"));
	assert_string_equal(json_string_at(j, "nodes.1.shuffle.pending"), "next-boot");
	assert_false(json_bool_at(j, "nodes.0.shuffle.cache_present"));
	assert_null(json_at(j, "nodes.0.shuffle.cache_size_bytes"));
	json_object_put(j);

	/* The booted kernel agreeing (forced off by the parameter): in effect. */
	assert_int_equal(fake_sysfs_write(c.env->proc, "cmdline", "root=/dev/vda quiet page_alloc.shuffle=0\n"), 0);
	assert_int_equal(fake_sysfs_write(c.env->root, "kernel/mm/shuffle/enabled", "0\n"), 0);
	assert_int_equal(fake_sysfs_write(c.env->root, "kernel/mm/shuffle/reason", "forced-off\n"), 0);
	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "policy.state"), "in-effect");
	assert_false(json_bool_at(j, "policy.pending"));
	json_object_put(j);
	boot_cli_done(&c);
}

static void test_cli_grub(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char update[600], script[512], marker[512];
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "on");
	assert_int_equal(fake_sysfs_write(c.boot, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"), 0);
	snprintf(script, sizeof(script), "%s/update-grub", c.boot);
	snprintf(marker, sizeof(marker), "%s/ran", c.boot);
	assert_int_equal(fake_sysfs_write(c.boot, "update-grub", "#!/bin/sh\necho ran >\"%s\"\n", marker), 0);
	assert_int_equal(chmod(script, 0755), 0);
	snprintf(update, sizeof(update), "PMEMRAM_BOOT_UPDATE_COMMAND=%s", script);

	j = boot_cli_json(&c, update, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "apply.update_command"), "update-grub");
	assert_int_equal(json_int_at(j, "apply.update_status"), 0);
	assert_string_equal(json_string_at(j, "policy.boot_configuration.loader"), "grub");
	assert_string_equal(json_string_at(j, "policy.next_boot_parameter"), "1");
	assert_string_equal(json_string_at(j, "policy.state"), "next-boot");
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.boot, "ran"), "ran");

	/* Back to auto on a kernel that decides itself: pmemram's drop-in has to go. */
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nshuffle = auto\n"), 0);
	j = boot_cli_json(&c, update, (const char *const[]){ "shuffle", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "policy.state"), "not-applied");
	json_object_put(j);
	run = boot_cli_run(&c, update, (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "removed pmemram's page_alloc.shuffle"));
	assert_non_null(strstr(run->out, "in effect"));
	assert_string_equal(fake_sysfs_read(c.boot, "etc/default/grub.d/60-pmemram.cfg"), "<absent>");
	boot_cli_done(&c);
}

static void test_cli_errors(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct boot_cli c;

	/* No boot configuration at all: apply cannot do what the policy needs. */
	cli_setup(&c, state, "on");
	assert_int_equal(fake_sysfs_write(c.env->root, "kernel/mm/shuffle/enabled", "0\n"), 0);
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "no boot configuration (GRUB or /etc/kernel/cmdline) was found"));
	free(TAKE_PTR(run));

	/* A failing update tool: the file is written, the failure named. */
	assert_int_equal(fake_sysfs_write(c.boot, "etc/default/grub", "GRUB_CMDLINE_LINUX=\"\"\n"), 0);
	run = boot_cli_run(&c, "PMEMRAM_BOOT_UPDATE_COMMAND=/bin/false",
			   (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "wrote /etc/default/grub.d/60-pmemram.cfg, but false failed (exit status 1)"));
	free(TAKE_PTR(run));

	/* An unwritable place is named. */
	assert_int_equal(fake_sysfs_remove(c.boot, "etc/default"), 0);
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline", "quiet\n"), 0);
	assert_int_equal(fake_sysfs_remove(c.boot, "etc/kernel/cmdline"), 0);
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline/x", "a directory in the way\n"), 0);
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_not_equal(run->status, 0);
	assert_non_null(strstr(run->err, "/etc/kernel/cmdline"));
	free(TAKE_PTR(run));

	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "--dry-run", NULL });
	assert_int_equal(run->status, 64);
	assert_non_null(strstr(run->err, "--dry-run goes with apply"));
	free(TAKE_PTR(run));
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "now", NULL });
	assert_int_equal(run->status, 64);
	boot_cli_done(&c);
}

/* A kernel that switches nodes at runtime (node 1 shuffled by HMAT): apply writes the nodes. */
static void test_cli_live(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "auto");
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nshuffle-nodes = 0\n"), 0);
	assert_int_equal(fake_sysfs_write(c.boot, "etc/kernel/cmdline", "root=/dev/vda quiet\n"), 0);

	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "per_node"));
	assert_string_equal(json_string_at(j, "policy.policy"), "nodes");
	assert_string_equal(json_string_at(j, "policy.shuffle_nodes"), "0");
	assert_true(json_bool_at(j, "policy.live"));
	assert_null(json_at(j, "policy.wanted_parameter"));
	assert_string_equal(json_string_at(j, "policy.state"), "not-applied");
	assert_int_equal(json_int_at(j, "nodes.0.node"), 0);
	assert_false(json_bool_at(j, "nodes.0.enabled"));
	assert_true(json_bool_at(j, "nodes.0.wanted"));
	assert_string_equal(json_string_at(j, "nodes.0.action"), "enable");
	assert_true(json_bool_at(j, "nodes.1.enabled"));
	assert_string_equal(json_string_at(j, "nodes.1.reason"), "hmat");
	assert_false(json_bool_at(j, "nodes.1.wanted"));
	assert_string_equal(json_string_at(j, "nodes.1.action"), "disable");
	json_object_put(j);

	/* A dry run says what it would write and writes nothing. */
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "apply", "--dry-run", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "node 0: would write 1 to node0/shuffle/enabled"));
	assert_non_null(strstr(run->out, "node 1: would write 0 to node1/shuffle/enabled"));
	assert_non_null(strstr(run->out, "would switch 2 nodes at runtime"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node0/shuffle/enabled"), "0");
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node1/shuffle/enabled"), "1");

	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "apply.changed"));
	assert_int_equal(json_int_at(j, "apply.nodes.0.node"), 0);
	assert_string_equal(json_string_at(j, "apply.nodes.0.write"), "1");
	assert_string_equal(json_string_at(j, "apply.nodes.0.result"), "written");
	assert_string_equal(json_string_at(j, "apply.nodes.1.write"), "0");
	/* No pmemramd to reload in this test: said so. */
	assert_string_equal(json_string_at(j, "apply.daemon"), "not-running");
	assert_null(json_at(j, "apply.nodes.2"));
	assert_string_equal(json_string_at(j, "policy.state"), "in-effect");
	assert_string_equal(json_string_at(j, "nodes.0.action"), "keep");
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node0/shuffle/enabled"), "1");
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node1/shuffle/enabled"), "0");
	/* nothing for the next boot on such a kernel */
	assert_string_equal(fake_sysfs_read(c.boot, "etc/kernel/cmdline"), "root=/dev/vda quiet");

	/* Per node "in effect", in status too. */
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "policy nodes (shuffle-nodes = 0) (pmemram.conf:2): in effect"));
	assert_non_null(strstr(run->out, "node0   shuffled (default-off), in effect"));
	assert_non_null(strstr(run->out, "node2   not shuffled (default-off), in effect"));
	assert_null(strstr(run->out, "takes effect at next boot"));
	free(TAKE_PTR(run));
	j = boot_cli_json(&c, NULL, (const char *const[]){ "status", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "nodes.0.shuffle.shuffled"));
	assert_false(json_bool_at(j, "nodes.1.shuffle.shuffled"));
	assert_false(json_bool_at(j, "nodes.1.shuffle.wanted"));
	assert_string_equal(json_string_at(j, "nodes.1.shuffle.action"), "keep");
	assert_null(json_at(j, "nodes.1.shuffle.pending"));
	assert_string_equal(json_string_at(j, "shuffle.policy.state"), "in-effect");
	json_object_put(j);

	/* Back to auto, the kernel having said "sysfs" for both: each goes back. */
	assert_int_equal(fake_sysfs_write(c.env->root, "devices/system/node/node0/shuffle/reason", "sysfs\n"), 0);
	assert_int_equal(fake_sysfs_write(c.env->root, "devices/system/node/node1/shuffle/reason", "sysfs\n"), 0);
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nshuffle = auto\n"), 0);
	j = boot_cli_json(&c, NULL, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_string_equal(json_string_at(j, "apply.nodes.0.write"), "0");
	assert_string_equal(json_string_at(j, "apply.nodes.1.write"), "1");
	json_object_put(j);
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node0/shuffle/enabled"), "0");
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node1/shuffle/enabled"), "1");

	/* Forced off by the command line: reported per node, nothing written, apply fails. */
	assert_int_equal(fake_sysfs_write(c.config, "pmemram.conf", "[global]\nshuffle = on\n"), 0);
	for (int n = 0; n <= 2; n++) {
		char path[64];

		snprintf(path, sizeof(path), "devices/system/node/node%d/shuffle/enabled", n);
		assert_int_equal(fake_sysfs_write(c.env->root, path, "0\n"), 0);
		snprintf(path, sizeof(path), "devices/system/node/node%d/shuffle/reason", n);
		assert_int_equal(fake_sysfs_write(c.env->root, path, "forced-off\n"), 0);
	}
	run = boot_cli_run(&c, NULL, (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_equal(run->status, 4);
	assert_non_null(strstr(run->err, "node 0: forced off by page_alloc.shuffle=0 on the kernel command line"));
	assert_non_null(strstr(run->err, "node 1: forced off by page_alloc.shuffle=0 on the kernel command line"));
	assert_non_null(strstr(run->err, "node 2: forced off"));
	assert_non_null(strstr(run->out, "node 1: did not write 1 to node1/shuffle/enabled: forced-off"));
	assert_non_null(strstr(run->out, "\nfailed: 3 nodes forced off, 0 could not be written\n"));
	assert_non_null(strstr(run->out, "policy on (pmemram.conf:2): nodes 0-2: forced off by page_alloc.shuffle=0"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node0/shuffle/enabled"), "0");
	boot_cli_done(&c);
}

/* pmemram's GRUB drop-in from a kernel without the switch goes when the kernel has it. */
static void test_cli_live_removes_dropin(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char update[600], script[512];
	struct boot_cli c;
	struct json_object *j;

	cli_setup(&c, state, "on");
	assert_int_equal(fake_sysfs_write(c.boot, "etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"), 0);
	snprintf(script, sizeof(script), "%s/update-grub", c.boot);
	assert_int_equal(fake_sysfs_write(c.boot, "update-grub", "#!/bin/sh\nexit 0\n"), 0);
	assert_int_equal(chmod(script, 0755), 0);
	snprintf(update, sizeof(update), "PMEMRAM_BOOT_UPDATE_COMMAND=%s", script);

	/* Without nodeN/shuffle the parameter is the only way: the drop-in is written. */
	assert_int_equal(fake_sysfs_remove(c.env->root, "devices/system/node/node0/shuffle"), 0);
	assert_int_equal(fake_sysfs_remove(c.env->root, "kernel/mm/shuffle/nodes"), 0);
	j = boot_cli_json(&c, update, (const char *const[]){ "shuffle", "apply", "--json", NULL }, 0);
	assert_false(json_bool_at(j, "per_node"));
	assert_string_equal(json_string_at(j, "policy.next_boot_parameter"), "1");
	json_object_put(j);
	assert_string_not_equal(fake_sysfs_read(c.boot, "etc/default/grub.d/60-pmemram.cfg"), "<absent>");

	/* The kernel with the switch: the nodes are written and the drop-in removed. */
	assert_int_equal(fake_sysfs_write(c.env->root, "devices/system/node/node0/shuffle/enabled", "0\n"), 0);
	assert_int_equal(fake_sysfs_write(c.env->root, "devices/system/node/node0/shuffle/reason", "default-off\n"), 0);
	assert_int_equal(fake_sysfs_write(c.env->root, "kernel/mm/shuffle/nodes", "1\n"), 0);
	j = boot_cli_json(&c, update, (const char *const[]){ "shuffle", "--json", NULL }, 0);
	assert_true(json_bool_at(j, "policy.remove_boot_parameter"));
	assert_string_equal(json_string_at(j, "policy.state"), "not-applied");
	json_object_put(j);
	run = boot_cli_run(&c, update, (const char *const[]){ "shuffle", "apply", NULL });
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "node 0: wrote 1 to node0/shuffle/enabled"));
	assert_non_null(strstr(run->out, "switched 2 nodes at runtime; removed pmemram's page_alloc.shuffle"));
	assert_non_null(strstr(run->out, "in effect, switched at runtime: shuffled nodes 0-2"));
	free(TAKE_PTR(run));
	assert_string_equal(fake_sysfs_read(c.boot, "etc/default/grub.d/60-pmemram.cfg"), "<absent>");
	assert_string_equal(fake_sysfs_read(c.env->root, "devices/system/node/node0/shuffle/enabled"), "1");
	boot_cli_done(&c);
}

#define FAKE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fake_env_setup_hmat, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_live_cases),
		cmocka_unit_test(test_live_long_list),
		cmocka_unit_test(test_nodes_without_switch),
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_invalid),
		FAKE_TEST(test_cli_kernel_cmdline),
		FAKE_TEST(test_cli_grub),
		FAKE_TEST(test_cli_errors),
		cmocka_unit_test_setup_teardown(test_cli_live, fake_env_setup_live, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_cli_live_removes_dropin, fake_env_setup_live, fake_env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
