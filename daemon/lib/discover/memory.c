/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Memory blocks (devices/system/memory/memoryN): block size, auto-online policy, state, zones, node. */
#include "pmemram-private.h"

#define MEMORY_DIR "devices/system/memory"

/* The nodeN link inside a block directory; -1 when there is none. */
static int read_block_node(struct pmemram_ctx *ctx, const char *dir, int *ret)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir links = {};
	unsigned long node;
	int r;

	/* A block belongs to at most one node; a second link would be a kernel bug. */
	r = sysfs_dir_read(ctx, dir, "node", 2, &links);
	if (r < 0)
		return r;
	if (links.n == 0) {
		*ret = -1;
		return 0;
	}
	if (links.n > 1)
		return log_debug_errno(ctx, -EINVAL, "%s: block linked to several nodes", dir);

	r = sysfs_name_index(links.names[0], "node", &node);
	if (r < 0 || node >= PMEMRAM_MAX_NODES)
		return log_debug_errno(ctx, -EINVAL, "%s: bad node link %s", dir, links.names[0]);

	*ret = (int)node;
	return 0;
}

static int read_block(struct pmemram_ctx *ctx, const char *name, struct pmemram_memblock *ret)
{
	struct pmemram_memblock b = {};
	char dir[64], path[96];
	int state, r;

	r = sysfs_name_index(name, "memory", &b.id);
	if (r < 0)
		return log_debug_errno(ctx, r, "%s: not a memory block name", name);

	r = path_printf(dir, sizeof(dir), MEMORY_DIR "/%s", name);
	if (r < 0)
		return r;

	r = sysfs_read_enum(ctx, SYSFS_JOIN(path, dir, "state"), pmemram_block_state_from_string, &state);
	if (r < 0)
		return r;
	b.state = (enum pmemram_block_state)state;

	/* The node link comes first: it appears only once the kernel has set the block's node id. */
	r = read_block_node(ctx, dir, &b.node);
	if (r < 0)
		return r;

	/*
	 * A block's directory and its "add" uevent exist before the block has a node id.  Reading
	 * valid_zones in that window makes 6.1 look up the zones of node -1 (NULL dereference in
	 * zone_for_pfn_range()), so a block without its node link is left with no zones: it is
	 * offline and still being added, and nobody acts on it until it has the link.
	 */
	if (b.node >= 0) {
		r = sysfs_read_zones(ctx, SYSFS_JOIN(path, dir, "valid_zones"), &b.zones);
		if (r < 0)
			return r;
	}

	r = sysfs_read_hex(ctx, SYSFS_JOIN(path, dir, "phys_index"), &b.phys_index);
	if (r < 0)
		return r;

	/* "removable" is deprecated (always 1 since 5.9) and may disappear: optional. */
	r = sysfs_read_bool(ctx, SYSFS_JOIN(path, dir, "removable"), &b.removable);
	if (sysfs_absent(ctx, r))
		b.removable = false;
	else if (r < 0)
		return r;

	*ret = b;
	return 0;
}

int memblock_view_read(struct pmemram_ctx *ctx, unsigned long block, int node_hint, struct memblock_view *ret)
{
	struct memblock_view v = { .node = -1, .state_id = -1, .zone = -1 };
	char dir[64], path[96];
	int r;

	/* The state first: a block that is not there (never added, removed with kmem, or being
	 * removed: its attributes go first) reads ENOENT or ENODEV. */
	r = path_printf(dir, sizeof(dir), MEMORY_DIR "/memory%lu", block);
	if (r >= 0)
		r = sysfs_read_string(ctx, SYSFS_JOIN(path, dir, "state"), v.state, sizeof(v.state));
	if (r == -ENOENT || r == -ENODEV) {
		pmemram_ctx_clear_error(ctx);
		*ret = v;
		return 0;
	}
	if (r < 0)
		return r;
	v.present = true;
	v.state_id = pmemram_block_state_from_string(v.state);

	/* The node link where the caller expects it is one lookup; without it, the listing says. */
	r = -ENOENT;
	if (node_hint >= 0 && node_hint < PMEMRAM_MAX_NODES) {
		char link[96];

		r = path_printf(link, sizeof(link), "%s/node%d", dir, node_hint);
		if (r >= 0)
			r = sysfs_exists(ctx, link);
		if (r > 0)
			v.node = node_hint;
	}
	if (r <= 0) {
		r = read_block_node(ctx, dir, &v.node);
		if (r < 0)
			return r;
	}

	/* The zone matters once the block is online; an offline block's valid zones are read only
	 * for a message, by memblock_view_read_zones(). */
	if (v.state_id == PMEMRAM_BLOCK_ONLINE) {
		r = memblock_view_read_zones(ctx, block, &v);
		if (r < 0)
			return r;
	} else
		(void)snprintf(v.zones, sizeof(v.zones), "not read");
	*ret = v;
	return 0;
}

int memblock_view_read_zones(struct pmemram_ctx *ctx, unsigned long block, struct memblock_view *v)
{
	struct pmemram_zones zones;
	char path[96];
	int r;

	/* Not before the node link: see read_block(). */
	if (v->node < 0) {
		(void)snprintf(v->zones, sizeof(v->zones), "not read, no node yet");
		return 0;
	}
	r = path_printf(path, sizeof(path), MEMORY_DIR "/memory%lu/valid_zones", block);
	if (r >= 0)
		r = sysfs_read_string(ctx, path, v->zones, sizeof(v->zones));
	if (r < 0)
		return r;
	if (pmemram_parse_valid_zones(v->zones, &zones) >= 0)
		v->zone = (int)zones.first;
	return 0;
}

struct pmemram_memory *pmemram_memory_free(struct pmemram_memory *m)
{
	if (!m)
		return NULL;
	free(m->blocks);
	free(m);
	return NULL;
}

/* A new pmemram_memory with the block size and the auto-online policy, and no blocks. */
static int memory_new(struct pmemram_ctx *ctx, struct pmemram_memory **ret)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	int policy, r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;

	r = sysfs_read_hex(ctx, MEMORY_DIR "/block_size_bytes", &m->block_size);
	if (r < 0)
		return r;
	if (m->block_size == 0 || (m->block_size & (m->block_size - 1)) != 0) {
		pmemram_ctx_set_error_path(ctx, MEMORY_DIR "/block_size_bytes");
		return log_debug_errno(ctx, -EINVAL, "block size %#" PRIx64 " is not a power of two",
				       m->block_size);
	}

	r = sysfs_read_enum(ctx, MEMORY_DIR "/auto_online_blocks", pmemram_auto_online_from_string,
			    &policy);
	if (r < 0)
		return r;
	m->auto_online = (enum pmemram_auto_online)policy;
	*ret = TAKE_PTR(m);
	return 0;
}

int pmemram_memory_read_block(struct pmemram_ctx *ctx, unsigned long block, struct pmemram_memory **ret)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	char name[32];
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	r = memory_new(ctx, &m);
	if (r < 0)
		return r;
	m->blocks = calloc(1, sizeof(*m->blocks));
	if (!m->blocks)
		return -ENOMEM;
	(void)snprintf(name, sizeof(name), "memory%lu", block);
	r = read_block(ctx, name, &m->blocks[0]);
	if (r >= 0)
		m->n_blocks = 1;
	else if (sysfs_absent(ctx, r) || r == -ENODEV)
		pmemram_ctx_clear_error(ctx); /* not there (any more): no blocks */
	else
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

static bool in_ranges(unsigned long id, const struct pmemram_block_span *spans, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (id >= spans[i].first && id < spans[i].end)
			return true;
	return false;
}

int pmemram_memory_read_spans(struct pmemram_ctx *ctx, const struct pmemram_block_span *spans, size_t n_spans,
			      struct pmemram_memory **ret)
{
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	int r;

	if (!ctx || !ret || (!spans && n_spans > 0))
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	r = memory_new(ctx, &m);
	if (r < 0)
		return r;

	r = sysfs_dir_read(ctx, MEMORY_DIR, "memory", PMEMRAM_MAX_BLOCKS, &dir);
	if (r < 0)
		return r;

	if (dir.n > 0) {
		m->blocks = calloc(dir.n, sizeof(*m->blocks));
		if (!m->blocks)
			return -ENOMEM;
	}

	for (size_t i = 0; i < dir.n; i++) {
		unsigned long id;
		char path[64];

		if (spans && (sysfs_name_index(dir.names[i], "memory", &id) < 0 || !in_ranges(id, spans, n_spans)))
			continue;
		r = read_block(ctx, dir.names[i], &m->blocks[m->n_blocks]);
		/* Hot-remove took the block away after the listing: its directory is gone, or going
		 * (the kernel removes a device's attributes before its directory; a file opened just
		 * before reads ENODEV).  It is simply not there any more. */
		if (r < 0 && (sysfs_absent(ctx, r) || r == -ENODEV ||
			      (path_printf(path, sizeof(path), MEMORY_DIR "/%s", dir.names[i]) >= 0 &&
			       sysfs_exists(ctx, path) == 0))) {
			log_debug(ctx, "%s: removed while being read", dir.names[i]);
			pmemram_ctx_clear_error(ctx);
			continue;
		}
		if (r < 0)
			return r;
		m->n_blocks++;
	}

	log_debug(ctx, "%zu memory blocks of %#" PRIx64 " bytes", m->n_blocks, m->block_size);
	*ret = TAKE_PTR(m);
	return 0;
}

int pmemram_memory_read(struct pmemram_ctx *ctx, struct pmemram_memory **ret)
{
	return pmemram_memory_read_spans(ctx, NULL, 0, ret);
}

int pmemram_uevent_seqnum_read(struct pmemram_ctx *ctx, uint64_t *ret)
{
	if (!ctx || !ret)
		return -EINVAL;
	return sysfs_read_u64(ctx, "kernel/uevent_seqnum", ret);
}

struct pmemram_memory_summary *pmemram_memory_summary_free(struct pmemram_memory_summary *s)
{
	if (!s)
		return NULL;
	free(s->nodes);
	free(s);
	return NULL;
}

int pmemram_memory_summarize(const struct pmemram_memory *m, struct pmemram_memory_summary **ret)
{
	_cleanup_(pmemram_memory_summary_freep) struct pmemram_memory_summary *s = NULL;
	_cleanup_(freep) struct pmemram_memory_node_summary *slots = NULL;
	size_t used = 0;

	if (!m || !ret)
		return -EINVAL;

	/* Slot 0 collects blocks without a node, slot n + 1 node n: output comes out sorted. */
	slots = calloc(PMEMRAM_MAX_NODES + 1, sizeof(*slots));
	s = calloc(1, sizeof(*s));
	if (!slots || !s)
		return -ENOMEM;

	for (size_t i = 0; i < m->n_blocks; i++) {
		const struct pmemram_memblock *b = &m->blocks[i];
		struct pmemram_memory_node_summary *n;

		if (b->node < -1 || b->node >= PMEMRAM_MAX_NODES || b->zones.first >= _PMEMRAM_ZONE_MAX)
			return -EINVAL;
		n = &slots[b->node + 1];

		switch (b->state) {
		case PMEMRAM_BLOCK_ONLINE:
			n->online[b->zones.first]++;
			n->online_total++;
			break;
		case PMEMRAM_BLOCK_OFFLINE:
			n->offline++;
			break;
		case PMEMRAM_BLOCK_GOING_OFFLINE:
			n->going_offline++;
			break;
		default:
			return -EINVAL;
		}
	}

	for (size_t i = 0; i <= PMEMRAM_MAX_NODES; i++)
		if (slots[i].online_total + slots[i].offline + slots[i].going_offline > 0)
			used++;

	if (used > 0) {
		s->nodes = calloc(used, sizeof(*s->nodes));
		if (!s->nodes)
			return -ENOMEM;
	}

	for (size_t i = 0; i <= PMEMRAM_MAX_NODES; i++) {
		if (slots[i].online_total + slots[i].offline + slots[i].going_offline == 0)
			continue;
		s->nodes[s->n_nodes] = slots[i];
		s->nodes[s->n_nodes].node = (int)i - 1;
		s->n_nodes++;
	}

	*ret = TAKE_PTR(s);
	return 0;
}
