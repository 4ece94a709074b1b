/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The applier: runs planned actions through an ops table and sysfs, verifying each by re-reading. */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/file.h>
#include <unistd.h>

#include "daxctl-load.h"
#include "lib-load.h"
#include "pmemram-apply.h"
#include "pmemram-observe.h"
#include "pmemram-pagemap.h"
#include "pmemram-private.h"

#define MEMORY_DIR "devices/system/memory"
#define DAX_DIR "bus/dax/devices"
#define ND_DIR "bus/nd/devices"
#define AUTO_ONLINE_FILE MEMORY_DIR "/auto_online_blocks"

struct pmemram_apply_report *pmemram_apply_report_free(struct pmemram_apply_report *report)
{
	if (!report)
		return NULL;
	free(report->results);
	free(report);
	return NULL;
}

/* One run: where actions go, and the result being filled in. */
struct run {
	struct pmemram_ctx *ctx;
	const struct pmemram_apply_ops *ops;
	void *userdata;
	struct pmemram_apply_result *res;
	const char *record;	    /* options->auto_online_record */
	const char *cxl_record_dir; /* options->cxl_record_dir */
	char bound[32];		    /* the device whose kmem bind this run did and verified, "" none */
	bool kernel_onlined;	    /* and the kernel was to online its blocks during that bind */
};

/* Settle the current result; returns its result (0 unless FAILED). */
_printf_(4, 5) static int finish(struct run *run, enum pmemram_apply_status status, int r, const char *format, ...)
{
	struct pmemram_apply_result *res = run->res;
	va_list args;

	va_start(args, format);
	(void)vsnprintf(res->reason, sizeof(res->reason), format, args);
	va_end(args);
	res->status = status;
	res->result = status == PMEMRAM_APPLY_FAILED || status == PMEMRAM_APPLY_CHANGED ? (r < 0 ? r : -EIO) : 0;
	log_debug(run->ctx, "%s: %s", pmemram_apply_status_to_string(status), res->reason);
	return res->result;
}

#define succeed(run, already, ...) \
	finish((run), (already) ? PMEMRAM_APPLY_ALREADY : PMEMRAM_APPLY_DONE, 0, __VA_ARGS__)
#define fail(run, r, ...) finish((run), PMEMRAM_APPLY_FAILED, (r), __VA_ARGS__)
#define changed(run, ...) finish((run), PMEMRAM_APPLY_CHANGED, -EAGAIN, __VA_ARGS__)

const char *pmemram_zone_describe(int zone)
{
	const char *s = zone >= 0 ? pmemram_zone_to_string((enum pmemram_zone)zone) : NULL;

	return s ? s : "an unknown zone";
}

/* ---- memory blocks ---------------------------------------------------------------- */

/* block_set()'s zone for "online wherever the kernel puts it" (the undo of a release). */
#define ZONE_ANY _PMEMRAM_ZONE_MAX
/* block_set()'s zones for "offline": to give it back, and to online it in another zone. */
#define ZONE_OFFLINE (-1)
#define ZONE_OFFLINE_REZONE (-2)

/* Whether the block is where the action wants it: online in zone, or offline (zone < 0). */
static bool block_reached(const struct memblock_view *v, int zone)
{
	if (zone < 0)
		return v->state_id == PMEMRAM_BLOCK_OFFLINE;
	return v->state_id == PMEMRAM_BLOCK_ONLINE && (zone == ZONE_ANY || v->zone == zone);
}

/* Who has resident pages in the block, for the message of a block that would not go offline. */
static void block_owners(struct pmemram_ctx *ctx, unsigned long block, int node, char *buf, size_t size)
{
	long page_size = sysconf(_SC_PAGESIZE);
	char owners[PMEMRAM_PLAN_TEXT_MAX / 2 - 64];
	uint64_t bs = 0;
	int n;

	n = page_size > 0 && sysfs_read_hex(ctx, MEMORY_DIR "/block_size_bytes", &bs) >= 0 && bs > 0
		    ? pmemram_frame_owners(ctx, block * bs / (uint64_t)page_size, (block + 1) * bs / (uint64_t)page_size,
					   (uint64_t)page_size, owners, sizeof(owners))
		    : -EINVAL;
	pmemram_ctx_clear_error(ctx);
	if (n > 0) {
		(void)snprintf(buf, size, "pages mapped by %s", owners);
		return;
	}
	if (n == -EPERM && node >= 0) {
		/* Frames are hidden without CAP_SYS_ADMIN: the node's users are the suspects. */
		n = pmemram_node_users(ctx, node, owners, sizeof(owners));
		pmemram_ctx_clear_error(ctx);
		if (n > 0)
			(void)snprintf(buf, size, "frames hidden; processes with pages on node %d: %s", node, owners);
		else
			(void)snprintf(buf, size, "frames hidden, and no process has pages on node %d", node);
		return;
	}
	(void)snprintf(buf, size, "no process maps its pages (kernel or pipe buffers hold them)");
}

static int block_success(struct run *run, unsigned long block, const struct memblock_view *v, int zone, bool already)
{
	if (zone < 0)
		return succeed(run, already, "memory%lu: %soffline", block, already ? "already " : "");
	return succeed(run, already, "memory%lu: %sonline in %s", block, already ? "already " : "",
		       pmemram_zone_describe(v->zone));
}

static int block_wrong_zone(struct run *run, unsigned long block, const struct memblock_view *v, int zone, int r,
			    bool already)
{
	return fail(run, r, "memory%lu: %sonline in %s, not %s (valid_zones: %s)", block, already ? "already " : "",
		    pmemram_zone_describe(v->zone), pmemram_zone_describe(zone), v->zones);
}

/* What block_set() knows of a block before reading it. */
enum block_origin {
	BLOCK_SEEN,	      /* nothing: read it first */
	BLOCK_ADDED_OFFLINE,  /* added by the kmem bind this run did: offline, with its node */
	BLOCK_ADDED_ONLINING, /* added by that bind with the kernel onlining it: read it first */
};

/* Write value to memoryN/state (zone < 0: offline, else online into zone), then re-read state and
 * valid_zones and judge by what the kernel shows, not by what the write returned.  A block added
 * offline by the kmem bind this run did and verified is not read before: the kernel adds a
 * device's blocks offline and links them to their node before the bind returns.  One the kernel
 * onlined during that bind is read, and counts as done by this run when found in place. */
static int block_set(struct run *run, unsigned long block, int node, const char *value, int zone,
		     enum block_origin origin)
{
	struct memblock_view v = { .node = node };
	int r, k;

	if (origin != BLOCK_ADDED_OFFLINE) {
		r = memblock_view_read(run->ctx, block, node, &v);
		if (r < 0)
			return fail(run, r, "memory%lu: cannot read its state: %s", block, strerror(-r));
		if (!v.present)
			return fail(run, -ENODEV, "memory%lu: absent", block);
		run->res->state_before = v.state_id;
		run->res->zone_before = v.state_id == PMEMRAM_BLOCK_ONLINE ? v.zone : -1;
		/* Onlining a block that has no node yet oopses 6.1 as reading its zones does. */
		if (v.node < 0 && zone >= 0)
			return fail(run, -EAGAIN, "memory%lu: still being added (no node link yet)", block);
		if (block_reached(&v, zone) && origin == BLOCK_ADDED_ONLINING) {
			run->res->by_kernel = true;
			return succeed(run, false, "memory%lu: online in %s (by the kernel, during the kmem bind)",
				       block, pmemram_zone_describe(v.zone));
		}
		if (block_reached(&v, zone))
			return block_success(run, block, &v, zone, true);
		if (zone >= 0 && v.state_id == PMEMRAM_BLOCK_ONLINE)
			return block_wrong_zone(run, block, &v, zone, -EBUSY, true);
	}

	r = run->ops->set_block_state ? run->ops->set_block_state(run->ctx, run->userdata, block, value)
				      : -EOPNOTSUPP;

	k = memblock_view_read(run->ctx, block, v.node, &v);
	if (k < 0)
		return fail(run, k, "memory%lu: cannot re-read its state after writing %s: %s", block, value,
			    strerror(-k));
	if (!v.present)
		return fail(run, -ENODEV, "memory%lu: vanished after writing %s", block, value);
	/* A failed write that still finds the block in place: someone (udev) did it first. */
	if (block_reached(&v, zone))
		return block_success(run, block, &v, zone, r < 0);

	if (r == -ETIMEDOUT && zone < 0) {
		char owners[PMEMRAM_PLAN_TEXT_MAX / 2];

		block_owners(run->ctx, block, v.node, owners, sizeof(owners));
		return fail(run, r,
			    "memory%lu: did not go offline within %" PRIu64
			    " s: the kernel kept retrying to migrate pages that stay in use (extra references, "
			    "e.g. spliced into a pipe); %s",
			    block, pmemram_ctx_get_offline_timeout(run->ctx) / 1000000, owners);
	}
	/* On the way to another zone, the block was onlined outside Movable (by the kernel at probe,
	 * most often), and what holds it is the kernel's own allocations, which never move. */
	if (r == -EBUSY && zone == ZONE_OFFLINE_REZONE)
		return fail(run, r,
			    "memory%lu: could not be offlined: its pages cannot be migrated (unmovable or "
			    "pinned): %s; memory onlined outside Movable keeps the kernel's own allocations: "
			    "claim it online = normal, or boot with memhp_default_state=offline",
			    block, strerror(-r));
	if (r == -EBUSY && zone < 0)
		return fail(run, r,
			    "memory%lu: could not be offlined: the kernel could not migrate its pages away "
			    "(unmovable or pinned pages in use): %s",
			    block, strerror(-r));
	(void)memblock_view_read_zones(run->ctx, block, &v);
	if (r < 0)
		return fail(run, r, "memory%lu: %s rejected: %s (state %s, valid_zones: %s)", block, value,
			    strerror(-r), v.state, v.zones);
	if (zone >= 0 && zone != ZONE_ANY && v.state_id == PMEMRAM_BLOCK_ONLINE)
		return block_wrong_zone(run, block, &v, zone, -EIO, false);
	return fail(run, -EIO, "memory%lu: %s took no effect: state %s (valid_zones: %s)", block, value, v.state,
		    v.zones);
}

static int apply_online(struct run *run, const struct pmemram_action *a)
{
	enum block_origin origin = !streq(a->device, run->bound) ? BLOCK_SEEN
				   : run->kernel_onlined	 ? BLOCK_ADDED_ONLINING
								 : BLOCK_ADDED_OFFLINE;

	switch (a->zone) {
	case PMEMRAM_ZONE_MOVABLE:
		return block_set(run, a->block, a->node, "online_movable", PMEMRAM_ZONE_MOVABLE, origin);
	case PMEMRAM_ZONE_NORMAL:
		return block_set(run, a->block, a->node, "online_kernel", PMEMRAM_ZONE_NORMAL, origin);
	case PMEMRAM_ZONE_NONE:
		return block_set(run, a->block, a->node, "online", ZONE_ANY, origin);
	default:
		return fail(run, -EINVAL, "memory%lu: cannot online into %s", a->block, pmemram_zone_describe((int)a->zone));
	}
}

int pmemram_apply_write_block_state(struct pmemram_ctx *ctx, _unused_ void *userdata, unsigned long block,
				    const char *value)
{
	char path[PATH_MAX];
	int r;

	if (!ctx || !value)
		return -EINVAL;
	r = path_printf(path, sizeof(path), MEMORY_DIR "/memory%lu/state", block);
	if (r < 0)
		return r;
	/* Nothing read back here: block_set() reads the state once after the write.  Offlining may
	 * never end on its own (pages that cannot migrate): bounded by the context's offline timeout. */
	return sysfs_write_bounded(ctx, path, value, streq(value, "offline") ? pmemram_ctx_get_offline_timeout(ctx) : 0);
}

/* ---- devices ------------------------------------------------------------------------ */

/* A device's driver ("" when unbound); -ENODEV when the device itself is gone. */
int dax_driver_read(struct pmemram_ctx *ctx, const char *device, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r;

	r = path_printf(path, sizeof(path), DAX_DIR "/%s", device);
	if (r < 0)
		return r;
	r = sysfs_exists(ctx, path);
	if (r <= 0)
		return r < 0 ? r : -ENODEV;

	r = path_printf(path, sizeof(path), DAX_DIR "/%s/driver", device);
	if (r < 0)
		return r;
	r = sysfs_read_link_name(ctx, path, buf, size);
	if (sysfs_absent(ctx, r)) {
		buf[0] = '\0';
		return 0;
	}
	return r;
}

const char *dax_driver_state(const char *driver, char *buf, size_t size)
{
	(void)snprintf(buf, size, "%s%s", *driver ? "bound to " : "unbound", driver);
	return buf;
}

typedef int (*device_op)(struct pmemram_ctx *ctx, void *userdata, const char *device);

/* The device's driver into the result; -errno when it cannot be read. */
static int read_driver(struct run *run, const char *device)
{
	struct pmemram_apply_result *res = run->res;
	int r;

	res->driver_read = false;
	r = dax_driver_read(run->ctx, device, res->driver, sizeof(res->driver));
	res->driver_read = r >= 0;
	return r;
}

/* Whether a device read unbound (from "") is bound to device_dax now: the kernel's probe of a new
 * device ended after the read, which is no failure of anyone's. */
static bool probed_since(const char *from, const char *driver)
{
	return !*from && streq(driver, "device_dax");
}

/* Move a dax device from driver "from" to driver "to" ("" = unbound) with op, and judge by the
 * driver link read afterwards, not by what op returned. */
static int device_rebind(struct run *run, const char *device, const char *from, const char *to, device_op op,
			 const char *what)
{
	char have[96], want[96], before[96];
	const char *driver = run->res->driver;
	int r, k;

	(void)dax_driver_state(to, want, sizeof(want));
	r = read_driver(run, device);
	if (r < 0)
		return fail(run, r, "%s: cannot read its driver: %s", device, strerror(-r));
	if (streq(driver, to))
		return succeed(run, true, "%s: already %s", device, want);
	if (probed_since(from, driver))
		return changed(run, "%s: bound to device_dax since it was read unbound (still being probed then)",
			       device);
	if (!streq(driver, from))
		return fail(run, -EBUSY, "%s: %s, expected %s: not %s", device,
			    dax_driver_state(driver, have, sizeof(have)), dax_driver_state(from, before, sizeof(before)),
			    what);

	r = op ? op(run->ctx, run->userdata, device) : -EOPNOTSUPP;
	k = read_driver(run, device);
	if (k < 0)
		return fail(run, k, "%s: cannot re-read its driver after %s: %s", device, what, strerror(-k));
	if (streq(driver, to))
		return succeed(run, r < 0, "%s: %s", device, want);
	if (probed_since(from, driver))
		return changed(run, "%s: device_dax bound it during %s (it was still being probed)", device, what);
	if (r < 0)
		return fail(run, r, "%s: %s failed: %s", device, what, strerror(-r));
	return fail(run, -EIO, "%s: %s took no effect: %s", device, what, dax_driver_state(driver, have, sizeof(have)));
}

/* ---- the kernel onlines during the bind ---------------------------------------------------- */

/*
 * kmem adds a device's memory blocks during its bind, and the kernel onlines each one there and
 * then when auto_online_blocks asks it to, under the hotplug lock the bind holds already: no write
 * per block, no retaking that lock per block.  pmemram sets the knob to the claimed zone for the
 * time of the bind and puts the value it found back, recording it in a file first, so that a run
 * killed in between leaves what to undo: the next run, or pmemramd's start, puts it back.  The
 * file, locked for the whole change, also keeps two runs from saving each other's value.
 */

/* The auto_online_blocks value that onlines a new block into zone; NULL when none does. */
static const char *auto_online_value(enum pmemram_zone zone)
{
	switch (zone) {
	case PMEMRAM_ZONE_MOVABLE:
		return "online_movable";
	case PMEMRAM_ZONE_NORMAL:
		return "online_kernel";
	default:
		return NULL;
	}
}

/* Put back the value a run left recorded in fd (locked); 1 and the value in buf when there was
 * one, 0 when the record was empty. */
static int record_undo(struct pmemram_ctx *ctx, int fd, char *buf, size_t size)
{
	ssize_t n;
	int r;

	n = pread(fd, buf, size - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (n == 0)
		return 0;
	if (pmemram_auto_online_from_string(buf) < 0)
		return -EBADMSG;
	r = sysfs_write_verify(ctx, AUTO_ONLINE_FILE, buf, NULL);
	if (r < 0)
		return r;
	return ftruncate(fd, 0) < 0 ? -errno : 1;
}

/* Open and lock the record (created when missing), undoing what it holds. */
static int record_open(struct pmemram_ctx *ctx, const char *path, int *ret_fd)
{
	_cleanup_(closep) int fd = -1;
	char value[32];
	int r;

	fd = file_lock(path, true);
	if (fd < 0)
		return fd;
	r = record_undo(ctx, fd, value, sizeof(value));
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int pmemram_apply_undo_auto_online(struct pmemram_ctx *ctx, const char *record, char *buf, size_t size)
{
	_cleanup_(closep) int fd = -1;

	if (!ctx || !record || !buf || size < 2)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(record, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (flock(fd, LOCK_EX) < 0)
		return -errno;
	return record_undo(ctx, fd, buf, size);
}

/* Set auto_online_blocks to want for the bind, recording the value found, which goes to saved.
 * 1 when it was changed (fd then holds the locked record), 0 when it already read want, -errno
 * when it could not be set (nothing changed then). */
static int knob_set(struct run *run, const char *want, int *fd, char *saved, size_t size)
{
	int r;

	r = record_open(run->ctx, run->record, fd);
	if (r < 0)
		return r;
	r = sysfs_read_string(run->ctx, AUTO_ONLINE_FILE, saved, size);
	if (r < 0)
		return r;
	if (streq(saved, want))
		return 0;
	/* "offline", or "online", the kernel's default zone (Debian 13's default policy), are set for
	 * the bind; an explicit zone is the administrator's choice, which the planner respected. */
	if (!streq(saved, "offline") && !streq(saved, "online"))
		return -EBUSY;
	r = pwrite(*fd, saved, strlen(saved), 0) < 0 ? -errno : 0;
	if (r >= 0)
		r = sysfs_write_verify(run->ctx, AUTO_ONLINE_FILE, want, NULL);
	/* Nothing changed: a record left behind would only put back the value that is there. */
	if (r < 0 && ftruncate(*fd, 0) < 0)
		log_debug(run->ctx, "%s: cannot empty it: %m", run->record);
	return r < 0 ? r : 1;
}

static int bind_kmem(struct run *run, const struct pmemram_action *a)
{
	const char *want = run->record ? auto_online_value(a->zone) : NULL;
	_cleanup_(closep) int fd = -1;
	char saved[32] = "";
	int changed = -1, r, k;

	run->kernel_onlined = false;
	if (want) {
		changed = knob_set(run, want, &fd, saved, sizeof(saved));
		if (changed < 0)
			log_debug(run->ctx,
				  "%s: auto_online_blocks not used for the bind (%s): onlining block by block",
				  a->device, strerror(-changed));
		pmemram_ctx_clear_error(run->ctx);
		run->kernel_onlined = changed >= 0;
	}
	/* Left at "online", the kernel would online the blocks in its own zone: no bind. */
	if (changed < 0 && sysfs_read_string(run->ctx, AUTO_ONLINE_FILE, saved, sizeof(saved)) >= 0 &&
	    streq(saved, "online"))
		return fail(run, -EBUSY,
			    "%s: auto_online_blocks is 'online' and was not set for the bind%s%s: not binding kmem",
			    a->device, want ? ": " : " (no record to keep its value in)",
			    want ? strerror(-changed) : "");
	pmemram_ctx_clear_error(run->ctx);

	r = device_rebind(run, a->device, "", "kmem", run->ops->enable_kmem, "binding kmem");
	if (changed <= 0)
		return r;

	k = sysfs_write_verify(run->ctx, AUTO_ONLINE_FILE, saved, NULL);
	if (k >= 0)
		k = ftruncate(fd, 0) < 0 ? -errno : 0;
	if (k < 0 && r >= 0)
		return fail(run, k, "%s: bound to kmem, but auto_online_blocks is not back to '%s': %s (kept in %s)",
			    a->device, saved, strerror(-k), run->record);
	return r;
}

/* A namespace's mode and UUID ("" when it has none), and whether it is devdax with its dax
 * device enabled: what a conversion is judged by. */
static int ns_read(struct run *run, const char *ns, char *mode, size_t mode_size, char *uuid, size_t uuid_size,
		   bool *ret_devdax)
{
	char path[PATH_MAX];
	int r;

	r = path_printf(path, sizeof(path), ND_DIR "/%s/mode", ns);
	if (r >= 0)
		r = sysfs_read_string(run->ctx, path, mode, mode_size);
	if (r < 0)
		return r;
	r = path_printf(path, sizeof(path), ND_DIR "/%s/uuid", ns);
	if (r >= 0)
		r = sysfs_read_string(run->ctx, path, uuid, uuid_size);
	if (sysfs_absent(run->ctx, r))
		uuid[0] = '\0'; /* a label-less namespace: no claim can name it */
	else if (r < 0)
		return r;
	r = streq(mode, "dax") ? pmemram_namespace_holder_disabled(run->ctx, ns) : 1;
	if (r < 0)
		return r;
	*ret_devdax = r == 0;
	return 0;
}

#define CONVERT_FAILED "%s: conversion to devdax failed (mode now %s): "
#define CREATE_FAILED "%s: creating a devdax namespace named '%s' failed: "

/* The room for a namespace op's words in a failure's reason that spends n bytes before them.  The
 * rarer reasons of a success the library erred after are longer: they may end cut short. */
static size_t why_room(int n)
{
	return n >= 0 && (size_t)n + 64 < PMEMRAM_PLAN_TEXT_MAX ? PMEMRAM_PLAN_TEXT_MAX - (size_t)n : 64;
}

/* What a namespace op that returned r said of its failure: its own words, else the error's; "" when
 * it succeeded. */
static const char *op_why(int r, const char *why)
{
	if (r >= 0)
		return "";
	return why[0] ? why : strerror(-r);
}

/* Destructive and rare: only the namespace with the claimed UUID, which the op checks again; the
 * namespace must then read devdax with its dax device enabled. */
static int convert_namespace(struct run *run, const struct pmemram_action *a)
{
	char mode[32], uuid[64], why[PMEMRAM_PLAN_TEXT_MAX];
	bool devdax;
	size_t room;
	int r, k;

	r = ns_read(run, a->device, mode, sizeof(mode), uuid, sizeof(uuid), &devdax);
	if (r < 0)
		return fail(run, r, "%s: cannot read its mode and UUID: %s", a->device, strerror(-r));
	if (!a->uuid[0] || strcasecmp(uuid, a->uuid) != 0)
		return fail(run, -ESTALE, "%s: its UUID is '%s', not the claimed %s: not converting", a->device, uuid,
			    a->uuid[0] ? a->uuid : "(none)");
	if (devdax)
		return succeed(run, true, "%s: already devdax", a->device);
	/* The plan's scan may be seconds old; libndctl's own check (an exclusive open) misses a
	 * process that opened the disk without O_EXCL. */
	r = pmemram_namespace_in_use(run->ctx, a->device, why, sizeof(why));
	if (r < 0)
		return fail(run, r, "%s: cannot tell whether it is in use: %s", a->device, strerror(-r));
	if (r > 0)
		return fail(run, -EBUSY, "%s: in use (%s): not converting", a->device, why);

	why[0] = '\0';
	room = why_room(snprintf(NULL, 0, CONVERT_FAILED, a->device, "memory"));
	r = run->ops->convert_namespace
		    ? run->ops->convert_namespace(run->ctx, run->userdata, a->device, a->uuid, why, room)
		    : -EOPNOTSUPP;
	k = ns_read(run, a->device, mode, sizeof(mode), uuid, sizeof(uuid), &devdax);
	if (k < 0)
		return fail(run, k, "%s: cannot re-read its mode after the conversion: %s%s%s", a->device, strerror(-k),
			    r < 0 ? "; the conversion had failed: " : "", op_why(r, why));
	/* devdax now: this call destroyed the contents, whatever the library reported afterwards */
	if (devdax)
		return succeed(run, false, "%s: converted to devdax (uuid %s kept; its former contents are gone)%s%s",
			       a->device, uuid, r < 0 ? "; the library then reported: " : "", op_why(r, why));
	if (r < 0)
		return fail(run, r, CONVERT_FAILED "%s", a->device, mode, op_why(r, why));
	return fail(run, -EIO, "%s: conversion to devdax took no effect: mode %s%s", a->device, mode,
		    streq(mode, "dax") ? ", dax device not enabled" : "");
}

/* The namespace of region ("region0") with a size, the label name name and the UUID a creation
 * for it gives (pmemram_create_uuid()): 1 and its name in buf, 0 when there is none.  One with the
 * name alone is not pmemram's. */
static int ns_find_named(struct run *run, const char *region, const char *name, char *buf, size_t size)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir dir = {};
	char prefix[48], path[PATH_MAX], alt[SYSFS_ATTR_MAX], uuid[SYSFS_ATTR_MAX], want[PMEMRAM_UUID_STRING_MAX];
	uint64_t ns_size;
	int r;

	if (strncmp(region, "region", strlen("region")) != 0)
		return -EINVAL;
	pmemram_create_uuid_string(name, want);
	r = path_printf(prefix, sizeof(prefix), "namespace%s.", region + strlen("region"));
	if (r >= 0)
		r = sysfs_dir_read(run->ctx, ND_DIR, prefix, PMEMRAM_MAX_DAX_DEVICES, &dir);
	if (r < 0)
		return r;
	for (size_t i = 0; i < dir.n; i++) {
		r = path_printf(path, sizeof(path), ND_DIR "/%s/alt_name", dir.names[i]);
		if (r >= 0)
			r = sysfs_read_string(run->ctx, path, alt, sizeof(alt));
		if (sysfs_absent(run->ctx, r) || (r >= 0 && !streq(alt, name)))
			continue;
		if (r >= 0)
			r = path_printf(path, sizeof(path), ND_DIR "/%s/uuid", dir.names[i]);
		if (r >= 0)
			r = sysfs_read_string(run->ctx, path, uuid, sizeof(uuid));
		if (sysfs_absent(run->ctx, r) || (r >= 0 && strcasecmp(uuid, want) != 0))
			continue;
		if (r >= 0)
			r = path_printf(path, sizeof(path), ND_DIR "/%s/size", dir.names[i]);
		if (r >= 0)
			r = sysfs_read_u64(run->ctx, path, &ns_size);
		if (r < 0)
			return r;
		if (ns_size > 0) /* a seed named before its size was set is not one yet */
			return copy_span(buf, size, dir.names[i], strlen(dir.names[i])) < 0 ? -ENAMETOOLONG : 1;
	}
	return 0;
}

/* Whether the region holds the claim's namespace, devdax with its dax device enabled. */
static int created_read(struct run *run, const struct pmemram_action *a, char *ns, size_t size, bool *ret_devdax)
{
	char mode[32], uuid[64];
	int r;

	*ret_devdax = false;
	r = ns_find_named(run, a->device, a->claim, ns, size);
	if (r <= 0)
		return r;
	return ns_read(run, ns, mode, sizeof(mode), uuid, sizeof(uuid), ret_devdax);
}

/* What was made after a creation (op result r, its words why) could not be read again (k). */
static int reread_failed(struct run *run, int k, const char *device, const char *what, int r, const char *why)
{
	return fail(run, k, "%s: cannot re-read its %s after creating one: %s%s%s", device, what, strerror(-k),
		    r < 0 ? "; the creation had failed: " : "", op_why(r, why));
}

/* One devdax namespace named after the claim over the region's free space, once: a namespace by
 * that name with the UUID the claim gives, whatever its state, is the claim's (the op finishes
 * it); one with the name alone is not, and the op refuses to touch it. */
static int create_namespace(struct run *run, const struct pmemram_action *a)
{
	char ns[32] = "", why[PMEMRAM_PLAN_TEXT_MAX] = "";
	bool devdax;
	size_t room;
	int r, k;

	r = created_read(run, a, ns, sizeof(ns), &devdax);
	if (r < 0)
		return fail(run, r, "%s: cannot read its namespaces: %s", a->device, strerror(-r));
	if (devdax)
		return succeed(run, true, "%s: already holds devdax namespace %s named '%s'", a->device, ns, a->claim);
	/* A half-made one of the claim's is finished, which disables it: not while it is in use (a raw
	 * namespace has a disk that anyone may have opened or mounted since). */
	if (ns[0]) {
		r = pmemram_namespace_in_use(run->ctx, ns, why, sizeof(why));
		if (r < 0)
			return fail(run, r, "%s: cannot tell whether %s is in use: %s", a->device, ns, strerror(-r));
		if (r > 0)
			return fail(run, -EBUSY, "%s: %s, named '%s', is in use (%s): not finishing it", a->device, ns,
				    a->claim, why);
		why[0] = '\0';
	}

	room = why_room(snprintf(NULL, 0, CREATE_FAILED, a->device, a->claim));
	r = run->ops->create_namespace
		    ? run->ops->create_namespace(run->ctx, run->userdata, a->device, a->claim, why, room)
		    : -EOPNOTSUPP;
	k = created_read(run, a, ns, sizeof(ns), &devdax);
	if (k < 0)
		return reread_failed(run, k, a->device, "namespaces", r, why);
	if (devdax)
		return succeed(run, false, "%s: created devdax namespace %s named '%s'%s%s", a->device, ns, a->claim,
			       r < 0 ? "; the library then reported: " : "", op_why(r, why));
	if (r < 0)
		return fail(run, r, CREATE_FAILED "%s", a->device, a->claim, op_why(r, why));
	return fail(run, -EIO, "%s: creating a devdax namespace named '%s' took no effect%s%s", a->device, a->claim,
		    ns[0] ? ": not devdax yet: " : "", ns);
}

/* Whether memdev a->device is in the claim's CXL region (by UUID; a RAM region: the memdev's own of
 * one way), committed and enabled: 1, 0 when not (yet); the region's name in region ("" none). */
static int cxl_region_done(struct run *run, const struct pmemram_action *a, char *region, size_t size)
{
	_cleanup_(freep) struct pmemram_observed_memdev *m = NULL;
	_cleanup_(freep) struct pmemram_observed_cxl_region *c = NULL;
	size_t n_m = 0, n_c = 0;
	int r;

	region[0] = '\0';
	r = pmemram_cxl_memdevs_read(run->ctx, &m, &n_m);
	if (r >= 0)
		r = pmemram_cxl_regions_read(run->ctx, &c, &n_c);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_c; i++) {
		if (a->ram) {
			for (size_t k = 0; k < n_m; k++)
				if (streq(m[k].name, a->device) && streq(m[k].region, c[i].name)) {
					(void)snprintf(region, size, "%s", c[i].name);
					return c[i].ram && c[i].n_targets == 1 && c[i].committed && c[i].enabled;
				}
			continue;
		}
		if (!streq(c[i].uuid, a->uuid))
			continue;
		(void)snprintf(region, size, "%s", c[i].name);
		for (size_t k = 0; k < n_m; k++)
			if (streq(m[k].name, a->device))
				return streq(m[k].region, c[i].name) && c[i].committed && c[i].enabled;
	}
	return 0;
}

#define CXL_REGION_FAILED "%s: creating CXL region on %s failed: "

/* The claim's CXL region, once: one with its UUID, in whatever state, is finished, never another made. */
static int create_cxl_region(struct run *run, const struct pmemram_action *a)
{
	char region[32], why[PMEMRAM_PLAN_TEXT_MAX] = "";
	int r, k;

	r = cxl_region_done(run, a, region, sizeof(region));
	if (r < 0)
		return fail(run, r, "%s: cannot read its CXL regions: %s", a->device, strerror(-r));
	if (r > 0)
		return succeed(run, true, "%s: already in CXL region %s", a->device, region);
	r = run->ops->create_cxl_region
		    ? run->ops->create_cxl_region(run->ctx, run->userdata, a, run->cxl_record_dir, why,
						  why_room(snprintf(NULL, 0, CXL_REGION_FAILED, a->device, a->decoder)))
		    : -EOPNOTSUPP;
	k = cxl_region_done(run, a, region, sizeof(region));
	if (k < 0)
		return reread_failed(run, k, a->device, "CXL regions", r, why);
	if (k > 0)
		return succeed(run, false, "%s: created CXL region %s on %s%s%s", a->device, region, a->decoder,
			       r < 0 ? "; the library then reported: " : "", op_why(r, why));
	if (r < 0)
		return fail(run, r, CXL_REGION_FAILED "%s", a->device, a->decoder, op_why(r, why));
	return fail(run, -EIO, "%s: creating CXL region on %s took no effect%s%s", a->device, a->decoder,
		    region[0] ? ": not committed and enabled yet: " : "", region);
}

static int apply_one(struct run *run, const struct pmemram_action *a)
{
	switch (a->type) {
	case PMEMRAM_ACTION_CONVERT_NAMESPACE:
		return convert_namespace(run, a);
	case PMEMRAM_ACTION_CREATE_NAMESPACE:
		return create_namespace(run, a);
	case PMEMRAM_ACTION_CREATE_CXL_REGION:
		return create_cxl_region(run, a);
	case PMEMRAM_ACTION_DISABLE_DEVDAX:
		return device_rebind(run, a->device, "device_dax", "", run->ops->disable_devdax,
				     "disabling device_dax");
	case PMEMRAM_ACTION_BIND_KMEM:
		return bind_kmem(run, a);
	case PMEMRAM_ACTION_OFFLINE_BLOCK:
		return block_set(run, a->block, a->node, "offline",
				 a->zone != PMEMRAM_ZONE_NONE ? ZONE_OFFLINE_REZONE : ZONE_OFFLINE, BLOCK_SEEN);
	case PMEMRAM_ACTION_ONLINE_BLOCK:
		return apply_online(run, a);
	case PMEMRAM_ACTION_UNBIND_KMEM:
		return device_rebind(run, a->device, "kmem", "", run->ops->disable_kmem, "unbinding kmem");
	case PMEMRAM_ACTION_BIND_DEVDAX:
		return device_rebind(run, a->device, "", "device_dax", run->ops->enable_devdax, "binding device_dax");
	default:
		return fail(run, -EINVAL, "%s: unknown action type %d", a->device, (int)a->type);
	}
}

/* ---- the default ops: libdaxctl -------------------------------------------------------- */

/* The default ops' libdaxctl context lives in the pmemram context: making one enumerates every
 * region and device, and binding loads libkmod's configuration.  It is made again when the dax
 * devices listed since differ from the ones it was made from, or it does not know a device. */
struct daxctl_state {
	const struct daxctl_api *api;
	struct daxctl_ctx *dctx;
	uint64_t signature;
};

/* libdaxctl would print to stderr; library code logs at debug through the caller's function. */
_printf_(6, 0) static void daxctl_log(struct daxctl_ctx *dctx, int priority, const char *file, int line,
				      const char *fn, const char *format, va_list args)
{
	const struct daxctl_api *api;

	(void)priority;
	/* Only libdaxctl calls this, so it is loaded. */
	if (daxctl_api_get(NULL, &api) < 0)
		return;
	lib_log_forward(api->get_userdata(dctx), "libdaxctl", file, line, fn, format, args);
}

static void daxctl_state_free(void *p)
{
	struct daxctl_state *st = p;

	if (!st)
		return;
	st->api->unref(st->dctx);
	free(st);
}

static int daxctl_state_new(struct pmemram_ctx *ctx, struct daxctl_state **ret)
{
	const struct daxctl_api *api;
	struct daxctl_state *st;
	int r;

	r = daxctl_api_get(ctx, &api);
	if (r < 0)
		return r;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->api = api;
	r = api->new_ctx(&st->dctx);
	if (r < 0) {
		free(st);
		return log_debug_errno(ctx, r, "daxctl_new: %s", strerror(-r));
	}
	api->set_userdata(st->dctx, ctx);
	api->set_log_fn(st->dctx, daxctl_log);
	api->set_log_priority(st->dctx, pmemram_ctx_get_log_priority(ctx));
	st->signature = pmemram_ctx_get_dax_signature(ctx);
	pmemram_ctx_set_apply_state(ctx, st, daxctl_state_free);
	*ret = st;
	return 0;
}

static struct daxctl_dev *daxctl_dev_by_name(const struct daxctl_state *st, const char *device)
{
	const struct daxctl_api *api = st->api;

	for (struct daxctl_region *region = api->region_get_first(st->dctx); region;
	     region = api->region_get_next(region))
		for (struct daxctl_dev *dev = api->dev_get_first(region); dev; dev = api->dev_get_next(dev))
			if (streq_ptr(api->dev_get_devname(dev), device))
				return dev;
	return NULL;
}

static int daxctl_find_dev(struct pmemram_ctx *ctx, const char *device, const struct daxctl_api **ret_api,
			   struct daxctl_dev **ret)
{
	struct daxctl_state *st = pmemram_ctx_get_apply_state(ctx);
	struct daxctl_dev *dev = NULL;
	int r;

	if (st && st->signature == pmemram_ctx_get_dax_signature(ctx))
		dev = daxctl_dev_by_name(st, device);
	if (!dev) {
		r = daxctl_state_new(ctx, &st);
		if (r < 0)
			return r;
		dev = daxctl_dev_by_name(st, device);
	}
	if (!dev)
		return log_debug_errno(ctx, -ENODEV, "%s: libdaxctl does not list it", device);
	*ret_api = st->api;
	*ret = dev;
	return 0;
}

/* daxctl_dev_enable_ram() loads kmem (libkmod) and binds it (new_id + bind), nothing more: the
 * onlining is daxctl_memory_online()'s, which we never call, so blocks stay in the zone we pick. */
static int daxctl_enable_kmem(struct pmemram_ctx *ctx, _unused_ void *userdata, const char *device)
{
	const struct daxctl_api *api;
	struct daxctl_dev *dev;
	int r;

	r = daxctl_find_dev(ctx, device, &api, &dev);
	return r < 0 ? r : api->dev_enable_ram(dev);
}

/* daxctl_dev_enable_devdax() loads device_dax (libkmod) and binds it; it returns 0 without binding
 * when any driver is bound already, which the caller's re-read of the driver link catches. */
static int daxctl_enable_devdax(struct pmemram_ctx *ctx, _unused_ void *userdata, const char *device)
{
	const struct daxctl_api *api;
	struct daxctl_dev *dev;
	int r;

	r = daxctl_find_dev(ctx, device, &api, &dev);
	return r < 0 ? r : api->dev_enable_devdax(dev);
}

/* ---- the default ops: the dax bus's driver files ----------------------------------------- */

/*
 * A dax device changes driver through the dax bus's driver files, the writes libdaxctl makes: the
 * old driver's remove_id (it no longer claims the device by name) and unbind, then the new
 * driver's new_id and bind (dax_bind()).  libdaxctl resolves the device's sysfs path one component
 * at a time before each of its steps, over a hundred system calls a rebind on top of these writes;
 * it is called only for what the files cannot do: load a driver whose module is not loaded (no
 * directory of its own yet).
 */
#define DAX_DRIVERS_DIR "bus/dax/drivers"

static int dax_driver_write(struct pmemram_ctx *ctx, const char *driver, const char *file, const char *device)
{
	char path[PATH_MAX];
	int r;

	r = path_printf(path, sizeof(path), DAX_DRIVERS_DIR "/%s/%s", driver, file);
	return r < 0 ? r : sysfs_write_bounded(ctx, path, device, 0);
}

/* Unbind driver, which the caller read bound (device_rebind()): if another is bound by now, its
 * unbind fails (ENODEV) and nothing else is touched. */
static int dax_unbind(struct pmemram_ctx *ctx, const char *device, const char *driver)
{
	int r;

	/* A name the driver never had in its id table is no error: the kernel ignores it. */
	r = dax_driver_write(ctx, driver, "remove_id", device);
	return r < 0 ? r : dax_driver_write(ctx, driver, "unbind", device);
}

static int dax_unbind_devdax(struct pmemram_ctx *ctx, _unused_ void *userdata, const char *device)
{
	return dax_unbind(ctx, device, "device_dax");
}

static int dax_unbind_kmem(struct pmemram_ctx *ctx, _unused_ void *userdata, const char *device)
{
	return dax_unbind(ctx, device, "kmem");
}

/* A driver file that is not there (ENOENT): the driver is not registered, its module not loaded. */
static int dax_load_and_bind(struct pmemram_ctx *ctx, void *userdata, const char *device, const char *driver,
			     device_op load_and_bind)
{
	log_debug(ctx, "%s: no driver %s yet: loading it through libdaxctl", device, driver);
	pmemram_ctx_clear_error(ctx);
	return load_and_bind(ctx, userdata, device);
}

/*
 * Bind driver to the unbound device.  kmem takes only the devices in its id table: new_id names the
 * device and binds it there and then, and bind follows when it did not (bind says why).  A bind
 * that fails takes the name out of the table again: kmem's next new_id would bind this device too.
 * device_dax takes every dax device (match_always): bind alone, for its new_id binds every unbound
 * dax device, one another program unbound for its own kmem bind included; new_id only when bind
 * finds no match (ENODEV).
 */
static int dax_bind(struct pmemram_ctx *ctx, void *userdata, const char *device, const char *driver, bool match_always,
		    device_op load_and_bind)
{
	char have[64];
	int r;

	if (match_always) {
		r = dax_driver_write(ctx, driver, "bind", device);
		if (r == -ENOENT)
			return dax_load_and_bind(ctx, userdata, device, driver, load_and_bind);
		if (r != -ENODEV)
			return r;
		pmemram_ctx_clear_error(ctx);
	}
	r = dax_driver_write(ctx, driver, "new_id", device);
	if (r == -ENOENT)
		return dax_load_and_bind(ctx, userdata, device, driver, load_and_bind);
	if (r < 0)
		return r;
	r = dax_driver_read(ctx, device, have, sizeof(have));
	if (r < 0 || streq(have, driver))
		return r;
	r = dax_driver_write(ctx, driver, "bind", device);
	if (r < 0 && dax_driver_write(ctx, driver, "remove_id", device) < 0)
		log_debug(ctx, "%s: cannot take it out of %s's id table after the failed bind", device, driver);
	return r;
}

static int dax_bind_kmem(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	return dax_bind(ctx, userdata, device, "kmem", false, daxctl_enable_kmem);
}

static int dax_bind_devdax(struct pmemram_ctx *ctx, void *userdata, const char *device)
{
	return dax_bind(ctx, userdata, device, "device_dax", true, daxctl_enable_devdax);
}

const struct pmemram_apply_ops pmemram_apply_default_ops = {
	.disable_devdax = dax_unbind_devdax,
	.enable_kmem = dax_bind_kmem,
	.convert_namespace = pmemram_ndctl_convert_namespace,
	.create_namespace = pmemram_ndctl_create_namespace,
	.create_cxl_region = pmemram_cxl_create_region,
	.set_block_state = pmemram_apply_write_block_state,
	.disable_kmem = dax_unbind_kmem,
	.enable_devdax = dax_bind_devdax,
};

/* ---- the run ------------------------------------------------------------------------------ */

int pmemram_apply(struct pmemram_ctx *ctx, const struct pmemram_action *actions, size_t n_actions,
		  const struct pmemram_apply_options *options, struct pmemram_apply_report **ret_report)
{
	_cleanup_(pmemram_apply_report_freep) struct pmemram_apply_report *report = NULL;
	static const struct pmemram_apply_options no_options = {};
	const struct pmemram_apply_options *o = options ? options : &no_options;
	struct run run = { .ctx = ctx };
	char line[PMEMRAM_PLAN_TEXT_MAX];
	int r = 0;

	if (!ctx || (!actions && n_actions > 0) || !ret_report)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);

	report = calloc(1, sizeof(*report));
	if (!report)
		return -ENOMEM;
	report->failed = -1;
	if (n_actions > 0) {
		report->results = calloc(n_actions, sizeof(*report->results));
		if (!report->results)
			return -ENOMEM;
	}
	report->n_results = n_actions;

	run.ops = o->ops ? o->ops : &pmemram_apply_default_ops;
	run.userdata = o->ops ? o->ops_userdata : NULL;
	run.record = o->auto_online_record;
	run.cxl_record_dir = o->cxl_record_dir;

	for (size_t i = 0; i < n_actions; i++) {
		run.res = &report->results[i];
		run.res->action = actions[i];
		run.res->state_before = run.res->zone_before = -1;

		if (r < 0) {
			finish(&run, PMEMRAM_APPLY_SKIPPED, 0, "not attempted: %s",
			       report->changed ? "the device changed since it was read" : "an earlier action failed");
			continue;
		}
		if (o->progress)
			o->progress(ctx, &actions[i], i, n_actions, o->progress_userdata);

		if (o->dry_run) {
			if (!pmemram_action_describe(&actions[i], line, sizeof(line)))
				(void)snprintf(line, sizeof(line), "%s: unknown action type %d", actions[i].device,
					       (int)actions[i].type);
			finish(&run, PMEMRAM_APPLY_DRY_RUN, 0, "%s", line);
			continue;
		}

		r = apply_one(&run, &actions[i]);
		if (actions[i].type == PMEMRAM_ACTION_BIND_KMEM && run.res->status == PMEMRAM_APPLY_DONE)
			(void)snprintf(run.bound, sizeof(run.bound), "%s", actions[i].device);
		if (run.res->status == PMEMRAM_APPLY_CHANGED)
			report->changed = true;
		else if (r < 0)
			report->failed = (long)i;
		else
			report->n_done++;
		if (o->done)
			o->done(ctx, run.res, o->done_userdata);
	}

	*ret_report = TAKE_PTR(report);
	return r;
}
