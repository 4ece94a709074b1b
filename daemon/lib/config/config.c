/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pmemram.conf parser: pure string parsing with file:line:key messages and the checks across files. */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

#define QUOTE_MAX 64 /* bytes of a user's value repeated in a message */

static const char *const shuffle_names[_PMEMRAM_CONFIG_SHUFFLE_MAX] = {
	[PMEMRAM_CONFIG_SHUFFLE_AUTO] = "auto",
	[PMEMRAM_CONFIG_SHUFFLE_ON] = "on",
	[PMEMRAM_CONFIG_SHUFFLE_OFF] = "off",
	[PMEMRAM_CONFIG_SHUFFLE_NODES] = "nodes",
};

static const char *const hotplug_names[_PMEMRAM_CONFIG_HOTPLUG_MAX] = {
	[PMEMRAM_CONFIG_HOTPLUG_KEEP] = "keep",
	[PMEMRAM_CONFIG_HOTPLUG_OFFLINE] = "offline",
	[PMEMRAM_CONFIG_HOTPLUG_MOVABLE] = "movable",
	[PMEMRAM_CONFIG_HOTPLUG_AUTO_MOVABLE] = "auto-movable",
};

static const char *const switch_names[_PMEMRAM_CONFIG_SWITCH_MAX] = {
	[PMEMRAM_CONFIG_SWITCH_KEEP] = "keep",
	[PMEMRAM_CONFIG_SWITCH_ON] = "on",
	[PMEMRAM_CONFIG_SWITCH_OFF] = "off",
};

static const char *const match_names[_PMEMRAM_MATCH_MAX] = {
	[PMEMRAM_MATCH_UUID] = "uuid",
	[PMEMRAM_MATCH_DEVICE] = "device",
	[PMEMRAM_MATCH_HMEM_RANGE] = "hmem",
	[PMEMRAM_MATCH_REGION] = "region",
	[PMEMRAM_MATCH_CXL_REGION] = "cxl-region",
	[PMEMRAM_MATCH_CXL_MEMDEV] = "cxl-memdev",
	[PMEMRAM_MATCH_HMEM_NODE] = "hmem",
	[PMEMRAM_MATCH_ALL_DEVDAX] = "all-devdax",
};

static const char *const online_names[] = { "movable", "normal" };
static const enum pmemram_zone online_zones[ELEMENTSOF(online_names)] = { PMEMRAM_ZONE_MOVABLE,
									  PMEMRAM_ZONE_NORMAL };
static const char *const bool_names[] = { "no", "yes" };

/* The words of the nodes key come first, in enum order: "list" is only ever printed. */
static const char *const class_nodes_names[_PMEMRAM_CLASS_NODES_MAX] = {
	[PMEMRAM_CLASS_NODES_DRAM] = "dram",
	[PMEMRAM_CLASS_NODES_PMEM] = "pmem",
	[PMEMRAM_CLASS_NODES_ALL] = "all",
	[PMEMRAM_CLASS_NODES_LOWEST_LATENCY] = "lowest-latency",
	[PMEMRAM_CLASS_NODES_HIGHEST_BANDWIDTH] = "highest-bandwidth",
	[PMEMRAM_CLASS_NODES_LIST] = "list",
};

static const char *const class_mode_names[_PMEMRAM_CLASS_MODE_MAX] = {
	[PMEMRAM_CLASS_BIND] = "bind",
	[PMEMRAM_CLASS_PREFERRED] = "preferred",
	[PMEMRAM_CLASS_INTERLEAVE] = "interleave",
	[PMEMRAM_CLASS_WEIGHTED_INTERLEAVE] = "weighted-interleave",
};

const char *pmemram_config_shuffle_to_string(enum pmemram_config_shuffle s)
{
	return (unsigned)s < ELEMENTSOF(shuffle_names) ? shuffle_names[s] : NULL;
}

const char *pmemram_config_hotplug_to_string(enum pmemram_config_hotplug h)
{
	return (unsigned)h < ELEMENTSOF(hotplug_names) ? hotplug_names[h] : NULL;
}

enum pmemram_config_shuffle pmemram_config_shuffle_policy(const struct pmemram_config *c)
{
	return c->shuffle_nodes_set.file >= 0 ? PMEMRAM_CONFIG_SHUFFLE_NODES : c->shuffle;
}

struct pmemram_config_origin pmemram_config_shuffle_origin(const struct pmemram_config *c)
{
	return c->shuffle_nodes_set.file >= 0 ? c->shuffle_nodes_set : c->shuffle_set;
}

const char *pmemram_config_switch_to_string(enum pmemram_config_switch d)
{
	return (unsigned)d < ELEMENTSOF(switch_names) ? switch_names[d] : NULL;
}

const char *pmemram_class_nodes_to_string(enum pmemram_class_nodes n)
{
	return (unsigned)n < ELEMENTSOF(class_nodes_names) ? class_nodes_names[n] : NULL;
}

const char *pmemram_class_mode_to_string(enum pmemram_class_mode m)
{
	return (unsigned)m < ELEMENTSOF(class_mode_names) ? class_mode_names[m] : NULL;
}

const char *pmemram_config_online_to_string(enum pmemram_zone z)
{
	for (size_t i = 0; i < ELEMENTSOF(online_zones); i++)
		if (online_zones[i] == z)
			return online_names[i];
	return NULL;
}

const char *pmemram_match_to_string(enum pmemram_match m)
{
	return (unsigned)m < ELEMENTSOF(match_names) ? match_names[m] : NULL;
}

/* ---- messages ---------------------------------------------------------------- */

/* Append "FILE:LINE: message" ("FILE: message" for line 0), truncated to PMEMRAM_CONFIG_ERROR_MAX. */
/* A message cut at its buffer's end may end inside a UTF-8 character (of a user's value): drop the
 * partial character, so that the message stays UTF-8 for the journal and JSON. */
static void utf8_cut(char *s)
{
	size_t len = strlen(s), start = len;

	/* Back over continuation bytes, at most 3, to where the last character starts. */
	while (start > 0 && len - start < 3 && ((unsigned char)s[start - 1] & 0xc0) == 0x80)
		start--;
	if (start > 0 && ((unsigned char)s[start - 1] & 0xc0) == 0xc0 && pmemram_utf8_char_len(s + start - 1) == 0)
		s[start - 1] = '\0';
}

_printf_(4, 0) static void add_errorv(struct pmemram_config_errors *errors, const char *file, unsigned line,
				     const char *format, va_list args)
{
	size_t size = sizeof(errors->msg[0]);
	char *m;
	int n;

	if (!errors)
		return;
	if (errors->n >= PMEMRAM_CONFIG_MAX_ERRORS) {
		errors->n_dropped++;
		return;
	}

	m = errors->msg[errors->n++];
	n = line > 0 ? snprintf(m, size, "%s:%u: ", file, line) : snprintf(m, size, "%s: ", file);
	if (n >= 0 && (size_t)n < size)
		vsnprintf(m + n, size - (size_t)n, format, args);
	utf8_cut(m);
}

void pmemram_config_errors_add(struct pmemram_config_errors *errors, const char *file, unsigned line,
			       const char *format, ...)
{
	va_list args;

	va_start(args, format);
	add_errorv(errors, file, line, format, args);
	va_end(args);
}

/* A user's text made safe to repeat, in a journal, a terminal or JSON: at most QUOTE_MAX bytes,
 * whole UTF-8 characters only, control characters and bytes that are not UTF-8 as '?'. */
static const char *quote(const char *s, char buf[static QUOTE_MAX + 4])
{
	size_t i = 0, o = 0;

	while (s[i]) {
		size_t n = pmemram_utf8_char_len(s + i);

		if (n == 0 || (n == 1 && iscntrl((unsigned char)s[i]))) {
			n = 1; /* replaced by one '?' */
			if (o + 1 > QUOTE_MAX)
				break;
			buf[o++] = '?';
		} else {
			if (o + n > QUOTE_MAX)
				break;
			memcpy(buf + o, s + i, n);
			o += n;
		}
		i += n;
	}
	strcpy(buf + o, s[i] ? "..." : "");
	return buf;
}

const char *pmemram_config_origin_to_string(const struct pmemram_config *c, struct pmemram_config_origin o,
					    char *buf, size_t size)
{
	if (!c || !buf || size == 0)
		return NULL;
	if (o.file < 0 || (size_t)o.file >= c->n_files)
		snprintf(buf, size, "(default)");
	else
		snprintf(buf, size, "%s:%u", c->files[o.file], o.line);
	return buf;
}

/* ---- value syntax ---------------------------------------------------------------- */

int pmemram_uuid_normalize(char *uuid)
{
	static const unsigned groups[] = { 8, 4, 4, 4, 12 };
	const char *p = uuid;

	if (!uuid)
		return -EINVAL;
	for (size_t g = 0; g < ELEMENTSOF(groups); g++) {
		for (unsigned i = 0; i < groups[g]; i++, p++)
			if (!isxdigit((unsigned char)*p))
				return -EINVAL;
		if (*p != (g + 1 < ELEMENTSOF(groups) ? '-' : '\0'))
			return -EINVAL;
		p++;
	}

	for (char *q = uuid; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return 0;
}

/* prefix followed by at least one digit and, with dot, ".digits": "region0", "dax0.0". */
static bool name_is_valid(const char *s, const char *prefix, bool dot)
{
	size_t n = strlen(prefix), d;

	if (strncmp(s, prefix, n) != 0)
		return false;
	s += n;
	d = strspn(s, "0123456789");
	if (d == 0 || d > 9)
		return false;
	s += d;
	if (!dot)
		return *s == '\0';
	if (*s != '.')
		return false;
	d = strspn(++s, "0123456789");
	return d > 0 && d <= 9 && s[d] == '\0';
}

/* A CXL memdev serial as sysfs prints it ("0x5eed0001") or as cxl list does (decimal), rewritten
 * in sysfs's form so that one serial claimed twice is seen as such; false when not a number, or 0
 * (what a device without a serial number shows). */
static bool serial_normalize(char *s, size_t size)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	uint64_t v;

	if (pmemram_parse_u64(s, hex ? 16 : 10, &v) < 0 || v == 0)
		return false;
	return snprintf(s, size, "%#" PRIx64, v) < (int)size;
}

/* 1 to max - 1 bytes, each a letter, a digit or one of extra. */
static bool section_name_is_valid(const char *s, size_t len, size_t max, const char *extra)
{
	if (len == 0 || len >= max)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return false;
	return true;
}

/* ---- parser state ------------------------------------------------------------------ */

enum section {
	SECTION_NONE,	 /* before the first header */
	SECTION_SKIP,	 /* after a malformed header: its keys are not checked */
	SECTION_GLOBAL,
	SECTION_CLAIM,
	SECTION_CLASS,
	_SECTION_MAX,
};

/* As in the messages' "[global]", "[claim]". */
static const char *const section_names[_SECTION_MAX] = {
	[SECTION_GLOBAL] = "global",
	[SECTION_CLAIM] = "claim",
	[SECTION_CLASS] = "class",
};

struct parser {
	struct pmemram_config *config;
	struct pmemram_config_errors *errors;
	const char *file;
	int file_index;
	unsigned line;
	enum section section;
	struct pmemram_claim *claim; /* SECTION_CLAIM */
	struct pmemram_class *class; /* SECTION_CLASS */
	int result;		     /* 0, -EINVAL after a message, -ENOMEM */
};

_printf_(2, 3) static void parse_error(struct parser *p, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	add_errorv(p->errors, p->file, p->line, format, args);
	va_end(args);
	if (p->result == 0)
		p->result = -EINVAL;
}

/* "'a', 'b' or 'c'" for messages. */
static const char *choices(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s'%s'",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return buf;
}

/* Index of value in names, or -1 after an "expected ..., got ..." message. */
static int parse_choice(struct parser *p, const char *key, const char *value, const char *const *names, size_t n)
{
	char expected[128], q[QUOTE_MAX + 4];

	for (size_t i = 0; i < n; i++)
		if (streq(value, names[i]))
			return (int)i;
	parse_error(p, "key '%s': expected %s, got '%s'", key, choices(names, n, expected, sizeof(expected)),
		    quote(value, q));
	return -1;
}

/* A key may be set once per file; later files override. */
static bool set_once(struct parser *p, const char *key, struct pmemram_config_origin *o)
{
	if (o->file == p->file_index) {
		parse_error(p, "key '%s': already set at line %u", key, o->line);
		return false;
	}
	*o = (struct pmemram_config_origin){ .file = p->file_index, .line = p->line };
	return true;
}

static void key_shuffle(struct parser *p, const char *key, const char *value)
{
	/* "nodes" is shuffle-nodes' policy, not a value of shuffle */
	int i = parse_choice(p, key, value, shuffle_names, PMEMRAM_CONFIG_SHUFFLE_NODES);

	if (i >= 0 && set_once(p, key, &p->config->shuffle_set))
		p->config->shuffle = (enum pmemram_config_shuffle)i;
}

static void key_hotplug_policy(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, hotplug_names, _PMEMRAM_CONFIG_HOTPLUG_MAX);

	if (i >= 0 && set_once(p, key, &p->config->hotplug_set))
		p->config->hotplug = (enum pmemram_config_hotplug)i;
}

/* "1,3" or "0-2,5": node numbers and ranges FIRST-LAST, comma-separated, each node once. */
/* The longest shuffle-nodes value taken: a list of nodes, not a bitmap dump. */
#define SHUFFLE_NODES_MAX 63

static void key_shuffle_nodes(struct parser *p, const char *key, const char *value)
{
	struct pmemram_nodemask list = {};
	char q[QUOTE_MAX + 4];
	const char *s = value;

	if (!*value) {
		parse_error(p, "key '%s': expected a node list like '1,3' or '1-2', got ''", key);
		return;
	}
	if (strlen(value) > SHUFFLE_NODES_MAX) {
		parse_error(p, "key '%s': node list longer than %d characters", key, SHUFFLE_NODES_MAX);
		return;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		struct pmemram_nodemask one;
		char token[SHUFFLE_NODES_MAX + 1];
		int r;

		memcpy(token, s, len);
		token[len] = '\0';
		r = len > 0 && !isspace((unsigned char)token[0]) && !isspace((unsigned char)token[len - 1])
			    ? pmemram_parse_range_list(token, &one)
			    : -EINVAL;
		if (r == -ERANGE) {
			parse_error(p, "key '%s': node numbers go up to %d, got '%s'", key, PMEMRAM_MAX_NODES - 1,
				    quote(token, q));
			return;
		}
		if (r < 0) {
			parse_error(p,
				    "key '%s': '%s' is not a node number or a range FIRST-LAST (expected a list "
				    "like '1,3' or '1-2')",
				    key, quote(token, q));
			return;
		}
		PMEMRAM_NODEMASK_FOREACH(n, &one)
			if (pmemram_nodemask_test(&list, (unsigned)n)) {
				parse_error(p, "key '%s': node %d is listed twice ('%s')", key, n, quote(token, q));
				return;
			}
		PMEMRAM_NODEMASK_FOREACH(n, &one)
			pmemram_nodemask_set(&list, (unsigned)n);
		if (!s[len])
			break;
		s += len + 1;
	}

	if (!set_once(p, key, &p->config->shuffle_nodes_set))
		return;
	p->config->shuffle_nodes = list;
}

/* One hex address of an hmem range: digits with or without "0x", nothing else. */
static int parse_address(const char *s, size_t len, uint64_t *ret)
{
	char buf[24];

	if (len == 0 || len >= sizeof(buf) || strspn(s, "0123456789abcdefABCDEFxX") < len)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return pmemram_parse_u64(buf, 16, ret);
}

int pmemram_parse_hmem_match(const char *value, enum pmemram_match *ret_match, struct pmemram_claim *claim)
{
	uint64_t start, end;
	const char *dash;
	int node, r;

	if (!value || !ret_match || !claim)
		return -EINVAL;
	if (strncmp(value, "node=", 5) == 0) {
		/* digits only: no sign, no blank, no leading '+' */
		if (!isdigit((unsigned char)value[5]) || strspn(value + 5, "0123456789") != strlen(value + 5))
			return -EINVAL;
		r = pmemram_parse_int(value + 5, &node);
		if (r < 0 || node >= PMEMRAM_MAX_NODES)
			return -ERANGE;
		*ret_match = PMEMRAM_MATCH_HMEM_NODE;
		claim->node = node;
		(void)snprintf(claim->match_value, sizeof(claim->match_value), "node=%d", node);
		return 0;
	}

	dash = strchr(value, '-');
	if (!dash || parse_address(value, (size_t)(dash - value), &start) < 0 ||
	    parse_address(dash + 1, strlen(dash + 1), &end) < 0)
		return -EINVAL;
	if (end <= start)
		return -ERANGE;
	*ret_match = PMEMRAM_MATCH_HMEM_RANGE;
	claim->range_start = start;
	claim->range_end = end;
	(void)snprintf(claim->match_value, sizeof(claim->match_value), "0x%" PRIx64 "-0x%" PRIx64, start, end);
	return 0;
}

/* "match = hmem:...": see pmemram_parse_hmem_match(). */
static void key_match_hmem(struct parser *p, const char *key, const char *value)
{
	struct pmemram_claim parsed = {};
	enum pmemram_match match;
	char q[QUOTE_MAX + 4];
	int r;

	r = pmemram_parse_hmem_match(value, &match, &parsed);
	if (r == -ERANGE && strncmp(value, "node=", 5) == 0) {
		parse_error(p, "key '%s': hmem node '%s' out of range (0 to %d)", key, quote(value + 5, q),
			    PMEMRAM_MAX_NODES - 1);
		return;
	}
	if (r == -ERANGE) {
		parse_error(p, "key '%s': hmem range '%s' is empty (END must lie above START)", key, quote(value, q));
		return;
	}
	if (r < 0) {
		parse_error(p,
			    "key '%s': invalid hmem match '%s' (expected 'hmem:START-END', hex addresses as "
			    "/proc/iomem prints them, or 'hmem:node=N')",
			    key, quote(value, q));
		return;
	}
	if (!set_once(p, key, &p->claim->match_set))
		return;
	p->claim->match = match;
	strcpy(p->claim->match_value, parsed.match_value);
	p->claim->range_start = parsed.range_start;
	p->claim->range_end = parsed.range_end;
	p->claim->node = parsed.node;
}

static void key_match(struct parser *p, const char *key, const char *value)
{
	static const struct {
		enum pmemram_match match;
		const char *prefix; /* "uuid:" */
		const char *what;
	} kinds[] = {
		{ PMEMRAM_MATCH_UUID, "uuid:", "UUID (8-4-4-4-12 hex digits)" },
		{ PMEMRAM_MATCH_DEVICE, "device:", "dax device name (daxX.Y)" },
		{ PMEMRAM_MATCH_REGION, "region:", "region name (regionN)" },
		{ PMEMRAM_MATCH_CXL_REGION, "cxl-region:", "CXL region name (regionN)" },
		{ PMEMRAM_MATCH_CXL_MEMDEV, "cxl-memdev:", "CXL memdev serial number (0xHEX or decimal)" },
	};
	char q[QUOTE_MAX + 4], v[PMEMRAM_CONFIG_NAME_MAX];

	if (strncmp(value, "hmem:", 5) == 0) {
		key_match_hmem(p, key, value + 5);
		return;
	}
	if (streq(value, "all-devdax")) {
		if (set_once(p, key, &p->claim->match_set)) {
			p->claim->match = PMEMRAM_MATCH_ALL_DEVDAX;
			p->claim->match_value[0] = '\0';
		}
		return;
	}

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		size_t n = strlen(kinds[i].prefix);
		bool ok;

		if (strncmp(value, kinds[i].prefix, n) != 0)
			continue;

		ok = strlen(value + n) < sizeof(v);
		if (ok) {
			strcpy(v, value + n);
			if (kinds[i].match == PMEMRAM_MATCH_UUID)
				ok = pmemram_uuid_normalize(v) >= 0;
			else if (kinds[i].match == PMEMRAM_MATCH_CXL_MEMDEV)
				ok = serial_normalize(v, sizeof(v));
			else
				ok = name_is_valid(v, kinds[i].match == PMEMRAM_MATCH_DEVICE ? "dax" : "region",
						   kinds[i].match == PMEMRAM_MATCH_DEVICE);
		}
		if (!ok) {
			parse_error(p, "key '%s': invalid %s '%s'", key, kinds[i].what, quote(value + n, q));
			return;
		}
		if (set_once(p, key, &p->claim->match_set)) {
			p->claim->match = kinds[i].match;
			strcpy(p->claim->match_value, v);
		}
		return;
	}

	parse_error(p,
		    "key '%s': expected 'uuid:UUID', 'device:daxX.Y', 'region:regionN', 'hmem:START-END', "
		    "'hmem:node=N', 'cxl-region:regionN', 'cxl-memdev:SERIAL' or 'all-devdax', got '%s'",
		    key, quote(value, q));
}

static void key_online(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, online_names, ELEMENTSOF(online_names));

	if (i >= 0 && set_once(p, key, &p->claim->zone_set))
		p->claim->zone = online_zones[i];
}

static void key_convert(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, bool_names, ELEMENTSOF(bool_names));

	if (i >= 0 && set_once(p, key, &p->claim->convert_set))
		p->claim->convert = i == 1;
}

static void key_create(struct parser *p, const char *key, const char *value)
{
	static const char *const create_names[] = { "devdax" };
	int i = parse_choice(p, key, value, create_names, ELEMENTSOF(create_names));

	if (i >= 0 && set_once(p, key, &p->claim->create_set))
		p->claim->create = true;
}

static const char *const region_kind_names[_PMEMRAM_REGION_KIND_MAX] = {
	[PMEMRAM_REGION_NONE] = "no",
	[PMEMRAM_REGION_PMEM] = "pmem",
	[PMEMRAM_REGION_RAM] = "ram",
};

const char *pmemram_region_kind_to_string(enum pmemram_region_kind k)
{
	return (unsigned)k < ELEMENTSOF(region_kind_names) ? region_kind_names[k] : NULL;
}

static void key_create_region(struct parser *p, const char *key, const char *value)
{
	/* "no" is not a value: a claim without the key makes none */
	int i = parse_choice(p, key, value, region_kind_names + 1, ELEMENTSOF(region_kind_names) - 1);

	if (i >= 0 && set_once(p, key, &p->claim->create_region_set))
		p->claim->create_region = (enum pmemram_region_kind)(i + 1);
}

static void key_online_at_bind(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, bool_names, ELEMENTSOF(bool_names));

	if (i >= 0 && set_once(p, key, &p->config->online_at_bind_set))
		p->config->online_at_bind = i == 1;
}

static void key_daxctl_conf(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, bool_names, ELEMENTSOF(bool_names));

	if (i >= 0 && set_once(p, key, &p->config->daxctl_conf_set))
		p->config->daxctl_conf = i == 1;
}

/* A keep | on | off key into *field, once. */
static void key_switch(struct parser *p, const char *key, const char *value, enum pmemram_config_switch *field,
		       struct pmemram_config_origin *set)
{
	int i = parse_choice(p, key, value, switch_names, ELEMENTSOF(switch_names));

	if (i >= 0 && set_once(p, key, set))
		*field = (enum pmemram_config_switch)i;
}

static void key_demotion(struct parser *p, const char *key, const char *value)
{
	key_switch(p, key, value, &p->config->demotion, &p->config->demotion_set);
}

static void key_promotion(struct parser *p, const char *key, const char *value)
{
	key_switch(p, key, value, &p->config->promotion, &p->config->promotion_set);
}

static void key_promotion_rate(struct parser *p, const char *key, const char *value)
{
	char q[QUOTE_MAX + 4];
	uint64_t rate;

	/* The kernel keeps it in an unsigned int of MB/s. */
	if (pmemram_parse_u64(value, 10, &rate) < 0 || rate == 0 || rate > UINT32_MAX) {
		parse_error(p, "key '%s': expected MB/s, a whole number from 1 to %u, got '%s'", key, UINT32_MAX,
			    quote(value, q));
		return;
	}
	if (set_once(p, key, &p->config->promotion_rate_set))
		p->config->promotion_rate = rate;
}

static void key_nodes(struct parser *p, const char *key, const char *value)
{
	struct pmemram_nodemask list = {};
	char q[QUOTE_MAX + 4];
	int kind = -1, r;

	/* A list starts with a node number; anything else must be one of the words. */
	if (isdigit((unsigned char)value[0])) {
		r = pmemram_parse_range_list(value, &list);
		if (r == -ERANGE) {
			parse_error(p, "key '%s': node numbers go up to %d, got '%s'", key, PMEMRAM_MAX_NODES - 1,
				    quote(value, q));
			return;
		}
		if (r < 0) {
			parse_error(p, "key '%s': invalid node list '%s' (expected numbers and ranges, like '0,2-3')",
				    key, quote(value, q));
			return;
		}
		/* The text is kept for messages and status; a list that long is better written with ranges. */
		if (strlen(value) >= sizeof(p->class->nodes_text)) {
			parse_error(p, "key '%s': node list longer than %zu characters", key,
				    sizeof(p->class->nodes_text) - 1);
			return;
		}
		kind = PMEMRAM_CLASS_NODES_LIST;
	} else {
		for (int i = 0; i < PMEMRAM_CLASS_NODES_LIST; i++)
			if (streq(value, class_nodes_names[i]))
				kind = i;
		if (kind < 0) {
			parse_error(p, "key '%s': expected 'dram', 'pmem', 'all', 'lowest-latency', 'highest-bandwidth' "
				    "or a node list like '0,2-3', got '%s'", key, quote(value, q));
			return;
		}
	}

	if (!set_once(p, key, &p->class->nodes_set))
		return;
	p->class->nodes = (enum pmemram_class_nodes)kind;
	p->class->list = list;
	strcpy(p->class->nodes_text, value);
}

static void key_mode(struct parser *p, const char *key, const char *value)
{
	int i = parse_choice(p, key, value, class_mode_names, ELEMENTSOF(class_mode_names));

	if (i >= 0 && set_once(p, key, &p->class->mode_set))
		p->class->mode = (enum pmemram_class_mode)i;
}

/* "hmat", or NODE:WEIGHT pairs separated by commas, each node once, weights 1-255. */
static void key_weights(struct parser *p, const char *key, const char *value)
{
	struct pmemram_class_weight list[PMEMRAM_CLASS_WEIGHTS_MAX];
	char q[QUOTE_MAX + 4];
	const char *s = value;
	size_t n = 0;

	if (streq(value, "hmat")) {
		if (set_once(p, key, &p->class->weights_set)) {
			p->class->weights_hmat = true;
			p->class->n_weights = 0;
		}
		return;
	}
	for (;;) {
		unsigned long node, weight;
		char *end;

		if (n == PMEMRAM_CLASS_WEIGHTS_MAX) {
			parse_error(p, "key '%s': more than %d NODE:WEIGHT pairs in '%s'", key,
				    PMEMRAM_CLASS_WEIGHTS_MAX, quote(value, q));
			return;
		}
		errno = 0;
		node = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : ULONG_MAX;
		if (node == ULONG_MAX || errno || *end != ':' || end[1] < '0' || end[1] > '9')
			goto bad;
		weight = strtoul(end + 1, &end, 10);
		if (errno || (*end && *end != ','))
			goto bad;
		if (node >= PMEMRAM_MAX_NODES || weight < 1 || weight > PMEMRAM_CLASS_WEIGHT_MAX) {
			parse_error(p, "key '%s': in '%s', node %lu weight %lu: nodes 0 to %d, weights 1 to %d", key,
				    quote(value, q), node, weight, PMEMRAM_MAX_NODES - 1, PMEMRAM_CLASS_WEIGHT_MAX);
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (list[i].node == node) {
				parse_error(p, "key '%s': node %lu given twice in '%s'", key, node, quote(value, q));
				return;
			}
		list[n++] = (struct pmemram_class_weight){ .node = (unsigned)node, .weight = (unsigned)weight };
		if (!*end)
			break;
		s = end + 1;
	}
	if (!set_once(p, key, &p->class->weights_set))
		return;
	p->class->weights_hmat = false;
	p->class->n_weights = n;
	memcpy(p->class->weights, list, n * sizeof(list[0]));
	return;
bad:
	parse_error(p, "key '%s': expected 'hmat' or NODE:WEIGHT pairs like '0:3,2:1', got '%s'", key, quote(value, q));
}

static void key_protect(struct parser *p, const char *key, const char *value)
{
	char q[QUOTE_MAX + 4];
	uint64_t bytes;
	int r;

	r = pmemram_parse_size(value, &bytes);
	if (r == -ERANGE) {
		parse_error(p, "key '%s': '%s' is more bytes than 64 bits hold", key, quote(value, q));
		return;
	}
	if (r < 0) {
		parse_error(p, "key '%s': expected a size like '512M' or '2G' (0 for none), got '%s'", key,
			    quote(value, q));
		return;
	}
	if (set_once(p, key, &p->class->protect_set))
		p->class->protect = bytes;
}

static const struct key_def {
	enum section section;
	const char *name;
	void (*parse)(struct parser *p, const char *key, const char *value);
} keys[] = {
	/* clang-format off */
	{ SECTION_GLOBAL, "shuffle", key_shuffle },
	{ SECTION_GLOBAL, "shuffle-nodes", key_shuffle_nodes },
	{ SECTION_GLOBAL, "hotplug-policy", key_hotplug_policy },
	{ SECTION_GLOBAL, "demotion", key_demotion },
	{ SECTION_GLOBAL, "online-at-bind", key_online_at_bind },
	{ SECTION_GLOBAL, "promotion", key_promotion },
	{ SECTION_GLOBAL, "promotion-rate", key_promotion_rate },
	{ SECTION_GLOBAL, "daxctl-conf", key_daxctl_conf },
	{ SECTION_CLAIM, "match", key_match },
	{ SECTION_CLAIM, "online", key_online },
	{ SECTION_CLAIM, "convert", key_convert },
	{ SECTION_CLAIM, "create", key_create },
	{ SECTION_CLAIM, "create-region", key_create_region },
	{ SECTION_CLASS, "nodes", key_nodes },
	{ SECTION_CLASS, "mode", key_mode },
	{ SECTION_CLASS, "protect", key_protect },
	{ SECTION_CLASS, "weights", key_weights },
	/* clang-format on */
};

/* ---- lines ------------------------------------------------------------------------ */

static struct pmemram_claim *find_claim(struct pmemram_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_claims; i++)
		if (streq(c->claims[i].name, name))
			return &c->claims[i];
	return NULL;
}

const struct pmemram_claim *pmemram_config_find_claim(const struct pmemram_config *c, const char *name)
{
	if (!c || !name)
		return NULL;
	return find_claim((struct pmemram_config *)c, name);
}

static struct pmemram_class *find_class(struct pmemram_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_classes; i++)
		if (streq(c->classes[i].name, name))
			return &c->classes[i];
	return NULL;
}

const struct pmemram_class *pmemram_config_find_class(const struct pmemram_config *c, const char *name)
{
	if (!c || !name)
		return NULL;
	return find_class((struct pmemram_config *)c, name);
}

/* array (n elements of size bytes) with room for one more, or NULL after a message (past max)
 * or with -ENOMEM; array itself stays valid either way. */
static void *grow(struct parser *p, void *array, size_t n, size_t size, size_t max, const char *kind,
		  const char *name)
{
	void *a;

	if (n >= max) {
		parse_error(p, "%s '%s': more than %zu %s", kind, name, max,
			    streq(kind, "class") ? "classes" : "claims");
		return NULL;
	}
	a = realloc(array, (n + 1) * size);
	if (!a)
		p->result = -ENOMEM;
	return a;
}

static bool add_claim(struct parser *p, const char *name)
{
	struct pmemram_config *c = p->config;
	struct pmemram_claim *claims;

	claims = grow(p, c->claims, c->n_claims, sizeof(*claims), PMEMRAM_CONFIG_MAX_CLAIMS, "claim", name);
	if (!claims)
		return false;
	c->claims = claims;
	claims[c->n_claims] = (struct pmemram_claim){
		.zone = PMEMRAM_ZONE_MOVABLE,
		.match_set.file = -1,
		.zone_set.file = -1,
		.convert_set.file = -1,
		.create_set.file = -1,
		.create_region_set.file = -1,
		.defined = { .file = p->file_index, .line = p->line },
	};
	strcpy(claims[c->n_claims].name, name);
	p->claim = &claims[c->n_claims++];
	return true;
}

static bool add_class(struct parser *p, const char *name)
{
	struct pmemram_config *c = p->config;
	struct pmemram_class *classes;

	classes = grow(p, c->classes, c->n_classes, sizeof(*classes), PMEMRAM_CONFIG_MAX_CLASSES, "class", name);
	if (!classes)
		return false;
	c->classes = classes;
	classes[c->n_classes] = (struct pmemram_class){
		.mode = PMEMRAM_CLASS_BIND,
		.nodes_set.file = -1,
		.mode_set.file = -1,
		.protect_set.file = -1,
		.weights_set.file = -1,
		.weights_hmat = true,
		.defined = { .file = p->file_index, .line = p->line },
	};
	strcpy(classes[c->n_classes].name, name);
	p->class = &classes[c->n_classes++];
	return true;
}

/* A claim or class seen before: a later file reopens it and the keys it sets override, but
 * within one file it is defined once. */
static bool reopen(struct parser *p, const char *kind, const char *name, struct pmemram_config_origin *defined)
{
	if (defined->file == p->file_index) {
		parse_error(p, "%s '%s': defined twice in this file (first at line %u)", kind, name, defined->line);
		return false;
	}
	*defined = (struct pmemram_config_origin){ .file = p->file_index, .line = p->line };
	return true;
}

static bool open_claim(struct parser *p, const char *name)
{
	p->claim = find_claim(p->config, name);
	return p->claim ? reopen(p, "claim", name, &p->claim->defined) : add_claim(p, name);
}

static bool open_class(struct parser *p, const char *name)
{
	p->class = find_class(p->config, name);
	return p->class ? reopen(p, "class", name, &p->class->defined) : add_class(p, name);
}

bool pmemram_class_name_is_valid(const char *name)
{
	return name && section_name_is_valid(name, strlen(name), PMEMRAM_CLASS_NAME_MAX, "_");
}

/* Sections that name an object: [claim "NAME"], [class "NAME"]. */
static const struct named_section {
	enum section section;
	size_t name_max;   /* with the NUL */
	const char *extra; /* characters allowed besides letters and digits */
	const char *rule;  /* the same, for messages */
	bool (*open)(struct parser *p, const char *name);
} named_sections[] = {
	{ SECTION_CLAIM, PMEMRAM_CONFIG_NAME_MAX, "._-", "letters, digits, '.', '_' or '-'", open_claim },
	/* The class name goes into a slice name, where '-' means nesting. */
	{ SECTION_CLASS, PMEMRAM_CLASS_NAME_MAX, "_", "letters, digits or '_'", open_class },
};

/* "[global]", "[claim "NAME"]" or "[class "NAME"]"; line is trimmed and starts with '['. */
static void parse_section(struct parser *p, char *line)
{
	const struct named_section *s = NULL;
	size_t len = strlen(line), name_len;
	char q[QUOTE_MAX + 4], *name;
	const char *kind;

	p->section = SECTION_SKIP;
	if (line[len - 1] != ']') {
		parse_error(p, "expected ']' at the end of section header '%s'", quote(line, q));
		return;
	}
	line[--len] = '\0';

	if (streq(line, "[global")) {
		p->section = SECTION_GLOBAL;
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(named_sections) && !s; i++) {
		const char *k = section_names[named_sections[i].section];

		if (strncmp(line + 1, k, strlen(k)) == 0 && line[1 + strlen(k)] == ' ')
			s = &named_sections[i];
	}
	if (!s) {
		parse_error(p, "unknown section '%s]' (expected [global], [claim \"NAME\"] or [class \"NAME\"])",
			    quote(line, q));
		return;
	}

	kind = section_names[s->section];
	name = line + 1 + strlen(kind);
	name += strspn(name, " \t");
	name_len = strlen(name);
	if (name_len < 2 || name[0] != '"' || name[name_len - 1] != '"' ||
	    !section_name_is_valid(name + 1, name_len - 2, s->name_max, s->extra)) {
		parse_error(p, "invalid %s name %s (expected \"NAME\", 1 to %zu %s)", kind, quote(name, q),
			    s->name_max - 1, s->rule);
		return;
	}
	name[name_len - 1] = '\0';
	name++;

	if (s->open(p, name))
		p->section = s->section;
}

char *pmemram_config_strip(char *s)
{
	char *end;

	s += strspn(s, " \t\r");
	end = s + strlen(s);
	while (end > s && strchr(" \t\r", end[-1]))
		*--end = '\0';
	return s;
}

static void parse_line(struct parser *p, char *line)
{
	char q[QUOTE_MAX + 4], known[128] = "", *eq, *key, *value;
	size_t len = 0;

	line = pmemram_config_strip(line);
	if (!*line || *line == '#' || *line == ';')
		return;
	if (*line == '[') {
		parse_section(p, line);
		return;
	}

	eq = strchr(line, '=');
	if (!eq || eq == line) {
		parse_error(p, "expected '[section]' or 'key = value', got '%s'", quote(line, q));
		return;
	}
	*eq = '\0';
	key = pmemram_config_strip(line);
	value = pmemram_config_strip(eq + 1);

	if (p->section == SECTION_SKIP)
		return;
	if (p->section == SECTION_NONE) {
		parse_error(p, "key '%s': outside of any section", quote(key, q));
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (keys[i].section == p->section && streq(keys[i].name, key)) {
			keys[i].parse(p, keys[i].name, value);
			return;
		}

	/* The known keys come from the table, so the message cannot fall behind it. */
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (keys[i].section == p->section)
			len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "",
						keys[i].name);
	parse_error(p, "key '%s': unknown in [%s] (known: %s)", quote(key, q), section_names[p->section], known);
}

int pmemram_config_add_file(struct pmemram_config *c, const char *filename)
{
	char **files, *name;

	files = realloc(c->files, (c->n_files + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	c->files = files;
	name = strdup(filename);
	if (!name)
		return -ENOMEM;
	files[c->n_files++] = name;
	return (int)c->n_files - 1;
}

int pmemram_config_parse(struct pmemram_config *c, const char *filename, const char *text, size_t size,
			 struct pmemram_config_errors *errors)
{
	struct parser p = { .config = c, .errors = errors, .file = filename, .section = SECTION_NONE };
	char buf[PMEMRAM_CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	int r;

	if (!c || !filename || (!text && size > 0))
		return -EINVAL;
	if (c->n_files >= 1 + PMEMRAM_CONFIG_MAX_DROPINS) {
		pmemram_config_errors_add(errors, filename, 0, "more than %d configuration files", 1 + PMEMRAM_CONFIG_MAX_DROPINS);
		return -EINVAL;
	}
	if (size > PMEMRAM_CONFIG_MAX_FILE_SIZE) {
		pmemram_config_errors_add(errors, filename, 0, "larger than %d bytes", PMEMRAM_CONFIG_MAX_FILE_SIZE);
		return -EINVAL;
	}
	r = pmemram_config_add_file(c, filename);
	if (r < 0)
		return r;
	p.file_index = r;

	while (pos < size) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t len = (nl ? (size_t)(nl - text) : size) - pos;

		p.line++;
		if (memchr(text + pos, '\0', len)) {
			parse_error(&p, "contains a NUL byte, not a text file");
			break;
		}
		if (len > PMEMRAM_CONFIG_MAX_LINE)
			parse_error(&p, "line longer than %d bytes", PMEMRAM_CONFIG_MAX_LINE);
		else {
			memcpy(buf, text + pos, len);
			buf[len] = '\0';
			parse_line(&p, buf);
		}
		pos += len + 1;
	}

	return p.result;
}

/* ---- checks over all files --------------------------------------------------------- */

_printf_(4, 5) static void origin_error(const struct pmemram_config *c, struct pmemram_config_errors *errors,
					struct pmemram_config_origin o, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	add_errorv(errors, o.file >= 0 ? c->files[o.file] : "(default)", o.line, format, args);
	va_end(args);
}

static const char *match_string(const struct pmemram_claim *claim, char *buf, size_t size)
{
	if (claim->match == PMEMRAM_MATCH_ALL_DEVDAX)
		snprintf(buf, size, "all-devdax");
	else
		snprintf(buf, size, "%s:%s", match_names[claim->match], claim->match_value);
	return buf;
}

int pmemram_config_verify(const struct pmemram_config *c, struct pmemram_config_errors *errors)
{
	char m[2 * PMEMRAM_CONFIG_NAME_MAX], where[PMEMRAM_CONFIG_ERROR_MAX];
	bool failed = false;

	if (!c)
		return -EINVAL;

	for (size_t i = 0; i < c->n_claims; i++) {
		const struct pmemram_claim *a = &c->claims[i];

		if (a->match_set.file < 0) {
			origin_error(c, errors, a->defined, "claim '%s': key 'match' missing", a->name);
			failed = true;
			continue;
		}
		match_string(a, m, sizeof(m));

		if (a->convert && a->match != PMEMRAM_MATCH_UUID) {
			origin_error(c, errors, a->convert_set,
				     "key 'convert': 'yes' needs 'match = uuid:UUID', claim '%s' has 'match = %s' (%s)",
				     a->name, m, pmemram_config_origin_to_string(c, a->match_set, where, sizeof(where)));
			failed = true;
		}
		if (a->create && a->create_region == PMEMRAM_REGION_RAM) {
			origin_error(c, errors, a->create_set,
				     "key 'create': 'devdax' does not go with 'create-region = ram' in claim '%s': a "
				     "RAM region has no namespace, its dax device is the memory",
				     a->name);
			failed = true;
		} else if (a->create && a->match == PMEMRAM_MATCH_CXL_MEMDEV && !a->create_region) {
			origin_error(
				c, errors, a->create_set,
				"key 'create': 'devdax' with 'match = %s' needs 'create-region = pmem' in claim '%s'",
				m, a->name);
			failed = true;
		} else if (a->create && a->match != PMEMRAM_MATCH_REGION && a->match != PMEMRAM_MATCH_CXL_MEMDEV) {
			origin_error(
				c, errors, a->create_set,
				"key 'create': 'devdax' needs 'match = region:regionN', claim '%s' has 'match = %s' (%s)",
				a->name, m, pmemram_config_origin_to_string(c, a->match_set, where, sizeof(where)));
			failed = true;
		}
		if (a->create_region && a->match != PMEMRAM_MATCH_CXL_MEMDEV) {
			origin_error(c, errors, a->create_region_set,
				     "key 'create-region': '%s' needs 'match = cxl-memdev:SERIAL', claim '%s' has "
				     "'match = %s' (%s)",
				     pmemram_region_kind_to_string(a->create_region), a->name, m,
				     pmemram_config_origin_to_string(c, a->match_set, where, sizeof(where)));
			failed = true;
		} else if (a->create_region == PMEMRAM_REGION_PMEM && !a->create) {
			origin_error(c, errors, a->create_region_set,
				     "key 'create-region': 'pmem' needs 'create = devdax' in claim '%s': a pmem region "
				     "without a namespace gives no memory",
				     a->name);
			failed = true;
		}

		for (size_t k = 0; k < i; k++) {
			const struct pmemram_claim *b = &c->claims[k];

			if (b->match_set.file < 0 || b->match != a->match)
				continue;
			/* Two ranges that share a device would leave the choice to the order of the files. */
			if (a->match == PMEMRAM_MATCH_HMEM_RANGE && !streq(b->match_value, a->match_value) &&
			    a->range_start <= b->range_end && b->range_start <= a->range_end) {
				origin_error(c, errors, a->match_set,
					     "key 'match': '%s' overlaps 'hmem:%s' of claim '%s' (%s)", m,
					     b->match_value, b->name,
					     pmemram_config_origin_to_string(c, b->match_set, where, sizeof(where)));
				failed = true;
				break;
			}
			if (!streq(b->match_value, a->match_value))
				continue;
			origin_error(c, errors, a->match_set, "key 'match': '%s' already claimed by '%s' (%s)", m,
				     b->name, pmemram_config_origin_to_string(c, b->match_set, where, sizeof(where)));
			failed = true;
			break;
		}
	}

	/* shuffle-nodes says which nodes; shuffle = on or off would say otherwise */
	if (c->shuffle_nodes_set.file >= 0 && c->shuffle != PMEMRAM_CONFIG_SHUFFLE_AUTO) {
		origin_error(c, errors, c->shuffle_nodes_set,
			     "key 'shuffle-nodes': goes with 'shuffle = auto' only, but 'shuffle = %s' is set (%s)",
			     pmemram_config_shuffle_to_string(c->shuffle),
			     pmemram_config_origin_to_string(c, c->shuffle_set, where, sizeof(where)));
		failed = true;
	}

	for (size_t i = 0; i < c->n_classes; i++) {
		const struct pmemram_class *k = &c->classes[i];

		if (k->nodes_set.file < 0) {
			origin_error(c, errors, k->defined, "class '%s': key 'nodes' missing", k->name);
			failed = true;
		}
		/* The weights are the kernel's, per node: they mean nothing to another mode. */
		if (k->weights_set.file >= 0 && k->mode != PMEMRAM_CLASS_WEIGHTED_INTERLEAVE) {
			origin_error(c, errors, k->weights_set,
				     "class '%s': key 'weights' goes with 'mode = weighted-interleave' only, not %s",
				     k->name, pmemram_class_mode_to_string(k->mode));
			failed = true;
		}
	}

	return failed ? -EINVAL : 0;
}

/* ---- objects ---------------------------------------------------------------------- */

int pmemram_config_new(struct pmemram_config **ret)
{
	struct pmemram_config *c;

	if (!ret)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->shuffle = PMEMRAM_CONFIG_SHUFFLE_AUTO;
	c->shuffle_set.file = -1;
	c->shuffle_nodes_set.file = -1;
	c->hotplug = PMEMRAM_CONFIG_HOTPLUG_KEEP;
	c->hotplug_set.file = -1;
	c->demotion = PMEMRAM_CONFIG_SWITCH_KEEP;
	c->demotion_set.file = -1;
	c->promotion = PMEMRAM_CONFIG_SWITCH_KEEP;
	c->promotion_set.file = -1;
	c->promotion_rate_set.file = -1;
	c->online_at_bind = true;
	c->online_at_bind_set.file = -1;
	c->daxctl_conf = true;
	c->daxctl_conf_set.file = -1;
	c->daxctl_unreadable.file = -1;
	*ret = c;
	return 0;
}

struct pmemram_config *pmemram_config_free(struct pmemram_config *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_files; i++)
		free(c->files[i]);
	free(c->files);
	free(c->claims);
	free(c->classes);
	free(c->daxctl);
	free(c);
	return NULL;
}
