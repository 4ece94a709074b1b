/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dax-map: map a device-dax character device and keep it mapped until killed, so a scenario can
 * check that pmemram refuses a device some process uses; with BYTES 0, only hold it open (as a
 * program that maps it later would).  Usage: dax-map /dev/daxX.Y [BYTES] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t len = 2u << 20; /* one 2 MiB page: the usual device-dax alignment */
	void *p;
	int fd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dax-map /dev/daxX.Y [BYTES]\n");
		return 2;
	}
	if (argc == 3)
		len = strtoull(argv[2], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "dax-map: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (len == 0) {
		printf("open\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "dax-map: cannot map %zu bytes of %s: %s\n", len, argv[1], strerror(errno));
		return 1;
	}
	*(volatile char *)p = 1;
	printf("mapped\n");
	fflush(stdout);
	for (;;)
		pause();
}
