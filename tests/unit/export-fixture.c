/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state behind the export formatters' tests and the sample program, as pmemramd would gather it. */
#include "export-fixture.h"

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

static const struct pmemram_metrics_count reconciles[] = {
	{ "converged", NULL, 3 },
	{ "failed", NULL, 1 },
};
static const struct pmemram_metrics_count devices[] = {
	{ "system-ram", "nvdimm", 1 },
	{ "devdax", "nvdimm", 1 },
	{ "system-ram", "nvdimm", 1 },
	{ "devdax", "hmem", 1 },
};
static const struct pmemram_metrics_count verdicts[] = {
	{ "converged", "none", 2 },
	{ "refused", "mapped", 1 },
};
static const struct pmemram_metrics_count release_failures[] = {
	{ "rolled-back", "EBUSY", 1 },
	{ "incomplete", "ETIMEDOUT", 1 },
	{ "rolled-back", "EBUSY", 1 },
};
static const struct pmemram_cache node1_cache = {
	.level = 1,
	.size = 128 * MIB,
	.line_size = 64,
	.indexing = PMEMRAM_CACHE_DIRECT_MAPPED,
	.write_policy = PMEMRAM_CACHE_WRITE_BACK,
};
static const struct pmemram_vmstat_counter node0_vmstat[] = { { "pgpromote_success", 0 }, { "pgdemote_kswapd", 3 } };
static const struct pmemram_vmstat_counter node2_vmstat[] = { { "pgpromote_success", 17 }, { "pgdemote_kswapd", 5 } };
static const struct pmemram_vmstat_counter system_vmstat[] = { { "pgpromote_success", 17 }, { "pgdemote_kswapd", 8 } };
static const struct pmemram_shuffle shuffle = { .source = PMEMRAM_SHUFFLE_SYSFS, .enabled = true, .reason = "hmat", .order = 10 };
static struct pmemram_metrics_node nodes[3];
static struct pmemram_metrics_class classes[2];
static struct pmemram_numa_usage fast_usage; /* slow's slice has no cgroup */

static void fill_nodes(void)
{
	nodes[0] = (struct pmemram_metrics_node){ .id = 0, .tier = 4, .mem_total = GIB, .online_known = true, .n_vmstat = 2, .vmstat = node0_vmstat };
	nodes[1] = (struct pmemram_metrics_node){ .id = 1, .tier = 4, .mem_total = GIB, .online_known = true, .n_caches = 1, .caches = &node1_cache };
	nodes[2] = (struct pmemram_metrics_node){ .id = 2, .tier = 22, .mem_total = 896 * MIB, .online_known = true, .n_vmstat = 2, .vmstat = node2_vmstat };
	nodes[2].online_bytes[PMEMRAM_ZONE_MOVABLE] = 896 * MIB;
	classes[0] = (struct pmemram_metrics_class){ .name = "fast", .resolved = true };
	pmemram_nodemask_set(&classes[0].nodes, 0);
	pmemram_nodemask_set(&classes[0].nodes, 1);
	fast_usage = (struct pmemram_numa_usage){ .bytes = { 64 * MIB, 0, 4096 } };
	for (unsigned n = 0; n < 3; n++)
		pmemram_nodemask_set(&fast_usage.nodes, n);
	classes[0].usage = &fast_usage;
	classes[0].bytes_outside = 4096;
	classes[1] = (struct pmemram_metrics_class){ .name = "slow", .resolved = true };
	pmemram_nodemask_set(&classes[1].nodes, 2);
}

void export_fixture_metrics(struct pmemram_metrics *m)
{
	fill_nodes();
	*m = (struct pmemram_metrics){
		.ready = true,
		.uevents = 12,
		.uevents_lost = 0,
		.n_reconciles = 2,
		.reconciles = reconciles,
		.reconcile_usec_total = 1250000,
		.last_reconcile_usec = 42000,
		.last_reconcile_time_usec = UINT64_C(1714564800) * 1000000 + 5,
		.devices_known = true,
		.n_devices = 4,
		.devices = devices,
		.n_verdicts = 2,
		.verdicts = verdicts,
		.n_unmatched_claims = 1,
		.kmem_online_bytes = 896 * MIB,
		.n_release_failures = 3,
		.release_failures = release_failures,
		.shuffle = &shuffle,
		.n_vmstat = 2,
		.vmstat = system_vmstat,
		.shuffle_policy = "auto",
		.shuffle_policy_state = "in-effect",
		.demotion = 1,
		.n_nodes = 3,
		.nodes = nodes,
		.n_classes = 2,
		.classes = classes,
	};
}

void export_fixture_nfd(struct pmemram_nfd *n, uint64_t expiry_usec)
{
	fill_nodes();
	*n = (struct pmemram_nfd){
		.expiry_usec = expiry_usec,
		.kmem_online_bytes = 896 * MIB,
		.shuffle = &shuffle,
		.n_classes = 2,
		.classes = classes,
	};
	pmemram_nodemask_set(&n->slow_nodes, 2);
	pmemram_nodemask_set(&n->direct_mapped_nodes, 1);
}
