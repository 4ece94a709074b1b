/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel parameters in the boot loader's configuration: command line editing, reading and writing them. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define PMEMRAM_SHUFFLE_PARAM "page_alloc.shuffle"
#define PMEMRAM_MEMHP_PARAM "memhp_default_state"
#define PMEMRAM_ONLINE_POLICY_PARAM "memory_hotplug.online_policy"

/*
 * Kernel command line editing.  Words are split on blanks (space, tab, newline) as the kernel does,
 * with double quotes protecting blanks inside a word (param="a b").  A word "KEY" or "KEY=VALUE" is
 * a parameter KEY.  As in the kernel's parser, a word's leading double quote is not part of its key,
 * and '-' and '_' in keys are the same character (page-alloc.shuffle is page_alloc.shuffle).
 */

/* The value of the LAST occurrence of key before a bare "--" (the kernel applies them in order, the last
 * wins): 1 and *ret_value (malloc'd; "" for a bare "KEY") when found, 0 and NULL when absent, -errno.
 * The value loses its enclosing double quotes as the kernel drops them (KEY="a b" gives a b). */
int pmemram_cmdline_get(const char *cmdline, const char *key, char **ret_value);

/* How many words for key there are (the kernel's parameters only: none after a bare "--"), or -errno. */
int pmemram_cmdline_count(const char *cmdline, const char *key);

/* 0 when every double quote of cmdline is closed; -EBADMSG and *ret_offset (may be NULL), the byte
 * offset of the quote left open, when not: the kernel then reads the rest of the line as one word. */
int pmemram_cmdline_check(const char *cmdline, size_t *ret_offset);

/* A new command line: every word for key removed, then " KEY=VALUE" appended when value is not NULL;
 * every other word kept byte for byte and in order, words separated by one space, no leading or trailing
 * blanks.  -EINVAL for a key or value that is empty or contains blanks, quotes or '=' (key only).
 * The kernel hands the words after a bare "--" to init: those are kept as they are, and the new word
 * goes before the "--".  -EBADMSG, and nothing made, when a quote is left open (see
 * pmemram_cmdline_check()): a word appended after it would never take effect. */
int pmemram_cmdline_set(const char *cmdline, const char *key, const char *value, char **ret);

enum pmemram_bootloader {
	PMEMRAM_BOOTLOADER_NONE,	   /* neither file found: nothing can be written */
	PMEMRAM_BOOTLOADER_KERNEL_CMDLINE, /* ROOT/etc/kernel/cmdline exists (kernel-install, systemd-boot, UKIs) */
	PMEMRAM_BOOTLOADER_GRUB,	   /* ROOT/etc/default/grub exists: pmemram's drop-in in grub.d */
	_PMEMRAM_BOOTLOADER_MAX,
};

/* "none", "kernel-cmdline", "grub"; NULL when out of range. */
const char *pmemram_bootloader_to_string(enum pmemram_bootloader b);

#define PMEMRAM_KERNEL_CMDLINE_PATH "/etc/kernel/cmdline"
#define PMEMRAM_GRUB_DEFAULT_PATH "/etc/default/grub"
#define PMEMRAM_GRUB_DROPIN_DIR "/etc/default/grub.d"
/* Largest boot configuration file read (/etc/kernel/cmdline, /etc/default/grub, the drop-in). */
#define PMEMRAM_BOOT_FILE_MAX (64 * 1024)
/* Replaces the path of update-grub when set ("" runs nothing); then it runs for any root, not only "/". */
#define PMEMRAM_BOOT_UPDATE_COMMAND_ENV "PMEMRAM_BOOT_UPDATE_COMMAND"

/* The most kernel parameters one setting owns. */
#define PMEMRAM_BOOT_KEYS_MAX 2
/* The longest value of one of them that is read or written. */
#define PMEMRAM_BOOT_VALUE_MAX 32

/*
 * A setting of pmemram.conf that pmemram keeps on the kernel command line: the parameters it owns and,
 * for GRUB, its own drop-in.  The drop-in's first lines name it, and a marker line "# pmemram-NAME: TEXT"
 * carries what the caller wrote (the setting's value in pmemram.conf terms).
 */
struct pmemram_boot_setting {
	const char *name;			 /* "shuffle": the marker "# pmemram-shuffle: " */
	const char *config_key;			 /* the key of pmemram.conf the drop-in says to change */
	const char *dropin;			 /* the drop-in, relative to the root */
	const char *keys[PMEMRAM_BOOT_KEYS_MAX]; /* the parameters it owns; unused slots NULL */
};

/* page_alloc.shuffle, from the key shuffle: /etc/default/grub.d/60-pmemram.cfg */
extern const struct pmemram_boot_setting pmemram_boot_shuffle;
/* memhp_default_state and memory_hotplug.online_policy, from the key hotplug-policy:
 * /etc/default/grub.d/61-pmemram-hotplug.cfg */
extern const struct pmemram_boot_setting pmemram_boot_hotplug;

struct pmemram_boot_param {
	bool present;			    /* the next boot's configuration sets it */
	char value[PMEMRAM_BOOT_VALUE_MAX]; /* its value then ("1", "offline", ...) */
};

struct pmemram_bootparam {
	enum pmemram_bootloader loader;
	char path[PATH_MAX];					/* the file pmemram writes (relative to root) */
	struct pmemram_boot_param param[PMEMRAM_BOOT_KEYS_MAX]; /* each of the setting's keys, in its order */
	bool written_by_pmemram; /* grub: our drop-in exists; kernel-cmdline: some key present (the file is shared) */
	char marker[PMEMRAM_BOOT_VALUE_MAX]; /* grub: our drop-in's marker text, "" otherwise */
};

/* What the boot configuration under root (normally "/") will give the next boot for the setting's keys.
 * /etc/kernel/cmdline wins when both exist.  For grub: our drop-in's words when the drop-in exists (it
 * removes every other word for its keys), else the values in /etc/default/grub's GRUB_CMDLINE_LINUX and
 * GRUB_CMDLINE_LINUX_DEFAULT (the simple KEY="...", KEY='...' and KEY=word forms; nothing is expanded).
 * 0 with loader NONE when neither file exists; -E2BIG for a file over PMEMRAM_BOOT_FILE_MAX or a value
 * that does not fit; -EBADMSG for a drop-in without the marker line; -errno.  *ret is untouched on
 * failure. */
int pmemram_bootparam_read(const char *root, const struct pmemram_boot_setting *s, struct pmemram_bootparam *ret);

struct pmemram_bootparam_change {
	bool changed;		 /* a file was written or removed */
	char path[PATH_MAX];	 /* relative to root */
	char update_command[64]; /* "update-grub" (the basename of what ran) when it was run, "" when none */
	int update_status;	 /* its exit status (128 + N for signal N), -1 when not run */
	char detail[96];	 /* what is wrong with the file when it was refused, "" otherwise */
};

/*
 * Make the next boot's configuration say KEY=values[i] for each of the setting's keys, and nothing for a
 * key whose value is NULL; with every value NULL, nothing at all as far as pmemram is concerned
 * (kernel-cmdline: the words removed; grub: our drop-in removed).  marker is the text of the drop-in's
 * marker line (required when a value is set).  Values and marker are single words of letters, digits,
 * '-', '_' and '.'.  Idempotent: no write, no update tool and changed=false when already so.
 *
 * kernel-cmdline: the file rewritten with pmemram_cmdline_set(), atomically, mode kept.
 * grub: the drop-in written atomically; it removes every word for the keys from GRUB_CMDLINE_LINUX
 *   and GRUB_CMDLINE_LINUX_DEFAULT and appends the wanted ones to GRUB_CMDLINE_LINUX_DEFAULT.  Then, with
 *   update NULL, update-grub runs when root is "/" and /usr/sbin or /sbin has it; update "" runs nothing,
 *   and another update names the command to run instead, for a root other than "/" only (-EPERM for "/",
 *   before anything is written).  A non-zero exit status is -EIO after the file is written.
 * NONE: -ENOENT; -EINVAL for a value or marker that is not such a word.  ret is filled also on failure,
 * ret->path naming the file at fault (the caller prints it with the error).
 */
int pmemram_bootparam_write(const char *root, const char *update, const struct pmemram_boot_setting *s,
			    const char *const values[PMEMRAM_BOOT_KEYS_MAX], const char *marker,
			    struct pmemram_bootparam_change *ret);
