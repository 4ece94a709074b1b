/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for whole writes and atomic file replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

struct dir {
	char path[64];
	int fd;
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	strcpy(d->path, "/tmp/pmemram-fileio-XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = d;
	return d->fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	close(d->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	if (system(cmd) != 0)
		return -1;
	free(d);
	return 0;
}

/* The names in the directory, sorted, joined by spaces. */
static const char *listing(struct dir *d)
{
	static char buf[512];
	struct dirent **names;
	int n = scandir(d->path, &names, NULL, alphasort);

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' || (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? " " : "",
				 names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return buf;
}

static const char *content(struct dir *d, const char *name)
{
	static char buf[256];
	ssize_t n;
	int fd = openat(d->fd, name, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static mode_t mode_of(struct dir *d, const char *name)
{
	struct stat st;

	assert_int_equal(fstatat(d->fd, name, &st, 0), 0);
	return st.st_mode & 07777;
}

/* A new file gets the mode asked for (not narrowed by the umask); a replacement keeps the old
 * file's mode with FILE_KEEP_MODE; no temporary file is left either way. */
static void test_atomic_replace(void **state)
{
	struct dir *d = *state;
	mode_t old_umask = umask(077);

	assert_int_equal(file_write_atomic_at(d->fd, "a.conf", "one\n", 4, 0644, 0), 0);
	assert_string_equal(content(d, "a.conf"), "one\n");
	assert_int_equal(mode_of(d, "a.conf"), 0644);
	assert_int_equal(fchmodat(d->fd, "a.conf", 0600, 0), 0);
	assert_int_equal(file_write_atomic_at(d->fd, "a.conf", "two\n", 4, 0644, FILE_KEEP_MODE), 0);
	assert_string_equal(content(d, "a.conf"), "two\n");
	assert_int_equal(mode_of(d, "a.conf"), 0600);
	assert_int_equal(file_write_atomic_at(d->fd, "a.conf", "three\n", 6, 0644, 0), 0);
	assert_int_equal(mode_of(d, "a.conf"), 0644);
	assert_string_equal(listing(d), "a.conf");
	umask(old_umask);
}

/* By path: the file lands in the path's directory. */
static void test_atomic_path(void **state)
{
	struct dir *d = *state;
	char path[128];

	snprintf(path, sizeof(path), "%s/b", d->path);
	assert_int_equal(file_write_atomic(path, "", 0, 0600, 0), 0);
	assert_string_equal(content(d, "b"), "");
	assert_int_equal(file_write_atomic("", "x", 1, 0600, 0), -EINVAL);
	assert_int_equal(file_write_atomic_at(d->fd, "sub/b", "x", 1, 0600, 0), -EINVAL);
	assert_string_equal(listing(d), "b");
}

/* By a path through symbolic links: followed when this user (or root) owns them, chained, relative
 * or absolute, with .. after them; a link of another user's on the way is refused and nothing is
 * written where it points. */
static void test_atomic_path_links(void **state)
{
	struct dir *d = *state;
	char path[160], target[128];

	assert_int_equal(mkdirat(d->fd, "real", 0755), 0);
	assert_int_equal(mkdirat(d->fd, "real/sub", 0755), 0);
	assert_int_equal(symlinkat("real", d->fd, "rel"), 0);
	assert_int_equal(symlinkat("rel/sub", d->fd, "chain"), 0);
	snprintf(target, sizeof(target), "%s/real", d->path);
	assert_int_equal(symlinkat(target, d->fd, "abs"), 0);
	snprintf(path, sizeof(path), "%s/rel/a", d->path);
	assert_int_equal(file_write_atomic(path, "a", 1, 0644, 0), 0);
	snprintf(path, sizeof(path), "%s/chain/../b", d->path);
	assert_int_equal(file_write_atomic(path, "b", 1, 0644, 0), 0);
	snprintf(path, sizeof(path), "%s/abs/sub/c", d->path);
	assert_int_equal(file_write_atomic(path, "c", 1, 0644, 0), 0);
	assert_string_equal(content(d, "real/a"), "a");
	assert_string_equal(content(d, "real/b"), "b");
	assert_string_equal(content(d, "real/sub/c"), "c");
	snprintf(path, sizeof(path), "%s/real/a/x", d->path);
	assert_int_equal(file_write_atomic(path, "x", 1, 0644, 0), -ENOTDIR);

	if (geteuid() != 0)
		return; /* a link of another user's takes root to make */
	assert_int_equal(symlinkat("real/sub", d->fd, "planted"), 0);
	assert_int_equal(fchownat(d->fd, "planted", 65534, 65534, AT_SYMLINK_NOFOLLOW), 0);
	snprintf(path, sizeof(path), "%s/planted/d", d->path);
	assert_int_equal(file_write_atomic(path, "d", 1, 0644, 0), -EPERM);
	snprintf(path, sizeof(path), "%s/rel/../planted/d", d->path);
	assert_int_equal(file_write_atomic(path, "d", 1, 0644, 0), -EPERM);
	assert_int_equal(faccessat(d->fd, "real/sub/d", F_OK, 0), -1);
}

/* A temporary file is hidden and beside the target until committed; a commit whose rename fails
 * (a non-empty directory of that name) says so, changes nothing, and removes the temporary. */
static void test_temp_and_commit(void **state)
{
	struct dir *d = *state;
	char tmp[128];
	bool renamed = true;

	assert_int_equal(file_write_temp_at(d->fd, "c.conf", "new\n", 4, 0644, 0, tmp, sizeof(tmp)), 0);
	assert_true(tmp[0] == '.');
	assert_non_null(strstr(tmp, "c.conf"));
	assert_string_equal(content(d, tmp), "new\n");
	assert_int_equal(file_commit_at(d->fd, tmp, "c.conf", &renamed), 0);
	assert_true(renamed);
	assert_string_equal(listing(d), "c.conf");

	assert_int_equal(mkdirat(d->fd, "busy", 0755), 0);
	assert_int_equal(file_write_atomic_at(d->fd, "busy/x", "x", 1, 0644, 0), -EINVAL);
	assert_int_equal(mkdirat(d->fd, "d", 0755), 0);
	assert_int_equal(mkdirat(d->fd, "d/inside", 0755), 0);
	assert_int_equal(file_write_temp_at(d->fd, "d", "x", 1, 0644, 0, tmp, sizeof(tmp)), 0);
	assert_true(file_commit_at(d->fd, tmp, "d", &renamed) < 0);
	assert_false(renamed);
	assert_string_equal(listing(d), "busy c.conf d");
}

/* write_all writes everything, or says why not. */
static void test_write_all(void **state)
{
	struct dir *d = *state;
	char big[70000];
	int p[2];

	(void)d;
	memset(big, 'x', sizeof(big));
	assert_int_equal(pipe(p), 0);
	assert_int_equal(close(p[0]), 0);
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(write_all(p[1], big, 1), -EPIPE);
	close(p[1]);
	assert_int_equal(write_all(-1, big, 1), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_atomic_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_path_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temp_and_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_all, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
