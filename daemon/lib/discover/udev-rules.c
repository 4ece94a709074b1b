/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* udev rules that online hot-added memory (ATTR{state}="online..."): pure line/file parser and the directory scan. */
#include <fnmatch.h>
#include <sys/stat.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"

/* udev's rules directories, highest priority first, relative to the udev root. */
static const char *const rules_dirs[] = {
	"etc/udev/rules.d",	      "run/udev/rules.d", "usr/local/lib/udev/rules.d",
	"usr/lib/udev/rules.d", "lib/udev/rules.d",
};

enum udev_op {
	OP_MATCH,     /* == */
	OP_NOMATCH,   /* != */
	OP_ASSIGN,    /* = := */
	OP_ADD,	      /* += -= */
};

struct udev_token {
	char key[64]; /* "ATTR{state}" */
	enum udev_op op;
	char value[256];
};

/* One "KEY{attr} op "value"" at *p, advancing *p past it and a following comma.
 * 1 for a token, 0 at the end of the line, -EINVAL when malformed. */
static int next_token(const char **p, struct udev_token *ret)
{
	const char *s = *p + strspn(*p, " \t,"), *end;
	size_t len;

	if (!*s)
		return 0;

	len = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	if (len == 0)
		return -EINVAL;
	if (s[len] == '{') {
		const char *close = strchr(s + len, '}');

		if (!close)
			return -EINVAL;
		len = (size_t)(close - s) + 1;
	}
	if (copy_span(ret->key, sizeof(ret->key), s, len) < 0)
		return -EINVAL;
	s += len;
	s += strspn(s, " \t");

	if (s[0] == '=' && s[1] == '=')
		ret->op = OP_MATCH, s += 2;
	else if (s[0] == '!' && s[1] == '=')
		ret->op = OP_NOMATCH, s += 2;
	else if (s[0] == ':' && s[1] == '=')
		ret->op = OP_ASSIGN, s += 2;
	else if ((s[0] == '+' || s[0] == '-') && s[1] == '=')
		ret->op = OP_ADD, s += 2;
	else if (s[0] == '=')
		ret->op = OP_ASSIGN, s += 1;
	else
		return -EINVAL;
	s += strspn(s, " \t");

	/* Values are double-quoted; \" inside is an escaped quote. */
	if (*s != '"')
		return -EINVAL;
	s++;
	for (end = s; *end && *end != '"'; end++)
		if (*end == '\\' && end[1])
			end++;
	if (*end != '"' || copy_span(ret->value, sizeof(ret->value), s, (size_t)(end - s)) < 0)
		return -EINVAL;
	s = end + 1;

	if (*s && *s != ',' && *s != ' ' && *s != '\t')
		return -EINVAL;
	*p = s;
	return 1;
}

/* Whether a "a|b*" pattern list matches sample, as udev matches values. */
static bool pattern_matches(const char *patterns, const char *sample)
{
	char buf[256];
	char *save = NULL;

	if (strlen(patterns) >= sizeof(buf))
		return false;
	strcpy(buf, patterns);
	for (char *alt = strtok_r(buf, "|", &save); alt; alt = strtok_r(NULL, "|", &save))
		if (fnmatch(alt, sample, 0) == 0)
			return true;
	return false;
}

/* What a SUBSYSTEM or KERNEL test says about memory block devices. */
static enum pmemram_udev_selects selects_for(const struct udev_token *t, const char *sample)
{
	bool matches = pattern_matches(t->value, sample);

	if (t->op == OP_MATCH)
		return matches ? PMEMRAM_UDEV_SELECTS_MEMORY : PMEMRAM_UDEV_SELECTS_OTHER;
	if (t->op == OP_NOMATCH)
		return matches ? PMEMRAM_UDEV_SELECTS_NOT_MEMORY : PMEMRAM_UDEV_SELECTS_ANY;
	return PMEMRAM_UDEV_SELECTS_ANY;
}

static int state_policy(const char *value, bool *ret_sets, enum pmemram_auto_online *ret_policy)
{
	int a;

	/* "$env{.state}", "%c": decided at event time, zone unknown: the kernel's default. */
	if (strpbrk(value, "$%")) {
		*ret_sets = true;
		*ret_policy = PMEMRAM_AUTO_ONLINE_ONLINE;
		return 0;
	}
	a = pmemram_auto_online_from_string(value);
	*ret_sets = a > PMEMRAM_AUTO_ONLINE_OFFLINE;
	if (*ret_sets)
		*ret_policy = (enum pmemram_auto_online)a;
	return 0;
}

static int copy_label(char *buf, size_t size, const char *value)
{
	return copy_span(buf, size, value, strlen(value)) < 0 ? -EINVAL : 0;
}

int pmemram_parse_udev_line(const char *line, struct pmemram_udev_line *ret)
{
	struct pmemram_udev_line l = { .selects = PMEMRAM_UDEV_SELECTS_ANY };
	struct udev_token t;
	const char *p = line;
	int r;

	if (!line || !ret)
		return -EINVAL;

	while ((r = next_token(&p, &t)) > 0) {
		enum pmemram_udev_selects s = PMEMRAM_UDEV_SELECTS_ANY;

		if (streq(t.key, "SUBSYSTEM"))
			s = selects_for(&t, "memory");
		else if (streq(t.key, "KERNEL"))
			s = selects_for(&t, "memory0");
		else if (streq(t.key, "ATTR{state}") && t.op == OP_ASSIGN)
			r = state_policy(t.value, &l.sets_state, &l.policy);
		else if (streq(t.key, "GOTO") && t.op == OP_ASSIGN)
			r = copy_label(l.goto_label, sizeof(l.goto_label), t.value);
		else if (streq(t.key, "LABEL") && t.op == OP_ASSIGN)
			r = copy_label(l.label, sizeof(l.label), t.value);
		if (r < 0)
			return r;
		/* The most decisive test of the line wins: "not memory" over "memory" over "any". */
		if (s > l.selects)
			l.selects = s;
	}
	if (r < 0)
		return r;

	*ret = l;
	return 0;
}

/* Logical lines of a rules file: comments and blanks skipped, "\" continuations joined. */
struct rule_cursor {
	const char *p, *end;
	unsigned next_line;
	unsigned line; /* first physical line of buf */
	bool too_long; /* buf holds only the start of the rule */
	char buf[PMEMRAM_UDEV_MAX_LINE];
};

/* 1 with cursor->buf, 0 at the end. */
static int next_rule(struct rule_cursor *c)
{
	size_t len = 0;

	c->too_long = false;
	while (c->p < c->end) {
		const char *s = c->p, *nl = memchr(s, '\n', (size_t)(c->end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(c->end - s);
		bool more;

		c->p = nl ? nl + 1 : c->end;
		c->next_line++;
		if (len == 0) {
			size_t blanks = 0;

			/* Within the line: the text has no NUL after its last byte. */
			while (blanks < n && (s[blanks] == ' ' || s[blanks] == '\t'))
				blanks++;

			c->line = c->next_line;
			if (blanks >= n || s[blanks] == '#')
				continue;
			s += blanks;
			n -= blanks;
		}

		more = n > 0 && s[n - 1] == '\\';
		if (more)
			n--;
		if (n > sizeof(c->buf) - 1 - len) {
			n = sizeof(c->buf) - 1 - len;
			c->too_long = true;
		}
		memcpy(c->buf + len, s, n);
		len += n;
		c->buf[len] = '\0';
		if (!more)
			return 1;
	}
	return len > 0;
}

int pmemram_udev_rules_scan(const char *name, const char *text, size_t size, struct pmemram_observed_udev *ret)
{
	_cleanup_(freep) struct rule_cursor *c = NULL;
	char section[64] = "";

	if (!name || (!text && size > 0) || !ret)
		return -EINVAL;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = text;
	c->end = text ? text + size : NULL; /* NULL + 0 is undefined */

	while (next_rule(c) > 0) {
		struct pmemram_udev_line l;
		bool in_section = section[0] != '\0';

		if (c->too_long || pmemram_parse_udev_line(c->buf, &l) < 0)
			continue;

		/* SUBSYSTEM!="memory", GOTO="X": until LABEL="X" only memory devices get here. */
		if (l.label[0] && streq(l.label, section)) {
			section[0] = '\0';
			in_section = false;
		}
		if (!in_section && l.selects == PMEMRAM_UDEV_SELECTS_NOT_MEMORY && l.goto_label[0])
			strcpy(section, l.goto_label);

		if (!l.sets_state)
			continue;
		if (l.selects == PMEMRAM_UDEV_SELECTS_MEMORY ||
		    (in_section && l.selects == PMEMRAM_UDEV_SELECTS_ANY)) {
			struct pmemram_observed_udev u = { .onlines_memory = true, .policy = l.policy };

			snprintf(u.rule, sizeof(u.rule), "%s:%u", name, c->line);
			*ret = u;
			return 1;
		}
	}
	return 0;
}

/* Whether a RUN value runs daxctl with -C: "/usr/bin/daxctl -C $env{DEVNAME}". */
static bool runs_daxctl_conf(const char *value)
{
	const char *daxctl = strstr(value, "daxctl "), *arg;

	if (!daxctl || (daxctl != value && daxctl[-1] != '/' && daxctl[-1] != ' '))
		return false;
	/* -C as daxctl's own first argument, where daxctl 76 has no such option */
	arg = daxctl + strlen("daxctl ");
	arg += strspn(arg, " ");
	return strncmp(arg, "-C", 2) == 0 && (arg[2] == ' ' || arg[2] == '\0');
}

/* 1 when the logical line assigns RUN a daxctl -C command. */
static int line_runs_daxctl_conf(const char *line)
{
	struct udev_token t;
	const char *p = line;
	int r;

	while ((r = next_token(&p, &t)) > 0)
		if (strncmp(t.key, "RUN", 3) == 0 && t.op != OP_MATCH && t.op != OP_NOMATCH &&
		    runs_daxctl_conf(t.value))
			return 1;
	return r;
}

int pmemram_udev_daxctl_hook_scan(const char *name, const char *text, size_t size, char *rule, size_t rule_size)
{
	_cleanup_(freep) struct rule_cursor *c = NULL;

	if (!name || (!text && size > 0) || !rule || rule_size == 0)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = text;
	c->end = text ? text + size : NULL;
	while (next_rule(c) > 0)
		if (!c->too_long && line_runs_daxctl_conf(c->buf) > 0) {
			snprintf(rule, rule_size, "%s:%u", name, c->line);
			return 1;
		}
	return 0;
}

/* ---- the directories ------------------------------------------------------------------- */

struct rules_file {
	size_t dir; /* index into rules_dirs */
	const char *name; /* borrowed from a sysfs_dir */
};

/* By name, then by directory priority. */
static int compare_rules_files(const void *a, const void *b)
{
	const struct rules_file *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x->dir > y->dir) - (x->dir < y->dir);
}

/* What looks at each rules file's text: 0 to go on, 1 when found (the walk stops), -errno. */
typedef int (*rules_scan_fn)(const char *name, const char *text, size_t size, void *userdata);

static int scan_file(struct pmemram_ctx *ctx, const struct rules_file *f, rules_scan_fn scan, void *userdata)
{
	_cleanup_(fclosep) FILE *file = NULL;
	_cleanup_(freep) char *text = NULL;
	char path[PATH_MAX], shown[PATH_MAX];
	size_t len;
	int r;

	r = path_printf(path, sizeof(path), "%s/%s", rules_dirs[f->dir], f->name);
	if (r < 0)
		return r;
	r = root_fopen(ctx, PMEMRAM_ROOT_UDEV, path, &file);
	if (sysfs_absent(ctx, r))
		return 0; /* a dangling symlink */
	if (r < 0)
		return r;

	text = malloc(PMEMRAM_UDEV_MAX_FILE_SIZE + 1);
	if (!text)
		return -ENOMEM;
	len = fread(text, 1, PMEMRAM_UDEV_MAX_FILE_SIZE + 1, file);
	if (ferror(file)) {
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_UDEV, path);
		return -EIO;
	}
	if (len > PMEMRAM_UDEV_MAX_FILE_SIZE) {
		pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_UDEV, path);
		return log_debug_errno(ctx, -EFBIG, "%s: larger than %d bytes", path, PMEMRAM_UDEV_MAX_FILE_SIZE);
	}

	/* Messages name the file as the system sees it, whatever the udev root. */
	r = path_printf(shown, sizeof(shown), "/%s", path);
	if (r < 0)
		return r;
	return scan(shown, text, len, userdata);
}

/* What the rules directories looked like when their rules were read: the rules are read again only
 * when one of them changed.  Adding, removing or renaming a rules file (as package managers and
 * editors do) changes its directory's mtime; a file rewritten in place is seen at the next change
 * of a directory, or by a new context (a restarted daemon). */
struct dir_stamp {
	bool exists;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

struct rules_cache {
	struct dir_stamp dirs[ELEMENTSOF(rules_dirs)];
	struct pmemram_observed_udev udev;
};

/* A directory changed within the last RULES_RACY_SEC may change again within the same tick of the
 * file system's clock and keep its mtime (git's "racy" entries): such stamps are not trusted. */
#define RULES_RACY_SEC 2

/* 1 when every stamp is old enough to be trusted, 0 when not, -errno. */
static int stamp_dirs(struct pmemram_ctx *ctx, struct dir_stamp *ret)
{
	const time_t now = (time_t)(now_usec(CLOCK_REALTIME) / USEC_PER_SEC);
	bool trusted = true;

	for (size_t i = 0; i < ELEMENTSOF(rules_dirs); i++) {
		struct stat st;
		int r = root_stat(ctx, PMEMRAM_ROOT_UDEV, rules_dirs[i], &st);

		if (r == -ENOENT || r == -ENOTDIR) {
			pmemram_ctx_clear_error(ctx);
			ret[i] = (struct dir_stamp){};
			continue;
		}
		if (r < 0)
			return r;
		ret[i] = (struct dir_stamp){ true, st.st_dev, st.st_ino, st.st_mtim };
		trusted = trusted && st.st_mtim.tv_sec + RULES_RACY_SEC < now;
	}
	return trusted;
}

static bool stamps_equal(const struct dir_stamp *a, const struct dir_stamp *b)
{
	for (size_t i = 0; i < ELEMENTSOF(rules_dirs); i++)
		if (a[i].exists != b[i].exists || a[i].dev != b[i].dev || a[i].ino != b[i].ino ||
		    a[i].mtime.tv_sec != b[i].mtime.tv_sec || a[i].mtime.tv_nsec != b[i].mtime.tv_nsec)
			return false;
	return true;
}

/* Every rules file in udev's order to scan until it finds something: 1 found, 0 not, -errno. */
static int rules_walk(struct pmemram_ctx *ctx, rules_scan_fn scan, void *userdata)
{
	struct sysfs_dir dirs[ELEMENTSOF(rules_dirs)] = {};
	_cleanup_(freep) struct rules_file *files = NULL;
	size_t n = 0, total = 0;
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(rules_dirs) && r >= 0; i++) {
		r = root_dir_read_suffix(ctx, PMEMRAM_ROOT_UDEV, rules_dirs[i], ".rules", PMEMRAM_UDEV_MAX_RULES_FILES,
					 &dirs[i]);
		if (sysfs_absent(ctx, r) || r == -ENOTDIR)
			r = 0;
		total += dirs[i].n;
	}
	if (r < 0)
		goto finish;

	files = calloc(total + 1, sizeof(*files));
	if (!files) {
		r = -ENOMEM;
		goto finish;
	}
	for (size_t i = 0; i < ELEMENTSOF(rules_dirs); i++)
		for (size_t k = 0; k < dirs[i].n; k++)
			if (!streq(dirs[i].names[k], PMEMRAM_UDEV_OWN_RULES))
				files[n++] = (struct rules_file){ i, dirs[i].names[k] };
	qsort(files, n, sizeof(*files), compare_rules_files);

	/* A name in an earlier directory hides the same name in later ones (udev's rule). */
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && streq(files[i].name, files[i - 1].name))
			continue;
		r = scan_file(ctx, &files[i], scan, userdata);
		if (r != 0)
			break;
	}

finish:
	for (size_t i = 0; i < ELEMENTSOF(rules_dirs); i++)
		sysfs_dir_done(&dirs[i]);
	return r;
}

static int scan_online(const char *name, const char *text, size_t size, void *userdata)
{
	return pmemram_udev_rules_scan(name, text, size, userdata);
}

static int rules_read(struct pmemram_ctx *ctx, struct pmemram_observed_udev *ret)
{
	struct pmemram_observed_udev u = {};
	int r = rules_walk(ctx, scan_online, &u);

	if (r < 0)
		return r;
	*ret = u;
	return 0;
}

struct hook_scan {
	char *rule;
	size_t size;
};

static int scan_hook(const char *name, const char *text, size_t size, void *userdata)
{
	struct hook_scan *h = userdata;

	return pmemram_udev_daxctl_hook_scan(name, text, size, h->rule, h->size);
}

int pmemram_udev_daxctl_hook_read(struct pmemram_ctx *ctx, char *rule, size_t size)
{
	struct hook_scan h = { rule, size };

	if (!ctx || !rule || size == 0)
		return -EINVAL;
	rule[0] = '\0';
	return rules_walk(ctx, scan_hook, &h);
}

int pmemram_udev_rules_read(struct pmemram_ctx *ctx, struct pmemram_observed_udev *ret)
{
	struct rules_cache now = {}, *cache;
	int trusted, r;

	if (!ctx || !ret)
		return -EINVAL;

	/* Stamped before reading: a change made meanwhile is read again next time. */
	trusted = stamp_dirs(ctx, now.dirs);
	if (trusted < 0)
		return trusted;
	cache = pmemram_ctx_get_rules_cache(ctx);
	if (cache && stamps_equal(cache->dirs, now.dirs)) {
		*ret = cache->udev;
		return 0;
	}

	r = rules_read(ctx, &now.udev);
	if (r < 0)
		return r;
	/* Kept only under trusted stamps; without memory for the copy the stale one goes too. */
	cache = trusted ? malloc(sizeof(*cache)) : NULL;
	if (cache)
		*cache = now;
	pmemram_ctx_set_rules_cache(ctx, cache);
	*ret = now.udev;
	return 0;
}
