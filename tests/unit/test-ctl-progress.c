/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl release and reclaim against a pmemramd stand-in that changes a device's
 * blocks in the fake sysfs before it answers: the progress line on a terminal, none through a pipe or
 * with --json; and status's line for a release in progress. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "macro.h"
#include "run-ctl.h"

/* dax5.0: three 128 MiB blocks, 200..202, soft-reserved memory on node 1. */
#define DEVICE "dax5.0"
#define FIRST_BLOCK 200UL
#define N_BLOCKS 3UL
#define REPLY "{\"ok\": true, \"reason\": \"done\"}\n"

static char sock[PATH_MAX];

static int setup(void **state)
{
	int r = fake_env_setup_hmat(state);
	struct fake_env *env = *state;

	if (r < 0)
		return r;
	for (unsigned long b = FIRST_BLOCK; b < FIRST_BLOCK + N_BLOCKS; b++)
		if (fake_sysfs_add_block(env->root, b, 1, "online", "Movable") < 0)
			return -1;
	if (fake_sysfs_add_hmem(env->root, 5, DEVICE, "kmem", 1, N_BLOCKS << 27, FIRST_BLOCK << 27) < 0)
		return -1;
	snprintf(sock, sizeof(sock), "%s/pmemramd.sock", env->root);
	return 0;
}

/* pmemramd's part: reads the request, turns the blocks to state one by one (NULL: leaves them), then
 * answers reply. */
static pid_t daemon_start(const char *root, const char *state, const char *reply)
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
		if (c < 0 || !strchr(buf, '\n'))
			_exit(2);
		for (unsigned long b = FIRST_BLOCK; state && b < FIRST_BLOCK + N_BLOCKS; b++) {
			nanosleep(&(struct timespec){ .tv_nsec = 300 * 1000 * 1000 }, NULL);
			if (fake_sysfs_set_block(root, b, state, "Movable") < 0)
				_exit(3);
		}
		_exit(write(c, reply, strlen(reply)) == (ssize_t)strlen(reply) ? 0 : 4);
	}
	close(fd);
	return pid;
}

static void daemon_wait(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(sock);
}

/* pmemramctl ARGS with stderr on a terminal: what it wrote there. */
static char *run_on_tty(const char *root, const char *const *args)
{
	const char *ctl = getenv("PMEMRAMCTL");
	char *out = calloc(1, 65536);
	size_t len = 0;
	int master, slave, status;
	pid_t pid;

	assert_non_null(ctl);
	assert_non_null(out);
	assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *argv[8] = { "pmemramctl" };
		int null = open("/dev/null", O_WRONLY);

		for (size_t i = 0; args[i] && i < ELEMENTSOF(argv) - 2; i++)
			argv[i + 1] = args[i];
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(slave, STDERR_FILENO) < 0 ||
		    setenv("PMEMRAM_SYSFS_ROOT", root, 1) < 0 || setenv("PMEMRAM_SOCKET", sock, 1) < 0)
			_exit(127);
		alarm(60);
		execv(ctl, (char **)argv);
		_exit(127);
	}
	close(slave);
	for (;;) {
		ssize_t n = read(master, out + len, 65535 - len);

		if (n <= 0) /* EIO once the child, the last holder of the terminal, has exited */
			break;
		len += (size_t)n;
	}
	close(master);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return out;
}

/* The counts shown never go down (which ones are seen between the first and the last depends on timing). */
static void expect_ascending(const char *err)
{
	unsigned long last = 0, n;

	for (const char *p = strchr(err, '\r'); p; p = strchr(p + 1, '\r'))
		if (sscanf(p, "\r%*s %*s %lu/", &n) == 1) {
			assert_true(n >= last);
			last = n;
		}
	assert_int_equal(last, N_BLOCKS);
}

static void expect_progress(void **state, const char *command, const char *done_state, const char *word)
{
	struct fake_env *env = *state;
	const char *args[] = { command, DEVICE, NULL };
	char first[96], last[96];
	pid_t pid = daemon_start(env->root, done_state, REPLY);
	_cleanup_(freep) char *err = run_on_tty(env->root, args);

	daemon_wait(pid);
	snprintf(first, sizeof(first), "\r%s %s: 0/%lu blocks %s", command, DEVICE, N_BLOCKS, word);
	snprintf(last, sizeof(last), "\r%s %s: %lu/%lu blocks %s\033[K\r\n", command, DEVICE, N_BLOCKS, N_BLOCKS, word);
	print_message("stderr: %s\n", err);
	assert_non_null(strstr(err, first));
	assert_non_null(strstr(err, last));
	expect_ascending(err);
}

static void test_release_progress(void **state)
{
	expect_progress(state, "release", "offline", "offline");
}

static void test_reclaim_progress(void **state)
{
	struct fake_env *env = *state;

	for (unsigned long b = FIRST_BLOCK; b < FIRST_BLOCK + N_BLOCKS; b++)
		assert_int_equal(fake_sysfs_set_block(env->root, b, "offline", "Movable"), 0);
	expect_progress(state, "reclaim", "online", "online");
}

/* Through a pipe, or with --json on a terminal: the reply alone. */
static void test_no_progress(void **state)
{
	struct fake_env *env = *state;
	const char *json[] = { "--json", "release", DEVICE, NULL };
	_cleanup_(freep) char *err = NULL;
	_cleanup_(freep) struct run *run = NULL;
	const char *env_vars[3] = {};
	char root_var[PATH_MAX + 32], sock_var[PATH_MAX + 32];
	pid_t pid;

	pid = daemon_start(env->root, "offline", REPLY);
	err = run_on_tty(env->root, json);
	daemon_wait(pid);
	assert_null(strstr(err, "blocks offline"));

	for (unsigned long b = FIRST_BLOCK; b < FIRST_BLOCK + N_BLOCKS; b++)
		assert_int_equal(fake_sysfs_set_block(env->root, b, "online", "Movable"), 0);
	snprintf(root_var, sizeof(root_var), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(sock_var, sizeof(sock_var), "PMEMRAM_SOCKET=%s", sock);
	env_vars[0] = root_var;
	env_vars[1] = sock_var;
	pid = daemon_start(env->root, "offline", REPLY);
	run = run_ctl_env(env_vars, (const char *const[]){ "release", DEVICE, NULL });
	daemon_wait(pid);
	assert_int_equal(run->status, 0);
	assert_null(strstr(run->err, "blocks offline"));
}

/* status while pmemramd says a release is running: the blocks offline so far. */
static void test_status_releasing(void **state)
{
	static const char reply[] =
		"{\"ok\": true, \"daemon\": {\"pid\": 7, \"ready\": true, \"config_dir\": \"/etc/pmemram\", "
		"\"configured\": true, \"last_reconcile_result\": \"converged\", "
		"\"releasing\": \"" DEVICE "\"}}\n";
	struct fake_env *env = *state;
	_cleanup_(freep) struct run *run = NULL;
	char root_var[PATH_MAX + 32], sock_var[PATH_MAX + 32];
	const char *env_vars[] = { root_var, sock_var, NULL };
	pid_t pid;

	assert_int_equal(fake_sysfs_set_block(env->root, FIRST_BLOCK, "offline", "Movable"), 0);
	snprintf(root_var, sizeof(root_var), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(sock_var, sizeof(sock_var), "PMEMRAM_SOCKET=%s", sock);
	pid = daemon_start(env->root, NULL, reply);
	run = run_ctl_env(env_vars, (const char *const[]){ "status", NULL });
	daemon_wait(pid);
	assert_int_equal(run->status, 0);
	if (!strstr(run->out, "\n  releasing " DEVICE ": 1/3 blocks offline\n"))
		fail_msg("no release line in: %s", run->out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_release_progress, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_reclaim_progress, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_no_progress, setup, fake_env_teardown),
		cmocka_unit_test_setup_teardown(test_status_releasing, setup, fake_env_teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
