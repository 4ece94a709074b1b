/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hotplug policy of pmemram.conf against the running kernel and the next boot's command line. */
#pragma once

#include <stdbool.h>

#include "pmemram-bootparam.h"
#include "pmemram-config.h"
#include "pmemram.h"

enum pmemram_hotplug_policy_state {
	PMEMRAM_HOTPLUG_POLICY_IN_EFFECT,   /* the running kernel does as the policy wants (or keep) */
	PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT,   /* the boot configuration is written: pending a reboot */
	PMEMRAM_HOTPLUG_POLICY_NOT_APPLIED, /* the boot configuration differs: pmemramctl hotplug apply */
	PMEMRAM_HOTPLUG_POLICY_NO_LOADER,   /* parameters are needed but there is no boot configuration */
	_PMEMRAM_HOTPLUG_POLICY_STATE_MAX,
};

const char *pmemram_hotplug_policy_state_to_string(enum pmemram_hotplug_policy_state s);

/* What the running kernel does with memory added from now on. */
struct pmemram_hotplug_running {
	enum pmemram_auto_online auto_online;	    /* /sys/devices/system/memory/auto_online_blocks */
	char online_policy[PMEMRAM_BOOT_VALUE_MAX]; /* memory_hotplug.online_policy; "" on a kernel without it */
};

/* A kernel's way with hot-added memory in pmemram.conf's words: "offline", "movable", "auto-movable",
 * and the two no policy asks for, "online" (the kernel's zone: contig-zones) and "online-kernel". */
#define PMEMRAM_HOTPLUG_NAME_MAX 16

struct pmemram_hotplug_policy {
	enum pmemram_config_hotplug policy;
	/* What pmemram wants for pmemram_boot_hotplug's keys (memhp_default_state,
	 * memory_hotplug.online_policy): NULL for a key it wants absent.  Both NULL for keep. */
	const char *want[PMEMRAM_BOOT_KEYS_MAX];
	bool remove_ours;			  /* keep, and pmemram's GRUB drop-in is still there */
	char running[PMEMRAM_HOTPLUG_NAME_MAX];	  /* what the kernel does now */
	char next_boot[PMEMRAM_HOTPLUG_NAME_MAX]; /* from the boot configuration; "default": it sets nothing */
	bool kernel_onlines;			  /* the running kernel onlines added memory itself */
	unsigned wrong_zones; /* zones claimed (1 << PMEMRAM_ZONE_*) the running kernel would not online into */
	enum pmemram_hotplug_policy_state state;
	char text[320];
	/* What the running kernel's way means for memory added now, with the fix; "" when it onlines nothing. */
	char exposure[512];
};

/* Pure: the policy against what the kernel does now and boot, pmemram_bootparam_read() of
 * pmemram_boot_hotplug; claimed_zones: the zones the claims ask for (1 << PMEMRAM_ZONE_*).  -EINVAL for
 * a NULL argument or a policy out of range. */
int pmemram_hotplug_policy_evaluate(enum pmemram_config_hotplug policy, unsigned claimed_zones,
				    const struct pmemram_hotplug_running *k, const struct pmemram_bootparam *boot,
				    struct pmemram_hotplug_policy *ret);

/* The same for configuration c: its hotplug-policy, and the zones its claims ask for. */
int pmemram_hotplug_policy_evaluate_config(const struct pmemram_config *c, const struct pmemram_hotplug_running *k,
					   const struct pmemram_bootparam *boot, struct pmemram_hotplug_policy *ret);

/* auto_online_blocks and memory_hotplug.online_policy of the running kernel, below the context's sysfs. */
int pmemram_hotplug_running_read(struct pmemram_ctx *ctx, struct pmemram_hotplug_running *ret);
