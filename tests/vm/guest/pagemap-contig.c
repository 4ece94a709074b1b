/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pagemap-contig: how physically ordered is a fresh anonymous buffer?
 *
 * Faults in SIZE MiB of anonymous memory, reads each page's frame number
 * from /proc/self/pagemap (root only) and its node from move_pages(2), cuts
 * the buffer into PIECE MiB pieces and counts how often two neighbouring
 * pieces are one physically consecutive run.  An unshuffled allocator on a
 * fresh node hands out ascending frames (ratio near 1); a shuffled one hands
 * out randomly placed blocks (ratio near 0).
 *
 * Usage: pagemap-contig [--no-thp] SIZE_MIB PIECE_MIB
 * Prints one line of key=value pairs, among them fault_ms, the time taken
 * to fault the buffer in (page allocation included).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)
#define MAX_NODES 64

static int parse_mib(const char *s, size_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 65536)
		return -EINVAL;
	*ret = (size_t)v << 20;
	return 0;
}

int main(int argc, char **argv)
{
	size_t size, piece, page = (size_t)sysconf(_SC_PAGESIZE);
	size_t npages, ppp, npieces, pairs = 0, consecutive = 0, contig = 0;
	size_t absent = 0, per_node[MAX_NODES] = { 0 };
	uint64_t *pfn;
	int *status, thp = 1, argi = 1, fd;
	void **addrs;
	char *buf;
	struct timespec t0, t1;
	double fault_ms;

	if (argc > 1 && strcmp(argv[1], "--no-thp") == 0) {
		thp = 0;
		argi++;
	}
	if (argc - argi != 2 || parse_mib(argv[argi], &size) ||
	    parse_mib(argv[argi + 1], &piece) || piece > size || size % piece) {
		fprintf(stderr, "usage: %s [--no-thp] SIZE_MIB PIECE_MIB (PIECE divides SIZE)\n",
			argv[0]);
		return 2;
	}
	npages = size / page;
	ppp = piece / page;
	npieces = size / piece;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("pagemap-contig: mmap");
		return 1;
	}
	if (!thp && madvise(buf, size, MADV_NOHUGEPAGE)) {
		perror("pagemap-contig: madvise(MADV_NOHUGEPAGE)");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < npages; i++)
		buf[i * page] = (char)i;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fault_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		   (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;

	pfn = calloc(npages, sizeof(*pfn));
	status = calloc(npages, sizeof(*status));
	addrs = calloc(npages, sizeof(*addrs));
	if (!pfn || !status || !addrs) {
		fprintf(stderr, "pagemap-contig: out of memory\n");
		return 1;
	}
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("pagemap-contig: /proc/self/pagemap");
		return 1;
	}
	if (pread(fd, pfn, npages * sizeof(*pfn),
		  (off_t)((uintptr_t)buf / page * sizeof(*pfn))) !=
	    (ssize_t)(npages * sizeof(*pfn))) {
		perror("pagemap-contig: reading /proc/self/pagemap");
		return 1;
	}
	close(fd);
	for (size_t i = 0; i < npages; i++) {
		if (!(pfn[i] & PM_PRESENT) || !(pfn[i] & PM_PFN_MASK))
			absent++;
		pfn[i] &= PM_PFN_MASK;
		addrs[i] = buf + i * page;
	}
	if (absent) {
		fprintf(stderr, "pagemap-contig: %zu pages without a frame number (not root?)\n",
			absent);
		return 1;
	}
	/* move_pages() with no target nodes reports where each page is. */
	if (syscall(SYS_move_pages, 0, npages, addrs, NULL, status, 0)) {
		perror("pagemap-contig: move_pages");
		return 1;
	}
	for (size_t i = 0; i < npages; i++)
		if (status[i] >= 0 && status[i] < MAX_NODES)
			per_node[status[i]]++;

	for (size_t k = 0; k < npieces; k++) {
		size_t first = k * ppp, i;

		for (i = first + 1; i < first + ppp; i++)
			if (pfn[i] != pfn[i - 1] + 1)
				break;
		if (i == first + ppp)
			contig++;
	}
	for (size_t k = 0; k + 1 < npieces; k++) {
		size_t first = k * ppp, i;

		pairs++;
		for (i = first + 1; i < first + 2 * ppp; i++)
			if (pfn[i] != pfn[i - 1] + 1)
				break;
		if (i == first + 2 * ppp)
			consecutive++;
	}

	printf("pages=%zu pieces=%zu contiguous_pieces=%zu pairs=%zu consecutive_pairs=%zu ratio=%.3f",
	       npages, npieces, contig, pairs, consecutive,
	       pairs ? (double)consecutive / (double)pairs : 0.0);
	for (int n = 0; n < MAX_NODES; n++)
		if (per_node[n])
			printf(" node%d=%zu", n, per_node[n]);
	printf(" thp=%d fault_ms=%.1f\n", thp, fault_ms);
	free(pfn);
	free(status);
	free(addrs);
	munmap(buf, size);
	return 0;
}
