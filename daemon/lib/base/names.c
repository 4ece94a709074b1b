/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Enum <-> string tables for the kernel's words (zones, block states, policies) and size formatting. */
#include <inttypes.h>

#include "pmemram-private.h"

static const char *const zone_names[_PMEMRAM_ZONE_MAX] = {
	[PMEMRAM_ZONE_NONE] = "none",	    [PMEMRAM_ZONE_DMA] = "DMA",
	[PMEMRAM_ZONE_DMA32] = "DMA32",	    [PMEMRAM_ZONE_NORMAL] = "Normal",
	[PMEMRAM_ZONE_HIGHMEM] = "HighMem", [PMEMRAM_ZONE_MOVABLE] = "Movable",
	[PMEMRAM_ZONE_DEVICE] = "Device",
};

static const char *const block_state_names[_PMEMRAM_BLOCK_STATE_MAX] = {
	[PMEMRAM_BLOCK_OFFLINE] = "offline",
	[PMEMRAM_BLOCK_ONLINE] = "online",
	[PMEMRAM_BLOCK_GOING_OFFLINE] = "going-offline",
};

static const char *const auto_online_names[_PMEMRAM_AUTO_ONLINE_MAX] = {
	[PMEMRAM_AUTO_ONLINE_OFFLINE] = "offline",
	[PMEMRAM_AUTO_ONLINE_ONLINE] = "online",
	[PMEMRAM_AUTO_ONLINE_KERNEL] = "online_kernel",
	[PMEMRAM_AUTO_ONLINE_MOVABLE] = "online_movable",
};

static const char *const cache_indexing_names[_PMEMRAM_CACHE_INDEXING_MAX] = {
	[PMEMRAM_CACHE_DIRECT_MAPPED] = "direct-mapped",
	[PMEMRAM_CACHE_COMPLEX] = "complex",
	[PMEMRAM_CACHE_INDEXING_OTHER] = "other",
};

static const char *const cache_write_policy_names[_PMEMRAM_CACHE_WRITE_POLICY_MAX] = {
	[PMEMRAM_CACHE_WRITE_BACK] = "write-back",
	[PMEMRAM_CACHE_WRITE_THROUGH] = "write-through",
	[PMEMRAM_CACHE_WRITE_OTHER] = "other",
};

static const char *const dax_mode_names[_PMEMRAM_DAX_MODE_MAX] = {
	[PMEMRAM_DAX_UNBOUND] = "unbound",
	[PMEMRAM_DAX_DEVDAX] = "devdax",
	[PMEMRAM_DAX_SYSTEM_RAM] = "system-ram",
	[PMEMRAM_DAX_OTHER] = "other",
};

static const char *const shuffle_source_names[_PMEMRAM_SHUFFLE_SOURCE_MAX] = {
	[PMEMRAM_SHUFFLE_UNAVAILABLE] = "unavailable",
	[PMEMRAM_SHUFFLE_SYSFS] = "sysfs",
	[PMEMRAM_SHUFFLE_PARAMETER] = "parameter",
};

static const char *table_to_string(const char *const *table, size_t n, int i)
{
	if (i < 0 || (size_t)i >= n)
		return NULL;
	return table[i];
}

static int table_from_string(const char *const *table, size_t n, const char *s)
{
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (table[i] && streq(table[i], s))
			return (int)i;
	return -EINVAL;
}

#define TABLE_TO_STRING(table, i) table_to_string((table), ELEMENTSOF(table), (int)(i))
#define TABLE_FROM_STRING(table, s) table_from_string((table), ELEMENTSOF(table), (s))

const char *pmemram_zone_to_string(enum pmemram_zone z)
{
	return TABLE_TO_STRING(zone_names, z);
}

int pmemram_zone_from_string(const char *s)
{
	return TABLE_FROM_STRING(zone_names, s);
}

const char *pmemram_block_state_to_string(enum pmemram_block_state s)
{
	return TABLE_TO_STRING(block_state_names, s);
}

int pmemram_block_state_from_string(const char *s)
{
	return TABLE_FROM_STRING(block_state_names, s);
}

bool pmemram_auto_online_fits(enum pmemram_auto_online policy, enum pmemram_zone zone)
{
	switch (policy) {
	case PMEMRAM_AUTO_ONLINE_OFFLINE:
		return true;
	case PMEMRAM_AUTO_ONLINE_MOVABLE:
		return zone == PMEMRAM_ZONE_MOVABLE;
	case PMEMRAM_AUTO_ONLINE_KERNEL:
		return zone == PMEMRAM_ZONE_NORMAL;
	default:
		return false;
	}
}

const char *pmemram_auto_online_to_string(enum pmemram_auto_online a)
{
	return TABLE_TO_STRING(auto_online_names, a);
}

int pmemram_auto_online_from_string(const char *s)
{
	return TABLE_FROM_STRING(auto_online_names, s);
}

const char *pmemram_cache_indexing_to_string(enum pmemram_cache_indexing i)
{
	return TABLE_TO_STRING(cache_indexing_names, i);
}

const char *pmemram_cache_write_policy_to_string(enum pmemram_cache_write_policy w)
{
	return TABLE_TO_STRING(cache_write_policy_names, w);
}

const char *pmemram_dax_mode_to_string(enum pmemram_dax_mode m)
{
	return TABLE_TO_STRING(dax_mode_names, m);
}

enum pmemram_dax_mode pmemram_dax_mode_from_driver(const char *driver)
{
	if (!driver || !*driver)
		return PMEMRAM_DAX_UNBOUND;
	if (streq(driver, "kmem"))
		return PMEMRAM_DAX_SYSTEM_RAM;
	if (streq(driver, "device_dax"))
		return PMEMRAM_DAX_DEVDAX;
	return PMEMRAM_DAX_OTHER;
}

const char *pmemram_shuffle_source_to_string(enum pmemram_shuffle_source s)
{
	return TABLE_TO_STRING(shuffle_source_names, s);
}

char *pmemram_format_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t u = 0;

	if (!buf || size == 0)
		return NULL;

	while (u + 1 < ELEMENTSOF(units) && bytes >= (UINT64_C(1) << (10 * (u + 1))))
		u++;

	if (u == 0 || bytes % (UINT64_C(1) << (10 * u)) == 0)
		snprintf(buf, size, "%" PRIu64 " %s", bytes >> (10 * u), units[u]);
	else
		snprintf(buf, size, "%.1f %s", (double)bytes / (double)(UINT64_C(1) << (10 * u)), units[u]);
	return buf;
}

/* A decimal number of up to 9 digits at s, ending at end (no sign, no blanks); -1 when not. */
static long strict_index(const char *s, const char *end)
{
	long v = 0;

	if (end <= s || end - s > 9)
		return -1;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

bool pmemram_dax_name_is_valid(const char *name)
{
	const char *dot;

	if (!name || strncmp(name, "dax", 3) != 0 || strlen(name) >= PMEMRAM_DAX_NAME_MAX)
		return false;
	dot = strchr(name, '.');
	return dot && strict_index(name + 3, dot) >= 0 && strict_index(dot + 1, dot + 1 + strlen(dot + 1)) >= 0;
}

int pmemram_parse_block_name(const char *name, unsigned long *ret)
{
	long v;

	if (!name || !ret || strncmp(name, "memory", 6) != 0)
		return -EINVAL;
	v = strict_index(name + 6, name + strlen(name));
	if (v < 0)
		return -EINVAL;
	*ret = (unsigned long)v;
	return 0;
}

size_t pmemram_utf8_char_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (u[0] < 0x80)
		return u[0] ? 1 : 0;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte, an overlong lead (c0, c1) or beyond U+10FFFF */

	/* The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF. */
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (u[k] < 0x80 || u[k] > 0xbf)
			return 0;
	return n;
}

bool pmemram_name_is_printable(const char *s)
{
	for (size_t n; *s; s += n) {
		n = pmemram_utf8_char_len(s);
		if (n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f)))
			return false;
	}
	return true;
}

const char *pmemram_name_escape(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	if (!buf || size == 0)
		return "";
	for (size_t n; s && *s; s += n) {
		char one[8];
		size_t k;

		n = pmemram_utf8_char_len(s);
		if (n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f))) {
			(void)snprintf(one, sizeof(one), "\\x%02x", (unsigned char)*s);
			n = 1;
			k = 4;
		} else {
			memcpy(one, s, n);
			k = n;
		}
		if (o + k + 1 > size)
			break;
		memcpy(buf + o, one, k);
		o += k;
	}
	buf[o] = '\0';
	return buf;
}
