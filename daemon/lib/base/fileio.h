/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whole writes and atomic file replacement, for the library and both programs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Write all len bytes of buf, resuming after EINTR and short writes: 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);
/* Keep the mode of the file being replaced (when there is one) instead of mode. */
#define FILE_KEEP_MODE 1u
/* Write content to a new hidden file beside dir_fd/name (its name in tmp), with mode, synced and
 * closed; nothing is left behind on failure.  For a caller that checks the file before committing. */
int file_write_temp_at(int dir_fd, const char *name, const char *content, size_t len, mode_t mode, unsigned flags,
		       char *tmp, size_t tmp_size);
/* Rename tmp over name and sync the directory; tmp is removed when the rename fails.  *ret_renamed
 * (may be NULL) tells a failed rename (nothing changed) from a failed sync after it. */
int file_commit_at(int dir_fd, const char *tmp, const char *name, bool *ret_renamed);
/* Replace dir_fd/name with content so that a reader or a crash sees the old file or the new one,
 * never part of one: file_write_temp_at(), then file_commit_at().  0 or -errno. */
int file_write_atomic_at(int dir_fd, const char *name, const char *content, size_t len, mode_t mode,
			 unsigned flags);
/* Open directory path for reading: its descriptor or -errno.  A symbolic link on the way is
 * followed only when root or this process's user owns it (-EPERM otherwise), so that a link
 * another user planted in a directory of theirs cannot send a write of root's elsewhere. */
int dir_open_trusted(const char *path);
/* The same for a path (its directory opened, with dir_open_trusted(), for the time of the write). */
int file_write_atomic(const char *path, const char *content, size_t len, mode_t mode, unsigned flags);
/* Open path (created 0644 when missing, never through a symlink) and lock it with flock(LOCK_EX),
 * waiting for another holder when wait, else failing with -EWOULDBLOCK: the locked descriptor or
 * -errno. */
int file_lock(const char *path, bool wait);
