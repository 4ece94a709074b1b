/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reconcile: observe, plan, apply per device, and plan again until the system is as configured. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram-apply.h"
#include "pmemram-config.h"
#include "pmemram-observe.h"
#include "pmemram-plan.h"

#define PMEMRAM_RECONCILE_MAX_ROUNDS 4

struct pmemram_reconcile_options {
	const struct pmemram_apply_options *apply; /* ops, progress, dry_run; NULL: the defaults */
	const char *const *held;		   /* devices release gave back: never touched */
	size_t n_held;
};

struct pmemram_reconcile_result {
	struct pmemram_plan *plan;	       /* verdicts of the last observation (held and failed marked) */
	size_t n_results;		       /* every action attempted (or described), all rounds, in order */
	struct pmemram_apply_result *results;
	size_t n_done;			       /* results DONE or ALREADY */
	size_t n_failed;		       /* devices whose actions failed (verdict FAILED) */
	unsigned rounds;		       /* observations that found something to do */
	unsigned n_observations;	       /* readings of the system (a verified round needs none) */
	uint64_t observe_usec, users_usec, apply_usec; /* time spent reading, scanning users, applying */
	size_t n_unreadable_processes;	       /* of the last observation */
	struct pmemram_observation *observation; /* the last, with the verified results carried in */
	int onlined_error;			 /* -errno when apply->onlined_dir's record was not updated */
};

/*
 * Level-triggered: each round plans from an observation of the system and applies the plan one
 * device at a time, so a device whose action fails does not hold up the others (it is left out of
 * later rounds).  The first round observes; a round whose actions all succeeded carries what the
 * applier verified into the observation and plans again from it, while a round with a failure has
 * the next one observe again.  Rounds repeat, up to PMEMRAM_RECONCILE_MAX_ROUNDS, while they find work; a dry run
 * plans and describes once.  Returns 0 when the last observation has nothing left to do and no
 * action failed, -EAGAIN when work remains after the last round, -EIO when an action failed (the
 * results and verdicts say which); other -errno when the system could not be read (error path in
 * ctx), *ret then untouched.
 */
int pmemram_reconcile(struct pmemram_ctx *ctx, const struct pmemram_config *config,
		      const struct pmemram_reconcile_options *options, struct pmemram_reconcile_result **ret);
struct pmemram_reconcile_result *pmemram_reconcile_result_free(struct pmemram_reconcile_result *r);

/* Mark the verdicts of held devices (IGNORED, reason HELD) and drop their actions.  Pure. */
void pmemram_plan_apply_holds(struct pmemram_plan *plan, const char *const *held, size_t n_held);

/* {"plan": {...}, "results": [...], "rounds": N, "done": N, "failed": N}; needs json-c. */
struct json_object;
int pmemram_reconcile_to_json(const struct pmemram_reconcile_result *r, struct json_object **ret);
int pmemram_apply_result_to_json(const struct pmemram_apply_result *res, struct json_object **ret);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_reconcile_result, pmemram_reconcile_result_free)
