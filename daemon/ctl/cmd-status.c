/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl status: nodes, memory-side caches, dax devices, memory blocks and shuffling, human or JSON. */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-provenance.h"
#include "pmemram-tiering.h"

#define STATUS_SCHEMA_VERSION 1

/* Everything status shows, read up front so output is all-or-nothing. */
struct status {
	const char *sysfs_root;
	struct pmemram_topology *topology;
	struct pmemram_memory *memory;
	struct pmemram_memory_summary *summary;
	struct pmemram_dax_list *dax;
	struct pmemram_provenance *provenance; /* one per dax device */
	struct ctl_shuffle shuffle; /* kernel state and the policy; its topology is ours */
	const char *policy_origin;  /* FILE:LINE of the shuffle key, or why the policy is assumed */
	struct ctl_hotplug hotplug;
	const char *hotplug_origin; /* FILE:LINE of the hotplug-policy key, or why keep is assumed */
	char hotplug_origin_buf[PATH_MAX + 16];
	int demotion;		    /* /sys/kernel/mm/numa/demotion_enabled: 1, 0, -1 when absent */
	int promotion_r;	    /* pmemram_promotion_read(): 0, or -ENOENT without NUMA balancing */
	struct pmemram_promotion promotion;
	char origin_buf[PATH_MAX + 16];
	struct json_object *daemon; /* pmemramd's status reply; NULL when it is not running */
	int daemon_r;		    /* why there is none: a ctl_daemon_call() code */
};

/* The abstract distances of memory tier N: the kernel names a tier by its abstract distance shifted
 * right by MEMTIER_CHUNK_BITS, 7 in Linux 6.1 to 6.12 (DRAM's is 576, in tier 4); it shows no node's own. */
#define MEMTIER_CHUNK_BITS 7

static long tier_adistance(int tier, bool last)
{
	return ((long)tier << MEMTIER_CHUNK_BITS) + (last ? (1L << MEMTIER_CHUNK_BITS) - 1 : 0);
}

static void status_freep(struct status **p)
{
	struct status *s = *p;

	if (!s)
		return;
	pmemram_topology_free(s->topology);
	pmemram_memory_summary_free(s->summary);
	pmemram_memory_free(s->memory);
	pmemram_dax_list_free(s->dax);
	free(s->provenance);
	s->shuffle.topology = NULL; /* freed above */
	ctl_shuffle_done(&s->shuffle);
	json_object_put(s->daemon);
	free(s);
	*p = NULL;
}

/* The shuffle and hotplug policies need the configuration; status still works without one that loads
 * (then with the defaults, auto and keep). */
static int status_read_policies(struct pmemram_ctx *ctx, struct status *s)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *config = NULL;
	enum pmemram_config_shuffle policy = PMEMRAM_CONFIG_SHUFFLE_AUTO;
	bool configured;
	int r;

	if (ctl_load_config(ctl_config_dir(), true, &config, &configured) != CTL_EXIT_OK) {
		s->policy_origin = "the configuration does not load: auto assumed";
		s->hotplug_origin = "the configuration does not load: keep assumed";
		if (pmemram_config_new(&config) < 0)
			return ctl_read_failed(ctx, "the configuration", -ENOMEM);
	} else {
		policy = pmemram_config_shuffle_policy(config);
		s->policy_origin = ctl_shuffle_policy_origin(config, s->origin_buf, sizeof(s->origin_buf));
		s->hotplug_origin =
			ctl_hotplug_policy_origin(config, s->hotplug_origin_buf, sizeof(s->hotplug_origin_buf));
	}
	s->shuffle.topology = s->topology;
	r = ctl_shuffle_read(ctx, policy, policy == PMEMRAM_CONFIG_SHUFFLE_NODES ? &config->shuffle_nodes : NULL,
			     &s->shuffle);
	if (r != CTL_EXIT_OK)
		return r;
	return ctl_hotplug_read(ctx, config, &s->hotplug);
}

/* Each device's source and who onlined it: pmemramd's record of its own binds, beside its socket. */
static int status_read_provenance(struct pmemram_ctx *ctx, struct status *s)
{
	char *ids[PMEMRAM_ONLINED_MAX] = {}, dir[PATH_MAX];
	size_t n_ids = 0;
	int r = 0;

	if (s->dax->n_devices == 0)
		return 0;
	s->provenance = calloc(s->dax->n_devices, sizeof(*s->provenance));
	if (!s->provenance)
		return -ENOMEM;
	if (ctl_runtime_path(NULL, dir, sizeof(dir)) < 0 || pmemram_onlined_read(dir, ids, &n_ids) < 0)
		n_ids = 0; /* unreadable: nothing known to be pmemram's */
	for (size_t i = 0; r >= 0 && i < s->dax->n_devices; i++)
		r = pmemram_provenance_read(ctx, &s->dax->devices[i], s->memory, ids, n_ids, &s->provenance[i]);
	for (size_t i = 0; i < n_ids; i++)
		free(ids[i]);
	return r;
}

/* Who onlined a device and whether release can give it back, as the daemon (root, with its
 * record) found them, win over what this process could read: not root, it cannot read the ranges
 * that identify devices.  Only for a device in the mode the daemon saw. */
static void status_merge_daemon_provenance(struct status *s)
{
	struct json_object *a, *e, *v;

	if (!s->daemon || !json_object_object_get_ex(s->daemon, "dax_devices", &a) ||
	    !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < s->dax->n_devices; i++) {
		const struct pmemram_dax *d = &s->dax->devices[i];
		struct pmemram_provenance *p = &s->provenance[i];

		for (size_t k = 0; k < json_object_array_length(a); k++) {
			e = json_object_array_get_idx(a, k);
			if (!json_object_object_get_ex(e, "device", &v) ||
			    !streq_ptr(json_object_get_string(v), d->name) ||
			    !json_object_object_get_ex(e, "mode", &v) ||
			    !streq_ptr(json_object_get_string(v), pmemram_dax_mode_to_string(d->mode)))
				continue;
			if (json_object_object_get_ex(e, "onlined_by", &v) && json_object_is_type(v, json_type_string))
				p->onlined_by = streq(json_object_get_string(v), "pmemram")  ? "pmemram"
						: streq(json_object_get_string(v), "kernel") ? "kernel"
											     : "other";
			if (json_object_object_get_ex(e, "releasable", &v) &&
			    json_object_is_type(v, json_type_boolean)) {
				p->releasable = json_object_get_boolean(v);
				p->releasable_unknown = false;
			}
			break;
		}
	}
}

static int status_read(struct pmemram_ctx *ctx, struct status *s)
{
	int r;

	s->sysfs_root = pmemram_ctx_get_sysfs_root(ctx);

	r = pmemram_topology_read(ctx, &s->topology);
	if (r < 0)
		return ctl_read_failed(ctx, "NUMA nodes", r);
	r = pmemram_memory_read(ctx, &s->memory);
	if (r < 0)
		return ctl_read_failed(ctx, "memory blocks", r);
	r = pmemram_memory_summarize(s->memory, &s->summary);
	if (r < 0)
		return ctl_read_failed(ctx, "memory blocks", r);
	r = pmemram_dax_list_read(ctx, &s->dax);
	if (r < 0)
		return ctl_read_failed(ctx, "dax devices", r);
	r = status_read_provenance(ctx, s);
	if (r < 0)
		return ctl_read_failed(ctx, "dax devices", r);
	r = status_read_policies(ctx, s);
	if (r != CTL_EXIT_OK)
		return r;
	{
		bool on;

		r = pmemram_demotion_read(ctx, &on);
		if (r < 0 && r != -ENOENT)
			return ctl_read_failed(ctx, "the demotion switch", r);
		s->demotion = r < 0 ? -1 : on;
	}
	s->promotion_r = pmemram_promotion_read(ctx, &s->promotion);
	if (s->promotion_r < 0 && s->promotion_r != -ENOENT)
		return ctl_read_failed(ctx, "kernel.numa_balancing", s->promotion_r);
	/* What the daemon decided (refusals and why) only it knows; without it, status still works. */
	s->daemon_r = ctl_daemon_simple("status", NULL, 10, &s->daemon);
	if (s->daemon_r < 0) {
		json_object_put(s->daemon);
		s->daemon = NULL;
	}
	status_merge_daemon_provenance(s);
	return CTL_EXIT_OK;
}

/* ---- human output ---------------------------------------------------------- */

static const char *node_kind(const struct pmemram_node *n)
{
	if (n->has_cpu && n->has_memory)
		return "cpu+memory";
	if (n->has_memory)
		return "memory-only";
	if (n->has_cpu)
		return "cpu-only";
	return "empty";
}

/* The cache placement is about: the largest direct-mapped one, else the largest; NULL when none. */
static const struct pmemram_cache *node_cache(const struct pmemram_node *n)
{
	const struct pmemram_cache *best = NULL;

	for (size_t k = 0; k < n->n_caches; k++) {
		const struct pmemram_cache *c = &n->caches[k];
		bool dm = c->indexing == PMEMRAM_CACHE_DIRECT_MAPPED;

		if (!best || (dm && best->indexing != PMEMRAM_CACHE_DIRECT_MAPPED) ||
		    (dm == (best->indexing == PMEMRAM_CACHE_DIRECT_MAPPED) && c->size > best->size))
			best = c;
	}
	return best;
}

/* The kernel shows access0 with every figure 0 when the HMAT names the node but gives none. */
static bool has_hmat_figures(const struct pmemram_node *n)
{
	const struct pmemram_access *a = &n->access0;

	return a->present && (a->read_latency || a->write_latency || a->read_bandwidth || a->write_bandwidth);
}

static void print_nodes(const struct status *s)
{
	char size[32];

	printf("NUMA nodes:\n");
	for (size_t i = 0; i < s->topology->n_nodes; i++) {
		const struct pmemram_node *n = &s->topology->nodes[i];

		printf("  node%-3d %-12s MemTotal %-10s", n->id, node_kind(n),
		       pmemram_format_size(n->mem_total, size, sizeof(size)));
		if (n->tier >= 0)
			printf(" tier %d (abstract distance %ld-%ld)", n->tier, tier_adistance(n->tier, false),
			       tier_adistance(n->tier, true));
		printf("\n");

		for (size_t k = 0; k < n->n_caches; k++) {
			const struct pmemram_cache *c = &n->caches[k];

			printf("          memory-side cache L%u: %s", c->level,
			       pmemram_format_size(c->size, size, sizeof(size)));
			printf(", line %s, %s, %s\n", pmemram_format_size(c->line_size, size, sizeof(size)),
			       pmemram_cache_indexing_to_string(c->indexing),
			       pmemram_cache_write_policy_to_string(c->write_policy));
		}

		if (has_hmat_figures(n))
			printf("          access0: latency %" PRIu64 "/%" PRIu64 " ns, bandwidth %" PRIu64
			       "/%" PRIu64 " MB/s (read/write)\n",
			       n->access0.read_latency, n->access0.write_latency, n->access0.read_bandwidth,
			       n->access0.write_bandwidth);
		else if (n->has_memory)
			printf("          access0: no HMAT figures for this node\n");
	}
}

/* "from hmem.0 (hmem), 0x60000000-0x6fffffff; onlined by pmemram, releasable" */
static void print_provenance(const struct pmemram_dax *d, const struct pmemram_provenance *p)
{
	uint64_t last;

	printf("           from %s", pmemram_dax_source_to_string(p->source));
	if (p->namespace[0])
		printf(" %s%s%s%s", p->namespace, p->uuid[0] ? " (" : "", p->uuid, p->uuid[0] ? ")" : "");
	else if (p->provider[0])
		printf(" %s", p->provider);
	if (pmemram_dax_last_byte(d, &last))
		printf(", 0x%" PRIx64 "-0x%" PRIx64, d->resource, last);
	if (d->mode == PMEMRAM_DAX_SYSTEM_RAM)
		printf("; onlined by %s, %s",
		       !p->onlined_by			 ? "unknown"
		       : streq(p->onlined_by, "pmemram") ? "pmemram"
		       : streq(p->onlined_by, "kernel")	 ? "the kernel, at probe"
							 : "another tool",
		       p->releasable_unknown ? "releasable unknown"
		       : p->releasable	     ? "releasable"
					     : "not releasable (blocks outside Movable, or missing)");
	printf("\n");
}

static void print_dax(const struct status *s)
{
	char size[32];

	printf("DAX devices:\n");
	if (s->dax->n_devices == 0)
		printf("  none\n");

	for (size_t i = 0; i < s->dax->n_devices; i++) {
		const struct pmemram_dax *d = &s->dax->devices[i];

		printf("  %-8s %-11s", d->name, pmemram_dax_mode_to_string(d->mode));
		if (d->target_node >= 0)
			printf(" node %-3d", d->target_node);
		else
			printf(" no node ");
		printf(" %s", pmemram_format_size(d->size, size, sizeof(size)));
		if (d->mode == PMEMRAM_DAX_OTHER)
			printf(" (driver %s)", d->driver);
		printf("\n");
		print_provenance(d, &s->provenance[i]);
	}
}

static void print_blocks(const struct status *s)
{
	char size[32];

	printf("Memory blocks: %zu of %s, auto_online_blocks: %s\n", s->memory->n_blocks,
	       pmemram_format_size(s->memory->block_size, size, sizeof(size)),
	       pmemram_auto_online_to_string(s->memory->auto_online));

	for (size_t i = 0; i < s->summary->n_nodes; i++) {
		const struct pmemram_memory_node_summary *n = &s->summary->nodes[i];
		const char *sep = " (";

		if (n->node >= 0)
			printf("  node%-3d online %zu", n->node, n->online_total);
		else
			printf("  no node online %zu", n->online_total);

		for (int z = 0; z < _PMEMRAM_ZONE_MAX; z++) {
			if (n->online[z] == 0)
				continue;
			printf("%s%s %zu", sep, pmemram_zone_to_string((enum pmemram_zone)z), n->online[z]);
			sep = ", ";
		}
		printf("%s, offline %zu", n->online_total > 0 ? ")" : "", n->offline);
		if (n->going_offline > 0)
			printf(", going-offline %zu", n->going_offline);
		printf("\n");
	}
}

/* The node's state and needs on a kernel that switches nodes at runtime; NULL on others. */
static const struct pmemram_shuffle_policy_node *policy_node(const struct status *s, int node)
{
	if (s->shuffle.policy_r < 0 || !s->shuffle.policy.live)
		return NULL;
	for (size_t i = 0; i < s->shuffle.policy.n_nodes; i++)
		if (s->shuffle.policy.nodes[i].node == node)
			return &s->shuffle.policy.nodes[i];
	return NULL;
}

/* Per node: the cache that matters for placement and whether its free lists are shuffled. */
static void print_shuffle(const struct status *s)
{
	const struct pmemram_shuffle *k = &s->shuffle.kernel;
	char size[32];

	ctl_shuffle_print(&s->shuffle, s->policy_origin, false);
	for (size_t i = 0; i < s->topology->n_nodes; i++) {
		const struct pmemram_shuffle_policy_node *pn = policy_node(s, s->topology->nodes[i].id);
		const struct pmemram_node *n = &s->topology->nodes[i];
		const struct pmemram_cache *c = node_cache(n);

		if (!n->has_memory)
			continue;
		printf("  node%-3d ", n->id);
		if (!c)
			printf("%-34s", "no memory-side cache");
		else {
			char text[64];

			snprintf(text, sizeof(text), "%s %s cache", pmemram_format_size(c->size, size, sizeof(size)),
				 pmemram_cache_indexing_to_string(c->indexing));
			printf("%-34s", text);
		}
		if (pn) { /* switched at runtime: this node's own state */
			char text[160];

			printf(" free lists %s, order %d\n", ctl_shuffle_node_text(pn, text, sizeof(text)), k->order);
			continue;
		}
		if (k->source == PMEMRAM_SHUFFLE_SYSFS)
			printf(" free lists %s (%s, order %d)", k->enabled ? "shuffled" : "not shuffled", k->reason, k->order);
		else if (k->source == PMEMRAM_SHUFFLE_PARAMETER)
			printf(" free lists %s", k->enabled ? "shuffled (page_alloc.shuffle=Y)" : "page_alloc.shuffle=N");
		if (s->shuffle.policy.state != PMEMRAM_SHUFFLE_POLICY_IN_EFFECT)
			printf("; pending: %s", pmemram_shuffle_policy_state_to_string(s->shuffle.policy.state));
		printf("\n");
	}
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

/* "on CXL region0, memdev 0x5eed0001" below a device whose memory is on CXL. */
static void print_cxl(struct json_object *cxl)
{
	struct json_object *memdevs;
	size_t n = 0;

	if (!cxl)
		return;
	memdevs = json_object_object_get(cxl, "memdevs");
	if (json_object_is_type(memdevs, json_type_array))
		n = json_object_array_length(memdevs);
	printf("  %-10s on CXL %s, memdev%s", "", jstr(cxl, "region") ?: "?", n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : " ", json_object_get_string(json_object_array_get_idx(memdevs, i)));
	printf("%s\n", n == 0 ? " unknown" : "");
}

/* A release in progress, with its blocks offline so far as the kernel shows them. */
static void print_releasing(const struct status *s, const char *device)
{
	size_t done, total;

	if (!device)
		return;
	for (size_t i = 0; s->dax && i < s->dax->n_devices; i++)
		if (streq(s->dax->devices[i].name, device) &&
		    ctl_device_blocks_count(&s->dax->devices[i], s->memory, false, &done, &total) >= 0) {
			printf("  releasing %s: %zu/%zu blocks offline\n", device, done, total);
			return;
		}
	printf("  releasing %s\n", device);
}

static void print_daemon(const struct status *s)
{
	struct json_object *d, *rec, *plan = NULL, *devices, *held, *unmatched, *daxctl;

	if (!s->daemon && ctl_daemon_absent(s->daemon_r)) {
		printf("\npmemramd: not running (%s: no daemon listening)\n", ctl_socket_path());
		return;
	}
	/* Something listens but gave no status: busy, stuck, or not pmemramd. */
	if (!s->daemon) {
		printf("\npmemramd: not answering (%s: %s)\n", ctl_socket_path(), strerror(-s->daemon_r));
		return;
	}
	if (!json_object_object_get_ex(s->daemon, "daemon", &d))
		return;
	printf("\npmemramd: running (pid %s), %s, configuration %s%s, last reconcile %s\n", jstr(d, "pid"),
	       json_object_get_boolean(json_object_object_get(d, "ready")) ? "ready" : "waiting for claimed devices",
	       jstr(d, "config_dir"),
	       json_object_get_boolean(json_object_object_get(d, "configured")) ? "" : " (none: nothing claimed)",
	       jstr(d, "last_reconcile_result"));
	if (jstr(d, "config_error"))
		printf("  last configuration reload FAILED (previous configuration in force): %s\n", jstr(d, "config_error"));
	if (jstr(d, "error"))
		printf("  cannot read the system: %s\n", jstr(d, "error"));
	if (json_object_object_get_ex(s->daemon, "reconcile", &rec) && json_object_object_get_ex(rec, "plan", &plan) &&
	    json_object_object_get_ex(plan, "devices", &devices))
		for (size_t i = 0; i < json_object_array_length(devices); i++) {
			struct json_object *v = json_object_array_get_idx(devices, i);

			printf("  %-10s %-10s %s\n", jstr(v, "device"), jstr(v, "verdict"), jstr(v, "text"));
			print_cxl(json_object_object_get(v, "cxl"));
		}
	/* A claim that matches nothing is most often a UUID copied from the wrong place. */
	if (plan && json_object_object_get_ex(plan, "unmatched_claims", &unmatched))
		for (size_t i = 0; i < json_object_array_length(unmatched); i++) {
			const char *name = json_object_get_string(json_object_array_get_idx(unmatched, i));
			const char *note = jstr(json_object_object_get(plan, "unmatched_notes"), name);

			/* "CXL origin of dax4.0 unreadable: ...": what may have kept it from matching */
			printf("  claim '%s' matches no device%s%s\n", name, note ? ": " : "", note ? note : "");
		}
	print_releasing(s, jstr(d, "releasing"));
	if (json_object_object_get_ex(d, "held", &held) && json_object_array_length(held) > 0) {
		printf("  held after release:");
		for (size_t i = 0; i < json_object_array_length(held); i++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(held, i)));
		printf("\n");
	}
	/* Where the claims from daxctl's files come from: FILE:LINE of each section. */
	if (json_object_object_get_ex(d, "daxctl", &daxctl))
		ctl_print_daxctl(jstr(d, "daxctl_dir"), daxctl);
}

static int print_human(const struct status *s)
{
	print_nodes(s);
	print_dax(s);
	print_blocks(s);
	print_shuffle(s);
	ctl_hotplug_print(&s->hotplug, s->hotplug_origin);
	if (s->demotion >= 0)
		printf("Memory-tier demotion: %s\n", s->demotion ? "enabled" : "disabled");
	if (s->promotion_r >= 0) {
		printf("Memory-tier promotion: %s (kernel.numa_balancing %u)",
		       s->promotion.tiering ? "enabled" : "disabled", s->promotion.numa_balancing);
		if (s->promotion.rate_mbps)
			printf(", at most %" PRIu64 " MB/s", s->promotion.rate_mbps);
		printf("\n");
	}
	print_daemon(s);
	return 0;
}

/* ---- JSON output ------------------------------------------------------------ */

/* Builders keep going after an allocation failure; *err remembers it. */
static void json_add(int *err, struct json_object *o, const char *key, struct json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

static void json_add_null(int *err, struct json_object *o, const char *key)
{
	if (!o || json_object_object_add(o, key, NULL) < 0)
		*err = -ENOMEM;
}

static void json_append(int *err, struct json_object *a, struct json_object *v)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

/* An int where negative means "none": JSON null. */
static void json_add_optional_int(int *err, struct json_object *o, const char *key, int v)
{
	if (v < 0)
		json_add_null(err, o, key);
	else
		json_add(err, o, key, json_object_new_int(v));
}

static struct json_object *json_cache(int *err, const struct pmemram_cache *c)
{
	struct json_object *o = json_object_new_object();

	json_add(err, o, "level", json_object_new_uint64(c->level));
	json_add(err, o, "size_bytes", json_object_new_uint64(c->size));
	json_add(err, o, "line_size_bytes", json_object_new_uint64(c->line_size));
	json_add(err, o, "indexing", json_object_new_string(pmemram_cache_indexing_to_string(c->indexing)));
	json_add(err, o, "write_policy",
		 json_object_new_string(pmemram_cache_write_policy_to_string(c->write_policy)));
	return o;
}

static struct json_object *json_node_shuffle(int *err, const struct status *s, const struct pmemram_node *n)
{
	const struct pmemram_shuffle *k = &s->shuffle.kernel;
	const struct pmemram_shuffle_node *kn = pmemram_shuffle_find_node(k, n->id);
	const struct pmemram_shuffle_policy_node *pn = policy_node(s, n->id);
	const struct pmemram_cache *c = node_cache(n);
	struct json_object *o = json_object_new_object();

	json_add(err, o, "cache_present", json_object_new_boolean(c != NULL));
	json_add(err, o, "direct_mapped", json_object_new_boolean(c && c->indexing == PMEMRAM_CACHE_DIRECT_MAPPED));
	if (c)
		json_add(err, o, "cache_size_bytes", json_object_new_uint64(c->size));
	else
		json_add_null(err, o, "cache_size_bytes");
	if (k->source == PMEMRAM_SHUFFLE_UNAVAILABLE) {
		json_add_null(err, o, "shuffled");
		json_add_null(err, o, "reason");
	} else {
		/* a kernel that switches nodes at runtime says it per node */
		json_add(err, o, "shuffled", json_object_new_boolean(kn ? kn->enabled : k->enabled));
		json_add(err, o, "reason", json_object_new_string(kn ? kn->reason : k->reason));
	}
	json_add_optional_int(err, o, "order", k->order);
	if (pn && pn->has_memory)
		json_add(err, o, "wanted", json_object_new_boolean(pn->wanted));
	else
		json_add_null(err, o, "wanted");
	if (pn)
		json_add(err, o, "action", json_object_new_string(pmemram_shuffle_node_action_to_string(pn->action)));
	else
		json_add_null(err, o, "action");
	if (pn && pn->action == PMEMRAM_SHUFFLE_NODE_KEEP)
		json_add_null(err, o, "pending"); /* in effect */
	else if (pn)
		json_add(err, o, "pending",
			 json_object_new_string(pn->action == PMEMRAM_SHUFFLE_NODE_FORCED_OFF ? "forced-off"
											      : "not-applied"));
	else if (s->shuffle.policy.state != PMEMRAM_SHUFFLE_POLICY_IN_EFFECT)
		json_add(err, o, "pending",
			 json_object_new_string(pmemram_shuffle_policy_state_to_string(s->shuffle.policy.state)));
	else
		json_add_null(err, o, "pending");
	return o;
}

static struct json_object *json_node(int *err, const struct status *s, const struct pmemram_node *n)
{
	struct json_object *o = json_object_new_object(), *caches = json_object_new_array();

	json_add(err, o, "node", json_object_new_int(n->id));
	json_add(err, o, "has_cpu", json_object_new_boolean(n->has_cpu));
	json_add(err, o, "has_memory", json_object_new_boolean(n->has_memory));
	json_add(err, o, "mem_total_bytes", json_object_new_uint64(n->mem_total));
	json_add_optional_int(err, o, "tier", n->tier);
	if (n->tier >= 0) {
		struct json_object *d = json_object_new_object();

		json_add(err, d, "min", json_object_new_int64(tier_adistance(n->tier, false)));
		json_add(err, d, "max", json_object_new_int64(tier_adistance(n->tier, true)));
		json_add(err, o, "tier_abstract_distance", d);
	} else
		json_add_null(err, o, "tier_abstract_distance");

	for (size_t k = 0; k < n->n_caches; k++)
		json_append(err, caches, json_cache(err, &n->caches[k]));
	json_add(err, o, "memory_side_caches", caches);
	json_add(err, o, "shuffle", json_node_shuffle(err, s, n));

	if (has_hmat_figures(n)) {
		struct json_object *a = json_object_new_object();

		json_add(err, a, "read_latency_ns", json_object_new_uint64(n->access0.read_latency));
		json_add(err, a, "write_latency_ns", json_object_new_uint64(n->access0.write_latency));
		json_add(err, a, "read_bandwidth_mbps", json_object_new_uint64(n->access0.read_bandwidth));
		json_add(err, a, "write_bandwidth_mbps", json_object_new_uint64(n->access0.write_bandwidth));
		json_add(err, o, "access0", a);
	} else
		json_add_null(err, o, "access0");
	return o;
}

static struct json_object *json_dax(int *err, const struct pmemram_dax *d, const struct pmemram_provenance *p)
{
	struct json_object *o = json_object_new_object(), *prov = pmemram_provenance_to_json(d, p);
	char resource[32];

	json_add(err, o, "device", json_object_new_string(d->name));
	if (d->driver[0])
		json_add(err, o, "driver", json_object_new_string(d->driver));
	else
		json_add_null(err, o, "driver");
	json_add(err, o, "mode", json_object_new_string(pmemram_dax_mode_to_string(d->mode)));
	json_add_optional_int(err, o, "target_node", d->target_node);
	json_add(err, o, "size_bytes", json_object_new_uint64(d->size));
	if (d->align > 0)
		json_add(err, o, "align_bytes", json_object_new_uint64(d->align));
	else
		json_add_null(err, o, "align_bytes");
	if (d->has_resource) {
		snprintf(resource, sizeof(resource), "0x%" PRIx64, d->resource);
		json_add(err, o, "resource", json_object_new_string(resource));
	} else
		json_add_null(err, o, "resource");
	/* the provenance's keys that the device's own do not already give */
	if (!prov)
		*err = -ENOMEM;
	else {
		json_object_object_foreach(prov, key, value)
		{
			if (json_object_object_get_ex(o, key, NULL))
				continue;
			if (value)
				json_add(err, o, key, json_object_get(value));
			else
				json_add_null(err, o, key);
		}
	}
	json_object_put(prov);
	return o;
}

static struct json_object *json_block_node(int *err, const struct pmemram_memory_node_summary *n)
{
	struct json_object *o = json_object_new_object(), *online = json_object_new_object();

	json_add_optional_int(err, o, "node", n->node);
	for (int z = 0; z < _PMEMRAM_ZONE_MAX; z++)
		if (n->online[z] > 0)
			json_add(err, online, pmemram_zone_to_string((enum pmemram_zone)z),
				 json_object_new_uint64(n->online[z]));
	json_add(err, o, "online", online);
	json_add(err, o, "online_total", json_object_new_uint64(n->online_total));
	json_add(err, o, "offline", json_object_new_uint64(n->offline));
	json_add(err, o, "going_offline", json_object_new_uint64(n->going_offline));
	return o;
}

/* {"running": false, "socket": ...} or pmemramd's reply with "running": true in place of "ok". */
static struct json_object *json_daemon(int *err, const struct status *s)
{
	struct json_object *o;

	if (!s->daemon) {
		bool absent = ctl_daemon_absent(s->daemon_r);

		o = json_object_new_object();
		json_add(err, o, "running", json_object_new_boolean(!absent));
		if (!absent) {
			json_add(err, o, "answering", json_object_new_boolean(false));
			json_add(err, o, "error", json_object_new_string(strerror(-s->daemon_r)));
		}
		json_add(err, o, "socket", json_object_new_string(ctl_socket_path()));
		return o;
	}
	o = json_object_get(s->daemon);
	json_object_object_del(o, "ok");
	json_add(err, o, "running", json_object_new_boolean(true));
	json_add(err, o, "socket", json_object_new_string(ctl_socket_path()));
	return o;
}

static int print_json(const struct status *s)
{
	struct json_object *root = json_object_new_object(), *nodes = json_object_new_array(),
			   *dax = json_object_new_array(), *memory = json_object_new_object(),
			   *per_node = json_object_new_array();
	int err = 0;

	json_add(&err, root, "schema_version", json_object_new_int(STATUS_SCHEMA_VERSION));
	json_add(&err, root, "sysfs_root", json_object_new_string(s->sysfs_root));

	for (size_t i = 0; i < s->topology->n_nodes; i++)
		json_append(&err, nodes, json_node(&err, s, &s->topology->nodes[i]));
	json_add(&err, root, "nodes", nodes);

	for (size_t i = 0; i < s->dax->n_devices; i++)
		json_append(&err, dax, json_dax(&err, &s->dax->devices[i], &s->provenance[i]));
	json_add(&err, root, "dax_devices", dax);

	json_add(&err, memory, "block_size_bytes", json_object_new_uint64(s->memory->block_size));
	json_add(&err, memory, "auto_online_blocks",
		 json_object_new_string(pmemram_auto_online_to_string(s->memory->auto_online)));
	json_add(&err, memory, "blocks", json_object_new_uint64(s->memory->n_blocks));
	for (size_t i = 0; i < s->summary->n_nodes; i++)
		json_append(&err, per_node, json_block_node(&err, &s->summary->nodes[i]));
	json_add(&err, memory, "nodes", per_node);
	json_add(&err, root, "memory", memory);

	json_add(&err, root, "shuffle", ctl_shuffle_json(&s->shuffle, s->policy_origin));
	json_add(&err, root, "hotplug", ctl_hotplug_json(&s->hotplug, s->hotplug_origin));
	if (s->demotion >= 0)
		json_add(&err, root, "demotion_enabled", json_object_new_boolean(s->demotion));
	else
		json_add_null(&err, root, "demotion_enabled");
	if (s->promotion_r >= 0)
		json_add(&err, root, "promotion", pmemram_promotion_to_json(s->promotion_r, &s->promotion));
	else
		json_add_null(&err, root, "promotion");

	json_add(&err, root, "daemon", json_daemon(&err, s));

	return ctl_print_json(root, err >= 0);
}

/* ---- command ---------------------------------------------------------------- */

static void status_help(void)
{
	printf("Usage: %s status [--json]\n"
	       "\n"
	       "Show NUMA nodes (cpu/memory, MemTotal, memory tier, memory-side caches, access0\n"
	       "performance), dax devices, memory blocks per node and zone, the auto-online policy\n"
	       "and the page allocator shuffling state.\n"
	       "\n"
	       "  -h --help   Show this help\n"
	       "  -j --json   Print JSON (schema in pmemramctl(8))\n",
	       program_invocation_short_name);
}

int cmd_status(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{},
	};
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	/* Its shuffle state holds two tables of PMEMRAM_MAX_NODES entries, some 90 KiB: not on the stack. */
	_cleanup_(status_freep) struct status *s = NULL;
	bool json = g->json;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hj", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			status_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return ctl_unknown_option("status", argv);
		}
	}
	if (optind < argc)
		return ctl_usage_error("status", "unexpected argument '%s'", argv[optind]);

	r = ctl_ctx_new(&ctx);
	if (r < 0)
		return CTL_EXIT_SYSTEM;
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
		return CTL_EXIT_SYSTEM;
	}

	r = status_read(ctx, s);
	if (r != CTL_EXIT_OK)
		return r;

	r = json ? print_json(s) : print_human(s);
	if (r < 0) {
		fprintf(stderr, "%s: cannot format status: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: cannot write output: %m\n", program_invocation_short_name);
		return CTL_EXIT_SYSTEM;
	}
	return CTL_EXIT_OK;
}
