/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Provenance of dax devices: where each comes from, whether it can be given back, and which pmemram bound to kmem. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "pmemram.h"

struct pmemram_observation;

/* The devices pmemram bound to kmem, by identity (pmemram_dax_identity()), one per line, in the
 * runtime directory (beside PMEMRAM_HELD_FILE).  A name is no key: an hmem device's dax0.0 may be
 * an NVDIMM's next boot. */
#define PMEMRAM_ONLINED_FILE "onlined"
/* Locked (flock(LOCK_EX)) by each update of the record, for its whole read-modify-write. */
#define PMEMRAM_ONLINED_LOCK_FILE "onlined.lock"
#define PMEMRAM_ONLINED_MAX 256

/* One update after a reconcile, from what it knows and reads nothing: record the devices that
 * results bound to kmem (BIND_KMEM, DONE) as observation (the reconcile's last, with its results
 * carried in) shows them, and drop the records of devices it shows off kmem.  1 when the file
 * changed, 0 or -errno. */
struct pmemram_apply_result;
int pmemram_onlined_note(const char *dir, const struct pmemram_observation *observation,
			 const struct pmemram_apply_result *results, size_t n_results);
/* The identities recorded in dir (malloc'ed, *ret_n of them, room for PMEMRAM_ONLINED_MAX); an
 * absent file is none.  0 or -errno. */
int pmemram_onlined_read(const char *dir, char **ids, size_t *ret_n);

/* Where a dax device comes from and who onlined it, for status. */
struct pmemram_provenance {
	enum pmemram_dax_source source;
	char provider[32];  /* "hmem.0", "region1" */
	char namespace[32]; /* nvdimm and cxl pmem: "namespace1.0"; "" otherwise */
	char uuid[40];	    /* the namespace's UUID; "" when none */
	char identity[64];  /* pmemram_dax_identity(); "" when unknown (not root) */
	bool releasable;    /* on kmem, every block Movable or offline: release can give it back */
	/* On kmem: "pmemram" (its record), "kernel" (hmem or CXL RAM on a kernel that binds those at
	 * probe: a later rebind by daxctl looks the same) or "other" (daxctl, ...); NULL otherwise. */
	const char *onlined_by;
	/* On kmem but not readable (not root): onlined_by NULL without an identity, and releasable
	 * meaning nothing without a range. */
	bool releasable_unknown;
};

/* The provenance of d, with memory (for its blocks' zones; NULL: not releasable) and the identities
 * pmemram recorded (ids[0..n_ids)). */
int pmemram_provenance_read(struct pmemram_ctx *ctx, const struct pmemram_dax *d, const struct pmemram_memory *memory,
			    char *const *ids, size_t n_ids, struct pmemram_provenance *ret);

/* {"device", "mode", "source", "provider", "namespace", "uuid", "range", "ranges", "target_node",
 * "releasable", "onlined_by"}; NULL when out of memory. */
struct json_object;
struct json_object *pmemram_provenance_to_json(const struct pmemram_dax *d, const struct pmemram_provenance *p);

/* The provenance of every dax device as a JSON array, from an observation (the reconcile's last:
 * its blocks are those of the dax ranges) and the record in dir (NULL: none), reading nothing
 * but the record; 0 and *ret, or -errno. */
int pmemram_provenance_observed_json(const struct pmemram_observation *observation, const char *dir,
				     struct json_object **ret);
