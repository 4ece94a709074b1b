/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel parameters for the next boot: /etc/kernel/cmdline or a grub drop-in, read, written, update-grub run. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pmemram-bootparam.h"
#include "pmemram-private.h"

static const char *const bootloader_names[_PMEMRAM_BOOTLOADER_MAX] = {
	[PMEMRAM_BOOTLOADER_NONE] = "none",
	[PMEMRAM_BOOTLOADER_KERNEL_CMDLINE] = "kernel-cmdline",
	[PMEMRAM_BOOTLOADER_GRUB] = "grub",
};

const char *pmemram_bootloader_to_string(enum pmemram_bootloader b)
{
	return (unsigned)b < ELEMENTSOF(bootloader_names) ? bootloader_names[b] : NULL;
}

const struct pmemram_boot_setting pmemram_boot_shuffle = {
	.name = "shuffle",
	.config_key = "shuffle",
	.dropin = PMEMRAM_GRUB_DROPIN_DIR "/60-pmemram.cfg",
	.keys = { PMEMRAM_SHUFFLE_PARAM },
};

const struct pmemram_boot_setting pmemram_boot_hotplug = {
	.name = "hotplug",
	.config_key = "hotplug-policy",
	.dropin = PMEMRAM_GRUB_DROPIN_DIR "/61-pmemram-hotplug.cfg",
	.keys = { PMEMRAM_MEMHP_PARAM, PMEMRAM_ONLINE_POLICY_PARAM },
};

static size_t n_keys(const struct pmemram_boot_setting *s)
{
	size_t n = 0;

	while (n < PMEMRAM_BOOT_KEYS_MAX && s->keys[n])
		n++;
	return n;
}

/* ---- files below the root ---------------------------------------------------------------- */

/* ROOT + path (path starts with '/'); a root of "/" or "" adds nothing. */
static int root_path(char *buf, size_t size, const char *root, const char *path)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	return path_printf(buf, size, "%.*s%s", (int)n, root, path);
}

static bool root_is_host(const char *root)
{
	return !root[strspn(root, "/")];
}

/* 1 when path exists, 0 when not, -errno. */
static int file_exists(const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return 1;
	return errno == ENOENT ? 0 : negative_errno();
}

/* The whole file, NUL-terminated, up to PMEMRAM_BOOT_FILE_MAX bytes: -ENOENT when absent, -E2BIG over it. */
static int read_file(const char *path, char **ret)
{
	_cleanup_(closep) int fd = -1;
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0;
	ssize_t k;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	buf = malloc(PMEMRAM_BOOT_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	/* One byte more than the limit tells a file at the limit from a larger one. */
	while (len <= PMEMRAM_BOOT_FILE_MAX && (k = read(fd, buf + len, PMEMRAM_BOOT_FILE_MAX + 1 - len)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		len += (size_t)k;
	}
	if (len > PMEMRAM_BOOT_FILE_MAX)
		return -E2BIG;
	if (memchr(buf, '\0', len))
		return -EBADMSG;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

/* fsync the directory of path, so that an unlink in it survives a crash. */
static int sync_parent(const char *path)
{
	char dir[PATH_MAX];
	_cleanup_(closep) int fd = -1;
	const char *slash = strrchr(path, '/');
	int r;

	r = copy_span(dir, sizeof(dir), path, slash && slash != path ? (size_t)(slash - path) : 1);
	if (r < 0)
		return r;
	if (!slash)
		dir[0] = '.';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		return negative_errno();
	return 0;
}

/* ---- /etc/default/grub ------------------------------------------------------------------ */

/* The value of a shell word starting at *p, as sh would assign it without expanding anything: double
 * and single quotes, backslashes, line continuations.  *p ends past the word.  -EBADMSG for an open quote. */
static int shell_word(const char **p, char *out)
{
	const char *s = *p;
	size_t n = 0;

	for (;;) {
		if (!*s || strchr(" \t\n;&|#", *s))
			break;
		if (*s == '\'') {
			const char *close = strchr(s + 1, '\'');

			if (!close)
				return -EBADMSG;
			memcpy(out + n, s + 1, (size_t)(close - s - 1));
			n += (size_t)(close - s - 1);
			s = close + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (!*s)
					return -EBADMSG;
				/* Inside double quotes a backslash escapes only these. */
				if (*s == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
					s++;
					if (*s == '\n')
						continue;
				}
				out[n++] = *s;
			}
			s++;
		} else if (*s == '\\' && s[1]) {
			if (s[1] != '\n')
				out[n++] = s[1];
			s += 2;
		} else
			out[n++] = *s++;
	}
	out[n] = '\0';
	*p = s;
	return 0;
}

/* The last simple assignment "name=WORD" (or "export name=WORD") at the start of a line of text:
 * 1 and *ret (malloc'd), 0 and NULL when there is none. */
static int shell_get(const char *text, const char *name, char **ret)
{
	_cleanup_(freep) char *value = NULL, *word = NULL;
	size_t n = strlen(name);
	const char *p = text;

	word = malloc(strlen(text) + 1);
	if (!word)
		return -ENOMEM;
	while (*p) {
		const char *v;
		size_t id;
		int r;

		p += strspn(p, " \t");
		if (strncmp(p, "export", 6) == 0 && p[6] && strchr(" \t", p[6]))
			p += 6 + strspn(p + 6, " \t");
		id = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (id > 0 && p[id] == '=') {
			/* Every assignment's value is read, so that a quoted value over several lines is
			 * skipped whole and nothing inside it passes for an assignment. */
			v = p + id + 1;
			r = shell_word(&v, word);
			if (r < 0)
				return r;
			if (id == n && strncmp(p, name, n) == 0) {
				free(value);
				value = strdup(word);
				if (!value)
					return -ENOMEM;
			}
			p = v;
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	*ret = TAKE_PTR(value);
	return *ret ? 1 : 0;
}

/* What /etc/default/grub alone gives: its two variables joined as grub's 10_linux joins them. */
static int grub_default_line(const char *path, char **ret_line)
{
	_cleanup_(freep) char *text = NULL, *base = NULL, *dflt = NULL;
	int r;

	r = read_file(path, &text);
	if (r < 0)
		return r;
	r = shell_get(text, "GRUB_CMDLINE_LINUX", &base);
	if (r < 0)
		return r;
	r = shell_get(text, "GRUB_CMDLINE_LINUX_DEFAULT", &dflt);
	if (r < 0)
		return r;
	if (asprintf(ret_line, "%s %s", base ?: "", dflt ?: "") < 0)
		return -ENOMEM;
	return 0;
}

/* ---- the grub drop-in -------------------------------------------------------------------- */

/*
 * Sourced by update-grub (grub-mkconfig, under "set -e") after /etc/default/grub and the drop-ins before
 * it.  It splits both variables into words as the kernel will, so a quoted word with blanks stays one
 * word, drops every word for the setting's parameters from the kernel's part of the line and adds
 * pmemram's own at the end of that part: after GRUB_CMDLINE_LINUX_DEFAULT, or before a "--" that starts
 * init's part.  Only names starting with pmemram_ are used, and removed again.  %s: the key of
 * pmemram.conf, the setting's name and marker text, the parameters for a comment, a case pattern for
 * them, the words to add.
 */
#define GRUB_DROPIN_FORMAT                                                                                       \
	"# This file belongs to pmemram: pmemramctl and pmemramd rewrite or remove it to match the %s\n"         \
	"# key of pmemram.conf.  Change that key instead of this file; changes here will be lost.\n"             \
	"# pmemram-%s: %s\n"                                                                                     \
	"#\n"                                                                                                    \
	"# update-grub reads /etc/default/grub, then /etc/default/grub.d/*.cfg in order.  This removes every\n"  \
	"# %s the files before it set in GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT,\n"                    \
	"# keeping all other words, and adds pmemram's at the end of the kernel's parameters.\n"                 \
	"\n"                                                                                                     \
	"pmemram_edit() {\n"                                                                                     \
	"\tpmemram_in=$1\n"                                                                                      \
	"\tpmemram_out=\n"                                                                                       \
	"\twhile :; do\n"                                                                                        \
	"\t\tpmemram_in=${pmemram_in#\"${pmemram_in%%%%[!$pmemram_blank]*}\"}\n"                                 \
	"\t\tif [ -z \"$pmemram_in\" ]; then\n"                                                                  \
	"\t\t\tbreak\n"                                                                                          \
	"\t\tfi\n"                                                                                               \
	"\t\t# a word ends at a blank outside double quotes\n"                                                   \
	"\t\tpmemram_word=\n"                                                                                    \
	"\t\tpmemram_quoted=\n"                                                                                  \
	"\t\twhile [ -n \"$pmemram_in\" ]; do\n"                                                                 \
	"\t\t\tif [ -n \"$pmemram_quoted\" ]; then\n"                                                            \
	"\t\t\t\tpmemram_run=${pmemram_in%%%%\\\"*}\n"                                                           \
	"\t\t\telse\n"                                                                                           \
	"\t\t\t\tpmemram_run=${pmemram_in%%%%[\\\"$pmemram_blank]*}\n"                                           \
	"\t\t\tfi\n"                                                                                             \
	"\t\t\tpmemram_word=$pmemram_word$pmemram_run\n"                                                         \
	"\t\t\tpmemram_in=${pmemram_in#\"$pmemram_run\"}\n"                                                      \
	"\t\t\tcase $pmemram_in in\n"                                                                            \
	"\t\t\t\\\"*)\n"                                                                                         \
	"\t\t\t\tpmemram_word=$pmemram_word\\\"\n"                                                               \
	"\t\t\t\tpmemram_in=${pmemram_in#?}\n"                                                                   \
	"\t\t\t\tif [ -n \"$pmemram_quoted\" ]; then\n"                                                          \
	"\t\t\t\t\tpmemram_quoted=\n"                                                                            \
	"\t\t\t\telse\n"                                                                                         \
	"\t\t\t\t\tpmemram_quoted=1\n"                                                                           \
	"\t\t\t\tfi\n"                                                                                           \
	"\t\t\t\t;;\n"                                                                                           \
	"\t\t\t*)\n"                                                                                             \
	"\t\t\t\tbreak\n"                                                                                        \
	"\t\t\t\t;;\n"                                                                                           \
	"\t\t\tesac\n"                                                                                           \
	"\t\tdone\n"                                                                                             \
	"\t\t# its key, as the kernel reads it: no leading quote, nothing from the first '='\n"                  \
	"\t\tcase $pmemram_word in\n"                                                                            \
	"\t\t\\\"*=*)\n"                                                                                         \
	"\t\t\tpmemram_key=${pmemram_word#?}\n"                                                                  \
	"\t\t\t;;\n"                                                                                             \
	"\t\t\\\"*)\n"                                                                                           \
	"\t\t\tpmemram_key=${pmemram_word#?}\n"                                                                  \
	"\t\t\tpmemram_key=${pmemram_key%%\\\"}\n"                                                               \
	"\t\t\t;;\n"                                                                                             \
	"\t\t*)\n"                                                                                               \
	"\t\t\tpmemram_key=$pmemram_word\n"                                                                      \
	"\t\t\t;;\n"                                                                                             \
	"\t\tesac\n"                                                                                             \
	"\t\tpmemram_key=${pmemram_key%%%%=*}\n"                                                                 \
	"\t\tif [ -n \"$pmemram_init\" ]; then\n"                                                                \
	"\t\t\t:\n"                                                                                              \
	"\t\telif [ \"$pmemram_key\" = -- ] && [ \"$pmemram_word\" = \"${pmemram_word%%%%=*}\" ]; then\n"        \
	"\t\t\tpmemram_init=1\n"                                                                                 \
	"\t\t\tif [ -n \"$pmemram_add\" ]; then\n"                                                               \
	"\t\t\t\tpmemram_out=${pmemram_out:+$pmemram_out }$pmemram_add\n"                                        \
	"\t\t\t\tpmemram_add=\n"                                                                                 \
	"\t\t\tfi\n"                                                                                             \
	"\t\telse\n"                                                                                             \
	"\t\t\tcase $pmemram_key in\n"                                                                           \
	"\t\t\t%s)\n"                                                                                            \
	"\t\t\t\tcontinue\n"                                                                                     \
	"\t\t\t\t;;\n"                                                                                           \
	"\t\t\tesac\n"                                                                                           \
	"\t\tfi\n"                                                                                               \
	"\t\tpmemram_out=${pmemram_out:+$pmemram_out }$pmemram_word\n"                                           \
	"\tdone\n"                                                                                               \
	"}\n"                                                                                                    \
	"\n"                                                                                                     \
	"pmemram_blank=' \t\n'\n"                                                                                \
	"pmemram_add='%s'\n"                                                                                     \
	"pmemram_init=\n"                                                                                        \
	"pmemram_edit \"${GRUB_CMDLINE_LINUX-}\"\n"                                                              \
	"GRUB_CMDLINE_LINUX=$pmemram_out\n"                                                                      \
	"pmemram_edit \"${GRUB_CMDLINE_LINUX_DEFAULT-}\"\n"                                                      \
	"GRUB_CMDLINE_LINUX_DEFAULT=$pmemram_out\n"                                                              \
	"if [ -n \"$pmemram_add\" ]; then\n"                                                                     \
	"\tGRUB_CMDLINE_LINUX_DEFAULT=${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }$pmemram_add\n" \
	"fi\n"                                                                                                   \
	"unset -f pmemram_edit\n"                                                                                \
	"unset pmemram_blank pmemram_add pmemram_init pmemram_in pmemram_out pmemram_word pmemram_quoted\n"      \
	"unset pmemram_run pmemram_key\n"

/* A case pattern matching key as the kernel does: "page[-_]alloc.shuffle"; the keys joined by '|'. */
static void key_pattern(const char *key, char *buf)
{
	for (; *key; key++)
		buf += *key == '-' || *key == '_' ? sprintf(buf, "[-_]") : sprintf(buf, "%c", *key);
}

static int grub_dropin_text(const struct pmemram_boot_setting *s, const char *const values[], const char *marker,
			    char **ret)
{
	char pattern[PMEMRAM_BOOT_KEYS_MAX * 160] = "", keys[PMEMRAM_BOOT_KEYS_MAX * 48] = "";
	char add[PMEMRAM_BOOT_KEYS_MAX * (48 + PMEMRAM_BOOT_VALUE_MAX)] = "";

	for (size_t i = 0; i < n_keys(s); i++) {
		if (strlen(s->keys[i]) >= 40)
			return -EINVAL;
		if (i > 0) {
			strcat(pattern, "|");
			strcat(keys, i + 1 < n_keys(s) ? ", " : " or ");
		}
		key_pattern(s->keys[i], pattern + strlen(pattern));
		strcat(keys, s->keys[i]);
		if (values[i])
			(void)snprintf(add + strlen(add), sizeof(add) - strlen(add), "%s%s=%s", add[0] ? " " : "",
				       s->keys[i], values[i]);
	}
	if (asprintf(ret, GRUB_DROPIN_FORMAT, s->config_key, s->name, marker, keys, pattern, add) < 0)
		return -ENOMEM;
	return 0;
}

/* The text on the drop-in's marker line "# pmemram-NAME: "; -EBADMSG when it has none, or an empty one. */
static int grub_dropin_marker(const struct pmemram_boot_setting *s, const char *text, char *buf, size_t size)
{
	char marker[64];
	size_t n;
	int r;

	r = path_printf(marker, sizeof(marker), "# pmemram-%s: ", s->name);
	if (r < 0)
		return r;
	n = strlen(marker);
	for (const char *p = text; *p; p += strcspn(p, "\n"), p += !!*p)
		if (strncmp(p, marker, n) == 0) {
			size_t len;

			p += n;
			len = strcspn(p, "\n");
			return len > 0 ? copy_span(buf, size, p, len) : -EBADMSG;
		}
	return -EBADMSG;
}

/* The words the drop-in adds, from its line "pmemram_add='...'" (malloc'd, "" when it adds none). */
static int grub_dropin_words(const char *text, char **ret)
{
	static const char prefix[] = "pmemram_add='";

	for (const char *p = text; *p; p += strcspn(p, "\n"), p += !!*p)
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			const char *end;

			p += strlen(prefix);
			end = strchr(p, '\'');
			if (!end || memchr(p, '\n', (size_t)(end - p)))
				return -EBADMSG;
			*ret = strndup(p, (size_t)(end - p));
			return *ret ? 0 : -ENOMEM;
		}
	return -EBADMSG;
}

/* ---- reading ----------------------------------------------------------------------------- */

/* Which configuration the next boot takes, and the setting's file in it, relative to root. */
static int detect(const char *root, const struct pmemram_boot_setting *s, enum pmemram_bootloader *ret_loader,
		  const char **ret_file)
{
	char path[PATH_MAX];
	int r;

	/* kernel-install builds boot entries and UKIs from /etc/kernel/cmdline whenever it exists,
	 * whatever else is installed, so it wins over /etc/default/grub. */
	r = root_path(path, sizeof(path), root, PMEMRAM_KERNEL_CMDLINE_PATH);
	if (r >= 0)
		r = file_exists(path);
	if (r < 0)
		return r;
	if (r > 0) {
		*ret_loader = PMEMRAM_BOOTLOADER_KERNEL_CMDLINE;
		*ret_file = PMEMRAM_KERNEL_CMDLINE_PATH;
		return 0;
	}

	r = root_path(path, sizeof(path), root, PMEMRAM_GRUB_DEFAULT_PATH);
	if (r >= 0)
		r = file_exists(path);
	if (r < 0)
		return r;
	*ret_loader = r > 0 ? PMEMRAM_BOOTLOADER_GRUB : PMEMRAM_BOOTLOADER_NONE;
	*ret_file = r > 0 ? s->dropin : "";
	return 0;
}

/* Each of the setting's keys as line gives it to the kernel. */
static int get_params(const struct pmemram_boot_setting *s, const char *line, struct pmemram_bootparam *b)
{
	for (size_t i = 0; i < n_keys(s); i++) {
		_cleanup_(freep) char *value = NULL;
		int r = pmemram_cmdline_get(line, s->keys[i], &value);

		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (copy_span(b->param[i].value, sizeof(b->param[i].value), value, strlen(value)) < 0)
			return -E2BIG;
		b->param[i].present = true;
	}
	return 0;
}

static bool any_present(const struct pmemram_bootparam *b)
{
	for (size_t i = 0; i < PMEMRAM_BOOT_KEYS_MAX; i++)
		if (b->param[i].present)
			return true;
	return false;
}

int pmemram_bootparam_read(const char *root, const struct pmemram_boot_setting *s, struct pmemram_bootparam *ret)
{
	struct pmemram_bootparam b = {};
	_cleanup_(freep) char *text = NULL, *line = NULL;
	char path[PATH_MAX];
	const char *file;
	int r;

	if (!root || !*root || !s || !ret)
		return -EINVAL;
	r = detect(root, s, &b.loader, &file);
	if (r < 0)
		return r;
	r = copy_span(b.path, sizeof(b.path), file, strlen(file));
	if (r < 0)
		return r;

	switch (b.loader) {
	case PMEMRAM_BOOTLOADER_KERNEL_CMDLINE:
		r = root_path(path, sizeof(path), root, file);
		if (r >= 0)
			r = read_file(path, &text);
		if (r >= 0)
			r = get_params(s, text, &b);
		/* The file is the user's too: a word there is ours as much as anyone's. */
		b.written_by_pmemram = any_present(&b);
		break;
	case PMEMRAM_BOOTLOADER_GRUB:
		r = root_path(path, sizeof(path), root, file);
		if (r >= 0)
			r = read_file(path, &text);
		if (r >= 0) {
			/* Ours: it removes every other word for its keys, so its own words are the next
			 * boot's. */
			r = grub_dropin_marker(s, text, b.marker, sizeof(b.marker));
			if (r == -ENAMETOOLONG)
				r = -E2BIG;
			if (r >= 0)
				r = grub_dropin_words(text, &line);
			if (r >= 0)
				r = get_params(s, line, &b);
			b.written_by_pmemram = r >= 0;
			break;
		}
		if (r != -ENOENT)
			break;
		/* No drop-in of ours: whatever the user's file says. */
		r = root_path(path, sizeof(path), root, PMEMRAM_GRUB_DEFAULT_PATH);
		if (r >= 0)
			r = grub_default_line(path, &line);
		if (r >= 0)
			r = get_params(s, line, &b);
		break;
	default:
		r = 0;
		break;
	}
	if (r < 0)
		return r;
	*ret = b;
	return 0;
}

/* ---- writing ----------------------------------------------------------------------------- */

/* The command to run after the grub configuration changed: 1 and its path, or 0 for none.
 * update-grub only for the running system's root, since it writes the running system's /boot
 * whatever root says; a command of the caller's (tests) only for another root, so that no
 * configuration makes a root pmemramctl run anything but update-grub on the real system. */
static int update_command(const char *root, const char *command, char *buf, size_t size)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin" };

	if (command && *command && root_is_host(root))
		return -EPERM;
	if (command)
		return *command ? copy_span(buf, size, command, strlen(command)) ?: 1 : 0;
	if (!root_is_host(root))
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		int r = path_printf(buf, size, "%s/update-grub", dirs[i]);

		if (r < 0)
			return r;
		if (access(buf, X_OK) == 0)
			return 1;
	}
	return 0;
}

/* Run path without a shell and wait for it: its exit status, 128 + N when signal N ended it. */
static int run_command(const char *path)
{
	char *const argv[] = { (char *)path, NULL };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		sigset_t none;
		int fd;

		/* Only async-signal-safe calls here.  A daemon may block signals it takes through
		 * signalfd; the tool must not inherit that.  Its output goes where ours goes. */
		(void)sigemptyset(&none);
		(void)sigprocmask(SIG_SETMASK, &none, NULL);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			(void)dup2(fd, STDIN_FILENO);
		execv(path, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* A word the drop-in carries unquoted and the kernel reads as it is. */
static bool plain_word(const char *w)
{
	return w && *w && strlen(w) < PMEMRAM_BOOT_VALUE_MAX &&
	       w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")] == '\0';
}

/* Whether line already gives the kernel exactly values: one word for each key wanted, with that value
 * (however spelled), none for a key not wanted. */
static int cmdline_is(const struct pmemram_boot_setting *s, const char *line, const char *const values[])
{
	for (size_t i = 0; i < n_keys(s); i++) {
		_cleanup_(freep) char *old = NULL;
		int r = pmemram_cmdline_count(line, s->keys[i]);

		if (r >= 0 && values[i] && r == 1)
			r = pmemram_cmdline_get(line, s->keys[i], &old);
		if (r < 0)
			return r;
		if (values[i] ? r != 1 || !streq(old, values[i]) : r != 0)
			return 0;
	}
	return 1;
}

static int write_kernel_cmdline(const struct pmemram_boot_setting *s, const char *path, const char *const values[],
				bool *ret_changed, char *detail, size_t detail_size)
{
	_cleanup_(freep) char *text = NULL, *line = NULL, *content = NULL;
	size_t quote;
	int r;

	r = read_file(path, &text);
	if (r < 0)
		return r;
	/* Refuse the file as it is rather than append a word the kernel would swallow. */
	if (pmemram_cmdline_check(text, &quote) < 0) {
		(void)snprintf(detail, detail_size, "the double quote at byte %zu is never closed", quote + 1);
		return -EBADMSG;
	}
	r = cmdline_is(s, text, values);
	if (r != 0) {
		*ret_changed = false;
		return r < 0 ? r : 0;
	}

	line = strdup(text);
	if (!line)
		return -ENOMEM;
	for (size_t i = 0; i < n_keys(s); i++) {
		_cleanup_(freep) char *next = NULL;

		r = pmemram_cmdline_set(line, s->keys[i], values[i], &next);
		if (r < 0)
			return r;
		free(line);
		line = TAKE_PTR(next);
	}
	if (asprintf(&content, "%s\n", line) < 0)
		return -ENOMEM;
	r = file_write_atomic(path, content, strlen(content), 0644, FILE_KEEP_MODE);
	if (r < 0)
		return r;
	*ret_changed = true;
	return 0;
}

/* The drop-in with values, or none when no value is wanted (any false). */
static int write_grub_dropin(const char *root, const struct pmemram_boot_setting *s, const char *path,
			     const char *const values[], bool any, const char *marker, bool *ret_changed)
{
	_cleanup_(freep) char *old = NULL, *content = NULL;
	char dir[PATH_MAX];
	int r;

	r = read_file(path, &old);
	if (r < 0 && r != -ENOENT)
		return r;

	if (!any) {
		if (!old) {
			*ret_changed = false;
			return 0;
		}
		if (unlink(path) < 0)
			return negative_errno();
		*ret_changed = true;
		return sync_parent(path);
	}

	r = grub_dropin_text(s, values, marker, &content);
	if (r < 0)
		return r;
	if (streq_ptr(old, content)) {
		*ret_changed = false;
		return 0;
	}
	r = root_path(dir, sizeof(dir), root, PMEMRAM_GRUB_DROPIN_DIR);
	if (r < 0)
		return r;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return negative_errno();
	r = file_write_atomic(path, content, strlen(content), 0644, FILE_KEEP_MODE);
	if (r < 0)
		return r;
	*ret_changed = true;
	return 0;
}

int pmemram_bootparam_write(const char *root, const char *update, const struct pmemram_boot_setting *s,
			    const char *const values[PMEMRAM_BOOT_KEYS_MAX], const char *marker,
			    struct pmemram_bootparam_change *ret)
{
	enum pmemram_bootloader loader;
	char path[PATH_MAX], command[PATH_MAX];
	const char *file, *base;
	int r, have_command;
	bool any = false;
	size_t n;

	if (!ret)
		return -EINVAL;
	*ret = (struct pmemram_bootparam_change){ .update_status = -1 };
	if (!root || !*root || !s || !values || n_keys(s) == 0)
		return -EINVAL;
	/* Only what the drop-in can carry unquoted and the kernel reads as it is. */
	for (size_t i = 0; i < n_keys(s); i++) {
		if (values[i] && !plain_word(values[i]))
			return -EINVAL;
		any = any || values[i];
	}
	if (any && !plain_word(marker))
		return -EINVAL;
	if (update && *update && root_is_host(root))
		return -EPERM;

	r = detect(root, s, &loader, &file);
	if (r < 0)
		return r;
	if (loader == PMEMRAM_BOOTLOADER_NONE)
		return -ENOENT;
	r = copy_span(ret->path, sizeof(ret->path), file, strlen(file));
	if (r < 0)
		return r;
	r = root_path(path, sizeof(path), root, file);
	if (r < 0)
		return r;

	if (loader == PMEMRAM_BOOTLOADER_KERNEL_CMDLINE)
		/* kernel-install reads the file when a kernel is installed: nothing to run now. */
		return write_kernel_cmdline(s, path, values, &ret->changed, ret->detail, sizeof(ret->detail));

	/* Which command runs afterwards is settled before anything is written. */
	have_command = update_command(root, update, command, sizeof(command));
	if (have_command < 0)
		return have_command;
	r = write_grub_dropin(root, s, path, values, any, marker, &ret->changed);
	if (r < 0 || !ret->changed || have_command == 0)
		return r;
	base = strrchr(command, '/');
	base = base ? base + 1 : command;
	/* A name for messages: cut rather than fail when it is long. */
	n = strlen(base);
	(void)copy_span(ret->update_command, sizeof(ret->update_command), base,
			n < sizeof(ret->update_command) ? n : sizeof(ret->update_command) - 1);
	r = run_command(command);
	if (r < 0)
		return r;
	ret->update_status = r;
	return r == 0 ? 0 : -EIO;
}
