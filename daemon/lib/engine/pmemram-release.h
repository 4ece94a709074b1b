/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Release: give a kmem device's memory back (offline its blocks, unbind kmem, bind device_dax) or put it all back. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmemram-apply.h"
#include "pmemram-plan.h"
#include "pmemram.h"

/* What became of one memory block of the device. */
enum pmemram_release_block_status {
	PMEMRAM_RELEASE_BLOCK_ALREADY_OFFLINE, /* offline before the run: nothing to do */
	PMEMRAM_RELEASE_BLOCK_OFFLINED,	       /* offlined by this run (and removed with kmem when released) */
	PMEMRAM_RELEASE_BLOCK_FAILED,	       /* could not be offlined: result and reason say why */
	PMEMRAM_RELEASE_BLOCK_RESTORED,	       /* offlined, then onlined again in its zone: the release failed */
	PMEMRAM_RELEASE_BLOCK_NOT_RESTORED,    /* could not be put back as it was: reason says how it is left */
	PMEMRAM_RELEASE_BLOCK_DRY_RUN,	       /* dry run: would be offlined */
	PMEMRAM_RELEASE_BLOCK_UNTOUCHED,       /* online, not attempted: the release was refused */
	_PMEMRAM_RELEASE_BLOCK_STATUS_MAX,
};

/* What became of the device. */
enum pmemram_release_outcome {
	PMEMRAM_RELEASE_RELEASED,    /* kmem unbound, device_dax bound, the range's blocks gone: success */
	PMEMRAM_RELEASE_ALREADY,     /* device_dax was bound already: success */
	PMEMRAM_RELEASE_REFUSED,     /* nothing was changed: unknown device, other driver, unreadable state */
	PMEMRAM_RELEASE_ROLLED_BACK, /* a step failed; every change was undone: kmem bound, blocks in their zones */
	PMEMRAM_RELEASE_INCOMPLETE,  /* a step failed and not everything could be undone: reason says what is left */
	PMEMRAM_RELEASE_DRY_RUN,     /* dry run: reason and blocks say what would be done */
	_PMEMRAM_RELEASE_OUTCOME_MAX,
};

struct pmemram_release_block {
	unsigned long id;			   /* memoryN */
	int node;				   /* -1 when the block has no nodeN link */
	enum pmemram_block_state state_before;
	enum pmemram_zone zone_before;		   /* its zone when online before, else PMEMRAM_ZONE_NONE */
	enum pmemram_release_block_status status;
	int result;				   /* -errno when FAILED or NOT_RESTORED, else 0 */
	char reason[PMEMRAM_PLAN_TEXT_MAX];	   /* one line naming the block */
};

struct pmemram_release_report {
	char device[32];
	int node;			    /* the device's target node, -1 when unknown */
	char driver_before[32];		    /* "" when unbound */
	char driver_after[32];		    /* as last read; "" when unbound */
	enum pmemram_release_outcome outcome;
	int result;			    /* 0, or the -errno pmemram_release() returned */
	char reason[PMEMRAM_PLAN_TEXT_MAX]; /* one line naming the device: what happened, or why not */
	uint64_t block_size;		    /* 0 when the blocks were never read */
	size_t n_blocks;		    /* the range's blocks present before the run */
	struct pmemram_release_block *blocks; /* sorted by id */
	size_t counts[_PMEMRAM_RELEASE_BLOCK_STATUS_MAX]; /* blocks per status */
};

/*
 * Give the memory of dax device "device" back: offline the whole memory blocks inside its range
 * (highest first; the kernel migrates movable pages away), and when all of them are offline unbind
 * kmem (which removes them) and bind device_dax, re-reading sysfs after every step.
 *
 * Nothing is left half-done: when a block cannot be offlined, every other block is still tried (so
 * the report names all that cannot go), then the blocks this run offlined are onlined again in the
 * zone each had and kmem stays bound.  When device_dax cannot be bound after kmem was unbound, kmem
 * is bound again and the blocks restored.  Only when that undoing fails too is the outcome INCOMPLETE.
 *
 * options: ops (NULL: sysfs, see pmemram-apply.h) need set_block_state, disable_kmem
 * and enable_devdax, plus enable_kmem to undo; progress is called before each block state write
 * with an OFFLINE_BLOCK action while releasing and an ONLINE_BLOCK action while restoring (index and
 * total count within that phase); dry_run reads and describes but calls no operation.
 *
 * device is the bare name ("dax0.0").  A device already bound to device_dax is success (ALREADY);
 * an unbound one only gets device_dax bound (refused while blocks of its range remain).  Returns 0
 * on success (RELEASED, ALREADY, DRY_RUN), else -errno: -ENODEV for an unknown device, -EBUSY for
 * one bound to another driver, -EACCES when its physical address is unreadable (not root), the
 * first failing block's error when blocks cannot be offlined (in the order tried; -EBUSY when the
 * kernel could not migrate pages away; -ETIMEDOUT when a block did not go offline within the
 * context's offline timeout, which ends the attempt), the failing operation's error, or -EIO when a step took no
 * effect.  *ret is set in every case except -EINVAL for bad arguments and -ENOMEM while reading,
 * and must be freed; report->outcome tells whether anything was left changed.  A failing sysfs
 * file is the context's error path.
 */
int pmemram_release(struct pmemram_ctx *ctx, const char *device, const struct pmemram_apply_options *options,
		    struct pmemram_release_report **ret);
struct pmemram_release_report *pmemram_release_report_free(struct pmemram_release_report *report);

const char *pmemram_release_block_status_to_string(enum pmemram_release_block_status s);
const char *pmemram_release_outcome_to_string(enum pmemram_release_outcome o);

/* Human output: the device line, then one line per block, runs of consecutive blocks that fared
 * alike folded into one ("memory32..memory38: offlined (was online in Movable) (7 blocks)"). */
int pmemram_release_report_print(const struct pmemram_release_report *report, FILE *f);
/* JSON object {"device", "node", "outcome", "reason", "errno"?, "driver_before", "driver_after",
 * "block_size", "counts": {status: N}, "blocks": [{"block", "node", "state_before", "zone_before",
 * "status", "reason", "errno"?}]}; needs json-c. */
struct json_object;
int pmemram_release_report_to_json(const struct pmemram_release_report *report, struct json_object **ret);

_PMEMRAM_DEFINE_POINTER_CLEANUP_FUNC(struct pmemram_release_report, pmemram_release_report_free)
