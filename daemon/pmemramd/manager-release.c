/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd: a release runs in a child process, so that migrating gigabytes never stalls the loop. */
#include <fcntl.h>
#include <signal.h>
#include <syslog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fileio.h"
#include "macro.h"
#include "manager.h"
#include "pmemram-release.h"

/*
 * Why a child and not a thread or a step machine: pmemram_release() is a sequence of blocking
 * sysfs writes (offlining one block migrates its pages and can take seconds), and the context it
 * uses keeps per-call state (the error path).  A child gets its own copy of everything, cannot
 * race the loop's reconciles and status replies, and reports one JSON object through a pipe; the
 * loop only reads that pipe.  The holds stay the loop's business.
 */

#define RELEASE_REPLY_MAX (4u << 20) /* bytes of JSON from the child: thousands of blocks */

struct manager_release {
	char device[32];
	pid_t pid;
	int fd;
	sd_event_source *io;
	char *buf;
	size_t len, allocated;
	bool overflow; /* the report outgrew RELEASE_REPLY_MAX: the rest is read and dropped */
	manager_release_done_fn done;
	void *userdata;
};

static void child_progress(struct pmemram_ctx *ctx, const struct pmemram_action *a, size_t index, size_t total,
			   void *userdata)
{
	struct manager *m = userdata;
	char line[PMEMRAM_PLAN_TEXT_MAX];

	if (pmemram_ctx_get_log_priority(ctx) >= LOG_DEBUG && pmemram_action_describe(a, line, sizeof(line)))
		mlog(m, LOG_DEBUG, "[%zu/%zu] %s", index + 1, total, line);
}

/* In the child: release, then one JSON object on fd: the report (or "error"), and "errno". */
__attribute__((noreturn)) static void child_run(struct manager *m, const char *device, int fd)
{
	struct pmemram_release_report *report = NULL;
	const struct pmemram_apply_options opts = {
		.progress = child_progress,
		.progress_userdata = m,
		.done = manager_action_done,
		.done_userdata = m,
	};
	struct json_object *o = NULL;
	const char *text;
	int r;

	r = pmemram_release(m->ctx, device, &opts, &report);
	manager_action_flush(m);
	if (report && pmemram_release_report_to_json(report, &o) < 0)
		o = NULL;
	if (!o) {
		o = json_object_new_object();
		if (o)
			(void)json_object_object_add(o, "error", json_object_new_string(strerror(r < 0 ? -r : ENOMEM)));
	}
	if (o)
		(void)json_object_object_add(o, "errno", json_object_new_int(r < 0 ? -r : 0));
	text = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
	_exit(text && write_all(fd, text, strlen(text)) == 0 ? 0 : 1);
}

static struct manager_release *release_free(struct manager_release *rel)
{
	if (!rel)
		return NULL;
	sd_event_source_disable_unref(rel->io);
	safe_close(rel->fd);
	free(rel->buf);
	free(rel);
	return NULL;
}

static const char *json_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

/* The child is done: reap it, settle the hold, hand the result to whoever asked. */
static void release_finish(struct manager *m)
{
	struct manager_release *rel = TAKE_PTR(m->release);
	struct json_object *o = NULL, *v;
	const char *outcome, *reason, *error;
	int status = 0, errnum = EIO;

	while (waitpid(rel->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rel->buf && rel->len > 0) {
		rel->buf[rel->len] = '\0';
		o = json_tokener_parse(rel->buf);
	}
	if (o && json_object_object_get_ex(o, "errno", &v))
		errnum = json_object_get_int(v);
	outcome = json_str(o, "outcome");
	reason = json_str(o, "reason");
	error = json_str(o, "error");
	if (!outcome || errnum != 0)
		manager_export_note_release(m, outcome, errnum ? errnum : EIO);

	if (!outcome) {
		/* Nothing was changed (refused before reading), or the child died: the loop cannot
		 * tell which, so the next reconcile finds out; no hold on what may not be given back. */
		(void)manager_unhold(m, rel->device);
		if (rel->overflow)
			manager_device_event(m, MANAGER_EVENT_RELEASE_LOST, rel->device,
					     "%s: the release report is larger than %u bytes (status %d)", rel->device,
					     RELEASE_REPLY_MAX, status);
		else if (!o)
			manager_device_event(m, MANAGER_EVENT_RELEASE_LOST, rel->device,
					     "%s: the release process ended without a report (status %d)", rel->device,
					     status);
		json_object_put(o);
		o = NULL;
		rel->done(m, rel->device, -(errnum ? errnum : EIO), NULL, error ? error : "the release process failed", rel->userdata);
	} else if (errnum != 0 && streq(outcome, pmemram_release_outcome_to_string(PMEMRAM_RELEASE_INCOMPLETE))) {
		/* Neither released nor put back: keep the hold so reconcile does not act on a device in
		 * a state nobody planned; the administrator decides (reclaim drops the hold). */
		manager_device_event(m, MANAGER_EVENT_RELEASE_INCOMPLETE, rel->device,
				     "%s: release failed and could not be undone, device held: %s", rel->device, reason);
		rel->done(m, rel->device, -errnum, o, reason, rel->userdata);
	} else if (errnum != 0) {
		/* Refused, or rolled back to how it was: it is claimed memory again. */
		(void)manager_unhold(m, rel->device);
		manager_device_event(m, MANAGER_EVENT_RELEASE_FAILED, rel->device, "%s: release %s: %s", rel->device,
				     outcome, reason ? reason : "");
		rel->done(m, rel->device, -errnum, o, reason, rel->userdata);
	} else {
		manager_device_event(m, MANAGER_EVENT_DEVICE_RELEASED, rel->device, "%s: released: %s; held until reclaimed",
				     rel->device, reason ? reason : "");
		rel->done(m, rel->device, 0, o, NULL, rel->userdata);
	}
	json_object_put(o);
	release_free(rel);
	manager_schedule_reconcile(m);
}

static int on_release_output(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct manager_release *rel = m->release;
	char drop[4096];
	ssize_t n;

	/* Too long to be a report: keep reading until the child closes the pipe, so that it never
	 * blocks in write() while release_finish() waits for it; what it says is dropped. */
	if (!rel->overflow && rel->len + sizeof(drop) + 1 > rel->allocated) {
		size_t want = rel->allocated ? rel->allocated * 2 : 65536;
		char *p;

		if (want > RELEASE_REPLY_MAX + 1)
			want = RELEASE_REPLY_MAX + 1;
		if (rel->len + 1 >= want) {
			rel->overflow = true;
			rel->len = 0;
		} else {
			p = realloc(rel->buf, want);
			if (!p)
				return 0; /* try again on the next wakeup */
			rel->buf = p;
			rel->allocated = want;
		}
	}
	if (rel->overflow)
		n = read(fd, drop, sizeof(drop));
	else
		n = read(fd, rel->buf + rel->len, rel->allocated - rel->len - 1);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n > 0) {
		if (!rel->overflow)
			rel->len += (size_t)n;
		return 0;
	}
	release_finish(m);
	return 0;
}

int manager_release_start(struct manager *m, const char *device, manager_release_done_fn done, void *userdata)
{
	_cleanup_(closep) int wfd = -1;
	struct manager_release *rel;
	int p[2], r;

	if (m->release)
		return -EBUSY;
	rel = calloc(1, sizeof(*rel));
	if (!rel)
		return -ENOMEM;
	rel->fd = -1;
	(void)snprintf(rel->device, sizeof(rel->device), "%s", device);
	rel->done = done;
	rel->userdata = userdata;

	/* Hold first: the uevents release causes must not bring the device back. */
	r = manager_hold(m, device);
	if (r < 0) {
		release_free(rel);
		return r;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = negative_errno();
		goto fail;
	}
	rel->fd = p[0];
	wfd = p[1];
	rel->pid = fork();
	if (rel->pid < 0) {
		r = negative_errno();
		goto fail;
	}
	if (rel->pid == 0) {
		rel->fd = safe_close(rel->fd);
		child_run(m, device, wfd);
	}
	wfd = safe_close(wfd);
	(void)fcntl(rel->fd, F_SETFL, O_NONBLOCK);
	r = sd_event_add_io(m->event, &rel->io, rel->fd, EPOLLIN, on_release_output, m);
	if (r < 0) {
		/* The child runs on; wait for it here rather than lose what it did. */
		m->release = rel;
		manager_release_wait(m);
		return 0;
	}
	m->release = rel;
	mlog(m, LOG_INFO, "%s: releasing (process %d)", device, (int)rel->pid);
	return 0;
fail:
	(void)manager_unhold(m, device);
	release_free(rel);
	return r;
}

const char *manager_release_device(const struct manager *m)
{
	return m->release ? m->release->device : NULL;
}

void manager_release_wait(struct manager *m)
{
	if (!m->release)
		return;
	mlog(m, LOG_INFO, "%s: waiting for the release in progress to end", m->release->device);
	(void)fcntl(m->release->fd, F_SETFL, 0);
	m->release->io = sd_event_source_disable_unref(m->release->io);
	while (m->release)
		(void)on_release_output(NULL, m->release->fd, EPOLLIN, m);
}
