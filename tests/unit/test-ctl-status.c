/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl against fake sysfs trees: JSON values, human output, exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "json-util.h"
#include "pmemram-private.h"
#include "run-ctl.h"

#define ENV(state) ((struct fake_env *)*(state))

static void test_json_hmat(void **state)
{
	_cleanup_(freep) struct run *run = run_ctl(ENV(state)->root, "--json", "status", NULL);
	struct json_object *j;

	assert_string_equal(run->err, "");
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);

	assert_int_equal(json_int_at(j, "schema_version"), 1);
	assert_string_equal(json_string_at(j, "sysfs_root"), ENV(state)->root);
	assert_int_equal(json_object_array_length(json_at(j, "nodes")), 3);
	assert_true(json_object_get_boolean(json_at(j, "nodes.0.has_cpu")));
	assert_false(json_object_get_boolean(json_at(j, "nodes.1.has_cpu")));
	assert_int_equal(json_int_at(j, "nodes.0.mem_total_bytes"), 1073741824);
	assert_int_equal(json_int_at(j, "nodes.0.access0.read_latency_ns"), 10);
	assert_int_equal(json_int_at(j, "nodes.1.tier"), 4);
	assert_int_equal(json_int_at(j, "nodes.1.memory_side_caches.0.size_bytes"), 134217728);
	assert_int_equal(json_int_at(j, "nodes.1.memory_side_caches.0.line_size_bytes"), 64);
	assert_string_equal(json_string_at(j, "nodes.1.memory_side_caches.0.indexing"), "direct-mapped");
	assert_string_equal(json_string_at(j, "nodes.1.memory_side_caches.0.write_policy"), "write-back");
	assert_int_equal(json_int_at(j, "nodes.2.tier"), 22);
	/* memory_tier22 holds abstract distances 22 * 128 to 23 * 128 - 1 */
	assert_int_equal(json_int_at(j, "nodes.2.tier_abstract_distance.min"), 2816);
	assert_int_equal(json_int_at(j, "nodes.2.tier_abstract_distance.max"), 2943);
	assert_int_equal(json_object_array_length(json_at(j, "nodes.2.memory_side_caches")), 0);

	assert_string_equal(json_string_at(j, "dax_devices.0.device"), "dax0.0");
	assert_string_equal(json_string_at(j, "dax_devices.0.mode"), "system-ram");
	assert_int_equal(json_int_at(j, "dax_devices.0.target_node"), 2);
	assert_int_equal(json_int_at(j, "dax_devices.0.size_bytes"), 1054867456);
	assert_string_equal(json_string_at(j, "dax_devices.0.resource"), "0x140000000");
	assert_string_equal(json_string_at(j, "dax_devices.1.mode"), "devdax");
	assert_null(json_at(j, "dax_devices.1.resource"));

	assert_int_equal(json_int_at(j, "memory.block_size_bytes"), 134217728);
	assert_string_equal(json_string_at(j, "memory.auto_online_blocks"), "offline");
	assert_int_equal(json_int_at(j, "memory.blocks"), 25);
	assert_int_equal(json_int_at(j, "memory.nodes.0.online.DMA32"), 3);
	assert_int_equal(json_int_at(j, "memory.nodes.0.online.none"), 1);
	assert_int_equal(json_int_at(j, "memory.nodes.2.node"), 2);
	assert_int_equal(json_int_at(j, "memory.nodes.2.online.Movable"), 7);
	assert_int_equal(json_int_at(j, "memory.nodes.2.online_total"), 7);
	assert_int_equal(json_int_at(j, "memory.nodes.2.offline"), 1);
	assert_int_equal(json_int_at(j, "memory.nodes.2.going_offline"), 1);

	assert_string_equal(json_string_at(j, "shuffle.source"), "sysfs");
	assert_true(json_object_get_boolean(json_at(j, "shuffle.enabled")));
	assert_string_equal(json_string_at(j, "shuffle.reason"), "hmat");
	assert_int_equal(json_int_at(j, "shuffle.order"), 10);
	json_object_put(j);
}

static void test_json_stock(void **state)
{
	_cleanup_(freep) struct run *run = run_ctl(ENV(state)->root, "status", "--json", NULL);
	struct json_object *j;

	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_null(json_at(j, "nodes.0.tier"));
	assert_null(json_at(j, "nodes.0.tier_abstract_distance"));
	assert_null(json_at(j, "nodes.0.access0"));
	assert_int_equal(json_object_array_length(json_at(j, "dax_devices")), 0);
	assert_null(json_at(j, "memory.nodes.0.node"));
	assert_int_equal(json_int_at(j, "memory.nodes.0.offline"), 1);
	assert_string_equal(json_string_at(j, "memory.auto_online_blocks"), "online");
	assert_string_equal(json_string_at(j, "shuffle.source"), "parameter");
	assert_true(json_object_get_boolean(json_at(j, "shuffle.enabled")));
	assert_string_equal(json_string_at(j, "shuffle.reason"), "parameter");
	assert_null(json_at(j, "shuffle.order"));
	json_object_put(j);
}

static void test_human_hmat(void **state)
{
	_cleanup_(freep) struct run *run = run_ctl(ENV(state)->root, "status", NULL);

	assert_int_equal(run->status, 0);
	assert_string_equal(run->err, "");
	assert_non_null(strstr(run->out, "memory-side cache L1: 128 MiB, line 64 B, direct-mapped, write-back"));
	assert_non_null(strstr(run->out, "dax0.0   system-ram  node 2   1006 MiB"));
	assert_non_null(strstr(run->out, "Memory blocks: 25 of 128 MiB, auto_online_blocks: offline"));
	assert_non_null(strstr(run->out, "node2   online 7 (Movable 7), offline 1, going-offline 1"));
	assert_non_null(strstr(run->out, "Page shuffling: enabled (reason hmat, order 10)"));
	assert_null(strstr(run->out, "no HMAT figures"));
}

/* The shuffle state on a kernel that switches nodes at runtime: one line per node, its free lists
 * and what the policy needs of them together, not the policy's nodes listed again. */
static void test_human_live(void **state)
{
	_cleanup_(freep) struct run *run = run_ctl(ENV(state)->root, "status", NULL);
	const char *shuffle, *end;
	size_t n1 = 0;

	assert_int_equal(run->status, 0);
	shuffle = strstr(run->out, "Page shuffling: ");
	assert_non_null(shuffle);
	for (end = shuffle; (end = strchr(end, '\n')) && (end[1] == ' ' || end[1] == '\0'); end++)
		if (strncmp(end + 1, "  node1 ", 8) == 0)
			n1++;
	if (n1 != 1)
		fail_msg("node1 in %zu lines of the shuffle state:\n%s", n1, shuffle);
	assert_non_null(strstr(shuffle, "  node1   128 MiB direct-mapped cache"));
	assert_non_null(strstr(shuffle, "free lists shuffled (hmat), in effect, order 10\n"));
}

/* A node the HMAT names without figures (the kernel shows them as 0), and one it does not name. */
static void test_no_hmat_figures(void **state)
{
	static const char *const attrs[] = { "read_latency", "write_latency", "read_bandwidth", "write_bandwidth" };
	struct fake_env *env = ENV(state);
	struct run *run;
	struct json_object *j;
	char path[128];

	for (size_t i = 0; i < ELEMENTSOF(attrs); i++) {
		snprintf(path, sizeof(path), "devices/system/node/node1/access0/initiators/%s", attrs[i]);
		assert_int_equal(fake_sysfs_write(env->root, path, "0\n"), 0);
	}
	assert_int_equal(fake_sysfs_remove(env->root, "devices/system/node/node2/access0"), 0);
	run = run_ctl(env->root, "status", NULL);
	assert_int_equal(run->status, 0);
	assert_null(strstr(run->out, "latency 0/0 ns"));
	assert_non_null(strstr(run->out, "access0: latency 10/10 ns"));
	assert_non_null(strstr(run->out, "node1   memory-only"));
	assert_non_null(strstr(strstr(run->out, "node1   memory-only"), "access0: no HMAT figures for this node\n"));
	assert_non_null(strstr(strstr(run->out, "node2   "), "access0: no HMAT figures for this node\n"));
	free(run);

	run = run_ctl(env->root, "status", "--json", NULL);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_int_at(j, "nodes.0.access0.read_latency_ns"), 10);
	assert_null(json_at(j, "nodes.1.access0"));
	assert_null(json_at(j, "nodes.2.access0"));
	json_object_put(j);
	free(run);
}

/* Where each device comes from, and who bound it to kmem: pmemram's record beside the socket. */
static void test_provenance(void **state)
{
	struct fake_env *env = ENV(state);
	char root_env[512], sock_env[600], dir[PATH_MAX];
	const char *vars[] = { root_env, sock_env, NULL };
	const char *human[] = { "status", NULL }, *json[] = { "--json", "status", NULL };
	struct json_object *j;
	struct run *run;

	assert_int_equal(fake_sysfs_add_hmem(env->root, 0, "dax2.0", "device_dax", 1, 256ULL << 20, 0x60000000), 0);
	snprintf(root_env, sizeof(root_env), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(sock_env, sizeof(sock_env), "PMEMRAM_SOCKET=%s/run/pmemramd.sock", env->root);
	snprintf(dir, sizeof(dir), "%s/run", env->root);

	run = run_ctl_env(vars, json);
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "dax_devices.0.source"), "nvdimm");
	assert_string_equal(json_string_at(j, "dax_devices.0.provider"), "region0");
	assert_string_equal(json_string_at(j, "dax_devices.0.namespace"), "namespace0.0");
	assert_string_equal(json_string_at(j, "dax_devices.0.uuid"), FAKE_UUID_KMEM);
	assert_string_equal(json_string_at(j, "dax_devices.0.range"), "0x140000000-0x17edfffff");
	/* bound to kmem by someone else: no record of pmemram's */
	assert_string_equal(json_string_at(j, "dax_devices.0.onlined_by"), "other");
	/* of its blocks memory40..46 the tree has only memory40 */
	assert_false(json_bool_at(j, "dax_devices.0.releasable"));
	assert_null(json_at(j, "dax_devices.1.range")); /* resource unreadable */
	assert_null(json_at(j, "dax_devices.1.onlined_by"));
	assert_false(json_bool_at(j, "dax_devices.1.releasable"));
	assert_string_equal(json_string_at(j, "dax_devices.2.device"), "dax2.0");
	assert_string_equal(json_string_at(j, "dax_devices.2.source"), "hmem");
	assert_string_equal(json_string_at(j, "dax_devices.2.provider"), "hmem.0");
	assert_null(json_at(j, "dax_devices.2.namespace"));
	assert_string_equal(json_string_at(j, "dax_devices.2.range"), "0x60000000-0x6fffffff");
	assert_int_equal(json_int_at(j, "dax_devices.2.target_node"), 1);
	json_object_put(j);
	free(run);

	/* every block present, Movable or offline; then pmemram's record names the device by its
	 * namespace, whatever its name */
	assert_int_equal(fake_sysfs_set_block(env->root, 40, "online", "Movable"), 0);
	for (unsigned long b = 41; b < 47; b++)
		assert_int_equal(fake_sysfs_add_block(env->root, b, 2, b == 46 ? "offline" : "online", "Movable"), 0);
	assert_int_equal(fake_sysfs_write(dir, "onlined", "range:0x1-0x2\nuuid:%s\n", FAKE_UUID_KMEM), 0);
	run = run_ctl_env(vars, json);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "dax_devices.0.onlined_by"), "pmemram");
	assert_true(json_bool_at(j, "dax_devices.0.releasable"));
	json_object_put(j);
	free(run);

	run = run_ctl_env(vars, human);
	assert_int_equal(run->status, 0);
	assert_non_null(strstr(run->out, "from nvdimm namespace0.0 (" FAKE_UUID_KMEM "), 0x140000000-0x17edfffff; "
					 "onlined by pmemram, releasable\n"));
	assert_non_null(strstr(run->out, "dax2.0   devdax      node 1   256 MiB\n"
					 "           from hmem hmem.0, 0x60000000-0x6fffffff\n"));
	free(run);

	/* a block in Normal cannot be counted on to go offline */
	assert_int_equal(fake_sysfs_set_block(env->root, 43, "online", "Normal"), 0);
	run = run_ctl_env(vars, json);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_false(json_bool_at(j, "dax_devices.0.releasable"));
	json_object_put(j);
	free(run);
}

/* Accept n connections on a socket at path, answer each with reply, or when NULL hang up without
 * one: a pmemramd as the test needs it, in a child process. */
static pid_t fake_daemon(const char *path, const char *reply, int n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;
	pid_t pid;

	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[256];

		/* Off the TAP stream, and gone in any case should the test fail before waiting. */
		if (!freopen("/dev/null", "w", stdout))
			_exit(1);
		alarm(20);
		for (int i = 0; i < n; i++) {
			int c = accept(fd, NULL, NULL);

			if (c < 0 || !reply) {
				if (c >= 0)
					close(c);
				continue;
			}
			/* the whole request line: unread data would make close() reset the reply */
			for (ssize_t k; (k = read(c, buf, sizeof(buf))) > 0 && !memchr(buf, '\n', (size_t)k);)
				;
			(void)!write(c, reply, strlen(reply));
			close(c);
		}
		_exit(0);
	}
	close(fd);
	return pid;
}

/* Not root, status cannot read a kmem device's range: who onlined it and whether release can
 * give it back are unknown (null), not "other" and false; the daemon's answer, when there is one,
 * says. */
/* Something accepts on the socket and hangs up without a reply: pmemramd is not "not running". */
static void test_daemon_not_answering(void **state)
{
	char dir[] = "/tmp/pmemram-test-sock.XXXXXX", path[64], sock_env[96], root_env[PATH_MAX + 32],
	     boot_env[PATH_MAX + 32];
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(json_object_putp) struct json_object *j = NULL;
	int status;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);
	pid = fake_daemon(path, NULL, 2);

	snprintf(sock_env, sizeof(sock_env), "PMEMRAM_SOCKET=%s", path);
	snprintf(root_env, sizeof(root_env), "PMEMRAM_SYSFS_ROOT=%s", ENV(state)->root);
	snprintf(boot_env, sizeof(boot_env), "PMEMRAM_BOOT_ROOT=%s", ENV(state)->root);
	{
		const char *env[] = { sock_env, root_env, boot_env, NULL };
		const char *human[] = { "status", NULL }, *json[] = { "--json", "status", NULL };
		char expected[160];

		run = run_ctl_env(env, human);
		assert_int_equal(run->status, 0);
		/* The error depends on when the hang-up lands: on the request or on the reply. */
		snprintf(expected, sizeof(expected), "pmemramd: not answering (%s: ", path);
		if (!strstr(run->out, expected))
			fail_msg("no \"%s\" in: %s", expected, run->out);
		free(run);
		run = run_ctl_env(env, json);
		assert_int_equal(run->status, 0);
		j = json_tokener_parse(run->out);
		assert_non_null(j);
		assert_true(json_bool_at(j, "daemon.running"));
		assert_false(json_bool_at(j, "daemon.answering"));
		assert_true(strlen(json_string_at(j, "daemon.error")) > 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	rmdir(dir);
}

/* dax2.0's provenance as status --json and status show it: onlined_by (NULL: null), releasable
 * (-1: null), and the human line. */
static void expect_dax2(const char *const *vars, const char *onlined_by, int releasable, const char *line)
{
	const char *human[] = { "status", NULL }, *json[] = { "--json", "status", NULL };
	struct json_object *j;
	struct run *run;

	run = run_ctl_env(vars, json);
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_string_equal(json_string_at(j, "dax_devices.2.device"), "dax2.0");
	assert_string_equal(json_string_at(j, "dax_devices.2.mode"), "system-ram");
	if (onlined_by)
		assert_string_equal(json_string_at(j, "dax_devices.2.onlined_by"), onlined_by);
	else
		assert_null(json_at(j, "dax_devices.2.onlined_by"));
	if (releasable >= 0)
		assert_int_equal(json_bool_at(j, "dax_devices.2.releasable"), releasable);
	else
		assert_null(json_at(j, "dax_devices.2.releasable"));
	json_object_put(j);
	free(run);
	run = run_ctl_env(vars, human);
	assert_int_equal(run->status, 0);
	if (!strstr(run->out, line))
		fail_msg("no \"%s\" in: %s", line, run->out);
	free(run);
}

static void test_provenance_unknown(void **state)
{
	struct fake_env *env = ENV(state);
	char root_env[PATH_MAX + 32], sock_env[PATH_MAX + 32], path[PATH_MAX];
	const char *vars[] = { root_env, sock_env, NULL };
	pid_t pid;
	int status;

	/* an hmem device on kmem: no namespace, and its resource unreadable */
	assert_int_equal(fake_sysfs_add_hmem(env->root, 0, "dax2.0", "kmem", 1, 256ULL << 20, 0), 0);
	snprintf(root_env, sizeof(root_env), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(path, sizeof(path), "%s/run/pmemramd.sock", env->root);
	snprintf(sock_env, sizeof(sock_env), "PMEMRAM_SOCKET=%s", path);
	expect_dax2(vars, NULL, -1, "           from hmem hmem.0; onlined by unknown, releasable unknown\n");

	/* pmemramd, root, knows */
	assert_int_equal(fake_sysfs_write(env->root, "run/keep", "\n"), 0);
	pid = fake_daemon(path,
			  "{\"ok\":true,\"dax_devices\":[{\"device\":\"dax2.0\",\"mode\":\"system-ram\","
			  "\"onlined_by\":\"pmemram\",\"releasable\":true}]}\n",
			  2);
	expect_dax2(vars, "pmemram", true, "           from hmem hmem.0; onlined by pmemram, releasable\n");
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
}

/* Promotion as the procfs root shows it, and nothing of it on a kernel without NUMA balancing. */
static void test_promotion(void **state)
{
	struct fake_env *env = ENV(state);
	char root_env[512], proc_env[512], sock_env[600];
	const char *vars[] = { root_env, proc_env, sock_env, NULL };
	const char *human[] = { "status", NULL }, *json[] = { "--json", "status", NULL };
	struct json_object *j;
	struct run *run;

	snprintf(root_env, sizeof(root_env), "PMEMRAM_SYSFS_ROOT=%s", env->root);
	snprintf(proc_env, sizeof(proc_env), "PMEMRAM_PROCFS_ROOT=%s", env->proc);
	snprintf(sock_env, sizeof(sock_env), "PMEMRAM_SOCKET=%s/no-daemon.sock", env->root);

	run = run_ctl_env(vars, json);
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_null(json_at(j, "promotion"));
	json_object_put(j);
	free(run);
	run = run_ctl_env(vars, human);
	assert_null(strstr(run->out, "promotion"));
	free(run);

	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/numa_balancing", "3\n"), 0);
	assert_int_equal(fake_sysfs_write(env->proc, "sys/kernel/numa_balancing_promote_rate_limit_MBps", "128\n"), 0);
	run = run_ctl_env(vars, json);
	assert_int_equal(run->status, 0);
	j = json_tokener_parse(run->out);
	assert_non_null(j);
	assert_int_equal(json_object_get_int(json_at(j, "promotion.numa_balancing")), 3);
	assert_true(json_bool_at(j, "promotion.tiering"));
	assert_int_equal(json_object_get_int(json_at(j, "promotion.rate_limit_mbps")), 128);
	json_object_put(j);
	free(run);
	run = run_ctl_env(vars, human);
	assert_non_null(
		strstr(run->out, "Memory-tier promotion: enabled (kernel.numa_balancing 3), at most 128 MB/s\n"));
	free(run);
}

static void test_missing_block_size(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	char expected[4096];

	assert_int_equal(fake_env_break(ENV(state), "devices/system/memory/block_size_bytes", NULL), 0);
	run = run_ctl(ENV(state)->root, "status", NULL);
	assert_int_equal(run->status, 2);
	assert_string_equal(run->out, "");
	snprintf(expected, sizeof(expected),
		 "pmemramctl: cannot read %s/devices/system/memory/block_size_bytes: No such file or directory\n",
		 ENV(state)->root);
	assert_string_equal(run->err, expected);
}

static void test_bad_root(void **state)
{
	_cleanup_(freep) struct run *run = run_ctl("/nonexistent/pmemram", "status", NULL);

	assert_int_equal(run->status, 2);
	assert_string_equal(run->err,
			    "pmemramctl: cannot open sysfs root /nonexistent/pmemram: No such file or directory\n");
}

static void test_usage(void **state)
{
	const char *root = ENV(state)->root;
	struct {
		const char *a, *b, *c;
		int status;
		const char *needle;
	} cases[] = {
		{ NULL, NULL, NULL, 64, "missing command" },
		{ "frobnicate", NULL, NULL, 64, "unknown command 'frobnicate'" },
		{ "--bogus", "status", NULL, 64, "unrecognized option '--bogus'" },
		{ "status", "-x", NULL, 64, "invalid option -- 'x'" },
		{ "status", "extra", NULL, 64, "unexpected argument 'extra'" },
		{ "--help", NULL, NULL, 0, "Usage: pmemramctl" },
		{ "status", "--help", NULL, 0, "Usage: pmemramctl status" },
		{ "--version", NULL, NULL, 0, "pmemramctl " PACKAGE_VERSION },
		/* --dry-run is release's: reclaim must not take it for a release */
		{ "reclaim", "--dry-run", "dax0.0", 64, "unrecognized option '--dry-run'" },
		{ "reclaim", "-n", "dax0.0", 64, "invalid option -- 'n'" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(freep) struct run *run = run_ctl(root, cases[i].a, cases[i].b, cases[i].c, NULL);

		assert_int_equal(run->status, cases[i].status);
		assert_non_null(strstr(cases[i].status ? run->err : run->out, cases[i].needle));
	}
}

#define FAKE_TEST(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, fake_env_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FAKE_TEST(test_json_hmat, fake_env_setup_hmat),
		FAKE_TEST(test_json_stock, fake_env_setup_stock),
		FAKE_TEST(test_human_hmat, fake_env_setup_hmat),
		FAKE_TEST(test_human_live, fake_env_setup_live),
		FAKE_TEST(test_provenance, fake_env_setup_hmat),
		FAKE_TEST(test_provenance_unknown, fake_env_setup_hmat),
		FAKE_TEST(test_no_hmat_figures, fake_env_setup_hmat),
		FAKE_TEST(test_daemon_not_answering, fake_env_setup_hmat),
		FAKE_TEST(test_promotion, fake_env_setup_hmat),
		FAKE_TEST(test_missing_block_size, fake_env_setup_hmat),
		FAKE_TEST(test_bad_root, fake_env_setup_stock),
		FAKE_TEST(test_usage, fake_env_setup_stock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
