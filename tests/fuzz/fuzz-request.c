/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: pmemramd's request path, the real server.c over its unix socket, with the
 * manager stubbed.  Invariants: every reply is one line of valid UTF-8 JSON, an object with a
 * boolean "ok"; everything logged is printable. */
#include <errno.h>
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

const char *manager_release_device(const struct manager *m)
{
	return NULL;
}

int manager_release_start(struct manager *m, const char *device, manager_release_done_fn done, void *userdata)
{
	return -ENODEV;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[1 << 16];
	size_t len = 0;
	int fd;

	setup();
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
	return 0;
}
