/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interfaces of libpmemram: logging macros, sysfs attribute I/O, cleanup helpers. */
#pragma once

#include <inttypes.h>
#include <syslog.h>

#include "fileio.h"
#include "macro.h"
#include "pmemram.h"

/* Largest sysfs attribute we read (one page) plus a terminating NUL. */
#define SYSFS_ATTR_MAX 4096

/* ---- logging: library code logs at debug only, through the caller's fn ---- */

void pmemram_log(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
		 const char *format, ...) _printf_(6, 7);

#define log_debug(ctx, ...)                                                                  \
	do {                                                                                 \
		if (pmemram_ctx_get_log_priority(ctx) >= LOG_DEBUG)                          \
			pmemram_log((ctx), LOG_DEBUG, __FILE__, __LINE__, __func__, __VA_ARGS__); \
	} while (0)

/* Log at debug and return the (negative) error, for "return log_debug_errno(...)". */
#define log_debug_errno(ctx, err, ...)          \
	({                                      \
		int _e_ = (err);                \
		log_debug((ctx), __VA_ARGS__);  \
		_e_ < 0 ? _e_ : -_e_;           \
	})

/* Remember "<root>/<path>" as the file behind the current failure (sysfs, or the given root). */
void pmemram_ctx_set_error_path(struct pmemram_ctx *ctx, const char *path);
void pmemram_ctx_set_error_path_in(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path);

/* Files opened, read as links or looked up below a root since the context was made: what an
 * observation costs, counted where the I/O is done. */
void pmemram_ctx_count_access(struct pmemram_ctx *ctx, enum pmemram_root which);
uint64_t pmemram_ctx_get_accesses(struct pmemram_ctx *ctx, enum pmemram_root which);

/* A context for another thread, which must not share one: the same roots (their descriptors
 * duplicated), log function, priority and userdata, and nothing cached.  merge adds what the
 * worker counted to ctx, and its error path when ctx has none; the worker is then unref'ed. */
int pmemram_ctx_new_worker(struct pmemram_ctx *ctx, struct pmemram_ctx **ret);
void pmemram_ctx_merge_worker(struct pmemram_ctx *ctx, const struct pmemram_ctx *worker);

/* What the applier keeps from one run to the next (its libdaxctl context); free_fn releases the
 * previous state when it is replaced, and the last one with the context. */
void *pmemram_ctx_get_apply_state(struct pmemram_ctx *ctx);
/* A hash of the dax devices last listed (names, ranges, sizes): the applier's state made from
 * another set of devices is made again. */
void pmemram_ctx_set_dax_signature(struct pmemram_ctx *ctx, uint64_t signature);
uint64_t pmemram_ctx_get_dax_signature(struct pmemram_ctx *ctx);
void pmemram_ctx_set_apply_state(struct pmemram_ctx *ctx, void *state, void (*free_fn)(void *state));

/* The udev rules last read and the stamps of their directories (udev-rules.c's, one malloc()ed
 * block); setting another frees the one before, and the last goes with the context. */
void *pmemram_ctx_get_rules_cache(struct pmemram_ctx *ctx);
void pmemram_ctx_set_rules_cache(struct pmemram_ctx *ctx, void *cache);

/* ---- files below any root (procfs, udev); the sysfs_* helpers below use PMEMRAM_ROOT_SYSFS ---- */

/* Read a small file whole, strip the trailing newline; -E2BIG when it does not fit. */
int root_read_string(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, char *buf, size_t size);
/* Open path below the root for reading; failures are recorded like the sysfs_* ones. */
int root_fopen(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, FILE **ret);
/* fstatat() below the root, following symlinks. */
struct stat;
int root_stat(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, struct stat *ret);
/* Target of a symlink below the root, NUL-terminated. */
int root_readlink(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, char *buf, size_t size);

/* ---- sysfs attributes, all paths relative to the context's root ---------- */

/* For optional files: true (and the error forgotten) when r is -ENOENT. */
bool sysfs_absent(struct pmemram_ctx *ctx, int r);
/* Read an attribute, strip the trailing newline.  -E2BIG when it does not fit. */
int sysfs_read_string(struct pmemram_ctx *ctx, const char *path, char *buf, size_t size);
int sysfs_read_u64(struct pmemram_ctx *ctx, const char *path, uint64_t *ret);
int sysfs_read_hex(struct pmemram_ctx *ctx, const char *path, uint64_t *ret);
int sysfs_read_int(struct pmemram_ctx *ctx, const char *path, int *ret);
int sysfs_read_bool(struct pmemram_ctx *ctx, const char *path, bool *ret);
int sysfs_read_nodemask(struct pmemram_ctx *ctx, const char *path, struct pmemram_nodemask *ret);
int sysfs_read_zones(struct pmemram_ctx *ctx, const char *path, struct pmemram_zones *ret);
/* A word the kernel prints, mapped through a *_from_string() table; -EINVAL when unknown. */
int sysfs_read_enum(struct pmemram_ctx *ctx, const char *path, int (*from_string)(const char *s), int *ret);
/* Decimal attributes dir/names[i] into ret_values[i], all or nothing; n <= SYSFS_MAX_ATTRS. */
#define SYSFS_MAX_ATTRS 8
int sysfs_read_u64_attrs(struct pmemram_ctx *ctx, const char *dir, const char *const *names, size_t n,
			 uint64_t *ret_values);
/* Basename of a symlink's target ("driver" -> "kmem"). */
int sysfs_read_link_name(struct pmemram_ctx *ctx, const char *path, char *buf, size_t size);
/* 1 if path exists, 0 if not, -errno on other failures. */
int sysfs_exists(struct pmemram_ctx *ctx, const char *path);
/* Write value, nothing read back; with timeout_usec > 0 written by a child process as below. */
int sysfs_write_bounded(struct pmemram_ctx *ctx, const char *path, const char *value, uint64_t timeout_usec);
/* Write value to a file below a root (a sysctl below procfs), re-read it: -EIO when it differs. */
int root_write_verify(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *value);
/* Write value, re-read and compare against expect (value when NULL); -EIO on mismatch. */
int sysfs_write_verify(struct pmemram_ctx *ctx, const char *path, const char *value, const char *expect);
/* The same, the write done by a child process that is killed after timeout_usec (0: no bound,
 * written in place): -ETIMEDOUT when it had not finished, nothing read back then. */
int sysfs_write_verify_bounded(struct pmemram_ctx *ctx, const char *path, const char *value, const char *expect,
			       uint64_t timeout_usec);

/* Entries of a directory named <prefix><digit>..., sorted in version order. */
struct sysfs_dir {
	size_t n;
	char **names;
};

int sysfs_dir_read(struct pmemram_ctx *ctx, const char *path, const char *prefix, size_t max,
		   struct sysfs_dir *ret);
/* The same below another root; prefix "" lists the entries starting with a digit (pids). */
int root_dir_read(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *prefix,
		  size_t max, struct sysfs_dir *ret);
/* Entries ending in suffix (".rules"), not hidden, in version order. */
int root_dir_read_suffix(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path, const char *suffix,
			 size_t max, struct sysfs_dir *ret);
void sysfs_dir_done(struct sysfs_dir *d);
/* A memory block as sysfs shows it now, for the code that changes blocks: the raw words for
 * messages, parsed where they parse (else -1).  valid_zones is read only once the block has its
 * node link (6.1 oopses on it before); zones then says why it is empty of zones. */
struct memblock_view {
	bool present; /* false: memoryN does not exist (never added, or removed with kmem) */
	int node;     /* -1 without a nodeN link: still being added */
	char state[32];
	char zones[128];
	int state_id; /* enum pmemram_block_state */
	int zone;     /* first word of valid_zones: the current zone when online */
};
/* 0 with ret->present false for an absent block; -errno when a present block cannot be read.
 * node_hint (-1: none) is the node the caller expects the block on: its link is looked up first.
 * valid_zones is read only for an online block (its zone); memblock_view_read_zones() reads it
 * for any block with a node, for messages. */
int memblock_view_read(struct pmemram_ctx *ctx, unsigned long block, int node_hint, struct memblock_view *ret);
int memblock_view_read_zones(struct pmemram_ctx *ctx, unsigned long block, struct memblock_view *v);

/* Numeric suffix of name after prefix ("memory32" -> 32); -EINVAL when not all digits. */
int sysfs_name_index(const char *name, const char *prefix, unsigned long *ret);

/* "dir/attr" in buf, or NULL when it does not fit (the sysfs_read_* then return -EINVAL). */
const char *sysfs_join(char *buf, size_t size, const char *dir, const char *attr);
#define SYSFS_JOIN(buf, dir, attr) sysfs_join((buf), sizeof(buf), (dir), (attr))

/* Copy len bytes of s into buf as a string; -ENAMETOOLONG (buf untouched) when it does not fit. */
static inline int copy_span(char *buf, size_t size, const char *s, size_t len)
{
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

/* Whether a binary UUID (libndctl's, libcxl's) is all zeros: unset. */
static inline bool uuid_is_null(const unsigned char u[16])
{
	for (size_t i = 0; i < 16; i++)
		if (u[i])
			return false;
	return true;
}

/* snprintf into a fixed path buffer, -ENAMETOOLONG on truncation. */
int path_printf(char *buf, size_t size, const char *format, ...) _printf_(3, 4);
