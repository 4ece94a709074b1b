/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kubernetes node-feature-discovery labels from pmemramd: a feature file of NFD's local source. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmemram-metrics.h"
#include "pmemram.h"

/*
 * nfd-worker's local source reads every file of /etc/kubernetes/node-feature-discovery/features.d/
 * (not hidden ones) at each discovery: "NAMESPACE/NAME=VALUE" lines, "#" comments, a directive
 * "# +expiry-time=RFC3339" that drops the lines after it once that time passed, and a file larger
 * than 64 KiB ignored whole.  A label's name (after the namespace) and value follow Kubernetes:
 * at most 63 characters of [A-Za-z0-9._-], beginning and ending with a letter or digit (a name
 * is not empty; a value may be).  A node list value is the kernel's list format with '_' for ','
 * ("0-1_4"), since ',' is not allowed.
 */
#define PMEMRAM_NFD_NAMESPACE "pmemram.io"
#define PMEMRAM_NFD_FILE_MAX 65536
#define PMEMRAM_NFD_LABEL_MAX 63

struct pmemram_nfd {
	uint64_t expiry_usec;	    /* CLOCK_REALTIME after which NFD drops the labels */
	uint64_t kmem_online_bytes; /* of claimed devices, online in their claimed zone */
	struct pmemram_nodemask slow_nodes;	     /* memory from kmem, no CPUs (class "pmem") */
	struct pmemram_nodemask direct_mapped_nodes; /* behind a direct-mapped memory-side cache */
	const struct pmemram_shuffle *shuffle;	     /* NULL: unknown, no label */
	size_t n_classes;
	const struct pmemram_metrics_class *classes; /* a label each, for those resolved */
};

/* What did not make it into the file: labels with an invalid name or value (a node list too long
 * for a value), and lines past the size limit, each dropped whole. */
struct pmemram_nfd_dropped {
	size_t n;
	char first[PMEMRAM_NFD_LABEL_MAX + 32]; /* the first one's name, "" when none */
};

/* Whether s is a valid label value, and a valid label name (the part after "pmemram.io/"). */
bool pmemram_nfd_value_is_valid(const char *s);
bool pmemram_nfd_name_is_valid(const char *s);
/* A node list as a label value ("0-1_4", "" for none): -E2BIG (buf "") when longer than a value may be. */
int pmemram_nfd_nodes_value(const struct pmemram_nodemask *m, char *buf, size_t size);
/* "2024-05-01T12:00:00Z" (RFC 3339, UTC) in buf of at least 21 bytes. */
int pmemram_nfd_time(uint64_t realtime_usec, char *buf, size_t size);
/* The feature file: the expiry directive, then one label a line, at most PMEMRAM_NFD_FILE_MAX
 * bytes; *ret (length *ret_len) to free.  0, -ENOMEM, -EINVAL. */
int pmemram_nfd_format(const struct pmemram_nfd *n, char **ret, size_t *ret_len, struct pmemram_nfd_dropped *ret_dropped);
