/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reads everything the planner needs into one pmemram_observation: blocks, dax devices, namespaces, users, udev. */
#include "pmemram-observe.h"
#include "pmemram-private.h"

struct pmemram_observation *pmemram_observation_free(struct pmemram_observation *o)
{
	if (!o)
		return NULL;
	pmemram_memory_free(o->memory);
	pmemram_dax_list_free(o->dax);
	free(o->devices);
	free(o->namespaces);
	free(o->regions);
	free(o->memdevs);
	free(o->cxl_regions);
	free(o);
	return NULL;
}

static int observe_dax(struct pmemram_ctx *ctx, struct pmemram_observation *o)
{
	int r;

	r = pmemram_dax_list_read(ctx, &o->dax);
	if (r < 0)
		return r;
	if (o->dax->n_devices == 0)
		return 0;

	o->devices = calloc(o->dax->n_devices, sizeof(*o->devices));
	if (!o->devices)
		return -ENOMEM;
	for (size_t i = 0; i < o->dax->n_devices; i++) {
		o->devices[i].dax = o->dax->devices[i];
		r = pmemram_dax_namespace_read(ctx, &o->devices[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The blocks of the dax devices' ranges, the only ones a plan looks at: the machine's other
 * memory (boot memory above all) is not read.  The block size comes first, for the ranges. */
static int observe_blocks(struct pmemram_ctx *ctx, struct pmemram_observation *o)
{
	_cleanup_(freep) struct pmemram_block_span *spans = NULL;
	size_t n = 0;
	uint64_t block_size;
	int r;

	r = sysfs_read_hex(ctx, "devices/system/memory/block_size_bytes", &block_size);
	if (r < 0)
		return r;
	if (o->dax->n_devices > 0) {
		spans = calloc(o->dax->n_devices, sizeof(*spans));
		if (!spans)
			return -ENOMEM;
	}
	for (size_t i = 0; i < o->dax->n_devices; i++) {
		const struct pmemram_dax *d = &o->dax->devices[i];

		if (d->has_resource && pmemram_block_range(d->resource, d->size, block_size, &spans[n].first,
							   &spans[n].end) >= 0)
			n++;
	}
	/* No device with a range: an empty span list, not NULL (which would mean every block). */
	return pmemram_memory_read_spans(ctx, spans ? spans : (struct pmemram_block_span[1]){}, n, &o->memory);
}

/* Every user of these devices and namespaces: processes' maps and descriptors, mounts, swap and
 * holders. */
static int scan_users(struct pmemram_ctx *ctx, struct pmemram_observed_dax *devices, size_t n,
		      struct pmemram_observed_namespace *namespaces, size_t n_namespaces, size_t *ret_unreadable)
{
	int r;

	r = pmemram_users_scan(ctx, devices, n, namespaces, n_namespaces, ret_unreadable);
	if (r >= 0)
		r = pmemram_mounts_scan(ctx, namespaces, n_namespaces);
	if (r >= 0)
		r = pmemram_blockdev_users_scan(ctx, namespaces, n_namespaces);
	return r;
}

int pmemram_observation_scan_users(struct pmemram_ctx *ctx, struct pmemram_observation *o)
{
	int r;

	if (!ctx || !o)
		return -EINVAL;
	if (o->users_scanned)
		return 0;
	r = scan_users(ctx, o->devices, o->observed.n_devices, o->namespaces, o->observed.n_namespaces,
		       &o->observed.n_unreadable_processes);
	if (r < 0)
		return r;
	o->users_scanned = true;
	return 0;
}

int pmemram_namespace_in_use(struct pmemram_ctx *ctx, const char *name, char *why, size_t size)
{
	_cleanup_(freep) struct pmemram_observed_namespace *list = NULL;
	struct pmemram_observed_namespace *ns = NULL;
	size_t n = 0, unreadable = 0;
	int r;

	if (!ctx || !name || !why || size == 0)
		return -EINVAL;
	why[0] = '\0';
	r = pmemram_namespaces_read(ctx, &list, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && !ns; i++)
		if (streq(list[i].name, name))
			ns = &list[i];
	if (!ns || !ns->blockdev[0])
		return 0;
	r = scan_users(ctx, NULL, 0, ns, 1, &unreadable);
	if (r < 0)
		return r;
	if (ns->mounted)
		(void)snprintf(why, size, "/dev/%s mounted", ns->blockdev);
	else if (ns->in_use[0])
		(void)snprintf(why, size, "%s", ns->in_use);
	else if (unreadable > 0)
		(void)snprintf(why, size, "the descriptors of %zu processes could not be read", unreadable);
	else
		return 0;
	return 1;
}

int pmemram_observe(struct pmemram_ctx *ctx, struct pmemram_observation **ret)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	int r;

	r = pmemram_observe_lazy(ctx, &o);
	if (r < 0)
		return r;
	r = pmemram_observation_scan_users(ctx, o);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

int pmemram_observe_lazy(struct pmemram_ctx *ctx, struct pmemram_observation **ret)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct pmemram_observed *v;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	v = &o->observed;

	r = observe_dax(ctx, o);
	if (r < 0)
		return r;
	v->n_devices = o->dax->n_devices;
	v->devices = o->devices;

	r = observe_blocks(ctx, o);
	if (r < 0)
		return r;
	v->block_size = o->memory->block_size;
	v->auto_online = o->memory->auto_online;
	v->ram_kmem_at_probe = pmemram_kernel_binds_ram_at_probe(ctx);
	v->n_blocks = o->memory->n_blocks;
	v->blocks = o->memory->blocks;

	r = pmemram_namespaces_read(ctx, &o->namespaces, &v->n_namespaces);
	if (r < 0)
		return r;
	v->namespaces = o->namespaces;

	r = pmemram_regions_read(ctx, &o->regions, &v->n_regions);
	if (r < 0)
		return r;
	v->regions = o->regions;

	r = pmemram_cxl_memdevs_read(ctx, &o->memdevs, &v->n_memdevs);
	if (r < 0)
		return r;
	v->memdevs = o->memdevs;
	r = pmemram_cxl_regions_read(ctx, &o->cxl_regions, &v->n_cxl_regions);
	if (r < 0)
		return r;
	v->cxl_regions = o->cxl_regions;

	r = pmemram_udev_rules_read(ctx, &v->udev);
	if (r < 0)
		return r;

	*ret = TAKE_PTR(o);
	return 0;
}

/* The dax device whose whole blocks include block; -ENOENT when none does. */
static int device_of_block(const struct pmemram_dax_list *dax, uint64_t block_size, unsigned long block,
			   size_t *ret)
{
	for (size_t i = 0; i < dax->n_devices; i++) {
		const struct pmemram_dax *d = &dax->devices[i];
		unsigned long first, end;

		if (d->has_resource && pmemram_block_range(d->resource, d->size, block_size, &first, &end) >= 0 &&
		    block >= first && block < end) {
			*ret = i;
			return 0;
		}
	}
	return -ENOENT;
}

int pmemram_observe_block(struct pmemram_ctx *ctx, unsigned long block, struct pmemram_observation **ret)
{
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	struct pmemram_observed *v;
	size_t at;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	v = &o->observed;

	r = pmemram_memory_read_block(ctx, block, &o->memory);
	if (r < 0)
		return r;
	v->block_size = o->memory->block_size;
	v->auto_online = o->memory->auto_online;
	v->n_blocks = o->memory->n_blocks;
	v->blocks = o->memory->blocks;
	v->scoped = true;
	v->scope_first = block;
	v->scope_end = block + 1;

	r = pmemram_dax_list_read(ctx, &o->dax);
	if (r < 0)
		return r;
	if (device_of_block(o->dax, v->block_size, block, &at) < 0) {
		*ret = TAKE_PTR(o); /* no device: nothing to plan */
		return 0;
	}
	o->devices = calloc(1, sizeof(*o->devices));
	if (!o->devices)
		return -ENOMEM;
	o->devices[0].dax = o->dax->devices[at];
	r = pmemram_dax_namespace_read(ctx, &o->devices[0]);
	if (r < 0)
		return r;
	v->n_devices = 1;
	v->devices = o->devices;
	*ret = TAKE_PTR(o);
	return 0;
}

int pmemram_observe_block_bound(struct pmemram_ctx *ctx, unsigned long block, uint64_t timeout_usec,
				uint64_t poll_usec, struct pmemram_observation **ret)
{
	uint64_t deadline = now_usec(CLOCK_MONOTONIC) + timeout_usec;
	struct pmemram_observation *o = NULL;
	int r;

	if (!ret)
		return -EINVAL;
	for (;;) {
		bool in_device, unbound, unlinked;

		r = pmemram_observe_block(ctx, block, &o);
		if (r < 0)
			return r;
		in_device = o->observed.n_blocks > 0 && o->observed.n_devices > 0;
		unbound = in_device && o->observed.devices[0].dax.mode == PMEMRAM_DAX_UNBOUND;
		/* Only on a NUMA kernel: without one no block ever has a node link. */
		unlinked = in_device && o->observed.blocks[0].node < 0 &&
			   sysfs_exists(ctx, "devices/system/node/node0") > 0;
		if ((!unbound && !unlinked) || now_usec(CLOCK_MONOTONIC) >= deadline) {
			*ret = o;
			return unbound || unlinked;
		}
		log_debug(ctx, "memory%lu: %s: a kmem bind in progress", block,
			  unbound ? "its device has no driver yet" : "no node link yet");
		o = pmemram_observation_free(o);
		(void)usleep((useconds_t)poll_usec);
	}
}
