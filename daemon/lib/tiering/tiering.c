/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tiering classes on the system: systemd slice files per class, and the kernel's demotion switch. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-util.h"
#include "pmemram-private.h"
#include "pmemram-tiering.h"

#define SLICE_PREFIX "pmemram-"
#define SLICE_SUFFIX ".slice"
#define DEMOTION_PATH "kernel/mm/numa/demotion_enabled"
#define NUMA_BALANCING_PATH "sys/kernel/numa_balancing" /* below procfs */
#define PROMOTE_RATE_PATH "sys/kernel/numa_balancing_promote_rate_limit_MBps"
#define NUMA_BALANCING_MEMORY_TIERING 2u /* the bit that promotes between tiers */
#define CGROUP_DIR "fs/cgroup"		 /* below the sysfs root */

int pmemram_slice_name(const char *class_name, char *buf, size_t size)
{
	if (!class_name || !buf || !pmemram_class_name_is_valid(class_name))
		return -EINVAL;
	return path_printf(buf, size, SLICE_PREFIX "%s" SLICE_SUFFIX, class_name);
}

/* "MemoryLow=BYTES\n" for a protection, "" for none. */
static void protect_line(uint64_t bytes, char *buf, size_t size)
{
	if (bytes == 0)
		buf[0] = '\0';
	else if (bytes == UINT64_MAX)
		snprintf(buf, size, PMEMRAM_SLICE_PROTECT_KEY "=infinity\n");
	else
		snprintf(buf, size, PMEMRAM_SLICE_PROTECT_KEY "=%" PRIu64 "\n", bytes);
}

int pmemram_slice_render(const struct pmemram_class *c, const char *nodes, const char *origin, char **ret)
{
	char protect[64], *text;

	if (!c || !nodes || !*nodes || !ret || !pmemram_class_name_is_valid(c->name))
		return -EINVAL;
	/* One line of comment each: a newline in them would start a directive of its own. */
	if ((origin && !pmemram_name_is_printable(origin)) || !pmemram_name_is_printable(c->nodes_text) ||
	    strpbrk(nodes, "\n\r"))
		return -EINVAL;
	protect_line(c->protect, protect, sizeof(protect));
	/* AllowedMemoryNodes= is a cpuset: it confines the slice's units to the nodes whatever the
	 * class's mode, which only pmemramctl run can apply as a memory policy. */
	if (asprintf(&text,
		     PMEMRAM_SLICE_HEADER
		     "\"%s\" (%s): nodes = %s, resolved to %s.\n"
		     "# pmemramd rewrites it when the class's nodes change and removes it with the class.\n"
		     "[Unit]\n"
		     "Description=pmemram tiering class %s (nodes %s)\n"
		     "Documentation=man:pmemram.conf(5)\n"
		     "\n"
		     "[Slice]\n"
		     "AllowedMemoryNodes=%s\n"
		     "%s",
		     c->name, origin ? origin : "pmemram.conf", c->nodes_text, nodes, c->name, nodes, nodes,
		     protect) < 0)
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

/* Write text as unit name below dir_fd unless it holds exactly that (or, text NULL, remove it):
 * 1 changed, 0 unchanged, -EEXIST when the unit there is not pmemram's. */
static int write_ours(int dir_fd, const char *name, const char *text)
{
	char old[PMEMRAM_SLICE_MAX];
	int r;

	r = read_small(dir_fd, name, old, sizeof(old));
	if (!text && r == -ENOENT)
		return 0;
	if (r == 0 && text && streq(old, text))
		return 0;
	/* Someone else's unit of that name (or a symlink, or one too big to be ours): leave it. */
	if ((r == 0 && !is_ours(old)) || r == -ELOOP || r == -EFBIG)
		return -EEXIST;
	if (r < 0 && r != -ENOENT)
		return r;

	if (!text)
		r = unlinkat(dir_fd, name, 0) < 0 ? negative_errno() : 0;
	else
		r = file_write_atomic_at(dir_fd, name, text, strlen(text), 0644, 0);
	if (r < 0)
		return r;
	return 1;
}

int pmemram_slice_write(int dir_fd, const char *class_name, const char *text)
{
	char name[PMEMRAM_CLASS_NAME_MAX + 16];
	int r;

	if (!text)
		return -EINVAL;
	r = pmemram_slice_name(class_name, name, sizeof(name));
	if (r < 0)
		return r;
	return write_ours(dir_fd, name, text);
}

int pmemram_parent_slice_render(uint64_t protect, char **ret)
{
	char line[64], *text;

	if (!ret || protect == 0)
		return -EINVAL;
	protect_line(protect, line, sizeof(line));
	if (asprintf(&text,
		     PMEMRAM_SLICE_HEADER
		     "slices below it: " PMEMRAM_SLICE_PROTECT_KEY "= is the sum of their\n"
		     "# protect = SIZE, since the kernel protects a cgroup's memory only as far as its parent's is.\n"
		     "# pmemramd rewrites it when that sum changes and removes it when no class protects memory.\n"
		     "[Unit]\n"
		     "Description=pmemram tiering classes\n"
		     "Documentation=man:pmemram.conf(5)\n"
		     "\n"
		     "[Slice]\n"
		     "%s",
		     line) < 0)
		return -ENOMEM;
	*ret = text;
	return 0;
}

int pmemram_parent_slice_write(int dir_fd, const char *text)
{
	return write_ours(dir_fd, PMEMRAM_PARENT_SLICE, text);
}

int pmemram_slice_cgroup_file(struct pmemram_ctx *ctx, const char *class_name, const char *file, char *buf, size_t size)
{
	char name[PMEMRAM_CLASS_NAME_MAX + 16];
	struct stat st;
	int r;

	if (!ctx || !file || !buf)
		return -EINVAL;
	r = class_name ? pmemram_slice_name(class_name, name, sizeof(name)) : 0;
	if (r >= 0)
		r = path_printf(buf, size, CGROUP_DIR "/" PMEMRAM_PARENT_SLICE "%s%s", class_name ? "/" : "",
				class_name ? name : "");
	if (r < 0)
		return r;
	pmemram_ctx_clear_error(ctx);
	r = root_stat(ctx, PMEMRAM_ROOT_SYSFS, buf, &st);
	if (sysfs_absent(ctx, r))
		return 0;
	if (r < 0)
		return r;
	r = path_printf(buf + strlen(buf), size - strlen(buf), "/%s", file);
	return r < 0 ? r : 1;
}

int pmemram_slice_read_protection(struct pmemram_ctx *ctx, const char *class_name, uint64_t *ret)
{
	char path[PATH_MAX], value[32];
	int r;

	if (!ret)
		return -EINVAL;
	r = pmemram_slice_cgroup_file(ctx, class_name, PMEMRAM_SLICE_PROTECT_FILE, path, sizeof(path));
	if (r <= 0)
		return r;
	r = sysfs_read_string(ctx, path, value, sizeof(value));
	if (r < 0)
		return r;
	if (streq(value, "max")) {
		*ret = UINT64_MAX;
		return 1;
	}
	r = pmemram_parse_u64(value, 10, ret);
	return r < 0 ? r : 1;
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

bool pmemram_protection_matches(uint64_t bytes, uint64_t memory_low)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return memory_low == (bytes == UINT64_MAX ? UINT64_MAX : bytes - bytes % page);
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

int pmemram_promotion_read(struct pmemram_ctx *ctx, struct pmemram_promotion *ret)
{
	struct pmemram_promotion p = {};
	char buf[32];
	uint64_t v;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	pmemram_ctx_clear_error(ctx);
	r = root_read_string(ctx, PMEMRAM_ROOT_PROCFS, NUMA_BALANCING_PATH, buf, sizeof(buf));
	if (r < 0)
		return r;
	if (pmemram_parse_u64(buf, 10, &v) < 0 || v > UINT32_MAX)
		return -EBADMSG;
	p.numa_balancing = (unsigned)v;
	p.tiering = p.numa_balancing & NUMA_BALANCING_MEMORY_TIERING;
	/* Older kernels promote without a rate limit. */
	r = root_read_string(ctx, PMEMRAM_ROOT_PROCFS, PROMOTE_RATE_PATH, buf, sizeof(buf));
	if (r >= 0 && pmemram_parse_u64(buf, 10, &p.rate_mbps) < 0)
		return -EBADMSG;
	if (r < 0 && r != -ENOENT)
		return r;
	pmemram_ctx_clear_error(ctx);
	*ret = p;
	return 0;
}

struct json_object *pmemram_promotion_to_json(int r, const struct pmemram_promotion *p)
{
	struct json_object *o;

	if (r < 0)
		return NULL;
	o = json_object_new_object();
	if (o && json_add(o, "numa_balancing", json_object_new_int64(p->numa_balancing)) &&
	    json_add(o, "tiering", json_object_new_boolean(p->tiering)) &&
	    (p->rate_mbps ? json_add(o, "rate_limit_mbps", json_object_new_uint64(p->rate_mbps))
			  : json_add_null_value(o, "rate_limit_mbps")))
		return o;
	json_object_put(o);
	return NULL;
}

int pmemram_promotion_write(struct pmemram_ctx *ctx, bool on, uint64_t rate_mbps)
{
	struct pmemram_promotion now;
	char value[32];
	unsigned want;
	int r;

	r = pmemram_promotion_read(ctx, &now);
	if (r < 0)
		return r;
	/* NUMA balancing between the nodes of one tier (bit 1) stays as it was. */
	want = on ? now.numa_balancing | NUMA_BALANCING_MEMORY_TIERING
		  : now.numa_balancing & ~NUMA_BALANCING_MEMORY_TIERING;
	if (want != now.numa_balancing) {
		(void)snprintf(value, sizeof(value), "%u", want);
		r = root_write_verify(ctx, PMEMRAM_ROOT_PROCFS, NUMA_BALANCING_PATH, value);
		if (r < 0)
			return r;
	}
	if (rate_mbps > 0 && rate_mbps != now.rate_mbps) {
		(void)snprintf(value, sizeof(value), "%" PRIu64, rate_mbps);
		r = root_write_verify(ctx, PMEMRAM_ROOT_PROCFS, PROMOTE_RATE_PATH, value);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- weighted interleave ---------------------------------------------------------------- */

int pmemram_weights_supported(struct pmemram_ctx *ctx)
{
	int r;

	if (!ctx)
		return -EINVAL;
	r = sysfs_exists(ctx, PMEMRAM_WEIGHTS_DIR);
	pmemram_ctx_clear_error(ctx);
	return r;
}

int pmemram_weight_read(struct pmemram_ctx *ctx, unsigned node, unsigned *ret)
{
	char path[96];
	uint64_t v;
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	snprintf(path, sizeof(path), PMEMRAM_WEIGHTS_DIR "/node%u", node);
	r = sysfs_read_u64(ctx, path, &v);
	if (r < 0)
		return r;
	*ret = (unsigned)v;
	return 0;
}

int pmemram_weight_write(struct pmemram_ctx *ctx, unsigned node, unsigned weight)
{
	char path[96], value[16];

	if (!ctx || weight < 1 || weight > PMEMRAM_CLASS_WEIGHT_MAX)
		return -EINVAL;
	snprintf(path, sizeof(path), PMEMRAM_WEIGHTS_DIR "/node%u", node);
	snprintf(value, sizeof(value), "%u", weight);
	return sysfs_write_verify(ctx, path, value, value);
}
