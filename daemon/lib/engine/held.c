/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The devices release gave back, as pmemramd keeps them in its runtime directory. */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "pmemram-observe.h"
#include "pmemram-private.h"
#include "pmemram-protocol.h"

int pmemram_held_read(const char *dir, char **names, char **identities, size_t *ret_n)
{
	char path[PATH_MAX], line[64 + PMEMRAM_DEVICE_IDENTITY_MAX];
	_cleanup_(fclosep) FILE *f = NULL;
	size_t n = 0;
	int len;

	if (!dir || !names || !ret_n)
		return -EINVAL;
	*ret_n = 0;
	len = snprintf(path, sizeof(path), "%s/" PMEMRAM_HELD_FILE, dir);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : negative_errno();
	while (n < PMEMRAM_HELD_MAX && fgets(line, sizeof(line), f)) {
		char *id;

		line[strcspn(line, "\n")] = '\0';
		/* "daxX.Y IDENTITY"; a line from before identities has the name alone */
		id = strchr(line, ' ');
		if (id)
			*id++ = '\0';
		if (!pmemram_dax_name_is_valid(line))
			continue;
		names[n] = strdup(line);
		if (id)
			pmemram_dax_identity_upgrade(id, sizeof(line) - (size_t)(id - line));
		if (identities)
			identities[n] = id && *id ? strdup(id) : NULL;
		if (!names[n] || (identities && id && *id && !identities[n])) {
			free(names[n]);
			if (identities)
				free(identities[n]);
			while (n > 0) {
				n--;
				free(names[n]);
				if (identities)
					free(identities[n]);
			}
			return -ENOMEM;
		}
		n++;
	}
	*ret_n = n;
	return 0;
}

int pmemram_daemon_lock(const char *dir, char *path, size_t path_size, char *holder, size_t holder_size)
{
	_cleanup_(closep) int fd = -1;
	int n;

	if (!dir || !path || !holder || holder_size == 0)
		return -EINVAL;
	holder[0] = '\0';
	n = snprintf(path, path_size, "%s/" PMEMRAMD_LOCK_FILE, dir);
	if (n < 0 || (size_t)n >= path_size)
		return -ENAMETOOLONG;
	fd = file_lock(path, false);
	if (fd == -EWOULDBLOCK) {
		_cleanup_(closep) int other = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		ssize_t k = other >= 0 ? pread(other, holder, holder_size - 1, 0) : -1;

		holder[k > 0 ? (size_t)k : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		return -EWOULDBLOCK;
	}
	if (fd < 0)
		return fd;
	if (ftruncate(fd, 0) < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}
