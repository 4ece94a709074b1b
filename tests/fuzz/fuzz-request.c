/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: pmemramd's request path, the real server.c over its unix socket, with the
 * manager stubbed.  Each input runs twice: as it is, and with the creation of an event source
 * failing from the Nth on (N from the input), as at ENOMEM or epoll's max_user_watches; the release
 * stub then finishes before it returns, as manager-release.c does when it cannot watch its child.
 * Invariants: every reply is one line of valid UTF-8 JSON, an object with a boolean "ok";
 * everything logged is printable; ASan sees no use of a freed client. */
#include <errno.h>
#include <sys/epoll.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "manager.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the manager, as far as server.c sees it ---- */

/* What server.c logs, from a client's bytes or not, must be printable. */
static void check_line(const char *format, va_list args)
{
	char line[1024];

	(void)vsnprintf(line, sizeof(line), format, args);
	if (!pmemram_name_is_printable(line))
		abort();
}

void manager_log(struct manager *m, int priority, const char *const *fields, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	check_line(format, args);
	va_end(args);
}

void manager_event(struct manager *m, enum manager_event e, const char *const *fields, const char *format, ...)
{
	va_list args;

	if (e < 0 || e >= _MANAGER_EVENT_MAX)
		abort();
	va_start(args, format);
	check_line(format, args);
	va_end(args);
}

int manager_load_config(struct manager *m, bool initial)
{
	(void)snprintf(m->config_error, sizeof(m->config_error), "pmemram.conf:1: fuzzing");
	return -EINVAL;
}

int manager_reconcile(struct manager *m, const char *why)
{
	(void)snprintf(m->last_error, sizeof(m->last_error), "fuzzing");
	return -EIO;
}

/* ---- event sources, failing on demand (linked with --wrap) ---- */

int __real_sd_event_add_io(sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t cb,
			   void *userdata);
int __real_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy,
			     sd_event_time_handler_t cb, void *userdata);
int __real_sd_event_add_defer(sd_event *e, sd_event_source **s, sd_event_handler_t cb, void *userdata);
int __wrap_sd_event_add_io(sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t cb,
			   void *userdata);
int __wrap_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy,
			     sd_event_time_handler_t cb, void *userdata);
int __wrap_sd_event_add_defer(sd_event *e, sd_event_source **s, sd_event_handler_t cb, void *userdata);

static long fail_from = -1; /* the creations counted from 0 in this run; -1: none fails */
static long created;

static bool source_fails(void)
{
	return fail_from >= 0 && created++ >= fail_from;
}

int __wrap_sd_event_add_io(sd_event *e, sd_event_source **s, int fd, uint32_t events, sd_event_io_handler_t cb,
			   void *userdata)
{
	return source_fails() ? -ENOSPC : __real_sd_event_add_io(e, s, fd, events, cb, userdata);
}

int __wrap_sd_event_add_time(sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy,
			     sd_event_time_handler_t cb, void *userdata)
{
	return source_fails() ? -ENOMEM : __real_sd_event_add_time(e, s, clock, usec, accuracy, cb, userdata);
}

int __wrap_sd_event_add_defer(sd_event *e, sd_event_source **s, sd_event_handler_t cb, void *userdata)
{
	return source_fails() ? -ENOMEM : __real_sd_event_add_defer(e, s, cb, userdata);
}

/* ---- a release: its "child" reports at once through a pipe the loop watches ---- */

static struct {
	char device[32];
	int fd[2];
	sd_event_source *io;
	manager_release_done_fn done;
	void *userdata;
} rel = { .fd = { -1, -1 } };

static void release_finish(struct manager *m)
{
	manager_release_done_fn done = rel.done;

	rel.io = sd_event_source_disable_unref(rel.io);
	close(rel.fd[0]);
	close(rel.fd[1]);
	rel.fd[0] = rel.fd[1] = -1;
	rel.done = NULL;
	done(m, rel.device, -ENODEV, NULL, "fuzzing", rel.userdata);
}

static int on_release_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	release_finish(userdata);
	return 0;
}

const char *manager_release_device(const struct manager *m)
{
	return rel.done ? rel.device : NULL;
}

int manager_release_start(struct manager *m, const char *device, manager_release_done_fn done, void *userdata)
{
	if (rel.done)
		return -EBUSY;
	if (pipe2(rel.fd, O_CLOEXEC | O_NONBLOCK) < 0 || write(rel.fd[1], "", 1) != 1)
		abort();
	(void)snprintf(rel.device, sizeof(rel.device), "%s", device);
	rel.done = done;
	rel.userdata = userdata;
	/* As manager-release.c: a child the loop cannot watch is waited for here. */
	if (sd_event_add_io(m->event, &rel.io, rel.fd[0], EPOLLIN, on_release_output, m) < 0)
		release_finish(m);
	return 0;
}

int manager_unhold(struct manager *m, const char *device)
{
	return -ENOENT;
}

int manager_status_json(struct manager *m, struct json_object **ret)
{
	struct json_object *o = json_object_new_object();

	if (!o || json_object_object_add(o, "daemon", json_object_new_object()) < 0)
		abort();
	*ret = o;
	return 0;
}

/* ---- the harness ---- */

static struct manager m = { .listen_fd = -1 };

static void setup(void)
{
	static char path[] = "/tmp/pmemram-fuzz-request.XXXXXX";
	static char sock[64];

	if (m.event)
		return;
	if (!mkdtemp(path) || sd_event_new(&m.event) < 0)
		abort();
	(void)snprintf(sock, sizeof(sock), "%s/sock", path);
	m.socket_path = sock;
	m.config_dir = "/nonexistent";
	if (server_open(&m) < 0)
		abort();
}

static void run_one(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[1 << 16];
	size_t len = 0;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", m.socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	/* The request, then the end of it: a client that hangs up gets its reply or nothing. */
	if (size > 0 && send(fd, data, size > 4096 ? 4096 : size, MSG_NOSIGNAL) < 0 && errno != EAGAIN)
		abort();
	(void)shutdown(fd, SHUT_WR);

	for (int i = 0; i < 64; i++) {
		ssize_t n;

		(void)sd_event_run(m.event, 0);
		n = recv(fd, reply + len, sizeof(reply) - 1 - len, MSG_DONTWAIT);
		if (n > 0)
			len += (size_t)n;
		else if (n == 0)
			break;
	}
	close(fd);
	(void)sd_event_run(m.event, 0);
	if (len > 0) {
		struct json_object *o, *ok;

		reply[len] = '\0';
		/* one line, ending in its newline */
		if (reply[len - 1] != '\n' || memchr(reply, '\n', len - 1))
			abort();
		reply[len - 1] = '\0';
		if (!pmemram_name_is_printable(reply))
			abort();
		o = json_tokener_parse(reply);
		if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "ok", &ok) ||
		    !json_object_is_type(ok, json_type_boolean))
			abort();
		json_object_put(o);
	}
	/* A release left running (its client gone first) ends before the next run. */
	while (rel.done)
		(void)sd_event_run(m.event, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	fail_from = -1;
	run_one(data, size);
	/* Again with every source from the Nth on failing: 0 fails the accepted client's own. */
	created = 0;
	fail_from = size % 4;
	run_one(data, size);
	fail_from = -1;
	return 0;
}
