/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the udev rules reader over a buffer of exactly the file's bytes (no NUL). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmemram-observe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmemram_observed_udev u;
	char *text = malloc(size ? size : 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	if (pmemram_udev_rules_scan("/etc/udev/rules.d/fuzz.rules", text, size, &u) > 0 &&
	    strncmp(u.rule, "/etc/udev/rules.d/fuzz.rules:", 29) != 0)
		abort();
	free(text);
	return 0;
}
