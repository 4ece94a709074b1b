/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pmemramd control socket: where it is and what travels over it. */
#pragma once

#include <stddef.h>

/*
 * A stream socket, one request per connection: the client writes one JSON object and a newline,
 * pmemramd answers with one JSON object and a newline and closes.  Every reply has "ok" (boolean);
 * a failed request has "error" (one line) and, when it makes sense, "errno" (a positive number).
 *
 * Requests ({"command": NAME, ...}):
 *   status     anyone    the daemon's view: configuration state, last reconcile, per-device verdicts
 *   reconcile  root      reconcile now; the reply carries the plan and the apply report
 *   reload     root      re-read the configuration (like SIGHUP), then reconcile
 *   release    root      "device": give a dax device's memory back and hold it until "reclaim"
 *   reclaim    root      "device": drop the hold release left, then reconcile
 * Peer credentials (SO_PEERCRED) decide "root": uid 0.
 */
#define PMEMRAM_SOCKET_DIR "/run/pmemram"
#define PMEMRAM_SOCKET_PATH PMEMRAM_SOCKET_DIR "/pmemramd.sock"
#define PMEMRAM_SOCKET_ENV "PMEMRAM_SOCKET" /* overrides the path, for tests */
#define PMEMRAM_REQUEST_MAX 4096	    /* bytes of one request, with the newline */
#define PMEMRAM_PROTOCOL_VERSION 1

/* The devices given back with release, one per line, "daxX.Y IDENTITY" (see
 * pmemram_dax_identity_read()), in the socket's directory: pmemramd writes the file; pmemramctl's
 * local paths (reconcile --local, udev-online) honour it too. */
#define PMEMRAM_HELD_FILE "held"
/* Locked (flock(LOCK_EX)) by pmemramd for its whole life, beside the socket: one daemon per runtime
 * directory.  Holds the pid of the daemon that has it. */
#define PMEMRAMD_LOCK_FILE "pmemramd.lock"
#define PMEMRAM_HELD_MAX 256

/* Read dir/PMEMRAM_HELD_FILE into names[0..*ret_n) and, when identities is not NULL, their
 * identities (NULL for a line without one), all malloc'ed; both have room for PMEMRAM_HELD_MAX.
 * Lines that do not start with a dax device name are skipped.  0, also when the file is absent
 * (*ret_n 0); -errno when it cannot be read. */
int pmemram_held_read(const char *dir, char **names, char **identities, size_t *ret_n);
/* Take dir/PMEMRAMD_LOCK_FILE without waiting, for pmemramd's life or the length of work that
 * must not run beside it, and write this process's pid into it: the locked descriptor.  -EWOULDBLOCK
 * when another holds it, with its pid in holder ("" when unknown); other -errno otherwise.  path
 * gets the lock file's path either way, for messages. */
int pmemram_daemon_lock(const char *dir, char *path, size_t path_size, char *holder, size_t holder_size);
