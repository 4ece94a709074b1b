/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daxctl.conf.d reader: [reconfigure-device NAME] sections as claims, merged with pmemram's own. */
#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "pmemram-config.h"
#include "pmemram-private.h"

/*
 * The format as daxctl (ndctl v71 and later) reads it: every *.conf file of the directory is an
 * INI file; a section whose name's first word is "reconfigure-device" applies to the namespace
 * whose UUID its nvdimm.uuid key holds (compared as a string with the lower-case UUID); of its keys daxctl uses mode ("system-ram" or "devdax"),
 * online and movable (true or false by their first letter, t/y/1 or f/n/0; anything else
 * leaves the default, true).  Section names and keys are case-insensitive, a value may be quoted,
 * and ';' or '#' starts a comment, also after a value.  A line that is none of these makes daxctl
 * reject the whole configuration.
 */

static const char *const state_names[_PMEMRAM_DAXCTL_STATE_MAX] = {
	[PMEMRAM_DAXCTL_CLAIMED] = "claimed",
	[PMEMRAM_DAXCTL_REDUNDANT] = "redundant",
	[PMEMRAM_DAXCTL_CONFLICT] = "conflict",
	[PMEMRAM_DAXCTL_SKIPPED] = "skipped",
};

const char *pmemram_daxctl_state_to_string(enum pmemram_daxctl_state s)
{
	return (unsigned)s < ELEMENTSOF(state_names) ? state_names[s] : NULL;
}

#define SECTION_WORD "reconfigure-device"
#define SHOWN_MAX 80 /* bytes of a value repeated in a message */

struct daxctl_parser {
	struct pmemram_config *config;
	struct pmemram_config_errors *warnings;
	const char *file;
	int file_index;
	unsigned line;
	size_t first;				/* index of the file's first section in config->daxctl */
	struct pmemram_daxctl_section *section; /* NULL outside a reconfigure-device section */
	bool in_other;				/* in a section daxctl does not read */
	unsigned syntax_line;			/* first line daxctl cannot parse, 0 none */
	int result;				/* 0 or -ENOMEM */
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

static void open_section(struct daxctl_parser *p, char *header)
{
	struct pmemram_config *c = p->config;
	struct pmemram_daxctl_section *a, *s;
	char q[SHOWN_MAX], *name;
	size_t len = strlen(header);

	p->section = NULL;
	p->in_other = false;
	if (len < 2 || header[len - 1] != ']') {
		warn(p, "expected ']' at the end of section header '%s' (daxctl rejects the whole configuration)",
		     shown(header, q));
		if (!p->syntax_line)
			p->syntax_line = p->line;
		p->in_other = true;
		return;
	}
	header[len - 1] = '\0';
	name = pmemram_config_strip(header + 1);
	if (strncasecmp(name, SECTION_WORD, strlen(SECTION_WORD)) != 0 ||
	    (name[strlen(SECTION_WORD)] && !strchr(" \t", name[strlen(SECTION_WORD)]))) {
		warn(p, "section '[%s]' is not one daxctl reads (only [" SECTION_WORD " NAME]): ignored",
		     shown(name, q));
		p->in_other = true;
		return;
	}
	name = pmemram_config_strip(name + strlen(SECTION_WORD));

	if (c->n_daxctl >= PMEMRAM_DAXCTL_MAX_SECTIONS) {
		warn(p, "more than %d [" SECTION_WORD "] sections: this one and later ones are ignored",
		     PMEMRAM_DAXCTL_MAX_SECTIONS);
		p->in_other = true;
		return;
	}
	a = realloc(c->daxctl, (c->n_daxctl + 1) * sizeof(*a));
	if (!a) {
		p->result = -ENOMEM;
		return;
	}
	c->daxctl = a;
	s = &a[c->n_daxctl++];
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
	char u[PMEMRAM_UUID_STRING_MAX], q[SHOWN_MAX];

	set_origin(p, key, &s->uuid_set);
	s->uuid[0] = '\0';
	if (strlen(value) >= sizeof(u) || (strcpy(u, value), pmemram_uuid_normalize(u) < 0)) {
		warn(p, "key '%s': invalid UUID '%s' (expected 8-4-4-4-12 hex digits): section skipped", key,
		     shown(value, q));
		invalidate(p, "invalid nvdimm.uuid");
		return;
	}
	if (strpbrk(value, "ABCDEF")) {
		/* daxctl looks sections up by the UUID uuid_unparse() gives, in lower case, as strings. */
		warn(p,
		     "key '%s': '%s' has upper-case letters: daxctl compares it with the lower-case UUID of the "
		     "device and never applies the section: skipped",
		     key, shown(value, q));
		invalidate(p, "upper-case nvdimm.uuid, which daxctl never matches");
		return;
	}
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

static void key_bool(struct daxctl_parser *p, const char *key, const char *value, bool *field,
		     struct pmemram_config_origin *o)
{
	char q[SHOWN_MAX];
	int b = daxctl_bool(value);

	set_origin(p, key, o);
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
		key_bool(p, key, value, &p->section->online, &p->section->online_set);
	else if (streq(key, "movable"))
		key_bool(p, key, value, &p->section->movable, &p->section->movable_set);
	else
		warn(p, "key '%s': not one daxctl reads (nvdimm.uuid, mode, online, movable): ignored", shown(key, q));
}

/* A section's keys are all read: say what is missing. */
static void close_sections(struct daxctl_parser *p)
{
	struct pmemram_config *c = p->config;

	for (size_t i = p->first; i < c->n_daxctl; i++) {
		struct pmemram_daxctl_section *s = &c->daxctl[i];

		p->section = s;
		p->line = s->defined.line;
		if (p->syntax_line) {
			invalidate(p, "%s:%u cannot be parsed, and daxctl rejects the whole configuration for it",
				   p->file, p->syntax_line);
			continue;
		}
		if (s->invalid)
			continue;
		if (s->uuid_set.file < 0) {
			warn(p, "section '%s': no nvdimm.uuid, the only key daxctl matches devices by: skipped",
			     s->name);
			invalidate(p, "no nvdimm.uuid");
		} else if (s->mode_set.file < 0) {
			warn(p, "section '%s': no mode: skipped (daxctl does nothing without one)", s->name);
			invalidate(p, "no mode");
		}
	}
	p->section = NULL;
}

int pmemram_daxctl_parse(struct pmemram_config *c, const char *filename, const char *text, size_t size,
			 struct pmemram_config_errors *warnings)
{
	struct daxctl_parser p = { .config = c, .warnings = warnings, .file = filename };
	char buf[PMEMRAM_CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	int r;

	if (!c || !filename || (!text && size > 0))
		return -EINVAL;
	if (size > PMEMRAM_CONFIG_MAX_FILE_SIZE) {
		pmemram_config_errors_add(warnings, filename, 0, "larger than %d bytes: ignored",
					  PMEMRAM_CONFIG_MAX_FILE_SIZE);
		return 0;
	}
	r = pmemram_config_add_file(c, filename);
	if (r < 0)
		return r;
	p.file_index = r;
	p.first = c->n_daxctl;

	while (pos < size && p.result == 0) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t len = (nl ? (size_t)(nl - text) : size) - pos;
		char *line;

		p.line++;
		pos += len + 1;
		if (memchr(text + pos - len - 1, '\0', len)) {
			warn(&p, "contains a NUL byte, not a text file: ignored");
			p.syntax_line = p.line;
			break;
		}
		if (len > PMEMRAM_CONFIG_MAX_LINE) {
			warn(&p, "line longer than %d bytes", PMEMRAM_CONFIG_MAX_LINE);
			if (!p.syntax_line)
				p.syntax_line = p.line;
			continue;
		}
		memcpy(buf, text + pos - len - 1, len);
		buf[len] = '\0';
		line = pmemram_config_strip(buf);
		if (!*line || *line == '#' || *line == ';')
			continue;
		if (*line == '[')
			open_section(&p, line);
		else
			parse_key(&p, line);
	}
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

static int merge_one(struct pmemram_config *c, struct pmemram_daxctl_section *s, struct pmemram_config_errors *warnings)
{
	const struct pmemram_claim *other;
	struct pmemram_claim claim, *claims;
	char where[PMEMRAM_CONFIG_ERROR_MAX];
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

	/* Two sections for one UUID: daxctl would join their values ("system-ram system-ram") and fail. */
	other = find_claim(c, true, s->uuid);
	if (!other)
		other = pmemram_config_find_claim(c, claim.name);
	if (other) {
		pmemram_config_origin_to_string(c, other->defined, where, sizeof(where));
		snprintf(s->text, sizeof(s->text), "%s already in section '%.63s' (%.100s)",
			 streq(other->name, claim.name) ? "name" : "UUID",
			 other->name + strlen(PMEMRAM_DAXCTL_CLAIM_PREFIX), where);
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

int pmemram_daxctl_merge(struct pmemram_config *c, struct pmemram_config_errors *warnings)
{
	if (!c)
		return -EINVAL;
	for (size_t i = 0; i < c->n_daxctl; i++) {
		int r = merge_one(c, &c->daxctl[i], warnings);

		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- the directory ---------------------------------------------------------------------- */

/* daxctl reads the entries readdir() types regular: not a symlink, even to a regular file. */
static bool regular_file(int dir_fd, const char *name)
{
	struct stat st;

	return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int pmemram_daxctl_load(struct pmemram_config *c, int dir_fd, const char *dir, struct pmemram_config_errors *warnings)
{
	char **names = NULL;
	int r;

	if (!c || dir_fd < 0 || !dir)
		return -EINVAL;
	if (!c->daxctl_conf)
		return 0;

	r = pmemram_config_list(dir_fd, NULL, dir, PMEMRAM_CONFIG_LIST_PMEMRAM, &names, warnings);
	if (r == -ENOMEM)
		return r;
	for (size_t i = 0; r >= 0 && names[i]; i++) {
		_cleanup_(freep) char *path = NULL;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		if (!regular_file(dir_fd, names[i])) {
			pmemram_config_errors_add(warnings, path, 0, "not a regular file");
			continue;
		}
		r = pmemram_config_parse_at(c, dir_fd, names[i], path, pmemram_daxctl_parse, warnings);
		if (r < 0 && r != -ENOMEM)
			r = 0; /* said in warnings; the other files still count */
	}
	pmemram_config_names_free(names);
	if (r == -ENOMEM)
		return r;
	return pmemram_daxctl_merge(c, warnings);
}
