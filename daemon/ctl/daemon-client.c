/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl's side of the pmemramd control socket (see pmemram-protocol.h). */
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

#include <json-c/json.h>

#include "ctl.h"
#include "macro.h"
#include "pmemram-protocol.h"

#define REPLY_MAX (16u << 20)

const char *ctl_socket_path(void)
{
	const char *p = secure_getenv(PMEMRAM_SOCKET_ENV);

	return p && *p ? p : PMEMRAM_SOCKET_PATH;
}

/* Wait for events on fd until deadline (CLOCK_MONOTONIC, µs): 0, or -ETIMEDOUT/-errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		uint64_t now = now_usec(CLOCK_MONOTONIC);
		long long left = now < deadline ? (long long)((deadline - now) / USEC_PER_MSEC) : 0;
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return negative_errno();
	}
}

static int send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				int r = wait_fd(fd, POLLOUT, deadline);

				if (r < 0)
					return r;
				continue;
			}
			return negative_errno();
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Wait for the reply until deadline, calling tick (when not NULL) every CTL_TICK_USEC meanwhile. */
static int wait_reply(int fd, uint64_t deadline, void (*tick)(void *), void *userdata)
{
	for (;;) {
		uint64_t slice = tick ? now_usec(CLOCK_MONOTONIC) + CTL_TICK_USEC : deadline;
		int r = wait_fd(fd, POLLIN, slice < deadline ? slice : deadline);

		if (r != -ETIMEDOUT || slice >= deadline)
			return r;
		tick(userdata);
	}
}

/* Read up to the first newline (or EOF): a NUL-terminated malloc'ed string. */
static int recv_line(int fd, uint64_t deadline, void (*tick)(void *), void *userdata, char **ret)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;
		int r;

		if (cap - len < 4096) {
			char *p;

			if (cap >= REPLY_MAX)
				return -EMSGSIZE;
			cap = cap ? cap * 2 : 8192;
			p = realloc(buf, cap + 1);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		r = wait_reply(fd, deadline, tick, userdata);
		if (r < 0)
			return r;
		n = recv(fd, buf + len, cap - len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (memchr(buf + len - n, '\n', (size_t)n))
			break;
	}
	if (len == 0)
		return -ECONNRESET;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

int ctl_daemon_call(struct json_object *request, int timeout_s, struct json_object **ret_reply)
{
	return ctl_daemon_call_ticking(request, timeout_s, NULL, NULL, ret_reply);
}

int ctl_daemon_call_ticking(struct json_object *request, int timeout_s, void (*tick)(void *), void *userdata,
			    struct json_object **ret_reply)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) char *line = NULL;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = ctl_socket_path(), *text;
	uint64_t deadline = now_usec(CLOCK_MONOTONIC) + (uint64_t)(timeout_s > 0 ? timeout_s : 0) * USEC_PER_SEC;
	struct json_object *reply;
	size_t len;
	int r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		json_object_put(request);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);

	text = json_object_to_json_string_ext(request, JSON_C_TO_STRING_PLAIN);
	if (!text) {
		json_object_put(request);
		return -ENOMEM;
	}

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		json_object_put(request);
		return negative_errno();
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = negative_errno();
		json_object_put(request);
		return r;
	}

	len = strlen(text);
	r = send_all(fd, text, len, deadline);
	if (r >= 0)
		r = send_all(fd, "\n", 1, deadline);
	json_object_put(request);
	if (r < 0)
		return r;

	r = recv_line(fd, deadline, tick, userdata, &line);
	if (r < 0)
		return r;
	reply = json_tokener_parse(line);
	if (!reply || !json_object_is_type(reply, json_type_object)) {
		json_object_put(reply);
		return -EBADMSG;
	}
	*ret_reply = reply;
	return 0;
}

bool ctl_daemon_absent(int r)
{
	return r == -ENOENT || r == -ECONNREFUSED;
}

int ctl_daemon_simple(const char *command, const char *device, int timeout_s, struct json_object **ret_reply)
{
	return ctl_daemon_simple_ticking(command, device, timeout_s, NULL, NULL, ret_reply);
}

int ctl_daemon_simple_ticking(const char *command, const char *device, int timeout_s, void (*tick)(void *),
			      void *userdata, struct json_object **ret_reply)
{
	struct json_object *req = json_object_new_object();
	struct json_object *reply = NULL, *ok, *err, *eno;
	int r;

	if (!req || json_object_object_add(req, "command", json_object_new_string(command)) < 0 ||
	    (device && json_object_object_add(req, "device", json_object_new_string(device)) < 0)) {
		json_object_put(req);
		return -ENOMEM;
	}
	r = ctl_daemon_call_ticking(req, timeout_s, tick, userdata, &reply);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(reply, "ok", &ok) || !json_object_get_boolean(ok)) {
		const char *msg = json_object_object_get_ex(reply, "error", &err) ? json_object_get_string(err)
										   : "no reason given";

		fprintf(stderr, "%s: pmemramd refused '%s': %s\n", program_invocation_short_name, command, msg);
		r = json_object_object_get_ex(reply, "errno", &eno) ? -json_object_get_int(eno) : -EPROTO;
		if (r >= 0)
			r = -EPROTO;
		if (ret_reply)
			*ret_reply = reply;
		else
			json_object_put(reply);
		return r == -ENOENT || r == -ECONNREFUSED ? -EPROTO : r;
	}
	if (ret_reply)
		*ret_reply = reply;
	else
		json_object_put(reply);
	return 0;
}

int ctl_daemon_reload(void)
{
	int r = ctl_daemon_simple("reload", NULL, 60, NULL);

	if (ctl_daemon_absent(r))
		fprintf(stderr, "%s: pmemramd is not running (no %s): the change takes effect when it starts\n",
			program_invocation_short_name, ctl_socket_path());
	return r;
}

int ctl_daemon_missing(const char *command)
{
	fprintf(stderr, "%s %s: pmemramd is not running (no %s)%s\n", program_invocation_short_name, command,
		ctl_socket_path(), streq(command, "reconcile") ? "; start it, or use --local" : "");
	return CTL_EXIT_NO_DAEMON;
}

int ctl_call_failed(const char *command, int r)
{
	if (ctl_daemon_absent(r))
		return ctl_daemon_missing(command);
	if (r == -EPERM)
		return CTL_EXIT_SYSTEM;
	fprintf(stderr, "%s %s: talking to pmemramd: %s\n", program_invocation_short_name, command, strerror(-r));
	return CTL_EXIT_SYSTEM;
}

/* Print a reply (JSON, or human through print), and turn its "ok" into an exit code. */
int ctl_finish_reply(struct json_object *reply, bool json, void (*print)(struct json_object *))
{
	struct json_object *ok;
	bool success = json_object_object_get_ex(reply, "ok", &ok) && json_object_get_boolean(ok);

	if (json) {
		if (ctl_print_json(json_object_get(reply), true) < 0) {
			json_object_put(reply);
			return CTL_EXIT_SYSTEM;
		}
	} else {
		print(reply);
	}
	json_object_put(reply);
	if (ctl_flush_stdout() != CTL_EXIT_OK)
		return CTL_EXIT_SYSTEM;
	return success ? CTL_EXIT_OK : CTL_EXIT_FAILED;
}
