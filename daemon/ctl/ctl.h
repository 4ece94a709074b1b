/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared declarations of the pmemramctl subcommands: exit codes, global options, helpers. */
#pragma once

#include <stdbool.h>

#include "pmemram-protocol.h"
#include "pmemram.h"

#define CTL_EXIT_OK 0
#define CTL_EXIT_USAGE 64 /* EX_USAGE, as pmemramd */
#define CTL_EXIT_SYSTEM 2
#define CTL_EXIT_CONFIG 3 /* configuration malformed or unreadable */
#define CTL_EXIT_FAILED 4    /* the change was attempted and did not (fully) succeed: see the output */
#define CTL_EXIT_NO_DAEMON 5 /* the command needs pmemramd, which is not running */

struct ctl_globals {
	bool json;
};

/* A subcommand: argv[0] is its name; returns a CTL_EXIT_* code. */
typedef int (*ctl_command_fn)(const struct ctl_globals *g, int argc, char **argv);

int cmd_status(const struct ctl_globals *g, int argc, char **argv);
int cmd_plan(const struct ctl_globals *g, int argc, char **argv);
int cmd_doctor(const struct ctl_globals *g, int argc, char **argv);
int cmd_reconcile(const struct ctl_globals *g, int argc, char **argv);
int cmd_release(const struct ctl_globals *g, int argc, char **argv);
int cmd_reclaim(const struct ctl_globals *g, int argc, char **argv);
int cmd_udev_online(const struct ctl_globals *g, int argc, char **argv);
int cmd_cache_report(const struct ctl_globals *g, int argc, char **argv);
int cmd_classes(const struct ctl_globals *g, int argc, char **argv);
int cmd_run(const struct ctl_globals *g, int argc, char **argv);

/* Open the library context (sysfs root from $PMEMRAM_SYSFS_ROOT); diagnostics on stderr. */
int ctl_ctx_new(struct pmemram_ctx **ret_ctx);
/* Report a failed read naming the file at fault; returns CTL_EXIT_SYSTEM. */
int ctl_read_failed(struct pmemram_ctx *ctx, const char *what, int r);
/* Report a usage error ("pmemramctl status: ..."); returns CTL_EXIT_USAGE. */
int ctl_usage_error(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* After getopt returned '?': name the offending option; returns CTL_EXIT_USAGE. */
int ctl_unknown_option(const char *command, char **argv);
/* The configuration directory: $PMEMRAM_CONFIG_DIR or PMEMRAM_CONFIG_DIR_DEFAULT. */
const char *ctl_config_dir(void);
/* daxctl's configuration directory: $PMEMRAM_DAXCTL_CONFIG_DIR or PMEMRAM_DAXCTL_CONFIG_DIR_DEFAULT. */
const char *ctl_daxctl_dir(void);
/* Add daxctl.conf.d's claims to c unless it says daxctl-conf = no, its warnings and conflicts
 * on stderr unless quiet: 0, or -ENOMEM. */
struct pmemram_config;
int ctl_load_daxctl(struct pmemram_config *c, bool quiet);
/* Print daxctl.conf.d's sections as pmemram_daxctl_to_json() gives them (nothing for none). */
struct json_object;
void ctl_print_daxctl(const char *dir, struct json_object *sections);
/* Print the messages of a failed load of the configuration in dir (or, without any, r's meaning). */
struct pmemram_config_errors;
void ctl_print_config_errors(const char *dir, const struct pmemram_config_errors *errors, int r);
/* Load the configuration in dir and daxctl.conf.d's claims (ctl_load_daxctl()): CTL_EXIT_OK with
 * *ret, which is empty (and *ret_configured false) when there is none, said on stderr unless
 * quiet; else an exit code, the errors printed. */
int ctl_load_config(const char *dir, bool quiet, struct pmemram_config **ret, bool *ret_configured);
/* Flush stdout at the end of a command: CTL_EXIT_OK, or CTL_EXIT_SYSTEM with a message. */
int ctl_flush_stdout(void);
/* Print root as pretty JSON when complete (every value was added) and drop it either way;
 * 0, or -ENOMEM when it was not printed. */
struct json_object;
int ctl_print_json(struct json_object *root, bool complete);

/* ---- claims (cmd-claim.c) ---- */
/* What ctl_claim_write() did: "created", "replaced" or "unchanged", and the drop-in's path. */
struct ctl_claim_written {
	const char *action;
	char path[4096];
};
/* pmemramctl claim NAME --uuid UUID --online ZONE in dir, without asking pmemramd to reload and,
 * with json, without output: CTL_EXIT_OK and *ret, or an exit code with the reason on stderr. */
int ctl_claim_write(const char *dir, const char *name, const char *uuid, enum pmemram_zone zone, bool json,
		    struct ctl_claim_written *ret);
/* pmemramctl claim --from-daxctl [FILE] (cmd-claim-daxctl.c). */
int ctl_claim_from_daxctl(const char *dir, const char *file, bool json);

/* ---- the daemon (daemon-client.c) ---- */
/* $PMEMRAM_SOCKET or PMEMRAM_SOCKET_PATH. */
const char *ctl_socket_path(void);
/* Send request (always consumed) and read the reply within timeout_s seconds: 0 and *ret_reply;
 * -ENOENT/-ECONNREFUSED when pmemramd is not running (see ctl_daemon_absent()), other -errno. */
int ctl_daemon_call(struct json_object *request, int timeout_s, struct json_object **ret_reply);
/* The same, calling tick(userdata) every CTL_TICK_USEC while the reply is awaited. */
#define CTL_TICK_USEC (200 * USEC_PER_MSEC)
int ctl_daemon_call_ticking(struct json_object *request, int timeout_s, void (*tick)(void *), void *userdata,
			    struct json_object **ret_reply);
bool ctl_daemon_absent(int r);
/* {"command": command[, "device": device]}: 0 when the reply says ok; otherwise the reason is printed
 * on stderr and the reply's errno (or -EPROTO) returned, never one that ctl_daemon_absent() takes
 * for "not running".  *ret_reply (may be NULL) gets the reply in both cases. */
int ctl_daemon_simple(const char *command, const char *device, int timeout_s, struct json_object **ret_reply);
int ctl_daemon_simple_ticking(const char *command, const char *device, int timeout_s, void (*tick)(void *),
			      void *userdata, struct json_object **ret_reply);
/* Ask a running pmemramd to re-read its configuration: 0; when it is not running, says so on
 * stderr and returns a ctl_daemon_absent() code; other -errno when it refused (reason printed). */
int ctl_daemon_reload(void);

/* ---- the progress line (progress.c) ---- */
/* A device's blocks counted while pmemramd releases (offline) or reclaims (online) it, on stderr as one
 * line rewritten in place when it changes: only when stderr is a terminal and not for --json. */
struct ctl_progress {
	struct pmemram_ctx *ctx; /* NULL: nothing shown */
	const char *verb;
	struct pmemram_dax device; /* as it was when the request went out */
	bool online;
	struct pmemram_block_span span;
	size_t shown; /* the count last printed, SIZE_MAX none */
};
/* Of the device's whole blocks (total), how many m shows online (online) or offline (done); pure.
 * -ERANGE when the device's range is unknown (not root) or holds no whole block. */
int ctl_device_blocks_count(const struct pmemram_dax *d, const struct pmemram_memory *m, bool online, size_t *ret_done,
			    size_t *ret_total);
void ctl_progress_start(struct ctl_progress *p, bool json, const char *verb, const char *device, bool online);
/* For ctl_daemon_simple_ticking(): userdata is the struct ctl_progress. */
void ctl_progress_tick(void *userdata);
/* The last count, and the line ended. */
void ctl_progress_end(struct ctl_progress *p);

/* How long a request that changes the system may take: a release migrates pages. */
#define CTL_CHANGE_TIMEOUT_S 600
/* Says pmemramd is not running on stderr: CTL_EXIT_NO_DAEMON. */
int ctl_daemon_missing(const char *command);
/* The exit code for a failed ctl_daemon_call() (said on stderr). */
int ctl_call_failed(const char *command, int r);
/* Print a reply (JSON, or human through print), and turn its "ok" into an exit code. */
int ctl_finish_reply(struct json_object *reply, bool json, void (*print)(struct json_object *));
/* Human output of a reconcile reply (or of a local result converted to JSON). */
void ctl_print_reconcile_json(struct json_object *o);

/* name in pmemramd's runtime directory (the socket's), or that directory for NULL: 0 or -errno. */
int ctl_runtime_path(const char *name, char *buf, size_t size);
/* Take pmemramd's lock (PMEMRAMD_LOCK_FILE) for work in this process, so that neither runs beside
 * the other: the locked descriptor, or a CTL_EXIT_* code (negated) after saying why. */
int ctl_lock_runtime(void);

/* The devices pmemramd holds after a release (PMEMRAM_HELD_FILE in the socket's directory). */
struct ctl_held {
	size_t n;
	char *names[PMEMRAM_HELD_MAX];
};
/* The holds that still stand for the device now behind their name (stale ones left out). */
void ctl_held_read(struct pmemram_ctx *ctx, struct ctl_held *h);
void ctl_held_done(struct ctl_held *h);

/* ---- claim and unclaim (claim.c): pmemramctl's own drop-in per claim ---- */
int cmd_claim(const struct ctl_globals *g, int argc, char **argv);
int cmd_unclaim(const struct ctl_globals *g, int argc, char **argv);

/* ---- the boot configuration (boot.c): shuffle and hotplug apply write it ---- */
#include "pmemram-bootparam.h"

/* $PMEMRAM_BOOT_ROOT or "/": where etc/kernel/cmdline and etc/default/grub are looked for. */
const char *ctl_boot_root(void);
/* "/ROOT" for messages: "" for the running system's root. */
const char *ctl_boot_root_prefix(void);
/* Write values (and marker) of setting s into the boot configuration, as pmemram_bootparam_write(), then
 * update-grub (or $PMEMRAM_BOOT_UPDATE_COMMAND under $PMEMRAM_BOOT_ROOT).  command ("shuffle apply")
 * starts the messages on stderr, what ("page_alloc.shuffle") names the words in *ret_done; out gets
 * changed, path, update_command and update_status.  *ret_changed is set when a file was written or
 * removed, even when the update tool failed.  CTL_EXIT_OK or CTL_EXIT_FAILED, the reason printed. */
int ctl_boot_write(const char *command, const struct pmemram_boot_setting *s,
		   const char *const values[PMEMRAM_BOOT_KEYS_MAX], const char *marker, const char *what,
		   struct json_object *out, const char **ret_done, bool *ret_changed);

/* ---- hotplug policy (cmd-hotplug.c), also shown by status and doctor ---- */
#include "pmemram-hotplug-policy.h"

struct ctl_hotplug {
	struct pmemram_hotplug_running running;
	struct pmemram_bootparam boot;
	struct pmemram_hotplug_policy policy;
	int policy_r; /* 0, or < 0 when the policy could not be evaluated (the reason was printed) */
};

int cmd_hotplug(const struct ctl_globals *g, int argc, char **argv);
/* Read the kernel's policy and the boot configuration and evaluate c's hotplug-policy: CTL_EXIT_OK (with
 * h->policy_r < 0 when the boot configuration could not be read), or an exit code, the message printed. */
int ctl_hotplug_read(struct pmemram_ctx *ctx, const struct pmemram_config *c, struct ctl_hotplug *h);
/* "FILE:LINE" of the configuration's hotplug-policy key in buf, or NULL when it was not set. */
const char *ctl_hotplug_policy_origin(const struct pmemram_config *c, char *buf, size_t size);
/* Human lines: the kernel's way, the policy with its origin and state, the next boot, the exposure. */
void ctl_hotplug_print(const struct ctl_hotplug *h, const char *origin);
struct json_object *ctl_hotplug_json(const struct ctl_hotplug *h, const char *origin);

/* The arguments of "COMMAND [apply] [--dry-run] [--json] [--config DIR]" (shuffle, hotplug). */
struct ctl_apply_args {
	bool json, dry_run, apply; /* json preset from the global option */
	const char *config_dir;	   /* preset to ctl_config_dir() */
};

/* Put applied (apply's object, NULL when not applying; taken) into root as "apply", with dry_run and
 * result (done, the line apply printed). */
void ctl_apply_json(struct json_object *root, struct json_object *applied, bool dry_run, const char *done);
/* Parse them into a, help() for --help: -1 to go on, or the exit code (usage errors printed). */
int ctl_apply_args(const char *command, int argc, char **argv, void (*help)(void), struct ctl_apply_args *a);

/* ---- page shuffling policy (shuffle.c), also shown by status ---- */
#include "pmemram-shuffle-policy.h"

struct ctl_shuffle {
	struct pmemram_shuffle kernel;
	struct pmemram_topology *topology; /* read unless already set */
	char *cmdline;			   /* /proc/cmdline */
	struct pmemram_bootparam boot;
	struct pmemram_shuffle_policy policy;
	int policy_r; /* 0, or < 0 when the policy could not be evaluated (the reason was printed) */
};

int cmd_shuffle(const struct ctl_globals *g, int argc, char **argv);
/* Read the kernel's state, command line and boot configuration and evaluate policy: CTL_EXIT_OK, or an
 * exit code with the message printed. */
int ctl_shuffle_read(struct pmemram_ctx *ctx, enum pmemram_config_shuffle policy, const struct pmemram_nodemask *nodes,
		     struct ctl_shuffle *s);
void ctl_shuffle_done(struct ctl_shuffle *s);
/* ctl_shuffle_done(), then free it; for _cleanup_ of a struct ctl_shuffle * (NULL or calloc'ed). */
void ctl_shuffle_freep(struct ctl_shuffle **s);
/* "FILE:LINE" of the configuration's shuffle key in buf, or NULL when it was not set (the default). */
const char *ctl_shuffle_policy_origin(const struct pmemram_config *c, char *buf, size_t size);
/* Human lines (state, policy with origin "FILE:LINE" or NULL, its nodes, command lines), and the
 * JSON object.  live_nodes false: a live policy's nodes are left to the caller, which shows each
 * node once with the rest of what it says of the node (status). */
void ctl_shuffle_print(const struct ctl_shuffle *s, const char *policy_origin, bool live_nodes);
/* The policy's name for people ("nodes (shuffle-nodes = 0,2)" for shuffle-nodes), in buf or static. */
const char *ctl_shuffle_policy_name(const struct pmemram_shuffle_policy *p, char *buf, size_t size);
/* A node on a kernel with the runtime switch: "shuffled (hmat), in effect", into buf. */
const char *ctl_shuffle_node_text(const struct pmemram_shuffle_policy_node *n, char *buf, size_t size);
struct json_object *ctl_shuffle_json(const struct ctl_shuffle *s, const char *policy_origin);
