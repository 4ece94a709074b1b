/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Preloaded into pmemramd by test-daemon: the event sources PMEMRAM_FAIL_EVENT names cannot be added. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <systemd/sd-event.h>

/*
 * PMEMRAM_FAIL_EVENT is a comma-separated list of:
 *   pipe-io      sd_event_add_io() on a pipe (a release's report) fails with ENOSPC, as epoll_ctl()
 *                does at max_user_watches;
 *   defer        sd_event_add_defer() fails with ENOMEM;
 *   time-in=SEC  sd_event_add_time() of a CLOCK_MONOTONIC timer due SEC seconds from now (within
 *                the last second before) fails with ENOMEM.
 * Everything else goes to libsystemd.  Each failure made says so on stderr.
 */
static const char *option(const char *name)
{
	const char *list = getenv("PMEMRAM_FAIL_EVENT");
	size_t len = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0' || p[len] == '='))
			return p + len;
	}
	return NULL;
}

static void *real(const char *symbol)
{
	void *f = dlsym(RTLD_NEXT, symbol);

	if (!f)
		abort();
	return f;
}

int sd_event_add_io(sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t cb, void *userdata)
{
	static int (*next)(sd_event *, sd_event_source **, int, uint32_t, sd_event_io_handler_t, void *);
	struct stat st;

	if (option("pipe-io") && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "fail-event: sd_event_add_io on a pipe failed on purpose\n");
		return -ENOSPC;
	}
	if (!next)
		next = real("sd_event_add_io");
	return next(e, s, fd, events, cb, userdata);
}

int sd_event_add_defer(sd_event *e, sd_event_source **s, sd_event_handler_t cb, void *userdata)
{
	static int (*next)(sd_event *, sd_event_source **, sd_event_handler_t, void *);

	if (option("defer")) {
		fprintf(stderr, "fail-event: sd_event_add_defer failed on purpose\n");
		return -ENOMEM;
	}
	if (!next)
		next = real("sd_event_add_defer");
	return next(e, s, cb, userdata);
}

int sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy,
		      sd_event_time_handler_t cb, void *userdata)
{
	static int (*next)(sd_event *, sd_event_source **, clockid_t, uint64_t, uint64_t, sd_event_time_handler_t,
			   void *);
	const char *in = option("time-in");
	struct timespec ts;

	if (in && *in == '=' && clock == CLOCK_MONOTONIC && clock_gettime(clock, &ts) == 0) {
		uint64_t now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		uint64_t due = strtoull(in + 1, NULL, 10) * 1000000;

		if (usec <= now + due && usec + 1000000 > now + due) {
			fprintf(stderr, "fail-event: sd_event_add_time in %s s failed on purpose\n", in + 1);
			return -ENOMEM;
		}
	}
	if (!next)
		next = real("sd_event_add_time");
	return next(e, s, clock, usec, accuracy, cb, userdata);
}
