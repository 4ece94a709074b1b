/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pure parsers for sysfs text (numbers, range lists, valid_zones, meminfo) and node masks. */
#include <ctype.h>
#include <limits.h>
#include <syslog.h>

#include "pmemram-private.h"

/* Length of s without trailing whitespace (sysfs values end in '\n'). */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return n;
}

/* Parse digits in [s, s + len) in the given base; no sign, no spaces. */
static int parse_digits(const char *s, size_t len, int base, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;

	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;

		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}

	*ret = v;
	return 0;
}

int pmemram_parse_u64(const char *s, int base, uint64_t *ret)
{
	size_t len;
	uint64_t v;
	int r;

	if (!s || !ret || (base != 10 && base != 16))
		return -EINVAL;

	len = trimmed_len(s);
	if (base == 16 && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}

	r = parse_digits(s, len, base, &v);
	if (r < 0)
		return r;

	*ret = v;
	return 0;
}

int pmemram_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGTPE";
	size_t len, digits;
	unsigned shift = 0;
	uint64_t v;
	int r;

	if (!s || !ret)
		return -EINVAL;

	len = trimmed_len(s);
	digits = strspn(s, "0123456789");
	if (digits > len)
		digits = len;
	if (digits < len) {
		const char *u = strchr(units, s[digits] & ~0x20);
		size_t rest = len - digits;

		/* "128M", "128MiB", "128MB": all binary, as every memory size here is. */
		if (!u || !*u || !(rest == 1 || (rest == 2 && (s[digits + 1] == 'B' || s[digits + 1] == 'b')) ||
				   (rest == 3 && s[digits + 1] == 'i' && (s[digits + 2] == 'B' || s[digits + 2] == 'b'))))
			return -EINVAL;
		shift = 10 * (unsigned)(u - units + 1);
	}

	r = parse_digits(s, digits, 10, &v);
	if (r < 0)
		return r;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;

	*ret = v << shift;
	return 0;
}

int pmemram_parse_int(const char *s, int *ret)
{
	bool negative = false;
	uint64_t v;
	int r;

	if (!s || !ret)
		return -EINVAL;

	if (*s == '-') {
		negative = true;
		s++;
	}

	r = parse_digits(s, trimmed_len(s), 10, &v);
	if (r < 0)
		return r;
	if (negative ? v > (uint64_t)INT_MAX + 1 : v > (uint64_t)INT_MAX)
		return -ERANGE;

	*ret = negative ? (int)-(int64_t)v : (int)v;
	return 0;
}

int pmemram_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "1", "Y", "y", "yes", "true", "on" };
	static const char *const no[] = { "0", "N", "n", "no", "false", "off" };
	size_t len;

	if (!s || !ret)
		return -EINVAL;
	len = trimmed_len(s);

	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strlen(yes[i]) == len && strncmp(s, yes[i], len) == 0) {
			*ret = true;
			return 0;
		}
		if (strlen(no[i]) == len && strncmp(s, no[i], len) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* One node number of a range list: [s, s + len). */
static int parse_node(const char *s, size_t len, unsigned *ret)
{
	uint64_t v;
	int r;

	r = parse_digits(s, len, 10, &v);
	if (r < 0)
		return r;
	if (v >= PMEMRAM_MAX_NODES)
		return -ERANGE;

	*ret = (unsigned)v;
	return 0;
}

int pmemram_parse_range_list(const char *s, struct pmemram_nodemask *ret)
{
	struct pmemram_nodemask mask = {};
	const char *end;

	if (!s || !ret)
		return -EINVAL;

	end = s + trimmed_len(s);
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *item_end = comma ? comma : end;
		const char *dash = memchr(s, '-', (size_t)(item_end - s));
		unsigned first, last;
		int r;

		r = parse_node(s, (size_t)((dash ? dash : item_end) - s), &first);
		if (r < 0)
			return r;
		last = first;
		if (dash) {
			r = parse_node(dash + 1, (size_t)(item_end - dash - 1), &last);
			if (r < 0)
				return r;
			if (last < first)
				return -EINVAL;
		}

		for (unsigned n = first; n <= last; n++)
			pmemram_nodemask_set(&mask, n);

		if (!comma)
			break;
		s = comma + 1;
		if (s == end) /* trailing comma */
			return -EINVAL;
	}

	*ret = mask;
	return 0;
}

int pmemram_parse_valid_zones(const char *s, struct pmemram_zones *ret)
{
	struct pmemram_zones zones = { .first = PMEMRAM_ZONE_NONE, .mask = 0 };
	char word[16];
	size_t n_words = 0;
	const char *end;

	if (!s || !ret)
		return -EINVAL;

	end = s + trimmed_len(s);
	while (s < end) {
		size_t len = strcspn(s, " ");
		int z;

		if (len > (size_t)(end - s))
			len = (size_t)(end - s);
		if (len == 0 || len >= sizeof(word))
			return -EINVAL;
		memcpy(word, s, len);
		word[len] = '\0';

		z = pmemram_zone_from_string(word);
		if (z < 0)
			return z;
		if (n_words == 0)
			zones.first = (enum pmemram_zone)z;
		zones.mask |= 1u << z;
		n_words++;

		s += len;
		if (s < end && *s == ' ') {
			s++;
			if (s == end)
				return -EINVAL;
		}
	}

	/* "none" stands alone: an online block spanning several zones. */
	if (n_words == 0 || ((zones.mask & (1u << PMEMRAM_ZONE_NONE)) && n_words > 1))
		return -EINVAL;

	*ret = zones;
	return 0;
}

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int pmemram_parse_meminfo_line(const char *line, struct pmemram_meminfo_line *ret)
{
	struct pmemram_meminfo_line m = {};
	const char *p, *colon, *end;
	size_t len;
	uint64_t v;
	int r;

	if (!line || !ret)
		return -EINVAL;
	end = line + trimmed_len(line);

	/* "Node 0 MemTotal:        1048576 kB" */
	if (strncmp(line, "Node ", 5) != 0)
		return -EINVAL;
	p = line + 5;
	len = strspn(p, "0123456789");
	r = parse_digits(p, len, 10, &v);
	if (r < 0)
		return r;
	if (v >= PMEMRAM_MAX_NODES)
		return -ERANGE;
	m.node = (int)v;
	p += len;
	if (*p != ' ')
		return -EINVAL;

	p = skip_spaces(p);
	/* "Node 0" and blanks: the blanks were trimmed off end, p went past it. */
	if (p >= end)
		return -EINVAL;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p || (size_t)(colon - p) >= sizeof(m.key))
		return -EINVAL;
	memcpy(m.key, p, (size_t)(colon - p));
	if (strpbrk(m.key, " \t"))
		return -EINVAL;

	p = skip_spaces(colon + 1);
	if (p > end)
		p = end;
	len = strspn(p, "0123456789");
	if (p + len > end)
		len = (size_t)(end - p);
	r = parse_digits(p, len, 10, &m.value);
	if (r < 0)
		return r;
	p += len;

	if (p < end) {
		p = skip_spaces(p);
		if ((size_t)(end - p) != 2 || strncmp(p, "kB", 2) != 0)
			return -EINVAL;
		m.kb = true;
	}

	*ret = m;
	return 0;
}

int pmemram_parse_meminfo_value(const char *text, const char *key, uint64_t *ret_bytes)
{
	if (!text || !key || !ret_bytes)
		return -EINVAL;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		struct pmemram_meminfo_line m;
		char line[256];
		int r;

		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (nl ? 1 : 0);

		if (len == 0)
			continue;
		r = pmemram_parse_meminfo_line(line, &m);
		if (r < 0)
			return r;
		if (!streq(m.key, key))
			continue;

		if (m.kb) {
			if (m.value > UINT64_MAX / 1024)
				return -ERANGE;
			m.value *= 1024;
		}
		*ret_bytes = m.value;
		return 0;
	}
	return -ENODATA;
}

int pmemram_parse_log_priority(const char *s, int *ret)
{
	static const struct {
		const char *name;
		int priority;
	} names[] = {
		{ "emerg", LOG_EMERG },	    { "alert", LOG_ALERT },	{ "crit", LOG_CRIT },
		{ "err", LOG_ERR },	    { "error", LOG_ERR },	{ "warning", LOG_WARNING },
		{ "notice", LOG_NOTICE },   { "info", LOG_INFO },	{ "debug", LOG_DEBUG },
	};
	uint64_t v;

	if (!s || !ret)
		return -EINVAL;

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (streq(s, names[i].name)) {
			*ret = names[i].priority;
			return 0;
		}

	if (pmemram_parse_u64(s, 10, &v) < 0 || v > LOG_DEBUG)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

bool pmemram_nodemask_test(const struct pmemram_nodemask *m, unsigned node)
{
	if (!m || node >= PMEMRAM_MAX_NODES)
		return false;
	return m->bits[node / 64] & (UINT64_C(1) << (node % 64));
}

void pmemram_nodemask_set(struct pmemram_nodemask *m, unsigned node)
{
	if (m && node < PMEMRAM_MAX_NODES)
		m->bits[node / 64] |= UINT64_C(1) << (node % 64);
}

unsigned pmemram_nodemask_weight(const struct pmemram_nodemask *m)
{
	unsigned w = 0;

	if (!m)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(m->bits); i++)
		w += (unsigned)__builtin_popcountll(m->bits[i]);
	return w;
}

int pmemram_nodemask_next(const struct pmemram_nodemask *m, unsigned from)
{
	if (!m)
		return -1;
	for (unsigned n = from; n < PMEMRAM_MAX_NODES; n++)
		if (pmemram_nodemask_test(m, n))
			return (int)n;
	return -1;
}

int pmemram_nodemask_format(const struct pmemram_nodemask *m, char *buf, size_t size)
{
	size_t len = 0;

	if (!m || !buf || size == 0)
		return -EINVAL;

	buf[0] = '\0';
	for (int first = pmemram_nodemask_next(m, 0), last; first >= 0; first = pmemram_nodemask_next(m, last + 1)) {
		int k;

		/* Runs of two are "0-1" too, as the kernel prints them. */
		for (last = first; pmemram_nodemask_test(m, (unsigned)last + 1);)
			last++;
		if (last == first)
			k = snprintf(buf + len, size - len, "%s%d", len > 0 ? "," : "", first);
		else
			k = snprintf(buf + len, size - len, "%s%d-%d", len > 0 ? "," : "", first, last);
		if (k < 0 || (size_t)k >= size - len) {
			buf[0] = '\0';
			return -ENAMETOOLONG;
		}
		len += (size_t)k;
	}
	return 0;
}
