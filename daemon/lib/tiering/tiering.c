/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tiering classes on the system: systemd slice files per class, and the kernel's demotion switch. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmemram-private.h"
#include "pmemram-tiering.h"

#define SLICE_PREFIX "pmemram-"
#define SLICE_SUFFIX ".slice"
#define DEMOTION_PATH "kernel/mm/numa/demotion_enabled"

int pmemram_slice_name(const char *class_name, char *buf, size_t size)
{
	if (!class_name || !buf || !pmemram_class_name_is_valid(class_name))
		return -EINVAL;
	return path_printf(buf, size, SLICE_PREFIX "%s" SLICE_SUFFIX, class_name);
}

int pmemram_slice_render(const struct pmemram_class *c, const char *nodes, const char *origin, char **ret)
{
	char *text;

	if (!c || !nodes || !*nodes || !ret || !pmemram_class_name_is_valid(c->name))
		return -EINVAL;
	/* One line of comment each: a newline in them would start a directive of its own. */
	if ((origin && !pmemram_name_is_printable(origin)) || !pmemram_name_is_printable(c->nodes_text) ||
	    strpbrk(nodes, "\n\r"))
		return -EINVAL;
	/* AllowedMemoryNodes= is a cpuset: it confines the slice's units to the nodes whatever the
	 * class's mode, which only pmemramctl run can apply as a memory policy. */
	if (asprintf(&text,
		     PMEMRAM_SLICE_HEADER "\"%s\" (%s): nodes = %s, resolved to %s.\n"
		     "# pmemramd rewrites it when the class's nodes change and removes it with the class.\n"
		     "[Unit]\n"
		     "Description=pmemram tiering class %s (nodes %s)\n"
		     "Documentation=man:pmemram.conf(5)\n"
		     "\n"
		     "[Slice]\n"
		     "AllowedMemoryNodes=%s\n",
		     c->name, origin ? origin : "pmemram.conf", c->nodes_text, nodes, c->name, nodes, nodes) < 0)
		return -ENOMEM;
	*ret = text;
	return 0;
}

/* Read dir_fd/name whole (at most PMEMRAM_SLICE_MAX bytes): 0, -ENOENT, -EFBIG, -errno. */
static int read_small(int dir_fd, const char *name, char *buf, size_t size)
{
	_cleanup_(closep) int fd = -1;
	ssize_t n;

	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, size - 1);
	if (n < 0)
		return negative_errno();
	if ((size_t)n == size - 1)
		return -EFBIG;
	buf[n] = '\0';
	return 0;
}

static bool is_ours(const char *text)
{
	return strncmp(text, PMEMRAM_SLICE_HEADER, strlen(PMEMRAM_SLICE_HEADER)) == 0;
}

int pmemram_slice_read_nodes(int dir_fd, const char *class_name, char *nodes, size_t size)
{
	char name[PMEMRAM_CLASS_NAME_MAX + 16], text[PMEMRAM_SLICE_MAX];
	const char *p;
	int r;

	r = pmemram_slice_name(class_name, name, sizeof(name));
	if (r < 0)
		return r;
	r = read_small(dir_fd, name, text, sizeof(text));
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (!is_ours(text))
		return 0;
	p = strstr(text, "\nAllowedMemoryNodes=");
	if (!p)
		return 0;
	p += strlen("\nAllowedMemoryNodes=");
	r = copy_span(nodes, size, p, strcspn(p, "\n"));
	return r < 0 ? r : 1;
}

int pmemram_slice_write(int dir_fd, const char *class_name, const char *text)
{
	char name[PMEMRAM_CLASS_NAME_MAX + 16], old[PMEMRAM_SLICE_MAX];
	int r;

	if (!text)
		return -EINVAL;
	r = pmemram_slice_name(class_name, name, sizeof(name));
	if (r < 0)
		return r;
	r = read_small(dir_fd, name, old, sizeof(old));
	if (r == 0 && streq(old, text))
		return 0;
	/* Someone else's unit of that name (or a symlink, or one too big to be ours): leave it. */
	if ((r == 0 && !is_ours(old)) || r == -ELOOP || r == -EFBIG)
		return -EEXIST;
	if (r < 0 && r != -ENOENT)
		return r;

	r = file_write_atomic_at(dir_fd, name, text, strlen(text), 0644, 0);
	if (r < 0)
		return r;
	return 1;
}

int pmemram_slice_prune(int dir_fd, const char *const *keep, size_t n_keep,
			void (*removed)(const char *name, void *userdata), void *userdata)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int dup_fd, n = 0;

	dup_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0)
		return negative_errno();
	d = fdopendir(dup_fd);
	if (!d) {
		int r = negative_errno();

		safe_close(dup_fd);
		return r;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		char cls[PMEMRAM_CLASS_NAME_MAX + 16], text[PMEMRAM_SLICE_MAX];
		size_t len = strlen(de->d_name), plen = strlen(SLICE_PREFIX), slen = strlen(SLICE_SUFFIX);
		bool wanted = false;

		if (len <= plen + slen || strncmp(de->d_name, SLICE_PREFIX, plen) != 0 ||
		    !streq(de->d_name + len - slen, SLICE_SUFFIX))
			continue;
		if (copy_span(cls, sizeof(cls), de->d_name + plen, len - plen - slen) < 0)
			continue;
		for (size_t i = 0; i < n_keep && !wanted; i++)
			wanted = streq(keep[i], cls);
		if (wanted || read_small(dir_fd, de->d_name, text, sizeof(text)) < 0 || !is_ours(text))
			continue;
		if (unlinkat(dir_fd, de->d_name, 0) < 0)
			return negative_errno();
		if (removed)
			removed(de->d_name, userdata);
		n++;
	}
	return n;
}

int pmemram_demotion_read(struct pmemram_ctx *ctx, bool *ret)
{
	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	return sysfs_read_bool(ctx, DEMOTION_PATH, ret);
}

int pmemram_demotion_write(struct pmemram_ctx *ctx, bool on)
{
	if (!ctx)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	return sysfs_write_verify(ctx, DEMOTION_PATH, on ? "1" : "0", on ? "true" : "false");
}
