/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for tiering classes: kmem nodes, resolving each kind of class on hand-built machines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "pmemram-class.h"
#include "pmemram-private.h"

#define MAX_TEST_NODES 8

/* A topology as pmemram_topology_read() would return it; not to be copied (t.nodes points inside). */
struct machine {
	struct pmemram_topology t;
	struct pmemram_node nodes[MAX_TEST_NODES];
};

/* Node id, online; latency and bandwidth 0, 0 for a node without HMAT access0 data. */
static void add_node(struct machine *m, int id, bool cpu, bool memory, uint64_t latency, uint64_t bandwidth)
{
	struct pmemram_node *n;

	assert_true(m->t.n_nodes < MAX_TEST_NODES);
	n = &m->nodes[m->t.n_nodes++];
	*n = (struct pmemram_node){ .id = id, .has_cpu = cpu, .has_memory = memory, .tier = -1 };
	if (latency > 0 || bandwidth > 0)
		n->access0 = (struct pmemram_access){
			.present = true,
			.read_latency = latency,
			.write_latency = latency,
			.read_bandwidth = bandwidth,
			.write_bandwidth = bandwidth,
		};
	pmemram_nodemask_set(&m->t.online, (unsigned)id);
	if (cpu)
		pmemram_nodemask_set(&m->t.has_cpu, (unsigned)id);
	if (memory)
		pmemram_nodemask_set(&m->t.has_memory, (unsigned)id);
	m->t.nodes = m->nodes;
}

/*
 * The QEMU machine of the VM tests: node 0 has the CPUs and DRAM, node 1 is memory-only DRAM
 * behind a memory-side cache, node 2 the NVDIMM's memory, onlined through kmem.
 */
static void qemu_machine(struct machine *m)
{
	*m = (struct machine){};
	add_node(m, 0, true, true, 10, 10240);
	add_node(m, 1, false, true, 30, 5120);
	add_node(m, 2, false, true, 100, 1024);
}

/* The dax devices of that machine: dax0.0 in kmem on node 2, the rest not in kmem or without node. */
static const struct pmemram_dax qemu_dax[] = {
	{ .name = "dax0.0", .driver = "kmem", .mode = PMEMRAM_DAX_SYSTEM_RAM, .target_node = 2 },
	{ .name = "dax1.0", .driver = "device_dax", .mode = PMEMRAM_DAX_DEVDAX, .target_node = 3 },
	{ .name = "dax2.0", .driver = "kmem", .mode = PMEMRAM_DAX_SYSTEM_RAM, .target_node = -1 },
	{ .name = "dax3.0", .mode = PMEMRAM_DAX_UNBOUND, .target_node = 4 },
};

static struct pmemram_nodemask qemu_kmem(void)
{
	struct pmemram_dax_list dax = { .n_devices = ELEMENTSOF(qemu_dax), .devices = (struct pmemram_dax *)qemu_dax };
	struct pmemram_nodemask m;

	pmemram_kmem_nodes(&dax, &m);
	return m;
}

struct result {
	int r;
	char nodes[64]; /* as the kernel lists them, "?" when unresolved */
	char why[256];	/* "" unless resolving failed */
};

/* Resolve a class of the given kind (list: "0,2-3" for PMEMRAM_CLASS_NODES_LIST, else NULL). */
static struct result resolve(const struct machine *m, enum pmemram_class_nodes kind, const char *list,
			     const struct pmemram_nodemask *kmem)
{
	struct pmemram_class c = { .name = "test", .nodes = kind, .mode = PMEMRAM_CLASS_BIND };
	struct pmemram_nodemask ret;
	struct result res = { .nodes = "?" };

	if (list) {
		assert_int_equal(pmemram_parse_range_list(list, &c.list), 0);
		strcpy(c.nodes_text, list);
	}
	memset(&ret, 0xff, sizeof(ret)); /* untouched on failure: stays full */
	res.r = pmemram_class_resolve(&c, &m->t, kmem, &ret, res.why, sizeof(res.why));
	if (res.r >= 0) {
		assert_string_equal(res.why, "");
		assert_int_equal(pmemram_nodemask_format(&ret, res.nodes, sizeof(res.nodes)), 0);
	} else
		assert_int_equal(pmemram_nodemask_weight(&ret), PMEMRAM_MAX_NODES);
	return res;
}

#define assert_resolves(m, kind, list, kmem, expect)                          \
	do {                                                                  \
		struct result _r_ = resolve((m), (kind), (list), (kmem));     \
		assert_int_equal(_r_.r, 0);                                   \
		assert_string_equal(_r_.nodes, (expect));                     \
	} while (0)

static void test_kmem_nodes(void **state)
{
	struct pmemram_nodemask m = qemu_kmem();
	char text[64];

	/* only kmem with a target node counts: a devdax or unbound device's node is not memory yet */
	assert_int_equal(pmemram_nodemask_format(&m, text, sizeof(text)), 0);
	assert_string_equal(text, "2");

	memset(&m, 0xff, sizeof(m));
	pmemram_kmem_nodes(NULL, &m);
	assert_int_equal(pmemram_nodemask_weight(&m), 0);
	pmemram_kmem_nodes(&(struct pmemram_dax_list){}, &m);
	assert_int_equal(pmemram_nodemask_weight(&m), 0);
}

static void test_resolve_qemu(void **state)
{
	struct pmemram_nodemask kmem = qemu_kmem();
	struct machine m;

	qemu_machine(&m);
	assert_resolves(&m, PMEMRAM_CLASS_NODES_DRAM, NULL, &kmem, "0-1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, &kmem, "2");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_ALL, NULL, &kmem, "0-2");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, &kmem, "0");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, NULL, &kmem, "0");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LIST, "0,2", &kmem, "0,2");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LIST, "1-2", &kmem, "1-2");

	/* without kmem nodes nothing is pmem: the memory-only node 2 counts as RAM */
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, NULL, "");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_DRAM, NULL, NULL, "0-2");
}

/* Before the NVDIMM is onlined its node has no memory: pmem is empty, not an error. */
static void test_resolve_empty_pmem(void **state)
{
	struct pmemram_nodemask kmem = {};
	struct machine m = {};

	add_node(&m, 0, true, true, 10, 10240);
	add_node(&m, 1, false, true, 30, 5120);
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, &kmem, "");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_DRAM, NULL, &kmem, "0-1");

	/* a kmem device whose node has not got memory (yet) does not make that node pmem either */
	pmemram_nodemask_set(&kmem, 2);
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, &kmem, "");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_ALL, NULL, &kmem, "0-1");
}

/* A device onlined into a node with CPUs leaves that node DRAM. */
static void test_resolve_kmem_cpu_node(void **state)
{
	struct pmemram_nodemask kmem = {};
	struct machine m = {};

	add_node(&m, 0, true, true, 10, 10240);
	add_node(&m, 1, false, true, 100, 1024);
	pmemram_nodemask_set(&kmem, 0);
	pmemram_nodemask_set(&kmem, 1);
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, &kmem, "1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_DRAM, NULL, &kmem, "0");
}

/* escapes(machine, class nodes, kmem) formatted: the slow nodes demotion may take the class's pages to. */
static void assert_escape(const struct machine *m, const char *class_nodes, const struct pmemram_nodemask *kmem,
			  const char *want)
{
	struct pmemram_nodemask c, got;
	char buf[64];

	assert_int_equal(pmemram_parse_range_list(class_nodes, &c), 0);
	memset(&got, 0xa5, sizeof(got));
	pmemram_class_demotion_escape(&c, &m->t, kmem, &got);
	assert_int_equal(pmemram_nodemask_format(&got, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

/* Demotion may move a DRAM-only class's pages to the pmem node; a class with it, or only of it, is safe. */
static void test_demotion_escape(void **state)
{
	struct pmemram_nodemask kmem = qemu_kmem(), none = {};
	struct machine m;

	qemu_machine(&m);
	assert_escape(&m, "0-1", &kmem, "2");
	assert_escape(&m, "0", &kmem, "2");
	assert_escape(&m, "0,2", &kmem, "");
	assert_escape(&m, "2", &kmem, "");
	/* before any device is in kmem nothing is slow */
	assert_escape(&m, "0-1", &none, "");
	/* two slow nodes, the class allows one of them */
	add_node(&m, 3, false, true, 100, 1024);
	pmemram_nodemask_set(&kmem, 3);
	assert_escape(&m, "0,3", &kmem, "2");
}

static void test_resolve_ties(void **state)
{
	struct machine m = {};

	/* two sockets with equal DRAM, a CPU-less node and two pmem nodes that tie at the bottom */
	add_node(&m, 0, true, true, 10, 10240);
	add_node(&m, 1, true, true, 10, 10240);
	add_node(&m, 2, false, false, 0, 0); /* CPU-less and memory-less: never chosen */
	add_node(&m, 3, false, true, 100, 1024);
	add_node(&m, 4, false, true, 100, 1024);
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, NULL, "0-1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, NULL, NULL, "0-1");

	/* latency and bandwidth are ranked apart: the faster link need not be the nearer one */
	m.nodes[1].access0.read_latency = 9;
	m.nodes[0].access0.read_bandwidth = 20480;
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, NULL, "1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, NULL, NULL, "0");

	/* a figure of 0 is one the firmware left out, not the best latency */
	m.nodes[3].access0.read_latency = 0;
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, NULL, "1");

	/* HMAT data of a node without memory does not count */
	m.nodes[2].access0 = (struct pmemram_access){ .present = true, .read_latency = 1, .read_bandwidth = 1 << 20 };
	assert_resolves(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, NULL, "1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, NULL, NULL, "0");
}

/* A machine without ACPI HMAT: the kinds that need it fail and say why, the others work. */
static void test_resolve_no_hmat(void **state)
{
	struct pmemram_nodemask kmem = {};
	struct machine m = {};
	struct result res;

	add_node(&m, 0, true, true, 0, 0);
	add_node(&m, 1, false, true, 0, 0);
	pmemram_nodemask_set(&kmem, 1);

	res = resolve(&m, PMEMRAM_CLASS_NODES_LOWEST_LATENCY, NULL, &kmem);
	assert_int_equal(res.r, -ENODATA);
	assert_string_equal(res.why, "no node with memory reports a read latency (no ACPI HMAT access0 data), so none "
				     "is lowest-latency");
	res = resolve(&m, PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH, NULL, &kmem);
	assert_int_equal(res.r, -ENODATA);
	assert_string_equal(res.why, "no node with memory reports a read bandwidth (no ACPI HMAT access0 data), so "
				     "none is highest-bandwidth");

	assert_resolves(&m, PMEMRAM_CLASS_NODES_DRAM, NULL, &kmem, "0");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_PMEM, NULL, &kmem, "1");
	assert_resolves(&m, PMEMRAM_CLASS_NODES_ALL, NULL, &kmem, "0-1");
}

static void test_resolve_list_missing(void **state)
{
	struct pmemram_nodemask kmem = qemu_kmem(), ret;
	struct pmemram_class c = { .name = "x", .nodes = PMEMRAM_CLASS_NODES_LIST };
	struct machine m;
	struct result res;

	qemu_machine(&m);
	res = resolve(&m, PMEMRAM_CLASS_NODES_LIST, "0,5", &kmem);
	assert_int_equal(res.r, -ENOENT);
	assert_string_equal(res.why, "node 5 does not exist or has no memory (nodes with memory: 0-2)");

	/* online but without memory (a CPU-only node) is missing too; the first such node is named */
	add_node(&m, 3, true, false, 0, 0);
	res = resolve(&m, PMEMRAM_CLASS_NODES_LIST, "1,3-7", &kmem);
	assert_int_equal(res.r, -ENOENT);
	assert_string_equal(res.why, "node 3 does not exist or has no memory (nodes with memory: 0-2)");

	/* why is optional */
	assert_int_equal(pmemram_parse_range_list("9", &c.list), 0);
	assert_int_equal(pmemram_class_resolve(&c, &m.t, &kmem, &ret, NULL, 0), -ENOENT);

	/* no node with memory at all (a topology not read yet) */
	m = (struct machine){};
	res = resolve(&m, PMEMRAM_CLASS_NODES_LIST, "0", NULL);
	assert_int_equal(res.r, -ENOENT);
	assert_string_equal(res.why, "node 0 does not exist or has no memory (nodes with memory: none)");
}

static void test_resolve_invalid(void **state)
{
	struct pmemram_class c = { .name = "x", .nodes = PMEMRAM_CLASS_NODES_ALL };
	struct pmemram_nodemask ret;
	struct machine m;

	qemu_machine(&m);
	assert_int_equal(pmemram_class_resolve(NULL, &m.t, NULL, &ret, NULL, 0), -EINVAL);
	assert_int_equal(pmemram_class_resolve(&c, NULL, NULL, &ret, NULL, 0), -EINVAL);
	assert_int_equal(pmemram_class_resolve(&c, &m.t, NULL, NULL, NULL, 0), -EINVAL);
	c.nodes = _PMEMRAM_CLASS_NODES_MAX;
	assert_int_equal(pmemram_class_resolve(&c, &m.t, NULL, &ret, NULL, 0), -EINVAL);
}

static void test_nodemask_format(void **state)
{
	static const char *const lists[] = { "", "0", "0-1", "0,2-3", "1,3,5", "0-1023", "63-64", "7,100-200,1023" };
	struct pmemram_nodemask m = {};
	char buf[64];

	/* what the kernel prints reads back the same */
	for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
		assert_int_equal(pmemram_parse_range_list(lists[i], &m), 0);
		assert_int_equal(pmemram_nodemask_format(&m, buf, sizeof(buf)), 0);
		assert_string_equal(buf, lists[i]);
	}

	/* "0,2-3" and its NUL take 6 bytes exactly */
	assert_int_equal(pmemram_parse_range_list("0,2,3", &m), 0);
	assert_int_equal(pmemram_nodemask_format(&m, buf, 6), 0);
	assert_string_equal(buf, "0,2-3");
	assert_int_equal(pmemram_nodemask_format(&m, buf, 5), -ENAMETOOLONG);
	assert_string_equal(buf, "");
	assert_int_equal(pmemram_nodemask_format(&m, buf, 1), -ENAMETOOLONG);
	assert_int_equal(pmemram_nodemask_format(&m, buf, 0), -EINVAL);
	assert_int_equal(pmemram_nodemask_format(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pmemram_nodemask_format(&m, NULL, sizeof(buf)), -EINVAL);
}

/* weights = hmat from the access0 read bandwidths, a list, and what neither can give. */
static void test_weights(void **state)
{
	struct pmemram_class c = { .name = "w",
				   .nodes = PMEMRAM_CLASS_NODES_ALL,
				   .mode = PMEMRAM_CLASS_WEIGHTED_INTERLEAVE,
				   .weights_hmat = true };
	struct pmemram_nodemask all = {}, two = {};
	struct pmemram_weights w;
	struct machine m;
	char why[256], text[64];

	(void)state;
	qemu_machine(&m);
	for (unsigned n = 0; n < 3; n++)
		pmemram_nodemask_set(&all, n);
	pmemram_nodemask_set(&two, 1);
	pmemram_nodemask_set(&two, 2);

	/* 10, 5 and 1 GB/s */
	assert_int_equal(pmemram_class_weights(&c, &m.t, &all, &w, why, sizeof(why)), 0);
	assert_string_equal(pmemram_weights_format(&w, text, sizeof(text)), "0:10,1:5,2:1");
	/* one scale for the machine: a class of two of the nodes wants the same weights for them */
	{
		struct pmemram_nodemask first = {};

		pmemram_nodemask_set(&first, 0);
		pmemram_nodemask_set(&first, 1);
		assert_int_equal(pmemram_class_weights(&c, &m.t, &first, &w, why, sizeof(why)), 0);
		assert_string_equal(pmemram_weights_format(&w, text, sizeof(text)), "0:10,1:5");
	}
	/* 15 against 10: one decimal kept, reduced (node 0's 10 GB/s is 10 too: 2:3:2) */
	m.nodes[1].access0.read_bandwidth = 15360;
	m.nodes[2].access0.read_bandwidth = 10240;
	assert_int_equal(pmemram_class_weights(&c, &m.t, &two, &w, why, sizeof(why)), 0);
	assert_string_equal(pmemram_weights_format(&w, text, sizeof(text)), "1:3,2:2");
	/* past what the kernel holds, all scaled down together, none below 1 */
	m.nodes[1].access0.read_bandwidth = 10000000;
	m.nodes[2].access0.read_bandwidth = 1000;
	assert_int_equal(pmemram_class_weights(&c, &m.t, &two, &w, why, sizeof(why)), 0);
	assert_string_equal(pmemram_weights_format(&w, text, sizeof(text)), "1:255,2:1");
	/* a node without HMAT data */
	m.nodes[2].access0 = (struct pmemram_access){};
	assert_int_equal(pmemram_class_weights(&c, &m.t, &two, &w, why, sizeof(why)), -ENODATA);
	assert_string_equal(why, "node 2 reports no read bandwidth (no ACPI HMAT access0 data): give weights = "
				 "NODE:WEIGHT,... instead of hmat");

	/* the list: each node of the class needs one; others are not used */
	c.weights_hmat = false;
	c.n_weights = 3;
	c.weights[0] = (struct pmemram_class_weight){ .node = 2, .weight = 1 };
	c.weights[1] = (struct pmemram_class_weight){ .node = 1, .weight = 3 };
	c.weights[2] = (struct pmemram_class_weight){ .node = 5, .weight = 7 };
	assert_int_equal(pmemram_class_weights(&c, &m.t, &two, &w, why, sizeof(why)), 0);
	assert_string_equal(pmemram_weights_format(&w, text, sizeof(text)), "1:3,2:1");
	assert_int_equal(pmemram_class_weights(&c, &m.t, &all, &w, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "node 0 of the class has no weight in weights =");
	assert_int_equal(pmemram_class_weights(NULL, &m.t, &all, &w, why, sizeof(why)), -EINVAL);
}

int main(void)
{
	/* One test a line: clang-format 14 would pack this list into columns. */
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmem_nodes),
		cmocka_unit_test(test_resolve_qemu),
		cmocka_unit_test(test_resolve_empty_pmem),
		cmocka_unit_test(test_resolve_kmem_cpu_node),
		cmocka_unit_test(test_demotion_escape),
		cmocka_unit_test(test_resolve_ties),
		cmocka_unit_test(test_resolve_no_hmat),
		cmocka_unit_test(test_resolve_list_missing),
		cmocka_unit_test(test_resolve_invalid),
		cmocka_unit_test(test_nodemask_format),
		cmocka_unit_test(test_weights),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
