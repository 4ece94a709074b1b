/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the EXAMPLES of pmemramctl(8) and pmemram.conf(5), read from the pages in $PMEMRAM_SRCDIR/man,
 * on a fake machine, and checks what each one did: the page and its test cannot drift apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-sysfs.h"
#include "pmemram-config.h"
#include "pmemram-private.h"
#include "run-ctl.h"

#define MAX_BLOCKS 32
#define MAX_LINES 32
#define MAX_WORDS 16
/* The fake machine's soft-reserved device: 256 MiB at 0x60000000 on node 1, as in the bench's hmem topology. */
#define HMEM_DEVICE "dax3.0"
#define UNIT_DROPIN "# /etc/systemd/system/pmemramd.service.d/"
#define CONF_FILE "# /etc/pmemram/"

/* One .EX/.EE block of a page's EXAMPLES, its lines without roff escapes, continuations joined. */
struct block {
	size_t n;
	char *lines[MAX_LINES];
};

struct page {
	size_t n;
	struct block blocks[MAX_BLOCKS];
};

/* The fake trees, a configuration directory and pmemramd's socket; what the examples did so far. */
struct ex_env {
	struct fake_env *fake;
	char *tmp; /* conf/, the socket, the daemon's files */
	char *conf;
	char *sock;
	char *vars[10];
	char textfile[PATH_MAX];      /* the metrics file of the unit drop-in, moved below tmp */
	char textfile_page[PATH_MAX]; /* the same as the page names it */
	pid_t daemon;
	unsigned tasks; /* TASK_* seen */
};

enum {
	TASK_UUID = 1 << 0,
	TASK_HMEM = 1 << 1,
	TASK_CXL_RAM = 1 << 2,
	TASK_RELEASE = 1 << 3,
	TASK_GIVE_BACK = 1 << 4, /* unclaim or reclaim after a release */
	TASK_METRICS = 1 << 5,
	TASK_CLASS_DRAM = 1 << 6,
	TASK_PLAN = 1 << 7,
};

/* ---- reading a page ------------------------------------------------------------------------------ */

/* line without the roff escapes the EXAMPLES use, in place. */
static void unroff(char *line)
{
	static const struct {
		const char *from, *to;
	} escapes[] = { { "\\-", "-" }, { "\\(aq", "'" }, { "\\(dq", "\"" }, { "\\e", "\\" } };
	char *w = line;

	for (const char *r = line; *r;) {
		size_t i;

		for (i = 0; i < ELEMENTSOF(escapes); i++)
			if (strncmp(r, escapes[i].from, strlen(escapes[i].from)) == 0)
				break;
		if (i < ELEMENTSOF(escapes)) {
			*w++ = escapes[i].to[0];
			r += strlen(escapes[i].from);
		} else
			*w++ = *r++;
	}
	*w = '\0';
	if (strchr(line, '\\') && line[strlen(line) - 1] != '\\')
		fail_msg("an escape the test does not know in an example: %s", line);
}

static void add_line(struct block *b, const char *text)
{
	size_t len;

	assert_true(b->n < MAX_LINES);
	/* a line ending in a backslash goes on in the next, as in a shell or a unit file */
	if (b->n > 0 && (len = strlen(b->lines[b->n - 1])) > 0 && b->lines[b->n - 1][len - 1] == '\\') {
		char *joined;

		while (*text == ' ')
			text++;
		b->lines[b->n - 1][len - 1] = '\0';
		assert_true(asprintf(&joined, "%s%s", b->lines[b->n - 1], text) >= 0);
		free(b->lines[b->n - 1]);
		b->lines[b->n - 1] = joined;
		return;
	}
	b->lines[b->n] = strdup(text);
	assert_non_null(b->lines[b->n++]);
}

static void read_page(const char *name, struct page *p)
{
	const char *srcdir = getenv("PMEMRAM_SRCDIR");
	char path[PATH_MAX], line[1024];
	bool in_section = false, in_block = false;
	FILE *f;

	assert_non_null(srcdir);
	snprintf(path, sizeof(path), "%s/man/%s", srcdir, name);
	f = fopen(path, "re");
	if (!f)
		fail_msg("cannot open %s: %m", path);
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".SH ", 4) == 0) {
			in_section = streq(line, ".SH EXAMPLES");
			continue;
		}
		if (!in_section || strncmp(line, ".\\\"", 3) == 0)
			continue;
		if (streq(line, ".EX")) {
			assert_false(in_block);
			assert_true(p->n < MAX_BLOCKS);
			in_block = true;
		} else if (streq(line, ".EE")) {
			assert_true(in_block);
			in_block = false;
			p->n++;
		} else if (in_block) {
			if (line[0] == '.')
				fail_msg("%s: a request inside an example: %s", name, line);
			unroff(line);
			add_line(&p->blocks[p->n], line);
		}
	}
	fclose(f);
	assert_false(in_block);
	if (p->n == 0)
		fail_msg("%s has no examples", name);
}

static void free_page(struct page *p)
{
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = 0; j < p->blocks[i].n; j++)
			free(p->blocks[i].lines[j]);
}

/* Words of a command line; '...' quotes, nothing else.  Returns the count; words point into line. */
static size_t split(char *line, char *words[static MAX_WORDS])
{
	size_t n = 0;

	for (char *s = line; *s;) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		assert_true(n < MAX_WORDS - 1);
		if (*s == '\'') {
			words[n++] = ++s;
			s = strchr(s, '\'');
			assert_non_null(s);
		} else {
			words[n++] = s;
			s += strcspn(s, " ");
		}
		if (*s)
			*s++ = '\0';
	}
	words[n] = NULL;
	return n;
}

/* ---- the fake machine ---------------------------------------------------------------------------- */

static int setup(void **state)
{
	struct ex_env *e = calloc(1, sizeof(*e));
	void *fake = NULL;

	*state = e;
	if (!e || fake_env_setup_hmat(&fake) < 0)
		return -1;
	e->fake = fake;
	if (fake_sysfs_new(&e->tmp) < 0 || asprintf(&e->conf, "%s/etc", e->tmp) < 0 ||
	    asprintf(&e->sock, "%s/pmemramd.sock", e->tmp) < 0 || mkdir(e->conf, 0755) < 0 ||
	    asprintf(&e->vars[0], "PMEMRAM_SYSFS_ROOT=%s", e->fake->root) < 0 ||
	    asprintf(&e->vars[1], "PMEMRAM_PROCFS_ROOT=%s", e->fake->proc) < 0 ||
	    asprintf(&e->vars[2], "PMEMRAM_UDEV_ROOT=%s", e->fake->udev) < 0 ||
	    asprintf(&e->vars[3], "PMEMRAM_CONFIG_DIR=%s", e->conf) < 0 ||
	    asprintf(&e->vars[4], "PMEMRAM_SOCKET=%s", e->sock) < 0 ||
	    asprintf(&e->vars[5], "PMEMRAM_BOOT_ROOT=%s", e->fake->root) < 0 ||
	    asprintf(&e->vars[6], "PMEMRAM_SLICE_DIR=%s", e->tmp) < 0 ||
	    asprintf(&e->vars[7], "PMEMRAM_CGROUP_ROOT=%s/fs/cgroup", e->fake->root) < 0 ||
	    asprintf(&e->vars[8], "PMEMRAM_DAXCTL_CONFIG_DIR=%s/daxctl.conf.d", e->tmp) < 0)
		return -1;
	/* Soft-reserved memory beside the NVDIMMs, still on device_dax; root reads its range. */
	return fake_sysfs_add_hmem(e->fake->root, 0, HMEM_DEVICE, "device_dax", 1, 268435456ULL, 0x60000000ULL);
}

static int teardown(void **state)
{
	struct ex_env *e = *state;
	void *fake;

	if (!e)
		return 0;
	if (e->daemon > 0) {
		kill(e->daemon, SIGTERM);
		(void)waitpid(e->daemon, NULL, 0);
	}
	fake = e->fake;
	fake_env_teardown(&fake);
	fake_sysfs_free(e->tmp);
	free(e->conf);
	free(e->sock);
	for (size_t i = 0; i < ELEMENTSOF(e->vars); i++)
		free(e->vars[i]);
	free(e);
	return 0;
}

#define ENV(state) ((struct ex_env *)*(state))

/* pmemramctl with words[1..] as its arguments; fails the test unless it exits with status. */
static struct run *ctl(struct ex_env *e, char *const *words, int status)
{
	struct run *run = run_ctl_env((const char *const *)e->vars, (const char *const *)words + 1);

	if (run->status != status)
		fail_msg("'pmemramctl %s ...' exited %d, not %d: %s%s", words[1], run->status, status, run->out,
			 run->err);
	return run;
}

static struct pmemram_config *load_config(struct ex_env *e)
{
	struct pmemram_config *c = NULL;
	struct pmemram_config_errors errors = {};
	_cleanup_(closep) int fd = open(e->conf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	assert_true(fd >= 0);
	r = pmemram_config_load(fd, &c, &errors);
	if (r < 0)
		fail_msg("the configuration does not load (%d): %s", r, errors.n ? errors.msg[0] : "");
	return c;
}

/* The fake device a claim's match names, NULL when the machine has none for it (no CXL bus). */
static const char *expected_device(const struct pmemram_claim *claim)
{
	switch (claim->match) {
	case PMEMRAM_MATCH_UUID:
		assert_string_equal(claim->match_value, FAKE_UUID_KMEM);
		return "dax0.0";
	case PMEMRAM_MATCH_DEVICE:
		return claim->match_value;
	case PMEMRAM_MATCH_HMEM_RANGE:
	case PMEMRAM_MATCH_HMEM_NODE:
		return HMEM_DEVICE;
	case PMEMRAM_MATCH_CXL_MEMDEV:
	case PMEMRAM_MATCH_CXL_REGION:
		return NULL;
	default:
		fail_msg("claim '%s': a match the fake machine has no device for", claim->name);
	}
	return NULL;
}

/* plan --json: every claim matches the device expected_device() names, or is listed unmatched. */
static void check_plan(struct ex_env *e)
{
	char *words[] = { "pmemramctl", "plan", "--json", NULL };
	_cleanup_(freep) struct run *run = ctl(e, words, 0);
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = load_config(e);
	struct json_object *j = json_tokener_parse(run->out), *devices, *unmatched;

	assert_non_null(j);
	devices = json_typed_at(j, "devices", json_type_array);
	unmatched = json_typed_at(j, "unmatched_claims", json_type_array);
	for (size_t i = 0; i < c->n_claims; i++) {
		const char *want = expected_device(&c->claims[i]);
		bool found = false;

		if (want) {
			for (size_t k = 0; k < json_object_array_length(devices); k++) {
				struct json_object *d = json_object_array_get_idx(devices, k), *claim;

				if (streq(json_string_at(d, "device"), want) && (claim = json_at(d, "claim")))
					found = streq(json_object_get_string(claim), c->claims[i].name);
			}
		} else
			for (size_t k = 0; k < json_object_array_length(unmatched); k++)
				found = found || streq(json_object_get_string(json_object_array_get_idx(unmatched, k)),
						       c->claims[i].name);
		if (!found)
			fail_msg("claim '%s': %s not in the plan: %s", c->claims[i].name, want ? want : "unmatched",
				 run->out);
	}
	json_object_put(j);
}

/* Fails unless text names every claim of the configuration, or with classes every class. */
static void expect_named(struct ex_env *e, const char *text, bool classes)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = load_config(e);
	size_t n = classes ? c->n_classes : c->n_claims;

	for (size_t i = 0; i < n; i++) {
		const char *name = classes ? c->classes[i].name : c->claims[i].name;

		if (!strstr(text, name))
			fail_msg("the output does not name '%s': %s", name, text);
	}
}

/* ---- pmemramctl(8) -------------------------------------------------------------------------------- */

/* claim NAME OPTIONS: the drop-in holds what the options say, the loader reads it so, and the plan
 * matches the device. */
static void example_claim(struct ex_env *e, char **words, size_t n)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	char path[PATH_MAX], text[4096], want[256];
	const struct pmemram_claim *claim;
	const char *name = NULL, *zone = "movable";
	enum pmemram_region_kind region = PMEMRAM_REGION_NONE;
	FILE *f;
	size_t len;

	free(ctl(e, words, 0));
	c = load_config(e);

	want[0] = '\0';
	for (size_t i = 2; i < n; i++) {
		static const struct {
			const char *option, *key;
			unsigned task;
		} matches[] = { { "--uuid", "uuid", TASK_UUID },
				{ "--hmem", "hmem", TASK_HMEM },
				{ "--cxl-memdev", "cxl-memdev", 0 },
				{ "--device", "device", 0 },
				{ "--region", "region", 0 } };
		size_t m;

		for (m = 0; m < ELEMENTSOF(matches); m++)
			if (streq(words[i], matches[m].option))
				break;
		if (m < ELEMENTSOF(matches)) {
			assert_true(i + 1 < n);
			snprintf(want, sizeof(want), "\nmatch = %s:%s\n", matches[m].key, words[++i]);
			e->tasks |= matches[m].task;
		} else if (streq(words[i], "--online") && i + 1 < n)
			zone = words[++i];
		else if (streq(words[i], "--create-region=ram"))
			region = PMEMRAM_REGION_RAM;
		else if (words[i][0] == '-')
			fail_msg("claim: an option the test does not check: %s", words[i]);
		else
			name = words[i];
	}
	assert_non_null(name);
	assert_true(want[0]);

	snprintf(path, sizeof(path), "%s/pmemram.conf.d/50-pmemramctl-%s.conf", e->conf, name);
	f = fopen(path, "re");
	assert_non_null(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	if (!strstr(text, want))
		fail_msg("%s: no '%s' in:\n%s", path, want + 1, text);
	snprintf(want, sizeof(want), "\nonline = %s\n", zone);
	assert_non_null(strstr(text, want));

	claim = pmemram_config_find_claim(c, name);
	assert_non_null(claim);
	assert_int_equal(claim->zone, streq(zone, "normal") ? PMEMRAM_ZONE_NORMAL : PMEMRAM_ZONE_MOVABLE);
	assert_int_equal(claim->create_region, region);
	if (claim->match == PMEMRAM_MATCH_CXL_MEMDEV && region == PMEMRAM_REGION_RAM) {
		assert_false(claim->create);
		e->tasks |= TASK_CXL_RAM;
	}
	check_plan(e);
}

static void example_ctl(struct ex_env *e, char **words, size_t n)
{
	const char *verb = words[1];

	assert_true(n >= 2);
	if (streq(verb, "claim"))
		example_claim(e, words, n);
	else if (streq(verb, "status")) {
		_cleanup_(freep) struct run *run = ctl(e, words, 0);

		/* no pmemramd yet: said, and status still succeeds */
		assert_non_null(strstr(run->out, "pmemramd: not running"));
	} else if (streq(verb, "plan")) {
		_cleanup_(freep) struct run *run = ctl(e, words, 0);

		expect_named(e, run->out, false);
		check_plan(e);
		e->tasks |= TASK_PLAN;
	} else if (streq(verb, "classes")) {
		_cleanup_(freep) struct run *run = ctl(e, words, 0);

		expect_named(e, run->out, true);
	} else if (streq(verb, "release") && n == 4 && streq(words[2], "--dry-run")) {
		/* done in pmemramctl, changing nothing: the blocks say what would be offlined */
		_cleanup_(freep) struct run *run = ctl(e, words, 0);
		char before[64];

		snprintf(before, sizeof(before), "%s", fake_sysfs_block_attr(e->fake->root, 32, "state"));
		if (!strstr(run->out, ": would offline "))
			fail_msg("release --dry-run: %s", run->out);
		assert_string_equal(fake_sysfs_dax_driver(e->fake->root, words[3]), "kmem");
		assert_string_equal(fake_sysfs_block_attr(e->fake->root, 32, "state"), before);
	} else if ((streq(verb, "release") || streq(verb, "reclaim")) && n == 3) {
		/* asked of pmemramd, which holds the device (release) or drops the hold (reclaim) */
		char want[128];
		pid_t pid;
		_cleanup_(freep) struct run *run = NULL;

		snprintf(want, sizeof(want), "{\"command\":\"%s\",\"device\":\"%s\"}\n", verb, words[2]);
		pid = fake_daemon_start(e->sock, want,
					streq(verb, "release")
						? "{\"ok\":true,\"device\":\"dax0.0\",\"outcome\":\"released\","
						  "\"reason\":\"dax0.0: released\",\"blocks\":[]}\n"
						: "{\"ok\":true,\"results\":[],\"plan\":{\"devices\":[]}}\n");
		run = ctl(e, words, 0);
		fake_daemon_expect_asked(e->sock, pid);
		if (streq(verb, "release"))
			e->tasks |= TASK_RELEASE;
		else if (e->tasks & TASK_RELEASE)
			e->tasks |= TASK_GIVE_BACK;
	} else if (streq(verb, "unclaim") && n == 3) {
		_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
		char path[PATH_MAX];

		free(ctl(e, words, 0));
		snprintf(path, sizeof(path), "%s/pmemram.conf.d/50-pmemramctl-%s.conf", e->conf, words[2]);
		assert_int_equal(access(path, F_OK), -1);
		c = load_config(e);
		assert_null(pmemram_config_find_claim(c, words[2]));
		if (e->tasks & TASK_RELEASE)
			e->tasks |= TASK_GIVE_BACK;
	} else
		fail_msg("an example the test does not run: pmemramctl %s", verb);
}

/* The unit drop-in: ExecStart= reset, then pmemramd with --metrics-textfile in a directory that
 * ReadWritePaths= opens.  Started on the fake machine, with the file moved below tmp. */
static void example_unit_dropin(struct ex_env *e, const struct block *b)
{
	char *exec = NULL, *rw = NULL, *words[MAX_WORDS], *argv[MAX_WORDS + 6], line[1024], env_conf[PATH_MAX];
	bool reset = false;
	size_t n, k = 0;
	pid_t pid;

	for (size_t i = 1; i < b->n; i++)
		if (streq(b->lines[i], "ExecStart="))
			reset = true;
		else if (strncmp(b->lines[i], "ExecStart=", 10) == 0)
			exec = b->lines[i] + 10;
		else if (strncmp(b->lines[i], "ReadWritePaths=", 15) == 0)
			rw = b->lines[i] + 15;
		else if (!streq(b->lines[i], "[Service]"))
			fail_msg("a unit setting the test does not check: %s", b->lines[i]);
	assert_true(reset);
	assert_non_null(exec);
	assert_non_null(rw);
	snprintf(line, sizeof(line), "%s", exec);
	n = split(line, words);
	assert_string_equal(words[0], "/usr/sbin/pmemramd");
	argv[k++] = "pmemramd";
	for (size_t i = 1; i < n; i++) {
		argv[k++] = words[i];
		if (streq(words[i], "--metrics-textfile") && i + 1 < n) {
			const char *file = words[++i];

			/* the service may write there: the directory is one ReadWritePaths= names */
			assert_int_equal(strncmp(file, rw, strlen(rw)), 0);
			assert_true(file[strlen(rw)] == '/' && !strchr(file + strlen(rw) + 1, '/'));
			snprintf(e->textfile_page, sizeof(e->textfile_page), "%s", file);
			snprintf(e->textfile, sizeof(e->textfile), "%s/%s", e->tmp, file + strlen(rw) + 1);
			argv[k++] = e->textfile;
		}
	}
	assert_true(e->textfile[0]);
	argv[k++] = "--socket";
	argv[k++] = e->sock;
	argv[k++] = "--settle-timeout";
	argv[k++] = "0";
	argv[k] = NULL;

	/* nothing claimed: an empty configuration directory */
	snprintf(env_conf, sizeof(env_conf), "PMEMRAM_CONFIG_DIR=%s/none", e->tmp);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		for (size_t i = 0; e->vars[i]; i++)
			if (putenv(e->vars[i]) < 0)
				_exit(127);
		if (putenv(env_conf) < 0 || setenv("PMEMRAM_LOG_TARGET", "stderr", 1) < 0)
			_exit(127);
		alarm(120);
		execv(getenv("PMEMRAMD"), argv);
		_exit(127);
	}
	e->daemon = pid;
	e->tasks |= TASK_METRICS;
}

/* grep '^PATTERN' FILE on the metrics file: a sample of that family, once pmemramd wrote it. */
static void example_grep(struct ex_env *e, char **words, size_t n)
{
	char text[65536] = "", want[256];

	assert_int_equal(n, 3);
	assert_true(words[1][0] == '^');
	assert_string_equal(words[2], e->textfile_page);
	snprintf(want, sizeof(want), "\n%s", words[1] + 1);
	for (int i = 0; i < 400 && !strstr(text, want); i++) {
		FILE *f = fopen(e->textfile, "re");
		size_t len = 0;

		if (f) {
			len = fread(text, 1, sizeof(text) - 1, f);
			fclose(f);
		}
		text[len] = '\0';
		usleep(25 * 1000);
	}
	if (!strstr(text, want))
		fail_msg("%s: no line starting '%s':\n%s", e->textfile, words[1] + 1, text);
	/* a family with its labels, not only its HELP line */
	snprintf(want, sizeof(want), "\n%s{", words[1] + 1);
	assert_non_null(strstr(text, want));
}

/* systemctl after the drop-in: nothing to run here, but only the verbs that apply it. */
static void example_systemctl(char **words, size_t n)
{
	if (n == 2 && streq(words[1], "daemon-reload"))
		return;
	if (n == 3 && (streq(words[1], "restart") || streq(words[1], "reload")) && streq(words[2], "pmemramd"))
		return;
	fail_msg("a systemctl example the test does not know: %s %s", words[1], n > 2 ? words[2] : "");
}

static void run_commands(struct ex_env *e, const struct block *b)
{
	for (size_t i = 0; i < b->n; i++) {
		char line[1024], *words[MAX_WORDS];
		size_t n;

		snprintf(line, sizeof(line), "%s", b->lines[i]);
		n = split(line, words);
		if (n == 0)
			continue;
		if (streq(words[0], "pmemramctl"))
			example_ctl(e, words, n);
		else if (streq(words[0], "systemctl"))
			example_systemctl(words, n);
		else if (streq(words[0], "grep"))
			example_grep(e, words, n);
		else
			fail_msg("an example the test does not run: %s", b->lines[i]);
	}
}

static void test_pmemramctl_8(void **state)
{
	struct ex_env *e = ENV(state);
	struct page p;

	read_page("pmemramctl.8", &p);
	for (size_t i = 0; i < p.n; i++) {
		const struct block *b = &p.blocks[i];

		if (b->n > 0 && strncmp(b->lines[0], UNIT_DROPIN, strlen(UNIT_DROPIN)) == 0)
			example_unit_dropin(e, b);
		else
			run_commands(e, b);
	}
	free_page(&p);
	/* the tasks the page is there to show are all still shown */
	assert_int_equal(e->tasks, TASK_UUID | TASK_HMEM | TASK_CXL_RAM | TASK_RELEASE | TASK_GIVE_BACK | TASK_METRICS |
					   TASK_PLAN);
}

/* ---- pmemram.conf(5) ------------------------------------------------------------------------------ */

/* The value key has in section after all the blocks' files, as a later file overrides an earlier
 * one; NULL when no block sets it.  Blocks are in lexical order of their files on the page. */
static const char *value_in(const struct page *p, const char *section, const char *key)
{
	const char *value = NULL;

	for (size_t i = 0; i < p->n; i++) {
		const struct block *b = &p->blocks[i];
		bool in = false;

		if (b->n == 0 || strncmp(b->lines[0], CONF_FILE, strlen(CONF_FILE)) != 0)
			continue;
		for (size_t j = 1; j < b->n; j++) {
			const char *l = b->lines[j];

			if (l[0] == '[')
				in = streq(l, section);
			else if (in && strncmp(l, key, strlen(key)) == 0 && strncmp(l + strlen(key), " = ", 3) == 0)
				value = l + strlen(key) + 3;
		}
	}
	return value;
}

/* SIZE as pmemram.conf(5) writes it: bytes, or a number with a binary K, M, G, T, P or E. */
static uint64_t size_of(const char *text)
{
	static const char units[] = "KMGTPE";
	char *end;
	uint64_t n = strtoull(text, &end, 10);
	const char *unit = *end ? strchr(units, *end) : NULL;

	if (*end && (!unit || end[1]))
		fail_msg("a size the test does not read: %s", text);
	return unit ? n << (10 * (unit - units + 1)) : n;
}

/* classes --json: each class with the nodes its kind has on the fake machine, and its keys. */
static void check_classes(struct ex_env *e, const struct page *p, const struct pmemram_config *c)
{
	static const struct {
		const char *spec, *nodes;
	} kinds[] = { { "dram", "0-1" }, { "pmem", "2" }, { "all", "0-2" }, { "lowest-latency", "0" } };
	char *words[] = { "pmemramctl", "classes", "--json", NULL };
	_cleanup_(freep) struct run *run = ctl(e, words, 0);
	struct json_object *j = json_tokener_parse(run->out);

	assert_non_null(j);
	assert_true(c->n_classes > 0);
	for (size_t i = 0; i < c->n_classes; i++) {
		char key[64], section[64];
		const char *mode, *protect, *spec;
		size_t k;

		snprintf(key, sizeof(key), "classes.%zu", i);
		snprintf(section, sizeof(section), "[class \"%s\"]", c->classes[i].name);
		assert_string_equal(json_string_at(json_at(j, key), "class"), c->classes[i].name);
		spec = value_in(p, section, "nodes");
		assert_non_null(spec);
		assert_string_equal(json_string_at(json_at(j, key), "nodes_spec"), spec);
		for (k = 0; k < ELEMENTSOF(kinds); k++)
			if (streq(kinds[k].spec, spec))
				break;
		if (k == ELEMENTSOF(kinds))
			fail_msg("class %s: nodes = %s, which the test does not know", c->classes[i].name, spec);
		assert_string_equal(json_string_at(json_at(j, key), "nodes"), kinds[k].nodes);
		mode = value_in(p, section, "mode");
		assert_string_equal(json_string_at(json_at(j, key), "mode"), mode ? mode : "bind");
		protect = value_in(p, section, "protect");
		if (protect)
			assert_int_equal(json_int_at(json_at(j, key), "protect"), size_of(protect));
		if (streq(spec, "dram"))
			e->tasks |= TASK_CLASS_DRAM;
		/* the fake machine's read bandwidths are 10, 5 and 1 GiB/s */
		if (c->classes[i].mode == PMEMRAM_CLASS_WEIGHTED_INTERLEAVE) {
			const char *weights = value_in(p, section, "weights");

			assert_string_equal(json_string_at(json_at(j, key), "weights_spec"),
					    !weights || streq(weights, "hmat") ? "hmat" : "list");
			if (!weights || streq(weights, "hmat"))
				assert_string_equal(json_string_at(json_at(j, key), "weights"), "0:10,1:5,2:1");
		}
	}
	json_object_put(j);
}

/* Each claim of the blocks as the loader reads it: its match, zone and creation keys. */
static void check_claims(const struct page *p, const struct pmemram_config *c)
{
	assert_true(c->n_claims > 0);
	for (size_t i = 0; i < c->n_claims; i++) {
		const struct pmemram_claim *claim = &c->claims[i];
		const char *match, *online, *region, *create;
		char section[96];

		snprintf(section, sizeof(section), "[claim \"%s\"]", claim->name);
		match = value_in(p, section, "match");
		assert_non_null(match);
		assert_int_equal(strncmp(match, pmemram_match_to_string(claim->match),
					 strlen(pmemram_match_to_string(claim->match))),
				 0);
		online = value_in(p, section, "online");
		assert_int_equal(claim->zone,
				 online && streq(online, "normal") ? PMEMRAM_ZONE_NORMAL : PMEMRAM_ZONE_MOVABLE);
		region = value_in(p, section, "create-region");
		assert_string_equal(pmemram_region_kind_to_string(claim->create_region), region ? region : "no");
		create = value_in(p, section, "create");
		assert_int_equal(claim->create, create && streq(create, "devdax"));
	}
}

static void test_pmemram_conf_5(void **state)
{
	struct ex_env *e = ENV(state);
	struct page p;
	bool ran = false;

	read_page("pmemram.conf.5", &p);
	for (size_t i = 0; i < p.n; i++) {
		const struct block *b = &p.blocks[i];
		_cleanup_(freep) char *text = NULL;
		size_t size = 0;
		FILE *f;

		if (b->n == 0 || strncmp(b->lines[0], CONF_FILE, strlen(CONF_FILE)) != 0) {
			run_commands(e, b);
			ran = true;
			continue;
		}
		/* "# /etc/pmemram/FILE" names the file the block is */
		f = open_memstream(&text, &size);
		assert_non_null(f);
		for (size_t j = 0; j < b->n; j++)
			fprintf(f, "%s\n", b->lines[j]);
		assert_int_equal(fclose(f), 0);
		assert_false(ran); /* the commands come after the files */
		assert_int_equal(fake_sysfs_write(e->conf, b->lines[0] + strlen(CONF_FILE), "%s", text), 0);
	}
	assert_true(ran);
	{
		_cleanup_(pmemram_config_freep) struct pmemram_config *c = load_config(e);

		const char *hotplug = value_in(&p, "[global]", "hotplug-policy");

		check_claims(&p, c);
		check_classes(e, &p, c);
		assert_string_equal(pmemram_config_hotplug_to_string(c->hotplug), hotplug ? hotplug : "keep");
	}
	free_page(&p);
	assert_int_equal(e->tasks & (TASK_PLAN | TASK_CLASS_DRAM), TASK_PLAN | TASK_CLASS_DRAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pmemramctl_8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pmemram_conf_5, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
