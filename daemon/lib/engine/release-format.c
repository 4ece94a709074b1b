/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Release report output for pmemramctl and pmemramd: human text with runs of blocks folded, and JSON. */
#include <json-c/json.h>

#include "json-util.h"

#include "pmemram-private.h"
#include "pmemram-release.h"

/* What a block's reason says after "memoryN:", for comparing blocks and printing runs. */
static const char *phrase(const struct pmemram_release_block *b)
{
	const char *colon = strchr(b->reason, ':');

	return colon ? colon + 1 : b->reason;
}

/* Length of the run at i: consecutive blocks that fared alike and whose reasons say the same. */
static size_t block_run(const struct pmemram_release_report *report, size_t i)
{
	const struct pmemram_release_block *a = &report->blocks[i];
	size_t n = 1;

	while (i + n < report->n_blocks) {
		const struct pmemram_release_block *b = &report->blocks[i + n];

		if (b->id != a->id + n || b->status != a->status || b->result != a->result || b->node != a->node ||
		    !streq(phrase(b), phrase(a)))
			break;
		n++;
	}
	return n;
}

int pmemram_release_report_print(const struct pmemram_release_report *report, FILE *f)
{
	if (!report || !f)
		return -EINVAL;

	fprintf(f, "%s\n", report->reason);
	for (size_t i = 0, n; i < report->n_blocks; i += n) {
		const struct pmemram_release_block *b = &report->blocks[i];

		n = block_run(report, i);
		if (n > 1)
			fprintf(f, "  memory%lu..memory%lu:%s (%zu blocks)\n", b->id, b->id + n - 1, phrase(b), n);
		else
			fprintf(f, "  %s\n", b->reason);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON -------------------------------------------------------------------------- */

/* A name from a to_string table; "" for an out-of-range value (which the library never produces). */
static struct json_object *string(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static struct json_object *block_to_json(const struct pmemram_release_block *b)
{
	struct json_object *o = json_object_new_object();
	bool ok = json_add(o, "block", json_object_new_uint64(b->id)) && json_add(o, "node", json_object_new_int(b->node)) &&
		  json_add(o, "state_before", string(pmemram_block_state_to_string(b->state_before))) &&
		  json_add(o, "status", string(pmemram_release_block_status_to_string(b->status))) &&
		  json_add(o, "reason", json_object_new_string(b->reason));

	/* json-c stores a NULL value as JSON null: no zone for a block that was not online. */
	if (ok && b->state_before == PMEMRAM_BLOCK_ONLINE)
		ok = json_add(o, "zone_before", string(pmemram_zone_to_string(b->zone_before)));
	else if (ok)
		ok = json_object_object_add(o, "zone_before", NULL) == 0;
	if (ok && b->result < 0)
		ok = json_add(o, "errno", json_object_new_int(-b->result));
	if (!ok)
		json_object_putp(&o);
	return o;
}

int pmemram_release_report_to_json(const struct pmemram_release_report *report, struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct json_object *counts, *blocks;
	bool ok;

	if (!report || !ret)
		return -EINVAL;

	o = json_object_new_object();
	ok = json_add(o, "device", json_object_new_string(report->device)) &&
	     json_add(o, "node", json_object_new_int(report->node)) &&
	     json_add(o, "outcome", string(pmemram_release_outcome_to_string(report->outcome))) &&
	     json_add(o, "reason", json_object_new_string(report->reason)) &&
	     json_add(o, "driver_before", json_object_new_string(report->driver_before)) &&
	     json_add(o, "driver_after", json_object_new_string(report->driver_after)) &&
	     json_add(o, "block_size", json_object_new_uint64(report->block_size));
	if (ok && report->result < 0)
		ok = json_add(o, "errno", json_object_new_int(-report->result));

	counts = json_object_new_object();
	blocks = json_object_new_array();
	/* Each json_add() takes its value, added or not: no short-circuit. */
	ok = json_add(o, "counts", counts) && ok;
	ok = json_add(o, "blocks", blocks) && ok;
	for (size_t s = 0; ok && s < _PMEMRAM_RELEASE_BLOCK_STATUS_MAX; s++)
		ok = json_add(counts, pmemram_release_block_status_to_string((enum pmemram_release_block_status)s),
			 json_object_new_uint64(report->counts[s]));
	for (size_t i = 0; ok && i < report->n_blocks; i++)
		ok = json_append(blocks, block_to_json(&report->blocks[i]));
	if (!ok)
		return -ENOMEM;

	*ret = TAKE_PTR(o);
	return 0;
}
