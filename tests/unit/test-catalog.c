/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramd's event table against its sources, systemd/pmemram.catalog and the man page; journalctl on the catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "macro.h"
#include "messages.h"
#include "pmemram-plan.h"

#define ENTRIES_MAX 128

struct entry {
	char id[33];
	char *subject, *defined_by, *documentation;
	char *body; /* the explanation: every line after the headers */
	unsigned line;
};

struct catalog {
	size_t n;
	struct entry e[ENTRIES_MAX];
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && streq(s + n - k, suffix);
}

/* $PMEMRAM_SRCDIR/rel, which the test environment sets to the source tree. */
static void src_path(const char *rel, char *buf, size_t size)
{
	const char *src = getenv("PMEMRAM_SRCDIR");

	assert_non_null(src);
	assert_true((size_t)snprintf(buf, size, "%s/%s", src, rel) < size);
}

/* 32 lowercase hex digits of a random (version 4, variant 1) id, as systemd-id128 new makes. */
static bool id_is_valid(const char *id)
{
	if (strlen(id) != 32)
		return false;
	for (size_t i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)id[i]) || isupper((unsigned char)id[i]))
			return false;
	return id[12] == '4' && strchr("89ab", id[16]);
}

static void append(char **s, const char *line)
{
	size_t old = *s ? strlen(*s) : 0;
	char *p = realloc(*s, old + strlen(line) + 2);

	assert_non_null(p);
	strcpy(p + old, line);
	strcat(p + old, "\n");
	*s = p;
}

static void parse_header(struct entry *e, const char *line, const char *path, unsigned n)
{
	static const struct {
		const char *key;
		size_t offset;
	} keys[] = {
		{ "Subject: ", offsetof(struct entry, subject) },
		{ "Defined-By: ", offsetof(struct entry, defined_by) },
		{ "Documentation: ", offsetof(struct entry, documentation) },
		{ "Support: ", SIZE_MAX },
	};

	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		char **field;

		if (!starts_with(line, keys[i].key))
			continue;
		if (keys[i].offset == SIZE_MAX)
			return;
		field = (char **)((char *)e + keys[i].offset);
		if (*field)
			fail_msg("%s:%u: a second %s", path, n, keys[i].key);
		*field = strdup(line + strlen(keys[i].key));
		assert_non_null(*field);
		return;
	}
	fail_msg("%s:%u: not a header pmemram uses: '%s'", path, n, line);
}

/* The catalog as systemd reads it: "-- ID" opens an entry, headers up to a blank line, then the body;
 * lines starting with # are comments. */
static void catalog_read(struct catalog *c)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], line[1024];
	struct entry *e = NULL;
	bool in_body = false;
	unsigned n = 0;

	memset(c, 0, sizeof(*c));
	src_path("systemd/pmemram.catalog", path, sizeof(path));
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		n++;
		if (len == 0 || line[len - 1] != '\n')
			fail_msg("%s:%u: longer than %zu bytes or no newline", path, n, sizeof(line) - 2);
		line[len - 1] = '\0';
		if (line[0] == '#')
			continue;
		if (starts_with(line, "-- ")) {
			assert_true(c->n < ENTRIES_MAX);
			e = &c->e[c->n++];
			e->line = n;
			if (strlen(line + 3) != 32)
				fail_msg("%s:%u: '%s' is not '-- ' and a 32-digit id", path, n, line);
			memcpy(e->id, line + 3, 33);
			in_body = false;
			continue;
		}
		if (!e) {
			if (line[0])
				fail_msg("%s:%u: text before the first entry", path, n);
			continue;
		}
		if (!in_body && !line[0])
			in_body = true;
		else if (!in_body)
			parse_header(e, line, path, n);
		else if (line[0] || e->body)
			append(&e->body, line);
	}
}

static void catalog_free(struct catalog *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].subject);
		free(c->e[i].defined_by);
		free(c->e[i].documentation);
		free(c->e[i].body);
	}
}

/* Each @FIELD@ of s is one the event carries (or MESSAGE, which every entry has). */
static void check_substitutions(const struct entry *e, const char *s, const char *fields)
{
	const char *p = s;

	while (s && (p = strchr(p, '@'))) {
		const char *end = strchr(p + 1, '@');
		char name[64];

		if (!end)
			fail_msg("entry %s: an @ that opens no @FIELD@ in '%s'", e->id, p);
		assert_true((size_t)(end - p - 1) < sizeof(name));
		memcpy(name, p + 1, (size_t)(end - p - 1));
		name[end - p - 1] = '\0';
		if (!streq(name, "MESSAGE")) {
			const char *hit = strstr(fields, name);
			size_t len = strlen(name);

			if (!hit || (hit != fields && hit[-1] != ' ') || (hit[len] != ' ' && hit[len] != '\0'))
				fail_msg("entry %s: @%s@, but the event's fields are '%s'", e->id, name, fields);
		}
		p = end + 1;
	}
}

static const struct entry *find_entry(const struct catalog *c, const char *id, size_t *ret_count)
{
	const struct entry *found = NULL;

	*ret_count = 0;
	for (size_t i = 0; i < c->n; i++)
		if (streq(c->e[i].id, id)) {
			found = &c->e[i];
			(*ret_count)++;
		}
	return found;
}

/* The table: each event named, with a well-formed id of its own and a priority of notice or above. */
static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++) {
		const struct manager_event_info *a = &manager_events[i];

		assert_non_null(a->name);
		assert_non_null(a->id);
		assert_non_null(a->fields);
		if (!id_is_valid(a->id))
			fail_msg("event %s: '%s' is not 32 lowercase hex digits of a random id", a->name, a->id);
		if (a->priority > LOG_NOTICE)
			fail_msg("event %s: priority %d is below notice", a->name, a->priority);
		for (size_t k = 0; k < i; k++) {
			if (streq(manager_events[k].id, a->id))
				fail_msg("events %s and %s share the id %s", manager_events[k].name, a->name, a->id);
			if (streq(manager_events[k].name, a->name))
				fail_msg("two events are called %s", a->name);
		}
	}
}

/* One catalog entry per event, none for anything else, each with what journalctl -x shows. */
static void test_catalog_entries(void **state)
{
	struct catalog c;

	(void)state;
	catalog_read(&c);
	for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++) {
		const struct manager_event_info *a = &manager_events[i];
		size_t count;
		const struct entry *e = find_entry(&c, a->id, &count);

		if (count != 1)
			fail_msg("event %s (%s): %zu catalog entries, not 1", a->name, a->id, count);
		if (!e->subject || !e->subject[0])
			fail_msg("entry %s (%s, line %u): no Subject", e->id, a->name, e->line);
		if (!e->defined_by || !streq(e->defined_by, "pmemram"))
			fail_msg("entry %s (%s): Defined-By is not pmemram", e->id, a->name);
		if (!e->documentation || !strstr(e->documentation, "man:pmemramd(8)"))
			fail_msg("entry %s (%s): Documentation lacks man:pmemramd(8)", e->id, a->name);
		if (!e->body || strlen(e->body) < 80)
			fail_msg("entry %s (%s): no explanation", e->id, a->name);
		check_substitutions(e, e->subject, a->fields);
		check_substitutions(e, e->body, a->fields);
	}
	for (size_t i = 0; i < c.n; i++) {
		bool used = false;

		if (!id_is_valid(c.e[i].id))
			fail_msg("catalog line %u: '%s' is not a well-formed id", c.e[i].line, c.e[i].id);
		for (size_t k = 0; k < _MANAGER_EVENT_MAX; k++)
			used = used || streq(manager_events[k].id, c.e[i].id);
		if (!used)
			fail_msg("catalog line %u: %s is no event of messages.c", c.e[i].line, c.e[i].id);
	}
	catalog_free(&c);
}

/* Whether file (in daemon/pmemramd) contains s. */
static bool file_contains(const char *file, const char *s)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], rel[PATH_MAX], line[1024];

	snprintf(rel, sizeof(rel), "daemon/pmemramd/%s", file);
	src_path(rel, path, sizeof(path));
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, s))
			return true;
	return false;
}

/* The daemon's sources other than the table and the logging code name no priority of notice or
 * above (so every such line is an event), and every event is logged somewhere. */
static void test_sources(void **state)
{
	static const char *const priorities[] = { "LOG_EMERG", "LOG_ALERT", "LOG_CRIT", "LOG_ERR", "LOG_WARNING",
						  "LOG_NOTICE" };
	_cleanup_(closedirp) DIR *d = NULL;
	char dir[PATH_MAX];
	bool used[_MANAGER_EVENT_MAX] = {};
	size_t n_files = 0;
	struct dirent *de;

	(void)state;
	src_path("daemon/pmemramd", dir, sizeof(dir));
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 3 || (!ends_with(de->d_name, ".c") && !ends_with(de->d_name, ".h")) ||
		    starts_with(de->d_name, "messages.") || streq(de->d_name, "log.c"))
			continue;
		n_files++;
		for (size_t i = 0; i < ELEMENTSOF(priorities); i++)
			if (file_contains(de->d_name, priorities[i]))
				fail_msg("daemon/pmemramd/%s names %s: log an event of messages.h instead", de->d_name,
					 priorities[i]);
		for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++) {
			char symbol[96];
			size_t k;

			/* "device-online" is MANAGER_EVENT_DEVICE_ONLINE */
			k = (size_t)snprintf(symbol, sizeof(symbol), "MANAGER_EVENT_");
			for (const char *p = manager_events[i].name; *p && k < sizeof(symbol) - 1; p++)
				symbol[k++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
			symbol[k] = '\0';
			used[i] = used[i] || file_contains(de->d_name, symbol);
		}
	}
	assert_true(n_files >= 5);
	if (!file_contains("log.c", "MANAGER_EVENT_LIBRARY_ERROR"))
		fail_msg("log.c does not log the library's errors as library-error");
	used[MANAGER_EVENT_LIBRARY_ERROR] = true;
	for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++)
		if (!used[i])
			fail_msg("event %s is logged nowhere in daemon/pmemramd", manager_events[i].name);
}

/* man/pmemramd.8, whole (malloc'd). */
static char *man_page_read(void)
{
	_cleanup_(fclosep) FILE *f = NULL;
	char path[PATH_MAX], *text = NULL;
	size_t size = 0;

	src_path("man/pmemramd.8", path, sizeof(path));
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(getdelim(&text, &size, '\0', f) > 0);
	return text;
}

/* man/pmemramd.8 lists every event: ".B ID" and ".BR NAME" on the line after. */
static void test_man_page(void **state)
{
	_cleanup_(freep) char *text = man_page_read();
	char want[128];

	(void)state;
	for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++) {
		snprintf(want, sizeof(want), "\n.B %s\n.BR %s ", manager_events[i].id, manager_events[i].name);
		if (!strstr(text, want))
			fail_msg("man/pmemramd.8 does not list event %s (%s)", manager_events[i].name, manager_events[i].id);
	}
}

/* man/pmemramd.8 explains every reason a verdict can give: ".B NAME" on a line of its own, each
 * '-' escaped as troff wants it. */
static void test_man_page_reasons(void **state)
{
	_cleanup_(freep) char *text = man_page_read();
	char want[128];

	(void)state;
	for (int r = 0; r < _PMEMRAM_REASON_MAX; r++) {
		size_t n = snprintf(want, sizeof(want), "\n.B ");

		for (const char *p = pmemram_reason_to_string(r); *p && n + 3 < sizeof(want); p++) {
			if (*p == '-')
				want[n++] = '\\';
			want[n++] = *p;
		}
		want[n++] = '\n';
		want[n] = '\0';
		if (!strstr(text, want))
			fail_msg("man/pmemramd.8 does not explain the reason %s", pmemram_reason_to_string(r));
	}
}

/* Output of a shell command line (stdout and stderr), its exit status in *ret_status. */
static char *run_shell(const char *cmd, int *ret_status)
{
	char *out = NULL, buf[4096];
	size_t len = 0, n;
	FILE *p = popen(cmd, "r");
	int status;

	assert_non_null(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		char *q = realloc(out, len + n + 1);

		assert_non_null(q);
		out = q;
		memcpy(out + len, buf, n);
		len += n;
	}
	status = pclose(p);
	*ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (!out)
		out = strdup("");
	else
		out[len] = '\0';
	assert_non_null(out);
	return out;
}

/* journalctl itself: --update-catalog on a root of our own (never the host's database) reads the
 * catalog without an error, and --list-catalog lists every event's id with its subject. */
static void test_journalctl(void **state)
{
	char root[PATH_MAX], src[PATH_MAX], cmd[5 * PATH_MAX], want[256];
	const char *tmp = getenv("TMPDIR");
	_cleanup_(freep) char *out = NULL, *list = NULL;
	struct catalog c;
	int status;

	(void)state;
	out = run_shell("command -v journalctl", &status);
	if (status != 0)
		skip(); /* no systemd here */
	free(out);
	snprintf(root, sizeof(root), "%s/pmemram-catalog.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(root));
	src_path("systemd/pmemram.catalog", src, sizeof(src));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/usr/lib/systemd/catalog' && cp '%s' '%s/usr/lib/systemd/catalog/' && "
		 "journalctl --root='%s' --update-catalog 2>&1",
		 root, src, root, root);
	out = run_shell(cmd, &status);
	if (status != 0 || out[0])
		fail_msg("journalctl --update-catalog: status %d, '%s'", status, out);
	snprintf(cmd, sizeof(cmd), "journalctl --root='%s' --list-catalog 2>&1", root);
	list = run_shell(cmd, &status);
	assert_int_equal(status, 0);

	catalog_read(&c);
	for (size_t i = 0; i < _MANAGER_EVENT_MAX; i++) {
		size_t count;
		const struct entry *e = find_entry(&c, manager_events[i].id, &count);

		assert_non_null(e);
		snprintf(want, sizeof(want), "%s pmemram: %s\n", e->id, e->subject);
		if (!strstr(list, want))
			fail_msg("journalctl --list-catalog lacks '%s'; it says:\n%s", want, list);
	}
	catalog_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	free(run_shell(cmd, &status));
	assert_int_equal(status, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_catalog_entries),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_man_page_reasons),
		cmocka_unit_test(test_journalctl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
