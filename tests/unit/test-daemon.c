/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramd: what it must refuse (command line, requests), its limits, its journal fields,
 * what it writes for others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "messages.h"
#include "pmemram-nfd.h"
#include "fake-sysfs.h"
#include "run-ctl.h"

struct dirs {
	char root[64];
	char config[96];
	char socket[96];
	char config_env[128];
	char daxctl_env[128]; /* PMEMRAM_DAXCTL_CONFIG_DIR=ROOT/daxctl.conf.d: none unless a test makes it */
	const char *log;      /* the daemon's stdout and stderr; NULL: /dev/null */
	const char *fail;     /* PMEMRAM_FAIL_EVENT for fail-event.so preloaded into the daemon; NULL: none */
};

static void make_dirs(struct dirs *d)
{
	snprintf(d->root, sizeof(d->root), "/tmp/pmemramd-test.XXXXXX");
	assert_non_null(mkdtemp(d->root));
	snprintf(d->config, sizeof(d->config), "%s/etc", d->root);
	assert_int_equal(mkdir(d->config, 0755), 0);
	snprintf(d->socket, sizeof(d->socket), "%s/file", d->root);
	snprintf(d->config_env, sizeof(d->config_env), "PMEMRAM_CONFIG_DIR=%s", d->config);
	snprintf(d->daxctl_env, sizeof(d->daxctl_env), "PMEMRAM_DAXCTL_CONFIG_DIR=%s/daxctl.conf.d", d->root);
	d->log = NULL;
	d->fail = NULL;
}

static void remove_dirs(struct dirs *d)
{
	char lock[128];

	snprintf(lock, sizeof(lock), "%s/pmemramd.lock", d->root);
	(void)unlink(lock);
	(void)unlink(d->socket);
	(void)rmdir(d->config);
	(void)rmdir(d->root);
}

/* path's content in buf (up to size - 1 bytes), "" when it cannot be read. */
static void read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* How many times s occurs in text. */
static unsigned count_of(const char *text, const char *s)
{
	unsigned n = 0;

	for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
		n++;
	return n;
}

/* --socket naming a file that is not a socket: refused, and the file left as it was. */
static void test_socket_not_replaced(void **state)
{
	struct dirs d;
	_cleanup_(freep) struct run *run = NULL;
	char content[32] = "";
	FILE *f;

	(void)state;
	make_dirs(&d);
	f = fopen(d.socket, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	{
		const char *env[] = { d.config_env, "PMEMRAM_LOG_TARGET=stderr", NULL };
		const char *args[] = { "--socket", d.socket, "--settle-timeout", "0", NULL };

		run = run_program_env("PMEMRAMD", "pmemramd", env, args);
	}
	assert_int_equal(run->status, 1);
	assert_non_null(strstr(run->err, "exists and is not a socket: not replacing it"));
	/* Refused before anything was made beside it. */
	{
		char lock[128];

		snprintf(lock, sizeof(lock), "%s/pmemramd.lock", d.root);
		assert_int_equal(access(lock, F_OK), -1);
	}
	f = fopen(d.socket, "r");
	assert_non_null(f);
	assert_non_null(fgets(content, sizeof(content), f));
	fclose(f);
	assert_string_equal(content, "precious\n");
	remove_dirs(&d);
}

/* pmemramd on d's socket with nothing claimed, at most nofile descriptors, logging to log_target
 * (stderr or journal), with extra arguments (NULL-terminated, or NULL); waits for its socket. */
static pid_t start_daemon_with(struct dirs *d, rlim_t nofile, const char *log_target, const char *const *extra)
{
	char log_env[64];

	const char *binary = getenv("PMEMRAMD");
	const char *argv[16] = { "pmemramd", "--socket", d->socket, "--settle-timeout", "0" };
	struct stat st;
	size_t n = 5;
	pid_t pid;

	assert_non_null(binary);
	for (size_t i = 0; extra && extra[i]; i++) {
		assert_true(n < ELEMENTSOF(argv) - 1);
		argv[n++] = extra[i];
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { nofile, nofile };
		int null = d->log ? open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
				  : open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0 ||
		    setrlimit(RLIMIT_NOFILE, &rl) < 0 || putenv(d->config_env) < 0 || putenv(d->daxctl_env) < 0 ||
		    snprintf(log_env, sizeof(log_env), "PMEMRAM_LOG_TARGET=%s", log_target) < 0 || putenv(log_env) < 0)
			_exit(127);
		/* gcc's ASan runtime wants to be the first library; fail-event.so is not instrumented. */
		if (d->fail &&
		    (!getenv("PMEMRAM_FAIL_EVENT_SO") || setenv("LD_PRELOAD", getenv("PMEMRAM_FAIL_EVENT_SO"), 1) < 0 ||
		     setenv("PMEMRAM_FAIL_EVENT", d->fail, 1) < 0 ||
		     setenv("ASAN_OPTIONS", "verify_asan_link_order=0", 1) < 0))
			_exit(127);
		alarm(120);
		execv(binary, (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 2000 && lstat(d->socket, &st) < 0; i++)
		usleep(5 * 1000);
	/* Seen under its name, the socket is already listening, and open to every uid. */
	assert_int_equal(lstat(d->socket, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0666);
	return pid;
}

static pid_t start_daemon(struct dirs *d, rlim_t nofile, const char *log_target)
{
	return start_daemon_with(d, nofile, log_target, NULL);
}

static int connect_to(const char *path, bool nonblock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS &&
	    errno != EAGAIN) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A status request as root: whether pmemramd answered "ok" within timeout_ms. */
static bool status_answered(const char *path, int timeout_ms)
{
	static const char req[] = "{\"command\":\"status\"}\n";
	char buf[65536];
	size_t len = 0;
	int fd = connect_to(path, false);
	bool ok = false;

	if (fd < 0)
		return false;
	if (write(fd, req, sizeof(req) - 1) == (ssize_t)(sizeof(req) - 1)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		while (len < sizeof(buf) - 1 && poll(&p, 1, timeout_ms) > 0) {
			ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);

			if (n <= 0)
				break;
			len += (size_t)n;
			if (memchr(buf, '\n', len))
				break;
		}
		buf[len] = '\0';
		ok = strstr(buf, "\"ok\":true") != NULL;
	}
	close(fd);
	return ok;
}

/* One request line (as uid, -1: ours) and its one-line reply in buf ("" when none came). */
static void request_as(const char *path, int uid, const char *line, char *buf, size_t size)
{
	int p[2];
	pid_t pid;
	ssize_t n;
	size_t len = 0;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char reply[8192];
		size_t got = 0;
		int fd;

		close(p[0]);
		alarm(20);
		if (uid >= 0 && (setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0))
			_exit(1);
		fd = connect_to(path, false);
		if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
			_exit(1);
		while (got < sizeof(reply) - 1 && (n = read(fd, reply + got, sizeof(reply) - 1 - got)) > 0) {
			got += (size_t)n;
			if (memchr(reply, '\n', got))
				break;
		}
		if (write(p[1], reply, got) != (ssize_t)got)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	while (len < size - 1 && (n = read(p[0], buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* A second pmemramd on the same runtime directory: refused before it touches anything, naming the
 * first, whose socket stays and answers; so is pmemramctl reconcile --local; once the first is
 * gone, one starts. */
static void test_second_daemon_refused(void **state)
{
	struct dirs d;
	_cleanup_(freep) struct run *run = NULL;
	const char *env[3], *args[] = { "--socket", NULL, "--settle-timeout", "0", NULL };
	char expect[160];
	struct stat before, after;
	pid_t first;

	(void)state;
	make_dirs(&d);
	env[0] = d.config_env;
	env[1] = "PMEMRAM_LOG_TARGET=stderr";
	env[2] = NULL;
	args[1] = d.socket;
	first = start_daemon(&d, 1024, "stderr");
	assert_int_equal(stat(d.socket, &before), 0);

	run = run_program_env("PMEMRAMD", "pmemramd", env, args);
	assert_int_equal(run->status, 1);
	snprintf(expect, sizeof(expect), "another pmemramd (pid %d) runs with %s", (int)first, d.root);
	assert_non_null(strstr(run->err, expect));
	assert_int_equal(stat(d.socket, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino); /* not replaced */
	assert_true(status_answered(d.socket, 5000));

	/* nor does pmemramctl reconcile --local work beside it (refused before it reads the system) */
	{
		char sock_env[128];
		const char *ctl_env[] = { d.config_env, sock_env, NULL };
		const char *ctl_args[] = { "reconcile", "--local", NULL };

		snprintf(sock_env, sizeof(sock_env), "PMEMRAM_SOCKET=%s", d.socket);
		free(run);
		run = run_program_env("PMEMRAMCTL", "pmemramctl", ctl_env, ctl_args);
		assert_int_equal(run->status, 2);
		snprintf(expect, sizeof(expect), "pmemramd (pid %d) is running (%s/pmemramd.lock is locked)",
			 (int)first, d.root);
		assert_non_null(strstr(run->err, expect));
	}

	kill(first, SIGTERM);
	assert_int_equal(waitpid(first, NULL, 0), first);
	first = start_daemon(&d, 1024, "stderr");
	assert_true(status_answered(d.socket, 5000));
	kill(first, SIGTERM);
	assert_int_equal(waitpid(first, NULL, 0), first);
	remove_dirs(&d);
}

/* utime + stime of pid, in clock ticks. */
static unsigned long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* fields 14 and 15 (utime, stime), counted after "pid (comm)" */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st), 2);
	return ut + st;
}

static size_t open_fds(pid_t pid)
{
	char path[64], cmd[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(cmd, sizeof(cmd), "ls %s | wc -l", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%zu", &n), 1);
	pclose(f);
	return n;
}

/* A process of uid 65534 holding HOG connections to path, until killed; returns once they are open. */
enum { HOG = 200 };
static pid_t hog_start(const char *path)
{
	int ready[2];
	pid_t hog;
	char c;

	assert_int_equal(pipe(ready), 0);
	hog = fork();
	assert_true(hog >= 0);
	if (hog == 0) {
		int null = open("/dev/null", O_RDWR);

		/* Off the TAP stream, and gone in any case should the test fail before killing it. */
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(1);
		alarm(30);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		for (int i = 0; i < HOG; i++)
			(void)connect_to(path, true);
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	usleep(200 * 1000);
	return hog;
}

/* Root past the descriptor limit: HOG connections, a second of the daemon's time, then all closed;
 * returns once root is answered again. */
static void flood_as_root(const char *path, pid_t daemon)
{
	int hog_fds[HOG];
	unsigned long t0;
	bool answered = false;

	/* Connected, not merely queued: more than the daemon has descriptors for, the backlog emptied as
	 * it accepts (a connect that finds it full fails with EAGAIN, and is tried again). */
	for (int i = 0, connected = 0, tries = 0; i < HOG; i++) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		hog_fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
		while (connected < 64 && hog_fds[i] >= 0 &&
		       connect(hog_fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno == EAGAIN && tries++ < 500)
			usleep(10 * 1000);
		connected++;
	}
	usleep(300 * 1000);
	t0 = cpu_ticks(daemon);
	sleep(1);
	assert_true(cpu_ticks(daemon) - t0 < 50);
	for (int i = 0; i < HOG; i++)
		if (hog_fds[i] >= 0)
			close(hog_fds[i]);
	/* the daemon sees the hang-ups, frees descriptors, and accepts again within its retry */
	for (int i = 0; i < 20 && !answered; i++) {
		answered = status_answered(path, 2000);
		if (!answered)
			usleep(200 * 1000);
	}
	assert_true(answered);
}

/* A local user holding many connections: turned away past its share, no descriptor exhaustion, no
 * spinning, and root still answered.  Then root itself past the descriptor limit: pmemramd pauses
 * accepting instead of spinning on EMFILE, and answers again once the connections are gone.  Each
 * burst is one notice, and a line with its count when it went quiet; the same again after a quiet
 * while is a second burst of each. */
static void test_connection_limits(void **state)
{
	char log[96], buf[65536];
	struct dirs d;
	unsigned long t0;
	pid_t daemon, hog;

	(void)state;
	if (geteuid() != 0)
		skip(); /* needs another uid for the hog */
	make_dirs(&d);
	snprintf(d.socket, sizeof(d.socket), "%s/pmemramd.sock", d.root);
	snprintf(log, sizeof(log), "%s/log", d.root);
	d.log = log;
	assert_int_equal(chmod(d.root, 0755), 0);
	daemon = start_daemon(&d, 48, "stderr");

	hog = hog_start(d.socket);
	t0 = cpu_ticks(daemon);
	sleep(1);
	/* spinning would be about one second's worth of ticks (100 at USER_HZ) */
	assert_true(cpu_ticks(daemon) - t0 < 50);
	assert_true(status_answered(d.socket, 5000));
	assert_true(open_fds(daemon) < 40);
	kill(hog, SIGKILL);
	assert_int_equal(waitpid(hog, NULL, 0), hog);
	flood_as_root(d.socket, daemon);
	/* Both bursts end after 5 s without a refusal; the same again is a second notice of each. */
	sleep(6);
	hog = hog_start(d.socket);
	kill(hog, SIGKILL);
	assert_int_equal(waitpid(hog, NULL, 0), hog);
	flood_as_root(d.socket, daemon);
	/* the second bursts end with the daemon, which says what they counted */
	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	read_file(log, buf, sizeof(buf));
	if (count_of(buf, ": refusing connections of uid 65534: too many open") != 2 ||
	    count_of(buf, "no longer refusing connections of uid 65534 (") != 2 ||
	    count_of(buf, "cannot accept on the control socket: Too many open files; pausing it") != 2 ||
	    count_of(buf, "accepting on the control socket again (paused ") != 2)
		fail_msg("not one notice per burst:\n%s", buf);
	(void)unlink(log);
	(void)unlink(d.socket);
	remove_dirs(&d);
}

/* The request path of the real daemon: what it refuses, with which errno and words, and that it
 * keeps answering.  A device name must be daxX.Y, whatever else reaches the socket. */
static void test_requests(void **state)
{
	static const struct {
		const char *line;
		int uid;
		const char *want; /* in the reply */
	} cases[] = {
		{ "not json\n", -1, "\"errno\":22" },
		{ "[1,2]\n", -1, "malformed request: expected {\\\"command\\\": " },
		{ "{\"command\":\"frobnicate\"}\n", -1, "unknown command 'frobnicate'" },
		{ "{\"command\":\"fro\\u001bb\"}\n", -1, "unknown command 'fro\\\\x1bb'" },
		{ "{\"command\":\"release\"}\n", -1, "'release' needs \\\"device\\\"" },
		{ "{\"command\":\"release\",\"device\":\"dax..\"}\n", -1, "'release' needs \\\"device\\\"" },
		{ "{\"command\":\"reclaim\",\"device\":\"../../etc\"}\n", -1, "'reclaim' needs \\\"device\\\"" },
		{ "{\"command\":\"reclaim\",\"device\":\"dax0.0x\"}\n", -1, "\"errno\":22" },
		{ "{\"command\":\"release\",\"device\":\"dax97.3\"}\n", -1, "dax97.3: cannot release: No such device\",\"errno\":19" },
		{ "{\"command\":\"reconcile\"}\n", 65534, "'reconcile' needs root (you are uid 65534)" },
		{ "{\"command\":\"release\",\"device\":\"dax0.0\"}\n", 65534, "\"errno\":1" },
		{ "{\"command\":\"status\"}\n", 65534, "\"ok\":true" },
	};
	char reply[8192], big[5000];
	struct dirs d;
	pid_t daemon;

	(void)state;
	if (geteuid() != 0)
		skip(); /* needs another uid for the refusals */
	make_dirs(&d);
	snprintf(d.socket, sizeof(d.socket), "%s/pmemramd.sock", d.root);
	assert_int_equal(chmod(d.root, 0755), 0);
	daemon = start_daemon(&d, 1024, "stderr");

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		request_as(d.socket, cases[i].uid, cases[i].line, reply, sizeof(reply));
		if (!strstr(reply, cases[i].want))
			fail_msg("request %zu %s: reply '%s' lacks '%s'", i, cases[i].line, reply, cases[i].want);
		if (cases[i].uid >= 0 || strstr(cases[i].line, "status"))
			continue;
		assert_non_null(strstr(reply, "\"ok\":false"));
	}
	/* Longer than a request may be, and no newline: refused, not read for ever. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	request_as(d.socket, -1, big, reply, sizeof(reply));
	assert_non_null(strstr(reply, "\"errno\":90"));
	assert_true(status_answered(d.socket, 5000));

	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	(void)unlink(d.socket);
	remove_dirs(&d);
}

/* Wait up to 10 s for path to hold want. */
static bool file_has(const char *path, const char *want, char *buf, size_t size)
{
	for (int i = 0; i < 200; i++) {
		read_file(path, buf, size);
		if (strstr(buf, want))
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/*
 * pmemramd's synchronous fallbacks, each run by making the event source it needs fail
 * (fail-event.so): a release whose report pipe the loop cannot watch is waited for at once and
 * still answers its client (the client was freed under the request's handler once); a reconcile's
 * followup that cannot be deferred runs at once; a settle timer that cannot be set makes the
 * daemon ready at once.  Each then answers status, and stops cleanly.
 */
static void daemon_stop(pid_t daemon)
{
	int status = -1;

	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, &status, 0), daemon);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("pmemramd ended with status 0x%x", status);
}

static void test_fallback_release(void **state)
{
	char *sysfs = NULL, *proc = NULL, reply[8192], log[96], buf[65536];
	struct dirs d;
	pid_t daemon;

	(void)state;
	if (geteuid() != 0)
		skip(); /* release needs root */
	make_dirs(&d);
	/* dax0.0 exists (the release forks its child), online under kmem but claimed by nobody. */
	assert_int_equal(fake_sysfs_new(&sysfs), 0);
	assert_int_equal(fake_sysfs_populate(sysfs, FAKE_KERNEL_HMAT), 0);
	assert_int_equal(fake_sysfs_new(&proc), 0);
	assert_int_equal(fake_procfs_populate(proc), 0);
	snprintf(log, sizeof(log), "%s/log", d.root);
	d.log = log;
	d.fail = "pipe-io";
	assert_int_equal(setenv("PMEMRAM_SYSFS_ROOT", sysfs, 1), 0);
	assert_int_equal(setenv("PMEMRAM_PROCFS_ROOT", proc, 1), 0);
	daemon = start_daemon(&d, 1024, "stderr");
	assert_int_equal(unsetenv("PMEMRAM_SYSFS_ROOT"), 0);
	assert_int_equal(unsetenv("PMEMRAM_PROCFS_ROOT"), 0);
	request_as(d.socket, -1, "{\"command\":\"release\",\"device\":\"dax0.0\"}\n", reply, sizeof(reply));
	if (!strstr(reply, "\"device\":\"dax0.0\"") || !strstr(reply, "\"outcome\":"))
		fail_msg("no release report: %s", reply);
	assert_true(status_answered(d.socket, 5000));
	daemon_stop(daemon);
	read_file(log, buf, sizeof(buf));
	assert_non_null(strstr(buf, "fail-event: sd_event_add_io on a pipe failed on purpose"));
	assert_non_null(strstr(buf, "dax0.0: waiting for the release in progress to end"));
	(void)unlink(log);
	remove_dirs(&d);
	fake_sysfs_free(sysfs);
	fake_sysfs_free(proc);
}

static void test_fallback_followup(void **state)
{
	const char *extra[] = { "--metrics-textfile", NULL, NULL };
	char metrics[96], log[96], buf[65536], reply[8192];
	struct dirs d;
	pid_t daemon;

	(void)state;
	make_dirs(&d);
	snprintf(metrics, sizeof(metrics), "%s/pmemram.prom", d.root);
	snprintf(log, sizeof(log), "%s/log", d.root);
	extra[1] = metrics;
	d.log = log;
	d.fail = "defer";
	daemon = start_daemon_with(&d, 1024, "stderr", extra);
	assert_true(file_has(metrics, "pmemram_reconciles_total{result=\"converged\"} 1\n", buf, sizeof(buf)));
	if (geteuid() == 0) {
		request_as(d.socket, -1, "{\"command\":\"reconcile\"}\n", reply, sizeof(reply));
		assert_non_null(strstr(reply, "\"ok\":true"));
		/* Written before the reply, by the followup run at once. */
		read_file(metrics, buf, sizeof(buf));
		assert_non_null(strstr(buf, "pmemram_reconciles_total{result=\"converged\"} 2\n"));
	}
	assert_true(status_answered(d.socket, 5000));
	daemon_stop(daemon);
	read_file(log, buf, sizeof(buf));
	assert_non_null(strstr(buf, "fail-event: sd_event_add_defer failed on purpose"));
	(void)unlink(metrics);
	(void)unlink(log);
	remove_dirs(&d);
}

static void test_fallback_settle(void **state)
{
	const char *const extra[] = { "--settle-timeout", "7", NULL };
	char conf[128], log[96], buf[65536], reply[8192];
	struct dirs d;
	pid_t daemon;
	FILE *f;

	(void)state;
	make_dirs(&d);
	snprintf(conf, sizeof(conf), "%s/pmemram.conf", d.config);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("[claim \"absent\"]\nmatch = uuid:6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f\n", f);
	fclose(f);
	snprintf(log, sizeof(log), "%s/log", d.root);
	d.log = log;
	d.fail = "time-in=7";
	daemon = start_daemon_with(&d, 1024, "stderr", extra);
	request_as(d.socket, -1, "{\"command\":\"status\"}\n", reply, sizeof(reply));
	if (!strstr(reply, "\"ready\":true"))
		fail_msg("not ready at once: %s", reply);
	daemon_stop(daemon);
	read_file(log, buf, sizeof(buf));
	assert_non_null(strstr(buf, "fail-event: sd_event_add_time in 7 s failed on purpose"));
	assert_non_null(strstr(buf, "ready: cannot wait for unmatched claims"));
	(void)unlink(conf);
	(void)unlink(log);
	remove_dirs(&d);
}

/* Each line of an NFD feature file: the comment, the expiry about five minutes ahead, then labels
 * in pmemram.io/ whose names and values Kubernetes accepts. */
static void check_nfd(const char *text)
{
	char copy[65536], *save = NULL;
	time_t now = time(NULL);
	size_t labels = 0, i = 0;

	assert_true(strlen(text) < sizeof(copy));
	snprintf(copy, sizeof(copy), "%s", text);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char *eq = strchr(line, '=');

		if (i == 0) {
			assert_string_equal(line, "# Written by pmemramd; see pmemramd(8).");
			continue;
		}
		if (i == 1) {
			/* Written within the last 10 s, expiring 300 s after. */
			struct tm tm = {};
			const char *end;
			time_t t;

			assert_int_equal(strncmp(line, "# +expiry-time=", 15), 0);
			end = strptime(line + 15, "%Y-%m-%dT%H:%M:%SZ", &tm);
			assert_non_null(end);
			assert_int_equal(*end, '\0');
			t = timegm(&tm);
			if (t < now - 10 + 300 || t > now + 301)
				fail_msg("expiry %s is not 290..300 s ahead", line + 15);
			continue;
		}
		assert_non_null(eq);
		*eq = '\0';
		assert_int_equal(strncmp(line, "pmemram.io/", 11), 0);
		if (!pmemram_nfd_name_is_valid(line + 11) || !pmemram_nfd_value_is_valid(eq + 1))
			fail_msg("label %s=%s is not valid", line, eq + 1);
		labels++;
	}
	assert_true(labels >= 3);
	assert_non_null(strstr(text, "\npmemram.io/kmem-online-bytes=0\n"));
}

/* --metrics-textfile and --nfd-features: both written after the first reconcile, the metrics again
 * after each (nothing is claimed: each converges); a path that names no file is a usage error. */
static void test_export_files(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char metrics[96], nfd[96], buf[65536], reply[8192];
	struct dirs d;
	pid_t daemon;

	(void)state;
	make_dirs(&d);
	snprintf(metrics, sizeof(metrics), "%s/pmemram.prom", d.root);
	snprintf(nfd, sizeof(nfd), "%s/pmemram", d.root);
	{
		const char *env[] = { d.config_env, "PMEMRAM_LOG_TARGET=stderr", NULL };
		const char *args[] = { "--socket", d.socket, "--metrics-textfile", "", NULL };

		run = run_program_env("PMEMRAMD", "pmemramd", env, args);
		assert_int_equal(run->status, 64);
		assert_non_null(strstr(run->err, "--metrics-textfile: '' is not a file name"));
	}
	{
		const char *extra[] = { "--metrics-textfile", metrics, "--nfd-features", nfd, NULL };

		daemon = start_daemon_with(&d, 1024, "stderr", extra);
	}
	assert_true(file_has(metrics, "\npmemram_ready 1\n", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "# HELP pmemram_reconciles_total Reconciles that ended, by result.\n"
				    "# TYPE pmemram_reconciles_total counter\n"
				    "pmemram_reconciles_total{result=\"converged\"} 1\n"));
	assert_non_null(strstr(buf, "\npmemram_unmatched_claims 0\n"));
	assert_true(file_has(nfd, "pmemram.io/", buf, sizeof(buf)));
	check_nfd(buf);
	if (geteuid() == 0) {
		request_as(d.socket, -1, "{\"command\":\"reconcile\"}\n", reply, sizeof(reply));
		assert_non_null(strstr(reply, "\"ok\":true"));
		assert_true(file_has(metrics, "pmemram_reconciles_total{result=\"converged\"} 2\n", buf, sizeof(buf)));
	}

	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	(void)unlink(d.socket);
	(void)unlink(metrics);
	(void)unlink(nfd);
	remove_dirs(&d);
}

/* The value of field key ("KEY=") in one native-protocol datagram ("KEY=value" lines), copied to buf. */
static const char *entry_field(const char *entry, const char *key, char *buf, size_t size)
{
	for (const char *p = entry; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t len = strcspn(p, "\n");

		if (strncmp(p, key, strlen(key)) == 0) {
			snprintf(buf, size, "%.*s", (int)(len - strlen(key)), p + strlen(key));
			return buf;
		}
	}
	return NULL;
}

/* Check one journal entry pmemramd sent: at notice or above it carries the MESSAGE_ID of an event of
 * the table, with that event's priority; below, none.  Returns the event, or -1. */
static int check_entry(const char *entry)
{
	char prio[8], id[64], msg[256];
	int priority;

	assert_non_null(entry_field(entry, "MESSAGE=", msg, sizeof(msg)));
	assert_non_null(entry_field(entry, "PRIORITY=", prio, sizeof(prio)));
	priority = atoi(prio);
	if (!entry_field(entry, "MESSAGE_ID=", id, sizeof(id))) {
		if (priority <= LOG_NOTICE)
			fail_msg("'%s' (priority %d) has no MESSAGE_ID", msg, priority);
		return -1;
	}
	for (int i = 0; i < _MANAGER_EVENT_MAX; i++)
		if (streq(manager_events[i].id, id)) {
			if (manager_events[i].priority != priority)
				fail_msg("'%s': priority %d, but event %s's is %d", msg, priority, manager_events[i].name,
					 manager_events[i].priority);
			return i;
		}
	fail_msg("'%s' carries MESSAGE_ID=%s, which is no event of messages.c", msg, id);
	return -1;
}

/* path as json-c writes it, each '/' as "\/". */
static const char *json_slashes(const char *path, char *buf, size_t size)
{
	size_t o = 0;

	for (; *path && o + 3 < size; path++) {
		if (*path == '/')
			buf[o++] = '\\';
		buf[o++] = *path;
	}
	buf[o] = '\0';
	return buf;
}

/* d with its socket at ROOT/pmemramd.sock, and ROOT/daxctl.conf.d (dir) holding 50-x.conf (file) with text. */
static void daxctl_dirs(struct dirs *d, char dir[static 160], char file[static 192], const char *text)
{
	FILE *f;

	make_dirs(d);
	snprintf(d->socket, sizeof(d->socket), "%s/pmemramd.sock", d->root);
	snprintf(dir, 160, "%s/daxctl.conf.d", d->root);
	snprintf(file, 192, "%s/50-x.conf", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	f = fopen(file, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void daxctl_dirs_remove(struct dirs *d, const char *dir, const char *file)
{
	(void)unlink(file);
	(void)rmdir(dir);
	(void)unlink(d->socket);
	remove_dirs(d);
}

/* A section of daxctl.conf.d and nothing of pmemram's: a claim, with its FILE:LINE in the status. */
static void test_daxctl_status(void **state)
{
	char reply[8192], dir[160], file[192], want[600], j[400];
	struct dirs d;
	pid_t daemon;

	(void)state;
	daxctl_dirs(&d, dir, file,
		    "[reconfigure-device x]\nnvdimm.uuid = ed93e918-e165-49d8-921d-383d7b9660c5\nmode = system-ram\n"
		    "[reconfigure-device y]\nmode = system-ram\n");

	daemon = start_daemon(&d, 1024, "stderr");
	request_as(d.socket, -1, "{\"command\":\"status\"}\n", reply, sizeof(reply));
	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	snprintf(want, sizeof(want), "\"daxctl_dir\":\"%s\"", json_slashes(dir, j, sizeof(j)));
	if (!strstr(reply, want))
		fail_msg("no %s in %s", want, reply);
	snprintf(want, sizeof(want),
		 "\"origin\":\"%s:1\",\"section\":\"x\",\"uuid\":\"ed93e918-e165-49d8-921d-383d7b9660c5\","
		 "\"state\":\"claimed\",\"claim\":\"daxctl:x\"",
		 json_slashes(file, j, sizeof(j)));
	if (!strstr(reply, want))
		fail_msg("no %s in %s", want, reply);
	snprintf(want, sizeof(want), "\"origin\":\"%s:4\",\"section\":\"y\",\"uuid\":\"\",\"state\":\"skipped\"",
		 json_slashes(file, j, sizeof(j)));
	if (!strstr(reply, want))
		fail_msg("no %s in %s", want, reply);
	assert_non_null(strstr(reply, "\"configured\":true"));
	assert_non_null(strstr(reply, "\"claims\":[\"daxctl:x\"]"));
	/* No release running. */
	assert_non_null(strstr(reply, "\"releasing\":null"));

	daxctl_dirs_remove(&d, dir, file);
}

/* A daxctl section whose UUID matches no device (daxctl ignores those; leftovers are common):
 * pmemramd does not wait for it to settle, and still lists its claim as unmatched. */
static void test_daxctl_unmatched_ready(void **state)
{
	const char *const extra[] = { "--settle-timeout", "600", NULL };
	char reply[8192], dir[160], file[192];
	struct dirs d;
	pid_t daemon;

	(void)state;
	daxctl_dirs(&d, dir, file,
		    "[reconfigure-device x]\nnvdimm.uuid = ed93e918-e165-49d8-921d-383d7b9660c5\nmode = system-ram\n");

	daemon = start_daemon_with(&d, 1024, "stderr", extra);
	request_as(d.socket, -1, "{\"command\":\"status\"}\n", reply, sizeof(reply));
	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	if (!strstr(reply, "\"ready\":true"))
		fail_msg("not ready: %s", reply);
	if (!strstr(reply, "\"unmatched_claims\":[\"daxctl:x\"]"))
		fail_msg("daxctl:x not unmatched: %s", reply);

	daxctl_dirs_remove(&d, dir, file);
}

/* On a kernel that switches shuffling per node (a fake sysfs), pmemramd writes the nodes the policy
 * wants at start and again at each reconcile; a node forced off is reported once, not retried. */
static void test_shuffle_live(void **state)
{
	static const char reconcile[] = "{\"command\":\"reconcile\"}\n";
	char *sysfs = NULL, *proc = NULL, log[128], path[512], buf[65536], reply[8192];
	FILE *f;
	struct dirs d;
	pid_t daemon;

	(void)state;
	make_dirs(&d);
	assert_int_equal(fake_sysfs_new(&sysfs), 0);
	assert_int_equal(fake_sysfs_populate(sysfs, FAKE_KERNEL_LIVE), 0);
	assert_int_equal(fake_sysfs_new(&proc), 0);
	assert_int_equal(fake_procfs_populate(proc), 0);
	snprintf(path, sizeof(path), "%s/pmemram.conf", d.config);
	f = fopen(path, "we");
	assert_non_null(f);
	fprintf(f, "[global]\nshuffle-nodes = 0\n");
	assert_int_equal(fclose(f), 0);
	snprintf(log, sizeof(log), "%s/log", d.root);
	d.log = log;

	/* the child inherits these */
	assert_int_equal(setenv("PMEMRAM_SYSFS_ROOT", sysfs, 1), 0);
	assert_int_equal(setenv("PMEMRAM_PROCFS_ROOT", proc, 1), 0);
	daemon = start_daemon(&d, 1024, "stderr");
	assert_int_equal(unsetenv("PMEMRAM_SYSFS_ROOT"), 0);
	assert_int_equal(unsetenv("PMEMRAM_PROCFS_ROOT"), 0);

	/* at start */
	snprintf(path, sizeof(path), "%s/devices/system/node/node0/shuffle/enabled", sysfs);
	assert_true(file_has(path, "1", buf, sizeof(buf)));
	snprintf(path, sizeof(path), "%s/devices/system/node/node1/shuffle/enabled", sysfs);
	assert_true(file_has(path, "0", buf, sizeof(buf)));

	/* switched back by someone else: the next reconcile puts it right again */
	assert_int_equal(fake_sysfs_write(sysfs, "devices/system/node/node1/shuffle/enabled", "1\n"), 0);
	assert_int_equal(fake_sysfs_write(sysfs, "devices/system/node/node1/shuffle/reason", "sysfs\n"), 0);
	request_as(d.socket, -1, reconcile, reply, sizeof(reply));
	assert_non_null(strstr(reply, "\"ok\":true"));
	assert_true(file_has(path, "0", buf, sizeof(buf)));

	/* node 0 forced off by the command line: reported once over two reconciles, never written */
	assert_int_equal(fake_sysfs_write(sysfs, "devices/system/node/node0/shuffle/enabled", "0\n"), 0);
	assert_int_equal(fake_sysfs_write(sysfs, "devices/system/node/node0/shuffle/reason", "forced-off\n"), 0);
	request_as(d.socket, -1, reconcile, reply, sizeof(reply));
	assert_non_null(strstr(reply, "\"ok\":true"));
	request_as(d.socket, -1, reconcile, reply, sizeof(reply));
	assert_non_null(strstr(reply, "\"ok\":true"));
	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);

	assert_string_equal(fake_sysfs_read(sysfs, "devices/system/node/node0/shuffle/enabled"), "0");
	read_file(log, buf, sizeof(buf));
	if (count_of(buf, "node 0 shuffled (its reason was default-off)") != 1 ||
	    count_of(buf, "node 1 no longer shuffled") != 2 ||
	    count_of(buf, "node 0 not shuffled: forced off by page_alloc.shuffle=0 on the kernel command line") != 1)
		fail_msg("pmemramd's log:\n%s", buf);

	(void)unlink(log);
	(void)unlink(d.socket);
	sysfs = fake_sysfs_free(sysfs);
	proc = fake_sysfs_free(proc);
	remove_dirs(&d);
}

/* pmemramd sending to the journal: the notices "no configuration", a refused request and a warning on
 * daxctl.conf.d carry their MESSAGE_IDs, and so does every line at notice or above it sends meanwhile.  The journal is a
 * socket of the test's own at /run/systemd/journal/socket, in a mount namespace of this process
 * (which is why this test runs last). */
static void test_journal_message_ids(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[8192], entry[16384];
	bool no_config = false, refused = false, warned = false;
	char dir[160], file[192];
	FILE *f;
	_cleanup_(closep) int fd = -1;
	struct dirs d;
	pid_t daemon;

	(void)state;
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0)
		skip(); /* no namespace to put a journal of our own in */
	assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	assert_int_equal(mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"), 0);
	assert_int_equal(mkdir("/run/systemd", 0755), 0);
	assert_int_equal(mkdir("/run/systemd/journal", 0755), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/systemd/journal/socket");
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);

	make_dirs(&d);
	snprintf(d.socket, sizeof(d.socket), "%s/pmemramd.sock", d.root);
	assert_int_equal(chmod(d.root, 0755), 0);
	/* a section of daxctl.conf.d that cannot be used: a warning, and still no claim */
	snprintf(dir, sizeof(dir), "%s/daxctl.conf.d", d.root);
	snprintf(file, sizeof(file), "%s/50-y.conf", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	f = fopen(file, "we");
	assert_non_null(f);
	fprintf(f, "[reconfigure-device y]\nmode = system-ram\n");
	assert_int_equal(fclose(f), 0);
	daemon = start_daemon(&d, 1024, "journal");
	request_as(d.socket, 65534, "{\"command\":\"reconcile\"}\n", reply, sizeof(reply));
	if (!strstr(reply, "needs root"))
		fail_msg("reconcile as uid 65534: reply '%s'", reply);

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char ident[32], msg[256];
		ssize_t n;
		int e;

		if (poll(&p, 1, 5000) <= 0)
			break;
		n = recv(fd, entry, sizeof(entry) - 1, 0);
		assert_true(n > 0);
		entry[n] = '\0';
		assert_non_null(entry_field(entry, "SYSLOG_IDENTIFIER=", ident, sizeof(ident)));
		assert_string_equal(ident, "pmemramd");
		e = check_entry(entry);
		(void)entry_field(entry, "MESSAGE=", msg, sizeof(msg));
		if (e == MANAGER_EVENT_NO_CONFIG)
			no_config = no_config || strstr(msg, "no configuration in ") != NULL;
		if (e == MANAGER_EVENT_REQUEST_REFUSED)
			refused = refused || strstr(msg, "refused 'reconcile' from uid 65534") != NULL;
		if (e == MANAGER_EVENT_DAXCTL_WARNING)
			warned = warned || strstr(msg, "50-y.conf:1: section 'y': no nvdimm.uuid") != NULL;
		if (no_config && refused && warned)
			break;
	}
	kill(daemon, SIGTERM);
	assert_int_equal(waitpid(daemon, NULL, 0), daemon);
	(void)unlink(d.socket);
	(void)unlink(file);
	(void)rmdir(dir);
	remove_dirs(&d);
	assert_true(no_config);
	assert_true(refused);
	assert_true(warned);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_not_replaced),
		cmocka_unit_test(test_second_daemon_refused),
		cmocka_unit_test(test_connection_limits),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_export_files),
		cmocka_unit_test(test_daxctl_status),
		cmocka_unit_test(test_daxctl_unmatched_ready),
		cmocka_unit_test(test_shuffle_live),
		cmocka_unit_test(test_fallback_release),
		cmocka_unit_test(test_fallback_followup),
		cmocka_unit_test(test_fallback_settle),
		cmocka_unit_test(test_journal_message_ids), /* last: it leaves this process in a namespace */
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
