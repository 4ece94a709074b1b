/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl claim and unclaim: pmemramctl's own drop-in per claim, checked before it is put in place. */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "ctl.h"
#include "fileio.h"
#include "macro.h"
#include "pmemram-config.h"
#include "pmemram-observe.h"
#include "pmemram-plan.h"

#define CLAIM_SCHEMA_VERSION 1
/* The drop-in of claim NAME: PMEMRAM_CONFIG_DROPIN_DIR/DROPIN_PREFIX NAME .conf, first line DROPIN_MARKER. */
#define DROPIN_PREFIX "50-pmemramctl-"
#define DROPIN_MARKER "# Written by pmemramctl claim: do not edit."
#define DROPIN_MODE 0644
#define DIR_MODE 0755
#define BASE_MAX (sizeof(DROPIN_PREFIX) + PMEMRAM_CONFIG_NAME_MAX + sizeof(".conf"))

/* What one claim says, as the configuration parser read it. */
struct settings {
	enum pmemram_match match;
	char value[PMEMRAM_CONFIG_NAME_MAX]; /* "" for all-devdax */
	enum pmemram_zone zone;
	bool convert;
	bool create; /* create = devdax */
	enum pmemram_region_kind create_region;
};

/* One edit of the configuration directory under its lock; undone by edit_done() unless committed. */
struct edit {
	const char *command; /* "claim" or "unclaim", for messages */
	const char *dir;     /* the configuration directory as given */
	const char *name;    /* the claim */
	char base[BASE_MAX];					 /* "50-pmemramctl-NAME.conf" */
	char file[sizeof(PMEMRAM_CONFIG_DROPIN_DIR "/") + BASE_MAX]; /* "pmemram.conf.d/50-..." */
	char tmp[BASE_MAX + 32];				 /* hidden temporary in the drop-in dir, "" when none */
	char path[PATH_MAX];					 /* dir/file, for messages */
	int dir_fd, dropin_fd;
	bool created_dir, created_dropin, committed;
	bool exists, owned; /* our drop-in exists; it was written by pmemramctl (first line DROPIN_MARKER) */
	char *old_text;	    /* its contents when owned */
	size_t old_len;
};

static void edit_done(struct edit *e)
{
	if (!e->committed) {
		/* Leave the directory as it was found: the temporary and what this edit created go. */
		if (e->tmp[0] && e->dropin_fd >= 0)
			(void)unlinkat(e->dropin_fd, e->tmp, 0);
		if (e->created_dropin && e->dir_fd >= 0)
			(void)unlinkat(e->dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, AT_REMOVEDIR);
		if (e->created_dir)
			(void)rmdir(e->dir);
	}
	e->dropin_fd = safe_close(e->dropin_fd);
	e->dir_fd = safe_close(e->dir_fd); /* drops the lock */
	free(e->old_text);
	e->old_text = NULL;
}

/* ---- checks of the arguments ---------------------------------------------------------------- */

/* At most max letters, digits, '.', '_', '-' or characters of extra. */
static bool valid_word(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);

	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", s[i]) &&
		    !strchr(extra, s[i]))
			return false;
	return true;
}

/* The characters of a claim name (pmemram.conf(5)); they are also safe in a file name. */
static bool valid_name(const char *s)
{
	return s[0] && valid_word(s, PMEMRAM_CONFIG_NAME_MAX - 1, "");
}

/* ---- small file helpers ------------------------------------------------------------------------ */

/* Contents of a regular file, up to one byte past the configuration's size limit. */
static int read_text(int fd, char **ret, size_t *ret_len)
{
	_cleanup_(freep) char *text = malloc(PMEMRAM_CONFIG_MAX_FILE_SIZE + 1);
	size_t len = 0;

	if (!text)
		return -ENOMEM;
	while (len <= PMEMRAM_CONFIG_MAX_FILE_SIZE) {
		ssize_t k = read(fd, text + len, PMEMRAM_CONFIG_MAX_FILE_SIZE + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return negative_errno();
		if (k == 0)
			break;
		len += (size_t)k;
	}
	text[len] = '\0';
	*ret = TAKE_PTR(text);
	*ret_len = len;
	return 0;
}

/* fsync the directory holding path (a mkdir is durable once its parent is synced). */
static int sync_parent(const char *path)
{
	_cleanup_(freep) char *parent = strdup(path);
	_cleanup_(closep) int fd = -1;
	char *slash;

	if (!parent)
		return -ENOMEM;
	while ((slash = strrchr(parent, '/')) && slash[1] == '\0' && slash != parent)
		*slash = '\0'; /* "dir/" */
	slash = strrchr(parent, '/');
	if (!slash)
		strcpy(parent, ".");
	else if (slash == parent)
		parent[1] = '\0';
	else
		*slash = '\0';
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		return negative_errno();
	return 0;
}

static int system_error(const struct edit *e, const char *what, const char *path, int r)
{
	fprintf(stderr, "%s %s: cannot %s %s: %s\n", program_invocation_short_name, e->command, what, path,
		strerror(-r));
	return CTL_EXIT_SYSTEM;
}

/* ---- the edit -------------------------------------------------------------------------------------- */

/* Open (with create, make) the configuration directory, lock it, and look at our drop-in. */
static int edit_open(struct edit *e, bool create)
{
	char sub[PATH_MAX];
	struct stat st;
	int r, fd;

	if ((size_t)snprintf(e->path, sizeof(e->path), "%s/%s", e->dir, e->file) >= sizeof(e->path))
		return ctl_usage_error(e->command, "configuration directory name too long");
	(void)snprintf(sub, sizeof(sub), "%s/%s", e->dir, PMEMRAM_CONFIG_DROPIN_DIR);

	e->dir_fd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->dir_fd < 0 && errno == ENOENT && create) {
		if (mkdir(e->dir, DIR_MODE) < 0)
			return system_error(e, "create", e->dir, negative_errno());
		e->created_dir = true;
		if (chmod(e->dir, DIR_MODE) < 0)
			return system_error(e, "set the mode of", e->dir, negative_errno());
		e->dir_fd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (e->dir_fd < 0)
		return errno == ENOENT ? -ENOENT : system_error(e, "open", e->dir, negative_errno());

	/* One editor at a time: pmemramctl claim/unclaim lock the directory itself for the whole edit. */
	if (flock(e->dir_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			return system_error(e, "lock", e->dir, negative_errno());
		fprintf(stderr, "%s %s: waiting for another pmemramctl editing %s\n", program_invocation_short_name,
			e->command, e->dir);
		while (flock(e->dir_fd, LOCK_EX) < 0)
			if (errno != EINTR)
				return system_error(e, "lock", e->dir, negative_errno());
	}

	e->dropin_fd = openat(e->dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->dropin_fd < 0) {
		if (errno == ENOENT)
			return CTL_EXIT_OK;
		return system_error(e, "open", sub, negative_errno());
	}

	/* Ours: a regular file (not a symlink) whose first line is the marker. */
	fd = openat(e->dropin_fd, e->base, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		return CTL_EXIT_OK;
	e->exists = true;
	if (fd < 0)
		return errno == ELOOP ? CTL_EXIT_OK : system_error(e, "open", e->path, negative_errno());
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		safe_close(fd);
		return CTL_EXIT_OK;
	}
	r = read_text(fd, &e->old_text, &e->old_len);
	safe_close(fd);
	if (r < 0)
		return system_error(e, "read", e->path, r);
	e->owned = strncmp(e->old_text, DROPIN_MARKER "\n", strlen(DROPIN_MARKER "\n")) == 0;
	return CTL_EXIT_OK;
}

/* The configuration as it is without our drop-in (with it, when it is not ours): 0 and *ret, or
 * -ENOENT when that is no configuration; otherwise the errors are printed under headline and an
 * exit code returned (positive). */
static int load_others(struct edit *e, const char *headline, struct pmemram_config **ret)
{
	struct pmemram_config_errors errors = {};
	int r;

	r = e->owned ? pmemram_config_load_swapped(e->dir_fd, e->file, NULL, ret, &errors)
		     : pmemram_config_load(e->dir_fd, ret, &errors);
	if (r >= 0 || r == -ENOENT)
		return r;
	fprintf(stderr, "%s %s: %s; nothing was changed:\n", program_invocation_short_name, e->command, headline);
	ctl_print_config_errors(e->dir, &errors, r);
	return CTL_EXIT_CONFIG;
}

/* A claim of the name in a file pmemramctl did not write: refuse, naming where. */
static int defined_elsewhere(const struct edit *e, const struct pmemram_config *c, const struct pmemram_claim *claim)
{
	char where[PATH_MAX];

	pmemram_config_origin_to_string(c, claim->defined, where, sizeof(where));
	if (streq(e->command, "claim"))
		fprintf(stderr,
			"%s claim: claim '%s' is already defined in %s/%s, which pmemramctl did not write: change it "
			"there, or choose another name; nothing was changed\n",
			program_invocation_short_name, e->name, e->dir, where);
	else
		fprintf(stderr,
			"%s unclaim: claim '%s' is defined in %s/%s, which pmemramctl did not write: edit that file "
			"to remove it; nothing was changed\n",
			program_invocation_short_name, e->name, e->dir, where);
	return CTL_EXIT_CONFIG;
}

static void settings_from_claim(const struct pmemram_claim *claim, struct settings *s)
{
	*s = (struct settings){
		.match = claim->match,
		.zone = claim->zone,
		.convert = claim->convert,
		.create = claim->create,
		.create_region = claim->create_region,
	};
	strcpy(s->value, claim->match_value);
}

/* The settings of the claim in one file's text on its own; false when it does not parse or lacks match. */
static bool parse_settings(const struct edit *e, const char *text, size_t len, struct settings *ret)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	const struct pmemram_claim *claim;

	if (pmemram_config_new(&c) < 0 || pmemram_config_parse(c, e->file, text, len, NULL) < 0)
		return false;
	claim = pmemram_config_find_claim(c, e->name);
	if (!claim || claim->match_set.file < 0)
		return false;
	settings_from_claim(claim, ret);
	return true;
}

static const char *match_string(const struct settings *s, char *buf, size_t size)
{
	if (s->match == PMEMRAM_MATCH_ALL_DEVDAX)
		snprintf(buf, size, "all-devdax");
	else
		snprintf(buf, size, "%s:%s", pmemram_match_to_string(s->match), s->value);
	return buf;
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* ---- output ------------------------------------------------------------------------------------------ */

/* A changed key of a replaced claim. */
struct change {
	const char *key;
	char from[2 * PMEMRAM_CONFIG_NAME_MAX], to[2 * PMEMRAM_CONFIG_NAME_MAX];
};

static const char *create_string(bool create)
{
	return create ? "devdax" : "no";
}

static size_t diff_settings(const struct settings *a, const struct settings *b, struct change changes[static 5])
{
	char x[2 * PMEMRAM_CONFIG_NAME_MAX], y[2 * PMEMRAM_CONFIG_NAME_MAX];
	size_t n = 0;

	match_string(a, x, sizeof(x));
	match_string(b, y, sizeof(y));
	if (!streq(x, y)) {
		changes[n] = (struct change){ .key = "match" };
		strcpy(changes[n].from, x);
		strcpy(changes[n++].to, y);
	}
	if (a->zone != b->zone) {
		changes[n] = (struct change){ .key = "online" };
		strcpy(changes[n].from, pmemram_config_online_to_string(a->zone));
		strcpy(changes[n++].to, pmemram_config_online_to_string(b->zone));
	}
	if (a->convert != b->convert) {
		changes[n] = (struct change){ .key = "convert" };
		strcpy(changes[n].from, yes_no(a->convert));
		strcpy(changes[n++].to, yes_no(b->convert));
	}
	if (a->create != b->create) {
		changes[n] = (struct change){ .key = "create" };
		strcpy(changes[n].from, create_string(a->create));
		strcpy(changes[n++].to, create_string(b->create));
	}
	if (a->create_region != b->create_region) {
		changes[n] = (struct change){ .key = "create-region" };
		strcpy(changes[n].from, pmemram_region_kind_to_string(a->create_region));
		strcpy(changes[n++].to, pmemram_region_kind_to_string(b->create_region));
	}
	return n;
}

/* What happened, for --json. */
struct outcome {
	const char *action; /* "created", "replaced", "unchanged", "removed" */
	bool have_settings;
	struct settings settings;
	struct change changes[5];
	size_t n_changes;
	const char *create_plan; /* with create: what pmemramd's plan does in the region, NULL without */
	int matched;		 /* a UUID claim: 1 when it matches a device or namespace here, 0 when not,
				  * -1 unknown (or not a UUID claim) */
	const char *daemon; /* "reloaded", "not-running", "failed", "not-asked" */
};

static int print_json(const struct edit *e, const struct outcome *o)
{
	struct json_object *root = json_object_new_object(), *changes = json_object_new_array();
	char m[2 * PMEMRAM_CONFIG_NAME_MAX];
	bool ok = root && changes;

	for (size_t i = 0; ok && i < o->n_changes; i++) {
		struct json_object *c = json_object_new_object();

		ok = c && json_object_object_add(c, "key", json_object_new_string(o->changes[i].key)) == 0 &&
		     json_object_object_add(c, "from", json_object_new_string(o->changes[i].from)) == 0 &&
		     json_object_object_add(c, "to", json_object_new_string(o->changes[i].to)) == 0;
		if (!ok || json_object_array_add(changes, c) < 0) {
			json_object_put(c);
			ok = false;
		}
	}
	ok = ok && json_object_object_add(root, "schema_version", json_object_new_int(CLAIM_SCHEMA_VERSION)) == 0 &&
	     json_object_object_add(root, "command", json_object_new_string(e->command)) == 0 &&
	     json_object_object_add(root, "claim", json_object_new_string(e->name)) == 0 &&
	     json_object_object_add(root, "config_dir", json_object_new_string(e->dir)) == 0 &&
	     json_object_object_add(root, "path", json_object_new_string(e->path)) == 0 &&
	     json_object_object_add(root, "action", json_object_new_string(o->action)) == 0 &&
	     json_object_object_add(root, "match",
				    o->have_settings ? json_object_new_string(match_string(&o->settings, m, sizeof(m)))
						     : NULL) == 0 &&
	     json_object_object_add(root, "online",
				    o->have_settings
					    ? json_object_new_string(pmemram_config_online_to_string(o->settings.zone))
					    : NULL) == 0 &&
	     json_object_object_add(root, "convert",
				    o->have_settings ? json_object_new_boolean(o->settings.convert) : NULL) == 0 &&
	     json_object_object_add(root, "create",
				    o->have_settings ? json_object_new_boolean(o->settings.create) : NULL) == 0 &&
	     json_object_object_add(root, "create_region",
				    !o->have_settings		? NULL
				    : o->settings.create_region ? json_object_new_string(pmemram_region_kind_to_string(
									  o->settings.create_region))
								: json_object_new_boolean(false)) == 0;
	if (ok && streq(e->command, "claim"))
		ok = json_object_object_add(root, "create_plan",
					    o->create_plan ? json_object_new_string(o->create_plan) : NULL) == 0 &&
		     json_object_object_add(root, "matched",
					    o->matched >= 0 ? json_object_new_boolean(o->matched) : NULL) == 0;
	if (ok && streq(o->action, "removed"))
		ok = json_object_object_add(root, "memory_given_back", json_object_new_boolean(false)) == 0;
	else if (ok) {
		ok = json_object_object_add(root, "changes", changes) == 0;
		if (ok)
			changes = NULL;
	}
	ok = ok && json_object_object_add(root, "daemon", json_object_new_string(o->daemon)) == 0 &&
	     json_object_object_add(root, "reloaded", json_object_new_boolean(streq(o->daemon, "reloaded"))) == 0;
	json_object_put(changes);
	if (!root)
		return -ENOMEM;
	return ctl_print_json(root, ok);
}

/* Ask pmemramd to reload: the "daemon" word of the outcome; CTL_EXIT_FAILED in *exit when it did not. */
static const char *reload(const struct edit *e, int *exit_code)
{
	int r = ctl_daemon_reload(); /* says on stderr when pmemramd is absent or refused */

	if (r == 0)
		return "reloaded";
	if (ctl_daemon_absent(r))
		return "not-running";
	fprintf(stderr,
		"%s %s: %s is %s, but pmemramd did not reload the configuration (%s): the change is not in effect "
		"until it does ('systemctl reload pmemramd'; its log says why it refused)\n",
		program_invocation_short_name, e->command, e->path,
		streq(e->command, "unclaim") ? "removed" : "in place", strerror(-r));
	*exit_code = CTL_EXIT_FAILED;
	return "failed";
}

static void written(const struct edit *e, const struct outcome *o, struct ctl_claim_written *ret)
{
	snprintf(ret->path, sizeof(ret->path), "%s", e->path);
	ret->action = o->action;
}

/* Print the outcome (asking pmemramd to reload first when something changed) and return the exit code. */
static int finish(const struct edit *e, struct outcome *o, bool json)
{
	bool changed = !streq(o->action, "unchanged");
	int exit_code = CTL_EXIT_OK, r;

	o->daemon = "not-asked";
	if (json) {
		if (changed)
			o->daemon = reload(e, &exit_code);
		if (print_json(e, o) < 0) {
			fprintf(stderr, "%s %s: cannot format the result: %s\n", program_invocation_short_name,
				e->command, strerror(ENOMEM));
			return CTL_EXIT_SYSTEM;
		}
		r = ctl_flush_stdout();
		return r != CTL_EXIT_OK ? r : exit_code;
	}

	if (!changed) {
		printf("%s already has claim '%s' with these settings: nothing changed.\n", e->path, e->name);
		return ctl_flush_stdout();
	}
	/* Said before pmemramd is asked, whose answer may take a while. */
	r = ctl_flush_stdout();
	if (r != CTL_EXIT_OK)
		return r;
	o->daemon = reload(e, &exit_code);
	if (streq(o->daemon, "reloaded"))
		printf("pmemramd reloaded the configuration.\n");
	r = ctl_flush_stdout();
	return r != CTL_EXIT_OK ? r : exit_code;
}

/* ---- claim ------------------------------------------------------------------------------------------- */

struct claim_args {
	enum pmemram_match match;
	const char *value; /* NULL for all-devdax */
	enum pmemram_zone zone;
	bool convert;
	bool create;
	enum pmemram_region_kind create_region; /* pmem with create */
};

/* The drop-in's text; the value is checked for its characters already, the parser judges the rest. */
static int dropin_text(const char *name, const struct claim_args *a, char **ret)
{
	char value[PMEMRAM_CONFIG_NAME_MAX + 16], region[32] = "";
	int n;

	if (a->match == PMEMRAM_MATCH_ALL_DEVDAX)
		snprintf(value, sizeof(value), "all-devdax");
	else {
		snprintf(value, sizeof(value), "%s:%s", pmemram_match_to_string(a->match), a->value);
		if (a->match == PMEMRAM_MATCH_UUID)
			(void)pmemram_uuid_normalize(value + strlen("uuid:")); /* lower case when it is one */
	}
	if (a->create_region)
		snprintf(region, sizeof(region), "create-region = %s\n",
			 pmemram_region_kind_to_string(a->create_region));
	n = asprintf(ret,
		     DROPIN_MARKER
		     "\n"
		     "# 'pmemramctl claim %s ...' replaces this file, 'pmemramctl unclaim %s' removes it.\n"
		     "[claim \"%s\"]\n"
		     "match = %s\n"
		     "online = %s\n"
		     "convert = %s\n"
		     "%s%s",
		     name, name, name, value, pmemram_config_online_to_string(a->zone), yes_no(a->convert), region,
		     a->create ? "create = devdax\n" : "");
	return n < 0 ? -ENOMEM : n;
}

/* Write text to a new hidden file in the drop-in directory and sync it; its name goes to e->tmp. */
static int write_tmp(struct edit *e, const char *text, size_t len)
{
	int r;

	r = file_write_temp_at(e->dropin_fd, e->base, text, len, DROPIN_MODE, 0, e->tmp, sizeof(e->tmp));
	if (r < 0) {
		e->tmp[0] = '\0';
		return system_error(e, "write a temporary file for", e->path, r);
	}
	return CTL_EXIT_OK;
}

/* create = devdax in region: what pmemramd's plan with configuration c does there, as pmemramctl
 * plan shows it.  CTL_EXIT_OK with that in note; otherwise the region is missing or the plan
 * refuses it (too little free space, a namespace with the claim's name that pmemram did not make),
 * said on stderr, and CTL_EXIT_CONFIG. */
static int check_create(const struct edit *e, const struct pmemram_config *c, const char *region, char *note,
			size_t size)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	bool found = false;
	int r;

	if (ctl_ctx_new(&ctx) < 0)
		return CTL_EXIT_SYSTEM;
	/* The users of devices do not change what is created: not scanned. */
	r = pmemram_observe_lazy(ctx, &o);
	if (r < 0)
		return ctl_read_failed(ctx, "the system state", r);
	for (size_t i = 0; i < o->observed.n_regions; i++)
		found = found || streq(o->observed.regions[i].name, region);
	if (!found) {
		fprintf(stderr,
			"%s claim: --create: there is no nvdimm region %s (ndctl list -R lists them) to create a "
			"namespace in; nothing was changed\n",
			program_invocation_short_name, region);
		return CTL_EXIT_CONFIG;
	}
	r = pmemram_plan_compute(c, &o->observed, &plan);
	if (r < 0) {
		fprintf(stderr, "%s claim: cannot compute the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		const struct pmemram_device_verdict *v = &plan->verdicts[i];

		if (!streq(v->device, region) || !streq(v->claim, e->name))
			continue;
		if (v->verdict == PMEMRAM_VERDICT_REFUSED) {
			fprintf(stderr, "%s claim: --create: %s would be refused %s: %s; nothing was changed\n",
				program_invocation_short_name, region, pmemram_reason_to_string(v->reason), v->text);
			return CTL_EXIT_CONFIG;
		}
		snprintf(note, size, "%s: %s", region, v->text);
		return CTL_EXIT_OK;
	}
	/* No verdict for the region: it holds the namespace the claim made (plan_region()). */
	snprintf(note, size, "%s: the namespace claim '%s' created is there already, nothing to create", region,
		 e->name);
	return CTL_EXIT_OK;
}

/* Whether claim name of c matches a dax device or a namespace on this machine: 1 or 0; -1, said,
 * when the machine cannot be read. */
static int matched_here(const struct pmemram_config *c, const char *name)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	_cleanup_(pmemram_observation_freep) struct pmemram_observation *o = NULL;
	_cleanup_(pmemram_plan_freep) struct pmemram_plan *plan = NULL;
	int r;

	if (ctl_ctx_new(&ctx) < 0)
		return -1;
	r = pmemram_observe_lazy(ctx, &o);
	if (r >= 0)
		r = pmemram_plan_compute(c, &o->observed, &plan);
	if (r < 0) {
		fprintf(stderr, "%s claim: cannot tell whether claim '%s' matches a device here: %s\n",
			program_invocation_short_name, name, strerror(-r));
		return -1;
	}
	for (size_t i = 0; i < plan->n_unmatched; i++)
		if (streq(plan->unmatched[i], name))
			return 0;
	return 1;
}

/* Without ret, the whole command: the drop-in, the output, the reload.  With ret, only the
 * drop-in and (unless json) its line of output: the caller reloads and reports. */
static int do_claim(const char *dir, const char *name, const struct claim_args *a, bool json,
		    struct ctl_claim_written *ret)
{
	_cleanup_(edit_done) struct edit e = { .command = "claim", .dir = dir, .name = name, .dir_fd = -1,
					       .dropin_fd = -1 };
	_cleanup_(pmemram_config_freep) struct pmemram_config *others = NULL, *result = NULL;
	_cleanup_(freep) char *text = NULL;
	struct pmemram_config_errors errors = {};
	struct outcome o = { .action = "created", .matched = -1 };
	struct settings old, new;
	const struct pmemram_claim *claim;
	char source[sizeof(PMEMRAM_CONFIG_DROPIN_DIR "/") + sizeof(e.tmp)], create_plan[PMEMRAM_PLAN_TEXT_MAX + 64];
	bool renamed;
	int r, len;

	snprintf(e.base, sizeof(e.base), DROPIN_PREFIX "%s.conf", name);
	snprintf(e.file, sizeof(e.file), PMEMRAM_CONFIG_DROPIN_DIR "/%s", e.base);
	r = edit_open(&e, true);
	if (r < 0)
		return system_error(&e, "open", dir, r);
	if (r != CTL_EXIT_OK)
		return r;
	if (e.exists && !e.owned) {
		fprintf(stderr,
			"%s claim: %s exists and was not written by pmemramctl (its first line is not '%s'): "
			"refusing to replace it; nothing was changed\n",
			program_invocation_short_name, e.path, DROPIN_MARKER);
		return CTL_EXIT_CONFIG;
	}

	r = load_others(&e, "the configuration does not load", &others);
	if (r > 0)
		return r;
	if (others && (claim = pmemram_config_find_claim(others, name)))
		return defined_elsewhere(&e, others, claim);

	len = dropin_text(name, a, &text);
	if (len < 0)
		return system_error(&e, "write", e.path, len);

	if (e.owned && parse_settings(&e, e.old_text, e.old_len, &old)) {
		if (parse_settings(&e, text, (size_t)len, &new) && diff_settings(&old, &new, o.changes) == 0) {
			o = (struct outcome){
				.action = "unchanged", .have_settings = true, .settings = old, .matched = -1
			};
			if (ret) {
				if (!json)
					printf("%s already has claim '%s' with these settings: nothing changed.\n",
					       e.path, e.name);
				written(&e, &o, ret);
				return CTL_EXIT_OK;
			}
			return finish(&e, &o, json);
		}
	}

	if (e.dropin_fd < 0) {
		char sub[PATH_MAX];

		(void)snprintf(sub, sizeof(sub), "%s/%s", e.dir, PMEMRAM_CONFIG_DROPIN_DIR);
		if (mkdirat(e.dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, DIR_MODE) < 0)
			return system_error(&e, "create", sub, negative_errno());
		e.created_dropin = true;
		if (fchmodat(e.dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, DIR_MODE, 0) < 0)
			return system_error(&e, "set the mode of", sub, negative_errno());
		e.dropin_fd = openat(e.dir_fd, PMEMRAM_CONFIG_DROPIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (e.dropin_fd < 0)
			return system_error(&e, "open", sub, negative_errno());
	}

	r = write_tmp(&e, text, (size_t)len);
	if (r != CTL_EXIT_OK)
		return r;

	/* The whole configuration, with what is on disk in the temporary standing in for the drop-in. */
	snprintf(source, sizeof(source), PMEMRAM_CONFIG_DROPIN_DIR "/%s", e.tmp);
	r = pmemram_config_load_swapped(e.dir_fd, e.file, source, &result, &errors);
	if (r < 0) {
		fprintf(stderr, "%s claim: the configuration would not load with %s; nothing was changed:\n",
			program_invocation_short_name, e.path);
		ctl_print_config_errors(e.dir, &errors, r);
		return CTL_EXIT_CONFIG;
	}
	if (a->create && !a->create_region) {
		r = check_create(&e, result, a->value, create_plan, sizeof(create_plan));
		if (r != CTL_EXIT_OK)
			return r;
		o.create_plan = create_plan;
	}

	r = file_commit_at(e.dropin_fd, e.tmp, e.base, &renamed);
	e.tmp[0] = '\0';
	if (!renamed)
		return system_error(&e, "rename a temporary file to", e.path, r);
	e.committed = true;
	if (r < 0 || (e.created_dropin && fsync(e.dir_fd) < 0) || (e.created_dir && sync_parent(e.dir) < 0))
		return system_error(&e, "sync the directory of", e.path, r < 0 ? r : negative_errno());
	(void)flock(e.dir_fd, LOCK_UN);

	claim = pmemram_config_find_claim(result, name);
	o.have_settings = claim != NULL;
	if (a->match == PMEMRAM_MATCH_UUID && !ret)
		o.matched = matched_here(result, name);
	if (claim)
		settings_from_claim(claim, &o.settings);
	if (e.exists) {
		o.action = "replaced";
		o.n_changes = 0;
		if (claim && parse_settings(&e, e.old_text, e.old_len, &old))
			o.n_changes = diff_settings(&old, &o.settings, o.changes);
	}

	if (!json) {
		char m[2 * PMEMRAM_CONFIG_NAME_MAX];

		if (!e.exists)
			printf("Wrote %s: claim '%s', match = %s, online = %s, convert = %s%s%s.\n", e.path, name,
			       match_string(&o.settings, m, sizeof(m)),
			       pmemram_config_online_to_string(o.settings.zone), yes_no(o.settings.convert),
			       !o.settings.create_region			? ""
			       : o.settings.create_region == PMEMRAM_REGION_RAM ? ", create-region = ram"
										: ", create-region = pmem",
			       o.settings.create ? ", create = devdax" : "");
		else {
			printf("Replaced %s: claim '%s'", e.path, name);
			for (size_t i = 0; i < o.n_changes; i++)
				printf("%s %s %s -> %s", i == 0 ? ":" : ",", o.changes[i].key, o.changes[i].from,
				       o.changes[i].to);
			printf(".\n");
		}
		if (o.create_plan)
			printf("Plan for %s.\n", o.create_plan);
		/* The warnings below follow the line they are about, also in a log that takes both. */
		fflush(stdout);
	}
	if (o.matched == 0)
		fprintf(stderr,
			"%s claim: warning: UUID %s matches no namespace or dax device on this machine (ndctl list -N -v "
			"shows each namespace's uuid and raw_uuid, either of which a claim matches): pmemramd does "
			"nothing with claim '%s' until one appears\n",
			program_invocation_short_name, o.settings.value, name);
	/* A memdev's memory has no dax device until it is in a region, which a claim without
	 * create-region waits for: say so where the README's new user would otherwise see nothing. */
	if (a->match == PMEMRAM_MATCH_CXL_MEMDEV && !o.settings.create_region && !ret && !json &&
	    matched_here(result, name) == 0)
		fprintf(stderr,
			"%s claim: warning: CXL memdev %s has no region with a dax device on this machine: pmemramd "
			"does nothing with claim '%s' until one appears; --create-region=ram has pmemramd make a "
			"RAM region of it (pmemramctl doctor lists its capacity)\n",
			program_invocation_short_name, o.settings.value, name);
	if (o.settings.convert)
		fprintf(stderr,
			"%s claim: warning: pmemramd will convert the namespace %s to devdax if it is not: that DESTROYS "
			"the namespace's contents\n",
			program_invocation_short_name, o.settings.value);
	if (ret) {
		written(&e, &o, ret);
		return CTL_EXIT_OK;
	}
	return finish(&e, &o, json);
}

int ctl_claim_write(const char *dir, const char *name, const char *uuid, enum pmemram_zone zone, bool json,
		    struct ctl_claim_written *ret)
{
	struct claim_args a = { .match = PMEMRAM_MATCH_UUID, .value = uuid, .zone = zone };

	if (!valid_name(name) || !valid_word(uuid, PMEMRAM_CONFIG_NAME_MAX - 1, "") || !ret)
		return CTL_EXIT_USAGE;
	return do_claim(dir, name, &a, json, ret);
}

static void claim_help(void)
{
	printf("Usage: %s claim [--json] [--config DIR] NAME MATCH [--online movable|normal]\n"
	       "       [--convert --destroy-data]\n"
	       "       %s claim [--json] [--config DIR] NAME --region regionN --create\n"
	       "       [--online movable|normal]\n"
	       "       %s claim [--json] [--config DIR] NAME --cxl-memdev SERIAL --create-region[=ram]\n"
	       "       --destroy-data [--online movable|normal]\n"
	       "       %s claim [--json] [--config DIR] --from-daxctl [FILE]\n"
	       "\n"
	       "Claim dax devices as system RAM: write the drop-in\n"
	       "DIR/" PMEMRAM_CONFIG_DROPIN_DIR "/" DROPIN_PREFIX "NAME.conf with [claim \"NAME\"], check that the\n"
	       "whole configuration loads with it, put it in place and ask pmemramd to reload.\n"
	       "The options are the claim's whole settings: run again with others to replace the\n"
	       "file; with the same, nothing changes.  A claim NAME in a file pmemramctl did not\n"
	       "write is refused.\n"
	       "\n"
	       "MATCH, exactly one of:\n"
	       "  -u --uuid UUID        the namespace with this UUID (its dax device)\n"
	       "  -d --device daxX.Y    that dax device\n"
	       "  -r --region regionN   every dax device in that region\n"
	       "  -H --hmem START-END   every soft-reserved (hmem) device in that physical range\n"
	       "                        (hex, as /proc/iomem prints it)\n"
	       "  -H --hmem node=N      every soft-reserved (hmem) device with that target node\n"
	       "     --cxl-region regionN\n"
	       "                        every dax device on that CXL region (cxl list -R)\n"
	       "     --cxl-memdev SERIAL\n"
	       "                        every dax device on a CXL region using that memdev\n"
	       "                        (its serial: 0x5eed0001, or as cxl list -M prints it)\n"
	       "  -a --all-devdax       every dax device\n"
	       "\n"
	       "  -o --online ZONE      movable (default: can be given back) or normal\n"
	       "     --convert          let pmemramd turn the namespace into devdax first; only with\n"
	       "                        --uuid: this DESTROYS the namespace's contents\n"
	       "     --destroy-data     required with --convert: you accept that\n"
	       "     --create           let pmemramd create one devdax namespace named NAME over the\n"
	       "                        region's largest free extent; only with --region.  Free space\n"
	       "                        only: no namespace's data is touched.  Refused when the region\n"
	       "                        is missing or pmemramd's plan would refuse it\n"
	       "     --create-region    let pmemramd make the memdev's pmem CXL region when it is in\n"
	       "                        none, then a devdax namespace over it (create-region = pmem,\n"
	       "                        create = devdax); only with --cxl-memdev.  This DESTROYS what\n"
	       "                        the memdev's pmem held: needs --destroy-data\n"
	       "     --create-region=ram  let pmemramd make the memdev's RAM CXL region when it is\n"
	       "                        in none (create-region = ram): its dax device is the memory;\n"
	       "                        only with --cxl-memdev\n"
	       "     --from-daxctl [FILE]  write a claim daxctl-NAME for each [reconfigure-device NAME]\n"
	       "                        section of FILE (default: the *.conf files of $PMEMRAM_DAXCTL_CONFIG_DIR\n"
	       "                        or " PMEMRAM_DAXCTL_CONFIG_DIR_DEFAULT "); sections with no pmemram\n"
	       "                        equivalent are refused, naming FILE:LINE\n"
	       "  -c --config DIR       Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT
	       ")\n"
	       "  -j --json             Print JSON (schema in pmemramctl(8))\n"
	       "  -h --help             Show this help\n",
	       program_invocation_short_name, program_invocation_short_name, program_invocation_short_name,
	       program_invocation_short_name);
}

#define MATCH_OPTIONS "--uuid, --device, --region, --hmem, --cxl-region, --cxl-memdev or --all-devdax"

int cmd_claim(const struct ctl_globals *g, int argc, char **argv)
{
	enum {
		OPT_CONVERT = 0x100,
		OPT_DESTROY_DATA,
		OPT_FROM_DAXCTL,
		OPT_CXL_REGION,
		OPT_CXL_MEMDEV,
		OPT_CREATE,
		OPT_CREATE_REGION
	};
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "uuid", required_argument, NULL, 'u' },
		{ "device", required_argument, NULL, 'd' },
		{ "region", required_argument, NULL, 'r' },
		{ "hmem", required_argument, NULL, 'H' },
		{ "cxl-region", required_argument, NULL, OPT_CXL_REGION },
		{ "cxl-memdev", required_argument, NULL, OPT_CXL_MEMDEV },
		{ "all-devdax", no_argument, NULL, 'a' },
		{ "online", required_argument, NULL, 'o' },
		{ "convert", no_argument, NULL, OPT_CONVERT },
		{ "destroy-data", no_argument, NULL, OPT_DESTROY_DATA },
		{ "create", no_argument, NULL, OPT_CREATE },
		{ "create-region", optional_argument, NULL, OPT_CREATE_REGION },
		{ "from-daxctl", no_argument, NULL, OPT_FROM_DAXCTL },
		{},
	};
	static const char *const match_options[] = {
		[PMEMRAM_MATCH_UUID] = "--uuid",
		[PMEMRAM_MATCH_DEVICE] = "--device",
		[PMEMRAM_MATCH_REGION] = "--region",
		[PMEMRAM_MATCH_HMEM_RANGE] = "--hmem",
		[PMEMRAM_MATCH_HMEM_NODE] = "--hmem",
		[PMEMRAM_MATCH_ALL_DEVDAX] = "--all-devdax",
		[PMEMRAM_MATCH_CXL_REGION] = "--cxl-region",
		[PMEMRAM_MATCH_CXL_MEMDEV] = "--cxl-memdev",
	};
	struct claim_args a = { .match = _PMEMRAM_MATCH_MAX, .zone = PMEMRAM_ZONE_MOVABLE };
	const char *dir = ctl_config_dir(), *name;
	bool json = g->json, from_daxctl = false, settings = false, destroy_data = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjc:u:d:r:H:ao:", options, NULL)) >= 0) {
		enum pmemram_match m = _PMEMRAM_MATCH_MAX;

		switch (c) {
		case 'h':
			claim_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'c':
			dir = optarg;
			break;
		case 'u':
			m = PMEMRAM_MATCH_UUID;
			break;
		case 'd':
			m = PMEMRAM_MATCH_DEVICE;
			break;
		case 'r':
			m = PMEMRAM_MATCH_REGION;
			break;
		case 'H':
			/* the parser judges the value; the kind only picks the word of messages */
			m = strncmp(optarg, "node=", 5) == 0 ? PMEMRAM_MATCH_HMEM_NODE : PMEMRAM_MATCH_HMEM_RANGE;
			break;
		case OPT_CXL_REGION:
			m = PMEMRAM_MATCH_CXL_REGION;
			break;
		case OPT_CXL_MEMDEV:
			m = PMEMRAM_MATCH_CXL_MEMDEV;
			break;
		case 'a':
			m = PMEMRAM_MATCH_ALL_DEVDAX;
			break;
		case 'o':
			settings = true;
			if (streq(optarg, "movable"))
				a.zone = PMEMRAM_ZONE_MOVABLE;
			else if (streq(optarg, "normal"))
				a.zone = PMEMRAM_ZONE_NORMAL;
			else
				return ctl_usage_error("claim", "--online: expected 'movable' or 'normal', got '%s'",
						       optarg);
			break;
		case OPT_CONVERT:
			a.convert = settings = true;
			break;
		case OPT_FROM_DAXCTL:
			from_daxctl = true;
			break;
		case OPT_DESTROY_DATA:
			destroy_data = settings = true;
			break;
		case OPT_CREATE:
			a.create = settings = true;
			break;
		case OPT_CREATE_REGION:
			if (optarg && streq(optarg, "ram"))
				a.create_region = PMEMRAM_REGION_RAM;
			else if (!optarg || streq(optarg, "pmem"))
				a.create_region = PMEMRAM_REGION_PMEM, a.create = true;
			else
				return ctl_usage_error("claim", "--create-region=%s: expected pmem or ram", optarg);
			settings = true;
			break;
		default:
			return ctl_unknown_option("claim", argv);
		}
		if (m == _PMEMRAM_MATCH_MAX)
			continue;
		if (a.match != _PMEMRAM_MATCH_MAX)
			return ctl_usage_error("claim",
					       "%s and %s: a claim matches one way; give exactly one of " MATCH_OPTIONS,
					       match_options[a.match], match_options[m]);
		a.match = m;
		a.value = m == PMEMRAM_MATCH_ALL_DEVDAX ? NULL : optarg;
	}

	if (from_daxctl) {
		if (a.match != _PMEMRAM_MATCH_MAX || settings)
			return ctl_usage_error("claim",
					       "--from-daxctl takes the claims' settings from daxctl's files: "
					       "no --uuid, --device, --region, --hmem, --cxl-region, --cxl-memdev, "
					       "--all-devdax, --online, --convert, --destroy-data, --create or "
					       "--create-region");
		if (optind + 1 < argc)
			return ctl_usage_error("claim", "unexpected argument '%s'", argv[optind + 1]);
		return ctl_claim_from_daxctl(dir, optind < argc ? argv[optind] : NULL, json);
	}
	if (optind >= argc)
		return ctl_usage_error("claim", "missing NAME");
	name = argv[optind];
	if (optind + 1 < argc)
		return ctl_usage_error("claim", "unexpected argument '%s'", argv[optind + 1]);
	if (!valid_name(name))
		return ctl_usage_error("claim", "invalid claim name '%s' (1 to %d letters, digits, '.', '_' or '-')",
				       name, PMEMRAM_CONFIG_NAME_MAX - 1);
	if (a.match == _PMEMRAM_MATCH_MAX)
		return ctl_usage_error("claim", "missing what to claim: " MATCH_OPTIONS);
	/* The value goes into the file as one line; the configuration parser judges its syntax. */
	/* '=' for hmem's node=N */
	if (a.value && !valid_word(a.value, PMEMRAM_CONFIG_NAME_MAX - 1, "="))
		return ctl_usage_error("claim", "%s: invalid value '%s' (expected %s)", match_options[a.match], a.value,
				       a.match == PMEMRAM_MATCH_UUID	 ? "8-4-4-4-12 hex digits"
				       : a.match == PMEMRAM_MATCH_DEVICE ? "a dax device name, daxX.Y"
				       : a.match == PMEMRAM_MATCH_REGION || a.match == PMEMRAM_MATCH_CXL_REGION
					       ? "a region name, regionN"
				       : a.match == PMEMRAM_MATCH_CXL_MEMDEV ? "a memdev serial number"
									     : "START-END in hex, or node=N");
	if (a.convert && a.match != PMEMRAM_MATCH_UUID)
		return ctl_usage_error("claim",
				       "--convert needs --uuid: converting a namespace to devdax DESTROYS its contents, "
				       "so it is allowed only for one namespace named by its UUID, not with %s",
				       match_options[a.match]);
	if (a.convert && !destroy_data)
		return ctl_usage_error("claim",
				       "--convert DESTROYS the namespace's contents (its file system, its data): add "
				       "--destroy-data to say that you accept that");
	if (a.create_region && a.match != PMEMRAM_MATCH_CXL_MEMDEV)
		return ctl_usage_error("claim",
				       "--create-region needs --cxl-memdev: pmemramd makes the region of one memdev "
				       "named by its serial, not with %s",
				       match_options[a.match]);
	if (a.create_region == PMEMRAM_REGION_PMEM && !destroy_data)
		return ctl_usage_error("claim",
				       "--create-region DESTROYS what the memdev's persistent memory holds: add "
				       "--destroy-data to say that you accept that");
	if (destroy_data && !a.convert && a.create_region != PMEMRAM_REGION_PMEM)
		return ctl_usage_error("claim", "--destroy-data goes with --convert or --create-region (pmem) only");
	if (a.create && !a.create_region && a.match != PMEMRAM_MATCH_REGION)
		return ctl_usage_error("claim",
				       "--create needs --region: pmemramd creates a namespace in an nvdimm region, "
				       "not with %s",
				       match_options[a.match]);

	return do_claim(dir, name, &a, json, NULL);
}

/* ---- unclaim ----------------------------------------------------------------------------------------- */

static int do_unclaim(const char *dir, const char *name, bool json)
{
	_cleanup_(edit_done) struct edit e = { .command = "unclaim", .dir = dir, .name = name, .dir_fd = -1,
					       .dropin_fd = -1 };
	_cleanup_(pmemram_config_freep) struct pmemram_config *others = NULL;
	struct outcome o = { .action = "removed", .matched = -1 };
	const struct pmemram_claim *claim;
	int r;

	snprintf(e.base, sizeof(e.base), DROPIN_PREFIX "%s.conf", name);
	snprintf(e.file, sizeof(e.file), PMEMRAM_CONFIG_DROPIN_DIR "/%s", e.base);
	r = edit_open(&e, false);
	if (r == -ENOENT)
		goto unknown;
	if (r != CTL_EXIT_OK)
		return r;

	r = load_others(&e,
			e.owned ? "the configuration would not load without it" : "the configuration does not load",
			&others);
	if (r > 0)
		return r;
	if (others && (claim = pmemram_config_find_claim(others, name)))
		return defined_elsewhere(&e, others, claim);
	if (!e.owned)
		goto unknown;

	o.have_settings = parse_settings(&e, e.old_text, e.old_len, &o.settings);
	if (unlinkat(e.dropin_fd, e.base, 0) < 0)
		return system_error(&e, "remove", e.path, negative_errno());
	e.committed = true;
	if (fsync(e.dropin_fd) < 0)
		return system_error(&e, "sync the directory of", e.path, negative_errno());
	(void)flock(e.dir_fd, LOCK_UN);

	if (!json) {
		printf("Removed %s: claim '%s' is no longer configured.\n", e.path, name);
		printf("Memory it brought online stays system RAM: give it back with 'pmemramctl release DEVICE'.\n");
	}
	return finish(&e, &o, json);

unknown:
	fprintf(stderr, "%s unclaim: no claim '%s' in %s\n", program_invocation_short_name, name, dir);
	return CTL_EXIT_USAGE;
}

static void unclaim_help(void)
{
	printf("Usage: %s unclaim [--json] [--config DIR] NAME\n"
	       "\n"
	       "Remove the drop-in 'pmemramctl claim' wrote for NAME and ask pmemramd to reload.\n"
	       "A claim NAME in a file pmemramctl did not write is refused: edit that file.\n"
	       "Unclaiming does not give memory back: what the claim brought online stays\n"
	       "system RAM until 'pmemramctl release DEVICE'.\n"
	       "\n"
	       "  -c --config DIR   Configuration directory (default $PMEMRAM_CONFIG_DIR or " PMEMRAM_CONFIG_DIR_DEFAULT ")\n"
	       "  -j --json         Print JSON (schema in pmemramctl(8))\n"
	       "  -h --help         Show this help\n",
	       program_invocation_short_name);
}

int cmd_unclaim(const struct ctl_globals *g, int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{},
	};
	const char *dir = ctl_config_dir();
	bool json = g->json;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "hjc:", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			unclaim_help();
			return CTL_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'c':
			dir = optarg;
			break;
		default:
			return ctl_unknown_option("unclaim", argv);
		}
	}
	if (optind >= argc)
		return ctl_usage_error("unclaim", "missing NAME");
	if (optind + 1 < argc)
		return ctl_usage_error("unclaim", "unexpected argument '%s'", argv[optind + 1]);
	if (!valid_name(argv[optind]))
		return ctl_usage_error("unclaim", "invalid claim name '%s' (1 to %d letters, digits, '.', '_' or '-')",
				       argv[optind], PMEMRAM_CONFIG_NAME_MAX - 1);
	return do_unclaim(dir, argv[optind], json);
}
