/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd's event loop: uevents (coalesced, echoes of its own work left out), signals, the
 * control socket, the settle timer and the export timer, each a source of one sd-event loop. */
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <libudev.h>
#include <systemd/sd-daemon.h>

#include <json-c/json.h>

#include "macro.h"
#include "manager.h"

#define UEVENT_BUFFER_BYTES (4 * 1024 * 1024)
/* How long a new dax device's reconcile waits for a driver's bind uevent (see on_uevent()). */
#define ADD_GRACE_USEC (100 * 1000)

static void become_ready(struct manager *m, const char *why)
{
	if (m->ready)
		return;
	m->ready = true;
	m->settle_source = sd_event_source_disable_unref(m->settle_source);
	/* The reconcile that made it ready counted, and the export written once with both. */
	manager_followup_flush(m);
	mlog(m, LOG_INFO, "ready: %s", why);
	(void)sd_notify(false, "READY=1");
	manager_notify_status(m);
	manager_export_write(m, NULL);
}

/* Whether a claim of pmemram's own matches no device yet.  Claims from daxctl.conf.d are not
 * waited for: daxctl ignores a section for a UUID it does not find, so leftovers are common. */
static bool own_claim_unmatched(const struct manager *m)
{
	const struct pmemram_plan *plan = m->last->plan;

	for (size_t i = 0; i < plan->n_unmatched; i++) {
		const struct pmemram_claim *c =
			m->config ? pmemram_config_find_claim(m->config, plan->unmatched[i]) : NULL;

		if (!c || !c->from_daxctl)
			return true;
	}
	return false;
}

/* Ready once no claim of pmemram's own waits for its device (a claimed device that boots late is
 * onlined before the services ordered after us start), or when the settle timeout says to stop
 * waiting. */
static void check_ready(struct manager *m)
{
	if (m->ready)
		return;
	if (!m->last)
		become_ready(m, "the system could not be read");
	else if (m->last->plan->n_unmatched == 0)
		become_ready(m, "every claim matched a device");
	else if (!own_claim_unmatched(m))
		become_ready(m, "every claim of pmemram's own matched a device (daxctl.conf.d's are not waited for)");
}

static int on_settle_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	const struct pmemram_plan *plan = m->last ? m->last->plan : NULL;

	for (size_t i = 0; plan && i < plan->n_unmatched; i++) {
		char field[96];
		const char *fields[] = { field, NULL };

		(void)snprintf(field, sizeof(field), "PMEMRAM_CLAIM=%s", plan->unmatched[i]);
		manager_event(m, MANAGER_EVENT_SETTLE_TIMEOUT, fields,
			      "claim '%s' matched no device within the settle timeout", plan->unmatched[i]);
	}
	become_ready(m, "settle timeout passed");
	return 0;
}

static int on_coalesce(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	(void)manager_reconcile(m, "uevent");
	check_ready(m);
	return 0;
}

/* A reconcile delay_usec from now, or at the end of the coalescing window of the last reconcile's
 * end when that is later (the rest of a burst waits for the window); one already due earlier is
 * joined, one due later brought forward. */
static void schedule_reconcile_after(struct manager *m, uint64_t delay_usec)
{
	uint64_t now, due, at = 0;
	int enabled = SD_EVENT_OFF;

	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
		return;
	due = m->last_end_usec && now < m->last_end_usec + m->coalesce_usec ? m->last_end_usec + m->coalesce_usec : now;
	if (due < now + delay_usec)
		due = now + delay_usec;
	if (m->coalesce_source)
		(void)sd_event_source_get_enabled(m->coalesce_source, &enabled);
	if (enabled != SD_EVENT_OFF && (sd_event_source_get_time(m->coalesce_source, &at) < 0 || at <= due))
		return; /* already due: this event joins it */
	if (!m->coalesce_source) {
		/* Accuracy 1 µs: with sd-event's default (250 ms) the reconcile could start up to
		 * that much late, at the loop's next wake-up within it: often a client's request,
		 * which then waited for it. */
		if (sd_event_add_time(m->event, &m->coalesce_source, CLOCK_MONOTONIC, due, 1, on_coalesce, m) < 0)
			mevent(m, MANAGER_EVENT_RECONCILE_FAILED, "cannot schedule a reconcile: out of memory");
		return;
	}
	(void)sd_event_source_set_time(m->coalesce_source, due);
	(void)sd_event_source_set_enabled(m->coalesce_source, SD_EVENT_ONESHOT);
}

/* The first uevent after a quiet spell starts a reconcile at once; what follows within the
 * coalescing window of the last reconcile's end waits for the window. */
void manager_schedule_reconcile(struct manager *m)
{
	schedule_reconcile_after(m, 0);
}

/*
 * Whether a uevent is the echo of the last reconcile's own work: sent while it ran (its kernel
 * sequence number within the reconcile's window) about a dax device it rebound or a memory block
 * it added by binding kmem, onlined or offlined, with that action verified done.  Those changes
 * were read back before the reconcile ended, so they need no reconcile of their own.
 */
static bool uevent_is_echo(struct manager *m, struct udev_device *d, const char *subsystem)
{
	unsigned long long seq = udev_device_get_seqnum(d);
	const char *name = udev_device_get_sysname(d);
	const struct pmemram_reconcile_result *last = m->last;
	unsigned long block = 0;
	bool memory;

	if (!last || !name || m->echo_to == 0 || seq <= m->echo_from || seq > m->echo_to)
		return false;
	memory = streq(subsystem, "memory");
	if (memory && pmemram_parse_block_name(name, &block) < 0)
		return false;
	if (!memory && !streq(subsystem, "dax"))
		return false;
	for (size_t i = 0; i < last->n_results; i++) {
		const struct pmemram_apply_result *res = &last->results[i];
		const struct pmemram_action *a = &res->action;

		if (res->status != PMEMRAM_APPLY_DONE && res->status != PMEMRAM_APPLY_ALREADY)
			continue;
		if (memory ? (a->type == PMEMRAM_ACTION_ONLINE_BLOCK || a->type == PMEMRAM_ACTION_OFFLINE_BLOCK) &&
				     a->block == block
			   : streq(a->device, name))
			return true;
	}
	return false;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct udev_device *d;

	for (;;) {
		const char *action, *subsystem;

		errno = 0;
		d = udev_monitor_receive_device(m->monitor);
		if (!d) {
			/* Nothing more to read, or events were lost (ENOBUFS after a storm): then
			 * the machine is read whole, as it would be for the events themselves. */
			if (errno != 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				m->n_uevents_lost++;
				mevent(m, MANAGER_EVENT_UEVENTS_LOST, "uevents lost (%s): reconciling everything",
				       strerror(errno));
				manager_schedule_reconcile(m);
			}
			break;
		}
		action = udev_device_get_action(d);
		subsystem = udev_device_get_subsystem(d);
		m->n_uevents++;
		if (pmemram_ctx_get_log_priority(m->ctx) >= LOG_DEBUG)
			mlog(m, LOG_DEBUG, "uevent %s %s %s seq %llu", action ? action : "?", subsystem ? subsystem : "?",
			     udev_device_get_sysname(d), udev_device_get_seqnum(d));
		/* Memory blocks only matter when they arrive; dax and nd devices on every change, a new
		 * one once a driver has it.  The kernel sends a device's add before it probes its
		 * driver (an nd_dax's dax_pmem, which makes the dax device; device_dax; or kmem for
		 * memory it onlines itself, whose blocks' adds come during that probe, before it
		 * onlines them), and a reconcile in between would race the probe; the driver's bind,
		 * sent when the probe is done, starts it.  ADD_GRACE_USEC covers a device no driver
		 * takes, and blocks added otherwise (a DIMM). */
		if (subsystem && uevent_is_echo(m, d, subsystem))
			m->n_uevents_echo++;
		else if (action && streq(action, "add"))
			schedule_reconcile_after(m, ADD_GRACE_USEC);
		else if (!subsystem || !streq(subsystem, "memory"))
			manager_schedule_reconcile(m);
		udev_device_unref(d);
	}
	return 0;
}

static int monitor_open(struct manager *m)
{
	int r;

	m->udev = udev_new();
	if (!m->udev)
		return -ENOMEM;
	/* The kernel's uevents, not udev's: pmemramd reads sysfs alone, needing nothing udev does
	 * for a device (its node is devtmpfs's), and udev's rules (daxctl's spawns systemd-escape for
	 * every dax device) delay an event by hundreds of milliseconds on a slow machine. */
	m->monitor = udev_monitor_new_from_netlink(m->udev, "kernel");
	if (!m->monitor)
		return -errno ? -errno : -ENOMEM;
	r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "dax", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "memory", NULL);
	if (r >= 0)
		r = udev_monitor_filter_add_match_subsystem_devtype(m->monitor, "nd", NULL);
	/* Room for the events of a large device coming and going at once (a block's add, online,
	 * offline and remove); past it the kernel drops events and on_uevent() reconciles. */
	if (r >= 0) {
		int k = udev_monitor_set_receive_buffer_size(m->monitor, UEVENT_BUFFER_BYTES);

		if (k < 0)
			mlog(m, LOG_DEBUG, "cannot enlarge the uevent buffer: %s", strerror(-k));
	}
	if (r >= 0)
		r = udev_monitor_enable_receiving(m->monitor);
	if (r < 0)
		return r;
	return sd_event_add_io(m->event, &m->monitor_source, udev_monitor_get_fd(m->monitor), EPOLLIN, on_uevent, m);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	mlog(m, LOG_INFO, "SIGHUP: reloading the configuration");
	(void)sd_notify(false, "RELOADING=1");
	if (manager_load_config(m, false) >= 0)
		(void)manager_reconcile(m, "configuration reloaded");
	/* Still settling at start: READY=1 waits for the claims, as before the reload. */
	if (m->ready)
		(void)sd_notify(false, "READY=1");
	else
		check_ready(m);
	manager_notify_status(m);
	return 0;
}

void manager_free(struct manager *m)
{
	server_close(m);
	m->lock_fd = safe_close(m->lock_fd);
	manager_export_free(m);
	sd_event_source_disable_unref(m->monitor_source);
	sd_event_source_disable_unref(m->coalesce_source);
	sd_event_source_disable_unref(m->settle_source);
	sd_event_source_disable_unref(m->followup_source);
	udev_monitor_unref(m->monitor);
	udev_unref(m->udev);
	pmemram_reconcile_result_free(m->last);
	json_object_put(m->dax_devices);
	pmemram_config_free(m->config);
	for (size_t i = 0; i < m->n_held; i++) {
		free(m->held[i]);
		free(m->held_id[i]);
	}
	free(m->classes);
	free(m->node_counters);
	free(m->runtime_dir);
	free(m->socket_path);
	pmemram_ctx_unref(m->ctx);
	sd_event_unref(m->event);
}

/* One pmemramd per runtime directory: a second would put back the first's auto_online_blocks in
 * the middle of its bind, replace its socket, and reconcile beside it.  The lock, on a file of its
 * own, is held until exit; a killed daemon's goes with its process. */
static int lock_runtime_dir(struct manager *m)
{
	char path[PATH_MAX], pid[32];
	int r;

	if (mkdir(m->runtime_dir, 0755) < 0 && errno != EEXIST) {
		r = negative_errno();
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot create %s: %s", m->runtime_dir, strerror(-r));
		return r;
	}
	r = pmemram_daemon_lock(m->runtime_dir, path, sizeof(path), pid, sizeof(pid));
	if (r == -EWOULDBLOCK) {
		mevent(m, MANAGER_EVENT_START_FAILED,
		       "another pmemramd (pid %s) runs with %s (%s locked): not starting", pid[0] ? pid : "unknown",
		       m->runtime_dir, path);
		return -EBUSY;
	}
	if (r < 0) {
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot lock %s: %s", path, strerror(-r));
		return r;
	}
	m->lock_fd = r;
	return 0;
}

int manager_run(struct manager *m)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return negative_errno();

	r = sd_event_default(&m->event);
	if (r < 0)
		return r;
	if ((r = sd_event_add_signal(m->event, NULL, SIGTERM, NULL, NULL)) < 0 ||
	    (r = sd_event_add_signal(m->event, NULL, SIGINT, NULL, NULL)) < 0 ||
	    (r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m)) < 0)
		return r;
	/* WatchdogSec= in the unit: sd-event pings at half the interval while the loop runs. */
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		return r;
	if (sd_watchdog_enabled(false, &m->watchdog_usec) <= 0)
		m->watchdog_usec = 0;

	/* Before the lock, which creates a file beside the socket: --socket naming some other file
	 * must leave nothing behind. */
	r = server_check_path(m);
	if (r < 0)
		return r;
	r = lock_runtime_dir(m);
	if (r < 0)
		return r;
	r = manager_load_held(m);
	if (r < 0)
		mevent(m, MANAGER_EVENT_HELD_UNREADABLE, "cannot read the held devices in %s: %s", m->runtime_dir,
		       strerror(-r));
	manager_undo_auto_online(m);

	/* Listen before the first reconcile so that no uevent falls between reading and watching. */
	r = monitor_open(m);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot watch uevents: %s", strerror(-r));
		return r;
	}
	r = server_open(m);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot open the control socket %s: %s", m->socket_path,
		       strerror(-r));
		return r;
	}

	r = manager_export_start(m);
	if (r < 0) {
		mevent(m, MANAGER_EVENT_START_FAILED, "cannot schedule the metrics and node features: %s",
		       strerror(-r));
		return r;
	}

	(void)manager_reconcile(m, "start");
	check_ready(m);
	if (!m->ready) {
		uint64_t now;

		if (m->settle_usec == 0 || sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
			become_ready(m, "not waiting for unmatched claims");
		else if (sd_event_add_time(m->event, &m->settle_source, CLOCK_MONOTONIC, now + m->settle_usec, 0,
					   on_settle_timeout, m) < 0)
			become_ready(m, "cannot wait for unmatched claims");
		else
			mlog(m, LOG_INFO, "waiting up to %llu s for %zu claims to match a device",
			     (unsigned long long)(m->settle_usec / 1000000), m->last->plan->n_unmatched);
	}

	r = sd_event_loop(m->event);
	manager_followup_flush(m);
	(void)sd_notify(false, "STOPPING=1");
	/* A release half done would leave blocks offline and the hold unsettled: let it end. */
	manager_release_wait(m);
	mlog(m, LOG_INFO, "stopping");
	return r;
}
