/* pmemram.conf parser: pure string parsing with file:line:key messages and the checks across files. */
#include <ctype.h>
#include <stdarg.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

#define QUOTE_MAX 64 /* bytes of a user's value repeated in a message */

static const char *const shuffle_names[_PMEMRAM_CONFIG_SHUFFLE_MAX] = {
	[PMEMRAM_CONFIG_SHUFFLE_AUTO] = "auto",
	[PMEMRAM_CONFIG_SHUFFLE_ON] = "on",
	[PMEMRAM_CONFIG_SHUFFLE_OFF] = "off",
};

static const char *const match_names[_PMEMRAM_MATCH_MAX] = {
	[PMEMRAM_MATCH_UUID] = "uuid",
	[PMEMRAM_MATCH_DEVICE] = "device",
	[PMEMRAM_MATCH_REGION] = "region",
	[PMEMRAM_MATCH_ALL_DEVDAX] = "all-devdax",
};

static const char *const online_names[] = { "movable", "normal" };
static const enum pmemram_zone online_zones[ELEMENTSOF(online_names)] = { PMEMRAM_ZONE_MOVABLE,
									  PMEMRAM_ZONE_NORMAL };
static const char *const bool_names[] = { "no", "yes" };

const char *pmemram_config_shuffle_to_string(enum pmemram_config_shuffle s)
{
	return (unsigned)s < ELEMENTSOF(shuffle_names) ? shuffle_names[s] : NULL;
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
}

void pmemram_config_errors_add(struct pmemram_config_errors *errors, const char *file, unsigned line,
			       const char *format, ...)
{
	va_list args;

	va_start(args, format);
	add_errorv(errors, file, line, format, args);
	va_end(args);
}

/* A user's text made safe to repeat: at most QUOTE_MAX bytes, control characters as '?'. */
static const char *quote(const char *s, char buf[static QUOTE_MAX + 4])
{
	size_t i;

	for (i = 0; s[i] && i < QUOTE_MAX; i++)
		buf[i] = iscntrl((unsigned char)s[i]) ? '?' : s[i];
	strcpy(buf + i, s[i] ? "..." : "");
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

static bool claim_name_is_valid(const char *s, size_t len)
{
	if (len == 0 || len >= PMEMRAM_CONFIG_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* ---- parser state ------------------------------------------------------------------ */

enum section {
	SECTION_NONE,	 /* before the first header */
	SECTION_SKIP,	 /* after a malformed header: its keys are not checked */
	SECTION_GLOBAL,
	SECTION_CLAIM,
};

struct parser {
	struct pmemram_config *config;
	struct pmemram_config_errors *errors;
	const char *file;
	int file_index;
	unsigned line;
	enum section section;
	struct pmemram_claim *claim; /* SECTION_CLAIM */
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
	int i = parse_choice(p, key, value, shuffle_names, ELEMENTSOF(shuffle_names));

	if (i >= 0 && set_once(p, key, &p->config->shuffle_set))
		p->config->shuffle = (enum pmemram_config_shuffle)i;
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
	};
	char q[QUOTE_MAX + 4], v[PMEMRAM_CONFIG_NAME_MAX];

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

	parse_error(p, "key '%s': expected 'uuid:UUID', 'device:daxX.Y', 'region:regionN' or 'all-devdax', got '%s'",
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

static const struct key_def {
	enum section section;
	const char *name;
	void (*parse)(struct parser *p, const char *key, const char *value);
} keys[] = {
	{ SECTION_GLOBAL, "shuffle", key_shuffle },
	{ SECTION_CLAIM, "match", key_match },
	{ SECTION_CLAIM, "online", key_online },
	{ SECTION_CLAIM, "convert", key_convert },
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

static struct pmemram_claim *add_claim(struct parser *p, const char *name)
{
	struct pmemram_config *c = p->config;
	struct pmemram_claim *claims;

	if (c->n_claims >= PMEMRAM_CONFIG_MAX_CLAIMS) {
		parse_error(p, "claim '%s': more than %d claims", name, PMEMRAM_CONFIG_MAX_CLAIMS);
		return NULL;
	}
	claims = realloc(c->claims, (c->n_claims + 1) * sizeof(*claims));
	if (!claims) {
		p->result = -ENOMEM;
		return NULL;
	}
	c->claims = claims;
	claims[c->n_claims] = (struct pmemram_claim){
		.zone = PMEMRAM_ZONE_MOVABLE,
		.match_set.file = -1,
		.zone_set.file = -1,
		.convert_set.file = -1,
		.defined = { .file = p->file_index, .line = p->line },
	};
	strcpy(claims[c->n_claims].name, name);
	return &claims[c->n_claims++];
}

/* "[global]" or "[claim "NAME"]"; line is trimmed and starts with '['. */
static void parse_section(struct parser *p, char *line)
{
	size_t len = strlen(line), name_len;
	char q[QUOTE_MAX + 4], *name;

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
	if (strncmp(line, "[claim ", 7) != 0) {
		parse_error(p, "unknown section '%s]' (expected [global] or [claim \"NAME\"])", quote(line, q));
		return;
	}

	name = line + 7;
	name += strspn(name, " \t");
	name_len = strlen(name);
	if (name_len < 2 || name[0] != '"' || name[name_len - 1] != '"' ||
	    !claim_name_is_valid(name + 1, name_len - 2)) {
		parse_error(p, "invalid claim name %s (expected \"NAME\", 1 to %d letters, digits, '.', '_' or '-')",
			    quote(name, q), PMEMRAM_CONFIG_NAME_MAX - 1);
		return;
	}
	name[name_len - 1] = '\0';
	name++;

	p->claim = find_claim(p->config, name);
	if (p->claim && p->claim->defined.file == p->file_index) {
		parse_error(p, "claim '%s': defined twice in this file (first at line %u)", name,
			    p->claim->defined.line);
		return;
	}
	if (p->claim) /* reopened by a later file: keys set here override */
		p->claim->defined = (struct pmemram_config_origin){ .file = p->file_index, .line = p->line };
	else
		p->claim = add_claim(p, name);
	if (p->claim)
		p->section = SECTION_CLAIM;
}

static char *strip(char *s)
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
	char q[QUOTE_MAX + 4], *eq, *key, *value;

	line = strip(line);
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
	key = strip(line);
	value = strip(eq + 1);

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
	parse_error(p, "key '%s': unknown in %s", quote(key, q),
		    p->section == SECTION_GLOBAL ? "[global] (known: shuffle)"
						 : "[claim] (known: match, online, convert)");
}

static int add_file(struct pmemram_config *c, const char *filename)
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
	r = add_file(c, filename);
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

		for (size_t k = 0; k < i; k++) {
			const struct pmemram_claim *b = &c->claims[k];

			if (b->match_set.file < 0 || b->match != a->match || !streq(b->match_value, a->match_value))
				continue;
			origin_error(c, errors, a->match_set, "key 'match': '%s' already claimed by '%s' (%s)", m,
				     b->name, pmemram_config_origin_to_string(c, b->match_set, where, sizeof(where)));
			failed = true;
			break;
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
	free(c);
	return NULL;
}
