/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daxctl.conf.d reader: [reconfigure-device NAME] sections as claims, merged with pmemram's own. */
#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

/*
 * What daxctl reconfigure-device -C does with the directory, as ndctl's sources show it (the
 * copies read carry no release tag); each fact decides a rule below.
 * - Files (util/parse-configs.c): scandir() with a filter on the readdir() type and the name:
 *   DT_REG entries (no symlink) whose name has ".conf" after its last '.', that '.' not the
 *   first character: hidden files count, ".conf" itself does not.  Sorted by alphasort()
 *   (daxctl/daxctl.c calls no setlocale(): byte order), then read from the last name to the first.
 * - Each file is an ini file of its own (iniparser): section and key names lower case, a
 *   section name given twice in a file is one section (its keys join; a key set again replaces
 *   the earlier value), a line ending in '\\' goes on on the next line, and a line that is no
 *   section, comment or key = value, or longer than its buffer, makes the file fail to load.  A
 *   section header begins with '[' and ends with ']', its name is what lies before the first
 *   ']' ("[]" reads none and leaves the section before open), and a section whose name has a
 *   ':' is never listed; "[x = y" is a key.  A file that fails to load ends
 *   the reading with -errno, an error unless errno happens to be 0 (pmemram takes it as one):
 *   daxctl then changes no device.
 * - For each of mode, online and movable, each file answers with the first of its sections whose
 *   name's first word is "reconfigure-device" and whose nvdimm.uuid equals, as a string, the
 *   lower-case UUID of the device's nd_dax (info block) (daxctl/device.c, ndctl_dax_get_uuid());
 *   a later section of the file with the same UUID is never read.  The files' answers are joined
 *   with spaces, in reading order: a mode given by two files is "system-ram system-ram", which
 *   daxctl refuses; online and movable are judged by the first character of the join (t/y/1 or
 *   f/n/0, anything else leaves the default, true), so the file read first wins.
 * Section names do not matter to daxctl beyond the first word; pmemram names its claims after them.
 */

static const char *const state_names[_PMEMRAM_DAXCTL_STATE_MAX] = {
	[PMEMRAM_DAXCTL_CLAIMED] = "claimed",	[PMEMRAM_DAXCTL_REDUNDANT] = "redundant",
	[PMEMRAM_DAXCTL_CONFLICT] = "conflict", [PMEMRAM_DAXCTL_SKIPPED] = "skipped",
	[PMEMRAM_DAXCTL_MERGED] = "merged",
};

const char *pmemram_daxctl_state_to_string(enum pmemram_daxctl_state s)
{
	return (unsigned)s < ELEMENTSOF(state_names) ? state_names[s] : NULL;
}

#define SECTION_WORD "reconfigure-device"
#define SHOWN_MAX 80 /* bytes of a value repeated in a message */
/* iniparser fgets() a line into 1024 bytes, the newline and the NUL included, and fails when the
 * newline does not fit (the end of the file without one too); a continued line goes on in the
 * same buffer after the part before its '\\'. */
#define INI_LINE_MAX 1022

struct daxctl_parser {
	struct pmemram_config *config;
	struct pmemram_config_errors *warnings;
	const char *file;
	int file_index;
	unsigned line;
	size_t first;				    /* index of the file's first section in config->daxctl */
	struct pmemram_daxctl_section *section;	    /* NULL outside a reconfigure-device section */
	bool in_other;				    /* in a section daxctl does not read */
	unsigned syntax_line;			    /* first line daxctl cannot parse, 0 none */
	int result;				    /* 0 or -ENOMEM */
	char *headers[PMEMRAM_DAXCTL_MAX_SECTIONS]; /* lower-case header of the file's section first + i */
	size_t n_headers;
};

_printf_(2, 3) static void warn(struct daxctl_parser *p, const char *format, ...)
{
	char m[PMEMRAM_CONFIG_ERROR_MAX];
	va_list args;

	va_start(args, format);
	vsnprintf(m, sizeof(m), format, args);
	va_end(args);
	pmemram_config_errors_add(p->warnings, p->file, p->line, "%s", m);
}

/* Mark the current section skipped, with why; the first reason is kept. */
_printf_(2, 3) static void invalidate(struct daxctl_parser *p, const char *format, ...)
{
	struct pmemram_daxctl_section *s = p->section;
	va_list args;

	if (!s || s->invalid)
		return;
	s->invalid = true;
	va_start(args, format);
	vsnprintf(s->text, sizeof(s->text), format, args);
	va_end(args);
}

static const char *shown(const char *s, char buf[static SHOWN_MAX])
{
	return pmemram_name_escape(s, buf, SHOWN_MAX);
}

/* The section name after the word, made fit for a claim name: letters, digits, '.', '_', '-'
 * kept, anything else '_', lower case as daxctl sees it, cut to fit "daxctl:NAME". */
static void claim_safe_name(const char *name, char *buf, size_t size)
{
	size_t o = 0, max = size - sizeof(PMEMRAM_DAXCTL_CLAIM_PREFIX);

	for (; *name && o < max; name++)
		buf[o++] = isalnum((unsigned char)*name) || strchr("._-", *name) ? (char)tolower((unsigned char)*name)
										 : '_';
	buf[o] = '\0';
}

/* The section of this file whose header is lowered (as iniparser keeps it), reopened: its keys
 * join the earlier ones.  false when there is none. */
static bool reopen_section(struct daxctl_parser *p, const char *lowered)
{
	char q[SHOWN_MAX];

	for (size_t i = 0; i < p->n_headers; i++) {
		struct pmemram_daxctl_section *s = &p->config->daxctl[p->first + i];

		if (!streq(p->headers[i], lowered))
			continue;
		warn(p, "section '[%s]' again: its keys join those of line %u, as daxctl's ini parser reads it",
		     shown(lowered, q), s->defined.line);
		p->section = s;
		return true;
	}
	return false;
}

/* daxctl would fail for every device: remember the first such place. */
static void mark_unreadable(struct pmemram_config *c, int file, unsigned line)
{
	if (c->daxctl_unreadable.file < 0)
		c->daxctl_unreadable = (struct pmemram_config_origin){ .file = file, .line = line };
}

/* A line that begins with '[' and ends with ']' (iniparser's test for a section header). */
static void open_section(struct daxctl_parser *p, char *header)
{
	struct pmemram_config *c = p->config;
	struct pmemram_daxctl_section *a, *s;
	char q[SHOWN_MAX], *name, *lowered;

	if (header[1] == ']') {
		/* iniparser reads no name and keeps the section it had: the keys below join it. */
		warn(p,
		     "'%s' names no section: daxctl's ini parser keeps the section before it open, and so does pmemram",
		     shown(header, q));
		return;
	}
	p->section = NULL;
	p->in_other = false;
	/* The name is what lies between '[' and the first ']', as iniparser takes it. */
	header[strcspn(header, "]")] = '\0';
	name = pmemram_config_strip(header + 1);
	if (strncasecmp(name, SECTION_WORD, strlen(SECTION_WORD)) != 0 ||
	    (name[strlen(SECTION_WORD)] && !strchr(" \t", name[strlen(SECTION_WORD)]))) {
		warn(p, "section '[%s]' is not one daxctl reads (only [" SECTION_WORD " NAME]): ignored",
		     shown(name, q));
		p->in_other = true;
		return;
	}
	if (strchr(name, ':')) {
		/* iniparser's list of sections leaves out names with ':' (its key separator). */
		warn(p,
		     "section '[%s]' has ':' in its name, and daxctl's ini parser never lists such a section: ignored",
		     shown(name, q));
		p->in_other = true;
		return;
	}
	lowered = strdup(name);
	if (!lowered) {
		p->result = -ENOMEM;
		return;
	}
	for (char *k = lowered; *k; k++)
		*k = (char)tolower((unsigned char)*k);
	if (reopen_section(p, lowered)) {
		free(lowered);
		return;
	}
	name = pmemram_config_strip(name + strlen(SECTION_WORD));

	if (c->n_daxctl >= PMEMRAM_DAXCTL_MAX_SECTIONS) {
		/* Dropping the rest would change what daxctl joins and refuses for the others. */
		warn(p, "more than %d [" SECTION_WORD "] sections: no section of daxctl.conf.d is used",
		     PMEMRAM_DAXCTL_MAX_SECTIONS);
		if (c->daxctl_unreadable.file < 0)
			c->daxctl_too_many = true;
		mark_unreadable(c, p->file_index, p->line);
		free(lowered);
		p->in_other = true;
		return;
	}
	a = realloc(c->daxctl, (c->n_daxctl + 1) * sizeof(*a));
	if (!a) {
		free(lowered);
		p->result = -ENOMEM;
		return;
	}
	c->daxctl = a;
	s = &a[c->n_daxctl++];
	p->headers[p->n_headers++] = lowered;
	*s = (struct pmemram_daxctl_section){
		.online = true,
		.movable = true,
		.defined = { .file = p->file_index, .line = p->line },
		.uuid_set.file = -1,
		.mode_set.file = -1,
		.online_set.file = -1,
		.movable_set.file = -1,
	};
	p->section = s;
	if (!*name) {
		/* daxctl reads it like any other: the claim needs a name, so one from FILE-LINE. */
		const char *base = strrchr(p->file, '/');
		char generated[PMEMRAM_CONFIG_NAME_MAX];

		snprintf(generated, sizeof(generated), "%.40s-%u", base ? base + 1 : p->file, p->line);
		claim_safe_name(generated, s->name, sizeof(s->name));
		return;
	}
	claim_safe_name(name, s->name, sizeof(s->name));
}

/* The value as iniparser reads it: inside quotes, or up to a comment. */
static char *unquote(char *v)
{
	char *end;

	if ((v[0] == '"' || v[0] == '\'') && (end = strchr(v + 1, v[0]))) {
		*end = '\0';
		return v + 1;
	}
	v[strcspn(v, ";#")] = '\0';
	return pmemram_config_strip(v);
}

/* true or false by the first letter, as daxctl; -1 when it is neither. */
static int daxctl_bool(const char *v)
{
	if (v[0] && strchr("tTyY1", v[0]))
		return 1;
	if (v[0] && strchr("fFnN0", v[0]))
		return 0;
	return -1;
}

/* A key set twice in a section: daxctl takes the later value, and so does pmemram. */
static void set_origin(struct daxctl_parser *p, const char *key, struct pmemram_config_origin *o)
{
	if (o->file == p->file_index)
		warn(p, "key '%s': already set at line %u; the later value counts, as for daxctl", key, o->line);
	*o = (struct pmemram_config_origin){ .file = p->file_index, .line = p->line };
}

static void key_uuid(struct daxctl_parser *p, const char *key, const char *value)
{
	struct pmemram_daxctl_section *s = p->section;
	struct pmemram_config_origin before = s->uuid_set;
	char u[PMEMRAM_UUID_STRING_MAX], q[SHOWN_MAX];

	if (strlen(value) >= sizeof(u) || (strcpy(u, value), pmemram_uuid_normalize(u) < 0)) {
		set_origin(p, key, &s->uuid_set);
		s->uuid[0] = '\0';
		warn(p, "key '%s': invalid UUID '%s' (expected 8-4-4-4-12 hex digits): section skipped", key,
		     shown(value, q));
		invalidate(p, "invalid nvdimm.uuid");
		return;
	}
	if (strpbrk(value, "ABCDEF")) {
		/* daxctl looks sections up by the UUID uuid_unparse() gives, in lower case, as strings. */
		set_origin(p, key, &s->uuid_set);
		s->uuid[0] = '\0';
		warn(p,
		     "key '%s': '%s' has upper-case letters: daxctl compares it with the lower-case UUID of the "
		     "device and never applies the section: skipped",
		     key, shown(value, q));
		invalidate(p, "upper-case nvdimm.uuid, which daxctl never matches");
		return;
	}
	if (before.file == p->file_index && s->uuid[0] && !streq(s->uuid, u)) {
		/* daxctl would take the later one; which device was meant is anybody's guess. */
		warn(p,
		     "key '%s': %s, but line %u of the section says %s: which device it means is ambiguous: section skipped",
		     key, u, before.line, s->uuid);
		invalidate(p, "two different nvdimm.uuid (lines %u and %u)", before.line, p->line);
		s->uuid_set = (struct pmemram_config_origin){ .file = p->file_index, .line = p->line };
	} else
		set_origin(p, key, &s->uuid_set);
	strcpy(s->uuid, u);
}

static void key_mode(struct daxctl_parser *p, const char *key, const char *value)
{
	struct pmemram_daxctl_section *s = p->section;
	char q[SHOWN_MAX];

	set_origin(p, key, &s->mode_set);
	s->system_ram = streq(value, "system-ram");
	if (!s->system_ram && !streq(value, "devdax")) {
		warn(p,
		     "key '%s': expected 'system-ram' or 'devdax', got '%s' (daxctl refuses it too): section skipped",
		     key, shown(value, q));
		invalidate(p, "invalid mode");
	}
}

static void key_bool(struct daxctl_parser *p, const char *key, const char *value, bool *field, char *first,
		     struct pmemram_config_origin *o)
{
	char q[SHOWN_MAX];
	int b = daxctl_bool(value);

	set_origin(p, key, o);
	*first = value[0];
	if (b < 0) {
		warn(p, "key '%s': expected true or false, got '%s': daxctl ignores it, so the default (true) holds",
		     key, shown(value, q));
		b = 1;
	}
	*field = b;
}

static void parse_key(struct daxctl_parser *p, char *line)
{
	char q[SHOWN_MAX], *eq = strchr(line, '='), *key, *value;

	if (!eq || eq == line) {
		warn(p, "expected '[section]' or 'key = value', got '%s' (daxctl rejects the whole configuration)",
		     shown(line, q));
		if (!p->syntax_line)
			p->syntax_line = p->line;
		return;
	}
	*eq = '\0';
	key = pmemram_config_strip(line);
	value = unquote(pmemram_config_strip(eq + 1));
	for (char *k = key; *k; k++)
		*k = (char)tolower((unsigned char)*k);

	if (p->in_other)
		return;
	if (!p->section) {
		warn(p, "key '%s': outside of any section: ignored", shown(key, q));
		return;
	}
	if (streq(key, "nvdimm.uuid"))
		key_uuid(p, key, value);
	else if (streq(key, "mode"))
		key_mode(p, key, value);
	else if (streq(key, "online"))
		key_bool(p, key, value, &p->section->online, &p->section->online_first, &p->section->online_set);
	else if (streq(key, "movable"))
		key_bool(p, key, value, &p->section->movable, &p->section->movable_first, &p->section->movable_set);
	else
		warn(p, "key '%s': not one daxctl reads (nvdimm.uuid, mode, online, movable): ignored", shown(key, q));
}

/* A section's keys are all read: say what is missing (mode may come from another file). */
static void close_sections(struct daxctl_parser *p)
{
	struct pmemram_config *c = p->config;

	if (p->syntax_line)
		mark_unreadable(c, p->file_index, p->syntax_line);
	for (size_t i = p->first; i < c->n_daxctl; i++) {
		struct pmemram_daxctl_section *s = &c->daxctl[i];

		p->section = s;
		p->line = s->defined.line;
		if (p->syntax_line) {
			invalidate(p, "%s:%u cannot be parsed, and daxctl rejects the whole configuration for it",
				   p->file, p->syntax_line);
			continue;
		}
		if (!s->invalid && s->uuid_set.file < 0) {
			warn(p, "section '%s': no nvdimm.uuid, the only key daxctl matches devices by: skipped",
			     s->name);
			invalidate(p, "no nvdimm.uuid");
		}
	}
	p->section = NULL;
}

/* The next line as iniparser joins it, in buf: physical lines whose end (blanks stripped) is '\\'
 * go on with the next one, the '\\' dropped.  The line number of its first line in *ret_line;
 * false at the end (a '\\' on the last line: that line is dropped, as by iniparser). */
static bool next_line(struct daxctl_parser *p, const char *text, size_t size, size_t *pos, char *buf,
		      unsigned *ret_line)
{
	size_t have = 0;

	*ret_line = 0;
	while (*pos < size) {
		const char *start = text + *pos, *nl = memchr(start, '\n', size - *pos);
		size_t len = nl ? (size_t)(nl - start) : size - *pos;

		p->line++;
		*pos += len + 1;
		if (!*ret_line)
			*ret_line = p->line;
		if (memchr(start, '\0', len)) {
			warn(p, "contains a NUL byte, not a text file: ignored");
			p->syntax_line = p->line;
			*pos = size;
			return false;
		}
		if (have + len > INI_LINE_MAX) {
			warn(p,
			     "line longer than %d bytes (continued lines joined), more than daxctl's ini parser reads",
			     INI_LINE_MAX);
			if (!p->syntax_line)
				p->syntax_line = p->line;
			have = 0;
			*ret_line = 0;
			continue;
		}
		memcpy(buf + have, start, len);
		have += len;
		while (have > 0 && isspace((unsigned char)buf[have - 1]))
			have--;
		buf[have] = '\0';
		if (have == 0 || buf[have - 1] != '\\')
			return true;
		have--; /* goes on on the next line */
	}
	if (have > 0) {
		p->line = *ret_line;
		warn(p, "the file ends in a line continued with '\\': daxctl drops it, and so does pmemram");
	}
	return false;
}

int pmemram_daxctl_parse(struct pmemram_config *c, const char *filename, const char *text, size_t size,
			 struct pmemram_config_errors *warnings)
{
	struct daxctl_parser p = { .config = c, .warnings = warnings, .file = filename };
	char buf[PMEMRAM_CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	unsigned at;
	int r;

	if (!c || !filename || (!text && size > 0))
		return -EINVAL;
	r = pmemram_config_add_file(c, filename);
	if (r < 0)
		return r;
	p.file_index = r;
	p.first = c->n_daxctl;
	if (size > PMEMRAM_CONFIG_MAX_FILE_SIZE) {
		pmemram_config_errors_add(warnings, filename, 0,
					  "larger than %d bytes: not read, and no section of daxctl.conf.d is used",
					  PMEMRAM_CONFIG_MAX_FILE_SIZE);
		mark_unreadable(c, p.file_index, 0);
		return 0;
	}

	while (p.result == 0 && next_line(&p, text, size, &pos, buf, &at)) {
		unsigned physical = p.line;
		char *line = pmemram_config_strip(buf);

		p.line = at;
		if (*line == '[' && line[strlen(line) - 1] == ']')
			open_section(&p, line);
		else if (*line && *line != '#' && *line != ';')
			parse_key(&p, line);
		p.line = physical;
	}
	for (size_t i = 0; i < p.n_headers; i++)
		free(p.headers[i]);
	if (p.result < 0)
		return p.result;
	close_sections(&p);
	return 0;
}

/* ---- merging with pmemram's claims ----------------------------------------------------- */

int pmemram_daxctl_to_claim(const struct pmemram_daxctl_section *s, struct pmemram_claim *ret, const char **ret_why)
{
	const char *why = NULL;

	if (!s || !ret)
		return -EINVAL;
	if (s->invalid)
		why = s->text;
	else if (!s->system_ram)
		why = "mode = devdax: not a claim (pmemram leaves devices it does not claim in devdax mode)";
	else if (!s->online)
		why = "online = false (kmem without onlining its memory) has no pmemram equivalent";
	if (why) {
		if (ret_why)
			*ret_why = why;
		return -EINVAL;
	}

	*ret = (struct pmemram_claim){
		.match = PMEMRAM_MATCH_UUID,
		.zone = s->movable ? PMEMRAM_ZONE_MOVABLE : PMEMRAM_ZONE_NORMAL,
		.from_daxctl = true,
		.defined = s->defined,
		.match_set = s->uuid_set,
		.zone_set = s->movable_set,
		.convert_set.file = -1,
		.create_set.file = -1,
		.create_region_set.file = -1,
	};
	strcpy(ret->match_value, s->uuid);
	snprintf(ret->name, sizeof(ret->name), PMEMRAM_DAXCTL_CLAIM_PREFIX "%.*s",
		 (int)(sizeof(ret->name) - sizeof(PMEMRAM_DAXCTL_CLAIM_PREFIX)), s->name);
	return 0;
}

static const struct pmemram_claim *find_claim(const struct pmemram_config *c, bool from_daxctl, const char *uuid)
{
	for (size_t i = 0; i < c->n_claims; i++)
		if (c->claims[i].from_daxctl == from_daxctl && c->claims[i].match == PMEMRAM_MATCH_UUID &&
		    streq(c->claims[i].match_value, uuid))
			return &c->claims[i];
	return NULL;
}

/* The pmemram claim for the section's UUID decides; the section only says whether it agrees. */
static void compare(const struct pmemram_config *c, struct pmemram_daxctl_section *s, const struct pmemram_claim *mine,
		    const struct pmemram_claim *theirs)
{
	char where[PMEMRAM_CONFIG_ERROR_MAX];

	strcpy(s->claim, mine->name);
	pmemram_config_origin_to_string(c, mine->defined, where, sizeof(where));
	if (mine->zone == theirs->zone) {
		s->state = PMEMRAM_DAXCTL_REDUNDANT;
		snprintf(s->text, sizeof(s->text), "claim '%.63s' (%.100s) says the same", mine->name, where);
		return;
	}
	s->state = PMEMRAM_DAXCTL_CONFLICT;
	snprintf(s->text, sizeof(s->text),
		 "claim '%.63s' (%.100s) has online = %s, this section movable = %s: the claim is used", mine->name,
		 where, pmemram_config_online_to_string(mine->zone),
		 theirs->zone == PMEMRAM_ZONE_MOVABLE ? "true" : "false");
}

/* A usable section that still cannot become a claim: skipped, with a warning at its header. */
static void skip(const struct pmemram_config *c, struct pmemram_daxctl_section *s,
		 struct pmemram_config_errors *warnings)
{
	s->state = PMEMRAM_DAXCTL_SKIPPED;
	pmemram_config_errors_add(warnings, c->files[s->defined.file], s->defined.line, "section '%s': %s: skipped",
				  s->name, s->text);
}

/* Skip s with a warning at its header; it counts as invalid from then on. */
_printf_(4, 5) static void refuse(const struct pmemram_config *c, struct pmemram_daxctl_section *s,
				  struct pmemram_config_errors *warnings, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(s->text, sizeof(s->text), format, args);
	va_end(args);
	s->invalid = true;
	s->state = PMEMRAM_DAXCTL_SKIPPED;
	pmemram_config_errors_add(warnings, c->files[s->defined.file], s->defined.line, "section '%s': %s: skipped",
				  s->name, s->text);
}

/* The claim's name is taken (a section of the same name in another file, for another UUID: daxctl
 * tells them apart by UUID alone and applies both): name it after the section, file and line. */
static int rename_claim(struct pmemram_config *c, const struct pmemram_daxctl_section *s, struct pmemram_claim *claim,
			const struct pmemram_claim *other, struct pmemram_config_errors *warnings)
{
	const char *file = c->files[s->defined.file], *base = strrchr(file, '/');
	char generated[PMEMRAM_CONFIG_NAME_MAX + 64], safe[PMEMRAM_CONFIG_NAME_MAX], where[PMEMRAM_CONFIG_ERROR_MAX];

	snprintf(generated, sizeof(generated), "%.20s-%.30s-%u", s->name, base ? base + 1 : file, s->defined.line);
	claim_safe_name(generated, safe, sizeof(safe));
	snprintf(claim->name, sizeof(claim->name), PMEMRAM_DAXCTL_CLAIM_PREFIX "%.*s",
		 (int)(sizeof(claim->name) - sizeof(PMEMRAM_DAXCTL_CLAIM_PREFIX)), safe);
	if (pmemram_config_find_claim(c, claim->name))
		return -EEXIST;
	pmemram_config_origin_to_string(c, other->defined, where, sizeof(where));
	pmemram_config_errors_add(warnings, file, s->defined.line,
				  "section '%s': the name is also that of the section at %.100s, for another UUID; "
				  "daxctl applies both, and this one's claim is named '%s'",
				  s->name, where, claim->name);
	return 0;
}

/* s, the section whose mode counts for its UUID, as a claim or compared with pmemram's. */
static int merge_one(struct pmemram_config *c, struct pmemram_daxctl_section *s, struct pmemram_config_errors *warnings)
{
	const struct pmemram_claim *other;
	struct pmemram_claim claim, *claims;
	const char *why;

	if (pmemram_daxctl_to_claim(s, &claim, &why) < 0) {
		s->state = PMEMRAM_DAXCTL_SKIPPED;
		if (s->text != why)
			snprintf(s->text, sizeof(s->text), "%s", why);
		/* A malformed section was warned about at its line; devdax is no claim, said at info. */
		if (!s->invalid && s->system_ram)
			skip(c, s, warnings);
		return 0;
	}

	other = find_claim(c, false, s->uuid);
	if (other) {
		compare(c, s, other, &claim);
		return 0;
	}
	other = pmemram_config_find_claim(c, claim.name);
	if (other && rename_claim(c, s, &claim, other, warnings) < 0) {
		snprintf(s->text, sizeof(s->text), "no free claim name ('%.63s' is taken)", claim.name);
		skip(c, s, warnings);
		return 0;
	}
	if (c->n_claims >= PMEMRAM_CONFIG_MAX_CLAIMS) {
		snprintf(s->text, sizeof(s->text), "more than %d claims", PMEMRAM_CONFIG_MAX_CLAIMS);
		skip(c, s, warnings);
		return 0;
	}

	claims = realloc(c->claims, (c->n_claims + 1) * sizeof(*claims));
	if (!claims)
		return -ENOMEM;
	c->claims = claims;
	claims[c->n_claims++] = claim;
	s->state = PMEMRAM_DAXCTL_CLAIMED;
	strcpy(s->claim, claim.name);
	s->text[0] = '\0';
	return 0;
}

/* The sections daxctl reads for one UUID, one a file, in the order daxctl reads them: the
 * directory's files from the last name to the first (files are indexed in lexical order). */
struct group {
	struct pmemram_daxctl_section *m[PMEMRAM_DAXCTL_MAX_SECTIONS];
	size_t n;
};

static int by_reading_order(const void *a, const void *b)
{
	const struct pmemram_daxctl_section *x = *(struct pmemram_daxctl_section *const *)a,
					    *y = *(struct pmemram_daxctl_section *const *)b;

	return (y->defined.file > x->defined.file) - (y->defined.file < x->defined.file);
}

/* online or movable of s, as written: its first character and where. */
static char bool_first(const struct pmemram_daxctl_section *s, bool movable)
{
	return movable ? s->movable_first : s->online_first;
}

static struct pmemram_config_origin bool_set(const struct pmemram_daxctl_section *s, bool movable)
{
	return movable ? s->movable_set : s->online_set;
}

/* The value of online (or movable) daxctl ends up with: the first character of the files' values
 * joined, that is of the first value that is not empty; its origin in *ret_set (file -1: none). */
static bool joined_bool(const struct group *g, bool movable, struct pmemram_config_origin *ret_set)
{
	for (size_t i = 0; i < g->n; i++)
		if (bool_first(g->m[i], movable)) {
			*ret_set = bool_set(g->m[i], movable);
			return daxctl_bool((char[]){ bool_first(g->m[i], movable), '\0' }) != 0;
		}
	ret_set->file = -1;
	return true;
}

/* A key set in more than one file: the value read first counts; say so where it does not. */
static void warn_overridden(const struct pmemram_config *c, const struct group *g, bool movable,
			    struct pmemram_config_origin used, struct pmemram_config_errors *warnings)
{
	char where[PMEMRAM_CONFIG_ERROR_MAX];

	pmemram_config_origin_to_string(c, used, where, sizeof(where));
	for (size_t i = 0; i < g->n; i++) {
		struct pmemram_config_origin o = bool_set(g->m[i], movable);

		if (o.file < 0 || (o.file == used.file && o.line == used.line))
			continue;
		pmemram_config_errors_add(warnings, c->files[o.file], o.line,
					  "key '%s': also set for UUID %s at %.100s, which daxctl reads first "
					  "(last file name first) and whose value counts: this one is ignored",
					  movable ? "movable" : "online", g->m[i]->uuid, where);
	}
}

/* Resolve one UUID's sections the way daxctl joins them. */
static int merge_group(struct pmemram_config *c, struct group *g, struct pmemram_config_errors *warnings)
{
	struct pmemram_daxctl_section *primary = NULL;
	char where[PMEMRAM_CONFIG_ERROR_MAX], other[PMEMRAM_CONFIG_ERROR_MAX];
	struct pmemram_config_origin online_set, movable_set;
	size_t n_mode = 0;
	bool online, movable;
	int r;

	qsort(g->m, g->n, sizeof(g->m[0]), by_reading_order);
	for (size_t i = 0; i < g->n; i++) {
		if (g->m[i]->invalid && !primary)
			primary = g->m[i]; /* the first bad one */
		n_mode += g->m[i]->mode_set.file >= 0;
	}
	if (primary) {
		/* daxctl would join the bad section's values too: nothing for this UUID is safe. */
		pmemram_config_origin_to_string(c, primary->defined, where, sizeof(where));
		for (size_t i = 0; i < g->n; i++)
			if (g->m[i]->invalid)
				g->m[i]->state = PMEMRAM_DAXCTL_SKIPPED;
			else
				refuse(c, g->m[i], warnings,
				       "section '%.63s' (%.100s) for the same UUID is skipped, and daxctl would join "
				       "its keys with this one's",
				       primary->name, where);
		return 0;
	}
	if (n_mode != 1) {
		for (size_t i = 0, k = 0; i < g->n && n_mode > 1; i++)
			if (g->m[i]->mode_set.file >= 0)
				pmemram_config_origin_to_string(c, g->m[i]->mode_set, k++ ? other : where,
								sizeof(where));
		for (size_t i = 0; i < g->n; i++)
			if (n_mode == 0)
				refuse(c, g->m[i], warnings, "no mode for its UUID (daxctl does nothing without one)");
			else
				refuse(c, g->m[i], warnings,
				       "mode for its UUID is set at %.100s and at %.100s: daxctl joins the files' "
				       "values and accepts neither",
				       where, other);
		return 0;
	}

	online = joined_bool(g, false, &online_set);
	movable = joined_bool(g, true, &movable_set);
	warn_overridden(c, g, false, online_set, warnings);
	warn_overridden(c, g, true, movable_set, warnings);
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i]->mode_set.file >= 0)
			primary = g->m[i];
	for (size_t i = 0; i < g->n; i++) {
		g->m[i]->system_ram = primary->system_ram;
		g->m[i]->online = online;
		g->m[i]->movable = movable;
	}
	if (movable_set.file >= 0)
		primary->movable_set = movable_set;
	if (online_set.file >= 0)
		primary->online_set = online_set;

	r = merge_one(c, primary, warnings);
	if (r < 0)
		return r;
	pmemram_config_origin_to_string(c, primary->defined, where, sizeof(where));
	for (size_t i = 0; i < g->n; i++) {
		struct pmemram_daxctl_section *s = g->m[i];

		if (s == primary)
			continue;
		strcpy(s->claim, primary->claim);
		if (primary->state == PMEMRAM_DAXCTL_SKIPPED) {
			s->state = PMEMRAM_DAXCTL_SKIPPED;
			s->invalid = primary->invalid;
			snprintf(s->text, sizeof(s->text), "joins section '%.63s' (%.100s), which is skipped",
				 primary->name, where);
			continue;
		}
		s->state = PMEMRAM_DAXCTL_MERGED;
		snprintf(s->text, sizeof(s->text),
			 "its keys join section '%.40s' (%.100s): daxctl joins every file's values for a UUID",
			 primary->name, where);
	}
	return 0;
}

/* Whether an earlier section of s's file has its UUID: daxctl never reads s (*ret_first that one). */
static bool shadowed(const struct pmemram_config *c, size_t i, const struct pmemram_daxctl_section **ret_first)
{
	const struct pmemram_daxctl_section *s = &c->daxctl[i];

	for (size_t j = 0; j < i; j++)
		if (c->daxctl[j].defined.file == s->defined.file && streq(c->daxctl[j].uuid, s->uuid)) {
			*ret_first = &c->daxctl[j];
			return true;
		}
	return false;
}

int pmemram_daxctl_merge(struct pmemram_config *c, struct pmemram_config_errors *warnings)
{
	bool done[PMEMRAM_DAXCTL_MAX_SECTIONS] = {};
	char where[PMEMRAM_CONFIG_ERROR_MAX];

	if (!c || c->n_daxctl > PMEMRAM_DAXCTL_MAX_SECTIONS)
		return -EINVAL;
	if (c->daxctl_unreadable.file >= 0) {
		if (c->daxctl_unreadable.line > 0)
			pmemram_config_origin_to_string(c, c->daxctl_unreadable, where, sizeof(where));
		else /* the whole file */
			snprintf(where, sizeof(where), "%s", c->files[c->daxctl_unreadable.file]);
		for (size_t i = 0; i < c->n_daxctl; i++) {
			struct pmemram_daxctl_section *s = &c->daxctl[i];

			s->state = PMEMRAM_DAXCTL_SKIPPED;
			if (!s->invalid && c->daxctl_too_many)
				snprintf(s->text, sizeof(s->text),
					 "%.150s has a section past the %d pmemram reads, and then none is applied",
					 where, PMEMRAM_DAXCTL_MAX_SECTIONS);
			else if (!s->invalid)
				snprintf(s->text, sizeof(s->text),
					 "daxctl cannot read %.150s, and then applies no section", where);
			s->invalid = true;
		}
		return 0;
	}

	for (size_t i = 0; i < c->n_daxctl; i++) {
		struct pmemram_daxctl_section *s = &c->daxctl[i];
		const struct pmemram_daxctl_section *first;

		if (!s->uuid[0]) {
			done[i] = true;
			s->state = PMEMRAM_DAXCTL_SKIPPED; /* warned about; daxctl matches no device with it */
		} else if (shadowed(c, i, &first)) {
			done[i] = true;
			pmemram_config_origin_to_string(c, first->defined, where, sizeof(where));
			refuse(c, s, warnings,
			       "daxctl reads only the first section of a file for a UUID, '%.63s' (%.100s)",
			       first->name, where);
		}
	}
	for (size_t i = 0; i < c->n_daxctl; i++) {
		struct group g = {};
		int r;

		if (done[i])
			continue;
		for (size_t j = i; j < c->n_daxctl; j++)
			if (!done[j] && streq(c->daxctl[j].uuid, c->daxctl[i].uuid)) {
				g.m[g.n++] = &c->daxctl[j];
				done[j] = true;
			}
		r = merge_group(c, &g, warnings);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- the directory ---------------------------------------------------------------------- */

/* daxctl would read dir's file name (or the directory itself) and pmemram cannot: no section is used. */
static int unreadable(struct pmemram_config *c, const char *path)
{
	int r = pmemram_config_add_file(c, path);

	if (r < 0)
		return r;
	mark_unreadable(c, r, 0);
	return 0;
}

int pmemram_daxctl_load(struct pmemram_config *c, int dir_fd, const char *dir, struct pmemram_config_errors *warnings)
{
	char **names = NULL;
	int r;

	if (!c || dir_fd < 0 || !dir)
		return -EINVAL;
	if (!c->daxctl_conf)
		return 0;

	r = pmemram_config_list(dir_fd, NULL, dir, PMEMRAM_CONFIG_LIST_DAXCTL, &names, warnings);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		r = unreadable(c, dir);
	for (size_t i = 0; r >= 0 && names && names[i]; i++) {
		_cleanup_(freep) char *path = NULL;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		r = pmemram_config_parse_at(c, dir_fd, names[i], path, pmemram_daxctl_parse, warnings);
		if (r < 0 && r != -ENOMEM)
			r = unreadable(c, path); /* said in warnings */
	}
	pmemram_config_names_free(names);
	if (r < 0)
		return r;
	return pmemram_daxctl_merge(c, warnings);
}
