/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory figures of one process, for tests/bench/tier-bench.sh: run it inside a tiering class
 * (pmemramctl run --class NAME -- tier-bench MIB) and it reports where its buffer landed and how fast
 * it is to walk.
 *
 *   tier-bench MIB
 *       Fault in a MIB MiB buffer (4 KiB pages), then:
 *         chase:  a dependent pointer chase over a random cyclic order of its 64-byte lines
 *                 (latency: ns per load), 4 * lines loads;
 *         stream: sums of the whole buffer as 64-bit words, 4 passes (bandwidth: MB/s);
 *       and prints "chase_ns=X stream_mbps=Y nodes=N0:pages,N2:pages" (the buffer's pages per
 *       node from /proc/self/numa_maps).
 *   tier-bench MIB fault
 *       Only fault the buffer in, and print "fault_s=X nodes=..." (where an interleave put it).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LINE 64
#define PASSES 4

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x7469657262656e63; /* fixed: the same order in every class */

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The buffer's pages per node: the numa_maps line of the mapping starting at buf. */
static void print_nodes(const void *buf)
{
	char line[4096], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "re");
	const char *sep = "";

	snprintf(want, sizeof(want), "%lx ", (unsigned long)buf);
	printf(" nodes=");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)) != 0)
			continue;
		for (char *tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"))
			if (tok[0] == 'N' && strchr(tok, '=')) {
				*strchr(tok, '=') = ':';
				printf("%s%s", sep, tok);
				sep = ",";
			}
	}
	printf("\n");
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	bool fault_only = argc == 3 && strcmp(argv[2], "fault") == 0;
	size_t mib = argc == 2 || fault_only ? strtoul(argv[1], NULL, 10) : 0, bytes, lines, *order;
	volatile uint64_t sink = 0;
	char *buf;
	double t0, t1;

	if (mib == 0 || mib > 65536) {
		fprintf(stderr, "usage: tier-bench MIB [fault]\n");
		return 2;
	}
	bytes = mib << 20;
	lines = bytes / LINE;
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fault_only) {
		if (buf == MAP_FAILED) {
			perror("tier-bench");
			return 1;
		}
		(void)madvise(buf, bytes, MADV_NOHUGEPAGE);
		t0 = now();
		memset(buf, 1, bytes);
		printf("fault_s=%.2f", now() - t0);
		print_nodes(buf);
		return 0;
	}
	order = malloc(lines * sizeof(*order));
	if (buf == MAP_FAILED || !order) {
		perror("tier-bench");
		return 1;
	}
	(void)madvise(buf, bytes, MADV_NOHUGEPAGE);
	memset(buf, 1, bytes);

	/* A random cycle through every line: each line holds the address of the next. */
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(next() % (i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(char **)(buf + order[i] * LINE) = buf + order[(i + 1) % lines] * LINE;
	free(order);

	t0 = now();
	{
		char *p = buf;

		for (size_t i = 0; i < PASSES * lines; i++)
			p = *(char **)p;
		sink += (uintptr_t)p;
	}
	t1 = now();
	printf("chase_ns=%.2f", (t1 - t0) * 1e9 / (double)(PASSES * lines));

	t0 = now();
	for (int pass = 0; pass < PASSES; pass++) {
		const uint64_t *w = (const uint64_t *)buf;
		uint64_t sum = 0;

		for (size_t i = 0; i < bytes / sizeof(*w); i++)
			sum += w[i];
		sink += sum;
	}
	t1 = now();
	printf(" stream_mbps=%.1f", (double)(PASSES * bytes) / (t1 - t0) / 1e6);
	print_nodes(buf);
	return sink == 42 ? 3 : 0;
}
