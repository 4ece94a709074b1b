/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the boot configuration reader and writer on a scratch root.  The first byte
 * picks the loader (kernel-install's /etc/kernel/cmdline or GRUB's /etc/default/grub) and the value
 * written (none, 0, 1); the rest is the file.  Invariant (read after write): once written with V,
 * the next boot's configuration reads back V. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmemram-bootparam.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[] = "/tmp/pmemram-fuzz-boot.XXXXXX";

static void path_of(char *buf, size_t size, const char *file)
{
	(void)snprintf(buf, size, "%s%s", root, file);
}

static void put(const char *file, const uint8_t *data, size_t size)
{
	char path[PATH_MAX];
	int fd;

	path_of(path, sizeof(path), file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size) || close(fd) < 0)
		abort();
}

static void clean(void)
{
	static const char *const files[] = { PMEMRAM_KERNEL_CMDLINE_PATH, PMEMRAM_GRUB_DEFAULT_PATH,
					     "/etc/default/grub.d/60-pmemram.cfg" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path_of(path, sizeof(path), files[i]);
		(void)unlink(path);
	}
}

static void setup(void)
{
	static bool done;
	char path[PATH_MAX];

	if (done)
		return;
	done = true;
	if (!mkdtemp(root))
		abort();
	for (const char *d = "/etc\0/etc/kernel\0/etc/default\0/etc/default/grub.d\0"; *d; d += strlen(d) + 1) {
		path_of(path, sizeof(path), d);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const values[] = { NULL, "0", "1" };
	struct pmemram_bootparam_change change;
	struct pmemram_bootparam b;
	const char *value;

	if (size == 0)
		return 0;
	setup();
	clean();
	value = values[(data[0] >> 1) % 3];
	put(data[0] & 1 ? PMEMRAM_GRUB_DEFAULT_PATH : PMEMRAM_KERNEL_CMDLINE_PATH, data + 1, size - 1);

	const char *words[PMEMRAM_BOOT_KEYS_MAX] = { value };

	(void)pmemram_bootparam_read(root, &pmemram_boot_shuffle, &b);
	if (pmemram_bootparam_write(root, NULL, &pmemram_boot_shuffle, words, value, &change) == 0 && value) {
		if (pmemram_bootparam_read(root, &pmemram_boot_shuffle, &b) != 0 || !b.param[0].present ||
		    strcmp(b.param[0].value, value) != 0)
			abort();
	}
	return 0;
}
