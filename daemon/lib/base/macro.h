/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by the library, the CLI and the tests: cleanup attributes, TAKE_*. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define USEC_PER_SEC 1000000ULL
#define USEC_PER_MSEC 1000ULL

/* The clock in microseconds (CLOCK_MONOTONIC for durations and deadlines). */
static inline uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	(void)clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

/* Hand a pointer/fd over to someone else, so the cleanup handler no longer frees it. */
#define TAKE_PTR(p)                          \
	({                                   \
		__typeof__(p) _ptr_ = (p);   \
		(p) = NULL;                  \
		_ptr_;                       \
	})
#define TAKE_FD(fd)                      \
	({                               \
		int _fd_ = (fd);         \
		(fd) = -1;               \
		_fd_;                    \
	})

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;

		(void)close(fd);
		errno = saved;
	}
	return -1;
}

static inline void closep(int *fd)
{
	*fd = safe_close(*fd);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
	*d = NULL;
}

static inline void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
	*f = NULL;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

#define streq(a, b) (strcmp((a), (b)) == 0)

/* errno as a negative value, never 0 (some callers forget to set errno). */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
