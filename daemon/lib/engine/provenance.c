/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Provenance of dax devices: source, physical range, whether release can give one back, and pmemram's own binds. */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>

#include "json-util.h"
#include "pmemram-apply.h"
#include "pmemram-observe.h"
#include "pmemram-private.h"
#include "pmemram-provenance.h"

static int onlined_path(const char *dir, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/" PMEMRAM_ONLINED_FILE, dir);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Lock the record against another writer (pmemramd and pmemramctl reconcile --local) for a whole
 * read-modify-write: the lock is on a file of its own, since the update's rename replaces the
 * record.  The locked descriptor or -errno. */
static int onlined_lock(const char *dir)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/" PMEMRAM_ONLINED_LOCK_FILE, dir);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return file_lock(path, true);
}

static void free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
}

int pmemram_onlined_read(const char *dir, char **ids, size_t *ret_n)
{
	char path[PATH_MAX], line[PMEMRAM_DEVICE_IDENTITY_MAX + 2];
	_cleanup_(fclosep) FILE *f = NULL;
	size_t n = 0;
	int r;

	if (!dir || !ids || !ret_n)
		return -EINVAL;
	*ret_n = 0;
	r = onlined_path(dir, path, sizeof(path));
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : negative_errno();
	while (n < PMEMRAM_ONLINED_MAX && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		pmemram_dax_identity_upgrade(line, sizeof(line));
		ids[n] = strdup(line);
		if (!ids[n]) {
			free_ids(ids, n);
			return -ENOMEM;
		}
		n++;
	}
	*ret_n = n;
	return 0;
}

/* The identities of the devices observation shows on kmem. */
static void kmem_identities(const struct pmemram_observation *observation, char (*now)[PMEMRAM_DEVICE_IDENTITY_MAX],
			    size_t *ret_n)
{
	const struct pmemram_observed *o = &observation->observed;
	size_t n = 0;

	for (size_t i = 0; i < o->n_devices && n < PMEMRAM_ONLINED_MAX; i++)
		if (o->devices[i].dax.mode == PMEMRAM_DAX_SYSTEM_RAM &&
		    pmemram_observed_dax_identity(&o->devices[i], now[n], sizeof(now[n])) >= 0)
			n++;
	*ret_n = n;
}

/* Rewrite the record: ids observation shows still on kmem, and add[] not yet in it; 1 when it
 * changed. */
static int onlined_update(const char *dir, const struct pmemram_observation *observation,
			  char (*add)[PMEMRAM_DEVICE_IDENTITY_MAX], size_t n_add)
{
	char *ids[PMEMRAM_ONLINED_MAX] = {}, path[PATH_MAX];
	_cleanup_(freep) char(*now)[PMEMRAM_DEVICE_IDENTITY_MAX] = NULL;
	_cleanup_(freep) char *text = NULL;
	_cleanup_(closep) int lock = -1;
	size_t n = 0, n_now = 0, size = 0, kept = 0, added = 0;
	FILE *f;
	int r;

	r = onlined_path(dir, path, sizeof(path));
	if (r < 0)
		return r;
	lock = onlined_lock(dir);
	if (lock < 0)
		return lock;
	r = pmemram_onlined_read(dir, ids, &n);
	if (r < 0)
		return r;
	now = calloc(PMEMRAM_ONLINED_MAX, sizeof(*now));
	if (now)
		kmem_identities(observation, now, &n_now);
	f = now ? open_memstream(&text, &size) : NULL;
	if (!f)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		bool on_kmem = false;

		for (size_t k = 0; k < n_now; k++)
			on_kmem = on_kmem || streq(now[k], ids[i]);
		if (on_kmem) {
			fprintf(f, "%s\n", ids[i]);
			kept++;
		}
	}
	for (size_t a = 0; r >= 0 && a < n_add && kept + added < PMEMRAM_ONLINED_MAX; a++) {
		bool present = false;

		for (size_t i = 0; i < n; i++)
			present = present || streq(add[a], ids[i]);
		for (size_t b = 0; b < a; b++)
			present = present || streq(add[a], add[b]);
		if (!present) {
			fprintf(f, "%s\n", add[a]);
			added++;
		}
	}
	free_ids(ids, n);
	if (f && fclose(f) != 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	if (kept == n && added == 0)
		return 0;
	r = file_write_atomic(path, text ? text : "", size, 0644, 0);
	return r < 0 ? r : 1;
}

int pmemram_onlined_note(const char *dir, const struct pmemram_observation *observation,
			 const struct pmemram_apply_result *results, size_t n_results)
{
	_cleanup_(freep) char(*add)[PMEMRAM_DEVICE_IDENTITY_MAX] = NULL;
	const struct pmemram_observed *o;
	size_t n_add = 0;

	if (!dir || !observation || (n_results > 0 && !results))
		return -EINVAL;
	o = &observation->observed;
	add = calloc(PMEMRAM_ONLINED_MAX, sizeof(*add));
	if (!add)
		return -ENOMEM;
	for (size_t i = 0; i < n_results && n_add < PMEMRAM_ONLINED_MAX; i++) {
		if (results[i].action.type != PMEMRAM_ACTION_BIND_KMEM || results[i].status != PMEMRAM_APPLY_DONE)
			continue;
		for (size_t k = 0; k < o->n_devices; k++)
			if (streq(o->devices[k].dax.name, results[i].action.device) &&
			    o->devices[k].dax.mode == PMEMRAM_DAX_SYSTEM_RAM &&
			    pmemram_observed_dax_identity(&o->devices[k], add[n_add], sizeof(add[n_add])) >= 0) {
				n_add++;
				break;
			}
	}
	return onlined_update(dir, observation, add, n_add);
}

/* Every block of d's range present and online Movable or offline: release can take them away. */
static bool blocks_releasable(const struct pmemram_dax *d, const struct pmemram_memory *memory)
{
	unsigned long first, end;
	size_t found = 0;

	if (!memory || !d->has_resource || !pmemram_dax_contiguous(d, memory->block_size) ||
	    pmemram_block_range(d->resource, d->size, memory->block_size, &first, &end) < 0)
		return false;
	for (size_t i = 0; i < memory->n_blocks; i++) {
		const struct pmemram_memblock *b = &memory->blocks[i];

		if (b->id < first || b->id >= end)
			continue;
		found++;
		if (b->state == PMEMRAM_BLOCK_ONLINE && b->zones.first != PMEMRAM_ZONE_MOVABLE)
			return false;
	}
	return found == end - first;
}

/* Whether the kernel put o on kmem itself: memory it hands to kmem at probe (soft-reserved, a CXL
 * RAM region: a dax device of no namespace) on a kernel that does so. */
static bool kmem_by_kernel(const struct pmemram_observed_dax *o, bool ram_kmem_at_probe)
{
	return ram_kmem_at_probe && (o->dax.source == PMEMRAM_DAX_SOURCE_HMEM ||
				     (o->dax.source == PMEMRAM_DAX_SOURCE_CXL && !o->namespace[0]));
}

/* The provenance of a device as observed (its namespace read): no I/O. */
static void provenance_of(const struct pmemram_observed_dax *o, const struct pmemram_memory *memory, char *const *ids,
			  size_t n_ids, bool ram_kmem_at_probe, struct pmemram_provenance *ret)
{
	struct pmemram_provenance p = { .source = o->dax.source };

	strcpy(p.provider, o->dax.provider);
	strcpy(p.namespace, o->namespace);
	strcpy(p.uuid, o->uuid);
	if (pmemram_observed_dax_identity(o, p.identity, sizeof(p.identity)) < 0)
		p.identity[0] = '\0';
	if (o->dax.mode == PMEMRAM_DAX_SYSTEM_RAM) {
		p.releasable = blocks_releasable(&o->dax, memory);
		p.releasable_unknown = !o->dax.has_resource;
		p.onlined_by = !p.identity[0] ? NULL : kmem_by_kernel(o, ram_kmem_at_probe) ? "kernel" : "other";
		for (size_t i = 0; p.identity[0] && i < n_ids; i++)
			if (streq(ids[i], p.identity))
				p.onlined_by = "pmemram";
	}
	*ret = p;
}

int pmemram_provenance_read(struct pmemram_ctx *ctx, const struct pmemram_dax *d, const struct pmemram_memory *memory,
			    char *const *ids, size_t n_ids, struct pmemram_provenance *ret)
{
	struct pmemram_observed_dax o = {};
	int r;

	if (!ctx || !d || !ret || (n_ids > 0 && !ids))
		return -EINVAL;
	o.dax = *d;
	r = pmemram_dax_namespace_read(ctx, &o);
	if (r < 0)
		return r;
	provenance_of(&o, memory, ids, n_ids, pmemram_kernel_binds_ram_at_probe(ctx), ret);
	return 0;
}

static struct json_object *string_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

/* json_add() that takes NULL as JSON null. */
static bool add_value(struct json_object *o, const char *key, struct json_object *v)
{
	return v ? json_add(o, key, v) : json_add_null_value(o, key);
}

/* "ranges": each of the device's ranges (mappingN) as "0xSTART-0xEND", null when unknown. */
static bool add_ranges(struct json_object *o, const struct pmemram_dax *d)
{
	struct json_object *a;

	if (d->n_ranges == 0 || d->n_ranges > PMEMRAM_DAX_RANGES_MAX)
		return json_add_null_value(o, "ranges");
	a = json_object_new_array();
	for (size_t i = 0; i < d->n_ranges; i++) {
		char range[48];

		(void)snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, d->ranges[i].start, d->ranges[i].end);
		if (!json_append(a, json_object_new_string(range))) {
			json_object_put(a);
			return false;
		}
	}
	return json_add(o, "ranges", a);
}

struct json_object *pmemram_provenance_to_json(const struct pmemram_dax *d, const struct pmemram_provenance *p)
{
	struct json_object *o = json_object_new_object();
	char range[48] = "";
	uint64_t last;
	bool ok;

	if (!o || !d || !p) {
		json_object_put(o);
		return NULL;
	}
	/* inclusive, as /proc/iomem prints it and hmem: claims take it; none for a device in pieces */
	if (pmemram_dax_last_byte(d, &last) && pmemram_dax_contiguous(d, 0))
		(void)snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, d->resource, last);
	ok = json_add(o, "device", json_object_new_string(d->name)) &&
	     json_add(o, "mode", json_object_new_string(pmemram_dax_mode_to_string(d->mode))) &&
	     json_add(o, "source", json_object_new_string(pmemram_dax_source_to_string(p->source))) &&
	     add_value(o, "provider", string_or_null(p->provider)) &&
	     add_value(o, "namespace", string_or_null(p->namespace)) && add_value(o, "uuid", string_or_null(p->uuid)) &&
	     add_value(o, "range", string_or_null(range)) && add_ranges(o, d) &&
	     add_value(o, "target_node", d->target_node >= 0 ? json_object_new_int(d->target_node) : NULL) &&
	     add_value(o, "releasable", p->releasable_unknown ? NULL : json_object_new_boolean(p->releasable)) &&
	     add_value(o, "onlined_by", string_or_null(p->onlined_by));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int pmemram_provenance_observed_json(const struct pmemram_observation *observation, const char *dir,
				     struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *a = NULL;
	char *ids[PMEMRAM_ONLINED_MAX] = {};
	const struct pmemram_observed *o;
	size_t n_ids = 0;
	int r = 0;

	if (!observation || !ret)
		return -EINVAL;
	o = &observation->observed;
	if (dir && pmemram_onlined_read(dir, ids, &n_ids) < 0)
		n_ids = 0; /* unreadable: nothing known to be pmemram's */
	a = json_object_new_array();
	if (!a)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < o->n_devices; i++) {
		struct pmemram_provenance p;

		provenance_of(&o->devices[i], observation->memory, ids, n_ids, o->ram_kmem_at_probe, &p);
		if (!json_append(a, pmemram_provenance_to_json(&o->devices[i].dax, &p)))
			r = -ENOMEM;
	}
	free_ids(ids, n_ids);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(a);
	return 0;
}
