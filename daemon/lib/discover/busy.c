/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who uses pmem: processes mapping or holding open dax devices and pmem disks; mounts, swap, holders. */
#include <limits.h>
#include <pthread.h>
#include <stdio_ext.h>
#include <unistd.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

#define DEV_PREFIX "/dev/"
#define DELETED_SUFFIX " (deleted)"

/* Skip n whitespace-separated fields (and the blanks after them); NULL when the line ends first. */
static const char *skip_fields(const char *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		size_t len = strcspn(p, " \t\n");

		if (len == 0)
			return NULL;
		p += len;
		p += strspn(p, " \t");
	}
	return p;
}

int pmemram_parse_maps_line(const char *line, const char **ret_path, size_t *ret_len)
{
	const char *path;
	size_t len;

	if (!line || !ret_path || !ret_len)
		return -EINVAL;

	/* "7f..-7f.. rw-s 00000000 00:05 123      /dev/dax0.0": address perms offset dev inode path */
	if (!strchr(line, '-') || strcspn(line, " ") > 2 * 16 + 1)
		return -EINVAL;
	path = skip_fields(line, 5);
	if (!path) {
		/* Anonymous mapping: five fields and nothing after them. */
		if (!skip_fields(line, 4))
			return -EINVAL;
		*ret_path = line + strlen(line);
		*ret_len = 0;
		return 0;
	}

	len = strcspn(path, "\n");
	if (len > strlen(DELETED_SUFFIX) && strncmp(path + len - strlen(DELETED_SUFFIX), DELETED_SUFFIX,
						    strlen(DELETED_SUFFIX)) == 0)
		len -= strlen(DELETED_SUFFIX);

	*ret_path = path;
	*ret_len = len;
	return 0;
}

static int parse_uint(const char *s, size_t len, unsigned *ret)
{
	char buf[16];
	uint64_t v;
	int r;

	if (len == 0 || copy_span(buf, sizeof(buf), s, len) < 0)
		return -EINVAL;
	r = pmemram_parse_u64(buf, 10, &v);
	if (r < 0)
		return r;
	if (v > UINT_MAX)
		return -ERANGE;
	*ret = (unsigned)v;
	return 0;
}

int pmemram_parse_mountinfo_line(const char *line, struct pmemram_mountinfo *ret)
{
	struct pmemram_mountinfo m = {};
	const char *p, *colon, *sep;
	size_t len;
	int r;

	if (!line || !ret)
		return -EINVAL;

	/* "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue" */
	p = skip_fields(line, 2);
	if (!p)
		return -EINVAL;
	len = strcspn(p, " \t\n");
	colon = memchr(p, ':', len);
	if (!colon)
		return -EINVAL;
	r = parse_uint(p, (size_t)(colon - p), &m.major);
	if (r < 0)
		return r;
	r = parse_uint(colon + 1, len - (size_t)(colon - p) - 1, &m.minor);
	if (r < 0)
		return r;

	/* Optional fields end at a lone "-"; then fstype, then source. */
	sep = strstr(p, " - ");
	if (!sep)
		return -EINVAL;
	p = skip_fields(sep + 3, 1);
	if (!p)
		return -EINVAL;
	len = strcspn(p, " \t\n");
	if (len == 0)
		return -EINVAL;
	(void)copy_span(m.source, sizeof(m.source), p, len); /* too long: stays "" */

	*ret = m;
	return 0;
}

int pmemram_parse_block_link(const char *target, char *buf, size_t size)
{
	const char *p = NULL;
	size_t len;

	if (!target || !buf || size == 0)
		return -EINVAL;

	/* The last "/block/" component: disks live in .../block/NAME, partitions below them. */
	for (const char *q = target; (q = strstr(q, "/block/")); q++)
		p = q + strlen("/block/");
	if (!p)
		return -EINVAL;
	len = strcspn(p, "/");
	if (len == 0)
		return -EINVAL;
	return copy_span(buf, size, p, len);
}

bool pmemram_blockdev_is_on(const char *name, const char *disk)
{
	size_t len;

	if (!name || !disk || !*disk)
		return false;
	if (strncmp(name, DEV_PREFIX, strlen(DEV_PREFIX)) == 0)
		name += strlen(DEV_PREFIX);

	len = strlen(disk);
	if (strncmp(name, disk, len) != 0)
		return false;
	name += len;
	if (!*name)
		return true;

	/* Partitions: "p<N>" after a disk name ending in a digit (pmem0p1), "<N>" otherwise (pmem0s1). */
	if (disk[len - 1] >= '0' && disk[len - 1] <= '9') {
		if (*name != 'p')
			return false;
		name++;
	}
	return *name && strspn(name, "0123456789") == strlen(name);
}

/* ---- /proc/PID/maps -------------------------------------------------------------------- */

/* Getline over a file below a procfs path, read 64 KiB at a time (stdio would read procfs files
 * 1 KiB at a time: a read() each for every 1 KiB of a process's maps); frees both buffers when done. */
#define LINE_READER_BUFFER (64 * 1024)

struct line_reader {
	FILE *f;
	char *buffer;
	char *line;
	size_t size;
	size_t len; /* of line, its newline (when it has one) included */
};

static void line_reader_done(struct line_reader *lr)
{
	if (lr->f)
		(void)fclose(lr->f);
	free(lr->buffer);
	free(lr->line);
	*lr = (struct line_reader){};
}

static int line_reader_open(struct pmemram_ctx *ctx, const char *path, struct line_reader *lr)
{
	int r;

	lr->buffer = malloc(LINE_READER_BUFFER);
	if (!lr->buffer)
		return -ENOMEM;
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, path, &lr->f);
	if (r < 0)
		return r;
	if (setvbuf(lr->f, lr->buffer, _IOFBF, LINE_READER_BUFFER) != 0)
		return -ENOMEM;
	/* One thread reads it: no lock taken and released around every line. */
	(void)__fsetlocking(lr->f, FSETLOCKING_BYCALLER);
	return 0;
}

/* 1 with lr->line, 0 at the end, -errno on a read error. */
static int line_reader_next(struct line_reader *lr)
{
	ssize_t n;

	errno = 0;
	n = getline(&lr->line, &lr->size, lr->f);
	if (n >= 0) {
		lr->len = (size_t)n;
		return 1;
	}
	return errno ? negative_errno() : 0;
}

static struct pmemram_observed_dax *find_dax(struct pmemram_observed_dax *devices, size_t n, const char *path,
					     size_t len)
{
	const size_t plen = strlen(DEV_PREFIX);

	if (len <= plen || strncmp(path, DEV_PREFIX, plen) != 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strlen(devices[i].dax.name) == len - plen && strncmp(path + plen, devices[i].dax.name, len - plen) == 0)
			return &devices[i];
	return NULL;
}

/* What the scan looks for: dax devices, and the block devices of namespaces. */
struct targets {
	struct pmemram_observed_dax *devices;
	size_t n_devices;
	struct pmemram_observed_namespace *namespaces;
	size_t n_namespaces;
};

void pmemram_process_name(struct pmemram_ctx *ctx, const char *pid, char *buf, size_t size)
{
	char path[64], comm[32];

	if (path_printf(path, sizeof(path), "%s/comm", pid) < 0 ||
	    root_read_string(ctx, PMEMRAM_ROOT_PROCFS, path, comm, sizeof(comm)) < 0) {
		pmemram_ctx_clear_error(ctx);
		comm[0] = '\0';
	}
	if (comm[0])
		(void)snprintf(buf, size, "pid %s (%s)", pid, comm);
	else
		(void)snprintf(buf, size, "pid %s", pid);
}

/* A namespace whose block device (or a partition) is the descriptor's target, held open. */
static void mark_ns_open(struct pmemram_ctx *ctx, const struct targets *t, const char *target, const char *pid)
{
	char who[48];

	if (strncmp(target, DEV_PREFIX, strlen(DEV_PREFIX)) != 0)
		return;
	for (size_t i = 0; i < t->n_namespaces; i++) {
		struct pmemram_observed_namespace *ns = &t->namespaces[i];

		if (ns->in_use[0] || !pmemram_blockdev_is_on(target, ns->blockdev))
			continue;
		pmemram_process_name(ctx, pid, who, sizeof(who));
		(void)snprintf(ns->in_use, sizeof(ns->in_use), "%.40s open by %s", target, who);
		log_debug(ctx, "%s: %s", ns->name, ns->in_use);
	}
}

/* Name d's user "pid N (comm)", or "pid N" when its comm cannot be read. */
static void mark_used(struct pmemram_ctx *ctx, struct pmemram_observed_dax *d, const char *pid, bool open_only)
{
	d->mapped = true;
	d->open_only = open_only;
	pmemram_process_name(ctx, pid, d->mapped_by, sizeof(d->mapped_by));
	log_debug(ctx, "%s %s by %s", d->dax.name, open_only ? "open" : "mapped", d->mapped_by);
}

/* Whether r is how procfs says a process is gone (0) or not ours to look at (1); else -1. */
static int process_unreadable(struct pmemram_ctx *ctx, int r)
{
	if (r != -ENOENT && r != -ESRCH && r != -EACCES && r != -EPERM)
		return -1;
	pmemram_ctx_clear_error(ctx);
	return r == -EACCES || r == -EPERM;
}

/* The process's open files (/proc/PID/fd/N links): a program may open /dev/daxX.Y long before it
 * maps it, and unbinding device_dax under it would hand its persistent data to the kernel as RAM.
 * 1 when the descriptors could not be read, 0 otherwise. */
static int scan_fds(struct pmemram_ctx *ctx, const char *pid, const struct targets *t)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir fds = {};
	char path[64], target[PATH_MAX];
	int r;

	r = path_printf(path, sizeof(path), "%s/fd", pid);
	if (r < 0)
		return r;
	r = root_dir_read(ctx, PMEMRAM_ROOT_PROCFS, path, "", PMEMRAM_MAX_FDS, &fds);
	if (r < 0) {
		int u = process_unreadable(ctx, r);

		return u < 0 ? r : u;
	}

	for (size_t i = 0; i < fds.n; i++) {
		struct pmemram_observed_dax *d;

		r = path_printf(path, sizeof(path), "%s/fd/%s", pid, fds.names[i]);
		if (r < 0)
			return r;
		r = root_readlink(ctx, PMEMRAM_ROOT_PROCFS, path, target, sizeof(target));
		if (r < 0) {
			/* Closed since the listing, or the process is gone: nothing held there. */
			if (process_unreadable(ctx, r) < 0)
				return r;
			continue;
		}
		d = find_dax(t->devices, t->n_devices, target, strlen(target));
		if (d && !d->mapped)
			mark_used(ctx, d, pid, true);
		mark_ns_open(ctx, t, target, pid);
	}
	return 0;
}

/* Scan one process; 1 when its maps or descriptors could not be read, 0 otherwise. */
static int scan_process(struct pmemram_ctx *ctx, const char *pid, const struct targets *t)
{
	_cleanup_(line_reader_done) struct line_reader lr = {};
	char path[64], exe[PATH_MAX];
	int r, u;

	/* A kernel thread has no memory map and no files, and no exe link (ENOENT, as for a zombie or
	 * a process gone since readdir): one readlink instead of reading its maps and descriptors.
	 * EACCES (someone else's process, for a caller without root) is scanned as any other. */
	r = path_printf(path, sizeof(path), "%s/exe", pid);
	if (r < 0)
		return r;
	r = root_readlink(ctx, PMEMRAM_ROOT_PROCFS, path, exe, sizeof(exe));
	if (r == -ENOENT) {
		pmemram_ctx_clear_error(ctx);
		return 0;
	}
	pmemram_ctx_clear_error(ctx);

	r = path_printf(path, sizeof(path), "%s/maps", pid);
	if (r < 0)
		return r;
	r = line_reader_open(ctx, path, &lr);
	if (r < 0) {
		/* Gone since readdir: nothing to see; not ours to read: say so. */
		u = process_unreadable(ctx, r);
		return u < 0 ? r : u;
	}

	while ((r = line_reader_next(&lr)) > 0) {
		struct pmemram_observed_dax *d;
		const char *mapped;
		size_t len;

		/* Only a file below /dev can be a dax device: the other lines (a process's libraries
		 * and anonymous memory, most of them) are passed over without being parsed. */
		if (!memmem(lr.line, lr.len, DEV_PREFIX, strlen(DEV_PREFIX)))
			continue;
		if (pmemram_parse_maps_line(lr.line, &mapped, &len) < 0)
			continue;
		d = find_dax(t->devices, t->n_devices, mapped, len);
		if (d && (!d->mapped || d->open_only))
			mark_used(ctx, d, pid, false);
	}
	/* A process exiting while we read: its maps end early; it maps nothing any more. */
	if (r == -ESRCH)
		r = 0;
	if (r < 0)
		return r;
	return scan_fds(ctx, pid, t);
}

/*
 * The scan is the one step between a request and the first unbind that grows with the machine: the
 * kernel formats every process's maps.  It is spread over up to SCAN_THREADS_MAX threads, one per
 * SCAN_PROCESSES_PER_THREAD processes and CPU, the processes dealt out in turns.  Each thread has
 * its own context and its own copy of the targets, merged when all are done: which user names a
 * device may differ from a scan in one thread, whether it has one does not.
 */
#define SCAN_THREADS_MAX 4
#define SCAN_PROCESSES_PER_THREAD 16

struct scan_part {
	struct pmemram_ctx *ctx;
	struct targets t;
	const struct sysfs_dir *pids;
	const char *self; /* the scanning process's pid, "" when procfs does not say */
	size_t first, step;
	size_t unreadable;
	int r;
};

static void scan_part_run(struct scan_part *part)
{
	for (size_t i = part->first; i < part->pids->n; i += part->step) {
		int r;

		if (streq(part->pids->names[i], part->self))
			continue;
		r = scan_process(part->ctx, part->pids->names[i], &part->t);

		if (r < 0) {
			part->r = r;
			return;
		}
		part->unreadable += (size_t)r;
	}
}

static void *scan_part_thread(void *arg)
{
	scan_part_run(arg);
	return NULL;
}

static void scan_part_done(struct scan_part *part)
{
	pmemram_ctx_unref(part->ctx);
	free(part->t.devices);
	free(part->t.namespaces);
}

/* A worker's part: its context, and copies of the targets as they are before the scan. */
static int scan_part_new(struct pmemram_ctx *ctx, const struct targets *t, struct scan_part *part)
{
	int r;

	r = pmemram_ctx_new_worker(ctx, &part->ctx);
	if (r < 0)
		return r;
	part->t = (struct targets){ .n_devices = t->n_devices, .n_namespaces = t->n_namespaces };
	if (t->n_devices > 0) {
		part->t.devices = malloc(t->n_devices * sizeof(*t->devices));
		if (!part->t.devices)
			return -ENOMEM;
		memcpy(part->t.devices, t->devices, t->n_devices * sizeof(*t->devices));
	}
	if (t->n_namespaces > 0) {
		part->t.namespaces = malloc(t->n_namespaces * sizeof(*t->namespaces));
		if (!part->t.namespaces)
			return -ENOMEM;
		memcpy(part->t.namespaces, t->namespaces, t->n_namespaces * sizeof(*t->namespaces));
	}
	return 0;
}

/* What a worker found, into the caller's targets: a mapping outranks a descriptor. */
static void scan_part_merge(struct pmemram_ctx *ctx, const struct targets *t, const struct scan_part *part)
{
	for (size_t i = 0; i < t->n_devices; i++) {
		struct pmemram_observed_dax *d = &t->devices[i];
		const struct pmemram_observed_dax *w = &part->t.devices[i];

		if (w->mapped && (!d->mapped || (d->open_only && !w->open_only))) {
			d->mapped = true;
			d->open_only = w->open_only;
			memcpy(d->mapped_by, w->mapped_by, sizeof(d->mapped_by));
		}
	}
	for (size_t i = 0; i < t->n_namespaces; i++)
		if (!t->namespaces[i].in_use[0])
			memcpy(t->namespaces[i].in_use, part->t.namespaces[i].in_use, sizeof(t->namespaces[i].in_use));
	pmemram_ctx_merge_worker(ctx, part->ctx);
}

static size_t scan_threads(size_t n_pids)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = n_pids / SCAN_PROCESSES_PER_THREAD;

	if (cpus > 0 && n > (size_t)cpus)
		n = (size_t)cpus;
	return n > SCAN_THREADS_MAX ? SCAN_THREADS_MAX : n < 1 ? 1 : n;
}

int pmemram_users_scan(struct pmemram_ctx *ctx, struct pmemram_observed_dax *devices, size_t n,
		       struct pmemram_observed_namespace *namespaces, size_t n_namespaces, size_t *ret_unreadable)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir pids = {};
	const struct targets t = { devices, n, namespaces, n_namespaces };
	struct scan_part parts[SCAN_THREADS_MAX] = {};
	pthread_t threads[SCAN_THREADS_MAX];
	bool started[SCAN_THREADS_MAX] = {};
	size_t n_parts, unreadable = 0;
	char self[32];
	int r = 0;

	if (!ctx || (n > 0 && !devices) || (n_namespaces > 0 && !namespaces) || !ret_unreadable)
		return -EINVAL;
	if (n + n_namespaces == 0) {
		*ret_unreadable = 0;
		return 0;
	}

	r = root_dir_read(ctx, PMEMRAM_ROOT_PROCFS, ".", "", PMEMRAM_MAX_PROCESSES, &pids);
	if (r < 0)
		return r;
	/* pmemram holds no dax device or pmem disk open or mapped while it scans (a conversion's
	 * libndctl opens the disk later, briefly): its own process is passed over, one readlink
	 * instead of its maps and each of its descriptors (the daemon's sockets). */
	if (root_readlink(ctx, PMEMRAM_ROOT_PROCFS, "self", self, sizeof(self)) < 0) {
		pmemram_ctx_clear_error(ctx);
		self[0] = '\0';
	}

	n_parts = scan_threads(pids.n);
	parts[0] = (struct scan_part){ .ctx = ctx, .t = t };
	for (size_t i = 1; i < n_parts && r >= 0; i++)
		r = scan_part_new(ctx, &t, &parts[i]);
	for (size_t i = 0; i < n_parts && r >= 0; i++) {
		parts[i].pids = &pids;
		parts[i].self = self;
		parts[i].first = i;
		parts[i].step = n_parts;
		/* A thread that cannot start leaves its part to the caller's thread. */
		started[i] = i > 0 && pthread_create(&threads[i], NULL, scan_part_thread, &parts[i]) == 0;
	}
	for (size_t i = 0; i < n_parts && r >= 0; i++)
		if (!started[i])
			scan_part_run(&parts[i]);
	for (size_t i = 1; i < n_parts; i++) {
		if (started[i])
			(void)pthread_join(threads[i], NULL);
		if (r >= 0 && parts[i].ctx)
			scan_part_merge(ctx, &t, &parts[i]);
		scan_part_done(&parts[i]);
	}
	if (r < 0)
		return r;

	for (size_t i = 0; i < n_parts; i++) {
		if (parts[i].r < 0)
			return parts[i].r;
		unreadable += parts[i].unreadable;
	}
	log_debug(ctx, "%zu processes scanned in %zu thread%s, %zu unreadable", pids.n, n_parts,
		  n_parts == 1 ? "" : "s", unreadable);
	*ret_unreadable = unreadable;
	return 0;
}

/* ---- swap and holders ---------------------------------------------------------------- */

/* Namespaces whose block device (or a partition) is swap: the first word of /proc/swaps lines. */
static int scan_swaps(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n)
{
	_cleanup_(line_reader_done) struct line_reader lr = {};
	int r;

	r = line_reader_open(ctx, "swaps", &lr);
	if (r == -ENOENT) {
		pmemram_ctx_clear_error(ctx); /* a kernel without swap */
		return 0;
	}
	if (r < 0)
		return r;
	while ((r = line_reader_next(&lr)) > 0) {
		char name[48]; /* longer is no pmem disk or partition */

		if (copy_span(name, sizeof(name), lr.line, strcspn(lr.line, " \t\n")) < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (!namespaces[i].in_use[0] && pmemram_blockdev_is_on(name, namespaces[i].blockdev)) {
				(void)snprintf(namespaces[i].in_use, sizeof(namespaces[i].in_use), "%s is swap", name);
				log_debug(ctx, "%s: %s", namespaces[i].name, namespaces[i].in_use);
			}
	}
	return r;
}

/* The first holder (dm, md, bcache...) of class/block/NAME, if any; 0 when none. */
static int first_holder(struct pmemram_ctx *ctx, const char *name, char *buf, size_t size)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir holders = {};
	char path[96];
	int r;

	r = path_printf(path, sizeof(path), "class/block/%s/holders", name);
	if (r < 0)
		return r;
	r = root_dir_read_suffix(ctx, PMEMRAM_ROOT_SYSFS, path, "", 1, &holders);
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;
	if (holders.n == 0)
		return 0;
	(void)snprintf(buf, size, "%s", holders.names[0]);
	return 1;
}

/* Namespaces whose block device or a partition of it is held by another block device. */
static int scan_holders(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir disks = {};
	int r;

	r = root_dir_read_suffix(ctx, PMEMRAM_ROOT_SYSFS, "class/block", "", PMEMRAM_MAX_NAMESPACES * 16, &disks);
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct pmemram_observed_namespace *ns = &namespaces[i];

		for (size_t k = 0; k < disks.n && !ns->in_use[0]; k++) {
			char holder[32];

			if (!pmemram_blockdev_is_on(disks.names[k], ns->blockdev))
				continue;
			r = first_holder(ctx, disks.names[k], holder, sizeof(holder));
			if (r < 0)
				return r;
			if (r > 0) {
				(void)snprintf(ns->in_use, sizeof(ns->in_use), "/dev/%s held by %s", disks.names[k],
					       holder);
				log_debug(ctx, "%s: %s", ns->name, ns->in_use);
			}
		}
	}
	return 0;
}

int pmemram_blockdev_users_scan(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n)
{
	int r;

	if (!ctx || (n > 0 && !namespaces))
		return -EINVAL;
	if (n == 0)
		return 0;
	r = scan_swaps(ctx, namespaces, n);
	if (r < 0)
		return r;
	return scan_holders(ctx, namespaces, n);
}

/* ---- /proc/self/mountinfo ---------------------------------------------------------------- */

static void mark_mounted(struct pmemram_observed_namespace *namespaces, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!namespaces[i].mounted && pmemram_blockdev_is_on(name, namespaces[i].blockdev))
			namespaces[i].mounted = true;
}

int pmemram_mounts_scan(struct pmemram_ctx *ctx, struct pmemram_observed_namespace *namespaces, size_t n)
{
	_cleanup_(line_reader_done) struct line_reader lr = {};
	int r;

	if (!ctx || (n > 0 && !namespaces))
		return -EINVAL;
	if (n == 0)
		return 0;

	r = line_reader_open(ctx, "self/mountinfo", &lr);
	if (r < 0)
		return r;

	while ((r = line_reader_next(&lr)) > 0) {
		struct pmemram_mountinfo m;
		char link[96], target[PATH_MAX], disk[64];

		if (pmemram_parse_mountinfo_line(lr.line, &m) < 0) {
			log_debug(ctx, "unparsable mountinfo line: %s", lr.line);
			continue;
		}
		/* The source catches filesystems with anonymous device numbers (btrfs). */
		mark_mounted(namespaces, n, m.source);
		if (m.major == 0)
			continue;

		r = path_printf(link, sizeof(link), "dev/block/%u:%u", m.major, m.minor);
		if (r < 0)
			return r;
		r = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, link, target, sizeof(target));
		if (sysfs_absent(ctx, r))
			continue;
		if (r < 0)
			return r;
		if (pmemram_parse_block_link(target, disk, sizeof(disk)) >= 0)
			mark_mounted(namespaces, n, disk);
	}
	if (r < 0)
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_PROCFS, "self/mountinfo");
	return r;
}
