/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page allocator shuffling: effective state from kernel/mm/shuffle/ and nodeN/shuffle/, or the raw
 * page_alloc.shuffle. */
#include "pmemram-private.h"

#define SHUFFLE_DIR "kernel/mm/shuffle"
#define SHUFFLE_PARAMETER "module/page_alloc/parameters/shuffle"
#define NODE_DIR "devices/system/node"
#define MAX_SHUFFLE_ORDER 63

/* A reason is one lower-case word ("hmat", "forced-off"): refuse anything else. */
static bool reason_is_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

static int read_reason(struct pmemram_ctx *ctx, const char *path, char buf[static PMEMRAM_SHUFFLE_REASON_MAX])
{
	int r;

	r = sysfs_read_string(ctx, path, buf, PMEMRAM_SHUFFLE_REASON_MAX);
	if (r < 0)
		return r;
	if (!reason_is_valid(buf)) {
		pmemram_ctx_set_error_path(ctx, path);
		return log_debug_errno(ctx, -EINVAL, "%s: shuffle reason \"%s\" is not a word", path, buf);
	}
	return 0;
}

/* devices/system/node/nodeN/shuffle/FILE */
static int node_file(char path[static 96], int node, const char *file)
{
	return path_printf(path, 96, NODE_DIR "/node%d/shuffle/%s", node, file);
}

/* nodeN/shuffle/{enabled,reason} of every online node.  The kernel has the switch per node when its
 * summary lists nodes (kernel/mm/shuffle/nodes); a node whose files are gone went offline since the
 * online list was read and is left out. */
static int read_nodes(struct pmemram_ctx *ctx, struct pmemram_shuffle *s)
{
	struct pmemram_nodemask online;
	char path[96];
	int r;

	r = sysfs_exists(ctx, SHUFFLE_DIR "/nodes");
	if (r <= 0)
		return r; /* no switch per node */
	r = sysfs_read_nodemask(ctx, NODE_DIR "/online", &online);
	if (sysfs_absent(ctx, r))
		return 0; /* no NUMA */
	if (r < 0)
		return r;
	s->per_node = true;
	PMEMRAM_NODEMASK_FOREACH(id, &online) {
		struct pmemram_shuffle_node *n = &s->nodes[s->n_nodes];

		n->node = id;
		r = node_file(path, id, "enabled");
		if (r < 0)
			return r;
		r = sysfs_read_bool(ctx, path, &n->enabled);
		if (sysfs_absent(ctx, r))
			continue;
		if (r < 0)
			return r;
		r = node_file(path, id, "reason");
		if (r < 0)
			return r;
		r = read_reason(ctx, path, n->reason);
		if (sysfs_absent(ctx, r))
			continue;
		if (r < 0)
			return r;
		s->n_nodes++;
	}
	return 0;
}

/* Patched kernel: enabled, reason and order, all three required; the nodes when it has them. */
static int read_patched(struct pmemram_ctx *ctx, struct pmemram_shuffle *s)
{
	int r;

	s->source = PMEMRAM_SHUFFLE_SYSFS;
	r = sysfs_read_bool(ctx, SHUFFLE_DIR "/enabled", &s->enabled);
	if (r < 0)
		return r;

	r = read_reason(ctx, SHUFFLE_DIR "/reason", s->reason);
	if (r < 0)
		return r;

	r = sysfs_read_int(ctx, SHUFFLE_DIR "/order", &s->order);
	if (r < 0)
		return r;
	if (s->order < 0 || s->order > MAX_SHUFFLE_ORDER) {
		pmemram_ctx_set_error_path(ctx, SHUFFLE_DIR "/order");
		return log_debug_errno(ctx, -EINVAL, "shuffle order %d out of range", s->order);
	}

	return read_nodes(ctx, s);
}

int pmemram_shuffle_read(struct pmemram_ctx *ctx, struct pmemram_shuffle *ret)
{
	/* Large (a slot per possible node): on the heap, and *ret untouched on failure. */
	_cleanup_(freep) struct pmemram_shuffle *s = NULL;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->source = PMEMRAM_SHUFFLE_UNAVAILABLE;
	s->order = -1;

	r = sysfs_exists(ctx, SHUFFLE_DIR);
	if (r < 0)
		return r;
	if (r > 0) {
		r = read_patched(ctx, s);
		if (r < 0)
			return r;
		goto done;
	}

	/* Stock kernel: only the raw parameter, which says nothing about the effective state. */
	r = sysfs_read_bool(ctx, SHUFFLE_PARAMETER, &s->enabled);
	if (sysfs_absent(ctx, r))
		goto done; /* CONFIG_SHUFFLE_PAGE_ALLOCATOR=n */
	if (r < 0)
		return r;
	s->source = PMEMRAM_SHUFFLE_PARAMETER;
	strcpy(s->reason, "parameter");

done:
	log_debug(ctx, "shuffle: source %s, enabled %d, reason %s, order %d, %zu nodes switched at runtime",
		  pmemram_shuffle_source_to_string(s->source), s->enabled, s->reason, s->order, s->n_nodes);
	memcpy(ret, s, sizeof(*s));
	return 0;
}

const struct pmemram_shuffle_node *pmemram_shuffle_find_node(const struct pmemram_shuffle *s, int node)
{
	for (size_t i = 0; s && i < s->n_nodes; i++)
		if (s->nodes[i].node == node)
			return &s->nodes[i];
	return NULL;
}

int pmemram_shuffle_node_write(struct pmemram_ctx *ctx, int node, bool enable)
{
	char path[96];
	int r;

	if (!ctx || node < 0 || node >= PMEMRAM_MAX_NODES)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	r = node_file(path, node, "enabled");
	if (r < 0)
		return r;
	return sysfs_write_verify(ctx, path, enable ? "1" : "0", NULL);
}
