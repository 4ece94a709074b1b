/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the kernel command line editor.  Invariant (read after write): a line it
 * wrote with page_alloc.shuffle=V reads back V, once; one it wrote without the key has none. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmemram-bootparam.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const values[] = { NULL, "0", "1" };
	const char *value;
	char *line, *out = NULL, *got = NULL;
	int r;

	if (size == 0)
		return 0;
	value = values[data[0] % 3];
	line = malloc(size);
	if (!line)
		abort();
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';

	(void)pmemram_cmdline_count(line, PMEMRAM_SHUFFLE_PARAM);
	if (pmemram_cmdline_get(line, PMEMRAM_SHUFFLE_PARAM, &got) > 0)
		free(got);
	got = NULL;
	r = pmemram_cmdline_set(line, PMEMRAM_SHUFFLE_PARAM, value, &out);
	if (r == 0) {
		if (pmemram_cmdline_check(out, NULL) < 0)
			abort();
		if (pmemram_cmdline_count(out, PMEMRAM_SHUFFLE_PARAM) != (value ? 1 : 0))
			abort();
		if (value && (pmemram_cmdline_get(out, PMEMRAM_SHUFFLE_PARAM, &got) != 1 || strcmp(got, value) != 0))
			abort();
		free(got);
		free(out);
	} else if (r != -EBADMSG || pmemram_cmdline_check(line, NULL) != -EBADMSG) {
		/* the only refusal of a valid key and value is a quote left open */
		abort();
	}
	free(line);
	return 0;
}
