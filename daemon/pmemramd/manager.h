/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd: the manager's state, shared by the event loop, the reconciler glue and the socket server. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "pmemram-config.h"
#include "pmemram-class.h"
#include "pmemram-hotplug-policy.h"
#include "pmemram-shuffle-policy.h"
#include "pmemram-protocol.h"
#include "pmemram-reconcile.h"
#include "pmemram-tiering.h"
#include "pmemram.h"
#include "messages.h"

struct json_object;

struct udev;
struct udev_monitor;
struct json_object;
struct manager_export;

#define MANAGER_CONFIG_ERRORS_MAX 4096 /* bytes of the last failed reload's messages */

/* A tiering class as last applied. */
struct manager_class {
	char name[PMEMRAM_CLASS_NAME_MAX];
	char nodes[128];  /* resolved, "" when it could not be */
	char error[256];  /* why not, "" when its slice is as resolved */
	char demotion_escape[128];    /* with demotion on, slow nodes outside the class it may demote to */
	uint64_t protect;	      /* protect = SIZE as its slice has it, 0 none */
	int protect_state;	      /* 1 in effect, 0 not known (no cgroup yet), -1 memory.low differs */
	uint64_t memory_low;	      /* the slice cgroup's memory.low as last read (protect_state != 0) */
	struct pmemram_nodemask mask; /* nodes, as a mask */
	bool written;		      /* its slice written in this pass, to apply to the running unit */
	/* mode = weighted-interleave: the weights wanted ("1:3,2:1", "" none), why they are not in force
	 * ("" when they are), and what pmemramd last wrote, to tell another writer's change */
	char weights[160];
	char weights_error[256];
	struct pmemram_weights wanted_weights, written_weights;
};

/* A node's promote and demote counters when pmemramd first saw the node (or the system's, node
 * -1, when it first read them): the status reply gives the increase since. */
struct manager_node_counters {
	int node;
	uint64_t since_usec; /* CLOCK_REALTIME of the reading */
	size_t n;
	struct pmemram_vmstat_counter base[PMEMRAM_VMSTAT_MAX];
};

struct manager {
	sd_event *event;
	struct pmemram_ctx *ctx;

	/* configuration: the one in force, and what the last load said */
	const char *config_dir;
	const char *daxctl_dir; /* daxctl's configuration, read as claims (pmemram.conf(5)) */
	struct pmemram_config *config;
	bool configured;		 /* false: no configuration found, nothing claimed */
	char config_error[MANAGER_CONFIG_ERRORS_MAX]; /* last failed (re)load, "" when it succeeded */
	uint64_t config_loaded_usec;	 /* CLOCK_REALTIME of the configuration in force */

	/* triggers */
	struct udev *udev;
	struct udev_monitor *monitor;
	sd_event_source *monitor_source;
	sd_event_source *coalesce_source; /* a one-shot timer: many uevents, one reconcile */
	uint64_t coalesce_usec;
	unsigned n_uevents;
	unsigned n_uevents_echo;   /* of those, caused by the last reconcile's own actions */
	unsigned n_uevents_lost;   /* receive failures (a full socket buffer): a reconcile each */
	uint64_t last_end_usec;	   /* CLOCK_MONOTONIC when the last reconcile ended */
	uint64_t echo_from, echo_to; /* kernel uevent numbers sent while it ran: (from, to] */

	/* readiness: READY=1 once every claim matched something, or the settle timeout passed */
	bool ready;
	uint64_t settle_usec;
	sd_event_source *settle_source;

	/* the last reconcile */
	struct pmemram_reconcile_result *last;
	struct json_object *dax_devices; /* each device's provenance, from its observation; NULL: none */
	/* set while its classes, shuffle, export and provenance wait to run from the loop, after the
	 * reply (manager_followup_flush()) */
	sd_event_source *followup_source;
	int last_r;
	uint64_t last_usec; /* CLOCK_REALTIME when it finished */
	uint64_t last_duration_usec;
	unsigned n_reconciles;
	char last_error[256]; /* when the system could not be read */
	/* The shuffle policy against the kernel and the boot configuration, evaluated at every
	 * (re)load of the configuration; pmemramd reports it, pmemramctl shuffle apply writes it. */
	bool shuffle_known;
	struct pmemram_shuffle_policy shuffle;
	/* On a kernel that switches nodes at runtime, each reconcile writes the nodes that differ
	 * (manager_apply_shuffle()); a node refused or failed once is reported once and left alone
	 * until the configuration is loaded again. */
	struct pmemram_nodemask shuffle_refused;
	/* The hotplug policy against the kernel and the boot configuration, evaluated at every (re)load
	 * of the configuration; pmemramd reports it, pmemramctl hotplug apply writes it. */
	bool hotplug_known;
	struct pmemram_hotplug_policy hotplug;
	/* tiering classes, applied after each reconcile (classes.c) */
	size_t n_classes;
	struct manager_class *classes;
	unsigned n_slice_reloads;
	bool slice_reload_pending; /* slices changed but systemd's reload failed: retried */
	bool classes_pruned;	   /* no class configured, and no slice left since the last load */
	const char *slice_dir;	   /* where the slices go: PMEMRAM_SLICE_DIR, or $PMEMRAM_SLICE_DIR */
	bool slice_dir_is_systemds; /* it is systemd's runtime unit directory: reload systemd after */
	bool demotion_absent_logged;
	int demotion; /* demotion_enabled as last read: 1, 0, -1 unknown */
	bool promotion_absent_logged;
	int promotion_r; /* how promotion was last read: 0, or -errno (promotion then not known) */
	struct pmemram_promotion promotion;
	size_t n_node_counters; /* one per node seen since the start, in the order seen */
	struct manager_node_counters *node_counters;
	bool system_counters_known; /* system_counters was read */
	struct manager_node_counters system_counters;

	/* WatchdogSec= (0: none), and when manager_progress() last pinged it (CLOCK_MONOTONIC) */
	uint64_t watchdog_usec;
	uint64_t last_ping_usec;

	/* A run of blocks the kernel onlined during a kmem bind, read back and not logged yet
	 * (manager_action_done()): n blocks, from first's. */
	struct {
		struct pmemram_apply_result first;
		size_t n;
	} onlined;

	/* the release in progress (manager-release.c), NULL when none */
	struct manager_release *release;

	/* devices release gave back, kept in runtime_dir/held across restarts */
	char *runtime_dir;
	int lock_fd; /* runtime_dir/PMEMRAMD_LOCK_FILE, locked while we run; -1 before */
	size_t n_held;
	char *held[PMEMRAM_HELD_MAX];
	char *held_id[PMEMRAM_HELD_MAX]; /* what each was (pmemram_dax_identity_read()); NULL unknown */

	/* control socket */
	char *socket_path;
	int listen_fd;
	sd_event_source *listen_source;
	sd_event_source *accept_retry_source; /* re-enables listen_source after EMFILE */
	size_t n_clients;		       /* connections open */
	uid_t client_uids[64];		       /* their peers' uids (server.c's CLIENTS_MAX) */
	size_t n_client_uids;
	/* Bursts of refusals (server.c): accepting paused, and per uid connections turned away.  Each
	 * is a notice when it starts; what follows is counted, and said when the burst ends, after a
	 * quiet while. */
	uint64_t paused_last_usec; /* 0: no burst */
	unsigned paused_more;
	struct {
		uid_t uid;
		unsigned more;
		uint64_t last_usec;
	} refusing[16];
	size_t n_refusing;
	sd_event_source *refusals_source; /* ends the bursts that went quiet */

	/* files for others (manager-export.c): NULL when not asked for */
	const char *metrics_path; /* --metrics-textfile: Prometheus text for node_exporter */
	const char *nfd_path;	  /* --nfd-features: a node-feature-discovery feature file */
	struct manager_export *export;
	sd_event_source *export_source;

	bool journal; /* log through sd_journal_send(), else stderr */
};

/* ---- logging (log.c) ---- */
/* Log one line of information or debug; fields are extra "KEY=value" strings for the journal,
 * NULL-terminated.  Anything worth a notice or more is an event (below). */
void manager_log(struct manager *m, int priority, const char *const *fields, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
#define mlog(m, prio, ...) manager_log((m), (prio), NULL, __VA_ARGS__)
/* Log one event of a kind in messages.h, with its MESSAGE_ID and priority, and the fields. */
void manager_event(struct manager *m, enum manager_event e, const char *const *fields, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
#define mevent(m, e, ...) manager_event((m), (e), NULL, __VA_ARGS__)
/* The same with the one field PMEMRAM_DEVICE=device. */
void manager_device_event(struct manager *m, enum manager_event e, const char *device, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
void manager_log_init(struct manager *m);
void manager_log_library(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
			 const char *format, va_list args) __attribute__((format(printf, 6, 0)));

/* ---- manager.c ---- */
int manager_load_config(struct manager *m, bool initial);
/* Reconcile now: returns the reconcile's code; m->last holds the result. */
int manager_reconcile(struct manager *m, const char *why);
/* Run the last reconcile's followup (classes, shuffle, export, provenance) now if it is pending. */
void manager_followup_flush(struct manager *m);
/* Ask for a reconcile soon (coalescing uevents). */
void manager_schedule_reconcile(struct manager *m);
int manager_hold(struct manager *m, const char *device);
int manager_unhold(struct manager *m, const char *device);
bool manager_is_held(const struct manager *m, const char *device);
int manager_load_held(struct manager *m);
/* Put back an auto_online_blocks value that a kmem bind interrupted by a crash left changed. */
void manager_undo_auto_online(struct manager *m);
/* Drop the holds that stand for nothing given back any more (see manager.c), logging why; at_start
 * also those on devices still bound to kmem (a release the daemon did not live to finish). */
void manager_drop_stale_holds(struct manager *m, bool at_start);
/* The event loop (manager-loop.c): uevents, signals, the socket, the settle timer, until SIGTERM;
 * 0 or -errno.  manager_free() releases what main() and the loop set up. */
int manager_run(struct manager *m);
void manager_free(struct manager *m);
void manager_notify_status(struct manager *m);
/* Apply progress callback (userdata: the manager): pings the watchdog (at most every quarter of its
 * interval), logs the step at debug. */
struct pmemram_action;
void manager_progress(struct pmemram_ctx *ctx, const struct pmemram_action *a, size_t index, size_t total,
		      void *userdata);
/* Apply done callback (userdata: the manager): each action in the journal as it completes, with
 * structured fields; the reconcile's and the release's alike.  Blocks the kernel onlined during a
 * kmem bind are logged as one line per run of them, when the run ends or manager_action_flush()
 * is called (after each pmemram_reconcile() and pmemram_release()). */
struct pmemram_apply_result;
void manager_action_done(struct pmemram_ctx *ctx, const struct pmemram_apply_result *res, void *userdata);
void manager_action_flush(struct manager *m);
/* The "status" reply's payload. */
int manager_status_json(struct manager *m, struct json_object **ret);

/* ---- release in a child process (manager-release.c) ---- */
/* When a release ended, on the loop: r is 0 (released) or -errno; report is the release report as
 * JSON (borrowed), NULL when there is none, and error one line saying why when r < 0. */
typedef void (*manager_release_done_fn)(struct manager *m, const char *device, int r, struct json_object *report,
					const char *error, void *userdata);
/* Hold device and release it in a child process; done is called once it ended, which may be
 * before this returns 0 (when the loop cannot watch the child, it waits for it at once).  -EBUSY
 * while another release runs (reconciles wait for it too). */
int manager_release_start(struct manager *m, const char *device, manager_release_done_fn done, void *userdata);
/* The device being released, or NULL. */
const char *manager_release_device(const struct manager *m);
/* Block until the release in progress ended (at exit), settling it as the loop would. */
void manager_release_wait(struct manager *m);

/* ---- tiering classes (classes.c) ---- */
/* Resolve every class, write the slices that change (then reload systemd), remove those of
 * classes gone, and set the demotion switch; problems are logged and kept per class.  The NUMA
 * nodes it read go to *topology (NULL when it read none) for the caller to pass on or free. */
int manager_apply_classes(struct manager *m, struct pmemram_topology **topology);
/* After each reconcile, on a kernel that switches shuffling per node: write each node's
 * nodeN/shuffle/enabled the policy wants otherwise.  topology: the nodes as just read (NULL: read). */
void manager_apply_shuffle(struct manager *m, const struct pmemram_topology *topology);
const struct manager_class *manager_find_class(const struct manager *m, const char *name);
/* [{"class", "slice", "nodes", "error", ..., "memory_per_node", "outside_nodes", ...}], the
 * memory read from the slices' cgroups now; NULL on allocation failure. */
struct json_object *manager_classes_json(const struct manager *m);
/* {"system": {"since_usec", "pgdemote_kswapd", ...} or null, "nodes": [{"node", "since_usec",
 * "pgdemote_kswapd", ...}]}: the counters' increase since pmemramd first read them, read now;
 * NULL on allocation failure. */
struct json_object *manager_tiering_counters_json(const struct manager *m);

/* ---- metrics and node features (manager-export.c), when a file is asked for ---- */
/* After each reconcile, before its observation goes: r is its code, duration how long it took. */
void manager_export_note_reconcile(struct manager *m, int r, uint64_t duration_usec);
/* A release that failed: its outcome (NULL without a report) and errno. */
void manager_export_note_release(struct manager *m, const char *outcome, int errnum);
/* Read what the kernel shows now and write the files; failures are logged when they change.
 * topology, when not NULL, is the NUMA nodes as just read (taken over and freed), else read. */
void manager_export_write(struct manager *m, struct pmemram_topology *topology);
/* Write them again every minute, for the counters. */
int manager_export_start(struct manager *m);
void manager_export_free(struct manager *m);

/* ---- server.c ---- */
/* 0 when the socket path is free or a socket (a killed predecessor's); -EEXIST, said, for anything else. */
int server_check_path(struct manager *m);
int server_open(struct manager *m);
void server_close(struct manager *m);
