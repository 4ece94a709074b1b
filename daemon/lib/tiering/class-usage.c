/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What each tiering class uses: its slice cgroup's memory per NUMA node, and the nodes' tiering counters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "json-util.h"
#include "pmemram-private.h"
#include "pmemram-tiering.h"

#define NUMA_STAT_FILE "memory.numa_stat"
#define DIGITS "0123456789"

/* The pairs " N<id>=<bytes>" after a line's key, added to acc; acc NULL checks them only. */
static int parse_pairs(const char *p, struct pmemram_numa_usage *acc)
{
	while (*p) {
		char id_text[8], value_text[24];
		size_t id_len, value_len;
		uint64_t id, value;

		if (p[0] != ' ')
			return -EINVAL;
		if (p[1] == '\0')
			break; /* a trailing blank */
		if (p[1] != 'N')
			return -EINVAL;
		p += 2;
		id_len = strspn(p, DIGITS);
		if (p[id_len] != '=')
			return -EINVAL;
		value_len = strspn(p + id_len + 1, DIGITS);
		if (id_len == 0 || value_len == 0 || copy_span(id_text, sizeof(id_text), p, id_len) < 0 ||
		    copy_span(value_text, sizeof(value_text), p + id_len + 1, value_len) < 0 ||
		    pmemram_parse_u64(id_text, 10, &id) < 0 || pmemram_parse_u64(value_text, 10, &value) < 0)
			return id_len >= sizeof(id_text) ? -ERANGE : -EINVAL;
		if (id >= PMEMRAM_MAX_NODES)
			return -ERANGE;
		if (acc) {
			pmemram_nodemask_set(&acc->nodes, (unsigned)id);
			acc->bytes[id] = value > UINT64_MAX - acc->bytes[id] ? UINT64_MAX : acc->bytes[id] + value;
		}
		p += id_len + 1 + value_len;
	}
	return 0;
}

int pmemram_parse_numa_stat_line(const char *line, struct pmemram_numa_usage *acc)
{
	size_t key_len;
	int kind, r;

	if (!line || !acc)
		return -EINVAL;
	key_len = strcspn(line, " \t");
	if (key_len == 4 && strncmp(line, "anon", 4) == 0)
		kind = PMEMRAM_NUMA_STAT_ANON;
	else if (key_len == 4 && strncmp(line, "file", 4) == 0)
		kind = PMEMRAM_NUMA_STAT_FILE;
	else
		return 0;
	/* All or nothing: a line cut in the middle adds none of its nodes. */
	r = parse_pairs(line + key_len, NULL);
	if (r < 0)
		return r;
	(void)parse_pairs(line + key_len, acc);
	return kind;
}

int pmemram_slice_read_usage(struct pmemram_ctx *ctx, const char *class_name, struct pmemram_numa_usage *ret)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) char *line = NULL;
	_cleanup_(freep) struct pmemram_numa_usage *u = NULL;
	char path[PATH_MAX];
	size_t size = 0;
	int r, seen = 0;

	if (!ctx || !class_name || !ret)
		return -EINVAL;
	r = pmemram_slice_cgroup_file(ctx, class_name, NUMA_STAT_FILE, path, sizeof(path));
	if (r <= 0)
		return r;
	r = root_fopen(ctx, PMEMRAM_ROOT_SYSFS, path, &f);
	if (r < 0)
		return r;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	/* A line has a pair per node: one with many nodes is longer than any fixed buffer. */
	while (getline(&line, &size, f) >= 0) {
		line[strcspn(line, "\n")] = '\0';
		r = pmemram_parse_numa_stat_line(line, u);
		if (r < 0) {
			pmemram_ctx_set_error_path(ctx, path);
			return log_debug_errno(ctx, r, "%s: malformed line \"%.64s\"", path, line);
		}
		seen |= r;
	}
	if (ferror(f) || seen != (PMEMRAM_NUMA_STAT_ANON | PMEMRAM_NUMA_STAT_FILE)) {
		pmemram_ctx_set_error_path(ctx, path);
		return ferror(f) ? -EIO : -EBADMSG;
	}
	*ret = *u;
	return 1;
}

uint64_t pmemram_numa_usage_outside(const struct pmemram_numa_usage *u, const struct pmemram_nodemask *allowed,
				    struct pmemram_nodemask *ret_nodes)
{
	struct pmemram_nodemask nodes = {};
	uint64_t sum = 0;

	PMEMRAM_NODEMASK_FOREACH(n, &u->nodes) {
		if (u->bytes[n] == 0 || pmemram_nodemask_test(allowed, (unsigned)n))
			continue;
		pmemram_nodemask_set(&nodes, (unsigned)n);
		sum = u->bytes[n] > UINT64_MAX - sum ? UINT64_MAX : sum + u->bytes[n];
	}
	if (ret_nodes)
		*ret_nodes = nodes;
	return sum;
}

bool pmemram_numa_usage_to_json(struct json_object *o, int r, const struct pmemram_numa_usage *u,
				const struct pmemram_nodemask *allowed)
{
	struct json_object *per_node;
	struct pmemram_nodemask outside;
	char nodes[512];
	uint64_t total = 0, bytes_outside;

	if (r <= 0)
		return json_add_null_value(o, "memory_per_node") && json_add_null_value(o, "memory_bytes") &&
		       json_add_null_value(o, "outside_nodes") && json_add_null_value(o, "bytes_outside");
	per_node = json_object_new_object();
	if (!json_add(o, "memory_per_node", per_node))
		return false;
	PMEMRAM_NODEMASK_FOREACH(n, &u->nodes) {
		char key[16];

		(void)snprintf(key, sizeof(key), "%d", n);
		if (!json_add(per_node, key, json_object_new_uint64(u->bytes[n])))
			return false;
		total = u->bytes[n] > UINT64_MAX - total ? UINT64_MAX : total + u->bytes[n];
	}
	if (!json_add(o, "memory_bytes", json_object_new_uint64(total)))
		return false;
	if (!allowed)
		return json_add_null_value(o, "outside_nodes") && json_add_null_value(o, "bytes_outside");
	bytes_outside = pmemram_numa_usage_outside(u, allowed, &outside);
	if (pmemram_nodemask_format(&outside, nodes, sizeof(nodes)) < 0)
		return false;
	return json_add_string_or_null(o, "outside_nodes", nodes[0] ? nodes : NULL) &&
	       json_add(o, "bytes_outside", json_object_new_uint64(bytes_outside));
}

static const struct pmemram_vmstat_counter *find_counter(const struct pmemram_vmstat_counter *c, size_t n,
							 const char *name)
{
	for (size_t i = 0; c && i < n; i++)
		if (streq(c[i].name, name))
			return &c[i];
	return NULL;
}

static bool add_counter(struct json_object *o, const struct pmemram_vmstat_counter *c,
			const struct pmemram_vmstat_counter *base, size_t n_base)
{
	const struct pmemram_vmstat_counter *b = find_counter(base, n_base, c->name);

	return json_add(o, c->name, json_object_new_uint64(b && c->value >= b->value ? c->value - b->value : c->value));
}

struct json_object *pmemram_vmstat_to_json(const struct pmemram_vmstat_counter *now, size_t n,
					   const struct pmemram_vmstat_counter *base, size_t n_base)
{
	static const char *const named[] = { "pgdemote_kswapd", "pgdemote_direct", "pgpromote_success" };
	struct json_object *o = json_object_new_object();
	bool ok = o;

	for (size_t i = 0; ok && i < ELEMENTSOF(named); i++) {
		const struct pmemram_vmstat_counter *c = find_counter(now, n, named[i]);

		ok = c ? add_counter(o, c, base, n_base) : json_add_null_value(o, named[i]);
	}
	for (size_t i = 0; ok && i < n; i++)
		if (!json_object_object_get_ex(o, now[i].name, NULL))
			ok = add_counter(o, &now[i], base, n_base);
	if (!ok)
		json_object_putp(&o);
	return o;
}
