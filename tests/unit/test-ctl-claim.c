/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the built pmemramctl claim and unclaim on a temporary configuration directory, with pmemramd
 * absent or played by a child process on a socket; and the loader they check edits with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake-sysfs.h"
#include "pmemram-config.h"
#include "pmemram-plan.h"
#include "pmemram-private.h"
#include "run-ctl.h"

#define UUID "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5f"
#define UUID_UPPER "6E9B4C6D-1F2A-4C3B-9D8E-0A1B2C3D4E5F"
#define DROPIN(name) "pmemram.conf.d/50-pmemramctl-" name ".conf"
#define ABSENT_MSG_FMT "pmemramctl: pmemramd is not running (no %s): the change takes effect when it starts\n"

struct claim_env {
	char *tmp;  /* holds conf and the socket */
	char *conf; /* the configuration directory */
	char *sock;
	char *vars[7]; /* with fake_system(), the fake roots from vars[3] */
};

static int setup(void **state)
{
	struct claim_env *p = calloc(1, sizeof(*p));

	*state = p;
	if (!p || fake_sysfs_new(&p->tmp) < 0 || asprintf(&p->conf, "%s/etc", p->tmp) < 0 ||
	    asprintf(&p->sock, "%s/pmemramd.sock", p->tmp) < 0 || mkdir(p->conf, 0755) < 0 ||
	    asprintf(&p->vars[0], "PMEMRAM_CONFIG_DIR=%s", p->conf) < 0 ||
	    asprintf(&p->vars[1], "PMEMRAM_SOCKET=%s", p->sock) < 0 ||
	    asprintf(&p->vars[2], "PMEMRAM_DAXCTL_CONFIG_DIR=%s/daxctl.conf.d", p->tmp) < 0 ||
	    /* a machine without devices, not the host's (claim --from-daxctl looks at them) */
	    asprintf(&p->vars[3], "PMEMRAM_SYSFS_ROOT=%s/sys", p->tmp) < 0 ||
	    asprintf(&p->vars[4], "PMEMRAM_PROCFS_ROOT=%s/proc", p->tmp) < 0 ||
	    asprintf(&p->vars[5], "PMEMRAM_UDEV_ROOT=%s/udev", p->tmp) < 0 ||
	    fake_sysfs_write(p->tmp, "sys/devices/system/memory/block_size_bytes", "8000000\n") < 0 ||
	    fake_sysfs_write(p->tmp, "sys/devices/system/memory/auto_online_blocks", "offline\n") < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	struct claim_env *p = *state;

	if (!p)
		return 0;
	fake_sysfs_free(p->tmp);
	free(p->conf);
	free(p->sock);
	for (size_t i = 0; i < ELEMENTSOF(p->vars); i++)
		free(p->vars[i]);
	free(p);
	return 0;
}

#define ENV(state) ((struct claim_env *)*(state))

/* pmemramctl with up to 10 arguments (NULL-terminated), PMEMRAM_CONFIG_DIR and PMEMRAM_SOCKET set. */
static struct run *run_args(void **state, ...)
{
	const char *args[12];
	size_t n = 0;
	va_list ap;

	va_start(ap, state);
	while (n < ELEMENTSOF(args) - 1 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	return run_ctl_env((const char *const *)ENV(state)->vars, args);
}
#define RUN(state, ...) run_args((state), __VA_ARGS__, NULL)

static void write_conf(void **state, const char *path, const char *text)
{
	assert_int_equal(fake_sysfs_write(ENV(state)->conf, path, "%s", text), 0);
}

/* Contents of conf/path, NULL when it does not exist. */
static char *read_conf(void **state, const char *path)
{
	char full[PATH_MAX], *text = NULL;
	size_t size = 0;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", ENV(state)->conf, path);
	f = fopen(full, "re");
	if (!f) {
		assert_int_equal(errno, ENOENT);
		return NULL;
	}
	text = calloc(1, 65536);
	assert_non_null(text);
	size = fread(text, 1, 65535, f);
	text[size] = '\0';
	fclose(f);
	return text;
}

static mode_t conf_mode(void **state, const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", ENV(state)->conf, path);
	assert_int_equal(lstat(full, &st), 0);
	return st.st_mode & 07777;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry below dir (hidden ones too, sorted): its path, type and mode, and a file's contents. */
static void snapshot_dir(FILE *out, const char *dir, const char *rel)
{
	char *names[256], full[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	assert_true((size_t)snprintf(full, sizeof(full), "%s%s%s", dir, *rel ? "/" : "", rel) < sizeof(full));
	d = opendir(full);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
			assert_true(n < ELEMENTSOF(names));
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(names[0]), compare_strings);

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		assert_true((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]) < sizeof(sub));
		assert_true((size_t)snprintf(full, sizeof(full), "%s/%s", dir, sub) < sizeof(full));
		assert_int_equal(lstat(full, &st), 0);
		fprintf(out, "%s %o\n", sub, (unsigned)st.st_mode);
		if (S_ISDIR(st.st_mode))
			snapshot_dir(out, dir, sub);
		else if (S_ISREG(st.st_mode)) {
			FILE *f = fopen(full, "re");
			int c;

			assert_non_null(f);
			while ((c = fgetc(f)) != EOF)
				fputc(c, out);
			fclose(f);
			fprintf(out, "\n--\n");
		}
		free(names[i]);
	}
}

static char *snapshot(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	assert_non_null(out);
	snapshot_dir(out, ENV(state)->conf, "");
	assert_int_equal(fclose(out), 0);
	return text;
}

static char *absent_msg(void **state)
{
	char *m;

	assert_true(asprintf(&m, ABSENT_MSG_FMT, ENV(state)->sock) >= 0);
	return m;
}

static struct json_object *parse_json(const struct run *run)
{
	struct json_object *j = json_tokener_parse(run->out);

	if (!j)
		fail_msg("not JSON: %s", run->out);
	return j;
}

/* ---- claim ------------------------------------------------------------------------------------ */

static void test_claim_writes(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *text = NULL, *absent = absent_msg(state), *expected = NULL;
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};
	const struct pmemram_claim *claim;
	_cleanup_(closep) int fd = -1;

	/* No pmemram.conf.d yet: it is made, 0755. */
	run = RUN(state, "claim", "fast", "--uuid", UUID_UPPER, "--convert", "--destroy-data");
	assert_int_equal(run->status, 0);
	text = read_conf(state, DROPIN("fast"));
	assert_non_null(text);
	assert_string_equal(text, "# Written by pmemramctl claim: do not edit.\n"
				  "# 'pmemramctl claim fast ...' replaces this file, 'pmemramctl unclaim fast' removes it.\n"
				  "[claim \"fast\"]\n"
				  "match = uuid:" UUID "\n"
				  "online = movable\n"
				  "convert = yes\n");
	assert_int_equal(conf_mode(state, "pmemram.conf.d"), 0755);
	assert_int_equal(conf_mode(state, DROPIN("fast")), 0644);

	assert_true(asprintf(&expected, "Wrote %s/" DROPIN("fast") ": claim 'fast', match = uuid:" UUID
					", online = movable, convert = yes.\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(run->out, expected);
	free(expected);
	/* setup()'s machine has no devices: the UUID matches nothing, and that is said first */
	assert_true(asprintf(&expected,
			     "pmemramctl claim: warning: UUID " UUID " matches no namespace or dax device on this "
			     "machine (ndctl list -N -v shows each namespace's uuid and raw_uuid, either of which a "
			     "claim matches): pmemramd does nothing with claim 'fast' until one appears\n"
			     "pmemramctl claim: warning: pmemramd will convert the namespace " UUID
			     " to devdax if it is not: that DESTROYS the namespace's contents\n%s",
			     absent) >= 0);
	assert_string_equal(run->err, expected);

	/* Nothing else was left behind: the only entries are the directory and the file. */
	free(text);
	text = snapshot(state);
	assert_int_equal(strncmp(text, "pmemram.conf.d 40755\n" DROPIN("fast") " 100644\n",
				 strlen("pmemram.conf.d 40755\n" DROPIN("fast") " 100644\n")),
			 0);
	assert_null(strstr(text, "/."));

	/* The loader reads it as the claim asked for. */
	fd = open(ENV(state)->conf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pmemram_config_load(fd, &c, &e), 0);
	claim = pmemram_config_find_claim(c, "fast");
	assert_non_null(claim);
	assert_int_equal(claim->match, PMEMRAM_MATCH_UUID);
	assert_string_equal(claim->match_value, UUID);
	assert_int_equal(claim->zone, PMEMRAM_ZONE_MOVABLE);
	assert_true(claim->convert);
}

static void test_claim_new_config_dir(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *dir = NULL, *text = NULL;

	/* --config wins over $PMEMRAM_CONFIG_DIR; a missing directory is made (not its parents). */
	assert_true(asprintf(&dir, "%s/new", ENV(state)->tmp) >= 0);
	run = RUN(state, "claim", "--config", dir, "r0", "--region", "region0", "--online", "normal");
	assert_int_equal(run->status, 0);
	free(run);
	run = NULL;
	text = read_conf(state, "../new/" DROPIN("r0"));
	assert_non_null(text);
	assert_non_null(strstr(text, "\nmatch = region:region0\nonline = normal\nconvert = no\n"));
	assert_null(read_conf(state, DROPIN("r0")));

	free(dir);
	assert_true(asprintf(&dir, "%s/no/such", ENV(state)->tmp) >= 0);
	run = RUN(state, "claim", "--config", dir, "r0", "--region", "region0");
	assert_int_equal(run->status, 2);
	assert_non_null(strstr(run->err, "cannot create "));
	assert_non_null(strstr(run->err, "/no/such: No such file or directory"));
}

/* A soft-reserved range as /proc/iomem prints it, and again in another spelling: the same claim. */
static void test_claim_hmem(void **state)
{
	_cleanup_(freep) struct run *run = NULL, *again = NULL, *node = NULL;
	_cleanup_(freep) char *text = NULL;

	run = RUN(state, "claim", "soft", "--hmem", "60000000-6fffffff");
	assert_int_equal(run->status, 0);
	text = read_conf(state, DROPIN("soft"));
	assert_non_null(text);
	assert_non_null(strstr(text, "\nmatch = hmem:60000000-6fffffff\nonline = movable\n"));

	again = RUN(state, "claim", "soft", "-H", "0x60000000-0x6FFFFFFF");
	assert_int_equal(again->status, 0);
	assert_non_null(strstr(again->out, DROPIN("soft") " already has claim 'soft' with these settings"));

	node = RUN(state, "claim", "soft", "--hmem", "node=1");
	assert_int_equal(node->status, 0);
	free(text);
	text = read_conf(state, DROPIN("soft"));
	assert_non_null(strstr(text, "\nmatch = hmem:node=1\n"));
}

/* CXL claims: the serial goes into the file as given; the configuration reads it as sysfs
 * prints it, so the same serial in hex is no change. */
static void test_claim_cxl(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *text = NULL;
	struct json_object *j;

	run = RUN(state, "claim", "--json", "m", "--cxl-memdev", "1592590337");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_string_equal(json_string_at(j, "match"), "cxl-memdev:0x5eed0001");
	json_object_put(j);
	text = read_conf(state, DROPIN("m"));
	assert_non_null(strstr(text, "\nmatch = cxl-memdev:1592590337\n"));
	free(run);
	run = RUN(state, "claim", "--json", "m", "--cxl-memdev", "0x5EED0001");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_string_equal(json_string_at(j, "action"), "unchanged");
	json_object_put(j);

	free(run);
	run = RUN(state, "claim", "r", "--cxl-region", "region7");
	assert_int_equal(run->status, 0);
	free(text);
	text = read_conf(state, DROPIN("r"));
	assert_non_null(strstr(text, "\nmatch = cxl-region:region7\n"));
}

static void test_claim_idempotent(void **state)
{
	_cleanup_(freep) struct run *first = NULL, *again = NULL, *changed = NULL, *json = NULL;
	_cleanup_(freep) char *before = NULL, *after = NULL, *expected = NULL, *absent = absent_msg(state);
	struct json_object *j;

	first = RUN(state, "claim", "x", "--device", "dax1.0", "--online", "normal");
	assert_int_equal(first->status, 0);
	before = snapshot(state);

	/* Same settings: nothing written, pmemramd not asked. */
	again = RUN(state, "claim", "x", "-d", "dax1.0", "-o", "normal");
	assert_int_equal(again->status, 0);
	assert_true(asprintf(&expected, "%s/" DROPIN("x") " already has claim 'x' with these settings: nothing changed.\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(again->out, expected);
	assert_string_equal(again->err, "");
	after = snapshot(state);
	assert_string_equal(before, after);

	/* Without --online the zone is the default, movable: that is a change. */
	changed = RUN(state, "claim", "x", "--device", "dax1.0");
	assert_int_equal(changed->status, 0);
	free(expected);
	assert_true(asprintf(&expected, "Replaced %s/" DROPIN("x") ": claim 'x': online normal -> movable.\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(changed->out, expected);
	assert_string_equal(changed->err, absent);
	free(after);
	after = read_conf(state, DROPIN("x"));
	assert_non_null(strstr(after, "\nmatch = device:dax1.0\nonline = movable\nconvert = no\n"));

	json = RUN(state, "claim", "--json", "x", "--region", "region3", "--online", "normal");
	assert_int_equal(json->status, 0);
	assert_string_equal(json->err, absent);
	j = parse_json(json);
	assert_int_equal(json_int_at(j, "schema_version"), 1);
	assert_string_equal(json_string_at(j, "command"), "claim");
	assert_string_equal(json_string_at(j, "claim"), "x");
	assert_string_equal(json_string_at(j, "config_dir"), ENV(state)->conf);
	free(expected);
	assert_true(asprintf(&expected, "%s/" DROPIN("x"), ENV(state)->conf) >= 0);
	assert_string_equal(json_string_at(j, "path"), expected);
	assert_string_equal(json_string_at(j, "action"), "replaced");
	assert_string_equal(json_string_at(j, "match"), "region:region3");
	assert_string_equal(json_string_at(j, "online"), "normal");
	assert_false(json_bool_at(j, "convert"));
	assert_int_equal(json_object_array_length(json_at(j, "changes")), 2);
	assert_string_equal(json_string_at(j, "changes.0.key"), "match");
	assert_string_equal(json_string_at(j, "changes.0.from"), "device:dax1.0");
	assert_string_equal(json_string_at(j, "changes.0.to"), "region:region3");
	assert_string_equal(json_string_at(j, "changes.1.key"), "online");
	assert_string_equal(json_string_at(j, "changes.1.from"), "movable");
	assert_string_equal(json_string_at(j, "changes.1.to"), "normal");
	assert_string_equal(json_string_at(j, "daemon"), "not-running");
	assert_false(json_bool_at(j, "reloaded"));
	json_object_put(j);
}

#define HAND_WRITTEN "# hand-written\n[claim \"fast\"]\nmatch = device:dax0.0\n"

static void test_claim_conflict(void **state)
{
	_cleanup_(freep) struct run *same_name = NULL, *same_device = NULL;
	_cleanup_(freep) char *before = NULL, *after = NULL, *expected = NULL;

	write_conf(state, "pmemram.conf", HAND_WRITTEN);
	before = snapshot(state);

	same_name = RUN(state, "claim", "fast", "--device", "dax1.0");
	assert_int_equal(same_name->status, 3);
	assert_string_equal(same_name->out, "");
	assert_true(asprintf(&expected,
			     "pmemramctl claim: claim 'fast' is already defined in %s/pmemram.conf:2, which pmemramctl "
			     "did not write: change it there, or choose another name; nothing was changed\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(same_name->err, expected);
	after = snapshot(state);
	assert_string_equal(before, after);

	/* Another name for the same device: the verifier's message, at the new file's line; the
	 * pmemram.conf.d this made is gone again. */
	same_device = RUN(state, "claim", "other", "--device", "dax0.0");
	assert_int_equal(same_device->status, 3);
	free(expected);
	assert_true(asprintf(&expected,
			     "pmemramctl claim: the configuration would not load with %s/" DROPIN("other")
			     "; nothing was changed:\n"
			     "%s/" DROPIN("other") ":4: key 'match': 'device:dax0.0' already claimed by 'fast' "
			     "(pmemram.conf:3)\n",
			     ENV(state)->conf, ENV(state)->conf) >= 0);
	assert_string_equal(same_device->err, expected);
	free(after);
	after = snapshot(state);
	assert_string_equal(before, after);
}

static void test_claim_invalid(void **state)
{
	_cleanup_(freep) struct run *bad_uuid = NULL, *newline = NULL, *broken = NULL;
	_cleanup_(freep) char *before = NULL, *after = NULL, *expected = NULL;

	write_conf(state, "pmemram.conf", "[claim \"a\"]\nmatch = region:region1\n");
	write_conf(state, "pmemram.conf.d/10-local.conf", "[claim \"a\"]\nonline = normal\n");
	before = snapshot(state);

	/* One hex digit short: refused by the parser, with file, line and key; nothing left behind. */
	bad_uuid = RUN(state, "claim", "bad", "--uuid", "6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5");
	assert_int_equal(bad_uuid->status, 3);
	assert_string_equal(bad_uuid->out, "");
	assert_true(asprintf(&expected,
			     "pmemramctl claim: the configuration would not load with %s/" DROPIN("bad")
			     "; nothing was changed:\n"
			     "%s/" DROPIN("bad") ":4: key 'match': invalid UUID (8-4-4-4-12 hex digits) "
			     "'6e9b4c6d-1f2a-4c3b-9d8e-0a1b2c3d4e5'\n",
			     ENV(state)->conf, ENV(state)->conf) >= 0);
	assert_string_equal(bad_uuid->err, expected);
	after = snapshot(state);
	assert_string_equal(before, after);

	/* An empty hmem range: the parser's message, with file, line and key. */
	{
		_cleanup_(freep) struct run *bad_range = RUN(state, "claim", "bad", "--hmem", "6fffffff-60000000");
		static const char msg[] = ":4: key 'match': hmem range '6fffffff-60000000' is empty (END must lie "
					  "above START)\n";

		assert_int_equal(bad_range->status, 3);
		assert_non_null(strstr(bad_range->err, msg));
		assert_non_null(strstr(bad_range->err, DROPIN("bad")));
	}

	/* A value cannot smuggle lines into the file. */
	newline = RUN(state, "claim", "bad", "--uuid", UUID "\nconvert = yes");
	assert_int_equal(newline->status, 64);
	assert_non_null(strstr(newline->err, "pmemramctl claim: --uuid: invalid value"));
	free(after);
	after = snapshot(state);
	assert_string_equal(before, after);

	/* A configuration broken already: claim refuses and says why. */
	write_conf(state, "pmemram.conf.d/20-broken.conf", "[claim \"b\"]\nonline = moveable\n");
	free(before);
	before = snapshot(state);
	broken = RUN(state, "claim", "good", "--all-devdax");
	assert_int_equal(broken->status, 3);
	free(expected);
	assert_true(asprintf(&expected,
			     "pmemramctl claim: the configuration does not load; nothing was changed:\n"
			     "%s/pmemram.conf.d/20-broken.conf:2: key 'online': expected 'movable' or 'normal', got "
			     "'moveable'\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(broken->err, expected);
	free(after);
	after = snapshot(state);
	assert_string_equal(before, after);
}

static void test_claim_usage(void **state)
{
	static const struct {
		const char *args[7];
		const char *err;
	} cases[] = {
		{ { "claim", "x", "--device", "dax0.0", "--convert" },
		  "pmemramctl claim: --convert needs --uuid: converting a namespace to devdax DESTROYS its contents, so "
		  "it is allowed only for one namespace named by its UUID, not with --device\n" },
		{ { "claim", "x", "--convert", "--all-devdax" },
		  "pmemramctl claim: --convert needs --uuid: converting a namespace to devdax DESTROYS its contents, so "
		  "it is allowed only for one namespace named by its UUID, not with --all-devdax\n" },
		{ { "claim", "x" },
		  "pmemramctl claim: missing what to claim: --uuid, --device, --region, --hmem, --cxl-region, --cxl-memdev "
		  "or --all-devdax\n" },
		{ { "claim", "x", "--hmem", "node=1", "--region", "region0" },
		  "pmemramctl claim: --hmem and --region: a claim matches one way; give exactly one of --uuid, "
		  "--device, --region, --hmem, --cxl-region, --cxl-memdev or --all-devdax\n" },
		{ { "claim", "x", "--hmem", "0-1 2" },
		  "pmemramctl claim: --hmem: invalid value '0-1 2' (expected START-END in hex, or node=N)\n" },
		{ { "claim", "x", "--hmem", "node=1", "--convert" },
		  "pmemramctl claim: --convert needs --uuid: converting a namespace to devdax DESTROYS its contents, so "
		  "it is allowed only for one namespace named by its UUID, not with --hmem\n" },
		{ { "claim", "x", "--uuid", UUID, "--convert" },
		  "pmemramctl claim: --convert DESTROYS the namespace's contents (its file system, its data): add "
		  "--destroy-data to say that you accept that\n" },
		{ { "claim", "x", "--uuid", UUID, "--destroy-data" },
		  "pmemramctl claim: --destroy-data goes with --convert or --create-region (pmem) only\n" },
		{ { "claim", "x", "--cxl-memdev", "0x5eed0001", "--create-region=ram", "--destroy-data" },
		  "pmemramctl claim: --destroy-data goes with --convert or --create-region (pmem) only\n" },
		{ { "claim", "x", "--cxl-memdev", "0x5eed0001", "--create-region=dram" },
		  "pmemramctl claim: --create-region=dram: expected pmem or ram\n" },
		{ { "claim", "x", "--hmem", "node=1", "--create-region=ram" },
		  "pmemramctl claim: --create-region needs --cxl-memdev: pmemramd makes the region of one memdev named "
		  "by its serial, not with --hmem\n" },
		{ { "claim", "x", "--region", "region0", "--create-region", "--destroy-data" },
		  "pmemramctl claim: --create-region needs --cxl-memdev: pmemramd makes the region of one memdev named "
		  "by its serial, not with --region\n" },
		{ { "claim", "x", "--cxl-memdev", "0x5eed0001", "--create-region" },
		  "pmemramctl claim: --create-region DESTROYS what the memdev's persistent memory holds: add "
		  "--destroy-data to say that you accept that\n" },
		{ { "claim", "x", "--cxl-memdev", "0x5eed0001", "--create" },
		  "pmemramctl claim: --create needs --region: pmemramd creates a namespace in an nvdimm region, not "
		  "with --cxl-memdev\n" },
		{ { "claim", "x", "--device", "dax0.0", "--create" },
		  "pmemramctl claim: --create needs --region: pmemramd creates a namespace in an nvdimm region, not "
		  "with --device\n" },
		{ { "claim", "x", "--cxl-region", "region0", "--create" },
		  "pmemramctl claim: --create needs --region: pmemramd creates a namespace in an nvdimm region, not "
		  "with --cxl-region\n" },
		{ { "claim", "x", "--cxl-memdev", "0x1 2" },
		  "pmemramctl claim: --cxl-memdev: invalid value '0x1 2' (expected a memdev serial number)\n" },
		{ { "claim", "--all-devdax" }, "pmemramctl claim: missing NAME\n" },
		{ { "claim", "x", "--all-devdax", "--region", "region0" },
		  "pmemramctl claim: --all-devdax and --region: a claim matches one way; give exactly one of --uuid, "
		  "--device, --region, --hmem, --cxl-region, --cxl-memdev or --all-devdax\n" },
		{ { "claim", "x", "--all-devdax", "--online", "moveable" },
		  "pmemramctl claim: --online: expected 'movable' or 'normal', got 'moveable'\n" },
		{ { "claim", "a/b", "--all-devdax" },
		  "pmemramctl claim: invalid claim name 'a/b' (1 to 63 letters, digits, '.', '_' or '-')\n" },
		{ { "claim", "x", "y", "--all-devdax" }, "pmemramctl claim: unexpected argument 'y'\n" },
		{ { "unclaim" }, "pmemramctl unclaim: missing NAME\n" },
		{ { "unclaim", "" },
		  "pmemramctl unclaim: invalid claim name '' (1 to 63 letters, digits, '.', '_' or '-')\n" },
	};
	_cleanup_(freep) struct run *help = RUN(state, "claim", "--help");
	_cleanup_(freep) struct run *uhelp = RUN(state, "unclaim", "--help");
	_cleanup_(freep) struct run *top = RUN(state, "--help");

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(freep) struct run *run = run_ctl_env((const char *const *)ENV(state)->vars, cases[i].args);
		_cleanup_(freep) char *expected = NULL;

		assert_true(asprintf(&expected, "%sTry 'pmemramctl --help' for more information.\n", cases[i].err) >= 0);
		assert_int_equal(run->status, 64);
		assert_string_equal(run->err, expected);
		assert_string_equal(run->out, "");
	}

	assert_int_equal(help->status, 0);
	assert_non_null(strstr(help->out, "Usage: pmemramctl claim [--json] [--config DIR] NAME MATCH"));
	assert_non_null(strstr(help->out, "DESTROYS the namespace's contents"));
	assert_int_equal(uhelp->status, 0);
	assert_non_null(strstr(uhelp->out, "Unclaiming does not give memory back"));
	assert_non_null(strstr(top->out, "  claim  "));
	assert_non_null(strstr(top->out, "  unclaim  "));

	/* Nothing was made. */
	{
		_cleanup_(freep) char *after = snapshot(state);

		assert_string_equal(after, "");
	}
}

/* ---- unclaim -------------------------------------------------------------------------------- */

static void test_unclaim_removes(void **state)
{
	_cleanup_(freep) struct run *claim = NULL, *unclaim = NULL, *again = NULL, *json = NULL;
	_cleanup_(freep) char *expected = NULL, *absent = absent_msg(state), *listing = NULL;
	struct json_object *j;

	claim = RUN(state, "claim", "x", "--all-devdax");
	assert_int_equal(claim->status, 0);
	unclaim = RUN(state, "unclaim", "x");
	assert_int_equal(unclaim->status, 0);
	assert_true(asprintf(&expected,
			     "Removed %s/" DROPIN("x") ": claim 'x' is no longer configured.\n"
			     "Memory it brought online stays system RAM: give it back with 'pmemramctl release DEVICE'.\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(unclaim->out, expected);
	assert_string_equal(unclaim->err, absent);
	/* The drop-in directory stays, empty. */
	listing = snapshot(state);
	assert_string_equal(listing, "pmemram.conf.d 40755\n");

	again = RUN(state, "unclaim", "x");
	assert_int_equal(again->status, 64);
	free(expected);
	assert_true(asprintf(&expected, "pmemramctl unclaim: no claim 'x' in %s\n", ENV(state)->conf) >= 0);
	assert_string_equal(again->err, expected);

	free(claim);
	claim = RUN(state, "claim", "x", "--uuid", UUID, "--online", "normal");
	assert_int_equal(claim->status, 0);
	json = RUN(state, "--json", "unclaim", "x");
	assert_int_equal(json->status, 0);
	j = parse_json(json);
	assert_string_equal(json_string_at(j, "command"), "unclaim");
	assert_string_equal(json_string_at(j, "action"), "removed");
	assert_string_equal(json_string_at(j, "match"), "uuid:" UUID);
	assert_string_equal(json_string_at(j, "online"), "normal");
	assert_false(json_bool_at(j, "convert"));
	assert_false(json_bool_at(j, "memory_given_back"));
	assert_string_equal(json_string_at(j, "daemon"), "not-running");
	assert_false(json_bool_at(j, "reloaded"));
	json_object_put(j);
	assert_null(read_conf(state, DROPIN("x")));
}

static void test_unclaim_hand_written(void **state)
{
	_cleanup_(freep) struct run *unclaim = NULL, *not_ours = NULL, *claim_not_ours = NULL, *both = NULL;
	_cleanup_(freep) struct run *claim = NULL;
	_cleanup_(freep) char *before = NULL, *after = NULL, *expected = NULL;

	write_conf(state, "pmemram.conf.d/10-local.conf", "\n" HAND_WRITTEN);
	before = snapshot(state);
	unclaim = RUN(state, "unclaim", "fast");
	assert_int_equal(unclaim->status, 3);
	assert_string_equal(unclaim->out, "");
	assert_true(asprintf(&expected,
			     "pmemramctl unclaim: claim 'fast' is defined in %s/pmemram.conf.d/10-local.conf:3, which "
			     "pmemramctl did not write: edit that file to remove it; nothing was changed\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(unclaim->err, expected);
	after = snapshot(state);
	assert_string_equal(before, after);

	/* A file with pmemramctl's name but without its first line is someone else's. */
	write_conf(state, DROPIN("y"), "[claim \"y\"]\nmatch = device:dax9.0\n");
	free(before);
	before = snapshot(state);
	not_ours = RUN(state, "unclaim", "y");
	assert_int_equal(not_ours->status, 3);
	free(expected);
	assert_true(asprintf(&expected,
			     "pmemramctl unclaim: claim 'y' is defined in %s/" DROPIN("y") ":1, which pmemramctl did "
			     "not write: edit that file to remove it; nothing was changed\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(not_ours->err, expected);
	claim_not_ours = RUN(state, "claim", "y", "--device", "dax9.0");
	assert_int_equal(claim_not_ours->status, 3);
	assert_non_null(strstr(claim_not_ours->err, "/" DROPIN("y") " exists and was not written by pmemramctl"));
	free(after);
	after = snapshot(state);
	assert_string_equal(before, after);

	/* Ours, and reopened by hand afterwards: removing ours alone would not remove the claim. */
	claim = RUN(state, "claim", "z", "--device", "dax2.0");
	assert_int_equal(claim->status, 0);
	write_conf(state, "pmemram.conf.d/90-tune.conf", "[claim \"z\"]\nonline = normal\n");
	free(before);
	before = snapshot(state);
	both = RUN(state, "unclaim", "z");
	assert_int_equal(both->status, 3);
	free(expected);
	assert_true(asprintf(&expected,
			     "pmemramctl unclaim: the configuration would not load without it; nothing was changed:\n"
			     "%s/pmemram.conf.d/90-tune.conf:1: claim 'z': key 'match' missing\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(both->err, expected);
	free(after);
	after = snapshot(state);
	assert_string_equal(before, after);
}

/* ---- pmemramd ----------------------------------------------------------------------------------- */

/* A pmemramd stand-in that expects {"command": "reload"}. */
static pid_t fake_daemon(void **state, const char *reply)
{
	return fake_daemon_start(ENV(state)->sock, "{\"command\":\"reload\"}\n", reply);
}

static void expect_daemon_asked(void **state, pid_t pid)
{
	fake_daemon_expect_asked(ENV(state)->sock, pid);
}

static void test_daemon(void **state)
{
	_cleanup_(freep) struct run *absent = NULL, *reloaded = NULL, *refused = NULL, *refused_json = NULL;
	_cleanup_(freep) char *expected = NULL, *text = NULL;
	struct json_object *j;
	pid_t pid;

	/* Absent (nothing at $PMEMRAM_SOCKET): done, exit 0, and said when it takes effect. */
	absent = RUN(state, "claim", "x", "--all-devdax");
	assert_int_equal(absent->status, 0);
	assert_true(asprintf(&expected, ABSENT_MSG_FMT, ENV(state)->sock) >= 0);
	assert_string_equal(absent->err, expected);
	text = read_conf(state, DROPIN("x"));
	assert_non_null(text);

	pid = fake_daemon(state, "{\"ok\":true}\n");
	reloaded = RUN(state, "claim", "x", "--region", "region0");
	expect_daemon_asked(state, pid);
	assert_int_equal(reloaded->status, 0);
	assert_string_equal(reloaded->err, "");
	assert_non_null(strstr(reloaded->out, "\npmemramd reloaded the configuration.\n"));

	/* Refused: the file is in place, exit 4, both pmemramd's reason and what it means are said. */
	pid = fake_daemon(state, "{\"ok\":false,\"error\":\"'reload' needs root (you are uid 1000)\",\"errno\":1}\n");
	refused = RUN(state, "unclaim", "x");
	expect_daemon_asked(state, pid);
	assert_int_equal(refused->status, 4);
	free(expected);
	assert_true(asprintf(&expected,
			     "pmemramctl: pmemramd refused 'reload': 'reload' needs root (you are uid 1000)\n"
			     "pmemramctl unclaim: %s/" DROPIN("x") " is removed, but pmemramd did not reload the "
			     "configuration (Operation not permitted): the change is not in effect until it does "
			     "('systemctl reload pmemramd'; its log says why it refused)\n",
			     ENV(state)->conf) >= 0);
	assert_string_equal(refused->err, expected);
	assert_null(read_conf(state, DROPIN("x")));

	pid = fake_daemon(state, "{\"ok\":false,\"error\":\"no\",\"errno\":22}\n");
	refused_json = RUN(state, "claim", "--json", "x", "--all-devdax");
	expect_daemon_asked(state, pid);
	assert_int_equal(refused_json->status, 4);
	j = parse_json(refused_json);
	assert_string_equal(json_string_at(j, "action"), "created");
	assert_string_equal(json_string_at(j, "daemon"), "failed");
	assert_false(json_bool_at(j, "reloaded"));
	json_object_put(j);
	free(text);
	text = read_conf(state, DROPIN("x"));
	assert_non_null(text);
}

/* ---- the loader's stand-in file ----------------------------------------------------------------- */

static void test_load_swapped(void **state)
{
	_cleanup_(closep) int fd = open(ENV(state)->conf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct pmemram_config *c = NULL;
	struct pmemram_config_errors e = {};

	assert_true(fd >= 0);
	write_conf(state, "pmemram.conf", "[claim \"a\"]\nmatch = all-devdax\n");
	write_conf(state, "pmemram.conf.d/10-b.conf", "[claim \"b\"]\nmatch = device:dax0.0\n");
	write_conf(state, "pmemram.conf.d/.new", "[claim \"c\"]\nmatch = device:dax1.0\n");
	write_conf(state, "pmemram.conf.d/.bad", "[claim \"c\"]\nmatch = device:dax0.0\n");

	/* Not a name the loader reads. */
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/.x.conf", NULL, &c, &e), -EINVAL);
	assert_int_equal(pmemram_config_load_swapped(fd, "other.conf", NULL, &c, &e), -EINVAL);
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/x.cnf", NULL, &c, &e), -EINVAL);
	assert_int_equal(e.n, 0);

	/* An existing drop-in hidden. */
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/10-b.conf", NULL, &c, &e), 0);
	assert_int_equal(c->n_claims, 1);
	assert_int_equal(c->n_files, 1);
	c = pmemram_config_free(c);

	/* A new one, read from the hidden file, in its place in the order and named as itself. */
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/05-c.conf", "pmemram.conf.d/.new", &c, &e), 0);
	assert_int_equal(c->n_claims, 3);
	assert_int_equal(c->n_files, 3);
	assert_string_equal(c->files[1], "pmemram.conf.d/05-c.conf");
	assert_string_equal(c->files[2], "pmemram.conf.d/10-b.conf");
	c = pmemram_config_free(c);

	/* Its errors name it too; a missing source is an error, not an absent file. */
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/50-c.conf", "pmemram.conf.d/.bad", &c, &e),
			 -EINVAL);
	assert_null(c);
	assert_int_equal(e.n, 1);
	assert_string_equal(e.msg[0], "pmemram.conf.d/50-c.conf:2: key 'match': 'device:dax0.0' already claimed by 'b' "
				      "(pmemram.conf.d/10-b.conf:2)");
	e = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/50-c.conf", "pmemram.conf.d/.gone", &c, &e),
			 -EINVAL);
	assert_null(c);
	assert_string_equal(e.msg[0], "pmemram.conf.d/50-c.conf: cannot read: No such file or directory");

	/* The main file swapped out: the drop-in alone is left. */
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf", NULL, &c, &e), 0);
	assert_int_equal(c->n_claims, 1);
	assert_string_equal(c->claims[0].name, "b");
	c = pmemram_config_free(c);

	/* 128 drop-ins: one of them may be replaced, but a 129th may not come. */
	for (int i = 1; i < PMEMRAM_CONFIG_MAX_DROPINS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "pmemram.conf.d/60-%03d.conf", i);
		write_conf(state, name, "");
	}
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/10-b.conf", "pmemram.conf.d/.new", &c, &e), 0);
	assert_int_equal(c->n_files, 1 + PMEMRAM_CONFIG_MAX_DROPINS);
	c = pmemram_config_free(c);
	e = (struct pmemram_config_errors){};
	assert_int_equal(pmemram_config_load_swapped(fd, "pmemram.conf.d/50-c.conf", "pmemram.conf.d/.new", &c, &e),
			 -EINVAL);
	assert_null(c);
	assert_string_equal(e.msg[0], "pmemram.conf.d: more than 128 *.conf files");
}

/* ---- claim --from-daxctl ----------------------------------------------------------------------- */

#define UUID_B "ed93e918-e165-49d8-921d-383d7b9660c5"
#define UUID_C "0a1b2c3d-1f2a-4c3b-9d8e-6e9b4c6d4e5f"

static void write_daxctl(void **state, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "daxctl.conf.d/%s", name);
	assert_int_equal(fake_sysfs_write(ENV(state)->tmp, path, "%s", text), 0);
}

static char *daxctl_path(void **state, const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/daxctl.conf.d/%s", ENV(state)->tmp, name) >= 0);
	return p;
}

#define SECTION(name, uuid, extra) "[reconfigure-device " name "]\nnvdimm.uuid = " uuid "\nmode = system-ram\n" extra

/* Every section has an equivalent: one drop-in each, the same as pmemramctl claim writes. */
static void test_from_daxctl_writes(void **state)
{
	_cleanup_(freep) struct run *run = NULL, *again = NULL;
	_cleanup_(freep) char *a = NULL, *b = NULL, *before = NULL, *after = NULL, *absent = absent_msg(state);
	_cleanup_(freep) char *expected = NULL, *f10 = daxctl_path(state, "10-a.conf");

	write_daxctl(state, "10-a.conf", "# daxctl's\n" SECTION("fast", UUID, "movable = false\n"));
	write_daxctl(state, "20-b.conf",
		     SECTION("slow", UUID_B, "online = true\n") "[reconfigure-device dd]\n"
								"nvdimm.uuid = " UUID_C "\nmode = devdax\n");
	write_daxctl(state, "daxctl.example.conf", "# [reconfigure-device unique_identifier_foo]\n");

	run = RUN(state, "claim", "--from-daxctl");
	assert_int_equal(run->status, 0);
	assert_true(
		asprintf(&expected,
			 "Wrote %s/" DROPIN(
				 "daxctl-fast") ": claim 'daxctl-fast', match = uuid:" UUID
						", online = normal, convert = no.\n"
						"Wrote %s/" DROPIN(
							"daxctl-slow") ": claim 'daxctl-slow', match = uuid:" UUID_B
								       ", online = movable, convert = no.\n"
								       "%s/daxctl.conf.d/20-b.conf:5: section 'dd': mode = devdax, nothing to write.\n",
			 ENV(state)->conf, ENV(state)->conf, ENV(state)->tmp) >= 0);
	assert_string_equal(run->out, expected);
	assert_string_equal(run->err, absent);

	a = read_conf(state, DROPIN("daxctl-fast"));
	assert_non_null(a);
	assert_non_null(strstr(a, "[claim \"daxctl-fast\"]\nmatch = uuid:" UUID "\nonline = normal\nconvert = no\n"));
	b = read_conf(state, DROPIN("daxctl-slow"));
	assert_non_null(strstr(b, "match = uuid:" UUID_B "\nonline = movable\n"));

	/* Again: each section is now redundant with the claim written for it; nothing changes. */
	before = snapshot(state);
	again = RUN(state, "claim", "--from-daxctl", f10);
	assert_int_equal(again->status, 0);
	free(expected);
	assert_true(asprintf(&expected,
			     "%s:2: section 'fast': nothing to write, claim 'daxctl-fast' (" DROPIN(
				     "daxctl-fast") ":3) says the same.\n",
			     f10) >= 0);
	assert_string_equal(again->out, expected);
	assert_string_equal(again->err, "");
	after = snapshot(state);
	assert_string_equal(before, after);
}

/* What has no equivalent is refused, naming FILE:LINE; the rest is still written; exit 3. */
static void test_from_daxctl_refuses(void **state)
{
	_cleanup_(freep) struct run *run = NULL, *usage = NULL;
	_cleanup_(freep) char *fast = NULL, *f = daxctl_path(state, "10-a.conf"), *line = NULL;
	struct json_object *j, *s;

	write_conf(state, "pmemram.conf", "[claim \"mine\"]\nmatch = uuid:" UUID_C "\nonline = normal\n");
	write_daxctl(state, "10-a.conf",
		     SECTION("fast", UUID, "") SECTION("off", UUID_B, "online = false\n")
			     SECTION("other", UUID_C,
				     "") "[reconfigure-device bad]\nnvdimm.uuid = 1234\nmode = system-ram\n");

	run = RUN(state, "--json", "claim", "--from-daxctl");
	assert_int_equal(run->status, 3);
	j = parse_json(run);
	assert_string_equal(json_string_at(j, "command"), "claim --from-daxctl");
	assert_int_equal(json_object_array_length(json_typed_at(j, "sections", json_type_array)), 4);
	s = json_at(j, "sections.0");
	assert_string_equal(json_string_at(s, "result"), "created");
	assert_string_equal(json_string_at(s, "claim"), "daxctl-fast");
	assert_string_equal(json_string_at(s, "online"), "movable");
	assert_non_null(strstr(json_string_at(s, "path"), "/" DROPIN("daxctl-fast")));
	s = json_at(j, "sections.1");
	assert_string_equal(json_string_at(s, "result"), "refused");
	assert_null(json_at(s, "claim"));
	assert_string_equal(json_string_at(s, "reason"),
			    "online = false (kmem without onlining its memory) has no pmemram equivalent");
	s = json_at(j, "sections.2");
	assert_string_equal(json_string_at(s, "result"), "refused");
	assert_string_equal(json_string_at(s, "reason"), "claim 'mine' (pmemram.conf:1) has online = normal, this "
							 "section movable = true: the claim is used");
	assert_string_equal(json_string_at(json_at(j, "sections.3"), "reason"), "invalid nvdimm.uuid");
	json_object_put(j);

	assert_true(asprintf(&line,
			     "pmemramctl claim: %s:4: section 'off' cannot be translated: online = false (kmem "
			     "without onlining its memory) has no pmemram equivalent\n",
			     f) >= 0);
	assert_non_null(strstr(run->err, line));
	free(line);
	assert_true(asprintf(&line, "pmemramctl claim: warning: %s:12: key 'nvdimm.uuid': invalid UUID '1234'", f) >=
		    0);
	assert_non_null(strstr(run->err, line));
	fast = read_conf(state, DROPIN("daxctl-fast"));
	assert_non_null(fast);
	assert_null(read_conf(state, DROPIN("daxctl-off")));
	assert_null(read_conf(state, DROPIN("daxctl-other")));

	usage = RUN(state, "claim", "--from-daxctl", "--uuid", UUID);
	assert_int_equal(usage->status, 64);
}

/* Sections for one UUID in two files make one drop-in, with the keys daxctl would use; one name in two
 * files for two UUIDs makes two. */
static void test_from_daxctl_merged(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *fast = NULL, *other = NULL;
	struct json_object *j, *s;

	write_daxctl(state, "10-a.conf", SECTION("fast", UUID, ""));
	write_daxctl(state, "20-b.conf",
		     "[reconfigure-device other]\nnvdimm.uuid = " UUID
		     "\nmovable = false\n" SECTION("fast", UUID_B, ""));

	run = RUN(state, "--json", "claim", "--from-daxctl");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_int_equal(json_object_array_length(json_typed_at(j, "sections", json_type_array)), 3);
	s = json_at(j, "sections.0");
	assert_string_equal(json_string_at(s, "result"), "created");
	assert_string_equal(json_string_at(s, "claim"), "daxctl-fast");
	assert_string_equal(json_string_at(s, "online"), "normal"); /* movable = false from 20-b.conf */
	s = json_at(j, "sections.1");
	assert_string_equal(json_string_at(s, "section"), "other");
	assert_string_equal(json_string_at(s, "result"), "merged");
	assert_string_equal(json_string_at(s, "claim"), "daxctl-fast");
	assert_null(json_at(s, "path"));
	s = json_at(j, "sections.2");
	assert_string_equal(json_string_at(s, "result"), "created");
	assert_string_equal(json_string_at(s, "claim"), "daxctl-fast-20-b.conf-4");
	json_object_put(j);
	assert_non_null(strstr(run->err, "20-b.conf:4: section 'fast': the name is also that of the section at "));

	fast = read_conf(state, DROPIN("daxctl-fast"));
	assert_non_null(fast);
	assert_non_null(strstr(fast, "match = uuid:" UUID "\nonline = normal\n"));
	other = read_conf(state, DROPIN("daxctl-fast-20-b.conf-4"));
	assert_non_null(other);
	assert_non_null(strstr(other, "match = uuid:" UUID_B "\nonline = movable\n"));
}

/* Nothing to read: said, and nothing written. */
static void test_from_daxctl_missing(void **state)
{
	_cleanup_(freep) struct run *none = NULL, *empty = NULL;
	_cleanup_(freep) char *expected = NULL;

	none = RUN(state, "claim", "--from-daxctl");
	assert_int_equal(none->status, 3);
	assert_true(asprintf(&expected, "pmemramctl claim: cannot open %s/daxctl.conf.d: No such file or directory\n",
			     ENV(state)->tmp) >= 0);
	assert_string_equal(none->err, expected);

	write_daxctl(state, "daxctl.example.conf", "# [reconfigure-device unique_identifier_foo]\n");
	empty = RUN(state, "claim", "--from-daxctl");
	assert_int_equal(empty->status, 0);
	free(expected);
	assert_true(asprintf(&expected, "No [reconfigure-device] sections in %s/daxctl.conf.d: nothing to write.\n",
			     ENV(state)->tmp) >= 0);
	assert_string_equal(empty->out, expected);
	assert_null(read_conf(state, "pmemram.conf.d"));
}

/* A fake HMAT system in *env, its roots added to ENV(state)'s environment. */
static void fake_system(void **state, void **env)
{
	struct fake_env *fake;
	char **vars = ENV(state)->vars;

	assert_int_equal(fake_env_setup_hmat(env), 0);
	fake = *env;
	for (size_t i = 3; i <= 5; i++) /* setup()'s machine without devices */
		free(vars[i]);
	assert_true(asprintf(&vars[3], "PMEMRAM_SYSFS_ROOT=%s", fake->root) >= 0 &&
		    asprintf(&vars[4], "PMEMRAM_PROCFS_ROOT=%s", fake->proc) >= 0 &&
		    asprintf(&vars[5], "PMEMRAM_UDEV_ROOT=%s", fake->udev) >= 0);
}

/* A UUID claim on the fake HMAT machine: the fsdax namespace's own UUID and its info block's (the
 * one ndctl list -N shows) both match, without a warning; one that matches nothing is written with a
 * warning, and --json says which. */
static void test_claim_uuid_matched(void **state)
{
	static const struct {
		const char *uuid;
		bool matched;
	} cases[] = {
		{ FAKE_UUID_FSDAX, true },
		{ FAKE_UUID_FSDAX_INFO, true },
		{ FAKE_UUID_DEVDAX_INFO, true },
		{ "01234567-89ab-4def-8123-456789abcdef", false },
	};
	void *env = NULL;

	fake_system(state, &env);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(freep) struct run *run = NULL, *json = NULL;

		run = RUN(state, "claim", "fs", "--uuid", cases[i].uuid, "--convert", "--destroy-data");
		assert_int_equal(run->status, 0);
		if ((strstr(run->err, "matches no namespace or dax device on this machine") != NULL) ==
		    cases[i].matched)
			fail_msg("claim --uuid %s: stderr '%s'", cases[i].uuid, run->err);
		assert_non_null(strstr(run->err, "that DESTROYS the namespace's contents"));
		json = RUN(state, "--json", "claim", "fs", "--uuid", cases[i].uuid, "--online", "normal");
		assert_int_equal(json->status, 0);
		if (!strstr(json->out, cases[i].matched ? "\"matched\":true" : "\"matched\":false"))
			fail_msg("claim --json --uuid %s: '%s'", cases[i].uuid, json->out);
	}
	fake_env_teardown(&env);
}

/* A claim by a CXL memdev's serial whose memdev is in no region: the claim waits for a region, and
 * says so, naming --create-region=ram; with it, no warning. */
static void test_claim_cxl_memdev_no_region(void **state)
{
	_cleanup_(freep) struct run *bare = NULL, *create = NULL;
	struct fake_env *fake;
	void *env = NULL;

	fake_system(state, &env);
	fake = env;
	assert_int_equal(fake_sysfs_symlink(fake->root, "bus/cxl/devices/mem0", "../../../devices/pci0000:0c/mem0"), 0);
	assert_int_equal(fake_sysfs_write(fake->root, "devices/pci0000:0c/mem0/serial", "0x5eed0101\n"), 0);
	assert_int_equal(fake_sysfs_write(fake->root, "devices/pci0000:0c/mem0/ram/size", "0x20000000\n"), 0);
	assert_int_equal(fake_sysfs_write(fake->root, "devices/pci0000:0c/mem0/pmem/size", "0x0\n"), 0);
	bare = RUN(state, "claim", "expander", "--cxl-memdev", "0x5eed0101");
	assert_int_equal(bare->status, 0);
	if (!strstr(bare->err, "CXL memdev 0x5eed0101 has no region with a dax device on this machine") ||
	    !strstr(bare->err, "--create-region=ram"))
		fail_msg("claim --cxl-memdev: stderr '%s'", bare->err);
	create = RUN(state, "claim", "expander", "--cxl-memdev", "0x5eed0101", "--create-region=ram");
	assert_int_equal(create->status, 0);
	if (strstr(create->err, "has no region"))
		fail_msg("claim --create-region=ram: stderr '%s'", create->err);
	fake_env_teardown(&env);
}

/* A section for a device one of pmemram's claims by region already decides for: a drop-in by
 * UUID would outrank that claim, so the section is refused; the others are still written. */
static void test_from_daxctl_outranked(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *line = NULL, *f = daxctl_path(state, "10-a.conf");
	void *env = NULL;

	fake_system(state, &env);
	write_conf(state, "pmemram.conf", "# mine\n[claim \"mine\"]\nmatch = region:region1\nonline = normal\n");
	write_daxctl(state, "10-a.conf", SECTION("dd", FAKE_UUID_DEVDAX_INFO, "") SECTION("later", UUID_B, ""));

	run = RUN(state, "claim", "--from-daxctl");
	assert_int_equal(run->status, 3);
	assert_true(asprintf(&line,
			     "pmemramctl claim: %s:1: section 'dd' cannot be translated: outranked by claim 'mine' "
			     "(pmemram.conf:2): a drop-in would change which claim decides\n",
			     f) >= 0);
	assert_non_null(strstr(run->err, line));
	assert_null(read_conf(state, DROPIN("daxctl-dd")));
	free(read_conf(state, DROPIN("daxctl-later")));
	assert_non_null(strstr(run->out, DROPIN("daxctl-later")));
	fake_env_teardown(&env);
}

#define REGION1 "devices/platform/ACPI0012:00/ndbus0/region1"

/* --create: written only when the region is there and pmemramd's plan would create in it; what it
 * will make is printed. */
static void test_claim_create(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *text = NULL, *expected = NULL;
	char uuid[PMEMRAM_UUID_STRING_MAX];
	struct fake_env *fake;
	struct json_object *j, *change;
	void *env = NULL;

	fake_system(state, &env);
	fake = env;

	/* No such region. */
	run = RUN(state, "claim", "made", "--region", "region9", "--create");
	assert_int_equal(run->status, 3);
	assert_string_equal(run->err, "pmemramctl claim: --create: there is no nvdimm region region9 (ndctl list -R "
				      "lists them) to create a namespace in; nothing was changed\n");
	assert_string_equal(run->out, "");
	assert_null(read_conf(state, DROPIN("made")));

	/* The kernel does not tell the largest free extent. */
	free(run);
	run = RUN(state, "claim", "made", "--region", "region1", "--create");
	assert_int_equal(run->status, 3);
	assert_string_equal(run->err, "pmemramctl claim: --create: region1 would be refused extent-unknown: create = "
				      "devdax: the kernel does not tell region1's largest free extent "
				      "(max_available_extent, Linux 4.19 and later); no namespace created; nothing "
				      "was changed\n");
	assert_null(read_conf(state, DROPIN("made")));

	/* Two 128 MiB blocks of free space: not sure to give one whole block. */
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/max_available_extent", "%llu\n", 256ULL << 20), 0);
	free(run);
	run = RUN(state, "claim", "made", "--region", "region1", "--create");
	assert_int_equal(run->status, 3);
	assert_non_null(strstr(run->err, "region1 would be refused too-small: create = devdax: 256 MiB free"));
	assert_null(read_conf(state, DROPIN("made")));
	assert_null(read_conf(state, "pmemram.conf.d"));

	/* Enough: written, with what pmemramd will make. */
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/max_available_extent", "%llu\n", 260ULL << 20), 0);
	free(run);
	run = RUN(state, "claim", "made", "--region", "region1", "--create");
	assert_int_equal(run->status, 0);
	text = read_conf(state, DROPIN("made"));
	assert_non_null(text);
	assert_non_null(strstr(text, "\n[claim \"made\"]\nmatch = region:region1\nonline = movable\nconvert = "
				     "no\ncreate = devdax\n"));
	assert_true(asprintf(&expected,
			     "Wrote %s/%s: claim 'made', match = region:region1, online = movable, convert = no, "
			     "create = devdax.\nPlan for region1: create a devdax namespace 'made' of 260 MiB over the "
			     "region's 260 MiB of free space.\n",
			     ENV(state)->conf, DROPIN("made")) >= 0);
	assert_string_equal(run->out, expected);

	/* The namespace made: nothing more to create, the claim can still change. */
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/namespace1.0/alt_name", "made\n"), 0);
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/namespace1.0/uuid", "%s\n",
					  pmemram_create_uuid_string("made", uuid)),
			 0);
	free(run);
	run = RUN(state, "claim", "--json", "made", "--region", "region1", "--create", "--online", "normal");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_string_equal(json_string_at(j, "action"), "replaced");
	assert_string_equal(json_string_at(j, "match"), "region:region1");
	assert_true(json_object_get_boolean(json_object_object_get(j, "create")));
	assert_string_equal(json_string_at(j, "create_plan"),
			    "region1: the namespace claim 'made' created is there already, nothing to create");
	change = json_object_array_get_idx(json_object_object_get(j, "changes"), 0);
	assert_string_equal(json_string_at(change, "key"), "online");
	assert_int_equal(json_object_array_length(json_object_object_get(j, "changes")), 1);
	json_object_put(j);

	/* Without --create again: the key goes, and the change says so. */
	free(run);
	run = RUN(state, "claim", "--json", "made", "--region", "region1", "--online", "normal");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_false(json_object_get_boolean(json_object_object_get(j, "create")));
	assert_null(json_object_object_get(j, "create_plan"));
	change = json_object_array_get_idx(json_object_object_get(j, "changes"), 0);
	assert_string_equal(json_string_at(change, "key"), "create");
	assert_string_equal(json_string_at(change, "from"), "devdax");
	assert_string_equal(json_string_at(change, "to"), "no");
	json_object_put(j);
	free(text);
	text = read_conf(state, DROPIN("made"));
	assert_null(strstr(text, "create"));

	/* A namespace with the claim's name that pmemram did not make: refused, as the plan refuses it. */
	free(run);
	run = RUN(state, "unclaim", "made");
	assert_int_equal(run->status, 0);
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/max_available_extent", "%llu\n", 1ULL << 30), 0);
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/namespace1.0/alt_name", "other\n"), 0);
	assert_int_equal(fake_sysfs_write(fake->root, REGION1 "/namespace1.0/uuid", "%s\n", FAKE_UUID_DEVDAX), 0);
	free(run);
	run = RUN(state, "claim", "other", "--region", "region1", "--create");
	assert_int_equal(run->status, 3);
	assert_non_null(strstr(run->err, "region1 would be refused name-taken: "));
	assert_null(read_conf(state, DROPIN("other")));
	fake_env_teardown(&env);
}

/* A section naming dax1.0's label UUID: daxctl never applies it, but a drop-in's match = uuid:
 * would take dax1.0 from the region claim (online = movable instead of normal): refused. */
static void test_from_daxctl_label_uuid(void **state)
{
	void *env = NULL;
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *line = NULL, *f = daxctl_path(state, "10-a.conf");

	write_conf(state, "pmemram.conf", "[claim \"mine\"]\nmatch = region:region1\nonline = normal\n");
	write_daxctl(state, "10-a.conf", SECTION("lbl", FAKE_UUID_DEVDAX, ""));

	fake_system(state, &env);
	run = RUN(state, "claim", "--from-daxctl");
	assert_int_equal(run->status, 3);
	assert_true(
		asprintf(&line,
			 "pmemramctl claim: %s:1: section 'lbl' cannot be translated: " FAKE_UUID_DEVDAX
			 " is the label UUID of dax1.0's namespace namespace1.0, not its info block's (" FAKE_UUID_DEVDAX_INFO
			 "): daxctl never applies the section to it, and a drop-in's match = uuid: would\n",
			 f) >= 0);
	assert_string_equal(run->err, line);
	assert_null(read_conf(state, DROPIN("daxctl-lbl")));
	fake_env_teardown(&env);
}

/* pmemram's claim by dax1.0's label UUID and a section by its info block's UUID name one device:
 * the section is refused, and the section whose keys join it inherits the refusal. */
static void test_from_daxctl_same_device(void **state)
{
	void *env = NULL;
	_cleanup_(freep) struct run *run = NULL;
	struct json_object *j, *s;

	write_conf(state, "pmemram.conf", "[claim \"mine\"]\nmatch = uuid:" FAKE_UUID_DEVDAX "\nonline = normal\n");
	write_daxctl(state, "10-a.conf", SECTION("info", FAKE_UUID_DEVDAX_INFO, ""));
	write_daxctl(state, "20-b.conf",
		     "[reconfigure-device more]\nnvdimm.uuid = " FAKE_UUID_DEVDAX_INFO "\nmovable = false\n");

	fake_system(state, &env);
	run = RUN(state, "--json", "claim", "--from-daxctl");
	assert_int_equal(run->status, 3);
	j = parse_json(run);
	s = json_at(j, "sections.0");
	assert_string_equal(json_string_at(s, "result"), "refused");
	assert_string_equal(json_string_at(s, "reason"),
			    "outranked by claim 'mine' (pmemram.conf:1): a drop-in would change which claim decides");
	s = json_at(j, "sections.1");
	assert_string_equal(json_string_at(s, "section"), "more");
	assert_string_equal(json_string_at(s, "result"), "refused");
	assert_null(json_at(s, "claim"));
	assert_non_null(strstr(json_string_at(s, "reason"), "its keys join section 'info' ("));
	assert_non_null(strstr(json_string_at(s, "reason"), "10-a.conf:1), which cannot be translated: outranked by "
							    "claim 'mine'"));
	json_object_put(j);
	assert_null(read_conf(state, DROPIN("daxctl-info")));
	fake_env_teardown(&env);
}

/* --create-region: both keys written, shown and diffed; no region is looked at (the plan does). */
static void test_claim_create_region(void **state)
{
	_cleanup_(freep) struct run *run = NULL;
	_cleanup_(freep) char *text = NULL, *expected = NULL;
	struct json_object *j, *change;

	run = RUN(state, "claim", "card", "--cxl-memdev", "0x5eed0001", "--create-region", "--destroy-data");
	assert_int_equal(run->status, 0);
	text = read_conf(state, DROPIN("card"));
	assert_non_null(text);
	assert_non_null(strstr(text, "\n[claim \"card\"]\nmatch = cxl-memdev:0x5eed0001\nonline = movable\nconvert = "
				     "no\ncreate-region = pmem\ncreate = devdax\n"));
	assert_true(
		asprintf(&expected,
			 "Wrote %s/%s: claim 'card', match = cxl-memdev:0x5eed0001, online = movable, convert = no, "
			 "create-region = pmem, create = devdax.\n",
			 ENV(state)->conf, DROPIN("card")) >= 0);
	assert_string_equal(run->out, expected);

	free(run);
	run = RUN(state, "claim", "--json", "card", "--cxl-memdev", "0x5eed0001");
	assert_int_equal(run->status, 0);
	j = parse_json(run);
	assert_false(json_object_get_boolean(json_object_object_get(j, "create_region")));
	assert_int_equal(json_object_array_length(json_object_object_get(j, "changes")), 2);
	change = json_object_array_get_idx(json_object_object_get(j, "changes"), 1);
	assert_string_equal(json_string_at(change, "key"), "create-region");
	assert_string_equal(json_string_at(change, "from"), "pmem");
	assert_string_equal(json_string_at(change, "to"), "no");
	json_object_put(j);

	/* =ram: the RAM region alone, no namespace, nothing destroyed (no --destroy-data) */
	free(run);
	run = RUN(state, "claim", "--json", "card", "--cxl-memdev", "0x5eed0001", "--create-region=ram");
	assert_int_equal(run->status, 0);
	free(text);
	text = read_conf(state, DROPIN("card"));
	assert_non_null(strstr(text, "\n[claim \"card\"]\nmatch = cxl-memdev:0x5eed0001\nonline = movable\nconvert = "
				     "no\ncreate-region = ram\n"));
	assert_null(strstr(text, "create = "));
	j = parse_json(run);
	assert_string_equal(json_string_at(j, "create_region"), "ram");
	assert_false(json_object_get_boolean(json_object_object_get(j, "create")));
	change = json_object_array_get_idx(json_object_object_get(j, "changes"), 0);
	assert_string_equal(json_string_at(change, "key"), "create-region");
	assert_string_equal(json_string_at(change, "from"), "no");
	assert_string_equal(json_string_at(change, "to"), "ram");
	json_object_put(j);
}

#define CLAIM_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CLAIM_TEST(test_claim_writes),
		CLAIM_TEST(test_claim_new_config_dir),
		CLAIM_TEST(test_claim_idempotent),
		CLAIM_TEST(test_claim_hmem),
		CLAIM_TEST(test_claim_cxl),
		CLAIM_TEST(test_claim_create),
		CLAIM_TEST(test_claim_uuid_matched),
		CLAIM_TEST(test_claim_cxl_memdev_no_region),
		CLAIM_TEST(test_claim_create_region),
		CLAIM_TEST(test_claim_conflict),
		CLAIM_TEST(test_claim_invalid),
		CLAIM_TEST(test_claim_usage),
		CLAIM_TEST(test_unclaim_removes),
		CLAIM_TEST(test_unclaim_hand_written),
		CLAIM_TEST(test_daemon),
		CLAIM_TEST(test_load_swapped),
		CLAIM_TEST(test_from_daxctl_writes),
		CLAIM_TEST(test_from_daxctl_refuses),
		CLAIM_TEST(test_from_daxctl_missing),
		CLAIM_TEST(test_from_daxctl_outranked),
		CLAIM_TEST(test_from_daxctl_label_uuid),
		CLAIM_TEST(test_from_daxctl_same_device),
		CLAIM_TEST(test_from_daxctl_merged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
