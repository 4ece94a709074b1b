/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The page-shuffle policy of pmemram.conf against the running kernel and the next boot's command line. */
#pragma once

#include <stdbool.h>

#include "pmemram-bootparam.h"
#include "pmemram-config.h"
#include "pmemram.h"

enum pmemram_shuffle_policy_state {
	PMEMRAM_SHUFFLE_POLICY_IN_EFFECT,   /* the running kernel is as the policy wants */
	PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT,   /* the boot configuration is written; takes effect at next boot */
	PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED, /* the boot configuration differs: pmemramctl shuffle apply */
	PMEMRAM_SHUFFLE_POLICY_NO_LOADER,   /* a parameter is needed but there is no boot configuration to write */
	PMEMRAM_SHUFFLE_POLICY_IGNORED,	    /* the parameter is in force but the kernel did not follow it */
	PMEMRAM_SHUFFLE_POLICY_FORCED_OFF,  /* a node is wanted shuffled, page_alloc.shuffle=0 forbids it */
	PMEMRAM_SHUFFLE_POLICY_UNSUPPORTED, /* shuffle-nodes on a kernel without a switch per node */
	_PMEMRAM_SHUFFLE_POLICY_STATE_MAX,
};

const char *pmemram_shuffle_policy_state_to_string(enum pmemram_shuffle_policy_state s);

/* What a kernel with the switch per node needs for one node. */
enum pmemram_shuffle_node_action {
	PMEMRAM_SHUFFLE_NODE_KEEP,	 /* as wanted, or no memory to shuffle */
	PMEMRAM_SHUFFLE_NODE_ENABLE,	 /* write 1 to nodeN/shuffle/enabled */
	PMEMRAM_SHUFFLE_NODE_DISABLE,	 /* write 0 */
	PMEMRAM_SHUFFLE_NODE_FORCED_OFF, /* wanted, but page_alloc.shuffle=0 on the command line forbids it */
	_PMEMRAM_SHUFFLE_NODE_ACTION_MAX,
};

const char *pmemram_shuffle_node_action_to_string(enum pmemram_shuffle_node_action a);

struct pmemram_shuffle_policy_node {
	int node;
	bool has_memory;
	bool direct_mapped_cache;
	bool enabled; /* as the kernel says */
	char reason[PMEMRAM_SHUFFLE_REASON_MAX];
	bool wanted; /* what the policy wants; only for a node with memory */
	enum pmemram_shuffle_node_action action;
};

struct pmemram_shuffle_policy {
	enum pmemram_config_shuffle policy;
	struct pmemram_nodemask list; /* shuffle-nodes, for PMEMRAM_CONFIG_SHUFFLE_NODES */
	/* What pmemram wants in the boot configuration: "1", "0", or NULL for nothing of its own (auto on a
	 * kernel that decides by itself, or on a stock kernel without a direct-mapped cache). */
	const char *want;
	bool direct_mapped_cache; /* some node has one (HMAT) */
	/* page_alloc.shuffle on the running kernel's command line, and in the next boot's configuration
	 * (normalised to "1"/"0", or the raw value when it is neither); "" when absent. */
	char running[PMEMRAM_BOOT_VALUE_MAX];
	char next_boot[PMEMRAM_BOOT_VALUE_MAX];
	enum pmemram_shuffle_policy_state state;
	char text[256]; /* one sentence for people */
	/* The kernel switches shuffling per node at runtime: pmemram writes nodeN/shuffle/enabled and
	 * nothing to the boot configuration; remove_ours says its earlier page_alloc.shuffle is still
	 * there.  nodes: one per node of the kernel's, with what it needs. */
	bool live;
	bool remove_ours;
	size_t n_nodes;
	struct pmemram_shuffle_policy_node nodes[PMEMRAM_MAX_NODES];
};

/*
 * Decide.  policy: pmemram_config_shuffle_policy(); nodes: the shuffle-nodes list, for
 * PMEMRAM_CONFIG_SHUFFLE_NODES only (NULL otherwise); kernel: pmemram_shuffle_read(); topology: for
 * the caches and which nodes have memory; cmdline: /proc/cmdline's text; boot:
 * pmemram_bootparam_read() of the boot configuration.  Pure: no I/O.
 */
int pmemram_shuffle_policy_evaluate(enum pmemram_config_shuffle policy, const struct pmemram_nodemask *nodes,
				    const struct pmemram_shuffle *kernel, const struct pmemram_topology *topology,
				    const char *cmdline, const struct pmemram_bootparam *boot,
				    struct pmemram_shuffle_policy *ret);

/* The same with the policy of a configuration: shuffle, or shuffle-nodes when set. */
int pmemram_shuffle_policy_evaluate_config(const struct pmemram_config *c, const struct pmemram_shuffle *kernel,
					   const struct pmemram_topology *topology, const char *cmdline,
					   const struct pmemram_bootparam *boot, struct pmemram_shuffle_policy *ret);

/* "1" for 1/y/Y/on/"" (a bare boolean parameter is true), "0" for 0/n/N/off, else NULL. */
const char *pmemram_shuffle_param_normalize(const char *value);

/* The running kernel's command line, /proc/cmdline below the context's procfs root, without the newline. */
int pmemram_cmdline_read(struct pmemram_ctx *ctx, char **ret);
