/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for page_alloc.shuffle in the boot configuration: command line editing, /etc/kernel/cmdline, grub. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fake-sysfs.h"
#include "pmemram-bootparam.h"
#include "pmemram-private.h"

#define KEY PMEMRAM_SHUFFLE_PARAM
#define GRUB "etc/default/grub"
#define DROPIN "etc/default/grub.d/60-pmemram.cfg"
#define CMDLINE "etc/kernel/cmdline"

/* ---- pmemram_cmdline_get/count/set on strings ---------------------------------------------------------- */

/* The value get finds for KEY in line, "<absent>" when none. */
static const char *get(const char *line)
{
	static char buf[256];
	_cleanup_(freep) char *v = NULL;
	int r = pmemram_cmdline_get(line, KEY, &v);

	assert_true(r == 0 || r == 1);
	if (r == 0) {
		assert_null(v);
		return "<absent>";
	}
	assert_true(strlen(v) < sizeof(buf));
	strcpy(buf, v);
	return buf;
}

/* The line set makes of line for KEY and value. */
static const char *set(const char *line, const char *value)
{
	static char buf[512];
	_cleanup_(freep) char *out = NULL;

	assert_int_equal(pmemram_cmdline_set(line, KEY, value, &out), 0);
	assert_true(strlen(out) < sizeof(buf));
	strcpy(buf, out);
	return buf;
}

static void test_cmdline_get(void **state)
{
	char *v = (char *)"untouched";

	assert_string_equal(get("root=/dev/vda1 page_alloc.shuffle=1 quiet page_alloc.shuffle=0"), "0");
	assert_string_equal(get("page_alloc.shuffle=0 page_alloc.shuffle"), ""); /* bare key, last */
	assert_string_equal(get("quiet page_alloc.shuffle_order=3 xpage_alloc.shuffle=1"), "<absent>");
	assert_string_equal(get(""), "<absent>");
	assert_string_equal(get(" \t\n"), "<absent>");
	assert_string_equal(get("\tpage_alloc.shuffle=1\n"), "1");
	/* the kernel's quotes: around the value, around the word; blanks inside them */
	assert_string_equal(get("page_alloc.shuffle=\"a b\" x"), "a b");
	assert_string_equal(get("\"page_alloc.shuffle=1\""), "1");
	assert_string_equal(get("x=\"page_alloc.shuffle=1 y\" z"), "<absent>");
	/* '-' is '_' in parameter names */
	assert_string_equal(get("page_alloc.shuffle=0 page-alloc.shuffle=1"), "1");
	/* after a bare "--" the words are init's */
	assert_string_equal(get("page_alloc.shuffle=0 -- page_alloc.shuffle=1"), "0");
	assert_string_equal(get("a=-- page_alloc.shuffle=1"), "1");

	assert_int_equal(pmemram_cmdline_get("x", "", &v), -EINVAL);
	assert_int_equal(pmemram_cmdline_get(NULL, KEY, &v), -EINVAL);
	assert_string_equal(v, "untouched");
}

static void test_cmdline_count(void **state)
{
	assert_int_equal(pmemram_cmdline_count("", KEY), 0);
	assert_int_equal(pmemram_cmdline_count("page_alloc.shuffle_order=1 page_alloc.shuffl", KEY), 0);
	assert_int_equal(pmemram_cmdline_count("page_alloc.shuffle \"page-alloc.shuffle=1\" page_alloc.shuffle=0 -- "
					       "page_alloc.shuffle=1",
					       KEY),
			 3);
	assert_int_equal(pmemram_cmdline_count("x", NULL), -EINVAL);
}

static void test_cmdline_set(void **state)
{
	char *out = NULL;
	size_t offset = 0;

	/* every word for the key goes, one new word at the end, the rest byte for byte */
	assert_string_equal(set("page_alloc.shuffle=0 root=UUID=1234 ro page_alloc.shuffle quiet", "1"),
			    "root=UUID=1234 ro quiet page_alloc.shuffle=1");
	assert_string_equal(set("a=\"x  y\"\tpage-alloc.shuffle=1 \"page_alloc.shuffle=0\" b=\"p q\"", "0"),
			    "a=\"x  y\" b=\"p q\" page_alloc.shuffle=0");
	/* blanks collapse to one space, none at the ends */
	assert_string_equal(set("  root=/dev/vda1\t\tro\n\nquiet \n", "1"),
			    "root=/dev/vda1 ro quiet page_alloc.shuffle=1");
	assert_string_equal(set("", "1"), "page_alloc.shuffle=1");
	assert_string_equal(set("\n", NULL), "");
	assert_string_equal(set("page_alloc.shuffle=1", NULL), "");
	/* a key that only starts like ours is someone else's */
	assert_string_equal(set("page_alloc.shuffle_order=5 page_alloc.shuffle=1 xpage_alloc.shuffle=2", NULL),
			    "page_alloc.shuffle_order=5 xpage_alloc.shuffle=2");
	/* an open quote runs to the end, as in the kernel: a word appended after it would be swallowed */
	assert_int_equal(pmemram_cmdline_set("a=\"b page_alloc.shuffle=0", KEY, "1", &out), -EBADMSG);
	assert_null(out);
	assert_int_equal(pmemram_cmdline_check("a=\"b c\" d=\"e", &offset), -EBADMSG);
	assert_int_equal(offset, 10);
	assert_int_equal(pmemram_cmdline_check("a=\"b c\" \"d=e f\"", &offset), 0);
	/* init's words after "--" stay, the kernel's word goes before them */
	assert_string_equal(set("quiet page_alloc.shuffle=0 -- single page_alloc.shuffle=0", "1"),
			    "quiet page_alloc.shuffle=1 -- single page_alloc.shuffle=0");
	assert_string_equal(set("-- x", "1"), "page_alloc.shuffle=1 -- x");

	assert_int_equal(pmemram_cmdline_set("x", "", "1", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", "a b", "1", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", "a=b", "1", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", "a\"b", "1", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", KEY, "", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", KEY, "1 2", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", KEY, "\"1\"", &out), -EINVAL);
	assert_int_equal(pmemram_cmdline_set("x", KEY, "a\tb", &out), -EINVAL);
	assert_null(out);
	/* '=' is fine in a value */
	assert_int_equal(pmemram_cmdline_set("", "root", "UUID=12", &out), 0);
	assert_string_equal(out, "root=UUID=12");
	free(out);
}

/* ---- files under a temporary root ------------------------------------------------------------- */

/* The update command write_shuffle() gets: NULL (update-grub, never run for a temporary
 * root), "" (none), or a stand-in script. */
static const char *update;
static char update_path[PATH_MAX];

/* page_alloc.shuffle=value (NULL: none of pmemram's), as pmemramctl shuffle apply writes it. */
static int write_shuffle(const char *root, const char *command, const char *value, struct pmemram_bootparam_change *c)
{
	const char *values[PMEMRAM_BOOT_KEYS_MAX] = { value };

	return pmemram_bootparam_write(root, command, &pmemram_boot_shuffle, values, value, c);
}

static int root_setup(void **state)
{
	char *root;

	if (fake_sysfs_new(&root) < 0)
		return -1;
	*state = root;
	return 0;
}

static int root_teardown(void **state)
{
	fake_sysfs_free(*state);
	update = NULL;
	return 0;
}

/* root/path whole, in a static buffer ("<absent>" when missing). */
static const char *slurp(const char *root, const char *path)
{
	static char buf[PMEMRAM_BOOT_FILE_MAX];
	char full[PATH_MAX];
	_cleanup_(fclosep) FILE *f = NULL;
	size_t n;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return "<absent>";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

static mode_t mode_of(const char *root, const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	assert_int_equal(stat(full, &st), 0);
	return st.st_mode & 07777;
}

static void chmod_in(const char *root, const char *path, mode_t mode)
{
	char full[PATH_MAX];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	assert_int_equal(chmod(full, mode), 0);
}

static void expect_read(const char *root, enum pmemram_bootloader loader, const char *path, const char *value,
			bool ours)
{
	struct pmemram_bootparam b;

	assert_int_equal(pmemram_bootparam_read(root, &pmemram_boot_shuffle, &b), 0);
	assert_string_equal(pmemram_bootloader_to_string(b.loader), pmemram_bootloader_to_string(loader));
	assert_string_equal(b.path, path);
	assert_int_equal(b.param[0].present, value != NULL);
	if (value)
		assert_string_equal(b.param[0].value, value);
	assert_int_equal(b.written_by_pmemram, ours);
}

static void expect_write(const char *root, const char *value, int error, bool changed, const char *path)
{
	struct pmemram_bootparam_change c;

	assert_int_equal(write_shuffle(root, update, value, &c), error);
	assert_int_equal(c.changed, changed);
	assert_string_equal(c.path, path);
	if (error == 0 && !changed) {
		assert_string_equal(c.update_command, "");
		assert_int_equal(c.update_status, -1);
	}
}

/* A stand-in for update-grub: appends a line to root/ran, exits with status. */
static void fake_update_command(const char *root, int status)
{
	char path[PATH_MAX];

	assert_int_equal(
		fake_sysfs_write(root, "update.sh", "#!/bin/sh\necho ran >>\"${0%%/*}/ran\"\nexit %d\n", status), 0);
	chmod_in(root, "update.sh", 0755);
	snprintf(path, sizeof(path), "%s/update.sh", root);
	snprintf(update_path, sizeof(update_path), "%s", path);
	update = update_path;
}

/* A command other than update-grub is never run for the running system's root: refused before
 * anything is written. */
static void test_host_root_refuses_command(void **state)
{
	struct pmemram_bootparam_change c;

	(void)state;
	assert_int_equal(write_shuffle("/", "/bin/true", "1", &c), -EPERM);
	assert_false(c.changed);
	assert_int_equal(c.update_status, -1);
}

static void test_none(void **state)
{
	const char *root = *state;
	struct pmemram_bootparam_change c;

	expect_read(root, PMEMRAM_BOOTLOADER_NONE, "", NULL, false);
	expect_write(root, "1", -ENOENT, false, "");
	expect_write(root, NULL, -ENOENT, false, "");
	assert_int_equal(write_shuffle(root, update, "a b", &c), -EINVAL);
	assert_int_equal(write_shuffle(root, update, "", &c), -EINVAL);
	assert_int_equal(write_shuffle("", update, "1", &c), -EINVAL);
	assert_string_equal(pmemram_bootloader_to_string(PMEMRAM_BOOTLOADER_GRUB), "grub");
	assert_string_equal(pmemram_bootloader_to_string(PMEMRAM_BOOTLOADER_KERNEL_CMDLINE), "kernel-cmdline");
	assert_null(pmemram_bootloader_to_string(_PMEMRAM_BOOTLOADER_MAX));
}

static void test_kernel_cmdline(void **state)
{
	const char *root = *state;

	/* kernel-install's file wins over grub's, and nothing is run for it */
	assert_int_equal(fake_sysfs_write(root, GRUB, "GRUB_CMDLINE_LINUX=\"page_alloc.shuffle=0\"\n"), 0);
	assert_int_equal(
		fake_sysfs_write(root, CMDLINE, "root=UUID=12 ro  quiet x=\"a  b\"\tpage_alloc.shuffle=0\n"), 0);
	chmod_in(root, CMDLINE, 0600);
	fake_update_command(root, 0);
	expect_read(root, PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "/" CMDLINE, "0", true);

	expect_write(root, "1", 0, true, "/" CMDLINE);
	assert_string_equal(slurp(root, CMDLINE), "root=UUID=12 ro quiet x=\"a  b\" page_alloc.shuffle=1\n");
	assert_int_equal(mode_of(root, CMDLINE), 0600);
	expect_read(root, PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "/" CMDLINE, "1", true);
	expect_write(root, "1", 0, false, "/" CMDLINE);

	expect_write(root, NULL, 0, true, "/" CMDLINE);
	assert_string_equal(slurp(root, CMDLINE), "root=UUID=12 ro quiet x=\"a  b\"\n");
	assert_int_equal(mode_of(root, CMDLINE), 0600);
	expect_read(root, PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "/" CMDLINE, NULL, false);
	expect_write(root, NULL, 0, false, "/" CMDLINE);
	assert_string_equal(slurp(root, "ran"), "<absent>");
	assert_string_equal(slurp(root, DROPIN), "<absent>");
}

/* A quote left open would swallow the word pmemram appends: the file is refused, left as it was. */
static void test_kernel_cmdline_open_quote(void **state)
{
	const char *root = *state;
	struct pmemram_bootparam_change c;

	assert_int_equal(fake_sysfs_write(root, CMDLINE, "root=UUID=12 ro x=\"a b\n"), 0);
	assert_int_equal(write_shuffle(root, update, "1", &c), -EBADMSG);
	assert_false(c.changed);
	assert_string_equal(c.path, "/" CMDLINE);
	assert_string_equal(c.detail, "the double quote at byte 19 is never closed");
	assert_string_equal(slurp(root, CMDLINE), "root=UUID=12 ro x=\"a b\n");
	assert_int_equal(write_shuffle(root, update, NULL, &c), -EBADMSG);
	assert_string_equal(slurp(root, CMDLINE), "root=UUID=12 ro x=\"a b\n");
}

static void test_kernel_cmdline_already(void **state)
{
	const char *root = *state;

	/* one word the kernel reads as the value is left as the user spelled it */
	assert_int_equal(fake_sysfs_write(root, CMDLINE, "quiet  \"page-alloc.shuffle=1\"\n"), 0);
	expect_write(root, "1", 0, false, "/" CMDLINE);
	assert_string_equal(slurp(root, CMDLINE), "quiet  \"page-alloc.shuffle=1\"\n");
	/* two words saying the same are one too many */
	assert_int_equal(fake_sysfs_write(root, CMDLINE, "page_alloc.shuffle=1 quiet page_alloc.shuffle=1"), 0);
	expect_write(root, "1", 0, true, "/" CMDLINE);
	assert_string_equal(slurp(root, CMDLINE), "quiet page_alloc.shuffle=1\n");
	/* the words after "--" are init's, whatever they say */
	assert_int_equal(fake_sysfs_write(root, CMDLINE, "quiet -- page_alloc.shuffle=1\n"), 0);
	expect_read(root, PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, "/" CMDLINE, NULL, false);
	expect_write(root, NULL, 0, false, "/" CMDLINE);
	expect_write(root, "1", 0, true, "/" CMDLINE);
	assert_string_equal(slurp(root, CMDLINE), "quiet page_alloc.shuffle=1 -- page_alloc.shuffle=1\n");
}

/* GRUB_CMDLINE_LINUX and _DEFAULT as update-grub has them: /etc/default/grub, then the drop-in, sourced
 * by the shell given ("sh" is /bin/sh) under set -eu, in a static buffer. */
static const char *grub_source(const char *root, const char *shell)
{
	static char buf[1024];
	char command[PATH_MAX + 256];
	FILE *p;
	size_t n;

	snprintf(command, sizeof(command),
		 "cd '%s' && %s -euc '. ./" GRUB "; . ./" DROPIN "; set | grep -q ^pmemram_ && exit 9; "
		 "printf %%s \"$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT\"'",
		 root, shell);
	p = popen(command, "re");
	assert_non_null(p);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return buf;
}

static void test_grub(void **state)
{
	const char *root = *state, *words;
	_cleanup_(freep) char *v = NULL;

	assert_int_equal(fake_sysfs_write(root, GRUB,
					  "# comment: GRUB_CMDLINE_LINUX=\"page_alloc.shuffle=1\"\n"
					  "GRUB_DEFAULT=0\n"
					  "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n"
					  "GRUB_CMDLINE_LINUX=\"page_alloc.shuffle=0 root=/dev/vda1\"\n"),
			 0);
	update = "";
	expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, "0", false);

	expect_write(root, "1", 0, true, "/" DROPIN);
	assert_int_equal(mode_of(root, "etc/default/grub.d"), 0755);
	assert_int_equal(mode_of(root, DROPIN), 0644);
	assert_non_null(strstr(slurp(root, DROPIN), "\n# pmemram-shuffle: 1\n"));
	expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, "1", true);

	words = grub_source(root, "sh");
	assert_string_equal(words, "root=/dev/vda1 quiet splash page_alloc.shuffle=1");
	assert_int_equal(pmemram_cmdline_count(words, KEY), 1);
	assert_int_equal(pmemram_cmdline_get(words, KEY, &v), 1);
	assert_string_equal(v, "1");

	expect_write(root, "1", 0, false, "/" DROPIN);
	expect_write(root, "0", 0, true, "/" DROPIN);
	assert_string_equal(grub_source(root, "sh"), "root=/dev/vda1 quiet splash page_alloc.shuffle=0");
	expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, "0", true);

	/* without the drop-in the user's own word is back */
	expect_write(root, NULL, 0, true, "/" DROPIN);
	assert_string_equal(slurp(root, DROPIN), "<absent>");
	expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, "0", false);
	expect_write(root, NULL, 0, false, "/" DROPIN);
}

/* The drop-in splits words as the kernel does, with dash and with bash, and agrees with the C side. */
static void test_grub_words(void **state)
{
	static const char *const shells[] = { "sh", "dash", "bash", "bash --posix" };
	const char *root = *state;
	const char *want = "root=/dev/vda1 x=\"a  b\" page_alloc.shuffle_order=3 * quiet q=\"c\td\" "
			   "page_alloc.shuffle=1 -- single page_alloc.shuffle=0";

	assert_int_equal(fake_sysfs_write(root, GRUB,
					  "GRUB_CMDLINE_LINUX='page_alloc.shuffle=0 root=/dev/vda1  x=\"a  b\"'\\\n"
					  "' page-alloc.shuffle page_alloc.shuffle_order=3 * "
					  "\"page_alloc.shuffle=0\"'\n"
					  "export GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\n"
					  "\tpage_alloc.shuffle=1 q=\\\"c\td\\\"\"\n"
					  "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT -- single "
					  "page_alloc.shuffle=0\"\n"),
			 0);
	update = "";
	expect_write(root, "1", 0, true, "/" DROPIN);
	for (size_t i = 0; i < ELEMENTSOF(shells); i++) {
		char probe[64];

		snprintf(probe, sizeof(probe), "command -v %.*s >/dev/null", (int)strcspn(shells[i], " "), shells[i]);
		if (system(probe) != 0)
			continue;
		assert_string_equal(grub_source(root, shells[i]), want);
	}
}

/* Without the drop-in, the simple forms of /etc/default/grub: quotes, bare words, the last assignment,
 * the default's words after the base's. */
static void test_grub_default(void **state)
{
	static const struct {
		const char *text;
		const char *value; /* NULL: absent */
	} cases[] = {
		{ "GRUB_CMDLINE_LINUX=page_alloc.shuffle=1\n", "1" },
		{ "GRUB_CMDLINE_LINUX=page_alloc.shuffle=1 # a comment\n", "1" },
		{ "GRUB_CMDLINE_LINUX='page_alloc.shuffle=1 quiet'\n"
		  "GRUB_CMDLINE_LINUX_DEFAULT=\"page_alloc.shuffle=0\"\n",
		  "0" },
		{ "GRUB_CMDLINE_LINUX_DEFAULT=\"page_alloc.shuffle=0\"\n"
		  "GRUB_CMDLINE_LINUX='page_alloc.shuffle=1'\n",
		  "0" },
		{ "GRUB_CMDLINE_LINUX=\"page_alloc.shuffle=1\"\nGRUB_CMDLINE_LINUX=\"quiet\"\n", NULL },
		{ "  export GRUB_CMDLINE_LINUX=\"a\\$b page_alloc.shuffle\"\n", "" },
		/* an open quote in the value swallows the rest, as in the kernel */
		{ "GRUB_CMDLINE_LINUX=\"a\\\"b page_alloc.shuffle=1\"\n", NULL },
		{ "GRUB_CMDLINE_LINUX_DEFAULTS=\"page_alloc.shuffle=1\"\n"
		  "XGRUB_CMDLINE_LINUX=page_alloc.shuffle=1\n",
		  NULL },
		{ "GRUB_TITLE=\"x\nGRUB_CMDLINE_LINUX=page_alloc.shuffle=1\"\n", NULL },
		{ "", NULL },
	};
	const char *root = *state;
	struct pmemram_bootparam b;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		assert_int_equal(fake_sysfs_write(root, GRUB, "%s", cases[i].text), 0);
		expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, cases[i].value, false);
	}

	/* what sh could not source, and a drop-in that is not ours */
	assert_int_equal(fake_sysfs_write(root, GRUB, "GRUB_CMDLINE_LINUX=\"quiet\n"), 0);
	assert_int_equal(pmemram_bootparam_read(root, &pmemram_boot_shuffle, &b), -EBADMSG);
	assert_int_equal(fake_sysfs_write(root, GRUB, "GRUB_CMDLINE_LINUX=\"quiet\"\n"), 0);
	assert_int_equal(fake_sysfs_write(root, DROPIN, "GRUB_CMDLINE_LINUX=\"\"\n"), 0);
	assert_int_equal(pmemram_bootparam_read(root, &pmemram_boot_shuffle, &b), -EBADMSG);
	assert_int_equal(pmemram_bootparam_read(NULL, &pmemram_boot_shuffle, &b), -EINVAL);
}

static void test_grub_update(void **state)
{
	const char *root = *state;
	struct pmemram_bootparam_change c;

	assert_int_equal(fake_sysfs_write(root, GRUB, "GRUB_CMDLINE_LINUX=\"\"\n"), 0);

	/* for a root other than "/", update-grub itself never runs: it would update the running system */
	assert_int_equal(write_shuffle(root, update, "0", &c), 0);
	assert_true(c.changed);
	assert_string_equal(c.update_command, "");
	assert_int_equal(c.update_status, -1);

	fake_update_command(root, 0);
	assert_int_equal(write_shuffle(root, update, "1", &c), 0);
	assert_true(c.changed);
	assert_string_equal(c.update_command, "update.sh");
	assert_int_equal(c.update_status, 0);
	assert_string_equal(slurp(root, "ran"), "ran\n");
	expect_write(root, "1", 0, false, "/" DROPIN);
	assert_string_equal(slurp(root, "ran"), "ran\n");
	/* removing the drop-in changes the configuration too */
	assert_int_equal(write_shuffle(root, update, NULL, &c), 0);
	assert_int_equal(c.update_status, 0);
	assert_string_equal(slurp(root, "ran"), "ran\nran\n");

	/* a failing tool: the file is written all the same, the caller learns what failed how */
	fake_update_command(root, 3);
	assert_int_equal(write_shuffle(root, update, "0", &c), -EIO);
	assert_true(c.changed);
	assert_string_equal(c.path, "/" DROPIN);
	assert_string_equal(c.update_command, "update.sh");
	assert_int_equal(c.update_status, 3);
	assert_string_equal(slurp(root, "ran"), "ran\nran\nran\n");
	expect_read(root, PMEMRAM_BOOTLOADER_GRUB, "/" DROPIN, "0", true);

	/* one that cannot be started */
	update = "/nonexistent/update-grub";
	assert_int_equal(write_shuffle(root, update, "1", &c), -EIO);
	assert_string_equal(c.update_command, "update-grub");
	assert_int_equal(c.update_status, 127);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_get),
		cmocka_unit_test(test_cmdline_count),
		cmocka_unit_test(test_cmdline_set),
		cmocka_unit_test(test_host_root_refuses_command),
		cmocka_unit_test_setup_teardown(test_none, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_cmdline, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_cmdline_open_quote, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_cmdline_already, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_grub, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_grub_words, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_grub_default, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_grub_update, root_setup, root_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
