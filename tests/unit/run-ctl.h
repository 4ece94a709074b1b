/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl ($PMEMRAMCTL) or pmemramd ($PMEMRAMD) for the end-to-end tests; JSON picking. */
#pragma once

#include <json-c/json.h>
#include <sys/types.h>

#define RUN_OUTPUT_MAX (256 * 1024)

struct run {
	int status; /* exit code, or -1 when killed */
	char out[RUN_OUTPUT_MAX];
	char err[RUN_OUTPUT_MAX];
};

/* Run pmemramctl with args (NULL-terminated, without argv[0]) and the environment plus env
 * ("NAME=value", NULL-terminated), PMEMRAM_LOG unset.  Fails the test when it cannot run. */
struct run *run_ctl_env(const char *const *env, const char *const *args);
/* The same for the program named by the environment variable binary_var, run as argv[0] name. */
struct run *run_program_env(const char *binary_var, const char *name, const char *const *env,
			    const char *const *args);
/* Shorthand: PMEMRAM_SYSFS_ROOT=root (and PMEMRAM_BOOT_ROOT=root, which has no boot loader files), then the arguments up to a NULL. */
struct run *run_ctl(const char *root, ...);

/* A listening socket at the path sock, for a pmemramd stand-in. */
int fake_daemon_listen(const char *sock);
/* Accept one client on fd and read its request up to its newline (or EOF, or size - 1 bytes) into
 * buf, NUL-terminated: the connection, or -1. */
int fake_daemon_accept(int fd, char *buf, size_t size);
/* A pmemramd stand-in listening on the socket path sock: answers one request with reply, then
 * exits 0 when the request was want (one line, with its newline).  Returns its pid. */
pid_t fake_daemon_start(const char *sock, const char *want, const char *reply);
/* Waits for the stand-in, fails the test unless it was asked want, and removes its socket. */
void fake_daemon_expect_asked(const char *sock, pid_t pid);

/* Value at a path like "nodes.1.memory_side_caches.0.indexing"; NULL for JSON null. */
struct json_object *json_at(struct json_object *o, const char *path);
/* The same, failing the test unless it is of the given type. */
struct json_object *json_typed_at(struct json_object *o, const char *path, enum json_type type);

#define json_int_at(o, path) json_object_get_int64(json_typed_at((o), (path), json_type_int))
#define json_string_at(o, path) json_object_get_string(json_typed_at((o), (path), json_type_string))
#define json_bool_at(o, path) json_object_get_boolean(json_typed_at((o), (path), json_type_boolean))
