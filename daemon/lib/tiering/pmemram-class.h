/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tiering classes against the machine: which NUMA nodes a class of pmemram.conf stands for now. */
#pragma once

#include <stddef.h>

#include "pmemram-config.h"
#include "pmemram.h"

/* Nodes whose memory came through kmem: the target_node of every dax device bound to kmem. */
void pmemram_kmem_nodes(const struct pmemram_dax_list *dax, struct pmemram_nodemask *ret);

/*
 * The nodes of class c on this machine, resolved now, so that a class follows devices as they
 * come and go:
 *   pmem: nodes with memory that are in kmem_nodes and have no CPU;
 *   dram: nodes with memory that are not pmem (those with CPUs, or ordinary RAM);
 *   all: nodes with memory;
 *   lowest-latency, highest-bandwidth: among the nodes with memory and HMAT access0 data, those
 *     with the least read_latency or the most read_bandwidth (all of them on a tie); -ENODATA
 *     when no node has that data;
 *   list: exactly the list; -ENOENT when a listed node is not online or has no memory.
 * kmem_nodes NULL counts as empty.  An empty result (pmem before any device is onlined) is 0 with
 * an empty mask: the caller decides what that means.  On error, why (unless NULL) gets one
 * sentence naming the node or the reason, e.g. "node 5 does not exist or has no memory (nodes
 * with memory: 0-2)", and ret is untouched.
 */
int pmemram_class_resolve(const struct pmemram_class *c, const struct pmemram_topology *t,
			  const struct pmemram_nodemask *kmem_nodes, struct pmemram_nodemask *ret, char *why,
			  size_t why_size);

/* The slow nodes: those of nodes = pmem (memory from kmem, no CPU); t may be NULL (none). */
void pmemram_class_slow_nodes(const struct pmemram_topology *t, const struct pmemram_nodemask *kmem_nodes,
			      struct pmemram_nodemask *ret);

/*
 * The slow nodes that the kernel's demotion may move a class's pages to although the class's slice
 * excludes them: reclaim-based demotion does not respect cpuset.mems up to Linux 6.15, so with
 * demotion on, a page of a unit whose slice allows only DRAM nodes can be demoted to a pmem node.
 * The result is the pmem nodes (as pmemram_class_resolve() finds them) outside class_nodes when
 * class_nodes has a node that is not pmem, and empty otherwise (a class that allows every slow
 * node, or has only slow nodes, loses nothing to demotion).
 */
void pmemram_class_demotion_escape(const struct pmemram_nodemask *class_nodes, const struct pmemram_topology *t,
				   const struct pmemram_nodemask *kmem_nodes, struct pmemram_nodemask *ret);

/* One node's weight in each of a class's nodes, in node order. */
struct pmemram_weights {
	size_t n;
	struct pmemram_class_weight w[PMEMRAM_CLASS_WEIGHTS_MAX];
};

/*
 * The weights of class c over its resolved nodes.  weights = NODE:WEIGHT,...: each node of nodes must
 * have one (-ENOENT otherwise; a listed node outside nodes is not used).  hmat: one scale for the whole
 * machine, so that classes sharing a node agree on it: the slowest node with a read bandwidth (HMAT
 * access0) counts 10, the others their bandwidth's ratio to it rounded to one decimal, all reduced by
 * their common divisor and scaled down together to at most 255 (10, 5 and 1 GB/s give 10:5:1, and a
 * class of the first two nodes 10:5); -ENODATA when a node of the class reports none.  -E2BIG for more
 * nodes than a class holds.  why (unless NULL) gets one sentence naming the node.
 */
int pmemram_class_weights(const struct pmemram_class *c, const struct pmemram_topology *t,
			  const struct pmemram_nodemask *nodes, struct pmemram_weights *ret, char *why,
			  size_t why_size);

/* "1:3,2:1" into buf. */
const char *pmemram_weights_format(const struct pmemram_weights *w, char *buf, size_t size);
