/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: pmemram.conf and up to three drop-ins (split at NUL bytes) parsed and checked
 * together; every message must be printable UTF-8, one line, as status and JSON carry it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmemram-config.h"
#include "pmemram.h"

static const char *const names[] = { "pmemram.conf", "pmemram.conf.d/10-a.conf", "pmemram.conf.d/20-b.conf",
				     "pmemram.conf.d/30-c.conf" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmemram_config_errors errors = {};
	struct pmemram_config *c = NULL;
	const uint8_t *p = data, *end = data + size;
	int r = 0;

	if (pmemram_config_new(&c) < 0)
		abort();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && p <= end && r == 0; i++) {
		const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
		size_t len = nul ? (size_t)(nul - p) : (size_t)(end - p);
		/* The file's exact bytes, with nothing readable after them. */
		char *text = malloc(len ? len : 1);

		if (!text)
			abort();
		memcpy(text, p, len);
		r = pmemram_config_parse(c, names[i], text, len, &errors);
		free(text);
		if (!nul)
			break;
		p = nul + 1;
	}
	if (r == 0)
		(void)pmemram_config_verify(c, &errors);
	for (size_t i = 0; i < errors.n; i++)
		if (!pmemram_name_is_printable(errors.msg[i]))
			abort();
	pmemram_config_free(c);
	return 0;
}
