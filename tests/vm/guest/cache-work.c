/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Workloads for the conflict-rate benchmark (tests/bench/conflict-bench.sh), run in the guest under
 * numactl so their memory comes from the node behind the memory-side cache.
 *
 *   cache-work hold MIB
 *       Fault in a MIB MiB buffer of 4 KiB pages (THP off, so the page allocator places every page),
 *       page by page in address order, print "ready" and wait for a signal: the buffer is what
 *       pmemramctl cache-report then looks at.
 *   cache-work churn MIB ROUNDS KEEP SEED
 *       Age the page allocator: ROUNDS times, allocate MIB MiB as chunks of 1..64 pages (sizes drawn
 *       from SEED), then free them in a random order, except that each chunk is kept with probability
 *       KEEP per mille, so long-lived pieces pile up and pin the free memory around them the way page
 *       cache and slab do on an aged machine.  Prints "ready kept=KIB" and waits for a signal, holding
 *       the kept chunks.
 *   cache-work hot MIB
 *       Fault in a MIB MiB buffer like hold, print "ready", then write a byte of every page, in
 *       turns, until a signal: a hot set for NUMA balancing's hinting faults (promotion).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_CHUNK_PAGES 64

struct chunk {
	char *p;
	size_t len;
};

static uint64_t rng_state;

/* splitmix64: the same sequence for the same seed, in every boot. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static size_t rng_below(size_t bound)
{
	return (size_t)(rng_next() % bound);
}

static int die(const char *what)
{
	fprintf(stderr, "cache-work: %s: %s\n", what, strerror(errno));
	return 1;
}

static void *map_pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* 4 KiB pages: with THP a 2 MiB page would hide where the allocator puts each 4 KiB. */
	(void)madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += PAGE)
		((volatile char *)p)[off] = 1;
	return p;
}

static void wait_for_signal(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
}

static int hold(size_t mib)
{
	if (!map_pages(mib << 20))
		return die("cannot fault in the buffer");
	printf("ready\n");
	fflush(stdout);
	wait_for_signal();
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hot(size_t mib)
{
	size_t len = mib << 20;
	volatile char *p = map_pages(len);

	if (!p)
		return die("cannot fault in the buffer");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready\n");
	fflush(stdout);
	for (unsigned char round = 0; !stop; round++)
		for (size_t off = 0; off < len && !stop; off += PAGE)
			p[off] = (char)round;
	return 0;
}

static int churn(size_t mib, unsigned rounds, unsigned keep_permille)
{
	size_t max = (mib << 20) / PAGE + 1, kept = 0, kept_pages = 0;
	struct chunk *chunks = calloc(max, sizeof(*chunks)), *keep = calloc(max * rounds, sizeof(*keep));

	if (!chunks || !keep)
		return die("calloc");

	for (unsigned r = 0; r < rounds; r++) {
		size_t n = 0, pages = 0, want = (mib << 20) / PAGE;

		while (pages < want) {
			size_t len = 1 + rng_below(MAX_CHUNK_PAGES);

			chunks[n].p = map_pages(len * PAGE);
			if (!chunks[n].p)
				return die("cannot allocate a chunk");
			chunks[n++].len = len * PAGE;
			pages += len;
		}
		/* Fisher-Yates, then free in that order (or keep). */
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = rng_below(i + 1);
			struct chunk t = chunks[i];

			chunks[i] = chunks[j];
			chunks[j] = t;
		}
		for (size_t i = 0; i < n; i++) {
			if (rng_below(1000) < keep_permille) {
				keep[kept++] = chunks[i];
				kept_pages += chunks[i].len / PAGE;
			} else if (munmap(chunks[i].p, chunks[i].len) < 0)
				return die("munmap");
		}
	}
	printf("ready kept=%zu\n", kept_pages * (PAGE / 1024));
	fflush(stdout);
	wait_for_signal();
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: cache-work hold MIB | cache-work hot MIB | cache-work churn MIB ROUNDS KEEP_PERMILLE SEED\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long mib;

	if (argc < 3)
		return usage();
	mib = strtoul(argv[2], NULL, 10);
	if (mib == 0 || mib > (1UL << 20))
		return usage();
	if (strcmp(argv[1], "hold") == 0 && argc == 3)
		return hold(mib);
	if (strcmp(argv[1], "hot") == 0 && argc == 3)
		return hot(mib);
	if (strcmp(argv[1], "churn") == 0 && argc == 6) {
		unsigned long rounds = strtoul(argv[3], NULL, 10), keep = strtoul(argv[4], NULL, 10);

		if (rounds == 0 || rounds > 1000 || keep > 1000)
			return usage();
		rng_state = strtoull(argv[5], NULL, 0);
		return churn(mib, (unsigned)rounds, (unsigned)keep);
	}
	return usage();
}
