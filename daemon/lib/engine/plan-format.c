/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plan output for pmemramctl and the daemon's status: one-line action descriptions, human text, JSON. */
#include <json-c/json.h>

#include "json-util.h"

#include "pmemram-plan.h"
#include "pmemram-private.h"
#include "pmemram-reconcile.h"

static const char *const apply_status_names[_PMEMRAM_APPLY_STATUS_MAX] = {
	[PMEMRAM_APPLY_DONE] = "done",	     [PMEMRAM_APPLY_ALREADY] = "already", [PMEMRAM_APPLY_FAILED] = "failed",
	[PMEMRAM_APPLY_SKIPPED] = "skipped", [PMEMRAM_APPLY_DRY_RUN] = "dry-run", [PMEMRAM_APPLY_CHANGED] = "changed",
};

const char *pmemram_apply_status_to_string(enum pmemram_apply_status s)
{
	return (unsigned)s < ELEMENTSOF(apply_status_names) ? apply_status_names[s] : NULL;
}

char *pmemram_action_describe(const struct pmemram_action *a, char *buf, size_t size)
{
	if (!a || !buf || size == 0)
		return NULL;

	switch (a->type) {
	case PMEMRAM_ACTION_CONVERT_NAMESPACE:
		snprintf(buf, size, "%s: convert to devdax, DESTROYING ALL ITS DATA (uuid %s)", a->device, a->uuid);
		break;
	case PMEMRAM_ACTION_CREATE_NAMESPACE:
		snprintf(buf, size,
			 "%s: create devdax namespace '%s' over all its free space, DESTROYING ANY DATA THERE",
			 a->device, a->claim);
		break;
	case PMEMRAM_ACTION_CREATE_CXL_REGION: {
		char sz[32];

		if (a->ram)
			snprintf(buf, size, "%s: create CXL RAM region of %s on %s (or finish it)", a->device,
				 pmemram_format_size(a->size, sz, sizeof(sz)), a->decoder);
		else
			snprintf(buf, size,
				 "%s: create CXL pmem region of %s on %s (or finish it), DESTROYING ANY DATA THERE",
				 a->device, pmemram_format_size(a->size, sz, sizeof(sz)), a->decoder);
		break;
	}
	case PMEMRAM_ACTION_DISABLE_DEVDAX:
		snprintf(buf, size, "%s: disable device_dax", a->device);
		break;
	case PMEMRAM_ACTION_BIND_KMEM:
		snprintf(buf, size, "%s: bind kmem (node %d)", a->device, a->node);
		break;
	case PMEMRAM_ACTION_OFFLINE_BLOCK:
		snprintf(buf, size, "%s: offline memory%lu (wrong zone)", a->device, a->block);
		break;
	case PMEMRAM_ACTION_ONLINE_BLOCK:
		if (a->zone == PMEMRAM_ZONE_NONE)
			snprintf(buf, size, "%s: online memory%lu", a->device, a->block);
		else
			snprintf(buf, size, "%s: online memory%lu as %s", a->device, a->block,
				 pmemram_config_online_to_string(a->zone));
		break;
	case PMEMRAM_ACTION_UNBIND_KMEM:
		snprintf(buf, size, "%s: unbind kmem", a->device);
		break;
	case PMEMRAM_ACTION_BIND_DEVDAX:
		snprintf(buf, size, "%s: bind device_dax", a->device);
		break;
	default:
		return NULL;
	}
	return buf;
}

/* Length of the run of ONLINE_BLOCK actions at i with consecutive blocks of one device and zone. */
static size_t online_run(const struct pmemram_plan *plan, size_t i)
{
	const struct pmemram_action *a = &plan->actions[i];
	size_t n = 1;

	if (a->type != PMEMRAM_ACTION_ONLINE_BLOCK)
		return 1;
	while (i + n < plan->n_actions) {
		const struct pmemram_action *b = &plan->actions[i + n];

		if (b->type != a->type || b->zone != a->zone || b->block != a->block + n || !streq(b->device, a->device))
			break;
		n++;
	}
	return n;
}

int pmemram_plan_print(const struct pmemram_plan *plan, FILE *f)
{
	char line[128];
	size_t step = 0;

	if (!plan || !f)
		return -EINVAL;

	if (plan->n_actions == 0)
		fprintf(f, "Nothing to do.\n");
	else
		fprintf(f, "Actions (%zu):\n", plan->n_actions);

	for (size_t i = 0, n; i < plan->n_actions; i += n) {
		const struct pmemram_action *a = &plan->actions[i];

		n = online_run(plan, i);
		if (n > 1)
			fprintf(f, "  %3zu. %s: online memory%lu..memory%lu as %s (%zu blocks)\n", ++step, a->device,
				a->block, a->block + n - 1, pmemram_config_online_to_string(a->zone), n);
		else
			fprintf(f, "  %3zu. %s\n", ++step, pmemram_action_describe(a, line, sizeof(line)));
	}

	if (plan->n_verdicts > 0)
		fprintf(f, "Devices:\n");
	for (size_t i = 0; i < plan->n_verdicts; i++) {
		const struct pmemram_device_verdict *v = &plan->verdicts[i];

		fprintf(f, "  %-14s %-16s %-9s %s%s\n", v->device, v->claim[0] ? v->claim : "-",
			pmemram_verdict_to_string(v->verdict), v->text,
			v->matched_by && streq(v->matched_by, "info-uuid") ? " (matched by the info-block UUID)" : "");
		if (v->conflict[0])
			fprintf(f, "  %-14s %s\n", "", v->conflict);
	}

	for (size_t i = 0; i < plan->n_unmatched; i++)
		fprintf(f, "Claim '%s' matches no device%s%s.\n", plan->unmatched[i],
			plan->unmatched_notes[i][0] ? ": " : "", plan->unmatched_notes[i]);

	return ferror(f) ? -EIO : 0;
}

/* ---- JSON -------------------------------------------------------------------------- */

static struct json_object *string_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static struct json_object *action_to_json(const struct pmemram_action *a)
{
	struct json_object *o = json_object_new_object();
	bool ok = json_add(o, "action", json_object_new_string(pmemram_action_type_to_string(a->type))) &&
		  json_add(o, "device", json_object_new_string(a->device)) &&
		  json_add(o, "claim", json_object_new_string(a->claim));

	if (ok && a->type != PMEMRAM_ACTION_CONVERT_NAMESPACE && a->type != PMEMRAM_ACTION_CREATE_NAMESPACE &&
	    a->type != PMEMRAM_ACTION_CREATE_CXL_REGION)
		ok = json_add(o, "node", json_object_new_int(a->node));
	if (ok && a->type == PMEMRAM_ACTION_CREATE_CXL_REGION)
		ok = json_add(o, "root_decoder", json_object_new_string(a->decoder)) &&
		     json_add(o, "size", json_object_new_uint64(a->size)) &&
		     json_add(o, "mode", json_object_new_string(a->ram ? "ram" : "pmem")) &&
		     (a->ram ? json_add_null_value(o, "uuid") : json_add(o, "uuid", json_object_new_string(a->uuid))) &&
		     json_add(o, "destroys_data", json_object_new_boolean(!a->ram));
	if (ok && (a->type == PMEMRAM_ACTION_CONVERT_NAMESPACE || a->type == PMEMRAM_ACTION_CREATE_NAMESPACE))
		ok = json_add(o, "uuid", json_object_new_string(a->uuid)) &&
		     json_add(o, "destroys_data", json_object_new_boolean(true));
	if (ok && (a->type == PMEMRAM_ACTION_OFFLINE_BLOCK || a->type == PMEMRAM_ACTION_ONLINE_BLOCK))
		ok = json_add(o, "block", json_object_new_uint64(a->block)) &&
		     json_add(o, "zone", json_object_new_string(pmemram_config_online_to_string(a->zone)));
	if (!ok)
		json_object_putp(&o);
	return o;
}

/* {"region": "region0", "memdevs": ["0x5eed0001"]}: serials as sysfs and cxl-memdev: write them. */
static struct json_object *cxl_to_json(const struct pmemram_cxl_origin *c)
{
	struct json_object *o = json_object_new_object(), *memdevs = json_object_new_array();
	bool ok = json_add(o, "region", json_object_new_string(c->region));
	char serial[24];

	/* Each json_add() takes its value, added or not: no short-circuit. */
	ok = json_add(o, "memdevs", memdevs) && ok;
	for (size_t i = 0; ok && i < c->n_serials; i++) {
		snprintf(serial, sizeof(serial), "%#" PRIx64, c->serials[i]);
		ok = json_append(memdevs, json_object_new_string(serial));
	}
	if (!ok)
		json_object_putp(&o);
	return o;
}

static struct json_object *verdict_to_json(const struct pmemram_device_verdict *v)
{
	struct json_object *o = json_object_new_object(), *claim = string_or_null(v->claim);
	bool ok;

	/* json-c stores a NULL value as JSON null. */
	ok = o && json_object_object_add(o, "claim", claim) == 0;
	if (!ok)
		json_object_put(claim);
	ok = ok && json_add(o, "device", json_object_new_string(v->device)) &&
	     json_add(o, "verdict", json_object_new_string(pmemram_verdict_to_string(v->verdict))) &&
	     json_add(o, "reason", json_object_new_string(pmemram_reason_to_string(v->reason))) &&
	     json_add(o, "text", json_object_new_string(v->text)) &&
	     (!v->conflict[0] || json_add(o, "conflict", json_object_new_string(v->conflict))) &&
	     (!v->matched_by || json_add(o, "matched_by", json_object_new_string(v->matched_by))) &&
	     (!v->cxl.region[0] || json_add(o, "cxl", cxl_to_json(&v->cxl))) &&
	     json_add(o, "blocks", json_object_new_uint64(v->n_blocks)) &&
	     json_add(o, "blocks_done", json_object_new_uint64(v->n_blocks_done));
	if (!ok)
		json_object_putp(&o);
	return o;
}

int pmemram_plan_to_json(const struct pmemram_plan *plan, struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct json_object *actions, *devices, *unmatched, *notes;
	bool ok;

	if (!plan || !ret)
		return -EINVAL;

	o = json_object_new_object();
	actions = json_object_new_array();
	devices = json_object_new_array();
	unmatched = json_object_new_array();
	notes = json_object_new_object();
	/* Each json_add() takes its value, added or not: no short-circuit. */
	ok = json_add(o, "actions", actions);
	ok = json_add(o, "devices", devices) && ok;
	ok = json_add(o, "unmatched_claims", unmatched) && ok;
	ok = json_add(o, "unmatched_notes", notes) && ok;

	for (size_t i = 0; ok && i < plan->n_actions; i++)
		ok = json_append(actions, action_to_json(&plan->actions[i]));
	for (size_t i = 0; ok && i < plan->n_verdicts; i++)
		ok = json_append(devices, verdict_to_json(&plan->verdicts[i]));
	for (size_t i = 0; ok && i < plan->n_unmatched; i++)
		ok = json_append(unmatched, json_object_new_string(plan->unmatched[i])) &&
		     (!plan->unmatched_notes[i][0] ||
		      json_add(notes, plan->unmatched[i], json_object_new_string(plan->unmatched_notes[i])));
	if (!ok)
		return -ENOMEM;

	*ret = TAKE_PTR(o);
	return 0;
}

/* ---- daxctl.conf.d ------------------------------------------------------------------------ */

static struct json_object *daxctl_section_to_json(const struct pmemram_config *c,
						  const struct pmemram_daxctl_section *s)
{
	struct json_object *o = json_object_new_object();
	char origin[PMEMRAM_CONFIG_ERROR_MAX];
	bool ok;

	pmemram_config_origin_to_string(c, s->defined, origin, sizeof(origin));
	ok = json_add(o, "origin", json_object_new_string(origin)) &&
	     json_add(o, "section", json_object_new_string(s->name)) &&
	     json_add(o, "uuid", json_object_new_string(s->uuid)) &&
	     json_add(o, "state", json_object_new_string(pmemram_daxctl_state_to_string(s->state))) &&
	     json_add(o, "claim", json_object_new_string(s->claim)) &&
	     json_add(o, "text", json_object_new_string(s->text));
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *pmemram_daxctl_to_json(const struct pmemram_config *c)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && c && i < c->n_daxctl; i++)
		if (!json_append(a, daxctl_section_to_json(c, &c->daxctl[i]))) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

/* ---- reconcile results ----------------------------------------------------------------- */

int pmemram_apply_result_to_json(const struct pmemram_apply_result *res, struct json_object **ret)
{
	struct json_object *o;
	bool ok;

	if (!res || !ret)
		return -EINVAL;
	o = action_to_json(&res->action);
	ok = json_add(o, "status", json_object_new_string(pmemram_apply_status_to_string(res->status))) &&
	     json_add(o, "reason", json_object_new_string(res->reason));
	if (ok && res->status == PMEMRAM_APPLY_FAILED)
		ok = json_add(o, "errno", json_object_new_int(-res->result));
	if (!ok) {
		json_object_put(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

int pmemram_reconcile_to_json(const struct pmemram_reconcile_result *r, struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct json_object *plan = NULL, *results;
	bool ok;

	if (!r || !ret)
		return -EINVAL;
	if (pmemram_plan_to_json(r->plan, &plan) < 0)
		return -ENOMEM;
	o = json_object_new_object();
	results = json_object_new_array();
	ok = json_add(o, "plan", plan);
	ok = json_add(o, "results", results) && ok;
	ok = ok && json_add(o, "rounds", json_object_new_int((int)r->rounds)) &&
	     json_add(o, "done", json_object_new_uint64(r->n_done)) &&
	     json_add(o, "failed", json_object_new_uint64(r->n_failed)) &&
	     json_add(o, "unreadable_processes", json_object_new_uint64(r->n_unreadable_processes));
	for (size_t i = 0; ok && i < r->n_results; i++) {
		struct json_object *item = NULL;

		ok = pmemram_apply_result_to_json(&r->results[i], &item) == 0 && json_append(results, item);
	}
	if (!ok)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}
