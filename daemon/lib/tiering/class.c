/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tiering classes: a class's NUMA nodes and interleave weights from the topology, pure (no I/O). */
#include <stdarg.h>
#include <stdlib.h>

#include "pmemram-class.h"
#include "pmemram-private.h"

void pmemram_kmem_nodes(const struct pmemram_dax_list *dax, struct pmemram_nodemask *ret)
{
	struct pmemram_nodemask m = {};

	if (!ret)
		return;
	for (size_t i = 0; dax && i < dax->n_devices; i++)
		if (dax->devices[i].mode == PMEMRAM_DAX_SYSTEM_RAM && dax->devices[i].target_node >= 0)
			pmemram_nodemask_set(&m, (unsigned)dax->devices[i].target_node);
	*ret = m;
}

void pmemram_class_slow_nodes(const struct pmemram_topology *t, const struct pmemram_nodemask *kmem_nodes,
			      struct pmemram_nodemask *ret)
{
	const struct pmemram_class pmem = { .nodes = PMEMRAM_CLASS_NODES_PMEM };
	struct pmemram_nodemask m = {};

	if (t)
		(void)pmemram_class_resolve(&pmem, t, kmem_nodes, &m, NULL, 0); /* pmem cannot fail */
	*ret = m;
}

void pmemram_class_demotion_escape(const struct pmemram_nodemask *class_nodes, const struct pmemram_topology *t,
				   const struct pmemram_nodemask *kmem_nodes, struct pmemram_nodemask *ret)
{
	struct pmemram_nodemask slow, m = {};
	bool fast = false;

	if (!ret)
		return;
	pmemram_class_slow_nodes(t, kmem_nodes, &slow);
	if (class_nodes) {
		PMEMRAM_NODEMASK_FOREACH(n, class_nodes)
			fast = fast || !pmemram_nodemask_test(&slow, (unsigned)n);
		PMEMRAM_NODEMASK_FOREACH(n, &slow)
			if (fast && !pmemram_nodemask_test(class_nodes, (unsigned)n))
				pmemram_nodemask_set(&m, (unsigned)n);
	}
	*ret = m;
}

/* Fill why with one sentence and return r (negative). */
_printf_(4, 5) static int explain(char *why, size_t why_size, int r, const char *format, ...)
{
	va_list args;

	if (why && why_size > 0) {
		va_start(args, format);
		vsnprintf(why, why_size, format, args);
		va_end(args);
	}
	return r;
}

/*
 * The nodes with memory whose access0 figure is best: the least read latency, or the most read
 * bandwidth, every node that reaches it.  The kernel reports 0 for a figure the firmware left out,
 * and such a node must not win "lowest latency", so 0 does not take part.  false when no node
 * has the figure.
 */
static bool best_nodes(const struct pmemram_topology *t, bool latency, struct pmemram_nodemask *ret)
{
	struct pmemram_nodemask m = {};
	uint64_t best = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct pmemram_node *n = &t->nodes[i];
		uint64_t v = latency ? n->access0.read_latency : n->access0.read_bandwidth;

		if (n->id < 0 || !pmemram_nodemask_test(&t->has_memory, (unsigned)n->id) || !n->access0.present ||
		    v == 0)
			continue;
		if (best == 0 || (latency ? v < best : v > best)) {
			best = v;
			m = (struct pmemram_nodemask){};
		}
		if (v == best)
			pmemram_nodemask_set(&m, (unsigned)n->id);
	}
	*ret = m;
	return best > 0;
}

int pmemram_class_resolve(const struct pmemram_class *c, const struct pmemram_topology *t,
			  const struct pmemram_nodemask *kmem_nodes, struct pmemram_nodemask *ret, char *why,
			  size_t why_size)
{
	struct pmemram_nodemask m = {};
	char memory[128];
	bool latency;

	if (!c || !t || !ret)
		return -EINVAL;

	switch (c->nodes) {
	case PMEMRAM_CLASS_NODES_DRAM:
	case PMEMRAM_CLASS_NODES_PMEM:
	case PMEMRAM_CLASS_NODES_ALL:
		PMEMRAM_NODEMASK_FOREACH(n, &t->has_memory) {
			/* Firmware may put a device in a socket's own proximity domain; that node mixes
			 * the pmem with the socket's DRAM and CPUs, and a class cannot split it: dram. */
			bool pmem = kmem_nodes && pmemram_nodemask_test(kmem_nodes, (unsigned)n) &&
				    !pmemram_nodemask_test(&t->has_cpu, (unsigned)n);

			if (c->nodes == PMEMRAM_CLASS_NODES_ALL || pmem == (c->nodes == PMEMRAM_CLASS_NODES_PMEM))
				pmemram_nodemask_set(&m, (unsigned)n);
		}
		break;

	case PMEMRAM_CLASS_NODES_LOWEST_LATENCY:
	case PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH:
		latency = c->nodes == PMEMRAM_CLASS_NODES_LOWEST_LATENCY;
		if (!best_nodes(t, latency, &m))
			return explain(why, why_size, -ENODATA,
				       "no node with memory reports a read %s (no ACPI HMAT access0 data), so none is %s",
				       latency ? "latency" : "bandwidth", pmemram_class_nodes_to_string(c->nodes));
		break;

	case PMEMRAM_CLASS_NODES_LIST:
		PMEMRAM_NODEMASK_FOREACH(n, &c->list) {
			if (pmemram_nodemask_test(&t->online, (unsigned)n) &&
			    pmemram_nodemask_test(&t->has_memory, (unsigned)n))
				continue;
			if (pmemram_nodemask_weight(&t->has_memory) == 0)
				strcpy(memory, "none");
			else if (pmemram_nodemask_format(&t->has_memory, memory, sizeof(memory)) < 0)
				snprintf(memory, sizeof(memory), "%u nodes", pmemram_nodemask_weight(&t->has_memory));
			return explain(why, why_size, -ENOENT,
				       "node %d does not exist or has no memory (nodes with memory: %s)", n, memory);
		}
		m = c->list;
		break;

	default:
		return -EINVAL;
	}

	*ret = m;
	return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The HMAT weight of every node with memory and a read bandwidth, as one scale for the whole machine,
 * so that two classes sharing a node want the same weight for it: the slowest node counts 10, the
 * others their bandwidth's ratio to it rounded to one decimal, the whole reduced by the common divisor
 * and, when the largest is over 255, scaled down together (at least 1).  w[n] is 0 for a node without
 * a figure.
 */
static void hmat_weights(const struct pmemram_topology *t, unsigned *w)
{
	uint64_t least = 0, g = 0, most = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct pmemram_node *n = &t->nodes[i];

		if (n->id >= 0 && n->id < PMEMRAM_MAX_NODES && n->access0.present && n->access0.read_bandwidth > 0 &&
		    (least == 0 || n->access0.read_bandwidth < least))
			least = n->access0.read_bandwidth;
	}
	for (size_t i = 0; least > 0 && i < t->n_nodes; i++) {
		const struct pmemram_node *n = &t->nodes[i];
		uint64_t v;

		if (n->id < 0 || n->id >= PMEMRAM_MAX_NODES || !n->access0.present || n->access0.read_bandwidth == 0)
			continue;
		v = (n->access0.read_bandwidth * 10 + least / 2) / least;
		w[n->id] = (unsigned)(v > UINT32_MAX ? UINT32_MAX : v);
		g = gcd(g, w[n->id]);
	}
	for (int n = 0; g > 1 && n < PMEMRAM_MAX_NODES; n++)
		w[n] /= (unsigned)g;
	for (int n = 0; n < PMEMRAM_MAX_NODES; n++)
		most = w[n] > most ? w[n] : most;
	for (int n = 0; most > PMEMRAM_CLASS_WEIGHT_MAX && n < PMEMRAM_MAX_NODES; n++)
		if (w[n])
			w[n] = (unsigned)((w[n] * PMEMRAM_CLASS_WEIGHT_MAX + most / 2) / most) ?: 1;
}

int pmemram_class_weights(const struct pmemram_class *c, const struct pmemram_topology *t,
			  const struct pmemram_nodemask *nodes, struct pmemram_weights *ret, char *why, size_t why_size)
{
	struct pmemram_weights w = {};
	_cleanup_(freep) unsigned *hmat = NULL;

	if (!c || !t || !nodes || !ret)
		return -EINVAL;
	if (pmemram_nodemask_weight(nodes) > PMEMRAM_CLASS_WEIGHTS_MAX)
		return explain(why, why_size, -E2BIG, "%u nodes: weighted interleave takes up to %d",
			       pmemram_nodemask_weight(nodes), PMEMRAM_CLASS_WEIGHTS_MAX);
	if (c->weights_hmat) {
		hmat = calloc(PMEMRAM_MAX_NODES, sizeof(*hmat));
		if (!hmat)
			return -ENOMEM;
		hmat_weights(t, hmat);
	}

	PMEMRAM_NODEMASK_FOREACH(n, nodes) {
		struct pmemram_class_weight *x = &w.w[w.n++];

		x->node = (unsigned)n;
		if (hmat) {
			if (hmat[n] == 0)
				return explain(why, why_size, -ENODATA,
					       "node %d reports no read bandwidth (no ACPI HMAT access0 data): give "
					       "weights = NODE:WEIGHT,... instead of hmat",
					       n);
			x->weight = hmat[n];
		} else {
			size_t i;

			for (i = 0; i < c->n_weights && c->weights[i].node != (unsigned)n; i++)
				;
			if (i == c->n_weights)
				return explain(why, why_size, -ENOENT,
					       "node %d of the class has no weight in weights =", n);
			x->weight = c->weights[i].weight;
		}
	}
	*ret = w;
	return 0;
}

const char *pmemram_weights_format(const struct pmemram_weights *w, char *buf, size_t size)
{
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < w->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u:%u", i ? "," : "", w->w[i].node, w->w[i].weight);
	return buf;
}
