/* The devices release gave back, as pmemramd keeps them in its runtime directory. */
#include <limits.h>

#include "pmemram-private.h"
#include "pmemram-protocol.h"

int pmemram_held_read(const char *dir, char **names, size_t *ret_n)
{
	char path[PATH_MAX], line[64];
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
		line[strcspn(line, "\n")] = '\0';
		if (!*line || strchr(line, '/'))
			continue;
		names[n] = strdup(line);
		if (!names[n]) {
			while (n > 0)
				free(names[--n]);
			return -ENOMEM;
		}
		n++;
	}
	*ret_n = n;
	return 0;
}
