/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Prometheus text format of pmemramd's state: counts, per-node memory, caches, tiers, classes. */
#include <inttypes.h>

#include "macro.h"
#include "pmemram-metrics.h"

#define LABELS_MAX 4

/* One sample's labels: names and values side by side, n of them. */
struct labels {
	size_t n;
	const char *name[LABELS_MAX];
	const char *value[LABELS_MAX];
};

void pmemram_metrics_write_label_value(const char *s, FILE *f)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void header(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void sample_start(FILE *f, const char *name, const struct labels *l)
{
	fputs(name, f);
	for (size_t i = 0; l && i < l->n; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "{", l->name[i]);
		pmemram_metrics_write_label_value(l->value[i], f);
		fputc('"', f);
	}
	if (l && l->n)
		fputc('}', f);
	fputc(' ', f);
}

static void sample(FILE *f, const char *name, const struct labels *l, uint64_t value)
{
	sample_start(f, name, l);
	fprintf(f, "%" PRIu64 "\n", value);
}

static void sample_seconds(FILE *f, const char *name, const struct labels *l, uint64_t usec)
{
	sample_start(f, name, l);
	fprintf(f, "%" PRIu64 ".%06" PRIu64 "\n", usec / (uint64_t)USEC_PER_SEC, usec % (uint64_t)USEC_PER_SEC);
}

/* A family of one unlabelled sample. */
static void single(FILE *f, const char *name, const char *type, const char *help, uint64_t value)
{
	header(f, name, type, help);
	sample(f, name, NULL, value);
}

static bool count_same(const struct pmemram_metrics_count *x, const struct pmemram_metrics_count *y)
{
	return streq_ptr(x->a, y->a) && streq_ptr(x->b, y->b);
}

/* A family of counts under labels a_name (and b_name), equal values added up. */
static void counts(FILE *f, const char *name, const char *type, const char *help, const char *a_name,
		   const char *b_name, const struct pmemram_metrics_count *c, size_t n)
{
	bool headed = false;

	for (size_t i = 0; i < n; i++) {
		struct labels l = { .n = c[i].b ? 2 : 1, .name = { a_name, b_name }, .value = { c[i].a, c[i].b } };
		uint64_t sum = 0;
		bool seen = false;

		if (!c[i].a)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = count_same(&c[k], &c[i]);
		if (seen)
			continue;
		for (size_t k = i; k < n; k++)
			if (count_same(&c[k], &c[i]))
				sum += c[k].n;
		if (!headed)
			header(f, name, type, help);
		headed = true;
		sample(f, name, &l, sum);
	}
}

static void reconciles(const struct pmemram_metrics *m, FILE *f)
{
	counts(f, "pmemram_reconciles_total", "counter", "Reconciles that ended, by result.", "result", NULL,
	       m->reconciles, m->n_reconciles);
	header(f, "pmemram_reconcile_seconds_total", "counter", "Time spent reconciling.");
	sample_seconds(f, "pmemram_reconcile_seconds_total", NULL, m->reconcile_usec_total);
	if (m->last_reconcile_time_usec == 0)
		return;
	header(f, "pmemram_last_reconcile_duration_seconds", "gauge", "How long the last reconcile took.");
	sample_seconds(f, "pmemram_last_reconcile_duration_seconds", NULL, m->last_reconcile_usec);
	header(f, "pmemram_last_reconcile_timestamp_seconds", "gauge", "When the last reconcile ended, in Unix time.");
	sample_seconds(f, "pmemram_last_reconcile_timestamp_seconds", NULL, m->last_reconcile_time_usec);
}

static void devices(const struct pmemram_metrics *m, FILE *f)
{
	if (!m->devices_known)
		return;
	counts(f, "pmemram_dax_devices", "gauge",
	       "Dax devices by driver state and source (nvdimm, hmem, cxl or unknown).", "state", "source", m->devices,
	       m->n_devices);
	counts(f, "pmemram_claimed_devices", "gauge", "Claimed devices and namespaces by verdict and reason.",
	       "verdict", "reason", m->verdicts, m->n_verdicts);
	single(f, "pmemram_unmatched_claims", "gauge", "Claims that match no device.", m->n_unmatched_claims);
	single(f, "pmemram_kmem_online_bytes", "gauge", "Memory of claimed devices online in the claimed zone.",
	       m->kmem_online_bytes);
}

static void node_memory(const struct pmemram_metrics *m, FILE *f)
{
	static const char total[] = "pmemram_node_memory_total_bytes", online[] = "pmemram_node_dax_online_bytes";
	bool headed = false;

	if (m->n_nodes > 0)
		header(f, total, "gauge", "The kernel's MemTotal of a NUMA node.");
	for (size_t i = 0; i < m->n_nodes; i++) {
		char node[16];
		struct labels l = { 1, { "node" }, { node } };

		(void)snprintf(node, sizeof(node), "%d", m->nodes[i].id);
		sample(f, total, &l, m->nodes[i].mem_total);
	}
	for (size_t i = 0; i < m->n_nodes; i++) {
		const struct pmemram_metrics_node *n = &m->nodes[i];
		char node[16];

		if (!n->online_known)
			continue;
		(void)snprintf(node, sizeof(node), "%d", n->id);
		for (int z = 0; z < _PMEMRAM_ZONE_MAX; z++) {
			struct labels l = { 2, { "node", "zone" }, { node, pmemram_zone_to_string(z) } };

			if (n->online_bytes[z] == 0)
				continue;
			if (!headed)
				header(f, online, "gauge",
				       "Memory of dax devices (kmem) online per NUMA node and zone, in whole memory blocks.");
			headed = true;
			sample(f, online, &l, n->online_bytes[z]);
		}
	}
}

static void node_caches(const struct pmemram_metrics *m, FILE *f)
{
	static const char name[] = "pmemram_node_memory_side_cache_bytes";
	bool headed = false;

	for (size_t i = 0; i < m->n_nodes; i++) {
		const struct pmemram_metrics_node *n = &m->nodes[i];
		char node[16], level[16];

		(void)snprintf(node, sizeof(node), "%d", n->id);
		for (size_t k = 0; k < n->n_caches; k++) {
			const struct pmemram_cache *c = &n->caches[k];
			const char *indexing = pmemram_cache_indexing_to_string(c->indexing);
			const char *policy = pmemram_cache_write_policy_to_string(c->write_policy);
			struct labels l = { 4,
					    { "node", "level", "indexing", "write_policy" },
					    { node, level, indexing ? indexing : "other", policy ? policy : "other" } };

			(void)snprintf(level, sizeof(level), "%u", c->level);
			if (!headed)
				header(f, name, "gauge", "Memory-side cache in front of a NUMA node's memory (HMAT).");
			headed = true;
			sample(f, name, &l, c->size);
		}
	}
}

static void node_tiers(const struct pmemram_metrics *m, FILE *f)
{
	bool headed = false;

	for (size_t i = 0; i < m->n_nodes; i++) {
		char node[16];
		struct labels l = { 1, { "node" }, { node } };

		if (m->nodes[i].tier < 0)
			continue;
		(void)snprintf(node, sizeof(node), "%d", m->nodes[i].id);
		if (!headed)
			header(f, "pmemram_node_memory_tier", "gauge",
			       "The kernel's memory tier of a NUMA node (N of memory_tierN; lower is faster).");
		headed = true;
		sample(f, "pmemram_node_memory_tier", &l, (uint64_t)m->nodes[i].tier);
	}
}

/* One family per kernel counter name, in the order the nodes first show them. */
static void node_vmstat(const struct pmemram_metrics *m, FILE *f)
{
	for (size_t i = 0; i < m->n_nodes; i++)
		for (size_t k = 0; k < m->nodes[i].n_vmstat; k++) {
			const char *counter = m->nodes[i].vmstat[k].name;
			char name[PMEMRAM_VMSTAT_NAME_MAX + 32], help[PMEMRAM_VMSTAT_NAME_MAX + 64];
			bool seen = false;

			for (size_t p = 0; p <= i && !seen; p++)
				for (size_t q = 0; q < (p == i ? k : m->nodes[p].n_vmstat) && !seen; q++)
					seen = streq(m->nodes[p].vmstat[q].name, counter);
			if (seen)
				continue;
			(void)snprintf(name, sizeof(name), "pmemram_node_%s_total", counter);
			(void)snprintf(help, sizeof(help), "The kernel's %s counter of a NUMA node (pages).", counter);
			header(f, name, "counter", help);
			for (size_t p = i; p < m->n_nodes; p++)
				for (size_t q = 0; q < m->nodes[p].n_vmstat; q++) {
					char node[16];
					struct labels l = { 1, { "node" }, { node } };

					if (!streq(m->nodes[p].vmstat[q].name, counter))
						continue;
					(void)snprintf(node, sizeof(node), "%d", m->nodes[p].id);
					sample(f, name, &l, m->nodes[p].vmstat[q].value);
				}
		}
}

static void system_vmstat(const struct pmemram_metrics *m, FILE *f)
{
	for (size_t i = 0; i < m->n_vmstat; i++) {
		char name[PMEMRAM_VMSTAT_NAME_MAX + 32], help[PMEMRAM_VMSTAT_NAME_MAX + 64];

		(void)snprintf(name, sizeof(name), "pmemram_%s_total", m->vmstat[i].name);
		(void)snprintf(help, sizeof(help), "The kernel's %s counter of the whole system (pages).",
			       m->vmstat[i].name);
		single(f, name, "counter", help, m->vmstat[i].value);
	}
}

static void shuffle(const struct pmemram_metrics *m, FILE *f)
{
	if (m->shuffle) {
		const char *source = pmemram_shuffle_source_to_string(m->shuffle->source);
		struct labels l = { 2, { "source", "reason" }, { source ? source : "unavailable", m->shuffle->reason } };

		header(f, "pmemram_page_shuffle_enabled", "gauge",
		       "Whether the page allocator shuffles its free lists (the kernel's state, for every node).");
		sample(f, "pmemram_page_shuffle_enabled", &l, m->shuffle->enabled);
	}
	if (m->shuffle_policy && m->shuffle_policy_state) {
		struct labels l = { 2, { "policy", "state" }, { m->shuffle_policy, m->shuffle_policy_state } };

		header(f, "pmemram_shuffle_policy", "gauge", "The configured shuffle policy and where it stands (always 1).");
		sample(f, "pmemram_shuffle_policy", &l, 1);
	}
	if (m->hotplug_policy && m->hotplug_policy_state) {
		struct labels l = { 2, { "policy", "state" }, { m->hotplug_policy, m->hotplug_policy_state } };

		header(f, "pmemram_hotplug_policy", "gauge",
		       "The configured hotplug policy and where it stands (always 1).");
		sample(f, "pmemram_hotplug_policy", &l, 1);
	}
	if (m->demotion >= 0)
		single(f, "pmemram_demotion_enabled", "gauge", "The kernel's memory-tier demotion switch.",
		       (uint64_t)m->demotion);
}

/* What each class's slice cgroup holds per node, and how much of it is outside the class's nodes. */
static void class_memory(const struct pmemram_metrics *m, FILE *f)
{
	static const char memory[] = "pmemram_class_memory_bytes", outside[] = "pmemram_class_memory_outside_bytes";
	bool headed = false;

	for (size_t i = 0; i < m->n_classes; i++) {
		const struct pmemram_numa_usage *u = m->classes[i].usage;

		PMEMRAM_NODEMASK_FOREACH(node, u ? &u->nodes : &(struct pmemram_nodemask){}) {
			char id[16];
			struct labels l = { 2, { "class", "node" }, { m->classes[i].name, id } };

			(void)snprintf(id, sizeof(id), "%d", node);
			if (!headed)
				header(f, memory, "gauge",
				       "Memory of a tiering class's slice cgroup on a NUMA node (anon and file of memory.numa_stat).");
			headed = true;
			sample(f, memory, &l, u->bytes[node]);
		}
	}
	headed = false;
	for (size_t i = 0; i < m->n_classes; i++) {
		struct labels l = { 1, { "class" }, { m->classes[i].name } };

		if (!m->classes[i].usage || !m->classes[i].resolved)
			continue;
		if (!headed)
			header(f, outside, "gauge",
			       "Memory of a tiering class's slice cgroup on NUMA nodes that are not the class's.");
		headed = true;
		sample(f, outside, &l, m->classes[i].bytes_outside);
	}
}

/* Each weighted-interleave class's weight per node, and whether the kernel has them. */
static void class_weights(const struct pmemram_metrics *m, FILE *f)
{
	bool headed = false;

	for (size_t i = 0; i < m->n_classes; i++) {
		const struct pmemram_weights *w = m->classes[i].weights;
		struct labels one = { 1, { "class" }, { m->classes[i].name } };

		if (!w)
			continue;
		if (!headed) {
			header(f, "pmemram_class_weights_in_force", "gauge",
			       "Whether the kernel's weighted-interleave weights were a class's at pmemramd's "
			       "last pass over the classes.");
			headed = true;
		}
		sample(f, "pmemram_class_weights_in_force", &one, m->classes[i].weights_in_force);
	}
	headed = false;
	for (size_t i = 0; i < m->n_classes; i++)
		for (size_t k = 0; m->classes[i].weights && k < m->classes[i].weights->n; k++) {
			char id[16];
			struct labels l = { 2, { "class", "node" }, { m->classes[i].name, id } };

			(void)snprintf(id, sizeof(id), "%u", m->classes[i].weights->w[k].node);
			if (!headed)
				header(f, "pmemram_class_interleave_weight", "gauge",
				       "A weighted-interleave class's weight for a node (the kernel's when in force).");
			headed = true;
			sample(f, "pmemram_class_interleave_weight", &l, m->classes[i].weights->w[k].weight);
		}
}

static void classes(const struct pmemram_metrics *m, FILE *f)
{
	bool headed = false;

	if (m->n_classes == 0)
		return;
	header(f, "pmemram_class_resolved", "gauge", "Whether a tiering class resolved to some NUMA nodes.");
	for (size_t i = 0; i < m->n_classes; i++) {
		struct labels l = { 1, { "class" }, { m->classes[i].name } };

		sample(f, "pmemram_class_resolved", &l, m->classes[i].resolved);
	}
	for (size_t i = 0; i < m->n_classes; i++)
		PMEMRAM_NODEMASK_FOREACH(node, &m->classes[i].nodes) {
			char id[16];
			struct labels l = { 2, { "class", "node" }, { m->classes[i].name, id } };

			(void)snprintf(id, sizeof(id), "%d", node);
			if (!headed)
				header(f, "pmemram_class_node", "gauge", "The NUMA nodes of a tiering class (always 1).");
			headed = true;
			sample(f, "pmemram_class_node", &l, 1);
		}
	class_weights(m, f);
	class_memory(m, f);
}

int pmemram_metrics_write(const struct pmemram_metrics *m, FILE *f)
{
	if (!m || !f)
		return -EINVAL;
	single(f, "pmemram_ready", "gauge", "Whether pmemramd told systemd it is ready.", m->ready);
	single(f, "pmemram_uevents_total", "counter", "Uevents received.", m->uevents);
	single(f, "pmemram_uevents_lost_total", "counter", "Uevent receive failures (each reconciles everything).",
	       m->uevents_lost);
	reconciles(m, f);
	devices(m, f);
	counts(f, "pmemram_release_failures_total", "counter", "Releases that failed, by outcome and error.", "outcome",
	       "error", m->release_failures, m->n_release_failures);
	node_memory(m, f);
	node_caches(m, f);
	node_tiers(m, f);
	shuffle(m, f);
	classes(m, f);
	node_vmstat(m, f);
	system_vmstat(m, f);
	return ferror(f) ? -EIO : 0;
}

int pmemram_metrics_format(const struct pmemram_metrics *m, char **ret, size_t *ret_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!m || !ret || !ret_len)
		return -EINVAL;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	r = pmemram_metrics_write(m, f);
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0) {
		free(text);
		return r == -EIO ? -ENOMEM : r;
	}
	*ret = text;
	*ret_len = len;
	return 0;
}
