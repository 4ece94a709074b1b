/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl cache-report: how processes' resident pages fall into each node's direct-mapped memory-side cache. */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-cachemodel.h"
#include "pmemram-pagemap.h"
#include "svg.h"

#define CACHE_REPORT_SCHEMA_VERSION 1
#define MAX_PIDS 1024

struct options {
	int pids[MAX_PIDS];
	size_t n_pids;
	int node; /* -1: every node holding pages */
	uint64_t cache_size; /* 0: from HMAT */
	struct pmemram_nodemask shared; /* nodes modelled together, behind one cache */
	int first_shared;		/* their lowest node, which reports for them; -1: none */
	char shared_list[128];		/* and as a list, "8-15" */
	struct pmemram_cachemodel_options model;
	bool json;
	const char *svg; /* where to draw the slot-occupancy histogram; NULL: nowhere */
};

/* Where one node's pages stand; the model runs only when a cache was found. */
struct node_report {
	int node; /* -1: frames in no memory block (device memory, holes) */
	bool shared; /* the frames of every node of --shared-cache, reported as their lowest */
	uint64_t *pfns;
	size_t n;
	const char *cache_source; /* "hmat", "option", or NULL with why_not */
	char why_not[160];
	struct pmemram_cache cache;
	bool modelled;
	struct pmemram_cachemodel_report model;
};

struct report {
	uint64_t page_size;
	struct pmemram_frames frames; /* deduplicated and sorted by the time nodes are split */
	size_t n_nodes;
	struct node_report *nodes;
};

static void report_done(struct report *r)
{
	pmemram_frames_done(&r->frames);
	free(r->nodes); /* the nodes' pfns point into frames */
	*r = (struct report){};
}

/* The node of a frame: that of the memory block holding it, -1 when none does. */
static int frame_node(const struct pmemram_memory *m, uint64_t pfn, uint64_t page_size)
{
	unsigned long id;
	size_t lo = 0, hi = m->n_blocks;

	if (m->block_size == 0 || pfn > UINT64_MAX / page_size)
		return -1;
	id = (unsigned long)(pfn * page_size / m->block_size);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->blocks[mid].id == id)
			return m->blocks[mid].node;
		if (m->blocks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Split the sorted frames into runs per node.  Frames are sorted by number and a node's memory
 * blocks need not be contiguous, so the runs of one node are gathered in a second pass: frames are
 * regrouped in place by a stable counting sort over the node ids seen.  The nodes of --shared-cache
 * make one run, under their lowest node's id.
 */
static int split_by_node(const struct options *o, struct report *rep, const struct pmemram_memory *m)
{
	uint64_t *pfns = rep->frames.pfns, *sorted;
	size_t n = rep->frames.n, n_ids = 0;
	_cleanup_(freep) int *node_of = NULL;
	int ids[PMEMRAM_MAX_NODES + 1];

	node_of = calloc(n ? n : 1, sizeof(*node_of));
	if (!node_of)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		node_of[i] = frame_node(m, pfns[i], rep->page_size);
		if (node_of[i] >= 0 && pmemram_nodemask_test(&o->shared, (unsigned)node_of[i]))
			node_of[i] = o->first_shared;
		for (size_t k = 0; k < n_ids && !seen; k++)
			seen = ids[k] == node_of[i];
		if (!seen && n_ids < ELEMENTSOF(ids))
			ids[n_ids++] = node_of[i];
	}
	qsort(ids, n_ids, sizeof(ids[0]), cmp_int);

	rep->nodes = calloc(n_ids ? n_ids : 1, sizeof(*rep->nodes));
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!rep->nodes || !sorted) {
		free(sorted);
		return -ENOMEM;
	}
	for (size_t k = 0, at = 0; k < n_ids; k++) {
		struct node_report *nr = &rep->nodes[k];

		nr->node = ids[k];
		nr->shared = o->first_shared >= 0 && ids[k] == o->first_shared;
		nr->pfns = sorted + at;
		for (size_t i = 0; i < n; i++)
			if (node_of[i] == ids[k])
				nr->pfns[nr->n++] = pfns[i];
		at += nr->n;
	}
	rep->n_nodes = n_ids;
	free(rep->frames.pfns);
	rep->frames.pfns = sorted;
	rep->frames.allocated = n ? n : 1;
	return 0;
}

/* The cache to model for a node: the option's size, else its largest direct-mapped HMAT cache. */
static void pick_cache(const struct options *o, const struct pmemram_topology *t, struct node_report *nr)
{
	const struct pmemram_node *node = nr->node >= 0 ? pmemram_topology_find_node(t, nr->node) : NULL;
	const struct pmemram_cache *best = NULL;
	bool other = false;

	if (o->cache_size > 0) {
		nr->cache = (struct pmemram_cache){ .size = o->cache_size, .indexing = PMEMRAM_CACHE_DIRECT_MAPPED };
		nr->cache_source = "option";
		return;
	}
	if (nr->node < 0) {
		snprintf(nr->why_not, sizeof(nr->why_not), "frames outside every memory block (device memory?)");
		return;
	}
	for (size_t i = 0; node && i < node->n_caches; i++) {
		const struct pmemram_cache *c = &node->caches[i];

		if (c->indexing != PMEMRAM_CACHE_DIRECT_MAPPED) {
			other = true;
			continue;
		}
		if (!best || c->size > best->size)
			best = c;
	}
	if (best) {
		nr->cache = *best;
		nr->cache_source = "hmat";
	} else if (other)
		snprintf(nr->why_not, sizeof(nr->why_not),
			 "its memory-side cache is not direct-mapped (give --cache-size to model one that is)");
	else
		snprintf(nr->why_not, sizeof(nr->why_not), "no memory-side cache reported (give --cache-size to model one)");
}

static int model_node(const struct options *o, struct report *rep, struct node_report *nr)
{
	uint64_t slots;
	int r;

	r = pmemram_cachemodel_slots(nr->cache.size, rep->page_size, &slots);
	if (r < 0) {
		snprintf(nr->why_not, sizeof(nr->why_not), "cache size %" PRIu64 " is not a multiple of the page size",
			 nr->cache.size);
		nr->cache_source = NULL;
		return 0;
	}
	r = pmemram_cachemodel_run(nr->pfns, nr->n, slots, &o->model, &nr->model);
	if (r < 0)
		return r;
	nr->modelled = true;
	return 0;
}

/* ---- output ------------------------------------------------------------------ */

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static void print_sim(const char *label, const struct pmemram_cachemodel_sim *s)
{
	printf("  %-16s direct-mapped miss %5.1f%%, fully associative LRU miss %5.1f%%, conflict %+5.1f%%\n", label,
	       100.0 * s->dm_miss_rate, 100.0 * s->lru_miss_rate, 100.0 * s->conflict_rate);
}

static void print_human(const struct options *o, const struct report *rep)
{
	char size[32], csize[32];
	bool shown = false;

	printf("%zu process%s, %zu distinct resident pages of %s (%s)", o->n_pids, o->n_pids == 1 ? "" : "es",
	       rep->frames.n, pmemram_format_size(rep->page_size, size, sizeof(size)),
	       pmemram_format_size(rep->frames.n * rep->page_size, csize, sizeof(csize)));
	if (rep->frames.swapped > 0)
		printf(", %" PRIu64 " swapped out (not modelled)", rep->frames.swapped);
	printf("; seed %#" PRIx64 ", Zipf s %.2f\n", o->model.seed, o->model.zipf_s);

	for (size_t i = 0; i < rep->n_nodes; i++) {
		const struct node_report *nr = &rep->nodes[i];
		const struct pmemram_cachemodel_report *m = &nr->model;

		if (o->node >= 0 && nr->node != o->node)
			continue;
		shown = true;
		if (nr->shared)
			printf("nodes %s, one cache: ", o->shared_list);
		else if (nr->node >= 0)
			printf("node %d: ", nr->node);
		else
			printf("no node: ");
		printf("%zu pages (%s)", nr->n, pmemram_format_size(nr->n * rep->page_size, size, sizeof(size)));
		if (!nr->modelled) {
			printf(", not modelled: %s\n", nr->why_not);
			continue;
		}
		printf(" behind a %s direct-mapped cache (%s), %" PRIu64 " page slots\n",
		       pmemram_format_size(nr->cache.size, csize, sizeof(csize)),
		       streq(nr->cache_source, "hmat") ? "HMAT" : "--cache-size", m->slots);
		printf("  slots used       %" PRIu64 " of the ideal %" PRIu64 " (%.1f%%); random placement: %.1f expected "
		       "(%.1f%%)\n",
		       m->distinct_slots, m->ideal_slots, pct((double)m->distinct_slots, (double)m->ideal_slots),
		       m->expected_random_slots, pct(m->expected_random_slots, (double)m->ideal_slots));
		print_sim("uniform access:", &m->uniform);
		print_sim("Zipf access:", &m->zipf);
	}
	if (o->node >= 0 && !shown)
		printf("node %d: none of these pages\n", o->node);
}

static struct json_object *json_sim(const struct pmemram_cachemodel_sim *s)
{
	struct json_object *o = json_object_new_object();
	bool ok = o;

	ok &= json_add(o, "accesses", json_object_new_uint64(s->accesses));
	ok &= json_add(o, "direct_mapped_misses", json_object_new_uint64(s->dm_misses));
	ok &= json_add(o, "lru_misses", json_object_new_uint64(s->lru_misses));
	ok &= json_add(o, "direct_mapped_miss_rate", json_object_new_double(s->dm_miss_rate));
	ok &= json_add(o, "lru_miss_rate", json_object_new_double(s->lru_miss_rate));
	ok &= json_add(o, "conflict_rate", json_object_new_double(s->conflict_rate));
	if (!ok)
		json_object_putp(&o);
	return o;
}

static struct json_object *json_node(const struct options *opt, const struct report *rep, const struct node_report *nr)
{
	const struct pmemram_cachemodel_report *m = &nr->model;
	struct json_object *o = json_object_new_object(), *c;
	bool ok = o;

	ok &= nr->node >= 0 ? json_add(o, "node", json_object_new_int(nr->node)) : json_add_null_value(o, "node");
	if (nr->shared)
		ok &= json_add(o, "shared_cache_nodes", json_object_new_string(opt->shared_list));
	ok &= json_add(o, "pages", json_object_new_uint64(nr->n));
	ok &= json_add(o, "bytes", json_object_new_uint64(nr->n * rep->page_size));
	ok &= json_add(o, "modelled", json_object_new_boolean(nr->modelled));
	if (!nr->modelled) {
		ok &= json_add(o, "reason", json_object_new_string(nr->why_not));
		if (!ok)
			json_object_putp(&o);
		return o;
	}
	c = json_object_new_object();
	ok &= json_add(c, "source", json_object_new_string(nr->cache_source));
	ok &= json_add(c, "size_bytes", json_object_new_uint64(nr->cache.size));
	if (streq(nr->cache_source, "hmat")) {
		ok &= json_add(c, "level", json_object_new_uint64(nr->cache.level));
		ok &= json_add(c, "line_size_bytes", json_object_new_uint64(nr->cache.line_size));
		ok &= json_add(c, "write_policy",
			       json_object_new_string(pmemram_cache_write_policy_to_string(nr->cache.write_policy)));
	}
	ok &= json_add(o, "cache", c);
	ok &= json_add(o, "slots", json_object_new_uint64(m->slots));
	ok &= json_add(o, "distinct_slots", json_object_new_uint64(m->distinct_slots));
	ok &= json_add(o, "ideal_slots", json_object_new_uint64(m->ideal_slots));
	ok &= json_add(o, "expected_random_slots", json_object_new_double(m->expected_random_slots));
	ok &= json_add(o, "slot_use", json_object_new_double((double)m->distinct_slots / (double)m->ideal_slots));
	ok &= json_add(o, "expected_random_slot_use",
		       json_object_new_double(m->expected_random_slots / (double)m->ideal_slots));
	ok &= json_add(o, "uniform", json_sim(&m->uniform));
	ok &= json_add(o, "zipf", json_sim(&m->zipf));
	if (!ok)
		json_object_putp(&o);
	return o;
}

static int print_json(const struct options *o, const struct report *rep)
{
	struct json_object *root = json_object_new_object(), *pids = json_object_new_array(),
			   *nodes = json_object_new_array();
	char seed[32];
	bool ok = root && pids && nodes;

	snprintf(seed, sizeof(seed), "%#" PRIx64, o->model.seed);
	ok &= json_add(root, "schema_version", json_object_new_int(CACHE_REPORT_SCHEMA_VERSION));
	for (size_t i = 0; i < o->n_pids; i++)
		ok &= json_append(pids, json_object_new_int(o->pids[i]));
	ok &= json_add(root, "pids", json_object_get(pids));
	ok &= json_add(root, "page_size_bytes", json_object_new_uint64(rep->page_size));
	ok &= json_add(root, "pages", json_object_new_uint64(rep->frames.n));
	ok &= json_add(root, "swapped_pages", json_object_new_uint64(rep->frames.swapped));
	ok &= json_add(root, "seed", json_object_new_string(seed));
	ok &= json_add(root, "zipf_s", json_object_new_double(o->model.zipf_s));
	for (size_t i = 0; i < rep->n_nodes; i++)
		if (o->node < 0 || rep->nodes[i].node == o->node)
			ok &= json_append(nodes, json_node(o, rep, &rep->nodes[i]));
	ok &= json_add(root, "nodes", json_object_get(nodes));
	json_object_put(pids);
	json_object_put(nodes);
	return ctl_print_json(root, ok) < 0 ? CTL_EXIT_SYSTEM : CTL_EXIT_OK;
}

/* ---- picture: the slot-occupancy histogram as SVG --------------------------------- */

#define SVG_WIDTH 760.0
#define SVG_HEAD 36.0	/* the document's title */
#define SVG_PANEL 330.0 /* one node's histogram */
#define SVG_LEFT 100.0	/* the plot area within a panel */
#define SVG_RIGHT 20.0
#define SVG_TOP 64.0
#define SVG_BOTTOM 50.0
#define SVG_MAX_BARS 32 /* occupancies 0..30 and "31 or more" */

struct histogram {
	uint64_t counts[SVG_MAX_BARS]; /* slots holding k pages; the last, k or more */
	double expected[SVG_MAX_BARS]; /* the same under uniform random placement */
	size_t n;		       /* bars drawn: the last non-zero count or expectation */
	double top;		       /* the y axis' top value */
	double step;		       /* between its ticks */
};

static int histogram_build(const struct node_report *nr, struct histogram *h)
{
	uint64_t slots = nr->model.slots;
	double rest = (double)slots, max = 1.0;
	int r;

	*h = (struct histogram){ .n = 2 };
	r = pmemram_cachemodel_occupancy(nr->pfns, nr->n, slots, h->counts, SVG_MAX_BARS);
	if (r < 0)
		return r;
	for (size_t k = 0; k < SVG_MAX_BARS; k++) {
		h->expected[k] =
			k + 1 < SVG_MAX_BARS ? pmemram_cachemodel_expected_occupancy(nr->n, slots, k) : fmax(rest, 0.0);
		rest -= h->expected[k];
		if (h->counts[k] > 0 || h->expected[k] >= 0.5)
			h->n = k + 1 > h->n ? k + 1 : h->n;
		max = fmax(max, fmax((double)h->counts[k], h->expected[k]));
	}
	/* About five ticks, at 1, 2 or 5 times a power of ten, whole slots. */
	h->step = pow(10.0, floor(log10(max / 5.0)));
	if (max / 5.0 > 5.0 * h->step)
		h->step *= 10.0;
	else if (max / 5.0 > 2.0 * h->step)
		h->step *= 5.0;
	else if (max / 5.0 > h->step)
		h->step *= 2.0;
	h->step = fmax(h->step, 1.0);
	h->top = h->step * ceil(max / h->step);
	return 0;
}

static void svg_panel_title(struct svg *s, double top, const struct options *o, const struct report *rep,
			    const struct node_report *nr)
{
	const struct pmemram_cachemodel_report *m = &nr->model;
	char who[160], size[32], csize[32];

	if (nr->shared)
		snprintf(who, sizeof(who), "nodes %s, one cache", o->shared_list);
	else
		snprintf(who, sizeof(who), "node %d", nr->node);
	svg_text(s, SVG_LEFT, top + 20, "start", "label", false,
		 "%s: %zu pages (%s) behind a %s direct-mapped cache (%s), %" PRIu64 " page slots", who, nr->n,
		 pmemram_format_size(nr->n * rep->page_size, size, sizeof(size)),
		 pmemram_format_size(nr->cache.size, csize, sizeof(csize)),
		 streq(nr->cache_source, "hmat") ? "HMAT" : "--cache-size", m->slots);
	svg_rect(s, SVG_LEFT, top + 31, 10, 10, "bar", NULL);
	svg_text(s, SVG_LEFT + 14, top + 40, "start", "small", false,
		 "slots holding k pages (%" PRIu64 " slots used, the ideal %" PRIu64 ")", m->distinct_slots,
		 m->ideal_slots);
	svg_line(s, SVG_LEFT + 370, top + 36, SVG_LEFT + 382, top + 36, "tick");
	svg_text(s, SVG_LEFT + 386, top + 40, "start", "small", false, "random placement, expected (%.1f used)",
		 m->expected_random_slots);
}

static void svg_axes(struct svg *s, double top, const struct histogram *h)
{
	double y0 = top + SVG_PANEL - SVG_BOTTOM, height = SVG_PANEL - SVG_TOP - SVG_BOTTOM;

	for (double v = 0; v <= h->top + h->step / 2; v += h->step) {
		double y = y0 - height * v / h->top;

		svg_line(s, SVG_LEFT, y, SVG_WIDTH - SVG_RIGHT, y, "grid");
		svg_text(s, SVG_LEFT - 6, y + 4, "end", "small", false, "%.0f", v);
	}
	svg_line(s, SVG_LEFT, y0, SVG_WIDTH - SVG_RIGHT, y0, "axis");
	svg_line(s, SVG_LEFT, y0, SVG_LEFT, top + SVG_TOP, "axis");
	svg_text(s, 24, top + SVG_TOP + height / 2, "middle", "label", true, "cache page slots");
	svg_text(s, (SVG_LEFT + SVG_WIDTH - SVG_RIGHT) / 2, y0 + 38, "middle", "label", false,
		 "k: resident pages in the slot");
}

static void svg_bars(struct svg *s, double top, const struct histogram *h)
{
	double y0 = top + SVG_PANEL - SVG_BOTTOM, height = SVG_PANEL - SVG_TOP - SVG_BOTTOM;
	double slot = (SVG_WIDTH - SVG_LEFT - SVG_RIGHT) / (double)h->n;

	for (size_t k = 0; k < h->n; k++) {
		bool last = k + 1 == SVG_MAX_BARS;
		double x = SVG_LEFT + slot * ((double)k + 0.15), bar = height * (double)h->counts[k] / h->top;
		double ey = y0 - height * h->expected[k] / h->top;
		char tip[128];

		snprintf(tip, sizeof(tip), "%" PRIu64 " slots hold %zu%s pages; random placement: %.1f expected",
			 h->counts[k], k, last ? " or more" : "", h->expected[k]);
		svg_rect(s, x, y0 - bar, slot * 0.7, bar, "bar", tip);
		svg_line(s, x - slot * 0.05, ey, x + slot * 0.75, ey, "tick");
		svg_text(s, x + slot * 0.35, y0 + 16, "middle", "small", false, "%zu%s", k, last ? "+" : "");
		/* The count over its bar (or over the tick, when that is higher), for the short bars. */
		if (h->n <= 16)
			svg_text(s, x + slot * 0.35, fmin(y0 - bar, ey) - 5, "middle", "small", false, "%" PRIu64,
				 h->counts[k]);
	}
}

/* The processes, as the title names them: "pid 7", "pids 7, 8" or "pids 7, 8, ... (12)". */
static void format_pids(const struct options *o, char *buf, size_t size)
{
	size_t at = (size_t)snprintf(buf, size, "pid%s", o->n_pids == 1 ? "" : "s");

	for (size_t i = 0; i < o->n_pids && i < 6 && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s %d", i ? "," : "", o->pids[i]);
	if (o->n_pids > 6 && at < size)
		snprintf(buf + at, size - at, ", ... (%zu)", o->n_pids);
}

/* One panel per modelled node of the report; none modelled: -ENODATA, nothing written. */
static int write_svg(const struct options *o, const struct report *rep, const char *path)
{
	_cleanup_(svg_done) struct svg s = {};
	char pids[128], title[256], size[32];
	size_t n = 0, drawn = 0;
	int r;

	for (size_t i = 0; i < rep->n_nodes; i++)
		n += rep->nodes[i].modelled;
	if (n == 0)
		return -ENODATA;
	format_pids(o, pids, sizeof(pids));
	snprintf(title, sizeof(title), "Memory-side cache slot occupancy of %s (pages of %s)", pids,
		 pmemram_format_size(rep->page_size, size, sizeof(size)));
	r = svg_begin(&s, SVG_WIDTH, SVG_HEAD + SVG_PANEL * (double)n, title);
	if (r < 0)
		return r;
	svg_text(&s, SVG_WIDTH / 2, 24, "middle", "title", false, "%s", title);
	for (size_t i = 0; i < rep->n_nodes; i++) {
		const struct node_report *nr = &rep->nodes[i];
		double top = SVG_HEAD + SVG_PANEL * (double)drawn;
		struct histogram h;

		if (!nr->modelled)
			continue;
		r = histogram_build(nr, &h);
		if (r < 0)
			return r;
		svg_panel_title(&s, top, o, rep, nr);
		svg_axes(&s, top, &h);
		svg_bars(&s, top, &h);
		drawn++;
	}
	r = svg_end(&s);
	return r < 0 ? r : svg_save(&s, path);
}

/* --svg: the picture after the report, which stays on stdout whatever becomes of it. */
static int save_svg(const struct options *o, const struct report *rep)
{
	int r = write_svg(o, rep, o->svg);

	if (r == -ENODATA)
		fprintf(stderr, "%s cache-report: no node's pages were modelled, nothing to draw in %s\n",
			program_invocation_short_name, o->svg);
	else if (r == -EEXIST)
		fprintf(stderr, "%s cache-report: %s exists and is not a regular file: not replaced\n",
			program_invocation_short_name, o->svg);
	else if (r < 0)
		fprintf(stderr, "%s cache-report: cannot write %s: %s\n", program_invocation_short_name, o->svg,
			strerror(-r));
	return r < 0 ? CTL_EXIT_SYSTEM : CTL_EXIT_OK;
}

/* ---- command ------------------------------------------------------------------- */

static void cache_report_help(void)
{
	printf("Usage: %s cache-report --pid PID [--pid PID...] [OPTIONS]\n"
	       "\n"
	       "Model how the given processes' resident pages fall into each NUMA node's direct-mapped\n"
	       "memory-side cache: the cache slots they use against the ideal and against random\n"
	       "placement, and the conflict misses of a simulated direct-mapped cache over those of a\n"
	       "fully associative LRU cache of the same size.  Needs root (page frame numbers).\n"
	       "\n"
	       "  -h --help            Show this help\n"
	       "  -j --json            Print JSON\n"
	       "  -p --pid PID         A process whose resident pages to model (repeatable)\n"
	       "  -n --node N          Report only node N\n"
	       "  -c --cache-size SIZE Model a direct-mapped cache of SIZE (\"128M\") on every node\n"
	       "                       instead of the caches HMAT reports\n"
	       "     --shared-cache NODES  Model the pages of NODES (\"8-15\") together, behind one cache\n"
	       "                       of --cache-size, as nodes numa=fake split from one node share it\n"
	       "     --seed N          Seed of the simulated accesses (default %#" PRIx64 ")\n"
	       "     --accesses N      Simulated accesses per pattern (default %d per page)\n"
	       "     --zipf S          Exponent of the skewed pattern, 0..%g (default %g)\n"
	       "     --svg FILE        Also draw each modelled node's slot occupancy (how many cache\n"
	       "                       slots hold 0, 1, 2... of the pages) as an SVG picture in FILE\n",
	       program_invocation_short_name, PMEMRAM_CACHEMODEL_SEED, PMEMRAM_CACHEMODEL_ACCESSES_PER_PAGE,
	       PMEMRAM_CACHEMODEL_MAX_ZIPF_S, PMEMRAM_CACHEMODEL_ZIPF_S);
}

enum { OPT_SEED = 0x100, OPT_ACCESSES, OPT_ZIPF, OPT_SHARED_CACHE, OPT_SVG };

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'p' },
		{ "node", required_argument, NULL, 'n' },
		{ "cache-size", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "accesses", required_argument, NULL, OPT_ACCESSES },
		{ "zipf", required_argument, NULL, OPT_ZIPF },
		{ "shared-cache", required_argument, NULL, OPT_SHARED_CACHE },
		{ "svg", required_argument, NULL, OPT_SVG },
		{},
	};
	uint64_t v;
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjp:n:c:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			cache_report_help();
			return -1;
		case 'j':
			o->json = true;
			break;
		case 'p':
			if (o->n_pids == MAX_PIDS)
				return ctl_usage_error("cache-report", "at most %d --pid", MAX_PIDS);
			if (pmemram_parse_int(optarg, &o->pids[o->n_pids]) < 0 || o->pids[o->n_pids] <= 0)
				return ctl_usage_error("cache-report", "--pid '%s' is not a process id", optarg);
			o->n_pids++;
			break;
		case 'n':
			if (pmemram_parse_int(optarg, &o->node) < 0 || o->node < 0 || o->node >= PMEMRAM_MAX_NODES)
				return ctl_usage_error("cache-report", "--node '%s' is not a node number", optarg);
			break;
		case 'c':
			if (pmemram_parse_size(optarg, &o->cache_size) < 0 || o->cache_size == 0)
				return ctl_usage_error("cache-report", "--cache-size '%s' is not a size like 128M", optarg);
			break;
		case OPT_SEED:
			if (pmemram_parse_u64(optarg, strncmp(optarg, "0x", 2) == 0 ? 16 : 10, &o->model.seed) < 0)
				return ctl_usage_error("cache-report", "--seed '%s' is not a number", optarg);
			break;
		case OPT_ACCESSES:
			if (pmemram_parse_u64(optarg, 10, &v) < 0 || v == 0 || v > PMEMRAM_CACHEMODEL_MAX_ACCESSES)
				return ctl_usage_error("cache-report", "--accesses '%s' is not a number in 1..%" PRIu64,
						       optarg, PMEMRAM_CACHEMODEL_MAX_ACCESSES);
			o->model.accesses = v;
			break;
		case OPT_ZIPF:
			errno = 0;
			o->model.zipf_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->model.zipf_s >= 0) ||
			    o->model.zipf_s > PMEMRAM_CACHEMODEL_MAX_ZIPF_S)
				return ctl_usage_error("cache-report", "--zipf '%s' is not a number in 0..%g", optarg,
						       PMEMRAM_CACHEMODEL_MAX_ZIPF_S);
			break;
		case OPT_SHARED_CACHE:
			if (pmemram_parse_range_list(optarg, &o->shared) < 0 ||
			    pmemram_nodemask_weight(&o->shared) < 2 ||
			    pmemram_nodemask_format(&o->shared, o->shared_list, sizeof(o->shared_list)) < 0)
				return ctl_usage_error("cache-report",
						       "--shared-cache '%s' is not a list of two or more nodes",
						       optarg);
			o->first_shared = pmemram_nodemask_next(&o->shared, 0);
			break;
		case OPT_SVG:
			if (!*optarg)
				return ctl_usage_error("cache-report", "--svg needs a file name");
			o->svg = optarg;
			break;
		default:
			return ctl_unknown_option("cache-report", argv);
		}
	}
	if (optind < argc)
		return ctl_usage_error("cache-report", "unexpected argument '%s'", argv[optind]);
	if (o->n_pids == 0)
		return ctl_usage_error("cache-report", "give at least one --pid");
	if (o->first_shared >= 0 && o->cache_size == 0)
		return ctl_usage_error("cache-report",
				       "--shared-cache needs --cache-size: HMAT reports caches per node");
	/* A node of the shared cache is reported with the others, under the lowest. */
	if (o->node >= 0 && pmemram_nodemask_test(&o->shared, (unsigned)o->node))
		o->node = o->first_shared;
	return 0;
}

static int collect(struct pmemram_ctx *ctx, const struct options *o, struct report *rep)
{
	int r;

	for (size_t i = 0; i < o->n_pids; i++) {
		r = pmemram_frames_add_pid(ctx, &rep->frames, o->pids[i], rep->page_size);
		if (r == -ESRCH) {
			fprintf(stderr, "%s cache-report: pid %d: no such process\n", program_invocation_short_name,
				o->pids[i]);
			return CTL_EXIT_SYSTEM;
		}
		if (r == -EPERM) {
			fprintf(stderr,
				"%s cache-report: %s shows no page frame numbers: reading them needs root "
				"(CAP_SYS_ADMIN)\n",
				program_invocation_short_name, pmemram_ctx_get_error_path(ctx));
			return CTL_EXIT_SYSTEM;
		}
		if (r < 0)
			return ctl_read_failed(ctx, "the process's page map", r);
	}
	r = pmemram_cachemodel_unique(rep->frames.pfns, &rep->frames.n);
	if (r < 0) {
		/* Counted before shared pages are merged: fewer processes at a time may fit. */
		fprintf(stderr,
			"%s cache-report: %zu resident page entries (shared pages counted per mapping) are more than "
			"the model takes (%" PRIu64 "); give fewer processes\n",
			program_invocation_short_name, rep->frames.n, PMEMRAM_CACHEMODEL_MAX_PAGES);
		return CTL_EXIT_SYSTEM;
	}
	return CTL_EXIT_OK;
}

int cmd_cache_report(const struct ctl_globals *g, int argc, char **argv)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(report_done) struct report rep = {};
	struct pmemram_topology *topology = NULL;
	struct pmemram_memory *memory = NULL;
	struct options o = { .node = -1, .first_shared = -1, .model = PMEMRAM_CACHEMODEL_OPTIONS_INIT, .json = g->json };
	long page_size;
	int r, ret;

	r = parse_options(argc, argv, &o);
	if (r != 0)
		return r < 0 ? CTL_EXIT_OK : r;

	page_size = sysconf(_SC_PAGESIZE);
	if (page_size <= 0)
		return CTL_EXIT_SYSTEM;
	rep.page_size = (uint64_t)page_size;

	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	ret = collect(ctx, &o, &rep);
	if (ret != CTL_EXIT_OK)
		return ret;

	r = pmemram_memory_read(ctx, &memory);
	if (r < 0)
		return ctl_read_failed(ctx, "memory blocks", r);
	r = pmemram_topology_read(ctx, &topology);
	if (r < 0) {
		pmemram_memory_free(memory);
		return ctl_read_failed(ctx, "NUMA nodes", r);
	}
	r = split_by_node(&o, &rep, memory);
	for (size_t i = 0; r >= 0 && i < rep.n_nodes; i++) {
		struct node_report *nr = &rep.nodes[i];

		if (o.node >= 0 && nr->node != o.node)
			continue;
		pick_cache(&o, topology, nr);
		if (nr->cache_source)
			r = model_node(&o, &rep, nr);
	}
	pmemram_memory_free(memory);
	pmemram_topology_free(topology);
	if (r < 0) {
		fprintf(stderr, "%s cache-report: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}

	if (o.json)
		ret = print_json(&o, &rep);
	else
		print_human(&o, &rep);
	if (ret == CTL_EXIT_OK)
		ret = ctl_flush_stdout();
	if (ret == CTL_EXIT_OK && o.svg)
		ret = save_svg(&o, &rep);
	return ret;
}
