/* pmemramd: keeps claimed persistent memory online as system RAM, driven by uevents, signals and requests. */
#include <getopt.h>
#include <signal.h>
#include <syslog.h>

#include <libudev.h>
#include <systemd/sd-daemon.h>

#include "macro.h"
#include "manager.h"
#include "pmemram-protocol.h"

#define DEFAULT_SETTLE_SEC 30
#define DEFAULT_COALESCE_MSEC 200
#define UEVENT_BUFFER_BYTES (4 * 1024 * 1024)
#define EXIT_CONFIG 78 /* EX_CONFIG: the unit does not restart on it */
#define EXIT_USAGE 64  /* EX_USAGE, as pmemramctl */

static void help(void)
{
	printf("Usage: %s [OPTIONS]\n"
	       "\n"
	       "Keep the persistent memory that the configuration claims online as system RAM.\n"
	       "\n"
	       "  -h --help               Show this help\n"
	       "  -V --version            Show the version\n"
	       "  -c --config DIR         Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT ")\n"
	       "  -s --socket PATH        Control socket (default $" PMEMRAM_SOCKET_ENV " or " PMEMRAM_SOCKET_PATH ")\n"
	       "     --settle-timeout SEC Wait this long at start for claimed devices to appear before\n"
	       "                          telling systemd we are ready (default %d, 0: do not wait)\n"
	       "     --coalesce-ms MS     Gather uevents this long before reconciling (default %d)\n"
	       "     --offline-timeout SEC\n"
	       "                          Give up offlining a memory block after this long during a\n"
	       "                          release (default %d, 0: never)\n"
	       "\n"
	       "See pmemramd(8).\n",
	       program_invocation_short_name, DEFAULT_SETTLE_SEC, DEFAULT_COALESCE_MSEC,
	       (int)(PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC / 1000000));
}

static int parse_seconds(const char *s, unsigned max, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || *s == '-')
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

static void become_ready(struct manager *m, const char *why)
{
	if (m->ready)
		return;
	m->ready = true;
	m->settle_source = sd_event_source_disable_unref(m->settle_source);
	mlog(m, LOG_INFO, "ready: %s", why);
	(void)sd_notify(false, "READY=1");
	manager_notify_status(m);
}

/* Ready once no claim waits for its device (a claimed device that boots late is onlined before
 * the services ordered after us start), or when the settle timeout says to stop waiting. */
static void check_ready(struct manager *m)
{
	if (m->ready)
		return;
	if (!m->last)
		become_ready(m, "the system could not be read");
	else if (m->last->plan->n_unmatched == 0)
		become_ready(m, "every claim matched a device");
}

static int on_settle_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	const struct pmemram_plan *plan = m->last ? m->last->plan : NULL;

	for (size_t i = 0; plan && i < plan->n_unmatched; i++)
		mlog(m, LOG_WARNING, "claim '%s' matched no device within the settle timeout", plan->unmatched[i]);
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

/* The first uevent after a quiet spell starts a reconcile at once; what follows within the
 * coalescing window of the last reconcile's end (the rest of a burst) waits for the window. */
void manager_schedule_reconcile(struct manager *m)
{
	uint64_t now, due;
	int enabled = SD_EVENT_OFF;

	if (m->coalesce_source)
		(void)sd_event_source_get_enabled(m->coalesce_source, &enabled);
	if (enabled != SD_EVENT_OFF)
		return; /* already due: this event joins it */
	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
		return;
	due = m->last_end_usec && now < m->last_end_usec + m->coalesce_usec ? m->last_end_usec + m->coalesce_usec : now;
	if (!m->coalesce_source) {
		if (sd_event_add_time(m->event, &m->coalesce_source, CLOCK_MONOTONIC, due, 0, on_coalesce, m) < 0)
			mlog(m, LOG_ERR, "cannot schedule a reconcile: out of memory");
		return;
	}
	(void)sd_event_source_set_time(m->coalesce_source, due);
	(void)sd_event_source_set_enabled(m->coalesce_source, SD_EVENT_ONESHOT);
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
				mlog(m, LOG_WARNING, "uevents lost (%s): reconciling everything", strerror(errno));
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
		/* Memory blocks only matter when they arrive; dax devices on every change. */
		if (subsystem && uevent_is_echo(m, d, subsystem))
			m->n_uevents_echo++;
		else if (!subsystem || !streq(subsystem, "memory") || (action && streq(action, "add")))
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
	m->monitor = udev_monitor_new_from_netlink(m->udev, "udev");
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
	sd_event_source_disable_unref(m->monitor_source);
	sd_event_source_disable_unref(m->coalesce_source);
	sd_event_source_disable_unref(m->settle_source);
	udev_monitor_unref(m->monitor);
	udev_unref(m->udev);
	pmemram_reconcile_result_free(m->last);
	pmemram_config_free(m->config);
	for (size_t i = 0; i < m->n_held; i++) {
		free(m->held[i]);
		free(m->held_id[i]);
	}
	free(m->classes);
	free(m->runtime_dir);
	free(m->socket_path);
	pmemram_ctx_unref(m->ctx);
	sd_event_unref(m->event);
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

	r = manager_load_held(m);
	if (r < 0)
		mlog(m, LOG_WARNING, "cannot read the held devices in %s: %s", m->runtime_dir, strerror(-r));

	/* Listen before the first reconcile so that no uevent falls between reading and watching. */
	r = monitor_open(m);
	if (r < 0) {
		mlog(m, LOG_ERR, "cannot watch uevents: %s", strerror(-r));
		return r;
	}
	r = server_open(m);
	if (r < 0) {
		mlog(m, LOG_ERR, "cannot open the control socket %s: %s", m->socket_path, strerror(-r));
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
	(void)sd_notify(false, "STOPPING=1");
	/* A release half done would leave blocks offline and the hold unsettled: let it end. */
	manager_release_wait(m);
	mlog(m, LOG_INFO, "stopping");
	return r;
}

int main(int argc, char **argv)
{
	enum { OPT_SETTLE = 0x100, OPT_COALESCE, OPT_OFFLINE_TIMEOUT };
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "settle-timeout", required_argument, NULL, OPT_SETTLE },
		{ "coalesce-ms", required_argument, NULL, OPT_COALESCE },
		{ "offline-timeout", required_argument, NULL, OPT_OFFLINE_TIMEOUT },
		{},
	};
	struct manager m = { .listen_fd = -1, .demotion = -1 };
	const char *socket_path = getenv(PMEMRAM_SOCKET_ENV);
	unsigned settle = DEFAULT_SETTLE_SEC, coalesce = DEFAULT_COALESCE_MSEC;
	unsigned offline_timeout = (unsigned)(PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC / 1000000);
	char *slash;
	int c, r;

	m.config_dir = getenv(PMEMRAM_CONFIG_DIR_ENV);
	if (!m.config_dir || !*m.config_dir)
		m.config_dir = PMEMRAM_CONFIG_DIR_DEFAULT;
	if (!socket_path || !*socket_path)
		socket_path = PMEMRAM_SOCKET_PATH;

	while ((c = getopt_long(argc, argv, "hVc:s:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case 'V':
			printf("pmemramd %s\n", PACKAGE_VERSION);
			return 0;
		case 'c':
			m.config_dir = optarg;
			break;
		case 's':
			socket_path = optarg;
			break;
		case OPT_SETTLE:
			if (parse_seconds(optarg, 3600, &settle) < 0) {
				fprintf(stderr, "pmemramd: --settle-timeout: '%s' is not a number of seconds 0..3600\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_COALESCE:
			if (parse_seconds(optarg, 10000, &coalesce) < 0) {
				fprintf(stderr, "pmemramd: --coalesce-ms: '%s' is not a number of milliseconds 0..10000\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_OFFLINE_TIMEOUT:
			if (parse_seconds(optarg, 86400, &offline_timeout) < 0) {
				fprintf(stderr, "pmemramd: --offline-timeout: '%s' is not a number of seconds 0..86400\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		default:
			fprintf(stderr, "Try 'pmemramd --help' for more information.\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmemramd: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}

	m.settle_usec = (uint64_t)settle * 1000000;
	m.coalesce_usec = (uint64_t)coalesce * 1000;
	manager_log_init(&m);
	m.socket_path = strdup(socket_path);
	m.runtime_dir = strdup(socket_path);
	if (!m.socket_path || !m.runtime_dir) {
		fprintf(stderr, "pmemramd: out of memory\n");
		return 1;
	}
	slash = strrchr(m.runtime_dir, '/');
	if (slash)
		*(slash == m.runtime_dir ? slash + 1 : slash) = '\0';
	else
		strcpy(m.runtime_dir, ".");

	r = pmemram_ctx_new(&m.ctx);
	if (r < 0) {
		mlog(&m, LOG_ERR, "cannot open sysfs: %s", strerror(-r));
		manager_free(&m);
		return 1;
	}
	pmemram_ctx_set_userdata(m.ctx, &m);
	pmemram_ctx_set_offline_timeout(m.ctx, (uint64_t)offline_timeout * 1000000);
	pmemram_ctx_set_log_fn(m.ctx, manager_log_library);

	r = manager_load_config(&m, true);
	if (r < 0) {
		mlog(&m, LOG_ERR, "not starting: the configuration in %s is not usable", m.config_dir);
		(void)sd_notifyf(false, "STATUS=configuration in %s is not usable\nERRNO=%d", m.config_dir, -r);
		manager_free(&m);
		return EXIT_CONFIG;
	}

	r = manager_run(&m);
	if (r < 0)
		(void)sd_notifyf(false, "STATUS=failed: %s\nERRNO=%d", strerror(-r), -r);
	manager_free(&m);
	return r < 0 ? 1 : 0;
}
