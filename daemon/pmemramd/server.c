/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd's control socket: one JSON request per connection, peer credentials decide what is allowed. */
#include <fcntl.h>
#include <libgen.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>

#include <json-c/json.h>

#include "macro.h"
#include "manager.h"
#include "pmemram-protocol.h"

#define CLIENT_TIMEOUT_USEC (10 * 1000000ULL)
/* Any local user may connect: bounded per uid and in all, with room kept for root. */
#define CLIENTS_MAX 64
#define CLIENTS_MAX_NONROOT 48
#define CLIENTS_PER_UID_MAX 8
#define ACCEPT_RETRY_USEC (1000000ULL) /* after EMFILE/ENFILE, with no client to wait for */
#define REFUSALS_QUIET_USEC (5 * 1000000ULL) /* a burst of refusals ends after this long without one */
_Static_assert(CLIENTS_MAX <= ELEMENTSOF(((struct manager *)0)->client_uids), "client_uids too small");

struct client {
	struct manager *m;
	int fd;
	struct ucred cred;
	bool pending;	  /* the reply comes later (a release in progress) */
	bool dispatching; /* its request is being handled: a reply that comes meanwhile waits in late */
	struct json_object *late;
	bool counted; /* in m->n_clients and m->client_uids */
	sd_event_source *io, *timeout;
	size_t len;
	char buf[PMEMRAM_REQUEST_MAX + 1];
	char *out; /* the reply being written, and how much of it is out */
	size_t out_len, out_off;
};

/* Accept again: after a client left, or a while after the kernel ran out of descriptors. */
static void listen_resume(struct manager *m)
{
	if (m->listen_source && m->n_clients < CLIENTS_MAX)
		(void)sd_event_source_set_enabled(m->listen_source, SD_EVENT_ON);
}

static void listen_pause(struct manager *m)
{
	if (m->listen_source)
		(void)sd_event_source_set_enabled(m->listen_source, SD_EVENT_OFF);
}

static size_t clients_of(const struct manager *m, uid_t uid)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_client_uids; i++)
		if (m->client_uids[i] == uid)
			n++;
	return n;
}

static void client_free(struct client *c)
{
	struct manager *m = c->m;

	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timeout);
	safe_close(c->fd);
	free(c->out);
	json_object_put(c->late);
	if (c->counted) {
		for (size_t i = 0; i < m->n_client_uids; i++)
			if (m->client_uids[i] == c->cred.uid) {
				m->client_uids[i] = m->client_uids[--m->n_client_uids];
				break;
			}
		m->n_clients--;
		listen_resume(m);
	}
	free(c);
}

static int on_client_timeout(sd_event_source *s, uint64_t usec, void *userdata);

/* Write what is left of the reply without blocking: 1 when all is out, 0 when the socket is full,
 * -errno when the client is gone. */
static int client_flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return n < 0 ? negative_errno() : -EPIPE;
		c->out_off += (size_t)n;
	}
	return 1;
}

static int on_client_writable(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;

	if (client_flush(c) != 0)
		client_free(c);
	return 0;
}

/*
 * Reply (taken) and a newline, then let the client go.  Never blocks the loop: what the socket
 * does not take at once is written as the client reads it, within the client's timeout (a local
 * user who connects and never reads costs a buffer, not the daemon's attention).
 */
static void client_send(struct client *c, struct json_object *reply)
{
	const char *text = reply ? json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN) : NULL;
	static const char oom[] = "{\"ok\":false,\"error\":\"out of memory\",\"errno\":12}";
	struct manager *m = c->m;
	uint64_t now;
	int r;

	if (!text)
		text = oom;
	c->out_len = strlen(text) + 1;
	c->out = malloc(c->out_len);
	if (c->out) {
		memcpy(c->out, text, c->out_len - 1);
		c->out[c->out_len - 1] = '\n';
	}
	json_object_put(reply);
	if (!c->out || client_flush(c) != 0) {
		client_free(c);
		return;
	}
	c->io = sd_event_source_disable_unref(c->io);
	c->timeout = sd_event_source_disable_unref(c->timeout);
	r = sd_event_add_io(m->event, &c->io, c->fd, EPOLLOUT, on_client_writable, c);
	if (r >= 0)
		r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(m->event, &c->timeout, CLOCK_MONOTONIC, now + CLIENT_TIMEOUT_USEC, 0,
				      on_client_timeout, c);
	if (r < 0)
		client_free(c);
}

static struct json_object *reply_error(int errnum, const char *format, ...) __attribute__((format(printf, 2, 3)));
static struct json_object *reply_error(int errnum, const char *format, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[512];
	va_list args;

	va_start(args, format);
	(void)vsnprintf(msg, sizeof(msg), format, args);
	va_end(args);
	if (!o)
		return NULL;
	if (json_object_object_add(o, "ok", json_object_new_boolean(false)) < 0 ||
	    json_object_object_add(o, "error", json_object_new_string(msg)) < 0 ||
	    (errnum > 0 && json_object_object_add(o, "errno", json_object_new_int(errnum)) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Add "ok": ok to payload (taken; NULL is out of memory). */
static struct json_object *reply_with(struct json_object *payload, bool ok)
{
	if (!payload || json_object_object_add(payload, "ok", json_object_new_boolean(ok)) < 0) {
		json_object_put(payload);
		return reply_error(ENOMEM, "out of memory");
	}
	return payload;
}

static struct json_object *do_status(struct manager *m)
{
	struct json_object *o = NULL;

	if (manager_status_json(m, &o) < 0)
		return reply_error(ENOMEM, "out of memory");
	return reply_with(o, true);
}

static struct json_object *do_reconcile(struct manager *m, const char *why)
{
	const char *busy = manager_release_device(m);
	struct json_object *o = NULL;
	int r;

	if (busy)
		return reply_error(EBUSY, "a release of %s is in progress; pmemramd reconciles when it ended", busy);

	r = manager_reconcile(m, why);
	if (!m->last)
		return reply_error(-r, "cannot read the system: %s", m->last_error);
	if (pmemram_reconcile_to_json(m->last, &o) < 0)
		return reply_error(ENOMEM, "out of memory");
	if (r < 0 && json_object_object_add(o, "error", json_object_new_string(r == -EAGAIN ? "work remains after the last round"
												: "an action failed: see results"))
			     < 0) {
		json_object_put(o);
		return reply_error(ENOMEM, "out of memory");
	}
	if (r < 0 && json_object_object_add(o, "errno", json_object_new_int(-r)) < 0) {
		json_object_put(o);
		return reply_error(ENOMEM, "out of memory");
	}
	return reply_with(o, r == 0);
}

static struct json_object *do_reload(struct manager *m)
{
	int r = manager_load_config(m, false);

	if (r < 0)
		return reply_error(-r == ENOENT ? EINVAL : -r, "%s (the previous configuration stays in force)",
				   m->config_error);
	return do_reconcile(m, "reload requested");
}

/* The reply to work that ended after its request: sent, or, when the work ended before its request
 * was handled (a release the loop could not watch, waited for at once), left for on_client_io(), which
 * still uses the client. */
static void client_reply_late(struct client *c, struct json_object *reply)
{
	if (c->dispatching) {
		json_object_put(c->late);
		c->late = reply;
		return;
	}
	client_send(c, reply);
}

/* The release ended: reply to the client that asked, then let it go. */
static void on_release_done(struct manager *m, const char *device, int r, struct json_object *report,
			    const char *error, void *userdata)
{
	struct client *c = userdata;
	struct json_object *o;

	if (!report) {
		client_reply_late(c, reply_error(-r, "%s: cannot release: %s", device, error ? error : strerror(-r)));
		return;
	}
	o = json_object_get(report);
	(void)json_object_object_del(o, "errno");
	if (r < 0 && (json_object_object_add(o, "error", json_object_new_string(error ? error : strerror(-r))) < 0 ||
		      json_object_object_add(o, "errno", json_object_new_int(-r)) < 0)) {
		json_object_put(o);
		o = reply_error(ENOMEM, "out of memory");
	} else {
		o = reply_with(o, r >= 0);
	}
	client_reply_late(c, o);
}

/* Start the release in a child process; the reply follows when it ends (NULL: pending). */
static struct json_object *do_release(struct client *c, const char *device)
{
	struct manager *m = c->m;
	const char *busy = manager_release_device(m);
	int r;

	if (busy)
		return reply_error(EBUSY, "a release of %s is in progress; try again when it ended", busy);
	r = manager_release_start(m, device, on_release_done, c);
	if (r < 0)
		return reply_error(-r, "%s: cannot release: %s", device, strerror(-r));
	c->pending = true;
	return NULL;
}

static struct json_object *do_reclaim(struct manager *m, const char *device)
{
	int r = manager_unhold(m, device);

	if (r == -ENOENT)
		return reply_error(ENOENT, "%s is not held (only devices given back with release are)", device);
	if (r < 0)
		return reply_error(-r, "%s: %s", device, strerror(-r));
	mlog(m, LOG_INFO, "%s: reclaimed: no longer held", device);
	return do_reconcile(m, "reclaim requested");
}

static struct json_object *dispatch(struct client *c, struct json_object *req)
{
	struct manager *m = c->m;
	struct json_object *v;
	const char *cmd, *device = NULL;
	bool root = c->cred.uid == 0;
	char shown[64];

	if (!json_object_is_type(req, json_type_object) || !json_object_object_get_ex(req, "command", &v) ||
	    !json_object_is_type(v, json_type_string))
		return reply_error(EINVAL, "malformed request: expected {\"command\": \"...\"}");
	cmd = json_object_get_string(v);
	if (json_object_object_get_ex(req, "device", &v))
		device = json_object_get_string(v);

	if (streq(cmd, "status"))
		return do_status(m);
	if (!streq(cmd, "reconcile") && !streq(cmd, "reload") && !streq(cmd, "release") && !streq(cmd, "reclaim"))
		/* Anyone's bytes: escaped before they reach a reply or the journal. */
		return reply_error(EINVAL, "unknown command '%s'", pmemram_name_escape(cmd, shown, sizeof(shown)));
	if (!root) {
		mevent(m, MANAGER_EVENT_REQUEST_REFUSED,
		       "refused '%s' from uid %u (pid %d): only root may change the system", cmd,
		       (unsigned)c->cred.uid, (int)c->cred.pid);
		return reply_error(EPERM, "'%s' needs root (you are uid %u)", cmd, (unsigned)c->cred.uid);
	}
	mlog(m, LOG_INFO, "'%s%s%s' requested by pid %d", cmd, device ? " " : "",
	     device ? pmemram_name_escape(device, shown, sizeof(shown)) : "", (int)c->cred.pid);
	if (streq(cmd, "reconcile"))
		return do_reconcile(m, "requested");
	if (streq(cmd, "reload"))
		return do_reload(m);
	if (!pmemram_dax_name_is_valid(device))
		return reply_error(EINVAL, "'%s' needs \"device\": a dax device name like dax0.0", cmd);
	if (streq(cmd, "release"))
		return do_release(c, device);
	return do_reclaim(m, device);
}

static int on_client_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;
	struct json_object *req, *reply;
	ssize_t n;
	char *nl;

	n = recv(fd, c->buf + c->len, PMEMRAM_REQUEST_MAX - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		client_free(c);
		return 0;
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	nl = memchr(c->buf, '\n', c->len);
	if (!nl) {
		if (c->len >= PMEMRAM_REQUEST_MAX) {
			client_send(c, reply_error(EMSGSIZE, "request longer than %d bytes", PMEMRAM_REQUEST_MAX));
		}
		return 0;
	}
	*nl = '\0';
	req = json_tokener_parse(c->buf);
	c->dispatching = true;
	reply = req ? dispatch(c, req) : reply_error(EINVAL, "malformed request: not JSON");
	c->dispatching = false;
	json_object_put(req);
	if (c->late) {
		/* The work ended before dispatch() returned: its reply is the one. */
		json_object_put(reply);
		reply = TAKE_PTR(c->late);
		c->pending = false;
	}
	if (c->pending) {
		/* Nothing more to read; the reply comes when the work ends, however long it takes. */
		c->io = sd_event_source_disable_unref(c->io);
		c->timeout = sd_event_source_disable_unref(c->timeout);
		return 0;
	}
	client_send(c, reply);
	return 0;
}

static int on_client_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	client_free(userdata);
	return 0;
}

static int on_accept_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->accept_retry_source = sd_event_source_disable_unref(m->accept_retry_source);
	listen_resume(m);
	return 0;
}

/* Turn away a connection over the limits: one error line if the socket takes it, then close. */
static void refuse(int fd, const char *why)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "{\"ok\":false,\"error\":\"%s\",\"errno\":%d}\n", why, EUSERS);

	if (n > 0)
		(void)send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	safe_close(fd);
}

static int on_refusals_quiet(sd_event_source *s, uint64_t usec, void *userdata);

/* Wake up at usec, when a burst in progress may have gone quiet (unless a wake-up is due already). */
static void refusals_watch(struct manager *m, uint64_t usec)
{
	int enabled = SD_EVENT_OFF;

	if (m->refusals_source)
		(void)sd_event_source_get_enabled(m->refusals_source, &enabled);
	if (enabled != SD_EVENT_OFF)
		return;
	if (!m->refusals_source) {
		/* Without it, bursts end at the next refusal after a quiet while, or at exit. */
		(void)sd_event_add_time(m->event, &m->refusals_source, CLOCK_MONOTONIC, usec, 0, on_refusals_quiet, m);
		return;
	}
	(void)sd_event_source_set_time(m->refusals_source, usec);
	(void)sd_event_source_set_enabled(m->refusals_source, SD_EVENT_ONESHOT);
}

/* End the bursts quiet since before now - REFUSALS_QUIET_USEC, saying what each counted. */
static void refusals_end_quiet(struct manager *m, uint64_t now)
{
	if (m->paused_last_usec && now >= m->paused_last_usec + REFUSALS_QUIET_USEC) {
		mlog(m, LOG_INFO, "accepting on the control socket again (paused %u more times after the notice)",
		     m->paused_more);
		m->paused_last_usec = 0;
	}
	for (size_t i = 0; i < m->n_refusing;) {
		if (now < m->refusing[i].last_usec + REFUSALS_QUIET_USEC) {
			i++;
			continue;
		}
		mlog(m, LOG_INFO, "no longer refusing connections of uid %u (%u more refused after the notice)",
		     (unsigned)m->refusing[i].uid, m->refusing[i].more);
		m->refusing[i] = m->refusing[--m->n_refusing];
	}
}

static int on_refusals_quiet(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	uint64_t now, next = UINT64_MAX;

	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
		return 0;
	refusals_end_quiet(m, now);
	if (m->paused_last_usec)
		next = m->paused_last_usec;
	for (size_t i = 0; i < m->n_refusing; i++)
		if (m->refusing[i].last_usec < next)
			next = m->refusing[i].last_usec;
	if (next != UINT64_MAX)
		refusals_watch(m, next + REFUSALS_QUIET_USEC);
	return 0;
}

/* A connection of uid turned away: a notice when it starts a burst, else counted.  More uids in
 * bursts at once than are tracked are turned away without a notice of their own. */
static void note_refused(struct manager *m, uid_t uid, uint64_t now)
{
	refusals_end_quiet(m, now);
	refusals_watch(m, now + REFUSALS_QUIET_USEC);
	for (size_t i = 0; i < m->n_refusing; i++)
		if (m->refusing[i].uid == uid) {
			m->refusing[i].more++;
			m->refusing[i].last_usec = now;
			return;
		}
	if (m->n_refusing >= ELEMENTSOF(m->refusing))
		return;
	m->refusing[m->n_refusing].uid = uid;
	m->refusing[m->n_refusing].more = 0;
	m->refusing[m->n_refusing++].last_usec = now;
	mevent(m, MANAGER_EVENT_CLIENTS_REFUSED, "refusing connections of uid %u: too many open (%zu in all)",
	       (unsigned)uid, m->n_clients);
}

/* Accepting paused for want of descriptors (errno still accept4()'s): a notice when it starts a
 * burst, else counted. */
static void note_paused(struct manager *m, uint64_t now)
{
	int saved = errno;

	refusals_end_quiet(m, now);
	refusals_watch(m, now + REFUSALS_QUIET_USEC);
	if (m->paused_last_usec)
		m->paused_more++;
	else {
		m->paused_more = 0;
		errno = saved;
		mevent(m, MANAGER_EVENT_ACCEPT_PAUSED, "cannot accept on the control socket: %m; pausing it");
	}
	m->paused_last_usec = now;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	socklen_t len = sizeof(struct ucred);
	struct ucred cred;
	struct client *c;
	uint64_t now;
	int cfd, r;

	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0) {
		/* Out of descriptors: the pending connection stays readable, so accepting again at once
		 * would spin.  Wait for a client to leave, or a second. */
		if ((errno == EMFILE || errno == ENFILE) && sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0) {
			note_paused(m, now);
			listen_pause(m);
			if (!m->accept_retry_source)
				(void)sd_event_add_time(m->event, &m->accept_retry_source, CLOCK_MONOTONIC,
							now + ACCEPT_RETRY_USEC, 0, on_accept_retry, m);
		}
		return 0;
	}
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		safe_close(cfd);
		return 0;
	}
	if (cred.uid != 0 && (m->n_clients >= CLIENTS_MAX_NONROOT || clients_of(m, cred.uid) >= CLIENTS_PER_UID_MAX)) {
		if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0)
			note_refused(m, cred.uid, now);
		refuse(cfd, "too many connections");
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		safe_close(cfd);
		return 0;
	}
	c->m = m;
	c->fd = cfd;
	c->cred = cred;
	c->counted = true;
	m->client_uids[m->n_client_uids++] = cred.uid;
	m->n_clients++;
	if (m->n_clients >= CLIENTS_MAX)
		listen_pause(m);
	r = sd_event_add_io(m->event, &c->io, cfd, EPOLLIN, on_client_io, c);
	if (r >= 0 && sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0)
		r = sd_event_add_time(m->event, &c->timeout, CLOCK_MONOTONIC, now + CLIENT_TIMEOUT_USEC, 0,
				      on_client_timeout, c);
	if (r < 0)
		client_free(c);
	return 0;
}

int server_check_path(struct manager *m)
{
	struct stat st;

	/* Replace only a socket (one left by a killed predecessor), never a file someone named. */
	if (lstat(m->socket_path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
		mevent(m, MANAGER_EVENT_START_FAILED, "%s exists and is not a socket: not replacing it",
		       m->socket_path);
		return -EEXIST;
	}
	return 0;
}

int server_open(struct manager *m)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_(freep) char *dir = NULL;
	mode_t mask;
	int r;

	/* Bound under a name of its own first: see below. */
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.new", m->socket_path) >= (int)sizeof(sa.sun_path))
		return -ENAMETOOLONG;

	dir = strdup(m->socket_path);
	if (!dir)
		return -ENOMEM;
	if (mkdir(dirname(dir), 0755) < 0 && errno != EEXIST) {
		r = negative_errno();
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot create %s: %s", dir, strerror(-r));
		return r;
	}

	r = server_check_path(m);
	if (r < 0)
		return r;
	m->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->listen_fd < 0)
		return negative_errno();
	/*
	 * Everyone may ask for status; changes are checked per request with SO_PEERCRED.  The socket
	 * is made with that mode and listening before it appears under its name, so that a client
	 * which sees the name never meets a socket still refusing it (EACCES before a chmod,
	 * ECONNREFUSED before listen()).
	 */
	(void)unlink(sa.sun_path);
	mask = umask(0111);
	r = bind(m->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(mask);
	if (r < 0 || listen(m->listen_fd, 16) < 0 || rename(sa.sun_path, m->socket_path) < 0) {
		r = negative_errno();
		(void)unlink(sa.sun_path);
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot listen on %s: %s", m->socket_path, strerror(-r));
		return r;
	}
	return sd_event_add_io(m->event, &m->listen_source, m->listen_fd, EPOLLIN, on_accept, m);
}

void server_close(struct manager *m)
{
	m->listen_source = sd_event_source_disable_unref(m->listen_source);
	m->accept_retry_source = sd_event_source_disable_unref(m->accept_retry_source);
	m->refusals_source = sd_event_source_disable_unref(m->refusals_source);
	refusals_end_quiet(m, UINT64_MAX - REFUSALS_QUIET_USEC); /* every burst, with its count */
	if (m->listen_fd >= 0) {
		m->listen_fd = safe_close(m->listen_fd);
		(void)unlink(m->socket_path);
	}
}
