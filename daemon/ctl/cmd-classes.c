/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl classes and run: tiering classes, their nodes and members; run a command in one. */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-class.h"
#include "pmemram-config.h"
#include "pmemram-tiering.h"

#define ENV_CLASS "PMEMRAM_CLASS" /* set by run: how classes finds the processes it started */
#define MAX_MEMBERS 256

struct class_view {
	const struct pmemram_class *c;
	int r; /* of resolving */
	char nodes[128];
	char why[256];
	struct pmemram_nodemask mask;
	char slice[PMEMRAM_CLASS_NAME_MAX + 16];
	char slice_nodes[128]; /* AllowedMemoryNodes= of its slice file, "" when there is none */
	char demotion_escape[128]; /* with demotion on, the slow nodes outside the class it may demote to */
	int protect_r;		   /* of reading the slice cgroup's memory.low: 1, 0 no cgroup, -errno */
	uint64_t memory_low;
	bool parent_short; /* pmemram.slice's memory.low is less than the classes' protect together */
	int usage_r;	   /* of reading the slice cgroup's memory.numa_stat: 1, 0 no cgroup, -errno */
	struct pmemram_numa_usage usage;
	/* mode = weighted-interleave: the weights wanted (weights_r < 0 and weights_why when they cannot
	 * be had) and the kernel's (in_force_r: 0, -ENOENT on a kernel without weighted interleave) */
	int weights_r, in_force_r;
	bool weights_supported; /* the kernel has /sys/kernel/mm/mempolicy/weighted_interleave */
	struct pmemram_weights weights, in_force;
	char weights_why[256];
};

/* Everything both commands need: the configuration, and the nodes of each class now. */
struct classes {
	struct pmemram_config *config;
	struct pmemram_topology *topology;
	struct pmemram_dax_list *dax;
	struct pmemram_nodemask kmem;
	size_t n;
	struct class_view *views;
	int parent_r; /* of reading pmemram.slice's memory.low */
	uint64_t parent_low;
};

/* Where pmemramd writes the slices: $PMEMRAM_SLICE_DIR (tests) or systemd's runtime units. */
static const char *slice_dir(void)
{
	const char *d = secure_getenv(PMEMRAM_SLICE_DIR_ENV);

	return d && *d ? d : PMEMRAM_SLICE_DIR;
}

static void classes_done(struct classes *s)
{
	pmemram_config_free(s->config);
	pmemram_topology_free(s->topology);
	pmemram_dax_list_free(s->dax);
	free(s->views);
	*s = (struct classes){};
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = secure_getenv(name);

	return v && *v ? v : fallback;
}

/* A weighted-interleave class: its weights over the nodes it resolved to, and the kernel's for them. */
static void read_weights(struct pmemram_ctx *ctx, const struct classes *s, struct class_view *v)
{
	if (v->r < 0) {
		v->weights_r = v->r;
		snprintf(v->weights_why, sizeof(v->weights_why), "%s", v->why);
	} else
		v->weights_r = pmemram_class_weights(v->c, s->topology, &v->mask, &v->weights, v->weights_why,
						     sizeof(v->weights_why));
	v->in_force_r = pmemram_weights_supported(ctx);
	v->weights_supported = v->in_force_r > 0;
	if (v->in_force_r == 0)
		v->in_force_r = -ENOENT;
	if (v->in_force_r < 0 || v->weights_r < 0)
		return;
	v->in_force.n = v->weights.n;
	for (size_t i = 0; i < v->weights.n && v->in_force_r >= 0; i++) {
		v->in_force.w[i].node = v->weights.w[i].node;
		v->in_force_r = pmemram_weight_read(ctx, v->weights.w[i].node, &v->in_force.w[i].weight);
	}
}

/* The weights are in force: the kernel's equal the class's. */
static bool weights_in_force(const struct class_view *v)
{
	if (v->weights_r < 0 || v->in_force_r < 0)
		return false;
	for (size_t i = 0; i < v->weights.n; i++)
		if (v->in_force.w[i].weight != v->weights.w[i].weight)
			return false;
	return true;
}

static int classes_read(struct pmemram_ctx *ctx, const char *dir, struct classes *s)
{
	_cleanup_(closep) int slice_fd = -1;
	bool configured, demotion = false;
	uint64_t sum = 0;
	int r;

	r = ctl_load_config(dir, true, &s->config, &configured);
	if (r != CTL_EXIT_OK)
		return r;
	r = pmemram_topology_read(ctx, &s->topology);
	if (r < 0)
		return ctl_read_failed(ctx, "NUMA nodes", r);
	r = pmemram_dax_list_read(ctx, &s->dax);
	if (r < 0)
		return ctl_read_failed(ctx, "dax devices", r);
	pmemram_kmem_nodes(s->dax, &s->kmem);
	r = pmemram_demotion_read(ctx, &demotion);
	if (r < 0 && r != -ENOENT)
		return ctl_read_failed(ctx, "the demotion switch", r);
	demotion = r >= 0 && demotion;

	s->views = calloc(s->config->n_classes ? s->config->n_classes : 1, sizeof(*s->views));
	if (!s->views)
		return CTL_EXIT_SYSTEM;
	s->n = s->config->n_classes;
	slice_fd = open(slice_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->parent_r = pmemram_slice_read_protection(ctx, NULL, &s->parent_low);
	for (size_t i = 0; i < s->n; i++) {
		struct class_view *v = &s->views[i];

		v->c = &s->config->classes[i];
		v->r = pmemram_class_resolve(v->c, s->topology, &s->kmem, &v->mask, v->why, sizeof(v->why));
		if (v->r >= 0 && pmemram_nodemask_weight(&v->mask) == 0) {
			v->r = -ENXIO;
			snprintf(v->why, sizeof(v->why), "nodes = %s resolves to no node on this machine now",
				 v->c->nodes_text);
		}
		if (v->r >= 0)
			v->r = pmemram_nodemask_format(&v->mask, v->nodes, sizeof(v->nodes));
		if (v->r < 0 && !v->why[0])
			snprintf(v->why, sizeof(v->why), "%s", strerror(-v->r));
		if (v->r >= 0 && demotion) {
			struct pmemram_nodemask escape;

			pmemram_class_demotion_escape(&v->mask, s->topology, &s->kmem, &escape);
			(void)pmemram_nodemask_format(&escape, v->demotion_escape, sizeof(v->demotion_escape));
		}
		if (v->c->mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE)
			read_weights(ctx, s, v);
		v->protect_r = pmemram_slice_read_protection(ctx, v->c->name, &v->memory_low);
		(void)pmemram_slice_name(v->c->name, v->slice, sizeof(v->slice));
		if (slice_fd < 0 || pmemram_slice_read_nodes(slice_fd, v->c->name, v->slice_nodes,
							     sizeof(v->slice_nodes)) <= 0)
			v->slice_nodes[0] = '\0';
	}
	/* The kernel protects a class no more than pmemram.slice, where pmemramd puts the sum over
	 * the classes that resolve. */
	for (size_t i = 0; i < s->n; i++)
		if (s->views[i].r >= 0)
			sum = s->views[i].c->protect > UINT64_MAX - sum ? UINT64_MAX : sum + s->views[i].c->protect;
	for (size_t i = 0; i < s->n; i++)
		s->views[i].parent_short = s->views[i].c->protect > 0 &&
					   (s->parent_r < 0 || (s->parent_r > 0 && s->parent_low < sum &&
								!pmemram_protection_matches(sum, s->parent_low)));
	return CTL_EXIT_OK;
}

static const struct class_view *find_view(const struct classes *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->views[i].c->name, name))
			return &s->views[i];
	return NULL;
}

/* ---- classes ------------------------------------------------------------------------------------ */

/* The units under the slice's cgroup (pmemram-NAME.slice sits below pmemram.slice), sorted. */
static size_t slice_units(const char *slice, char names[][NAME_MAX + 1], size_t max)
{
	char path[PATH_MAX];
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	size_t n = 0;

	if (snprintf(path, sizeof(path), "%s/pmemram.slice/%s", env_or("PMEMRAM_CGROUP_ROOT", "/sys/fs/cgroup"),
		     slice) >= (int)sizeof(path))
		return 0;
	d = opendir(path);
	while (d && (de = readdir(d)) && n < max) {
		const char *dot = strrchr(de->d_name, '.');

		if (de->d_type == DT_DIR && dot && (streq(dot, ".service") || streq(dot, ".scope")))
			snprintf(names[n++], NAME_MAX + 1, "%s", de->d_name);
	}
	qsort(names, n, NAME_MAX + 1, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* Processes started by pmemramctl run --class name: their environment says so. */
static size_t run_members(struct pmemram_ctx *ctx, const char *name, int *pids, size_t max)
{
	const char *proc = pmemram_ctx_get_root(ctx, PMEMRAM_ROOT_PROCFS);
	_cleanup_(closedirp) DIR *d = opendir(proc);
	char want[PMEMRAM_CLASS_NAME_MAX + 32];
	struct dirent *de;
	size_t n = 0;

	snprintf(want, sizeof(want), ENV_CLASS "=%s", name);
	while (d && (de = readdir(d)) && n < max) {
		char path[PATH_MAX], env[65536];
		_cleanup_(closep) int fd = -1;
		ssize_t len;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/environ", proc, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, env, sizeof(env) - 1);
		if (len <= 0)
			continue;
		env[len] = '\0';
		for (ssize_t off = 0; off < len; off += (ssize_t)strlen(env + off) + 1)
			if (streq(env + off, want)) {
				pids[n++] = atoi(de->d_name);
				break;
			}
	}
	return n;
}

static struct json_object *json_class(struct pmemram_ctx *ctx, const struct class_view *v)
{
	char units[64][NAME_MAX + 1];
	int pids[MAX_MEMBERS];
	size_t n_units = slice_units(v->slice, units, ELEMENTSOF(units)), n_pids;
	struct json_object *o = json_object_new_object(), *u = json_object_new_array(), *p = json_object_new_array();
	bool ok = o && u && p;

	n_pids = run_members(ctx, v->c->name, pids, ELEMENTSOF(pids));
	ok = ok && json_add(o, "class", json_object_new_string(v->c->name));
	ok = ok && json_add(o, "nodes_spec", json_object_new_string(v->c->nodes_text));
	ok = ok && json_add(o, "mode", json_object_new_string(pmemram_class_mode_to_string(v->c->mode)));
	/* The slice can only fence (AllowedMemoryNodes=): a policy is pmemramctl run's alone. */
	ok = ok && json_add(o, "mode_in_slice", json_object_new_boolean(v->c->mode == PMEMRAM_CLASS_BIND));
	ok = ok && json_add_string_or_null(o, "nodes", v->r >= 0 ? v->nodes : NULL);
	ok = ok && json_add_string_or_null(o, "error", v->r < 0 ? v->why : NULL);
	ok = ok && json_add(o, "slice", json_object_new_string(v->slice));
	ok = ok && json_add_string_or_null(o, "slice_nodes", v->slice_nodes[0] ? v->slice_nodes : NULL);
	ok = ok &&
	     json_add_string_or_null(o, "demotion_escape_nodes", v->demotion_escape[0] ? v->demotion_escape : NULL);
	ok = ok && json_add(o, "protect", json_object_new_int64((int64_t)v->c->protect));
	ok = ok && (v->protect_r > 0 ? json_add(o, "memory_low", json_object_new_int64((int64_t)v->memory_low))
				     : json_add_null_value(o, "memory_low"));
	ok = ok && pmemram_numa_usage_to_json(o, v->usage_r, &v->usage, v->r >= 0 ? &v->mask : NULL);
	if (v->c->mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE) {
		char text[160];

		ok = ok && json_add(o, "weights_spec", json_object_new_string(v->c->weights_hmat ? "hmat" : "list"));
		ok = ok &&
		     json_add_string_or_null(o, "weights",
					     v->weights_r >= 0 ? pmemram_weights_format(&v->weights, text, sizeof(text))
							       : NULL);
		ok = ok && json_add_string_or_null(o, "weights_error", v->weights_r < 0 ? v->weights_why : NULL);
		ok = ok && json_add_string_or_null(o, "weights_in_force",
						   v->weights_r >= 0 && v->in_force_r >= 0
							   ? pmemram_weights_format(&v->in_force, text, sizeof(text))
							   : NULL);
		ok = ok && json_add(o, "weights_supported", json_object_new_boolean(v->weights_supported));
		ok = ok && json_add(o, "weights_in_effect", json_object_new_boolean(weights_in_force(v)));
	}
	for (size_t i = 0; ok && i < n_units; i++)
		ok = json_append(u, json_object_new_string(units[i]));
	for (size_t i = 0; ok && i < n_pids; i++)
		ok = json_append(p, json_object_new_int(pids[i]));
	ok = ok && json_add(o, "units", json_object_get(u)) && json_add(o, "run_processes", json_object_get(p));
	json_object_put(u);
	json_object_put(p);
	if (!ok)
		json_object_putp(&o);
	return o;
}

/* "protect = 512 MiB: memory.low 512 MiB (in effect)", or why it is not known or not in effect. */
static void print_protect(const struct class_view *v)
{
	char a[32], b[32];

	printf("             protect = %s: ", pmemram_format_size(v->c->protect, a, sizeof(a)));
	if (v->protect_r == 0)
		printf("the slice has no cgroup yet (no unit in it)\n");
	else if (v->protect_r < 0)
		printf("memory.low cannot be read: %s\n", strerror(-v->protect_r));
	else
		printf("memory.low %s (%s)\n",
		       v->memory_low == UINT64_MAX ? "max" : pmemram_format_size(v->memory_low, b, sizeof(b)),
		       !pmemram_protection_matches(v->c->protect, v->memory_low) ? "NOT in effect"
		       : v->parent_short ? "NOT in effect: " PMEMRAM_PARENT_SLICE
					   "'s memory.low is less than all classes' protect"
					 : "in effect");
}

/* "weights 1:3,2:1 (hmat): in force", or what the kernel has, or why there are none. */
static void print_weights(const struct class_view *v)
{
	char want[160], have[160];

	printf("             weights");
	if (v->weights_r < 0) {
		printf(" = %s: ERROR: %s\n", v->c->weights_hmat ? "hmat" : "NODE:WEIGHT,...", v->weights_why);
		return;
	}
	printf(" %s (%s): ", pmemram_weights_format(&v->weights, want, sizeof(want)),
	       v->c->weights_hmat ? "from the HMAT's read bandwidth" : "as configured");
	if (!v->weights_supported)
		printf("the kernel has no weighted interleave (Linux 6.9 and later)\n");
	else if (v->in_force_r < 0)
		printf("the kernel's weight files cannot be read: %s\n", strerror(-v->in_force_r));
	else if (weights_in_force(v))
		printf("in force\n");
	else
		printf("NOT in force: the kernel has %s (pmemramd writes them; another writer changed them, or\n"
		       "             pmemramd has not caught up)\n",
		       pmemram_weights_format(&v->in_force, have, sizeof(have)));
}

/* "memory: node 0 4 KiB, node 2 65 MiB", and what of it is outside the class's nodes. */
static void print_usage(const struct class_view *v)
{
	struct pmemram_nodemask outside;
	char size[32], nodes[128];
	uint64_t bytes;
	bool first = true;

	printf("             memory:");
	if (v->usage_r == 0)
		printf(" none (the slice has no cgroup yet)\n");
	else if (v->usage_r < 0)
		printf(" memory.numa_stat cannot be read: %s\n", strerror(-v->usage_r));
	if (v->usage_r <= 0)
		return;
	PMEMRAM_NODEMASK_FOREACH(n, &v->usage.nodes) {
		printf("%s node %d %s", first ? "" : ",", n,
		       pmemram_format_size(v->usage.bytes[n], size, sizeof(size)));
		first = false;
	}
	printf("%s\n", first ? " none" : "");
	if (v->r < 0)
		return;
	bytes = pmemram_numa_usage_outside(&v->usage, &v->mask, &outside);
	if (bytes > 0 && pmemram_nodemask_format(&outside, nodes, sizeof(nodes)) >= 0)
		printf("             OUTSIDE: %s on node%s %s, not the class's (pages moved, or the class's nodes changed)\n",
		       pmemram_format_size(bytes, size, sizeof(size)), pmemram_nodemask_weight(&outside) > 1 ? "s" : "",
		       nodes);
}

static void print_class(struct pmemram_ctx *ctx, const struct class_view *v)
{
	char units[64][NAME_MAX + 1];
	int pids[MAX_MEMBERS];
	size_t n_units = slice_units(v->slice, units, ELEMENTSOF(units)), n_pids = run_members(ctx, v->c->name, pids, MAX_MEMBERS);

	printf("%-12s nodes = %-18s mode %-10s ", v->c->name, v->c->nodes_text, pmemram_class_mode_to_string(v->c->mode));
	if (v->r >= 0)
		printf("-> node%s %s\n", pmemram_nodemask_weight(&v->mask) > 1 ? "s" : "", v->nodes);
	else
		printf("-> ERROR: %s\n", v->why);
	if (v->slice_nodes[0])
		printf("             %s: AllowedMemoryNodes=%s%s\n", v->slice, v->slice_nodes,
		       v->r >= 0 && !streq(v->slice_nodes, v->nodes) ? " (pmemramd has not caught up)" : "");
	else
		printf("             %s: not written (pmemramd writes it once the class resolves)\n", v->slice);
	if (v->c->mode != PMEMRAM_CLASS_BIND)
		printf("             mode %s: for pmemramctl run only; units in the slice are confined to its\n"
		       "             nodes (AllowedMemoryNodes=), as with bind\n",
		       pmemram_class_mode_to_string(v->c->mode));
	if (v->c->mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE)
		print_weights(v);
	if (v->c->protect)
		print_protect(v);
	print_usage(v);
	if (v->demotion_escape[0])
		printf("             CONFLICT: demotion is on, and the kernel may demote this class's pages to node%s %s\n"
		       "             outside its slice (cpuset.mems is not respected by demotion up to Linux 6.15):\n"
		       "             %s\n",
		       strchr(v->demotion_escape, ',') || strchr(v->demotion_escape, '-') ? "s" : "",
		       v->demotion_escape,
		       v->c->protect ? "protect = SIZE is set: reclaim, and so demotion, passes over that much of it"
				     : "set demotion = off, or protect = SIZE in the class (" PMEMRAM_SLICE_PROTECT_KEY
				       "= on its slice)");
	printf("             units:");
	for (size_t i = 0; i < n_units; i++)
		printf(" %s", units[i]);
	printf("%s\n             run:", n_units ? "" : " none");
	for (size_t i = 0; i < n_pids; i++)
		printf(" %d", pids[i]);
	printf("%s\n", n_pids ? "" : " none");
}

/* The promote and demote counters since boot into o: "system" (/proc/vmstat; null when it cannot be
 * read) and "nodes", [{"node": N, "pgdemote_kswapd": N, ...}], leaving out a node whose vmstat
 * cannot be read.  false on allocation failure. */
static bool tiering_counters(struct pmemram_ctx *ctx, const struct pmemram_topology *t, struct json_object *o)
{
	struct pmemram_vmstat_counter system[PMEMRAM_VMSTAT_MAX];
	struct json_object *a = json_object_new_array();
	int n = pmemram_vmstat_read(ctx, system, ELEMENTSOF(system));

	if (!json_add(o, "nodes", a) ||
	    !(n >= 0 ? json_add(o, "system", pmemram_vmstat_to_json(system, (size_t)n, NULL, 0))
		     : json_add_null_value(o, "system")))
		return false;
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct pmemram_vmstat_counter c[PMEMRAM_VMSTAT_MAX];
		struct json_object *node;
		int k = pmemram_node_vmstat_read(ctx, t->nodes[i].id, c, ELEMENTSOF(c));

		if (k < 0)
			continue;
		node = pmemram_vmstat_to_json(c, (size_t)k, NULL, 0);
		if (!json_add(node, "node", json_object_new_int(t->nodes[i].id)) || !json_append(a, node))
			return false;
	}
	return true;
}

/* " pgdemote_kswapd 12, pgdemote_direct 0, pgpromote_success not counted" */
static void print_counter_line(struct json_object *o)
{
	bool first = true;

	json_object_object_foreach(o, key, value)
	{
		if (streq(key, "node"))
			continue;
		printf("%s %s %s", first ? "" : ",", key, value ? json_object_get_string(value) : "not counted");
		first = false;
	}
	printf("\n");
}

/* The system's counters, then each node's, as tiering_counters() put them in o. */
static void print_counters(struct json_object *o)
{
	struct json_object *system = NULL, *a = NULL;

	(void)json_object_object_get_ex(o, "system", &system);
	(void)json_object_object_get_ex(o, "nodes", &a);
	printf("promote and demote counters since boot (pages):\n");
	if (system) {
		printf("  system:");
		print_counter_line(system);
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *n = json_object_array_get_idx(a, i), *node = NULL;

		(void)json_object_object_get_ex(n, "node", &node);
		printf("  node %d:", json_object_get_int(node));
		print_counter_line(n);
	}
}

static void classes_help(void)
{
	printf("Usage: %s classes [--json] [--config DIR]\n"
	       "\n"
	       "List the tiering classes of the configuration: the nodes each resolves to now, its slice\n"
	       "(pmemram-NAME.slice) with the AllowedMemoryNodes= pmemramd wrote, the memory.low its cgroup\n"
	       "has for protect = SIZE, its memory per node (and what of it is outside the class's\n"
	       "nodes), the units in that slice and the processes started with pmemramctl run --class;\n"
	       "then each node's promote and demote counters since boot.\n",
	       program_invocation_short_name);
}

static int parse_common(const char *command, int argc, char **argv, bool *json, const char **dir, const char **class,
			void (*help)(void))
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "class", required_argument, NULL, 'C' },
		{},
	};
	int c;

	opterr = 0;
	/* "+": a command's own options after "--" or its name are not ours. */
	while ((c = getopt_long(argc, argv, "+hjc:C:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return -1;
		case 'j':
			*json = true;
			break;
		case 'c':
			*dir = optarg;
			break;
		case 'C':
			if (!class)
				return ctl_usage_error(command, "unrecognized option '--class'");
			*class = optarg;
			break;
		default:
			return ctl_unknown_option(command, argv);
		}
	}
	return 0;
}

int cmd_classes(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(classes_done) struct classes s = {};
	_cleanup_(json_object_putp) struct json_object *counters = NULL;
	const char *dir = ctl_config_dir();
	bool json = g->json;
	int r;

	r = parse_common("classes", argc, argv, &json, &dir, NULL, classes_help);
	if (r != 0)
		return r < 0 ? CTL_EXIT_OK : r;
	if (optind < argc)
		return ctl_usage_error("classes", "unexpected argument '%s'", argv[optind]);
	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	r = classes_read(ctx, dir, &s);
	if (r != CTL_EXIT_OK)
		return r;
	for (size_t i = 0; i < s.n; i++)
		s.views[i].usage_r = pmemram_slice_read_usage(ctx, s.views[i].c->name, &s.views[i].usage);

	counters = json_object_new_object();
	if (!counters || !tiering_counters(ctx, s.topology, counters))
		return CTL_EXIT_SYSTEM;
	if (json) {
		struct json_object *root = json_object_new_object(), *a = json_object_new_array();
		char kmem[128] = "";
		bool ok = root && a;

		(void)pmemram_nodemask_format(&s.kmem, kmem, sizeof(kmem));
		for (size_t i = 0; ok && i < s.n; i++)
			ok = json_append(a, json_class(ctx, &s.views[i]));
		ok = ok && json_add(root, "kmem_nodes", json_object_new_string(kmem)) &&
		     json_add(root, "classes", json_object_get(a));
		ok = ok && (s.parent_r > 0 ? json_add(root, "pmemram_slice_memory_low",
						      json_object_new_int64((int64_t)s.parent_low))
					   : json_add_null_value(root, "pmemram_slice_memory_low"));
		ok = ok && json_add(root, "tiering_counters", json_object_get(counters));
		json_object_put(a);
		if (ctl_print_json(root, ok) < 0)
			return CTL_EXIT_SYSTEM;
	} else {
		if (s.n == 0)
			printf("no classes in %s\n", dir);
		for (size_t i = 0; i < s.n; i++)
			print_class(ctx, &s.views[i]);
		print_counters(counters);
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.views[i].r < 0)
			return CTL_EXIT_FAILED; /* a class that does not resolve: its error is in the output */
	return ctl_flush_stdout();
}

/* ---- run ----------------------------------------------------------------------------------------- */

static void run_help(void)
{
	printf("Usage: %s run --class NAME [--config DIR] [--] COMMAND [ARGS...]\n"
	       "\n"
	       "Run COMMAND under the memory policy of tiering class NAME: bind, preferred,\n"
	       "interleave or weighted-interleave over the nodes the class resolves to now.  For\n"
	       "shells and scripts outside systemd; a unit joins a class with\n"
	       "Slice=pmemram-NAME.slice.\n",
	       program_invocation_short_name);
}

/* The system call itself: libnuma's wrapper would make every pmemramctl load libnuma, whose
 * constructor reads the NUMA topology from sysfs and procfs before main() runs. */
static int set_mempolicy_nodes(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode) < 0 ? -1 : 0;
}

/* set_mempolicy() for the class: bind and interleave as such; preferred over several nodes is
 * MPOL_PREFERRED_MANY (Linux 5.15), else the first node. */
static int apply_policy(const struct class_view *v)
{
	unsigned long mask[PMEMRAM_MAX_NODES / (8 * sizeof(unsigned long))] = {};
	int mode, first = -1;

	PMEMRAM_NODEMASK_FOREACH(n, &v->mask) {
		mask[n / (8 * sizeof(unsigned long))] |= 1UL << (n % (8 * sizeof(unsigned long)));
		if (first < 0)
			first = n;
	}
	switch (v->c->mode) {
	case PMEMRAM_CLASS_INTERLEAVE:
		mode = MPOL_INTERLEAVE;
		break;
	case PMEMRAM_CLASS_WEIGHTED_INTERLEAVE:
		mode = PMEMRAM_MPOL_WEIGHTED_INTERLEAVE;
		break;
	case PMEMRAM_CLASS_PREFERRED:
		mode = pmemram_nodemask_weight(&v->mask) > 1 ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
		break;
	default:
		mode = MPOL_BIND;
		break;
	}
	if (set_mempolicy_nodes(mode, mask, PMEMRAM_MAX_NODES + 1) == 0)
		return 0;
	if (mode == MPOL_PREFERRED_MANY && errno == EINVAL) {
		unsigned long one[ELEMENTSOF(mask)] = {};

		one[first / (8 * sizeof(unsigned long))] = 1UL << (first % (8 * sizeof(unsigned long)));
		if (set_mempolicy_nodes(MPOL_PREFERRED, one, PMEMRAM_MAX_NODES + 1) == 0)
			return 0;
	}
	return negative_errno();
}

int cmd_run(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(classes_done) struct classes s = {};
	const char *dir = ctl_config_dir(), *name = NULL;
	const struct class_view *v;
	bool json = g->json;
	int r;

	r = parse_common("run", argc, argv, &json, &dir, &name, run_help);
	if (r != 0)
		return r < 0 ? CTL_EXIT_OK : r;
	if (!name)
		return ctl_usage_error("run", "--class NAME is required");
	if (optind >= argc)
		return ctl_usage_error("run", "no command to run");
	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	r = classes_read(ctx, dir, &s);
	if (r != CTL_EXIT_OK)
		return r;
	v = find_view(&s, name);
	if (!v) {
		fprintf(stderr, "%s run: no class \"%s\" in %s\n", program_invocation_short_name, name, dir);
		return CTL_EXIT_USAGE;
	}
	if (v->r < 0) {
		fprintf(stderr, "%s run: class %s: %s; not running %s\n", program_invocation_short_name, name, v->why,
			argv[optind]);
		return CTL_EXIT_FAILED;
	}
	if (v->c->mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE) {
		char want[160], have[160];

		if (!v->weights_supported || v->weights_r < 0) {
			fprintf(stderr, "%s run: class %s: %s; not running %s\n", program_invocation_short_name, name,
				v->weights_r < 0 ? v->weights_why
						 : "the kernel has no weighted interleave (Linux 6.9 and later)",
				argv[optind]);
			return CTL_EXIT_FAILED;
		}
		if (!weights_in_force(v))
			fprintf(stderr,
				"%s run: class %s: the kernel's weights are %s, not the class's %s (pmemramd writes "
				"them); running with the kernel's\n",
				program_invocation_short_name, name,
				v->in_force_r < 0 ? "unreadable"
						  : pmemram_weights_format(&v->in_force, have, sizeof(have)),
				pmemram_weights_format(&v->weights, want, sizeof(want)));
	}
	r = apply_policy(v);
	if (r < 0) {
		fprintf(stderr, "%s run: cannot set the %s memory policy on node(s) %s: %s\n",
			program_invocation_short_name, pmemram_class_mode_to_string(v->c->mode), v->nodes, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	if (setenv(ENV_CLASS, name, 1) < 0)
		return CTL_EXIT_SYSTEM;
	fflush(stdout);
	execvp(argv[optind], argv + optind);
	r = errno;
	fprintf(stderr, "%s run: cannot run %s: %s\n", program_invocation_short_name, argv[optind], strerror(r));
	return r == ENOENT ? 127 : 126;
}
