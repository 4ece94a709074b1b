/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl ($PMEMRAMCTL) for the end-to-end tests, plays pmemramd for it, and picks
 * values out of its JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "run-ctl.h"

static void slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t k;

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	while (len < size - 1 && (k = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = '\0';
}

struct run *run_ctl_env(const char *const *env, const char *const *args)
{
	return run_program_env("PMEMRAMCTL", "pmemramctl", env, args);
}

struct run *run_program_env(const char *binary_var, const char *name, const char *const *env,
			    const char *const *args)
{
	const char *binary = getenv(binary_var), *tmp;
	char *argv[16] = { (char *)name };
	struct run *run = calloc(1, sizeof(*run));
	int out, err, wstatus;
	size_t argc = 1;
	pid_t pid;

	assert_non_null(run);
	assert_non_null(binary);

	for (; args && args[argc - 1]; argc++) {
		assert_true(argc < ELEMENTSOF(argv) - 1);
		argv[argc] = (char *)args[argc - 1];
	}
	argv[argc] = NULL;

	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	out = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	err = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	assert_true(out >= 0 && err >= 0);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0 || unsetenv("PMEMRAM_LOG") < 0)
			_exit(127);
		/* The host's daxctl.conf.d is not the test's: a test that wants one passes its own. */
		if (setenv("PMEMRAM_DAXCTL_CONFIG_DIR", "/nonexistent/daxctl.conf.d", 1) < 0)
			_exit(127);
		for (size_t i = 0; env && env[i]; i++)
			if (putenv((char *)env[i]) < 0)
				_exit(127);
		/* Survives exec: a program that hangs (a daemon that should have refused to start)
		 * is killed by SIGALRM and fails its test instead of stalling the suite. */
		alarm(60);
		execv(binary, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	run->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;

	slurp(out, run->out, sizeof(run->out));
	slurp(err, run->err, sizeof(run->err));
	close(out);
	close(err);
	return run;
}

struct run *run_ctl(const char *root, ...)
{
	const char *args[16];
	char *env[3] = {};
	struct run *run;
	size_t n = 0;
	va_list ap;

	va_start(ap, root);
	while (n < ELEMENTSOF(args) - 1 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;

	assert_true(asprintf(&env[0], "PMEMRAM_SYSFS_ROOT=%s", root) >= 0);
	/* Not the host's boot loader files: none (the tree has no etc/). */
	assert_true(asprintf(&env[1], "PMEMRAM_BOOT_ROOT=%s", root) >= 0);
	run = run_ctl_env((const char *const *)env, args);
	free(env[0]);
	free(env[1]);
	return run;
}

int fake_daemon_listen(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_true(strlen(sock) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	return fd;
}

int fake_daemon_accept(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t k;
	int c = accept(fd, NULL, NULL);

	if (c < 0)
		return -1;
	/* The whole request, up to its newline: answering earlier breaks the client's pipe. */
	while (len < size - 1 && !memchr(buf, '\n', len) && (k = read(c, buf + len, size - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = '\0';
	return c;
}

pid_t fake_daemon_start(const char *sock, const char *want, const char *reply)
{
	int fd = fake_daemon_listen(sock);
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[4096];
		int c;

		alarm(60);
		c = fake_daemon_accept(fd, buf, sizeof(buf));
		if (c < 0)
			_exit(2);
		if (write(c, reply, strlen(reply)) != (ssize_t)strlen(reply))
			_exit(3);
		close(c);
		_exit(streq(buf, want) ? 0 : 4);
	}
	close(fd);
	return pid;
}

void fake_daemon_expect_asked(const char *sock, pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(unlink(sock), 0);
}

struct json_object *json_at(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	assert_true(strlen(path) < sizeof(buf));
	strcpy(buf, path);
	for (char *key = strtok_r(buf, ".", &save); key; key = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			fail_msg("no key %s in %s", key, path);
		if (!o)
			return NULL;
	}
	return o;
}

struct json_object *json_typed_at(struct json_object *o, const char *path, enum json_type type)
{
	struct json_object *v = json_at(o, path);

	if (!v || !json_object_is_type(v, type))
		fail_msg("%s: missing or not a %s", path, json_type_to_name(type));
	return v;
}
