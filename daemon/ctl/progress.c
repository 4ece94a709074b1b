/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl's progress line: a device's memory blocks counted from sysfs while pmemramd works on them. */
#include <unistd.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-plan.h"

/* The device's whole blocks, as kmem adds them: -ENODEV when it is not there, -ERANGE for none. */
static int device_span(struct pmemram_ctx *ctx, const char *device, struct pmemram_block_span *ret)
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
	for (size_t i = 0; i < list->n_devices; i++) {
		const struct pmemram_dax *d = &list->devices[i];

		if (!streq(d->name, device))
			continue;
		if (!d->has_resource || !pmemram_dax_contiguous(d, m->block_size))
			return -ERANGE;
		return pmemram_block_range(d->resource, d->size, m->block_size, &ret->first, &ret->end);
	}
	return -ENODEV;
}

void ctl_progress_start(struct ctl_progress *p, bool json, const char *verb, const char *device, bool online)
{
	*p = (struct ctl_progress){ .verb = verb, .device = device, .online = online, .shown = SIZE_MAX };
	/* On a terminal only: a pipe or a script reads the reply, which says it all. */
	if (json || !isatty(STDERR_FILENO))
		return;
	if (pmemram_ctx_new(&p->ctx) < 0)
		return;
	if (device_span(p->ctx, device, &p->span) < 0) {
		p->ctx = pmemram_ctx_unref(p->ctx);
		return;
	}
	ctl_progress_tick(p);
}

void ctl_progress_tick(void *userdata)
{
	struct ctl_progress *p = userdata;
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *m = NULL;
	enum pmemram_block_state want = p->online ? PMEMRAM_BLOCK_ONLINE : PMEMRAM_BLOCK_OFFLINE;
	size_t done = 0;

	if (!p->ctx || pmemram_memory_read_spans(p->ctx, &p->span, 1, &m) < 0)
		return;
	for (size_t i = 0; i < m->n_blocks; i++)
		done += m->blocks[i].state == want;
	if (done == p->shown)
		return;
	p->shown = done;
	fprintf(stderr, "\r%s %s: %zu/%lu blocks %s\033[K", p->verb, p->device, done, p->span.end - p->span.first,
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
