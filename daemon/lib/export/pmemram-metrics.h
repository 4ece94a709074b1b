/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pmemramd's state as Prometheus text for node_exporter's textfile collector: pure, over plain structs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmemram-class.h"
#include "pmemram-tiering.h"
#include "pmemram.h"

/* A count under one or two label values (b NULL for a family with one label); entries with equal
 * values are added up, and the samples come out in the order their values first appear. */
struct pmemram_metrics_count {
	const char *a, *b;
	uint64_t n;
};

struct pmemram_metrics_node {
	int id;
	int tier;				  /* memory_tierN, -1 when in none */
	uint64_t mem_total;			  /* MemTotal of the node, bytes */
	bool online_known;			  /* online_bytes was read (memory blocks) */
	uint64_t online_bytes[_PMEMRAM_ZONE_MAX]; /* of dax devices (kmem), by zone; PMEMRAM_ZONE_NONE:
						   * blocks spanning zones */
	size_t n_caches;
	const struct pmemram_cache *caches; /* memory-side caches (HMAT) */
	size_t n_vmstat;
	const struct pmemram_vmstat_counter *vmstat; /* pgpromote_*, pgdemote_* */
};

struct pmemram_metrics_class {
	const char *name;
	bool resolved; /* false: nodes is empty, the class resolved to nothing or failed */
	struct pmemram_nodemask nodes;
	const struct pmemram_numa_usage *usage; /* its slice cgroup's memory per node; NULL: not known */
	uint64_t bytes_outside;			/* of usage, on nodes not in nodes (when resolved) */
	/* mode = weighted-interleave: the weights wanted (NULL: another mode, or none could be had),
	 * and whether they are in force */
	const struct pmemram_weights *weights;
	bool weights_in_force;
};

struct pmemram_metrics {
	bool ready;
	uint64_t uevents, uevents_lost;
	/* reconciles ended, by result ("converged", "work-remains", "failed", "error") */
	size_t n_reconciles;
	const struct pmemram_metrics_count *reconciles;
	uint64_t reconcile_usec_total;	   /* time spent in them */
	uint64_t last_reconcile_usec;	   /* how long the last took */
	uint64_t last_reconcile_time_usec; /* CLOCK_REALTIME when it ended; 0: none yet */
	/* as of the last reconcile that read the system (devices_known false: none did) */
	bool devices_known;
	size_t n_devices; /* dax devices by state and source */
	const struct pmemram_metrics_count *devices;
	size_t n_verdicts; /* claimed devices and namespaces by verdict and reason */
	const struct pmemram_metrics_count *verdicts;
	size_t n_unmatched_claims;
	uint64_t kmem_online_bytes; /* of claimed devices, online in their claimed zone */
	/* releases that failed, by outcome and error */
	size_t n_release_failures;
	const struct pmemram_metrics_count *release_failures;
	const struct pmemram_shuffle *shuffle;			/* NULL: unknown */
	const char *shuffle_policy, *shuffle_policy_state;	/* NULL: unknown */
	const char *hotplug_policy, *hotplug_policy_state;	/* NULL: unknown */
	int demotion;						/* demotion_enabled: 1, 0, -1 unknown */
	size_t n_nodes;
	const struct pmemram_metrics_node *nodes;
	size_t n_classes;
	const struct pmemram_metrics_class *classes;
	/* the whole system's pgpromote_*, pgdemote_* (/proc/vmstat): 6.1 counts demotion only here */
	size_t n_vmstat;
	const struct pmemram_vmstat_counter *vmstat;
};

/*
 * Write m in the Prometheus text exposition format (version 0.0.4): every family "pmemram_..."
 * with its # HELP and # TYPE lines, written only when it has a sample; label values escaped; no
 * timestamps (the textfile collector refuses them).  0, or -EIO when f failed.
 */
int pmemram_metrics_write(const struct pmemram_metrics *m, FILE *f);
/* The same into a new string (*ret, its length *ret_len): 0, -ENOMEM. */
int pmemram_metrics_format(const struct pmemram_metrics *m, char **ret, size_t *ret_len);
/* A label value as the format wants it: backslash, double quote and newline escaped. */
void pmemram_metrics_write_label_value(const char *s, FILE *f);
