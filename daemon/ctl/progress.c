/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl's progress line: a device's memory blocks counted from sysfs while pmemramd works on them. */
#include <unistd.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-plan.h"

/* The device's whole blocks, as kmem adds them: -ERANGE when its range is unknown or holds none. */
static int device_span(const struct pmemram_dax *d, uint64_t block_size, struct pmemram_block_span *ret)
{
	if (!d->has_resource || !pmemram_dax_contiguous(d, block_size))
		return -ERANGE;
	return pmemram_block_range(d->resource, d->size, block_size, &ret->first, &ret->end);
}

int ctl_device_blocks_count(const struct pmemram_dax *d, const struct pmemram_memory *m, bool online, size_t *ret_done,
			    size_t *ret_total)
{
	enum pmemram_block_state want = online ? PMEMRAM_BLOCK_ONLINE : PMEMRAM_BLOCK_OFFLINE;
	struct pmemram_block_span span;
	size_t done = 0;
	int r;

	r = device_span(d, m->block_size, &span);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_blocks; i++)
		done += m->blocks[i].id >= span.first && m->blocks[i].id < span.end && m->blocks[i].state == want;
	*ret_done = done;
	*ret_total = span.end - span.first;
	return 0;
}

/* The device as the kernel shows it now, and the block size: -ENODEV when it is not there. */
static int device_read(struct pmemram_ctx *ctx, const char *device, struct pmemram_dax *ret, uint64_t *ret_block_size)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *list = NULL;
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	int r;

	r = pmemram_dax_list_read(ctx, &list);
	if (r < 0)
		return r;
	/* No span at all: the block size, and no block read. */
	r = pmemram_memory_read_spans(ctx, (struct pmemram_block_span[1]){}, 0, &m);
	if (r < 0)
		return r;
	for (size_t i = 0; i < list->n_devices; i++)
		if (streq(list->devices[i].name, device)) {
			*ret = list->devices[i];
			*ret_block_size = m->block_size;
			return 0;
		}
	return -ENODEV;
}

void ctl_progress_start(struct ctl_progress *p, bool json, const char *verb, const char *device, bool online)
{
	uint64_t block_size;

	*p = (struct ctl_progress){ .verb = verb, .online = online, .shown = SIZE_MAX };
	/* On a terminal only: a pipe or a script reads the reply, which says it all. */
	if (json || !isatty(STDERR_FILENO))
		return;
	if (pmemram_ctx_new(&p->ctx) < 0)
		return;
	if (device_read(p->ctx, device, &p->device, &block_size) < 0 ||
	    device_span(&p->device, block_size, &p->span) < 0) {
		p->ctx = pmemram_ctx_unref(p->ctx);
		return;
	}
	ctl_progress_tick(p);
}

void ctl_progress_tick(void *userdata)
{
	struct ctl_progress *p = userdata;
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	size_t done, total;

	if (!p->ctx || pmemram_memory_read_spans(p->ctx, &p->span, 1, &m) < 0 ||
	    ctl_device_blocks_count(&p->device, m, p->online, &done, &total) < 0 || done == p->shown)
		return;
	p->shown = done;
	fprintf(stderr, "\r%s %s: %zu/%zu blocks %s\033[K", p->verb, p->device.name, done, total,
		p->online ? "online" : "offline");
	fflush(stderr);
}

void ctl_progress_end(struct ctl_progress *p)
{
	if (!p->ctx)
		return;
	ctl_progress_tick(p);
	if (p->shown != SIZE_MAX)
		fputc('\n', stderr);
	p->ctx = pmemram_ctx_unref(p->ctx);
}
