/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sysfs attribute I/O relative to the context's root directory handles (openat-based). */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "pmemram-private.h"

int path_printf(char *buf, size_t size, const char *format, ...)
{
	va_list args;
	int n;

	va_start(args, format);
	n = vsnprintf(buf, size, format, args);
	va_end(args);

	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

const char *sysfs_join(char *buf, size_t size, const char *dir, const char *attr)
{
	return path_printf(buf, size, "%s/%s", dir, attr) < 0 ? NULL : buf;
}

/* Record the failing path and hand the error back, logging at debug. */
static int fail_in(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, int r)
{
	pmemram_ctx_set_error_path_in(ctx, which, path);
	return log_debug_errno(ctx, r, "%s: %s", path, strerror(r < 0 ? -r : r));
}

static int fail(struct pmemram_ctx *ctx, const char *path, int r)
{
	return fail_in(ctx, PMEMRAM_ROOT_SYSFS, path, r);
}

/* openat() below a root; -errno (recorded) on failure. */
static int root_open(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, int flags)
{
	int dir_fd, fd;

	dir_fd = pmemram_ctx_get_root_fd(ctx, which);
	if (dir_fd < 0)
		return dir_fd;
	pmemram_ctx_count_access(ctx, which);
	fd = openat(dir_fd, path, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail_in(ctx, which, path, negative_errno());
	return fd;
}

int root_fopen(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, FILE **ret)
{
	FILE *f;
	int fd;

	if (!ctx || !path || !ret)
		return -EINVAL;

	/* O_NONBLOCK: a FIFO where a file should be must not hang us. */
	fd = root_open(ctx, which, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "re");
	if (!f) {
		int r = negative_errno();

		safe_close(fd);
		return fail_in(ctx, which, path, r);
	}
	*ret = f;
	return 0;
}

bool sysfs_absent(struct pmemram_ctx *ctx, int r)
{
	if (r != -ENOENT)
		return false;
	pmemram_ctx_clear_error(ctx);
	return true;
}

int root_read_string(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, char *buf, size_t size)
{
	_cleanup_(closep) int fd = -1;
	size_t len = 0;

	if (!ctx || !path || !buf || size < 2)
		return -EINVAL;

	fd = root_open(ctx, which, path, O_RDONLY);
	if (fd < 0)
		return fd;

	for (;;) {
		ssize_t k;

		if (len >= size - 1)
			return fail_in(ctx, which, path, -E2BIG);

		k = read(fd, buf + len, size - 1 - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return fail_in(ctx, which, path, negative_errno());
		}
		if (k == 0)
			break;
		len += (size_t)k;
		/* A sysfs attribute is one show() into one page, and the cgroup files read here
		 * (memory.low) are one value too: a read that returned less than it asked for returned
		 * all of it, and a second read would only find the end.  Not so in procfs, whose files
		 * of many records return one kernel buffer's worth per read; a binary attribute or a
		 * cgroup file of many records would need the loop as well. */
		if (which == PMEMRAM_ROOT_SYSFS && len < size - 1)
			break;
	}

	/* A NUL inside an attribute means it is not text. */
	if (memchr(buf, '\0', len))
		return fail_in(ctx, which, path, -EINVAL);

	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return 0;
}

int sysfs_read_string(struct pmemram_ctx *ctx, const char *path, char *buf, size_t size)
{
	return root_read_string(ctx, PMEMRAM_ROOT_SYSFS, path, buf, size);
}

/* Read an attribute and hand it to a pure parser; parse failures name the file too. */
#define DEFINE_SYSFS_READ(name, type, parse_call)                                       \
	int name(struct pmemram_ctx *ctx, const char *path, type *ret)                  \
	{                                                                               \
		char buf[SYSFS_ATTR_MAX];                                               \
		type value;                                                             \
		int r;                                                                  \
                                                                                        \
		r = sysfs_read_string(ctx, path, buf, sizeof(buf));                     \
		if (r < 0)                                                              \
			return r;                                                       \
		r = parse_call;                                                         \
		if (r < 0)                                                              \
			return fail(ctx, path, r);                                      \
		*ret = value;                                                           \
		return 0;                                                               \
	}

DEFINE_SYSFS_READ(sysfs_read_u64, uint64_t, pmemram_parse_u64(buf, 10, &value))
DEFINE_SYSFS_READ(sysfs_read_hex, uint64_t, pmemram_parse_u64(buf, 16, &value))
DEFINE_SYSFS_READ(sysfs_read_int, int, pmemram_parse_int(buf, &value))
DEFINE_SYSFS_READ(sysfs_read_bool, bool, pmemram_parse_bool(buf, &value))
DEFINE_SYSFS_READ(sysfs_read_nodemask, struct pmemram_nodemask, pmemram_parse_range_list(buf, &value))
DEFINE_SYSFS_READ(sysfs_read_zones, struct pmemram_zones, pmemram_parse_valid_zones(buf, &value))

int sysfs_read_enum(struct pmemram_ctx *ctx, const char *path, int (*from_string)(const char *s), int *ret)
{
	char buf[SYSFS_ATTR_MAX];
	int r;

	r = sysfs_read_string(ctx, path, buf, sizeof(buf));
	if (r < 0)
		return r;

	r = from_string(buf);
	if (r < 0) {
		log_debug(ctx, "%s: unknown value \"%s\"", path, buf);
		return fail(ctx, path, r);
	}

	*ret = r;
	return 0;
}

int sysfs_read_u64_attrs(struct pmemram_ctx *ctx, const char *dir, const char *const *names, size_t n,
			 uint64_t *ret_values)
{
	uint64_t values[SYSFS_MAX_ATTRS];
	char path[PATH_MAX];
	int r;

	if (!dir || !names || !ret_values || n > ELEMENTSOF(values))
		return -EINVAL;

	for (size_t i = 0; i < n; i++) {
		r = path_printf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (r < 0)
			return r;
		r = sysfs_read_u64(ctx, path, &values[i]);
		if (r < 0)
			return r;
	}

	memcpy(ret_values, values, n * sizeof(*values));
	return 0;
}

int root_stat(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, struct stat *ret)
{
	int dir_fd;

	if (!ctx || !path || !ret)
		return -EINVAL;

	dir_fd = pmemram_ctx_get_root_fd(ctx, which);
	if (dir_fd < 0)
		return dir_fd;
	pmemram_ctx_count_access(ctx, which);
	if (fstatat(dir_fd, path, ret, 0) < 0)
		return fail_in(ctx, which, path, negative_errno());
	return 0;
}

int root_readlink(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, char *buf, size_t size)
{
	int dir_fd;
	ssize_t n;

	if (!ctx || !path || !buf || size < 2)
		return -EINVAL;

	dir_fd = pmemram_ctx_get_root_fd(ctx, which);
	if (dir_fd < 0)
		return dir_fd;
	pmemram_ctx_count_access(ctx, which);
	n = readlinkat(dir_fd, path, buf, size);
	if (n < 0)
		return fail_in(ctx, which, path, negative_errno());
	if ((size_t)n >= size)
		return fail_in(ctx, which, path, -ENAMETOOLONG);
	buf[n] = '\0';
	return (int)n;
}

int sysfs_read_link_name(struct pmemram_ctx *ctx, const char *path, char *buf, size_t size)
{
	char target[PATH_MAX];
	const char *base;
	int n;

	if (!ctx || !path || !buf || size == 0)
		return -EINVAL;

	n = root_readlink(ctx, PMEMRAM_ROOT_SYSFS, path, target, sizeof(target));
	if (n < 0)
		return n;

	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base)
		return fail(ctx, path, -EINVAL);
	if (strlen(base) >= size)
		return fail(ctx, path, -ENAMETOOLONG);

	strcpy(buf, base);
	return 0;
}

int sysfs_exists(struct pmemram_ctx *ctx, const char *path)
{
	struct stat st;

	if (!ctx || !path)
		return -EINVAL;

	pmemram_ctx_count_access(ctx, PMEMRAM_ROOT_SYSFS);
	if (fstatat(pmemram_ctx_get_sysfs_fd(ctx), path, &st, 0) < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return fail(ctx, path, negative_errno());
	}
	return 1;
}

/* Open, write and close dir_fd/path: 0 or -errno (sysfs reports some store errors at close()). */
static int store(int dir_fd, const char *path, const char *value)
{
	_cleanup_(closep) int fd = -1;
	int r;

	fd = openat(dir_fd, path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	r = write_all(fd, value, strlen(value));
	if (r < 0)
		return r;
	if (close(TAKE_FD(fd)) < 0 && errno != EINTR)
		return negative_errno();
	return 0;
}

/*
 * store() from a child process, which is killed (SIGKILL) when it has not finished after
 * timeout_usec: the kernel sees a fatal signal pending and abandons the store.  The child only
 * stores and sends its errno through a pipe.  0, -errno of the store, or -ETIMEDOUT.
 */
static int store_bounded(int dir_fd, const char *path, const char *value, uint64_t timeout_usec)
{
	_cleanup_(closep) int rfd = -1, wfd = -1;
	uint64_t deadline = now_usec(CLOCK_MONOTONIC) + timeout_usec;
	int p[2], err = 0, r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	rfd = p[0];
	wfd = p[1];

	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		err = -store(dir_fd, path, value);
		_exit(write(wfd, &err, sizeof(err)) == sizeof(err) ? 0 : 1);
	}
	wfd = safe_close(wfd);

	for (;;) {
		struct pollfd pfd = { .fd = rfd, .events = POLLIN };
		uint64_t now = now_usec(CLOCK_MONOTONIC);
		int n;

		if (now >= deadline) {
			(void)kill(pid, SIGKILL);
			r = -ETIMEDOUT;
			break;
		}
		n = poll(&pfd, 1, (int)((deadline - now + 999) / 1000));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = negative_errno();
			(void)kill(pid, SIGKILL);
			break;
		}
		if (n == 0)
			continue;
		r = read(rfd, &err, sizeof(err)) == sizeof(err) ? -err : -EIO;
		break;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return r;
}

int sysfs_write_bounded(struct pmemram_ctx *ctx, const char *path, const char *value, uint64_t timeout_usec)
{
	int dir_fd, r;

	if (!ctx || !path || !value)
		return -EINVAL;
	dir_fd = pmemram_ctx_get_sysfs_fd(ctx);
	if (dir_fd < 0)
		return dir_fd;

	pmemram_ctx_count_access(ctx, PMEMRAM_ROOT_SYSFS);
	r = timeout_usec > 0 ? store_bounded(dir_fd, path, value, timeout_usec) : store(dir_fd, path, value);
	if (r == -ETIMEDOUT)
		log_debug(ctx, "%s: writing \"%s\" did not finish within %" PRIu64 " ms, interrupted", path, value,
			  timeout_usec / 1000);
	if (r < 0)
		return fail(ctx, path, r);
	log_debug(ctx, "%s: wrote \"%s\"", path, value);
	return 0;
}

int sysfs_write_verify_bounded(struct pmemram_ctx *ctx, const char *path, const char *value, const char *expect,
			       uint64_t timeout_usec)
{
	char buf[SYSFS_ATTR_MAX];
	int r;

	r = sysfs_write_bounded(ctx, path, value, timeout_usec);
	if (r < 0)
		return r;

	r = sysfs_read_string(ctx, path, buf, sizeof(buf));
	if (r < 0)
		return r;

	if (!streq(buf, expect ? expect : value)) {
		log_debug(ctx, "%s: wrote \"%s\", reads back \"%s\"", path, value, buf);
		return fail(ctx, path, -EIO);
	}
	return 0;
}

int sysfs_write_verify(struct pmemram_ctx *ctx, const char *path, const char *value, const char *expect)
{
	return sysfs_write_verify_bounded(ctx, path, value, expect, 0);
}

int root_write_verify(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *value)
{
	char buf[SYSFS_ATTR_MAX];
	int dir_fd, r;

	if (!ctx || !path || !value)
		return -EINVAL;
	dir_fd = pmemram_ctx_get_root_fd(ctx, which);
	if (dir_fd < 0)
		return dir_fd;
	pmemram_ctx_count_access(ctx, which);
	r = store(dir_fd, path, value);
	if (r < 0)
		return fail_in(ctx, which, path, r);
	log_debug(ctx, "%s: wrote \"%s\"", path, value);
	r = root_read_string(ctx, which, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (!streq(buf, value)) {
		log_debug(ctx, "%s: wrote \"%s\", reads back \"%s\"", path, value, buf);
		return fail_in(ctx, which, path, -EIO);
	}
	return 0;
}

int sysfs_name_index(const char *name, const char *prefix, unsigned long *ret)
{
	size_t len;
	uint64_t v;
	int r;

	if (!name || !prefix)
		return -EINVAL;

	len = strlen(prefix);
	if (strncmp(name, prefix, len) != 0)
		return -EINVAL;

	r = pmemram_parse_u64(name + len, 10, &v);
	if (r < 0)
		return r;
	if (v > ULONG_MAX)
		return -ERANGE;

	*ret = (unsigned long)v;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

void sysfs_dir_done(struct sysfs_dir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	d->names = NULL;
	d->n = 0;
}

/* <prefix><digit>... */
static bool match_prefix_digit(const char *name, const char *prefix)
{
	size_t plen = strlen(prefix);

	return strncmp(name, prefix, plen) == 0 && name[plen] >= '0' && name[plen] <= '9';
}

/* Not hidden, ends in suffix, and more than the suffix. */
static bool match_suffix(const char *name, const char *suffix)
{
	size_t len = strlen(name), slen = strlen(suffix);

	return name[0] != '.' && len > slen && streq(name + len - slen, suffix);
}

/* getdents64() straight on the descriptor: fdopendir() would add an fstat() and two fcntl()s per
 * directory, and the user scan lists one per process. */
static int dir_read(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path,
		    bool (*match)(const char *name, const char *arg), const char *arg, size_t max,
		    struct sysfs_dir *ret)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(sysfs_dir_done) struct sysfs_dir d = {};
	size_t allocated = 0;
	union {
		struct dirent64 de;
		char bytes[16384];
	} buf;

	if (!ctx || !path || !arg || !ret)
		return -EINVAL;

	fd = root_open(ctx, which, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;

	for (;;) {
		ssize_t k = getdents64(fd, buf.bytes, sizeof(buf.bytes));

		if (k < 0)
			return fail_in(ctx, which, path, negative_errno());
		if (k == 0)
			break;
		for (ssize_t off = 0; off < k;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf.bytes + off);

			off += de->d_reclen;
			if (!match(de->d_name, arg))
				continue;
			if (d.n >= max)
				return fail_in(ctx, which, path, -E2BIG);
			if (d.n == allocated) {
				size_t n = allocated ? allocated * 2 : 16;
				char **names = reallocarray(d.names, n, sizeof(*names));

				if (!names)
					return -ENOMEM;
				d.names = names;
				allocated = n;
			}
			d.names[d.n] = strdup(de->d_name);
			if (!d.names[d.n])
				return -ENOMEM;
			d.n++;
		}
	}

	if (d.n > 1)
		qsort(d.names, d.n, sizeof(*d.names), compare_names);

	*ret = d;
	d = (struct sysfs_dir){};
	return 0;
}

int root_dir_read(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *prefix,
		  size_t max, struct sysfs_dir *ret)
{
	return dir_read(ctx, which, path, match_prefix_digit, prefix, max, ret);
}

int root_dir_read_suffix(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *suffix,
			 size_t max, struct sysfs_dir *ret)
{
	return dir_read(ctx, which, path, match_suffix, suffix, max, ret);
}

int sysfs_dir_read(struct pmemram_ctx *ctx, const char *path, const char *prefix, size_t max,
		   struct sysfs_dir *ret)
{
	return root_dir_read(ctx, PMEMRAM_ROOT_SYSFS, path, prefix, max, ret);
}
