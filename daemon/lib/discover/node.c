/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NUMA nodes: cpu/memory masks, MemTotal, HMAT memory-side caches, access0 performance, memory tiers,
 * the tiering counters of vmstat. */
#include "pmemram-private.h"

#define NODE_DIR "devices/system/node"
#define TIER_DIR "devices/virtual/memory_tiering"
#define MAX_TIERS 4096

static int read_cache(struct pmemram_ctx *ctx, int node, const char *name, struct pmemram_cache *ret)
{
	static const char *const attrs[] = { "size", "line_size", "indexing", "write_policy" };
	uint64_t v[ELEMENTSOF(attrs)];
	unsigned long level;
	char dir[96];
	int r;

	r = sysfs_name_index(name, "index", &level);
	if (r < 0 || level > UINT32_MAX)
		return log_debug_errno(ctx, -EINVAL, "node%d: bad cache entry %s", node, name);

	r = path_printf(dir, sizeof(dir), NODE_DIR "/node%d/memory_side_cache/%s", node, name);
	if (r < 0)
		return r;
	r = sysfs_read_u64_attrs(ctx, dir, attrs, ELEMENTSOF(attrs), v);
	if (r < 0)
		return r;

	/* The kernel's enums: indexing 0 direct-mapped, 1 complex, 2 other; same shape for policy. */
	if (v[2] >= _PMEMRAM_CACHE_INDEXING_MAX || v[3] >= _PMEMRAM_CACHE_WRITE_POLICY_MAX) {
		pmemram_ctx_set_error_path(ctx, dir);
		return log_debug_errno(ctx, -EINVAL, "%s: indexing %" PRIu64 " / write_policy %" PRIu64
				       " out of range", dir, v[2], v[3]);
	}

	*ret = (struct pmemram_cache){
		.level = (unsigned)level,
		.size = v[0],
		.line_size = v[1],
		.indexing = (enum pmemram_cache_indexing)v[2],
		.write_policy = (enum pmemram_cache_write_policy)v[3],
	};
	return 0;
}

static int read_caches(struct pmemram_ctx *ctx, struct pmemram_node *n)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	char path[64];
	int r;

	r = path_printf(path, sizeof(path), NODE_DIR "/node%d/memory_side_cache", n->id);
	if (r < 0)
		return r;

	r = sysfs_dir_read(ctx, path, "index", PMEMRAM_MAX_CACHE_LEVELS, &dir);
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;

	for (size_t i = 0; i < dir.n; i++) {
		r = read_cache(ctx, n->id, dir.names[i], &n->caches[i]);
		if (r < 0)
			return r;
		n->n_caches++;
	}
	return 0;
}

static int read_access0(struct pmemram_ctx *ctx, struct pmemram_node *n)
{
	static const char *const attrs[] = { "read_latency", "write_latency", "read_bandwidth",
					     "write_bandwidth" };
	uint64_t v[ELEMENTSOF(attrs)];
	char dir[96];
	int r;

	r = path_printf(dir, sizeof(dir), NODE_DIR "/node%d/access0/initiators", n->id);
	if (r < 0)
		return r;
	r = sysfs_exists(ctx, dir);
	if (r <= 0)
		return r;

	/* The kernel creates the four attributes together: all are required. */
	r = sysfs_read_u64_attrs(ctx, dir, attrs, ELEMENTSOF(attrs), v);
	if (r < 0)
		return r;

	n->access0 = (struct pmemram_access){
		.present = true,
		.read_latency = v[0],
		.write_latency = v[1],
		.read_bandwidth = v[2],
		.write_bandwidth = v[3],
	};
	return 0;
}

static int read_mem_total(struct pmemram_ctx *ctx, struct pmemram_node *n)
{
	char path[64], buf[SYSFS_ATTR_MAX];
	int r;

	r = path_printf(path, sizeof(path), NODE_DIR "/node%d/meminfo", n->id);
	if (r < 0)
		return r;
	r = sysfs_read_string(ctx, path, buf, sizeof(buf));
	if (r < 0)
		return r;

	r = pmemram_parse_meminfo_value(buf, "MemTotal", &n->mem_total);
	if (r < 0) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, r == -ENODATA ? -EINVAL : r, "%s: no usable MemTotal line", path);
	}
	return 0;
}

/* Assign every node the memory_tierN whose nodelist contains it. */
static int read_tiers(struct pmemram_ctx *ctx, struct pmemram_topology *t)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	int r;

	r = sysfs_dir_read(ctx, TIER_DIR, "memory_tier", MAX_TIERS, &dir);
	if (sysfs_absent(ctx, r))
		return 0; /* kernel before 6.1 or without NUMA tiering */
	if (r < 0)
		return r;

	for (size_t i = 0; i < dir.n; i++) {
		struct pmemram_nodemask nodes;
		unsigned long tier;
		char path[96];

		r = sysfs_name_index(dir.names[i], "memory_tier", &tier);
		if (r < 0 || tier > INT32_MAX)
			return log_debug_errno(ctx, -EINVAL, "bad tier name %s", dir.names[i]);

		r = path_printf(path, sizeof(path), TIER_DIR "/%s/nodelist", dir.names[i]);
		if (r < 0)
			return r;
		r = sysfs_read_nodemask(ctx, path, &nodes);
		/* The kernel drops a tier when its last node goes (kmem unbound): gone since the listing. */
		if (sysfs_absent(ctx, r) || r == -ENODEV) {
			log_debug(ctx, "%s: removed while being read", dir.names[i]);
			pmemram_ctx_clear_error(ctx);
			continue;
		}
		if (r < 0)
			return r;

		for (size_t k = 0; k < t->n_nodes; k++)
			if (pmemram_nodemask_test(&nodes, (unsigned)t->nodes[k].id))
				t->nodes[k].tier = (int)tier;
	}
	return 0;
}

static int read_node(struct pmemram_ctx *ctx, struct pmemram_node *n)
{
	int r;

	r = read_mem_total(ctx, n);
	if (r >= 0)
		r = read_caches(ctx, n);
	if (r >= 0)
		r = read_access0(ctx, n);
	return r;
}

/* Whether nodeN's directory is gone. */
/* The kernel clears a node's bit in the online mask before it removes the node's device, whose
 * attributes then go one by one before its directory: either tells that the node is going. */
static bool node_gone(struct pmemram_ctx *ctx, int id)
{
	struct pmemram_nodemask online;
	char path[64];

	if (path_printf(path, sizeof(path), NODE_DIR "/node%d", id) >= 0 && sysfs_exists(ctx, path) == 0)
		return true;
	return sysfs_read_nodemask(ctx, NODE_DIR "/online", &online) >= 0 &&
	       !pmemram_nodemask_test(&online, (unsigned)id);
}

void pmemram_topology_direct_mapped_nodes(const struct pmemram_topology *t, struct pmemram_nodemask *ret)
{
	struct pmemram_nodemask m = {};

	for (size_t i = 0; t && i < t->n_nodes; i++)
		for (size_t k = 0; k < t->nodes[i].n_caches; k++)
			if (t->nodes[i].caches[k].indexing == PMEMRAM_CACHE_DIRECT_MAPPED)
				pmemram_nodemask_set(&m, (unsigned)t->nodes[i].id);
	*ret = m;
}

struct pmemram_topology *pmemram_topology_free(struct pmemram_topology *t)
{
	if (!t)
		return NULL;
	free(t->nodes);
	free(t);
	return NULL;
}

int pmemram_topology_read(struct pmemram_ctx *ctx, struct pmemram_topology **ret)
{
	_cleanup_(pmemram_topology_freep) struct pmemram_topology *t = NULL;
	unsigned n_online;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;

	r = sysfs_read_nodemask(ctx, NODE_DIR "/online", &t->online);
	if (r < 0)
		return r;
	r = sysfs_read_nodemask(ctx, NODE_DIR "/has_cpu", &t->has_cpu);
	if (r < 0)
		return r;
	r = sysfs_read_nodemask(ctx, NODE_DIR "/has_memory", &t->has_memory);
	if (r < 0)
		return r;

	n_online = pmemram_nodemask_weight(&t->online);
	if (n_online > 0) {
		t->nodes = calloc(n_online, sizeof(*t->nodes));
		if (!t->nodes)
			return -ENOMEM;
	}

	PMEMRAM_NODEMASK_FOREACH(id, &t->online) {
		struct pmemram_node *n = &t->nodes[t->n_nodes++];

		n->id = id;
		n->tier = -1;
		n->has_cpu = pmemram_nodemask_test(&t->has_cpu, (unsigned)id);
		n->has_memory = pmemram_nodemask_test(&t->has_memory, (unsigned)id);

		r = read_node(ctx, n);
		/* The kernel takes a node away when its last memory goes (kmem unbound): it was in the
		 * online list, and its directory is gone, or going (its attributes read ENODEV). */
		if (r == -ENODEV || (r == -ENOENT && node_gone(ctx, id))) {
			log_debug(ctx, "node%d: removed while being read", id);
			pmemram_ctx_clear_error(ctx);
			t->n_nodes--;
			continue;
		}
		if (r < 0)
			return r;
	}

	r = read_tiers(ctx, t);
	if (r < 0)
		return r;

	log_debug(ctx, "%zu online nodes", t->n_nodes);
	*ret = TAKE_PTR(t);
	return 0;
}

const struct pmemram_node *pmemram_topology_find_node(const struct pmemram_topology *t, int id)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].id == id)
			return &t->nodes[i];
	return NULL;
}

int pmemram_parse_vmstat_line(const char *line, struct pmemram_vmstat_counter *ret)
{
	size_t len;

	if (!line || !ret)
		return -EINVAL;
	if (strncmp(line, "pgpromote_", 10) != 0 && strncmp(line, "pgdemote_", 9) != 0)
		return 0;
	len = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (line[len] != ' ' || copy_span(ret->name, sizeof(ret->name), line, len) < 0)
		return -EINVAL;
	return pmemram_parse_u64(line + len + 1, 10, &ret->value) < 0 ? -EINVAL : 1;
}

/* The tiering counters of the vmstat file path below root which. */
static int vmstat_read(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path,
		       struct pmemram_vmstat_counter *ret, size_t max)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char line[256];
	size_t n = 0;
	int r;

	pmemram_ctx_clear_error(ctx);
	r = root_fopen(ctx, which, path, &f);
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;
	while (n < max && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		r = pmemram_parse_vmstat_line(line, &ret[n]);
		if (r < 0) {
			pmemram_ctx_set_error_path_in(ctx, which, path);
			return log_debug_errno(ctx, r, "%s: malformed line \"%s\"", path, line);
		}
		n += (size_t)r;
	}
	if (ferror(f)) {
		pmemram_ctx_set_error_path_in(ctx, which, path);
		return -EIO;
	}
	return (int)n;
}

int pmemram_node_vmstat_read(struct pmemram_ctx *ctx, int node, struct pmemram_vmstat_counter *ret, size_t max)
{
	char path[64];
	int r;

	if (!ctx || node < 0 || (!ret && max > 0))
		return -EINVAL;
	r = path_printf(path, sizeof(path), NODE_DIR "/node%d/vmstat", node);
	if (r < 0)
		return r;
	return vmstat_read(ctx, PMEMRAM_ROOT_SYSFS, path, ret, max);
}

int pmemram_vmstat_read(struct pmemram_ctx *ctx, struct pmemram_vmstat_counter *ret, size_t max)
{
	if (!ctx || (!ret && max > 0))
		return -EINVAL;
	return vmstat_read(ctx, PMEMRAM_ROOT_PROCFS, "vmstat", ret, max);
}
