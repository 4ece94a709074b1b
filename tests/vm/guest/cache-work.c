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
 *   cache-work pagecache FILE ROUNDS
 *       Age the page allocator through the page cache: read FILE from start to end with read(),
 *       ROUNDS times.  Under numactl --membind the page cache comes from the bound node too, so a
 *       FILE larger than the node's free memory fills the node and reclaim then frees the older
 *       pages in LRU order, the way a file server's node ages.  FILE may be sparse: the page cache
 *       of a hole in ext4 is a page like any other (the scenario checks that the node's FilePages
 *       grow).  Prints "ready read_mib=N rounds=R" and waits for a signal; the page cache stays.
 *   cache-work forks FILE ROUNDS CONCURRENCY SEED
 *       Age it with short-lived processes: fork ROUNDS children, at most CONCURRENCY alive at
 *       once.  Each faults in 1..16 MiB of anonymous memory as chunks of 1..64 pages, preads a
 *       1..8 MiB range of FILE (whose page cache outlives it) and exits; the parent reaps it.  The
 *       parent draws every child's sizes and range from SEED before forking, so the same SEED
 *       gives the same children whatever the scheduling.  Prints "ready children=N anon_mib=A
 *       read_mib=R" and waits for a signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/*
 * Fault in want_pages pages as chunks of 1..64 pages (sizes drawn from the generator) into
 * chunks[], which has room for want_pages entries; returns how many, 0 when a mapping failed.
 */
static size_t alloc_chunks(struct chunk *chunks, size_t want_pages)
{
	size_t n = 0, pages = 0;

	while (pages < want_pages) {
		size_t len = 1 + rng_below(MAX_CHUNK_PAGES);

		chunks[n].p = map_pages(len * PAGE);
		if (!chunks[n].p)
			return 0;
		chunks[n++].len = len * PAGE;
		pages += len;
	}
	return n;
}

static int churn(size_t mib, unsigned rounds, unsigned keep_permille)
{
	size_t max = (mib << 20) / PAGE + 1, kept = 0, kept_pages = 0;
	struct chunk *chunks = calloc(max, sizeof(*chunks)), *keep = calloc(max * rounds, sizeof(*keep));

	if (!chunks || !keep)
		return die("calloc");

	for (unsigned r = 0; r < rounds; r++) {
		size_t n = alloc_chunks(chunks, (mib << 20) / PAGE);

		if (n == 0)
			return die("cannot allocate a chunk");
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

static int pagecache(const char *file, unsigned rounds)
{
	static char buf[1 << 20];
	uint64_t bytes = 0;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return die(file);
	for (unsigned r = 0; r < rounds; r++) {
		ssize_t n;

		if (lseek(fd, 0, SEEK_SET) < 0)
			return die("lseek");
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += (uint64_t)n;
		if (n < 0)
			return die("read");
	}
	close(fd);
	printf("ready read_mib=%" PRIu64 " rounds=%u\n", bytes >> 20, rounds);
	fflush(stdout);
	wait_for_signal();
	return 0;
}

#define MIB_PAGES ((1UL << 20) / PAGE)

/* One child of forks, its sizes drawn by the parent. */
struct child_plan {
	uint64_t seed;	    /* of its chunk sizes */
	size_t anon_pages;  /* 1..16 MiB */
	size_t read_pages;  /* 1..8 MiB */
	size_t read_offset; /* in pages */
};

static int child_run(const struct child_plan *c, int fd)
{
	struct chunk *chunks = calloc(c->anon_pages, sizeof(*chunks));
	size_t len = c->read_pages * PAGE;
	off_t off = (off_t)(c->read_offset * PAGE);
	char *buf = malloc(1 << 20);

	if (!chunks || !buf)
		return die("calloc");
	rng_state = c->seed;
	if (alloc_chunks(chunks, c->anon_pages) == 0)
		return die("cannot allocate a chunk");
	while (len > 0) {
		ssize_t n = pread(fd, buf, len < (1 << 20) ? len : (1 << 20), off);

		if (n <= 0)
			return n < 0 ? die("pread") : die("short file");
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* Reap one child; 0 if it exited with 0. */
static int reap(void)
{
	int status;

	if (wait(&status) < 0)
		return die("wait");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static int forks(const char *file, unsigned rounds, unsigned concurrency)
{
	int fd = open(file, O_RDONLY);
	struct stat st;
	size_t file_pages, alive = 0, failed = 0;
	uint64_t anon = 0, reads = 0;

	if (fd < 0)
		return die(file);
	if (fstat(fd, &st) < 0)
		return die("fstat");
	file_pages = (size_t)st.st_size / PAGE;
	if (file_pages < 8 * MIB_PAGES) {
		fprintf(stderr, "cache-work: %s: smaller than 8 MiB\n", file);
		return 1;
	}
	for (unsigned r = 0; r < rounds; r++) {
		struct child_plan c = { .seed = rng_next(),
					.anon_pages = MIB_PAGES + rng_below(15 * MIB_PAGES + 1),
					.read_pages = MIB_PAGES + rng_below(7 * MIB_PAGES + 1) };
		pid_t pid;

		c.read_offset = rng_below(file_pages - c.read_pages + 1);
		anon += c.anon_pages;
		reads += c.read_pages;
		if (alive == concurrency) {
			failed += (size_t)reap();
			alive--;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return die("fork");
		if (pid == 0)
			_exit(child_run(&c, fd));
		alive++;
	}
	for (; alive > 0; alive--)
		failed += (size_t)reap();
	close(fd);
	if (failed) {
		fprintf(stderr, "cache-work: %zu of %u children failed\n", failed, rounds);
		return 1;
	}
	printf("ready children=%u anon_mib=%" PRIu64 " read_mib=%" PRIu64 "\n", rounds, anon / MIB_PAGES,
	       reads / MIB_PAGES);
	fflush(stdout);
	wait_for_signal();
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: cache-work hold MIB | cache-work hot MIB\n"
			"       cache-work churn MIB ROUNDS KEEP_PERMILLE SEED\n"
			"       cache-work pagecache FILE ROUNDS\n"
			"       cache-work forks FILE ROUNDS CONCURRENCY SEED\n");
	return 2;
}

/* A whole decimal number in [min, max] into *out. */
static bool number(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *out >= min && *out <= max;
}

static bool seed(const char *s)
{
	char *end;

	errno = 0;
	rng_state = strtoull(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

int main(int argc, char **argv)
{
	unsigned long mib, rounds, n;

	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "pagecache") == 0 && argc == 4 && number(argv[3], 1, 1000, &rounds))
		return pagecache(argv[2], (unsigned)rounds);
	if (strcmp(argv[1], "forks") == 0 && argc == 6 && number(argv[3], 1, 1000000, &rounds) &&
	    number(argv[4], 1, 1000, &n) && seed(argv[5]))
		return forks(argv[2], (unsigned)rounds, (unsigned)n);
	if (!number(argv[2], 1, 1UL << 20, &mib))
		return usage();
	if (strcmp(argv[1], "hold") == 0 && argc == 3)
		return hold(mib);
	if (strcmp(argv[1], "hot") == 0 && argc == 3)
		return hot(mib);
	if (strcmp(argv[1], "churn") == 0 && argc == 6 && number(argv[3], 1, 1000, &rounds) &&
	    number(argv[4], 0, 1000, &n) && seed(argv[5]))
		return churn(mib, (unsigned)rounds, (unsigned)n);
	return usage();
}
