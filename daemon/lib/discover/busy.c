/* Who uses pmem: processes mapping or holding open /dev/daxX.Y (/proc/PID/maps, fd/) and mounted pmem disks. */
#include <limits.h>

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

/* Getline over a file below a root; frees the buffer when done. */
struct line_reader {
	FILE *f;
	char *line;
	size_t size;
};

static void line_reader_done(struct line_reader *lr)
{
	if (lr->f)
		(void)fclose(lr->f);
	free(lr->line);
	*lr = (struct line_reader){};
}

/* 1 with lr->line, 0 at the end, -errno on a read error. */
static int line_reader_next(struct line_reader *lr)
{
	errno = 0;
	if (getline(&lr->line, &lr->size, lr->f) >= 0)
		return 1;
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

/* Name d's user "pid N (comm)", or "pid N" when its comm cannot be read. */
static void mark_used(struct pmemram_ctx *ctx, struct pmemram_observed_dax *d, const char *pid, bool open_only)
{
	char path[64], comm[32];

	d->mapped = true;
	d->open_only = open_only;
	if (path_printf(path, sizeof(path), "%s/comm", pid) < 0 ||
	    root_read_string(ctx, PMEMRAM_ROOT_PROCFS, path, comm, sizeof(comm)) < 0) {
		pmemram_ctx_clear_error(ctx);
		comm[0] = '\0';
	}
	if (comm[0])
		snprintf(d->mapped_by, sizeof(d->mapped_by), "pid %s (%s)", pid, comm);
	else
		snprintf(d->mapped_by, sizeof(d->mapped_by), "pid %s", pid);
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
static int scan_fds(struct pmemram_ctx *ctx, const char *pid, struct pmemram_observed_dax *devices, size_t n)
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
		d = find_dax(devices, n, target, strlen(target));
		if (d && !d->mapped)
			mark_used(ctx, d, pid, true);
	}
	return 0;
}

/* Scan one process; 1 when its maps or descriptors could not be read, 0 otherwise. */
static int scan_process(struct pmemram_ctx *ctx, const char *pid, struct pmemram_observed_dax *devices, size_t n)
{
	_cleanup_(line_reader_done) struct line_reader lr = {};
	char path[64];
	int r, u;

	r = path_printf(path, sizeof(path), "%s/maps", pid);
	if (r < 0)
		return r;
	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, path, &lr.f);
	if (r < 0) {
		/* Gone since readdir: nothing to see; not ours to read: say so. */
		u = process_unreadable(ctx, r);
		return u < 0 ? r : u;
	}

	while ((r = line_reader_next(&lr)) > 0) {
		struct pmemram_observed_dax *d;
		const char *mapped;
		size_t len;

		if (pmemram_parse_maps_line(lr.line, &mapped, &len) < 0)
			continue;
		d = find_dax(devices, n, mapped, len);
		if (d && (!d->mapped || d->open_only))
			mark_used(ctx, d, pid, false);
	}
	/* A process exiting while we read: its maps end early; it maps nothing any more. */
	if (r == -ESRCH)
		r = 0;
	if (r < 0)
		return r;
	return scan_fds(ctx, pid, devices, n);
}

int pmemram_dax_users_scan(struct pmemram_ctx *ctx, struct pmemram_observed_dax *devices, size_t n,
			   size_t *ret_unreadable)
{
	_cleanup_(sysfs_dir_done) struct sysfs_dir pids = {};
	size_t unreadable = 0;
	int r;

	if (!ctx || (n > 0 && !devices) || !ret_unreadable)
		return -EINVAL;
	if (n == 0) {
		*ret_unreadable = 0;
		return 0;
	}

	r = root_dir_read(ctx, PMEMRAM_ROOT_PROCFS, ".", "", PMEMRAM_MAX_PROCESSES, &pids);
	if (r < 0)
		return r;

	for (size_t i = 0; i < pids.n; i++) {
		r = scan_process(ctx, pids.names[i], devices, n);
		if (r < 0)
			return r;
		unreadable += (size_t)r;
	}

	log_debug(ctx, "%zu processes scanned, %zu unreadable", pids.n, unreadable);
	*ret_unreadable = unreadable;
	return 0;
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

	r = root_fopen(ctx, PMEMRAM_ROOT_PROCFS, "self/mountinfo", &lr.f);
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
