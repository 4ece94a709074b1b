/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pin-pages: fault in MIB MiB of anonymous memory, then splice one page of every STRIDE into pipes
 * that nobody reads, and keep them there until killed.  Each spliced page carries an extra
 * reference, which the kernel's migration cannot account for: a memory block holding one will not
 * go offline (Linux 6.1 retries until the writer gets a signal).  Run it under
 * numactl --membind=NODE to put the pages on NODE.  Usage: pin-pages MIB [STRIDE] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGES_PER_PIPE 256 /* F_SETPIPE_SZ of 1 MiB: 256 buffers of one page each */

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t mib, stride = 16, pages, pinned = 0;
	char *buf;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: pin-pages MIB [STRIDE]\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	if (argc == 3)
		stride = strtoul(argv[2], NULL, 0);
	if (mib == 0 || stride == 0 || page <= 0) {
		fprintf(stderr, "pin-pages: MIB and STRIDE must be positive\n");
		return 2;
	}
	pages = (mib << 20) / (size_t)page;
	buf = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "pin-pages: cannot map %zu MiB: %s\n", mib, strerror(errno));
		return 1;
	}
	/* No transparent huge pages: one spliced 4 KiB page must pin only itself. */
	(void)madvise(buf, mib << 20, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		buf[i * (size_t)page] = (char)i;

	for (size_t i = 0; i < pages;) {
		int p[2];

		if (pipe(p) < 0) {
			fprintf(stderr, "pin-pages: pipe: %s\n", strerror(errno));
			return 1;
		}
		(void)fcntl(p[1], F_SETPIPE_SZ, PAGES_PER_PIPE * (int)page);
		for (size_t n = 0; n < PAGES_PER_PIPE && i < pages; n++, i += stride) {
			struct iovec iov = { .iov_base = buf + i * (size_t)page, .iov_len = (size_t)page };

			if (vmsplice(p[1], &iov, 1, SPLICE_F_NONBLOCK) != page)
				break;
			pinned++;
		}
		/* p[0] stays open and unread: the pipe keeps its pages. */
	}
	printf("pinned %zu of %zu pages\n", pinned, pages);
	fflush(stdout);
	for (;;)
		pause();
}
