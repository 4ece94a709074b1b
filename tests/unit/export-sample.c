/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes the export fixture as pmemramd would: metrics to argv[1], the NFD feature file to argv[2]
 * (expiring in an hour), each atomically; for tests/unit/metrics-scrape.sh. */
#include <stdio.h>

#include "export-fixture.h"
#include "fileio.h"
#include "macro.h"

int main(int argc, char **argv)
{
	_cleanup_(freep) char *metrics = NULL, *nfd = NULL;
	struct pmemram_metrics m;
	struct pmemram_nfd n;
	size_t m_len, n_len;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: %s METRICS-FILE NFD-FILE\n", argv[0]);
		return 2;
	}
	export_fixture_metrics(&m);
	export_fixture_nfd(&n, now_usec(CLOCK_REALTIME) + 3600 * USEC_PER_SEC);
	r = pmemram_metrics_format(&m, &metrics, &m_len);
	if (r >= 0)
		r = pmemram_nfd_format(&n, &nfd, &n_len, NULL);
	if (r >= 0)
		r = file_write_atomic(argv[1], metrics, m_len, 0644, 0);
	if (r >= 0)
		r = file_write_atomic(argv[2], nfd, n_len, 0644, 0);
	if (r < 0) {
		fprintf(stderr, "export-sample: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
