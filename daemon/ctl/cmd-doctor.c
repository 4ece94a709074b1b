/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl doctor: the machine's known traps, one finding per line (or JSON), exit 0, 1 or 2. */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-class.h"
#include "pmemram-observe.h"
#include "pmemram-provenance.h"
#include "pmemram-tiering.h"

#define DOCTOR_SCHEMA_VERSION 1
#define DOCTOR_TEXT_MAX 512

/* The exit codes the issue asks for: CTL_EXIT_OK, then these. */
#define DOCTOR_EXIT_WARNINGS 1
#define DOCTOR_EXIT_ERRORS 2

enum doctor_severity {
	DOCTOR_WARNING,
	DOCTOR_ERROR,
};

struct finding {
	const char *id;
	enum doctor_severity severity;
	char subject[128];
	char problem[DOCTOR_TEXT_MAX];
	const char *why;
	char fix[DOCTOR_TEXT_MAX];
};

/* What the checks read, up front, and the findings they make. */
struct doctor {
	struct pmemram_config *config;
	struct pmemram_observation *o;
	struct pmemram_plan *plan;
	struct ctl_shuffle *shuffle; /* with the topology and the command line */
	struct ctl_hotplug hotplug;
	struct pmemram_topology *topology;	/* the shuffle's */
	struct pmemram_memory_summary *summary; /* of every block: the observation has the devices' */
	struct json_object *provenance;		/* one per observed dax device, in their order */
	bool demotion;
	char daxctl_hook[160];		     /* the udev rule that RUNs daxctl -C, "" none */
	struct pmemram_cxl_plain_ram *plain; /* System RAM directly in a CXL window */
	size_t n_plain;
	struct pmemram_nodemask kmem, slow;
	size_t n_findings, n_allocated;
	struct finding *findings;
	int r; /* -ENOMEM when a finding could not be kept */
};

static void doctor_freep(struct doctor **p)
{
	struct doctor *d = *p;

	if (!d)
		return;
	pmemram_config_free(d->config);
	pmemram_observation_free(d->o);
	pmemram_plan_free(d->plan);
	pmemram_memory_summary_free(d->summary);
	json_object_put(d->provenance);
	ctl_shuffle_freep(&d->shuffle);
	free(d->plain);
	free(d->findings);
	free(d);
	*p = NULL;
}

/* Keep a finding; problem is formatted, why and fix are taken as they are. */
_printf_(7, 8) static void finding_add(struct doctor *d, const char *id, enum doctor_severity severity,
				       const char *subject, const char *why, const char *fix, const char *format, ...)
{
	struct finding *f;
	va_list args;

	if (d->n_findings == d->n_allocated) {
		size_t n = d->n_allocated ? 2 * d->n_allocated : 8;

		f = reallocarray(d->findings, n, sizeof(*f));
		if (!f) {
			d->r = -ENOMEM;
			return;
		}
		d->findings = f;
		d->n_allocated = n;
	}
	f = &d->findings[d->n_findings++];
	*f = (struct finding){ .id = id, .severity = severity, .why = why };
	snprintf(f->subject, sizeof(f->subject), "%s", subject);
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
	va_start(args, format);
	vsnprintf(f->problem, sizeof(f->problem), format, args);
	va_end(args);
}

/* ---- reading ----------------------------------------------------------------- */

static int doctor_read_boot(struct pmemram_ctx *ctx, struct doctor *d)
{
	enum pmemram_config_shuffle policy = pmemram_config_shuffle_policy(d->config);

	int r;

	d->shuffle = calloc(1, sizeof(*d->shuffle));
	if (!d->shuffle)
		return CTL_EXIT_SYSTEM;
	r = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &d->config->shuffle_nodes : NULL,
			     d->shuffle);
	d->topology = d->shuffle->topology;
	if (r != CTL_EXIT_OK)
		return r;
	return ctl_hotplug_read(ctx, d->config, &d->hotplug);
}

/* Who onlined each device, from pmemramd's record beside its socket (none readable: none). */
static int doctor_read_provenance(struct doctor *d)
{
	char dir[PATH_MAX];

	return pmemram_provenance_observed_json(d->o, ctl_runtime_path(NULL, dir, sizeof(dir)) < 0 ? NULL : dir,
						&d->provenance);
}

static int doctor_read_kernel(struct pmemram_ctx *ctx, struct doctor *d)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *memory = NULL;
	int r;

	r = doctor_read_boot(ctx, d);
	if (r != CTL_EXIT_OK)
		return r;
	r = pmemram_observe_lazy(ctx, &d->o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	r = pmemram_memory_read(ctx, &memory);
	if (r >= 0)
		r = pmemram_memory_summarize(memory, &d->summary);
	if (r < 0)
		return ctl_read_failed(ctx, "memory blocks", r);
	r = pmemram_demotion_read(ctx, &d->demotion);
	if (r < 0 && r != -ENOENT)
		return ctl_read_failed(ctx, "the demotion switch", r);
	d->demotion = r >= 0 && d->demotion;
	r = pmemram_udev_daxctl_hook_read(ctx, d->daxctl_hook, sizeof(d->daxctl_hook));
	if (r < 0)
		return ctl_read_failed(ctx, "udev rules", r);
	r = pmemram_cxl_plain_ram_read(ctx, &d->plain, &d->n_plain);
	if (r < 0 && r != -ENOENT)
		return ctl_read_failed(ctx, "/proc/iomem", r);
	pmemram_kmem_nodes(d->o->dax, &d->kmem);
	pmemram_class_slow_nodes(d->topology, &d->kmem, &d->slow);
	return CTL_EXIT_OK;
}

static int doctor_read(struct pmemram_ctx *ctx, const char *dir, struct doctor *d)
{
	bool configured;
	int r;

	r = ctl_load_config(dir, true, &d->config, &configured);
	if (r != CTL_EXIT_OK)
		return r;
	r = doctor_read_kernel(ctx, d);
	if (r != CTL_EXIT_OK)
		return r;
	r = pmemram_plan_compute(d->config, &d->o->observed, &d->plan);
	if (r < 0) {
		fprintf(stderr, "%s: cannot compute the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	r = doctor_read_provenance(d);
	if (r < 0)
		return ctl_read_failed(ctx, "pmemramd's record of its devices", r);
	return CTL_EXIT_OK;
}

/* ---- lookups ----------------------------------------------------------------- */

/* The claim deciding for a device (dax device, namespace, memdev), NULL when none. */
static const struct pmemram_device_verdict *claimed_verdict(const struct doctor *d, const char *device)
{
	for (size_t i = 0; i < d->plan->n_verdicts; i++)
		if (streq(d->plan->verdicts[i].device, device))
			return d->plan->verdicts[i].claim[0] ? &d->plan->verdicts[i] : NULL;
	return NULL;
}

/* Whether a claimed device was refused for reason. */
static bool refused_for(const struct doctor *d, enum pmemram_reason reason)
{
	for (size_t i = 0; i < d->plan->n_verdicts; i++)
		if (d->plan->verdicts[i].verdict == PMEMRAM_VERDICT_REFUSED && d->plan->verdicts[i].reason == reason)
			return true;
	return false;
}

/* ---- dax devices ------------------------------------------------------------- */

static void check_no_target_node(struct doctor *d)
{
	for (size_t i = 0; i < d->o->dax->n_devices; i++) {
		const struct pmemram_dax *x = &d->o->dax->devices[i];
		bool claimed = claimed_verdict(d, x->name) != NULL;

		if (x->target_node >= 0)
			continue;
		finding_add(d, "no-target-node", claimed ? DOCTOR_ERROR : DOCTOR_WARNING, x->name,
			    claimed ? "kmem refuses a device without a node, so its claim cannot be honoured (error)"
				    : "kmem refuses a device without a node: it can never be RAM (warning: unclaimed)",
			    "give the range a proximity domain in the firmware's SRAT (a BIOS setting or update); "
			    "the kernel takes target_node from it",
			    "the kernel gives it no target node (target_node -1)");
	}
}

static void check_too_small(struct doctor *d)
{
	uint64_t block = d->o->memory->block_size;
	char size[32], fix[DOCTOR_TEXT_MAX];

	for (size_t i = 0; i < d->o->dax->n_devices; i++) {
		const struct pmemram_dax *x = &d->o->dax->devices[i];
		bool claimed = claimed_verdict(d, x->name) != NULL;

		if (x->size == 0 || x->size >= block)
			continue;
		pmemram_format_size(block, size, sizeof(size));
		snprintf(fix, sizeof(fix),
			 "make it at least %s (for an NVDIMM namespace: ndctl create-namespace --mode devdax "
			 "--size SIZE), or leave it unclaimed",
			 size);
		finding_add(d, "too-small", claimed ? DOCTOR_ERROR : DOCTOR_WARNING, x->name,
			    claimed ? "kmem adds whole memory blocks only, so its claim cannot be honoured (error)"
				    : "kmem adds whole memory blocks only: it can never be RAM (warning: unclaimed)",
			    fix, "%" PRIu64 " bytes, smaller than one memory block (block_size_bytes %s)", x->size,
			    size);
	}
}

/* The online blocks of device x in a zone other than zone, and the first such block's zone. */
static size_t blocks_outside_zone(const struct doctor *d, const struct pmemram_dax *x, enum pmemram_zone zone,
				  enum pmemram_zone *ret_zone)
{
	const struct pmemram_memory *m = d->o->memory;
	unsigned long first, end;
	size_t n = 0;

	if (!x->has_resource || pmemram_block_range(x->resource, x->size, m->block_size, &first, &end) < 0)
		return 0;
	for (size_t i = 0; i < m->n_blocks; i++) {
		const struct pmemram_memblock *b = &m->blocks[i];

		if (b->id < first || b->id >= end || b->state != PMEMRAM_BLOCK_ONLINE || b->zones.first == zone)
			continue;
		if (n++ == 0)
			*ret_zone = b->zones.first;
	}
	return n;
}

static const char *onlined_by(const struct doctor *d, size_t device)
{
	const char *who = json_object_get_string(
		json_object_object_get(json_object_array_get_idx(d->provenance, device), "onlined_by"));

	return !who		       ? "someone"
	       : streq(who, "kernel")  ? "the kernel, at probe"
	       : streq(who, "pmemram") ? "pmemram"
				       : "another tool";
}

static void check_zone(struct doctor *d)
{
	for (size_t i = 0; i < d->o->dax->n_devices; i++) {
		const struct pmemram_dax *x = &d->o->dax->devices[i];
		const struct pmemram_device_verdict *v = claimed_verdict(d, x->name);
		const struct pmemram_claim *c = v ? pmemram_config_find_claim(d->config, v->claim) : NULL;
		enum pmemram_zone zone = PMEMRAM_ZONE_NONE;
		char fix[DOCTOR_TEXT_MAX];
		size_t n;

		if (!c || x->mode != PMEMRAM_DAX_SYSTEM_RAM)
			continue;
		n = blocks_outside_zone(d, x, c->zone, &zone);
		if (n == 0)
			continue;
		snprintf(fix, sizeof(fix),
			 "pmemramctl reconcile (pmemramd moves each block to %s), or online = %s in claim '%s' "
			 "to keep it as it is",
			 pmemram_zone_to_string(c->zone), zone == PMEMRAM_ZONE_NORMAL ? "normal" : "movable", c->name);
		finding_add(d, "zone-mismatch", DOCTOR_ERROR, x->name,
			    "claim not honoured (error): blocks outside Movable take kernel allocations that "
			    "pin them, and the device can then not be given back",
			    fix, "onlined by %s with %zu block%s in %s, where claim '%s' wants %s", onlined_by(d, i), n,
			    n == 1 ? "" : "s", pmemram_zone_to_string(zone), c->name, pmemram_zone_to_string(c->zone));
	}
}

/* "ln -s /dev/null /etc/udev/rules.d/NAME" for a rule "/DIR/NAME:LINE": what masks its file. */
static const char *mask_command(const char *rule, char *buf, size_t size)
{
	const char *name = strrchr(rule, '/'), *colon = strrchr(rule, ':');

	name = name ? name + 1 : rule;
	snprintf(buf, size, "ln -s /dev/null /etc/udev/rules.d/%.*s",
		 colon && colon > name ? (int)(colon - name) : (int)strlen(name), name);
	return buf;
}

/* ---- online policies ----------------------------------------------------------- */

static void check_auto_online(struct doctor *d)
{
	enum pmemram_auto_online a = d->o->observed.auto_online;
	bool refused = refused_for(d, PMEMRAM_REASON_AUTO_ONLINE);

	if (a == PMEMRAM_AUTO_ONLINE_OFFLINE)
		return;
	finding_add(d, "auto-online", refused ? DOCTOR_ERROR : DOCTOR_WARNING,
		    "/sys/devices/system/memory/auto_online_blocks",
		    refused ? "a claim is refused because the kernel would online its blocks in another zone (error)"
			    : "the kernel onlines every hot-added block itself, unclaimed devices' too, in a zone "
			      "of its choosing (warning: pmemram still moves claimed blocks)",
		    "echo offline > /sys/devices/system/memory/auto_online_blocks; for the next boots "
		    "hotplug-policy = offline in pmemram.conf, then pmemramctl hotplug apply",
		    "reads %s", pmemram_auto_online_to_string(a));
}

static void check_memhp_default_state(struct doctor *d)
{
	_cleanup_(freep) char *value = NULL;

	if (!d->shuffle->cmdline || pmemram_cmdline_get(d->shuffle->cmdline, "memhp_default_state", &value) <= 0 ||
	    !value || strncmp(value, "online", 6) != 0)
		return;
	/* The boot configuration already says what the policy wants: hotplug-pending says reboot. */
	if (d->hotplug.policy_r >= 0 && d->hotplug.policy.state == PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT)
		return;
	finding_add(d, "memhp-default-state", DOCTOR_WARNING, "/proc/cmdline",
		    "every boot starts with the kernel onlining hot-added memory itself (warning: pmemram "
		    "still moves claimed blocks)",
		    "hotplug-policy = offline in pmemram.conf, then pmemramctl hotplug apply (it writes "
		    "memhp_default_state=offline into /etc/kernel/cmdline or a GRUB drop-in)",
		    "memhp_default_state=%s on the kernel command line", value);
}

static void check_udev_online(struct doctor *d)
{
	const struct pmemram_observed_udev *u = &d->o->observed.udev;
	bool refused = refused_for(d, PMEMRAM_REASON_UDEV_ONLINE);
	char fix[DOCTOR_TEXT_MAX], mask[200];

	if (!u->onlines_memory)
		return;
	snprintf(fix, sizeof(fix), "%s (masks the rule), then udevadm control --reload",
		 mask_command(u->rule, mask, sizeof(mask)));
	finding_add(d, "udev-online", refused ? DOCTOR_ERROR : DOCTOR_WARNING, u->rule,
		    refused ? "a claim is refused because the rule would online its blocks in another zone (error)"
			    : "the rule onlines every hot-added block, unclaimed devices' too (warning: "
			      "pmemram still moves claimed blocks)",
		    fix, "a udev rule onlines hot-added memory as %s", pmemram_auto_online_to_string(u->policy));
}

/* ---- claims ------------------------------------------------------------------- */

static void check_unmatched(struct doctor *d)
{
	for (size_t i = 0; i < d->plan->n_unmatched; i++) {
		const char *name = d->plan->unmatched[i];
		char subject[PMEMRAM_CONFIG_NAME_MAX + 8], fix[DOCTOR_TEXT_MAX], text[DOCTOR_TEXT_MAX];

		snprintf(subject, sizeof(subject), "claim %s", name);
		snprintf(fix, sizeof(fix),
			 "pmemramctl claim %s with the match of a device pmemramctl status lists, or "
			 "pmemramctl unclaim %s",
			 name, name);
		finding_add(d, "claim-unmatched", DOCTOR_ERROR, subject,
			    "the claim cannot be honoured (error): most often its UUID or serial was copied "
			    "from the wrong place",
			    fix, "%s",
			    pmemram_claim_unmatched_text(d->plan, i, pmemram_config_find_claim(d->config, name), text,
							 sizeof(text)));
	}
}

/* ---- tiers and classes ----------------------------------------------------------- */

/* A node with memory in tier that is not slow, or -1. */
static int fast_node_in_tier(const struct doctor *d, int tier)
{
	for (size_t i = 0; i < d->topology->n_nodes; i++) {
		const struct pmemram_node *n = &d->topology->nodes[i];

		if (n->tier == tier && n->has_memory && !pmemram_nodemask_test(&d->slow, (unsigned)n->id))
			return n->id;
	}
	return -1;
}

static void check_tiers(struct doctor *d)
{
	int last_tier = -1;

	for (size_t i = 0; i < d->topology->n_nodes; i++) {
		const struct pmemram_node *n = &d->topology->nodes[i];
		char subject[32];
		int fast;

		if (n->tier < 0 || n->tier == last_tier || !pmemram_nodemask_test(&d->slow, (unsigned)n->id))
			continue;
		fast = fast_node_in_tier(d, n->tier);
		if (fast < 0)
			continue;
		last_tier = n->tier;
		snprintf(subject, sizeof(subject), "memory_tier%d", n->tier);
		finding_add(d, "tier-mixed", DOCTOR_WARNING, subject,
			    "the kernel demotes only to a lower tier, so nothing is demoted to the slow node "
			    "(warning: a loss of speed, no risk to memory)",
			    "give the slow memory a NUMA node of its own in the firmware (SRAT): kmem then puts it "
			    "in a tier of its own",
			    "slow node%d (pmem, no CPU) and node%d share memory_tier%d", n->id, fast, n->tier);
	}
}

static void check_class_demotion(struct doctor *d, const struct pmemram_class *c)
{
	struct pmemram_nodemask mask, escape;
	char nodes[128], subject[PMEMRAM_CLASS_NAME_MAX + 8], fix[DOCTOR_TEXT_MAX];

	if (c->protect || pmemram_class_resolve(c, d->topology, &d->kmem, &mask, NULL, 0) < 0)
		return;
	pmemram_class_demotion_escape(&mask, d->topology, &d->kmem, &escape);
	if (pmemram_nodemask_weight(&escape) == 0 || pmemram_nodemask_format(&escape, nodes, sizeof(nodes)) < 0)
		return;
	snprintf(subject, sizeof(subject), "class %s", c->name);
	snprintf(fix, sizeof(fix), "demotion = off in pmemram.conf's [global], or protect = SIZE in [class \"%s\"]",
		 c->name);
	finding_add(d, "demotion-escape", DOCTOR_WARNING, subject,
		    "demotion does not respect cpuset.mems up to Linux 6.15: the class's pages land on "
		    "slow memory it excludes (warning: slower, no risk to memory)",
		    fix, "demotion is on and may move the class's pages to node %s outside its slice", nodes);
}

static void check_demotion(struct doctor *d)
{
	for (size_t i = 0; d->demotion && i < d->config->n_classes; i++)
		check_class_demotion(d, &d->config->classes[i]);
}

/* ---- boot, CXL ------------------------------------------------------------------- */

static void check_shuffle(struct doctor *d)
{
	const struct pmemram_shuffle_policy *p = &d->shuffle->policy;
	bool next_boot = p->state == PMEMRAM_SHUFFLE_POLICY_NEXT_BOOT;

	if (d->shuffle->policy_r < 0 || (!next_boot && p->state != PMEMRAM_SHUFFLE_POLICY_NOT_APPLIED))
		return;
	finding_add(d, "shuffle-pending", DOCTOR_WARNING, "page_alloc.shuffle",
		    "the running kernel does not shuffle as the policy wants until then (warning: conflicts "
		    "in the memory-side cache, no risk to memory)",
		    next_boot ? "reboot" : "pmemramctl shuffle apply, then reboot", "%s: %s",
		    pmemram_shuffle_policy_state_to_string(p->state), p->text);
}

static void check_hotplug(struct doctor *d)
{
	const struct pmemram_hotplug_policy *p = &d->hotplug.policy;
	bool next_boot = p->state == PMEMRAM_HOTPLUG_POLICY_NEXT_BOOT;

	if (d->hotplug.policy_r < 0 || p->state == PMEMRAM_HOTPLUG_POLICY_IN_EFFECT)
		return;
	finding_add(d, "hotplug-pending", DOCTOR_WARNING, "hotplug-policy",
		    "until then the kernel onlines memory it adds as it does now, not as the policy says (warning: "
		    "pmemram still moves claimed blocks)",
		    next_boot ? "reboot"
		    : p->state == PMEMRAM_HOTPLUG_POLICY_NO_LOADER
			    ? "create /etc/kernel/cmdline or /etc/default/grub, then pmemramctl hotplug apply"
			    : "pmemramctl hotplug apply, then reboot",
		    "%s: %s", pmemram_hotplug_policy_state_to_string(p->state), p->text);
}

static void check_cxl_memdevs(struct doctor *d)
{
	for (size_t i = 0; i < d->o->observed.n_memdevs; i++) {
		const struct pmemram_observed_memdev *m = &d->o->observed.memdevs[i];
		char subject[64], fix[DOCTOR_TEXT_MAX], size[32];
		bool ram = m->ram_size > 0;

		if ((!ram && m->pmem_size == 0) || m->region[0] || claimed_verdict(d, m->name))
			continue;
		snprintf(subject, sizeof(subject), "%s (serial 0x%" PRIx64 ")", m->name, m->serial);
		snprintf(fix, sizeof(fix), "pmemramctl claim NAME --cxl-memdev 0x%" PRIx64 " --create-region%s",
			 m->serial, ram ? "=ram" : " (pmem: destroys its data)");
		finding_add(d, "cxl-memdev-no-region", DOCTOR_WARNING, subject,
			    "its capacity is not used (warning: unclaimed, nothing at risk)", fix,
			    "%s of %s capacity in no CXL region",
			    pmemram_format_size(ram ? m->ram_size : m->pmem_size, size, sizeof(size)),
			    ram ? "volatile" : "persistent");
	}
}

/* No peer says so: firmware that maps CXL memory as conventional memory leaves nothing to claim. */
static void check_cxl_plain_ram(struct doctor *d)
{
	for (size_t i = 0; i < d->n_plain; i++) {
		const struct pmemram_cxl_plain_ram *p = &d->plain[i];
		char size[32];

		finding_add(d, "cxl-plain-ram", DOCTOR_WARNING, p->window,
			    "firmware mapped this CXL memory as conventional memory, so the kernel onlined it at boot "
			    "with no CXL region or dax device: pmemram cannot claim it, choose its zone or give it "
			    "back (warning: nothing at risk, but it is not managed as slow memory)",
			    "have the firmware report CXL memory as special purpose (EFI_MEMORY_SP, often a setup "
			    "option such as \"CXL memory as soft reserved\"), boot without efi=nosoftreserve, then "
			    "pmemramctl claim NAME --cxl-memdev SERIAL",
			    "%#" PRIx64 "-%#" PRIx64 " (%s) is System RAM outside any CXL region", p->start, p->end,
			    pmemram_format_size(p->end - p->start + 1, size, sizeof(size)));
	}
}

/* Debian 12's daxctl 76 has no -C: its udev hook fails for every dax device, and with it the sections. */
static void check_daxctl_hook(struct doctor *d)
{
	char fix[DOCTOR_TEXT_MAX], mask[200];

	if (!d->daxctl_hook[0] || d->config->n_daxctl == 0)
		return;
	snprintf(fix, sizeof(fix),
		 "%s (masks the hook) and leave the sections to pmemramd (daxctl-conf = yes, the default), "
		 "or pmemramctl claim --from-daxctl",
		 mask_command(d->daxctl_hook, mask, sizeof(mask)));
	finding_add(d, "daxctl-hook", DOCTOR_WARNING, d->daxctl_hook,
		    "a daxctl without -C fails at every dax device's event and changes nothing; pmemramd reads "
		    "the sections as claims instead (warning: nothing at risk, but the failure hides)",
		    fix, "a udev rule runs daxctl -C for dax devices, and %s has %zu reconfigure-device section%s",
		    ctl_daxctl_dir(), d->config->n_daxctl, d->config->n_daxctl == 1 ? "" : "s");
}

static void doctor_check(struct doctor *d)
{
	static void (*const checks[])(struct doctor *) = {
		check_zone,	     check_no_target_node, check_too_small,
		check_unmatched,     check_auto_online,	   check_memhp_default_state,
		check_udev_online,   check_tiers,	   check_demotion,
		check_shuffle,	     check_hotplug,	   check_cxl_memdevs,
		check_cxl_plain_ram, check_daxctl_hook,
	};

	for (size_t i = 0; i < ELEMENTSOF(checks); i++)
		checks[i](d);
}

/* ---- output ------------------------------------------------------------------- */

static const char *severity_name(enum doctor_severity s)
{
	return s == DOCTOR_ERROR ? "error" : "warning";
}

static void print_human(const struct doctor *d)
{
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct finding *f = &d->findings[i];

		printf("%s: %s: %s [%s]; why: %s; fix: %s\n", severity_name(f->severity), f->subject, f->problem, f->id,
		       f->why, f->fix);
	}
	if (d->n_findings == 0)
		printf("No problems found.\n");
}

static struct json_object *finding_json(const struct finding *f)
{
	struct json_object *o = json_object_new_object();

	if (json_add(o, "id", json_object_new_string(f->id)) &&
	    json_add(o, "severity", json_object_new_string(severity_name(f->severity))) &&
	    json_add(o, "subject", json_object_new_string(f->subject)) &&
	    json_add(o, "problem", json_object_new_string(f->problem)) &&
	    json_add(o, "why", json_object_new_string(f->why)) && json_add(o, "fix", json_object_new_string(f->fix)))
		return o;
	json_object_put(o);
	return NULL;
}

static int print_json(const struct doctor *d)
{
	struct json_object *root = json_object_new_object(), *a = json_object_new_array();
	bool ok = json_add(root, "schema_version", json_object_new_int(DOCTOR_SCHEMA_VERSION));

	for (size_t i = 0; ok && i < d->n_findings; i++)
		ok = json_append(a, finding_json(&d->findings[i]));
	if (!ok)
		json_object_put(a);
	return ctl_print_json(root, ok && json_add(root, "findings", a));
}

/* Errors before warnings: 2, 1, or 0 for none. */
static int doctor_exit(const struct doctor *d)
{
	int code = CTL_EXIT_OK;

	for (size_t i = 0; i < d->n_findings; i++)
		if (d->findings[i].severity == DOCTOR_ERROR)
			return DOCTOR_EXIT_ERRORS;
		else
			code = DOCTOR_EXIT_WARNINGS;
	return code;
}

/* ---- command ------------------------------------------------------------------- */

static void doctor_help(void)
{
	printf("Usage: %s doctor [--json] [--config DIR]\n"
	       "\n"
	       "Check the machine for what keeps slow memory from being RAM as claimed: one finding\n"
	       "per line with its severity, why it matters and what fixes it.  Changes nothing.\n"
	       "Exits 0 when nothing is wrong, 1 with warnings only, 2 with errors.\n"
	       "\n"
	       "  -h --help         Show this help\n"
	       "  -j --json         Print JSON (schema in pmemramctl(8))\n"
	       "  -c --config DIR   Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT
	       ")\n",
	       program_invocation_short_name);
}

int cmd_doctor(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{},
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(doctor_freep) struct doctor *d = NULL;
	const char *dir = ctl_config_dir();
	bool json = g->json;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			doctor_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			return ctl_unknown_option("doctor", argv);
		}
	}
	if (optind < argc)
		return ctl_usage_error("doctor", "unexpected argument '%s'", argv[optind]);

	d = calloc(1, sizeof(*d));
	if (!d || ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	r = doctor_read(ctx, dir, d);
	if (r != CTL_EXIT_OK)
		return r;
	doctor_check(d);
	if (d->r >= 0)
		r = json ? print_json(d) : (print_human(d), 0);
	if (d->r < 0 || r < 0) {
		fprintf(stderr, "%s: cannot format the findings: %s\n", program_invocation_short_name,
			strerror(ENOMEM));
		return CTL_EXIT_SYSTEM;
	}
	r = ctl_flush_stdout();
	return r != CTL_EXIT_OK ? r : doctor_exit(d);
}
