/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the Prometheus text of pmemramd's state: the exact output, escaping, what is left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "export-fixture.h"
#include "macro.h"

/* The whole file for the bench's topology, family by family. */
static const char expected[] =
	"# HELP pmemram_ready Whether pmemramd told systemd it is ready.\n"
	"# TYPE pmemram_ready gauge\n"
	"pmemram_ready 1\n"
	"# HELP pmemram_uevents_total Uevents received.\n"
	"# TYPE pmemram_uevents_total counter\n"
	"pmemram_uevents_total 12\n"
	"# HELP pmemram_uevents_lost_total Uevent receive failures (each reconciles everything).\n"
	"# TYPE pmemram_uevents_lost_total counter\n"
	"pmemram_uevents_lost_total 0\n"
	"# HELP pmemram_reconciles_total Reconciles that ended, by result.\n"
	"# TYPE pmemram_reconciles_total counter\n"
	"pmemram_reconciles_total{result=\"converged\"} 3\n"
	"pmemram_reconciles_total{result=\"failed\"} 1\n"
	"# HELP pmemram_reconcile_seconds_total Time spent reconciling.\n"
	"# TYPE pmemram_reconcile_seconds_total counter\n"
	"pmemram_reconcile_seconds_total 1.250000\n"
	"# HELP pmemram_last_reconcile_duration_seconds How long the last reconcile took.\n"
	"# TYPE pmemram_last_reconcile_duration_seconds gauge\n"
	"pmemram_last_reconcile_duration_seconds 0.042000\n"
	"# HELP pmemram_last_reconcile_timestamp_seconds When the last reconcile ended, in Unix time.\n"
	"# TYPE pmemram_last_reconcile_timestamp_seconds gauge\n"
	"pmemram_last_reconcile_timestamp_seconds 1714564800.000005\n"
	"# HELP pmemram_dax_devices Dax devices by driver state and source (nvdimm, hmem, cxl or unknown).\n"
	"# TYPE pmemram_dax_devices gauge\n"
	"pmemram_dax_devices{state=\"system-ram\",source=\"nvdimm\"} 2\n"
	"pmemram_dax_devices{state=\"devdax\",source=\"nvdimm\"} 1\n"
	"pmemram_dax_devices{state=\"devdax\",source=\"hmem\"} 1\n"
	"# HELP pmemram_claimed_devices Claimed devices and namespaces by verdict and reason.\n"
	"# TYPE pmemram_claimed_devices gauge\n"
	"pmemram_claimed_devices{verdict=\"converged\",reason=\"none\"} 2\n"
	"pmemram_claimed_devices{verdict=\"refused\",reason=\"mapped\"} 1\n"
	"# HELP pmemram_unmatched_claims Claims that match no device.\n"
	"# TYPE pmemram_unmatched_claims gauge\n"
	"pmemram_unmatched_claims 1\n"
	"# HELP pmemram_kmem_online_bytes Memory of claimed devices online in the claimed zone.\n"
	"# TYPE pmemram_kmem_online_bytes gauge\n"
	"pmemram_kmem_online_bytes 939524096\n"
	"# HELP pmemram_release_failures_total Releases that failed, by outcome and error.\n"
	"# TYPE pmemram_release_failures_total counter\n"
	"pmemram_release_failures_total{outcome=\"rolled-back\",error=\"EBUSY\"} 2\n"
	"pmemram_release_failures_total{outcome=\"incomplete\",error=\"ETIMEDOUT\"} 1\n"
	"# HELP pmemram_node_memory_total_bytes The kernel's MemTotal of a NUMA node.\n"
	"# TYPE pmemram_node_memory_total_bytes gauge\n"
	"pmemram_node_memory_total_bytes{node=\"0\"} 1073741824\n"
	"pmemram_node_memory_total_bytes{node=\"1\"} 1073741824\n"
	"pmemram_node_memory_total_bytes{node=\"2\"} 939524096\n"
	"# HELP pmemram_node_dax_online_bytes Memory of dax devices (kmem) online per NUMA node and zone, in whole memory blocks.\n"
	"# TYPE pmemram_node_dax_online_bytes gauge\n"
	"pmemram_node_dax_online_bytes{node=\"2\",zone=\"Movable\"} 939524096\n"
	"# HELP pmemram_node_memory_side_cache_bytes Memory-side cache in front of a NUMA node's memory (HMAT).\n"
	"# TYPE pmemram_node_memory_side_cache_bytes gauge\n"
	"pmemram_node_memory_side_cache_bytes{node=\"1\",level=\"1\",indexing=\"direct-mapped\",write_policy=\"write-back\"} 134217728\n"
	"# HELP pmemram_node_memory_tier The kernel's memory tier of a NUMA node (N of memory_tierN; lower is faster).\n"
	"# TYPE pmemram_node_memory_tier gauge\n"
	"pmemram_node_memory_tier{node=\"0\"} 4\n"
	"pmemram_node_memory_tier{node=\"1\"} 4\n"
	"pmemram_node_memory_tier{node=\"2\"} 22\n"
	"# HELP pmemram_page_shuffle_enabled Whether the page allocator shuffles its free lists (the kernel's state, for every node).\n"
	"# TYPE pmemram_page_shuffle_enabled gauge\n"
	"pmemram_page_shuffle_enabled{source=\"sysfs\",reason=\"hmat\"} 1\n"
	"# HELP pmemram_shuffle_policy The configured shuffle policy and where it stands (always 1).\n"
	"# TYPE pmemram_shuffle_policy gauge\n"
	"pmemram_shuffle_policy{policy=\"auto\",state=\"in-effect\"} 1\n"
	"# HELP pmemram_demotion_enabled The kernel's memory-tier demotion switch.\n"
	"# TYPE pmemram_demotion_enabled gauge\n"
	"pmemram_demotion_enabled 1\n"
	"# HELP pmemram_class_resolved Whether a tiering class resolved to some NUMA nodes.\n"
	"# TYPE pmemram_class_resolved gauge\n"
	"pmemram_class_resolved{class=\"fast\"} 1\n"
	"pmemram_class_resolved{class=\"slow\"} 1\n"
	"# HELP pmemram_class_node The NUMA nodes of a tiering class (always 1).\n"
	"# TYPE pmemram_class_node gauge\n"
	"pmemram_class_node{class=\"fast\",node=\"0\"} 1\n"
	"pmemram_class_node{class=\"fast\",node=\"1\"} 1\n"
	"pmemram_class_node{class=\"slow\",node=\"2\"} 1\n"
	"# HELP pmemram_class_memory_bytes Memory of a tiering class's slice cgroup on a NUMA node (anon and file of memory.numa_stat).\n"
	"# TYPE pmemram_class_memory_bytes gauge\n"
	"pmemram_class_memory_bytes{class=\"fast\",node=\"0\"} 67108864\n"
	"pmemram_class_memory_bytes{class=\"fast\",node=\"1\"} 0\n"
	"pmemram_class_memory_bytes{class=\"fast\",node=\"2\"} 4096\n"
	"# HELP pmemram_class_memory_outside_bytes Memory of a tiering class's slice cgroup on NUMA nodes that are not the class's.\n"
	"# TYPE pmemram_class_memory_outside_bytes gauge\n"
	"pmemram_class_memory_outside_bytes{class=\"fast\"} 4096\n"
	"# HELP pmemram_node_pgpromote_success_total The kernel's pgpromote_success counter of a NUMA node (pages).\n"
	"# TYPE pmemram_node_pgpromote_success_total counter\n"
	"pmemram_node_pgpromote_success_total{node=\"0\"} 0\n"
	"pmemram_node_pgpromote_success_total{node=\"2\"} 17\n"
	"# HELP pmemram_node_pgdemote_kswapd_total The kernel's pgdemote_kswapd counter of a NUMA node (pages).\n"
	"# TYPE pmemram_node_pgdemote_kswapd_total counter\n"
	"pmemram_node_pgdemote_kswapd_total{node=\"0\"} 3\n"
	"pmemram_node_pgdemote_kswapd_total{node=\"2\"} 5\n"
	"# HELP pmemram_pgpromote_success_total The kernel's pgpromote_success counter of the whole system (pages).\n"
	"# TYPE pmemram_pgpromote_success_total counter\n"
	"pmemram_pgpromote_success_total 17\n"
	"# HELP pmemram_pgdemote_kswapd_total The kernel's pgdemote_kswapd counter of the whole system (pages).\n"
	"# TYPE pmemram_pgdemote_kswapd_total counter\n"
	"pmemram_pgdemote_kswapd_total 8\n";

static void test_fixture(void **state)
{
	_cleanup_(freep) char *text = NULL;
	struct pmemram_metrics m;
	size_t len;

	(void)state;
	export_fixture_metrics(&m);
	assert_int_equal(pmemram_metrics_format(&m, &text, &len), 0);
	assert_string_equal(text, expected);
	assert_int_equal(len, strlen(expected));
}

static char *format(const struct pmemram_metrics *m)
{
	char *text = NULL;
	size_t len;

	assert_int_equal(pmemram_metrics_format(m, &text, &len), 0);
	return text;
}

/* A daemon that has not read the system yet: its own counters, nothing about devices or nodes. */
static void test_nothing_known(void **state)
{
	struct pmemram_metrics m = { .demotion = -1 };
	_cleanup_(freep) char *text = NULL;

	(void)state;
	text = format(&m);
	assert_string_equal(text, "# HELP pmemram_ready Whether pmemramd told systemd it is ready.\n"
				  "# TYPE pmemram_ready gauge\n"
				  "pmemram_ready 0\n"
				  "# HELP pmemram_uevents_total Uevents received.\n"
				  "# TYPE pmemram_uevents_total counter\n"
				  "pmemram_uevents_total 0\n"
				  "# HELP pmemram_uevents_lost_total Uevent receive failures (each reconciles everything).\n"
				  "# TYPE pmemram_uevents_lost_total counter\n"
				  "pmemram_uevents_lost_total 0\n"
				  "# HELP pmemram_reconcile_seconds_total Time spent reconciling.\n"
				  "# TYPE pmemram_reconcile_seconds_total counter\n"
				  "pmemram_reconcile_seconds_total 0.000000\n");
}

/* Backslash, double quote and newline in a label value are escaped; nothing else is. */
static void test_escaping(void **state)
{
	static const struct pmemram_metrics_count failures[] = { { "rolled-back", "a\\b\"c\nd \xc3\xa9", 1 } };
	struct pmemram_metrics m = { .demotion = -1, .n_release_failures = 1, .release_failures = failures };
	_cleanup_(freep) char *text = NULL;

	(void)state;
	text = format(&m);
	assert_non_null(strstr(text, "\npmemram_release_failures_total{outcome=\"rolled-back\",error=\"a\\\\b\\\"c\\nd \xc3\xa9\"} 1\n"));
}

/* A node whose memory blocks were not read has no dax online bytes; zones with none are left out;
 * a node in no tier has no tier sample; an unresolved class has no nodes. */
static void test_partial_nodes(void **state)
{
	struct pmemram_metrics_node nodes[2] = { { .id = 3, .tier = -1 }, { .id = 5, .tier = -1, .online_known = true } };
	struct pmemram_metrics_class class = { .name = "pmem" };
	struct pmemram_metrics m = { .demotion = -1, .n_nodes = 2, .nodes = nodes, .n_classes = 1, .classes = &class };
	_cleanup_(freep) char *text = NULL;

	(void)state;
	nodes[0].online_bytes[PMEMRAM_ZONE_MOVABLE] = 1024;
	nodes[1].online_bytes[PMEMRAM_ZONE_NONE] = 2048;
	text = format(&m);
	assert_non_null(strstr(text, "\npmemram_node_memory_total_bytes{node=\"3\"} 0\n"));
	assert_null(strstr(text, "pmemram_node_dax_online_bytes{node=\"3\""));
	assert_non_null(strstr(text, "\npmemram_node_dax_online_bytes{node=\"5\",zone=\"none\"} 2048\n"));
	assert_null(strstr(text, "zone=\"Movable\""));
	assert_null(strstr(text, "pmemram_node_memory_tier"));
	assert_non_null(strstr(text, "\npmemram_class_resolved{class=\"pmem\"} 0\n"));
	assert_null(strstr(text, "pmemram_class_node"));
	assert_null(strstr(text, "pmemram_dax_devices"));
}

static void test_write_error(void **state)
{
	struct pmemram_metrics m = { .demotion = -1 };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(pmemram_metrics_write(&m, f), -EIO);
	fclose(f);
	assert_int_equal(pmemram_metrics_write(NULL, stdout), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_nothing_known),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_partial_nodes),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
