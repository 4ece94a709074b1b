/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the sysfs and procfs text parsers and name checks on one NUL-terminated line.
 * Invariants: a node list that parses formats back to a list that parses to the same mask; a
 * name accepted as a dax device or memory block is printable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmemram-observe.h"
#include "pmemram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmemram_nodemask mask, again;
	struct pmemram_meminfo_line ml;
	struct pmemram_mountinfo mi;
	struct pmemram_zones zones;
	const char *path;
	char *s = malloc(size + 1), buf[4096];
	unsigned long block;
	uint64_t v;
	size_t len;
	int i;
	bool b;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';

	(void)pmemram_parse_u64(s, 10, &v);
	(void)pmemram_parse_u64(s, 16, &v);
	(void)pmemram_parse_int(s, &i);
	(void)pmemram_parse_size(s, &v);
	(void)pmemram_parse_bool(s, &b);
	(void)pmemram_parse_valid_zones(s, &zones);
	(void)pmemram_parse_meminfo_line(s, &ml);
	(void)pmemram_parse_meminfo_value(s, "MemTotal", &v);
	(void)pmemram_parse_log_priority(s, &i);
	if (pmemram_parse_maps_line(s, &path, &len) == 0 && (path < s || path + len > s + size))
		abort();
	(void)pmemram_parse_mountinfo_line(s, &mi);
	if (pmemram_parse_range_list(s, &mask) == 0) {
		if (pmemram_nodemask_format(&mask, buf, sizeof(buf)) < 0)
			abort();
		if (pmemram_parse_range_list(buf, &again) != 0 || memcmp(&mask, &again, sizeof(mask)) != 0)
			abort();
	}
	if (pmemram_dax_name_is_valid(s) && !pmemram_name_is_printable(s))
		abort();
	if (pmemram_parse_block_name(s, &block) == 0 && !pmemram_name_is_printable(s))
		abort();
	for (const char *p = s; *p;) {
		size_t n = pmemram_utf8_char_len(p);

		p += n ? n : 1;
	}
	(void)pmemram_name_escape(s, buf, sizeof(buf));
	if (!pmemram_name_is_printable(buf))
		abort();
	free(s);
	return 0;
}
