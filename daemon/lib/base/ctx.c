/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library context: sysfs/procfs/udev root directory handles, caller-installed log function, error path. */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "pmemram-private.h"

/* Default path and the environment variable that overrides it, per root. */
static const struct {
	const char *path;
	const char *env;
} root_defaults[_PMEMRAM_ROOT_MAX] = {
	[PMEMRAM_ROOT_SYSFS] = { "/sys", "PMEMRAM_SYSFS_ROOT" },
	[PMEMRAM_ROOT_PROCFS] = { "/proc", "PMEMRAM_PROCFS_ROOT" },
	[PMEMRAM_ROOT_UDEV] = { "/", "PMEMRAM_UDEV_ROOT" },
};

struct ctx_root {
	int fd; /* -1 until first use, except sysfs */
	char *path;
};

struct pmemram_ctx {
	unsigned refcount;
	struct ctx_root roots[_PMEMRAM_ROOT_MAX];
	pmemram_log_fn log_fn;
	int log_priority;
	void *userdata;
	char error_path[PATH_MAX];
	uint64_t offline_timeout_usec;
	uint64_t accesses[_PMEMRAM_ROOT_MAX];
	void *apply_state;
	void (*apply_state_free)(void *state);
	uint64_t dax_signature;
	void *rules_cache;
};

static int open_root(const char *root, int *ret_fd, char **ret_root)
{
	_cleanup_(closep) int fd = -1;
	char *copy;

	if (!root || !*root)
		return -EINVAL;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();

	copy = strdup(root);
	if (!copy)
		return -ENOMEM;

	/* "/sys/" and "/sys" name the same tree; keep error paths tidy. */
	for (size_t n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';

	*ret_fd = TAKE_FD(fd);
	*ret_root = copy;
	return 0;
}

static bool root_is_valid(enum pmemram_root which)
{
	return (unsigned)which < _PMEMRAM_ROOT_MAX;
}

int pmemram_ctx_new(struct pmemram_ctx **ret_ctx)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *ctx = NULL;
	const char *level;
	int r;

	if (!ret_ctx)
		return -EINVAL;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	for (size_t i = 0; i < ELEMENTSOF(ctx->roots); i++)
		ctx->roots[i].fd = -1;
	ctx->log_priority = LOG_ERR;
	ctx->offline_timeout_usec = PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC;

	level = secure_getenv("PMEMRAM_LOG");
	if (level) {
		int priority;

		/* An unparsable level is not worth failing for: keep the default. */
		if (pmemram_parse_log_priority(level, &priority) >= 0)
			ctx->log_priority = priority;
	}

	for (size_t i = 0; i < ELEMENTSOF(ctx->roots); i++) {
		const char *root = secure_getenv(root_defaults[i].env);

		ctx->roots[i].path = strdup(root && *root ? root : root_defaults[i].path);
		if (!ctx->roots[i].path)
			return -ENOMEM;
	}

	/* sysfs is needed by every caller: fail early.  The others open on first use. */
	r = pmemram_ctx_get_root_fd(ctx, PMEMRAM_ROOT_SYSFS);
	if (r < 0) {
		/* The context is going away; the caller learns the path from the errno. */
		return r;
	}

	*ret_ctx = TAKE_PTR(ctx);
	return 0;
}

struct pmemram_ctx *pmemram_ctx_ref(struct pmemram_ctx *ctx)
{
	if (ctx)
		ctx->refcount++;
	return ctx;
}

struct pmemram_ctx *pmemram_ctx_unref(struct pmemram_ctx *ctx)
{
	if (!ctx)
		return NULL;
	if (--ctx->refcount > 0)
		return NULL;

	for (size_t i = 0; i < ELEMENTSOF(ctx->roots); i++) {
		safe_close(ctx->roots[i].fd);
		free(ctx->roots[i].path);
	}
	if (ctx->apply_state_free)
		ctx->apply_state_free(ctx->apply_state);
	free(ctx->rules_cache);
	free(ctx);
	return NULL;
}

int pmemram_ctx_new_worker(struct pmemram_ctx *ctx, struct pmemram_ctx **ret)
{
	_cleanup_(pmemram_ctx_unrefp) struct pmemram_ctx *w = NULL;

	if (!ctx || !ret)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->refcount = 1;
	for (size_t i = 0; i < ELEMENTSOF(w->roots); i++)
		w->roots[i].fd = -1;
	w->log_fn = ctx->log_fn;
	w->log_priority = ctx->log_priority;
	w->userdata = ctx->userdata;
	w->offline_timeout_usec = ctx->offline_timeout_usec;
	for (size_t i = 0; i < ELEMENTSOF(w->roots); i++) {
		w->roots[i].path = strdup(ctx->roots[i].path);
		if (!w->roots[i].path)
			return -ENOMEM;
		if (ctx->roots[i].fd >= 0) {
			w->roots[i].fd = fcntl(ctx->roots[i].fd, F_DUPFD_CLOEXEC, 3);
			if (w->roots[i].fd < 0)
				return negative_errno();
		}
	}
	*ret = TAKE_PTR(w);
	return 0;
}

void pmemram_ctx_merge_worker(struct pmemram_ctx *ctx, const struct pmemram_ctx *worker)
{
	if (!ctx || !worker)
		return;
	for (size_t i = 0; i < ELEMENTSOF(ctx->accesses); i++)
		ctx->accesses[i] += worker->accesses[i];
	if (!ctx->error_path[0] && worker->error_path[0])
		memcpy(ctx->error_path, worker->error_path, sizeof(ctx->error_path));
}

void pmemram_ctx_count_access(struct pmemram_ctx *ctx, enum pmemram_root which)
{
	if (ctx && root_is_valid(which))
		ctx->accesses[which]++;
}

uint64_t pmemram_ctx_get_accesses(struct pmemram_ctx *ctx, enum pmemram_root which)
{
	return ctx && root_is_valid(which) ? ctx->accesses[which] : 0;
}

void pmemram_ctx_set_dax_signature(struct pmemram_ctx *ctx, uint64_t signature)
{
	if (ctx)
		ctx->dax_signature = signature;
}

uint64_t pmemram_ctx_get_dax_signature(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->dax_signature : 0;
}

void *pmemram_ctx_get_rules_cache(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->rules_cache : NULL;
}

void pmemram_ctx_set_rules_cache(struct pmemram_ctx *ctx, void *cache)
{
	if (!ctx) {
		free(cache);
		return;
	}
	if (cache != ctx->rules_cache)
		free(ctx->rules_cache);
	ctx->rules_cache = cache;
}

void *pmemram_ctx_get_apply_state(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->apply_state : NULL;
}

void pmemram_ctx_set_apply_state(struct pmemram_ctx *ctx, void *state, void (*free_fn)(void *state))
{
	if (!ctx)
		return;
	if (ctx->apply_state_free)
		ctx->apply_state_free(ctx->apply_state);
	ctx->apply_state = state;
	ctx->apply_state_free = free_fn;
}

int pmemram_ctx_set_root(struct pmemram_ctx *ctx, enum pmemram_root which, const char *root)
{
	struct ctx_root *cr;
	char *new_root;
	int fd, r;

	if (!ctx || !root_is_valid(which))
		return -EINVAL;
	cr = &ctx->roots[which];

	r = open_root(root, &fd, &new_root);
	if (r < 0)
		return log_debug_errno(ctx, r, "cannot open root %s: %s", root ? root : "(null)", strerror(-r));

	safe_close(cr->fd);
	free(cr->path);
	cr->fd = fd;
	cr->path = new_root;
	pmemram_ctx_clear_error(ctx);
	log_debug(ctx, "root %d is now %s", (int)which, new_root);
	return 0;
}

const char *pmemram_ctx_get_root(struct pmemram_ctx *ctx, enum pmemram_root which)
{
	return ctx && root_is_valid(which) ? ctx->roots[which].path : NULL;
}

int pmemram_ctx_get_root_fd(struct pmemram_ctx *ctx, enum pmemram_root which)
{
	struct ctx_root *cr;
	char *path;
	int r;

	if (!ctx || !root_is_valid(which))
		return -EBADF;
	cr = &ctx->roots[which];
	if (cr->fd >= 0)
		return cr->fd;

	r = open_root(cr->path, &cr->fd, &path);
	if (r < 0) {
		pmemram_ctx_set_error_path_in(ctx, which, "");
		return log_debug_errno(ctx, r, "cannot open root %s: %s", cr->path, strerror(-r));
	}
	free(cr->path);
	cr->path = path;
	return cr->fd;
}

int pmemram_ctx_set_sysfs_root(struct pmemram_ctx *ctx, const char *root)
{
	return pmemram_ctx_set_root(ctx, PMEMRAM_ROOT_SYSFS, root);
}

const char *pmemram_ctx_get_sysfs_root(struct pmemram_ctx *ctx)
{
	return pmemram_ctx_get_root(ctx, PMEMRAM_ROOT_SYSFS);
}

int pmemram_ctx_get_sysfs_fd(struct pmemram_ctx *ctx)
{
	return pmemram_ctx_get_root_fd(ctx, PMEMRAM_ROOT_SYSFS);
}

void pmemram_ctx_set_log_fn(struct pmemram_ctx *ctx, pmemram_log_fn fn)
{
	if (ctx)
		ctx->log_fn = fn;
}

void pmemram_ctx_set_log_priority(struct pmemram_ctx *ctx, int priority)
{
	if (ctx)
		ctx->log_priority = priority;
}

int pmemram_ctx_get_log_priority(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->log_priority : LOG_ERR;
}

void pmemram_ctx_set_offline_timeout(struct pmemram_ctx *ctx, uint64_t usec)
{
	if (ctx)
		ctx->offline_timeout_usec = usec;
}

uint64_t pmemram_ctx_get_offline_timeout(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->offline_timeout_usec : PMEMRAM_OFFLINE_TIMEOUT_DEFAULT_USEC;
}

void pmemram_ctx_set_userdata(struct pmemram_ctx *ctx, void *userdata)
{
	if (ctx)
		ctx->userdata = userdata;
}

void *pmemram_ctx_get_userdata(struct pmemram_ctx *ctx)
{
	return ctx ? ctx->userdata : NULL;
}

void pmemram_ctx_set_error_path_in(struct pmemram_ctx *ctx, enum pmemram_root which, const char *path)
{
	const char *root;
	int n;

	if (!ctx || !root_is_valid(which))
		return;
	root = ctx->roots[which].path;

	/* "" names the root itself. */
	n = snprintf(ctx->error_path, sizeof(ctx->error_path), "%s%s%s", root,
		     streq(root, "/") || !*path ? "" : "/", path);
	if (n < 0)
		ctx->error_path[0] = '\0';
}

void pmemram_ctx_set_error_path(struct pmemram_ctx *ctx, const char *path)
{
	pmemram_ctx_set_error_path_in(ctx, PMEMRAM_ROOT_SYSFS, path);
}

const char *pmemram_ctx_get_error_path(struct pmemram_ctx *ctx)
{
	if (!ctx || !ctx->error_path[0])
		return NULL;
	return ctx->error_path;
}

void pmemram_ctx_clear_error(struct pmemram_ctx *ctx)
{
	if (ctx)
		ctx->error_path[0] = '\0';
}

void pmemram_log(struct pmemram_ctx *ctx, int priority, const char *file, int line, const char *fn,
		 const char *format, ...)
{
	va_list args;

	if (!ctx || !ctx->log_fn || priority > ctx->log_priority)
		return;

	va_start(args, format);
	ctx->log_fn(ctx, priority, file, line, fn, format, args);
	va_end(args);
}
