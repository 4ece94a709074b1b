/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Release: offline a kmem device's blocks, unbind kmem, bind device_dax; undo it all when a step fails. */
#include <limits.h>
#include <stdarg.h>

#include "pmemram-pagemap.h"
#include "pmemram-private.h"
#include "pmemram-release.h"

#define MEMORY_DIR "devices/system/memory"

static const char *const block_status_names[_PMEMRAM_RELEASE_BLOCK_STATUS_MAX] = {
	[PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE] = "already-offline",
	[PMEMRAM_RELEASE_BLOCK_OFFLINED] = "offlined",
	[PMEMRAM_RELEASE_BLOCK_FAILED] = "failed",
	[PMEMRAM_RELEASE_BLOCK_RESTORED] = "restored",
	[PMEMRAM_RELEASE_BLOCK_NOT_RESTORED] = "not-restored",
	[PMEMRAM_RELEASE_BLOCK_DRY_RUN] = "dry-run",
	[PMEMRAM_RELEASE_BLOCK_UNTOUCHED] = "untouched",
};

static const char *const outcome_names[_PMEMRAM_RELEASE_OUTCOME_MAX] = {
	[PMEMRAM_RELEASE_RELEASED] = "released",
	[PMEMRAM_RELEASE_ALREADY] = "already",
	[PMEMRAM_RELEASE_REFUSED] = "refused",
	[PMEMRAM_RELEASE_ROLLED_BACK] = "rolled-back",
	[PMEMRAM_RELEASE_INCOMPLETE] = "incomplete",
	[PMEMRAM_RELEASE_DRY_RUN] = "dry-run",
};

const char *pmemram_release_block_status_to_string(enum pmemram_release_block_status s)
{
	return (unsigned)s < ELEMENTSOF(block_status_names) ? block_status_names[s] : NULL;
}

const char *pmemram_release_outcome_to_string(enum pmemram_release_outcome o)
{
	return (unsigned)o < ELEMENTSOF(outcome_names) ? outcome_names[o] : NULL;
}

struct pmemram_release_report *pmemram_release_report_free(struct pmemram_release_report *report)
{
	if (!report)
		return NULL;
	free(report->blocks);
	free(report);
	return NULL;
}

/* One run: where the operations go, and the report being filled in. */
struct run {
	struct pmemram_ctx *ctx;
	const struct pmemram_apply_options *o;
	const struct pmemram_apply_ops *ops;
	void *userdata;
	struct pmemram_release_report *report;
	unsigned long first, end; /* the range's whole blocks; first == end when none */
	bool driver_known;	  /* report->driver_after is what sysfs showed last */
};

/* Settle the device's outcome; returns its result (0 for the successful outcomes). */
_printf_(4, 5) static int settle(struct run *run, enum pmemram_release_outcome outcome, int r, const char *format,
				 ...)
{
	struct pmemram_release_report *report = run->report;
	bool ok = outcome == PMEMRAM_RELEASE_RELEASED || outcome == PMEMRAM_RELEASE_ALREADY ||
		  outcome == PMEMRAM_RELEASE_DRY_RUN;
	va_list args;

	va_start(args, format);
	(void)vsnprintf(report->reason, sizeof(report->reason), format, args);
	va_end(args);
	report->outcome = outcome;
	report->result = ok ? 0 : r < 0 ? r : -EIO;
	log_debug(run->ctx, "%s: %s", outcome_names[outcome], report->reason);
	return report->result;
}

/* Settle a block's status; returns its result (-errno for FAILED and NOT_RESTORED, else 0). */
_printf_(5, 6) static int block_settle(struct run *run, struct pmemram_release_block *b,
				       enum pmemram_release_block_status status, int r, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	(void)vsnprintf(b->reason, sizeof(b->reason), format, args);
	va_end(args);
	b->status = status;
	b->result = status == PMEMRAM_RELEASE_BLOCK_FAILED || status == PMEMRAM_RELEASE_BLOCK_NOT_RESTORED
			    ? (r < 0 ? r : -EIO)
			    : 0;
	log_debug(run->ctx, "%s: %s", block_status_names[status], b->reason);
	return b->result;
}

/* " (<file>)" for the file behind the context's last failure, "" when there is none. */
static const char *error_file(struct pmemram_ctx *ctx, char *buf, size_t size)
{
	const char *path = pmemram_ctx_get_error_path(ctx);

	if (!path)
		return "";
	(void)snprintf(buf, size, " (%s)", path);
	return buf;
}

/* ---- steps, each an action of the applier ----------------------------------------------------- */

static struct pmemram_action action(struct run *run, enum pmemram_action_type type,
				    const struct pmemram_release_block *b, enum pmemram_zone zone)
{
	struct pmemram_action a = {
		.type = type,
		.node = b ? b->node : run->report->node,
		.block = b ? b->id : 0,
		.zone = zone,
	};

	(void)snprintf(a.device, sizeof(a.device), "%s", run->report->device);
	return a;
}

/* Perform actions through pmemram_apply() with this release's ops and done callback: 0, or the
 * -errno of the action that stopped the run (failed, or found its device changed) with its result
 * (reason, driver as last read) in *ret. */
static int perform(struct run *run, const struct pmemram_action *actions, size_t n, struct pmemram_apply_result *ret)
{
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	const struct pmemram_apply_options o = {
		.ops = run->ops,
		.ops_userdata = run->userdata,
		.done = run->o->done,
		.done_userdata = run->o->done_userdata,
	};
	int r;

	r = pmemram_apply(run->ctx, actions, n, &o, &report);
	if (!report)
		return r;
	*ret = report->results[report->n_results - 1];
	for (size_t i = 0; i < report->n_results; i++)
		if (report->results[i].result < 0) {
			*ret = report->results[i];
			break;
		}
	return r;
}

/* A result's reason without the device or block it starts with ("dax0.0: " or "memory38: "). */
static const char *what_of(const struct pmemram_apply_result *res)
{
	const char *colon = strstr(res->reason, ": ");

	return colon ? colon + 2 : res->reason;
}

/* Rebind the device with one action; report->driver_after follows what the applier read last.
 * 0, or -errno with what failed in what. */
static int rebind(struct run *run, enum pmemram_action_type type, char *what, size_t size)
{
	struct pmemram_action a = action(run, type, NULL, PMEMRAM_ZONE_NONE);
	struct pmemram_apply_result res = {};
	int r;

	r = perform(run, &a, 1, &res);
	run->driver_known = res.driver_read;
	if (res.driver_read)
		(void)snprintf(run->report->driver_after, sizeof(run->report->driver_after), "%s", res.driver);
	if (r < 0)
		(void)snprintf(what, size, "%s", res.reason[0] ? what_of(&res) : strerror(-r));
	return r;
}

/* ---- blocks ------------------------------------------------------------------------------ */

/* The zone to put a block back into: the kernel's default one for zones we cannot name. */
static enum pmemram_zone restore_zone(enum pmemram_zone zone)
{
	return zone == PMEMRAM_ZONE_MOVABLE || zone == PMEMRAM_ZONE_NORMAL ? zone : PMEMRAM_ZONE_NONE;
}

/* Whether the block is as it was before the run: online in its zone, or not online. */
static bool block_as_before(const struct pmemram_release_block *b, const struct memblock_view *v)
{
	if (!v->present)
		return false;
	if (b->state_before != PMEMRAM_BLOCK_ONLINE)
		return v->state_id == PMEMRAM_BLOCK_OFFLINE || v->state_id == (int)b->state_before;
	if (v->state_id != PMEMRAM_BLOCK_ONLINE)
		return false;
	return (b->zone_before != PMEMRAM_ZONE_MOVABLE && b->zone_before != PMEMRAM_ZONE_NORMAL) ||
	       v->zone == (int)b->zone_before;
}

/* "online in Movable" or "going-offline": a block's state before the run, for messages. */
static const char *block_before(const struct pmemram_release_block *b, char *buf, size_t size)
{
	if (b->state_before == PMEMRAM_BLOCK_ONLINE)
		(void)snprintf(buf, size, "online in %s", pmemram_zone_describe((int)b->zone_before));
	else
		(void)snprintf(buf, size, "%s", pmemram_block_state_to_string(b->state_before));
	return buf;
}

static void progress(struct run *run, enum pmemram_action_type type, const struct pmemram_release_block *b,
		     size_t index, size_t total)
{
	struct pmemram_action a = {
		.type = type,
		.node = b->node,
		.block = b->id,
		.zone = b->zone_before,
	};

	if (!run->o->progress)
		return;
	memcpy(a.device, run->report->device, sizeof(a.device));
	run->o->progress(run->ctx, &a, index, total, run->o->progress_userdata);
}

/* Offline one block: the applier judges by what the kernel shows afterwards, not by what the write
 * returned.  Progress is reported for index < total: the blocks the first read found online. */
static int offline_block(struct run *run, struct pmemram_release_block *b, size_t index, size_t total)
{
	struct pmemram_action a = action(run, PMEMRAM_ACTION_OFFLINE_BLOCK, b, PMEMRAM_ZONE_NONE);
	struct pmemram_apply_result res = {};
	char before[64];
	int r;

	if (index < total)
		progress(run, PMEMRAM_ACTION_OFFLINE_BLOCK, b, index, total);
	r = perform(run, &a, 1, &res);
	if (r == -ENOMEM || !res.reason[0])
		return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_FAILED, r, "memory%lu: not attempted: %s", b->id,
				    strerror(-r));
	/* The applier's first read is the state before the run touched the block. */
	if (res.state_before >= 0)
		b->state_before = (enum pmemram_block_state)res.state_before;
	if (b->state_before == PMEMRAM_BLOCK_ONLINE && res.zone_before >= 0)
		b->zone_before = (enum pmemram_zone)res.zone_before;
	if (r < 0)
		return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_FAILED, r, "%s", res.reason);
	if (res.status == PMEMRAM_APPLY_ALREADY && b->state_before == PMEMRAM_BLOCK_OFFLINE)
		return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, 0, "memory%lu: already offline",
				    b->id);
	/* Offline now, even if the write failed: someone raced us to it, and it is offline all the same. */
	return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_OFFLINED, 0, "memory%lu: offlined (was %s)", b->id,
			    block_before(b, before, sizeof(before)));
}

/* Mark a block that could not be put back; a failure to offline it stays in the text, after "earlier: ". */
_printf_(4, 5) static int not_restored(struct run *run, struct pmemram_release_block *b, int r, const char *format,
				       ...)
{
	char what[PMEMRAM_PLAN_TEXT_MAX], before[64], earlier[PMEMRAM_PLAN_TEXT_MAX] = "";
	const char *colon = strchr(b->reason, ':');
	va_list args;

	va_start(args, format);
	(void)vsnprintf(what, sizeof(what), format, args);
	va_end(args);
	if (b->state_before == PMEMRAM_BLOCK_ONLINE)
		(void)block_before(b, before, sizeof(before));
	else
		(void)snprintf(before, sizeof(before), "offline");
	if (b->status == PMEMRAM_RELEASE_BLOCK_FAILED && colon)
		(void)snprintf(earlier, sizeof(earlier), "; earlier:%s", colon + 1);
	return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_NOT_RESTORED, r, "memory%lu: not put back %s: %s%s", b->id,
			    before, what, earlier);
}

/* The block is as it was before: an offlined block counts as restored, the others keep their status. */
static int restored(struct run *run, struct pmemram_release_block *b)
{
	if (b->status == PMEMRAM_RELEASE_BLOCK_OFFLINED)
		return block_settle(run, b, PMEMRAM_RELEASE_BLOCK_RESTORED, 0,
				    "memory%lu: offlined, then onlined again in %s", b->id,
				    pmemram_zone_describe((int)b->zone_before));
	return 0;
}

/* Put one block back as it was before the run: online in its zone, or offline. */
static int restore_block(struct run *run, struct pmemram_release_block *b)
{
	bool online = b->state_before == PMEMRAM_BLOCK_ONLINE;
	struct pmemram_apply_result res = {};
	struct pmemram_action a[2];
	struct memblock_view v;
	size_t n = 0;
	int r;

	r = memblock_view_read(run->ctx, b->id, b->node, &v);
	if (r < 0)
		return not_restored(run, b, r, "cannot read its state: %s", strerror(-r));
	if (block_as_before(b, &v))
		return restored(run, b);
	if (!v.present)
		return not_restored(run, b, -ENODEV, "it is gone");

	/* Online in another zone (kmem bound again, and the kernel auto-onlined it): offline it first. */
	if (!online || v.state_id == PMEMRAM_BLOCK_ONLINE)
		a[n++] = action(run, PMEMRAM_ACTION_OFFLINE_BLOCK, b, PMEMRAM_ZONE_NONE);
	if (online)
		a[n++] = action(run, PMEMRAM_ACTION_ONLINE_BLOCK, b, restore_zone(b->zone_before));
	r = perform(run, a, n, &res);
	if (r < 0)
		return not_restored(run, b, r, "%s", res.reason[0] ? what_of(&res) : strerror(-r));
	return restored(run, b);
}

/* Put every block back as it was before the run, lowest first (the reverse of offlining). */
static void restore_blocks(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	bool *todo = NULL;
	size_t total = 0, index = 0;

	/* Count first, for progress; a block that cannot be read is restored (and reported) all the same. */
	todo = calloc(report->n_blocks ? report->n_blocks : 1, sizeof(*todo));
	for (size_t i = 0; i < report->n_blocks; i++) {
		struct memblock_view v;

		if (todo && (memblock_view_read(run->ctx, report->blocks[i].id, report->blocks[i].node, &v) < 0 ||
			     !block_as_before(&report->blocks[i], &v))) {
			todo[i] = true;
			total++;
		}
	}
	for (size_t i = 0; i < report->n_blocks; i++) {
		struct pmemram_release_block *b = &report->blocks[i];

		if (todo && !todo[i]) {
			(void)restored(run, b);
			continue;
		}
		if (todo)
			progress(run,
				 b->state_before == PMEMRAM_BLOCK_ONLINE ? PMEMRAM_ACTION_ONLINE_BLOCK
									  : PMEMRAM_ACTION_OFFLINE_BLOCK,
				 b, index++, total);
		(void)restore_block(run, b);
	}
	free(todo);
}

static size_t count_status(const struct pmemram_release_report *report, enum pmemram_release_block_status s)
{
	size_t n = 0;

	for (size_t i = 0; i < report->n_blocks; i++)
		n += report->blocks[i].status == s;
	return n;
}

static const struct pmemram_release_block *first_with_status(const struct pmemram_release_report *report,
							      enum pmemram_release_block_status s)
{
	for (size_t i = 0; i < report->n_blocks; i++)
		if (report->blocks[i].status == s)
			return &report->blocks[i];
	return NULL;
}

/* A step failed after blocks may have been offlined: restore them, keep kmem, say what is left. */
_printf_(3, 4) static int undo(struct run *run, int r, const char *format, ...)
{
	struct pmemram_release_report *report = run->report;
	const struct pmemram_release_block *stuck;
	char what[PMEMRAM_PLAN_TEXT_MAX];
	size_t n_restored, n_stuck;
	va_list args;

	va_start(args, format);
	(void)vsnprintf(what, sizeof(what), format, args);
	va_end(args);

	restore_blocks(run);
	n_restored = count_status(report, PMEMRAM_RELEASE_BLOCK_RESTORED);
	n_stuck = count_status(report, PMEMRAM_RELEASE_BLOCK_NOT_RESTORED);
	stuck = first_with_status(report, PMEMRAM_RELEASE_BLOCK_NOT_RESTORED);

	if (!stuck && n_restored == 0)
		return settle(run, PMEMRAM_RELEASE_ROLLED_BACK, r, "%s: not released: %s; kmem still bound",
			      report->device, what);
	if (!stuck)
		return settle(run, PMEMRAM_RELEASE_ROLLED_BACK, r,
			      "%s: not released: %s; kmem still bound, the %zu block%s offlined online again",
			      report->device, what, n_restored, n_restored == 1 ? "" : "s");
	return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r,
		      "%s: not released: %s; kmem still bound, but %zu block%s could not be put back (memory%lu first)",
		      report->device, what, n_stuck, n_stuck == 1 ? "" : "s", stuck->id);
}

/* ---- the steps ------------------------------------------------------------------------------ */

/* Read the device and the blocks of its range into the report; a settled error when it cannot be released. */
static int load(struct run *run, struct pmemram_dax *ret_dax)
{
	_cleanup_(pmemram_dax_list_freep) struct pmemram_dax_list *list = NULL;
	_cleanup_(pmemram_memory_freep) struct pmemram_memory *mem = NULL;
	struct pmemram_release_report *report = run->report;
	const struct pmemram_dax *d = NULL;
	char file[PATH_MAX + 4], have[64], before[64];
	size_t n = 0;
	int r;

	r = pmemram_dax_list_read(run->ctx, &list);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, r, "%s: cannot read the dax devices: %s%s", report->device,
			      strerror(-r), error_file(run->ctx, file, sizeof(file)));
	for (size_t i = 0; i < list->n_devices && !d; i++)
		if (streq(list->devices[i].name, report->device))
			d = &list->devices[i];
	if (!d)
		return settle(run, PMEMRAM_RELEASE_REFUSED, -ENODEV, "%s: no such dax device", report->device);

	*ret_dax = *d;
	report->node = d->target_node;
	memcpy(report->driver_before, d->driver, sizeof(report->driver_before));
	memcpy(report->driver_after, d->driver, sizeof(report->driver_after));
	if (d->mode == PMEMRAM_DAX_DEVDAX)
		return 0;
	if (d->mode == PMEMRAM_DAX_OTHER)
		return settle(run, PMEMRAM_RELEASE_REFUSED, -EBUSY, "%s: %s, not kmem: not releasing it",
			      report->device, dax_driver_state(d->driver, have, sizeof(have)));
	if (!d->has_resource)
		return settle(run, PMEMRAM_RELEASE_REFUSED, -EACCES,
			      "%s: physical address unknown (resource is readable by root only): cannot find its "
			      "memory blocks",
			      report->device);
	/* Joins inside a block are fine here: that block was never added, and every block the span
	 * holds is the device's. */
	if (!pmemram_dax_contiguous(d, 0)) {
		char ranges[160];

		return settle(run, PMEMRAM_RELEASE_REFUSED, -EOPNOTSUPP,
			      "%s: %zu physical ranges that are not one contiguous range (%s): pmemram releases a "
			      "device of one range only; use daxctl offline-memory",
			      report->device, d->n_ranges, pmemram_dax_ranges_format(d, ranges, sizeof(ranges)));
	}

	r = pmemram_memory_read(run->ctx, &mem);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, r, "%s: cannot read the memory blocks: %s%s",
			      report->device, strerror(-r), error_file(run->ctx, file, sizeof(file)));
	report->block_size = mem->block_size;

	/* kmem adds only the whole blocks inside the range: a device holding none has none to offline. */
	r = pmemram_block_range(d->resource, d->size, mem->block_size, &run->first, &run->end);
	if (r == -ERANGE)
		run->first = run->end = 0;
	else if (r < 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, r, "%s: range %#" PRIx64 " + %#" PRIx64 " is invalid: %s",
			      report->device, d->resource, d->size, strerror(-r));

	for (size_t i = 0; i < mem->n_blocks; i++)
		n += mem->blocks[i].id >= run->first && mem->blocks[i].id < run->end;
	if (n > 0) {
		report->blocks = calloc(n, sizeof(*report->blocks));
		if (!report->blocks)
			return -ENOMEM;
	}
	for (size_t i = 0; i < mem->n_blocks; i++) {
		const struct pmemram_memblock *m = &mem->blocks[i];
		struct pmemram_release_block *b;

		if (m->id < run->first || m->id >= run->end)
			continue;
		b = &report->blocks[report->n_blocks++];
		b->id = m->id;
		b->node = m->node;
		b->state_before = m->state;
		b->zone_before = m->state == PMEMRAM_BLOCK_ONLINE ? m->zones.first : PMEMRAM_ZONE_NONE;
		if (m->state == PMEMRAM_BLOCK_OFFLINE) {
			b->status = PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE;
			(void)snprintf(b->reason, sizeof(b->reason), "memory%lu: already offline", b->id);
		} else {
			b->status = PMEMRAM_RELEASE_BLOCK_UNTOUCHED;
			(void)snprintf(b->reason, sizeof(b->reason), "memory%lu: untouched (%s)", b->id,
				       block_before(b, before, sizeof(before)));
		}
	}
	log_debug(run->ctx, "%s: %s, blocks %lu..%lu, %zu present", report->device,
		  dax_driver_state(d->driver, have, sizeof(have)), run->first, run->end, report->n_blocks);
	return 0;
}

/* 1 and the first block of the range still in sysfs, 0 when none is, -errno when one cannot be checked. */
static int first_present(struct run *run, unsigned long *ret)
{
	char path[PATH_MAX];
	int r;

	for (unsigned long id = run->first; id < run->end; id++) {
		r = path_printf(path, sizeof(path), MEMORY_DIR "/memory%lu", id);
		if (r >= 0)
			r = sysfs_exists(run->ctx, path);
		if (r < 0)
			return r;
		if (r > 0) {
			*ret = id;
			return 1;
		}
	}
	return 0;
}

/* Unbound, no blocks of its range left: bind device_dax.  Nothing to undo when that fails. */
static int bind_unbound(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	char what[PMEMRAM_PLAN_TEXT_MAX];
	unsigned long present;
	int r;

	r = first_present(run, &present);
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, r, "%s: cannot check its memory blocks: %s", report->device,
			      strerror(-r));
	if (r > 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, -EBUSY,
			      "%s: unbound, but memory%lu of its range is still present (kmem could not remove it; it "
			      "stays until reboot): not binding device_dax",
			      report->device, present);
	if (run->o->dry_run)
		return settle(run, PMEMRAM_RELEASE_DRY_RUN, 0, "%s: unbound: would bind device_dax", report->device);

	r = rebind(run, PMEMRAM_ACTION_BIND_DEVDAX, what, sizeof(what));
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_REFUSED, r, "%s: not released: %s", report->device, what);
	return settle(run, PMEMRAM_RELEASE_RELEASED, 0, "%s: was unbound; device_dax bound", report->device);
}

static int describe(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	char before[64];
	size_t n = 0;

	for (size_t i = 0; i < report->n_blocks; i++) {
		struct pmemram_release_block *b = &report->blocks[i];

		if (b->status != PMEMRAM_RELEASE_BLOCK_UNTOUCHED)
			continue;
		(void)block_settle(run, b, PMEMRAM_RELEASE_BLOCK_DRY_RUN, 0, "memory%lu: would be offlined (%s)", b->id,
				   block_before(b, before, sizeof(before)));
		n++;
	}

	return settle(run, PMEMRAM_RELEASE_DRY_RUN, 0,
		      "%s: would offline %zu of %zu block%s (%zu already offline), unbind kmem and bind device_dax",
		      report->device, n, report->n_blocks, report->n_blocks == 1 ? "" : "s", report->n_blocks - n);
}

/* Offline every block, highest first; 0 when all are offline, else the first failure (in that order).
 * A block that timed out ends the attempt: the blocks below it stay untouched. */
static int offline_blocks(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	size_t total = 0, index = 0;
	int r, first_error = 0;

	for (size_t i = 0; i < report->n_blocks; i++)
		total += report->blocks[i].state_before != PMEMRAM_BLOCK_OFFLINE;

	for (size_t i = report->n_blocks; i-- > 0;) {
		struct pmemram_release_block *b = &report->blocks[i];
		bool counted = b->state_before != PMEMRAM_BLOCK_OFFLINE;

		r = offline_block(run, b, counted ? index : total, total);
		index += counted;
		if (r < 0 && first_error == 0)
			first_error = r;
		/* Each block more could take the whole timeout again: give up and put back. */
		if (r == -ETIMEDOUT)
			break;
	}
	return first_error;
}

/* Right before kmem goes: every block must still be offline (unbinding with one online leaks it). */
static int check_all_offline(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	int first_error = 0;

	for (size_t i = report->n_blocks; i-- > 0;) {
		struct pmemram_release_block *b = &report->blocks[i];
		struct memblock_view v;
		int r;

		r = memblock_view_read(run->ctx, b->id, b->node, &v);
		if (r < 0)
			r = block_settle(run, b, PMEMRAM_RELEASE_BLOCK_FAILED, r,
					 "memory%lu: cannot read its state before unbinding kmem: %s", b->id,
					 strerror(-r));
		else if (v.present && v.state_id != PMEMRAM_BLOCK_OFFLINE)
			r = block_settle(run, b, PMEMRAM_RELEASE_BLOCK_FAILED, -EBUSY,
					 "memory%lu: %s again (valid_zones: %s) before kmem could be unbound: "
					 "something else onlined it",
					 b->id, v.state, v.zones);
		if (r < 0 && first_error == 0)
			first_error = r;
	}
	return first_error;
}

/* The failed block tried first: the highest. */
static const struct pmemram_release_block *highest_failed(const struct pmemram_release_report *report)
{
	for (size_t i = report->n_blocks; i-- > 0;)
		if (report->blocks[i].status == PMEMRAM_RELEASE_BLOCK_FAILED)
			return &report->blocks[i];
	return NULL;
}

static void failed_blocks_text(const struct pmemram_release_report *report, char *buf, size_t size)
{
	const struct pmemram_release_block *b = highest_failed(report);
	size_t n = count_status(report, PMEMRAM_RELEASE_BLOCK_FAILED);

	if (!b)
		(void)snprintf(buf, size, "a block could not be offlined");
	else if (n == 1)
		(void)snprintf(buf, size, "memory%lu could not be offlined", b->id);
	else
		(void)snprintf(buf, size, "%zu blocks could not be offlined (memory%lu first)", n, b->id);
}

/* device_dax could not be bound after kmem was unbound: bind kmem again and restore the blocks. */
static int undo_unbind(struct run *run, int r, const char *failure)
{
	struct pmemram_release_report *report = run->report;
	char what[PMEMRAM_PLAN_TEXT_MAX];
	int k;

	if (!run->driver_known)
		return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r, "%s: not released: %s; its driver is unknown",
			      report->device, failure);
	if (report->driver_after[0] == '\0') {
		k = rebind(run, PMEMRAM_ACTION_BIND_KMEM, what, sizeof(what));
		if (k < 0)
			return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r,
				      "%s: not released: %s; %s: its memory is out of use with no driver bound",
				      report->device, failure, what);
	} else if (!streq(report->driver_after, "kmem")) {
		return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r, "%s: not released: %s; left bound to %s",
			      report->device, failure, report->driver_after);
	}
	return undo(run, r, "%s", failure);
}

static int release_kmem(struct run *run)
{
	struct pmemram_release_report *report = run->report;
	char what[PMEMRAM_PLAN_TEXT_MAX], size[32];
	unsigned long present;
	size_t n_offlined;
	int r;

	if (run->o->dry_run)
		return describe(run);

	r = offline_blocks(run);
	if (r < 0) {
		failed_blocks_text(report, what, sizeof(what));
		return undo(run, r, "%s", what);
	}
	r = check_all_offline(run);
	if (r < 0) {
		const struct pmemram_release_block *b = highest_failed(report);

		return undo(run, r, "%s", b ? b->reason : "a block is not offline any more");
	}

	r = rebind(run, PMEMRAM_ACTION_UNBIND_KMEM, what, sizeof(what));
	if (r < 0 && run->driver_known && streq(report->driver_after, "kmem"))
		return undo(run, r, "%s", what);
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r, "%s: not released: %s", report->device, what);

	/* kmem removes its blocks when unbound; one it cannot remove stays, range claimed, until reboot. */
	r = first_present(run, &present);
	if (r < 0)
		return settle(run, PMEMRAM_RELEASE_INCOMPLETE, r,
			      "%s: kmem unbound, but its memory blocks cannot be checked: %s", report->device,
			      strerror(-r));
	if (r > 0)
		return settle(run, PMEMRAM_RELEASE_INCOMPLETE, -EBUSY,
			      "%s: kmem unbound, but the kernel did not remove memory%lu: it stays offline, its range "
			      "claimed, until reboot",
			      report->device, present);

	r = rebind(run, PMEMRAM_ACTION_BIND_DEVDAX, what, sizeof(what));
	if (r < 0)
		return undo_unbind(run, r, what);

	n_offlined = count_status(report, PMEMRAM_RELEASE_BLOCK_OFFLINED);
	return settle(run, PMEMRAM_RELEASE_RELEASED, 0,
		      "%s: released %s (%zu block%s, %zu offlined now), device_dax bound", report->device,
		      pmemram_format_size(report->n_blocks * report->block_size, size, sizeof(size)), report->n_blocks,
		      report->n_blocks == 1 ? "" : "s", n_offlined);
}

static int release(struct run *run)
{
	struct pmemram_dax d = {};
	int r;

	r = load(run, &d);
	if (r < 0)
		return r;
	switch (d.mode) {
	case PMEMRAM_DAX_DEVDAX:
		return settle(run, PMEMRAM_RELEASE_ALREADY, 0, "%s: already released (bound to device_dax)",
			      run->report->device);
	case PMEMRAM_DAX_UNBOUND:
		return bind_unbound(run);
	case PMEMRAM_DAX_SYSTEM_RAM:
		return release_kmem(run);
	default:
		return settle(run, PMEMRAM_RELEASE_REFUSED, -EBUSY, "%s: bound to %s, not kmem: not releasing it",
			      run->report->device, d.driver);
	}
}

int pmemram_release(struct pmemram_ctx *ctx, const char *device, const struct pmemram_apply_options *options,
		    struct pmemram_release_report **ret)
{
	_cleanup_(pmemram_release_report_freep) struct pmemram_release_report *report = NULL;
	static const struct pmemram_apply_options no_options = {};
	struct run run = { .ctx = ctx, .o = options ? options : &no_options };
	int r;

	if (!ctx || !device || !*device || strlen(device) >= sizeof(report->device) || strchr(device, '/') || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	report = calloc(1, sizeof(*report));
	if (!report)
		return -ENOMEM;
	strcpy(report->device, device);
	report->node = -1;
	report->outcome = PMEMRAM_RELEASE_REFUSED;
	run.report = report;
	run.ops = run.o->ops ? run.o->ops : &pmemram_apply_default_ops;
	run.userdata = run.o->ops ? run.o->ops_userdata : NULL;

	r = release(&run);
	/* only load() fails this way, before anything was changed */
	if (r == -ENOMEM && report->reason[0] == '\0')
		return r;

	for (size_t i = 0; i < report->n_blocks; i++)
		report->counts[report->blocks[i].status]++;
	*ret = TAKE_PTR(report);
	return r;
}
