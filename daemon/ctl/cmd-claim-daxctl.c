/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pmemramctl claim --from-daxctl: pmemramctl's drop-ins for the sections of daxctl.conf.d. */
#include <fcntl.h>
#include <limits.h>
#include <strings.h>

#include <json-c/json.h>

#include "ctl.h"
#include "json-util.h"
#include "macro.h"
#include "pmemram-config.h"
#include "pmemram-observe.h"
#include "pmemram-plan.h"

#define FROM_DAXCTL_SCHEMA_VERSION 1
#define CLAIM_NAME_PREFIX "daxctl-" /* the claim written for [reconfigure-device NAME] */
#define REASON_MAX 640		    /* why a section is refused, with the NUL */

/* pmemram's own configuration in dir, without daxctl's: 0 and *ret (empty when there is none),
 * or an exit code with the errors printed. */
static int load_own(const char *dir, struct pmemram_config **ret)
{
	struct pmemram_config_errors errors = {};
	_cleanup_(closep) int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (fd < 0 && errno != ENOENT) {
		fprintf(stderr, "%s claim: cannot open %s: %m\n", program_invocation_short_name, dir);
		return CTL_EXIT_CONFIG;
	}
	r = fd < 0 ? -ENOENT : pmemram_config_load(fd, ret, &errors);
	if (r == -ENOENT)
		r = pmemram_config_new(ret);
	if (r == -ENOMEM) {
		fprintf(stderr, "%s claim: %s\n", program_invocation_short_name, strerror(ENOMEM));
		return CTL_EXIT_SYSTEM;
	}
	if (r < 0) {
		fprintf(stderr, "%s claim: the configuration does not load; nothing was changed:\n",
			program_invocation_short_name);
		ctl_print_config_errors(dir, &errors, r);
		return CTL_EXIT_CONFIG;
	}
	return CTL_EXIT_OK;
}

/* Read file (NULL: the daxctl directory) into c and merge; warnings on stderr. */
static int read_daxctl(struct pmemram_config *c, const char *file)
{
	struct pmemram_config_errors warnings = {};
	const char *dir = ctl_daxctl_dir();
	int r = 0;

	c->daxctl_conf = true; /* asked for by name: daxctl-conf = no does not apply */
	if (file) {
		r = pmemram_config_parse_at(c, AT_FDCWD, file, file, pmemram_daxctl_parse, &warnings);
		if (r >= 0)
			r = pmemram_daxctl_merge(c, &warnings);
		else if (r != -ENOMEM) {
			fprintf(stderr, "%s claim: %s\n", program_invocation_short_name, warnings.msg[0]);
			return CTL_EXIT_CONFIG;
		}
	} else {
		_cleanup_(closep) int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "%s claim: cannot open %s: %m\n", program_invocation_short_name, dir);
			return CTL_EXIT_CONFIG;
		}
		r = pmemram_daxctl_load(c, fd, dir, &warnings);
	}
	if (r < 0) {
		fprintf(stderr, "%s claim: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	for (size_t i = 0; i < warnings.n; i++)
		fprintf(stderr, "%s claim: warning: %s\n", program_invocation_short_name, warnings.msg[i]);
	return CTL_EXIT_OK;
}

/* The machine as pmemramd would plan it with c: whether a drop-in for a claimed section would take
 * a device daxctl never touches, or one a claim of pmemram's own decides for. */
struct seen {
	struct pmemram_ctx *ctx;
	struct pmemram_observation *o;
	struct pmemram_plan *plan;
};

static void seen_done(struct seen *w)
{
	pmemram_plan_free(w->plan);
	pmemram_observation_free(w->o);
	pmemram_ctx_unref(w->ctx);
}

/* Any section that would be written: the devices are looked at for each (a claim of pmemram's by a
 * device's label UUID and a section by its info block's UUID name the same device). */
static bool needs_observing(const struct pmemram_config *c)
{
	for (size_t i = 0; i < c->n_daxctl; i++)
		if (c->daxctl[i].state == PMEMRAM_DAXCTL_CLAIMED)
			return true;
	return false;
}

static int observe(const struct pmemram_config *c, struct seen *w)
{
	int r;

	if (!needs_observing(c))
		return CTL_EXIT_OK;
	if (ctl_ctx_new(&w->ctx) < 0)
		return CTL_EXIT_SYSTEM;
	r = pmemram_observe(w->ctx, &w->o);
	if (r < 0)
		return ctl_read_failed(w->ctx, "the system state", r);
	r = pmemram_plan_compute(c, &w->o->observed, &w->plan);
	if (r < 0) {
		fprintf(stderr, "%s claim: cannot compute the plan: %s\n", program_invocation_short_name, strerror(-r));
		return CTL_EXIT_SYSTEM;
	}
	return CTL_EXIT_OK;
}

/* The claim of pmemram's own that decides for a device the drop-in's match = uuid: would take (the
 * label's UUID or the info block's), or NULL: the drop-in would take the device from it. */
static const struct pmemram_claim *outranked_by(const struct pmemram_config *c, const struct seen *w,
						const struct pmemram_daxctl_section *s)
{
	for (size_t i = 0; w->plan && i < w->o->observed.n_devices && i < w->plan->n_verdicts; i++) {
		const struct pmemram_observed_dax *d = &w->o->observed.devices[i];
		const struct pmemram_claim *claim = pmemram_config_find_claim(c, w->plan->verdicts[i].claim);

		if (claim && !claim->from_daxctl &&
		    (!strcasecmp(d->info_uuid, s->uuid) || !strcasecmp(d->uuid, s->uuid)))
			return claim;
	}
	return NULL;
}

/* A device whose namespace's label UUID is the section's and whose info block's is not: daxctl never
 * applies the section to it, but pmemram's match = uuid: takes either, so a drop-in would. */
static const struct pmemram_observed_dax *label_only(const struct seen *w, const struct pmemram_daxctl_section *s)
{
	for (size_t i = 0; w->o && i < w->o->observed.n_devices; i++) {
		const struct pmemram_observed_dax *d = &w->o->observed.devices[i];

		if (d->uuid[0] && !strcasecmp(d->uuid, s->uuid) && strcasecmp(d->info_uuid, s->uuid) != 0)
			return d;
	}
	return NULL;
}

/* Why a claimed section's drop-in must not be written, in buf, or NULL. */
static const char *not_writable(const struct pmemram_config *c, const struct seen *w,
				const struct pmemram_daxctl_section *s, char *buf, size_t size)
{
	const struct pmemram_observed_dax *d;
	const struct pmemram_claim *mine;
	char where[PATH_MAX + 16];

	if (s->state != PMEMRAM_DAXCTL_CLAIMED)
		return NULL;
	d = label_only(w, s);
	if (d) {
		snprintf(buf, size,
			 "%s is the label UUID of %s's namespace %s, not its info block's (%s): daxctl never applies "
			 "the section to it, and a drop-in's match = uuid: would",
			 s->uuid, d->dax.name, d->namespace[0] ? d->namespace : "(none)",
			 d->info_uuid[0] ? d->info_uuid : "unknown");
		return buf;
	}
	mine = outranked_by(c, w, s);
	if (mine) {
		pmemram_config_origin_to_string(c, mine->defined, where, sizeof(where));
		snprintf(buf, size, "outranked by claim '%.63s' (%.100s): a drop-in would change which claim decides",
			 mine->name, where);
		return buf;
	}
	return NULL;
}

/* One section's result, for --json. */
static struct json_object *section_json(const struct pmemram_config *c, const struct pmemram_daxctl_section *s,
					const char *result, const char *claim, const char *path, const char *reason)
{
	struct json_object *o = json_object_new_object();
	char origin[PATH_MAX + 16];
	bool ok;

	pmemram_config_origin_to_string(c, s->defined, origin, sizeof(origin));
	ok = json_add(o, "origin", json_object_new_string(origin)) &&
	     json_add(o, "section", json_object_new_string(s->name)) &&
	     json_add(o, "uuid", json_object_new_string(s->uuid)) &&
	     json_add(o, "result", json_object_new_string(result)) &&
	     (claim ? json_add(o, "claim", json_object_new_string(claim)) : json_add_null_value(o, "claim")) &&
	     (path ? json_add(o, "path", json_object_new_string(path)) : json_add_null_value(o, "path")) &&
	     (claim && path ? json_add(o, "online", json_object_new_string(s->movable ? "movable" : "normal"))
			    : json_add_null_value(o, "online")) &&
	     json_add(o, "reason", json_object_new_string(reason));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The section whose mode counts for a merged section's UUID (whose drop-in holds its keys), or NULL. */
static const struct pmemram_daxctl_section *merged_into(const struct pmemram_config *c,
							const struct pmemram_daxctl_section *s)
{
	for (size_t i = 0; i < c->n_daxctl; i++) {
		const struct pmemram_daxctl_section *p = &c->daxctl[i];

		if (streq(p->uuid, s->uuid) &&
		    (p->state == PMEMRAM_DAXCTL_CLAIMED || p->state == PMEMRAM_DAXCTL_REDUNDANT ||
		     p->state == PMEMRAM_DAXCTL_CONFLICT))
			return p;
	}
	return NULL;
}

/* Why nothing is written for s (in buf, or s's own text), or NULL: a merged section shares the
 * refusal of the section its keys join. */
static const char *refusal(const struct pmemram_config *c, const struct seen *w, const struct pmemram_daxctl_section *s,
			   char *buf, size_t size)
{
	const struct pmemram_daxctl_section *p;
	char why[REASON_MAX], where[PATH_MAX + 16];
	const char *r;

	switch (s->state) {
	case PMEMRAM_DAXCTL_CLAIMED:
		return not_writable(c, w, s, buf, size);
	case PMEMRAM_DAXCTL_REDUNDANT:
		return NULL;
	case PMEMRAM_DAXCTL_MERGED:
		p = merged_into(c, s);
		r = p ? refusal(c, w, p, why, sizeof(why)) : NULL;
		if (!r)
			return NULL;
		pmemram_config_origin_to_string(c, p->defined, where, sizeof(where));
		snprintf(buf, size, "its keys join section '%.63s' (%.100s), which cannot be translated: %.400s",
			 p->name, where, r);
		return buf;
	case PMEMRAM_DAXCTL_SKIPPED: /* mode = devdax is no refusal */
		return !s->invalid && !s->system_ram ? NULL : s->text;
	default:
		return s->text;
	}
}

/* Write the claim of one section, or say why not: CTL_EXIT_OK, CTL_EXIT_CONFIG for a refusal,
 * another exit code when writing failed.  *ret_written when a drop-in was created or replaced. */
static int one_section(const char *dir, const struct pmemram_config *c, const struct seen *seen,
		       const struct pmemram_daxctl_section *s, bool json, struct json_object *results,
		       bool *ret_written)
{
	struct ctl_claim_written w = {};
	char origin[PATH_MAX + 16], name[PMEMRAM_CONFIG_NAME_MAX], why[REASON_MAX];
	const char *result, *claim = NULL, *reason = "", *refused;
	int r = CTL_EXIT_OK;

	pmemram_config_origin_to_string(c, s->defined, origin, sizeof(origin));
	/* After the claim's name (a section's, or one made unique), for the claimed and merged ones. */
	snprintf(name, sizeof(name), CLAIM_NAME_PREFIX "%.*s", (int)(sizeof(name) - sizeof(CLAIM_NAME_PREFIX)),
		 strncmp(s->claim, PMEMRAM_DAXCTL_CLAIM_PREFIX, strlen(PMEMRAM_DAXCTL_CLAIM_PREFIX)) == 0
			 ? s->claim + strlen(PMEMRAM_DAXCTL_CLAIM_PREFIX)
			 : s->name);
	refused = refusal(c, seen, s, why, sizeof(why));

	switch (refused ? _PMEMRAM_DAXCTL_STATE_MAX : s->state) {
	case PMEMRAM_DAXCTL_CLAIMED:
		r = ctl_claim_write(dir, name, s->uuid, s->movable ? PMEMRAM_ZONE_MOVABLE : PMEMRAM_ZONE_NORMAL, json,
				    &w);
		result = r == CTL_EXIT_OK ? w.action : "failed";
		claim = name;
		*ret_written = *ret_written || (r == CTL_EXIT_OK && !streq(w.action, "unchanged"));
		break;
	case PMEMRAM_DAXCTL_REDUNDANT:
		result = "already-claimed";
		claim = s->claim;
		reason = s->text;
		if (!json)
			printf("%s: section '%s': nothing to write, %s.\n", origin, s->name, s->text);
		break;
	case PMEMRAM_DAXCTL_MERGED:
		/* Its keys are in the drop-in of the section whose mode counts. */
		result = "merged";
		claim = strncmp(s->claim, PMEMRAM_DAXCTL_CLAIM_PREFIX, strlen(PMEMRAM_DAXCTL_CLAIM_PREFIX)) == 0
				? name
				: s->claim;
		reason = s->text;
		if (!json)
			printf("%s: section '%s': nothing to write of its own, %s.\n", origin, s->name, s->text);
		break;
	case PMEMRAM_DAXCTL_SKIPPED: /* mode = devdax */
		result = "not-a-claim";
		reason = "mode = devdax";
		if (!json)
			printf("%s: section '%s': mode = devdax, nothing to write.\n", origin, s->name);
		break;
	default:
		result = "refused";
		reason = refused;
		r = CTL_EXIT_CONFIG;
		fprintf(stderr, "%s claim: %s: section '%s' cannot be translated: %s\n", program_invocation_short_name,
			origin, s->name, reason);
		break;
	}
	if (!json_append(results, section_json(c, s, result, claim, w.action ? w.path : NULL, reason)))
		return CTL_EXIT_SYSTEM;
	return r;
}

int ctl_claim_from_daxctl(const char *dir, const char *file, bool json)
{
	_cleanup_(pmemram_config_freep) struct pmemram_config *c = NULL;
	_cleanup_(seen_done) struct seen seen = {};
	_cleanup_(json_object_putp) struct json_object *root = json_object_new_object();
	struct json_object *results = json_object_new_array();
	const char *source = file ? file : ctl_daxctl_dir(), *daemon = "not-asked";
	bool written = false, ok;
	int r, exit_code = CTL_EXIT_OK;

	ok = json_add(root, "sections", results);
	if (!ok)
		return CTL_EXIT_SYSTEM;
	r = load_own(dir, &c);
	if (r == CTL_EXIT_OK)
		r = read_daxctl(c, file);
	if (r == CTL_EXIT_OK)
		r = observe(c, &seen);
	if (r != CTL_EXIT_OK)
		return r;
	if (c->n_daxctl == 0 && !json)
		printf("No [reconfigure-device] sections in %s: nothing to write.\n", source);

	for (size_t i = 0; i < c->n_daxctl; i++) {
		r = one_section(dir, c, &seen, &c->daxctl[i], json, results, &written);
		/* A refusal does not stop the other sections; a failure to write does. */
		if (r == CTL_EXIT_CONFIG)
			exit_code = r;
		else if (r != CTL_EXIT_OK)
			return r;
	}

	if (written) {
		r = ctl_daemon_reload(); /* says on stderr when pmemramd is absent or refused */
		daemon = r == 0 ? "reloaded" : ctl_daemon_absent(r) ? "not-running" : "failed";
		if (r < 0 && !ctl_daemon_absent(r) && exit_code == CTL_EXIT_OK)
			exit_code = CTL_EXIT_FAILED;
		if (r == 0 && !json)
			printf("pmemramd reloaded the configuration.\n");
	}
	if (json) {
		ok = json_add(root, "schema_version", json_object_new_int(FROM_DAXCTL_SCHEMA_VERSION)) &&
		     json_add(root, "command", json_object_new_string("claim --from-daxctl")) &&
		     json_add(root, "config_dir", json_object_new_string(dir)) &&
		     json_add(root, "source", json_object_new_string(source)) &&
		     json_add(root, "daemon", json_object_new_string(daemon));
		if (ctl_print_json(TAKE_PTR(root), ok) < 0) {
			fprintf(stderr, "%s claim: cannot format the result: %s\n", program_invocation_short_name,
				strerror(ENOMEM));
			return CTL_EXIT_SYSTEM;
		}
	}
	r = ctl_flush_stdout();
	return r != CTL_EXIT_OK ? r : exit_code;
}
