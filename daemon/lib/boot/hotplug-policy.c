/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hotplug policy: what pmemram wants the kernel to do with hot-added memory at boot, and whether it does. */
#include <stdio.h>

#include "pmemram-hotplug-policy.h"
#include "pmemram-private.h"

static const char *const state_names[_PMEMRAM_HOTPLUG_POLICY_STATE_MAX] = {
	[PMEMRAM_HOTPLUG_POLICY_IN_EFFECT] = "in-effect",
	[PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT] = "next-boot",
	[PMEMRAM_HOTPLUG_POLICY_NOT_APPLIED] = "not-applied",
	[PMEMRAM_HOTPLUG_POLICY_NO_LOADER] = "no-boot-loader",
};

const char *pmemram_hotplug_policy_state_to_string(enum pmemram_hotplug_policy_state s)
{
	return (unsigned)s < ELEMENTSOF(state_names) ? state_names[s] : NULL;
}

/* The command line's words for each policy: memhp_default_state, then memory_hotplug.online_policy.  The
 * online policy only decides the zone of "online"; the others go without it (the kernel's default). */
static const char *const wanted[_PMEMRAM_CONFIG_HOTPLUG_MAX][PMEMRAM_BOOT_KEYS_MAX] = {
	[PMEMRAM_CONFIG_HOTPLUG_KEEP] = { NULL, NULL },
	[PMEMRAM_CONFIG_HOTPLUG_OFFLINE] = { "offline", NULL },
	[PMEMRAM_CONFIG_HOTPLUG_MOVABLE] = { "online_movable", NULL },
	[PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE] = { "online", "auto-movable" },
};

/* A memhp_default_state value (auto_online_blocks' words) and an online policy in pmemram's words. */
static void describe(const char *state, const char *online_policy, char *buf, size_t size)
{
	if (streq(state, "offline"))
		snprintf(buf, size, "offline");
	else if (streq(state, "online_movable"))
		snprintf(buf, size, "movable");
	else if (streq(state, "online_kernel"))
		snprintf(buf, size, "online-kernel");
	else if (streq(state, "online"))
		snprintf(buf, size, "%s", streq_ptr(online_policy, "auto-movable") ? "auto-movable" : "online");
	else
		snprintf(buf, size, "%.*s", (int)size - 1, state);
}

/* Whether the boot configuration's words are exactly the wanted ones. */
static bool boot_is(const struct pmemram_bootparam *boot, const char *const want[])
{
	for (size_t i = 0; i < PMEMRAM_BOOT_KEYS_MAX; i++)
		if (want[i] ? !boot->param[i].present || !streq(boot->param[i].value, want[i]) : boot->param[i].present)
			return false;
	return true;
}

/* The claimed zones (bits) a kernel that onlines by itself under a does not surely land new blocks in. */
static unsigned wrong_zones(enum pmemram_auto_online a, unsigned claimed)
{
	unsigned wrong = 0;

	for (unsigned z = 0; z < _PMEMRAM_ZONE_MAX; z++)
		if ((claimed & (1u << z)) && !pmemram_auto_online_fits(a, (enum pmemram_zone)z))
			wrong |= 1u << z;
	return wrong;
}

static void describe_exposure(struct pmemram_hotplug_policy *p)
{
	char zones[64] = "";

	if (!p->kernel_onlines)
		return;
	for (unsigned z = 0; z < _PMEMRAM_ZONE_MAX; z++)
		if (p->wrong_zones & (1u << z))
			snprintf(zones + strlen(zones), sizeof(zones) - strlen(zones), "%s%s", zones[0] ? " or " : "",
				 pmemram_zone_to_string(z));
	snprintf(p->exposure, sizeof(p->exposure),
		 "the running kernel onlines the memory it adds itself (%s): an unclaimed device's too when the "
		 "kernel binds it to kmem (hmem and CXL RAM at probe since 6.3)%s%s%s; fix: hotplug-policy = "
		 "offline in pmemram.conf, pmemramctl hotplug apply, then reboot",
		 p->running, zones[0] ? ", and claimed memory it adds perhaps not into the zone claimed (" : "", zones,
		 zones[0] ? ")" : "");
}

int pmemram_hotplug_policy_evaluate(enum pmemram_config_hotplug policy, unsigned claimed_zones,
				    const struct pmemram_hotplug_running *k, const struct pmemram_bootparam *boot,
				    struct pmemram_hotplug_policy *ret)
{
	struct pmemram_hotplug_policy p = { .policy = policy };
	const char *state, *name;
	bool has_loader;

	if (!k || !boot || !ret || (unsigned)policy >= _PMEMRAM_CONFIG_HOTPLUG_MAX)
		return -EINVAL;
	name = pmemram_config_hotplug_to_string(policy);
	memcpy(p.want, wanted[policy], sizeof(p.want));
	state = pmemram_auto_online_to_string(k->auto_online);
	describe(state ?: "unknown", k->online_policy, p.running, sizeof(p.running));
	p.kernel_onlines = k->auto_online != PMEMRAM_AUTO_ONLINE_OFFLINE;
	p.wrong_zones = wrong_zones(k->auto_online, claimed_zones);
	describe_exposure(&p);
	if (boot->param[0].present)
		describe(boot->param[0].value, boot->param[1].present ? boot->param[1].value : NULL, p.next_boot,
			 sizeof(p.next_boot));
	else
		snprintf(p.next_boot, sizeof(p.next_boot), "default");
	has_loader = boot->loader != PMEMRAM_BOOTLOADER_NONE;

	if (policy == PMEMRAM_CONFIG_HOTPLUG_KEEP) {
		p.remove_ours = boot->loader == PMEMRAM_BOOTLOADER_GRUB && boot->written_by_pmemram;
		p.state = p.remove_ours ? PMEMRAM_HOTPLUG_POLICY_NOT_APPLIED : PMEMRAM_HOTPLUG_POLICY_IN_EFFECT;
		if (p.remove_ours)
			snprintf(p.text, sizeof(p.text),
				 "not applied: pmemram's hotplug parameters are still in the boot configuration "
				 "(run pmemramctl hotplug apply)");
		else
			snprintf(p.text, sizeof(p.text), "keep: pmemram leaves the kernel's policy alone (now %s)",
				 p.running);
	} else if (!has_loader) {
		p.state = streq(p.running, name) ? PMEMRAM_HOTPLUG_POLICY_IN_EFFECT : PMEMRAM_HOTPLUG_POLICY_NO_LOADER;
		if (p.state == PMEMRAM_HOTPLUG_POLICY_IN_EFFECT)
			snprintf(p.text, sizeof(p.text),
				 "in effect, but no boot configuration (GRUB or /etc/kernel/cmdline) keeps it");
		else
			snprintf(p.text, sizeof(p.text),
				 "needs memhp_default_state on the kernel command line, and no boot configuration "
				 "(GRUB or /etc/kernel/cmdline) was found to put it in (now %s)",
				 p.running);
	} else if (!boot_is(boot, p.want)) {
		p.state = PMEMRAM_HOTPLUG_POLICY_NOT_APPLIED;
		snprintf(p.text, sizeof(p.text),
			 "not applied: the boot configuration says %s, not %s (run pmemramctl hotplug apply)",
			 p.next_boot, name);
	} else if (!streq(p.running, name)) {
		p.state = PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT;
		snprintf(p.text, sizeof(p.text),
			 "takes effect at next boot: the boot configuration says %s, the running kernel %s "
			 "(reboot to apply)",
			 name, p.running);
	} else {
		p.state = PMEMRAM_HOTPLUG_POLICY_IN_EFFECT;
		snprintf(p.text, sizeof(p.text), "in effect (%s%s%s)", p.want[0] ? "memhp_default_state=" : "",
			 p.want[0] ?: "", p.want[1] ? " memory_hotplug.online_policy=auto-movable" : "");
	}
	*ret = p;
	return 0;
}

int pmemram_hotplug_policy_evaluate_config(const struct pmemram_config *c, const struct pmemram_hotplug_running *k,
					   const struct pmemram_bootparam *boot, struct pmemram_hotplug_policy *ret)
{
	unsigned zones = 0;

	if (!c)
		return -EINVAL;
	for (size_t i = 0; i < c->n_claims; i++)
		zones |= 1u << c->claims[i].zone;
	return pmemram_hotplug_policy_evaluate(c->hotplug, zones, k, boot, ret);
}

int pmemram_hotplug_running_read(struct pmemram_ctx *ctx, struct pmemram_hotplug_running *ret)
{
	struct pmemram_hotplug_running k = {};
	int r, a;

	if (!ctx || !ret)
		return -EINVAL;
	r = sysfs_read_enum(ctx, "devices/system/memory/auto_online_blocks", pmemram_auto_online_from_string, &a);
	if (r < 0)
		return r;
	k.auto_online = (enum pmemram_auto_online)a;
	/* Since 5.15; a kernel without it onlines "online" as contig-zones does. */
	r = sysfs_read_string(ctx, "module/memory_hotplug/parameters/online_policy", k.online_policy,
			      sizeof(k.online_policy));
	if (r < 0 && r != -ENOENT)
		return r;
	pmemram_ctx_clear_error(ctx);
	*ret = k;
	return 0;
}
