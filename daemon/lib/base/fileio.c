/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whole writes and atomic file replacement: the one way pmemram writes a file it owns. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "pmemram-private.h"

#define TMP_ATTEMPTS 100

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return negative_errno();
		if (k == 0)
			return -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

int file_write_temp_at(int dir_fd, const char *name, const char *content, size_t len, mode_t mode, unsigned flags,
		       char *tmp, size_t tmp_size)
{
	_cleanup_(closep) int fd = -1;
	struct stat st;
	int r;

	if (dir_fd < 0 || !name || !*name || strchr(name, '/') || !content || !tmp)
		return -EINVAL;
	if (flags & FILE_KEEP_MODE) {
		if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			mode = st.st_mode & 07777;
		else if (errno != ENOENT)
			return negative_errno();
	}

	/* Hidden (update-grub and systemd skip dot-files), unique per process and attempt. */
	for (unsigned i = 0; fd < 0; i++) {
		if (i >= TMP_ATTEMPTS)
			return -EEXIST;
		r = snprintf(tmp, tmp_size, ".%s.%ld-%u.tmp", name, (long)getpid(), i);
		if (r < 0 || (size_t)r >= tmp_size)
			return -ENAMETOOLONG;
		fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd < 0 && errno != EEXIST)
			return negative_errno();
	}

	/* The umask does not narrow the mode asked for. */
	r = fchmod(fd, mode) < 0 ? negative_errno() : write_all(fd, content, len);
	if (r >= 0 && fsync(fd) < 0)
		r = negative_errno();
	if (r >= 0 && close(TAKE_FD(fd)) < 0)
		r = negative_errno();
	if (r < 0)
		(void)unlinkat(dir_fd, tmp, 0);
	return r;
}

int file_commit_at(int dir_fd, const char *tmp, const char *name, bool *ret_renamed)
{
	int r;

	if (ret_renamed)
		*ret_renamed = false;
	if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
		r = negative_errno();
		(void)unlinkat(dir_fd, tmp, 0);
		return r;
	}
	if (ret_renamed)
		*ret_renamed = true;
	/* The rename survives a crash once the directory is synced. */
	return fsync(dir_fd) < 0 ? negative_errno() : 0;
}

int file_write_atomic_at(int dir_fd, const char *name, const char *content, size_t len, mode_t mode,
			 unsigned flags)
{
	char tmp[PATH_MAX];
	int r;

	r = file_write_temp_at(dir_fd, name, content, len, mode, flags, tmp, sizeof(tmp));
	if (r < 0)
		return r;
	return file_commit_at(dir_fd, tmp, name, NULL);
}

int dir_open_trusted(const char *path)
{
	_cleanup_(closep) int fd = -1;
	char rest[PATH_MAX], target[PATH_MAX];
	unsigned links = 0;
	size_t at = 0;
	int r;

	r = copy_span(rest, sizeof(rest), path, strlen(path));
	if (r < 0)
		return r;
	fd = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	while (rest[at]) {
		size_t n = strcspn(rest + at, "/");
		_cleanup_(closep) int next = -1;
		struct stat st;
		ssize_t k;

		if (n == 0 || (n == 1 && rest[at] == '.')) {
			at += n + (rest[at + n] == '/');
			continue;
		}
		if (rest[at + n] == '/')
			rest[at + n++] = '\0';
		next = openat(fd, rest + at, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0)
			return negative_errno();
		at += n;
		if (S_ISDIR(st.st_mode)) {
			closep(&fd);
			fd = TAKE_FD(next);
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			return -ENOTDIR;
		/* Planted by someone else, it could send the write anywhere its owner likes. */
		if (st.st_uid != 0 && st.st_uid != geteuid())
			return -EPERM;
		if (++links > 40)
			return -ELOOP;
		k = readlinkat(next, "", target, sizeof(target) - 1);
		if (k < 0)
			return negative_errno();
		target[k] = '\0';
		/* The link's target, then what was left after it. */
		if ((size_t)k + 1 + strlen(rest + at) + 1 > sizeof(rest))
			return -ENAMETOOLONG;
		memmove(rest + k + 1, rest + at, strlen(rest + at) + 1);
		memcpy(rest, target, (size_t)k);
		rest[k] = '/';
		at = 0;
		if (target[0] == '/') {
			closep(&fd);
			fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return negative_errno();
		}
	}
	r = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return r < 0 ? negative_errno() : r;
}

int file_write_atomic(const char *path, const char *content, size_t len, mode_t mode, unsigned flags)
{
	_cleanup_(closep) int dir_fd = -1;
	const char *slash;
	char dir[PATH_MAX];
	int r;

	if (!path || !*path)
		return -EINVAL;
	slash = strrchr(path, '/');
	if (slash) {
		r = copy_span(dir, sizeof(dir), path, slash == path ? 1 : (size_t)(slash - path));
		if (r < 0)
			return r;
	} else
		strcpy(dir, ".");
	dir_fd = dir_open_trusted(dir);
	if (dir_fd < 0)
		return dir_fd;
	return file_write_atomic_at(dir_fd, slash ? slash + 1 : path, content, len, mode, flags);
}

int file_lock(const char *path, bool wait)
{
	_cleanup_(closep) int fd = -1;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return negative_errno();
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}
