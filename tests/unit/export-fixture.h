/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One machine's state for the export formatters' tests and the sample program: the QEMU bench's
 * HMAT topology (node 0 CPUs and DRAM, node 1 behind a direct-mapped cache, node 2 pmem). */
#pragma once

#include "pmemram-metrics.h"
#include "pmemram-nfd.h"

/* Fill m (pointing into static data) with the fixture. */
void export_fixture_metrics(struct pmemram_metrics *m);
/* Fill n the same way, expiring at expiry_usec. */
void export_fixture_nfd(struct pmemram_nfd *n, uint64_t expiry_usec);
